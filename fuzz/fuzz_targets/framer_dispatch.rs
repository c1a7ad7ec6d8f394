//! Arbitrary bytes as stdin of a server with the offline tools and the documents: the
//! framer and dispatcher must never panic, and every output line must be one complete
//! JSON object (an answer, an error or a notification).
#![no_main]

use std::io::Cursor;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use zcp::mcp::{Server, ServerBuilder, ServerInfo, test_tools};

#[path = "../../tests/support/memory_sink.rs"]
mod memory_sink;
use memory_sink::Sink;

fn server() -> &'static (Server, Sink) {
    static SERVER: OnceLock<(Server, Sink)> = OnceLock::new();
    SERVER.get_or_init(|| {
        let sink = Sink::default();
        let mut builder = ServerBuilder::new(ServerInfo {
            name: "zcp".into(),
            title: "zcp fuzz".into(),
            version: "0.0.0".into(),
        })
        .instructions(zcp::tools::INSTRUCTIONS)
        .tool(zcp::tools::knowledge::tool())
        .resources(Arc::new(zcp::tools::knowledge::DocsResources))
        .workers(2)
        // Small enough that the fuzzer reaches the too-long-line path.
        .max_line(4096)
        .eof_grace(Duration::from_millis(200));
        // The echo and elicitation test tools; not the ones that panic, sleep or print
        // (libFuzzer treats even a caught panic as a crash).
        for tool in test_tools::all() {
            if tool.name == "test_echo" || tool.name == "test_elicit" {
                builder = builder.tool(tool);
            }
        }
        (builder.build(Box::new(sink.clone())), sink)
    })
}

fuzz_target!(|data: &[u8]| {
    let (server, sink) = server();
    server.serve(Cursor::new(data.to_vec()));
    // serve() returns after the end-of-input grace and a bounded cleanup; make sure
    // nothing is still writing before the output is checked.
    assert!(
        server.wait_idle(Duration::from_secs(10)),
        "a request outlived serve()"
    );
    let out = std::mem::take(&mut *sink.0.lock().unwrap());
    if out.is_empty() {
        return;
    }
    assert_eq!(out.last(), Some(&b'\n'), "output ends mid-line");
    for line in out[..out.len() - 1].split(|&b| b == b'\n') {
        let value: serde_json::Value = serde_json::from_slice(line)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(line)));
        assert!(value.is_object() || value.is_array(), "{value}");
    }
});
