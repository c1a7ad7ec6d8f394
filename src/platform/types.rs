//! Domain types of the Zerops API, decoded from its JSON. Decoding is tolerant: unknown
//! fields are ignored, and `null` is accepted wherever the API sends it (lists included),
//! because the API emits every DTO field and its shapes drift between releases.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// Decodes `null` as the type's default (empty list, empty string, false).
pub(crate) fn null_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// The account behind a token. `client_id` is the first organisation of the user's client
/// list, not the user's own id; a user in several has the rest in `more_client_ids`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UserInfo {
    pub client_id: String,
    pub more_client_ids: Vec<String>,
    pub email: String,
    pub full_name: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UserInfoWire {
    #[serde(default, deserialize_with = "null_default")]
    pub email: String,
    #[serde(default, deserialize_with = "null_default")]
    pub full_name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub client_user_list: Vec<ClientUserWire>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ClientUserWire {
    #[serde(default, deserialize_with = "null_default")]
    pub client_id: String,
}

/// A project.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    pub id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub status: String,
    #[serde(default)]
    pub client_id: Option<String>,
    /// The project's subdomain prefix (`1df2`) or host (`1df2.prg1.zerops.app`).
    #[serde(default)]
    pub zerops_subdomain_host: Option<String>,
}

/// A service type as the API describes it on each service.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct TypeInfo {
    #[serde(
        rename = "serviceStackTypeName",
        default,
        deserialize_with = "null_default"
    )]
    pub type_name: String,
    /// `USER` (runtimes), `STANDARD` (managed), `OBJECT_STORAGE`, `CORE`, ...
    #[serde(
        rename = "serviceStackTypeCategory",
        default,
        deserialize_with = "null_default"
    )]
    pub category: String,
    /// E.g. `nodejs@22`.
    #[serde(
        rename = "serviceStackTypeVersionName",
        default,
        deserialize_with = "null_default"
    )]
    pub version_name: String,
}

/// A port a service exposes.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Port {
    #[serde(default, deserialize_with = "null_default")]
    pub port: u32,
    #[serde(default, deserialize_with = "null_default")]
    pub protocol: String,
    #[serde(default, deserialize_with = "null_default")]
    pub http_routing: bool,
    #[serde(default, deserialize_with = "null_default")]
    pub port_routing: bool,
    #[serde(default)]
    pub scheme: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
}

/// CPU, RAM and disk amounts.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Default)]
pub struct Resource {
    /// Whole cores: the API wants an integer here (`3`, never `3.0`).
    #[serde(
        rename = "cpuCoreCount",
        default,
        serialize_with = "whole_number_when_possible"
    )]
    pub cpu_core_count: Option<f64>,
    #[serde(rename = "memoryGBytes", default)]
    pub memory_gbytes: Option<f64>,
    #[serde(rename = "diskGBytes", default)]
    pub disk_gbytes: Option<f64>,
}

/// Writes a whole number as a JSON integer (a Go API refuses `3.0` for an `int` field).
fn whole_number_when_possible<S: serde::Serializer>(
    value: &Option<f64>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) if v.fract() == 0.0 && v.abs() < 1e15 => serializer.serialize_some(&(*v as i64)),
        Some(v) => serializer.serialize_some(v),
        None => serializer.serialize_none(),
    }
}

/// Vertical scaling settings.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct VerticalAutoscaling {
    #[serde(default)]
    pub cpu_mode: Option<String>,
    #[serde(default)]
    pub start_cpu_core_count: Option<u32>,
    #[serde(default)]
    pub swap_enabled: Option<bool>,
    #[serde(default)]
    pub min_resource: Option<Resource>,
    #[serde(default)]
    pub max_resource: Option<Resource>,
    #[serde(default)]
    pub min_free_resource: Option<Value>,
}

/// Horizontal scaling settings.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalAutoscaling {
    #[serde(default)]
    pub min_container_count: Option<u32>,
    #[serde(default)]
    pub max_container_count: Option<u32>,
}

/// A service's scaling (both the configured `custom` and the effective `current` values
/// have this shape).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Autoscaling {
    #[serde(default)]
    pub vertical_autoscaling: Option<VerticalAutoscaling>,
    #[serde(default)]
    pub horizontal_autoscaling: Option<HorizontalAutoscaling>,
}

