//! Untrusted text made safe for a terminal. Nothing read from a log, envelope, receipt or case
//! can move the cursor, change colours, set the title, write the clipboard or reorder text:
//! every control character, escape sequence introducer, bidi control and invisible character is
//! shown visibly escaped, never emitted.
//!
//! - C0 controls and DEL in caret notation (`ESC` is `^[`, BEL `^G`, CR `^M`, DEL `^?`);
//! - C1 controls, bidi controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) and
//!   invisible characters (U+200B-U+200D, U+2060, U+FEFF) as `\u{XXXX}`;
//! - a tab as four spaces; `\n` (and `\r\n`) kept only where the caller allows newlines.
//!
//! [`Term`] is the boundary every human-facing stream of the CLI writes through.

use std::borrow::Cow;
use std::io::{self, Write};

/// `s` with every unsafe character escaped visibly; newlines kept when `keep_newlines`,
/// otherwise shown as spaces.
pub fn sanitize(s: &str, keep_newlines: bool) -> Cow<'_, str> {
    if !s
        .chars()
        .any(|c| is_unsafe(c) && !(keep_newlines && c == '\n'))
    {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\n' if keep_newlines => out.push('\n'),
            '\r' if keep_newlines && it.peek() == Some(&'\n') => {}
            '\n' => out.push(' '),
            '\t' => out.push_str("    "),
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
            }
            '\u{7f}' => out.push_str("^?"),
            c if is_unsafe(c) => {
                out.push_str(&format!("\\u{{{:04x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A single line: like [`sanitize`] with newlines turned into spaces.
pub fn one_line(s: &str) -> Cow<'_, str> {
    sanitize(s, false)
}

/// One word for a POSIX shell, from untrusted text: made safe for a terminal first
/// ([`one_line`]: no control, bidi or invisible character is ever emitted), then single-quoted
/// unless it is made only of characters no shell interprets, so that a copied command reads
/// it back as one literal word (no expansion, no second command). Text that [`one_line`] had
/// to escape is read back as the escaped text, never as the original.
pub fn shell_word(s: &str) -> String {
    let clean = one_line(s);
    let plain = !clean.is_empty()
        && clean.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | '@' | '+' | ',')
        });
    if plain {
        clean.into_owned()
    } else {
        format!("'{}'", clean.replace('\'', "'\\''"))
    }
}

/// Whether a character must never reach a terminal as itself.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
        )
}

/// A terminal style the [`Term`] boundary may emit itself (the only escape sequences provscope
/// ever writes to a human-facing stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paint {
    /// Bold.
    Bold,
    /// Dim.
    Dim,
    /// Bold red (errors).
    Error,
    /// Yellow (warnings).
    Warning,
    /// Green (clean).
    Good,
}

impl Paint {
    fn sgr(self) -> &'static str {
        match self {
            Paint::Bold => "1",
            Paint::Dim => "2",
            Paint::Error => "1;31",
            Paint::Warning => "33",
            Paint::Good => "32",
        }
    }
}

/// The sanitizing boundary of a human-facing stream: every byte written through it (`write!`,
/// [`Term::text`]) is sanitized, newlines kept; only [`Term::paint`] adds escape sequences, and
/// only when colour is on. A UTF-8 sequence split across writes is held until it completes.
pub struct Term<W: Write> {
    inner: W,
    color: bool,
    pending: Vec<u8>,
}

impl<W: Write> Term<W> {
    /// A boundary in front of `inner`.
    pub fn new(inner: W, color: bool) -> Self {
        Term {
            inner,
            color,
            pending: Vec::new(),
        }
    }

    /// Whether [`Term::paint`] emits colour.
    pub fn color(&self) -> bool {
        self.color
    }

    /// Writes untrusted text, sanitized.
    pub fn text(&mut self, s: &str) -> io::Result<()> {
        self.flush_pending()?;
        self.inner.write_all(sanitize(s, true).as_bytes())
    }

    /// Writes untrusted text in a style (the style's codes come from here, the text is sanitized).
    pub fn paint(&mut self, p: Paint, s: &str) -> io::Result<()> {
        self.flush_pending()?;
        let clean = sanitize(s, true);
        if self.color {
            write!(self.inner, "\u{1b}[{}m{clean}\u{1b}[0m", p.sgr())
        } else {
            self.inner.write_all(clean.as_bytes())
        }
    }

