//! Writing to stdout without panicking when the reader goes away (`provscope ... | head`).

use std::io::Write;

/// A stdout writer that stops quietly on a closed pipe.
pub struct Out {
    inner: Box<dyn Write>,
    closed: bool,
}

impl Out {
    /// Buffered, locked stdout.
    pub fn stdout() -> Self {
        Out {
            inner: Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
            closed: false,
        }
    }

    /// Any writer (tests).
    pub fn new(w: Box<dyn Write>) -> Self {
        Out {
            inner: w,
            closed: false,
        }
    }

    /// Writes raw bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        if !self.closed && self.inner.write_all(b).is_err() {
            self.closed = true;
        }
    }

    /// Writes text.
    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    /// Writes a line.
    pub fn line(&mut self, s: &str) {
        self.str(s);
        self.bytes(b"\n");
    }
}

/// Streaming into `Out` (serializers): after the reader goes away, writes succeed and go nowhere.
impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.closed && self.inner.flush().is_err() {
            self.closed = true;
        }
        Ok(())
    }
}

impl Drop for Out {
    fn drop(&mut self) {
        let _ = self.inner.flush();
    }
}
