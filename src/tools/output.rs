//! Result conventions shared by all twelve tools: successes are JSON mirrored as
//! structured content, errors are JSON `{code, error, suggestion}` with `isError`, and no
//! result grows past about 80 KB of text (hosts reject or silently cut bigger ones).

use crate::json;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::mcp::ToolOutput;

/// The most text a result may carry.
pub const MAX_RESULT_BYTES: usize = 80 * 1024;

/// The most an error's message or suggestion may carry: enough for any real explanation,
/// not for a megabyte argument quoted back.
const MAX_ERROR_TEXT: usize = 2048;

/// A failure as the agent sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    /// A stable code such as `SERVICE_NOT_FOUND`.
    pub code: String,
    pub message: String,
    pub suggestion: String,
    /// Extra members (`apiCode`, `apiMeta`, `failReason`, ...).
    pub extra: Map<String, Value>,
}

impl ToolError {
    pub fn new(code: &str, message: impl Into<String>, suggestion: impl Into<String>) -> ToolError {
        ToolError {
            code: code.to_owned(),
            message: message.into(),
            suggestion: suggestion.into(),
            extra: Map::new(),
        }
    }

    pub fn with(mut self, key: &str, value: Value) -> ToolError {
        if !value.is_null() {
            self.extra.insert(key.to_owned(), value);
        }
        self
    }

    pub fn to_json(&self) -> Value {
        let mut body = Map::new();
        body.insert("code".into(), json!(self.code));
        body.insert("error".into(), json!(self.message));
        body.insert("suggestion".into(), json!(self.suggestion));
        for (key, value) in &self.extra {
            body.insert(key.clone(), value.clone());
        }
        Value::Object(body)
    }

    /// The error as a tool result. A message or suggestion that quotes a huge argument
    /// back is cut to [`MAX_ERROR_TEXT`] bytes, and the whole body to the result limit.
    pub fn into_output(mut self) -> ToolOutput {
        for text in [&mut self.message, &mut self.suggestion] {
            if text.len() > MAX_ERROR_TEXT {
                let mut cut = MAX_ERROR_TEXT;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                let dropped = text.len() - cut;
                text.truncate(cut);
                text.push_str(&format!("[... {dropped} bytes cut]"));
            }
        }
        ToolOutput::error_json(&fit(self.to_json(), MAX_RESULT_BYTES, Keep::Head, ""))
    }
}

/// Which end of a list to keep when it has to be cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Keep the first items (lists ordered most important first).
    Head,
    /// Keep the last items (logs, where the newest are last).
    Tail,
}

/// A success result, cut to [`MAX_RESULT_BYTES`] if needed. `hint` tells the agent how to
/// ask for less (e.g. "lower `limit` or set `since`").
pub fn success(value: Value, keep: Keep, hint: &str) -> ToolOutput {
    // Almost every result fits: serialise once and keep that text.
    let mut text = String::new();
    crate::json_string::push_json_value(&mut text, &value);
    if text.len() <= MAX_RESULT_BYTES {
        return ToolOutput::json_text(text);
    }
    ToolOutput::json(fit(value, MAX_RESULT_BYTES, keep, hint))
}

/// [`success`] for a result type: written straight to text when it fits, so no `Value`
/// is built (the common case); through a `Value` and [`fit`] when it must be cut. Declare
/// `T`'s fields in the sorted order of their JSON names: both paths then write the keys
/// in the same order, as every other tool's results have them.
pub fn success_of<T: Serialize>(result: &T, keep: Keep, hint: &str) -> ToolOutput {
    let encoded = serde_json::to_string(result).and_then(|text| {
        if text.len() <= MAX_RESULT_BYTES {
            Ok(ToolOutput::json_text(text))
        } else {
            serde_json::to_value(result).map(|value| success(value, keep, hint))
        }
    });
    encoded.unwrap_or_else(|err| {
        ToolError::new(
            "UNKNOWN",
            format!("Could not encode the result: {err}"),
            "Retry the call.",
        )
        .into_output()
    })
}

