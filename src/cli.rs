//! Command-line arguments and the assembly of the server for the binary.

use std::io::Write;
use std::process::ExitCode;

use zcp::mcp::{ServerBuilder, ServerInfo};

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

zcp speaks MCP on stdin/stdout; start it from an MCP client, not by hand.",
        version_line()
    )
}

/// Builds the server, serves stdio until the client leaves, then exits the process.
pub fn serve(_options: Options, out: Box<dyn Write + Send>) -> ExitCode {
    let info = ServerInfo {
        name: "zcp".into(),
        title: "Zerops".into(),
        version: env!("CARGO_PKG_VERSION").into(),
    };
    let mut builder = ServerBuilder::new(info);
    if std::env::var("ZCP_TEST_TOOLS").is_ok_and(|v| v == "1") {
        // Engine test mode: only the protocol test tools and resources.
        for tool in zcp::mcp::test_tools::all() {
            builder = builder.tool(tool);
        }
        builder = builder
            .instructions("Test mode: protocol test tools only.")
            .resources(std::sync::Arc::new(zcp::mcp::test_tools::TestResources));
    }
    let server = builder.build(out);
    let handle = server.signal_handle();
    if let Err(err) = ctrlc::set_handler(move || handle.trigger()) {
        zcp::warn!("main", "cannot install signal handlers: {err}");
    }
    let reason = server.serve(std::io::stdin());
    zcp::debug!("main", "stopping: {reason:?}");
    server.finish()
}
