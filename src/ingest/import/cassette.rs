//! VCR cassettes (vcrpy, pydantic-ai, go-vcr style YAML): recorded HTTP interactions, each a
//! request and its response. The model-API importers read the JSON bodies of the interactions
//! with their API's host.
//!
//! vcrpy stores a body that is not text (the server answered with `Content-Encoding: gzip` and
//! the cassette was recorded without `decode_compressed_response`) as a YAML `!!binary` scalar:
//! base64, with line breaks. serde_yaml_ng drops the `!!binary` tag (it yields the base64 text
//! as a plain string, tag and all lost), so a cassette that holds one is parsed with `!!` bound
//! to local tags (`%TAG !! !`), which keeps the tag; such a body is then decoded, decompressed
//! as its `Content-Encoding` says (gzip, deflate), and read as any other body.

use crate::ingest::strip_pos;
use crate::model::{DiagLevel, Timestamp};
use serde_json::Value;
use std::borrow::Cow;
use std::io::Read;

/// One recorded request and response with a JSON body.
pub struct Interaction {
    /// Index in the cassette's `interactions`.
    pub index: usize,
    /// The request URI.
    pub uri: String,
    /// The request body, when it is JSON.
    pub request: Option<Value>,
    /// The response body, when it is JSON.
    pub response: Option<Value>,
    /// The response body's events, when it is a stream of server-sent events (a streamed
    /// call), which the API's importer puts together into the response.
    pub stream: Option<Vec<super::sse::Event>>,
    /// The response's `date` header, if recorded.
    pub date: Option<Timestamp>,
}

/// A problem found reading the cassette (diagnostic material).
pub struct Problem {
    /// 1-based line, 0 when unknown.
    pub line: u64,
    /// 1-based column, 0 when unknown.
    pub column: u64,
    /// The path of the field concerned.
    pub path: String,
    /// Error or warning.
    pub level: DiagLevel,
    /// One sentence.
    pub message: String,
}

/// Reads the interactions whose URI contains one of `hosts`.
pub fn read(text: &str, hosts: &[&str]) -> (Vec<Interaction>, Vec<Problem>) {
    let mut problems = Vec::new();
    let doc: Value = match parse(text) {
        Ok(v) => v,
        Err((e, shift)) => {
            let (line, column) = e.location().map_or((0, 0), |l| {
                ((l.line() as u64).saturating_sub(shift), l.column() as u64)
            });
            problems.push(Problem {
                line,
                column,
                path: String::new(),
                level: DiagLevel::Error,
                message: format!(
                    "the cassette is not valid YAML: {}",
                    strip_pos(&e.to_string())
                ),
            });
            return (Vec::new(), problems);
        }
    };
    let Some(list) = doc.get("interactions").and_then(Value::as_array) else {
        problems.push(Problem {
            line: 1,
            column: 1,
            path: "interactions".into(),
            level: DiagLevel::Error,
            message: "a cassette needs an `interactions` list".into(),
        });
        return (Vec::new(), problems);
    };
    let mut out = Vec::new();
    for (index, it) in list.iter().enumerate() {
        let uri = it
            .pointer("/request/uri")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !hosts.iter().any(|h| uri.contains(h)) {
            continue;
        }
        let path = format!("interactions[{index}]");
        let request = body(it.get("request"), &format!("{path}.request"), &mut problems).json;
        let Body {
            json: response,
            stream,
        } = body(
            it.get("response"),
            &format!("{path}.response"),
            &mut problems,
        );
        let date = it
            .pointer("/response/headers/date/0")
            .or_else(|| it.pointer("/response/headers/Date/0"))
            .and_then(Value::as_str)
            .and_then(http_date);
        out.push(Interaction {
            index,
            uri: uri.to_owned(),
            request,
            response,
            stream,
            date,
        });
    }
    (out, problems)
}

