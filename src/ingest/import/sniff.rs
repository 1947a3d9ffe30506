//! Format detection by content: the first bytes of a file, never its name.
//!
//! JSON is read with a small tolerant scanner that records the top-level keys (and their
//! string values) of the first object, so a 64 KiB head of a large document is enough.

use std::borrow::Cow;

/// How many bytes of a file are read to decide its format.
pub const HEAD_BYTES: usize = 64 * 1024;

/// The bit of a top-level key detection reads ([`Head::has`] and [`Head::str`] of
/// `import::detect` and of every importer's test), 0 for any other key. A document's keys
/// without a bit never change its detected format.
pub fn key_bit(key: &str) -> u64 {
    match key {
        "event" => 1,
        "resourceSpans" => 1 << 1,
        "trace" => 1 << 2,
        "observations" => 1 << 3,
        "type" => 1 << 4,
        "subtype" => 1 << 5,
        "sessionId" => 1 << 6,
        "session_id" => 1 << 7,
        "parentUuid" => 1 << 8,
        "leafUuid" => 1 << 9,
        "messageId" => 1 << 10,
        "role" => 1 << 11,
        "content" => 1 << 12,
        "object" => 1 << 13,
        "output" => 1 << 14,
        "created_at" => 1 << 15,
        "candidates" => 1 << 16,
        "usageMetadata" => 1 << 17,
        "modelVersion" => 1 << 18,
        "id" => 1 << 19,
        "custom_id" => 1 << 20,
        "result" => 1 << 21,
        "data" => 1 << 22,
        "timestamp" => 1 << 23,
        "public" => 1 << 24,
        "bookmarked" => 1 << 25,
        "projectId" => 1 << 26,
        "messages" => 1 << 27,
        "model" => 1 << 28,
        "request" => 1 << 29,
        "response" => 1 << 30,
        "post" => 1 << 31,
        "patch" => 1 << 32,
        "runs" => 1 << 33,
        "run_type" => 1 << 34,
        "dotted_order" => 1 << 35,
        "trace_id" => 1 << 36,
        "parent_run_id" => 1 << 37,
        "child_runs" => 1 << 38,
        "start_time" => 1 << 39,
        "request_body" => 1 << 40,
        "response_body" => 1 << 41,
        _ => 0,
    }
}

/// Every key [`key_bit`] gives a bit, for tests.
#[cfg(test)]
pub(crate) const ASKED_KEYS: [&str; 42] = [
    "event",
    "resourceSpans",
    "trace",
    "observations",
    "type",
    "subtype",
    "sessionId",
    "session_id",
    "parentUuid",
    "leafUuid",
    "messageId",
    "role",
    "content",
    "object",
    "output",
    "created_at",
    "candidates",
    "usageMetadata",
    "modelVersion",
    "id",
    "custom_id",
    "result",
    "data",
    "timestamp",
    "public",
    "bookmarked",
    "projectId",
    "messages",
    "model",
    "request",
    "response",
    "post",
    "patch",
    "runs",
    "run_type",
    "dotted_order",
    "trace_id",
    "parent_run_id",
    "child_runs",
    "start_time",
    "request_body",
    "response_body",
];

/// What [`Head::asked`] holds when detection asked for a key without a bit: what it read is
/// then not known.
pub const UNKNOWN_KEY: u64 = 1 << 63;

/// What the head of a file looks like.
#[derive(Debug, Default)]
pub struct Head<'a> {
    /// The head, lossily decoded (only for matching; importers read the real bytes).
    pub text: &'a str,
    /// The first non-blank line.
    pub first_line: &'a str,
    /// Top-level keys of the first JSON object (of the document, or of the first line),
    /// with their value when it is a string of at most [`MAX_VALUE_BYTES`] (borrowed from the
    /// head unless it has escapes; a longer value is skipped, not decoded).
    /// Read through [`Head::has`] and [`Head::str`] only, which note what was asked.
    keys: Vec<(Cow<'a, str>, Option<Cow<'a, str>>)>,
    /// The document starts with `[` (a JSON array).
    pub array: bool,
    /// The head is a VCR cassette (judged once: three importers ask).
    cassette: bool,
    /// The head is a server-sent event stream; the keys are those of its first event's data.
    sse: bool,
    /// The bits of the keys asked for so far ([`key_bit`]; [`UNKNOWN_KEY`] for a key without one).
    asked: std::cell::Cell<u64>,
}

