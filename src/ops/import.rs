//! `zerops_validate` input handling and `zerops_import`: YAML from inline content or a
//! file, always validated first; a `project:` section is refused (zcp works inside one
//! existing project); a dry run never calls the API; a real import waits out hostnames
//! still being deleted, then reports every created (or, with `override`, re-imported)
//! service, every per-service error the API returns (partial failures must not look like
//! success) and follows all processes. Knows nothing of MCP.

use std::path::Path;
use std::time::Duration;

use crate::json;

use serde_json::Value;

use crate::auth::Session;
use crate::platform::{ErrorCode, PlatformError, Process, ServiceStack};

use super::follow::{Follow, follow_processes};
use super::helpers::{followed_json, project_services};
use super::progress::Ending;
use super::source_file;
use super::validate::{self, FileKind, Finding, Report};

/// The API's per-service (and, live, whole-request) answer for a hostname the project has.
const TAKEN: &str = "serviceStackNameUnavailable";
/// What to do about a taken hostname.
const TAKEN_ADVICE: &str = "A hostname in the YAML is taken in this project: pick another, delete that service first, or add `override: true` to it to re-import it. zerops_import with dryRun: true lists the taken ones.";

/// Reads YAML given either inline or as a path (exactly one of them).
pub fn read_source(
    content: Option<&str>,
    file_path: Option<&str>,
) -> Result<(String, Option<String>), PlatformError> {
    match (
        content.filter(|c| !c.trim().is_empty()),
        file_path.filter(|p| !p.trim().is_empty()),
    ) {
        (Some(_), Some(_)) => Err(PlatformError::new(
            ErrorCode::InvalidParameter,
            "Give either content or filePath, not both",
        )
        .with_suggestion("Pass the YAML inline as content, or the path of the file as filePath.")),
        // A blank content (or path) counts as not given; said so when it was sent.
        (None, None) => Err(PlatformError::new(
            ErrorCode::InvalidParameter,
            if content.is_some() {
                "content is empty: there is no YAML to check"
            } else if file_path.is_some() {
                "filePath is empty"
            } else {
                "Give content (the YAML) or filePath"
            },
        )
        .with_suggestion("Pass the YAML inline as content, or the path of the file as filePath.")),
        (Some(text), None) => {
            source_file::check_content(text)?;
            Ok((text.to_owned(), None))
        }
        (None, Some(path)) => {
            let path = path.trim();
            let text = source_file::read_yaml(Path::new(path))?;
            Ok((text, Some(path.to_owned())))
        }
    }
}

/// The validation report as JSON, with the file it came from.
pub fn report_json(report: &Report, file: Option<&str>) -> Value {
    let mut value = serde_json::to_value(report).unwrap_or(Value::Null);
    if let Some(map) = value.as_object_mut() {
        map.remove("hasProject");
        // Inline content has no file: the field is left out rather than sent as "".
        if let Some(path) = file.filter(|f| !f.is_empty()) {
            map.insert("file".into(), json!(path));
        }
    }
    value
}

fn code_for(first: &Finding) -> ErrorCode {
    match first.rule {
        "I6" | "I7" | "I8" => ErrorCode::InvalidHostname,
        "I9" => ErrorCode::UnknownType,
        _ => ErrorCode::InvalidImportYml,
    }
}

fn findings_json(findings: &[Finding]) -> Value {
    serde_json::to_value(findings).unwrap_or(Value::Null)
}

/// Validates an import and refuses what zerops_import must not send.
fn checked(content: &str, file: Option<&str>) -> Result<Report, PlatformError> {
    let report = validate::validate(content, Some(FileKind::ImportYml), file);
    if report.has_project {
        return Err(PlatformError::new(
            ErrorCode::ImportHasProject,
            "The import YAML has a project: section; zcp adds services to the project it works on and cannot create projects",
        )
        .with_suggestion(
            "Delete the project: block and import again. If it had envVariables, set them first with zerops_env (project: true, variables: [\"KEY=value\"]).",
        ));
    }
    if let Some(first) = report.errors.first() {
        let mut err = PlatformError::new(
            code_for(first),
            format!(
                "The import YAML has {} error(s); first: line {}: {}",
                report.errors.len(),
                first.line,
                first.message
            ),
        )
        .with_suggestion(first.suggestion.clone());
        err.api_meta = Some(findings_json(&report.errors));
        return Err(err);
    }
    Ok(report)
}

