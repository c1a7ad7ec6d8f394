//! Search endpoints (`POST /<entity>/search`): the required `search`/`sort` keys, `eq`
//! filters, paging in the Elasticsearch-style envelope, and the scoped-token leak switch.

use std::time::Instant;

use crate::json;

use serde_json::Value;

use super::{Outcome, State, TokenScope, error, ok};
use crate::sim::http::{Request, Response};
use crate::sim::model::{AppVersionRec, ProcessRec, ServiceRec};

/// A parsed search body: `eq` filters as `(field, value)`, limit and offset.
struct SearchQuery {
    filters: Vec<(String, String)>,
    limit: Option<usize>,
    offset: usize,
}

impl SearchQuery {
    /// Whether every `eq` filter names one of `fields` with the same value.
    fn matches(&self, fields: &[(&str, &str)]) -> bool {
        self.filters.iter().all(|(name, value)| {
            fields
                .iter()
                .any(|(field, actual)| field == name && actual == value)
        })
    }

    /// One page of `items` in the API's envelope (default limit 100).
    fn page(&self, items: Vec<Value>) -> Response {
        let limit = self.limit.unwrap_or(100);
        let total = items.len();
        let items: Vec<Value> = items.into_iter().skip(self.offset).take(limit).collect();
        ok(json!({ "limit": limit, "offset": self.offset, "totalHits": total, "items": items }))
    }
}

impl State {
    /// Checks the search body and returns `(filters, limit, offset)`.
    fn search_request(&self, req: &Request) -> Result<SearchQuery, Response> {
        let body = State::body(req)?;
        let (Some(search), Some(_sort)) = (
            body.get("search").and_then(Value::as_array),
            body.get("sort").and_then(Value::as_array),
        ) else {
            return Err(error(
                400,
                "invalidUserInput",
                "search and sort are required",
                json!([{"code": "invalidUserInput", "error": "missing", "metadata": {"search": ["required"], "sort": ["required"]}}]),
            ));
        };
        let mut filters = Vec::new();
        for item in search {
            let name = item.get("name").and_then(Value::as_str);
            let operator = item.get("operator").and_then(Value::as_str);
            let value = item.get("value").and_then(Value::as_str);
            match (name, operator, value) {
                (Some(n), Some("eq"), Some(v)) => filters.push((n.to_owned(), v.to_owned())),
                _ => {
                    return Err(error(
                        400,
                        "invalidUserInput",
                        "each search item needs name, operator eq and a string value",
                        Value::Null,
                    ));
                }
            }
        }
        let limit = body
            .get("limit")
            .and_then(Value::as_u64)
            .map(|l| usize::try_from(l).unwrap_or(usize::MAX));
        let limit = match self.search_page_cap {
            Some(cap) => Some(limit.unwrap_or(100).min(cap)),
            None => limit,
        };
        let offset = body
            .get("offset")
            .and_then(Value::as_u64)
            .map_or(0, |o| usize::try_from(o).unwrap_or(0));
        // The fault knob: an API that pages nothing and sends the first page every time.
        let offset = if self.search_ignores_offset {
            0
        } else {
            offset
        };
        Ok(SearchQuery {
            filters,
            limit,
            offset,
        })
    }

    fn visible(&self, scope: &TokenScope, project_id: &str) -> bool {
        self.search_leak || State::allowed(scope, project_id)
    }

    pub(super) fn search_projects(&self, req: &Request, scope: &TokenScope) -> Outcome {
        let query = self.search_request(req)?;
        let items = self
            .projects
            .iter()
            .filter(|p| State::allowed(scope, &p.id))
            .filter(|p| query.matches(&[("clientId", &p.client_id), ("id", &p.id)]))
            .map(|p| p.to_json(true))
            .collect();
        Ok(query.page(items))
    }

    pub(super) fn search_services(&self, req: &Request, scope: &TokenScope) -> Outcome {
        let query = self.search_request(req)?;
        let mut services: Vec<&ServiceRec> = self
            .services
            .iter()
            .filter(|s| self.visible(scope, &s.project_id))
            .filter(|s| {
                query.matches(&[
                    ("clientId", &s.client_id),
                    ("projectId", &s.project_id),
                    ("id", &s.id),
                ])
            })
            .collect();
        crate::order::sort_by(&mut services, |a, b| b.created.cmp(&a.created));
        Ok(query.page(services.into_iter().map(ServiceRec::search_json).collect()))
    }

    pub(super) fn search_processes(
        &self,
        req: &Request,
        scope: &TokenScope,
        now: Instant,
    ) -> Outcome {
        let query = self.search_request(req)?;
        let mut items: Vec<&ProcessRec> = self
            .processes
            .iter()
            .filter(|p| self.visible(scope, &p.project_id))
            .filter(|p| query.matches(&[("clientId", &p.client_id), ("projectId", &p.project_id)]))
            .collect();
        crate::order::sort_by(&mut items, |a, b| {
            b.created.cmp(&a.created).then(b.sequence.cmp(&a.sequence))
        });
        let values = items
            .iter()
            .map(|p| p.to_json(now, &self.project_name(&p.project_id)))
            .collect();
        Ok(query.page(values))
    }

    pub(super) fn search_app_versions(
        &self,
        req: &Request,
        scope: &TokenScope,
        now: Instant,
    ) -> Outcome {
        let query = self.search_request(req)?;
        let mut items: Vec<&AppVersionRec> = self
            .app_versions
            .iter()
            .filter(|v| self.visible(scope, &v.project_id))
            .filter(|v| {
                query.matches(&[
                    ("clientId", &v.client_id),
                    ("projectId", &v.project_id),
                    ("serviceStackId", &v.service_id),
                ])
            })
            .collect();
        crate::order::sort_by(&mut items, |a, b| {
            b.created.cmp(&a.created).then(b.sequence.cmp(&a.sequence))
        });
        Ok(query.page(items.iter().map(|v| v.to_json(now)).collect()))
    }
}
