//! `zerops.yml` `build` and `deploy` sections (Z11–Z17, Z20–Z23), base membership for
//! both phases (Z13, Z25), and the package-manager hints for command lists (Z34).

use super::catalog::{self, BUILD_BASES, Match, RUN_BASES, TYPES};
use super::env::{self, EnvMap};
use super::report::{Pos, Severity, Sink, index, join};
use super::shape;
use super::suggest;
use super::yaml::{Node, Value};
use super::zerops_yml::SetupCtx;
use super::{commands, probe};

const BUILD_KEYS: &[&str] = &[
    "base",
    "os",
    "prepareCommands",
    "buildCommands",
    "deployFiles",
    "cache",
    "addToRunPrepare",
    "envVariables",
];
/// Build keys that are accepted but reported by a check of their own (Z12 deprecation).
const BUILD_REPORTED: &[&str] = &["deploy"];
const DEPLOY_KEYS: &[&str] = &["readinessCheck", "temporaryShutdown"];
const DEPLOY_HINTS: &[(&str, &str, &str)] = &[(
    "healthCheck",
    "`healthCheck` belongs to the run section",
    "move it under `run:` (a sibling of `deploy:` in the setup)",
)];

/// Own `build:` section of a setup.
pub fn check_build(sink: &mut Sink, node: &Node, path: &str) {
    let Some(map) = shape::expect_map(sink, "Z11", node, path, true) else {
        return;
    };
    shape::unknown_keys_beside(
        sink,
        "Z11",
        Severity::Error,
        map,
        path,
        BUILD_KEYS,
        BUILD_REPORTED,
        &[
            ("build", "the pre-2023 name", "rename it to `buildCommands`"),
            (
                "prepare",
                "the pre-2023 name",
                "rename it to `prepareCommands`",
            ),
            (
                "start",
                "`start` belongs to the run section",
                "move it under `run:`",
            ),
            (
                "ports",
                "`ports` belong to the run section",
                "move them under `run:`",
            ),
            ("env", "not a build key", "use `envVariables`"),
            (
                "healthCheck",
                "`healthCheck` belongs to the run section",
                "move it under `run:`",
            ),
            (
                "readinessCheck",
                "`readinessCheck` belongs to the deploy section",
                "move it under `deploy:`",
            ),
        ],
    );
    for entry in map {
        let p = join(path, &entry.key);
        let v = &entry.value;
        match entry.key.as_str() {
            "base" => {
                for (item, ip) in base_items(sink, v, &p) {
                    check_base(sink, "Z13", item, &ip, Phase::Build);
                }
            }
            "os" => check_os(sink, v, &p),
            "prepareCommands" | "buildCommands" => {
                commands::command_list(sink, v, &p);
            }
            "deployFiles" | "deploy" => {
                if entry.key == "deploy" {
                    sink.warn(
                        "Z12",
                        &p,
                        Pos::from(entry),
                        "`build.deploy` is the deprecated name of `deployFiles`",
                        "rename `deploy` to `deployFiles`",
                    );
                }
                if deploys_nothing(v) {
                    sink.error(
                        "Z16",
                        &p,
                        Pos::from(entry),
                        format!("`{}` is empty; nothing would be deployed", entry.key),
                        "list what to deploy: `deployFiles: ./` (everything) or the built paths, e.g. `deployFiles: [dist, package.json]`",
                    );
                } else if let Some(items) = shape::string_or_list(sink, "Z16", v, &p) {
                    for (item, ip) in items {
                        let text = item.as_str().unwrap_or_default();
                        if text.matches('~').count() > 1 {
                            sink.warn("Z16", &ip, Pos::from(item), format!("`{text}` has more than one `~`; only one is allowed per path"), "keep a single `~` where the kept part of the path starts, e.g. `dist/~`");
                        }
                    }
                }
            }
            "cache" => match &v.value {
                Value::Bool(_) | Value::Str(_) => {}
                Value::Seq(_) => {
                    shape::string_or_list(sink, "Z17", v, &p);
                }
                _ => sink.error(
                    "Z17",
                    &p,
                    Pos::from(v),
                    format!(
                        "`cache` must be true, false, a path or a list of paths, found {}",
                        shape::describe(v)
                    ),
                    "e.g. `cache: node_modules` or `cache: true`",
                ),
            },
            "addToRunPrepare" => {
                shape::string_or_list(sink, "Z11", v, &p);
            }
            "envVariables" => {
                for (key, value) in env::check_map(sink, v, &p, Pos::from(entry), EnvMap::ZeropsYml)
                {
                    env::check_references(sink, "Z36", &p, key, value);
                }
            }
            _ => {}
        }
    }
}

