//! JSON-RPC 2.0 as MCP uses it: classifying one incoming line and writing replies.
//!
//! Ids and params stay as raw JSON text ([`RawValue`]) so an id comes back byte for byte as
//! it was sent (`7` stays a number, `"7"` a string, integers beyond 2^53 keep every digit).
//! Nothing here knows about MCP methods; that is `dispatch`'s job.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// Error codes we send. JSON-RPC's own, plus the MCP codes of spec §2.
pub mod code {
    /// Invalid JSON or UTF-8.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a request object, bad `jsonrpc`, non-string method, bad id, disallowed batch.
    pub const INVALID_REQUEST: i64 = -32600;
    /// Unknown method, unadvertised capability, or a method removed in the request's era.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Bad params, unknown tool, bad cursor, missing envelope keys.
    pub const INVALID_PARAMS: i64 = -32602;
    /// A fault of ours (a panicking handler); tool failures are results, not this.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Legacy-era resource not found.
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// Modern request needs a client capability it did not declare.
    pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
    /// Modern request names a protocol version we do not serve.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// A request id exactly as the client wrote it: a JSON string or integer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RequestId(Box<str>);

impl RequestId {
    /// Accepts the raw JSON of an `id` member; `None` for null, floats, objects, arrays and
    /// booleans, which MCP does not allow. A string with escapes is kept in the one form
    /// serde_json writes (`"\u0061b"` becomes `"ab"`, `"c\/d"` `"c/d"`): ids are equal by
    /// value, so a cancel must find its request however either was escaped.
    pub fn from_raw(raw: &RawValue) -> Option<RequestId> {
        let text = raw.get();
        let first = text.as_bytes().first().copied()?;
        match first {
            // (A lone surrogate, `"\ud800"`, is no Rust string: such an id stays as sent.)
            b'"' => {
                let canonical = text.contains('\\').then(|| {
                    serde_json::from_str::<String>(text)
                        .and_then(|value| serde_json::to_string(&value))
                        .ok()
                });
                Some(RequestId(
                    canonical
                        .flatten()
                        .map_or_else(|| text.into(), String::into_boxed_str),
                ))
            }
            b'-' | b'0'..=b'9' => (text[1..].bytes().all(|b| b.is_ascii_digit()) && text != "-")
                .then(|| RequestId(text.into())),
            _ => None,
        }
    }

    /// Builds an id from a JSON value.
    #[cfg(test)]
    pub fn from_value(value: &Value) -> Option<RequestId> {
        match value {
            Value::String(_) | Value::Number(_) => {
                let raw = RawValue::from_string(value.to_string()).ok()?;
                RequestId::from_raw(&raw)
            }
            _ => None,
        }
    }

