//! `zerops_delete`: deletes a service, only with `confirm: true`. Without it nothing is
//! changed, but the hostname is still checked (and looked up when the API can be reached),
//! so the agent is not sent to ask the user to approve deleting a service that is not
//! there. Knows nothing of MCP.

use crate::json;

use serde_json::Value;

use crate::auth::Session;
use crate::platform::{EnvVar, ErrorCode, PlatformError, ServiceStack};

use super::follow::{Follow, follow_process};
use super::helpers::{
    check_hostname, fail_if_failed, followed_json, project_services, resolve_service,
};

/// The answer without `confirm: true`: an invalid hostname, or one the project does not
/// have (looked up when there is a `session`; reads only), is reported as such; a service
/// that exists gets the refusal that asks for the user's approval.
pub fn require_confirmation(
    session: Option<&Session>,
    hostname: &str,
) -> Result<Value, PlatformError> {
    let hostname = check_hostname(hostname)?;
    if let Some(session) = session {
        resolve_service(session, hostname)?;
    }
    Err(PlatformError::new(ErrorCode::ConfirmRequired, format!("Deleting '{hostname}' needs confirmation"))
        .with_suggestion("Deletion is permanent (data included). Ask the user to approve, then call again with confirm: true."))
}

/// Deletes `hostname` when confirmed.
pub fn delete(
    session: &Session,
    hostname: &str,
    confirm: bool,
    follow: &mut Follow<'_>,
) -> Result<Value, PlatformError> {
    if !confirm {
        return require_confirmation(Some(session), hostname);
    }
    let hostname = check_hostname(hostname)?;
    let listed = resolve_service(session, hostname)?;
    let lock = super::helpers::service_lock(session, &listed.id);
    let held = super::helpers::hold(&lock, follow.cancel)?;
    // Fresh, not from the lagging listing: a delete already under way is reported, not
    // started again (the platform would accept a second one).
    let service = session.client.get_service(&listed.id)?;
    if service.status == "DELETING" || super::helpers::delete_pending(session, &service.id) {
        return Ok(json!({
            "serviceHostname": service.name,
            "serviceId": service.id,
            "status": "already_deleting",
            "message": format!("'{}' is already being deleted; zerops_discover shows when it is gone.", service.name),
        }));
    }
    let process = session.client.delete_service(&service.id)?;
    super::helpers::remember(session, &service.id, "delete", &process.id);
    drop(held);
    let (done, ending) = follow_process(session.client.as_ref(), process, follow)?;
    fail_if_failed(&done, ending, &format!("Deleting '{}'", service.name))?;
    let mut result = json!({
        "serviceHostname": service.name,
        "serviceId": service.id,
        "process": followed_json(&done, ending),
    });
    let warnings = dangling_references(session, &service);
    if !warnings.is_empty() {
        result["warnings"] = json!(warnings);
    }
    Ok(result)
}

/// Variables of the other services and of the project that reference the deleted service
/// (`${db_connectionString}`): the platform keeps them, and once it is gone the app gets
/// the text as written. Read after the fact and best effort: a failed read names nothing.
fn dangling_references(session: &Session, deleted: &ServiceStack) -> Vec<String> {
    let prefix = format!("${{{}_", deleted.name);
    let mut warnings = Vec::new();
    let mut note = |owner: &str, vars: Vec<EnvVar>| {
        for var in &vars {
            // The references only, never the rest of the value (it may hold a secret): a
            // reference is the prefix, a key of letters, digits, `_` or `-`, and `}`.
            let names: Vec<&str> = var
                .content
                .match_indices(&prefix)
                .filter_map(|(at, _)| {
                    let key = &var.content[at + prefix.len()..];
                    let end =
                        key.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))?;
                    (end > 0 && key[end..].starts_with('}'))
                        .then(|| &var.content[at..at + prefix.len() + end + 1])
                })
                .collect();
            if !names.is_empty() {
                warnings.push(format!(
                    "{owner}: {} reads {}; the app gets the text as written once '{}' is gone. Change or delete it with zerops_env.",
                    var.key,
                    names.join(", "),
                    deleted.name
                ));
            }
        }
    };
    let others = project_services(session).unwrap_or_default();
    for other in others
        .iter()
        .filter(|s| s.id != deleted.id && s.status != "DELETING")
    {
        note(
            &other.name,
            session
                .client
                .get_service_env(&other.id)
                .unwrap_or_default(),
        );
    }
    let project = session.client.get_project_env(&session.info.project_id);
    note("project", project.unwrap_or_default());
    warnings
}
