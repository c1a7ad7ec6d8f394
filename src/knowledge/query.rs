//! From a query string to weighted search terms: the words as typed, the terms aliases
//! add (they never replace a word), and fixes for one-letter typos in words no document
//! uses, taken from the title and keyword vocabulary.

use std::collections::HashMap;

use super::bm25::WordSet;

use super::tokenize::terms;

/// Weight of a term the user typed.
pub const ORIGINAL_WEIGHT: f64 = 1.0;
/// Weight of a term an alias added: it helps, but the user's own words lead.
pub const ALIAS_WEIGHT: f64 = 0.8;
/// Weight of a typo fix.
pub const TYPO_WEIGHT: f64 = 0.9;
/// Query words beyond this many, and bytes beyond this many, are ignored: they bound the
/// work an untrusted query can cause.
pub const MAX_WORDS: usize = 32;
pub const MAX_QUERY_BYTES: usize = 1024;
/// Shortest word a typo fix is attempted for: shorter ones have too many neighbours.
const MIN_TYPO_LEN: usize = 4;
/// Most typo fixes added for one word.
const MAX_FIXES: usize = 3;

/// `word → words it adds`. Keys are lower-case words as typed; the expansion goes through
/// the tokenizer like any text.
pub const ALIASES: &[(&str, &str)] = &[
    // The anchor's 25.
    ("postgres", "postgresql"),
    ("pg", "postgresql postgres"),
    ("redis", "valkey"),
    ("mysql", "mariadb"),
    ("node", "nodejs"),
    ("js", "nodejs javascript"),
    ("ts", "nodejs typescript"),
    ("db", "database"),
    ("ssl", "tls sslmode"),
    ("cert", "certificate ssl tls"),
    ("env", "environment variable"),
    ("ha", "high-availability mode"),
    ("k8s", "kubernetes"),
    ("mongo", "mongodb"),
    ("docker", "dockerfile"),
    ("s3", "object-storage"),
    ("cron", "crontab schedule"),
    ("log", "logging logs"),
    ("logs", "logging log"),
    ("dns", "domain networking"),
    ("ci", "ci-cd continuous integration"),
    ("cd", "ci-cd continuous deployment"),
    ("dotnet", ".net csharp"),
    ("csharp", "dotnet .net"),
    ("memcached", "valkey cache"),
    // Recommended additions.
    ("golang", "go"),
    ("py", "python"),
    ("rabbitmq", "nats kafka queue"),
    ("elastic", "elasticsearch"),
    ("vars", "environment variable"),
    ("envs", "environment variable"),
    ("variables", "environment"),
    ("domain", "subdomain public-access"),
    ("yaml", "zerops.yml import.yml"),
    ("yml", "zerops.yml import.yml"),
    // Frameworks and tools to the runtime that hosts them.
    ("psql", "postgresql"),
    ("certs", "certificate ssl tls"),
    ("https", "ssl tls"),
    ("javascript", "nodejs"),
    ("typescript", "nodejs"),
    ("npm", "nodejs"),
    ("express", "nodejs"),
    ("nextjs", "nodejs"),
    ("nestjs", "nodejs"),
    ("django", "python"),
    ("flask", "python"),
    ("fastapi", "python"),
    ("laravel", "php"),
    ("symfony", "php"),
    ("rails", "ruby"),
    ("spring", "java"),
    ("phoenix", "elixir"),
    ("react", "static spa"),
    ("vue", "static spa"),
    ("svelte", "static spa"),
    ("angular", "static spa"),
    ("bucket", "object-storage"),
    ("minio", "object-storage"),
    ("secret", "envSecrets environment"),
    ("secrets", "envSecrets environment"),
    ("migration", "initCommands execOnce"),
    ("migrations", "initCommands execOnce"),
    ("email", "smtp"),
    ("mail", "smtp"),
    ("vector", "qdrant"),
    ("apk", "alpine"),
    ("apt", "ubuntu"),
    ("glibc", "ubuntu"),
    ("musl", "alpine"),
    ("cli", "zcli"),
    ("502", "bad gateway"),
    // Error names agents paste, to what the documents call them.
    ("413", "request entity too large client_max_body_size"),
    ("econnrefused", "connection refused"),
    ("enotfound", "no such host hostname"),
    ("getaddrinfo", "no such host hostname"),
    ("nxdomain", "no such host dns"),
    ("ssr", "nodejs nextjs nuxt"),
    ("wordpress", "php mariadb"),
    // Other languages' words for the main topics.
    ("datenbank", "database"),
    ("entorno", "environment"),
    ("umgebungsvariablen", "environment variable"),
    ("domaine", "domain"),
    ("dominio", "domain"),
    // Abbreviations and verbs agents use for documented topics.
    ("undo", "rollback"),
    ("revert", "rollback"),
];

