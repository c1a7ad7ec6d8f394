//! A small YAML document tree in which every node knows its 1-based line and column.
//!
//! Built from the event stream of `saphyr-parser` rather than from a ready-made tree type,
//! because the validator needs three things generic trees drop: every duplicate key (a hash
//! map keeps only one), the position of each key as well as its value, and control over
//! alias expansion (bounded, so a "billion laughs" file cannot exhaust memory). Merge keys
//! (`<<`) are resolved here; explicit keys win over merged ones. Scalars are typed with the
//! YAML 1.2 core schema, which is what the platform's Go decoder sees for untyped values.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;

use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};

/// Deeper nesting than this is refused: no Zerops file needs it, and recursive walks over
/// the tree must stay far from the stack limit.
const MAX_DEPTH: usize = 128;
/// Upper bound on nodes created by expanding aliases, across the whole document.
const ALIAS_BUDGET: usize = 20_000;

/// A typed value.
///
/// Collections are reference-counted so that cloning a node is cheap: an anchor keeps its
/// node for later aliases, and an alias places that node again. With deep copies, anchors
/// nested inside each other copied the innermost subtree once per enclosing anchor, so a
/// small file of nested anchors needed memory in the hundreds of megabytes.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Rc<Vec<Node>>),
    Map(Rc<Vec<Entry>>),
}

/// A node and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    /// A non-string scalar as written (`0x1F`, `1e3`, `~`), to quote it back in messages.
    /// Empty for strings, whose text is the value itself, and for collections: storing
    /// the text twice doubled the memory of a list of plain words.
    raw: Box<str>,
    pub line: usize,
    pub column: usize,
}

/// One `key: value` pair of a mapping. Keys are kept as text.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: String,
    pub key_line: usize,
    pub key_column: usize,
    pub value: Node,
}

/// A parse failure with the parser's position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

/// The first document of a stream, plus what the reader noticed on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// `None` for an empty stream or an empty document.
    pub root: Option<Node>,
    /// Line of the second document, if the stream has more than one (only the first is read).
    pub extra_document_line: Option<usize>,
}

impl Node {
    /// The scalar as written (a string's own text; empty for collections).
    pub fn raw(&self) -> &str {
        match &self.value {
            Value::Str(s) => s,
            _ => &self.raw,
        }
    }

    /// Text of a string scalar.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Entries of a mapping.
    pub fn as_map(&self) -> Option<&[Entry]> {
        match &self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// Items of a sequence.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.value {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self.value {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }

    /// Integers and floats as one number.
    pub fn as_number(&self) -> Option<f64> {
        match self.value {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self.value, Value::Null)
    }

    /// The first entry with this key (duplicates are reported separately).
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.as_map()?.iter().find(|e| e.key == key)
    }

    /// The value under `key`.
    pub fn value_of(&self, key: &str) -> Option<&Node> {
        self.get(key).map(|e| &e.value)
    }

    /// A scalar rendered as text (strings bare, others as written).
    pub fn scalar_text(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) => Some(self.raw()),
            _ => None,
        }
    }

    /// Short human name of the node's type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "number",
            Value::Str(_) => "string",
            Value::Seq(_) => "list",
            Value::Map(_) => "mapping",
        }
    }
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl Node {
    /// The plain value as JSON, positions dropped, for the simulator's import. A key given
    /// twice in one mapping is an error here (YAML forbids it and the platform refuses it);
    /// the validator reports duplicates itself instead.
    pub fn to_json(&self) -> Result<serde_json::Value, SyntaxError> {
        use serde_json::Value as Json;
        Ok(match &self.value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(i) => Json::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
            Value::Str(s) => Json::String(s.clone()),
            Value::Seq(items) => {
                Json::Array(items.iter().map(Node::to_json).collect::<Result<_, _>>()?)
            }
            Value::Map(entries) => {
                let mut map = serde_json::Map::new();
                for entry in entries.iter() {
                    if map
                        .insert(entry.key.clone(), entry.value.to_json()?)
                        .is_some()
                    {
                        return Err(SyntaxError {
                            message: format!("duplicate key '{}'", entry.key),
                            line: entry.key_line,
                            column: entry.key_column,
                        });
                    }
                }
                Json::Object(map)
            }
        })
    }
}

