//! Newline-delimited JSON-RPC framing: each direction's byte stream is cut into lines across
//! chunk boundaries ([`LineBuffer`]), and a line into its messages (one object, or a batch)
//! with the fields the proxy looks at ([`messages`]).
//!
//! A line is held until its newline so that the proxy can forward it whole, rewritten when a
//! reused JSON-RPC id must be replaced (see [`super::pairing`]). A line longer than the cap is
//! not held: it is passed through as it arrives, unexamined, up to its newline.

use serde::Deserialize;
use serde_json::value::RawValue;

/// What a [`LineBuffer`] hands out, in stream order.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// A complete line, with its `\n` (the bytes to forward, unless rewritten).
    Line(&'a [u8]),
    /// Bytes to forward as they are, unexamined: a line over the cap, or what is left without
    /// a newline at the end of the stream.
    Raw(&'a [u8]),
    /// A line went over the cap (reported once, before its first `Raw` bytes); the count is
    /// how many bytes of it had arrived.
    Oversize(usize),
}

/// Cuts one direction's byte stream into lines, across chunk boundaries. Holds at most `cap`
/// bytes (plus the chunk being cut).
#[derive(Debug)]
pub struct LineBuffer {
    buf: Vec<u8>,
    /// Inside a line over the cap: passing bytes through up to the next newline.
    streaming: bool,
    cap: usize,
}

impl LineBuffer {
    /// A buffer examining lines of at most `cap` bytes (without the newline).
    pub fn new(cap: usize) -> LineBuffer {
        LineBuffer {
            buf: Vec::new(),
            streaming: false,
            cap,
        }
    }

    /// Bytes held, waiting for their newline.
    pub fn held(&self) -> usize {
        self.buf.len()
    }

    /// Cuts `chunk`, handing every piece to `f` in order. Every input byte is handed out
    /// exactly once, in order, as part of a `Line` or a `Raw` piece (now or later).
    pub fn push(&mut self, chunk: &[u8], mut f: impl FnMut(Piece<'_>)) {
        let mut rest = chunk;
        while !rest.is_empty() {
            let nl = memchr::memchr(b'\n', rest);
            if self.streaming {
                match nl {
                    Some(i) => {
                        f(Piece::Raw(&rest[..=i]));
                        self.streaming = false;
                        rest = &rest[i + 1..];
                        continue;
                    }
                    None => {
                        f(Piece::Raw(rest));
                        return;
                    }
                }
            }
            match nl {
                Some(i) => {
                    let len = self.buf.len() + i;
                    if self.buf.is_empty() && len <= self.cap {
                        f(Piece::Line(&rest[..=i]));
                    } else if len <= self.cap {
                        self.buf.extend_from_slice(&rest[..=i]);
                        f(Piece::Line(&self.buf));
                        self.buf.clear();
                    } else {
                        f(Piece::Oversize(len));
                        if !self.buf.is_empty() {
                            f(Piece::Raw(&self.buf));
                            self.buf = Vec::new();
                        }
                        f(Piece::Raw(&rest[..=i]));
                    }
                    rest = &rest[i + 1..];
                }
                None => {
                    if self.buf.len() + rest.len() > self.cap {
                        f(Piece::Oversize(self.buf.len() + rest.len()));
                        if !self.buf.is_empty() {
                            f(Piece::Raw(&self.buf));
                            self.buf = Vec::new();
                        }
                        f(Piece::Raw(rest));
                        self.streaming = true;
                    } else {
                        self.buf.extend_from_slice(rest);
                    }
                    return;
                }
            }
        }
    }

    /// The stream ended: what is held (a last line without its newline) is handed out as `Raw`,
    /// unexamined.
    pub fn finish(&mut self, mut f: impl FnMut(Piece<'_>)) {
        if !self.buf.is_empty() {
            f(Piece::Raw(&self.buf));
        }
        self.buf = Vec::new();
        self.streaming = false;
    }
}

/// The fields of a JSON-RPC message the proxy looks at; the rest is skipped.
#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(borrow, default)]
    method: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
}

/// One message of a line, as the proxy sees it. All slices borrow from the line.
#[derive(Debug, Clone)]
pub struct Message<'a> {
    /// The whole message (an object).
    pub raw: &'a RawValue,
    /// The method, when it is a string (requests and notifications), unescaped.
    pub method: Option<std::borrow::Cow<'a, str>>,
    /// The `id` as written, when present and not `null`.
    pub id: Option<&'a RawValue>,
}

/// The messages of one line: a JSON object, or each object of a batch (`[...]`). Anything else
/// (not UTF-8, not JSON, an object with duplicate `method` or `id` keys, a batch element that is
/// not an object) gives no message for that object: such input is forwarded, never paired.
pub fn messages(line: &[u8]) -> Vec<Message<'_>> {
    let Ok(text) = std::str::from_utf8(line) else {
        return Vec::new();
    };
    let text = text.trim_matches(|c: char| c.is_ascii_whitespace());
    if text.is_empty() {
        return Vec::new();
    }
    let raws: Vec<&RawValue> = if text.starts_with('[') {
        serde_json::from_str(text).unwrap_or_default()
    } else {
        match serde_json::from_str::<&RawValue>(text) {
            Ok(r) => vec![r],
            Err(_) => Vec::new(),
        }
    };
    raws.into_iter()
        .filter_map(|raw| {
            let p: Probe = serde_json::from_str(raw.get()).ok()?;
            let method = p
                .method
                .and_then(|m| serde_json::from_str::<std::borrow::Cow<str>>(m.get()).ok());
            let id = p.id.filter(|i| i.get() != "null");
            Some(Message { raw, method, id })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(cap: usize, chunks: &[&[u8]]) -> Vec<String> {
        let mut b = LineBuffer::new(cap);
        let mut out = Vec::new();
        let mut f = |p: Piece<'_>| {
            out.push(match p {
                Piece::Line(l) => format!("L{}", String::from_utf8_lossy(l)),
                Piece::Raw(r) => format!("R{}", String::from_utf8_lossy(r)),
                Piece::Oversize(n) => format!("O{n}"),
            })
        };
        for c in chunks {
            b.push(c, &mut f);
        }
        b.finish(&mut f);
        out
    }

    #[test]
    fn lines_across_chunks_and_the_cap() {
        assert_eq!(cut(10, &[b"ab", b"c\nd", b"\n"]), ["Labc\n", "Ld\n"]);
        assert_eq!(cut(10, &[b"abc\n\nx"]), ["Labc\n", "L\n", "Rx"]);
        // over the cap: passed through up to the newline, then lines again
        assert_eq!(
            cut(3, &[b"ab", b"cdef", b"g\nhi\n"]),
            ["O6", "Rab", "Rcdef", "Rg\n", "Lhi\n"]
        );
        assert_eq!(cut(3, &[b"abcd\nx\n"]), ["O4", "Rabcd\n", "Lx\n"]);
        assert_eq!(cut(3, &[b"abc\n"]), ["Labc\n"]);
    }

    #[test]
    fn messages_of_a_line() {
        let m = messages(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].method.as_deref(), Some("tools/call"));
        let m = messages(br#"{"id":7,"method":"tools\/call"}"#);
        assert_eq!(m[0].method.as_deref(), Some("tools/call"));
        assert_eq!(m[0].id.map(RawValue::get), Some("7"));
        let m = messages(b"[{\"id\":\"a\",\"result\":{}},{\"method\":\"x\"},3]\r\n");
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].id.map(RawValue::get), Some("\"a\""));
        assert!(m[1].id.is_none());
        assert!(messages(b"{\"id\":1,\"id\":2}").is_empty());
        assert!(messages(b"\xff").is_empty());
        assert!(messages(b"{\"id\":null,\"method\":\"m\"}")[0].id.is_none());
    }
}
