//! LangSmith runs: the real batch ingestion payload of tests/formats/langsmith/ and the
//! hand-written runs of tests/inputs/langsmith/ (a list of an agent's runs, a run tree with a
//! retriever, runs of two traces of one thread one a line, a batch whose tool run failed), and
//! bad input: truncated files, fields of the wrong type, a patch of no posted run.

use crate::importers::{errors, notes, provscope, summary_rows, warnings};
use provscope::ingest::import::{self, Detected};
use provscope::ingest::{load_any_bytes, load_file_sessions, LoadOptions};
use provscope::model::{Session, Timestamp};
use serde_json::{json, Value};
use std::path::PathBuf;

const FORMAT: &str = "langsmith";

fn dir() -> PathBuf {
    super::importers_shapes::inputs().join("langsmith")
}

fn load(name: &str) -> Vec<Session> {
    load_file_sessions(&dir().join(name), &LoadOptions::default())
}

fn one(name: &str) -> Session {
    let mut v = load(name);
    assert_eq!(
        v.len(),
        1,
        "{name}: {:?}",
        v.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    v.remove(0)
}

fn bytes(v: &Value) -> Vec<u8> {
    serde_json::to_string_pretty(v).unwrap().into_bytes()
}

fn read(name: &str, bytes: &[u8]) -> Vec<Session> {
    load_any_bytes(name, name, bytes, &LoadOptions::default())
}

/// The arguments a call recorded, as JSON.
fn args(s: &Session, id: &str) -> Value {
    let c = s.call(id).unwrap_or_else(|| panic!("no call {id}"));
    serde_json::from_str(c.request.params.arguments.as_ref().unwrap().get()).unwrap()
}

fn t(text: &str) -> Timestamp {
    Timestamp::parse(text).unwrap()
}

/// The hand-written agent trace's runs (a list of `client.list_runs`), as JSON.
fn agent_runs() -> Vec<Value> {
    let text = std::fs::read_to_string(dir().join("agent-list-runs.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The agent trace in the other shapes read: a page of `POST /runs/query`, runs one a line, and
/// the batch payload an SDK sends (the runs posted without their outputs, then patched).
pub fn shapes() -> Vec<(&'static str, Vec<u8>)> {
    let runs = agent_runs();
    let page = json!({"runs": runs, "cursors": {"next": null}});
    let lines: String = runs.iter().map(|r| format!("{r}\n")).collect();
    let mut post = Vec::new();
    let mut patch = Vec::new();
    for r in &runs {
        let mut p = r.clone();
        let o = p.as_object_mut().unwrap();
        let outputs = o.remove("outputs").unwrap();
        let end = o.remove("end_time").unwrap();
        post.push(p);
        patch.push(json!({"id": r["id"], "trace_id": r["trace_id"], "dotted_order": r["dotted_order"], "outputs": outputs, "end_time": end}));
    }
    vec![
        ("runs-page.json", bytes(&page)),
        ("runs.jsonl", lines.into_bytes()),
        ("batch.json", bytes(&json!({"post": post, "patch": patch}))),
    ]
}

#[test]
fn the_js_sdk_batch_payload_loads_its_question_and_answer() {
    let f = super::importers::formats().join("langsmith/langsmith_js_wrap_openai_default.json");
    let path = f.to_str().unwrap();
    let rows = summary_rows(path);
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(r["format"], FORMAT, "{r}");
    assert_eq!(
        (&r["turns"], &r["calls"], &r["results"], &r["claims"]),
        (&json!(1), &json!(0), &json!(0), &json!(0)),
        "{r}"
    );
    assert_eq!(r["errors"], 0, "{r}");
    let s = super::importers::one("langsmith/langsmith_js_wrap_openai_default.json");
    assert_eq!(s.format(), FORMAT);
    assert_eq!(s.turns.len(), 1);
    assert_eq!(s.turns[0].user.as_str(), "howdy");
    assert_eq!(s.answers.len(), 1);
    assert_eq!(
        s.answers[0].text.as_str(),
        "Howdy! How can I assist you today?"
    );
    // The answer came with the patch; the question with the posted run.
    assert_eq!(
        s.answers[0].json_path.as_deref(),
        Some("$.patch[0].outputs")
    );
    assert_eq!(s.turns[0].json_path.as_deref(), Some("$.post[0].inputs"));
    // Epoch milliseconds: the run's start and the patch's end.
    assert_eq!(s.turns[0].started_at, Some(t("2024-10-13T07:05:37.170Z")));
    assert_eq!(s.answers[0].generated_at, t("2024-10-13T07:05:38.285Z"));
    assert_eq!(s.id(), "dc34609e-3eeb-459d-bc2a-6fedb01d2e6e");
    assert_eq!(
        s.header.as_ref().unwrap().model.as_deref(),
        Some("gpt-4o-mini")
    );
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.claim_count(), 0, "runs carry no citations: no stamps");
}

#[test]
fn an_agent_trace_pairs_its_tool_run_with_the_models_tool_call() {
    let s = one("agent-list-runs.json");
    assert_eq!(s.format(), FORMAT);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.id(), "1f0a6b2e-3c4d-4e5f-8a9b-000000000001", "the trace");
    assert_eq!(s.turns.len(), 1);
    assert_eq!(s.turns[0].user.as_str(), "What's the weather in Paris?");
    // The root run is the list's last (newest first): its inputs are the question.
    assert_eq!(s.turns[0].json_path.as_deref(), Some("$[6].inputs"));
    assert_eq!(s.calls.len(), 1);
    let c = &s.calls[0];
    assert_eq!(c.id.as_str(), "call_Qx1fT9", "the model's tool call id");
    assert_eq!((c.server.as_str(), c.tool()), ("app", "get_weather"));
    assert_eq!(args(&s, "call_Qx1fT9"), json!({"city": "Paris"}));
    assert_eq!(c.issued_at, t("2025-03-04T10:00:01.310Z"));
    assert_eq!(c.json_path.as_deref(), Some("$[2]"));
    let r = s.result("call_Qx1fT9").unwrap();
    assert_eq!(r.block_text(0), Some("18°C and sunny in Paris."));
    assert!(!r.is_error());
    assert_eq!(r.tag.fetched_at, t("2025-03-04T10:00:01.500Z"));
    assert_eq!(r.json_path.as_deref(), Some("$[2].outputs"));
    assert_eq!(r.tag.arguments_hash.len(), 64);
    // The final llm run's text, not the root's copy of the state.
    assert_eq!(s.answers.len(), 1);
    assert_eq!(
        s.answers[0].text.as_str(),
        "It is 18°C and sunny in Paris right now."
    );
    assert_eq!(s.answers[0].json_path.as_deref(), Some("$[0].outputs"));
    assert_eq!(s.claim_count(), 0);
    let h = s.header.as_ref().unwrap();
    assert_eq!(h.model.as_deref(), Some("gpt-4o-mini"));
    assert_eq!(h.title.as_deref(), Some("LangGraph"));
    // A naive ISO time is UTC.
    assert_eq!(s.turns[0].started_at, Some(t("2025-03-04T10:00:00Z")));
    assert!(
        notes(&s).iter().any(|n| n.contains("TTL")),
        "{:?}",
        notes(&s)
    );
}

#[test]
fn the_agent_trace_reads_the_same_in_every_shape() {
    let want = one("agent-list-runs.json");
    let rows = |s: &Session| {
        (
            s.turns
                .iter()
                .map(|t| t.user.to_string())
                .collect::<Vec<_>>(),
            super::importers::call_rows(s),
            s.answers
                .iter()
                .map(|a| a.text.to_string())
                .collect::<Vec<_>>(),
        )
    };
    for (name, b) in shapes() {
        assert!(
            matches!(import::detect(&b), Detected::Import(i) if i.name == FORMAT),
            "{name}"
        );
        let v = read(name, &b);
        assert_eq!(v.len(), 1, "{name}");
        assert_eq!(v[0].format(), FORMAT, "{name}");
        assert!(
            v[0].diagnostics.is_empty(),
            "{name}: {:?}",
            v[0].diagnostics
        );
        assert_eq!(rows(&v[0]), rows(&want), "{name}");
    }
    // Runs one a line are placed by their line.
    let (_, lines) = shapes().swap_remove(1);
    let s = read("runs.jsonl", &lines).remove(0);
    assert_eq!(
        (s.calls[0].line, s.calls[0].json_path.as_deref()),
        (3, None)
    );
    assert_eq!(
        (s.results[0].line, s.results[0].json_path.as_deref()),
        (3, Some("$.outputs"))
    );
}

#[test]
fn a_run_tree_reads_its_nested_retriever_as_a_call_and_epoch_times() {
    let s = one("rag-run-tree.json");
    assert_eq!(s.format(), FORMAT);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.id(), "7c1d2e3f-4a5b-4c6d-9e8f-0000000000a1");
    assert_eq!(s.turns.len(), 1);
    assert_eq!(
        s.turns[0].user.as_str(),
        "When was the Eiffel Tower completed?"
    );
    // The retriever, nested two deep, takes the id of the model's `tool_use` block.
    assert_eq!(s.calls.len(), 1);
    let c = &s.calls[0];
    assert_eq!(c.id.as_str(), "toolu_01AbCdEf");
    assert_eq!((c.server.as_str(), c.tool()), ("app", "search_docs"));
    assert_eq!(
        args(&s, "toolu_01AbCdEf"),
        json!({"query": "Eiffel Tower completion"})
    );
    assert_eq!(
        c.json_path.as_deref(),
        Some("$.child_runs[1].child_runs[0]")
    );
    // Epoch milliseconds (the JS SDK's).
    assert_eq!(c.issued_at, t("2025-03-04T12:00:00.960Z"));
    let r = s.result("toolu_01AbCdEf").unwrap();
    assert_eq!(r.block_count(), 2, "one block per document");
    assert_eq!(
        r.block_text(1),
        Some("Construction was completed on 31 March 1889.")
    );
    let blocks = &r.response.result.as_ref().unwrap().content;
    assert_eq!(
        blocks[0].extra_field("metadata").unwrap().get(),
        r#"{"source":"eiffel.md","chunk":3}"#
    );
    // The last llm run's text blocks, joined; not the first llm run's "Let me look that up."
    assert_eq!(
        s.answers[0].text.as_str(),
        "The Eiffel Tower was completed in March 1889, for the Exposition Universelle."
    );
    assert_eq!(
        s.answers[0].json_path.as_deref(),
        Some("$.child_runs[2].outputs")
    );
    assert_eq!(s.answers[0].generated_at, t("2025-03-04T12:00:02.350Z"));
}

#[test]
fn two_traces_of_one_thread_are_one_session_of_two_turns_in_time_order() {
    let s = one("thread-runs.jsonl");
    assert_eq!(s.format(), FORMAT);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.id(), "thread-42");
    let users: Vec<&str> = s.turns.iter().map(|t| t.user.as_str()).collect();
    assert_eq!(
        users,
        [
            "Hi, I'm planning a trip to Lisbon in May.",
            "What should I pack?"
        ],
        "the file holds the later trace first"
    );
    assert_eq!(s.turns[0].line, 5);
    let answers: Vec<(u32, &str)> = s
        .answers
        .iter()
        .map(|a| (a.turn, a.text.as_str()))
        .collect();
    assert_eq!(
        answers,
        [
            (1, "Lovely choice! May is a great month for Lisbon."),
            (
                2,
                "Pack light layers and a light jacket: expect 17-23°C with little rain."
            )
        ]
    );
    // The tool message names the call; the call is in the second turn.
    assert_eq!(s.calls.len(), 1);
    let c = &s.calls[0];
    assert_eq!(
        (c.id.as_str(), c.turn, c.tool()),
        ("call_pk1", 2, "get_forecast")
    );
    assert_eq!(
        args(&s, "call_pk1"),
        json!({"city": "Lisbon", "month": "May"})
    );
    assert_eq!(
        s.result("call_pk1").unwrap().block_text(0),
        Some("Lisbon in May: 17-23°C, little rain.")
    );
    assert_eq!(s.answers[1].line, 4, "the final llm run's line");
    assert_eq!(s.answers[1].json_path.as_deref(), Some("$.outputs"));
}

