//! An interactive session with the real `zcp` binary, for tests that change the simulator
//! between calls (faults, state) or watch timing (progress). Every line zcp writes is kept
//! with the moment it was read.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "../support/mod.rs"]
pub mod support;

use zcp::sim::{self, SimConfig, SimHandle, TokenScope, demo};

/// The token tests hand to zcp: scoped to the demo project, easy to grep for.
pub const TOKEN: &str = "sentinel-tools-token-7f3c9a";

/// The longest any single answer may take before a test fails instead of hanging.
pub const ANSWER_LIMIT: Duration = Duration::from_secs(30);

/// The demo account plus [`TOKEN`], with fast processes.
pub fn start_sim(config: SimConfig) -> SimHandle {
    let mut seed = demo::seed();
    seed.tokens.push((
        TOKEN.into(),
        TokenScope::Projects(vec![demo::DEMO_PROJECT_ID.into()]),
    ));
    sim::start(config, seed).unwrap()
}

/// A simulator with processes of 150 ms and builds of 300 ms.
pub fn fast_sim() -> SimHandle {
    start_sim(SimConfig {
        process_duration: Duration::from_millis(150),
        build_duration: Duration::from_millis(300),
        ..SimConfig::default()
    })
}

/// The environment that points zcp at a simulator, with fast polling.
pub fn sim_env(sim: &SimHandle) -> Vec<(String, String)> {
    vec![
        ("ZEROPS_TOKEN".into(), TOKEN.into()),
        ("ZEROPS_API_HOST".into(), sim.base_url()),
        ("ZCP_POLL_FAST_MS".into(), "50".into()),
        ("ZCP_POLL_SLOW_MS".into(), "100".into()),
        ("ZCP_POLL_SLOW_AFTER_MS".into(), "5000".into()),
        ("ZCP_POLL_MAX_MS".into(), "20000".into()),
        ("ZCP_POLL_BUDGET_MS".into(), "10000".into()),
        ("ZCP_HTTP_TIMEOUT_MS".into(), "2000".into()),
    ]
}

/// One line of zcp's stdout and when it arrived.
#[derive(Debug, Clone)]
pub struct Line {
    pub at: Instant,
    pub value: Value,
}

type Shared = Arc<(Mutex<Vec<Line>>, Condvar)>;

pub struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Shared,
    stderr: Option<std::thread::JoinHandle<Vec<u8>>>,
    next_id: i64,
}

/// What a finished session printed.
pub struct Transcript {
    pub stdout: String,
    pub stderr: String,
    pub lines: Vec<Line>,
}

impl Session {
    /// Starts zcp with exactly these variables (plus PATH and a HOME without a zcli login)
    /// and completes the initialize handshake.
    pub fn start(env: &[(String, String)]) -> Session {
        Session::start_with(env, &[])
    }

    /// Like [`Session::start`], with extra command-line arguments.
    pub fn start_with(env: &[(String, String)], args: &[&str]) -> Session {
        let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        Session::start_command(support::command(&pairs).args(args))
    }

