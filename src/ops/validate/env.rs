//! Environment variables in both formats: variable maps (`envVariables`, `envSecrets`),
//! `${…}` references, `dotEnvSecrets` text and the import preprocessor's `<@…>` syntax.

use super::report::{Finding, Pos, Severity, Sink, join};
use super::yaml::{Node, Value};

/// Which map is being checked; decides rule ids and how strict scalar types are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvMap {
    /// `build.envVariables` / `run.envVariables` of zerops.yml (Z19): numbers and booleans
    /// are fine.
    ZeropsYml,
    /// `envSecrets` of an import service (I26): the schema wants strings.
    ImportSecrets,
    /// `project.envVariables` of an import (reported under I2, all warnings).
    Project,
}

impl EnvMap {
    fn rule(self) -> &'static str {
        match self {
            EnvMap::ZeropsYml => "Z19",
            EnvMap::ImportSecrets => "I26",
            EnvMap::Project => "I2",
        }
    }
}

/// I28: `envIsolation` is `service` or `none`, at project and service level alike. The
/// caller picks the severity: the `project:` block is advisory in this tool (zerops_import
/// refuses it anyway), so its findings are warnings like the block's other checks.
pub fn check_isolation(sink: &mut Sink, severity: Severity, node: &Node, path: &str) {
    if !node.as_str().is_some_and(|s| s == "service" || s == "none") {
        sink.add(
            severity,
            "I28",
            path,
            Pos::from(node),
            format!(
                "`envIsolation` must be `service` or `none`, found {}",
                super::shape::describe(node)
            ),
            "use `envIsolation: service` (the default) or `none`",
        );
    }
}

/// I28: sshIsolation tokens (`project`, `vpn`, `service`, `service@<name>`, optional `-`),
/// project and service level alike.
pub fn check_ssh_isolation(sink: &mut Sink, node: &Node, path: &str) {
    let Some(text) = node.as_str() else {
        sink.warn(
            "I28",
            path,
            Pos::from(node),
            "`sshIsolation` must be text",
            "e.g. `sshIsolation: vpn`",
        );
        return;
    };
    for token in text.split_whitespace() {
        let t = token.trim_start_matches('-');
        let ok = matches!(t, "project" | "vpn" | "service")
            || t.strip_prefix("service@").is_some_and(|h| !h.is_empty());
        if !ok {
            sink.warn("I28", path, Pos::from(node), format!("unknown sshIsolation token `{token}`"), "combine `project`, `vpn`, `service`, `service@<hostname>`, each optionally prefixed with `-`");
        }
    }
}

