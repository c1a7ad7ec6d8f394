//! The twelve Zerops tools: input schemas, argument decoding and result shaping. Thin: the
//! logic lives in `ops`.

pub mod instructions;
pub mod output;

pub use instructions::INSTRUCTIONS;
