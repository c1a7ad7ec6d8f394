//! `zerops_deploy` through the real binary with a fake `zcli` (fixtures/zcli/fake-zcli) on
//! PATH and the simulator as the API: the flags and environment zcli gets, preflight
//! refusals that spawn nothing, a missing zcli, cancellation and EOF killing a child that
//! ignores SIGTERM (no orphans), the timeout in `ops::deploy`, and `--demo` deploys.
#![cfg(unix)]

mod session;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use session::{
    Session, TOKEN, body, error_code, expect_error, expect_ok, fast_sim, sim_env, support,
};
use zcp::sim::SimHandle;
use zcp::sim::demo::{API_ID, DEMO_PROJECT_ID, WEB_ID};

const ZEROPS_YML: &str = "zerops:\n  - setup: api\n    build:\n      base: nodejs@22\n      buildCommands:\n        - npm ci\n      deployFiles: ./\n    run:\n      base: nodejs@22\n      ports:\n        - port: 3000\n          httpSupport: true\n      start: npm start\n";

fn fake() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/zcli/fake-zcli")
}

/// A directory holding `zcli` (the fake) for PATH.
fn zcli_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(fake(), dir.path().join("zcli")).unwrap();
    dir
}

fn system_path() -> String {
    std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
}

/// The simulator environment with the fake zcli first on PATH, plus ZEROPS_* variables
/// that must not reach zcli.
fn deploy_env(sim: &SimHandle, bin: &Path) -> Vec<(String, String)> {
    let mut env = sim_env(sim);
    env.push((
        "PATH".into(),
        format!("{}:{}", bin.display(), system_path()),
    ));
    env.push(("ZEROPS_SERVICEID".into(), "leaked-flag".into()));
    env.push(("ZEROPS_ZCLI_EXTRA".into(), "leaked-flag".into()));
    env
}

/// [`deploy_env`] with a follow budget (`ZCP_POLL_BUDGET_MS`) of `ms`.
fn deploy_env_with_budget(sim: &SimHandle, bin: &Path, ms: u64) -> Vec<(String, String)> {
    let mut env = deploy_env(sim, bin);
    env.retain(|(k, _)| k != "ZCP_POLL_BUDGET_MS");
    env.push(("ZCP_POLL_BUDGET_MS".into(), ms.to_string()));
    env
}

fn work_dir(yml: Option<&str>, behaviour: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    if let Some(text) = yml {
        std::fs::write(dir.path().join("zerops.yml"), text).unwrap();
    }
    std::fs::write(dir.path().join(".fake-zcli.behaviour"), behaviour).unwrap();
    dir
}

/// Starts `zerops_deploy` of service `api` from `work`; returns the request id.
fn deploy_api(s: &mut Session, work: &Path, progress: Option<&str>) -> i64 {
    s.start_call(
        "zerops_deploy",
        json!({"workingDir": work.display().to_string(), "serviceHostname": "api"}),
        progress,
    )
}

fn record_path(work: &Path) -> PathBuf {
    work.join(".fake-zcli.record")
}

/// Waits for the fake zcli to have written its record (argv and environment).
fn wait_record(work: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        // Lossy: a variable that is not UTF-8 reaches the record as it is.
        if let Ok(bytes) = std::fs::read(record_path(work))
            && let text = String::from_utf8_lossy(&bytes).into_owned()
            && text.lines().any(|l| l.starts_with("ENV PATH="))
        {
            return text;
        }
        assert!(Instant::now() < deadline, "zcli was not started");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn args_of(record: &str) -> Vec<String> {
    record
        .lines()
        .filter_map(|l| l.strip_prefix("ARG "))
        .map(str::to_owned)
        .collect()
}

fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    let at = args.iter().position(|a| a == name)?;
    args.get(at + 1).map(String::as_str)
}

