//! Broken peers, through the real binary: a client that closes stdout early, one that
//! sends bytes that are not UTF-8 or hold a NUL, and one that never reads stdout. In every
//! case the process keeps serving or exits quietly, within a bounded time.
#![cfg(unix)]

mod support;

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use support::{Step, run_script, spawn, wait_with_limit};

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;

const TEST_TOOLS: &[(&str, &str)] = &[("ZCP_TEST_TOOLS", "1")];

fn pings(from: usize, count: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for id in from..from + count {
        out.extend_from_slice(
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n").as_bytes(),
        );
    }
    out
}

#[test]
fn closed_stdout_means_a_quiet_exit_with_status_0() {
    let mut child = spawn(TEST_TOOLS);
    drop(child.stdout.take()); // the client is gone before the first answer
    let mut stdin = child.stdin.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    // Keep stdin open: the server must notice the closed stdout by itself.
    let _ = stdin.write_all(INIT.as_bytes());
    let _ = stdin.write_all(&pings(1, 10));
    let _ = stdin.flush();
    let status = wait_with_limit(&mut child, Duration::from_secs(10));
    assert_eq!(status.code(), Some(0), "{status:?}");
    let mut err = String::new();
    stderr.read_to_string(&mut err).unwrap();
    assert!(!err.contains("panic"), "{err}");
    assert!(
        !err.to_lowercase().contains("broken pipe"),
        "not quiet: {err}"
    );
    drop(stdin);
}

#[test]
fn invalid_utf8_and_nul_bytes_get_parse_errors_and_serving_continues() {
    let mut bad_utf8 = br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":""#.to_vec();
    bad_utf8.extend_from_slice(&[0xff, 0xfe, 0xc3]);
    bad_utf8.extend_from_slice(b"\"}}\n");
    let mut nul = br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#.to_vec();
    nul.insert(20, 0);
    nul.push(b'\n');
    let steps = [
        Step::Send(INIT.as_bytes().to_vec()),
        Step::Send(bad_utf8),
        Step::Send(nul),
        Step::Send(vec![0, 0, 0, b'\n']),
        Step::Send(vec![0xc0, 0x80, b'\n']),
        Step::Send(pings(3, 1)),
        Step::AwaitId(3),
    ];
    let run = run_script(&steps, TEST_TOOLS, Duration::from_secs(20));
    assert!(run.status.success());
    let lines = run.lines();
    let parse_errors: Vec<_> = lines
        .iter()
        .filter(|l| l["error"]["code"] == json!(-32700))
        .collect();
    assert_eq!(parse_errors.len(), 4, "{lines:?}");
    assert!(
        parse_errors.iter().all(|l| l["id"].is_null()),
        "{parse_errors:?}"
    );
    let pong: Vec<_> = lines.iter().filter(|l| l["id"] == json!(3)).collect();
    assert_eq!(pong.len(), 1);
    assert_eq!(pong[0]["result"], json!({}));
    // Neither bad line got an answer under its would-be id.
    assert!(
        !lines
            .iter()
            .any(|l| l["id"] == json!(1) || l["id"] == json!(2))
    );
}

/// Spawns zcp, sends `count` pings and never reads stdout. Returns the child with stdin
/// open or closed as asked.
fn flood_without_reading(count: usize, close_stdin: bool) -> std::process::Child {
    let mut child = support::spawn_piped(&mut support::command(TEST_TOOLS), Stdio::null());
    let mut stdin = child.stdin.take().unwrap();
    let mut input = INIT.as_bytes().to_vec();
    input.extend(pings(1, count));
    // Several times what a pipe holds, in both directions.
    assert!(input.len() > 512 * 1024);
    let writer = std::thread::spawn(move || {
        stdin.write_all(&input).unwrap();
        if close_stdin {
            drop(stdin);
            None
        } else {
            Some(stdin)
        }
    });
    let started = Instant::now();
    while !writer.is_finished() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "zcp stopped reading stdin while its stdout was full"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    if let Some(stdin) = writer.join().unwrap() {
        std::mem::forget(stdin); // still open when the signal arrives
    }
    child
}

#[test]
fn a_client_that_never_reads_cannot_hold_the_process_after_eof() {
    let child = flood_without_reading(20_000, true);
    let started = Instant::now();
    exits_cleanly_and_soon(child, started);
}

#[test]
fn a_client_that_never_reads_cannot_block_sigterm() {
    let child = flood_without_reading(20_000, false);
    let started = Instant::now();
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    exits_cleanly_and_soon(child, started);
}

