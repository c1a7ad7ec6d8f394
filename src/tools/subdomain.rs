//! `zerops_subdomain`: enable or disable the public zerops.app URL.

use std::sync::Arc;

use crate::mcp::Tool;
use crate::ops::subdomain::set;

use super::common::{Services, follow, respond, string};
use super::output::Keep;
use super::spec::{TAKES_AWAY_IDEMPOTENT, define};

pub fn tool(services: Arc<Services>) -> Tool {
    define(
        "zerops_subdomain",
        "Public subdomain",
        "Enable or disable a service's public zerops.app subdomain (HTTPS URL for development and previews). \
Idempotent: an already enabled subdomain is reported with its URL. The service needs an HTTP port; enable it after the first deploy.",
        json_text!({
            "type": "object",
            "properties": {
                "serviceHostname": {"type": "string", "minLength": 1, "description": "The service."},
                "action": {"type": "string", "enum": ["enable", "disable"], "description": "enable or disable."}
            },
            "required": ["serviceHostname", "action"],
            "additionalProperties": false
        }),
        json_text!({
            "type": "object",
            "properties": {
                "serviceHostname": {"type": "string"}, "action": {"type": "string"}, "status": {"type": "string"},
                "url": {"type": "string"}, "process": {"type": "object"}, "warnings": {"type": "array"}
            },
            "required": ["serviceHostname", "status"]
        }),
        TAKES_AWAY_IDEMPOTENT,
        Arc::new(move |ctx| {
            let hostname = string(&ctx.arguments, "serviceHostname").unwrap_or_default();
            let enable = string(&ctx.arguments, "action").as_deref() == Some("enable");
            let mut follow = follow(ctx, services.poll);
            let result = services
                .session()
                .and_then(|s| set(&s, &hostname, enable, &mut follow));
            respond(result, Keep::Head, "")
        }),
    )
}
