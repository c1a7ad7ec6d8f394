//! `import.yml`: the top level (I1), the `project:` block (I2), the service list (I3, I4),
//! hostnames (I6–I8) and the preprocessor header (I29). Per-service fields are checked in
//! `import_service`.

use std::collections::HashMap;

use super::catalog::{self, Kind, Match};
use super::env::{self, EnvMap};
use super::import_service;
use super::report::{Pos, Severity, Sink, index, join};
use super::shape;
use super::suggest;
use super::yaml::{Node, Value};

const TOP_KEYS: &[&str] = &["project", "services"];
const PROJECT_KEYS: &[&str] = &[
    "name",
    "description",
    "corePackage",
    "tags",
    "envVariables",
    "vault",
    "envIsolation",
    "sshIsolation",
    "sharedIpv4",
    "location",
];
/// Largest import file the platform takes.
pub const MAX_IMPORT_BYTES: usize = 100 * 1024;

/// A service as the rest of the file sees it (for mounts and cross-service references).
#[derive(Debug, Clone)]
pub struct Peer<'a> {
    pub hostname: &'a str,
    pub type_text: &'a str,
    pub kind: Option<Kind>,
}

/// The services of the file by hostname (the first of a repeated one), so that mounts and
/// references are resolved by lookup rather than by scanning every service for each one.
#[derive(Debug, Default)]
pub struct Peers<'a>(HashMap<&'a str, Peer<'a>>);

impl<'a> Peers<'a> {
    pub fn new(all: impl IntoIterator<Item = Peer<'a>>) -> Peers<'a> {
        let mut map = HashMap::new();
        for peer in all {
            map.entry(peer.hostname).or_insert(peer);
        }
        Peers(map)
    }

    pub fn get(&self, hostname: &str) -> Option<&Peer<'a>> {
        self.0.get(hostname)
    }
}

/// G7: an import over [`MAX_IMPORT_BYTES`] is refused by the platform whatever it holds, so
/// that one error is the whole verdict: the caller stops there rather than parse and check
/// a file that may be a hundred times the limit. Returns whether the file is too large.
pub fn too_large(sink: &mut Sink, content: &str) -> bool {
    if content.len() <= MAX_IMPORT_BYTES {
        return false;
    }
    sink.error(
        "G7",
        "",
        Pos::START,
        format!(
            "the file is {} bytes; imports are limited to 100 KiB",
            content.len()
        ),
        "split the services into several imports",
    );
    true
}

/// Checks a whole import document (root is a mapping). Returns whether it has `project:`.
/// With the preprocessor on, findings about values it will expand are deferred to it.
pub fn check(sink: &mut Sink, root: &Node, content: &str) -> bool {
    let preprocessed = env::check_preprocessor(sink, content);
    let has_project = check_document(sink, root);
    if preprocessed {
        env::defer_expanded(sink, root);
    }
    has_project
}

