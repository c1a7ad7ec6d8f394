//! The table of requests that are running or queued: id → cancellation and bookkeeping.
//!
//! A request's entry lives from dispatch until its reply is written (or suppressed). The
//! `finished` flag closes the request for progress: once it is set under the writer lock,
//! no progress line for it can follow its reply.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::cancel::CancelToken;

use super::jsonrpc::RequestId;

/// State shared by the dispatcher, the handler and the writer for one request.
#[derive(Default)]
pub struct RequestState {
    pub cancel: CancelToken,
    finished: AtomicBool,
}

impl RequestState {
    /// Whether the request may still write: not cancelled, reply not yet sent.
    pub fn is_open(&self) -> bool {
        !self.cancel.is_cancelled() && !self.finished.load(Ordering::Acquire)
    }

    /// Marks the reply as sent (call under the writer lock).
    pub fn finish(&self) {
        self.finished.store(true, Ordering::Release);
    }
}

/// Every running request under its id. A client may reuse an id while an earlier request
/// with it still runs; each keeps its own entry, so the end-of-input grace waits for both
/// and a shutdown cancels both (one entry per id once let the older request outlive them).
#[derive(Default)]
pub struct Inflight {
    table: Mutex<HashMap<RequestId, Vec<Arc<RequestState>>>>,
}

impl Inflight {
    fn table(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Vec<Arc<RequestState>>>> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers a request (beside any still running under the same id).
    pub fn register(&self, id: &RequestId) -> Arc<RequestState> {
        let state = Arc::new(RequestState::default());
        self.table()
            .entry(id.clone())
            .or_default()
            .push(state.clone());
        state
    }

    /// Removes the entry if it is still this request's.
    pub fn remove(&self, id: &RequestId, state: &Arc<RequestState>) {
        let mut table = self.table();
        if let Some(states) = table.get_mut(id) {
            states.retain(|current| !Arc::ptr_eq(current, state));
            if states.is_empty() {
                table.remove(id);
            }
        }
    }

    /// Cancels every running request with this id; false if there is none.
    pub fn cancel(&self, id: &RequestId) -> bool {
        let states = self.table().get(id).cloned().unwrap_or_default();
        for state in &states {
            state.cancel.cancel();
        }
        !states.is_empty()
    }

    /// Cancels everything (end of input after the grace period, signals).
    pub fn cancel_all(&self) {
        let states: Vec<_> = self.table().values().flatten().cloned().collect();
        for state in states {
            state.cancel.cancel();
        }
    }

    pub fn len(&self) -> usize {
        self.table().values().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn register_cancel_and_remove() {
        let inflight = Inflight::default();
        let id = RequestId::from_value(&json!(7)).unwrap();
        let other = RequestId::from_value(&json!("7")).unwrap();
        let state = inflight.register(&id);
        assert!(state.is_open());
        assert!(!inflight.cancel(&other), "\"7\" and 7 are different ids");
        assert!(inflight.cancel(&id));
        assert!(!state.is_open());
        inflight.remove(&id, &state);
        assert!(inflight.is_empty());
    }

    #[test]
    fn a_reused_id_is_not_removed_by_the_older_request() {
        let inflight = Inflight::default();
        let id = RequestId::from_value(&json!(1)).unwrap();
        let first = inflight.register(&id);
        let second = inflight.register(&id);
        inflight.remove(&id, &first);
        assert_eq!(inflight.len(), 1);
        inflight.remove(&id, &second);
        assert!(inflight.is_empty());
    }

    /// Found by fuzzing the framer and dispatcher: with one entry per id, the second
    /// request hid the first, so end of input neither waited for nor cancelled it and its
    /// reply could come after the server had stopped.
    #[test]
    fn a_reused_id_keeps_both_requests_tracked_and_cancellable() {
        let inflight = Inflight::default();
        let id = RequestId::from_value(&json!(1)).unwrap();
        let first = inflight.register(&id);
        let second = inflight.register(&id);
        assert_eq!(inflight.len(), 2);
        inflight.remove(&id, &second);
        assert_eq!(inflight.len(), 1, "the first is still running");
        inflight.cancel_all();
        assert!(!first.is_open());
        let third = inflight.register(&id);
        assert!(inflight.cancel(&id));
        assert!(!third.is_open());
        inflight.remove(&id, &first);
        inflight.remove(&id, &third);
        assert!(inflight.is_empty());
    }
}
