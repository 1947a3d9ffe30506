//! Python's "canonical" JSON: `json.dumps(v, sort_keys=True, separators=(",", ":"))` with the
//! default `ensure_ascii=True`. ArkForge receipts hash this form; it is **not** RFC 8785:
//!
//! - keys sort by Unicode code point (Python `str` order), not by UTF-16 code unit;
//! - every character outside printable ASCII (0x20..0x7E) is escaped as `\uXXXX` (lowercase
//!   hex, astral characters as a surrogate pair), with the short forms `\" \\ \n \r \t \b \f`;
//!   `/` is not escaped;
//! - integers print in full; floats print as Python's `repr` (`1.0`, `1e-05`, `1e+16`).
//!
//! Limit: integers beyond 64 bits are read by serde_json as floats, so they print in float form
//! where Python would print every digit; hashes of such documents will not match.

use super::hash::HashError;
use serde_json::Value;
use std::fmt::Write;

/// Serializes a JSON value the way Python's `json.dumps(sort_keys=True, separators=(",", ":"))`
/// does.
pub fn dumps(v: &Value) -> Result<String, HashError> {
    let mut out = String::new();
    write_value(&mut out, v)?;
    Ok(out)
}

fn write_value(out: &mut String, v: &Value) -> Result<(), HashError> {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                let _ = write!(out, "{i}");
            } else if let Some(u) = n.as_u64() {
                let _ = write!(out, "{u}");
            } else if let Some(f) = n.as_f64() {
                out.push_str(&float_repr(f)?);
            } else {
                return Err(HashError::Number(format!(
                    "cannot serialize the number {n}"
                )));
            }
        }
        Value::String(s) => write_str(out, s),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, x)?;
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut entries: Vec<(&String, &Value)> = m.iter().collect();
            // Rust string order is UTF-8 byte order, which is code point order: Python's.
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, x)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(out, k);
                out.push(':');
                write_value(out, x)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// Python's `repr(float)`: the shortest digits that round-trip, in fixed notation when the
/// decimal exponent is in `-4 ..= 15`, otherwise `d.ddde±XX`; integral values keep `.0`.
fn float_repr(f: f64) -> Result<String, HashError> {
    let bad = || HashError::Number(format!("cannot format {f}"));
    if !f.is_finite() {
        return Err(HashError::Number(format!("{f} has no JSON form")));
    }
    // `{:e}` gives the shortest round-trip digits: `d.ddde<exp>`.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').ok_or_else(bad)?;
    let exp: i32 = exp.parse().map_err(|_| bad())?;
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let n = digits.len() as i32;
    let decpt = exp + 1; // value = 0.DIGITS * 10^decpt
    let mut s = String::new();
    if f.is_sign_negative() {
        s.push('-');
    }
    if decpt <= -4 || decpt > 16 {
        s.push_str(&digits[..1]);
        if n > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        let _ = write!(s, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    } else if decpt <= 0 {
        s.push_str("0.");
        s.extend(std::iter::repeat_n('0', (-decpt) as usize));
        s.push_str(&digits);
    } else if decpt >= n {
        s.push_str(&digits);
        s.extend(std::iter::repeat_n('0', (decpt - n) as usize));
        s.push_str(".0");
    } else {
        s.push_str(&digits[..decpt as usize]);
        s.push('.');
        s.push_str(&digits[decpt as usize..]);
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_python_repr() {
        // Left: the float; right: Python 3.11 `json.dumps(x)`.
        let cases = [
            (0.5, "0.5"),
            (1.0, "1.0"),
            (100.0, "100.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e300, "1.5e+300"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (-0.0, "-0.0"),
            (2.5e-7, "2.5e-07"),
            (1e22, "1e+22"),
            (0.1 + 0.2, "0.30000000000000004"),
            (12345.678, "12345.678"),
            (0.0, "0.0"),
            (-3.25, "-3.25"),
        ];
        for (f, want) in cases {
            assert_eq!(float_repr(f).unwrap(), want, "{f:?}");
        }
    }

    #[test]
    fn strings_and_key_order_like_python() {
        // Expected outputs produced by Python 3.11 json.dumps(sort_keys=True, separators=(",",":")).
        let v: Value = serde_json::from_str(
            r#"{"b":[1,2,{"é":"\u007f\u0000\u001f\"\\/\n\t\r\b\f"}],"a":"😀€","A":null,"t":true}"#,
        )
        .unwrap();
        assert_eq!(
            dumps(&v).unwrap(),
            r#"{"A":null,"a":"\ud83d\ude00\u20ac","b":[1,2,{"\u00e9":"\u007f\u0000\u001f\"\\/\n\t\r\b\f"}],"t":true}"#
        );
        let v: Value = serde_json::from_str(r#"{"é":1,"z":2,"😀":3,"～":4}"#).unwrap();
        assert_eq!(
            dumps(&v).unwrap(),
            r#"{"z":2,"\u00e9":1,"\uff5e":4,"\ud83d\ude00":3}"#
        );
    }
}
