//! The sample project behind `zcp --demo` (and many tests): a Node.js API with a public
//! subdomain, a static frontend, PostgreSQL, Valkey and object storage, with variables, a
//! deploy history (one failed build) and logs of every severity. A second project of the
//! same account exists so the scoped-token search leak can be reproduced.

use std::time::{Duration, Instant, SystemTime};

use super::api::{Seed, TokenScope};
use super::catalog;
use super::model::{
    AppVersionRec, Effect, EnvRec, LogRec, PortRec, ProcessRec, ProjectRec, ServiceRec,
};
use crate::time::format_rfc3339;

/// The token the demo authenticates with (scoped to the demo project).
pub const DEMO_TOKEN: &str = "demo-token-not-a-secret";
/// A token that sees every project of the account.
pub const ACCOUNT_TOKEN: &str = "demo-account-token";
/// A token the simulator treats as expired.
pub const EXPIRED_TOKEN: &str = "demo-expired-token";
pub const DEMO_CLIENT_ID: &str = "clientdemo000000000001";
pub const DEMO_PROJECT_ID: &str = "projdemo00000000000001";
pub const OTHER_PROJECT_ID: &str = "projother0000000000002";

/// Service ids of the demo project.
pub const API_ID: &str = "svcapi0000000000000001";
pub const WEB_ID: &str = "svcweb0000000000000002";
pub const DB_ID: &str = "svcdb00000000000000003";
pub const CACHE_ID: &str = "svccache00000000000004";
pub const STORAGE_ID: &str = "svcstorage000000000005";
pub const CORE_ID: &str = "svccore000000000000006";
pub const OTHER_ID: &str = "svcother00000000000007";

/// How long each process of the history took (its build's pipeline too).
const HISTORY_RUN: Duration = Duration::from_secs(20);

fn ago(minutes: u64) -> String {
    format_rfc3339(SystemTime::now() - Duration::from_secs(minutes * 60))
}

fn env(id: &str, key: &str, content: &str, kind: &str) -> EnvRec {
    EnvRec {
        id: id.into(),
        key: key.into(),
        content: content.into(),
        kind: kind.into(),
        sensitive: false,
    }
}

fn service(id: &str, project: &str, name: &str, type_name: &str, status: &str) -> ServiceRec {
    let resolved = catalog::resolve(type_name).map(|r| {
        (
            r.entry.name,
            r.entry.display,
            r.entry.category.api_name(),
            r.version_name,
        )
    });
    let (type_id, display, category, version) =
        resolved.unwrap_or(("core", "Core", "CORE", "core".into()));
    ServiceRec {
        id: id.into(),
        project_id: project.into(),
        client_id: DEMO_CLIENT_ID.into(),
        name: name.into(),
        status: status.into(),
        mode: "NON_HA".into(),
        type_id: type_id.into(),
        type_name: display.into(),
        category: category.into(),
        version_name: version,
        is_system: false,
        subdomain_access: false,
        ports: Vec::new(),
        // JSON text parsed here: far less code than the same value built by `json!`.
        autoscaling: json_text!({
            "verticalAutoscaling": {"cpuMode": "SHARED", "startCpuCoreCount": null, "swapEnabled": null,
                "minResource": {"cpuCoreCount": 1, "memoryGBytes": 0.25, "diskGBytes": 1},
                "maxResource": {"cpuCoreCount": 5, "memoryGBytes": 8, "diskGBytes": 20}, "minFreeResource": null},
            "horizontalAutoscaling": {"minContainerCount": 1, "maxContainerCount": 1}
        }),
        env: Vec::new(),
        created: ago(60 * 24 * 7),
        cpu_mode_changed: None,
        subdomain_on_first_deploy: false,
    }
}

