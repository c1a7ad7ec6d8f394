//! Shape checks shared by both formats: allowed keys with "did you mean", scalar types,
//! string-or-list values, command lists, and duplicate keys anywhere in a document (G6).

use std::collections::{HashMap, hash_map};

use super::report::{Pos, Severity, Sink, index, join};
use super::suggest;
use super::yaml::{Entry, Node, Value};

/// Reports every key of `map` that is not in `allowed`. `hints` maps a known mistake to an
/// explanation and a fix; other keys get the closest allowed names.
pub fn unknown_keys(
    sink: &mut Sink,
    rule: &'static str,
    severity: Severity,
    entries: &[Entry],
    path: &str,
    allowed: &[&str],
    hints: &[(&str, &str, &str)],
) {
    unknown_keys_beside(sink, rule, severity, entries, path, allowed, &[], hints);
}

/// `unknown_keys` for a mapping where some keys are accepted but are findings of their
/// own (a deprecated or misplaced key that another check reports). Those `reported` keys
/// are not called unknown, and neither offered in "allowed keys here" nor suggested:
/// the list must not recommend what another finding tells the user to remove.
#[allow(clippy::too_many_arguments)]
pub fn unknown_keys_beside(
    sink: &mut Sink,
    rule: &'static str,
    severity: Severity,
    entries: &[Entry],
    path: &str,
    allowed: &[&str],
    reported: &[&str],
    hints: &[(&str, &str, &str)],
) {
    for entry in entries {
        if allowed.contains(&entry.key.as_str()) || reported.contains(&entry.key.as_str()) {
            continue;
        }
        let p = join(path, &entry.key);
        if entry.key == MERGE_KEY {
            unmerged(sink, rule, severity, entry, &p);
            continue;
        }
        if let Some((_, why, fix)) = hints.iter().find(|(k, _, _)| *k == entry.key) {
            sink.add(
                severity,
                rule,
                &p,
                Pos::from(entry),
                format!("unknown key `{}`: {why}", entry.key),
                *fix,
            );
            continue;
        }
        let near = suggest::closest(&entry.key, allowed, 3);
        let fix = if near.is_empty() {
            format!(
                "remove it; allowed keys here: {}",
                suggest::quote_list(allowed)
            )
        } else {
            format!("did you mean {}?", suggest::or_list(&near))
        };
        let where_ = if path.is_empty() {
            "at the top level".to_owned()
        } else {
            format!("in `{path}`")
        };
        sink.add(
            severity,
            rule,
            &p,
            Pos::from(entry),
            format!("unknown key `{}` {where_}", entry.key),
            fix,
        );
    }
}

/// YAML's merge key. The parser resolves it when it merges mappings; one left in a
/// mapping had a value that is none (`<<: nodejs@22`).
pub const MERGE_KEY: &str = "<<";

/// A `<<` that merged nothing: it is no key of its own, so say what it needs rather than
/// calling it unknown.
pub fn unmerged(
    sink: &mut Sink,
    rule: &'static str,
    severity: Severity,
    entry: &Entry,
    path: &str,
) {
    sink.add(
        severity,
        rule,
        path,
        Pos::from(entry),
        format!(
            "`<<` must merge a mapping, found {}",
            describe(&entry.value)
        ),
        "write `<<: *name` with the alias of a mapping anchored as `&name` (or a list of such aliases), or write the keys here directly",
    );
}

/// The entries of a mapping, or an error finding (null counts as "empty", returned as `[]`
/// with no finding when `null_ok`).
pub fn expect_map<'a>(
    sink: &mut Sink,
    rule: &'static str,
    node: &'a Node,
    path: &str,
    null_ok: bool,
) -> Option<&'a [Entry]> {
    match &node.value {
        Value::Map(entries) => Some(entries),
        Value::Null if null_ok => Some(&[]),
        _ => {
            sink.error(
                rule,
                path,
                Pos::from(node),
                format!(
                    "`{}` must be a mapping, found {}",
                    last_segment(path),
                    article(node.type_name())
                ),
                "indent its keys under it as `key: value` lines",
            );
            None
        }
    }
}

