//! Structure-aware fuzzing (proptest) of the attestation parsers and verifiers: execution
//! envelopes (DSSE parse, PAE, signature, statement, and the check inside `verify`), ArkForge
//! receipts, and `record`'s framing and pairing. A few thousand cases per target run in
//! `cargo test`; `PROVSCOPE_FUZZ_CASES=N` sets the count (docs/fuzzing.md has the long runs).
//!
//! Every input is built from a valid one (a sealed envelope, an honestly signed receipt, a
//! scripted JSON-RPC exchange) and then mutated at the level of its structure, so the cases
//! reach deep into the verifiers instead of stopping at the first parse error.

use crate::attest_common::{envelope_findings, envelope_line, header, key, public, server};
use base64::Engine;
use ed25519_dalek::{Signer, SigningKey};
use proptest::prelude::*;
use provscope::attest::dsse::{self, Envelope, SigCheck};
use provscope::attest::envelope::{self as exec, Attestor, Observed};
use provscope::attest::receipt::{self, ChainAlgorithm, ChainInput, Options, SignedBy};
use provscope::check::Kind;
use provscope::model::event::CacheInfo;
use provscope::model::{CallResponse, Timestamp};
use provscope::record::{Clock, Core, Dir, RecordConfig};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

const STD: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;
const URL_NP: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// The case count: `PROVSCOPE_FUZZ_CASES`, else `default`.
fn config(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROVSCOPE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases,
        // Long runs print the failing input; nothing is written next to the sources.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Any text, biased towards what breaks parsers and terminals.
fn nasty_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9_.#-]{0,12}",
        "\\PC{0,16}",
        Just("\u{1b}]52;c;eHh4\u{7}\n".to_owned()),
        Just("\"\\\u{0}\u{202e}".to_owned()),
        Just(String::new()),
    ]
}

/// Arbitrary JSON values, small.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        nasty_text().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            proptest::collection::btree_map("[a-z_]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

// ---------------------------------------------------------------------------------------------
// Envelopes

/// One call to seal.
#[derive(Debug, Clone)]
struct CallSpec {
    call_id: String,
    tool: String,
    args: Value,
    text: String,
    ttl: Option<u64>,
    hit: bool,
}

fn call_spec() -> impl Strategy<Value = CallSpec> {
    (
        "[a-zA-Z0-9_#:-]{1,16}",
        "[a-z_]{1,12}",
        json_value(),
        nasty_text(),
        proptest::option::of(0u64..100_000),
        any::<bool>(),
    )
        .prop_map(|(call_id, tool, args, text, ttl, hit)| CallSpec {
            call_id,
            tool,
            args: match args {
                Value::Object(_) => args,
                other => json!({ "v": other }),
            },
            text,
            ttl,
            hit,
        })
}

/// How an envelope is changed before it is verified.
#[derive(Debug, Clone)]
enum EnvMutation {
    None,
    /// Same bytes, other base64 alphabet/padding: must still verify.
    UrlSafeNoPad,
    FlipPayloadBit(usize, u8),
    FlipSigBit(usize, u8),
    TruncatePayload(usize),
    PayloadType(String),
    /// A predicate field replaced by any JSON value (the signature no longer covers it).
    PredicateField(String, Value),
    DuplicateSignature,
    NoSignatures,
    ExtraSignature(Vec<u8>),
    /// The whole envelope replaced by any JSON value.
    Replace(Value),
}

