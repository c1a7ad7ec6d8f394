//! Every tool's effect, through the real binary against the loopback simulator: the
//! platform state really changes (read back from the simulator), refusals change nothing
//! and call nothing.

mod session;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use session::{Session, body, expect_error, expect_ok, fast_sim, sim_env, start_sim};
use zcp::sim::demo::{API_ID, DB_ID, DEMO_PROJECT_ID, WEB_ID};
use zcp::sim::model::{Effect, EnvRec, ProcessRec};
use zcp::sim::{Fault, SimConfig, SimHandle, State};

fn service_field<T>(
    sim: &SimHandle,
    id: &str,
    f: impl FnOnce(&zcp::sim::model::ServiceRec) -> T,
) -> T {
    sim.with_state(|s| {
        s.tick(Instant::now());
        f(s.services
            .iter()
            .find(|x| x.id == id)
            .expect("service exists"))
    })
}

/// API requests that change something (everything but reads and searches).
fn mutations(sim: &SimHandle) -> Vec<String> {
    sim.requests()
        .into_iter()
        .filter(|r| !r.starts_with("GET ") && !r.ends_with("/search"))
        .collect()
}

/// Waits (up to 10 s) until a process started at or after `since` matches, then applies
/// `change` to every such process (the demo's history holds processes of every action).
fn when_started(
    sim: &SimHandle,
    since: Instant,
    matches: impl Fn(&ProcessRec) -> bool,
    mut change: impl FnMut(&mut ProcessRec),
) {
    until_state(sim, "no such process started", |st| {
        st.processes
            .iter_mut()
            .filter(|p| p.started_at >= since && matches(p))
            .map(&mut change)
            .count()
            > 0
    });
}

/// Waits (up to 10 s) until `done` says yes to the simulator's state; fails with `what`.
fn until_state(sim: &SimHandle, what: &str, mut done: impl FnMut(&mut State) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !sim.with_state(&mut done) {
        assert!(Instant::now() < deadline, "{what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A simulator whose processes take `duration` (long enough to act while one runs).
fn sim_with_processes_of(duration: Duration) -> SimHandle {
    start_sim(SimConfig {
        process_duration: duration,
        ..SimConfig::default()
    })
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {value}"))
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

// ---------------------------------------------------------------------------------------
// zerops_manage

#[test]
fn manage_stop_start_restart_change_the_service_status() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let stopped = expect_ok(&s.call(
        "zerops_manage",
        json!({"action": "stop", "serviceHostname": "web"}),
    ));
    assert_eq!(stopped["serviceId"], WEB_ID);
    assert_eq!(stopped["process"]["status"], "FINISHED", "{stopped}");
    assert_eq!(stopped["process"]["actionName"], "stack.stop");
    assert_eq!(service_field(&sim, WEB_ID, |x| x.status.clone()), "STOPPED");

    let started = expect_ok(&s.call(
        "zerops_manage",
        json!({"action": "start", "serviceHostname": "web"}),
    ));
    assert_eq!(started["process"]["status"], "FINISHED");
    assert_eq!(service_field(&sim, WEB_ID, |x| x.status.clone()), "ACTIVE");

    let restarted = expect_ok(&s.call(
        "zerops_manage",
        json!({"action": "restart", "serviceHostname": "api"}),
    ));
    assert_eq!(restarted["process"]["actionName"], "stack.restart");
    assert_eq!(restarted["process"]["status"], "FINISHED");
    assert!(
        sim.requests()
            .contains(&format!("PUT /service-stack/{API_ID}/restart")),
        "{:?}",
        sim.requests()
    );
    assert_eq!(service_field(&sim, API_ID, |x| x.status.clone()), "ACTIVE");
    assert!(restarted.get("warnings").is_none(), "{restarted}");

    // Scaling values beside a restart are not applied, and the answer says so.
    let before = service_field(&sim, API_ID, |x| x.autoscaling.clone());
    let restarted = expect_ok(&s.call(
        "zerops_manage",
        json!({"action": "restart", "serviceHostname": "api", "minCpu": 2, "maxRam": 4}),
    ));
    let warnings = strings(&restarted["warnings"]).join(" ");
    assert!(warnings.contains("minCpu, maxRam ignored"), "{restarted}");
    assert_eq!(
        service_field(&sim, API_ID, |x| x.autoscaling.clone()),
        before
    );

    // The discover view agrees with the platform.
    let web = expect_ok(&s.call("zerops_discover", json!({"serviceHostname": "web"})));
    assert_eq!(web["services"][0]["status"], "ACTIVE");
}

#[test]
fn manage_scale_updates_autoscaling_and_sends_the_current_mode() {
    let sim = fast_sim();
    // An HA service: the platform refuses an update that does not repeat the mode.
    sim.with_state(|s| {
        s.services.iter_mut().find(|x| x.id == API_ID).unwrap().mode = "HA".into();
    });
    let mut s = Session::start(&sim_env(&sim));
    let scaled = expect_ok(&s.call(
        "zerops_manage",
        json!({"action": "scale", "serviceHostname": "api", "minRam": 1, "maxRam": 4,
               "maxCpu": 3, "minContainers": 2, "maxContainers": 4, "startContainers": 3}),
    ));
    assert_eq!(scaled["process"]["status"], "FINISHED", "{scaled}");
    let warnings = strings(&scaled["warnings"]).join(" ");
    assert!(warnings.contains("startContainers"), "{warnings}");
    let scaling = service_field(&sim, API_ID, |x| x.autoscaling.clone());
    let vertical = &scaling["verticalAutoscaling"];
    assert_eq!(
        vertical["minResource"]["memoryGBytes"],
        json!(1.0),
        "{scaling}"
    );
    assert_eq!(vertical["maxResource"]["memoryGBytes"], json!(4.0));
    assert_eq!(vertical["maxResource"]["cpuCoreCount"], json!(3));
    // The start container count is never sent as CPU cores.
    assert_ne!(vertical["startCpuCoreCount"], json!(3), "{scaling}");
    assert_eq!(
        scaling["horizontalAutoscaling"],
        json!({"minContainerCount": 2, "maxContainerCount": 4})
    );
    assert_eq!(service_field(&sim, API_ID, |x| x.mode.clone()), "HA");

    // NON_HA services get NON_HA (the simulator refuses any other mode).
    let db = expect_ok(&s.call(
        "zerops_manage",
        json!({"action": "scale", "serviceHostname": "db", "maxDisk": 40}),
    ));
    assert_eq!(db["process"]["status"], "FINISHED", "{db}");
    assert!(db.get("warnings").is_none(), "no empty warnings: {db}");
    let disk = service_field(&sim, DB_ID, |x| {
        x.autoscaling["verticalAutoscaling"]["maxResource"]["diskGBytes"].clone()
    });
    assert_eq!(disk, json!(40.0));
}

#[test]
fn manage_scale_without_a_process_still_succeeds() {
    let sim = start_sim(SimConfig {
        autoscaling_returns_process: false,
        process_duration: Duration::from_millis(150),
        ..SimConfig::default()
    });
    let mut s = Session::start(&sim_env(&sim));
    let scaled = expect_ok(&s.call(
        "zerops_manage",
        json!({"action": "scale", "serviceHostname": "api", "cpuMode": "DEDICATED"}),
    ));
    assert_eq!(scaled["serviceHostname"], "api");
    let mode = service_field(&sim, API_ID, |x| {
        x.autoscaling["verticalAutoscaling"]["cpuMode"].clone()
    });
    assert_eq!(mode, "DEDICATED");
}

/// The platform takes one CPU mode change per service an hour: a second one is refused
/// (`lastCpuModeChangeTooRecent`), while other scaling, the same mode again and other
/// services still go through.
#[test]
fn the_cpu_mode_changes_once_an_hour() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let scale = |s: &mut Session, host: &str, extra: Value| {
        let mut arguments = json!({"action": "scale", "serviceHostname": host});
        arguments
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        s.call("zerops_manage", arguments)
    };
    expect_ok(&scale(&mut s, "api", json!({"cpuMode": "DEDICATED"})));
    let err = expect_error(
        &scale(&mut s, "api", json!({"cpuMode": "SHARED"})),
        "INVALID_SCALING",
    );
    assert_eq!(err["apiCode"], "lastCpuModeChangeTooRecent", "{err}");
    let mode = |sim: &SimHandle| {
        service_field(sim, API_ID, |x| {
            x.autoscaling["verticalAutoscaling"]["cpuMode"].clone()
        })
    };
    assert_eq!(mode(&sim), "DEDICATED");
    expect_ok(&scale(
        &mut s,
        "api",
        json!({"cpuMode": "DEDICATED", "maxRam": 4}),
    ));
    expect_ok(&scale(&mut s, "web", json!({"cpuMode": "DEDICATED"})));
    // An hour later it may change again.
    sim.with_state(|st| {
        let earlier = Instant::now() - Duration::from_secs(3601);
        let api = st.services.iter_mut().find(|x| x.id == API_ID).unwrap();
        api.cpu_mode_changed = Some(earlier);
    });
    expect_ok(&scale(&mut s, "api", json!({"cpuMode": "SHARED"})));
    assert_eq!(mode(&sim), "SHARED");
}

#[test]
fn impossible_scaling_is_refused_naming_the_field_before_any_call() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let cases = [
        (json!({}), "scaling parameter"),
        (json!({"minCpu": 3, "maxCpu": 2}), "minCpu"),
        (json!({"minRam": 8, "maxRam": 2}), "minRam"),
        (
            json!({"minContainers": 5, "maxContainers": 2}),
            "minContainers",
        ),
        (json!({"minCpu": -1}), "minCpu"),
        (json!({"maxDisk": -5}), "maxDisk"),
        (json!({"cpuMode": "TURBO"}), "cpuMode"),
        // Alone, against the service's current partner (the demo's api: 1-5 cores, 0.25-8
        // GB RAM, 1-3 containers).
        (json!({"minRam": 16}), "current maxRam (8)"),
        (json!({"maxRam": 0.1}), "current minRam (0.25)"),
        (json!({"minContainers": 5}), "current maxContainers (3)"),
    ];
    for (extra, field) in cases {
        let mut args = json!({"action": "scale", "serviceHostname": "api"});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        let err = expect_error(&s.call("zerops_manage", args.clone()), "INVALID_SCALING");
        let text = err["error"].as_str().unwrap();
        assert!(text.contains(field), "{args}: {text} should name {field}");
    }
    assert!(
        !sim.requests().iter().any(|r| r.contains("autoscaling")),
        "{:?}",
        sim.requests()
    );
    let unknown = expect_error(
        &s.call(
            "zerops_manage",
            json!({"action": "restart", "serviceHostname": "nope"}),
        ),
        "SERVICE_NOT_FOUND",
    );
    assert!(
        unknown["suggestion"]
            .as_str()
            .unwrap()
            .contains("api, cache, db, storage, web")
    );
    assert!(mutations(&sim).is_empty(), "{:?}", mutations(&sim));
}

// ---------------------------------------------------------------------------------------
// zerops_env

fn service_env(sim: &SimHandle, id: &str) -> Vec<(String, String)> {
    service_field(sim, id, |x| {
        let mut vars: Vec<(String, String)> = x
            .env
            .iter()
            .map(|e| (e.key.clone(), e.content.clone()))
            .collect();
        vars.sort();
        vars
    })
}

fn project_env(sim: &SimHandle) -> Vec<(String, String)> {
    sim.with_state(|s| {
        s.tick(Instant::now());
        let project = s.projects.iter().find(|p| p.id == DEMO_PROJECT_ID).unwrap();
        let mut vars: Vec<(String, String)> = project
            .env
            .iter()
            .map(|e| (e.key.clone(), e.content.clone()))
            .collect();
        vars.sort();
        vars
    })
}

fn has(vars: &[(String, String)], key: &str, value: &str) -> bool {
    vars.iter().any(|(k, v)| k == key && v == value)
}

fn env_set_get_delete_on_a_service(config: SimConfig) {
    let sim = start_sim(config);
    let mut s = Session::start(&sim_env(&sim));
    let set = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "set", "serviceHostname": "api",
               "variables": ["NODE_ENV=staging", "FEATURE_X=a=b=c", "EMPTY="]}),
    ));
    assert_eq!(strings(&set["replaced"]), ["NODE_ENV"], "{set}");
    let mut added = strings(&set["added"]);
    added.sort();
    assert_eq!(added, ["EMPTY", "FEATURE_X"]);
    let next = set["nextAction"].as_str().unwrap();
    assert!(
        next.contains("zerops_manage") && next.contains("restart"),
        "{next}"
    );
    let vars = service_env(&sim, API_ID);
    assert!(has(&vars, "NODE_ENV", "staging"), "{vars:?}");
    assert!(
        has(&vars, "FEATURE_X", "a=b=c"),
        "split at the first '=': {vars:?}"
    );
    assert!(has(&vars, "EMPTY", ""));
    // Variables not named are kept, whether the API merges or replaces the file.
    assert!(
        has(&vars, "DATABASE_URL", "${db_connectionString}"),
        "{vars:?}"
    );
    assert!(has(&vars, "REDIS_URL", "${cache_connectionString}"));

    let got = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "get", "serviceHostname": "api"}),
    ));
    let keys: Vec<&str> = got["vars"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["key"].as_str().unwrap())
        .collect();
    assert!(
        keys.contains(&"FEATURE_X") && keys.contains(&"DATABASE_URL"),
        "{got}"
    );

    let deleted = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "delete", "serviceHostname": "api", "variables": ["FEATURE_X", "EMPTY"]}),
    ));
    let mut removed = strings(&deleted["removed"]);
    removed.sort();
    assert_eq!(removed, ["EMPTY", "FEATURE_X"], "{deleted}");
    let vars = service_env(&sim, API_ID);
    assert!(
        !vars.iter().any(|(k, _)| k == "FEATURE_X" || k == "EMPTY"),
        "{vars:?}"
    );
    assert!(has(&vars, "NODE_ENV", "staging"));
}

#[test]
fn deleting_an_unknown_variable_lists_only_the_ones_that_could_be_deleted() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let err = expect_error(
        &s.call(
            "zerops_env",
            json!({"action": "delete", "serviceHostname": "api", "variables": ["NOPE"]}),
        ),
        "INVALID_PARAMETER",
    );
    let suggestion = err["suggestion"].as_str().unwrap();
    assert!(suggestion.contains("NODE_ENV"), "{suggestion}");
    // Platform variables (hostname, ...) cannot be deleted, so they are not offered.
    assert!(!suggestion.contains("hostname"), "{suggestion}");
}

#[test]
fn env_service_level_set_get_delete() {
    env_set_get_delete_on_a_service(SimConfig {
        process_duration: Duration::from_millis(150),
        ..SimConfig::default()
    });
}

