//! A line reader with a size cap: a line longer than the cap is skipped without buffering it.

use std::io::{self, BufRead};

/// One line read from input.
pub enum Line<'a> {
    /// The line's bytes, without the trailing `\n` (or `\r\n`).
    Text {
        /// 1-based line number.
        line_no: u64,
        /// False for a last line with no `\n` (a file cut short).
        ended: bool,
        /// The line, borrowed from the reader's buffer when it fits there, else copied.
        bytes: &'a [u8],
    },
    /// The line was longer than the cap; its bytes were skipped.
    TooLong { line_no: u64, bytes: u64 },
}

/// Reads `\n`-terminated lines, never holding more than `cap` bytes of one line (a byte order
/// mark before the first is dropped). A line that lies whole in the reader's buffer is handed
/// out in place; only a line that spans buffer refills is copied.
pub struct CappedLines<R> {
    inner: R,
    cap: usize,
    line_no: u64,
    /// Bytes of the line handed out in place, consumed from `inner` on the next call.
    pending: usize,
    /// Bytes consumed so far (including the line last handed out).
    pub consumed: u64,
    /// A line that spans buffer refills, copied.
    buf: Vec<u8>,
}

fn trim_cr(b: &[u8]) -> &[u8] {
    b.strip_suffix(b"\r").unwrap_or(b)
}

/// A UTF-8 byte order mark, which some Windows tools write at the start of a file.
pub const BOM: &[u8] = b"\xef\xbb\xbf";

/// Line `line_no`'s bytes: without a byte order mark when it is the first line (RFC 8259 lets a
/// JSON reader ignore one; it is no content of the line).
fn line_text(line_no: u64, b: &[u8]) -> &[u8] {
    match line_no {
        1 => b.strip_prefix(BOM).unwrap_or(b),
        _ => b,
    }
}

impl<R: BufRead> CappedLines<R> {
    /// Wraps a buffered reader.
    pub fn new(inner: R, cap: usize) -> Self {
        CappedLines {
            inner,
            cap,
            line_no: 0,
            pending: 0,
            consumed: 0,
            buf: Vec::new(),
        }
    }

    /// The wrapped reader.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Reads the next line; `Ok(None)` at end of input.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.inner.consume(std::mem::take(&mut self.pending));
        // Fast path: the whole line is already in the buffer.
        let in_place = loop {
            match self.inner.fill_buf() {
                Ok(chunk) => break memchr::memchr(b'\n', chunk).filter(|&i| i <= self.cap),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        if let Some(i) = in_place {
            self.pending = i + 1;
            self.consumed += i as u64 + 1;
            self.line_no += 1;
            let chunk = self.inner.fill_buf()?;
            return Ok(Some(Line::Text {
                line_no: self.line_no,
                ended: true,
                bytes: line_text(self.line_no, trim_cr(&chunk[..i])),
            }));
        }
        self.buf.clear();
        let mut too_long: Option<u64> = None;
        let mut any = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                if !any {
                    return Ok(None);
                }
                self.line_no += 1;
                return Ok(Some(self.finish(too_long, false)));
            }
            any = true;
            let (take, done) = match memchr::memchr(b'\n', chunk) {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            let body = if done {
                &chunk[..take - 1]
            } else {
                &chunk[..take]
            };
            match too_long.as_mut() {
                Some(n) => *n += body.len() as u64,
                None if self.buf.len() + body.len() > self.cap => {
                    too_long = Some((self.buf.len() + body.len()) as u64);
                    self.buf = Vec::new();
                }
                None => self.buf.extend_from_slice(body),
            }
            self.inner.consume(take);
            self.consumed += take as u64;
            if done {
                self.line_no += 1;
                return Ok(Some(self.finish(too_long, true)));
            }
        }
    }

    fn finish(&mut self, too_long: Option<u64>, ended: bool) -> Line<'_> {
        match too_long {
            Some(bytes) => Line::TooLong {
                line_no: self.line_no,
                bytes,
            },
            None => Line::Text {
                line_no: self.line_no,
                ended,
                bytes: line_text(self.line_no, trim_cr(&self.buf)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::Just;

    fn collect(input: &[u8], cap: usize) -> Vec<String> {
        let mut r = CappedLines::new(std::io::BufReader::with_capacity(4, input), cap);
        let mut out = vec![];
        while let Some(l) = r.next_line().unwrap() {
            out.push(match l {
                Line::Text {
                    line_no,
                    ended,
                    bytes,
                } => format!("{line_no}:{}:{ended}", String::from_utf8_lossy(bytes)),
                Line::TooLong { line_no, bytes } => format!("{line_no}:long {bytes}"),
            });
        }
        out
    }

    /// The same lines, computed the obvious way over the whole input.
    fn reference(input: &[u8], cap: usize) -> Vec<String> {
        let mut out = vec![];
        let mut rest = input;
        let mut n = 0;
        while !rest.is_empty() {
            n += 1;
            let (line, ended, next) = match rest.iter().position(|&c| c == b'\n') {
                Some(i) => (&rest[..i], true, &rest[i + 1..]),
                None => (rest, false, &rest[rest.len()..]),
            };
            out.push(if line.len() > cap {
                format!("{n}:long {}", line.len())
            } else {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                let line = match n {
                    1 => line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line),
                    _ => line,
                };
                format!("{n}:{}:{ended}", String::from_utf8_lossy(line))
            });
            rest = next;
        }
        out
    }

    proptest::proptest! {
        /// Lines handed out in place and lines copied across refills read the same, whatever
        /// the buffer size and the cap, with or without a byte order mark.
        #[test]
        fn any_buffer_size_reads_the_same_lines(
            input in proptest::collection::vec(
                proptest::prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'a'), 0u8..=255],
                0..300,
            ),
            bom in proptest::prelude::any::<bool>(),
            buf in 1usize..40,
            cap in 0usize..60,
        ) {
            let input = if bom { [BOM, &input].concat() } else { input };
            let mut r = CappedLines::new(std::io::BufReader::with_capacity(buf, &input[..]), cap);
            let mut got = vec![];
            while let Some(l) = r.next_line().unwrap() {
                got.push(match l {
                    Line::Text { line_no, ended, bytes } => {
                        format!("{line_no}:{}:{ended}", String::from_utf8_lossy(bytes))
                    }
                    Line::TooLong { line_no, bytes } => format!("{line_no}:long {bytes}"),
                });
            }
            proptest::prop_assert_eq!(&got, &reference(&input, cap));
            proptest::prop_assert_eq!(r.consumed, input.len() as u64);
        }
    }

    #[test]
    fn splits_lines_and_caps() {
        assert_eq!(
            collect(b"ab\r\ncdefghij\nk", 5),
            vec!["1:ab:true", "2:long 8", "3:k:false"]
        );
        assert!(collect(b"", 5).is_empty());
        assert_eq!(collect(b"\n\n", 5), vec!["1::true", "2::true"]);
        // A byte order mark before the first line only, in place or across refills.
        let bom = b"\xef\xbb\xbfab\n\xef\xbb\xbfc\n";
        let second = format!("2:{}c:true", '\u{feff}');
        assert_eq!(collect(bom, 9), vec!["1:ab:true", second.as_str()]);
        let mut r = CappedLines::new(&bom[..], 9);
        assert!(matches!(
            r.next_line(),
            Ok(Some(Line::Text { bytes: b"ab", .. }))
        ));
        assert_eq!(collect(b"\xef\xbb\xbf", 5), vec!["1::false"]);
    }
}
