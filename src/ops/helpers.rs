//! Shared business helpers: listing the project's services (scoped, internal ones hidden),
//! resolving a hostname, reading durations like `30m`, describing a process. Knows
//! nothing of MCP.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crate::json;

use serde_json::{Map, Value};

use crate::auth::Session;
use crate::cancel::CancelToken;
use crate::platform::{AppVersionEvent, ErrorCode, PlatformError, Process, ServiceStack};

use super::pager::Pager;
use super::progress::{Ending, process_in_progress};
use super::scope;

/// The project's user-facing services (internal platform services hidden).
pub fn project_services(session: &Session) -> Result<Vec<ServiceStack>, PlatformError> {
    let listed = session.client.list_services(&session.info.project_id)?;
    // API-BUG-WORKAROUND: remove when search endpoints are project-scoped
    let mine = scope::only_project(listed, &session.info.project_id);
    Ok(mine.into_iter().filter(|s| !s.is_internal()).collect())
}

/// This project's app versions, newest first, from the app-version search, read page by
/// page (the first of `first_page` items) until `enough` accepts what was found or the
/// search has no more (see [`Pager`]).
pub fn project_app_versions(
    session: &Session,
    first_page: usize,
    enough: impl Fn(&[AppVersionEvent]) -> bool,
) -> Result<Vec<AppVersionEvent>, PlatformError> {
    let project_id = &session.info.project_id;
    let mut versions = Pager::new(project_id, first_page);
    while !versions.ended() {
        versions.read_next(
            |limit, offset| {
                session
                    .client
                    .search_app_versions_page(project_id, limit, offset)
            },
            |v| &v.id,
        )?;
        if enough(&versions.items) {
            break;
        }
    }
    Ok(versions.items)
}

/// The longest hostname accepted as input: the longest the API takes (the docs ask for 25).
const MAX_HOSTNAME_LEN: usize = 40;

/// Checks a hostname given by the model before it is used anywhere: ASCII letters, digits
/// and hyphens starting with a letter, at most 40 characters. That is looser than the
/// platform (lowercase letters and digits), so a near miss such as `API` or `my-api` still
/// reaches the lookup, which lists the real services; anything else (spaces, slashes, dots,
/// control characters, very long text) is INVALID_HOSTNAME without an API call, and the
/// message shows at most a short, escaped prefix of what was sent.
pub fn check_hostname(hostname: &str) -> Result<&str, PlatformError> {
    let hostname = hostname.trim();
    if hostname.is_empty() {
        return Err(PlatformError::new(
            ErrorCode::ServiceRequired,
            "A serviceHostname is required",
        ));
    }
    let starts = hostname
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic());
    let chars = hostname
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if starts && chars && hostname.len() <= MAX_HOSTNAME_LEN {
        return Ok(hostname);
    }
    let length = hostname.chars().count();
    let shown: String = hostname.chars().take(MAX_HOSTNAME_LEN).collect();
    let message = if length > MAX_HOSTNAME_LEN {
        // The cut text alone could itself be a valid name: say what is wrong with it.
        format!(
            "{shown:?}... ({length} characters) is too long for a service hostname (at most {MAX_HOSTNAME_LEN})"
        )
    } else {
        format!("{shown:?} is not a valid service hostname")
    };
    Err(PlatformError::new(ErrorCode::InvalidHostname, message)
    .with_suggestion("Hostnames are lowercase letters and digits starting with a letter (e.g. api, db1); zerops_discover lists the services."))
}

/// Finds a service by exact hostname; otherwise SERVICE_NOT_FOUND listing what exists.
pub fn resolve_service(session: &Session, hostname: &str) -> Result<ServiceStack, PlatformError> {
    resolve_service_among(session, hostname).map(|(service, _)| service)
}

/// [`resolve_service`], also handing back the project's services it was found among, for
/// a caller that needs them too (one listing instead of two).
pub fn resolve_service_among(
    session: &Session,
    hostname: &str,
) -> Result<(ServiceStack, Vec<ServiceStack>), PlatformError> {
    let hostname = check_hostname(hostname)?;
    let services = project_services(session)?;
    Ok((find_service(&services, hostname)?, services))
}

