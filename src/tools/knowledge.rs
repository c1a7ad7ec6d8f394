//! `zerops_knowledge` and the `zerops://docs/{+path}` resources: search and read the
//! embedded Zerops documents. Works offline, with no token.

use std::sync::Arc;

use serde_json::Value;

use crate::knowledge;
use crate::mcp::{
    ResourceContents, ResourceInfo, ResourceProvider, ResourceTemplate, Tool, ToolOutput,
};

use super::output::{Keep, ToolError, success_of_json};
use super::spec::READ_ONLY_LOCAL;

const DESCRIPTION: &str = "Search the built-in Zerops documentation (services, runtimes, zerops.yml, \
import.yml, networking, scaling, troubleshooting). Returns ranked matches with snippets, the full \
text of the best match, and suggestions. Use before writing YAML or when a deploy fails. Offline.";

/// The tool definition.
pub fn tool() -> Tool {
    Tool {
        name: "zerops_knowledge".into(),
        title: "Search Zerops docs".into(),
        description: DESCRIPTION.into(),
        input_schema: json_text!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "description": "What to look for, in plain words (e.g. \"postgres connection string\", \"502 bad gateway\")."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5, "description": "How many matches to return (default 5)."}
            },
            "required": ["query"],
            "additionalProperties": false
        }),
        output_schema: Some(json_text!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "expandedQuery": {"type": "string"},
                "results": {"type": "array", "items": {"type": "object", "properties": {
                    "uri": {"type": "string"}, "title": {"type": "string"}, "score": {"type": "number"}, "snippet": {"type": "string"}
                }}},
                "topResult": {"type": "object", "properties": {"uri": {"type": "string"}, "title": {"type": "string"}, "content": {"type": "string"}}},
                "suggestions": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["query", "results", "suggestions"]
        })),
        annotations: READ_ONLY_LOCAL,
        required_client_capabilities: Vec::new(),
        handler: Arc::new(|ctx| search(&ctx.arguments)),
    }
}

fn search(arguments: &Value) -> ToolOutput {
    let query = arguments
        .get("query")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim();
    if query.is_empty() {
        return ToolError::new(
            "INVALID_PARAMETER",
            "The query is empty",
            "Pass a few words describing what you need, e.g. \"nodejs zerops.yml\" or \"postgresql env variables\".",
        )
        .into_output();
    }
    let limit = arguments
        .get("limit")
        .and_then(Value::as_u64)
        .unwrap_or(5)
        .clamp(1, 20);
    let store = knowledge::store();
    let response = store.search(query, usize::try_from(limit).unwrap_or(5));
    let (json, literal) = response.to_json_and_literal(Some(store));
    success_of_json(
        (json, Some(literal)),
        &response,
        Keep::Head,
        "lower `limit`, or read a document in full as a resource (zerops://docs/...)",
    )
}

/// Serves every embedded document as `zerops://docs/<category>/<name>`.
pub struct DocsResources;

impl ResourceProvider for DocsResources {
    fn list(&self) -> Vec<ResourceInfo> {
        knowledge::store()
            .documents()
            .iter()
            .map(|doc| ResourceInfo {
                uri: doc.uri.clone(),
                name: doc.path.clone(),
                title: Some(doc.title.clone()),
                description: Some(doc.description.clone()),
                mime_type: Some("text/markdown".into()),
            })
            .collect()
    }

    fn templates(&self) -> Vec<ResourceTemplate> {
        vec![ResourceTemplate {
            uri_template: "zerops://docs/{+path}".into(),
            name: "zerops-docs".into(),
            title: Some("Zerops documentation".into()),
            description: Some(
                "Any embedded Zerops document by path, e.g. services/postgresql".into(),
            ),
            mime_type: Some("text/markdown".into()),
        }]
    }

    fn read(&self, uri: &str) -> Option<ResourceContents> {
        let normalised = knowledge::resolve_uri(uri)?;
        let doc = knowledge::store().get(&normalised)?;
        Some(ResourceContents {
            uri: uri.to_owned(),
            mime_type: "text/markdown".into(),
            text: doc.markdown.clone(),
        })
    }
}
