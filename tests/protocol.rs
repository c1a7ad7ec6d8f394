//! Protocol tests through the real binary: golden files in `fixtures/protocol/` (one per
//! checklist item of the MCP reference, spec §11) and behaviour that needs timing or
//! processes (big lines, signals, closed pipes, concurrency).
//!
//! `UPDATE_GOLDEN=1 cargo test --test protocol` rewrites the `.out.jsonl` files; review
//! the diff. A failing case leaves `<case>.actual.jsonl` beside its golden file.

mod support;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use support::*;

const ENGINE_TEST_ENV: &[(&str, &str)] = &[("ZCP_TEST_TOOLS", "1")];

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/protocol")
}

fn run_case(input: &std::path::Path) -> Result<(), String> {
    let (steps, extra_env) = load_script(input);
    let mut env: Vec<(&str, &str)> = ENGINE_TEST_ENV.to_vec();
    env.extend(extra_env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let run = run_script(&steps, &env, Duration::from_secs(15));
    if !run.status.success() {
        return Err(format!(
            "exit status {:?}; stderr:\n{}",
            run.status,
            run.stderr_text()
        ));
    }
    check_invariants(&run.lines())?;
    let lines: Vec<String> = text_lines(&run.stdout)
        .iter()
        .map(|l| normalize(l))
        .collect();
    let golden = input.with_file_name(
        input
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".in.jsonl", ".out.jsonl"),
    );
    let rendered: String = lines.iter().map(|l| format!("{l}\n")).collect();
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(&golden, &rendered).map_err(|e| e.to_string())?;
        return Ok(());
    }
    let expected_text = std::fs::read(&golden)
        .map_err(|e| format!("missing golden file {}: {e}", golden.display()))?;
    let expected = text_lines(&expected_text);
    compare(&expected, &lines).inspect_err(|_| {
        let actual = golden.with_extension("").with_extension("actual.jsonl");
        let _ = std::fs::write(actual, &rendered);
    })
}