/// The extra words an alias adds for `word` (lower-case, as typed).
pub fn alias(word: &str) -> Option<&'static str> {
    ALIASES.iter().find(|(w, _)| *w == word).map(|(_, e)| *e)
}

/// What the corpus knows, for deciding when a word is a typo and what it meant.
#[derive(Debug, Default)]
pub struct Lexicon {
    /// Every lower-case word form written anywhere in the documents (before stemming).
    surface: WordSet,
    /// Stems of title and keyword terms with a readable form for `expandedQuery`, sorted
    /// by length in characters (only neighbours in length can be one edit apart).
    fuzzy: Vec<(usize, String, String)>,
}

impl Lexicon {
    /// Builds from every text of the corpus and the title/keyword stems (each with the
    /// word it was first seen as).
    pub fn new<'a>(
        texts: impl IntoIterator<Item = &'a str>,
        fuzzy: HashMap<String, String>,
    ) -> Lexicon {
        let mut surface = WordSet::default();
        let mut lower = String::new();
        for text in texts {
            for word in text.split(|c: char| !c.is_alphanumeric()) {
                if word.is_empty() {
                    continue;
                }
                super::tokenize::lower_into(&mut lower, word);
                if !surface.contains(lower.as_str()) {
                    surface.insert(lower.clone());
                }
            }
        }
        surface.shrink_to_fit();
        let mut fuzzy: Vec<(usize, String, String)> = fuzzy
            .into_iter()
            .filter(|(stem, _)| stem.chars().count() >= 3 && stem.chars().all(char::is_alphabetic))
            .map(|(stem, readable)| (stem.chars().count(), stem, readable))
            .collect();
        crate::order::sort(&mut fuzzy);
        Lexicon { surface, fuzzy }
    }

    /// Title/keyword stems one edit from `term`, at most `max`, in a stable order.
    fn fixes<'a>(&'a self, term: &'a str, max: usize) -> impl Iterator<Item = (&'a str, &'a str)> {
        let len = term.chars().count();
        let from = self.fuzzy.partition_point(|(l, _, _)| *l + 1 < len);
        self.fuzzy[from..]
            .iter()
            .take_while(move |(l, _, _)| *l <= len + 1)
            .filter(move |(_, stem, _)| within_one_edit(term, stem))
            .take(max)
            .map(|(_, stem, readable)| (stem.as_str(), readable.as_str()))
    }

    /// True when some document writes exactly this (lower-case) word.
    pub fn has_word(&self, word: &str) -> bool {
        self.surface.contains(word)
    }
}

/// One weighted search term.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryTerm {
    pub term: String,
    pub weight: f64,
    /// True for words the user typed (snippets prefer them).
    pub original: bool,
}

/// A query ready to score.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// Distinct terms, the highest weight kept for duplicates.
    pub terms: Vec<QueryTerm>,
    /// The query's words, lower-cased (for unsupported-service detection).
    pub words: Vec<String>,
    /// The query with the added words after the word that added them, when any were.
    pub expanded: Option<String>,
}

