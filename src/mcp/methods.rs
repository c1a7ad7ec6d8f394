//! The MCP methods themselves: handshake, discovery, tools and resources, each shaped for
//! the era of the request.

use crate::json;

use serde_json::{Map, Value};

use super::context::{LogSink, Progress, ToolContext};
use super::dispatch::{Call, stamp_modern};
use super::era::{self, Era, LegacyVersion};
use super::jsonrpc::{ErrorReply, code};
use super::registry::ResourceProvider;
use super::schema;
use super::server::Shared;
use crate::json_string;

fn invalid(call: &Call<'_>, message: impl Into<String>) -> ErrorReply {
    ErrorReply::new(Some(call.id.clone()), code::INVALID_PARAMS, message)
}

/// Serialises a result, adding the modern stamps when the request was modern.
fn finish(
    shared: &Shared,
    call: &Call<'_>,
    mut result: Map<String, Value>,
    cacheable: bool,
) -> String {
    if call.era.is_modern() {
        stamp_modern(shared, &mut result, cacheable);
    }
    Value::Object(result).to_string()
}

/// Rejects any cursor: every list fits one page, so no cursor we issued can exist.
fn reject_cursor(call: &Call<'_>) -> Result<(), ErrorReply> {
    match call.params.and_then(|p| p.get("cursor")) {
        None | Some(Value::Null) => Ok(()),
        Some(_) => Err(invalid(
            call,
            "Invalid params: unknown cursor (this list has a single page)",
        )),
    }
}

fn capabilities(modern: bool, has_resources: bool) -> Value {
    let mut caps = Map::new();
    if modern {
        // No listChanged/subscribe: they would promise subscriptions/listen.
        caps.insert("tools".into(), json!({}));
        if has_resources {
            caps.insert("resources".into(), json!({}));
        }
    } else {
        caps.insert("tools".into(), json!({ "listChanged": false }));
        if has_resources {
            caps.insert(
                "resources".into(),
                json!({ "subscribe": false, "listChanged": false }),
            );
        }
    }
    caps.insert("logging".into(), json!({}));
    Value::Object(caps)
}

/// `initialize`: negotiate, remember the version for later legacy requests, describe us.
pub(crate) fn initialize(shared: &Shared, call: &Call<'_>) -> Result<String, ErrorReply> {
    let requested = call
        .params
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str)
        .ok_or_else(|| {
            invalid(
                call,
                "Invalid params: initialize needs a string protocolVersion",
            )
        })?;
    let version = LegacyVersion::negotiate(requested);
    shared.set_negotiated(version);
    let era = Era::Legacy(version);
    let mut server_info = Map::new();
    server_info.insert("name".into(), json!(shared.info.name));
    if era.has_titles() {
        server_info.insert("title".into(), json!(shared.info.title));
    }
    server_info.insert("version".into(), json!(shared.info.version));
    let mut result = Map::new();
    result.insert("protocolVersion".into(), json!(version.as_str()));
    result.insert(
        "capabilities".into(),
        capabilities(false, shared.resources.is_some()),
    );
    result.insert("serverInfo".into(), Value::Object(server_info));
    if let Some(text) = &shared.instructions {
        result.insert("instructions".into(), json!(text));
    }
    crate::debug!(
        "mcp",
        "initialize: client asked for {requested}, answering {}",
        version.as_str()
    );
    Ok(Value::Object(result).to_string())
}

/// `server/discover`: answered at once, no backend work.
pub(crate) fn discover(shared: &Shared, call: &Call<'_>) -> String {
    let mut result = Map::new();
    result.insert("supportedVersions".into(), json!(era::SUPPORTED_VERSIONS));
    result.insert(
        "capabilities".into(),
        capabilities(true, shared.resources.is_some()),
    );
    if let Some(text) = &shared.instructions {
        result.insert("instructions".into(), json!(text));
    }
    // A discover is answered in the modern shape, enveloped or not.
    let _ = call;
    stamp_modern(shared, &mut result, true);
    Value::Object(result).to_string()
}

/// `tools/list`: the cached array for the era's shape.
pub(crate) fn tools_list(shared: &Shared, call: &Call<'_>) -> Result<String, ErrorReply> {
    reject_cursor(call)?;
    let (slot, with_annotations, with_titles) =
        match (call.era.has_annotations(), call.era.has_titles()) {
            (false, _) => (0, false, false),
            (true, false) => (1, true, false),
            (true, true) => (2, true, true),
        };
    let tools = shared.tools_cache[slot].get_or_init(|| {
        let mut list = String::from("[");
        for (i, tool) in shared.tools.iter().enumerate() {
            if i > 0 {
                list.push(',');
            }
            tool.write_entry(with_annotations, with_titles, &mut list);
        }
        list.push(']');
        list
    });
    if call.era.is_modern() {
        let mut meta = Map::new();
        stamp_modern(shared, &mut meta, true);
        let stamps = Value::Object(meta).to_string();
        // Splice the cached array into the stamped object without re-serialising it.
        return Ok(format!("{{\"tools\":{tools},{}", &stamps[1..]));
    }
    Ok(format!("{{\"tools\":{tools}}}"))
}

