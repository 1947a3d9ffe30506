//! Format detection by content: the first bytes of a file, never its name.
//!
//! JSON is read with a small tolerant scanner that records the top-level keys (and their
//! string values) of the first object, so a 64 KiB head of a large document is enough.

use std::borrow::Cow;

/// How many bytes of a file are read to decide its format.
pub const HEAD_BYTES: usize = 64 * 1024;

/// What the head of a file looks like.
#[derive(Debug, Default)]
pub struct Head<'a> {
    /// The head, lossily decoded (only for matching; importers read the real bytes).
    pub text: &'a str,
    /// The first non-blank line.
    pub first_line: &'a str,
    /// Top-level keys of the first JSON object (of the document, or of the first line),
    /// with their value when it is a string (borrowed from the head unless it has escapes).
    pub keys: Vec<(Cow<'a, str>, Option<Cow<'a, str>>)>,
    /// The document starts with `[` (a JSON array).
    pub array: bool,
    /// The head is a VCR cassette (judged once: three importers ask).
    cassette: bool,
}

impl<'a> Head<'a> {
    /// Reads the head of a file.
    pub fn new(text: &'a str) -> Head<'a> {
        let trimmed = text.trim_start_matches('\u{feff}').trim_start();
        let first_line = trimmed.lines().next().unwrap_or("");
        let array = trimmed.starts_with('[');
        let keys = if trimmed.starts_with('{') || array {
            top_keys(trimmed)
        } else {
            Vec::new()
        };
        // A JSON document's first line starts with `{` or `[`: no cassette (and its one line,
        // the whole document, is not searched again for its end).
        let json = array || trimmed.starts_with('{');
        Head {
            text: trimmed,
            first_line,
            keys,
            array,
            cassette: !json && cassette_text(trimmed),
        }
    }

    /// True when the first object has this key.
    pub fn has(&self, key: &str) -> bool {
        self.keys.iter().any(|(k, _)| k == key)
    }

    /// The string value of a top-level key of the first object.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.keys
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.as_deref())
    }

    /// True when the head is a YAML document whose first key is `interactions:` (a VCR cassette).
    pub fn is_cassette(&self) -> bool {
        self.cassette
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

/// The top-level keys of the first JSON object in `s` (inside a leading `[` if any), scanning
/// tolerantly: a truncated head gives the keys seen so far.
fn top_keys(s: &str) -> Vec<(Cow<'_, str>, Option<Cow<'_, str>>)> {
    let b = s.as_bytes();
    let mut i = 0;
    // Into the first object (skipping one `[`).
    while i < b.len() && b[i] != b'{' {
        if !matches!(b[i], b'[' | b' ' | b'\n' | b'\r' | b'\t') {
            return Vec::new();
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
                }
                i += 1;
            }
            b'}' | b']' => {
                if depth == 1 {
                    return out;
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            // Strings inside nested values are skipped without being decoded.
            b'"' if depth != 1 => i = skip_string(b, i),
            b'"' => {
                let (text, next) = string_at(s, i);
                i = next;
                if depth == 1 {
                    if expect_key {
                        pending_key = Some(text);
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
    out
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

/// The decoded text of the JSON string starting at byte `start` (a `"`), and the index after it:
/// borrowed when it has no escapes. Escapes other than `\"` and `\\` are kept as written (keys
/// that matter are plain ASCII).
fn string_at(s: &str, start: usize) -> (Cow<'_, str>, usize) {
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
            )
        }
        None => {
            return (
                Cow::Borrowed(s.get(from.min(b.len())..).unwrap_or("")),
                b.len(),
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
                return (Cow::Owned(out), i + 1);
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
    (Cow::Owned(out), b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_keys_of_a_truncated_document() {
        let h = Head::new(
            "{\"type\": \"message\", \"content\": [{\"type\":\"text\"}], \"role\":\"assis",
        );
        assert_eq!(h.str("type"), Some("message"));
        assert!(h.has("content"));
        assert!(h.has("role"));
        let h = Head::new("[{\"type\":\"system\",\"subtype\":\"init\"},{\"x\":1}]");
        assert!(h.array);
        assert_eq!(h.str("subtype"), Some("init"));
        assert!(!h.has("x"));
    }

    #[test]
    fn brackets_quotes_and_commas_inside_nested_strings_are_skipped() {
        let h = Head::new(
            r#"{"a": [{"s": "x]}\"{[,", "t": "\\"}, 1, [2, "]"]], "object": "response", "b": {"c": "}"}, "z": "3"}"#,
        );
        let keys: Vec<&str> = h.keys.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(keys, ["a", "object", "b", "z"]);
        assert_eq!(h.str("object"), Some("response"));
        // Cut inside a nested string: the keys seen so far.
        let h = Head::new(r#"{"k": "v", "n": {"s": "abc\"#);
        assert_eq!(h.str("k"), Some("v"));
        assert!(h.has("n"));
        // Escaped and truncated strings, at the top level.
        let h = Head::new(r#"{"a\"b": "c\\d\/e\n", "t": "cut"#);
        assert_eq!(h.str("a\"b"), Some("c\\d/e\\n"));
        assert_eq!(h.str("t"), Some("cut"));
        assert!(matches!(h.keys[0].0, Cow::Owned(_)));
        let h = Head::new(r#"{"plain": "v"}"#);
        assert!(matches!(
            h.keys[0],
            (Cow::Borrowed("plain"), Some(Cow::Borrowed("v")))
        ));
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
