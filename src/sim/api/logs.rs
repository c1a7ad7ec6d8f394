//! Log access (`GET /project/{id}/log`) and the log backend it points at.

use std::time::{Duration, SystemTime};

use crate::json;

use serde_json::Value;

use super::{Outcome, State, TokenScope, error, ok};
use crate::sim::http::{Request, Response};
use crate::sim::model::LogRec;
use crate::time::format_rfc3339;

impl State {
    pub(super) fn log_access(&mut self, scope: &TokenScope, project_id: &str) -> Outcome {
        self.project(scope, project_id)?;
        let token = self.new_id("logtok");
        self.log_tokens.insert(token.clone(), project_id.to_owned());
        let url = format!("{}/log/read?token={token}", self.base_url);
        let url = if self.config.log_url_with_method {
            format!("GET {url}")
        } else {
            url
        };
        let expiration = format_rfc3339(SystemTime::now() + Duration::from_secs(3600));
        Ok(ok(
            json!({ "accessToken": token, "expiration": expiration, "url": url, "urlInfo": null, "urlPlain": null }),
        ))
    }

    /// The log backend: `GET /log/read?token=...`.
    pub fn handle_logs(&mut self, req: &Request) -> Response {
        self.requests.push(format!(
            "GET /log/read?{}",
            req.query
                .iter()
                .filter(|(k, _)| k != "token")
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("&")
        ));
        let Some(project) = req
            .query_param("token")
            .and_then(|t| self.log_tokens.get(t))
            .cloned()
        else {
            return error(
                401,
                "notAuthorized",
                "Invalid log access token.",
                Value::Null,
            );
        };
        let limit: usize = req
            .query_param("limit")
            .and_then(|l| l.parse().ok())
            .unwrap_or(100);
        if limit > 1000 {
            return ok(json!({ "items": [] }));
        }
        let min_severity: Option<u8> = req
            .query_param("minimumSeverity")
            .and_then(|s| s.parse().ok());
        let facility: Option<u8> = req.query_param("facility").and_then(|s| s.parse().ok());
        let service = req.query_param("serviceStackId");
        let tags = req.query_param("tags");
        let container = req.query_param("containerId");
        // Lines stamped later (a build's coming steps) are not written yet.
        let now = super::now_text();
        let mut picked: Vec<&LogRec> = self
            .logs
            .iter()
            .filter(|l| l.project_id == project && l.timestamp <= now)
            .filter(|l| service.is_none_or(|s| l.service_id == s))
            .filter(|l| min_severity.is_none_or(|m| l.severity <= m))
            .filter(|l| facility.is_none_or(|f| l.facility == f))
            .filter(|l| tags.is_none_or(|t| t.split(',').any(|tag| tag == l.tag)))
            .filter(|l| container.is_none_or(|c| l.container_id == c))
            .collect();
        crate::order::sort_by(&mut picked, |a, b| a.timestamp.cmp(&b.timestamp));
        if req.query_param("desc") == Some("1") {
            picked.reverse();
        }
        picked.truncate(limit);
        ok(json!({ "items": picked.iter().map(|l| l.to_json()).collect::<Vec<_>>() }))
    }
}
