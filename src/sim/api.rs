//! The simulator's REST endpoints: the same paths, methods, bodies and error shapes as
//! the Zerops API for the 24 operations zcp uses, the two that `zcli push` calls, and the
//! log backend. State changes follow the platform: mutations start processes whose
//! effects land when they finish.

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};

use super::catalog::{self, Category};
use super::faults::Rule;
use super::http::{Request, Response};
use super::model::{
    AppVersionRec, Effect, EnvRec, LogRec, PortRec, ProcessRec, ProjectRec, ServiceRec,
};
use crate::time::format_rfc3339;

/// Knobs that change the simulator's behaviour.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// How long a process takes from creation to its end.
    pub process_duration: Duration,
    /// How long a build pipeline takes.
    pub build_duration: Duration,
    /// An env-file PUT replaces all user variables instead of upserting the given ones.
    pub env_file_replaces: bool,
    /// A scaling update answers with a process (else `{"process": null}`).
    pub autoscaling_returns_process: bool,
    /// The log access URL comes as `"GET http://..."`, as older API versions sent it.
    pub log_url_with_method: bool,
    /// The next N subdomain enables are rejected with `noSubdomainPorts`.
    pub reject_subdomain_enables: u32,
    /// Builds started over HTTP (`PUT /app-version/{id}/build-and-deploy`, as `zcli push`
    /// does) fail with this reason; `None` lets them succeed.
    pub build_failure: Option<String>,
}

impl Default for SimConfig {
    fn default() -> SimConfig {
        SimConfig {
            process_duration: Duration::from_millis(300),
            build_duration: Duration::from_millis(600),
            env_file_replaces: false,
            autoscaling_returns_process: true,
            log_url_with_method: false,
            reject_subdomain_enables: 0,
            build_failure: None,
        }
    }
}

/// What a token may see.
#[derive(Debug, Clone, PartialEq)]
pub enum TokenScope {
    /// Every project of the client.
    All,
    /// Only these projects (a project-scoped token).
    Projects(Vec<String>),
    /// Revoked or expired: 401 `tokenExpired`.
    Expired,
}

/// The initial platform state.
#[derive(Debug, Clone, Default)]
pub struct Seed {
    pub client_id: String,
    pub user_email: String,
    pub user_name: String,
    pub tokens: Vec<(String, TokenScope)>,
    pub projects: Vec<ProjectRec>,
    pub services: Vec<ServiceRec>,
    pub processes: Vec<ProcessRec>,
    pub app_versions: Vec<AppVersionRec>,
    pub logs: Vec<LogRec>,
}

/// Everything the simulator knows.
pub struct State {
    pub config: SimConfig,
    pub client_id: String,
    pub user_email: String,
    pub user_name: String,
    pub tokens: HashMap<String, TokenScope>,
    pub projects: Vec<ProjectRec>,
    pub services: Vec<ServiceRec>,
    pub processes: Vec<ProcessRec>,
    pub app_versions: Vec<AppVersionRec>,
    pub logs: Vec<LogRec>,
    pub log_tokens: HashMap<String, String>,
    pub faults: Vec<Rule>,
    /// Search endpoints ignore the token's project scope (the live API bug).
    pub search_leak: bool,
    pub base_url: String,
    pub counter: u64,
    /// Every API request seen, as `METHOD /path` (for tests).
    pub requests: Vec<String>,
}

fn error(status: u16, code: &str, message: &str, meta: Value) -> Response {
    Response::json(
        status,
        &json!({ "error": { "code": code, "message": message, "meta": meta } }),
    )
}

fn ok(body: Value) -> Response {
    Response::json(200, &body)
}

fn now_text() -> String {
    format_rfc3339(SystemTime::now())
}

type Outcome = Result<Response, Response>;

/// A parsed search body: `eq` filters as `(field, value)`, limit and offset.
struct SearchQuery {
    filters: Vec<(String, String)>,
    limit: Option<usize>,
    offset: usize,
}

impl State {
    pub fn new(config: SimConfig, seed: Seed) -> State {
        State {
            config,
            client_id: seed.client_id,
            user_email: seed.user_email,
            user_name: seed.user_name,
            tokens: seed.tokens.into_iter().collect(),
            projects: seed.projects,
            services: seed.services,
            processes: seed.processes,
            app_versions: seed.app_versions,
            logs: seed.logs,
            log_tokens: HashMap::new(),
            faults: Vec::new(),
            search_leak: false,
            base_url: String::new(),
            counter: 1000,
            requests: Vec::new(),
        }
    }

    /// A fresh id, URL-safe and 22 characters long like the real ones.
    pub fn new_id(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!(
            "{prefix}{:0>width$}",
            self.counter,
            width = 22 - prefix.len()
        )
    }

    fn project_name(&self, id: &str) -> String {
        self.projects
            .iter()
            .find(|p| p.id == id)
            .map(|p| p.name.clone())
            .unwrap_or_default()
    }

