//! An in-memory [`Client`] and [`LogFetcher`] for unit tests of the business logic:
//! built with a builder, safe to share between threads, recording every call (without
//! secrets) so tests can assert what was asked of the API. Processes it creates move
//! PENDING → RUNNING → FINISHED (or FAILED) over a configurable number of polls.

use std::collections::HashMap;
use std::sync::Mutex;

use super::client::{Client, LogFetcher};
use super::errors::{ErrorCode, PlatformError};
use super::types::{
    AppVersionEvent, AutoscalingParams, EnvVar, ImportResult, LogAccess, LogEntry, LogFetchParams,
    Process, ProcessEvent, Project, SearchPage, ServiceRef, ServiceStack, UserInfo,
};

#[derive(Default)]
struct State {
    user: Option<UserInfo>,
    projects: Vec<Project>,
    services: Vec<ServiceStack>,
    service_env: HashMap<String, Vec<EnvVar>>,
    project_env: Vec<EnvVar>,
    processes: HashMap<String, TrackedProcess>,
    process_events: Vec<ProcessEvent>,
    app_versions: Vec<AppVersionEvent>,
    errors: HashMap<String, PlatformError>,
    import_result: Option<ImportResult>,
    autoscaling_without_process: bool,
    polls_to_finish: u32,
    fail_reason: Option<String>,
    cancel_outcome: Option<String>,
    calls: Vec<String>,
    next_id: u64,
    autoscaling_calls: Vec<AutoscalingParams>,
    env_files: Vec<(String, String)>,
}

struct TrackedProcess {
    process: Process,
    polls: u32,
}

/// The mock API.
pub struct MockClient {
    state: Mutex<State>,
}

impl Default for MockClient {
    fn default() -> Self {
        MockClient::new()
    }
}

