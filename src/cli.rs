//! Command-line arguments and the assembly of the server for the binary.

use std::io::Write;
use std::process::ExitCode;

use std::sync::Arc;
use std::time::Duration;

use zcp::auth::{self, Authenticator, CredentialSource, Credentials, EnvSource};
use zcp::mcp::outbox::Outbox;
use zcp::mcp::{ServerBuilder, ServerInfo};
use zcp::ops::progress::PollConfig;
use zcp::sim::{self, SimConfig};
use zcp::tools::{self, DeployBackend, Services};

/// What the command line asks for.
pub enum Command {
    Serve(Options),
    Help,
    Version,
}

/// Settings for serving.
#[derive(Debug, Default)]
pub struct Options {
    /// Run against the built-in simulator with a sample project.
    pub demo: bool,
}

/// Parses the arguments after the program name.
pub fn parse(args: impl Iterator<Item = String>) -> Result<Command, String> {
    let mut options = Options::default();
    for arg in args {
        match arg.as_str() {
            "-h" | "--help" | "help" => return Ok(Command::Help),
            "-V" | "--version" | "version" => return Ok(Command::Version),
            "--demo" => options.demo = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Command::Serve(options))
}

/// The version line: crate version plus the commit it was built from.
pub fn version_line() -> String {
    let commit = option_env!("ZCP_GIT_COMMIT").unwrap_or("unknown");
    format!("zcp {} (commit {commit})", env!("CARGO_PKG_VERSION"))
}

pub fn usage() -> String {
    format!(
        "{}
An MCP server over stdio that lets an AI agent operate one Zerops project.

Usage: zcp [--demo]
       zcp --help | --version

Options:
  --demo        serve a built-in simulated Zerops project (no account needed)
  -h, --help    print this help
  -V, --version print the version

Environment:
  ZEROPS_TOKEN      Zerops access token (alias ZCP_API_KEY); else zcli's login is used
  ZEROPS_API_HOST   API host or full URL (alias ZCP_API_HOST); default api.app-prg1.zerops.io
  ZCP_LOG_LEVEL     stderr log level: debug, info, warn (default), error
  ZCP_WORKERS       most tool calls that run at once (default 32)

zcp speaks MCP on stdin/stdout; start it from an MCP client, not by hand.",
        version_line()
    )
}

/// How long the exit waits for the client to take the last queued output; a client that
/// stops reading cannot hold the process longer than this.
const FINAL_DRAIN: Duration = Duration::from_millis(500);
/// How long the exit waits for queued log lines to reach stderr.
const LOG_FLUSH: Duration = Duration::from_millis(200);

/// How long simulated processes and builds take in `--demo` (long enough to watch progress).
const DEMO_PROCESS: Duration = Duration::from_secs(4);
const DEMO_BUILD: Duration = Duration::from_secs(10);

/// The Zerops services behind the tools: the real API, or the simulator in `--demo`.
fn services(options: &Options) -> Result<Services, String> {
    let poll = PollConfig::from_env();
    if !options.demo {
        let auth = Authenticator::new(EnvSource::from_process(), auth::http_factory());
        return Ok(Services {
            auth,
            poll,
            deploy: DeployBackend::Zcli,
        });
    }
    let config = SimConfig {
        process_duration: DEMO_PROCESS,
        build_duration: DEMO_BUILD,
        ..SimConfig::default()
    };
    let sim = sim::start(config, sim::demo::seed())
        .map_err(|e| format!("cannot start the demo simulator: {e}"))?;
    let creds = Credentials {
        token: sim::demo::DEMO_TOKEN.into(),
        api_host: sim.base_url(),
        scope_project_id: None,
        source: CredentialSource::Direct,
    };
    let _ = writeln!(
        std::io::stderr(),
        "zcp: demo mode: serving a simulated Zerops project on {} (no account, nothing real changes)",
        sim.base_url()
    );
    Ok(Services {
        auth: Authenticator::with_credentials(creds, auth::http_factory()),
        poll,
        deploy: DeployBackend::Simulator(Arc::new(sim)),
    })
}

/// `ZCP_WORKERS`: a positive count of tool calls served at once; anything else keeps the
/// default (with a warning, since a typo should not silently change behaviour).
fn workers_from_env() -> Option<usize> {
    let raw = std::env::var("ZCP_WORKERS").ok()?;
    match raw.trim().parse::<usize>() {
        Ok(n) if (1..=256).contains(&n) => Some(n),
        _ => {
            zcp::warn!(
                "main",
                "ignoring ZCP_WORKERS={raw:?}: expected a number from 1 to 256"
            );
            None
        }
    }
}

/// Builds the server, serves stdio until the client leaves, then exits the process.
pub fn serve(
    options: Options,
    out: Box<dyn Write + Send>,
    probe: Option<std::fs::File>,
) -> ExitCode {
    let info = ServerInfo {
        name: "zcp".into(),
        title: "Zerops".into(),
        version: env!("CARGO_PKG_VERSION").into(),
    };
    let mut builder = ServerBuilder::new(info);
    if let Some(workers) = workers_from_env() {
        builder = builder.workers(workers);
    }
    if std::env::var("ZCP_TEST_TOOLS").is_ok_and(|v| v == "1") {
        // Engine test mode: only the protocol test tools and resources.
        for tool in zcp::mcp::test_tools::all() {
            builder = builder.tool(tool);
        }
        builder = builder
            .instructions("Test mode: protocol test tools only.")
            .resources(Arc::new(zcp::mcp::test_tools::TestResources));
    } else {
        let services = match services(&options) {
            Ok(services) => Arc::new(services),
            Err(message) => {
                let _ = writeln!(std::io::stderr(), "zcp: {message}");
                return ExitCode::FAILURE;
            }
        };
        for tool in tools::all(&services) {
            builder = builder.tool(tool);
        }
        builder = builder
            .instructions(tools::INSTRUCTIONS)
            .argument_error(Arc::new(tools::argument_error))
            .resources(Arc::new(tools::knowledge::DocsResources));
    }
    // A queue in front of stdout: a client that stops reading cannot block the reader
    // thread (which must still see the end of stdin) or the exit.
    // With a probe on the real stream, short answers skip the queue when it is empty and the
    // pipe has room (no thread hand-off per answer).
    #[cfg(unix)]
    let started = match probe {
        Some(probe) => Outbox::with_ready_check(out, zcp::mcp::outbox::writable_now(probe)),
        None => Outbox::new(out),
    };
    #[cfg(not(unix))]
    let started = {
        drop(probe);
        Outbox::new(out)
    };
    let outbox = match started {
        Ok(outbox) => outbox,
        Err(err) => {
            let _ = writeln!(
                std::io::stderr(),
                "zcp: cannot start the stdout thread: {err}"
            );
            return ExitCode::FAILURE;
        }
    };
    let drain = outbox.drain();
    let server = builder.build(Box::new(outbox));
    drain.on_failure(server.gone_hook());
    let handle = server.signal_handle();
    if let Err(err) = ctrlc::set_handler(move || handle.trigger()) {
        zcp::warn!("main", "cannot install signal handlers: {err}");
    }
    // (Waiting, not failing, if stdin came non-blocking from the parent.)
    #[cfg(unix)]
    let reason = server.serve(zcp::mcp::patient::Patient(std::io::stdin()));
    #[cfg(not(unix))]
    let reason = server.serve(std::io::stdin());
    zcp::debug!("main", "stopping: {reason:?}");
    // Children (zcli) must not outlive us.
    zcp::ops::zcli::kill_all_children();
    let drained_by = std::time::Instant::now() + FINAL_DRAIN;
    let logged_by = drained_by + LOG_FLUSH;
    server.finish_with(|| {
        drain.wait_until(drained_by);
        // Whatever the log queue still holds, briefly: an unread stderr must not hold
        // the exit.
        zcp::log::flush(logged_by.saturating_duration_since(std::time::Instant::now()));
    })
}