impl Plan {
    fn add(&mut self, term: String, weight: f64, original: bool) -> bool {
        match self.terms.iter_mut().find(|t| t.term == term) {
            Some(existing) => {
                existing.weight = existing.weight.max(weight);
                existing.original |= original;
                false
            }
            None => {
                self.terms.push(QueryTerm {
                    term,
                    weight,
                    original,
                });
                true
            }
        }
    }
}

/// Splits a query into lower-case words, keeping compounds (`nodejs@22`) whole. Only the
/// first [`MAX_QUERY_BYTES`] bytes count.
pub fn words(query: &str) -> Vec<String> {
    let mut end = query.len().min(MAX_QUERY_BYTES);
    while !query.is_char_boundary(end) {
        end -= 1;
    }
    query[..end]
        .split(|c: char| {
            !(c.is_alphanumeric() || matches!(c, '@' | '.' | '-' | '_' | '$' | '{' | '}'))
        })
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .take(MAX_WORDS)
        .map(str::to_lowercase)
        .collect()
}

/// Plans `query`. `known` tells whether the index has a term.
pub fn plan(query: &str, lexicon: &Lexicon, known: impl Fn(&str) -> bool) -> Plan {
    let words = words(query);
    let typed: Vec<Vec<String>> = words.iter().map(|w| terms(w)).collect();
    let mut plan = Plan::default();
    // The typed words first, so an addition that repeats a later word does not count.
    for term in typed.iter().flatten() {
        plan.add(term.clone(), ORIGINAL_WEIGHT, true);
    }
    // The query as shown in `expandedQuery`: each word followed by what it added.
    let mut display: Vec<&str> = Vec::new();
    let mut added_any = false;
    for (word, terms) in words.iter().zip(&typed) {
        display.push(word);
        // An alias for the word as typed, or for the alias key it is one typo away from;
        // failing both, for each part of a compound (`glibc_2.34`, `k8s-like`).
        let keys: Vec<&'static str> = match ALIASES.iter().find(|(k, _)| k == word) {
            Some(&(key, _)) => vec![key],
            None if word.chars().count() > MIN_TYPO_LEN && !lexicon.has_word(word) => ALIASES
                .iter()
                .map(|(k, _)| *k)
                .find(|k| k.len() > MIN_TYPO_LEN && within_one_edit(word, k))
                .into_iter()
                .collect(),
            None => Vec::new(),
        };
        let keys = if keys.is_empty() {
            compound_parts(word)
                .filter_map(|part| ALIASES.iter().find(|(k, _)| *k == part))
                // Not a part's alias that names the whole word: `yml` would only add
                // `import.yml` to `zerops.yml`, diluting it.
                .filter(|(_, expansion)| !expansion.split_whitespace().any(|e| e == word))
                .map(|&(key, _)| key)
                .collect()
        } else {
            keys
        };
        for key in keys {
            let mut extra: Vec<&'static str> = Vec::new();
            if key != word {
                extra.push(key);
            }
            extra.extend(alias(key).into_iter().flat_map(str::split_whitespace));
            let expansion: Vec<(&str, Vec<String>)> =
                extra.into_iter().map(|t| (t, self::terms(t))).collect();
            // A long expansion shares its weight, so it cannot drown the typed word
            // ("npm ci" is about npm, not continuous integration).
            let fresh = expansion
                .iter()
                .flat_map(|(_, terms)| terms)
                .filter(|t| !plan.terms.iter().any(|q| &q.term == *t))
                .count();
            let weight = ALIAS_WEIGHT / (fresh.max(1) as f64).sqrt();
            for (text, terms) in expansion {
                let mut new = false;
                for term in terms {
                    new |= plan.add(term, weight, false);
                }
                if new {
                    display.push(text);
                    added_any = true;
                }
            }
        }
        // Typo fixes for terms the index has never seen.
        for term in terms {
            let typo_candidate = term.chars().count() >= MIN_TYPO_LEN
                && term.chars().all(char::is_alphabetic)
                && !known(term);
            if !typo_candidate {
                continue;
            }
            for (stem, readable) in lexicon.fixes(term, MAX_FIXES) {
                if plan.add(stem.to_owned(), TYPO_WEIGHT, false) {
                    display.push(readable);
                    added_any = true;
                }
            }
        }
    }
    if added_any {
        plan.expanded = Some(display.join(" "));
    }
    plan.words = words;
    plan
}

