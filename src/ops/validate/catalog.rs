//! The offline snapshot of Zerops service types and `zerops.yml` bases (spec
//! zcli-and-yaml §5), and the matching that treats legacy and composite spellings alike:
//! `nodejs@22` ≡ `alpine/nodejs@22` ≡ `ubuntu/nodejs@22`, `postgresql@16` ≡
//! `postgresql:single@16`.
//!
//! To update: edit the tables below. In a version list, `""` stands for the name without a
//! version (`static`, `object-storage`, `shared-storage:single`). A family that is known but
//! a version that is not is only a warning to the caller (the live list may be newer),
//! unless the version part is broken (`nodejs@`, `nodejs@@22`): no list can hold that.

/// What a service type is, as far as the rules care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A language runtime (nodejs, go, python…): needs `start`, should expose ports.
    Runtime,
    /// PHP with a built-in web server (php-apache, php-nginx).
    PhpWeb,
    /// PHP build base (build only).
    PhpBuild,
    /// Plain nginx web server.
    Nginx,
    /// Static file server (runs on nginx).
    Static,
    /// A bare OS container (alpine, ubuntu).
    Os,
    /// Docker in a VM.
    Docker,
    /// zcp's own container.
    Zcp,
    /// A managed service (database, cache, search, queue).
    Managed,
    SharedStorage,
    ObjectStorage,
    LocalStorage,
}

impl Kind {
    /// Takes `mode` / the `:single`/`:ha` suffix.
    pub fn has_mode(self) -> bool {
        matches!(
            self,
            Kind::Managed | Kind::SharedStorage | Kind::LocalStorage
        )
    }

    /// Managed services and storages: no code, no containers to scale horizontally.
    pub fn is_service(self) -> bool {
        self.has_mode() || self == Kind::ObjectStorage
    }

    /// Serves HTTP without a `start` command.
    pub fn has_web_server(self) -> bool {
        matches!(self, Kind::PhpWeb | Kind::Nginx | Kind::Static)
    }

    /// Runs the user's own long-lived process.
    pub fn is_dynamic(self) -> bool {
        matches!(self, Kind::Runtime | Kind::Os | Kind::Docker)
    }
}

/// One type family of `import.yml`.
#[derive(Debug)]
pub struct Family {
    pub name: &'static str,
    pub kind: Kind,
    /// `name@v` (the spelling of all official recipes until 2026-05).
    pub legacy: &'static [&'static str],
    /// `alpine/name@v`.
    pub alpine: &'static [&'static str],
    /// `ubuntu/name@v`.
    pub ubuntu: &'static [&'static str],
    /// `name:single@v`.
    pub single: &'static [&'static str],
    /// `name:ha@v`.
    pub ha: &'static [&'static str],
    /// Unprefixed spellings of the composite era (`alpine@3.21`, `static`, `zcp@1`).
    pub plain: &'static [&'static str],
    /// Variables the service generates, referenced as `${<hostname>_<key>}`.
    pub env_keys: &'static [&'static str],
}

const NONE: &[&str] = &[];

const fn runtime(
    name: &'static str,
    legacy: &'static [&'static str],
    alpine: &'static [&'static str],
    ubuntu: &'static [&'static str],
) -> Family {
    Family {
        name,
        kind: Kind::Runtime,
        legacy,
        alpine,
        ubuntu,
        single: NONE,
        ha: NONE,
        plain: NONE,
        env_keys: NONE,
    }
}

const fn managed(
    name: &'static str,
    legacy: &'static [&'static str],
    single: &'static [&'static str],
    ha: &'static [&'static str],
    env_keys: &'static [&'static str],
) -> Family {
    Family {
        name,
        kind: Kind::Managed,
        legacy,
        alpine: NONE,
        ubuntu: NONE,
        single,
        ha,
        plain: NONE,
        env_keys,
    }
}

const fn with_kind(mut family: Family, kind: Kind) -> Family {
    family.kind = kind;
    family
}

const fn with_plain(mut family: Family, plain: &'static [&'static str]) -> Family {
    family.plain = plain;
    family
}

