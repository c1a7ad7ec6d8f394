//! Offline validation of `zerops.yml` and `import.yml`: the checklist of the zcli-and-yaml
//! spec §6. Every finding has a severity, a path (`zerops[0].build.base`), a 1-based line
//! and column, a message and a suggestion. Structural quirks that real, deployed files
//! contain are warnings, not errors. Knows nothing of MCP.

mod catalog;
mod common;
mod import_yml;
mod zerops_yml;

use serde::Serialize;

use crate::yaml::{self, Node};

pub use catalog::{BaseCheck, Category, check_base};

/// Which file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum FileKind {
    #[serde(rename = "zerops.yml")]
    ZeropsYml,
    #[serde(rename = "import.yml")]
    ImportYml,
}

impl FileKind {
    /// Reads `zerops.yml` / `import.yml` (and the `.yaml` spellings).
    pub fn parse(text: &str) -> Option<FileKind> {
        match text.trim().to_ascii_lowercase().as_str() {
            "zerops.yml" | "zerops.yaml" | "zerops" => Some(FileKind::ZeropsYml),
            "import.yml" | "import.yaml" | "import" => Some(FileKind::ImportYml),
            _ => None,
        }
    }
}

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

/// One problem (or note) about the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub severity: Severity,
    /// The checklist rule, e.g. `Z12`.
    pub rule: &'static str,
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
    pub suggestion: String,
}

/// The verdict on one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    #[serde(rename = "type")]
    pub kind: FileKind,
    /// No error findings.
    pub valid: bool,
    pub errors: Vec<Finding>,
    pub warnings: Vec<Finding>,
    pub info: Vec<Finding>,
    /// An import with a `project:` section (valid for a new project; `zerops_import`
    /// refuses it).
    pub has_project: bool,
}

/// A service of an import file, for the import tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportService {
    pub hostname: String,
    #[serde(rename = "type")]
    pub service_type: String,
    pub mode: Option<String>,
}

/// Collects findings while walking a document.
pub(crate) struct Findings {
    list: Vec<Finding>,
}

impl Findings {
    fn new() -> Findings {
        Findings { list: Vec::new() }
    }

    pub(crate) fn add(
        &mut self,
        severity: Severity,
        rule: &'static str,
        path: &str,
        at: &Node,
        message: impl Into<String>,
        suggestion: impl Into<String>,
    ) {
        self.list.push(Finding {
            severity,
            rule,
            path: path.to_owned(),
            line: at.line,
            column: at.column,
            message: message.into(),
            suggestion: suggestion.into(),
        });
    }

    pub(crate) fn error(
        &mut self,
        rule: &'static str,
        path: &str,
        at: &Node,
        message: impl Into<String>,
        suggestion: impl Into<String>,
    ) {
        self.add(Severity::Error, rule, path, at, message, suggestion);
    }

    pub(crate) fn warning(
        &mut self,
        rule: &'static str,
        path: &str,
        at: &Node,
        message: impl Into<String>,
        suggestion: impl Into<String>,
    ) {
        self.add(Severity::Warning, rule, path, at, message, suggestion);
    }

    pub(crate) fn info(
        &mut self,
        rule: &'static str,
        path: &str,
        at: &Node,
        message: impl Into<String>,
        suggestion: impl Into<String>,
    ) {
        self.add(Severity::Info, rule, path, at, message, suggestion);
    }

    fn into_report(mut self, kind: FileKind, has_project: bool) -> Report {
        self.list.sort_by_key(|f| (f.line, f.column));
        let pick = |s: Severity, list: &[Finding]| {
            list.iter()
                .filter(|f| f.severity == s)
                .cloned()
                .collect::<Vec<_>>()
        };
        let errors = pick(Severity::Error, &self.list);
        Report {
            kind,
            valid: errors.is_empty(),
            warnings: pick(Severity::Warning, &self.list),
            info: pick(Severity::Info, &self.list),
            errors,
            has_project,
        }
    }
}

