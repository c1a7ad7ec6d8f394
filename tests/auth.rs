//! Authentication end to end: credentials from an injected environment (variables and a
//! temporary home holding zcli's `cli.data`), the real HTTP client, the loopback simulator,
//! and the lazy `Authenticator`. Then the `zcp` binary itself, run against the simulator
//! with a sentinel token, must never print that token on stdout or stderr, even at debug
//! level and when the token is refused.

// PlatformError is deliberately rich (API code, meta, status); the crate allows the
// lint for the same reason.
#![allow(clippy::result_large_err)]

mod support;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use zcp::auth::{self, Authenticator, CredentialSource, EnvSource, Os};
use zcp::platform::{ErrorCode, PlatformError};
use zcp::sim::demo::{self, DEMO_PROJECT_ID, OTHER_PROJECT_ID};
use zcp::sim::{self, Fault, SimConfig, SimHandle, TokenScope};

use support::Step;

/// Sees only the demo project.
const SCOPED: &str = "sentinel-scoped-token-5d2a";
/// Sees both projects of the account.
const ACCOUNT: &str = "sentinel-account-token-91bf";
/// Sees no project.
const EMPTY: &str = "sentinel-empty-token-0c44";
const SENTINELS: [&str; 3] = [SCOPED, ACCOUNT, EMPTY];

fn start() -> SimHandle {
    let mut seed = demo::seed();
    seed.tokens.push((
        SCOPED.into(),
        TokenScope::Projects(vec![DEMO_PROJECT_ID.into()]),
    ));
    seed.tokens.push((ACCOUNT.into(), TokenScope::All));
    seed.tokens
        .push((EMPTY.into(), TokenScope::Projects(Vec::new())));
    sim::start(SimConfig::default(), seed).unwrap()
}

fn env(vars: &[(&str, &str)], home: &Path, os: Os) -> EnvSource {
    EnvSource {
        vars: vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect::<HashMap<_, _>>(),
        home: Some(home.to_owned()),
        temp_dir: home.join("tmp"),
        os,
    }
}

fn write_cli_data(path: &Path, token: &str, address: &str, scope: Option<&str>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let data = json!({
        "Token": token,
        "RegionData": {"name": "prg1", "isDefault": true, "address": address, "guiAddress": null},
        "ScopeProjectId": scope,
        "ProjectVpnKeyRegistry": null
    });
    std::fs::write(path, format!("{data}\n")).unwrap();
}

fn no_sentinel(text: &str) {
    for sentinel in SENTINELS {
        assert!(!text.contains(sentinel), "a token leaked: {text}");
    }
}

/// Authenticates the way the binary does (resolve from the environment, HTTP client).
fn authenticate(env: EnvSource) -> Result<Arc<auth::Session>, PlatformError> {
    let auth = Authenticator::new(env, auth::http_factory());
    let result = auth.session();
    no_sentinel(&format!("{result:?}"));
    result
}

#[test]
fn environment_tokens_against_the_simulator() {
    let sim = start();
    let home = tempfile::tempdir().unwrap();
    let url = sim.base_url();
    let session = authenticate(env(
        &[("ZEROPS_TOKEN", SCOPED), ("ZEROPS_API_HOST", &url)],
        home.path(),
        Os::Linux,
    ))
    .unwrap();
    assert_eq!(session.info.project_id, DEMO_PROJECT_ID);
    assert_eq!(session.info.project_name, "demo");
    assert_eq!(session.info.client_id, demo::DEMO_CLIENT_ID);
    assert_eq!(
        session.info.source,
        CredentialSource::Env("ZEROPS_TOKEN".into())
    );
    assert_eq!(session.info.api_host, url);
    assert_eq!(session.info.token, SCOPED, "the token is kept for zcli");
    // The session's client works on the project it found.
    assert!(
        session
            .client
            .get_service(demo::API_ID)
            .is_ok_and(|s| s.name == "api")
    );

    // The names the Go server and the docs use work too; ZEROPS_* win when both are set.
    let session = authenticate(env(
        &[("ZCP_API_KEY", SCOPED), ("ZCP_API_HOST", &url)],
        home.path(),
        Os::Linux,
    ))
    .unwrap();
    assert_eq!(
        session.info.source,
        CredentialSource::Env("ZCP_API_KEY".into())
    );
    let err = authenticate(env(
        &[
            ("ZEROPS_TOKEN", EMPTY),
            ("ZCP_API_KEY", SCOPED),
            ("ZEROPS_API_HOST", &url),
            ("ZCP_API_HOST", "http://127.0.0.1:9"),
        ],
        home.path(),
        Os::Linux,
    ))
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::TokenNoProject, "ZEROPS_TOKEN won");

    // An account-wide token sees two projects.
    let err = authenticate(env(
        &[("ZEROPS_TOKEN", ACCOUNT), ("ZEROPS_API_HOST", &url)],
        home.path(),
        Os::Linux,
    ))
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::TokenMultiProject);
    assert!(err.message.contains("2 projects"), "{}", err.message);
    assert!(err.suggestion.contains("zcli scope project"));

    // Unknown and expired tokens.
    let err = authenticate(env(
        &[
            ("ZEROPS_TOKEN", "sentinel-unknown"),
            ("ZEROPS_API_HOST", &url),
        ],
        home.path(),
        Os::Linux,
    ))
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::AuthInvalidToken);
    assert!(!format!("{err:?}").contains("sentinel-unknown"));
    let err = authenticate(env(
        &[
            ("ZEROPS_TOKEN", demo::EXPIRED_TOKEN),
            ("ZEROPS_API_HOST", &url),
        ],
        home.path(),
        Os::Linux,
    ))
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::AuthTokenExpired);
}

