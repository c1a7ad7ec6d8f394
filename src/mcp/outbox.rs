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
//! `write` or `flush`, so the protocol writer notices and shuts down quietly. So is a
//! stream that takes nothing for [`Outbox::STALL_LIMIT`] while a writer waits for room: a
//! client that has not read 64 MiB of answers in that long is gone too, and waiting on it
//! would hold every writer (and with them the reader thread) forever.
//!
//! Fast path: handing every line to the drain thread costs a thread wake-up per answer
//! (tens of µs on a busy VM, most of a `ping` round trip). When nothing is queued, the
//! writer writes the line itself, in pieces of at most [`DIRECT_PIECE`] bytes, each only
//! after a [`ReadyCheck`] says the stream takes it at once without blocking. Whatever the
//! check refuses goes to the front of the queue. While a writer holds the stream the drain
//! thread waits, so nothing can overtake the rest of a line or an earlier line.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// The `Write` end handed to the protocol writer.
pub struct Outbox {
    shared: Arc<Shared>,
}

/// Says whether `len` bytes can be written to the real stream now without blocking.
pub type ReadyCheck = Box<dyn Fn(usize) -> bool + Send + Sync>;

/// The largest piece the fast path writes at a time: a pipe with any room at all takes up
/// to `PIPE_BUF` (4096 on Linux) bytes whole, so one readiness check covers one piece.
pub const DIRECT_PIECE: usize = 4096;

struct Shared {
    state: Mutex<State>,
    /// The real stream: held by the drain thread while it writes a batch, or by a writer on
    /// the fast path (never both: `State::writing` marks who has it).
    out: Mutex<Box<dyn Write + Send>>,
    ready: Option<ReadyCheck>,
    /// The fast path's piece size ([`DIRECT_PIECE`]; smaller in tests).
    piece: usize,
    /// Signalled when bytes arrive or a fast-path writer lets go (for the drain thread).
    filled: Condvar,
    /// Signalled when bytes leave or the stream fails (for writers and flush).
    drained: Condvar,
    cap: usize,
    /// How long writers wait for room while nothing is written before giving up.
    stall_limit: Duration,
    on_failure: OnceLock<Box<dyn Fn() + Send + Sync>>,
}

#[derive(Default)]
struct State {
    chunks: VecDeque<Vec<u8>>,
    queued: usize,
    /// The stream is held: by the drain thread for a batch, or by a fast-path writer.
    writing: bool,
    failed: Option<io::ErrorKind>,
    /// When bytes last left the queue (or the queue last had room).
    moved: Option<Instant>,
}

impl Outbox {
    /// Most bytes waiting before `write` blocks (backpressure instead of unbounded memory).
    pub const DEFAULT_CAP: usize = 64 * 1024 * 1024;
    /// How long a full queue may take no bytes before the client counts as gone.
    pub const STALL_LIMIT: Duration = Duration::from_secs(30);
    /// Starts the drain thread writing into `out`.
    pub fn new(out: Box<dyn Write + Send>) -> io::Result<Outbox> {
        Outbox::with_cap(out, Outbox::DEFAULT_CAP)
    }

    pub fn with_cap(out: Box<dyn Write + Send>, cap: usize) -> io::Result<Outbox> {
        Outbox::build(out, cap, Outbox::STALL_LIMIT, None)
    }

    /// [`Outbox::with_cap`] with another stall limit (tests).
    pub fn with_cap_and_stall_limit(
        out: Box<dyn Write + Send>,
        cap: usize,
        stall_limit: Duration,
    ) -> io::Result<Outbox> {
        Outbox::build(out, cap, stall_limit, None)
    }

    /// [`Outbox::new`] with the fast path enabled by `ready`.
    pub fn with_ready_check(out: Box<dyn Write + Send>, ready: ReadyCheck) -> io::Result<Outbox> {
        Outbox::build(
            out,
            Outbox::DEFAULT_CAP,
            Outbox::STALL_LIMIT,
            Some((ready, DIRECT_PIECE)),
        )
    }

