//! Protocol revisions and the two eras (spec §0, §4).
//!
//! A request is *modern* (2026-07-28, stateless) when its `params._meta` carries the
//! protocol-version key and the method is not `initialize`; otherwise it is *legacy* and
//! uses the version negotiated by the latest `initialize` (2025-11-25 before any). The era
//! is chosen per request, never locked for the process: a Python client may probe with
//! `server/discover` and then fall back to `initialize` on the same pipe.

use crate::json;

use serde_json::{Map, Value};

use super::jsonrpc::{ErrorReply, RequestId, code};
use super::logging::LogLevel;

/// The stateless revision.
pub const MODERN_VERSION: &str = "2026-07-28";
/// What a legacy request gets before any `initialize`, and what an unknown requested version
/// is negotiated down to.
pub const DEFAULT_LEGACY: LegacyVersion = LegacyVersion::V2025_11_25;
/// Every revision we speak, newest first (for `supportedVersions` and `-32022`).
pub const SUPPORTED_VERSIONS: [&str; 5] = [
    MODERN_VERSION,
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
];

/// `_meta` keys of the modern envelope.
pub mod meta_key {
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
}

/// The handshake revisions, ordered oldest to newest so features compare with `>=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LegacyVersion {
    V2024_11_05,
    V2025_03_26,
    V2025_06_18,
    V2025_11_25,
}

impl LegacyVersion {
    pub fn parse(text: &str) -> Option<LegacyVersion> {
        match text {
            "2024-11-05" => Some(LegacyVersion::V2024_11_05),
            "2025-03-26" => Some(LegacyVersion::V2025_03_26),
            "2025-06-18" => Some(LegacyVersion::V2025_06_18),
            "2025-11-25" => Some(LegacyVersion::V2025_11_25),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LegacyVersion::V2024_11_05 => "2024-11-05",
            LegacyVersion::V2025_03_26 => "2025-03-26",
            LegacyVersion::V2025_06_18 => "2025-06-18",
            LegacyVersion::V2025_11_25 => "2025-11-25",
        }
    }

    /// The requested version if we speak it, else our newest handshake version. Never the
    /// modern revision: it has no handshake and older clients reject it.
    pub fn negotiate(requested: &str) -> LegacyVersion {
        LegacyVersion::parse(requested).unwrap_or(DEFAULT_LEGACY)
    }
}

/// The shape rules one reply must follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    Legacy(LegacyVersion),
    Modern,
}

impl Era {
    pub fn is_modern(self) -> bool {
        self == Era::Modern
    }

    fn at_least(self, version: LegacyVersion) -> bool {
        match self {
            Era::Modern => true,
            Era::Legacy(v) => v >= version,
        }
    }

    /// Tool annotations and progress `message` arrived in 2025-03-26.
    pub fn has_annotations(self) -> bool {
        self.at_least(LegacyVersion::V2025_03_26)
    }

    /// `title`, `outputSchema`, `structuredContent` and `resource_link` arrived in 2025-06-18.
    pub fn has_titles(self) -> bool {
        self.at_least(LegacyVersion::V2025_06_18)
    }

    /// The not-found code for resources: `-32002` (legacy) or `-32602` (modern).
    pub fn resource_not_found_code(self) -> i64 {
        if self.is_modern() {
            code::INVALID_PARAMS
        } else {
            code::RESOURCE_NOT_FOUND
        }
    }
}

/// What a modern request declared about itself.
#[derive(Debug, Clone, Default)]
pub struct EnvelopeInfo {
    pub client_capabilities: Map<String, Value>,
    pub log_level: Option<LogLevel>,
}

/// True when the request carries the modern protocol-version key.
pub fn is_enveloped(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .is_some_and(|meta| meta.contains_key(meta_key::PROTOCOL_VERSION))
}