/// Parses the cassette's YAML. A cassette that holds a `!!binary` scalar is parsed with `!!`
/// bound to local tags, so that the tag is kept: each `!!binary` string becomes a map
/// `{BINARY: base64}`, and every other `!!` tag is dropped as serde_yaml_ng drops it. The error
/// comes with the number of lines put before the text (to take off its line).
fn parse(text: &str) -> Result<Value, (serde_yaml_ng::Error, u64)> {
    if memchr::memmem::find(text.as_bytes(), b"!!binary").is_none() {
        return serde_yaml_ng::from_str(text).map_err(|e| (e, 0));
    }
    let (prefix, shift) = tag_prefix(text);
    let doc = format!("{prefix}{text}");
    serde_yaml_ng::from_str::<serde_yaml_ng::Value>(&doc)
        .map(to_json)
        .map_err(|e| (e, shift))
}

/// The directive that binds `!!` to local tags, as it can be put before `text`, with its
/// number of lines: with a `---` when the document has none, nothing when it binds `!!`
/// itself.
fn tag_prefix(text: &str) -> (&'static str, u64) {
    let first = text
        .lines()
        .map(str::trim_start)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or("");
    if first.starts_with("%TAG !! ") {
        ("", 0)
    } else if first.starts_with('%') || first.starts_with("---") {
        ("%TAG !! !\n", 1)
    } else {
        ("%TAG !! !\n---\n", 2)
    }
}

/// The key of the map a `!!binary` scalar becomes while the cassette is read. YAML text holds
/// no NUL character: a cassette can only write this key as an escape (`"\0binary"`), and then
/// its body is read as the `!!binary` it claims to be, which is all the key does.
const BINARY: &str = "\u{0}binary";

/// A YAML value as JSON: a `!!binary` string as `{BINARY: base64}`, other tags dropped,
/// mapping keys that are not strings written as text.
fn to_json(v: serde_yaml_ng::Value) -> Value {
    use serde_yaml_ng::Value as Y;
    match v {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => n
            .as_i64()
            .map(Value::from)
            .or_else(|| n.as_u64().map(Value::from))
            .or_else(|| {
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map(Value::Number)
            })
            .unwrap_or(Value::Null),
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => Value::Array(items.into_iter().map(to_json).collect()),
        Y::Mapping(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| {
                    let key = match to_json(k) {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    (key, to_json(v))
                })
                .collect(),
        ),
        Y::Tagged(t) => {
            let serde_yaml_ng::value::TaggedValue { tag, value } = *t;
            match value {
                Y::String(s) if tag == "binary" => {
                    let mut o = serde_json::Map::new();
                    o.insert(BINARY.to_owned(), Value::String(s));
                    Value::Object(o)
                }
                value => to_json(value),
            }
        }
    }
}

/// What a recorded body holds, read.
#[derive(Default)]
struct Body {
    /// Its JSON, when it is JSON.
    json: Option<Value>,
    /// Its events, when it is a stream of server-sent events (a streamed call).
    stream: Option<Vec<super::sse::Event>>,
}

/// Reads a recorded request or response body: `parsed_body` (pydantic-ai), or `body` as text
/// or `{string: ...}` (vcrpy), the text plain or `!!binary` ([`body_text`]): JSON, or a
/// stream of server-sent events. What is wrong is a warning at the body's path.
fn body(part: Option<&Value>, path: &str, problems: &mut Vec<Problem>) -> Body {
    let Some(part) = part else {
        return Body::default();
    };
    if let Some(v) = part.get("parsed_body") {
        return Body {
            json: (!v.is_null()).then(|| v.clone()),
            stream: None,
        };
    }
    let Some(text) = body_text(part, path, problems) else {
        return Body::default();
    };
    let t = text.trim_start();
    // Uploads and other non-JSON bodies are not errors; a body that starts like JSON and does
    // not parse is.
    if t.starts_with('{') || t.starts_with('[') {
        return match serde_json::from_str(&text) {
            Ok(v) => Body {
                json: Some(v),
                stream: None,
            },
            Err(e) => {
                warn(
                    problems,
                    path,
                    format!("the body is not JSON ({e}); skipped"),
                );
                Body::default()
            }
        };
    }
    if !super::sse::starts_as_sse(&text) {
        return Body::default();
    }
    let (events, found) = super::sse::events(&text);
    problems.extend(found.into_iter().map(|p| Problem {
        line: 0,
        column: 0,
        path: format!("{path}.body"),
        level: DiagLevel::Warning,
        message: p.in_body(),
    }));
    Body {
        json: None,
        stream: Some(events),
    }
}

