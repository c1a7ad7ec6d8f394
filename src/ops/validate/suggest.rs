//! "Did you mean": the closest known names to a misspelt one, by edit distance.

/// Edit distance over characters, ASCII case folded (a case slip counts as 0). Two
/// neighbours swapped count as one edit (optimal string alignment), the commonest typo:
/// plain Levenshtein made `cahce` two edits from `cache`, too far for a five-letter name.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().map(|c| c.to_ascii_lowercase()).collect();
    let b: Vec<char> = b.chars().map(|c| c.to_ascii_lowercase()).collect();
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            let mut d = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && *ca == b[j - 1] && a[i - 1] == *cb {
                d = d.min(before[j - 1] + 1);
            }
            cur[j + 1] = d;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Up to `max` candidates close enough to `input` to be a plausible typo, best first.
/// A candidate that contains the input (or the reverse) also counts, so `node` finds
/// `nodejs`. A slice, not an iterator: one copy of the code serves every caller.
pub fn closest<'a>(input: &str, candidates: &[&'a str], max: usize) -> Vec<&'a str> {
    let limit = typo_limit(input);
    let lower = input.to_ascii_lowercase();
    let mut scored: Vec<(usize, &'a str)> = candidates
        .iter()
        .filter_map(|&c| {
            let d = distance(input, c);
            let cl = c.to_ascii_lowercase();
            let contains = lower.len() >= 3 && (cl.contains(&lower) || lower.contains(&cl));
            if d <= limit {
                Some((d, c))
            } else if contains {
                Some((limit + 1, c))
            } else {
                None
            }
        })
        .collect();
    crate::order::sort_by(&mut scored, |a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(max).map(|(_, c)| c).collect()
}

/// How many edits a typo of `input` may have: a third of its length, at least one.
fn typo_limit(input: &str) -> usize {
    (input.chars().count() / 3).max(1)
}

/// The candidate nearest to `input` by edit distance alone, if near enough to be a typo:
/// unlike [`closest`], one that merely contains the input (or the reverse) does not count.
pub fn nearest<'a>(input: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let limit = typo_limit(input);
    candidates
        .iter()
        .map(|&c| (distance(input, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// "did you mean `a` or `b`?" text, or a fallback listing the allowed values.
pub fn did_you_mean(input: &str, candidates: &[&str], what: &str) -> String {
    let near = closest(input, candidates, 3);
    if near.is_empty() {
        format!("allowed {what}: {}", quote_list(candidates))
    } else {
        format!("did you mean {}?", or_list(&near))
    }
}

/// `` `a`, `b`, `c` ``.
pub fn quote_list(items: &[&str]) -> String {
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first few entries of a long list, quoted, with `…` when some are left out.
pub fn sample(list: &[String]) -> String {
    let shown: Vec<&str> = list.iter().take(10).map(String::as_str).collect();
    let mut s = quote_list(&shown);
    if list.len() > shown.len() {
        s.push_str(", …");
    }
    s
}

/// `` `a` or `b` `` / `` `a`, `b` or `c` ``.
pub fn or_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => format!("`{one}`"),
        [rest @ .., last] => format!("{} or `{last}`", quote_list(rest)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_counts_edits_only() {
        let keys = ["connectionString", "password", "hostname"];
        assert_eq!(nearest("pasword", &keys), Some("password"));
        assert_eq!(nearest("hostnme", &keys), Some("hostname"));
        assert_eq!(nearest("connection", &keys), None);
        assert_eq!(closest("connection", &keys, 1), ["connectionString"]);
    }

    #[test]
    fn distances() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("deployFiles", "deployfiles"), 0);
        assert_eq!(distance("buildComands", "buildCommands"), 1);
        // A swap of neighbours is one edit, not two.
        assert_eq!(distance("cahce", "cache"), 1);
        assert_eq!(distance("wbe", "web"), 1);
        assert_eq!(distance("ab", "ba"), 1);
        assert_eq!(distance("abc", "ca"), 3);
    }

    #[test]
    fn closest_picks_typos_and_prefixes() {
        let keys = [
            "buildCommands",
            "prepareCommands",
            "deployFiles",
            "cache",
            "base",
        ];
        assert_eq!(closest("buildComands", &keys, 3), vec!["buildCommands"]);
        assert_eq!(closest("deployfile", &keys, 3), vec!["deployFiles"]);
        assert!(closest("zzzzzzzzzz", &keys, 3).is_empty());
        assert_eq!(closest("cahce", &keys, 3), vec!["cache"]);
        assert_eq!(
            closest("node", &["nodejs", "deno", "bun"], 3),
            vec!["nodejs"]
        );
    }

    #[test]
    fn texts() {
        assert_eq!(or_list(&["a", "b", "c"]), "`a`, `b` or `c`");
        assert_eq!(
            did_you_mean("tcq", &["tcp", "udp"], "values"),
            "did you mean `tcp`?"
        );
        assert_eq!(
            did_you_mean("xx", &["HA", "NON_HA"], "values"),
            "allowed values: `HA`, `NON_HA`"
        );
    }
}
