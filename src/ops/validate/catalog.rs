//! The offline snapshot of what Zerops offers: import types with their versions and
//! category, build bases and run bases (zcli-and-yaml spec §5). Both spellings are known:
//! legacy (`nodejs@22`, `postgresql@16` + `mode`) and composite (`alpine/nodejs@22`,
//! `postgresql:single@16`). Versions drift, so a known family with an unknown version is
//! only a warning; an unknown family is an error.

/// What a service type is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    Runtime,
    /// Databases, caches, search, queues: `mode` is required.
    Managed,
    SharedStorage,
    ObjectStorage,
}

/// One import type family.
pub struct Family {
    pub name: &'static str,
    pub category: Category,
    /// Versions of the legacy spelling (`""` = the bare name is valid).
    pub versions: &'static [&'static str],
    /// Whether `:ha` is allowed (meilisearch has no HA).
    pub has_ha: bool,
}

const fn family(
    name: &'static str,
    category: Category,
    versions: &'static [&'static str],
) -> Family {
    Family {
        name,
        category,
        versions,
        has_ha: true,
    }
}

use Category::{Managed, ObjectStorage, Runtime, SharedStorage};

/// Import `type` families.
pub const FAMILIES: &[Family] = &[
    family("nodejs", Runtime, &["18", "20", "22", "24", "latest"]),
    family(
        "bun",
        Runtime,
        &[
            "1", "1.1", "1.1.34", "1.2", "1.2.2", "1.3", "1.3.9", "canary", "latest", "nightly",
        ],
    ),
    family(
        "deno",
        Runtime,
        &["1", "1.45.5", "2", "2.0", "2.0.0", "latest"],
    ),
    family(
        "python",
        Runtime,
        &["3.9", "3.11", "3.12", "3.14", "latest"],
    ),
    family(
        "php-apache",
        Runtime,
        &[
            "8.0+2.4", "8.1", "8.1+2.4", "8.3", "8.3+2.4", "8.4", "8.4+2.4", "8.5", "8.5+2.4",
            "latest",
        ],
    ),
    family(
        "php-nginx",
        Runtime,
        &[
            "8.1", "8.1+1.22", "8.3", "8.3+1.22", "8.4", "8.4+1.22", "8.5", "8.5+1.28", "latest",
        ],
    ),
    family("go", Runtime, &["1", "1.22", "latest"]),
    family("golang", Runtime, &["1", "1.22", "latest"]),
    family("java", Runtime, &["", "17", "21", "latest"]),
    family("dotnet", Runtime, &["6", "7", "8", "9", "10", "latest"]),
    family(
        "rust",
        Runtime,
        &["1", "1.78", "1.80", "1.86", "nightly", "stable", "latest"],
    ),
    family(
        "elixir",
        Runtime,
        &["1", "1.16", "1.16.2", "1.16.3", "latest"],
    ),
    family("gleam", Runtime, &["1", "1.5", "1.5.1", "latest"]),
    family("ruby", Runtime, &["3.2", "3.3", "3.4", "4.0", "latest"]),
    family("zero", Runtime, &["0.1", "latest", "nightly"]),
    family("docker", Runtime, &["26", "26.1", "26.1.5", "latest"]),
    family("nginx", Runtime, &["1.22", "latest"]),
    family("static", Runtime, &["", "1.0", "latest"]),
    family(
        "alpine",
        Runtime,
        &[
            "3.17", "3.18", "3.19", "3.20", "3.21", "3.22", "3.23", "3.24", "latest",
        ],
    ),
    family("ubuntu", Runtime, &["22.04", "24.04", "26.04", "latest"]),
    family("runtime", Runtime, &["", "latest"]),
    family("zcp", Runtime, &["1", "latest"]),
    family("postgresql", Managed, &["14", "16", "17", "18"]),
    family("mariadb", Managed, &["10.6"]),
    family("clickhouse", Managed, &["25.3"]),
    family("valkey", Managed, &["7.2"]),
    family("keydb", Managed, &["6"]),
    family("elasticsearch", Managed, &["8.16", "9.2"]),
    Family {
        name: "meilisearch",
        category: Managed,
        versions: &["1.10", "1.20", "1.44"],
        has_ha: false,
    },
    family("typesense", Managed, &["27.1", "30.2"]),
    family("qdrant", Managed, &["1.10", "1.12"]),
    family("kafka", Managed, &["3.8", "3.9"]),
    family("nats", Managed, &["2.10", "2.12"]),
    family("rabbitmq", Managed, &["3.9"]),
    family("seaweedfs", Managed, &["3"]),
    family("shared-storage", SharedStorage, &["", "1"]),
    family("object-storage", ObjectStorage, &[""]),
    family("local-storage", SharedStorage, &["1"]),
];

