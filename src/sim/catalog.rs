//! The service types the simulator accepts in imports, with what a new service of each
//! gets: its category, ports, and the variables a managed service generates.

/// What kind of service a type creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    /// Runtimes (`USER`).
    Runtime,
    /// Managed databases, caches, queues, search (`STANDARD`).
    Managed,
    SharedStorage,
    ObjectStorage,
}

impl Category {
    pub fn api_name(self) -> &'static str {
        match self {
            Category::Runtime => "USER",
            Category::Managed => "STANDARD",
            Category::SharedStorage => "SHARED_STORAGE",
            Category::ObjectStorage => "OBJECT_STORAGE",
        }
    }
}

/// One known type.
pub struct TypeEntry {
    pub name: &'static str,
    pub display: &'static str,
    pub category: Category,
    pub versions: &'static [&'static str],
    /// `(port, protocol, http)` every service of the type exposes.
    pub ports: &'static [(u32, &'static str, bool)],
}

const fn rt(
    name: &'static str,
    display: &'static str,
    versions: &'static [&'static str],
) -> TypeEntry {
    TypeEntry {
        name,
        display,
        category: Category::Runtime,
        versions,
        ports: &[],
    }
}

const fn managed(
    name: &'static str,
    display: &'static str,
    versions: &'static [&'static str],
    ports: &'static [(u32, &'static str, bool)],
) -> TypeEntry {
    TypeEntry {
        name,
        display,
        category: Category::Managed,
        versions,
        ports,
    }
}

/// The catalog (an offline snapshot of the platform's list).
pub const TYPES: &[TypeEntry] = &[
    rt("nodejs", "Node.js", &["18", "20", "22", "24", "latest"]),
    rt(
        "bun",
        "Bun",
        &["1", "1.1", "1.2", "1.3", "canary", "latest", "nightly"],
    ),
    rt("deno", "Deno", &["1", "2", "latest"]),
    rt(
        "python",
        "Python",
        &["3.9", "3.11", "3.12", "3.14", "latest"],
    ),
    rt(
        "php-apache",
        "PHP + Apache",
        &["8.1", "8.3", "8.4", "8.5", "latest"],
    ),
    rt(
        "php-nginx",
        "PHP + Nginx",
        &["8.1", "8.3", "8.4", "8.5", "latest"],
    ),
    rt("go", "Go", &["1", "1.22", "latest"]),
    rt("golang", "Go", &["1", "1.22", "latest"]),
    rt("java", "Java", &["17", "21", "latest"]),
    rt("dotnet", ".NET", &["6", "7", "8", "9", "10", "latest"]),
    rt(
        "rust",
        "Rust",
        &["1", "1.78", "1.80", "1.86", "nightly", "stable", "latest"],
    ),
    rt("elixir", "Elixir", &["1", "1.16", "latest"]),
    rt("gleam", "Gleam", &["1", "1.5", "latest"]),
    rt("ruby", "Ruby", &["3.2", "3.3", "3.4", "latest"]),
    rt("static", "Static", &["", "1.0", "latest"]),
    rt("nginx", "Nginx", &["1.22", "latest"]),
    rt("docker", "Docker", &["26", "26.1", "latest"]),
    rt(
        "alpine",
        "Alpine",
        &["3.20", "3.21", "3.22", "3.23", "latest"],
    ),
    rt("ubuntu", "Ubuntu", &["22.04", "24.04", "latest"]),
    managed(
        "postgresql",
        "PostgreSQL",
        &["14", "16", "17", "18"],
        &[(5432, "tcp", false), (6432, "tcp", false)],
    ),
    managed("mariadb", "MariaDB", &["10.6"], &[(3306, "tcp", false)]),
    managed(
        "valkey",
        "Valkey",
        &["7.2"],
        &[(6379, "tcp", false), (6380, "tcp", false)],
    ),
    managed("keydb", "KeyDB", &["6"], &[(6379, "tcp", false)]),
    managed(
        "clickhouse",
        "ClickHouse",
        &["25.3"],
        &[(9000, "tcp", false), (8123, "tcp", true)],
    ),
    managed(
        "elasticsearch",
        "Elasticsearch",
        &["8.16", "9.2"],
        &[(9200, "tcp", true)],
    ),
    managed(
        "meilisearch",
        "Meilisearch",
        &["1.10", "1.20"],
        &[(7700, "tcp", true)],
    ),
    managed(
        "typesense",
        "Typesense",
        &["27.1", "30.2"],
        &[(8108, "tcp", true)],
    ),
    managed(
        "qdrant",
        "Qdrant",
        &["1.10", "1.12"],
        &[(6333, "tcp", true), (6334, "tcp", false)],
    ),
    managed("kafka", "Kafka", &["3.8", "3.9"], &[(9092, "tcp", false)]),
    managed(
        "nats",
        "NATS",
        &["2.10", "2.12"],
        &[(4222, "tcp", false), (8222, "tcp", true)],
    ),
    managed("rabbitmq", "RabbitMQ", &["3.9"], &[(5672, "tcp", false)]),
    TypeEntry {
        name: "shared-storage",
        display: "Shared storage",
        category: Category::SharedStorage,
        versions: &[""],
        ports: &[],
    },
    TypeEntry {
        name: "object-storage",
        display: "Object storage",
        category: Category::ObjectStorage,
        versions: &[""],
        ports: &[],
    },
];

