//! YAML as a small tree that remembers where every node was (1-based line and column),
//! built on `saphyr`'s marked nodes. The validator needs a position for every finding; the
//! simulator and the import tool only need the values (see [`Node::to_json`]).

use serde_json::{Map, Value};

use saphyr::{LoadableYamlNode, MarkedYaml, Scalar, YamlData};

/// A parsed node with its position.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub kind: Kind,
    pub line: usize,
    pub column: usize,
}

/// The shape of a node.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A string; `quoted` tells `"123"` from `123`.
    Str {
        value: String,
        quoted: bool,
    },
    Seq(Vec<Node>),
    /// Entries in document order; keys are rendered as strings.
    Map(Vec<(Node, Node)>),
}

/// A syntax error with its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

/// Parses the first document of `text`. An empty text is a `Null` node. Duplicate keys
/// are a syntax error, as the YAML specification requires.
pub fn parse(text: &str) -> Result<Node, YamlError> {
    let docs = MarkedYaml::load_from_str(text).map_err(|err| {
        let mark = err.marker();
        YamlError {
            line: mark.line(),
            column: mark.col() + 1,
            message: err.info().to_owned(),
        }
    })?;
    Ok(docs.first().map_or(
        Node {
            kind: Kind::Null,
            line: 1,
            column: 1,
        },
        convert,
    ))
}

fn convert(node: &MarkedYaml<'_>) -> Node {
    let line = node.span.start.line().max(1);
    let column = node.span.start.col() + 1;
    let kind = match &node.data {
        YamlData::Value(scalar) => scalar_kind(scalar, false),
        YamlData::Representation(text, style, _) => {
            let quoted = !matches!(style, saphyr::ScalarStyle::Plain);
            Kind::Str {
                value: text.to_string(),
                quoted,
            }
        }
        YamlData::Sequence(items) => Kind::Seq(items.iter().map(convert).collect()),
        YamlData::Mapping(map) => {
            Kind::Map(map.iter().map(|(k, v)| (convert(k), convert(v))).collect())
        }
        YamlData::Tagged(_, inner) => return convert(inner),
        YamlData::Alias(_) | YamlData::BadValue => Kind::Null,
    };
    Node { kind, line, column }
}

fn scalar_kind(scalar: &Scalar<'_>, quoted: bool) -> Kind {
    match scalar {
        Scalar::Null => Kind::Null,
        Scalar::Boolean(b) => Kind::Bool(*b),
        Scalar::Integer(i) => Kind::Int(*i),
        Scalar::FloatingPoint(f) => Kind::Float(f.into_inner()),
        Scalar::String(s) => Kind::Str {
            value: s.to_string(),
            quoted,
        },
    }
}

impl Node {
    /// The value as a string if it is a scalar (numbers and booleans rendered as written).
    pub fn as_scalar_string(&self) -> Option<String> {
        match &self.kind {
            Kind::Str { value, .. } => Some(value.clone()),
            Kind::Int(i) => Some(i.to_string()),
            Kind::Float(f) => Some(f.to_string()),
            Kind::Bool(b) => Some(b.to_string()),
            Kind::Null => None,
            Kind::Seq(_) | Kind::Map(_) => None,
        }
    }

    /// The string value, only for string nodes.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Str { value, .. } => Some(value),
            _ => None,
        }
    }

    /// The entries of a mapping.
    pub fn entries(&self) -> Option<&[(Node, Node)]> {
        match &self.kind {
            Kind::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The items of a sequence.
    pub fn items(&self) -> Option<&[Node]> {
        match &self.kind {
            Kind::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The value under `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entries()?
            .iter()
            .find(|(k, _)| k.as_scalar_string().as_deref() == Some(key))
            .map(|(_, v)| v)
    }

    /// The key node of `key` in a mapping (for findings about the key itself).
    pub fn key_node(&self, key: &str) -> Option<&Node> {
        self.entries()?
            .iter()
            .find(|(k, _)| k.as_scalar_string().as_deref() == Some(key))
            .map(|(k, _)| k)
    }

    /// A short name of the node's type for messages.
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            Kind::Null => "null",
            Kind::Bool(_) => "a boolean",
            Kind::Int(_) => "an integer",
            Kind::Float(_) => "a number",
            Kind::Str { .. } => "a string",
            Kind::Seq(_) => "a list",
            Kind::Map(_) => "a mapping",
        }
    }

    /// The plain value as JSON (positions dropped).
    pub fn to_json(&self) -> Value {
        match &self.kind {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(*b),
            Kind::Int(i) => Value::from(*i),
            Kind::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Kind::Str { value, .. } => Value::String(value.clone()),
            Kind::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            Kind::Map(entries) => {
                let mut map = Map::new();
                for (k, v) in entries {
                    map.insert(k.as_scalar_string().unwrap_or_default(), v.to_json());
                }
                Value::Object(map)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based() {
        let doc = parse("services:\n  - hostname: api\n    type: nodejs@22\n").unwrap();
        let services = doc.get("services").unwrap();
        let first = &services.items().unwrap()[0];
        let hostname = first.get("hostname").unwrap();
        assert_eq!((hostname.line, hostname.column), (2, 15));
        let (key, _) = &first.entries().unwrap()[1];
        assert_eq!((key.line, key.column), (3, 5));
        assert_eq!(doc.to_json()["services"][0]["type"], "nodejs@22");
    }

    #[test]
    fn scalars_keep_their_types() {
        let doc = parse("a: 1\nb: 1.5\nc: true\nd: ~\ne: '7'\nf: text").unwrap();
        let json = doc.to_json();
        assert_eq!(
            json,
            serde_json::json!({"a": 1, "b": 1.5, "c": true, "d": null, "e": "7", "f": "text"})
        );
    }

    #[test]
    fn syntax_errors_and_duplicate_keys_have_positions() {
        let err = parse("a: [1, 2\nb: 3").unwrap_err();
        assert!(err.line >= 1 && err.column >= 1, "{err}");
        let err = parse("a: 1\na: 2\n").unwrap_err();
        assert_eq!(err.line, 2, "{err}");
        assert!(err.message.contains("duplicate"), "{err}");
    }

    #[test]
    fn empty_input_is_null() {
        assert_eq!(parse("").unwrap().kind, Kind::Null);
        assert_eq!(parse("# only a comment\n").unwrap().kind, Kind::Null);
    }
}