#[test]
fn every_cli_data_location_against_the_simulator() {
    let sim = start();
    let url = sim.base_url();
    // (os, extra variables with ABS for the temp root, where the file goes)
    type Case<'a> = (Os, Vec<(&'a str, &'a str)>, &'a str);
    let cases: Vec<Case<'_>> = vec![
        (
            Os::Linux,
            vec![("ZEROPS_CLI_DATA_FILE_PATH", "ABS/elsewhere/login.json")],
            "elsewhere/login.json",
        ),
        (Os::Linux, vec![], ".config/zerops/cli.data"),
        (
            Os::Linux,
            vec![("XDG_CONFIG_HOME", "ABS/xdg")],
            "xdg/zerops/cli.data",
        ),
        (Os::Linux, vec![], "zerops/cli.data"),
        (Os::Linux, vec![], "zerops.cli.data"),
        (Os::Linux, vec![], "tmp/zerops.cli.data"),
        (
            Os::MacOs,
            vec![],
            "Library/Application Support/zerops/cli.data",
        ),
        (Os::MacOs, vec![], "zerops/cli.data"),
        (
            Os::Windows,
            vec![("APPDATA", "ABS/Roaming")],
            "Roaming/Zerops/cli.data",
        ),
        (
            Os::Windows,
            vec![("USERPROFILE", "ABS/profile")],
            "profile/Zerops/cli.data",
        ),
        (
            Os::Windows,
            vec![("USERPROFILE", "ABS/profile")],
            "profile/zerops.cli.data",
        ),
    ];
    for (os, vars, relative) in cases {
        let home = tempfile::tempdir().unwrap();
        let root = home.path().display().to_string();
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.replace("ABS", &root)))
            .collect();
        let refs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let path = home.path().join(relative);
        write_cli_data(&path, SCOPED, &url, None);
        let session = authenticate(env(&refs, home.path(), os))
            .unwrap_or_else(|e| panic!("{os:?} {relative}: {e}"));
        assert_eq!(session.info.project_id, DEMO_PROJECT_ID, "{relative}");
        assert_eq!(
            session.info.source,
            CredentialSource::CliData(path),
            "{relative}"
        );
    }
}

