//! An in-memory stdout for servers built inside a test or fuzz target: every clone writes
//! into the same buffer, so the harness keeps one and reads what the server wrote.
//! Included with `#[path]` by `tests/hardening_props.rs` and the `framer_dispatch` fuzz
//! target.

use std::io::Write;
use std::sync::{Arc, Mutex};

#[derive(Clone, Default)]
pub struct Sink(pub Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
