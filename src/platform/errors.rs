//! The error codes zcp reports (the PRD's 29 plus five of ours), each with a stable string,
//! and the one table that maps HTTP statuses, API error codes and transport failures onto
//! them. The API's own code and field-level `meta` travel along, so an agent can see
//! exactly what the platform rejected.

use serde_json::Value;

/// Every code zcp reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    AuthRequired,
    AuthInvalidToken,
    AuthTokenExpired,
    AuthApiError,
    TokenNoProject,
    TokenMultiProject,
    ServiceNotFound,
    ServiceRequired,
    ConfirmRequired,
    FileNotFound,
    ZeropsYmlNotFound,
    InvalidZeropsYml,
    InvalidImportYml,
    ImportHasProject,
    InvalidScaling,
    InvalidParameter,
    InvalidEnvFormat,
    InvalidHostname,
    UnknownType,
    ProcessNotFound,
    ProcessAlreadyTerminal,
    PermissionDenied,
    ApiError,
    ApiTimeout,
    ApiRateLimited,
    NetworkError,
    InvalidUsage,
    SubdomainAlreadyEnabled,
    SubdomainAlreadyDisabled,
    /// `zcli` is not installed where zcp can find it.
    ZcliNotFound,
    /// A deploy ran but did not end with an active version.
    DeployFailed,
    /// A followed platform process ended FAILED (its failReason travels with the error).
    ProcessFailed,
    /// A followed platform process was canceled before it finished (by zerops_process, the
    /// GUI or another client): what was asked may not have happened.
    ProcessCanceled,
    /// Anything unexpected; still reported as JSON with a code.
    Unknown,
}

impl ErrorCode {
    /// All codes, for tests and documentation.
    pub const ALL: [ErrorCode; 34] = [
        ErrorCode::AuthRequired,
        ErrorCode::AuthInvalidToken,
        ErrorCode::AuthTokenExpired,
        ErrorCode::AuthApiError,
        ErrorCode::TokenNoProject,
        ErrorCode::TokenMultiProject,
        ErrorCode::ServiceNotFound,
        ErrorCode::ServiceRequired,
        ErrorCode::ConfirmRequired,
        ErrorCode::FileNotFound,
        ErrorCode::ZeropsYmlNotFound,
        ErrorCode::InvalidZeropsYml,
        ErrorCode::InvalidImportYml,
        ErrorCode::ImportHasProject,
        ErrorCode::InvalidScaling,
        ErrorCode::InvalidParameter,
        ErrorCode::InvalidEnvFormat,
        ErrorCode::InvalidHostname,
        ErrorCode::UnknownType,
        ErrorCode::ProcessNotFound,
        ErrorCode::ProcessAlreadyTerminal,
        ErrorCode::PermissionDenied,
        ErrorCode::ApiError,
        ErrorCode::ApiTimeout,
        ErrorCode::ApiRateLimited,
        ErrorCode::NetworkError,
        ErrorCode::InvalidUsage,
        ErrorCode::SubdomainAlreadyEnabled,
        ErrorCode::SubdomainAlreadyDisabled,
        ErrorCode::ZcliNotFound,
        ErrorCode::DeployFailed,
        ErrorCode::ProcessFailed,
        ErrorCode::ProcessCanceled,
        ErrorCode::Unknown,
    ];

