//! `zerops_deploy`: build and deploy a local directory with `zcli push`, then follow the
//! resulting app version until it is active or failed.
//!
//! Preflight before anything runs: the directory, its zerops.yml/zerops.yaml, the setup
//! (a setup named like the service always wins, as in zcli), and an offline validation.
//! zcli gets every id it needs (it would prompt and hang otherwise), zcp's own token in
//! `ZEROPS_TOKEN` (so the user's zcli login is neither needed nor touched) and a private
//! region file, a clean environment and stdin closed. zcli returning is not a finished
//! deploy, so the app version is followed afterwards. Knows nothing of MCP.

use std::path::PathBuf;
use std::time::Duration;

use crate::json;

use serde_json::Value;

use crate::auth::Session;
use crate::platform::{AppVersionEvent, ErrorCode, LogFetchParams, PlatformError, ServiceStack};
use crate::sim::SimHandle;

use super::follow::Follow;
use super::helpers::{available_services, project_app_versions, resolve_service_among};
use super::progress::Next;
use super::validate::{self, FileKind};
use super::zcli::{self, Invocation, ZcliSearch};

/// The default (and largest) time a deploy may take: Zerops gives a build pipeline an
/// hour, and the upload and the deploy come on top.
pub const MAX_DEPLOY: Duration = Duration::from_secs(70 * 60);
/// How much of zcli's output the result shows.
const RESULT_TAIL_BYTES: usize = 4 * 1024;

/// App-version statuses that mean the pipeline is still working.
pub fn build_in_progress(status: &str) -> bool {
    matches!(
        status,
        "UPLOADING"
            | "WAITING_TO_BUILD"
            | "BUILDING"
            | "PREPARING_RUNTIME"
            | "WAITING_TO_DEPLOY"
            | "DEPLOYING"
    )
}

/// Whether the platform marked the version's pipeline failed (a hard failure signal,
/// whatever the status says yet).
fn pipeline_failed(version: &AppVersionEvent) -> bool {
    version
        .build
        .as_ref()
        .is_some_and(|b| b.pipeline_failed.is_some())
}

/// Whether the version's build and deploy have ended, well or not.
fn build_ended(version: &AppVersionEvent) -> bool {
    !build_in_progress(&version.status) || pipeline_failed(version)
}

/// What to deploy.
#[derive(Debug, Clone, Default)]
pub struct DeployRequest {
    pub working_dir: String,
    pub service_hostname: Option<String>,
    pub service_id: Option<String>,
    pub setup: Option<String>,
    pub timeout: Option<Duration>,
}

/// How the code gets to the platform.
pub enum Pusher<'a> {
    /// The real `zcli`, found on this machine where the search says.
    Zcli(ZcliSearch),
    /// The demo simulator's in-process build.
    Simulator(&'a SimHandle),
}

/// What preflight established.
struct Plan {
    dir: PathBuf,
    yaml_file: PathBuf,
    service: ServiceStack,
    setup: String,
    warnings: Vec<String>,
}

