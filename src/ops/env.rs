//! `zerops_env`: read, set and delete variables of a service or of the project.
//!
//! Service `set` changes one variable per call: an existing user variable is updated by
//! its id, a new one is created. The API also takes a whole env file, but whether that
//! merges or replaces is not established, and the file format cannot carry a value with a
//! line break; the one-variable endpoints have neither problem and never touch other
//! variables. Project `set` is an upsert by delete + create (a plain create of an existing
//! key is refused). Input is checked completely before anything changes. Knows nothing of
//! MCP.

use crate::json;

use serde_json::Value;

use crate::auth::Session;
use crate::platform::{EnvVar, ErrorCode, PlatformError, Process, ServiceStack};

use super::follow::{Follow, follow_processes};
use super::helpers::{
    fail_if_failed, followed_json, project_services, refuse_if_deleting, resolve_service_among,
};
use super::progress::Ending;
use super::validate::suggest;

/// Where the variables live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvScope {
    Service(String),
    Project,
}

/// Picks the scope: `project: true` wins; otherwise a hostname is needed.
pub fn scope(service_hostname: Option<&str>, project: bool) -> Result<EnvScope, PlatformError> {
    if project {
        return Ok(EnvScope::Project);
    }
    match service_hostname.map(str::trim).filter(|h| !h.is_empty()) {
        Some(hostname) => Ok(EnvScope::Service(
            super::helpers::check_hostname(hostname)?.to_owned(),
        )),
        // SERVICE_REQUIRED, as every other tool answers a missing serviceHostname.
        None => Err(PlatformError::new(
            ErrorCode::ServiceRequired,
            "Provide serviceHostname, or set project: true",
        )
        .with_suggestion(
            "Service variables need serviceHostname; project-wide ones need project: true.",
        )),
    }
}

fn env_error(message: String) -> PlatformError {
    PlatformError::new(ErrorCode::InvalidEnvFormat, message)
}

/// A platform-generated variable was named: the format advice would not help here.
fn platform_key(key: &str, verb: &str) -> PlatformError {
    env_error(format!("'{key}' is set by the platform and cannot be {verb}")).with_suggestion(
        "Platform variables (hostname, zeropsSubdomain, a database's connectionString, ...) are read-only: use a key of your own, which may reference them as ${service_key}.",
    )
}

/// Whether the platform owns a variable. Users' own are `SECRET` (service) or `USER`
/// (project); everything else (`READ_ONLY`, `EDITABLE`, `INTERNAL`, `ENV`, `SYSTEM`, and
/// types this build does not know yet) is the platform's, so zcp never writes it.
pub(super) fn is_platform(var: &EnvVar) -> bool {
    !matches!(var.env_type.as_deref(), None | Some("SECRET" | "USER"))
}

/// Most variables one call changes: each is its own API call (and process), so a bigger
/// change would outlast a host's patience for one tool call.
pub const MAX_VARIABLES: usize = 100;

fn too_many(count: usize) -> PlatformError {
    PlatformError::new(
        ErrorCode::InvalidParameter,
        format!("{count} variables in one call; at most {MAX_VARIABLES} are taken"),
    )
    .with_suggestion(format!(
        "Split the change into calls of up to {MAX_VARIABLES} variables each."
    ))
}

/// Stops a multi-variable change between two API calls once the request was cancelled.
/// The client will not read the answer, so what was already changed goes to the log.
fn stop_if_cancelled(follow: &Follow<'_>, progress: &Progress<'_>) -> Result<(), PlatformError> {
    if !follow.cancel.is_cancelled() {
        return Ok(());
    }
    crate::warn!(
        "env",
        "cancelled after {} of {} variables",
        progress.done.len(),
        progress.done.len() + progress.rest.len()
    );
    Err(partly_done(
        PlatformError::new(ErrorCode::InvalidUsage, "The change was cancelled")
            .with_suggestion("Call zerops_env get to see what changed."),
        progress,
    ))
}

/// How far a multi-variable change got: one call per variable, so it cannot be undone
/// half-way. `rest` starts with the variable being changed.
struct Progress<'a> {
    done: &'a [String],
    /// A project variable whose old value was deleted when its new one could not be
    /// created (a project variable is replaced by delete, then create).
    lost: Option<&'a str>,
    rest: &'a [String],
    processes: &'a [Process],
}