const PHP_APACHE: &[&str] = &[
    "8.1", "8.3", "8.4", "8.5", "8.0+2.4", "8.1+2.4", "8.3+2.4", "8.4+2.4", "8.5+2.4", "latest",
];
const PHP_NGINX_LEGACY: &[&str] = &[
    "8.1", "8.3", "8.4", "8.5", "8.1+1.22", "8.3+1.22", "8.4+1.22", "8.5+1.28", "latest",
];
const PHP_NGINX_COMPOSITE: &[&str] = &[
    "8.3", "8.4", "8.5", "8.3+1.22", "8.4+1.22", "8.5+1.28", "latest",
];
const PG_KEYS: &[&str] = &[
    "hostname",
    "port",
    "portTls",
    "user",
    "password",
    "dbName",
    "connectionString",
    "connectionTlsString",
    "superUser",
    "superUserPassword",
    "portReplicas",
    "connectionStringReplicas",
];
const MARIADB_KEYS: &[&str] = &[
    "hostname",
    "port",
    "user",
    "password",
    "dbName",
    "connectionString",
];
const KV_KEYS: &[&str] = &["hostname", "port", "portTls", "connectionString"];
const ELASTIC_KEYS: &[&str] = &["hostname", "port", "password"];
const MEILI_KEYS: &[&str] = &[
    "hostname",
    "masterKey",
    "defaultSearchKey",
    "defaultAdminKey",
];
const TYPESENSE_KEYS: &[&str] = &["hostname", "port", "apiKey"];
const QDRANT_KEYS: &[&str] = &[
    "hostname",
    "port",
    "grpcPort",
    "apiKey",
    "readOnlyApiKey",
    "connectionString",
    "grpcConnectionString",
];
const CLICKHOUSE_KEYS: &[&str] = &[
    "hostname",
    "port",
    "portHttp",
    "portMysql",
    "portPostgresql",
    "portNative",
    "password",
    "superUserPassword",
    "dbName",
];
const KAFKA_KEYS: &[&str] = &["hostname", "port", "user", "password"];
const NATS_KEYS: &[&str] = &["hostname", "user", "password", "connectionString"];
const RABBIT_KEYS: &[&str] = &["hostname", "port", "user", "password", "connectionString"];
const OBJECT_KEYS: &[&str] = &[
    "apiUrl",
    "apiHost",
    "accessKeyId",
    "secretAccessKey",
    "bucketName",
    "quotaGBytes",
    "projectId",
    "serviceId",
    "hostname",
];
const ALPINE_LEGACY: &[&str] = &[
    "3.17", "3.18", "3.19", "3.20", "3.21", "3.22", "3.23", "latest",
];
const ALPINE_PLAIN: &[&str] = &["3.21", "3.22", "3.23", "3.24", "latest"];

/// Service types accepted in `import.yml` (§5.2).
#[rustfmt::skip]
pub static TYPES: &[Family] = &[
    runtime("nodejs", &["18", "20", "22", "24"], &["20", "22", "24", "latest"], &["20", "22", "24", "latest"]),
    runtime(
        "bun",
        &["1.1", "1.1.34", "1.2", "1.2.2", "1.3", "1.3.9", "canary", "latest", "nightly"],
        &["1", "1.2", "1.2.2", "1.3", "1.3.9", "canary", "latest", "nightly"],
        &["1", "1.1", "1.1.34", "1.2", "1.2.2", "1.3", "1.3.9", "canary", "latest", "nightly"],
    ),
    runtime("deno", &["1", "1.45.5", "2", "2.0.0", "latest"], NONE, &["2", "2.0", "2.0.0", "latest"]),
    runtime("python", &["3.9", "3.11", "3.12", "3.14"], &["3.11", "3.12", "latest"], &["3.11", "3.12", "3.14", "latest"]),
    with_kind(runtime("php-apache", PHP_APACHE, PHP_APACHE, PHP_APACHE), Kind::PhpWeb),
    with_kind(runtime("php-nginx", PHP_NGINX_LEGACY, PHP_NGINX_COMPOSITE, PHP_NGINX_COMPOSITE), Kind::PhpWeb),
    runtime("go", &["1", "1.22"], &["1", "1.22", "latest"], &["1", "1.22", "latest"]),
    runtime("golang", &["1", "1.22"], &["1", "1.22", "latest"], &["1", "1.22", "latest"]),
    runtime("java", &["", "17", "21", "latest"], &["17", "21", "latest"], &["17", "21", "latest"]),
    runtime("dotnet", &["6", "7", "8", "9", "10"], &["8", "9", "10", "latest"], &["8", "9", "10", "latest"]),
    runtime("rust", &["1.78", "1.80", "1.86", "nightly", "stable"], &["1", "latest", "nightly", "stable"], &["1", "latest", "nightly", "stable"]),
    runtime("elixir", &["1", "1.16", "1.16.2"], &["1", "1.16", "1.16.3", "latest"], &["1", "1.16", "1.16.2", "latest"]),
    runtime("gleam", &["1", "1.5", "1.5.1"], &["1", "1.5", "1.5.1", "latest"], &["1", "1.5", "1.5.1", "latest"]),
    runtime("ruby", &["3.2", "3.3", "3.4"], &["3.3", "3.4", "4.0", "latest"], &["3.3", "3.4", "4.0", "latest"]),
    runtime("zero", NONE, &["0.1", "latest", "nightly"], &["0.1", "latest", "nightly"]),
    with_kind(runtime("docker", &["26", "26.1", "26.1.5", "latest"], &["26", "26.1", "26.1.5", "latest"], NONE), Kind::Docker),
    with_kind(runtime("nginx", &["1.22", "latest"], &["1.22", "latest"], &["1.22", "latest"]), Kind::Nginx),
    with_plain(with_kind(runtime("static", &["", "1.0", "latest"], &["", "1.0", "latest"], &["", "1.0", "latest"]), Kind::Static), &[""]),
    with_plain(with_kind(runtime("alpine", ALPINE_LEGACY, NONE, NONE), Kind::Os), ALPINE_PLAIN),
    with_plain(with_kind(runtime("ubuntu", &["22.04", "24.04"], NONE, NONE), Kind::Os), &["22.04", "24.04", "26.04", "latest"]),
    with_kind(runtime("runtime", &[""], NONE, NONE), Kind::Os),
    with_plain(with_kind(runtime("zcp", &["1"], NONE, NONE), Kind::Zcp), &["1", "latest"]),
    managed("postgresql", &["14", "16", "17", "18"], &["14", "16", "17", "18"], &["14", "16", "17", "18"], PG_KEYS),
    managed("mariadb", &["10.6"], &["10.6"], &["10.6"], MARIADB_KEYS),
    managed("clickhouse", &["25.3"], &["25.3"], &["25.3"], CLICKHOUSE_KEYS),
    managed("valkey", &["7.2"], &["7.2"], &["7.2"], KV_KEYS),
    managed("keydb", &["6"], NONE, NONE, KV_KEYS),
    managed("elasticsearch", &["8.16", "9.2"], &["8.16", "9.2"], &["8.16", "9.2"], ELASTIC_KEYS),
    managed("meilisearch", &["1.10", "1.20"], &["1.10", "1.20", "1.44"], NONE, MEILI_KEYS),
    managed("typesense", &["27.1", "30.2"], &["27.1", "30.2"], &["27.1", "30.2"], TYPESENSE_KEYS),
    managed("qdrant", &["1.10", "1.12"], &["1.10", "1.12"], &["1.10", "1.12"], QDRANT_KEYS),
    managed("kafka", &["3.8", "3.9"], &["3.9"], &["3.9"], KAFKA_KEYS),
    managed("nats", &["2.10", "2.12"], &["2.10", "2.12"], &["2.10", "2.12"], NATS_KEYS),
    managed("rabbitmq", &["3.9"], NONE, NONE, RABBIT_KEYS),
    managed("seaweedfs", &["3"], &["3"], &["3"], NONE),
    with_kind(managed("shared-storage", &[""], &[""], &[""], NONE), Kind::SharedStorage),
    with_kind(managed("sharedstorage", &[""], &[""], &[""], NONE), Kind::SharedStorage),
    with_plain(with_kind(managed("object-storage", &[""], NONE, NONE, OBJECT_KEYS), Kind::ObjectStorage), &[""]),
    with_plain(with_kind(managed("objectstorage", &[""], NONE, NONE, OBJECT_KEYS), Kind::ObjectStorage), &[""]),
    with_kind(managed("local-storage", NONE, &["1"], NONE, NONE), Kind::LocalStorage),
];