/// A `deployFiles` value that names no path: no value, an empty or blank string, or an
/// empty list. All three deploy nothing, so they are one error, like a missing key (Z12).
fn deploys_nothing(node: &Node) -> bool {
    match &node.value {
        Value::Null => true,
        Value::Str(s) => s.trim().is_empty(),
        Value::Seq(items) => items.is_empty(),
        _ => false,
    }
}

/// Z13: the entries of `build.base`, one base or a list. Numbers count (a bare OS version
/// such as `3.20`, see `check_base`); anything else is reported here.
fn base_items<'a>(sink: &mut Sink, node: &'a Node, path: &str) -> Vec<(&'a Node, String)> {
    let names_a_base = |n: &Node| shape::go_string(n).is_some_and(|(t, _)| !t.trim().is_empty());
    match &node.value {
        Value::Seq(items) => {
            let mut out = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let p = index(path, i);
                if names_a_base(item) {
                    out.push((item, p));
                } else {
                    sink.error(
                        "Z13",
                        &p,
                        Pos::from(item),
                        format!(
                            "entry {i} of `base` must be a base name, found {}",
                            shape::describe(item)
                        ),
                        "write each entry as a base, e.g. `- nodejs@22`",
                    );
                }
            }
            out
        }
        _ if names_a_base(node) => vec![(node, path.to_owned())],
        _ => {
            sink.error(
                "Z13",
                path,
                Pos::from(node),
                format!(
                    "`base` must be a base name or a list of them, found {}",
                    shape::describe(node)
                ),
                "e.g. `base: nodejs@22`, or `base: [nodejs@22, python@3.12]` for several",
            );
            Vec::new()
        }
    }
}

/// `os` is alpine or ubuntu (Z14).
pub fn check_os(sink: &mut Sink, node: &Node, path: &str) {
    match node.as_str() {
        Some("alpine" | "ubuntu") => {}
        _ => sink.error(
            "Z14",
            path,
            Pos::from(node),
            format!(
                "`os` must be alpine or ubuntu, found {}",
                shape::describe(node)
            ),
            suggest::did_you_mean(
                node.scalar_text().unwrap_or(""),
                &["alpine", "ubuntu"],
                "values",
            ),
        ),
    }
}

/// Own `deploy:` section (Z20, Z21).
pub fn check_deploy(sink: &mut Sink, node: &Node, path: &str) {
    let Some(map) = shape::expect_map(sink, "Z20", node, path, true) else {
        return;
    };
    shape::unknown_keys(
        sink,
        "Z20",
        Severity::Error,
        map,
        path,
        DEPLOY_KEYS,
        DEPLOY_HINTS,
    );
    for entry in map {
        let p = join(path, &entry.key);
        match entry.key.as_str() {
            "temporaryShutdown" => {
                shape::expect_bool(sink, "Z20", &entry.value, &p);
            }
            "readinessCheck" => {
                probe::check_probe(sink, "Z21", entry, &p, &["failureTimeout", "retryPeriod"])
            }
            _ => {}
        }
    }
}

/// The phase a base is used in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Build,
    Run,
}

