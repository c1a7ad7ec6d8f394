//! The server: its builder, the reader thread and the lifecycle (end of input, signals, a
//! client that closed stdout).
//!
//! Threads: `zcp-reader` reads and dispatches lines and answers the cheap methods itself;
//! `zcp-worker-N` run tool calls and resource reads; the caller of [`Server::serve`] waits
//! for a lifecycle event. All output goes through one [`Writer`].

use std::collections::HashMap;
use std::io::{BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::framing::{DEFAULT_MAX_LINE, LineReader};
use super::inflight::Inflight;
use super::pool::Pool;
use super::registry::{ResourceProvider, Tool, ToolOutput};
use super::schema::ArgumentError;
use super::writer::Writer;

/// How long requests read before end of input may still finish. With [`CLEANUP_GRACE`]
/// after it, the process is gone within 2 s of EOF even when a handler ignores its
/// cancellation (a call blocked on a silent network peer).
pub const DEFAULT_EOF_GRACE: Duration = Duration::from_millis(1500);
/// How long cancelled handlers get to clean up (kill children) before we exit.
const CLEANUP_GRACE: Duration = Duration::from_millis(400);
/// The hard limit between a signal and exit, whatever handlers do.
const SIGNAL_DEADLINE: Duration = Duration::from_millis(4500);

/// Identity reported in `serverInfo`.
#[derive(Debug, Clone)]
pub struct ServerInfo {
    pub name: String,
    pub title: String,
    pub version: String,
}

/// Turns an argument-validation failure into the tool result the model sees.
pub type ArgumentErrorFormatter = Arc<dyn Fn(&str, &ArgumentError) -> ToolOutput + Send + Sync>;

/// Why [`Server::serve`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitReason {
    /// stdin reached its end (the normal way a client says goodbye).
    EndOfInput,
    /// SIGINT or SIGTERM.
    Signal,
    /// stdout could not be written: nobody is listening any more.
    ClientGone,
}

/// Configures a [`Server`].
pub struct ServerBuilder {
    info: ServerInfo,
    instructions: Option<String>,
    tools: Vec<Tool>,
    resources: Option<Arc<dyn ResourceProvider>>,
    workers: usize,
    max_line: usize,
    eof_grace: Duration,
    argument_error: ArgumentErrorFormatter,
}

/// Tool calls that run at once unless configured. Generous, because a call waiting for a
/// worker waits for a whole running call: an async tool follows its process for up to
/// 50 s, and hosts send several calls at once. An idle pool costs nothing (threads start
/// on demand), a busy worker little more than its stack.
pub const DEFAULT_WORKERS: usize = 32;

impl ServerBuilder {
    pub fn new(info: ServerInfo) -> ServerBuilder {
        ServerBuilder {
            info,
            instructions: None,
            tools: Vec::new(),
            resources: None,
            workers: DEFAULT_WORKERS,
            max_line: DEFAULT_MAX_LINE,
            eof_grace: DEFAULT_EOF_GRACE,
            argument_error: Arc::new(|tool, err| {
                let mut output = ToolOutput::text(format!("Invalid arguments for {tool}: {err}"));
                output.is_error = true;
                output
            }),
        }
    }

    pub fn instructions(mut self, text: impl Into<String>) -> ServerBuilder {
        self.instructions = Some(text.into());
        self
    }

    /// Adds a tool. `tools/list` keeps registration order.
    pub fn tool(mut self, tool: Tool) -> ServerBuilder {
        self.tools.push(tool);
        self
    }

    pub fn resources(mut self, provider: Arc<dyn ResourceProvider>) -> ServerBuilder {
        self.resources = Some(provider);
        self
    }

    /// The most requests that run at once (default [`DEFAULT_WORKERS`]).
    pub fn workers(mut self, workers: usize) -> ServerBuilder {
        self.workers = workers.max(1);
        self
    }

