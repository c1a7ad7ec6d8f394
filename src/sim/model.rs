//! The simulator's in-memory platform: records for projects, services, variables,
//! processes, app versions and logs, how time moves them along, and their JSON as the real
//! API renders it (every field present, `null` where unset).

use std::time::{Duration, Instant, SystemTime};

use crate::json;
use serde_json::Value;

use crate::time::{format_rfc3339, parse_rfc3339};

/// A variable of a project or a service.
#[derive(Debug, Clone)]
pub struct EnvRec {
    pub id: String,
    pub key: String,
    pub content: String,
    /// Service: `SECRET` (the user's), `READ_ONLY` (generated) or `USER` (the active
    /// version's zerops.yml `run.envVariables`, listed read-only); project: `USER`.
    pub kind: String,
    pub sensitive: bool,
}

impl EnvRec {
    /// A user's service variable (the API's `SECRET` type).
    pub fn secret(id: String, key: String, content: String) -> EnvRec {
        EnvRec {
            id,
            key,
            content,
            kind: "SECRET".into(),
            sensitive: false,
        }
    }
}

#[derive(Debug, Clone)]
pub struct ProjectRec {
    pub id: String,
    pub client_id: String,
    pub name: String,
    pub status: String,
    pub subdomain_host: String,
    pub env: Vec<EnvRec>,
    pub created: String,
}

#[derive(Debug, Clone)]
pub struct PortRec {
    pub port: u32,
    pub protocol: String,
    pub http: bool,
}

#[derive(Debug, Clone)]
pub struct ServiceRec {
    pub id: String,
    pub project_id: String,
    pub client_id: String,
    pub name: String,
    pub status: String,
    pub mode: String,
    pub type_id: String,
    pub type_name: String,
    pub category: String,
    pub version_name: String,
    pub is_system: bool,
    pub subdomain_access: bool,
    pub ports: Vec<PortRec>,
    pub autoscaling: Value,
    pub env: Vec<EnvRec>,
    pub created: String,
    /// When its CPU mode last changed: the platform allows one change an hour.
    pub cpu_mode_changed: Option<Instant>,
    /// The import's `enableSubdomainAccess: true`: the subdomain goes on with the first
    /// version that becomes active.
    pub subdomain_on_first_deploy: bool,
}

/// What happens to the platform when a process finishes successfully, or what puts it
/// back when the process is canceled (see [`ProcessRec::on_cancel`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    None,
    SetStatus {
        service: String,
        status: String,
    },
    RemoveService {
        service: String,
    },
    Subdomain {
        service: String,
        enabled: bool,
    },
    /// Build pipeline done: the app version becomes active.
    ActivateVersion {
        version: String,
    },
    /// Build canceled: the app version ends `CANCELLED` and is never activated.
    CancelVersion {
        version: String,
    },
}

#[derive(Debug, Clone)]
pub struct ProcessRec {
    pub id: String,
    pub client_id: String,
    pub project_id: String,
    pub action: String,
    pub services: Vec<(String, String)>,
    pub started_at: Instant,
    /// The wall-clock time of `started_at`, taken once: every timestamp of the process is
    /// this plus an offset, so it reads the same on every request.
    pub wall_start: SystemTime,
    pub created: String,
    pub duration: Duration,
    /// `None` = finishes; `Some(reason)` = fails with it.
    pub failure: Option<String>,
    pub effect: Effect,
    /// Applied instead of `effect` when the process is canceled: a canceled process never
    /// did its work, so whatever it changed up front (a transitional service status, a
    /// half-created service, a build in progress) must not be left hanging.
    pub on_cancel: Effect,
    /// When it was canceled: its clock stops there (that is its `finished` time).
    pub canceled_at: Option<Instant>,
    /// The transitional status (RESTARTING, DELETING, ...) its service takes when the
    /// process leaves the service's queue; taken then.
    pub hold: Option<String>,
    pub applied: bool,
    pub created_by: String,
    pub sequence: i64,
}

