//! VCR cassettes whose bodies vcrpy stored as `!!binary` (tests/inputs/openai-responses-gzip/,
//! see tests/inputs/SOURCES.md): base64 of the gzip the API sent, read as a plain body is; and
//! bodies that cannot be read (bad base64, broken gzip, an unsupported coding, a gzip bomb),
//! each a warning at its interaction's path, with every other interaction still read.

use crate::importers::{diags, provscope, summary_rows, warnings};
use base64::Engine;
use provscope::ingest::{load_any_bytes, load_file_sessions, LoadOptions};
use provscope::model::Session;
use std::io::Write;
use std::path::{Path, PathBuf};

fn input(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/inputs/openai-responses-gzip")
        .join(name)
}

/// The real cassette (traceloop/openllmetry): two calls of `POST /v1/responses`, both
/// responses gzip, the second request replaying the first exchange.
const HISTORY: &str = "test_responses_with_input_history.yaml";
/// The hand-made one: a real web-search response (vercel/ai's fixture) gzipped, behind a
/// `!!binary` request.
const WEB_SEARCH: &str = "web-search-gzip.yaml";

fn load(name: &str) -> Session {
    let mut v = load_file_sessions(&input(name), &LoadOptions::default());
    assert_eq!(v.len(), 1, "{name} holds one session");
    v.remove(0)
}

fn history_text() -> String {
    std::fs::read_to_string(input(HISTORY)).unwrap()
}

/// The first answer of the real cassette.
const LUMINOUS: &str = "Luminous";

#[test]
fn a_real_gzip_cassette_reads_its_turns_and_answers() {
    let s = load(HISTORY);
    assert_eq!(s.format(), "openai-responses");
    assert!(diags(&s).is_empty(), "{:?}", diags(&s));
    let users: Vec<&str> = s.turns.iter().map(|t| t.user.as_str()).collect();
    assert_eq!(
        users,
        [
            "Come up with an adjective in English. Respond with just one word.",
            "Can you explain why you chose that word?"
        ]
    );
    assert_eq!(s.answers.len(), 2);
    assert_eq!(s.answers[0].text, LUMINOUS);
    assert!(
        s.answers[1]
            .text
            .starts_with("Certainly! I chose the word \"luminous\" because it describes"),
        "{}",
        s.answers[1].text
    );
    let h = s.header.as_ref().unwrap();
    assert_eq!(
        h.session_id,
        "resp_685ff928348881988285ce86ba701a14031fd91f205925a5"
    );
    assert_eq!(h.model.as_deref(), Some("gpt-4.1-nano"));
    // Dated by the responses' Date headers.
    assert_eq!(
        s.turns[1].started_at.map(|t| t.to_string()).as_deref(),
        Some("2025-06-28T14:16:09Z")
    );
    assert_eq!((s.calls.len(), s.claim_count()), (0, 0));

    let path = input(HISTORY);
    let path = path.to_str().unwrap();
    let v = summary_rows(path);
    assert_eq!(v[0]["format"], "openai-responses");
    assert_eq!(v[0]["turns"], 2);
    assert_eq!(v[0]["warnings"], 0);
    assert_eq!(v[0]["errors"], 0);
    let out = provscope(&["verify", path]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("no findings"));
}

