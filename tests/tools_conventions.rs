//! The conventions all 12 tools share, checked on what the real binary sends, and golden
//! files: `tools/list` (fixtures/tools/tools_list.json) and one call per tool against the
//! simulator with volatile values (times, generated ids, temporary paths) normalised
//! (fixtures/tools/calls.json). `UPDATE_GOLDEN_TOOLS=1 cargo test --test tools_conventions`
//! rewrites these two files (and nothing else).

mod session;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use session::{Session, fast_sim, sim_env};
use zcp::sim::demo::API_ID;

const TOOLS: [&str; 12] = [
    "zerops_discover",
    "zerops_manage",
    "zerops_env",
    "zerops_logs",
    "zerops_deploy",
    "zerops_import",
    "zerops_validate",
    "zerops_knowledge",
    "zerops_process",
    "zerops_delete",
    "zerops_subdomain",
    "zerops_events",
];

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/tools")
        .join(name)
}

fn updating() -> bool {
    std::env::var("UPDATE_GOLDEN_TOOLS").is_ok_and(|v| v == "1")
}

/// Compares `actual` with a golden JSON file (or rewrites it when updating).
fn golden(name: &str, actual: &Value) {
    let path = fixture(name);
    let text = format!("{}\n", serde_json::to_string_pretty(actual).unwrap());
    if updating() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; create it with UPDATE_GOLDEN_TOOLS=1",
            path.display()
        )
    });
    if expected != text {
        let diff: Vec<String> = expected
            .lines()
            .zip(text.lines())
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .take(10)
            .map(|(i, (a, b))| format!("line {}:\n- {a}\n+ {b}", i + 1))
            .collect();
        panic!(
            "{} differs ({} vs {} lines); first differences:\n{}\nIf the change is intended, \
             regenerate with UPDATE_GOLDEN_TOOLS=1 and review the diff.",
            path.display(),
            expected.lines().count(),
            text.lines().count(),
            diff.join("\n")
        );
    }
}