/// The body of a scaling update. `mode` is the service's current mode when the API reports
/// one: older API versions refused an update without it, newer SDKs no longer send it (the
/// field is deprecated and may read null). Never invented: a guessed `NON_HA` for an HA
/// service would be refused as a mode change.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AutoscalingParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    pub custom_autoscaling: Autoscaling,
}

/// A service (the API calls it a service stack). `name` is its hostname.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ServiceStack {
    pub id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub project_id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// Normalised by [`normalize_service_status`] (`ACTIVE` means running).
    #[serde(default, deserialize_with = "service_status")]
    pub status: String,
    /// `HA` or `NON_HA`.
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(
        rename = "serviceStackTypeInfo",
        default,
        deserialize_with = "null_default"
    )]
    pub type_info: TypeInfo,
    #[serde(default, deserialize_with = "null_default")]
    pub is_system: bool,
    #[serde(default, deserialize_with = "null_default")]
    pub subdomain_access: bool,
    #[serde(default, deserialize_with = "null_default")]
    pub ports: Vec<Port>,
    #[serde(default)]
    pub custom_autoscaling: Option<Autoscaling>,
    #[serde(default)]
    pub current_autoscaling: Option<Autoscaling>,
    #[serde(default)]
    pub created: Option<String>,
    #[serde(default)]
    pub last_update: Option<String>,
}

impl ServiceStack {
    /// Platform-internal services (the project core, balancers, build helpers) that users
    /// never manage.
    pub fn is_internal(&self) -> bool {
        self.is_system
            || matches!(
                self.type_info.category.as_str(),
                "CORE" | "BUILD" | "INTERNAL" | "PREPARE_RUNTIME" | "HTTP_L7_BALANCER"
            )
    }
}

/// Service statuses as the rest of zcp sees them: upper case, without the `SERVICE_`
/// prefix some enum values of the API carry, and `RUNNING` (a defensive alias seen in
/// older clients) read as `ACTIVE`, the value the platform uses for a running service.
pub fn normalize_service_status(status: &str) -> String {
    let upper = status.trim().to_ascii_uppercase();
    let bare = upper.strip_prefix("SERVICE_").unwrap_or(&upper);
    match bare {
        "RUNNING" => "ACTIVE".into(),
        other => other.to_owned(),
    }
}

fn service_status<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let raw: String = null_default(deserializer)?;
    Ok(normalize_service_status(&raw))
}

/// A service referenced by a process.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ServiceRef {
    #[serde(default, deserialize_with = "null_default")]
    pub id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
}

/// An asynchronous operation on the platform. `status` is normalised (see
/// [`normalize_process_status`]); `fail_reason` comes from `publicMeta.failReason`, else
/// from the process's `error` (`code: message`), where some failures put it (a subdomain
/// enable without HTTP ports ends FAILED with `publicMeta: null`).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Process {
    pub id: String,
    pub action_name: String,
    pub status: String,
    pub project_id: String,
    pub service_stacks: Vec<ServiceRef>,
    pub created: Option<String>,
    pub started: Option<String>,
    pub finished: Option<String>,
    pub fail_reason: Option<String>,
    /// Full name of the user who started it, when known.
    pub created_by: Option<String>,
}

