//! Following processes to their end with the [`Poller`]: one process, or several at once
//! (an import starts one per service). A transient API error while polling is tolerated a
//! few times; the last known state is kept. Knows nothing of MCP.

use crate::cancel::CancelToken;
use crate::platform::{Client, PlatformError, Process};

use super::progress::{Ending, Next, PollConfig, Poller, process_in_progress};

/// A progress callback owned by a follow.
pub type ProgressBox<'a> = Box<dyn FnMut(f64, f64, &str) + 'a>;

/// How to follow: cadence, cancellation and (when the client asked) a progress sink.
pub struct Follow<'a> {
    pub config: PollConfig,
    pub cancel: &'a CancelToken,
    pub progress: Option<ProgressBox<'a>>,
    /// Where a line of a long operation's own output goes as it happens (zcli's output
    /// during a deploy), when the client listens.
    pub log: Option<LogBox<'a>>,
    /// When the call began: every poller of one call spends one time budget (a wait for
    /// another process, then the call's own, must not take the budget twice).
    begun: std::time::Instant,
}

/// A sink for output lines.
pub type LogBox<'a> = Box<dyn FnMut(&str) + 'a>;

impl<'a> Follow<'a> {
    pub fn new(
        config: PollConfig,
        cancel: &'a CancelToken,
        progress: Option<ProgressBox<'a>>,
    ) -> Follow<'a> {
        Follow {
            config,
            cancel,
            progress,
            log: None,
            begun: std::time::Instant::now(),
        }
    }

    /// The same follow, with output lines sent to `log`.
    pub fn with_log(mut self, log: Option<LogBox<'a>>) -> Follow<'a> {
        self.log = log;
        self
    }

    /// A poller for one follow, on the call's budget.
    pub fn poller(&mut self) -> Poller<'_> {
        let progress = self
            .progress
            .as_deref_mut()
            .map(|f| f as &mut dyn FnMut(f64, f64, &str));
        Poller::new(self.config, self.cancel, progress).started_at(self.begun)
    }
}

/// How many consecutive transient failures a follow survives.
const TOLERATED_POLL_FAILURES: u32 = 3;

/// Follows one process from its initial state.
pub fn follow_process(
    client: &dyn Client,
    initial: Process,
    follow: &mut Follow<'_>,
) -> Result<(Process, Ending), PlatformError> {
    let mut results = follow_processes(client, vec![initial], follow)?;
    Ok(results.remove(0))
}