#[test]
fn env_service_set_changes_one_variable_per_call_and_keeps_multi_line_values() {
    let sim = fast_sim();
    // A platform variable the user may not write (the API's EDITABLE type), beside the
    // user's own multi-line secret.
    sim.with_state(|s| {
        let api = s.services.iter_mut().find(|x| x.id == API_ID).unwrap();
        for (id, key, content, kind) in [
            ("udapiPATH", "PATH", "/usr/local/bin:/usr/bin", "EDITABLE"),
            (
                "udapiPEM",
                "TLS_KEY",
                "-----BEGIN KEY-----\nAAA\n-----END KEY-----",
                "SECRET",
            ),
        ] {
            api.env.push(EnvRec {
                id: id.into(),
                key: key.into(),
                content: content.into(),
                kind: kind.into(),
                sensitive: false,
            });
        }
    });
    let mut s = Session::start(&sim_env(&sim));
    let err = expect_error(
        &s.call(
            "zerops_env",
            json!({"action": "set", "serviceHostname": "api", "variables": ["PATH=/bin"]}),
        ),
        "INVALID_ENV_FORMAT",
    );
    assert!(err["error"].as_str().unwrap().contains("'PATH'"), "{err}");
    assert!(mutations(&sim).is_empty(), "{:?}", mutations(&sim));
    // Keys are unique whatever their case: `node_env` is refused, naming `NODE_ENV`.
    let err = expect_error(
        &s.call(
            "zerops_env",
            json!({"action": "set", "serviceHostname": "api", "variables": ["node_env=x"]}),
        ),
        "INVALID_ENV_FORMAT",
    );
    assert!(
        err["suggestion"].as_str().unwrap().contains("'NODE_ENV'"),
        "{err}"
    );
    assert!(mutations(&sim).is_empty(), "{:?}", mutations(&sim));

    // A sensitive variable stays sensitive when its value is replaced (the API would turn
    // it plain if the flag were left out); a new one is created plain.
    sim.with_state(|st| {
        for var in st.services.iter_mut().flat_map(|x| x.env.iter_mut()) {
            if var.key == "NODE_ENV" {
                var.sensitive = true;
            }
        }
    });
    let pem = "-----BEGIN KEY-----\nBBB\n-----END KEY-----\n";
    let set = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "set", "serviceHostname": "api",
               "variables": ["NODE_ENV=test", format!("SIGNING_KEY={pem}")]}),
    ));
    assert_eq!(strings(&set["replaced"]), ["NODE_ENV"], "{set}");
    assert_eq!(strings(&set["added"]), ["SIGNING_KEY"], "{set}");
    // The update and the creation are each a process, both followed to the end.
    assert_eq!(
        set["summary"], "processes: 2 finished, 0 still running",
        "{set}"
    );
    assert_eq!(set["processIds"].as_array().unwrap().len(), 2, "{set}");
    assert!(set.get("processes").is_none(), "{set}");
    assert_eq!(
        mutations(&sim),
        [
            "PUT /user-data/udapi00000000000000005",
            &format!("POST /service-stack/{API_ID}/user-data")
        ]
    );
    let sensitive = |key: &str| {
        service_field(&sim, API_ID, |x| {
            x.env.iter().find(|e| e.key == key).map(|e| e.sensitive)
        })
    };
    // NODE_ENV kept its flag; SIGNING_KEY is new and its name looks secret.
    assert_eq!(sensitive("NODE_ENV"), Some(true));
    assert_eq!(sensitive("SIGNING_KEY"), Some(true));
    assert_eq!(
        strings(&set["sensitive"]),
        ["NODE_ENV", "SIGNING_KEY"],
        "{set}"
    );
    let vars = service_env(&sim, API_ID);
    assert!(has(&vars, "SIGNING_KEY", pem), "{vars:?}");
    assert!(has(&vars, "NODE_ENV", "test"), "{vars:?}");
    // The variables not named are untouched, the multi-line one and the platform's included.
    assert!(has(
        &vars,
        "TLS_KEY",
        "-----BEGIN KEY-----\nAAA\n-----END KEY-----"
    ));
    assert!(has(&vars, "PATH", "/usr/local/bin:/usr/bin"));
    let got = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "get", "serviceHostname": "api"}),
    ));
    let path = got["vars"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["key"] == "PATH")
        .unwrap();
    assert_eq!(path["isPlatform"], true, "{got}");
    // Said outright, the flag applies to every variable of the call.
    expect_ok(&s.call(
        "zerops_env",
        json!({"action": "set", "serviceHostname": "api", "sensitive": false,
               "variables": ["NODE_ENV=prod", "OTHER_TOKEN=t"]}),
    ));
    assert_eq!(sensitive("NODE_ENV"), Some(false));
    assert_eq!(sensitive("OTHER_TOKEN"), Some(false));
}

/// One process per variable: the answer counts them and lists in full only those not
/// done, so a big change stays small; ids while there are at most ten.
#[test]
fn a_big_env_change_counts_its_processes_instead_of_listing_them() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let variables: Vec<String> = (0..20).map(|i| format!("VAR_{i}=value{i}")).collect();
    let call = s.call(
        "zerops_env",
        json!({"action": "set", "serviceHostname": "web", "variables": variables}),
    );
    let set = expect_ok(&call);
    assert_eq!(
        set["summary"], "processes: 20 finished, 0 still running",
        "{set}"
    );
    assert!(set.get("processes").is_none() && set.get("processIds").is_none());
    assert!(call.to_string().len() < 2_000, "{call}");

    let slow = start_sim(SimConfig {
        process_duration: Duration::from_secs(60),
        ..SimConfig::default()
    });
    let mut env = sim_env(&slow);
    env.push(("ZCP_POLL_BUDGET_MS".into(), "300".into()));
    let mut s = Session::start(&env);
    let set = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "set", "serviceHostname": "web", "variables": ["A=1", "B=2"]}),
    ));
    assert_eq!(
        set["summary"], "processes: 0 finished, 2 still running",
        "{set}"
    );
    let running = set["processes"].as_array().unwrap();
    assert_eq!(running.len(), 2, "{set}");
    // The advice to follow them is given once, not once per process.
    assert!(
        running
            .iter()
            .all(|p| p["stillRunning"] == true && p.get("hint").is_none()),
        "{set}"
    );
    assert!(
        set["hint"].as_str().unwrap().contains("zerops_process"),
        "{set}"
    );
    assert_eq!(set["processIds"].as_array().unwrap().len(), 2, "{set}");
}

/// A reference to a service the project does not have is stored, with a warning; what can
/// be a variable (uppercase, no underscore, a key that exists) is not warned about, and
/// values without references cost no extra API call.
#[test]
fn env_references_to_missing_services_are_warned_about() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let lists = |sim: &SimHandle| {
        sim.requests()
            .iter()
            .filter(|r| r.contains("service-stack/search"))
            .count()
    };
    let before = lists(&sim);
    let plain = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "set", "serviceHostname": "api", "variables": ["PLAIN=1"]}),
    ));
    assert!(plain.get("warnings").is_none(), "{plain}");
    let listed_for_the_hostname = lists(&sim) - before;
    let set = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "set", "serviceHostname": "api", "variables": [
            "X_DB=${dbb_hostname}",
            "URL=postgres://${db_user}@${db_hostname}:${cachex_port}/x",
            "A=${DB_URL}", "B=${zeropsSubdomain}", "C=${NODE_ENV}", "D=${my_var}", "my_var=1",
            "E=${Db_x}", "F=${db1_x} ${1db_x} ${unclosed_x", "G=${DB_user}",
            "H=${DB_PASSWORD}",
        ]}),
    ));
    let warnings = strings(&set["warnings"]);
    assert_eq!(warnings.len(), 5, "{set}");
    // A hostname in capitals with one of that service's keys after it: named as such,
    // with the reference spelled right (`${DB_URL}`, `${Db_x}` and `${DB_PASSWORD}` stay
    // project variables).
    assert!(
        warnings[4].starts_with("G: hostnames are lower case")
            && warnings[4].contains("did you mean ${db_user}?"),
        "{}",
        warnings[4]
    );
    // An unclosed reference is text to the platform: said so, after F's other warning.
    assert!(
        warnings[3].starts_with("F: '${' is not closed"),
        "{}",
        warnings[3]
    );
    for (warning, (key, host)) in
        warnings
            .iter()
            .zip([("X_DB", "dbb"), ("URL", "cachex"), ("F", "db1")])
    {
        assert!(warning.starts_with(&format!("{key}: ")), "{warning}");
        assert!(
            warning.contains(&format!("no service '{host}'")),
            "{warning}"
        );
    }
    // The nearest hostname is offered.
    for (warning, near) in warnings.iter().zip(["db", "cache", "db"]) {
        assert!(
            warning.contains(&format!("(did you mean '{near}'?)")),
            "{warning}"
        );
    }
    // Stored all the same: the platform takes them.
    assert!(has(&service_env(&sim, API_ID), "X_DB", "${dbb_hostname}"));
    // The check uses the hostnames listed to find the service: no list more.
    assert_eq!(lists(&sim) - before, 2 * listed_for_the_hostname);
    // A project variable finds no service on the way: the list is read for the check, once,
    // and only when a value has such a reference.
    let before = lists(&sim);
    let plain = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "set", "project": true, "variables": ["P_PLAIN=1"]}),
    ));
    assert!(plain.get("warnings").is_none(), "{plain}");
    assert_eq!(lists(&sim), before);
    let set = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "set", "project": true, "variables": ["P_X=${dbb_hostname} ${cachex_port}"]}),
    ));
    assert_eq!(strings(&set["warnings"]).len(), 2, "{set}");
    assert_eq!(lists(&sim), before + 1);
    // A value that refers to its own variable would hold the literal text: warned about
    // for a service's variable and a project's alike (the value is stored as given).
    for args in [
        json!({"action": "set", "serviceHostname": "api", "variables": ["cache_port=${cache_port}"]}),
        json!({"action": "set", "project": true, "variables": ["APP_ENV=x${APP_ENV}"]}),
    ] {
        let set = expect_ok(&s.call("zerops_env", args));
        let warnings = strings(&set["warnings"]);
        assert_eq!(warnings.len(), 1, "{set}");
        assert!(warnings[0].contains("refers to itself"), "{set}");
    }
}

/// One variable's process failing does not hide the rest of the change: the error names
/// that variable and still lists every variable that was sent.
#[test]
fn an_env_change_whose_process_fails_names_its_variable() {
    let sim = sim_with_processes_of(Duration::from_millis(1500));
    let mut s = Session::start(&sim_env(&sim));
    let since = Instant::now();
    let id = s.start_call(
        "zerops_env",
        json!({"action": "set", "serviceHostname": "web", "variables": ["A=1", "B=2", "C=3"]}),
        None,
    );
    until_state(&sim, "the three creates never started", |st| {
        let mut ours: Vec<&mut ProcessRec> = st
            .processes
            .iter_mut()
            .filter(|p| p.started_at >= since && p.action == "stack.userDataCreate")
            .collect();
        if ours.len() < 3 {
            return false;
        }
        ours[1].failure = Some("storage hiccup".into());
        true
    });
    let err = expect_error(&s.result(id), "PROCESS_FAILED");
    assert!(
        err["error"]
            .as_str()
            .unwrap()
            .starts_with("Changing B failed"),
        "{err}"
    );
    assert_eq!(err["added"], json!(["A", "B", "C"]), "{err}");
    assert_eq!(err["failed"][0]["variable"], "B", "{err}");
    assert_eq!(err["failed"][0]["status"], "failed", "{err}");
    assert_eq!(err["failed"].as_array().unwrap().len(), 1, "{err}");
    assert!(err.get("deleted").is_none(), "{err}");
    assert!(
        err["suggestion"]
            .as_str()
            .unwrap()
            .contains("zerops_env get"),
        "{err}"
    );
    // The rest of the answer comes along: the restart advice holds for A and C.
    assert_eq!(err["scope"], "service", "{err}");
    assert!(
        err["nextAction"].as_str().unwrap().contains("restart"),
        "{err}"
    );

    // A project variable is replaced by a delete and a create: when only the create
    // fails, the variable has lost its old value, and the answer says so.
    let since = Instant::now();
    let id = s.start_call(
        "zerops_env",
        json!({"action": "set", "project": true, "variables": ["APP_ENV=next"]}),
        None,
    );
    when_started(
        &sim,
        since,
        |p| p.action == "project.envCreate",
        |p| p.failure = Some("storage hiccup".into()),
    );
    let err = expect_error(&s.result(id), "PROCESS_FAILED");
    assert_eq!(err["replaced"], json!(["APP_ENV"]), "{err}");
    assert_eq!(err["failed"][0]["variable"], "APP_ENV", "{err}");
    assert_eq!(err["failed"].as_array().unwrap().len(), 1, "{err}");
    assert_eq!(err["deleted"], json!(["APP_ENV"]), "{err}");
}

/// A reference to a key the service does not have, but one near it, is warned about with
/// that key; a key far from all of them (it may come from the service's zerops.yml) is
/// not, even when a listed key contains it (`connection`). Each referenced service's
/// variables are read once.
#[test]
fn env_references_to_misspelt_keys_are_warned_about() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let env_reads = |sim: &SimHandle| {
        sim.requests()
            .iter()
            .filter(|r| r.starts_with("GET /service-stack/") && r.ends_with("/env"))
            .count()
    };
    let before = env_reads(&sim);
    let set = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "set", "serviceHostname": "api", "variables": [
            "DB_HOST=${db_hostnme}",
            "DB_URL=${db_connectionString} ${db_pasword} ${db_API_BASE} ${db_connection}",
            "DB_USER=${db_user}",
        ]}),
    ));
    let warnings = strings(&set["warnings"]);
    assert_eq!(warnings.len(), 2, "{set}");
    assert!(
        warnings[0].starts_with(
            "DB_HOST: 'db' has no variable 'hostnme' for ${db_hostnme} (did you mean 'hostname'?)"
        ),
        "{}",
        warnings[0]
    );
    assert!(
        warnings[1].starts_with("DB_URL: 'db' has no variable 'pasword'")
            && warnings[1].contains("(did you mean 'password'?)"),
        "{}",
        warnings[1]
    );
    // The service's own variables, then db's once for all five references.
    assert_eq!(env_reads(&sim) - before, 2, "{:?}", sim.requests());
    assert!(has(&service_env(&sim, API_ID), "DB_HOST", "${db_hostnme}"));
}

#[test]
fn a_failure_half_way_names_the_variables_already_changed() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    // Two creations go through, then the update of NODE_ENV is refused.
    sim.set_fault(
        "PUT /user-data/*",
        Fault::Status {
            status: 500,
            body:
                json!({"error": {"code": "internalServerError", "message": "boom", "meta": null}})
                    .to_string(),
        },
    );
    let err = expect_error(
        &s.call(
            "zerops_env",
            json!({"action": "set", "serviceHostname": "api",
                   "variables": ["FIRST=1", "SECOND=2", "NODE_ENV=test"]}),
        ),
        "API_ERROR",
    );
    let text = err["error"].as_str().unwrap();
    assert!(
        text.contains("already changed before this failure: FIRST, SECOND"),
        "{text}"
    );
    // The same as data: what changed, with the processes applying it, and what did not.
    assert_eq!(err["changed"], json!(["FIRST", "SECOND"]), "{err}");
    assert_eq!(err["notChanged"], json!(["NODE_ENV"]), "{err}");
    let processes = err["processes"].as_array().unwrap();
    assert_eq!(processes.len(), 2, "{err}");
    assert!(
        processes.iter().all(|p| p["processId"].is_string()),
        "{err}"
    );
    assert!(
        err["suggestion"].as_str().unwrap().contains("notChanged"),
        "{err}"
    );
    let vars = service_env(&sim, API_ID);
    assert!(
        has(&vars, "SECOND", "2") && has(&vars, "NODE_ENV", "production"),
        "{vars:?}"
    );
}

