//! Checks shared by both formats: "did you mean", key sets, command lists, environment
//! variable maps, references and the preprocessor.

use crate::yaml::{Kind, Node};

use super::Findings;

/// Levenshtein distance, ignoring ASCII case (small inputs only).
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
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

/// The closest candidates to `word` (up to three), if any is close enough.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let word_lower = word.to_lowercase();
    let limit = (word.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .map(|c| {
            let d = distance(&word_lower, &c.to_lowercase());
            // A shared prefix (nodejs@22 vs nodejs@99) counts as close.
            let bonus = if c.split(['@', '-', ':']).next() == word.split(['@', '-', ':']).next() {
                0
            } else {
                1
            };
            (d * 2 + bonus, c)
        })
        .filter(|(score, c)| *score / 2 <= limit || c.split('@').next() == word.split('@').next())
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}

/// "did you mean" text, or a list of what is allowed.
pub fn suggest(word: &str, allowed: &[&str]) -> String {
    let near = closest(word, allowed.iter().copied());
    if let Some(best) = near.first() {
        format!("Did you mean `{best}`? Allowed: {}.", allowed.join(", "))
    } else {
        format!("Allowed: {}.", allowed.join(", "))
    }
}

/// Reports keys of a mapping outside `allowed` (with a rule-specific hint per key).
pub fn check_keys(
    node: &Node,
    path: &str,
    allowed: &[&str],
    rule: &'static str,
    findings: &mut Findings,
    hint: &dyn Fn(&str) -> Option<String>,
) {
    let Some(entries) = node.entries() else {
        return;
    };
    for (key, _) in entries {
        let name = key.as_scalar_string().unwrap_or_default();
        if allowed.contains(&name.as_str()) {
            continue;
        }
        let suggestion = hint(&name).unwrap_or_else(|| suggest(&name, allowed));
        findings.error(
            rule,
            &join(path, &name),
            key,
            format!(
                "Unknown key `{name}` in {}",
                if path.is_empty() {
                    "the top level"
                } else {
                    path
                }
            ),
            suggestion,
        );
    }
}

pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// A list of shell commands: a list of strings (a plain string is accepted with a
/// warning).
pub fn check_commands(node: &Node, path: &str, rule: &'static str, findings: &mut Findings) {
    match &node.kind {
        Kind::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                if item.as_scalar_string().is_none_or(|s| s.trim().is_empty()) {
                    findings.error(
                        rule,
                        &format!("{path}[{i}]"),
                        item,
                        format!(
                            "Command #{} in {path} must be a non-empty string (got {})",
                            i + 1,
                            item.type_name()
                        ),
                        "Write each command as one string item of the list.",
                    );
                }
            }
        }
        Kind::Str { .. } => findings.warning(
            rule,
            path,
            node,
            format!("{path} should be a list of commands"),
            "Write it as a list: one `- command` per line.",
        ),
        Kind::Null => {}
        _ => findings.error(
            rule,
            path,
            node,
            format!(
                "{path} must be a list of commands (got {})",
                node.type_name()
            ),
            "Write it as a list: one `- command` per line.",
        ),
    }
}

fn valid_env_key(key: &str) -> bool {
    !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// An env map (`envVariables`, `envSecrets`): keys `[A-Za-z0-9_]+`, scalar values.
pub fn check_env_map(node: &Node, path: &str, rule: &'static str, findings: &mut Findings) {
    let Some(entries) = node.entries() else {
        if !matches!(node.kind, Kind::Null) {
            findings.error(
                rule,
                path,
                node,
                format!(
                    "{path} must be a mapping of KEY: value (got {})",
                    node.type_name()
                ),
                "Write one `KEY: value` per line.",
            );
        }
        return;
    };
    for (key, value) in entries {
        let name = key.as_scalar_string().unwrap_or_default();
        let here = join(path, &name);
        if !valid_env_key(&name) {
            findings.error(
                rule,
                &here,
                key,
                format!("Invalid variable name `{name}`"),
                "Use letters, digits and underscores only.",
            );
        }
        if name.to_ascii_uppercase().starts_with("ZEROPS_") {
            findings.warning(
                rule,
                &here,
                key,
                format!("`{name}` starts with ZEROPS_, which the platform reserves"),
                "Rename the variable.",
            );
        }
        match &value.kind {
            Kind::Seq(_) | Kind::Map(_) => findings.error(
                rule,
                &here,
                value,
                format!(
                    "The value of `{name}` must be a single value (got {})",
                    value.type_name()
                ),
                "Quote structured values as one string.",
            ),
            Kind::Null => findings.warning(
                rule,
                &here,
                value,
                format!("`{name}` has no value"),
                "Give it a value or remove it; an empty string is written as \"\".",
            ),
            Kind::Str { value: text, .. } => check_references(text, &here, value, findings),
            _ => {}
        }
    }
}

/// `${...}` references must be closed.
pub fn check_references(text: &str, path: &str, at: &Node, findings: &mut Findings) {
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        match rest[start..].find('}') {
            Some(end) => {
                let inner = &rest[start + 2..start + end];
                if inner.is_empty() || !inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    findings.warning(
                        "Z36",
                        path,
                        at,
                        format!("`${{{inner}}}` is not a valid variable reference"),
                        "References look like ${name} or ${hostname_name}.",
                    );
                }
                rest = &rest[start + end + 1..];
            }
            None => {
                findings.warning(
                    "Z36",
                    path,
                    at,
                    "A `${` reference is not closed",
                    "Close it with `}`: ${hostname_name}.",
                );
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_suggestions() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("buildCommand", "buildCommands"), 1);
        assert_eq!(
            closest("buildComands", ["buildCommands", "base", "cache"])[0],
            "buildCommands"
        );
        assert!(
            suggest("deployfiles", &["deployFiles", "base"])
                .starts_with("Did you mean `deployFiles`")
        );
        assert!(closest("zzzzzz", ["base", "os"]).is_empty());
    }
}
