//! The real `ureq` client against the loopback simulator: every operation over real
//! sockets, every fault knob mapped to the right typed error within a bounded time, and a
//! sentinel token that never shows up in any error text or debug output.

use std::time::{Duration, Instant};

use zcp::auth::{self, CredentialSource, Credentials};
use zcp::platform::errors::ErrorCode;
use zcp::platform::{
    Autoscaling, AutoscalingParams, Client, HorizontalAutoscaling, HttpLogFetcher, LogFetchParams,
    LogFetcher, ZeropsClient,
};
use zcp::sim::demo::{self, API_ID, CACHE_ID, DB_ID, DEMO_PROJECT_ID, WEB_ID};
use zcp::sim::{self, Fault, SimConfig, SimHandle, TokenScope};

const SENTINEL: &str = "sentinel-token-7c1e9f";

fn start() -> SimHandle {
    let mut seed = demo::seed();
    seed.tokens.push((
        SENTINEL.into(),
        TokenScope::Projects(vec![DEMO_PROJECT_ID.into()]),
    ));
    sim::start(SimConfig::default(), seed).unwrap()
}

fn client(sim: &SimHandle, token: &str) -> ZeropsClient {
    ZeropsClient::with_timeout(&sim.base_url(), token, Duration::from_secs(3))
}