#[test]
fn a_gzip_web_search_cassette_reads_its_citations() {
    let s = load(WEB_SEARCH);
    assert_eq!(s.format(), "openai-responses");
    assert!(diags(&s).is_empty(), "{:?}", diags(&s));
    // The request body is `!!binary` too (plain JSON).
    assert_eq!(s.turns.len(), 1);
    assert_eq!(
        s.turns[0].user,
        "What happened in tech today? Search the pages you find for \"vercel\"."
    );
    assert_eq!(
        (s.calls.len(), s.results.len(), s.claim_count()),
        (3, 3, 10)
    );
    let search = "ws_0953eda47ee1741200693330682c988195aaa470a8cc51dfe4";
    assert_eq!(s.calls[0].id, search);
    assert_eq!(s.calls[0].tool(), "web_search");
    let c = s.claims().next().unwrap();
    assert_eq!(
        c.stamp.claim_text.as_str(),
        "- OpenAI declared a “code red” for ChatGPT as pressure increases from rivals \
         (discussion and analysis on The Vergecast)."
    );
    let cit = c.stamp.citation.as_ref().unwrap();
    assert_eq!(cit.kind, "url_citation");
    assert_eq!(
        cit.url.as_deref(),
        Some("https://www.theverge.com/podcast/838932/openai-chatgpt-code-red-vergecast")
    );
    // Its origin: the last search call that holds the URL (a `find_in_page` on that page).
    assert_eq!(
        c.stamp.origin.as_ref().unwrap().tool_call_id,
        "ws_0953eda47ee1741200693330740e248195a2c77632e480424b"
    );
    assert!(s.claims().all(|c| c.stamp.origin.is_some()));
    // The same claims as the response read as a plain JSON file.
    let plain = crate::importers::one("openai-responses/openai-web-search-tool.1.json");
    let ids = |s: &Session| s.claims().map(|c| c.id().to_string()).collect::<Vec<_>>();
    assert_eq!(ids(&s), ids(&plain));
    let origins = |s: &Session| {
        s.claims()
            .map(|c| c.stamp.origin.as_ref().map(|o| o.tool_call_id.to_string()))
            .collect::<Vec<_>>()
    };
    assert_eq!(origins(&s), origins(&plain));
    assert_eq!(s.answers[0].text, plain.answers[0].text);

    let path = input(WEB_SEARCH);
    let path = path.to_str().unwrap();
    let out = provscope(&["summary", "--format", "json", path]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["format"], "openai-responses");
    assert_eq!(
        (v[0]["calls"].as_u64(), v[0]["claims"].as_u64()),
        (Some(3), Some(10))
    );
    // Verify: the server `openai` has no declared tier, so every citation is below it (an
    // error: exit 1), each at its place inside the decompressed body.
    let out = provscope(&["verify", path]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "below_tier claim {} (derived stamp): origin server `openai` is unclassified",
            c.id()
        )),
        "{text}"
    );
    assert!(
        text.contains("$.interactions[0].response.body.output[7].content[0].annotations[0]"),
        "{text}"
    );
}