fn preflight(session: &Session, request: &DeployRequest) -> Result<Plan, PlatformError> {
    let dir = PathBuf::from(request.working_dir.trim());
    if request.working_dir.trim().is_empty() {
        return Err(
            PlatformError::new(ErrorCode::InvalidParameter, "workingDir is required")
                .with_suggestion(
                    "Pass the absolute path of the directory that holds the code and zerops.yml.",
                ),
        );
    }
    if !dir.is_dir() {
        return Err(PlatformError::new(ErrorCode::FileNotFound, format!("{} is not a directory", dir.display()))
            .with_suggestion("Pass an absolute path to an existing directory (relative paths are resolved against the MCP server's working directory)."));
    }
    let dir = dir.canonicalize().unwrap_or(dir);
    // Anything by that name counts as found: a FIFO or a link to a device is then refused
    // by the reader as not a regular file, not reported as missing.
    let yaml_file = ["zerops.yaml", "zerops.yml"].iter().map(|n| dir.join(n)).find(|p| p.symlink_metadata().is_ok()).ok_or_else(|| {
        PlatformError::new(ErrorCode::ZeropsYmlNotFound, format!("No zerops.yml or zerops.yaml in {}", dir.display()))
            .with_suggestion("Create zerops.yml there with a setup named after the service (zerops_knowledge has one per runtime), validate it with zerops_validate, then deploy.")
    })?;
    let text = super::source_file::read_text(&yaml_file)?;
    let report = validate::validate(&text, Some(FileKind::ZeropsYml), yaml_file.to_str());
    if let Some(first) = report.errors.first() {
        let mut err = PlatformError::new(
            ErrorCode::InvalidZeropsYml,
            format!(
                "{} has {} error(s); first: line {}: {}",
                yaml_file.display(),
                report.errors.len(),
                first.line,
                first.message
            ),
        )
        .with_suggestion(first.suggestion.clone());
        err.api_meta = serde_json::to_value(&report.errors).ok();
        return Err(err);
    }
    let setups = validate::setup_names(&text)
        .map_err(|f| PlatformError::new(ErrorCode::InvalidZeropsYml, f.message))?;
    // The project's services when finding the service listed them (kept for the
    // reference checks below, which would list them again otherwise).
    let mut listed = None;
    let service = match (&request.service_hostname, &request.service_id) {
        (Some(hostname), id) => {
            let (service, services) = resolve_service_among(session, hostname)?;
            listed = Some(services);
            // Both given and naming different services: deploying to either would be a
            // guess, and a wrong one replaces the other service's code.
            if let Some(id) = id.as_deref().map(str::trim).filter(|i| !i.is_empty())
                && id != service.id
            {
                return Err(PlatformError::new(
                    ErrorCode::InvalidUsage,
                    format!(
                        "serviceHostname '{}' is service {}, but serviceId is {id}",
                        service.name, service.id
                    ),
                )
                .with_suggestion("Pass only one of serviceHostname and serviceId."));
            }
            service
        }
        (None, Some(id)) => {
            let id = super::helpers::check_id("serviceId", id)?;
            let not_here = || {
                PlatformError::new(
                    ErrorCode::ServiceNotFound,
                    format!("Service {id} is not in this project"),
                )
                .with_suggestion(format!(
                    "{} Pass serviceHostname instead (see zerops_discover).",
                    available_services(session)
                ))
            };
            match session.client.get_service(id) {
                Ok(service) if service.project_id == session.info.project_id => service,
                Ok(_) => return Err(not_here()),
                Err(err) if err.code == ErrorCode::ServiceNotFound => return Err(not_here()),
                Err(err) => return Err(err),
            }
        }
        (None, None) => {
            return Err(PlatformError::new(
                ErrorCode::ServiceRequired,
                "Say which service to deploy to",
            )
            .with_suggestion("Pass serviceHostname (see zerops_discover) or serviceId."));
        }
    };
    super::helpers::refuse_if_deleting(session, &service, "deploy to")?;
    if let Some(kind) = super::helpers::data_service_kind(&service) {
        return Err(PlatformError::new(
            ErrorCode::InvalidUsage,
            format!(
                "'{}' is {kind} service ({}): only runtime services take code",
                service.name, service.type_info.version_name
            ),
        )
        .with_suggestion({
            let all = match listed.take() {
                Some(services) => services,
                None => super::helpers::project_services(session).unwrap_or_default(),
            };
            let mut runtimes: Vec<String> = all
                .into_iter()
                .filter(|s| s.type_info.category == "USER")
                .map(|s| s.name)
                .collect();
            crate::order::sort(&mut runtimes);
            format!(
                "Deploy to a runtime service of this project: {}.",
                runtimes.join(", ")
            )
        }));
    }
    let mut warnings = Vec::new();
    let setup = if setups.contains(&service.name) {
        if let Some(asked) = request.setup.as_ref().filter(|s| **s != service.name) {
            warnings.push(format!("zcli always uses the setup named like the service ('{}'), so setup '{asked}' is not used.", service.name));
        }
        service.name.clone()
    } else if let Some(asked) = &request.setup {
        if !setups.contains(asked) {
            return Err(PlatformError::new(
                ErrorCode::InvalidZeropsYml,
                format!("{} has no setup '{asked}'", yaml_file.display()),
            )
            .with_suggestion(format!("Setups in the file: {}.", setups.join(", "))));
        }
        asked.clone()
    } else {
        return Err(PlatformError::new(
            ErrorCode::InvalidZeropsYml,
            format!(
                "{} has no setup named '{}'",
                yaml_file.display(),
                service.name
            ),
        )
        .with_suggestion(format!(
            "Pass setup (one of: {}), or name a setup after the service hostname.",
            setups.join(", ")
        )));
    };
    check_setup_argument(&setup)?;
    // Without a `.git` of its own the directory goes up as it is (`--no-git`), installed
    // dependencies and all. A .deployignore is no cure to suggest: it also strips what the
    // build installs from the deployed files. One that names the directory is a choice made.
    let ignored = std::fs::read_to_string(dir.join(".deployignore")).unwrap_or_default();
    if let Some(heavy) = ["node_modules", "vendor", ".venv"]
        .into_iter()
        .find(|d| dir.join(d).is_dir() && !ignored.contains(d))
        .filter(|_| !dir.join(".git").exists())
    {
        warnings.push(format!("{} has no .git of its own, so zcli uploads every file in it, {heavy}/ included (the build installs its own). To upload only the sources, make it a git repository whose .gitignore lists {heavy} and commit (zcp then pushes with git), or remove {heavy} first; a .deployignore would also strip {heavy} from what is deployed.", dir.display()));
    }
    for finding in &report.warnings {
        warnings.push(format!(
            "zerops.yml line {}: {}",
            finding.line, finding.message
        ));
    }
    let variables = run_variables(&text, &setup);
    for warning in super::env::zerops_yml_variable_warnings(session, &service, &variables, listed) {
        warnings.push(format!("zerops.yml run.envVariables: {warning}"));
    }
    Ok(Plan {
        dir,
        yaml_file,
        service,
        setup,
        warnings,
    })
}