/// The raw `tools/list` and `initialize` answers (no token: listing needs no account).
fn list_and_instructions() -> (String, Value, String) {
    let mut s = Session::start(&[]);
    let instructions = s
        .lines()
        .into_iter()
        .find(|l| l.value["id"] == 0)
        .unwrap()
        .value["result"]["instructions"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    let answer = s.request("tools/list", json!({}));
    let raw = answer.to_string();
    (raw, answer["result"].clone(), instructions)
}

/// Problems with `value` against `schema`, strictly (no coercion), for the keywords the
/// output schemas use: `type` (one or a list), `properties`, `required`, `items`. Strict
/// clients (the TypeScript and Python SDKs) refuse a result whose structured content
/// does not validate.
fn conformance(schema: &Value, value: &Value, path: &str, problems: &mut Vec<String>) {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let allowed: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let fits = |t: &&str| *t == kind || (*t == "number" && kind == "integer");
    if !allowed.is_empty() && !allowed.iter().any(fits) {
        problems.push(format!("{path}: {kind}, not {allowed:?}"));
    }
    for required in schema["required"].as_array().into_iter().flatten() {
        if value.get(required.as_str().unwrap_or("")).is_none() {
            problems.push(format!("{path}: no {required}"));
        }
    }
    if let (Some(properties), Some(object)) = (schema["properties"].as_object(), value.as_object())
    {
        for (key, inner) in properties {
            if let Some(member) = object.get(key) {
                conformance(inner, member, &format!("{path}.{key}"), problems);
            }
        }
    }
    if let (Some(items), Some(list)) = (schema.get("items"), value.as_array()) {
        for (i, item) in list.iter().enumerate() {
            conformance(items, item, &format!("{path}[{i}]"), problems);
        }
    }
}

/// An event whose process or app version came without a creation time has a null
/// timestamp, which its schema must admit.
#[test]
fn output_schemas_admit_what_the_tools_can_return() {
    let (_, result, _) = list_and_instructions();
    let schema = result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "zerops_events")
        .unwrap()["outputSchema"]
        .clone();
    let event = json!({"events": [{"timestamp": null, "type": "process", "action": "restart", "status": "FINISHED", "service": "api"}], "summary": {}});
    let mut problems = Vec::new();
    conformance(&schema, &event, "", &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    // The checker itself catches a wrong type.
    conformance(
        &schema,
        &json!({"events": [{"timestamp": 7}], "summary": {}}),
        "",
        &mut problems,
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
}

#[test]
fn every_tool_follows_the_conventions() {
    let (raw, result, instructions) = list_and_instructions();
    assert!(
        result.get("nextCursor").is_none(),
        "one page holds every tool"
    );
    let tools = result["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, TOOLS, "12 tools in the documented order");
    assert!(
        raw.len() < 20 * 1024,
        "tools/list is {} bytes (limit 20 KB)",
        raw.len()
    );
    assert!(
        instructions.len() < 2048,
        "instructions are {} bytes",
        instructions.len()
    );
    for name in TOOLS {
        assert!(instructions.contains(name), "instructions omit {name}");
    }
    // The PRD: the instructions must not point at a "configure" tool (none exists).
    assert!(!instructions.contains("configure"), "{instructions}");

    let mut problems = Vec::new();
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        let mut problem = |what: String| problems.push(format!("{name}: {what}"));
        if tool["title"].as_str().is_none_or(str::is_empty) {
            problem("no title".into());
        }
        let description = tool["description"].as_str().unwrap_or("");
        let words = description.split_whitespace().count();
        if words == 0 || words > 60 {
            problem(format!("description has {words} words (1 to 60)"));
        }
        let input = &tool["inputSchema"];
        if input["type"] != "object" {
            problem("inputSchema is not an object schema".into());
        }
        if input["additionalProperties"] != json!(false) {
            problem("inputSchema allows additional properties".into());
        }
        let properties = input["properties"].as_object().cloned().unwrap_or_default();
        for (param, schema) in &properties {
            if schema["description"].as_str().is_none_or(str::is_empty) {
                problem(format!("parameter {param} has no description"));
            }
            if schema.get("type").is_none() && schema.get("anyOf").is_none() {
                problem(format!("parameter {param} has no type"));
            }
        }
        for required in input["required"].as_array().cloned().unwrap_or_default() {
            if !properties.contains_key(required.as_str().unwrap()) {
                problem(format!("required {required} is not a property"));
            }
        }
        let output = &tool["outputSchema"];
        if output["type"] != "object" || output.get("properties").is_none() {
            problem("no outputSchema".into());
        }
        let annotations = &tool["annotations"];
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            if !annotations[hint].is_boolean() {
                problem(format!("annotation {hint} missing"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    // The hints tell the truth.
    let hint = |name: &str, key: &str| {
        tools.iter().find(|t| t["name"] == name).unwrap()["annotations"][key].clone()
    };
    for read_only in [
        "zerops_discover",
        "zerops_logs",
        "zerops_events",
        "zerops_validate",
        "zerops_knowledge",
    ] {
        assert_eq!(hint(read_only, "readOnlyHint"), true, "{read_only}");
        assert_eq!(hint(read_only, "destructiveHint"), false, "{read_only}");
    }
    for changing in [
        "zerops_manage",
        "zerops_deploy",
        "zerops_import",
        "zerops_delete",
        "zerops_subdomain",
        "zerops_process",
        "zerops_env",
    ] {
        assert_eq!(hint(changing, "readOnlyHint"), false, "{changing}");
    }
    // Env overwrites values; import may re-import an existing service (`override: true`);
    // manage stops services, subdomain takes public access away, process cancels: none
    // is additive only, which is what `destructiveHint: false` promises.
    for destructive in [
        "zerops_delete",
        "zerops_deploy",
        "zerops_env",
        "zerops_import",
        "zerops_manage",
        "zerops_subdomain",
        "zerops_process",
    ] {
        assert_eq!(hint(destructive, "destructiveHint"), true, "{destructive}");
    }
    // A second restart restarts again.
    assert_eq!(hint("zerops_manage", "idempotentHint"), false);
    for offline in ["zerops_validate", "zerops_knowledge"] {
        assert_eq!(hint(offline, "openWorldHint"), false, "{offline}");
    }
    assert_eq!(hint("zerops_import", "idempotentHint"), false);
}

#[test]
fn tools_list_golden() {
    let (_, result, _) = list_and_instructions();
    golden("tools_list.json", &result);
}

#[test]
fn bad_arguments_are_json_errors_for_every_tool() {
    let mut s = Session::start(&[]);
    for name in TOOLS {
        let result = s.call(name, json!({"noSuchParameter": 1}));
        assert_eq!(result["isError"], true, "{name}: {result}");
        let body = session::body(&result);
        for field in ["code", "error", "suggestion"] {
            assert!(
                body[field].as_str().is_some_and(|t| !t.is_empty()),
                "{name}: no {field}: {result}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// One call per tool, normalised.

fn is_timestamp(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.len() >= 20
        && bytes[..4].iter().all(u8::is_ascii_digit)
        && bytes[4] == b'-'
        && bytes[10] == b'T'
        && text.ends_with('Z')
}

/// Ids the simulator makes up while the test runs (`proc000000000000001004`): their
/// numbers depend on how many calls came before.
fn is_generated_id(text: &str) -> bool {
    let digits = text.trim_start_matches(|c: char| c.is_ascii_lowercase());
    text.len() == 22 && digits.len() >= 12 && digits.chars().all(|c| c.is_ascii_digit()) && {
        let n: u64 = digits.parse().unwrap_or(0);
        n > 1000
    }
}

fn normalise(value: &Value, work: &str, key: Option<&str>) -> Value {
    match value {
        Value::String(text) => {
            if matches!(key, Some("duration")) {
                return json!("<duration>");
            }
            if is_timestamp(text) {
                return json!("<time>");
            }
            if is_generated_id(text) {
                return json!("<generated-id>");
            }
            let mut text = text.replace(work, "<workdir>");
            // Generated ids inside sentences (hints that name a process or build).
            let words: Vec<String> = text
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| is_generated_id(w) || is_timestamp(w))
                .map(str::to_owned)
                .collect();
            for word in words {
                text = text.replace(&word, "<generated-id>");
            }
            json!(text)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| normalise(v, work, key)).collect())
        }
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                out.insert(k.clone(), normalise(v, work, Some(k)));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// What a result says, for the golden file.
fn summary(result: &Value) -> Value {
    json!({
        "isError": result["isError"] == json!(true),
        "body": session::body(result),
    })
}

fn wait_for_file(path: &Path) {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !path.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "{path:?} never appeared"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(unix)]
#[test]
fn one_call_per_tool_golden() {
    let sim = Arc::new(fast_sim());
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/zcli/fake-zcli"),
        bin.path().join("zcli"),
    )
    .unwrap();
    let work = tempfile::tempdir().unwrap();
    let work_text = work.path().canonicalize().unwrap().display().to_string();
    std::fs::write(
        work.path().join("zerops.yml"),
        "zerops:\n  - setup: api\n    build:\n      base: nodejs@22\n      buildCommands:\n        - npm ci\n      deployFiles: ./\n    run:\n      base: nodejs@22\n      ports:\n        - port: 3000\n          httpSupport: true\n      start: npm start\n",
    )
    .unwrap();
    std::fs::write(
        work.path().join(".fake-zcli.behaviour"),
        "stdout=Uploading package\nexit=0\n",
    )
    .unwrap();
    let mut env = sim_env(&sim);
    env.push((
        "PATH".into(),
        format!(
            "{}:{}",
            bin.path().display(),
            std::env::var("PATH").unwrap_or_default()
        ),
    ));
    // Debug logging on: a successful call of every tool must not print the token either.
    env.push(("ZCP_LOG_LEVEL".into(), "debug".into()));
    let mut s = Session::start(&env);

    let calls: Vec<(&str, Value)> = vec![
        ("zerops_discover", json!({"serviceHostname": "api"})),
        (
            "zerops_manage",
            json!({"action": "restart", "serviceHostname": "api"}),
        ),
        (
            "zerops_env",
            json!({"action": "get", "serviceHostname": "api"}),
        ),
        (
            "zerops_logs",
            json!({"serviceHostname": "api", "since": "1d", "severity": "error", "limit": 3}),
        ),
        (
            "zerops_deploy",
            json!({"workingDir": work.path().display().to_string(), "serviceHostname": "api"}),
        ),
        (
            "zerops_import",
            json!({"content": "services:\n  - hostname: worker\n    type: nodejs@22\n"}),
        ),
        (
            "zerops_validate",
            json!({"content": "zerops:\n  - setup: api\n    run:\n      base: nodejs@22\n      start: npm start\n"}),
        ),
        ("zerops_knowledge", json!({"query": "postgresql"})),
        (
            "zerops_process",
            json!({"processId": "procdemo00000000000004"}),
        ),
        (
            "zerops_delete",
            json!({"serviceHostname": "cache", "confirm": true}),
        ),
        (
            "zerops_subdomain",
            json!({"action": "enable", "serviceHostname": "web"}),
        ),
        (
            "zerops_events",
            json!({"serviceHostname": "web", "limit": 3}),
        ),
    ];
    let (_, listed, _) = list_and_instructions();
    let output_schema = |tool: &str| {
        listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == tool)
            .unwrap()["outputSchema"]
            .clone()
    };
    let mut out = Vec::new();
    let mut validated = 0;
    for (tool, arguments) in calls {
        let result = if tool == "zerops_deploy" {
            let id = s.start_call(tool, arguments.clone(), None);
            // The fake zcli uploads nothing; create the build a real push would.
            wait_for_file(&work.path().join(".fake-zcli.record"));
            sim.push(API_ID, None, None, None).unwrap();
            s.result(id)
        } else {
            s.call(tool, arguments.clone())
        };
        if let Some(structured) = result.get("structuredContent") {
            validated += 1;
            let mut problems = Vec::new();
            conformance(&output_schema(tool), structured, tool, &mut problems);
            assert!(problems.is_empty(), "{problems:?}");
        }
        let mut shown = summary(&result);
        if tool == "zerops_knowledge" {
            // The documents change on their own schedule: keep the shape, not the text.
            let results = shown["body"]["results"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            assert!(!results.is_empty(), "{result}");
            let keys = |v: &Value| -> Vec<String> {
                v.as_object()
                    .map(|m| m.keys().cloned().collect())
                    .unwrap_or_default()
            };
            shown["body"] = json!({
                "keys": keys(&shown["body"]),
                "firstResultKeys": keys(&results[0]),
                "topResultKeys": keys(&shown["body"]["topResult"]),
            });
        }
        let arguments = normalise(&arguments, &work_text, None);
        let arguments = normalise(&arguments, &work.path().display().to_string(), None);
        let mut shown = normalise(&shown, &work_text, None);
        shown = normalise(&shown, &work.path().display().to_string(), None);
        out.push(json!({"tool": tool, "arguments": arguments, "result": shown}));
    }
    let transcript = s.finish();
    assert!(
        transcript.stderr.contains("platform"),
        "debug logging was on"
    );
    for text in [&transcript.stdout, &transcript.stderr] {
        assert!(!text.contains(session::TOKEN), "the token was printed");
    }
    let names: Vec<&str> = out.iter().map(|c| c["tool"].as_str().unwrap()).collect();
    assert_eq!(names, TOOLS, "one call per tool");
    // Every successful call carried structured content, and it conformed.
    let errors = out
        .iter()
        .filter(|c| c["result"]["isError"] == true)
        .count();
    assert_eq!(
        validated,
        TOOLS.len() - errors,
        "structured content checked"
    );
    golden("calls.json", &Value::Array(out));
}
