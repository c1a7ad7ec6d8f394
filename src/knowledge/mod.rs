//! The embedded Zerops knowledge base: markdown documents compiled into the binary
//! (`embedded_docs/`), a BM25 index over title, keywords and content, query expansion,
//! typo tolerance, snippets and suggestions. The store is built once, on first use (never
//! at startup), so answering `initialize` costs nothing.

mod bm25;
pub mod document;
pub mod query;
pub mod text;

use std::sync::OnceLock;

use include_dir::{Dir, include_dir};
use serde::Serialize;

pub use document::{CodeBlock, Document, URI_PREFIX};

static EMBEDDED: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/embedded_docs");

/// Weight of terms the aliases add (original terms weigh 1).
const ALIAS_WEIGHT: f64 = 0.7;
/// Weight of terms added by typo correction.
const TYPO_WEIGHT: f64 = 0.8;
/// Characters of context around a snippet's match.
const SNIPPET_BEFORE: usize = 80;
const SNIPPET_AFTER: usize = 240;

/// One search hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    pub uri: String,
    pub title: String,
    pub score: f64,
    pub snippet: String,
}

/// The best document in full.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopResult {
    pub uri: String,
    pub title: String,
    pub content: String,
}

/// The answer to a search.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResponse {
    pub query: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expanded_query: Option<String>,
    pub results: Vec<Hit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_result: Option<TopResult>,
    pub suggestions: Vec<String>,
}

struct Entry {
    doc: Document,
    body_terms: Vec<text::Term>,
}

/// All documents and their index.
pub struct Store {
    entries: Vec<Entry>,
    documents: Vec<Document>,
    index: bm25::Index,
}

/// The embedded store, built on first call.
pub fn store() -> &'static Store {
    static STORE: OnceLock<Store> = OnceLock::new();
    STORE.get_or_init(|| {
        let mut files = Vec::new();
        collect(&EMBEDDED, &mut files);
        Store::from_documents(files)
    })
}

fn collect(dir: &Dir<'_>, out: &mut Vec<(String, String)>) {
    for file in dir.files() {
        let path = file.path().to_string_lossy().replace('\\', "/");
        if let (Some(stem), Some(text)) = (path.strip_suffix(".md"), file.contents_utf8()) {
            out.push((stem.to_owned(), text.to_owned()));
        }
    }
    for sub in dir.dirs() {
        collect(sub, out);
    }
}

/// Checks an untrusted `zerops://docs/{+path}` URI and returns it normalised, or `None`
/// for anything that could escape the document set (`..`, `.`, empty segments,
/// percent-encoding, backslashes, absolute paths, unexpected characters).
pub fn resolve_uri(uri: &str) -> Option<String> {
    let path = uri.strip_prefix(URI_PREFIX)?;
    let path = path.strip_suffix(".md").unwrap_or(path);
    if path.is_empty() || path.starts_with('/') || path.contains('\\') || path.contains('%') {
        return None;
    }
    for segment in path.split('/') {
        if segment.is_empty() || segment == "." || segment == ".." {
            return None;
        }
        if !segment
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return None;
        }
    }
    Some(format!("{URI_PREFIX}{path}"))
}

impl Store {
    /// Builds a store from `(path, markdown)` pairs; unparseable files are skipped with a
    /// log line (the document-set test keeps the embedded set clean).
    pub fn from_documents(files: Vec<(String, String)>) -> Store {
        let mut entries: Vec<Entry> = files
            .iter()
            .filter_map(|(path, markdown)| match Document::parse(path, markdown) {
                Ok(doc) => Some(doc),
                Err(err) => {
                    crate::warn!("knowledge", "skipping a document: {}", err.0);
                    None
                }
            })
            .map(|doc| {
                let body_terms = text::terms(doc.body());
                Entry { doc, body_terms }
            })
            .collect();
        entries.sort_by(|a, b| a.doc.uri.cmp(&b.doc.uri));
        let titles = entries
            .iter()
            .map(|e| {
                text::terms(&e.doc.title)
                    .into_iter()
                    .map(|t| t.text)
                    .collect()
            })
            .collect();
        let keywords = entries
            .iter()
            .map(|e| {
                text::terms(&e.doc.keywords.join(" , "))
                    .into_iter()
                    .map(|t| t.text)
                    .collect()
            })
            .collect();
        let content = entries
            .iter()
            .map(|e| e.body_terms.iter().map(|t| t.text.clone()).collect())
            .collect();
        let index = bm25::Index::build([titles, keywords, content]);
        let documents = entries.iter().map(|e| e.doc.clone()).collect();
        Store {
            entries,
            documents,
            index,
        }
    }

