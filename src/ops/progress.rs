//! Following long-running platform work (processes, builds) with progress reports.
//! Knows nothing of MCP: progress goes to a callback, cancellation comes as a token.
//!
//! The rules, each learned from a real failure:
//! * only PENDING and RUNNING mean "keep polling": any other status ends the wait, so a
//!   status nobody has seen before cannot make us poll for ten minutes;
//! * a progress report is sent only when another poll will follow a full interval later,
//!   so the last report always precedes the final answer by at least one interval (a
//!   report arriving in the same read as the answer makes a popular client drop the
//!   connection);
//! * waiting is interruptible: cancellation ends a wait at once, not after the interval.

use std::time::{Duration, Instant};

use crate::cancel::CancelToken;

/// Polling cadence and limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PollConfig {
    /// Interval during the first `slow_after`.
    pub fast_interval: Duration,
    /// Interval afterwards, to spare the API on slow work.
    pub slow_interval: Duration,
    pub slow_after: Duration,
    /// The longest we follow anything when the client asked for progress.
    pub max_wait: Duration,
    /// The longest we follow without a progress token: inside the ~60 s request timeout
    /// that common clients apply.
    pub untracked_budget: Duration,
}

impl Default for PollConfig {
    fn default() -> PollConfig {
        PollConfig {
            fast_interval: Duration::from_secs(2),
            slow_interval: Duration::from_secs(5),
            slow_after: Duration::from_secs(30),
            max_wait: Duration::from_secs(600),
            untracked_budget: Duration::from_secs(50),
        }
    }
}

impl PollConfig {
    /// Defaults, with millisecond overrides from `ZCP_POLL_FAST_MS`, `ZCP_POLL_SLOW_MS`,
    /// `ZCP_POLL_SLOW_AFTER_MS`, `ZCP_POLL_MAX_MS` and `ZCP_POLL_BUDGET_MS` (used by tests
    /// and the demo to keep runs short).
    pub fn from_env() -> PollConfig {
        let read = |name: &str, default: Duration| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map_or(default, Duration::from_millis)
        };
        let d = PollConfig::default();
        PollConfig {
            fast_interval: read("ZCP_POLL_FAST_MS", d.fast_interval),
            slow_interval: read("ZCP_POLL_SLOW_MS", d.slow_interval),
            slow_after: read("ZCP_POLL_SLOW_AFTER_MS", d.slow_after),
            max_wait: read("ZCP_POLL_MAX_MS", d.max_wait),
            untracked_budget: read("ZCP_POLL_BUDGET_MS", d.untracked_budget),
        }
    }

    fn interval_at(&self, elapsed: Duration) -> Duration {
        if elapsed < self.slow_after {
            self.fast_interval
        } else {
            self.slow_interval
        }
    }
}

/// True while a process status means the work is not over yet. A process that is rolling
/// back or being canceled has not ended: following it on reports its real outcome instead
/// of an early success. Unknown statuses count as ended, so a new one cannot poll forever.
pub fn process_in_progress(status: &str) -> bool {
    matches!(
        status.to_ascii_uppercase().as_str(),
        "PENDING" | "RUNNING" | "ROLLBACKING" | "CANCELING"
    )
}

/// How far along (0-99, of 100) work of unknown length looks after `elapsed`, when it may
/// take up to `limit`: quick at first and slower later (a tenth of `limit` reads as 50%),
/// so a client's progress bar moves for a four-second restart and for a long build alike.
/// Never 100: only the answer says the work is done. (`t / (t + s)` rather than an
/// exponential: the same shape without the maths library in the binary.)
pub fn eased_percent(elapsed: Duration, limit: Duration) -> f64 {
    let scale = (limit.as_secs_f64() / 10.0).max(0.001);
    let t = elapsed.as_secs_f64();
    let value = 100.0 * t / (t + scale);
    ((value * 1000.0).round() / 1000.0).min(99.0)
}

/// Receives progress: `(progress, total, message)`, progress strictly increasing.
pub type ProgressFn<'a> = &'a mut dyn FnMut(f64, f64, &str);

/// What [`Poller::wait_next`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Poll again now.
    Poll,
    /// The time budget is spent; the work is still going on.
    OutOfTime,
    /// Cancelled while waiting.
    Cancelled,
}

/// How a follow ended, for the result the agent sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The work reached a terminal status.
    Finished,
    /// We stopped following (no progress token, or the hard cap) while it still runs.
    StillRunning { hard_cap: bool },
    /// The request was cancelled.
    Cancelled,
}

/// Paces one follow: decides whether to poll again, reports progress, sleeps.
pub struct Poller<'a> {
    config: PollConfig,
    cancel: &'a CancelToken,
    progress: Option<ProgressFn<'a>>,
    started: Instant,
    budget: Duration,
    last_reported: f64,
}

