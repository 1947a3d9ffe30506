//! The command line's two streams. Machine formats (JSON, SARIF, JUnit, cases) go to [`Out`]
//! straight from their serializers; everything for people goes through the sanitizing
//! [`Term`] boundary ([`Ctx::human`] for stdout, [`Ctx::err`] for stderr). Write errors are
//! kept, not swallowed: a closed pipe (`provscope ... | head`) ends the command quietly, any
//! other error is reported naming the destination.

use crate::model::{DiagLevel, Diagnostic};
use crate::text::{Paint, Term};
use std::io::{self, Write};

/// Standard output (or any writer, in tests): buffered, remembering the first write error.
pub struct Out {
    inner: Box<dyn Write>,
    closed: bool,
    error: Option<io::Error>,
}

impl Out {
    /// Buffered, locked stdout.
    pub fn stdout() -> Self {
        Out::new(Box::new(io::BufWriter::with_capacity(
            64 << 10,
            io::stdout().lock(),
        )))
    }

    /// Any writer.
    pub fn new(inner: Box<dyn Write>) -> Self {
        Out {
            inner,
            closed: false,
            error: None,
        }
    }

    /// Writes raw bytes (machine formats); after a failure, later writes are dropped.
    pub fn bytes(&mut self, b: &[u8]) {
        let _ = self.write_all(b);
    }

    /// Writes text as is (machine formats).
    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    /// Writes a line as is (machine formats).
    pub fn line(&mut self, s: &str) {
        self.str(s);
        self.bytes(b"\n");
    }

    /// Flushes; the first error other than a closed pipe, if any. `Ok(true)` when the reader
    /// closed the pipe.
    pub fn finish(&mut self) -> io::Result<bool> {
        let _ = self.flush();
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(self.closed),
        }
    }

    fn fail(&mut self, e: io::Error) -> io::Error {
        if e.kind() == io::ErrorKind::BrokenPipe {
            self.closed = true;
        } else if self.error.is_none() {
            self.error = Some(io::Error::new(e.kind(), e.to_string()));
        }
        e
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed || self.error.is_some() {
            // The reader went away or the destination failed: the rest goes nowhere.
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Ok(n) => Ok(n),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed || self.error.is_some() {
            return Ok(());
        }
        match self.inner.flush() {
            Ok(()) => Ok(()),
            Err(e) => Err(self.fail(e)),
        }
    }
}

/// Everything a command writes to: stdout (machine or, through the boundary, human) and stderr
/// (always through the boundary).
pub struct Ctx {
    /// Standard output.
    pub out: Out,
    /// Standard error, sanitized.
    pub err: Term<Box<dyn Write>>,
    /// Colour on stdout.
    pub color: bool,
    /// How many error-level diagnostics were printed (a run with any exits 2).
    pub input_errors: usize,
    /// Called once before the explorer's screen opens ([`super::run_with`]).
    pub explorer_opens: fn(),
}

impl Ctx {
    /// The process's streams.
    pub fn stdio(color: bool) -> Self {
        Ctx::new(Out::stdout(), Box::new(io::stderr()), color)
    }

    /// Any streams (tests).
    pub fn new(out: Out, err: Box<dyn Write>, color: bool) -> Self {
        Ctx {
            out,
            err: Term::new(err, false),
            color,
            input_errors: 0,
            explorer_opens: || {},
        }
    }

    /// Standard output for people: every write is sanitized; only [`Term::paint`] styles.
    pub fn human(&mut self) -> Term<&mut Out> {
        Term::new(&mut self.out, self.color)
    }

    /// A diagnostic on stderr (`FILE:LINE:COL: level: path: sentence`), sanitized.
    pub fn diag(&mut self, d: &Diagnostic) {
        if d.level == DiagLevel::Error {
            self.input_errors += 1;
        }
        let _ = writeln!(self.err, "{d}");
    }

    /// Every diagnostic of a run.
    pub fn diags<'a>(&mut self, ds: impl IntoIterator<Item = &'a Diagnostic>) {
        for d in ds {
            self.diag(d);
        }
    }

    /// `provscope: warning: ...` on stderr.
    pub fn warn(&mut self, msg: &str) {
        let _ = self.err.paint(Paint::Warning, "provscope: warning: ");
        let _ = writeln!(self.err, "{msg}");
    }

    /// `provscope: ...` on stderr (progress and notes for people).
    pub fn note(&mut self, msg: &str) {
        let _ = writeln!(self.err, "provscope: {msg}");
    }
}