    /// Every document, sorted by URI.
    pub fn documents(&self) -> &[Document] {
        &self.documents
    }

    /// A document by exact URI.
    pub fn get(&self, uri: &str) -> Option<&Document> {
        self.documents
            .binary_search_by(|d| d.uri.as_str().cmp(uri))
            .ok()
            .map(|i| &self.documents[i])
    }

    /// Ranks documents for `query` and returns up to `limit` hits.
    pub fn search(&self, query: &str, limit: usize) -> SearchResponse {
        let limit = limit.clamp(1, 20);
        let originals = text::query_terms(query);
        let words: Vec<String> = query
            .split(|c: char| {
                c.is_whitespace() || matches!(c, ',' | '?' | '!' | ';' | '(' | ')' | '"' | '\'')
            })
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let mut terms: Vec<(String, f64)> = originals.iter().map(|t| (t.clone(), 1.0)).collect();
        let mut added = false;
        for word in &words {
            if let Some(extra) = query::expand(word) {
                for term in text::query_terms(extra) {
                    if !terms.iter().any(|(t, _)| *t == term) {
                        terms.push((term, ALIAS_WEIGHT));
                        added = true;
                    }
                }
            }
        }
        // One-letter typos in words the documents never use.
        for original in &originals {
            if self.index.knows(original)
                || original.chars().count() < 4
                || !original.chars().all(char::is_alphabetic)
            {
                continue;
            }
            let allowed = if original.chars().count() >= 8 { 2 } else { 1 };
            let mut fixes: Vec<&str> = self
                .index
                .vocabulary()
                .filter(|v| {
                    v.chars().all(char::is_alphabetic)
                        && v.len().abs_diff(original.len()) <= allowed
                })
                .filter(|v| edit_distance(original, v) <= allowed)
                .collect();
            fixes.sort_unstable();
            fixes.dedup();
            for fix in fixes.into_iter().take(3) {
                if !terms.iter().any(|(t, _)| t == fix) {
                    terms.push((fix.to_owned(), TYPO_WEIGHT));
                    added = true;
                }
            }
        }
        let scores = self.index.scores(&terms);
        let mut ranked: Vec<(usize, f64)> = scores
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, s)| *s > 0.0)
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(limit);
        let snippet_terms: Vec<&str> = terms.iter().map(|(t, _)| t.as_str()).collect();
        let results: Vec<Hit> = ranked
            .iter()
            .map(|&(i, score)| Hit {
                uri: self.entries[i].doc.uri.clone(),
                title: self.entries[i].doc.title.clone(),
                score: (score * 1000.0).round() / 1000.0,
                snippet: self.snippet(&self.entries[i], &snippet_terms),
            })
            .collect();
        let top_result = ranked.first().map(|&(i, _)| TopResult {
            uri: self.entries[i].doc.uri.clone(),
            title: self.entries[i].doc.title.clone(),
            content: self.entries[i].doc.markdown.clone(),
        });
        let mut suggestions: Vec<String> = query::unsupported_messages(&words)
            .into_iter()
            .map(str::to_owned)
            .collect();
        if results.is_empty() {
            suggestions.push(format!(
                "No results for '{}'. Try broader terms: a service or runtime name (postgresql, nodejs), 'zerops.yml', 'import.yml', 'environment variables' or 'troubleshoot'.",
                query.trim()
            ));
        } else if let Some(&(top, _)) = ranked.first() {
            for uri in self.entries[top].doc.see_also.iter().take(3) {
                suggestions.push(format!("Related: {uri}"));
            }
        }
        suggestions.truncate(5);
        SearchResponse {
            query: query.to_owned(),
            expanded_query: added.then(|| {
                terms
                    .iter()
                    .map(|(t, _)| t.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            }),
            results,
            top_result,
            suggestions,
        }
    }

    /// Text around the first occurrence of a query term in the body (the first lines
    /// repeat the title, so a later match is preferred when one exists).
    fn snippet(&self, entry: &Entry, terms: &[&str]) -> String {
        let body = entry.doc.body();
        let heading_end = body.find('\n').unwrap_or(0);
        let hits: Vec<usize> = entry
            .body_terms
            .iter()
            .filter(|t| terms.contains(&t.text.as_str()))
            .map(|t| t.offset)
            .collect();
        let at = hits
            .iter()
            .copied()
            .find(|&o| o > heading_end)
            .or_else(|| hits.first().copied())
            .unwrap_or(heading_end);
        window(body, at)
    }
}