#[test]
fn a_failed_tool_run_is_an_error_result_of_the_paired_call() {
    let s = one("tool-error-batch.json");
    assert_eq!(s.format(), FORMAT);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.calls.len(), 1);
    assert_eq!(s.calls[0].id.as_str(), "call_err1");
    assert_eq!(args(&s, "call_err1"), json!({"name": "Atlantis"}));
    let r = s.result("call_err1").unwrap();
    assert!(r.is_error());
    assert_eq!(
        r.block_text(0),
        Some("ToolException: no city named Atlantis")
    );
    assert_eq!(r.json_path.as_deref(), Some("$.patch[1].error"));
    assert_eq!(r.tag.fetched_at, t("2025-05-03T09:00:01.200Z"));
    // The last patch has no id: its `dotted_order` names the final llm run.
    assert_eq!(
        s.answers[0].text.as_str(),
        "I could not find a city called Atlantis: it is a legendary island, so it has no population figure."
    );
    assert_eq!(
        s.answers[0].json_path.as_deref(),
        Some("$.patch[2].outputs")
    );
}

#[test]
fn a_patch_without_id_or_dotted_order_updates_the_first_unpatched_run_of_its_trace() {
    let mut doc: Value =
        serde_json::from_slice(&std::fs::read(dir().join("tool-error-batch.json")).unwrap())
            .unwrap();
    // The root's patch, first, without its id and dotted order: it updates the root (the
    // trace's first run no patch updated); the llm's patches keep their dotted order.
    let patches = doc["patch"].as_array_mut().unwrap();
    let mut root = patches.pop().unwrap();
    root.as_object_mut().unwrap().remove("id");
    root.as_object_mut().unwrap().remove("dotted_order");
    root["outputs"] = json!({"output": "From the root."});
    patches.insert(0, root);
    for p in patches.iter_mut().skip(1) {
        p.as_object_mut().unwrap().remove("id");
    }
    // No llm output: the root's `output` is the answer.
    for p in patches.iter_mut() {
        if p["outputs"].get("choices").is_some() {
            p["outputs"] = json!({"note": "no text"});
        }
    }
    let s = read("b.json", &bytes(&doc)).remove(0);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.answers[0].text.as_str(), "From the root.");
    assert_eq!(
        s.answers[0].json_path.as_deref(),
        Some("$.patch[0].outputs")
    );
}

