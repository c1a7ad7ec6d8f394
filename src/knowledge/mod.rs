//! The embedded Zerops knowledge base: the markdown documents of `embedded_docs/`
//! compiled into the binary, a BM25 index over their title, keywords and content, and a
//! search that expands aliases, forgives one-letter typos, cuts snippets and suggests.
//!
//! The store is built once, on the first call to [`store`] (never at startup, so the
//! server answers `initialize` without paying for it), and is read-only afterwards.

pub mod bm25;
pub mod document;
pub mod query;
pub mod snippet;
pub mod suggest;
pub mod tokenize;

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Serialize;

use crate::json_string::{push_json_body, push_json_string};

pub use document::{CodeBlock, Document, DocumentError, Extract, URI_PREFIX};

/// `embedded_docs/`, packed and deflated by build.rs (record layout described there).
static PACKED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/docs.deflate"));

/// How the fields count, in field order: title, keywords, content. A keyword list is a
/// bag of aliases, so its length barely dilutes a match (a low `b`): one more keyword
/// does not weaken the others.
const FIELDS: [bm25::Field; 3] = [
    bm25::Field {
        boost: 2.0,
        b: bm25::B,
    },
    bm25::Field { boost: 1.5, b: 0.3 },
    bm25::Field {
        boost: 1.0,
        b: bm25::B,
    },
];

// The fields of the three result types below are declared in the alphabetical order of
// their JSON names, so serialising a response directly writes the same bytes as going
// through a `serde_json::Value` (whose maps are sorted) would, without that detour.

/// One search hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    /// BM25 score, rounded to three decimals.
    pub score: f64,
    pub snippet: String,
    pub title: String,
    pub uri: String,
}

/// The best hit in full, so an agent rarely needs a second call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopResult {
    /// The document's whole markdown.
    pub content: String,
    pub title: String,
    pub uri: String,
}

/// The answer to a search.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResponse {
    /// The query with the words aliases and typo fixes added; absent when none were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expanded_query: Option<String>,
    pub query: String,
    pub results: Vec<Hit>,
    pub suggestions: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_result: Option<TopResult>,
}

impl SearchResponse {
    /// The compact JSON that serde_json writes for this response (a test pins the two
    /// together), written by hand: the size-optimised build's serde_json escapes a byte
    /// per step, and the answer carries a whole document (see [`crate::json_string`]).
    #[cfg(test)]
    pub fn to_json(&self) -> String {
        self.to_json_and_literal(None).0
    }

    /// The compact JSON of the response, and beside it that JSON as a string literal (the
    /// text block of the tool's result), written in the same pass. With the `store` that
    /// answered, the top result's document comes in both forms from its cache
    /// ([`Store::content_literals`]): the document is most of the answer, and this way it
    /// is not escaped twice on every search.
    pub fn to_json_and_literal(&self, store: Option<&Store>) -> (String, String) {
        let content = (self.top_result.as_ref())
            .and_then(|top| store.and_then(|store| store.content_literals(&top.uri)));
        let top_len = self.top_result.as_ref().map_or(0, |top| top.content.len());
        let size = 512 + top_len + top_len / 8 + self.results.len() * 400;
        let mut out = Twin {
            json: String::with_capacity(size),
            literal: String::with_capacity(size + size / 4),
        };
        out.literal.push('"');
        out.raw("{");
        if let Some(expanded) = &self.expanded_query {
            out.member("expandedQuery", expanded);
            out.raw(",");
        }
        out.member("query", &self.query);
        out.raw(",\"results\":[");
        for (i, hit) in self.results.iter().enumerate() {
            out.raw(if i > 0 { ",{\"score\":" } else { "{\"score\":" });
            match serde_json::Number::from_f64(hit.score) {
                Some(score) => out.raw(&score.to_string()),
                None => out.raw("null"),
            }
            out.raw(",");
            out.member("snippet", &hit.snippet);
            out.title_and_uri(&hit.title, &hit.uri);
        }
        out.raw("],\"suggestions\":[");
        for (i, suggestion) in self.suggestions.iter().enumerate() {
            if i > 0 {
                out.raw(",");
            }
            out.string(suggestion);
        }
        out.raw("]");
        if let Some(top) = &self.top_result {
            out.raw(",\"topResult\":{\"content\":");
            match content {
                Some(content) => {
                    out.json.push_str(&content.once);
                    out.literal.push_str(&content.twice);
                }
                None => out.string(&top.content),
            }
            out.title_and_uri(&top.title, &top.uri);
        }
        out.raw("}");
        out.literal.push('"');
        (out.json, out.literal)
    }
}