/// Process statuses as the rest of zcp sees them: `DONE` → `FINISHED` and `CANCELLED` →
/// `CANCELED`, whatever the case on the wire; others upper-cased and passed through.
pub fn normalize_process_status(status: &str) -> String {
    let upper = status.trim().to_ascii_uppercase();
    match upper.as_str() {
        "DONE" => "FINISHED".into(),
        "CANCELLED" => "CANCELED".into(),
        _ => upper,
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ProcessWire {
    pub id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub action_name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub status: String,
    #[serde(default, deserialize_with = "null_default")]
    pub project_id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub service_stacks: Vec<ServiceRef>,
    #[serde(default)]
    pub created: Option<String>,
    #[serde(default)]
    pub started: Option<String>,
    #[serde(default)]
    pub finished: Option<String>,
    #[serde(default)]
    pub public_meta: Option<Value>,
    #[serde(default)]
    pub error: Option<Value>,
    #[serde(default)]
    pub created_by_user: Option<Value>,
}

/// `code: message` of a process's `error` object (either part alone when the other is
/// missing), if it says anything.
fn error_reason(error: &Value) -> Option<String> {
    let part = |name: &str| {
        error
            .get(name)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty())
    };
    match (part("code"), part("message")) {
        (Some(code), Some(message)) => Some(format!("{code}: {message}")),
        (Some(one), None) | (None, Some(one)) => Some(one.to_owned()),
        (None, None) => None,
    }
}

impl From<ProcessWire> for Process {
    fn from(wire: ProcessWire) -> Process {
        let fail_reason = wire
            .public_meta
            .as_ref()
            .and_then(|m| m.get("failReason"))
            .and_then(Value::as_str)
            .filter(|r| !r.is_empty())
            .map(str::to_owned)
            .or_else(|| wire.error.as_ref().and_then(error_reason));
        let created_by = wire
            .created_by_user
            .as_ref()
            .and_then(|u| u.get("fullName"))
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .map(str::to_owned);
        Process {
            id: wire.id,
            action_name: wire.action_name,
            status: normalize_process_status(&wire.status),
            project_id: wire.project_id,
            service_stacks: wire.service_stacks,
            created: wire.created,
            started: wire.started,
            finished: wire.finished,
            fail_reason,
            created_by,
        }
    }
}

impl<'de> Deserialize<'de> for Process {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Process, D::Error> {
        ProcessWire::deserialize(deserializer).map(Process::from)
    }
}

/// A process found by the activity search (same shape as [`Process`]).
pub type ProcessEvent = Process;

/// An environment variable of a service or of the project.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct EnvVar {
    #[serde(default, deserialize_with = "null_default")]
    pub id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub key: String,
    #[serde(default, deserialize_with = "null_default")]
    pub content: String,
    /// `SECRET`, `READ_ONLY`, `USER`, `SYSTEM`, ...
    #[serde(rename = "type", default)]
    pub env_type: Option<String>,
    #[serde(default)]
    pub sensitive: Option<bool>,
}

/// The API's `{code, message, meta}` triple (also used per service inside imports).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ApiErrorBody {
    #[serde(default, deserialize_with = "null_default")]
    pub code: String,
    #[serde(default, deserialize_with = "null_default")]
    pub message: String,
    #[serde(default)]
    pub meta: Option<Value>,
}

/// One service of an import answer: created (with processes) or refused (with an error).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ImportedService {
    #[serde(default, deserialize_with = "null_default")]
    pub id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default)]
    pub error: Option<ApiErrorBody>,
    #[serde(default, deserialize_with = "null_default")]
    pub processes: Vec<Process>,
}

/// The answer to an import.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ImportResult {
    #[serde(default, deserialize_with = "null_default")]
    pub project_id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub project_name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub service_stacks: Vec<ImportedService>,
}

/// Temporary access to the project's log backend. `url` carries its own credential in
/// its query string, so `Debug` shows only the part before `?`.
#[derive(Clone, PartialEq, Eq, Serialize, Default)]
pub struct LogAccess {
    pub url: String,
    pub expiration: Option<String>,
}

impl std::fmt::Debug for LogAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = match self.url.split_once('?') {
            Some((base, _)) => format!("{base}?***"),
            None => self.url.clone(),
        };
        f.debug_struct("LogAccess")
            .field("url", &shown)
            .field("expiration", &self.expiration)
            .finish()
    }
}

/// Filters sent to the log backend (it honours only these; `since` and text search are
/// applied by zcp).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LogFetchParams {
    pub service_id: Option<String>,
    /// 1..=1000.
    pub limit: u32,
    /// Syslog severity 0 (emergency) ..= 7 (debug): entries at or above it.
    pub min_severity: Option<u8>,
    /// 16 application, 17 web server.
    pub facility: Option<u8>,
    pub tags: Option<String>,
    pub container_id: Option<String>,
}