    /// Starts a command made by `support::command` (for tests that need more than
    /// UTF-8 variables) and completes the handshake.
    pub fn start_command(command: &mut std::process::Command) -> Session {
        let mut child = support::spawn_piped(command, Stdio::piped());
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let lines: Shared = Arc::default();
        let sink = lines.clone();
        std::thread::spawn(move || {
            let reader = BufReader::new(stdout);
            for line in reader.split(b'\n') {
                let Ok(line) = line else { break };
                if line.is_empty() {
                    continue;
                }
                let value: Value = serde_json::from_slice(&line).unwrap_or_else(
                    |_| json!({"unparsable": String::from_utf8_lossy(&line).into_owned()}),
                );
                let (lock, cv) = &*sink;
                lock.lock().unwrap().push(Line {
                    at: Instant::now(),
                    value,
                });
                cv.notify_all();
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stderr.read_to_end(&mut buf);
            buf
        });
        let mut session = Session {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: Some(stderr),
            next_id: 1,
        };
        session.send(&json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tools-tests","version":"1"}}}));
        session.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        session.wait_for(0);
        session
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn send(&mut self, message: &Value) {
        let mut bytes = message.to_string().into_bytes();
        bytes.push(b'\n');
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(&bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn take_id(&mut self) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Sends a tools/call and returns its id without waiting.
    pub fn start_call(&mut self, name: &str, arguments: Value, progress: Option<&str>) -> i64 {
        let id = self.take_id();
        let mut params = json!({"name": name, "arguments": arguments});
        if let Some(token) = progress {
            params["_meta"] = json!({"progressToken": token});
        }
        self.send(&json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":params}));
        id
    }

    /// Calls a tool and waits for its result (the `result` object).
    pub fn call(&mut self, name: &str, arguments: Value) -> Value {
        let id = self.start_call(name, arguments, None);
        self.result(id)
    }

    /// Any request; returns the whole response line.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.take_id();
        self.send(&json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}));
        self.wait_for(id).value
    }

    /// Waits for the response with this id.
    pub fn wait_for(&self, id: i64) -> Line {
        self.wait_for_within(id, ANSWER_LIMIT)
            .unwrap_or_else(|| panic!("no answer to request {id} within {ANSWER_LIMIT:?}"))
    }

    pub fn wait_for_within(&self, id: i64, limit: Duration) -> Option<Line> {
        let (lock, cv) = &*self.lines;
        let deadline = Instant::now() + limit;
        let mut lines = lock.lock().unwrap();
        loop {
            if let Some(line) = lines
                .iter()
                .find(|l| l.value.get("id").and_then(Value::as_i64) == Some(id))
            {
                return Some(line.clone());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            lines = cv.wait_timeout(lines, left).unwrap().0;
        }
    }

    /// The `result` of a tools/call response.
    pub fn result(&self, id: i64) -> Value {
        let line = self.wait_for(id);
        line.value
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("not a result: {}", line.value))
    }

    /// Every line read so far.
    pub fn lines(&self) -> Vec<Line> {
        self.lines.0.lock().unwrap().clone()
    }

    /// Progress notifications for a token, in arrival order.
    pub fn progress(&self, token: &str) -> Vec<Line> {
        self.lines()
            .into_iter()
            .filter(|l| {
                l.value["method"] == "notifications/progress"
                    && l.value["params"]["progressToken"] == token
            })
            .collect()
    }

    /// Waits for the first progress notification of a token.
    pub fn wait_progress(&self, token: &str) -> Line {
        let deadline = Instant::now() + ANSWER_LIMIT;
        loop {
            if let Some(line) = self.progress(token).into_iter().next() {
                return line;
            }
            assert!(Instant::now() < deadline, "no progress for {token}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Whether zcp still answers: a ping and a cheap tool call.
    pub fn assert_alive(&mut self) {
        let pong = self.request("ping", json!({}));
        assert_eq!(pong["result"], json!({}), "ping after: {pong}");
        let knowledge = self.call("zerops_knowledge", json!({"query": "nodejs"}));
        assert_ne!(knowledge["isError"], json!(true), "{knowledge}");
    }

    /// Closes stdin and collects everything zcp printed.
    pub fn finish(mut self) -> Transcript {
        drop(self.stdin.take());
        support::wait_with_limit(&mut self.child, Duration::from_secs(20));
        let stderr = self.stderr.take().unwrap().join().unwrap();
        // The reader thread ends at EOF; give it a moment to store the last lines.
        std::thread::sleep(Duration::from_millis(20));
        let lines = self.lines();
        let stdout = lines
            .iter()
            .map(|l| l.value.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        Transcript {
            stdout,
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
            lines,
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.stdin.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The JSON a tool result carries: `structuredContent`, or the parsed text for errors.
pub fn body(result: &Value) -> Value {
    if let Some(structured) = result.get("structuredContent") {
        return structured.clone();
    }
    let text = result["content"][0]["text"].as_str().unwrap_or("");
    serde_json::from_str(text).unwrap_or_else(|_| json!({"text": text}))
}

/// The error code of a failed tool result (`None` for a success).
pub fn error_code(result: &Value) -> Option<String> {
    if result["isError"] != json!(true) {
        return None;
    }
    body(result)["code"].as_str().map(str::to_owned)
}

/// Fields whose schema says `null` is a value: a dry-run service's `mode` (none given in
/// the YAML) and a killed zcli's `exitCode`.
const NULLABLE: [&str; 2] = ["mode", "exitCode"];

/// Results say "nothing" with `[]` or by leaving a field out, not with `null` (apart from
/// the [`NULLABLE`] fields).
pub fn assert_no_null(value: &Value, path: &str) {
    match value {
        Value::Null if NULLABLE.iter().any(|f| path.ends_with(&format!(".{f}"))) => {}
        Value::Null => panic!("null at {path}"),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                assert_no_null(item, &format!("{path}[{i}]"));
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                assert_no_null(item, &format!("{path}.{key}"));
            }
        }
        _ => {}
    }
}

/// Asserts a tool error with this code and a non-empty error and suggestion; returns it.
pub fn expect_error(result: &Value, code: &str) -> Value {
    assert_eq!(
        error_code(result).as_deref(),
        Some(code),
        "expected {code}: {result}"
    );
    let body = body(result);
    assert_no_null(&body, "error");
    assert!(
        body["error"].as_str().is_some_and(|s| !s.is_empty()),
        "{body}"
    );
    assert!(
        body["suggestion"].as_str().is_some_and(|s| !s.is_empty()),
        "no suggestion: {body}"
    );
    body
}

/// Asserts a successful tool result and returns its JSON.
pub fn expect_ok(result: &Value) -> Value {
    assert_ne!(result["isError"], json!(true), "unexpected error: {result}");
    let body = body(result);
    // The text content carries the same JSON for older clients.
    let text = result["content"][0]["text"].as_str().unwrap_or("");
    let parsed: Value = serde_json::from_str(text).expect("text content is JSON");
    assert_eq!(parsed, body, "text and structuredContent differ");
    assert_no_null(&body, "result");
    body
}
