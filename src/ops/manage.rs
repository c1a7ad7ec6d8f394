//! `zerops_manage`: start, stop, restart and scale a service, following the process.
//!
//! Scaling is checked before the API is called (at least one value, no negative value,
//! every min at most its max, managed services only vertically), always carries the
//! service's current HA/NON_HA mode when the API reports one (older API versions refused an
//! update without it; a mode is never guessed), and never
//! sends a container count as CPU cores: there is no API field for the initial container
//! count, so `startContainers` is reported as unsupported. Knows nothing of MCP.

use crate::json;

use serde_json::Value;

use crate::auth::Session;
use crate::platform::{
    Autoscaling, AutoscalingParams, ErrorCode, HorizontalAutoscaling, PlatformError, Resource,
    VerticalAutoscaling,
};

use super::follow::{Follow, follow_process};
use super::helpers::{
    fail_if_failed, followed_json, forget, refuse_if_deleting, remember, resolve_service,
    sent_pending, sent_running,
};

/// What the caller asked to scale to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScaleRequest {
    pub cpu_mode: Option<String>,
    pub min_cpu: Option<f64>,
    pub max_cpu: Option<f64>,
    pub min_ram: Option<f64>,
    pub max_ram: Option<f64>,
    pub min_disk: Option<f64>,
    pub max_disk: Option<f64>,
    pub min_containers: Option<f64>,
    pub max_containers: Option<f64>,
    pub start_containers: Option<f64>,
}

/// A min/max pair of a scaling request (see [`ScaleRequest::pairs`]).
struct Pair {
    names: (&'static str, &'static str),
    asked: (Option<f64>, Option<f64>),
    now: (Option<f64>, Option<f64>),
}

fn scaling_error(message: String) -> PlatformError {
    PlatformError::new(ErrorCode::InvalidScaling, message)
}

/// The scaling arguments by name (as zerops_manage takes them): `cpuMode`, then the
/// numbers in the order of [`ScaleRequest::fields`].
pub const SCALING_ARGUMENTS: [&str; 10] = [
    "cpuMode",
    "minCpu",
    "maxCpu",
    "minRam",
    "maxRam",
    "minDisk",
    "maxDisk",
    "minContainers",
    "maxContainers",
    "startContainers",
];