/// A document's markdown as a JSON string literal (`once`, quotes included) and that
/// literal escaped again (`twice`, without quotes), as they sit in a tool result's
/// structured content and text block.
#[derive(Debug)]
struct Literals {
    once: String,
    twice: String,
}

/// JSON being written together with its own string literal (without the closing quote
/// until the end): every piece goes into `json` and, escaped, into `literal`.
struct Twin {
    json: String,
    literal: String,
}

impl Twin {
    /// JSON syntax or an already encoded value.
    fn raw(&mut self, piece: &str) {
        self.json.push_str(piece);
        push_json_body(&mut self.literal, piece);
    }

    /// A string value.
    fn string(&mut self, value: &str) {
        let from = self.json.len();
        push_json_string(&mut self.json, value);
        push_json_body(&mut self.literal, &self.json[from..]);
    }

    /// `"key":"value"` (keys are plain identifiers, written as they are).
    fn member(&mut self, key: &str, value: &str) {
        self.raw("\"");
        self.raw(key);
        self.raw("\":");
        self.string(value);
    }

    /// The last two members of a hit and of the top result, and the object's end.
    fn title_and_uri(&mut self, title: &str, uri: &str) {
        self.raw(",");
        self.member("title", title);
        self.raw(",");
        self.member("uri", uri);
        self.raw("}");
    }
}

/// What the store keeps per document besides the [`Document`] itself.
struct Entry {
    /// Description and body as plain text (what snippets are cut from).
    text: String,
    /// Every term of `text` with its span, sorted by (term id, start).
    occurrences: Vec<Occurrence>,
    /// The markdown escaped for a tool result, made when the document is first a top result.
    literals: OnceLock<Literals>,
}

/// One term in a document's text: its id, and its span packed into one word (the start
/// in the high 22 bits, the length in the low 10), 8 bytes where a (term, start, end)
/// triple takes 12: some 180 KB of resident memory for the embedded set. Ordered by term,
/// then start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Occurrence {
    term: u32,
    span: u32,
}

impl Occurrence {
    const LENGTH_BITS: u32 = 10;

    /// `None` for a span that does not fit (a text past 4 MiB or a token over 1023 bytes;
    /// the embedded documents have neither, and a test says so).
    fn new(term: u32, start: usize, end: usize) -> Option<Occurrence> {
        let len = u32::try_from(end.checked_sub(start)?).ok()?;
        let start = u32::try_from(start).ok()?;
        let fits = len < 1 << Self::LENGTH_BITS && start < 1 << (32 - Self::LENGTH_BITS);
        fits.then_some(Occurrence {
            term,
            span: start << Self::LENGTH_BITS | len,
        })
    }

    fn start(self) -> usize {
        (self.span >> Self::LENGTH_BITS) as usize
    }

    fn end(self) -> usize {
        self.start() + (self.span & ((1 << Self::LENGTH_BITS) - 1)) as usize
    }
}

/// Every document and the index over them.
pub struct Store {
    documents: Vec<Document>,
    entries: Vec<Entry>,
    index: bm25::Index,
    lexicon: query::Lexicon,
}

/// The embedded store, built on the first call.
pub fn store() -> &'static Store {
    static STORE: OnceLock<Store> = OnceLock::new();
    STORE.get_or_init(|| Store::from_extracted(unpack(PACKED)))
}

