//! Robustness tests of the whole validator: mutated corpus files and hostile inputs must
//! never panic, and every finding must stay well-formed.

use super::*;

/// Small deterministic generator (no test dependency needed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as usize
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { self.next() % n }
    }
}

const SNIPPETS: &[&str] = &[
    ":",
    "- ",
    "[",
    "]",
    "{",
    "}",
    "&a ",
    "*a",
    "<<: *a",
    "\t",
    "\"",
    "'",
    "~",
    "@",
    "${",
    "<@",
    "? ",
    "!!int ",
    "|",
    ">",
    "#",
    "---\n",
    "\u{feff}",
    "é",
    "9999999999999999999999",
];

fn mutate(text: &str, rng: &mut Lcg) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if lines.is_empty() {
        lines.push(String::new());
    }
    for _ in 0..=rng.below(3) {
        let n = lines.len();
        let i = rng.below(n);
        match rng.below(7) {
            0 => {
                lines.remove(i);
                if lines.is_empty() {
                    lines.push(String::new());
                }
            }
            1 => lines.insert(i, lines[i].clone()),
            2 => lines.swap(i, rng.below(n)),
            3 => {
                let line = &mut lines[i];
                let at = line
                    .char_indices()
                    .map(|(k, _)| k)
                    .nth(rng.below(line.chars().count() + 1))
                    .unwrap_or(line.len());
                line.insert_str(at, SNIPPETS[rng.below(SNIPPETS.len())]);
            }
            4 => lines[i] = format!("{}{}", " ".repeat(rng.below(7)), lines[i].trim_start()),
            5 => {
                let keep = rng.below(lines[i].chars().count() + 1);
                lines[i] = lines[i].chars().take(keep).collect();
            }
            _ => lines.truncate(i + 1),
        }
    }
    lines.join("\n")
}

fn corpus() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/validate/corpus");
    let mut out = Vec::new();
    for sub in ["zerops", "import"] {
        let mut paths: Vec<_> = std::fs::read_dir(dir.join(sub))
            .expect("corpus dir")
            .map(|e| e.expect("entry").path())
            .collect();
        paths.sort();
        for p in paths {
            out.push(std::fs::read_to_string(p).expect("corpus file"));
        }
    }
    out
}

fn assert_well_formed(report: &Report, input: &str) {
    assert_eq!(report.valid, report.errors.is_empty());
    let lines = input.lines().count().max(1) + 1;
    for f in report.findings() {
        assert!(f.line >= 1 && f.column >= 1, "{f:?}");
        assert!(
            f.line <= lines,
            "line {} beyond input ({lines} lines): {f:?}",
            f.line
        );
        assert!(!f.message.is_empty(), "{f:?}");
    }
}

fn run_everything(input: &str) {
    for kind in [FileKind::ZeropsYml, FileKind::ImportYml] {
        assert_well_formed(&validate(input, Some(kind), None), input);
    }
    let _ = detect_kind(input, Some("zerops.yml"));
    let _ = setup_names(input);
    let _ = check_setup(input, "app");
    let _ = import_services(input);
}

#[test]
fn mutated_corpus_never_panics() {
    let files = corpus();
    assert!(files.len() >= 50, "corpus missing");
    let mut rng = Lcg(0x5eed);
    let mut runs = 0;
    for file in &files {
        for _ in 0..8 {
            run_everything(&mutate(file, &mut rng));
            runs += 1;
        }
    }
    assert!(runs >= 400);
}

#[test]
fn hostile_inputs_never_panic() {
    let mut inputs: Vec<String> = vec![
        String::new(),
        "\u{feff}".into(),
        "\0\0\0".into(),
        "---\n---\n---\n".into(),
        "zerops:\n  - setup:\n".into(),
        "zerops:\n  - setup: [a, b]\n    extends: {x: 1}\n".into(),
        "services:\n  -\n  - ~\n  - hostname:\n    type:\n".into(),
        "services: {a: 1}\nproject: [1]\n".into(),
        "a: &x [*x]\n".into(),
        "<<: [1, 2]\nzerops: *missing\n".into(),
        "[".repeat(10_000),
        "- ".repeat(5_000),
        format!("zerops:\n{}", "  - setup: s\n    extends: s\n".repeat(50)),
    ];
    // A long `extends` chain and a dense `extends` graph.
    let mut chain = String::from("zerops:\n");
    for i in 0..300 {
        chain.push_str(&format!(
            "  - setup: s{i}\n    extends: s{}\n    run: {{base: nodejs@22, start: x}}\n",
            i + 1
        ));
    }
    inputs.push(chain);
    let mut dense = String::from("zerops:\n");
    for i in 0..60 {
        let parents: Vec<String> = (0..i).map(|j| format!("s{j}")).collect();
        dense.push_str(&format!(
            "  - setup: s{i}\n    extends: [{}]\n    build: {{base: nodejs@22, deployFiles: ./}}\n",
            parents.join(", ")
        ));
    }
    inputs.push(dense);
    for input in &inputs {
        run_everything(input);
    }
}

#[test]
fn a_document_that_is_not_a_mapping_is_described_not_quoted() {
    let key =
        "-----BEGIN OPENSSH PRIVATE KEY-----\nc2VjcmV0IGtleQ\n-----END OPENSSH PRIVATE KEY-----\n";
    for kind in [FileKind::ZeropsYml, FileKind::ImportYml] {
        let report = validate(key, Some(kind), None);
        let g5 = report.errors.iter().find(|f| f.rule == "G5").unwrap();
        assert_eq!(
            g5.message,
            "the top level must be a mapping, found a string"
        );
        let all = serde_json::to_string(&report).unwrap();
        assert!(!all.contains("c2VjcmV0"), "{all}");
    }
    let list = validate("- a\n- b\n", Some(FileKind::ZeropsYml), None);
    assert!(
        list.errors[0].message.ends_with("found a list"),
        "{:?}",
        list.errors
    );
}