/// A project variable is replaced by delete, then create: when the create fails, the
/// variable has lost its value, and the answer says so (`deleted`), not `notChanged`,
/// even when it was the first variable of the call.
#[test]
fn a_failed_project_replacement_says_the_old_value_is_gone() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let boom = || Fault::Status {
        status: 500,
        body: json!({"error": {"code": "internalServerError", "message": "boom", "meta": null}})
            .to_string(),
    };
    // REGION is created; APP_ENV's old value is deleted, its new one refused.
    sim.set_fault_times("POST /project/*/env", Fault::Latency(Duration::ZERO), 1);
    sim.set_fault("POST /project/*/env", boom());
    let err = expect_error(
        &s.call(
            "zerops_env",
            json!({"action": "set", "project": true, "variables": ["REGION=eu", "APP_ENV=prod"]}),
        ),
        "API_ERROR",
    );
    assert_eq!(err["changed"], json!(["REGION"]), "{err}");
    assert_eq!(err["deleted"], json!(["APP_ENV"]), "{err}");
    assert_eq!(err["notChanged"], json!([]), "{err}");
    assert!(
        err["error"]
            .as_str()
            .unwrap()
            .contains("APP_ENV's old value"),
        "{err}"
    );
    // The same when the lost variable is the only one.
    sim.clear_faults();
    sim.set_fault("POST /project/*/env", boom());
    let err = expect_error(
        &s.call(
            "zerops_env",
            json!({"action": "set", "project": true, "variables": ["LOG_LEVEL=debug"]}),
        ),
        "API_ERROR",
    );
    assert_eq!(err["deleted"], json!(["LOG_LEVEL"]), "{err}");
    assert_eq!(err["changed"], json!([]), "{err}");
}

/// A never-deployed service has nothing to start, stop or restart: refused with the advice
/// to deploy, and nothing is sent to the API; scaling it is still allowed.
#[test]
fn lifecycle_calls_on_a_never_deployed_service_say_to_deploy() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    sim.with_state(|st| {
        st.services
            .iter_mut()
            .find(|x| x.id == WEB_ID)
            .unwrap()
            .status = "READY_TO_DEPLOY".into();
    });
    let before = mutations(&sim).len();
    for action in ["start", "stop", "restart"] {
        let refused = expect_error(
            &s.call(
                "zerops_manage",
                json!({"action": action, "serviceHostname": "web"}),
            ),
            "INVALID_USAGE",
        );
        assert!(
            refused["error"]
                .as_str()
                .unwrap()
                .contains("never been deployed")
                && refused["suggestion"]
                    .as_str()
                    .unwrap()
                    .contains("zerops_deploy"),
            "{refused}"
        );
    }
    assert_eq!(mutations(&sim).len(), before, "{:?}", mutations(&sim));
    expect_ok(&s.call(
        "zerops_manage",
        json!({"action": "scale", "serviceHostname": "web", "maxContainers": 2}),
    ));
}

/// A start of a running service or a stop of a stopped one is answered from the service's
/// status, with nothing sent to the API (no process that does nothing).
#[test]
fn redundant_starts_and_stops_are_answered_without_a_process() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let before = mutations(&sim).len();
    let running = expect_ok(&s.call(
        "zerops_manage",
        json!({"action": "start", "serviceHostname": "web"}),
    ));
    assert_eq!(running["status"], "already_running", "{running}");
    assert_eq!(running["serviceId"], WEB_ID);
    assert!(running.get("process").is_none(), "{running}");
    assert!(
        running["message"].as_str().unwrap().contains("restart"),
        "{running}"
    );
    assert_eq!(mutations(&sim).len(), before, "{:?}", mutations(&sim));

    expect_ok(&s.call(
        "zerops_manage",
        json!({"action": "stop", "serviceHostname": "web"}),
    ));
    let after_stop = mutations(&sim).len();
    assert_eq!(after_stop, before + 1, "{:?}", mutations(&sim));
    let stopped = expect_ok(&s.call(
        "zerops_manage",
        json!({"action": "stop", "serviceHostname": "web"}),
    ));
    assert_eq!(stopped["status"], "already_stopped", "{stopped}");
    assert_eq!(mutations(&sim).len(), after_stop, "{:?}", mutations(&sim));
    assert_eq!(service_field(&sim, WEB_ID, |x| x.status.clone()), "STOPPED");
    // A restart would start the stopped service unasked: refused, nothing sent.
    let restart = expect_error(
        &s.call(
            "zerops_manage",
            json!({"action": "restart", "serviceHostname": "web"}),
        ),
        "INVALID_USAGE",
    );
    assert!(
        restart["suggestion"]
            .as_str()
            .unwrap()
            .contains("action start"),
        "{restart}"
    );
    assert_eq!(mutations(&sim).len(), after_stop, "{:?}", mutations(&sim));
    assert_eq!(service_field(&sim, WEB_ID, |x| x.status.clone()), "STOPPED");
}

/// A start or stop already under way at another client's request (the service reads
/// STARTING / STOPPING) is not queued a second time.
#[test]
fn a_start_or_stop_under_way_elsewhere_is_not_sent_again() {
    let sim = sim_with_processes_of(Duration::from_millis(2000));
    let mut other = Session::start(&sim_env(&sim));
    let mut s = Session::start(&sim_env(&sim));
    for (action, status) in [("stop", "stopping"), ("start", "starting")] {
        let since = Instant::now();
        let theirs = other.start_call(
            "zerops_manage",
            json!({"action": action, "serviceHostname": "web"}),
            Some(action),
        );
        when_started(
            &sim,
            since,
            |p| p.action == format!("stack.{action}"),
            |_| {},
        );
        let sent = mutations(&sim).len();
        let ours = expect_ok(&s.call(
            "zerops_manage",
            json!({"action": action, "serviceHostname": "web"}),
        ));
        assert_eq!(ours["status"], status, "{ours}");
        assert!(ours.get("process").is_none(), "{ours}");
        assert_eq!(mutations(&sim).len(), sent, "{:?}", mutations(&sim));
        expect_ok(&other.result(theirs));
    }
}

/// What this server sent and the service does not show yet counts before the status: a
/// second stop while the first is under way is not sent again, and a start while a stop is
/// pending is sent although the service still reads as running (it would stop otherwise).
#[test]
fn a_pending_stop_is_neither_repeated_nor_mistaken_for_a_running_service() {
    let sim = sim_with_processes_of(Duration::from_millis(2500));
    let mut s = Session::start(&sim_env(&sim));
    let since = Instant::now();
    let first = s.start_call(
        "zerops_manage",
        json!({"action": "stop", "serviceHostname": "web"}),
        Some("stop"),
    );
    when_started(&sim, since, |p| p.action == "stack.stop", |_| {});
    let sent = mutations(&sim).len();
    let again = expect_ok(&s.call(
        "zerops_manage",
        json!({"action": "stop", "serviceHostname": "web"}),
    ));
    assert_eq!(again["status"], "stopping", "{again}");
    assert!(
        again["message"]
            .as_str()
            .unwrap()
            .contains("Already requested"),
        "{again}"
    );
    assert_eq!(mutations(&sim).len(), sent, "{:?}", mutations(&sim));
    // The platform may show the service running while its stop waits in line.
    sim.with_state(|st| {
        st.services
            .iter_mut()
            .find(|x| x.id == WEB_ID)
            .unwrap()
            .status = "ACTIVE".into();
    });
    let since = Instant::now();
    let start = s.start_call(
        "zerops_manage",
        json!({"action": "start", "serviceHostname": "web"}),
        Some("start"),
    );
    when_started(&sim, since, |p| p.action == "stack.start", |_| {});
    // A stop after that start is what is wanted now: sent, although the first stop is
    // still pending (it no longer says what is wanted).
    let sent = mutations(&sim).len();
    let stop_again = s.start_call(
        "zerops_manage",
        json!({"action": "stop", "serviceHostname": "web"}),
        Some("stop-again"),
    );
    let started = expect_ok(&s.result(start));
    assert!(started.get("process").is_some(), "{started}");
    let stopped = expect_ok(&s.result(stop_again));
    assert!(stopped.get("process").is_some(), "{stopped}");
    assert_eq!(mutations(&sim).len(), sent + 1, "{:?}", mutations(&sim));
    expect_ok(&s.result(first));
    assert_eq!(service_field(&sim, WEB_ID, |x| x.status.clone()), "STOPPED");
}

/// A service with no running containers gets the variables when it starts: a never
/// deployed one with its first deploy, a stopped one with its start; no restart advice.
#[test]
fn env_changes_on_a_service_without_running_containers_say_when_they_apply() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    for (status, wanted) in [
        ("READY_TO_DEPLOY", "first deploy: call zerops_deploy"),
        (
            "STOPPED",
            "when it is started: call zerops_manage with action start",
        ),
    ] {
        sim.with_state(|st| {
            st.services
                .iter_mut()
                .find(|x| x.id == WEB_ID)
                .unwrap()
                .status = status.into();
        });
        for (action, variable) in [("set", "FLAG=1"), ("delete", "FLAG")] {
            let done = expect_ok(&s.call(
                "zerops_env",
                json!({"action": action, "serviceHostname": "web", "variables": [variable]}),
            ));
            let next = done["nextAction"].as_str().unwrap();
            assert!(next.contains(wanted), "{status} {action}: {next}");
            assert!(!next.contains("restart"), "{status} {action}: {next}");
        }
    }
}

/// Every user service variable has the `SECRET` type: `isSecret` follows the `sensitive`
/// flag, in env get and discover alike.
#[test]
fn only_sensitive_service_variables_are_listed_as_secrets() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    expect_ok(&s.call(
        "zerops_env",
        json!({"action": "set", "serviceHostname": "web",
               "variables": ["DB_PASSWORD=x", "LOG_FORMAT=json"]}),
    ));
    let secrets = |vars: &Value| -> Vec<String> {
        vars.as_array()
            .unwrap()
            .iter()
            .filter(|v| v["isSecret"] == true)
            .map(|v| v["key"].as_str().unwrap().to_owned())
            .collect()
    };
    let got = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "get", "serviceHostname": "web"}),
    ));
    assert_eq!(secrets(&got["vars"]), ["DB_PASSWORD"], "{got}");
    let found = expect_ok(&s.call(
        "zerops_discover",
        json!({"serviceHostname": "web", "includeEnvs": true}),
    ));
    assert_eq!(
        secrets(&found["services"][0]["envs"]),
        ["DB_PASSWORD"],
        "{found}"
    );
}

#[test]
fn env_project_level_upserts_and_deletes() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let set = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "set", "project": true, "variables": ["APP_ENV=prod", "REGION=eu"]}),
    ));
    assert_eq!(strings(&set["replaced"]), ["APP_ENV"], "{set}");
    assert_eq!(strings(&set["added"]), ["REGION"]);
    let vars = project_env(&sim);
    assert_eq!(
        vars,
        [
            ("APP_ENV".to_owned(), "prod".to_owned()),
            ("LOG_LEVEL".to_owned(), "info".to_owned()),
            ("REGION".to_owned(), "eu".to_owned())
        ]
    );
    let got = expect_ok(&s.call("zerops_env", json!({"action": "get", "project": true})));
    assert_eq!(got["scope"], "project");
    assert!(
        got["vars"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["key"] == "REGION" && v["value"] == "eu")
    );

    let deleted = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "delete", "project": true, "variables": ["REGION"]}),
    ));
    assert_eq!(strings(&deleted["removed"]), ["REGION"], "{deleted}");
    assert!(!project_env(&sim).iter().any(|(k, _)| k == "REGION"));
}

#[test]
fn malformed_env_lines_are_refused_naming_the_line_and_nothing_changes() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let before_service = service_env(&sim, API_ID);
    let before_project = project_env(&sim);
    let cases: [(Value, &str); 5] = [
        (json!(["OK=1", "no equals sign"]), "#2"),
        (json!(["1BAD=x"]), "#1"),
        (json!(["A=1", "B=2", "A=3"]), "#3"),
        (json!(["A=1", "ZEROPS_X=1"]), "#2"),
        (json!(["=value"]), "#1"),
    ];
    for (variables, line) in &cases {
        for scope in [json!({"serviceHostname": "api"}), json!({"project": true})] {
            let mut args = json!({"action": "set", "variables": variables});
            for (k, v) in scope.as_object().unwrap() {
                args[k] = v.clone();
            }
            let err = expect_error(&s.call("zerops_env", args.clone()), "INVALID_ENV_FORMAT");
            let text = err["error"].as_str().unwrap();
            assert!(
                text.contains(line),
                "{args}: {text} should name line {line}"
            );
        }
    }
    assert!(mutations(&sim).is_empty(), "{:?}", mutations(&sim));
    assert_eq!(service_env(&sim, API_ID), before_service);
    assert_eq!(project_env(&sim), before_project);
}

#[test]
fn platform_variables_are_read_only() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    for action in ["set", "delete"] {
        let variables = if action == "set" {
            json!(["hostname=other"])
        } else {
            json!(["zeropsSubdomain"])
        };
        let err = expect_error(
            &s.call(
                "zerops_env",
                json!({"action": action, "serviceHostname": "api", "variables": variables}),
            ),
            "INVALID_ENV_FORMAT",
        );
        assert!(
            err["suggestion"].as_str().unwrap().contains("read-only"),
            "{err}"
        );
    }
    assert!(mutations(&sim).is_empty(), "{:?}", mutations(&sim));
}

/// What the README promises for a key zerops.yml sets (the demo's api has `PORT` from
/// `run.envVariables`): it is listed with the service's variables, and setting or
/// deleting it is a usage error that says to change it in zerops.yml.
#[test]
fn a_zerops_yml_variable_is_listed_and_changed_only_there() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let got = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "get", "serviceHostname": "api"}),
    ));
    assert!(
        got["vars"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["key"] == "PORT" && v["value"] == "3000"),
        "{got}"
    );
    for (action, variable) in [("set", "PORT=8080"), ("delete", "PORT")] {
        let err = expect_error(
            &s.call(
                "zerops_env",
                json!({"action": action, "serviceHostname": "api", "variables": [variable]}),
            ),
            "INVALID_USAGE",
        );
        assert!(
            err["suggestion"].as_str().unwrap().contains("zerops.yml"),
            "{err}"
        );
    }
    assert!(has(&service_env(&sim, API_ID), "PORT", "3000"));
}

// ---------------------------------------------------------------------------------------
// zerops_import

const IMPORT_TWO: &str = "services:\n  - hostname: worker\n    type: nodejs@22\n  - hostname: queue\n    type: valkey@7.2\n    mode: NON_HA\n";

