//! The `zcp` binary: arguments, environment, the stdout swap and signals, then the MCP
//! server on stdio until the client closes stdin.
#![deny(unsafe_code)]

use std::io::Write;
use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    // Before anything can print: keep the real stdout for the protocol and point fd 1 at
    // stderr, so a stray print from any library lands on stderr.
    let (protocol_out, probe) = stdio::take_stdout();
    zcp::log::init_from_env();
    // One log line instead of the default multi-line report: a panicking handler is
    // answered with -32603 and the server keeps going.
    std::panic::set_hook(Box::new(|info| zcp::error!("panic", "{info}")));
    let options = match cli::parse(
        std::env::args_os()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned()),
    ) {
        Ok(cli::Command::Serve(options)) => options,
        Ok(cli::Command::Help) => return print_and_exit(protocol_out, &cli::usage()),
        Ok(cli::Command::Version) => return print_and_exit(protocol_out, &cli::version_line()),
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "zcp: {message}\n\n{}", cli::usage());
            return ExitCode::from(2);
        }
    };
    cli::serve(options, protocol_out, probe)
}

/// `--help` and `--version` answer on the real stdout, then exit 0.
fn print_and_exit(mut out: Box<dyn Write + Send>, text: &str) -> ExitCode {
    let _ = out.write_all(text.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
    ExitCode::SUCCESS
}

mod stdio {
    //! The one place with `unsafe`: duplicating file descriptors at startup.
    use std::io::{BufWriter, Write};

    /// Returns a writer for the protocol stream (plus a second handle on it, for asking
    /// whether it has room) and redirects fd 1 to stderr.
    #[cfg(unix)]
    #[allow(unsafe_code)]
    pub fn take_stdout() -> (Box<dyn Write + Send>, Option<std::fs::File>) {
        use std::os::fd::FromRawFd;
        unsafe extern "C" {
            fn dup(fd: i32) -> i32;
            fn dup2(src: i32, dst: i32) -> i32;
        }
        // SAFETY: dup/dup2 only manipulate this process's descriptor table. The duplicate
        // of fd 1 is a fresh descriptor that nothing else owns, so handing it to `File` is
        // sound; afterwards fd 1 refers to stderr's open file.
        unsafe {
            let protocol = dup(1);
            if protocol < 0 {
                return (Box::new(BufWriter::new(std::io::stdout())), None);
            }
            if dup2(2, 1) < 0 {
                crate::zcp_log_swap_failed();
            }
            let file = std::fs::File::from_raw_fd(protocol);
            let probe = file.try_clone().ok();
            // Patient: the descriptor may have come non-blocking from the parent.
            let out = zcp::mcp::patient::Patient(file);
            (Box::new(BufWriter::with_capacity(64 * 1024, out)), probe)
        }
    }

    #[cfg(not(unix))]
    pub fn take_stdout() -> (Box<dyn Write + Send>, Option<std::fs::File>) {
        (Box::new(BufWriter::new(std::io::stdout())), None)
    }
}

#[cfg(unix)]
fn zcp_log_swap_failed() {
    zcp::warn!(
        "main",
        "could not redirect fd 1 to stderr; stray prints could corrupt the protocol"
    );
}
