//! Citation offsets: converting a format's offsets to characters, and choosing the unit when
//! the format does not state it (the one under which the cited text matches).

use crate::model::span::resolve;
use crate::model::SpanUnit;
use std::ops::Range;

/// Offsets resolved against a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The byte range of the cited text.
    pub bytes: Range<usize>,
    /// The unit the offsets were read in.
    pub unit: SpanUnit,
    /// Whether the cited text matched what the citation says it cites (`None`: nothing to compare).
    pub matched: Option<bool>,
}

/// Resolves `[start, end)` in `text`, trying `units` in order. With `check`, the first unit
/// whose slice passes the check wins; when none passes, the first unit that resolves at all is
/// returned with `matched: Some(false)`. `None` when no unit gives a valid range.
pub fn resolve_offsets(
    text: &str,
    start: u64,
    end: u64,
    units: &[SpanUnit],
    check: Option<&dyn Fn(&str) -> bool>,
) -> Option<Resolved> {
    let mut first: Option<Resolved> = None;
    for &unit in units {
        let Ok(bytes) = resolve(text, start, end, unit) else {
            continue;
        };
        match check {
            None => {
                return Some(Resolved {
                    bytes,
                    unit,
                    matched: None,
                })
            }
            Some(f) if f(&text[bytes.clone()]) => {
                return Some(Resolved {
                    bytes,
                    unit,
                    matched: Some(true),
                })
            }
            Some(_) => {
                if first.is_none() {
                    first = Some(Resolved {
                        bytes,
                        unit,
                        matched: Some(false),
                    });
                }
            }
        }
    }
    first
}

/// The character offsets of a byte range of `text`.
pub fn char_range(text: &str, bytes: &Range<usize>) -> (u64, u64) {
    let start = text
        .get(..bytes.start)
        .map_or(0, |t| t.chars().count() as u64);
    let len = text
        .get(bytes.clone())
        .map_or(0, |t| t.chars().count() as u64);
    (start, start + len)
}

/// True when two texts are the same once whitespace runs are collapsed and the ends trimmed
/// (APIs quote cited text with trailing spaces or newlines trimmed).
pub fn same_text(a: &str, b: &str) -> bool {
    let mut x = a.split_whitespace();
    let mut y = b.split_whitespace();
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some(p), Some(q)) if p == q => {}
            _ => return false,
        }
    }
}

/// The unit's name as the docs write it.
pub fn unit_name(u: SpanUnit) -> &'static str {
    match u {
        SpanUnit::Char => "characters",
        SpanUnit::Utf8 => "UTF-8 bytes",
        SpanUnit::Utf16 => "UTF-16 code units",
    }
}

/// The sentence of `text` that ends at byte `end` (from the previous sentence end or line break).
pub fn sentence_before(text: &str, end: usize) -> Range<usize> {
    let end = floor_boundary(text, end);
    let head = &text[..end];
    let trimmed_end = head.trim_end().len();
    let body = &head[..trimmed_end];
    // Skip the sentence's own final punctuation, then look back for the previous boundary.
    let search_to = body
        .char_indices()
        .rev()
        .find(|&(_, c)| !matches!(c, '.' | '!' | '?' | ')' | '*' | '"'))
        .map_or(0, |(i, _)| i);
    let b = body.as_bytes();
    let mut start = 0;
    let mut i = search_to;
    while i > 0 {
        let c = b[i - 1];
        if c == b'\n' {
            start = i;
            break;
        }
        if matches!(c, b'.' | b'!' | b'?') && b.get(i).is_some_and(|n| *n == b' ') {
            start = i;
            break;
        }
        i -= 1;
    }
    let s = &text[start..trimmed_end];
    let lead = s.len() - s.trim_start().len();
    (start + lead)..trimmed_end
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unit_under_which_the_text_matches_wins() {
        let t = "Il fait 69°F à Paris.";
        // "Paris" is chars 15..20, bytes 17..22.
        let want = |s: &str| s == "Paris";
        let r = resolve_offsets(t, 17, 22, &[SpanUnit::Char, SpanUnit::Utf8], Some(&want)).unwrap();
        assert_eq!(
            (r.unit, r.matched, &t[r.bytes.clone()]),
            (SpanUnit::Utf8, Some(true), "Paris")
        );
        assert_eq!(char_range(t, &r.bytes), (15, 20));
        let r = resolve_offsets(t, 0, 2, &[SpanUnit::Char], Some(&want)).unwrap();
        assert_eq!(r.matched, Some(false));
        assert!(resolve_offsets(t, 5, 99, &[SpanUnit::Char], None).is_none());
    }

    #[test]
    fn sentences_end_where_the_citation_starts() {
        let t = "First point. The sky is blue. ([x.com](https://x.com))";
        let at = t.find("([").unwrap();
        assert_eq!(&t[sentence_before(t, at)], "The sky is blue.");
        let t = "Line one\n- item two ";
        assert_eq!(&t[sentence_before(t, t.len())], "- item two");
        assert!(same_text("The grass is green. ", "The grass is green."));
    }
}