/// A cleaned window of `text` around byte `at`, cut on character (and word) boundaries.
fn window(text: &str, at: usize) -> String {
    let mut start = at.saturating_sub(SNIPPET_BEFORE);
    while start > 0 && !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (at + SNIPPET_AFTER).min(text.len());
    while end < text.len() && !text.is_char_boundary(end) {
        end += 1;
    }
    let mut slice = &text[start..end];
    if start > 0
        && let Some(space) = slice.find(char::is_whitespace)
    {
        slice = &slice[space..];
    }
    if end < text.len()
        && let Some(space) = slice.rfind(char::is_whitespace)
    {
        slice = &slice[..space];
    }
    let cleaned: String = slice
        .chars()
        .filter(|c| !matches!(c, '#' | '`' | '*' | '|' | '>'))
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    let collapsed = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    format!(
        "{}{}{}",
        if start > 0 { "..." } else { "" },
        collapsed,
        if end < text.len() { "..." } else { "" }
    )
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            current[j] = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(path: &str, title: &str, keywords: &str, body: &str) -> (String, String) {
        (
            path.to_owned(),
            format!(
                "---\ntitle: {title}\ndescription: d\nkeywords: [{keywords}]\n---\n\n# {title}\n\n{body}\n"
            ),
        )
    }

    fn small() -> Store {
        Store::from_documents(vec![
            doc(
                "services/postgresql",
                "PostgreSQL on Zerops",
                "postgresql, database",
                "Connect with ${db_connectionString}. Deploying apps that use postgresql is easy.\n\n## See Also\n- zerops://docs/services/mariadb",
            ),
            doc(
                "services/mariadb",
                "MariaDB on Zerops",
                "mariadb, mysql",
                "MySQL-compatible database.",
            ),
            doc(
                "runtimes/nodejs",
                "Node.js on Zerops",
                "nodejs, node",
                "Use nodejs@22. Deploy with zcli push. Ünïcödé text around deploy ✓.",
            ),
        ])
    }

    #[test]
    fn ranks_titles_aliases_and_stems() {
        let store = small();
        let r = store.search("postgres", 5);
        assert_eq!(r.results[0].uri, "zerops://docs/services/postgresql");
        assert!(r.expanded_query.is_some(), "the alias added postgresql");
        assert_eq!(
            r.top_result.unwrap().uri,
            "zerops://docs/services/postgresql"
        );
        assert_eq!(
            r.suggestions,
            vec!["Related: zerops://docs/services/mariadb"]
        );
        let r = store.search("deploying node", 5);
        assert_eq!(r.results[0].uri, "zerops://docs/runtimes/nodejs");
        let r = store.search("nodejs@22", 5);
        assert_eq!(r.results[0].uri, "zerops://docs/runtimes/nodejs");
    }

    #[test]
    fn typos_unsupported_and_nothing_found() {
        let store = small();
        assert_eq!(
            store.search("postgresqll", 5).results[0].uri,
            "zerops://docs/services/postgresql"
        );
        let r = store.search("mongodb", 5);
        assert!(r.suggestions[0].contains("PostgreSQL"));
        let r = store.search("qqqqzzzz", 5);
        assert!(r.results.is_empty());
        assert!(r.top_result.is_none());
        assert!(r.suggestions[0].starts_with("No results"));
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["results"], serde_json::json!([]));
    }

    #[test]
    fn snippets_respect_utf8() {
        let store = small();
        for q in ["deploy", "unicode", "push"] {
            for hit in store.search(q, 5).results {
                assert!(!hit.snippet.is_empty());
            }
        }
        let w = window(&"é".repeat(400), 301);
        assert!(w.starts_with("...") && w.ends_with("..."));
    }

    #[test]
    fn uri_resolution_refuses_escapes() {
        assert_eq!(
            resolve_uri("zerops://docs/services/postgresql").as_deref(),
            Some("zerops://docs/services/postgresql")
        );
        assert_eq!(
            resolve_uri("zerops://docs/services/postgresql.md").as_deref(),
            Some("zerops://docs/services/postgresql")
        );
        for bad in [
            "zerops://docs/../../etc/passwd",
            "zerops://docs/services/../x",
            "zerops://docs/%2e%2e/x",
            "zerops://docs/%2E%2E%2Fetc",
            "zerops://docs//etc/passwd",
            "zerops://docs/services\\x",
            "zerops://docs/./x",
            "zerops://docs/",
            "file:///etc/passwd",
            "zerops://docs/Services/X",
        ] {
            assert_eq!(resolve_uri(bad), None, "{bad}");
        }
    }
}
