//! `zerops_events`: recent processes and deploys, newest first.

use std::sync::Arc;

use crate::mcp::Tool;
use crate::ops::events::events;

use super::common::{Services, number, respond, string};
use super::output::Keep;
use super::spec::{READ_ONLY_REMOTE, define};

pub fn tool(services: Arc<Services>) -> Tool {
    define(
        "zerops_events",
        "Project activity",
        "List recent activity newest first: processes (start, restart, scale, import, env-update, project-env-update...) and builds/deploys, with status, duration and failReason (a failed build: a hint to its log). \
Filter by serviceHostname; limit defaults to 50. Use it to see whether a build failed and to find a build's appVersionId (the buildId of zerops_logs).",
        json_text!({
            "type": "object",
            "properties": {
                "serviceHostname": {"type": "string", "description": "Only events of this service."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50, "description": "How many events (newest)."}
            },
            "additionalProperties": false
        }),
        json_text!({
            "type": "object",
            "properties": {
                "projectId": {"type": "string"},
                "events": {"type": "array", "items": {"type": "object", "properties": {
                    "timestamp": {"type": ["string", "null"]}, "type": {"type": "string"}, "action": {"type": "string"},
                    "status": {"type": "string"}, "service": {"type": "string"}
                }}},
                "summary": {"type": "object"}
            },
            "required": ["events", "summary"]
        }),
        READ_ONLY_REMOTE,
        Arc::new(move |ctx| {
            let hostname = string(&ctx.arguments, "serviceHostname");
            let limit = number(&ctx.arguments, "limit").map_or(50, |n| n as usize);
            let result = services
                .session()
                .and_then(|s| events(&s, hostname.as_deref(), limit));
            respond(
                result,
                Keep::Head,
                "lower `limit` or filter by serviceHostname",
            )
        }),
    )
}
