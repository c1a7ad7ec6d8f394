//! Checks tool arguments against the tool's input schema before the handler runs, so a
//! model that sent the wrong shape gets a message naming the field and what was expected.
//!
//! Only the JSON Schema keywords our tools use are understood: `type` (one or a list),
//! `properties`, `required`, `additionalProperties`, `enum`, `minimum`, `maximum`,
//! `minLength`, `maxLength`, `items`, `minItems`, `maxItems`. Clients and models are
//! sloppy in predictable ways, so a few coercions are applied first: numbers and
//! booleans sent as strings, scalars where a string is expected, a lone string where a
//! list of strings is expected, and `null` for an optional argument (treated as absent), as
//! is a blank string for an optional argument limited to an `enum` without it; an `enum`
//! word in other letter case counts as that word.

use serde_json::{Map, Value};

/// Why the arguments were rejected: one line per problem, each naming its field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentError {
    pub problems: Vec<String>,
    /// The top-level argument each problem is about, in the same order.
    pub fields: Vec<String>,
}

/// Collected problems, each with the path it concerns.
#[derive(Default)]
struct Problems(Vec<(String, String)>);

impl Problems {
    fn add(&mut self, path: &str, message: String) {
        self.0.push((path.to_owned(), message));
    }
}

/// `filter.since` and `variables[2]` both belong to their top-level argument.
fn top_level(path: &str) -> String {
    path.split(['.', '[']).next().unwrap_or("").to_owned()
}

impl std::fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.problems.join("; "))
    }
}

/// Validates (and coerces) `arguments` against `schema`, returning the cleaned arguments.
pub fn validate(schema: &Value, arguments: Value) -> Result<Value, ArgumentError> {
    let mut problems = Problems::default();
    let cleaned = check(schema, arguments, "", &mut problems);
    if problems.0.is_empty() {
        Ok(cleaned)
    } else {
        Err(ArgumentError {
            fields: problems.0.iter().map(|(path, _)| top_level(path)).collect(),
            problems: problems.0.into_iter().map(|(_, message)| message).collect(),
        })
    }
}

fn types_of(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn label(path: &str) -> String {
    if path.is_empty() {
        "arguments".to_owned()
    } else {
        format!("`{path}`")
    }
}

fn describe(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        let cut: String = text.chars().take(37).collect();
        format!("{cut}...")
    } else {
        text
    }
}

fn check(schema: &Value, value: Value, path: &str, problems: &mut Problems) -> Value {
    let types = types_of(schema);
    let value = if types.is_empty() {
        value
    } else {
        match coerce(&types, value) {
            Ok(value) => value,
            Err(original) => {
                problems.add(
                    path,
                    format!(
                        "{} must be {} (got {})",
                        label(path),
                        expected_phrase(&types),
                        describe(&original)
                    ),
                );
                return original;
            }
        }
    };
    let allowed = schema.get("enum").and_then(Value::as_array);
    // An allowed word in other letter case ("ERROR", "Restart") is that word.
    let value = match (allowed, &value) {
        (Some(allowed), Value::String(text)) if !allowed.contains(&value) => allowed
            .iter()
            .find(|a| {
                a.as_str()
                    .is_some_and(|a| a.eq_ignore_ascii_case(text.trim()))
            })
            .cloned()
            .unwrap_or(value),
        _ => value,
    };
    if let Some(allowed) = allowed
        && !allowed.contains(&value)
    {
        let names: Vec<String> = allowed
            .iter()
            .map(|v| v.as_str().map_or(v.to_string(), str::to_owned))
            .collect();
        problems.add(
            path,
            format!(
                "{} must be one of: {} (got {})",
                label(path),
                names.join(", "),
                describe(&value)
            ),
        );
        return value;
    }
    match value {
        Value::Object(map) => Value::Object(check_object(schema, map, path, problems)),
        Value::Array(items) => Value::Array(check_array(schema, items, path, problems)),
        Value::Number(ref n) => {
            check_range(schema, n.as_f64().unwrap_or(0.0), path, problems);
            value
        }
        Value::String(ref s) => {
            check_length(schema, s.chars().count(), path, problems);
            value
        }
        other => other,
    }
}

fn expected_phrase(types: &[&str]) -> String {
    let words: Vec<&str> = types
        .iter()
        .map(|t| match *t {
            "object" => "an object",
            "array" => "a list",
            "string" => "a string",
            "integer" => "an integer",
            "number" => "a number",
            "boolean" => "a boolean (true or false)",
            "null" => "null",
            _ => "a valid value",
        })
        .collect();
    words.join(" or ")
}

fn matches_type(kind: &str, value: &Value) -> bool {
    match kind {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "integer" => {
            value.is_i64()
                || value.is_u64()
                || value
                    .as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
        }
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        _ => true,
    }
}