/// Notes a process this server started for a service (see [`Session::sent`]).
pub fn remember(session: &Session, service_id: &str, action: &'static str, process_id: &str) {
    let mut sent = session.sent.lock().unwrap_or_else(|p| p.into_inner());
    sent.retain(|(id, a, _)| !(id == service_id && *a == action));
    sent.push((service_id.to_owned(), action, process_id.to_owned()));
}

/// The lock of one service's check-then-send sequences (read the service, look at what
/// this server sent, send, [`remember`]): two calls on one service at once must not both
/// find nothing under way and both send. Hold it until the change is remembered, not
/// while following the change.
pub fn service_lock(session: &Session, service_id: &str) -> Arc<Mutex<()>> {
    let mut locks = session.changing.lock().unwrap_or_else(|p| p.into_inner());
    Arc::clone(locks.entry(service_id.to_owned()).or_default())
}

/// Takes a [`service_lock`], giving up when the call is cancelled while it waits: a call
/// cancelled before it got its turn sends nothing.
pub fn hold<'a>(
    lock: &'a Mutex<()>,
    cancel: &CancelToken,
) -> Result<std::sync::MutexGuard<'a, ()>, PlatformError> {
    loop {
        if cancel.is_cancelled() {
            return Err(PlatformError::new(
                ErrorCode::ProcessCanceled,
                "Cancelled before anything was sent",
            ));
        }
        match lock.try_lock() {
            Ok(held) => return Ok(held),
            Err(std::sync::TryLockError::Poisoned(p)) => return Ok(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => {
                cancel.wait_timeout(Duration::from_millis(10));
            }
        }
    }
}

/// The process this server started with `action` for a service, while it still counts:
/// in progress, or also finished when `finished_counts`. One that ended otherwise is
/// forgotten; one that could not be read still counts.
pub fn sent_pending(
    session: &Session,
    service_id: &str,
    action: &str,
    finished_counts: bool,
) -> Option<String> {
    let process_id = sent_id(session, service_id, action)?;
    // Read without the lock held: other calls need not wait for this one's API answer.
    let counts = session.client.get_process(&process_id).map_or(true, |p| {
        process_in_progress(&p.status) || (finished_counts && p.status == "FINISHED")
    });
    if counts {
        return Some(process_id);
    }
    session
        .sent
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .retain(|(_, _, process)| *process != process_id);
    None
}

/// The process this server started with `action` for a service, as remembered.
fn sent_id(session: &Session, service_id: &str, action: &str) -> Option<String> {
    session
        .sent
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .find(|(id, a, _)| id == service_id && *a == action)
        .map(|(_, _, process)| process.clone())
}

/// [`sent_pending`] for a process that must be seen running: one that cannot be read does
/// not count (a caller about to skip its own request on the strength of it goes ahead).
pub fn sent_running(session: &Session, service_id: &str, action: &str) -> Option<String> {
    let process_id = sent_id(session, service_id, action)?;
    let process = session.client.get_process(&process_id).ok()?;
    process_in_progress(&process.status).then_some(process_id)
}

/// Forgets what this server sent with `action` for a service (a later opposite change
/// supersedes it).
pub fn forget(session: &Session, service_id: &str, action: &str) {
    let mut sent = session.sent.lock().unwrap_or_else(|p| p.into_inner());
    sent.retain(|(id, a, _)| !(id == service_id && *a == action));
}

/// Whether a delete this server sent is still under way or done (so the service is going
/// away although it may still read as running).
pub fn delete_pending(session: &Session, service_id: &str) -> bool {
    sent_pending(session, service_id, "delete", true).is_some()
}

/// A service being deleted takes no other change: the platform would accept it and run it
/// on a service that is about to disappear.
pub fn refuse_if_deleting(
    session: &Session,
    service: &ServiceStack,
    what: &str,
) -> Result<(), PlatformError> {
    if service.status != "DELETING" && !delete_pending(session, &service.id) {
        return Ok(());
    }
    Err(PlatformError::new(
        ErrorCode::InvalidUsage,
        format!("'{}' is being deleted: cannot {what} it", service.name),
    )
    .with_suggestion(
        "zerops_discover shows when it is gone; import it again if it is still needed.",
    ))
}

