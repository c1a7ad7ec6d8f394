//! Store-level tests on small hand-made corpora: ranking, aliases, typos, suggestions,
//! response shape and URI resolution.

use super::*;

fn doc(path: &str, title: &str, keywords: &str, body: &str) -> (String, String) {
    (
        path.to_owned(),
        format!(
            "---\ntitle: {title}\ndescription: About {title}.\nkeywords: [{keywords}]\n---\n\n# {title}\n\n{body}\n"
        ),
    )
}

fn small() -> Store {
    Store::from_documents(vec![
        doc(
            "services/postgresql",
            "PostgreSQL on Zerops",
            "postgresql, postgres, database, connection string",
            "Read ${db_connectionString}. Deploying apps that use a database is easy.\n\n## See Also\n- zerops://docs/services/mariadb\n- zerops://docs/runtimes/nodejs",
        ),
        doc(
            "services/mariadb",
            "MariaDB on Zerops",
            "mariadb, mysql, database",
            "A MySQL-compatible database on port 3306.",
        ),
        doc(
            "runtimes/nodejs",
            "Node.js on Zerops",
            "nodejs, node, javascript",
            "Use `nodejs@22` as the build base. Deploy with zcli push. Žluťoučký kůň deploys ✓.",
        ),
        doc(
            "services/valkey",
            "Valkey on Zerops",
            "valkey, cache, session",
            "A Redis-compatible cache for sessions.",
        ),
    ])
}

fn top(store: &Store, query: &str) -> String {
    store
        .search(query, 5)
        .results
        .first()
        .map(|h| h.uri.trim_start_matches(URI_PREFIX).to_owned())
        .unwrap_or_default()
}

#[test]
fn documents_are_sorted_and_found_by_exact_uri() {
    let store = small();
    let uris: Vec<&str> = store.documents().iter().map(|d| d.uri.as_str()).collect();
    let mut sorted = uris.clone();
    sorted.sort_unstable();
    assert_eq!(uris, sorted);
    assert_eq!(store.documents().len(), 4);
    assert!(store.get("zerops://docs/services/mariadb").is_some());
    assert!(store.get("zerops://docs/services/mongodb").is_none());
    assert!(store.get("services/mariadb").is_none());
}

#[test]
fn broken_and_duplicate_files_are_skipped() {
    let store = Store::from_documents(vec![
        doc("a/one", "One", "x, y, z", "body"),
        ("a/two".into(), "# no front matter".into()),
        doc("a/one", "Again", "x, y, z", "body"),
    ]);
    assert_eq!(store.documents().len(), 1);
    assert_eq!(store.documents()[0].title, "One");
}

#[test]
fn ranks_by_title_keywords_and_content() {
    let store = small();
    assert_eq!(top(&store, "postgresql"), "services/postgresql");
    assert_eq!(top(&store, "mariadb"), "services/mariadb");
    assert_eq!(top(&store, "valkey cache"), "services/valkey");
    assert_eq!(top(&store, "nodejs@22"), "runtimes/nodejs");
    // Stemming: "deploying" and "deploys" meet "deploy".
    let r = store.search("deploy", 5);
    let uris: Vec<&str> = r.results.iter().map(|h| h.uri.as_str()).collect();
    assert!(uris.contains(&"zerops://docs/runtimes/nodejs"), "{uris:?}");
    assert!(
        uris.contains(&"zerops://docs/services/postgresql"),
        "{uris:?}"
    );
    // Scores are rounded and descending.
    for pair in r.results.windows(2) {
        assert!(pair[0].score >= pair[1].score);
    }
    for hit in &r.results {
        assert_eq!((hit.score * 1000.0).round() / 1000.0, hit.score);
    }
}

#[test]
fn aliases_and_typos_expand_the_query() {
    let store = small();
    let r = store.search("redis", 5);
    assert_eq!(r.expanded_query.as_deref(), Some("redis valkey"));
    assert_eq!(r.results[0].uri, "zerops://docs/services/valkey");
    let r = store.search("postgre connction", 5);
    assert_eq!(r.results[0].uri, "zerops://docs/services/postgresql");
    let expanded = r.expanded_query.unwrap();
    assert!(expanded.contains("connection"), "{expanded}");
    assert_eq!(store.search("mariadb", 5).expanded_query, None);
}

