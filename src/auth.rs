//! Credentials and project discovery.
//!
//! The token comes from `ZEROPS_TOKEN` (alias `ZCP_API_KEY`), else from zcli's login file
//! `cli.data`, found the way zcli finds it. Then: user info → client id → the scoped
//! project (from `cli.data`) or the one project the token can see.
//!
//! Unlike the PRD, a missing or bad token is not fatal: zcp must still serve the
//! knowledge base and offline validation, and a client shows a dead server only as a bare
//! failure. Authentication therefore runs lazily, on the first tool that needs the API;
//! definitive failures (no token, bad token, no single project) are remembered, transient
//! ones (network, timeouts, 5xx) are retried on the next call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::platform::http::DEFAULT_API_HOST;
use crate::platform::{Client, ErrorCode, LogFetcher, PlatformError, Project};

/// Which operating system's file locations apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    MacOs,
    Windows,
}

impl Os {
    pub fn current() -> Os {
        if cfg!(target_os = "macos") {
            Os::MacOs
        } else if cfg!(windows) {
            Os::Windows
        } else {
            Os::Linux
        }
    }

    /// This process's home directory, from the variable this OS keeps it in (`HOME`,
    /// `USERPROFILE` on Windows); unset or empty is none.
    pub fn home_dir(self) -> Option<PathBuf> {
        let name = if self == Os::Windows {
            "USERPROFILE"
        } else {
            "HOME"
        };
        std::env::var_os(name)
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
    }
}

/// The parts of the process environment authentication reads, injectable for tests.
#[derive(Debug, Clone)]
pub struct EnvSource {
    pub vars: HashMap<String, String>,
    pub home: Option<PathBuf>,
    pub temp_dir: PathBuf,
    pub os: Os,
}

impl EnvSource {
    /// The real environment of this process.
    pub fn from_process() -> EnvSource {
        EnvSource {
            // Lossy, not `env::vars` (which panics on a variable that is not UTF-8): only
            // a few named variables are read, and a mangled token fails as a bad token.
            vars: std::env::vars_os()
                .map(|(k, v)| {
                    (
                        k.to_string_lossy().into_owned(),
                        v.to_string_lossy().into_owned(),
                    )
                })
                .collect(),
            home: Os::current().home_dir(),
            temp_dir: std::env::temp_dir(),
            os: Os::current(),
        }
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }
}

/// Where the token came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialSource {
    /// An environment variable (its name).
    Env(String),
    /// zcli's login file.
    CliData(PathBuf),
    /// Supplied directly (the demo).
    Direct,
}

/// A token and where to use it. `Debug` masks the token.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub token: String,
    pub api_host: String,
    pub scope_project_id: Option<String>,
    pub source: CredentialSource,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("token", &"***")
            .field("api_host", &self.api_host)
            .field("scope_project_id", &self.scope_project_id)
            .field("source", &self.source)
            .finish()
    }
}

/// The zcli login file candidates, in zcli's order.
pub fn cli_data_candidates(env: &EnvSource) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(path) = env.var("ZEROPS_CLI_DATA_FILE_PATH") {
        out.push(PathBuf::from(path));
    }
    let home = env.home.clone();
    match env.os {
        Os::Linux => {
            // Go's os.UserConfigDir: $XDG_CONFIG_HOME when set; a relative value is an
            // error there, so zcli skips the row instead of falling back to ~/.config.
            match env.var("XDG_CONFIG_HOME").map(PathBuf::from) {
                Some(xdg) if xdg.is_absolute() => out.push(xdg.join("zerops").join("cli.data")),
                Some(_) => {}
                None => {
                    if let Some(home) = &home {
                        out.push(home.join(".config").join("zerops").join("cli.data"));
                    }
                }
            }
            if let Some(home) = &home {
                out.push(home.join("zerops").join("cli.data"));
                out.push(home.join("zerops.cli.data"));
            }
        }
        Os::MacOs => {
            if let Some(home) = &home {
                out.push(
                    home.join("Library")
                        .join("Application Support")
                        .join("zerops")
                        .join("cli.data"),
                );
                out.push(home.join("zerops").join("cli.data"));
                out.push(home.join("zerops.cli.data"));
            }
        }
        Os::Windows => {
            if let Some(appdata) = env.var("APPDATA") {
                out.push(Path::new(appdata).join("Zerops").join("cli.data"));
            }
            if let Some(home) = env.var("USERPROFILE").map(PathBuf::from).or(home) {
                out.push(home.join("Zerops").join("cli.data"));
                out.push(home.join("zerops.cli.data"));
            }
        }
    }
    out.push(env.temp_dir.join("zerops.cli.data"));
    out
}

/// Looks up a member of a JSON object ignoring case (zcli writes Go's field names).
fn member<'a>(value: &'a Value, name: &str) -> Option<&'a Value> {
    value
        .as_object()?
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
}

fn auth_required(message: String) -> PlatformError {
    PlatformError::new(ErrorCode::AuthRequired, message)
}

