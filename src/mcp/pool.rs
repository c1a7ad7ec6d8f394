//! A small worker pool for requests that may block (tool calls, resource reads).
//!
//! Threads are started on demand, up to the configured size, so a server that only answers
//! `initialize` and `tools/list` never starts one. Jobs beyond the pool size wait in a
//! queue; the reader thread does not wait for a worker, unless the requests waiting in the
//! queue add up to [`Pool::QUEUE_BYTES`]: then it waits for room, so a client that keeps
//! sending while nothing finishes (its answers unread, say) cannot grow memory without end.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

type Job = Box<dyn FnOnce() + Send + 'static>;

/// A bounded set of named worker threads fed from one queue.
pub struct Pool {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    work: Condvar,
    /// Signalled when a queued job is taken (room for a waiting `execute_sized`).
    room: Condvar,
    queue_bytes: usize,
    max_threads: usize,
    /// Whether a worker is lingering for the next job.
    lingering: AtomicBool,
}

#[derive(Default)]
struct State {
    jobs: VecDeque<(usize, Job)>,
    /// The sizes of the queued jobs' requests, summed.
    queued_bytes: usize,
    threads: usize,
    idle: usize,
}

impl Pool {
    /// Most request bytes queued before `execute_sized` waits for room.
    pub const QUEUE_BYTES: usize = 256 * 1024 * 1024;

    pub fn new(max_threads: usize) -> Pool {
        Pool::with_queue_bytes(max_threads, Pool::QUEUE_BYTES)
    }

    pub fn with_queue_bytes(max_threads: usize, queue_bytes: usize) -> Pool {
        Pool {
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                work: Condvar::new(),
                room: Condvar::new(),
                queue_bytes: queue_bytes.max(1),
                max_threads: max_threads.max(1),
                lingering: AtomicBool::new(false),
            }),
        }
    }

    /// Queues a job that holds no request bytes (tests).
    #[cfg(test)]
    pub fn execute(&self, job: impl FnOnce() + Send + 'static) {
        self.execute_sized(0, job);
    }

    /// Queues a job that holds a request of `bytes`, starting a worker if none is idle and
    /// the pool is not full. Waits while the queue holds [`Pool::QUEUE_BYTES`] (a job is
    /// always taken into an empty queue).
    pub fn execute_sized(&self, bytes: usize, job: impl FnOnce() + Send + 'static) {
        let mut state = self.shared.state.lock().unwrap_or_else(|p| p.into_inner());
        while state.queued_bytes > 0 && state.queued_bytes + bytes > self.shared.queue_bytes {
            state = self
                .shared
                .room
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
        }
        state.queued_bytes += bytes;
        state.jobs.push_back((bytes, Box::new(job)));
        // Every idle worker will take one queued job, and so will a lingering one (without
        // being woken; the flag is only cleared under this lock, so it cannot stop lingering
        // unseen in between); start a thread for each job beyond that (a woken worker does
        // not leave the idle count until it runs).
        let lingering = usize::from(self.shared.lingering.load(Ordering::Acquire));
        if state.jobs.len() > state.idle + lingering && state.threads < self.shared.max_threads {
            let number = state.threads + 1;
            let shared = self.shared.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("zcp-worker-{number}"))
                .spawn(move || worker(&shared));
            match spawned {
                Ok(_) => state.threads += 1,
                Err(err) => crate::error!("mcp", "cannot start a worker thread: {err}"),
            }
        }
        if state.idle > 0 && state.jobs.len() > lingering {
            self.shared.work.notify_one();
        }
    }
}

/// How long a worker that just finished keeps looking for the next job before it sleeps.
/// A client that sends its next request as soon as it has the answer (the usual pattern)
/// then gets it picked up without a futex wake-up, which costs tens of µs on a busy VM.
const LINGER: Duration = Duration::from_micros(100);

fn worker(shared: &Shared) {
    loop {
        let job = {
            let mut state = linger(shared);
            loop {
                if let Some((bytes, job)) = state.jobs.pop_front() {
                    state.queued_bytes -= bytes;
                    if bytes > 0 {
                        shared.room.notify_all();
                    }
                    break job;
                }
                state.idle += 1;
                state = shared.work.wait(state).unwrap_or_else(|p| p.into_inner());
                state.idle -= 1;
            }
        };
        // Jobs catch their own panics; this guard only keeps the worker alive if one slips.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
    }
}