/// The scanner blames a tab on where the scalar before it began (the line above); the
/// finding points at the tab.
#[test]
fn a_tab_used_for_indentation_is_pointed_at() {
    let text = "zerops:\n  - setup: api\n    run:\n      base: nodejs@22\n\t  start: a\n";
    let report = validate(text, Some(FileKind::ZeropsYml), None);
    let g4 = report.errors.iter().find(|f| f.rule == "G4").unwrap();
    assert_eq!((g4.line, g4.column), (5, 1), "{g4:?}");
    assert!(
        g4.message.starts_with("invalid YAML at line 5, column 1"),
        "{g4:?}"
    );
}

#[test]
fn extends_cycle_through_three_setups() {
    let text = "zerops:\n  - setup: a\n    extends: c\n  - setup: b\n    extends: a\n  - setup: c\n    extends: b\n";
    let report = validate(text, Some(FileKind::ZeropsYml), None);
    let lines: Vec<usize> = report
        .errors
        .iter()
        .filter(|f| f.rule == "Z9")
        .map(|f| f.line)
        .collect();
    assert_eq!(lines, [3, 5, 7]);
}

#[test]
fn merged_sections_override_key_by_key() {
    // The child's own `run.start` wins; `base` and `ports` come from the parent, so no Z26
    // and no Z28 port warning for the child.
    let text = "zerops:\n  - setup: base\n    run:\n      base: nodejs@22\n      ports:\n        - port: 3000\n      start: a\n  - setup: child\n    extends: base\n    run:\n      start: b\n";
    let report = validate(text, Some(FileKind::ZeropsYml), None);
    assert!(report.valid, "{report:?}");
    assert!(
        report
            .findings()
            .all(|f| f.rule != "Z26" && f.rule != "Z28"),
        "{report:?}"
    );
}

