//! Following platform processes through the real binary: progress notifications (order,
//! monotonic values, nothing after the answer, a full interval of quiet before it), the
//! still-running answer when the client gave no progress token, and cancellation.

mod session;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use session::{Session, expect_ok, sim_env, start_sim};
use zcp::sim::{Fault, SimConfig, SimHandle};

/// A simulator whose processes take `ms` milliseconds.
fn sim_with(ms: u64) -> SimHandle {
    start_sim(SimConfig {
        process_duration: Duration::from_millis(ms),
        build_duration: Duration::from_millis(ms),
        ..SimConfig::default()
    })
}

fn env_with(sim: &SimHandle, overrides: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut env = sim_env(sim);
    for (key, value) in overrides {
        env.retain(|(k, _)| k != key);
        env.push(((*key).to_owned(), (*value).to_owned()));
    }
    env
}

/// Checks the progress rules for one call and returns the notifications.
fn check_progress(s: &Session, token: &str, id: i64, interval: Duration) -> Vec<Value> {
    let answer = s.wait_for(id);
    // Anything late would arrive right after the answer: give it the time to show up.
    std::thread::sleep(interval * 3);
    let lines = s.lines();
    let answer_index = lines
        .iter()
        .position(|l| l.value.get("id").and_then(Value::as_i64) == Some(id))
        .unwrap();
    let progress: Vec<(usize, &session::Line)> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            l.value["method"] == "notifications/progress"
                && l.value["params"]["progressToken"] == token
        })
        .collect();
    assert!(
        progress.len() >= 2,
        "expected several progress notifications, got {progress:?}"
    );
    let mut last = f64::MIN;
    for (index, line) in &progress {
        assert!(
            *index < answer_index,
            "progress after the answer: {:?}",
            line.value
        );
        let params = &line.value["params"];
        let value = params["progress"].as_f64().unwrap();
        assert!(
            value > last,
            "progress not strictly increasing: {progress:?}"
        );
        last = value;
        if let Some(total) = params["total"].as_f64() {
            assert!(value <= total, "{params}");
        }
        assert!(
            params["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{params}"
        );
    }
    let quiet = answer.at.duration_since(progress.last().unwrap().1.at);
    // The last report goes out a full poll interval before the answer. Half of it is
    // asserted: this test's reader thread may pick a line up late on a busy machine, while
    // the bug this guards against (report and answer in one read) shows as ~0 ms.
    assert!(
        quiet >= interval / 2,
        "the last progress came {quiet:?} before the answer (interval {interval:?})"
    );
    progress.iter().map(|(_, l)| l.value.clone()).collect()
}

#[test]
fn progress_is_monotonic_and_quiet_before_the_answer() {
    let sim = sim_with(1500);
    let interval = Duration::from_millis(200);
    let mut s = Session::start(&env_with(&sim, &[("ZCP_POLL_FAST_MS", "200")]));
    let id = s.start_call(
        "zerops_manage",
        json!({"action": "restart", "serviceHostname": "api"}),
        Some("restart-1"),
    );
    let notes = check_progress(&s, "restart-1", id, interval);
    let message = notes[0]["params"]["message"].as_str().unwrap();
    assert!(
        message.contains("stack.restart"),
        "status in the message: {message}"
    );
    let result = expect_ok(&s.result(id));
    assert_eq!(result["process"]["status"], "FINISHED", "{result}");

    // An import follows every process it started, reporting the count done.
    let id = s.start_call(
        "zerops_import",
        json!({"content": "services:\n  - hostname: w1\n    type: nodejs@22\n  - hostname: w2\n    type: nodejs@22\n"}),
        Some("import-1"),
    );
    check_progress(&s, "import-1", id, interval);
    let imported = expect_ok(&s.result(id));
    let processes = imported["processes"].as_array().unwrap();
    assert_eq!(processes.len(), 2);
    assert!(
        processes.iter().all(|p| p["status"] == "FINISHED"),
        "{imported}"
    );
}

