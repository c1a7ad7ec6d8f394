//! The result types of the validator (findings, severities, the report) and the sink the
//! rule modules push findings into.

use serde::Serialize;
use std::cmp::Ordering;

use super::yaml::{Entry, Node};

/// Which of the two Zerops file formats a text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum FileKind {
    #[serde(rename = "zerops.yml")]
    ZeropsYml,
    #[serde(rename = "import.yml")]
    ImportYml,
}

impl FileKind {
    /// Reads an explicit type argument: `zerops.yml`/`import.yml`, the `.yaml` spellings and
    /// the bare words. Anything else is `None` (the caller answers INVALID_PARAMETER, G3).
    pub fn parse(text: &str) -> Option<FileKind> {
        match text.trim().to_ascii_lowercase().as_str() {
            "zerops.yml" | "zerops.yaml" | "zerops" => Some(FileKind::ZeropsYml),
            "import.yml" | "import.yaml" | "import" => Some(FileKind::ImportYml),
            _ => None,
        }
    }

    /// The file name as users write it.
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::ZeropsYml => "zerops.yml",
            FileKind::ImportYml => "import.yml",
        }
    }

    /// The error code a rejected file of this kind maps to.
    pub fn invalid_code(self) -> &'static str {
        match self {
            FileKind::ZeropsYml => "INVALID_ZEROPS_YML",
            FileKind::ImportYml => "INVALID_IMPORT_YML",
        }
    }
}

/// How serious a finding is. Errors make the file invalid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

/// One observation about a file, tied to a checklist rule and a position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub severity: Severity,
    /// The checklist rule id, e.g. `Z12` or `I9`.
    pub rule: &'static str,
    /// Where in the document, e.g. `zerops[0].build.base` or `services[2].mode`.
    pub path: String,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    pub message: String,
    /// What to write instead.
    pub suggestion: String,
}

impl Finding {
    /// The error code of the spec's checklist for this finding in a file of `kind`.
    pub fn code(&self, kind: FileKind) -> &'static str {
        match self.rule {
            "G1" | "G2" | "G3" => "INVALID_PARAMETER",
            "I2" => "IMPORT_HAS_PROJECT",
            "I6" | "I7" | "I8" => "INVALID_HOSTNAME",
            "I9" | "Z13" | "Z25" => "UNKNOWN_TYPE",
            _ => kind.invalid_code(),
        }
    }
}

/// Most findings a report lists. A hostile file can trigger a finding per line (a million
/// repeated keys), and holding all of them took gigabytes for an answer that is cut to
/// 80 KB anyway; beyond this many, findings are only counted.
pub(crate) const MAX_FINDINGS: usize = 1000;

/// The verdict on one file. Serialises as `{type, valid, errors, warnings, info, hasProject}`,
/// plus `omitted` when findings were left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    #[serde(rename = "type")]
    pub kind: FileKind,
    /// True when there is no error finding.
    pub valid: bool,
    pub errors: Vec<Finding>,
    pub warnings: Vec<Finding>,
    pub info: Vec<Finding>,
    /// An import file with a `project:` section: valid for creating a new project, refused by
    /// `zerops_import` (IMPORT_HAS_PROJECT).
    pub has_project: bool,
    /// How many findings beyond the first [`MAX_FINDINGS`] are not listed (errors are kept
    /// before warnings and info, each by position). Left out of the JSON when zero.
    #[serde(skip_serializing_if = "is_zero")]
    pub omitted: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Report {
    /// Sorts the sink's findings into the three lists (by position), dropping exact repeats.
    pub(crate) fn from_sink(kind: FileKind, mut sink: Sink, has_project: bool) -> Report {
        sink.compact();
        let mut all = sink.list;
        crate::order::sort_by(&mut all, |a, b| {
            (a.line, a.column, a.rule, &a.message, a.severity, &a.path)
                .cmp(&(b.line, b.column, b.rule, &b.message, b.severity, &b.path))
        });
        all.dedup_by(|a, b| same_finding(a, b));
        let mut report = Report {
            kind,
            valid: true,
            errors: Vec::new(),
            warnings: Vec::new(),
            info: Vec::new(),
            has_project,
            omitted: sink.omitted,
        };
        for finding in all {
            match finding.severity {
                Severity::Error => report.errors.push(finding),
                Severity::Warning => report.warnings.push(finding),
                Severity::Info => report.info.push(finding),
            }
        }
        report.valid = report.errors.is_empty();
        report
    }

    /// Every finding, errors first.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.errors.iter().chain(&self.warnings).chain(&self.info)
    }

    /// The error code of the first error, if any (for the tool's error envelope).
    pub fn error_code(&self) -> Option<&'static str> {
        self.errors.first().map(|f| f.code(self.kind))
    }
}

