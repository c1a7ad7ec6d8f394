//! `zerops_logs`: runtime or build logs of a service.

use std::sync::Arc;

use crate::mcp::Tool;
use crate::ops::logs::{LogsRequest, logs};

use super::common::{Services, boolean, number, respond, string};
use super::output::Keep;
use super::spec::{READ_ONLY_REMOTE, define};

pub fn tool(services: Arc<Services>) -> Tool {
    define(
        "zerops_logs",
        "Read service logs",
        "Read a service's runtime logs (or the build log of one deploy with buildId, or its web server's lines with webServer), oldest first. \
Filter by minimum severity, since (30m, 2h, 1d or RFC 3339; default 1h, a build log whole), text search and limit (default 100, max 1000). hasMore says if more entries may match.",
        json_text!({
            "type": "object",
            "properties": {
                "serviceHostname": {"type": "string", "minLength": 1, "description": "The service whose logs to read."},
                "severity": {"type": "string", "enum": ["all", "debug", "info", "informational", "notice", "warning", "warn", "error", "err", "critical", "crit", "alert", "emergency", "emerg"], "default": "all", "description": "Minimum severity."},
                "since": {"type": "string", "default": "1h", "description": "How far back: 30m, 2h, 1d (max 30d) or an RFC 3339 time. With buildId the default is the whole build log."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100, "description": "Most entries to return (the newest)."},
                "search": {"type": "string", "description": "Only entries whose message contains this text (case-insensitive)."},
                "buildId": {"type": "string", "description": "An app version id of this service (from zerops_events): read its build log."},
                "webServer": {"type": "boolean", "default": false, "description": "Read the web server's access and error lines (Nginx of static and PHP services) instead of the app's own output."}
            },
            "required": ["serviceHostname"],
            "additionalProperties": false
        }),
        json_text!({
            "type": "object",
            "properties": {
                "serviceHostname": {"type": "string"}, "source": {"type": "string"}, "since": {"type": "string"},
                "entries": {"type": "array", "items": {"type": "object", "properties": {
                    "timestamp": {"type": "string"}, "severity": {"type": "string"}, "container": {"type": "string"}, "message": {"type": "string"}
                }}},
                "hasMore": {"type": "boolean"}
            },
            "required": ["entries", "hasMore"]
        }),
        READ_ONLY_REMOTE,
        Arc::new(move |ctx| {
            let args = &ctx.arguments;
            let request = LogsRequest {
                service_hostname: string(args, "serviceHostname").unwrap_or_default(),
                severity: string(args, "severity"),
                since: string(args, "since"),
                limit: number(args, "limit").map_or(100, |n| n as usize),
                search: string(args, "search"),
                build_id: string(args, "buildId"),
                web_server: boolean(args, "webServer"),
            };
            let result = services
                .session()
                .and_then(|s| logs(&s, &request, std::time::SystemTime::now()));
            respond(
                result,
                Keep::Tail,
                "lower `limit`, narrow `since` or set `severity`/`search`",
            )
        }),
    )
}