/// The `run.envVariables` of `setup` (inherited through `extends`) as written.
fn run_variables(text: &str, setup: &str) -> Vec<(String, String)> {
    let Some(root) = validate::yaml::parse(text).ok().and_then(|d| d.root) else {
        return Vec::new();
    };
    let Some(Some(vars)) = validate::merged_run_value(&root, setup, "envVariables") else {
        return Vec::new();
    };
    vars.as_map()
        .unwrap_or_default()
        .iter()
        .filter_map(|e| Some((e.key.clone(), e.value.scalar_text()?.to_owned())))
        .collect()
}

/// The service's app versions, newest first: enough of the search to contain `stop` (a
/// version we already know), or with no `stop` at least one of the service's versions.
fn service_versions(
    session: &Session,
    service_id: &str,
    stop: Option<&str>,
) -> Result<Vec<AppVersionEvent>, PlatformError> {
    let of_service = |v: &AppVersionEvent| v.service_id == service_id;
    let versions = project_app_versions(session, 20, |ours| match stop {
        Some(id) => ours.iter().any(|v| v.id == id),
        None => ours.iter().any(of_service),
    })?;
    Ok(versions.into_iter().filter(of_service).collect())
}

/// An API host without `https://` and trailing slash, as zcli's login file writes it (zcli
/// puts `https://` before it and its own API path after): normalised as zcp's own client
/// reads `ZEROPS_API_HOST` (scheme in any case, the API path at the end, a `user:pw@`), so
/// zcli talks to the same place. An `http://` base keeps its scheme (the simulator's).
fn bare_host(api_host: &str) -> String {
    let base = crate::platform::http::base_url(api_host);
    match base.strip_prefix("https://") {
        Some(host) => host.to_owned(),
        None => base,
    }
}

/// Whether zcli should read its own login file rather than one zcp writes: when that login
/// names the host zcp talks to. Then an old zcli (which ignores `ZEROPS_TOKEN`) still has
/// a token, and a current one takes zcp's token from the environment anyway.
fn leave_login_to_zcli(login_host: Option<&str>, api_host: &str) -> bool {
    login_host.is_some_and(|h| bare_host(h).eq_ignore_ascii_case(&bare_host(api_host)))
}

/// The region file zcli reads its API host from (no token: that goes in the environment).
fn region_file(api_host: &str) -> Option<tempfile_like::TempFile> {
    let host = bare_host(api_host);
    if host.starts_with("http://") {
        return None;
    }
    let body = json!({
        "Token": "",
        "RegionData": {"name": "zcp", "isDefault": true, "address": host, "guiAddress": null},
        "ScopeProjectId": null,
        "ProjectVpnKeyRegistry": null,
    });
    tempfile_like::TempFile::create("zcp-zcli-region", &body.to_string())
}

mod tempfile_like {
    //! A private temporary file removed on drop (created 0600 on Unix).
    use std::path::PathBuf;

    pub struct TempFile {
        pub path: PathBuf,
    }

