//! Property tests with modest case counts (raise them with ZCP_PROPTEST_CASES=N for a long
//! run): the framer and dispatcher never panic and only write whole JSON lines, the
//! validator never panics on YAML-ish text, knowledge queries never panic and return clean
//! snippets, and resource URIs never resolve outside the documents.

use std::io::Cursor;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use proptest::prelude::*;
use zcp::knowledge::{self, resolve_uri};
use zcp::mcp::{ResourceProvider, Server, ServerBuilder, ServerInfo, test_tools};
use zcp::ops::validate::{FileKind, validate};
use zcp::tools::knowledge::DocsResources;

fn cases(default: u32) -> ProptestConfig {
    let cases = std::env::var("ZCP_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

#[path = "support/memory_sink.rs"]
mod memory_sink;
use memory_sink::Sink;

/// Panics anywhere in this test binary (the dispatcher catches its own, so count them).
static PANICS: AtomicUsize = AtomicUsize::new(0);

fn server() -> &'static (Server, Sink) {
    static SERVER: OnceLock<(Server, Sink)> = OnceLock::new();
    SERVER.get_or_init(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            previous(info);
        }));
        let sink = Sink::default();
        let mut builder = ServerBuilder::new(ServerInfo {
            name: "zcp".into(),
            title: "zcp props".into(),
            version: "0.0.0".into(),
        })
        .tool(zcp::tools::knowledge::tool())
        .resources(Arc::new(DocsResources))
        .workers(2)
        .max_line(2048)
        .eof_grace(Duration::from_millis(500));
        for tool in test_tools::all() {
            if tool.name == "test_echo" {
                builder = builder.tool(tool);
            }
        }
        (builder.build(Box::new(sink.clone())), sink)
    })
}