#[test]
fn import_dry_run_calls_no_api_and_a_real_import_creates_the_services() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let dry = expect_ok(&s.call(
        "zerops_import",
        json!({"content": IMPORT_TWO, "dryRun": true}),
    ));
    assert_eq!(dry["dryRun"], true);
    assert_eq!(dry["valid"], true, "{dry}");
    assert_eq!(dry["services"].as_array().unwrap().len(), 2, "{dry}");
    assert!(
        mutations(&sim).is_empty(),
        "a dry run only reads (the project's hostnames): {:?}",
        mutations(&sim)
    );
    // A hostname the project already has would be refused by the import: the dry run
    // says so, unless the service asks to be re-imported.
    let taken = expect_ok(&s.call(
        "zerops_import",
        json!({"content": "services:\n  - hostname: api\n    type: nodejs@22\n", "dryRun": true}),
    ));
    assert_eq!(taken["valid"], false, "{taken}");
    assert_eq!(taken["hostnamesTaken"], json!(["api"]));
    assert!(
        taken["hint"].as_str().unwrap().contains("override"),
        "{taken}"
    );
    assert!(
        !taken["hint"].as_str().unwrap().contains("reference"),
        "{taken}"
    );
    // A taken database is better referenced than re-imported: the hint says how.
    let db = expect_ok(&s.call(
        "zerops_import",
        json!({"content": "services:\n  - hostname: db\n    type: postgresql@16\n    mode: NON_HA\n", "dryRun": true}),
    ));
    assert!(
        db["hint"]
            .as_str()
            .unwrap()
            .contains("To use the existing db (data and all), leave it out of the YAML and reference its variables instead (${db_connectionString}"),
        "{db}"
    );
    // A storage is used by its own variables, not a connection string.
    let storage = expect_ok(&s.call(
        "zerops_import",
        json!({"content": "services:\n  - hostname: storage\n    type: object-storage\n    objectStorageSize: 2\n", "dryRun": true}),
    ));
    let hint = storage["hint"].as_str().unwrap();
    assert!(hint.contains("${storage_apiUrl}"), "{storage}");
    assert!(!hint.contains("connectionString"), "{storage}");
    let overridden = expect_ok(&s.call(
        "zerops_import",
        json!({"content": "services:\n  - hostname: api\n    type: nodejs@22\n    override: true\n", "dryRun": true}),
    ));
    assert_eq!(overridden["valid"], true, "{overridden}");
    assert!(overridden.get("overrideWarnings").is_none(), "{overridden}");
    assert!(mutations(&sim).is_empty(), "{:?}", mutations(&sim));
    let has_project = expect_error(
        &s.call(
            "zerops_import",
            json!({"content": format!("project:\n  name: new\n{IMPORT_TWO}")}),
        ),
        "IMPORT_HAS_PROJECT",
    );
    assert!(
        has_project["suggestion"]
            .as_str()
            .unwrap()
            .contains("project")
    );
    assert!(mutations(&sim).is_empty());

    let done = expect_ok(&s.call("zerops_import", json!({"content": IMPORT_TWO})));
    let services = done["services"].as_array().unwrap();
    assert_eq!(services.len(), 2, "{done}");
    assert!(services.iter().all(|x| x["status"] == "created"), "{done}");
    let processes = done["processes"].as_array().unwrap();
    assert_eq!(processes.len(), 2, "{done}");
    assert!(
        processes.iter().all(|p| p["status"] == "FINISHED"),
        "{done}"
    );
    let names: Vec<String> = sim.with_state(|st| {
        st.services
            .iter()
            .filter(|x| x.project_id == DEMO_PROJECT_ID)
            .map(|x| x.name.clone())
            .collect()
    });
    assert!(
        names.contains(&"worker".to_owned()) && names.contains(&"queue".to_owned()),
        "{names:?}"
    );
    let listed = expect_ok(&s.call("zerops_discover", json!({"serviceHostname": "worker"})));
    assert_eq!(listed["services"][0]["type"], "nodejs@22", "{listed}");
}

/// A change queued behind the delete of its service (accepted while the service was still
/// stopping) fails once the delete is done, with a reason, instead of being reported
/// finished on a service that is gone; the server that queued the delete refuses such
/// changes up front.
#[test]
fn a_change_queued_behind_a_delete_fails() {
    let sim = sim_with_processes_of(Duration::from_millis(1000));
    let mut s = Session::start(&sim_env(&sim));
    // Another client (another zcp), signed in before it all starts.
    let mut other = Session::start(&sim_env(&sim));
    expect_ok(&other.call("zerops_discover", json!({})));
    // (The demo's history has processes of its own: only new ones count.)
    let since = Instant::now();
    let stop = s.start_call(
        "zerops_manage",
        json!({"action": "stop", "serviceHostname": "api"}),
        None,
    );
    when_started(&sim, since, |p| p.action == "stack.stop", |_| {});
    let delete = s.start_call(
        "zerops_delete",
        json!({"serviceHostname": "api", "confirm": true}),
        None,
    );
    when_started(&sim, since, |p| p.action == "stack.delete", |_| {});
    // The other client does not know of the delete: its start (of a service it reads as
    // stopping) is queued behind it.
    let start = other.start_call(
        "zerops_manage",
        json!({"action": "start", "serviceHostname": "api"}),
        None,
    );
    when_started(&sim, since, |p| p.action == "stack.start", |_| {});
    // This server knows the delete it queued: the service reads as stopping, yet no other
    // change is started, and a second delete is not sent.
    let before = mutations(&sim).len();
    for (tool, args) in [
        (
            "zerops_manage",
            json!({"action": "restart", "serviceHostname": "api"}),
        ),
        (
            "zerops_env",
            json!({"action": "set", "serviceHostname": "api", "variables": ["X=1"]}),
        ),
    ] {
        let refused = expect_error(&s.call(tool, args), "INVALID_USAGE");
        assert!(refused.to_string().contains("being deleted"), "{refused}");
    }
    let again = expect_ok(&s.call(
        "zerops_delete",
        json!({"serviceHostname": "api", "confirm": true}),
    ));
    assert_eq!(again["status"], "already_deleting", "{again}");
    assert_eq!(mutations(&sim).len(), before, "{:?}", mutations(&sim));
    // ...and fails once the delete is done.
    let failed = expect_error(&other.result(start), "PROCESS_FAILED");
    assert!(failed.to_string().contains("deleted"), "{failed}");
    expect_ok(&s.result(stop));
    expect_ok(&s.result(delete));
}

/// A subdomain change this server sent and the service does not show yet: the opposite
/// request waits for it (here longer than the poll budget, so it is refused, naming the
/// process, and nothing is sent), and the same request is not sent twice.
#[test]
fn subdomain_changes_on_their_way_are_not_contradicted_or_repeated() {
    let sim = sim_with_processes_of(Duration::from_millis(1500));
    let mut env = sim_env(&sim);
    env.push(("ZCP_POLL_BUDGET_MS".into(), "300".into()));
    let mut s = Session::start(&env);
    let call = |s: &mut Session, action: &str| {
        expect_ok(&s.call(
            "zerops_subdomain",
            json!({"action": action, "serviceHostname": "api"}),
        ))
    };
    let disabling = call(&mut s, "disable");
    assert_eq!(disabling["status"], "disabling", "{disabling}");
    let process = disabling["process"]["processId"].as_str().unwrap();
    let sent = mutations(&sim).len();
    // The flag still reads enabled: not answered "already_enabled", and not sent to race.
    let refused = expect_error(
        &s.call(
            "zerops_subdomain",
            json!({"action": "enable", "serviceHostname": "api"}),
        ),
        "INVALID_USAGE",
    );
    assert!(refused.to_string().contains(process), "{refused}");
    assert_eq!(mutations(&sim).len(), sent, "{:?}", mutations(&sim));
    let again = call(&mut s, "disable");
    assert_eq!(again["status"], "disabling", "{again}");
    assert!(
        again["warnings"][0]
            .as_str()
            .unwrap()
            .starts_with("Already requested"),
        "{again}"
    );
    assert_eq!(mutations(&sim).len(), sent, "{:?}", mutations(&sim));
}

/// Opposite subdomain changes sent one right after the other are done in that order: the
/// second waits for the first, so it is neither refused for the state the first is leaving
/// (an enable answered `noSubdomainPorts`) nor answered from it (`already_disabled`).
#[test]
fn opposite_subdomain_changes_take_turns() {
    let sim = sim_with_processes_of(Duration::from_millis(800));
    let mut s = Session::start(&sim_env(&sim));
    for (first, second) in [("disable", "enable"), ("enable", "disable")] {
        let args = |action: &str| json!({"action": action, "serviceHostname": "api"});
        // From the state the first change leaves.
        expect_ok(&s.call("zerops_subdomain", args(second)));
        let started = s.start_call("zerops_subdomain", args(first), None);
        std::thread::sleep(Duration::from_millis(250));
        let then = expect_ok(&s.call("zerops_subdomain", args(second)));
        let before = expect_ok(&s.result(started));
        assert_eq!(before["status"], format!("{first}d"), "{before}");
        assert_eq!(then["status"], format!("{second}d"), "{then}");
        let api = sim.with_state(|st| st.services.iter().find(|v| v.name == "api").cloned());
        assert_eq!(api.unwrap().subdomain_access, second == "enable");
    }
}

/// An import's envSecrets get the reference checks zerops_env makes: a `${host_key}` of a
/// service neither the project nor the import has, or a key near one that service has, is
/// warned about (dry run and import alike); a service of the same import counts as known.
#[test]
fn import_warns_of_references_that_cannot_resolve() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let yaml = "services:\n  - hostname: w3\n    type: nodejs@22\n    envSecrets:\n      DB: ${db_hostnme}\n      R: ${nosuch_hostname}\n      PEER: ${w4_hostname}\n  - hostname: w4\n    type: nodejs@22\n";
    for dry_run in [true, false] {
        let result =
            expect_ok(&s.call("zerops_import", json!({"content": yaml, "dryRun": dry_run})));
        let warnings: Vec<&str> = result["referenceWarnings"]
            .as_array()
            .unwrap_or_else(|| panic!("{result}"))
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].starts_with("w3: DB:") && warnings[0].contains("did you mean 'hostname'"),
            "{warnings:?}"
        );
        assert!(
            warnings[1].starts_with("w3: R:") && warnings[1].contains("no service 'nosuch'"),
            "{warnings:?}"
        );
    }
    // `${my_key}` beside a variable my_key of the same service is no reference to 'my'.
    let own = expect_ok(&s.call(
        "zerops_import",
        json!({"content": "services:\n  - hostname: w5\n    type: nodejs@22\n    envSecrets:\n      my_key: abc\n      X: ${my_key}\n", "dryRun": true}),
    ));
    assert!(own.get("referenceWarnings").is_none(), "{own}");
    // Three services that reference `db`: its variables are read once for all of them.
    let db_env = format!("GET /service-stack/{DB_ID}/env");
    let reads = |sim: &SimHandle| sim.requests().iter().filter(|r| **r == db_env).count();
    let before = reads(&sim);
    let shared = "services:\n  - hostname: a1\n    type: nodejs@22\n    envSecrets:\n      DB: ${db_hostnme}\n  - hostname: a2\n    type: nodejs@22\n    envSecrets:\n      DB: ${db_hostname}\n  - hostname: a3\n    type: nodejs@22\n    envSecrets:\n      DB: ${db_pasword}\n";
    let result = expect_ok(&s.call("zerops_import", json!({"content": shared, "dryRun": true})));
    assert_eq!(
        result["referenceWarnings"].as_array().map(Vec::len),
        Some(2),
        "{result}"
    );
    assert_eq!(reads(&sim), before + 1, "{:?}", sim.requests());
}

/// A service whose creation process fails is not reported as created: its line says
/// failed, with the process's reason, beside the one that was created.
#[test]
fn an_import_names_the_service_whose_process_failed() {
    let sim = sim_with_processes_of(Duration::from_millis(1500));
    let mut s = Session::start(&sim_env(&sim));
    let since = Instant::now();
    let id = s.start_call("zerops_import", json!({"content": IMPORT_TWO}), None);
    when_started(
        &sim,
        since,
        |p| p.services.iter().any(|(_, name)| name == "queue"),
        |p| p.failure = Some("no capacity for queue".into()),
    );
    let done = expect_ok(&s.result(id));
    let line = |host: &str| {
        done["services"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["hostname"] == host)
            .cloned()
            .unwrap()
    };
    assert_eq!(line("worker")["status"], "created", "{done}");
    let queue = line("queue");
    assert_eq!(queue["status"], "failed", "{done}");
    assert_eq!(queue["error"]["code"], "PROCESS_FAILED", "{done}");
    assert_eq!(queue["error"]["message"], "no capacity for queue", "{done}");
    let summary = done["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("Services imported: 1 of 2") && summary.contains("1 failed"),
        "{done}"
    );
    assert!(
        done["nextAction"]
            .as_str()
            .unwrap()
            .starts_with("Not completed: queue "),
        "{done}"
    );
}

/// A service whose creation process is canceled (here through zerops_process, as another
/// client would) is reported as canceled with its own code, not as a failure.
#[test]
fn an_import_names_the_service_whose_process_was_canceled() {
    let sim = sim_with_processes_of(Duration::from_millis(1500));
    let mut s = Session::start(&sim_env(&sim));
    let since = Instant::now();
    let id = s.start_call("zerops_import", json!({"content": IMPORT_TWO}), None);
    let mut queue_process = String::new();
    when_started(
        &sim,
        since,
        |p| p.services.iter().any(|(_, name)| name == "queue"),
        |p| queue_process = p.id.clone(),
    );
    let canceled = expect_ok(&s.call(
        "zerops_process",
        json!({"action": "cancel", "processId": queue_process}),
    ));
    assert_eq!(canceled["status"], "CANCELED", "{canceled}");
    let done = expect_ok(&s.result(id));
    let queue = done["services"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["hostname"] == "queue")
        .cloned()
        .unwrap();
    assert_eq!(queue["status"], "canceled", "{done}");
    assert_eq!(queue["error"]["code"], "PROCESS_CANCELED", "{done}");
    assert!(
        queue["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("canceled before it finished"),
        "{done}"
    );
}

#[test]
fn import_reports_every_per_service_error() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    // `api` exists already: the API refuses that one and creates the other.
    let yaml = "services:\n  - hostname: api\n    type: nodejs@22\n  - hostname: worker\n    type: nodejs@22\n";
    let done = expect_ok(&s.call("zerops_import", json!({"content": yaml})));
    let services = done["services"].as_array().unwrap();
    let api = services
        .iter()
        .find(|x| x["hostname"] == "api")
        .expect("api reported");
    assert_eq!(api["status"], "failed", "{done}");
    assert!(
        api["error"]["code"].as_str().is_some_and(|c| !c.is_empty()),
        "{api}"
    );
    let worker = services.iter().find(|x| x["hostname"] == "worker").unwrap();
    assert_eq!(worker["status"], "created");
    assert!(
        done["summary"].as_str().unwrap().contains("1 refused"),
        "{done}"
    );

    // All refused: an error that still lists each service's reason.
    let err = expect_error(
        &s.call(
            "zerops_import",
            json!({"content": "services:\n  - hostname: api\n    type: nodejs@22\n"}),
        ),
        "INVALID_HOSTNAME",
    );
    assert!(err["apiMeta"].to_string().contains("api"), "{err}");

    // A taken hostname that fails the whole import (a form measured live) gets the advice
    // the dry run gives.
    sim.set_fault_times(
        "POST /project/*/service-stack/import",
        Fault::Status {
            status: 400,
            body: r#"{"error":{"code":"serviceStackNameUnavailable","message":"Service stack name is already used.","meta":null}}"#.into(),
        },
        1,
    );
    let err = expect_error(
        &s.call(
            "zerops_import",
            json!({"content": "services:\n  - hostname: api\n    type: nodejs@22\n"}),
        ),
        "INVALID_HOSTNAME",
    );
    assert_eq!(err["apiCode"], "serviceStackNameUnavailable", "{err}");
    assert!(
        err["suggestion"]
            .as_str()
            .unwrap()
            .contains("override: true"),
        "{err}"
    );

    // With `override: true` the existing `api` is re-imported (the simulator keeps it as it
    // is, as the platform does with an unchanged service), and said to be, not "created".
    let yaml = "services:\n  - hostname: api\n    type: nodejs@22\n    override: true\n  - hostname: cron\n    type: nodejs@22\n";
    let done = expect_ok(&s.call("zerops_import", json!({"content": yaml})));
    let status = |host: &str| {
        done["services"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["hostname"] == host)
            .map(|x| x["status"].clone())
    };
    assert_eq!(status("api"), Some(json!("overridden")), "{done}");
    assert_eq!(status("cron"), Some(json!("created")), "{done}");
    assert!(done.get("overrideWarnings").is_none(), "{done}");
    assert!(
        done["summary"]
            .as_str()
            .unwrap()
            .starts_with("Services imported: 2 of 2;"),
        "{done}"
    );
}