    /// A name in the temporary directory no other process or call uses.
    fn unique_path(prefix: &str, suffix: &str) -> PathBuf {
        let name = format!(
            "{prefix}-{}-{}{suffix}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        );
        std::env::temp_dir().join(name)
    }

    impl TempFile {
        pub fn create(prefix: &str, text: &str) -> Option<TempFile> {
            let path = unique_path(prefix, ".data");
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                options.mode(0o600);
            }
            let mut file = options.open(&path).ok()?;
            std::io::Write::write_all(&mut file, text.as_bytes()).ok()?;
            Some(TempFile { path })
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.path);
        }
    }

    /// A private empty directory (0700 on Unix), removed with its contents on drop.
    pub struct TempDir {
        pub path: PathBuf,
    }

    impl TempDir {
        pub fn create(prefix: &str) -> Option<TempDir> {
            let path = unique_path(prefix, "");
            let mut builder = std::fs::DirBuilder::new();
            // (Elsewhere the temporary directory is the user's own.)
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.recursive(false).create(&path).ok()?;
            Some(TempDir { path })
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// The setup name becomes zcli's `--setup` value, and both it and zerops.yml come from the
/// model: a name starting with `-` would be read by zcli as another flag (say
/// `--project-id=...`), so it is refused, as are control characters.
fn check_setup_argument(setup: &str) -> Result<(), PlatformError> {
    if setup.starts_with('-') || setup.chars().any(char::is_control) {
        return Err(PlatformError::new(
            ErrorCode::InvalidZeropsYml,
            format!("The setup name {setup:?} cannot be passed to zcli"),
        )
        .with_suggestion(
            "Name the setup after the service hostname (letters and digits) in zerops.yml.",
        ));
    }
    Ok(())
}

/// What the push step produced.
struct PushOutcome {
    exit_code: Option<i32>,
    timed_out: bool,
    cancelled: bool,
    /// zcli was stopped while this, the push's version, was building (see
    /// [`push_with_zcli`]).
    running: Option<AppVersionEvent>,
    output_tail: String,
}

/// The push's app version once the API lists it: the oldest version newer than every one
/// in `before` (the service's versions before the push, newest first), as the push began
/// right after that list was read; and whether any such new version is still uploading
/// (another push to the same service may have come since).
fn fresh_version(
    session: &Session,
    service_id: &str,
    before: &[String],
) -> Result<(Option<AppVersionEvent>, bool), PlatformError> {
    let newest = before.first();
    let mut found = None;
    let mut uploading = false;
    for v in service_versions(session, service_id, newest.map(String::as_str))?
        .into_iter()
        .take_while(|v| Some(&v.id) != newest)
        .filter(|v| !before.contains(&v.id))
    {
        uploading |= v.status == "UPLOADING";
        found = Some(v);
    }
    Ok((found, uploading))
}

/// Runs `zcli push`. zcli waits for the whole pipeline, often longer than a client waits
/// for an answer (about 60 s in many hosts). So without a progress token, once the follow
/// budget has passed and the push's build runs (no new version still UPLOADING), zcli is
/// stopped: the platform goes on building, and the answer says the build is running.
fn push_with_zcli(
    session: &Session,
    plan: &Plan,
    search: &ZcliSearch,
    timeout: Duration,
    before: &[String],
    follow: &mut Follow<'_>,
) -> Result<PushOutcome, PlatformError> {
    let program = search.find().ok_or_else(|| {
        PlatformError::new(ErrorCode::ZcliNotFound, "zcli is not installed (not on PATH, nor where its installers, npm, nvm or Homebrew put it)")
    })?;
    let mut args = vec![
        "push".to_owned(),
        "--service-id".into(),
        plan.service.id.clone(),
        "--project-id".into(),
        session.info.project_id.clone(),
        "--working-dir".into(),
        plan.dir.display().to_string(),
        "--setup".into(),
        plan.setup.clone(),
    ];
    if !plan.dir.join(".git").exists() {
        // Not a git work tree: upload the directory as it is.
        args.push("--no-git".into());
    }
    let login_host = crate::auth::zcli_login_host(&crate::auth::EnvSource::from_process());
    let region = if leave_login_to_zcli(login_host.as_deref(), &session.info.api_host) {
        None
    } else {
        region_file(&session.info.api_host)
    };
    let region_path = region.as_ref().map(|r| r.path.display().to_string());
    let mut overrides: Vec<(&str, &str)> = vec![
        ("ZEROPS_TOKEN", session.info.token.as_str()),
        ("ZEROPS_CLI_TERMINAL_MODE", "disabled"),
    ];
    if let Some(path) = &region_path {
        overrides.push(("ZEROPS_CLI_DATA_FILE_PATH", path));
    }
    // zcli also reads flags from a `.zcli.yml` in its working directory; the shared temp
    // directory is writable by every user, so zcli runs in an empty one of its own.
    let cwd = tempfile_like::TempDir::create("zcp-zcli").ok_or_else(|| {
        PlatformError::new(
            ErrorCode::Unknown,
            "Cannot create a private temporary directory for zcli",
        )
        .with_suggestion("Check that the temporary directory (TMPDIR) is writable.")
    })?;
    let invocation = Invocation {
        program,
        args,
        env: zcli::child_env(std::env::vars_os(), &overrides),
        cwd: cwd.path.clone(),
        timeout,
    };
    let cancel = follow.cancel.clone();
    let mut progress = follow.progress.take();
    let mut log = follow.log.take();
    let token = session.info.token.clone();
    let mut last = 0.0;
    // The API is asked at the follow's slow pace (5 s): each look holds up this loop's
    // cancel checks.
    let mut next_look = follow.config.untracked_budget;
    let look_every = follow.config.slow_interval;
    let mut running = None;
    let outcome = zcli::run_with_ticks(
        &invocation,
        &cancel,
        follow.config.fast_interval.max(Duration::from_secs(1)),
        &mut |elapsed| {
            if let Some(report) = progress.as_mut() {
                let value = super::progress::eased_percent(elapsed, timeout).max(last + 0.001);
                last = value;
                report(
                    value,
                    100.0,
                    &format!("zcli push running ({}s)", elapsed.as_secs()),
                );
                return false;
            }
            if elapsed < next_look {
                return false;
            }
            next_look = elapsed + look_every;
            // Stop only once no new version uploads: not ours, nor another push's.
            running = match fresh_version(session, &plan.service.id, before) {
                Ok((found, false)) => found,
                _ => None,
            };
            running.is_some()
        },
        &mut |line| {
            if let Some(log) = log.as_mut() {
                // A line never holds half a token: scrubbing line by line is enough.
                log(&crate::platform::http::scrub(line, &token));
            }
        },
    );
    follow.progress = progress;
    follow.log = log;
    let outcome =
        outcome.map_err(|e| PlatformError::new(ErrorCode::ZcliNotFound, e.to_string()))?;
    let output_tail = crate::platform::http::scrub(&outcome.output_tail, &session.info.token);
    Ok(PushOutcome {
        exit_code: outcome.exit_code,
        timed_out: outcome.timed_out,
        cancelled: outcome.cancelled,
        running: running.filter(|_| outcome.stopped),
        output_tail,
    })
}

fn push_with_simulator(sim: &SimHandle, plan: &Plan) -> PushOutcome {
    let failure = plan
        .dir
        .join(".zcp-demo-fail-build")
        .exists()
        .then(|| "buildCommands failed: exit status 1".to_owned());
    // zcli reads zerops.yml when it pushes and sends it with the setup; so does the demo.
    let zerops_yaml = super::source_file::read_text(&plan.yaml_file).ok();
    match sim.push(
        &plan.service.id,
        zerops_yaml.as_deref(),
        Some(&plan.setup),
        failure,
    ) {
        Ok(id) => PushOutcome {
            exit_code: Some(0),
            timed_out: false,
            cancelled: false,
            running: None,
            output_tail: format!(
                "demo: packaged {} for setup {}\ndemo: app version {id} created, build started\n",
                plan.dir.display(),
                plan.setup
            ),
        },
        Err(message) => PushOutcome {
            exit_code: Some(1),
            timed_out: false,
            cancelled: false,
            running: None,
            output_tail: message,
        },
    }
}

/// A known failure in zcli's output, explained.
fn explain(output: &str) -> Option<&'static str> {
    let rules: [(&str, &'static str); 8] = [
        (
            "unauthenticated user",
            "zcli has no login: zcp passes its own token as ZEROPS_TOKEN, which needs zcli 1.0.51 or newer; update zcli (`npm i -g @zerops/zcli`) or run `zcli login <token>`.",
        ),
        (
            "Cannot find corresponding setup",
            "The setup was not found in zerops.yml; name a setup after the service hostname or pass setup.",
        ),
        (
            "File zerops.yml not found",
            "zerops.yml (or zerops.yaml) must be in workingDir.",
        ),
        (
            "not initialized via git",
            "workingDir has no git repository; zcp passes --no-git only when there is no .git directory.",
        ),
        (
            "at least one git commit",
            "The git repository has no commit: commit once (git add -A && git commit -m init) or remove the empty .git directory.",
        ),
        (
            "git is not installed",
            "Install git, or deploy a directory without a .git folder.",
        ),
        (
            "Package upload failed",
            "The upload failed; check the network and retry.",
        ),
        (
            "Invalid service ID",
            "The service id was refused; check it with zerops_discover.",
        ),
    ];
    rules
        .iter()
        .find(|(needle, _)| output.contains(needle))
        .map(|(_, hint)| *hint)
}

fn tail(text: &str) -> String {
    if text.len() <= RESULT_TAIL_BYTES {
        return text.to_owned();
    }
    let mut cut = text.len() - RESULT_TAIL_BYTES;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    format!("[... earlier output cut]\n{}", &text[cut..])
}

fn build_log(session: &Session, version: &AppVersionEvent) -> Vec<String> {
    let Some(build_service) = version.build.as_ref().and_then(|b| b.service_id.clone()) else {
        return Vec::new();
    };
    let Ok(access) = session.client.get_project_log(&session.info.project_id) else {
        return Vec::new();
    };
    let params = LogFetchParams {
        service_id: Some(build_service),
        limit: 40,
        tags: Some(format!("zbuilder@{}", version.id)),
        ..LogFetchParams::default()
    };
    let mut lines: Vec<String> = session
        .logs
        .fetch_logs(&access, &params)
        .map(|entries| entries.into_iter().map(|e| e.message).collect())
        .unwrap_or_default();
    lines.reverse();
    lines
}

/// Runs the deploy.
pub fn deploy(
    session: &Session,
    request: &DeployRequest,
    pusher: &Pusher<'_>,
    follow: &mut Follow<'_>,
) -> Result<Value, PlatformError> {
    let timeout = request.timeout.unwrap_or(MAX_DEPLOY).min(MAX_DEPLOY);
    let plan = preflight(session, request)?;
    let before: Vec<String> = service_versions(session, &plan.service.id, None)?
        .into_iter()
        .map(|v| v.id)
        .collect();
    let started = std::time::Instant::now();
    let mut pushed = match pusher {
        Pusher::Zcli(search) => push_with_zcli(session, &plan, search, timeout, &before, follow)?,
        Pusher::Simulator(sim) => push_with_simulator(sim, &plan),
    };
    let mut version = pushed.running.take();
    let stopped = version.is_some();
    let base = |status: &str| {
        json!({
            "status": status,
            "serviceHostname": plan.service.name,
            "serviceId": plan.service.id,
            "setup": plan.setup,
            "zeropsYml": plan.yaml_file.display().to_string(),
            // The demo runs no zcli (its push is accepted at once, where zcli would wait
            // for the build and exit with its outcome): no exit code to report.
            "exitCode": if matches!(pusher, Pusher::Simulator(_)) { None } else { pushed.exit_code },
            "outputTail": tail(&pushed.output_tail),
            "warnings": plan.warnings,
        })
    };
    if pushed.cancelled {
        return Err(failure(
            base("CANCELED"),
            "The deploy was cancelled; zcli was stopped",
            "Nothing was changed if the upload had not finished; check zerops_events.",
        ));
    }
    if pushed.timed_out {
        return Err(failure(
            base("TIMED_OUT"),
            &format!(
                "zcli did not finish within {} s and was stopped",
                timeout.as_secs()
            ),
            "Check zerops_events for the build; if you set timeoutSeconds below 4200, raise it.",
        ));
    }
    let ending = if let Some(seen) = &version {
        // A push stopped at the budget is answered with the build the tick has just seen
        // (another look could only repeat it, or fail on a passing API error): still
        // running, or, if it ended before zcli noticed, as it ended.
        (!build_ended(seen)).then_some("STILL_RUNNING")
    } else {
        // zcli returning is not a finished deploy: find and follow the new app version. A
        // pause first keeps the last progress report a full interval before the answer.
        let remaining = timeout.saturating_sub(started.elapsed());
        let mut config = follow.config;
        config.max_wait = remaining.max(config.fast_interval);
        config.untracked_budget = config.untracked_budget.min(remaining);
        let mut paced = Follow::new(config, follow.cancel, follow.progress.take());
        if paced
            .cancel
            .wait_timeout(config.fast_interval.min(Duration::from_secs(2)))
        {
            return Err(failure(
                base("CANCELED"),
                "Cancelled while waiting for the build",
                "Check zerops_events.",
            ));
        }
        let mut poller = paced.poller();
        let mut polls_without_version = 0;
        let ending = loop {
            if let (Some(v), _) = fresh_version(session, &plan.service.id, &before)? {
                let done = build_ended(&v);
                version = Some(v);
                if done {
                    break None;
                }
            } else {
                polls_without_version += 1;
                if pushed.exit_code != Some(0) && polls_without_version >= 2 {
                    break None;
                }
            }
            let status = version
                .as_ref()
                .map_or("waiting for the app version".to_owned(), |v| {
                    format!("build {}", v.status)
                });
            match poller.wait_next(&status) {
                Next::Poll => continue,
                Next::OutOfTime => break Some("STILL_RUNNING"),
                Next::Cancelled => break Some("CANCELED"),
            }
        };
        follow.progress = paced.progress.take();
        ending
    };
    let Some(version) = version else {
        if ending == Some("CANCELED") {
            return Err(failure(
                base("CANCELED"),
                "Cancelled while waiting for the build",
                "zcli had finished; check zerops_events for the build.",
            ));
        }
        if pushed.exit_code == Some(0) {
            // zcli succeeded, yet no new app version showed up while we looked.
            return Err(failure(
                base("BUILD_NOT_FOUND"),
                &format!(
                    "zcli push finished (exit code 0) but no new app version of '{}' appeared",
                    plan.service.name
                ),
                &format!(
                    "The build may still be registering: check zerops_events (serviceHostname {}) in a minute, and deploy again if none shows up.",
                    plan.service.name
                ),
            ));
        }
        let hint = explain(&pushed.output_tail)
            .unwrap_or("zcli failed before a build started; read outputTail.");
        return Err(failure(
            base("PUSH_FAILED"),
            &format!(
                "zcli push failed (exit code {}) and no build started",
                pushed.exit_code.map_or("none".into(), |c| c.to_string())
            ),
            hint,
        ));
    };
    let mut result = base(&version.status);
    result["appVersionId"] = json!(version.id);
    if let Some(state) = ending {
        result["status"] = json!(if state == "CANCELED" {
            "CANCELED"
        } else {
            "BUILDING"
        });
        result["stillRunning"] = json!(true);
        result["hint"] = json!(format!(
            "{}The build continues: follow it with zerops_events (serviceHostname {}), read its log with zerops_logs buildId {}, or stop it by canceling its build process (zerops_events names it) with zerops_process.",
            if stopped {
                "Without a progress token zcli was stopped once the build had started, to answer in time. "
            } else {
                ""
            },
            plan.service.name,
            version.id
        ));
        return Ok(result);
    }
    if matches!(version.status.as_str(), "ACTIVE" | "BACKUP") && !pipeline_failed(&version) {
        result["status"] = json!("DEPLOYED");
        result["appVersionStatus"] = json!(version.status);
        // Subdomain state as read before the push: a later deploy does not change it, but
        // a first one switches on what the import asked for (enableSubdomainAccess), so
        // that one reads the service again. The URL is built as discover builds it.
        let mut service = plan.service.clone();
        if service.status == "READY_TO_DEPLOY"
            && let Ok(fresh) = session.client.get_service(&service.id)
        {
            service = fresh;
        }
        let mut next = "if it needs a public URL, call zerops_subdomain enable.";
        if service.subdomain_access
            && let Some(url) = super::subdomain::url_of(session, &service)
        {
            result["url"] = Value::String(url);
            next = "it is public at the address in url.";
        }
        result["nextAction"] = json!(format!(
            "Check zerops_logs for {}; {next}",
            plan.service.name
        ));
        return Ok(result);
    }
    result["buildLog"] = json!(build_log(session, &version));
    let (what, hint) = failure_explained(&version);
    Err(failure(
        result,
        &format!("{what} ({})", version.status),
        hint,
    ))
}

const BUILD_FAILED_HINT: &str = "Read buildLog: a build command failed (missing dependency, wrong base, wrong script). Fix zerops.yml or the code and deploy again.";

/// What went wrong with a version that did not become active, and what to do about it. A
/// pipeline the platform marked failed counts as a failed build even while the status
/// still names a stage (the two are not updated together).
fn failure_explained(version: &AppVersionEvent) -> (&'static str, &'static str) {
    // A status that lags names the stage that failed, or one before it: a failure seen
    // while it reads DEPLOYING is no build failure.
    let status = match version.status.as_str() {
        "UPLOADING" | "WAITING_TO_BUILD" | "BUILDING" if pipeline_failed(version) => {
            return ("The build pipeline failed", BUILD_FAILED_HINT);
        }
        "PREPARING_RUNTIME" if pipeline_failed(version) => "PREPARING_RUNTIME_FAILED",
        "WAITING_TO_DEPLOY" | "DEPLOYING" if pipeline_failed(version) => "DEPLOY_FAILED",
        other => other,
    };
    match status {
        "BUILD_FAILED" | "BUILD_VALIDATION_FAILED" => ("The build failed", BUILD_FAILED_HINT),
        "PREPARING_RUNTIME_FAILED" => (
            "Preparing the runtime failed",
            "run.prepareCommands failed (missing sudo, wrong package name, or reading /var/www too early).",
        ),
        "DEPLOY_FAILED" => (
            "The new version did not start",
            "Check start, the port and 0.0.0.0 binding, deployFiles, and the readiness check; read zerops_logs.",
        ),
        "CANCELLED" | "CANCELED" => (
            "The deploy was canceled",
            "Its build was canceled (zerops_process, the GUI or another client); a version that was active before stays active. Deploy again if it is still wanted.",
        ),
        _ => (
            "The deploy did not finish",
            "Read buildLog and zerops_events.",
        ),
    }
}

fn failure(details: Value, message: &str, suggestion: &str) -> PlatformError {
    let mut err = PlatformError::new(ErrorCode::DeployFailed, message).with_suggestion(suggestion);
    err.api_meta = Some(details);
    err
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::BuildInfo;

    #[test]
    fn zcli_keeps_its_own_login_only_when_it_names_our_host() {
        let ours = "api.app-prg1.zerops.io";
        assert!(leave_login_to_zcli(Some(ours), ours));
        assert!(leave_login_to_zcli(
            Some("API.app-prg1.zerops.io/"),
            "https://api.app-prg1.zerops.io"
        ));
        assert!(!leave_login_to_zcli(Some("api.other.example"), ours));
        assert!(!leave_login_to_zcli(None, ours));
    }

    /// zcli gets the host as zcp's own client reads ZEROPS_API_HOST: with the API's path
    /// at the end, zcli (which adds that path itself) would call it twice.
    #[test]
    fn zcli_gets_the_host_zcp_itself_talks_to() {
        for given in [
            "api.app-prg1.zerops.io",
            "HTTPS://api.app-prg1.zerops.io/",
            "https://api.app-prg1.zerops.io/api/rest/public",
            "https://me:pw@api.app-prg1.zerops.io",
        ] {
            assert_eq!(bare_host(given), "api.app-prg1.zerops.io", "{given}");
        }
        assert_eq!(bare_host("http://127.0.0.1:8080/"), "http://127.0.0.1:8080");
    }

    #[test]
    fn the_private_directory_is_empty_owner_only_and_removed() {
        let dir = tempfile_like::TempDir::create("zcp-test").unwrap();
        let path = dir.path.clone();
        assert!(path.starts_with(std::env::temp_dir()));
        assert_eq!(std::fs::read_dir(&path).unwrap().count(), 0);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        std::fs::write(path.join("left-by-zcli"), "x").unwrap();
        drop(dir);
        assert!(!path.exists());
    }

    #[test]
    fn setup_names_that_look_like_flags_are_refused() {
        assert!(check_setup_argument("api").is_ok());
        assert!(check_setup_argument("api-v2").is_ok());
        for bad in ["--project-id=other", "-h", "api\n--help", "a\u{0}"] {
            let err = check_setup_argument(bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidZeropsYml, "{bad:?}");
        }
    }

    #[test]
    fn known_failures_are_explained() {
        assert!(
            explain("time=... msg=\"unauthenticated user, login before proceeding\"")
                .unwrap()
                .contains("zcli login")
        );
        assert!(explain("at least one git commit must exist").is_some());
        assert!(explain("all good").is_none());
    }

    #[test]
    fn tails_are_cut_on_char_boundaries() {
        let long = "é".repeat(5000);
        let cut = tail(&long);
        assert!(cut.starts_with("[... earlier output cut]"));
        assert!(cut.len() <= RESULT_TAIL_BYTES + 40);
    }

    /// `pipelineFailed` ends a build whatever stage its status still names, and such a
    /// version is explained as a failed build, not as a deploy that did not finish.
    #[test]
    fn a_failed_pipeline_ends_the_build_whatever_the_status_says() {
        let version = |status: &str, failed: Option<&str>| AppVersionEvent {
            id: "av1".into(),
            status: status.into(),
            build: Some(BuildInfo {
                pipeline_failed: failed.map(str::to_owned),
                ..BuildInfo::default()
            }),
            ..AppVersionEvent::default()
        };
        let stamp = Some("2026-11-26T10:00:00Z");
        assert!(!build_ended(&version("BUILDING", None)));
        let lagging = version("BUILDING", stamp);
        assert!(build_ended(&lagging));
        // A status that lags is read by its stage; without the mark, a version still
        // deploying only did not finish.
        for (status, failed, explained) in [
            ("BUILDING", stamp, "The build pipeline failed"),
            ("PREPARING_RUNTIME", stamp, "Preparing the runtime failed"),
            ("DEPLOYING", stamp, "The new version did not start"),
            ("DEPLOYING", None, "The deploy did not finish"),
            ("BUILD_FAILED", stamp, "The build failed"),
            ("DEPLOY_FAILED", None, "The new version did not start"),
        ] {
            assert_eq!(
                failure_explained(&version(status, failed)).0,
                explained,
                "{status} {failed:?}"
            );
        }
        // A version without build data (startWithoutCode) has no pipeline to fail.
        let placeholder = AppVersionEvent {
            status: "BUILDING".into(),
            ..AppVersionEvent::default()
        };
        assert!(!build_ended(&placeholder));
    }

    #[test]
    fn build_statuses() {
        assert!(build_in_progress("BUILDING") && build_in_progress("DEPLOYING"));
        assert!(
            !build_in_progress("ACTIVE")
                && !build_in_progress("BUILD_FAILED")
                && !build_in_progress("SOMETHING_NEW")
        );
    }
}
