//! Offline validation of `zerops.yml` and `import.yml`: the rule checklist of the
//! zcli-and-yaml spec §6 (G1–G7, Z1–Z37, I1–I31, minus the rules that need live data).
//! Every finding carries a severity, the rule id, a path such as `zerops[0].build.base`, a
//! 1-based line and column, a message and an actionable suggestion. Structural quirks that
//! real, deployed files contain are warnings, not errors.
//!
//! This module is the logic behind `zerops_validate`, the `zerops_import` dry run and the
//! `zerops_deploy` preflight; it knows nothing of MCP.

pub mod catalog;
mod commands;
pub(crate) mod env;
mod import_fields;
mod import_service;
mod import_yml;
mod probe;
mod report;
mod run_parts;
mod shape;
pub(crate) mod suggest;
pub mod yaml;
mod zerops_build;
mod zerops_run;
mod zerops_yml;

use serde::Serialize;

pub use report::{FileKind, Finding, Report, Severity};

use report::{Pos, Sink};
use yaml::Node;

/// A service of an import file, as the import tool lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportService {
    pub hostname: String,
    #[serde(rename = "type")]
    pub service_type: String,
    pub mode: Option<String>,
    /// A runtime that gets no code from the import (no `buildFromGit`) and does not start
    /// without it: it waits for a deploy. Managed services and storages never do.
    #[serde(skip)]
    pub awaits_code: bool,
    /// A managed service (database, cache, storage, ...), not a runtime.
    #[serde(skip)]
    pub managed: bool,
    /// `override: true`: an existing service of this hostname is re-imported, not refused.
    #[serde(skip)]
    pub overrides: bool,
    /// Its `envSecrets`, as written (reference checks need a token, so happen later).
    #[serde(skip)]
    pub env: Vec<(String, String)>,
}

/// G3: which format a text is when the caller does not say. A file name containing
/// `import` means import.yml; otherwise a top-level `services` key means import.yml, even
/// in a file named zerops.yml or beside a `zerops` key (the import checks then report the
/// stray key, I1); anything else is zerops.yml. Only the file name is searched for
/// `import`, so a directory such as `important/` does not turn its files into imports.
pub fn detect_kind(content: &str, path_hint: Option<&str>) -> FileKind {
    if path_hint.is_some_and(names_an_import) {
        return FileKind::ImportYml;
    }
    if top_level_keys(content).iter().any(|k| k == "services") {
        FileKind::ImportYml
    } else {
        FileKind::ZeropsYml
    }
}

/// Whether the last component of `path` contains `import` (in any letter case).
fn names_an_import(path: &str) -> bool {
    path.rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .to_ascii_lowercase()
        .contains("import")
}

/// The keys of the top-level mapping. Text that does not parse is read line by line, so
/// that a file with a syntax error is still reported as the format it was meant to be.
fn top_level_keys(content: &str) -> Vec<String> {
    match yaml::parse(content) {
        Ok(doc) => doc
            .root
            .as_ref()
            .and_then(Node::as_map)
            .map(|m| m.iter().map(|e| e.key.clone()).collect())
            .unwrap_or_default(),
        Err(_) => content
            .lines()
            .filter(|l| !l.starts_with([' ', '\t', '#', '-']))
            .filter_map(|l| l.split_once(':').map(|(k, _)| k.trim().to_owned()))
            .collect(),
    }
}

/// Validates `content` as `kind` (detected from the text and `path_hint` when `None`).
pub fn validate(content: &str, kind: Option<FileKind>, path_hint: Option<&str>) -> Report {
    let kind = kind.unwrap_or_else(|| detect_kind(content, path_hint));
    let mut sink = Sink::default();
    if kind == FileKind::ImportYml && import_yml::too_large(&mut sink, content) {
        return Report::from_sink(kind, sink, false);
    }
    let mut has_project = false;
    if let Some(root) = parse_root(&mut sink, content, kind) {
        shape::duplicate_keys(&mut sink, &root, "");
        match kind {
            FileKind::ZeropsYml => {
                zerops_yml::check(&mut sink, &root, "");
            }
            FileKind::ImportYml => has_project = import_yml::check(&mut sink, &root, content),
        }
    }
    Report::from_sink(kind, sink, has_project)
}