/// The platform re-imports an overridden service as it is, whatever type or mode the YAML
/// gives it: the dry run and the import both say which of them stay, so an agent does not
/// believe it upgraded a database; the service is indeed unchanged.
#[test]
fn an_override_that_changes_the_type_or_mode_is_warned_about() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let yaml =
        "services:\n  - hostname: db\n    type: postgresql@17\n    mode: HA\n    override: true\n";
    let dry = expect_ok(&s.call("zerops_import", json!({"content": yaml, "dryRun": true})));
    let warnings = strings(&dry["overrideWarnings"]);
    assert_eq!(warnings.len(), 1, "{dry}");
    for part in [
        "'db' exists",
        "type postgresql@17 (it stays postgresql@16)",
        "mode HA (it stays NON_HA)",
        "new hostname",
    ] {
        assert!(warnings[0].contains(part), "{part}: {dry}");
    }
    let done = expect_ok(&s.call("zerops_import", json!({"content": yaml})));
    assert_eq!(done["overrideWarnings"], dry["overrideWarnings"], "{done}");
    assert_eq!(
        service_field(&sim, DB_ID, |x| x.version_name.clone()),
        "postgresql@16"
    );
    // The mode alone: only what differs is named.
    let mode_only =
        "services:\n  - hostname: db\n    type: postgresql@16\n    mode: HA\n    override: true\n";
    let dry = expect_ok(&s.call(
        "zerops_import",
        json!({"content": mode_only, "dryRun": true}),
    ));
    let warning = strings(&dry["overrideWarnings"]).join(" ");
    assert!(
        warning.contains("mode HA (it stays NON_HA)") && !warning.contains("type "),
        "{dry}"
    );
}

/// Only runtimes this import created, and that start without code, wait for a deploy: not
/// one it re-imported (already running), refused, or started without code.
#[test]
fn import_next_action_names_only_created_runtimes_that_wait_for_code() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let next = |done: &Value| done["nextAction"].as_str().unwrap().to_owned();
    let yaml = "services:\n  - hostname: api\n    type: nodejs@22\n    override: true\n  - hostname: newone\n    type: go@1\n  - hostname: devbox\n    type: nodejs@22\n    startWithoutCode: true\n";
    let done = expect_ok(&s.call("zerops_import", json!({"content": yaml})));
    assert!(next(&done).starts_with("'newone' waits for code"), "{done}");
    assert!(!next(&done).contains("devbox"), "{done}");

    // Overridden while it still has no code: it waits all the same.
    let yaml = "services:\n  - hostname: newone\n    type: go@1\n    override: true\n";
    let done = expect_ok(&s.call("zerops_import", json!({"content": yaml})));
    assert_eq!(done["services"][0]["status"], "overridden", "{done}");
    assert!(next(&done).starts_with("'newone' waits for code"), "{done}");

    // A refused line is named as not completed, not as waiting for code.
    let yaml = "services:\n  - hostname: api\n    type: nodejs@22\n  - hostname: fresh\n    type: nodejs@22\n";
    let done = expect_ok(&s.call("zerops_import", json!({"content": yaml})));
    let text = next(&done);
    assert!(text.starts_with("Not completed: api "), "{done}");
    assert!(text.contains(" 'fresh' waits for code"), "{done}");

    // Nothing new: no word of waiting for code.
    let yaml = "services:\n  - hostname: api\n    type: nodejs@22\n    override: true\n";
    let done = expect_ok(&s.call("zerops_import", json!({"content": yaml})));
    assert!(!next(&done).contains("for code"), "{done}");
    assert!(!next(&done).contains("zerops_deploy"), "{done}");

    // Only a runtime started without code: no database connection advice.
    let yaml =
        "services:\n  - hostname: sandbox\n    type: nodejs@22\n    startWithoutCode: true\n";
    let done = expect_ok(&s.call("zerops_import", json!({"content": yaml})));
    assert!(!next(&done).contains("connectionString"), "{done}");
    assert!(next(&done).contains("zerops_discover"), "{done}");
}

/// Every service refused because its hostname is taken: the caller's mistake, with the
/// dry run's advice, not an API failure to retry.
#[test]
fn an_import_of_only_taken_hostnames_is_an_invalid_hostname() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let yaml = "services:\n  - hostname: worker\n    type: nodejs@22\n  - hostname: search\n    type: meilisearch@1.10\n    mode: NON_HA\n";
    expect_ok(&s.call("zerops_import", json!({"content": yaml})));
    let err = expect_error(
        &s.call("zerops_import", json!({"content": yaml})),
        "INVALID_HOSTNAME",
    );
    assert!(
        err["error"]
            .as_str()
            .unwrap()
            .contains("every hostname is taken"),
        "{err}"
    );
    assert!(
        err["suggestion"]
            .as_str()
            .unwrap()
            .contains("override: true"),
        "{err}"
    );
    let meta = err["apiMeta"].as_array().unwrap();
    assert_eq!(meta.len(), 2, "{err}");
    assert!(
        meta.iter()
            .all(|x| x["error"]["code"] == "serviceStackNameUnavailable"),
        "{err}"
    );

    // Mixed reasons stay a generic refusal, whose advice still names override.
    sim.set_fault_times(
        "POST /project/*/service-stack/import",
        Fault::Status {
            status: 200,
            body: json!({"projectId": DEMO_PROJECT_ID, "projectName": "demo", "serviceStacks": [
                {"id": "x1", "name": "worker", "processes": null, "error": {"code": "serviceStackNameUnavailable", "message": "taken", "meta": null}},
                {"id": "x2", "name": "search", "processes": null, "error": {"code": "projectImportInvalidParameter", "message": "bad", "meta": null}},
            ]})
            .to_string(),
        },
        1,
    );
    let err = expect_error(
        &s.call("zerops_import", json!({"content": yaml})),
        "API_ERROR",
    );
    assert!(
        err["suggestion"]
            .as_str()
            .unwrap()
            .contains("override: true"),
        "{err}"
    );
    assert_eq!(err["apiMeta"].as_array().unwrap().len(), 2, "{err}");
}

#[test]
fn import_waits_for_a_hostname_that_is_still_being_deleted() {
    let sim = std::sync::Arc::new(fast_sim());
    sim.with_state(|s| {
        s.services
            .iter_mut()
            .find(|x| x.id == WEB_ID)
            .unwrap()
            .status = "DELETING".into();
    });
    let remover = {
        let sim = sim.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(800));
            sim.with_state(|s| s.services.retain(|x| x.id != WEB_ID));
        })
    };
    let mut s = Session::start(&sim_env(&sim));
    let done = expect_ok(&s.call(
        "zerops_import",
        json!({"content": "services:\n  - hostname: web\n    type: static\n"}),
    ));
    remover.join().unwrap();
    assert_eq!(done["services"][0]["status"], "created", "{done}");
    let web = sim.with_state(|s| {
        s.services
            .iter()
            .filter(|x| x.name == "web" && x.project_id == DEMO_PROJECT_ID)
            .count()
    });
    assert_eq!(web, 1);
}

#[test]
fn managed_services_scale_only_vertically_and_storage_not_at_all() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let err = expect_error(
        &s.call(
            "zerops_manage",
            json!({"action": "scale", "serviceHostname": "db", "minContainers": 2}),
        ),
        "INVALID_SCALING",
    );
    assert!(err["error"].as_str().unwrap().contains("db"), "{err}");
    let storage = expect_error(
        &s.call(
            "zerops_manage",
            json!({"action": "scale", "serviceHostname": "storage", "maxRam": 2}),
        ),
        "INVALID_SCALING",
    );
    assert!(
        storage["error"]
            .as_str()
            .unwrap()
            .contains("object storage"),
        "{storage}"
    );
    assert!(mutations(&sim).is_empty(), "{:?}", mutations(&sim));
}

#[test]
fn an_invalid_import_is_refused_before_the_api() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let result = s.call(
        "zerops_import",
        json!({"content": "services:\n  - hostname: Bad_Name\n    type: nodejs@22\n"}),
    );
    assert!(body(&result)["code"].as_str().is_some(), "{result}");
    assert_eq!(result["isError"], true);
    assert!(mutations(&sim).is_empty(), "{:?}", mutations(&sim));
}

// ---------------------------------------------------------------------------------------
// zerops_delete

