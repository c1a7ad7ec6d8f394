//! `zerops_logs`: runtime or build logs of a service. Two steps: a temporary access URL
//! from the API, then the log backend, which honours only limit, order, minimum severity,
//! service, tags and container; `since` and text search are applied here. One entry more
//! than asked for is fetched so `hasMore` is exact. Knows nothing of MCP.

use std::time::SystemTime;

use crate::json;

use serde_json::Value;

use crate::auth::Session;
use crate::platform::{ErrorCode, LogFetchParams, PlatformError, ServiceStack};
use crate::time::parse_rfc3339;

use super::helpers::{
    MAX_SINCE_SECS, parse_since, project_app_versions, project_services, resolve_service,
};

/// The most entries one call returns.
pub const MAX_LIMIT: usize = 1000;
/// The log backend's facility of an application's stdout and stderr.
const APPLICATION_FACILITY: u8 = 16;
/// The log backend's facility of the web server's access and error lines (Nginx of static
/// and PHP services); zcli's `--message-type WEBSERVER`.
const WEB_SERVER_FACILITY: u8 = 17;

/// What to read.
#[derive(Debug, Clone, Default)]
pub struct LogsRequest {
    pub service_hostname: String,
    /// `error`, `warning`, `info`, `debug`, ... or `all`.
    pub severity: Option<String>,
    /// A duration (`30m`) or RFC 3339; default one hour.
    pub since: Option<String>,
    pub limit: usize,
    pub search: Option<String>,
    /// An app version id: read its build log instead of the runtime log.
    pub build_id: Option<String>,
    /// Read the web server's lines instead of the application's own output.
    pub web_server: bool,
}

/// Syslog number of a severity name (entries at or above it are returned).
pub fn severity_number(name: &str) -> Result<Option<u8>, PlatformError> {
    let number = match name.trim().to_ascii_lowercase().as_str() {
        "" | "all" => return Ok(None),
        "emergency" | "emerg" => 0,
        "alert" => 1,
        "critical" | "crit" => 2,
        "error" | "err" => 3,
        "warning" | "warn" => 4,
        "notice" => 5,
        "info" | "informational" => 6,
        "debug" => 7,
        other => {
            return Err(PlatformError::new(
                ErrorCode::InvalidParameter,
                format!("Unknown severity '{other}'"),
            )
            .with_suggestion(
                "Use one of: emergency, alert, critical, error, warning, notice, info, debug, all.",
            ));
        }
    };
    Ok(Some(number))
}

