//! `zerops_subdomain`: enable or disable a service's public zerops.app URL, idempotently.
//!
//! The platform does not answer "already enabled": a repeated enable is accepted and its
//! process fails, leaving a failed process behind. So the current state is read first
//! (fresh, not from the lagging search index) and an unchanged state is a success. Right
//! after a first deploy the platform may refuse with `noSubdomainPorts` while the HTTP
//! ports register; that is retried with backoff before it is explained. Knows nothing of
//! MCP.

use std::time::Duration;

use crate::json;

use serde_json::Value;

use crate::auth::Session;
use crate::cancel::CancelToken;
use crate::platform::{ErrorCode, PlatformError, Process, ServiceStack};

use super::discover::subdomain_url;
use super::follow::{Follow, follow_process};
use super::helpers::{
    canceled, data_service_kind, followed_json, refuse_if_deleting, remember, resolve_service,
    sent_pending,
};
use super::progress::Ending;

/// Waits between retries of a `noSubdomainPorts` refusal.
const RETRY_DELAYS: [Duration; 3] = [
    Duration::from_millis(250),
    Duration::from_millis(500),
    Duration::from_secs(1),
];

/// The service's public URL, as discover shows it.
pub(super) fn url_of(session: &Session, service: &ServiceStack) -> Option<String> {
    let project = session.client.get_project(&session.info.project_id).ok()?;
    let envs = session.client.get_service_env(&service.id).ok();
    subdomain_url(
        service,
        project.zerops_subdomain_host.as_deref().unwrap_or(""),
        envs.as_deref(),
    )
}

/// What to do when the platform finds no HTTP port to route to (as a refusal, or as the
/// reason of a failed enable process).
fn no_http_port_yet(service: &ServiceStack) -> String {
    let version = &service.type_info.version_name;
    // Their base's web server serves port 80 by itself: zerops.yml needs no port for it.
    if super::helpers::runs_web_server(version) {
        return format!(
            "'{}' ({version}) serves HTTP on port 80 once a deployed version runs: if it has none yet, deploy it (zerops_deploy), then enable the subdomain; right after a deploy, wait a few seconds and retry.",
            service.name
        );
    }
    format!(
        "'{}' exposes no HTTP port. Declare one in zerops.yml (run.ports with httpSupport: true), deploy, then enable the subdomain. Right after a first deploy, wait a few seconds and retry.",
        service.name
    )
}

fn enable_with_retry(
    session: &Session,
    service: &ServiceStack,
    cancel: &CancelToken,
) -> Result<Process, PlatformError> {
    let mut delays = RETRY_DELAYS.iter();
    loop {
        match session.client.enable_subdomain_access(&service.id) {
            Err(err) if err.api_code.as_deref() == Some("noSubdomainPorts") => {
                match delays.next() {
                    Some(delay) if !cancel.wait_timeout(*delay) => continue,
                    _ => {
                        return Err(PlatformError {
                            code: ErrorCode::InvalidUsage,
                            suggestion: no_http_port_yet(service),
                            ..err
                        });
                    }
                }
            }
            Err(err) if err.api_code.as_deref() == Some("serviceStackIsNotHttp") => {
                return Err(PlatformError {
                    code: ErrorCode::InvalidUsage,
                    suggestion: no_http_port_yet(service),
                    ..err
                });
            }
            other => return other,
        }
    }
}