/// `check` before the preprocessor's values are set aside.
fn check_document(sink: &mut Sink, root: &Node) -> bool {
    let Some(top) = root.as_map() else {
        return false;
    };
    shape::unknown_keys(
        sink,
        "I1",
        Severity::Error,
        top,
        "",
        TOP_KEYS,
        &[(
            "zerops",
            "that is zerops.yml content",
            "put build/run setups in zerops.yml (or in a service's `zeropsYaml:`), not in the import",
        )],
    );
    let project = root.get("project");
    if let Some(p) = project {
        sink.warn(
            "I2",
            "project",
            Pos::from(p),
            "the file has a `project:` section: valid for creating a new project, but zerops_import refuses it (IMPORT_HAS_PROJECT) because it imports into the current project",
            if p.value.get("envVariables").is_some() {
                "to import into this project, delete the `project:` block; set its envVariables first as project variables (zerops_env), since services may reference them"
            } else {
                "to import into this project, delete the `project:` block"
            },
        );
        check_project(sink, &p.value);
    }
    let Some(services) = root.get("services") else {
        sink.error(
            "I3",
            "services",
            Pos::from(root),
            "no `services:` list",
            "add `services:` with items `- hostname: <name>` and `type: <type>@<version>`",
        );
        return project.is_some();
    };
    let items = match &services.value.value {
        Value::Seq(items) if !items.is_empty() => items,
        Value::Seq(_) | Value::Null => {
            sink.error(
                "I3",
                "services",
                Pos::from(services),
                "`services` is empty",
                "add at least one service: `- hostname: <name>` with a `type`",
            );
            return project.is_some();
        }
        _ => {
            sink.error(
                "I3",
                "services",
                Pos::from(&services.value),
                format!(
                    "`services` must be a list, found {}",
                    shape::describe(&services.value)
                ),
                "start each service with `- hostname: <name>`",
            );
            return project.is_some();
        }
    };
    let known = Peers::new(items.iter().filter_map(peer));
    for (i, item) in items.iter().enumerate() {
        let path = index("services", i);
        if item.as_map().is_none() {
            sink.error(
                "I4",
                &path,
                Pos::from(item),
                format!(
                    "each service must be a mapping, found {}",
                    shape::describe(item)
                ),
                "write `- hostname: <name>` and `type: …` as keys of the item",
            );
            continue;
        }
        check_hostname(sink, item, &path);
        import_service::check(sink, item, &path, &known);
    }
    unique_hostnames(sink, items);
    project.is_some()
}

fn peer(item: &Node) -> Option<Peer<'_>> {
    let hostname = item.value_of("hostname")?.as_str()?;
    let (type_text, _) = shape::go_string(item.value_of("type")?)?;
    let kind = match catalog::match_type(type_text) {
        Match::Known { kind, .. }
        | Match::VersionMiss { kind, .. }
        | Match::Malformed { kind, .. } => Some(kind),
        Match::Unknown { .. } => None,
    };
    Some(Peer {
        hostname,
        type_text,
        kind,
    })
}

/// I6, I7: hostname present, a string, `^[a-z][a-z0-9]{0,39}$`; 26–40 characters warned.
fn check_hostname(sink: &mut Sink, item: &Node, path: &str) {
    let Some(e) = item.get("hostname") else {
        sink.error(
            "I6",
            path,
            Pos::from(item),
            "this service has no `hostname`",
            "add `hostname: <name>` (lowercase letters and digits, starting with a letter)",
        );
        return;
    };
    let p = join(path, "hostname");
    let text = match &e.value.value {
        Value::Str(s) if !s.is_empty() => s.as_str(),
        Value::Int(_) | Value::Float(_) | Value::Bool(_) => e.value.raw(),
        _ => {
            sink.error(
                "I6",
                &p,
                Pos::from(&e.value),
                "the hostname is empty or not text",
                "write `hostname: <name>`",
            );
            return;
        }
    };
    if !valid_hostname(text) {
        let fixed = fix_hostname(text);
        sink.error(
            "I7",
            &p,
            Pos::from(&e.value),
            format!("hostname `{text}` is invalid: only lowercase letters and digits, starting with a letter, at most 40 characters"),
            format!("e.g. `{fixed}`"),
        );
    } else if text.len() > 25 {
        sink.warn(
            "I7",
            &p,
            Pos::from(&e.value),
            format!(
                "hostname `{text}` is {} characters; the docs allow 25",
                text.len()
            ),
            "shorten it to 25 characters or fewer",
        );
    }
}

/// I7's hard rule: `^[a-z][a-z0-9]{0,39}$`.
pub fn valid_hostname(text: &str) -> bool {
    let valid_chars = text
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    let starts = text.bytes().next().is_some_and(|b| b.is_ascii_lowercase());
    valid_chars && starts && text.len() <= 40
}