fn env_mutation() -> impl Strategy<Value = EnvMutation> {
    prop_oneof![
        2 => Just(EnvMutation::None),
        1 => Just(EnvMutation::UrlSafeNoPad),
        3 => (any::<usize>(), 0u8..8).prop_map(|(i, b)| EnvMutation::FlipPayloadBit(i, b)),
        2 => (any::<usize>(), 0u8..8).prop_map(|(i, b)| EnvMutation::FlipSigBit(i, b)),
        1 => any::<usize>().prop_map(EnvMutation::TruncatePayload),
        1 => nasty_text().prop_map(EnvMutation::PayloadType),
        3 => (
            prop_oneof![
                Just("call_id"), Just("session_id"), Just("server"), Just("tool"),
                Just("arguments_hash"), Just("called_at"), Just("returned_at"),
                Just("fetched_at"), Just("ttl_seconds"), Just("cache"), Just("call_hash"),
                Just("result_hash"), Just("inexact_numbers"), Just("attestor"),
            ],
            json_value()
        )
            .prop_map(|(f, v)| EnvMutation::PredicateField(f.to_owned(), v)),
        1 => Just(EnvMutation::DuplicateSignature),
        1 => Just(EnvMutation::NoSignatures),
        1 => proptest::collection::vec(any::<u8>(), 0..80).prop_map(EnvMutation::ExtraSignature),
        1 => json_value().prop_map(EnvMutation::Replace),
    ]
}

/// Applies a mutation; also says whether the result must still verify.
fn mutate(env: &Value, m: &EnvMutation) -> (Value, bool) {
    let mut e = env.clone();
    let payload = STD
        .decode(env["payload"].as_str().unwrap_or(""))
        .unwrap_or_default();
    let sig = STD
        .decode(env["signatures"][0]["sig"].as_str().unwrap_or(""))
        .unwrap_or_default();
    match m {
        EnvMutation::None => return (e, true),
        EnvMutation::UrlSafeNoPad => {
            e["payload"] = json!(URL_NP.encode(&payload));
            e["signatures"][0]["sig"] = json!(URL_NP.encode(&sig));
            return (e, true);
        }
        EnvMutation::FlipPayloadBit(i, b) => {
            let mut p = payload;
            let n = p.len();
            p[i % n] ^= 1 << b;
            e["payload"] = json!(STD.encode(p));
        }
        EnvMutation::FlipSigBit(i, b) => {
            let mut s = sig;
            s[i % 64] ^= 1 << b;
            e["signatures"][0]["sig"] = json!(STD.encode(s));
        }
        EnvMutation::TruncatePayload(n) => {
            let n = n % payload.len();
            e["payload"] = json!(STD.encode(&payload[..n]));
        }
        EnvMutation::PayloadType(t) => {
            if t == dsse::PAYLOAD_TYPE_IN_TOTO {
                return (e, true);
            }
            e["payloadType"] = json!(t);
        }
        EnvMutation::PredicateField(f, v) => {
            let mut st: Value = serde_json::from_slice(&payload).unwrap_or(Value::Null);
            if st["predicate"][f.as_str()] == *v {
                return (e, true);
            }
            st["predicate"][f.as_str()] = v.clone();
            e["payload"] = json!(STD.encode(serde_jcs::to_vec(&st).unwrap_or_default()));
        }
        EnvMutation::DuplicateSignature => {
            let s = e["signatures"][0].clone();
            if let Some(a) = e["signatures"].as_array_mut() {
                a.push(s);
            }
        }
        EnvMutation::NoSignatures => e["signatures"] = json!([]),
        EnvMutation::ExtraSignature(b) => {
            if let Some(a) = e["signatures"].as_array_mut() {
                a.push(json!({"keyid": "", "sig": STD.encode(b)}));
            }
        }
        EnvMutation::Replace(v) => return (v.clone(), false),
    }
    (e, false)
}

