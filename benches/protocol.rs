//! Side-by-side protocol benchmark: zcp against a peer MCP server built on the official
//! Rust SDK (bench/peer, run with its stdio and its pipe transport). Run through
//! `bench/run.sh`, which builds both and writes BENCHMARKS.md; or directly:
//!
//! `cargo bench --bench protocol -- --zcp target/release/zcp --peer bench/peer/target/release/zcp-bench-peer --out BENCHMARKS.md`
//!
//! Every figure is measured here, in one run, on this machine; nothing is asserted.

#[path = "../tests/support/proc_status.rs"]
mod proc_status;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// One server under test.
struct Subject {
    label: String,
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    /// A cheap tool call (name, arguments JSON).
    cheap_call: (String, String),
    /// The simplest tool there is, an echo (name, arguments JSON); runs with `slow_env`.
    echo_call: (String, String),
    /// A tool that sleeps `ms` (name, arguments JSON with `{ms}`).
    slow_call: (String, String),
    /// Environment that enables the slow tool.
    slow_env: Vec<(String, String)>,
}

struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// Responses read while waiting for another id (concurrent calls answer out of order).
    early: Vec<String>,
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

impl Subject {
    fn spawn(&self, extra_env: &[(String, String)]) -> Session {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in self.env.iter().chain(extra_env) {
            cmd.env(k, v);
        }
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.program));
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Session {
            child,
            stdin,
            stdout,
            early: Vec::new(),
        }
    }
}

impl Session {
    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    /// Reads lines until the response with `id` (skipping notifications).
    fn until_id(&mut self, id: u64) -> String {
        let needle = format!("\"id\":{id},");
        if let Some(i) = self.early.iter().position(|l| l.contains(&needle)) {
            return self.early.swap_remove(i);
        }
        loop {
            let mut line = String::new();
            if self.stdout.read_line(&mut line).expect("read") == 0 {
                panic!("server closed stdout while waiting for id {id}");
            }
            if line.contains(&needle) {
                return line;
            }
            if line.contains("\"id\":") {
                self.early.push(line);
            }
        }
    }

    fn handshake(&mut self) {
        self.send(INIT);
        self.until_id(0);
        self.send(INITIALIZED);
    }

    fn rss_kib(&self) -> u64 {
        proc_status::status_kib(&self.child.id().to_string(), "VmRSS").unwrap_or(0)
    }

    /// Closes stdin and returns how long the process took to exit (capped at 10 s).
    fn close_and_time_exit(mut self) -> Duration {
        drop(self.stdin.take());
        let started = Instant::now();
        loop {
            if let Ok(Some(_)) = self.child.try_wait() {
                return started.elapsed();
            }
            if started.elapsed() > Duration::from_secs(10) {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return started.elapsed();
            }
            // A fine poll (`try_wait` is one non-blocking waitpid): exits take about a
            // millisecond, and a coarse step would round both subjects to the same steps.
            std::thread::sleep(Duration::from_micros(20));
        }
    }
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index]
}

struct Row {
    name: &'static str,
    values: Vec<f64>,
    unit: &'static str,
    /// Whether a smaller value is better.
    lower_is_better: bool,
}

/// One measured figure: name, value, unit, whether lower is better.
type Figure = (&'static str, f64, &'static str, bool);