/// Waits until none of `pids` runs (a kill is not instant), failing after a bound.
fn assert_all_gone(pids: &[String]) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while pids.iter().any(support::process_alive) {
        assert!(
            Instant::now() < deadline,
            "still running: {:?}",
            pids.iter()
                .filter(|p| support::process_alive(p))
                .collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Pids the record names: the fake itself and its background grandchild.
fn recorded_pids(work: &Path) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = std::fs::read_to_string(record_path(work)).unwrap_or_default();
        let pids: Vec<String> = text
            .lines()
            .filter_map(|l| {
                l.strip_prefix("PID ")
                    .or_else(|| l.strip_prefix("GRANDCHILD "))
            })
            .map(str::to_owned)
            .collect();
        if pids.len() == 2 {
            return pids;
        }
        assert!(Instant::now() < deadline, "no grandchild recorded: {text}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn zcli_gets_every_id_the_token_and_a_clean_environment() {
    let sim = Arc::new(fast_sim());
    let bin = zcli_dir();
    let work = work_dir(
        Some(ZEROPS_YML),
        "stdout=Uploading package\nstderr=Package uploaded\nexit=0\n",
    );
    let mut s = Session::start(&deploy_env(&sim, bin.path()));
    let id = deploy_api(&mut s, work.path(), None);
    // The fake uploads nothing: do what a real `zcli push` makes the platform do.
    wait_record(work.path());
    let version = sim.push(API_ID, None, None, None).unwrap();
    let result = expect_ok(&s.result(id));
    // zcli has exited: its record is complete now (it may not have been a moment ago).
    let record = std::fs::read_to_string(record_path(work.path())).unwrap();
    assert_eq!(result["status"], "DEPLOYED", "{result}");
    assert_eq!(result["appVersionId"], version);
    assert_eq!(result["appVersionStatus"], "ACTIVE");
    assert_eq!(result["exitCode"], 0);
    assert_eq!(result["setup"], "api");
    let tail = result["outputTail"].as_str().unwrap();
    assert!(
        tail.contains("Uploading package") && tail.contains("Package uploaded"),
        "{tail}"
    );

    let args = args_of(&record);
    assert_eq!(args[0], "push", "{args:?}");
    assert_eq!(flag(&args, "--service-id"), Some(API_ID));
    assert_eq!(flag(&args, "--project-id"), Some(DEMO_PROJECT_ID));
    let canonical = work.path().canonicalize().unwrap();
    assert_eq!(
        flag(&args, "--working-dir"),
        Some(canonical.display().to_string().as_str())
    );
    assert_eq!(flag(&args, "--setup"), Some("api"));
    assert!(args.contains(&"--no-git".to_owned()), "no .git: {args:?}");
    // zcli ran in a private directory of its own (no `.zcli.yml` from a shared folder),
    // removed afterwards.
    let pwd = record
        .lines()
        .find_map(|l| l.strip_prefix("PWD "))
        .map(PathBuf::from)
        .unwrap();
    assert!(
        pwd.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("zcp-zcli-"),
        "{pwd:?}"
    );
    assert!(!pwd.exists(), "{pwd:?} is left behind");
    let env: Vec<&str> = record
        .lines()
        .filter_map(|l| l.strip_prefix("ENV "))
        .collect();
    assert!(
        env.contains(&format!("ZEROPS_TOKEN={TOKEN}").as_str()),
        "{env:?}"
    );
    let zerops: Vec<&&str> = env.iter().filter(|e| e.starts_with("ZEROPS_")).collect();
    for var in &zerops {
        let name = var.split('=').next().unwrap();
        assert!(
            [
                "ZEROPS_TOKEN",
                "ZEROPS_CLI_TERMINAL_MODE",
                "ZEROPS_CLI_DATA_FILE_PATH"
            ]
            .contains(&name),
            "zcli got {var}"
        );
    }
    assert!(!record.contains("leaked-flag"));
    assert!(
        !record.contains(&sim.base_url()),
        "ZEROPS_API_HOST must not reach zcli"
    );

    // A git work tree is pushed as one (no --no-git).
    std::fs::create_dir(work.path().join(".git")).unwrap();
    std::fs::remove_file(record_path(work.path())).unwrap();
    let id = s.start_call(
        "zerops_deploy",
        json!({"workingDir": work.path().display().to_string(), "serviceId": API_ID}),
        None,
    );
    let record = wait_record(work.path());
    sim.push(API_ID, None, None, None).unwrap();
    expect_ok(&s.result(id));
    assert!(!args_of(&record).contains(&"--no-git".to_owned()));

    let transcript = s.finish();
    assert!(!transcript.stdout.contains(TOKEN) && !transcript.stderr.contains(TOKEN));
}

/// std's `env::vars` panics on a variable that is not UTF-8: zcp must start (with a token,
/// so authentication reads the environment) and zcli must get the variable as it is.
#[test]
fn a_variable_that_is_not_utf8_neither_stops_zcp_nor_changes_on_the_way_to_zcli() {
    use std::os::unix::ffi::OsStrExt;
    let sim = Arc::new(fast_sim());
    let bin = zcli_dir();
    let work = work_dir(Some(ZEROPS_YML), "exit=0\n");
    let env = deploy_env(&sim, bin.path());
    let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut command = support::command(&pairs);
    command.env("ODD_BYTES", std::ffi::OsStr::from_bytes(b"caf\xe9"));
    let mut s = Session::start_command(&mut command);
    let id = deploy_api(&mut s, work.path(), None);
    let record = wait_record(work.path());
    sim.push(API_ID, None, None, None).unwrap();
    let result = expect_ok(&s.result(id));
    assert_eq!(result["status"], "DEPLOYED", "{result}");
    let raw = std::fs::read(record_path(work.path())).unwrap();
    let needle: &[u8] = b"\nENV ODD_BYTES=caf\xe9\n";
    assert!(raw.windows(needle.len()).any(|w| w == needle), "{record}");
    s.finish();
}

#[test]
fn a_failed_build_attaches_its_log_and_a_failed_push_is_explained() {
    let sim = Arc::new(fast_sim());
    let bin = zcli_dir();
    let work = work_dir(Some(ZEROPS_YML), "exit=0\n");
    let mut s = Session::start(&deploy_env(&sim, bin.path()));
    let id = deploy_api(&mut s, work.path(), None);
    wait_record(work.path());
    sim.push(
        API_ID,
        None,
        None,
        Some("buildCommands failed: npm ERR! missing script".into()),
    )
    .unwrap();
    let failed = expect_error(&s.result(id), "DEPLOY_FAILED");
    assert_eq!(failed["status"], "BUILD_FAILED", "{failed}");
    assert!(failed["appVersionId"].as_str().is_some());
    assert!(failed["buildLog"].is_array(), "{failed}");

    // zcli itself fails and no build starts.
    let work = work_dir(
        Some(ZEROPS_YML),
        "stderr=Error: unauthenticated user\nexit=1\n",
    );
    let failed = expect_error(
        &s.call(
            "zerops_deploy",
            json!({"workingDir": work.path().display().to_string(), "serviceHostname": "api"}),
        ),
        "DEPLOY_FAILED",
    );
    assert_eq!(failed["status"], "PUSH_FAILED", "{failed}");
    assert_eq!(failed["exitCode"], 1);
    assert!(
        failed["outputTail"]
            .as_str()
            .unwrap()
            .contains("unauthenticated")
    );
    assert!(
        failed["suggestion"]
            .as_str()
            .unwrap()
            .contains("ZEROPS_TOKEN"),
        "{failed}"
    );
}

#[test]
fn preflight_refusals_spawn_nothing() {
    let sim = fast_sim();
    let bin = zcli_dir();
    let mut s = Session::start(&deploy_env(&sim, bin.path()));
    let call = |s: &mut Session, work: &Path, extra: Value| {
        let mut args = json!({"workingDir": work.display().to_string(), "serviceHostname": "api"});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        s.call("zerops_deploy", args)
    };

    let empty = work_dir(None, "exit=0\n");
    let err = expect_error(
        &call(&mut s, empty.path(), json!({})),
        "ZEROPS_YML_NOT_FOUND",
    );
    assert!(err["error"].as_str().unwrap().contains("zerops.yml"));

    // Something named zerops.yml that is no regular file is refused as that, not as missing.
    #[cfg(unix)]
    {
        let device = work_dir(None, "exit=0\n");
        std::os::unix::fs::symlink("/dev/null", device.path().join("zerops.yml")).unwrap();
        let result = call(&mut s, device.path(), json!({}));
        assert_ne!(
            error_code(&result).as_deref(),
            Some("ZEROPS_YML_NOT_FOUND"),
            "{result}"
        );
        let text = body(&result)["error"].as_str().unwrap().to_owned();
        assert!(text.contains("not a regular file"), "{text}");
    }

    let other = work_dir(
        Some(
            "zerops:\n  - setup: backend\n    run:\n      base: nodejs@22\n      start: npm start\n  - setup: worker\n    run:\n      base: nodejs@22\n      start: node worker.js\n",
        ),
        "exit=0\n",
    );
    let err = expect_error(&call(&mut s, other.path(), json!({})), "INVALID_ZEROPS_YML");
    let suggestion = err["suggestion"].as_str().unwrap();
    assert!(
        suggestion.contains("backend") && suggestion.contains("worker"),
        "{suggestion}"
    );
    let err = expect_error(
        &call(&mut s, other.path(), json!({"setup": "nope"})),
        "INVALID_ZEROPS_YML",
    );
    assert!(
        err["suggestion"].as_str().unwrap().contains("backend"),
        "{err}"
    );

    let broken = work_dir(
        Some("zerops:\n  - setup: api\n    run: [unclosed\n"),
        "exit=0\n",
    );
    expect_error(
        &call(&mut s, broken.path(), json!({})),
        "INVALID_ZEROPS_YML",
    );

    let missing = expect_error(
        &call(&mut s, Path::new("/no/such/dir/anywhere"), json!({})),
        "FILE_NOT_FOUND",
    );
    assert!(missing["error"].as_str().unwrap().contains("/no/such/dir"));
    let unknown = expect_error(
        &call(&mut s, other.path(), json!({"serviceHostname": "nope"})),
        "SERVICE_NOT_FOUND",
    );
    assert!(unknown["suggestion"].as_str().unwrap().contains("api"));

    // A setup of `api`, so only the service choice can be refused below.
    let api = work_dir(
        Some("zerops:\n  - setup: api\n    run:\n      base: nodejs@22\n      start: npm start\n"),
        "exit=0\n",
    );
    let both = expect_error(
        &call(&mut s, api.path(), json!({"serviceId": WEB_ID})),
        "INVALID_USAGE",
    );
    assert!(both["error"].as_str().unwrap().contains(WEB_ID), "{both}");
    let no_id = json!({"serviceHostname": null, "serviceId": "svcnope0000000000000000"});
    let err = expect_error(&call(&mut s, api.path(), no_id), "SERVICE_NOT_FOUND");
    assert!(
        err["suggestion"]
            .as_str()
            .unwrap()
            .contains("Available services: api"),
        "{err}"
    );
    let bad_id = json!({"serviceHostname": null, "serviceId": "svc/../x"});
    expect_error(&call(&mut s, api.path(), bad_id), "INVALID_PARAMETER");
    // A database or a bucket takes no code, whatever setup is named.
    for hostname in ["db", "storage"] {
        let err = expect_error(
            &call(
                &mut s,
                api.path(),
                json!({"serviceHostname": hostname, "setup": "api"}),
            ),
            "INVALID_USAGE",
        );
        assert!(
            err["error"]
                .as_str()
                .unwrap()
                .contains("only runtime services"),
            "{err}"
        );
        assert!(
            err["suggestion"].as_str().unwrap().contains("api, web"),
            "{err}"
        );
    }

    for dir in [empty.path(), other.path(), broken.path(), api.path()] {
        assert!(!record_path(dir).exists(), "zcli was started for {dir:?}");
    }
    assert!(
        !sim.requests()
            .iter()
            .any(|r| r.contains("app-version") && !r.ends_with("/search")),
        "{:?}",
        sim.requests()
    );
}

#[test]
fn a_missing_zcli_is_reported_with_the_install_command() {
    let sim = fast_sim();
    let empty_bin = tempfile::tempdir().unwrap();
    let mut env = sim_env(&sim);
    // Only the tools the system needs; no zcli anywhere (HOME points nowhere).
    env.push((
        "PATH".into(),
        format!("{}:/usr/bin:/bin", empty_bin.path().display()),
    ));
    let mut s = Session::start(&env);
    let work = work_dir(Some(ZEROPS_YML), "exit=0\n");
    let err = expect_error(
        &s.call(
            "zerops_deploy",
            json!({"workingDir": work.path().display().to_string(), "serviceHostname": "api"}),
        ),
        "ZCLI_NOT_FOUND",
    );
    let suggestion = err["suggestion"].as_str().unwrap();
    assert!(
        suggestion.contains("npm") || suggestion.contains("install"),
        "{suggestion}"
    );
}

/// What a fake zcli that ignores SIGTERM, starts a grandchild and would run for a minute
/// needs to stay alive, with the deploy call already running against it.
struct StubbornDeploy {
    s: Session,
    /// Id of the running `zerops_deploy` call.
    id: i64,
    /// The fake zcli's pid and its grandchild's.
    pids: Vec<String>,
    _sim: SimHandle,
    _bin: tempfile::TempDir,
    _work: tempfile::TempDir,
}

/// Starts a `zerops_deploy` of service `api` with a stubborn fake zcli and waits until
/// both of its processes have recorded their pids.
fn stubborn_deploy(progress: Option<&str>) -> StubbornDeploy {
    let sim = fast_sim();
    let bin = zcli_dir();
    let work = work_dir(Some(ZEROPS_YML), "ignore_term=1\ngrandchild=1\nsleep=60\n");
    let mut s = Session::start(&deploy_env(&sim, bin.path()));
    let id = deploy_api(&mut s, work.path(), progress);
    let pids = recorded_pids(work.path());
    StubbornDeploy {
        s,
        id,
        pids,
        _sim: sim,
        _bin: bin,
        _work: work,
    }
}

#[test]
fn cancel_kills_a_zcli_that_ignores_sigterm_and_its_children() {
    // Bound whole, so the simulator and the directories live to the end of the test.
    let deploy = stubborn_deploy(Some("deploy-1"));
    let StubbornDeploy {
        mut s, id, pids, ..
    } = deploy;
    assert!(pids.iter().all(support::process_alive), "{pids:?}");
    s.wait_progress("deploy-1");
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId": id}}));
    assert_all_gone(&pids);
    // The server goes on serving.
    s.assert_alive();
    let transcript = s.finish();
    assert!(
        !transcript.stderr.contains("panicked"),
        "{}",
        transcript.stderr
    );
}

#[test]
fn eof_during_a_deploy_leaves_no_orphan() {
    let deploy = stubborn_deploy(None);
    let StubbornDeploy { s, pids, .. } = deploy;
    let closed = Instant::now();
    s.finish();
    assert!(closed.elapsed() < Duration::from_secs(10));
    assert_all_gone(&pids);
}

/// The timeout path of `ops::deploy` (the tool's own minimum of 30 s is too slow for a
/// test), with a child that ignores SIGTERM.
#[test]
fn a_deploy_timeout_kills_the_whole_group() {
    use zcp::auth::Os;
    use zcp::auth::{self, Authenticator, CredentialSource, Credentials};
    use zcp::cancel::CancelToken;
    use zcp::ops::deploy::{DeployRequest, Pusher, deploy};
    use zcp::ops::follow::Follow;
    use zcp::ops::progress::PollConfig;
    use zcp::ops::zcli::ZcliSearch;

    let sim = fast_sim();
    let bin = zcli_dir();
    let work = work_dir(Some(ZEROPS_YML), "ignore_term=1\ngrandchild=1\nsleep=60\n");
    let auth = Authenticator::with_credentials(
        Credentials {
            token: TOKEN.into(),
            api_host: sim.base_url(),
            scope_project_id: None,
            source: CredentialSource::Direct,
        },
        auth::http_factory(),
    );
    let session = auth.session().unwrap();
    let cancel = CancelToken::new();
    let mut follow = Follow::new(PollConfig::default(), &cancel, None);
    let request = DeployRequest {
        working_dir: work.path().display().to_string(),
        service_hostname: Some("api".into()),
        timeout: Some(Duration::from_secs(1)),
        ..DeployRequest::default()
    };
    let started = Instant::now();
    let pusher = Pusher::Zcli(ZcliSearch {
        os: Os::Linux,
        path_var: Some(format!("{}:{}", bin.path().display(), system_path()).into()),
        home: None,
        appdata: None,
        zcli_install: None,
    });
    let err = deploy(&session, &request, &pusher, &mut follow).unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(err.code.as_str(), "DEPLOY_FAILED", "{err:?}");
    assert_eq!(
        err.api_meta.as_ref().unwrap()["status"],
        "TIMED_OUT",
        "{err:?}"
    );
    assert!(err.suggestion.contains("timeoutSeconds"), "{err:?}");
    assert_all_gone(&recorded_pids(work.path()));
}

// ---------------------------------------------------------------------------------------
// `zcp --demo`: deploys run against the built-in simulator.

fn demo_env() -> Vec<(String, String)> {
    vec![
        ("ZCP_POLL_FAST_MS".into(), "100".into()),
        ("ZCP_POLL_BUDGET_MS".into(), "30000".into()),
    ]
}

/// A demo deploy of `yml` to `hostname` that must answer without an error: its answer.
fn demo_deploy(s: &mut Session, yml: &str, hostname: &str) -> Value {
    let work = work_dir(Some(yml), "");
    expect_ok(&s.call(
        "zerops_deploy",
        json!({"workingDir": work.path().display().to_string(), "serviceHostname": hostname}),
    ))
}

#[test]
fn demo_deploys_become_active() {
    let mut s = Session::start_with(&demo_env(), &["--demo"]);
    let result = demo_deploy(&mut s, ZEROPS_YML, "api");
    assert_eq!(result["status"], "DEPLOYED", "{result}");
    assert_eq!(result["appVersionStatus"], "ACTIVE");
    assert_eq!(result["exitCode"], Value::Null, "{result}");
    let version = result["appVersionId"].as_str().unwrap().to_owned();
    let events = expect_ok(&s.call(
        "zerops_events",
        json!({"serviceHostname": "api", "limit": 5}),
    ));
    assert!(
        events["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["appVersionId"] == version.as_str() && e["status"] == "ACTIVE"),
        "{events}"
    );
}

/// A directory without a `.git` of its own goes up whole (`--no-git`): installed
/// dependencies in it get a warning, unless a .git is there or a .deployignore names them.
#[test]
fn a_deploy_warns_when_installed_dependencies_would_be_uploaded() {
    // zcli fails at once: the answer, with its warnings, comes without a build to wait for.
    let sim = fast_sim();
    let bin = zcli_dir();
    let mut s = Session::start(&deploy_env(&sim, bin.path()));
    let work = work_dir(Some(ZEROPS_YML), "exit=1\n");
    let deploy = |s: &mut Session| {
        let result = expect_error(
            &s.call(
                "zerops_deploy",
                json!({"workingDir": work.path().display().to_string(), "serviceHostname": "api"}),
            ),
            "DEPLOY_FAILED",
        );
        assert_eq!(result["status"], "PUSH_FAILED", "{result}");
        result["warnings"].to_string()
    };
    assert!(!deploy(&mut s).contains("node_modules"));
    std::fs::create_dir(work.path().join("node_modules")).unwrap();
    let warned = deploy(&mut s);
    assert!(
        warned.contains("no .git of its own") && warned.contains(".gitignore lists node_modules"),
        "{warned}"
    );
    // A .deployignore that does not name it changes nothing; one that does is a choice.
    std::fs::write(work.path().join(".deployignore"), "*.log\n").unwrap();
    assert!(deploy(&mut s).contains("node_modules"));
    std::fs::write(work.path().join(".deployignore"), "node_modules\n").unwrap();
    assert!(!deploy(&mut s).contains("node_modules"));
    std::fs::remove_file(work.path().join(".deployignore")).unwrap();
    std::fs::create_dir(work.path().join("vendor")).unwrap();
    std::fs::remove_dir(work.path().join("node_modules")).unwrap();
    assert!(deploy(&mut s).contains("vendor/ included"));
    std::fs::create_dir(work.path().join(".git")).unwrap();
    assert!(!deploy(&mut s).contains("vendor"));
}

#[test]
fn demo_deploys_give_the_service_the_ports_of_its_setup() {
    let mut s = Session::start_with(&demo_env(), &["--demo"]);
    let yml = ZEROPS_YML.replace(
        "        - port: 3000\n          httpSupport: true\n",
        "        - port: 8080\n          httpSupport: true\n        - port: 9090\n          protocol: udp\n",
    );
    assert_ne!(yml, ZEROPS_YML);
    let result = demo_deploy(&mut s, &yml, "api");
    assert_eq!(result["status"], "DEPLOYED", "{result}");
    let found = expect_ok(&s.call("zerops_discover", json!({"serviceHostname": "api"})));
    assert_eq!(
        found["services"][0]["ports"],
        json!([
            {"port": 8080, "protocol": "TCP", "httpSupport": true, "public": true},
            {"port": 9090, "protocol": "UDP", "httpSupport": false, "public": false},
        ]),
        "{found}"
    );
}

/// zerops.yml variables get the checks zerops_env makes, before the deploy: a reference
/// to a service the project lacks or to a near-miss key, and a key the service already
/// has as a secret (the zerops.yml value would silently take its place).
#[test]
fn a_deploy_warns_about_its_zerops_yml_variables() {
    let mut s = Session::start_with(&demo_env(), &["--demo"]);
    let yml = format!(
        "{ZEROPS_YML}      envVariables:\n        NODE_ENV: staging\n        DB: ${{db_hostnme}}\n        R: ${{nosuch_url}}\n        OK: ${{db_hostname}}\n"
    );
    let result = demo_deploy(&mut s, &yml, "api");
    let warnings: Vec<&str> = result["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|w| w.starts_with("zerops.yml run.envVariables: "))
        .collect();
    assert_eq!(warnings.len(), 3, "{result}");
    assert!(
        warnings[0].contains("NODE_ENV is also set on 'api' as a service variable"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("did you mean 'hostname'"),
        "{warnings:?}"
    );
    assert!(warnings[2].contains("no service 'nosuch'"), "{warnings:?}");
}

/// The deploy's checks list the project's services once: the list that found the service
/// also serves the reference checks of its zerops.yml variables.
#[test]
fn a_deploy_with_references_lists_the_services_once() {
    let sim = Arc::new(fast_sim());
    let bin = zcli_dir();
    let yml = format!("{ZEROPS_YML}      envVariables:\n        DB: ${{db_hostnme}}\n");
    let work = work_dir(Some(&yml), "exit=0\n");
    let mut s = Session::start(&deploy_env(&sim, bin.path()));
    let listings = || {
        sim.requests()
            .iter()
            .filter(|r| r.as_str() == "POST /service-stack/search")
            .count()
    };
    let before = listings();
    let id = deploy_api(&mut s, work.path(), None);
    wait_record(work.path());
    sim.push(API_ID, None, None, None).unwrap();
    let result = expect_ok(&s.result(id));
    assert!(
        result["warnings"]
            .to_string()
            .contains("did you mean 'hostname'"),
        "{result}"
    );
    assert_eq!(listings(), before + 1, "{:?}", sim.requests());
}

/// A static site's setup declares no port: its web server serves port 80 all the same,
/// so after the deploy the service keeps an HTTP port and can take a subdomain.
#[test]
fn demo_static_deploys_keep_their_web_server_port() {
    let mut s = Session::start_with(&demo_env(), &["--demo"]);
    let yml = "zerops:\n  - setup: web\n    build:\n      base: nodejs@22\n      buildCommands:\n        - npm run build\n      deployFiles: dist/~\n    run:\n      base: static\n";
    let deployed = demo_deploy(&mut s, yml, "web");
    assert_eq!(deployed["status"], "DEPLOYED", "{deployed}");
    let found = expect_ok(&s.call("zerops_discover", json!({"serviceHostname": "web"})));
    assert_eq!(found["services"][0]["ports"][0]["port"], 80, "{found}");
    expect_ok(&s.call(
        "zerops_subdomain",
        json!({"action": "disable", "serviceHostname": "web"}),
    ));
    let enabled = expect_ok(&s.call(
        "zerops_subdomain",
        json!({"action": "enable", "serviceHostname": "web"}),
    ));
    assert_eq!(enabled["status"], "enabled", "{enabled}");
}

/// Imports a Node.js runtime `hostname` whose import asks for its subdomain.
fn import_asking_for_a_subdomain(s: &mut Session, hostname: &str) {
    let yml = format!(
        "services:\n  - hostname: {hostname}\n    type: nodejs@22\n    enableSubdomainAccess: true\n"
    );
    expect_ok(&s.call("zerops_import", json!({ "content": yml })));
}

/// The import's enableSubdomainAccess comes with the first active version or not at all:
/// a first version without an HTTP port uses it up.
#[test]
fn demo_subdomain_requests_end_with_the_first_deploy() {
    let mut s = Session::start_with(&demo_env(), &["--demo"]);
    import_asking_for_a_subdomain(&mut s, "wk");
    let web = ZEROPS_YML.replace("setup: api", "setup: wk");
    let worker = web.replace(
        "      ports:\n        - port: 3000\n          httpSupport: true\n",
        "",
    );
    assert_ne!(worker, web);
    for yml in [worker, web] {
        let deployed = demo_deploy(&mut s, &yml, "wk");
        assert_eq!(deployed["status"], "DEPLOYED", "{deployed}");
    }
    let found = expect_ok(&s.call("zerops_discover", json!({"serviceHostname": "wk"})));
    assert_eq!(
        found["services"][0]["subdomain"]["enabled"], false,
        "{found}"
    );
}

/// As on the platform, an imported runtime knows its hostname, its first deploy gives it
/// its subdomain address (`zeropsSubdomain`), and the import's `enableSubdomainAccess`
/// turns the subdomain on with that deploy.
#[test]
fn demo_first_deploys_publish_what_the_import_asked_for() {
    let mut s = Session::start_with(&demo_env(), &["--demo"]);
    import_asking_for_a_subdomain(&mut s, "nodeapp");
    let yml = ZEROPS_YML.replace("setup: api", "setup: nodeapp");
    let deployed = demo_deploy(&mut s, &yml, "nodeapp");
    assert_eq!(deployed["status"], "DEPLOYED", "{deployed}");
    // The answer knows it too: the URL, not the advice to enable the subdomain.
    assert_eq!(
        deployed["url"], "https://nodeapp-1df2-3000.prg1.zerops.app",
        "{deployed}"
    );
    let found = expect_ok(&s.call("zerops_discover", json!({"serviceHostname": "nodeapp"})));
    assert_eq!(
        found["services"][0]["subdomain"]["enabled"], true,
        "{found}"
    );
    let env = expect_ok(&s.call(
        "zerops_env",
        json!({"action": "get", "serviceHostname": "nodeapp"}),
    ));
    let text = env.to_string();
    assert!(
        text.contains("\"hostname\"") && text.contains("https://nodeapp-1df2-3000.prg1.zerops.app"),
        "{env}"
    );
}

#[test]
fn demo_deploys_fail_their_build_on_request() {
    let mut s = Session::start_with(&demo_env(), &["--demo"]);
    let work = work_dir(Some(ZEROPS_YML), "");
    std::fs::write(work.path().join(".zcp-demo-fail-build"), "").unwrap();
    let result = s.call(
        "zerops_deploy",
        json!({"workingDir": work.path().display().to_string(), "serviceHostname": "api"}),
    );
    assert_eq!(
        error_code(&result).as_deref(),
        Some("DEPLOY_FAILED"),
        "{result}"
    );
    let failed = body(&result);
    assert_eq!(failed["status"], "BUILD_FAILED", "{failed}");
    assert!(failed["appVersionId"].as_str().is_some());
    // No zcli ran, so no exit code (a 0 beside a failed build read as zcli's success).
    assert_eq!(failed["exitCode"], Value::Null, "{failed}");
}

#[test]
fn a_deploy_reports_progress_and_scrubs_the_token_from_zcli_output() {
    // A build that outlasts zcli by far, so the follow after it reports progress too even
    // when a loaded machine slows the fake zcli down.
    let sim = Arc::new(session::start_sim(zcp::sim::SimConfig {
        process_duration: Duration::from_millis(150),
        build_duration: Duration::from_millis(6000),
        ..zcp::sim::SimConfig::default()
    }));
    let bin = zcli_dir();
    // zcli echoes the token (as a debug print might): it must not reach the agent.
    let work = work_dir(
        Some(ZEROPS_YML),
        &format!("stdout=using token {TOKEN}\nsleep=2\nexit=0\n"),
    );
    let mut env = deploy_env(&sim, bin.path());
    env.push(("ZCP_LOG_LEVEL".into(), "debug".into()));
    env.retain(|(k, _)| k != "ZCP_POLL_FAST_MS");
    env.push(("ZCP_POLL_FAST_MS".into(), "200".into()));
    let mut s = Session::start(&env);
    // The client listens to log messages: zcli's output comes as it is printed.
    s.request("logging/setLevel", json!({"level": "info"}));
    let id = deploy_api(&mut s, work.path(), Some("deploy-progress"));
    wait_record(work.path());
    sim.push(API_ID, None, None, None).unwrap();
    let answer = s.wait_for(id);
    std::thread::sleep(Duration::from_millis(600));
    let result = expect_ok(&s.result(id));
    assert_eq!(result["status"], "DEPLOYED", "{result}");
    assert!(
        result["outputTail"]
            .as_str()
            .unwrap()
            .contains("using token")
    );
    let progress = s.progress("deploy-progress");
    assert!(progress.len() >= 3, "{progress:?}");
    let messages: Vec<&str> = progress
        .iter()
        .map(|l| l.value["params"]["message"].as_str().unwrap())
        .collect();
    assert!(messages.iter().any(|m| m.contains("zcli")), "{messages:?}");
    assert!(messages.iter().any(|m| m.contains("build")), "{messages:?}");
    let values: Vec<f64> = progress
        .iter()
        .map(|l| l.value["params"]["progress"].as_f64().unwrap())
        .collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
    let last = progress.last().unwrap();
    assert!(last.at < answer.at, "progress after the answer");
    let quiet = answer.at.duration_since(last.at);
    assert!(
        quiet >= Duration::from_millis(100),
        "only {quiet:?} of quiet"
    );
    let logged: Vec<Value> = s
        .lines()
        .into_iter()
        .filter(|l| l.value["method"] == "notifications/message")
        .map(|l| l.value["params"].clone())
        .collect();
    assert!(
        logged.iter().any(|p| p["logger"] == "zcli"
            && p["level"] == "info"
            && p["data"]
                .as_str()
                .is_some_and(|d| d.starts_with("using token"))),
        "{logged:?}"
    );
    let transcript = s.finish();
    assert!(
        !transcript.stdout.contains(TOKEN),
        "the token reached stdout"
    );
    assert!(
        !transcript.stderr.contains(TOKEN),
        "the token reached stderr"
    );
}

/// A build canceled while the deploy follows it (by zerops_process here) is a failed
/// deploy that says it was canceled, and the version that was active stays so.
#[test]
fn a_canceled_build_is_reported_as_a_canceled_deploy() {
    let sim = Arc::new(session::start_sim(zcp::sim::SimConfig {
        process_duration: Duration::from_millis(150),
        build_duration: Duration::from_secs(20),
        ..zcp::sim::SimConfig::default()
    }));
    let bin = zcli_dir();
    let work = work_dir(Some(ZEROPS_YML), "exit=0\n");
    let mut s = Session::start(&deploy_env(&sim, bin.path()));
    let id = deploy_api(&mut s, work.path(), None);
    wait_record(work.path());
    sim.push(API_ID, None, None, None).unwrap();
    let build = sim.with_state(|st| {
        st.processes
            .iter()
            .rev()
            .find(|p| p.action == "stack.build")
            .map(|p| p.id.clone())
            .unwrap()
    });
    expect_ok(&s.call(
        "zerops_process",
        json!({"action": "cancel", "processId": build}),
    ));
    let answer = s.result(id);
    let err = expect_error(&answer, "DEPLOY_FAILED");
    assert!(
        err["error"].as_str().unwrap().contains("was canceled"),
        "{err}"
    );
    assert!(
        err["suggestion"].as_str().unwrap().contains("stays active"),
        "{err}"
    );
}

/// zcli waits for the whole pipeline, longer than many clients wait for an answer. Without
/// a progress token the deploy stops zcli once the budget is spent and its build runs,
/// and answers with the build still running; with a token it waits for zcli to end.
#[test]
fn without_a_progress_token_a_long_push_is_left_to_the_platform_once_its_build_runs() {
    let sim = Arc::new(session::start_sim(zcp::sim::SimConfig {
        process_duration: Duration::from_millis(150),
        build_duration: Duration::from_secs(30),
        ..zcp::sim::SimConfig::default()
    }));
    let bin = zcli_dir();
    let work = work_dir(Some(ZEROPS_YML), "grandchild=1\nsleep=60\n");
    let env = deploy_env_with_budget(&sim, bin.path(), 6000);
    let mut s = Session::start(&env);
    let started = Instant::now();
    let id = deploy_api(&mut s, work.path(), None);
    let pids = recorded_pids(work.path());
    let set_start = |version: &str, start: Option<Instant>| {
        sim.with_state(|st| {
            for v in st.app_versions.iter_mut().filter(|v| v.id == version) {
                v.pipeline_started = start;
            }
        });
    };
    let building = || Some(Instant::now() - Duration::from_secs(10));
    let until = |at: u64| {
        let at = started + Duration::from_secs(at);
        std::thread::sleep(at.saturating_duration_since(Instant::now()));
    };
    // The push's build runs, but the 6 s budget has not passed: zcli is left alone.
    let ours = sim.push(API_ID, None, None, None).unwrap();
    set_start(&ours, building());
    until(3);
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "too slow to tell"
    );
    assert!(pids.iter().all(support::process_alive), "{pids:?}");
    // Past the budget, the push's version is (back to) uploading while another push to
    // the same service builds: zcli is still left alone (that build is not ours).
    set_start(&ours, None);
    let other = sim.push(API_ID, None, None, None).unwrap();
    set_start(&other, building());
    until(9);
    assert!(pids.iter().all(support::process_alive), "{pids:?}");
    // Once the push's own build runs, zcli is stopped and the answer names that build.
    let version_searches = || {
        sim.requests()
            .iter()
            .filter(|r| r.contains("app-version") && r.ends_with("/search"))
            .count()
    };
    let searched = version_searches();
    set_start(&ours, building());
    let result = expect_ok(&s.result(id));
    assert_eq!(result["appVersionId"], ours.as_str(), "{result}");
    // The answer is the build that look saw: no look after the stop, which could only
    // repeat it or fail on a passing API error while the build runs.
    assert_eq!(version_searches(), searched + 1, "{:?}", sim.requests());
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "zcli sleeps 60 s"
    );
    assert_eq!(result["status"], "BUILDING", "{result}");
    assert_eq!(result["stillRunning"], true, "{result}");
    assert!(
        result["hint"]
            .as_str()
            .unwrap()
            .contains("zcli was stopped once the build had started"),
        "{result}"
    );
    assert_all_gone(&pids);

    // With a progress token zcli is waited for, past the same budget.
    let sim = Arc::new(session::start_sim(zcp::sim::SimConfig {
        process_duration: Duration::from_millis(150),
        build_duration: Duration::from_millis(500),
        ..zcp::sim::SimConfig::default()
    }));
    // The fake counts whole seconds of its shell: `sleep=5` lasts more than 4 s.
    let work = work_dir(Some(ZEROPS_YML), "sleep=5\nexit=0\n");
    let env = deploy_env_with_budget(&sim, bin.path(), 1500);
    let mut s = Session::start(&env);
    let started = Instant::now();
    let id = deploy_api(&mut s, work.path(), Some("deploy-token"));
    wait_record(work.path());
    sim.push(API_ID, None, None, None).unwrap();
    let result = expect_ok(&s.result(id));
    assert_eq!(result["status"], "DEPLOYED", "{result}");
    assert!(
        started.elapsed() >= Duration::from_secs(4),
        "zcli was cut short"
    );
}

/// A push stopped at the budget whose build had already ended when the stopping look saw
/// it (a fast build, zcli slow to notice) is answered as it ended, not as still running.
#[test]
fn a_stopped_push_whose_build_already_ended_is_answered_as_it_ended() {
    for failure in [Some("buildCommands failed".to_owned()), None] {
        let sim = Arc::new(session::start_sim(zcp::sim::SimConfig {
            process_duration: Duration::from_millis(150),
            build_duration: Duration::from_secs(30),
            ..zcp::sim::SimConfig::default()
        }));
        let bin = zcli_dir();
        let work = work_dir(Some(ZEROPS_YML), "grandchild=1\nsleep=60\n");
        let env = deploy_env_with_budget(&sim, bin.path(), 3000);
        let mut s = Session::start(&env);
        let started = Instant::now();
        let id = deploy_api(&mut s, work.path(), None);
        let pids = recorded_pids(work.path());
        let ours = sim.push(API_ID, None, None, failure.clone()).unwrap();
        sim.with_state(|st| {
            for v in st.app_versions.iter_mut().filter(|v| v.id == ours) {
                v.pipeline_started = Some(Instant::now() - Duration::from_secs(120));
            }
        });
        let answer = s.result(id);
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "zcli sleeps 60 s"
        );
        if failure.is_some() {
            let failed = expect_error(&answer, "DEPLOY_FAILED");
            assert_eq!(failed["status"], "BUILD_FAILED", "{failed}");
        } else {
            let done = expect_ok(&answer);
            assert_eq!(done["status"], "DEPLOYED", "{done}");
            assert!(done.get("stillRunning").is_none(), "{done}");
        }
        assert_all_gone(&pids);
    }
}

#[test]
fn a_push_without_a_new_build_is_reported_as_such() {
    let sim = fast_sim();
    let bin = zcli_dir();
    let work = work_dir(Some(ZEROPS_YML), "exit=0\n");
    let env = deploy_env_with_budget(&sim, bin.path(), 600);
    let mut s = Session::start(&env);
    let failed = expect_error(
        &s.call(
            "zerops_deploy",
            json!({"workingDir": work.path().display().to_string(), "serviceHostname": "api"}),
        ),
        "DEPLOY_FAILED",
    );
    assert_eq!(failed["status"], "BUILD_NOT_FOUND", "{failed}");
    assert!(failed["error"].as_str().unwrap().contains("exit code 0"));
    assert!(
        failed["suggestion"]
            .as_str()
            .unwrap()
            .contains("zerops_events")
    );
}

/// A deploy to a service whose subdomain is on answers with its URL instead of advice to
/// enable it; with the subdomain off, the advice stays.
#[test]
fn a_deploy_to_a_public_service_gives_its_url() {
    let sim = Arc::new(fast_sim());
    let bin = zcli_dir();
    let mut s = Session::start(&deploy_env(&sim, bin.path()));
    let deploy = |s: &mut Session| {
        let work = work_dir(Some(ZEROPS_YML), "exit=0\n");
        let id = deploy_api(s, work.path(), None);
        wait_record(work.path());
        sim.push(API_ID, None, None, None).unwrap();
        let result = expect_ok(&s.result(id));
        assert_eq!(result["status"], "DEPLOYED", "{result}");
        result
    };
    let public = deploy(&mut s);
    let found = expect_ok(&s.call("zerops_discover", json!({"serviceHostname": "api"})));
    let url = &found["services"][0]["subdomain"]["url"];
    assert!(url.is_string(), "{found}");
    assert_eq!(&public["url"], url, "{public}");
    let next = public["nextAction"].as_str().unwrap();
    assert!(
        next.contains("in url") && !next.contains("enable"),
        "{next}"
    );

    sim.with_state(|st| {
        let api = st.services.iter_mut().find(|x| x.id == API_ID).unwrap();
        api.subdomain_access = false;
    });
    let private = deploy(&mut s);
    assert!(private.get("url").is_none(), "{private}");
    let next = private["nextAction"].as_str().unwrap();
    assert!(next.contains("zerops_subdomain enable"), "{next}");
}

/// The app-version search returns every project's versions (the scoped-token bug): a busy
/// neighbour must not hide the new version from the follow.
#[test]
fn the_new_version_is_found_behind_other_projects_deploys() {
    let sim = Arc::new(fast_sim());
    sim.set_search_leak(true);
    let bin = zcli_dir();
    let work = work_dir(Some(ZEROPS_YML), "sleep=1\nexit=0\n");
    let env = deploy_env_with_budget(&sim, bin.path(), 3000);
    let mut s = Session::start(&env);
    let id = deploy_api(&mut s, work.path(), None);
    wait_record(work.path());
    let ours = sim.push(API_ID, None, None, None).unwrap();
    for _ in 0..30 {
        sim.push(zcp::sim::demo::OTHER_ID, None, None, None)
            .unwrap();
    }
    let result = expect_ok(&s.result(id));
    assert_eq!(result["status"], "DEPLOYED", "{result}");
    assert_eq!(result["appVersionId"], ours);
    assert!(!result.to_string().contains(zcp::sim::demo::OTHER_ID));
}

#[test]
fn sigterm_during_a_deploy_leaves_no_orphan() {
    let deploy = stubborn_deploy(None);
    let StubbornDeploy { s, pids, .. } = deploy;
    let status = std::process::Command::new("kill")
        .args(["-TERM", &s.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let zcp = s.pid().to_string();
    assert_all_gone(&[zcp]);
    assert_all_gone(&pids);
}