/// Legacy import types that are just an OS version (meaning unverified).
pub static BARE_OS_TYPES: &[&str] = &[
    "3.17", "3.18", "3.19", "3.20", "3.21", "3.22", "3.23", "22.04",
];

/// A `zerops.yml` base family (§5.3).
#[derive(Debug)]
pub struct BaseFamily {
    pub name: &'static str,
    pub kind: Kind,
    pub legacy: &'static [&'static str],
    pub alpine: &'static [&'static str],
    pub ubuntu: &'static [&'static str],
    pub plain: &'static [&'static str],
}

const fn base(
    name: &'static str,
    kind: Kind,
    legacy: &'static [&'static str],
    alpine: &'static [&'static str],
    ubuntu: &'static [&'static str],
) -> BaseFamily {
    BaseFamily {
        name,
        kind,
        legacy,
        alpine,
        ubuntu,
        plain: NONE,
    }
}

const fn os_base(
    name: &'static str,
    legacy: &'static [&'static str],
    plain: &'static [&'static str],
) -> BaseFamily {
    BaseFamily {
        name,
        kind: Kind::Os,
        legacy,
        alpine: NONE,
        ubuntu: NONE,
        plain,
    }
}

const R: Kind = Kind::Runtime;
const BUN_A: &[&str] = &[
    "1", "1.2", "1.2.2", "1.3", "1.3.9", "canary", "latest", "nightly",
];
const BUN_U: &[&str] = &[
    "1", "1.1", "1.1.34", "1.2", "1.2.2", "1.3", "1.3.9", "canary", "latest", "nightly",
];
const BUN_LEGACY: &[&str] = &[
    "1.1", "1.1.34", "1.2", "1.2.2", "1.3", "1.3.9", "canary", "latest", "nightly",
];
const DENO_LEGACY: &[&str] = &["1", "1.45.5", "2", "2.0.0", "latest"];
const DENO_U: &[&str] = &["2", "2.0", "2.0.0", "latest"];
const DOTNET: &[&str] = &["6", "7", "8", "9", "10", "latest"];
const DOTNET_C: &[&str] = &["8", "9", "10", "latest"];
const ELIXIR: &[&str] = &["1", "1.16", "1.16.2", "latest"];
const ELIXIR_A: &[&str] = &["1", "1.16", "1.16.3", "latest"];
const GLEAM: &[&str] = &["1", "1.5", "1.5.1", "latest"];
const GO: &[&str] = &["1", "1.22", "latest"];
const JAVA: &[&str] = &["17", "21", "latest"];
const NODE: &[&str] = &["18", "20", "22", "24", "latest"];
const NODE_C: &[&str] = &["20", "22", "24", "latest"];
const PHP: &[&str] = &["8.1", "8.3", "8.4", "8.5", "latest"];
const PY: &[&str] = &["3.11", "3.12", "3.14", "latest"];
const PY_A: &[&str] = &["3.11", "3.12", "latest"];
const RUBY_C: &[&str] = &["3.3", "3.4", "4.0", "latest"];
const RUST: &[&str] = &["1", "1.78", "1.80", "1.86", "latest", "nightly", "stable"];
const RUST_C: &[&str] = &["1", "latest", "nightly", "stable"];
const UBUNTU: &[&str] = &["22.04", "24.04", "latest"];
const UBUNTU_PLAIN: &[&str] = &["22.04", "24.04", "26.04", "latest"];