#[test]
fn golden_protocol_cases() {
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".in.jsonl"))
        .collect();
    inputs.sort();
    assert!(
        inputs.len() >= 40,
        "expected at least 40 golden cases, found {}",
        inputs.len()
    );
    // Run a few at a time: most cases are instant, some sleep on purpose.
    let failures: Vec<String> = std::thread::scope(|scope| {
        let chunks: Vec<Vec<PathBuf>> = inputs
            .chunks(inputs.len().div_ceil(6))
            .map(<[PathBuf]>::to_vec)
            .collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .filter_map(|input| {
                            run_case(input).err().map(|e| {
                                format!("{}: {e}", input.file_name().unwrap().to_string_lossy())
                            })
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} golden case(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

fn send(line: &Value) -> Step {
    let mut bytes = line.to_string().into_bytes();
    bytes.push(b'\n');
    Step::Send(bytes)
}

fn init() -> Vec<Step> {
    vec![
        send(
            &serde_json::json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
        ),
        send(&serde_json::json!({"jsonrpc":"2.0","method":"notifications/initialized"})),
    ]
}

fn by_id(lines: &[Value], id: i64) -> Option<&Value> {
    lines
        .iter()
        .find(|l| l.get("id").and_then(Value::as_i64) == Some(id))
}

#[test]
fn large_lines_are_answered_and_oversized_lines_skipped() {
    // 20 MB of text inside one request line.
    let text = "x".repeat(20 * 1024 * 1024);
    let mut steps = init();
    steps.push(send(&serde_json::json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_echo","arguments":{"text":text}}})));
    steps.push(Step::AwaitId(1));
    // 65 MiB: over the 64 MiB limit, answered with one error, and serving continues.
    let mut huge = br#"{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":""#.to_vec();
    huge.extend(std::iter::repeat_n(b'y', 65 * 1024 * 1024));
    huge.extend_from_slice(b"\"}}\n");
    steps.push(Step::Send(huge));
    steps.push(send(
        &serde_json::json!({"jsonrpc":"2.0","id":3,"method":"ping"}),
    ));
    steps.push(Step::AwaitId(3));
    let run = run_script(&steps, ENGINE_TEST_ENV, Duration::from_secs(60));
    assert!(run.status.success());
    let lines = run.lines();
    let echoed = &by_id(&lines, 1).expect("the 20 MB call is answered")["result"]["structuredContent"]
        ["text"];
    assert_eq!(echoed.as_str().map(str::len), Some(20 * 1024 * 1024));
    // Answered with one error under its own id (read from the line's head), not run.
    let answers_to_2: Vec<&Value> = lines.iter().filter(|l| l["id"] == 2).collect();
    assert_eq!(
        answers_to_2.len(),
        1,
        "exactly one answer for the oversized line"
    );
    assert_eq!(answers_to_2[0]["error"]["code"], -32600);
    assert!(
        answers_to_2[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exceeds the 64 MiB limit"),
        "{}",
        answers_to_2[0]
    );
    assert!(lines.iter().all(|l| !l["id"].is_null()), "no id-less error");
    assert_eq!(by_id(&lines, 3).unwrap()["result"], serde_json::json!({}));
}

#[test]
fn an_8_mib_request_line_is_parsed() {
    let text = "é".repeat(4 * 1024 * 1024);
    let mut steps = init();
    steps.push(send(&serde_json::json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_echo","arguments":{"text":text}}})));
    steps.push(Step::AwaitId(1));
    let run = run_script(&steps, ENGINE_TEST_ENV, Duration::from_secs(30));
    let lines = run.lines();
    assert_eq!(
        by_id(&lines, 1).unwrap()["result"]["structuredContent"]["text"].as_str(),
        Some(text.as_str())
    );
}

fn slow_call(id: i64, ms: u64, steps: u64) -> Step {
    send(
        &serde_json::json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"test_slow","arguments":{"ms":ms,"steps":steps},"_meta":{"progressToken":id}}}),
    )
}

#[test]
fn end_of_input_with_a_long_call_in_flight_exits_after_the_grace() {
    let mut steps = init();
    steps.push(slow_call(1, 20_000, 100));
    steps.push(Step::Sleep(Duration::from_millis(300)));
    let run = run_script(&steps, ENGINE_TEST_ENV, Duration::from_secs(10));
    assert!(run.status.success());
    assert!(
        run.exit_after_eof < Duration::from_secs(3),
        "exit took {:?}",
        run.exit_after_eof
    );
    assert!(
        by_id(&run.lines(), 1).is_none(),
        "a call cancelled at shutdown gets no reply"
    );
}

#[test]
fn a_ping_is_answered_while_slow_calls_run_and_slow_calls_overlap() {
    let mut steps = init();
    steps.push(slow_call(1, 1200, 4));
    steps.push(slow_call(2, 1200, 4));
    steps.push(send(
        &serde_json::json!({"jsonrpc":"2.0","id":3,"method":"ping"}),
    ));
    steps.push(Step::AwaitId(1));
    steps.push(Step::AwaitId(2));
    let run = run_script(&steps, ENGINE_TEST_ENV, Duration::from_secs(20));
    let lines = run.lines();
    let position = |pred: &dyn Fn(&Value) -> bool| lines.iter().position(pred).unwrap();
    let ping = position(&|l| l["id"] == 3);
    let first_slow_reply = position(&|l| l["id"] == 1 || l["id"] == 2);
    assert!(
        ping < first_slow_reply,
        "ping must not wait for the slow calls"
    );
    // Both calls report progress before either finishes: they ran at the same time.
    let progress_of = |token: i64| position(&|l| l["params"]["progressToken"] == token);
    assert!(progress_of(1) < first_slow_reply && progress_of(2) < first_slow_reply);
}

/// Position of each reply id in the output of a slow call (id 1) followed by a quick one.
fn reply_order(workers: &str) -> Vec<i64> {
    let mut steps = init();
    steps.push(slow_call(1, 400, 1));
    steps.push(slow_call(2, 1, 1));
    steps.push(Step::AwaitId(1));
    steps.push(Step::AwaitId(2));
    let mut env = ENGINE_TEST_ENV.to_vec();
    env.push(("ZCP_WORKERS", workers));
    let run = run_script(&steps, &env, Duration::from_secs(10));
    run.lines()
        .iter()
        .filter(|l| l.get("result").is_some())
        .filter_map(|l| l["id"].as_i64())
        .filter(|id| *id != 0)
        .collect()
}

/// A call cancelled while it waits for a worker never runs: here the queued call would
/// panic (and say so on stderr) if it ever started.
#[test]
fn a_call_cancelled_while_queued_never_runs() {
    let mut steps = init();
    steps.push(slow_call(1, 400, 1));
    steps.push(Step::Send(
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"test_panic\",\"arguments\":{}}}\n".to_vec(),
    ));
    steps.push(Step::Send(
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}\n".to_vec(),
    ));
    steps.push(Step::AwaitId(1));
    // The next call runs on the same, only worker: after it, the queue is behind us.
    steps.push(slow_call(3, 1, 1));
    steps.push(Step::AwaitId(3));
    let mut env = ENGINE_TEST_ENV.to_vec();
    env.push(("ZCP_WORKERS", "1"));
    let run = run_script(&steps, &env, Duration::from_secs(10));
    assert!(
        !run.stderr_text().contains("test_panic was called"),
        "the cancelled call ran:\n{}",
        run.stderr_text()
    );
    assert!(
        run.lines().iter().all(|l| l["id"] != 2),
        "no reply for id 2"
    );
}

#[test]
fn zcp_workers_sets_the_pool_size() {
    // One worker: the quick call waits for the slow one. The default pool: it overtakes.
    assert_eq!(reply_order("1"), vec![1, 2]);
    assert_eq!(reply_order("8"), vec![2, 1]);
    // Nonsense falls back to the default pool (and warns on stderr).
    assert_eq!(reply_order("zero"), vec![2, 1]);
}

/// Slow calls beyond the old pool of eight (a host that sends a dozen restarts at once)
/// do not hold up a quick call sent after them.
#[test]
fn a_quick_call_overtakes_a_dozen_slow_ones() {
    let mut steps = init();
    for id in 1..=12 {
        steps.push(slow_call(id, 600, 1));
    }
    steps.push(slow_call(13, 1, 1));
    for id in 1..=13 {
        steps.push(Step::AwaitId(id));
    }
    let run = run_script(&steps, ENGINE_TEST_ENV, Duration::from_secs(20));
    let replies: Vec<i64> = run
        .lines()
        .iter()
        .filter(|l| l.get("result").is_some())
        .filter_map(|l| l["id"].as_i64())
        .filter(|id| *id != 0)
        .collect();
    assert_eq!(replies.len(), 13, "{replies:?}");
    assert_eq!(replies[0], 13, "the quick call waited: {replies:?}");
}

#[test]
fn progress_never_follows_its_reply_across_a_hundred_calls() {
    let mut steps = init();
    for id in 1..=100 {
        steps.push(slow_call(id, 240, 2));
    }
    for id in 1..=100 {
        steps.push(Step::AwaitId(id));
    }
    let run = run_script(&steps, ENGINE_TEST_ENV, Duration::from_secs(60));
    let lines = run.lines();
    for id in 1..=100 {
        let reply = lines
            .iter()
            .position(|l| l["id"] == id)
            .unwrap_or_else(|| panic!("no reply for {id}"));
        let progress: Vec<usize> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l["params"]["progressToken"] == id)
            .map(|(i, _)| i)
            .collect();
        assert!(
            progress.iter().all(|&p| p < reply),
            "progress after reply for {id}"
        );
    }
}

fn send_signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn signals_stop_the_server_promptly() {
    for signal in ["-TERM", "-INT"] {
        let mut child = spawn(ENGINE_TEST_ENV);
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let sent = std::time::Instant::now();
        send_signal(child.id(), signal);
        let status = wait_with_limit(&mut child, Duration::from_secs(5));
        assert!(
            sent.elapsed() < Duration::from_secs(1),
            "{signal}: exit took {:?}",
            sent.elapsed()
        );
        assert_ne!(status.code(), Some(101));
        let mut out = Vec::new();
        child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
        check_invariants(&parse_lines(&out)).unwrap();
        drop(stdin);
    }
}

#[test]
fn a_signal_during_a_long_call_still_exits_within_the_deadline() {
    let mut child = spawn(ENGINE_TEST_ENV);
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"test_slow\",\"arguments\":{\"ms\":30000}}}\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let sent = std::time::Instant::now();
    send_signal(child.id(), "-TERM");
    wait_with_limit(&mut child, Duration::from_secs(6));
    assert!(sent.elapsed() < Duration::from_secs(5));
    drop(stdin);
}

#[test]
fn a_closed_stdout_ends_the_process_quietly() {
    let mut child = spawn(ENGINE_TEST_ENV);
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    for id in 0..50 {
        let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
        if stdin.write_all(line.as_bytes()).is_err() {
            break;
        }
    }
    let status = wait_with_limit(&mut child, Duration::from_secs(5));
    assert_eq!(status.code(), Some(0), "closed stdout must not be a crash");
}

#[test]
fn stray_prints_land_on_stderr() {
    let mut steps = init();
    steps.push(send(&serde_json::json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_print"}})));
    let run = run_script(&steps, ENGINE_TEST_ENV, Duration::from_secs(10));
    assert!(run.stderr_text().contains("stray output from a library"));
    assert!(!String::from_utf8_lossy(&run.stdout).contains("stray output"));
    check_invariants(&run.lines()).unwrap();
}

#[test]
fn command_line_flags() {
    let out = command(&[]).arg("--version").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(&format!("zcp {}", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    let out = command(&[]).arg("--help").output().unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("Usage: zcp")
    );
    let out = command(&[]).arg("--bogus").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("unknown argument \"--bogus\"")
    );
}

/// An argument that is not UTF-8 is an unknown argument too (std's `env::args` would panic).
#[cfg(unix)]
#[test]
fn an_argument_that_is_not_utf8_is_refused_not_a_panic() {
    use std::os::unix::ffi::OsStrExt;
    let out = command(&[])
        .arg(std::ffi::OsStr::from_bytes(b"--caf\xe9"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown argument \"--caf\u{FFFD}\""),
        "{stderr}"
    );
}