/// Returns the value unchanged if it already fits, a converted value if a harmless
/// coercion exists, or the original back as the error.
fn coerce(types: &[&str], value: Value) -> Result<Value, Value> {
    if types.iter().any(|t| matches_type(t, &value)) {
        if types.contains(&"integer") && !types.contains(&"number") && value.is_f64() {
            // 3.0 sent for an integer: make it 3.
            let f = value.as_f64().unwrap_or(0.0);
            return Ok(Value::from(f as i64));
        }
        return Ok(value);
    }
    for kind in types {
        let converted = match (*kind, &value) {
            ("integer", Value::String(s)) => s.trim().parse::<i64>().ok().map(Value::from),
            ("number", Value::String(s)) => s
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number)),
            ("boolean", Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            ("string", Value::Number(n)) => Some(Value::String(n.to_string())),
            ("string", Value::Bool(b)) => Some(Value::String(b.to_string())),
            ("array", Value::String(s)) => {
                let trimmed = s.trim();
                match serde_json::from_str::<Value>(trimmed) {
                    Ok(list @ Value::Array(_)) if trimmed.starts_with('[') => Some(list),
                    _ => Some(Value::Array(vec![value.clone()])),
                }
            }
            ("object", Value::String(s)) if s.trim().starts_with('{') => {
                serde_json::from_str::<Value>(s.trim())
                    .ok()
                    .filter(Value::is_object)
            }
            _ => None,
        };
        if let Some(converted) = converted {
            return Ok(converted);
        }
    }
    Err(value)
}

/// Whether an optional argument was sent without a value, and so counts as not sent:
/// `null` (unless the schema allows null), or a blank string where the schema lists the
/// allowed values and the blank is not one of them. Clients fill unused fields with ""
/// (`"type": ""` for "detect it"); rejecting that as not in the list helps nobody.
fn sent_empty(value: &Value, property: Option<&Value>) -> bool {
    match value {
        Value::Null => property.is_none_or(|p| !types_of(p).contains(&"null")),
        Value::String(s) if s.trim().is_empty() => property
            .and_then(|p| p.get("enum"))
            .and_then(Value::as_array)
            .is_some_and(|allowed| !allowed.contains(value)),
        _ => false,
    }
}

fn check_object(
    schema: &Value,
    mut map: Map<String, Value>,
    path: &str,
    problems: &mut Problems,
) -> Map<String, Value> {
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    map.retain(|key, value| {
        required.contains(&key.as_str()) || !sent_empty(value, properties.get(key))
    });
    let join = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    for key in &required {
        if !map.contains_key(*key) {
            problems.add(
                &join(key),
                format!("missing required argument `{}`", join(key)),
            );
        }
    }
    let additional = schema.get("additionalProperties");
    let mut out = Map::new();
    for (key, value) in map {
        match properties.get(&key) {
            Some(property) => {
                let cleaned = check(property, value, &join(&key), problems);
                out.insert(key, cleaned);
            }
            None => match additional {
                Some(Value::Bool(false)) => {
                    let mut known: Vec<&str> = properties.keys().map(String::as_str).collect();
                    crate::order::sort(&mut known);
                    let hint = if known.is_empty() {
                        "this tool takes no arguments".to_owned()
                    } else {
                        format!("expected one of: {}", known.join(", "))
                    };
                    problems.add(
                        &join(&key),
                        format!("unknown argument `{}`; {hint}", join(&key)),
                    );
                }
                Some(extra @ Value::Object(_)) => {
                    let cleaned = check(extra, value, &join(&key), problems);
                    out.insert(key, cleaned);
                }
                _ => {
                    out.insert(key, value);
                }
            },
        }
    }
    out
}

fn check_array(
    schema: &Value,
    items: Vec<Value>,
    path: &str,
    problems: &mut Problems,
) -> Vec<Value> {
    let count = items.len() as f64;
    if let Some(min) = schema.get("minItems").and_then(Value::as_f64)
        && count < min
    {
        problems.add(
            path,
            format!("{} needs at least {min} item(s)", label(path)),
        );
    }
    if let Some(max) = schema.get("maxItems").and_then(Value::as_f64)
        && count > max
    {
        problems.add(path, format!("{} takes at most {max} item(s)", label(path)));
    }
    match schema.get("items") {
        Some(item_schema) => items
            .into_iter()
            .enumerate()
            .map(|(i, item)| check(item_schema, item, &format!("{path}[{i}]"), problems))
            .collect(),
        None => items,
    }
}

fn check_range(schema: &Value, n: f64, path: &str, problems: &mut Problems) {
    let min = schema.get("minimum").and_then(Value::as_f64);
    let max = schema.get("maximum").and_then(Value::as_f64);
    let out_of_range = min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m);
    if out_of_range {
        let range = match (min, max) {
            (Some(lo), Some(hi)) => format!("between {lo} and {hi}"),
            (Some(lo), None) => format!("at least {lo}"),
            (None, Some(hi)) => format!("at most {hi}"),
            (None, None) => unreachable!("out of range needs a bound"),
        };
        problems.add(path, format!("{} must be {range} (got {n})", label(path)));
    }
}