/// Deleting a service that others' variables reference says which (the references only,
/// not the values around them), since they stay behind and stop resolving.
#[test]
fn a_delete_names_the_variables_that_referenced_the_service() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    // An unclosed reference is no reference: nothing of the value after it is quoted.
    expect_ok(&s.call(
        "zerops_env",
        json!({"action": "set", "serviceHostname": "api",
               "variables": [r#"CONF={"h":"${cache_hostname","pw":"hunter2"}"#]}),
    ));
    let deleted = expect_ok(&s.call(
        "zerops_delete",
        json!({"serviceHostname": "cache", "confirm": true}),
    ));
    assert!(!deleted.to_string().contains("hunter2"), "{deleted}");
    let warnings = deleted["warnings"]
        .as_array()
        .unwrap_or_else(|| panic!("{deleted}"));
    assert_eq!(warnings.len(), 1, "{deleted}");
    let warning = warnings[0].as_str().unwrap();
    assert!(
        warning.starts_with("api: REDIS_URL reads ${cache_connectionString};"),
        "{warning}"
    );
}

#[test]
fn delete_needs_confirmation_and_then_removes_the_service() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    for args in [
        json!({"serviceHostname": "web"}),
        json!({"serviceHostname": "web", "confirm": false}),
    ] {
        expect_error(&s.call("zerops_delete", args), "CONFIRM_REQUIRED");
    }
    // Looked up (reads only), not changed.
    assert!(mutations(&sim).is_empty(), "{:?}", mutations(&sim));
    // A service the project does not have is reported as such, not as needing approval.
    expect_error(
        &s.call("zerops_delete", json!({"serviceHostname": "nosuchsvc"})),
        "SERVICE_NOT_FOUND",
    );
    let deleted = expect_ok(&s.call(
        "zerops_delete",
        json!({"serviceHostname": "web", "confirm": true}),
    ));
    assert_eq!(deleted["serviceId"], WEB_ID);
    assert_eq!(deleted["process"]["status"], "FINISHED", "{deleted}");
    assert!(deleted.get("warnings").is_none(), "{deleted}");
    // A delete already under way is reported, not started again.
    sim.with_state(|st| {
        for service in st.services.iter_mut().filter(|x| x.id == API_ID) {
            service.status = "DELETING".into();
        }
    });
    let before = mutations(&sim).len();
    let again = expect_ok(&s.call(
        "zerops_delete",
        json!({"serviceHostname": "api", "confirm": true}),
    ));
    assert_eq!(again["status"], "already_deleting", "{again}");
    assert_eq!(mutations(&sim).len(), before, "{:?}", mutations(&sim));
    // Nor is a service being deleted restarted, scaled, given variables, a subdomain or
    // code; its variables can still be read.
    let code = tempfile::tempdir().unwrap();
    std::fs::write(
        code.path().join("zerops.yml"),
        "zerops:\n  - setup: api\n    build:\n      base: nodejs@22\n      deployFiles: ./\n    run:\n      base: nodejs@22\n      start: node index.js\n",
    )
    .unwrap();
    for (tool, args) in [
        (
            "zerops_manage",
            json!({"action": "restart", "serviceHostname": "api"}),
        ),
        (
            "zerops_manage",
            json!({"action": "scale", "serviceHostname": "api", "maxRam": 4}),
        ),
        (
            "zerops_env",
            json!({"action": "set", "serviceHostname": "api", "variables": ["X=1"]}),
        ),
        (
            "zerops_env",
            json!({"action": "delete", "serviceHostname": "api", "variables": ["X"]}),
        ),
        (
            "zerops_subdomain",
            json!({"action": "enable", "serviceHostname": "api"}),
        ),
        (
            "zerops_deploy",
            json!({"serviceHostname": "api", "workingDir": code.path().display().to_string()}),
        ),
    ] {
        let refused = expect_error(&s.call(tool, args), "INVALID_USAGE");
        assert!(
            refused["error"].as_str().unwrap().contains("being deleted"),
            "{refused}"
        );
    }
    assert_eq!(mutations(&sim).len(), before, "{:?}", mutations(&sim));
    expect_ok(&s.call(
        "zerops_env",
        json!({"action": "get", "serviceHostname": "api"}),
    ));
    let gone = sim.with_state(|st| {
        st.tick(Instant::now());
        !st.services.iter().any(|x| x.id == WEB_ID)
    });
    assert!(gone);
    let err = expect_error(
        &s.call("zerops_discover", json!({"serviceHostname": "web"})),
        "SERVICE_NOT_FOUND",
    );
    assert!(
        !err["suggestion"].as_str().unwrap().contains("web"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------
// zerops_subdomain

#[test]
fn a_subdomain_change_still_running_is_not_reported_done() {
    let sim = sim_with_processes_of(Duration::from_secs(30));
    let mut env = sim_env(&sim);
    env.retain(|(k, _)| k != "ZCP_POLL_BUDGET_MS");
    env.push(("ZCP_POLL_BUDGET_MS".into(), "300".into()));
    let mut s = Session::start(&env);
    let pending = expect_ok(&s.call(
        "zerops_subdomain",
        json!({"action": "enable", "serviceHostname": "web"}),
    ));
    assert_eq!(pending["status"], "enabling", "{pending}");
    assert!(pending.get("url").is_none(), "{pending}");
    assert!(
        pending["warnings"][0]
            .as_str()
            .unwrap()
            .contains("zerops_process"),
        "{pending}"
    );
}

/// A process canceled while a tool follows it (by zerops_process here; the GUI or another
/// client alike) is not reported as done: subdomain, restart and delete all say it was
/// canceled, as an error.
#[test]
fn a_followed_process_that_is_canceled_is_an_error_not_a_success() {
    let sim = sim_with_processes_of(Duration::from_secs(3));
    let mut s = Session::start(&sim_env(&sim));
    for (tool, args, action) in [
        (
            "zerops_subdomain",
            json!({"action": "enable", "serviceHostname": "web"}),
            "stack.enableSubdomainAccess",
        ),
        (
            "zerops_manage",
            json!({"action": "restart", "serviceHostname": "api"}),
            "stack.restart",
        ),
        (
            "zerops_delete",
            json!({"serviceHostname": "cache", "confirm": true}),
            "stack.delete",
        ),
    ] {
        let before: Vec<String> =
            sim.with_state(|st| st.processes.iter().map(|p| p.id.clone()).collect());
        let call = s.start_call(tool, args, Some("p"));
        // Its process, once the tool has started it.
        let started = Instant::now();
        let process = loop {
            let found = sim.with_state(|st| {
                st.processes
                    .iter()
                    .find(|p| p.action == action && !before.contains(&p.id))
                    .map(|p| p.id.clone())
            });
            if let Some(id) = found {
                break id;
            }
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "{tool}: no process"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let canceled = expect_ok(&s.call(
            "zerops_process",
            json!({"action": "cancel", "processId": process}),
        ));
        assert_eq!(canceled["status"], "CANCELED", "{canceled}");
        let answer = s.result(call);
        let err = expect_error(&answer, "PROCESS_CANCELED");
        assert!(
            err["error"].as_str().unwrap().contains("was canceled"),
            "{tool}: {err}"
        );
        assert!(
            err["suggestion"]
                .as_str()
                .unwrap()
                .contains("zerops_discover"),
            "{tool}: {err}"
        );
        assert_eq!(err["failReason"], "canceled", "{tool}: {err}");
        assert!(
            answer.to_string().find("https://").is_none(),
            "{tool}: {answer}"
        );
    }
}

#[test]
fn subdomain_enable_and_disable_are_idempotent() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let enabled = expect_ok(&s.call(
        "zerops_subdomain",
        json!({"action": "enable", "serviceHostname": "web"}),
    ));
    assert_eq!(enabled["process"]["status"], "FINISHED", "{enabled}");
    assert!(service_field(&sim, WEB_ID, |x| x.subdomain_access));
    let url = enabled["url"].as_str().expect("url when enabled");
    assert!(url.starts_with("https://"), "{url}");

    let enables = |sim: &SimHandle| {
        sim.requests()
            .iter()
            .filter(|r| r.contains("enable-subdomain-access"))
            .count()
    };
    let before = enables(&sim);
    let again = expect_ok(&s.call(
        "zerops_subdomain",
        json!({"action": "enable", "serviceHostname": "web"}),
    ));
    assert_eq!(again["status"], "already_enabled", "{again}");
    assert_eq!(again["url"], url);
    assert_eq!(
        enables(&sim),
        before,
        "a repeat enable must not call the API"
    );

    let disabled = expect_ok(&s.call(
        "zerops_subdomain",
        json!({"action": "disable", "serviceHostname": "web"}),
    ));
    assert_eq!(disabled["process"]["status"], "FINISHED", "{disabled}");
    assert!(!service_field(&sim, WEB_ID, |x| x.subdomain_access));
    let again = expect_ok(&s.call(
        "zerops_subdomain",
        json!({"action": "disable", "serviceHostname": "web"}),
    ));
    assert_eq!(again["status"], "already_disabled", "{again}");
    // No failed process was left behind.
    let failed = sim.with_state(|st| st.processes.iter().filter(|p| p.failure.is_some()).count());
    assert_eq!(failed, 1, "only the demo's failed build");
}

#[test]
fn subdomain_enable_retries_a_no_ports_refusal() {
    let sim = start_sim(SimConfig {
        process_duration: Duration::from_millis(150),
        reject_subdomain_enables: 1,
        ..SimConfig::default()
    });
    let mut s = Session::start(&sim_env(&sim));
    let enabled = expect_ok(&s.call(
        "zerops_subdomain",
        json!({"action": "enable", "serviceHostname": "web"}),
    ));
    assert!(enabled["url"].as_str().is_some(), "{enabled}");
    assert!(service_field(&sim, WEB_ID, |x| x.subdomain_access));
}

/// The "no HTTP port" refusal can also come as the reason of a failed enable process: the
/// answer then gives the same advice as the up-front refusal.
#[test]
fn a_failed_enable_for_want_of_ports_gets_the_port_advice() {
    let sim = sim_with_processes_of(Duration::from_millis(1500));
    let mut s = Session::start(&sim_env(&sim));
    // (The demo's history has enable processes of its own: only the new one counts.)
    let since = Instant::now();
    let id = s.start_call(
        "zerops_subdomain",
        json!({"action": "enable", "serviceHostname": "web"}),
        None,
    );
    when_started(
        &sim,
        since,
        |p| p.action == "stack.enableSubdomainAccess",
        |p| {
            p.failure = Some("noSubdomainPorts: no http ports found for subdomain support".into());
            p.effect = Effect::None;
        },
    );
    // (web is static: its web server serves port 80, so the advice is about deploying.)
    let failed = expect_error(&s.result(id), "PROCESS_FAILED");
    assert!(
        failed["suggestion"]
            .as_str()
            .unwrap()
            .contains("serves HTTP on port 80"),
        "{failed}"
    );
}

#[test]
fn subdomain_refusals_are_explained() {
    let sim = start_sim(SimConfig {
        process_duration: Duration::from_millis(150),
        reject_subdomain_enables: 100,
        ..SimConfig::default()
    });
    let mut s = Session::start(&sim_env(&sim));
    // Services that can never have a subdomain: refused before the API is asked, each
    // with the way it is reached instead.
    // Disabling is refused the same way: such a service has no subdomain to turn off.
    for (hostname, hint, action) in [
        ("db", "private network", "enable"),
        ("storage", "apiUrl", "enable"),
        ("db", "private network", "disable"),
    ] {
        let refused = expect_error(
            &s.call(
                "zerops_subdomain",
                json!({"action": action, "serviceHostname": hostname}),
            ),
            "INVALID_USAGE",
        );
        assert!(
            refused["error"].as_str().unwrap().contains("HTTP port"),
            "{refused}"
        );
        assert!(
            refused["suggestion"].as_str().unwrap().contains(hint),
            "{refused}"
        );
    }
    assert!(mutations(&sim).is_empty(), "{:?}", mutations(&sim));
    // A runtime that lists no HTTP port (yet: ports register after a deploy) is left to
    // the platform, whose refusal is explained.
    sim.with_state(|st| {
        for service in st.services.iter_mut().filter(|x| x.id == API_ID) {
            service.ports.clear();
            service.subdomain_access = false;
        }
    });
    let api = expect_error(
        &s.call(
            "zerops_subdomain",
            json!({"action": "enable", "serviceHostname": "api"}),
        ),
        "INVALID_USAGE",
    );
    assert!(
        api["suggestion"].as_str().unwrap().contains("httpSupport"),
        "{api}"
    );
    assert_eq!(mutations(&sim).len(), 1, "{:?}", mutations(&sim));
    let before = mutations(&sim).len();
    // The platform keeps answering noSubdomainPorts: a few retries, then the explanation.
    let started = Instant::now();
    let web = expect_error(
        &s.call(
            "zerops_subdomain",
            json!({"action": "enable", "serviceHostname": "web"}),
        ),
        "INVALID_USAGE",
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        web["suggestion"].as_str().unwrap().contains("port 80"),
        "{web}"
    );
    let tries = mutations(&sim).len() - before;
    assert!((2..=5).contains(&tries), "{tries} enable attempts");
    assert!(!service_field(&sim, WEB_ID, |x| x.subdomain_access));
}

// ---------------------------------------------------------------------------------------
// zerops_process

fn long_process(sim: &SimHandle, id: &str) {
    sim.with_state(|s| {
        s.processes.push(ProcessRec {
            id: id.into(),
            client_id: s.client_id.clone(),
            project_id: DEMO_PROJECT_ID.into(),
            action: "stack.restart".into(),
            services: vec![(API_ID.into(), "api".into())],
            started_at: Instant::now(),
            wall_start: std::time::SystemTime::now(),
            created: zcp::time::format_rfc3339(std::time::SystemTime::now()),
            duration: Duration::from_secs(120),
            failure: None,
            effect: Effect::None,
            on_cancel: Effect::None,
            canceled_at: None,
            hold: None,
            applied: false,
            created_by: "test".into(),
            sequence: 99,
        });
    });
}

/// `zerops_process` for `id`, with `action` or without one (the default, status).
fn process(s: &mut Session, id: &str, action: Option<&str>) -> Value {
    let mut arguments = json!({ "processId": id });
    if let Some(action) = action {
        arguments["action"] = json!(action);
    }
    s.call("zerops_process", arguments)
}

#[test]
fn process_status_and_cancel() {
    let sim = fast_sim();
    long_process(&sim, "proclong00000000000099");
    let mut s = Session::start(&sim_env(&sim));
    expect_error(
        &process(&mut s, "procnope00000000000000", None),
        "PROCESS_NOT_FOUND",
    );
    expect_error(
        &process(&mut s, "procnope00000000000000", Some("cancel")),
        "PROCESS_NOT_FOUND",
    );
    let failed = expect_ok(&process(&mut s, "procdemo00000000000004", None));
    assert_eq!(failed["status"], "FAILED");
    assert!(
        failed["failReason"].as_str().unwrap().contains("npm ERR!"),
        "{failed}"
    );
    expect_error(
        &process(&mut s, "procdemo00000000000004", Some("cancel")),
        "PROCESS_ALREADY_TERMINAL",
    );

    let running = expect_ok(&process(&mut s, "proclong00000000000099", None));
    assert!(
        matches!(running["status"].as_str(), Some("PENDING" | "RUNNING")),
        "{running}"
    );
    assert_eq!(running["inProgress"], true);
    let canceled = expect_ok(&process(&mut s, "proclong00000000000099", Some("cancel")));
    assert_eq!(canceled["status"], "CANCELED", "{canceled}");
    assert_eq!(canceled["inProgress"], false, "{canceled}");
    assert!(sim.with_state(|st| {
        st.processes
            .iter()
            .any(|p| p.id == "proclong00000000000099" && p.is_canceled())
    }));
    expect_error(
        &process(&mut s, "proclong00000000000099", Some("cancel")),
        "PROCESS_ALREADY_TERMINAL",
    );
    // An id cannot steer the request to another endpoint.
    for id in [
        "../../user/info",
        "procdemo00000000000004/../x",
        "x?y=1",
        "a/b",
        "procdemo00000000000004/cancel",
    ] {
        for action in ["status", "cancel"] {
            expect_error(&process(&mut s, id, Some(action)), "INVALID_PARAMETER");
        }
    }
    assert!(
        !sim.requests()
            .iter()
            .any(|r| r.contains("..") || r.contains('?')),
        "{:?}",
        sim.requests()
    );
    // Another project's process is refused through a scoped token, and nothing leaks.
    let foreign = process(&mut s, "procother0000000000008", None);
    assert_eq!(foreign["isError"], true, "{foreign}");
    assert!(!foreign.to_string().contains("billing"), "{foreign}");
}

/// The API may answer a cancel with CANCELING: then the cancel is only requested, and the
/// answer says to check, not that it is done.
#[test]
fn a_cancel_still_under_way_is_not_reported_done() {
    let sim = fast_sim();
    long_process(&sim, "proclong00000000000099");
    sim.set_fault(
        "PUT /process/*/cancel",
        Fault::Status {
            status: 200,
            body: json!({"id": "proclong00000000000099", "actionName": "stack.restart",
                         "status": "CANCELING", "projectId": DEMO_PROJECT_ID})
            .to_string(),
        },
    );
    let mut s = Session::start(&sim_env(&sim));
    let canceling = expect_ok(&process(&mut s, "proclong00000000000099", Some("cancel")));
    assert_eq!(canceling["status"], "CANCELING", "{canceling}");
    assert_eq!(canceling["inProgress"], true, "{canceling}");
    let message = canceling["message"].as_str().unwrap();
    assert!(
        message.contains("requested") && message.contains("action status"),
        "{message}"
    );
}

// ---------------------------------------------------------------------------------------
// Read-only tools

#[test]
fn discover_filters_and_shows_envs_only_when_asked() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let all = expect_ok(&s.call("zerops_discover", json!({})));
    assert_eq!(all["project"]["id"], DEMO_PROJECT_ID);
    let mut hostnames: Vec<&str> = all["services"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["hostname"].as_str().unwrap())
        .collect();
    hostnames.sort_unstable();
    // The system `core` service and the other project's `billing` are not listed.
    assert_eq!(hostnames, ["api", "cache", "db", "storage", "web"]);
    assert!(
        !all.to_string().contains("DATABASE_URL"),
        "no envs unless asked"
    );
    // The listing comes from the search index, whose autoscaling block is empty: no
    // scaling there, only from one service's own record.
    assert!(
        all["services"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x.get("scaling").is_none()),
        "{all}"
    );
    assert!(all["hint"].as_str().unwrap().contains("serviceHostname"));
    // The original zcp's name for the filter is accepted too.
    let aliased = expect_ok(&s.call("zerops_discover", json!({"service": "web"})));
    assert_eq!(aliased["services"][0]["hostname"], "web", "{aliased}");
    assert_eq!(aliased["services"].as_array().unwrap().len(), 1);
    // Both names, for different services: refused rather than one silently chosen.
    expect_error(
        &s.call(
            "zerops_discover",
            json!({"serviceHostname": "api", "service": "db"}),
        ),
        "INVALID_USAGE",
    );

    let one = expect_ok(&s.call(
        "zerops_discover",
        json!({"serviceHostname": "api", "includeEnvs": true}),
    ));
    let services = one["services"].as_array().unwrap();
    assert_eq!(services.len(), 1);
    let api = &services[0];
    assert_eq!(api["serviceId"], API_ID);
    assert_eq!(api["subdomain"]["enabled"], true);
    assert!(
        api["subdomain"]["url"]
            .as_str()
            .unwrap()
            .starts_with("https://")
    );
    assert_eq!(api["scaling"]["maxContainers"], 3);
    assert!(one.to_string().contains("DATABASE_URL"), "{one}");
    // zerops_env get says the same about every variable (secret, platform, reference).
    let with_values = expect_ok(&s.call(
        "zerops_discover",
        json!({"serviceHostname": "api", "includeEnvs": true, "includeEnvValues": true}),
    ));
    let got = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "get", "serviceHostname": "api"}),
    ));
    assert_eq!(with_values["services"][0]["envs"], got["vars"], "{got}");
    // Values alone imply the variables: the same answer, not a silent nothing.
    let values_only = expect_ok(&s.call(
        "zerops_discover",
        json!({"serviceHostname": "api", "includeEnvValues": true}),
    ));
    assert_eq!(values_only, with_values);
    // Project variables reach every service: they are in a one-service view too.
    assert!(
        with_values["project"]["envs"].is_array(),
        "{}",
        with_values["project"]
    );

    let err = expect_error(
        &s.call("zerops_discover", json!({"serviceHostname": "nope"})),
        "SERVICE_NOT_FOUND",
    );
    let suggestion = err["suggestion"].as_str().unwrap();
    for name in ["api", "cache", "db", "storage", "web"] {
        assert!(suggestion.contains(name), "{suggestion}");
    }
    assert!(
        !suggestion.contains("billing") && !suggestion.contains("core"),
        "{suggestion}"
    );
}