#[test]
fn duplicate_keys_in_a_huge_mapping() {
    // 50 000 variables followed by three repeats. Each repeat is reported once, in file
    // order, with the line of the first definition (the checks must stay linear for this).
    const N: usize = 50_000;
    let mut text = String::from(
        "zerops:\n  - setup: api\n    run:\n      base: nodejs@22\n      start: npm start\n      envVariables:\n",
    );
    let first_line = |i: usize| 7 + i;
    for i in 0..N {
        text.push_str(&format!("        K{i}: v\n"));
    }
    for key in [7, N - 1, 7] {
        text.push_str(&format!("        K{key}: again\n"));
    }
    let report = validate(&text, Some(FileKind::ZeropsYml), None);
    let found: Vec<(String, usize, usize, String)> = report
        .errors
        .iter()
        .filter(|f| f.rule == "G6")
        .map(|f| (f.path.clone(), f.line, f.column, f.message.clone()))
        .collect();
    let expected: Vec<(String, usize, usize, String)> = [7, N - 1, 7]
        .iter()
        .enumerate()
        .map(|(k, &key)| {
            (
                format!("zerops[0].run.envVariables.K{key}"),
                first_line(N) + k,
                9,
                format!(
                    "key `K{key}` is defined twice (first on line {})",
                    first_line(key)
                ),
            )
        })
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn a_boolean_written_as_text_gets_the_fix_that_fits_it() {
    let yml = |value: &str| {
        format!(
            "zerops:\n  - setup: api\n    run:\n      base: nodejs@22\n      start: node s.js\n      ports:\n        - port: 3000\n          httpSupport: {value}\n"
        )
    };
    for (value, fix) in [
        ("\"true\"", "write `httpSupport: true` without quotes"),
        ("maybe", "use true or false"),
        ("yEs", "use true or false"),
    ] {
        let report = validate(&yml(value), Some(FileKind::ZeropsYml), None);
        let found = report
            .errors
            .iter()
            .find(|f| f.path.ends_with("httpSupport"))
            .unwrap_or_else(|| panic!("{value}: {report:?}"));
        assert_eq!(found.suggestion, fix, "{value}");
        assert_eq!(found.line, 8, "{value}");
    }
}

/// A list or mapping where a string belongs gets a fix built from what was written: the
/// first item for a list, a block scalar for a mapping; never an empty `""` example.
#[test]
fn a_list_or_mapping_for_a_string_gets_a_fix_built_from_it() {
    let zerops = "zerops:\n  - setup: app\n    build: {base: nodejs@22, deployFiles: ./}\n    deploy:\n      readinessCheck:\n        exec:\n          command:\n            - curl -f localhost:3000\n    run:\n      base: nodejs@22\n      start: npm start\n      ports: [{port: 3000}]\n      crontab:\n        - timing: \"* * * * *\"\n          allContainers: false\n          command: [\"php a.php\", \"php b.php\"]\n";
    let import = "services:\n  - hostname: app\n    type: nginx@1.22\n    buildFromGit: https://github.com/a/b\n    zeropsSetup: [a, b]\n    nginxConfig: {server: x}\n";
    let fixes = |text: &str, kind: FileKind| -> Vec<(String, String)> {
        validate(text, Some(kind), None)
            .errors
            .into_iter()
            .map(|f| (f.path, f.suggestion))
            .collect()
    };
    let found = fixes(zerops, FileKind::ZeropsYml);
    let want = [
        (
            "zerops[0].deploy.readinessCheck.exec.command",
            "write the item as the value: `command: \"curl -f localhost:3000\"`",
        ),
        (
            "zerops[0].run.crontab[0].command",
            "join the items into one string (a block scalar `|` keeps one per line), e.g. `command: \"php a.php\"` for the first",
        ),
    ];
    for (path, fix) in want {
        assert!(
            found.iter().any(|(p, f)| p == path && f == fix),
            "{path}: {found:?}"
        );
    }
    let found = fixes(import, FileKind::ImportYml);
    for (path, fix) in [
        (
            "services[0].zeropsSetup",
            "join the items into one string (a block scalar `|` keeps one per line), e.g. `zeropsSetup: \"a\"` for the first",
        ),
        (
            "services[0].nginxConfig",
            "write `nginxConfig` as one string, not as keys (a block scalar `nginxConfig: |` for multi-line text)",
        ),
    ] {
        assert!(
            found.iter().any(|(p, f)| p == path && f == fix),
            "{path}: {found:?}"
        );
    }
    assert!(found.iter().all(|(_, f)| !f.contains("\"\"")), "{found:?}");
}

/// Z14's fix names a base that exists with the wanted OS, or says there is none: alpine
/// has no "ubuntu form", but Ubuntu has its own base.
#[test]
fn an_os_contradicting_the_base_gets_a_base_that_exists() {
    let yml = |os: &str, base: &str| {
        format!(
            "zerops:\n  - setup: app\n    build:\n      os: {os}\n      base: {base}\n      deployFiles: ./\n    run:\n      os: {os}\n      base: {base}\n      start: x\n      ports: [{{port: 3000}}]\n"
        )
    };
    for (os, base, fix) in [
        (
            "ubuntu",
            "alpine@3.20",
            "drop `os`, or use the base `ubuntu@24.04`",
        ),
        (
            "alpine",
            "ubuntu@24.04",
            "drop `os`, or use the base `alpine@3.23`",
        ),
        (
            "ubuntu",
            "alpine/nodejs@22",
            "drop `os`, or use the base `ubuntu/nodejs@22`",
        ),
        (
            "ubuntu",
            "alpine/elixir@1.16.3",
            "drop `os`, or use the base `ubuntu/elixir@1.16.2`",
        ),
        (
            "alpine",
            "ubuntu/deno@2",
            "drop `os`: `deno` has no alpine form",
        ),
    ] {
        let report = validate(&yml(os, base), Some(FileKind::ZeropsYml), None);
        let z14: Vec<(&str, &str)> = report
            .errors
            .iter()
            .filter(|f| f.rule == "Z14")
            .map(|f| (f.path.as_str(), f.suggestion.as_str()))
            .collect();
        assert_eq!(
            z14,
            [("zerops[0].build.os", fix), ("zerops[0].run.os", fix)],
            "{os} {base}: {report:?}"
        );
    }
    // An os that is no OS of the platform's gets only the value check: no base named
    // after it (`centos/nodejs@22`) is suggested.
    for (os, base, fix) in [
        (
            "centos",
            "ubuntu/nodejs@22",
            "allowed values: `alpine`, `ubuntu`",
        ),
        ("Ubuntu", "alpine/nodejs@22", "did you mean `ubuntu`?"),
    ] {
        let report = validate(&yml(os, base), Some(FileKind::ZeropsYml), None);
        let z14: Vec<&str> = report
            .errors
            .iter()
            .filter(|f| f.rule == "Z14")
            .map(|f| f.suggestion.as_str())
            .collect();
        assert_eq!(z14, [fix; 2], "{os} {base}: {report:?}");
    }
}

/// A `<<` whose value is no mapping merged nothing; it is told what it needs, not called
/// an unknown key, in a section and in a variable map alike.
#[test]
fn a_merge_key_with_a_scalar_says_what_it_needs() {
    let text = "zerops:\n  - setup: app\n    build:\n      <<: nodejs@22\n      deployFiles: ./\n      envVariables:\n        <<: x\n    run: {base: nodejs@22, start: x, ports: [{port: 3000}]}\n";
    let report = validate(text, Some(FileKind::ZeropsYml), None);
    let found: Vec<(&str, &str, usize, &str)> = report
        .errors
        .iter()
        .map(|f| (f.rule, f.path.as_str(), f.line, f.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (
                "Z11",
                "zerops[0].build.<<",
                4,
                "`<<` must merge a mapping, found `nodejs@22`"
            ),
            (
                "Z19",
                "zerops[0].build.envVariables.<<",
                7,
                "`<<` must merge a mapping, found `x`"
            ),
        ]
    );
    assert!(
        report
            .errors
            .iter()
            .all(|f| f.suggestion.contains("`<<: *name`")),
        "{report:?}"
    );
}

/// Go's yaml.v3, which the platform decodes with, takes the YAML 1.1 words for a bool
/// field (quoted or not): a warning, since YAML 1.2 tools read them as text.
#[test]
fn yaml_1_1_booleans_are_a_warning() {
    let yml = |value: &str| {
        format!(
            "zerops:\n  - setup: api\n    build: {{base: nodejs@22, deployFiles: ./}}\n    deploy:\n      temporaryShutdown: {value}\n    run:\n      base: nodejs@22\n      start: node s.js\n      ports:\n        - port: 3000\n          httpSupport: {value}\n"
        )
    };
    for (value, b) in [
        ("yes", true),
        ("on", true),
        ("\"OFF\"", false),
        ("n", false),
    ] {
        let report = validate(&yml(value), Some(FileKind::ZeropsYml), None);
        assert!(report.valid, "{value}: {report:?}");
        let found: Vec<(&str, &str, usize)> = report
            .warnings
            .iter()
            .map(|f| (f.rule, f.suggestion.as_str(), f.line))
            .collect();
        let (ts, hs) = (
            format!("write `temporaryShutdown: {b}`"),
            format!("write `httpSupport: {b}`"),
        );
        assert_eq!(
            found,
            [("Z20", ts.as_str(), 5), ("Z28", hs.as_str(), 11)],
            "{value}"
        );
    }
    let import = "services:\n  - hostname: app\n    type: nodejs@22\n    startWithoutCode: yes\n    override: on\n    os: ubuntu\n";
    let report = validate(import, Some(FileKind::ImportYml), None);
    assert!(report.valid, "{report:?}");
    let rules: Vec<&str> = report.warnings.iter().map(|f| f.rule).collect();
    // No I30: `startWithoutCode: yes` is true, so `os` takes effect.
    assert_eq!(rules, ["I20", "I20"], "{report:?}");
    let services = import_services(import).expect("services");
    assert!(services[0].overrides);
}

/// The rules of the findings about `path` (or below it).
fn rules_at(report: &Report, path: &str) -> Vec<&'static str> {
    report
        .findings()
        .filter(|f| f.path == path || f.path.starts_with(&format!("{path}.")))
        .map(|f| f.rule)
        .collect()
}