/// Non-empty string, else an error finding.
pub fn expect_string<'a>(
    sink: &mut Sink,
    rule: &'static str,
    node: &'a Node,
    path: &str,
) -> Option<&'a str> {
    match &node.value {
        Value::Str(s) if !s.trim().is_empty() => Some(s),
        Value::Str(_) | Value::Null => {
            sink.error(
                rule,
                path,
                Pos::from(node),
                format!("`{}` is empty", last_segment(path)),
                "give it a value or remove the key",
            );
            None
        }
        _ => {
            sink.error(
                rule,
                path,
                Pos::from(node),
                format!(
                    "`{}` must be a string, found {}",
                    last_segment(path),
                    article(node.type_name())
                ),
                as_text_fix(node, last_segment(path)),
            );
            None
        }
    }
}

/// Longest first item shown as an example in `as_text_fix`; a long script is not echoed.
const EXAMPLE_MAX: usize = 80;

/// How to write a non-string `node` as the string `key` wants. A list of strings is
/// joined into one (its first item shown); a mapping becomes one text; other scalars are
/// quoted as written (`name: "5"`).
fn as_text_fix(node: &Node, key: &str) -> String {
    match &node.value {
        Value::Seq(items) => {
            let first = items
                .first()
                .and_then(Node::scalar_text)
                .filter(|t| !t.is_empty() && t.chars().count() <= EXAMPLE_MAX);
            match (first, items.len()) {
                (Some(t), 1) => format!("write the item as the value: `{key}: {}`", quoted(t)),
                (Some(t), _) => format!(
                    "join the items into one string (a block scalar `|` keeps one per line), e.g. `{key}: {}` for the first",
                    quoted(t)
                ),
                (None, _) => format!(
                    "write `{key}` as one string, not a list (a block scalar `|` for several lines)"
                ),
            }
        }
        Value::Map(_) => format!(
            "write `{key}` as one string, not as keys (a block scalar `{key}: |` for multi-line text)"
        ),
        _ => format!("write it as text, e.g. `{key}: {}`", quoted(node.raw())),
    }
}

/// `text` as a double-quoted scalar. Rust's escapes match YAML's for what a command
/// holds (`\"`, `\\`, `\n`, `\t`), and they are already in the binary.
fn quoted(text: &str) -> String {
    format!("{text:?}")
}

/// A boolean, else an error finding.
pub fn expect_bool(sink: &mut Sink, rule: &'static str, node: &Node, path: &str) -> Option<bool> {
    check_bool(sink, rule, Severity::Error, node, path)
}

/// A boolean, else a finding of `severity`. A YAML 1.1 word (`yes`, `off`…) counts as the
/// boolean Zerops reads, with a warning: other YAML tools read it as text.
pub fn check_bool(
    sink: &mut Sink,
    rule: &'static str,
    severity: Severity,
    node: &Node,
    path: &str,
) -> Option<bool> {
    if let Some(b) = node.as_bool() {
        return Some(b);
    }
    let key = last_segment(path);
    if let Some(word) = node.as_str()
        && let Some(b) = yaml11_bool(word)
    {
        sink.warn(
            rule,
            path,
            Pos::from(node),
            format!("`{word}` is a YAML 1.1 boolean: Zerops reads it as {b}, but YAML 1.2 tools read it as text"),
            format!("write `{key}: {b}`"),
        );
        return Some(b);
    }
    // A true/false that is text was quoted, which Go's decoder refuses for a bool field.
    let fix = match node.as_str().map(str::to_ascii_lowercase).as_deref() {
        Some(word @ ("true" | "false")) => format!("write `{key}: {word}` without quotes"),
        _ => "use true or false".to_owned(),
    };
    sink.add(
        severity,
        rule,
        path,
        Pos::from(node),
        format!(
            "`{key}` must be true or false, found {}",
            article(node.type_name())
        ),
        fix,
    );
    None
}

/// A boolean as the platform's Go decoder (gopkg.in/yaml.v3) reads it into a bool field:
/// `true`/`false`, or one of the YAML 1.1 words it still accepts there.
pub fn go_bool(node: &Node) -> Option<bool> {
    node.as_bool()
        .or_else(|| node.as_str().and_then(yaml11_bool))
}