/// One log line.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct LogEntry {
    pub id: String,
    pub timestamp: String,
    /// Label such as `Error`, `Informational`.
    pub severity: String,
    pub severity_num: Option<u8>,
    pub facility: Option<u8>,
    /// The container's hostname (e.g. `api-1`).
    pub container: String,
    pub container_id: String,
    pub tag: String,
    pub message: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LogEntryWire {
    #[serde(default, deserialize_with = "null_default")]
    pub id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub timestamp: String,
    #[serde(default)]
    pub severity: Option<u8>,
    #[serde(default, deserialize_with = "null_default")]
    pub severity_label: String,
    #[serde(default)]
    pub facility: Option<u8>,
    #[serde(default, deserialize_with = "null_default")]
    pub hostname: String,
    #[serde(default, deserialize_with = "null_default")]
    pub container_id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub tag: String,
    #[serde(default, deserialize_with = "null_default")]
    pub message: String,
}

impl From<LogEntryWire> for LogEntry {
    fn from(w: LogEntryWire) -> LogEntry {
        LogEntry {
            id: w.id,
            timestamp: w.timestamp,
            severity: w.severity_label,
            severity_num: w.severity,
            facility: w.facility,
            container: w.hostname,
            container_id: w.container_id,
            tag: w.tag,
            message: w.message,
        }
    }
}

/// Build pipeline timestamps of an app version.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct BuildInfo {
    /// The build service (where build logs live).
    #[serde(rename = "serviceStackId", default)]
    pub service_id: Option<String>,
    #[serde(default)]
    pub pipeline_start: Option<String>,
    #[serde(default)]
    pub pipeline_finish: Option<String>,
    #[serde(default)]
    pub pipeline_failed: Option<String>,
}

/// A deployed (or deploying) version of a service's code.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct AppVersionEvent {
    pub id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub project_id: String,
    #[serde(rename = "serviceStackId", default, deserialize_with = "null_default")]
    pub service_id: String,
    #[serde(default, deserialize_with = "null_default")]
    pub status: String,
    #[serde(default, deserialize_with = "null_default")]
    pub source: String,
    #[serde(default)]
    pub sequence: Option<i64>,
    #[serde(default)]
    pub created: Option<String>,
    #[serde(default)]
    pub last_update: Option<String>,
    #[serde(default)]
    pub build: Option<BuildInfo>,
}

/// One page of a newest-first search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchPage<T> {
    pub items: Vec<T>,
    /// The search holds more after this page: by its `totalHits`, or, without that, because
    /// the page came back as full as asked.
    pub more: bool,
}

/// Items that belong to a project (for the scoped-token search workaround).
pub trait HasProjectId {
    fn project_id(&self) -> &str;
}

impl HasProjectId for ServiceStack {
    fn project_id(&self) -> &str {
        &self.project_id
    }
}

impl HasProjectId for Process {
    fn project_id(&self) -> &str {
        &self.project_id
    }
}

