//! A queue in front of the real stdout, drained by its own thread.
//!
//! Why: the reader thread answers cheap requests itself. If the client stops reading
//! stdout, a direct write blocks once the pipe is full, the reader stops reading stdin and
//! never sees its end, and the process hangs after the client has closed stdin. With the
//! queue, writes return at once (until [`Outbox::DEFAULT_CAP`] bytes are waiting, which
//! bounds memory), the reader keeps reading, and the final drain gives up after a deadline
//! instead of waiting for a client that will never read.
//!
//! A failed write to the real stream (EPIPE: the client is gone) is reported by the next
//! `write` or `flush`, so the protocol writer notices and shuts down quietly.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// The `Write` end handed to the protocol writer.
pub struct Outbox {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled when bytes arrive (for the drain thread).
    filled: Condvar,
    /// Signalled when bytes leave or the stream fails (for writers and flush).
    drained: Condvar,
    cap: usize,
    on_failure: OnceLock<Box<dyn Fn() + Send + Sync>>,
}

#[derive(Default)]
struct State {
    chunks: VecDeque<Vec<u8>>,
    queued: usize,
    /// A chunk taken by the drain thread and not yet fully written.
    writing: bool,
    failed: Option<io::ErrorKind>,
}

impl Outbox {
    /// Most bytes waiting before `write` blocks (backpressure instead of unbounded memory).
    pub const DEFAULT_CAP: usize = 64 * 1024 * 1024;
    /// Starts the drain thread writing into `out`.
    pub fn new(out: Box<dyn Write + Send>) -> io::Result<Outbox> {
        Outbox::with_cap(out, Outbox::DEFAULT_CAP)
    }

