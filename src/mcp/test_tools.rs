//! Tools that exist only to test the engine (slow work with progress, echo, a panic, a
//! capability requirement). The binary registers them when `ZCP_TEST_TOOLS=1`; they never
//! appear otherwise.

use std::sync::Arc;
use std::time::Duration;

use crate::json;

use serde_json::Value;

use super::logging::LogLevel;
use super::registry::{
    Annotations, ResourceContents, ResourceInfo, ResourceProvider, ResourceTemplate, Tool,
    ToolOutput,
};

const HARMLESS: Annotations = Annotations {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

/// All test tools, in a fixed order.
pub fn all() -> Vec<Tool> {
    vec![slow(), echo(), panic_tool(), elicit(), print()]
}

/// Two small documents under `test://docs/`, served through a `{+path}` template.
pub struct TestResources;

const TEST_DOCS: [(&str, &str); 2] = [
    ("hello", "# Hello\n\nA test document."),
    ("nested/deep", "# Deep\n\nA document two levels down."),
];

impl ResourceProvider for TestResources {
    fn list(&self) -> Vec<ResourceInfo> {
        TEST_DOCS
            .iter()
            .map(|(path, _)| ResourceInfo {
                uri: format!("test://docs/{path}"),
                name: (*path).to_owned(),
                title: Some(format!("Test document {path}")),
                description: Some("A document for protocol tests".into()),
                mime_type: Some("text/markdown".into()),
            })
            .collect()
    }

    fn templates(&self) -> Vec<ResourceTemplate> {
        vec![ResourceTemplate {
            uri_template: "test://docs/{+path}".into(),
            name: "test-docs".into(),
            title: Some("Test documents".into()),
            description: Some("Any test document by path".into()),
            mime_type: Some("text/markdown".into()),
        }]
    }

    fn read(&self, uri: &str) -> Option<ResourceContents> {
        let path = uri.strip_prefix("test://docs/")?;
        if path
            .split('/')
            .any(|seg| seg.is_empty() || seg == ".." || seg == ".")
            || path.contains('%')
        {
            return None;
        }
        if let Some((_, text)) = TEST_DOCS.iter().find(|(p, _)| *p == path) {
            return Some(ResourceContents {
                uri: uri.to_owned(),
                mime_type: "text/markdown".into(),
                text: (*text).to_owned(),
            });
        }
        // Any other path under the template is generated, like a client-built URI.
        path.starts_with("generated/").then(|| ResourceContents {
            uri: uri.to_owned(),
            mime_type: "text/markdown".into(),
            text: format!("# Generated\n\n{path}"),
        })
    }
}

fn slow() -> Tool {
    Tool {
        name: "test_slow".into(),
        title: "Slow test tool".into(),
        description: "Sleeps in steps, reporting progress between steps; honours cancellation."
            .into(),
        input_schema: json_text!({
            "type": "object",
            "properties": {
                "ms": {"type": "integer", "minimum": 0, "maximum": 600000, "description": "Total sleep, default 2000"},
                "steps": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Number of steps, default 4"},
                "text": {"type": "string", "description": "Echoed back"}
            },
            "additionalProperties": false
        }),
        output_schema: None,
        annotations: HARMLESS,
        required_client_capabilities: Vec::new(),
        handler: Arc::new(|ctx| {
            let ms = ctx
                .arguments
                .get("ms")
                .and_then(Value::as_u64)
                .unwrap_or(2000);
            let steps = ctx
                .arguments
                .get("steps")
                .and_then(Value::as_u64)
                .unwrap_or(4)
                .max(1);
            let step = Duration::from_millis(ms / steps);
            for i in 1..=steps {
                if ctx.cancel.wait_timeout(step) {
                    return ToolOutput::text("cancelled");
                }
                // Never report on the step that ends the call: the last progress must
                // precede the reply by a full step.
                ctx.log
                    .log(LogLevel::Info, "test_slow", json!(format!("step {i}")));
                if i < steps {
                    ctx.progress.report(
                        i as f64,
                        Some(steps as f64),
                        Some(&format!("step {i} of {steps}")),
                    );
                }
            }
            let text = ctx
                .arguments
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or("");
            ToolOutput::text(format!(
                "slept {ms} ms{}{text}",
                if text.is_empty() { "" } else { ": " }
            ))
        }),
    }
}

fn echo() -> Tool {
    Tool {
        name: "test_echo".into(),
        title: "Echo test tool".into(),
        description: "Returns its text argument unchanged and logs one info message.".into(),
        input_schema: json_text!({
            "type": "object",
            "properties": {"text": {"type": "string", "description": "Text to echo"}},
            "required": ["text"],
            "additionalProperties": false
        }),
        output_schema: Some(json_text!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"]
        })),
        annotations: HARMLESS,
        required_client_capabilities: Vec::new(),
        handler: Arc::new(|ctx| {
            let text = ctx.arguments.get("text").cloned().unwrap_or(Value::Null);
            ctx.log
                .log(LogLevel::Info, "test_echo", json!("echo called"));
            ToolOutput::json(json!({ "text": text }))
        }),
    }
}

fn panic_tool() -> Tool {
    Tool {
        name: "test_panic".into(),
        title: "Panicking test tool".into(),
        description: "Panics, to prove a failing handler does not take the server down.".into(),
        input_schema: json_text!({"type": "object", "properties": {}, "additionalProperties": false}),
        output_schema: None,
        annotations: HARMLESS,
        required_client_capabilities: Vec::new(),
        handler: Arc::new(|_| panic!("test_panic was called")),
    }
}

fn print() -> Tool {
    Tool {
        name: "test_print".into(),
        title: "Stray print test tool".into(),
        description: "Prints to the process's stdout, which must land on stderr, not the protocol."
            .into(),
        input_schema: json_text!({"type": "object", "properties": {}, "additionalProperties": false}),
        output_schema: None,
        annotations: HARMLESS,
        required_client_capabilities: Vec::new(),
        handler: Arc::new(|_| {
            #[allow(clippy::print_stdout)]
            {
                println!("stray output from a library"); // stdout-ok: proves fd 1 is redirected
            }
            ToolOutput::text("printed")
        }),
    }
}

fn elicit() -> Tool {
    Tool {
        name: "test_elicit".into(),
        title: "Elicitation test tool".into(),
        description: "Declares that it needs the client's elicitation capability.".into(),
        input_schema: json_text!({"type": "object", "properties": {}, "additionalProperties": false}),
        output_schema: None,
        annotations: HARMLESS,
        required_client_capabilities: vec!["elicitation".into()],
        handler: Arc::new(|_| ToolOutput::text("the client can elicit")),
    }
}