/// The parts of a compound word (`k8s-like` → `k8s`, `like`); nothing for a plain word.
fn compound_parts(word: &str) -> impl Iterator<Item = &str> {
    let compound = word.contains(|c: char| !c.is_alphanumeric());
    word.split(|c: char| !c.is_alphanumeric())
        .filter(move |part| compound && !part.is_empty())
}

/// True when `a` becomes `b` with at most one insertion, deletion, substitution or swap
/// of two neighbouring characters.
pub fn within_one_edit(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    // One edit changes the length by at most one character, four bytes.
    if a.len().abs_diff(b.len()) > 4 {
        return false;
    }
    if a.is_ascii() && b.is_ascii() {
        return one_edit(a.as_bytes(), b.as_bytes());
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    one_edit(&a, &b)
}

/// [`within_one_edit`] over any slices (bytes for ASCII, chars otherwise).
fn one_edit<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let prefix = short
        .iter()
        .zip(long.iter())
        .take_while(|(x, y)| x == y)
        .count();
    if short.len() == long.len() {
        let rest = prefix + 1;
        // One substitution, or a swap of neighbours.
        short[rest..] == long[rest..]
            || (rest < short.len()
                && short[prefix] == long[rest]
                && short[rest] == long[prefix]
                && short[rest + 1..] == long[rest + 1..])
    } else {
        // One insertion into the shorter word.
        short[prefix..] == long[prefix + 1..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::tokenize;

    fn lexicon() -> Lexicon {
        let fuzzy: HashMap<String, String> = [
            ("connection", "connection"),
            ("postgresql", "postgresql"),
            ("deploy", "deploy"),
            ("environment", "environment"),
        ]
        .into_iter()
        .map(|(s, r)| (tokenize::stem(s), r.to_owned()))
        .collect();
        Lexicon::new(["postgres nodes connection deploy environment"], fuzzy)
    }

    fn known(term: &str) -> bool {
        [
            "postgr",
            "postgresql",
            "connection",
            "deploy",
            "nod",
            "environment",
        ]
        .contains(&term)
    }

    fn terms(plan: &Plan) -> Vec<(&str, f64)> {
        plan.terms
            .iter()
            .map(|t| (t.term.as_str(), t.weight))
            .collect()
    }

    #[test]
    fn there_are_at_least_25_aliases_and_keys_are_unique() {
        assert!(ALIASES.len() >= 25);
        let mut keys: Vec<&str> = ALIASES.iter().map(|(k, _)| *k).collect();
        crate::order::sort(&mut keys);
        keys.dedup();
        assert_eq!(keys.len(), ALIASES.len());
        for key in keys {
            assert_eq!(key, key.to_lowercase());
        }
    }

    #[test]
    fn aliases_add_and_keep_the_original() {
        let plan = plan("redis", &lexicon(), known);
        assert_eq!(terms(&plan), [("redis", 1.0), ("valkey", ALIAS_WEIGHT)]);
        assert_eq!(plan.expanded.as_deref(), Some("redis valkey"));
        let plan = super::plan("PG", &lexicon(), known);
        assert!(plan.terms[0].original && plan.terms[0].term == "pg");
        // Two fresh terms (postgresql, postgres) share the alias weight.
        let shared = ALIAS_WEIGHT / 2f64.sqrt();
        assert!(
            terms(&plan).contains(&("postgresql", shared)),
            "{:?}",
            terms(&plan)
        );
        assert_eq!(plan.expanded.as_deref(), Some("pg postgresql postgres"));
    }

    #[test]
    fn parts_of_a_compound_find_their_aliases() {
        let plan = plan("k8s-like scaling", &lexicon(), known);
        assert!(
            terms(&plan).iter().any(|(t, _)| *t == "kubernet"),
            "{:?}",
            terms(&plan)
        );
        assert_eq!(
            plan.expanded.as_deref(),
            Some("k8s-like kubernetes scaling")
        );
        let plan = super::plan("GLIBC_2.34 not found", &lexicon(), known);
        assert!(
            terms(&plan).iter().any(|(t, _)| *t == "ubuntu"),
            "{:?}",
            terms(&plan)
        );
        // A part's alias that names the whole word adds nothing: `zerops.yml` is not
        // diluted with `import.yml`, which plain `yml` still adds.
        let plan = super::plan("zerops.yml deploy", &lexicon(), known);
        assert_eq!(plan.expanded, None);
        let plan = super::plan("yml deploy", &lexicon(), known);
        assert_eq!(
            plan.expanded.as_deref(),
            Some("yml zerops.yml import.yml deploy")
        );
        // A plain word is not a compound: no part of it is looked up.
        assert_eq!(compound_parts("glibc").count(), 0);
    }

    #[test]
    fn no_expansion_means_no_expanded_query() {
        let plan = plan("deploy connection", &lexicon(), known);
        assert_eq!(plan.expanded, None);
        assert_eq!(terms(&plan), [("deploy", 1.0), ("connection", 1.0)]);
    }

    #[test]
    fn additions_that_repeat_a_typed_word_are_not_shown() {
        let plan = plan("502 bad gateway", &lexicon(), known);
        assert_eq!(plan.expanded, None);
        assert!(plan.terms.iter().all(|t| t.original && t.weight == 1.0));
    }

    #[test]
    fn duplicates_keep_the_highest_weight() {
        // "postgres" adds postgresql; typing postgresql too keeps it at full weight.
        let plan = plan("postgres postgresql", &lexicon(), known);
        assert!(terms(&plan).contains(&("postgresql", 1.0)));
    }

    #[test]
    fn typos_are_fixed_from_the_title_and_keyword_vocabulary() {
        let plan = plan("postgre connction", &lexicon(), known);
        let t = terms(&plan);
        assert!(t.contains(&("connection", TYPO_WEIGHT)), "{t:?}");
        // "postgre" is no word of the corpus but one letter from the alias key "postgres".
        assert!(t.contains(&("postgresql", ALIAS_WEIGHT)), "{t:?}");
        assert_eq!(
            plan.expanded.as_deref(),
            Some("postgre postgresql connction connection")
        );
        // A real word of the corpus is never "corrected" into an alias.
        let plan = super::plan("nodes", &lexicon(), known);
        assert_eq!(plan.expanded, None);
    }

    #[test]
    fn words_keep_compounds_and_drop_punctuation() {
        assert_eq!(
            words("How do I use nodejs@22?"),
            ["how", "do", "i", "use", "nodejs@22"]
        );
        assert_eq!(
            words("\"zerops.yml\", ${db_password}!"),
            ["zerops.yml", "db_password"]
        );
        assert_eq!(words(&"x ".repeat(100)).len(), MAX_WORDS);
        let long = format!("{}é tail", "a".repeat(MAX_QUERY_BYTES - 1));
        assert_eq!(words(&long), ["a".repeat(MAX_QUERY_BYTES - 1)]);
    }

    #[test]
    fn one_edit() {
        for (a, b) in [
            ("connction", "connection"),
            ("conection", "connection"),
            ("cnonection", "connection"),
            ("connectoin", "connection"),
            ("connectiom", "connection"),
            ("žluťoučký", "žlutoučký"),
            ("same", "same"),
        ] {
            assert!(within_one_edit(a, b), "{a} {b}");
            assert!(within_one_edit(b, a), "{b} {a}");
        }
        for (a, b) in [
            ("conn", "connection"),
            ("abcd", "badc"),
            ("abc", "xyz"),
            ("ab", "ba c"),
        ] {
            assert!(!within_one_edit(a, b), "{a} {b}");
        }
    }
}
