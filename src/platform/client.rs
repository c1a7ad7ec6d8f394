//! The operations zcp needs from Zerops, as a trait so the business logic can run against
//! the real API, the loopback simulator or an in-memory mock alike.

use super::errors::PlatformError;
use super::types::{
    AppVersionEvent, AutoscalingParams, EnvVar, ImportResult, LogAccess, LogEntry, LogFetchParams,
    Process, ProcessEvent, Project, SearchPage, ServiceStack, UserInfo,
};

/// The 24 API operations of the PRD. Every call blocks (30 s limit in the HTTP client).
pub trait Client: Send + Sync {
    fn get_user_info(&self) -> Result<UserInfo, PlatformError>;
    /// Searches filter by this organisation from now on: the one the session's project
    /// belongs to, which for a user in several need not be the first of the user's list.
    fn use_client_id(&self, _client_id: &str) {}
    fn list_projects(&self, client_id: &str) -> Result<Vec<Project>, PlatformError>;
    fn get_project(&self, project_id: &str) -> Result<Project, PlatformError>;
    /// Services visible to the token (a search by client: may include other projects').
    fn list_services(&self, project_id: &str) -> Result<Vec<ServiceStack>, PlatformError>;
    /// One service, authoritative (not lagging like the search index).
    fn get_service(&self, service_id: &str) -> Result<ServiceStack, PlatformError>;
    fn start_service(&self, service_id: &str) -> Result<Process, PlatformError>;
    fn stop_service(&self, service_id: &str) -> Result<Process, PlatformError>;
    fn restart_service(&self, service_id: &str) -> Result<Process, PlatformError>;
    /// `None` when the change was applied synchronously.
    fn set_autoscaling(
        &self,
        service_id: &str,
        params: &AutoscalingParams,
    ) -> Result<Option<Process>, PlatformError>;
    fn get_service_env(&self, service_id: &str) -> Result<Vec<EnvVar>, PlatformError>;
    fn set_service_env_file(
        &self,
        service_id: &str,
        content: &str,
    ) -> Result<Process, PlatformError>;
    /// Creates one service variable (`POST /service-stack/{id}/user-data`). `sensitive` is
    /// required by the API (since 2026-08): a sensitive value is hidden in the GUI.
    fn create_user_data(
        &self,
        service_id: &str,
        key: &str,
        content: &str,
        sensitive: bool,
    ) -> Result<Process, PlatformError>;
    /// Replaces one service variable's value, by the variable's id (`PUT /user-data/{id}`),
    /// as a process. `sensitive` is required too: left out, a sensitive value turns plain.
    fn update_user_data(
        &self,
        user_data_id: &str,
        key: &str,
        content: &str,
        sensitive: bool,
    ) -> Result<Process, PlatformError>;
    fn delete_user_data(&self, user_data_id: &str) -> Result<Process, PlatformError>;
    fn get_project_env(&self, project_id: &str) -> Result<Vec<EnvVar>, PlatformError>;
    fn create_project_env(
        &self,
        project_id: &str,
        key: &str,
        content: &str,
        sensitive: bool,
    ) -> Result<Process, PlatformError>;
    fn delete_project_env(&self, env_id: &str) -> Result<Process, PlatformError>;
    fn import_services(&self, project_id: &str, yaml: &str) -> Result<ImportResult, PlatformError>;
    fn delete_service(&self, service_id: &str) -> Result<Process, PlatformError>;
    fn get_process(&self, process_id: &str) -> Result<Process, PlatformError>;
    fn cancel_process(&self, process_id: &str) -> Result<Process, PlatformError>;
    fn enable_subdomain_access(&self, service_id: &str) -> Result<Process, PlatformError>;
    fn disable_subdomain_access(&self, service_id: &str) -> Result<Process, PlatformError>;
    fn get_project_log(&self, project_id: &str) -> Result<LogAccess, PlatformError>;
    /// Processes, newest first, from `offset` on (a search by client: may include other
    /// projects').
    fn search_processes_page(
        &self,
        project_id: &str,
        limit: usize,
        offset: usize,
    ) -> Result<SearchPage<ProcessEvent>, PlatformError>;
    /// App versions, newest first, from `offset` on (same caveat).
    fn search_app_versions_page(
        &self,
        project_id: &str,
        limit: usize,
        offset: usize,
    ) -> Result<SearchPage<AppVersionEvent>, PlatformError>;
    /// The newest processes: the first page only.
    fn search_processes(
        &self,
        project_id: &str,
        limit: usize,
    ) -> Result<Vec<ProcessEvent>, PlatformError> {
        Ok(self.search_processes_page(project_id, limit, 0)?.items)
    }
    /// The newest app versions: the first page only.
    fn search_app_versions(
        &self,
        project_id: &str,
        limit: usize,
    ) -> Result<Vec<AppVersionEvent>, PlatformError> {
        Ok(self.search_app_versions_page(project_id, limit, 0)?.items)
    }
}

/// Reads from the log backend behind a [`LogAccess`].
pub trait LogFetcher: Send + Sync {
    fn fetch_logs(
        &self,
        access: &LogAccess,
        params: &LogFetchParams,
    ) -> Result<Vec<LogEntry>, PlatformError>;
}
