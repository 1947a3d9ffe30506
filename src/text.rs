//! Untrusted text made safe for a terminal: control characters and escape sequences never
//! reach the screen; they are removed (escape sequences) or shown visibly (other controls).

use std::borrow::Cow;

/// Removes ANSI/VT escape sequences (CSI, OSC, DCS, ...) and replaces other control characters
/// with visible forms (`\t` becomes spaces, `\n` is kept only when `keep_newlines`).
pub fn sanitize(s: &str, keep_newlines: bool) -> Cow<'_, str> {
    let needs = s
        .chars()
        .any(|c| is_unsafe(c) && !(keep_newlines && c == '\n'));
    if !needs {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\u{1b}' => skip_escape(&mut it),
            '\u{9b}' => skip_csi(&mut it),
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut it),
            '\n' if keep_newlines => out.push('\n'),
            '\t' => out.push_str("    "),
            '\r' | '\n' => out.push(' '),
            c if is_unsafe(c) => {
                let cp = c as u32;
                if cp < 0x20 {
                    out.push('^');
                    out.push(char::from_u32(cp + 0x40).unwrap_or('?'));
                } else {
                    out.push_str(&format!("\\u{{{cp:x}}}"));
                }
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

fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn skip_escape(it: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match it.peek().copied() {
        Some('[') => {
            it.next();
            skip_csi(it);
        }
        Some(']') | Some('P') | Some('X') | Some('^') | Some('_') => {
            it.next();
            skip_string(it);
        }
        Some(c) if ('\u{20}'..='\u{2f}').contains(&c) => {
            // nF sequences: intermediates then a final byte.
            while let Some(&c) = it.peek() {
                it.next();
                if !('\u{20}'..='\u{2f}').contains(&c) {
                    break;
                }
            }
        }
        Some(_) => {
            it.next();
        }
        None => {}
    }
}

fn skip_csi(it: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in it.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            break;
        }
    }
}

/// Skips an OSC/DCS/APC/PM/SOS string up to BEL or ST (`ESC \` or U+009C).
fn skip_string(it: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = it.next() {
        match c {
            '\u{7}' | '\u{9c}' => break,
            '\u{1b}' => {
                if it.peek() == Some(&'\\') {
                    it.next();
                }
                break;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_escapes_and_shows_controls() {
        assert_eq!(sanitize("a\u{1b}[31mred\u{1b}[0m", false), "ared");
        assert_eq!(sanitize("x\u{1b}]0;evil title\u{7}y", false), "xy");
        assert_eq!(sanitize("x\u{1b}]8;;http://e\u{1b}\\link", false), "xlink");
        assert_eq!(sanitize("bell\u{7}", false), "bell^G");
        assert_eq!(sanitize("a\nb", true), "a\nb");
        assert_eq!(sanitize("a\nb", false), "a b");
        assert_eq!(sanitize("rtl\u{202e}x", false), "rtl\\u{202e}x");
        assert!(matches!(sanitize("plain €19", false), Cow::Borrowed(_)));
    }

    #[test]
    fn never_panics_on_truncated_sequences() {
        for s in ["\u{1b}", "\u{1b}[", "\u{1b}]abc", "\u{9b}1;2", "\u{1b}("] {
            let _ = sanitize(s, true);
        }
    }
}