#[test]
fn a_setup_that_others_extend_need_not_be_complete() {
    // `base` has no start, `shared` no run and no deployFiles, `worker` a start but no
    // ports: each is only a parent, so the "incomplete setup" findings are not theirs.
    let text = "zerops:
  - setup: base
    build: {base: nodejs@22, buildCommands: [npm ci], deployFiles: ./}
    run: {base: nodejs@22, ports: [{port: 3000, httpSupport: true}]}
  - setup: app
    extends: [base]
    run: {start: npm start}
  - setup: shared
    build: {base: nodejs@22}
  - setup: worker
    extends: shared
    build: {deployFiles: ./}
    run: {base: nodejs@22, start: node worker.js}
  - setup: worker2
    extends: worker
";
    let report = validate(text, Some(FileKind::ZeropsYml), None);
    assert!(report.valid, "{report:?}");
    for parent in ["zerops[0]", "zerops[2]", "zerops[3]"] {
        let rules = rules_at(&report, parent);
        assert!(
            rules
                .iter()
                .all(|r| !["Z10", "Z12", "Z26", "Z28"].contains(r)),
            "{parent}: {rules:?}"
        );
    }
    assert!(rules_at(&report, "zerops[1]").is_empty(), "{report:?}");
    // worker2 inherits a start and no ports: its merged view still gets the warning.
    assert_eq!(rules_at(&report, "zerops[4]"), ["Z28"], "{report:?}");
}

#[test]
fn a_child_missing_start_after_the_merge_is_still_warned() {
    let text = "zerops:
  - setup: base
    build: {base: nodejs@22, deployFiles: ./}
    run: {base: nodejs@22, ports: [{port: 3000}]}
  - setup: app
    extends: base
    run: {envVariables: {A: b}}
  - setup: bare
    extends: base
    build: {deployFiles: [dist]}
";
    let report = validate(text, Some(FileKind::ZeropsYml), None);
    assert!(rules_at(&report, "zerops[0]").is_empty(), "{report:?}");
    assert_eq!(rules_at(&report, "zerops[1]"), ["Z26"], "{report:?}");
    assert_eq!(rules_at(&report, "zerops[2]"), ["Z26"], "{report:?}");
}