/// "a managed", "an object storage", "a shared storage": the kind of a service that holds
/// data rather than runs code (and so takes no deploy and no public subdomain), by its API
/// category; `None` for runtimes and for a category the API did not send.
pub fn data_service_kind(service: &ServiceStack) -> Option<&'static str> {
    match service.type_info.category.as_str() {
        "STANDARD" => Some("a managed"),
        "OBJECT_STORAGE" => Some("an object storage"),
        "SHARED_STORAGE" => Some("a shared storage"),
        _ => None,
    }
}

/// An id the model passed (`processId`, `serviceId`): letters, digits, `-` and `_`, as
/// every Zerops id is. It goes into an API path, where a `/` or `..` could reach another
/// endpoint, so anything else is refused before any call.
pub fn check_id<'a>(what: &str, id: &'a str) -> Result<&'a str, PlatformError> {
    let id = id.trim();
    if id.is_empty()
        || id.len() > 64
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(PlatformError::new(
            ErrorCode::InvalidParameter,
            format!("{what} {id:?} is not a Zerops id"),
        )
        .with_suggestion(format!(
            "Pass the {what} exactly as a tool returned it (letters and digits)."
        )));
    }
    Ok(id)
}

/// "Available services: api, db." for a suggestion (empty when the list cannot be read).
pub fn available_services(session: &Session) -> String {
    let mut names: Vec<String> = project_services(session)
        .map(|all| all.into_iter().map(|s| s.name).collect())
        .unwrap_or_default();
    crate::order::sort(&mut names);
    if names.is_empty() {
        String::new()
    } else {
        format!("Available services: {}.", names.join(", "))
    }
}

/// Picks `hostname` out of a list, or explains which hostnames exist.
pub fn find_service(
    services: &[ServiceStack],
    hostname: &str,
) -> Result<ServiceStack, PlatformError> {
    let hostname = check_hostname(hostname)?;
    if let Some(service) = services.iter().find(|s| s.name == hostname) {
        return Ok(service.clone());
    }
    // Only a miss needs the names: sorted for the list, and for the nearest one.
    let mut names: Vec<&str> = services.iter().map(|s| s.name.as_str()).collect();
    crate::order::sort(&mut names);
    let available = if names.is_empty() {
        "(none)".to_owned()
    } else {
        names.join(", ")
    };
    // The nearest name by edit distance (a case slip counts as none), so a typo such as
    // `apii` is answered with `api`, not only with the list.
    let hint = super::validate::suggest::closest(hostname, &names, 1)
        .first()
        .map(|n| {
            let case = if n.eq_ignore_ascii_case(hostname) {
                " Hostnames are case-sensitive:"
            } else {
                ""
            };
            format!("{case} Did you mean '{n}'?")
        })
        .unwrap_or_default();
    Err(PlatformError::new(
        ErrorCode::ServiceNotFound,
        format!("Service '{hostname}' not found in this project"),
    )
    .with_suggestion(format!("Available services: {available}.{hint}")))
}

/// The longest `since` duration taken.
pub const MAX_SINCE_SECS: u64 = 30 * 86_400;

/// Parses `30s`, `30m`, `2h`, `1d` (bounded to 30 days) or an RFC 3339 instant into the
/// instant it names.
pub fn parse_since(text: &str, now: SystemTime) -> Result<SystemTime, PlatformError> {
    let text = text.trim();
    let bad = || {
        PlatformError::new(ErrorCode::InvalidParameter, format!("Invalid since value '{text}'"))
            .with_suggestion("Use a duration like 30m, 2h or 1d (at most 30d), or an RFC 3339 time like 2026-01-02T15:04:05Z.")
    };
    if let Some(instant) = crate::time::parse_rfc3339(text) {
        // Nothing has been logged after now: such a filter only ever answers "no entries"
        // (a minute of leeway for clocks that differ).
        if instant > now + Duration::from_secs(60) {
            return Err(PlatformError::new(
                ErrorCode::InvalidParameter,
                format!("Invalid since value '{text}': the time is in the future"),
            )
            .with_suggestion(
                "Give a past time (UTC with Z, or an offset), or a duration like 30m, 2h or 1d.",
            ));
        }
        return Ok(instant);
    }
    if crate::time::parse_rfc3339(&format!("{text}Z")).is_some() {
        return Err(PlatformError::new(
            ErrorCode::InvalidParameter,
            format!("Invalid since value '{text}': the time has no zone"),
        )
        .with_suggestion(
            "Add the zone: Z for UTC (e.g. 2026-01-02T15:04:05Z) or an offset like +01:00.",
        ));
    }
    let (number, unit) = text.split_at(text.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?);
    let n: u64 = number.parse().map_err(|_| bad())?;
    let per_unit: u64 = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(bad()),
    };
    // Checked: a huge count must not wrap around to a short, valid-looking window.
    let seconds = n.checked_mul(per_unit).ok_or_else(bad)?;
    if n == 0 || seconds > MAX_SINCE_SECS {
        return Err(bad());
    }
    Ok(now - Duration::from_secs(seconds))
}