/// `^[A-Za-z0-9_]+$`.
pub fn valid_key(key: &str) -> bool {
    !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Checks a variable map at `path`; returns the `(key, value)` pairs that are plain
/// scalars, for reference checks by the caller.
pub fn check_map<'a>(
    sink: &mut Sink,
    node: &'a Node,
    path: &str,
    at: Pos,
    flavor: EnvMap,
) -> Vec<(&'a str, &'a Node)> {
    let rule = flavor.rule();
    let hard = |sink: &mut Sink, path: &str, at: Pos, msg: String, fix: String| {
        if flavor == EnvMap::Project {
            sink.warn(rule, path, at, msg, fix);
        } else {
            sink.error(rule, path, at, msg, fix);
        }
    };
    let entries = match &node.value {
        Value::Map(entries) => entries,
        Value::Null => {
            sink.warn(
                rule,
                path,
                at,
                "the variable map is empty",
                "remove the key or add variables under it",
            );
            return Vec::new();
        }
        _ => {
            hard(
                sink,
                path,
                Pos::from(node),
                format!(
                    "must be a mapping of NAME: value, found {}",
                    super::shape::describe(node)
                ),
                "write one `NAME: value` pair per line under the key".to_owned(),
            );
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for entry in entries.iter() {
        let p = join(path, &entry.key);
        if entry.key == super::shape::MERGE_KEY {
            let severity = if flavor == EnvMap::Project {
                Severity::Warning
            } else {
                Severity::Error
            };
            super::shape::unmerged(sink, rule, severity, entry, &p);
            continue;
        }
        if !valid_key(&entry.key) {
            hard(
                sink,
                &p,
                Pos::from(entry),
                format!("`{}` is not a valid variable name", entry.key),
                format!(
                    "use only letters, digits and `_`, e.g. `{}`",
                    sanitize_key(&entry.key)
                ),
            );
        } else if entry.key.starts_with("ZEROPS_") {
            sink.warn(
                rule,
                &p,
                Pos::from(entry),
                format!("`{}` uses the reserved ZEROPS_ prefix; the platform refuses such user variables", entry.key),
                format!("rename it, e.g. `{}`", entry.key.trim_start_matches("ZEROPS_")),
            );
        }
        match &entry.value.value {
            Value::Map(_) | Value::Seq(_) => hard(
                sink,
                &p,
                Pos::from(&entry.value),
                format!(
                    "the value of `{}` is {}; variables hold one line of text",
                    entry.key,
                    super::shape::article(entry.value.type_name())
                ),
                "write the value as a (quoted) string, e.g. JSON text in single quotes".to_owned(),
            ),
            Value::Null => sink.warn(
                rule,
                &p,
                Pos::from(entry),
                format!("`{}` has no value", entry.key),
                "give it a value (use \"\" for an empty string) or remove it",
            ),
            Value::Bool(_) | Value::Int(_) | Value::Float(_) if flavor == EnvMap::ImportSecrets => {
                sink.info(
                    rule,
                    &p,
                    Pos::from(&entry.value),
                    format!(
                        "`{}` is {}; secrets are strings",
                        entry.key,
                        super::shape::article(entry.value.type_name())
                    ),
                    format!("quote it: `{}: \"{}\"`", entry.key, entry.value.raw()),
                )
            }
            Value::Str(text) => {
                if text.contains('\n') && !text.trim_end().contains('\n') {
                    // A trailing newline only (block scalar with clip): harmless.
                } else if text.trim_end().contains('\n') {
                    sink.warn(
                        rule,
                        &p,
                        Pos::from(&entry.value),
                        format!(
                            "`{}` spans several lines; variable values are single-line",
                            entry.key
                        ),
                        "join it into one line or store a file instead",
                    );
                }
                out.push((entry.key.as_str(), &entry.value));
            }
            _ => out.push((entry.key.as_str(), &entry.value)),
        }
    }
    out
}

/// `vault:` of an import's project or service (where the platform keeps variables since
/// 2026-10; `envSecrets` and `dotEnvSecrets` still work): a mapping of NAME to a value or to
/// `{value, sensitive}`. An item without `sensitive` is stored plain. Findings are errors
/// under `rule`, or warnings when `soft` (the project section is only warned about).
pub fn check_vault(sink: &mut Sink, node: &Node, path: &str, rule: &'static str, soft: bool) {
    let report = |sink: &mut Sink, path: &str, at: Pos, msg: String, fix: &str| {
        if soft {
            sink.warn(rule, path, at, msg, fix);
        } else {
            sink.error(rule, path, at, msg, fix);
        }
    };
    let Value::Map(entries) = &node.value else {
        report(
            sink,
            path,
            Pos::from(node),
            format!(
                "`vault` must be a mapping of NAME: value, found {}",
                super::shape::describe(node)
            ),
            "write one `NAME: value` (or `NAME: {value: ..., sensitive: true}`) per line",
        );
        return;
    };
    for entry in entries.iter() {
        let p = join(path, &entry.key);
        if !valid_key(&entry.key) {
            report(
                sink,
                &p,
                Pos::from(entry),
                format!("`{}` is not a valid variable name", entry.key),
                "use only letters, digits and `_`",
            );
        }
        let item = &entry.value;
        match &item.value {
            Value::Map(fields) => {
                for field in fields.iter() {
                    let fp = join(&p, &field.key);
                    match field.key.as_str() {
                        "value" if matches!(field.value.value, Value::Map(_) | Value::Seq(_)) => {
                            report(
                                sink,
                                &fp,
                                Pos::from(&field.value),
                                "`value` must be text".to_owned(),
                                "write the value as a (quoted) string",
                            );
                        }
                        "value" => check_reference_syntax(sink, rule, &fp, &field.value),
                        "sensitive" if !matches!(field.value.value, Value::Bool(_)) => {
                            report(
                                sink,
                                &fp,
                                Pos::from(&field.value),
                                format!(
                                    "`sensitive` must be true or false, found {}",
                                    super::shape::describe(&field.value)
                                ),
                                "write `sensitive: true` for a secret",
                            );
                        }
                        "sensitive" => {}
                        other => sink.warn(
                            rule,
                            &fp,
                            Pos::from(field),
                            format!("unknown key `{other}` in a vault item"),
                            "a vault item has `value` and `sensitive` only",
                        ),
                    }
                }
                if item.get("value").is_none() {
                    report(
                        sink,
                        &p,
                        Pos::from(entry),
                        format!("the vault item `{}` has no `value`", entry.key),
                        "add `value: ...`",
                    );
                }
            }
            Value::Seq(_) => report(
                sink,
                &p,
                Pos::from(item),
                format!("the value of `{}` is a list", entry.key),
                "write a value, or `{value: ..., sensitive: true}`",
            ),
            Value::Null => sink.warn(
                rule,
                &p,
                Pos::from(entry),
                format!("`{}` has no value", entry.key),
                "give it a value (use \"\" for an empty string) or remove it",
            ),
            _ => check_reference_syntax(sink, rule, &p, item),
        }
    }
}

fn sanitize_key(key: &str) -> String {
    let s: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "MY_VAR".to_owned() } else { s }
}

/// The names inside `${…}` of a value, with a problem description for malformed ones.
pub fn references(text: &str) -> Vec<Result<&str, String>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        match after.find('}') {
            None => {
                out.push(Err("`${` is never closed with `}`".to_owned()));
                break;
            }
            Some(end) => {
                let name = &after[..end];
                if name.is_empty() {
                    out.push(Err("`${}` names no variable".to_owned()));
                } else if name.contains(":-") || name.contains(":=") {
                    out.push(Err(format!("`${{{name}}}` uses shell default syntax, which Zerops references do not support")));
                } else if !valid_key(name) {
                    out.push(Err(format!("`${{{name}}}` is not a valid reference name")));
                } else {
                    out.push(Ok(name));
                }
                rest = &after[end + 1..];
            }
        }
    }
    out
}