fn wait_finished(client: &ZeropsClient, id: &str) -> zcp::platform::Process {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let p = client.get_process(id).unwrap();
        if !matches!(p.status.as_str(), "PENDING" | "RUNNING") {
            return p;
        }
        assert!(Instant::now() < deadline, "process {id} never finished");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn no_secret(text: &str) {
    assert!(!text.contains(SENTINEL), "the token leaked: {text}");
}

#[test]
fn identity_projects_and_services() {
    let sim = start();
    let c = client(&sim, SENTINEL);
    let user = c.get_user_info().unwrap();
    assert_eq!(user.client_id, demo::DEMO_CLIENT_ID);
    let projects = c.list_projects(&user.client_id).unwrap();
    assert_eq!(projects.len(), 1, "a scoped token sees one project");
    assert_eq!(c.get_project(DEMO_PROJECT_ID).unwrap().name, "demo");
    let err = c.get_project(demo::OTHER_PROJECT_ID).unwrap_err();
    assert_eq!(err.code, ErrorCode::PermissionDenied);
    let services = c.list_services(DEMO_PROJECT_ID).unwrap();
    assert!(
        services
            .iter()
            .any(|s| s.name == "api" && s.type_info.version_name == "nodejs@22")
    );
    assert!(services.iter().all(|s| s.project_id == DEMO_PROJECT_ID));
    let api = c.get_service(API_ID).unwrap();
    assert!(api.subdomain_access && api.ports[0].http_routing);
    assert_eq!(
        c.get_service("nope").unwrap_err().code,
        ErrorCode::ServiceNotFound
    );

    // The account token sees both projects, and the scoped token leaks through search when
    // the bug is switched on.
    let all = client(&sim, demo::ACCOUNT_TOKEN);
    assert_eq!(all.list_projects(&user.client_id).unwrap().len(), 2);
    sim.set_search_leak(true);
    assert!(
        c.list_services(DEMO_PROJECT_ID)
            .unwrap()
            .iter()
            .any(|s| s.project_id == demo::OTHER_PROJECT_ID)
    );
    assert!(
        c.search_processes(DEMO_PROJECT_ID, 50)
            .unwrap()
            .iter()
            .any(|p| p.project_id == demo::OTHER_PROJECT_ID)
    );
}

#[test]
fn lifecycle_processes_change_state() {
    let sim = start();
    let c = client(&sim, SENTINEL);
    let p = c.stop_service(API_ID).unwrap();
    assert_eq!(p.action_name, "stack.stop");
    assert!(matches!(p.status.as_str(), "PENDING" | "RUNNING"));
    assert_eq!(wait_finished(&c, &p.id).status, "FINISHED");
    assert_eq!(c.get_service(API_ID).unwrap().status, "STOPPED");
    wait_finished(&c, &c.start_service(API_ID).unwrap().id);
    assert_eq!(c.get_service(API_ID).unwrap().status, "ACTIVE");
    let p = c.restart_service(API_ID).unwrap();
    assert_eq!(p.service_stacks[0].name, "api");
    let cancelled = c.cancel_process(&p.id).unwrap();
    assert_eq!(cancelled.status, "CANCELED");
    assert_eq!(
        c.cancel_process(&p.id).unwrap_err().code,
        ErrorCode::ProcessAlreadyTerminal
    );
    assert_eq!(
        c.get_process("missing").unwrap_err().code,
        ErrorCode::ProcessNotFound
    );
}

#[test]
fn scaling_needs_the_current_mode() {
    let sim = start();
    let c = client(&sim, SENTINEL);
    let params = |mode: &str| AutoscalingParams {
        mode: mode.into(),
        custom_autoscaling: Autoscaling {
            vertical_autoscaling: None,
            horizontal_autoscaling: Some(HorizontalAutoscaling {
                min_container_count: Some(2),
                max_container_count: Some(4),
            }),
        },
    };
    let err = c.set_autoscaling(API_ID, &params("HA")).unwrap_err();
    assert_eq!(err.http_status, Some(400));
    assert!(err.api_meta.is_some());
    let p = c
        .set_autoscaling(API_ID, &params("NON_HA"))
        .unwrap()
        .expect("a process");
    wait_finished(&c, &p.id);
    let scaled = c.get_service(API_ID).unwrap();
    assert_eq!(
        scaled
            .custom_autoscaling
            .unwrap()
            .horizontal_autoscaling
            .unwrap()
            .max_container_count,
        Some(4)
    );
    sim.with_state(|s| s.config.autoscaling_returns_process = false);
    assert!(
        c.set_autoscaling(API_ID, &params("NON_HA"))
            .unwrap()
            .is_none()
    );
}

#[test]
fn service_and_project_variables() {
    let sim = start();
    let c = client(&sim, SENTINEL);
    c.set_service_env_file(API_ID, "NEW_KEY=a=b\nNODE_ENV=staging\n")
        .unwrap();
    let vars = c.get_service_env(API_ID).unwrap();
    assert!(
        vars.iter()
            .any(|v| v.key == "NEW_KEY" && v.content == "a=b")
    );
    assert!(
        vars.iter()
            .any(|v| v.key == "NODE_ENV" && v.content == "staging")
    );
    assert!(
        vars.iter().any(|v| v.key == "DATABASE_URL"),
        "upsert keeps other keys"
    );
    let id = vars.iter().find(|v| v.key == "NEW_KEY").unwrap().id.clone();
    c.delete_user_data(&id).unwrap();
    assert!(
        !c.get_service_env(API_ID)
            .unwrap()
            .iter()
            .any(|v| v.key == "NEW_KEY")
    );
    assert_eq!(
        c.delete_user_data(&id).unwrap_err().code,
        ErrorCode::ServiceNotFound
    );

    let project_vars = c.get_project_env(DEMO_PROJECT_ID).unwrap();
    assert!(project_vars.iter().any(|v| v.key == "APP_ENV"));
    c.create_project_env(DEMO_PROJECT_ID, "FEATURE", "on", false)
        .unwrap();
    let err = c
        .create_project_env(DEMO_PROJECT_ID, "FEATURE", "off", false)
        .unwrap_err();
    assert_eq!(err.api_code.as_deref(), Some("projectEnvDuplicateKey"));
    let id = c
        .get_project_env(DEMO_PROJECT_ID)
        .unwrap()
        .into_iter()
        .find(|v| v.key == "FEATURE")
        .unwrap()
        .id;
    c.delete_project_env(&id).unwrap();
    assert!(
        !c.get_project_env(DEMO_PROJECT_ID)
            .unwrap()
            .iter()
            .any(|v| v.key == "FEATURE")
    );
}

#[test]
fn import_creates_services_and_reports_per_service_errors() {
    let sim = start();
    let c = client(&sim, SENTINEL);
    let yaml = "services:\n  - hostname: queue\n    type: nats@2.10\n    mode: NON_HA\n  - hostname: api\n    type: nodejs@22\n";
    let result = c.import_services(DEMO_PROJECT_ID, yaml).unwrap();
    assert_eq!(result.service_stacks.len(), 2);
    let queue = &result.service_stacks[0];
    assert!(queue.error.is_none());
    assert_eq!(queue.processes[0].action_name, "stack.import");
    let taken = &result.service_stacks[1];
    assert_eq!(
        taken.error.as_ref().unwrap().code,
        "serviceStackNameUnavailable"
    );
    wait_finished(&c, &queue.processes[0].id);
    assert_eq!(c.get_service(&queue.id).unwrap().status, "ACTIVE");

    let err = c
        .import_services(DEMO_PROJECT_ID, "project:\n  name: x\nservices: []\n")
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::ImportHasProject);
    let err = c
        .import_services(
            DEMO_PROJECT_ID,
            "services:\n  - hostname: x\n    type: nodejs@99\n",
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownType);
    assert!(err.api_meta.unwrap().to_string().contains("nodejs@99"));
    let err = c
        .import_services(
            DEMO_PROJECT_ID,
            "services:\n  - hostname: pg\n    type: postgresql@16\n",
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidImportYml);
    let err = c
        .import_services(
            DEMO_PROJECT_ID,
            "services:\n  - hostname: Bad_Name\n    type: nodejs@22\n",
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidHostname);
}

