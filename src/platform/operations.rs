//! The 24 operations of [`Client`] on top of [`ZeropsClient`]'s transport: which method
//! and path each uses, what body it sends, and how the answer becomes a domain type.

use crate::json;

use serde_json::Value;

use super::client::Client;
use super::errors::{ErrorCode, PlatformError, Subject};
use super::http::{Method, SearchEnvelope, ZeropsClient};
use super::types::{
    AppVersionEvent, AutoscalingParams, EnvVar, ImportResult, LogAccess, Process, ProcessEvent,
    Project, SearchPage, ServiceStack, UserInfo, UserInfoWire,
};

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

impl Client for ZeropsClient {
    fn get_user_info(&self) -> Result<UserInfo, PlatformError> {
        let wire: UserInfoWire =
            self.call(Method::Get, "/user/info", "/user/info", None, Subject::Auth)?;
        let mut ids = (wire.client_user_list.into_iter())
            .map(|c| c.client_id)
            .filter(|id| !id.is_empty());
        let client_id = ids.next().unwrap_or_default();
        // A successful lookup (authentication makes one) also fills the client-id cache,
        // so the first search does not ask again.
        if !client_id.is_empty() {
            self.remember_client_id(&client_id);
        }
        Ok(UserInfo {
            client_id,
            more_client_ids: ids.collect(),
            email: wire.email,
            full_name: wire.full_name,
        })
    }

    fn use_client_id(&self, client_id: &str) {
        self.remember_client_id(client_id);
    }

    fn list_projects(&self, client_id: &str) -> Result<Vec<Project>, PlatformError> {
        self.search_all(
            "project",
            json!([{"name": "clientId", "operator": "eq", "value": client_id}]),
            Subject::Project,
            |p: &Project| &p.id,
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
        self.search_all(
            "service-stack",
            json!([{"name": "clientId", "operator": "eq", "value": client_id}]),
            Subject::Service,
            |s: &ServiceStack| &s.id,
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

    fn create_user_data(
        &self,
        service_id: &str,
        key: &str,
        content: &str,
        sensitive: bool,
    ) -> Result<Process, PlatformError> {
        self.call(
            Method::Post,
            &format!("/service-stack/{service_id}/user-data"),
            "/service-stack/{id}/user-data",
            Some(&json!({ "key": key, "content": content, "sensitive": sensitive })),
            Subject::Env,
        )
    }

    fn update_user_data(
        &self,
        user_data_id: &str,
        key: &str,
        content: &str,
        sensitive: bool,
    ) -> Result<Process, PlatformError> {
        self.call(
            Method::Put,
            &format!("/user-data/{user_data_id}"),
            "/user-data/{id}",
            Some(&json!({ "key": key, "content": content, "sensitive": sensitive })),
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
            1,
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

    fn search_processes_page(
        &self,
        project_id: &str,
        limit: usize,
        offset: usize,
    ) -> Result<SearchPage<ProcessEvent>, PlatformError> {
        self.search_in_project("process", project_id, limit, offset, Subject::Process)
    }

    fn search_app_versions_page(
        &self,
        project_id: &str,
        limit: usize,
        offset: usize,
    ) -> Result<SearchPage<AppVersionEvent>, PlatformError> {
        self.search_in_project("app-version", project_id, limit, offset, Subject::Service)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_urls_are_normalised() {
        assert_eq!(
            normalize_log_url("GET https://logs.x/read?t=1"),
            "https://logs.x/read?t=1"
        );
        assert_eq!(
            normalize_log_url("logs.x/read?t=1"),
            "https://logs.x/read?t=1"
        );
        assert_eq!(
            normalize_log_url("  http://127.0.0.1:1/log/read?token=a "),
            "http://127.0.0.1:1/log/read?token=a"
        );
    }
}