#[test]
fn without_a_token_the_call_returns_still_running_after_the_budget() {
    let sim = sim_with(20_000);
    let mut s = Session::start(&env_with(&sim, &[("ZCP_POLL_BUDGET_MS", "600")]));
    let started = Instant::now();
    let result = expect_ok(&s.call(
        "zerops_manage",
        json!({"action": "stop", "serviceHostname": "web"}),
    ));
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(500),
        "returned before the budget: {took:?}"
    );
    assert!(
        took < Duration::from_secs(10),
        "the budget was not applied: {took:?}"
    );
    let process = &result["process"];
    assert!(
        matches!(process["status"].as_str(), Some("PENDING" | "RUNNING")),
        "{result}"
    );
    assert_eq!(process["stillRunning"], true);
    let hint = process["hint"].as_str().unwrap();
    let id = process["processId"].as_str().unwrap();
    assert!(
        hint.contains("zerops_process") && hint.contains(id),
        "{hint}"
    );
    // No token, no progress notifications.
    assert!(
        !s.lines()
            .iter()
            .any(|l| l.value["method"] == "notifications/progress"),
        "progress without a token"
    );
    // The agent can follow it as told.
    let status = expect_ok(&s.call("zerops_process", json!({"processId": id})));
    assert_eq!(status["processId"], id);
    assert_eq!(status["inProgress"], true);
}

/// A change of many variables is one API call per variable: a cancel stops it between two
/// of them instead of letting it change the rest of the list unseen.
#[test]
fn a_cancelled_env_change_stops_changing_variables() {
    let sim = sim_with(100);
    sim.set_fault(
        "POST /service-stack/*/user-data",
        Fault::Latency(Duration::from_millis(40)),
    );
    let mut s = Session::start(&env_with(&sim, &[]));
    let creates = |sim: &SimHandle| {
        sim.requests()
            .iter()
            .filter(|r| r.starts_with("POST") && r.ends_with("/user-data"))
            .count()
    };
    let variables: Vec<String> = (0..100).map(|i| format!("C_{i}=v")).collect();
    let id = s.start_call(
        "zerops_env",
        json!({"action": "set", "serviceHostname": "api", "variables": variables}),
        None,
    );
    let started = Instant::now();
    while creates(&sim) < 3 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no variable was set"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId": id, "reason": "test"}}));
    // At most the call in flight finishes after the cancel.
    std::thread::sleep(Duration::from_millis(300));
    let after_cancel = creates(&sim);
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(creates(&sim), after_cancel, "variables kept being set");
    assert!(after_cancel < 20, "{after_cancel} of 100 set");
    assert!(s.wait_for_within(id, Duration::from_millis(10)).is_none());
    s.assert_alive();
}

#[test]
fn a_cancelled_call_stops_polling_and_frees_its_worker() {
    let sim = sim_with(30_000);
    // One worker: the next call can only run once the cancelled one has let go.
    let mut s = Session::start(&env_with(
        &sim,
        &[("ZCP_WORKERS", "1"), ("ZCP_POLL_FAST_MS", "1000")],
    ));
    let id = s.start_call(
        "zerops_manage",
        json!({"action": "restart", "serviceHostname": "api"}),
        Some("to-cancel"),
    );
    s.wait_progress("to-cancel");
    let cancelled_at = Instant::now();
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId": id, "reason": "test"}}));
    let next = s.start_call("zerops_discover", json!({"serviceHostname": "web"}), None);
    let answered = s.wait_for(next);
    let freed_after = answered.at.duration_since(cancelled_at);
    // Far below the 1 s poll interval and the 30 s process: the wait was interrupted.
    assert!(
        freed_after < Duration::from_millis(900),
        "the worker was busy for {freed_after:?} after the cancel"
    );
    expect_ok(&s.result(next));
    let polls_before = sim.requests().len();
    std::thread::sleep(Duration::from_millis(1300));
    let late: Vec<String> = sim.requests()[polls_before..].to_vec();
    assert!(
        late.is_empty(),
        "polling went on after the cancel: {late:?}"
    );
    assert!(
        s.wait_for_within(id, Duration::from_millis(10)).is_none(),
        "a cancelled request gets no answer"
    );
    let progress_after = s
        .progress("to-cancel")
        .into_iter()
        .filter(|l| l.at > cancelled_at + Duration::from_millis(50))
        .count();
    assert_eq!(progress_after, 0, "progress after the cancel");
    s.assert_alive();
}

