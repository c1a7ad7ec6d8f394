//! The zcli child-process runner against a fake zcli script (`fixtures/zcli/fake-zcli`):
//! clean environment, output tail, exit codes, timeout and cancellation killing the whole
//! process group, even when the child ignores SIGTERM.
#![cfg(unix)]

mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use zcp::cancel::CancelToken;
use zcp::ops::zcli::{self, Invocation};

fn fake() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/zcli/fake-zcli")
}

fn invocation(work: &Path, timeout: Duration) -> Invocation {
    Invocation {
        program: fake(),
        args: vec![
            "push".into(),
            "--service-id".into(),
            "svc1".into(),
            "--working-dir".into(),
            work.display().to_string(),
        ],
        env: zcli::child_env(
            vec![
                ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
                ("ZEROPS_SERVICEID".into(), "leak".into()),
            ]
            .into_iter(),
            &[
                ("ZEROPS_TOKEN", "tok-123"),
                ("ZEROPS_CLI_TERMINAL_MODE", "disabled"),
            ],
        ),
        cwd: std::env::temp_dir(),
        timeout,
    }
}

fn behave(work: &Path, lines: &str) {
    std::fs::write(work.join(".fake-zcli.behaviour"), lines).unwrap();
}

fn record(work: &Path) -> String {
    std::fs::read_to_string(work.join(".fake-zcli.record")).unwrap()
}

#[test]
fn records_argv_and_a_clean_environment_and_keeps_the_output() {
    let work = tempfile::tempdir().unwrap();
    behave(
        work.path(),
        "stdout=building\nstderr=Application deployed\nexit=0\n",
    );
    let outcome = zcli::run(
        &invocation(work.path(), Duration::from_secs(20)),
        &CancelToken::new(),
    )
    .unwrap();
    assert_eq!(outcome.exit_code, Some(0));
    assert!(!outcome.timed_out && !outcome.cancelled);
    assert!(outcome.output_tail.contains("building"));
    assert!(outcome.output_tail.contains("Application deployed"));
    let rec = record(work.path());
    assert!(rec.contains("ARG --service-id\nARG svc1\n"), "{rec}");
    assert!(rec.contains("ENV ZEROPS_TOKEN=tok-123"));
    assert!(
        !rec.contains("ZEROPS_SERVICEID"),
        "ZEROPS_ flag variables must not reach zcli"
    );
    assert!(rec.contains("ENV ZEROPS_CLI_TERMINAL_MODE=disabled"));
}

#[test]
fn a_failing_exit_code_is_reported() {
    let work = tempfile::tempdir().unwrap();
    behave(work.path(), "stderr=Application deploy failed\nexit=1\n");
    let outcome = zcli::run(
        &invocation(work.path(), Duration::from_secs(20)),
        &CancelToken::new(),
    )
    .unwrap();
    assert_eq!(outcome.exit_code, Some(1));
    assert!(outcome.output_tail.contains("Application deploy failed"));
}

#[test]
fn a_timeout_kills_a_child_that_ignores_sigterm_and_its_grandchildren() {
    let work = tempfile::tempdir().unwrap();
    behave(work.path(), "ignore_term=1\ngrandchild=1\nsleep=60\n");
    let started = Instant::now();
    let outcome = zcli::run(
        &invocation(work.path(), Duration::from_millis(800)),
        &CancelToken::new(),
    )
    .unwrap();
    assert!(outcome.timed_out);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the run must end soon after its timeout"
    );
    let rec = record(work.path());
    let grandchild = rec
        .lines()
        .find_map(|l| l.strip_prefix("GRANDCHILD "))
        .expect("grandchild pid recorded");
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        !support::process_alive(grandchild),
        "the grandchild {grandchild} must not outlive the run"
    );
}

#[test]
fn cancellation_stops_the_child_quickly() {
    let work = tempfile::tempdir().unwrap();
    behave(work.path(), "sleep=60\n");
    let cancel = CancelToken::new();
    let trigger = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        trigger.cancel();
    });
    let outcome = zcli::run(&invocation(work.path(), Duration::from_secs(60)), &cancel).unwrap();
    canceller.join().unwrap();
    assert!(outcome.cancelled && !outcome.timed_out);
}

#[test]
fn a_missing_program_is_a_spawn_error() {
    let work = tempfile::tempdir().unwrap();
    let mut inv = invocation(work.path(), Duration::from_secs(5));
    inv.program = work.path().join("no-such-zcli");
    assert!(zcli::run(&inv, &CancelToken::new()).is_err());
}
