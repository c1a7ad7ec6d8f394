//! The offline validator against the real-world corpus (acceptance: valid files get no
//! error, invalid ones an error for their documented reason) and against the hand-written
//! cases in `fixtures/validate/cases`, each of which states the findings it expects.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use zcp::ops::validate::{
    FileKind, Finding, Report, Severity, check_setup, detect_kind, import_services, setup_names,
    validate,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/validate")
}

fn kind_of(rel: &str) -> FileKind {
    if rel.starts_with("import/") {
        FileKind::ImportYml
    } else {
        FileKind::ZeropsYml
    }
}

/// The rule(s) that carry the documented reason of each `invalid` corpus file.
fn reason_rules(file: &str) -> &'static [&'static str] {
    match file {
        "zerops/025-EinLinuus-sveltekit-blog.yml" | "zerops/034-MichalSalon-zerops-saleor.yml" => {
            &["Z1"]
        }
        "zerops/027-HenryTech12-zerops-deploy-doctor.yml"
        | "zerops/031-HenryTech12-zerops-deploy-doctor.yml" => &["Z24", "Z25"],
        "zerops/033-UhrinDavid-frappe_docker.yml" => &["Z4"],
        "import/017-SakshamManav-Way-Finder.yml" => &["I22"],
        "import/021-Thirumurugan-12-creator-shield-zerops.yml" => &["I11"],
        _ => &[],
    }
}

fn brief(f: &Finding) -> String {
    format!(
        "{} {}:{} {} ({})",
        f.rule, f.line, f.column, f.path, f.message
    )
}

#[test]
fn corpus_acceptance() {
    let dir = fixtures().join("corpus");
    let tsv = std::fs::read_to_string(dir.join("SOURCES.tsv")).expect("SOURCES.tsv");
    let mut table = String::new();
    let mut failures = 0;
    let mut counts = [(0, 0); 3]; // (files, passing) for valid, invalid, unsure
    for line in tsv.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (file, judgement) = (cols[0], cols[4]);
        let text = std::fs::read_to_string(dir.join(file)).expect("corpus file");
        let report = validate(&text, Some(kind_of(file)), Some(file));
        let errors: Vec<String> = report.errors.iter().map(brief).collect();
        let (slot, ok) = match judgement {
            "valid" => (0, report.valid),
            "invalid" => {
                let wanted = reason_rules(file);
                let found = !wanted.is_empty()
                    && wanted
                        .iter()
                        .all(|r| report.errors.iter().any(|f| f.rule == *r));
                (1, found)
            }
            _ => (2, true),
        };
        if file.starts_with("import/") && text.lines().any(|l| l.starts_with("project:")) {
            assert!(report.has_project, "{file}: has_project");
            assert!(
                report.warnings.iter().any(|f| f.rule == "I2"),
                "{file}: I2 warning"
            );
            assert!(
                report.errors.iter().all(|f| f.rule != "I2"),
                "{file}: project: must not be an error"
            );
        }
        counts[slot].0 += 1;
        counts[slot].1 += usize::from(ok);
        if !ok {
            failures += 1;
        }
        let _ = writeln!(
            table,
            "{:4} {:8} {:62} errors={} warnings={} info={} {}",
            if ok { "ok" } else { "FAIL" },
            judgement,
            file,
            report.errors.len(),
            report.warnings.len(),
            report.info.len(),
            errors.join("; ")
        );
    }
    assert_eq!(failures, 0, "corpus failures:\n{table}");
    assert!(
        counts[0].0 >= 40 && counts[1].0 >= 7,
        "corpus shrank: {counts:?}\n{table}"
    );
}

/// One expectation line of a case file.
#[derive(Debug)]
enum Expect {
    Finding {
        severity: Severity,
        rule: String,
        path: String,
        line: usize,
        column: usize,
    },
    NoErrors,
    Absent(String),
}