impl<'a> Head<'a> {
    /// Reads the head of a file.
    pub fn new(text: &'a str) -> Head<'a> {
        let trimmed = text.trim_start_matches('\u{feff}').trim_start();
        let first_line = trimmed.lines().next().unwrap_or("");
        let array = trimmed.starts_with('[');
        // A JSON document's first line starts with `{` or `[`: no cassette (and its one line,
        // the whole document, is not searched again for its end).
        let json = array || trimmed.starts_with('{');
        let sse = !json && super::sse::starts_as_sse(trimmed);
        let keys = if json {
            top_keys(trimmed)
        } else if sse {
            // The keys of the first event's data: they tell which API streamed it.
            super::sse::first_data(trimmed).map_or_else(Vec::new, top_keys)
        } else {
            Vec::new()
        };
        Head {
            text: trimmed,
            first_line,
            keys,
            array,
            cassette: !json && !sse && cassette_text(trimmed),
            sse,
            asked: Default::default(),
        }
    }

    /// Reads the head of a JSON object document only up to its first nested value: the keys
    /// before it (with their string values) and its own key. `None` when the document is no
    /// object or has no nested value in the head (its first keys are then all its keys seen).
    /// What `import::detect_first_keys` judges, for a document its importer parses whole.
    pub fn first_keys(text: &'a str) -> Option<Head<'a>> {
        let trimmed = text.trim_start_matches('\u{feff}').trim_start();
        if !trimmed.starts_with('{') {
            return None;
        }
        let (keys, nested) = scan_keys(trimmed, true);
        nested.then(|| Head {
            text: trimmed,
            first_line: trimmed.lines().next().unwrap_or(""),
            keys,
            array: false,
            cassette: false,
            sse: false,
            asked: Default::default(),
        })
    }

    /// The names of the keys read, in document order: for telling a user what a file holds,
    /// not for detection (detection reads keys through [`Head::has`] and [`Head::str`]).
    pub fn key_names(&self) -> impl Iterator<Item = &str> {
        self.keys.iter().map(|(k, _)| &**k)
    }

    /// The bits ([`key_bit`]) of the keys read.
    pub fn key_bits(&self) -> u64 {
        self.keys.iter().fold(0, |bits, (k, _)| bits | key_bit(k))
    }

    /// The bits ([`key_bit`]) of the keys asked for so far by [`Head::has`] and [`Head::str`]:
    /// what every answer given so far depends on, beyond the text.
    pub fn asked(&self) -> u64 {
        self.asked.get()
    }

    fn ask(&self, key: &str) {
        let bit = key_bit(key);
        debug_assert!(
            bit != 0,
            "detection reads {key:?}: give it a bit in key_bit"
        );
        self.asked
            .set(self.asked.get() | if bit == 0 { UNKNOWN_KEY } else { bit });
    }

    /// True when the first object has this key.
    pub fn has(&self, key: &str) -> bool {
        self.ask(key);
        self.keys.iter().any(|(k, _)| k == key)
    }

    /// The string value of a top-level key of the first object.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.ask(key);
        self.keys
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.as_deref())
    }

    /// True when the head is a YAML document whose first key is `interactions:` (a VCR cassette).
    pub fn is_cassette(&self) -> bool {
        self.cassette
    }

    /// True when the head is a server-sent event stream (a streamed model response saved as
    /// received); [`Head::has`] and [`Head::str`] then read its first event's data.
    pub fn is_sse(&self) -> bool {
        self.sse
    }
}

/// True when the first 4 KiB of a whole file (cut at a character boundary) are a VCR cassette,
/// as [`Head::is_cassette`] judges them: what an importer of one response or a cassette asks
/// before reading the file (without reading its keys).
pub fn starts_as_cassette(text: &str) -> bool {
    let mut end = text.len().min(4096);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    cassette_text(text[..end].trim_start_matches('\u{feff}').trim_start())
}

fn cassette_text(text: &str) -> bool {
    let mut lines = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
    match lines.next() {
        Some("---") => lines.next().is_some_and(|l| l.starts_with("interactions:")),
        Some(l) => l.starts_with("interactions:"),
        None => false,
    }
}

