//! DSSE v1 envelopes (Dead Simple Signing Envelope): parsing with limits, the
//! pre-authentication encoding, Ed25519 signing, and signature verification in batches.
//!
//! `{"payload": base64, "payloadType": string, "signatures": [{"keyid": string, "sig": base64}]}`.
//! Base64 may be standard or URL-safe, padded or not (DSSE asks verifiers to accept either);
//! provscope writes standard base64 with padding.

use super::keys::{b64_decode, b64_encode, keyid};
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use serde::Deserialize;
use std::fmt;

/// The payload type of in-toto statements, the only one provscope's envelopes use.
pub const PAYLOAD_TYPE_IN_TOTO: &str = "application/vnd.in-toto+json";

/// The largest decoded payload accepted (an execution statement is under 4 KiB).
pub const MAX_PAYLOAD_BYTES: usize = 32 << 20;

/// The most signatures accepted on one envelope.
pub const MAX_SIGNATURES: usize = 64;

/// One signature of an envelope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sig {
    /// The key id hint (unauthenticated; never used for a security decision).
    pub keyid: Option<String>,
    /// The 64-byte Ed25519 signature.
    pub sig: Signature,
}

/// A parsed DSSE envelope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Envelope {
    /// `payloadType`.
    pub payload_type: String,
    /// The decoded payload.
    pub payload: Vec<u8>,
    /// The signatures, in order.
    pub signatures: Vec<Sig>,
}

/// Why an envelope could not be parsed. `field` names the JSON field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DsseError {
    /// The field concerned (`payload`, `signatures[1].sig`, ...), empty for the whole envelope.
    pub field: String,
    /// One sentence.
    pub message: String,
}

impl DsseError {
    fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        DsseError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for DsseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

#[derive(Deserialize)]
struct RawSig {
    #[serde(default)]
    keyid: Option<String>,
    sig: String,
}

#[derive(Deserialize)]
struct RawEnvelope {
    payload: String,
    #[serde(rename = "payloadType")]
    payload_type: String,
    signatures: Vec<serde_json::Value>,
}

/// [`RawEnvelope`] borrowing its strings where they have no escapes.
#[derive(Deserialize)]
struct FastEnvelope<'a> {
    #[serde(borrow)]
    payload: std::borrow::Cow<'a, str>,
    #[serde(rename = "payloadType", borrow)]
    payload_type: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    signatures: Vec<FastSig<'a>>,
}

#[derive(Deserialize)]
struct FastSig<'a> {
    #[serde(default, borrow)]
    keyid: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    sig: std::borrow::Cow<'a, str>,
}

/// The DSSE v1 pre-authentication encoding:
/// `"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`, lengths in ASCII decimal bytes.
pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let t = payload_type.as_bytes();
    let head = format!("DSSEv1 {} ", t.len());
    let mid = format!(" {} ", payload.len());
    let mut out = Vec::with_capacity(head.len() + t.len() + mid.len() + payload.len());
    out.extend_from_slice(head.as_bytes());
    out.extend_from_slice(t);
    out.extend_from_slice(mid.as_bytes());
    out.extend_from_slice(payload);
    out
}

fn decoded_len_bound(b64_len: usize) -> usize {
    b64_len / 4 * 3 + 3
}

