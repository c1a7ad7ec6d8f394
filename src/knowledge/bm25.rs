//! An in-crate BM25 index over several fields with boosts (the knowledge base uses title
//! ×2.0, keywords ×1.5, content ×1.0), built once.
//!
//! Every field keeps its own statistics (document frequency, average length), as a
//! per-field index would. Because the corpus never changes after the build, the whole
//! boosted per-field sum for each (term, document) pair is computed up front: a query is
//! then one pass over a short posting list per term.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Term-frequency saturation.
pub const K1: f64 = 1.2;
/// Length normalisation, unless a field says otherwise ([`Field::b`]).
pub const B: f64 = 0.75;

/// How one field counts: its weight, and how much its length dilutes a match in it.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub boost: f64,
    pub b: f64,
}

/// A multiply-rotate hasher for short strings. Lookups dominate a query, and the keys are
/// the corpus's own words (fixed at build time), so flooding is not a concern here.
#[derive(Debug, Default, Clone, Copy)]
pub struct WordHasher(u64);

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map keyed by words, with [`WordHasher`]. Boxed keys: 16 bytes a slot instead of a
/// `String`'s 24, some 64 KB of the term map's table.
pub type WordMap<V> = HashMap<Box<str>, V, BuildHasherDefault<WordHasher>>;
/// A set of words, with [`WordHasher`].
pub type WordSet = HashSet<String, BuildHasherDefault<WordHasher>>;

/// One document's share of a term's score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Posting {
    /// Index of the document in build order.
    pub doc: u32,
    /// The boosted BM25 weight summed over all fields.
    pub weight: f64,
}

/// The inverted index. The postings of every term sit in one pair of arrays (term `t`
/// owns `starts[t]..starts[t + 1]` of both), so the index is a handful of allocations
/// whatever the corpus size. Documents and weights apart: 12 bytes a posting, where a
/// [`Posting`] takes 16 with its padding.
#[derive(Debug, Default)]
pub struct Index {
    ids: WordMap<u32>,
    starts: Vec<u32>,
    /// Grouped by term id, each group sorted by document.
    posting_docs: Vec<u32>,
    /// The weight of each posting in `posting_docs`.
    posting_weights: Vec<f64>,
    docs: usize,
}

/// BM25 inverse document frequency (the "plus one" form, never negative).
pub fn idf(docs: usize, containing: usize) -> f64 {
    let n = docs as f64;
    let df = containing as f64;
    ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
}

/// BM25 term-frequency component for a field of length `len` (average `average`).
pub fn tf_part(tf: f64, len: f64, average: f64, b: f64) -> f64 {
    let norm = 1.0 - b + b * len / average.max(f64::MIN_POSITIVE);
    tf * (K1 + 1.0) / (tf + K1 * norm)
}

/// The id of `term` in `ids`, adding it with the next free id when it is new (ids count
/// up from 0 in order of first appearance).
pub fn intern(ids: &mut WordMap<u32>, term: &str) -> u32 {
    if let Some(&id) = ids.get(term) {
        return id;
    }
    let id = u32::try_from(ids.len()).unwrap_or(u32::MAX);
    ids.insert(term.into(), id);
    id
}

impl Index {
    /// Builds the index from terms as text (the unit tests' way in; the store interns as
    /// it tokenizes and calls [`Index::from_ids`]). `docs[d][f]` holds the terms of field `f` of
    /// document `d`; `fields[f]` says how that field counts. Fields beyond it are ignored.
    #[cfg(test)]
    pub fn build(docs: &[Vec<Vec<String>>], fields: &[Field]) -> Index {
        let mut ids = WordMap::default();
        let docs: Vec<Vec<Vec<u32>>> = docs
            .iter()
            .map(|fields| {
                fields
                    .iter()
                    .map(|terms| terms.iter().map(|t| intern(&mut ids, t)).collect())
                    .collect()
            })
            .collect();
        Index::from_ids(ids, docs.len(), fields, &|d, f, out| {
            if let Some(terms) = docs[d].get(f) {
                out.extend_from_slice(terms);
            }
        })
    }

