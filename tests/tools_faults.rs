//! The fault matrix: every API-backed tool against every way the simulated API can fail,
//! through the real binary with debug logging on. Each combination must end in the
//! expected typed error with a suggestion, within a bounded time, with the server still
//! answering afterwards and the token never printed. Also the scoped-token search leak:
//! no other project's data may reach any result.

mod session;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use session::{Session, TOKEN, body, error_code, expect_ok, sim_env, start_sim};
use zcp::sim::demo::{OTHER_ID, OTHER_PROJECT_ID};
use zcp::sim::{Fault, SimConfig, SimHandle};

/// The API timeout the binary gets in these tests.
const HTTP_TIMEOUT_MS: u64 = 600;

fn sim() -> SimHandle {
    start_sim(SimConfig {
        process_duration: Duration::from_millis(150),
        build_duration: Duration::from_millis(300),
        ..SimConfig::default()
    })
}

fn env(sim: &SimHandle) -> Vec<(String, String)> {
    let mut env = sim_env(sim);
    env.retain(|(k, _)| k != "ZCP_HTTP_TIMEOUT_MS");
    env.push(("ZCP_HTTP_TIMEOUT_MS".into(), HTTP_TIMEOUT_MS.to_string()));
    env.push(("ZCP_LOG_LEVEL".into(), "debug".into()));
    env
}

/// Every tool that calls the API, with arguments that reach it.
fn api_calls(work: &std::path::Path) -> Vec<(&'static str, &'static str, Value)> {
    vec![
        ("discover", "zerops_discover", json!({})),
        (
            "manage",
            "zerops_manage",
            json!({"action": "restart", "serviceHostname": "api"}),
        ),
        (
            "scale",
            "zerops_manage",
            json!({"action": "scale", "serviceHostname": "api", "maxRam": 4}),
        ),
        (
            "env get",
            "zerops_env",
            json!({"action": "get", "serviceHostname": "api"}),
        ),
        (
            "env set",
            "zerops_env",
            json!({"action": "set", "project": true, "variables": ["A=1"]}),
        ),
        (
            "logs",
            "zerops_logs",
            json!({"serviceHostname": "api", "since": "1d"}),
        ),
        (
            "deploy",
            "zerops_deploy",
            json!({"workingDir": work.display().to_string(), "serviceHostname": "api"}),
        ),
        (
            "import",
            "zerops_import",
            json!({"content": "services:\n  - hostname: worker\n    type: nodejs@22\n"}),
        ),
        (
            "process",
            "zerops_process",
            json!({"processId": "procdemo00000000000004"}),
        ),
        (
            "cancel",
            "zerops_process",
            json!({"processId": "procdemo00000000000004", "action": "cancel"}),
        ),
        (
            "delete",
            "zerops_delete",
            json!({"serviceHostname": "web", "confirm": true}),
        ),
        (
            "subdomain",
            "zerops_subdomain",
            json!({"action": "enable", "serviceHostname": "web"}),
        ),
        ("events", "zerops_events", json!({})),
    ]
}

fn api_error(status: u16, code: &str, message: &str) -> Fault {
    Fault::Status {
        status,
        body: json!({"error": {"code": code, "message": message, "meta": null}}).to_string(),
    }
}

