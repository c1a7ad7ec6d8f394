//! Fault knobs: tests make a path misbehave the way real networks and gateways do.
//!
//! A pattern is `"METHOD /path"` (the path below `/api/rest/public`, `/log/read` for the
//! log backend, `/upload/{id}` for package uploads) where `*` stands for one path segment
//! and `**` for any number of them, e.g. `"GET /service-stack/*"`, `"* /process/**"` or
//! `"POST /**/search"`.

use std::time::Duration;

/// How a matched request misbehaves.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// Answer with this status and raw body instead of handling the request.
    Status { status: u16, body: String },
    /// Wait before handling the request normally.
    Latency(Duration),
    /// Close the connection without answering.
    Reset,
    /// Answer 200 with a body that is not JSON.
    Malformed,
    /// Declare a longer body than is sent, then close.
    Truncated,
    /// Answer 429 with a `Retry-After` header.
    RateLimited { retry_after_secs: u64 },
    /// Send the headers, then stall before the body.
    SlowBody(Duration),
}

/// A fault bound to a pattern, optionally for a limited number of requests.
#[derive(Debug, Clone)]
pub struct Rule {
    pub pattern: String,
    pub fault: Fault,
    /// `None` = until cleared.
    pub remaining: Option<u32>,
}

/// Whether `"METHOD /path"` matches a pattern.
pub fn matches(pattern: &str, method: &str, path: &str) -> bool {
    let (p_method, p_path) = pattern.split_once(' ').unwrap_or(("*", pattern));
    if p_method != "*" && !p_method.eq_ignore_ascii_case(method) {
        return false;
    }
    let want: Vec<&str> = p_path.trim_matches('/').split('/').collect();
    let have: Vec<&str> = path.trim_matches('/').split('/').collect();
    segments_match(&want, &have)
}

/// `*` is one segment, `**` any number of segments (zero included), anywhere.
fn segments_match(want: &[&str], have: &[&str]) -> bool {
    match want.split_first() {
        None => have.is_empty(),
        Some((&"**", rest)) => (0..=have.len()).any(|skip| segments_match(rest, &have[skip..])),
        Some((segment, rest)) => match have.split_first() {
            Some((actual, tail)) if *segment == "*" || segment == actual => {
                segments_match(rest, tail)
            }
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn patterns() {
        assert!(matches("GET /service-stack/*", "GET", "/service-stack/abc"));
        assert!(!matches(
            "GET /service-stack/*",
            "GET",
            "/service-stack/abc/env"
        ));
        assert!(!matches(
            "PUT /service-stack/*",
            "GET",
            "/service-stack/abc"
        ));
        assert!(matches("* /process/**", "PUT", "/process/p1/cancel"));
        assert!(matches("POST /project/search", "post", "/project/search"));
        assert!(matches("/user/info", "GET", "/user/info"));
        assert!(matches("* /**/search", "POST", "/service-stack/search"));
        assert!(matches("* /**", "GET", "/log/read"));
        assert!(matches(
            "PUT /service-stack/**/start",
            "PUT",
            "/service-stack/a/start"
        ));
        assert!(!matches(
            "PUT /service-stack/**/start",
            "PUT",
            "/service-stack/a/stop"
        ));
        assert!(!matches("GET /process/*", "GET", "/process"));
    }
}