/// Adds to a failure what had already changed (with its processes, which still apply the
/// change) and what was not sent, so the agent can restart for the first and retry the rest.
fn partly_done(mut err: PlatformError, progress: &Progress<'_>) -> PlatformError {
    if progress.done.is_empty() && progress.lost.is_none() {
        return err;
    }
    if !progress.done.is_empty() {
        err.message = format!(
            "{} (already changed before this failure: {})",
            err.message,
            progress.done.join(", ")
        );
    }
    if let Some(key) = progress.lost {
        err.message = format!(
            "{} ({key}'s old value was already deleted: it has no value now)",
            err.message
        );
    }
    err.suggestion = format!(
        "{} `changed` lists what is already stored (`processes` apply it; a restart makes a running app read it){}; `notChanged` was not changed.",
        err.suggestion,
        if progress.lost.is_some() {
            ", `deleted` lost its old value (set it again)"
        } else {
            ""
        }
    );
    let processes = progress
        .processes
        .iter()
        .map(super::helpers::process_json)
        .collect();
    let mut details = serde_json::Map::new();
    details.insert("changed".into(), json!(progress.done));
    if let Some(key) = progress.lost {
        details.insert("deleted".into(), json!([key]));
    }
    details.insert("notChanged".into(), json!(progress.rest));
    details.insert("processes".into(), Value::Array(processes));
    err.details = Some(details);
    err
}

fn valid_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The items, with an item of several lines that are all `KEY=value` (a pasted .env file,
/// or one string where a list was meant) read as that many items. An item with any other
/// line is one variable whose value spans lines (a PEM key's lines are not `KEY=...`).
fn split_dotenv_items(items: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for item in items {
        let lines: Vec<&str> = item
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty())
            .collect();
        let all_assignments = lines.len() > 1
            && lines.iter().all(|line| {
                line.split_once('=')
                    .is_some_and(|(key, _)| valid_key(key.trim()))
            });
        if all_assignments {
            out.extend(lines.into_iter().map(str::to_owned));
        } else {
            out.push(item.clone());
        }
    }
    out
}

/// Splits `KEY=value` lines at the first `=`; rejects the whole input on any bad line.
pub fn parse_assignments(lines: &[String]) -> Result<Vec<(String, String)>, PlatformError> {
    if lines.is_empty() {
        return Err(env_error("No variables given".into()));
    }
    let items = split_dotenv_items(lines);
    if items.len() > MAX_VARIABLES {
        return Err(too_many(items.len()));
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for (i, raw) in items.iter().enumerate() {
        let n = i + 1;
        // A value may span lines (a PEM key, say): each variable is its own JSON field.
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let Some((key, value)) = line.split_once('=') else {
            return Err(env_error(format!(
                "Variable #{n} '{line}' is not KEY=value"
            )));
        };
        // `KEY = value` is written with spaces around `=`: they belong to neither side.
        let value = if key.ends_with([' ', '\t']) {
            value.trim_start_matches([' ', '\t'])
        } else {
            value
        };
        let key = key.trim();
        if !valid_key(key) {
            return Err(env_error(format!(
                "Variable #{n} has an invalid key '{key}': use letters, digits and underscores, not starting with a digit"
            )));
        }
        if key.to_ascii_uppercase().starts_with("ZEROPS_") {
            return Err(env_error(format!(
                "Variable #{n}: keys starting with ZEROPS_ are reserved by the platform"
            )));
        }
        // Zerops keys are unique whatever their letter case.
        if let Some((first, _)) = out.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)) {
            return Err(env_error(if first == key {
                format!("Variable #{n}: key '{key}' is given twice")
            } else {
                format!(
                    "Variable #{n}: key '{key}' is '{first}' in other letter case; Zerops keys are unique whatever their case"
                )
            }));
        }
        out.push((key.to_owned(), value.to_owned()));
    }
    Ok(out)
}