fn entries(result: &Value) -> Vec<Value> {
    result["entries"].as_array().unwrap().clone()
}

#[test]
fn logs_filter_by_severity_since_search_and_limit() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let all = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "since": "1d"}),
    ));
    let all_entries = entries(&all);
    assert_eq!(all_entries.len(), 10, "{all}");
    assert_eq!(all["hasMore"], false);
    // Newest last.
    let stamps: Vec<&str> = all_entries
        .iter()
        .map(|e| e["timestamp"].as_str().unwrap())
        .collect();
    let mut sorted = stamps.clone();
    sorted.sort_unstable();
    assert_eq!(stamps, sorted);
    for e in &all_entries {
        for field in ["timestamp", "severity", "container", "message"] {
            assert!(e[field].is_string(), "{e}");
        }
    }

    // (Enum words in any letter case.)
    let errors = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "since": "1d", "severity": "ERROR"}),
    ));
    let severities: Vec<String> = entries(&errors)
        .iter()
        .map(|e| e["severity"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        severities,
        ["Error", "Critical", "Alert", "Emergency"],
        "{errors}"
    );

    // The default window is shorter than the demo's oldest lines; 30m keeps the newest few.
    let recent = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "since": "30m"}),
    ));
    let recent_entries = entries(&recent);
    assert!(
        !recent_entries.is_empty() && recent_entries.len() < 10,
        "{recent}"
    );
    assert!(
        recent_entries
            .iter()
            .all(|e| e["message"] != "listening on 0.0.0.0:3000")
    );

    let search = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "since": "1d", "search": "cache"}),
    ));
    let found = entries(&search);
    assert_eq!(found.len(), 3, "{search}");
    assert!(
        found
            .iter()
            .all(|e| e["message"].as_str().unwrap().contains("cache"))
    );

    let limited = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "since": "1d", "limit": 3}),
    ));
    let few = entries(&limited);
    assert_eq!(few.len(), 3);
    assert_eq!(limited["hasMore"], true);
    // The limit keeps the newest entries.
    assert_eq!(
        few.last().unwrap()["message"],
        all_entries.last().unwrap()["message"]
    );
    assert!(limited["hint"].as_str().is_some());

    let exact = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "since": "1d", "limit": 10}),
    ));
    assert_eq!(
        exact["hasMore"], false,
        "exactly limit entries is not 'more'"
    );

    // The build log of a failed app version: read whole without `since` (the build is
    // older than the runtime default of an hour), and only under its own service.
    let build = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "buildId": "avdemo0000000000000002"}),
    ));
    assert!(build.to_string().contains("Missing script"), "{build}");
    assert!(build.get("since").is_none(), "{build}");
    // Filtered to nothing: the hint does not point at `since`, which a build log ignores.
    let none = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "buildId": "avdemo0000000000000002", "search": "no-such-text-anywhere"}),
    ));
    assert_eq!(none["entries"], json!([]), "{none}");
    let hint = none["hint"].as_str().unwrap();
    assert!(hint.contains("search") && !hint.contains("since"), "{hint}");
    let err = expect_error(
        &s.call(
            "zerops_logs",
            json!({"serviceHostname": "db", "buildId": "avdemo0000000000000002"}),
        ),
        "INVALID_PARAMETER",
    );
    assert!(
        err["error"].as_str().unwrap().contains("belongs to 'api'"),
        "{err}"
    );
    expect_error(
        &s.call("zerops_logs", json!({"serviceHostname": "nope"})),
        "SERVICE_NOT_FOUND",
    );
    // A version deployed without a build has no build log: nothing in the call to fix, so
    // the answer points at the runtime log.
    sim.with_state(|st| {
        let version = (st.app_versions.iter_mut())
            .find(|v| v.id == "avdemo0000000000000002")
            .unwrap();
        version.source = "NONE".into();
    });
    let err = expect_error(
        &s.call(
            "zerops_logs",
            json!({"serviceHostname": "api", "buildId": "avdemo0000000000000002"}),
        ),
        "INVALID_USAGE",
    );
    let suggestion = err["suggestion"].as_str().unwrap();
    assert!(suggestion.contains("no buildId"), "{err}");
}

/// An empty answer offers only what would change it: no wider `since` past the maximum,
/// no `severity: all` when it was all, `search` when one was given.
#[test]
fn an_empty_log_hint_offers_only_what_would_change_the_result() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let mut hint = |arguments: Value| -> String {
        let result = expect_ok(&s.call("zerops_logs", arguments));
        assert_eq!(result["entries"], json!([]), "{result}");
        result["hint"].as_str().unwrap().to_owned()
    };
    let all = hint(json!({"serviceHostname": "web", "since": "30d", "severity": "all"}));
    for offered in ["since", "severity", "search"] {
        assert!(!all.contains(offered), "{all}");
    }
    assert!(all.contains("zerops_events"), "{all}");
    let searched =
        hint(json!({"serviceHostname": "api", "since": "30d", "search": "zzz-not-there"}));
    assert!(searched.contains("search"), "{searched}");
    assert!(
        !searched.contains("since") && !searched.contains("severity"),
        "{searched}"
    );
    let narrow = hint(json!({"serviceHostname": "web", "severity": "error"}));
    assert!(
        narrow.contains("Widen since") && narrow.contains("Set severity to all"),
        "{narrow}"
    );
    assert!(!narrow.contains("search"), "{narrow}");
    let storage = hint(json!({"serviceHostname": "storage"}));
    assert!(storage.contains("object storage"), "{storage}");
    assert!(!storage.contains("since"), "{storage}");
    // Logs that cannot exist are not sent after with a wider since: Nginx lines of a
    // Node.js service, or the runtime log of a service never deployed.
    let no_nginx = hint(json!({"serviceHostname": "api", "webServer": true}));
    assert!(no_nginx.contains("runs no web server"), "{no_nginx}");
    assert!(!no_nginx.contains("since"), "{no_nginx}");
    let imported = expect_ok(&s.call(
        "zerops_import",
        json!({"content": "services:\n  - hostname: fresh\n    type: nodejs@22\n"}),
    ));
    assert_eq!(imported["services"][0]["status"], "created", "{imported}");
    let result = expect_ok(&s.call("zerops_logs", json!({"serviceHostname": "fresh"})));
    let fresh = result["hint"].as_str().unwrap();
    assert!(fresh.contains("no code deployed yet"), "{fresh}");
    assert!(!fresh.contains("since"), "{fresh}");
    // Nor is a web server never deployed pointed at for its lines.
    expect_ok(&s.call(
        "zerops_import",
        json!({"content": "services:\n  - hostname: ph\n    type: php-nginx@8.4\n"}),
    ));
    for web_server in [false, true] {
        let result = expect_ok(&s.call(
            "zerops_logs",
            json!({"serviceHostname": "ph", "webServer": web_server}),
        ));
        let hint = result["hint"].as_str().unwrap();
        assert!(hint.contains("no code deployed yet"), "{hint}");
        assert!(
            !hint.contains("webServer true") && !hint.contains("since"),
            "{hint}"
        );
    }
}

/// An empty build log's hint fits the build's status: one not started yet has no log yet;
/// a finished one whose log is empty lost it to the backend (or wrote none).
#[test]
fn an_empty_build_log_hint_follows_the_build_status() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let mut hint = |arguments: Value| -> String {
        let result = expect_ok(&s.call("zerops_logs", arguments));
        assert_eq!(result["entries"], json!([]), "{result}");
        result["hint"].as_str().unwrap().to_owned()
    };
    let active = hint(json!({"serviceHostname": "api", "buildId": "avdemo0000000000000003"}));
    assert!(
        active.contains("is over") && active.contains("no longer holds"),
        "{active}"
    );
    assert!(!active.contains("not started"), "{active}");
    // A filter that may have hidden lines is still named.
    let backup = hint(
        json!({"serviceHostname": "api", "buildId": "avdemo0000000000000001", "severity": "error"}),
    );
    assert!(
        backup.contains("no longer holds") && backup.contains("Set severity to all"),
        "{backup}"
    );
    assert!(!backup.contains("not started"), "{backup}");
    // Nothing came back to search: changing the search would not help.
    let searched = hint(
        json!({"serviceHostname": "api", "buildId": "avdemo0000000000000003", "search": "zzz"}),
    );
    assert!(
        !searched.contains("search") && searched.contains("no longer holds"),
        "{searched}"
    );
    for status in ["UPLOADING", "BUILDING"] {
        sim.with_state(|st| {
            for v in &mut st.app_versions {
                if v.id == "avdemo0000000000000003" {
                    v.fixed_status = Some(status.into());
                }
            }
        });
        let waiting = hint(json!({"serviceHostname": "api", "buildId": "avdemo0000000000000003"}));
        assert!(
            waiting.contains("not started") && waiting.contains("no log yet"),
            "{waiting}"
        );
        assert!(!waiting.contains("no longer"), "{waiting}");
    }
}

/// Severity takes the labels the entries show (and the short syslog names), in any case.
#[test]
fn log_severity_takes_the_labels_the_entries_show() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let mut read = |severity: &str| -> Vec<Value> {
        entries(&expect_ok(&s.call(
            "zerops_logs",
            json!({"serviceHostname": "api", "since": "1d", "severity": severity}),
        )))
    };
    let all = read("all");
    let labels: std::collections::BTreeSet<String> = all
        .iter()
        .map(|e| e["severity"].as_str().unwrap().to_owned())
        .collect();
    assert!(labels.contains("Informational"), "{labels:?}");
    for label in &labels {
        assert!(!read(label).is_empty(), "{label}");
    }
    assert_eq!(read("Informational"), read("info"));
    assert_eq!(read("warn"), read("warning"));
    assert_eq!(read("ERR"), read("error"));
    assert_eq!(read("crit"), read("critical"));
    assert_eq!(read("emerg"), read("emergency"));
}

#[test]
fn a_deleted_service_keeps_its_history_in_events() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    expect_ok(&s.call(
        "zerops_delete",
        json!({"serviceHostname": "cache", "confirm": true}),
    ));
    let history = expect_ok(&s.call("zerops_events", json!({"serviceHostname": "cache"})));
    let events = history["events"].as_array().unwrap();
    assert!(events.iter().any(|e| e["action"] == "delete"), "{history}");
    assert!(events.iter().all(|e| e["service"] == "cache"), "{history}");
    assert!(
        history["note"].as_str().unwrap().contains("no longer"),
        "{history}"
    );
    expect_error(
        &s.call("zerops_events", json!({"serviceHostname": "nosuch"})),
        "SERVICE_NOT_FOUND",
    );
    // A deleted runtime keeps its builds too, named after it (its processes keep the
    // name), never by its bare id.
    expect_ok(&s.call(
        "zerops_delete",
        json!({"serviceHostname": "api", "confirm": true}),
    ));
    let history = expect_ok(&s.call("zerops_events", json!({"serviceHostname": "api"})));
    let events = history["events"].as_array().unwrap();
    assert!(
        events
            .iter()
            .any(|e| e["appVersionId"] == "avdemo0000000000000002"),
        "{history}"
    );
    let all = expect_ok(&s.call("zerops_events", json!({"limit": 100})));
    assert!(!all.to_string().contains(API_ID), "{all}");
}

#[test]
fn events_are_newest_first_and_limited_after_filtering() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let all = expect_ok(&s.call("zerops_events", json!({})));
    let events = all["events"].as_array().unwrap();
    assert!(events.len() >= 6, "{all}");
    let stamps: Vec<&str> = events
        .iter()
        .map(|e| e["timestamp"].as_str().unwrap())
        .collect();
    let mut sorted = stamps.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(stamps, sorted, "newest first");
    assert!(
        !all.to_string().contains("billing"),
        "no other project's events"
    );
    let failed = events
        .iter()
        .find(|e| e["processId"] == "procdemo00000000000004")
        .expect("the failed build");
    assert!(
        failed["failReason"]
            .as_str()
            .unwrap()
            .contains("Missing script"),
        "{failed}"
    );
    // Its app version points at the build log, as advice rather than as a reason.
    let version = events
        .iter()
        .find(|e| e["appVersionId"] == "avdemo0000000000000002")
        .expect("the failed version");
    assert!(version.get("failReason").is_none(), "{version}");
    assert!(
        version["hint"]
            .as_str()
            .unwrap()
            .contains("buildId avdemo0000000000000002"),
        "{version}"
    );

    // web has few events among many of api: the limit applies after the filter.
    let web = expect_ok(&s.call(
        "zerops_events",
        json!({"serviceHostname": "web", "limit": 1}),
    ));
    let web_events = web["events"].as_array().unwrap();
    assert_eq!(web_events.len(), 1, "{web}");
    assert_eq!(web_events[0]["service"], "web");
    let api = expect_ok(&s.call(
        "zerops_events",
        json!({"serviceHostname": "api", "limit": 3}),
    ));
    let api_events = api["events"].as_array().unwrap();
    assert_eq!(api_events.len(), 3, "{api}");
    assert!(api_events.iter().all(|e| e["service"] == "api"), "{api}");
    // The newest three of the unlimited api list.
    let unlimited = expect_ok(&s.call(
        "zerops_events",
        json!({"serviceHostname": "api", "limit": 50}),
    ));
    assert_eq!(
        &unlimited["events"].as_array().unwrap()[..3],
        &api_events[..]
    );

    // New activity shows up on top.
    expect_ok(&s.call(
        "zerops_manage",
        json!({"action": "restart", "serviceHostname": "web"}),
    ));
    let after = expect_ok(&s.call("zerops_events", json!({"limit": 1})));
    assert_eq!(after["events"][0]["service"], "web", "{after}");
    assert_eq!(after["events"][0]["action"], "restart");

    // A project variable's process belongs to no service: no empty service name.
    expect_ok(&s.call(
        "zerops_env",
        json!({"action": "set", "project": true, "variables": ["EVENTS_TEST=1"]}),
    ));
    let project = expect_ok(&s.call("zerops_events", json!({"limit": 1})));
    let newest = &project["events"][0];
    assert_eq!(newest["action"], "project-env-update", "{project}");
    assert!(newest.get("service").is_none(), "{project}");
}

/// A server whose search pages hold fewer items than asked for (here 1): the timeline and
/// a build log lookup read on past the short pages while `totalHits` says there is more.
#[test]
fn capped_search_pages_do_not_hide_older_events_or_builds() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let whole = expect_ok(&s.call("zerops_events", json!({"limit": 50})));
    assert!(whole["events"].as_array().unwrap().len() >= 6, "{whole}");
    sim.with_state(|st| st.search_page_cap = Some(1));
    let capped = expect_ok(&s.call("zerops_events", json!({"limit": 50})));
    assert_eq!(capped["events"], whole["events"]);
    let build = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "buildId": "avdemo0000000000000002"}),
    ));
    assert!(build.to_string().contains("Missing script"), "{build}");
}

