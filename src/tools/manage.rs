//! `zerops_manage`: start, stop, restart or scale a service.

use std::sync::Arc;

use crate::json;

use serde_json::Value;

use crate::mcp::Tool;
use crate::ops::manage::{Lifecycle, SCALING_ARGUMENTS, ScaleRequest, lifecycle, scale};
use crate::platform::PlatformError;

use super::common::{Services, follow, number, respond, string};
use super::output::Keep;
use super::spec::{DESTRUCTIVE, define};

pub fn tool(services: Arc<Services>) -> Tool {
    define(
        "zerops_manage",
        "Start, stop, restart or scale",
        "Start, stop or restart a service, or scale it (cpuMode, min/max CPU cores, RAM and disk in GB, min/max containers). \
Follows the platform process to its end. Restart after env changes so running containers see them.",
        // JSON text parsed at startup: far less code than the same value built by `json!`.
        json_text!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["start", "stop", "restart", "scale"], "description": "What to do."},
                "serviceHostname": {"type": "string", "minLength": 1, "description": "The service's hostname (see zerops_discover)."},
                "cpuMode": {"type": "string", "enum": ["SHARED", "DEDICATED"], "description": "scale: CPU mode (changeable once per hour)."},
                "minCpu": {"type": "integer", "minimum": 1, "description": "scale: minimum CPU cores."},
                "maxCpu": {"type": "integer", "minimum": 1, "description": "scale: maximum CPU cores."},
                "minRam": {"type": "number", "exclusiveMinimum": 0, "description": "scale: minimum RAM in GB."},
                "maxRam": {"type": "number", "exclusiveMinimum": 0, "description": "scale: maximum RAM in GB."},
                "minDisk": {"type": "number", "exclusiveMinimum": 0, "description": "scale: minimum disk in GB."},
                "maxDisk": {"type": "number", "exclusiveMinimum": 0, "description": "scale: maximum disk in GB."},
                "minContainers": {"type": "integer", "minimum": 1, "maximum": 10, "description": "scale: minimum containers (runtimes only)."},
                "maxContainers": {"type": "integer", "minimum": 1, "maximum": 10, "description": "scale: maximum containers (runtimes only)."},
                "startContainers": {"type": "integer", "minimum": 1, "maximum": 10, "description": "Not supported by the API (reported, never sent)."}
            },
            "required": ["action", "serviceHostname"],
            "additionalProperties": false
        }),
        json_text!({
            "type": "object",
            "properties": {
                "serviceHostname": {"type": "string"}, "serviceId": {"type": "string"},
                "process": {"type": "object"}, "message": {"type": "string"}, "status": {"type": "string"},
                "warnings": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["serviceHostname"]
        }),
        DESTRUCTIVE,
        Arc::new(move |ctx| {
            let args = &ctx.arguments;
            let hostname = string(args, "serviceHostname").unwrap_or_default();
            let action = string(args, "action").unwrap_or_default();
            let mut follow = follow(ctx, services.poll);
            // Scaling values beside start/stop/restart are ignored: say so, so the agent
            // does not take the call for a scale as well.
            let with_ignored = |result: Result<Value, PlatformError>| {
                let ignored: Vec<&str> = SCALING_ARGUMENTS
                    .iter()
                    .copied()
                    .filter(|field| args.get(*field).is_some_and(|v| !v.is_null()))
                    .collect();
                result.map(|mut value| {
                    if !ignored.is_empty() {
                        value["warnings"] = json!([format!(
                            "{} ignored: scaling values apply only with action \"scale\"",
                            ignored.join(", ")
                        )]);
                    }
                    value
                })
            };
            let result = services
                .session()
                .and_then(|session| match action.as_str() {
                    "start" => with_ignored(lifecycle(
                        &session,
                        &hostname,
                        Lifecycle::Start,
                        &mut follow,
                    )),
                    "stop" => {
                        with_ignored(lifecycle(&session, &hostname, Lifecycle::Stop, &mut follow))
                    }
                    "restart" => with_ignored(lifecycle(
                        &session,
                        &hostname,
                        Lifecycle::Restart,
                        &mut follow,
                    )),
                    _ => {
                        let request = ScaleRequest {
                            cpu_mode: string(args, "cpuMode"),
                            min_cpu: number(args, "minCpu"),
                            max_cpu: number(args, "maxCpu"),
                            min_ram: number(args, "minRam"),
                            max_ram: number(args, "maxRam"),
                            min_disk: number(args, "minDisk"),
                            max_disk: number(args, "maxDisk"),
                            min_containers: number(args, "minContainers"),
                            max_containers: number(args, "maxContainers"),
                            start_containers: number(args, "startContainers"),
                        };
                        scale(&session, &hostname, &request, &mut follow)
                    }
                });
            respond(result, Keep::Head, "")
        }),
    )
}