impl<'a> Poller<'a> {
    /// `progress: Some` when the client asked for progress: the follow may then last up to
    /// `max_wait`; otherwise it lasts up to `untracked_budget`.
    pub fn new(
        config: PollConfig,
        cancel: &'a CancelToken,
        progress: Option<ProgressFn<'a>>,
    ) -> Poller<'a> {
        let budget = if progress.is_some() {
            config.max_wait
        } else {
            config.untracked_budget.min(config.max_wait)
        };
        Poller {
            config,
            cancel,
            progress,
            started: Instant::now(),
            budget,
            last_reported: 0.0,
        }
    }

    /// The same poller with its clock (budget, cadence, progress) started at `started`.
    pub fn started_at(mut self, started: Instant) -> Poller<'a> {
        self.started = started;
        self
    }

    /// Time since the follow started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Whether running out of time means the hard cap (rather than the untracked budget).
    pub fn budget_is_hard_cap(&self) -> bool {
        self.budget >= self.config.max_wait
    }

    /// Call after a poll found the work still in progress. Reports `status` (only because
    /// another poll will follow), then sleeps one interval.
    pub fn wait_next(&mut self, status: &str) -> Next {
        let elapsed = self.started.elapsed();
        let interval = self.config.interval_at(elapsed);
        if self.cancel.is_cancelled() {
            return Next::Cancelled;
        }
        if elapsed + interval > self.budget {
            return Next::OutOfTime;
        }
        if let Some(report) = self.progress.as_mut() {
            let mut value = eased_percent(elapsed, self.config.max_wait);
            if value <= self.last_reported {
                value = self.last_reported + 0.001;
            }
            self.last_reported = value;
            report(
                value,
                100.0,
                &format!("{status} ({}s elapsed)", elapsed.as_secs()),
            );
        }
        if self.cancel.wait_timeout(interval) {
            return Next::Cancelled;
        }
        Next::Poll
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fast() -> PollConfig {
        PollConfig {
            fast_interval: Duration::from_millis(5),
            slow_interval: Duration::from_millis(10),
            slow_after: Duration::from_millis(20),
            max_wait: Duration::from_millis(400),
            untracked_budget: Duration::from_millis(60),
        }
    }

    /// Follows a scripted sequence of statuses the way tools do.
    fn follow(
        statuses: &[&str],
        with_progress: bool,
        cancel: &CancelToken,
    ) -> (Ending, usize, Vec<(f64, String)>) {
        let mut reports = Vec::new();
        let mut record = |p: f64, _t: f64, m: &str| reports.push((p, m.to_owned()));
        let progress: Option<ProgressFn<'_>> = if with_progress {
            Some(&mut record)
        } else {
            None
        };
        let mut polls = 0;
        let ending = {
            let mut poller = Poller::new(fast(), cancel, progress);
            loop {
                let status = statuses[polls.min(statuses.len() - 1)];
                polls += 1;
                if !process_in_progress(status) {
                    break Ending::Finished;
                }
                match poller.wait_next(status) {
                    Next::Poll => continue,
                    Next::OutOfTime => {
                        break Ending::StillRunning {
                            hard_cap: poller.budget_is_hard_cap(),
                        };
                    }
                    Next::Cancelled => break Ending::Cancelled,
                }
            }
        };
        (ending, polls, reports)
    }

    #[test]
    fn unfinished_statuses_keep_the_poll_going() {
        for status in ["PENDING", "running", "ROLLBACKING", "CANCELING"] {
            assert!(process_in_progress(status), "{status}");
        }
        for status in ["FINISHED", "FAILED", "CANCELED", "SOMETHING_NEW", ""] {
            assert!(!process_in_progress(status), "{status}");
        }
        let (ending, polls, _) = follow(&["PENDING", "SOMETHING_NEW"], true, &CancelToken::new());
        assert_eq!((ending, polls), (Ending::Finished, 2));
        // A rollback is followed to its end.
        let (ending, polls, _) = follow(
            &["RUNNING", "ROLLBACKING", "ROLLBACKING", "FAILED"],
            true,
            &CancelToken::new(),
        );
        assert_eq!((ending, polls), (Ending::Finished, 4));
    }

    #[test]
    fn eased_progress_moves_early_and_never_reaches_the_end() {
        let limit = Duration::from_secs(600);
        let at = |secs: u64| eased_percent(Duration::from_secs(secs), limit);
        assert!(at(4) > 5.0, "a short restart moves the bar: {}", at(4));
        assert_eq!(at(60), 50.0);
        let values: Vec<f64> = [0, 1, 4, 30, 60, 300, 600, 6000].map(at).to_vec();
        assert!(values.windows(2).all(|w| w[0] <= w[1]), "{values:?}");
        assert!(values.iter().all(|v| *v < 100.0), "{values:?}");
    }

    #[test]
    fn progress_is_reported_only_between_polls_and_increases() {
        let (ending, polls, reports) = follow(
            &["PENDING", "RUNNING", "RUNNING", "FINISHED"],
            true,
            &CancelToken::new(),
        );
        assert_eq!(ending, Ending::Finished);
        assert_eq!(polls, 4);
        // Three polls found work in progress, so exactly three reports, none for the last.
        assert_eq!(reports.len(), 3);
        assert!(reports.windows(2).all(|w| w[1].0 > w[0].0));
        assert!(reports[0].1.starts_with("PENDING"));
    }

    #[test]
    fn without_progress_the_follow_stops_at_the_budget() {
        let (ending, _, reports) = follow(&["RUNNING"], false, &CancelToken::new());
        assert_eq!(ending, Ending::StillRunning { hard_cap: false });
        assert!(reports.is_empty());
        let (ending, _, reports) = follow(&["RUNNING"], true, &CancelToken::new());
        assert_eq!(ending, Ending::StillRunning { hard_cap: true });
        assert!(!reports.is_empty());
    }

    #[test]
    fn cancellation_ends_the_wait() {
        let cancel = CancelToken::new();
        cancel.cancel();
        let (ending, polls, _) = follow(&["RUNNING"], true, &cancel);
        assert_eq!((ending, polls), (Ending::Cancelled, 1));
    }
}