/// A warning about the body of `path` (a request or response).
fn warn(problems: &mut Vec<Problem>, path: &str, message: String) {
    problems.push(Problem {
        line: 0,
        column: 0,
        path: format!("{path}.body"),
        level: DiagLevel::Warning,
        message,
    });
}

/// The text of a recorded body: `body` as a string or `{string: ...}` (vcrpy), each either
/// text or `!!binary` ([`binary_text`]).
fn body_text<'a>(part: &'a Value, path: &str, problems: &mut Vec<Problem>) -> Option<Cow<'a, str>> {
    let v = match part.get("body")? {
        Value::Object(o) if !o.contains_key(BINARY) => o.get("string")?,
        v => v,
    };
    match v {
        Value::String(s) => Some(Cow::Borrowed(s.as_str())),
        Value::Object(o) => {
            let b64 = o.get(BINARY)?.as_str()?;
            binary_text(b64, part, path, problems).map(Cow::Owned)
        }
        _ => None,
    }
}

/// The decompressed size allowed a body: 64 times its compressed size, at least 1 MiB, at most
/// 256 MiB, so that a hostile body (a "gzip bomb") is refused, not unpacked into memory.
fn inflate_limit(compressed: usize) -> u64 {
    const RATIO: u64 = 64;
    const FLOOR: u64 = 1 << 20;
    const CAP: u64 = 256 << 20;
    (compressed as u64).saturating_mul(RATIO).clamp(FLOOR, CAP)
}

/// The text of a `!!binary` body: its base64 decoded (line breaks and spaces ignored), then
/// decompressed as the part's `Content-Encoding` header says, or as gzip when there is no
/// header and the bytes start as gzip does. What cannot be read is a warning naming the path,
/// and the body is skipped.
fn binary_text(b64: &str, part: &Value, path: &str, problems: &mut Vec<Problem>) -> Option<String> {
    use base64::Engine;
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    let compact: Vec<u8> = b64.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let bytes = match engine.decode(&compact) {
        Ok(b) => b,
        Err(e) => {
            let msg = format!("the body is `!!binary` but not valid base64 ({e}); skipped");
            warn(problems, path, msg);
            return None;
        }
    };
    let bytes = match decompress(bytes, &content_encoding(part)) {
        Ok(b) => b,
        Err(msg) => {
            warn(problems, path, msg);
            return None;
        }
    };
    match String::from_utf8(bytes) {
        Ok(s) => Some(s),
        Err(e) => {
            let msg = format!(
                "the `!!binary` body is not UTF-8 text once decoded (invalid byte at {}); skipped",
                e.utf8_error().valid_up_to() + 1
            );
            warn(problems, path, msg);
            None
        }
    }
}

/// The content codings of a recorded request or response, in the order they were applied:
/// its `Content-Encoding` header (any case), a list of values or one, comma-separated,
/// lowercased, `identity` left out.
fn content_encoding(part: &Value) -> Vec<String> {
    let Some(headers) = part.get("headers").and_then(Value::as_object) else {
        return Vec::new();
    };
    let values: Vec<&str> = headers
        .iter()
        .filter(|(k, _)| k.trim().eq_ignore_ascii_case("content-encoding"))
        .flat_map(|(_, v)| match v {
            Value::String(s) => vec![s.as_str()],
            Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        })
        .collect();
    values
        .iter()
        .flat_map(|v| v.split(','))
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && c != "identity")
        .collect()
}

