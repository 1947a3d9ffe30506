//! The hostile corpus: every payload in every string field of a session log, through every
//! command that reads logs and every output format. Human-facing streams (text stdout, every
//! stderr) never carry a raw control character, escape sequence introducer, bidi control or
//! invisible character; machine formats parse and carry the original values intact.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// Terminal attacks: escape sequences (clear screen, title, clipboard), C1 CSI, bell, carriage
/// return and backspace (overwriting a line), DEL, NUL, bidi controls, invisible characters.
const PAYLOADS: &[&str] = &[
    "\u{1b}[2J\u{1b}[H",
    "\u{1b}]0;pwned\u{7}",
    "\u{1b}]52;c;cHduZWQ=\u{7}",
    "\u{9b}31m",
    "\r\u{8}\u{8}valid: verified with",
    "\u{7f}\u{0}",
    "\u{202e}dlrow\u{202c}",
    "\u{2066}x\u{2069}\u{061c}",
    "zero\u{200b}width\u{200d}\u{feff}",
];

/// Keys whose values are enums, timestamps or hashes: left alone so the log stays loadable.
const STRUCTURAL: &[&str] = &[
    "event",
    "jsonrpc",
    "method",
    "type",
    "tier",
    "span_unit",
    "policy",
    "fact",
    "arguments_hash",
    "mimeType",
];

fn poison(v: &mut Value, key: Option<&str>, payload: &str) {
    match v {
        Value::String(s) => {
            let k = key.unwrap_or("");
            if !STRUCTURAL.contains(&k) && !k.ends_with("_at") {
                s.push_str(payload);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| poison(x, key, payload)),
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                poison(x, Some(k), payload);
            }
        }
        _ => {}
    }
}

fn hostile_log(payload: &str) -> String {
    let src = include_str!("../../sample-sessions/06-parallel-conflict.jsonl");
    let mut out = String::new();
    for line in src.lines().filter(|l| !l.trim().is_empty()) {
        let mut v: Value = serde_json::from_str(line).unwrap();
        poison(&mut v, None, payload);
        out.push_str(&serde_json::to_string(&v).unwrap());
        out.push('\n');
    }
    out
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .output()
        .unwrap()
}

/// The first character a terminal would act on, if any (`\n` is allowed; colour is off).
fn unsafe_char(text: &str) -> Option<(usize, char)> {
    text.char_indices()
        .find(|(_, c)| *c != '\n' && provscope::text::is_unsafe(*c))
}

fn assert_human(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    if let Some((at, c)) = unsafe_char(&text) {
        let from = text[..at].char_indices().rev().nth(40).map_or(0, |x| x.0);
        panic!(
            "{what}: raw U+{:04X} reaches the terminal near {:?}",
            c as u32,
            &text[from..at]
        );
    }
}

fn assert_json(what: &str, bytes: &[u8], payload: &str) -> Value {
    let v: Value = serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {}", String::from_utf8_lossy(bytes)));
    let mut found = false;
    find_payload(&v, payload, &mut found);
    assert!(
        found,
        "{what}: the payload does not appear intact in any value"
    );
    v
}

fn find_payload(v: &Value, payload: &str, found: &mut bool) {
    match v {
        Value::String(s) => *found |= s.contains(payload),
        Value::Array(a) => a.iter().for_each(|x| find_payload(x, payload, found)),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            *found |= k.contains(payload);
            find_payload(x, payload, found)
        }),
        _ => {}
    }
}

fn assert_xml(what: &str, bytes: &[u8]) {
    let text = std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{what}: not UTF-8: {e}"));
    roxmltree::Document::parse(text).unwrap_or_else(|e| panic!("{what}: not XML ({e}): {text}"));
}