/// A one-call session, its lines (without an envelope) and the sealed envelope.
fn sealed_call(c: &CallSpec, k: &SigningKey) -> (Vec<String>, Value) {
    const SRV: &str = "srv.fuzz";
    let args = serde_json::value::to_raw_value(&c.args).unwrap();
    let hash = provscope::attest::hash::arguments_hash(Some(&args)).unwrap();
    let mut tag = json!({"call_id": c.call_id, "server": SRV, "tool": c.tool,
        "arguments_hash": hash, "fetched_at": "2026-10-02T14:00:01.500Z",
        "returned_at": "2026-10-02T14:00:01.500Z", "cache": {"hit": c.hit}});
    if let Some(t) = c.ttl {
        tag["ttl_seconds"] = json!(t);
    }
    let response = json!({"jsonrpc": "2.0", "id": c.call_id,
        "result": {"content": [{"type": "text", "text": c.text}], "structuredContent": c.args}});
    let lines = vec![
        header(json!([server(SRV, &[public(k)], &[])]), true),
        json!({"event": "turn", "turn": 1, "user": "q"}).to_string(),
        json!({"event": "tool_call", "turn": 1, "server": SRV,
               "issued_at": "2026-10-02T14:00:01.250Z",
               "request": {"jsonrpc": "2.0", "id": c.call_id, "method": "tools/call",
                           "params": {"name": c.tool, "arguments": c.args}}})
        .to_string(),
        json!({"event": "tool_result", "turn": 1, "tag": tag, "response": response}).to_string(),
    ];
    let resp: CallResponse = serde_json::from_value(response).unwrap();
    let cache = CacheInfo {
        hit: c.hit,
        original_fetched_at: None,
    };
    let obs = Observed {
        session_id: "sess_env_test",
        call_id: &c.call_id,
        server: SRV,
        tool: &c.tool,
        arguments: Some(&args),
        called_at: Timestamp::parse("2026-10-02T14:00:01.250Z").unwrap(),
        returned_at: Timestamp::parse("2026-10-02T14:00:01.500Z").unwrap(),
        fetched_at: Timestamp::parse("2026-10-02T14:00:01.500Z").unwrap(),
        ttl_seconds: c.ttl,
        cache: &cache,
        response: &resp,
    };
    let env = exec::seal(
        &obs,
        &Attestor {
            id: "fuzz".into(),
            key: k.clone(),
        },
    )
    .unwrap();
    (lines, env.to_value())
}