#[test]
fn a_file_named_anything_is_detected_by_its_content() {
    let d = tempfile::tempdir().unwrap();
    for (name, src) in [
        ("runs.json", "agent-list-runs.json"),
        ("export", "rag-run-tree.json"),
        ("runs.log", "thread-runs.jsonl"),
    ] {
        let p = d.path().join(name);
        std::fs::copy(dir().join(src), &p).unwrap();
        let rows = summary_rows(p.to_str().unwrap());
        assert_eq!(rows.len(), 1, "{name}");
        assert_eq!(rows[0]["format"], FORMAT, "{name}");
        assert_eq!(rows[0]["errors"], 0, "{name}");
    }
    // In a directory scan too (the `.json` and `.log` files are candidates).
    let rows = summary_rows(d.path().to_str().unwrap());
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["format"] == FORMAT));
}

#[test]
fn import_to_provscope_and_verify_read_runs() {
    let out = tempfile::tempdir().unwrap();
    let src = dir().join("thread-runs.jsonl");
    let o = provscope(&[
        "import",
        "--to",
        "provscope",
        "-o",
        out.path().to_str().unwrap(),
        src.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let written = std::fs::read_to_string(out.path().join("thread-runs.jsonl")).unwrap();
    let header: Value = serde_json::from_str(written.lines().next().unwrap()).unwrap();
    assert_eq!(header["imported_from"]["format"], FORMAT);
    let rows = summary_rows(out.path().to_str().unwrap());
    assert_eq!(
        (&rows[0]["format"], &rows[0]["turns"], &rows[0]["calls"]),
        (&json!("provscope"), &json!(2), &json!(1))
    );
    let o = provscope(&["verify", src.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains(": error:"), "{err}");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("langsmith"), "{text}");
}

#[test]
fn a_truncated_file_says_where_and_the_lines_before_still_load() {
    let doc = std::fs::read(dir().join("agent-list-runs.json")).unwrap();
    let v = read("cut.json", &doc[..doc.len() / 2]);
    assert_eq!(v[0].format(), FORMAT);
    let e = errors(&v[0]);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("malformed JSON") && e[0].contains("nothing read"),
        "{e:?}"
    );
    assert!(e[0].starts_with("cut.json:"), "{e:?}");
    // Runs one a line, cut inside the fifth: the first four lines still load.
    let lines = std::fs::read(dir().join("thread-runs.jsonl")).unwrap();
    let fifth = lines
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(3)
        .unwrap()
        .0;
    let v = read("cut.jsonl", &lines[..fifth + 40]);
    assert_eq!(v.len(), 1);
    let e = errors(&v[0]);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].starts_with("cut.jsonl:5:"), "{e:?}");
    assert!(e[0].contains("line skipped"), "{e:?}");
    assert_eq!(v[0].turns.len(), 1);
    assert_eq!(v[0].calls.len(), 1);
    assert!(v[0].answers[0].text.starts_with("Pack light layers"));
}