    /// The stable wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::AuthRequired => "AUTH_REQUIRED",
            ErrorCode::AuthInvalidToken => "AUTH_INVALID_TOKEN",
            ErrorCode::AuthTokenExpired => "AUTH_TOKEN_EXPIRED",
            ErrorCode::AuthApiError => "AUTH_API_ERROR",
            ErrorCode::TokenNoProject => "TOKEN_NO_PROJECT",
            ErrorCode::TokenMultiProject => "TOKEN_MULTI_PROJECT",
            ErrorCode::ServiceNotFound => "SERVICE_NOT_FOUND",
            ErrorCode::ServiceRequired => "SERVICE_REQUIRED",
            ErrorCode::ConfirmRequired => "CONFIRM_REQUIRED",
            ErrorCode::FileNotFound => "FILE_NOT_FOUND",
            ErrorCode::ZeropsYmlNotFound => "ZEROPS_YML_NOT_FOUND",
            ErrorCode::InvalidZeropsYml => "INVALID_ZEROPS_YML",
            ErrorCode::InvalidImportYml => "INVALID_IMPORT_YML",
            ErrorCode::ImportHasProject => "IMPORT_HAS_PROJECT",
            ErrorCode::InvalidScaling => "INVALID_SCALING",
            ErrorCode::InvalidParameter => "INVALID_PARAMETER",
            ErrorCode::InvalidEnvFormat => "INVALID_ENV_FORMAT",
            ErrorCode::InvalidHostname => "INVALID_HOSTNAME",
            ErrorCode::UnknownType => "UNKNOWN_TYPE",
            ErrorCode::ProcessNotFound => "PROCESS_NOT_FOUND",
            ErrorCode::ProcessAlreadyTerminal => "PROCESS_ALREADY_TERMINAL",
            ErrorCode::PermissionDenied => "PERMISSION_DENIED",
            ErrorCode::ApiError => "API_ERROR",
            ErrorCode::ApiTimeout => "API_TIMEOUT",
            ErrorCode::ApiRateLimited => "API_RATE_LIMITED",
            ErrorCode::NetworkError => "NETWORK_ERROR",
            ErrorCode::InvalidUsage => "INVALID_USAGE",
            ErrorCode::SubdomainAlreadyEnabled => "SUBDOMAIN_ALREADY_ENABLED",
            ErrorCode::SubdomainAlreadyDisabled => "SUBDOMAIN_ALREADY_DISABLED",
            ErrorCode::ZcliNotFound => "ZCLI_NOT_FOUND",
            ErrorCode::DeployFailed => "DEPLOY_FAILED",
            ErrorCode::ProcessFailed => "PROCESS_FAILED",
            ErrorCode::ProcessCanceled => "PROCESS_CANCELED",
            ErrorCode::Unknown => "UNKNOWN",
        }
    }

    /// What an agent can do about it, when the call site has nothing more specific.
    pub fn default_suggestion(self) -> &'static str {
        match self {
            ErrorCode::AuthRequired => {
                "Set ZEROPS_TOKEN in the MCP server's env block of your client config (a Zerops personal access token, ideally limited to one project), or run `zcli login <token>` on this machine, then restart the MCP server."
            }
            ErrorCode::AuthInvalidToken => {
                "The token was rejected. Create a new personal access token in the Zerops GUI (Settings > Access Tokens) and put it in ZEROPS_TOKEN."
            }
            ErrorCode::AuthTokenExpired => {
                "The token is expired or revoked. Create a new access token in the Zerops GUI and either put it in ZEROPS_TOKEN and restart the MCP server, or run `zcli login <token>` (zcp picks a new zcli login up on its next call)."
            }
            ErrorCode::AuthApiError => {
                "Zerops could not verify the token right now. Retry in a moment; check the API host if it persists."
            }
            ErrorCode::TokenNoProject => {
                "The token sees no project. Give it access to the project (GUI > Settings > Access Tokens) or use a token created for that project."
            }
            ErrorCode::TokenMultiProject => {
                "zcp works with exactly one project. Use a token limited to one project, or run `zcli scope project <projectId>` when relying on zcli's login."
            }
            ErrorCode::ServiceNotFound => "Check the hostname with zerops_discover.",
            ErrorCode::ServiceRequired => {
                "Pass serviceHostname (see zerops_discover for the hostnames)."
            }
            ErrorCode::ConfirmRequired => {
                "Ask the user to approve, then call again with confirm: true."
            }
            ErrorCode::FileNotFound => {
                "Check the path; relative paths are resolved against the MCP server's working directory. Or pass the content inline."
            }
            ErrorCode::ZeropsYmlNotFound => {
                "Create zerops.yml (or zerops.yaml) in the working directory; zerops_knowledge has examples per runtime."
            }
            ErrorCode::InvalidZeropsYml => {
                "Run zerops_validate on the file and fix the reported findings."
            }
            ErrorCode::InvalidImportYml => {
                "Run zerops_validate on the YAML and fix the reported findings."
            }
            ErrorCode::ImportHasProject => {
                "Remove the project: section; zerops_import adds services to the current project. Set project env variables with zerops_env (project: true) instead."
            }
            ErrorCode::InvalidScaling => {
                "Fix the named scaling value; every min must be at most its max and values must be positive."
            }
            ErrorCode::InvalidParameter => "Fix the named parameter and call again.",
            ErrorCode::InvalidEnvFormat => {
                "Pass variables as KEY=value lines; keys use letters, digits and underscores."
            }
            ErrorCode::InvalidHostname => {
                "Use lowercase letters and digits only, starting with a letter, at most 40 characters (the docs recommend 25 or fewer)."
            }
            ErrorCode::UnknownType => {
                "Use a type and version from the catalog (zerops_knowledge query \"service types\")."
            }
            ErrorCode::ProcessNotFound => {
                "Check the process id; zerops_events lists recent processes."
            }
            ErrorCode::ProcessAlreadyTerminal => {
                "Nothing to cancel; check its result with zerops_process."
            }
            ErrorCode::PermissionDenied => {
                "The token lacks access to this resource or is read-only; use a token with full access to the project."
            }
            ErrorCode::ApiError => {
                "The Zerops API failed. Retry later; if it persists, check status.zerops.io."
            }
            ErrorCode::ApiTimeout => {
                "The Zerops API did not answer in time. Retry; for long work follow the process with zerops_process."
            }
            ErrorCode::ApiRateLimited => "Too many requests. Wait a little and retry.",
            ErrorCode::NetworkError => {
                "Cannot reach the Zerops API. Check the network and the API host (ZEROPS_API_HOST, or the region zcli logged in to)."
            }
            ErrorCode::InvalidUsage => "Check the parameters the tool description asks for.",
            ErrorCode::SubdomainAlreadyEnabled => {
                "Nothing to do: the subdomain is already enabled."
            }
            ErrorCode::SubdomainAlreadyDisabled => {
                "Nothing to do: the subdomain is already disabled."
            }
            ErrorCode::ZcliNotFound => {
                "Install zcli: `npm i -g @zerops/zcli`, or `curl -L https://zerops.io/zcli/install.sh | sh` (Linux/macOS), or `irm https://zerops.io/zcli/install.ps1 | iex` (Windows); then retry."
            }
            ErrorCode::DeployFailed => {
                "Read buildLog and outputTail, fix zerops.yml or the code, then deploy again."
            }
            ErrorCode::ProcessFailed => {
                "Read failReason, then zerops_logs and zerops_events for the service; fix the cause before retrying."
            }
            ErrorCode::ProcessCanceled => {
                "It may not have taken effect: check with zerops_discover, and run it again if it is still wanted."
            }
            ErrorCode::Unknown => "Retry; if it persists, report it with the error text.",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure from the platform layer (or raised locally with a platform code).
#[derive(Debug, Clone, PartialEq)]
pub struct PlatformError {
    pub code: ErrorCode,
    pub message: String,
    pub suggestion: String,
    /// The API's own error code (e.g. `projectEnvDuplicateKey`).
    pub api_code: Option<String>,
    /// The API's field-level details (`meta`).
    pub api_meta: Option<Value>,
    pub http_status: Option<u16>,
    pub retry_after_secs: Option<u64>,
    /// Why a process failed (its `publicMeta.failReason`).
    pub fail_reason: Option<String>,
    /// What the failed operation had done before it stopped, as members of the error's
    /// JSON (a half-applied change lists what changed and what was not sent).
    pub details: Option<serde_json::Map<String, Value>>,
}

impl PlatformError {
    /// A new error with the code's default suggestion.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> PlatformError {
        PlatformError {
            code,
            message: message.into(),
            suggestion: code.default_suggestion().to_owned(),
            api_code: None,
            api_meta: None,
            http_status: None,
            retry_after_secs: None,
            fail_reason: None,
            details: None,
        }
    }

    pub fn with_suggestion(mut self, suggestion: impl Into<String>) -> PlatformError {
        self.suggestion = suggestion.into();
        self
    }

    /// Whether retrying later may help (network trouble, timeouts, 5xx, rate limits), as
    /// opposed to a definitive answer (bad token, no project).
    pub fn is_transient(&self) -> bool {
        matches!(
            self.code,
            ErrorCode::NetworkError
                | ErrorCode::ApiTimeout
                | ErrorCode::ApiRateLimited
                | ErrorCode::AuthApiError
        ) || (self.code == ErrorCode::ApiError && self.http_status.is_none_or(|s| s >= 500))
    }
}

