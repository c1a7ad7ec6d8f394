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

/// A second set, written later by someone who had not seen the first: errors pasted as
/// agents paste them, tasks, concepts, abbreviations and four other languages, each with the
/// documents a good answer has in its top 3 (chosen by reading them). Its misses led to
/// aliases, stop words and keywords (2026-11-26: hit@1 52 → 57 and hit@3 56 → 59 of 60),
/// so it guards those changes rather than measuring unseen queries.
pub const AGENT_PHRASED: &[(&str, &[&str])] = &[
    (
        "Error: listen EADDRINUSE: address already in use 0.0.0.0:3000",
        &[
            "runtimes/nodejs",
            "guides/troubleshoot-502",
            "gotchas/common",
            "config/zerops-yml-run",
        ],
    ),
    (
        "connection refused 5432",
        &[
            "guides/connect-database",
            "services/postgresql",
            "networking/overview",
        ],
    ),
    ("502 Bad Gateway after deploy", &["guides/troubleshoot-502"]),
    (
        "build failed npm ERR! code ERESOLVE",
        &["guides/troubleshoot-build", "runtimes/nodejs"],
    ),
    (
        "Error: Cannot find module '/var/www/dist/main.js'",
        &[
            "guides/troubleshoot-build",
            "runtimes/nodejs",
            "config/deploy-files",
        ],
    ),
    (
        "ModuleNotFoundError: No module named 'django' after deploy",
        &[
            "runtimes/python",
            "guides/deploy-python",
            "guides/troubleshoot-build",
        ],
    ),
    (
        "SQLSTATE[HY000] [2002] Connection refused laravel",
        &[
            "guides/deploy-php-laravel",
            "guides/connect-database",
            "networking/overview",
        ],
    ),
    (
        "ECONNREFUSED 127.0.0.1:6379",
        &[
            "services/valkey",
            "networking/overview",
            "gotchas/common",
            "guides/connect-database",
        ],
    ),
    (
        "server does not support SSL connections",
        &[
            "guides/connect-database",
            "services/postgresql",
            "networking/overview",
        ],
    ),
    (
        "413 Request Entity Too Large upload",
        &[
            "networking/l7-balancer",
            "guides/troubleshoot-502",
            "networking/subdomain",
            "gotchas/common",
        ],
    ),
    (
        "ERR_TOO_MANY_REDIRECTS",
        &["networking/cloudflare", "networking/l7-balancer"],
    ),
    (
        "FATAL ERROR: JavaScript heap out of memory",
        &[
            "platform/scaling",
            "guides/troubleshoot-build",
            "runtimes/nodejs",
        ],
    ),
    (
        "Cannot find corresponding setup in zerops.yml",
        &["guides/troubleshoot-build", "config/zerops-yml"],
    ),
    (
        "readiness check failed DEPLOY_FAILED",
        &["config/health-checks", "guides/troubleshoot-build"],
    ),
    (
        "sh: apk: Permission denied",
        &["guides/troubleshoot-build", "runtimes/alpine"],
    ),
    (
        "GLIBC_2.34 not found",
        &[
            "runtimes/ubuntu",
            "decisions/choose-runtime-base",
            "runtimes/alpine",
        ],
    ),
    (
        "smtp connection timeout port 465 nodemailer",
        &["operations/smtp", "networking/firewall"],
    ),
    (
        "lookup db: no such host",
        &[
            "networking/vpn",
            "networking/overview",
            "guides/local-development",
        ],
    ),
    ("add a cron job that runs every 5 minutes", &["config/cron"]),
    (
        "serve static files from nginx",
        &["runtimes/nginx", "runtimes/static"],
    ),
    (
        "connect laravel to mariadb",
        &[
            "guides/deploy-php-laravel",
            "services/mariadb",
            "guides/connect-database",
        ],
    ),
    (
        "zerops.yml for next.js ssr",
        &["runtimes/nodejs", "guides/deploy-nodejs"],
    ),
    ("go binary port", &["runtimes/go", "guides/deploy-go"]),
    (
        "prisma migrate deploy runs on every container",
        &["operations/init-commands"],
    ),
    ("asp.net core kestrel listen port", &["runtimes/dotnet"]),
    (
        "fastapi uvicorn host port",
        &["runtimes/python", "guides/deploy-python"],
    ),
    (
        "point my own domain to the app with https",
        &["networking/public-access"],
    ),
    (
        "generate laravel APP_KEY at import",
        &["config/preprocessor", "guides/deploy-php-laravel"],
    ),
    (
        "send transactional email with sendgrid",
        &["operations/smtp"],
    ),
    (
        "auto deploy on git push to main branch",
        &["operations/ci-cd"],
    ),
    ("ssh into running container", &["networking/ssh"]),
    ("restore postgres from backup", &["platform/backup"]),
    (
        "expose prometheus /metrics from my app",
        &["operations/metrics"],
    ),
    ("run docker compose on zerops", &["runtimes/docker"]),
    (
        "install ffmpeg in the runtime container",
        &[
            "config/zerops-yml-run",
            "runtimes/alpine",
            "runtimes/ubuntu",
        ],
    ),
    (
        "background queue worker without http port",
        &["config/import-yml-patterns", "config/zerops-yml-run"],
    ),
    (
        "vector database for RAG embeddings",
        &["services/qdrant", "decisions/choose-search"],
    ),
    ("wordpress hosting", &["runtimes/php", "services/mariadb"]),
    ("websocket support", &["networking/l7-balancer"]),
    (
        "如何部署 python 应用",
        &["guides/deploy-python", "runtimes/python"],
    ),
    (
        "what is a hostname",
        &["config/import-yml", "networking/overview"],
    ),
    ("HA vs NON_HA", &["platform/ha-mode"]),
    ("private network between services", &["networking/overview"]),
    (
        "env var reference another service ${db_hostname}",
        &[
            "platform/env-variables",
            "guides/connect-database",
            "networking/overview",
        ],
    ),
    (
        "difference between prepareCommands and buildCommands",
        &[
            "config/zerops-yml-build",
            "operations/init-commands",
            "platform/build-cache",
        ],
    ),
    (
        "what does the tilde in deployFiles mean",
        &["config/deploy-files"],
    ),
    ("lightweight vs serious core", &["platform/infrastructure"]),
    (
        "is the container disk persistent between deploys",
        &["platform/containers-vs-vm", "services/shared-storage"],
    ),
    ("postgress", &["services/postgresql"]),
    ("env vars", &["platform/env-variables"]),
    ("k8s-like scaling", &["platform/scaling"]),
    ("pg", &["services/postgresql"]),
    (
        "mariadb conection strng",
        &["services/mariadb", "guides/connect-database"],
    ),
    ("helthcheck endpoint", &["config/health-checks"]),
    ("zerops.yaml", &["config/zerops-yml"]),
    ("ci/cd", &["operations/ci-cd"]),
    (
        "jak nasadit aplikaci v Node.js",
        &["guides/deploy-nodejs", "runtimes/nodejs"],
    ),
    ("variables de entorno", &["platform/env-variables"]),
    (
        "Datenbank verbinden postgres",
        &["guides/connect-database", "services/postgresql"],
    ),
    (
        "configurer un domaine personnalisé",
        &["networking/public-access"],
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