/// Whether a service type's base runs a web server of its own (static, Nginx, PHP with
/// Nginx or Apache): it serves port 80 with no `run.ports`, and its lines are what
/// `zerops_logs webServer` reads. Judged by the validator's type catalog.
pub fn runs_web_server(version_name: &str) -> bool {
    use super::validate::catalog;
    catalog::family(catalog::split(version_name).name).is_some_and(|f| f.kind.has_web_server())
}

/// A process as the agent sees it.
pub fn process_json(process: &Process) -> Value {
    let mut map = Map::new();
    map.insert("processId".into(), json!(process.id));
    map.insert("actionName".into(), json!(process.action_name));
    map.insert("status".into(), json!(process.status));
    let services: Vec<&str> = process
        .service_stacks
        .iter()
        .map(|s| s.name.as_str())
        .filter(|n| !n.is_empty())
        .collect();
    if !services.is_empty() {
        map.insert("services".into(), json!(services));
    }
    for (key, value) in [
        ("created", &process.created),
        ("started", &process.started),
        ("finished", &process.finished),
    ] {
        if let Some(value) = value {
            map.insert(key.into(), json!(value));
        }
    }
    if let Some(reason) = &process.fail_reason {
        map.insert("failReason".into(), json!(reason));
    }
    Value::Object(map)
}

/// A followed process that ended FAILED or CANCELED is an error, not a result with a
/// status to spot: agents act on `isError`. The fail reason and process id travel with it.
pub fn fail_if_failed(process: &Process, ending: Ending, what: &str) -> Result<(), PlatformError> {
    if ending != Ending::Finished {
        return Ok(());
    }
    if process.status == "CANCELED" {
        return Err(canceled(process, what));
    }
    if process.status != "FAILED" {
        return Ok(());
    }
    let reason = process.fail_reason.as_deref().unwrap_or("no reason given");
    let mut err = PlatformError::new(
        ErrorCode::ProcessFailed,
        format!("{what} failed (process {}): {reason}", process.id),
    );
    err.fail_reason = process.fail_reason.clone();
    Err(err)
}

/// The error for a process canceled before it finished (by zerops_process, the GUI or
/// another client): what was asked may not have happened.
pub fn canceled(process: &Process, what: &str) -> PlatformError {
    let mut err = PlatformError::new(
        ErrorCode::ProcessCanceled,
        format!(
            "{what} was canceled before it finished (process {})",
            process.id
        ),
    );
    err.fail_reason = Some("canceled".into());
    err
}