impl Document {
    /// The first document as JSON; an empty document is `null`.
    pub fn to_json(&self) -> Result<serde_json::Value, SyntaxError> {
        self.root
            .as_ref()
            .map_or(Ok(serde_json::Value::Null), Node::to_json)
    }
}

/// Parses the first document of `text`. Never panics: a failure inside the parser becomes a
/// syntax error at the top of the file.
pub fn parse(text: &str) -> Result<Document, SyntaxError> {
    match catch_unwind(AssertUnwindSafe(|| Builder::default().run(text))) {
        Ok(result) => result,
        Err(_) => Err(SyntaxError {
            message: "the YAML parser failed on this input".to_owned(),
            line: 1,
            column: 1,
        }),
    }
}

enum Frame {
    Seq {
        start: Span,
        anchor: usize,
        items: Vec<Node>,
    },
    Map {
        start: Span,
        anchor: usize,
        entries: Vec<Entry>,
        key: Option<(String, usize, usize)>,
    },
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    alias_nodes: usize,
    root: Option<Node>,
    documents: usize,
    extra_document_line: Option<usize>,
}

fn syntax(message: impl Into<String>, span: Span) -> SyntaxError {
    SyntaxError {
        message: message.into(),
        line: span.start.line().max(1),
        column: span.start.col() + 1,
    }
}

/// The first tab at or after 1-based `line` and `column` (in characters), as 1-based
/// line and column.
fn next_tab(text: &str, line: usize, column: usize) -> Option<(usize, usize)> {
    text.lines().enumerate().skip(line - 1).find_map(|(i, l)| {
        let skip = if i + 1 == line { column - 1 } else { 0 };
        l.chars()
            .enumerate()
            .skip(skip)
            .find(|(_, c)| *c == '\t')
            .map(|(col, _)| (i + 1, col + 1))
    })
}

impl Builder {
    fn run(mut self, text: &str) -> Result<Document, SyntaxError> {
        let mut parser = Parser::new_from_str(text);
        while let Some(item) = parser.next_event() {
            let (event, span) = item.map_err(|e| {
                let (mut line, mut column) = (e.marker().line().max(1), e.marker().col() + 1);
                // The scanner reports a tab from where its scalar began, often the line
                // before: point at the tab itself.
                if e.info().contains("found a tab")
                    && let Some(tab) = next_tab(text, line, column)
                {
                    (line, column) = tab;
                }
                SyntaxError {
                    message: e.info().to_owned(),
                    line,
                    column,
                }
            })?;
            match event {
                Event::DocumentStart(_) => {
                    self.documents += 1;
                    if self.documents == 2 {
                        self.extra_document_line = Some(span.start.line().max(1));
                        // Only the first document matters; stop before building the rest.
                        break;
                    }
                }
                Event::StreamEnd => break,
                Event::Nothing | Event::StreamStart | Event::DocumentEnd => {}
                Event::Scalar(text, style, anchor, tag) => {
                    let node = scalar(&text, style, tag.as_deref(), span);
                    self.finish_node(node, anchor, span)?;
                }
                Event::SequenceStart(anchor, _) => {
                    self.push(
                        Frame::Seq {
                            start: span,
                            anchor,
                            items: Vec::new(),
                        },
                        span,
                    )?;
                }
                Event::MappingStart(anchor, _) => {
                    self.push(
                        Frame::Map {
                            start: span,
                            anchor,
                            entries: Vec::new(),
                            key: None,
                        },
                        span,
                    )?;
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    let Some(frame) = self.stack.pop() else {
                        return Err(syntax("unbalanced collection end", span));
                    };
                    let (node, anchor) = match frame {
                        Frame::Seq {
                            start,
                            anchor,
                            items,
                        } => (collection(Value::Seq(shared(items)), start), anchor),
                        Frame::Map {
                            start,
                            anchor,
                            entries,
                            ..
                        } => (
                            collection(Value::Map(shared(merge_keys(entries))), start),
                            anchor,
                        ),
                    };
                    self.finish_node(node, anchor, span)?;
                }
                Event::Alias(id) => {
                    let Some(target) = self.anchors.get(&id) else {
                        return Err(syntax("alias refers to an unknown anchor", span));
                    };
                    let size = count_nodes(target, ALIAS_BUDGET + 1);
                    self.alias_nodes += size;
                    if self.alias_nodes > ALIAS_BUDGET {
                        return Err(syntax(
                            "aliases expand to too many nodes (possible alias bomb)",
                            span,
                        ));
                    }
                    let mut node = target.clone();
                    node.line = span.start.line().max(1);
                    node.column = span.start.col() + 1;
                    self.finish_node(node, 0, span)?;
                }
            }
        }
        Ok(Document {
            root: self.root,
            extra_document_line: self.extra_document_line,
        })
    }

