//! `zerops_delete`: delete a service (confirm: true required).

use std::sync::Arc;

use crate::mcp::Tool;
use crate::ops::delete::delete;

use super::common::{Services, boolean, follow, respond, string};
use super::output::Keep;
use super::spec::{DESTRUCTIVE, define};

pub fn tool(services: Arc<Services>) -> Tool {
    define(
        "zerops_delete",
        "Delete a service",
        "Permanently delete a service and its data. Only with the user's explicit approval for this service; requires confirm: true, otherwise nothing happens.",
        json_text!({
            "type": "object",
            "properties": {
                "serviceHostname": {"type": "string", "minLength": 1, "description": "The service to delete."},
                "confirm": {"type": "boolean", "default": false, "description": "Must be true: the user approved deleting this service."}
            },
            "required": ["serviceHostname"],
            "additionalProperties": false
        }),
        json_text!({
            "type": "object",
            "properties": {"serviceHostname": {"type": "string"}, "serviceId": {"type": "string"}, "process": {"type": "object"},
                "status": {"type": "string", "description": "already_deleting when a delete was already under way (no new process)"}, "message": {"type": "string"},
                "warnings": {"type": "array", "items": {"type": "string"}}},
            "required": ["serviceHostname"]
        }),
        DESTRUCTIVE,
        Arc::new(move |ctx| {
            let hostname = string(&ctx.arguments, "serviceHostname").unwrap_or_default();
            let confirm = boolean(&ctx.arguments, "confirm");
            let mut follow = follow(ctx, services.poll);
            // Without the confirmation nothing changes; a failed sign-in then still gives
            // the refusal (the agent has to ask the user first either way).
            let result = if confirm {
                services
                    .session()
                    .and_then(|s| delete(&s, &hostname, true, &mut follow))
            } else {
                let session = services.session().ok();
                crate::ops::delete::require_confirmation(session.as_deref(), &hostname)
            };
            respond(result, Keep::Head, "")
        }),
    )
}
