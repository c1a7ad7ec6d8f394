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

/// A third set: 100 queries written blind (their author had seen the documents' front matter,
/// not the search code or any result), then 20 aimed at the weak spots those showed, less
/// exact repeats of the sets above; the three expectations the evaluation called arguable
/// accept both documents. The alias filter and keywords of 2026-11-26 were chosen from its
/// misses (hit@1 101 → 104 and hit@3 112 → 117 of 117) and two content additions from gaps it
/// exposed, so it guards those fixes rather than measuring unseen queries.
pub const HELD_OUT: &[(&str, &[&str])] = &[
    // Keywords.
    (
        "postgres connection string env",
        &["guides/connect-database", "services/postgresql"],
    ),
    (
        "redis password env variable",
        &["services/valkey", "guides/connect-database"],
    ),
    ("zerops.yml start command", &["config/zerops-yml-run"]),
    (
        "cache node_modules between builds",
        &["platform/build-cache"],
    ),
    (
        "custom domain ssl certificate",
        &["networking/public-access"],
    ),
    ("horizontal scaling min containers", &["platform/scaling"]),
    (
        "reference env var from another service",
        &["platform/env-variables"],
    ),
    (
        "s3 bucket credentials",
        &[
            "guides/object-storage-integration",
            "services/object-storage",
        ],
    ),
    (
        "mysql database",
        &["services/mariadb", "decisions/choose-database"],
    ),
    ("mongodb alternative", &["decisions/choose-database"]),
    ("backup restore database", &["platform/backup"]),
    ("elasticsearch heap size", &["services/elasticsearch"]),
    ("kafka topic replication", &["services/kafka"]),
    (
        "vector database embeddings",
        &["services/qdrant", "decisions/choose-search"],
    ),
    (
        "persistent filesystem volume",
        &["services/shared-storage", "platform/containers-vs-vm"],
    ),
    ("zcli install login", &["config/zcli"]),
    ("github actions deploy", &["operations/ci-cd"]),
    ("wireguard vpn", &["networking/vpn"]),
    (
        "zero downtime deploy",
        &["config/health-checks", "platform/build-pipeline"],
    ),
    ("random secret generation import", &["config/preprocessor"]),
    ("api token permissions", &["platform/rbac"]),
    ("prometheus custom metrics", &["operations/metrics"]),
    (
        "ship logs to external syslog",
        &["operations/log-forwarding"],
    ),
    (
        "smtp port 465 blocked",
        &["operations/smtp", "networking/firewall"],
    ),
    ("connection pooling postgres", &["services/postgresql"]),
    (
        "rollback to previous version",
        &["platform/build-pipeline", "operations/ci-cd"],
    ),
    ("cdn purge cache", &["platform/cdn"]),
    (
        "glibc native dependencies",
        &["decisions/choose-runtime-base", "runtimes/ubuntu"],
    ),
    ("available runtime versions", &["config/service-types"]),
    ("exclude files from deploy", &["config/deploy-files"]),
    ("healthchecks", &["config/health-checks"]),
    ("postgress migrations", &["operations/init-commands"]),
    ("meilisearch master key", &["services/meilisearch"]),
    (
        "nats jetstream",
        &["services/nats", "decisions/choose-queue"],
    ),
    // Questions.
    (
        "how do I run database migrations only once on deploy",
        &["operations/init-commands"],
    ),
    (
        "what does deployFiles do",
        &["config/deploy-files", "config/zerops-yml-build"],
    ),
    (
        "initCommands vs prepareCommands",
        &["operations/init-commands", "config/zerops-yml-run"],
    ),
    (
        "why are my env variable changes not applied",
        &[
            "platform/env-variables",
            "operations/service-lifecycle",
            "gotchas/common",
        ],
    ),
    (
        "how do services talk to each other inside a project",
        &["networking/overview"],
    ),
    (
        "can I change a database from NON_HA to HA later",
        &["platform/ha-mode"],
    ),
    (
        "where should I store user uploaded files",
        &[
            "platform/containers-vs-vm",
            "guides/object-storage-integration",
            "services/shared-storage",
            "services/object-storage",
        ],
    ),
    (
        "how do I connect to the production database from my laptop",
        &[
            "guides/local-development",
            "networking/vpn",
            "guides/connect-database",
        ],
    ),
    (
        "how to install ffmpeg in the runtime container",
        &["config/zerops-yml-run", "runtimes/alpine"],
    ),
    (
        "is there a redis service",
        &["decisions/choose-cache", "services/valkey"],
    ),
    ("how to send email from my app", &["operations/smtp"]),
    (
        "how do I get a shell inside the running container",
        &["networking/ssh"],
    ),
    ("how to pause a build to debug it", &["platform/debug-mode"]),
    (
        "what happens when a deploy fails, does the old version keep running",
        &[
            "platform/build-pipeline",
            "config/health-checks",
            "guides/troubleshoot-build",
        ],
    ),
    (
        "how do I set up staging and production environments",
        &["guides/environment-promotion"],
    ),
    (
        "how to run a background worker without an http port",
        &["config/zerops-yml-run"],
    ),
    ("how do I schedule a task every night", &["config/cron"]),
    ("how to make my build faster", &["platform/build-cache"]),
    (
        "what's the difference between alpine and ubuntu",
        &["decisions/choose-runtime-base"],
    ),
    (
        "how do I point my domain to zerops",
        &["networking/public-access"],
    ),
    (
        "how to get the real client ip behind the proxy",
        &["networking/l7-balancer"],
    ),
    (
        "how many containers should I run in production",
        &["operations/production-checklist", "platform/scaling"],
    ),
    (
        "how to see the logs of a crashed app",
        &["operations/logging"],
    ),
    (
        "can I run docker compose on zerops",
        &["runtimes/docker", "decisions/choose-runtime-base"],
    ),
    (
        "how do I check whether an async operation finished",
        &["operations/processes"],
    ),
    (
        "how do I generate a random password when importing services",
        &["config/preprocessor"],
    ),
    (
        "which message queue should I use instead of rabbitmq",
        &["decisions/choose-queue"],
    ),
    (
        "how do I mount shared storage into my service",
        &["services/shared-storage"],
    ),
    (
        "how do I monitor cpu and memory usage",
        &["operations/metrics", "platform/scaling"],
    ),
    (
        "what is the difference between a project and a service",
        &["platform/infrastructure"],
    ),
    (
        "how to use cloudflare in front of my app",
        &["networking/cloudflare"],
    ),
    (
        "how to create a new service from yaml",
        &["config/import-yml", "config/import-yml-patterns"],
    ),
    (
        "can build commands access runtime env variables",
        &["platform/env-variables", "config/zerops-yml-build"],
    ),
    (
        "how do I deploy a monorepo with several apps",
        &["config/zerops-yml"],
    ),
    // Error text, pasted.
    (
        "Error: listen EADDRINUSE 0.0.0.0:3000",
        &[
            "runtimes/nodejs",
            "gotchas/common",
            "config/zerops-yml-run",
            "guides/troubleshoot-502",
        ],
    ),
    ("getaddrinfo ENOTFOUND db", &["networking/overview"]),
    (
        "connect ECONNREFUSED 127.0.0.1:5432",
        &[
            "networking/overview",
            "guides/connect-database",
            "guides/troubleshoot-502",
        ],
    ),
    (
        "Error: Cannot find module 'express'",
        &[
            "guides/troubleshoot-build",
            "runtimes/nodejs",
            "config/deploy-files",
        ],
    ),
    (
        "ModuleNotFoundError: No module named 'django'",
        &["runtimes/python", "guides/deploy-python"],
    ),
    ("413 Request Entity Too Large", &["networking/l7-balancer"]),
    (
        "ERR_TOO_MANY_REDIRECTS cloudflare",
        &["networking/cloudflare"],
    ),
    (
        "connect ETIMEDOUT smtp.gmail.com:465",
        &["operations/smtp", "networking/firewall"],
    ),
    (
        "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
        &[
            "platform/scaling",
            "runtimes/nodejs",
            "guides/troubleshoot-build",
        ],
    ),
    (
        "The server does not support SSL connections",
        &["guides/connect-database", "services/postgresql"],
    ),
    (
        "NOAUTH Authentication required",
        &["services/valkey", "guides/connect-database"],
    ),
    (
        "Error: setup 'api' not found in zerops.yml",
        &["guides/troubleshoot-build", "config/zerops-yml"],
    ),
    (
        "/bin/sh: apt-get: not found",
        &[
            "runtimes/alpine",
            "decisions/choose-runtime-base",
            "runtimes/ubuntu",
        ],
    ),
    (
        "NoSuchBucket: The specified bucket does not exist",
        &[
            "guides/object-storage-integration",
            "services/object-storage",
        ],
    ),
    // Framework tasks.
    (
        "nextjs standalone output zerops",
        &["guides/deploy-nodejs", "runtimes/nodejs"],
    ),
    (
        "laravel queue worker",
        &["guides/deploy-php-laravel", "config/zerops-yml-run"],
    ),
    (
        "django collectstatic",
        &["guides/deploy-python", "runtimes/python"],
    ),
    ("rails puma config", &["runtimes/ruby"]),
    ("spring boot jar", &["runtimes/java"]),
    ("phoenix PHX_HOST", &["runtimes/elixir"]),
    (
        "fastapi uvicorn host",
        &["guides/deploy-python", "runtimes/python"],
    ),
    (
        "vite react build env api url",
        &["guides/deploy-static-spa", "runtimes/static"],
    ),
    ("nestjs", &["runtimes/nodejs", "guides/deploy-nodejs"]),
    (
        "symfony trusted proxies",
        &["networking/l7-balancer", "runtimes/php"],
    ),
    ("asp.net core kestrel port", &["runtimes/dotnet"]),
    ("actix web release build", &["runtimes/rust"]),
    (
        "laravel scheduler schedule:run",
        &["config/cron", "guides/deploy-php-laravel"],
    ),
    ("prisma migrate deploy", &["operations/init-commands"]),
    (
        "angular routes 404 on page refresh",
        &["runtimes/static", "guides/deploy-static-spa"],
    ),
    // The 20 follow-ups, written after studying the misses above and before any fix.
    ("zerops.yml ports", &["config/zerops-yml-run"]),
    (
        "zerops.yml envVariables for build",
        &["config/zerops-yml-build", "platform/env-variables"],
    ),
    (
        "zerops.yml healthCheck",
        &["config/health-checks", "config/zerops-yml-run"],
    ),
    (
        "import.yml mode HA",
        &["config/import-yml", "platform/ha-mode"],
    ),
    (
        "import.yml envSecrets",
        &["config/import-yml", "platform/env-variables"],
    ),
    (
        "how does my api reach the database",
        &["networking/overview", "guides/connect-database"],
    ),
    (
        "frontend calling backend service internally",
        &["networking/overview"],
    ),
    (
        "alembic upgrade head on deploy",
        &["operations/init-commands"],
    ),
    (
        "rails db:migrate zerops",
        &["operations/init-commands", "runtimes/ruby"],
    ),
    (
        "django trusted proxy https redirect",
        &["networking/l7-balancer"],
    ),
    ("express trust proxy", &["networking/l7-balancer"]),
    ("laravel cron", &["config/cron"]),
    ("nextjs cron job", &["config/cron"]),
    (
        "staging database from my laptop",
        &[
            "guides/local-development",
            "networking/vpn",
            "guides/connect-database",
        ],
    ),
    (
        "valkey connection string env var",
        &["services/valkey", "guides/connect-database"],
    ),
    (
        "postgres password env variable",
        &["services/postgresql", "guides/connect-database"],
    ),
    (
        "where is the start command configured",
        &["config/zerops-yml-run"],
    ),
    (
        "django migrations run twice on multiple containers",
        &["operations/init-commands"],
    ),
    ("kafka topic retention", &["services/kafka"]),
    (
        "spring boot behind load balancer https",
        &["networking/l7-balancer"],
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