/// [`success_of`] for a result that writes its own compact JSON: `json` must be the bytes
/// serde_json writes for `result`, and `literal`, if given, those bytes as a JSON string
/// literal. Used as they are when they fit; otherwise `result` is cut down as usual.
pub fn success_of_json<T: Serialize>(
    (json, literal): (String, Option<String>),
    result: &T,
    keep: Keep,
    hint: &str,
) -> ToolOutput {
    if json.len() <= MAX_RESULT_BYTES {
        match literal {
            Some(literal) => ToolOutput::json_text_with_literal(json, literal),
            None => ToolOutput::json_text(json),
        }
    } else {
        success_of(result, keep, hint)
    }
}

/// Shrinks an object until its compact JSON fits `limit` bytes: first by dropping items
/// of its largest list, then by shortening its longest strings. What was cut is recorded
/// under `truncated` so the agent knows the result is partial.
pub fn fit(value: Value, limit: usize, keep: Keep, hint: &str) -> Value {
    let Value::Object(mut map) = value else {
        return value;
    };
    if size(&map) <= limit {
        return Value::Object(map);
    }
    let mut notes: Vec<String> = Vec::new();
    // Room for the note itself.
    let budget = limit.saturating_sub(600);
    // A string longer than a quarter of the budget (one variable's value, one document)
    // is shortened first, so that it cannot take the whole list it sits in with it.
    let longest_allowed = budget / 4;
    shorten_strings(&mut map, budget, &mut notes, &|len, _| {
        (len > longest_allowed).then_some(longest_allowed)
    });
    // Lists next, largest first, wherever they sit (`project.envs` as much as a top-level
    // `services`): each is cut to what still fits beside the rest. Every item is
    // serialised once to learn its size (the kept count follows from the sums), so a list
    // of 200 000 findings costs one pass, not one serialisation per step of a search.
    'lists: while size(&map) > budget {
        let Some(mut path) = largest_list(&map) else {
            break;
        };
        let (items, kept) = loop {
            let Some(Value::Array(list)) = node_at(&mut map, &path) else {
                break 'lists;
            };
            let items = std::mem::take(list);
            let room = budget.saturating_sub(size(&map));
            let kept = fitting_count(&items, room, keep);
            // Cutting a list to nothing would drop even the item asked for (the one
            // service of a filtered discover, with its huge variables): cut the largest
            // list inside the item that would be kept first instead.
            let first = if keep == Keep::Head {
                0
            } else {
                items.len().saturating_sub(1)
            };
            let inner = match items.get(first) {
                Some(Value::Object(item)) if kept == 0 => largest_list(item),
                _ => None,
            };
            let Some(inner) = inner else {
                break (items, kept);
            };
            if let Some(Value::Array(list)) = node_at(&mut map, &path) {
                *list = items;
            }
            path.push(first.to_string());
            path.extend(inner);
        };
        let total = items.len();
        let items: Vec<Value> = match keep {
            Keep::Head => items.into_iter().take(kept).collect(),
            Keep::Tail => items.into_iter().skip(total - kept).collect(),
        };
        if let Some(Value::Array(list)) = node_at(&mut map, &path) {
            *list = items;
        }
        let which = if keep == Keep::Tail { "oldest" } else { "last" };
        notes.push(format!(
            "dropped the {which} {} of {total} items of `{}`",
            total - kept,
            path.join(".")
        ));
    }
    // Then the longest strings, each to what the excess leaves of it (a string of 64
    // bytes or less is mostly the cut marker once shortened: nothing to gain).
    for _ in 0..3 {
        if size(&map) <= budget {
            break;
        }
        shorten_strings(&mut map, budget, &mut notes, &|len, excess| {
            (len > 64).then(|| len.saturating_sub(excess + 64))
        });
    }
    // Whatever is still too big (a map of thousands of small members, say) is left out
    // whole, largest member first, so the result always fits.
    let mut left_out = Vec::new();
    let mut current = size(&map);
    if current > budget {
        let mut members: Vec<(String, usize)> = map
            .iter()
            .map(|(key, value)| (key.clone(), key.len() + 4 + encoded_len(value)))
            .collect();
        crate::order::sort_by(&mut members, |a, b| b.1.cmp(&a.1));
        for (key, len) in members {
            if current <= budget {
                break;
            }
            map.remove(&key);
            current = current.saturating_sub(len);
            left_out.push(key);
        }
        // `"key":value,` is what a member costs, but for the comma of the last one.
        while size(&map) > budget {
            let Some(key) = map.keys().next().cloned() else {
                break;
            };
            map.remove(&key);
            left_out.push(key);
        }
    }
    match left_out.len() {
        0 => {}
        1..=8 => notes.extend(left_out.iter().map(|key| format!("left out `{key}`"))),
        n => notes.push(format!("left out {n} members, `{}` first", left_out[0])),
    }
    let mut truncated =
        json!({ "reason": format!("the full result exceeds {} KB", limit / 1024), "cut": notes });
    if !hint.is_empty() {
        truncated["hint"] = json!(hint);
    }
    map.insert("truncated".into(), truncated);
    Value::Object(map)
}

