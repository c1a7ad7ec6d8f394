//! Every YAML example in the knowledge base that is marked as a complete zerops.yml or
//! import.yml (fence info `yaml zerops.yml` / `yaml import.yml`) passes the validator, so
//! agents never copy a broken example. Topic coverage and links are checked in
//! `tests/knowledge.rs`.

use zcp::knowledge;
use zcp::ops::validate::{FileKind, validate};

#[test]
fn marked_yaml_examples_validate() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for doc in knowledge::store().documents() {
        for block in doc.code_blocks() {
            let kind = match block.info.as_str() {
                "yaml zerops.yml" => FileKind::ZeropsYml,
                "yaml import.yml" => FileKind::ImportYml,
                _ => continue,
            };
            checked += 1;
            let report = validate(&block.code, Some(kind), None);
            for error in &report.errors {
                failures.push(format!(
                    "{} (block at line {}): {} line {}: {} [{}]",
                    doc.uri, block.line, error.rule, error.line, error.message, error.path
                ));
            }
            if kind == FileKind::ImportYml && report.has_project {
                failures.push(format!(
                    "{} (block at line {}): complete import examples must not have project:",
                    doc.uri, block.line
                ));
            }
        }
    }
    println!("validated {checked} YAML examples");
    assert!(checked >= 40, "only {checked} validated YAML examples");
    assert!(
        failures.is_empty(),
        "invalid YAML examples:\n{}",
        failures.join("\n")
    );
}
