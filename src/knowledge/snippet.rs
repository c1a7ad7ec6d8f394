//! Snippets: a short window of a document's plain text around the place where the query's
//! terms gather most, cut on character (and, where possible, word) boundaries so a
//! multi-byte character is never split.

/// Longest snippet, in bytes of source text (before whitespace is collapsed).
pub const WIDTH: usize = 240;
/// Context kept before the first match of the chosen window.
const LEAD: usize = 60;
/// Matches closer than this (bytes from first start to last end) count as one cluster.
const SPAN: usize = 160;
/// Matches considered per document; the rest add nothing a reader would see.
const MAX_MATCHES: usize = 256;
/// Marks text cut away at either end.
const ELLIPSIS: &str = "...";

/// Where a query term occurs in the text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Match {
    pub start: usize,
    pub end: usize,
    /// Which query term, as a small index (the window keeps a counter per index).
    pub term: u32,
    pub weight: f64,
}

/// The span (`start`, `end`) of the cluster of matches whose distinct terms weigh most;
/// the earliest wins a tie. `matches` must be sorted by `start`. One pass with a sliding
/// window, so frequent terms cost linear time.
pub fn best_window(matches: &[Match]) -> Option<(usize, usize)> {
    let matches = &matches[..matches.len().min(MAX_MATCHES)];
    let slots = matches.iter().map(|m| m.term as usize + 1).max()?;
    // Occurrences of each term inside the window, and the weight of the terms present.
    let mut inside = vec![0u32; slots];
    let mut score = 0.0;
    let mut best: Option<(f64, usize, usize)> = None;
    let mut left = 0;
    for (r, right) in matches.iter().enumerate() {
        if inside[right.term as usize] == 0 {
            score += right.weight;
        }
        inside[right.term as usize] += 1;
        while right.end.saturating_sub(matches[left].start) > SPAN {
            let gone = &matches[left];
            inside[gone.term as usize] -= 1;
            if inside[gone.term as usize] == 0 {
                score -= gone.weight;
            }
            left += 1;
        }
        if best.is_none_or(|(s, _, _)| score > s + 1e-9) {
            let window_end = matches[left..=r]
                .iter()
                .map(|m| m.end)
                .max()
                .unwrap_or(right.end);
            best = Some((score, matches[left].start, window_end));
        }
    }
    best.map(|(_, s, e)| (s, e))
}

/// A snippet of `text` around its best cluster of `matches` (sorted by start), or the
/// beginning of `fallback` when nothing matched.
pub fn make(text: &str, matches: &[Match], fallback: &str) -> String {
    match best_window(matches) {
        Some((start, end)) if end <= text.len() => {
            let from = start.saturating_sub(LEAD);
            let to = end.max(from + WIDTH);
            cut(text, from, to, start, end)
        }
        _ => cut(fallback, 0, WIDTH, 0, 0),
    }
}

/// `text[from..to]` moved to character boundaries, trimmed to whole words where that
/// keeps `keep_start..keep_end`, with whitespace collapsed and `...` where text was cut.
pub fn cut(text: &str, from: usize, to: usize, keep_start: usize, keep_end: usize) -> String {
    let mut from = floor_boundary(text, from.min(text.len()));
    let mut to = ceil_boundary(text, to.min(text.len()));
    if from > 0 {
        let limit = floor_boundary(text, keep_start.clamp(from, to));
        if let Some(space) = text[from..limit].find(char::is_whitespace) {
            from += space;
        }
    }
    if to < text.len() {
        let limit = ceil_boundary(text, keep_end.clamp(from, to));
        if let Some(space) = text[limit..to].rfind(char::is_whitespace) {
            to = limit + space;
        }
    }
    let mut out = String::with_capacity(to - from + 2 * ELLIPSIS.len());
    if from > 0 {
        out.push_str(ELLIPSIS);
    }
    push_collapsed(&mut out, &text[from..to]);
    if to < text.len() {
        out.push_str(ELLIPSIS);
    }
    out
}

/// Appends `text` with every run of ASCII whitespace turned into one space and none at
/// either end. Works on bytes: an ASCII byte never sits inside a multi-byte character.
fn push_collapsed(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut first = true;
    while i < bytes.len() {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if start < i {
            if !first {
                out.push(' ');
            }
            out.push_str(&text[start..i]);
            first = false;
        }
    }
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(text: &str, word: &str, term: u32, weight: f64) -> Match {
        let start = text.find(word).unwrap();
        Match {
            start,
            end: start + word.len(),
            term,
            weight,
        }
    }

    #[test]
    fn picks_the_densest_cluster() {
        let text = format!(
            "deploy once here. {} then deploy with postgres together. {}",
            "filler ".repeat(60),
            "tail ".repeat(60)
        );
        let first = m(&text, "deploy", 1, 1.0);
        let second_at = text.rfind("deploy").unwrap();
        let second = Match {
            start: second_at,
            end: second_at + 6,
            term: 1,
            weight: 1.0,
        };
        let pg = m(&text, "postgres", 2, 1.0);
        assert_eq!(
            best_window(&[first, second, pg]),
            Some((second.start, pg.end))
        );
        let s = make(&text, &[first, second, pg], "fallback");
        assert!(s.contains("then deploy with postgres together"), "{s}");
        assert!(s.starts_with(ELLIPSIS) && s.ends_with(ELLIPSIS), "{s}");
        assert!(s.len() <= WIDTH + 2 * ELLIPSIS.len(), "{}", s.len());
    }

    #[test]
    fn ties_go_to_the_earliest() {
        let text = "alpha beta ".repeat(40);
        let a = m(&text, "alpha", 1, 1.0);
        let late = text.rfind("alpha").unwrap();
        let b = Match {
            start: late,
            end: late + 5,
            term: 1,
            weight: 1.0,
        };
        assert_eq!(best_window(&[a, b]), Some((0, 5)));
        assert_eq!(best_window(&[]), None);
    }

    #[test]
    fn never_splits_multi_byte_characters() {
        let text = "žluťoučký kůň úpěl ďábelské ódy 🚀🚀 ".repeat(30);
        let len = text.len();
        // Every start offset, including ones in the middle of a character.
        for start in (0..len).step_by(7) {
            let at = floor_boundary(&text, start);
            let word_end = text[at..].find(' ').map_or(len, |e| at + e);
            let matches = [Match {
                start: at,
                end: word_end,
                term: 0,
                weight: 1.0,
            }];
            let s = make(&text, &matches, "");
            assert!(!s.is_empty());
            assert!(s.chars().all(|c| c != '\u{fffd}'));
        }
        for from in 0..len.min(200) {
            let s = cut(&text, from, from + 37, from, from);
            assert!(s.len() <= 37 + 6 + 8, "{from}: {s}");
        }
    }

    #[test]
    fn falls_back_and_handles_short_text() {
        assert_eq!(
            make("whole text", &[], "the description"),
            "the description"
        );
        let long = "word ".repeat(100);
        let s = make("", &[], &long);
        assert!(s.ends_with(ELLIPSIS) && !s.starts_with(ELLIPSIS));
        let text = "short text with deploy";
        let s = make(text, &[m(text, "deploy", 0, 1.0)], "");
        assert_eq!(s, text);
        assert_eq!(cut("  spaced \n\n out  ", 0, 100, 0, 0), "spaced out");
    }
}