/// `(path without .md, markdown, extract)` for every markdown file in the packed blob. The
/// blob is written by our own build script, so a malformed one is a build bug: what can be
/// read is kept and the rest is skipped with a warning.
fn unpack(packed: &[u8]) -> Vec<(String, String, Extract)> {
    let raw = match miniz_oxide::inflate::decompress_to_vec(packed) {
        Ok(raw) => raw,
        Err(err) => {
            crate::warn!("knowledge", "embedded documents do not inflate: {err:?}");
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    let mut streams = [&raw[..0]; 3];
    let Some(mut rest) = fields(&raw, &mut streams) else {
        crate::warn!("knowledge", "embedded documents are damaged");
        return out;
    };
    let [literals, skips, copies] = streams;
    let mut script = TextScript {
        literals,
        skips,
        copies,
    };
    while !rest.is_empty() {
        let Some(([path, markdown, see_also, heading], text)) = next_record(&mut rest, &mut script)
        else {
            crate::warn!(
                "knowledge",
                "embedded documents are truncated; the rest is skipped"
            );
            break;
        };
        let Some(path) = path.strip_suffix(".md") else {
            continue;
        };
        let extract = Extract {
            text,
            see_also: see_also.lines().map(str::to_owned).collect(),
            heading: (!heading.is_empty()).then(|| heading.to_owned()),
        };
        out.push((path.to_owned(), markdown.to_owned(), extract));
    }
    out
}

/// Takes the next record off `rest`: its four fields as text, and its document's text.
fn next_record<'a>(rest: &mut &'a [u8], script: &mut TextScript) -> Option<([&'a str; 4], String)> {
    let mut record = [&rest[..0]; 4];
    *rest = fields(rest, &mut record)?;
    let [Ok(path), Ok(markdown), Ok(see_also), Ok(heading)] = record.map(std::str::from_utf8)
    else {
        return None;
    };
    Some(([path, markdown, see_also, heading], script.text(markdown)?))
}

/// Splits as many fields (each `u32 LE length, bytes`) off `bytes` as `out` has room for,
/// and returns the rest.
fn fields<'a>(bytes: &'a [u8], out: &mut [&'a [u8]]) -> Option<&'a [u8]> {
    let mut rest = bytes;
    for slot in out {
        let (len, tail) = rest.split_first_chunk::<4>()?;
        let len = usize::try_from(u32::from_le_bytes(*len)).ok()?;
        (*slot, rest) = tail.split_at_checked(len)?;
    }
    Some(rest)
}

/// The streams of build.rs's `text_script`: each document's text as steps that copy runs
/// of its markdown, read in document order.
struct TextScript<'a> {
    literals: &'a [u8],
    skips: &'a [u8],
    copies: &'a [u8],
}

impl TextScript<'_> {
    /// The next document's text, rebuilt from its `markdown`.
    fn text(&mut self, markdown: &str) -> Option<String> {
        let source = markdown.as_bytes();
        let mut text = Vec::with_capacity(source.len());
        let mut at = 0usize;
        for _ in 0..leb128(&mut self.copies)? {
            self.literal(&mut text)?;
            at = at.checked_add(leb128(&mut self.skips)?)?;
            let end = at.checked_add(leb128(&mut self.copies)?)?;
            text.extend_from_slice(source.get(at..end)?);
            at = end;
        }
        self.literal(&mut text)?;
        String::from_utf8(text).ok()
    }

    fn literal(&mut self, text: &mut Vec<u8>) -> Option<()> {
        let len = leb128(&mut self.literals)?;
        let (bytes, rest) = self.literals.split_at_checked(len)?;
        text.extend_from_slice(bytes);
        self.literals = rest;
        Some(())
    }
}

/// Reads one LEB128 number (at most five bytes) off the front of `bytes`.
fn leb128(bytes: &mut &[u8]) -> Option<usize> {
    let mut value = 0u64;
    for shift in [0, 7, 14, 21, 28] {
        let (&byte, rest) = bytes.split_first()?;
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return usize::try_from(value).ok();
        }
    }
    None
}

/// Checks an untrusted `zerops://docs/{+path}` URI and returns it normalised (a trailing
/// `.md` dropped), or `None` for anything that could name something outside the document
/// set: `.`/`..` or empty segments, percent-encoding of any kind (`%2e`, `%2f`, `%5c`),
/// backslashes, absolute paths, or characters no document path uses.
pub fn resolve_uri(uri: &str) -> Option<String> {
    let path = uri.strip_prefix(URI_PREFIX)?;
    let path = path.strip_suffix(".md").unwrap_or(path);
    if path.is_empty() || path.len() > 200 {
        return None;
    }
    for segment in path.split('/') {
        let allowed = segment
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if segment.is_empty() || !allowed {
            return None;
        }
    }
    Some(format!("{URI_PREFIX}{path}"))
}

impl Store {
    /// Builds a store from `(path, markdown)` pairs (`services/postgresql`, no `.md`).
    /// A file that does not parse, or repeats a path, is skipped with a warning: the
    /// document-set test keeps the embedded set free of both.
    pub fn from_documents(files: Vec<(String, String)>) -> Store {
        let extracted = files
            .into_iter()
            .map(|(path, markdown)| {
                let extract = document::extract(document::body_of(&markdown));
                (path, markdown, extract)
            })
            .collect();
        Store::from_extracted(extracted)
    }

