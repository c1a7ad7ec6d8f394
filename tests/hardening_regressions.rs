//! Regression tests for faults found while hardening (fuzzing, load), through the real
//! binary.
#![cfg(unix)]

mod support;

use std::time::Duration;

use serde_json::json;
use support::{Step, run_script};

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;

/// fuzz/artifacts crash-b821668c (framer_dispatch): an id reused while the first request
/// with it still ran replaced it in the in-flight table, so end of input stopped waiting
/// as soon as the second finished and the first's answer was lost.
#[test]
fn a_reused_id_does_not_hide_the_first_request_at_end_of_input() {
    let slow = |ms: u64, text: &str| {
        format!(
            "{}\n",
            json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_slow","arguments":{"ms":ms,"steps":2,"text":text}}})
        )
    };
    let steps = [
        Step::Send(INIT.as_bytes().to_vec()),
        Step::AwaitId(0),
        Step::Send(slow(1200, "first").into_bytes()),
        Step::Send(slow(50, "second").into_bytes()),
        Step::Sleep(Duration::from_millis(300)),
    ];
    let run = run_script(&steps, &[("ZCP_TEST_TOOLS", "1")], Duration::from_secs(10));
    assert!(run.status.success());
    let texts: Vec<String> = run
        .lines()
        .iter()
        .filter(|l| l["id"] == json!(1))
        .map(|l| {
            l["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or("")
                .to_owned()
        })
        .collect();
    assert_eq!(
        texts,
        ["slept 50 ms: second", "slept 1200 ms: first"],
        "{}",
        run.stderr_text()
    );
}
