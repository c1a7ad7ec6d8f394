//! The real client: blocking HTTPS (rustls) through one shared `ureq` agent.
//!
//! Error bodies are read (status codes are not turned into transport errors), every
//! failure goes through the one mapping table in `errors`, and the token is sent only in
//! the `Authorization` header of API calls: never to the log backend, never into a
//! message or a log line.

use std::sync::Mutex;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::client::{Client, LogFetcher};
use super::errors::{ErrorCode, Failure, PlatformError, Subject, map_failure};
use super::types::{
    AppVersionEvent, AutoscalingParams, EnvVar, ImportResult, LogAccess, LogEntry, LogEntryWire,
    LogFetchParams, Process, ProcessEvent, Project, ServiceStack, UserInfo, UserInfoWire,
};

/// The API's path prefix.
const API_PREFIX: &str = "/api/rest/public";
/// The default region's API host.
pub const DEFAULT_API_HOST: &str = "api.app-prg1.zerops.io";
/// The largest body we read from the API or the log backend.
const MAX_BODY: u64 = 50 * 1024 * 1024;

/// Turns `ZEROPS_API_HOST` (a bare host, or a full `http(s)://` URL) into a base URL
/// without a trailing slash.
pub fn base_url(host: &str) -> String {
    let host = host.trim().trim_end_matches('/');
    let host = if host.is_empty() {
        DEFAULT_API_HOST
    } else {
        host
    };
    if host.starts_with("http://") || host.starts_with("https://") {
        host.to_owned()
    } else {
        format!("https://{host}")
    }
}

/// A client for one token.
pub struct ZeropsClient {
    agent: ureq::Agent,
    base: String,
    token: String,
    /// Cached after the first successful lookup only: a failed one is retried next time.
    client_id: Mutex<Option<String>>,
}

impl std::fmt::Debug for ZeropsClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZeropsClient")
            .field("base", &self.base)
            .field("token", &"***")
            .finish()
    }
}

/// Builds the shared HTTP agent.
pub fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .user_agent(format!("zcp/{}", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

enum Method {
    Get,
    Post,
    Put,
    Delete,
}

impl Method {
    fn as_str(&self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
        }
    }
}

impl ZeropsClient {
    /// A client for `api_host` (see [`base_url`]) with the default 30 s timeout.
    pub fn new(api_host: &str, token: &str) -> ZeropsClient {
        ZeropsClient::with_timeout(api_host, token, Duration::from_secs(30))
    }

    pub fn with_timeout(api_host: &str, token: &str, timeout: Duration) -> ZeropsClient {
        ZeropsClient {
            agent: agent(timeout),
            base: base_url(api_host),
            token: token.to_owned(),
            client_id: Mutex::new(None),
        }
    }

    /// One API call: method, path below the API prefix (ids already inserted), optional
    /// JSON body. `shown` is the path with ids replaced by placeholders, for messages.
    fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        shown: &str,
        body: Option<&Value>,
        subject: Subject,
    ) -> Result<T, PlatformError> {
        let url = format!("{}{API_PREFIX}{path}", self.base);
        let endpoint = format!("{} {shown}", method.as_str());
        let auth = format!("Bearer {}", self.token);
        crate::debug!("platform", "{endpoint}");
        let result = match method {
            Method::Get => self
                .agent
                .get(&url)
                .header("Authorization", &auth)
                .header("Content-Type", "application/json")
                .call(),
            Method::Post | Method::Put | Method::Delete => {
                let payload = body.map_or_else(|| "{}".to_owned(), Value::to_string);
                let builder = match method {
                    Method::Post => self.agent.post(&url),
                    Method::Put => self.agent.put(&url),
                    _ => self.agent.delete(&url).force_send_body(),
                };
                builder
                    .header("Authorization", &auth)
                    .content_type("application/json")
                    .send(payload)
            }
        };
        let mut response = result
            .map_err(|err| map_failure(transport_failure(&err, &self.token), subject, &endpoint))?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .read_to_string()
            .map_err(|err| map_failure(transport_failure(&err, &self.token), subject, &endpoint))?;
        if status >= 300 {
            return Err(map_failure(
                error_body(status, &text, retry_after),
                subject,
                &endpoint,
            ));
        }
        serde_json::from_str(&text)
            .map_err(|err| map_failure(Failure::Undecodable(err.to_string()), subject, &endpoint))
    }

    fn client_id(&self) -> Result<String, PlatformError> {
        if let Some(id) = self
            .client_id
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
        {
            return Ok(id);
        }
        let info = self.get_user_info()?;
        if info.client_id.is_empty() {
            return Err(PlatformError::new(
                ErrorCode::TokenNoProject,
                "The token's account belongs to no organisation (empty client list)",
            ));
        }
        Ok(info.client_id)
    }

    fn search<T: DeserializeOwned>(
        &self,
        entity: &str,
        filters: Value,
        limit: Option<usize>,
        subject: Subject,
    ) -> Result<Vec<T>, PlatformError> {
        let body = json!({
            "search": filters,
            "sort": [{"name": "created", "ascending": false}],
            "limit": limit,
            "offset": null,
            "text": null,
        });
        let path = format!("/{entity}/search");
        let envelope: SearchEnvelope<T> =
            self.call(Method::Post, &path, &path, Some(&body), subject)?;
        Ok(envelope.items.unwrap_or_default())
    }

    fn process_call(
        &self,
        method: Method,
        path: &str,
        shown: &str,
    ) -> Result<Process, PlatformError> {
        self.call(method, path, shown, None, Subject::Service)
    }
}

