//! Canonical hashing: SHA-256 over RFC 8785 (JCS) canonical JSON, via `serde_jcs`, and
//! [`scan_json`], which finds what such a hash cannot see: duplicate keys (the parser keeps one
//! value) and numbers that canonical JSON cannot represent exactly (RFC 8785 numbers are IEEE
//! 754 doubles: `9007199254740993` hashes as `9007199254740992`).

use serde::Serialize;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

/// Why a value has no canonical JSON form (and so no hash).
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    /// RFC 8785 cannot represent the value (a non-finite number, a map with non-string keys).
    #[error("cannot canonicalize: {0}")]
    Canonicalize(serde_json::Error),
    /// A call's arguments are not JSON.
    #[error("arguments are not JSON: {0}")]
    ArgumentsNotJson(serde_json::Error),
    /// Python's `json.dumps` form has no text for this number.
    #[error("{0}")]
    Number(String),
}

/// Hex SHA-256 of the RFC 8785 canonical JSON of any serializable value.
pub fn canonical_sha256<T: Serialize + ?Sized>(value: &T) -> Result<String, HashError> {
    let bytes = serde_jcs::to_vec(value).map_err(HashError::Canonicalize)?;
    Ok(sha256_hex(&[&bytes]))
}

/// Lowercase hex SHA-256 of the concatenation of `parts`, hashed as they come (no copy).
pub fn sha256_hex(parts: &[&[u8]]) -> String {
    hex_lower(&sha256(parts))
}

/// Lowercase hex of a SHA-256 digest, written into one buffer of its size (`hex::encode`
/// collects the digits a `char` at a time into a growing `String`).
pub fn hex_lower(digest: &[u8; 32]) -> String {
    Hex::of(digest).as_str().to_owned()
}

/// Lowercase hex of a SHA-256 digest, held without an allocation (for a caller that keeps a
/// shared copy of it, or none).
#[derive(Clone, Copy)]
pub struct Hex([u8; 64]);

impl Hex {
    /// The hex of `digest`.
    pub fn of(digest: &[u8; 32]) -> Hex {
        let mut buf = [0u8; 64];
        // Cannot fail: the buffer is exactly twice the digest's length.
        let _ = hex::encode_to_slice(digest, &mut buf);
        Hex(buf)
    }

    /// The hex digits as text.
    pub fn as_str(&self) -> &str {
        // Always ASCII: hex digits.
        std::str::from_utf8(&self.0).unwrap_or("")
    }
}

/// SHA-256 of the concatenation of `parts`.
pub fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// True when `sealed_hex` (a lowercase hex SHA-256, as a statement carries it) names `digest`,
/// compared in constant time on the 32 bytes; false for text that is not 64 hex digits.
pub fn digest_matches_hex(sealed_hex: &str, digest: &[u8; 32]) -> bool {
    let mut sealed = [0u8; 32];
    hex::decode_to_slice(sealed_hex, &mut sealed).is_ok() && ct_bytes_eq(&sealed, digest)
}

/// Equality of two byte strings in time that depends on their lengths only, every comparison
/// made by `subtle`: the bytes are taken eight at a time as words (the last zero-padded), each
/// pair compared with `u64::ct_eq` and the results and-ed as `Choice`s. `subtle`'s comparison
/// of byte slices passes every byte through an optimization barrier, several times slower on
/// the 32 bytes of a digest; by words it is four. Lengths are not secret.
pub fn ct_bytes_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::{Choice, ConstantTimeEq};
    if a.len() != b.len() {
        return false;
    }
    let word = |c: &[u8]| {
        let mut w = [0u8; 8];
        w[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(w)
    };
    let same = a
        .chunks(8)
        .zip(b.chunks(8))
        .fold(Choice::from(1), |acc, (x, y)| acc & word(x).ct_eq(&word(y)));
    bool::from(same)
}

/// Appends the RFC 8785 canonical JSON of a `tools/call`'s `arguments` to `out` (absent
/// arguments are `{}`).
pub fn canonical_arguments_into(
    arguments: Option<&RawValue>,
    out: &mut Vec<u8>,
) -> Result<(), HashError> {
    match arguments {
        None => out.extend_from_slice(b"{}"),
        // Most arguments are one flat object of strings and small integers: written sorted
        // as they are, without a `Value` of them.
        Some(raw) if super::jcs::write_flat_raw(raw, out) => {}
        Some(raw) => {
            let v: serde_json::Value =
                serde_json::from_str(raw.get()).map_err(HashError::ArgumentsNotJson)?;
            super::jcs::write_value(&v, out)?;
        }
    }
    Ok(())
}