/// Parses bare keys for delete. `KEY=value` is refused: a delete given a value was most
/// likely meant as a set, and deleting is the step that cannot be undone.
pub fn parse_keys(lines: &[String]) -> Result<Vec<String>, PlatformError> {
    // Delete's own advice: the format advice of set (KEY=value) would now be refused.
    let refused = |message: String| {
        env_error(message).with_suggestion("Pass only the names to delete (letters, digits and underscores, e.g. [\"REDIS_URL\"]); to change a value, call zerops_env with action set.")
    };
    if lines.is_empty() {
        return Err(refused("No variable names given".into()));
    }
    let mut keys = Vec::new();
    // A key never spans lines: an item of several lines is several keys.
    let items: Vec<&str> = lines
        .iter()
        .flat_map(|item| item.lines().filter(|l| !l.trim().is_empty()))
        .collect();
    if items.len() > MAX_VARIABLES {
        return Err(too_many(items.len()));
    }
    for (i, raw) in items.into_iter().enumerate() {
        if let Some((key, _)) = raw.split_once('=') {
            return Err(refused(format!(
                "Variable #{} carries a value, but delete takes bare keys ('{}')",
                i + 1,
                key.trim().chars().take(60).collect::<String>()
            )));
        }
        let key = raw.trim().to_owned();
        if !valid_key(&key) {
            return Err(refused(format!(
                "Variable #{} has an invalid key '{key}'",
                i + 1
            )));
        }
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    if keys.is_empty() {
        // Only blank items: a delete of nothing, which would answer as if it had run.
        return Err(refused(
            "No variable names given (every item is blank)".into(),
        ));
    }
    Ok(keys)
}

/// Variables of the scope, with values.
pub fn get(session: &Session, scope: &EnvScope) -> Result<Value, PlatformError> {
    let (vars, service, _) = read(session, scope)?;
    let vars = super::discover::envs_json(&vars, true);
    Ok(match service {
        Some(s) => json!({ "scope": "service", "serviceHostname": s.name, "vars": vars }),
        None => json!({ "scope": "project", "vars": vars }),
    })
}

/// The scope's variables, and its service (none for the project). Finding the service
/// lists the project's services; the list is kept for the reference check.
fn read(session: &Session, scope: &EnvScope) -> Result<Read, PlatformError> {
    match scope {
        EnvScope::Project => Ok((
            session.client.get_project_env(&session.info.project_id)?,
            None,
            None,
        )),
        EnvScope::Service(hostname) => {
            let (service, services) = resolve_service_among(session, hostname)?;
            Ok((
                session.client.get_service_env(&service.id)?,
                Some(service),
                Some(services),
            ))
        }
    }
}

/// A service being deleted takes no variable changes (reading them is fine).
fn refuse_change_if_deleting(
    session: &Session,
    service: Option<&ServiceStack>,
) -> Result<(), PlatformError> {
    service.map_or(Ok(()), |s| {
        refuse_if_deleting(session, s, "change the variables of")
    })
}

/// What `read` returns: variables, the service (service scope), the project's services
/// (when listed on the way).
type Read = (Vec<EnvVar>, Option<ServiceStack>, Option<Vec<ServiceStack>>);

/// When the change reaches the containers. A service with none running (never deployed,
/// or stopped) picks it up when it starts, so a restart would be a wasted process.
fn apply_hint(service: Option<&ServiceStack>) -> String {
    let Some(service) = service else {
        return "Running containers see project variables only after a restart: call zerops_manage with action restart for each service that uses them.".into();
    };
    let (when, call) = match service.status.as_str() {
        "READY_TO_DEPLOY" => (
            "Not deployed yet, so the variables reach it with its first deploy",
            "zerops_deploy with",
        ),
        "STOPPED" => (
            "Stopped, so the variables apply when it is started",
            "zerops_manage with action start and",
        ),
        _ => (
            "Running containers see the change only after a restart",
            "zerops_manage with action restart and",
        ),
    };
    format!("{when}: call {call} serviceHostname {}.", service.name)
}

/// Whether a new variable is stored sensitive when the caller did not say: by its name, as
/// people name secrets (`DB_PASSWORD`, `API_TOKEN`, `STRIPE_SECRET_KEY`), except names that
/// say they are public (`STRIPE_PUBLISHABLE_KEY`, `PUBLIC_KEY`).
pub fn looks_secret(key: &str) -> bool {
    let upper = key.to_ascii_uppercase();
    let has = |words: &[&str]| words.iter().any(|w| upper.contains(w));
    let secret = has(&[
        "SECRET",
        "TOKEN",
        "KEY",
        "PASSWORD",
        "PASS",
        "DSN",
        "PRIVATE",
        "CREDENTIAL",
    ]);
    let public = has(&["PUBLIC", "PUBLISHABLE"]) && !has(&["SECRET", "PASSWORD", "PRIVATE"]);
    secret && !public
}

/// Sets variables (upsert). `sensitive` applies to every variable when given; otherwise a
/// replaced variable keeps its flag and a new one gets [`looks_secret`].
pub fn set(
    session: &Session,
    scope: &EnvScope,
    lines: &[String],
    sensitive: Option<bool>,
    follow: &mut Follow<'_>,
) -> Result<Value, PlatformError> {
    let assignments = parse_assignments(lines)?;
    let (current, service, services) = read(session, scope)?;
    refuse_change_if_deleting(session, service.as_ref())?;
    if let Some((key, _)) = assignments
        .iter()
        .find(|(k, _)| current.iter().any(|v| &v.key == k && is_platform(v)))
    {
        return Err(platform_key(key, "changed"));
    }
    // The platform refuses a key that differs from an existing one only in letter case.
    if let Some((key, existing)) = assignments.iter().find_map(|(k, _)| {
        current
            .iter()
            .find(|v| v.key != *k && v.key.eq_ignore_ascii_case(k))
            .map(|v| (k, &v.key))
    }) {
        return Err(env_error(format!(
            "'{key}' differs from the existing variable '{existing}' only in letter case"
        ))
        .with_suggestion(format!(
            "Zerops keys are unique whatever their case: set '{existing}' to change it, or delete it first."
        )));
    }
    let mut warnings = self_references(&assignments);
    warnings.extend(unknown_references(
        session,
        &assignments,
        &current,
        &mut Lookups::with_services(services),
    ));
    let mut added = Vec::new();
    let mut replaced = Vec::new();
    let mut stored_sensitive = Vec::new();
    let mut processes: Vec<Process> = Vec::new();
    // The variable each process changes (a project variable's replacement sends two).
    let mut process_keys: Vec<String> = Vec::new();
    let keys: Vec<String> = assignments.iter().map(|(k, _)| k.clone()).collect();
    for (i, (key, value)) in assignments.iter().enumerate() {
        let existing = current.iter().find(|v| &v.key == key);
        let done: Vec<String> = replaced.iter().chain(&added).cloned().collect();
        stop_if_cancelled(
            follow,
            &Progress {
                done: &done,
                lost: None,
                rest: &keys[i..],
                processes: &processes,
            },
        )?;
        let sent_before = processes.len();
        // A replaced variable keeps its `sensitive` flag unless told otherwise (the API
        // turns a value plain when an update leaves the flag out).
        let sensitive = sensitive.unwrap_or_else(|| match existing {
            Some(var) => var.sensitive.unwrap_or(false),
            None => looks_secret(key),
        });
        if sensitive {
            stored_sensitive.push(key.clone());
        }
        let step = match (&service, existing) {
            (Some(_), Some(var)) => session
                .client
                .update_user_data(&var.id, key, value, sensitive)
                .map(|p| processes.push(p)),
            (Some(service), None) => session
                .client
                .create_user_data(&service.id, key, value, sensitive)
                .map(|p| processes.push(p)),
            (None, existing) => {
                upsert_project_var(session, existing, key, value, sensitive, &mut processes)
            }
        };
        step.map_err(|err| {
            // Only a project variable's replacement sends a call (its delete) before the
            // one that failed: that variable has lost its value.
            let lost = processes.len() > sent_before;
            let progress = Progress {
                done: &done,
                lost: lost.then_some(key.as_str()),
                rest: &keys[i + usize::from(lost)..],
                processes: &processes,
            };
            partly_done(err, &progress)
        })?;
        process_keys.resize(processes.len(), key.clone());
        if existing.is_some() {
            replaced.push(key.clone());
        } else {
            added.push(key.clone());
        }
    }
    let mut changes =
        json!({ "added": added, "replaced": replaced, "sensitive": stored_sensitive });
    if !warnings.is_empty() {
        changes["warnings"] = json!(warnings);
    }
    finish(
        session,
        service.as_ref(),
        processes,
        &process_keys,
        follow,
        changes,
    )
}

/// `${host_key}` references that cannot resolve: to a service the project does not have,
/// or to a key near one the service has (`${db_hostnme}`); the platform stores them, and
/// the app gets the text as written. Only a prefix that can be a hostname (lowercase
/// letters and digits) counts, so `${DB_URL}` is left alone, and so is a name that is a
/// variable here. The services come with the [`Lookups`] when the caller has listed them
/// (`read` in service scope, the import, the deploy that found its service), or are listed
/// only when such a reference is found; a referenced service's variables are read once
/// per [`Lookups`]. A key with no near match (by edit distance) is not warned about: it
/// may come from the service's zerops.yml, which the listing may not show.
fn unknown_references(
    session: &Session,
    assignments: &[(String, String)],
    current: &[EnvVar],
    lookups: &mut Lookups,
) -> Vec<String> {
    let mut warnings = Vec::new();
    let Lookups {
        services,
        their_vars,
    } = lookups;
    for (key, value) in assignments {
        for part in value.split("${").skip(1) {
            let Some((name, _)) = part.split_once('}') else {
                warnings.push(format!(
                    "{key}: '${{' is not closed with '}}': the app would get the text as written."
                ));
                // Once per variable: every later `${` of it is just as unclosed.
                break;
            };
            let Some((host, wanted)) = name.split_once('_') else {
                continue;
            };
            let hostname_like = |h: &str| {
                h.starts_with(|c: char| c.is_ascii_lowercase())
                    && h.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            };
            if current.iter().any(|v| v.key == name) || assignments.iter().any(|(k, _)| k == name) {
                continue;
            }
            let lower = host.to_ascii_lowercase();
            if !hostname_like(host) {
                // `${DB_connectionString}`: a hostname in capitals names no service (they
                // are lower case). Said only when the rest is exactly one of that service's
                // keys, so project variables such as `${DB_URL}` or `${DB_PASSWORD}` are
                // left alone.
                if hostname_like(&lower)
                    && let Some(service) = known_services(session, services)
                        .iter()
                        .find(|s| s.name == lower)
                    && !service.id.is_empty()
                    && keys_of(session, their_vars, service)
                        .iter()
                        .any(|k| k == wanted)
                {
                    warnings.push(format!(
                        "{key}: hostnames are lower case, so ${{{name}}} names no service (did you mean ${{{lower}_{wanted}}}?): the app would get the text as written (unless {name} is a project variable)."
                    ));
                }
                continue;
            }
            // An empty list is a failed read: no warning rather than a wrong one.
            let known = known_services(session, services);
            let Some(service) = known.iter().find(|s| s.name == host) else {
                if !known.is_empty() {
                    let names: Vec<&str> = known.iter().map(|s| s.name.as_str()).collect();
                    let near = suggest::closest(host, &names, 1)
                        .first()
                        .map_or_else(String::new, |n| format!(" (did you mean '{n}'?)"));
                    warnings.push(format!(
                        "{key}: no service '{host}' for ${{{name}}}{near}: the app would get the text as written (unless {name} is a project variable)."
                    ));
                }
                continue;
            };
            // A service not created yet (named by the same import) has no variables to read.
            if service.id.is_empty() {
                continue;
            }
            let keys = keys_of(session, their_vars, service);
            // By edit distance only (no "contains" match: `URL` beside a zerops.yml's
            // `DATABASE_URL` is no typo of it).
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            if !keys.contains(&wanted)
                && let Some(near) = suggest::nearest(wanted, &keys)
            {
                warnings.push(format!(
                    "{key}: '{host}' has no variable '{wanted}' for ${{{name}}} (did you mean '{near}'?): the app would get the text as written."
                ));
            }
        }
    }
    warnings
}

/// The project's services, listed once per [`Lookups`] (none when the listing fails).
fn known_services<'a>(
    session: &Session,
    services: &'a mut Option<Vec<ServiceStack>>,
) -> &'a [ServiceStack] {
    services.get_or_insert_with(|| project_services(session).unwrap_or_default())
}

