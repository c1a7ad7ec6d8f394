//! Inputs from the model, through the real binary in `--demo`: `filePath` reads only
//! regular files up to 10 MiB, hostnames are checked before any lookup, and resource URIs
//! cannot leave the document set.
#![cfg(unix)]

mod support;

use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;

/// Sends each request (ids from 1) to `zcp --demo`, closes stdin and returns the answers
/// in id order (each id exactly once).
fn ask(requests: &[Value]) -> Vec<Value> {
    let mut input = INIT.to_owned();
    for (i, req) in requests.iter().enumerate() {
        let mut req = req.clone();
        req["jsonrpc"] = json!("2.0");
        req["id"] = json!(i + 1);
        input.push_str(&format!("{req}\n"));
    }
    let mut child = support::spawn_piped(support::command(&[]).arg("--demo"), Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).map(|_| out)
    });
    let status = support::wait_with_limit(&mut child, Duration::from_secs(30));
    assert!(status.success());
    writer.join().unwrap().unwrap();
    let lines = support::parse_lines(&reader.join().unwrap().unwrap());
    (1..=requests.len())
        .map(|id| {
            let found: Vec<&Value> = lines.iter().filter(|l| l["id"] == json!(id)).collect();
            assert_eq!(found.len(), 1, "id {id}: {lines:?}");
            found[0].clone()
        })
        .collect()
}

fn call(tool: &str, arguments: Value) -> Value {
    json!({"method": "tools/call", "params": {"name": tool, "arguments": arguments}})
}

