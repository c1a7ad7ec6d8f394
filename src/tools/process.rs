//! `zerops_process`: status of an async process, or cancel it.

use std::sync::Arc;

use crate::mcp::Tool;
use crate::ops::process::{cancel, status};

use super::common::{Services, respond, string};
use super::output::Keep;
use super::spec::{TAKES_AWAY_IDEMPOTENT, define};

pub fn tool(services: Arc<Services>) -> Tool {
    define(
        "zerops_process",
        "Process status or cancel",
        "Check an async Zerops process (status, failReason, timestamps) by the processId another tool returned, or cancel one that is still PENDING or RUNNING.",
        json_text!({
            "type": "object",
            "properties": {
                "processId": {"type": "string", "minLength": 1, "description": "The process id."},
                "action": {"type": "string", "enum": ["status", "cancel"], "default": "status", "description": "status (default) or cancel."}
            },
            "required": ["processId"],
            "additionalProperties": false
        }),
        json_text!({
            "type": "object",
            "properties": {
                "processId": {"type": "string"}, "actionName": {"type": "string"}, "status": {"type": "string"},
                "failReason": {"type": "string"}, "inProgress": {"type": "boolean"}, "message": {"type": "string"}
            },
            "required": ["processId", "status"]
        }),
        TAKES_AWAY_IDEMPOTENT,
        Arc::new(move |ctx| {
            let id = string(&ctx.arguments, "processId").unwrap_or_default();
            let action = string(&ctx.arguments, "action").unwrap_or_else(|| "status".into());
            let result = services.session().and_then(|s| {
                if action == "cancel" {
                    cancel(&s, &id)
                } else {
                    status(&s, &id)
                }
            });
            respond(result, Keep::Head, "")
        }),
    )
}
