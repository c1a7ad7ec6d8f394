//! Readiness and health checks (Z21, Z22) and their timings (Z23).

use super::report::{Pos, Severity, Sink, join};
use super::shape;
use super::yaml::{Entry, Node, Value};

/// A readiness (Z21) or health (Z22) check: exactly one of `httpGet`/`exec`, plus timings.
/// Takes the whole `readinessCheck:`/`healthCheck:` entry so that a missing probe is
/// reported at that key, not at whichever child key happens to come first.
pub fn check_probe(
    sink: &mut Sink,
    rule: &'static str,
    entry: &Entry,
    path: &str,
    timings: &[&str],
) {
    let node = &entry.value;
    let Some(map) = shape::expect_map(sink, rule, node, path, false) else {
        return;
    };
    let mut allowed = vec!["httpGet", "exec"];
    allowed.extend_from_slice(timings);
    shape::unknown_keys(sink, rule, Severity::Error, map, path, &allowed, &[]);
    let http = node.get("httpGet");
    let exec = node.get("exec");
    match (http, exec) {
        (None, None) => sink.error(
            rule,
            path,
            Pos::from(entry),
            "the check needs `httpGet` or `exec`",
            "add `httpGet: {port: <port>, path: /health}` or `exec: {command: <command>}`",
        ),
        (Some(_), Some(e)) => sink.error(
            rule,
            &join(path, "exec"),
            Pos::from(e),
            "the check has both `httpGet` and `exec`; only one is allowed",
            "keep one of them",
        ),
        _ => {}
    }
    if let Some(h) = http {
        let p = join(path, "httpGet");
        if let Some(m) = shape::expect_map(sink, rule, &h.value, &p, false) {
            shape::unknown_keys(
                sink,
                rule,
                Severity::Error,
                m,
                &p,
                &["port", "path", "host", "scheme"],
                &[],
            );
            match h.value.get("port") {
                None => sink.error(
                    rule,
                    &p,
                    Pos::from(h),
                    "`httpGet` needs a `port`",
                    "add `port: <the port your app listens on>`",
                ),
                Some(e) => {
                    if let Some(port) = shape::expect_int(sink, rule, &e.value, &join(&p, "port"))
                        && !(1..=65535).contains(&port)
                    {
                        sink.error(
                            rule,
                            &join(&p, "port"),
                            Pos::from(&e.value),
                            format!("port {port} is out of range"),
                            "use the port your app listens on (10–65435)",
                        );
                    }
                }
            }
            match h.value.get("path") {
                None => sink.error(
                    rule,
                    &p,
                    Pos::from(h),
                    "`httpGet` needs a `path`",
                    "add `path: /` (or your health endpoint)",
                ),
                Some(e) => {
                    shape::expect_string(sink, rule, &e.value, &join(&p, "path"));
                }
            }
            for key in ["host", "scheme"] {
                if let Some(e) = h.value.get(key) {
                    shape::expect_string(sink, rule, &e.value, &join(&p, key));
                }
            }
        }
    }
    if let Some(x) = exec {
        let p = join(path, "exec");
        if let Some(m) = shape::expect_map(sink, rule, &x.value, &p, false) {
            shape::unknown_keys(sink, rule, Severity::Error, m, &p, &["command"], &[]);
            match x.value.get("command") {
                None => sink.error(
                    rule,
                    &p,
                    Pos::from(x),
                    "`exec` needs a `command`",
                    "add `command: <a command that exits 0 when healthy>`",
                ),
                Some(e) => {
                    shape::expect_string(sink, rule, &e.value, &join(&p, "command"));
                }
            }
        }
    }
    for key in timings {
        if let Some(e) = node.get(key) {
            check_timing(sink, &e.value, &join(path, key));
        }
    }
}

/// Z23: a probe timing is an integer (seconds; newer validators want strings) or a Go
/// duration string within 10s–1h.
pub fn check_timing(sink: &mut Sink, node: &Node, path: &str) {
    match &node.value {
        Value::Int(i) if !(10..=3600).contains(i) => sink.warn(
            "Z23",
            path,
            Pos::from(node),
            format!("the integer {i} (seconds) is outside the accepted range of 10s to 1h"),
            "use a quoted duration between `\"10s\"` and `\"1h\"`, e.g. `\"30s\"`",
        ),
        Value::Int(i) => sink.info(
            "Z23",
            path,
            Pos::from(node),
            format!("timing given as the integer {i}; the live validator is reported to want a duration string"),
            format!("write it as a quoted duration, e.g. `\"{}s\"`", i.max(&10)),
        ),
        Value::Str(s) if s.trim() != s && go_duration_seconds(s.trim()).is_some() => sink.error(
            "Z23",
            path,
            Pos::from(node),
            format!("`\"{s}\"` has spaces around the duration, which Go's duration parser refuses"),
            format!("write `\"{}\"`", s.trim()),
        ),
        Value::Str(s) => match go_duration_seconds(s) {
            None => sink.error("Z23", path, Pos::from(node), format!("`{s}` is not a duration"), "use a Go duration such as `30s`, `2m` or `1h`"),
            Some(secs) if !(10.0..=3600.0).contains(&secs) => sink.warn(
                "Z23",
                path,
                Pos::from(node),
                format!("`{s}` is outside the accepted range of 10s to 1h"),
                "use a value between `10s` and `1h`",
            ),
            Some(_) => {}
        },
        _ => sink.error("Z23", path, Pos::from(node), format!("a timing must be a duration, found {}", shape::describe(node)), "use a Go duration such as `30s`"),
    }
}

/// Seconds in a Go duration string (`1h30m`, `300ms`, `10s`, `0`), or `None`. Like Go's
/// time.ParseDuration it takes no surrounding spaces.
pub fn go_duration_seconds(text: &str) -> Option<f64> {
    let (negative, mut rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if rest == "0" {
        return Some(0.0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total = 0.0;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..num_len].parse().ok()?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total += number * scale;
    }
    Some(if negative { -total } else { total })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        assert_eq!(go_duration_seconds("10s"), Some(10.0));
        assert_eq!(go_duration_seconds("1h30m"), Some(5400.0));
        assert_eq!(go_duration_seconds("300ms"), Some(0.3));
        assert_eq!(go_duration_seconds("1.5m"), Some(90.0));
        assert_eq!(go_duration_seconds("0"), Some(0.0));
        assert_eq!(go_duration_seconds("10"), None);
        assert_eq!(go_duration_seconds("ten seconds"), None);
        assert_eq!(go_duration_seconds("s"), None);
        assert_eq!(go_duration_seconds(""), None);
        assert_eq!(go_duration_seconds("30s "), None);
        assert_eq!(go_duration_seconds(" 30s"), None);
    }
}