#[test]
fn delete_and_subdomains() {
    let sim = start();
    let c = client(&sim, SENTINEL);
    let p = c.delete_service(CACHE_ID).unwrap();
    assert_eq!(c.get_service(CACHE_ID).unwrap().status, "DELETING");
    wait_finished(&c, &p.id);
    assert_eq!(
        c.get_service(CACHE_ID).unwrap_err().code,
        ErrorCode::ServiceNotFound
    );

    // A redundant enable is accepted and its process fails, as on the live platform.
    let p = c.enable_subdomain_access(API_ID).unwrap();
    let done = wait_finished(&c, &p.id);
    assert_eq!(
        (done.status.as_str(), done.fail_reason.as_deref()),
        ("FAILED", Some("noSubdomainPorts"))
    );
    let p = c.enable_subdomain_access(WEB_ID).unwrap();
    wait_finished(&c, &p.id);
    assert!(c.get_service(WEB_ID).unwrap().subdomain_access);
    wait_finished(&c, &c.disable_subdomain_access(WEB_ID).unwrap().id);
    assert_eq!(
        c.disable_subdomain_access(WEB_ID).unwrap_err().code,
        ErrorCode::SubdomainAlreadyDisabled
    );
    assert_eq!(
        c.enable_subdomain_access(DB_ID)
            .unwrap_err()
            .api_code
            .as_deref(),
        Some("serviceStackIsNotHttp")
    );
}