/// Build bases (`build.base`).
#[rustfmt::skip]
pub static BUILD_BASES: &[BaseFamily] = &[
    os_base("alpine", ALPINE_LEGACY, ALPINE_PLAIN),
    os_base("ubuntu", UBUNTU, UBUNTU_PLAIN),
    base("bun", R, BUN_LEGACY, BUN_A, BUN_U),
    base("deno", R, DENO_LEGACY, NONE, DENO_U),
    base("dotnet", R, DOTNET, DOTNET_C, DOTNET_C),
    base("elixir", R, ELIXIR, ELIXIR_A, ELIXIR),
    base("gleam", R, GLEAM, GLEAM, GLEAM),
    base("go", R, GO, GO, GO),
    base("golang", R, &["1", "latest"], GO, GO),
    base("java", R, JAVA, JAVA, JAVA),
    base("nodejs", R, NODE, NODE_C, NODE_C),
    base("php", Kind::PhpBuild, PHP, PHP, PHP),
    base("python", R, PY, PY_A, PY),
    base("ruby", R, &["3.2", "3.3", "3.4"], RUBY_C, RUBY_C),
    base("rust", R, RUST, RUST_C, RUST_C),
];

/// Run bases (`run.base`): the build list without `php`, plus web servers and VMs.
#[rustfmt::skip]
pub static RUN_BASES: &[BaseFamily] = &[
    os_base("alpine", ALPINE_LEGACY, ALPINE_PLAIN),
    os_base("ubuntu", UBUNTU, UBUNTU_PLAIN),
    base("bun", R, BUN_LEGACY, BUN_A, BUN_U),
    base("deno", R, DENO_LEGACY, NONE, DENO_U),
    base("dotnet", R, DOTNET, DOTNET_C, DOTNET_C),
    base("elixir", R, ELIXIR, ELIXIR_A, ELIXIR),
    base("gleam", R, GLEAM, GLEAM, GLEAM),
    base("go", R, GO, GO, GO),
    base("golang", R, &["1", "latest"], GO, GO),
    base("java", R, JAVA, JAVA, JAVA),
    base("nodejs", R, NODE, NODE_C, NODE_C),
    base("python", R, PY, PY_A, PY),
    base("ruby", R, &["3.2", "3.3", "3.4", "latest"], RUBY_C, RUBY_C),
    base("rust", R, RUST, RUST_C, RUST_C),
    base("php-apache", Kind::PhpWeb, PHP, PHP, PHP),
    base("php-nginx", Kind::PhpWeb, PHP, &["8.3", "8.4", "8.5", "latest"], &["8.3", "8.4", "8.5", "latest"]),
    base("nginx", Kind::Nginx, &["1.22", "latest"], &["1.22", "latest"], &["1.22", "latest"]),
    BaseFamily { name: "static", kind: Kind::Static, legacy: &["", "1.0", "latest"], alpine: &["", "1.0", "latest"], ubuntu: &["", "1.0", "latest"], plain: &[""] },
    base("docker", Kind::Docker, &["26", "26.1", "26.1.5", "latest"], &["26", "26.1", "26.1.5", "latest"], NONE),
    os_base("runtime", &["latest"], NONE),
    BaseFamily { name: "zcp", kind: Kind::Zcp, legacy: &["1", "latest"], alpine: NONE, ubuntu: NONE, plain: &["1", "latest"] },
];

/// Bare OS versions accepted as build and run bases by the 2026-04 schema.
pub static BARE_OS_BASES: &[&str] = &[
    "3.17", "3.18", "3.19", "3.20", "3.21", "3.22", "3.23", "22.04", "24.04",
];

/// A type or base string split into its parts: `[os/]name[:mode][@version]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spelled<'a> {
    pub os: Option<&'a str>,
    pub name: &'a str,
    pub suffix: Option<&'a str>,
    /// `""` when there is no `@version`.
    pub version: &'a str,
    pub has_version: bool,
}

impl Spelled<'_> {
    /// The mode a `:ha` / `:single` suffix names (`HA` / `NON_HA`), in any letter case.
    pub fn suffix_mode(&self) -> Option<&'static str> {
        match self.suffix {
            Some(s) if s.eq_ignore_ascii_case("ha") => Some("HA"),
            Some(s) if s.eq_ignore_ascii_case("single") => Some("NON_HA"),
            _ => None,
        }
    }

    /// An `@` with no version after it, or a version part holding a character that no
    /// version has (a second `@`, a space, `/`, `:`): such a spelling names nothing, now
    /// or in a newer live list, unlike a well-formed version the snapshot lacks. Listed
    /// versions use letters, digits, `.` and `+` (`8.5+1.28`); `-` and `_` are let through
    /// for versions the snapshot may not know yet.
    pub fn version_is_broken(&self) -> bool {
        let fits = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-' | '_');
        self.has_version && (self.version.is_empty() || !self.version.chars().all(fits))
    }

    /// The version is one of `list`. A broken version never is, not even the empty one of
    /// a family listed without a version (`java@` is not `java`).
    fn listed_in(&self, list: &[&str]) -> bool {
        !self.version_is_broken() && list.contains(&self.version)
    }
}