/// One JSON-RPC-shaped line, often valid, often slightly broken.
fn message() -> impl Strategy<Value = String> {
    let id = prop_oneof![
        Just("null".to_owned()),
        (0i64..5).prop_map(|n| n.to_string()),
        "[a-z]{0,3}".prop_map(|s| format!("\"{s}\"")),
        Just("1.5".to_owned()),
        Just("{}".to_owned()),
        Just("99999999999999999999999".to_owned()),
    ];
    let method = prop_oneof![
        Just("initialize"),
        Just("ping"),
        Just("tools/list"),
        Just("tools/call"),
        Just("resources/list"),
        Just("resources/read"),
        Just("resources/templates/list"),
        Just("server/discover"),
        Just("logging/setLevel"),
        Just("notifications/cancelled"),
        Just("notifications/initialized"),
        Just("nope"),
    ];
    let params = prop_oneof![
        Just(String::new()),
        Just(r#","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"p","version":"1"}}"#.to_owned()),
        Just(r#","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#.to_owned()),
        "[ -~]{0,30}".prop_map(|q| format!(r#","params":{{"name":"zerops_knowledge","arguments":{{"query":{}}}}}"#, serde_json::to_string(&q).unwrap())),
        "[ -~]{0,30}".prop_map(|t| format!(r#","params":{{"name":"test_echo","arguments":{{"text":{}}}}}"#, serde_json::to_string(&t).unwrap())),
        "[ -~]{0,40}".prop_map(|u| format!(r#","params":{{"uri":{}}}"#, serde_json::to_string(&u).unwrap())),
        Just(r#","params":{"requestId":1}"#.to_owned()),
        Just(r#","params":[]"#.to_owned()),
    ];
    let whole = (id, method, params).prop_map(|(id, method, params)| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"{params}}}"#)
    });
    prop_oneof![
        4 => whole.clone(),
        1 => whole.clone().prop_map(|m| format!("[{m},{m}]")),
        1 => (whole, any::<prop::sample::Index>()).prop_map(|(m, cut)| m[..cut.index(m.len())].to_owned()),
        1 => "[^\n]{0,60}",
    ]
}

fn check_output(out: &[u8]) -> Result<(), TestCaseError> {
    if out.is_empty() {
        return Ok(());
    }
    prop_assert_eq!(out.last(), Some(&b'\n'));
    for line in out[..out.len() - 1].split(|&b| b == b'\n') {
        let value: serde_json::Value = serde_json::from_slice(line).map_err(|e| {
            TestCaseError::fail(format!("not JSON ({e}): {}", String::from_utf8_lossy(line)))
        })?;
        prop_assert!(value.is_object() || value.is_array());
    }
    Ok(())
}

proptest! {
    #![proptest_config(cases(64))]

    #[test]
    fn framing_and_dispatch_never_panic(
        lines in prop::collection::vec(message(), 1..12),
        raw in prop::collection::vec(any::<u8>(), 0..200),
        crlf in any::<bool>(),
    ) {
        let (server, sink) = server();
        let mut input = Vec::new();
        for line in &lines {
            input.extend_from_slice(line.as_bytes());
            input.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
        input.extend_from_slice(&raw);
        let before = PANICS.load(Ordering::SeqCst);
        server.serve(Cursor::new(input));
        prop_assert!(server.wait_idle(Duration::from_secs(10)));
        let out = std::mem::take(&mut *sink.0.lock().unwrap());
        prop_assert_eq!(PANICS.load(Ordering::SeqCst), before, "a handler or the dispatcher panicked");
        check_output(&out)?;
    }
}

/// YAML-ish text: lines from a vocabulary of keys, values, indentation and syntax.
fn yamlish() -> impl Strategy<Value = String> {
    let indent = prop::sample::select(vec![
        "", "  ", "    ", "      ", "\t", "- ", "  - ", "    - ",
    ]);
    let key = prop::sample::select(vec![
        "zerops",
        "setup",
        "build",
        "run",
        "base",
        "deployFiles",
        "buildCommands",
        "start",
        "ports",
        "port",
        "httpSupport",
        "envVariables",
        "services",
        "hostname",
        "type",
        "mode",
        "minContainers",
        "maxContainers",
        "project",
        "name",
        "verticalAutoscaling",
        "extends",
        "<<",
        "? ",
        "\"quoted\"",
        "a b",
    ]);
    let value = prop::sample::select(vec![
        "",
        "nodejs@22",
        "postgresql@16",
        "api",
        "HA",
        "NON_HA",
        "3000",
        "-1",
        "1e9",
        "true",
        "~",
        "[a, b",
        "{x: 1}",
        "&anchor x",
        "*anchor",
        "*missing",
        "|",
        ">-",
        "'single",
        "\"double",
        "${db_hostname}",
        "!!binary aGk=",
        "@x",
        "ümlaut",
        "\u{0}",
    ]);
    let line = (
        indent,
        key,
        prop::sample::select(vec![": ", ":", " : ", ""]),
        value,
    )
        .prop_map(|(i, k, c, v)| format!("{i}{k}{c}{v}"));
    prop::collection::vec(
        prop_oneof![8 => line, 1 => Just("---".to_owned()), 1 => "[^\n]{0,20}"],
        0..30,
    )
    .prop_map(|lines| lines.join("\n"))
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn the_validator_never_panics(text in yamlish(), raw in "\\PC{0,80}") {
        for input in [&text, &raw] {
            for kind in [None, Some(FileKind::ZeropsYml), Some(FileKind::ImportYml)] {
                let report = validate(input, kind, None);
                prop_assert_eq!(report.valid, report.errors.is_empty());
                // YAML breaks lines at LF, CRLF and a lone CR alike.
                let lines = input.replace("\r\n", "\n").split(['\n', '\r']).count() + 1;
                for finding in report.errors.iter().chain(&report.warnings).chain(&report.info) {
                    prop_assert!(finding.line <= lines, "line {} of {}: {:?}", finding.line, lines, finding);
                    prop_assert!(!finding.message.is_empty());
                }
            }
        }
    }

    #[test]
    fn knowledge_queries_never_panic_and_snippets_are_clean(query in "\\PC{0,60}", limit in 0usize..12) {
        let store = knowledge::store();
        let response = store.search(&query, limit);
        prop_assert!(response.results.len() <= limit);
        // The hand-written JSON the tool sends is what serde_json writes, and so is its
        // text block (the JSON as a string literal), with the document cache and without.
        let json = serde_json::to_string(&response).unwrap();
        let literal = serde_json::to_string(&json).unwrap();
        for with_cache in [Some(store), None] {
            let (written, written_literal) = response.to_json_and_literal(with_cache);
            prop_assert_eq!(&written, &json);
            prop_assert_eq!(&written_literal, &literal);
        }
        for hit in &response.results {
            prop_assert!(store.get(&hit.uri).is_some());
            prop_assert!(hit.score.is_finite());
            // A snippet cut inside a character would show up as a replacement character.
            prop_assert!(!hit.snippet.contains('\u{FFFD}'), "{:?}", hit.snippet);
            prop_assert!(std::str::from_utf8(hit.snippet.as_bytes()).is_ok());
        }
    }

    #[test]
    fn json_strings_match_serde_json(text in prop_oneof![
        "\\PC{0,40}",
        "[\"\\\\\\x00-\\x1f a-z{}:,é🚀\\x7f]{0,80}",
    ]) {
        let mut out = String::new();
        zcp::json_string::push_json_string(&mut out, &text);
        prop_assert_eq!(out, serde_json::to_string(&text).unwrap());
    }

    #[test]
    fn resource_uris_never_escape(
        tail in prop_oneof![
            "\\PC{0,40}",
            prop::collection::vec(prop::sample::select(vec![
                "..", ".", "", "%2e%2e", "%2E", "%2f", "services", "postgresql", "a-b", "\\", "..%5c", "%00",
            ]), 0..6).prop_map(|parts| parts.join("/")),
        ],
    ) {
        for uri in [tail.clone(), format!("zerops://docs/{tail}")] {
            if let Some(resolved) = resolve_uri(&uri) {
                let path = resolved.strip_prefix("zerops://docs/").unwrap();
                for segment in path.split('/') {
                    prop_assert!(!segment.is_empty() && segment != "..", "{}", resolved);
                    prop_assert!(segment.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'), "{}", resolved);
                }
            }
            if let Some(contents) = DocsResources.read(&uri) {
                let resolved = resolve_uri(&uri);
                prop_assert!(resolved.is_some());
                prop_assert!(knowledge::store().get(&resolved.unwrap()).is_some());
                prop_assert_eq!(contents.uri, uri);
            }
        }
    }
}

/// A line over the cap is answered with an error that carries the request's id when the
/// id comes before the bulk, so the client is not left waiting for that request.
#[test]
fn an_over_long_request_is_answered_under_its_id() {
    let sink = Sink::default();
    let server = ServerBuilder::new(ServerInfo {
        name: "long-lines".into(),
        title: "long lines".into(),
        version: "0.0.0".into(),
    })
    .max_line(2048)
    .build(Box::new(sink.clone()));
    let pad = "x".repeat(10_000);
    let input = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"ping\",\"params\":{{\"pad\":\"{pad}\"}}}}\n\
         {{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":{{\"pad\":\"{pad}\"}},\"id\":8}}\n\
         {{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}}\n"
    );
    server.serve(Cursor::new(input));
    assert!(server.wait_idle(Duration::from_secs(10)));
    let out = String::from_utf8(std::mem::take(&mut *sink.0.lock().unwrap())).unwrap();
    let replies: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(replies.len(), 3, "{out}");
    assert_eq!(replies[0]["id"], "big");
    assert_eq!(replies[0]["error"]["code"], -32600);
    // The id after the bulk is out of reach: the error goes out with a null id.
    assert_eq!(replies[1]["id"], serde_json::Value::Null);
    assert_eq!(replies[2]["id"], 2);
    assert!(replies[2]["result"].is_object());
}