/// Reads a token from the environment or zcli's login file.
pub fn resolve_credentials(env: &EnvSource) -> Result<Credentials, PlatformError> {
    let env_host = env
        .var("ZEROPS_API_HOST")
        .or_else(|| env.var("ZCP_API_HOST"))
        .map(str::to_owned);
    for name in ["ZEROPS_TOKEN", "ZCP_API_KEY"] {
        if let Some(token) = env.var(name) {
            return Ok(Credentials {
                token: token.to_owned(),
                api_host: env_host.unwrap_or_else(|| DEFAULT_API_HOST.to_owned()),
                scope_project_id: None,
                source: CredentialSource::Env(name.to_owned()),
            });
        }
    }
    let candidates = cli_data_candidates(env);
    let Some(path) = candidates.iter().find(|p| p.is_file()) else {
        return Err(auth_required(
            "No Zerops token: ZEROPS_TOKEN is not set and zcli is not logged in on this machine"
                .into(),
        ));
    };
    let text = std::fs::read_to_string(path).map_err(|err| {
        auth_required(format!(
            "Cannot read zcli's login file {}: {err}",
            path.display()
        ))
    })?;
    if text.trim().is_empty() {
        return Err(auth_required(format!(
            "zcli is logged out ({} is empty)",
            path.display()
        )));
    }
    let data: Value = serde_json::from_str(&text).map_err(|err| {
        auth_required(format!(
            "zcli's login file {} is not valid JSON: {err}",
            path.display()
        ))
    })?;
    let token = member(&data, "Token")
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or("");
    if token.is_empty() {
        return Err(auth_required(format!(
            "zcli is logged out (no token in {})",
            path.display()
        )));
    }
    let file_host = member(&data, "RegionData")
        .and_then(|r| member(r, "address"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(str::to_owned);
    let scope = member(&data, "ScopeProjectId")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
    Ok(Credentials {
        token: token.to_owned(),
        api_host: env_host
            .or(file_host)
            .unwrap_or_else(|| DEFAULT_API_HOST.to_owned()),
        scope_project_id: scope,
        source: CredentialSource::CliData(path.clone()),
    })
}

/// The API host of zcli's own login on this machine (`RegionData.address` of the first
/// login file zcli would read, its default host when the file names none), or `None` when
/// zcli is not logged in. A deploy leaves such a login to zcli when it names zcp's host:
/// zcli before 1.0.51 ignores `ZEROPS_TOKEN` and needs the token in that file.
pub fn zcli_login_host(env: &EnvSource) -> Option<String> {
    let path = cli_data_candidates(env).into_iter().find(|p| p.is_file())?;
    let data: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let token = member(&data, "Token").and_then(Value::as_str)?;
    if token.trim().is_empty() {
        return None;
    }
    let host = member(&data, "RegionData")
        .and_then(|r| member(r, "address"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .unwrap_or(DEFAULT_API_HOST);
    Some(host.to_owned())
}

/// Who we are and which project we work on. `Debug` masks the token.
#[derive(Clone)]
pub struct Info {
    pub token: String,
    pub api_host: String,
    pub client_id: String,
    pub project_id: String,
    pub project_name: String,
    pub source: CredentialSource,
}

impl std::fmt::Debug for Info {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Info")
            .field("token", &"***")
            .field("api_host", &self.api_host)
            .field("client_id", &self.client_id)
            .field("project_id", &self.project_id)
            .field("project_name", &self.project_name)
            .field("source", &self.source)
            .finish()
    }
}

/// A project with the organisation it belongs to: its own `clientId`, else `found_in`
/// (the organisation whose listing showed it, or the user's first).
fn with_own_client(project: Project, found_in: &str) -> (Project, String) {
    let org = (project.client_id.clone())
        .filter(|id| !id.is_empty())
        .unwrap_or_else(|| found_in.to_owned());
    (project, org)
}

/// Checks the token and finds the one project it works on.
pub fn authenticate(client: &dyn Client, creds: &Credentials) -> Result<Info, PlatformError> {
    let user = client.get_user_info().map_err(|err| match err.code {
        ErrorCode::AuthInvalidToken | ErrorCode::AuthTokenExpired => PlatformError {
            suggestion: renew_token_advice(&creds.source),
            ..err
        },
        ErrorCode::PermissionDenied => err,
        // The API never answered: the network's own codes say more than AUTH_API_ERROR.
        ErrorCode::NetworkError | ErrorCode::ApiTimeout => err,
        // Any other answer (5xx, 429, an unexpected 4xx): the API's code and HTTP status
        // stay attached.
        _ => PlatformError {
            code: ErrorCode::AuthApiError,
            suggestion: ErrorCode::AuthApiError.default_suggestion().to_owned(),
            ..err
        },
    })?;
    if user.client_id.is_empty() {
        return Err(PlatformError::new(
            ErrorCode::TokenNoProject,
            "The token's account belongs to no organisation, so it can see no project",
        ));
    }
    let (project, client_id) = match &creds.scope_project_id {
        Some(scoped) => client.get_project(scoped).map(|p| with_own_client(p, &user.client_id)).map_err(|err| {
            if err.is_transient() {
                err
            } else {
                PlatformError::new(
                    ErrorCode::TokenNoProject,
                    format!("The scoped project {scoped} (from zcli's login) is not found or not accessible: {}", err.message),
                )
                .with_suggestion("Run `zcli scope project` to pick a project the token can access, or `zcli scope reset`.")
            }
        })?,
        None => {
            // The first organisation the user is in that shows the token a project (the
            // project need not be in the first one). A later organisation that refuses the
            // listing is passed over; the first one's failure stands.
            let (mut projects, mut found_in) = (Vec::new(), &user.client_id);
            for (i, org) in std::iter::once(&user.client_id)
                .chain(&user.more_client_ids)
                .enumerate()
            {
                match client.list_projects(org) {
                    Ok(listed) if !listed.is_empty() => {
                        (projects, found_in) = (listed, org);
                        break;
                    }
                    Ok(_) => {}
                    Err(err) if i == 0 || err.is_transient() => return Err(err),
                    Err(_) => {}
                }
            }
            match projects.len() {
                0 => {
                    return Err(PlatformError::new(ErrorCode::TokenNoProject, "The token has access to no project"));
                }
                1 => with_own_client(projects.into_iter().next().unwrap_or_default(), found_in),
                n => {
                    let names: Vec<String> = projects.iter().take(10).map(|p| format!("{} ({})", p.name, p.id)).collect();
                    return Err(PlatformError::new(
                        ErrorCode::TokenMultiProject,
                        format!("The token can access {n} projects ({}); zcp works with exactly one", names.join(", ")),
                    ));
                }
            }
        }
    };
    // Searches by organisation (services, processes, builds) must ask the project's own.
    client.use_client_id(&client_id);
    Ok(Info {
        token: creds.token.clone(),
        api_host: creds.api_host.clone(),
        client_id,
        project_id: project.id,
        project_name: project.name,
        source: creds.source.clone(),
    })
}

/// A working connection to one project.
pub struct Session {
    pub client: Arc<dyn Client>,
    pub logs: Arc<dyn LogFetcher>,
    pub info: Info,
    /// Processes this server started that change what a service reads as, as (service
    /// id, action, process id): a delete or a subdomain change can wait behind another
    /// process while the service still reads as before.
    pub sent: Arc<Mutex<SentProcesses>>,
    /// One lock per service id for this server's check-then-send sequences (see
    /// [`crate::ops::helpers::service_lock`]).
    pub changing: Arc<Mutex<ServiceLocks>>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

/// Builds the API client and log fetcher for some credentials.
pub type ClientFactory =
    Box<dyn Fn(&Credentials) -> (Arc<dyn Client>, Arc<dyn LogFetcher>) + Send + Sync>;

enum AuthState {
    Fresh,
    /// Working, with the credentials it was made from: when those change (a new `zcli
    /// login` while zcp runs), the next call authenticates again.
    Ready(Arc<Session>, Credentials),
    /// A definitive failure, with the credentials it was for (none when there were none):
    /// it stands until the credentials change (a new `zcli login`, say).
    Failed(PlatformError, Option<Credentials>),
}

/// What the lock guards: the state, and the last attempt's passing failure (timeout, 503)
/// with its credentials and the attempt's number. The callers that were waiting for that
/// attempt get its answer instead of each trying again in turn (with an API that does not
/// answer, that would be one full timeout per waiting call); a later call tries again. Kept
/// beside the state, as a working session made from other credentials stays.
struct Guarded {
    state: AuthState,
    passing: Option<(PlatformError, Option<Credentials>, u64)>,
    /// The project of the first session, as (id, name): every later login must work on
    /// it, even after a failed one in between.
    project: Option<(String, String)>,
    /// A login that works but for another project, refused as long as it stays the same
    /// (no new attempt per call).
    elsewhere: Option<(Credentials, PlatformError)>,
}

/// Authenticates on first use, at most one attempt at a time.
pub struct Authenticator {
    env: EnvSource,
    direct: Option<Credentials>,
    factory: ClientFactory,
    state: Mutex<Guarded>,
    /// Attempts finished (counted under the `state` lock).
    attempts: AtomicU64,
    /// What every session shares, so a new login for the same project keeps them.
    sent: Arc<Mutex<SentProcesses>>,
    changing: Arc<Mutex<ServiceLocks>>,
}

/// (service id, action, process id) of processes this server started.
type SentProcesses = Vec<(String, &'static str, String)>;
/// One lock per service id.
type ServiceLocks = HashMap<String, Arc<Mutex<()>>>;

impl Authenticator {
    /// Credentials will be resolved from `env` on first use.
    pub fn new(env: EnvSource, factory: ClientFactory) -> Authenticator {
        Authenticator {
            env,
            direct: None,
            factory,
            state: Mutex::new(Guarded {
                state: AuthState::Fresh,
                passing: None,
                project: None,
                elsewhere: None,
            }),
            attempts: AtomicU64::new(0),
            sent: Default::default(),
            changing: Default::default(),
        }
    }

    /// Fixed credentials (the demo).
    pub fn with_credentials(creds: Credentials, factory: ClientFactory) -> Authenticator {
        Authenticator {
            env: EnvSource {
                vars: HashMap::new(),
                home: None,
                temp_dir: std::env::temp_dir(),
                os: Os::current(),
            },
            direct: Some(creds),
            factory,
            state: Mutex::new(Guarded {
                state: AuthState::Fresh,
                passing: None,
                project: None,
                elsewhere: None,
            }),
            attempts: AtomicU64::new(0),
            sent: Default::default(),
            changing: Default::default(),
        }
    }

    /// The session, authenticating now if needed.
    pub fn session(&self) -> Result<Arc<Session>, PlatformError> {
        let arrived_after = self.attempts.load(Ordering::Acquire);
        let mut locked = self.state.lock().unwrap_or_else(|p| p.into_inner());
        // One borrow of the guard: the fields below are borrowed apart.
        let guarded = &mut *locked;
        let creds = self.credentials();
        // An attempt that ended while this call waited for it, with these credentials.
        if let Some((err, tried, n)) = &guarded.passing
            && *n > arrived_after
            && tried.as_ref() == creds.as_ref().ok()
        {
            return Err(err.clone());
        }
        if let (Some((tried, err)), Ok(now)) = (&guarded.elsewhere, &creds)
            && tried == now
        {
            return Err(err.clone());
        }
        let state = &mut guarded.state;
        match (&*state, &creds) {
            (AuthState::Ready(session, used), Ok(now)) if used == now => {
                return Ok(session.clone());
            }
            // The login was removed: the session made from it still works.
            (AuthState::Ready(session, _), Err(_)) => return Ok(session.clone()),
            // The same credentials (or still none) fail the same way: no new attempt.
            (AuthState::Failed(err, Some(tried)), Ok(now)) if tried == now => {
                return Err(err.clone());
            }
            (AuthState::Failed(err, None), Err(_)) => return Err(err.clone()),
            _ => {}
        }
        let (result, tried) = match creds {
            Ok(creds) => (self.attempt(&creds), Some(creds)),
            Err(err) => (Err(err), None),
        };
        let number = self.attempts.fetch_add(1, Ordering::AcqRel) + 1;
        match result {
            Ok(session) => {
                // A new login for another project: the agent's picture (hostnames, what it
                // has changed so far) is of this one, so it does not switch under it.
                if let Some(first) = &guarded.project
                    && first.0 != session.info.project_id
                {
                    let err = project_changed(first, &session.info);
                    crate::warn!("auth", "{}", err.message);
                    guarded.elsewhere = tried.map(|tried| (tried, err.clone()));
                    return Err(err);
                }
                let info = &session.info;
                guarded.project = Some((info.project_id.clone(), info.project_name.clone()));
                crate::info!(
                    "auth",
                    "working on project {} ({}) via {}",
                    session.info.project_name,
                    session.info.project_id,
                    describe_source(&session.info.source)
                );
                if let Some(tried) = tried {
                    *state = AuthState::Ready(session.clone(), tried);
                }
                guarded.passing = None;
                Ok(session)
            }
            Err(err) => {
                if err.is_transient() {
                    crate::warn!(
                        "auth",
                        "authentication failed for now ({}); will retry on the next call",
                        err.code
                    );
                    guarded.passing = Some((err.clone(), tried, number));
                } else {
                    crate::warn!(
                        "auth",
                        "authentication failed: {} {}",
                        err.code,
                        err.message
                    );
                    *state = AuthState::Failed(err.clone(), tried);
                    guarded.passing = None;
                }
                Err(err)
            }
        }
    }

    /// The credentials as they are now (the environment was read at startup; zcli's
    /// login file is read again each time).
    fn credentials(&self) -> Result<Credentials, PlatformError> {
        match &self.direct {
            Some(creds) => Ok(creds.clone()),
            None => resolve_credentials(&self.env),
        }
    }

    fn attempt(&self, creds: &Credentials) -> Result<Arc<Session>, PlatformError> {
        let (client, logs) = (self.factory)(creds);
        let info = authenticate(client.as_ref(), creds)?;
        Ok(Arc::new(Session {
            client,
            logs,
            info,
            // Kept across logins: the project is the same (another one is refused).
            sent: Arc::clone(&self.sent),
            changing: Arc::clone(&self.changing),
        }))
    }
}

/// The refusal of a new login whose project is not the one this server works on.
fn project_changed((id, name): &(String, String), new: &Info) -> PlatformError {
    PlatformError::new(
        ErrorCode::InvalidUsage,
        format!(
            "zcli's login now points at project '{}' ({}), but this server works on '{name}' ({id}) and does not switch projects while it runs: nothing was done",
            new.project_name, new.project_id
        ),
    )
    .with_suggestion(format!(
        "To go on with '{name}', switch zcli back (`zcli scope project {id}`); to work on '{}', restart the MCP server.",
        new.project_name
    ))
}

/// How to replace a rejected token, for where it came from: a new zcli login is picked up
/// on the next call; an environment variable only after a restart.
fn renew_token_advice(source: &CredentialSource) -> String {
    match source {
        CredentialSource::CliData(path) => format!(
            "The token of zcli's login ({}) was rejected. Log in again with `zcli login <token>` (a new personal access token from the Zerops GUI, Settings > Access Tokens); zcp reads the new login on its next call. Or set ZEROPS_TOKEN in the MCP server's config and restart it.",
            path.display()
        ),
        CredentialSource::Env(name) => format!(
            "The token in {name} was rejected. Create a new personal access token in the Zerops GUI (Settings > Access Tokens), put it in {name} in the MCP server's config, then restart the MCP server."
        ),
        CredentialSource::Direct => {
            "The built-in credentials were rejected; restart the MCP server.".to_owned()
        }
    }
}

fn describe_source(source: &CredentialSource) -> String {
    match source {
        CredentialSource::Env(name) => format!("${name}"),
        CredentialSource::CliData(path) => format!("zcli's login ({})", path.display()),
        CredentialSource::Direct => "built-in demo credentials".into(),
    }
}

/// The HTTP timeout: 30 s, or `ZCP_HTTP_TIMEOUT_MS` (so tests of a stalled API stay fast).
fn http_timeout() -> std::time::Duration {
    std::env::var("ZCP_HTTP_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| *ms > 0)
        .map_or(
            std::time::Duration::from_secs(30),
            std::time::Duration::from_millis,
        )
}

/// The usual factory: the HTTP client and log fetcher.
pub fn http_factory() -> ClientFactory {
    let timeout = http_timeout();
    Box::new(move |creds: &Credentials| {
        let client: Arc<dyn Client> = Arc::new(crate::platform::ZeropsClient::with_timeout(
            &creds.api_host,
            &creds.token,
            timeout,
        ));
        let logs: Arc<dyn LogFetcher> = Arc::new(crate::platform::HttpLogFetcher::new(timeout));
        (client, logs)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::mock::{MockClient, MockLogFetcher};
    use crate::platform::{Project, UserInfo};

    const SENTINEL: &str = "sentinel-SECRET-token-42";

    /// A factory of mock clients made by `make` from the credentials and the attempt's
    /// number (0 first), and the count of attempts made.
    fn counted_factory(
        make: impl Fn(&Credentials, usize) -> MockClient + Send + Sync + 'static,
    ) -> (ClientFactory, Arc<std::sync::atomic::AtomicUsize>) {
        let attempts = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = attempts.clone();
        let factory: ClientFactory = Box::new(move |creds| {
            let attempt = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let client: Arc<dyn Client> = Arc::new(make(creds, attempt));
            let logs: Arc<dyn LogFetcher> = Arc::new(MockLogFetcher::default());
            (client, logs)
        });
        (factory, attempts)
    }

    /// A client whose token sees project `p1`.
    fn working() -> MockClient {
        MockClient::new()
            .with_user_info(user())
            .with_projects(vec![project("p1")])
    }

    /// A client whose token check fails with `code`.
    fn failing(code: ErrorCode) -> MockClient {
        MockClient::new().with_error("get_user_info", PlatformError::new(code, "refused"))
    }

    fn env(vars: &[(&str, &str)], home: &Path, os: Os) -> EnvSource {
        EnvSource {
            vars: vars
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            home: Some(home.to_owned()),
            temp_dir: home.join("tmp"),
            os,
        }
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn cli_data(token: &str, scope: Option<&str>) -> String {
        crate::json!({"Token": token, "RegionData": {"name": "prg1", "isDefault": true, "address": "api.example.test", "guiAddress": null}, "ScopeProjectId": scope, "ProjectVpnKeyRegistry": null}).to_string()
    }

    #[test]
    fn zcli_login_host_reads_the_file_zcli_would_read() {
        let home = tempfile::tempdir().unwrap();
        let linux = env(&[], home.path(), Os::Linux);
        assert_eq!(zcli_login_host(&linux), None, "not logged in");
        let file = home.path().join(".config/zerops/cli.data");
        write(&file, &cli_data("tok", None));
        assert_eq!(zcli_login_host(&linux).as_deref(), Some("api.example.test"));
        write(&file, &cli_data("", None));
        assert_eq!(zcli_login_host(&linux), None, "logged out");
        write(&file, r#"{"Token":"tok","RegionData":{"address":""}}"#);
        assert_eq!(zcli_login_host(&linux).as_deref(), Some(DEFAULT_API_HOST));
    }

    #[test]
    fn environment_token_wins_and_zerops_names_beat_zcp_names() {
        let home = tempfile::tempdir().unwrap();
        write(
            &home.path().join(".config/zerops/cli.data"),
            &cli_data("from-file", None),
        );
        let creds = resolve_credentials(&env(
            &[
                ("ZCP_API_KEY", "zcp-key"),
                ("ZEROPS_TOKEN", SENTINEL),
                ("ZCP_API_HOST", "h1"),
                ("ZEROPS_API_HOST", "h2"),
            ],
            home.path(),
            Os::Linux,
        ))
        .unwrap();
        assert_eq!(creds.token, SENTINEL);
        assert_eq!(creds.api_host, "h2");
        assert_eq!(creds.source, CredentialSource::Env("ZEROPS_TOKEN".into()));
        let creds =
            resolve_credentials(&env(&[("ZCP_API_KEY", "zcp-key")], home.path(), Os::Linux))
                .unwrap();
        assert_eq!(
            (creds.token.as_str(), creds.api_host.as_str()),
            ("zcp-key", DEFAULT_API_HOST)
        );
        assert!(!format!("{creds:?}").contains("zcp-key"));
    }

    #[test]
    fn every_cli_data_location_is_found_in_order() {
        type Case<'a> = (Os, Vec<(&'a str, &'a str)>, &'a str);
        let cases: Vec<Case<'_>> = vec![
            (Os::Linux, vec![], ".config/zerops/cli.data"),
            (
                Os::Linux,
                vec![("XDG_CONFIG_HOME", "ABS/xdg")],
                "xdg/zerops/cli.data",
            ),
            (Os::Linux, vec![], "zerops/cli.data"),
            (Os::Linux, vec![], "zerops.cli.data"),
            (Os::Linux, vec![], "tmp/zerops.cli.data"),
            (
                Os::MacOs,
                vec![],
                "Library/Application Support/zerops/cli.data",
            ),
            (
                Os::Windows,
                vec![("APPDATA", "ABS/appdata")],
                "appdata/Zerops/cli.data",
            ),
            (Os::Windows, vec![], "Zerops/cli.data"),
            (
                Os::Linux,
                vec![("ZEROPS_CLI_DATA_FILE_PATH", "ABS/custom/place.json")],
                "custom/place.json",
            ),
        ];
        for (os, vars, relative) in cases {
            let home = tempfile::tempdir().unwrap();
            let root = home.path().display().to_string();
            let vars: Vec<(String, String)> = vars
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.replace("ABS", &root)))
                .collect();
            let refs: Vec<(&str, &str)> =
                vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            write(&home.path().join(relative), &cli_data("tok", Some("Pj1")));
            let creds = resolve_credentials(&env(&refs, home.path(), os))
                .unwrap_or_else(|e| panic!("{relative}: {e}"));
            assert_eq!(creds.token, "tok", "{relative}");
            assert_eq!(creds.api_host, "api.example.test");
            assert_eq!(creds.scope_project_id.as_deref(), Some("Pj1"));
            assert_eq!(
                creds.source,
                CredentialSource::CliData(home.path().join(relative))
            );
        }
    }

    #[test]
    fn cli_data_variants() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join(".config/zerops/cli.data");
        let e = env(&[], home.path(), Os::Linux);
        // Missing file.
        assert_eq!(
            resolve_credentials(&e).unwrap_err().code,
            ErrorCode::AuthRequired
        );
        // Null scope, lower-case field names.
        write(
            &path,
            r#"{"token":"abc","regiondata":{"address":"h"},"scopeprojectid":null,"VpnKeys":{}}"#,
        );
        let creds = resolve_credentials(&e).unwrap();
        assert_eq!(
            (creds.token.as_str(), creds.scope_project_id),
            ("abc", None)
        );
        for bad in [
            "",
            "  \n",
            "{not json",
            r#"{"Token":""}"#,
            r#"{"Token":null}"#,
        ] {
            write(&path, bad);
            let err = resolve_credentials(&e).unwrap_err();
            assert_eq!(err.code, ErrorCode::AuthRequired, "{bad:?}");
            assert!(err.suggestion.contains("ZEROPS_TOKEN"));
        }
    }

    /// The full candidate list per platform, in zcli's order.
    #[test]
    fn candidate_order_per_platform() {
        let home = Path::new("/h");
        let rel = |parts: &[&str]| parts.iter().fold(home.to_path_buf(), |p, s| p.join(s));
        let linux = cli_data_candidates(&env(
            &[("ZEROPS_CLI_DATA_FILE_PATH", "/custom/cli.data")],
            home,
            Os::Linux,
        ));
        assert_eq!(
            linux,
            vec![
                PathBuf::from("/custom/cli.data"),
                rel(&[".config", "zerops", "cli.data"]),
                rel(&["zerops", "cli.data"]),
                rel(&["zerops.cli.data"]),
                rel(&["tmp", "zerops.cli.data"]),
            ]
        );
        // Absolute on the host running the test (on Windows "/x" has no drive).
        let absolute = std::env::temp_dir().join("x");
        let xdg = cli_data_candidates(&env(
            &[("XDG_CONFIG_HOME", &absolute.display().to_string())],
            home,
            Os::Linux,
        ));
        assert_eq!(xdg[0], absolute.join("zerops").join("cli.data"));
        // A relative XDG_CONFIG_HOME makes Go's config-dir lookup fail: the row is skipped,
        // not replaced by ~/.config.
        let relative = cli_data_candidates(&env(&[("XDG_CONFIG_HOME", "rel")], home, Os::Linux));
        assert_eq!(relative[0], rel(&["zerops", "cli.data"]));
        assert_eq!(relative.len(), 3);
        let mac = cli_data_candidates(&env(&[], home, Os::MacOs));
        assert_eq!(
            mac[0],
            rel(&["Library", "Application Support", "zerops", "cli.data"])
        );
        assert_eq!(mac[1], rel(&["zerops", "cli.data"]));
        let win = cli_data_candidates(&env(
            &[("APPDATA", "/appdata"), ("USERPROFILE", "/profile")],
            home,
            Os::Windows,
        ));
        assert_eq!(
            win,
            vec![
                PathBuf::from("/appdata").join("Zerops").join("cli.data"),
                PathBuf::from("/profile").join("Zerops").join("cli.data"),
                PathBuf::from("/profile").join("zerops.cli.data"),
                rel(&["tmp", "zerops.cli.data"]),
            ]
        );
    }

    /// When several login files exist, the earliest candidate wins.
    #[test]
    fn the_first_existing_candidate_wins() {
        let home = tempfile::tempdir().unwrap();
        let custom = home.path().join("custom.data");
        let files = [
            (custom.clone(), "t-custom"),
            (home.path().join(".config/zerops/cli.data"), "t-config"),
            (home.path().join("zerops/cli.data"), "t-legacy-dir"),
            (home.path().join("zerops.cli.data"), "t-legacy-file"),
            (home.path().join("tmp/zerops.cli.data"), "t-temp"),
        ];
        for (path, token) in &files {
            write(path, &cli_data(token, None));
        }
        let custom_var = custom.display().to_string();
        let vars = [("ZEROPS_CLI_DATA_FILE_PATH", custom_var.as_str())];
        for (path, token) in &files {
            let creds = resolve_credentials(&env(&vars, home.path(), Os::Linux)).unwrap();
            assert_eq!(&creds.token, token);
            assert_eq!(creds.source, CredentialSource::CliData(path.clone()));
            std::fs::remove_file(path).unwrap();
        }
        assert_eq!(
            resolve_credentials(&env(&vars, home.path(), Os::Linux))
                .unwrap_err()
                .code,
            ErrorCode::AuthRequired
        );
    }

    /// Parse errors name the file and position, never its content (which holds the token).
    #[test]
    fn broken_login_files_never_echo_the_token() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join(".config/zerops/cli.data");
        let e = env(&[], home.path(), Os::Linux);
        for broken in [
            format!("{{\"Token\":\"{SENTINEL}\""),
            format!("{{\"Token\":\"{SENTINEL}\",}}"),
            format!("[\"{SENTINEL}\"]"),
            format!("{{\"Token\": 42, \"x\": \"{SENTINEL}\"}}"),
        ] {
            write(&path, &broken);
            let err = resolve_credentials(&e).unwrap_err();
            assert_eq!(err.code, ErrorCode::AuthRequired, "{broken}");
            let shown = format!("{err:?} {err}");
            assert!(!shown.contains(SENTINEL), "{shown}");
        }
    }

    /// Bytes that are not text cannot be read as a login file, even by root.
    #[test]
    fn undecodable_cli_data_is_reported() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join(".config/zerops/cli.data");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, [0xff, 0xfe, b'{', 0x80]).unwrap();
        let err = resolve_credentials(&env(&[], home.path(), Os::Linux)).unwrap_err();
        assert_eq!(err.code, ErrorCode::AuthRequired);
        assert!(err.message.contains("Cannot read"), "{}", err.message);
        assert!(err.message.contains("cli.data"));
    }

    #[cfg(unix)]
    #[test]
    fn unreadable_cli_data_is_reported() {
        use std::os::unix::fs::PermissionsExt;
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join(".config/zerops/cli.data");
        write(&path, &cli_data("x", None));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
        let readable_anyway = std::fs::read(&path).is_ok(); // root ignores permissions
        let result = resolve_credentials(&env(&[], home.path(), Os::Linux));
        if readable_anyway {
            assert!(result.is_ok());
        } else {
            assert!(result.unwrap_err().message.contains("Cannot read"));
        }
    }

    fn user() -> UserInfo {
        UserInfo {
            client_id: "cl1".into(),
            more_client_ids: Vec::new(),
            email: "a@b.c".into(),
            full_name: "Ada".into(),
        }
    }

    fn project(id: &str) -> Project {
        Project {
            id: id.into(),
            name: format!("name-{id}"),
            status: "ACTIVE".into(),
            ..Project::default()
        }
    }

    fn creds(scope: Option<&str>) -> Credentials {
        Credentials {
            token: SENTINEL.into(),
            api_host: "h".into(),
            scope_project_id: scope.map(str::to_owned),
            source: CredentialSource::Direct,
        }
    }

    /// zerops-api.md §6: a startup `GET /user/info` that fails with an answer other than
    /// 401/403 is AUTH_API_ERROR, the answer's status and code kept; no answer at all keeps
    /// the network's code.
    #[test]
    fn user_info_failures_map_to_auth_api_error() {
        let mut unavailable = PlatformError::new(ErrorCode::ApiError, "HTTP 503");
        unavailable.http_status = Some(503);
        unavailable.api_code = Some("serviceUnavailable".into());
        let mut limited = PlatformError::new(ErrorCode::ApiRateLimited, "HTTP 429");
        limited.http_status = Some(429);
        for (given, expected) in [
            (unavailable, ErrorCode::AuthApiError),
            (limited, ErrorCode::AuthApiError),
            (
                PlatformError::new(ErrorCode::NetworkError, "refused"),
                ErrorCode::NetworkError,
            ),
            (
                PlatformError::new(ErrorCode::ApiTimeout, "slow"),
                ErrorCode::ApiTimeout,
            ),
            (
                PlatformError::new(ErrorCode::AuthInvalidToken, "bad"),
                ErrorCode::AuthInvalidToken,
            ),
        ] {
            let status = given.http_status;
            let api_code = given.api_code.clone();
            let client = MockClient::new().with_error("get_user_info", given);
            let err = authenticate(&client, &creds(None)).unwrap_err();
            assert_eq!(err.code, expected);
            assert_eq!((err.http_status, err.api_code.clone()), (status, api_code));
            assert!(err.is_transient() || expected == ErrorCode::AuthInvalidToken);
        }
    }

    #[test]
    fn project_discovery() {
        let one = MockClient::new()
            .with_user_info(user())
            .with_projects(vec![project("p1")]);
        let info = authenticate(&one, &creds(None)).unwrap();
        assert_eq!(
            (info.project_id.as_str(), info.client_id.as_str()),
            ("p1", "cl1")
        );
        assert!(!format!("{info:?}").contains(SENTINEL));

        let none = MockClient::new().with_user_info(user());
        assert_eq!(
            authenticate(&none, &creds(None)).unwrap_err().code,
            ErrorCode::TokenNoProject
        );

        let many = MockClient::new()
            .with_user_info(user())
            .with_projects(vec![project("p1"), project("p2")]);
        let err = authenticate(&many, &creds(None)).unwrap_err();
        assert_eq!(err.code, ErrorCode::TokenMultiProject);
        assert!(err.message.contains("2 projects"));

        let scoped = MockClient::new()
            .with_user_info(user())
            .with_projects(vec![project("p1"), project("p2")]);
        assert_eq!(
            authenticate(&scoped, &creds(Some("p2")))
                .unwrap()
                .project_id,
            "p2"
        );
        let err = authenticate(&scoped, &creds(Some("gone"))).unwrap_err();
        assert_eq!(err.code, ErrorCode::TokenNoProject);
        assert!(err.suggestion.contains("zcli scope"));
    }

    /// A rejected zcli login stands until the login changes; then the next call uses the
    /// new one, without a restart. A missing login likewise, and a new login replaces a
    /// working one.
    #[test]
    fn a_new_zcli_login_replaces_a_rejected_one_without_a_restart() {
        let home = tempfile::tempdir().unwrap();
        let file = home.path().join(".config/zerops/cli.data");
        let (factory, attempts) = counted_factory(|creds, _| {
            if creds.token.starts_with("good") {
                working()
            } else {
                failing(ErrorCode::AuthInvalidToken)
            }
        });
        let auth = Authenticator::new(env(&[], home.path(), Os::Linux), factory);
        let count = || attempts.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(auth.session().unwrap_err().code, ErrorCode::AuthRequired);
        assert_eq!(auth.session().unwrap_err().code, ErrorCode::AuthRequired);
        assert_eq!(count(), 0);
        write(&file, &cli_data("stale", None));
        let err = auth.session().unwrap_err();
        assert_eq!(err.code, ErrorCode::AuthInvalidToken);
        assert!(err.suggestion.contains("zcli login"), "{}", err.suggestion);
        auth.session().unwrap_err();
        assert_eq!(count(), 1, "the same rejected login is not tried again");
        write(&file, &cli_data("good", None));
        assert_eq!(auth.session().unwrap().info.project_id, "p1");
        assert_eq!(count(), 2);
        auth.session().unwrap();
        assert_eq!(
            count(),
            2,
            "a working session is kept while the login is the same"
        );
        // A new login while the session works: the next call uses it.
        write(&file, &cli_data("good-too", None));
        assert_eq!(auth.session().unwrap().info.token, "good-too");
        assert_eq!(count(), 3);
        // The login removed: the session made from the last one goes on.
        std::fs::remove_file(&file).unwrap();
        assert_eq!(auth.session().unwrap().info.token, "good-too");
        assert_eq!(count(), 3);
    }

    /// A user in two organisations: the first that shows the token a project decides (one
    /// project in each is no multi-project error), and its project's organisation is kept.
    #[test]
    fn the_first_organisation_with_a_project_decides() {
        let in_org = |id: &str, org: &str| Project {
            client_id: Some(org.into()),
            ..project(id)
        };
        let two_orgs = UserInfo {
            more_client_ids: vec!["cl2".into()],
            ..user()
        };
        let client = MockClient::new()
            .with_user_info(two_orgs.clone())
            .with_projects(vec![in_org("p1", "cl1"), in_org("p2", "cl2")]);
        let info = authenticate(&client, &creds(None)).unwrap();
        assert_eq!(
            (info.project_id.as_str(), info.client_id.as_str()),
            ("p1", "cl1")
        );
        let second = MockClient::new()
            .with_user_info(two_orgs)
            .with_projects(vec![in_org("p2", "cl2")]);
        let info = authenticate(&second, &creds(None)).unwrap();
        assert_eq!(
            (info.project_id.as_str(), info.client_id.as_str()),
            ("p2", "cl2")
        );
    }

    /// A new login that works on another project is refused (once asked, then answered
    /// from memory), also after a failed login in between; going back to a login for the
    /// first project works again.
    #[test]
    fn a_new_login_for_another_project_is_refused() {
        let home = tempfile::tempdir().unwrap();
        let file = home.path().join(".config/zerops/cli.data");
        let (factory, attempts) = counted_factory(|creds, _| match creds.token.as_str() {
            "other" => MockClient::new()
                .with_user_info(user())
                .with_projects(vec![project("p2")]),
            "bad" => failing(ErrorCode::AuthInvalidToken),
            _ => working(),
        });
        let auth = Authenticator::new(env(&[], home.path(), Os::Linux), factory);
        let count = || attempts.load(std::sync::atomic::Ordering::SeqCst);
        write(&file, &cli_data("good", None));
        assert_eq!(auth.session().unwrap().info.project_id, "p1");
        write(&file, &cli_data("other", None));
        let err = auth.session().unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidUsage);
        assert!(err.message.contains("'name-p2' (p2)"), "{}", err.message);
        assert!(err.suggestion.contains("restart"), "{}", err.suggestion);
        assert_eq!(auth.session().unwrap_err().message, err.message);
        assert_eq!(count(), 2, "the refused login is asked about once");
        write(&file, &cli_data("bad", None));
        assert_eq!(
            auth.session().unwrap_err().code,
            ErrorCode::AuthInvalidToken
        );
        write(&file, &cli_data("other", None));
        assert_eq!(auth.session().unwrap_err().code, ErrorCode::InvalidUsage);
        write(&file, &cli_data("good-again", None));
        assert_eq!(auth.session().unwrap().info.project_id, "p1");
    }

    /// A new login that fails for now while a session from the old one works: the callers
    /// waiting for the attempt share its answer too (one attempt, not one each); a later
    /// call tries again.
    #[test]
    fn waiters_share_a_passing_failure_of_a_new_login() {
        let home = tempfile::tempdir().unwrap();
        let file = home.path().join(".config/zerops/cli.data");
        let (factory, attempts) = counted_factory(|creds, _| {
            if creds.token.starts_with("good") {
                working()
            } else {
                std::thread::sleep(std::time::Duration::from_millis(300));
                failing(ErrorCode::NetworkError)
            }
        });
        let auth = Arc::new(Authenticator::new(
            env(&[], home.path(), Os::Linux),
            factory,
        ));
        let count = || attempts.load(std::sync::atomic::Ordering::SeqCst);
        write(&file, &cli_data("good", None));
        auth.session().unwrap();
        write(&file, &cli_data("slow", None));
        let gate = Arc::new(std::sync::Barrier::new(4));
        let callers: Vec<_> = (0..4)
            .map(|_| {
                let (auth, gate) = (auth.clone(), gate.clone());
                std::thread::spawn(move || {
                    gate.wait();
                    auth.session().map(|_| ())
                })
            })
            .collect();
        for caller in callers {
            assert_eq!(
                caller.join().unwrap().unwrap_err().code,
                ErrorCode::NetworkError
            );
        }
        assert_eq!(count(), 2, "one attempt for the four callers");
        assert!(auth.session().is_err());
        assert_eq!(count(), 3, "a later call tries again");
        // The old login back: its session was kept.
        write(&file, &cli_data("good", None));
        auth.session().unwrap();
        assert_eq!(count(), 3);
    }

    /// A caller that waited through a passing failure and then a later attempt gets the
    /// later attempt's answer (a working session, or a definitive refusal), not the stale
    /// passing error. (Resetting the attempt count stands in for such an early arrival.)
    #[test]
    fn a_later_answer_replaces_a_shared_passing_failure() {
        for (then, expected) in [
            (None, None),
            (
                Some(ErrorCode::AuthInvalidToken),
                Some(ErrorCode::AuthInvalidToken),
            ),
        ] {
            let (factory, _) = counted_factory(move |_, attempt| match (attempt, then) {
                (0, _) => failing(ErrorCode::NetworkError),
                (_, Some(code)) => failing(code),
                (_, None) => working(),
            });
            let auth = Authenticator::with_credentials(creds(None), factory);
            assert_eq!(auth.session().unwrap_err().code, ErrorCode::NetworkError);
            let later = auth.session().map(|_| ()).map_err(|e| e.code);
            assert_eq!(later.err(), expected);
            auth.attempts.store(0, Ordering::SeqCst);
            assert_eq!(auth.session().map(|_| ()).map_err(|e| e.code), later);
        }
    }

    #[test]
    fn authenticator_remembers_definitive_failures_and_retries_transient_ones() {
        let (factory, attempts) = counted_factory(|_, _| failing(ErrorCode::NetworkError));
        let transient = Authenticator::with_credentials(creds(None), factory);
        assert_eq!(
            transient.session().unwrap_err().code,
            ErrorCode::NetworkError
        );
        assert_eq!(
            transient.session().unwrap_err().code,
            ErrorCode::NetworkError
        );
        assert_eq!(
            attempts.load(std::sync::atomic::Ordering::SeqCst),
            2,
            "transient failures are retried"
        );

        let (factory, attempts) = counted_factory(|_, _| failing(ErrorCode::AuthInvalidToken));
        let definitive = Authenticator::with_credentials(creds(None), factory);
        assert_eq!(
            definitive.session().unwrap_err().code,
            ErrorCode::AuthInvalidToken
        );
        assert_eq!(
            definitive.session().unwrap_err().code,
            ErrorCode::AuthInvalidToken
        );
        assert_eq!(
            attempts.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "a bad token is not retried"
        );

        let ok = Authenticator::with_credentials(
            creds(None),
            Box::new(|_| {
                let client: Arc<dyn Client> = Arc::new(
                    MockClient::new()
                        .with_user_info(user())
                        .with_projects(vec![project("p9")]),
                );
                (
                    client,
                    Arc::new(MockLogFetcher::default()) as Arc<dyn LogFetcher>,
                )
            }),
        );
        assert_eq!(ok.session().unwrap().info.project_id, "p9");
        assert!(Arc::ptr_eq(&ok.session().unwrap(), &ok.session().unwrap()));
    }

    #[test]
    fn missing_credentials_are_a_definitive_auth_required() {
        let home = tempfile::tempdir().unwrap();
        let auth = Authenticator::new(env(&[], home.path(), Os::Linux), http_factory());
        let err = auth.session().unwrap_err();
        assert_eq!(err.code, ErrorCode::AuthRequired);
        assert!(err.suggestion.contains("ZEROPS_TOKEN"));
    }
}
