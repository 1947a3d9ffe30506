//! Importers on bad input: truncated, mutated and wrong-format files give diagnostics and never
//! panic (property tests over every real file in tests/formats/, every input of tests/inputs/
//! and the inputs the Langfuse, Managed Agents, Chat Completions, LangSmith and cassette tests generate); and every format mixed in
//! one directory, as a user runs `verify` and `summary` on it.

use super::importers::{formats, provscope};
use proptest::prelude::*;
use provscope::ingest::import::{self, Input, IMPORTERS};
use provscope::ingest::{load_any_bytes, LoadOptions};
use provscope::model::{DiagLevel, Session};
use std::path::PathBuf;
use std::sync::OnceLock;

/// Every real file, and the edited and built inputs of tests/inputs/: (path, format name,
/// bytes).
fn fixtures() -> &'static [(PathBuf, &'static str, Vec<u8>)] {
    static F: OnceLock<Vec<(PathBuf, &'static str, Vec<u8>)>> = OnceLock::new();
    F.get_or_init(|| {
        let mut out = Vec::new();
        let mut stack = vec![formats(), super::importers_shapes::inputs()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x != "md") {
                    let bytes = std::fs::read(&p).unwrap();
                    let name = match import::detect(&bytes) {
                        import::Detected::Import(i) => i.name,
                        _ => panic!("{} is not detected", p.display()),
                    };
                    out.push((p, name, bytes));
                }
            }
        }
        out.sort();
        // Generated: a Langfuse API trace whose first keys hold a 200 KiB input.
        out.push((
            PathBuf::from("generated/langfuse-long-input.json"),
            "langfuse",
            super::importers_shapes::long_input_trace(),
        ));
        // Generated: the Managed Agents recording's events in the other shapes read (one a
        // line, a page of the list, a bare array, the server-sent event stream).
        for (name, bytes) in super::importers_managed::shapes() {
            let path = PathBuf::from(format!("generated/managed-agents-{name}"));
            out.push((path, "anthropic-managed-agents", bytes));
        }
        // Generated: the Chat Completions proxy records as a JSON list and one record alone,
        // and the streamed response's chunks one a line; the same for the deprecated
        // `function_call` and `function` messages (their records as a list, their chunks one a
        // line).
        for (name, bytes) in super::importers_chat::shapes() {
            let path = PathBuf::from(format!("generated/openai-chat-{name}"));
            out.push((path, "openai-chat", bytes));
        }
        // Generated: the LangSmith agent trace as a page of a run query, runs one a line, and
        // the batch payload (posted runs, then patched).
        for (name, bytes) in super::importers_langsmith::shapes() {
            let path = PathBuf::from(format!("generated/langsmith-{name}"));
            out.push((path, "langsmith", bytes));
        }
        // Generated: the real gzip cassette without headers, with a deflate body, with a `br`
        // one.
        for (name, bytes) in super::importers_vcr::shapes() {
            let path = PathBuf::from(format!("generated/openai-responses-{name}"));
            out.push((path, "openai-responses", bytes));
        }
        out
    })
}

