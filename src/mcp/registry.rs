//! What can be registered into the engine: tools (with their schemas, annotations and a
//! handler) and a resource provider. The engine shapes these per protocol era; handlers
//! never see JSON-RPC or era differences.

use std::sync::Arc;

use crate::json;

use serde_json::{Map, Value};

use super::context::ToolContext;
use crate::json_string::{push_json_string, push_json_value};

/// A tool handler. It runs on a worker thread and may block; it must watch
/// `ctx.cancel` during long waits.
pub type ToolHandler = Arc<dyn Fn(&ToolContext) -> ToolOutput + Send + Sync>;

/// Behaviour hints shown to clients (spec §5.1). All four are always sent, so a client
/// never falls back to the spec's pessimistic defaults by accident.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

/// A registered tool.
#[derive(Clone)]
pub struct Tool {
    pub name: String,
    pub title: String,
    pub description: String,
    /// JSON Schema with root `"type":"object"`; the engine validates arguments against it.
    pub input_schema: Value,
    /// When set, successful results must carry `structuredContent` matching it.
    pub output_schema: Option<Value>,
    pub annotations: Annotations,
    /// Client capabilities a modern request must declare (e.g. `elicitation`).
    pub required_client_capabilities: Vec<String>,
    pub handler: ToolHandler,
}

impl Tool {
    /// Appends the `tools/list` entry for one era: `with_annotations` from 2025-03-26,
    /// `with_titles` (title, outputSchema) from 2025-06-18. Written straight to text, keys
    /// in sorted order as a `Value` map would have them: building a `Value` first cloned
    /// (and then dropped) every schema.
    pub fn write_entry(&self, with_annotations: bool, with_titles: bool, out: &mut String) {
        out.push('{');
        if with_annotations {
            let a = self.annotations;
            for (key, flag) in [
                ("\"annotations\":{\"destructiveHint\":", a.destructive),
                (",\"idempotentHint\":", a.idempotent),
                (",\"openWorldHint\":", a.open_world),
                (",\"readOnlyHint\":", a.read_only),
            ] {
                out.push_str(key);
                out.push_str(if flag { "true" } else { "false" });
            }
            if with_titles {
                out.push_str(",\"title\":");
                push_json_string(out, &self.title);
            }
            out.push_str("},");
        }
        out.push_str("\"description\":");
        push_json_string(out, &self.description);
        out.push_str(",\"inputSchema\":");
        push_json_value(out, &self.input_schema);
        out.push_str(",\"name\":");
        push_json_string(out, &self.name);
        if with_titles {
            if let Some(schema) = &self.output_schema {
                out.push_str(",\"outputSchema\":");
                push_json_value(out, schema);
            }
            out.push_str(",\"title\":");
            push_json_string(out, &self.title);
        }
        out.push('}');
    }
}

/// What a tool handler returns: one text block, whether that text is also the structured
/// data (which the engine then sends as `structuredContent` in eras that have it), and the
/// error flag.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// Build a new output rather than assign this: a `literal` made for an earlier text
    /// would go out on the wire as the text block.
    pub text: String,
    /// The text is compact JSON, to be sent verbatim as `structuredContent` as well. Keeping
    /// one copy as text (not a `Value` serialised twice) halves the cost of large results.
    pub structured: bool,
    pub is_error: bool,
    /// `text` already written as a JSON string literal (quotes included), when the tool
    /// could build it for less than escaping the text costs (see [`ToolOutput::json_text_with_literal`]).
    literal: Option<String>,
}

impl ToolOutput {
    /// A success whose text is the compact JSON of `value`, mirrored as structured content.
    pub fn json(value: Value) -> ToolOutput {
        let mut text = String::new();
        push_json_value(&mut text, &value);
        ToolOutput::json_text(text)
    }

    /// [`ToolOutput::json`] for a value already serialised: `json` must be compact JSON
    /// (what `serde_json::to_string` writes), since it goes on the wire unchanged.
    pub fn json_text(json: String) -> ToolOutput {
        ToolOutput {
            text: json,
            structured: true,
            is_error: false,
            literal: None,
        }
    }

    /// [`ToolOutput::json_text`] with the text block ready: `literal` must be exactly what
    /// [`crate::json_string::push_json_string`] writes for `json`. A tool whose answer
    /// repeats large cached pieces (a whole document) escapes each piece once, ever.
    pub fn json_text_with_literal(json: String, literal: String) -> ToolOutput {
        ToolOutput {
            literal: Some(literal),
            ..ToolOutput::json_text(json)
        }
    }

    /// A failure whose text is the compact JSON of `value` (no structured content: clients
    /// validate structured content of successes only).
    pub fn error_json(value: &Value) -> ToolOutput {
        ToolOutput {
            text: value.to_string(),
            structured: false,
            is_error: true,
            literal: None,
        }
    }

    /// The text block as given with [`ToolOutput::json_text_with_literal`], if it was.
    pub fn literal(&self) -> Option<&str> {
        self.literal.as_deref()
    }

    /// A plain-text result.
    pub fn text(text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            text: text.into(),
            structured: false,
            is_error: false,
            literal: None,
        }
    }
}

/// One entry of `resources/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceInfo {
    pub uri: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
}

/// One entry of `resources/templates/list` (an RFC 6570 template).
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceTemplate {
    pub uri_template: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
}

/// The text of one resource.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceContents {
    pub uri: String,
    pub mime_type: String,
    pub text: String,
}

/// A source of resources. `read` gets the URI exactly as the client sent it and must
/// return `None` for anything it does not serve (the engine turns that into the era's
/// not-found error).
pub trait ResourceProvider: Send + Sync {
    fn list(&self) -> Vec<ResourceInfo>;
    fn templates(&self) -> Vec<ResourceTemplate>;
    fn read(&self, uri: &str) -> Option<ResourceContents>;
}

impl ResourceInfo {
    pub fn describe(&self, with_titles: bool) -> Value {
        let title = self.title.as_deref().filter(|_| with_titles);
        let fields = [
            ("uri", Some(self.uri.as_str())),
            ("name", Some(self.name.as_str())),
            ("title", title),
            ("description", self.description.as_deref()),
            ("mimeType", self.mime_type.as_deref()),
        ];
        object_of_present(&fields)
    }
}

impl ResourceTemplate {
    pub fn describe(&self, with_titles: bool) -> Value {
        let title = self.title.as_deref().filter(|_| with_titles);
        let fields = [
            ("uriTemplate", Some(self.uri_template.as_str())),
            ("name", Some(self.name.as_str())),
            ("title", title),
            ("description", self.description.as_deref()),
            ("mimeType", self.mime_type.as_deref()),
        ];
        object_of_present(&fields)
    }
}

/// A JSON object of the fields that have a value, in the given order.
fn object_of_present(fields: &[(&str, Option<&str>)]) -> Value {
    let entry: Map<String, Value> = fields
        .iter()
        .filter_map(|(key, value)| value.map(|v| ((*key).to_owned(), json!(v))))
        .collect();
    Value::Object(entry)
}
