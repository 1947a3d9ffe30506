//! `provscope record` between software nobody here wrote: the official Python MCP SDK (`mcp` on
//! PyPI) as client and `@modelcontextprotocol/server-everything` (`stdio`) and
//! `@modelcontextprotocol/server-memory` (npm) as servers, all pinned and installed into
//! `.cache/` by `tests/interop/install.sh`.
//!
//! The chain is `mcp_client.py -> tee_pipe.py -> provscope record -> tee_pipe.py -> node server`.
//! The two tees copy every byte that passes them, so the test checks that the bytes the client
//! received are exactly the bytes the server wrote and the other way round; that the log holds
//! one tool_call, tool_result and envelope per call the client made, each request and response
//! exactly as it went over the wire; and that `provscope verify` finds nothing wrong with any
//! envelope.
//!
//! Locally: `bash tests/interop/install.sh && cargo test --test it record_interop`.

use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_provscope")
}

fn server_js(package: &str) -> PathBuf {
    root().join(format!(
        ".cache/npm/node_modules/@modelcontextprotocol/{package}/dist/index.js"
    ))
}

struct Run {
    dir: tempfile::TempDir,
    /// What mcp_client.py reports.
    client: Value,
    /// stderr of the whole chain (the client passes the server's stderr through).
    stderr: String,
}

impl Run {
    fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.dir.path().join(name)).unwrap()
    }
    fn log(&self) -> PathBuf {
        self.dir.path().join("session.jsonl")
    }
}

/// Runs one scenario through the whole chain.
fn run(scenario: &str, server_name: &str, server: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    let keygen = Command::new(bin())
        .args(["keygen", "--out", &p("attestor")])
        .output()
        .unwrap();
    assert!(keygen.status.success());
    let tee = root()
        .join("tests/interop/tee_pipe.py")
        .display()
        .to_string();
    let mut chain: Vec<String> = vec![
        "python3".into(),
        tee.clone(),
        p("client-sent.bin"),
        p("client-received.bin"),
        "--".into(),
        bin().into(),
        "record".into(),
        "--key".into(),
        p("attestor.key"),
        "--log".into(),
        p("session.jsonl"),
        "--server-name".into(),
        server_name.into(),
        "--tier".into(),
        "T2".into(),
        "--".into(),
        "python3".into(),
        tee,
        p("server-received.bin"),
        p("server-wrote.bin"),
        "--".into(),
    ];
    chain.extend(server.iter().map(|s| s.to_string()));
    let o = Command::new("python3")
        .arg(root().join("tests/interop/mcp_client.py"))
        .arg(scenario)
        .arg("--")
        .args(&chain)
        .env("PROVSCOPE_PYDEPS", root().join(".cache/pydeps"))
        .env("MEMORY_FILE_PATH", p("memory.jsonl"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        o.status.success(),
        "mcp_client.py {scenario} failed:\n{stderr}"
    );
    let client: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("client output: {e}\n{stderr}"));
    Run {
        dir,
        client,
        stderr,
    }
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("the wire carries JSON lines"))
        .collect()
}

/// The bytes each side wrote are exactly the bytes the other side read.
fn assert_byte_exact(r: &Run) {
    let sent = r.read("client-sent.bin");
    let received = r.read("client-received.bin");
    let server_in = r.read("server-received.bin");
    let server_out = r.read("server-wrote.bin");
    assert!(!sent.is_empty() && !server_out.is_empty());
    assert!(
        sent == server_in,
        "client -> server bytes differ ({} sent, {} received)",
        sent.len(),
        server_in.len()
    );
    assert!(
        received == server_out,
        "server -> client bytes differ ({} written, {} received)",
        server_out.len(),
        received.len()
    );
}

