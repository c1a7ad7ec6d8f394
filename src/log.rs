//! Diagnostics on stderr, filtered by `ZCP_LOG_LEVEL` (debug, info, warn, error; default
//! warn). stdout belongs to the protocol writer alone, so nothing here ever touches it.
//!
//! A host may leave stderr unread, and once its pipe is full a write blocks. So lines go
//! through a bounded queue to a thread of their own: a caller (a tool call, the panic
//! hook) never waits on stderr. When the queue is full, new lines are dropped and counted,
//! and the count is written once the pipe moves again.
//!
//! Callers must never pass secrets: the token is masked by the types that hold it.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// Severity of a diagnostic line, ordered from most to least verbose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Debug = 0,
    Info = 1,
    Warn = 2,
    Error = 3,
}

impl Level {
    /// Parses a level name as accepted in `ZCP_LOG_LEVEL` (case-insensitive; `warning`
    /// is accepted for `warn`).
    pub fn parse(name: &str) -> Option<Level> {
        match name.trim().to_ascii_lowercase().as_str() {
            "debug" | "trace" => Some(Level::Debug),
            "info" => Some(Level::Info),
            "warn" | "warning" => Some(Level::Warn),
            "error" => Some(Level::Error),
            _ => None,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Level::Debug => "DEBUG",
            Level::Info => "INFO",
            Level::Warn => "WARN",
            Level::Error => "ERROR",
        }
    }
}

static THRESHOLD: AtomicU8 = AtomicU8::new(Level::Warn as u8);

/// Sets the minimum level that reaches stderr.
pub fn set_level(level: Level) {
    THRESHOLD.store(level as u8, Ordering::Relaxed);
}

/// Reads `ZCP_LOG_LEVEL`; an unknown value keeps the default and says so once.
pub fn init_from_env() {
    if let Ok(value) = std::env::var("ZCP_LOG_LEVEL") {
        match Level::parse(&value) {
            Some(level) => set_level(level),
            None => write(
                Level::Warn,
                "log",
                format_args!("ignoring ZCP_LOG_LEVEL={value:?}; use debug, info, warn or error"),
            ),
        }
    }
}

/// True when a line at `level` would be written.
pub fn enabled(level: Level) -> bool {
    level as u8 >= THRESHOLD.load(Ordering::Relaxed)
}

/// Lines that may wait for stderr; past this, new lines are dropped (and counted).
const QUEUE_LINES: usize = 1024;

#[derive(Default)]
struct Pending {
    lines: VecDeque<String>,
    dropped: u64,
    /// The thread holds lines it took and has not finished writing.
    writing: bool,
}

/// The queue in front of stderr and its writer thread.
struct Sink {
    pending: Mutex<Pending>,
    /// Signalled when lines arrive.
    wake: Condvar,
    /// Signalled when the thread has written all it took.
    idle: Condvar,
    /// False when the thread could not be started: lines are then written directly.
    threaded: bool,
}

impl Sink {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn push(&self, line: String, capacity: usize) {
        let mut pending = self.lock();
        if pending.lines.len() >= capacity {
            pending.dropped += 1;
            return;
        }
        pending.lines.push_back(line);
        drop(pending);
        self.wake.notify_one();
    }

    /// The writer thread's loop: take everything queued, write it, repeat.
    fn run(&self, out: &mut dyn Write) {
        loop {
            let mut pending = self.lock();
            while pending.lines.is_empty() && pending.dropped == 0 {
                pending.writing = false;
                self.idle.notify_all();
                pending = self.wake.wait(pending).unwrap_or_else(|p| p.into_inner());
            }
            let lines = std::mem::take(&mut pending.lines);
            let dropped = std::mem::take(&mut pending.dropped);
            pending.writing = true;
            drop(pending);
            let mut text: String = lines.into_iter().collect();
            if dropped > 0 {
                text.push_str(&format!(
                    "zcp WARN [log] {dropped} log line(s) dropped: stderr was not being read\n"
                ));
            }
            // Errors are ignored: a host that closed stderr must not stop the server.
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        }
    }

    /// Waits until everything queued so far is written, or `timeout` passes.
    fn flush(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut pending = self.lock();
        while pending.writing || !pending.lines.is_empty() || pending.dropped > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            pending = self
                .idle
                .wait_timeout(pending, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        true
    }
}

fn sink() -> &'static Sink {
    static SINK: OnceLock<&'static Sink> = OnceLock::new();
    SINK.get_or_init(|| start_sink(Box::new(std::io::stderr())))
}