impl std::fmt::Display for PlatformError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for PlatformError {}

/// What kind of entity a call was about, to pick the right `*_NOT_FOUND`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    Process,
    Service,
    Project,
    Env,
    Auth,
    Other,
}

/// A failed HTTP exchange, as seen by the client, before mapping.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The server answered with a status of 300 or more.
    Status {
        status: u16,
        api_code: Option<String>,
        api_message: Option<String>,
        api_meta: Option<Value>,
        retry_after_secs: Option<u64>,
        /// Start of a body that was not the API's error JSON.
        raw_body: Option<String>,
    },
    /// No answer within the timeout.
    Timeout,
    /// DNS, connect, TLS or a reset connection.
    Network(String),
    /// A success status whose body could not be decoded.
    Undecodable(String),
}

/// Scaling refusals whose cause is not a wrong min/max pair (the INVALID_SCALING default).
fn scaling_advice(api_code: &str) -> Option<&'static str> {
    Some(match api_code {
        "lastCpuModeChangeTooRecent" => {
            "The CPU mode can change once an hour: leave cpuMode out now (the other scaling values can still change) and switch it later."
        }
        "verticalAutoscalingNotSupported" => {
            "This service type does not scale vertically: leave out the CPU, RAM and disk values."
        }
        code if code.contains("AutoscalingForbidden")
            || code.contains("FreeResourcesForbidden") =>
        {
            "This kind of service does not take these scaling values (apiCode names which); leave them out."
        }
        _ => return None,
    })
}

