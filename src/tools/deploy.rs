//! `zerops_deploy`: push a local directory with zcli and follow the build.

use std::sync::Arc;

use serde_json::Value;

use crate::mcp::Tool;
use crate::ops::deploy::{DeployRequest, Pusher, deploy};
use crate::ops::zcli::ZcliSearch;
use crate::platform::ErrorCode;

use super::common::{DeployBackend, Services, follow, number, string};
use super::output::{Keep, ToolError, success};
use super::spec::{DESTRUCTIVE, define};

pub fn tool(services: Arc<Services>) -> Tool {
    define(
        "zerops_deploy",
        "Deploy code",
        "Build and deploy a local directory to a service with zcli push, then follow the build until the new version is active or failed (build log attached on failure). \
workingDir must hold zerops.yml with a setup named after the service. Takes minutes; run one deploy at a time.",
        json_text!({
            "type": "object",
            "properties": {
                "workingDir": {"type": "string", "minLength": 1, "description": "Absolute path of the directory with the code and zerops.yml."},
                "serviceHostname": {"type": "string", "description": "The target service (or give serviceId)."},
                "serviceId": {"type": "string", "description": "The target service id (instead of serviceHostname)."},
                "setup": {"type": "string", "description": "zerops.yml setup to use when none is named after the service."},
                "timeoutSeconds": {"type": "integer", "minimum": 30, "maximum": 4200, "default": 4200, "description": "Give up after this long (default and max 4200: a build may take an hour, plus upload and deploy)."}
            },
            "required": ["workingDir"],
            "additionalProperties": false
        }),
        json_text!({
            "type": "object",
            "properties": {
                "status": {"type": "string"}, "serviceHostname": {"type": "string"}, "setup": {"type": "string"},
                "appVersionId": {"type": "string"}, "url": {"type": "string", "description": "the public subdomain URL, when it is on"}, "exitCode": {"type": ["integer", "null"]}, "outputTail": {"type": "string"},
                "warnings": {"type": "array"}
            },
            "required": ["status"]
        }),
        DESTRUCTIVE,
        Arc::new(move |ctx| {
            let args = &ctx.arguments;
            let request = DeployRequest {
                working_dir: string(args, "workingDir").unwrap_or_default(),
                service_hostname: string(args, "serviceHostname"),
                service_id: string(args, "serviceId"),
                setup: string(args, "setup"),
                timeout: number(args, "timeoutSeconds")
                    .map(|s| std::time::Duration::from_secs(s as u64)),
            };
            let pusher = match &services.deploy {
                DeployBackend::Zcli => Pusher::Zcli(ZcliSearch::from_env()),
                DeployBackend::Simulator(sim) => Pusher::Simulator(sim),
            };
            let mut follow = follow(ctx, services.poll);
            let result = services
                .session()
                .and_then(|s| deploy(&s, &request, &pusher, &mut follow));
            match result {
                Ok(value) => success(value, Keep::Head, ""),
                Err(err) if err.code == ErrorCode::DeployFailed => {
                    // The details (status, exit code, output, build log) sit beside the code.
                    let mut body = ToolError::new(
                        err.code.as_str(),
                        err.message.clone(),
                        err.suggestion.clone(),
                    );
                    if let Some(Value::Object(details)) = err.api_meta {
                        for (key, value) in details {
                            body = body.with(&key, value);
                        }
                    }
                    body.into_output()
                }
                Err(err) => ToolError::from(err).into_output(),
            }
        }),
    )
}