/// The RFC 8785 canonical JSON of a `tools/call`'s `arguments` (absent arguments are `{}`).
pub fn canonical_arguments(arguments: Option<&RawValue>) -> Result<Vec<u8>, HashError> {
    let mut out = Vec::new();
    canonical_arguments_into(arguments, &mut out)?;
    Ok(out)
}

/// The arguments hash of a `tools/call`: hex SHA-256 of the canonical JSON of `arguments`
/// (absent arguments hash as `{}`).
pub fn arguments_hash(arguments: Option<&RawValue>) -> Result<String, HashError> {
    Ok(sha256_hex(&[&canonical_arguments(arguments)?]))
}

/// [`arguments_hash`] with the canonical JSON written into `buf` (cleared first), so that the
/// calls of a session reuse one buffer, and the hash returned without an allocation.
pub fn arguments_hash_with(
    arguments: Option<&RawValue>,
    buf: &mut Vec<u8>,
) -> Result<Hex, HashError> {
    buf.clear();
    canonical_arguments_into(arguments, buf)?;
    Ok(Hex::of(&sha256(&[buf])))
}

/// True when `stamp_hash` names `full_hash`: equal, or an abbreviation of at least 6 hex digits
/// (as in the playbook's example stamp), compared case-insensitively.
pub fn hash_matches(stamp_hash: &str, full_hash: &str) -> bool {
    let s = stamp_hash.trim().to_ascii_lowercase();
    let s = s.strip_prefix("sha256:").unwrap_or(&s);
    s.len() >= 6
        && s.len() <= full_hash.len()
        && s.bytes().all(|b| b.is_ascii_hexdigit())
        && full_hash.to_ascii_lowercase().starts_with(s)
}

/// What [`scan_json`] found in a JSON text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JsonScan {
    /// The first key seen twice in one object: the object's path and the key.
    pub duplicate_key: Option<(String, String)>,
    /// Numbers whose value RFC 8785 cannot represent exactly: path and the number as written
    /// (at most the cap given to [`scan_json_capped`], [`MAX_INEXACT`] for [`scan_json`];
    /// `inexact_total` counts them all).
    pub inexact: Vec<(String, String)>,
    /// How many inexact numbers there are in all.
    pub inexact_total: usize,
}

/// The most inexact numbers [`scan_json`] lists.
pub const MAX_INEXACT: usize = 16;

/// One level of nesting while scanning. An object's keys are `keys[first..]` of the scanner's
/// one shared key stack (no allocation per object).
#[derive(Clone, Copy)]
enum Frame {
    Object {
        first: usize,
        /// The member being read has the last key (`keys.last()`), once one was read.
        has_key: bool,
        expect_key: bool,
    },
    Array {
        index: usize,
    },
}

fn path_of(stack: &[Frame], keys: &[std::borrow::Cow<'_, str>]) -> String {
    let mut p = String::new();
    for (n, f) in stack.iter().enumerate() {
        match *f {
            Frame::Object {
                has_key: true,
                first,
                ..
            } => {
                // The current key of this object is the last of its keys: the keys of deeper
                // objects start after it.
                let end = stack[n + 1..]
                    .iter()
                    .find_map(|g| match g {
                        Frame::Object { first, .. } => Some(*first),
                        Frame::Array { .. } => None,
                    })
                    .unwrap_or(keys.len());
                if let Some(k) = keys.get(first..end).and_then(|ks| ks.last()) {
                    if !p.is_empty() {
                        p.push('.');
                    }
                    p.push_str(k);
                }
            }
            Frame::Object { .. } => {}
            Frame::Array { index } => {
                p.push('[');
                p.push_str(&index.to_string());
                p.push(']');
            }
        }
    }
    p
}

/// The end (index after the closing quote) of the string starting at `start` (a `"`).
fn string_end(b: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while let Some(off) = b.get(i..).and_then(|r| memchr::memchr2(b'"', b'\\', r)) {
        i += off;
        if b[i] == b'"' {
            return i + 1;
        }
        i += 2; // a backslash and the character it escapes
    }
    b.len()
}

/// A decimal number as `(negative, digits without leading or trailing zeros, exponent)` with
/// value `0.DIGITS * 10^exponent`; zero is `(_, "", 0)`.
fn decimal(token: &str) -> Option<(bool, String, i64)> {
    let (neg, t) = match token.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, token),
    };
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i64>().ok()?),
        None => (t, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() || !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    let all: String = int.chars().chain(frac.chars()).collect();
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_start_matches('0').trim_end_matches('0').to_owned();
    if digits.is_empty() {
        return Some((false, String::new(), 0));
    }
    let exp = exp
        .saturating_add(int.len() as i64)
        .saturating_sub(lead as i64);
    Some((neg, digits, exp))
}