/// A type string taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedType<'a> {
    pub os: Option<&'a str>,
    pub name: &'a str,
    /// `single` or `ha` (composite managed spelling).
    pub suffix: Option<&'a str>,
    pub version: Option<&'a str>,
}

/// Splits `alpine/nodejs@22`, `postgresql:ha@16`, `object-storage`.
pub fn parse_type(text: &str) -> ParsedType<'_> {
    let (os, rest) = match text.split_once('/') {
        Some((os, rest)) => (Some(os), rest),
        None => (None, text),
    };
    let (head, version) = match rest.split_once('@') {
        Some((head, version)) => (head, Some(version)),
        None => (rest, None),
    };
    let (name, suffix) = match head.split_once(':') {
        Some((name, suffix)) => (name, Some(suffix)),
        None => (head, None),
    };
    ParsedType {
        os,
        name,
        suffix,
        version,
    }
}

fn canonical_family(name: &str) -> &str {
    match name {
        "objectstorage" => "object-storage",
        "sharedstorage" => "shared-storage",
        other => other,
    }
}

/// The family of a name.
pub fn find_family(name: &str) -> Option<&'static Family> {
    let name = canonical_family(name);
    FAMILIES.iter().find(|f| f.name == name)
}

/// Every spelling worth suggesting (`name@version`).
pub fn all_type_names() -> Vec<String> {
    FAMILIES
        .iter()
        .flat_map(|f| {
            f.versions.iter().map(move |v| {
                if v.is_empty() {
                    f.name.to_owned()
                } else {
                    format!("{}@{v}", f.name)
                }
            })
        })
        .collect()
}

/// Build bases (zerops.yml `build.base`), per family: versions.
pub const BUILD_BASES: &[(&str, &[&str])] = &[
    (
        "alpine",
        &[
            "3.17", "3.18", "3.19", "3.20", "3.21", "3.22", "3.23", "3.24", "latest",
        ],
    ),
    ("ubuntu", &["22.04", "24.04", "26.04", "latest"]),
    (
        "bun",
        &[
            "1", "1.1", "1.1.34", "1.2", "1.2.2", "1.3", "1.3.9", "canary", "latest", "nightly",
        ],
    ),
    ("deno", &["1", "1.45.5", "2", "2.0", "2.0.0", "latest"]),
    ("dotnet", &["6", "7", "8", "9", "10", "latest"]),
    ("elixir", &["1", "1.16", "1.16.2", "1.16.3", "latest"]),
    ("gleam", &["1", "1.5", "1.5.1", "latest"]),
    ("go", &["1", "1.22", "latest"]),
    ("golang", &["1", "1.22", "latest"]),
    ("java", &["17", "21", "latest"]),
    ("nodejs", &["18", "20", "22", "24", "latest"]),
    ("php", &["8.1", "8.3", "8.4", "8.5", "latest"]),
    ("python", &["3.9", "3.11", "3.12", "3.14", "latest"]),
    ("ruby", &["3.2", "3.3", "3.4", "4.0", "latest"]),
    (
        "rust",
        &["1", "1.78", "1.80", "1.86", "latest", "nightly", "stable"],
    ),
    ("zero", &["0.1", "latest", "nightly"]),
];

/// Run bases beyond the build families (minus `php`, which only builds).
pub const RUN_ONLY_BASES: &[(&str, &[&str])] = &[
    ("php-apache", &["8.1", "8.3", "8.4", "8.5", "latest"]),
    ("php-nginx", &["8.1", "8.3", "8.4", "8.5", "latest"]),
    ("nginx", &["1.22", "latest"]),
    ("static", &["", "1.0", "latest"]),
    ("docker", &["26", "26.1", "26.1.5", "latest"]),
    ("runtime", &["latest"]),
    ("zcp", &["1", "latest"]),
];

/// Bare OS versions accepted as a build or run base (`3.20`, `22.04`).
pub const BARE_OS_VERSIONS: &[&str] = &[
    "3.17", "3.18", "3.19", "3.20", "3.21", "3.22", "3.23", "22.04", "24.04",
];

/// Run bases that serve HTTP themselves, so they need no `start`.
pub fn has_builtin_web_server(family: &str) -> bool {
    matches!(family, "php-apache" | "php-nginx" | "nginx" | "static")
}

/// The result of checking a base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseCheck {
    Known,
    /// Known family, version not in the snapshot.
    UnknownVersion(Vec<String>),
    /// A run-only base used for build, or a build-only base used for run.
    WrongPhase(String),
    /// A managed service name (e.g. postgresql@16) used as a base.
    ManagedService,
    Unknown,
}

