//! Small helpers to declare a tool: annotation presets and a constructor.

use serde_json::Value;

use crate::mcp::{Annotations, Tool, ToolHandler};

/// Reads the platform, changes nothing.
pub const READ_ONLY_REMOTE: Annotations = Annotations {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: true,
};
/// Works offline on its input only.
pub const READ_ONLY_LOCAL: Annotations = Annotations {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};
/// Changes state and may take something away (public access, a running process), but
/// repeating it leaves the same state. MCP's `destructiveHint: false` promises additive
/// changes only, which clients may auto-approve.
pub const TAKES_AWAY_IDEMPOTENT: Annotations = Annotations {
    read_only: false,
    destructive: true,
    idempotent: true,
    open_world: true,
};
/// May overwrite or remove things. Import is one too: an import file's `override: true`
/// re-imports an existing service (a runtime is redeployed).
pub const DESTRUCTIVE: Annotations = Annotations {
    read_only: false,
    destructive: true,
    idempotent: false,
    open_world: true,
};

/// Builds a tool definition.
pub fn define(
    name: &str,
    title: &str,
    description: &str,
    input_schema: Value,
    output_schema: Value,
    annotations: Annotations,
    handler: ToolHandler,
) -> Tool {
    Tool {
        name: name.into(),
        title: title.into(),
        description: description.into(),
        input_schema,
        output_schema: Some(output_schema),
        annotations,
        required_client_capabilities: Vec::new(),
        handler,
    }
}