/// Splits a type string. Never fails; an empty name is possible.
pub fn split(text: &str) -> Spelled<'_> {
    let text = text.trim();
    let (os, rest) = match text.split_once('/') {
        Some((os, rest)) => (Some(os), rest),
        None => (None, text),
    };
    let (head, version, has_version) = match rest.split_once('@') {
        Some((h, v)) => (h, v, true),
        None => (rest, "", false),
    };
    let (name, suffix) = match head.split_once(':') {
        Some((n, s)) => (n, Some(s)),
        None => (head, None),
    };
    Spelled {
        os,
        name,
        suffix,
        version,
        has_version,
    }
}

/// Looks a family up by name.
pub fn family(name: &str) -> Option<&'static Family> {
    TYPES.iter().find(|f| f.name == name)
}

/// Families kept only for services that already run them: why, and what to use instead.
/// The platform still takes them, so using one is a warning.
pub const RETIRING: &[(&str, &str, &str)] = &[
    (
        "keydb",
        "is deprecated (its development has stalled)",
        "use `valkey@7.2` (Redis-compatible) for new services",
    ),
    (
        "rabbitmq",
        "is a legacy type being removed from Zerops",
        "use `nats` (or `kafka` for high-volume streams) for new services",
    ),
];

/// The generated variables of a managed type, e.g. `postgresql@16` → `[hostname, port, …]`.
pub fn managed_env_keys(type_text: &str) -> Option<&'static [&'static str]> {
    family(split(type_text).name)
        .map(|f| f.env_keys)
        .filter(|k| !k.is_empty())
}

/// The outcome of matching a spelled type or base against a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Match {
    /// Known; the spelling used the `:single`/`:ha` suffix (`Some(true)` = HA) or not.
    Known { kind: Kind, ha_suffix: Option<bool> },
    /// The family is known but this version (for this spelling) is not in the snapshot.
    VersionMiss { kind: Kind, known: Vec<String> },
    /// Not a known family; the closest known spellings.
    Unknown { suggestions: Vec<String> },
    /// The spelling is wrong for a known family (bad suffix, mode on a runtime…).
    Malformed {
        kind: Kind,
        message: String,
        suggestion: String,
    },
}

fn render(os: Option<&str>, name: &str, suffix: Option<&str>, version: &str) -> String {
    let mut s = String::new();
    if let Some(os) = os {
        s.push_str(os);
        s.push('/');
    }
    s.push_str(name);
    if let Some(sx) = suffix {
        s.push(':');
        s.push_str(sx);
    }
    if !version.is_empty() {
        s.push('@');
        s.push_str(version);
    }
    s
}

fn versions_of(
    lists: &[&[&str]],
    os: Option<&str>,
    name: &str,
    suffix: Option<&str>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for list in lists {
        for v in list.iter() {
            let r = render(os, name, suffix, v);
            if !out.contains(&r) {
                out.push(r);
            }
        }
    }
    out
}

/// Well-known services that Zerops does not offer under their own name: the product's
/// usual spelling and the Zerops family that replaces it (`None`: there is none). A user
/// who writes `redis` means Valkey; edit distance alone would offer nothing, or a runtime
/// (`mongodb` contains `go`).
const FOREIGN_SERVICES: &[(&str, &str, Option<&str>)] = &[
    ("redis", "Redis", Some("valkey")),
    ("mysql", "MySQL", Some("mariadb")),
    ("mongodb", "MongoDB", None),
    ("mongo", "MongoDB", None),
];

/// A service name from outside the catalogue that users commonly reach for.
#[derive(Debug, Clone, Copy)]
pub struct Foreign {
    /// The product as its makers spell it, e.g. `Redis`.
    pub product: &'static str,
    /// The compatible Zerops family, if there is one.
    pub instead: Option<&'static Family>,
}

/// Looks `name` (a type's name part, any letter case) up among the well-known foreign
/// service names.
pub fn foreign_service(name: &str) -> Option<Foreign> {
    let lower = name.trim().to_ascii_lowercase();
    FOREIGN_SERVICES
        .iter()
        .find(|(n, _, _)| *n == lower)
        .map(|&(_, product, instead)| Foreign {
            product,
            instead: instead.and_then(family),
        })
}

/// A spelling of `family` that the catalogue lists, as close to what the user wrote as
/// possible: their OS prefix, suffix and version if that combination exists, else the bare
/// name with their version, else the family's default spelling. Suggestions built this way
/// never name a version the family does not have.
pub fn existing_spelling(family: &Family, wanted: &Spelled) -> String {
    let version = if wanted.has_version {
        wanted.version
    } else {
        ""
    };
    [
        render(wanted.os, family.name, wanted.suffix, version),
        render(None, family.name, None, version),
    ]
    .into_iter()
    .find(|candidate| matches!(match_type(candidate), Match::Known { .. }))
    .unwrap_or_else(|| default_spelling(family))
}

