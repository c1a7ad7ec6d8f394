//! The single stdout writer. Every protocol line from every thread goes through one mutex,
//! so lines never interleave, and a condition can be checked under the same lock (a
//! cancelled request must not get its reply, progress must not follow a reply).
//!
//! A failed write means the client has gone (EPIPE): the writer remembers it, drops all
//! later output and tells the server once so it can shut down quietly.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

type GoneHook = Box<dyn Fn() + Send + Sync>;

/// Serialised access to the protocol stream.
pub struct Writer {
    out: Mutex<Box<dyn Write + Send>>,
    gone: AtomicBool,
    on_gone: OnceLock<GoneHook>,
}

impl Writer {
    /// Wraps a sink. Pass a buffered sink: each line is flushed after it is written.
    pub fn new(out: Box<dyn Write + Send>) -> Writer {
        Writer {
            out: Mutex::new(out),
            gone: AtomicBool::new(false),
            on_gone: OnceLock::new(),
        }
    }

    /// Registers what to do once the client is gone (first write failure).
    pub fn set_on_gone(&self, hook: GoneHook) {
        let _ = self.on_gone.set(hook);
    }

    /// True once a write has failed.
    pub fn is_gone(&self) -> bool {
        self.gone.load(Ordering::Acquire)
    }

    /// Writes one line (a newline is appended) and flushes.
    pub fn write_line(&self, line: &[u8]) {
        self.write_line_if(line, || true);
    }

    /// Writes one line only if `allowed` still holds while the lock is held. Returns
    /// whether the line was written.
    pub fn write_line_if(&self, line: &[u8], allowed: impl FnOnce() -> bool) -> bool {
        let mut out = self.lock();
        if self.is_gone() || !allowed() {
            return false;
        }
        // The line goes out in one write with its newline, so the stdout queue's fast
        // path (outbox.rs) needs no second readiness check and write for the newline.
        let mut whole = Vec::with_capacity(line.len() + 1);
        whole.extend_from_slice(line);
        whole.push(b'\n');
        let result = out.write_all(&whole).and_then(|()| out.flush());
        drop(out);
        match result {
            Ok(()) => true,
            Err(err) => {
                self.mark_gone(&err);
                false
            }
        }
    }

    /// Flushes whatever is buffered and keeps the lock, so nothing else is written until
    /// the guard is dropped (used right before the process exits).
    pub fn flush_and_hold(&self) -> MutexGuard<'_, Box<dyn Write + Send>> {
        let mut out = self.lock();
        if out.flush().is_err() {
            self.gone.store(true, Ordering::Release);
        }
        out
    }

    fn lock(&self) -> MutexGuard<'_, Box<dyn Write + Send>> {
        // A panic while holding the lock cannot leave a half-written line that matters more
        // than serving on, so a poisoned lock is simply taken over.
        self.out
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Marks the client gone from outside a write (the stdout queue found the pipe
    /// closed), so the server shuts down without waiting for its next line.
    pub fn report_gone(&self) {
        self.mark_gone(&io::ErrorKind::BrokenPipe.into());
    }

    fn mark_gone(&self, err: &io::Error) {
        if !self.gone.swap(true, Ordering::AcqRel) {
            crate::debug!("mcp", "stdout closed ({err}); the client is gone");
            if let Some(hook) = self.on_gone.get() {
                hook();
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    /// A sink that shares its bytes with the test.
    #[derive(Clone, Default)]
    pub struct Shared(pub Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A sink whose reader is gone.
    pub struct Broken;
    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_are_written_whole_and_conditions_respected() {
        let sink = Shared::default();
        let writer = Writer::new(Box::new(sink.clone()));
        writer.write_line(b"{\"a\":1}");
        assert!(!writer.write_line_if(b"skipped", || false));
        writer.write_line(b"{\"b\":2}");
        assert_eq!(sink.0.lock().unwrap().as_slice(), b"{\"a\":1}\n{\"b\":2}\n");
    }

    #[test]
    fn a_broken_pipe_fires_the_hook_once_and_drops_later_lines() {
        let calls = Arc::new(AtomicUsize::new(0));
        let writer = Writer::new(Box::new(Broken));
        let counter = calls.clone();
        writer.set_on_gone(Box::new(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        }));
        writer.write_line(b"x");
        writer.write_line(b"y");
        assert!(writer.is_gone());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }
}
