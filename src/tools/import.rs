//! `zerops_import`: create services from import YAML (validated first).

use std::sync::Arc;

use crate::mcp::Tool;
use crate::ops::import::{DeletionWait, dry_run, import, read_source};

use super::common::{Services, boolean, follow, respond, text};
use super::output::Keep;
use super::spec::{DESTRUCTIVE, define};

pub fn tool(services: Arc<Services>) -> Tool {
    define(
        "zerops_import",
        "Import services",
        "Create services in the current project from import.yml (content or filePath), validated first; a project: section is refused. \
override: true on a service re-imports an existing hostname (a runtime is redeployed). dryRun: true creates nothing; it also reports hostnames already taken. Reports every created service and per-service error, and follows the processes.",
        json_text!({
            "type": "object",
            "properties": {
                "content": {"type": "string", "description": "The import YAML (a services: list, no project:)."},
                "filePath": {"type": "string", "description": "Path of the import file, *.yml or *.yaml (instead of content)."},
                "dryRun": {"type": "boolean", "default": false, "description": "Validate only (plus, with a token, a check of existing hostnames); nothing is created."}
            },
            "additionalProperties": false
        }),
        json_text!({
            "type": "object",
            "properties": {
                "dryRun": {"type": "boolean"}, "valid": {"type": "boolean"},
                "services": {"type": "array"}, "processes": {"type": "array"},
                "summary": {"type": "string"}, "warnings": {"type": "array"},
                "hostnamesTaken": {"type": "array", "items": {"type": "string"}}, "note": {"type": "string"},
                "referenceWarnings": {"type": "array", "items": {"type": "string"}},
                "overrideWarnings": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["services"]
        }),
        DESTRUCTIVE,
        Arc::new(move |ctx| {
            let args = &ctx.arguments;
            let content = text(args, "content");
            let file = text(args, "filePath");
            let mut follow = follow(ctx, services.poll);
            let result =
                read_source(content.as_deref(), file.as_deref()).and_then(|(text, path)| {
                    if boolean(args, "dryRun") {
                        // Online when a token works: existing hostnames are compared too.
                        let session = services.session().ok();
                        dry_run(&text, path.as_deref(), session.as_deref())
                    } else {
                        let session = services.session()?;
                        import(
                            &session,
                            &text,
                            path.as_deref(),
                            &DeletionWait::default(),
                            &mut follow,
                        )
                    }
                });
            respond(result, Keep::Head, "")
        }),
    )
}
