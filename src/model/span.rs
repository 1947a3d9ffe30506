//! Span arithmetic: turning `[start, end)` offsets in a session's span unit into byte ranges
//! of a block's text, safely on any multibyte text.

use super::event::SpanUnit;
use std::ops::Range;

/// Why a span cannot be resolved against a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpanError {
    /// `start > end`.
    Inverted {
        /// Start offset.
        start: u64,
        /// End offset.
        end: u64,
    },
    /// An offset lies past the end of the text.
    OutOfRange {
        /// The offending offset.
        offset: u64,
        /// The block's length in the span unit.
        len: u64,
    },
    /// An offset falls inside a character (UTF-8 or UTF-16 units only).
    SplitsCharacter {
        /// The offending offset.
        offset: u64,
    },
}

impl std::fmt::Display for SpanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpanError::Inverted { start, end } => {
                write!(f, "span is inverted: start {start} > end {end}")
            }
            SpanError::OutOfRange { offset, len } => {
                write!(
                    f,
                    "offset {offset} is past the end of the block ({len} units long)"
                )
            }
            SpanError::SplitsCharacter { offset } => {
                write!(f, "offset {offset} falls inside a multibyte character")
            }
        }
    }
}

/// Length of `text` in `unit`s.
pub fn text_len(text: &str, unit: SpanUnit) -> u64 {
    match unit {
        SpanUnit::Char => text.chars().count() as u64,
        SpanUnit::Utf8 => text.len() as u64,
        SpanUnit::Utf16 => text.encode_utf16().count() as u64,
    }
}

/// Converts one offset in `unit`s to a byte offset of `text`.
pub fn byte_offset(text: &str, offset: u64, unit: SpanUnit) -> Result<usize, SpanError> {
    let out_of_range = || SpanError::OutOfRange {
        offset,
        len: text_len(text, unit),
    };
    // An ASCII prefix is one byte, one character and one UTF-16 unit per character: the offset
    // is the byte offset whatever the unit (checked fast, before counting characters).
    if let Ok(o) = usize::try_from(offset) {
        if o <= text.len() && text.as_bytes()[..o].is_ascii() {
            return Ok(o);
        }
    }
    match unit {
        SpanUnit::Utf8 => {
            let o = usize::try_from(offset).map_err(|_| out_of_range())?;
            if o > text.len() {
                Err(out_of_range())
            } else if !text.is_char_boundary(o) {
                Err(SpanError::SplitsCharacter { offset })
            } else {
                Ok(o)
            }
        }
        SpanUnit::Char => {
            // Characters are counted by their first bytes (not 0x80..=0xBF), 64 bytes at a time
            // while the offset is further on, then one by one.
            let is_start = |x: &u8| (*x as i8) >= -0x40;
            let bytes = text.as_bytes();
            let mut n = 0u64;
            let mut from = 0usize;
            for chunk in bytes.chunks_exact(64) {
                let c = chunk.iter().filter(|x| is_start(x)).count() as u64;
                if n + c >= offset {
                    break;
                }
                n += c;
                from += 64;
            }
            for (b, x) in bytes.iter().enumerate().skip(from) {
                if !is_start(x) {
                    continue;
                }
                if n == offset {
                    return Ok(b);
                }
                n += 1;
            }
            if n == offset {
                Ok(text.len())
            } else {
                Err(out_of_range())
            }
        }
        SpanUnit::Utf16 => {
            let mut n = 0u64;
            for (b, c) in text.char_indices() {
                if n == offset {
                    return Ok(b);
                }
                let w = c.len_utf16() as u64;
                if offset > n && offset < n + w {
                    return Err(SpanError::SplitsCharacter { offset });
                }
                n += w;
            }
            if n == offset {
                Ok(text.len())
            } else {
                Err(out_of_range())
            }
        }
    }
}

/// Resolves `[start, end)` in `unit`s to a byte range of `text`.
pub fn resolve(
    text: &str,
    start: u64,
    end: u64,
    unit: SpanUnit,
) -> Result<Range<usize>, SpanError> {
    if start > end {
        return Err(SpanError::Inverted { start, end });
    }
    let s = byte_offset(text, start, unit)?;
    let e = byte_offset(text, end, unit)?;
    Ok(s..e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn multibyte_offsets() {
        let t = "Seats cost €19 (税込)";
        let r = resolve(t, 11, 14, SpanUnit::Char).unwrap();
        assert_eq!(&t[r], "€19");
        let r = resolve(t, 11, 16, SpanUnit::Utf8).unwrap();
        assert_eq!(&t[r], "€19");
        assert_eq!(
            resolve(t, 12, 16, SpanUnit::Utf8),
            Err(SpanError::SplitsCharacter { offset: 12 })
        );
        let e = "a😀b";
        assert_eq!(&e[resolve(e, 1, 3, SpanUnit::Utf16).unwrap()], "😀");
        assert_eq!(
            resolve(e, 2, 3, SpanUnit::Utf16),
            Err(SpanError::SplitsCharacter { offset: 2 })
        );
        assert!(matches!(
            resolve(t, 5, 99, SpanUnit::Char),
            Err(SpanError::OutOfRange { .. })
        ));
        assert!(matches!(
            resolve(t, 5, 4, SpanUnit::Char),
            Err(SpanError::Inverted { .. })
        ));
    }

    proptest! {
        #[test]
        fn char_spans_always_slice_cleanly(s in "\\PC{0,200}", a in 0u64..220, b in 0u64..220) {
            match resolve(&s, a, b, SpanUnit::Char) {
                Ok(r) => {
                    let slice = &s[r];
                    prop_assert_eq!(slice.chars().count() as u64, b - a);
                    let expect: String = s.chars().skip(a as usize).take((b - a) as usize).collect();
                    prop_assert_eq!(slice, expect.as_str());
                }
                Err(SpanError::Inverted { .. }) => prop_assert!(a > b),
                Err(SpanError::OutOfRange { .. }) => prop_assert!(a.max(b) > s.chars().count() as u64),
                Err(SpanError::SplitsCharacter { .. }) => prop_assert!(false, "chars never split"),
            }
        }

        #[test]
        fn utf8_and_utf16_agree_with_char_spans(s in "\\PC{0,30}", x in 0.0f64..=1.0, y in 0.0f64..=1.0) {
            let n = s.chars().count();
            let a = (x * n as f64) as usize;
            let len = (y * (n - a) as f64) as usize;
            let r = resolve(&s, a as u64, (a + len) as u64, SpanUnit::Char).unwrap();
            let b8 = (r.start as u64, r.end as u64);
            prop_assert_eq!(resolve(&s, b8.0, b8.1, SpanUnit::Utf8).unwrap(), r.clone());
            let u16s = s[..r.start].encode_utf16().count() as u64;
            let u16e = s[..r.end].encode_utf16().count() as u64;
            prop_assert_eq!(resolve(&s, u16s, u16e, SpanUnit::Utf16).unwrap(), r);
        }

        #[test]
        fn any_offsets_never_panic(s in "\\PC{0,30}", a in any::<u64>(), b in any::<u64>()) {
            for unit in [SpanUnit::Char, SpanUnit::Utf8, SpanUnit::Utf16] {
                if let Ok(r) = resolve(&s, a, b, unit) {
                    let _ = &s[r];
                }
            }
        }
    }
}