/// A position to attach a finding to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    pub line: usize,
    pub column: usize,
}

impl Pos {
    pub const START: Pos = Pos { line: 1, column: 1 };
}

impl From<&Node> for Pos {
    fn from(node: &Node) -> Pos {
        Pos {
            line: node.line,
            column: node.column,
        }
    }
}

impl From<&Entry> for Pos {
    /// An entry is reported at its key.
    fn from(entry: &Entry) -> Pos {
        Pos {
            line: entry.key_line,
            column: entry.key_column,
        }
    }
}

/// Two findings that say the same thing at the same place (only one is reported).
fn same_finding(a: &Finding, b: &Finding) -> bool {
    a.severity == b.severity
        && a.rule == b.rule
        && a.line == b.line
        && a.column == b.column
        && a.message == b.message
}

/// Which findings a full list keeps: errors, then warnings, then info, each by position.
fn keep_order(a: &Finding, b: &Finding) -> Ordering {
    (a.severity, a.line, a.column, a.rule, &a.message, &a.path)
        .cmp(&(b.severity, b.line, b.column, b.rule, &b.message, &b.path))
}

/// Collects findings while the rule modules walk a document. At most
/// [`MAX_FINDINGS`] are kept (after `compact`); the rest are counted in `omitted`.
#[derive(Debug, Default)]
pub(crate) struct Sink {
    pub list: Vec<Finding>,
    /// Findings dropped because the list was full. A repeat of an already dropped finding
    /// may be counted again, so this is an upper bound.
    pub omitted: usize,
}

impl Sink {
    /// Keeps the first [`MAX_FINDINGS`] distinct findings in `keep_order` and counts the
    /// rest. Run whenever the list doubles that size, so memory stays bounded and the
    /// sorting cost stays proportional to the number of findings.
    pub fn compact(&mut self) {
        if self.list.len() <= MAX_FINDINGS {
            return;
        }
        crate::order::sort_by(&mut self.list, keep_order);
        self.list.dedup_by(|a, b| same_finding(a, b));
        if self.list.len() > MAX_FINDINGS {
            self.omitted += self.list.len() - MAX_FINDINGS;
            self.list.truncate(MAX_FINDINGS);
        }
    }

    pub fn add(
        &mut self,
        severity: Severity,
        rule: &'static str,
        path: &str,
        at: impl Into<Pos>,
        message: impl Into<String>,
        suggestion: impl Into<String>,
    ) {
        let at = at.into();
        if self.list.len() >= 2 * MAX_FINDINGS {
            self.compact();
        }
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

    pub fn error(
        &mut self,
        rule: &'static str,
        path: &str,
        at: impl Into<Pos>,
        message: impl Into<String>,
        suggestion: impl Into<String>,
    ) {
        self.add(Severity::Error, rule, path, at, message, suggestion);
    }

    pub fn warn(
        &mut self,
        rule: &'static str,
        path: &str,
        at: impl Into<Pos>,
        message: impl Into<String>,
        suggestion: impl Into<String>,
    ) {
        self.add(Severity::Warning, rule, path, at, message, suggestion);
    }

    pub fn info(
        &mut self,
        rule: &'static str,
        path: &str,
        at: impl Into<Pos>,
        message: impl Into<String>,
        suggestion: impl Into<String>,
    ) {
        self.add(Severity::Info, rule, path, at, message, suggestion);
    }
}

/// `parent.key` (or `key` at the top).
pub(crate) fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// `parent[i]`.
pub(crate) fn index(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}
