//! One service of an `import.yml`: its keys (I5), type and mode (I9–I15), storage, scaling
//! and flags (I16–I21), git source and embedded zerops.yml (I22–I25), secrets and isolation
//! (I26–I28), os and profile (I30, I31).

use super::catalog::{self, Kind, Match};
use super::env;
use super::import_fields::{
    check_containers, check_git, check_mount, check_object_storage, check_scaling, check_secrets,
    check_zerops_yaml,
};
use super::import_yml::Peers;
use super::report::{Pos, Severity, Sink, join};
use super::shape;
use super::suggest;
use super::yaml::Node;

const SERVICE_KEYS: &[&str] = &[
    "hostname",
    "type",
    "mode",
    "priority",
    "enableSubdomainAccess",
    "startWithoutCode",
    "buildFromGit",
    "zeropsSetup",
    "zeropsYaml",
    "envSecrets",
    "dotEnvSecrets",
    "vault",
    "envIsolation",
    "sshIsolation",
    "verticalAutoscaling",
    "minContainers",
    "maxContainers",
    "mount",
    "nginxConfig",
    "objectStorageSize",
    "objectStoragePolicy",
    "objectStorageRawPolicy",
    "enableCdn",
    "os",
    "override",
    "profile",
    "profileOverrides",
];
/// Service keys that are accepted but reported by a check of their own (I5: dropped).
const SERVICE_REPORTED: &[&str] = &["envVariables"];
const SERVICE_HINTS: &[(&str, &str, &str)] = &[
    (
        "name",
        "services are named by `hostname`",
        "rename it to `hostname`",
    ),
    (
        "version",
        "the version is part of `type`",
        "write `type: <name>@<version>`",
    ),
    (
        "ports",
        "ports are declared in zerops.yml `run.ports`",
        "move them to zerops.yml",
    ),
    (
        "build",
        "build configuration belongs to zerops.yml",
        "put it in zerops.yml, or under `zeropsYaml:`",
    ),
    (
        "run",
        "run configuration belongs to zerops.yml",
        "put it in zerops.yml, or under `zeropsYaml:`",
    ),
    (
        "envVariable",
        "the key is `envSecrets`",
        "rename it to `envSecrets`",
    ),
];

/// Everything the field checks know about the service's type.
struct TypeInfo {
    kind: Option<Kind>,
    /// `Some(true)` for `:ha`, `Some(false)` for `:single`, `None` for no suffix.
    ha_suffix: Option<bool>,
    family: Option<&'static str>,
    /// The type names a known family but is misspelt (I9 error already given). Its suffix
    /// cannot be trusted, so a missing `mode` is not reported on top of it.
    malformed: bool,
}

