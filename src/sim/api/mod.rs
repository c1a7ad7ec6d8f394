//! The simulator's REST endpoints: the same paths, methods, bodies and error shapes as
//! the Zerops API for the 24 operations zcp uses, the two that `zcli push` calls, and the
//! log backend. State changes follow the platform: mutations start processes whose
//! effects land when they finish.
//!
//! This module holds the state, token scoping and routing; each area's handlers live in a
//! child module (`search`, `services`, `env`, `import`, `deploy`, `logs`).

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime};

use crate::json;

use serde_json::Value;

use super::faults::Rule;
use super::http::{Request, Response};
use super::model::{AppVersionRec, Effect, LogRec, ProcessRec, ProjectRec, ServiceRec};
use crate::time::format_rfc3339;

mod deploy;
mod env;
mod import;
mod logs;
mod search;
mod services;

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
    /// The user's client list names another organisation (with no projects) before the
    /// project's own, as for a user in two.
    pub another_client_first: bool,
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
            another_client_first: false,
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
    /// Searches answer every page with the first one (an API that ignores `offset`).
    pub search_ignores_offset: bool,
    /// Searches answer at most this many items a page, whatever `limit` asked (the real
    /// API's cap is unknown).
    pub search_page_cap: Option<usize>,
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

/// The API's answer to a token that may not touch the project.
fn forbidden() -> Response {
    error(
        403,
        "insufficientPermissions",
        "Insufficient permissions.",
        Value::Null,
    )
}

fn ok(body: Value) -> Response {
    Response::json(200, &body)
}

fn now_text() -> String {
    format_rfc3339(SystemTime::now())
}