impl Envelope {
    /// Parses an envelope from its JSON text. Checks the structure only: base64, sizes, at least
    /// one signature, no duplicated signatures. The payload type and the signatures' validity are
    /// for the caller.
    pub fn parse(json: &str) -> Result<Envelope, DsseError> {
        // Fast path: borrowed strings, typed signatures; any problem is parsed again below to
        // be named precisely.
        if let Ok(fast) = serde_json::from_str::<FastEnvelope>(json) {
            if let Ok(env) = Self::from_fast(fast) {
                return Ok(env);
            }
        }
        let de = &mut serde_json::Deserializer::from_str(json);
        let raw: RawEnvelope = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let field = if path == "." { String::new() } else { path };
            if inner.is_eof() {
                DsseError::new(field, format!("truncated JSON ({inner})"))
            } else {
                DsseError::new(field, format!("not a DSSE envelope ({inner})"))
            }
        })?;
        Self::from_raw(raw)
    }

    /// Parses an envelope from a JSON value.
    pub fn from_value(v: &serde_json::Value) -> Result<Envelope, DsseError> {
        let raw: RawEnvelope = serde_path_to_error::deserialize(v).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." { String::new() } else { path };
            DsseError::new(field, format!("not a DSSE envelope ({})", e.into_inner()))
        })?;
        Self::from_raw(raw)
    }

    /// The fast path of [`Envelope::parse`]: the same checks; on any error the caller parses
    /// again on the slow path, which names the problem.
    fn from_fast(raw: FastEnvelope) -> Result<Envelope, ()> {
        if decoded_len_bound(raw.payload.len()) > MAX_PAYLOAD_BYTES + 3
            || raw.payload_type.is_empty()
            || raw.signatures.is_empty()
            || raw.signatures.len() > MAX_SIGNATURES
        {
            return Err(());
        }
        let payload = b64_decode(&raw.payload).map_err(|_| ())?;
        if payload.len() > MAX_PAYLOAD_BYTES {
            return Err(());
        }
        let mut signatures: Vec<Sig> = Vec::with_capacity(raw.signatures.len());
        for rs in raw.signatures {
            let bytes = b64_decode(&rs.sig).map_err(|_| ())?;
            let arr: [u8; 64] = bytes.as_slice().try_into().map_err(|_| ())?;
            let sig = Signature::from_bytes(&arr);
            if signatures.iter().any(|s| s.sig == sig) {
                return Err(());
            }
            let keyid = rs.keyid.filter(|k| !k.is_empty()).map(|k| k.into_owned());
            signatures.push(Sig { keyid, sig });
        }
        Ok(Envelope {
            payload_type: raw.payload_type.into_owned(),
            payload,
            signatures,
        })
    }

    fn from_raw(raw: RawEnvelope) -> Result<Envelope, DsseError> {
        if decoded_len_bound(raw.payload.len()) > MAX_PAYLOAD_BYTES + 3 {
            return Err(DsseError::new(
                "payload",
                format!(
                    "{} bytes of base64 (about {} MiB decoded), over the {} MiB limit",
                    raw.payload.len(),
                    decoded_len_bound(raw.payload.len()) >> 20,
                    MAX_PAYLOAD_BYTES >> 20
                ),
            ));
        }
        let payload = b64_decode(&raw.payload)
            .map_err(|e| DsseError::new("payload", format!("not base64 ({e})")))?;
        if payload.len() > MAX_PAYLOAD_BYTES {
            return Err(DsseError::new(
                "payload",
                format!(
                    "{} bytes, over the {} MiB limit",
                    payload.len(),
                    MAX_PAYLOAD_BYTES >> 20
                ),
            ));
        }
        if raw.payload_type.is_empty() {
            return Err(DsseError::new("payloadType", "empty"));
        }
        if raw.signatures.is_empty() {
            return Err(DsseError::new(
                "signatures",
                "no signatures: the envelope is unsigned",
            ));
        }
        if raw.signatures.len() > MAX_SIGNATURES {
            return Err(DsseError::new(
                "signatures",
                format!(
                    "{} signatures, over the limit of {MAX_SIGNATURES}",
                    raw.signatures.len()
                ),
            ));
        }
        let mut signatures: Vec<Sig> = Vec::with_capacity(raw.signatures.len());
        for (i, v) in raw.signatures.into_iter().enumerate() {
            let field = format!("signatures[{i}]");
            let rs: RawSig = serde_json::from_value(v)
                .map_err(|e| DsseError::new(&field, format!("not a signature object ({e})")))?;
            let bytes = b64_decode(&rs.sig)
                .map_err(|e| DsseError::new(format!("{field}.sig"), format!("not base64 ({e})")))?;
            let arr: [u8; 64] = bytes.as_slice().try_into().map_err(|_| {
                DsseError::new(
                    format!("{field}.sig"),
                    format!(
                        "decodes to {} bytes; an Ed25519 signature is 64",
                        bytes.len()
                    ),
                )
            })?;
            let sig = Signature::from_bytes(&arr);
            if let Some(j) = signatures.iter().position(|s| s.sig == sig) {
                return Err(DsseError::new(
                    field,
                    format!("duplicate signature: the same signature as signatures[{j}]"),
                ));
            }
            let keyid = rs.keyid.filter(|k| !k.is_empty());
            signatures.push(Sig { keyid, sig });
        }
        Ok(Envelope {
            payload_type: raw.payload_type,
            payload,
            signatures,
        })
    }

    /// Signs `payload` with one key, emitting `keyid` (hex SHA-256 of the raw public key).
    pub fn sign(payload_type: &str, payload: Vec<u8>, key: &SigningKey) -> Envelope {
        let sig = key.sign(&pae(payload_type, &payload));
        Envelope {
            payload_type: payload_type.to_owned(),
            payload,
            signatures: vec![Sig {
                keyid: Some(keyid(&key.verifying_key())),
                sig,
            }],
        }
    }

    /// The bytes every signature signs.
    pub fn pae(&self) -> Vec<u8> {
        pae(&self.payload_type, &self.payload)
    }

    /// The envelope as a JSON value (`payload`, `payloadType`, `signatures`), base64 standard.
    pub fn to_value(&self) -> serde_json::Value {
        let sigs: Vec<serde_json::Value> = self
            .signatures
            .iter()
            .map(|s| {
                serde_json::json!({
                    "keyid": s.keyid.clone().unwrap_or_default(),
                    "sig": b64_encode(&s.sig.to_bytes()),
                })
            })
            .collect();
        serde_json::json!({
            "payload": b64_encode(&self.payload),
            "payloadType": self.payload_type,
            "signatures": sigs,
        })
    }

    /// The envelope as compact JSON.
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }
}

