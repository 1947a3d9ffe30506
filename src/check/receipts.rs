//! ArkForge receipts carried by `envelope` events (`"receipt": {...}` instead of a DSSE
//! `"envelope"`): verified with `attest::receipt` against the issuer keys pinned in the session
//! header (`receipt_keys`) or in provscope.toml (`receipt_keys`), bound to the recorded call
//! (`hashes.request` is the hash of its arguments) and result (`hashes.response` is the hash of
//! its `structuredContent`, or of its whole `result`), and reported like envelopes:
//! `envelope_invalid`, `result_tampered`, `envelope_partial`. The rules are in
//! `docs/envelope-format.md`, "Receipts in a session".

use super::envelopes::{invalid, reason};
use super::evidence::{self as ev, Evidence, InvalidReason};
use super::finding::{Finding, Severity};
use super::Checker;
use crate::attest::keys::{self, PublicKey};
use crate::attest::receipt::{self, ChainAlgorithm, Options, Status};
use crate::model::{Call, EnvelopeRecord};
use serde_json::Value;

/// The outcome of one receipt.
pub(crate) enum Verdict {
    /// A finding about the receipt itself (the call's line and turn).
    Finding(Finding),
    /// The delivered result differs from the one the receipt binds (claims citing it are hit).
    Tampered(Finding),
    /// Valid and bound to the recording.
    Verified,
}

/// The pinned issuer keys: the session header's, then the configuration's.
pub(crate) struct Pinned {
    keys: Vec<PublicKey>,
    unusable: Vec<String>,
}

/// Parses every pinned issuer key (an unusable one is named in the evidence, never trusted).
pub(crate) fn pinned(ck: &Checker) -> Pinned {
    let mut p = Pinned {
        keys: Vec::new(),
        unusable: Vec::new(),
    };
    let header =
        ck.s.header
            .as_ref()
            .map(|h| h.receipt_keys.as_slice())
            .unwrap_or_default();
    for (i, text) in header.iter().enumerate() {
        match keys::parse_public(text) {
            Ok(k) => p.keys.push(k),
            Err(e) => p.unusable.push(format!("receipt_keys[{i}]: {e}")),
        }
    }
    for k in &ck.cfg.receipt_keys {
        if !p.keys.contains(k) {
            p.keys.push(*k);
        }
    }
    p
}

fn parse_raw(raw: Option<&serde_json::value::RawValue>) -> Option<Value> {
    raw.and_then(|r| serde_json::from_str(r.get()).ok())
}