/// The mapping table: HTTP status + API error code + transport failure → our code.
/// `endpoint` names the call (`GET /service-stack/{id}`) for messages.
pub fn map_failure(failure: Failure, subject: Subject, endpoint: &str) -> PlatformError {
    match failure {
        Failure::Timeout => PlatformError::new(
            ErrorCode::ApiTimeout,
            format!("The Zerops API did not answer {endpoint} in time"),
        ),
        Failure::Network(detail) => PlatformError::new(
            ErrorCode::NetworkError,
            format!("Cannot reach the Zerops API for {endpoint}: {detail}"),
        ),
        Failure::Undecodable(detail) => PlatformError::new(
            ErrorCode::ApiError,
            format!("The Zerops API answered {endpoint} with a body zcp cannot read: {detail}"),
        ),
        Failure::Status {
            status,
            api_code,
            api_message,
            api_meta,
            retry_after_secs,
            raw_body,
        } => {
            let code = classify_status(status, api_code.as_deref(), subject);
            let detail = api_message
                .clone()
                .or_else(|| raw_body.clone())
                .unwrap_or_else(|| format!("HTTP {status}"));
            let mut message = format!("{endpoint} failed: {detail}");
            if let Some(api_code) = &api_code
                && !api_code.is_empty()
            {
                message.push_str(&format!(" ({api_code})"));
            }
            let mut err = PlatformError::new(code, message);
            if code == ErrorCode::ApiRateLimited
                && let Some(secs) = retry_after_secs
            {
                err.suggestion =
                    format!("Too many requests. Wait {secs} s (the API's Retry-After) and retry.");
            }
            if code == ErrorCode::ApiError && api_meta.is_some() {
                err.suggestion =
                    "The API rejected the request; apiMeta names the fields and reasons.".into();
            } else if code == ErrorCode::ApiError && (400..500).contains(&status) {
                // A refusal, not an outage: "retry later" would only repeat it.
                err.suggestion = "The API refused the request (error and apiCode say why): sent again unchanged it fails the same way, so change what they name.".into();
            }
            if let Some(advice) = api_code.as_deref().and_then(scaling_advice) {
                err.suggestion = advice.into();
            }
            if api_code.as_deref().is_some_and(is_env_race) {
                err.suggestion = "The variables changed while this call ran (another change at the same time): read them again with zerops_env get, then retry what is still needed. A key that zerops.yml sets (run.envVariables) cannot be set here at all: change it in zerops.yml and deploy.".into();
            }
            if api_code.as_deref().is_some_and(is_read_only_env) {
                err.suggestion = "This variable cannot be changed here: one that zerops.yml sets (run.envVariables) belongs to the deploy, so change it in zerops.yml and deploy again; one the platform generates cannot be changed at all.".into();
            }
            err.api_code = api_code.filter(|c| !c.is_empty());
            err.api_meta = api_meta.filter(|m| !m.is_null());
            err.http_status = Some(status);
            err.retry_after_secs = retry_after_secs;
            err
        }
    }
}