#[derive(serde::Deserialize)]
#[serde(bound(deserialize = "T: DeserializeOwned"))]
struct SearchEnvelope<T> {
    #[serde(default)]
    items: Option<Vec<T>>,
}

#[derive(serde::Deserialize)]
struct ProcessHolder {
    #[serde(default)]
    process: Option<Process>,
}

#[derive(serde::Deserialize)]
struct ProjectWithEnv {
    #[serde(
        default,
        rename = "envList",
        deserialize_with = "super::types::null_default"
    )]
    env_list: Vec<EnvVar>,
}

#[derive(serde::Deserialize)]
struct LogAccessWire {
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    expiration: Option<String>,
}

/// Reads the API's `{"error": {code, message, meta}}` body, or keeps the start of any
/// other body (a gateway's HTML page, say).
fn error_body(status: u16, text: &str, retry_after: Option<u64>) -> Failure {
    let parsed: Option<Value> = serde_json::from_str(text).ok();
    let error = parsed.as_ref().and_then(|v| v.get("error"));
    let field = |name: &str| {
        error
            .and_then(|e| e.get(name))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let raw_body = if error.is_none() && !text.trim().is_empty() {
        Some(text.chars().take(300).collect())
    } else {
        None
    };
    Failure::Status {
        status,
        api_code: field("code"),
        api_message: field("message"),
        api_meta: error
            .and_then(|e| e.get("meta"))
            .cloned()
            .filter(|m| !m.is_null()),
        retry_after_secs: retry_after,
        raw_body,
    }
}

/// Classifies a transport error, scrubbing the token from its text just in case.
fn transport_failure(err: &ureq::Error, token: &str) -> Failure {
    let text = scrub(&err.to_string(), token);
    match err {
        ureq::Error::Timeout(_) => Failure::Timeout,
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => Failure::Timeout,
        ureq::Error::HostNotFound
        | ureq::Error::ConnectionFailed
        | ureq::Error::Io(_)
        | ureq::Error::Tls(_)
        | ureq::Error::Protocol(_)
        | ureq::Error::BodyStalled => Failure::Network(text),
        ureq::Error::BodyExceedsLimit(_) => Failure::Undecodable(text),
        _ => Failure::Network(text),
    }
}

/// Removes a secret from a text meant for a message or a log.
pub fn scrub(text: &str, secret: &str) -> String {
    if secret.len() >= 4 {
        text.replace(secret, "***")
    } else {
        text.to_owned()
    }
}

impl Client for ZeropsClient {
    fn get_user_info(&self) -> Result<UserInfo, PlatformError> {
        let wire: UserInfoWire =
            self.call(Method::Get, "/user/info", "/user/info", None, Subject::Auth)?;
        let client_id = wire
            .client_user_list
            .first()
            .map(|c| c.client_id.clone())
            .unwrap_or_default();
        // A successful lookup (authentication makes one) also fills the client-id cache,
        // so the first search does not ask again.
        if !client_id.is_empty() {
            *self.client_id.lock().unwrap_or_else(|p| p.into_inner()) = Some(client_id.clone());
        }
        Ok(UserInfo {
            client_id,
            email: wire.email,
            full_name: wire.full_name,
        })
    }

    fn list_projects(&self, client_id: &str) -> Result<Vec<Project>, PlatformError> {
        self.search(
            "project",
            json!([{"name": "clientId", "operator": "eq", "value": client_id}]),
            None,
            Subject::Project,
        )
    }

    fn get_project(&self, project_id: &str) -> Result<Project, PlatformError> {
        self.call(
            Method::Get,
            &format!("/project/{project_id}"),
            "/project/{id}",
            None,
            Subject::Project,
        )
    }

    fn list_services(&self, _project_id: &str) -> Result<Vec<ServiceStack>, PlatformError> {
        let client_id = self.client_id()?;
        self.search(
            "service-stack",
            json!([{"name": "clientId", "operator": "eq", "value": client_id}]),
            None,
            Subject::Service,
        )
    }

    fn get_service(&self, service_id: &str) -> Result<ServiceStack, PlatformError> {
        self.call(
            Method::Get,
            &format!("/service-stack/{service_id}"),
            "/service-stack/{id}",
            None,
            Subject::Service,
        )
    }

    fn start_service(&self, service_id: &str) -> Result<Process, PlatformError> {
        self.process_call(
            Method::Put,
            &format!("/service-stack/{service_id}/start"),
            "/service-stack/{id}/start",
        )
    }

    fn stop_service(&self, service_id: &str) -> Result<Process, PlatformError> {
        self.process_call(
            Method::Put,
            &format!("/service-stack/{service_id}/stop"),
            "/service-stack/{id}/stop",
        )
    }

    fn restart_service(&self, service_id: &str) -> Result<Process, PlatformError> {
        self.process_call(
            Method::Put,
            &format!("/service-stack/{service_id}/restart"),
            "/service-stack/{id}/restart",
        )
    }

    fn set_autoscaling(
        &self,
        service_id: &str,
        params: &AutoscalingParams,
    ) -> Result<Option<Process>, PlatformError> {
        let body = serde_json::to_value(params).unwrap_or(Value::Null);
        let holder: ProcessHolder = self.call(
            Method::Put,
            &format!("/service-stack/{service_id}/autoscaling"),
            "/service-stack/{id}/autoscaling",
            Some(&body),
            Subject::Service,
        )?;
        Ok(holder.process)
    }

    fn get_service_env(&self, service_id: &str) -> Result<Vec<EnvVar>, PlatformError> {
        let envelope: SearchEnvelope<EnvVar> = self.call(
            Method::Get,
            &format!("/service-stack/{service_id}/env"),
            "/service-stack/{id}/env",
            None,
            Subject::Service,
        )?;
        Ok(envelope.items.unwrap_or_default())
    }

    fn set_service_env_file(
        &self,
        service_id: &str,
        content: &str,
    ) -> Result<Process, PlatformError> {
        self.call(
            Method::Put,
            &format!("/service-stack/{service_id}/user-data/env-file"),
            "/service-stack/{id}/user-data/env-file",
            Some(&json!({ "envFile": content })),
            Subject::Env,
        )
    }

    fn delete_user_data(&self, user_data_id: &str) -> Result<Process, PlatformError> {
        self.call(
            Method::Delete,
            &format!("/user-data/{user_data_id}"),
            "/user-data/{id}",
            None,
            Subject::Env,
        )
    }

    fn get_project_env(&self, project_id: &str) -> Result<Vec<EnvVar>, PlatformError> {
        let client_id = self.client_id()?;
        let projects: Vec<ProjectWithEnv> = self.search(
            "project",
            json!([
                {"name": "clientId", "operator": "eq", "value": client_id},
                {"name": "id", "operator": "eq", "value": project_id}
            ]),
            None,
            Subject::Project,
        )?;
        match projects.into_iter().next() {
            Some(project) => Ok(project.env_list),
            None => Err(PlatformError::new(
                ErrorCode::ServiceNotFound,
                format!("Project {project_id} was not found"),
            )
            .with_suggestion(
                "The token may have lost access to the project; check it in the Zerops GUI.",
            )),
        }
    }

    fn create_project_env(
        &self,
        project_id: &str,
        key: &str,
        content: &str,
        sensitive: bool,
    ) -> Result<Process, PlatformError> {
        self.call(
            Method::Post,
            &format!("/project/{project_id}/env"),
            "/project/{id}/env",
            Some(&json!({ "key": key, "content": content, "sensitive": sensitive })),
            Subject::Env,
        )
    }

    fn delete_project_env(&self, env_id: &str) -> Result<Process, PlatformError> {
        self.call(
            Method::Delete,
            &format!("/project-env/{env_id}"),
            "/project-env/{id}",
            None,
            Subject::Env,
        )
    }

    fn import_services(&self, project_id: &str, yaml: &str) -> Result<ImportResult, PlatformError> {
        self.call(
            Method::Post,
            &format!("/project/{project_id}/service-stack/import"),
            "/project/{id}/service-stack/import",
            Some(&json!({ "yaml": yaml, "recipeSource": null, "recipeSourceUrl": null })),
            Subject::Project,
        )
    }

    fn delete_service(&self, service_id: &str) -> Result<Process, PlatformError> {
        self.call(
            Method::Delete,
            &format!("/service-stack/{service_id}"),
            "/service-stack/{id}",
            None,
            Subject::Service,
        )
    }

    fn get_process(&self, process_id: &str) -> Result<Process, PlatformError> {
        self.call(
            Method::Get,
            &format!("/process/{process_id}"),
            "/process/{id}",
            None,
            Subject::Process,
        )
    }

    fn cancel_process(&self, process_id: &str) -> Result<Process, PlatformError> {
        self.call(
            Method::Put,
            &format!("/process/{process_id}/cancel"),
            "/process/{id}/cancel",
            None,
            Subject::Process,
        )
    }

    fn enable_subdomain_access(&self, service_id: &str) -> Result<Process, PlatformError> {
        self.process_call(
            Method::Put,
            &format!("/service-stack/{service_id}/enable-subdomain-access"),
            "/service-stack/{id}/enable-subdomain-access",
        )
    }

    fn disable_subdomain_access(&self, service_id: &str) -> Result<Process, PlatformError> {
        self.process_call(
            Method::Put,
            &format!("/service-stack/{service_id}/disable-subdomain-access"),
            "/service-stack/{id}/disable-subdomain-access",
        )
    }

    fn get_project_log(&self, project_id: &str) -> Result<LogAccess, PlatformError> {
        let wire: LogAccessWire = self.call(
            Method::Get,
            &format!("/project/{project_id}/log"),
            "/project/{id}/log",
            None,
            Subject::Project,
        )?;
        let url = wire.url.unwrap_or_default();
        if url.trim().is_empty() {
            return Err(PlatformError::new(
                ErrorCode::ApiError,
                "The log access answer carried no URL",
            ));
        }
        Ok(LogAccess {
            url: normalize_log_url(&url),
            expiration: wire.expiration,
        })
    }

    fn search_processes(
        &self,
        _project_id: &str,
        limit: usize,
    ) -> Result<Vec<ProcessEvent>, PlatformError> {
        let client_id = self.client_id()?;
        self.search(
            "process",
            json!([{"name": "clientId", "operator": "eq", "value": client_id}]),
            Some(limit),
            Subject::Process,
        )
    }

    fn search_app_versions(
        &self,
        _project_id: &str,
        limit: usize,
    ) -> Result<Vec<AppVersionEvent>, PlatformError> {
        let client_id = self.client_id()?;
        self.search(
            "app-version",
            json!([{"name": "clientId", "operator": "eq", "value": client_id}]),
            Some(limit),
            Subject::Service,
        )
    }
}

/// The access URL sometimes comes as `GET https://...` or without a scheme.
pub fn normalize_log_url(url: &str) -> String {
    let url = url.trim();
    let url = url.strip_prefix("GET ").map_or(url, str::trim);
    if url.starts_with("http://") || url.starts_with("https://") {
        url.to_owned()
    } else {
        format!("https://{url}")
    }
}

/// The log backend client. It sends no Authorization header: the URL carries its own
/// credential.
pub struct HttpLogFetcher {
    agent: ureq::Agent,
}

impl HttpLogFetcher {
    pub fn new(timeout: Duration) -> HttpLogFetcher {
        HttpLogFetcher {
            agent: agent(timeout),
        }
    }
}

/// The query the backend understands: `limit` (1–1000), newest first, and the filters
/// it honours. Never `tail`, `since` or `search` (unknown parameters make it scan
/// everything and time out).
pub fn log_query(params: &LogFetchParams) -> Vec<(&'static str, String)> {
    let mut query = vec![
        ("limit", params.limit.clamp(1, 1000).to_string()),
        ("desc", "1".to_owned()),
    ];
    if let Some(severity) = params.min_severity {
        query.push(("minimumSeverity", severity.min(7).to_string()));
    }
    if let Some(facility) = params.facility {
        query.push(("facility", facility.to_string()));
    }
    if let Some(service) = &params.service_id {
        query.push(("serviceStackId", service.clone()));
    }
    if let Some(tags) = &params.tags {
        query.push(("tags", tags.clone()));
    }
    if let Some(container) = &params.container_id {
        query.push(("containerId", container.clone()));
    }
    query
}

#[derive(serde::Deserialize)]
struct LogItems {
    #[serde(default, deserialize_with = "super::types::null_default")]
    items: Vec<LogEntryWire>,
}

impl LogFetcher for HttpLogFetcher {
    fn fetch_logs(
        &self,
        access: &LogAccess,
        params: &LogFetchParams,
    ) -> Result<Vec<LogEntry>, PlatformError> {
        let endpoint = "GET <log backend>";
        let mut request = self
            .agent
            .get(&access.url)
            .header("Content-Type", "application/json");
        for (key, value) in log_query(params) {
            request = request.query(key, value);
        }
        // The URL's query string is its credential: keep it out of every message.
        let secret = access.url.split_once('?').map_or("", |(_, q)| q).to_owned();
        let mut response = request.call().map_err(|err| {
            map_failure(transport_failure(&err, &secret), Subject::Other, endpoint)
        })?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .read_to_string()
            .map_err(|err| {
                map_failure(transport_failure(&err, &secret), Subject::Other, endpoint)
            })?;
        if status >= 300 {
            let mut err = map_failure(error_body(status, &text, None), Subject::Other, endpoint);
            if status == 401 || status == 403 {
                err.code = ErrorCode::ApiError;
                err.suggestion = "The log access expired; call zerops_logs again.".into();
            }
            return Err(err);
        }
        let items: LogItems = serde_json::from_str(&text).map_err(|e| {
            map_failure(
                Failure::Undecodable(e.to_string()),
                Subject::Other,
                endpoint,
            )
        })?;
        Ok(items.items.into_iter().map(LogEntry::from).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls() {
        assert_eq!(base_url(""), "https://api.app-prg1.zerops.io");
        assert_eq!(
            base_url("api.app-prg1.zerops.io/"),
            "https://api.app-prg1.zerops.io"
        );
        assert_eq!(base_url("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
        assert_eq!(base_url("https://x.example/"), "https://x.example");
    }

    #[test]
    fn log_urls_and_queries() {
        assert_eq!(
            normalize_log_url("GET https://logs.x/read?t=1"),
            "https://logs.x/read?t=1"
        );
        assert_eq!(
            normalize_log_url("logs.x/read?t=1"),
            "https://logs.x/read?t=1"
        );
        let query = log_query(&LogFetchParams {
            service_id: Some("s1".into()),
            limit: 50_000,
            min_severity: Some(3),
            facility: Some(16),
            ..Default::default()
        });
        let keys: Vec<&str> = query.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            keys,
            vec![
                "limit",
                "desc",
                "minimumSeverity",
                "facility",
                "serviceStackId"
            ]
        );
        assert_eq!(query[0].1, "1000");
        assert!(!keys.iter().any(|k| ["tail", "since", "search"].contains(k)));
    }

    #[test]
    fn error_bodies_are_read_or_kept_raw() {
        match error_body(
            400,
            r#"{"error":{"code":"x","message":"m","meta":[{"code":"a"}]}}"#,
            None,
        ) {
            Failure::Status {
                api_code,
                api_message,
                api_meta,
                raw_body,
                ..
            } => {
                assert_eq!(api_code.as_deref(), Some("x"));
                assert_eq!(api_message.as_deref(), Some("m"));
                assert!(api_meta.is_some());
                assert!(raw_body.is_none());
            }
            other => panic!("{other:?}"),
        }
        match error_body(502, "<html>Bad Gateway</html>", None) {
            Failure::Status {
                raw_body, api_code, ..
            } => {
                assert_eq!(raw_body.as_deref(), Some("<html>Bad Gateway</html>"));
                assert!(api_code.is_none());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_token_is_masked_in_debug_and_scrubbed_from_text() {
        let client = ZeropsClient::new("http://127.0.0.1:1", "sentinel-token-123");
        assert!(!format!("{client:?}").contains("sentinel-token-123"));
        assert_eq!(
            scrub("bad sentinel-token-123 here", "sentinel-token-123"),
            "bad *** here"
        );
    }
}