/// Z36 (syntax part): malformed `${…}` in a value is a warning.
pub fn check_reference_syntax(sink: &mut Sink, rule: &'static str, path: &str, value: &Node) {
    let Some(text) = value.as_str() else { return };
    for r in references(text) {
        if let Err(problem) = r {
            sink.warn(
                rule,
                path,
                Pos::from(value),
                problem,
                "write references as `${name}` (same service) or `${hostname_name}` (another service)",
            );
        }
    }
}

/// Z36 (offline part) for variable `key` of the map at `map_path`: the syntax check, and a
/// warning for a value that refers to the variable itself. Such a variable shadows what
/// the name would otherwise reach (a project variable, or nothing at all for
/// `db_hostname: ${db_hostname}`) and holds the literal text `${…}`.
pub fn check_references(
    sink: &mut Sink,
    rule: &'static str,
    map_path: &str,
    key: &str,
    value: &Node,
) {
    let path = join(map_path, key);
    check_reference_syntax(sink, rule, &path, value);
    let Some(text) = value.as_str() else { return };
    if references(text).contains(&Ok(key)) {
        sink.warn(
            rule,
            &path,
            Pos::from(value),
            format!("`{key}` refers to itself: it shadows what `${{{key}}}` would reach, and holds the literal text `${{{key}}}`"),
            self_reference_fix(key),
        );
    }
}

