//! MCP protocol logging (`notifications/message`), distinct from our stderr diagnostics.
//!
//! Legacy clients opt in with `logging/setLevel`; modern requests opt in one at a time with
//! `_meta["io.modelcontextprotocol/logLevel"]`. Without an opt-in nothing is sent.

/// RFC 5424 severities, ascending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    pub const NAMES: [&'static str; 8] = [
        "debug",
        "info",
        "notice",
        "warning",
        "error",
        "critical",
        "alert",
        "emergency",
    ];
    const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    pub fn parse(name: &str) -> Option<LogLevel> {
        Self::NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| Self::ALL[i])
    }

    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Index used to store the level in an atomic.
    pub(crate) fn to_u8(self) -> u8 {
        self as u8
    }

    pub(crate) fn from_u8(value: u8) -> Option<LogLevel> {
        Self::ALL.get(usize::from(value)).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_order() {
        for name in LogLevel::NAMES {
            let level = LogLevel::parse(name).unwrap();
            assert_eq!(level.as_str(), name);
            assert_eq!(LogLevel::from_u8(level.to_u8()), Some(level));
        }
        assert!(LogLevel::Warning > LogLevel::Info);
        assert_eq!(LogLevel::parse("warn"), None);
    }
}