/// The spelling to suggest when the user's version does not exist: the newest numbered
/// legacy version (the table lists them oldest first), else the bare name, else the first
/// composite form (families that exist only in the composite era).
pub fn default_spelling(family: &Family) -> String {
    if let Some(v) = family
        .legacy
        .iter()
        .rev()
        .find(|v| v.starts_with(|c: char| c.is_ascii_digit()))
    {
        return render(None, family.name, None, v);
    }
    if family.legacy.contains(&"") || family.plain.contains(&"") {
        return family.name.to_owned();
    }
    versions_of(&[family.alpine], Some("alpine"), family.name, None)
        .into_iter()
        .chain(versions_of(
            &[family.single],
            None,
            family.name,
            Some("single"),
        ))
        .next()
        .unwrap_or_else(|| family.name.to_owned())
}

/// Every spelling of the import type table, for "did you mean".
pub fn all_type_spellings() -> Vec<String> {
    let mut out = Vec::new();
    for f in TYPES {
        out.extend(versions_of(&[f.legacy, f.plain], None, f.name, None));
        out.extend(versions_of(&[f.alpine], Some("alpine"), f.name, None));
        out.extend(versions_of(&[f.ubuntu], Some("ubuntu"), f.name, None));
        out.extend(versions_of(&[f.single], None, f.name, Some("single")));
        out.extend(versions_of(&[f.ha], None, f.name, Some("ha")));
    }
    out
}

/// Matches an `import.yml` service type.
pub fn match_type(text: &str) -> Match {
    broken_version(text, match_type_parts(text))
}

/// A version miss whose version part is broken (see [`Spelled::version_is_broken`]) is
/// a misspelling, not a version the live list may have: it becomes `Malformed`, with the
/// versions the snapshot knows for that spelling as the fix.
fn broken_version(text: &str, found: Match) -> Match {
    let s = split(text);
    match found {
        Match::VersionMiss { kind, known } if s.version_is_broken() => {
            let why = if s.version.is_empty() {
                "nothing follows the `@`".to_owned()
            } else {
                format!("`{}` after the first `@` cannot be a version", s.version)
            };
            // A family spelled without a version (`object-storage`) is fixed by dropping
            // the `@`, not by adding a version it does not have.
            let (versioned, bare): (Vec<String>, Vec<String>) =
                known.into_iter().partition(|k| k.contains('@'));
            let suggestion = match (versioned.is_empty(), bare.is_empty()) {
                (false, true) => format!(
                    "write one `@` and a version, e.g. {}",
                    super::suggest::sample(&versioned)
                ),
                (false, false) => format!(
                    "write one `@` and a version, e.g. {}, or no `@` at all: {}",
                    super::suggest::sample(&versioned),
                    super::suggest::sample(&bare)
                ),
                (true, _) => format!("drop the `@`: {}", super::suggest::sample(&bare)),
            };
            Match::Malformed {
                kind,
                message: format!("`{}` breaks the `name@version` form: {why}", text.trim()),
                suggestion,
            }
        }
        other => other,
    }
}

/// `match_type` before a broken version is told apart from a missing one.
fn match_type_parts(text: &str) -> Match {
    if BARE_OS_TYPES.contains(&text.trim()) {
        return Match::Known {
            kind: Kind::Os,
            ha_suffix: None,
        };
    }
    let s = split(text);
    let Some(f) = family(s.name) else {
        return unknown(s.name, TYPES.iter().map(|f| f.name));
    };
    let with_v = |v: &str| {
        if s.has_version {
            v.to_owned()
        } else {
            String::new()
        }
    };
    if let Some(suffix) = s.suffix {
        let ha = match suffix {
            "single" => false,
            "ha" => true,
            _ => {
                return Match::Malformed {
                    kind: f.kind,
                    message: format!("`:{suffix}` is not a deployment variant"),
                    suggestion: if f.kind.has_mode() {
                        format!(
                            "use `{}` or `{}`",
                            render(None, f.name, Some("single"), &with_v(s.version)),
                            render(None, f.name, Some("ha"), &with_v(s.version))
                        )
                    } else {
                        format!(
                            "write `{}` without a `:` suffix",
                            render(s.os, f.name, None, s.version)
                        )
                    },
                };
            }
        };
        if !f.kind.has_mode() {
            return Match::Malformed {
                kind: f.kind,
                message: format!("`{}` takes no `:{suffix}` suffix", f.name),
                suggestion: match f.kind {
                    Kind::ObjectStorage => {
                        format!("write `{}`; object storage has no mode", f.name)
                    }
                    _ => format!(
                        "write `{}`; runtimes get high availability from minContainers ≥ 2",
                        render(s.os, f.name, None, s.version)
                    ),
                },
            };
        }
        if s.os.is_some() {
            return Match::Malformed {
                kind: f.kind,
                message: format!("`{}` takes no OS prefix", f.name),
                suggestion: format!("write `{}`", render(None, f.name, s.suffix, s.version)),
            };
        }
        let list = if ha { f.ha } else { f.single };
        if list.is_empty() {
            return Match::Malformed {
                kind: f.kind,
                message: format!("`{}` has no `:{suffix}` variant", f.name),
                suggestion: match versions_of(
                    &[f.single, f.ha],
                    None,
                    f.name,
                    Some(if ha { "single" } else { "ha" }),
                )
                .first()
                {
                    Some(other) => format!("use `{other}`"),
                    None => format!(
                        "use `{}` with `mode`",
                        render(None, f.name, None, s.version)
                    ),
                },
            };
        }
        if s.listed_in(list) {
            return Match::Known {
                kind: f.kind,
                ha_suffix: Some(ha),
            };
        }
        return Match::VersionMiss {
            kind: f.kind,
            known: versions_of(&[list], None, f.name, Some(suffix)),
        };
    }
    if let Some(os) = s.os {
        if os != "alpine" && os != "ubuntu" {
            return Match::Malformed {
                kind: f.kind,
                message: format!("`{os}/` is not an OS prefix"),
                suggestion: format!(
                    "use `alpine/{}` or `ubuntu/{}`",
                    render(None, f.name, None, s.version),
                    render(None, f.name, None, s.version)
                ),
            };
        }
        if f.kind.is_service() {
            return Match::Malformed {
                kind: f.kind,
                message: format!("`{}` is a managed service and takes no OS prefix", f.name),
                suggestion: format!("write `{}`", render(None, f.name, None, s.version)),
            };
        }
        let list = if os == "alpine" { f.alpine } else { f.ubuntu };
        if s.listed_in(list) {
            return Match::Known {
                kind: f.kind,
                ha_suffix: None,
            };
        }
        return Match::VersionMiss {
            kind: f.kind,
            known: versions_of(&[f.alpine], Some("alpine"), f.name, None)
                .into_iter()
                .chain(versions_of(&[f.ubuntu], Some("ubuntu"), f.name, None))
                .collect(),
        };
    }
    let lists = [f.legacy, f.plain, f.alpine, f.ubuntu, f.single, f.ha];
    if lists.iter().any(|l| s.listed_in(l)) {
        return Match::Known {
            kind: f.kind,
            ha_suffix: None,
        };
    }
    Match::VersionMiss {
        kind: f.kind,
        known: versions_of(&[f.legacy, f.plain], None, f.name, None),
    }
}

