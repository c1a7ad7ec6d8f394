//! The log backend client. Logs live on a separate host reached through the signed URL
//! that `GET /project/{id}/log` hands out; the URL's query string is the credential, so
//! no Authorization header is sent and the URL never appears in a message.

use std::time::Duration;

use super::client::LogFetcher;
use super::errors::{ErrorCode, Failure, PlatformError, Subject, map_failure};
use super::http::{MAX_BODY, agent, error_body, transport_failure};
use super::types::{LogAccess, LogEntry, LogEntryWire, LogFetchParams};

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

/// Masks the log URL's query string in `text`, whole and each longer value on its own
/// (an echo may re-encode or reorder the parameters).
fn scrub_credential(text: &str, query: &str) -> String {
    let mut out = super::http::scrub(text, query);
    for value in query
        .split('&')
        .filter_map(|pair| pair.split_once('=').map(|p| p.1))
    {
        if value.len() >= 8 {
            out = super::http::scrub(&out, value);
        }
    }
    out
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
            // An error page may echo the request URL: its credential must not reach the
            // message built from the body.
            let text = scrub_credential(&text, &secret);
            let mut err = map_failure(
                error_body(status, &text, None, &secret),
                Subject::Other,
                endpoint,
            );
            // The service was found before its log access was granted: a refusal of the
            // signed address (expired, unknown) is the backend's, not a missing service,
            // and a new call fetches a fresh address. A 400 keeps its own mapping: the
            // same call would only be refused again.
            if matches!(status, 401 | 403 | 404 | 410) {
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
    fn an_echoed_credential_is_masked_whole_or_by_value() {
        let query = "accessToken=s3cr3tVALUE123&projectId=p1";
        let page = "bad request: GET /logs?projectId=p1&accessToken=s3cr3tVALUE123&limit=5";
        let masked = scrub_credential(page, query);
        assert!(!masked.contains("s3cr3tVALUE123"), "{masked}");
        assert!(
            masked.contains("projectId=p1"),
            "short values stay: {masked}"
        );
        assert_eq!(scrub_credential(&format!("x {query} y"), query), "x *** y");
    }

    #[test]
    fn queries_carry_only_what_the_backend_honours() {
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
        let all = log_query(&LogFetchParams {
            limit: 0,
            tags: Some("zbuilder@av1".into()),
            container_id: Some("c1".into()),
            min_severity: Some(12),
            ..Default::default()
        });
        assert_eq!(all[0], ("limit", "1".to_owned()));
        assert!(all.contains(&("minimumSeverity", "7".to_owned())));
        assert!(all.contains(&("tags", "zbuilder@av1".to_owned())));
        assert!(all.contains(&("containerId", "c1".to_owned())));
    }
}
