//! Machine documents written as their sessions are checked, with the bytes a whole-document
//! serialization would give: a pretty JSON document is split around its one long array, whose
//! elements are serialized one at a time; parts that must wait for totals written at the top
//! (the `metrics` of `provscope.verify/1`, JUnit's counts) wait in a [`Spool`], in memory up to
//! a limit and then in an unnamed temporary file, so a run keeps O(1) memory per session.

use serde::Serialize;
use std::io::{self, Read, Seek, Write};

/// A pretty-printed JSON document cut where one of its arrays goes: `head` ends with the
/// array's `[`, `tail` starts with its `]`.
pub struct Frame {
    /// Everything up to and including the array's `[`.
    pub head: String,
    /// Everything from the array's `]`.
    pub tail: String,
    /// The array's elements, written one by one.
    pub elements: Elements,
}

impl Frame {
    /// Cuts `doc`, serialized with the array `key` empty at nesting `depth` (the top-level
    /// object's keys are at depth 1), where the array goes.
    pub fn new(doc: &impl Serialize, key: &str, depth: usize) -> io::Result<Frame> {
        let text = serde_json::to_string_pretty(doc)?;
        let mark = format!("\n{}\"{key}\": [", "  ".repeat(depth));
        let at = text
            .find(&format!("{mark}]"))
            .ok_or_else(|| io::Error::other(format!("no empty `{key}` array to stream into")))?;
        let (head, tail) = text.split_at(at + mark.len());
        Ok(Frame {
            head: head.to_owned(),
            tail: tail.to_owned(),
            elements: Elements::new(depth + 1),
        })
    }
}

/// The elements of a streamed array: each pretty-printed as serde_json prints it in place.
pub struct Elements {
    depth: usize,
    count: u64,
}

impl Elements {
    /// The elements of an array whose elements are at nesting `depth`.
    pub fn new(depth: usize) -> Self {
        Elements { depth, count: 0 }
    }

    /// Writes the next element (with the separator before it), serialized straight into `w`
    /// with each line indented: a large element is never held whole in memory.
    pub fn push(&mut self, w: &mut impl Write, v: &impl Serialize) -> io::Result<()> {
        let indent = "  ".repeat(self.depth);
        w.write_all(if self.count == 0 { b"\n" } else { b",\n" })?;
        w.write_all(indent.as_bytes())?;
        let mut iw = Indented {
            w,
            indent: indent.as_bytes(),
        };
        serde_json::to_writer_pretty(&mut iw, v)?;
        self.count += 1;
        Ok(())
    }

    /// What goes between the last element and the array's `]`.
    pub fn close(&self, w: &mut impl Write) -> io::Result<()> {
        if self.count > 0 {
            w.write_all(b"\n")?;
            w.write_all("  ".repeat(self.depth - 1).as_bytes())?;
        }
        Ok(())
    }

    /// How many elements were written.
    pub fn count(&self) -> u64 {
        self.count
    }
}

/// A writer that indents every line after the first: pretty JSON has newlines only between
/// tokens (inside strings they are escaped), so this nests a serialized value in place.
struct Indented<'a, W: Write> {
    w: &'a mut W,
    indent: &'a [u8],
}

impl<W: Write> Write for Indented<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while let Some(i) = rest.iter().position(|&b| b == b'\n') {
            self.w.write_all(&rest[..=i])?;
            self.w.write_all(self.indent)?;
            rest = &rest[i + 1..];
        }
        self.w.write_all(rest)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// Bytes written now and read back once at the end: in memory up to `limit`, then in an
/// unnamed temporary file (removed by the system when closed).
pub struct Spool {
    mem: Vec<u8>,
    file: Option<io::BufWriter<std::fs::File>>,
    limit: usize,
}

/// Bytes a [`Spool`] keeps in memory before it moves to a temporary file.
pub const SPOOL_MEMORY: usize = 8 << 20;

impl Spool {
    /// A spool keeping up to `limit` bytes in memory.
    pub fn new(limit: usize) -> Self {
        Spool {
            mem: Vec::new(),
            file: None,
            limit,
        }
    }

    /// Copies everything written to `w`, in order.
    pub fn copy_to(self, w: &mut impl Write) -> io::Result<()> {
        match self.file {
            None => w.write_all(&self.mem),
            Some(f) => {
                let mut f = f.into_inner().map_err(|e| e.into_error())?;
                f.rewind()?;
                let mut r = io::BufReader::with_capacity(1 << 20, f);
                let mut buf = vec![0u8; 1 << 20];
                loop {
                    let n = r.read(&mut buf)?;
                    if n == 0 {
                        return Ok(());
                    }
                    w.write_all(&buf[..n])?;
                }
            }
        }
    }
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(f) = &mut self.file {
            return f.write(buf);
        }
        if self.mem.len() + buf.len() <= self.limit {
            self.mem.extend_from_slice(buf);
            return Ok(buf.len());
        }
        let mut f = io::BufWriter::with_capacity(1 << 20, tempfile::tempfile()?);
        f.write_all(&self.mem)?;
        self.mem = Vec::new();
        let n = f.write(buf)?;
        self.file = Some(f);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_framed_document_is_the_whole_document_byte_for_byte() {
        let items = [
            json!({"a": 1, "b": [1, 2, {"c": "x\ny"}], "d": {}}),
            json!([]),
            json!({"e": [], "f": "]\n  \"items\": []"}),
        ];
        for n in 0..=items.len() {
            let whole = json!({"top": {"k": "v"}, "items": items[..n], "tail": [1]});
            let want = serde_json::to_string_pretty(&whole).unwrap();
            let empty = json!({"top": {"k": "v"}, "items": [], "tail": [1]});
            let mut f = Frame::new(&empty, "items", 1).unwrap();
            let mut spool = Spool::new(if n == 2 { 3 } else { 1 << 20 });
            for it in &items[..n] {
                f.elements.push(&mut spool, it).unwrap();
            }
            f.elements.close(&mut spool).unwrap();
            let mut got = f.head.clone().into_bytes();
            spool.copy_to(&mut got).unwrap();
            got.extend_from_slice(f.tail.as_bytes());
            assert_eq!(String::from_utf8(got).unwrap(), want, "{n} items");
        }
    }

    #[test]
    fn a_nested_array_streams_too() {
        let r = json!({"x": 1});
        let whole = json!({"runs": [{"tool": {"n": 1}, "results": [r, r]}]});
        let want = serde_json::to_string_pretty(&whole).unwrap();
        let empty = json!({"runs": [{"tool": {"n": 1}, "results": []}]});
        let mut f = Frame::new(&empty, "results", 3).unwrap();
        let mut got = f.head.clone().into_bytes();
        f.elements.push(&mut got, &r).unwrap();
        f.elements.push(&mut got, &r).unwrap();
        f.elements.close(&mut got).unwrap();
        got.extend_from_slice(f.tail.as_bytes());
        assert_eq!(String::from_utf8(got).unwrap(), want);
    }
}