/// Why a service can never have a zerops.app subdomain, for the categories that cannot.
/// A runtime without an HTTP port is left to the API: right after its first deploy the
/// service may not list the ports of the new zerops.yml yet, and the enable is retried
/// while they register.
fn no_subdomain_for(service: &ServiceStack) -> Option<PlatformError> {
    let kind = data_service_kind(service)?;
    let suggestion = match service.type_info.category.as_str() {
        "STANDARD" => {
            "Managed services are reached over the project's private network (hostname and port, e.g. from another service's env references); from your own machine use `zcli vpn up`."
        }
        "OBJECT_STORAGE" => {
            "Object storage is reached through its S3 endpoint: the service's `apiUrl` variable (zerops_env get), with its access keys."
        }
        _ => {
            "Shared storage is a volume mounted into runtime services; publish the runtime that serves its files instead."
        }
    };
    let message = format!(
        "'{}' is {kind} service: only runtime services with an HTTP port get a public subdomain",
        service.name
    );
    Some(PlatformError::new(ErrorCode::InvalidUsage, message).with_suggestion(suggestion))
}

/// Waits for the `action` process `id` this server sent for `service` to end, and returns
/// the service as it is then. A wait that ends first (time or cancel) is an error that names
/// the process, as the change asked for would otherwise race it.
fn after_pending(
    session: &Session,
    service: ServiceStack,
    id: &str,
    action: &str,
    follow: &mut Follow<'_>,
) -> Result<ServiceStack, PlatformError> {
    // Unreadable now (sent_pending counts such a process as pending): the request goes
    // ahead on the service as read, as it did before this wait existed.
    let Ok(pending) = session.client.get_process(id) else {
        return Ok(service);
    };
    let (done, ending) = follow_process(session.client.as_ref(), pending, follow)?;
    if ending != Ending::Finished {
        let message = format!(
            "The subdomain {action} this server sent for '{}' (process {id}) is still {}",
            service.name, done.status
        );
        let suggestion = format!(
            "Follow it with zerops_process (processId {id}, action status), then call zerops_subdomain again."
        );
        return Err(
            PlatformError::new(ErrorCode::InvalidUsage, message).with_suggestion(suggestion)
        );
    }
    session.client.get_service(&service.id)
}