fn fix_hostname(text: &str) -> String {
    let mut s: String = text
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    while s.starts_with(|c: char| c.is_ascii_digit()) {
        s.remove(0);
    }
    s.truncate(25);
    if s.is_empty() { "app".to_owned() } else { s }
}

/// I8: a hostname appears once per file. The first use of each name is looked up in a
/// map: scanning a list of the earlier ones made an import of 100 000 services take
/// half a minute. An empty or missing hostname is I6's finding, not a name to repeat.
fn unique_hostnames(sink: &mut Sink, items: &[Node]) {
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Some(node) = item.value_of("hostname").filter(|n| !n.is_null()) else {
            continue;
        };
        let Some(name) = node.scalar_text().filter(|t| !t.trim().is_empty()) else {
            continue;
        };
        if let Some(first) = seen.get(name) {
            sink.error(
                "I8",
                &join(&index("services", i), "hostname"),
                Pos::from(node),
                format!("hostname `{name}` is used twice (first by services[{first}])"),
                "give every service its own hostname",
            );
        } else {
            seen.insert(name, i);
        }
    }
}

/// The `project:` block: valid keys and values for creating a project, all warnings
/// (under I2, and I28 for the isolation keys).
fn check_project(sink: &mut Sink, node: &Node) {
    let Some(map) = node.as_map() else {
        sink.warn(
            "I2",
            "project",
            Pos::from(node),
            format!(
                "`project` must be a mapping, found {}",
                shape::describe(node)
            ),
            "give it at least `name:`",
        );
        return;
    };
    shape::unknown_keys(
        sink,
        "I2",
        Severity::Warning,
        map,
        "project",
        PROJECT_KEYS,
        &[],
    );
    if node.get("name").is_none() {
        sink.warn(
            "I2",
            "project",
            Pos::from(node),
            "the project has no `name`",
            "add `name: <project name>`",
        );
    }
    for entry in map {
        let p = join("project", &entry.key);
        let v = &entry.value;
        let enum_check = |sink: &mut Sink, allowed: &[&str]| {
            if !v.as_str().is_some_and(|s| allowed.contains(&s)) {
                sink.warn(
                    "I2",
                    &p,
                    Pos::from(v),
                    format!(
                        "`{}` must be one of {}, found {}",
                        entry.key,
                        suggest::quote_list(allowed),
                        shape::describe(v)
                    ),
                    suggest::did_you_mean(v.scalar_text().unwrap_or(""), allowed, "values"),
                );
            }
        };
        match entry.key.as_str() {
            "name" | "description" if v.as_str().is_none() => {
                sink.warn(
                    "I2",
                    &p,
                    Pos::from(v),
                    format!("`{}` must be text", entry.key),
                    "quote the value",
                );
            }
            "description" if v.as_str().is_some_and(|d| d.chars().count() > 255) => {
                sink.warn(
                    "I2",
                    &p,
                    Pos::from(v),
                    "the description is longer than 255 characters",
                    "shorten it",
                );
            }
            "corePackage" => enum_check(sink, &["LIGHT", "SERIOUS"]),
            "location" => enum_check(sink, &["eu-central", "us-east-1", "us-west-1"]),
            "envIsolation" => env::check_isolation(sink, Severity::Warning, v, &p),
            "sshIsolation" => env::check_ssh_isolation(sink, v, &p),
            "vault" => env::check_vault(sink, v, &p, "I2", true),
            "sharedIpv4" => {
                shape::check_bool(sink, "I2", Severity::Warning, v, &p);
            }
            "tags"
                if !v
                    .as_seq()
                    .is_some_and(|t| t.iter().all(|x| x.as_str().is_some())) =>
            {
                sink.warn(
                    "I2",
                    &p,
                    Pos::from(v),
                    "`tags` must be a list of strings",
                    "write `tags: [one, two]`",
                );
            }
            "envVariables" => {
                env::check_map(sink, v, &p, Pos::from(entry), EnvMap::Project);
            }
            _ => {}
        }
    }
}
