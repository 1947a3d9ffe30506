//! Citation offsets: converting a format's offsets to characters, and choosing the unit when
//! the format does not state it (the one under which the cited text matches).

use crate::model::span::resolve;
use crate::model::SpanUnit;
use std::cell::Cell;
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
    pick(text, units, check, |unit| {
        resolve(text, start, end, unit).ok()
    })
}

/// [`resolve_offsets`] on a text whose offsets were counted once ([`Offsets`]): for a text
/// cited many times (an answer with a citation per sentence).
pub fn resolve_offsets_in(
    offsets: &Offsets,
    start: u64,
    end: u64,
    units: &[SpanUnit],
    check: Option<&dyn Fn(&str) -> bool>,
) -> Option<Resolved> {
    pick(offsets.text, units, check, |unit| {
        offsets.range(start, end, unit)
    })
}

fn pick(
    text: &str,
    units: &[SpanUnit],
    check: Option<&dyn Fn(&str) -> bool>,
    range: impl Fn(SpanUnit) -> Option<Range<usize>>,
) -> Option<Resolved> {
    let mut first: Option<Resolved> = None;
    for &unit in units {
        let Some(bytes) = range(unit) else {
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

/// A text cited many times, with where its last offsets were found in each unit: citations
/// come in answer order, so each one is counted on from the one before instead of from the
/// start (an offset before the last one counts from the start again). Resolves exactly as
/// [`crate::model::span::resolve`] does.
pub struct Offsets<'t> {
    text: &'t str,
    ascii: bool,
    /// The last offset found in characters, and its byte offset.
    chars: Cell<(u64, usize)>,
    /// The last offset found in UTF-16 units, and its byte offset.
    utf16: Cell<(u64, usize)>,
}

impl<'t> Offsets<'t> {
    /// Offsets of `text` (nothing is counted yet).
    pub fn new(text: &'t str) -> Self {
        Offsets {
            text,
            ascii: text.is_ascii(),
            chars: Cell::new((0, 0)),
            utf16: Cell::new((0, 0)),
        }
    }

    /// The text.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The byte offset of offset `o` in `unit`, when it is one.
    fn byte(&self, o: u64, unit: SpanUnit) -> Option<usize> {
        if self.ascii {
            return usize::try_from(o).ok().filter(|&o| o <= self.text.len());
        }
        let (cursor, width): (_, fn(char) -> u64) = match unit {
            SpanUnit::Utf8 => {
                return usize::try_from(o)
                    .ok()
                    .filter(|&o| self.text.is_char_boundary(o))
            }
            SpanUnit::Char => (&self.chars, |_| 1),
            SpanUnit::Utf16 => (&self.utf16, |c| c.len_utf16() as u64),
        };
        let (mut n, mut b) = cursor.get();
        if o < n {
            (n, b) = (0, 0);
        }
        while n < o {
            // An ASCII run counts one per byte in either unit: skipped a word at a time.
            let run = ascii_prefix(
                &self.text.as_bytes()[b..],
                usize::try_from(o - n).unwrap_or(usize::MAX),
            );
            n += run as u64;
            b += run;
            if n == o {
                break;
            }
            let c = self.text[b..].chars().next()?;
            n += width(c);
            b += c.len_utf8();
        }
        // Past `o`: it falls inside a character's UTF-16 units.
        if n != o {
            return None;
        }
        cursor.set((n, b));
        Some(b)
    }

    /// `[start, end)` in `unit` as a byte range, when both offsets are valid and in order.
    pub fn range(&self, start: u64, end: u64, unit: SpanUnit) -> Option<Range<usize>> {
        if start > end {
            return None;
        }
        Some(self.byte(start, unit)?..self.byte(end, unit)?)
    }
}

/// How many of the first `max` bytes of `s` are ASCII before the first byte that is not,
/// tested eight at a time.
fn ascii_prefix(s: &[u8], max: usize) -> usize {
    let s = &s[..s.len().min(max)];
    let mut words = s.chunks_exact(8);
    let mut n = 0;
    for w in &mut words {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        let high = u64::from_le_bytes(word) & 0x8080_8080_8080_8080;
        if high != 0 {
            return n + (high.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + words
        .remainder()
        .iter()
        .take_while(|c| c.is_ascii())
        .count()
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
    // Most cited texts are quoted exactly: equal texts need no walk word by word.
    if a == b {
        return true;
    }
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
    // The sentence starts after the last line break or sentence end (`.`, `!` or `?` before a
    // space) before `search_to`, found with `memrchr` rather than a byte at a time.
    let b = body.as_bytes();
    let after_break = memchr::memrchr(b'\n', &b[..search_to]).map_or(0, |j| j + 1);
    let mut start = after_break;
    let mut hi = search_to;
    while let Some(j) = memchr::memrchr3(b'.', b'!', b'?', &b[after_break..hi]) {
        let j = after_break + j;
        if b.get(j + 1) == Some(&b' ') {
            start = j + 1;
            break;
        }
        hi = j;
    }
    let s = &text[start..trimmed_end];
    let lead = s.len() - s.trim_start().len();
    (start + lead)..trimmed_end
}

/// `hay.contains(needle)`, found by comparing at each place of a short `hay` (a rendered
/// citation, a cited slice): `str::contains` first sets up a two-way searcher for the needle,
/// which costs more than the search when the haystack is a few dozen bytes.
pub fn contains_short(hay: &str, needle: &str) -> bool {
    find_short(hay, needle).is_some()
}

/// `hay.find(needle)`, found as [`contains_short`] finds it.
pub fn find_short(hay: &str, needle: &str) -> Option<usize> {
    const SHORT: usize = 256;
    if hay.len() > SHORT {
        return hay.find(needle);
    }
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let Some((&first, _)) = n.split_first() else {
        return Some(0);
    };
    // Byte strings: a match of UTF-8 in UTF-8 starts and ends at character boundaries, as
    // `str::find` finds it.
    if h.len() < n.len() {
        return None;
    }
    h.windows(n.len()).position(|w| w[0] == first && w == n)
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

    proptest::proptest! {
        /// Any haystack, short or not, and any needle (often a part of it): what `str::contains`
        /// says.
        #[test]
        fn contains_and_find_short_agree_with_str(
            hay in proptest::prop_oneof!["[abé]{0,12}", "\\PC{0,40}", "[a-c]{250,300}"],
            needle in "[abé]{0,4}",
            cut in 0usize..400,
            len in 0usize..8,
        ) {
            proptest::prop_assert_eq!(contains_short(&hay, &needle), hay.contains(&*needle));
            proptest::prop_assert_eq!(find_short(&hay, &needle), hay.find(&*needle));
            // A needle taken from the haystack (at character boundaries).
            let chars: Vec<char> = hay.chars().collect();
            let from = cut.min(chars.len());
            let part: String = chars[from..(from + len).min(chars.len())].iter().collect();
            proptest::prop_assert!(contains_short(&hay, &part));
            proptest::prop_assert_eq!(contains_short(&part, &hay), part.contains(&*hay));
            proptest::prop_assert_eq!(find_short(&hay, &part), hay.find(&*part));
        }
    }

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

    proptest::proptest! {
        #[test]
        fn counted_offsets_resolve_as_span_resolve_does(
            t in "(a|é|😀|\\.| |\n|z){0,40}",
            a in 0u64..90,
            b in 0u64..90,
        ) {
            // One `Offsets` for every lookup, in and out of order, as an answer's citations use it.
            let o = Offsets::new(&t);
            for (x, y) in [(a, b), (b, a), (a / 2, b), (a, a + 3), (0, a)] {
                for unit in [SpanUnit::Char, SpanUnit::Utf8, SpanUnit::Utf16] {
                    proptest::prop_assert_eq!(o.range(x, y, unit), resolve(&t, x, y, unit).ok());
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn counted_offsets_in_long_mixed_texts_resolve_as_span_resolve_does(
            runs in proptest::collection::vec(("[a-z .]{0,90}", "(é|😀|ü|\n|ab)"), 0..8),
            cuts in proptest::collection::vec(0u64..800, 1..12),
        ) {
            // ASCII runs longer than a word, split by characters of 1 to 4 bytes, cited in and
            // out of order.
            let t: String = runs.iter().map(|(a, b)| format!("{a}{b}")).collect();
            let o = Offsets::new(&t);
            for w in cuts.windows(2) {
                for (x, y) in [(w[0], w[1]), (w[0].min(w[1]), w[0].max(w[1]))] {
                    for unit in [SpanUnit::Char, SpanUnit::Utf8, SpanUnit::Utf16] {
                        proptest::prop_assert_eq!(o.range(x, y, unit), resolve(&t, x, y, unit).ok());
                    }
                }
            }
        }
    }

    #[test]
    fn ascii_prefixes() {
        assert_eq!(ascii_prefix(b"", 5), 0);
        assert_eq!(ascii_prefix(b"abcdefghij", 100), 10);
        assert_eq!(ascii_prefix(b"abcdefghij", 9), 9);
        assert_eq!(ascii_prefix("abcdefgh\u{e9}".as_bytes(), 100), 8);
        assert_eq!(ascii_prefix("abcdefghijk\u{e9}z".as_bytes(), 100), 11);
        assert_eq!(ascii_prefix("\u{e9}abcdefghijk".as_bytes(), 100), 0);
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

    /// The sentence start as first written: a byte at a time back from `search_to`.
    fn sentence_before_bytewise(text: &str, end: usize) -> Range<usize> {
        let end = floor_boundary(text, end);
        let body = text[..end].trim_end();
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
            if c == b'\n' || (matches!(c, b'.' | b'!' | b'?') && b.get(i) == Some(&b' ')) {
                start = i;
                break;
            }
            i -= 1;
        }
        let s = &text[start..body.len()];
        (start + s.len() - s.trim_start().len())..body.len()
    }

    proptest::proptest! {
        /// Texts of sentence ends, line breaks, quotes and characters outside ASCII, cut
        /// anywhere: the same sentence as the bytewise scan.
        #[test]
        fn sentence_before_agrees_with_a_bytewise_scan(
            text in "[a .!?\n)\"*\u{e9}\u{2014}]{0,60}",
            end in 0usize..70,
        ) {
            proptest::prop_assert_eq!(sentence_before(&text, end), sentence_before_bytewise(&text, end));
        }
    }
}