#[test]
fn fields_of_the_wrong_type_are_reported_at_their_path_and_the_rest_loads() {
    let mut runs = agent_runs();
    // The tool run's inputs a number: the call is kept without arguments.
    let tool = runs.iter().position(|r| r["run_type"] == "tool").unwrap();
    runs[tool]["inputs"] = json!(5);
    runs[tool]["start_time"] = json!("soon");
    // A run of no type, a run that is no object, a child list that is no list.
    let first_chain = runs.iter().position(|r| r["name"] == "tools").unwrap();
    runs[first_chain]["run_type"] = Value::Null;
    runs.push(json!("not a run"));
    runs[0]["child_runs"] = json!({"a": 1});
    let v = read("bad.json", &bytes(&Value::Array(runs)));
    assert_eq!(v.len(), 1);
    let s = &v[0];
    let d = super::importers::diags(s);
    let has = |want: &str| d.iter().any(|x| x.contains(want));
    assert!(
        has(&format!(
            "bad.json: error: $[{first_chain}].run_type: `run_type` is null, not a string; run skipped"
        )),
        "{d:?}"
    );
    assert!(
        has(&format!(
            "bad.json: warning: $[{tool}].inputs: `inputs` is a number (5), not an object; not read"
        )),
        "{d:?}"
    );
    assert!(
        has(&format!("$[{tool}].start_time: `start_time` is not a time")),
        "{d:?}"
    );
    assert!(
        has("bad.json: error: $[7]: a string is not a run (a JSON object); skipped"),
        "{d:?}"
    );
    assert!(
        has("$[0].child_runs: `child_runs` is an object, not a list; not read"),
        "{d:?}"
    );
    assert!(
        has("1 call without recorded arguments"),
        "missing arguments give a warning, not a made-up hash: {d:?}"
    );
    // Everything else still loads: the question, the paired call (its result) and the answer.
    assert_eq!(s.turns[0].user.as_str(), "What's the weather in Paris?");
    let c = &s.calls[0];
    assert_eq!(
        c.id.as_str(),
        "call_Qx1fT9",
        "paired by name without arguments"
    );
    assert!(c.request.params.arguments.is_none());
    assert_eq!(
        s.result("call_Qx1fT9").unwrap().block_text(0),
        Some("18°C and sunny in Paris.")
    );
    assert!(s.answers[0].text.starts_with("It is 18°C"));
}