/// The session is internally consistent and the checks run on it.
fn consistent(s: &Session) {
    // A diagnostic with a position carries it once, in its fields, not again in the sentence.
    for d in s.diagnostics.iter().filter(|d| d.line > 0) {
        assert!(
            !(d.message.contains(" at line ") && d.message.contains(" column ")),
            "position repeated in {:?}",
            d.message
        );
    }
    for c in &s.calls {
        assert_eq!(s.call(&c.id).map(|x| x.id.as_str()), Some(c.id.as_str()));
    }
    for r in &s.results {
        assert_eq!(
            s.result(r.call_id()).map(|x| x.call_id()),
            Some(r.call_id())
        );
    }
    assert!(s.index.call.len() <= s.calls.len() && s.index.result.len() <= s.results.len());
    let _ = provscope::check::check_session(s, &provscope::check::Config::default());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 900, ..ProptestConfig::default() })]

    #[test]
    fn truncated_files_give_diagnostics(which in any::<prop::sample::Index>(), at in 0.0f64..1.0) {
        let f = which.get(fixtures());
        let end = f.2.iter().rposition(|c| !c.is_ascii_whitespace()).unwrap_or(0);
        let cut = ((end as f64) * at) as usize;
        let sessions = load_any_bytes("t", "t", &f.2[..cut], &LoadOptions::default());
        prop_assert!(!sessions.is_empty());
        for s in &sessions {
            consistent(s);
        }
        // A JSON document cut short is never valid: it must say so.
        if f.0.extension().is_some_and(|x| x == "json") {
            prop_assert!(
                sessions.iter().flat_map(|s| &s.diagnostics).any(|d| d.level == DiagLevel::Error),
                "{} cut at {cut} gave no error", f.0.display()
            );
        }
    }

    #[test]
    fn mutated_files_never_panic(which in any::<prop::sample::Index>(), edits in prop::collection::vec((0.0f64..1.0, any::<u8>()), 1..12)) {
        let f = which.get(fixtures());
        let mut bytes = f.2.clone();
        for (at, b) in edits {
            let i = ((bytes.len() as f64) * at) as usize;
            if let Some(x) = bytes.get_mut(i) {
                *x = b;
            }
        }
        let sessions = load_any_bytes("m", "m", &bytes, &LoadOptions::default());
        prop_assert!(!sessions.is_empty());
        for s in &sessions {
            consistent(s);
        }
    }

    #[test]
    fn wrong_format_input_is_reported(which in any::<prop::sample::Index>(), imp in any::<prop::sample::Index>()) {
        let f = which.get(fixtures());
        let importer = imp.get(IMPORTERS);
        prop_assume!(importer.name != f.1);
        let input = Input { name: "w".into(), source: "w".into(), path: None, bytes: &f.2, text: None, rest: None, opts: &LoadOptions::default(), detection_keys: Default::default() };
        let sessions = import::run(importer, &input);
        prop_assert!(!sessions.is_empty());
        for s in &sessions {
            consistent(s);
            let loaded = s.calls.len() + s.answers.len();
            prop_assert!(!s.diagnostics.is_empty() || loaded == 0 || s.import.as_ref().is_some_and(|i| !i.notes.is_empty()),
                "{} read {} as {} silently", importer.name, f.0.display(), f.1);
        }
    }
}

#[test]
fn every_format_in_one_directory_loads_in_verify_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    // The real files, a native log, and files that are no session at all.
    copy_tree(&formats(), dir.path());
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("sample-sessions/04-stale-cache.jsonl"),
        dir.path().join("04-stale-cache.jsonl"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("package.json"),
        "{\"name\":\"x\",\"version\":\"1.0.0\"}",
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.log"), "just some text\n").unwrap();
    // No public OTLP export exists: one built from the semconv example (importers_otlp.rs).
    write_otlp(dir.path());
    let d = dir.path().to_str().unwrap();

    let o = provscope(&["summary", "--format", "json", d]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "warnings only: {err}");
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rows.len(), 30, "29 imported sessions and the native log");
    let mut formats: Vec<&str> = rows.iter().map(|r| r["format"].as_str().unwrap()).collect();
    formats.sort();
    formats.dedup();
    assert_eq!(
        formats,
        vec![
            "anthropic-messages",
            "claude-code",
            "claude-desktop-log",
            "gemini",
            "langfuse",
            "langsmith",
            "openai-responses",
            "otlp-json",
            "provscope"
        ]
    );
    assert!(
        !err.contains("package.json") && !err.contains("notes.log"),
        "unknown files are skipped quietly: {err}"
    );

    let o = provscope(&["verify", d]);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "findings, no input error: {err}");
    assert!(!err.contains(": error:"), "{err}");
    for name in [
        "mcp-server-weather",
        "claude-agent-2025-12-22.trace",
        "test_google_model_web_search_tool",
        "04-stale-cache",
        "agent-a5bdbc1",
        "langsmith_js_wrap_openai_default",
    ] {
        assert!(out.contains(name), "{name} in {out}");
    }
    // The OTLP conversation has no finding to list: it is counted.
    assert!(out.contains("30 sessions"), "{out}");
}