/// Z13/Z25: a base is known in its phase. A known family with an unknown version is a
/// warning; a base of the other phase or a managed service gets a targeted hint.
pub fn check_base(sink: &mut Sink, rule: &'static str, node: &Node, path: &str, phase: Phase) {
    let Some((text, numeric)) = shape::go_string(node) else {
        return;
    };
    let (table, other, here) = match phase {
        Phase::Build => (BUILD_BASES, RUN_BASES, "build"),
        Phase::Run => (RUN_BASES, BUILD_BASES, "run"),
    };
    if numeric {
        let known = matches!(catalog::match_base(text, table), Match::Known { .. });
        shape::unquoted_number(sink, rule, node, path, known, "base", "nodejs@22");
        return;
    }
    shape::padded_name(sink, rule, node, path, "base");
    let text = text.trim();
    match catalog::match_base(text, table) {
        Match::Known { .. } => {}
        Match::VersionMiss { known, .. } => sink.warn(
            rule,
            path,
            Pos::from(node),
            format!(
                "`{text}` is not in the offline list of {here} bases (the live list may be newer)"
            ),
            format!("known: {}", suggest::sample(&known)),
        ),
        Match::Malformed {
            message,
            suggestion,
            ..
        } => sink.error(rule, path, Pos::from(node), message, suggestion),
        Match::Unknown { suggestions } => {
            let s = catalog::split(text);
            let (message, fix) = if matches!(
                catalog::match_base(text, other),
                Match::Known { .. } | Match::VersionMiss { .. }
            ) {
                other_phase_hint(text, s.name, phase)
            } else if TYPES
                .iter()
                .any(|f| f.name == s.name && f.kind.is_service())
            {
                (
                    format!("`{text}` is a managed service, not a {here} base"),
                    format!(
                        "create `{}` as its own service in import.yml and reference its variables (e.g. `${{db_connectionString}}`); remove this setup or give it a runtime base",
                        s.name
                    ),
                )
            } else if let Some(foreign) = catalog::foreign_service(s.name) {
                foreign_base_hint(text, &s, foreign, here)
            } else if suggestions.is_empty() {
                (
                    format!("unknown {here} base `{text}`"),
                    format!(
                        "use a base such as `nodejs@22`, `python@3.12`, `go@1`; see the base list for {here}"
                    ),
                )
            } else {
                let spelled: Vec<String> =
                    suggestions.iter().map(|f| respell(&s, f, table)).collect();
                let refs: Vec<&str> = spelled.iter().map(String::as_str).collect();
                (
                    format!("unknown {here} base `{text}`"),
                    format!("did you mean {}?", suggest::or_list(&refs)),
                )
            };
            sink.error(rule, path, Pos::from(node), message, fix);
        }
    }
}

/// A well-known service that is not a Zerops name (redis, mysql, mongodb) used as a base:
/// it would be a managed service, under its Zerops name if there is one.
fn foreign_base_hint(
    text: &str,
    s: &catalog::Spelled,
    foreign: catalog::Foreign,
    here: &str,
) -> (String, String) {
    match foreign.instead {
        Some(f) => (
            format!(
                "`{text}` is not a {here} base; Zerops has no {}, and its {}-compatible `{}` is a managed service",
                foreign.product, foreign.product, f.name
            ),
            format!(
                "create `{}` as its own service in import.yml and reference its variables (e.g. `${{cache_connectionString}}`)",
                catalog::existing_spelling(f, s)
            ),
        ),
        None => (
            format!(
                "`{text}` is not a {here} base; Zerops has no {} service",
                foreign.product
            ),
            "run a database Zerops offers as its own service in import.yml; zerops_knowledge (\"service types\") lists them".to_owned(),
        ),
    }
}

fn other_phase_hint(text: &str, name: &str, phase: Phase) -> (String, String) {
    let v = catalog::split(text).version;
    let v = if v.is_empty() { "8.4" } else { v };
    match (phase, name) {
        (Phase::Build, "php-apache" | "php-nginx") => (
            format!("`{text}` is a run base; PHP builds on `php@<version>`"),
            format!("use `build.base: php@{v}` and keep `{text}` as `run.base`"),
        ),
        (Phase::Build, _) => (
            format!("`{text}` exists only as a run base"),
            "build on the runtime your build commands need (e.g. `nodejs@22`) and keep this as `run.base`".to_owned(),
        ),
        (Phase::Run, _) => (
            format!("`{text}` is a build-only base; PHP runs on `php-nginx` or `php-apache`"),
            format!("use `run.base: php-nginx@{v}` (or `php-apache@{v}`)"),
        ),
    }
}

/// Re-spells a suggested family in the user's form: their OS prefix and version where the
/// family has that base, else its newest listed version. Every candidate is checked against
/// the table, so a suggestion never names a base that does not exist.
fn respell(s: &catalog::Spelled, family: &str, table: &'static [catalog::BaseFamily]) -> String {
    let newest = table
        .iter()
        .find(|f| f.name == family)
        .and_then(|f| {
            f.legacy
                .iter()
                .rev()
                .find(|v| !v.is_empty() && **v != "latest")
        })
        .copied()
        .unwrap_or("");
    let spell = |os: Option<&str>, version: &str| {
        let mut out = os.map(|o| format!("{o}/")).unwrap_or_default();
        out.push_str(family);
        if !version.is_empty() {
            out.push('@');
            out.push_str(version);
        }
        out
    };
    let candidates = [
        spell(s.os, s.version),
        spell(None, s.version),
        spell(s.os, newest),
        spell(None, newest),
    ];
    candidates
        .iter()
        .find(|c| matches!(catalog::match_base(c, table), Match::Known { .. }))
        .unwrap_or(&candidates[3])
        .clone()
}