/// Reads the log.
pub fn logs(
    session: &Session,
    request: &LogsRequest,
    now: SystemTime,
) -> Result<Value, PlatformError> {
    // Validate everything before touching the API.
    let build_id = request
        .build_id
        .as_deref()
        .map(str::trim)
        .filter(|b| !b.is_empty());
    let since = match request
        .since
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(text) => Some(parse_since(text, now)?),
        // A build's log is read whole unless asked otherwise: the build that failed may
        // well be older than the runtime default of an hour.
        None if build_id.is_some() => None,
        None => Some(now - std::time::Duration::from_secs(3600)),
    };
    let min_severity = severity_number(request.severity.as_deref().unwrap_or("all"))?;
    if request.web_server && build_id.is_some() {
        return Err(PlatformError::new(
            ErrorCode::InvalidParameter,
            "webServer and buildId do not go together: a build has no web server",
        )
        .with_suggestion("Leave out webServer to read the build log."));
    }
    let limit = request.limit.clamp(1, MAX_LIMIT);
    let service = resolve_service(session, &request.service_hostname)?;
    let mut params = LogFetchParams {
        service_id: Some(service.id.clone()),
        limit: u32::try_from((limit + 1).min(MAX_LIMIT)).unwrap_or(1000),
        min_severity,
        // The application's own output (16), as zcli shows by default, or the web
        // server's lines (17); never the container's daemons.
        facility: Some(if request.web_server {
            WEB_SERVER_FACILITY
        } else {
            APPLICATION_FACILITY
        }),
        ..LogFetchParams::default()
    };
    let search = request
        .search
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    if search.is_some() {
        // The backend cannot search: read as much as it gives and filter here.
        params.limit = u32::try_from(MAX_LIMIT).unwrap_or(1000);
    }
    let mut build_status = None;
    let mut source = if request.web_server {
        "webserver"
    } else {
        "runtime"
    };
    if let Some(build_id) = build_id {
        // Other projects' versions can fill a page, so a missing id is looked for in
        // bigger pages before it is declared unknown.
        let found =
            project_app_versions(session, 100, |ours| ours.iter().any(|v| v.id == build_id))?
                .into_iter()
                .find(|v| v.id == build_id);
        let version = found.ok_or_else(|| {
            PlatformError::new(
                ErrorCode::InvalidParameter,
                format!("No build (app version) '{build_id}' in this project"),
            )
            .with_suggestion("Find build ids (appVersionId) with zerops_events.")
        })?;
        if version.service_id != service.id {
            let owner = project_services(session)
                .ok()
                .and_then(|all| all.into_iter().find(|s| s.id == version.service_id))
                .map_or_else(|| "another service".to_owned(), |s| format!("'{}'", s.name));
            return Err(PlatformError::new(
                ErrorCode::InvalidParameter,
                format!(
                    "Build '{build_id}' belongs to {owner}, not to '{}'",
                    service.name
                ),
            )
            .with_suggestion("Pass the serviceHostname of the service the build was for."));
        }
        let build_service = version.build.and_then(|b| b.service_id).ok_or_else(|| {
            PlatformError::new(
                ErrorCode::InvalidUsage,
                format!("App version '{build_id}' has no build (deployed without a build)"),
            )
            .with_suggestion(format!(
                "It has no build log; read what it logs at runtime: zerops_logs with serviceHostname {} and no buildId.",
                service.name
            ))
        })?;
        params.service_id = Some(build_service);
        params.tags = Some(format!("zbuilder@{build_id}"));
        source = "build";
        build_status = Some(version.status);
    }
    let access = session.client.get_project_log(&session.info.project_id)?;
    let fetched = session.logs.fetch_logs(&access, &params)?;
    let backend_empty = fetched.is_empty();
    // A page that could not ask for one entry more than wanted (the backend's cap) cannot
    // tell "exactly this many" from "more": a full one may have more behind it.
    let asked_no_extra = params.limit as usize <= limit;
    let needle = search.map(str::to_lowercase);
    let mut in_since = 0;
    let mut kept: Vec<_> = fetched
        .into_iter()
        .filter(|e| {
            let keep =
                since.is_none_or(|since| parse_rfc3339(&e.timestamp).is_none_or(|t| t >= since));
            in_since += usize::from(keep);
            keep
        })
        .filter(|e| {
            needle
                .as_ref()
                .is_none_or(|n| e.message.to_lowercase().contains(n))
        })
        .collect();
    // A full page that `since` left whole may have older lines behind it, never read.
    let cut_short = in_since >= params.limit as usize;
    // Newest first from the backend: keep the newest `limit`, then show oldest first.
    let more_match = kept.len() > limit || (asked_no_extra && cut_short && kept.len() == limit);
    // Search runs here over one backend page: older lines may match but were never seen.
    let search_cut = search.is_some() && cut_short;
    let has_more = more_match || search_cut;
    kept.truncate(limit);
    kept.reverse();
    let entries: Vec<Value> = kept
        .iter()
        .map(|e| {
            json!({
                "timestamp": e.timestamp,
                "severity": e.severity,
                "container": e.container,
                "message": e.message,
            })
        })
        .collect();
    let mut result = json!({
        "serviceHostname": service.name,
        "source": source,
        "entries": entries,
        "hasMore": has_more,
    });
    if let Some(since) = since {
        result["since"] = json!(crate::time::format_rfc3339(since));
    }
    let nginx = has_web_server(&service);
    let impossible = (build_status.is_none() && backend_empty)
        .then(|| no_such_log(&service, request.web_server, nginx))
        .flatten();
    let pointer_fits = impossible.is_none();
    let mut hint = if let Some(why) = impossible {
        why
    } else if entries.is_empty() {
        empty_hint(
            &service,
            build_status.as_deref(),
            search.is_some() && !backend_empty,
            since,
            min_severity.is_some(),
            backend_empty,
            now,
        )
    } else if more_match {
        "More entries match; narrow with since, severity or search, or raise limit (max 1000)."
            .to_owned()
    } else {
        String::new()
    };
    // A pointer to the web server's lines, when they were not the ones read.
    if entries.is_empty() && build_status.is_none() && !request.web_server && nginx && pointer_fits
    {
        hint += " Its web server's lines (Nginx) come with webServer true.";
    }
    if search_cut {
        hint += " Only the newest 1000 lines were searched; older ones may match (a stricter \
severity reaches further back).";
    }
    if !hint.is_empty() {
        result["hint"] = json!(hint.trim_start());
    }
    Ok(result)
}

/// Whether the service's base runs a web server whose lines `webServer` reads (static,
/// Nginx, PHP).
fn has_web_server(service: &ServiceStack) -> bool {
    super::helpers::runs_web_server(&service.type_info.version_name)
}