    /// [`Index::build`] for terms already interned into `ids` (with [`intern`]):
    /// `field_terms(d, f, out)` appends the term ids of field `f` of document `d` to `out`
    /// (in any order, but the same ones on every call: it is asked three times). Asking for the terms instead of taking them as a list lets the store
    /// hand them over from what it keeps anyway, and the build keeps no (term, document)
    /// list beside the postings: its transient memory stays in the resident size after.
    pub fn from_ids(
        ids: WordMap<u32>,
        docs: usize,
        fields: &[Field],
        field_terms: &dyn Fn(usize, usize, &mut Vec<u32>),
    ) -> Index {
        let terms = ids.len();
        let mut sorted: Vec<u32> = Vec::new();
        // The terms of one field of one document, sorted, so equal terms form runs.
        let read = |d: usize, f: usize, sorted: &mut Vec<u32>| {
            sorted.clear();
            field_terms(d, f, sorted);
            sorted.sort_unstable();
        };
        // Per field: how many documents have each term in it, and each document's length.
        let mut df = vec![vec![0u32; terms]; fields.len()];
        let mut lens = vec![vec![0usize; docs]; fields.len()];
        for (f, (df, lens)) in df.iter_mut().zip(&mut lens).enumerate() {
            for (d, len) in lens.iter_mut().enumerate() {
                read(d, f, &mut sorted);
                *len = sorted.len();
                for run in sorted.chunk_by(|a, b| a == b) {
                    if let Some(n) = df.get_mut(run[0] as usize) {
                        *n += 1;
                    }
                }
            }
        }
        let averages: Vec<f64> = lens
            .iter()
            .map(|lens| lens.iter().sum::<usize>() as f64 / docs.max(1) as f64)
            .collect();
        // One document's terms with their boosted weights summed over the fields, in field
        // order (so every build adds the same numbers in the same order), sorted by term.
        let mut sums = vec![0.0f64; terms];
        let mut seen = vec![false; terms];
        let mut touched: Vec<u32> = Vec::new();
        let mut weigh = |d: usize, out: &mut Vec<(u32, f64)>| {
            out.clear();
            for (f, &Field { boost, b }) in fields.iter().enumerate() {
                read(d, f, &mut sorted);
                let len = lens[f][d] as f64;
                for run in sorted.chunk_by(|a, b| a == b) {
                    let term = run[0] as usize;
                    let (Some(sum), Some(seen)) = (sums.get_mut(term), seen.get_mut(term)) else {
                        continue;
                    };
                    let containing = df[f].get(term).copied().unwrap_or(1) as usize;
                    let tf = run.len() as f64;
                    *sum += boost * idf(docs, containing) * tf_part(tf, len, averages[f], b);
                    if !*seen {
                        *seen = true;
                        touched.push(run[0]);
                    }
                }
            }
            touched.sort_unstable();
            for term in touched.drain(..) {
                let slot = term as usize;
                out.push((term, sums[slot]));
                sums[slot] = 0.0;
                seen[slot] = false;
            }
        };
        // Two passes over the documents: the first counts each term's postings, the second
        // writes them in place (documents in order, so each term's list is sorted by doc).
        let mut weights: Vec<(u32, f64)> = Vec::new();
        let mut counts = vec![0u32; terms + 1];
        for d in 0..docs {
            weigh(d, &mut weights);
            for &(term, _) in &weights {
                counts[term as usize + 1] += 1;
            }
        }
        for t in 0..terms {
            counts[t + 1] += counts[t];
        }
        let starts = counts;
        let mut next = starts.clone();
        let total = starts.last().copied().unwrap_or(0) as usize;
        let mut posting_docs = vec![0u32; total];
        let mut posting_weights = vec![0.0f64; total];
        for d in 0..docs {
            weigh(d, &mut weights);
            let doc = u32::try_from(d).unwrap_or(u32::MAX);
            for &(term, weight) in &weights {
                let slot = &mut next[term as usize];
                posting_docs[*slot as usize] = doc;
                posting_weights[*slot as usize] = weight;
                *slot += 1;
            }
        }
        Index {
            ids,
            starts,
            posting_docs,
            posting_weights,
            docs,
        }
    }

    /// Number of documents indexed.
    pub fn len(&self) -> usize {
        self.docs
    }