/// G4, G5: parses and returns a mapping root, or records why not.
fn parse_root(sink: &mut Sink, content: &str, kind: FileKind) -> Option<Node> {
    let doc = match yaml::parse(content) {
        Ok(doc) => doc,
        Err(e) => {
            sink.error(
                "G4",
                "",
                Pos { line: e.line, column: e.column },
                format!("invalid YAML at line {}, column {}: {}", e.line, e.column, e.message),
                "fix the syntax there: indent with spaces (not tabs), keep list items and keys aligned, and quote values containing `: ` or starting with `@`, `*`, `&`, `{` or `[`",
            );
            return None;
        }
    };
    if let Some(line) = doc.extra_document_line {
        sink.warn(
            "G5",
            "",
            Pos { line, column: 1 },
            "the file holds more than one YAML document; only the first is read",
            "remove the `---` separator and everything after it, or merge the documents",
        );
    }
    let Some(root) = doc.root else {
        sink.error(
            "G5",
            "",
            Pos::START,
            format!("the {} is empty", kind.as_str()),
            match kind {
                FileKind::ZeropsYml => {
                    "start with `zerops:` and a list of `- setup: <hostname>` items"
                }
                FileKind::ImportYml => {
                    "start with `services:` and a list of `- hostname: <name>` items with a `type`"
                }
            },
        );
        return None;
    };
    if root.as_map().is_none() {
        sink.error(
            "G5",
            "",
            Pos::from(&root),
            // The kind, not the text: a whole document that is not YAML (a key file, a
            // .env) would otherwise be quoted back in full.
            format!(
                "the top level must be a mapping, found {}",
                shape::article(root.type_name())
            ),
            match kind {
                FileKind::ZeropsYml => "start with `zerops:` at column 1",
                FileKind::ImportYml => "start with `services:` at column 1",
            },
        );
        return None;
    }
    Some(root)
}

/// The first error that `parse_root` would record, as a plain result.
fn root_or_finding(content: &str, kind: FileKind) -> Result<Node, Finding> {
    let mut sink = Sink::default();
    match parse_root(&mut sink, content, kind) {
        Some(root) => Ok(root),
        None => Err(sink
            .list
            .into_iter()
            .find(|f| f.severity == Severity::Error)
            .unwrap_or_else(|| {
                finding(
                    "G5",
                    "",
                    Pos::START,
                    "the file is empty",
                    "write the file content",
                )
            })),
    }
}

fn finding(rule: &'static str, path: &str, at: Pos, message: &str, suggestion: &str) -> Finding {
    Finding {
        severity: Severity::Error,
        rule,
        path: path.to_owned(),
        line: at.line,
        column: at.column,
        message: message.to_owned(),
        suggestion: suggestion.to_owned(),
    }
}

/// The setup names of a `zerops.yml` (deploy preflight). Fails only when there is no
/// readable `zerops:` list with at least one named setup.
pub fn setup_names(content: &str) -> Result<Vec<String>, Finding> {
    let root = root_or_finding(content, FileKind::ZeropsYml)?;
    let Some(entry) = root.get("zerops") else {
        return Err(finding(
            "Z1",
            "",
            Pos::from(&root),
            "no `zerops:` list",
            "start the file with `zerops:` and a list of `- setup: <hostname>` items",
        ));
    };
    let Some(items) = entry.value.as_seq() else {
        return Err(finding(
            "Z2",
            "zerops",
            Pos::from(entry),
            "`zerops` must be a list of setups",
            "start each setup with `- setup: <name>`",
        ));
    };
    let names = zerops_yml::names(&root).unwrap_or_default();
    if items.is_empty() {
        return Err(finding(
            "Z3",
            "zerops",
            Pos::from(entry),
            "`zerops` lists no setups",
            "add `- setup: <hostname>` with build and run sections",
        ));
    }
    if names.is_empty() {
        return Err(finding(
            "Z5",
            "zerops",
            Pos::from(entry),
            "no setup has a `setup:` name",
            "add `setup: <hostname of the service>` to each item",
        ));
    }
    Ok(names)
}

