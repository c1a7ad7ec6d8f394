//! Business logic behind the tools. Knows nothing about MCP: progress arrives as a callback
//! and cancellation as a flag; results are plain JSON values and errors are
//! `PlatformError`s with a code and a suggestion.

pub mod delete;
pub mod deploy;
pub mod discover;
pub mod env;
pub mod events;
pub mod follow;
pub mod helpers;
pub mod import;
pub mod logs;
pub mod manage;
pub mod pager;
pub mod process;
pub mod progress;
pub mod scope;
pub mod source_file;
pub mod subdomain;
pub mod validate;
pub mod zcli;