fn managed_env(service: &mut ServiceRec, type_name: &str, prefix: &str) {
    if let Some(resolved) = catalog::resolve(type_name) {
        for (i, (key, value)) in catalog::generated_env(resolved.entry, &service.name, "demopass")
            .into_iter()
            .enumerate()
        {
            service
                .env
                .push(env(&format!("{prefix}{i:0>4}"), &key, &value, "READ_ONLY"));
        }
    }
}

fn history(
    id: &str,
    project: &str,
    action: &str,
    services: &[(&str, &str)],
    minutes_ago: u64,
    failure: Option<&str>,
    sequence: i64,
) -> ProcessRec {
    ProcessRec {
        id: id.into(),
        client_id: DEMO_CLIENT_ID.into(),
        project_id: project.into(),
        action: action.into(),
        services: services
            .iter()
            .map(|(i, n)| ((*i).into(), (*n).into()))
            .collect(),
        started_at: Instant::now()
            .checked_sub(Duration::from_secs(minutes_ago * 60))
            .unwrap_or_else(Instant::now),
        wall_start: SystemTime::now() - Duration::from_secs(minutes_ago * 60),
        created: ago(minutes_ago),
        // A failed build stopped where its build failed.
        duration: match failure {
            Some(_) => HISTORY_RUN / 10 * 6, // BUILD_END
            None => HISTORY_RUN,
        },
        failure: failure.map(str::to_owned),
        effect: Effect::None,
        on_cancel: Effect::None,
        canceled_at: None,
        hold: None,
        applied: true,
        created_by: "Ada Lovelace".into(),
        sequence,
    }
}

fn version(
    id: &str,
    service: &str,
    sequence: i64,
    minutes_ago: u64,
    status: &str,
) -> AppVersionRec {
    AppVersionRec {
        id: id.into(),
        client_id: DEMO_CLIENT_ID.into(),
        project_id: DEMO_PROJECT_ID.into(),
        service_id: service.into(),
        build_service_id: format!("bld{id}"),
        source: "CLI".into(),
        sequence,
        created: ago(minutes_ago),
        pipeline_started: Some(Instant::now()),
        // Its pipeline ran as long as the build process created with it.
        duration: HISTORY_RUN,
        failure: None,
        superseded: false,
        canceled: false,
        fixed_status: Some(status.into()),
        run: None,
        start_command: None,
    }
}

#[allow(clippy::too_many_arguments)] // a row of seed data, read best flat
fn log(
    n: usize,
    service: &str,
    minutes_ago: u64,
    severity: u8,
    facility: u8,
    container: &str,
    tag: &str,
    message: &str,
) -> LogRec {
    LogRec {
        id: format!("log{n:0>19}"),
        project_id: DEMO_PROJECT_ID.into(),
        service_id: service.into(),
        timestamp: ago(minutes_ago),
        severity,
        facility,
        tag: tag.into(),
        container: container.into(),
        container_id: format!("ctr-{container}"),
        message: message.into(),
    }
}