/// Picks the format: explicit, else a path containing `import`, else a top-level
/// `services` key, else zerops.yml (rule G3).
pub fn detect_kind(content: &str, path_hint: Option<&str>) -> FileKind {
    if path_hint.is_some_and(|p| {
        let name = std::path::Path::new(p)
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        name.contains("import")
    }) {
        return FileKind::ImportYml;
    }
    match yaml::parse(content) {
        Ok(doc) if doc.get("services").is_some() && doc.get("zerops").is_none() => {
            FileKind::ImportYml
        }
        Ok(doc) if doc.get("project").is_some() && doc.get("zerops").is_none() => {
            FileKind::ImportYml
        }
        _ => FileKind::ZeropsYml,
    }
}

/// Validates a document of the given (or detected) kind.
pub fn validate(content: &str, kind: Option<FileKind>, path_hint: Option<&str>) -> Report {
    let kind = kind.unwrap_or_else(|| detect_kind(content, path_hint));
    let mut findings = Findings::new();
    let doc = match yaml::parse(content) {
        Ok(doc) => doc,
        Err(err) => {
            findings.list.push(Finding {
                severity: Severity::Error,
                rule: "G4",
                path: String::new(),
                line: err.line,
                column: err.column,
                message: format!("The file is not valid YAML: {}", err.message),
                suggestion: "Fix the YAML syntax at that line (indentation, a missing colon, an unclosed quote or bracket, a repeated key).".into(),
            });
            return findings.into_report(kind, false);
        }
    };
    let has_project = match kind {
        FileKind::ZeropsYml => {
            zerops_yml::check(&doc, &mut findings);
            false
        }
        FileKind::ImportYml => import_yml::check(content, &doc, &mut findings),
    };
    findings.into_report(kind, has_project)
}

fn invalid_zerops(message: String) -> Finding {
    Finding {
        severity: Severity::Error,
        rule: "Z1",
        path: "zerops".into(),
        line: 1,
        column: 1,
        message,
        suggestion: "Fix the file with zerops_validate.".into(),
    }
}

/// The setup names of a zerops.yml (deploy preflight).
pub fn setup_names(content: &str) -> Result<Vec<String>, Finding> {
    let doc = yaml::parse(content).map_err(|e| Finding {
        severity: Severity::Error,
        rule: "G4",
        path: String::new(),
        line: e.line,
        column: e.column,
        message: format!("zerops.yml is not valid YAML: {}", e.message),
        suggestion: "Fix the YAML syntax; zerops_validate shows every problem.".into(),
    })?;
    let list = doc
        .get("zerops")
        .and_then(Node::items)
        .ok_or_else(|| invalid_zerops("zerops.yml has no zerops: list of setups".into()))?;
    Ok(list
        .iter()
        .filter_map(|item| item.get("setup").and_then(Node::as_scalar_string))
        .collect())
}

/// The services of an import file (hostname, type, mode), for the import tool.
pub fn import_services(content: &str) -> Result<Vec<ImportService>, Finding> {
    let doc = yaml::parse(content).map_err(|e| Finding {
        severity: Severity::Error,
        rule: "G4",
        path: String::new(),
        line: e.line,
        column: e.column,
        message: format!("import.yml is not valid YAML: {}", e.message),
        suggestion: "Fix the YAML syntax; zerops_validate shows every problem.".into(),
    })?;
    let items = doc.get("services").and_then(Node::items).unwrap_or(&[]);
    Ok(items
        .iter()
        .map(|item| ImportService {
            hostname: item
                .get("hostname")
                .and_then(Node::as_scalar_string)
                .unwrap_or_default(),
            service_type: item
                .get("type")
                .and_then(Node::as_scalar_string)
                .unwrap_or_default(),
            mode: item.get("mode").and_then(Node::as_scalar_string),
        })
        .collect())
}
