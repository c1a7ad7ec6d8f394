//! Running `zcli` as a child process: finding it, giving it a clean environment, capturing
//! the tail of its output, and killing its whole process group on timeout, cancellation or
//! shutdown. Knows nothing of MCP; deploy logic lives in `ops::deploy`.
//!
//! Rules that come from how zcli behaves: it reads `ZEROPS_<FLAG>` variables as flags, so
//! those are removed; it prompts when it lacks a TTY and an id, so stdin is closed and
//! callers must pass every id; it spawns helpers of its own, so the child gets its own
//! process group and the group is what gets killed (on Windows: its process tree).

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::auth::Os;
use crate::cancel::CancelToken;

/// How much of the child's output is kept (the end of it).
pub const OUTPUT_TAIL_BYTES: usize = 64 * 1024;
/// How long a child gets between SIGTERM and SIGKILL.
const TERM_GRACE: Duration = Duration::from_millis(300);

/// What went wrong before the child could run.
#[derive(Debug)]
pub enum RunError {
    /// The program could not be started.
    Spawn {
        program: PathBuf,
        source: std::io::Error,
    },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Spawn { program, source } => {
                write!(f, "cannot start {}: {source}", program.display())
            }
        }
    }
}

impl std::error::Error for RunError {}

/// One run of the child.
#[derive(Debug, Clone)]
pub struct Invocation {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// The complete environment of the child (nothing is inherited).
    pub env: Vec<(OsString, OsString)>,
    /// Where the child starts; choose a directory without a `.zcli.yml`.
    pub cwd: PathBuf,
    pub timeout: Duration,
}

/// How the run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The exit code, `None` when killed by a signal.
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub cancelled: bool,
    /// Ended because `on_tick` asked for it.
    pub stopped: bool,
    /// The last [`OUTPUT_TAIL_BYTES`] of stdout and stderr, interleaved as read.
    pub output_tail: String,
    pub duration_ms: u64,
}

/// A byte buffer that keeps only its most recent `limit` bytes.
struct Tail {
    bytes: VecDeque<u8>,
    limit: usize,
    /// Every byte ever pushed, counted: where a reader of new output left off.
    pushed: u64,
}

impl Tail {
    fn new(limit: usize) -> Tail {
        Tail {
            bytes: VecDeque::new(),
            limit,
            pushed: 0,
        }
    }

    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend(chunk);
        self.pushed += chunk.len() as u64;
        let excess = self.bytes.len().saturating_sub(self.limit);
        self.bytes.drain(..excess);
    }

    /// The bytes pushed since `mark` that are still kept, the new mark, and whether some
    /// bytes after `mark` were already dropped.
    fn since(&self, mark: u64) -> (Vec<u8>, u64, bool) {
        let kept_from = self.pushed - self.bytes.len() as u64;
        let skip = usize::try_from(mark.saturating_sub(kept_from)).unwrap_or(usize::MAX);
        let new = self.bytes.iter().skip(skip).copied().collect();
        (new, self.pushed, mark < kept_from)
    }

    fn text(&self) -> String {
        let (a, b) = self.bytes.as_slices();
        let mut all = Vec::with_capacity(a.len() + b.len());
        all.extend_from_slice(a);
        all.extend_from_slice(b);
        String::from_utf8_lossy(&all).into_owned()
    }
}

/// Process groups of children still running, so a shutdown can kill them all.
static LIVE_GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn live_groups() -> std::sync::MutexGuard<'static, Vec<u32>> {
    LIVE_GROUPS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Kills every child group still running (called right before the process exits).