    /// The longest accepted input line (default 64 MiB).
    pub fn max_line(mut self, bytes: usize) -> ServerBuilder {
        self.max_line = bytes;
        self
    }

    pub fn eof_grace(mut self, grace: Duration) -> ServerBuilder {
        self.eof_grace = grace;
        self
    }

    /// How arguments that fail the input schema are reported.
    pub fn argument_error(mut self, formatter: ArgumentErrorFormatter) -> ServerBuilder {
        self.argument_error = formatter;
        self
    }

    /// Builds the server around the protocol output stream.
    pub fn build(self, out: Box<dyn Write + Send>) -> Server {
        let tool_index = self
            .tools
            .iter()
            .enumerate()
            .map(|(i, tool)| (tool.name.clone(), i))
            .collect();
        Server {
            shared: Arc::new(Shared {
                info: self.info,
                instructions: self.instructions,
                tools: self.tools,
                tool_index,
                resources: self.resources,
                argument_error: self.argument_error,
                writer: Arc::new(Writer::new(out)),
                pool: Pool::new(self.workers),
                inflight: Inflight::default(),
                negotiated: AtomicU8::new(NOT_NEGOTIATED),
                legacy_log_level: Arc::new(AtomicU8::new(NOT_NEGOTIATED)),
                tools_cache: Default::default(),
                events: Mutex::new(None),
                batches_running: Default::default(),
                max_line: self.max_line,
                eof_grace: self.eof_grace,
            }),
        }
    }
}

/// Marks "no value yet" in the atomics holding a version or log level.
pub(crate) const NOT_NEGOTIATED: u8 = u8::MAX;

/// State shared by the reader, the workers and the lifecycle.
pub(crate) struct Shared {
    pub(crate) info: ServerInfo,
    pub(crate) instructions: Option<String>,
    pub(crate) tools: Vec<Tool>,
    pub(crate) tool_index: HashMap<String, usize>,
    pub(crate) resources: Option<Arc<dyn ResourceProvider>>,
    pub(crate) argument_error: ArgumentErrorFormatter,
    pub(crate) writer: Arc<Writer>,
    pub(crate) pool: Pool,
    pub(crate) inflight: Inflight,
    /// Index of the negotiated legacy version, or [`NOT_NEGOTIATED`].
    pub(crate) negotiated: AtomicU8,
    /// Level set by legacy `logging/setLevel`, or [`NOT_NEGOTIATED`] (send nothing).
    pub(crate) legacy_log_level: Arc<AtomicU8>,
    /// `tools/list` arrays per shape, built once: byte-identical answers.
    pub(crate) tools_cache: [OnceLock<String>; 3],
    events: Mutex<Option<Sender<ExitReason>>>,
    /// Batches still being processed (they count as in flight for the end-of-input grace).
    pub(crate) batches_running: std::sync::atomic::AtomicUsize,
    pub(crate) max_line: usize,
    eof_grace: Duration,
}

impl Shared {
    fn send_event(&self, event: ExitReason) -> bool {
        let events = self.events.lock().unwrap_or_else(|p| p.into_inner());
        events.as_ref().is_some_and(|tx| tx.send(event).is_ok())
    }

    pub(crate) fn busy(&self) -> bool {
        !self.inflight.is_empty() || self.batches_running.load(Ordering::Acquire) > 0
    }
}

/// A running (or ready to run) MCP server.
#[derive(Clone)]
pub struct Server {
    pub(crate) shared: Arc<Shared>,
}

/// Lets a signal handler stop the server from another thread.
#[derive(Clone)]
pub struct SignalHandle {
    shared: Arc<Shared>,
    fired: Arc<AtomicBool>,
}