#[test]
fn cli_data_variants_against_the_simulator() {
    let sim = start();
    let url = sim.base_url();
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(".config/zerops/cli.data");
    let linux = || env(&[], home.path(), Os::Linux);

    // Missing file.
    let err = authenticate(linux()).unwrap_err();
    assert_eq!(err.code, ErrorCode::AuthRequired);
    assert!(err.suggestion.contains("ZEROPS_TOKEN"));
    assert!(err.suggestion.contains("zcli login"));
    assert!(err.suggestion.contains("env"), "{}", err.suggestion);

    // Null scope: the token must see exactly one project.
    write_cli_data(&path, SCOPED, &url, None);
    assert_eq!(
        authenticate(linux()).unwrap().info.project_id,
        DEMO_PROJECT_ID
    );
    write_cli_data(&path, ACCOUNT, &url, None);
    assert_eq!(
        authenticate(linux()).unwrap_err().code,
        ErrorCode::TokenMultiProject
    );
    // A scoped project settles it, whatever else the token sees.
    write_cli_data(&path, ACCOUNT, &url, Some(OTHER_PROJECT_ID));
    let session = authenticate(linux()).unwrap();
    assert_eq!(session.info.project_id, OTHER_PROJECT_ID);
    assert_eq!(session.info.project_name, "billing-prod");
    // A scope the token cannot reach is refused with what to do.
    write_cli_data(&path, SCOPED, &url, Some(OTHER_PROJECT_ID));
    let err = authenticate(linux()).unwrap_err();
    assert_eq!(err.code, ErrorCode::TokenNoProject);
    assert!(err.suggestion.contains("zcli scope"));
    // No project at all.
    write_cli_data(&path, EMPTY, &url, None);
    let err = authenticate(linux()).unwrap_err();
    assert_eq!(err.code, ErrorCode::TokenNoProject);
    // The environment's host beats the file's region.
    write_cli_data(&path, SCOPED, "http://127.0.0.1:9", None);
    let session = authenticate(env(&[("ZEROPS_API_HOST", &url)], home.path(), Os::Linux)).unwrap();
    assert_eq!(session.info.api_host, url);
    // Logged out, empty, malformed, undecodable.
    for (content, what) in [
        (
            r#"{"Token":"","RegionData":{"address":""},"ScopeProjectId":null}"#.as_bytes(),
            "empty token",
        ),
        (b"   \n".as_slice(), "blank file"),
        (
            b"{\"Token\": \"sentinel-scoped-token-5d2a\"".as_slice(),
            "malformed JSON",
        ),
        (&[0xff, 0xfe, 0x00, 0x7b][..], "not text"),
    ] {
        std::fs::write(&path, content).unwrap();
        let err = authenticate(linux()).unwrap_err();
        assert_eq!(err.code, ErrorCode::AuthRequired, "{what}");
        assert!(err.message.contains("cli.data"), "{what}: {}", err.message);
    }
}

#[test]
fn transient_failures_are_retried_and_definitive_ones_remembered() {
    let sim = start();
    let url = sim.base_url();
    let home = tempfile::tempdir().unwrap();
    let user_info = || {
        sim.requests()
            .iter()
            .filter(|r| r.as_str() == "GET /user/info")
            .count()
    };

    // A 503, then a timeout: both retried on the next call, which then succeeds.
    let auth = Authenticator::new(
        env(
            &[("ZEROPS_TOKEN", SCOPED), ("ZEROPS_API_HOST", &url)],
            home.path(),
            Os::Linux,
        ),
        auth::http_factory(),
    );
    sim.set_fault_times(
        "GET /user/info",
        Fault::Status {
            status: 503,
            body: r#"{"error":{"code":"serviceUnavailable","message":"later","meta":null}}"#.into(),
        },
        1,
    );
    let err = auth.session().unwrap_err();
    assert!(err.is_transient(), "{err:?}");
    sim.set_fault_times("POST /project/search", Fault::Reset, 1);
    assert_eq!(auth.session().unwrap_err().code, ErrorCode::NetworkError);
    let session = auth.session().unwrap();
    assert_eq!(session.info.project_id, DEMO_PROJECT_ID);
    let before = user_info();
    assert!(Arc::ptr_eq(&session, &auth.session().unwrap()));
    assert_eq!(user_info(), before, "a ready session is not re-checked");

    // A refused token is remembered: no further requests.
    let auth = Authenticator::new(
        env(
            &[
                ("ZEROPS_TOKEN", "sentinel-unknown"),
                ("ZEROPS_API_HOST", &url),
            ],
            home.path(),
            Os::Linux,
        ),
        auth::http_factory(),
    );
    let before = user_info();
    assert_eq!(
        auth.session().unwrap_err().code,
        ErrorCode::AuthInvalidToken
    );
    assert_eq!(
        auth.session().unwrap_err().code,
        ErrorCode::AuthInvalidToken
    );
    assert_eq!(
        user_info(),
        before + 1,
        "a refused token is asked about once"
    );
    let auth = Authenticator::new(
        env(
            &[("ZEROPS_TOKEN", ACCOUNT), ("ZEROPS_API_HOST", &url)],
            home.path(),
            Os::Linux,
        ),
        auth::http_factory(),
    );
    assert_eq!(
        auth.session().unwrap_err().code,
        ErrorCode::TokenMultiProject
    );
    let after_first = user_info();
    assert_eq!(
        auth.session().unwrap_err().code,
        ErrorCode::TokenMultiProject
    );
    assert_eq!(
        user_info(),
        after_first,
        "a definitive failure is not retried"
    );

    // Construction never touches the network.
    let before = sim.requests().len();
    let lazy = Authenticator::new(
        env(
            &[("ZEROPS_TOKEN", SCOPED), ("ZEROPS_API_HOST", &url)],
            home.path(),
            Os::Linux,
        ),
        auth::http_factory(),
    );
    assert_eq!(sim.requests().len(), before);
    drop(lazy);
}