impl ScaleRequest {
    /// The numeric values, each with its argument name.
    fn fields(&self) -> [(&'static str, Option<f64>); 9] {
        let values = [
            self.min_cpu,
            self.max_cpu,
            self.min_ram,
            self.max_ram,
            self.min_disk,
            self.max_disk,
            self.min_containers,
            self.max_containers,
            self.start_containers,
        ];
        std::array::from_fn(|i| (SCALING_ARGUMENTS[i + 1], values[i]))
    }

    /// Checks the request on its own (before any API call).
    pub fn validate(&self) -> Result<(), PlatformError> {
        let given = self.cpu_mode.is_some() || self.fields().iter().any(|(_, v)| v.is_some());
        if !given {
            return Err(scaling_error("At least one scaling parameter must be provided".into()).with_suggestion(
                "Pass cpuMode, minCpu/maxCpu, minRam/maxRam (GB), minDisk/maxDisk (GB) or minContainers/maxContainers.",
            ));
        }
        if let Some(mode) = &self.cpu_mode
            && mode != "SHARED"
            && mode != "DEDICATED"
        {
            return Err(scaling_error(format!(
                "cpuMode must be SHARED or DEDICATED (got '{mode}')"
            )));
        }
        for (name, value) in self.fields() {
            if let Some(v) = value
                && (!v.is_finite() || v <= 0.0)
            {
                return Err(scaling_error(format!(
                    "{name} must be a positive number (got {v})"
                )));
            }
        }
        for (field, integer) in [
            ("minCpu", self.min_cpu),
            ("maxCpu", self.max_cpu),
            ("minContainers", self.min_containers),
            ("maxContainers", self.max_containers),
        ] {
            if let Some(v) = integer
                && v.fract() != 0.0
            {
                return Err(scaling_error(format!(
                    "{field} must be a whole number (got {v})"
                )));
            }
        }
        for (min_name, min, max_name, max) in [
            ("minCpu", self.min_cpu, "maxCpu", self.max_cpu),
            ("minRam", self.min_ram, "maxRam", self.max_ram),
            ("minDisk", self.min_disk, "maxDisk", self.max_disk),
            (
                "minContainers",
                self.min_containers,
                "maxContainers",
                self.max_containers,
            ),
        ] {
            if let (Some(lo), Some(hi)) = (min, max)
                && lo > hi
            {
                return Err(scaling_error(format!(
                    "{min_name} ({lo}) must be at most {max_name} ({hi})"
                )));
            }
        }
        if self.max_containers.is_some_and(|v| v > 10.0)
            || self.min_containers.is_some_and(|v| v > 10.0)
        {
            return Err(scaling_error("A service runs at most 10 containers".into()));
        }
        let only_start = self.start_containers.is_some()
            && self.cpu_mode.is_none()
            && self.fields()[..8].iter().all(|(_, v)| v.is_none());
        if only_start {
            return Err(scaling_error(
                "startContainers cannot be set: Zerops has no API field for the initial container count".into(),
            )
            .with_suggestion("Use minContainers/maxContainers; the platform starts minContainers containers."));
        }
        Ok(())
    }

    /// The four min/max pairs (CPU, RAM, disk, containers): names, the values asked for,
    /// and the service's values now (`current`).
    fn pairs(&self, current: &Autoscaling) -> [Pair; 4] {
        let vertical = current.vertical_autoscaling.as_ref();
        let low = vertical.and_then(|v| v.min_resource.as_ref());
        let high = vertical.and_then(|v| v.max_resource.as_ref());
        let horizontal = current.horizontal_autoscaling.as_ref();
        let resource =
            |pick: fn(&Resource) -> Option<f64>| (low.and_then(pick), high.and_then(pick));
        [
            Pair {
                names: ("minCpu", "maxCpu"),
                asked: (self.min_cpu, self.max_cpu),
                now: resource(|r| r.cpu_core_count),
            },
            Pair {
                names: ("minRam", "maxRam"),
                asked: (self.min_ram, self.max_ram),
                now: resource(|r| r.memory_gbytes),
            },
            Pair {
                names: ("minDisk", "maxDisk"),
                asked: (self.min_disk, self.max_disk),
                now: resource(|r| r.disk_gbytes),
            },
            Pair {
                names: ("minContainers", "maxContainers"),
                asked: (self.min_containers, self.max_containers),
                now: (
                    horizontal
                        .and_then(|h| h.min_container_count)
                        .map(f64::from),
                    horizontal
                        .and_then(|h| h.max_container_count)
                        .map(f64::from),
                ),
            },
        ]
    }

    /// Checks a min or a max given without its partner against the partner's value in
    /// `current` (the service's scaling now): the platform would keep a min above its max.
    fn check_against(&self, current: &Autoscaling) -> Result<(), PlatformError> {
        for pair in self.pairs(current) {
            let (min_name, max_name) = pair.names;
            let message = match (pair.asked, pair.now) {
                ((Some(lo), None), (_, Some(hi))) if lo > hi => format!(
                    "{min_name} ({lo}) would be above the service's current {max_name} ({hi})"
                ),
                ((None, Some(hi)), (Some(lo), _)) if lo > hi => format!(
                    "{max_name} ({hi}) would be below the service's current {min_name} ({lo})"
                ),
                _ => continue,
            };
            return Err(scaling_error(message).with_suggestion(format!(
                "Pass {min_name} and {max_name} together, with {min_name} at most {max_name}."
            )));
        }
        Ok(())
    }

    /// The request with each min or max given alone joined by its partner's current
    /// value (the one it was checked against): two scalings at once then leave a pair
    /// that was checked together, whichever lands last.
    fn with_current_partners(&self, current: &Autoscaling) -> ScaleRequest {
        let [cpu, ram, disk, containers] = self.pairs(current).map(|pair| match pair.asked {
            (Some(min), None) => (Some(min), pair.now.1),
            (None, Some(max)) => (pair.now.0, Some(max)),
            asked => asked,
        });
        ScaleRequest {
            cpu_mode: self.cpu_mode.clone(),
            min_cpu: cpu.0,
            max_cpu: cpu.1,
            min_ram: ram.0,
            max_ram: ram.1,
            min_disk: disk.0,
            max_disk: disk.1,
            min_containers: containers.0,
            max_containers: containers.1,
            start_containers: self.start_containers,
        }
    }

    fn has_horizontal(&self) -> bool {
        self.min_containers.is_some() || self.max_containers.is_some()
    }

    fn has_vertical(&self) -> bool {
        self.cpu_mode.is_some() || self.fields()[..6].iter().any(|(_, v)| v.is_some())
    }

    /// The API body: only the given leaves are set; `mode` is the service's current one,
    /// if it has one.
    pub fn to_params(&self, mode: Option<&str>) -> AutoscalingParams {
        let resource = |cpu: Option<f64>, ram: Option<f64>, disk: Option<f64>| {
            (cpu.is_some() || ram.is_some() || disk.is_some()).then_some(Resource {
                cpu_core_count: cpu,
                memory_gbytes: ram,
                disk_gbytes: disk,
            })
        };
        let vertical = self.has_vertical().then(|| VerticalAutoscaling {
            cpu_mode: self.cpu_mode.clone(),
            start_cpu_core_count: None,
            swap_enabled: None,
            min_resource: resource(self.min_cpu, self.min_ram, self.min_disk),
            max_resource: resource(self.max_cpu, self.max_ram, self.max_disk),
            min_free_resource: None,
        });
        let horizontal = self.has_horizontal().then(|| HorizontalAutoscaling {
            min_container_count: self.min_containers.map(|v| v as u32),
            max_container_count: self.max_containers.map(|v| v as u32),
        });
        AutoscalingParams {
            mode: mode.map(str::to_owned),
            custom_autoscaling: Autoscaling {
                vertical_autoscaling: vertical,
                horizontal_autoscaling: horizontal,
            },
        }
    }
}

/// A lifecycle action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifecycle {
    Start,
    Stop,
    Restart,
}

