//! A line reader with a size cap: a line longer than the cap is skipped without buffering it.

use std::io::{self, BufRead};

/// One line read from input.
pub enum Line {
    /// The line's bytes, without the trailing `\n` (or `\r\n`).
    Text { line_no: u64, ended: bool },
    /// The line was longer than the cap; its bytes were skipped.
    TooLong { line_no: u64, bytes: u64 },
}

/// Reads `\n`-terminated lines, never holding more than `cap` bytes of one line.
pub struct CappedLines<R> {
    inner: R,
    cap: usize,
    line_no: u64,
    /// Bytes consumed so far.
    pub consumed: u64,
    /// The current line's bytes (valid after `next` returned `Line::Text`).
    pub buf: Vec<u8>,
}

impl<R: BufRead> CappedLines<R> {
    /// Wraps a buffered reader.
    pub fn new(inner: R, cap: usize) -> Self {
        CappedLines {
            inner,
            cap,
            line_no: 0,
            consumed: 0,
            buf: Vec::with_capacity(64 * 1024),
        }
    }

    /// Reads the next line; `Ok(None)` at end of input.
    pub fn next_line(&mut self) -> io::Result<Option<Line>> {
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
                    self.buf.clear();
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

    fn finish(&mut self, too_long: Option<u64>, ended: bool) -> Line {
        match too_long {
            Some(bytes) => Line::TooLong {
                line_no: self.line_no,
                bytes,
            },
            None => {
                if self.buf.last() == Some(&b'\r') {
                    self.buf.pop();
                }
                Line::Text {
                    line_no: self.line_no,
                    ended,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(input: &[u8], cap: usize) -> Vec<String> {
        let mut r = CappedLines::new(std::io::BufReader::with_capacity(4, input), cap);
        let mut out = vec![];
        while let Some(l) = r.next_line().unwrap() {
            out.push(match l {
                Line::Text { line_no, ended } => {
                    format!("{line_no}:{}:{ended}", String::from_utf8_lossy(&r.buf))
                }
                Line::TooLong { line_no, bytes } => format!("{line_no}:long {bytes}"),
            });
        }
        out
    }

    #[test]
    fn splits_lines_and_caps() {
        assert_eq!(
            collect(b"ab\r\ncdefghij\nk", 5),
            vec!["1:ab:true", "2:long 8", "3:k:false"]
        );
        assert!(collect(b"", 5).is_empty());
        assert_eq!(collect(b"\n\n", 5), vec!["1::true", "2::true"]);
    }
}