impl MockClient {
    pub fn new() -> MockClient {
        MockClient {
            state: Mutex::new(State {
                polls_to_finish: 2,
                ..State::default()
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn with_user_info(self, user: UserInfo) -> Self {
        self.state().user = Some(user);
        self
    }

    pub fn with_projects(self, projects: Vec<Project>) -> Self {
        self.state().projects = projects;
        self
    }

    pub fn with_services(self, services: Vec<ServiceStack>) -> Self {
        self.state().services = services;
        self
    }

    pub fn with_service_env(self, service_id: &str, vars: Vec<EnvVar>) -> Self {
        self.state().service_env.insert(service_id.to_owned(), vars);
        self
    }

    pub fn with_project_env(self, vars: Vec<EnvVar>) -> Self {
        self.state().project_env = vars;
        self
    }

    /// Registers an existing process (for status and cancel tests).
    pub fn with_process(self, process: Process) -> Self {
        self.state()
            .processes
            .insert(process.id.clone(), TrackedProcess { process, polls: 0 });
        self
    }

    pub fn with_process_events(self, events: Vec<ProcessEvent>) -> Self {
        self.state().process_events = events;
        self
    }

    pub fn with_app_versions(self, versions: Vec<AppVersionEvent>) -> Self {
        self.state().app_versions = versions;
        self
    }

    /// Makes `method` (e.g. `"get_service"`) fail with `err` every time.
    pub fn with_error(self, method: &str, err: PlatformError) -> Self {
        self.state().errors.insert(method.to_owned(), err);
        self
    }

    pub fn with_import_result(self, result: ImportResult) -> Self {
        self.state().import_result = Some(result);
        self
    }

    /// Scaling applies synchronously (the API answers `{"process": null}`).
    pub fn with_autoscaling_without_process(self) -> Self {
        self.state().autoscaling_without_process = true;
        self
    }

    /// How many `get_process` calls a new process takes to finish (default 2).
    pub fn with_polls_to_finish(self, polls: u32) -> Self {
        self.state().polls_to_finish = polls;
        self
    }

    /// New processes end FAILED with this reason.
    pub fn with_failing_processes(self, reason: &str) -> Self {
        self.state().fail_reason = Some(reason.to_owned());
        self
    }

    /// A cancel answers with this status instead of CANCELED (a cancel still under way,
    /// or a process that ended on its own first).
    pub fn with_cancel_outcome(self, status: &str) -> Self {
        self.state().cancel_outcome = Some(status.to_owned());
        self
    }

    /// Every call so far, as `method(args)`.
    pub fn calls(&self) -> Vec<String> {
        self.state().calls.clone()
    }

    /// The scaling bodies sent so far.
    pub fn autoscaling_calls(&self) -> Vec<AutoscalingParams> {
        self.state().autoscaling_calls.clone()
    }

    /// The env files written so far, as `(service_id, content)`.
    pub fn env_files(&self) -> Vec<(String, String)> {
        self.state().env_files.clone()
    }

    fn enter(
        &self,
        method: &str,
        args: &str,
    ) -> Result<std::sync::MutexGuard<'_, State>, PlatformError> {
        let mut state = self.state();
        state.calls.push(format!("{method}({args})"));
        if let Some(err) = state.errors.get(method) {
            return Err(err.clone());
        }
        Ok(state)
    }

    fn new_process(state: &mut State, action: &str, service_id: &str) -> Process {
        state.next_id += 1;
        let name = state
            .services
            .iter()
            .find(|s| s.id == service_id)
            .map(|s| s.name.clone())
            .unwrap_or_default();
        let process = Process {
            id: format!("proc-{}", state.next_id),
            action_name: action.to_owned(),
            status: "PENDING".into(),
            project_id: state
                .projects
                .first()
                .map(|p| p.id.clone())
                .unwrap_or_default(),
            service_stacks: vec![ServiceRef {
                id: service_id.to_owned(),
                name,
            }],
            created: Some("2026-01-01T00:00:00Z".into()),
            ..Process::default()
        };
        state.processes.insert(
            process.id.clone(),
            TrackedProcess {
                process: process.clone(),
                polls: 0,
            },
        );
        process
    }

    fn service_exists(state: &State, service_id: &str) -> Result<(), PlatformError> {
        if state.services.iter().any(|s| s.id == service_id) {
            Ok(())
        } else {
            Err(PlatformError::new(
                ErrorCode::ServiceNotFound,
                format!("service {service_id} not found"),
            ))
        }
    }
}

impl Client for MockClient {
    fn get_user_info(&self) -> Result<UserInfo, PlatformError> {
        let state = self.enter("get_user_info", "")?;
        state.user.clone().ok_or_else(|| {
            PlatformError::new(
                ErrorCode::AuthInvalidToken,
                "no user configured in the mock",
            )
        })
    }

    fn list_projects(&self, client_id: &str) -> Result<Vec<Project>, PlatformError> {
        // A project with no organisation set is listed for any.
        let state = self.enter("list_projects", client_id)?;
        Ok((state.projects.iter())
            .filter(|p| p.client_id.as_deref().is_none_or(|id| id == client_id))
            .cloned()
            .collect())
    }

    fn get_project(&self, project_id: &str) -> Result<Project, PlatformError> {
        let state = self.enter("get_project", project_id)?;
        state
            .projects
            .iter()
            .find(|p| p.id == project_id)
            .cloned()
            .ok_or_else(|| {
                PlatformError::new(
                    ErrorCode::PermissionDenied,
                    format!("project {project_id} not accessible"),
                )
            })
    }

    fn list_services(&self, project_id: &str) -> Result<Vec<ServiceStack>, PlatformError> {
        Ok(self.enter("list_services", project_id)?.services.clone())
    }

    fn get_service(&self, service_id: &str) -> Result<ServiceStack, PlatformError> {
        let state = self.enter("get_service", service_id)?;
        state
            .services
            .iter()
            .find(|s| s.id == service_id)
            .cloned()
            .ok_or_else(|| {
                PlatformError::new(
                    ErrorCode::ServiceNotFound,
                    format!("service {service_id} not found"),
                )
            })
    }

    fn start_service(&self, service_id: &str) -> Result<Process, PlatformError> {
        let mut state = self.enter("start_service", service_id)?;
        MockClient::service_exists(&state, service_id)?;
        Ok(MockClient::new_process(
            &mut state,
            "stack.start",
            service_id,
        ))
    }

    fn stop_service(&self, service_id: &str) -> Result<Process, PlatformError> {
        let mut state = self.enter("stop_service", service_id)?;
        MockClient::service_exists(&state, service_id)?;
        Ok(MockClient::new_process(
            &mut state,
            "stack.stop",
            service_id,
        ))
    }

    fn restart_service(&self, service_id: &str) -> Result<Process, PlatformError> {
        let mut state = self.enter("restart_service", service_id)?;
        MockClient::service_exists(&state, service_id)?;
        Ok(MockClient::new_process(
            &mut state,
            "stack.restart",
            service_id,
        ))
    }

    fn set_autoscaling(
        &self,
        service_id: &str,
        params: &AutoscalingParams,
    ) -> Result<Option<Process>, PlatformError> {
        let mut state = self.enter("set_autoscaling", service_id)?;
        state.autoscaling_calls.push(params.clone());
        if state.autoscaling_without_process {
            return Ok(None);
        }
        Ok(Some(MockClient::new_process(
            &mut state,
            "stack.updateAutoscaling",
            service_id,
        )))
    }

    fn get_service_env(&self, service_id: &str) -> Result<Vec<EnvVar>, PlatformError> {
        let state = self.enter("get_service_env", service_id)?;
        Ok(state
            .service_env
            .get(service_id)
            .cloned()
            .unwrap_or_default())
    }

    fn set_service_env_file(
        &self,
        service_id: &str,
        content: &str,
    ) -> Result<Process, PlatformError> {
        let mut state = self.enter("set_service_env_file", service_id)?;
        state
            .env_files
            .push((service_id.to_owned(), content.to_owned()));
        Ok(MockClient::new_process(
            &mut state,
            "stack.userDataFile",
            service_id,
        ))
    }

    fn create_user_data(
        &self,
        service_id: &str,
        key: &str,
        content: &str,
        sensitive: bool,
    ) -> Result<Process, PlatformError> {
        let mut state = self.enter("create_user_data", service_id)?;
        state.next_id += 1;
        let id = format!("ud{}", state.next_id);
        state
            .service_env
            .entry(service_id.to_owned())
            .or_default()
            .push(EnvVar {
                id,
                key: key.to_owned(),
                content: content.to_owned(),
                env_type: Some("USER".into()),
                sensitive: Some(sensitive),
            });
        Ok(MockClient::new_process(
            &mut state,
            "stack.userDataCreate",
            service_id,
        ))
    }

    fn update_user_data(
        &self,
        user_data_id: &str,
        key: &str,
        content: &str,
        sensitive: bool,
    ) -> Result<Process, PlatformError> {
        let mut state = self.enter("update_user_data", user_data_id)?;
        let var = state
            .service_env
            .values_mut()
            .flatten()
            .find(|v| v.id == user_data_id)
            .ok_or_else(|| {
                PlatformError::new(
                    ErrorCode::InvalidParameter,
                    format!("variable {user_data_id} not found"),
                )
            })?;
        var.key = key.to_owned();
        var.content = content.to_owned();
        var.sensitive = Some(sensitive);
        let owner = state
            .service_env
            .iter()
            .find(|(_, vars)| vars.iter().any(|v| v.id == user_data_id))
            .map(|(service, _)| service.clone())
            .unwrap_or_default();
        Ok(MockClient::new_process(
            &mut state,
            "stack.userDataUpdate",
            &owner,
        ))
    }

    fn delete_user_data(&self, user_data_id: &str) -> Result<Process, PlatformError> {
        let mut state = self.enter("delete_user_data", user_data_id)?;
        let mut owner = String::new();
        for (service, vars) in state.service_env.iter_mut() {
            if vars.iter().any(|v| v.id == user_data_id) {
                vars.retain(|v| v.id != user_data_id);
                owner = service.clone();
            }
        }
        Ok(MockClient::new_process(
            &mut state,
            "stack.userDataDelete",
            &owner,
        ))
    }

    fn get_project_env(&self, project_id: &str) -> Result<Vec<EnvVar>, PlatformError> {
        Ok(self
            .enter("get_project_env", project_id)?
            .project_env
            .clone())
    }

    fn create_project_env(
        &self,
        project_id: &str,
        key: &str,
        content: &str,
        sensitive: bool,
    ) -> Result<Process, PlatformError> {
        let mut state = self.enter(
            "create_project_env",
            &format!("{project_id}, {key}, {sensitive}"),
        )?;
        if state.project_env.iter().any(|v| v.key == key) {
            let mut err = PlatformError::new(ErrorCode::ApiError, format!("key {key} exists"));
            err.api_code = Some("projectEnvDuplicateKey".into());
            err.http_status = Some(400);
            return Err(err);
        }
        state.next_id += 1;
        let id = format!("penv-{}", state.next_id);
        state.project_env.push(EnvVar {
            id,
            key: key.to_owned(),
            content: content.to_owned(),
            env_type: Some("USER".into()),
            sensitive: Some(sensitive),
        });
        Ok(MockClient::new_process(&mut state, "project.envCreate", ""))
    }

    fn delete_project_env(&self, env_id: &str) -> Result<Process, PlatformError> {
        let mut state = self.enter("delete_project_env", env_id)?;
        state.project_env.retain(|v| v.id != env_id);
        Ok(MockClient::new_process(&mut state, "project.envDelete", ""))
    }

    fn import_services(&self, project_id: &str, yaml: &str) -> Result<ImportResult, PlatformError> {
        let state = self.enter(
            "import_services",
            &format!("{project_id}, {} bytes", yaml.len()),
        )?;
        Ok(state.import_result.clone().unwrap_or_default())
    }

    fn delete_service(&self, service_id: &str) -> Result<Process, PlatformError> {
        let mut state = self.enter("delete_service", service_id)?;
        MockClient::service_exists(&state, service_id)?;
        Ok(MockClient::new_process(
            &mut state,
            "stack.delete",
            service_id,
        ))
    }

    fn get_process(&self, process_id: &str) -> Result<Process, PlatformError> {
        let mut state = self.enter("get_process", process_id)?;
        let polls_to_finish = state.polls_to_finish;
        let fail_reason = state.fail_reason.clone();
        let tracked = state.processes.get_mut(process_id).ok_or_else(|| {
            PlatformError::new(
                ErrorCode::ProcessNotFound,
                format!("process {process_id} not found"),
            )
        })?;
        if matches!(tracked.process.status.as_str(), "PENDING" | "RUNNING") {
            tracked.polls += 1;
            if tracked.polls >= polls_to_finish {
                match fail_reason {
                    Some(reason) => {
                        tracked.process.status = "FAILED".into();
                        tracked.process.fail_reason = Some(reason);
                    }
                    None => tracked.process.status = "FINISHED".into(),
                }
                tracked.process.finished = Some("2026-01-01T00:01:00Z".into());
            } else {
                tracked.process.status = "RUNNING".into();
                tracked.process.started = Some("2026-01-01T00:00:01Z".into());
            }
        }
        Ok(tracked.process.clone())
    }

    fn cancel_process(&self, process_id: &str) -> Result<Process, PlatformError> {
        let mut state = self.enter("cancel_process", process_id)?;
        let outcome = state.cancel_outcome.clone();
        let tracked = state.processes.get_mut(process_id).ok_or_else(|| {
            PlatformError::new(
                ErrorCode::ProcessNotFound,
                format!("process {process_id} not found"),
            )
        })?;
        // As the API: only a process still in progress can be canceled.
        if !matches!(tracked.process.status.as_str(), "PENDING" | "RUNNING") {
            let mut err = PlatformError::new(
                ErrorCode::ProcessAlreadyTerminal,
                format!("process {process_id} is already {}", tracked.process.status),
            );
            err.api_code = Some("processIsAlreadyOver".into());
            err.http_status = Some(400);
            return Err(err);
        }
        tracked.process.status = outcome.unwrap_or_else(|| "CANCELED".into());
        Ok(tracked.process.clone())
    }

    fn enable_subdomain_access(&self, service_id: &str) -> Result<Process, PlatformError> {
        let mut state = self.enter("enable_subdomain_access", service_id)?;
        MockClient::service_exists(&state, service_id)?;
        Ok(MockClient::new_process(
            &mut state,
            "stack.enableSubdomainAccess",
            service_id,
        ))
    }

    fn disable_subdomain_access(&self, service_id: &str) -> Result<Process, PlatformError> {
        let mut state = self.enter("disable_subdomain_access", service_id)?;
        MockClient::service_exists(&state, service_id)?;
        Ok(MockClient::new_process(
            &mut state,
            "stack.disableSubdomainAccess",
            service_id,
        ))
    }

    fn get_project_log(&self, project_id: &str) -> Result<LogAccess, PlatformError> {
        drop(self.enter("get_project_log", project_id)?);
        Ok(LogAccess {
            url: "https://logs.mock/read?token=mock".into(),
            expiration: None,
        })
    }

    fn search_processes_page(
        &self,
        project_id: &str,
        limit: usize,
        offset: usize,
    ) -> Result<SearchPage<ProcessEvent>, PlatformError> {
        let args = format!("{project_id}, {limit}, {offset}");
        let state = self.enter("search_processes", &args)?;
        Ok(page_of(&state.process_events, limit, offset))
    }

    fn search_app_versions_page(
        &self,
        project_id: &str,
        limit: usize,
        offset: usize,
    ) -> Result<SearchPage<AppVersionEvent>, PlatformError> {
        let args = format!("{project_id}, {limit}, {offset}");
        let state = self.enter("search_app_versions", &args)?;
        Ok(page_of(&state.app_versions, limit, offset))
    }
}

/// A search page as the API answers one with `totalHits`.
fn page_of<T: Clone>(all: &[T], limit: usize, offset: usize) -> SearchPage<T> {
    let items: Vec<T> = all.iter().skip(offset).take(limit).cloned().collect();
    SearchPage {
        more: offset + items.len() < all.len(),
        items,
    }
}

/// A log backend that serves fixed entries, applying the filters the real one honours
/// (service, minimum severity, limit, newest first) and recording the parameters.
#[derive(Default)]
pub struct MockLogFetcher {
    entries: Vec<(String, LogEntry)>,
    error: Option<PlatformError>,
    calls: Mutex<Vec<LogFetchParams>>,
}

impl MockLogFetcher {
    /// `entries` as `(service_id, entry)`, oldest first.
    pub fn new(entries: Vec<(String, LogEntry)>) -> MockLogFetcher {
        MockLogFetcher {
            entries,
            error: None,
            calls: Mutex::new(Vec::new()),
        }
    }

    pub fn with_error(mut self, err: PlatformError) -> Self {
        self.error = Some(err);
        self
    }

    pub fn calls(&self) -> Vec<LogFetchParams> {
        self.calls.lock().map(|c| c.clone()).unwrap_or_default()
    }
}

impl LogFetcher for MockLogFetcher {
    fn fetch_logs(
        &self,
        _access: &LogAccess,
        params: &LogFetchParams,
    ) -> Result<Vec<LogEntry>, PlatformError> {
        if let Ok(mut calls) = self.calls.lock() {
            calls.push(params.clone());
        }
        if let Some(err) = &self.error {
            return Err(err.clone());
        }
        let mut picked: Vec<LogEntry> = self
            .entries
            .iter()
            .filter(|(service, _)| params.service_id.as_ref().is_none_or(|s| s == service))
            .filter(|(_, e)| match (params.min_severity, e.severity_num) {
                (Some(min), Some(sev)) => sev <= min,
                _ => true,
            })
            .filter(|(_, e)| params.tags.as_ref().is_none_or(|t| &e.tag == t))
            .map(|(_, e)| e.clone())
            .collect();
        picked.reverse();
        picked.truncate(params.limit.clamp(1, 1000) as usize);
        Ok(picked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(id: &str, name: &str) -> ServiceStack {
        ServiceStack {
            id: id.into(),
            name: name.into(),
            project_id: "p1".into(),
            ..ServiceStack::default()
        }
    }

    #[test]
    fn processes_advance_per_poll_and_can_fail() {
        let mock = MockClient::new()
            .with_services(vec![service("s1", "api")])
            .with_polls_to_finish(3);
        let p = mock.restart_service("s1").unwrap();
        assert_eq!(p.status, "PENDING");
        assert_eq!(p.service_stacks[0].name, "api");
        let seen: Vec<String> = (0..4)
            .map(|_| mock.get_process(&p.id).unwrap().status)
            .collect();
        assert_eq!(seen, ["RUNNING", "RUNNING", "FINISHED", "FINISHED"]);

        let failing = MockClient::new()
            .with_services(vec![service("s1", "api")])
            .with_polls_to_finish(1)
            .with_failing_processes("noSubdomainPorts");
        let p = failing.enable_subdomain_access("s1").unwrap();
        let done = failing.get_process(&p.id).unwrap();
        assert_eq!(
            (done.status.as_str(), done.fail_reason.as_deref()),
            ("FAILED", Some("noSubdomainPorts"))
        );
        assert_eq!(
            failing.get_process("nope").unwrap_err().code,
            ErrorCode::ProcessNotFound
        );
    }

    #[test]
    fn cancel_only_applies_to_processes_in_progress() {
        let mock = MockClient::new()
            .with_services(vec![service("s1", "api")])
            .with_polls_to_finish(1);
        let p = mock.stop_service("s1").unwrap();
        assert_eq!(mock.cancel_process(&p.id).unwrap().status, "CANCELED");
        let err = mock.cancel_process(&p.id).unwrap_err();
        assert_eq!(err.code, ErrorCode::ProcessAlreadyTerminal);
        let q = mock.start_service("s1").unwrap();
        mock.get_process(&q.id).unwrap();
        assert_eq!(
            mock.cancel_process(&q.id).unwrap_err().code,
            ErrorCode::ProcessAlreadyTerminal
        );
    }

    #[test]
    fn calls_are_recorded_and_errors_injected_per_method() {
        let mock = MockClient::new()
            .with_services(vec![service("s1", "api")])
            .with_error(
                "get_service",
                PlatformError::new(ErrorCode::NetworkError, "down"),
            );
        assert_eq!(
            mock.get_service("s1").unwrap_err().code,
            ErrorCode::NetworkError
        );
        assert_eq!(mock.list_services("p1").unwrap().len(), 1);
        mock.set_service_env_file("s1", "A=1\n").unwrap();
        assert_eq!(
            mock.calls(),
            [
                "get_service(s1)",
                "list_services(p1)",
                "set_service_env_file(s1)"
            ]
        );
        assert_eq!(mock.env_files(), [("s1".to_owned(), "A=1\n".to_owned())]);
        assert_eq!(
            mock.start_service("missing").unwrap_err().code,
            ErrorCode::ServiceNotFound
        );
    }

    #[test]
    fn the_mock_is_shared_between_threads() {
        let mock = std::sync::Arc::new(
            MockClient::new()
                .with_services(vec![service("s1", "api")])
                .with_polls_to_finish(2),
        );
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let mock = mock.clone();
                std::thread::spawn(move || mock.restart_service("s1").unwrap().id)
            })
            .collect();
        let mut ids: Vec<String> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 4, "every process gets its own id");
        assert_eq!(mock.calls().len(), 4);
    }

    #[test]
    fn the_log_fetcher_filters_newest_first() {
        let entry = |n: u8, severity: u8| LogEntry {
            id: n.to_string(),
            severity_num: Some(severity),
            message: format!("line {n}"),
            ..LogEntry::default()
        };
        let fetcher = MockLogFetcher::new(vec![
            ("s1".into(), entry(1, 6)),
            ("s1".into(), entry(2, 3)),
            ("s2".into(), entry(3, 3)),
            ("s1".into(), entry(4, 4)),
        ]);
        let access = LogAccess::default();
        let params = LogFetchParams {
            service_id: Some("s1".into()),
            limit: 10,
            min_severity: Some(4),
            ..LogFetchParams::default()
        };
        let ids: Vec<String> = fetcher
            .fetch_logs(&access, &params)
            .unwrap()
            .into_iter()
            .map(|e| e.id)
            .collect();
        assert_eq!(ids, ["4", "2"]);
        assert_eq!(fetcher.calls(), [params]);
    }
}