#[test]
fn a_patch_of_no_posted_run_is_a_warning_and_the_posted_runs_load() {
    let doc: Value = serde_json::from_slice(
        &std::fs::read(
            super::importers::formats().join("langsmith/langsmith_js_wrap_openai_default.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let mut doc = doc;
    let stray =
        json!({"id": "no-such-run", "end_time": 1728803139000u64, "outputs": {"output": "x"}});
    let lost = json!({"end_time": 1728803139000u64, "outputs": {"output": "y"}});
    doc["patch"].as_array_mut().unwrap().push(stray);
    doc["patch"].as_array_mut().unwrap().push(lost);
    // A patch that is a whole run of its own (it has a `run_type`) is read as one.
    let whole = json!({"id": "solo", "run_type": "chain", "trace_id": "solo", "inputs": {"input": "hello"}, "outputs": {"output": "hi there"}, "start_time": 1728803140000u64});
    doc["patch"].as_array_mut().unwrap().push(whole);
    let v = read("p.json", &bytes(&doc));
    assert_eq!(v.len(), 2, "the posted trace and the patch read as a run");
    let w = warnings(&v[0]);
    assert_eq!(w.len(), 3, "{w:?}");
    assert!(
        w[0].contains("$.patch[1]: a patch that matches no posted run"),
        "{w:?}"
    );
    assert!(w[0].contains("skipped"), "{w:?}");
    assert!(
        w[1].contains("$.patch[2]: a patch that matches no posted run"),
        "{w:?}"
    );
    assert!(
        w[2].contains("$.patch[3]") && w[2].contains("read as a run of its own"),
        "{w:?}"
    );
    assert_eq!(
        v[0].answers[0].text.as_str(),
        "Howdy! How can I assist you today?"
    );
    assert_eq!(v[1].turns[0].user.as_str(), "hello");
    assert_eq!(v[1].answers[0].text.as_str(), "hi there");
    assert_eq!(
        v[1].name, "p.json#solo",
        "sessions of one file are told apart by their id"
    );
}

#[test]
fn no_other_importer_reads_runs_and_langsmith_reads_no_other_format() {
    let opts = LoadOptions::default();
    for (name, b) in shapes() {
        for imp in import::IMPORTERS.iter().filter(|i| i.name != FORMAT) {
            let input = import::Input {
                name: "x".into(),
                source: "x".into(),
                path: None,
                bytes: &b,
                text: None,
                rest: None,
                opts: &opts,
                detection_keys: Default::default(),
            };
            for s in import::run(imp, &input) {
                assert!(
                    s.calls.is_empty() || !s.diagnostics.is_empty(),
                    "{} read {name} silently",
                    imp.name
                );
            }
        }
    }
    // Documents of other formats that mention runs are not LangSmith's.
    for doc in [
        json!({"object": "chat.completion", "choices": [], "run_type": "llm", "trace_id": "t"}),
        json!({"model": "m", "messages": [{"role": "user", "content": "run_type trace_id"}]}),
        json!({"post": [{"title": "a blog post"}]}),
        json!({"runs": [{"id": 1, "status": "ok"}], "run_type": 3}),
        json!({"run_type": "llm", "id": "x"}),
    ] {
        let d = import::detect(&bytes(&doc));
        assert!(
            !matches!(d, Detected::Import(i) if i.name == FORMAT),
            "{doc}: {d:?}"
        );
    }
}