/// Undoes `codings` (the last applied first); without codings, gzip when the bytes start with
/// gzip's magic number. An unknown coding, data that is not what its coding says, or a body
/// past [`inflate_limit`] is an error sentence.
fn decompress(bytes: Vec<u8>, codings: &[String]) -> Result<Vec<u8>, String> {
    let limit = inflate_limit(bytes.len());
    if codings.is_empty() {
        return if bytes.starts_with(&[0x1f, 0x8b]) {
            inflate(flate2::read::MultiGzDecoder::new(&bytes[..]), limit, "gzip")
        } else {
            Ok(bytes)
        };
    }
    let mut bytes = bytes;
    for coding in codings.iter().rev() {
        bytes = match coding.as_str() {
            "gzip" | "x-gzip" => {
                inflate(flate2::read::MultiGzDecoder::new(&bytes[..]), limit, "gzip")?
            }
            // HTTP's "deflate" is zlib (RFC 1950), but some servers send raw deflate.
            "deflate" if zlib_header(&bytes) => {
                inflate(flate2::read::ZlibDecoder::new(&bytes[..]), limit, "deflate")?
            }
            "deflate" => inflate(
                flate2::read::DeflateDecoder::new(&bytes[..]),
                limit,
                "deflate",
            )?,
            other => {
                return Err(format!(
                    "the body is compressed as `{other}` (Content-Encoding), which provscope \
                     does not decompress (gzip and deflate only; record with vcrpy's \
                     `decode_compressed_response=True` to keep it as text); skipped"
                ));
            }
        };
    }
    Ok(bytes)
}

/// True when `b` starts with a zlib header (RFC 1950: deflate, a check that divides by 31).
fn zlib_header(b: &[u8]) -> bool {
    match b {
        [cmf, flg, ..] => cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0,
        _ => false,
    }
}

/// Reads a decoder to its end, refusing more than `limit` bytes.
fn inflate(r: impl Read, limit: u64, coding: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    r.take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| format!("the body is not valid {coding} data ({e}); skipped"))?;
    if out.len() as u64 > limit {
        return Err(format!(
            "the {coding} body unpacks to more than {limit} bytes (the bound against \
             decompression bombs: 64 times its compressed size, at least 1 MiB, at most \
             256 MiB); skipped"
        ));
    }
    Ok(out)
}

/// An HTTP `date` header (RFC 2822 / IMF-fixdate).
fn http_date(s: &str) -> Option<Timestamp> {
    use time::format_description::well_known::Rfc2822;
    let t = time::OffsetDateTime::parse(s.trim(), &Rfc2822).ok()?;
    i64::try_from(t.unix_timestamp_nanos().div_euclid(1_000_000))
        .ok()
        .map(Timestamp)
}