/// The variable names of a referenced service, read once per [`Lookups`] (none when the
/// read fails).
fn keys_of<'a>(
    session: &Session,
    their_vars: &'a mut Vec<(String, Vec<String>)>,
    service: &ServiceStack,
) -> &'a [String] {
    let at = match their_vars.iter().position(|(id, _)| *id == service.id) {
        Some(at) => at,
        None => {
            let keys = session
                .client
                .get_service_env(&service.id)
                .map(|vars| vars.into_iter().map(|v| v.key).collect())
                .unwrap_or_default();
            their_vars.push((service.id.clone(), keys));
            their_vars.len() - 1
        }
    };
    &their_vars[at].1
}

/// Variables whose value refers to the variable itself (`API_URL=${API_URL}`): the value
/// would shadow what the name reaches and hold the literal text (validator rule Z36/I26).
fn self_references(assignments: &[(String, String)]) -> Vec<String> {
    use crate::ops::validate::env::{own_name, references};
    assignments
        .iter()
        .filter(|(key, value)| references(value).contains(&Ok(key.as_str())))
        .map(|(key, _)| {
            format!(
                "{key}: refers to itself, so it would hold the literal text ${{{key}}}; set the value it should have, or give the reference a variable of another name{}.",
                own_name(key).map_or_else(String::new, |upper| format!(" (e.g. {upper}=${{{key}}})"))
            )
        })
        .collect()
}

