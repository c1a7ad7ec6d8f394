//! Text to search terms: the one tokenizer both documents and queries go through, so a
//! word in a query and the same word in a document always meet.
//!
//! * Lower-cased, Unicode-aware: a term is a run of letters and digits.
//! * Compounds stay searchable whole *and* by their parts: `nodejs@22` yields `nodejs@22`,
//!   `nodejs` and `22`; `php-nginx@8.4` also yields `php-nginx`; `zerops.yml`,
//!   `PREPARING_RUNTIME_FAILED` and `0.0.0.0` likewise.
//! * camelCase is split as well as kept (`initCommands` → `initcommands`, `init`, `command`),
//!   because documents write YAML keys and agents write plain words.
//! * A light English stemmer folds plurals and verb forms (deploying, deployed, deploys →
//!   deploy), and a short stop-word list keeps question words out of the scores.

/// One term and the byte span of the text it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The normalised term (lower-cased, stemmed unless it is a compound).
    pub term: String,
    /// Byte offset of the first byte of the source span.
    pub start: usize,
    /// Byte offset one past the source span.
    pub end: usize,
}

/// Characters that glue word parts into one compound (`nodejs@22`, `zerops.yml`).
fn is_joiner(c: char) -> bool {
    matches!(c, '@' | '.' | '-' | '_')
}

/// True for words left out of the index and of queries: words that carry no topic. The
/// list is short on purpose: `which`, `not` and the like stay, because keywords such as
/// "which database" use them. A few articles of other languages agents write in are here
/// too ("variables de entorno" must not match "Falkenstein (DE)").
pub fn is_stop_word(word: &str) -> bool {
    matches!(
        word,
        "a" | "about"
            | "am"
            | "an"
            | "and"
            | "are"
            | "as"
            | "at"
            | "be"
            | "been"
            | "but"
            | "by"
            | "can"
            | "could"
            | "did"
            | "do"
            | "does"
            | "doing"
            | "for"
            | "from"
            | "had"
            | "has"
            | "have"
            | "how"
            | "i"
            | "if"
            | "in"
            | "into"
            | "is"
            | "it"
            | "its"
            | "me"
            | "my"
            | "of"
            | "on"
            | "or"
            | "our"
            | "should"
            | "so"
            | "than"
            | "that"
            | "the"
            | "their"
            | "them"
            | "then"
            | "there"
            | "these"
            | "they"
            | "this"
            | "those"
            | "to"
            | "was"
            | "we"
            | "were"
            | "what"
            | "when"
            | "where"
            | "who"
            | "why"
            | "will"
            | "with"
            | "would"
            | "you"
            | "your"
            // Comparisons: "difference between X and Y" is about X and Y.
            | "between"
            | "difference"
            // Articles and conjunctions of Spanish, French and German.
            | "das"
            | "de"
            | "del"
            | "der"
            | "el"
            | "en"
            | "et"
            | "la"
            | "las"
            | "le"
            | "les"
            | "los"
            | "un"
            | "una"
            | "und"
            | "une"
    )
}

/// Splits `text` into tokens, in order of appearance.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    each_token(text, &mut |term, start, end| {
        out.push(Token {
            term: term.to_owned(),
            start,
            end,
        });
    });
    out
}

/// The terms of `text` without positions.
pub fn terms(text: &str) -> Vec<String> {
    tokenize(text).into_iter().map(|t| t.term).collect()
}

/// [`tokenize`] without a `String` per token: `emit(term, start, end)` is called for each
/// token in order, with the term in a buffer reused for the next one. Indexing the corpus
/// this way allocates per distinct term instead of per occurrence.
pub fn each_token(text: &str, emit: &mut dyn FnMut(&str, usize, usize)) {
    let mut sink = Sink {
        term: String::new(),
        emit,
    };
    let mut chunk_start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        let inside = c.is_alphanumeric() || is_joiner(c);
        match (inside, chunk_start) {
            (true, None) => chunk_start = Some(i),
            (false, Some(start)) => {
                sink.chunk(text, start, i);
                chunk_start = None;
            }
            _ => {}
        }
    }
    if let Some(start) = chunk_start {
        sink.chunk(text, start, text.len());
    }
}

/// Where tokens go: the reused term buffer and the caller's callback.
struct Sink<'a> {
    term: String,
    emit: &'a mut dyn FnMut(&str, usize, usize),
}