fn parse_case(text: &str) -> (FileKind, Vec<Expect>) {
    let kind = if text.contains("(kind: import.yml)") {
        FileKind::ImportYml
    } else {
        FileKind::ZeropsYml
    };
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("# ") else {
            continue;
        };
        if rest == "no-errors" {
            out.push(Expect::NoErrors);
        } else if let Some(rule) = rest.strip_prefix("absent: ") {
            out.push(Expect::Absent(rule.trim().to_owned()));
        } else if let Some(spec) = rest.strip_prefix("expect: ") {
            let parts: Vec<&str> = spec.split_whitespace().collect();
            assert_eq!(parts.len(), 4, "bad expectation `{spec}`");
            let severity = match parts[0] {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                "info" => Severity::Info,
                other => panic!("bad severity {other}"),
            };
            let (l, c) = parts[3].split_once(':').expect("line:column");
            out.push(Expect::Finding {
                severity,
                rule: parts[1].to_owned(),
                path: if parts[2] == "-" {
                    String::new()
                } else {
                    parts[2].to_owned()
                },
                line: l.parse().expect("line"),
                column: c.parse().expect("column"),
            });
        }
    }
    (kind, out)
}

fn check_case(name: &str, text: &str) -> Result<usize, String> {
    let (kind, expects) = parse_case(text);
    let report = validate(text, Some(kind), None);
    let all: Vec<&Finding> = report.findings().collect();
    let dump = || {
        all.iter()
            .map(|f| format!("  {:?} {}", f.severity, brief(f)))
            .collect::<Vec<_>>()
            .join("\n")
    };
    if expects.is_empty() {
        return Err(format!("{name}: no expectations"));
    }
    let mut asserted = 0;
    for e in &expects {
        match e {
            Expect::Finding {
                severity,
                rule,
                path,
                line,
                column,
            } => {
                let hit = all.iter().any(|f| {
                    f.severity == *severity
                        && f.rule == rule
                        && f.path == *path
                        && f.line == *line
                        && f.column == *column
                });
                if !hit {
                    return Err(format!(
                        "{name}: expected {severity:?} {rule} {path} {line}:{column}, got:\n{}",
                        dump()
                    ));
                }
                let f = all
                    .iter()
                    .find(|f| f.rule == rule && f.path == *path)
                    .expect("hit");
                if f.message.is_empty() || f.suggestion.is_empty() {
                    return Err(format!("{name}: {rule} needs a message and a suggestion"));
                }
                asserted += 1;
            }
            Expect::NoErrors if !report.valid => {
                return Err(format!("{name}: expected no errors, got:\n{}", dump()));
            }
            Expect::Absent(rule) if all.iter().any(|f| f.rule == rule) => {
                return Err(format!("{name}: expected no {rule}, got:\n{}", dump()));
            }
            _ => {}
        }
    }
    // Errors nobody asked for are failures too: each must be one of the expected findings.
    for f in &report.errors {
        let expected = expects.iter().any(|e| matches!(e, Expect::Finding { rule, path, line, .. } if *rule == f.rule && *path == f.path && *line == f.line));
        if !expected {
            return Err(format!("{name}: unexpected error {}\n{}", brief(f), dump()));
        }
    }
    Ok(asserted)
}

#[test]
fn hand_written_cases() {
    let dir = fixtures().join("cases");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("cases dir")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    let mut failures = Vec::new();
    let mut files = 0;
    let mut asserted = 0;
    for path in entries {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        let text = std::fs::read_to_string(&path).expect("case file");
        files += 1;
        match check_case(&name, &text) {
            Ok(n) => asserted += n,
            Err(e) => failures.push(e),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {files} cases failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(
        files >= 60 && asserted >= 60,
        "only {files} case files with {asserted} positional assertions"
    );
}

#[test]
fn report_serialises_with_the_tool_shape() {
    let report = validate(
        "zerops:\n  - setup: app\n    run:\n      base: static\n",
        Some(FileKind::ZeropsYml),
        None,
    );
    let json = serde_json::to_value(&report).expect("json");
    assert_eq!(json["type"], "zerops.yml");
    assert_eq!(json["valid"], true);
    assert_eq!(json["errors"], serde_json::json!([]));
    assert!(json["warnings"].is_array() && json["info"].is_array());
    assert_eq!(json["hasProject"], false);
    let bad = validate(
        "services:\n  - hostname: a\n    type: nodejs@22\n    mode: X\n",
        Some(FileKind::ImportYml),
        None,
    );
    let f = serde_json::to_value(&bad.errors[0]).expect("json");
    let keys: Vec<&str> = f
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "column",
            "line",
            "message",
            "path",
            "rule",
            "severity",
            "suggestion"
        ]
    );
    assert_eq!(f["severity"], "error");
    assert_eq!(f["rule"], "I10");
    assert_eq!(f["path"], "services[0].mode");
    assert_eq!(bad.error_code(), Some("INVALID_IMPORT_YML"));
}