fn unknown<'a>(name: &str, names: impl Iterator<Item = &'a str>) -> Match {
    let names: Vec<&str> = names.collect();
    Match::Unknown {
        suggestions: super::suggest::closest(name, &names, 3)
            .into_iter()
            .map(str::to_owned)
            .collect(),
    }
}

/// Matches a `build.base` or `run.base` value against one of the base tables.
pub fn match_base(text: &str, table: &'static [BaseFamily]) -> Match {
    broken_version(text, match_base_parts(text, table))
}

/// `match_base` before a broken version is told apart from a missing one.
fn match_base_parts(text: &str, table: &'static [BaseFamily]) -> Match {
    let trimmed = text.trim();
    if BARE_OS_BASES.contains(&trimmed) {
        return Match::Known {
            kind: Kind::Os,
            ha_suffix: None,
        };
    }
    let s = split(trimmed);
    let Some(f) = table.iter().find(|f| f.name == s.name) else {
        return unknown(s.name, table.iter().map(|f| f.name));
    };
    if let Some(suffix) = s.suffix {
        return Match::Malformed {
            kind: f.kind,
            message: format!("bases take no `:{suffix}` suffix"),
            suggestion: format!("write `{}`", render(s.os, f.name, None, s.version)),
        };
    }
    match s.os {
        Some(os @ ("alpine" | "ubuntu")) => {
            let list = if os == "alpine" { f.alpine } else { f.ubuntu };
            if s.listed_in(list) {
                return Match::Known {
                    kind: f.kind,
                    ha_suffix: None,
                };
            }
            Match::VersionMiss {
                kind: f.kind,
                known: versions_of(&[f.alpine], Some("alpine"), f.name, None)
                    .into_iter()
                    .chain(versions_of(&[f.ubuntu], Some("ubuntu"), f.name, None))
                    .collect(),
            }
        }
        Some(os) => Match::Malformed {
            kind: f.kind,
            message: format!("`{os}/` is not an OS prefix"),
            suggestion: format!(
                "use `alpine/{}` or `ubuntu/{}`",
                render(None, f.name, None, s.version),
                render(None, f.name, None, s.version)
            ),
        },
        None => {
            if [f.legacy, f.plain, f.alpine, f.ubuntu]
                .iter()
                .any(|l| s.listed_in(l))
            {
                return Match::Known {
                    kind: f.kind,
                    ha_suffix: None,
                };
            }
            Match::VersionMiss {
                kind: f.kind,
                known: versions_of(&[f.legacy, f.plain], None, f.name, None),
            }
        }
    }
}