/// Routes a cassette head to an API: true when one of `hosts` appears in a `uri:` line.
pub fn mentions(head: &str, hosts: &[&str]) -> bool {
    head.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with("uri:") && hosts.iter().any(|h| t.contains(h))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_parsed_and_string_bodies() {
        let y = "interactions:\n- request:\n    uri: https://api.x.com/v1\n    body: '{\"a\":1}'\n  response:\n    headers:\n      date:\n      - Tue, 09 Jul 2025 13:27:25 GMT\n    body:\n      string: '{\"b\":2}'\n- request:\n    uri: https://other/\n  response: {}\nversion: 1\n";
        let (its, problems) = read(y, &["api.x.com"]);
        assert!(problems.is_empty());
        assert_eq!(its.len(), 1);
        assert_eq!(its[0].request.as_ref().unwrap()["a"], 1);
        assert_eq!(its[0].response.as_ref().unwrap()["b"], 2);
        assert!(its[0].date.is_some());
        let (its, problems) = read("interactions: [\n", &["x"]);
        assert!(its.is_empty() && problems[0].line > 0);
    }

    use base64::Engine;
    use std::io::Write;

    fn gzip(b: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(b).unwrap();
        e.finish().unwrap()
    }

    /// `b` as vcrpy writes a `!!binary` scalar: base64 in lines of 76, indented by `indent`.
    fn binary(b: &[u8], indent: usize) -> String {
        let text = base64::engine::general_purpose::STANDARD.encode(b);
        let pad = " ".repeat(indent);
        let lines: Vec<String> = text
            .as_bytes()
            .chunks(76)
            .map(|c| format!("{pad}{}\n", String::from_utf8_lossy(c)))
            .collect();
        format!("!!binary |\n{}", lines.concat())
    }

    /// One interaction with a `!!binary` request body and a `!!binary` response body whose
    /// headers are `headers` (YAML lines at the headers' indentation).
    fn interaction(request: &[u8], response: &[u8], headers: &str) -> String {
        format!(
            "- request:\n    body: {}    method: POST\n    uri: https://api.x.com/v1\n  response:\n    body:\n      string: {}    headers:\n{headers}    status:\n      code: 200\n",
            binary(request, 6),
            binary(response, 8)
        )
    }

    fn doc(interactions: &[String]) -> String {
        format!("interactions:\n{}version: 1\n", interactions.concat())
    }

    const REQ: &[u8] = br#"{"input":"hi","model":"m"}"#;
    const RESP: &[u8] = br#"{"object":"response","output":[]}"#;

    #[test]
    fn serde_yaml_ng_drops_the_binary_tag() {
        // What this module works around: the tag is lost, the base64 text (with its line
        // breaks) is a plain string, as if the body were that text.
        let v: Value = serde_yaml_ng::from_str("b: !!binary |\n  aGVs\n  bG8=\n").unwrap();
        assert_eq!(v["b"], "aGVs\nbG8=\n");
        // Bound to a local tag, it is kept.
        let v = parse("b: !!binary |\n  aGVs\n  bG8=\nc: !!str x\nd: !!int 3\n").unwrap();
        assert_eq!(v["b"][BINARY], "aGVs\nbG8=\n");
        assert_eq!(v["c"], "x");
        assert_eq!(v["d"], 3);
    }

    #[test]
    fn reads_binary_request_and_gzip_response() {
        let gz = gzip(RESP);
        for headers in [
            "      Content-Encoding:\n      - gzip\n",
            "      content-encoding: GZIP\n",
            "      CONTENT-ENCODING:\n      - identity, gzip\n",
            // No header: the gzip magic number says it.
            "      Content-Type:\n      - application/json\n",
        ] {
            let y = doc(&[interaction(REQ, &gz, headers)]);
            let (its, problems) = read(&y, &["api.x.com"]);
            assert!(problems.is_empty(), "{headers}: {:?}", problems[0].message);
            assert_eq!(its[0].request.as_ref().unwrap()["input"], "hi");
            assert_eq!(its[0].response.as_ref().unwrap()["object"], "response");
        }
        // A plain (not compressed) `!!binary` response.
        let y = doc(&[interaction(REQ, RESP, "      x: y\n")]);
        let (its, problems) = read(&y, &["api.x.com"]);
        assert!(problems.is_empty());
        assert_eq!(its[0].response.as_ref().unwrap()["object"], "response");
    }

    #[test]
    fn reads_deflate_zlib_and_raw() {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(RESP).unwrap();
        let zlib = z.finish().unwrap();
        let mut r = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        r.write_all(RESP).unwrap();
        let raw = r.finish().unwrap();
        let h = "      Content-Encoding:\n      - deflate\n";
        let y = doc(&[interaction(REQ, &zlib, h), interaction(REQ, &raw, h)]);
        let (its, problems) = read(&y, &["api.x.com"]);
        assert!(problems.is_empty());
        assert_eq!(its.len(), 2);
        assert!(its
            .iter()
            .all(|i| i.response.as_ref().unwrap()["object"] == "response"));
    }

    #[test]
    fn a_gzip_stream_is_read_as_events() {
        let sse = b"event: response.created\ndata: {\"type\":\"response.created\"}\n\n";
        let y = doc(&[interaction(
            REQ,
            &gzip(sse),
            "      Content-Encoding: gzip\n",
        )]);
        let (its, problems) = read(&y, &["api.x.com"]);
        assert!(problems.is_empty());
        assert!(its[0].response.is_none());
        assert_eq!(its[0].stream.as_ref().unwrap().len(), 1);
    }

    /// The warnings of reading `bad` as the second of three interactions: the others are read.
    fn bad_body(bad: String) -> Vec<Problem> {
        let good = interaction(REQ, &gzip(RESP), "      Content-Encoding: gzip\n");
        let y = doc(&[good.clone(), bad, good]);
        let (its, problems) = read(&y, &["api.x.com"]);
        assert_eq!(its.len(), 3);
        assert!(its[0].response.is_some() && its[2].response.is_some());
        assert!(its[1].response.is_none() && its[1].stream.is_none());
        for p in &problems {
            assert_eq!(p.path, "interactions[1].response.body", "{}", p.message);
            assert_eq!(p.level, DiagLevel::Warning);
        }
        problems
    }

    #[test]
    fn bodies_that_cannot_be_read_are_warnings() {
        let h = "      Content-Encoding: gzip\n";
        // Brotli (and anything but gzip and deflate): named, skipped.
        let p = bad_body(interaction(
            REQ,
            RESP,
            "      Content-Encoding:\n      - br\n",
        ));
        assert!(p[0].message.contains("`br`"), "{}", p[0].message);
        let p = bad_body(interaction(REQ, RESP, "      content-encoding: zstd\n"));
        assert!(p[0].message.contains("`zstd`"), "{}", p[0].message);
        // Corrupted gzip: a byte of the deflate data changed (the CRC no longer matches).
        let mut gz = gzip(RESP);
        let n = gz.len();
        gz[n - 12] ^= 0xff;
        let p = bad_body(interaction(REQ, &gz, h));
        assert!(p[0].message.contains("not valid gzip"), "{}", p[0].message);
        // Cut short.
        let gz = gzip(RESP);
        let p = bad_body(interaction(REQ, &gz[..gz.len() / 2], h));
        assert!(p[0].message.contains("not valid gzip"), "{}", p[0].message);
        // Gzip header, not gzip data.
        let p = bad_body(interaction(REQ, RESP, h));
        assert!(p[0].message.contains("not valid gzip"), "{}", p[0].message);
        // Not UTF-8 once decoded.
        let p = bad_body(interaction(REQ, &gzip(b"\xff\xfe{}"), h));
        assert!(p[0].message.contains("not UTF-8"), "{}", p[0].message);
        // Bad base64.
        let bad = interaction(REQ, RESP, h).replace(
            "string: !!binary |\n        ",
            "string: !!binary |\n        *",
        );
        let p = bad_body(bad);
        assert!(
            p[0].message.contains("not valid base64"),
            "{}",
            p[0].message
        );
        // A gzip bomb: 8 MiB of spaces in a few KiB.
        let bomb = gzip(&vec![b' '; 8 << 20]);
        assert!(bomb.len() < 64 << 10);
        let p = bad_body(interaction(REQ, &bomb, h));
        assert!(
            p[0].message.contains("decompression bomb"),
            "{}",
            p[0].message
        );
    }

    #[test]
    fn the_inflate_limit_is_bounded() {
        assert_eq!(inflate_limit(10), 1 << 20);
        assert_eq!(inflate_limit(1 << 20), 64 << 20);
        assert_eq!(inflate_limit(usize::MAX), 256 << 20);
    }

    #[test]
    fn yaml_errors_keep_their_line_with_binary_bodies() {
        let y = doc(&[interaction(REQ, RESP, "      x: y\n")]);
        let lines = y.lines().count() as u64;
        for prefix in ["", "# recorded\n", "---\n", "%YAML 1.1\n---\n"] {
            let bad = format!("{prefix}{y}oops: [\n");
            let (_, problems) = read(&bad, &["x"]);
            let extra = prefix.lines().count() as u64;
            assert!(
                problems[0].line >= lines + extra,
                "{prefix:?}: {}",
                problems[0].line
            );
            assert!(
                problems[0].line <= lines + extra + 2,
                "{prefix:?}: {}",
                problems[0].line
            );
            let good = format!("{prefix}{y}");
            let (its, problems) = read(&good, &["api.x.com"]);
            assert!(problems.is_empty(), "{prefix:?}");
            assert!(its[0].response.is_some(), "{prefix:?}");
        }
    }
}