/// Why a log cannot exist whatever the filters, said at once rather than "widen since":
/// any log of a service never deployed, or web server lines of one that runs no Nginx.
fn no_such_log(service: &ServiceStack, web_server: bool, nginx: bool) -> Option<String> {
    // The lasting reason first: a deploy would not give this service web server lines.
    if web_server && !nginx {
        return Some(format!(
            "'{}' ({}) runs no web server of its own: webServer reads the web server of static, Nginx and PHP services; leave it out for the app's own output.",
            service.name, service.type_info.version_name
        ));
    }
    (service.status == "READY_TO_DEPLOY").then(|| {
        format!(
            "'{}' has no code deployed yet, so it has no log: deploy it with zerops_deploy.",
            service.name
        )
    })
}

/// Why nothing was found, offering only what would change the answer: an agent retries
/// whatever it is offered. `build` is the read build's app version status.
fn empty_hint(
    service: &ServiceStack,
    build: Option<&str>,
    searched: bool,
    since: Option<SystemTime>,
    narrowed: bool,
    backend_empty: bool,
    now: SystemTime,
) -> String {
    if build.is_none() && service.type_info.category == "OBJECT_STORAGE" {
        return format!(
            "'{}' is object storage, which writes no runtime log.",
            service.name
        );
    }
    let mut hint = String::from("No entries match.");
    if searched {
        hint += " Drop or change search.";
    }
    // A build log's `since` is applied here: with nothing from the backend it changes nothing.
    if (build.is_none() || !backend_empty)
        && since.is_some_and(|s| {
            now.duration_since(s)
                .is_ok_and(|w| w.as_secs() < MAX_SINCE_SECS)
        })
    {
        hint += " Widen since (up to 30d).";
    }
    if narrowed {
        hint += " Set severity to all.";
    }
    hint += match build {
        None => " Build output is not here: zerops_events lists builds, read one with buildId.",
        // The log is there; the filters above hid it.
        Some(_) if !backend_empty => "",
        Some("UPLOADING" | "WAITING_TO_BUILD" | "BUILDING") => {
            " The build has not started or has only just started, so it has no log yet: check it with zerops_events and read again later."
        }
        Some(_) => {
            " The build is over: an empty log means the log backend no longer holds it, or it wrote none."
        }
    };
    hint
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(version: &str, status: &str) -> ServiceStack {
        let mut service = ServiceStack {
            name: "s".into(),
            status: status.into(),
            ..ServiceStack::default()
        };
        service.type_info.version_name = version.into();
        service
    }

    /// Nginx itself has web server lines; a Node.js service has none; a service never
    /// deployed has no log of either kind.
    #[test]
    fn logs_that_cannot_exist_are_named() {
        for version in ["nginx@1.22", "static", "php-nginx@8.4", "php-apache@8.3"] {
            let s = service(version, "ACTIVE");
            assert!(has_web_server(&s), "{version}");
            assert_eq!(no_such_log(&s, true, has_web_server(&s)), None, "{version}");
        }
        let node = service("nodejs@22", "ACTIVE");
        assert!(!has_web_server(&node));
        let why = no_such_log(&node, true, false).unwrap();
        assert!(why.contains("runs no web server"), "{why}");
        assert_eq!(no_such_log(&node, false, false), None);
        let fresh = service("php-nginx@8.4", "READY_TO_DEPLOY");
        for web_server in [true, false] {
            let why = no_such_log(&fresh, web_server, true).unwrap();
            assert!(why.contains("no code deployed yet"), "{why}");
        }
        // A Node.js service never deployed still has no web server to deploy for.
        let fresh_node = service("nodejs@22", "READY_TO_DEPLOY");
        let why = no_such_log(&fresh_node, true, false).unwrap();
        assert!(why.contains("runs no web server"), "{why}");
        let why = no_such_log(&fresh_node, false, false).unwrap();
        assert!(why.contains("no code deployed yet"), "{why}");
    }

    #[test]
    fn severities_map_to_syslog_numbers() {
        assert_eq!(severity_number("all").unwrap(), None);
        assert_eq!(severity_number("Error").unwrap(), Some(3));
        assert_eq!(severity_number("warning").unwrap(), Some(4));
        assert_eq!(severity_number("debug").unwrap(), Some(7));
        assert_eq!(severity_number("Informational").unwrap(), Some(6));
        assert_eq!(severity_number("warn").unwrap(), Some(4));
        assert_eq!(
            severity_number("loud").unwrap_err().code,
            ErrorCode::InvalidParameter
        );
    }
}
