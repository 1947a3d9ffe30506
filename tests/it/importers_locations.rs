//! Findings on imported one-document files point at the place in the file: `verify` prints
//! `FILE:$.json.path`, JSON has `json_path`, SARIF a logical location with it, and each path,
//! followed in the real file (tests/formats/), reaches the citation, call or result concerned.

use super::importers::formats;
use super::proc::output;
use serde_json::Value;
use std::process::Command;

fn verify(args: &[&str]) -> std::process::Output {
    output(
        Command::new(env!("CARGO_BIN_EXE_provscope"))
            .arg("verify")
            .args(args)
            .env("NO_COLOR", "1"),
    )
}

fn verify_json(file: &str) -> Value {
    let o = verify(&["--format", "json", file]);
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {o:?}"))
}

/// Follows a `$.a[1].b` path in a JSON document.
fn follow<'a>(doc: &'a Value, path: &str) -> &'a Value {
    let rest = path.strip_prefix('$').unwrap_or_else(|| panic!("{path}"));
    let mut v = doc;
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        let mut tok = String::new();
        match c {
            '.' => {
                while chars.peek().is_some_and(|c| *c != '.' && *c != '[') {
                    tok.push(chars.next().unwrap());
                }
                v = v
                    .get(&tok)
                    .unwrap_or_else(|| panic!("no key {tok} in {path}"));
            }
            '[' => {
                for c in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                    tok.push(c);
                }
                let i: usize = tok.parse().unwrap();
                v = v.get(i).unwrap_or_else(|| panic!("no index {i} in {path}"));
            }
            _ => panic!("bad path {path}"),
        }
    }
    v
}

/// The path without its last segment (`.citations[0]` of a block, `.annotations[2]`).
fn parent(path: &str) -> &str {
    &path[..path.rfind('.').unwrap()]
}

fn read(file: &str) -> Value {
    serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap()
}

/// Every claim finding of the one session, with its claim's text.
fn claim_findings(doc: &Value) -> Vec<(String, Value)> {
    let s = &doc["sessions"][0];
    s["claims"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            let text = c["claim_text"].as_str().unwrap().to_owned();
            c["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |f| (text.clone(), f.clone()))
        })
        .collect()
}

#[test]
fn openai_claim_findings_point_at_the_url_citation_of_their_sentence() {
    let file = formats().join("openai-responses/openai-web-search-tool.1.json");
    let file = file.to_str().unwrap();
    let src = read(file);
    let found = claim_findings(&verify_json(file));
    assert!(found.len() >= 10, "{found:?}");
    for (claim, f) in &found {
        let p = f["json_path"].as_str().expect("a json_path");
        assert!(p.starts_with("$.output[7].content[0].annotations["), "{p}");
        let a = follow(&src, p);
        assert_eq!(a["type"], "url_citation", "{p}");
        // The annotation's start (characters into the part's text) follows the claim sentence.
        let text = follow(&src, parent(p))["text"].as_str().unwrap();
        let start = a["start_index"].as_u64().unwrap() as usize;
        let before: String = text.chars().take(start).collect();
        assert!(
            before.trim_end().ends_with(claim.as_str()),
            "{p}: {claim:?} is not the sentence before the citation"
        );
    }
    let o = verify(&[file]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains(&format!("{file}:$.output[7].content[0].annotations[0]\n")),
        "{text}"
    );
    assert!(!text.contains(&format!("{file}:0")), "{text}");
}