    /// Applies the effects of processes that have finished by `now`.
    pub fn tick(&mut self, now: Instant) {
        let due: Vec<usize> = self
            .processes
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.applied && p.is_over(now))
            .map(|(i, _)| i)
            .collect();
        for index in due {
            self.processes[index].applied = true;
            let process = self.processes[index].clone();
            if process.canceled || process.failure.is_some() {
                continue;
            }
            match process.effect {
                Effect::None => {}
                Effect::SetStatus { service, status } => {
                    if let Some(s) = self.services.iter_mut().find(|s| s.id == service) {
                        s.status = status;
                    }
                }
                Effect::RemoveService { service } => self.services.retain(|s| s.id != service),
                Effect::Subdomain { service, enabled } => {
                    if let Some(s) = self.services.iter_mut().find(|s| s.id == service) {
                        s.subdomain_access = enabled;
                    }
                }
                Effect::ActivateVersion { version } => self.activate_version(&version),
            }
        }
    }

    fn activate_version(&mut self, version: &str) {
        let Some(service_id) = self
            .app_versions
            .iter()
            .find(|v| v.id == version)
            .map(|v| v.service_id.clone())
        else {
            return;
        };
        for v in self
            .app_versions
            .iter_mut()
            .filter(|v| v.service_id == service_id && v.id != version)
        {
            v.superseded = true;
            if v.fixed_status.as_deref() == Some("ACTIVE") {
                v.fixed_status = Some("BACKUP".into());
            }
        }
        if let Some(service) = self.services.iter_mut().find(|s| s.id == service_id) {
            service.status = "ACTIVE".into();
        }
    }

    /// Starts a process with the configured duration.
    pub fn start_process(
        &mut self,
        project_id: &str,
        action: &str,
        services: &[&str],
        effect: Effect,
        failure: Option<String>,
        duration: Duration,
    ) -> usize {
        let id = self.new_id("proc");
        let services = services
            .iter()
            .map(|sid| {
                let name = self
                    .services
                    .iter()
                    .find(|s| s.id == *sid)
                    .map(|s| s.name.clone())
                    .unwrap_or_default();
                ((*sid).to_owned(), name)
            })
            .collect();
        let sequence = i64::try_from(self.processes.len()).unwrap_or(0) + 1;
        self.processes.push(ProcessRec {
            id,
            client_id: self.client_id.clone(),
            project_id: project_id.to_owned(),
            action: action.to_owned(),
            services,
            started_at: Instant::now(),
            created: now_text(),
            duration,
            failure,
            effect,
            canceled: false,
            applied: false,
            created_by: self.user_name.clone(),
            sequence,
        });
        self.processes.len() - 1
    }

    fn process_json(&self, index: usize, now: Instant) -> Value {
        let p = &self.processes[index];
        p.to_json(now, &self.project_name(&p.project_id))
    }

    /// The projects a token may touch directly.
    fn scope(&self, req: &Request) -> Result<TokenScope, Response> {
        let token = req
            .header("authorization")
            .and_then(|h| h.strip_prefix("Bearer "))
            .map(str::trim)
            .unwrap_or("");
        match self.tokens.get(token) {
            Some(TokenScope::Expired) => Err(error(
                401,
                "tokenExpired",
                "The access token has expired.",
                Value::Null,
            )),
            Some(scope) => Ok(scope.clone()),
            None => Err(error(
                401,
                "notAuthorized",
                "Invalid or missing access token.",
                Value::Null,
            )),
        }
    }

    fn allowed(scope: &TokenScope, project_id: &str) -> bool {
        match scope {
            TokenScope::All => true,
            TokenScope::Projects(ids) => ids.iter().any(|id| id == project_id),
            TokenScope::Expired => false,
        }
    }

    fn project(&self, scope: &TokenScope, id: &str) -> Result<usize, Response> {
        let index = self
            .projects
            .iter()
            .position(|p| p.id == id)
            .ok_or_else(|| error(404, "projectNotFound", "Project not found.", Value::Null))?;
        if !State::allowed(scope, id) {
            return Err(error(
                403,
                "insufficientPermissions",
                "Insufficient permissions.",
                Value::Null,
            ));
        }
        Ok(index)
    }

    fn service(&self, scope: &TokenScope, id: &str) -> Result<usize, Response> {
        let index = self
            .services
            .iter()
            .position(|s| s.id == id)
            .ok_or_else(|| {
                error(
                    404,
                    "serviceStackNotFound",
                    "Service stack not found.",
                    Value::Null,
                )
            })?;
        if !State::allowed(scope, &self.services[index].project_id) {
            return Err(error(
                403,
                "insufficientPermissions",
                "Insufficient permissions.",
                Value::Null,
            ));
        }
        Ok(index)
    }

    /// Handles one API request (path below `/api/rest/public`).
    pub fn handle_api(&mut self, req: &Request, path: &str, now: Instant) -> Response {
        self.tick(now);
        self.requests.push(format!("{} {path}", req.method));
        match self.route(req, path, now) {
            Ok(response) | Err(response) => response,
        }
    }

    fn body(req: &Request) -> Result<Value, Response> {
        if req.body.is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_slice(&req.body).map_err(|e| {
            error(
                400,
                "invalidUserInput",
                &format!("Invalid JSON body: {e}"),
                Value::Null,
            )
        })
    }

    fn route(&mut self, req: &Request, path: &str, now: Instant) -> Outcome {
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        let scope = self.scope(req)?;
        let method = req.method.as_str();
        match (method, segments.as_slice()) {
            ("GET", ["user", "info"]) => Ok(self.user_info()),
            ("POST", ["project", "search"]) => self.search_projects(req, &scope),
            ("GET", ["project", id]) => {
                Ok(ok(self.projects[self.project(&scope, id)?].to_json(false)))
            }
            ("POST", ["service-stack", "search"]) => self.search_services(req, &scope),
            ("GET", ["service-stack", id]) => {
                Ok(ok(self.services[self.service(&scope, id)?].to_json()))
            }
            ("PUT", ["service-stack", id, action @ ("start" | "stop" | "restart")]) => {
                self.lifecycle(&scope, id, action, now)
            }
            ("PUT", ["service-stack", id, "autoscaling"]) => self.autoscaling(req, &scope, id, now),
            ("GET", ["service-stack", id, "env"]) => {
                let s = &self.services[self.service(&scope, id)?];
                Ok(ok(
                    json!({ "items": s.env.iter().map(|e| e.service_json(s)).collect::<Vec<_>>() }),
                ))
            }
            ("PUT", ["service-stack", id, "user-data", "env-file"]) => {
                self.env_file(req, &scope, id, now)
            }
            ("DELETE", ["user-data", id]) => self.delete_user_data(&scope, id, now),
            ("POST", ["project", id, "env"]) => self.create_project_env(req, &scope, id, now),
            ("DELETE", ["project-env", id]) => self.delete_project_env(&scope, id, now),
            ("POST", ["project", id, "service-stack", "import"]) => {
                self.import(req, &scope, id, now)
            }
            ("DELETE", ["service-stack", id]) => self.delete_service(&scope, id, now),
            ("GET", ["process", id]) => {
                let index = self.find_process(&scope, id)?;
                Ok(ok(self.process_json(index, now)))
            }
            ("PUT", ["process", id, "cancel"]) => self.cancel(&scope, id, now),
            (
                "PUT",
                [
                    "service-stack",
                    id,
                    toggle @ ("enable-subdomain-access" | "disable-subdomain-access"),
                ],
            ) => self.subdomain(&scope, id, *toggle == "enable-subdomain-access", now),
            ("GET", ["project", id, "log"]) => self.log_access(&scope, id),
            ("POST", ["process", "search"]) => self.search_processes(req, &scope, now),
            ("POST", ["app-version", "search"]) => self.search_app_versions(req, &scope, now),
            ("POST", ["service-stack", id, "app-version"]) => self.create_app_version(&scope, id),
            ("PUT", ["app-version", id, "build-and-deploy"]) => {
                let failure = self.config.build_failure.clone();
                self.build_and_deploy(&scope, id, failure, now)
            }
            _ => Err(error(
                404,
                "notFound",
                &format!("No route for {method} {path}"),
                Value::Null,
            )),
        }
    }

    fn user_info(&self) -> Response {
        ok(json!({
            "id": "user-demo", "email": self.user_email, "fullName": self.user_name,
            "firstName": self.user_name.split(' ').next(), "lastName": null, "status": "ACTIVE",
            "created": "2025-01-01T00:00:00.000000Z", "lastUpdate": "2025-01-01T00:00:00.000000Z",
            "avatar": null, "language": {"id": "en", "name": "English"}, "passwordIsSet": true, "totpIsSet": false,
            "clientUserList": [{
                "id": "cu-demo", "clientId": self.client_id, "userId": "user-demo", "status": "ACTIVE", "roleCode": "OWNER",
                "client": {"id": self.client_id, "accountName": "Demo account", "avatar": null}
            }]
        }))
    }

    /// Checks the search body and returns `(filters, limit, offset)`.
    fn search_request(req: &Request) -> Result<SearchQuery, Response> {
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
        let offset = body
            .get("offset")
            .and_then(Value::as_u64)
            .map_or(0, |o| usize::try_from(o).unwrap_or(0));
        Ok(SearchQuery {
            filters,
            limit,
            offset,
        })
    }

    fn visible(&self, scope: &TokenScope, project_id: &str) -> bool {
        self.search_leak || State::allowed(scope, project_id)
    }

    fn page(items: Vec<Value>, limit: Option<usize>, offset: usize) -> Response {
        let total = items.len();
        let items: Vec<Value> = items
            .into_iter()
            .skip(offset)
            .take(limit.unwrap_or(100))
            .collect();
        ok(
            json!({ "limit": limit.unwrap_or(100), "offset": offset, "totalHits": total, "items": items }),
        )
    }

    fn matches_filters(filters: &[(String, String)], fields: &[(&str, &str)]) -> bool {
        filters.iter().all(|(name, value)| {
            fields
                .iter()
                .any(|(field, actual)| field == name && actual == value)
        })
    }

    fn search_projects(&self, req: &Request, scope: &TokenScope) -> Outcome {
        let SearchQuery {
            filters,
            limit,
            offset,
        } = State::search_request(req)?;
        let items: Vec<Value> = self
            .projects
            .iter()
            .filter(|p| State::allowed(scope, &p.id))
            .filter(|p| {
                State::matches_filters(&filters, &[("clientId", &p.client_id), ("id", &p.id)])
            })
            .map(|p| p.to_json(true))
            .collect();
        Ok(State::page(items, limit, offset))
    }

    fn search_services(&self, req: &Request, scope: &TokenScope) -> Outcome {
        let SearchQuery {
            filters,
            limit,
            offset,
        } = State::search_request(req)?;
        let mut services: Vec<&ServiceRec> = self
            .services
            .iter()
            .filter(|s| self.visible(scope, &s.project_id))
            .filter(|s| {
                State::matches_filters(
                    &filters,
                    &[
                        ("clientId", &s.client_id),
                        ("projectId", &s.project_id),
                        ("id", &s.id),
                    ],
                )
            })
            .collect();
        services.sort_by(|a, b| b.created.cmp(&a.created));
        Ok(State::page(
            services.into_iter().map(ServiceRec::to_json).collect(),
            limit,
            offset,
        ))
    }

    fn lifecycle(&mut self, scope: &TokenScope, id: &str, action: &str, _now: Instant) -> Outcome {
        let index = self.service(scope, id)?;
        let project = self.services[index].project_id.clone();
        let (transition, end) = match action {
            "start" => ("STARTING", "ACTIVE"),
            "stop" => ("STOPPING", "STOPPED"),
            _ => ("RESTARTING", "ACTIVE"),
        };
        self.services[index].status = transition.into();
        let duration = self.config.process_duration;
        let p = self.start_process(
            &project,
            &format!("stack.{action}"),
            &[id],
            Effect::SetStatus {
                service: id.to_owned(),
                status: end.into(),
            },
            None,
            duration,
        );
        Ok(ok(self.process_json(p, Instant::now())))
    }

    fn autoscaling(
        &mut self,
        req: &Request,
        scope: &TokenScope,
        id: &str,
        now: Instant,
    ) -> Outcome {
        let index = self.service(scope, id)?;
        let body = State::body(req)?;
        let mode = body.get("mode").and_then(Value::as_str).unwrap_or("");
        if mode != self.services[index].mode {
            return Err(error(
                400,
                "serviceStackModeUpdateForbidden",
                "mode update forbidden",
                json!([{"code": "serviceStackModeUpdateForbidden", "error": "mode update forbidden", "metadata": {"mode": [format!("must stay {}", self.services[index].mode)]}}]),
            ));
        }
        let custom = body
            .get("customAutoscaling")
            .cloned()
            .unwrap_or(Value::Null);
        if self.services[index].category == Category::Managed.api_name()
            && custom
                .get("horizontalAutoscaling")
                .is_some_and(|h| !h.is_null())
        {
            return Err(error(
                400,
                "customHorizontalAutoscalingForbiddenForThisStackCategory",
                "Horizontal scaling is not available for this service type.",
                Value::Null,
            ));
        }
        merge(&mut self.services[index].autoscaling, &custom);
        if !self.config.autoscaling_returns_process {
            return Ok(ok(json!({ "process": null })));
        }
        let project = self.services[index].project_id.clone();
        let duration = self.config.process_duration;
        let p = self.start_process(
            &project,
            "stack.updateAutoscaling",
            &[id],
            Effect::None,
            None,
            duration,
        );
        Ok(ok(json!({ "process": self.process_json(p, now) })))
    }

    fn env_file(&mut self, req: &Request, scope: &TokenScope, id: &str, now: Instant) -> Outcome {
        let index = self.service(scope, id)?;
        let body = State::body(req)?;
        let Some(file) = body.get("envFile").and_then(Value::as_str) else {
            return Err(error(
                400,
                "userDataInvalidEnvFile",
                "envFile is required",
                Value::Null,
            ));
        };
        let mut pairs = Vec::new();
        for (n, line) in file.lines().enumerate() {
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                return Err(error(
                    400,
                    "userDataInvalidEnvFile",
                    &format!("line {} is not KEY=value", n + 1),
                    Value::Null,
                ));
            };
            if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(error(
                    400,
                    "userDataKeyInvalid",
                    &format!("invalid key {key:?}"),
                    Value::Null,
                ));
            }
            if key.to_ascii_uppercase().starts_with("ZEROPS_") {
                return Err(error(
                    400,
                    "userDataZeropsPrefixForbidden",
                    "keys must not start with ZEROPS_",
                    Value::Null,
                ));
            }
            pairs.push((key.to_owned(), value.to_owned()));
        }
        // Refuse before changing anything: a rejected file leaves the variables as they were.
        if let Some(system) = pairs.iter().find(|(key, _)| {
            self.services[index]
                .env
                .iter()
                .any(|e| &e.key == key && e.kind == "READ_ONLY")
        }) {
            return Err(error(
                400,
                "userDataSystemKeyChangeForbidden",
                &format!("{} is a system variable", system.0),
                Value::Null,
            ));
        }
        if self.config.env_file_replaces {
            self.services[index].env.retain(|e| e.kind != "SECRET");
        }
        for (key, value) in pairs {
            let new_id = self.new_id("ud");
            let env = &mut self.services[index].env;
            match env.iter_mut().find(|e| e.key == key) {
                Some(existing) if existing.kind == "READ_ONLY" => {
                    return Err(error(
                        400,
                        "userDataSystemKeyChangeForbidden",
                        &format!("{key} is a system variable"),
                        Value::Null,
                    ));
                }
                Some(existing) => existing.content = value,
                None => env.push(EnvRec {
                    id: new_id,
                    key,
                    content: value,
                    kind: "SECRET".into(),
                    sensitive: false,
                }),
            }
        }
        let project = self.services[index].project_id.clone();
        let duration = self.config.process_duration;
        let p = self.start_process(
            &project,
            "stack.userDataFile",
            &[id],
            Effect::None,
            None,
            duration,
        );
        Ok(ok(self.process_json(p, now)))
    }

    fn delete_user_data(&mut self, scope: &TokenScope, id: &str, now: Instant) -> Outcome {
        let found = self
            .services
            .iter()
            .position(|s| s.env.iter().any(|e| e.id == id));
        let Some(index) = found else {
            return Err(error(
                404,
                "userDataNotFound",
                "User data not found.",
                Value::Null,
            ));
        };
        if !State::allowed(scope, &self.services[index].project_id) {
            return Err(error(
                403,
                "insufficientPermissions",
                "Insufficient permissions.",
                Value::Null,
            ));
        }
        if self.services[index]
            .env
            .iter()
            .any(|e| e.id == id && e.kind == "READ_ONLY")
        {
            return Err(error(
                400,
                "userDataDeleteForbidden",
                "System variables cannot be deleted.",
                Value::Null,
            ));
        }
        self.services[index].env.retain(|e| e.id != id);
        let (project, service) = (
            self.services[index].project_id.clone(),
            self.services[index].id.clone(),
        );
        let duration = self.config.process_duration;
        let p = self.start_process(
            &project,
            "stack.userDataDelete",
            &[&service],
            Effect::None,
            None,
            duration,
        );
        Ok(ok(self.process_json(p, now)))
    }

    fn create_project_env(
        &mut self,
        req: &Request,
        scope: &TokenScope,
        id: &str,
        now: Instant,
    ) -> Outcome {
        let index = self.project(scope, id)?;
        let body = State::body(req)?;
        let key = body
            .get("key")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let content = body
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(error(
                400,
                "projectEnvKeyInvalid",
                &format!("invalid key {key:?}"),
                Value::Null,
            ));
        }
        if self.projects[index].env.iter().any(|e| e.key == key) {
            return Err(error(
                400,
                "projectEnvDuplicateKey",
                &format!("Project env {key} already exists."),
                Value::Null,
            ));
        }
        let env_id = self.new_id("penv");
        let sensitive = body
            .get("sensitive")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        self.projects[index].env.push(EnvRec {
            id: env_id,
            key,
            content,
            kind: "USER".into(),
            sensitive,
        });
        let duration = self.config.process_duration;
        let p = self.start_process(id, "project.envCreate", &[], Effect::None, None, duration);
        Ok(ok(self.process_json(p, now)))
    }

    fn delete_project_env(&mut self, scope: &TokenScope, id: &str, now: Instant) -> Outcome {
        let Some(index) = self
            .projects
            .iter()
            .position(|p| p.env.iter().any(|e| e.id == id))
        else {
            return Err(error(
                404,
                "projectEnvNotFound",
                "Project env not found.",
                Value::Null,
            ));
        };
        let project_id = self.projects[index].id.clone();
        self.project(scope, &project_id)?;
        self.projects[index].env.retain(|e| e.id != id);
        let duration = self.config.process_duration;
        let p = self.start_process(
            &project_id,
            "project.envDelete",
            &[],
            Effect::None,
            None,
            duration,
        );
        Ok(ok(self.process_json(p, now)))
    }

    fn import(
        &mut self,
        req: &Request,
        scope: &TokenScope,
        project_id: &str,
        now: Instant,
    ) -> Outcome {
        self.project(scope, project_id)?;
        let body = State::body(req)?;
        let yaml_text = body.get("yaml").and_then(Value::as_str).unwrap_or("");
        let doc = crate::yaml::parse(yaml_text)
            .map_err(|e| {
                error(
                    400,
                    "projectImportInvalidYaml",
                    &format!("Invalid YAML: {e}"),
                    Value::Null,
                )
            })?
            .to_json();
        if doc.get("project").is_some() {
            return Err(error(
                400,
                "projectImportProjectIncluded",
                "The import must not contain a project section.",
                Value::Null,
            ));
        }
        let Some(services) = doc.get("services").and_then(Value::as_array) else {
            return Err(error(
                400,
                "projectImportMissingParameter",
                "Missing parameter.",
                json!([{"code": "projectImportMissingParameter", "error": "Missing parameter.", "metadata": {"parameter": ["services"]}}]),
            ));
        };
        // Whole-request validation first, as the platform does.
        let mut plans = Vec::new();
        for service in services {
            let host = service
                .get("hostname")
                .and_then(Value::as_str)
                .unwrap_or("");
            let valid_host = host.len() <= 40
                && host.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && host
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
            if !valid_host {
                return Err(error(
                    400,
                    "serviceStackNameInvalid",
                    &format!("Invalid service stack name {host:?}."),
                    Value::Null,
                ));
            }
            let type_name = service.get("type").and_then(Value::as_str).unwrap_or("");
            let Some(resolved) = catalog::resolve(type_name) else {
                return Err(error(
                    400,
                    "serviceStackTypeNotFound",
                    "Service stack type not found.",
                    json!([{"code": "serviceStackTypeNotFound", "error": "Service stack type not found.", "metadata": {"serviceStackTypeVersion": [type_name]}}]),
                ));
            };
            let mode = service.get("mode").and_then(Value::as_str);
            let mode = match (resolved.entry.category, mode, resolved.implied_mode) {
                (Category::ObjectStorage, Some(_), _) => {
                    return Err(error(
                        400,
                        "projectImportInvalidParameter",
                        "Invalid parameter provided.",
                        json!([{"code": "projectImportInvalidParameter", "error": "Invalid parameter provided.", "metadata": {format!("{host}.mode"): ["mode not supported"]}}]),
                    ));
                }
                (_, Some(m), _) if m != "HA" && m != "NON_HA" => {
                    return Err(error(
                        400,
                        "projectImportInvalidParameter",
                        "Invalid parameter provided.",
                        json!([{"code": "projectImportInvalidParameter", "error": "Invalid parameter provided.", "metadata": {format!("{host}.mode"): [format!("Allowed values: [HA, NON_HA], {m} given.")]}}]),
                    ));
                }
                (Category::Managed | Category::SharedStorage, None, None) => {
                    return Err(error(
                        400,
                        "projectImportMissingParameter",
                        "Missing parameter.",
                        json!([{"code": "projectImportMissingParameter", "error": "Missing parameter.", "metadata": {"parameter": [format!("{host}.mode")]}}]),
                    ));
                }
                (_, Some(m), _) => m.to_owned(),
                (_, None, Some(implied)) => implied.to_owned(),
                (_, None, None) => "NON_HA".to_owned(),
            };
            plans.push((service.clone(), host.to_owned(), resolved, mode));
        }
        let mut out = Vec::new();
        for (service, host, resolved, mode) in plans {
            let taken = self
                .services
                .iter()
                .any(|s| s.project_id == project_id && s.name == host);
            let new_id = self.new_id("svc");
            if taken {
                out.push(json!({ "id": new_id, "name": host, "processes": [],
                    "error": { "code": "serviceStackNameUnavailable", "message": format!("Service stack name {host} is already used."), "meta": null } }));
                continue;
            }
            let entry = resolved.entry;
            let password = format!("pw{}", self.counter);
            let mut env: Vec<EnvRec> = Vec::new();
            if matches!(entry.category, Category::Managed | Category::ObjectStorage) {
                for (key, value) in catalog::generated_env(entry, &host, &password) {
                    let env_id = self.new_id("ud");
                    env.push(EnvRec {
                        id: env_id,
                        key,
                        content: value,
                        kind: "READ_ONLY".into(),
                        sensitive: false,
                    });
                }
            }
            if let Some(secrets) = service.get("envSecrets").and_then(Value::as_object) {
                for (key, value) in secrets {
                    let env_id = self.new_id("ud");
                    let content = value
                        .as_str()
                        .map_or_else(|| value.to_string(), str::to_owned);
                    env.push(EnvRec {
                        id: env_id,
                        key: key.clone(),
                        content,
                        kind: "SECRET".into(),
                        sensitive: false,
                    });
                }
            }
            let starts = matches!(
                entry.category,
                Category::Managed | Category::ObjectStorage | Category::SharedStorage
            ) || service
                .get("startWithoutCode")
                .and_then(Value::as_bool)
                .unwrap_or(false)
                || entry.name == "static";
            let final_status = if starts { "ACTIVE" } else { "READY_TO_DEPLOY" };
            let min = service
                .get("minContainers")
                .and_then(Value::as_u64)
                .unwrap_or(1);
            let max = service
                .get("maxContainers")
                .and_then(Value::as_u64)
                .unwrap_or(min.max(1));
            self.services.push(ServiceRec {
                id: new_id.clone(),
                project_id: project_id.to_owned(),
                client_id: self.client_id.clone(),
                name: host.clone(),
                status: "CREATING".into(),
                mode,
                type_id: entry.name.into(),
                type_name: entry.display.into(),
                category: entry.category.api_name().into(),
                version_name: resolved.version_name.clone(),
                is_system: false,
                subdomain_access: false,
                ports: entry.ports.iter().map(|(port, protocol, http)| PortRec { port: *port, protocol: (*protocol).into(), http: *http }).collect(),
                autoscaling: json!({ "verticalAutoscaling": null, "horizontalAutoscaling": { "minContainerCount": min, "maxContainerCount": max } }),
                env,
                created: now_text(),
            });
            let duration = self.config.process_duration;
            let p = self.start_process(
                project_id,
                "stack.import",
                &[&new_id],
                Effect::SetStatus {
                    service: new_id.clone(),
                    status: final_status.into(),
                },
                None,
                duration,
            );
            out.push(json!({ "id": new_id, "name": host, "error": null, "processes": [self.process_json(p, now)] }));
        }
        Ok(ok(
            json!({ "projectId": project_id, "projectName": self.project_name(project_id), "serviceStacks": out }),
        ))
    }

    fn delete_service(&mut self, scope: &TokenScope, id: &str, now: Instant) -> Outcome {
        let index = self.service(scope, id)?;
        if self.services[index].is_system {
            return Err(error(
                400,
                "serviceStackIsSystemNotSupported",
                "System services cannot be deleted.",
                Value::Null,
            ));
        }
        self.services[index].status = "DELETING".into();
        let project = self.services[index].project_id.clone();
        let duration = self.config.process_duration;
        let p = self.start_process(
            &project,
            "stack.delete",
            &[id],
            Effect::RemoveService {
                service: id.to_owned(),
            },
            None,
            duration,
        );
        Ok(ok(self.process_json(p, now)))
    }

    fn find_process(&self, scope: &TokenScope, id: &str) -> Result<usize, Response> {
        let index = self
            .processes
            .iter()
            .position(|p| p.id == id)
            .ok_or_else(|| error(404, "processNotFound", "Process not found.", Value::Null))?;
        if !State::allowed(scope, &self.processes[index].project_id) {
            return Err(error(
                403,
                "insufficientPermissions",
                "Insufficient permissions.",
                Value::Null,
            ));
        }
        Ok(index)
    }

    fn cancel(&mut self, scope: &TokenScope, id: &str, now: Instant) -> Outcome {
        let index = self.find_process(scope, id)?;
        if self.processes[index].is_over(now) {
            return Err(error(
                400,
                "processIsAlreadyOver",
                "The process is already over.",
                Value::Null,
            ));
        }
        self.processes[index].canceled = true;
        Ok(ok(self.process_json(index, now)))
    }

    fn subdomain(&mut self, scope: &TokenScope, id: &str, enable: bool, now: Instant) -> Outcome {
        let index = self.service(scope, id)?;
        let service = &self.services[index];
        let has_http = service.ports.iter().any(|p| p.http);
        let project = service.project_id.clone();
        let duration = self.config.process_duration;
        if enable {
            if !has_http && service.category != Category::ObjectStorage.api_name() {
                return Err(error(
                    400,
                    "serviceStackIsNotHttp",
                    "The service has no HTTP port.",
                    Value::Null,
                ));
            }
            if self.config.reject_subdomain_enables > 0 {
                self.config.reject_subdomain_enables -= 1;
                return Err(error(
                    400,
                    "noSubdomainPorts",
                    "No ports for subdomain access.",
                    Value::Null,
                ));
            }
            // A redundant enable is accepted and its process fails (the live behaviour).
            let failure = service
                .subdomain_access
                .then(|| "noSubdomainPorts".to_owned());
            let p = self.start_process(
                &project,
                "stack.enableSubdomainAccess",
                &[id],
                Effect::Subdomain {
                    service: id.to_owned(),
                    enabled: true,
                },
                failure,
                duration,
            );
            Ok(ok(self.process_json(p, now)))
        } else {
            if !service.subdomain_access {
                return Err(error(
                    400,
                    "serviceStackSubdomainAccessAlreadyDisabled",
                    "Subdomain access is already disabled.",
                    Value::Null,
                ));
            }
            let p = self.start_process(
                &project,
                "stack.disableSubdomainAccess",
                &[id],
                Effect::Subdomain {
                    service: id.to_owned(),
                    enabled: false,
                },
                None,
                duration,
            );
            Ok(ok(self.process_json(p, now)))
        }
    }

    fn log_access(&mut self, scope: &TokenScope, project_id: &str) -> Outcome {
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

    fn search_processes(&self, req: &Request, scope: &TokenScope, now: Instant) -> Outcome {
        let SearchQuery {
            filters,
            limit,
            offset,
        } = State::search_request(req)?;
        let mut items: Vec<&ProcessRec> = self
            .processes
            .iter()
            .filter(|p| self.visible(scope, &p.project_id))
            .filter(|p| {
                State::matches_filters(
                    &filters,
                    &[("clientId", &p.client_id), ("projectId", &p.project_id)],
                )
            })
            .collect();
        items.sort_by(|a, b| b.created.cmp(&a.created).then(b.sequence.cmp(&a.sequence)));
        let values = items
            .iter()
            .map(|p| p.to_json(now, &self.project_name(&p.project_id)))
            .collect();
        Ok(State::page(values, limit, offset))
    }

    fn search_app_versions(&self, req: &Request, scope: &TokenScope, now: Instant) -> Outcome {
        let SearchQuery {
            filters,
            limit,
            offset,
        } = State::search_request(req)?;
        let mut items: Vec<&AppVersionRec> = self
            .app_versions
            .iter()
            .filter(|v| self.visible(scope, &v.project_id))
            .filter(|v| {
                State::matches_filters(
                    &filters,
                    &[
                        ("clientId", &v.client_id),
                        ("projectId", &v.project_id),
                        ("serviceStackId", &v.service_id),
                    ],
                )
            })
            .collect();
        items.sort_by(|a, b| b.created.cmp(&a.created).then(b.sequence.cmp(&a.sequence)));
        Ok(State::page(
            items.iter().map(|v| v.to_json(now)).collect(),
            limit,
            offset,
        ))
    }

    fn create_app_version(&mut self, scope: &TokenScope, service_id: &str) -> Outcome {
        let index = self.service(scope, service_id)?;
        let service = self.services[index].clone();
        let id = self.new_id("av");
        let build_service = self.new_id("bld");
        let sequence = i64::try_from(
            self.app_versions
                .iter()
                .filter(|v| v.service_id == service_id)
                .count(),
        )
        .unwrap_or(0)
            + 1;
        self.app_versions.push(AppVersionRec {
            id: id.clone(),
            client_id: self.client_id.clone(),
            project_id: service.project_id.clone(),
            service_id: service_id.to_owned(),
            build_service_id: build_service,
            source: "CLI".into(),
            sequence,
            created: now_text(),
            pipeline_started: None,
            duration: self.config.build_duration,
            failure: None,
            superseded: false,
            fixed_status: None,
        });
        Ok(ok(
            json!({ "id": id, "uploadUrl": format!("{}/upload/{id}", self.base_url) }),
        ))
    }

    /// Starts the build pipeline of an uploaded app version. `failure` makes it fail.
    pub fn build_and_deploy(
        &mut self,
        scope: &TokenScope,
        version_id: &str,
        failure: Option<String>,
        now: Instant,
    ) -> Outcome {
        let Some(index) = self.app_versions.iter().position(|v| v.id == version_id) else {
            return Err(error(
                404,
                "appVersionNotFound",
                "App version not found.",
                Value::Null,
            ));
        };
        if !State::allowed(scope, &self.app_versions[index].project_id) {
            return Err(error(
                403,
                "insufficientPermissions",
                "Insufficient permissions.",
                Value::Null,
            ));
        }
        let version = &mut self.app_versions[index];
        version.pipeline_started = Some(now);
        version.failure = failure.clone();
        let (project, service, build_service, id) = (
            version.project_id.clone(),
            version.service_id.clone(),
            version.build_service_id.clone(),
            version.id.clone(),
        );
        let duration = self.config.build_duration;
        self.write_build_logs(&project, &build_service, &id, failure.as_deref());
        let p = self.start_process(
            &project,
            "stack.build",
            &[&service],
            Effect::ActivateVersion { version: id },
            failure,
            duration,
        );
        Ok(ok(self.process_json(p, now)))
    }

    fn write_build_logs(
        &mut self,
        project: &str,
        build_service: &str,
        version: &str,
        failure: Option<&str>,
    ) {
        let mut lines: Vec<(u8, String)> = vec![
            (6, "build container started".into()),
            (6, "running prepareCommands".into()),
            (6, "running buildCommands".into()),
        ];
        match failure {
            Some(reason) => {
                lines.push((3, format!("command failed: {reason}")));
                lines.push((3, "build failed, the previous version stays active".into()));
            }
            None => {
                lines.push((6, "packing deployFiles".into()));
                lines.push((6, "build finished".into()));
            }
        }
        for (severity, message) in lines {
            let id = self.new_id("log");
            self.logs.push(LogRec {
                id,
                project_id: project.to_owned(),
                service_id: build_service.to_owned(),
                timestamp: now_text(),
                severity,
                facility: 16,
                tag: format!("zbuilder@{version}"),
                container: "build-1".into(),
                container_id: format!("ctr-{build_service}"),
                message,
            });
        }
    }

    /// The package upload behind an app version's `uploadUrl` (`PUT /upload/{id}`): the
    /// archive is accepted and dropped; an unknown version is a 404.
    pub fn handle_upload(&mut self, req: &Request) -> Response {
        self.requests.push(format!(
            "{} {} ({} bytes)",
            req.method,
            req.path,
            req.body.len()
        ));
        let id = req.path.trim_start_matches("/upload/");
        if req.method != "PUT" {
            return error(405, "methodNotAllowed", "Use PUT.", Value::Null);
        }
        if !self.app_versions.iter().any(|v| v.id == id) {
            return error(
                404,
                "appVersionNotFound",
                "App version not found.",
                Value::Null,
            );
        }
        ok(json!({}))
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
        let mut picked: Vec<&LogRec> = self
            .logs
            .iter()
            .filter(|l| l.project_id == project)
            .filter(|l| service.is_none_or(|s| l.service_id == s))
            .filter(|l| min_severity.is_none_or(|m| l.severity <= m))
            .filter(|l| facility.is_none_or(|f| l.facility == f))
            .filter(|l| tags.is_none_or(|t| t.split(',').any(|tag| tag == l.tag)))
            .filter(|l| container.is_none_or(|c| l.container_id == c))
            .collect();
        picked.sort_by(|a, b| a.timestamp.cmp(&b.timestamp));
        if req.query_param("desc") == Some("1") {
            picked.reverse();
        }
        picked.truncate(limit);
        ok(json!({ "items": picked.iter().map(|l| l.to_json()).collect::<Vec<_>>() }))
    }
}

/// Overwrites the non-null leaves of `target` with those of `patch`.
fn merge(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (key, value) in p {
                if value.is_null() {
                    continue;
                }
                let slot = t.entry(key.clone()).or_insert(Value::Null);
                if slot.is_object() && value.is_object() {
                    merge(slot, value);
                } else {
                    *slot = value.clone();
                }
            }
        }
        (target, patch) if !patch.is_null() => *target = patch.clone(),
        _ => {}
    }
}
