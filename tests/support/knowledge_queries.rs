//! The knowledge-search quality set, shared by `tests/knowledge.rs` (which asserts hit@3
//! and MRR) and `benches/knowledge.rs` (which times the same queries).

/// `(query, documents any of which must be in the top 3)`, phrased the way agents ask:
/// typos, synonyms, several concepts at once, whole questions, version strings, and
/// services Zerops does not offer.
pub const QUALITY: &[(&str, &[&str])] = &[
    // Typos.
    (
        "postgre connction",
        &["services/postgresql", "guides/connect-database"],
    ),
    (
        "deployig nodjs app",
        &["guides/deploy-nodejs", "runtimes/nodejs"],
    ),
    ("enviroment variabels", &["platform/env-variables"]),
    (
        "kubernets",
        &[
            "platform/infrastructure",
            "config/import-yml",
            "platform/containers-vs-vm",
            "decisions/choose-runtime-base",
        ],
    ),
    ("elasticsaerch plugins", &["services/elasticsearch"]),
    // Synonyms and aliases.
    (
        "redis session store",
        &["services/valkey", "decisions/choose-cache"],
    ),
    ("pg read replicas", &["services/postgresql"]),
    (
        "s3 bucket upload",
        &[
            "services/object-storage",
            "guides/object-storage-integration",
        ],
    ),
    ("golang binary", &["runtimes/go", "guides/deploy-go"]),
    (
        "k8s",
        &[
            "platform/infrastructure",
            "config/import-yml",
            "platform/containers-vs-vm",
            "decisions/choose-runtime-base",
        ],
    ),
    (
        "ssl certificate for my domain",
        &[
            "networking/public-access",
            "networking/cloudflare",
            "networking/l7-balancer",
        ],
    ),
    ("envs", &["platform/env-variables"]),
    // Several concepts at once.
    (
        "nodejs app with postgres and redis",
        &[
            "guides/deploy-nodejs",
            "runtimes/nodejs",
            "config/import-yml-patterns",
            "services/postgresql",
            "services/valkey",
        ],
    ),
    (
        "laravel with valkey sessions and s3 uploads",
        &["guides/deploy-php-laravel"],
    ),
    (
        "python django gunicorn port",
        &["guides/deploy-python", "runtimes/python"],
    ),
    (
        "static react spa built with vite",
        &["guides/deploy-static-spa", "runtimes/static"],
    ),
    ("java spring boot jar memory", &["runtimes/java"]),
    // Questions as agents ask them.
    ("how do I fix 502 bad gateway", &["guides/troubleshoot-502"]),
    (
        "why does my build fail with PREPARING_RUNTIME_FAILED",
        &["guides/troubleshoot-build", "platform/build-pipeline"],
    ),
    (
        "where do env variables changes take effect",
        &["platform/env-variables", "operations/service-lifecycle"],
    ),
    (
        "which database should I use",
        &["decisions/choose-database"],
    ),
    (
        "how to run database migrations once per deploy",
        &["operations/init-commands"],
    ),
    (
        "can I change a service from NON_HA to HA",
        &["platform/ha-mode"],
    ),
    (
        "how do I connect to the database from my laptop",
        &["networking/vpn", "guides/local-development"],
    ),
    (
        "my app listens on localhost and is not reachable",
        &["guides/troubleshoot-502"],
    ),
    ("what port can I use to send emails", &["operations/smtp"]),
    ("how do I schedule a cron job", &["config/cron"]),
    (
        "what should I check before going to production",
        &["operations/production-checklist"],
    ),
    (
        "how to pause a failing build to debug it",
        &["platform/debug-mode", "guides/troubleshoot-build"],
    ),
    (
        "why is my cloudflare site in a redirect loop",
        &["networking/cloudflare"],
    ),
    // Configuration.
    (
        "zerops.yml build deployFiles cache",
        &[
            "config/zerops-yml-build",
            "config/deploy-files",
            "platform/build-cache",
        ],
    ),
    ("import.yml hostname rules", &["config/import-yml"]),
    (
        "readiness check healthCheck httpGet",
        &["config/health-checks"],
    ),
    (
        "generateRandomString preprocessor secret",
        &["config/preprocessor"],
    ),
    (
        "zcli push from github actions",
        &["operations/ci-cd", "config/zcli"],
    ),
    (
        "reference another service variable",
        &["platform/env-variables", "guides/connect-database"],
    ),
    ("shared storage mount", &["services/shared-storage"]),
    ("autoscaling ram cpu", &["platform/scaling"]),
    ("build cache invalidation", &["platform/build-cache"]),
    (
        "trust proxies x-forwarded-proto",
        &["networking/l7-balancer"],
    ),
    ("restart vs reload", &["operations/service-lifecycle"]),
    ("log forwarding papertrail", &["operations/log-forwarding"]),
    (
        "alpine or ubuntu base",
        &[
            "decisions/choose-runtime-base",
            "runtimes/alpine",
            "runtimes/ubuntu",
        ],
    ),
    (
        "dev and stage environments",
        &["guides/environment-promotion"],
    ),
    ("common mistakes", &["gotchas/common"]),
    // Version strings.
    (
        "nodejs@22",
        &[
            "runtimes/nodejs",
            "config/service-types",
            "guides/deploy-nodejs",
        ],
    ),
    (
        "php-nginx@8.4 documentRoot",
        &["runtimes/php", "guides/deploy-php-laravel"],
    ),
    (
        "postgresql@16",
        &["services/postgresql", "config/service-types"],
    ),
    ("valkey@7.2 ha", &["services/valkey"]),
    // Services Zerops does not offer.
    (
        "mongodb",
        &["decisions/choose-database", "services/postgresql"],
    ),
    ("mysql", &["services/mariadb", "decisions/choose-database"]),
    ("memcached", &["services/valkey", "decisions/choose-cache"]),
    (
        "rabbitmq",
        &["decisions/choose-queue", "services/nats", "services/kafka"],
    ),
    (
        "kubernetes",
        &[
            "platform/infrastructure",
            "config/import-yml",
            "platform/containers-vs-vm",
            "decisions/choose-runtime-base",
        ],
    ),
    (
        "dynamodb",
        &["services/postgresql", "decisions/choose-database"],
    ),
    (
        "sqlite",
        &[
            "services/postgresql",
            "decisions/choose-database",
            "platform/containers-vs-vm",
        ],
    ),
];

/// Unsupported services and a word their suggestion must contain.
pub const UNSUPPORTED: &[(&str, &str)] = &[
    ("mongodb", "PostgreSQL"),
    ("mysql", "MariaDB"),
    ("memcached", "Valkey"),
    ("rabbitmq", "NATS"),
    ("kubernetes", "import.yml"),
    ("dynamodb", "PostgreSQL"),
    ("sqlite", "PostgreSQL"),
];