    fn push(&mut self, frame: Frame, span: Span) -> Result<(), SyntaxError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(syntax("nesting is too deep", span));
        }
        self.stack.push(frame);
        Ok(())
    }

    /// Hands a completed node to its parent (or makes it the root). An anchored node is also
    /// kept for aliases; that costs one reference for a collection (its items are shared),
    /// so anchors nested in each other cost nothing extra.
    fn finish_node(&mut self, node: Node, anchor: usize, span: Span) -> Result<(), SyntaxError> {
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() && !(node.is_null() && node.raw().is_empty()) {
                    self.root = Some(node);
                }
            }
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => {
                    let text = match node.scalar_text() {
                        Some(t) => t.to_owned(),
                        None => {
                            return Err(syntax(
                                "complex (non-scalar) keys are not supported",
                                span,
                            ));
                        }
                    };
                    *key = Some((text, node.line, node.column));
                }
                Some((text, key_line, key_column)) => entries.push(Entry {
                    key: text,
                    key_line,
                    key_column,
                    value: node,
                }),
            },
        }
        Ok(())
    }
}

/// The finished items of a collection, without spare capacity (a list grown by doubling
/// would otherwise keep up to half its allocation unused for the life of the tree).
fn shared<T>(mut items: Vec<T>) -> Rc<Vec<T>> {
    items.shrink_to_fit();
    Rc::new(items)
}

fn collection(value: Value, start: Span) -> Node {
    Node {
        value,
        raw: Box::default(),
        line: start.start.line().max(1),
        column: start.start.col() + 1,
    }
}

/// Counts nodes up to `limit` (stops early so a huge anchor is not walked in full).
fn count_nodes(node: &Node, limit: usize) -> usize {
    let mut count = 0;
    let mut todo = vec![node];
    while let Some(n) = todo.pop() {
        count += 1;
        if count >= limit {
            break;
        }
        match &n.value {
            Value::Seq(items) => todo.extend(items.iter()),
            Value::Map(entries) => todo.extend(entries.iter().map(|e| &e.value)),
            _ => {}
        }
    }
    count
}

