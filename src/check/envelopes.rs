//! Execution envelopes: `envelope_missing`, `envelope_invalid`, `result_tampered` and
//! `envelope_partial`.
//!
//! Every envelope is decoded ([`decode`]) and its statement read in place
//! (`attest::envelope::read`, [`prepare`]); its signatures
//! are verified in batches against the keys the session header trusts for the call's server
//! (`attestor_keys`), falling back to one-by-one verification to find which failed: one batch
//! per session, or shared by several sessions checked together ([`verify_together`], for
//! `check::check_sessions`). Only a
//! verified predicate is compared with the recording: first the call (call hash and the fields
//! it binds), then the result hash and the sealed freshness (the ingestion tag's times, TTL and
//! cache). `keyid` is never used to decide anything.

use super::evidence::{self as ev, Evidence, InvalidReason};
use super::finding::{Finding, Severity};
use super::{Checker, Config, Resolved};
use crate::attest::dsse::{self, DsseError, Envelope, SigCheck};
use crate::attest::envelope::{
    compare_call, compare_call_canonical, compare_freshness, compare_result, read, CanonicalArgs,
    Mismatch, Sealed,
};
use crate::attest::keys::{self, PublicKey};
use crate::model::{Call, EnvelopeForm, EnvelopeRecord, Session, ToolResult};
use rustc_hash::FxHashMap as HashMap;

/// The keys the header declares for one server.
#[derive(Default)]
struct ServerKeys {
    /// Trusted to attest this server's calls.
    attestor: Vec<PublicKey>,
    /// The tool server's own keys (self-attestation).
    own: Vec<PublicKey>,
    /// Header keys that did not parse, as `attestor_keys[i]: reason`.
    unusable: Vec<String>,
}

/// What a group of sessions checked together computes once: header keys parsed (and their
/// points decompressed) by key text, since the sessions usually share their headers' keys; and
/// calls' arguments canonicalized and hashed by arguments text, since calls repeat their
/// arguments within a session and across sessions.
#[derive(Default)]
pub(crate) struct KeyCache<'s> {
    keys: HashMap<String, Result<PublicKey, String>>,
    /// `None` where the arguments have no canonical form ([`compare_call`] then says why).
    args: HashMap<&'s str, Option<std::rc::Rc<CanonicalArgs>>>,
}

impl<'s> KeyCache<'s> {
    fn parse(&mut self, text: &str) -> Result<PublicKey, String> {
        if let Some(known) = self.keys.get(text) {
            return known.clone();
        }
        let parsed = keys::parse_public(text).map_err(|e| e.to_string());
        self.keys.insert(text.to_owned(), parsed.clone());
        parsed
    }

    /// The canonical arguments of `call`, computed once per arguments text.
    fn args(&mut self, call: &'s Call) -> Option<std::rc::Rc<CanonicalArgs>> {
        let raw = call.request.params.arguments.as_deref();
        // "" never is the text of a JSON value: it stands for absent arguments.
        self.args
            .entry(raw.map_or("", |r| r.get()))
            .or_insert_with(|| CanonicalArgs::of(raw).ok().map(std::rc::Rc::new))
            .clone()
    }
}

fn server_keys(s: &Session, server: &str, cache: &mut KeyCache) -> ServerKeys {
    let mut k = ServerKeys::default();
    let Some(info) = s.server(server) else {
        return k;
    };
    for (field, list, out) in [
        ("attestor_keys", &info.attestor_keys, &mut k.attestor),
        ("server_keys", &info.server_keys, &mut k.own),
    ] {
        for (i, text) in list.iter().enumerate() {
            match cache.parse(text) {
                Ok(key) => out.push(key),
                Err(e) => k.unusable.push(format!("{field}[{i}]: {e}")),
            }
        }
    }
    k
}

/// An envelope that parsed and opened, waiting for its signatures to be verified.
struct Opened<'s> {
    rec: &'s EnvelopeRecord,
    call: &'s Call,
    env: &'s Envelope,
    /// Its statement, read in place from `env`'s payload.
    st: Sealed<'s>,
    pae: Vec<u8>,
    /// The keys of the call's server: an index into [`Prepared::keys`].
    keys: usize,
    /// The call's arguments canonicalized (`None`: they have none).
    args: Option<std::rc::Rc<CanonicalArgs>>,
}