    /// [`Store::from_documents`] for documents whose markdown was already extracted (the
    /// embedded set, by build.rs with the same [`document::extract`]).
    pub fn from_extracted(files: Vec<(String, String, Extract)>) -> Store {
        let mut documents: Vec<(Document, String)> = Vec::with_capacity(files.len());
        for (path, markdown, extract) in files {
            match Document::parse_extracted(&path, markdown, extract.see_also) {
                Ok(doc) if documents.iter().any(|(d, _)| d.uri == doc.uri) => {
                    crate::warn!("knowledge", "{path}: duplicate document; skipped");
                }
                Ok(doc) => documents.push((doc, extract.text)),
                Err(err) => crate::warn!("knowledge", "skipping a document: {err}"),
            }
        }
        crate::order::sort_by(&mut documents, |a, b| a.0.uri.cmp(&b.0.uri));
        let (documents, bodies): (Vec<Document>, Vec<String>) = documents.into_iter().unzip();

        // Terms are interned as they are read: one allocation per distinct term, not per
        // occurrence, which keeps the build's transient memory (and so the resident size
        // of the process afterwards) small.
        let mut ids = bm25::WordMap::default();
        // Title and keyword term ids per document (the content's are in its occurrences).
        // Occurrences too long or too far into their text to pack (see `Occurrence`).
        let mut unrecorded = 0usize;
        let mut named_fields: Vec<[Vec<u32>; 2]> = Vec::with_capacity(documents.len());
        let mut entries: Vec<Entry> = Vec::with_capacity(documents.len());
        // Title/keyword stems with the word first seen for each (for typo fixes).
        let mut readable: HashMap<String, String> = HashMap::new();
        for (doc, body) in documents.iter().zip(bodies) {
            let keywords = doc.keywords.join(" , ");
            let mut named: [Vec<u32>; 2] = Default::default();
            for (source, out) in [doc.title.as_str(), keywords.as_str()]
                .into_iter()
                .zip(&mut named)
            {
                tokenize::each_token(source, &mut |term, start, end| {
                    if !readable.contains_key(term) {
                        readable.insert(term.to_owned(), source[start..end].to_lowercase());
                    }
                    out.push(bm25::intern(&mut ids, term));
                });
            }
            let text = format!("{}\n{}", doc.description, body);
            let mut occurrences: Vec<Occurrence> = Vec::new();
            tokenize::each_token(&text, &mut |term, start, end| {
                if let Some(spot) = Occurrence::new(0, start, end) {
                    let term = bm25::intern(&mut ids, term);
                    occurrences.push(Occurrence { term, ..spot });
                } else {
                    unrecorded += 1;
                }
            });
            named_fields.push(named);
            crate::order::sort(&mut occurrences);
            occurrences.shrink_to_fit();
            entries.push(Entry {
                text,
                occurrences,
                literals: OnceLock::new(),
            });
        }
        if unrecorded > 0 {
            crate::warn!(
                "knowledge",
                "{unrecorded} tokens not indexed: over 1023 bytes or 4 MiB into their document"
            );
        }
        let index = bm25::Index::from_ids(ids, entries.len(), &FIELDS, &|d, f, out| match f {
            0 | 1 => out.extend_from_slice(&named_fields[d][f]),
            _ => out.extend(entries[d].occurrences.iter().map(|o| o.term)),
        });
        drop(named_fields);
        let lexicon = query::Lexicon::new(
            documents
                .iter()
                .flat_map(|d| {
                    [
                        d.title.as_str(),
                        d.description.as_str(),
                        d.markdown.as_str(),
                    ]
                })
                .chain(
                    documents
                        .iter()
                        .flat_map(|d| d.keywords.iter().map(String::as_str)),
                ),
            readable,
        );
        Store {
            documents,
            entries,
            index,
            lexicon,
        }
    }

    /// Every document, sorted by URI.
    pub fn documents(&self) -> &[Document] {
        &self.documents
    }

    /// A document by its exact URI (pass untrusted input through [`resolve_uri`] first).
    pub fn get(&self, uri: &str) -> Option<&Document> {
        self.documents
            .binary_search_by(|d| d.uri.as_str().cmp(uri))
            .ok()
            .map(|i| &self.documents[i])
    }