    /// The id as JSON text, ready to splice into a reply.
    pub fn as_json(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The members of one message object, borrowed from the input line. `id: Some("null")`
/// means the member was present with a JSON null; `None` means it was absent.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// Wraps a present member (even JSON null) in `Some`, so absent and null differ.
fn present<'de, D>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    <&RawValue>::deserialize(deserializer).map(Some)
}

/// What one line of input turned out to be.
#[derive(Debug)]
pub enum Incoming {
    /// A request that must get exactly one reply (unless cancelled).
    Request(Request),
    /// A notification: never answered.
    Notification {
        method: String,
        /// `params.requestId` of a `notifications/cancelled` (see [`RequestId::from_raw`]).
        cancelled: Option<RequestId>,
    },
    /// A response object from the client; we send no requests, so it is dropped.
    ClientResponse,
    /// A JSON array: batch rules depend on the negotiated era, so the caller decides.
    Batch(Vec<Box<RawValue>>),
    /// Something to answer with an error right away.
    Invalid(ErrorReply),
}

/// A parsed request. `params` is `None` when absent or null.
#[derive(Debug)]
pub struct Request {
    pub id: RequestId,
    pub method: String,
    pub params: Option<Value>,
    /// `params._meta.progressToken` as JSON text, when it is a string or a number:
    /// progress notifications echo it exactly, big integers included.
    pub progress_token: Option<Box<str>>,
}

/// `params` member `path` as the client wrote it. Parsing into `Value` turns integers
/// beyond 64 bits into floats, and ids and tokens must come back exactly, so the raw text
/// is read again for the member alone.
fn raw_member(params: &RawValue, path: &[&str]) -> Option<Box<RawValue>> {
    let mut current = params.to_owned();
    for key in path {
        let mut members: std::collections::HashMap<String, Box<RawValue>> =
            serde_json::from_str(current.get()).ok()?;
        current = members.remove(*key)?;
    }
    Some(current)
}

/// The progress token: strings and 64-bit numbers as `Value` has them, anything else
/// numeric (a float, or an integer `Value` could not hold) from the raw text.
fn progress_token(raw: Option<&RawValue>, params: Option<&Value>) -> Option<Box<str>> {
    let token = params?.get("_meta")?.get("progressToken")?;
    match token {
        Value::String(_) => Some(token.to_string().into()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string().into()),
        Value::Number(_) => Some(raw_member(raw?, &["_meta", "progressToken"])?.get().into()),
        _ => None,
    }
}

/// An error reply waiting to be written.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorReply {
    pub id: Option<RequestId>,
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl ErrorReply {
    pub fn new(id: Option<RequestId>, code: i64, message: impl Into<String>) -> ErrorReply {
        ErrorReply {
            id,
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn with_data(mut self, data: Value) -> ErrorReply {
        self.data = Some(data);
        self
    }

    /// Serialises the reply as one line (without the trailing newline).
    pub fn to_line(&self) -> Vec<u8> {
        let id = self.id.as_ref().map_or("null", RequestId::as_json);
        let mut error = crate::json!({ "code": self.code, "message": self.message });
        if let Some(data) = &self.data {
            error["data"] = data.clone();
        }
        format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#).into_bytes()
    }
}

/// Serialises a success reply whose result is already JSON text.
pub fn result_line(id: &RequestId, result_json: &str) -> Vec<u8> {
    let mut line = Vec::with_capacity(result_json.len() + id.as_json().len() + 32);
    line.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    line.extend_from_slice(id.as_json().as_bytes());
    line.extend_from_slice(br#","result":"#);
    line.extend_from_slice(result_json.as_bytes());
    line.push(b'}');
    line
}

/// Serialises a notification as one line.
pub fn notification_line(method: &str, params: &Value) -> Vec<u8> {
    notification_line_raw(method, &params.to_string())
}

/// [`notification_line`] for params already written as JSON text.
pub fn notification_line_raw(method: &str, params_json: &str) -> Vec<u8> {
    let method = Value::String(method.to_owned());
    format!(r#"{{"jsonrpc":"2.0","method":{method},"params":{params_json}}}"#).into_bytes()
}

/// Classifies one line (already stripped of its newline and a trailing `\r`).
pub fn classify(line: &[u8]) -> Incoming {
    // Structs also deserialise from JSON arrays (field by position), so arrays and other
    // non-objects never reach the struct parser.
    let first = line.iter().find(|b| !b.is_ascii_whitespace()).copied();
    if first != Some(b'{') {
        return classify_non_object(line);
    }
    match serde_json::from_slice::<Envelope<'_>>(line) {
        // JSON text is UTF-8. The parser checks the strings it reads, but skips members it
        // does not know without looking inside them, so a line it took is checked whole.
        Ok(envelope) => match std::str::from_utf8(line) {
            Ok(_) => classify_envelope(envelope),
            Err(err) => Incoming::Invalid(ErrorReply::new(
                None,
                code::PARSE_ERROR,
                format!(
                    "Parse error: invalid UTF-8 at line 1 column {}",
                    err.valid_up_to() + 1
                ),
            )),
        },
        Err(err) => classify_failure(line, &err),
    }
}

/// Classifies one element of a batch, given as raw JSON.
pub fn classify_raw(raw: &RawValue) -> Incoming {
    classify(raw.get().as_bytes())
}

fn parse_error(err: &serde_json::Error) -> Incoming {
    Incoming::Invalid(ErrorReply::new(
        None,
        code::PARSE_ERROR,
        format!("Parse error: {err}"),
    ))
}

fn classify_non_object(line: &[u8]) -> Incoming {
    match serde_json::from_slice::<&RawValue>(line) {
        Err(err) => parse_error(&err),
        Ok(raw) if raw.get().starts_with('[') => {
            match serde_json::from_str::<Vec<Box<RawValue>>>(raw.get()) {
                Ok(items) => Incoming::Batch(items),
                Err(err) => parse_error(&err),
            }
        }
        Ok(_) => Incoming::Invalid(ErrorReply::new(
            None,
            code::INVALID_REQUEST,
            "Invalid request: a JSON-RPC message must be an object",
        )),
    }
}

fn classify_failure(line: &[u8], err: &serde_json::Error) -> Incoming {
    use serde_json::error::Category;
    match err.classify() {
        Category::Syntax | Category::Eof | Category::Io => parse_error(err),
        Category::Data => match serde_json::from_slice::<serde::de::IgnoredAny>(line) {
            Err(err) => parse_error(&err),
            // A valid object that still failed: duplicate members.
            Ok(_) => Incoming::Invalid(ErrorReply::new(
                None,
                code::INVALID_REQUEST,
                format!("Invalid request: {err}"),
            )),
        },
    }
}

fn classify_envelope(envelope: Envelope<'_>) -> Incoming {
    let id = envelope.id;
    let valid_id = id.and_then(RequestId::from_raw);
    if envelope.method.is_none() && (envelope.result.is_some() || envelope.error.is_some()) {
        return Incoming::ClientResponse;
    }
    if envelope.jsonrpc.map(RawValue::get) != Some(r#""2.0""#) {
        return Incoming::Invalid(ErrorReply::new(
            valid_id,
            code::INVALID_REQUEST,
            r#"Invalid request: "jsonrpc" must be "2.0""#,
        ));
    }
    let method = match envelope
        .method
        .map(|raw| serde_json::from_str::<String>(raw.get()))
    {
        Some(Ok(method)) => method,
        _ => {
            return Incoming::Invalid(ErrorReply::new(
                valid_id,
                code::INVALID_REQUEST,
                r#"Invalid request: "method" must be a string"#,
            ));
        }
    };
    let Some(raw_id) = id else {
        // The only notification that acts is a cancellation; it names a request by its
        // id (equal by value), so nothing else of its params is read.
        let cancelled = (method == "notifications/cancelled")
            .then(|| envelope.params.and_then(|p| raw_member(p, &["requestId"])))
            .flatten()
            .and_then(|raw| RequestId::from_raw(&raw));
        return Incoming::Notification { method, cancelled };
    };
    let params = match envelope.params {
        None => Ok(None),
        Some(raw) if raw.get() == "null" => Ok(None),
        Some(raw) if raw.get().starts_with('{') => parse_params(raw.get()).map(Some),
        Some(_) => Err(r#"Invalid params: "params" must be an object"#.to_owned()),
    };
    let Some(id) = valid_id else {
        let shown = if raw_id.get() == "null" {
            "null"
        } else {
            "not a string or integer"
        };
        return Incoming::Invalid(ErrorReply::new(
            None,
            code::INVALID_REQUEST,
            format!("Invalid request: the id is {shown}"),
        ));
    };
    match params {
        Ok(params) => {
            let progress_token = progress_token(envelope.params, params.as_ref());
            Incoming::Request(Request {
                id,
                method,
                params,
                progress_token,
            })
        }
        Err(message) => Incoming::Invalid(ErrorReply::new(Some(id), code::INVALID_PARAMS, message)),
    }
}

/// The id of a request whose line was too long to read, from the line's first bytes: the
/// value of the top-level `"id"` member, when it is there in full. Lets the error answer
/// the request instead of leaving the client waiting for it.
pub fn id_in_head(head: &[u8]) -> Option<RequestId> {
    let text = std::str::from_utf8(head)
        .or_else(|err| std::str::from_utf8(&head[..err.valid_up_to()]))
        .ok()?;
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    // Whether the next string at depth 1 is a member name.
    let mut expect_key = false;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let end = string_end(bytes, i)?;
                let is_id_key = depth == 1 && expect_key && &text[i..end] == "\"id\"";
                expect_key = false;
                i = end;
                if is_id_key {
                    let rest = text[i..].trim_start().strip_prefix(':')?.trim_start();
                    let value_end = match rest.as_bytes().first()? {
                        b'"' => string_end(rest.as_bytes(), 0)?,
                        _ => rest
                            .find(|c: char| !(c.is_ascii_digit() || c == '-'))
                            .filter(|&end| end > 0)?,
                    };
                    let raw = serde_json::from_str::<Box<RawValue>>(&rest[..value_end]).ok()?;
                    return RequestId::from_raw(&raw);
                }
                continue;
            }
            b'{' => {
                depth += 1;
                expect_key = depth == 1;
            }
            b'[' => depth += 1,
            b'}' | b']' => depth = depth.checked_sub(1)?,
            b',' => expect_key = depth == 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index just past the string that opens at `start` (a `"`), if it closes in `bytes`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Reads a request's `params` object. A lone UTF-16 surrogate escape (`"\ud800"`, which
/// JavaScript's `JSON.stringify` writes for a broken string) becomes U+FFFD instead of
/// failing the request; any other failure (a number out of range, nesting too deep) is
/// named, without a position that would point into `params` rather than the line.
fn parse_params(json: &str) -> Result<Value, String> {
    let failure = match serde_json::from_str::<Value>(json) {
        Ok(params) => return Ok(params),
        Err(err) => err,
    };
    if let Some(repaired) = without_lone_surrogates(json)
        && let Ok(params) = serde_json::from_str::<Value>(&repaired)
    {
        return Ok(params);
    }
    let text = failure.to_string();
    let position = format!(" at line {} column {}", failure.line(), failure.column());
    let reason = text.strip_suffix(&position).unwrap_or(&text);
    Err(format!("Invalid params: cannot read \"params\": {reason}"))
}

/// `json` with every `\uXXXX` escape of a surrogate that is not half of a pair replaced
/// by `\ufffd`; `None` when there is none.
fn without_lone_surrogates(json: &str) -> Option<String> {
    let bytes = json.as_bytes();
    let unit_at = |at: usize| -> Option<u16> {
        let hex = json.get(at..at + 4)?;
        if bytes.get(at - 2..at)? != b"\\u" {
            return None;
        }
        u16::from_str_radix(hex, 16).ok()
    };
    let high = |u: u16| (0xD800..0xDC00).contains(&u);
    let low = |u: u16| (0xDC00..0xE000).contains(&u);
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(unit) = unit_at(i + 2) else {
            // Any other escape is two bytes (`\\` included, so its second backslash
            // never starts an escape).
            i += 2;
            continue;
        };
        if high(unit) && unit_at(i + 8).is_some_and(low) {
            i += 12;
            continue;
        }
        if high(unit) || low(unit) {
            out.push_str(&json[copied..i]);
            out.push_str("\\ufffd");
            copied = i + 6;
        }
        i += 6;
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&json[copied..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(line: &str) -> Request {
        match classify(line.as_bytes()) {
            Incoming::Request(request) => request,
            other => panic!("expected a request, got {other:?}"),
        }
    }

    fn invalid(line: &[u8]) -> ErrorReply {
        match classify(line) {
            Incoming::Invalid(reply) => reply,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn ids_round_trip_exactly() {
        for id in [
            "\"abc\"",
            "7",
            "0",
            "-3",
            "9007199254740993",
            "123456789012345678901234567890",
        ] {
            let r = request(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
            assert_eq!(r.id.as_json(), id);
            let line = String::from_utf8(result_line(&r.id, "{}")).unwrap();
            assert_eq!(
                line,
                format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)
            );
        }
    }

    #[test]
    fn escaped_string_ids_equal_their_plain_form() {
        for (sent, same) in [
            (r#""\u0061b""#, r#""ab""#),
            (r#""c\/d""#, r#""c/d""#),
            (r#""q\"\u00e9\n""#, "\"q\\\"é\\n\""),
            // Not a valid Rust string: kept as sent, and still a string id.
            (r#""\ud800""#, r#""\ud800""#),
        ] {
            let r = request(&format!(
                r#"{{"jsonrpc":"2.0","id":{sent},"method":"ping"}}"#
            ));
            let plain = request(&format!(
                r#"{{"jsonrpc":"2.0","id":{same},"method":"ping"}}"#
            ));
            assert_eq!(r.id, plain.id, "{sent}");
            assert_eq!(r.id.as_json(), same);
        }
    }

    #[test]
    fn bad_ids_are_invalid_requests_with_null_id() {
        for id in ["null", "1.5", "true", "{}", "[1]"] {
            let reply =
                invalid(format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#).as_bytes());
            assert_eq!(reply.code, code::INVALID_REQUEST, "id {id}");
            assert_eq!(reply.id, None);
        }
    }

    #[test]
    fn parse_errors_and_non_objects() {
        assert_eq!(invalid(b"{not json").code, code::PARSE_ERROR);
        assert_eq!(invalid(b"\xff\xfe{}").code, code::PARSE_ERROR);
        assert_eq!(
            invalid(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}").code,
            code::PARSE_ERROR
        );
        for line in ["42", "\"x\"", "true", "null"] {
            let reply = invalid(line.as_bytes());
            assert_eq!(reply.code, code::INVALID_REQUEST, "{line}");
            assert_eq!(reply.id, None);
        }
    }

    #[test]
    fn jsonrpc_and_method_are_checked() {
        let reply = invalid(br#"{"id":4,"method":"ping"}"#);
        assert_eq!(
            (reply.code, reply.id.unwrap().as_json()),
            (code::INVALID_REQUEST, "4")
        );
        let reply = invalid(br#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#);
        assert_eq!(reply.code, code::INVALID_REQUEST);
        let reply = invalid(br#"{"jsonrpc":"2.0","id":5,"method":12}"#);
        assert_eq!(reply.code, code::INVALID_REQUEST);
    }

    #[test]
    fn params_must_be_objects() {
        for params in ["[1]", "\"x\"", "3"] {
            let reply = invalid(
                format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{params}}}"#)
                    .as_bytes(),
            );
            assert_eq!(reply.code, code::INVALID_PARAMS);
        }
        assert!(
            request(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":null}"#)
                .params
                .is_none()
        );
    }

    /// The id of an over-long request is found in its head when it comes before the
    /// bulk, at the top level only.
    #[test]
    fn ids_are_found_in_the_head_of_a_long_line() {
        let id = |head: &str| id_in_head(head.as_bytes()).map(|id| id.as_json().to_owned());
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":"xx"#).as_deref(),
            Some("7")
        );
        assert_eq!(
            id(r#"{ "id" : "a\"b" , "params": {"#).as_deref(),
            Some(r#""a\"b""#)
        );
        assert_eq!(
            id(r#"{"method":"x","params":{"id":3,"text":"\"id\":4"#),
            None
        );
        assert_eq!(
            id(r#"{"params":{"x":["id",{"id":5}]},"id":-2,"#).as_deref(),
            Some("-2")
        );
        assert_eq!(id(r#"{"method":"x","params":{"q":"#), None);
        // Cut off inside the id itself: no guess.
        assert_eq!(id(r#"{"id":12"#), None);
        assert_eq!(id(r#"{"id":"abc"#), None);
        assert_eq!(id(r#"{"id":null,"#), None);
    }

    /// A lone surrogate escape (JavaScript writes one for a broken string) is read as
    /// U+FFFD; pairs, escaped backslashes and other escapes are left alone.
    #[test]
    fn lone_surrogates_in_params_become_replacement_characters() {
        let query = |escaped: &str| {
            let r = request(&format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"k","arguments":{{"q":"{escaped}"}}}}}}"#
            ));
            r.params.unwrap()["arguments"]["q"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        assert_eq!(query(r"ports \ud800"), "ports \u{fffd}");
        assert_eq!(query(r"\udc00x\ud83d"), "\u{fffd}x\u{fffd}");
        assert_eq!(query(r"\ud83d\ude00 \ud800"), "\u{1f600} \u{fffd}");
        assert_eq!(query(r"\\ud800 \ud800"), "\\ud800 \u{fffd}");
        assert_eq!(
            without_lone_surrogates(r#"{"a":"\ud83d\ude00 \\ud800"}"#),
            None
        );
    }

    /// Params that are an object but cannot be read say why, not "must be an object".
    #[test]
    fn unreadable_params_say_why() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        for (params, why) in [
            (r#"{"limit":1e400}"#.to_owned(), "number out of range"),
            (format!(r#"{{"a":{deep}}}"#), "recursion limit exceeded"),
        ] {
            let reply = invalid(
                format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#)
                    .as_bytes(),
            );
            assert_eq!(reply.code, code::INVALID_PARAMS);
            assert_eq!(
                reply.message,
                format!(r#"Invalid params: cannot read "params": {why}"#)
            );
        }
    }

    #[test]
    fn notifications_responses_and_batches() {
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Incoming::Notification { .. }
        ));
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Incoming::ClientResponse
        ));
        match classify(br#"[{"a":1}, 2]"#) {
            Incoming::Batch(items) => assert_eq!(items.len(), 2),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn error_lines_are_compact_json() {
        let reply = ErrorReply::new(None, code::PARSE_ERROR, "bad \"x\"\n")
            .with_data(crate::json!({"k": 1}));
        let line = String::from_utf8(reply.to_line()).unwrap();
        assert!(!line.contains('\n'));
        let value: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["id"], Value::Null);
        assert_eq!(value["error"]["code"], -32700);
        assert_eq!(value["error"]["data"]["k"], 1);
    }
}
