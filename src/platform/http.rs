//! The real API client's transport: blocking HTTPS (rustls) through one shared `ureq`
//! agent. The 24 operations built on it are in `operations`; the log backend client is in
//! `logfetcher`.
//!
//! Error bodies are read (status codes are not turned into transport errors), every
//! failure goes through the one mapping table in `errors`, and the token is sent only in
//! the `Authorization` header of API calls: never to the log backend, never into a
//! message or a log line.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::json;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::client::Client;
use super::errors::{ErrorCode, Failure, PlatformError, Subject, map_failure};
use super::types::{Process, SearchPage};

/// The API's path prefix.
const API_PREFIX: &str = "/api/rest/public";
/// The default region's API host.
pub const DEFAULT_API_HOST: &str = "api.app-prg1.zerops.io";
/// The largest body we read from the API or the log backend.
pub(super) const MAX_BODY: u64 = 50 * 1024 * 1024;
/// Items asked for per page when a search is read whole.
const PAGE_SIZE: usize = 100;
/// Pages read at most by one whole search (10 000 items).
const MAX_PAGES: usize = 100;

/// Turns `ZEROPS_API_HOST` (a bare host, or a full `http(s)://` URL, the scheme in any
/// letter case, even with the API's own path `/api/rest/public` at its end) into a base URL
/// without a trailing slash. A `user:password@` before the host is dropped: the API takes
/// the token, and the base URL is shown in error messages.
pub fn base_url(host: &str) -> String {
    let mut host = host.trim().trim_end_matches('/');
    if host.len() >= API_PREFIX.len()
        && let Some(tail) = host.get(host.len() - API_PREFIX.len()..)
        && tail.eq_ignore_ascii_case(API_PREFIX)
    {
        host = host[..host.len() - API_PREFIX.len()].trim_end_matches('/');
    }
    if host.is_empty() {
        return format!("https://{DEFAULT_API_HOST}");
    }
    for scheme in ["http://", "https://"] {
        if let Some(head) = host.get(..scheme.len())
            && head.eq_ignore_ascii_case(scheme)
        {
            return format!("{scheme}{}", without_userinfo(&host[scheme.len()..]));
        }
    }
    format!("https://{}", without_userinfo(host))
}

/// `rest` (a URL after its scheme) without a `user:password@` before the host.
fn without_userinfo(rest: &str) -> &str {
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => &rest[at + 1..],
        None => rest,
    }
}

/// What makes a base URL from [`base_url`] unusable (`ftp://x` became `https://ftp://x`,
/// a port above 65535), so a failed call can blame the setting rather than the network.
fn base_url_problem(base: &str) -> Option<String> {
    let rest = base.split_once("://").map_or(base, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or("");
    // `[::1]:9` keeps its colons inside the brackets.
    let (host, port) = match authority.find(']') {
        Some(end) => (&authority[..=end], authority[end + 1..].strip_prefix(':')),
        None => match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    let host_chars = |c: char| c.is_ascii_alphanumeric() || "-._[]:".contains(c);
    if host.is_empty() || !host.chars().all(host_chars) {
        return Some(format!("`{authority}` is not a host name"));
    }
    if let Some(port) = port
        && port.parse::<u16>().map_or(true, |p| p == 0)
    {
        return Some(format!("`{port}` is not a port (1-65535)"));
    }
    None
}

/// A client for one token.
pub struct ZeropsClient {
    agent: ureq::Agent,
    base: String,
    token: String,
    /// Cached after the first successful lookup only: a failed one is retried next time.
    client_id: Mutex<Option<String>>,
    /// The API refused a `projectId` filter in a search once: process and app-version
    /// searches go by organisation only from then on (ops filter by project anyway).
    project_filter_refused: AtomicBool,
}

impl std::fmt::Debug for ZeropsClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZeropsClient")
            .field("base", &self.base)
            .field("token", &"***")
            .finish()
    }
}

/// Builds the shared HTTP agent. Names go through [`super::resolve::HostResolver`], which
/// in the static glibc build resolves them itself (no NSS modules needed at run time) and
/// elsewhere asks the operating system.
pub fn agent(timeout: Duration) -> ureq::Agent {
    let config = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .user_agent(format!("zcp/{}", env!("CARGO_PKG_VERSION")))
        .build();
    ureq::Agent::with_parts(
        config,
        ureq::unversioned::transport::DefaultConnector::new(),
        super::resolve::HostResolver,
    )
}