/// Starts, stops or restarts a service and follows the process.
pub fn lifecycle(
    session: &Session,
    hostname: &str,
    action: Lifecycle,
    follow: &mut Follow<'_>,
) -> Result<Value, PlatformError> {
    let listed = resolve_service(session, hostname)?;
    let lock = super::helpers::service_lock(session, &listed.id);
    let held = super::helpers::hold(&lock, follow.cancel)?;
    // Fresh, not from the lagging listing: a delete may have begun a moment ago.
    let service = session.client.get_service(&listed.id)?;
    let (verb, doing) = match action {
        Lifecycle::Start => ("start", "Starting"),
        Lifecycle::Stop => ("stop", "Stopping"),
        Lifecycle::Restart => ("restart", "Restarting"),
    };
    refuse_if_deleting(session, &service, verb)?;
    if service.status == "READY_TO_DEPLOY" {
        // No code, no containers: nothing to start, stop or restart. (The live answer to
        // such a call is unknown; the simulator would report a service running no code.)
        return Err(PlatformError::new(
            ErrorCode::InvalidUsage,
            format!(
                "'{}' has never been deployed: there is nothing to {verb} yet",
                service.name
            ),
        )
        .with_suggestion(format!(
            "Deploy code first (zerops_deploy with serviceHostname {}): the service starts with its first deploy.",
            service.name
        )));
    }
    // Check before acting, as for subdomains: a start of a running service or a stop of a
    // stopped one would only leave a process (and a GUI notification) that does nothing.
    // What this server already sent and the service does not show yet counts first: the
    // same change is not sent twice, and the status is not trusted while the opposite
    // change is on its way (a start behind a pending stop is still needed).
    let (sent_as, opposite) = match action {
        Lifecycle::Start => (Some("start"), Some("stop")),
        Lifecycle::Stop => (Some("stop"), Some("start")),
        Lifecycle::Restart => (None, None),
    };
    let unneeded = if let Some(id) = sent_as.and_then(|a| sent_running(session, &service.id, a)) {
        let status = if action == Lifecycle::Start {
            "starting"
        } else {
            "stopping"
        };
        Some((
            status,
            format!("Already requested: process {id} is under way; check it with zerops_process."),
        ))
    } else if opposite.is_some_and(|a| sent_pending(session, &service.id, a, false).is_some()) {
        None
    } else {
        match (action, service.status.as_str()) {
            (Lifecycle::Start, "ACTIVE") => Some((
                "already_running",
                "is already running: nothing was started. To restart it, use action restart.",
            )),
            (Lifecycle::Stop, "STOPPED") => Some((
                "already_stopped",
                "is already stopped: nothing was stopped.",
            )),
            // Under way at another client's request: the same change again would only queue.
            (Lifecycle::Start, "STARTING") => Some((
                "starting",
                "is already starting: nothing was sent; zerops_discover shows when it runs.",
            )),
            (Lifecycle::Stop, "STOPPING") => Some((
                "stopping",
                "is already stopping: nothing was sent; zerops_discover shows when it has stopped.",
            )),
            _ => None,
        }
        .map(|(status, why)| (status, format!("'{}' {why}", service.name)))
    };
    // A restart would bring back a service someone stopped on purpose, unasked; unless a
    // start this server sent is on its way, starting it is the caller's explicit choice.
    if action == Lifecycle::Restart
        && matches!(service.status.as_str(), "STOPPED" | "STOPPING")
        && sent_pending(session, &service.id, "start", false).is_none()
    {
        return Err(PlatformError::new(
            ErrorCode::InvalidUsage,
            format!(
                "'{}' is {}: a restart would start it, so nothing was sent",
                service.name,
                service.status.to_ascii_lowercase()
            ),
        )
        .with_suggestion(format!(
            "To run it again, use action start (serviceHostname {}); leave it stopped otherwise.",
            service.name
        )));
    }
    if let Some((status, message)) = unneeded {
        return Ok(json!({
            "serviceHostname": service.name,
            "serviceId": service.id,
            "status": status,
            "message": message,
        }));
    }
    let process = match action {
        Lifecycle::Start => session.client.start_service(&service.id)?,
        Lifecycle::Stop => session.client.stop_service(&service.id)?,
        Lifecycle::Restart => session.client.restart_service(&service.id)?,
    };
    if let (Some(sent_as), Some(opposite)) = (sent_as, opposite) {
        // This one comes after the opposite change: that one no longer says what is wanted.
        forget(session, &service.id, opposite);
        remember(session, &service.id, sent_as, &process.id);
    }
    drop(held);
    let (done, ending) = follow_process(session.client.as_ref(), process, follow)?;
    fail_if_failed(&done, ending, &format!("{doing} '{}'", service.name))?;
    Ok(json!({
        "serviceHostname": service.name,
        "serviceId": service.id,
        "process": followed_json(&done, ending),
    }))
}