#[test]
fn eof_during_a_poll_ends_the_process_quickly() {
    let sim = sim_with(30_000);
    let mut s = Session::start(&env_with(&sim, &[("ZCP_POLL_FAST_MS", "1000")]));
    let _ = s.start_call(
        "zerops_manage",
        json!({"action": "restart", "serviceHostname": "api"}),
        Some("eof"),
    );
    s.wait_progress("eof");
    let closed = Instant::now();
    let transcript = s.finish();
    let took = closed.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "zcp took {took:?} to exit after EOF"
    );
    assert!(
        !transcript.stderr.contains("panicked"),
        "{}",
        transcript.stderr
    );
}

/// Calls that follow several processes one after another (a project variable is upserted
/// by delete + create, one process each) still report one strictly increasing series.
#[test]
fn progress_stays_monotonic_across_several_follows() {
    let sim = sim_with(700);
    let interval = Duration::from_millis(100);
    let mut s = Session::start(&env_with(&sim, &[("ZCP_POLL_FAST_MS", "100")]));
    let cases = [
        (
            "zerops_env",
            json!({"action": "set", "project": true, "variables": ["APP_ENV=x", "LOG_LEVEL=debug", "NEW=1"]}),
        ),
        (
            "zerops_env",
            json!({"action": "delete", "project": true, "variables": ["APP_ENV", "NEW"]}),
        ),
        (
            "zerops_subdomain",
            json!({"action": "enable", "serviceHostname": "web"}),
        ),
        (
            "zerops_delete",
            json!({"serviceHostname": "cache", "confirm": true}),
        ),
    ];
    for (i, (tool, args)) in cases.into_iter().enumerate() {
        let token = format!("multi-{i}");
        let id = s.start_call(tool, args.clone(), Some(&token));
        check_progress(&s, &token, id, interval);
        expect_ok(&s.result(id));
    }
}

#[test]
fn an_import_waiting_for_a_deletion_keeps_one_total() {
    let sim = sim_with(1500);
    let interval = Duration::from_millis(100);
    let mut s = Session::start(&env_with(&sim, &[("ZCP_POLL_FAST_MS", "100")]));
    let deleting = s.start_call(
        "zerops_delete",
        json!({"serviceHostname": "cache", "confirm": true}),
        None,
    );
    // The delete has reached the API once its process exists.
    let started = Instant::now();
    while !sim.requests().iter().any(|r| r.starts_with("DELETE ")) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no delete sent"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let id = s.start_call(
        "zerops_import",
        json!({"content": "services:\n  - hostname: cache\n    type: valkey@7.2\n    mode: NON_HA\n"}),
        Some("reimport"),
    );
    let notes = check_progress(&s, "reimport", id, interval);
    expect_ok(&s.result(id));
    expect_ok(&s.result(deleting));
    assert!(
        notes[0]["params"]["message"]
            .as_str()
            .unwrap()
            .contains("finish deleting"),
        "{notes:?}"
    );
    // A total, once sent, stays the same for the whole request.
    let totals: Vec<f64> = notes
        .iter()
        .map(|n| n["params"]["total"].as_f64().unwrap())
        .collect();
    assert!(totals.iter().all(|t| *t == totals[0]), "{totals:?}");
    assert!(
        notes.iter().any(|n| !n["params"]["message"]
            .as_str()
            .unwrap()
            .contains("deleting")),
        "the import's own follow reports too: {notes:?}"
    );
}

/// `logging/setLevel` reaches a call already running: the messages of its later steps
/// follow the level in force when each is written, not the one when the call began.
#[test]
fn a_log_level_change_reaches_calls_already_running() {
    let mut s = Session::start(&[("ZCP_TEST_TOOLS".into(), "1".into())]);
    let id = s.start_call("test_slow", json!({"ms": 3000, "steps": 15}), None);
    let messages = |s: &Session| {
        s.lines()
            .iter()
            .filter(|l| l.value["method"] == "notifications/message")
            .count()
    };
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(messages(&s), 0, "no level asked for yet");
    s.request("logging/setLevel", json!({"level": "info"}));
    std::thread::sleep(Duration::from_millis(900));
    let while_info = messages(&s);
    assert!(while_info >= 2, "{while_info} messages at info");
    s.request("logging/setLevel", json!({"level": "error"}));
    // Written before the level changed, a message may still arrive just after: let it.
    std::thread::sleep(Duration::from_millis(100));
    let at_error = messages(&s);
    s.wait_for(id);
    assert_eq!(
        messages(&s),
        at_error,
        "info messages after the level went to error"
    );
}