impl ProcessRec {
    pub fn is_canceled(&self) -> bool {
        self.canceled_at.is_some()
    }

    /// Status at `now`: PENDING for the first third, RUNNING until the end, then the outcome.
    pub fn status(&self, now: Instant) -> &'static str {
        if self.is_canceled() {
            return "CANCELED";
        }
        let elapsed = now.saturating_duration_since(self.started_at);
        if elapsed < self.duration / 3 {
            "PENDING"
        } else if elapsed < self.duration {
            "RUNNING"
        } else if self.failure.is_some() {
            "FAILED"
        } else {
            "FINISHED"
        }
    }

    pub fn is_over(&self, now: Instant) -> bool {
        !matches!(self.status(now), "PENDING" | "RUNNING")
    }

    /// The timestamp `after` the process began.
    fn stamp(&self, after: Duration) -> Value {
        json!(format_rfc3339(self.wall_start + after))
    }

    /// The wall-clock time of `at`, which is before `started_at` for a process canceled
    /// while it waited in its service's queue.
    fn wall(&self, at: Instant) -> SystemTime {
        self.wall_start + at.saturating_duration_since(self.started_at)
            - self.started_at.saturating_duration_since(at)
    }

    /// `started` and `finished` at `now`. A canceled process stops where it was: it
    /// finished when canceled, and started only if it had left PENDING by then.
    fn times(&self, now: Instant) -> (Value, Value) {
        let until = self.canceled_at.unwrap_or(now);
        let ran = until.saturating_duration_since(self.started_at);
        let started = if ran >= self.duration / 3 {
            self.stamp(self.duration / 3)
        } else {
            Value::Null
        };
        let finished = if self.is_canceled() {
            json!(format_rfc3339(self.wall(until)))
        } else if self.is_over(now) {
            self.stamp(self.duration)
        } else {
            Value::Null
        };
        (started, finished)
    }

    /// The Process DTO.
    pub fn to_json(&self, now: Instant, project_name: &str) -> Value {
        let status = self.status(now);
        let (started, finished) = self.times(now);
        let public_meta = match (&self.failure, status) {
            (Some(reason), "FAILED") => json!({ "failReason": reason }),
            _ => Value::Null,
        };
        json!({
            "id": self.id,
            "clientId": self.client_id,
            "projectId": self.project_id,
            "serviceStackId": self.services.first().map(|(id, _)| id.clone()),
            "project": { "id": self.project_id, "name": project_name, "status": "ACTIVE" },
            "serviceStacks": self.services.iter().map(|(id, name)| json!({
                "id": id, "name": name, "projectId": self.project_id,
                "serviceStackTypeInfo": null
            })).collect::<Vec<_>>(),
            "status": status,
            "sequence": self.sequence,
            "createdByUser": { "type": "USER", "id": "user-demo", "email": "ada@example.com", "firstName": "Ada", "fullName": self.created_by, "avatar": null },
            "canceledByUser": null,
            "actionName": self.action,
            "created": self.created,
            "lastUpdate": self.created,
            "started": started,
            "finished": finished,
            "createdBySystem": false,
            "appVersion": null,
            "publicMeta": public_meta,
        })
    }
}

/// Where the BUILDING stage ends, as a share of the pipeline: a failing build fails there,
/// and its build process ends with it.
pub const BUILD_END: f64 = 0.6;

/// Build stages an app version passes, with the share of the pipeline each ends at.
pub const BUILD_STAGES: [(&str, f64); 6] = [
    ("UPLOADING", 0.1),
    ("WAITING_TO_BUILD", 0.2),
    ("BUILDING", BUILD_END),
    ("PREPARING_RUNTIME", 0.7),
    ("WAITING_TO_DEPLOY", 0.8),
    ("DEPLOYING", 1.0),
];

