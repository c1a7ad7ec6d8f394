//! Load: many pipelined mixed requests (valid calls, malformed lines, unknown methods,
//! notifications, cancels, slow tool calls) into the real binary with the engine's test
//! tools. Every request id is answered exactly once, a request cancelled while it runs or
//! waits gets no answer, notifications get none, and every stdout line is one complete
//! JSON message. The normal suite sends 5 000; `--ignored` sends 50 000 and prints the
//! peak resident memory (see BENCHMARKS.md, "Load", and scripts/load-bench).
#![cfg(target_os = "linux")]

#[path = "support/proc_status.rs"]
mod proc_status;
mod support;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const INIT: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"load","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;

/// What the answer to one id must be.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Want {
    Result,
    Error(i64),
    /// Cancelled while running or queued: never answered.
    Nothing,
}

struct Load {
    input: Vec<u8>,
    want: HashMap<String, Want>,
    malformed: usize,
}

/// `n` messages after the handshake, ten kinds in rotation.
fn mixed(n: usize) -> Load {
    let mut input = INIT.as_bytes().to_vec();
    let mut want = HashMap::new();
    want.insert("\"init\"".to_owned(), Want::Result);
    let mut malformed = 0;
    for i in 0..n {
        let id = i as u64 + 1;
        let line = match i % 10 {
            0 => {
                malformed += 1;
                format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"")
            }
            1 => {
                want.insert(id.to_string(), Want::Error(-32601));
                json!({"jsonrpc":"2.0","id":id,"method":format!("no/such/{i}")}).to_string()
            }
            2 => json!({"jsonrpc":"2.0","method":"notifications/roots/list_changed"}).to_string(),
            3 => {
                want.insert(id.to_string(), Want::Result);
                json!({"jsonrpc":"2.0","id":id,"method":"ping"}).to_string()
            }
            4 => {
                want.insert(id.to_string(), Want::Result);
                json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"test_echo","arguments":{"text":format!("echo {i}")}}}).to_string()
            }
            5 => {
                want.insert(id.to_string(), Want::Result);
                json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"test_slow","arguments":{"ms":4,"steps":2}}}).to_string()
            }
            6 => {
                // A call that cannot finish on its own, cancelled on the next line.
                want.insert(id.to_string(), Want::Nothing);
                format!(
                    "{}\n{}",
                    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"test_slow","arguments":{"ms":600000,"steps":1000}}}),
                    json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":id,"reason":"load test"}})
                )
            }
            7 => json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":format!("never-sent-{i}")}}).to_string(),
            8 => {
                want.insert(id.to_string(), Want::Result);
                json!({"jsonrpc":"2.0","id":id,"method":"tools/list"}).to_string()
            }
            _ => {
                let sid = format!("s-{i}");
                want.insert(format!("\"{sid}\""), Want::Result);
                json!({"jsonrpc":"2.0","id":sid,"method":"ping"}).to_string()
            }
        };
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    Load {
        input,
        want,
        malformed,
    }
}

/// Peak resident set (VmHWM) of a live process, in KiB.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    proc_status::status_kib(&pid.to_string(), "VmHWM")
}

fn run(n: usize) {
    let load = mixed(n);
    let mut child = support::spawn_piped(
        &mut support::command(&[("ZCP_TEST_TOOLS", "1")]),
        Stdio::null(),
    );
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).unwrap();
        out
    });
    let started = Instant::now();
    let input = load.input;
    let bytes_in = input.len();
    let writer = std::thread::spawn(move || {
        stdin.write_all(&input).unwrap();
        // Keep stdin open until the answers are in, so the EOF grace plays no part.
        stdin
    });
    let stdin = writer.join().unwrap();
    // Watch memory while the answers come.
    let mut peak = 0;
    let answered_by = Instant::now() + Duration::from_secs(120);
    while !reader.is_finished() && Instant::now() < answered_by {
        peak = peak.max(peak_rss_kib(pid).unwrap_or(0));
        std::thread::sleep(Duration::from_millis(20));
        // Stop watching once every expected answer could have arrived (approximation:
        // the process is idle); the EOF below ends it.
        if started.elapsed() > Duration::from_secs(2) && idle(pid) {
            break;
        }
    }
    peak = peak.max(peak_rss_kib(pid).unwrap_or(0));
    drop(stdin);
    let status = support::wait_with_limit(&mut child, Duration::from_secs(30));
    let elapsed = started.elapsed();
    assert!(status.success(), "{status:?}");
    let out = reader.join().unwrap();

    assert!(out.ends_with(b"\n"), "partial last line");
    let lines = support::parse_lines(&out); // every line must be JSON
    let mut seen: HashMap<String, Vec<&Value>> = HashMap::new();
    let mut parse_errors = 0;
    for line in &lines {
        assert!(line.is_object(), "{line}");
        assert_eq!(line["jsonrpc"], "2.0", "{line}");
        assert!(
            line.get("method").is_none(),
            "unexpected server message: {line}"
        );
        match line.get("id") {
            Some(Value::Null) => {
                assert_eq!(line["error"]["code"], json!(-32700), "{line}");
                parse_errors += 1;
            }
            Some(id) => seen.entry(id.to_string()).or_default().push(line),
            None => panic!("a line without id: {line}"),
        }
    }
    assert_eq!(parse_errors, load.malformed);
    for (id, got) in &seen {
        assert!(
            load.want.contains_key(id),
            "answer for an id never sent: {id}"
        );
        assert_eq!(got.len(), 1, "id {id} answered {} times", got.len());
    }
    for (id, want) in &load.want {
        let got = seen.get(id);
        match want {
            Want::Nothing => assert!(got.is_none(), "cancelled id {id} answered: {got:?}"),
            Want::Result => {
                let got = got.unwrap_or_else(|| panic!("id {id} not answered"));
                assert!(got[0].get("result").is_some(), "{}", got[0]);
            }
            Want::Error(code) => {
                let got = got.unwrap_or_else(|| panic!("id {id} not answered"));
                assert_eq!(got[0]["error"]["code"], json!(code), "{}", got[0]);
            }
        }
    }
    eprintln!(
        "load: {n} messages ({bytes_in} bytes in, {} bytes / {} lines out) in {elapsed:?}; peak RSS {:.1} MiB",
        out.len(),
        lines.len(),
        peak as f64 / 1024.0
    );
    // Bounded memory: tens of MiB are expected; this only catches runaway growth.
    assert!(peak < 512 * 1024, "peak RSS {peak} KiB");
}

/// True when the process uses no CPU over a short interval (all answers written).
fn idle(pid: u32) -> bool {
    let ticks = || -> Option<u64> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let rest = stat.rsplit(')').next()?;
        let fields: Vec<&str> = rest.split_whitespace().collect();
        Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
    };
    let before = ticks();
    std::thread::sleep(Duration::from_millis(200));
    before.is_some() && before == ticks()
}

#[test]
fn pipelined_mixed_load_5000() {
    run(5_000);
}

#[test]
#[ignore = "50 000 messages; run with --ignored (scripts/load-bench)"]
fn pipelined_mixed_load_50000() {
    run(50_000);
}