/// `count` application (facility 16) lines of the api service, `web` access-log lines
/// (facility 17) among them, the newest last.
fn bulk_logs(sim: &SimHandle, count: u64, web: u64) {
    sim.with_state(|s| {
        let now = std::time::SystemTime::now();
        for i in 0..count + web {
            let access = i >= count;
            s.logs.push(zcp::sim::model::LogRec {
                id: format!("logfac{i:0>16}"),
                project_id: DEMO_PROJECT_ID.into(),
                service_id: API_ID.into(),
                timestamp: zcp::time::format_rfc3339(
                    now - Duration::from_secs(600) + Duration::from_millis(i),
                ),
                severity: 6,
                facility: if access { 17 } else { 16 },
                tag: "api".into(),
                container: "api-1".into(),
                container_id: "ctr-api-1".into(),
                message: if access {
                    format!("GET /health 200 ({i})")
                } else {
                    format!("app line {i}")
                },
            });
        }
    });
}

#[test]
fn logs_show_the_application_not_the_web_server_and_a_full_capped_page_may_have_more() {
    let sim = fast_sim();
    // The demo's own lines for api plus 1000 more: over the 1000 cap in all.
    bulk_logs(&sim, 1000, 5);
    let mut s = Session::start(&sim_env(&sim));
    let got = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "since": "1d", "limit": 1000}),
    ));
    assert!(
        !got.to_string().contains("GET /health"),
        "web server lines are not the application's"
    );
    // (The answer itself is cut to size: what matters is what the backend gave.)
    assert!(!entries(&got).is_empty());
    assert_eq!(got["hasMore"], true, "a full page at the cap may have more");
    assert!(
        sim.requests().iter().any(|r| r.contains("facility=16")),
        "{:?}",
        sim.requests()
    );
}

/// The backend cannot search: `search` filters its newest 1000 lines here. When that page
/// was full and still inside `since`, older lines went unsearched and the answer says so.
#[test]
fn a_search_over_a_full_backend_page_says_older_lines_went_unsearched() {
    let sim = fast_sim();
    bulk_logs(&sim, 1200, 0);
    let mut s = Session::start(&sim_env(&sim));
    // "app line 119" is older than the newest 1000; 1190..1199 are among them.
    let got = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "since": "1d", "search": "app line 119"}),
    ));
    assert_eq!(entries(&got).len(), 10, "{got}");
    assert_eq!(got["hasMore"], true, "{got}");
    let hint = got["hint"].as_str().unwrap();
    assert!(hint.contains("newest 1000"), "{hint}");
    assert!(!hint.contains("More entries match"), "{hint}");
    let none = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "since": "1d", "search": "zzz"}),
    ));
    assert_eq!(none["hasMore"], true, "{none}");
    let hint = none["hint"].as_str().unwrap();
    assert!(
        hint.contains("No entries match") && hint.contains("newest 1000"),
        "{hint}"
    );
    // The page reached past `since` (the bulk lines are 10 minutes old): all was searched.
    let recent = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "since": "5m", "search": "app line 119"}),
    ));
    assert_eq!(recent["hasMore"], false, "{recent}");
    assert!(!recent.to_string().contains("newest 1000"), "{recent}");
}

/// `webServer: true` reads the web server's lines (facility 17) instead of the app's; an
/// empty runtime answer says so; a build has none.
#[test]
fn logs_read_the_web_server_on_request() {
    let sim = fast_sim();
    bulk_logs(&sim, 3, 4);
    let mut s = Session::start(&sim_env(&sim));
    let web = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "since": "1d", "webServer": true}),
    ));
    assert_eq!(web["source"], "webserver", "{web}");
    let lines = entries(&web);
    assert_eq!(lines.len(), 4, "{web}");
    assert!(
        lines
            .iter()
            .all(|e| e["message"].as_str().unwrap().starts_with("GET /health"))
    );
    assert!(sim.requests().iter().any(|r| r.contains("facility=17")));
    // The pointer to webServer only where there is a web server (static, PHP), and only
    // when its lines were not the ones read.
    let hint_of = |s: &mut Session, args: Value| {
        let none = expect_ok(&s.call("zerops_logs", args));
        none["hint"].as_str().unwrap().to_owned()
    };
    let web_hint = hint_of(
        &mut s,
        json!({"serviceHostname": "web", "search": "no such line"}),
    );
    assert!(web_hint.contains("webServer true"), "{web_hint}");
    let api_hint = hint_of(
        &mut s,
        json!({"serviceHostname": "api", "search": "no such line"}),
    );
    assert!(!api_hint.contains("webServer"), "{api_hint}");
    let read = hint_of(
        &mut s,
        json!({"serviceHostname": "web", "webServer": true, "search": "no such line"}),
    );
    assert!(!read.contains("webServer true"), "{read}");
    expect_error(
        &s.call(
            "zerops_logs",
            json!({"serviceHostname": "api", "webServer": true, "buildId": "av1"}),
        ),
        "INVALID_PARAMETER",
    );
}

#[test]
fn a_huge_result_is_cut_to_size_with_a_note() {
    let sim = fast_sim();
    sim.with_state(|s| {
        let now = std::time::SystemTime::now();
        for i in 0..1000u64 {
            s.logs.push(zcp::sim::model::LogRec {
                id: format!("logbulk{i:0>15}"),
                project_id: DEMO_PROJECT_ID.into(),
                service_id: API_ID.into(),
                timestamp: zcp::time::format_rfc3339(
                    now - Duration::from_secs(600) + Duration::from_millis(i),
                ),
                severity: 6,
                facility: 16,
                tag: "api".into(),
                container: "api-1".into(),
                container_id: "ctr-api-1".into(),
                message: format!("request {i} {}", "x".repeat(300)),
            });
        }
    });
    let mut s = Session::start(&sim_env(&sim));
    let result = s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "since": "1h", "limit": 1000}),
    );
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.len() <= 82 * 1024, "{} bytes of text", text.len());
    let logs = expect_ok(&result);
    let kept = logs["entries"].as_array().unwrap();
    assert!(!kept.is_empty() && kept.len() < 1000, "{}", kept.len());
    // The newest entries are the ones kept.
    assert!(
        kept.last().unwrap()["message"]
            .as_str()
            .unwrap()
            .starts_with("request 999 "),
        "{}",
        kept.last().unwrap()
    );
    let note = logs["truncated"].to_string();
    assert!(note.len() > 10, "no note on the cut: {logs:?}");
}

#[test]
fn validate_omits_the_file_for_inline_content() {
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let yaml = "zerops:\n  - setup: api\n    run:\n      base: nodejs@22\n      start: npm start\n";
    let inline = expect_ok(&s.call("zerops_validate", json!({"content": yaml})));
    assert_eq!(inline["valid"], true, "{inline}");
    assert!(
        inline.get("file").is_none(),
        "no file for inline content: {inline}"
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zerops.yml");
    std::fs::write(&path, yaml).unwrap();
    let from_file = expect_ok(&s.call(
        "zerops_validate",
        json!({"filePath": path.display().to_string()}),
    ));
    assert_eq!(from_file["file"], path.display().to_string());
    assert_eq!(from_file["type"], "zerops.yml");

    // Inline content is taken as sent: leading blank lines count in a finding's line, and
    // a blank content is named as such (not as missing), in both tools that take YAML.
    let late = "\n\nservices:\n  - hostname: Bad_Host\n    type: nodejs@22\n";
    let report = expect_ok(&s.call("zerops_validate", json!({"content": late})));
    assert_eq!(report["errors"][0]["line"], 4, "{report}");
    for tool in ["zerops_validate", "zerops_import"] {
        let blank = expect_error(
            &s.call(tool, json!({"content": " \n"})),
            "INVALID_PARAMETER",
        );
        assert!(
            blank["error"]
                .as_str()
                .unwrap()
                .contains("content is empty"),
            "{tool}: {blank}"
        );
    }
    assert!(sim.requests().is_empty(), "validate is offline");
}

#[test]
fn validate_detects_the_type_when_it_is_sent_empty() {
    // "type": "" means "detect it", as if the argument were left out; it is not an
    // unknown type.
    let sim = fast_sim();
    let mut s = Session::start(&sim_env(&sim));
    let import = "services:\n  - hostname: api\n    type: nodejs@22\n";
    for blank in ["", "  "] {
        let out = expect_ok(&s.call("zerops_validate", json!({"content": import, "type": blank})));
        assert_eq!(out["type"], "import.yml", "{out}");
        assert_eq!(out["valid"], true, "{out}");
    }
    let unknown = s.call(
        "zerops_validate",
        json!({"content": import, "type": "compose.yml"}),
    );
    assert_eq!(unknown["isError"], true, "{unknown}");
}

#[test]
fn a_failed_process_reports_its_reason() {
    let sim = sim_with_processes_of(Duration::from_millis(1500));
    let mut s = Session::start(&sim_env(&sim));
    let id = s.start_call(
        "zerops_manage",
        json!({"action": "restart", "serviceHostname": "api"}),
        None,
    );
    until_state(&sim, "the restart never started", |st| {
        st.processes
            .iter_mut()
            .find(|p| p.action == "stack.restart" && !p.applied && p.id.starts_with("proc0"))
            .map(|p| p.failure = Some("container did not start: exit code 137".into()))
            .is_some()
    });
    // The process it followed failed: an error (agents act on isError) that says why and
    // names the process, so it can be looked up.
    let error = expect_error(&s.result(id), "PROCESS_FAILED");
    assert!(
        error["failReason"]
            .as_str()
            .unwrap()
            .contains("exit code 137"),
        "{error}"
    );
    let message = error["error"].as_str().unwrap();
    let process_id = message
        .split("(process ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("no process id in {message}"))
        .to_owned();
    assert!(message.starts_with("Restarting 'api' failed"), "{message}");
    assert!(
        error["suggestion"]
            .as_str()
            .unwrap()
            .contains("zerops_logs")
    );
    let status = expect_ok(&s.call("zerops_process", json!({"processId": process_id})));
    assert_eq!(status["status"], "FAILED");
    assert!(
        status["failReason"]
            .as_str()
            .unwrap()
            .contains("exit code 137")
    );
}

/// Env values are secrets too: at the most verbose log level, setting, reading and
/// deleting one (service and project level) never writes its value to stderr.
#[test]
fn env_values_never_reach_the_log() {
    const VALUE: &str = "sentinel-env-value-4b7d21";
    let sim = fast_sim();
    let mut env = sim_env(&sim);
    env.push(("ZCP_LOG_LEVEL".into(), "debug".into()));
    let mut s = Session::start(&env);
    let line = format!("API_SECRET={VALUE}");
    for scope in [json!({"serviceHostname": "api"}), json!({"project": true})] {
        let with = |mut args: Value| {
            args.as_object_mut()
                .unwrap()
                .extend(scope.as_object().unwrap().clone());
            args
        };
        expect_ok(&s.call(
            "zerops_env",
            with(json!({"action": "set", "variables": [line.clone()]})),
        ));
        let got = expect_ok(&s.call("zerops_env", with(json!({"action": "get"}))));
        assert!(
            got.to_string().contains(VALUE),
            "get shows the value: {got}"
        );
        expect_ok(&s.call(
            "zerops_env",
            with(json!({"action": "delete", "variables": ["API_SECRET"]})),
        ));
    }
    let transcript = s.finish();
    assert!(
        transcript.stderr.contains("platform"),
        "debug logging was on: {}",
        transcript.stderr
    );
    assert!(
        !transcript.stderr.contains(VALUE),
        "an env value was logged: {}",
        transcript.stderr
    );
}

/// Two changes of one service sent at once go one after the other: the second waits until
/// the first is sent and remembered. A second delete is then not sent again, and a disable
/// sent while an enable is on its way comes after it (it is not judged by the state the
/// enable is about to change).
#[test]
fn changes_of_one_service_sent_at_once_go_one_after_the_other() {
    let sim = sim_with_processes_of(Duration::from_millis(300));
    let mut s = Session::start(&sim_env(&sim));
    // Signed in and listed first: each first call below reaches its slow request within
    // a few milliseconds, well inside the 300 ms before the second call.
    expect_ok(&s.call("zerops_discover", json!({})));
    let slow = || Fault::Latency(Duration::from_millis(1000));
    sim.set_fault_times("PUT /service-stack/*/enable-subdomain-access", slow(), 1);
    let enable = s.start_call(
        "zerops_subdomain",
        json!({"action": "enable", "serviceHostname": "web"}),
        None,
    );
    // The enable is now on its way to the API.
    std::thread::sleep(Duration::from_millis(300));
    let disable = s.start_call(
        "zerops_subdomain",
        json!({"action": "disable", "serviceHostname": "web"}),
        None,
    );
    assert_eq!(expect_ok(&s.result(enable))["status"], "enabled");
    let disabled = expect_ok(&s.result(disable));
    assert_eq!(disabled["status"], "disabled", "{disabled}");
    assert!(!service_field(&sim, WEB_ID, |x| x.subdomain_access));

    sim.set_fault_times("DELETE /service-stack/*", slow(), 1);
    let first = s.start_call(
        "zerops_delete",
        json!({"serviceHostname": "cache", "confirm": true}),
        None,
    );
    std::thread::sleep(Duration::from_millis(300));
    let second = s.start_call(
        "zerops_delete",
        json!({"serviceHostname": "cache", "confirm": true}),
        None,
    );
    expect_ok(&s.result(first));
    let again = expect_ok(&s.result(second));
    assert_eq!(again["status"], "already_deleting", "{again}");
    let deletes = (mutations(&sim).into_iter())
        .filter(|r| r.starts_with("DELETE /service-stack/"))
        .count();
    assert_eq!(deletes, 1, "{:?}", mutations(&sim));
}

/// A subdomain change that waits for this server's opposite one does so without the
/// service's lock: a stop of the same service meanwhile is sent while the first change
/// still runs.
#[test]
fn a_wait_for_an_opposite_change_holds_up_no_other_change() {
    let sim = sim_with_processes_of(Duration::from_millis(3000));
    let mut s = Session::start(&sim_env(&sim));
    expect_ok(&s.call("zerops_discover", json!({})));
    let since = Instant::now();
    let enable = s.start_call(
        "zerops_subdomain",
        json!({"action": "enable", "serviceHostname": "web"}),
        None,
    );
    when_started(
        &sim,
        since,
        |p| p.action == "stack.enableSubdomainAccess",
        |_| {},
    );
    let disable = s.start_call(
        "zerops_subdomain",
        json!({"action": "disable", "serviceHostname": "web"}),
        None,
    );
    std::thread::sleep(Duration::from_millis(200));
    let stop = s.start_call(
        "zerops_manage",
        json!({"action": "stop", "serviceHostname": "web"}),
        None,
    );
    // When the stop reaches the API, the enable has not ended yet.
    when_started(&sim, since, |p| p.action == "stack.stop", |_| {});
    let enable_running = sim.with_state(|st| {
        st.processes.iter().any(|p| {
            p.action == "stack.enableSubdomainAccess" && p.started_at >= since && !p.applied
        })
    });
    assert!(enable_running, "the stop waited for the enable");
    for id in [enable, disable, stop] {
        s.result(id);
    }
}
