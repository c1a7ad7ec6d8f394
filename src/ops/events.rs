//! `zerops_events`: processes and app versions merged into one timeline, newest first.
//! Filtering (project, internal actions, service) happens before the limit, and more is
//! fetched when filtering dropped items, so the agent gets the number it asked for, and
//! the newest ones: each source is read until it holds `limit` kept items or ends.
//! Knows nothing of MCP.

use std::collections::HashMap;
use std::time::SystemTime;

use crate::json;

use serde_json::Value;

use crate::auth::Session;
use crate::platform::{AppVersionEvent, PlatformError, ProcessEvent};
use crate::time::parse_rfc3339;

use super::helpers::{check_hostname, find_service, project_services};
use super::pager::{MAX_READ, Pager};

/// Friendly names of the platform's action names.
pub fn action_label(action: &str) -> String {
    let label = match action {
        "stack.start" => "start",
        "stack.stop" => "stop",
        "stack.restart" => "restart",
        "stack.reload" => "reload",
        "stack.autoscaling" | "stack.updateAutoscaling" => "scale",
        "stack.import" => "import",
        "stack.delete" => "delete",
        "stack.build" => "build",
        "stack.enableSubdomainAccess" => "subdomain-enable",
        "stack.disableSubdomainAccess" => "subdomain-disable",
        // Service variables (the env file, or one variable created, changed or deleted)
        // and project variables: the exact names of the per-variable actions are not
        // documented, so their families are matched.
        other if other.starts_with("stack.userData") => "env-update",
        other if other.starts_with("project.env") => "project-env-update",
        other => other,
    };
    label.to_owned()
}

struct Event {
    at: SystemTime,
    value: Value,
    service: String,
    is_process: bool,
}

/// The timeline. `service_hostname` filters; `limit` caps it (1..=1000).
pub fn events(
    session: &Session,
    service_hostname: Option<&str>,
    limit: usize,
) -> Result<Value, PlatformError> {
    let limit = limit.clamp(1, MAX_READ);
    if let Some(hostname) = service_hostname.filter(|h| !h.trim().is_empty()) {
        check_hostname(hostname)?;
    }
    let services = project_services(session)?;
    // A service that no longer exists (deleted) still has a history: filter by its name,
    // and report it missing only when nothing of it is found either.
    let mut gone: Option<PlatformError> = None;
    let filter = match service_hostname.map(str::trim).filter(|h| !h.is_empty()) {
        Some(hostname) => match find_service(&services, hostname) {
            Ok(service) => Some(service.name),
            Err(err) => {
                gone = Some(err);
                Some(hostname.to_owned())
            }
        },
        None => None,
    };
    let mut names: HashMap<String, String> = services
        .iter()
        .map(|s| (s.id.clone(), s.name.clone()))
        .collect();
    let project_id = &session.info.project_id;
    let mut processes = Pager::new(project_id, limit);
    let mut versions = Pager::new(project_id, limit);
    let (mut processes_done, mut versions_done) = (false, false);
    loop {
        if !processes_done {
            processes.read_next(
                |l, o| session.client.search_processes_page(project_id, l, o),
                |p| &p.id,
            )?;
        }
        if !versions_done {
            versions.read_next(
                |l, o| session.client.search_app_versions_page(project_id, l, o),
                |v| &v.id,
            )?;
        }
        // A deleted service is in no listing, but its processes keep its name: its builds
        // are named (and filtered) by that, not by a bare id.
        for service in processes.items.iter().flat_map(|p| &p.service_stacks) {
            if !service.name.is_empty() {
                names
                    .entry(service.id.clone())
                    .or_insert_with(|| service.name.clone());
            }
        }
        let keep = |e: &Event| filter.as_ref().is_none_or(|name| &e.service == name);
        let mut timeline: Vec<Event> = processes
            .items
            .iter()
            .filter_map(process_event)
            .filter(keep)
            .collect();
        let kept_processes = timeline.len();
        timeline.extend(
            versions
                .items
                .iter()
                .filter_map(|v| version_event(v, &names))
                .filter(keep),
        );
        let kept_versions = timeline.len() - kept_processes;
        // Each source must be read to its end or hold `limit` kept items: otherwise its
        // next unread item could be newer than kept items of the other source.
        processes_done = processes.ended() || kept_processes >= limit;
        versions_done = versions.ended() || kept_versions >= limit;
        if processes_done && versions_done {
            // (Taken here, on the one pass that returns.)
            let deleted = match gone.take() {
                Some(err) if timeline.is_empty() => return Err(err),
                Some(_) => true,
                None => false,
            };
            crate::order::sort_by_key(&mut timeline, |e| std::cmp::Reverse(e.at));
            timeline.truncate(limit);
            let processes = timeline.iter().filter(|e| e.is_process).count();
            let deploys = timeline.len() - processes;
            let mut result = json!({
                "projectId": session.info.project_id,
                "events": timeline.into_iter().map(|e| e.value).collect::<Vec<_>>(),
                "summary": { "total": processes + deploys, "processes": processes, "deploys": deploys },
            });
            if let (Some(name), true) = (&filter, deleted) {
                result["note"] = json!(format!(
                    "'{name}' is no longer in the project (deleted): these are its past events."
                ));
            }
            return Ok(result);
        }
    }
}

