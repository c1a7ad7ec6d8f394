//! Business logic behind the tools. Knows nothing about MCP: progress arrives as a callback
//! and cancellation as a flag.
pub mod validate;