/// What a deployed setup's `run` gives its service: its ports and its `envVariables`.
pub type RunRec = (Vec<PortRec>, Vec<EnvRec>);

#[derive(Debug, Clone)]
pub struct AppVersionRec {
    pub id: String,
    pub client_id: String,
    pub project_id: String,
    pub service_id: String,
    pub build_service_id: String,
    pub source: String,
    pub sequence: i64,
    pub created: String,
    /// When the pipeline started (`None` = uploaded only, waiting for build-and-deploy).
    pub pipeline_started: Option<Instant>,
    pub duration: Duration,
    /// `Some(reason)` makes the build fail.
    pub failure: Option<String>,
    /// Set when a newer version became active.
    pub superseded: bool,
    /// Set when its build process was canceled: the pipeline stopped, the version was never
    /// activated and reads `CANCELLED` (the app-version spelling, double L) from then on.
    pub canceled: bool,
    /// Terminal status fixed at seeding time (history).
    pub fixed_status: Option<String>,
    /// The `run.ports` and `run.envVariables` of the deployed setup, which the service
    /// takes when this version becomes active (`None` = the deploy named no zerops.yml
    /// setup: they stay as they are).
    pub run: Option<RunRec>,
    /// The deployed setup's `run.start`, which the new container's first log lines name.
    pub start_command: Option<String>,
}

impl AppVersionRec {
    pub fn status(&self, now: Instant) -> String {
        if let Some(fixed) = &self.fixed_status {
            return fixed.clone();
        }
        if self.canceled {
            return "CANCELLED".into();
        }
        let Some(start) = self.pipeline_started else {
            return "UPLOADING".into();
        };
        let fraction = now.saturating_duration_since(start).as_secs_f64()
            / self.duration.as_secs_f64().max(0.001);
        if self.failure.is_some() && fraction >= BUILD_END {
            return "BUILD_FAILED".into();
        }
        for (stage, end) in BUILD_STAGES {
            if fraction < end {
                return stage.into();
            }
        }
        if self.superseded {
            "BACKUP".into()
        } else {
            "ACTIVE".into()
        }
    }

    pub fn to_json(&self, now: Instant) -> Value {
        let status = self.status(now);
        let stamp = |fraction: f64| -> Value {
            let offset = self.duration.mul_f64(fraction);
            // History is timed from its creation, a running pipeline by its clock.
            let began = match self.pipeline_started {
                _ if self.fixed_status.is_some() => parse_rfc3339(&self.created),
                Some(start) if now.saturating_duration_since(start) >= offset => {
                    Some(SystemTime::now() - now.saturating_duration_since(start))
                }
                _ => None,
            };
            began.map_or(Value::Null, |t| json!(format_rfc3339(t + offset)))
        };
        let build = if self.source == "NONE" {
            Value::Null
        } else {
            json!({
                "serviceStackId": self.build_service_id,
                "serviceStackName": format!("build-{}", self.service_id),
                "serviceStackTypeVersionId": null,
                "pipelineStart": stamp(0.1),
                "pipelineFinish": if status == "ACTIVE" || status == "BACKUP" { stamp(1.0) } else { Value::Null },
                "pipelineFailed": if status.ends_with("_FAILED") { stamp(BUILD_END) } else { Value::Null },
                "containerCreationStart": null,
                "startDate": null,
                "endDate": null,
                "cacheSnapshotId": null,
            })
        };
        json!({
            "id": self.id,
            "clientId": self.client_id,
            "projectId": self.project_id,
            "serviceStackId": self.service_id,
            "build": build,
            "source": self.source,
            "sequence": self.sequence,
            "status": status,
            "userData": [],
            "githubIntegration": null,
            "publicGitSource": null,
            "created": self.created,
            "lastUpdate": self.created,
        })
    }
}

#[derive(Debug, Clone)]
pub struct LogRec {
    pub id: String,
    pub project_id: String,
    pub service_id: String,
    pub timestamp: String,
    pub severity: u8,
    pub facility: u8,
    pub tag: String,
    pub container: String,
    pub container_id: String,
    pub message: String,
}