/// True when RFC 8785 canonical JSON, which writes every number as the shortest form of the
/// nearest IEEE 754 double, keeps this number's value.
pub fn number_is_exact(token: &str) -> bool {
    // Fast path: at most 15 characters and no exponent: at most 15 digits, in range.
    if token.len() <= 15 && !token.bytes().any(|c| c == b'e' || c == b'E') {
        return true;
    }
    let Some(want) = decimal(token) else {
        return false;
    };
    // Up to 15 significant digits in the normal range always survive a round trip.
    if want.1.len() <= 15 && (-290..=290).contains(&want.2) {
        return true;
    }
    let Ok(f) = token.parse::<f64>() else {
        return false;
    };
    if !f.is_finite() {
        return false;
    }
    match decimal(&format!("{f:e}")) {
        Some(got) => got.1 == want.1 && got.2 == want.2 && (got.0 == want.0 || got.1.is_empty()),
        None => false,
    }
}

/// What canonical JSON writes for a number as written (`9007199254740993` gives
/// `9007199254740992`), or `None` when it cannot write it at all (out of range).
pub fn canonical_number(token: &str) -> Option<String> {
    let f = token.parse::<f64>().ok().filter(|f| f.is_finite())?;
    serde_jcs::to_string(&f).ok()
}

/// Scans a JSON text (as written, before any parser keeps one of two values) for duplicate
/// keys and for numbers RFC 8785 cannot represent exactly, naming each by its path
/// (`result.structuredContent.items[2].id`). Never fails: text that is not JSON is scanned as
/// far as it goes.
pub fn scan_json(text: &str) -> JsonScan {
    scan_json_capped(text, MAX_INEXACT)
}