/// Runs every API-backed tool with `fault` on every API path (after a successful first
/// call, so authentication is done) and checks the outcome. `expected` maps a tool label
/// to its error code; `default` applies to the rest.
fn matrix(fault: Fault, default: &str, expected: &[(&str, &str)]) {
    let sim = sim();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(
        work.path().join("zerops.yml"),
        "zerops:\n  - setup: api\n    run:\n      base: nodejs@22\n      start: npm start\n",
    )
    .unwrap();
    let mut s = Session::start(&env(&sim));
    expect_ok(&s.call("zerops_discover", json!({"serviceHostname": "api"})));
    sim.set_fault("* /**", fault.clone());
    let expected: BTreeMap<&str, &str> = expected.iter().copied().collect();
    let mut wrong = Vec::new();
    for (label, tool, args) in api_calls(work.path()) {
        let started = Instant::now();
        let result = s.call(tool, args);
        let took = started.elapsed();
        let want = expected.get(label).copied().unwrap_or(default);
        let got = error_code(&result);
        if got.as_deref() != Some(want) {
            wrong.push(format!("{label}: expected {want}, got {got:?}: {result}"));
            continue;
        }
        let b = body(&result);
        for field in ["error", "suggestion"] {
            if b[field].as_str().is_none_or(str::is_empty) {
                wrong.push(format!("{label}: no {field}: {b}"));
            }
        }
        if want == "API_RATE_LIMITED" && b["retryAfterSeconds"] != json!(1) {
            wrong.push(format!("{label}: Retry-After not reported: {b}"));
        }
        // Generous: retries of transient failures are allowed, hangs are not.
        if took > Duration::from_secs(12) {
            wrong.push(format!("{label}: took {took:?}"));
        }
    }
    sim.clear_faults();
    s.assert_alive();
    expect_ok(&s.call("zerops_discover", json!({"serviceHostname": "api"})));
    let transcript = s.finish();
    assert!(
        !transcript.stdout.contains(TOKEN) && !transcript.stderr.contains(TOKEN),
        "the token was printed"
    );
    assert!(
        transcript.stderr.contains("platform"),
        "debug logging was on"
    );
    assert!(wrong.is_empty(), "{fault:?}:\n{}", wrong.join("\n"));
}

/// A 404 means a different thing to each tool.
const NOT_FOUND: [(&str, &str); 2] = [
    ("process", "PROCESS_NOT_FOUND"),
    ("cancel", "PROCESS_NOT_FOUND"),
];

#[test]
fn internal_server_error() {
    matrix(
        api_error(500, "internalServerError", "Internal server error."),
        "API_ERROR",
        &[],
    );
}

/// An API (or a proxy before it) that echoes the request's token in its error body: the
/// matrix checks that no result or log line carries it.
#[test]
fn an_error_that_echoes_the_token() {
    matrix(
        Fault::Status {
            status: 500,
            body: json!({"error": {
                "code": "echo",
                "message": format!("you sent Bearer {TOKEN}"),
                "meta": [{"authorization": format!("Bearer {TOKEN}")}],
            }})
            .to_string(),
        },
        "API_ERROR",
        &[],
    );
}

#[test]
fn bad_gateway_with_an_html_page() {
    matrix(
        Fault::Status {
            status: 502,
            body: "<html><body><h1>502 Bad Gateway</h1></body></html>".into(),
        },
        "API_ERROR",
        &[],
    );
}

#[test]
fn service_unavailable() {
    matrix(
        Fault::Status {
            status: 503,
            body: String::new(),
        },
        "API_ERROR",
        &[],
    );
}

#[test]
fn rate_limited_with_retry_after() {
    matrix(
        Fault::RateLimited {
            retry_after_secs: 1,
        },
        "API_RATE_LIMITED",
        &[],
    );
}

#[test]
fn unauthorized() {
    matrix(
        api_error(401, "tokenExpired", "Token expired."),
        "AUTH_TOKEN_EXPIRED",
        &[],
    );
}

#[test]
fn forbidden() {
    matrix(
        api_error(403, "insufficientPermissions", "Insufficient permissions."),
        "PERMISSION_DENIED",
        &[],
    );
}

#[test]
fn not_found() {
    matrix(
        api_error(404, "notFound", "Not found."),
        "SERVICE_NOT_FOUND",
        &NOT_FOUND,
    );
}

#[test]
fn connection_reset() {
    matrix(Fault::Reset, "NETWORK_ERROR", &[]);
}

#[test]
fn no_answer_in_time() {
    matrix(
        Fault::Latency(Duration::from_millis(HTTP_TIMEOUT_MS * 4)),
        "API_TIMEOUT",
        &[],
    );
}

#[test]
fn malformed_json() {
    matrix(Fault::Malformed, "API_ERROR", &[]);
}

#[test]
fn truncated_body() {
    matrix(Fault::Truncated, "NETWORK_ERROR", &[]);
}

#[test]
fn body_stalls() {
    matrix(
        Fault::SlowBody(Duration::from_millis(HTTP_TIMEOUT_MS * 4)),
        "API_TIMEOUT",
        &[],
    );
}