/// A followed process with how the follow ended and what to do next.
pub fn followed_json(process: &Process, ending: Ending) -> Value {
    let mut value = process_json(process);
    match ending {
        Ending::Finished => {}
        Ending::StillRunning { hard_cap } => {
            value["stillRunning"] = json!(true);
            let why = if hard_cap {
                "did not finish within the 10-minute limit"
            } else {
                "is still running"
            };
            value["hint"] = json!(format!(
                "The process {why}; follow it with zerops_process (processId {}, action status).",
                process.id
            ));
        }
        Ending::Cancelled => {
            value["stillRunning"] = json!(true);
            value["hint"] =
                json!("Stopped waiting (cancelled); the process continues on the platform.");
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    fn svc(name: &str) -> ServiceStack {
        ServiceStack {
            name: name.into(),
            ..Default::default()
        }
    }

    #[test]
    fn hostnames_are_checked_before_use() {
        assert_eq!(check_hostname(" api ").unwrap(), "api");
        assert_eq!(check_hostname("API").unwrap(), "API");
        assert_eq!(check_hostname("no-such-api").unwrap(), "no-such-api");
        assert_eq!(
            check_hostname("  ").unwrap_err().code,
            ErrorCode::ServiceRequired
        );
        let long = "a".repeat(41);
        for bad in [
            "../api",
            "api/../db",
            "api db",
            "1api",
            "-api",
            "api\u{0}",
            "api\nx",
            "db.internal",
            "api%2F",
            "ápi",
            long.as_str(),
        ] {
            let err = check_hostname(bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidHostname, "{bad:?}");
            assert!(!err.message.contains('\n'), "{:?}", err.message);
        }
        // A cut name is marked as cut, with the reason.
        let err = check_hostname(&long).unwrap_err();
        assert!(
            err.message.contains("... (41 characters) is too long"),
            "{}",
            err.message
        );
        // A huge value is not echoed in full.
        let huge = "x/".repeat(10_000);
        assert!(check_hostname(&huge).unwrap_err().message.len() < 120);
    }

    #[test]
    fn find_service_refuses_an_invalid_hostname_instead_of_listing() {
        let err = find_service(&[svc("api")], "api;rm").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidHostname);
    }

    #[test]
    fn unknown_hostnames_list_the_available_ones() {
        let err = find_service(&[svc("api"), svc("db")], "API").unwrap_err();
        assert_eq!(err.code, ErrorCode::ServiceNotFound);
        assert!(err.suggestion.contains("api, db"));
        assert!(
            err.suggestion
                .contains("case-sensitive: Did you mean 'api'")
        );
        let typo = find_service(&[svc("api"), svc("db")], "apii").unwrap_err();
        assert!(typo.suggestion.ends_with("api, db. Did you mean 'api'?"));
        assert!(!typo.suggestion.contains("case-sensitive"));
        // Two letters swapped is one edit: `wbe` is answered with `web`.
        let swap = find_service(&[svc("web"), svc("db")], "wbe").unwrap_err();
        assert!(swap.suggestion.ends_with("Did you mean 'web'?"));
        let far = find_service(&[svc("api"), svc("db")], "cache").unwrap_err();
        assert!(!far.suggestion.contains("Did you mean"));
        assert_eq!(
            find_service(&[], "x").unwrap_err().suggestion,
            "Available services: (none)."
        );
        assert_eq!(find_service(&[svc("api")], "api").unwrap().name, "api");
    }

    #[test]
    fn since_accepts_durations_and_timestamps() {
        // 2026-11-18.
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_000_000);
        assert_eq!(
            parse_since("30m", now).unwrap(),
            now - Duration::from_secs(1800)
        );
        assert_eq!(
            parse_since("2h", now).unwrap(),
            now - Duration::from_secs(7200)
        );
        assert_eq!(
            parse_since("1d", now).unwrap(),
            now - Duration::from_secs(86_400)
        );
        assert_eq!(
            parse_since("45s", now).unwrap(),
            now - Duration::from_secs(45)
        );
        assert!(parse_since("2026-01-01T00:00:00Z", now).is_ok());
        let future = parse_since("2030-01-01T00:00:00Z", now).unwrap_err();
        assert!(future.message.contains("in the future"), "{future:?}");
        // The last two wrap a u64 to 3584 s and about 17 h when multiplied unchecked.
        let wrapping = ["5124095576030432h", "213503982334602d"];
        for bad in ["", "m", "10", "5w", "31d", "0m", "-5m", "yesterday"]
            .into_iter()
            .chain(wrapping)
        {
            assert_eq!(
                parse_since(bad, now).unwrap_err().code,
                ErrorCode::InvalidParameter,
                "{bad}"
            );
        }
        // A time without a zone is named as such, not as a bad value in general.
        let err = parse_since("2026-11-26T12:00:00", now).unwrap_err();
        assert!(
            err.message.ends_with("the time has no zone"),
            "{}",
            err.message
        );
        assert!(err.suggestion.contains("Z for UTC"), "{}", err.suggestion);
    }
}