/// Follows several processes until all are over (or time runs out).
pub fn follow_processes(
    client: &dyn Client,
    initial: Vec<Process>,
    follow: &mut Follow<'_>,
) -> Result<Vec<(Process, Ending)>, PlatformError> {
    let mut current = initial;
    let mut poller = follow.poller();
    let mut failures = 0;
    loop {
        let running: Vec<usize> = (0..current.len())
            .filter(|&i| process_in_progress(&current[i].status))
            .collect();
        if running.is_empty() {
            return Ok(current.into_iter().map(|p| (p, Ending::Finished)).collect());
        }
        let message = if current.len() == 1 {
            format!("{} {}", current[0].action_name, current[0].status)
        } else {
            format!(
                "{} of {} processes done",
                current.len() - running.len(),
                current.len()
            )
        };
        let ending = match poller.wait_next(&message) {
            Next::Poll => None,
            Next::OutOfTime => Some(Ending::StillRunning {
                hard_cap: poller.budget_is_hard_cap(),
            }),
            Next::Cancelled => Some(Ending::Cancelled),
        };
        if let Some(ending) = ending {
            return Ok(current
                .into_iter()
                .map(|p| {
                    let e = if process_in_progress(&p.status) {
                        ending
                    } else {
                        Ending::Finished
                    };
                    (p, e)
                })
                .collect());
        }
        for i in running {
            match client.get_process(&current[i].id) {
                Ok(fresh) => {
                    failures = 0;
                    current[i] = fresh;
                }
                Err(err) if err.is_transient() && failures < TOLERATED_POLL_FAILURES => {
                    failures += 1;
                    crate::debug!(
                        "ops",
                        "poll of {} failed ({}); keeping the last state",
                        current[i].id,
                        err.code
                    );
                }
                Err(err) => return Err(err),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::mock::MockClient;
    use crate::platform::{ErrorCode, ServiceStack};
    use std::time::Duration;

    fn fast() -> PollConfig {
        PollConfig {
            fast_interval: Duration::from_millis(2),
            slow_interval: Duration::from_millis(2),
            slow_after: Duration::from_secs(1),
            max_wait: Duration::from_secs(5),
            untracked_budget: Duration::from_secs(5),
        }
    }

    fn mock() -> MockClient {
        MockClient::new()
            .with_services(vec![ServiceStack {
                id: "s1".into(),
                name: "api".into(),
                ..Default::default()
            }])
            .with_polls_to_finish(3)
    }

    #[test]
    fn follows_to_the_end_reporting_between_polls() {
        let client = mock();
        let started = client.restart_service("s1").unwrap();
        let cancel = CancelToken::new();
        let mut reports = Vec::new();
        let (done, ending) = {
            let mut follow = Follow::new(
                fast(),
                &cancel,
                Some(Box::new(|p: f64, _t: f64, m: &str| {
                    reports.push((p, m.to_owned()))
                })),
            );
            follow_process(&client, started, &mut follow).unwrap()
        };
        assert_eq!(
            (done.status.as_str(), ending),
            ("FINISHED", Ending::Finished)
        );
        assert_eq!(
            reports.len(),
            3,
            "one report per poll that found it running: {reports:?}"
        );
        assert!(reports[0].1.contains("stack.restart PENDING"));
    }

    #[test]
    fn several_processes_and_failures() {
        let client = mock().with_failing_processes("noSubdomainPorts");
        let a = client.enable_subdomain_access("s1").unwrap();
        let b = client.restart_service("s1").unwrap();
        let cancel = CancelToken::new();
        let mut follow = Follow::new(fast(), &cancel, None);
        let done = follow_processes(&client, vec![a, b], &mut follow).unwrap();
        assert!(
            done.iter()
                .all(|(p, e)| p.status == "FAILED" && *e == Ending::Finished)
        );
        assert_eq!(done[0].0.fail_reason.as_deref(), Some("noSubdomainPorts"));
    }

    /// Two follows in one call (a wait for another process, then the call's own) spend
    /// one budget: the second finds it spent and answers at once.
    #[test]
    fn follows_of_one_call_share_its_budget() {
        let client = mock().with_polls_to_finish(1_000_000);
        let first = client.restart_service("s1").unwrap();
        let second = client.restart_service("s1").unwrap();
        let cancel = CancelToken::new();
        let mut config = fast();
        config.untracked_budget = Duration::from_millis(60);
        let mut follow = Follow::new(config, &cancel, None);
        let polls = || {
            let calls = client.calls();
            calls
                .iter()
                .filter(|c| c.starts_with("get_process"))
                .count()
        };
        let (_, ending) = follow_process(&client, first, &mut follow).unwrap();
        assert_eq!(ending, Ending::StillRunning { hard_cap: false });
        let after_first = polls();
        assert!(after_first > 1, "the first follow polled: {after_first}");
        let (_, ending) = follow_process(&client, second, &mut follow).unwrap();
        assert_eq!(ending, Ending::StillRunning { hard_cap: false });
        assert_eq!(polls(), after_first, "the second follow had no budget left");
    }

    #[test]
    fn a_definitive_poll_error_is_returned() {
        let client = mock();
        let started = client.restart_service("s1").unwrap();
        let client = client.with_error(
            "get_process",
            PlatformError::new(ErrorCode::AuthTokenExpired, "expired"),
        );
        let cancel = CancelToken::new();
        let mut follow = Follow::new(fast(), &cancel, None);
        assert_eq!(
            follow_process(&client, started, &mut follow)
                .unwrap_err()
                .code,
            ErrorCode::AuthTokenExpired
        );
    }
}
