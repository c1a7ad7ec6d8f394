//! The twelve Zerops tools: input schemas, argument decoding and result shaping. Thin: the
//! logic lives in `ops`. [`all`] returns them in a fixed order for `tools/list`.

pub mod common;
mod delete;
mod deploy;
mod discover;
mod env;
mod events;
mod import;
pub mod instructions;
pub mod knowledge;
mod logs;
mod manage;
pub mod output;
mod process;
mod spec;
mod subdomain;
mod validate;

use std::sync::Arc;

pub use common::{DeployBackend, Services, argument_error};
pub use instructions::INSTRUCTIONS;

use crate::mcp::Tool;

/// Every tool, in the order `tools/list` shows them.
pub fn all(services: &Arc<Services>) -> Vec<Tool> {
    vec![
        discover::tool(services.clone()),
        manage::tool(services.clone()),
        env::tool(services.clone()),
        logs::tool(services.clone()),
        deploy::tool(services.clone()),
        import::tool(services.clone()),
        validate::tool(),
        knowledge::tool(),
        process::tool(services.clone()),
        delete::tool(services.clone()),
        subdomain::tool(services.clone()),
        events::tool(services.clone()),
    ]
}
