//! The playbook's conflicting-source test run end to end against a live agent: a case is
//! replayed by `provscope serve` (one stdio MCP server per recorded server, built on the official
//! Rust SDK), `provscope record` sits in front of each (from `serve --client-config
//! --record-key`), and the official Python MCP SDK (`tests/interop/case_agent.py`) plays the
//! agent's tool side: it lists both servers' tools and calls them. A scripted answer is then
//! written with the recorded calls, and `provscope check CASE --against` judges it: citing the
//! lower-tier server fails with the right reason, citing the higher tier and surfacing passes.
//!
//! Needs python3 and the pinned SDK (`tests/interop/install.sh`): without python3 the test says so
//! and is skipped, unless `PROVSCOPE_REQUIRE_INTEROP=1` (CI), when it fails.

use crate::common::{Fx, FxCall, FxClaim};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_provscope")
}

fn provscope(args: &[&str]) -> Output {
    crate::proc::output(Command::new(bin()).args(args).env("NO_COLOR", "1"))
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// True when the interop peers are there (installing them once), false after a loud note when
/// python3 is missing and interop is not required.
fn peers() -> bool {
    let has_python = Command::new("python3")
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_python {
        let msg = "SKIPPED case_serve: python3 is not installed (the official Python MCP SDK client needs it)";
        if std::env::var("PROVSCOPE_REQUIRE_INTEROP").as_deref() == Ok("1") {
            panic!("{msg}; PROVSCOPE_REQUIRE_INTEROP=1 makes this a failure");
        }
        eprintln!("{msg}");
        return false;
    }
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let o = crate::proc::output_within(
            Command::new("bash").arg(root().join("tests/interop/install.sh")),
            std::time::Duration::from_secs(600),
        );
        assert!(
            o.status.success(),
            "tests/interop/install.sh failed:\n{}",
            text(&o)
        );
    });
    true
}

/// The sequential conflict: T0 `pricing.internal` says $19, the T1 mirror's search says $25,
/// and the recorded answer cited the mirror.
fn conflict_session() -> Fx {
    let mut fx = Fx::baseline();
    fx.calls = vec![
        FxCall::new(
            "req_1",
            1,
            "pricing.internal",
            "Team plan: seats cost $19 per user per month.",
        ),
        {
            let mut c = FxCall::new(
                "req_2",
                1,
                "mirror.vendor.com",
                "Mirror snapshot: Team seats cost $25 per user per month.",
            );
            c.tool = "search_prices".into();
            c.args = json!({"query": "team seat price"});
            c.issued = "2026-10-02T14:01:10Z".into();
            c
        },
    ];
    fx.claims = vec![FxClaim::new(
        "clm_price",
        1,
        "Team seats cost $25 per user per month",
        "req_2",
        "Team seats cost $25 per user per month",
    )];
    fx
}

fn read_lines(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// What the agent's middleware writes after the run: the recorded logs of both servers merged
/// into one session (one header listing both servers), the user's turn, and the scripted answer
/// whose one claim cites the recorded call of `server` on `phrase`.
fn session_with_answer(
    logs: &[PathBuf],
    question: &str,
    server: &str,
    claim_text: &str,
    phrase: &str,
    answer: &str,
    out: &Path,
) {
    let mut header: Option<Value> = None;
    let mut body: Vec<Value> = Vec::new();
    for l in logs {
        for v in read_lines(l) {
            if v["event"] == "session" {
                match &mut header {
                    None => header = Some(v),
                    Some(h) => {
                        let more = v["servers"].as_array().unwrap().clone();
                        h["servers"].as_array_mut().unwrap().extend(more);
                    }
                }
            } else {
                body.push(v);
            }
        }
    }
    let mut header = header.expect("a recorded header");
    header["render_policy"] = json!("require_tier_gte_1");
    let result = body
        .iter()
        .find(|v| {
            v["event"] == "tool_result"
                && v["tag"]["server"] == server
                && v["response"]["result"]["content"][0]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains(phrase))
        })
        .unwrap_or_else(|| panic!("a recorded result of {server} with {phrase:?}"))
        .clone();
    let block = result["response"]["result"]["content"][0]["text"]
        .as_str()
        .unwrap();
    let start = block[..block.find(phrase).unwrap()].chars().count();
    let tag = &result["tag"];
    let mut lines = vec![
        header,
        json!({"event": "turn", "turn": 1, "user": question}),
    ];
    lines.extend(body);
    lines.push(json!({"event": "answer", "turn": 1, "generated_at": tag["returned_at"], "text": answer,
        "claims": [{"claim_id": "clm_price", "claim_text": claim_text,
            "origin": {"tool_call_id": tag["call_id"], "server": tag["server"], "tool": tag["tool"],
                "arguments_hash": tag["arguments_hash"], "fetched_at": tag["fetched_at"], "ttl_seconds": tag["ttl_seconds"]},
            "span": {"block": 0, "start": start, "end": start + phrase.chars().count()},
            "render": {"marker": "[1]", "policy": "require_tier_gte_1"}}]}));
    std::fs::write(
        out,
        lines
            .iter()
            .map(|v| v.to_string() + "\n")
            .collect::<String>(),
    )
    .unwrap();
}

