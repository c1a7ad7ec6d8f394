//! `zerops_validate`: offline checks of zerops.yml or import.yml.

use std::sync::Arc;

use crate::mcp::Tool;
use crate::ops::import::{read_source, report_json};
use crate::ops::validate::{FileKind, validate};

use super::common::{respond, string, text};
use super::output::Keep;
use super::spec::{READ_ONLY_LOCAL, define};

pub fn tool() -> Tool {
    define(
        "zerops_validate",
        "Validate Zerops YAML",
        "Check a zerops.yml or import.yml offline before deploying or importing: unknown keys, types and versions, bases, modes, hostnames, ports, env variables. \
Each finding has severity, path, line, column, message and a suggested fix. Give content or filePath; type is detected if omitted.",
        json_text!({
            "type": "object",
            "properties": {
                "content": {"type": "string", "description": "The YAML text."},
                "filePath": {"type": "string", "description": "Path of the YAML file, *.yml or *.yaml (instead of content)."},
                "type": {"type": "string", "enum": ["zerops.yml", "import.yml"], "description": "The format; detected when omitted."}
            },
            "additionalProperties": false
        }),
        json_text!({
            "type": "object",
            "properties": {
                "valid": {"type": "boolean"}, "type": {"type": "string"}, "file": {"type": "string"},
                "errors": {"type": "array"}, "warnings": {"type": "array"}, "info": {"type": "array"},
                "omitted": {"type": "integer"}
            },
            "required": ["valid", "type", "errors", "warnings", "info"]
        }),
        READ_ONLY_LOCAL,
        Arc::new(|ctx| {
            let args = &ctx.arguments;
            let content = text(args, "content");
            let file = text(args, "filePath");
            let kind = string(args, "type").and_then(|t| FileKind::parse(&t));
            let result = read_source(content.as_deref(), file.as_deref()).map(|(text, path)| {
                let report = validate(&text, kind, path.as_deref());
                report_json(&report, path.as_deref())
            });
            respond(
                result,
                Keep::Head,
                "fix the first errors and validate again",
            )
        }),
    )
}
