//! A cancellation flag that can also be waited on, shared by the MCP engine (which sets it
//! on `notifications/cancelled`, end of input or a signal) and the business logic (which
//! sleeps on it between polls, so a cancel ends a wait at once instead of after it).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Cheap to clone; all clones share one flag.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    cancelled: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
}

impl CancelToken {
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Sets the flag and wakes every waiter. Idempotent.
    pub fn cancel(&self) {
        let _guard = self.inner.lock.lock().unwrap_or_else(|p| p.into_inner());
        self.inner.cancelled.store(true, Ordering::Release);
        self.inner.wake.notify_all();
    }

    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Acquire)
    }

    /// Sleeps up to `duration`, returning early (with `true`) once cancelled.
    pub fn wait_timeout(&self, duration: Duration) -> bool {
        let deadline = Instant::now() + duration;
        let mut guard = self.inner.lock.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if self.is_cancelled() {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            guard = match self.inner.wake.wait_timeout(guard, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_returns_false_after_timeout_and_true_once_cancelled() {
        let token = CancelToken::new();
        assert!(!token.wait_timeout(Duration::from_millis(5)));
        let other = token.clone();
        let waiter = std::thread::spawn(move || other.wait_timeout(Duration::from_secs(30)));
        token.cancel();
        assert!(waiter.join().unwrap());
        assert!(token.is_cancelled());
        assert!(token.wait_timeout(Duration::from_secs(30)));
    }
}
