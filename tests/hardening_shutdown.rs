//! Shutdown under work, through the real binary against the loopback simulator: while a
//! restart is being polled (with a progress token) and a deploy runs a fake `zcli` that
//! sleeps and leaves a grandchild, stdin EOF, SIGINT or SIGTERM ends the process within
//! the engine's deadlines, leaves no child process behind and no partial line on stdout.
#![cfg(unix)]

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use zcp::sim::{self, SimConfig, demo};

const ZEROPS_YML: &str = "zerops:
  - setup: api
    build:
      base: nodejs@22
      buildCommands:
        - npm ci
      deployFiles: ./
    run:
      base: nodejs@22
      ports:
        - port: 3000
          httpSupport: true
      start: node index.js
";

#[derive(Clone, Copy, Debug)]
enum Ending {
    Eof,
    Signal(&'static str),
}

/// Every live process whose command line mentions `needle` (our unique temp paths).
fn processes_mentioning(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'));
        if !zombie && String::from_utf8_lossy(&cmdline).contains(needle) {
            found.push(pid);
        }
    }
    found
}

fn fake_zcli() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/zcli/fake-zcli")
}

fn shutdown_under_work(ending: Ending) {
    let sim = sim::start(
        SimConfig {
            process_duration: Duration::from_secs(120),
            build_duration: Duration::from_secs(120),
            ..SimConfig::default()
        },
        demo::seed(),
    )
    .unwrap();
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(fake_zcli(), bin.path().join("zcli")).unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("zerops.yml"), ZEROPS_YML).unwrap();
    std::fs::write(
        work.path().join(".fake-zcli.behaviour"),
        "stdout=pushing\nignore_term=1\ngrandchild=1\nsleep=120\n",
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let base_url = sim.base_url();
    let mut child = support::spawn_piped(
        &mut support::command(&[
            ("PATH", path.as_str()),
            ("ZEROPS_TOKEN", demo::DEMO_TOKEN),
            ("ZEROPS_API_HOST", base_url.as_str()),
            ("ZCP_POLL_FAST_MS", "50"),
            ("ZCP_POLL_SLOW_MS", "100"),
        ]),
        Stdio::null(),
    );
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let reader = std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut all = Vec::new();
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    all.extend_from_slice(&line);
                    let _ = tx.send(line);
                }
            }
        }
        all
    });
    let requests = [
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"zerops_manage","arguments":{"serviceHostname":"api","action":"restart"},"_meta":{"progressToken":"restart"}}}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"zerops_deploy","arguments":{"serviceHostname":"api","workingDir":work.path().display().to_string()},"_meta":{"progressToken":"deploy"}}}),
    ];
    for request in &requests {
        writeln!(stdin, "{request}").unwrap();
    }
    stdin.flush().unwrap();

    // Wait until both are under way: progress for the restart, and zcli's grandchild.
    let record = work.path().join(".fake-zcli.record");
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut restart_progress = false;
    let mut grandchild: Option<u32> = None;
    while !(restart_progress && grandchild.is_some()) {
        assert!(
            Instant::now() < deadline,
            "work did not start ({restart_progress}, {grandchild:?})"
        );
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(50)) {
            let value: Value = serde_json::from_slice(&line).unwrap();
            assert!(
                value.get("id").is_none_or(|id| id == 0),
                "finished early: {value}"
            );
            restart_progress |= value["params"]["progressToken"] == "restart";
        }
        grandchild = std::fs::read_to_string(&record).ok().and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("GRANDCHILD "))
                .and_then(|pid| pid.trim().parse().ok())
        });
    }
    let work_needle = work.path().display().to_string();
    assert!(
        !processes_mentioning(&work_needle).is_empty(),
        "fake zcli not found"
    );

    let started = Instant::now();
    let limit = match ending {
        Ending::Eof => {
            drop(stdin);
            // 1.5 s grace, then cancellation, cleanup (0.4 s at most) and the final drain.
            Duration::from_millis(4500)
        }
        Ending::Signal(name) => {
            let sent = Command::new("kill")
                .args([&format!("-{name}"), &child.id().to_string()])
                .status()
                .unwrap();
            assert!(sent.success());
            Duration::from_secs(5)
        }
    };
    let status = support::wait_with_limit(&mut child, Duration::from_secs(15));
    let took = started.elapsed();
    assert!(status.success(), "{ending:?}: {status:?}");
    assert!(
        took < limit,
        "{ending:?}: exit took {took:?} (limit {limit:?})"
    );

    let out = reader.join().unwrap();
    assert!(out.is_empty() || out.ends_with(b"\n"), "partial last line");
    let lines = support::parse_lines(&out); // panics on a line that is not JSON
    assert!(lines.iter().all(|l| l.is_object()));
    // Each request answered at most once; nothing after the cancellation point is torn.
    for id in [1, 2] {
        assert!(lines.iter().filter(|l| l["id"] == json!(id)).count() <= 1);
    }

    // No orphans: the fake zcli (its argv names the work dir) and its grandchild are gone.
    let grandchild = grandchild.unwrap();
    let gone_by = Instant::now() + Duration::from_secs(2);
    while (support::process_alive(grandchild) || !processes_mentioning(&work_needle).is_empty())
        && Instant::now() < gone_by
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !support::process_alive(grandchild),
        "{ending:?}: zcli's grandchild {grandchild} survived"
    );
    let left = processes_mentioning(&work_needle);
    assert!(left.is_empty(), "{ending:?}: processes left: {left:?}");
    drop(sim);
}

#[test]
fn eof_under_work_exits_in_time_without_orphans() {
    shutdown_under_work(Ending::Eof);
}

#[test]
fn sigint_under_work_exits_in_time_without_orphans() {
    shutdown_under_work(Ending::Signal("INT"));
}

#[test]
fn sigterm_under_work_exits_in_time_without_orphans() {
    shutdown_under_work(Ending::Signal("TERM"));
}