/// The YAML 1.1 boolean words that yaml.v3 decodes into a Go bool, in exactly the letter
/// cases it accepts (quoted or not).
fn yaml11_bool(word: &str) -> Option<bool> {
    match word {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Some(true),
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

/// A scalar that the platform's Go decoder reads into a string field as it is written: a
/// string, or a plain number, which yaml.v3 keeps as its source text (`3.20` stays "3.20",
/// not 3.2). The flag says it was a number, which other YAML tools read differently.
pub fn go_string(node: &Node) -> Option<(&str, bool)> {
    match &node.value {
        Value::Str(s) => Some((s, false)),
        Value::Int(_) | Value::Float(_) => Some((node.raw(), true)),
        _ => None,
    }
}

/// A type or base with whitespace around it (`" nodejs@22"`, a block scalar's line
/// break): the platform receives the text as written and finds no such name, although
/// the trimmed text may be one. Reported as an error of `rule`; returns whether it was.
pub fn padded_name(
    sink: &mut Sink,
    rule: &'static str,
    node: &Node,
    path: &str,
    what: &str,
) -> bool {
    let text = node.raw();
    let trimmed = text.trim();
    if trimmed == text || trimmed.is_empty() {
        return false;
    }
    sink.error(
        rule,
        path,
        Pos::from(node),
        format!("the {what} {text:?} has whitespace around it; it is sent as written and names no {what}"),
        format!("write `{trimmed}` without the surrounding whitespace"),
    );
    true
}

/// A base or type written as a plain number (`base: 3.20`, `type: 22`). Go reads it as
/// written; when that text is a `known` name it works, with a warning because other YAML
/// tools read a number (3.20 becomes 3.2). Otherwise it names nothing, and the fix shows a
/// real name (`example`) in quotes.
pub fn unquoted_number(
    sink: &mut Sink,
    rule: &'static str,
    node: &Node,
    path: &str,
    known: bool,
    what: &str,
    example: &str,
) {
    let text = node.raw();
    if known {
        sink.warn(
            rule,
            path,
            Pos::from(node),
            format!("the {what} `{text}` is written as a number: Zerops reads it as written, but other YAML tools read the number {}", node_number(node)),
            format!("quote it: `\"{text}\"`"),
        );
    } else {
        sink.error(
            rule,
            path,
            Pos::from(node),
            format!("`{text}` is a number, not a {what} name"),
            format!("write a quoted {what} like `\"{example}\"`"),
        );
    }
}

/// A number node as a YAML 1.2 tool reads it (`3.20` → `3.2`).
fn node_number(node: &Node) -> String {
    match node.value {
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        _ => node.raw().to_owned(),
    }
}

/// An integer, else an error finding.
pub fn expect_int(sink: &mut Sink, rule: &'static str, node: &Node, path: &str) -> Option<i64> {
    if let Some(i) = node.as_int() {
        return Some(i);
    }
    let fix = match node
        .as_str()
        .map(str::trim)
        .and_then(|s| s.parse::<i64>().ok())
    {
        Some(i) => format!(
            "write the number without quotes: `{}: {i}`",
            last_segment(path)
        ),
        None => "use a whole number".to_owned(),
    };
    sink.error(
        rule,
        path,
        Pos::from(node),
        format!(
            "`{}` must be a whole number, found {}",
            last_segment(path),
            article(node.type_name())
        ),
        fix,
    );
    None
}

/// The items of a string-or-list value (a single string counts as one item). Items that are
/// not non-empty strings are reported; `None` when the value is neither.
pub fn string_or_list<'a>(
    sink: &mut Sink,
    rule: &'static str,
    node: &'a Node,
    path: &str,
) -> Option<Vec<(&'a Node, String)>> {
    match &node.value {
        Value::Str(_) => {
            if node.as_str().is_some_and(|s| s.trim().is_empty()) {
                sink.error(
                    rule,
                    path,
                    Pos::from(node),
                    format!("`{}` is empty", last_segment(path)),
                    "give it a path or remove it",
                );
                return Some(Vec::new());
            }
            Some(vec![(node, path.to_owned())])
        }
        Value::Seq(items) => {
            let mut out = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let p = index(path, i);
                match item.as_str() {
                    Some(s) if !s.trim().is_empty() => out.push((item, p)),
                    _ => sink.error(
                        rule,
                        &p,
                        Pos::from(item),
                        format!(
                            "entry {} of `{}` must be a non-empty string, found {}",
                            i,
                            last_segment(path),
                            describe(item)
                        ),
                        "write each entry as a path string",
                    ),
                }
            }
            Some(out)
        }
        _ => {
            sink.error(
                rule,
                path,
                Pos::from(node),
                format!(
                    "`{}` must be a string or a list of strings, found {}",
                    last_segment(path),
                    article(node.type_name())
                ),
                "write a path, or a list of paths one per line starting with `- `",
            );
            None
        }
    }
}

