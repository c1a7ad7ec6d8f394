//! `zerops_process`: status of a process, or cancelling one that is still running.
//! Knows nothing of MCP.

use serde_json::{Value, json};

use crate::auth::Session;
use crate::platform::{ErrorCode, PlatformError};

use super::helpers::process_json;
use super::progress::process_in_progress;

/// The current state of a process. Errors keep their own codes (an expired token is not a
/// missing process).
pub fn status(session: &Session, process_id: &str) -> Result<Value, PlatformError> {
    let id = require_id(process_id)?;
    let process = session.client.get_process(id)?;
    let mut value = process_json(&process);
    value["inProgress"] = json!(process_in_progress(&process.status));
    Ok(value)
}

/// Cancels a running process; a finished one is PROCESS_ALREADY_TERMINAL.
pub fn cancel(session: &Session, process_id: &str) -> Result<Value, PlatformError> {
    let id = require_id(process_id)?;
    let current = session.client.get_process(id)?;
    if !process_in_progress(&current.status) {
        return Err(PlatformError::new(
            ErrorCode::ProcessAlreadyTerminal,
            format!("Process '{id}' is already {}", current.status),
        )
        .with_suggestion("Only PENDING or RUNNING processes can be canceled; check the result with action status."));
    }
    let canceled = session.client.cancel_process(id)?;
    let mut value = process_json(&canceled);
    value["message"] = json!(format!("Process {id} canceled"));
    Ok(value)
}

fn require_id(process_id: &str) -> Result<&str, PlatformError> {
    let id = process_id.trim();
    if id.is_empty() {
        return Err(PlatformError::new(ErrorCode::InvalidParameter, "A processId is required")
            .with_suggestion("Pass the processId returned by the tool that started the process, or find it with zerops_events."));
    }
    Ok(id)
}
