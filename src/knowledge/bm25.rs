//! BM25 over three fields with boosts (title 2.0, keywords 1.5, content 1.0), built once.
//! Each field has its own inverted index, lengths and document frequencies; a document's
//! score is the boosted sum of its per-field BM25 scores.

use std::collections::HashMap;

/// BM25 term-frequency saturation.
pub const K1: f64 = 1.2;
/// BM25 length normalisation.
pub const B: f64 = 0.75;

/// The fields, with their boosts.
pub const FIELDS: [(&str, f64); 3] = [("title", 2.0), ("keywords", 1.5), ("content", 1.0)];

/// One field's index.
#[derive(Debug, Default)]
struct FieldIndex {
    /// term → (doc, term frequency)
    postings: HashMap<String, Vec<(u32, u32)>>,
    lengths: Vec<u32>,
    average: f64,
}

impl FieldIndex {
    fn build(docs: &[Vec<String>]) -> FieldIndex {
        let mut postings: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut lengths = Vec::with_capacity(docs.len());
        for (id, terms) in docs.iter().enumerate() {
            lengths.push(u32::try_from(terms.len()).unwrap_or(u32::MAX));
            let mut counts: HashMap<&str, u32> = HashMap::new();
            for term in terms {
                *counts.entry(term.as_str()).or_default() += 1;
            }
            for (term, tf) in counts {
                postings
                    .entry(term.to_owned())
                    .or_default()
                    .push((u32::try_from(id).unwrap_or(u32::MAX), tf));
            }
        }
        let total: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
        let average = if lengths.is_empty() {
            0.0
        } else {
            total as f64 / lengths.len() as f64
        };
        FieldIndex {
            postings,
            lengths,
            average,
        }
    }

    fn add_scores(&self, term: &str, weight: f64, scores: &mut [f64]) {
        let Some(list) = self.postings.get(term) else {
            return;
        };
        let n = self.lengths.len() as f64;
        let df = list.len() as f64;
        let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
        for &(doc, tf) in list {
            let tf = f64::from(tf);
            let len = f64::from(self.lengths[doc as usize]);
            let norm = 1.0 - B + B * len / self.average.max(1.0);
            scores[doc as usize] += weight * idf * tf * (K1 + 1.0) / (tf + K1 * norm);
        }
    }
}

/// The index over all documents.
#[derive(Debug, Default)]
pub struct Index {
    fields: Vec<(FieldIndex, f64)>,
    docs: usize,
}

impl Index {
    /// Builds from per-document term lists, one list per field in [`FIELDS`] order.
    pub fn build(per_field: [Vec<Vec<String>>; 3]) -> Index {
        let docs = per_field[0].len();
        let fields = per_field
            .iter()
            .zip(FIELDS)
            .map(|(terms, (_, boost))| (FieldIndex::build(terms), boost))
            .collect();
        Index { fields, docs }
    }

    /// Whether any field knows the term.
    pub fn knows(&self, term: &str) -> bool {
        self.fields
            .iter()
            .any(|(f, _)| f.postings.contains_key(term))
    }

    /// Every term of the title and keyword fields (for typo correction).
    pub fn vocabulary(&self) -> impl Iterator<Item = &str> {
        self.fields[..2]
            .iter()
            .flat_map(|(f, _)| f.postings.keys().map(String::as_str))
    }

    /// Scores of every document for `terms` (each with its own weight).
    pub fn scores(&self, terms: &[(String, f64)]) -> Vec<f64> {
        let mut scores = vec![0.0; self.docs];
        for (term, weight) in terms {
            for (field, boost) in &self.fields {
                field.add_scores(term, boost * weight, &mut scores);
            }
        }
        scores
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn rarer_terms_and_titles_weigh_more() {
        let titles = vec![
            words("postgres guide"),
            words("valkey guide"),
            words("nodejs guide"),
        ];
        let keywords = vec![words("sql database"), words("cache"), words("runtime")];
        let content = vec![
            words("postgres postgres sql"),
            words("cache memory postgres"),
            words("javascript"),
        ];
        let index = Index::build([titles, keywords, content]);
        let scores = index.scores(&[("postgres".into(), 1.0)]);
        assert!(
            scores[0] > scores[1] && scores[1] > 0.0 && scores[2] == 0.0,
            "{scores:?}"
        );
        // "guide" is everywhere: it barely separates documents.
        let common = index.scores(&[("guide".into(), 1.0)]);
        assert!(common[0] < scores[0]);
        assert!(index.knows("cache") && !index.knows("mongodb"));
    }

    #[test]
    fn saturation_and_length_normalisation() {
        let long: Vec<String> = std::iter::once("pg".to_owned())
            .chain((0..200).map(|i| format!("w{i}")))
            .collect();
        let short = words("pg");
        let index = Index::build([
            vec![vec![], vec![]],
            vec![vec![], vec![]],
            vec![long, short],
        ]);
        let scores = index.scores(&[("pg".into(), 1.0)]);
        assert!(
            scores[1] > scores[0],
            "a short document with the term ranks higher: {scores:?}"
        );
    }
}