/// The backticked names in a suggestion (`` `a` `` … `` `b` ``).
fn quoted(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Types kept only for running services are accepted with a warning naming the
/// replacement; their successors get none.
#[test]
fn retiring_types_are_warned_about_with_their_replacement() {
    for (text, replacement) in [
        ("rabbitmq@3.9", "nats"),
        ("keydb@6", "valkey@7.2"),
        ("valkey@7.2", ""),
        ("nats@2.12", ""),
    ] {
        let yml = format!("services:\n  - hostname: a\n    type: {text}\n    mode: NON_HA\n");
        let report = validate(&yml, Some(FileKind::ImportYml), None);
        assert!(report.errors.is_empty(), "{text}: {report:?}");
        let warned: Vec<_> = report.warnings.iter().filter(|f| f.rule == "I9").collect();
        if replacement.is_empty() {
            assert!(warned.is_empty(), "{text}: {warned:?}");
        } else {
            assert_eq!(warned.len(), 1, "{text}: {report:?}");
            assert!(warned[0].suggestion.contains(replacement), "{warned:?}");
            assert_eq!(warned[0].line, 3, "{warned:?}");
        }
    }
}

#[test]
fn unknown_type_suggestions_name_only_types_that_exist() {
    let cases = [
        ("mongodb@7", "Zerops has no MongoDB service"),
        ("redis@7", "valkey@7.2"),
        ("mysql@8", "mariadb@10.6"),
        ("MySQL", "mariadb@10.6"),
        ("nodjs@7", "nodejs@24"),
        ("alpine/pythn@3.12", "alpine/python@3.12"),
        ("postgress@99", "postgresql@18"),
    ];
    for (text, wanted) in cases {
        let yml = format!("services:\n  - hostname: a\n    type: {text}\n");
        let report = validate(&yml, Some(FileKind::ImportYml), None);
        let f = report
            .errors
            .iter()
            .find(|f| f.rule == "I9")
            .unwrap_or_else(|| panic!("{text}: {report:?}"));
        let both = format!("{} {}", f.message, f.suggestion);
        assert!(both.contains(wanted), "{text}: {both}");
        assert!(!f.suggestion.contains("go@"), "{text}: {}", f.suggestion);
        for name in quoted(&f.suggestion)
            .into_iter()
            .filter(|q| q.contains('@'))
        {
            assert!(
                matches!(catalog::match_type(name), catalog::Match::Known { .. }),
                "{text}: suggests {name}"
            );
        }
    }
    let base = "zerops:\n  - setup: a\n    run: {base: redis@7, start: x}\n";
    let report = validate(base, Some(FileKind::ZeropsYml), None);
    let f = report.errors.iter().find(|f| f.rule == "Z25").expect("Z25");
    assert!(f.message.contains("valkey"), "{f:?}");
    assert!(f.suggestion.contains("`valkey@7.2`"), "{f:?}");
}

#[test]
fn unknown_base_suggestions_name_only_bases_that_exist() {
    for (base, wanted) in [
        ("nodejss@22", "nodejs@22"),
        ("ubuntu/denoo@1", "deno@1"),
        ("alpine/denoo@9", "deno@2.0.0"),
        ("alpine/pythn@3.14", "python@3.14"),
    ] {
        let yml = format!("zerops:\n  - setup: a\n    run: {{base: \"{base}\", start: x}}\n");
        let report = validate(&yml, Some(FileKind::ZeropsYml), None);
        let f = report
            .errors
            .iter()
            .find(|f| f.rule == "Z25")
            .unwrap_or_else(|| panic!("{base}: {report:?}"));
        assert_eq!(quoted(&f.suggestion), [wanted], "{base}: {f:?}");
    }
}

#[test]
fn a_key_in_the_wrong_section_is_told_where_it_belongs() {
    let text = "zerops:
  - setup: app
    build:
      base: nodejs@22
      deployFiles: ./
      zzzzzzzz: 1
    deploy:
      healthCheck: {httpGet: {port: 3000, path: /}}
    run:
      base: nodejs@22
      start: npm start
      ports: [{port: 3000}]
      readinessCheck: {httpGet: {port: 3000, path: /}}
      temporaryShutdown: true
      deployFiles: ./
      zzzzzzzz: 1
";
    let report = validate(text, Some(FileKind::ZeropsYml), None);
    let fix = |path: &str| -> (&'static str, &str) {
        let f = report
            .errors
            .iter()
            .find(|f| f.path == path)
            .unwrap_or_else(|| panic!("{path}: {report:?}"));
        (f.rule, f.suggestion.as_str())
    };
    assert!(
        fix("zerops[0].deploy.healthCheck")
            .1
            .starts_with("move it under `run:`")
    );
    for key in ["readinessCheck", "temporaryShutdown"] {
        let (rule, suggestion) = fix(&format!("zerops[0].run.{key}"));
        assert_eq!(rule, "Z24");
        assert!(
            suggestion.starts_with("move it under `deploy:`"),
            "{suggestion}"
        );
    }
    // deployFiles under run is Z12's finding alone, and no list offers it there.
    assert_eq!(fix("zerops[0].run.deployFiles").0, "Z12");
    let (_, run_list) = fix("zerops[0].run.zzzzzzzz");
    assert!(
        run_list.contains("`volume`") && !run_list.contains("deployFiles"),
        "{run_list}"
    );
    // Likewise the deprecated build.deploy (Z12 warning) is not offered in build.
    let (_, build_list) = fix("zerops[0].build.zzzzzzzz");
    assert!(
        build_list.contains("`deployFiles`") && !build_list.contains("`deploy`"),
        "{build_list}"
    );
    let import = "services:\n  - hostname: a\n    type: nodejs@22\n    zzzzzzzz: 1\n";
    let report = validate(import, Some(FileKind::ImportYml), None);
    let f = report.errors.iter().find(|f| f.rule == "I5").expect("I5");
    assert!(!f.suggestion.contains("envVariables"), "{f:?}");
}

#[test]
fn an_empty_deploy_files_deploys_nothing() {
    for value in ["[]", "\"\"", "\"  \"", "", "~"] {
        let text = format!(
            "zerops:\n  - setup: app\n    build:\n      base: nodejs@22\n      deployFiles: {value}\n    run: {{base: nodejs@22, start: x, ports: [{{port: 3000}}]}}\n"
        );
        let report = validate(&text, Some(FileKind::ZeropsYml), None);
        let found: Vec<(&str, &str, usize, usize, &str)> = report
            .errors
            .iter()
            .map(|f| {
                (
                    f.rule,
                    f.path.as_str(),
                    f.line,
                    f.column,
                    f.message.as_str(),
                )
            })
            .collect();
        assert_eq!(
            found,
            [(
                "Z16",
                "zerops[0].build.deployFiles",
                5,
                7,
                "`deployFiles` is empty; nothing would be deployed"
            )],
            "{value:?}"
        );
    }
}

/// A finding about a key missing from a mapping points at the mapping's own key, as Z12
/// does for the build section, not at whatever child key comes first.
#[test]
fn a_missing_child_key_is_reported_at_its_parent_key() {
    let text = "zerops:
  - setup: app
    build: {base: nodejs@22, deployFiles: ./}
    deploy:
      readinessCheck:
        failureTimeout: 30s
    run:
      base: nodejs@22
      start: npm start
      ports: [{port: 3000}]
      envReplace:
        target: ./config
      volume:
        mountPath: /mnt/data
";
    let report = validate(text, Some(FileKind::ZeropsYml), None);
    let at = |rule: &str| -> Vec<(String, usize, usize)> {
        report
            .findings()
            .filter(|f| f.rule == rule)
            .map(|f| (f.path.clone(), f.line, f.column))
            .collect()
    };
    assert_eq!(
        at("Z21"),
        [("zerops[0].deploy.readinessCheck".into(), 5, 7)]
    );
    assert_eq!(at("Z29"), [("zerops[0].run.envReplace".into(), 11, 7)]);
    assert_eq!(at("Z37"), [("zerops[0].run.volume".into(), 13, 7)]);
    let import = "services:
  - hostname: api
    type: nodejs@22
    buildFromGit: https://github.com/example/api
    zeropsYaml:
      zerops:
        - setup: web
          run: {base: nodejs@22, start: x, ports: [{port: 3000}]}
";
    let report = validate(import, Some(FileKind::ImportYml), None);
    let i25: Vec<(usize, usize)> = report
        .errors
        .iter()
        .filter(|f| f.rule == "I25")
        .map(|f| (f.line, f.column))
        .collect();
    assert_eq!(i25, [(5, 5)], "{report:?}");
}

/// Go reads a plain number into a string field as written, and the spec lists bare OS
/// versions as bases: `3.20` works (a warning to quote it), `22` names nothing.
#[test]
fn a_base_or_type_written_as_a_number_is_read_as_written() {
    let text = "zerops:
  - setup: a
    build: {base: 3.23, deployFiles: ./}
    run: {base: 22.04, start: x, ports: [{port: 3000}]}
  - setup: b
    build: {base: [24.04, 3.20], deployFiles: ./}
    run: {base: 22, start: x}
";
    let report = validate(text, Some(FileKind::ZeropsYml), None);
    let found: Vec<(Severity, &str, &str, &str)> = report
        .findings()
        .filter(|f| f.path.ends_with("base") || f.path.contains("base["))
        .map(|f| (f.severity, f.rule, f.path.as_str(), f.suggestion.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (
                Severity::Error,
                "Z25",
                "zerops[1].run.base",
                "write a quoted base like `\"nodejs@22\"`"
            ),
            (
                Severity::Warning,
                "Z13",
                "zerops[0].build.base",
                "quote it: `\"3.23\"`"
            ),
            (
                Severity::Warning,
                "Z25",
                "zerops[0].run.base",
                "quote it: `\"22.04\"`"
            ),
            (
                Severity::Warning,
                "Z13",
                "zerops[1].build.base[0]",
                "quote it: `\"24.04\"`"
            ),
            (
                Severity::Warning,
                "Z13",
                "zerops[1].build.base[1]",
                "quote it: `\"3.20\"`"
            ),
        ],
        "{report:?}"
    );
    let import = "services:\n  - hostname: os\n    type: 3.17\n  - hostname: bad\n    type: 22\n";
    let report = validate(import, Some(FileKind::ImportYml), None);
    let found: Vec<(Severity, &str, usize)> = report
        .findings()
        .map(|f| (f.severity, f.rule, f.line))
        .collect();
    assert_eq!(
        found,
        [(Severity::Error, "I9", 5), (Severity::Warning, "I9", 3)],
        "{report:?}"
    );
    let services = import_services("services:\n  - hostname: os\n    type: 3.20\n").expect("ok");
    assert_eq!(services[0].service_type, "3.20");
}

#[test]
fn project_ssh_isolation_is_checked_like_a_service_one() {
    let text = "project:\n  name: x\n  sshIsolation: vpn -bogus\nservices:\n  - hostname: app\n    type: nodejs@22\n    sshIsolation: bogus\n";
    let report = validate(text, Some(FileKind::ImportYml), None);
    let found: Vec<(&str, &str, usize, &str)> = report
        .warnings
        .iter()
        .filter(|f| f.rule == "I28")
        .map(|f| (f.rule, f.path.as_str(), f.line, f.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (
                "I28",
                "project.sshIsolation",
                3,
                "unknown sshIsolation token `-bogus`"
            ),
            (
                "I28",
                "services[0].sshIsolation",
                7,
                "unknown sshIsolation token `bogus`"
            ),
        ]
    );
    let valid = "project:\n  name: x\n  sshIsolation: project -vpn service@api\nservices:\n  - hostname: app\n    type: nodejs@22\n";
    let report = validate(valid, Some(FileKind::ImportYml), None);
    assert!(report.findings().all(|f| f.rule != "I28"), "{report:?}");
}

#[test]
fn a_mount_suggestion_names_a_valid_hostname() {
    let yml = |name: &str| {
        format!(
            "services:\n  - hostname: api\n    type: nodejs@22\n    buildFromGit: https://github.com/a/b\n    mount: [\"{name}\"]\n"
        )
    };
    for (name, wanted) in [
        ("files", "add `- hostname: files` with"),
        (
            "Files",
            "mount `files`, and if it does not exist yet add `- hostname: files`",
        ),
        (
            "my_files",
            "fix the name: a hostname has only lowercase letters",
        ),
    ] {
        let report = validate(&yml(name), Some(FileKind::ImportYml), None);
        let f = report
            .warnings
            .iter()
            .find(|f| f.path == "services[0].mount[0]")
            .unwrap_or_else(|| panic!("{name}: {report:?}"));
        assert!(f.suggestion.contains(wanted), "{name}: {}", f.suggestion);
        // Any hostname the suggestion tells to add is itself valid.
        for added in f.suggestion.split("- hostname: ").skip(1) {
            let host = added.split('`').next().unwrap_or_default();
            assert!(import_yml::valid_hostname(host), "{name}: {}", f.suggestion);
        }
    }
}

#[test]
fn a_number_written_as_a_string_is_called_a_string() {
    let text = "services:\n  - hostname: s3\n    type: object-storage\n    objectStorageSize: \"5\"\n    objectStoragePolicy: private\n";
    let report = validate(text, Some(FileKind::ImportYml), None);
    let f = report.errors.iter().find(|f| f.rule == "I16").expect("I16");
    assert_eq!(
        f.message,
        "objectStorageSize must be a number, found the string \"5\""
    );
    assert_eq!(
        f.suggestion,
        "write the number without quotes: `objectStorageSize: 5`"
    );
}

#[test]
fn timings_follow_go_durations_and_the_range() {
    let yml = |value: &str| {
        format!(
            "zerops:\n  - setup: app\n    build: {{base: nodejs@22, deployFiles: ./}}\n    run:\n      base: nodejs@22\n      start: x\n      ports: [{{port: 3000}}]\n      healthCheck:\n        exec: {{command: ./ok}}\n        failureTimeout: {value}\n"
        )
    };
    for (value, severity) in [
        ("\"30s \"", Severity::Error),
        ("\" 30s\"", Severity::Error),
        ("0", Severity::Warning),
        ("7200", Severity::Warning),
        ("30", Severity::Info),
        ("\"30s\"", Severity::Info),
    ] {
        let report = validate(&yml(value), Some(FileKind::ZeropsYml), None);
        let found: Vec<(Severity, &str)> = report
            .findings()
            .filter(|f| f.path.ends_with("failureTimeout"))
            .map(|f| (f.severity, f.rule))
            .collect();
        let wanted: &[(Severity, &str)] = if value == "\"30s\"" {
            &[]
        } else {
            &[(severity, "Z23")]
        };
        assert_eq!(found, wanted, "{value}: {report:?}");
    }
}

/// `vault:` (project and service) is where the platform keeps variables since 2026-10:
/// plain values and `{value, sensitive}` items pass; wrong shapes are named.
#[test]
fn vault_sections_are_checked_not_refused() {
    let good = "project:\n  name: p\n  vault:\n    SHARED: abc\nservices:\n  - hostname: app\n    type: nodejs@22\n    vault:\n      PLAIN: x\n      API_KEY: {value: \"s3cret\", sensitive: true}\n      DB_URL:\n        value: ${db_connectionString}\n";
    let report = validate(good, Some(FileKind::ImportYml), None);
    assert!(report.valid, "{report:?}");
    assert!(
        rules_at(&report, "services[0].vault").is_empty(),
        "{report:?}"
    );
    assert!(rules_at(&report, "project.vault").is_empty(), "{report:?}");

    let bad = "services:\n  - hostname: app\n    type: nodejs@22\n    vault:\n      bad-name: x\n      NO_VALUE: {sensitive: true}\n      FLAG: {value: x, sensitive: \"yes please\"}\n      EXTRA: {value: x, note: y}\n      LIST: [a, b]\n";
    let report = validate(bad, Some(FileKind::ImportYml), None);
    let found: Vec<(usize, &str, Severity)> = report
        .findings()
        .filter(|f| f.path.starts_with("services[0].vault"))
        .map(|f| (f.line, f.rule, f.severity))
        .collect();
    assert_eq!(
        found
            .iter()
            .filter(|f| f.2 == Severity::Error)
            .map(|f| f.0)
            .collect::<Vec<_>>(),
        [5, 6, 7, 9],
        "{report:?}"
    );
    assert!(found.contains(&(8, "I26", Severity::Warning)), "{found:?}");
    let not_a_map = "services:\n  - hostname: app\n    type: nodejs@22\n    vault: [A]\n";
    assert!(!validate(not_a_map, Some(FileKind::ImportYml), None).valid);
}

/// The findings of one rule as (path, line, message), in report order.
fn rule_findings(report: &Report, rule: &str) -> Vec<(String, usize, String)> {
    report
        .findings()
        .filter(|f| f.rule == rule)
        .map(|f| (f.path.clone(), f.line, f.message.clone()))
        .collect()
}

#[test]
fn duplicate_setup_names_in_a_long_list() {
    // 40 000 setups, then three repeats: each repeat names the first definition (the name
    // lookup must stay linear for this).
    const N: usize = 40_000;
    let mut text = String::from("zerops:\n");
    for i in 0..N {
        text.push_str(&format!("  - setup: s{i}\n"));
    }
    for name in [5, N - 1, 5] {
        text.push_str(&format!("  - setup: s{name}\n"));
    }
    let report = validate(&text, Some(FileKind::ZeropsYml), None);
    let expected: Vec<(String, usize, String)> = [5, N - 1, 5]
        .iter()
        .enumerate()
        .map(|(k, &name)| {
            (
                format!("zerops[{}].setup", N + k),
                2 + N + k,
                format!("setup `s{name}` is defined twice (first as zerops[{name}])"),
            )
        })
        .collect();
    assert_eq!(rule_findings(&report, "Z6"), expected);
}

#[test]
fn a_long_extends_chain_is_no_cycle_and_a_real_cycle_is_found() {
    // A chain of 20 000 setups each extending the one before, a two-setup cycle, and a
    // setup extending into the cycle (which is not on it). Only the cycle is reported,
    // once per member.
    const N: usize = 20_000;
    let mut text = String::from("zerops:\n  - setup: c0\n");
    for i in 1..N {
        text.push_str(&format!("  - setup: c{i}\n    extends: c{}\n", i - 1));
    }
    let cycle_line = 2 + 1 + 2 * (N - 1);
    text.push_str("  - setup: x\n    extends: y\n  - setup: y\n    extends: x\n  - setup: z\n    extends: x\n");
    let report = validate(&text, Some(FileKind::ZeropsYml), None);
    let found = rule_findings(&report, "Z9");
    let expected = vec![
        (
            format!("zerops[{N}].extends"),
            cycle_line + 1,
            "`extends` forms a cycle".to_owned(),
        ),
        (
            format!("zerops[{}].extends", N + 1),
            cycle_line + 3,
            "`extends` forms a cycle".to_owned(),
        ),
    ];
    assert_eq!(found, expected);
}

#[test]
fn duplicate_ports_in_a_long_list() {
    // 20 000 ports, then a repeat of the first (TCP) and a UDP port that repeats nothing.
    const N: usize = 20_000;
    let mut text = String::from(
        "zerops:\n  - setup: api\n    run:\n      base: nodejs@22\n      start: a\n      ports:\n",
    );
    for i in 0..N {
        text.push_str(&format!("        - port: {}\n", 1000 + i));
    }
    text.push_str("        - port: 1000\n        - port: 1001\n          protocol: UDP\n");
    let report = validate(&text, Some(FileKind::ZeropsYml), None);
    let twice: Vec<_> = rule_findings(&report, "Z28")
        .into_iter()
        .filter(|(_, _, m)| m.contains("twice"))
        .collect();
    assert_eq!(
        twice,
        vec![(
            format!("zerops[0].run.ports[{N}].port"),
            7 + N,
            "port 1000/tcp is listed twice (first as item 0)".to_owned()
        )]
    );
}

#[test]
fn duplicate_hostnames_name_the_first_use() {
    const N: usize = 2_000;
    let mut text = String::from("services:\n");
    for i in 0..N {
        text.push_str(&format!("  - hostname: s{i}\n    type: nodejs@22\n"));
    }
    for name in [3, N - 1, 3] {
        text.push_str(&format!("  - hostname: s{name}\n    type: nodejs@22\n"));
    }
    let report = validate(&text, Some(FileKind::ImportYml), None);
    let expected: Vec<(String, usize, String)> = [3, N - 1, 3]
        .iter()
        .enumerate()
        .map(|(k, &name)| {
            (
                format!("services[{}].hostname", N + k),
                2 + 2 * (N + k),
                format!("hostname `s{name}` is used twice (first by services[{name}])"),
            )
        })
        .collect();
    assert_eq!(rule_findings(&report, "I8"), expected);
}

#[test]
fn mounts_and_references_resolve_to_the_first_service_of_a_name() {
    // `files` is first a shared storage, then (a duplicate, I8) a runtime: the mount is
    // checked against the first. `db` is first a PostgreSQL.
    let text = "services:\n  - hostname: files\n    type: shared-storage\n  - hostname: files\n    type: nodejs@22\n  - hostname: db\n    type: postgresql@16\n  - hostname: app\n    type: nodejs@22\n    buildFromGit: https://github.com/a/b\n    mount: [files]\n    envSecrets:\n      X: ${db_nosuch}\n";
    let report = validate(text, Some(FileKind::ImportYml), None);
    assert!(rule_findings(&report, "I24").is_empty(), "{report:?}");
    let refs = rule_findings(&report, "I26");
    assert_eq!(refs.len(), 1, "{report:?}");
    assert!(refs[0].2.contains("has no variable `nosuch`"), "{refs:?}");
}

#[test]
fn findings_beyond_the_limit_are_counted_not_kept() {
    // A key repeated 5 000 times gives 4 999 G6 errors (plus Z1). The sink never holds
    // more than twice the limit, and the report lists the first findings by position.
    const N: usize = 5_000;
    let text = "k: 1\n".repeat(N);
    let mut sink = Sink::default();
    let root = yaml::parse(&text).unwrap().root.unwrap();
    let mut most = 0;
    for e in root.as_map().unwrap().iter().skip(1) {
        sink.error("G6", "k", Pos::from(e), "twice", "fix");
        most = most.max(sink.list.len());
    }
    assert!(most <= 2 * report::MAX_FINDINGS, "{most}");
    let report = validate(&text, Some(FileKind::ZeropsYml), None);
    assert_eq!(report.errors.len(), report::MAX_FINDINGS);
    assert_eq!(report.omitted, N - report::MAX_FINDINGS);
    assert!(!report.valid);
    assert_eq!(report.errors[0].rule, "Z1");
    let lines: Vec<usize> = report.errors[1..].iter().map(|f| f.line).collect();
    assert_eq!(lines, (2..=report::MAX_FINDINGS).collect::<Vec<_>>());
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["omitted"], N - report::MAX_FINDINGS);
}

