//! `zerops_process`: status of a process, or cancelling one that is still running.
//! Knows nothing of MCP.

use crate::json;

use serde_json::Value;

use crate::auth::Session;
use crate::platform::{ErrorCode, PlatformError, Process};

use super::helpers::process_json;
use super::progress::process_in_progress;

/// The current state of a process. Errors keep their own codes (an expired token is not a
/// missing process).
pub fn status(session: &Session, process_id: &str) -> Result<Value, PlatformError> {
    let id = require_id(process_id)?;
    let process = own_process(session, id)?;
    let mut value = process_json(&process);
    value["inProgress"] = json!(process_in_progress(&process.status));
    Ok(value)
}

/// Cancels a running process; a finished one is PROCESS_ALREADY_TERMINAL.
pub fn cancel(session: &Session, process_id: &str) -> Result<Value, PlatformError> {
    let id = require_id(process_id)?;
    let current = own_process(session, id)?;
    match current.status.to_ascii_uppercase().as_str() {
        "CANCELING" => {
            let mut value = process_json(&current);
            value["inProgress"] = json!(true);
            value["message"] = json!(format!("Process {id} is already being canceled"));
            return Ok(value);
        }
        "ROLLBACKING" => {
            // The id is right; the process's state refuses the cancel.
            return Err(PlatformError::new(
                ErrorCode::InvalidUsage,
                format!("Process '{id}' is rolling back and cannot be canceled now"),
            )
            .with_suggestion("Wait for the rollback to end; check it with action status."));
        }
        _ => {}
    }
    if !process_in_progress(&current.status) {
        return Err(PlatformError::new(
            ErrorCode::ProcessAlreadyTerminal,
            format!("Process '{id}' is already {}", current.status),
        )
        .with_suggestion("Only PENDING or RUNNING processes can be canceled; check the result with action status."));
    }
    let canceled = session.client.cancel_process(id)?;
    let mut value = process_json(&canceled);
    // The API may answer while the cancel is still under way (CANCELING).
    let running = process_in_progress(&canceled.status);
    value["inProgress"] = Value::Bool(running);
    // A process can end on its own between the status read and the cancel: then it says
    // so (its status tells how), not "canceled".
    value["message"] = Value::String(format!(
        "Process {id} {}",
        if running {
            "cancel requested, not done yet: check with zerops_process action status until it ends"
        } else if canceled.status == "CANCELED" {
            "canceled"
        } else {
            "ended on its own before the cancel took effect; its status says how"
        }
    ));
    Ok(value)
}

/// The process, if it belongs to this session's project: a token that reaches several
/// projects must not let zcp read or cancel another project's processes (the other tools
/// keep to the project too). A process without a project id is taken as it is.
fn own_process(session: &Session, id: &str) -> Result<Process, PlatformError> {
    let process = session.client.get_process(id)?;
    if !process.project_id.is_empty() && process.project_id != session.info.project_id {
        return Err(PlatformError::new(
            ErrorCode::ProcessNotFound,
            format!("Process '{id}' is not in this project"),
        )
        .with_suggestion(
            "zcp works on one project; find this project's processes with zerops_events.",
        ));
    }
    Ok(process)
}