/// A dry run: validation, and, when `session` is given (a token works), a look at which
/// hostnames the project already has; nothing is created.
pub fn dry_run(
    content: &str,
    file: Option<&str>,
    session: Option<&Session>,
) -> Result<Value, PlatformError> {
    let report = checked(content, file)?;
    let services = validate::import_services(content).unwrap_or_default();
    let mut result = json!({
        "dryRun": true,
        "valid": true,
        "services": services,
        "warnings": findings_json(&report.warnings),
        "hint": "Nothing was created. Call again without dryRun to import.",
    });
    let Some(session) = session else {
        result["note"] = json!(
            "Checked offline only: without a working token the project's existing hostnames were not compared."
        );
        return Ok(result);
    };
    let listed = project_services(session)?;
    add_reference_warnings(&mut result, session, &listed, &services);
    add_override_warnings(&mut result, &listed, &services);
    // A hostname still being deleted is waited for by the import, so it is not taken.
    let existing: Vec<String> = listed
        .into_iter()
        .filter(|s| s.status != "DELETING")
        .map(|s| s.name)
        .collect();
    let taken: Vec<&str> = services
        .iter()
        .filter(|s| !s.overrides && existing.contains(&s.hostname))
        .map(|s| s.hostname.as_str())
        .collect();
    if !taken.is_empty() {
        result["valid"] = json!(false);
        result["hostnamesTaken"] = json!(taken);
        // Re-importing a database or a storage is no way to share it: one already there is
        // used as it is, each kind its own way.
        let reuse: String = services
            .iter()
            .filter(|s| s.managed && taken.contains(&s.hostname.as_str()))
            .map(|s| format!(" {}", how_to_reuse(&s.hostname, &s.service_type)))
            .collect();
        result["hint"] = json!(format!(
            "The project already has {}: the import would refuse {} (serviceStackNameUnavailable). Pick other hostnames, delete those services first, or add `override: true` to those services in the YAML to re-import them.{reuse}",
            taken.join(", "),
            if taken.len() == 1 { "it" } else { "them" }
        ));
    }
    Ok(result)
}

/// `referenceWarnings`: `${host_key}` values in the services' `envSecrets` that name no
/// service of the project or the import, or a key near one that service has, as zerops_env
/// warns of them when it sets a variable (the platform stores them as written).
fn add_reference_warnings(
    result: &mut Value,
    session: &Session,
    listed: &[ServiceStack],
    services: &[validate::ImportService],
) {
    let warnings = super::env::import_reference_warnings(session, listed, services);
    if !warnings.is_empty() {
        result["referenceWarnings"] = json!(warnings);
    }
}

/// How an app uses an existing managed service or storage instead of importing it again.
fn how_to_reuse(hostname: &str, service_type: &str) -> String {
    let how = if service_type.starts_with("shared") {
        format!("mount it instead (`mount: [{hostname}]` on the runtimes that use it)")
    } else if service_type.starts_with("object") {
        format!(
            "reference its variables instead (${{{hostname}_apiUrl}}, ${{{hostname}_accessKeyId}}, ${{{hostname}_secretAccessKey}}, ...)"
        )
    } else {
        format!("reference its variables instead (${{{hostname}_connectionString}}, ...)")
    };
    format!("To use the existing {hostname} (data and all), leave it out of the YAML and {how}.")
}

/// How long to wait for hostnames that are still being deleted.
pub struct DeletionWait {
    pub interval: Duration,
    pub limit: Duration,
}

impl Default for DeletionWait {
    fn default() -> DeletionWait {
        DeletionWait {
            interval: Duration::from_secs(3),
            limit: Duration::from_secs(300),
        }
    }
}

