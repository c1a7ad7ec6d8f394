//! `zerops_delete`: deletes a service, only with `confirm: true`. Without it nothing is
//! changed, but the hostname is still checked (and looked up when the API can be reached),
//! so the agent is not sent to ask the user to approve deleting a service that is not
//! there. Knows nothing of MCP.

use crate::json;

use serde_json::Value;

use crate::auth::Session;
use crate::platform::{ErrorCode, PlatformError};

use super::follow::{Follow, follow_process};
use super::helpers::{check_hostname, fail_if_failed, followed_json, resolve_service};

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
    let (done, ending) = follow_process(session.client.as_ref(), process, follow)?;
    fail_if_failed(&done, ending, &format!("Deleting '{}'", service.name))?;
    Ok(json!({
        "serviceHostname": service.name,
        "serviceId": service.id,
        "process": followed_json(&done, ending),
    }))
}