/// One signature check: does `sig` verify `msg` under `key`?
#[derive(Clone, Copy)]
pub struct SigCheck<'a> {
    /// The signed bytes (the PAE).
    pub msg: &'a [u8],
    /// The signature.
    pub sig: &'a Signature,
    /// The candidate key.
    pub key: &'a VerifyingKey,
}

/// Verifies one signature with `verify_strict` (rejects small-order keys and non-canonical
/// signatures).
pub fn verify_one(c: &SigCheck) -> bool {
    c.key.verify_strict(c.msg, c.sig).is_ok()
}

/// Verifies many signatures: batch verification (ed25519-dalek `verify_batch`, [`BATCH`] at a
/// time), and, when a batch fails, halves of it again until `verify_strict` on a few finds
/// which failed. Returns one verdict per check, in order.
///
/// Batch verification accepts exactly the signatures that individual verification accepts,
/// except for signatures whose `R` was malleated with a small-order component: those prove
/// nothing new (the message was signed by the key) and are accepted by the batch only.
pub fn verify_all(checks: &[SigCheck]) -> Vec<bool> {
    verify_in_batches(checks, BATCH)
}

/// [`verify_all`] with batches of at most `max`, all of equal size (1,100 checks and a `max`
/// of 1,024: two of 550, not 1,024 and 76).
fn verify_in_batches(checks: &[SigCheck], max: usize) -> Vec<bool> {
    let mut out = vec![false; checks.len()];
    let size = checks
        .len()
        .div_ceil(checks.len().div_ceil(max.max(1)).max(1))
        .max(1);
    for (c, o) in checks.chunks(size).zip(out.chunks_mut(size)) {
        verify_into(c, o);
    }
    out
}

/// The most signatures verified in one `verify_batch` call: per signature, a batch of 1,024
/// is 10-15% faster than one of 256 and a batch of 4,096 only a few percent faster again
/// (`benches/attest.rs`), while a failed batch costs about its size again in the halves that
/// find the bad signature.
pub const BATCH: usize = 1024;

/// A failed batch this small is checked signature by signature.
const SINGLES: usize = 4;