/// Leaks one `Sink` (it lives as long as the process) and starts its thread on `out`.
fn start_sink(mut out: Box<dyn Write + Send>) -> &'static Sink {
    let sink: &'static Sink = Box::leak(Box::new(Sink {
        pending: Mutex::new(Pending::default()),
        wake: Condvar::new(),
        idle: Condvar::new(),
        threaded: true,
    }));
    let started = std::thread::Builder::new()
        .name("zcp-stderr".into())
        .spawn(move || sink.run(&mut out));
    if started.is_ok() {
        sink
    } else {
        Box::leak(Box::new(Sink {
            pending: Mutex::new(Pending::default()),
            wake: Condvar::new(),
            idle: Condvar::new(),
            threaded: false,
        }))
    }
}

/// Writes one line to stderr, through the queue (never waiting on the pipe).
pub fn write(level: Level, target: &str, args: std::fmt::Arguments<'_>) {
    if !enabled(level) {
        return;
    }
    let line = format!("zcp {} [{}] {}\n", level.label(), target, args);
    let sink = sink();
    if sink.threaded {
        sink.push(line, QUEUE_LINES);
    } else {
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
}

/// Gives queued lines up to `timeout` to reach stderr (before the process exits); returns
/// whether they all did. A stderr nobody reads cannot hold the exit longer than that.
pub fn flush(timeout: Duration) -> bool {
    sink().flush(timeout)
}

/// Logs at debug level: `debug!("target", "fmt", args...)`.
#[macro_export]
macro_rules! debug {
    ($target:expr, $($arg:tt)+) => { $crate::log::write($crate::log::Level::Debug, $target, format_args!($($arg)+)) };
}
/// Logs at info level.
#[macro_export]
macro_rules! info {
    ($target:expr, $($arg:tt)+) => { $crate::log::write($crate::log::Level::Info, $target, format_args!($($arg)+)) };
}
/// Logs at warn level.
#[macro_export]
macro_rules! warn {
    ($target:expr, $($arg:tt)+) => { $crate::log::write($crate::log::Level::Warn, $target, format_args!($($arg)+)) };
}
/// Logs at error level.
#[macro_export]
macro_rules! error {
    ($target:expr, $($arg:tt)+) => { $crate::log::write($crate::log::Level::Error, $target, format_args!($($arg)+)) };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that blocks until the test lets it go, like a full pipe nobody reads.
    struct Gate {
        open: std::sync::Arc<(Mutex<bool>, Condvar)>,
        written: std::sync::Arc<Mutex<Vec<u8>>>,
    }

    impl Write for Gate {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let (lock, cvar) = &*self.open;
            let mut open = lock.lock().unwrap();
            while !*open {
                open = cvar.wait(open).unwrap();
            }
            self.written.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_stuck_stderr_never_blocks_a_caller_and_drops_are_reported() {
        let open = std::sync::Arc::new((Mutex::new(false), Condvar::new()));
        let written = std::sync::Arc::new(Mutex::new(Vec::new()));
        let sink = start_sink(Box::new(Gate {
            open: open.clone(),
            written: written.clone(),
        }));
        assert!(sink.threaded);
        // The thread takes the first line and blocks on it; 3 more fit; 6 are dropped.
        for i in 0..10 {
            sink.push(format!("line {i}\n"), 3);
            if i == 0 {
                while !sink.lock().writing {
                    std::thread::yield_now();
                }
            }
        }
        assert!(!sink.flush(Duration::from_millis(50)), "stderr is stuck");
        *open.0.lock().unwrap() = true;
        open.1.notify_all();
        assert!(sink.flush(Duration::from_secs(10)));
        let text = String::from_utf8(written.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text,
            "line 0\nline 1\nline 2\nline 3\n\
             zcp WARN [log] 6 log line(s) dropped: stderr was not being read\n"
        );
    }

    #[test]
    fn parses_level_names() {
        assert_eq!(Level::parse("DEBUG"), Some(Level::Debug));
        assert_eq!(Level::parse(" warning "), Some(Level::Warn));
        assert_eq!(Level::parse("error"), Some(Level::Error));
        assert_eq!(Level::parse("loud"), None);
        assert!(Level::Debug < Level::Error);
    }
}