/// The outcome of one signature.
enum SigVerdict {
    /// Verified under this trusted attestor key.
    Trusted(PublicKey),
    /// Verified under a key of the tool server itself.
    SelfAttested(PublicKey),
    /// Verified under the key the payload names, which the header does not trust for the server.
    Untrusted(PublicKey),
    /// Verifies under no known key.
    Bad,
}

/// A session's envelopes parsed and opened, their signatures verified or not yet.
pub(crate) struct Prepared<'s> {
    /// Findings for envelopes that name no recorded call, do not parse or do not open, in
    /// envelope order.
    early: Vec<Finding>,
    /// The keys of each server the opened envelopes' calls went to.
    keys: Vec<ServerKeys>,
    opened: Vec<Opened<'s>>,
    receipts: Vec<(&'s EnvelopeRecord, &'s Call)>,
    /// One verdict per signature of each opened envelope, once verified: the signatures of
    /// all the opened envelopes in order, in one list.
    verdicts: Option<Vec<SigVerdict>>,
}

/// Whether the session or the configuration requires an envelope for every call, and whether
/// the session header does.
fn requirement(s: &Session, cfg: &Config) -> (bool, bool) {
    let header_requires = s.header.as_ref().is_some_and(|h| h.require_envelopes);
    (header_requires || cfg.require_envelopes, header_requires)
}

/// A session's DSSE envelopes decoded (JSON and base64), one per envelope record (`None` for a
/// receipt), so that [`prepare`] reads their statements in place.
pub(crate) struct Decoded(Vec<Option<Result<Envelope, DsseError>>>);

/// Decodes every DSSE envelope of a session, for [`prepare`].
pub(crate) fn decode(s: &Session) -> Decoded {
    Decoded(
        s.envelopes
            .iter()
            .map(|rec| {
                (rec.form != EnvelopeForm::ArkforgeReceipt).then(|| Envelope::parse(rec.raw.get()))
            })
            .collect(),
    )
}

/// Opens every envelope of a session decoded by [`decode`] (with the header keys parsed
/// through `key_cache`, shared by the sessions checked together); signatures are verified
/// later (by [`check`], or for several sessions at once by [`verify_together`]).
pub(crate) fn prepare<'s>(
    s: &'s Session,
    cfg: &Config,
    decoded: &'s Decoded,
    key_cache: &mut KeyCache<'s>,
) -> Prepared<'s> {
    let mut p = Prepared {
        early: Vec::new(),
        keys: Vec::new(),
        opened: Vec::new(),
        receipts: Vec::new(),
        verdicts: None,
    };
    if s.envelopes.is_empty() && !requirement(s, cfg).0 {
        return p;
    }
    p.opened.reserve_exact(s.envelopes.len());
    // Each server's place in `p.keys`.
    let mut key_index: HashMap<&'s str, usize> = HashMap::default();
    for (rec, decoded) in s.envelopes.iter().zip(&decoded.0) {
        let Some(call) = s.call(&rec.call_id) else {
            p.early.push(invalid(
                rec,
                None,
                ev::EnvelopeInvalid::new(rec.line, None, InvalidReason::UnknownCall),
                format!(
                    "envelope for call `{}`, but no such call was recorded",
                    rec.call_id
                ),
            ));
            continue;
        };
        if rec.form == EnvelopeForm::ArkforgeReceipt {
            p.receipts.push((rec, call));
            continue;
        }
        let env = match decoded {
            Some(Ok(e)) => e,
            // Not decoded: only a receipt, handled above.
            None => continue,
            Some(Err(e)) => {
                let evidence = ev::EnvelopeInvalid {
                    field: Some(e.field.clone()),
                    ..reason(rec, call, InvalidReason::Malformed)
                };
                p.early.push(invalid(
                    rec,
                    Some(call),
                    evidence,
                    format!("envelope for {} is malformed: {e}", call.id),
                ));
                continue;
            }
        };
        let st = match read(env) {
            Ok(st) => st,
            Err(e) => {
                let evidence = ev::EnvelopeInvalid {
                    payload_type: Some(env.payload_type.clone()),
                    ..reason(rec, call, InvalidReason::BadPayload)
                };
                p.early.push(invalid(
                    rec,
                    Some(call),
                    evidence,
                    format!("envelope for {}: {e}", call.id),
                ));
                continue;
            }
        };
        let keys = *key_index.entry(call.server.as_str()).or_insert_with(|| {
            p.keys.push(server_keys(s, &call.server, key_cache));
            p.keys.len() - 1
        });
        let pae = env.pae();
        p.opened.push(Opened {
            rec,
            call,
            env,
            st,
            pae,
            keys,
            args: key_cache.args(call),
        });
    }
    p
}