#[test]
fn suggestions() {
    let store = small();
    // The top document's See Also, with titles where known.
    let r = store.search("postgresql", 5);
    assert_eq!(
        r.suggestions,
        [
            "Related: zerops://docs/services/mariadb (MariaDB on Zerops)",
            "Related: zerops://docs/runtimes/nodejs (Node.js on Zerops)"
        ]
    );
    // Unsupported services are named even though documents match.
    let r = store.search("mysql database", 5);
    assert!(!r.results.is_empty());
    assert!(r.suggestions[0].contains("MariaDB"), "{:?}", r.suggestions);
    // Nothing at all.
    let r = store.search("qqqq zzzz", 5);
    assert!(r.results.is_empty() && r.top_result.is_none());
    assert_eq!(r.suggestions.len(), 1);
    assert!(r.suggestions[0].starts_with("No results for 'qqqq zzzz'"));
    // An unsupported service nothing mentions still gets its answer (and no "No results").
    let r = store.search("mongodb", 5);
    assert!(r.results.is_empty());
    assert!(
        r.suggestions[0].contains("PostgreSQL"),
        "{:?}",
        r.suggestions
    );
    assert_eq!(r.suggestions.len(), 1);
}

#[test]
fn limit_and_top_result() {
    let store = small();
    let r = store.search("zerops", 2);
    assert_eq!(r.results.len(), 2);
    let top = r.top_result.unwrap();
    assert_eq!(top.uri, r.results[0].uri);
    assert_eq!(top.content, store.get(&top.uri).unwrap().markdown);
    assert!(store.search("zerops", 0).results.is_empty());
    assert!(store.search("", 5).results.is_empty());
    assert!(store.search("the and of", 5).results.is_empty());
}

#[test]
fn huge_and_odd_queries_are_answered() {
    let store = small();
    let huge = "postgresql ".repeat(100_000);
    let r = store.search(&huge, 5);
    assert_eq!(r.results[0].uri, "zerops://docs/services/postgresql");
    assert_eq!(r.query.len(), huge.len());
    for odd in [
        "\0\u{1}",
        "🚀🚀🚀",
        "${}",
        "@@@",
        "...",
        "-",
        "a@",
        "ł".repeat(5000).as_str(),
    ] {
        let r = store.search(odd, 5);
        assert!(!r.suggestions.is_empty(), "{odd:?}");
    }
}

#[test]
fn response_serialises_in_camel_case_with_empty_lists() {
    let store = small();
    let empty = serde_json::to_value(store.search("qqqq", 5)).unwrap();
    assert_eq!(empty["results"], crate::json!([]));
    assert!(empty.get("topResult").is_none() && empty.get("expandedQuery").is_none());
    let full = serde_json::to_value(store.search("redis", 5)).unwrap();
    assert_eq!(full["query"], "redis");
    assert_eq!(full["expandedQuery"], "redis valkey");
    assert!(
        full["topResult"]["content"]
            .as_str()
            .unwrap()
            .starts_with("---")
    );
    let hit = &full["results"][0];
    for key in ["uri", "title", "score", "snippet"] {
        assert!(hit.get(key).is_some(), "{key}");
    }
}

#[test]
fn direct_serialisation_writes_the_same_bytes_as_a_sorted_value() {
    // The tool writes responses straight to text; clients and golden files see the keys
    // sorted, as a `serde_json::Value` writes them.
    let store = small();
    for query in ["redis", "postgres connection", "qqqq", "deploy nodejs"] {
        let response = store.search(query, 5);
        let direct = serde_json::to_string(&response).unwrap();
        let via_value = serde_json::to_value(&response).unwrap().to_string();
        assert_eq!(direct, via_value, "{query}");
        assert_eq!(response.to_json(), direct, "{query}");
    }
    // The embedded documents: whole markdown documents, aliases, typo fixes, no match.
    let store = crate::knowledge::store();
    for query in [
        "postgresql connection string",
        "postgre conection",
        "nodjs zerops.yml build",
        "502 bad gateway",
        "\"quoted\" \\ back\tslash",
        "žluťoučký kůň",
        "qqqxyzzy",
    ] {
        let response = store.search(query, 20);
        let json = serde_json::to_string(&response).unwrap();
        assert_eq!(response.to_json(), json, "{query}");
        // The tool's text block: the same JSON as a string literal, whether the top
        // document's escaped forms come from the cache or are escaped on the spot.
        let literal = serde_json::to_string(&json).unwrap();
        let cached = (response.top_result.as_ref()).and_then(|t| store.content_literals(&t.uri));
        assert_eq!(cached.is_some(), response.top_result.is_some(), "{query}");
        for with_cache in [Some(store), None] {
            let (written, written_literal) = response.to_json_and_literal(with_cache);
            assert_eq!(written, json, "{query}");
            assert_eq!(written_literal, literal, "{query}");
        }
    }
    assert!(store.content_literals("zerops://docs/no/such").is_none());
}