/// Checks one service mapping.
pub fn check(sink: &mut Sink, item: &Node, path: &str, peers: &Peers) {
    let Some(map) = item.as_map() else { return };
    shape::unknown_keys_beside(
        sink,
        "I5",
        Severity::Error,
        map,
        path,
        SERVICE_KEYS,
        SERVICE_REPORTED,
        SERVICE_HINTS,
    );
    let info = check_type(sink, item, path);
    check_mode(sink, item, path, &info);
    let kind = info.kind;
    let has_git = item
        .value_of("buildFromGit")
        .and_then(Node::as_str)
        .is_some();
    let start_without_code =
        item.value_of("startWithoutCode").and_then(shape::go_bool) == Some(true);
    check_object_storage(sink, item, path, kind);
    for entry in map {
        let p = join(path, &entry.key);
        let v = &entry.value;
        match entry.key.as_str() {
            "envVariables" => sink.warn(
                "I5",
                &p,
                Pos::from(entry),
                "service-level `envVariables` is accepted but silently dropped by the import",
                "rename it to `envSecrets`, or set the variables in zerops.yml `run.envVariables`",
            ),
            "priority" => {
                shape::expect_int(sink, "I20", v, &p);
            }
            "enableSubdomainAccess" => {
                shape::expect_bool(sink, "I20", v, &p);
                // Only runtimes serve HTTP through a zerops.app subdomain.
                if shape::go_bool(v) == Some(true)
                    && kind.is_some_and(|k| k.is_service() || k == Kind::SharedStorage)
                {
                    sink.warn(
                        "I21",
                        &p,
                        Pos::from(entry),
                        "`enableSubdomainAccess` has an effect only on runtime services: a database, cache, search, queue or storage gets no zerops.app subdomain",
                        "remove it; other services reach this one by hostname over the private network",
                    );
                }
            }
            "startWithoutCode" | "override" => {
                shape::expect_bool(sink, "I20", v, &p);
            }
            "enableCdn" => {
                shape::expect_bool(sink, "I20", v, &p);
                if kind.is_some_and(|k| k != Kind::ObjectStorage) {
                    sink.warn(
                        "I21",
                        &p,
                        Pos::from(entry),
                        "`enableCdn` has an effect only on object storage",
                        "remove it",
                    );
                }
            }
            "nginxConfig" => {
                shape::expect_string(sink, "I21", v, &p);
                if kind.is_some_and(|k| !matches!(k, Kind::PhpWeb | Kind::Nginx | Kind::Static))
                    || info.family == Some("php-apache")
                {
                    sink.warn("I21", &p, Pos::from(entry), "`nginxConfig` has an effect only on nginx-based services (php-nginx, nginx, static)", "remove it, or use an nginx-based type");
                }
            }
            "verticalAutoscaling" => check_scaling(sink, v, &p, kind),
            "buildFromGit" => check_git(sink, v, &p),
            "zeropsSetup" => {
                shape::expect_string(sink, "I23", v, &p);
                if !has_git {
                    sink.error("I23", &p, Pos::from(entry), "`zeropsSetup` is used only together with `buildFromGit`", "add `buildFromGit: https://github.com/<org>/<repo>`, or remove `zeropsSetup`");
                }
            }
            "zeropsYaml" => check_zerops_yaml(sink, item, entry, &p),
            "mount" => check_mount(sink, v, &p, peers, has_git),
            "envSecrets" => check_secrets(sink, v, &p, Pos::from(entry), peers),
            "dotEnvSecrets" => env::check_dotenv(sink, &p, v),
            "vault" => env::check_vault(sink, v, &p, "I26", false),
            "envIsolation" => env::check_isolation(sink, Severity::Error, v, &p),
            "sshIsolation" => env::check_ssh_isolation(sink, v, &p),
            "os" => check_os(sink, v, &p, kind, start_without_code),
            _ => {}
        }
    }
    check_containers(sink, item, path, kind);
    check_profile(sink, item, path, &info);
}

/// I9: `type` present and known.
fn check_type(sink: &mut Sink, item: &Node, path: &str) -> TypeInfo {
    let mut info = TypeInfo {
        kind: None,
        ha_suffix: None,
        family: None,
        malformed: false,
    };
    let Some(e) = item.get("type") else {
        sink.error(
            "I9",
            path,
            Pos::from(item),
            "this service has no `type`",
            "add `type: <name>@<version>`, e.g. `nodejs@22` or `postgresql@17`",
        );
        return info;
    };
    let p = join(path, "type");
    let text = match shape::go_string(&e.value) {
        Some((t, true)) => {
            let known = matches!(catalog::match_type(t), Match::Known { .. });
            shape::unquoted_number(sink, "I9", &e.value, &p, known, "type", "nodejs@22");
            if !known {
                return info;
            }
            t
        }
        Some((t, false)) if !t.trim().is_empty() => {
            shape::padded_name(sink, "I9", &e.value, &p, "type");
            t.trim()
        }
        _ => {
            sink.error(
                "I9",
                &p,
                Pos::from(&e.value),
                format!(
                    "`type` must be text like `nodejs@22`, found {}",
                    shape::describe(&e.value)
                ),
                "write `type: <name>@<version>`",
            );
            return info;
        }
    };
    info.family = catalog::family(catalog::split(text).name).map(|f| f.name);
    if let Some((_, why, fix)) = (catalog::RETIRING.iter()).find(|r| info.family == Some(r.0)) {
        sink.warn(
            "I9",
            &p,
            Pos::from(&e.value),
            format!("`{text}` {why}"),
            *fix,
        );
    }
    match catalog::match_type(text) {
        Match::Known { kind, ha_suffix } => {
            info.kind = Some(kind);
            info.ha_suffix = ha_suffix;
        }
        Match::VersionMiss { kind, known } => {
            info.kind = Some(kind);
            info.ha_suffix = catalog::split(text).suffix.map(|s| s == "ha");
            sink.warn(
                "I9",
                &p,
                Pos::from(&e.value),
                format!("`{text}` is not in the offline type list (the live list may be newer)"),
                format!("known: {}", suggest::sample(&known)),
            );
        }
        Match::Malformed {
            kind,
            message,
            suggestion,
        } => {
            info.kind = Some(kind);
            info.malformed = true;
            sink.error("I9", &p, Pos::from(&e.value), message, suggestion);
        }
        Match::Unknown { suggestions } => {
            let (message, fix) = unknown_type(text, &suggestions);
            sink.error("I9", &p, Pos::from(&e.value), message, fix);
        }
    }
    info
}