#[test]
fn errors_are_kept_before_warnings_when_findings_overflow() {
    // 1 500 warnings early in the file and one error at its end: the error is listed and
    // the file is invalid; the warnings that do not fit are counted.
    let mut sink = Sink::default();
    for line in 1..=1_500 {
        sink.warn("X", "", Pos { line, column: 1 }, "w", "fix");
    }
    sink.error(
        "Y",
        "",
        Pos {
            line: 9_999,
            column: 1,
        },
        "e",
        "fix",
    );
    let report = Report::from_sink(FileKind::ZeropsYml, sink, false);
    assert!(!report.valid);
    assert_eq!(report.errors.len(), 1);
    assert_eq!(report.warnings.len(), report::MAX_FINDINGS - 1);
    assert_eq!(report.warnings[0].line, 1);
    assert_eq!(report.omitted, 1_500 - (report::MAX_FINDINGS - 1));
    // A small report has no `omitted` field at all.
    let small = validate("zerops: []\n", Some(FileKind::ZeropsYml), None);
    assert!(
        serde_json::to_value(&small)
            .unwrap()
            .get("omitted")
            .is_none()
    );
}

#[test]
fn duplicate_keys_are_found_at_every_depth_with_their_paths() {
    let text =
        "a: 1\nb:\n  - x\n  - c: 1\n    c: 2\n  - [y, {d: 1, d: 2}]\ne: {f: {g: 1, g: 2}}\na: 3\n";
    let report = validate(text, Some(FileKind::ZeropsYml), None);
    let found: Vec<(String, usize)> = rule_findings(&report, "G6")
        .into_iter()
        .map(|(p, l, _)| (p, l))
        .collect();
    assert_eq!(
        found,
        [
            ("b[1].c".to_owned(), 5),
            ("b[2][1].d".to_owned(), 6),
            ("e.f.g".to_owned(), 7),
            ("a".to_owned(), 8),
        ]
    );
}