fn measure(subject: &Subject) -> Vec<Figure> {
    let mut out = Vec::new();
    // Spawn -> initialize answer.
    let mut spawn_init = Vec::new();
    let mut spawn_list = Vec::new();
    let mut idle_exits = Vec::new();
    for _ in 0..40 {
        let started = Instant::now();
        let mut s = subject.spawn(&[]);
        s.send(INIT);
        s.until_id(0);
        spawn_init.push(started.elapsed());
        idle_exits.push(s.close_and_time_exit());

        let started = Instant::now();
        let mut s = subject.spawn(&[]);
        s.send(INIT);
        s.send(INITIALIZED);
        s.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
        s.until_id(1);
        spawn_list.push(started.elapsed());
        idle_exits.push(s.close_and_time_exit());
    }
    out.push((
        "spawn → initialize answer, p50",
        ms(percentile(&mut spawn_init, 0.5)),
        "ms",
        true,
    ));
    out.push((
        "spawn → tools/list answer, p50",
        ms(percentile(&mut spawn_list, 0.5)),
        "ms",
        true,
    ));

    let mut s = subject.spawn(&[]);
    s.handshake();
    out.push((
        "resident memory after initialize",
        s.rss_kib() as f64 / 1024.0,
        "MiB",
        true,
    ));
    let mut pings = Vec::new();
    for id in 1..=5000u64 {
        let started = Instant::now();
        s.send(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
        s.until_id(id);
        pings.push(started.elapsed());
    }
    out.push((
        "ping round trip p50",
        us(percentile(&mut pings, 0.5)),
        "µs",
        true,
    ));
    out.push((
        "ping round trip p99",
        us(percentile(&mut pings, 0.99)),
        "µs",
        true,
    ));

    // Calls 10 000-10 199 warm up (not recorded), here and for the echo below: the first
    // calls after a handshake are slower, more so for some servers than for others.
    let (tool, args) = &subject.cheap_call;
    let mut calls = Vec::new();
    for id in 10_000..12_200u64 {
        let started = Instant::now();
        s.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args}}}}}"#
        ));
        s.until_id(id);
        if id >= 10_200 {
            calls.push(started.elapsed());
        }
    }
    out.push((
        "cheap tools/call p50 (zcp: zerops_knowledge search; peer: echo)",
        us(percentile(&mut calls, 0.5)),
        "µs",
        true,
    ));
    out.push((
        "cheap tools/call p99 (zcp: zerops_knowledge search; peer: echo)",
        us(percentile(&mut calls, 0.99)),
        "µs",
        true,
    ));

    // Pipelined throughput: one thread writes, this one reads.
    let total = 100_000u64;
    let mut stdin = s.stdin.take().expect("stdin");
    let started = Instant::now();
    let writer = std::thread::spawn(move || {
        let mut batch = String::with_capacity(64 * 1024);
        for id in 0..total {
            batch.push_str(&format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}}\n",
                100_000 + id
            ));
            if batch.len() > 60_000 {
                stdin.write_all(batch.as_bytes()).expect("write");
                batch.clear();
            }
        }
        stdin.write_all(batch.as_bytes()).expect("write");
        stdin.flush().expect("flush");
        stdin
    });
    let mut seen = 0;
    let mut line = String::new();
    while seen < total {
        line.clear();
        if s.stdout.read_line(&mut line).expect("read") == 0 {
            break;
        }
        seen += 1;
    }
    let elapsed = started.elapsed();
    s.stdin = Some(writer.join().expect("writer"));
    out.push((
        "pipelined pings per second",
        seen as f64 / elapsed.as_secs_f64(),
        "req/s",
        false,
    ));
    out.push((
        "resident memory after load",
        s.rss_kib() as f64 / 1024.0,
        "MiB",
        true,
    ));
    out.push((
        "exit after stdin EOF, idle after the load above",
        ms(s.close_and_time_exit()),
        "ms",
        true,
    ));
    out.push((
        "exit after stdin EOF, idle, p50 of 80 fresh sessions",
        ms(percentile(&mut idle_exits, 0.5)),
        "ms",
        true,
    ));

    // Concurrency: one slow call, then eight at once.
    let (slow_tool, slow_args) = &subject.slow_call;
    let slow = |id: u64| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{slow_tool}","arguments":{}}}}}"#,
            slow_args.replace("{ms}", "500")
        )
    };
    let mut s = subject.spawn(&subject.slow_env);
    s.handshake();
    // The same work on both sides: echo a short text.
    let (echo_tool, echo_args) = &subject.echo_call;
    let mut echoes = Vec::new();
    for id in 20_000..22_200u64 {
        let started = Instant::now();
        s.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{echo_tool}","arguments":{echo_args}}}}}"#
        ));
        s.until_id(id);
        if id >= 20_200 {
            echoes.push(started.elapsed());
        }
    }
    out.push((
        "echo tools/call p50 (zcp: test_echo)",
        us(percentile(&mut echoes, 0.5)),
        "µs",
        true,
    ));
    out.push((
        "echo tools/call p99 (zcp: test_echo)",
        us(percentile(&mut echoes, 0.99)),
        "µs",
        true,
    ));
    let started = Instant::now();
    s.send(&slow(1));
    s.until_id(1);
    let one = started.elapsed();
    let started = Instant::now();
    for id in 2..10 {
        s.send(&slow(id));
    }
    for id in 2..10 {
        s.until_id(id);
    }
    let eight = started.elapsed();
    out.push(("one 500 ms call", ms(one), "ms", true));
    out.push(("eight concurrent 500 ms calls", ms(eight), "ms", true));
    // EOF with a long call in flight.
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{{"name":"{slow_tool}","arguments":{}}}}}"#,
        slow_args.replace("{ms}", "30000")
    );
    s.send(&long);
    std::thread::sleep(Duration::from_millis(100));
    out.push((
        "exit after stdin EOF, call in flight",
        ms(s.close_and_time_exit()),
        "ms",
        true,
    ));

    let size = std::fs::metadata(&subject.program)
        .map(|m| m.len())
        .unwrap_or(0);
    out.push(("binary size", size as f64 / (1024.0 * 1024.0), "MiB", true));
    out
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1_000_000.0
}

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned())
            })
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    format!("{cpu}, {cores} cores, Linux {}", kernel.trim())
}

