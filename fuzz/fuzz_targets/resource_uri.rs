//! Arbitrary resource URIs: resolution never panics and never yields a path outside the
//! document set (no dot segments, no encoded characters, no empty segments), and reading
//! the resource returns either nothing or a document that exists.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zcp::knowledge::{self, resolve_uri};
use zcp::mcp::ResourceProvider;
use zcp::tools::knowledge::DocsResources;

const PREFIX: &str = "zerops://docs/";

fn check(uri: &str) {
    if let Some(resolved) = resolve_uri(uri) {
        let path = resolved.strip_prefix(PREFIX).expect("keeps the prefix");
        assert!(!path.is_empty());
        for segment in path.split('/') {
            assert!(
                !segment.is_empty() && segment != "." && segment != "..",
                "{resolved}"
            );
            assert!(
                segment
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{resolved}"
            );
        }
    }
    if let Some(contents) = DocsResources.read(uri) {
        let resolved = resolve_uri(uri).expect("read only what resolves");
        assert!(knowledge::store().get(&resolved).is_some());
        assert_eq!(contents.uri, uri);
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    check(&text);
    check(&format!("{PREFIX}{text}"));
});
