//! The embedded knowledge base as shipped: every topic of the spec exists with a title
//! that matches its heading, a description and keywords; URIs are unique and links
//! resolve; and the search meets its quality bar (hit@3, MRR) on agent-style queries.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use zcp::knowledge::{self, Document, resolve_uri};

#[path = "support/knowledge_queries.rs"]
mod queries;

/// The topics of `knowledge-topics.md` §1, one document each.
const TOPICS: [&str; 86] = [
    "services/postgresql",
    "services/mariadb",
    "services/valkey",
    "services/keydb",
    "services/clickhouse",
    "services/elasticsearch",
    "services/meilisearch",
    "services/typesense",
    "services/qdrant",
    "services/nats",
    "services/kafka",
    "services/object-storage",
    "services/shared-storage",
    "runtimes/nodejs",
    "runtimes/bun",
    "runtimes/deno",
    "runtimes/python",
    "runtimes/php",
    "runtimes/go",
    "runtimes/rust",
    "runtimes/java",
    "runtimes/dotnet",
    "runtimes/elixir",
    "runtimes/gleam",
    "runtimes/ruby",
    "runtimes/static",
    "runtimes/nginx",
    "runtimes/alpine",
    "runtimes/ubuntu",
    "runtimes/docker",
    "config/zerops-yml",
    "config/zerops-yml-build",
    "config/zerops-yml-run",
    "config/import-yml",
    "config/import-yml-patterns",
    "config/preprocessor",
    "config/deploy-files",
    "config/health-checks",
    "config/cron",
    "config/zcli",
    "config/service-types",
    "networking/overview",
    "networking/subdomain",
    "networking/public-access",
    "networking/firewall",
    "networking/vpn",
    "networking/cloudflare",
    "networking/ssh",
    "networking/l7-balancer",
    "platform/env-variables",
    "platform/scaling",
    "platform/ha-mode",
    "platform/build-pipeline",
    "platform/build-cache",
    "platform/backup",
    "platform/cdn",
    "platform/debug-mode",
    "platform/rbac",
    "platform/infrastructure",
    "platform/containers-vs-vm",
    "operations/logging",
    "operations/log-forwarding",
    "operations/metrics",
    "operations/smtp",
    "operations/ci-cd",
    "operations/init-commands",
    "operations/production-checklist",
    "operations/service-lifecycle",
    "operations/processes",
    "decisions/choose-database",
    "decisions/choose-cache",
    "decisions/choose-queue",
    "decisions/choose-search",
    "decisions/choose-runtime-base",
    "guides/deploy-nodejs",
    "guides/deploy-python",
    "guides/deploy-php-laravel",
    "guides/deploy-go",
    "guides/deploy-static-spa",
    "guides/connect-database",
    "guides/object-storage-integration",
    "guides/local-development",
    "guides/troubleshoot-build",
    "guides/troubleshoot-502",
    "guides/environment-promotion",
    "gotchas/common",
];

/// Every `.md` file under `embedded_docs/` as `(category/name, markdown)`.
fn files_on_disk() -> Vec<(String, String)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(root, &path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                let rel = path.strip_prefix(root).unwrap().with_extension("");
                let rel = rel.to_string_lossy().replace('\\', "/");
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("embedded_docs");
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out
}

#[test]
fn every_file_parses_and_is_embedded() {
    let files = files_on_disk();
    let mut errors = Vec::new();
    for (path, markdown) in &files {
        if let Err(err) = Document::parse(path, markdown) {
            errors.push(err.to_string());
        }
    }
    assert!(
        errors.is_empty(),
        "unparseable documents:\n{}",
        errors.join("\n")
    );
    let store = knowledge::store();
    assert_eq!(
        store.documents().len(),
        files.len(),
        "the embedded set differs from embedded_docs/ (rebuild, or a duplicate path)"
    );
    for (path, markdown) in &files {
        let embedded = store.get(&format!("zerops://docs/{path}"));
        assert_eq!(
            embedded.map(|d| d.markdown.as_str()),
            Some(markdown.as_str()),
            "{path}: the embedded copy is stale (build.rs must rerun on embedded_docs changes)"
        );
    }
}

