//! Memory figures of a live process, read from `/proc/<pid>/status` (Linux). Shared by the
//! load test and both benchmarks (through `#[path]`, as they are separate crates).

/// The `field` (`VmRSS`, `VmHWM`, ...) of process `pid` (or `"self"`), in KiB; `None`
/// where /proc or the field is missing.
pub fn status_kib(pid: &str, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}
