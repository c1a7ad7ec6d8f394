//! `zerops_env`: get, set or delete env variables of a service or the project.

use std::sync::Arc;

use crate::mcp::Tool;
use crate::ops::env::{delete, get, scope, set};

use super::common::{Services, boolean, follow, respond, string, strings};
use super::output::Keep;
use super::spec::{DESTRUCTIVE, define};

pub fn tool(services: Arc<Services>) -> Tool {
    define(
        "zerops_env",
        "Environment variables",
        "Get, set or delete env variables of a service (serviceHostname) or of the whole project (project: true). \
variables is a list: one KEY=value item per variable for set (a value may span lines; an item whose lines are all KEY=value counts as that many), bare keys for delete; set replaces existing keys. Running containers see changes only after zerops_manage restart.",
        json_text!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["get", "set", "delete"], "description": "What to do."},
                "serviceHostname": {"type": "string", "description": "The service whose variables to use."},
                "project": {"type": "boolean", "default": false, "description": "Use project-wide variables instead (wins over serviceHostname)."},
                "variables": {"type": "array", "items": {"type": "string"}, "description": "set: [\"KEY=value\", ...]; delete: [\"KEY\", ...]."},
                "sensitive": {"type": "boolean", "description": "set: store the values as sensitive (masked in the GUI, redacted for read-only tokens). Left out: a replaced variable keeps its flag, a new one is sensitive when its name looks secret (PASSWORD, TOKEN, SECRET, KEY, ...)."}
            },
            "required": ["action"],
            "additionalProperties": false
        }),
        json_text!({
            "type": "object",
            "properties": {
                "scope": {"type": "string"}, "serviceHostname": {"type": "string"},
                "vars": {"type": "array"}, "added": {"type": "array"}, "replaced": {"type": "array"},
                "removed": {"type": "array"}, "sensitive": {"type": "array", "description": "the keys set stored as sensitive"},
                "summary": {"type": "string", "description": "the change's processes counted by outcome"},
                "processes": {"type": "array", "description": "only the processes still running, in full"},
                "processIds": {"type": "array", "description": "every process id, when there are at most 10"},
                "warnings": {"type": "array", "description": "references to services the project does not have"},
                "nextAction": {"type": "string"}
            },
            "required": ["scope"]
        }),
        DESTRUCTIVE,
        Arc::new(move |ctx| {
            let args = &ctx.arguments;
            let action = string(args, "action").unwrap_or_default();
            let variables = strings(args, "variables");
            let mut follow = follow(ctx, services.poll);
            let result = scope(
                string(args, "serviceHostname").as_deref(),
                boolean(args, "project"),
            )
            .and_then(|scope| {
                let session = services.session()?;
                match action.as_str() {
                    "get" => get(&session, &scope),
                    "set" => {
                        let sensitive = args.get("sensitive").and_then(serde_json::Value::as_bool);
                        set(&session, &scope, &variables, sensitive, &mut follow)
                    }
                    _ => delete(&session, &scope, &variables, &mut follow),
                }
            });
            respond(
                result,
                Keep::Head,
                "zerops_discover with includeEnvs lists the keys without their values",
            )
        }),
    )
}