/// The OS a base or type spelling names explicitly (`alpine/…`, `alpine@…`, `ubuntu@…`).
pub fn explicit_os(text: &str) -> Option<&str> {
    let s = split(text);
    match (s.os, s.name) {
        (Some(os), _) => Some(os),
        (None, "alpine") | (None, "ubuntu") => Some(s.name),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(m: &Match) -> bool {
        matches!(m, Match::Known { .. })
    }

    #[test]
    fn bare_and_composite_spellings_are_equivalent() {
        for t in [
            "nodejs@22",
            "alpine/nodejs@22",
            "ubuntu/nodejs@22",
            "postgresql@16",
            "postgresql:single@16",
            "postgresql:ha@16",
            "object-storage",
            "shared-storage:single",
            "static",
            "alpine@3.21",
            "java",
            "local-storage:single@1",
            "valkey:single@7.2",
            "3.21",
        ] {
            assert!(known(&match_type(t)), "{t}: {:?}", match_type(t));
        }
    }

    #[test]
    fn bad_spellings() {
        for t in [
            "nodejs:bogus@22",
            "nodejs:ha@22",
            "object-storage:ha",
            "objectstorage:bogus",
            "meilisearch:ha@1.20",
            "alpine/postgresql@16",
            "debian/nodejs@22",
        ] {
            assert!(
                matches!(match_type(t), Match::Malformed { .. }),
                "{t}: {:?}",
                match_type(t)
            );
        }
        assert!(matches!(
            match_type("definitely-not-a-real-type@99"),
            Match::Unknown { .. }
        ));
        match match_type("nodjs@22") {
            Match::Unknown { suggestions } => assert_eq!(suggestions[0], "nodejs"),
            other => panic!("{other:?}"),
        }
        match match_type("nodejs@99") {
            Match::VersionMiss { known, .. } => assert!(known.contains(&"nodejs@22".to_owned())),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn broken_versions_are_malformed_not_missing() {
        for t in [
            "nodejs@",
            "nodejs@@22",
            "nodejs@22@1",
            "alpine/nodejs@",
            "java@",
            "postgresql:single@",
            "nodejs@2 2",
        ] {
            match match_type(t) {
                Match::Malformed {
                    message,
                    suggestion,
                    ..
                } => {
                    assert!(message.contains("`name@version`"), "{t}: {message}");
                    assert!(suggestion.contains("@"), "{t}: {suggestion}");
                }
                other => panic!("{t}: {other:?}"),
            }
        }
        match match_type("alpine/nodejs@") {
            Match::Malformed { suggestion, .. } => {
                assert!(suggestion.contains("`alpine/nodejs@22`"), "{suggestion}")
            }
            other => panic!("{other:?}"),
        }
        // A family spelled without a version is told to drop the `@`.
        for (t, fix) in [
            ("object-storage@", "drop the `@`: `object-storage`"),
            ("shared-storage@", "drop the `@`"),
        ] {
            match match_type(t) {
                Match::Malformed { suggestion, .. } => {
                    assert!(suggestion.starts_with(fix), "{t}: {suggestion}");
                    assert!(!suggestion.contains("and a version"), "{t}: {suggestion}");
                }
                other => panic!("{t}: {other:?}"),
            }
        }
        for t in ["nodejs@", "nodejs@@22", "alpine/nodejs@"] {
            assert!(
                matches!(match_base(t, RUN_BASES), Match::Malformed { .. }),
                "{t}"
            );
        }
        // A well-formed version the snapshot lacks stays a miss (the live list may have it).
        assert!(matches!(
            match_type("nodejs@26-rc1"),
            Match::VersionMiss { .. }
        ));
        assert!(known(&match_type("php-nginx@8.5+1.28")));
    }

    #[test]
    fn bases() {
        assert!(known(&match_base("nodejs@22", BUILD_BASES)));
        assert!(known(&match_base("alpine/bun@1.3", BUILD_BASES)));
        assert!(known(&match_base("php@8.4", BUILD_BASES)));
        assert!(matches!(
            match_base("php@8.4", RUN_BASES),
            Match::Unknown { .. }
        ));
        assert!(matches!(
            match_base("php-nginx@8.4", BUILD_BASES),
            Match::Unknown { .. }
        ));
        assert!(known(&match_base("static", RUN_BASES)));
        assert!(known(&match_base("alpine/docker@26.1.5", RUN_BASES)));
        assert!(matches!(
            match_base("nodejs@999", RUN_BASES),
            Match::VersionMiss { .. }
        ));
    }

    #[test]
    fn suggested_spellings_exist() {
        let spelled =
            |f: &str, text: &str| existing_spelling(family(f).expect("family"), &split(text));
        assert_eq!(spelled("go", "mongodb@7"), "go@1.22");
        assert_eq!(spelled("nodejs", "nodjs@22"), "nodejs@22");
        assert_eq!(spelled("nodejs", "alpine/nodjs@24"), "alpine/nodejs@24");
        assert_eq!(spelled("valkey", "redis@7"), "valkey@7.2");
        assert_eq!(spelled("valkey", "redis:single@7.2"), "valkey:single@7.2");
        assert_eq!(spelled("static", "statik"), "static");
        assert_eq!(spelled("zero", "zeroo@9"), "alpine/zero@0.1");
        assert_eq!(
            spelled("local-storage", "local@2"),
            "local-storage:single@1"
        );
        for f in TYPES {
            let s = default_spelling(f);
            assert!(known(&match_type(&s)), "{}: {s}", f.name);
        }
        let redis = foreign_service("Redis").expect("redis");
        assert_eq!(redis.instead.map(|f| f.name), Some("valkey"));
        assert_eq!(
            foreign_service("mysql")
                .and_then(|f| f.instead)
                .map(|f| f.name),
            Some("mariadb")
        );
        assert!(foreign_service("mongodb").is_some_and(|f| f.instead.is_none()));
        assert!(foreign_service("nodejs").is_none());
    }

    #[test]
    fn env_keys_and_os() {
        assert!(
            managed_env_keys("postgresql:ha@16")
                .unwrap()
                .contains(&"connectionString")
        );
        assert_eq!(managed_env_keys("nodejs@22"), None);
        assert_eq!(explicit_os("ubuntu/go@1"), Some("ubuntu"));
        assert_eq!(explicit_os("alpine@3.21"), Some("alpine"));
        assert_eq!(explicit_os("go@1"), None);
    }
}
