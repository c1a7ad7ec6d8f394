//! Fault knobs: tests make a path misbehave the way real networks and gateways do.
//!
//! A pattern is `"METHOD /path"` (the path below `/api/rest/public`, or `/log/read` for the
//! log backend) where `*` stands for one path segment and `**` for any rest, e.g.
//! `"GET /service-stack/*"` or `"* /process/**"`.

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
    let mut i = 0;
    for (j, segment) in want.iter().enumerate() {
        if *segment == "**" {
            return j == want.len() - 1 || have.len() > i;
        }
        match have.get(i) {
            Some(actual) if *segment == "*" || segment == actual => i += 1,
            _ => return false,
        }
    }
    i == have.len()
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
    }
}