#[test]
fn snippets_come_from_text_and_respect_utf8() {
    let store = small();
    let r = store.search("žluťoučký", 5);
    assert_eq!(r.results[0].uri, "zerops://docs/runtimes/nodejs");
    assert!(
        r.results[0].snippet.contains("Žluťoučký kůň"),
        "{}",
        r.results[0].snippet
    );
    let r = store.search("connection string", 5);
    let snippet = &r.results[0].snippet;
    assert!(snippet.contains("db_connectionString"), "{snippet}");
    assert!(
        !snippet.contains('`') && !snippet.contains("# "),
        "{snippet}"
    );
    // A hit matched only in title or keywords shows its description or opening text.
    let r = store.search("session", 5);
    assert!(!r.results[0].snippet.is_empty());
}

#[test]
fn resolve_uri_accepts_document_paths() {
    for (input, want) in [
        (
            "zerops://docs/services/postgresql",
            "zerops://docs/services/postgresql",
        ),
        (
            "zerops://docs/services/postgresql.md",
            "zerops://docs/services/postgresql",
        ),
        (
            "zerops://docs/config/zerops-yml",
            "zerops://docs/config/zerops-yml",
        ),
        ("zerops://docs/a/b/c1", "zerops://docs/a/b/c1"),
    ] {
        assert_eq!(resolve_uri(input).as_deref(), Some(want), "{input}");
    }
}

#[test]
fn resolve_uri_refuses_escapes() {
    for bad in [
        "zerops://docs/../../etc/passwd",
        "zerops://docs/services/../../../etc/passwd",
        "zerops://docs/services/..",
        "zerops://docs/./services/postgresql",
        "zerops://docs/%2e%2e/%2e%2e/etc/passwd",
        "zerops://docs/%2E%2E%2Fetc%2Fpasswd",
        "zerops://docs/services%2fpostgresql",
        "zerops://docs/services%2Fpostgresql",
        "zerops://docs/..%5c..%5cwindows",
        "zerops://docs/..%5C..%5Cwindows",
        "zerops://docs/%252e%252e/etc",
        "zerops://docs//etc/passwd",
        "zerops://docs/services//postgresql",
        "zerops://docs/services/postgresql/",
        "zerops://docs/services\\postgresql",
        "zerops://docs/..\\..\\etc",
        "zerops://docs/C:/Windows",
        "zerops://docs/",
        "zerops://docs",
        "zerops://docs/.md",
        "zerops://docs/Services/PostgreSQL",
        "zerops://docs/services/postgresql?x=1",
        "zerops://docs/services/postgresql#top",
        "zerops://docs/services/post gresql",
        "zerops://docs/services/postgresql\0",
        "zerops://docs/sërvices/x",
        "file:///etc/passwd",
        "/etc/passwd",
        "zerops://other/services/postgresql",
        "ZEROPS://docs/services/postgresql",
    ] {
        assert_eq!(resolve_uri(bad), None, "{bad:?}");
    }
    assert_eq!(
        resolve_uri(&format!("zerops://docs/{}", "a".repeat(500))),
        None
    );
}

/// Every markdown file of embedded_docs/, read from disk, as (path without .md, text).
fn docs_on_disk(dir: &std::path::Path, prefix: &str, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if path.is_dir() {
            docs_on_disk(&path, &format!("{prefix}{name}/"), out);
        } else if let Some(stem) = name.strip_suffix(".md") {
            out.push((
                format!("{prefix}{stem}"),
                std::fs::read_to_string(&path).unwrap(),
            ));
        }
    }
}

#[test]
fn the_packed_blob_holds_every_document_and_its_extraction() {
    let mut expected = Vec::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("embedded_docs");
    docs_on_disk(&root, "", &mut expected);
    let mut unpacked = unpack(PACKED);
    expected.sort();
    unpacked.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!expected.is_empty());
    assert_eq!(unpacked.len(), expected.len());
    for ((path, markdown, extract), (disk_path, disk_markdown)) in unpacked.iter().zip(&expected) {
        assert_eq!((path, markdown), (disk_path, disk_markdown));
        assert_eq!(
            extract,
            &document::extract(document::body_of(markdown)),
            "{path}"
        );
    }
}