/// Returns the project's services once none of `hostnames` is being deleted.
fn wait_for_deletions(
    session: &Session,
    hostnames: &[String],
    wait: &DeletionWait,
    follow: &mut Follow<'_>,
) -> Result<Vec<ServiceStack>, PlatformError> {
    let started = std::time::Instant::now();
    loop {
        let listed = project_services(session)?;
        let deleting: Vec<&str> = listed
            .iter()
            .filter(|s| hostnames.contains(&s.name) && s.status == "DELETING")
            .map(|s| s.name.as_str())
            .collect();
        if deleting.is_empty() {
            return Ok(listed);
        }
        if started.elapsed() >= wait.limit {
            return Err(PlatformError::new(
                ErrorCode::ApiTimeout,
                format!(
                    "{} still being deleted after {} s",
                    deleting.join(", "),
                    wait.limit.as_secs()
                ),
            )
            .with_suggestion("Retry the import in a minute, or use other hostnames."));
        }
        let message = format!("waiting for {} to finish deleting", deleting.join(", "));
        if let Some(report) = follow.progress.as_mut() {
            // On the follow's own scale (total 100, which must not change within one
            // request), and below where the follow starts: the wait is the first half
            // percent.
            let share = started.elapsed().as_secs_f64() / wait.limit.as_secs_f64().max(1.0);
            report((share * 0.5).clamp(0.001, 0.5), 100.0, &message);
        }
        if follow.cancel.wait_timeout(wait.interval) {
            return Err(PlatformError::new(
                ErrorCode::ApiError,
                "Cancelled while waiting for deletions",
            ));
        }
    }
}

/// Imports the services and follows their processes.
pub fn import(
    session: &Session,
    content: &str,
    file: Option<&str>,
    wait: &DeletionWait,
    follow: &mut Follow<'_>,
) -> Result<Value, PlatformError> {
    let report = checked(content, file)?;
    let wanted_services = validate::import_services(content).unwrap_or_default();
    let wanted: Vec<String> = wanted_services.iter().map(|s| s.hostname.clone()).collect();
    // Hostnames the project already has can only be imported with `override: true`.
    let existing = wait_for_deletions(session, &wanted, wait, follow)?;
    let result = session
        .client
        .import_services(&session.info.project_id, content)
        .map_err(|err| {
            // Measured live, a taken hostname can also fail the whole import (not only its
            // own line): the dry run's advice (its code is INVALID_HOSTNAME, see errors.rs).
            if err.api_code.as_deref() == Some(TAKEN) {
                err.with_suggestion(TAKEN_ADVICE)
            } else {
                err
            }
        })?;
    let mut services = Vec::new();
    let mut processes: Vec<Process> = Vec::new();
    let mut failed = 0;
    let mut taken = 0;
    for stack in &result.service_stacks {
        match &stack.error {
            Some(error) => {
                failed += 1;
                taken += usize::from(error.code == TAKEN);
                let mut detail = json!({ "code": error.code, "message": error.message });
                if let Some(meta) = error.meta.as_ref().filter(|m| !m.is_null()) {
                    detail["meta"] = meta.clone();
                }
                services.push(json!({
                    "hostname": stack.name, "status": "failed", "error": detail,
                }));
            }
            None => {
                let status = if existing.iter().any(|s| s.name == stack.name) {
                    "overridden"
                } else {
                    "created"
                };
                services.push(
                    json!({ "hostname": stack.name, "serviceId": stack.id, "status": status }),
                );
                processes.extend(stack.processes.iter().cloned());
            }
        }
    }
    if failed > 0 && failed == result.service_stacks.len() {
        // Refused only for taken hostnames: the caller's to fix, as the whole-request
        // refusal says, not an API failure to retry.
        let mut err = if taken == failed {
            PlatformError::new(
                ErrorCode::InvalidHostname,
                "No service was created: every hostname is taken",
            )
            .with_suggestion(TAKEN_ADVICE)
        } else {
            PlatformError::new(ErrorCode::ApiError, format!("No service was created: all {failed} failed"))
                .with_suggestion("apiMeta holds each service's reason: a taken hostname (pick another, delete that service first, or add `override: true` to it) or a refused value; zerops_validate checks the YAML offline.")
        };
        err.api_meta = Some(json!(services));
        return Err(err);
    }
    let done = follow_processes(session.client.as_ref(), processes, follow)?;
    // A service whose process failed or was canceled was not made as asked, whatever the
    // import answered: its line says so, with the reason.
    for (entry, stack) in services.iter_mut().zip(&result.service_stacks) {
        let ended_badly = done.iter().find(|(p, e)| {
            *e == Ending::Finished
                && matches!(p.status.as_str(), "FAILED" | "CANCELED")
                && stack.processes.iter().any(|q| q.id == p.id)
        });
        if let Some((process, _)) = ended_badly {
            entry["status"] = json!(process.status.to_ascii_lowercase());
            let (code, message) = if process.status == "CANCELED" {
                (
                    ErrorCode::ProcessCanceled,
                    "canceled before it finished (zerops_process, the GUI or another client): check zerops_discover for what is left of it",
                )
            } else {
                (
                    ErrorCode::ProcessFailed,
                    process.fail_reason.as_deref().unwrap_or("no reason given"),
                )
            };
            entry["error"] = json!({ "code": code.as_str(), "message": message });
        }
    }
    let finished_ok = done
        .iter()
        .filter(|(p, e)| *e == Ending::Finished && p.status == "FINISHED")
        .count();
    let process_failed = done.iter().filter(|(p, _)| p.status == "FAILED").count();
    let canceled = done
        .iter()
        .filter(|(p, e)| *e == Ending::Finished && p.status == "CANCELED")
        .count();
    let running = done.iter().filter(|(_, e)| *e != Ending::Finished).count();
    let summary = if failed == 0 && process_failed == 0 && canceled == 0 && running == 0 {
        // Counts, not plurals: "1 of 1" reads right where "all 1 services" did not.
        format!(
            "Services imported: {0} of {0}; processes finished: {1} of {1}",
            services.len(),
            done.len()
        )
    } else {
        let made = services
            .iter()
            .filter(|e| matches!(e["status"].as_str(), Some("created" | "overridden")))
            .count();
        format!(
            "Services imported: {made} of {} ({failed} refused); processes: {finished_ok} finished, {process_failed} failed, {canceled} canceled, {running} still running",
            services.len()
        )
    };
    let mut answer = json!({
        "projectId": result.project_id,
        "projectName": result.project_name,
        "services": services,
        "processes": done.iter().map(|(p, e)| followed_json(p, *e)).collect::<Vec<_>>(),
        "summary": summary,
        "warnings": findings_json(&report.warnings),
        "nextAction": not_made_first(&services, next_action(&wanted_services, &services, &existing)),
    });
    add_reference_warnings(&mut answer, session, &existing, &wanted_services);
    add_override_warnings(&mut answer, &existing, &wanted_services);
    Ok(answer)
}