#[test]
fn concurrent_first_uses_authenticate_once() {
    let sim = start();
    let url = sim.base_url();
    let home = tempfile::tempdir().unwrap();
    let auth = Arc::new(Authenticator::new(
        env(
            &[("ZEROPS_TOKEN", SCOPED), ("ZEROPS_API_HOST", &url)],
            home.path(),
            Os::Linux,
        ),
        auth::http_factory(),
    ));
    // Slow the check down so the threads really overlap.
    sim.set_fault_times(
        "GET /user/info",
        Fault::Latency(Duration::from_millis(300)),
        1,
    );
    let threads: Vec<_> = (0..6)
        .map(|_| {
            let auth = auth.clone();
            std::thread::spawn(move || auth.session().map(|s| s.info.project_id.clone()))
        })
        .collect();
    for thread in threads {
        assert_eq!(thread.join().unwrap().unwrap(), DEMO_PROJECT_ID);
    }
    let checks = sim
        .requests()
        .iter()
        .filter(|r| r.as_str() == "GET /user/info")
        .count();
    assert_eq!(checks, 1);
}

/// With an API that takes connections but never answers, the calls that waited for the
/// first attempt get its failure instead of each trying again in turn (a full timeout
/// apiece: the fourth caller would wait four); a later call tries again.
#[test]
fn callers_waiting_on_a_failed_attempt_share_its_answer() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", silent.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in silent.incoming().flatten() {
            counter.fetch_add(1, Ordering::SeqCst);
            held.push(stream);
        }
    });
    let timeout = Duration::from_secs(2);
    let factory: auth::ClientFactory = Box::new(move |creds| {
        (
            Arc::new(zcp::platform::ZeropsClient::with_timeout(
                &creds.api_host,
                &creds.token,
                timeout,
            )),
            Arc::new(zcp::platform::HttpLogFetcher::new(timeout)),
        )
    });
    let home = tempfile::tempdir().unwrap();
    let auth = Arc::new(Authenticator::new(
        env(
            &[("ZEROPS_TOKEN", SCOPED), ("ZEROPS_API_HOST", &url)],
            home.path(),
            Os::Linux,
        ),
        factory,
    ));
    let gate = Arc::new(std::sync::Barrier::new(4));
    let callers: Vec<_> = (0..4)
        .map(|_| {
            let (auth, gate) = (auth.clone(), gate.clone());
            std::thread::spawn(move || {
                gate.wait();
                auth.session().map(|_| ())
            })
        })
        .collect();
    for caller in callers {
        let err = caller.join().unwrap().unwrap_err();
        assert!(err.is_transient(), "{err:?}");
    }
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        1,
        "one attempt for all four"
    );
    assert!(auth.session().unwrap_err().is_transient());
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        2,
        "a later call tries again"
    );
}

// ---------------------------------------------------------------------------------------
// The binary.

fn send(line: &Value) -> Step {
    let mut bytes = line.to_string().into_bytes();
    bytes.push(b'\n');
    Step::Send(bytes)
}

