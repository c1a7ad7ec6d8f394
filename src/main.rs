//! The `zcp` binary: arguments, environment, signals, then the MCP server on stdio.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::SUCCESS
}
