//! Shared harness for tests that drive the real `zcp` binary over pipes.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// One step of a scripted session.
#[derive(Debug, Clone)]
pub enum Step {
    Send(Vec<u8>),
    Sleep(Duration),
    /// Waits (up to 60 s) until a response with this id has been read.
    AwaitId(i64),
    /// Waits (up to 60 s) until stdout contains this text: a script waits for what the
    /// server said, not for a time that a slow machine may overrun.
    AwaitText(String),
}

/// What a finished run produced.
pub struct Run {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: ExitStatus,
    /// From closing stdin to the process exiting.
    pub exit_after_eof: Duration,
}

impl Run {
    pub fn lines(&self) -> Vec<Value> {
        parse_lines(&self.stdout)
    }
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_zcp"))
}

/// A command with a clean environment (no Zerops credentials from the developer's shell).
pub fn command(env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(binary());
    cmd.env_clear();
    if let Ok(path) = std::env::var("PATH") {
        cmd.env("PATH", path);
    }
    cmd.env(
        "HOME",
        std::env::temp_dir().join("zcp-test-home-does-not-exist"),
    );
    for (key, value) in env {
        cmd.env(key, value);
    }
    cmd
}

pub fn spawn(env: &[(&str, &str)]) -> Child {
    spawn_piped(&mut command(env), Stdio::piped())
}

/// Starts `command` with stdin and stdout piped and stderr as given (`Stdio::null()` where
/// nothing reads it, so a chatty server cannot fill the pipe).
pub fn spawn_piped(command: &mut Command, stderr: Stdio) -> Child {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("spawn zcp")
}

/// Runs a script: writes the steps, closes stdin, reads everything until exit (or kills the
/// process after `limit`).
pub fn run_script(steps: &[Step], env: &[(&str, &str)], limit: Duration) -> Run {
    let mut child = spawn(env);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let seen: Arc<(Mutex<Vec<u8>>, Condvar)> = Arc::default();
    let sink = seen.clone();
    let out_thread = std::thread::spawn(move || {
        let mut reader = BufReader::new(&mut stdout);
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let (lock, cv) = &*sink;
                    lock.lock().unwrap().extend_from_slice(&line);
                    cv.notify_all();
                }
            }
        }
        let (lock, _) = &*sink;
        std::mem::take(&mut *lock.lock().unwrap())
    });
    let err_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    for step in steps {
        match step {
            Step::Send(bytes) => {
                if stdin.write_all(bytes).is_err() {
                    break;
                }
                let _ = stdin.flush();
            }
            Step::Sleep(d) => std::thread::sleep(*d),
            Step::AwaitId(id) => await_text(&seen, &format!("\"id\":{id},")),
            Step::AwaitText(text) => await_text(&seen, text),
        }
    }
    drop(stdin);
    let closed = Instant::now();
    let status = wait_with_limit(&mut child, limit);
    let exit_after_eof = closed.elapsed();
    Run {
        stdout: out_thread.join().unwrap(),
        stderr: err_thread.join().unwrap(),
        status,
        exit_after_eof,
    }
}

fn await_text(seen: &(Mutex<Vec<u8>>, Condvar), needle: &str) {
    let (lock, cv) = seen;
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut out = lock.lock().unwrap();
    while !String::from_utf8_lossy(&out).contains(needle) {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "no {needle:?} on stdout within 60 s");
        out = cv.wait_timeout(out, left).unwrap().0;
    }
}

pub fn wait_with_limit(child: &mut Child, limit: Duration) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let status = child.wait().unwrap();
            panic!("zcp did not exit within {limit:?} (killed: {status:?})");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

pub fn parse_lines(stdout: &[u8]) -> Vec<Value> {
    stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_slice(l).unwrap_or_else(|e| {
                panic!(
                    "stdout line is not JSON ({e}): {}",
                    String::from_utf8_lossy(l)
                )
            })
        })
        .collect()
}

/// Reads a `.in.jsonl` script: lines are sent as written (including a trailing `\r`);
/// `#sleep <ms>` pauses, `#await <text>` waits until stdout contains the text, `#env
/// KEY=VALUE` sets a variable, other `#` lines are comments.
pub fn load_script(path: &Path) -> (Vec<Step>, Vec<(String, String)>) {
    let bytes = std::fs::read(path).unwrap();
    let mut steps = Vec::new();
    let mut env = Vec::new();
    let mut pieces: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if pieces.last().is_some_and(|l| l.is_empty()) {
        pieces.pop();
    }
    for piece in pieces {
        if let Some(rest) = piece.strip_prefix(b"#sleep ") {
            let ms: u64 = String::from_utf8_lossy(rest).trim().parse().unwrap();
            steps.push(Step::Sleep(Duration::from_millis(ms)));
        } else if let Some(rest) = piece.strip_prefix(b"#await ") {
            steps.push(Step::AwaitText(
                String::from_utf8_lossy(rest).trim().to_owned(),
            ));
        } else if let Some(rest) = piece.strip_prefix(b"#env ") {
            let text = String::from_utf8_lossy(rest).trim().to_owned();
            let (k, v) = text.split_once('=').unwrap();
            env.push((k.to_owned(), v.to_owned()));
        } else if piece.starts_with(b"#") {
            continue;
        } else {
            let mut line = piece.to_vec();
            line.push(b'\n');
            steps.push(Step::Send(line));
        }
    }
    (steps, env)
}