/// [`verify_all`] into `out`: a failed batch is split in halves until the signatures that fail
/// are found one by one, so a few bad signatures among many cost a few more batches, not a
/// single verification of every signature. When both halves of a failed batch fail again,
/// failures are dense there and each half is checked signature by signature.
fn verify_into(checks: &[SigCheck], out: &mut [bool]) {
    if batch_ok(checks) {
        out.fill(true);
        return;
    }
    split(checks, out);
}

/// The halves of a failed batch.
fn split(checks: &[SigCheck], out: &mut [bool]) {
    if checks.len() <= SINGLES {
        singles(checks, out);
        return;
    }
    let half = checks.len() / 2;
    let (a, b) = checks.split_at(half);
    let (oa, ob) = out.split_at_mut(half);
    match (batch_ok(a), batch_ok(b)) {
        (true, true) => {
            // The whole failed through the batch's random weights alone (a malleated `R`):
            // decided one by one.
            singles(checks, out);
        }
        (true, false) => {
            oa.fill(true);
            split(b, ob);
        }
        (false, true) => {
            split(a, oa);
            ob.fill(true);
        }
        (false, false) => {
            singles(a, oa);
            singles(b, ob);
        }
    }
}

fn singles(checks: &[SigCheck], out: &mut [bool]) {
    for (o, c) in out.iter_mut().zip(checks) {
        crate::probe::steps(1);
        *o = verify_one(c);
    }
}