#[test]
fn logs_and_activity() {
    let sim = start();
    let c = client(&sim, SENTINEL);
    let access = c.get_project_log(DEMO_PROJECT_ID).unwrap();
    assert!(access.url.starts_with("http://127.0.0.1"));
    let fetcher = HttpLogFetcher::new(Duration::from_secs(3));
    let all = fetcher
        .fetch_logs(
            &access,
            &LogFetchParams {
                service_id: Some(API_ID.into()),
                limit: 100,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(all.len(), 10);
    assert!(all[0].timestamp > all[1].timestamp, "newest first");
    let errors = fetcher
        .fetch_logs(
            &access,
            &LogFetchParams {
                service_id: Some(API_ID.into()),
                limit: 100,
                min_severity: Some(3),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(errors.len(), 4);
    assert!(errors.iter().all(|e| e.severity_num.unwrap() <= 3));
    let two = fetcher
        .fetch_logs(
            &access,
            &LogFetchParams {
                limit: 2,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(two.len(), 2);
    let log_request = sim
        .requests()
        .into_iter()
        .rfind(|r| r.starts_with("GET /log/read"))
        .unwrap();
    assert!(
        !log_request.contains("tail") && !log_request.contains("since"),
        "{log_request}"
    );

    sim.with_state(|s| s.config.log_url_with_method = true);
    let access = c.get_project_log(DEMO_PROJECT_ID).unwrap();
    assert!(
        access.url.starts_with("http://"),
        "the GET prefix is stripped: {}",
        access.url
    );
    assert!(
        fetcher
            .fetch_logs(
                &access,
                &LogFetchParams {
                    limit: 1,
                    ..Default::default()
                }
            )
            .is_ok()
    );

    let processes = c.search_processes(DEMO_PROJECT_ID, 50).unwrap();
    assert!(processes.iter().any(|p| {
        p.fail_reason
            .as_deref()
            .is_some_and(|r| r.contains("Missing script"))
    }));
    let versions = c.search_app_versions(DEMO_PROJECT_ID, 50).unwrap();
    assert!(
        versions
            .iter()
            .any(|v| v.status == "BUILD_FAILED"
                && v.build.as_ref().unwrap().pipeline_failed.is_some())
    );
}

#[test]
fn faults_map_to_typed_errors_within_bounded_time() {
    let sim = start();
    let c = client(&sim, SENTINEL);
    let cases: Vec<(Fault, ErrorCode)> = vec![
        (
            Fault::Status {
                status: 500,
                body: r#"{"error":{"code":"internal","message":"boom","meta":null}}"#.into(),
            },
            ErrorCode::ApiError,
        ),
        (
            Fault::Status {
                status: 502,
                body: "<html>bad gateway</html>".into(),
            },
            ErrorCode::ApiError,
        ),
        (
            Fault::Status {
                status: 401,
                body: r#"{"error":{"code":"tokenExpired","message":"expired","meta":null}}"#.into(),
            },
            ErrorCode::AuthTokenExpired,
        ),
        (
            Fault::Status {
                status: 403,
                body: r#"{"error":{"code":"insufficientPermissions","message":"no","meta":null}}"#
                    .into(),
            },
            ErrorCode::PermissionDenied,
        ),
        (
            Fault::RateLimited {
                retry_after_secs: 9,
            },
            ErrorCode::ApiRateLimited,
        ),
        (Fault::Reset, ErrorCode::NetworkError),
        (Fault::Malformed, ErrorCode::ApiError),
        (Fault::Truncated, ErrorCode::NetworkError),
        (
            Fault::Latency(Duration::from_secs(5)),
            ErrorCode::ApiTimeout,
        ),
        (
            Fault::SlowBody(Duration::from_secs(5)),
            ErrorCode::ApiTimeout,
        ),
    ];
    for (fault, expected) in cases {
        let shown = format!("{fault:?}");
        sim.clear_faults();
        sim.set_fault("GET /service-stack/*", fault);
        let started = Instant::now();
        let err = c.get_service(API_ID).unwrap_err();
        assert_eq!(err.code, expected, "{shown}: {err:?}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{shown} took {:?}",
            started.elapsed()
        );
        if expected == ErrorCode::ApiRateLimited {
            assert_eq!(err.retry_after_secs, Some(9));
        }
        no_secret(&format!("{err:?} {err}"));
    }
    sim.clear_faults();
    assert!(
        c.get_service(API_ID).is_ok(),
        "serving resumes after faults are cleared"
    );
    sim.set_fault_times("GET /service-stack/*", Fault::Reset, 1);
    assert!(c.get_service(API_ID).is_err());
    assert!(c.get_service(API_ID).is_ok(), "a limited fault expires");
}

#[test]
fn bad_tokens_and_unreachable_hosts() {
    let sim = start();
    let err = client(&sim, "not-a-token").get_user_info().unwrap_err();
    assert_eq!(err.code, ErrorCode::AuthInvalidToken);
    let err = client(&sim, demo::EXPIRED_TOKEN)
        .get_user_info()
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::AuthTokenExpired);
    let dead = ZeropsClient::with_timeout("http://127.0.0.1:9", SENTINEL, Duration::from_secs(2));
    let err = dead.get_user_info().unwrap_err();
    assert_eq!(err.code, ErrorCode::NetworkError);
    no_secret(&format!("{err:?} {err}"));
    no_secret(&format!("{dead:?}"));
}

#[test]
fn authentication_against_the_simulator() {
    let sim = start();
    let creds = Credentials {
        token: SENTINEL.into(),
        api_host: sim.base_url(),
        scope_project_id: None,
        source: CredentialSource::Direct,
    };
    let c = client(&sim, SENTINEL);
    let info = auth::authenticate(&c, &creds).unwrap();
    assert_eq!(info.project_id, DEMO_PROJECT_ID);
    no_secret(&format!("{info:?} {creds:?}"));
    let all = client(&sim, demo::ACCOUNT_TOKEN);
    let creds_all = Credentials {
        token: demo::ACCOUNT_TOKEN.into(),
        ..creds.clone()
    };
    assert_eq!(
        auth::authenticate(&all, &creds_all).unwrap_err().code,
        ErrorCode::TokenMultiProject
    );
    let scoped = Credentials {
        token: demo::ACCOUNT_TOKEN.into(),
        scope_project_id: Some(demo::OTHER_PROJECT_ID.into()),
        ..creds
    };
    assert_eq!(
        auth::authenticate(&all, &scoped).unwrap().project_name,
        "billing-prod"
    );
}