/// `overrideWarnings`: with `override: true` the platform re-imports an existing service
/// as it is, ignoring a type or mode the YAML changes without a word (measured live), so
/// an agent would believe it upgraded a database that it did not touch.
fn add_override_warnings(
    result: &mut Value,
    existing: &[ServiceStack],
    services: &[validate::ImportService],
) {
    let warnings: Vec<String> = services
        .iter()
        .filter(|s| s.overrides)
        .filter_map(|wanted| {
            // (One being deleted is waited for and made anew: nothing of it stays.)
            let have = existing
                .iter()
                .find(|e| e.name == wanted.hostname && e.status != "DELETING")?;
            override_drift(wanted, have)
        })
        .collect();
    if !warnings.is_empty() {
        result["overrideWarnings"] = json!(warnings);
    }
}

/// What an override of `have` with `wanted` would leave unchanged, as a sentence; `None`
/// when the type and mode match, or cannot be told apart: `alpine/nodejs@22` and
/// `nodejs@latest` are the `nodejs@22` a service runs, and `postgresql:ha@16` names the
/// mode `HA` as `mode: HA` does.
fn override_drift(wanted: &validate::ImportService, have: &ServiceStack) -> Option<String> {
    let have_type = have.type_info.version_name.as_str();
    let (want, got) = (
        TypeParts::of(&wanted.service_type),
        TypeParts::of(have_type),
    );
    let mut changed = Vec::new();
    let other_version = match (resolved_version(&want.family, want.version), got.version) {
        // `1.3` asks for what `1.3.9` is, and `8.4` for `8.4+1.22`.
        (Some(w), Some(g)) => {
            !(w == g
                || g.strip_prefix(w.as_str())
                    .is_some_and(|r| r.starts_with(['.', '+'])))
        }
        _ => false,
    };
    if !have_type.is_empty() && (want.family != got.family || other_version) {
        changed.push(format!(
            "type {} (it stays {have_type})",
            wanted.service_type
        ));
    }
    let want_mode = wanted
        .mode
        .as_deref()
        .map(str::to_ascii_uppercase)
        .or(want.mode.map(str::to_owned));
    let have_mode = have
        .mode
        .as_deref()
        .map(str::to_ascii_uppercase)
        .or(got.mode.map(str::to_owned));
    if let (Some(w), Some(h)) = (want_mode, have_mode)
        && w != h
    {
        changed.push(format!("mode {w} (it stays {h})"));
    }
    if changed.is_empty() {
        return None;
    }
    Some(format!(
        "'{}' exists: `override: true` re-imports it as it is and the platform ignores the YAML's {}. To change them, import it under a new hostname (and move its data), or delete '{}' first.",
        wanted.hostname,
        changed.join(" and "),
        wanted.hostname
    ))
}