#[test]
fn the_embedded_store_equals_one_built_from_the_markdown() {
    let mut files = Vec::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("embedded_docs");
    docs_on_disk(&root, "", &mut files);
    let fresh = Store::from_documents(files);
    let embedded = store();
    assert_eq!(fresh.documents(), embedded.documents());
    for query in [
        "postgresql connection string",
        "nodejs zerops.yml",
        "deployig nodjs app",
    ] {
        assert_eq!(fresh.search(query, 5), embedded.search(query, 5), "{query}");
    }
}

#[test]
fn a_damaged_blob_keeps_what_it_can_and_never_panics() {
    assert!(unpack(b"not deflate at all").is_empty());
    // Two documents, "# A" and "# B", whose texts ("A", "B") are each one step: no
    // literal, skip 2 bytes, copy 1; no literal at the end.
    let blob = |skips: &[u8]| {
        let field = |raw: &mut Vec<u8>, part: &[u8]| {
            raw.extend_from_slice(&(part.len() as u32).to_le_bytes());
            raw.extend_from_slice(part);
        };
        let mut records = Vec::new();
        for part in [&b"a.md"[..], b"# A", b"", b"A", b"b.md", b"# B", b"", b"B"] {
            field(&mut records, part);
        }
        let mut raw = Vec::new();
        for part in [&[0, 0, 0, 0][..], skips, &[1, 1, 1, 1]] {
            field(&mut raw, part);
        }
        raw.extend_from_slice(&records);
        raw
    };
    let whole = unpack(&miniz_oxide::deflate::compress_to_vec(&blob(&[2, 2]), 6));
    let texts: Vec<&str> = whole.iter().map(|d| d.2.text.as_str()).collect();
    assert_eq!(texts, ["A", "B"]);
    // The last record cut short: the first document is kept.
    let mut raw = blob(&[2, 2]);
    raw.truncate(raw.len() - 1);
    let unpacked = unpack(&miniz_oxide::deflate::compress_to_vec(&raw, 6));
    assert_eq!(unpacked.len(), 1);
    assert_eq!(
        (unpacked[0].0.as_str(), unpacked[0].1.as_str()),
        ("a", "# A")
    );
    assert_eq!(unpacked[0].2.heading.as_deref(), Some("A"));
    assert_eq!(unpacked[0].2.text, "A");
    // A script that points past its markdown stops there, without a panic.
    let unpacked = unpack(&miniz_oxide::deflate::compress_to_vec(&blob(&[2, 9]), 6));
    assert_eq!(unpacked.len(), 1);
    // Streams cut short lose everything, quietly.
    assert!(
        unpack(&miniz_oxide::deflate::compress_to_vec(
            &blob(&[2, 2])[..9],
            6
        ))
        .is_empty()
    );
}

#[test]
fn occurrences_pack_their_spans_and_refuse_what_does_not_fit() {
    use super::Occurrence;
    let o = Occurrence::new(7, 4_000_000, 4_001_023).unwrap();
    assert_eq!((o.term, o.start(), o.end()), (7, 4_000_000, 4_001_023));
    let o = Occurrence::new(0, 0, 0).unwrap();
    assert_eq!((o.start(), o.end()), (0, 0));
    // Ordered by term, then start.
    let a = Occurrence::new(1, 900, 901).unwrap();
    let b = Occurrence::new(1, 1000, 1001).unwrap();
    let c = Occurrence::new(2, 5, 6).unwrap();
    assert!(a < b && b < c);
    // A token of 1024 bytes, a start at 4 MiB, an end before the start.
    assert!(Occurrence::new(0, 10, 10 + 1024).is_none());
    assert!(Occurrence::new(0, 1 << 22, (1 << 22) + 1).is_none());
    assert!(Occurrence::new(0, 5, 4).is_none());
}

#[test]
fn every_token_of_the_embedded_documents_is_recorded() {
    // Occurrence packing leaves out tokens over 1023 bytes or past 4 MiB: none here.
    let store = crate::knowledge::store();
    for (doc, entry) in store.documents.iter().zip(&store.entries) {
        let mut tokens = 0;
        super::tokenize::each_token(&entry.text, &mut |_, _, _| tokens += 1);
        assert_eq!(entry.occurrences.len(), tokens, "{}", doc.uri);
    }
}