fn size(map: &Map<String, Value>) -> usize {
    encoded_len(map)
}

/// How many items, taken from the end `keep` names, fit in `room` bytes of compact JSON
/// (their own text plus a comma between two).
fn fitting_count(items: &[Value], room: usize, keep: Keep) -> usize {
    let sizes = items
        .iter()
        .map(|item| serde_json::to_string(item).map_or(0, |s| s.len()));
    let in_order: Box<dyn Iterator<Item = usize>> = match keep {
        Keep::Head => Box::new(sizes),
        Keep::Tail => Box::new(sizes.rev()),
    };
    let mut used = 0usize;
    let mut kept = 0usize;
    for len in in_order {
        let add = len + usize::from(kept > 0);
        if used + add > room {
            break;
        }
        used += add;
        kept += 1;
    }
    kept
}

/// The path of the non-empty list with the longest JSON anywhere in `map` (lists inside
/// list items included).
fn largest_list(map: &Map<String, Value>) -> Option<Vec<String>> {
    fn visit(value: &Value, path: &mut Vec<String>, best: &mut Option<(Vec<String>, usize)>) {
        match value {
            Value::Array(items) => {
                if items.is_empty() {
                    return;
                }
                let len = encoded_len(value);
                if best.as_ref().is_none_or(|(_, most)| len > *most) {
                    *best = Some((path.clone(), len));
                }
                for (i, item) in items.iter().enumerate() {
                    path.push(i.to_string());
                    visit(item, path, best);
                    path.pop();
                }
            }
            Value::Object(members) => {
                for (key, member) in members {
                    path.push(key.clone());
                    visit(member, path, best);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut best = None;
    let mut path = Vec::new();
    for (key, member) in map {
        path.push(key.clone());
        visit(member, &mut path, &mut best);
        path.pop();
    }
    best.map(|(path, _)| path)
}

/// The node at `path` (object keys and list indexes), if there is one.
fn node_at<'a>(map: &'a mut Map<String, Value>, path: &[String]) -> Option<&'a mut Value> {
    let (first, rest) = path.split_first()?;
    let mut node = map.get_mut(first)?;
    for part in rest {
        node = match node {
            Value::Object(members) => members.get_mut(part)?,
            Value::Array(items) => items.get_mut(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(node)
}

/// The length of `value`'s compact JSON, counted without keeping the text.
fn encoded_len<T: Serialize + ?Sized>(value: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, value).map_or(0, |()| count.0)
}

/// Shortens strings, longest first, while the result is over `budget`: `target(len,
/// excess)` says how short a string of `len` bytes becomes (`None`: keep it, and every
/// shorter one). The size is estimated as strings are cut, so many strings cost one pass
/// and one serialisation, not one of each per string.
#[inline(never)]
fn shorten_strings(
    map: &mut Map<String, Value>,
    budget: usize,
    notes: &mut Vec<String>,
    target: &dyn Fn(usize, usize) -> Option<usize>,
) {
    let mut current = size(map);
    if current <= budget {
        return;
    }
    let mut strings = Vec::new();
    for (key, member) in map.iter() {
        collect_strings(member, &mut vec![key.clone()], &mut strings);
    }
    crate::order::sort_by(&mut strings, |a, b| b.1.cmp(&a.1));
    let mut shortened = Vec::new();
    for (path, len) in strings {
        if current <= budget {
            break;
        }
        let Some(to) = target(len, current - budget) else {
            break;
        };
        let saved = shorten_at(map, &path, to);
        current = current.saturating_sub(saved);
        shortened.push((path.join("."), to));
    }
    // A long list of these notes would itself eat the room it frees.
    if shortened.len() > 8 {
        let most = shortened.iter().map(|(_, to)| *to).max().unwrap_or(0);
        notes.push(format!(
            "shortened {} strings to at most {most} bytes each",
            shortened.len()
        ));
    } else {
        notes.extend(
            shortened
                .into_iter()
                .map(|(path, to)| format!("shortened `{path}` to {to} bytes")),
        );
    }
}

/// Every string in `value` with its path (as [`node_at`] takes it) and byte length.
fn collect_strings(value: &Value, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, usize)>) {
    match value {
        Value::String(s) => out.push((path.clone(), s.len())),
        Value::Object(members) => {
            for (key, member) in members {
                path.push(key.clone());
                collect_strings(member, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                collect_strings(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Cuts the string at `path` to `target` bytes (on a char boundary) plus a marker that
/// says how much went, returning about how many bytes of JSON that saved.
fn shorten_at(map: &mut Map<String, Value>, path: &[String], target: usize) -> usize {
    let Some(Value::String(s)) = node_at(map, path) else {
        return 0;
    };
    let before = s.len();
    let mut cut = target.min(s.len());
    while cut > 0 && !s.is_char_boundary(cut) {
        cut -= 1;
    }
    let dropped = s.len() - cut;
    s.truncate(cut);
    s.push_str(&format!("\n[... {dropped} bytes cut]"));
    // The cut text was at least as long escaped as raw; the marker's newline is two bytes
    // escaped, one raw.
    before.saturating_sub(s.len() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_json_with_code_error_and_suggestion() {
        let out = ToolError::new(
            "SERVICE_NOT_FOUND",
            "Service 'x' not found",
            "Available services: api, db",
        )
        .with("apiCode", json!("serviceStackNotFound"))
        .with("failReason", Value::Null)
        .into_output();
        assert!(out.is_error);
        let body: Value = serde_json::from_str(&out.text).unwrap();
        assert_eq!(body["code"], "SERVICE_NOT_FOUND");
        assert_eq!(body["suggestion"], "Available services: api, db");
        assert_eq!(body["apiCode"], "serviceStackNotFound");
        assert!(body.get("failReason").is_none());
    }

    /// An error that quotes a huge argument back stays small, cut on a char boundary.
    #[test]
    fn errors_quoting_huge_values_are_cut() {
        let huge = "é".repeat(500_000);
        let out = ToolError::new(
            "INVALID_PARAMETER",
            format!("Bad value '{huge}'"),
            "Fix it.",
        )
        .with("apiMeta", json!([huge]))
        .into_output();
        assert!(out.is_error);
        assert!(out.text.len() <= MAX_RESULT_BYTES, "{}", out.text.len());
        let body: Value = serde_json::from_str(&out.text).unwrap();
        let error = body["error"].as_str().unwrap();
        assert!(
            error.starts_with("Bad value 'é") && error.ends_with("bytes cut]"),
            "{error}"
        );
        assert!(error.len() < MAX_ERROR_TEXT + 40);
        assert_eq!(body["suggestion"], "Fix it.");
    }

    #[test]
    fn self_written_json_is_used_as_is_unless_it_is_too_big() {
        let small = json!({"b": 1, "a": "x"});
        let out = success_of_json((small.to_string(), None), &small, Keep::Head, "h");
        assert_eq!(out.text, small.to_string());
        assert!(out.structured && !out.is_error && out.literal().is_none());
        // A literal written beside the JSON is kept for the text block.
        let literal = serde_json::to_string(&small.to_string()).unwrap();
        let out = success_of_json(
            (small.to_string(), Some(literal.clone())),
            &small,
            Keep::Head,
            "h",
        );
        assert_eq!(out.literal(), Some(literal.as_str()));
        // Too big: cut down like any other result, and the cut is recorded.
        let big = json!({"items": vec!["y".repeat(100); 2000]});
        let out = success_of_json((big.to_string(), None), &big, Keep::Head, "lower `limit`");
        assert!(out.text.len() <= MAX_RESULT_BYTES, "{}", out.text.len());
        let body: Value = serde_json::from_str(&out.text).unwrap();
        assert_eq!(body["truncated"]["hint"], "lower `limit`");
        // The cut text is escaped afresh: a literal of the uncut JSON would not match it.
        let literal = serde_json::to_string(&big.to_string()).unwrap();
        let out = success_of_json((big.to_string(), Some(literal)), &big, Keep::Head, "h");
        assert!(out.literal().is_none() && out.text.len() <= MAX_RESULT_BYTES);
    }

    #[test]
    fn small_results_are_untouched() {
        let value = json!({"items": [1, 2, 3]});
        assert_eq!(fit(value.clone(), 1000, Keep::Head, "h"), value);
    }

    #[test]
    fn long_lists_keep_the_requested_end_and_say_so() {
        let entries: Vec<Value> = (0..2000)
            .map(|i| json!({"n": i, "message": "x".repeat(40)}))
            .collect();
        let out = fit(
            json!({"entries": entries, "hasMore": false}),
            8 * 1024,
            Keep::Tail,
            "lower `limit`",
        );
        let text = out.to_string();
        assert!(text.len() <= 8 * 1024, "{}", text.len());
        let kept = out["entries"].as_array().unwrap();
        assert_eq!(kept.last().unwrap()["n"], 1999, "the newest entries stay");
        assert_eq!(out["truncated"]["hint"], "lower `limit`");
        assert!(
            out["truncated"]["cut"][0]
                .as_str()
                .unwrap()
                .contains("oldest")
        );
    }

    /// One item too big on its own (a filtered discover's one service, with huge variables)
    /// keeps its place; the list inside it is cut instead, from the requested end.
    #[test]
    fn a_single_item_too_big_is_cut_inside() {
        for keep in [Keep::Head, Keep::Tail] {
            let envs: Vec<Value> = (0..4)
                .map(|i| json!({"key": format!("BIG{i}"), "value": "v".repeat(30_000)}))
                .collect();
            let value = json!({"services": [{"hostname": "api", "envs": envs}]});
            let out = fit(value, MAX_RESULT_BYTES, keep, "h");
            assert!(out.to_string().len() <= MAX_RESULT_BYTES);
            let services = out["services"].as_array().unwrap();
            assert_eq!(services.len(), 1, "{}", out["truncated"]);
            assert_eq!(services[0]["hostname"], "api");
            let kept: Vec<&str> = services[0]["envs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["key"].as_str().unwrap())
                .collect();
            let expected: &[&str] = match keep {
                Keep::Head => &["BIG0", "BIG1", "BIG2"],
                Keep::Tail => &["BIG1", "BIG2", "BIG3"],
            };
            assert_eq!(kept, expected);
            let cut = out["truncated"]["cut"].to_string();
            assert!(cut.contains("items of `services.0.envs`"), "{cut}");
        }
    }

    /// The kept count is the largest that fits, for either end and items of mixed sizes;
    /// a list too big on its own is cut after the largest was emptied (a validator report
    /// has three lists).
    #[test]
    fn lists_keep_as_many_items_as_fit() {
        let items: Vec<Value> = (0..3000)
            .map(|i| json!({"n": i, "text": "z".repeat(i * 7 % 90)}))
            .collect();
        for keep in [Keep::Head, Keep::Tail] {
            for limit in [2_000, 9_000, 50_000] {
                // (warnings kept in full, list cut) for a short and a long second list.
                for (warnings, cut) in [(20, "errors"), (1500, "warnings")] {
                    let value =
                        json!({"errors": items, "warnings": items[..warnings], "kind": "x"});
                    let out = fit(value, limit, keep, "h");
                    assert!(out.to_string().len() <= limit);
                    let mut bare = out.as_object().unwrap().clone();
                    bare.remove("truncated");
                    let budget = limit - 600;
                    assert!(size(&bare) <= budget);
                    let all = if cut == "errors" {
                        &items[..]
                    } else {
                        assert!(bare["errors"].as_array().unwrap().is_empty());
                        &items[..warnings]
                    };
                    let kept = bare[cut].as_array().unwrap().clone();
                    assert!(kept.len() < all.len());
                    let expected = match keep {
                        Keep::Head => &all[..kept.len()],
                        Keep::Tail => &all[all.len() - kept.len()..],
                    };
                    assert_eq!(kept, expected, "{cut}: the requested end, in order");
                    // One more item would not have fitted.
                    let next = match keep {
                        Keep::Head => all[kept.len()].clone(),
                        Keep::Tail => all[all.len() - kept.len() - 1].clone(),
                    };
                    let mut more = bare.clone();
                    more[cut].as_array_mut().unwrap().push(next);
                    assert!(
                        size(&more) > budget,
                        "{cut}: {} kept, one more fits",
                        kept.len()
                    );
                }
            }
        }
    }

    /// One oversized value is shortened; the list it is in keeps every item.
    #[test]
    fn one_huge_string_does_not_take_its_list_with_it() {
        let vars = json!([
            {"key": "BIG", "value": "v".repeat(100_000)},
            {"key": "SMALL", "value": "1"},
            {"key": "hostname", "value": "web"}
        ]);
        let out = fit(
            json!({"vars": vars, "scope": "service"}),
            MAX_RESULT_BYTES,
            Keep::Head,
            "h",
        );
        assert!(out.to_string().len() <= MAX_RESULT_BYTES);
        let kept = out["vars"].as_array().unwrap();
        assert_eq!(kept.len(), 3, "{:?}", out["truncated"]);
        assert!(kept[0]["value"].as_str().unwrap().ends_with("bytes cut]"));
        assert_eq!(kept[1]["value"], "1");
        assert!(
            out["truncated"]["cut"][0]
                .as_str()
                .unwrap()
                .starts_with("shortened `vars.0.value`"),
            "{}",
            out["truncated"]
        );
    }

    #[test]
    fn huge_strings_are_cut_on_char_boundaries() {
        let out = fit(
            json!({"content": "é".repeat(50_000)}),
            4096,
            Keep::Head,
            "read the resource",
        );
        assert!(out.to_string().len() <= 4096);
        assert!(out["content"].as_str().unwrap().ends_with("bytes cut]"));
    }

    /// A list inside an object (discover's `project.envs`) is cut like a top-level one, and
    /// before a smaller top-level list.
    #[test]
    fn nested_lists_are_cut_where_they_are() {
        let envs: Vec<Value> = (0..30)
            .map(|i| json!({"key": format!("K{i}"), "value": "v".repeat(4000)}))
            .collect();
        let services: Vec<Value> = (0..5)
            .map(|i| json!({"hostname": format!("s{i}")}))
            .collect();
        let out = fit(
            json!({"project": {"name": "p", "envs": envs}, "services": services}),
            MAX_RESULT_BYTES,
            Keep::Head,
            "leave out includeEnvs",
        );
        assert!(
            out.to_string().len() <= MAX_RESULT_BYTES,
            "{}",
            out.to_string().len()
        );
        assert_eq!(
            out["services"].as_array().unwrap().len(),
            5,
            "{}",
            out["truncated"]
        );
        let kept = out["project"]["envs"].as_array().unwrap();
        assert!(!kept.is_empty() && kept.len() < 30);
        assert_eq!(kept[0]["key"], "K0");
        assert!(
            out["truncated"]["cut"][0]
                .as_str()
                .unwrap()
                .contains("of 30 items of `project.envs`"),
            "{}",
            out["truncated"]
        );
    }

    /// However the bulk is spread, the result fits: many mid-sized strings outside any
    /// list, and a map of thousands of members.
    #[test]
    fn every_shape_ends_up_within_the_limit() {
        let mut strings = Map::new();
        for i in 0..400 {
            strings.insert(format!("k{i}"), json!("s".repeat(3000)));
        }
        let mut members = Map::new();
        for i in 0..20_000 {
            members.insert(format!("key{i}"), json!(i));
        }
        for value in [
            json!({"strings": strings}),
            json!({"members": members, "name": "x"}),
            Value::Object(strings.clone()),
            Value::Object(members.clone()),
        ] {
            let out = fit(value, 8 * 1024, Keep::Head, "h");
            assert!(
                out.to_string().len() <= 8 * 1024,
                "{}",
                out.to_string().len()
            );
            assert!(
                out["truncated"]["cut"]
                    .as_array()
                    .is_some_and(|c| !c.is_empty())
            );
        }
    }
}