/// [`scan_json`], listing at most `cap` inexact numbers.
pub fn scan_json_capped(text: &str, cap: usize) -> JsonScan {
    use std::borrow::Cow;
    let b = text.as_bytes();
    let mut out = JsonScan::default();
    let mut stack: Vec<Frame> = Vec::new();
    let mut keys: Vec<Cow<str>> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => {
                stack.push(Frame::Object {
                    first: keys.len(),
                    has_key: false,
                    expect_key: true,
                });
                i += 1;
            }
            b'[' => {
                stack.push(Frame::Array { index: 0 });
                i += 1;
            }
            b'}' | b']' => {
                if let Some(Frame::Object { first, .. }) = stack.pop() {
                    keys.truncate(first);
                }
                i += 1;
            }
            b',' => {
                match stack.last_mut() {
                    Some(Frame::Object { expect_key, .. }) => *expect_key = true,
                    Some(Frame::Array { index }) => *index += 1,
                    None => {}
                }
                i += 1;
            }
            b'"' => {
                let end = string_end(b, i);
                if let Some(Frame::Object {
                    first,
                    has_key,
                    expect_key: expect_key @ true,
                }) = stack.last_mut()
                {
                    let raw = text.get(i + 1..end.saturating_sub(1)).unwrap_or("");
                    let k: Cow<str> = if raw.contains('\\') {
                        text.get(i..end)
                            .and_then(|q| serde_json::from_str::<String>(q).ok())
                            .map_or(Cow::Borrowed(raw), Cow::Owned)
                    } else {
                        Cow::Borrowed(raw)
                    };
                    let first = *first;
                    let dup = keys[first..].contains(&k);
                    *has_key = true;
                    *expect_key = false;
                    if dup && out.duplicate_key.is_none() {
                        // The path of the object (its current key is not part of it).
                        let n = stack.len();
                        if let Some(Frame::Object { has_key, .. }) = stack.last_mut() {
                            *has_key = false;
                        }
                        out.duplicate_key = Some((path_of(&stack[..n], &keys), k.to_string()));
                        if let Some(Frame::Object { has_key, .. }) = stack.last_mut() {
                            *has_key = true;
                        }
                    }
                    keys.push(k);
                }
                i = end;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                let token = &text[start..i];
                if !number_is_exact(token) {
                    out.inexact_total += 1;
                    if out.inexact.len() < cap {
                        out.inexact.push((path_of(&stack, &keys), token.to_owned()));
                    }
                }
            }
            _ => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_time_equality_is_equality() {
        let a = sha256(&[b"a"]);
        assert!(ct_bytes_eq(&a, &a));
        assert!(ct_bytes_eq(b"", b""));
        assert!(!ct_bytes_eq(&a, &a[..31]));
        // Lengths that are not whole words, equal and not.
        for n in [1, 7, 9, 15, 17] {
            assert!(ct_bytes_eq(&a[..n], &a[..n]), "{n}");
            let mut b = a;
            b[n - 1] ^= 0x80;
            assert!(!ct_bytes_eq(&a[..n], &b[..n]), "{n}");
        }
        for i in 0..32 {
            for bit in 0..8 {
                let mut b = a;
                b[i] ^= 1 << bit;
                assert!(!ct_bytes_eq(&a, &b), "byte {i} bit {bit}");
            }
        }
    }

    #[test]
    fn key_order_and_whitespace_do_not_matter() {
        let a = RawValue::from_string(r#"{"b": 1, "a": "x"}"#.into()).unwrap();
        let b = RawValue::from_string(r#"{"a":"x","b":1}"#.into()).unwrap();
        assert_eq!(
            arguments_hash(Some(&a)).unwrap(),
            arguments_hash(Some(&b)).unwrap()
        );
        // sha256("{}")
        assert_eq!(
            arguments_hash(None).unwrap(),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }

    #[test]
    fn jcs_number_forms() {
        let a = RawValue::from_string(r#"{"n": 1.0e2}"#.into()).unwrap();
        let b = RawValue::from_string(r#"{"n": 100}"#.into()).unwrap();
        assert_eq!(
            arguments_hash(Some(&a)).unwrap(),
            arguments_hash(Some(&b)).unwrap()
        );
    }

    #[test]
    fn abbreviations() {
        let full = "9f3ab2c0ffee";
        assert!(hash_matches("9f3ab2", full));
        assert!(hash_matches("sha256:9F3AB2C", full));
        assert!(!hash_matches("9f3ab", full));
        assert!(!hash_matches("9f3ab3", full));
    }

    #[test]
    fn numbers_jcs_cannot_represent_exactly() {
        for exact in [
            "0",
            "-0",
            "100",
            "1.0e2",
            "0.1",
            "1.5",
            "-3.25",
            "9007199254740992",
            "1e22",
            "123456789012345",
            "0.000001",
            "1e-7",
            "12345.678",
            "1.7976931348623157e308",
            "5e-324",
            "0.30000000000000004",
        ] {
            assert!(number_is_exact(exact), "{exact}");
        }
        for inexact in [
            "9007199254740993",
            "-9007199254740993",
            "18446744073709551617",
            "123456789012345678901234567890",
            "0.10000000000000000001",
            "1e400",
            "1e-400",
            "1.00000000000000001",
        ] {
            assert!(!number_is_exact(inexact), "{inexact}");
        }
    }

    #[test]
    fn scan_finds_duplicates_and_inexact_numbers_by_path() {
        let s = scan_json(
            r#"{"result":{"structuredContent":{"id":9007199254740993,"ok":[1,2.5,{"n":1e400}]},"_meta":{"a":1,"b":{"x":1},"a":2}}}"#,
        );
        assert_eq!(
            s.duplicate_key,
            Some(("result._meta".to_owned(), "a".to_owned()))
        );
        assert_eq!(
            s.inexact,
            vec![
                (
                    "result.structuredContent.id".to_owned(),
                    "9007199254740993".to_owned()
                ),
                (
                    "result.structuredContent.ok[2].n".to_owned(),
                    "1e400".to_owned()
                ),
            ]
        );
        // Escaped spellings of the same key are the same key; strings are skipped.
        let s = scan_json(r#"{"a\u0062":1,"ab":"9007199254740993 \" ,\"ab\":"}"#);
        assert_eq!(s.duplicate_key, Some((String::new(), "ab".to_owned())));
        assert!(s.inexact.is_empty());
        assert_eq!(
            scan_json(r#"{"a":{"a":1},"b":[{"a":1},{"a":2}]}"#),
            JsonScan::default()
        );
        // Garbage never panics.
        for junk in ["", "{", "\"", "[1,", "{\"a\":", "-", "1e", "}}]]", "\"\\"] {
            let _ = scan_json(junk);
        }
    }
}