/// The version the platform runs for `version` of `family`: a concrete one as it is,
/// `latest` or a prefix (`1`, `1.3`) as the newest version it names in zcp's offline list
/// (the platform resolves such an alias to the newest). `None` when there is nothing to
/// compare: no version, a tag such as `stable`, or `latest` of a family the list lacks.
fn resolved_version(family: &str, version: Option<&str>) -> Option<String> {
    let version = version?;
    let listed: Vec<&str> = validate::catalog::family(family)
        .map(|f| {
            [f.legacy, f.alpine, f.ubuntu, f.single, f.ha, f.plain]
                .into_iter()
                .flatten()
                .copied()
                .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))
                .collect()
        })
        .unwrap_or_default();
    let newest = |named: &dyn Fn(&str) -> bool| {
        listed
            .iter()
            .copied()
            .filter(|v| named(v))
            .max_by(|a, b| version_key(a).cmp(&version_key(b)))
            .map(str::to_owned)
    };
    if version.eq_ignore_ascii_case("latest") {
        return newest(&|_| true);
    }
    if !version.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if listed.contains(&version) {
        return Some(version.to_owned());
    }
    newest(&|v| {
        v.strip_prefix(version)
            .is_some_and(|r| r.starts_with(['.', '+']))
    })
    .or_else(|| Some(version.to_owned()))
}

/// A version's numbers, for ordering (`1.10` after `1.9`).
fn version_key(version: &str) -> Vec<u64> {
    version
        .split(['.', '+', '-'])
        .map(|part| part.parse().unwrap_or(0))
        .collect()
}

/// A type string as the override check compares it.
struct TypeParts<'a> {
    /// The family, spellings of one family folded (`golang` is `go`).
    family: String,
    /// The version as written, if any (see [`resolved_version`]).
    version: Option<&'a str>,
    /// The mode a `:single` / `:ha` suffix names.
    mode: Option<&'static str>,
}

impl TypeParts<'_> {
    fn of(text: &str) -> TypeParts<'_> {
        let spelled = validate::catalog::split(text);
        let family = match spelled.name.to_ascii_lowercase().as_str() {
            "golang" => "go".to_owned(),
            "objectstorage" => "object-storage".to_owned(),
            "sharedstorage" => "shared-storage".to_owned(),
            other => other.to_owned(),
        };
        let version = Some(spelled.version).filter(|v| !v.is_empty());
        let mode = spelled.suffix_mode();
        TypeParts {
            family,
            version,
            mode,
        }
    }
}

/// `next`, after naming the services that were not made (refused, or their process
/// failed or was canceled).
fn not_made_first(services: &[Value], next: String) -> String {
    let not_made: Vec<&str> = services
        .iter()
        .filter(|e| matches!(e["status"].as_str(), Some("failed" | "canceled")))
        .filter_map(|e| e["hostname"].as_str())
        .collect();
    if not_made.is_empty() {
        return next;
    }
    format!(
        "Not completed: {} (each line's error says why; fix it and import again, with `override: true` for a service that exists). {next}",
        not_made.join(", ")
    )
}