/// initialize, then the given tool calls (ids from 1), each awaited.
fn session_script(calls: &[(&str, Value)]) -> Vec<Step> {
    let mut steps = vec![
        send(
            &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
        ),
        send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"})),
        Step::AwaitId(0),
    ];
    for (i, (name, arguments)) in calls.iter().enumerate() {
        let id = i64::try_from(i).unwrap() + 1;
        steps.push(send(&json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":arguments}})));
        steps.push(Step::AwaitId(id));
    }
    steps
}

fn tool_result(lines: &[Value], id: i64) -> Value {
    lines
        .iter()
        .find(|l| l.get("id").and_then(Value::as_i64) == Some(id))
        .unwrap_or_else(|| panic!("no answer to {id}"))["result"]
        .clone()
}

fn error_code(result: &Value) -> Option<String> {
    if result["isError"] != json!(true) {
        return None;
    }
    let text = result["content"][0]["text"].as_str()?;
    serde_json::from_str::<Value>(text).ok()?["code"]
        .as_str()
        .map(str::to_owned)
}

fn calls() -> Vec<(&'static str, Value)> {
    vec![
        ("zerops_discover", json!({"includeEnvs": true})),
        ("zerops_env", json!({"action": "get", "project": true})),
        (
            "zerops_logs",
            json!({"serviceHostname": "api", "since": "1d"}),
        ),
        ("zerops_events", json!({})),
        ("zerops_process", json!({"processId": "missing-process"})),
        (
            "zerops_manage",
            json!({"action": "restart", "serviceHostname": "no-such-service"}),
        ),
    ]
}

#[test]
fn the_binary_never_prints_the_token() {
    let sim = start();
    let url = sim.base_url();
    // A working token, with every diagnostic on.
    let run = support::run_script(
        &session_script(&calls()),
        &[
            ("ZEROPS_TOKEN", SCOPED),
            ("ZEROPS_API_HOST", &url),
            ("ZCP_LOG_LEVEL", "debug"),
        ],
        Duration::from_secs(60),
    );
    let (stdout, stderr) = (
        String::from_utf8_lossy(&run.stdout).into_owned(),
        run.stderr_text(),
    );
    no_sentinel(&stdout);
    no_sentinel(&stderr);
    let lines = run.lines();
    assert_eq!(error_code(&tool_result(&lines, 1)), None, "discover works");
    assert!(
        stdout.contains("DATABASE_URL") || stdout.contains("APP_ENV"),
        "the run reached the API"
    );
    assert_eq!(
        error_code(&tool_result(&lines, 5)).as_deref(),
        Some("PROCESS_NOT_FOUND")
    );
    assert_eq!(
        error_code(&tool_result(&lines, 6)).as_deref(),
        Some("SERVICE_NOT_FOUND")
    );

    // Failing paths: an account token (two projects) and a token the API refuses.
    for (token, expected) in [
        (ACCOUNT, "TOKEN_MULTI_PROJECT"),
        (EMPTY, "TOKEN_NO_PROJECT"),
    ] {
        let run = support::run_script(
            &session_script(&calls()[..2]),
            &[
                ("ZEROPS_TOKEN", token),
                ("ZEROPS_API_HOST", &url),
                ("ZCP_LOG_LEVEL", "debug"),
            ],
            Duration::from_secs(60),
        );
        no_sentinel(&String::from_utf8_lossy(&run.stdout));
        no_sentinel(&run.stderr_text());
        assert_eq!(
            error_code(&tool_result(&run.lines(), 1)).as_deref(),
            Some(expected)
        );
    }

    // Through zcli's login file, with the API failing in every way the knobs allow.
    let home = tempfile::tempdir().unwrap();
    write_cli_data(
        &home.path().join(".config/zerops/cli.data"),
        SCOPED,
        &url,
        None,
    );
    sim.set_fault("GET /service-stack/*/env", Fault::Reset);
    sim.set_fault("POST /process/search", Fault::Malformed);
    sim.set_fault(
        "POST /app-version/search",
        Fault::RateLimited {
            retry_after_secs: 2,
        },
    );
    sim.set_fault("GET /log/read", Fault::Truncated);
    let home_text = home.path().display().to_string();
    let faulted_calls = vec![
        ("zerops_discover", json!({"includeEnvs": true})),
        (
            "zerops_env",
            json!({"action": "get", "serviceHostname": "api"}),
        ),
        (
            "zerops_logs",
            json!({"serviceHostname": "api", "since": "1d"}),
        ),
        ("zerops_events", json!({})),
    ];
    let run = support::run_script(
        &session_script(&faulted_calls),
        &[("HOME", &home_text), ("ZCP_LOG_LEVEL", "debug")],
        Duration::from_secs(60),
    );
    no_sentinel(&String::from_utf8_lossy(&run.stdout));
    no_sentinel(&run.stderr_text());
    let lines = run.lines();
    assert_eq!(
        error_code(&tool_result(&lines, 1)),
        None,
        "discover authenticated through cli.data"
    );
    assert_eq!(
        error_code(&tool_result(&lines, 2)).as_deref(),
        Some("NETWORK_ERROR"),
        "env get hits the reset"
    );
    assert!(error_code(&tool_result(&lines, 3)).is_some(), "logs fail");
    assert!(error_code(&tool_result(&lines, 4)).is_some(), "events fail");
}