fn require_id(process_id: &str) -> Result<&str, PlatformError> {
    let id = process_id.trim();
    if id.is_empty() {
        return Err(PlatformError::new(ErrorCode::InvalidParameter, "A processId is required")
            .with_suggestion("Pass the processId returned by the tool that started the process, or find it with zerops_events."));
    }
    super::helpers::check_id("processId", id)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::auth::{CredentialSource, Info};
    use crate::platform::mock::{MockClient, MockLogFetcher};

    fn session_with(status: &str) -> Session {
        session_with_process(Process {
            id: "proc1".into(),
            action_name: "stack.restart".into(),
            status: status.into(),
            ..Process::default()
        })
    }

    fn session_with_process(process: Process) -> Session {
        Session {
            client: Arc::new(MockClient::new().with_process(process)),
            logs: Arc::new(MockLogFetcher::new(Vec::new())),
            info: Info {
                token: "t".into(),
                api_host: "h".into(),
                client_id: "c".into(),
                project_id: "p".into(),
                project_name: "n".into(),
                source: CredentialSource::Direct,
            },
            sent: Default::default(),
            changing: Default::default(),
        }
    }

    fn cancel_answered_with(status: &str) -> Value {
        let mut session = session_with("RUNNING");
        session.client = Arc::new(
            MockClient::new()
                .with_process(Process {
                    id: "proc1".into(),
                    status: "RUNNING".into(),
                    ..Process::default()
                })
                .with_cancel_outcome(status),
        );
        cancel(&session, "proc1").unwrap()
    }

    /// A delete this server queued keeps its service "going away" until the delete is
    /// known to have failed or been canceled, which is then forgotten.
    #[test]
    fn a_queued_delete_counts_until_it_fails() {
        use crate::ops::helpers::{delete_pending, remember};
        let queued = |status: &str| {
            let session = session_with(status);
            remember(&session, "svc", "delete", "proc1");
            session
        };
        let running = queued("PENDING");
        assert!(delete_pending(&running, "svc"));
        assert!(!delete_pending(&running, "other"));
        for over in ["FAILED", "CANCELED"] {
            let session = queued(over);
            assert!(!delete_pending(&session, "svc"), "{over}");
            assert!(session.sent.lock().unwrap().is_empty(), "{over}");
        }
    }

    #[test]
    fn a_cancel_says_what_the_api_answered() {
        let done = cancel(&session_with("RUNNING"), "proc1").unwrap();
        assert_eq!(done["message"], "Process proc1 canceled");
        assert_eq!(done["inProgress"], false);
        let pending = cancel_answered_with("CANCELING");
        assert_eq!(pending["inProgress"], true);
        assert!(
            pending["message"]
                .as_str()
                .unwrap()
                .contains("cancel requested")
        );
        // It finished on its own between the status read and the cancel.
        let raced = cancel_answered_with("FINISHED");
        assert_eq!(raced["inProgress"], false);
        assert_eq!(
            raced["message"],
            "Process proc1 ended on its own before the cancel took effect; its status says how"
        );
    }

    #[test]
    fn a_process_being_canceled_is_not_canceled_twice_and_a_rollback_is_not_canceled() {
        let canceling = cancel(&session_with("CANCELING"), "proc1").unwrap();
        assert_eq!(canceling["status"], "CANCELING");
        assert!(
            canceling["message"]
                .as_str()
                .unwrap()
                .contains("already being canceled")
        );
        let err = cancel(&session_with("ROLLBACKING"), "proc1").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidUsage);
        assert!(err.message.contains("rolling back"), "{err:?}");
        let status = status(&session_with("ROLLBACKING"), "proc1").unwrap();
        assert_eq!(status["inProgress"], true);
        let err = cancel(&session_with("FINISHED"), "proc1").unwrap_err();
        assert_eq!(err.code, ErrorCode::ProcessAlreadyTerminal);
        assert!(cancel(&session_with("RUNNING"), "proc1").is_ok());
    }

    #[test]
    fn another_projects_process_is_neither_shown_nor_canceled() {
        let session = session_with_process(Process {
            id: "proc1".into(),
            status: "RUNNING".into(),
            project_id: "other".into(),
            ..Process::default()
        });
        for err in [
            status(&session, "proc1").unwrap_err(),
            cancel(&session, "proc1").unwrap_err(),
        ] {
            assert_eq!(err.code, ErrorCode::ProcessNotFound);
            assert!(err.message.contains("not in this project"), "{err:?}");
        }
        let mine = session_with_process(Process {
            id: "proc1".into(),
            status: "RUNNING".into(),
            project_id: "p".into(),
            ..Process::default()
        });
        assert!(status(&mine, "proc1").is_ok());
    }
}
