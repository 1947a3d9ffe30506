//! `provscope record` as a process, against a scripted server (tests/support/fake_mcp_server.py)
//! and `cat`: byte-exact forwarding both ways, the log loads and verifies, exit statuses,
//! signal forwarding, an unwritable log, continuing a log.

use serde_json::Value;
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_provscope")
}

fn fake() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/fake_mcp_server.py")
}

struct Dir {
    tmp: tempfile::TempDir,
}

impl Dir {
    fn new() -> Dir {
        let tmp = tempfile::tempdir().unwrap();
        let o = Command::new(bin())
            .args(["keygen", "--out"])
            .arg(tmp.path().join("k"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        Dir { tmp }
    }
    fn p(&self, name: &str) -> PathBuf {
        self.tmp.path().join(name)
    }
    /// `provscope record` in front of the fake server, fed `input`.
    fn record(&self, log: &Path, extra: &[&str], input: &[u8]) -> Output {
        let mut c = Command::new(bin());
        c.arg("record")
            .arg("--key")
            .arg(self.p("k.key"))
            .arg("--log")
            .arg(log)
            .args(extra)
            .arg("--")
            .arg("python3")
            .arg(fake())
            .env("FAKE_STDIN_LOG", self.p("server-in.bin"))
            .env("FAKE_STDOUT_LOG", self.p("server-out.bin"));
        run_with_input(c, input)
    }
}

fn run_with_input(mut c: Command, input: &[u8]) -> Output {
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let w = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let o = child.wait_with_output().unwrap();
    w.join().unwrap();
    o
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn call(id: &str, name: &str, args: Value) -> String {
    serde_json::json!({"jsonrpc":"2.0","id":serde_json::from_str::<Value>(id).unwrap(),"method":"tools/call","params":{"name":name,"arguments":args}}).to_string()
}

/// `provscope verify --format json LOG`: the findings' kinds.
fn finding_kinds(log: &Path) -> Vec<String> {
    let o = Command::new(bin())
        .args(["verify", "--format", "json"])
        .arg(log)
        .output()
        .unwrap();
    assert!(
        o.status.code() == Some(0) || o.status.code() == Some(1),
        "{}",
        err(&o)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut kinds = Vec::new();
    for s in v["sessions"].as_array().unwrap() {
        assert_eq!(s["diagnostics"], serde_json::json!([]), "{s}");
        let claim_findings = s["claims"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| c["findings"].as_array().unwrap().iter());
        for f in s["session_findings"]
            .as_array()
            .unwrap()
            .iter()
            .chain(claim_findings)
        {
            kinds.push(f["kind"].as_str().unwrap().to_owned());
        }
    }
    kinds
}

fn summary(log: &Path) -> Value {
    let o = Command::new(bin())
        .args(["summary", "--format", "json"])
        .arg(log)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    serde_json::from_slice::<Value>(&o.stdout).unwrap()[0].clone()
}

#[test]
fn forwards_every_byte_both_ways_and_the_log_verifies() {
    let d = Dir::new();
    let log = d.p("out.jsonl");
    let mut input = Vec::new();
    let mut line = |s: &str| {
        input.extend_from_slice(s.as_bytes());
        input.push(b'\n');
    };
    line(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
    );
    line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    line(&call(
        "1",
        "echo",
        serde_json::json!({"city": "Zürich", "n": 1.0e2}),
    ));
    line("this is not json {{{");
    line(&format!(
        "[{},{},{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{}}}}]",
        call("\"b-1\"", "fail", serde_json::json!({})),
        call("\"b-2\"", "echo", serde_json::json!({"k": [1, 2]}))
    ));
    // 3 MB request and a 5 MB response
    line(&call(
        "2",
        "echo",
        serde_json::json!({"blob": "x".repeat(3 << 20)}),
    ));
    line(&call("3", "big", serde_json::json!({"bytes": 5_000_000})));
    line(concat!(
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":0.2},"_meta":{"progressToken":"t"}}}"#,
        "\r"
    ));
    // the last message has no newline
    input.extend_from_slice(call("5", "echo", serde_json::json!({})).as_bytes());
    let o = d.record(&log, &["--server-name", "fake", "--tier", "T2"], &input);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let server_in = std::fs::read(d.p("server-in.bin")).unwrap();
    let server_out = std::fs::read(d.p("server-out.bin")).unwrap();
    assert!(
        server_in == input,
        "the server did not receive the client's bytes"
    );
    assert!(
        o.stdout == server_out,
        "the client did not receive the server's bytes"
    );
    assert!(server_out.len() > 8_000_000);
    assert!(err(&o).contains("6 call(s) recorded"), "{}", err(&o));

    let s = summary(&log);
    assert_eq!(
        (
            s["calls"].as_u64(),
            s["results"].as_u64(),
            s["envelopes"].as_u64()
        ),
        (Some(6), Some(6), Some(6)),
        "{s}"
    );
    assert_eq!(finding_kinds(&log), Vec::<String>::new());
    let text = std::fs::read_to_string(&log).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["servers"][0]["tier"], "T2");
    assert_eq!(first["require_envelopes"], true);
    assert!(text.contains("\"call_id\":\"fake#b-1\""));
    // the last line (no newline) was answered but never completed as a message: not recorded
    assert!(!text.contains("\"call_id\":\"fake#5\""));
}

#[test]
fn arbitrary_bytes_through_cat_are_unchanged() {
    let d = Dir::new();
    let mut input: Vec<u8> = (0..2_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    input.extend_from_slice(
        b"\n{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n\xff\n",
    );
    let mut c = Command::new(bin());
    c.arg("record")
        .arg("--key")
        .arg(d.p("k.key"))
        .arg("--log")
        .arg(d.p("cat.jsonl"))
        .args(["--", "cat"]);
    let o = run_with_input(c, &input);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(o.stdout == input);
    // cat echoed the request back: a request from the "server" is not a response; nothing recorded
    assert!(err(&o).contains("0 call(s) recorded"), "{}", err(&o));
}

#[test]
fn exit_status_follows_the_server() {
    let d = Dir::new();
    let log = d.p("crash.jsonl");
    let input = format!(
        "{}\n{}\n",
        call("1", "echo", serde_json::json!({"a": 1})),
        call("2", "crash", serde_json::json!({"status": 3}))
    );
    let o = d.record(&log, &[], input.as_bytes());
    assert_eq!(o.status.code(), Some(3), "{}", err(&o));
    assert!(err(&o).contains("fake: crashing"), "{}", err(&o));
    assert!(err(&o).contains("exited with status 3"), "{}", err(&o));
    assert!(
        err(&o).contains("tools/call request(s) had no response"),
        "{}",
        err(&o)
    );
    // what was answered before the crash is in the log and verifies
    assert_eq!(summary(&log)["calls"], 1);
    assert_eq!(finding_kinds(&log), Vec::<String>::new());

    let input = format!("{}\n", call("1", "die", serde_json::json!({"signal": 9})));
    let o = d.record(&d.p("die.jsonl"), &[], input.as_bytes());
    assert_eq!(o.status.code(), Some(128 + 9), "{}", err(&o));
    assert!(err(&o).contains("killed by signal 9"), "{}", err(&o));

    let mut c = Command::new(bin());
    c.arg("record")
        .arg("--key")
        .arg(d.p("k.key"))
        .arg("--log")
        .arg(d.p("x.jsonl"))
        .args(["--", "/no/such/server"]);
    let o = run_with_input(c, b"");
    assert_eq!(o.status.code(), Some(127), "{}", err(&o));
}

#[test]
fn sigterm_is_forwarded_to_the_server() {
    let d = Dir::new();
    for (name, sig) in [("TERM", 15), ("INT", 2)] {
        let mut child = Command::new(bin())
            .arg("record")
            .arg("--key")
            .arg(d.p("k.key"))
            .arg("--log")
            .arg(d.p("sig.jsonl"))
            .arg("--")
            .arg("python3")
            .arg(fake())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(format!("{}\n", call("1", "echo", serde_json::json!({}))).as_bytes())
            .unwrap();
        // the answer proves the server is up and its handlers installed
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        assert!(first.contains("\"id\":1"), "{first}");
        let st = Command::new("kill")
            .arg(format!("-{name}"))
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(st.success());
        let status = child.wait().unwrap();
        let mut e = String::new();
        child.stderr.take().unwrap().read_to_string(&mut e).unwrap();
        assert_eq!(status.code(), Some(40 + sig), "{e}");
        assert!(e.contains(&format!("fake: got signal {sig}")), "{e}");
        drop(stdin);
    }
    // both runs appended to the same log, as one session
    let s = summary(&d.p("sig.jsonl"));
    assert_eq!(s["calls"], 2, "{s}");
    assert_eq!(finding_kinds(&d.p("sig.jsonl")), Vec::<String>::new());
}

#[test]
fn an_unwritable_log_never_stops_forwarding() {
    let d = Dir::new();
    let input = format!(
        "{}\n{}\n",
        call("1", "echo", serde_json::json!({"a": 1})),
        call("2", "echo", serde_json::json!({"a": 2}))
    );
    for log in [PathBuf::from("/dev/full"), d.p("no/such/dir/x.jsonl")] {
        if log.starts_with("/dev") && !log.exists() {
            continue;
        }
        let o = d.record(&log, &[], input.as_bytes());
        assert_eq!(o.status.code(), Some(74), "{}", err(&o));
        let got = String::from_utf8_lossy(&o.stdout);
        assert_eq!(got.lines().count(), 2, "{got}");
        assert!(err(&o).contains("could NOT be written"), "{}", err(&o));
    }
}

#[test]
fn continues_its_own_log_and_refuses_a_foreign_one() {
    let d = Dir::new();
    let log = d.p("cont.jsonl");
    let input = format!("{}\n", call("1", "echo", serde_json::json!({"a": 1})));
    for _ in 0..2 {
        let o = d.record(&log, &["--server-name", "s"], input.as_bytes());
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    }
    // a crash left half a line: it is cut, and the third run continues
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    f.write_all(b"{\"event\":\"tool_ca").unwrap();
    drop(f);
    let o = d.record(&log, &["--server-name", "s"], input.as_bytes());
    assert!(err(&o).contains("incomplete last line"), "{}", err(&o));
    let text = std::fs::read_to_string(&log).unwrap();
    for id in ["s#1", "s#1#2", "s#1#3"] {
        assert!(text.contains(&format!("\"call_id\":\"{id}\"")), "{id}");
    }
    assert_eq!(text.matches("\"event\":\"session\"").count(), 1);
    assert_eq!(finding_kinds(&log), Vec::<String>::new());

    // another server name (or session id) is another session: refused, forwarding continues
    let before = std::fs::read(&log).unwrap();
    let o = d.record(&log, &["--server-name", "other"], input.as_bytes());
    assert_eq!(o.status.code(), Some(74), "{}", err(&o));
    assert!(
        err(&o).contains("not recording into this log"),
        "{}",
        err(&o)
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 1);
    assert!(std::fs::read(&log).unwrap() == before);
}

#[test]
fn usage_errors() {
    let d = Dir::new();
    let o = Command::new(bin())
        .args(["record", "--key", "/no/key", "--log"])
        .arg(d.p("u.jsonl"))
        .args(["--", "cat"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("/no/key"), "{}", err(&o));
    let o = Command::new(bin())
        .args(["record", "--key"])
        .arg(d.p("k.key"))
        .arg("--log")
        .arg(d.p("u.jsonl"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    let o = Command::new(bin())
        .args(["record", "--tier", "T9", "--key"])
        .arg(d.p("k.key"))
        .arg("--log")
        .arg(d.p("u.jsonl"))
        .args(["--", "cat"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("not a tier"), "{}", err(&o));
}

#[test]
fn every_fast_answer_is_paired_with_its_request() {
    // `sed` answers each request as soon as it has read it, often before a proxy that tapped
    // requests after forwarding them would have tapped them (the deterministic version of this
    // race is a unit test in src/record/process.rs).
    let d = Dir::new();
    let log = d.p("fast.jsonl");
    let mut input = String::new();
    for i in 0..500 {
        input.push_str(&format!(
            "{{\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"t\"}}}}\n"
        ));
    }
    let mut c = Command::new(bin());
    c.arg("record")
        .arg("--key")
        .arg(d.p("k.key"))
        .arg("--log")
        .arg(&log)
        .args(["--", "sed", "-u", "-E"])
        .arg(r#"s/^\{"id":([0-9]+),.*$/{"id":\1,"result":{"content":[]}}/"#);
    let o = run_with_input(c, input.as_bytes());
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 500);
    assert!(err(&o).contains("500 call(s) recorded"), "{}", err(&o));
    assert_eq!(summary(&log)["envelopes"], 500);
}

/// The hole: a client that reuses a JSON-RPC id still in flight got the first call's result
/// recorded and sealed under the second call's request (and `verify` found nothing). Now both
/// calls are recorded with distinct call ids, each with its own request and result, whether
/// the server answers in order (`slow` then `echo`) or not (`later` answered after `echo`).
#[test]
fn a_client_reusing_an_in_flight_id_gets_each_result_paired_with_its_own_request() {
    let d = Dir::new();
    for (first, log) in [("slow", "inorder.jsonl"), ("later", "reorder.jsonl")] {
        let log = d.p(log);
        // Both requests in one write: both are in flight before the server answers either.
        let input = format!(
            "{}\n{}\n",
            call(
                "7",
                first,
                serde_json::json!({"q": "first", "seconds": 0.3})
            ),
            call("7", "echo", serde_json::json!({"q": "second"}))
        );
        let o = d.record(&log, &["--server-name", "s"], input.as_bytes());
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        // The client sees its own id on both answers, never the alias.
        let got = String::from_utf8_lossy(&o.stdout).into_owned();
        assert_eq!(got.matches("\"id\":7,").count(), 2, "{got}");
        assert!(!got.contains("provscope-record:"), "{got}");
        assert!(err(&o).contains("reused JSON-RPC id 7"), "{}", err(&o));
        assert!(err(&o).contains("2 call(s) recorded"), "{}", err(&o));
        assert_eq!(finding_kinds(&log), Vec::<String>::new());
        let text = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let mut pairs = Vec::new();
        for c in lines.iter().filter(|l| l["event"] == "tool_call") {
            let id = c["call_id"].as_str().unwrap();
            let r = lines
                .iter()
                .find(|l| l["event"] == "tool_result" && l["tag"]["call_id"] == id)
                .unwrap();
            let asked = c["request"]["params"]["arguments"]["q"].as_str().unwrap();
            let answered = r["response"]["result"]["content"][0]["text"]
                .as_str()
                .unwrap();
            assert!(
                answered.contains(&format!("\"q\": \"{asked}\"")),
                "{id}: asked {asked}, sealed with the answer {answered}"
            );
            assert_eq!(c["request"]["id"], 7);
            assert_eq!(r["response"]["id"], 7);
            pairs.push(id.to_owned());
        }
        pairs.sort();
        assert_eq!(pairs, ["s#7", "s#7#2"]);
    }
}

/// The hole: `record` printed client-chosen JSON-RPC ids (and other message content) on stderr
/// raw, so a client could send escape sequences to the terminal of whoever runs the proxy.
#[test]
fn record_stderr_never_carries_a_raw_control_character() {
    let d = Dir::new();
    let log = d.p("esc.jsonl");
    let id = "\"\\u001b]0;pwned\\u0007\\u001b]52;c;eHh4\\u0007\\nprovscope record: forged\\u202e\"";
    // The third is not a valid tools/call: its id is quoted in the note.
    let bad =
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":5}}}}"#);
    let input = format!(
        "{}\n{}\n{bad}\n",
        call(id, "slow", serde_json::json!({"seconds": 0.2})),
        call(id, "echo", serde_json::json!({})),
    );
    let o = d.record(&log, &["--server-name", "s"], input.as_bytes());
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let e = err(&o);
    assert!(e.contains("reused JSON-RPC id"), "{e}");
    assert!(e.contains("not recordable"), "{e}");
    assert!(
        !e.chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
        "{e:?}"
    );
    assert!(
        !e.lines().any(|l| l.starts_with("provscope record: forged")),
        "{e}"
    );
}