    /// The markdown of the document at `uri` in the two escaped forms a search answer
    /// carries it in, made on first use and kept: about 2.1 times the markdown's size per
    /// document that has been a top result, 0.8 MB if every one of them has.
    fn content_literals(&self, uri: &str) -> Option<&Literals> {
        let at = self
            .documents
            .binary_search_by(|d| d.uri.as_str().cmp(uri))
            .ok()?;
        Some(self.entries[at].literals.get_or_init(|| {
            let mut once = String::new();
            push_json_string(&mut once, &self.documents[at].markdown);
            let mut twice = String::with_capacity(once.len() + once.len() / 4);
            push_json_body(&mut twice, &once);
            Literals { once, twice }
        }))
    }

    /// Ranks the documents for `query` and returns at most `limit` hits, the best one in
    /// full, and suggestions.
    pub fn search(&self, query: &str, limit: usize) -> SearchResponse {
        let plan = query::plan(query, &self.lexicon, |t| self.index.id(t).is_some());
        let terms: Vec<(u32, &query::QueryTerm)> = plan
            .terms
            .iter()
            .filter_map(|t| Some((self.index.id(&t.term)?, t)))
            .collect();
        let mut scores = vec![0.0; self.documents.len()];
        for (id, term) in &terms {
            self.index.accumulate(*id, term.weight, &mut scores);
        }
        let mut ranked: Vec<(usize, f64)> = scores
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, s)| *s > 0.0)
            .collect();
        // Highest score first; ties by URI (the documents are sorted by it). Only the
        // hits returned need a full sort.
        let order = |a: &(usize, f64), b: &(usize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if limit < ranked.len() {
            ranked.select_nth_unstable_by(limit, order);
            ranked.truncate(limit);
        }
        // The hot path of every query: std's sorts here (specialised, no dyn comparator)
        // keep the search p50 under 10 µs at opt-level "z"; `order` is total, so unstable
        // is the same as stable.
        ranked.sort_unstable_by(order);
        let results: Vec<Hit> = ranked
            .iter()
            .map(|&(doc, score)| Hit {
                uri: self.documents[doc].uri.clone(),
                title: self.documents[doc].title.clone(),
                score: (score * 1000.0).round() / 1000.0,
                snippet: self.snippet(doc, &terms),
            })
            .collect();
        let top_result = ranked.first().map(|&(doc, _)| TopResult {
            uri: self.documents[doc].uri.clone(),
            title: self.documents[doc].title.clone(),
            content: self.documents[doc].markdown.clone(),
        });
        let mut suggestions: Vec<String> =
            suggest::unsupported(&plan.words, |w| self.lexicon.has_word(w))
                .into_iter()
                .map(str::to_owned)
                .collect();
        if let Some(&(top, _)) = ranked.first() {
            // A related document already among the results would only repeat it.
            for uri in self.documents[top]
                .see_also
                .iter()
                .filter(|uri| !results.iter().any(|hit| hit.uri == **uri))
            {
                let title = self.get(uri).map(|d| d.title.as_str());
                suggestions.push(suggest::related(uri, title));
            }
        } else if suggestions.is_empty() {
            suggestions.push(suggest::nothing_found(query.trim()));
        }
        suggestions.truncate(suggest::MAX_SUGGESTIONS);
        SearchResponse {
            query: query.to_owned(),
            expanded_query: plan.expanded,
            results,
            top_result,
            suggestions,
        }
    }

    /// The snippet of document `doc` for the query's terms: rare terms and words the user
    /// typed weigh more than common and added ones.
    fn snippet(&self, doc: usize, terms: &[(u32, &query::QueryTerm)]) -> String {
        let entry = &self.entries[doc];
        let mut matches: Vec<snippet::Match> = Vec::new();
        for (slot, &(id, term)) in (0u32..).zip(terms) {
            let from = entry.occurrences.partition_point(|o| o.term < id);
            let rarity = bm25::idf(self.index.len(), self.index.postings(id).len());
            let weight = if term.original { 2.0 } else { 1.0 } * term.weight * rarity;
            for &o in entry.occurrences[from..]
                .iter()
                .take_while(|o| o.term == id)
            {
                matches.push(snippet::Match {
                    start: o.start(),
                    end: o.end(),
                    term: slot,
                    weight,
                });
            }
        }
        // (start, term) is the order a stable sort by start gives: matches go in by term.
        matches.sort_unstable_by_key(|m| (m.start, m.term));
        snippet::make(&entry.text, &matches, &self.documents[doc].description)
    }
}

#[cfg(test)]
mod tests;