#[test]
fn error_codes_follow_the_checklist() {
    let r = validate(
        "services:\n  - hostname: Bad_Name\n    type: nodejs@22\n",
        Some(FileKind::ImportYml),
        None,
    );
    assert_eq!(r.error_code(), Some("INVALID_HOSTNAME"));
    let r = validate(
        "services:\n  - hostname: a\n    type: nodjs@22\n",
        Some(FileKind::ImportYml),
        None,
    );
    assert_eq!(r.error_code(), Some("UNKNOWN_TYPE"));
    let r = validate("zerops: [", Some(FileKind::ZeropsYml), None);
    assert_eq!(r.error_code(), Some("INVALID_ZEROPS_YML"));
    assert_eq!(r.errors[0].rule, "G4");
}

#[test]
fn kind_detection() {
    let import = "services:\n  - hostname: a\n    type: nodejs@22\n";
    let zerops = "zerops:\n  - setup: a\n";
    assert_eq!(detect_kind(import, None), FileKind::ImportYml);
    assert_eq!(detect_kind(zerops, None), FileKind::ZeropsYml);
    assert_eq!(detect_kind("", None), FileKind::ZeropsYml);
    assert_eq!(
        detect_kind(zerops, Some("/repo/zerops-project-import.yml")),
        FileKind::ImportYml
    );
    // Only the file name counts, not a directory that happens to contain "import".
    assert_eq!(
        detect_kind(zerops, Some("/home/me/important/zerops.yaml")),
        FileKind::ZeropsYml
    );
    assert_eq!(detect_kind("services: [\n", None), FileKind::ImportYml);
    assert_eq!(FileKind::parse("import.yaml"), Some(FileKind::ImportYml));
    assert_eq!(FileKind::parse("Zerops.yml"), Some(FileKind::ZeropsYml));
    assert_eq!(FileKind::parse("compose.yml"), None);
    let auto = validate(import, None, None);
    assert_eq!(auto.kind, FileKind::ImportYml);
}

/// G3 to the letter: after the file name, a top-level `services` key decides, whatever
/// the file is called and whatever other keys sit beside it; nothing else means import.
#[test]
fn kind_detection_follows_g3_order() {
    let import = "services:\n  - hostname: a\n    type: nodejs@22\n";
    for name in ["zerops.yml", "/app/zerops.yaml", "C:\\app\\ZEROPS.YML"] {
        assert_eq!(
            detect_kind(import, Some(name)),
            FileKind::ImportYml,
            "{name}"
        );
    }
    let both = "zerops:\n  - setup: a\nservices:\n  - hostname: a\n    type: nodejs@22\n";
    assert_eq!(detect_kind(both, None), FileKind::ImportYml);
    assert_eq!(detect_kind(both, Some("zerops.yml")), FileKind::ImportYml);
    let report = validate(both, None, Some("zerops.yml"));
    assert_eq!(report.kind, FileKind::ImportYml);
    assert!(report.errors.iter().any(|f| f.rule == "I1"), "{report:?}");
    // `project` alone is not `services`: zerops.yml, whose Z1 says it looks like an import.
    let project = "project:\n  name: x\n";
    assert_eq!(detect_kind(project, None), FileKind::ZeropsYml);
    let report = validate(project, None, None);
    assert!(
        report
            .errors
            .iter()
            .any(|f| f.rule == "Z1" && f.message.contains("import.yml")),
        "{report:?}"
    );
}

