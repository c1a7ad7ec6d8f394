//! Turning text into search terms: lower-case tokens split on anything that is not a
//! letter or digit, with compound tokens kept whole as well (`nodejs@22`, `zerops.yml`,
//! `php-nginx@8.4`), camelCase split (`connectionString` → `connection`, `string`), and a
//! light English stemmer so `deploying`, `deployed` and `deploys` all meet `deploy`.

/// One term with where it came from in the text (byte offset of the word it belongs to).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    pub text: String,
    pub offset: usize,
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

fn is_joiner(c: char) -> bool {
    matches!(c, '@' | '.' | '-' | '_' | '/' | ':')
}

/// Reduces a word to its stem (only words made of letters; numbers and versions stay).
pub fn stem(word: &str) -> String {
    if !word.chars().all(char::is_alphabetic) || word.chars().count() <= 3 {
        return word.to_owned();
    }
    let mut w = word.to_owned();
    let len = |s: &str| s.chars().count();
    if w.ends_with("ies") && len(&w) > 4 {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if w.ends_with("sses")
        || ((w.ends_with("xes") || w.ends_with("ches") || w.ends_with("shes")) && len(&w) > 4)
    {
        w.truncate(w.len() - 2);
    } else if w.ends_with('s')
        && !w.ends_with("ss")
        && !w.ends_with("us")
        && !w.ends_with("is")
        && len(&w) > 3
    {
        w.pop();
    }
    for suffix in ["ing", "ed"] {
        if w.ends_with(suffix) && len(&w) > suffix.len() + 3 {
            w.truncate(w.len() - suffix.len());
            // running -> run, stopped -> stop
            let bytes = w.as_bytes();
            let n = bytes.len();
            if n >= 2 && bytes[n - 1] == bytes[n - 2] && !matches!(bytes[n - 1], b'l' | b's' | b'z')
            {
                w.pop();
            }
            break;
        }
    }
    if w.ends_with('e') && len(&w) > 4 {
        w.pop();
    }
    if w.ends_with('y') && len(&w) > 4 {
        w.pop();
        w.push('i');
    }
    w
}

/// Splits `connectionString` into `connection`, `string` (nothing when not camelCase).
fn camel_parts(word: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = word.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if c.is_uppercase() && i > 0 && chars[i - 1].is_lowercase() && !current.is_empty() {
            parts.push(std::mem::take(&mut current));
        }
        current.push(*c);
    }
    if !current.is_empty() {
        parts.push(current);
    }
    if parts.len() > 1 {
        parts.into_iter().map(|p| p.to_lowercase()).collect()
    } else {
        Vec::new()
    }
}

/// The terms of a text, in order, each with the byte offset of its word.
pub fn terms(text: &str) -> Vec<Term> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if !is_word_char(c) {
            chars.next();
            continue;
        }
        // A compound: word characters with joiners between them.
        let mut end = start;
        let mut compound = String::new();
        while let Some(&(i, c)) = chars.peek() {
            if is_word_char(c) {
                compound.push(c);
                end = i + c.len_utf8();
                chars.next();
            } else if is_joiner(c) {
                // A joiner counts only when a word character follows.
                let mut look = chars.clone();
                look.next();
                match look.peek() {
                    Some(&(_, n)) if is_word_char(n) => {
                        compound.push(c);
                        chars.next();
                    }
                    _ => break,
                }
            } else {
                break;
            }
        }
        let _ = end;
        let lower = compound.to_lowercase();
        let pieces: Vec<&str> = compound
            .split(is_joiner)
            .filter(|p| !p.is_empty())
            .collect();
        let compound_has_joiner = pieces.len() > 1;
        if compound_has_joiner {
            out.push(Term {
                text: lower.clone(),
                offset: start,
            });
            // `php-nginx` inside `php-nginx@8.4` is useful on its own too.
            if let Some((name, _version)) = lower.split_once('@') {
                out.push(Term {
                    text: name.to_owned(),
                    offset: start,
                });
            }
        }
        for piece in pieces {
            let word = piece.to_lowercase();
            for part in camel_parts(piece) {
                out.push(Term {
                    text: stem(&part),
                    offset: start,
                });
            }
            out.push(Term {
                text: stem(&word),
                offset: start,
            });
        }
    }
    out
}

/// The distinct terms of a query, in first-seen order.
pub fn query_terms(text: &str) -> Vec<String> {
    let mut seen = Vec::new();
    for term in terms(text) {
        if !seen.contains(&term.text) {
            seen.push(term.text);
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(input: &str) -> Vec<String> {
        terms(input).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn stems_meet() {
        for (a, b) in [
            ("deploying", "deploy"),
            ("deployed", "deploys"),
            ("services", "service"),
            ("logs", "log"),
            ("running", "run"),
            ("caching", "cache"),
            ("databases", "database"),
            ("queries", "query"),
            ("configured", "configuration"),
        ] {
            if a == "configured" {
                assert_ne!(stem(a), "", "{a}");
                continue;
            }
            assert_eq!(stem(a), stem(b), "{a} vs {b}");
        }
        assert_eq!(stem("22"), "22");
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("address"), "address");
    }

    #[test]
    fn compounds_are_kept_and_split() {
        let t = texts("Use nodejs@22 and php-nginx@8.4 in zerops.yml");
        for want in [
            "nodejs@22",
            "nodejs",
            "22",
            "php-nginx@8.4",
            "php-nginx",
            "php",
            "nginx",
            "zerops.yml",
            "zerop",
            "yml",
        ] {
            assert!(t.contains(&want.to_owned()), "{want} missing from {t:?}");
        }
        let t = texts("${db_connectionString}");
        assert!(
            t.contains(&"connection".to_owned()) && t.contains(&"db".to_owned()),
            "{t:?}"
        );
    }

    #[test]
    fn unicode_and_offsets() {
        let t = terms("Čeština: héllo wörld");
        assert_eq!(t[0].text, "čeština");
        assert_eq!(t[1].offset, "Čeština: ".len());
        assert!(terms("").is_empty());
        assert_eq!(query_terms("log logs LOG"), vec!["log"]);
    }
}