/// `tools/call`: validate, run the handler with its context, shape the result.
pub(crate) fn tools_call(shared: &Shared, call: &Call<'_>) -> Result<String, ErrorReply> {
    let params = call
        .params
        .ok_or_else(|| invalid(call, "Invalid params: tools/call needs a tool name"))?;
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(call, "Invalid params: tools/call needs a string \"name\""))?;
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::Object(args)) => Value::Object(args.clone()),
        Some(_) => {
            return Err(invalid(
                call,
                "Invalid params: \"arguments\" must be an object",
            ));
        }
    };
    let tool = shared
        .tool_index
        .get(name)
        .map(|&i| &shared.tools[i])
        .ok_or_else(|| {
            let known: Vec<&str> = shared.tools.iter().map(|t| t.name.as_str()).collect();
            invalid(
                call,
                format!("Unknown tool: {name} (available: {})", known.join(", ")),
            )
        })?;
    if call.era.is_modern() {
        let missing: Vec<&String> = tool
            .required_client_capabilities
            .iter()
            .filter(|cap| !call.envelope.client_capabilities.contains_key(cap.as_str()))
            .collect();
        if !missing.is_empty() {
            let required: Map<String, Value> = missing
                .iter()
                .map(|cap| ((*cap).clone(), json!({})))
                .collect();
            return Err(ErrorReply::new(
                Some(call.id.clone()),
                code::MISSING_CLIENT_CAPABILITY,
                format!("Tool {name} needs client capabilities the request did not declare"),
            )
            .with_data(json!({ "requiredCapabilities": required })));
        }
    }
    let output = match schema::validate(&tool.input_schema, arguments) {
        Err(problems) => (shared.argument_error)(name, &problems),
        Ok(arguments) => {
            let progress = match call.progress_token {
                Some(token) => Progress::new(
                    token.into(),
                    shared.writer.clone(),
                    call.state.clone(),
                    call.era,
                ),
                None => Progress::disabled(),
            };
            let ctx = ToolContext {
                arguments,
                progress,
                cancel: call.state.cancel.clone(),
                log: LogSink::new(
                    shared.log_threshold(call),
                    shared.writer.clone(),
                    call.state.clone(),
                ),
                era: call.era,
                client_capabilities: call.envelope.client_capabilities.clone(),
            };
            (tool.handler)(&ctx)
        }
    };
    // Legacy eras with structured content accept an object only.
    let structured = call.era.has_titles()
        && tool.output_schema.is_some()
        && !output.is_error
        && output.structured
        && (call.era.is_modern() || output.text.starts_with('{'));
    let mut result = Map::new();
    if output.is_error {
        result.insert("isError".into(), json!(true));
    }
    if call.era.is_modern() {
        stamp_modern(shared, &mut result, false);
    }
    let text = output.text.as_str();
    let literal = output.literal();
    let mut members: Vec<Member<'_>> = vec![(
        "content",
        Box::new(|body: &mut String| {
            body.push_str("[{\"text\":");
            match literal {
                Some(literal) => {
                    debug_assert_eq!(Some(literal), serde_json::to_string(text).ok().as_deref());
                    body.push_str(literal);
                }
                None => json_string::push_json_string(body, text),
            }
            body.push_str(",\"type\":\"text\"}]");
        }),
    )];
    if structured {
        // Already compact JSON: it goes in as written, not parsed and written again.
        members.push(("structuredContent", Box::new(|body| body.push_str(text))));
    }
    Ok(object_with(&result, members, text.len() * 2))
}

/// A member written straight into the output: its key and a function writing its value.
type Member<'a> = (&'static str, Box<dyn FnOnce(&mut String) + 'a>);

/// `result` as a compact JSON object with `members` merged in, keys in sorted order as
/// serde_json's map writes them everywhere else. Written by hand so that large texts are
/// escaped once, by the fast escaper (`crate::json_string`), instead of going through a
/// `Value`. `size` is a hint for the members' length.
fn object_with(result: &Map<String, Value>, mut members: Vec<Member<'_>>, size: usize) -> String {
    // A handful of members: an insertion sort (stable) is all the code this needs.
    for i in 1..members.len() {
        let mut j = i;
        while j > 0 && members[j - 1].0 > members[j].0 {
            members.swap(j - 1, j);
            j -= 1;
        }
    }
    let mut members = members.into_iter().peekable();
    let mut body = String::with_capacity(size + 256);
    body.push('{');
    for (key, value) in result {
        while let Some((member, write)) = members.next_if(|(member, _)| *member < key.as_str()) {
            push_key(&mut body, member);
            write(&mut body);
        }
        push_key(&mut body, key);
        json_string::push_json_value(&mut body, value);
    }
    for (member, write) in members {
        push_key(&mut body, member);
        write(&mut body);
    }
    body.push('}');
    body
}