/// Checks the modern envelope of an enveloped request (spec §4.2).
pub fn check_envelope(id: &RequestId, params: Option<&Value>) -> Result<EnvelopeInfo, ErrorReply> {
    let invalid =
        |message: String| ErrorReply::new(Some(id.clone()), code::INVALID_PARAMS, message);
    let meta = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let version = meta.get(meta_key::PROTOCOL_VERSION).unwrap_or(&Value::Null);
    let Some(version) = version.as_str() else {
        return Err(invalid(format!(
            "Invalid params: _meta[\"{}\"] must be a string",
            meta_key::PROTOCOL_VERSION
        )));
    };
    if version != MODERN_VERSION {
        return Err(ErrorReply::new(
            Some(id.clone()),
            code::UNSUPPORTED_PROTOCOL_VERSION,
            format!("Unsupported protocol version {version:?} in the request envelope"),
        )
        .with_data(json!({ "supported": SUPPORTED_VERSIONS, "requested": version })));
    }
    let client_capabilities = match meta.get(meta_key::CLIENT_CAPABILITIES) {
        Some(Value::Object(caps)) => caps.clone(),
        Some(_) => {
            return Err(invalid(format!(
                "Invalid params: _meta[\"{}\"] must be an object",
                meta_key::CLIENT_CAPABILITIES
            )));
        }
        None => {
            return Err(invalid(format!(
                "Invalid params: missing required _meta[\"{}\"]",
                meta_key::CLIENT_CAPABILITIES
            )));
        }
    };
    let log_level = match meta.get(meta_key::LOG_LEVEL) {
        None | Some(Value::Null) => None,
        Some(value) => match value.as_str().and_then(LogLevel::parse) {
            Some(level) => Some(level),
            None => {
                return Err(invalid(format!(
                    "Invalid params: _meta[\"{}\"] must be one of {}",
                    meta_key::LOG_LEVEL,
                    LogLevel::NAMES.join(", ")
                )));
            }
        },
    };
    Ok(EnvelopeInfo {
        client_capabilities,
        log_level,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id() -> RequestId {
        RequestId::from_value(&json!(1)).unwrap()
    }

    fn envelope(meta: Value) -> Result<EnvelopeInfo, ErrorReply> {
        check_envelope(&id(), Some(&json!({ "_meta": meta })))
    }

    #[test]
    fn negotiation_keeps_known_versions_and_falls_back() {
        for v in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
            assert_eq!(LegacyVersion::negotiate(v).as_str(), v);
        }
        for v in ["2024-10-07", "1999-01-01", MODERN_VERSION, "banana"] {
            assert_eq!(LegacyVersion::negotiate(v), DEFAULT_LEGACY);
        }
    }

    #[test]
    fn feature_gates_follow_the_revision_table() {
        let old = Era::Legacy(LegacyVersion::V2024_11_05);
        let mid = Era::Legacy(LegacyVersion::V2025_03_26);
        let new = Era::Legacy(LegacyVersion::V2025_06_18);
        assert!(!old.has_annotations() && mid.has_annotations());
        assert!(!mid.has_titles() && new.has_titles() && Era::Modern.has_titles());
        assert_eq!(Era::Modern.resource_not_found_code(), code::INVALID_PARAMS);
        assert_eq!(new.resource_not_found_code(), code::RESOURCE_NOT_FOUND);
    }

    #[test]
    fn envelope_errors_name_the_problem() {
        let ok = envelope(
            json!({ meta_key::PROTOCOL_VERSION: MODERN_VERSION, meta_key::CLIENT_CAPABILITIES: {} }),
        );
        assert!(ok.is_ok());
        let err = envelope(
            json!({ meta_key::PROTOCOL_VERSION: "2099-01-01", meta_key::CLIENT_CAPABILITIES: {} }),
        )
        .unwrap_err();
        assert_eq!(err.code, code::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(err.data.as_ref().unwrap()["requested"], "2099-01-01");
        let err = envelope(
            json!({ meta_key::PROTOCOL_VERSION: "2025-11-25", meta_key::CLIENT_CAPABILITIES: {} }),
        )
        .unwrap_err();
        assert_eq!(err.code, code::UNSUPPORTED_PROTOCOL_VERSION);
        let err = envelope(json!({ meta_key::PROTOCOL_VERSION: MODERN_VERSION })).unwrap_err();
        assert!(err.message.contains(meta_key::CLIENT_CAPABILITIES));
        let err = envelope(
            json!({ meta_key::PROTOCOL_VERSION: MODERN_VERSION, meta_key::CLIENT_CAPABILITIES: 3 }),
        )
        .unwrap_err();
        assert!(err.message.contains(meta_key::CLIENT_CAPABILITIES));
        let err = envelope(json!({ meta_key::PROTOCOL_VERSION: MODERN_VERSION, meta_key::CLIENT_CAPABILITIES: {}, meta_key::LOG_LEVEL: "loud" })).unwrap_err();
        assert_eq!(err.code, code::INVALID_PARAMS);
    }
}