/// G6: every key defined twice in one mapping, anywhere in the document. Depth first, with
/// one pending iterator per level, and a path is made only for a mapping or list: pushing
/// every child with its path at once held a string per item, hundreds of megabytes for a
/// long flat list.
pub fn duplicate_keys(sink: &mut Sink, node: &Node, path: &str) {
    let mut levels: Vec<(String, Children)> = Vec::new();
    enter(sink, node, path.to_owned(), &mut levels);
    while let Some((parent, children)) = levels.last_mut() {
        let Some((child, p)) = children.next_collection(parent) else {
            levels.pop();
            continue;
        };
        enter(sink, child, p, &mut levels);
    }
}

/// The children of a mapping or list still to visit in `duplicate_keys`.
enum Children<'a> {
    Entries(std::slice::Iter<'a, Entry>),
    Items(std::iter::Enumerate<std::slice::Iter<'a, Node>>),
}

impl<'a> Children<'a> {
    /// The next child that is a mapping or list, with its path (scalars hold no keys).
    fn next_collection(&mut self, parent: &str) -> Option<(&'a Node, String)> {
        match self {
            Children::Entries(entries) => entries
                .find(|e| is_collection(&e.value))
                .map(|e| (&e.value, join(parent, &e.key))),
            Children::Items(items) => items
                .find(|(_, n)| is_collection(n))
                .map(|(i, n)| (n, index(parent, i))),
        }
    }
}

fn is_collection(node: &Node) -> bool {
    matches!(node.value, Value::Map(_) | Value::Seq(_))
}

/// Checks a mapping's own keys and queues its children (or a list's items).
fn enter<'a>(
    sink: &mut Sink,
    node: &'a Node,
    path: String,
    levels: &mut Vec<(String, Children<'a>)>,
) {
    match &node.value {
        Value::Map(entries) => {
            repeated_keys(sink, entries, &path);
            levels.push((path, Children::Entries(entries.iter())));
        }
        Value::Seq(items) => levels.push((path, Children::Items(items.iter().enumerate()))),
        _ => {}
    }
}

/// G6 within one mapping: each later definition of a key, pointing at the first. The
/// first definitions are looked up in a map rather than by scanning the earlier entries,
/// since that scan made a mapping with 200 000 keys (a generated env list) take minutes.
fn repeated_keys(sink: &mut Sink, entries: &[Entry], path: &str) {
    let mut first_line: HashMap<&str, usize> = HashMap::with_capacity(entries.len());
    for e in entries {
        match first_line.entry(e.key.as_str()) {
            hash_map::Entry::Vacant(slot) => {
                slot.insert(e.key_line);
            }
            hash_map::Entry::Occupied(first) => sink.error(
                "G6",
                &join(path, &e.key),
                Pos::from(e),
                format!(
                    "key `{}` is defined twice (first on line {})",
                    e.key,
                    first.get()
                ),
                "keep one of the two definitions and merge their content",
            ),
        }
    }
}

/// `a.b[2].c` → `c`; `a.b[2]` → `b[2]`.
pub fn last_segment(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// A short description of a node for messages: its type, or the value of a scalar.
pub fn describe(node: &Node) -> String {
    match &node.value {
        Value::Null => "nothing".to_owned(),
        Value::Str(s) if s.is_empty() => "an empty string".to_owned(),
        Value::Str(s) => format!("`{s}`"),
        Value::Seq(_) | Value::Map(_) => article(node.type_name()),
        _ => format!("`{}`", node.raw()),
    }
}

/// `describe` for a place that wants a number: a string is called a string, so that a
/// quoted `"5"` does not read as if the number 5 had been refused.
pub fn describe_as_typed(node: &Node) -> String {
    match &node.value {
        Value::Str(s) if !s.is_empty() => format!("the string \"{s}\""),
        _ => describe(node),
    }
}

/// "a list", "an integer".
pub fn article(word: &str) -> String {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {word}")
    } else {
        format!("a {word}")
    }
}