#[derive(Clone, Copy)]
pub(super) enum Method {
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
            project_filter_refused: AtomicBool::new(false),
        }
    }

    /// One API call: method, path below the API prefix (ids already inserted), optional
    /// JSON body. `shown` is the path with ids replaced by placeholders, for messages.
    pub(super) fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        shown: &str,
        body: Option<&Value>,
        subject: Subject,
    ) -> Result<T, PlatformError> {
        let text = self.call_text(method, path, shown, body, subject)?;
        serde_json::from_str(&text).map_err(|err| {
            self.lost(
                Failure::Undecodable(err.to_string()),
                method,
                path,
                shown,
                subject,
            )
        })
    }

    /// [`ZeropsClient::call`] up to the answer's text. Kept out of line: `call` is
    /// instantiated once per answer type, and only the decoding differs between them.
    #[inline(never)]
    fn call_text(
        &self,
        method: Method,
        path: &str,
        shown: &str,
        body: Option<&Value>,
        subject: Subject,
    ) -> Result<String, PlatformError> {
        check_path(path)?;
        let url = format!("{}{API_PREFIX}{path}", self.base);
        let endpoint = format!("{} {shown}", method.as_str());
        let auth = format!("Bearer {}", self.token);
        let started = std::time::Instant::now();
        crate::debug!("platform", "{endpoint} at {}", self.base);
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
        let lost = |failure: Failure| self.lost(failure, method, path, shown, subject);
        let mut response = result.map_err(|err| lost(transport_failure(&err, &self.token)))?;
        let status = response.status().as_u16();
        crate::debug!(
            "platform",
            "{endpoint}: HTTP {status} after {} ms",
            started.elapsed().as_millis()
        );
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
            .map_err(|err| lost(transport_failure(&err, &self.token)))?;
        if status >= 300 {
            return Err(map_failure(
                error_body(status, &text, retry_after, &self.token),
                subject,
                &endpoint,
            ));
        }
        Ok(text)
    }

    /// The error for a call whose answer was lost or unreadable: it names the host tried
    /// (a wrong ZEROPS_API_HOST or region shows here), blames a base URL that is no address,
    /// and for a request that changes something says it may have been carried out, instead
    /// of inviting a blind retry.
    #[inline(never)]
    fn lost(
        &self,
        failure: Failure,
        method: Method,
        path: &str,
        shown: &str,
        subject: Subject,
    ) -> PlatformError {
        let endpoint = format!("{} {shown}", method.as_str());
        let mut err = map_failure(failure, subject, &endpoint);
        err.message.push_str(&format!(" (API at {})", self.base));
        if let Some(problem) = base_url_problem(&self.base) {
            err.suggestion = format!(
                "ZEROPS_API_HOST does not name a usable API address: {problem}. Set it to a host such as {DEFAULT_API_HOST} (or an http(s):// URL), or leave it unset."
            );
            return err;
        }
        let changes = !matches!(method, Method::Get) && !path.ends_with("/search");
        if changes { maybe_applied(err) } else { err }
    }

    /// Stores a client id learnt from a successful user-info call.
    pub(super) fn remember_client_id(&self, client_id: &str) {
        *self.client_id.lock().unwrap_or_else(|p| p.into_inner()) = Some(client_id.to_owned());
    }

    pub(super) fn client_id(&self) -> Result<String, PlatformError> {
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

    /// The filters of a project's process or app-version search: the organisation, and the
    /// project too unless the API has refused that filter (its support is unverified live;
    /// it keeps a busy organisation's newest items from crowding ours out of the page).
    fn project_filters(&self, project_id: &str) -> Result<Value, PlatformError> {
        let client_id = self.client_id()?;
        let mut filters =
            vec![crate::json!({"name": "clientId", "operator": "eq", "value": client_id})];
        if !self.project_filter_refused.load(Ordering::Acquire) {
            filters
                .push(crate::json!({"name": "projectId", "operator": "eq", "value": project_id}));
        }
        Ok(Value::Array(filters))
    }

    /// Whether `err` answered a search that had the project filter with a 400: then the
    /// filter is given up (for good) and the search is to be sent again without it.
    fn refused_project_filter(&self, err: &PlatformError, filters: &Value) -> bool {
        let refused =
            err.http_status == Some(400) && filters.as_array().is_some_and(|f| f.len() > 1);
        if refused {
            crate::warn!(
                "api",
                "a search refused the projectId filter ({}); searching by organisation and filtering here",
                err.message
            );
            self.project_filter_refused.store(true, Ordering::Release);
        }
        refused
    }

    /// One page of a project's processes or app versions, narrowed by [`Self::project_filters`]
    /// and sent again without the project filter if the API refuses it.
    pub(super) fn search_in_project<T: DeserializeOwned>(
        &self,
        entity: &str,
        project_id: &str,
        limit: usize,
        offset: usize,
        subject: Subject,
    ) -> Result<SearchPage<T>, PlatformError> {
        let filters = self.project_filters(project_id)?;
        let envelope = match self.search_page(entity, &filters, limit, offset, subject) {
            Err(err) if self.refused_project_filter(&err, &filters) => {
                let filters = self.project_filters(project_id)?;
                self.search_page(entity, &filters, limit, offset, subject)
            }
            other => other,
        }?;
        let more = envelope.more_after(offset, limit);
        let items = envelope.items.unwrap_or_default();
        Ok(SearchPage { items, more })
    }

    /// The newest `limit` items of a search: one request.
    pub(super) fn search<T: DeserializeOwned>(
        &self,
        entity: &str,
        filters: Value,
        limit: usize,
        subject: Subject,
    ) -> Result<Vec<T>, PlatformError> {
        Ok(self
            .search_page(entity, &filters, limit, 0, subject)?
            .items
            .unwrap_or_default())
    }

    /// Every item of a search (projects, services), page by page. The API answers a search
    /// without a limit with one page of unknown size (§8 of the API notes), and services are
    /// searched by organisation, so one page could leave out services of our own project.
    /// Pages are read until one comes back short or brings nothing new, `totalHits` items
    /// are in, or [`MAX_PAGES`] pages were read; an item seen twice (the listing shifted while it was
    /// read) is kept once.
    pub(super) fn search_all<T: DeserializeOwned>(
        &self,
        entity: &str,
        filters: Value,
        subject: Subject,
        id_of: impl Fn(&T) -> &str,
    ) -> Result<Vec<T>, PlatformError> {
        let mut all: Vec<T> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut offset = 0;
        for _ in 0..MAX_PAGES {
            let envelope: SearchEnvelope<T> =
                self.search_page(entity, &filters, PAGE_SIZE, offset, subject)?;
            let short = !envelope.more_after(offset, PAGE_SIZE);
            let items = envelope.items.unwrap_or_default();
            // The next page starts after what came, not after what was asked for.
            offset += items.len();
            let before = all.len();
            for item in items {
                if seen.insert(id_of(&item).to_owned()) {
                    all.push(item);
                }
            }
            let complete = envelope
                .total_hits
                .is_some_and(|total| all.len() as u64 >= total);
            // A full page of items already seen: an API that ignored `offset` would send
            // the first page forever.
            let stuck = all.len() == before;
            if short || complete || stuck {
                return Ok(all);
            }
        }
        crate::warn!(
            "api",
            "{entity} search: stopped after {MAX_PAGES} pages ({} items); the rest is not listed",
            all.len()
        );
        Ok(all)
    }

    fn search_page<T: DeserializeOwned>(
        &self,
        entity: &str,
        filters: &Value,
        limit: usize,
        offset: usize,
        subject: Subject,
    ) -> Result<SearchEnvelope<T>, PlatformError> {
        let body = json!({
            "search": filters,
            "sort": [{"name": "created", "ascending": false}],
            "limit": limit,
            "offset": offset,
            "text": null,
        });
        let path = format!("/{entity}/search");
        self.call(Method::Post, &path, &path, Some(&body), subject)
    }

    pub(super) fn process_call(
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
pub(super) struct SearchEnvelope<T> {
    #[serde(default)]
    pub(super) items: Option<Vec<T>>,
    /// How many items match in all (absent from non-search answers that share the shape).
    #[serde(default, rename = "totalHits")]
    pub(super) total_hits: Option<u64>,
}

impl<T> SearchEnvelope<T> {
    /// Whether the search holds more after this page, read at `offset` with `limit` asked:
    /// `totalHits` decides when it is there (a server that caps its pages below `limit`
    /// must not look finished after one page), else a page as full as asked.
    pub(super) fn more_after(&self, offset: usize, limit: usize) -> bool {
        let got = self.items.as_ref().map_or(0, Vec::len);
        match self.total_hits {
            Some(total) => got > 0 && ((offset + got) as u64) < total,
            None => got >= limit,
        }
    }
}

/// Reads the API's `{"error": {code, message, meta}}` body, or keeps the start of any
/// other body (a gateway's HTML page, say). Everything kept reaches the agent, so `secret`
/// is scrubbed from it: from the raw text, and again from the decoded strings (JSON may
/// write a character of the secret as an escape).
pub(super) fn error_body(
    status: u16,
    text: &str,
    retry_after: Option<u64>,
    secret: &str,
) -> Failure {
    let text = &scrub(text, secret);
    let parsed: Option<Value> = serde_json::from_str::<Value>(text)
        .ok()
        .map(|value| scrub_value(value, secret));
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
pub(super) fn transport_failure(err: &ureq::Error, token: &str) -> Failure {
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

/// The advice for a change whose answer was lost (timeout, dropped connection, garbled
/// body): it may have happened, so look before doing it again.
fn maybe_applied(mut err: PlatformError) -> PlatformError {
    err.suggestion = "The request may have reached Zerops before its answer was lost: check zerops_events (or zerops_discover) before retrying, so nothing is done twice.".into();
    err
}

/// Removes a secret from a text meant for a message or a log.
pub fn scrub(text: &str, secret: &str) -> String {
    if secret.len() >= 4 {
        text.replace(secret, "***")
    } else {
        text.to_owned()
    }
}

/// [`scrub`] for every string in a JSON value, keys included.
fn scrub_value(value: Value, secret: &str) -> Value {
    match value {
        Value::String(text) => Value::String(scrub(&text, secret)),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| scrub_value(item, secret))
                .collect(),
        ),
        Value::Object(members) => Value::Object(
            members
                .into_iter()
                .map(|(key, member)| (scrub(&key, secret), scrub_value(member, secret)))
                .collect(),
        ),
        other => other,
    }
}

/// Ids from the model (processId, serviceId, ...) are put into URL paths. Each path
/// segment must be a plain id (letters, digits, `-`, `_`): no `..`, `/`, `?`, `#`, `%` or
/// spaces, so a crafted id cannot reach another endpoint (`x/../../service-stack/ID/stop`)
/// or add a query. Zerops ids and zcp's fixed path words all fit.
fn check_path(path: &str) -> Result<(), PlatformError> {
    let bad = path
        .strip_prefix('/')
        .unwrap_or(path)
        .split('/')
        .find(|segment| {
            segment.is_empty()
                || !segment
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    match bad {
        None => Ok(()),
        Some(_) => {
            let shown: String = path.chars().take(80).collect();
            Err(PlatformError::new(
                ErrorCode::InvalidParameter,
                format!("{shown:?} holds an id that is not a Zerops id"),
            )
            .with_suggestion(
                "Ids are letters, digits, '-' and '_'; take them from zerops_discover or zerops_events.",
            ))
        }
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
        assert_eq!(base_url("http://user:pw@127.0.0.1:9"), "http://127.0.0.1:9");
        assert_eq!(base_url("me@x.example/a@b"), "https://x.example/a@b");
        assert_eq!(base_url("https://x.example/"), "https://x.example");
        // The API's own path, a scheme in capitals, spaces: all come to the same base.
        assert_eq!(
            base_url(" HTTP://127.0.0.1:8080/api/rest/public/ "),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            base_url("api.app-prg1.zerops.io/API/REST/PUBLIC"),
            "https://api.app-prg1.zerops.io"
        );
        assert_eq!(
            base_url("/api/rest/public"),
            "https://api.app-prg1.zerops.io"
        );
    }

    #[test]
    fn unusable_api_addresses_are_named() {
        for good in [
            "api.app-prg1.zerops.io",
            "http://127.0.0.1:8080",
            "http://[::1]:9",
            "http://[::1]",
            "localhost",
        ] {
            assert_eq!(base_url_problem(&base_url(good)), None, "{good}");
        }
        for bad in [
            "ftp://x",
            "http://",
            "http://127.0.0.1:99999",
            "x.example:0",
            "a b",
        ] {
            assert!(base_url_problem(&base_url(bad)).is_some(), "{bad}");
        }
    }

    #[test]
    fn error_bodies_are_read_or_kept_raw() {
        match error_body(
            400,
            r#"{"error":{"code":"x","message":"m","meta":[{"code":"a"}]}}"#,
            None,
            "",
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
        match error_body(502, "<html>Bad Gateway</html>", None, "") {
            Failure::Status {
                raw_body, api_code, ..
            } => {
                assert_eq!(raw_body.as_deref(), Some("<html>Bad Gateway</html>"));
                assert!(api_code.is_none());
            }
            other => panic!("{other:?}"),
        }
    }

    /// An API (or a proxy before it) that echoes the request's token in its error: the
    /// message, the meta and the raw body reach the agent without it, also when the JSON
    /// writes one of its characters as an escape.
    #[test]
    fn error_bodies_never_carry_the_token() {
        let secret = "sec/ret-abc123";
        let echoing = r#"{"error":{"code":"echo","message":"you sent Bearer sec\/ret-abc123","meta":[{"auth":"Bearer sec/ret-abc123"}]}}"#;
        match error_body(400, echoing, None, secret) {
            Failure::Status {
                api_message,
                api_meta,
                ..
            } => {
                assert_eq!(api_message.as_deref(), Some("you sent Bearer ***"));
                assert_eq!(api_meta.unwrap().to_string(), r#"[{"auth":"Bearer ***"}]"#);
            }
            other => panic!("{other:?}"),
        }
        match error_body(500, "<p>token sec/ret-abc123</p>", None, secret) {
            Failure::Status { raw_body, .. } => {
                assert_eq!(raw_body.as_deref(), Some("<p>token ***</p>"));
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