/// Scales a service.
pub fn scale(
    session: &Session,
    hostname: &str,
    request: &ScaleRequest,
    follow: &mut Follow<'_>,
) -> Result<Value, PlatformError> {
    request.validate()?;
    let listed = resolve_service(session, hostname)?;
    // Fresh data: the mode must be the current one.
    let service = session.client.get_service(&listed.id)?;
    refuse_if_deleting(session, &service, "scale")?;
    let category = service.type_info.category.as_str();
    if category == "OBJECT_STORAGE" {
        return Err(scaling_error(format!(
            "'{}' is object storage: it has no CPU, RAM, disk or container scaling (its size is its bucket quota)",
            service.name
        ))
        .with_suggestion("Nothing to scale here: change the bucket quota in the Zerops GUI."));
    }
    if request.has_horizontal() && category != "USER" {
        return Err(scaling_error(format!(
            "'{}' is a {} service: its container count is fixed by its mode (NON_HA 1, HA 3); scale it vertically",
            service.name,
            if category == "STANDARD" {
                "managed"
            } else {
                "storage"
            }
        ))
        .with_suggestion(
            "Drop minContainers/maxContainers; scale CPU, RAM or disk (minCpu, maxRam, ...) instead.",
        ));
    }
    let current = service
        .custom_autoscaling
        .as_ref()
        .or(service.current_autoscaling.as_ref());
    let sent = match current {
        Some(current) => {
            request.check_against(current)?;
            request.with_current_partners(current)
        }
        None => request.clone(),
    };
    let params = sent.to_params(service.mode.as_deref());
    let mut result = json!({ "serviceHostname": service.name, "serviceId": service.id });
    // Like every other answer, `warnings` only when there is one.
    if request.start_containers.is_some() {
        result["warnings"] = json!([
            "startContainers was ignored: Zerops has no API field for the initial container count."
        ]);
    }
    match session.client.set_autoscaling(&service.id, &params)? {
        Some(process) => {
            let (done, ending) = follow_process(session.client.as_ref(), process, follow)?;
            fail_if_failed(&done, ending, &format!("Scaling '{}'", service.name))?;
            result["process"] = followed_json(&done, ending);
        }
        None => result["message"] = json!("Scaling parameters updated (applied immediately)"),
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_min_or_max_alone_is_checked_against_the_current_partner() {
        let current = Autoscaling {
            vertical_autoscaling: Some(VerticalAutoscaling {
                cpu_mode: None,
                start_cpu_core_count: None,
                swap_enabled: None,
                min_resource: Some(Resource {
                    cpu_core_count: Some(1.0),
                    memory_gbytes: Some(2.0),
                    disk_gbytes: None,
                }),
                max_resource: Some(Resource {
                    cpu_core_count: Some(4.0),
                    memory_gbytes: Some(4.0),
                    disk_gbytes: None,
                }),
                min_free_resource: None,
            }),
            horizontal_autoscaling: Some(HorizontalAutoscaling {
                min_container_count: Some(1),
                max_container_count: Some(3),
            }),
        };
        let refused = [
            (
                ScaleRequest {
                    max_ram: Some(1.0),
                    ..Default::default()
                },
                "maxRam (1) would be below the service's current minRam (2)",
            ),
            (
                ScaleRequest {
                    min_cpu: Some(5.0),
                    ..Default::default()
                },
                "minCpu (5) would be above the service's current maxCpu (4)",
            ),
            (
                ScaleRequest {
                    min_containers: Some(5.0),
                    ..Default::default()
                },
                "minContainers (5) would be above the service's current maxContainers (3)",
            ),
        ];
        for (request, message) in refused {
            let err = request.check_against(&current).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidScaling);
            assert_eq!(err.message, message);
        }
        for fine in [
            ScaleRequest {
                min_ram: Some(3.0),
                ..Default::default()
            },
            // Both given: the pair replaces the current one (validate() compares them).
            ScaleRequest {
                min_ram: Some(8.0),
                max_ram: Some(16.0),
                ..Default::default()
            },
            // No current partner to compare with.
            ScaleRequest {
                min_disk: Some(50.0),
                ..Default::default()
            },
        ] {
            assert!(fine.check_against(&current).is_ok(), "{fine:?}");
        }
        // What is sent: a value alone goes with its partner's current value, nothing else.
        let sent = ScaleRequest {
            min_ram: Some(3.0),
            max_containers: Some(2.0),
            ..Default::default()
        }
        .with_current_partners(&current);
        assert_eq!((sent.min_ram, sent.max_ram), (Some(3.0), Some(4.0)));
        assert_eq!(
            (sent.min_containers, sent.max_containers),
            (Some(1.0), Some(2.0))
        );
        assert_eq!(
            (sent.min_cpu, sent.max_cpu, sent.min_disk),
            (None, None, None)
        );
    }

    #[test]
    fn impossible_values_are_refused_naming_the_field() {
        let cases = [
            (ScaleRequest::default(), "At least one"),
            (
                ScaleRequest {
                    cpu_mode: Some("TURBO".into()),
                    ..Default::default()
                },
                "cpuMode",
            ),
            (
                ScaleRequest {
                    min_ram: Some(-1.0),
                    ..Default::default()
                },
                "minRam",
            ),
            (
                ScaleRequest {
                    min_cpu: Some(4.0),
                    max_cpu: Some(2.0),
                    ..Default::default()
                },
                "minCpu (4) must be at most maxCpu (2)",
            ),
            (
                ScaleRequest {
                    min_containers: Some(3.0),
                    max_containers: Some(2.0),
                    ..Default::default()
                },
                "minContainers",
            ),
            (
                ScaleRequest {
                    max_containers: Some(11.0),
                    ..Default::default()
                },
                "10 containers",
            ),
            (
                ScaleRequest {
                    min_cpu: Some(1.5),
                    ..Default::default()
                },
                "whole number",
            ),
            (
                ScaleRequest {
                    start_containers: Some(2.0),
                    ..Default::default()
                },
                "no API field",
            ),
        ];
        for (request, needle) in cases {
            let err = request.validate().unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidScaling);
            assert!(err.message.contains(needle), "{request:?}: {}", err.message);
        }
    }

    #[test]
    fn params_carry_the_mode_and_never_put_containers_into_cpu() {
        let request = ScaleRequest {
            min_ram: Some(0.5),
            max_ram: Some(4.0),
            max_containers: Some(3.0),
            start_containers: Some(2.0),
            ..Default::default()
        };
        request.validate().unwrap();
        let params = request.to_params(Some("HA"));
        assert_eq!(params.mode.as_deref(), Some("HA"));
        // No mode reported (the field is deprecated): none is sent, none is guessed.
        let wire = serde_json::to_value(request.to_params(None)).unwrap();
        assert!(wire.get("mode").is_none(), "{wire}");
        let vertical = params.custom_autoscaling.vertical_autoscaling.unwrap();
        assert_eq!(vertical.start_cpu_core_count, None);
        assert_eq!(vertical.min_resource.unwrap().memory_gbytes, Some(0.5));
        assert_eq!(
            params
                .custom_autoscaling
                .horizontal_autoscaling
                .unwrap()
                .max_container_count,
            Some(3)
        );
    }
}