/// Top-level keys and their string values, as [`Head::keys`] holds them.
type Keys<'a> = Vec<(Cow<'a, str>, Option<Cow<'a, str>>)>;

/// The top-level keys of the first JSON object in `s` (inside a leading `[` if any), scanning
/// tolerantly: a truncated head gives the keys seen so far (a key cut by the head's end is
/// none: its name is not known).
fn top_keys(s: &str) -> Keys<'_> {
    scan_keys(s, false).0
}

/// [`top_keys`], or with `first` only up to the first nested value of the object (its key
/// included); also whether the scan stopped there.
fn scan_keys(s: &str, first: bool) -> (Keys<'_>, bool) {
    let b = s.as_bytes();
    let mut i = 0;
    // Into the first object (skipping one `[`).
    while i < b.len() && b[i] != b'{' {
        if !matches!(b[i], b'[' | b' ' | b'\n' | b'\r' | b'\t') {
            return (Vec::new(), false);
        }
        i += 1;
    }
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut expect_key = false;
    let mut pending_key: Option<Cow<str>> = None;
    while i < b.len() {
        match b[i] {
            b'{' | b'[' => {
                depth += 1;
                if depth == 1 {
                    expect_key = true;
                }
                if depth == 2 {
                    if let Some(k) = pending_key.take() {
                        out.push((k, None));
                    }
                    if first {
                        return (out, true);
                    }
                }
                i += 1;
            }
            b'}' | b']' => {
                if depth == 1 {
                    // The last key, when its value is a number, `true`, `false` or `null`.
                    if let Some(k) = pending_key.take() {
                        out.push((k, None));
                    }
                    return (out, false);
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            // Strings inside nested values are skipped without being decoded.
            b'"' if depth != 1 => i = skip_string(b, i),
            // A long value is skipped, not decoded: detection reads short values only (a
            // `type`, an `id`), and a document's first keys may hold a long text (a trace's
            // `input`) that runs past the head.
            b'"' if !expect_key && pending_key.is_some() && long_string(b, i) => {
                if let Some(k) = pending_key.take() {
                    out.push((k, None));
                }
                i = skip_string(b, i);
            }
            b'"' => {
                let (text, next, closed) = string_at(s, i);
                i = next;
                if depth == 1 {
                    if expect_key {
                        pending_key = closed.then_some(text);
                        expect_key = false;
                    } else if let Some(k) = pending_key.take() {
                        out.push((k, Some(text)));
                    }
                }
            }
            b',' => {
                if depth == 1 {
                    if let Some(k) = pending_key.take() {
                        out.push((k, None));
                    }
                    expect_key = true;
                }
                i += 1;
            }
            // Inside nested values only strings and brackets matter: jump to the next one.
            _ if depth > 1 => i = next_structural(b, i + 1),
            _ => i += 1,
        }
    }
    if let Some(k) = pending_key {
        out.push((k, None));
    }
    (out, false)
}

/// The index of the first byte at or after `from` that opens or closes a string, an object or
/// an array (the end of `b` when there is none).
fn next_structural(b: &[u8], from: usize) -> usize {
    let Some(rest) = b.get(from..) else {
        return b.len();
    };
    // Eight bytes at a time: a byte is structural when it is `"`, or when it is `{`/`[` or
    // `}`/`]` once bit 0x20 is set (`[` is 0x5B, `{` 0x7B; `]` 0x5D, `}` 0x7D). The lowest
    // flagged byte of a zero-byte test is exact, which is the one taken.
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let mut words = rest.chunks_exact(8);
    let mut at = from;
    for w in &mut words {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        let w = u64::from_le_bytes(word);
        let folded = w | (0x20 * ONES);
        let hit = zero(w ^ (b'"' as u64 * ONES))
            | zero(folded ^ (0x7B * ONES))
            | zero(folded ^ (0x7D * ONES));
        if hit != 0 {
            return at + (hit.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&c| matches!(c, b'"' | b'{' | b'}' | b'[' | b']'))
        .map_or(b.len(), |p| at + p)
}

/// The longest string value [`Head::str`] gives (in bytes, escapes as written): a longer one is
/// its key's without a value.
pub const MAX_VALUE_BYTES: usize = 256;

/// True when the JSON string starting at byte `start` (a `"`) is longer than
/// [`MAX_VALUE_BYTES`] (or cut by the end of `b` after that many bytes).
fn long_string(b: &[u8], start: usize) -> bool {
    let from = start + 1;
    let window = &b[from.min(b.len())..(from + MAX_VALUE_BYTES + 1).min(b.len())];
    // No closing quote within the window (a quote there may be escaped: then the scan decides).
    window.len() > MAX_VALUE_BYTES
        && (!window.contains(&b'"') || skip_string(b, start) - from > MAX_VALUE_BYTES + 1)
}

/// The index after the JSON string starting at byte `start` (a `"`).
fn skip_string(b: &[u8], start: usize) -> usize {
    // From quote to quote: a quote ends the string unless an odd run of backslashes precedes it
    // (stopping at every backslash was slow on escape-heavy strings such as rendered HTML).
    let mut i = start + 1;
    while let Some(p) = b.get(i..).and_then(|rest| memchr::memchr(b'"', rest)) {
        i += p;
        let run = b[start + 1..i]
            .iter()
            .rev()
            .take_while(|&&c| c == b'\\')
            .count();
        if run % 2 == 0 {
            return i + 1;
        }
        i += 1;
    }
    b.len()
}

/// The decoded text of the JSON string starting at byte `start` (a `"`), the index after it, and
/// whether its closing quote is in `s`: borrowed when it has no escapes. Escapes other than `\"`
/// and `\\` are kept as written (keys that matter are plain ASCII).
fn string_at(s: &str, start: usize) -> (Cow<'_, str>, usize, bool) {
    let b = s.as_bytes();
    let from = start + 1;
    match b
        .get(from..)
        .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
    {
        Some(p) if b[from + p] == b'"' => {
            return (
                Cow::Borrowed(s.get(from..from + p).unwrap_or("")),
                from + p + 1,
                true,
            )
        }
        None => {
            return (
                Cow::Borrowed(s.get(from.min(b.len())..).unwrap_or("")),
                b.len(),
                false,
            )
        }
        Some(_) => {}
    }
    let mut out = String::new();
    let mut i = from;
    let mut run = i;
    while i < b.len() {
        match b[i] {
            b'"' => {
                out.push_str(s.get(run..i).unwrap_or(""));
                return (Cow::Owned(out), i + 1, true);
            }
            b'\\' => {
                out.push_str(s.get(run..i).unwrap_or(""));
                if let Some(&c) = b.get(i + 1) {
                    if c == b'"' || c == b'\\' || c == b'/' {
                        out.push(c as char);
                    } else {
                        out.push('\\');
                        out.push(c as char);
                    }
                }
                i += 2;
                run = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(s.get(run.min(b.len())..).unwrap_or(""));
    (Cow::Owned(out), b.len(), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Head::has` for any key (detection's own keys only are asked through `has`).
    fn has(h: &Head, key: &str) -> bool {
        h.keys.iter().any(|(k, _)| k == key)
    }

    /// `Head::str` for any key.
    fn value<'h>(h: &'h Head, key: &str) -> Option<&'h str> {
        h.keys
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.as_deref())
    }

    #[test]
    fn top_level_keys_of_a_truncated_document() {
        let h = Head::new(
            "{\"type\": \"message\", \"content\": [{\"type\":\"text\"}], \"role\":\"assis",
        );
        assert_eq!(value(&h, "type"), Some("message"));
        assert!(has(&h, "content"));
        assert!(has(&h, "role"));
        let h = Head::new("[{\"type\":\"system\",\"subtype\":\"init\"},{\"x\":1}]");
        assert!(h.array);
        assert_eq!(value(&h, "subtype"), Some("init"));
        assert!(!has(&h, "x"));
    }

    #[test]
    fn brackets_quotes_and_commas_inside_nested_strings_are_skipped() {
        let h = Head::new(
            r#"{"a": [{"s": "x]}\"{[,", "t": "\\"}, 1, [2, "]"]], "object": "response", "b": {"c": "}"}, "z": "3"}"#,
        );
        let keys: Vec<&str> = h.keys.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(keys, ["a", "object", "b", "z"]);
        assert_eq!(value(&h, "object"), Some("response"));
        // Cut inside a nested string: the keys seen so far.
        let h = Head::new(r#"{"k": "v", "n": {"s": "abc\"#);
        assert_eq!(value(&h, "k"), Some("v"));
        assert!(has(&h, "n"));
        // Escaped and truncated strings, at the top level.
        let h = Head::new(r#"{"a\"b": "c\\d\/e\n", "t": "cut"#);
        assert_eq!(value(&h, "a\"b"), Some("c\\d/e\\n"));
        assert_eq!(value(&h, "t"), Some("cut"));
        assert!(matches!(h.keys[0].0, Cow::Owned(_)));
        let h = Head::new(r#"{"plain": "v"}"#);
        assert!(matches!(
            h.keys[0],
            (Cow::Borrowed("plain"), Some(Cow::Borrowed("v")))
        ));
    }

    #[test]
    fn first_keys_stop_at_the_first_nested_value_and_note_what_is_asked() {
        let h = Head::first_keys(
            "\u{feff} {\"id\": \"r\", \"object\": \"response\", \"n\": 1, \"billing\": {\"output\": 1}, \"output\": []}",
        );
        let Some(h) = h else { panic!("no first keys") };
        let keys: Vec<&str> = h.keys.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(keys, ["id", "object", "n", "billing"]);
        assert_eq!(h.key_bits(), key_bit("id") | key_bit("object"));
        assert_eq!(h.asked(), 0);
        assert!(!h.has("output"));
        assert_eq!(h.str("object"), Some("response"));
        assert_eq!(h.asked(), key_bit("output") | key_bit("object"));
        // No nested value in the head, no object, a cut value: no first keys.
        assert!(Head::first_keys(r#"{"a": 1, "b": "c"}"#).is_none());
        assert!(Head::first_keys(r#"[{"a": {}}]"#).is_none());
        assert!(Head::first_keys(r#"{"a": "cut"#).is_none());
        assert!(Head::first_keys("").is_none());
        // Every key detection asks for has its own bit.
        let bits: Vec<u64> = ASKED_KEYS.iter().map(|k| key_bit(k)).collect();
        assert_eq!(
            bits.iter().fold(0, |a, b| a | b).count_ones(),
            ASKED_KEYS.len() as u32
        );
        assert!(!bits.contains(&UNKNOWN_KEY) && key_bit("events") == 0);
    }

    #[test]
    fn a_last_key_is_kept_whatever_its_value() {
        for (doc, keys) in [
            (r#"{"a":"1","x":false}"#, vec!["a", "x"]),
            (r#"{"a": "1", "x": 7 }"#, vec!["a", "x"]),
            (r#"{"x":null}"#, vec!["x"]),
            (r#"[{"a":{"b":1},"x":true}]"#, vec!["a", "x"]),
            (r#"{"a":"1","x":"y"}"#, vec!["a", "x"]),
        ] {
            let h = Head::new(doc);
            let got: Vec<&str> = h.keys.iter().map(|(k, _)| k.as_ref()).collect();
            assert_eq!(got, keys, "{doc}");
        }
    }

    #[test]
    fn a_long_value_is_skipped_and_its_key_kept() {
        let long = "x\\\"y".repeat(MAX_VALUE_BYTES);
        for (doc, keys) in [
            // Long values, with escapes, closed and cut by the head's end.
            (
                format!(r#"{{"id": "t", "input": "{long}", "public": false, "z": "1"}}"#),
                vec!["id", "input", "public", "z"],
            ),
            (
                format!(r#"{{"id": "t", "input": "{long}"#),
                vec!["id", "input"],
            ),
            (
                format!(r#"{{"input": "{long}\\", "type": "message"}}"#),
                vec!["input", "type"],
            ),
        ] {
            let h = Head::new(&doc);
            let got: Vec<&str> = h.keys.iter().map(|(k, _)| k.as_ref()).collect();
            assert_eq!(got, keys);
            assert_eq!(value(&h, "input"), None);
            assert_eq!(
                value(&h, "id").or(value(&h, "type")),
                Some(if doc.contains("message") {
                    "message"
                } else {
                    "t"
                })
            );
        }
        // Up to the limit, a value is read; one byte more, it is not.
        let at = "v".repeat(MAX_VALUE_BYTES);
        assert_eq!(
            value(&Head::new(&format!(r#"{{"a": "{at}"}}"#)), "a"),
            Some(at.as_str())
        );
        assert_eq!(
            value(&Head::new(&format!(r#"{{"a": "{at}v"}}"#)), "a"),
            None
        );
        let quoted = format!("{}\\\"", "v".repeat(MAX_VALUE_BYTES - 2));
        assert_eq!(
            value(&Head::new(&format!(r#"{{"a": "{quoted}"}}"#)), "a").map(str::len),
            Some(MAX_VALUE_BYTES - 1)
        );
    }

    #[test]
    fn a_key_cut_by_the_heads_end_is_no_key() {
        for head in [
            r#"{"object": "response", "eve"#,
            r#"{"object": "response", "ev\"#,
            r#"{"object": "response", "eve\"nt"#,
        ] {
            let h = Head::new(head);
            let keys: Vec<&str> = h.keys.iter().map(|(k, _)| k.as_ref()).collect();
            assert_eq!(keys, ["object"], "{head}");
        }
        // A cut value still counts as its key's (as before).
        assert_eq!(value(&Head::new(r#"{"type": "mess"#), "type"), Some("mess"));
    }

    #[test]
    fn the_next_structural_byte_is_found_at_any_position() {
        let plain = |b: &[u8], from: usize| {
            b.iter()
                .skip(from)
                .position(|&c| matches!(c, b'"' | b'{' | b'}' | b'[' | b']'))
                .map_or(b.len(), |p| from + p)
        };
        // Every structural byte, and the bytes that share their low bits, at every position of
        // texts longer than a word.
        for c in [
            b'"', b'{', b'}', b'[', b']', b'\x02', b';', b'=', b'\x1b', b'\xfb', b'\xdd', b' ',
        ] {
            for len in 0..21 {
                for at in 0..len {
                    let mut t = vec![b'a'; len];
                    t[at] = c;
                    if at + 1 < len {
                        t[at + 1] = b'"';
                    }
                    for from in 0..=len + 1 {
                        assert_eq!(
                            next_structural(&t, from),
                            plain(&t, from),
                            "{t:?} from {from}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_string_ends_at_its_first_unescaped_quote() {
        // Byte by byte, as a JSON reader sees it.
        let plain = |b: &[u8], start: usize| {
            let mut i = start + 1;
            while i < b.len() {
                match b[i] {
                    b'"' => return i + 1,
                    b'\\' => i += 2,
                    _ => i += 1,
                }
            }
            b.len()
        };
        // Every text of up to 9 bytes over quote, backslash and a letter, after an opening quote.
        let alphabet = [b'"', b'\\', b'a'];
        for len in 0..=9u32 {
            for mut k in 0..3usize.pow(len) {
                let mut t = vec![b'x', b'"'];
                for _ in 0..len {
                    t.push(alphabet[k % 3]);
                    k /= 3;
                }
                assert_eq!(
                    skip_string(&t, 1),
                    plain(&t, 1),
                    "{:?}",
                    String::from_utf8_lossy(&t)
                );
            }
        }
    }

    #[test]
    fn cassettes_and_plain_text() {
        // Cut at 4 KiB inside a character: no panic, the same answer as a head.
        let long = format!("interactions:\n- {}\u{e9}\u{e9}", "a".repeat(4079));
        assert!(!long.is_char_boundary(4096));
        assert!(starts_as_cassette(&long));
        let doc = format!("{{\"a\": \"{}\u{e9}\"}}", "b".repeat(4088));
        assert!(!doc.is_char_boundary(4096));
        assert!(!starts_as_cassette(&doc));
        assert!(starts_as_cassette("\u{feff}\n# c\n---\ninteractions: []"));
        assert!(Head::new("interactions:\n- request:\n").is_cassette());
        assert!(Head::new("---\ninteractions:\n").is_cassette());
        assert!(!Head::new("2025-06-30T06:11:45.990Z [weather] [info] x").is_cassette());
        assert!(Head::new("not json").keys.is_empty());
        assert!(Head::new("").keys.is_empty());
    }
}