#[test]
fn setup_names_for_the_deploy_preflight() {
    let text = "zerops:\n  - setup: api\n    run: {base: nodejs@22, start: x}\n  - setup: web\n";
    assert_eq!(setup_names(text).expect("names"), ["api", "web"]);
    assert_eq!(setup_names("zerops: []\n").unwrap_err().rule, "Z3");
    assert_eq!(setup_names("services: []\n").unwrap_err().rule, "Z1");
    let err = setup_names("zerops:\n  - setup: [\n").unwrap_err();
    assert_eq!(err.rule, "G4");
    assert!(err.line >= 2, "{err:?}");
    assert!(check_setup(text, "api").is_ok());
    let miss = check_setup(text, "apii").unwrap_err();
    assert_eq!((miss.rule, miss.line, miss.column), ("Z33", 1, 1));
    assert!(
        miss.suggestion.contains("`api`") && miss.suggestion.contains("`web`"),
        "{}",
        miss.suggestion
    );
}

#[test]
fn import_services_for_the_import_tool() {
    let text = "services:\n  - hostname: db\n    type: postgresql@17\n    mode: NON_HA\n  - hostname: api\n    type: alpine/nodejs@22\n";
    let services = import_services(text).expect("services");
    assert_eq!(services.len(), 2);
    assert_eq!(
        (
            services[0].hostname.as_str(),
            services[0].service_type.as_str(),
            services[0].mode.as_deref()
        ),
        ("db", "postgresql@17", Some("NON_HA"))
    );
    assert_eq!(services[1].mode, None);
    let json = serde_json::to_value(&services[1]).expect("json");
    assert_eq!(
        json,
        serde_json::json!({"hostname": "api", "type": "alpine/nodejs@22", "mode": null})
    );
    let err = import_services("services:\n  - type: nodejs@22\n").unwrap_err();
    assert_eq!((err.rule, err.line, err.column), ("I6", 2, 5));
    assert_eq!(
        import_services("project:\n  name: x\n").unwrap_err().rule,
        "I3"
    );
    assert_eq!(import_services("- a\n").unwrap_err().rule, "G5");
    // A mode the type names is the service's mode, as `mode:` would be.
    let named = import_services(
        "services:\n  - hostname: db\n    type: postgresql:ha@17\n  - hostname: kv\n    type: valkey:single@7.2\n",
    )
    .expect("services");
    assert_eq!(named[0].mode.as_deref(), Some("HA"));
    assert_eq!(named[1].mode.as_deref(), Some("NON_HA"));
}

#[test]
fn oversized_import_is_rejected() {
    let mut text = String::from("services:\n");
    let mut i = 0;
    while text.len() <= 100 * 1024 {
        let _ = write!(
            text,
            "  - hostname: svc{i}\n    type: nodejs@22\n    envSecrets:\n      FILLER: \"{}\"\n",
            "x".repeat(200)
        );
        i += 1;
    }
    let report: Report = validate(&text, Some(FileKind::ImportYml), None);
    let g7: Vec<&Finding> = report.errors.iter().filter(|f| f.rule == "G7").collect();
    assert_eq!(g7.len(), 1);
    assert_eq!((g7[0].line, g7[0].column), (1, 1));
}

/// Only a value that names its own variable is a self-reference: the same reference under
/// another name, or inside a longer value, is not; each warning offers a name of its own.
#[test]
fn a_variable_that_refers_to_itself_is_the_only_one_warned_about() {
    let text = std::fs::read_to_string(fixtures().join("cases/z36_self_reference.yml"))
        .expect("case file");
    let report = validate(&text, Some(FileKind::ZeropsYml), None);
    let z36: Vec<(&str, &str)> = report
        .findings()
        .filter(|f| f.rule == "Z36")
        .map(|f| (f.path.as_str(), f.suggestion.as_str()))
        .collect();
    assert_eq!(z36.len(), 2, "{z36:?}");
    assert!(
        z36[0].0.ends_with("build.envVariables.NODE_ENV")
            && z36[0].1.ends_with("or give it a name of its own"),
        "{z36:?}"
    );
    assert!(
        z36[1].0.ends_with("run.envVariables.db_hostname")
            && z36[1].1.contains("`DB_HOSTNAME: ${db_hostname}`"),
        "{z36:?}"
    );
}