/// The demo account.
pub fn seed() -> Seed {
    let mut api = service(API_ID, DEMO_PROJECT_ID, "api", "nodejs@22", "ACTIVE");
    api.ports = vec![PortRec {
        port: 3000,
        protocol: "tcp".into(),
        http: true,
    }];
    api.subdomain_access = true;
    api.env = vec![
        env("udapi00000000000000001", "hostname", "api", "READ_ONLY"),
        env(
            "udapi00000000000000002",
            "zeropsSubdomain",
            "https://api-1df2-3000.prg1.zerops.app",
            "READ_ONLY",
        ),
        env(
            "udapi00000000000000003",
            "DATABASE_URL",
            "${db_connectionString}",
            "SECRET",
        ),
        env(
            "udapi00000000000000004",
            "REDIS_URL",
            "${cache_connectionString}",
            "SECRET",
        ),
        env("udapi00000000000000005", "NODE_ENV", "production", "SECRET"),
        // From the active version's zerops.yml (run.envVariables): read-only here.
        env("udapi00000000000000006", "PORT", "3000", "USER"),
    ];
    api.autoscaling["horizontalAutoscaling"] =
        json_text!({"minContainerCount": 1, "maxContainerCount": 3});

    let mut web = service(WEB_ID, DEMO_PROJECT_ID, "web", "static", "ACTIVE");
    web.ports = vec![PortRec {
        port: 80,
        protocol: "tcp".into(),
        http: true,
    }];
    web.env = vec![env(
        "udweb00000000000000001",
        "hostname",
        "web",
        "READ_ONLY",
    )];

    let mut db = service(DB_ID, DEMO_PROJECT_ID, "db", "postgresql@16", "ACTIVE");
    db.ports = vec![
        PortRec {
            port: 5432,
            protocol: "tcp".into(),
            http: false,
        },
        PortRec {
            port: 6432,
            protocol: "tcp".into(),
            http: false,
        },
    ];
    // A managed service's container count is fixed by its mode: NON_HA keeps the default
    // block's one container (HA would have three), as an import gives it.
    managed_env(&mut db, "postgresql@16", "uddb");

    let mut cache = service(CACHE_ID, DEMO_PROJECT_ID, "cache", "valkey@7.2", "ACTIVE");
    cache.ports = vec![PortRec {
        port: 6379,
        protocol: "tcp".into(),
        http: false,
    }];
    managed_env(&mut cache, "valkey@7.2", "udcache");

    let mut storage = service(
        STORAGE_ID,
        DEMO_PROJECT_ID,
        "storage",
        "object-storage",
        "ACTIVE",
    );
    storage.autoscaling = json_text!({"verticalAutoscaling": null, "horizontalAutoscaling": null});
    managed_env(&mut storage, "object-storage", "udstor");

    let mut core = service(CORE_ID, DEMO_PROJECT_ID, "core", "core", "ACTIVE");
    core.is_system = true;

    let other = service(OTHER_ID, OTHER_PROJECT_ID, "billing", "nodejs@20", "ACTIVE");

    let api_svc = (API_ID, "api");
    let processes = vec![
        history(
            "procdemo00000000000001",
            DEMO_PROJECT_ID,
            "stack.import",
            &[api_svc, (WEB_ID, "web"), (DB_ID, "db")],
            60 * 24,
            None,
            1,
        ),
        history(
            "procdemo00000000000002",
            DEMO_PROJECT_ID,
            "stack.build",
            &[api_svc],
            60 * 5,
            None,
            2,
        ),
        history(
            "procdemo00000000000003",
            DEMO_PROJECT_ID,
            "stack.enableSubdomainAccess",
            &[api_svc],
            60 * 5 - 10,
            None,
            3,
        ),
        history(
            "procdemo00000000000004",
            DEMO_PROJECT_ID,
            "stack.build",
            &[api_svc],
            90,
            Some("buildCommands failed: npm ERR! Missing script: \"build\""),
            4,
        ),
        history(
            "procdemo00000000000005",
            DEMO_PROJECT_ID,
            "stack.build",
            &[api_svc],
            45,
            None,
            5,
        ),
        history(
            "procdemo00000000000006",
            DEMO_PROJECT_ID,
            "stack.restart",
            &[api_svc],
            30,
            None,
            6,
        ),
        history(
            "procdemo00000000000007",
            DEMO_PROJECT_ID,
            "zL7Master.syncRoutes",
            &[],
            29,
            None,
            7,
        ),
        history(
            "procother0000000000008",
            OTHER_PROJECT_ID,
            "stack.restart",
            &[(OTHER_ID, "billing")],
            20,
            None,
            8,
        ),
    ];
    let app_versions = vec![
        version("avdemo0000000000000001", API_ID, 1, 60 * 5, "BACKUP"),
        version("avdemo0000000000000002", API_ID, 2, 90, "BUILD_FAILED"),
        version("avdemo0000000000000003", API_ID, 3, 45, "ACTIVE"),
        version("avdemo0000000000000004", WEB_ID, 1, 60 * 4, "ACTIVE"),
    ];

    let mut logs = Vec::new();
    let api_lines: [(u8, &str); 10] = [
        (6, "listening on 0.0.0.0:3000"),
        (7, "GET /health 200 1ms"),
        (6, "GET /api/orders 200 14ms"),
        (5, "cache warm-up finished in 220ms"),
        (4, "slow query: SELECT * FROM orders took 1240ms"),
        (3, "error: connect ECONNREFUSED cache:6379 (retrying)"),
        (6, "reconnected to cache"),
        (2, "critical: payment webhook signature mismatch"),
        (1, "alert: disk usage above 90%"),
        (0, "emergency: out of memory, restarting worker"),
    ];
    for (i, (severity, message)) in api_lines.iter().enumerate() {
        let minutes = 110 - (i as u64) * 10;
        logs.push(log(
            i + 1,
            API_ID,
            minutes,
            *severity,
            16,
            "api-1",
            "api",
            message,
        ));
    }
    for i in 0..6 {
        let minutes = 55 - i * 8;
        logs.push(log(
            100 + i as usize,
            WEB_ID,
            minutes,
            6,
            17,
            "web-1",
            "nginx",
            &format!("GET /assets/app.{i}.js 200"),
        ));
    }
    // The web server's own complaints, so every service's logs span several severities.
    let web_lines: [(u8, &str); 3] = [
        (7, "epoll: 4 worker connections in use"),
        (
            4,
            "open() \"/var/www/favicon.ico\" failed (2: No such file or directory)",
        ),
        (
            3,
            "upstream timed out (110: Connection timed out) while reading response header",
        ),
    ];
    for (i, (severity, message)) in web_lines.iter().enumerate() {
        logs.push(log(
            110 + i,
            WEB_ID,
            50 - (i as u64) * 15,
            *severity,
            17,
            "web-1",
            "nginx",
            message,
        ));
    }
    logs.push(log(
        200,
        "bldavdemo0000000000000002",
        89,
        6,
        16,
        "build-1",
        "zbuilder@avdemo0000000000000002",
        "running buildCommands",
    ));
    logs.push(log(
        201,
        "bldavdemo0000000000000002",
        89,
        3,
        16,
        "build-1",
        "zbuilder@avdemo0000000000000002",
        "npm ERR! Missing script: \"build\"",
    ));

    Seed {
        client_id: DEMO_CLIENT_ID.into(),
        user_email: "ada@example.com".into(),
        user_name: "Ada Lovelace".into(),
        tokens: vec![
            (
                DEMO_TOKEN.into(),
                TokenScope::Projects(vec![DEMO_PROJECT_ID.into()]),
            ),
            (ACCOUNT_TOKEN.into(), TokenScope::All),
            (EXPIRED_TOKEN.into(), TokenScope::Expired),
        ],
        projects: vec![
            ProjectRec {
                id: DEMO_PROJECT_ID.into(),
                client_id: DEMO_CLIENT_ID.into(),
                name: "demo".into(),
                status: "ACTIVE".into(),
                subdomain_host: "1df2.prg1.zerops.app".into(),
                env: vec![
                    env("penvdemo00000000000001", "APP_ENV", "demo", "USER"),
                    env("penvdemo00000000000002", "LOG_LEVEL", "info", "USER"),
                ],
                created: ago(60 * 24 * 7),
            },
            ProjectRec {
                id: OTHER_PROJECT_ID.into(),
                client_id: DEMO_CLIENT_ID.into(),
                name: "billing-prod".into(),
                status: "ACTIVE".into(),
                subdomain_host: "77aa.prg1.zerops.app".into(),
                env: Vec::new(),
                created: ago(60 * 24 * 30),
            },
        ],
        services: vec![api, web, db, cache, storage, core, other],
        processes,
        app_versions,
        logs,
    }
}
