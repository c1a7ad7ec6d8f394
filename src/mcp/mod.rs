//! The MCP protocol engine: JSON-RPC framing over stdio, dispatch, protocol eras,
//! progress, cancellation and the tool/resource registry. It knows nothing about Zerops:
//! tools and resources are registered into it through [`ServerBuilder`].
//!
//! One file per concern: `jsonrpc` (messages and ids), `framing` (lines), `writer` (the
//! single stdout writer), `era` (revisions and the modern envelope), `dispatch` (routing),
//! `methods` (the MCP methods), `schema` (argument validation), `context` (what handlers
//! get), `inflight` (running requests), `pool` (workers), `server` (lifecycle), `outbox`
//! (the stdout queue), `patient` (stdio inherited in non-blocking mode).

mod context;
mod dispatch;
pub mod era;
mod framing;
mod inflight;
pub mod jsonrpc;
pub mod logging;
mod methods;
pub mod outbox;
#[cfg(unix)]
pub mod patient;
mod pool;
mod registry;
pub mod schema;
mod server;
pub mod test_tools;
mod writer;

pub use context::{LogSink, Progress, ToolContext};
pub use framing::DEFAULT_MAX_LINE;
pub use logging::LogLevel;
pub use registry::{
    Annotations, ResourceContents, ResourceInfo, ResourceProvider, ResourceTemplate, Tool,
    ToolHandler, ToolOutput,
};
pub use server::{
    ArgumentErrorFormatter, ExitReason, Server, ServerBuilder, ServerInfo, SignalHandle,
};
pub use writer::Writer;