fn timestamp(text: Option<&String>) -> SystemTime {
    text.and_then(|t| parse_rfc3339(t))
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

fn process_event(process: &ProcessEvent) -> Option<Event> {
    // Internal balancer bookkeeping clutters the timeline.
    if process.action_name.starts_with("zL7Master.") {
        return None;
    }
    let service = process
        .service_stacks
        .first()
        .map(|s| s.name.clone())
        .unwrap_or_default();
    let mut value = json!({
        "timestamp": process.created,
        "type": "process",
        "action": action_label(&process.action_name),
        "status": process.status,
        "processId": process.id,
    });
    // Project-wide processes (project variables) belong to no service: no empty name.
    if !service.is_empty() {
        value["service"] = json!(service);
    }
    if let Some(reason) = &process.fail_reason {
        value["failReason"] = json!(reason);
    }
    if let (Some(start), Some(end)) = (
        process.started.as_ref().and_then(|s| parse_rfc3339(s)),
        process.finished.as_ref().and_then(|s| parse_rfc3339(s)),
    ) && let Ok(took) = end.duration_since(start)
    {
        value["duration"] = json!(format_duration(took.as_secs()));
    }
    if let Some(user) = &process.created_by {
        value["user"] = json!(user);
    }
    Some(Event {
        at: timestamp(process.created.as_ref()),
        value,
        service,
        is_process: true,
    })
}

fn version_event(version: &AppVersionEvent, names: &HashMap<String, String>) -> Option<Event> {
    // A service started without code gets a placeholder version: not a deploy.
    if version.source == "NONE" && version.build.is_none() {
        return None;
    }
    let service = names
        .get(&version.service_id)
        .cloned()
        .unwrap_or_else(|| version.service_id.clone());
    let built = version
        .build
        .as_ref()
        .is_some_and(|b| b.pipeline_start.is_some());
    let kind = if built { "build" } else { "deploy" };
    let mut value = json!({
        "timestamp": version.created,
        "type": kind,
        "action": kind,
        "status": version.status,
        "service": service,
        "appVersionId": version.id,
    });
    if let Some(build) = &version.build {
        // Advice, not the platform's reason (the build's process event carries that).
        if build.pipeline_failed.is_some() || version.status.ends_with("_FAILED") {
            value["hint"] = json!(format!(
                "Read the build log with zerops_logs (serviceHostname {service}, buildId {})",
                version.id
            ));
        }
        if let (Some(start), Some(end)) = (
            build.pipeline_start.as_ref().and_then(|s| parse_rfc3339(s)),
            build
                .pipeline_finish
                .as_ref()
                .and_then(|s| parse_rfc3339(s)),
        ) && let Ok(took) = end.duration_since(start)
        {
            value["duration"] = json!(format_duration(took.as_secs()));
        }
    }
    Some(Event {
        at: timestamp(version.created.as_ref()),
        value,
        service,
        is_process: false,
    })
}

/// `45s`, `2m5s`, `1h3m`.
pub fn format_duration(secs: u64) -> String {
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m{}s", s / 60, s % 60),
        s => format!("{}h{}m", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_durations() {
        assert_eq!(action_label("stack.updateAutoscaling"), "scale");
        assert_eq!(action_label("stack.userDataFile"), "env-update");
        for action in [
            "stack.userDataCreate",
            "stack.userDataUpdate",
            "stack.userDataDelete",
        ] {
            assert_eq!(action_label(action), "env-update", "{action}");
        }
        assert_eq!(action_label("project.envCreate"), "project-env-update");
        assert_eq!(action_label("stack.somethingNew"), "stack.somethingNew");
        assert_eq!(format_duration(45), "45s");
        assert_eq!(format_duration(125), "2m5s");
        assert_eq!(format_duration(3780), "1h3m");
    }
}