/// I9 message and fix for a type the catalogue does not know. A well-known foreign name
/// (redis, mysql, mongodb) gets the Zerops equivalent or the news that there is none; a
/// typo gets the closest families, each spelled with a version it really has.
fn unknown_type(text: &str, suggestions: &[String]) -> (String, String) {
    let s = catalog::split(text);
    let message = format!("unknown service type `{text}`");
    if let Some(foreign) = catalog::foreign_service(s.name) {
        return match foreign.instead {
            Some(f) => (
                format!("{message}: Zerops has no {}", foreign.product),
                format!(
                    "use the {}-compatible {}",
                    foreign.product,
                    with_mode(f, &catalog::existing_spelling(f, &s))
                ),
            ),
            None => (
                format!("{message}: Zerops has no {} service", foreign.product),
                format!(
                    "choose a service Zerops offers, e.g. {}; zerops_knowledge (\"service types\") lists them all",
                    catalog::family("postgresql").map_or_else(
                        || "`postgresql`".to_owned(),
                        |f| with_mode(f, &catalog::default_spelling(f))
                    )
                ),
            ),
        };
    }
    let spelled: Vec<String> = suggestions
        .iter()
        .filter_map(|name| catalog::family(name))
        .map(|f| catalog::existing_spelling(f, &s))
        .collect();
    let refs: Vec<&str> = spelled.iter().map(String::as_str).collect();
    let fix = if refs.is_empty() {
        "use a type such as `nodejs@22`, `python@3.12`, `postgresql@17`, `valkey@7.2`, `object-storage`".to_owned()
    } else {
        format!("did you mean {}?", suggest::or_list(&refs))
    };
    (message, fix)
}

/// `` `valkey@7.2` with `mode: NON_HA` (or `HA`) ``: a managed type in the legacy spelling
/// needs `mode` (I11), so a suggestion of one says so.
fn with_mode(family: &catalog::Family, spelled: &str) -> String {
    if family.kind.has_mode() && catalog::split(spelled).suffix.is_none() {
        format!("`{spelled}` with `mode: NON_HA` (or `HA`)")
    } else {
        format!("`{spelled}`")
    }
}

/// I10–I15: `mode` value and where it is required, forbidden or redundant.
fn check_mode(sink: &mut Sink, item: &Node, path: &str, info: &TypeInfo) {
    let mode_entry = item.get("mode");
    let p = join(path, "mode");
    let mode = match mode_entry {
        None => None,
        Some(e) => match e.value.as_str() {
            Some(m @ ("HA" | "NON_HA")) => Some(m),
            _ => {
                sink.error(
                    "I10",
                    &p,
                    Pos::from(&e.value),
                    format!(
                        "`mode` must be HA or NON_HA, found {}",
                        shape::describe(&e.value)
                    ),
                    suggest::did_you_mean(
                        e.value.scalar_text().unwrap_or(""),
                        &["HA", "NON_HA"],
                        "values",
                    ),
                );
                None
            }
        },
    };
    let Some(kind) = info.kind else { return };
    let type_text = item.value_of("type").and_then(Node::as_str).unwrap_or("");
    if info.family == Some("meilisearch") && mode == Some("HA") {
        sink.error(
            "I15",
            &p,
            Pos::from(mode_entry.map_or(item, |e| &e.value)),
            "meilisearch has no HA mode",
            "use `mode: NON_HA` (or `meilisearch:single@…`)",
        );
    }
    match (kind, mode_entry) {
        (Kind::ObjectStorage, Some(e)) => sink.error(
            "I12",
            &p,
            Pos::from(e),
            "object storage takes no `mode`",
            "remove `mode`",
        ),
        (k, None) if k.has_mode() && info.ha_suffix.is_none() && !info.malformed => sink.error(
            "I11",
            path,
            Pos::from(item.get("type").map_or(item, |e| &e.value)),
            format!("`{type_text}` needs `mode` (the API answers a missing parameter otherwise)"),
            format!(
                "add `mode: NON_HA` (or HA), or write the type as `{}`",
                composite(type_text, false)
            ),
        ),
        (k, Some(e)) if k.has_mode() => match (info.ha_suffix, mode) {
            (Some(ha), Some(m)) if ha != (m == "HA") => sink.error(
                "I13",
                &p,
                Pos::from(e),
                format!("`mode: {m}` contradicts the type `{type_text}`"),
                "remove `mode`; the type already fixes it",
            ),
            (Some(_), _) => sink.warn(
                "I13",
                &p,
                Pos::from(e),
                "`mode` is redundant with a `:single`/`:ha` type (deprecated)",
                "remove `mode`; the type already fixes it",
            ),
            _ => {}
        },
        (k, Some(e)) if !k.is_service() => sink.warn(
            "I14",
            &p,
            Pos::from(e),
            "`mode` on a runtime has no effect on availability",
            "remove it; use `minContainers: 2` or more for high availability",
        ),
        _ => {}
    }
}