#[test]
fn anthropic_findings_and_diagnostics_point_at_the_citation_of_their_text_block() {
    let file = formats().join("anthropic-messages/prism-text-document-citations-1.json");
    let file = file.to_str().unwrap();
    let src = read(file);
    let doc = verify_json(file);
    let found = claim_findings(&doc);
    assert!(!found.is_empty());
    for (claim, f) in &found {
        let p = f["json_path"].as_str().expect("a json_path");
        assert_eq!(follow(&src, p)["type"], "char_location", "{p}");
        let block = follow(&src, parent(p));
        assert_eq!(block["text"].as_str().unwrap().trim(), claim, "{p}");
    }
    // A document sent in the request is no server: each claim's one finding is its dangling
    // origin, with no tier judged for a server it does not name.
    let kinds: Vec<&str> = found
        .iter()
        .map(|(_, f)| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["dangling_origin", "dangling_origin"]);
    // The diagnostics about the dangling documents name the same citations.
    let diags = doc["sessions"][0]["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 2, "{diags:?}");
    for d in diags {
        let p = d["path"].as_str().unwrap();
        assert_eq!(follow(&src, p)["type"], "char_location", "{p}");
    }
}

#[test]
fn gemini_claim_findings_point_at_their_grounding_support() {
    let file = formats().join("gemini-grounding/prism-search-grounding-1.json");
    let file = file.to_str().unwrap();
    let src = read(file);
    let found = claim_findings(&verify_json(file));
    assert!(!found.is_empty());
    for (claim, f) in &found {
        let p = f["json_path"].as_str().expect("a json_path");
        assert!(p.contains(".groundingSupports["), "{p}");
        let seg = &follow(&src, p)["segment"]["text"];
        assert_eq!(seg.as_str().unwrap().trim(), claim, "{p}");
    }
}

#[test]
fn langfuse_session_findings_point_at_the_tool_observation() {
    let file = formats().join("langfuse-trace-export/pydantic-ai-tools-2025-12-04.trace.json");
    let file = file.to_str().unwrap();
    let src = read(file);
    let doc = verify_json(file);
    let fs = doc["sessions"][0]["session_findings"].as_array().unwrap();
    assert!(!fs.is_empty());
    for f in fs {
        let p = f["json_path"].as_str().expect("a json_path");
        let o = follow(&src, p);
        assert_eq!(o["type"], "TOOL", "{p}");
        // The observation is the call the finding names.
        let call = f["call_ids"][0].as_str().unwrap();
        assert!(o.to_string().contains(call), "{p} is not {call}");
    }
}

#[test]
fn sarif_carries_the_json_path_as_a_logical_location() {
    let file = formats().join("openai-responses/openai-web-search-tool.1.json");
    let o = verify(&["--format", "sarif", file.to_str().unwrap()]);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let results = doc["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for r in results {
        let p = r["properties"]["json_path"].as_str().expect("json_path");
        let l = &r["locations"][0]["logicalLocations"][1];
        assert_eq!(l["fullyQualifiedName"], p);
        assert_eq!(l["kind"], "object");
    }
}

#[test]
fn native_logs_keep_their_lines_and_have_no_json_path() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sample-sessions/04-stale-cache.jsonl"
    );
    let doc = verify_json(file);
    let found = claim_findings(&doc);
    assert!(!found.is_empty());
    for (_, f) in &found {
        assert!(f["json_path"].is_null(), "{f}");
        assert!(f["line"].as_u64().unwrap() > 0, "{f}");
    }
}

#[test]
fn the_explorer_claim_view_shows_where_the_citation_is_in_the_file() {
    use provscope::check::{check_session, Config};
    use provscope::tui::action::{Action, View};
    use provscope::tui::app::Loaded;
    use provscope::tui::update::update;
    let s = super::importers::one("openai-responses/openai-web-search-tool.1.json");
    let r = check_session(&s, &Config::default());
    let mut a = provscope::tui::new_app(&Config::default(), false).unwrap();
    a.push_session(Loaded::new(s, r));
    update(&mut a, Action::Open);
    a.select_claim(1);
    update(&mut a, Action::Goto(View::Claim));
    let screen = crate::tui_util::screen(&mut a, 200, 60);
    assert!(
        screen.contains("turn 1 · at $.output[7].content[0].annotations[1] · stamp derived"),
        "{screen}"
    );
}

#[test]
fn o_on_an_imported_record_carries_its_json_path_for_the_runtime_to_resolve() {
    use provscope::check::{check_session, Config};
    use provscope::tui::action::{Action, View};
    use provscope::tui::app::Loaded;
    use provscope::tui::update::{update, Effect};
    let s = super::importers::one("openai-responses/openai-web-search-tool.1.json");
    let r = check_session(&s, &Config::default());
    let mut a = provscope::tui::new_app(&Config::default(), false).unwrap();
    a.push_session(Loaded::new(s, r));
    update(&mut a, Action::Open);
    a.select_claim(1);
    update(&mut a, Action::Goto(View::Claim));
    let open = |a: &mut provscope::tui::app::App| update(a, crate::tui_util::key('o'));
    // The source pane is focused first: its result; `h` focuses the claim: its citation.
    let result = open(&mut a);
    update(&mut a, crate::tui_util::key('h'));
    let claim = open(&mut a);
    for (e, path) in [
        (claim, "$.output[7].content[0].annotations[1]"),
        (result, "$.output[1]"),
    ] {
        assert_eq!(
            e,
            vec![Effect::OpenExternal {
                session: 0,
                line: 0,
                json_path: Some(path.into())
            }]
        );
    }
}

