//! The validator's acceptance test: the real-world corpus in
//! `shared/fixtures/zerops-yaml-corpus` (copied to `fixtures/corpus`). Files marked
//! `valid` must produce no error; files marked `invalid` must produce at least one error;
//! `unsure` files may go either way but must not crash.

use std::path::PathBuf;

use zcp::ops::validate::{FileKind, validate};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus")
}

#[test]
fn corpus_verdicts_hold() {
    let sources = std::fs::read_to_string(corpus().join("SOURCES.tsv")).unwrap();
    let mut table = Vec::new();
    let mut failures = 0;
    let mut counts = std::collections::BTreeMap::new();
    for line in sources.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (file, verdict, reason) = (cols[0], cols[4], cols[5]);
        *counts.entry(verdict).or_insert(0) += 1;
        let content = std::fs::read_to_string(corpus().join(file)).unwrap();
        let kind = if file.starts_with("import/") {
            FileKind::ImportYml
        } else {
            FileKind::ZeropsYml
        };
        let report = validate(&content, Some(kind), Some(file));
        let ok = match verdict {
            "valid" => report.errors.is_empty(),
            "invalid" => !report.errors.is_empty(),
            _ => true,
        };
        if !ok {
            failures += 1;
        }
        let first_errors: Vec<String> = report
            .errors
            .iter()
            .take(3)
            .map(|e| {
                format!(
                    "{}@{}:{} {} ({})",
                    e.rule, e.line, e.column, e.message, e.path
                )
            })
            .collect();
        table.push(format!(
            "{} {file} [{verdict}] errors={} warnings={} | {} | expected: {reason}",
            if ok { "ok  " } else { "FAIL" },
            report.errors.len(),
            report.warnings.len(),
            first_errors.join("; ")
        ));
    }
    println!("{}", table.join("\n"));
    println!("corpus: {counts:?}, failures: {failures}");
    assert_eq!(
        failures,
        0,
        "corpus verdicts violated:\n{}",
        table
            .iter()
            .filter(|l| l.starts_with("FAIL"))
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