/// Verifies the signatures of several sessions' prepared envelopes in shared batches (the
/// verdicts are the same as verifying each session's alone).
pub(crate) fn verify_together(sessions: &mut [Prepared]) {
    let verdicts = verify_many(sessions.iter().map(|p| (&p.opened[..], &p.keys[..])));
    for (p, v) in sessions.iter_mut().zip(verdicts) {
        p.verdicts = Some(v);
    }
}

/// The envelope checks of one session: with `prepared` (from [`prepare`], signatures perhaps
/// verified already by [`verify_together`]), or preparing them here.
pub(crate) fn check<'s, 'p>(
    ck: &mut Checker<'s>,
    resolved: &[Resolved<'s>],
    prepared: Option<Prepared<'p>>,
) where
    's: 'p,
{
    let s = ck.s;
    let (required, header_requires) = requirement(s, ck.cfg);
    if s.envelopes.is_empty() && !required {
        return;
    }
    let decoded;
    let Prepared {
        early,
        keys,
        opened,
        receipts,
        verdicts,
    } = match prepared {
        Some(p) => p,
        None => {
            decoded = decode(s);
            prepare(s, ck.cfg, &decoded, &mut KeyCache::default())
        }
    };
    for f in early {
        ck.emit(f);
    }
    let verdicts = verdicts.unwrap_or_else(|| {
        verify_many(std::iter::once((&opened[..], &keys[..])))
            .pop()
            .unwrap_or_default()
    });
    let mut tampered: Vec<(&Call, Finding)> = Vec::new();
    let mut next_sig = 0;
    for o in &opened {
        let n = o.env.signatures.len();
        // One verdict per signature; were any missing, none of them would count as verified.
        let missing: Vec<SigVerdict>;
        let sigs = match verdicts.get(next_sig..next_sig + n) {
            Some(v) => v,
            None => {
                missing = (0..n).map(|_| SigVerdict::Bad).collect();
                &missing
            }
        };
        next_sig += n;
        let server_keys = &keys[o.keys];
        if let Some(f) = signature_finding(o, sigs, server_keys) {
            ck.emit(f);
            continue;
        }
        // The key id is written out only into a finding.
        let signer = sigs.iter().find_map(|v| match v {
            SigVerdict::Trusted(k) => Some(k),
            _ => None,
        });
        let p = &o.st;
        let session_id = s.header.as_ref().map(|h| h.session_id.as_str());
        let compared = match &o.args {
            Some(args) => compare_call_canonical(p, session_id, o.call, args),
            // Without a canonical form: the comparison says why.
            None => compare_call(p, session_id, o.call),
        };
        match compared {
            Ok(m) if m.is_empty() => {}
            Ok(m) => {
                ck.emit(call_mismatch(o, &m, signer));
                continue;
            }
            Err(e) => {
                ck.emit(invalid(
                    o.rec,
                    Some(o.call),
                    reason(o.rec, o.call, InvalidReason::CallMismatch),
                    format!("envelope for {}: {e}", o.call.id),
                ));
                continue;
            }
        }
        let Some(result) = s.result(&o.call.id) else {
            continue; // nothing was delivered, so nothing can have been tampered with
        };
        let result_m = match compare_result(p, &result.response) {
            Ok(m) => m,
            Err(e) => {
                ck.emit(invalid(
                    o.rec,
                    Some(o.call),
                    reason(o.rec, o.call, InvalidReason::UnhashableResult),
                    format!("envelope for {}: {e}", o.call.id),
                ));
                continue;
            }
        };
        let tag_m = compare_freshness(p, &result.tag);
        if result_m.is_some() || !tag_m.is_empty() {
            let f = tampered_finding(o, result, result_m, &tag_m, signer);
            tampered.push((o.call, f));
            continue;
        }
        if let Some(f) = inexact_numbers(o, result, signer) {
            ck.emit(f);
        }
        if p.is_v1() {
            let e = ev::EnvelopePartial {
                reason: ev::PartialReason::FreshnessUnattested,
                server: o.call.server.to_string(),
                keyid: signer_id(signer),
                envelope_line: o.rec.line,
                predicate_type: Some(o.st.predicate_type.to_string()),
                unattested: ["fetched_at", "ttl_seconds", "cache"]
                    .map(str::to_owned)
                    .to_vec(),
                numbers: None,
            };
            ck.emit(
                Finding::new(
                    Evidence::EnvelopePartial(Box::new(e)),
                    Severity::Info,
                    format!(
                        "the envelope for {} verifies, but its predicate is v1, which does not \
                         seal fetched_at, ttl_seconds or cache: the freshness of its result is \
                         not attested",
                        o.call.id
                    ),
                )
                .call(&o.call.id)
                .turn(result.turn)
                .line(o.rec.line),
            );
        }
    }
    if !receipts.is_empty() {
        let pins = super::receipts::pinned(ck);
        for (rec, call) in receipts {
            match super::receipts::check(ck, rec, call, &pins) {
                super::receipts::Verdict::Finding(f) => ck.emit(f),
                super::receipts::Verdict::Tampered(f) => tampered.push((call, f)),
                super::receipts::Verdict::Verified => {}
            }
        }
    }
    // The claims citing each tampered call, in claim order, found in one pass.
    let mut citing: HashMap<&str, Vec<&Resolved>> = HashMap::default();
    for (call, _) in &tampered {
        citing.entry(call.id.as_str()).or_default();
    }
    if !citing.is_empty() {
        for r in resolved {
            crate::probe::steps(1);
            if let Some(v) = r.call.and_then(|c| citing.get_mut(c.id.as_str())) {
                v.push(r);
            }
        }
    }
    for (call, f) in tampered {
        let citing = citing.get(call.id.as_str()).map_or(&[][..], Vec::as_slice);
        if citing.is_empty() {
            ck.emit(f);
            continue;
        }
        for r in citing {
            ck.emit(f.clone().claim(r.claim));
        }
    }
    if required {
        let by = if header_requires {
            "the session header"
        } else {
            "the configuration"
        };
        for call in &s.calls {
            if s.envelopes_for(&call.id).next().is_none() {
                let e = ev::EnvelopeMissing {
                    server: call.server.to_string(),
                    tool: call.tool().to_owned(),
                    required_by: if header_requires {
                        ev::RequiredBy::Session
                    } else {
                        ev::RequiredBy::Config
                    },
                };
                ck.emit(
                    Finding::new(
                        Evidence::EnvelopeMissing(e),
                        Severity::Error,
                        format!(
                            "call {} ({} {}) has no execution envelope, but {by} requires one",
                            call.id,
                            call.server,
                            call.tool()
                        ),
                    )
                    .call(&call.id)
                    .turn(call.turn)
                    .at(call),
                );
            }
        }
    }
}

/// `result_tampered` for a verified envelope whose sealed result hash, or sealed freshness
/// (`tag.*`), differs from the recording. `tampered_fields` names every field that differs.
fn tampered_finding(
    o: &Opened,
    result: &ToolResult,
    result_m: Option<Mismatch>,
    tag_m: &[Mismatch],
    signer: Option<&PublicKey>,
) -> Finding {
    let p = &o.st;
    let id = &o.call.id;
    let tag_text = || {
        tag_m
            .iter()
            .map(|m| format!("{} sealed {}, recorded {}", m.field, m.sealed, m.recorded))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let message = match (&result_m, tag_m.is_empty()) {
        (Some(m), true) => format!(
            "the result of {id} recorded as delivered is not the result the attestor sealed \
             (result hash {} sealed, {} recomputed)",
            short(&m.sealed),
            short(&m.recorded)
        ),
        (Some(m), false) => format!(
            "the result of {id} recorded as delivered is not the result the attestor sealed \
             (result hash {} sealed, {} recomputed), and its ingestion tag was edited after \
             sealing: {}",
            short(&m.sealed),
            short(&m.recorded),
            tag_text()
        ),
        (None, _) => format!(
            "the ingestion tag of {id} was edited after sealing: {}; the freshness recorded for \
             its result is not the attested one",
            tag_text()
        ),
    };
    let recorded_hash = result_m
        .as_ref()
        .map_or_else(|| p.result_hash.text.to_string(), |m| m.recorded.clone());
    let all: Vec<&Mismatch> = result_m.iter().chain(tag_m).collect();
    let e = ev::ResultTampered {
        sealed_result_hash: p.result_hash.text.to_string(),
        recorded_result_hash: recorded_hash,
        call_hash: p.call_hash.text.to_string(),
        server: o.call.server.to_string(),
        attestor: p.attestor_id.to_string(),
        keyid: signer_id(signer),
        envelope_line: o.rec.line,
        result_line: result.line,
        tampered_fields: all.iter().map(|m| m.field).collect(),
        mismatches: all
            .iter()
            .map(|m| ev::SealMismatch {
                field: m.field,
                sealed: m.sealed.clone(),
                recorded: m.recorded.clone(),
            })
            .collect(),
    };
    Finding::new(
        Evidence::ResultTampered(Box::new(e)),
        Severity::Error,
        message,
    )
    .call(id)
    .turn(result.turn)
    .at(result)
}

/// `envelope_partial` (`inexact_numbers`) when the call's arguments or its delivered response
/// hold numbers RFC 8785 cannot represent exactly: the envelope verified, but its hashes cannot
/// tell such a number from its nearest double, so it does not vouch for their exact value.
fn inexact_numbers(o: &Opened, result: &ToolResult, signer: Option<&PublicKey>) -> Option<Finding> {
    let found = crate::attest::envelope::blind_spots(
        o.call.request.params.arguments.as_deref(),
        Some(&result.response),
        crate::attest::hash::MAX_INEXACT,
    )
    .inexact;
    // What the attestor saw when sealing, and what the log holds now (an inexact number may
    // have been replaced by its exactly representable neighbour since).
    let mut paths: Vec<String> = o.st.inexact_numbers.iter().map(|p| p.to_string()).collect();
    for (p, _) in &found {
        if !paths.contains(p) {
            paths.push(p.clone());
        }
    }
    let first_path = paths.first()?;
    let first = match found.iter().find(|(p, _)| p == first_path) {
        Some((_, t)) => format!("{first_path} = {t}"),
        None => format!("{first_path}, sealed as inexact"),
    };
    let message = format!(
        "the envelope for {} verifies, but cannot vouch for {} number(s) that RFC 8785 \
         canonical JSON cannot represent exactly (first: {first}): a different value rounding \
         to the same double hashes the same",
        o.call.id,
        paths.len()
    );
    let e = ev::EnvelopePartial {
        reason: ev::PartialReason::InexactNumbers,
        server: o.call.server.to_string(),
        keyid: signer_id(signer),
        envelope_line: o.rec.line,
        predicate_type: None,
        unattested: paths,
        numbers: Some(
            found
                .into_iter()
                .map(|(p, t)| format!("{p} = {t}"))
                .collect(),
        ),
    };
    Some(
        Finding::new(
            Evidence::EnvelopePartial(Box::new(e)),
            Severity::Warning,
            message,
        )
        .call(&o.call.id)
        .turn(result.turn)
        .at(result),
    )
}

/// The key id of the trusted key that signed, empty when none did.
fn signer_id(signer: Option<&PublicKey>) -> String {
    signer.map(keys::keyid).unwrap_or_default()
}

fn short(h: &str) -> &str {
    h.get(..12).unwrap_or(h)
}

/// Evidence of an invalid envelope for a recorded call, with only the reason set.
pub(super) fn reason(rec: &EnvelopeRecord, call: &Call, why: InvalidReason) -> ev::EnvelopeInvalid {
    ev::EnvelopeInvalid::new(rec.line, Some(call.server.to_string()), why)
}

pub(super) fn invalid(
    rec: &EnvelopeRecord,
    call: Option<&Call>,
    evidence: ev::EnvelopeInvalid,
    message: String,
) -> Finding {
    let f = Finding::new(
        Evidence::EnvelopeInvalid(Box::new(evidence)),
        Severity::Error,
        message,
    )
    .call(&rec.call_id)
    .line(rec.line);
    match call {
        Some(c) => f.turn(c.turn),
        None => f,
    }
}

/// Verifies every signature of every opened envelope of one or more sessions (each with the
/// keys its header declares): batches over each signature's first candidate key, shared by
/// all the sessions, then one-by-one against all known keys for whatever the batches did not
/// accept. Per session, one verdict per signature of its opened envelopes, in order.
fn verify_many<'a, 's: 'a>(
    sessions: impl Iterator<Item = (&'a [Opened<'s>], &'a [ServerKeys])>,
) -> Vec<Vec<SigVerdict>> {
    let sessions: Vec<_> = sessions.collect();
    // Each distinct key text is parsed (and its point decompressed) once.
    let mut parsed: HashMap<&str, Option<PublicKey>> = HashMap::default();
    // The key each payload names.
    let named: Vec<Vec<Option<PublicKey>>> = sessions
        .iter()
        .map(|(opened, _)| {
            opened
                .iter()
                .map(|o| {
                    let text: &str = &o.st.attestor_key;
                    *parsed
                        .entry(text)
                        .or_insert_with(|| keys::parse_public(text).ok())
                })
                .collect()
        })
        .collect();
    // First candidate: the trusted key the payload names, else the server's first trusted key.
    let mut checks: Vec<SigCheck> = Vec::new();
    // Per check: its session and the signature's place in that session's verdicts.
    let mut slots: Vec<(usize, usize)> = Vec::new();
    let mut out: Vec<Vec<Option<SigVerdict>>> = Vec::with_capacity(sessions.len());
    for (si, ((opened, keys), named)) in sessions.iter().zip(&named).enumerate() {
        let mut verdicts = Vec::new();
        for (o, named) in opened.iter().zip(named) {
            let trusted = &keys[o.keys].attestor;
            let first = named
                .as_ref()
                .and_then(|n| trusted.iter().find(|k| *k == n))
                .or(trusted.first());
            if let Some(key) = first {
                for (j, sig) in o.env.signatures.iter().enumerate() {
                    checks.push(SigCheck {
                        msg: &o.pae,
                        sig: &sig.sig,
                        key,
                    });
                    slots.push((si, verdicts.len() + j));
                }
            }
            verdicts.extend(o.env.signatures.iter().map(|_| None));
        }
        out.push(verdicts);
    }
    let batch = dsse::verify_all(&checks);
    for ((si, at), (ok, c)) in slots.into_iter().zip(batch.into_iter().zip(&checks)) {
        if ok {
            out[si][at] = Some(SigVerdict::Trusted(*c.key));
        }
    }
    sessions
        .iter()
        .zip(out)
        .zip(&named)
        .map(|(((opened, keys), out), named)| {
            let mut out = out.into_iter();
            let mut verdicts = Vec::with_capacity(out.len());
            for (o, named) in opened.iter().zip(named) {
                let keys = &keys[o.keys];
                // The signatures first: `zip` takes from its first iterator first, so the
                // verdicts of the next envelope are not consumed here.
                for (sig, v) in o.env.signatures.iter().zip(out.by_ref()) {
                    let verdict = v.unwrap_or_else(|| {
                        let try_key = |k: &PublicKey| {
                            dsse::verify_one(&SigCheck {
                                msg: &o.pae,
                                sig: &sig.sig,
                                key: k,
                            })
                        };
                        if let Some(k) = keys.attestor.iter().find(|k| try_key(k)) {
                            SigVerdict::Trusted(*k)
                        } else if let Some(k) = keys.own.iter().find(|k| try_key(k)) {
                            SigVerdict::SelfAttested(*k)
                        } else if let Some(k) = named.as_ref().filter(|k| try_key(k)) {
                            SigVerdict::Untrusted(*k)
                        } else {
                            SigVerdict::Bad
                        }
                    });
                    // A key listed both as attestor and as the server's own is the server's.
                    verdicts.push(match verdict {
                        SigVerdict::Trusted(k) if keys.own.contains(&k) => {
                            SigVerdict::SelfAttested(k)
                        }
                        v => v,
                    });
                }
            }
            verdicts
        })
        .collect()
}

/// The finding for the first signature that does not come from a trusted attestor, if any.
fn signature_finding(o: &Opened, sigs: &[SigVerdict], keys: &ServerKeys) -> Option<Finding> {
    let server = &o.call.server;
    let base = |msg: String, why: InvalidReason, keyid: Option<String>, hint: Option<String>, j| {
        let e = ev::EnvelopeInvalid {
            trusted_keys: Some(keys.attestor.len()),
            unusable_header_keys: (!keys.unusable.is_empty()).then(|| keys.unusable.clone()),
            keyid,
            keyid_hint: hint,
            signature: j,
            ..reason(o.rec, o.call, why)
        };
        invalid(o.rec, Some(o.call), e, msg)
    };
    if keys.attestor.is_empty() {
        return Some(base(
            format!(
                "envelope for {} cannot be verified: the session header trusts no attestor key \
                 for server {server}",
                o.call.id
            ),
            InvalidReason::NoTrustedKeys,
            None,
            None,
            None,
        ));
    }
    for (j, (v, sig)) in sigs.iter().zip(&o.env.signatures).enumerate() {
        let hint = sig.keyid.clone().unwrap_or_default();
        let f = match v {
            SigVerdict::Trusted(_) => continue,
            SigVerdict::SelfAttested(k) => base(
                format!(
                    "envelope for {} is self-attested: signature {j} is by a key of server \
                     {server} itself, which proves nothing",
                    o.call.id
                ),
                InvalidReason::SelfAttestation,
                Some(keys::keyid(k)),
                None,
                Some(j),
            ),
            SigVerdict::Untrusted(k) => base(
                format!(
                    "envelope for {}: signature {j} is by key {} which the session header does \
                     not trust for server {server}",
                    o.call.id,
                    keys::compact(k)
                ),
                InvalidReason::UntrustedKey,
                Some(keys::keyid(k)),
                None,
                Some(j),
            ),
            SigVerdict::Bad => base(
                format!(
                    "envelope for {}: signature {j} does not verify under any of the {} key(s) \
                     trusted for server {server} (payload or signature altered, or signed by \
                     another key)",
                    o.call.id,
                    keys.attestor.len()
                ),
                InvalidReason::BadSignature,
                None,
                Some(hint),
                Some(j),
            ),
        };
        return Some(f);
    }
    None
}

fn call_mismatch(o: &Opened, m: &[Mismatch], signer: Option<&PublicKey>) -> Finding {
    let fields: Vec<&str> = m.iter().map(|x| x.field).collect();
    let hash = m.iter().find(|x| x.field == "call_hash");
    let e = ev::EnvelopeInvalid {
        mismatches: Some(
            m.iter()
                .map(|x| ev::SealMismatch {
                    field: x.field,
                    sealed: x.sealed.clone(),
                    recorded: x.recorded.clone(),
                })
                .collect(),
        ),
        keyid: Some(signer_id(signer)),
        sealed_call_hash: hash.map(|x| x.sealed.clone()),
        recorded_call_hash: hash.map(|x| x.recorded.clone()),
        ..reason(o.rec, o.call, InvalidReason::CallMismatch)
    };
    invalid(
        o.rec,
        Some(o.call),
        e,
        format!(
            "envelope for {} seals a different call than the one recorded ({} differ)",
            o.call.id,
            fields.join(", ")
        ),
    )
}