#[test]
fn hostile_logs_never_reach_a_terminal_and_never_break_machine_output() {
    for (i, payload) in PAYLOADS.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("hostile.jsonl");
        std::fs::write(&log, hostile_log(payload)).unwrap();
        let log = log.display().to_string();
        let db = dir.path().join("cases.db").display().to_string();
        let what = |cmd: &str| format!("payload {i} {payload:?}: {cmd}");

        // Text for people: stdout and stderr both through the boundary.
        for args in [
            vec!["verify", &log],
            vec!["verify", "-v", &log],
            vec!["summary", &log],
            vec!["metrics", &log],
            vec!["report", &log],
            vec!["open", &log],
            vec![&log],
        ] {
            let o = run(dir.path(), &args);
            assert!(o.status.code().is_some(), "{}", what(&args.join(" ")));
            assert_human(&what(&args.join(" ")), &o.stdout);
            assert_human(&what(&format!("{} (stderr)", args.join(" "))), &o.stderr);
        }
        // Machine formats: parse, values intact; stderr still clean.
        for fmt in ["json", "sarif"] {
            let o = run(dir.path(), &["verify", "--format", fmt, &log]);
            assert_json(&what(fmt), &o.stdout, payload);
            assert_human(&what(&format!("{fmt} stderr")), &o.stderr);
        }
        let o = run(dir.path(), &["summary", "--format", "json", &log]);
        serde_json::from_slice::<Value>(&o.stdout)
            .unwrap_or_else(|e| panic!("{}: {e}", what("summary json")));
        for args in [
            vec!["metrics", "--format", "json", &log],
            vec!["report", "--format", "json", &log],
        ] {
            let o = run(dir.path(), &args);
            assert_json(&what(&args.join(" ")), &o.stdout, payload);
        }
        let o = run(dir.path(), &["verify", "--format", "junit", &log]);
        assert_xml(&what("junit"), &o.stdout);
        if payload.contains('\0') {
            continue; // a command-line argument cannot carry NUL: no claim id to name
        }
        // A case exported from the hostile log, checked against it in every format.
        let claim = format!("clm_inc_resolved{payload}");
        let o = run(
            dir.path(),
            &["export", "case", &log, "--claim", &claim, "-o", "case.json"],
        );
        assert!(
            o.status.success(),
            "{}: {}",
            what("export case"),
            String::from_utf8_lossy(&o.stderr)
        );
        assert_human(&what("export case stderr"), &o.stderr);
        let case = std::fs::read(dir.path().join("case.json")).unwrap();
        assert_json(&what("case file"), &case, payload);
        let o = run(dir.path(), &["check", "case.json", "--against", &log]);
        assert_human(&what("check"), &o.stdout);
        let o = run(
            dir.path(),
            &["check", "case.json", "--against", &log, "--format", "json"],
        );
        let v = assert_json(&what("check json"), &o.stdout, payload);
        assert!(v.as_array().is_some_and(|a| !a.is_empty()), "{v}");
        let o = run(
            dir.path(),
            &["check", "case.json", "--against", &log, "--format", "junit"],
        );
        assert_xml(&what("check junit"), &o.stdout);
        // The correction writes its test under a name made from the hostile ids: one path
        // component, no control characters.
        let o = run(
            dir.path(),
            &[
                "--db",
                &db,
                "correct",
                &log,
                "--claim",
                &claim,
                "--outcome",
                "survived",
            ],
        );
        assert!(
            o.status.success(),
            "{}: {}",
            what("correct"),
            String::from_utf8_lossy(&o.stderr)
        );
        assert_human(&what("correct"), &o.stdout);
        let written: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".case.json") && n != "case.json")
            .collect();
        assert_eq!(written.len(), 1, "{written:?}");
        assert!(unsafe_char(&written[0]).is_none(), "{written:?}");
    }
}

#[test]
fn colour_comes_only_from_provscope_itself() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("hostile.jsonl");
    std::fs::write(&log, hostile_log("\u{1b}]0;pwned\u{7}\u{1b}[31m")).unwrap();
    let o = run(
        dir.path(),
        &["--color", "always", "verify", &log.display().to_string()],
    );
    let text = String::from_utf8_lossy(&o.stdout);
    // Every ESC starts one of provscope's own SGR sequences: ESC [ digits ; m
    let mut rest = &*text;
    let mut sgr = 0;
    while let Some(at) = rest.find('\u{1b}') {
        let seq = &rest[at..];
        let end = seq.find('m').expect("an SGR sequence ends with m");
        assert!(
            seq[1..end].starts_with('[')
                && seq[2..end].chars().all(|c| c.is_ascii_digit() || c == ';'),
            "not provscope's colour: {:?}",
            &seq[..end.min(20)]
        );
        sgr += 1;
        rest = &seq[end..];
    }
    assert!(sgr > 0, "no colour at all: {text}");
    assert!(text.contains("^[]0;pwned^G^[[31m"), "{text}");
}
