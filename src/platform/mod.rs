//! The Zerops API: domain types, error codes, the `Client` trait, its `ureq`
//! implementation, the log fetcher and an in-memory mock for tests of the business logic.

pub mod client;
pub mod errors;
pub mod http;
pub mod logfetcher;
pub mod mock;
pub mod operations;
pub mod resolve;
pub mod types;

pub use client::{Client, LogFetcher};
pub use errors::{ErrorCode, PlatformError};
pub use http::ZeropsClient;
pub use logfetcher::HttpLogFetcher;
pub use types::*;