    fn build(
        out: Box<dyn Write + Send>,
        cap: usize,
        stall_limit: Duration,
        ready: Option<(ReadyCheck, usize)>,
    ) -> io::Result<Outbox> {
        let (ready, piece) = match ready {
            Some((check, piece)) => (Some(check), piece.max(1)),
            None => (None, DIRECT_PIECE),
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            out: Mutex::new(out),
            ready,
            piece,
            filled: Condvar::new(),
            drained: Condvar::new(),
            cap: cap.max(1),
            stall_limit,
            on_failure: OnceLock::new(),
        });
        let drain = shared.clone();
        std::thread::Builder::new()
            .name("zcp-stdout".into())
            .spawn(move || drain_loop(&drain))?;
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

    fn out(&self) -> MutexGuard<'_, Box<dyn Write + Send>> {
        self.out.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records the end of a write by whoever held the stream; a failure is final. `rest`
    /// (what a fast-path writer could not write) goes first in line: the drain thread has
    /// waited all along, so whatever was queued meanwhile came later.
    fn finish_write(&self, written: usize, rest: &[u8], result: io::Result<()>) {
        let mut state = self.lock();
        state.writing = false;
        // (Saturating: a stream given up on has had its count reset meanwhile.)
        state.queued = state.queued.saturating_sub(written);
        if written > 0 {
            state.moved = Some(Instant::now());
        }
        if !rest.is_empty() {
            state.chunks.push_front(rest.to_vec());
        }
        if let Err(err) = result {
            self.fail(state, err.kind());
            return;
        }
        self.drained.notify_all();
        // A fast-path writer let go: lines queued meanwhile are the drain thread's now.
        if !state.chunks.is_empty() {
            self.filled.notify_one();
        }
    }

    /// Gives the stream up: what is queued is dropped, every waiting and later write fails
    /// with `kind`, and the failure hook runs (once).
    fn fail(&self, mut state: MutexGuard<'_, State>, kind: io::ErrorKind) {
        let first = state.failed.is_none();
        if first {
            state.failed = Some(kind);
        }
        state.chunks.clear();
        state.queued = 0;
        self.drained.notify_all();
        drop(state);
        if first && let Some(hook) = self.on_failure.get() {
            hook();
        }
    }

    /// The fast path: writes `buf` in pieces while the stream takes them without blocking.
    /// The caller holds the stream (`writing`), so the drain thread waits. Returns the bytes
    /// written and the result; what was not written is left to the caller.
    fn write_directly(&self, ready: &ReadyCheck, buf: &[u8]) -> (usize, io::Result<()>) {
        let mut out = self.out();
        let mut written = 0;
        for piece in buf.chunks(self.piece) {
            if !ready(piece.len()) {
                break;
            }
            if let Err(err) = out.write_all(piece).and_then(|()| out.flush()) {
                return (written, Err(err));
            }
            written += piece.len();
        }
        (written, Ok(()))
    }
}

