//! Canonical hashing: SHA-256 over RFC 8785 (JCS) canonical JSON, via `serde_jcs`.

use serde::Serialize;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

/// Hex SHA-256 of the RFC 8785 canonical JSON of any serializable value.
pub fn canonical_sha256<T: Serialize + ?Sized>(value: &T) -> Result<String, String> {
    let bytes = serde_jcs::to_vec(value).map_err(|e| format!("cannot canonicalize: {e}"))?;
    Ok(hex::encode(Sha256::digest(&bytes)))
}

/// The arguments hash of a `tools/call`: hex SHA-256 of the canonical JSON of `arguments`
/// (absent arguments hash as `{}`).
pub fn arguments_hash(arguments: Option<&RawValue>) -> Result<String, String> {
    match arguments {
        None => canonical_sha256(&serde_json::Map::new()),
        Some(raw) => {
            let v: serde_json::Value = serde_json::from_str(raw.get())
                .map_err(|e| format!("arguments are not JSON: {e}"))?;
            canonical_sha256(&v)
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