/// A resolved import type: the entry, the version and the mode the type implies.
pub struct Resolved {
    pub entry: &'static TypeEntry,
    /// Canonical `name@version` (or `name` for unversioned types).
    pub version_name: String,
    /// `HA`/`NON_HA` when the spelling carries it (`:ha`, `:single`).
    pub implied_mode: Option<&'static str>,
}

/// Resolves `nodejs@22`, `alpine/nodejs@22`, `postgresql:single@16`, `object-storage`...
pub fn resolve(type_name: &str) -> Option<Resolved> {
    let text = type_name.trim();
    let text = text
        .strip_prefix("alpine/")
        .or_else(|| text.strip_prefix("ubuntu/"))
        .unwrap_or(text);
    let (base, version) = match text.split_once('@') {
        Some((base, version)) => (base, version),
        None => (text, ""),
    };
    let (name, implied_mode) = match base.split_once(':') {
        Some((name, "single")) => (name, Some("NON_HA")),
        Some((name, "ha")) => (name, Some("HA")),
        Some(_) => return None,
        None => (base, None),
    };
    let name = match name {
        "objectstorage" => "object-storage",
        "sharedstorage" => "shared-storage",
        other => other,
    };
    let entry = TYPES.iter().find(|t| t.name == name)?;
    if implied_mode.is_some()
        && !matches!(entry.category, Category::Managed | Category::SharedStorage)
    {
        return None;
    }
    if !entry.versions.contains(&version) {
        return None;
    }
    let version_name = if version.is_empty() {
        name.to_owned()
    } else {
        format!("{name}@{version}")
    };
    Some(Resolved {
        entry,
        version_name,
        implied_mode,
    })
}

/// The variables a managed service of this type generates, for hostname `host`.
pub fn generated_env(entry: &TypeEntry, host: &str, password: &str) -> Vec<(String, String)> {
    let mut vars = vec![("hostname".to_owned(), host.to_owned())];
    let mut add = |k: &str, v: String| vars.push((k.to_owned(), v));
    match entry.name {
        "postgresql" => {
            add("port", "5432".into());
            add("portTls", "6432".into());
            add("user", "db".into());
            add("password", password.into());
            add("dbName", "db".into());
            add("superUser", "postgres".into());
            add("superUserPassword", format!("{password}su"));
            add(
                "connectionString",
                format!("postgresql://db:{password}@{host}:5432"),
            );
            add(
                "connectionTlsString",
                format!("postgresql://db:{password}@{host}:6432"),
            );
        }
        "mariadb" => {
            add("port", "3306".into());
            add("user", host.into());
            add("password", password.into());
            add("dbName", host.into());
            add(
                "connectionString",
                format!("mysql://{host}:{password}@{host}:3306"),
            );
        }
        // Valkey services created today require a password for the `default` user.
        "valkey" => {
            add("port", "6379".into());
            add("portTls", "6380".into());
            add("password", password.into());
            add(
                "connectionString",
                format!("redis://default:{password}@{host}.zerops:6379"),
            );
            add(
                "connectionTlsString",
                format!("rediss://default:{password}@{host}.zerops:6380"),
            );
        }
        "keydb" => {
            add("port", "6379".into());
            add("portTls", "6380".into());
            add("connectionString", format!("redis://{host}:6379"));
        }
        "object-storage" => {
            add("apiUrl", format!("https://storage-prg1.zerops.io/{host}"));
            add("apiHost", "storage-prg1.zerops.io".into());
            add("accessKeyId", format!("AK{}", password.to_uppercase()));
            add("secretAccessKey", format!("SK{password}"));
            add("bucketName", format!("{host}-bucket"));
        }
        _ => {
            if let Some((port, _, _)) = entry.ports.first() {
                add("port", port.to_string());
            }
            add("password", password.into());
        }
    }
    vars
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_resolve() {
        assert_eq!(resolve("nodejs@22").unwrap().version_name, "nodejs@22");
        assert_eq!(
            resolve("alpine/nodejs@22").unwrap().version_name,
            "nodejs@22"
        );
        let pg = resolve("postgresql:ha@16").unwrap();
        assert_eq!(
            (pg.version_name.as_str(), pg.implied_mode),
            ("postgresql@16", Some("HA"))
        );
        assert_eq!(
            resolve("object-storage").unwrap().entry.category,
            Category::ObjectStorage
        );
        assert_eq!(resolve("static").unwrap().version_name, "static");
        assert!(resolve("nodejs@99").is_none());
        assert!(resolve("nodejs:ha@22").is_none());
        assert!(resolve("mongodb@7").is_none());
    }

    /// Valkey requires a password, and its connection strings carry it for `default`.
    #[test]
    fn valkey_generates_a_password() {
        let valkey = resolve("valkey@7.2").unwrap().entry;
        let vars = generated_env(valkey, "cache", "pw");
        let get = |key: &str| vars.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        assert_eq!(get("password"), Some("pw"));
        assert_eq!(
            get("connectionString"),
            Some("redis://default:pw@cache.zerops:6379")
        );
    }
}