/// What reference checks have read so far: the project's services (listed when first
/// needed) and the variable names of each referenced service, so that a batch of checks
/// (an import's services) reads each only once.
#[derive(Default)]
struct Lookups {
    services: Option<Vec<ServiceStack>>,
    their_vars: Vec<(String, Vec<String>)>,
}

impl Lookups {
    fn with_services(services: Option<Vec<ServiceStack>>) -> Lookups {
        Lookups {
            services,
            their_vars: Vec::new(),
        }
    }
}

/// Reference warnings for the `envSecrets` of an import's services, judged against the
/// project's services and the import's own (which exist once it runs), each warning led by
/// its service's hostname.
pub fn import_reference_warnings(
    session: &Session,
    listed: &[ServiceStack],
    imported: &[crate::ops::validate::ImportService],
) -> Vec<String> {
    let mut known = listed.to_vec();
    for service in imported {
        if !known.iter().any(|s| s.name == service.hostname) {
            known.push(ServiceStack {
                name: service.hostname.clone(),
                ..ServiceStack::default()
            });
        }
    }
    // One check per service, with its own keys as they are: `${my_key}` names its own
    // variable, which is no reference to a service 'my'. The lookups are shared: a
    // service that many of them reference has its variables read once.
    let mut lookups = Lookups::with_services(Some(known));
    imported
        .iter()
        .flat_map(|service| {
            unknown_references(session, &service.env, &[], &mut lookups)
                .into_iter()
                .map(|warning| format!("{}: {warning}", service.hostname))
        })
        .collect()
}