/// Z33: the setup a deploy will use exists in the file; the error lists what does.
pub fn check_setup(content: &str, setup: &str) -> Result<(), Finding> {
    let names = setup_names(content)?;
    if names.iter().any(|n| n == setup) {
        return Ok(());
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let near = suggest::closest(setup, &refs, 1);
    let suggestion = match near.first() {
        Some(n) => format!(
            "did you mean `{n}`? available setups: {}",
            suggest::quote_list(&refs)
        ),
        None => format!(
            "available setups: {}; pass one as the setup, or add `- setup: {setup}`",
            suggest::quote_list(&refs)
        ),
    };
    let root = root_or_finding(content, FileKind::ZeropsYml)?;
    let at = root.get("zerops").map_or(Pos::START, Pos::from);
    Err(Finding {
        severity: Severity::Error,
        rule: "Z33",
        path: "zerops".to_owned(),
        line: at.line,
        column: at.column,
        message: format!("no setup `{setup}` in zerops.yml"),
        suggestion,
    })
}

/// `run.<key>` of setup `setup` of a zerops.yml with `extends` applied (`None`: no such
/// setup; `Some(None)`: no such key). The simulator takes a deployed setup's ports this way.
pub fn merged_run_value<'a>(root: &'a Node, setup: &str, key: &str) -> Option<Option<&'a Node>> {
    zerops_yml::merged_run_value(root, setup, key)
}

/// Whether the file switches the import preprocessor on (its first line).
pub fn preprocessor_on(content: &str) -> bool {
    env::preprocessor_on(content)
}

/// Hostname, type and mode of each service of an import (for the import tool). Fails when
/// there is no readable, non-empty `services` list or an item lacks hostname or type.
pub fn import_services(content: &str) -> Result<Vec<ImportService>, Finding> {
    let root = root_or_finding(content, FileKind::ImportYml)?;
    let Some(entry) = root.get("services") else {
        return Err(finding(
            "I3",
            "services",
            Pos::from(&root),
            "no `services:` list",
            "add `services:` with `- hostname: <name>` items",
        ));
    };
    let items = match entry.value.as_seq() {
        Some(items) if !items.is_empty() => items,
        _ => {
            return Err(finding(
                "I3",
                "services",
                Pos::from(entry),
                "`services` must be a non-empty list",
                "add `- hostname: <name>` items with a `type`",
            ));
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = report::index("services", i);
        if item.as_map().is_none() {
            return Err(finding(
                "I4",
                &path,
                Pos::from(item),
                "a service must be a mapping",
                "write `- hostname: <name>` and `type: …`",
            ));
        }
        let Some(hostname) = item
            .value_of("hostname")
            .and_then(Node::scalar_text)
            .filter(|s| !s.is_empty())
        else {
            return Err(finding(
                "I6",
                &path,
                Pos::from(item),
                "this service has no `hostname`",
                "add `hostname: <name>`",
            ));
        };
        let Some(service_type) = item
            .value_of("type")
            .and_then(shape::go_string)
            .map(|(text, _)| text)
            .filter(|s| !s.is_empty())
        else {
            return Err(finding(
                "I9",
                &path,
                Pos::from(item),
                "this service has no `type`",
                "add `type: <name>@<version>`",
            ));
        };
        let managed = catalog::family(catalog::split(service_type).name)
            .is_some_and(|family| family.kind.is_service());
        out.push(ImportService {
            hostname: hostname.to_owned(),
            service_type: service_type.to_owned(),
            // The mode as written, or as the type names it (`postgresql:ha@17`).
            mode: item
                .value_of("mode")
                .and_then(Node::scalar_text)
                .map(str::to_owned)
                .or_else(|| {
                    catalog::split(service_type)
                        .suffix_mode()
                        .map(str::to_owned)
                }),
            overrides: item.value_of("override").and_then(shape::go_bool) == Some(true),
            awaits_code: !managed
                && item.get("buildFromGit").is_none()
                && item.value_of("startWithoutCode").and_then(shape::go_bool) != Some(true),
            managed,
            env: item
                .value_of("envSecrets")
                .and_then(Node::as_map)
                .unwrap_or_default()
                .iter()
                .filter_map(|e| Some((e.key.clone(), e.value.scalar_text()?.to_owned())))
                .collect(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