type Outcome = Result<Response, Response>;

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
            search_ignores_offset: false,
            search_page_cap: None,
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

    /// Moves processes along to `now`, in the order they were created (so a service's
    /// queue plays out in turn): one leaving its queue puts its service into its
    /// transitional status, one that ended applies its effect, or for a canceled one puts
    /// back what it changed up front. A failed process changes nothing.
    pub fn tick(&mut self, now: Instant) {
        for index in 0..self.processes.len() {
            let p = &mut self.processes[index];
            if !p.is_canceled()
                && p.started_at <= now
                && let Some(status) = p.hold.take()
            {
                match self
                    .services
                    .iter_mut()
                    .find(|s| p.services.first().is_some_and(|(id, _)| *id == s.id))
                {
                    // A cancel restores what the service was when this process took it over.
                    Some(s) => {
                        let before = std::mem::replace(&mut s.status, status);
                        p.on_cancel = Effect::SetStatus {
                            service: s.id.clone(),
                            status: before,
                        };
                    }
                    // Queued behind the delete of its service: it has nothing to act on.
                    None => {
                        p.failure = Some("the service was deleted before this process ran".into())
                    }
                }
            }
            if p.applied || !p.is_over(now) {
                continue;
            }
            p.applied = true;
            let effect = if p.is_canceled() {
                p.on_cancel.clone()
            } else if p.failure.is_some() {
                continue;
            } else {
                p.effect.clone()
            };
            self.apply(effect);
        }
    }

    /// Makes one effect of a process's end happen (see [`Effect`]).
    fn apply(&mut self, effect: Effect) {
        match effect {
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
            Effect::CancelVersion { version } => self.cancel_version(&version),
        }
    }

    /// The build stopped before its end: the version is never activated, so the one active
    /// before stays active (as a failed build leaves it), and its log says so.
    fn cancel_version(&mut self, version: &str) {
        let Some(v) = self.app_versions.iter_mut().find(|v| v.id == version) else {
            return;
        };
        v.canceled = true;
        let (project, build_service, id) = (
            v.project_id.clone(),
            v.build_service_id.clone(),
            v.id.clone(),
        );
        let stays = self.what_stays(&id, Instant::now());
        self.write_build_log(
            &project,
            &build_service,
            &id,
            4,
            format!("build canceled, {stays}"),
            now_text(),
        );
    }

    /// What a build that ends without activating `version` leaves running, for its log:
    /// the version active before, or nothing on a service never deployed.
    pub(super) fn what_stays(&self, version: &str, now: Instant) -> &'static str {
        let service = self
            .app_versions
            .iter()
            .find(|v| v.id == version)
            .map(|v| v.service_id.as_str());
        let had_active = self.app_versions.iter().any(|v| {
            v.id != version && Some(v.service_id.as_str()) == service && v.status(now) == "ACTIVE"
        });
        if had_active {
            "the previous version stays active"
        } else {
            "the service has no deployed version yet"
        }
    }

    /// The version becomes the active one: the others are kept as backups, and the
    /// service runs with the ports and variables of the deployed setup (if the deploy named
    /// one; they are needed only this once).
    fn activate_version(&mut self, version: &str) {
        let Some((service_id, run, start_command)) = self
            .app_versions
            .iter_mut()
            .find(|v| v.id == version)
            .map(|v| (v.service_id.clone(), v.run.take(), v.start_command.take()))
        else {
            return;
        };
        // The new container's first lines, so the service's own log shows the deploy.
        if let Some(service) = self.services.iter().find(|s| s.id == service_id) {
            let (project, hostname) = (service.project_id.clone(), service.name.clone());
            let mut lines = vec![format!(
                "app version {version} deployed, starting the container"
            )];
            lines.extend(start_command.map(|command| format!("running start command: {command}")));
            for message in lines {
                self.write_runtime_log(&project, &service_id, &hostname, message, now_text());
            }
        }
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
        let Some(service) = self.services.iter().find(|s| s.id == service_id) else {
            return;
        };
        let subdomain_host = self
            .projects
            .iter()
            .find(|p| p.id == service.project_id)
            .map(|p| p.subdomain_host.clone())
            .unwrap_or_default();
        let variable_id = self.new_id("ud");
        let Some(service) = self.services.iter_mut().find(|s| s.id == service_id) else {
            return;
        };
        service.status = "ACTIVE".into();
        if let Some((mut ports, envs)) = run {
            // A base with its own web server (static, Nginx, PHP) serves port 80 with no
            // run.ports of the setup's.
            if ports.is_empty() && crate::ops::helpers::runs_web_server(&service.version_name) {
                ports.push(crate::sim::model::PortRec {
                    port: 80,
                    protocol: "tcp".into(),
                    http: true,
                });
            }
            service.ports = ports;
            // Its zerops.yml variables replace the last deploy's, listed read-only (`USER`);
            // a secret of the same key gives way, as the zerops.yml value is the one that wins.
            service
                .env
                .retain(|e| e.kind != "USER" && !envs.iter().any(|v| v.key == e.key));
            service.env.extend(envs);
        }
        // With an HTTP port, the first deploy gives the service its subdomain address, and
        // turns the subdomain on if the import asked for it.
        if let Some(http) = service.ports.iter().find(|p| p.http).map(|p| p.port) {
            if !service.env.iter().any(|e| e.key == "zeropsSubdomain")
                && let Some((prefix, domain)) = subdomain_host.split_once('.')
            {
                let port = if http == 80 {
                    String::new()
                } else {
                    format!("-{http}")
                };
                service.env.push(crate::sim::model::EnvRec {
                    id: variable_id,
                    key: "zeropsSubdomain".into(),
                    content: format!("https://{}-{prefix}{port}.{domain}", service.name),
                    kind: "READ_ONLY".into(),
                    sensitive: false,
                });
            }
            if service.subdomain_on_first_deploy {
                service.subdomain_access = true;
            }
        }
        // Asked for at import, it comes with the first active version or not at all.
        service.subdomain_on_first_deploy = false;
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
            wall_start: SystemTime::now(),
            created: now_text(),
            duration,
            failure,
            effect,
            on_cancel: Effect::None,
            canceled_at: None,
            hold: None,
            applied: false,
            created_by: self.user_name.clone(),
            sequence,
        });
        self.processes.len() - 1
    }

    /// What the process at `process` puts back if it is canceled (see
    /// [`ProcessRec::on_cancel`]).
    fn on_cancel(&mut self, process: usize, effect: Effect) {
        self.processes[process].on_cancel = effect;
    }

    /// Makes the process at `process` hold service `service` in `transitional` while it
    /// runs. The platform runs one service's processes one after another, so it waits
    /// (PENDING) until the service's earlier status changes have ended.
    fn hold_status(&mut self, process: usize, service: usize, transitional: &str) {
        let id = &self.services[service].id;
        let created = self.processes[process].started_at;
        let busy_until = self.processes[..process]
            .iter()
            .filter(|p| {
                p.services.first().is_some_and(|(s, _)| s == id)
                    && matches!(
                        p.effect,
                        Effect::SetStatus { .. } | Effect::RemoveService { .. }
                    )
                    && !p.is_over(created)
            })
            .map(|p| p.started_at + p.duration)
            .max();
        let p = &mut self.processes[process];
        if let Some(end) = busy_until {
            let wait = end.saturating_duration_since(created);
            p.started_at += wait;
            p.wall_start += wait;
        }
        p.hold = Some(transitional.to_owned());
        self.tick(created);
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
            return Err(forbidden());
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
            return Err(forbidden());
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
            ("POST", ["service-stack", id, "user-data"]) => {
                self.create_user_data(req, &scope, id, now)
            }
            ("PUT", ["user-data", id]) => self.update_user_data(req, &scope, id, now),
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
                self.build_and_deploy_request(req, &scope, id, now)
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
        // The fixed part as JSON text (less code than `json!`), then this user's fields.
        let mut info = json_text!({
            "id": "user-demo", "lastName": null, "status": "ACTIVE",
            "created": "2025-01-01T00:00:00.000000Z", "lastUpdate": "2025-01-01T00:00:00.000000Z",
            "avatar": null, "language": {"id": "en", "name": "English"}, "passwordIsSet": true, "totpIsSet": false,
            "clientUserList": [{
                "id": "cu-demo", "userId": "user-demo", "status": "ACTIVE", "roleCode": "OWNER",
                "client": {"accountName": "Demo account", "avatar": null}
            }]
        });
        info["email"] = json!(self.user_email);
        info["fullName"] = json!(self.user_name);
        info["firstName"] = json!(self.user_name.split(' ').next());
        let membership = &mut info["clientUserList"][0];
        membership["clientId"] = json!(self.client_id);
        membership["client"]["id"] = json!(self.client_id);
        if self.config.another_client_first
            && let Some(list) = info["clientUserList"].as_array_mut()
        {
            list.insert(0, json!({ "clientId": "clientanother000000001" }));
        }
        ok(info)
    }
}