    /// The wrapped writer (to finish it).
    pub fn into_inner(mut self) -> io::Result<W> {
        self.flush_pending()?;
        Ok(self.inner)
    }

    /// Writes out bytes held back as an incomplete UTF-8 sequence, escaped.
    fn flush_pending(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        self.inner.write_all(sanitize(&text, true).as_bytes())
    }
}

impl<W: Write> Write for Term<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut bytes = std::mem::take(&mut self.pending);
        bytes.extend_from_slice(buf);
        let valid = match std::str::from_utf8(&bytes) {
            Ok(_) => bytes.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => bytes.len(),
        };
        let (done, rest) = bytes.split_at(valid);
        let text = String::from_utf8_lossy(done);
        self.inner.write_all(sanitize(&text, true).as_bytes())?;
        self.pending = rest.to_vec();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_escapes_are_shown_not_emitted() {
        assert_eq!(
            sanitize("a\u{1b}[31mred\u{1b}[0m", false),
            "a^[[31mred^[[0m"
        );
        assert_eq!(
            sanitize("x\u{1b}]0;evil title\u{7}y", false),
            "x^[]0;evil title^Gy"
        );
        assert_eq!(
            sanitize("x\u{1b}]52;c;ZXZpbA==\u{7}", false),
            "x^[]52;c;ZXZpbA==^G"
        );
        assert_eq!(sanitize("bell\u{7}", false), "bell^G");
        assert_eq!(sanitize("a\nb", true), "a\nb");
        assert_eq!(sanitize("a\r\nb", true), "a\nb");
        assert_eq!(sanitize("a\rb", true), "a^Mb");
        assert_eq!(sanitize("a\nb", false), "a b");
        assert_eq!(sanitize("del\u{7f}", false), "del^?");
        assert_eq!(sanitize("csi\u{9b}2J", false), "csi\\u{009b}2J");
        assert!(matches!(
            sanitize("plain €19 日本", false),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn bidi_and_invisible_characters_are_escaped() {
        for c in [
            '\u{061c}', '\u{200b}', '\u{200c}', '\u{200d}', '\u{200e}', '\u{200f}', '\u{202a}',
            '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2060}', '\u{2066}', '\u{2067}',
            '\u{2068}', '\u{2069}', '\u{feff}',
        ] {
            let s = format!("a{c}b");
            let out = sanitize(&s, true);
            assert!(!out.contains(c), "{:x}", c as u32);
            assert_eq!(out, format!("a\\u{{{:04x}}}b", c as u32));
        }
    }

    #[test]
    fn the_boundary_sanitizes_every_write_and_paints_only_itself() {
        let mut t = Term::new(Vec::new(), true);
        let hostile = "ok \u{1b}]0;x\u{7}";
        write!(t, "{hostile}").unwrap();
        t.paint(Paint::Error, "bad\u{1b}[2J").unwrap();
        // A multi-byte character split across two writes.
        let e = "€".as_bytes();
        t.write_all(&e[..1]).unwrap();
        t.write_all(&e[1..]).unwrap();
        let out = String::from_utf8(t.into_inner().unwrap()).unwrap();
        assert_eq!(out, "ok ^[]0;x^G\u{1b}[1;31mbad^[[2J\u{1b}[0m€");
        let mut plain = Term::new(Vec::new(), false);
        plain.paint(Paint::Bold, "x").unwrap();
        assert_eq!(plain.into_inner().unwrap(), b"x");
    }

    #[test]
    fn shell_words_are_one_literal_word() {
        assert_eq!(shell_word("runs/s-1.jsonl"), "runs/s-1.jsonl");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's $(x)"), "'it'\\''s $(x)'");
        assert_eq!(shell_word("~/x"), "'~/x'");
        assert_eq!(shell_word("日本"), "'日本'");
        let w = shell_word("a\u{1b}]0;t\u{7}\u{202e}b");
        assert_eq!(w, "'a^[]0;t^G\\u{202e}b'");
        assert!(!w.chars().any(is_unsafe));
    }

    #[test]
    fn never_panics_on_truncated_sequences() {
        for s in ["\u{1b}", "\u{1b}[", "\u{1b}]abc", "\u{9b}1;2", "\u{1b}("] {
            assert!(!sanitize(s, true).contains('\u{1b}'));
        }
        let mut t = Term::new(Vec::new(), false);
        t.write_all(&[0xe2, 0x82]).unwrap();
        let out = t.into_inner().unwrap();
        assert!(!out.is_empty());
    }
}