/// `postgresql@16` → `postgresql:single@16`.
fn composite(type_text: &str, ha: bool) -> String {
    let s = catalog::split(type_text);
    let v = if s.version.is_empty() {
        String::new()
    } else {
        format!("@{}", s.version)
    };
    format!("{}:{}{v}", s.name, if ha { "ha" } else { "single" })
}

/// I30: `os` matters only for runtimes started without code.
fn check_os(
    sink: &mut Sink,
    node: &Node,
    path: &str,
    kind: Option<Kind>,
    start_without_code: bool,
) {
    if !node
        .as_str()
        .is_some_and(|s| s == "alpine" || s == "ubuntu")
    {
        sink.warn(
            "I30",
            path,
            Pos::from(node),
            format!(
                "`os` must be alpine or ubuntu, found {}",
                shape::describe(node)
            ),
            "use `os: alpine` or `os: ubuntu`",
        );
    } else if kind.is_some_and(Kind::is_service) {
        sink.warn(
            "I30",
            path,
            Pos::from(node),
            "`os` has no effect on a managed service",
            "remove it",
        );
    } else if !start_without_code {
        sink.warn(
            "I30",
            path,
            Pos::from(node),
            "`os` takes effect only with `startWithoutCode: true`; otherwise zerops.yml decides",
            "remove it, or set `os` in zerops.yml `build`/`run`",
        );
    }
}

/// I31: autoscaling profiles (PostgreSQL).
fn check_profile(sink: &mut Sink, item: &Node, path: &str, info: &TypeInfo) {
    let profile = item.get("profile");
    if let Some(e) = item.get("profileOverrides")
        && profile.and_then(|p| p.value.as_str()) != Some("custom")
    {
        sink.error(
            "I31",
            &join(path, "profileOverrides"),
            Pos::from(e),
            "`profileOverrides` needs `profile: custom`",
            "set `profile: custom` or remove the overrides",
        );
    }
    let Some(e) = profile else { return };
    let p = join(path, "profile");
    if info.family != Some("postgresql") {
        if info.family.is_some() {
            sink.warn(
                "I31",
                &p,
                Pos::from(e),
                "profiles are documented for PostgreSQL only",
                "check the type's docs, or remove `profile`",
            );
        }
        return;
    }
    let Some(name) = e.value.as_str() else {
        sink.error(
            "I31",
            &p,
            Pos::from(&e.value),
            "`profile` must be text",
            "e.g. `profile: oltp-production`",
        );
        return;
    };
    const ALL: &[&str] = &[
        "oltp-hobby",
        "oltp-staging",
        "oltp-production",
        "oltp-enterprise",
        "olap-production",
        "writeheavy-production",
        "custom",
    ];
    if !ALL.contains(&name) {
        sink.error(
            "I31",
            &p,
            Pos::from(&e.value),
            format!("unknown PostgreSQL profile `{name}`"),
            suggest::did_you_mean(name, ALL, "profiles"),
        );
        return;
    }
    let ha = info.ha_suffix.or_else(|| {
        item.value_of("mode")
            .and_then(Node::as_str)
            .map(|m| m == "HA")
    });
    match (name, ha) {
        ("oltp-hobby", Some(true)) => sink.error(
            "I31",
            &p,
            Pos::from(&e.value),
            "`oltp-hobby` is for single-node PostgreSQL only",
            "use `oltp-staging` or `oltp-production` with HA",
        ),
        ("oltp-enterprise", Some(false)) => sink.error(
            "I31",
            &p,
            Pos::from(&e.value),
            "`oltp-enterprise` needs HA PostgreSQL",
            "use `postgresql:ha@…` (or mode HA), or pick `oltp-production`",
        ),
        _ => {}
    }
}