/// The real cassette with its second response body (or headers) changed by `edit`, read as a
/// library and as a process: the first exchange is still read, the second's user message too,
/// and one warning names the second response's body. Gives that warning.
fn second_body_broken(edit: impl Fn(&str) -> String) -> String {
    let text = edit(&history_text());
    assert_ne!(text, history_text(), "the edit changed nothing");
    let s = load_any_bytes("h", "h.yaml", text.as_bytes(), &LoadOptions::default()).remove(0);
    assert_eq!(s.format(), "openai-responses");
    assert_eq!(s.turns.len(), 2, "{:?}", diags(&s));
    assert_eq!(s.answers.len(), 1, "{:?}", diags(&s));
    assert_eq!(s.answers[0].text, LUMINOUS);
    let w = warnings(&s);
    assert_eq!(diags(&s).len(), 1, "{:?}", diags(&s));
    assert_eq!(w.len(), 1, "{:?}", diags(&s));
    assert!(
        w[0].contains("$.interactions[1].response.body:"),
        "{}",
        w[0]
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.yaml");
    std::fs::write(&path, &text).unwrap();
    let path = path.to_str().unwrap();
    for cmd in ["summary", "verify"] {
        let out = provscope(&[cmd, path]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{cmd}: {err}");
        assert!(!err.contains("panicked"), "{cmd}: {err}");
        assert!(
            err.contains("warning: $.interactions[1].response.body: "),
            "{cmd}: {err}"
        );
    }
    w[0].clone()
}

/// Replaces the last occurrence of `from` in `s`.
fn replace_last(s: &str, from: &str, to: &str) -> String {
    let i = s.rfind(from).unwrap();
    format!("{}{to}{}", &s[..i], &s[i + from.len()..])
}

/// The second response's base64, as it is in the file.
fn second_base64(s: &str) -> (usize, usize) {
    let start = s.rfind("string: !!binary |\n").unwrap() + "string: !!binary |\n".len();
    let end = start + s[start..].find("    headers:").unwrap();
    (start, end)
}

#[test]
fn an_unsupported_encoding_is_named_and_skipped() {
    let w = second_body_broken(|s| {
        replace_last(
            s,
            "Content-Encoding:\n      - gzip",
            "Content-Encoding:\n      - br",
        )
    });
    assert!(w.contains("compressed as `br`"), "{w}");
    assert!(w.contains("decode_compressed_response"), "{w}");
    let w = second_body_broken(|s| {
        replace_last(
            s,
            "Content-Encoding:\n      - gzip",
            "content-encoding: zstd",
        )
    });
    assert!(w.contains("compressed as `zstd`"), "{w}");
}

#[test]
fn a_truncated_base64_is_a_warning() {
    // Cut inside its last group: no longer a whole number of base64 characters.
    let w = second_body_broken(|s| s.replace("PwYAAA==", "PwYAA"));
    assert!(w.contains("not valid base64"), "{w}");
    // Cut at a group's end: the base64 decodes, the gzip it holds is cut short.
    let w = second_body_broken(|s| s.replace("\n        PwYAAA==", ""));
    assert!(w.contains("not valid gzip data"), "{w}");
}

#[test]
fn a_corrupted_gzip_is_a_warning() {
    // One base64 character changed in the middle of the compressed data.
    let w = second_body_broken(|s| s.replace("k/nHQwQ6UwBsRCMahX8Teqe", "k/nHQwQ6UwBsRCMahX8TEqe"));
    assert!(w.contains("not valid gzip data"), "{w}");
}

#[test]
fn a_gzip_bomb_is_refused_not_unpacked() {
    // 32 MiB of spaces in about 32 KiB: past 64 times the compressed size.
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(&vec![b' '; 32 << 20]).unwrap();
    let bomb = e.finish().unwrap();
    assert!(bomb.len() < 64 << 10, "{}", bomb.len());
    let b64 = base64::engine::general_purpose::STANDARD.encode(&bomb);
    let lines: String = b64
        .as_bytes()
        .chunks(76)
        .map(|c| format!("        {}\n", std::str::from_utf8(c).unwrap()))
        .collect();
    let w = second_body_broken(|s| {
        let (start, end) = second_base64(s);
        format!("{}{lines}{}", &s[..start], &s[end..])
    });
    assert!(w.contains("decompression bombs"), "{w}");
    let limit = (bomb.len() as u64 * 64).max(1 << 20);
    assert!(
        w.contains(&format!("unpacks to more than {limit} bytes")),
        "{w}"
    );
}

#[test]
fn a_body_that_is_not_utf8_once_decoded_is_a_warning() {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(b"{\"id\": \"\xff\xfe\"}").unwrap();
    let b64 = base64::engine::general_purpose::STANDARD.encode(e.finish().unwrap());
    let w = second_body_broken(|s| {
        let (start, end) = second_base64(s);
        format!("{}        {b64}\n{}", &s[..start], &s[end..])
    });
    assert!(w.contains("not UTF-8"), "{w}");
}

/// The second response body of the real cassette, decompressed.
fn second_json(s: &str) -> Vec<u8> {
    use std::io::Read;
    let (start, end) = second_base64(s);
    let b64: String = s[start..end].split_whitespace().collect();
    let gz = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// `b` as the lines of a `!!binary` scalar under `string:`.
fn base64_lines(b: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD
        .encode(b)
        .as_bytes()
        .chunks(76)
        .map(|c| format!("        {}\n", std::str::from_utf8(c).unwrap()))
        .collect()
}

/// The real cassette in the other shapes read (and one skipped), for the robustness tests:
/// without `Content-Encoding` headers (gzip known by its magic number), the second body as
/// deflate (zlib and raw), and the second body's coding `br`.
pub fn shapes() -> Vec<(&'static str, Vec<u8>)> {
    let s = history_text();
    let json = second_json(&s);
    let (start, end) = second_base64(&s);
    let deflate = |zlib: bool| {
        let body = if zlib {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&json).unwrap();
            e.finish().unwrap()
        } else {
            let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&json).unwrap();
            e.finish().unwrap()
        };
        let t = format!("{}{}{}", &s[..start], base64_lines(&body), &s[end..]);
        replace_last(
            &t,
            "Content-Encoding:\n      - gzip",
            "Content-Encoding:\n      - deflate",
        )
    };
    vec![
        (
            "no-header.yaml",
            s.replace("      Content-Encoding:\n      - gzip\n", "")
                .into_bytes(),
        ),
        ("zlib.yaml", deflate(true).into_bytes()),
        ("raw-deflate.yaml", deflate(false).into_bytes()),
        (
            "br.yaml",
            replace_last(
                &s,
                "Content-Encoding:\n      - gzip",
                "Content-Encoding:\n      - br",
            )
            .into_bytes(),
        ),
    ]
}

#[test]
fn deflate_and_headerless_gzip_read_as_gzip_does() {
    let want = load(HISTORY);
    for (name, bytes) in shapes() {
        let s = load_any_bytes("h", name, &bytes, &LoadOptions::default()).remove(0);
        if name == "br.yaml" {
            assert_eq!(s.answers.len(), 1, "{name}");
            continue;
        }
        assert!(diags(&s).is_empty(), "{name}: {:?}", diags(&s));
        let texts = |s: &Session| s.answers.iter().map(|a| a.text.clone()).collect::<Vec<_>>();
        assert_eq!(texts(&s), texts(&want), "{name}");
    }
}