    /// True when no document was indexed.
    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }

    /// The id of a term, if any document has it.
    pub fn id(&self, term: &str) -> Option<u32> {
        self.ids.get(term).copied()
    }

    /// The postings of a term id, sorted by document.
    pub fn postings(&self, id: u32) -> impl ExactSizeIterator<Item = Posting> + '_ {
        let id = id as usize;
        let range = match (self.starts.get(id), self.starts.get(id + 1)) {
            (Some(&from), Some(&to)) => from as usize..to as usize,
            _ => 0..0,
        };
        let docs = self.posting_docs.get(range.clone()).unwrap_or(&[]);
        let weights = self.posting_weights.get(range).unwrap_or(&[]);
        docs.iter()
            .zip(weights)
            .map(|(&doc, &weight)| Posting { doc, weight })
    }

    /// Adds `weight` × each document's share of `id` to `scores` (one slot per document).
    pub fn accumulate(&self, id: u32, weight: f64, scores: &mut [f64]) {
        for p in self.postings(id) {
            if let Some(slot) = scores.get_mut(p.doc as usize) {
                *slot += weight * p.weight;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn matches_the_formula_by_hand() {
        // One field, boost 1: three documents of lengths 2, 4 and 3 (average 3).
        let docs = vec![
            vec![field("apple banana")],
            vec![field("apple apple cherry date")],
            vec![field("cherry date elder")],
        ];
        let index = Index::build(&docs, &[Field { boost: 1.0, b: B }]);
        let apple = index.id("apple").unwrap();
        // idf = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln(1.6)
        let idf_apple = 1.6f64.ln();
        assert!(close(idf(3, 2), idf_apple));
        // doc 0: tf 1, len 2 → 1 × 2.2 / (1 + 1.2 × (0.25 + 0.75 × 2/3))
        let d0 = idf_apple * 2.2 / (1.0 + 1.2 * (0.25 + 0.5));
        // doc 1: tf 2, len 4 → 2 × 2.2 / (2 + 1.2 × (0.25 + 0.75 × 4/3))
        let d1 = idf_apple * 4.4 / (2.0 + 1.2 * (0.25 + 1.0));
        let postings: Vec<Posting> = index.postings(apple).collect();
        assert_eq!(postings.len(), 2);
        assert!(close(postings[0].weight, d0), "{postings:?} vs {d0}");
        assert!(close(postings[1].weight, d1), "{postings:?} vs {d1}");
        let mut scores = vec![0.0; 3];
        index.accumulate(apple, 2.0, &mut scores);
        assert!(close(scores[0], 2.0 * d0) && close(scores[1], 2.0 * d1) && scores[2] == 0.0);
        assert!(index.id("fig").is_none());
        assert_eq!(index.len(), 3);
    }

    #[test]
    fn fields_keep_their_own_statistics_boosts_and_normalisation() {
        // "pg" is in every content field (low idf there) but in one title only; the
        // content fields differ in length (3 and 1, average 2), so their b counts.
        let docs = vec![
            vec![field("pg guide"), field("pg pg y")],
            vec![field("other guide"), field("pg")],
        ];
        let fields = [Field { boost: 2.0, b: B }, Field { boost: 1.0, b: 0.3 }];
        let index = Index::build(&docs, &fields);
        let pg = index.id("pg").unwrap();
        let title = 2.0 * idf(2, 1) * tf_part(1.0, 2.0, 2.0, B);
        let content0 = idf(2, 2) * tf_part(2.0, 3.0, 2.0, 0.3);
        let content1 = idf(2, 2) * tf_part(1.0, 1.0, 2.0, 0.3);
        assert!(!close(content0, idf(2, 2) * tf_part(2.0, 3.0, 2.0, B)));
        let p: Vec<Posting> = index.postings(pg).collect();
        assert!(close(p[0].weight, title + content0), "{p:?}");
        assert!(close(p[1].weight, content1), "{p:?}");
    }

    #[test]
    fn rarer_terms_weigh_more_and_frequency_saturates() {
        assert!(idf(100, 1) > idf(100, 50));
        assert!(idf(100, 100) > 0.0);
        let one = tf_part(1.0, 10.0, 10.0, B);
        let ten = tf_part(10.0, 10.0, 10.0, B);
        assert!(ten > one && ten < K1 + 1.0);
        // The same count in a longer field is worth less.
        assert!(tf_part(1.0, 5.0, 10.0, B) > tf_part(1.0, 50.0, 10.0, B));
    }

    #[test]
    fn word_hasher_tells_words_apart() {
        use std::hash::BuildHasher;
        let build = BuildHasherDefault::<WordHasher>::default();
        let words = [
            "",
            "a",
            "ab",
            "abcdefgh",
            "abcdefghi",
            "abcdefgh\0",
            "postgres",
            "postgresql",
        ];
        let hashes: HashSet<u64> = words.iter().map(|w| build.hash_one(w)).collect();
        assert_eq!(hashes.len(), words.len());
        let mut set = WordSet::default();
        set.insert("valkey".into());
        assert!(set.contains("valkey") && !set.contains("redis"));
    }

    #[test]
    fn empty_corpus_is_harmless() {
        let index = Index::build(&[], &[Field { boost: 1.0, b: B }; 3]);
        assert!(index.is_empty());
        assert_eq!(index.postings(0).len(), 0);
    }
}