/// What to do about variable `key` whose value is or holds `${key}`: delete it, or name it
/// otherwise (for a lower-case key, its upper-case form is the example: a project
/// variable's name is rarely lower case).
pub fn self_reference_fix(key: &str) -> String {
    let delete =
        "delete the line if it is meant to pass on a project variable (those are inherited)";
    match own_name(key) {
        None => format!("{delete}, or give it a name of its own"),
        Some(upper) => {
            format!("{delete}, or give it a name of its own, e.g. `{upper}: ${{{key}}}`")
        }
    }
}

/// A name of its own for a variable that names itself: its upper-case form, when that
/// differs (a project variable's name is rarely lower case).
pub fn own_name(key: &str) -> Option<String> {
    let upper = key.to_ascii_uppercase();
    (upper != key).then_some(upper)
}

/// I27: `dotEnvSecrets` must be `.env` text: `KEY=VALUE` lines, comments and blanks.
pub fn check_dotenv(sink: &mut Sink, path: &str, node: &Node) {
    let Some(text) = node.as_str() else {
        sink.error(
            "I27",
            path,
            Pos::from(node),
            format!(
                "dotEnvSecrets must be a string in .env format, found {}",
                super::shape::describe(node)
            ),
            "write it as a block: `dotEnvSecrets: |` followed by KEY=VALUE lines",
        );
        return;
    };
    // The parser places a block scalar at its first content line.
    let first_line = node.line;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let body = trimmed.strip_prefix("export ").unwrap_or(trimmed);
        let ok = body
            .split_once('=')
            .is_some_and(|(k, _)| valid_key(k.trim()));
        if !ok {
            sink.warn(
                "I27",
                path,
                Pos {
                    line: first_line + i,
                    column: node.column,
                },
                format!(
                    "line {} of dotEnvSecrets is not KEY=VALUE: `{}`",
                    i + 1,
                    truncate(trimmed, 40)
                ),
                "write each variable as NAME=value on its own line",
            );
        }
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let cut: String = s.chars().take(max).collect();
        format!("{cut}…")
    }
}

/// The first line switches the import preprocessor on.
pub fn preprocessor_on(content: &str) -> bool {
    let first = content
        .trim_start_matches('\u{feff}')
        .lines()
        .next()
        .unwrap_or("");
    let compact: String = first.chars().filter(|c| !c.is_whitespace()).collect();
    let lower = compact.to_ascii_lowercase();
    lower == "#yamlpreprocessor=on" || lower == "#zeropspreprocessor=on"
}

/// I29: `<@…>` expressions need the preprocessor header and balanced brackets. Only
/// expressions inside scalars count (block scalars included): one in a comment is never
/// stored, so neither warning applies to it. Returns whether the preprocessor is on.
pub fn check_preprocessor(sink: &mut Sink, content: &str) -> bool {
    let on = preprocessor_on(content);
    // No expression at all: no second pass over the parser.
    if !content.contains("<@") {
        return on;
    }
    let in_scalars = super::yaml::scalar_ranges(content);
    let in_a_scalar = |at: usize| {
        let after = in_scalars.partition_point(|r| r.start <= at);
        after > 0 && in_scalars[after - 1].contains(&at)
    };
    let mut warned_header = false;
    let mut line_start = 0;
    for (line_index, raw_line) in content.split_inclusive('\n').enumerate() {
        let line = raw_line.trim_end_matches(['\n', '\r']);
        let mut search_from = 0;
        while let Some(found) = line[search_from..].find("<@") {
            let start = search_from + found;
            let column = line[..start].chars().count() + 1;
            search_from = start + 2;
            if !in_a_scalar(line_start + column - 1) {
                continue;
            }
            let at = Pos {
                line: line_index + 1,
                column,
            };
            if !on && !warned_header {
                warned_header = true;
                sink.warn(
                    "I29",
                    "",
                    at,
                    "`<@…>` preprocessor functions are used but the preprocessor is not switched on; the text would be stored literally",
                    "make `#yamlPreprocessor=on` the very first line of the file",
                );
            }
            match closing(&line[start + 2..]) {
                Some(len) => search_from = start + 2 + len,
                None => {
                    sink.warn(
                        "I29",
                        "",
                        at,
                        "unbalanced `<@ … >` expression: a `>` is missing",
                        "close every `<` opened inside the expression, e.g. `<@generateRandomString(<32>)>`",
                    );
                    break;
                }
            }
        }
        line_start += raw_line.chars().count();
    }
    on
}