/// Syslog severity labels as the backend writes them.
pub fn severity_label(severity: u8) -> &'static str {
    match severity {
        0 => "Emergency",
        1 => "Alert",
        2 => "Critical",
        3 => "Error",
        4 => "Warning",
        5 => "Notice",
        6 => "Informational",
        _ => "Debug",
    }
}

impl LogRec {
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "msgId": "",
            "timestamp": self.timestamp,
            "version": 1,
            "hostname": self.container,
            "containerId": self.container_id,
            "appName": "",
            "procId": "",
            "tag": self.tag,
            "priority": u32::from(self.facility) * 8 + u32::from(self.severity),
            "severity": self.severity,
            "severityLabel": severity_label(self.severity),
            "facility": self.facility,
            "facilityLabel": if self.facility == 17 { "local1" } else { "local0" },
            "message": self.message,
            "content": self.message,
            "structuredData": "",
            "client": "",
            "tlsPeer": "",
        })
    }
}

impl EnvRec {
    pub fn service_json(&self, service: &ServiceRec) -> Value {
        json!({
            "id": self.id,
            "clientId": service.client_id,
            "projectId": service.project_id,
            "serviceStackId": service.id,
            "key": self.key,
            "content": self.content,
            "type": self.kind,
            "sensitive": self.sensitive,
            "created": service.created,
            "lastUpdate": service.created,
        })
    }

    pub fn project_json(&self, project: &ProjectRec) -> Value {
        json!({
            "id": self.id,
            "created": project.created,
            "lastUpdate": project.created,
            "clientId": project.client_id,
            "projectId": project.id,
            "key": self.key,
            "content": self.content,
            "type": self.kind,
            "sensitive": self.sensitive,
            "editable": true,
        })
    }
}

impl ProjectRec {
    pub fn to_json(&self, with_env: bool) -> Value {
        let mut value = json!({
            "id": self.id,
            "clientId": self.client_id,
            "name": self.name,
            "mode": "LIGHT",
            "description": null,
            "tagList": [],
            "status": self.status,
            "created": self.created,
            "lastUpdate": self.created,
            "publicIpV4": null,
            "publicIpV6": null,
            "publicIpV4Shared": null,
            "publicZone": null,
            "zeropsSubdomainHost": self.subdomain_host,
            "logForwardingType": null,
            "autoStartup": true,
            "userRoles": [],
        });
        if with_env {
            value["envList"] =
                Value::Array(self.env.iter().map(|e| e.project_json(self)).collect());
        }
        value
    }
}

impl ServiceRec {
    /// A search item: like the real index, its autoscaling block is empty (the effective
    /// values come only from the single-service GET, [`ServiceRec::to_json`]).
    pub fn search_json(&self) -> Value {
        let mut value = self.to_json();
        if let Some(item) = value.as_object_mut() {
            item.remove("currentAutoscaling");
            item.insert(
                "customAutoscaling".into(),
                json!({"verticalAutoscaling": null, "horizontalAutoscaling": null}),
            );
        }
        value
    }

