//! Service lifecycle, scaling, deletion, subdomain access and process cancellation.

use std::time::{Duration, Instant};

use crate::json;

use serde_json::Value;

use super::{Outcome, State, TokenScope, error, forbidden, ok};
use crate::sim::catalog::Category;
use crate::sim::http::{Request, Response};
use crate::sim::model::Effect;

impl State {
    pub(super) fn lifecycle(
        &mut self,
        scope: &TokenScope,
        id: &str,
        action: &str,
        _now: Instant,
    ) -> Outcome {
        let index = self.service(scope, id)?;
        let project = self.services[index].project_id.clone();
        let (transition, end) = match action {
            "start" => ("STARTING", "ACTIVE"),
            "stop" => ("STOPPING", "STOPPED"),
            _ => ("RESTARTING", "ACTIVE"),
        };
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
        self.hold_status(p, index, transition);
        Ok(ok(self.process_json(p, Instant::now())))
    }

    pub(super) fn autoscaling(
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
        // One CPU mode change an hour (asking for the mode it has is no change).
        let service = &mut self.services[index];
        let wanted = &custom["verticalAutoscaling"]["cpuMode"];
        if wanted.is_string() && *wanted != service.autoscaling["verticalAutoscaling"]["cpuMode"] {
            if service
                .cpu_mode_changed
                .is_some_and(|t| now.saturating_duration_since(t) < Duration::from_secs(3600))
            {
                return Err(error(
                    400,
                    "lastCpuModeChangeTooRecent",
                    "The CPU mode can be changed once per hour.",
                    Value::Null,
                ));
            }
            service.cpu_mode_changed = Some(now);
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

    pub(super) fn delete_service(&mut self, scope: &TokenScope, id: &str, now: Instant) -> Outcome {
        let index = self.service(scope, id)?;
        if self.services[index].is_system {
            return Err(error(
                400,
                "serviceStackIsSystemNotSupported",
                "System services cannot be deleted.",
                Value::Null,
            ));
        }
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
        self.hold_status(p, index, "DELETING");
        Ok(ok(self.process_json(p, now)))
    }

    pub(super) fn find_process(&self, scope: &TokenScope, id: &str) -> Result<usize, Response> {
        let index = self
            .processes
            .iter()
            .position(|p| p.id == id)
            .ok_or_else(|| error(404, "processNotFound", "Process not found.", Value::Null))?;
        if !State::allowed(scope, &self.processes[index].project_id) {
            return Err(forbidden());
        }
        Ok(index)
    }

    pub(super) fn cancel(&mut self, scope: &TokenScope, id: &str, now: Instant) -> Outcome {
        let index = self.find_process(scope, id)?;
        if self.processes[index].is_over(now) {
            return Err(error(
                400,
                "processIsAlreadyOver",
                "The process is already over.",
                Value::Null,
            ));
        }
        self.processes[index].canceled_at = Some(now);
        // A canceled build writes no more: the log lines it had not reached never come.
        if let Effect::CancelVersion { version } = &self.processes[index].on_cancel {
            let (tag, now_text) = (format!("zbuilder@{version}"), super::now_text());
            self.logs
                .retain(|l| l.tag != tag || l.timestamp <= now_text);
        }
        Ok(ok(self.process_json(index, now)))
    }

    pub(super) fn subdomain(
        &mut self,
        scope: &TokenScope,
        id: &str,
        enable: bool,
        now: Instant,
    ) -> Outcome {
        let index = self.service(scope, id)?;
        let service = &self.services[index];
        let has_http = service.ports.iter().any(|p| p.http);
        let project = service.project_id.clone();
        let duration = self.config.process_duration;
        if enable {
            // Object storage has no HTTP port either: it is reached through its S3 apiUrl,
            // never through a zerops.app subdomain.
            if !has_http {
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