    pub fn with_cap(out: Box<dyn Write + Send>, cap: usize) -> io::Result<Outbox> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            filled: Condvar::new(),
            drained: Condvar::new(),
            cap: cap.max(1),
            on_failure: OnceLock::new(),
        });
        let drain = shared.clone();
        std::thread::Builder::new()
            .name("zcp-stdout".into())
            .spawn(move || drain_loop(&drain, out))?;
        Ok(Outbox { shared })
    }

    /// A handle that can wait for the queue to empty after the outbox was handed on.
    pub fn drain(&self) -> Drain {
        Drain {
            shared: self.shared.clone(),
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn drain_loop(shared: &Shared, mut out: Box<dyn Write + Send>) {
    loop {
        // Take everything waiting: one flush (one system call when `out` is buffered) per
        // batch rather than per line.
        let batch: Vec<Vec<u8>> = {
            let mut state = shared.lock();
            while state.chunks.is_empty() {
                state = shared.filled.wait(state).unwrap_or_else(|p| p.into_inner());
            }
            state.writing = true;
            state.chunks.drain(..).collect()
        };
        let mut result = Ok(());
        for chunk in &batch {
            result = out.write_all(chunk);
            if result.is_err() {
                break;
            }
        }
        let result = result.and_then(|()| out.flush());
        let mut state = shared.lock();
        state.writing = false;
        state.queued -= batch.iter().map(Vec::len).sum::<usize>();
        if let Err(err) = result {
            state.failed = Some(err.kind());
            state.chunks.clear();
            state.queued = 0;
            shared.drained.notify_all();
            drop(state);
            if let Some(hook) = shared.on_failure.get() {
                hook();
            }
            return;
        }
        shared.drained.notify_all();
    }
}

impl Write for Outbox {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let shared = &self.shared;
        let mut state = shared.lock();
        // Wait for room, but always accept into an empty queue (a line longer than the cap).
        while state.failed.is_none() && state.queued > 0 && state.queued + buf.len() > shared.cap {
            state = shared
                .drained
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
        }
        if let Some(kind) = state.failed {
            return Err(kind.into());
        }
        state.queued += buf.len();
        state.chunks.push_back(buf.to_vec());
        shared.filled.notify_one();
        Ok(buf.len())
    }

    /// Does not wait (the drain thread writes as soon as it can); reports a failed stream.
    /// Waiting for the queue to empty is [`Drain::wait`], once, before exit.
    fn flush(&mut self) -> io::Result<()> {
        match self.shared.lock().failed {
            Some(kind) => Err(kind.into()),
            None => Ok(()),
        }
    }
}

/// A handle on an [`Outbox`] after it was handed on: its failure hook and its final drain.
pub struct Drain {
    shared: Arc<Shared>,
}

impl Drain {
    /// Sets what the drain thread calls once when writing to the real stream fails.
    pub fn on_failure(&self, hook: Box<dyn Fn() + Send + Sync>) {
        let _ = self.shared.on_failure.set(hook);
    }

    /// Waits until everything queued has been written, the stream failed, or `limit`
    /// passed. Returns whether everything was written.
    pub fn wait(&self, limit: Duration) -> bool {
        let shared = &self.shared;
        let deadline = Instant::now() + limit;
        let mut state = shared.lock();
        loop {
            if state.failed.is_some() {
                return false;
            }
            if state.chunks.is_empty() && !state.writing {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = shared
                .drained
                .wait_timeout(state, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// A sink that shares its bytes with the test.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A sink that blocks every write until the test lets it go.
    struct Stuck(Mutex<mpsc::Receiver<()>>);
    impl Write for Stuck {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let _ = self.0.lock().unwrap().recv();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    struct Broken;
    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn bytes_arrive_in_order_and_flush_waits_for_them() {
        let sink = Shared::default();
        let mut outbox = Outbox::new(Box::new(sink.clone())).unwrap();
        let drain = outbox.drain();
        for i in 0..1000 {
            writeln!(outbox, "{i}").unwrap();
            outbox.flush().unwrap();
        }
        assert!(drain.wait(Duration::from_secs(10)));
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        let numbers: Vec<usize> = text.lines().map(|l| l.parse().unwrap()).collect();
        assert_eq!(numbers, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn a_stuck_reader_does_not_block_writes_and_the_drain_gives_up() {
        let (release, rx) = mpsc::channel();
        let mut outbox = Outbox::with_cap(Box::new(Stuck(Mutex::new(rx))), 1024 * 1024).unwrap();
        let drain = outbox.drain();
        // Far more than a pipe holds; none of it can be written.
        for _ in 0..1000 {
            outbox.write_all(&[b'x'; 512]).unwrap();
            outbox.flush().unwrap();
        }
        let started = Instant::now();
        assert!(!drain.wait(Duration::from_millis(50)));
        assert!(started.elapsed() < Duration::from_secs(5));
        drop(release);
    }

    #[test]
    fn the_cap_applies_backpressure() {
        let (release, rx) = mpsc::channel();
        let mut outbox = Outbox::with_cap(Box::new(Stuck(Mutex::new(rx))), 1000).unwrap();
        outbox.write_all(&[b'a'; 600]).unwrap();
        outbox.write_all(&[b'b'; 300]).unwrap();
        let (done_tx, done_rx) = mpsc::channel();
        let writer = std::thread::spawn(move || {
            outbox.write_all(&[b'c'; 300]).unwrap();
            done_tx.send(()).unwrap();
        });
        // Over the cap: the write waits until the drain thread takes a chunk.
        assert!(done_rx.recv_timeout(Duration::from_millis(100)).is_err());
        release.send(()).unwrap();
        release.send(()).unwrap();
        done_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        drop(release);
        writer.join().unwrap();
    }

    #[test]
    fn a_broken_stream_is_reported_by_the_next_write_or_flush() {
        let mut outbox = Outbox::new(Box::new(Broken)).unwrap();
        outbox.write_all(b"first\n").unwrap();
        assert!(!outbox.drain().wait(Duration::from_secs(5)));
        let err = outbox.flush().unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(
            outbox.write_all(b"second\n").unwrap_err().kind(),
            io::ErrorKind::BrokenPipe
        );
    }
}