/// The tool error's code and message (panics if the call succeeded).
fn tool_error(answer: &Value) -> (String, String) {
    let result = &answer["result"];
    assert_eq!(result["isError"], json!(true), "{answer}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    let body: Value = serde_json::from_str(text).unwrap_or(json!({}));
    let structured = if result["structuredContent"].is_object() {
        &result["structuredContent"]
    } else {
        &body
    };
    let code = structured["code"].as_str().unwrap_or_default().to_owned();
    let message = structured["error"]
        .as_str()
        .or_else(|| structured["message"].as_str())
        .unwrap_or(text)
        .to_owned();
    (code, message)
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn file_path_reads_only_small_regular_files() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("zerops.yml");
    std::fs::write(
        &good,
        "zerops:\n  - setup: api\n    run:\n      base: nodejs@22\n      start: node index.js\n",
    )
    .unwrap();
    let fifo = dir.path().join("pipe.yml");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let big = dir.path().join("big.yml");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(10 * 1024 * 1024 + 1)
        .unwrap();
    let link = dir.path().join("link.yml");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let missing = dir.path().join("missing.yml");
    let folder = dir.path().join("folder.yml");
    std::fs::create_dir(&folder).unwrap();
    let key = dir.path().join("id_ed25519");
    std::fs::write(&key, "-----BEGIN OPENSSH PRIVATE KEY-----\nc2VjcmV0\n").unwrap();

    let mut requests = vec![call("zerops_validate", json!({"filePath": path(&good)}))];
    let refused = [
        (path(&folder), "INVALID_PARAMETER", "directory"),
        (path(&fifo), "INVALID_PARAMETER", "FIFO"),
        // Only YAML names are read: not a key file, nor a device by its own name.
        (path(&key), "INVALID_PARAMETER", "not a .yml or .yaml file"),
        (
            "/dev/zero".to_owned(),
            "INVALID_PARAMETER",
            "not a .yml or .yaml file",
        ),
        (path(&link), "INVALID_PARAMETER", "device"),
        (path(&big), "INVALID_PARAMETER", "larger than 10 MiB"),
        (path(&missing), "FILE_NOT_FOUND", "missing.yml"),
    ];
    for (file, _, _) in &refused {
        requests.push(call("zerops_validate", json!({"filePath": file})));
        requests.push(call(
            "zerops_import",
            json!({"filePath": file, "dryRun": true}),
        ));
    }
    let answers = ask(&requests);
    let valid = &answers[0]["result"];
    assert_ne!(valid["isError"], json!(true), "{valid}");
    for (i, (file, code, words)) in refused.iter().enumerate() {
        for answer in &answers[1 + 2 * i..3 + 2 * i] {
            let (got_code, message) = tool_error(answer);
            assert_eq!(got_code, *code, "{file}: {answer}");
            assert!(message.contains(words), "{file}: {message}");
            assert!(!answer.to_string().contains("c2VjcmV0"), "{answer}");
        }
    }
}

#[test]
fn hostnames_are_checked_before_use() {
    let bad = ["../api", "api/../db", "api\u{0}", "db.internal", "api db"];
    let mut requests = Vec::new();
    for hostname in bad {
        requests.push(call(
            "zerops_discover",
            json!({"serviceHostname": hostname}),
        ));
        requests.push(call(
            "zerops_delete",
            json!({"serviceHostname": hostname, "confirm": true}),
        ));
        requests.push(call(
            "zerops_manage",
            json!({"serviceHostname": hostname, "action": "restart"}),
        ));
        requests.push(call("zerops_events", json!({"serviceHostname": hostname})));
        requests.push(call(
            "zerops_env",
            json!({"serviceHostname": hostname, "action": "get"}),
        ));
    }
    // A valid but unknown hostname still reaches the lookup and lists what exists.
    requests.push(call(
        "zerops_discover",
        json!({"serviceHostname": "nosuch"}),
    ));
    let answers = ask(&requests);
    let (last, rest) = answers.split_last().unwrap();
    for answer in rest {
        let (code, message) = tool_error(answer);
        assert_eq!(code, "INVALID_HOSTNAME", "{answer}");
        assert!(
            message.contains("not a valid service hostname"),
            "{message}"
        );
    }
    let (code, _) = tool_error(last);
    assert_eq!(code, "SERVICE_NOT_FOUND", "{last}");
    // Without confirm too: the agent must not ask the user to approve deleting a service
    // that cannot exist.
    let unconfirmed: Vec<Value> = bad
        .iter()
        .map(|h| call("zerops_delete", json!({"serviceHostname": h})))
        .collect();
    for answer in ask(&unconfirmed) {
        assert_eq!(tool_error(&answer).0, "INVALID_HOSTNAME", "{answer}");
    }
    // No hostname at all, or an empty one: the PRD's "which service?" code.
    let unnamed = [
        call("zerops_manage", json!({"action": "restart"})),
        call(
            "zerops_manage",
            json!({"action": "restart", "serviceHostname": ""}),
        ),
        call("zerops_logs", json!({})),
        call("zerops_subdomain", json!({"action": "enable"})),
    ];
    for answer in ask(&unnamed) {
        assert_eq!(tool_error(&answer).0, "SERVICE_REQUIRED", "{answer}");
    }
}

#[test]
fn resource_uris_cannot_escape_the_documents() {
    let escapes = [
        "zerops://docs/../../etc/passwd",
        "zerops://docs/services/../../../../etc/passwd",
        "zerops://docs/%2e%2e/%2e%2e/etc/passwd",
        "zerops://docs/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
        "zerops://docs/..%2f..%2fetc%2fpasswd",
        "zerops://docs/%252e%252e/etc/passwd",
        "zerops://docs/services/..%5c..%5cCargo.toml",
        "zerops://docs//etc/passwd",
        "file:///etc/passwd",
    ];
    let mut requests: Vec<Value> = escapes
        .iter()
        .map(|uri| json!({"method": "resources/read", "params": {"uri": uri}}))
        .collect();
    requests.push(
        json!({"method": "resources/read", "params": {"uri": "zerops://docs/services/postgresql"}}),
    );
    let answers = ask(&requests);
    let (found, refused) = answers.split_last().unwrap();
    for (uri, answer) in escapes.iter().zip(refused) {
        assert_eq!(answer["error"]["code"], json!(-32002), "{uri}: {answer}");
        assert!(!answer.to_string().contains("root:"), "{uri}: {answer}");
    }
    let text = found["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(text.contains("PostgreSQL"), "{found}");
}

#[test]
fn ids_cannot_steer_api_paths() {
    use zcp::platform::{Client, ErrorCode, ZeropsClient};
    use zcp::sim::{self, SimConfig, demo};
    let sim = sim::start(SimConfig::default(), demo::seed()).unwrap();
    let client =
        ZeropsClient::with_timeout(&sim.base_url(), demo::DEMO_TOKEN, Duration::from_secs(3));
    let stop_api = format!("x/../../service-stack/{}/stop", demo::API_ID);
    let crafted = [stop_api.as_str(), "..", "a?b=c", "a#b", "a%2F..", "a b", ""];
    for id in crafted {
        let err = client.cancel_process(id).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParameter, "{id:?}: {err:?}");
        let err = client.get_service(id).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParameter, "{id:?}: {err:?}");
    }
    let seen = sim.requests();
    assert!(
        !seen
            .iter()
            .any(|r| r.contains("stop") || r.contains("process")),
        "{seen:?}"
    );
    // A plain unknown id still goes to the API and gets its answer.
    assert_eq!(
        client.get_process("noSuchProcess-1").unwrap_err().code,
        ErrorCode::ProcessNotFound
    );

    // And through the binary.
    let answers = ask(&[
        call(
            "zerops_process",
            json!({"processId": stop_api, "action": "cancel"}),
        ),
        call("zerops_process", json!({"processId": "../../project"})),
    ]);
    for answer in &answers {
        assert_eq!(tool_error(answer).0, "INVALID_PARAMETER", "{answer}");
    }
}