/// Resolves `<<: *anchor` and `<<: [*a, *b]`: merged entries are appended unless the
/// mapping already has that key explicitly (or from an earlier merge source). Keys taken
/// are looked up in a set: scanning the entries per merged key made a mapping with tens of
/// thousands of keys on both sides take minutes.
fn merge_keys(entries: Vec<Entry>) -> Vec<Entry> {
    if !entries
        .iter()
        .any(|e| e.key == "<<" && is_mergeable(&e.value))
    {
        return entries;
    }
    let mut out: Vec<Entry> = Vec::with_capacity(entries.len());
    let mut merged: Vec<Entry> = Vec::new();
    for entry in entries {
        if entry.key == "<<" && is_mergeable(&entry.value) {
            let sources = match &entry.value.value {
                Value::Seq(items) => items.as_slice(),
                _ => std::slice::from_ref(&entry.value),
            };
            for source in sources {
                if let Value::Map(source_entries) = &source.value {
                    merged.extend(source_entries.iter().cloned());
                }
            }
        } else {
            out.push(entry);
        }
    }
    let mut taken: HashSet<String> = out.iter().map(|e| e.key.clone()).collect();
    for entry in merged {
        if taken.insert(entry.key.clone()) {
            out.push(entry);
        }
    }
    out
}

fn is_mergeable(node: &Node) -> bool {
    match &node.value {
        Value::Map(_) => true,
        Value::Seq(items) => items.iter().all(|i| i.as_map().is_some()),
        _ => false,
    }
}

/// Where the scalars of the first document (keys and values) lie in `text`, as character
/// ranges in document order. Text outside them is syntax, indentation or comments; the
/// preprocessor check uses this to leave `<@` in a comment alone. Text that does not parse
/// gives the ranges up to the error. Meant for text that [`parse`] read without a panic:
/// this reads no further into the same events, so it needs no guard of its own.
pub fn scalar_ranges(text: &str) -> Vec<Range<usize>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut parser = Parser::new_from_str(text);
    while let Some(Ok((event, span))) = parser.next_event() {
        match event {
            Event::Scalar(_, style, _, _) => out.push(scalar_range(&chars, style, span)),
            Event::DocumentEnd | Event::StreamEnd => break,
            _ => {}
        }
    }
    out
}

/// One scalar's range. The parser ends a quoted scalar's span after the blanks and any
/// comment that follow it, so its end is found here by the closing quote.
fn scalar_range(chars: &[char], style: ScalarStyle, span: Span) -> Range<usize> {
    let start = span.start.index();
    let quote = match style {
        ScalarStyle::SingleQuoted => '\'',
        ScalarStyle::DoubleQuoted => '"',
        _ => return start..span.end.index(),
    };
    if chars.get(start) != Some(&quote) {
        return start..span.end.index();
    }
    let mut i = start + 1;
    while let Some(&c) = chars.get(i) {
        match c {
            // `''` inside single quotes and `\x` inside double quotes do not close.
            '\'' if quote == '\'' && chars.get(i + 1) == Some(&'\'') => i += 2,
            '\\' if quote == '"' => i += 2,
            c if c == quote => return start..i + 1,
            _ => i += 1,
        }
    }
    start..span.end.index()
}

/// Types a scalar: quoted and block scalars are strings; plain ones follow the core schema
/// unless a standard tag says otherwise.
fn scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>, span: Span) -> Node {
    let value = match tag
        .filter(|t| t.is_yaml_core_schema())
        .map(|t| t.suffix.as_str())
    {
        Some("str") => Value::Str(text.to_owned()),
        Some("null") => Value::Null,
        // An explicit type tag types even a quoted scalar (`!!int "2"` is the number 2); text
        // that is not of that type stays a string, for the rules to report.
        Some(kind @ ("int" | "float" | "bool")) => match (kind, resolve_plain(text.trim())) {
            ("int", Value::Int(i)) => Value::Int(i),
            ("float", Value::Float(f)) => Value::Float(f),
            ("float", Value::Int(i)) => Value::Float(i as f64),
            ("bool", Value::Bool(b)) => Value::Bool(b),
            _ => Value::Str(text.to_owned()),
        },
        Some(_) | None if style != ScalarStyle::Plain => Value::Str(text.to_owned()),
        _ => resolve_plain(text),
    };
    let raw = match value {
        Value::Str(_) => Box::default(),
        _ => text.into(),
    };
    Node {
        value,
        raw,
        line: span.start.line().max(1),
        column: span.start.col() + 1,
    }
}