/// With the preprocessor on, the platform expands a value holding a `<@…>` expression
/// before it checks the import, so the offline rules judged text the platform never sees
/// (`hostname: <@pickRandom(<api>, <web>)>` is no invalid hostname). Their errors and
/// warnings at such a value are taken back and replaced by a note, which keeps what the
/// rule said as a hint (the report keeps one note per place); I29's own findings stay.
pub fn defer_expanded(sink: &mut Sink, root: &Node) {
    let expanded = expression_positions(root);
    if expanded.is_empty() {
        return;
    }
    let (deferred, kept): (Vec<Finding>, Vec<Finding>) =
        std::mem::take(&mut sink.list).into_iter().partition(|f| {
            f.severity != Severity::Info
                && f.rule != "I29"
                && expanded.binary_search(&(f.line, f.column)).is_ok()
        });
    sink.list = kept;
    for f in deferred {
        sink.info(
            "I29",
            &f.path,
            Pos { line: f.line, column: f.column },
            "this value is a preprocessor expression, expanded at import, so it is checked only then",
            format!("make sure every value it can produce fits here; offline, the expression itself got: {}", f.message),
        );
    }
}

/// Sorted positions of the string values holding a `<@` expression.
fn expression_positions(root: &Node) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut pending = vec![root];
    while let Some(node) = pending.pop() {
        match &node.value {
            Value::Str(text) if text.contains("<@") => out.push((node.line, node.column)),
            Value::Seq(items) => pending.extend(items.iter()),
            Value::Map(entries) => pending.extend(entries.iter().map(|e| &e.value)),
            _ => {}
        }
    }
    crate::order::sort(&mut out);
    out
}

/// Length up to and including the `>` closing an expression whose `<@` was just consumed.
fn closing(rest: &str) -> Option<usize> {
    let mut depth = 1usize;
    for (i, c) in rest.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_parsing() {
        assert_eq!(
            references("a ${x} b ${db_host}"),
            vec![Ok("x"), Ok("db_host")]
        );
        assert!(references("${}")[0].is_err());
        assert!(references("${a-b}")[0].is_err());
        assert!(references("pre ${open")[0].is_err());
        assert!(references("$plain and {braces}").is_empty());
    }

    #[test]
    fn preprocessor_header_and_balance() {
        assert!(preprocessor_on("#yamlPreprocessor=on\nservices: []"));
        assert!(preprocessor_on("# zeropsPreprocessor=on\n"));
        assert!(!preprocessor_on("services: []\n#yamlPreprocessor=on"));
        let mut sink = Sink::default();
        check_preprocessor(
            &mut sink,
            "#yamlPreprocessor=on\na: <@generateRandomString(<32>)>\n",
        );
        assert!(sink.list.is_empty(), "{:?}", sink.list);
        check_preprocessor(&mut sink, "a: x\nb: <@generateRandomString(<32>)\n");
        assert_eq!(sink.list.len(), 2);
        assert_eq!((sink.list[0].line, sink.list[0].column), (2, 4));
    }

    /// A `<@` after a `#` that starts a comment is not stored, so it gets no warning; a
    /// `#` inside quotes or a block scalar is text, and the expression after it counts.
    #[test]
    fn expressions_in_comments_are_not_checked() {
        let positions = |text: &str| {
            let mut sink = Sink::default();
            check_preprocessor(&mut sink, text);
            sink.list
                .iter()
                .map(|f| (f.line, f.column))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            positions("a: nodejs@22  # later: <@generateRandomString(<8>)\n# <@x\n"),
            []
        );
        assert_eq!(positions("a: \"x # <@f(<1>)\"  # <@g(\n"), [(1, 9), (1, 9)]);
        assert_eq!(positions("a: |\n  y # <@f(\n"), [(2, 7), (2, 7)]);
        assert_eq!(positions("\u{feff}a: <@f(\n"), [(1, 5), (1, 5)]);
    }
}