/// Replaces the server version in `serverInfo` objects so golden files survive releases.
/// Works on the text, so every other byte (big integer ids included) is compared as sent.
pub fn normalize(line: &str) -> String {
    let version = env!("CARGO_PKG_VERSION");
    line.replace(
        &format!(r#""name":"zcp","title":"Zerops","version":"{version}""#),
        r#""name":"zcp","title":"Zerops","version":"<version>""#,
    )
    .replace(
        &format!(r#""name":"zcp","version":"{version}""#),
        r#""name":"zcp","version":"<version>""#,
    )
}

/// The non-empty lines of an output, as text.
pub fn text_lines(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The ordering key of an output line: responses by id, progress by token, logs together.
pub fn order_key(line: &Value) -> String {
    if let Some(items) = line.as_array() {
        // Batches answer independently of each other: key them by their ids.
        let ids: Vec<String> = items
            .iter()
            .map(|i| i.get("id").map(Value::to_string).unwrap_or_default())
            .collect();
        return format!("batch:{}", ids.join(","));
    }
    if let Some(id) = line.get("id") {
        return format!("id:{id}");
    }
    match line.get("method").and_then(Value::as_str) {
        Some("notifications/progress") => format!("id:{}", line["params"]["progressToken"]),
        Some(method) => format!("method:{method}"),
        None => "other".into(),
    }
}

/// Checks the rules every output line must follow (spec §11 items 1, 15, 28, 30, 72).
pub fn check_invariants(lines: &[Value]) -> Result<(), String> {
    for line in lines {
        let text = line.to_string();
        if line.is_array() {
            for item in line.as_array().unwrap() {
                check_invariants(std::slice::from_ref(item))?;
            }
            continue;
        }
        if line.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(format!("line without jsonrpc 2.0: {text}"));
        }
        if line.get("method").is_some() && line.get("id").is_some() {
            return Err(format!("the server sent a request: {text}"));
        }
        if line.get("result").is_some() && line.get("error").is_some() {
            return Err(format!("result and error together: {text}"));
        }
        if let Some(error) = line.get("error") {
            let code = error
                .get("code")
                .and_then(Value::as_i64)
                .ok_or(format!("error without integer code: {text}"))?;
            if error.get("message").and_then(Value::as_str).is_none() {
                return Err(format!("error without message: {text}"));
            }
            if code == -32000
                || code == -32001
                || (-32099..=-32023).contains(&code)
                || code == -32020
            {
                return Err(format!("forbidden error code {code}: {text}"));
            }
        }
        if let Some(content) = line.get("result").and_then(|r| r.get("content"))
            && content.as_array().is_none_or(|c| c.is_empty())
        {
            return Err(format!("tool result with empty content: {text}"));
        }
        if line.get("method").and_then(Value::as_str) == Some("notifications/message") {
            let level = line["params"]["level"].as_str().unwrap_or("");
            let levels = [
                "debug",
                "info",
                "notice",
                "warning",
                "error",
                "critical",
                "alert",
                "emergency",
            ];
            if !levels.contains(&level) {
                return Err(format!("bad log level: {text}"));
            }
        }
    }
    Ok(())
}

/// Compares output lines with a golden file's: the same lines (byte for byte), and for
/// each key (request id or progress token) the same order. Order across keys is free.
pub fn compare(expected: &[String], actual: &[String]) -> Result<(), String> {
    let show = |lines: &[String]| lines.join("\n");
    let mut expected_sorted = expected.to_vec();
    let mut actual_sorted = actual.to_vec();
    expected_sorted.sort();
    actual_sorted.sort();
    if expected_sorted != actual_sorted {
        return Err(format!(
            "lines differ.\n--- expected\n{}\n--- actual\n{}",
            show(expected),
            show(actual)
        ));
    }
    let key_of =
        |line: &String| order_key(&serde_json::from_str::<Value>(line).unwrap_or(Value::Null));
    let keys: std::collections::BTreeSet<String> = expected.iter().map(key_of).collect();
    for key in keys {
        let exp: Vec<&String> = expected.iter().filter(|l| key_of(l) == key).collect();
        let act: Vec<&String> = actual.iter().filter(|l| key_of(l) == key).collect();
        if exp != act {
            return Err(format!(
                "order differs for {key}.\n--- expected\n{}\n--- actual\n{}",
                show(expected),
                show(actual)
            ));
        }
    }
    Ok(())
}

/// Whether process `pid` still runs (a zombie, exited but not yet reaped, does not count).
pub fn process_alive(pid: impl std::fmt::Display) -> bool {
    let out = Command::new("ps")
        .args(["-o", "stat=", "-p", &pid.to_string()])
        .output()
        .expect("run ps");
    let stat = String::from_utf8_lossy(&out.stdout);
    !stat.trim().is_empty() && !stat.trim().starts_with('Z')
}