fn main() {
    let Some(zcp) = arg("--zcp") else {
        eprintln!(
            "usage: cargo bench --bench protocol -- --zcp <zcp> --peer <peer> [--out BENCHMARKS.md]"
        );
        return;
    };
    let peer = arg("--peer");
    let mut subjects = vec![Subject {
        label: "zcp".into(),
        program: zcp.clone(),
        args: vec![],
        env: vec![],
        cheap_call: (
            "zerops_knowledge".into(),
            r#"{"query":"postgresql connection string","limit":3}"#.into(),
        ),
        echo_call: ("test_echo".into(), r#"{"text":"hello"}"#.into()),
        slow_call: ("test_slow".into(), r#"{"ms":{ms},"steps":1}"#.into()),
        slow_env: vec![("ZCP_TEST_TOOLS".into(), "1".into())],
    }];
    if let Some(peer) = &peer {
        for transport in ["stdio", "pipe"] {
            subjects.push(Subject {
                label: format!("rmcp ({transport})"),
                program: peer.clone(),
                args: vec![transport.into()],
                env: vec![],
                cheap_call: ("echo".into(), r#"{"text":"hello"}"#.into()),
                echo_call: ("echo".into(), r#"{"text":"hello"}"#.into()),
                slow_call: ("sleep".into(), r#"{"ms":{ms}}"#.into()),
                slow_env: vec![],
            });
        }
    }
    // Other work on a shared machine comes and goes: the subjects take turns, round after
    // round, and each figure is the best of its rounds, so a busy moment cannot favour one.
    let rounds: usize = arg("--rounds")
        .and_then(|r| r.parse().ok())
        .unwrap_or(3)
        .max(1);
    let mut runs: Vec<Vec<Vec<Figure>>> = vec![Vec::new(); subjects.len()];
    for round in 1..=rounds {
        for (subject, runs) in subjects.iter().zip(&mut runs) {
            eprintln!("round {round}/{rounds}: measuring {} ...", subject.label);
            runs.push(measure(subject));
        }
    }
    let results: Vec<(String, Vec<Figure>)> = subjects
        .iter()
        .zip(runs)
        .map(|(subject, runs)| {
            let mut best = best_of(runs);
            if subject.cheap_call == subject.echo_call {
                cheap_row_takes_the_better_echo(&mut best);
            }
            (subject.label.clone(), best)
        })
        .collect();
    let rows: Vec<Row> = results[0]
        .1
        .iter()
        .enumerate()
        .map(|(i, (name, _, unit, lower))| Row {
            name,
            values: results.iter().map(|(_, r)| r[i].1).collect(),
            unit,
            lower_is_better: *lower,
        })
        .collect();
    let mut table = String::new();
    let labels: Vec<&str> = results.iter().map(|(l, _)| l.as_str()).collect();
    table.push_str(&format!(
        "| measure | {} | zcp ÷ best peer | zcp at least as good |\n",
        labels.join(" | ")
    ));
    table.push_str(&format!("|---|{}---|---|\n", "---|".repeat(labels.len())));
    for row in &rows {
        let cells: Vec<String> = row
            .values
            .iter()
            .map(|v| format!("{} {}", fmt(*v), row.unit))
            .collect();
        let ours = row.values[0];
        let peers = &row.values[1..];
        let (ratio, good) = if peers.is_empty() {
            ("–".to_owned(), "–")
        } else {
            let best = if row.lower_is_better {
                peers.iter().copied().fold(f64::INFINITY, f64::min)
            } else {
                peers.iter().copied().fold(0.0, f64::max)
            };
            let ratio = if best == 0.0 { f64::NAN } else { ours / best };
            let good = if row.lower_is_better {
                ours <= best
            } else {
                ours >= best
            };
            (format!("{ratio:.2}"), if good { "yes" } else { "no" })
        };
        table.push_str(&format!(
            "| {} | {} | {ratio} | {good} |\n",
            row.name,
            cells.join(" | ")
        ));
    }
    let report = format!(
        "Machine: {}. zcp: {} (`{zcp}`). Peer: rmcp {} (bench/peer), release build (LTO, \
stripped), with its stdio and its pipe transport. One run of `bench/run.sh`: the subjects take \
turns for {rounds} rounds and each figure is the best of its rounds (the peer's cheap call is \
its echo: that row shows the better of its two echo measurements); lower is better except \
throughput.\n\n{table}",
        machine(),
        version_of(&zcp),
        arg("--peer-lock")
            .and_then(|lock| locked_version(&lock, "rmcp"))
            .unwrap_or_else(|| "(version unknown)".into()),
    );
    // The size row's context: the peer as cargo builds it by default (the tuned build above
    // is smaller than what an rmcp server usually ships), and the tuned peer linked exactly
    // as zcp's artifact is (the table sets a static zcp beside a dynamically linked peer).
    let ours = rows.last().map_or(0.0, |r| r.values[0]);
    let mut report = report;
    for (flag, how) in [
        (
            "--peer-default",
            "built with cargo's default release profile (no LTO, 16 codegen units, debug info \
stripped, symbols kept)",
        ),
        (
            "--peer-static",
            "linked statically as zcp's binary is (`crt-static`, non-PIE, identical-code folding; \
the C library's static parts included)",
        ),
    ] {
        if let Some(path) = arg(flag) {
            let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) as f64;
            let mib = bytes / (1024.0 * 1024.0);
            report.push_str(&format!(
                "\nThe same peer {how} is {} MiB; zcp's binary is {:.2} of that.\n",
                fmt(mib),
                ours / mib
            ));
        }
    }
    println!("{report}");
    if let Some(out) = arg("--out") {
        let existing = std::fs::read_to_string(&out).unwrap_or_default();
        let start = "<!-- protocol-bench:start -->";
        let end = "<!-- protocol-bench:end -->";
        let block = format!("{start}\n{report}{end}");
        let updated = match (existing.find(start), existing.find(end)) {
            (Some(a), Some(b)) if b > a => {
                format!("{}{}{}", &existing[..a], block, &existing[b + end.len()..])
            }
            _ => format!("{existing}\n## Protocol\n\n{block}\n"),
        };
        std::fs::write(&out, updated).expect("write report");
    }
}

/// Per figure, the best value over the rounds (lowest, or highest where higher is better).
/// The peer's cheap call is its echo: one call, also measured in the echo row's session.
/// The cheap row takes the better of the two, so a noisy session of the peer cannot make
/// zcp look better (one run read the peer's echo at 72 µs there and 40 µs in the echo
/// row). The echo rows stay as measured: there both sides get the same number of tries.
fn cheap_row_takes_the_better_echo(figures: &mut [Figure]) {
    for (cheap, echo) in [
        ("cheap tools/call p50", "echo tools/call p50"),
        ("cheap tools/call p99", "echo tools/call p99"),
    ] {
        let i = figures.iter().position(|f| f.0.starts_with(cheap));
        let j = figures.iter().position(|f| f.0.starts_with(echo));
        if let (Some(i), Some(j)) = (i, j) {
            figures[i].1 = figures[i].1.min(figures[j].1);
        }
    }
}

fn best_of(runs: Vec<Vec<Figure>>) -> Vec<Figure> {
    let mut runs = runs.into_iter();
    let mut best = runs.next().unwrap_or_default();
    for run in runs {
        for (kept, new) in best.iter_mut().zip(run) {
            let better = if kept.3 {
                new.1 < kept.1
            } else {
                new.1 > kept.1
            };
            if better {
                kept.1 = new.1;
            }
        }
    }
    best
}

/// The first line `<binary> --version` prints.
fn version_of(program: &str) -> String {
    Command::new(program)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_owned))
        .unwrap_or_else(|| "zcp (version unknown)".into())
}

/// The version of `package` recorded in a Cargo.lock.
fn locked_version(lock: &str, package: &str) -> Option<String> {
    let text = std::fs::read_to_string(lock).ok()?;
    let needle = format!("name = \"{package}\"\nversion = \"");
    let start = text.find(&needle)? + needle.len();
    let end = start + text[start..].find('"')?;
    Some(text[start..end].to_owned())
}

fn fmt(v: f64) -> String {
    if v >= 1000.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}