/// What a deploy's zerops.yml `run.envVariables` (`pairs`) would meet on `service`: the
/// reference checks of `set`, and keys the service already has as its own variables (type
/// `SECRET`, set with zerops_env or an import: the zerops.yml value takes precedence in
/// the app, so that variable silently stops counting). `listed`:
/// the project's services if the caller has them (else they are listed when needed).
pub fn zerops_yml_variable_warnings(
    session: &Session,
    service: &ServiceStack,
    pairs: &[(String, String)],
    listed: Option<Vec<ServiceStack>>,
) -> Vec<String> {
    if pairs.is_empty() {
        return Vec::new();
    }
    let current = session
        .client
        .get_service_env(&service.id)
        .unwrap_or_default();
    let mut warnings: Vec<String> = current
        .iter()
        .filter(|v| v.env_type.as_deref() == Some("SECRET"))
        .filter(|v| pairs.iter().any(|(k, _)| *k == v.key))
        .map(|v| {
            format!(
                "{} is also set on '{}' as a service variable (zerops_env): the zerops.yml value takes precedence, so that one stops counting. Keep one of them (zerops_env delete removes the service variable).",
                v.key, service.name
            )
        })
        .collect();
    warnings.extend(unknown_references(
        session,
        pairs,
        &current,
        &mut Lookups::with_services(listed),
    ));
    warnings
}

/// A project variable cannot be updated in place by zcp's calls: delete, then create.
fn upsert_project_var(
    session: &Session,
    existing: Option<&EnvVar>,
    key: &str,
    value: &str,
    sensitive: bool,
    processes: &mut Vec<Process>,
) -> Result<(), PlatformError> {
    if let Some(var) = existing {
        processes.push(session.client.delete_project_env(&var.id)?);
    }
    processes.push(session.client.create_project_env(
        &session.info.project_id,
        key,
        value,
        sensitive,
    )?);
    Ok(())
}

/// Deletes variables by key.
pub fn delete(
    session: &Session,
    scope: &EnvScope,
    lines: &[String],
    follow: &mut Follow<'_>,
) -> Result<Value, PlatformError> {
    let keys = parse_keys(lines)?;
    let (current, service, _) = read(session, scope)?;
    refuse_change_if_deleting(session, service.as_ref())?;
    // Check every key first, so nothing is deleted when one is wrong.
    let mut targets = Vec::new();
    for key in &keys {
        match current.iter().find(|v| &v.key == key) {
            Some(var) if is_platform(var) => {
                return Err(platform_key(key, "deleted"));
            }
            Some(var) => targets.push(var.clone()),
            None => {
                // Only what could be deleted: platform variables cannot.
                let mut existing: Vec<&str> = current
                    .iter()
                    .filter(|v| !is_platform(v))
                    .map(|v| v.key.as_str())
                    .collect();
                crate::order::sort(&mut existing);
                return Err(PlatformError::new(
                    ErrorCode::InvalidParameter,
                    format!("Environment variable '{key}' not found"),
                )
                .with_suggestion(format!(
                    "Variables of yours that exist: {}",
                    if existing.is_empty() {
                        "(none)".into()
                    } else {
                        existing.join(", ")
                    }
                )));
            }
        }
    }
    let mut processes = Vec::new();
    for (i, var) in targets.iter().enumerate() {
        let progress = Progress {
            done: &keys[..i],
            lost: None,
            rest: &keys[i..],
            processes: &processes,
        };
        stop_if_cancelled(follow, &progress)?;
        let deleted = match scope {
            EnvScope::Service(_) => session.client.delete_user_data(&var.id),
            EnvScope::Project => session.client.delete_project_env(&var.id),
        };
        let deleted = deleted.map_err(|err| partly_done(err, &progress))?;
        processes.push(deleted);
    }
    finish(
        session,
        service.as_ref(),
        processes,
        &keys,
        follow,
        json!({ "removed": keys }),
    )
}

/// Follows the change's processes (`keys[i]` is the variable `processes[i]` changes) and
/// answers with `changes`; a process that failed or was canceled makes it an error that
/// still carries `changes` and names the variables whose processes did not finish well.
fn finish(
    session: &Session,
    service: Option<&ServiceStack>,
    processes: Vec<Process>,
    keys: &[String],
    follow: &mut Follow<'_>,
    changes: Value,
) -> Result<Value, PlatformError> {
    let done = follow_processes(session.client.as_ref(), processes, follow)?;
    let failure = ended_badly(&done, keys);
    let mut result = changes;
    result["scope"] = json!(if service.is_some() {
        "service"
    } else {
        "project"
    });
    if let Some(s) = service {
        result["serviceHostname"] = json!(s.name);
    }
    // One process per variable: a hundred identical finished objects say no more than a
    // count. Only those not done are listed whole, and the ids while they are few.
    let unfinished: Vec<_> = done
        .iter()
        .filter(|(_, e)| *e != Ending::Finished)
        .collect();
    let mut running: Vec<Value> = unfinished
        .iter()
        .map(|(p, e)| followed_json(p, *e))
        .collect();
    // The same advice on each of many processes is said once, for all of them (only when
    // it is the same: a hit time limit or a cancel keeps its own reason).
    let alike = unfinished
        .iter()
        .all(|(_, e)| *e == Ending::StillRunning { hard_cap: false });
    if running.len() > 1 && alike {
        for process in &mut running {
            if let Some(fields) = process.as_object_mut() {
                fields.remove("hint");
            }
        }
        result["hint"] = json!(
            "These processes continue on the platform; follow each with zerops_process (its processId, action status)."
        );
    }
    result["summary"] = Value::String(format!(
        "processes: {} finished, {} still running",
        done.len() - running.len(),
        running.len()
    ));
    if !running.is_empty() {
        result["processes"] = Value::Array(running);
    }
    if done.len() <= 10 {
        result["processIds"] = done.iter().map(|(p, _)| p.id.as_str()).collect();
    }
    result["nextAction"] = json!(apply_hint(service));
    match failure {
        // The whole answer travels with the error: what was sent, the processes still
        // running and the restart advice hold for the variables that did change.
        Some((mut err, mut failed)) => {
            let mut details = result.as_object().cloned().unwrap_or_default();
            details.append(&mut failed);
            err.details = Some(details);
            Err(err)
        }
        None => Ok(result),
    }
}