/// What to do after the import: deploy code to the runtimes it created without any, or
/// (with none) connect to the services. An overridden service stays as it was (waiting
/// for code only if it never had any), and one not made waits for nothing.
fn next_action(
    services: &[validate::ImportService],
    outcome: &[Value],
    existing: &[ServiceStack],
) -> String {
    let created = |host: &str| {
        outcome.iter().any(|e| {
            e["hostname"] == host
                && (e["status"] == "created"
                    || (e["status"] == "overridden"
                        && existing
                            .iter()
                            .any(|s| s.name == host && s.status == "READY_TO_DEPLOY")))
        })
    };
    let waiting: Vec<&str> = services
        .iter()
        .filter(|s| s.awaits_code && created(&s.hostname))
        .map(|s| s.hostname.as_str())
        .collect();
    if waiting.is_empty() {
        // Connection advice only fits databases and the like, not runtimes.
        if !services.iter().any(|s| s.managed) {
            return "Nothing in this import needs code deployed; zerops_discover shows the services' state."
                .to_owned();
        }
        "Other services reach these at <hostname>:<port> over the private network; reference their variables as ${hostname_connectionString} etc. in run.envVariables (zerops_discover with includeEnvs lists them).".to_owned()
    } else {
        let (who, setups) = match waiting.as_slice() {
            [one] => (format!("'{one}' waits"), format!("a setup named '{one}'")),
            many => (
                format!("{} wait", many.join(", ")),
                "a setup named like each".to_owned(),
            ),
        };
        format!(
            "{who} for code: write zerops.yml with {setups}, call zerops_deploy, then, for one that serves HTTP, zerops_subdomain enable for a public URL."
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blank content or path is refused naming what was sent blank.
    #[test]
    fn blank_sources_are_named() {
        let message = |content: Option<&str>, path: Option<&str>| {
            read_source(content, path).unwrap_err().message
        };
        assert!(message(Some(" \n"), None).starts_with("content is empty"));
        assert_eq!(message(None, Some("")), "filePath is empty");
        assert!(message(None, None).starts_with("Give content"));
    }

    /// Spellings of one type and mode are no change; another family, a concrete version
    /// the service does not run, or another mode (however written) is, and only what
    /// differs is named.
    #[test]
    fn override_drift_tells_spellings_from_changes() {
        let running = |version_name: &str, mode: Option<&str>| ServiceStack {
            name: "svc".into(),
            mode: mode.map(str::to_owned),
            type_info: crate::platform::TypeInfo {
                version_name: version_name.into(),
                ..Default::default()
            },
            ..ServiceStack::default()
        };
        let drift = |yaml_type: &str, yaml_mode: Option<&str>, have: &ServiceStack| {
            let mode = yaml_mode.map_or(String::new(), |m| format!("\n    mode: {m}"));
            let yaml = format!(
                "services:\n  - hostname: svc\n    type: {yaml_type}{mode}\n    override: true\n"
            );
            let wanted = validate::import_services(&yaml).unwrap();
            override_drift(&wanted[0], have)
        };
        let node = running("nodejs@22", Some("NON_HA"));
        for same in ["nodejs@22", "alpine/nodejs@22", "NODEJS@22"] {
            assert_eq!(drift(same, None, &node), None, "{same}");
        }
        // `latest` is the newest version zcp knows (24), which a nodejs@22 is not.
        assert!(
            drift("nodejs@latest", None, &node).is_some_and(|w| w.contains("type nodejs@latest"))
        );
        assert_eq!(
            drift("nodejs@latest", None, &running("nodejs@24", None)),
            None
        );
        assert_eq!(
            drift("php-nginx@8.4", None, &running("php-nginx@8.4+1.22", None)),
            None
        );
        assert_eq!(
            drift("rust@stable", None, &running("rust@1.86", None)),
            None
        );
        assert_eq!(drift("golang@1", None, &running("go@1", None)), None);
        assert_eq!(drift("bun@1.3", None, &running("bun@1.3.9", None)), None);
        assert!(
            drift("nodejs@20", None, &node)
                .is_some_and(|w| w.contains("type nodejs@20 (it stays nodejs@22)"))
        );
        assert!(drift("bun@1.3", None, &running("bun@1.30", None)).is_some());
        let db = running("postgresql@16", Some("NON_HA"));
        assert_eq!(drift("postgresql:single@16", None, &db), None);
        assert_eq!(drift("postgresql@16", Some("NON_HA"), &db), None);
        let to_ha = drift("postgresql:ha@16", None, &db).unwrap();
        assert!(
            to_ha.contains("mode HA (it stays NON_HA)") && !to_ha.contains("type "),
            "{to_ha}"
        );
        let both = drift("postgresql:ha@17", None, &db).unwrap();
        assert!(
            both.contains("type postgresql:ha@17 (it stays postgresql@16) and mode HA"),
            "{both}"
        );
        // A mode the API does not report cannot be compared.
        assert_eq!(
            drift("postgresql@16", Some("HA"), &running("postgresql@16", None)),
            None
        );
        // Nor can a type it does not report.
        assert_eq!(
            drift("valkey@7.2", None, &running("", Some("NON_HA"))),
            None
        );
    }

    #[test]
    fn the_next_action_names_the_runtimes_that_wait_for_code() {
        let services = validate::import_services(
            "services:\n  - hostname: api\n    type: nodejs@22\n  - hostname: app\n    type: go@1\n    buildFromGit: https://github.com/x/y\n  - hostname: db\n    type: postgresql@16\n    mode: NON_HA\n  - hostname: files\n    type: object-storage\n",
        )
        .unwrap();
        let awaiting: Vec<bool> = services.iter().map(|s| s.awaits_code).collect();
        assert_eq!(awaiting, [true, false, false, false]);
        let created: Vec<Value> = services
            .iter()
            .map(|s| json!({"hostname": s.hostname, "status": "created"}))
            .collect();
        let next = next_action(&services, &created, &[]);
        assert!(next.starts_with("'api' waits for code"), "{next}");
        let managed = validate::import_services(
            "services:\n  - hostname: cache\n    type: valkey@7.2\n    mode: NON_HA\n",
        )
        .unwrap();
        let next = next_action(&managed, &[], &[]);
        assert!(!next.contains("zerops_deploy"), "{next}");
        assert!(next.contains("connectionString"), "{next}");
    }

    #[test]
    fn inline_content_has_the_file_size_limit() {
        let limit = usize::try_from(source_file::MAX_FILE_BYTES).unwrap();
        let at = format!("#{}", "x".repeat(limit - 1));
        assert_eq!(read_source(Some(&at), None).unwrap().0.len(), limit);
        let over = format!("{at}\n");
        let err = read_source(Some(&over), None).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParameter);
        assert!(err.message.contains("larger than 10 MiB"), "{err:?}");
        assert!(err.suggestion.contains("content"), "{err:?}");
    }

    #[test]
    fn exactly_one_source() {
        assert_eq!(
            read_source(Some("a: 1"), Some("x.yml")).unwrap_err().code,
            ErrorCode::InvalidParameter
        );
        assert_eq!(
            read_source(None, None).unwrap_err().code,
            ErrorCode::InvalidParameter
        );
        assert_eq!(
            read_source(Some("  "), None).unwrap_err().code,
            ErrorCode::InvalidParameter
        );
        assert_eq!(
            read_source(None, Some("/no/such/file.yml"))
                .unwrap_err()
                .code,
            ErrorCode::FileNotFound
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("import.yml");
        std::fs::write(&file, "services: []").unwrap();
        let (text, path) = read_source(None, file.to_str()).unwrap();
        assert_eq!(text, "services: []");
        assert!(path.is_some());
    }

    #[test]
    fn projects_and_errors_are_refused_before_the_api() {
        let err = dry_run(
            "project:\n  name: x\nservices:\n  - hostname: a\n    type: go@1\n",
            None,
            None,
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::ImportHasProject);
        let err =
            dry_run("services:\n  - hostname: Bad\n    type: go@1\n", None, None).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidHostname);
        assert!(err.api_meta.is_some());
        let err = dry_run(
            "services:\n  - hostname: db\n    type: mongodb@7\n",
            None,
            None,
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::UnknownType);
        let ok = dry_run(
            "services:\n  - hostname: db\n    type: postgresql@16\n    mode: NON_HA\n",
            None,
            None,
        )
        .unwrap();
        assert_eq!(ok["services"][0]["hostname"], "db");
        assert!(ok["note"].as_str().unwrap().contains("offline"), "{ok}");
    }
}