#[test]
fn stdio_inherited_non_blocking_is_waited_on_not_taken_for_the_end() {
    use std::io::{BufRead, BufReader};
    use std::os::fd::OwnedFd;
    use std::os::unix::net::UnixStream;
    // Both of zcp's ends non-blocking, as a Node.js parent may leave them.
    let (mut to_zcp, zcp_in) = UnixStream::pair().unwrap();
    let (from_zcp, zcp_out) = UnixStream::pair().unwrap();
    zcp_in.set_nonblocking(true).unwrap();
    zcp_out.set_nonblocking(true).unwrap();
    let mut child = support::command(TEST_TOOLS)
        .stdin(Stdio::from(OwnedFd::from(zcp_in)))
        .stdout(Stdio::from(OwnedFd::from(zcp_out)))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(from_zcp).lines();
    to_zcp.write_all(INIT.as_bytes()).unwrap();
    assert!(lines.next().unwrap().unwrap().contains("\"id\":0,"));
    // A pause: stdin has nothing to read (EAGAIN), which used to end the session.
    std::thread::sleep(Duration::from_millis(300));
    // Then answers bigger than the socket buffer, read only after a pause (EAGAIN on
    // stdout, which used to count as a gone client and cut a line).
    let text = "y".repeat(300 * 1024);
    for id in 1..=3 {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": "test_echo", "arguments": {"text": text}}});
        to_zcp.write_all(format!("{call}\n").as_bytes()).unwrap();
    }
    std::thread::sleep(Duration::from_millis(500));
    // The three calls run on different workers, so they may finish in any order; each
    // answer must be whole.
    let mut ids = Vec::new();
    for _ in 1..=3 {
        let line = lines.next().unwrap().unwrap();
        let answer: serde_json::Value = serde_json::from_str(&line).unwrap();
        ids.push(answer["id"].as_u64().unwrap());
        assert_eq!(
            answer["result"]["structuredContent"]["text"]
                .as_str()
                .map(str::len),
            Some(text.len())
        );
    }
    ids.sort_unstable();
    assert_eq!(ids, [1, 2, 3]);
    drop(to_zcp);
    let status = wait_with_limit(&mut child, Duration::from_secs(10));
    assert!(status.success(), "{status:?}");
}

#[test]
fn answers_past_the_output_cap_cannot_hold_the_exit() {
    // 20 answers of 4 MiB: more than the 64 MiB stdout queue, so workers wait for room
    // while holding the protocol writer. Before, the exit then waited on that writer for
    // good (only SIGTERM's hard deadline ended the process).
    let mut child = support::spawn_piped(&mut support::command(TEST_TOOLS), Stdio::null());
    let mut stdin = child.stdin.take().unwrap();
    let text = "x".repeat(4 * 1024 * 1024);
    let mut input = INIT.as_bytes().to_vec();
    for id in 1..=20 {
        input.extend_from_slice(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "test_echo", "arguments": {"text": text}}})
            .to_string()
            .as_bytes(),
        );
        input.push(b'\n');
    }
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    writer.join().unwrap();
    let started = Instant::now();
    let status = wait_with_limit(&mut child, Duration::from_secs(20));
    assert!(status.success(), "{status:?}");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    drop(child.stdout.take());
}

#[test]
fn a_host_that_never_reads_stderr_cannot_stall_tool_calls() {
    // Each panicking call logs a line; 3 000 of them are several times what a stderr pipe
    // holds. Before the log queue, the workers blocked on stderr after a few hundred and
    // every later call went unanswered.
    let count = 3000;
    let mut child = support::spawn_piped(&mut support::command(TEST_TOOLS), Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap(); // open, and not read until all answered
    let mut input = INIT.as_bytes().to_vec();
    for id in 1..=count {
        input.extend_from_slice(
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"test_panic\",\"arguments\":{{}}}}}}\n"
            )
            .as_bytes(),
        );
    }
    let (done, answered) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut seen = 0;
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
            let Ok(line) = line else { break };
            if line.contains("\"error\"") && !line.contains("\"id\":0,") {
                seen += 1;
                if done.send(seen).is_err() {
                    break;
                }
            }
        }
    });
    stdin.write_all(&input).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = 0;
    while seen < count {
        let left = deadline.saturating_duration_since(Instant::now());
        match answered.recv_timeout(left) {
            Ok(n) => seen = n,
            Err(_) => {
                let _ = child.kill();
                panic!("only {seen} of {count} calls were answered while stderr was unread");
            }
        }
    }
    // Reading stderr now lets the queue move: the lines that did not fit are counted.
    let logged = std::thread::spawn(move || {
        let mut logged = String::new();
        stderr.read_to_string(&mut logged).unwrap();
        logged
    });
    std::thread::sleep(Duration::from_millis(300));
    drop(stdin);
    let status = wait_with_limit(&mut child, Duration::from_secs(10));
    assert!(status.success(), "{status:?}");
    let logged = logged.join().unwrap();
    assert!(
        logged.contains("log line(s) dropped: stderr was not being read"),
        "{}",
        &logged[logged.len().saturating_sub(500)..]
    );
}

/// The flooded process exits with success well within its limits: 2 s grace at most
/// (nothing runs) plus the 0.5 s final drain, with slack.
fn exits_cleanly_and_soon(mut child: std::process::Child, started: Instant) {
    let status = wait_with_limit(&mut child, Duration::from_secs(10));
    assert!(status.success(), "{status:?}");
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    drop(child.stdout.take());
}