/// One `verify_batch` over `checks` (a single check is verified strictly).
fn batch_ok(checks: &[SigCheck]) -> bool {
    match checks {
        [] => true,
        [c] => {
            crate::probe::steps(1);
            verify_one(c)
        }
        _ => {
            crate::probe::batch();
            let msgs: Vec<&[u8]> = checks.iter().map(|c| c.msg).collect();
            let sigs: Vec<Signature> = checks.iter().map(|c| *c.sig).collect();
            let keys: Vec<VerifyingKey> = checks.iter().map(|c| *c.key).collect();
            ed25519_dalek::verify_batch(&msgs, &sigs, &keys).is_ok()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(seed: u8) -> SigningKey {
        SigningKey::from_bytes(&[seed; 32])
    }

    #[test]
    fn pae_matches_the_dsse_spec_example() {
        // From the DSSE protocol description: PAE("http://example.com/HelloWorld", "hello world").
        assert_eq!(
            pae("http://example.com/HelloWorld", b"hello world"),
            b"DSSEv1 29 http://example.com/HelloWorld 11 hello world".to_vec()
        );
        assert_eq!(pae("", b""), b"DSSEv1 0  0 ".to_vec());
    }

    #[test]
    fn sign_parse_round_trip() {
        let k = key(7);
        let e = Envelope::sign(PAYLOAD_TYPE_IN_TOTO, b"{\"a\":1}".to_vec(), &k);
        let back = Envelope::parse(&e.to_json()).unwrap();
        assert_eq!(back, e);
        let vk = k.verifying_key();
        let pae = back.pae();
        assert!(verify_one(&SigCheck {
            msg: &pae,
            sig: &back.signatures[0].sig,
            key: &vk
        }));
    }

    #[test]
    fn structural_errors_name_the_field() {
        let k = key(1);
        let good = Envelope::sign("t", b"x".to_vec(), &k).to_value();
        let cases: Vec<(serde_json::Value, &str)> = vec![
            (
                serde_json::json!({"payloadType": "t", "signatures": []}),
                "payload",
            ),
            (
                serde_json::json!({"payload": "eA==", "payloadType": "t", "signatures": []}),
                "signatures",
            ),
            (
                serde_json::json!({"payload": "e*A", "payloadType": "t", "signatures": good["signatures"]}),
                "payload",
            ),
            (
                serde_json::json!({"payload": "eA==", "payloadType": "t", "signatures": [{"keyid": "", "sig": "AAAA"}]}),
                "signatures[0].sig",
            ),
        ];
        for (v, field) in cases {
            let e = Envelope::parse(&v.to_string()).unwrap_err();
            assert!(
                e.field == field || e.to_string().contains(field),
                "{v}: {e}"
            );
        }
        let mut dup = good.clone();
        let s = dup["signatures"][0].clone();
        dup["signatures"].as_array_mut().unwrap().push(s);
        let e = Envelope::parse(&dup.to_string()).unwrap_err();
        assert!(e.message.contains("duplicate"), "{e}");
        let text = good.to_string();
        let e = Envelope::parse(&text[..text.len() / 2]).unwrap_err();
        assert!(e.message.contains("truncated"), "{e}");
    }

    #[test]
    fn batch_finds_the_bad_one() {
        let keys: Vec<SigningKey> = (1..=5).map(key).collect();
        let msgs: Vec<Vec<u8>> = (0..5).map(|i| vec![i as u8; 10 + i]).collect();
        let mut sigs: Vec<Signature> = keys.iter().zip(&msgs).map(|(k, m)| k.sign(m)).collect();
        let vks: Vec<VerifyingKey> = keys.iter().map(|k| k.verifying_key()).collect();
        let checks = |sigs: &[Signature]| -> Vec<bool> {
            let c: Vec<SigCheck> = (0..5)
                .map(|i| SigCheck {
                    msg: &msgs[i],
                    sig: &sigs[i],
                    key: &vks[i],
                })
                .collect();
            verify_all(&c)
        };
        assert_eq!(checks(&sigs), vec![true; 5]);
        let mut b = sigs[3].to_bytes();
        b[40] ^= 1;
        sigs[3] = Signature::from_bytes(&b);
        assert_eq!(checks(&sigs), vec![true, true, true, false, true]);
    }

    #[test]
    fn one_bad_signature_among_many_is_found_by_halving_not_one_by_one() {
        let k = key(7);
        let vk = k.verifying_key();
        // Batches of 256 here (the logic is the same at any size; signing and verifying a
        // few thousand signatures would make this test slow): 600 checks are 3 of 200.
        const BATCH: usize = 256;
        let n = 600;
        let msgs: Vec<Vec<u8>> = (0..n).map(|i: usize| i.to_le_bytes().to_vec()).collect();
        let mut sigs: Vec<Signature> = msgs.iter().map(|m| k.sign(m)).collect();
        let run = |sigs: &[Signature]| -> (Vec<bool>, u64) {
            let c: Vec<SigCheck> = msgs
                .iter()
                .zip(sigs)
                .map(|(m, s)| SigCheck {
                    msg: m,
                    sig: s,
                    key: &vk,
                })
                .collect();
            let before = crate::probe::count();
            let v = verify_in_batches(&c, BATCH);
            (v, crate::probe::count() - before)
        };
        let (v, singles) = run(&sigs);
        assert_eq!(v, vec![true; n]);
        assert_eq!(singles, 0, "all good: batches only");
        // One bad signature in the second batch: only it fails, found with a handful of single
        // verifications.
        let size = 200;
        let bad = size + 77;
        let mut b = sigs[bad].to_bytes();
        b[3] ^= 0x10;
        sigs[bad] = Signature::from_bytes(&b);
        let (v, singles) = run(&sigs);
        let want: Vec<bool> = (0..n).map(|i| i != bad).collect();
        assert_eq!(v, want);
        assert!(singles <= SINGLES as u64, "{singles} single verifications");
        // Bad ones at both ends of every batch and in the middle: exactly those fail.
        let bads = [0, size - 1, size, 2 * size - 1, 2 * size, n - 1, 300];
        for &i in &bads {
            let mut b = sigs[i].to_bytes();
            b[60] ^= 0x01;
            sigs[i] = Signature::from_bytes(&b);
        }
        let (v, _) = run(&sigs);
        let want: Vec<bool> = (0..n).map(|i| i != bad && !bads.contains(&i)).collect();
        assert_eq!(v, want);
        // Every signature bad: every verdict false.
        let wrong = key(8).verifying_key();
        let c: Vec<SigCheck> = msgs
            .iter()
            .zip(&sigs)
            .map(|(m, s)| SigCheck {
                msg: m,
                sig: s,
                key: &wrong,
            })
            .collect();
        assert_eq!(verify_in_batches(&c, BATCH), vec![false; n]);
    }
}