#[test]
fn every_topic_exists() {
    let store = knowledge::store();
    let missing: Vec<&str> = TOPICS
        .iter()
        .copied()
        .filter(|t| store.get(&format!("zerops://docs/{t}")).is_none())
        .collect();
    assert!(missing.is_empty(), "missing documents: {missing:?}");
    assert!(store.documents().len() >= TOPICS.len());
    let unique: HashSet<&str> = TOPICS.iter().copied().collect();
    assert_eq!(unique.len(), TOPICS.len());
}

#[test]
fn every_document_has_metadata_and_a_clean_path() {
    let mut problems = Vec::new();
    let mut uris = HashSet::new();
    for doc in knowledge::store().documents() {
        let uri = &doc.uri;
        if !uris.insert(uri.clone()) {
            problems.push(format!("{uri}: duplicate URI"));
        }
        if doc.title.trim().is_empty() {
            problems.push(format!("{uri}: no title"));
        }
        if doc.heading() != Some(doc.title.as_str()) {
            problems.push(format!(
                "{uri}: first heading {:?} is not the title",
                doc.heading()
            ));
        }
        if doc.description.trim().is_empty() {
            problems.push(format!("{uri}: no description"));
        }
        if doc.keywords.len() < 3 {
            problems.push(format!(
                "{uri}: {} keywords (at least 3)",
                doc.keywords.len()
            ));
        }
        let segments: Vec<&str> = doc.path.split('/').collect();
        let clean = segments.len() == 2
            && segments.iter().all(|s| {
                !s.is_empty()
                    && s.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            });
        if !clean {
            problems.push(format!("{uri}: path must be category/name in [a-z0-9-]"));
        }
        if resolve_uri(uri).as_deref() != Some(uri.as_str()) {
            problems.push(format!("{uri}: does not resolve to itself"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_internal_link_resolves() {
    let store = knowledge::store();
    let mut broken = Vec::new();
    for doc in store.documents() {
        for link in doc.links().iter().chain(&doc.see_also) {
            if store.get(link).is_none() {
                broken.push(format!("{} -> {link}", doc.uri));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// Rank (1-based) of the first acceptable document among the hits, if any.
fn first_rank(hits: &[knowledge::Hit], acceptable: &[&str]) -> Option<usize> {
    hits.iter()
        .position(|h| {
            acceptable
                .iter()
                .any(|a| h.uri.strip_prefix("zerops://docs/") == Some(a))
        })
        .map(|i| i + 1)
}

/// hit@3 and MRR of `set` (each query with the documents any of which is a good answer),
/// and the queries whose first result is not one of them.
fn quality(set: &[(&str, &[&str])]) -> (f64, f64, Vec<String>) {
    let store = knowledge::store();
    let mut hits_at_3 = 0usize;
    let mut reciprocal = 0.0;
    let mut misses = Vec::new();
    for (query, acceptable) in set {
        for doc in *acceptable {
            assert!(
                store.get(&format!("zerops://docs/{doc}")).is_some(),
                "{query}: no {doc}"
            );
        }
        let response = store.search(query, 10);
        let rank = first_rank(&response.results, acceptable);
        if rank.is_some_and(|r| r <= 3) {
            hits_at_3 += 1;
        }
        reciprocal += rank.map_or(0.0, |r| 1.0 / r as f64);
        if rank != Some(1) {
            let top: Vec<&str> = response
                .results
                .iter()
                .take(3)
                .map(|h| h.uri.trim_start_matches("zerops://docs/"))
                .collect();
            misses.push(format!(
                "  {query:?}: rank {rank:?}, top 3 {top:?}, wanted {acceptable:?}"
            ));
        }
    }
    let n = set.len() as f64;
    let (hit3, mrr) = (hits_at_3 as f64 / n, reciprocal / n);
    println!("knowledge search quality over {n} queries: hit@3 = {hit3:.3}, MRR = {mrr:.3}");
    if !misses.is_empty() {
        println!("not ranked first:\n{}", misses.join("\n"));
    }
    (hit3, mrr, misses)
}

#[test]
fn search_quality() {
    assert!(queries::QUALITY.len() >= 40);
    let (hit3, mrr, misses) = quality(queries::QUALITY);
    assert!(
        hit3 >= 0.95,
        "hit@3 {hit3:.3} < 0.95\n{}",
        misses.join("\n")
    );
    assert!(mrr >= 0.85, "MRR {mrr:.3} < 0.85\n{}", misses.join("\n"));
}

#[test]
fn search_quality_on_agent_phrased_queries() {
    assert!(queries::AGENT_PHRASED.len() >= 60);
    let (hit3, mrr, misses) = quality(queries::AGENT_PHRASED);
    assert!(
        hit3 >= 0.95,
        "hit@3 {hit3:.3} < 0.95\n{}",
        misses.join("\n")
    );
    assert!(mrr >= 0.9, "MRR {mrr:.3} < 0.9\n{}", misses.join("\n"));
}

#[test]
fn search_quality_on_held_out_queries() {
    assert!(queries::HELD_OUT.len() >= 100);
    let (hit3, mrr, misses) = quality(queries::HELD_OUT);
    assert!(
        hit3 >= 0.98,
        "hit@3 {hit3:.3} < 0.98\n{}",
        misses.join("\n")
    );
    assert!(mrr >= 0.92, "MRR {mrr:.3} < 0.92\n{}", misses.join("\n"));
}

#[test]
fn search_quality_on_the_audit_set() {
    assert!(queries::AUDIT.len() >= 200);
    let (hit3, mrr, misses) = quality(queries::AUDIT);
    assert!(
        hit3 >= 0.95,
        "hit@3 {hit3:.3} < 0.95\n{}",
        misses.join("\n")
    );
    assert!(mrr >= 0.88, "MRR {mrr:.3} < 0.88\n{}", misses.join("\n"));
}

#[test]
fn unsupported_services_name_the_alternative() {
    let store = knowledge::store();
    for (query, alternative) in queries::UNSUPPORTED {
        let response = store.search(query, 5);
        assert!(
            response
                .suggestions
                .iter()
                .any(|s| s.contains(alternative) && s.contains("zerops://docs/")),
            "{query}: {:?}",
            response.suggestions
        );
        // The answer comes even when documents matched.
        assert!(!response.results.is_empty(), "{query}: no results");
    }
}

#[test]
fn answers_carry_the_top_document_and_related_links() {
    let store = knowledge::store();
    let response = store.search("postgresql connection string", 5);
    let top = response.top_result.as_ref().expect("a top result");
    assert_eq!(top.uri, response.results[0].uri);
    assert_eq!(top.content, store.get(&top.uri).unwrap().markdown);
    let see_also = &store.get(&top.uri).unwrap().see_also;
    assert!(!see_also.is_empty());
    // The top document's related links, but none that the results already hold.
    let listed = |uri: &str| response.results.iter().any(|hit| hit.uri == uri);
    let first_new = see_also
        .iter()
        .find(|uri| !listed(uri))
        .expect("a related document beyond the results");
    assert!(
        response
            .suggestions
            .iter()
            .any(|s| s.starts_with(&format!("Related: {first_new}"))),
        "{:?}",
        response.suggestions
    );
    assert!(
        see_also.iter().any(|uri| listed(uri)),
        "the query should have a related document among its results"
    );
    for s in &response.suggestions {
        let uri = s.trim_start_matches("Related: ").split(' ').next().unwrap();
        assert!(!listed(uri), "{s} repeats a result");
    }
    for hit in &response.results {
        assert!(!hit.snippet.is_empty(), "{}: empty snippet", hit.uri);
        assert!(
            hit.snippet.chars().count() <= 260,
            "{}: {}",
            hit.uri,
            hit.snippet
        );
    }
}