impl Sink<'_> {
    /// Handles one run of word characters and joiners, `text[start..end]`.
    fn chunk(&mut self, text: &str, start: usize, end: usize) {
        let raw = &text[start..end];
        let trimmed_front = raw.trim_start_matches(is_joiner);
        let start = start + (raw.len() - trimmed_front.len());
        let trimmed = trimmed_front.trim_end_matches(is_joiner);
        let end = start + trimmed.len();
        if trimmed.is_empty() {
            return;
        }
        let mut parts = 0;
        let mut part_start: Option<usize> = None;
        for (i, c) in trimmed.char_indices() {
            match (c.is_alphanumeric(), part_start) {
                (true, None) => part_start = Some(i),
                (false, Some(s)) => {
                    self.part(text, start + s, start + i);
                    parts += 1;
                    part_start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = part_start {
            self.part(text, start + s, end);
            parts += 1;
        }
        if parts > 1 {
            // `php-nginx@8.4`: the name and the version are compounds worth keeping too.
            if let Some(at) = trimmed.find('@') {
                for (from, to) in [(0, at), (at + 1, trimmed.len())] {
                    if trimmed[from..to].contains(is_joiner) {
                        lower_into(&mut self.term, &trimmed[from..to]);
                        (self.emit)(&self.term, start + from, start + to);
                    }
                }
            }
            lower_into(&mut self.term, trimmed);
            (self.emit)(&self.term, start, end);
        }
    }

    /// Handles one run of letters and digits, `text[start..end]`: the whole word and, when
    /// it is camelCase, each of its humps.
    fn part(&mut self, text: &str, start: usize, end: usize) {
        let word = &text[start..end];
        self.word(word, start, end);
        let mut hump_start = 0;
        let mut previous_lower = false;
        let mut humps = 0;
        for (i, c) in word.char_indices() {
            if c.is_uppercase() && previous_lower {
                self.word(&word[hump_start..i], start + hump_start, start + i);
                hump_start = i;
                humps += 1;
            }
            previous_lower = c.is_lowercase();
        }
        if humps > 0 {
            self.word(&word[hump_start..], start + hump_start, end);
        }
    }

    fn word(&mut self, word: &str, start: usize, end: usize) {
        lower_into(&mut self.term, word);
        if self.term.chars().nth(1).is_none() || is_stop_word(&self.term) {
            return;
        }
        stem_in_place(&mut self.term);
        (self.emit)(&self.term, start, end);
    }
}

/// Replaces the contents of `buf` with `word` lower-cased, reusing its allocation: ASCII
/// in place, anything else through `str::to_lowercase` (which knows context rules such as
/// a final sigma), so the result always equals `word.to_lowercase()`.
pub fn lower_into(buf: &mut String, word: &str) {
    buf.clear();
    if word.is_ascii() {
        buf.push_str(word);
        buf.make_ascii_lowercase();
    } else {
        buf.push_str(&word.to_lowercase());
    }
}

/// Reduces a lower-case word to a stem shared by its inflections. Only plain ASCII words
/// longer than three letters are touched; numbers, versions and other scripts stay as
/// they are. The stems need not be words (`cache` → `cach`): they only have to meet.
pub fn stem(word: &str) -> String {
    let mut w = word.to_owned();
    stem_in_place(&mut w);
    w
}

/// [`stem`] without a new allocation.
fn stem_in_place(w: &mut String) {
    if w.len() <= 3 || !w.bytes().all(|b| b.is_ascii_lowercase()) {
        return;
    }
    // Plurals and third person.
    if w.ends_with("ies") && w.len() > 4 {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if w.ends_with("sses")
        || (w.len() > 4
            && ["ches", "shes", "xes", "zes"]
                .iter()
                .any(|s| w.ends_with(s)))
    {
        w.truncate(w.len() - 2);
    } else if w.ends_with('s') && !["ss", "us", "is"].iter().any(|s| w.ends_with(s)) {
        w.pop();
    }
    // Past tense and gerund.
    if w.ends_with("ied") && w.len() > 4 {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if let Some(len) = verb_base_len(w, "ing").or_else(|| verb_base_len(w, "ed")) {
        w.truncate(len);
    }
    // A final silent e, so cache / caching / cached agree.
    if w.ends_with('e') && w.len() > 3 {
        w.pop();
    }
}

/// Length of `word` without a verb suffix: `running` → `run`, `deployed` → `deploy`;
/// `None` when what is left would be too short or has no vowel (`string`, `need`).
fn verb_base_len(word: &str, suffix: &str) -> Option<usize> {
    let base = word.strip_suffix(suffix)?.as_bytes();
    let n = base.len();
    if n < 3 || !base.iter().any(|b| b"aeiouy".contains(b)) {
        return None;
    }
    if base[n - 1] == base[n - 2] && !b"lsz".contains(&base[n - 1]) {
        return Some(n - 1);
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(text: &str, want: &[&str]) {
        let got = terms(text);
        for w in want {
            assert!(got.iter().any(|g| g == w), "{w:?} missing from {got:?}");
        }
    }

    #[test]
    fn stop_words() {
        for w in [
            "the", "how", "do", "i", "your", "with", "between", "de", "und",
        ] {
            assert!(is_stop_word(w), "{w}");
        }
        for w in ["which", "not", "deploy", "thee", ""] {
            assert!(!is_stop_word(w), "{w}");
        }
    }

    #[test]
    fn inflections_meet() {
        for group in [
            &["deploy", "deploying", "deployed", "deploys"][..],
            &["service", "services"],
            &["log", "logs", "logging"],
            &["run", "running", "runs"],
            &["cache", "caching", "cached", "caches"],
            &["database", "databases"],
            &["query", "queries"],
            &["dependency", "dependencies"],
            &["variable", "variables"],
            &["setting", "settings"],
            &["stop", "stopped", "stopping"],
            &["process", "processes"],
            &["scale", "scaling", "scaled"],
            &["copy", "copied", "copies"],
        ] {
            let stems: Vec<String> = group.iter().map(|w| stem(w)).collect();
            assert!(
                stems.windows(2).all(|p| p[0] == p[1]),
                "{group:?} → {stems:?}"
            );
        }
    }

    #[test]
    fn stemming_leaves_short_words_numbers_and_exceptions() {
        for same in [
            "string",
            "status",
            "redis",
            "address",
            "need",
            "ssl",
            "22",
            "žluťoučký",
        ] {
            assert_eq!(stem(same), same);
        }
        assert_eq!(stem("https"), "http");
    }

    #[test]
    fn lower_cases_and_splits_on_non_alphanumerics() {
        assert_eq!(
            terms("Hello, World! (foo) [bar]"),
            ["hello", "world", "foo", "bar"]
        );
        has("Čeština a ŽLUŤOUČKÝ kůň", &["čeština", "žluťoučký", "kůň"]);
        assert!(terms("").is_empty());
        assert!(terms("  ,;  ").is_empty());
    }

    #[test]
    fn keeps_version_like_compounds_and_their_parts() {
        has("base: nodejs@22", &["nodejs@22", "nodej", "22"]);
        has(
            "type php-nginx@8.4",
            &["php-nginx@8.4", "php-nginx", "php", "nginx", "8.4"],
        );
        has("edit zerops.yml.", &["zerops.yml", "zerop", "yml"]);
        has("listen on 0.0.0.0", &["0.0.0.0"]);
        has(
            "PREPARING_RUNTIME_FAILED",
            &["preparing_runtime_failed", "prepar", "runtim", "fail"],
        );
        // Leading and trailing joiners are not part of the word.
        assert_eq!(terms("...valkey.."), ["valkey"]);
    }

    #[test]
    fn splits_camel_case_and_keeps_the_whole() {
        has(
            "run.initCommands",
            &["run.initcommands", "initcommand", "init", "command"],
        );
        has(
            "${db_connectionString}",
            &["db", "connectionstr", "connection", "string"],
        );
        // Acronyms in capitals are one word.
        assert_eq!(terms("HTTP"), ["http"]);
    }

    #[test]
    fn drops_stop_words_and_single_letters() {
        assert_eq!(terms("How do I fix the 502?"), ["fix", "502"]);
        assert_eq!(terms("a b c"), Vec::<String>::new());
    }

    #[test]
    fn spans_point_at_the_source_text() {
        let text = "Žádný deploy: nodejs@22";
        for token in tokenize(text) {
            let span = &text[token.start..token.end];
            assert!(!span.is_empty(), "{token:?}");
        }
        let t = tokenize(text);
        let deploy = t.iter().find(|t| t.term == "deploy").unwrap();
        assert_eq!(&text[deploy.start..deploy.end], "deploy");
        let compound = t.iter().find(|t| t.term == "nodejs@22").unwrap();
        assert_eq!(&text[compound.start..compound.end], "nodejs@22");
    }
}