#[test]
fn a_named_file_of_no_known_format_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("notes.txt");
    std::fs::write(&p, "hello\n").unwrap();
    let o = provscope(&["summary", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a known session or trace format"));
    // A pretty-printed JSON document of no known format (a JSON Schema): one error, not one
    // per line as if it were a damaged session log.
    let schema = dir.path().join("schema.json");
    std::fs::write(
        &schema,
        "{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n  \"type\": \"array\"\n}\n",
    )
    .unwrap();
    let o = provscope(&["summary", schema.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("not a known session or trace format"), "{err}");
    assert_eq!(err.matches(": error:").count(), 1, "{err}");
    let o = provscope(&["summary", "--format", "json", schema.to_str().unwrap()]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        rows[0]["format"], "unknown",
        "not listed as a provscope log"
    );
    // A one-line JSON document (or JSON lines) of no known format: one error naming its
    // first keys (escaped: they are the file's text), listed as `unknown`.
    let notes = dir.path().join("notes.json");
    std::fs::write(
        &notes,
        "{\"id\":\"x\",\"kind\":\"note\",\"k\\u001b[2J\":1,\"items\":[]}\n{\"id\":\"y\"}\n",
    )
    .unwrap();
    let o = provscope(&["summary", "--format", "json", notes.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches(": error:").count(), 1, "{err}");
    assert!(
        err.contains("not a provscope session log (no `event` in its first lines) nor a format provscope imports: its first object has `id`, `kind`, `k"),
        "{err}"
    );
    assert!(err.contains("`items`"), "{err}");
    assert!(
        !err.contains('\u{1b}'),
        "the key's escape is not printed raw: {err}"
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rows[0]["format"], "unknown");
    // A damaged session log whose first line lacks its `event` is still read line by line.
    std::fs::write(
        &notes,
        "{\"x\":1}\n{\"event\":\"turn\",\"turn\":1,\"at\":\"2026-01-01T00:00:00Z\",\"user\":\"hi\"}\n",
    )
    .unwrap();
    let o = provscope(&["summary", "--format", "json", notes.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(":1:7: error: required field `event` is missing"),
        "{err}"
    );
    assert!(!err.contains("not a provscope session log"), "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rows[0]["format"], "provscope");
    std::fs::remove_file(&notes).unwrap();
    std::fs::remove_file(&schema).unwrap();
    std::fs::write(dir.path().join("package.json"), "{\"name\":\"x\"}").unwrap();
    std::fs::remove_file(&p).unwrap();
    let o = provscope(&["summary", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no session logs or known traces"));
}

/// An OTLP/JSON Collector file export (one request per line, one conversation of two traces),
/// built from the semantic conventions' MCP stdio example, as `traces.jsonl` in `dir`.
pub fn write_otlp(dir: &std::path::Path) {
    let lines = [
        super::importers_otlp::stdio_example("aaaa", Some("conv-mixed"), true).to_string(),
        super::importers_otlp::stdio_example("bbbb", Some("conv-mixed"), true).to_string(),
    ];
    std::fs::write(dir.join("traces.jsonl"), lines.join("\n") + "\n").unwrap();
}

pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_tree(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

#[test]
fn import_to_provscope_writes_logs_that_load_with_the_same_content_and_findings() {
    let dir = tempfile::tempdir().unwrap();
    let src = formats();
    let o = provscope(&[
        "import",
        "--to",
        "provscope",
        "-o",
        dir.path().to_str().unwrap(),
        src.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("wrote 28 session logs"));
    let summary = |p: &str| -> Vec<serde_json::Value> {
        let o = provscope(&["summary", "--format", "json", p]);
        let mut rows: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
        for r in &mut rows {
            let m = r.as_object_mut().unwrap();
            for k in ["file", "format", "notes", "warnings", "errors"] {
                m.remove(k);
            }
        }
        rows.sort_by_key(|r| r["session"].as_str().unwrap().to_owned());
        rows
    };
    let native = summary(dir.path().to_str().unwrap());
    assert_eq!(
        native,
        summary(src.to_str().unwrap()),
        "same turns, calls, results, claims and findings"
    );
    let text = std::fs::read_to_string(dir.path().join("mcp-server-weather.jsonl")).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["event"], "session");
    assert_eq!(header["imported_from"]["format"], "claude-desktop-log");
    let o = provscope(&["import", "--to", "provscope", src.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "--output is required");
}

/// The explorer opens the session a call ran: loaded already, it is selected; else the runtime
/// is asked to load its file.
#[test]
fn the_explorer_opens_a_sub_agent_session_from_its_call() {
    use provscope::check::{check_session, Config};
    use provscope::tui::action::{Action, View};
    use provscope::tui::app::Loaded;
    use provscope::tui::update::{update, Effect};
    let root = formats().join("claude-code/projects/-Users-pete-tmp-claude-code-sessions");
    let parent = root.join("0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl");
    let child = root.join("0ccf1a04-1b4c-43b6-8aa5-79e41db43a68/subagents/agent-a5bdbc1.jsonl");
    let mk = |paths: &[&std::path::Path]| {
        let mut app = provscope::tui::new_app(&Config::default(), false).unwrap();
        for p in paths {
            for s in provscope::ingest::load_file_sessions(p, &LoadOptions::default()) {
                let r = check_session(&s, &Config::default());
                app.push_session(Loaded::new(s, r));
            }
        }
        app
    };
    let open_parent_turn = |app: &mut provscope::tui::app::App| {
        let pos = app
            .order
            .iter()
            .position(|i| app.sessions[i].session.name.starts_with("0ccf1a04"))
            .unwrap();
        app.sel_session = pos;
        update(app, Action::Open);
        let l = app.current().unwrap();
        let turn = l
            .session
            .calls
            .iter()
            .find(|c| c.id == "toolu_01GWWdppestRqCj3fkznnGwf")
            .unwrap()
            .turn;
        app.sel_turn = l
            .session
            .turns
            .iter()
            .position(|t| t.index == turn)
            .unwrap();
    };
    // Only the parent loaded: the runtime loads the transcript next to it.
    let mut app = mk(&[&parent]);
    open_parent_turn(&mut app);
    // The turn ran two agents: afbbf75's transcript is not in the folder (a status line says
    // so), a5bdbc1's is (the runtime is asked to load it); `a` again moves to the next.
    let first = update(&mut app, Action::SubSession);
    assert!(
        first.is_empty() && app.status.contains("not in a file next to this log"),
        "{}",
        app.status
    );
    match update(&mut app, Action::SubSession).as_slice() {
        [Effect::LoadSession(path, id)] => {
            assert!(path.ends_with("subagents/agent-a5bdbc1.jsonl"), "{path}");
            assert_eq!(id, "0ccf1a04-1b4c-43b6-8aa5-79e41db43a68:agent-a5bdbc1");
        }
        other => panic!("{other:?}"),
    }
    // Both loaded: `a` selects the sub-agent's session; Back returns to the parent.
    let mut app = mk(&[&parent, &child]);
    open_parent_turn(&mut app);
    let mut opened = false;
    for _ in 0..2 {
        let e = update(&mut app, Action::SubSession);
        if e.is_empty() && app.current().unwrap().session.name == "agent-a5bdbc1" {
            opened = true;
            break;
        }
    }
    assert!(opened, "status: {}", app.status);
    assert_eq!(app.view, View::Session);
    update(&mut app, Action::Back);
    assert_eq!(app.view, View::Session);
    assert!(app.current().unwrap().session.name.starts_with("0ccf1a04"));
}

#[test]
fn a_streamed_file_loads_like_the_same_bytes_read_whole() {
    // Files over the 64 KiB detection head of line formats are streamed from disk; the same
    // bytes given whole must give the same sessions.
    let log = std::fs::read(formats().join("claude-desktop-log/mcp-server-weather.log")).unwrap();
    let cc = formats().join(
        "claude-code/projects/-Users-pete-tmp-claude-code-sessions/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl",
    );
    let dir = tempfile::tempdir().unwrap();
    let big_log = dir.path().join("mcp-server-weather.log");
    std::fs::write(&big_log, log.repeat(12)).unwrap();
    for (p, format) in [(big_log, "claude-desktop-log"), (cc, "claude-code")] {
        let bytes = std::fs::read(&p).unwrap();
        assert!(bytes.len() > 64 * 1024);
        let opts = provscope::ingest::LoadOptions::default();
        let streamed = provscope::ingest::load_file_sessions(&p, &opts);
        let src = p.display().to_string();
        let whole = provscope::ingest::load_any_bytes("x", &src, &bytes, &opts);
        assert_eq!(streamed.len(), whole.len());
        for (a, b) in streamed.iter().zip(&whole) {
            assert_eq!(a.format(), format);
            assert!(!a.calls.is_empty());
            let ids = |s: &provscope::model::Session| {
                s.calls.iter().map(|c| c.id.clone()).collect::<Vec<_>>()
            };
            assert_eq!(ids(a), ids(b));
            assert_eq!(a.results.len(), b.results.len());
            assert_eq!(a.answers.len(), b.answers.len());
            assert_eq!(a.bytes, b.bytes);
            let diags = |s: &provscope::model::Session| {
                s.diagnostics
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
            };
            assert_eq!(diags(a), diags(b));
        }
    }
}

#[test]
fn a_character_across_the_first_4_kib_of_a_response_is_no_panic() {
    // The importers of one response or a cassette look at the first 4 KiB for a cassette; a
    // response whose 4,096th byte is inside a character panicked there.
    for (doc, format) in [
        (
            r#"{"object":"response","id":"r","model":"m","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","annotations":[],"text":"PAD"}]}]}"#,
            "openai-responses",
        ),
        (
            r#"{"type":"message","role":"assistant","content":[{"type":"text","text":"PAD"}]}"#,
            "anthropic-messages",
        ),
        (
            r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"PAD"}]}}],"modelVersion":"g"}"#,
            "gemini",
        ),
    ] {
        let at = doc.find("PAD").unwrap();
        let pad = "a".repeat(4095 - at) + &"\u{e9}".repeat(8);
        let text = doc.replace("PAD", &pad);
        assert!(!text.is_char_boundary(4096), "{format}");
        let sessions = load_any_bytes("x", "x.json", text.as_bytes(), &LoadOptions::default());
        assert_eq!(sessions.len(), 1, "{format}");
        assert_eq!(sessions[0].format(), format);
        assert_eq!(sessions[0].answers.len(), 1, "{format}");
        assert!(
            sessions[0].answers[0].text.ends_with("\u{e9}\u{e9}"),
            "{format}"
        );
    }
}

/// What a loaded file says, for comparing two spellings of it: each session as the log
/// `import --to provscope` writes (the file's name taken out) and its diagnostics.
fn read_as(path: &std::path::Path) -> Vec<(String, Vec<String>)> {
    let opts = LoadOptions::default();
    let name = path.display().to_string();
    provscope::ingest::load_file_sessions(path, &opts)
        .iter()
        .map(|s| {
            let mut log = Vec::new();
            import::native::write_session(s, &mut log).unwrap();
            let log = String::from_utf8(log).unwrap().replace(&name, "FILE");
            let diags = s
                .diagnostics
                .iter()
                .map(|d| {
                    format!(
                        "{}:{}:{} {:?} {}",
                        d.line, d.column, d.path, d.level, d.message
                    )
                })
                .collect();
            (log, diags)
        })
        .collect()
}

#[test]
fn a_byte_order_mark_changes_nothing() {
    // Windows tools write UTF-8 with a byte order mark (PowerShell's `Set-Content -Encoding
    // utf8`, .NET's `Encoding.UTF8`); RFC 8259 lets a reader ignore it. Every real file, the
    // OTLP export, a native log, and a transcript over the 64 KiB head (streamed) read the same
    // with one.
    let dir = tempfile::tempdir().unwrap();
    let (plain, bom) = (dir.path().join("plain"), dir.path().join("bom"));
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::create_dir_all(&bom).unwrap();
    write_otlp(&plain);
    let mut files: Vec<(String, Vec<u8>)> = vec![(
        "traces.jsonl".into(),
        std::fs::read(plain.join("traces.jsonl")).unwrap(),
    )];
    for (i, (p, _, bytes)) in fixtures().iter().enumerate() {
        let name = p.file_name().unwrap().to_string_lossy();
        files.push((format!("{i}-{name}"), bytes.clone()));
    }
    let native = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-sessions/01-clean-baseline.jsonl");
    files.push(("native.jsonl".into(), std::fs::read(native).unwrap()));
    assert!(files.iter().any(|(_, b)| b.len() > 64 * 1024));
    for (name, bytes) in &files {
        let (a, b) = (plain.join(name), bom.join(name));
        std::fs::write(&a, bytes).unwrap();
        std::fs::write(&b, [&b"\xef\xbb\xbf"[..], bytes].concat()).unwrap();
        let (want, got) = (read_as(&a), read_as(&b));
        assert!(!want.is_empty() && want.iter().all(|(log, _)| log.contains("\"event\"")));
        assert_eq!(got, want, "{name}");
    }
}
