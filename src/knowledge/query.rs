//! Query expansion and suggestions: aliases that add terms (never replace them), and
//! plain answers for services Zerops does not offer, naming the closest alternative.

/// `word → extra words`. The original word stays in the query.
pub const ALIASES: &[(&str, &str)] = &[
    ("postgres", "postgresql"),
    ("pg", "postgresql postgres"),
    ("psql", "postgresql"),
    ("redis", "valkey"),
    ("mysql", "mariadb"),
    ("node", "nodejs"),
    ("js", "nodejs javascript"),
    ("ts", "nodejs typescript"),
    ("typescript", "nodejs"),
    ("javascript", "nodejs"),
    ("db", "database"),
    ("ssl", "tls"),
    ("cert", "certificate ssl tls"),
    ("env", "environment variable"),
    ("envs", "environment variable"),
    ("vars", "environment variable"),
    ("variables", "environment"),
    ("ha", "high availability mode"),
    ("k8s", "kubernetes"),
    ("mongo", "mongodb"),
    ("docker", "dockerfile"),
    ("s3", "object storage"),
    ("bucket", "object storage"),
    ("cron", "crontab schedule"),
    ("log", "logging logs"),
    ("logs", "logging log"),
    ("dns", "domain networking"),
    ("ci", "ci-cd continuous integration"),
    ("cd", "ci-cd continuous deployment"),
    ("dotnet", ".net csharp"),
    ("csharp", "dotnet .net"),
    ("memcached", "valkey cache"),
    ("golang", "go"),
    ("py", "python"),
    ("rabbitmq", "nats kafka queue"),
    ("elastic", "elasticsearch"),
    ("domain", "subdomain public-access"),
    ("yaml", "zerops.yml import.yml"),
    ("yml", "zerops.yml import.yml"),
    ("502", "bad gateway"),
    ("laravel", "php"),
    ("django", "python"),
    ("flask", "python"),
    ("fastapi", "python"),
    ("rails", "ruby"),
    ("nextjs", "nodejs"),
    ("express", "nodejs"),
    ("react", "static spa"),
    ("vue", "static spa"),
    ("spring", "java"),
    ("secret", "envSecrets environment"),
    ("secrets", "envSecrets environment"),
    ("migrations", "initCommands execOnce"),
    ("migration", "initCommands execOnce"),
];

/// A service Zerops does not offer, with what to use instead.
pub struct Unsupported {
    pub words: &'static [&'static str],
    pub message: &'static str,
}

pub const UNSUPPORTED: &[Unsupported] = &[
    Unsupported {
        words: &["mongodb", "mongo"],
        message: "Zerops has no MongoDB. Use PostgreSQL (zerops://docs/services/postgresql) or MariaDB; see zerops://docs/decisions/choose-database.",
    },
    Unsupported {
        words: &["dynamodb"],
        message: "Zerops has no DynamoDB. Use PostgreSQL (zerops://docs/services/postgresql) or MariaDB.",
    },
    Unsupported {
        words: &["mysql"],
        message: "Zerops offers MariaDB, which is MySQL-compatible: see zerops://docs/services/mariadb.",
    },
    Unsupported {
        words: &["memcached"],
        message: "Zerops has no Memcached; Valkey (Redis-compatible) covers caching: see zerops://docs/services/valkey.",
    },
    Unsupported {
        words: &["redis"],
        message: "Zerops offers Valkey, a Redis-compatible cache (the same protocol and clients): see zerops://docs/services/valkey.",
    },
    Unsupported {
        words: &["sqlite"],
        message: "SQLite would live on a container's local disk, which is replaced on deploys; use PostgreSQL (zerops://docs/services/postgresql) or MariaDB.",
    },
    Unsupported {
        words: &["kubernetes", "k8s"],
        message: "Zerops is a PaaS, not Kubernetes: services are defined in import.yml (zerops://docs/config/import-yml) and run as containers (zerops://docs/platform/infrastructure).",
    },
    Unsupported {
        words: &["rabbitmq"],
        message: "RabbitMQ is not offered for new services; use NATS or Kafka: see zerops://docs/decisions/choose-queue.",
    },
    Unsupported {
        words: &[
            "cassandra",
            "couchdb",
            "firebase",
            "supabase",
            "cockroachdb",
        ],
        message: "That database is not offered on Zerops; use PostgreSQL (zerops://docs/services/postgresql).",
    },
    Unsupported {
        words: &["lambda", "serverless"],
        message: "Zerops runs full Linux containers, not serverless functions: see zerops://docs/platform/infrastructure.",
    },
    Unsupported {
        words: &["procfile", "heroku"],
        message: "Zerops has no Procfile: the start command goes in zerops.yml run.start (zerops://docs/config/zerops-yml-run).",
    },
];

/// The extra words the aliases add for `word` (lower-case, unstemmed).
pub fn expand(word: &str) -> Option<&'static str> {
    ALIASES
        .iter()
        .find(|(w, _)| *w == word)
        .map(|(_, extra)| *extra)
}

/// Messages for unsupported services named in the query.
pub fn unsupported_messages(words: &[String]) -> Vec<&'static str> {
    let mut out = Vec::new();
    for entry in UNSUPPORTED {
        if entry.words.iter().any(|w| words.iter().any(|q| q == w)) && !out.contains(&entry.message)
        {
            out.push(entry.message);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_least_twenty_five_aliases_that_add() {
        assert!(ALIASES.len() >= 25);
        assert_eq!(expand("postgres"), Some("postgresql"));
        assert_eq!(expand("unknown"), None);
    }

    #[test]
    fn unsupported_services_name_the_alternative() {
        let msgs = unsupported_messages(&["mongodb".into(), "redis".into()]);
        assert_eq!(msgs.len(), 2);
        assert!(msgs[0].contains("PostgreSQL"));
        assert!(msgs[1].contains("Valkey"));
    }
}