fn resolve_plain(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Value::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        _ => {}
    }
    if let Some(hex) = text.strip_prefix("0x")
        && let Ok(i) = i64::from_str_radix(hex, 16)
    {
        return Value::Int(i);
    }
    if let Some(oct) = text.strip_prefix("0o")
        && let Ok(i) = i64::from_str_radix(oct, 8)
    {
        return Value::Int(i);
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return match text.parse::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => text
                .parse::<f64>()
                .map_or_else(|_| Value::Str(text.to_owned()), Value::Float),
        };
    }
    if looks_like_float(digits)
        && let Ok(f) = text.parse::<f64>()
    {
        return Value::Float(f);
    }
    Value::Str(text.to_owned())
}

/// `1.5`, `.5`, `1.`, `1e3`, `1.5E-3` (the core schema float form, sign already removed).
fn looks_like_float(s: &str) -> bool {
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let mut parts = mantissa.splitn(2, '.');
    let whole = parts.next().unwrap_or("");
    let frac = parts.next();
    let digits_ok = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match frac {
        Some(f) => digits_ok(whole) && digits_ok(f) && !(whole.is_empty() && f.is_empty()),
        None => !whole.is_empty() && digits_ok(whole) && exponent.is_some(),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits_ok(e)
    });
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(text: &str) -> Node {
        parse(text).unwrap().root.unwrap()
    }

    #[test]
    fn positions_are_one_based_for_keys_and_values() {
        let doc = root("a: 1\nb:\n  - x\n  - 'y'\n");
        let b = doc.get("b").unwrap();
        assert_eq!((b.key_line, b.key_column), (2, 1));
        let items = b.value.as_seq().unwrap();
        assert_eq!((items[1].line, items[1].column), (4, 5));
        assert_eq!(items[1].as_str(), Some("y"));
        let a = doc.get("a").unwrap();
        assert_eq!((a.value.line, a.value.column), (1, 4));
    }

    #[test]
    fn scalar_ranges_end_before_trailing_comments() {
        let text = "a: \"x # y\"  # c\nb: 'it''s' # c\nc: plain  # c\nd: |\n  one # kept\n# c\n";
        let chars: Vec<char> = text.chars().collect();
        let texts: Vec<String> = scalar_ranges(text)
            .into_iter()
            .map(|r| chars[r].iter().collect())
            .collect();
        assert_eq!(
            texts,
            [
                "a",
                "\"x # y\"",
                "b",
                "'it''s'",
                "c",
                "plain",
                "d",
                "one # kept\n"
            ]
        );
    }

    #[test]
    fn block_scalars_start_at_their_first_content_line() {
        let doc = root("a: |\n  x\n  y\nb: >-\n  folded\n");
        let a = doc.value_of("a").unwrap();
        assert_eq!((a.line, a.column, a.as_str()), (2, 3, Some("x\ny\n")));
        assert_eq!(doc.value_of("b").unwrap().line, 5);
    }

    #[test]
    fn core_schema_typing() {
        let doc = root(
            "a: 1\nb: 1.5\nc: true\nd: ~\ne: '1'\nf: 10s\ng: yes\nh: 0x1F\ni: -3\nj: 1e3\nk: 1.2.3\nl:\n",
        );
        let v = |k: &str| doc.value_of(k).unwrap().value.clone();
        assert_eq!(v("a"), Value::Int(1));
        assert_eq!(v("b"), Value::Float(1.5));
        assert_eq!(v("c"), Value::Bool(true));
        assert_eq!(v("d"), Value::Null);
        assert_eq!(v("e"), Value::Str("1".into()));
        assert_eq!(v("f"), Value::Str("10s".into()));
        assert_eq!(v("g"), Value::Str("yes".into()));
        assert_eq!(v("h"), Value::Int(31));
        assert_eq!(v("i"), Value::Int(-3));
        assert_eq!(v("j"), Value::Float(1000.0));
        assert_eq!(v("k"), Value::Str("1.2.3".into()));
        assert_eq!(v("l"), Value::Null);
    }

    #[test]
    fn tags_override_plain_typing() {
        let doc = root("a: !!str 12\nb: !custom 12\n");
        assert_eq!(doc.value_of("a").unwrap().as_str(), Some("12"));
        assert_eq!(doc.value_of("b").unwrap().as_int(), Some(12));
        // Type tags apply to quoted scalars too; text not of the type stays a string.
        let doc = root("a: !!int \"2\"\nb: !!bool 'true'\nc: !!float \"1\"\nd: !!int \"two\"\n");
        assert_eq!(doc.value_of("a").unwrap().as_int(), Some(2));
        assert_eq!(doc.value_of("b").unwrap().value, Value::Bool(true));
        assert_eq!(doc.value_of("c").unwrap().value, Value::Float(1.0));
        assert_eq!(doc.value_of("d").unwrap().as_str(), Some("two"));
    }

    #[test]
    fn duplicate_keys_are_all_kept() {
        let doc = root("a: 1\na: 2\n");
        let keys: Vec<_> = doc.as_map().unwrap().iter().map(|e| e.key_line).collect();
        assert_eq!(keys, vec![1, 2]);
    }

    #[test]
    fn syntax_error_has_position() {
        let err = parse("a: [1, 2\nb: 3\n").unwrap_err();
        assert!(err.line >= 1 && err.column >= 1, "{err:?}");
        let err = parse("a: b\n  c: d\n").unwrap_err();
        assert_eq!(err.line, 2, "{err:?}");
    }

    #[test]
    fn aliases_and_merge_keys_resolve() {
        let doc = root("base: &b\n  x: 1\n  y: 2\nchild:\n  <<: *b\n  y: 3\nother: *b\n");
        let child = doc.value_of("child").unwrap();
        assert_eq!(child.value_of("x").unwrap().as_int(), Some(1));
        assert_eq!(child.value_of("y").unwrap().as_int(), Some(3));
        assert!(child.get("<<").is_none());
        let other = doc.value_of("other").unwrap();
        assert_eq!((other.line, other.column), (7, 8));
        assert_eq!(other.value_of("y").unwrap().as_int(), Some(2));
    }

    #[test]
    fn alias_bomb_is_refused() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..8 {
            let prev = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
            ));
        }
        let err = parse(&text).unwrap_err();
        assert!(err.message.contains("alias"), "{err:?}");
    }

    #[test]
    fn anchors_and_aliases_share_items_instead_of_copying_them() {
        // Nested anchors used to copy the innermost list once per enclosing anchor. An alias
        // now points at the very items of the anchored node: the same allocation, no copy.
        let depth = 100;
        let mut text = String::from("x: ");
        for i in 0..depth {
            text.push_str(&format!("&a{i} ["));
        }
        text.push_str("p, q, r");
        text.push_str(&"]".repeat(depth));
        text.push_str(&format!("\ny: *a{}\nz: *a0\n", depth - 1));
        let doc = root(&text);
        let mut inner = doc.value_of("x").unwrap();
        for _ in 1..depth {
            inner = &inner.as_seq().unwrap()[0];
        }
        let y = doc.value_of("y").unwrap();
        assert_eq!(y.as_seq().unwrap().len(), 3);
        assert!(std::ptr::eq(
            inner.as_seq().unwrap().as_ptr(),
            y.as_seq().unwrap().as_ptr()
        ));
        let (x, z) = (doc.value_of("x").unwrap(), doc.value_of("z").unwrap());
        assert!(std::ptr::eq(
            x.as_seq().unwrap().as_ptr(),
            z.as_seq().unwrap().as_ptr()
        ));
        // The alias itself is placed where it is written.
        assert_eq!((z.line, z.column), (3, 4));
    }

    #[test]
    fn merge_keys_in_huge_mappings_keep_explicit_and_earlier_keys() {
        // 20 000 merged keys beside 20 000 explicit ones, overlapping in `a7` and `b3`
        // (the lookup of taken keys must stay linear for this). Explicit keys keep their
        // values and places; merged ones follow, first source first, each key once.
        const N: usize = 20_000;
        let merged: Vec<String> = (0..N).map(|i| format!("a{i}: m")).collect();
        let mut text = format!(
            "m:\n  <<: [{{{}, b3: m}}, {{a0: late, z: 2}}]\n",
            merged.join(", ")
        );
        for i in 0..N {
            text.push_str(&format!("  b{i}: e\n"));
        }
        text.push_str("  a7: e\n");
        let doc = root(&text);
        let m = doc.value_of("m").unwrap().as_map().unwrap();
        assert_eq!(m.len(), 2 * N + 1);
        let keys: Vec<&str> = m.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(&keys[..2], ["b0", "b1"]);
        assert_eq!(keys[N], "a7");
        assert_eq!(&keys[N + 1..N + 3], ["a0", "a1"]);
        assert_eq!(keys[2 * N], "z");
        let value = |k: &str| doc.value_of("m").unwrap().value_of(k).unwrap().as_str();
        assert_eq!(value("a7"), Some("e"));
        assert_eq!(value("b3"), Some("e"));
        assert_eq!(value("a0"), Some("m"));
        assert_eq!(keys.iter().filter(|k| **k == "a7").count(), 1);
    }

    #[test]
    fn a_string_scalar_stores_its_text_once() {
        // A long list of plain words is mostly nodes: the text of a string is kept only as
        // its value, and a node stays within 64 bytes.
        let doc = root("a: word\nb: 0x1F\nc: '7'\nd: [x, y]\n");
        let a = doc.value_of("a").unwrap();
        assert!(a.raw.is_empty());
        assert_eq!((a.raw(), a.scalar_text()), ("word", Some("word")));
        assert_eq!(doc.value_of("b").unwrap().raw(), "0x1F");
        assert_eq!(doc.value_of("c").unwrap().raw(), "7");
        assert_eq!(doc.value_of("d").unwrap().raw(), "");
        assert!(
            std::mem::size_of::<Node>() <= 64,
            "{}",
            std::mem::size_of::<Node>()
        );
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let text = "[".repeat(5000);
        assert!(parse(&text).is_err());
        let text = format!(
            "{}1{}",
            "[".repeat(MAX_DEPTH + 5),
            "]".repeat(MAX_DEPTH + 5)
        );
        assert!(parse(&text).is_err());
    }

    #[test]
    fn empty_and_multi_document_streams() {
        assert_eq!(parse("").unwrap().root, None);
        assert_eq!(parse("# only a comment\n").unwrap().root, None);
        let doc = parse("a: 1\n---\nb: 2\n").unwrap();
        assert_eq!(doc.extra_document_line, Some(2));
        assert!(doc.root.unwrap().get("b").is_none());
    }

    #[test]
    fn complex_keys_are_a_syntax_error() {
        assert!(parse("? [a, b]\n: 1\n").is_err());
    }

    #[test]
    fn json_view_keeps_types_and_refuses_duplicates() {
        let doc = parse("a: 1\nb: 1.5\nc: true\nd: ~\ne: '7'\nf: [x, {g: h}]").unwrap();
        assert_eq!(
            doc.to_json().unwrap(),
            crate::json!({"a": 1, "b": 1.5, "c": true, "d": null, "e": "7", "f": ["x", {"g": "h"}]})
        );
        let err = parse("a: 1\nb:\n  c: 1\n  c: 2\n")
            .unwrap()
            .to_json()
            .unwrap_err();
        assert_eq!((err.line, err.column), (4, 3), "{err}");
        assert!(err.to_string().contains("duplicate key 'c'"), "{err}");
        assert_eq!(
            parse("").unwrap().to_json().unwrap(),
            serde_json::Value::Null
        );
    }
}