fn check_length(schema: &Value, len: usize, path: &str, problems: &mut Problems) {
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
        && (len as u64) < min
    {
        let what = if min == 1 {
            "must not be empty".to_owned()
        } else {
            format!("needs at least {min} characters")
        };
        problems.add(path, format!("{} {what}", label(path)));
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
        && (len as u64) > max
    {
        problems.add(
            path,
            format!("{} takes at most {max} characters", label(path)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1},
                "limit": {"type": "integer", "minimum": 1, "maximum": 20},
                "deep": {"type": "boolean"},
                "ratio": {"type": "number"},
                "action": {"type": "string", "enum": ["start", "stop"]},
                "variables": {"type": "array", "items": {"type": "string"}},
                "filter": {"type": "object", "properties": {"since": {"type": "string"}}, "additionalProperties": false}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    fn problems(args: Value) -> Vec<String> {
        validate(&schema(), args).unwrap_err().problems
    }

    #[test]
    fn accepts_valid_arguments_unchanged() {
        let args = json!({"query": "pg", "limit": 3, "deep": true, "action": "stop", "variables": ["A=1"]});
        assert_eq!(validate(&schema(), args.clone()).unwrap(), args);
    }

    #[test]
    fn coerces_strings_scalars_and_nulls() {
        let cleaned = validate(
            &schema(),
            json!({"query": 42, "limit": " 7 ", "deep": "TRUE", "ratio": "0.5", "variables": "A=1", "action": null}),
        )
        .unwrap();
        assert_eq!(
            cleaned,
            json!({"query": "42", "limit": 7, "deep": true, "ratio": 0.5, "variables": ["A=1"]})
        );
        let cleaned = validate(
            &schema(),
            json!({"query": "x", "variables": "[\"A=1\",\"B=2\"]", "limit": 4.0}),
        )
        .unwrap();
        assert_eq!(cleaned["variables"], json!(["A=1", "B=2"]));
        assert_eq!(cleaned["limit"], json!(4));
    }

    #[test]
    fn enum_words_match_in_any_letter_case() {
        let schema = json!({
            "type": "object",
            "properties": {"action": {"type": "string", "enum": ["start", "stop"]}},
            "additionalProperties": false
        });
        let got = validate(&schema, json!({"action": " STOP "})).unwrap();
        assert_eq!(got, json!({"action": "stop"}));
        assert!(validate(&schema, json!({"action": "halt"})).is_err());
    }

    #[test]
    fn a_blank_optional_enum_argument_counts_as_not_sent() {
        for blank in ["", "  "] {
            let cleaned = validate(&schema(), json!({"query": "x", "action": blank})).unwrap();
            assert_eq!(cleaned, json!({"query": "x"}));
        }
        // Still an error where the argument is required, or where it has no list.
        let strict = json!({
            "type": "object",
            "properties": {"action": {"type": "string", "enum": ["start", "stop"]}},
            "required": ["action"]
        });
        assert_eq!(
            validate(&strict, json!({"action": ""}))
                .unwrap_err()
                .problems,
            vec!["`action` must be one of: start, stop (got \"\")"]
        );
        let kept = json!({"query": "x", "filter": {"since": ""}});
        assert_eq!(validate(&schema(), kept.clone()).unwrap(), kept);
    }

    #[test]
    fn names_the_field_and_the_expectation() {
        assert_eq!(
            problems(json!({})),
            vec!["missing required argument `query`"]
        );
        assert_eq!(
            problems(json!({"query": "x", "limit": "many"})),
            vec!["`limit` must be an integer (got \"many\")"]
        );
        assert_eq!(
            problems(json!({"query": "x", "limit": 50})),
            vec!["`limit` must be between 1 and 20 (got 50)"]
        );
        assert_eq!(
            problems(json!({"query": ""})),
            vec!["`query` must not be empty"]
        );
        assert_eq!(
            problems(json!({"query": "x", "action": "halt"})),
            vec!["`action` must be one of: start, stop (got \"halt\")"]
        );
        let unknown = problems(json!({"query": "x", "qurey": 1}));
        assert!(
            unknown[0].starts_with("unknown argument `qurey`; expected one of: action, deep"),
            "{unknown:?}"
        );
        assert_eq!(
            problems(json!({"query": "x", "filter": {"since": 3, "x": 1}})),
            vec![
                "unknown argument `filter.x`; this tool takes no arguments"
                    .replace("this tool takes no arguments", "expected one of: since")
            ]
        );
        assert_eq!(
            problems(json!({"query": "x", "variables": [1, {"a": 1}]})),
            vec!["`variables[1]` must be a string (got {\"a\":1})"]
        );
        assert_eq!(
            validate(&schema(), json!([1])).unwrap_err().problems,
            vec!["arguments must be an object (got [1])"]
        );
    }

    #[test]
    fn several_problems_are_all_reported_with_their_fields() {
        let err = validate(
            &schema(),
            json!({"limit": 0, "deep": "maybe", "filter": {"x": 1}}),
        )
        .unwrap_err();
        assert_eq!(err.problems.len(), 4, "{err:?}");
        assert_eq!(err.fields, vec!["query", "deep", "filter", "limit"]);
    }
}