/// The error for a change some of whose processes failed or were canceled, with the
/// members that say which variables: `failed` (one item per variable) and `deleted` (a
/// project variable whose old value went but whose new one was not stored).
fn ended_badly(
    done: &[(Process, Ending)],
    keys: &[String],
) -> Option<(PlatformError, serde_json::Map<String, Value>)> {
    let mut first: Option<PlatformError> = None;
    let mut failed: Vec<Value> = Vec::new();
    let mut deleted: Vec<&str> = Vec::new();
    for (i, ((process, ending), key)) in done.iter().zip(keys).enumerate() {
        let Err(err) = fail_if_failed(process, *ending, &format!("Changing {key}")) else {
            continue;
        };
        first.get_or_insert(err);
        if failed.iter().any(|f| f["variable"] == key.as_str()) {
            continue;
        }
        failed.push(json!({
            "variable": key,
            "processId": process.id,
            "status": process.status.to_ascii_lowercase(),
        }));
        // A replacement's delete went through before its create failed.
        let earlier_ok = done[..i]
            .iter()
            .zip(keys)
            .any(|((p, e), k)| k == key && *e == Ending::Finished && p.status == "FINISHED");
        if earlier_ok {
            deleted.push(key);
        }
    }
    let mut err = first?;
    if failed.len() > 1 {
        err.message = format!(
            "{} ({} variables' processes did not finish well)",
            err.message,
            failed.len()
        );
    }
    err.suggestion = format!(
        "{} `added`/`replaced`/`removed` list what was sent; the variables in `failed` may not have changed{}: zerops_env get shows what is stored.",
        err.suggestion,
        if deleted.is_empty() {
            ""
        } else {
            ", and those in `deleted` lost their old value (set them again)"
        }
    );
    let mut members = serde_json::Map::new();
    members.insert("failed".into(), Value::Array(failed));
    if !deleted.is_empty() {
        members.insert("deleted".into(), json!(deleted));
    }
    Some((err, members))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn secret_looking_names_are_stored_sensitive() {
        for name in [
            "DB_PASSWORD",
            "api_token",
            "STRIPE_SECRET_KEY",
            "SENTRY_DSN",
            "PRIVATE_KEY",
            "APP_KEY",
        ] {
            assert!(looks_secret(name), "{name}");
        }
        for name in [
            "NODE_ENV",
            "PORT",
            "STRIPE_PUBLISHABLE_KEY",
            "PUBLIC_KEY",
            "LOG_LEVEL",
        ] {
            assert!(!looks_secret(name), "{name}");
        }
        // Public, but also a secret: still sensitive.
        assert!(looks_secret("PUBLIC_SECRET"));
    }

    #[test]
    fn keys_differing_only_in_case_are_one_key() {
        let err = parse_assignments(&lines(&["API_KEY=1", "api_key=2"])).unwrap_err();
        assert!(err.message.contains("other letter case"), "{}", err.message);
        let err = parse_assignments(&lines(&["A=1", "A=2"])).unwrap_err();
        assert!(err.message.contains("given twice"), "{}", err.message);
    }

    /// A change is capped by variables, not by list items: one item of several lines
    /// counts as that many.
    #[test]
    fn at_most_max_variables_per_call() {
        let many: Vec<String> = (0..MAX_VARIABLES).map(|i| format!("K{i}=v")).collect();
        assert_eq!(parse_assignments(&many).unwrap().len(), MAX_VARIABLES);
        let keys: Vec<String> = (0..MAX_VARIABLES).map(|i| format!("K{i}")).collect();
        assert_eq!(parse_keys(&keys).unwrap().len(), MAX_VARIABLES);
        let mut over = many.clone();
        over.push("A=1\nB=2".into());
        let mut over_keys = keys.clone();
        over_keys.push("A\nB".into());
        for err in [
            parse_assignments(&over).unwrap_err(),
            parse_keys(&over_keys).unwrap_err(),
        ] {
            assert_eq!(err.code, ErrorCode::InvalidParameter);
            assert!(err.message.starts_with("102 variables"), "{}", err.message);
            assert!(err.suggestion.contains("Split"), "{}", err.suggestion);
        }
    }

    #[test]
    fn assignments_split_at_the_first_equals_sign() {
        let parsed =
            parse_assignments(&lines(&["A=1", "URL=postgres://u:p@h/db?x=y", "EMPTY="])).unwrap();
        assert_eq!(parsed[1], ("URL".into(), "postgres://u:p@h/db?x=y".into()));
        assert_eq!(parsed[2], ("EMPTY".into(), String::new()));
        let pem = "KEY=-----BEGIN KEY-----\nMIIB\n-----END KEY-----\n";
        assert_eq!(
            parse_assignments(&lines(&[pem])).unwrap()[0].1,
            "-----BEGIN KEY-----\nMIIB\n-----END KEY-----\n",
            "a value may span lines"
        );
        // Lines that are all KEY=value, in one item: that many variables.
        let pasted = parse_assignments(&lines(&["A=1\nB=2\n\nC = x y"])).unwrap();
        assert_eq!(
            pasted,
            [
                ("A".to_owned(), "1".to_owned()),
                ("B".to_owned(), "2".to_owned()),
                ("C".to_owned(), "x y".to_owned())
            ]
        );
        // A continuation line that is not KEY=value keeps the item one variable.
        let one = parse_assignments(&lines(&["A=1\nplain text\nB=2"])).unwrap();
        assert_eq!(one, [("A".to_owned(), "1\nplain text\nB=2".to_owned())]);
        // Only spaces written around `=` are dropped; a value's own leading space stays.
        let spaced = parse_assignments(&lines(&["E = 5", "F= 6"])).unwrap();
        assert_eq!(spaced[0].1, "5");
        assert_eq!(spaced[1].1, " 6");
        // Keys to delete, one per line of an item too.
        assert_eq!(
            parse_keys(&lines(&["A\nB", " C "])).unwrap(),
            ["A", "B", "C"]
        );
        // A value in a delete is refused, not ignored: it was probably meant as a set.
        let err = parse_keys(&lines(&["A", "REDIS_URL=x"])).unwrap_err();
        assert!(
            err.message.contains("#2 carries a value"),
            "{}",
            err.message
        );
        assert!(err.message.contains("'REDIS_URL'"), "{}", err.message);
        assert!(err.suggestion.contains("action set"), "{}", err.suggestion);
        // An invalid key gets the same delete advice, not set's KEY=value format.
        let err = parse_keys(&lines(&["my-key"])).unwrap_err();
        assert!(
            err.suggestion.starts_with("Pass only the names"),
            "{}",
            err.suggestion
        );
        // Blank items name nothing: refused rather than answered as a delete that ran; a
        // key given twice is deleted once.
        for blank in [&[""][..], &["  ", "\n"][..]] {
            let err = parse_keys(&lines(blank)).unwrap_err();
            assert!(
                err.message.contains("every item is blank"),
                "{}",
                err.message
            );
        }
        assert_eq!(parse_keys(&lines(&["A", "A"])).unwrap(), ["A"]);
    }

    #[test]
    fn only_secret_and_user_variables_are_the_users() {
        let var = |t: Option<&str>| EnvVar {
            id: "1".into(),
            key: "K".into(),
            content: String::new(),
            env_type: t.map(str::to_owned),
            sensitive: None,
        };
        for mine in [Some("SECRET"), Some("USER"), None] {
            assert!(!is_platform(&var(mine)), "{mine:?}");
        }
        for theirs in [
            "READ_ONLY",
            "EDITABLE",
            "INTERNAL",
            "ENV",
            "SYSTEM",
            "NEW_KIND",
        ] {
            assert!(is_platform(&var(Some(theirs))), "{theirs}");
        }
    }

    #[test]
    fn malformed_lines_are_rejected_naming_the_line() {
        for (bad, needle) in [
            (vec!["A=1", "NOEQUALS"], "#2"),
            (vec!["1A=x"], "invalid key"),
            (vec!["A-B=x"], "invalid key"),
            (vec!["A=1", "A=2"], "twice"),
            (vec!["ZEROPS_X=1"], "reserved"),
        ] {
            let err = parse_assignments(&lines(&bad)).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidEnvFormat);
            assert!(err.message.contains(needle), "{bad:?}: {}", err.message);
        }
        assert!(parse_assignments(&[]).is_err());
    }

    #[test]
    fn scope_rules() {
        assert_eq!(scope(Some("api"), true).unwrap(), EnvScope::Project);
        assert_eq!(
            scope(Some(" api "), false).unwrap(),
            EnvScope::Service("api".into())
        );
        assert_eq!(
            scope(None, false).unwrap_err().code,
            ErrorCode::ServiceRequired
        );
        assert_eq!(
            scope(Some("  "), false).unwrap_err().code,
            ErrorCode::ServiceRequired
        );
    }
}
