//! The benchmark peer: a minimal MCP server on the official Rust SDK with an `echo` and a
//! `sleep` tool. `--transport stdio` (the default transport) or `--transport pipe` (the
//! SDK's non-blocking pipe driver) selects how it talks.

use rmcp::{
    ErrorData as McpError, ServerHandler, ServiceExt,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::*,
    schemars, tool, tool_handler, tool_router,
};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct EchoArgs {
    /// Text returned unchanged.
    pub text: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct SleepArgs {
    /// Milliseconds to sleep.
    pub ms: u64,
}

#[derive(Clone)]
pub struct Peer {
    #[allow(dead_code)] // read by the code the #[tool_handler] macro generates
    tool_router: ToolRouter<Peer>,
}

#[tool_router]
impl Peer {
    fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }

    #[tool(description = "Returns its text argument")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }

    #[tool(description = "Sleeps for ms milliseconds")]
    async fn sleep(&self, Parameters(SleepArgs { ms }): Parameters<SleepArgs>) -> Result<CallToolResult, McpError> {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("slept {ms} ms"))]))
    }
}

#[tool_handler]
impl ServerHandler for Peer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::from_build_env())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let pipe = std::env::args().any(|a| a == "pipe" || a == "--transport=pipe");
    let service = if pipe {
        Peer::new().serve(rmcp::transport::stdio_pipes()).await?
    } else {
        Peer::new().serve(rmcp::transport::stdio()).await?
    };
    service.waiting().await?;
    Ok(())
}