proptest! {
    #![proptest_config(config(3000))]

    /// DSSE parse, PAE, signature and statement, standalone and inside `verify`'s check: no
    /// panic on any input; an envelope verifies exactly when its bytes are the sealed ones.
    #[test]
    fn fuzz_envelope_verification(c in call_spec(), m in env_mutation()) {
        let k = key(3);
        let (lines, env) = sealed_call(&c, &k);
        let (bad, must_verify) = mutate(&env, &m);
        // Standalone: parse, open, PAE, signatures.
        let verified = match Envelope::from_value(&bad) {
            Ok(e) => {
                let again = Envelope::parse(&e.to_json());
                prop_assert_eq!(again.as_ref().ok(), Some(&e), "round trip");
                let opened = exec::open(&e);
                let pae = e.pae();
                let vk = k.verifying_key();
                let sigs_ok = e.signatures.iter().all(|s| dsse::verify_one(&SigCheck {
                    msg: &pae, sig: &s.sig, key: &vk,
                }));
                opened.is_ok() && sigs_ok
            }
            Err(_) => false,
        };
        prop_assert_eq!(verified, must_verify, "mutation {:?}", m);
        // Inside `verify`: the session with the (mutated) envelope.
        let mut l = lines.clone();
        l.push(envelope_line(&c.call_id, &bad));
        let s = crate::attest_common::load(&l);
        prop_assume!(!s.has_errors());
        let f = envelope_findings(&s);
        if must_verify {
            prop_assert!(f.iter().all(|f| f.kind == Kind::EnvelopePartial), "{:#?}", f);
        } else {
            prop_assert!(
                f.iter().any(|f| matches!(f.kind, Kind::EnvelopeInvalid | Kind::ResultTampered)),
                "mutation {:?} passed: {:#?}", m, f
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Receipts

/// An honest receipt's fields, well formed.
fn receipt_fields() -> impl Strategy<Value = ChainInput> {
    (
        "[0-9a-f]{64}",
        "[0-9a-f]{64}",
        "[a-zA-Z0-9_]{1,20}",
        (2000u32..2100, 1u32..13, 1u32..29, 0u32..24, 0u32..60),
        "[0-9a-f]{64}",
        "[a-z][a-z0-9-]{0,10}[a-z0-9]\\.[a-z]{2,6}",
        proptest::option::of(prop_oneof![
            Just("Wed, 15 Jan 2026 12:00:01 GMT".to_owned()),
            Just("2026-01-15T12:00:01Z".to_owned()),
        ]),
        proptest::option::of("[0-9a-f]{64}"),
    )
        .prop_map(
            |(req, resp, tx, (y, mo, d, h, mi), fp, seller, up, rch)| ChainInput {
                request_hash: req,
                response_hash: resp,
                transaction_id: tx,
                timestamp: format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:00Z"),
                buyer_fingerprint: fp,
                seller,
                upstream_timestamp: up,
                receipt_content_hash: rch,
            },
        )
}

#[derive(Debug, Clone)]
enum ReceiptMutation {
    None,
    /// Move `n` characters from the end of one bound field to the start of the next (or back).
    Move(usize, usize, bool),
    /// A field replaced by any JSON value.
    Field(Vec<&'static str>, Value),
    /// Signed by another key.
    OtherKey,
    /// Signed over a chain computed with the other algorithm.
    OtherAlgorithm,
    /// No signature.
    Unsigned,
    /// The whole receipt replaced by any JSON value.
    Replace(Value),
}

fn receipt_mutation() -> impl Strategy<Value = ReceiptMutation> {
    prop_oneof![
        2 => Just(ReceiptMutation::None),
        4 => (0usize..8, 1usize..6, any::<bool>())
            .prop_map(|(f, n, back)| ReceiptMutation::Move(f, n, back)),
        3 => (
            prop_oneof![
                Just(vec!["timestamp"]), Just(vec!["parties", "seller"]),
                Just(vec!["parties", "buyer_fingerprint"]), Just(vec!["hashes", "request"]),
                Just(vec!["hashes", "chain"]), Just(vec!["payment", "transaction_id"]),
                Just(vec!["spec_version"]), Just(vec!["arkforge_signature"]),
                Just(vec!["arkforge_pubkey"]), Just(vec!["upstream_timestamp"]),
            ],
            json_value()
        )
            .prop_map(|(p, v)| ReceiptMutation::Field(p, v)),
        1 => Just(ReceiptMutation::OtherKey),
        1 => Just(ReceiptMutation::OtherAlgorithm),
        1 => Just(ReceiptMutation::Unsigned),
        1 => json_value().prop_map(ReceiptMutation::Replace),
    ]
}

/// The bound fields in chain order, as mutable strings.
fn bound(c: &mut ChainInput) -> Vec<&mut String> {
    let mut v = vec![
        &mut c.request_hash,
        &mut c.response_hash,
        &mut c.transaction_id,
        &mut c.timestamp,
        &mut c.buyer_fingerprint,
        &mut c.seller,
    ];
    if let Some(u) = c.upstream_timestamp.as_mut() {
        v.push(u);
    }
    if let Some(r) = c.receipt_content_hash.as_mut() {
        v.push(r);
    }
    v
}

fn receipt_json(c: &ChainInput, spec: &str, chain: &str, key: Option<&SigningKey>) -> Value {
    let mut p = json!({
        "proof_id": "prf_fuzz", "spec_version": spec, "timestamp": c.timestamp,
        "hashes": {"request": format!("sha256:{}", c.request_hash),
                   "response": format!("sha256:{}", c.response_hash),
                   "chain": format!("sha256:{chain}")},
        "parties": {"buyer_fingerprint": c.buyer_fingerprint, "seller": c.seller},
        "payment": {"transaction_id": c.transaction_id},
    });
    if let Some(u) = &c.upstream_timestamp {
        p["upstream_timestamp"] = json!(u);
    }
    if let Some(r) = &c.receipt_content_hash {
        p["payment_evidence"] = json!({"receipt_content_hash": format!("sha256:{r}")});
    }
    if let Some(k) = key {
        p["arkforge_signature"] = json!(format!(
            "ed25519:{}",
            URL_NP.encode(k.sign(chain.as_bytes()).to_bytes())
        ));
        p["arkforge_pubkey"] = json!(format!(
            "ed25519:{}",
            URL_NP.encode(k.verifying_key().as_bytes())
        ));
    }
    p
}

proptest! {
    #![proptest_config(config(3000))]

    /// Receipt verification: no panic on any input; an honest receipt verifies (under the
    /// pinned key, or only the embedded one); nothing else does, and a legacy receipt whose
    /// characters moved between fields never does.
    #[test]
    fn fuzz_receipt_verification(
        fields in receipt_fields(),
        spec in prop_oneof![Just("1.1"), Just("2.0"), Just("1.2"), Just("2.1"), Just("3.0")],
        m in receipt_mutation(),
        pin in any::<bool>(),
    ) {
        let issuer = key(11);
        let alg = receipt::algorithm_for(Some(spec)).ok();
        let honest_chain = alg.map(|a| receipt::chain_hash(&fields, a).unwrap());
        let mut c = fields.clone();
        let mut signer = Some(issuer.clone());
        let mut chain = honest_chain.clone().unwrap_or_else(|| "0".repeat(64));
        let mut must_verify = alg.is_some();
        let mut doc = None;
        match &m {
            ReceiptMutation::None => {}
            ReceiptMutation::Move(f, n, back) => {
                let mut parts = bound(&mut c);
                let i = f % (parts.len() - 1);
                let (a, b) = parts.split_at_mut(i + 1);
                let (from, to) = (&mut *a[i], &mut *b[0]);
                let moved = if *back {
                    let k = (*n).min(to.len());
                    let head: String = to.drain(..k).collect();
                    from.push_str(&head);
                    k
                } else {
                    let k = (*n).min(from.len());
                    let tail = from.split_off(from.len() - k);
                    to.insert_str(0, &tail);
                    k
                };
                // The concatenation is the same, so is the legacy chain.
                if alg == Some(ChainAlgorithm::Legacy) {
                    prop_assert_eq!(
                        receipt::chain_hash(&c, ChainAlgorithm::Legacy).ok(),
                        honest_chain.clone()
                    );
                }
                must_verify &= moved == 0;
            }
            ReceiptMutation::Field(path, v) => {
                let mut r = receipt_json(&c, spec, &chain, Some(&issuer));
                let slot = path.iter().fold(&mut r, |cur, k| &mut cur[*k]);
                if *slot != *v {
                    *slot = v.clone();
                    must_verify &= match path[..] {
                        // Another spec_version selecting the same algorithm changes nothing.
                        // (null is absent: the legacy chain.)
                        ["spec_version"] => match v {
                            Value::Null => receipt::algorithm_for(None).ok() == alg,
                            Value::String(x) => receipt::algorithm_for(Some(x)).ok() == alg,
                            _ => false,
                        },
                        // With a pinned key, the embedded one is not used.
                        ["arkforge_pubkey"] => pin,
                        _ => false,
                    };
                }
                doc = Some(r);
            }
            ReceiptMutation::OtherKey => {
                signer = Some(key(12));
                must_verify &= !pin;
            }
            ReceiptMutation::OtherAlgorithm => {
                if let Some(a) = alg {
                    chain = receipt::chain_hash(&fields, a.other()).unwrap();
                    must_verify = false;
                }
            }
            ReceiptMutation::Unsigned => {
                signer = None;
                must_verify = false;
            }
            ReceiptMutation::Replace(v) => {
                doc = Some(v.clone());
                must_verify = false;
            }
        }
        let doc = doc.unwrap_or_else(|| receipt_json(&c, spec, &chain, signer.as_ref()));
        let pinned = [issuer.verifying_key()];
        let opts = Options {
            pinned: if pin { &pinned } else { &[] },
            ..Options::default()
        };
        let r = receipt::verify(&doc, &opts);
        prop_assert_eq!(r.valid(), must_verify, "{:?}\n{:#?}", m, r.steps);
        if r.valid() {
            prop_assert_eq!(
                r.signed_by,
                if pin { SignedBy::PinnedKey } else { SignedBy::EmbeddedKey }
            );
            let input = receipt::chain_input(&doc).unwrap();
            if r.algorithm == Some(ChainAlgorithm::Legacy) {
                prop_assert!(receipt::field_problems(&input).is_empty());
                prop_assert!(r.warnings.iter().any(|w| w.contains("not separable")));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// record: framing and pairing

/// One step of a scripted exchange.
#[derive(Debug, Clone)]
enum Step {
    /// The client sends a `tools/call` with id `ids[i % ids.len()]` (reuse is likely).
    Call(usize),
    /// The client sends a notification.
    Notify,
    /// The client sends a line that is not JSON-RPC.
    Garbage(Vec<u8>),
    /// The server answers the `i`-th request it has not answered yet.
    Answer(usize),
    /// The server sends one of its own requests (ids collide with the client's).
    ServerRequest(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => any::<usize>().prop_map(Step::Call),
        1 => Just(Step::Notify),
        1 => proptest::collection::vec(
            prop_oneof![Just(b'{'), Just(b'"'), Just(b'['), Just(b'\\'), any::<u8>()], 0..24
        ).prop_map(Step::Garbage),
        4 => any::<usize>().prop_map(Step::Answer),
        1 => any::<usize>().prop_map(Step::ServerRequest),
    ]
}

fn ids() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(
        prop_oneof![
            (0u32..5).prop_map(|n| n.to_string()),
            "[a-c]{1,2}".prop_map(|s| format!("\"{s}\"")),
            Just("\"provscope-record:0\"".to_owned()),
            Just("\"\\u001b]0;x\\u0007\"".to_owned()),
        ],
        1..4,
    )
}

/// Feeds `bytes` to the core in pieces cut at `cuts`; the forwarded bytes.
fn feed_cut(core: &mut Core<Vec<u8>>, dir: Dir, at: Instant, bytes: &[u8], cut: usize) -> Vec<u8> {
    let c = if bytes.is_empty() {
        0
    } else {
        cut % bytes.len()
    };
    let mut out = core.feed(dir, at, &bytes[..c]);
    out.extend(core.feed(dir, at, &bytes[c..]));
    out
}

fn record_config() -> RecordConfig {
    RecordConfig {
        session_id: "sess-fuzz".into(),
        server: "fz".into(),
        tier: provscope::model::Tier::T1,
        ttl_seconds: 60,
        attestor: Attestor {
            id: "fuzz".into(),
            key: key(21),
        },
        max_message_bytes: 1 << 16,
        title: None,
        write_header: true,
        used_call_ids: HashSet::new(),
    }
}

proptest! {
    #![proptest_config(config(2000))]

    /// `record`'s framing and pairing against a scripted client and server, with ids reused in
    /// flight, answers in any order, notifications, garbage and server requests, each line cut
    /// at a random point: no panic; the client's bytes reach the server unchanged but for the
    /// id of a request reusing an id in flight; the client gets every answer with its own id;
    /// and every recorded call is sealed with the answer to its own request.
    #[test]
    fn fuzz_record_framing_and_pairing(
        ids in ids(),
        steps in proptest::collection::vec((step(), any::<usize>()), 1..24),
    ) {
        let t0 = Instant::now();
        let clock = Clock::anchored(Timestamp::parse("2026-10-02T14:00:00Z").unwrap(), t0);
        let mut core = Core::new(record_config(), clock, Vec::new());
        // The server's view: requests it received and has not answered, (id as it saw it, tag).
        let mut server_pending: Vec<(Value, u64)> = Vec::new();
        // The client's view: its requests in flight per id text, and answers received.
        let mut client_sent: HashMap<String, Vec<u64>> = HashMap::new();
        let mut answered = 0usize;
        let mut tag = 0u64;
        for (n, (s, cut)) in steps.iter().enumerate() {
            let at = t0 + Duration::from_millis(n as u64);
            match s {
                Step::Call(i) => {
                    let id = &ids[i % ids.len()];
                    tag += 1;
                    let line = format!(
                        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"t\",\"arguments\":{{\"tag\":{tag}}}}}}}\n"
                    );
                    let got = feed_cut(&mut core, Dir::ToServer, at, line.as_bytes(), *cut);
                    // Forwarded whole; only the id may differ (an alias).
                    let v: Value = serde_json::from_slice(&got).unwrap();
                    let sent: Value = serde_json::from_str(line.trim()).unwrap();
                    let mut same = v.clone();
                    same["id"] = sent["id"].clone();
                    prop_assert_eq!(&same, &sent);
                    if v["id"] != sent["id"] {
                        prop_assert!(v["id"].as_str().is_some_and(|a| a.starts_with("provscope-record:")));
                    }
                    // Every id the server has in flight is unique.
                    prop_assert!(server_pending.iter().all(|(pid, _)| *pid != v["id"]), "{}", v["id"]);
                    server_pending.push((v["id"].clone(), tag));
                    client_sent.entry(sent["id"].to_string()).or_default().push(tag);
                }
                Step::Notify => {
                    let line = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n";
                    let got = feed_cut(&mut core, Dir::ToServer, at, line, *cut);
                    prop_assert_eq!(&got[..], &line[..]);
                }
                Step::Garbage(g) => {
                    let mut line = g.clone();
                    line.retain(|&b| b != b'\n');
                    line.push(b'\n');
                    let got = feed_cut(&mut core, Dir::ToServer, at, &line, *cut);
                    // Not a request: unchanged.
                    prop_assume!(!provscope::record::framing::messages(&line).iter().any(|m| m.method.is_some() && m.id.is_some()));
                    prop_assert_eq!(got, line);
                }
                Step::Answer(i) => {
                    if server_pending.is_empty() {
                        continue;
                    }
                    let (id, t) = server_pending.remove(i % server_pending.len());
                    let line = format!(
                        "{}\n",
                        json!({"jsonrpc": "2.0", "id": id,
                               "result": {"content": [{"type": "text", "text": format!("answer {t}")}]}})
                    );
                    let got = feed_cut(&mut core, Dir::ToClient, at, line.as_bytes(), *cut);
                    let v: Value = serde_json::from_slice(&got).unwrap();
                    // The client gets the answer under the id it used for that request.
                    let key = v["id"].to_string();
                    let tags = client_sent.get(&key);
                    prop_assert!(tags.is_some_and(|ts| ts.contains(&t)), "answer {} came back as {}", t, key);
                    answered += 1;
                }
                Step::ServerRequest(i) => {
                    let id = &ids[i % ids.len()];
                    let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"roots/list\"}}\n");
                    let got = feed_cut(&mut core, Dir::ToClient, at, line.as_bytes(), *cut);
                    prop_assert_eq!(got, line.into_bytes());
                }
            }
        }
        let stats = core.finish();
        prop_assert_eq!(stats.recorded as usize, answered);
        // Every recorded call carries the answer to its own request, and verifies.
        let log = core.recorder().sink().clone();
        if answered == 0 {
            prop_assert!(log.is_empty());
            return Ok(());
        }
        let s = provscope::ingest::load_bytes("fz", "fz", &log, &Default::default());
        prop_assert!(!s.has_errors(), "{:?}", s.diagnostics);
        for c in &s.calls {
            let args: Value = serde_json::from_str(c.request.params.arguments.as_ref().unwrap().get()).unwrap();
            let r = s.result(&c.id).unwrap();
            let text = r.response.result.as_ref().unwrap().content[0].text.clone().unwrap();
            prop_assert_eq!(text, format!("answer {}", args["tag"]));
            prop_assert_eq!(r.response.id.as_text(), c.request.id.as_text());
        }
        prop_assert_eq!(envelope_findings(&s), vec![]);
    }
}
