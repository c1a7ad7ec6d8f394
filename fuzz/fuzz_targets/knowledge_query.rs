//! Arbitrary queries against the embedded documents: search never panics, returns at most
//! `limit` hits in descending score order, and every hit names a real document.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zcp::knowledge;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let limit = usize::from(first % 12);
    let query = String::from_utf8_lossy(rest);
    let store = knowledge::store();
    let response = store.search(&query, limit);
    assert!(response.results.len() <= limit);
    for pair in response.results.windows(2) {
        assert!(pair[0].score >= pair[1].score, "{:?}", response.results);
    }
    for hit in &response.results {
        assert!(store.get(&hit.uri).is_some(), "{}", hit.uri);
        assert!(hit.score.is_finite());
        // Snippets are Strings (so UTF-8); they must also survive a JSON round trip.
        let json = serde_json::to_string(&hit.snippet).unwrap();
        let back: String = serde_json::from_str(&json).unwrap();
        assert_eq!(back, hit.snippet);
    }
});