/// Enables (`true`) or disables the subdomain of `hostname`.
pub fn set(
    session: &Session,
    hostname: &str,
    enable: bool,
    follow: &mut Follow<'_>,
) -> Result<Value, PlatformError> {
    let listed = resolve_service(session, hostname)?;
    // A second change of this service waits here until the first is sent and remembered,
    // then sees it as pending.
    let lock = super::helpers::service_lock(session, &listed.id);
    let mut held = super::helpers::hold(&lock, follow.cancel)?;
    let service = session.client.get_service(&listed.id)?;
    let action = if enable { "enable" } else { "disable" };
    refuse_if_deleting(session, &service, &format!("{action} the subdomain of"))?;
    // Refused both ways: a managed service or a storage never has a subdomain.
    if let Some(refusal) = no_subdomain_for(&service) {
        return Err(refusal);
    }
    let mut result = json!({ "serviceHostname": service.name, "serviceId": service.id, "action": action, "warnings": [] });
    // What this server already sent and the service does not show yet: the same change is
    // not sent twice, and the flag is not trusted while the opposite one is on its way.
    let already = |mut result: Value, id: String| {
        result["status"] = json!(if enable { "enabling" } else { "disabling" });
        result["warnings"] = json!([format!(
            "Already requested: process {id} is under way; check it with zerops_process."
        )]);
        result
    };
    if let Some(id) = sent_pending(session, &service.id, action, false) {
        return Ok(already(result, id));
    }
    let opposite = if enable { "disable" } else { "enable" };
    // The opposite change this server sent comes first: the flag (and the platform's own
    // "already" refusal) would judge this one by a state about to change. It is waited for
    // without the lock (other changes of the service need not wait as well), and the same
    // change sent by another call meanwhile is not sent again.
    let service = match sent_pending(session, &service.id, opposite, false) {
        Some(id) => {
            drop(held);
            let fresh = after_pending(session, service, &id, opposite, follow)?;
            held = super::helpers::hold(&lock, follow.cancel)?;
            if let Some(id) = sent_pending(session, &fresh.id, action, false) {
                return Ok(already(result, id));
            }
            fresh
        }
        None => service,
    };
    if service.subdomain_access == enable {
        result["status"] = json!(if enable {
            "already_enabled"
        } else {
            "already_disabled"
        });
        if enable && let Some(url) = url_of(session, &service) {
            result["url"] = json!(url);
        }
        return Ok(result);
    }
    let started = if enable {
        enable_with_retry(session, &service, follow.cancel)?
    } else {
        match session.client.disable_subdomain_access(&service.id) {
            Err(err) if err.code == ErrorCode::SubdomainAlreadyDisabled => {
                result["status"] = json!("already_disabled");
                return Ok(result);
            }
            other => other?,
        }
    };
    remember(session, &service.id, action, &started.id);
    drop(held);
    let (done, ending) = follow_process(session.client.as_ref(), started, follow)?;
    result["process"] = followed_json(&done, ending);
    if !matches!(ending, Ending::Finished) {
        // Not done yet: say so, rather than report a state the service does not have.
        result["status"] = json!(if enable { "enabling" } else { "disabling" });
        result["warnings"] = json!([format!(
            "The {action} process {} is still {}; check it with zerops_process, or zerops_discover for the subdomain.",
            done.id, done.status
        )]);
        return Ok(result);
    }
    result["status"] = json!(if enable { "enabled" } else { "disabled" });
    if done.status == "CANCELED" {
        // Judged by the state as well: a cancel that came too late changed nothing.
        let now = session.client.get_service(&service.id)?;
        if now.subdomain_access != enable {
            return Err(canceled(
                &done,
                &format!(
                    "{} the subdomain of '{}'",
                    if enable { "Enabling" } else { "Disabling" },
                    service.name
                ),
            ));
        }
    }
    if done.status == "FAILED" {
        // A race with another enable: judge by the state, keep the reason as a warning.
        let now = session.client.get_service(&service.id)?;
        if now.subdomain_access == enable {
            result["warnings"] = json!([format!(
                "The process failed ({}), but the subdomain is {action}d.",
                done.fail_reason.clone().unwrap_or_default()
            )]);
        } else {
            let mut err = PlatformError::new(
                ErrorCode::ProcessFailed,
                format!(
                    "Could not {action} the subdomain of '{}' (process {})",
                    service.name, done.id
                ),
            );
            err.fail_reason = done.fail_reason.clone();
            // The platform may refuse "no http ports" this way too, not only up front.
            let suggestion = if done
                .fail_reason
                .as_deref()
                .is_some_and(|r| r.contains("noSubdomainPorts"))
            {
                no_http_port_yet(&service)
            } else {
                "Check zerops_events for the failed process and retry.".to_owned()
            };
            return Err(err.with_suggestion(suggestion));
        }
    }
    if enable {
        let fresh = session.client.get_service(&service.id).unwrap_or(service);
        if let Some(url) = url_of(session, &fresh) {
            result["url"] = json!(url);
        }
        result["hint"] =
            json!("The route can take a second or two to serve after the process finishes.");
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(version: &str) -> ServiceStack {
        let mut service = ServiceStack {
            name: "site".into(),
            ..ServiceStack::default()
        };
        service.type_info.version_name = version.into();
        service
    }

    /// Static, Nginx and PHP bases serve port 80 themselves: the advice is to deploy, not
    /// to declare a port (which their docs call a mistake); other runtimes declare one.
    #[test]
    fn the_no_http_port_advice_fits_the_type() {
        for version in ["static", "php-nginx@8.4", "php-apache@8.3", "nginx@1.22"] {
            let advice = no_http_port_yet(&service(version));
            assert!(advice.contains("serves HTTP on port 80"), "{advice}");
            assert!(!advice.contains("run.ports"), "{advice}");
        }
        for version in ["nodejs@22", "staticx@1", "python@3.12"] {
            let advice = no_http_port_yet(&service(version));
            assert!(advice.contains("run.ports"), "{advice}");
        }
    }
}