/// Verifies one receipt for a recorded call.
pub(crate) fn check(ck: &Checker, rec: &EnvelopeRecord, call: &Call, pins: &Pinned) -> Verdict {
    let base = |why: InvalidReason| ev::EnvelopeInvalid {
        trusted_keys: Some(pins.keys.len()),
        unusable_header_keys: (!pins.unusable.is_empty()).then(|| pins.unusable.clone()),
        ..reason(rec, call, why)
    };
    let value: Value = match serde_json::from_str(rec.raw.get()) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            let e = ev::EnvelopeInvalid {
                field: Some("receipt".into()),
                ..reason(rec, call, InvalidReason::Malformed)
            };
            return Verdict::Finding(invalid(
                rec,
                Some(call),
                e,
                format!("the receipt for {} is not a JSON object", call.id),
            ));
        }
    };
    let proof = value
        .get("proof_id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if pins.keys.is_empty() {
        let e = ev::EnvelopeInvalid {
            proof_id: proof,
            ..base(InvalidReason::NoTrustedKeys)
        };
        return Verdict::Finding(invalid(
            rec,
            Some(call),
            e,
            format!(
                "the ArkForge receipt for {} cannot be verified: neither the session header nor \
                 provscope.toml pins an issuer key (receipt_keys); the key a receipt embeds is not \
                 proof of origin",
                call.id
            ),
        ));
    }
    // The bodies the receipt binds: the call's arguments, and the delivered result (its
    // structured content, or the whole result object).
    let args = match call.request.params.arguments.as_deref() {
        Some(r) => parse_raw(Some(r)).unwrap_or(Value::Null),
        None => Value::Object(serde_json::Map::new()),
    };
    let result = ck.s.result(&call.id);
    let mut candidates: Vec<Value> = Vec::new();
    if let Some(res) = result.and_then(|r| r.response.result.as_ref()) {
        if let Some(sc) = parse_raw(res.structured()) {
            candidates.push(sc);
        }
        if let Ok(v) = serde_json::to_value(res) {
            candidates.push(v);
        }
    }
    let verify = |response: Option<&Value>| {
        receipt::verify(
            &value,
            &Options {
                pinned: &pins.keys,
                request: Some(&args),
                response,
            },
        )
    };
    let mut report = verify(candidates.first());
    let response_failed = |r: &receipt::Report| {
        r.steps
            .iter()
            .any(|s| s.name == "response hash" && s.status == Status::Failed)
    };
    if response_failed(&report) {
        if let Some(second) = candidates.get(1) {
            let other = verify(Some(second));
            if !response_failed(&other) {
                report = other;
            }
        }
    }
    let failed = |name: &str| {
        report
            .steps
            .iter()
            .find(|s| s.name == name && s.status == Status::Failed)
    };
    // The pinned key that verified it (for the evidence), when one did.
    let signer = (report.signed_by == receipt::SignedBy::PinnedKey)
        .then(|| {
            let sig = signature(&value)?;
            let msg = chain_hex(&value);
            pins.keys
                .iter()
                .find(|k| k.verify_strict(msg.as_bytes(), &sig).is_ok())
                .map(keys::keyid)
        })
        .flatten();
    // The receipt itself: structure, field formats, chain hash, signature.
    for step in ["structure", "fields", "chain hash", "signature"] {
        if let Some(s) = failed(step) {
            let why = if step == "signature" {
                InvalidReason::BadSignature
            } else {
                InvalidReason::ReceiptInvalid
            };
            let e = ev::EnvelopeInvalid {
                field: Some(step.into()),
                proof_id: proof,
                ..base(why)
            };
            return Verdict::Finding(invalid(
                rec,
                Some(call),
                e,
                format!(
                    "the ArkForge receipt for {} is invalid: {step}: {}",
                    call.id, s.detail
                ),
            ));
        }
    }
    // Bound to this call's arguments?
    if failed("request hash").is_some() {
        let sealed = receipt::chain_input(&value)
            .map(|c| c.request_hash)
            .unwrap_or_default();
        let recorded = receipt::body_hash(&args).unwrap_or_default();
        let e = ev::EnvelopeInvalid {
            mismatches: Some(vec![ev::SealMismatch {
                field: "hashes.request",
                sealed,
                recorded,
            }]),
            keyid: signer.clone(),
            proof_id: proof,
            ..reason(rec, call, InvalidReason::CallMismatch)
        };
        return Verdict::Finding(invalid(
            rec,
            Some(call),
            e,
            format!(
                "the ArkForge receipt for {} binds other arguments than the recorded call's \
                 (hashes.request differs)",
                call.id
            ),
        ));
    }
    if let (Some(res), true) = (result, failed("response hash").is_some()) {
        let sealed = receipt::chain_input(&value)
            .map(|c| c.response_hash)
            .unwrap_or_default();
        let recorded = candidates
            .first()
            .and_then(|v| receipt::body_hash(v).ok())
            .unwrap_or_default();
        let e = ev::ResultTampered {
            sealed_result_hash: sealed.clone(),
            recorded_result_hash: recorded.clone(),
            call_hash: receipt::chain_input(&value)
                .map(|c| c.request_hash)
                .unwrap_or_default(),
            server: call.server.to_string(),
            attestor: value
                .get("parties")
                .and_then(|p| p.get("seller"))
                .and_then(Value::as_str)
                .unwrap_or("arkforge")
                .to_owned(),
            keyid: signer.unwrap_or_default(),
            envelope_line: rec.line,
            result_line: res.line,
            tampered_fields: vec!["result_hash"],
            mismatches: vec![ev::SealMismatch {
                field: "hashes.response",
                sealed,
                recorded,
            }],
        };
        return Verdict::Tampered(
            Finding::new(
                Evidence::ResultTampered(Box::new(e)),
                Severity::Error,
                format!(
                    "the result of {} recorded as delivered is not the response its ArkForge \
                     receipt binds (hashes.response differs)",
                    call.id
                ),
            )
            .call(&call.id)
            .turn(res.turn)
            .at(res),
        );
    }
    if report.algorithm == Some(ChainAlgorithm::Legacy) {
        let e = ev::EnvelopePartial {
            reason: ev::PartialReason::LegacyReceipt,
            server: call.server.to_string(),
            keyid: signer.unwrap_or_default(),
            envelope_line: rec.line,
            predicate_type: report.spec_version.clone(),
            unattested: vec!["separation of the chain's fields".into()],
            numbers: None,
        };
        return Verdict::Finding(
            Finding::new(
                Evidence::EnvelopePartial(Box::new(e)),
                Severity::Info,
                format!(
                    "the ArkForge receipt for {} verifies, but its chain is the legacy \
                     concatenation, which does not separate its fields (only a spec_version 2.1 \
                     receipt binds each on its own)",
                    call.id
                ),
            )
            .call(&call.id)
            .turn(call.turn)
            .line(rec.line),
        );
    }
    Verdict::Verified
}

fn chain_hex(v: &Value) -> String {
    v.get("hashes")
        .and_then(|h| h.get("chain"))
        .and_then(Value::as_str)
        .map(|c| c.strip_prefix("sha256:").unwrap_or(c).to_ascii_lowercase())
        .unwrap_or_default()
}

fn signature(v: &Value) -> Option<keys::Signature> {
    let s = v.get("arkforge_signature")?.as_str()?;
    let b = keys::b64_decode(s.strip_prefix("ed25519:")?).ok()?;
    let arr: [u8; 64] = b.as_slice().try_into().ok()?;
    Some(keys::Signature::from_bytes(&arr))
}