/// `"key":`, after a comma unless it is the first member (the body is just `{` then).
fn push_key(body: &mut String, key: &str) {
    if body.len() > 1 {
        body.push(',');
    }
    json_string::push_json_string(body, key);
    body.push(':');
}

fn provider_or_not_found(shared: &Shared, call: &Call<'_>) -> Result<(), ErrorReply> {
    if shared.resources.is_none() {
        return Err(ErrorReply::new(
            Some(call.id.clone()),
            code::METHOD_NOT_FOUND,
            "Method not found: this server offers no resources",
        ));
    }
    Ok(())
}

pub(crate) fn resources_list(shared: &Shared, call: &Call<'_>) -> Result<String, ErrorReply> {
    list_from_provider(shared, call, "resources", |provider, titles| {
        provider.list().iter().map(|r| r.describe(titles)).collect()
    })
}

pub(crate) fn templates_list(shared: &Shared, call: &Call<'_>) -> Result<String, ErrorReply> {
    list_from_provider(shared, call, "resourceTemplates", |provider, titles| {
        provider
            .templates()
            .iter()
            .map(|t| t.describe(titles))
            .collect()
    })
}

/// The shared body of the two resource list methods: checks, one page, the result key.
fn list_from_provider(
    shared: &Shared,
    call: &Call<'_>,
    key: &str,
    describe: impl Fn(&dyn ResourceProvider, bool) -> Vec<Value>,
) -> Result<String, ErrorReply> {
    provider_or_not_found(shared, call)?;
    reject_cursor(call)?;
    let list = shared
        .resources
        .as_deref()
        .map(|p| describe(p, call.era.has_titles()))
        .unwrap_or_default();
    let mut result = Map::new();
    result.insert(key.into(), Value::Array(list));
    Ok(finish(shared, call, result, true))
}

pub(crate) fn resources_read(shared: &Shared, call: &Call<'_>) -> Result<String, ErrorReply> {
    provider_or_not_found(shared, call)?;
    let uri = call
        .params
        .and_then(|p| p.get("uri"))
        .and_then(Value::as_str)
        .ok_or_else(|| {
            invalid(
                call,
                "Invalid params: resources/read needs a string \"uri\"",
            )
        })?;
    let contents = shared.resources.as_ref().and_then(|p| p.read(uri));
    let Some(contents) = contents else {
        return Err(ErrorReply::new(
            Some(call.id.clone()),
            call.era.resource_not_found_code(),
            format!("Resource not found: {uri}"),
        )
        .with_data(json!({ "uri": uri })));
    };
    let mut result = Map::new();
    if call.era.is_modern() {
        stamp_modern(shared, &mut result, true);
    }
    let write_contents = |body: &mut String| {
        body.push_str("[{\"mimeType\":");
        json_string::push_json_string(body, &contents.mime_type);
        body.push_str(",\"text\":");
        json_string::push_json_string(body, &contents.text);
        body.push_str(",\"uri\":");
        json_string::push_json_string(body, uri);
        body.push_str("}]");
    };
    let size = contents.text.len() + uri.len();
    Ok(object_with(
        &result,
        vec![("contents", Box::new(write_contents))],
        size,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_with_merges_members_in_sorted_order() {
        let mut result = Map::new();
        for key in ["_meta", "cacheScope", "isError", "ttlMs"] {
            result.insert(key.into(), json!({ "k": key }));
        }
        let text = "line \"one\"\nline two";
        let members: Vec<Member<'_>> = vec![
            (
                "structuredContent",
                Box::new(|b: &mut String| b.push_str("{\"a\":1}")),
            ),
            (
                "content",
                Box::new(|b: &mut String| json_string::push_json_string(b, text)),
            ),
        ];
        let mut expected = result.clone();
        expected.insert("content".into(), json!(text));
        expected.insert("structuredContent".into(), json!({ "a": 1 }));
        assert_eq!(
            object_with(&result, members, 0),
            Value::Object(expected).to_string()
        );
        // No other members, and nothing but members.
        assert_eq!(
            object_with(&result, Vec::new(), 0),
            Value::Object(result).to_string()
        );
        let only: Vec<Member<'_>> = vec![("x", Box::new(|b: &mut String| b.push_str("[]")))];
        assert_eq!(object_with(&Map::new(), only, 0), r#"{"x":[]}"#);
    }
}
