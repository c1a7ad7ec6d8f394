//! What a tool handler gets: its arguments, a progress reporter, a cancellation token and a
//! protocol log sink. The reporter and the sink write through the shared writer and only
//! while the request is open, so nothing of a request can follow its reply.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::json;

use serde_json::{Map, Value};

use crate::cancel::CancelToken;

use super::era::Era;
use super::inflight::RequestState;
use super::jsonrpc::{notification_line, notification_line_raw};
use super::logging::LogLevel;
use super::writer::Writer;

/// The shortest gap between two progress notifications of one request (spec §7 asks for
/// at most a few per second).
const MIN_PROGRESS_GAP: Duration = Duration::from_millis(100);

/// Everything a handler may use while it runs.
pub struct ToolContext {
    /// The arguments after schema validation and coercion (always an object).
    pub arguments: Value,
    pub progress: Progress,
    pub cancel: CancelToken,
    pub log: LogSink,
    pub era: Era,
    /// Capabilities the client declared (modern: this request's envelope; legacy: empty).
    pub client_capabilities: Map<String, Value>,
}

impl ToolContext {
    /// A context for calling a handler outside the engine (unit tests of tools).
    pub fn detached(arguments: Value) -> ToolContext {
        ToolContext {
            arguments,
            progress: Progress::disabled(),
            cancel: CancelToken::new(),
            log: LogSink::disabled(),
            era: Era::Modern,
            client_capabilities: Map::new(),
        }
    }
}

/// Sends `notifications/progress` for one request, or nothing when the request carried no
/// `progressToken`.
#[derive(Clone)]
pub struct Progress {
    inner: Option<Arc<ProgressInner>>,
}

struct ProgressInner {
    /// The token as the client wrote it (JSON text), echoed verbatim.
    token: Box<str>,
    writer: Arc<Writer>,
    state: Arc<RequestState>,
    with_message: bool,
    last: Mutex<Option<(f64, Instant)>>,
}

impl Progress {
    pub(crate) fn new(
        token: Box<str>,
        writer: Arc<Writer>,
        state: Arc<RequestState>,
        era: Era,
    ) -> Progress {
        Progress {
            inner: Some(Arc::new(ProgressInner {
                token,
                writer,
                state,
                with_message: era.has_annotations(),
                last: Mutex::new(None),
            })),
        }
    }

    /// A reporter that never sends anything.
    pub fn disabled() -> Progress {
        Progress { inner: None }
    }

    /// Whether the client asked for progress.
    pub fn is_enabled(&self) -> bool {
        self.inner.is_some()
    }

    /// Sends one notification. Dropped (returning false) when progress is off, the value does
    /// not increase, the previous one was under 100 ms ago, or the request is closed.
    pub fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        let Some(inner) = &self.inner else {
            return false;
        };
        if !progress.is_finite() {
            return false;
        }
        let mut last = inner.last.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((previous, at)) = *last
            && (progress <= previous || at.elapsed() < MIN_PROGRESS_GAP)
        {
            return false;
        }
        // Written by hand, members in the order serde_json sorts them, so the token goes
        // out as its exact text (a big integer stays an integer).
        let mut params = String::from("{");
        if inner.with_message
            && let Some(message) = message
        {
            params.push_str(&format!(r#""message":{},"#, json!(message)));
        }
        params.push_str(&format!(
            r#""progress":{},"progressToken":{}"#,
            number(progress),
            inner.token
        ));
        if let Some(total) = total.filter(|t| t.is_finite() && *t >= progress) {
            params.push_str(&format!(r#","total":{}"#, number(total)));
        }
        params.push('}');
        let line = notification_line_raw("notifications/progress", &params);
        let sent = inner.writer.write_line_if(&line, || inner.state.is_open());
        if sent {
            *last = Some((progress, Instant::now()));
        }
        sent
    }
}

/// Whole numbers go out as integers (`3`, not `3.0`).
fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        json!(value as i64)
    } else {
        json!(value)
    }
}

/// Sends `notifications/message` when the client opted in for this request.
#[derive(Clone)]
pub struct LogSink {
    inner: Option<Arc<LogInner>>,
}

struct LogInner {
    threshold: Threshold,
    writer: Arc<Writer>,
    state: Arc<RequestState>,
}

/// The least severe level a call's log messages go out at.
pub(crate) enum Threshold {
    /// The client asked for none.
    Off,
    /// Fixed for the call (the stateless revision names it in each request's `_meta`).
    Fixed(LogLevel),
    /// What `logging/setLevel` last set (a `LogLevel` as `u8`, anything else for none),
    /// read at each message: a change reaches calls already running.
    Shared(Arc<AtomicU8>),
}

impl LogInner {
    fn threshold(&self) -> Option<LogLevel> {
        match &self.threshold {
            Threshold::Off => None,
            Threshold::Fixed(level) => Some(*level),
            Threshold::Shared(level) => LogLevel::from_u8(level.load(Ordering::Acquire)),
        }
    }
}

impl LogSink {
    pub(crate) fn new(
        threshold: Threshold,
        writer: Arc<Writer>,
        state: Arc<RequestState>,
    ) -> LogSink {
        LogSink {
            inner: (!matches!(threshold, Threshold::Off)).then(|| {
                Arc::new(LogInner {
                    threshold,
                    writer,
                    state,
                })
            }),
        }
    }

    pub fn disabled() -> LogSink {
        LogSink { inner: None }
    }

    /// Whether the client can get log messages during this call (it may change its level
    /// meanwhile: [`LogSink::log`] checks each message).
    pub fn may_log(&self) -> bool {
        self.inner.is_some()
    }

    /// Logs `data` under `logger` if `level` is at or above what the client asked for.
    pub fn log(&self, level: LogLevel, logger: &str, data: Value) -> bool {
        let Some(inner) = &self.inner else {
            return false;
        };
        if inner.threshold().is_none_or(|threshold| level < threshold) {
            return false;
        }
        let params = json!({ "level": level.as_str(), "logger": logger, "data": data });
        let line = notification_line("notifications/message", &params);
        inner.writer.write_line_if(&line, || inner.state.is_open())
    }
}