impl SignalHandle {
    /// Cancels everything and asks `serve` to return; starts the hard deadline after which
    /// the process exits regardless.
    pub fn trigger(&self) {
        if self.fired.swap(true, Ordering::AcqRel) {
            return;
        }
        crate::info!("mcp", "signal received; shutting down");
        self.shared.inflight.cancel_all();
        let _ = std::thread::Builder::new()
            .name("zcp-deadline".into())
            .spawn(|| {
                std::thread::sleep(SIGNAL_DEADLINE);
                std::process::exit(0);
            });
        if !self.shared.send_event(ExitReason::Signal) {
            // Not serving yet: nothing to drain.
            std::process::exit(0);
        }
    }
}

impl Server {
    /// Reads `input` until its end, a signal or a gone client, then cancels what is still
    /// running and returns why. The caller decides how to exit (see [`Server::finish`]).
    pub fn serve(&self, input: impl Read + Send + 'static) -> ExitReason {
        let (tx, rx) = mpsc::channel();
        *self.shared.events.lock().unwrap_or_else(|p| p.into_inner()) = Some(tx.clone());
        let gone = tx.clone();
        self.shared.writer.set_on_gone(Box::new(move || {
            let _ = gone.send(ExitReason::ClientGone);
        }));
        let shared = self.shared.clone();
        let reader = std::thread::Builder::new()
            .name("zcp-reader".into())
            .spawn(move || {
                let max_line = shared.max_line;
                let mut lines =
                    LineReader::new(BufReader::with_capacity(256 * 1024, input), max_line);
                loop {
                    match lines.next_frame() {
                        Ok(Some(frame)) => shared.handle_frame(frame),
                        Ok(None) => break,
                        Err(err) => {
                            crate::debug!("mcp", "stdin read failed: {err}");
                            break;
                        }
                    }
                }
                let _ = tx.send(ExitReason::EndOfInput);
            });
        if let Err(err) = reader {
            crate::error!("mcp", "cannot start the reader thread: {err}");
            return ExitReason::EndOfInput;
        }
        let reason = rx.recv().unwrap_or(ExitReason::EndOfInput);
        if reason == ExitReason::EndOfInput {
            self.wait_idle(self.shared.eof_grace);
        }
        if self.shared.busy() {
            crate::debug!(
                "mcp",
                "cancelling {} request(s) still running",
                self.shared.inflight.len()
            );
            self.shared.inflight.cancel_all();
            self.wait_idle(CLEANUP_GRACE);
        }
        reason
    }

    /// Flushes the output and exits the process with status 0, holding the writer so no
    /// half line can follow.
    pub fn finish(&self) -> ! {
        self.finish_with(|| {})
    }

    /// Like [`Server::finish`], running `before_exit` while the writer is held (the binary
    /// waits there, briefly, for its stdout queue to empty).
    ///
    /// `before_exit` runs twice: before the writer is taken (a worker blocked on a full
    /// stdout queue holds the writer's lock, and the binary's drain gives such a queue up
    /// at its deadline, which frees the lock), and again while it is held (for anything
    /// written in between). It should wait against one deadline, not a fresh one each time.
    pub fn finish_with(&self, before_exit: impl Fn()) -> ! {
        before_exit();
        let _hold = self.shared.writer.flush_and_hold();
        before_exit();
        std::process::exit(0)
    }

    /// What to call when the output stream is found closed outside a write.
    pub fn gone_hook(&self) -> Box<dyn Fn() + Send + Sync> {
        let writer = self.shared.writer.clone();
        Box::new(move || writer.report_gone())
    }

    pub fn signal_handle(&self) -> SignalHandle {
        SignalHandle {
            shared: self.shared.clone(),
            fired: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Handles one input line as the reader thread would (for tests without a process).
    pub fn handle_line(&self, line: &[u8]) {
        self.shared
            .handle_frame(super::framing::Frame::Line(line.to_vec()));
    }

    /// Waits until no request is running, up to `timeout`. Returns whether it got idle.
    pub fn wait_idle(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while self.shared.busy() {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        true
    }

    /// Number of requests running or queued.
    pub fn inflight(&self) -> usize {
        self.shared.inflight.len()
    }
}