/// Polls the queue for [`LINGER`] (one worker at a time, so an idle pool never burns more
/// than one core), then returns the locked state for the normal wait.
fn linger(shared: &Shared) -> MutexGuard<'_, State> {
    let lock = || shared.state.lock().unwrap_or_else(|p| p.into_inner());
    if shared.lingering.swap(true, Ordering::AcqRel) {
        return lock();
    }
    let until = Instant::now() + LINGER;
    loop {
        let state = lock();
        if !state.jobs.is_empty() || Instant::now() >= until {
            shared.lingering.store(false, Ordering::Release);
            return state;
        }
        drop(state);
        std::hint::spin_loop();
        std::thread::yield_now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn runs_jobs_concurrently_up_to_the_limit() {
        let pool = Pool::new(4);
        let (tx, rx) = mpsc::channel();
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        for i in 0..4 {
            let tx = tx.clone();
            let gate = gate.clone();
            pool.execute(move || {
                tx.send(("started", i)).unwrap();
                let (lock, cv) = &*gate;
                let mut open = lock.lock().unwrap();
                while !*open {
                    open = cv.wait(open).unwrap();
                }
                tx.send(("done", i)).unwrap();
            });
        }
        // All four start although none has finished: they run in parallel.
        for _ in 0..4 {
            let (what, _) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
            assert_eq!(what, "started");
        }
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        for _ in 0..4 {
            assert_eq!(rx.recv_timeout(Duration::from_secs(10)).unwrap().0, "done");
        }
    }

    #[test]
    fn jobs_queued_in_a_burst_get_their_own_threads() {
        let pool = Pool::new(8);
        // Let one worker exist and go idle first.
        let (tx, rx) = mpsc::channel();
        let first = tx.clone();
        pool.execute(move || first.send(()).unwrap());
        rx.recv_timeout(Duration::from_secs(10)).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let barrier = Arc::new(std::sync::Barrier::new(8));
        for _ in 0..8 {
            let barrier = barrier.clone();
            let tx = tx.clone();
            pool.execute(move || {
                // Only returns once all eight run at the same time.
                barrier.wait();
                tx.send(()).unwrap();
            });
        }
        for _ in 0..8 {
            rx.recv_timeout(Duration::from_secs(10))
                .expect("all eight ran concurrently");
        }
    }

    #[test]
    fn a_full_queue_makes_the_submitter_wait_for_room() {
        let pool = Arc::new(Pool::with_queue_bytes(1, 100));
        let (release, gate) = mpsc::channel::<()>();
        let gate = Arc::new(Mutex::new(gate));
        // The only worker is busy; two jobs of 60 bytes cannot both wait in the queue.
        let busy = gate.clone();
        pool.execute(move || {
            let _ = busy.lock().unwrap().recv();
        });
        let (ran, ran_rx) = mpsc::channel();
        let first = ran.clone();
        pool.execute_sized(60, move || first.send(1).unwrap());
        let (queued, queued_rx) = mpsc::channel();
        let submitter = {
            let pool = pool.clone();
            std::thread::spawn(move || {
                pool.execute_sized(60, move || ran.send(2).unwrap());
                queued.send(()).unwrap();
            })
        };
        assert!(
            queued_rx.recv_timeout(Duration::from_millis(200)).is_err(),
            "the second job waits for room"
        );
        release.send(()).unwrap();
        queued_rx.recv_timeout(Duration::from_secs(10)).unwrap();
        submitter.join().unwrap();
        assert_eq!(ran_rx.recv_timeout(Duration::from_secs(10)).unwrap(), 1);
        assert_eq!(ran_rx.recv_timeout(Duration::from_secs(10)).unwrap(), 2);
    }

    #[test]
    fn a_panicking_job_does_not_kill_the_pool() {
        let pool = Pool::new(1);
        pool.execute(|| panic!("boom"));
        let (tx, rx) = mpsc::channel();
        pool.execute(move || tx.send(1).unwrap());
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)).unwrap(), 1);
    }
}
