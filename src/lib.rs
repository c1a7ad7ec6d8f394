//! zcp: a Model Context Protocol server over stdio that lets an AI agent operate one
//! Zerops project.
//!
//! Layers, each knowing only those below it:
//!
//! * [`mcp`]: the protocol engine (framing, dispatch, eras, progress, cancellation). It
//!   knows nothing about Zerops; tools and resources are registered into it.
//! * [`tools`]: the twelve tools: schemas, argument decoding and result shaping.
//! * [`ops`]: business logic, free of MCP types.
//! * [`platform`], [`auth`]: the Zerops API client, its types and errors, credentials.
//! * [`knowledge`]: the embedded documents and their BM25 index.
//! * [`sim`]: a loopback Zerops API simulator for tests and `--demo`.
//!
//! Small helpers any layer may use: [`json_string`] (fast JSON string literals),
//! [`order`], [`time`].
#![forbid(unsafe_code)]
// Platform errors carry the API's code, field-level meta and HTTP status so an agent can act
// on them; they are built only on failure, so their size never costs the success path.
#![allow(clippy::result_large_err)]

/// A JSON value written as a literal and parsed where it is built (the tool schemas, at
/// startup). `serde_json::json!` turns every key and value into code: for the large literal
/// schemas that was some 70 KB of the binary, where the text is a fraction of it. Literal
/// JSON only: no Rust expressions inside and no negative numbers (stringify spaces them).
macro_rules! json_text {
    ($($json:tt)+) => {
        serde_json::from_str::<serde_json::Value>(stringify!($($json)+))
            .expect("a json_text! literal is valid JSON")
    };
}

pub mod auth;
pub mod cancel;
pub mod json_string;
pub mod json_value;
pub mod knowledge;
pub mod log;
pub mod mcp;
pub mod ops;
pub mod order;
pub mod platform;
pub mod sim;
pub mod time;
pub mod tools;
