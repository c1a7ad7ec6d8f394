//! `zerops_discover`: the project and its services.

use std::sync::Arc;

use crate::mcp::Tool;
use crate::ops::discover::{DiscoverRequest, discover};

use super::common::{Services, boolean, respond, string};
use super::output::{Keep, ToolError};
use super::spec::{READ_ONLY_REMOTE, define};

pub fn tool(services: Arc<Services>) -> Tool {
    define(
        "zerops_discover",
        "Discover project and services",
        "Show the Zerops project and its services: hostname, type and version, status, mode, ports, public subdomain URL, and for one service its scaling. \
Start here to learn the hostnames other tools need. Filter with serviceHostname; add includeEnvs for variable names (includeEnvValues for values).",
        json_text!({
            "type": "object",
            "properties": {
                "serviceHostname": {"type": "string", "description": "Only this service (exact hostname), with fresh details."},
                "service": {"type": "string", "description": "Same as serviceHostname (the original zcp's name for it)."},
                "includeEnvs": {"type": "boolean", "default": false, "description": "Also list env variable names per service and for the project."},
                "includeEnvValues": {"type": "boolean", "default": false, "description": "Also show the variables with their values (implies includeEnvs; may reveal secrets)."}
            },
            "additionalProperties": false
        }),
        json_text!({
            "type": "object",
            "properties": {
                "project": {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "status": {"type": "string"}}},
                "services": {"type": "array", "items": {"type": "object", "properties": {
                    "hostname": {"type": "string"}, "serviceId": {"type": "string"}, "type": {"type": "string"},
                    "status": {"type": "string"}, "mode": {"type": "string"}, "ports": {"type": "array"},
                    "subdomain": {"type": "object"}, "scaling": {"type": "object"}
                }}},
                "warnings": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["project", "services"]
        }),
        READ_ONLY_REMOTE,
        Arc::new(move |ctx| {
            let (named, alias) = (
                string(&ctx.arguments, "serviceHostname"),
                string(&ctx.arguments, "service"),
            );
            if let (Some(named), Some(alias)) = (&named, &alias)
                && named.trim() != alias.trim()
            {
                return ToolError::new(
                    "INVALID_USAGE",
                    format!(
                        "serviceHostname '{named}' and service '{alias}' name different services"
                    ),
                    "Pass only serviceHostname (service is its older name).",
                )
                .into_output();
            }
            let request = DiscoverRequest {
                service_hostname: named.or(alias),
                include_envs: boolean(&ctx.arguments, "includeEnvs"),
                include_env_values: boolean(&ctx.arguments, "includeEnvValues"),
            };
            let result = services.session().and_then(|s| discover(&s, &request));
            respond(
                result,
                Keep::Head,
                "filter with serviceHostname, drop includeEnvValues (names only), or leave out includeEnvs",
            )
        }),
    )
}
