//! What every Zerops tool shares: the services behind them (lazy authentication, polling
//! cadence, deploy backend), argument readers, the conversion of platform errors into the
//! `{code, error, suggestion}` JSON, and the progress bridge from `ops` to MCP.

use std::sync::Arc;

use crate::json;

use serde_json::Value;

use crate::auth::{Authenticator, Session};
use crate::mcp::{LogLevel, ToolContext, ToolOutput};
use crate::ops::follow::{Follow, LogBox, ProgressBox};
use crate::ops::manage::SCALING_ARGUMENTS;
use crate::ops::progress::PollConfig;
use crate::platform::PlatformError;
use crate::sim::SimHandle;

use super::output::{Keep, ToolError, success};

/// How `zerops_deploy` pushes code.
pub enum DeployBackend {
    /// Runs the real `zcli push`.
    Zcli,
    /// `--demo`: the simulator's fake build.
    Simulator(Arc<SimHandle>),
}

/// Everything the tools need, shared by all of them.
pub struct Services {
    pub auth: Authenticator,
    pub poll: PollConfig,
    pub deploy: DeployBackend,
}

impl Services {
    /// The authenticated session, or the precise AUTH_*/TOKEN_* error.
    pub fn session(&self) -> Result<Arc<Session>, PlatformError> {
        self.auth.session()
    }
}

impl From<PlatformError> for ToolError {
    fn from(err: PlatformError) -> ToolError {
        let mut out = ToolError::new(err.code.as_str(), err.message, err.suggestion);
        for (key, value) in err.details.into_iter().flatten() {
            out = out.with(&key, value);
        }
        out.with("apiCode", err.api_code.map_or(Value::Null, Value::String))
            .with("apiMeta", err.api_meta.unwrap_or(Value::Null))
            .with(
                "httpStatus",
                err.http_status.map_or(Value::Null, |s| json!(s)),
            )
            .with(
                "retryAfterSeconds",
                err.retry_after_secs.map_or(Value::Null, |s| json!(s)),
            )
            .with(
                "failReason",
                err.fail_reason.map_or(Value::Null, Value::String),
            )
    }
}

/// Shapes an op's result: JSON success (cut to size) or JSON error.
pub fn respond(result: Result<Value, PlatformError>, keep: Keep, hint: &str) -> ToolOutput {
    match result {
        Ok(value) => success(value, keep, hint),
        Err(err) => ToolError::from(err).into_output(),
    }
}

/// A follow that reports progress through the request's token (if it has one).
pub fn follow<'a>(ctx: &'a ToolContext, poll: PollConfig) -> Follow<'a> {
    let progress: Option<ProgressBox<'a>> = if ctx.progress.is_enabled() {
        let reporter = ctx.progress.clone();
        Some(Box::new(move |value: f64, total: f64, message: &str| {
            reporter.report(value, Some(total), Some(message));
        }))
    } else {
        None
    };
    // A long operation's own output (zcli's, during a deploy) as info log messages, for a
    // client that asked for them with logging/setLevel.
    let log: Option<LogBox<'a>> = ctx.log.may_log().then(|| {
        let sink = ctx.log.clone();
        Box::new(move |line: &str| {
            sink.log(LogLevel::Info, "zcli", Value::String(line.to_owned()));
        }) as LogBox<'a>
    });
    Follow::new(poll, &ctx.cancel, progress).with_log(log)
}

/// A string argument, trimmed; `None` when absent or empty.
pub fn string(args: &Value, name: &str) -> Option<String> {
    args.get(name)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// A string argument exactly as sent, blank included: YAML content keeps its leading lines
/// (findings count lines from the first), and a blank one is refused as such.
pub fn text(args: &Value, name: &str) -> Option<String> {
    args.get(name).and_then(Value::as_str).map(str::to_owned)
}

pub fn boolean(args: &Value, name: &str) -> bool {
    args.get(name).and_then(Value::as_bool).unwrap_or(false)
}

pub fn number(args: &Value, name: &str) -> Option<f64> {
    args.get(name).and_then(Value::as_f64)
}

/// A list of strings (the schema has already turned a lone string into a list).
pub fn strings(args: &Value, name: &str) -> Vec<String> {
    args.get(name)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

const GENERIC_FIX: &str = "Fix the named arguments and call again; the tool's input schema lists every parameter, its type and allowed values.";

/// Tool-argument failures as JSON, with the domain code where one fits.
pub fn argument_error(tool: &str, err: &crate::mcp::schema::ArgumentError) -> ToolOutput {
    let only = |names: &[&str]| {
        !err.fields.is_empty() && err.fields.iter().all(|f| names.contains(&f.as_str()))
    };
    let (code, suggestion) = if tool == "zerops_manage" && only(&SCALING_ARGUMENTS) {
        ("INVALID_SCALING", GENERIC_FIX)
    } else if only(&["serviceHostname"]) {
        // Missing or empty: the PRD's own code for "which service?".
        (
            "SERVICE_REQUIRED",
            "Pass serviceHostname as a string: the service's hostname as zerops_discover lists it.",
        )
    } else {
        ("INVALID_PARAMETER", GENERIC_FIX)
    };
    ToolError::new(
        code,
        format!("Invalid arguments for {tool}: {err}"),
        suggestion,
    )
    .into_output()
}