pub fn kill_all_children() {
    let groups: Vec<u32> = live_groups().drain(..).collect();
    for group in groups {
        signal_group(group, Signal::Kill);
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

#[cfg(unix)]
fn signal_group(group: u32, signal: Signal) {
    use nix::sys::signal::{Signal as NixSignal, killpg};
    use nix::unistd::Pid;
    let Ok(pgid) = i32::try_from(group) else {
        return;
    };
    let signal = match signal {
        Signal::Term => NixSignal::SIGTERM,
        Signal::Kill => NixSignal::SIGKILL,
    };
    let _ = killpg(Pid::from_raw(pgid), signal);
}

/// Windows has neither process groups nor a SIGTERM a console program would see, so both
/// signals end the child and everything it started, at once: npm's `zcli.cmd` runs node,
/// which runs zcli.exe, and killing only the first would leave the push running. `taskkill`
/// walks the tree from the child, so this must happen while the child still lives.
#[cfg(windows)]
fn signal_group(group: u32, _signal: Signal) {
    use std::os::windows::process::CommandExt;
    let _ = Command::new(system32("taskkill.exe"))
        .args(["/F", "/T", "/PID", &group.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .creation_flags(CREATE_NO_WINDOW)
        .status();
}

/// A Windows system program by full path (not whatever `PATH` finds under that name).
#[cfg(windows)]
fn system32(program: &str) -> PathBuf {
    std::env::var_os("SystemRoot")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(r"C:\Windows"))
        .join("System32")
        .join(program)
}

/// Windows: start a console program without opening a console window (zcp itself usually
/// has none when an MCP client starts it).
#[cfg(windows)]
const CREATE_NO_WINDOW: u32 = 0x0800_0000;

#[cfg(not(any(unix, windows)))]
fn signal_group(_group: u32, _signal: Signal) {}

/// Runs the child to completion (or until timeout or cancellation) and returns how it ended.
pub fn run(invocation: &Invocation, cancel: &CancelToken) -> Result<Outcome, RunError> {
    run_with_ticks(
        invocation,
        cancel,
        Duration::from_secs(3600),
        &mut |_| false,
        &mut |_| {},
    )
}

/// Like [`run`], calling `on_tick` with the elapsed time about every `every` while the
/// child runs (for progress reports; it answers true to end the child), and `on_line` with
/// each complete line of output as it arrives (stdout and stderr together; a line longer
/// than the kept tail may lose its start).
pub fn run_with_ticks(
    invocation: &Invocation,
    cancel: &CancelToken,
    every: Duration,
    on_tick: &mut dyn FnMut(Duration) -> bool,
    on_line: &mut dyn FnMut(&str),
) -> Result<Outcome, RunError> {
    let started = Instant::now();
    let mut command = Command::new(&invocation.program);
    command
        .args(&invocation.args)
        .env_clear()
        .envs(invocation.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&invocation.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt;
        command.creation_flags(CREATE_NO_WINDOW);
    }
    let mut child = command.spawn().map_err(|source| RunError::Spawn {
        program: invocation.program.clone(),
        source,
    })?;
    let group = child.id();
    live_groups().push(group);
    let tail = Arc::new(Mutex::new(Tail::new(OUTPUT_TAIL_BYTES)));
    let mut lines = LineFeed::default();
    let readers: Vec<_> = [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .flatten()
    .map(|stream| spawn_reader(stream, tail.clone()))
    .collect();

    let deadline = started + invocation.timeout;
    let mut next_tick = started + every;
    let mut timed_out = false;
    let mut cancelled = false;
    let mut stopped = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(err) => {
                crate::warn!("zcli", "cannot wait for the child: {err}");
                break None;
            }
        }
        lines.feed(&tail, on_line);
        if Instant::now() >= next_tick {
            stopped = on_tick(started.elapsed());
            next_tick += every;
        }
        if Instant::now() >= deadline {
            timed_out = true;
        } else if cancel.wait_timeout(Duration::from_millis(50).min(deadline - Instant::now())) {
            cancelled = true;
        }
        if timed_out || cancelled || stopped {
            break terminate(&mut child, group);
        }
    };
    live_groups().retain(|g| *g != group);
    // Readers end when every holder of the pipes has exited; a helper that escaped the
    // group could keep them open, so do not wait for it for long.
    let reader_deadline = Instant::now() + Duration::from_secs(1);
    for reader in readers {
        while !reader.is_finished() && Instant::now() < reader_deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    lines.feed(&tail, on_line);
    lines.finish(on_line);
    let output_tail = tail.lock().map(|t| t.text()).unwrap_or_default();
    Ok(Outcome {
        exit_code: status.and_then(|s| s.code()),
        timed_out,
        cancelled,
        stopped,
        output_tail,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}

/// SIGTERM to the group, then SIGKILL if it is still alive after a short grace (on
/// Windows the first step already ends the whole tree).
fn terminate(child: &mut std::process::Child, group: u32) -> Option<std::process::ExitStatus> {
    signal_group(group, Signal::Term);
    let grace_end = Instant::now() + TERM_GRACE;
    while Instant::now() < grace_end {
        if let Ok(Some(status)) = child.try_wait() {
            // The leader is gone; make sure the rest of the group is too.
            signal_group(group, Signal::Kill);
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    signal_group(group, Signal::Kill);
    let _ = child.kill();
    child.wait().ok()
}

/// The numbers of an nvm directory name (`v22.1.0` → [22, 1, 0]), for ordering; a part
/// that is no number counts as 0.
fn node_version(dir: &Path) -> Vec<u64> {
    dir.file_name()
        .and_then(|n| n.to_str())
        .map(|name| {
            name.trim_start_matches('v')
                .split('.')
                .map(|part| part.parse().unwrap_or(0))
                .collect()
        })
        .unwrap_or_default()
}

/// Turns the tail's new bytes into complete lines, keeping a started line for later.
#[derive(Default)]
struct LineFeed {
    mark: u64,
    partial: Vec<u8>,
    /// The line under way lost its start (the tail dropped it): skip to its end.
    skipping: bool,
}

impl LineFeed {
    fn feed(&mut self, tail: &Mutex<Tail>, on_line: &mut dyn FnMut(&str)) {
        let Ok(tail) = tail.lock() else { return };
        if tail.pushed == self.mark {
            return;
        }
        let (mut new, mark, lost) = tail.since(self.mark);
        drop(tail);
        self.mark = mark;
        if lost {
            self.partial.clear();
            self.skipping = true;
        }
        if self.skipping {
            match new.iter().position(|b| *b == b'\n') {
                Some(end) => {
                    new.drain(..=end);
                    self.skipping = false;
                }
                None => new.clear(),
            }
        }
        self.partial.extend_from_slice(&new);
        if let Some(end) = self.partial.iter().rposition(|b| *b == b'\n') {
            let complete: Vec<u8> = self.partial.drain(..=end).collect();
            for line in String::from_utf8_lossy(&complete).lines() {
                on_line(line);
            }
        }
    }

    /// The last line, when the output did not end with a newline.
    fn finish(&mut self, on_line: &mut dyn FnMut(&str)) {
        if !self.partial.is_empty() {
            on_line(&String::from_utf8_lossy(&std::mem::take(&mut self.partial)));
        }
    }
}

fn spawn_reader(
    mut stream: Box<dyn Read + Send>,
    tail: Arc<Mutex<Tail>>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if let Ok(mut tail) = tail.lock() {
                        tail.push(&buf[..n]);
                    }
                }
            }
        }
    })
}

/// Where to look for `zcli`: the parts of the environment that say it, injectable so
/// every platform's search can be tested on any of them.
#[derive(Debug, Clone)]
pub struct ZcliSearch {
    pub os: Os,
    /// `PATH`, split with this host's separator.
    pub path_var: Option<OsString>,
    /// `HOME` (`USERPROFILE` on Windows).
    pub home: Option<PathBuf>,
    /// Windows: `%APPDATA%`, where npm keeps the `zcli.cmd` of a global install.
    pub appdata: Option<PathBuf>,
    /// Windows: `%ZCLI_INSTALL%`, the folder zcli's `install.ps1` was told to use.
    pub zcli_install: Option<PathBuf>,
}

impl ZcliSearch {
    /// This process's environment.
    pub fn from_env() -> ZcliSearch {
        let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
        let os = Os::current();
        ZcliSearch {
            os,
            path_var: var("PATH"),
            home: os.home_dir(),
            appdata: var("APPDATA").map(PathBuf::from),
            zcli_install: var("ZCLI_INSTALL").map(PathBuf::from),
        }
    }

    /// Every place zcli may be, in the order they are tried: `PATH` first, then where the
    /// installers put it.
    pub fn candidates(&self) -> Vec<PathBuf> {
        // On Windows, a download or install.ps1 gives `zcli.exe`; npm gives a `zcli.cmd`
        // shim that runs node (`Command` runs `.cmd` files through cmd.exe).
        let names: &[&str] = match self.os {
            Os::Windows => &["zcli.exe", "zcli.cmd"],
            Os::Linux | Os::MacOs => &["zcli"],
        };
        let mut dirs: Vec<PathBuf> = self
            .path_var
            .as_ref()
            .map(|p| std::env::split_paths(p).collect())
            .unwrap_or_default();
        match self.os {
            Os::Windows => {
                dirs.extend(self.zcli_install.iter().map(|d| d.join("bin")));
                dirs.extend(self.home.iter().map(|h| h.join(".zerops").join("bin")));
                dirs.extend(self.appdata.iter().map(|a| a.join("npm")));
            }
            Os::Linux | Os::MacOs => {
                if let Some(home) = &self.home {
                    for dir in [
                        ".local/bin",
                        ".npm-global/bin",
                        ".npm/bin",
                        ".volta/bin",
                        "bin",
                        ".bun/bin",
                    ] {
                        dirs.push(home.join(dir));
                    }
                    // nvm keeps one bin directory per installed Node version; newest first.
                    if let Ok(entries) = std::fs::read_dir(home.join(".nvm/versions/node")) {
                        let mut versions: Vec<PathBuf> =
                            entries.flatten().map(|e| e.path()).collect();
                        // By version number (v22.1.0 after v9.11.2), not by text.
                        crate::order::sort_by_key(&mut versions, |v| node_version(v));
                        dirs.extend(versions.iter().rev().map(|v| v.join("bin")));
                    }
                }
                for dir in ["/opt/homebrew/bin", "/usr/local/bin", "/usr/bin"] {
                    dirs.push(PathBuf::from(dir));
                }
            }
        }
        dirs.iter()
            .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
            .collect()
    }

    /// The first candidate that is there and runnable.
    pub fn find(&self) -> Option<PathBuf> {
        self.candidates().into_iter().find(|c| is_executable(c))
    }
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// The child's environment: ours minus every `ZEROPS_*` variable (zcli reads them as
/// flags) except the login-file location, plus the given overrides. Names and values are
/// `OsString`s: a variable that is not valid UTF-8 is passed on as it is, not a panic.
pub fn child_env(
    parent: impl Iterator<Item = (OsString, OsString)>,
    overrides: &[(&str, &str)],
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = parent
        .filter(|(key, _)| {
            let upper = key.to_ascii_uppercase();
            let zcli_flag =
                starts_with(&upper, "ZEROPS_") && upper != OsStr::new("ZEROPS_CLI_DATA_FILE_PATH");
            !zcli_flag && !starts_with(&upper, "ZCP_")
        })
        .collect();
    for (key, value) in overrides {
        env.retain(|(k, _)| k != OsStr::new(key));
        env.push(((*key).into(), (*value).into()));
    }
    env
}

fn starts_with(name: &OsStr, prefix: &str) -> bool {
    name.as_encoded_bytes().starts_with(prefix.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    }

    #[test]
    fn child_env_drops_zerops_flags_but_keeps_the_login_path() {
        let parent = s(&[
            ("PATH", "/bin"),
            ("ZEROPS_SERVICEID", "x"),
            ("zerops_projectid", "y"),
            ("ZEROPS_TOKEN", "secret-parent"),
            ("ZEROPS_CLI_DATA_FILE_PATH", "/tmp/cli.data"),
            ("ZCP_LOG_LEVEL", "debug"),
        ]);
        let env = child_env(
            parent.into_iter(),
            &[
                ("ZEROPS_TOKEN", "ours"),
                ("ZEROPS_CLI_TERMINAL_MODE", "disabled"),
            ],
        );
        assert_eq!(
            env,
            s(&[
                ("PATH", "/bin"),
                ("ZEROPS_CLI_DATA_FILE_PATH", "/tmp/cli.data"),
                ("ZEROPS_TOKEN", "ours"),
                ("ZEROPS_CLI_TERMINAL_MODE", "disabled")
            ])
        );
    }

    #[test]
    fn tail_keeps_the_last_bytes() {
        let mut tail = Tail::new(5);
        tail.push(b"abc");
        tail.push(b"defg");
        assert_eq!(tail.text(), "cdefg");
    }

    /// Output becomes lines as it arrives: a line split across reads comes out whole,
    /// once; the end without a newline comes out at the finish.
    #[test]
    fn output_is_fed_as_whole_lines_once() {
        let tail = Mutex::new(Tail::new(1024));
        let mut feed = LineFeed::default();
        let mut seen: Vec<String> = Vec::new();
        let mut collect = |line: &str| seen.push(line.to_owned());
        tail.lock().unwrap().push(b"one\ntw");
        feed.feed(&tail, &mut collect);
        feed.feed(&tail, &mut collect);
        tail.lock().unwrap().push(b"o\r\nthree");
        feed.feed(&tail, &mut collect);
        feed.finish(&mut collect);
        assert_eq!(seen, ["one", "two", "three"]);
        // Bytes the tail already dropped are skipped, not repeated.
        let small = Mutex::new(Tail::new(4));
        let mut feed = LineFeed::default();
        let mut seen: Vec<String> = Vec::new();
        small.lock().unwrap().push(b"abcdef\ngh\n");
        feed.feed(&small, &mut |line: &str| seen.push(line.to_owned()));
        assert_eq!(seen, ["gh"]);
        // A line longer than the tail is skipped whole, even across feeds.
        small.lock().unwrap().push(b"klmnop");
        feed.feed(&small, &mut |line: &str| seen.push(line.to_owned()));
        small.lock().unwrap().push(b"q\nr\n");
        feed.feed(&small, &mut |line: &str| seen.push(line.to_owned()));
        assert_eq!(seen, ["gh", "r"]);
    }

    #[cfg(unix)]
    #[test]
    fn child_env_passes_on_variables_that_are_not_utf8() {
        use std::os::unix::ffi::OsStringExt;
        let odd = OsString::from_vec(b"caf\xe9".to_vec());
        let parent = vec![
            (OsString::from("LANG_NOTE"), odd.clone()),
            (OsString::from_vec(b"ZEROPS_\xff".to_vec()), odd.clone()),
        ];
        let env = child_env(parent.into_iter(), &[("ZEROPS_TOKEN", "ours")]);
        assert_eq!(
            env,
            vec![
                (OsString::from("LANG_NOTE"), odd),
                (OsString::from("ZEROPS_TOKEN"), OsString::from("ours")),
            ]
        );
    }

    /// A child that outlives its timeout is ended with what it started (cmd.exe runs
    /// ping here, as zcli.cmd runs node). Runs under wine in scripts/cross-check, whose
    /// taskkill (wine 8) has no /T: there the fallback kill of the child itself ends it.
    #[cfg(windows)]
    #[test]
    fn a_timed_out_child_and_its_children_are_ended_on_windows() {
        let invocation = Invocation {
            program: system32("cmd.exe"),
            args: vec!["/c".into(), "ping -n 60 127.0.0.1".into()],
            env: std::env::vars_os().collect(),
            cwd: std::env::temp_dir(),
            timeout: Duration::from_millis(500),
        };
        let started = Instant::now();
        let outcome = run(&invocation, &CancelToken::new()).unwrap();
        assert!(outcome.timed_out, "{outcome:?}");
        // Output readers wait at most 1 s for a helper still holding the pipes.
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        assert!(live_groups().is_empty());
    }

    fn search(os: Os, path_var: Option<&Path>, home: Option<&Path>) -> ZcliSearch {
        ZcliSearch {
            os,
            path_var: path_var.map(|p| p.as_os_str().to_owned()),
            home: home.map(Path::to_owned),
            appdata: Some(PathBuf::from("/appdata")),
            zcli_install: Some(PathBuf::from("/zcli-install")),
        }
    }

    #[cfg(unix)]
    #[test]
    fn finds_an_executable_in_path_and_home_locations() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let bin = home.join(".local/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let zcli = bin.join("zcli");
        std::fs::write(&zcli, "#!/bin/sh\n").unwrap();
        let nowhere = Path::new("/nonexistent");
        // Not executable yet: not found in home.
        assert_ne!(
            search(Os::Linux, Some(nowhere), Some(&home)).find(),
            Some(zcli.clone())
        );
        std::fs::set_permissions(&zcli, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(
            search(Os::Linux, Some(nowhere), Some(&home)).find(),
            Some(zcli.clone())
        );
        assert_eq!(search(Os::Linux, Some(&bin), None).find(), Some(zcli));
    }

    /// nvm's Node versions are tried newest first by number, not by text (v9 < v22).
    #[test]
    fn nvm_versions_are_tried_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        for version in ["v9.11.2", "v22.1.0", "v18.20.4", "v22.10.0"] {
            std::fs::create_dir_all(dir.path().join(".nvm/versions/node").join(version)).unwrap();
        }
        let nvm: Vec<String> = search(Os::Linux, None, Some(dir.path()))
            .candidates()
            .iter()
            .filter(|c| c.to_string_lossy().contains(".nvm"))
            // .../node/<version>/bin/zcli
            .filter_map(|c| c.parent()?.parent()?.file_name())
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        assert_eq!(nvm, ["v22.10.0", "v22.1.0", "v18.20.4", "v9.11.2"]);
    }

    #[test]
    fn unix_candidates_are_path_then_the_installers_folders() {
        let candidates =
            search(Os::MacOs, Some(Path::new("/p")), Some(Path::new("/h"))).candidates();
        let expected: Vec<PathBuf> = [
            "/p/zcli",
            "/h/.local/bin/zcli",
            "/h/.npm-global/bin/zcli",
            "/h/.npm/bin/zcli",
            "/h/.volta/bin/zcli",
            "/h/bin/zcli",
            "/h/.bun/bin/zcli",
            "/opt/homebrew/bin/zcli",
            "/usr/local/bin/zcli",
            "/usr/bin/zcli",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(candidates, expected);
    }

    /// Windows: `zcli.exe` (a download, or install.ps1 into `%ZCLI_INSTALL%\bin` or
    /// `~\.zerops\bin`) before npm's `zcli.cmd` shim in `%APPDATA%\npm`; none of the Unix
    /// folders.
    #[test]
    fn windows_candidates_take_exe_and_npm_cmd_shims() {
        let candidates =
            search(Os::Windows, Some(Path::new("/p")), Some(Path::new("/h"))).candidates();
        let expected: Vec<PathBuf> = [
            "/p/zcli.exe",
            "/p/zcli.cmd",
            "/zcli-install/bin/zcli.exe",
            "/zcli-install/bin/zcli.cmd",
            "/h/.zerops/bin/zcli.exe",
            "/h/.zerops/bin/zcli.cmd",
            "/appdata/npm/zcli.exe",
            "/appdata/npm/zcli.cmd",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(candidates, expected);
    }
}