impl HasProjectId for AppVersionEvent {
    fn project_id(&self) -> &str {
        &self.project_id
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn whole_cpu_cores_are_sent_as_integers() {
        let resource = Resource {
            cpu_core_count: Some(3.0),
            memory_gbytes: Some(4.0),
            disk_gbytes: None,
        };
        let text = serde_json::to_string(&resource).unwrap();
        assert!(text.contains(r#""cpuCoreCount":3,"#), "{text}");
        assert!(text.contains(r#""memoryGBytes":4.0"#), "{text}");
    }

    #[test]
    fn process_status_and_fail_reason_are_normalised() {
        let p: Process = serde_json::from_value(json!({
            "id": "p1", "status": "cancelled", "actionName": "stack.restart", "projectId": "pj",
            "serviceStacks": [{"id": "s1", "name": "api", "extra": 1}], "created": "2026-01-01T00:00:00Z",
            "started": null, "finished": null, "publicMeta": {"failReason": "noSubdomainPorts"},
            "createdByUser": {"fullName": "Ada L"}, "unknownField": [1]
        }))
        .unwrap();
        assert_eq!(p.status, "CANCELED");
        assert_eq!(p.fail_reason.as_deref(), Some("noSubdomainPorts"));
        assert_eq!(p.created_by.as_deref(), Some("Ada L"));
        assert_eq!(p.service_stacks[0].name, "api");
        assert_eq!(normalize_process_status("Done"), "FINISHED");
        assert_eq!(normalize_process_status("running"), "RUNNING");
    }

    /// Some failures carry their reason in the process's `error`, not in `publicMeta`.
    #[test]
    fn a_fail_reason_in_the_error_object_is_kept() {
        let failed = |extra: Value| -> Process {
            let mut wire = json!({"id": "p", "status": "FAILED", "publicMeta": null});
            for (k, v) in extra.as_object().unwrap() {
                wire[k] = v.clone();
            }
            serde_json::from_value(wire).unwrap()
        };
        let p = failed(
            json!({"error": {"code": "noSubdomainPorts", "message": "no http ports found for subdomain support"}}),
        );
        assert_eq!(
            p.fail_reason.as_deref(),
            Some("noSubdomainPorts: no http ports found for subdomain support")
        );
        assert_eq!(
            failed(json!({"error": {"code": "x"}}))
                .fail_reason
                .as_deref(),
            Some("x")
        );
        assert_eq!(failed(json!({"error": null})).fail_reason, None);
        // publicMeta wins when both say something.
        let both = failed(json!({"publicMeta": {"failReason": "meta"}, "error": {"code": "e"}}));
        assert_eq!(both.fail_reason.as_deref(), Some("meta"));
    }

    #[test]
    fn nulls_everywhere_are_tolerated() {
        let s: ServiceStack = serde_json::from_value(json!({
            "id": "s", "projectId": null, "name": "api", "status": "ACTIVE", "mode": null,
            "serviceStackTypeInfo": null, "isSystem": null, "subdomainAccess": null, "ports": null,
            "customAutoscaling": {"verticalAutoscaling": null, "horizontalAutoscaling": {"minContainerCount": 1, "maxContainerCount": null}}
        }))
        .unwrap();
        assert!(s.ports.is_empty());
        assert_eq!(s.type_info, TypeInfo::default());
        let a: AppVersionEvent = serde_json::from_value(
            json!({"id": "a", "build": null, "serviceStackId": "s", "status": "ACTIVE"}),
        )
        .unwrap();
        assert_eq!(a.service_id, "s");
        let r: ImportResult = serde_json::from_value(json!({"projectId": "p", "serviceStacks": [{"id": "x", "name": "db", "error": {"code": "serviceStackNameUnavailable", "message": "taken", "meta": null}, "processes": null}]})).unwrap();
        assert_eq!(
            r.service_stacks[0].error.as_ref().unwrap().code,
            "serviceStackNameUnavailable"
        );
    }

    #[test]
    fn service_statuses_are_normalised_and_null_ports_tolerated() {
        let s: ServiceStack = serde_json::from_value(json!({
            "id": "s", "status": "SERVICE_STOPPED",
            "ports": [{"port": null, "protocol": "tcp", "httpRouting": true}]
        }))
        .unwrap();
        assert_eq!(s.status, "STOPPED");
        assert_eq!(s.ports[0].port, 0);
        assert_eq!(normalize_service_status("running"), "ACTIVE");
        assert_eq!(
            normalize_service_status("READY_TO_DEPLOY"),
            "READY_TO_DEPLOY"
        );
        let s: ServiceStack = serde_json::from_value(json!({"id": "s", "status": null})).unwrap();
        assert_eq!(s.status, "");
    }

    #[test]
    fn log_access_debug_hides_the_url_credential() {
        let access = LogAccess {
            url: "https://logs.example/read?token=sentinel-log-cred&x=1".into(),
            expiration: None,
        };
        let shown = format!("{access:?}");
        assert!(!shown.contains("sentinel-log-cred"), "{shown}");
        assert!(shown.contains("https://logs.example/read"));
    }

    #[test]
    fn autoscaling_keys_match_the_wire() {
        let body = AutoscalingParams {
            mode: Some("NON_HA".into()),
            custom_autoscaling: Autoscaling {
                vertical_autoscaling: Some(VerticalAutoscaling {
                    cpu_mode: Some("SHARED".into()),
                    min_resource: Some(Resource {
                        cpu_core_count: Some(1.0),
                        memory_gbytes: Some(0.5),
                        disk_gbytes: None,
                    }),
                    ..Default::default()
                }),
                horizontal_autoscaling: None,
            },
        };
        let wire = serde_json::to_value(&body).unwrap();
        assert_eq!(wire["mode"], "NON_HA");
        assert_eq!(
            wire["customAutoscaling"]["verticalAutoscaling"]["minResource"]["memoryGBytes"],
            0.5
        );
        assert!(wire["customAutoscaling"]["horizontalAutoscaling"].is_null());
    }
}