#[test]
fn undeclared_servers_are_named_once_with_the_tiers_lines_that_declare_them() {
    let file = formats().join("openai-responses/openai-web-search-tool.1.json");
    let file = file.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = || {
        output(
            Command::new(env!("CARGO_BIN_EXE_provscope"))
                .current_dir(dir.path())
                .args(["verify", "--format", "json", file])
                .env("NO_COLOR", "1"),
        )
    };
    let below = |doc: &Value| {
        claim_findings(doc)
            .iter()
            .filter(|(_, f)| f["kind"] == "below_tier")
            .count()
    };
    let o = run();
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(below(&doc), 10, "every citation is denied by default");
    let diags = doc["sessions"][0]["diagnostics"].as_array().unwrap();
    let said: Vec<&str> = diags
        .iter()
        .filter_map(|d| d["message"].as_str())
        .filter(|m| m.contains("declared nowhere"))
        .collect();
    assert_eq!(said.len(), 1, "{diags:?}");
    let msg = said[0];
    assert!(
        msg.starts_with("10 claims cite and 3 results in context come from a server whose tier is declared nowhere (`openai`)"),
        "{msg}"
    );
    let lines = msg.rsplit_once("provscope.toml: ").unwrap().1;
    assert_eq!(lines, "\"openai\" = \"T1\"");
    // The lines it gives, written as it says, clear the findings and the diagnostic.
    std::fs::write(
        dir.path().join("provscope.toml"),
        format!("[tiers]\n{lines}\n"),
    )
    .unwrap();
    let o = run();
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(below(&doc), 0, "{doc}");
    assert!(!doc.to_string().contains("declared nowhere"));
    // Native logs declare tiers in their header: no such diagnostic.
    let native = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sample-sessions/04-stale-cache.jsonl"
    );
    assert!(!verify(&["--format", "json", native])
        .stdout
        .windows(16)
        .any(|w| w == b"declared nowhere"));
}

#[test]
fn junit_carries_the_json_path_of_imported_findings() {
    let file = formats().join("openai-responses/openai-web-search-tool.1.json");
    let file = file.to_str().unwrap();
    let json = verify_json(file);
    let o = verify(&["--format", "junit", file]);
    let xml = String::from_utf8(o.stdout).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}: {xml}"));
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    let claims = json["sessions"][0]["claims"].as_array().unwrap();
    assert_eq!(cases.len(), claims.len(), "{xml}");
    let mut failed = 0;
    for (case, claim) in cases.iter().zip(claims) {
        let Some(failure) = case.children().find(|n| n.has_tag_name("failure")) else {
            continue;
        };
        failed += 1;
        let body = failure.text().unwrap();
        let out = case
            .children()
            .find(|n| n.has_tag_name("system-out"))
            .and_then(|n| n.text())
            .unwrap_or("");
        // Every finding of the claim names its JSON path, as JSON does, and so does the `at`.
        let paths: Vec<&str> = claim["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["json_path"].as_str().unwrap())
            .collect();
        for p in &paths {
            let said = format!("({p})");
            assert!(body.contains(&said) || out.contains(&said), "{p}: {body}");
        }
        assert!(
            body.ends_with(&format!("\nat {file}:{}", paths[0])),
            "{body}"
        );
    }
    assert!(failed >= 10, "{xml}");
    assert!(!xml.contains(&format!("{file}:0")), "{xml}");
    // And it is still JUnit as the Jenkins XSD has it.
    if crate::peers::interop() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.xml");
        std::fs::write(&out, &xml).unwrap();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let v = output(
            Command::new("python3")
                .arg(root.join("tests/interop/validate_reports.py"))
                .arg("--junit")
                .arg(&out)
                .env("PROVSCOPE_PYDEPS", root.join(".cache/pydeps"))
                .env(
                    "PROVSCOPE_NODE_MODULES",
                    root.join(".cache/npm/node_modules"),
                ),
        );
        assert!(v.status.success(), "{v:?}");
    }
}
