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
/// Length normalisation.
pub const B: f64 = 0.75;

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

/// A map keyed by words, with [`WordHasher`].
pub type WordMap<V> = HashMap<String, V, BuildHasherDefault<WordHasher>>;
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

/// The inverted index.
#[derive(Debug, Default)]
pub struct Index {
    ids: WordMap<u32>,
    terms: Vec<String>,
    /// By term id, sorted by document.
    postings: Vec<Vec<Posting>>,
    /// By term id: bit `f` set when the term occurs in field `f`.
    fields: Vec<u32>,
    docs: usize,
}

/// BM25 inverse document frequency (the "plus one" form, never negative).
pub fn idf(docs: usize, containing: usize) -> f64 {
    let n = docs as f64;
    let df = containing as f64;
    ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
}

/// BM25 term-frequency component for a field of length `len` (average `average`).
pub fn tf_part(tf: f64, len: f64, average: f64) -> f64 {
    let norm = 1.0 - B + B * len / average.max(f64::MIN_POSITIVE);
    tf * (K1 + 1.0) / (tf + K1 * norm)
}

impl Index {
    /// Builds the index. `docs[d][f]` holds the terms of field `f` of document `d`;
    /// `boosts[f]` is that field's weight. Fields beyond `boosts` are ignored (at most 32).
    pub fn build(docs: &[Vec<Vec<String>>], boosts: &[f64]) -> Index {
        let mut index = Index {
            docs: docs.len(),
            ..Index::default()
        };
        for (f, &boost) in boosts.iter().enumerate().take(32) {
            let lengths: Vec<usize> = docs.iter().map(|d| d.get(f).map_or(0, Vec::len)).collect();
            let average = lengths.iter().sum::<usize>() as f64 / docs.len().max(1) as f64;
            // term → [(doc, tf)] for this field.
            let mut counts: HashMap<&str, Vec<(u32, u32)>> = HashMap::new();
            for (d, doc) in docs.iter().enumerate() {
                let doc_id = u32::try_from(d).unwrap_or(u32::MAX);
                for term in doc.get(f).into_iter().flatten() {
                    let list = counts.entry(term.as_str()).or_default();
                    match list.last_mut() {
                        Some((last, tf)) if *last == doc_id => *tf += 1,
                        _ => list.push((doc_id, 1)),
                    }
                }
            }
            for (term, list) in counts {
                let term_idf = idf(docs.len(), list.len());
                let id = index.intern(term);
                index.fields[id as usize] |= 1 << f;
                for (doc, tf) in list {
                    let len = lengths[doc as usize] as f64;
                    let weight = boost * term_idf * tf_part(f64::from(tf), len, average);
                    index.add(id, doc, weight);
                }
            }
        }
        for list in &mut index.postings {
            crate::order::sort_by_key(list, |p| p.doc);
        }
        index
    }

    fn intern(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.ids.get(term) {
            return id;
        }
        let id = u32::try_from(self.terms.len()).unwrap_or(u32::MAX);
        self.ids.insert(term.to_owned(), id);
        self.terms.push(term.to_owned());
        self.postings.push(Vec::new());
        self.fields.push(0);
        id
    }

    fn add(&mut self, id: u32, doc: u32, weight: f64) {
        let list = &mut self.postings[id as usize];
        match list.iter_mut().find(|p| p.doc == doc) {
            Some(p) => p.weight += weight,
            None => list.push(Posting { doc, weight }),
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
    pub fn postings(&self, id: u32) -> &[Posting] {
        self.postings.get(id as usize).map_or(&[], Vec::as_slice)
    }

    /// Every term that occurs in one of the fields of `mask` (bit per field).
    pub fn terms_in(&self, mask: u32) -> impl Iterator<Item = &str> {
        self.terms
            .iter()
            .zip(&self.fields)
            .filter(move |(_, f)| **f & mask != 0)
            .map(|(t, _)| t.as_str())
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
        let index = Index::build(&docs, &[1.0]);
        let apple = index.id("apple").unwrap();
        // idf = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln(1.6)
        let idf_apple = 1.6f64.ln();
        assert!(close(idf(3, 2), idf_apple));
        // doc 0: tf 1, len 2 → 1 × 2.2 / (1 + 1.2 × (0.25 + 0.75 × 2/3))
        let d0 = idf_apple * 2.2 / (1.0 + 1.2 * (0.25 + 0.5));
        // doc 1: tf 2, len 4 → 2 × 2.2 / (2 + 1.2 × (0.25 + 0.75 × 4/3))
        let d1 = idf_apple * 4.4 / (2.0 + 1.2 * (0.25 + 1.0));
        let postings = index.postings(apple);
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
    fn fields_keep_their_own_statistics_and_boosts() {
        // "pg" is in every content field (low idf there) but in one title only.
        let docs = vec![
            vec![field("pg guide"), field("pg pg")],
            vec![field("other guide"), field("pg x")],
        ];
        let index = Index::build(&docs, &[2.0, 1.0]);
        let pg = index.id("pg").unwrap();
        let title = 2.0 * idf(2, 1) * tf_part(1.0, 2.0, 2.0);
        let content0 = idf(2, 2) * tf_part(2.0, 2.0, 2.0);
        let content1 = idf(2, 2) * tf_part(1.0, 2.0, 2.0);
        let p = index.postings(pg);
        assert!(close(p[0].weight, title + content0), "{p:?}");
        assert!(close(p[1].weight, content1), "{p:?}");
        let titles: Vec<&str> = index.terms_in(0b01).collect();
        assert!(titles.contains(&"guide") && !titles.contains(&"x"));
    }

    #[test]
    fn rarer_terms_weigh_more_and_frequency_saturates() {
        assert!(idf(100, 1) > idf(100, 50));
        assert!(idf(100, 100) > 0.0);
        let one = tf_part(1.0, 10.0, 10.0);
        let ten = tf_part(10.0, 10.0, 10.0);
        assert!(ten > one && ten < K1 + 1.0);
        // The same count in a longer field is worth less.
        assert!(tf_part(1.0, 5.0, 10.0) > tf_part(1.0, 50.0, 10.0));
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
        let index = Index::build(&[], &[2.0, 1.5, 1.0]);
        assert!(index.is_empty());
        assert!(index.postings(0).is_empty());
    }
}
