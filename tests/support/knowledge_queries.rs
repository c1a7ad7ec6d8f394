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

/// A second, independent set written by an audit of 2026-11-26: 201 queries (error
/// messages, task phrasings, terse keywords, other names for services), none of them in the
/// sets above. Some of its misses were fixed by keywords and aliases, so it guards against
/// regressions rather than measuring fresh queries.
pub const AUDIT: &[(&str, &[&str])] = &[
    // From the greenfield walkthrough (2026-11-26): an API code and a plain question.
    ("serviceStackIsNotHttp", &["networking/subdomain"]),
    (
        "share database between two services",
        &["guides/connect-database"],
    ),
    (
        r#"npm ERR! Missing script: "build""#,
        &[
            "guides/troubleshoot-build",
            "runtimes/nodejs",
            "guides/deploy-nodejs",
        ],
    ),
    (
        r#"password authentication failed for user "db""#,
        &[
            "guides/connect-database",
            "guides/deploy-go",
            "services/postgresql",
            "guides/local-development",
        ],
    ),
    (
        r#"SSL SYSCALL error: EOF detected"#,
        &[
            "guides/connect-database",
            "services/postgresql",
            "guides/local-development",
            "networking/overview",
        ],
    ),
    (
        r#"503 Service Unavailable"#,
        &["guides/troubleshoot-502", "networking/l7-balancer"],
    ),
    (
        r#"504 gateway timeout on long request"#,
        &["networking/l7-balancer", "guides/troubleshoot-502"],
    ),
    (
        r#"sudo: apt-get: command not found"#,
        &[
            "runtimes/alpine",
            "decisions/choose-runtime-base",
            "runtimes/ubuntu",
            "guides/troubleshoot-build",
        ],
    ),
    (
        r#"ERROR: unable to select packages apk"#,
        &["runtimes/alpine", "guides/troubleshoot-build"],
    ),
    (
        r#"exec ./app: no such file or directory"#,
        &[
            "runtimes/go",
            "guides/deploy-go",
            "config/deploy-files",
            "guides/troubleshoot-build",
        ],
    ),
    (
        r#"Error relocating symbol not found musl"#,
        &[
            "runtimes/alpine",
            "decisions/choose-runtime-base",
            "runtimes/ubuntu",
        ],
    ),
    (
        r#"CSRF verification failed django"#,
        &["guides/deploy-python", "networking/l7-balancer"],
    ),
    (
        r#"DisallowedHost Invalid HTTP_HOST header"#,
        &[
            "guides/deploy-python",
            "guides/troubleshoot-502",
            "networking/l7-balancer",
        ],
    ),
    (
        r#"mixed content http links behind https"#,
        &["networking/l7-balancer"],
    ),
    (
        r#"WRONGPASS invalid username-password pair"#,
        &["services/valkey", "decisions/choose-cache"],
    ),
    (
        r#"serviceStackTypeNotFound"#,
        &[
            "config/service-types",
            "config/import-yml",
            "gotchas/common",
        ],
    ),
    (
        r#"projectImportMissingParameter mode"#,
        &["config/import-yml", "platform/ha-mode", "gotchas/common"],
    ),
    (r#"IMPORT_HAS_PROJECT"#, &["config/import-yml"]),
    (r#"TOKEN_MULTI_PROJECT"#, &["platform/rbac"]),
    (
        r#"noSubdomainPorts"#,
        &["networking/subdomain", "operations/processes"],
    ),
    (r#"userDataDuplicateKey"#, &["platform/env-variables"]),
    (
        r#"OOMKilled container keeps restarting"#,
        &["platform/scaling"],
    ),
    (
        r#"laravel Unsupported cipher or incorrect key length"#,
        &["guides/deploy-php-laravel", "config/preprocessor"],
    ),
    (
        r#"at least one git commit must exist"#,
        &["guides/troubleshoot-build", "config/zcli"],
    ),
    (
        r#"zcli unauthenticated user"#,
        &["config/zcli", "guides/troubleshoot-build"],
    ),
    (r#"kafka SASL authentication failed"#, &["services/kafka"]),
    (r#"nats authorization violation"#, &["services/nats"]),
    (
        r#"elasticsearch 401 unauthorized"#,
        &["services/elasticsearch"],
    ),
    (
        r#"how do I add redis to my project"#,
        &["services/valkey", "decisions/choose-cache"],
    ),
    (
        r#"deploy nextjs static export"#,
        &[
            "guides/deploy-static-spa",
            "runtimes/static",
            "runtimes/nodejs",
        ],
    ),
    (
        r#"env var not visible after deploy"#,
        &[
            "platform/env-variables",
            "operations/service-lifecycle",
            "gotchas/common",
        ],
    ),
    (r#"scale ram"#, &["platform/scaling"]),
    (r#"give my api more memory"#, &["platform/scaling"]),
    (
        r#"run two containers for redundancy"#,
        &[
            "platform/scaling",
            "platform/ha-mode",
            "operations/production-checklist",
        ],
    ),
    (
        r#"use my own domain www.example.com"#,
        &["networking/public-access"],
    ),
    (
        r#"wildcard certificate *.example.com"#,
        &["networking/public-access", "networking/cloudflare"],
    ),
    (r#"crontab every night at 3am"#, &["config/cron"]),
    (
        r#"liveness probe restart unhealthy container"#,
        &["config/health-checks"],
    ),
    (
        r#"database migrations with zero downtime deploy"#,
        &[
            "operations/init-commands",
            "config/health-checks",
            "platform/build-pipeline",
        ],
    ),
    (
        r#"undo last deploy"#,
        &["platform/build-pipeline", "operations/ci-cd"],
    ),
    (
        r#"import.yml for postgres and nodejs"#,
        &[
            "config/import-yml",
            "guides/deploy-nodejs",
            "config/import-yml-patterns",
        ],
    ),
    (
        r#"create a mysql database"#,
        &["services/mariadb", "decisions/choose-database"],
    ),
    (
        r#"presigned url upload from the browser"#,
        &["guides/object-storage-integration"],
    ),
    (
        r#"where to store user avatars"#,
        &[
            "guides/object-storage-integration",
            "services/object-storage",
            "platform/containers-vs-vm",
        ],
    ),
    (
        r#"mount shared volume between containers"#,
        &["services/shared-storage"],
    ),
    (
        r#"run two processes in one container"#,
        &["config/zerops-yml-run"],
    ),
    (
        r#"celery worker"#,
        &[
            "decisions/choose-queue",
            "config/import-yml-patterns",
            "config/zerops-yml-run",
            "runtimes/python",
        ],
    ),
    (
        r#"websocket connection drops after 30 seconds"#,
        &["networking/l7-balancer"],
    ),
    (
        r#"server sent events buffering"#,
        &["networking/l7-balancer"],
    ),
    (
        r#"allow only my office IP"#,
        &["networking/l7-balancer", "networking/firewall"],
    ),
    (
        r#"password protect staging site basic auth"#,
        &["networking/l7-balancer"],
    ),
    (
        r#"open a public tcp port for a game server"#,
        &["networking/public-access"],
    ),
    (
        r#"expose postgres to the internet"#,
        &["networking/public-access", "services/postgresql"],
    ),
    (
        r#"connect with psql from my machine"#,
        &[
            "networking/vpn",
            "guides/local-development",
            "services/postgresql",
        ],
    ),
    (
        r#"vpn hostname not resolving on windows"#,
        &["networking/vpn"],
    ),
    (r#"wsl2 zcli vpn"#, &["networking/vpn"]),
    (r#"ssh to a specific container"#, &["networking/ssh"]),
    (r#"allow ssh between services"#, &["networking/ssh"]),
    (r#"send logs to datadog"#, &["operations/log-forwarding"]),
    (r#"grafana dashboards"#, &["operations/metrics"]),
    (r#"opentelemetry tracing"#, &["operations/metrics"]),
    (r#"log levels syslog severity"#, &["operations/logging"]),
    (
        r#"python print not showing in logs"#,
        &["operations/logging"],
    ),
    (
        r#"read build log of failed deploy"#,
        &[
            "operations/logging",
            "guides/troubleshoot-build",
            "platform/build-pipeline",
        ],
    ),
    (r#"maximum build time"#, &["platform/build-pipeline"]),
    (
        r#"build container memory limit"#,
        &["platform/build-pipeline", "guides/troubleshoot-build"],
    ),
    (
        r#"cache pip packages between builds"#,
        &["platform/build-cache"],
    ),
    (r#"pnpm store cache"#, &["platform/build-cache"]),
    (
        r#"puppeteer chromium"#,
        &["decisions/choose-runtime-base", "runtimes/ubuntu"],
    ),
    (
        r#"sharp native module fails on alpine"#,
        &[
            "decisions/choose-runtime-base",
            "runtimes/ubuntu",
            "runtimes/alpine",
            "runtimes/nodejs",
        ],
    ),
    (r#"CGO_ENABLED=1 go sqlite"#, &["runtimes/go"]),
    (r#"jvm heap size in container"#, &["runtimes/java"]),
    (r#"gradle build jar"#, &["runtimes/java"]),
    (r#"dotnet publish"#, &["runtimes/dotnet"]),
    (r#"rails assets precompile"#, &["runtimes/ruby"]),
    (r#"phoenix secret_key_base"#, &["runtimes/elixir"]),
    (r#"deno allow-net permissions"#, &["runtimes/deno"]),
    (r#"bun elysia"#, &["runtimes/bun"]),
    (r#"gleam erlang shipment"#, &["runtimes/gleam"]),
    (r#"axum server"#, &["runtimes/rust"]),
    (
        r#"php extension intl missing"#,
        &["runtimes/php", "guides/troubleshoot-build"],
    ),
    (r#"php.ini upload_max_filesize"#, &["runtimes/php"]),
    (r#"nginx proxy_pass custom config"#, &["runtimes/nginx"]),
    (
        r#"vue router history mode 404"#,
        &["runtimes/static", "guides/deploy-static-spa"],
    ),
    (r#"CORS headers on static site"#, &["runtimes/static"]),
    (
        r#"redirect www to non-www"#,
        &[
            "runtimes/static",
            "networking/l7-balancer",
            "networking/public-access",
        ],
    ),
    (
        r#"clickhouse replicated table ha"#,
        &["services/clickhouse"],
    ),
    (
        r#"meilisearch search key frontend"#,
        &["services/meilisearch", "decisions/choose-search"],
    ),
    (r#"typesense api key"#, &["services/typesense"]),
    (r#"qdrant grpc port"#, &["services/qdrant"]),
    (r#"kafka bootstrap servers"#, &["services/kafka"]),
    (r#"nats max payload"#, &["services/nats"]),
    (r#"migrate from keydb to valkey"#, &["services/keydb"]),
    (
        r#"valkey eviction policy"#,
        &["services/valkey", "decisions/choose-cache"],
    ),
    (r#"pgbouncer"#, &["services/postgresql"]),
    (r#"postgis"#, &["services/postgresql"]),
    (r#"mariadb replication lag"#, &["services/mariadb"]),
    (r#"backup schedule"#, &["platform/backup"]),
    (r#"download database backup"#, &["platform/backup"]),
    (r#"backups after deleting a project"#, &["platform/backup"]),
    (r#"cdn for images"#, &["platform/cdn"]),
    (
        r#"access token for github actions"#,
        &["platform/rbac", "operations/ci-cd"],
    ),
    (r#"read only token permission denied"#, &["platform/rbac"]),
    (r#"skip ci build"#, &["operations/ci-cd"]),
    (r#"deploy on new tag"#, &["operations/ci-cd"]),
    (r#"gitlab ci deploy"#, &["operations/ci-cd"]),
    (
        r#"stop service to save money"#,
        &["operations/service-lifecycle"],
    ),
    (r#"delete a service"#, &["operations/service-lifecycle"]),
    (r#"stillRunning true"#, &["operations/processes"]),
    (
        r#"cancel a running build"#,
        &["platform/build-pipeline", "operations/processes"],
    ),
    (
        r#"service stuck in READY_TO_DEPLOY"#,
        &["operations/service-lifecycle"],
    ),
    (
        r#"generate RSA key pair in import.yml"#,
        &["config/preprocessor"],
    ),
    (r#"bcrypt admin password hash"#, &["config/preprocessor"]),
    (
        r#"rename service hostname"#,
        &["config/import-yml", "platform/infrastructure"],
    ),
    (r#"php 8.2"#, &["config/service-types", "runtimes/php"]),
    (
        r#"python 3.13"#,
        &["config/service-types", "runtimes/python"],
    ),
    (
        r#"postgres 15"#,
        &[
            "config/service-types",
            "services/postgresql",
            "gotchas/common",
        ],
    ),
    (
        r#"docker image from private registry"#,
        &["runtimes/docker"],
    ),
    (r#"send email with mailgun"#, &["operations/smtp"]),
    (
        r#"mailpit"#,
        &[
            "operations/smtp",
            "config/import-yml-patterns",
            "runtimes/alpine",
        ],
    ),
    (r#"adminer database gui"#, &["config/import-yml-patterns"]),
    (
        r#"request ip shows internal address"#,
        &["networking/l7-balancer"],
    ),
    (
        r#"upload limit 50mb"#,
        &["networking/subdomain", "networking/l7-balancer"],
    ),
    (r#"envReplace placeholder"#, &["config/zerops-yml-run"]),
    (r#"extends setup inheritance"#, &["config/zerops-yml"]),
    (r#"zerops.yml json schema"#, &["config/zerops-yml"]),
    (
        r#"addToRunPrepare"#,
        &[
            "config/zerops-yml-build",
            "platform/build-pipeline",
            "operations/init-commands",
        ],
    ),
    (
        r#"temporaryShutdown"#,
        &["config/health-checks", "config/zerops-yml"],
    ),
    (r#"seed database only once"#, &["operations/init-commands"]),
    (r#"zsc test tcp"#, &["operations/init-commands"]),
    (r#".deployignore vs .gitignore"#, &["config/deploy-files"]),
    (r#"zerops.yml build section"#, &["config/zerops-yml-build"]),
    (r#"zerops.yml run section"#, &["config/zerops-yml-run"]),
    (r#"import.yml preprocessor"#, &["config/preprocessor"]),
    (r#"valky ha"#, &["services/valkey"]),
    (r#"cornjob"#, &["config/cron"]),
    (
        r#"subdomian not working"#,
        &["networking/subdomain", "guides/troubleshoot-502"],
    ),
    (
        r#"deploymnet failed"#,
        &["guides/troubleshoot-build", "platform/build-pipeline"],
    ),
    (r#"clickhose"#, &["services/clickhouse"]),
    (r#"typsense"#, &["services/typesense"]),
    (r#"meilisearh"#, &["services/meilisearch"]),
    (
        r#"egress"#,
        &["platform/infrastructure", "networking/firewall"],
    ),
    (r#"oom"#, &["platform/scaling"]),
    (r#"ipv6"#, &["networking/public-access"]),
    (
        r#"aws s3 sdk endpoint"#,
        &[
            "guides/object-storage-integration",
            "services/object-storage",
        ],
    ),
    (r#"redis-cli"#, &["networking/vpn", "services/valkey"]),
    (r#"pg_dump"#, &["platform/backup"]),
    (r#"mongo"#, &["decisions/choose-database"]),
    (r#"es"#, &["services/elasticsearch"]),
    (
        r#"which framework port does next.js use"#,
        &["guides/troubleshoot-502", "runtimes/nodejs"],
    ),
    (
        r#"build failed npm ci"#,
        &[
            "guides/troubleshoot-build",
            "guides/deploy-static-spa",
            "runtimes/nodejs",
            "guides/deploy-nodejs",
        ],
    ),
    (r#"cron job"#, &["config/cron"]),
    (r#"custom domain ssl"#, &["networking/public-access"]),
    (
        r#"s3"#,
        &[
            "services/object-storage",
            "guides/object-storage-integration",
        ],
    ),
    (r#"postgres"#, &["services/postgresql"]),
    (r#"redis"#, &["services/valkey", "decisions/choose-cache"]),
    (
        r#"x509: certificate signed by unknown authority"#,
        &[
            "networking/overview",
            "guides/connect-database",
            "gotchas/common",
        ],
    ),
    (r#"increase disk space"#, &["platform/scaling"]),
    (r#"dedicated cpu"#, &["platform/scaling"]),
    (
        r#"how much does a dedicated ipv4 cost"#,
        &["networking/public-access"],
    ),
    (
        r#"Killed signal 9 during build"#,
        &["guides/troubleshoot-build", "platform/build-pipeline"],
    ),
    (
        r#"connection reset after idle valkey"#,
        &["services/valkey", "decisions/choose-cache"],
    ),
    (
        r#"zsc noop"#,
        &["operations/init-commands", "guides/troubleshoot-502"],
    ),
    (
        r#"startWithoutCode"#,
        &["operations/service-lifecycle", "config/import-yml"],
    ),
    (
        r#"dev container I can ssh into"#,
        &[
            "operations/service-lifecycle",
            "networking/ssh",
            "config/deploy-files",
        ],
    ),
    (
        r#"laravel horizon"#,
        &["decisions/choose-cache", "guides/deploy-php-laravel"],
    ),
    (
        r#"bullmq"#,
        &["decisions/choose-cache", "decisions/choose-queue"],
    ),
    (
        r#"full text search in postgres"#,
        &["decisions/choose-search"],
    ),
    (
        r#"algolia alternative"#,
        &[
            "decisions/choose-search",
            "services/meilisearch",
            "services/typesense",
        ],
    ),
    (
        r#"pgvector embeddings"#,
        &[
            "services/postgresql",
            "decisions/choose-search",
            "services/qdrant",
        ],
    ),
    (r#"lower_case_table_names"#, &["services/mariadb"]),
    (r#"NODE_OPTIONS max-old-space-size"#, &["runtimes/nodejs"]),
    (r#"private github repo buildFromGit"#, &["operations/ci-cd"]),
    (
        r#"project variables shared by all services"#,
        &["platform/env-variables"],
    ),
    (
        r#"dotenv file"#,
        &["platform/env-variables", "guides/local-development"],
    ),
    (r#"hostname max length"#, &["config/import-yml"]),
    (
        r#"can't connect to mariadb from laptop"#,
        &[
            "guides/local-development",
            "networking/vpn",
            "services/mariadb",
            "guides/connect-database",
        ],
    ),
    (r#"timezone of cron jobs"#, &["config/cron"]),
    (r#"readiness probe failing"#, &["config/health-checks"]),
    (
        r#"how to whitelist IP addresses for my app"#,
        &["networking/l7-balancer", "networking/firewall"],
    ),
    (r#"x-real-ip header"#, &["networking/l7-balancer"]),
    (r#"service mode"#, &["platform/ha-mode"]),
    (r#"websocket timeout"#, &["networking/l7-balancer"]),
    (r#"zerops.yml cron"#, &["config/cron"]),
    (
        r#"import.yml scaling"#,
        &["platform/scaling", "config/import-yml"],
    ),
    (r#"service events history"#, &["operations/processes"]),
    (
        r#"store uploaded images"#,
        &[
            "guides/object-storage-integration",
            "services/object-storage",
        ],
    ),
    (
        r#"revert to previous deploy"#,
        &["platform/build-pipeline", "operations/ci-cd"],
    ),
    (
        r#"elastic search"#,
        &["services/elasticsearch", "decisions/choose-search"],
    ),
    (
        r#"hide staging behind a password"#,
        &["networking/l7-balancer"],
    ),
    (
        r#"container memory keeps growing killed"#,
        &["platform/scaling"],
    ),
    (
        r#"zerops.yml deploy section"#,
        &["config/zerops-yml", "config/health-checks"],
    ),
    (
        r#"services in the same project can't reach each other"#,
        &["networking/overview"],
    ),
    (
        r#"run multiple commands at start"#,
        &["config/zerops-yml-run", "operations/init-commands"],
    ),
    (r#"generate ssh key in import"#, &["config/preprocessor"]),
    (r#"redis WRONGPASS"#, &["services/valkey"]),
    (r#"DisallowedHost"#, &["guides/deploy-python"]),
    (r#"vpn mtu"#, &["networking/vpn"]),
    (
        r#"nginx upload size limit 413 custom domain"#,
        &["networking/l7-balancer"],
    ),
    (
        r#"service status ACTIVE but app down"#,
        &["operations/service-lifecycle", "guides/troubleshoot-502"],
    ),
    (
        r#"node_modules missing at runtime"#,
        &["config/deploy-files", "runtimes/nodejs"],
    ),
    (r#"build cache not working"#, &["platform/build-cache"]),
    (r#"postgres read replica port"#, &["services/postgresql"]),
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