fn lookup<'a>(
    table: &'a [(&'static str, &'static [&'static str])],
    family: &str,
) -> Option<&'a [&'static str]> {
    table.iter().find(|(f, _)| *f == family).map(|(_, v)| *v)
}

fn versioned(family: &str, versions: &[&str]) -> Vec<String> {
    versions
        .iter()
        .map(|v| {
            if v.is_empty() {
                family.to_owned()
            } else {
                format!("{family}@{v}")
            }
        })
        .collect()
}

/// Checks a `build.base` (`run == false`) or `run.base` (`run == true`) value.
pub fn check_base(text: &str, run: bool) -> BaseCheck {
    if BARE_OS_VERSIONS.contains(&text) {
        return BaseCheck::Known;
    }
    let parsed = parse_type(text);
    if parsed.suffix.is_some() {
        return if find_family(parsed.name).is_some_and(|f| f.category != Category::Runtime) {
            BaseCheck::ManagedService
        } else {
            BaseCheck::Unknown
        };
    }
    if parsed.os.is_some_and(|os| os != "alpine" && os != "ubuntu") {
        return BaseCheck::Unknown;
    }
    let family = parsed.name;
    let version = parsed.version.unwrap_or("");
    let in_build = lookup(BUILD_BASES, family);
    let in_run_only = lookup(RUN_ONLY_BASES, family);
    let versions = if run {
        if family == "php" {
            return BaseCheck::WrongPhase(format!(
                "{family} is a build base; run PHP on php-nginx@{0} or php-apache@{0}",
                if version.is_empty() { "8.4" } else { version }
            ));
        }
        in_run_only.or(in_build)
    } else {
        if in_run_only.is_some() && in_build.is_none() {
            let hint = if family.starts_with("php-") {
                format!(
                    "{family} is a run base; build PHP on php@{}",
                    if version.is_empty() { "8.4" } else { version }
                )
            } else {
                format!(
                    "{family} is only a run base; build on the runtime you need (e.g. nodejs@22) and set run.base: {text}"
                )
            };
            return BaseCheck::WrongPhase(hint);
        }
        in_build
    };
    let Some(versions) = versions else {
        if find_family(family).is_some_and(|f| f.category != Category::Runtime) {
            return BaseCheck::ManagedService;
        }
        return BaseCheck::Unknown;
    };
    if versions.contains(&version) {
        BaseCheck::Known
    } else {
        BaseCheck::UnknownVersion(versioned(family, versions))
    }
}

/// Every base spelling worth suggesting.
pub fn all_bases(run: bool) -> Vec<String> {
    let mut out: Vec<String> = BUILD_BASES
        .iter()
        .filter(|(f, _)| !(run && *f == "php"))
        .flat_map(|(f, v)| versioned(f, v))
        .collect();
    if run {
        out.extend(RUN_ONLY_BASES.iter().flat_map(|(f, v)| versioned(f, v)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_spellings() {
        assert_eq!(
            parse_type("alpine/nodejs@22"),
            ParsedType {
                os: Some("alpine"),
                name: "nodejs",
                suffix: None,
                version: Some("22")
            }
        );
        assert_eq!(
            parse_type("postgresql:ha@16"),
            ParsedType {
                os: None,
                name: "postgresql",
                suffix: Some("ha"),
                version: Some("16")
            }
        );
        assert_eq!(parse_type("object-storage").version, None);
    }

    #[test]
    fn bases_by_phase() {
        assert_eq!(check_base("nodejs@22", false), BaseCheck::Known);
        assert_eq!(check_base("ubuntu/nodejs@22", true), BaseCheck::Known);
        assert_eq!(check_base("php@8.4", false), BaseCheck::Known);
        assert!(matches!(
            check_base("php@8.4", true),
            BaseCheck::WrongPhase(_)
        ));
        assert!(matches!(
            check_base("php-nginx@8.4", false),
            BaseCheck::WrongPhase(_)
        ));
        assert_eq!(check_base("php-nginx@8.4", true), BaseCheck::Known);
        assert_eq!(check_base("static", true), BaseCheck::Known);
        assert_eq!(check_base("postgresql@16", true), BaseCheck::ManagedService);
        assert!(matches!(
            check_base("nodejs@99", false),
            BaseCheck::UnknownVersion(_)
        ));
        assert_eq!(check_base("nodjs@22", false), BaseCheck::Unknown);
        assert_eq!(check_base("3.20", false), BaseCheck::Known);
    }
}