/// Merged-view checks of the build phase: Z12 (deployFiles present), Z13 (no base = info),
/// Z14 (os contradicting an OS-prefixed base), Z34 (package managers).
pub fn check_merged(sink: &mut Sink, ctx: &SetupCtx) {
    let Some(build) = &ctx.merged.build else {
        return;
    };
    let path = join(&ctx.path, "build");
    let at = build.own.map_or(ctx.at, Pos::from);
    if build.get("deployFiles").is_none() && build.get("deploy").is_none() && !ctx.extended {
        sink.error("Z12", &path, at, "the build has no `deployFiles`; nothing would be deployed", "add `deployFiles: ./` (everything) or list the built paths, e.g. `deployFiles: [dist, package.json]`");
    }
    let bases: Vec<&Node> = match build.value("base") {
        None => {
            sink.info(
                "Z13",
                &path,
                at,
                "no `build.base`: the build container has no language runtime",
                "set `base:` (e.g. `nodejs@22`) if your build commands need one",
            );
            Vec::new()
        }
        Some(n) => match &n.value {
            Value::Seq(items) => items.iter().collect(),
            _ => vec![n],
        },
    };
    let os_node = build.value("os");
    let os = os_node.and_then(Node::as_str);
    for base in &bases {
        let (Some(os), Some(text), Some(os_node)) = (os, base.as_str(), os_node) else {
            continue;
        };
        // An os that is neither OS is reported by the value check alone.
        if let Some(prefix) = catalog::explicit_os(text)
            && prefix != os
            && (prefix == "alpine" || prefix == "ubuntu")
            && (os == "alpine" || os == "ubuntu")
        {
            sink.error(
                "Z14",
                &join(&path, "os"),
                Pos::from(os_node),
                format!("`os: {os}` contradicts the base `{text}`"),
                os_form_fix(text, os, BUILD_BASES),
            );
        }
    }
    let os = os
        .or_else(|| {
            bases
                .iter()
                .filter_map(|b| b.as_str())
                .find_map(catalog::explicit_os)
        })
        .unwrap_or("alpine");
    for key in ["prepareCommands", "buildCommands"] {
        if let Some(n) = build.value(key) {
            commands::check_packages(sink, n, &join(&path, key), os);
        }
    }
}

/// Z14's fix for `os` contradicting the OS a base names: drop `os`, or use a base of the
/// snapshot that has that OS: the same runtime and version under the other prefix
/// (`ubuntu/nodejs@22`), that runtime's newest version there, or for a bare OS base the
/// other OS itself (`ubuntu@24.04`). A runtime without that OS form says so.
pub fn os_form_fix(base: &str, os: &str, table: &'static [catalog::BaseFamily]) -> String {
    let s = catalog::split(base);
    let Some(family) = table.iter().find(|f| f.name == s.name) else {
        return format!("drop `os`, or use a base built on {os}");
    };
    let form = if s.os.is_none() {
        // `alpine@3.20`: the base is the OS, so the other OS's own base is the form.
        table
            .iter()
            .find(|f| f.name == os)
            .and_then(|f| newest(f.legacy))
            .map(|v| format!("{os}@{v}"))
    } else {
        let list = if os == "alpine" {
            family.alpine
        } else {
            family.ubuntu
        };
        let version = if list.contains(&s.version) {
            Some(s.version)
        } else {
            newest(list)
        };
        version.map(|v| format!("{os}/{}@{v}", s.name))
    };
    match form {
        Some(form) => format!("drop `os`, or use the base `{form}`"),
        None => format!("drop `os`: `{}` has no {os} form", s.name),
    }
}

/// The newest numbered version of a list (the tables list them oldest first).
fn newest<'a>(list: &[&'a str]) -> Option<&'a str> {
    list.iter()
        .rev()
        .find(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        .copied()
}
