//! The Zerops API: domain types, error codes, the `Client` trait, its `ureq` implementation,
//! the log fetcher and a mock for tests.