fn drain_loop(shared: &Shared) {
    loop {
        // Take everything waiting: one flush (one system call when `out` is buffered) per
        // batch rather than per line.
        let batch: Vec<Vec<u8>> = {
            let mut state = shared.lock();
            while state.chunks.is_empty() || state.writing {
                state = shared.filled.wait(state).unwrap_or_else(|p| p.into_inner());
            }
            state.writing = true;
            state.chunks.drain(..).collect()
        };
        let mut result = Ok(());
        {
            let mut out = shared.out();
            for chunk in &batch {
                result = out.write_all(chunk);
                if result.is_err() {
                    break;
                }
            }
            result = result.and_then(|()| out.flush());
        }
        let failed = result.is_err();
        shared.finish_write(batch.iter().map(Vec::len).sum(), &[], result);
        if failed {
            return;
        }
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
        let waiting_since = Instant::now();
        while state.failed.is_none() && state.queued > 0 && state.queued + buf.len() > shared.cap {
            let since = state.moved.map_or(waiting_since, |m| m.max(waiting_since));
            let left = shared.stall_limit.saturating_sub(since.elapsed());
            if left.is_zero() {
                crate::warn!(
                    "mcp",
                    "the client has read nothing for {} s with {} bytes waiting; giving it up",
                    shared.stall_limit.as_secs(),
                    state.queued
                );
                shared.fail(state, io::ErrorKind::TimedOut);
                return Err(io::ErrorKind::TimedOut.into());
            }
            state = shared
                .drained
                .wait_timeout(state, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        if let Some(kind) = state.failed {
            return Err(kind.into());
        }
        state.queued += buf.len();
        let ready = shared.ready.as_ref();
        if let Some(ready) = ready.filter(|_| state.chunks.is_empty() && !state.writing) {
            state.writing = true;
            drop(state);
            let (written, result) = shared.write_directly(ready, buf);
            if let Err(err) = result {
                let kind = err.kind();
                shared.finish_write(buf.len(), &[], Err(err));
                return Err(kind.into());
            }
            shared.finish_write(written, &buf[written..], Ok(()));
            return Ok(buf.len());
        }
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

/// A [`ReadyCheck`] for a pipe, terminal or file: at most `PIPE_BUF` ([`DIRECT_PIECE`])
/// bytes, which a pipe takes whole once it has any room, and `poll` (no wait) reports room.
#[cfg(unix)]
pub fn writable_now(stream: std::fs::File) -> ReadyCheck {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use std::os::fd::AsFd;
    Box::new(move |len| {
        if len > DIRECT_PIECE {
            return false;
        }
        let mut fds = [PollFd::new(stream.as_fd(), PollFlags::POLLOUT)];
        matches!(poll(&mut fds, PollTimeout::ZERO), Ok(1))
            && fds[0].revents().is_some_and(|r| {
                r.contains(PollFlags::POLLOUT)
                    && !r.intersects(PollFlags::POLLERR | PollFlags::POLLHUP)
            })
    })
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
        self.wait_until(Instant::now() + limit)
    }

    /// [`Drain::wait`] with a deadline. At the deadline the stream is given up (the
    /// process is about to exit): what is queued is dropped and writers waiting for room
    /// fail, so none of them holds the protocol writer's lock any longer.
    pub fn wait_until(&self, deadline: Instant) -> bool {
        let shared = &self.shared;
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
                shared.fail(state, io::ErrorKind::TimedOut);
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
    use crate::mcp::writer::tests::{Broken, Shared};
    use std::sync::mpsc;

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
    fn a_stream_that_takes_nothing_for_the_stall_limit_is_given_up() {
        let (release, rx) = mpsc::channel();
        let mut outbox = Outbox::with_cap_and_stall_limit(
            Box::new(Stuck(Mutex::new(rx))),
            1000,
            Duration::from_millis(200),
        )
        .unwrap();
        let (hook_tx, hook_rx) = mpsc::channel();
        outbox.drain().on_failure(Box::new(move || {
            let _ = hook_tx.send(());
        }));
        outbox.write_all(&[b'a'; 600]).unwrap();
        outbox.write_all(&[b'b'; 300]).unwrap();
        let started = Instant::now();
        // Over the cap, and the stream takes nothing: the writer is let go, with an error.
        let err = outbox.write_all(&[b'c'; 300]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= Duration::from_millis(200));
        hook_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(outbox.write_all(b"later").is_err(), "given up for good");
        drop(release);
    }

    #[test]
    fn the_final_drain_lets_a_waiting_writer_go_at_its_deadline() {
        let (release, rx) = mpsc::channel();
        let mut outbox = Outbox::with_cap(Box::new(Stuck(Mutex::new(rx))), 1000).unwrap();
        let drain = outbox.drain();
        outbox.write_all(&[b'a'; 600]).unwrap();
        outbox.write_all(&[b'b'; 300]).unwrap();
        let (done_tx, done_rx) = mpsc::channel();
        let writer = std::thread::spawn(move || {
            done_tx
                .send(outbox.write_all(&[b'c'; 300]).is_err())
                .unwrap();
        });
        assert!(
            done_rx.recv_timeout(Duration::from_millis(100)).is_err(),
            "waits for room"
        );
        assert!(!drain.wait(Duration::from_millis(100)));
        // The drain gave up at its deadline: the waiting writer fails instead of waiting on.
        assert!(done_rx.recv_timeout(Duration::from_secs(5)).unwrap());
        writer.join().unwrap();
        drop(release);
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

    #[test]
    fn the_fast_path_writes_at_once_and_keeps_the_order() {
        let sink = Shared::default();
        let mut outbox =
            Outbox::with_ready_check(Box::new(sink.clone()), Box::new(|len| len <= 8)).unwrap();
        let drain = outbox.drain();
        outbox.write_all(b"short\n").unwrap();
        // Written by this thread before write returned: no waiting for the drain thread.
        assert_eq!(sink.0.lock().unwrap().as_slice(), b"short\n");
        // Long lines take the queue; short ones behind them must not overtake them.
        for i in 0..200 {
            if i % 3 == 0 {
                writeln!(outbox, "{i:0>20}").unwrap();
            } else {
                writeln!(outbox, "{i}").unwrap();
            }
        }
        assert!(drain.wait(Duration::from_secs(10)));
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        let numbers: Vec<usize> = text.lines().skip(1).map(|l| l.parse().unwrap()).collect();
        assert_eq!(numbers, (0..200).collect::<Vec<_>>());
    }

    #[test]
    fn a_long_line_goes_out_in_pieces_and_the_queue_takes_the_rest_in_order() {
        let sink = Shared::default();
        // The stream takes three 4-byte pieces at once, then reports no room.
        let budget = Arc::new(Mutex::new(3));
        let left = budget.clone();
        let ready: ReadyCheck = Box::new(move |len| {
            let mut left = left.lock().unwrap();
            let room = len <= 4 && *left > 0;
            if room {
                *left -= 1;
            }
            room
        });
        let mut outbox = Outbox::build(
            Box::new(sink.clone()),
            1 << 20,
            Outbox::STALL_LIMIT,
            Some((ready, 4)),
        )
        .unwrap();
        let drain = outbox.drain();
        outbox.write_all(b"abcdefghijklmnopqrstuvwxyz\n").unwrap();
        // This thread wrote three pieces (the budget is spent); the drain thread the rest.
        assert_eq!(*budget.lock().unwrap(), 0);
        assert!(sink.0.lock().unwrap().starts_with(b"abcdefghijkl"));
        // Lines written meanwhile queue behind the rest of the long one.
        *budget.lock().unwrap() = 100;
        outbox.write_all(b"next\n").unwrap();
        assert!(drain.wait(Duration::from_secs(10)));
        assert_eq!(
            sink.0.lock().unwrap().as_slice(),
            b"abcdefghijklmnopqrstuvwxyz\nnext\n"
        );
    }

    #[test]
    fn the_drain_thread_waits_while_a_fast_path_writer_holds_the_stream() {
        let (release, rx) = mpsc::channel();
        let mut first =
            Outbox::with_ready_check(Box::new(Stuck(Mutex::new(rx))), Box::new(|_| true)).unwrap();
        let shared = first.shared.clone();
        let drain = first.drain();
        let mut second = Outbox {
            shared: shared.clone(),
        };
        let writer = std::thread::spawn(move || first.write_all(b"first\n"));
        while !shared.lock().writing {
            std::thread::sleep(Duration::from_millis(1));
        }
        // The first line is stuck in the stream; the second one must wait in the queue.
        // Were the drain thread to take it now, it could end up behind a later line that
        // takes the fast path once the first one is done.
        second.write_all(b"second\n").unwrap();
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(shared.lock().chunks.len(), 1);
        release.send(()).unwrap();
        writer.join().unwrap().unwrap();
        release.send(()).unwrap();
        assert!(drain.wait(Duration::from_secs(10)));
    }

    #[test]
    fn a_failed_fast_write_is_reported_and_final() {
        let mut outbox = Outbox::with_ready_check(Box::new(Broken), Box::new(|_| true)).unwrap();
        assert!(outbox.write_all(b"x\n").is_err());
        assert!(outbox.write_all(b"y\n").is_err());
        assert!(outbox.flush().is_err());
    }
}
