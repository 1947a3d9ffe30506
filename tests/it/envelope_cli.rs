//! `provscope keygen`, `envelope verify|inspect|seal` as processes: exit codes, messages, files.

use crate::attest_common;

use attest_common::*;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn keygen_writes_a_0600_private_key_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("att");
    let o = run(&["keygen", "--out", p(&base)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let key = dir.path().join("att.key");
    let pubk = dir.path().join("att.pub");
    let k = std::fs::read_to_string(&key).unwrap();
    assert!(k.starts_with("-----BEGIN PRIVATE KEY-----"));
    assert!(std::fs::read_to_string(&pubk)
        .unwrap()
        .starts_with("-----BEGIN PUBLIC KEY-----"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "private key mode {mode:o}");
    }
    let printed = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(printed.contains("ed25519:"));
    // Refuses to overwrite: exit 2, a clear message, files untouched.
    let o = run(&["keygen", "--out", p(&base)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("already exists") && text(&o).contains("--force"));
    assert_eq!(std::fs::read_to_string(&key).unwrap(), k);
    // --force replaces both, still 0600 even if the old file was looser.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let o = run(&["keygen", "--out", p(&base), "--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_ne!(std::fs::read_to_string(&key).unwrap(), k);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}

/// A session log with one call, sealed through the CLI with a fresh key pair.
fn sealed(dir: &Path) -> (String, Value) {
    let base = dir.join("att");
    assert!(run(&["keygen", "--out", p(&base)]).status.success());
    let pubkey = std::fs::read_to_string(dir.join("att.pub")).unwrap();
    let mut lines = vec![header(
        json!([server("pricing.internal", &[pubkey], &[])]),
        true,
    )];
    lines.extend(call_lines(&[call(
        "req_1",
        "pricing.internal",
        "Seats cost €19.",
    )]));
    let log = dir.join("s.jsonl");
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let o = run(&[
        "envelope",
        "seal",
        "--key",
        p(&dir.join("att.key")),
        "--session",
        p(&log),
        "--call",
        "req_1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let line = String::from_utf8(o.stdout).unwrap();
    let ev: Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(ev["event"], "envelope");
    // Appended to the log, the session verifies clean.
    std::fs::write(&log, lines.join("\n") + "\n" + line.trim() + "\n").unwrap();
    (p(&log).to_owned(), ev["envelope"].clone())
}

#[test]
fn seal_then_verify_inspect_and_session_verify() {
    let dir = tempfile::tempdir().unwrap();
    let (log, env) = sealed(dir.path());
    let o = run(&[
        "verify",
        &log,
        "--now",
        "2026-11-01T00:00:00Z",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let file = dir.path().join("env.json");
    std::fs::write(&file, env.to_string()).unwrap();
    let pubf = dir.path().join("att.pub");
    let o = run(&["envelope", "verify", p(&file), "--pub", p(&pubf)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("valid") && text(&o).contains("req_1"));
    let o = run(&["envelope", "inspect", p(&file)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("https://provscope.dev/mcp-execution/v2"));
    // The event line itself is accepted too.
    let line = dir.path().join("line.json");
    std::fs::write(
        &line,
        json!({"event": "envelope", "call_id": "req_1", "envelope": env}).to_string(),
    )
    .unwrap();
    assert_eq!(
        run(&["envelope", "verify", p(&line), "--pub", p(&pubf)])
            .status
            .code(),
        Some(0)
    );
    // seal is hidden from help but works.
    assert!(!text(&run(&["envelope", "--help"])).contains("seal"));
}

#[test]
fn envelope_verify_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let (_, env) = sealed(dir.path());
    let pubf = dir.path().join("att.pub");
    let keyf = dir.path().join("att.key");
    let file = dir.path().join("env.json");
    let check = |content: &str, key: &Path| {
        std::fs::write(&file, content).unwrap();
        let o = run(&["envelope", "verify", p(&file), "--pub", p(key)]);
        (o.status.code(), text(&o))
    };
    // Flipped signature bit, flipped payload bit: invalid (1).
    for field in ["sig", "payload"] {
        let (code, out) = check(&flip_b64(&env, field, 3, 2).to_string(), &pubf);
        assert_eq!(code, Some(1), "{field}: {out}");
        assert!(out.contains("invalid"), "{out}");
    }
    // Wrong payloadType, no signatures: invalid (1).
    let mut e = env.clone();
    e["payloadType"] = json!("text/plain");
    assert_eq!(check(&e.to_string(), &pubf).0, Some(1));
    let mut e = env.clone();
    e["signatures"] = json!([]);
    assert_eq!(check(&e.to_string(), &pubf).0, Some(1));
    // Truncated or not JSON: unreadable (2).
    let s = env.to_string();
    assert_eq!(check(&s[..s.len() / 2], &pubf).0, Some(2));
    assert_eq!(check("not json", &pubf).0, Some(2));
    // A private key where the public key is expected: 2, and says so.
    let (code, out) = check(&s, &keyf);
    assert_eq!(code, Some(2));
    assert!(out.contains("private key"), "{out}");
    // Another key: invalid.
    let other = dir.path().join("other");
    assert!(run(&["keygen", "--out", p(&other)]).status.success());
    assert_eq!(check(&s, &dir.path().join("other.pub")).0, Some(1));
    // Missing file: 2.
    let o = run(&["envelope", "verify", "/nonexistent.json", "--pub", p(&pubf)]);
    assert_eq!(o.status.code(), Some(2));
    // inspect on garbage: 1 when JSON but not an envelope, 2 when not JSON.
    std::fs::write(&file, "{\"payload\": 1}").unwrap();
    assert_eq!(
        run(&["envelope", "inspect", p(&file)]).status.code(),
        Some(1)
    );
    std::fs::write(&file, "{").unwrap();
    assert_eq!(
        run(&["envelope", "inspect", p(&file)]).status.code(),
        Some(2)
    );
}

#[test]
fn a_100_mb_envelope_file_is_refused_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let (_, env) = sealed(dir.path());
    let mut e = env.clone();
    use base64::Engine;
    e["payload"] = json!(B64.encode(vec![b'x'; 100 << 20]));
    let file = dir.path().join("big.json");
    std::fs::write(&file, e.to_string()).unwrap();
    let o = run(&[
        "envelope",
        "verify",
        p(&file),
        "--pub",
        p(&dir.path().join("att.pub")),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("MiB"), "{}", text(&o));
}

#[test]
fn seal_errors_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = sealed(dir.path());
    let key = dir.path().join("att.key");
    let o = run(&[
        "envelope",
        "seal",
        "--key",
        p(&key),
        "--session",
        &log,
        "--call",
        "req_9",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("req_9"), "{}", text(&o));
    let o = run(&[
        "envelope",
        "seal",
        "--key",
        p(&dir.path().join("att.pub")),
        "--session",
        &log,
        "--call",
        "req_1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("public key"), "{}", text(&o));
}

#[test]
fn a_tag_edited_after_sealing_is_reported_by_verify() {
    // The hole: moving fetched_at (or the TTL) in the tag after sealing used to pass silently,
    // hiding a `stale` finding while the envelope still verified.
    let dir = tempfile::tempdir().unwrap();
    let (log, _) = sealed(dir.path());
    let content = std::fs::read_to_string(&log).unwrap();
    for (from, to, field) in [
        (
            "\"fetched_at\":\"2026-10-02T14:00:00.500Z\"",
            "\"fetched_at\":\"2026-10-02T18:00:00.500Z\"",
            "tag.fetched_at",
        ),
        (
            "\"returned_at\":\"2026-10-02T14:00:00.500Z\"",
            "\"returned_at\":\"2026-10-02T14:00:00.501Z\"",
            "tag.returned_at",
        ),
        (
            "\"fetched_at\":\"2026-10-02T14:00:00.500Z\"",
            "\"ttl_seconds\":999999,\"fetched_at\":\"2026-10-02T14:00:00.500Z\"",
            "tag.ttl_seconds",
        ),
    ] {
        assert_eq!(content.matches(from).count(), 1, "{from}");
        std::fs::write(&log, content.replace(from, to)).unwrap();
        let o = run(&["verify", &log, "--format", "json"]);
        assert_eq!(o.status.code(), Some(1), "{field}: {}", text(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let f = &v["sessions"][0]["session_findings"];
        let tampered: Vec<&Value> = f
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kind"] == "result_tampered")
            .collect();
        assert_eq!(tampered.len(), 1, "{field}: {f}");
        assert_eq!(tampered[0]["evidence"]["tampered_fields"], json!([field]));
    }
}

/// Every character a terminal could act on: controls (C0 but the newline, DEL, C1) and the
/// bidi controls.
fn unsafe_chars(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n')
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

/// The hole: `envelope verify` and `inspect` printed payload fields raw. A genuinely signed
/// envelope whose call id came from a client-chosen JSON-RPC id (or a forged one) could draw a
/// fake "valid ... verified with" line, set the terminal title and write the clipboard.
#[test]
fn envelope_fields_never_reach_the_terminal_raw() {
    use base64::Engine;
    use provscope::attest::envelope::{seal, Attestor, Observed};
    use provscope::model::event::CacheInfo;
    use provscope::model::{CallResponse, Timestamp};
    let dir = tempfile::tempdir().unwrap();
    let k = key(5);
    let evil = "req\u{1b}]0;pwned\u{7}\u{1b}]52;c;cm0gLXJmIH4=\u{7}\n/tmp/forged.json: valid\n  signature 0: verified with ed25519:FAKE\u{9b}2J\u{202e}";
    let response: CallResponse =
        serde_json::from_str(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#).unwrap();
    let cache = CacheInfo::default();
    let obs = Observed {
        session_id: "s\u{1b}[2K",
        call_id: evil,
        server: "srv\u{7}",
        tool: "t\u{1b}[31m",
        arguments: None,
        called_at: Timestamp(0),
        returned_at: Timestamp(1),
        fetched_at: Timestamp(1),
        ttl_seconds: None,
        cache: &cache,
        response: &response,
    };
    let env = seal(
        &obs,
        &Attestor {
            id: "att\u{1b}]52;c;eHh4\u{7}".into(),
            key: k.clone(),
        },
    )
    .unwrap();
    let file = dir.path().join("env.json");
    let pubkey = public(&k);
    let mut bad_type = env.to_value();
    bad_type["payloadType"] = json!("x\u{1b}]0;t\u{7}\n/tmp/forged.json: valid");
    let mut not_json = env.to_value();
    not_json["payload"] =
        json!(B64.encode(b"\x1b]52;c;eHh4\x07\n/tmp/forged.json: valid \xc2\x9b"));
    let mut bad_keyid = env.to_value();
    bad_keyid["signatures"][0]["keyid"] = json!("\u{1b}[1A/tmp/forged.json: valid");
    for (what, content) in [
        ("sealed", env.to_json()),
        ("bad payloadType", bad_type.to_string()),
        ("payload not JSON", not_json.to_string()),
        ("keyid", bad_keyid.to_string()),
    ] {
        std::fs::write(&file, content).unwrap();
        for args in [
            vec!["envelope", "verify", p(&file), "--pub", &pubkey],
            vec!["envelope", "inspect", p(&file)],
        ] {
            let o = run(&args);
            assert!(
                o.status.code().is_some_and(|c| c <= 1),
                "{what}: {}",
                text(&o)
            );
            let all = text(&o);
            assert_eq!(
                unsafe_chars(&all),
                Vec::<char>::new(),
                "{what} {args:?}: {all:?}"
            );
            assert!(
                !all.lines().any(|l| l.starts_with("/tmp/forged.json")
                    || l.starts_with("  signature 0: verified with ed25519:FAKE")),
                "{what} {args:?}: a forged line\n{all}"
            );
        }
    }
    // The genuine envelope still verifies, and the escaped call id is shown.
    std::fs::write(&file, env.to_json()).unwrap();
    let o = run(&["envelope", "verify", p(&file), "--pub", &pubkey]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("req"), "{}", text(&o));
}
