//! Diagnostics on stderr, filtered by `ZCP_LOG_LEVEL` (debug, info, warn, error; default
//! warn). stdout belongs to the protocol writer alone, so nothing here ever touches it.
//!
//! Callers must never pass secrets: the token is masked by the types that hold it.

use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};

/// Severity of a diagnostic line, ordered from most to least verbose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Debug = 0,
    Info = 1,
    Warn = 2,
    Error = 3,
}

impl Level {
    /// Parses a level name as accepted in `ZCP_LOG_LEVEL` (case-insensitive; `warning`
    /// is accepted for `warn`).
    pub fn parse(name: &str) -> Option<Level> {
        match name.trim().to_ascii_lowercase().as_str() {
            "debug" | "trace" => Some(Level::Debug),
            "info" => Some(Level::Info),
            "warn" | "warning" => Some(Level::Warn),
            "error" => Some(Level::Error),
            _ => None,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Level::Debug => "DEBUG",
            Level::Info => "INFO",
            Level::Warn => "WARN",
            Level::Error => "ERROR",
        }
    }
}

static THRESHOLD: AtomicU8 = AtomicU8::new(Level::Warn as u8);

/// Sets the minimum level that reaches stderr.
pub fn set_level(level: Level) {
    THRESHOLD.store(level as u8, Ordering::Relaxed);
}

/// Reads `ZCP_LOG_LEVEL`; an unknown value keeps the default and says so once.
pub fn init_from_env() {
    if let Ok(value) = std::env::var("ZCP_LOG_LEVEL") {
        match Level::parse(&value) {
            Some(level) => set_level(level),
            None => write(
                Level::Warn,
                "log",
                format_args!("ignoring ZCP_LOG_LEVEL={value:?}; use debug, info, warn or error"),
            ),
        }
    }
}

/// True when a line at `level` would be written.
pub fn enabled(level: Level) -> bool {
    level as u8 >= THRESHOLD.load(Ordering::Relaxed)
}

/// Writes one line to stderr. Errors are ignored: a host that closed stderr must not stop
/// the server.
pub fn write(level: Level, target: &str, args: std::fmt::Arguments<'_>) {
    if !enabled(level) {
        return;
    }
    let line = format!("zcp {} [{}] {}\n", level.label(), target, args);
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// Logs at debug level: `debug!("target", "fmt", args...)`.
#[macro_export]
macro_rules! debug {
    ($target:expr, $($arg:tt)+) => { $crate::log::write($crate::log::Level::Debug, $target, format_args!($($arg)+)) };
}
/// Logs at info level.
#[macro_export]
macro_rules! info {
    ($target:expr, $($arg:tt)+) => { $crate::log::write($crate::log::Level::Info, $target, format_args!($($arg)+)) };
}
/// Logs at warn level.
#[macro_export]
macro_rules! warn {
    ($target:expr, $($arg:tt)+) => { $crate::log::write($crate::log::Level::Warn, $target, format_args!($($arg)+)) };
}
/// Logs at error level.
#[macro_export]
macro_rules! error {
    ($target:expr, $($arg:tt)+) => { $crate::log::write($crate::log::Level::Error, $target, format_args!($($arg)+)) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_level_names() {
        assert_eq!(Level::parse("DEBUG"), Some(Level::Debug));
        assert_eq!(Level::parse(" warning "), Some(Level::Warn));
        assert_eq!(Level::parse("error"), Some(Level::Error));
        assert_eq!(Level::parse("loud"), None);
        assert!(Level::Debug < Level::Error);
    }
}