/// The log holds one tool_call, tool_result and envelope per call, each exactly as on the wire,
/// and every envelope verifies. Returns the recorded responses by call id.
fn assert_log(r: &Run, server: &str) -> HashMap<String, Value> {
    let calls = r.client["calls"].as_array().unwrap();
    let sent = lines(&r.read("client-sent.bin"));
    let received = lines(&r.read("client-received.bin"));
    let wire_requests: HashMap<String, &Value> = sent
        .iter()
        .filter(|m| m["method"] == "tools/call")
        .map(|m| (m["id"].to_string(), m))
        .collect();
    assert_eq!(wire_requests.len(), calls.len());
    let wire_responses: HashMap<String, &Value> = received
        .iter()
        .filter(|m| m.get("method").is_none() && m.get("id").is_some())
        .map(|m| (m["id"].to_string(), m))
        .collect();

    let text = std::fs::read_to_string(r.log()).unwrap();
    let events: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let count = |k: &str| events.iter().filter(|e| e["event"] == k).count();
    assert_eq!(count("session"), 1);
    assert_eq!(count("tool_call"), calls.len());
    assert_eq!(count("tool_result"), calls.len());
    assert_eq!(count("envelope"), calls.len());
    let header = &events[0];
    assert_eq!(header["event"], "session");
    assert_eq!(header["require_envelopes"], true);
    assert_eq!(header["servers"][0]["name"], server);
    assert_eq!(header["servers"][0]["tier"], "T2");

    let mut responses = HashMap::new();
    for e in &events {
        match e["event"].as_str() {
            Some("tool_call") => {
                let id = e["request"]["id"].to_string();
                assert_eq!(e["call_id"], format!("{server}#{}", id.trim_matches('"')));
                assert_eq!(&e["request"], wire_requests[&id], "request {id} as sent");
            }
            Some("tool_result") => {
                let id = e["response"]["id"].to_string();
                assert_eq!(
                    &e["response"], wire_responses[&id],
                    "response {id} as received"
                );
                assert!(e["tag"]["returned_at"].is_string() && e["tag"]["ttl_seconds"] == 3600);
                responses.insert(
                    e["tag"]["call_id"].as_str().unwrap().to_owned(),
                    e["response"].clone(),
                );
            }
            _ => {}
        }
    }

    // provscope itself: loads without diagnostics, every envelope verifies.
    let o = Command::new(bin())
        .args(["verify", "--format", "json"])
        .arg(r.log())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = &v["sessions"][0];
    assert_eq!(s["diagnostics"], serde_json::json!([]));
    let all = s["session_findings"].as_array().unwrap();
    assert!(
        !all.iter().any(|f| {
            let k = f["kind"].as_str().unwrap_or("");
            k.starts_with("envelope_") || k == "result_tampered"
        }),
        "{all:?}"
    );
    assert!(
        r.stderr.contains(&format!(
            "provscope record: the server exited with status 0; {} call(s) recorded",
            calls.len()
        )),
        "{}",
        r.stderr
    );
    responses
}

fn call<'a>(client: &'a Value, tool: &str, nth: usize) -> &'a Value {
    client["calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["tool"] == tool)
        .nth(nth)
        .unwrap_or_else(|| panic!("no call {nth} of {tool}"))
}

#[test]
fn python_sdk_through_record_to_server_everything() {
    let js = server_js("server-everything").display().to_string();
    if !crate::peers::interop() {
        return;
    }
    let r = run("everything", "everything", &["node", &js, "stdio"]);
    let tools = r.client["tools"].as_array().unwrap();
    for t in [
        "echo",
        "get-structured-content",
        "trigger-long-running-operation",
    ] {
        assert!(tools.iter().any(|x| x == t), "{t} not listed: {tools:?}");
    }
    let c = &r.client;
    assert_eq!(
        call(c, "echo", 0)["text"],
        "Echo: héllo from the Python SDK"
    );
    assert_eq!(
        call(c, "get-structured-content", 0)["structured"]["temperature"],
        36
    );
    assert_eq!(call(c, "get-structured-content", 1)["is_error"], true);
    let missing = call(c, "no-such-tool", 0);
    assert!(
        missing["is_error"] == true || missing["outcome"] == "error",
        "{missing}"
    );
    let long = call(c, "trigger-long-running-operation", 0);
    assert_eq!(long["outcome"], "result");
    assert!(long["progress"].as_u64().unwrap() >= 1, "{long}");

    assert_byte_exact(&r);
    // the progress notifications went through the proxy
    let received = lines(&r.read("client-received.bin"));
    let progress = received
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .count();
    assert_eq!(progress, 4);

    let responses = assert_log(&r, "everything");
    let structured = responses
        .values()
        .filter(|v| v["result"]["structuredContent"].is_object())
        .count();
    assert_eq!(structured, 1);
    let errors = responses
        .values()
        .filter(|v| v["result"]["isError"] == true || v.get("error").is_some())
        .count();
    assert_eq!(errors, 2);
}

#[test]
fn python_sdk_through_record_to_server_memory() {
    let js = server_js("server-memory").display().to_string();
    if !crate::peers::interop() {
        return;
    }
    let r = run("memory", "memory", &["node", &js]);
    let c = &r.client;
    assert!(r.client["tools"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t == "create_entities"));
    assert_eq!(call(c, "create_entities", 0)["is_error"], false);
    assert_eq!(call(c, "add_observations", 1)["is_error"], true);
    let graph = call(c, "read_graph", 0);
    assert_eq!(graph["structured"]["entities"].as_array().unwrap().len(), 2);
    assert_eq!(graph["structured"]["relations"][0]["relationType"], "seals");

    assert_byte_exact(&r);
    let responses = assert_log(&r, "memory");
    assert_eq!(responses.len(), c["calls"].as_array().unwrap().len());
    // the memory server really ran where the test pointed it
    assert!(r.dir.path().join("memory.jsonl").exists());
}