/// Faults on the changing call itself (the reads before it work): typed errors, and the
/// platform state is left as it was.
#[test]
fn faults_on_the_mutating_call() {
    let sim = sim();
    let mut s = Session::start(&env(&sim));
    let cases: Vec<(&str, &str, Value, &str)> = vec![
        (
            "restart",
            "zerops_manage",
            json!({"action": "restart", "serviceHostname": "api"}),
            "PUT /service-stack/*/restart",
        ),
        (
            "scale",
            "zerops_manage",
            json!({"action": "scale", "serviceHostname": "api", "maxRam": 4}),
            "PUT /service-stack/*/autoscaling",
        ),
        (
            "env set",
            "zerops_env",
            json!({"action": "set", "serviceHostname": "api", "variables": ["A=1"]}),
            "POST /service-stack/*/user-data",
        ),
        (
            "project env",
            "zerops_env",
            json!({"action": "set", "project": true, "variables": ["B=1"]}),
            "POST /project/*/env",
        ),
        (
            "delete",
            "zerops_delete",
            json!({"serviceHostname": "web", "confirm": true}),
            "DELETE /service-stack/*",
        ),
        (
            "subdomain",
            "zerops_subdomain",
            json!({"action": "enable", "serviceHostname": "web"}),
            "PUT /service-stack/*/enable-subdomain-access",
        ),
        (
            "import",
            "zerops_import",
            json!({"content": "services:\n  - hostname: worker\n    type: nodejs@22\n"}),
            "POST /project/*/service-stack/import",
        ),
    ];
    let faults = [
        (api_error(500, "internalServerError", "boom"), "API_ERROR"),
        (Fault::Reset, "NETWORK_ERROR"),
        (Fault::Malformed, "API_ERROR"),
    ];
    let snapshot = |sim: &SimHandle| {
        sim.with_state(|st| {
            let services: Vec<String> = st
                .services
                .iter()
                .map(|x| {
                    format!(
                        "{} {} {} {} {:?}",
                        x.name,
                        x.status,
                        x.subdomain_access,
                        x.autoscaling,
                        x.env.len()
                    )
                })
                .collect();
            let project_env: Vec<usize> = st.projects.iter().map(|p| p.env.len()).collect();
            (services, project_env, st.processes.len())
        })
    };
    let before = snapshot(&sim);
    let mut wrong = Vec::new();
    for (label, tool, args, pattern) in &cases {
        for (fault, code) in &faults {
            sim.set_fault(pattern, fault.clone());
            let result = s.call(tool, args.clone());
            sim.clear_faults();
            if error_code(&result).as_deref() != Some(code) {
                wrong.push(format!("{label} {fault:?}: expected {code}: {result}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(
        snapshot(&sim),
        before,
        "a refused call changed the platform"
    );
    s.assert_alive();
}

/// A change whose answer is lost may still have happened: the error says to look first.
#[test]
fn a_lost_answer_to_a_change_warns_against_a_blind_retry() {
    let sim = sim();
    let mut s = Session::start(&env(&sim));
    let restarts = |sim: &SimHandle| {
        sim.with_state(|st| {
            st.processes
                .iter()
                .filter(|p| p.action == "stack.restart" && p.id.starts_with("proc0"))
                .count()
        })
    };
    sim.set_fault(
        "PUT /service-stack/*/restart",
        Fault::Latency(Duration::from_millis(HTTP_TIMEOUT_MS * 2)),
    );
    let result = s.call(
        "zerops_manage",
        json!({"action": "restart", "serviceHostname": "api"}),
    );
    let b = body(&result);
    assert_eq!(error_code(&result).as_deref(), Some("API_TIMEOUT"), "{b}");
    assert!(
        b["suggestion"].as_str().unwrap().contains("zerops_events"),
        "{b}"
    );
    // The simulator carried the restart out after the client gave up.
    std::thread::sleep(Duration::from_millis(HTTP_TIMEOUT_MS * 2));
    assert_eq!(restarts(&sim), 1, "the restart did happen");
    sim.clear_faults();

    // A read that times out is simply retried: no such warning.
    sim.set_fault(
        "GET /service-stack/*/env",
        Fault::Latency(Duration::from_millis(HTTP_TIMEOUT_MS * 2)),
    );
    let read = s.call(
        "zerops_env",
        json!({"action": "get", "serviceHostname": "api"}),
    );
    let b = body(&read);
    assert_eq!(error_code(&read).as_deref(), Some("API_TIMEOUT"), "{b}");
    assert!(!b["suggestion"].as_str().unwrap().contains("twice"), "{b}");
    sim.clear_faults();
    s.assert_alive();
}

/// A few failed polls while following a process are survived; a dead API is reported.
#[test]
fn faults_while_following_a_process() {
    let sim = start_sim(SimConfig {
        process_duration: Duration::from_millis(600),
        ..SimConfig::default()
    });
    let mut s = Session::start(&env(&sim));
    sim.set_fault_times(
        "GET /process/*",
        Fault::Status {
            status: 503,
            body: String::new(),
        },
        2,
    );
    let ok = expect_ok(&s.call(
        "zerops_manage",
        json!({"action": "restart", "serviceHostname": "api"}),
    ));
    assert_eq!(ok["process"]["status"], "FINISHED", "{ok}");

    sim.set_fault("GET /process/*", Fault::Reset);
    let started = Instant::now();
    let failed = s.call(
        "zerops_manage",
        json!({"action": "restart", "serviceHostname": "api"}),
    );
    assert!(started.elapsed() < Duration::from_secs(12));
    assert_eq!(
        error_code(&failed).as_deref(),
        Some("NETWORK_ERROR"),
        "{failed}"
    );
    sim.clear_faults();
    s.assert_alive();
}

/// The log backend is a second host: its failures are typed too.
#[test]
fn the_log_backend_failing() {
    let sim = sim();
    let mut s = Session::start(&env(&sim));
    let cases = [
        (api_error(500, "internalServerError", "boom"), "API_ERROR"),
        (Fault::Reset, "NETWORK_ERROR"),
        (Fault::Malformed, "API_ERROR"),
        (
            Fault::Latency(Duration::from_millis(HTTP_TIMEOUT_MS * 4)),
            "API_TIMEOUT",
        ),
    ];
    for (fault, code) in cases {
        sim.set_fault("GET /log/read", fault.clone());
        let result = s.call(
            "zerops_logs",
            json!({"serviceHostname": "api", "since": "1d"}),
        );
        assert_eq!(
            error_code(&result).as_deref(),
            Some(code),
            "{fault:?}: {result}"
        );
        assert!(
            body(&result)["suggestion"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );
        sim.clear_faults();
    }
    let ok = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "since": "1d"}),
    ));
    assert_eq!(ok["entries"].as_array().unwrap().len(), 10);
}

// ---------------------------------------------------------------------------------------
// The scoped-token search leak.

/// The other project's ids and names (its service is `billing`, but a call that names
/// `billing` itself may echo that name back).
const FOREIGN: [&str; 4] = [OTHER_PROJECT_ID, OTHER_ID, "billing-prod", "procother"];

fn no_foreign(what: &str, text: &str) {
    for needle in FOREIGN {
        assert!(
            !text.contains(needle),
            "{what} leaked {needle} of another project: {text}"
        );
    }
}

#[test]
fn the_search_leak_never_reaches_a_result() {
    let sim = sim();
    sim.set_search_leak(true);
    // The other project gets fresh activity, so it is the newest everywhere.
    sim.with_state(|s| {
        let now = Instant::now();
        let other = s.services.iter().position(|x| x.id == OTHER_ID).unwrap();
        s.services[other].status = "ACTIVE".into();
        s.tick(now);
    });
    let other_push = sim.push(OTHER_ID, None, None, None).unwrap();
    let mut s = Session::start(&env(&sim));
    let calls = [
        ("zerops_discover", json!({"includeEnvs": true})),
        ("zerops_events", json!({"limit": 100})),
        ("zerops_events", json!({"limit": 1})),
        ("zerops_env", json!({"action": "get", "project": true})),
        (
            "zerops_logs",
            json!({"serviceHostname": "api", "since": "1d"}),
        ),
        (
            "zerops_logs",
            json!({"serviceHostname": "api", "since": "1d", "buildId": other_push}),
        ),
        ("zerops_discover", json!({"serviceHostname": "billing"})),
        (
            "zerops_manage",
            json!({"action": "restart", "serviceHostname": "billing"}),
        ),
        (
            "zerops_subdomain",
            json!({"action": "enable", "serviceHostname": "billing"}),
        ),
        (
            "zerops_delete",
            json!({"serviceHostname": "billing", "confirm": true}),
        ),
        (
            "zerops_env",
            json!({"action": "set", "serviceHostname": "billing", "variables": ["A=1"]}),
        ),
        (
            "zerops_import",
            json!({"content": "services:\n  - hostname: billing\n    type: nodejs@22\n", "dryRun": true}),
        ),
    ];
    for (tool, args) in calls {
        let result = s.call(tool, args.clone());
        let text = result.to_string();
        no_foreign(&format!("{tool} {args}"), &text);
        if !args.to_string().contains("billing") {
            assert!(!text.contains("billing"), "{tool} {args} leaked: {text}");
        }
        if !args.to_string().contains(&other_push) {
            assert!(
                !text.contains(&other_push),
                "{tool} {args} leaked a build: {text}"
            );
        }
    }
    let newest = expect_ok(&s.call("zerops_events", json!({"limit": 1})));
    assert_eq!(
        newest["events"].as_array().unwrap().len(),
        1,
        "the limit is filled from this project: {newest}"
    );
    let err = s.call(
        "zerops_manage",
        json!({"action": "stop", "serviceHostname": "billing"}),
    );
    assert_eq!(
        error_code(&err).as_deref(),
        Some("SERVICE_NOT_FOUND"),
        "{err}"
    );
    // Nothing was done to the other project's service.
    let touched = sim
        .requests()
        .iter()
        .any(|r| r.contains(OTHER_ID) && !r.starts_with("GET ") && !r.ends_with("/search"));
    assert!(!touched, "{:?}", sim.requests());
    let transcript = s.finish();
    no_foreign("stdout", &transcript.stdout);
    assert!(!transcript.stdout.contains(TOKEN) && !transcript.stderr.contains(TOKEN));
}

/// Adds `count` processes of the other project created now, copies of one it has;
/// numbered from `first_sequence` when given (else they keep the copied sequence).
fn add_foreign_processes(sim: &SimHandle, count: i64, first_sequence: Option<i64>) {
    sim.with_state(|s| {
        let template = s
            .processes
            .iter()
            .find(|p| p.project_id == OTHER_PROJECT_ID)
            .cloned()
            .unwrap();
        for i in 0..count {
            let mut p = template.clone();
            p.id = format!("procother{i:0>13}");
            p.created = zcp::time::format_rfc3339(std::time::SystemTime::now());
            if let Some(first) = first_sequence {
                p.sequence = first + i;
            }
            s.processes.push(p);
        }
    });
}

/// With the leak, the newest items of a search are another project's: the limit must
/// still be filled with this project's events.
#[test]
fn events_fill_the_limit_despite_foreign_items() {
    let sim = sim();
    sim.set_search_leak(true);
    // Newer than everything of this project, in sequence too.
    add_foreign_processes(&sim, 120, Some(1000));
    let mut s = Session::start(&env(&sim));
    let result = expect_ok(&s.call("zerops_events", json!({"limit": 5})));
    let events = result["events"].as_array().unwrap();
    assert_eq!(events.len(), 5, "{result}");
    no_foreign("events", &result.to_string());
    assert!(!result.to_string().contains("billing"));
}

/// A short page must be the true head of the timeline: when filtering thins one source
/// (processes) and not the other (app versions), the newest items of the thinned source
/// beyond the first page still outrank older items of the other.
#[test]
fn a_limited_timeline_is_the_head_of_the_full_one() {
    let sim = sim();
    sim.set_search_leak(true);
    add_foreign_processes(&sim, 2, None);
    let mut s = Session::start(&env(&sim));
    let full = expect_ok(&s.call("zerops_events", json!({"limit": 100})));
    let full = full["events"].as_array().unwrap().clone();
    assert!(full.len() > 5);
    for limit in 1..=5 {
        let page = expect_ok(&s.call("zerops_events", json!({"limit": limit})));
        assert_eq!(
            page["events"].as_array().unwrap()[..],
            full[..limit],
            "limit {limit}"
        );
    }
}

/// A build id older than a page of the organisation-wide search still finds its log.
#[test]
fn build_logs_are_found_behind_other_projects_deploys() {
    let sim = sim();
    sim.set_search_leak(true);
    for _ in 0..120 {
        sim.push(OTHER_ID, None, None, None).unwrap();
    }
    let mut s = Session::start(&env(&sim));
    let build = expect_ok(&s.call(
        "zerops_logs",
        json!({"serviceHostname": "api", "since": "1d", "buildId": "avdemo0000000000000002"}),
    ));
    assert_eq!(build["source"], "build");
    assert!(build.to_string().contains("Missing script"), "{build}");
    no_foreign("build log", &build.to_string());
}