#[test]
fn an_import_over_the_size_limit_gets_only_the_size_error() {
    // Invalid hostnames and a repeated key would each be findings in a small file; over
    // 100 KiB the platform refuses the file anyway, so nothing else is checked.
    let mut text = String::from("services:\n");
    while text.len() <= import_yml::MAX_IMPORT_BYTES {
        text.push_str("  - hostname: Bad_Name\n    type: nodejs@22\n    type: nodejs@22\n");
    }
    let report = validate(&text, Some(FileKind::ImportYml), None);
    let rules: Vec<&str> = report.findings().map(|f| f.rule).collect();
    assert_eq!(rules, ["G7"]);
    assert!(!report.valid);
}

#[test]
fn inheritance_past_the_copy_budget_is_cut_with_one_error() {
    // A base with 1 000 run keys extended by 300 setups would copy 300 000 keys into merged
    // views; the copying stops at the budget and says so once. Ten children copy 10 000
    // keys and are merged in full.
    let file = |children: usize| {
        let mut text = String::from("zerops:\n  - setup: base\n    run:\n");
        for i in 0..1_000 {
            text.push_str(&format!("      k{i}: 1\n"));
        }
        for i in 0..children {
            text.push_str(&format!("  - setup: c{i}\n    extends: base\n"));
        }
        validate(&text, Some(FileKind::ZeropsYml), None)
    };
    let cut = |report: &Report| -> Vec<(String, usize)> {
        rule_findings(report, "Z9")
            .into_iter()
            .filter(|(_, _, m)| m.contains("inherited keys"))
            .map(|(p, l, _)| (p, l))
            .collect()
    };
    assert_eq!(cut(&file(300)), [("zerops".to_owned(), 1)]);
    assert!(cut(&file(10)).is_empty());
}