/// API codes of a service variable that is not the user's to change: since 2026-08 the
/// values of zerops.yml's `run.envVariables` are listed among the service's variables too,
/// read-only; platform-generated ones never were writable.
fn is_read_only_env(api_code: &str) -> bool {
    matches!(
        api_code,
        "recordIsReadOnly" | "userDataDeleteForbidden" | "userDataSystemKeyChangeForbidden"
    )
}

/// API codes of a variable that another change created or removed in the meantime.
fn is_env_race(api_code: &str) -> bool {
    matches!(
        api_code,
        "userDataDuplicateKey"
            | "projectEnvDuplicateKey"
            | "userDataNotFound"
            | "projectEnvNotFound"
    )
}

/// First matching row wins (spec zerops-api.md §3.4).
fn classify_status(status: u16, api_code: Option<&str>, subject: Subject) -> ErrorCode {
    let api = api_code.unwrap_or("");
    let has = |needle: &str| api.contains(needle);
    match status {
        401 if subject == Subject::Auth && api != "tokenExpired" => ErrorCode::AuthInvalidToken,
        401 => ErrorCode::AuthTokenExpired,
        403 => ErrorCode::PermissionDenied,
        429 => ErrorCode::ApiRateLimited,
        s if s >= 500 => ErrorCode::ApiError,
        404 if subject == Subject::Process => ErrorCode::ProcessNotFound,
        // A variable gone between reading and changing it: not a missing service.
        404 if is_env_race(api) => ErrorCode::ApiError,
        404 => ErrorCode::ServiceNotFound,
        _ if matches!(
            api,
            "processIsAlreadyOver" | "processAlreadyFinished" | "processCanNoLongerBeCanceled"
        ) =>
        {
            ErrorCode::ProcessAlreadyTerminal
        }
        _ if api == "serviceStackSubdomainAccessAlreadyDisabled" => {
            ErrorCode::SubdomainAlreadyDisabled
        }
        // A taken hostname too: the caller's to change, not an API failure.
        _ if matches!(
            api,
            "serviceStackNameInvalid" | "serviceStackNameUnavailable"
        ) =>
        {
            ErrorCode::InvalidHostname
        }
        _ if is_read_only_env(api) => ErrorCode::InvalidUsage,
        _ if matches!(
            api,
            "serviceStackTypeNotFound"
                | "serviceStackTypeVersionNotFound"
                | "projectImportInvalidTypeVersion"
        ) =>
        {
            ErrorCode::UnknownType
        }
        _ if api == "projectImportProjectIncluded" => ErrorCode::ImportHasProject,
        _ if api.starts_with("projectImport")
            || api.starts_with("yaml")
            || api == "unexpectedYamlEncoding" =>
        {
            ErrorCode::InvalidImportYml
        }
        _ if api.starts_with("zeropsYaml") => ErrorCode::InvalidZeropsYml,
        _ if api == "invalidCustomAutoscalingValue"
            || has("AutoscalingForbidden")
            || has("FreeResourcesForbidden")
            || api == "verticalAutoscalingNotSupported"
            || api == "lastCpuModeChangeTooRecent" =>
        {
            ErrorCode::InvalidScaling
        }
        _ if (api.starts_with("userData") && has("Invalid"))
            || (api.starts_with("projectEnv") && has("Invalid"))
            || has("InvalidEnvFile")
            || has("UseOfSystemKey")
            || api == "userDataZeropsPrefixForbidden" =>
        {
            ErrorCode::InvalidEnvFormat
        }
        _ if api.starts_with("invalidUserInput") => ErrorCode::InvalidParameter,
        _ => ErrorCode::ApiError,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn status(status: u16, api_code: Option<&str>) -> Failure {
        Failure::Status {
            status,
            api_code: api_code.map(str::to_owned),
            api_message: Some("message from the API".into()),
            api_meta: None,
            retry_after_secs: None,
            raw_body: None,
        }
    }

    #[test]
    fn every_code_has_a_distinct_string_and_a_suggestion() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "{code} twice");
            assert!(
                code.as_str()
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_')
            );
            assert!(!code.default_suggestion().is_empty());
        }
        assert_eq!(seen.len(), 34);
    }

    /// Scaling refusals that are not a min/max mistake get advice about their own cause.
    #[test]
    fn scaling_refusals_say_what_to_leave_out() {
        let advice = |code: &str| {
            map_failure(status(400, Some(code)), Subject::Service, "PUT /x").suggestion
        };
        assert!(advice("lastCpuModeChangeTooRecent").contains("once an hour"));
        assert!(advice("verticalAutoscalingNotSupported").contains("does not scale vertically"));
        assert!(
            advice("customVerticalAutoscalingForbiddenForThisStackCategory")
                .contains("leave them out")
        );
        assert!(advice("invalidCustomAutoscalingValue").contains("min must be at most its max"));
    }

    /// One case per row of the mapping table.
    #[test]
    fn mapping_table() {
        let cases: Vec<(Failure, Subject, ErrorCode)> = vec![
            (
                Failure::Network("connection refused".into()),
                Subject::Service,
                ErrorCode::NetworkError,
            ),
            (Failure::Timeout, Subject::Service, ErrorCode::ApiTimeout),
            (
                Failure::Undecodable("expected value".into()),
                Subject::Service,
                ErrorCode::ApiError,
            ),
            (
                status(401, None),
                Subject::Auth,
                ErrorCode::AuthInvalidToken,
            ),
            (
                status(401, Some("tokenExpired")),
                Subject::Auth,
                ErrorCode::AuthTokenExpired,
            ),
            (
                status(401, Some("notAuthorized")),
                Subject::Service,
                ErrorCode::AuthTokenExpired,
            ),
            (
                status(403, Some("insufficientPermissions")),
                Subject::Project,
                ErrorCode::PermissionDenied,
            ),
            (
                status(404, Some("processNotFound")),
                Subject::Process,
                ErrorCode::ProcessNotFound,
            ),
            // A variable another change removed or created in the meantime.
            (
                status(404, Some("userDataNotFound")),
                Subject::Env,
                ErrorCode::ApiError,
            ),
            (
                status(400, Some("projectEnvDuplicateKey")),
                Subject::Env,
                ErrorCode::ApiError,
            ),
            (
                status(404, Some("serviceStackNotFound")),
                Subject::Service,
                ErrorCode::ServiceNotFound,
            ),
            (
                status(404, Some("projectNotFound")),
                Subject::Project,
                ErrorCode::ServiceNotFound,
            ),
            (
                status(429, None),
                Subject::Service,
                ErrorCode::ApiRateLimited,
            ),
            (status(500, None), Subject::Service, ErrorCode::ApiError),
            (status(502, None), Subject::Process, ErrorCode::ApiError),
            (
                status(400, Some("processIsAlreadyOver")),
                Subject::Process,
                ErrorCode::ProcessAlreadyTerminal,
            ),
            (
                status(400, Some("processCanNoLongerBeCanceled")),
                Subject::Process,
                ErrorCode::ProcessAlreadyTerminal,
            ),
            (
                status(400, Some("serviceStackSubdomainAccessAlreadyDisabled")),
                Subject::Service,
                ErrorCode::SubdomainAlreadyDisabled,
            ),
            (
                status(400, Some("serviceStackNameInvalid")),
                Subject::Project,
                ErrorCode::InvalidHostname,
            ),
            (
                status(400, Some("serviceStackNameUnavailable")),
                Subject::Project,
                ErrorCode::InvalidHostname,
            ),
            (
                status(400, Some("serviceStackTypeNotFound")),
                Subject::Project,
                ErrorCode::UnknownType,
            ),
            (
                status(400, Some("projectImportInvalidTypeVersion")),
                Subject::Project,
                ErrorCode::UnknownType,
            ),
            (
                status(400, Some("projectImportProjectIncluded")),
                Subject::Project,
                ErrorCode::ImportHasProject,
            ),
            (
                status(400, Some("projectImportMissingParameter")),
                Subject::Project,
                ErrorCode::InvalidImportYml,
            ),
            (
                status(422, Some("yamlValidationInvalidYaml")),
                Subject::Project,
                ErrorCode::InvalidImportYml,
            ),
            (
                status(400, Some("zeropsYamlSetupNotFound")),
                Subject::Service,
                ErrorCode::InvalidZeropsYml,
            ),
            (
                status(400, Some("invalidCustomAutoscalingValue")),
                Subject::Service,
                ErrorCode::InvalidScaling,
            ),
            (
                status(
                    400,
                    Some("customVerticalAutoscalingForbiddenForThisStackCategory"),
                ),
                Subject::Service,
                ErrorCode::InvalidScaling,
            ),
            (
                status(400, Some("lastCpuModeChangeTooRecent")),
                Subject::Service,
                ErrorCode::InvalidScaling,
            ),
            (
                status(
                    400,
                    Some("customMinFreeResourcesForbiddenForThisStackCategory"),
                ),
                Subject::Service,
                ErrorCode::InvalidScaling,
            ),
            (
                status(400, Some("userDataKeyInvalid")),
                Subject::Env,
                ErrorCode::InvalidEnvFormat,
            ),
            (
                status(400, Some("projectEnvKeyInvalid")),
                Subject::Env,
                ErrorCode::InvalidEnvFormat,
            ),
            (
                status(400, Some("userDataZeropsPrefixForbidden")),
                Subject::Env,
                ErrorCode::InvalidEnvFormat,
            ),
            (
                status(400, Some("projectEnvUseOfSystemKey")),
                Subject::Env,
                ErrorCode::InvalidEnvFormat,
            ),
            (
                status(400, Some("invalidUserInputFoo")),
                Subject::Service,
                ErrorCode::InvalidParameter,
            ),
            (
                status(400, Some("projectEnvDuplicateKey")),
                Subject::Env,
                ErrorCode::ApiError,
            ),
            (status(409, None), Subject::Other, ErrorCode::ApiError),
        ];
        for (failure, subject, expected) in cases {
            let shown = format!("{failure:?}");
            let err = map_failure(failure, subject, "GET /x");
            assert_eq!(err.code, expected, "{shown}");
            assert!(err.message.contains("GET /x"), "{shown}: {}", err.message);
            if shown.contains("userDataNotFound") || shown.contains("DuplicateKey") {
                assert!(err.suggestion.contains("zerops_env get"), "{shown}");
            }
        }
    }

    #[test]
    fn api_details_and_retry_after_are_kept() {
        let err = map_failure(
            Failure::Status {
                status: 429,
                api_code: Some("tooManyRequests".into()),
                api_message: None,
                api_meta: None,
                retry_after_secs: Some(7),
                raw_body: None,
            },
            Subject::Service,
            "PUT /service-stack/a/start",
        );
        assert_eq!(err.retry_after_secs, Some(7));
        assert!(err.suggestion.contains("7 s"));
        let meta = json!([{"code": "projectImportInvalidParameter", "error": "x", "metadata": {"db.mode": ["bad"]}}]);
        let err = map_failure(
            Failure::Status {
                status: 400,
                api_code: Some("errorList".into()),
                api_message: Some("See metadata".into()),
                api_meta: Some(meta.clone()),
                retry_after_secs: None,
                raw_body: None,
            },
            Subject::Project,
            "POST /project/p/service-stack/import",
        );
        assert_eq!(err.api_meta, Some(meta));
        assert_eq!(err.api_code.as_deref(), Some("errorList"));
        assert_eq!(err.http_status, Some(400));
        // A refusal without meta is not advised to be retried; an outage still is.
        for (status, retry) in [(400, false), (409, false), (500, true), (503, true)] {
            let err = map_failure(
                Failure::Status {
                    status,
                    api_code: Some("somethingWrong".into()),
                    api_message: Some("no".into()),
                    api_meta: None,
                    retry_after_secs: None,
                    raw_body: None,
                },
                Subject::Project,
                "POST /project/p/x",
            );
            assert_eq!(err.code, ErrorCode::ApiError, "{status}");
            assert_eq!(err.suggestion.contains("Retry later"), retry, "{status}");
        }
    }

    /// A variable that zerops.yml or the platform owns: a usage error that says where to
    /// change it, not a bare API failure.
    #[test]
    fn read_only_variables_say_where_they_belong() {
        for (status, code) in [(400, "recordIsReadOnly"), (400, "userDataDeleteForbidden")] {
            let err = map_failure(
                Failure::Status {
                    status,
                    api_code: Some(code.into()),
                    api_message: Some("no".into()),
                    api_meta: None,
                    retry_after_secs: None,
                    raw_body: None,
                },
                Subject::Env,
                "PUT /user-data/{id}",
            );
            assert_eq!(err.code, ErrorCode::InvalidUsage, "{code}");
            assert!(err.suggestion.contains("zerops.yml"), "{}", err.suggestion);
            assert_eq!(err.api_code.as_deref(), Some(code));
        }
    }

    #[test]
    fn transient_errors_are_told_apart() {
        assert!(PlatformError::new(ErrorCode::NetworkError, "x").is_transient());
        let mut five = PlatformError::new(ErrorCode::ApiError, "x");
        five.http_status = Some(503);
        assert!(five.is_transient());
        five.http_status = Some(400);
        assert!(!five.is_transient());
        assert!(!PlatformError::new(ErrorCode::AuthInvalidToken, "x").is_transient());
        assert!(!PlatformError::new(ErrorCode::TokenMultiProject, "x").is_transient());
    }
}