    /// The single-service GET.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "clientId": self.client_id,
            "projectId": self.project_id,
            "serviceStackTypeId": self.type_id,
            "serviceStackTypeVersionId": format!("{}_v", self.type_id),
            "serviceStackTypeInfo": {
                "serviceStackTypeName": self.type_name,
                "serviceStackTypeCategory": self.category,
                "serviceStackTypeVersionName": self.version_name,
            },
            "status": self.status,
            "name": self.name,
            "isSystem": self.is_system,
            "mode": self.mode,
            "subdomainAccess": self.subdomain_access,
            "ports": self.ports.iter().map(|p| json!({
                "protocol": p.protocol, "port": p.port, "description": "", "portRouting": false,
                "httpRouting": p.http, "scheme": if p.http { json!("http") } else { Value::Null }, "serviceId": null
            })).collect::<Vec<_>>(),
            "customAutoscaling": self.autoscaling,
            "currentAutoscaling": self.autoscaling,
            "created": self.created,
            "lastUpdate": self.created,
            "project": null,
            "userData": [],
            "connectedStacks": [],
            "activeAppVersion": null,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn process(duration: Duration) -> ProcessRec {
        ProcessRec {
            id: "p".into(),
            client_id: "c".into(),
            project_id: "pr".into(),
            action: "stack.restart".into(),
            services: Vec::new(),
            started_at: Instant::now(),
            wall_start: SystemTime::now(),
            created: String::new(),
            duration,
            failure: None,
            effect: Effect::None,
            on_cancel: Effect::None,
            canceled_at: None,
            hold: None,
            applied: false,
            created_by: String::new(),
            sequence: 1,
        }
    }

    fn times(p: &ProcessRec, now: Instant) -> (Value, Value) {
        let json = p.to_json(now, "demo");
        (json["started"].clone(), json["finished"].clone())
    }

    #[test]
    fn canceled_while_pending_it_never_started_and_finished_at_the_cancel() {
        let mut p = process(Duration::from_secs(30));
        let at = p.started_at + Duration::from_secs(2);
        p.canceled_at = Some(at);
        let first = times(&p, at);
        assert_eq!(first.0, Value::Null);
        assert_eq!(
            first.1,
            json!(format_rfc3339(p.wall_start + Duration::from_secs(2)))
        );
        // Later reads, even past the time it would have started or ended, say the same.
        for later in [1, 15, 60] {
            assert_eq!(times(&p, at + Duration::from_secs(later)), first);
        }
        assert_eq!(p.status(at + Duration::from_secs(60)), "CANCELED");
    }

    #[test]
    fn canceled_while_running_it_started_before_it_finished() {
        let mut p = process(Duration::from_secs(30));
        let at = p.started_at + Duration::from_secs(20);
        p.canceled_at = Some(at);
        let (started, finished) = times(&p, at + Duration::from_secs(100));
        assert_eq!(
            started,
            json!(format_rfc3339(p.wall_start + Duration::from_secs(10)))
        );
        assert_eq!(
            finished,
            json!(format_rfc3339(p.wall_start + Duration::from_secs(20)))
        );
    }

    #[test]
    fn a_canceled_build_reads_cancelled_and_never_becomes_active() {
        let start = Instant::now();
        let mut v = AppVersionRec {
            id: "av".into(),
            client_id: "c".into(),
            project_id: "pr".into(),
            service_id: "s".into(),
            build_service_id: "b".into(),
            source: "CLI".into(),
            sequence: 1,
            created: String::new(),
            pipeline_started: Some(start),
            duration: Duration::from_secs(10),
            failure: None,
            superseded: false,
            canceled: false,
            fixed_status: None,
            run: None,
            start_command: None,
        };
        let after = start + Duration::from_secs(20);
        assert_eq!(v.status(after), "ACTIVE");
        v.canceled = true;
        for now in [start, after] {
            assert_eq!(v.status(now), "CANCELLED");
            let build = &v.to_json(now)["build"];
            assert_eq!(build["pipelineFinish"], Value::Null);
            assert_eq!(build["pipelineFailed"], Value::Null);
        }
    }

    #[test]
    fn times_of_a_process_that_runs_its_course_do_not_drift() {
        let p = process(Duration::from_secs(30));
        let done = p.started_at + Duration::from_secs(40);
        let first = times(&p, done);
        assert_eq!(
            first.1,
            json!(format_rfc3339(p.wall_start + Duration::from_secs(30)))
        );
        assert_eq!(times(&p, done + Duration::from_secs(5)), first);
        assert_eq!(times(&p, p.started_at), (Value::Null, Value::Null));
    }
}
