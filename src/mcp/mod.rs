//! The MCP protocol engine: JSON-RPC framing over stdio, dispatch, protocol eras,
//! progress, cancellation and the tool/resource registry. It knows nothing about Zerops.