#[test]
fn serve_through_record_with_the_python_sdk_then_check_the_answer() {
    if !peers() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    std::fs::write(p("orig.jsonl"), conflict_session().jsonl()).unwrap();
    let o = provscope(&[
        "export",
        "case",
        p("orig.jsonl").to_str().unwrap(),
        "--claim",
        "clm_price",
        "-o",
        p("case.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let case: Value =
        serde_json::from_str(&std::fs::read_to_string(p("case.json")).unwrap()).unwrap();
    let o = provscope(&["keygen", "--out", p("attestor").to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    std::fs::create_dir(p("logs")).unwrap();
    let o = provscope(&[
        "serve",
        p("case.json").to_str().unwrap(),
        "--client-config",
        "--record-key",
        p("attestor.key").to_str().unwrap(),
        "--record-dir",
        p("logs").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let config: Value = serde_json::from_slice(&o.stdout).unwrap();
    let servers = config["mcpServers"].as_object().unwrap();
    assert_eq!(servers.len(), 2);
    assert_eq!(servers["pricing.internal"]["args"][0], "record");
    std::fs::write(p("config.json"), &o.stdout).unwrap();
    let calls = json!([
        {"server": "pricing.internal", "tool": "get_plan_price", "arguments": {"plan": "team"}},
        {"server": "mirror.vendor.com", "tool": "search_prices", "arguments": {"query": "team seat price"}},
        {"server": "mirror.vendor.com", "tool": "search_prices", "arguments": {"query": "team seats, annual"}},
    ]);
    std::fs::write(p("calls.json"), calls.to_string()).unwrap();
    // Every server the client starts is in its process group: a hang kills them all.
    let o = crate::proc::output_within(
        Command::new("python3")
            .arg(root().join("tests/interop/case_agent.py"))
            .arg(p("config.json"))
            .arg(p("calls.json"))
            .env("PROVSCOPE_PYDEPS", root().join(".cache/pydeps")),
        std::time::Duration::from_secs(90),
    );
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "case_agent.py failed:\n{stderr}");
    let agent: Value = serde_json::from_slice(&o.stdout).unwrap();
    // Each server is named as recorded and lists its tool with the case's input schema.
    assert_eq!(
        agent["servers"]["pricing.internal"]["name"],
        "pricing.internal"
    );
    assert_eq!(
        agent["servers"]["pricing.internal"]["tools"]["get_plan_price"]["properties"]["plan"]
            ["type"],
        "string"
    );
    assert_eq!(
        agent["servers"]["mirror.vendor.com"]["tools"]["search_prices"],
        case["competing"][0]["input_schema"]
    );
    // What each call got, in the order the client made them per server (the servers are
    // started in the configuration's order).
    let got = |server: &str| -> Vec<(String, String, bool)> {
        agent["calls"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["server"] == server)
            .map(|c| {
                (
                    c["arguments"].to_string(),
                    c["text"].as_str().unwrap().to_owned(),
                    c["is_error"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        got("pricing.internal"),
        vec![(
            json!({"plan": "team"}).to_string(),
            "Team plan: seats cost $19 per user per month.".to_owned(),
            false
        )]
    );
    assert_eq!(
        got("mirror.vendor.com"),
        vec![
            (
                json!({"query": "team seat price"}).to_string(),
                "Mirror snapshot: Team seats cost $25 per user per month.".to_owned(),
                false
            ),
            (
                json!({"query": "team seats, annual"}).to_string(),
                "Mirror snapshot: Team seats cost $25 per user per month.".to_owned(),
                false
            ),
        ]
    );
    // Other arguments: the closest recording, and a note in the server's log.
    assert!(
        stderr.contains("differ from every recorded call") && stderr.contains("team seats, annual"),
        "{stderr}"
    );
    // The logs record wrote, as the client configuration named them.
    let log_of = |name: &str| {
        let args = servers[name]["args"].as_array().unwrap();
        let i = args.iter().position(|a| a == "--log").unwrap();
        PathBuf::from(args[i + 1].as_str().unwrap())
    };
    let logs = [log_of("pricing.internal"), log_of("mirror.vendor.com")];
    for l in &logs {
        assert!(l.exists(), "record wrote {}", l.display());
    }
    let question = case["question"].as_str().unwrap();
    // The agent cites the lower tier: check fails, saying which server was expected.
    session_with_answer(
        &logs,
        question,
        "mirror.vendor.com",
        "Team seats cost $25 per user per month",
        "Team seats cost $25 per user per month",
        "Team seats cost $25 per user per month [1].",
        &p("run-wrong.jsonl"),
    );
    let o = provscope(&[
        "check",
        p("case.json").to_str().unwrap(),
        "--against",
        p("run-wrong.jsonl").to_str().unwrap(),
    ]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("on mirror.vendor.com (T1), expected pricing.internal")
            && out.contains("does not tell the user the sources disagree"),
        "{out}"
    );
    // The agent cites the higher tier and surfaces the conflict: check passes.
    session_with_answer(
        &logs,
        question,
        "pricing.internal",
        "Team seats cost $19 per user per month",
        "seats cost $19 per user per month",
        "Team seats cost $19 per user per month [1]. Sources disagree: a vendor mirror lists $25.",
        &p("run-right.jsonl"),
    );
    let o = provscope(&[
        "check",
        p("case.json").to_str().unwrap(),
        "--against",
        p("run-right.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // The recorded run verifies: every envelope the two proxies sealed checks out.
    let o = provscope(&[
        "verify",
        "--fail-on",
        "never",
        "--format",
        "json",
        p("run-right.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = v.to_string();
    assert!(
        !s.contains("envelope_invalid") && !s.contains("result_tampered"),
        "{s}"
    );
}

#[test]
fn serve_refuses_what_it_cannot_serve() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    std::fs::write(p("orig.jsonl"), conflict_session().jsonl()).unwrap();
    let o = provscope(&[
        "export",
        "case",
        p("orig.jsonl").to_str().unwrap(),
        "--claim",
        "clm_price",
        "-o",
        p("case.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // Two servers and no --server: say which.
    let o = provscope(&["serve", p("case.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("mirror.vendor.com, pricing.internal") && text(&o).contains("--server"),
        "{}",
        text(&o)
    );
    let o = provscope(&[
        "serve",
        p("case.json").to_str().unwrap(),
        "--server",
        "nobody",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("records no server `nobody`"),
        "{}",
        text(&o)
    );
    std::fs::write(p("bad.json"), "{\"format\": \"provscope.case/7\"}").unwrap();
    let o = provscope(&["serve", p("bad.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("not a case format"), "{}", text(&o));
}

/// A raw JSON-RPC conversation with `provscope serve`, no SDK in between: it initializes, lists
/// the recorded tool with its schema, answers a call with the recorded result, refuses an
/// unknown tool, and exits by itself once its input ends (a hang fails the test and the server
/// is killed).
#[test]
fn serve_speaks_json_rpc_and_exits_at_end_of_input() {
    use std::io::{BufRead, Write};
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    std::fs::write(p("orig.jsonl"), conflict_session().jsonl()).unwrap();
    let o = provscope(&[
        "export",
        "case",
        p("orig.jsonl").to_str().unwrap(),
        "--claim",
        "clm_price",
        "-o",
        p("case.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let mut child = {
        use std::os::unix::process::CommandExt;
        Command::new(bin())
            .args(["serve", p("case.json").to_str().unwrap()])
            .args(["--server", "pricing.internal"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap()
    };
    let pid = child.id();
    let kill = || {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pid}")])
            .status();
    };
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut std::io::BufReader::new(stderr), &mut s);
        s
    });
    let mut stdin = child.stdin.take().unwrap();
    let send = |stdin: &mut std::process::ChildStdin, v: Value| {
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    let wait_for = |id: u64| -> Value {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    let v: Value = serde_json::from_str(&line).unwrap();
                    if v["id"] == id {
                        return v;
                    }
                }
                Err(_) => {
                    kill();
                    panic!("no response {id} from serve within 30 s");
                }
            }
        }
    };
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "provscope-test", "version": "0"}}}),
    );
    let init = wait_for(1);
    assert_eq!(
        init["result"]["serverInfo"]["name"], "pricing.internal",
        "{init}"
    );
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    let list = wait_for(2);
    let tools = list["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1, "{list}");
    assert_eq!(tools[0]["name"], "get_plan_price");
    assert_eq!(
        tools[0]["inputSchema"]["properties"]["plan"]["type"],
        "string"
    );
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "get_plan_price", "arguments": {"plan": "team"}}}),
    );
    let call = wait_for(3);
    assert_eq!(
        call["result"]["content"][0]["text"], "Team plan: seats cost $19 per user per month.",
        "{call}"
    );
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "search_prices", "arguments": {}}}),
    );
    let unknown = wait_for(4);
    assert!(
        unknown["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown tool: search_prices")),
        "{unknown}"
    );
    // End of input: the server exits by itself.
    drop(stdin);
    let end = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if Instant::now() > end {
            kill();
            let _ = child.wait();
            panic!("serve did not exit within 10 s of the end of its input");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    let log = log.join().unwrap();
    assert!(
        log.contains("get_plan_price answered with the recorded result of `req_1`")
            && log.contains("unknown tool `search_prices` called"),
        "{log}"
    );
}
