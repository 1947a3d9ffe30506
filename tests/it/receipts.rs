//! ArkForge proof-spec 2.1.0: the 9 published vectors (tests/vectors/, see its README) recompute
//! exactly, and `provscope receipt verify` accepts signed receipts built from them and rejects
//! altered ones.

use base64::Engine;
use ed25519_dalek::{Signer, SigningKey};
use provscope::attest::pyjson;
use provscope::attest::receipt::{
    self, algorithm_for, chain_hash, ChainAlgorithm, ChainInput, Options, SignedBy, Status,
};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

const URL: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

fn vectors() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vectors/arkforge-proof-spec-2.1.0.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// RFC 8032 TEST 1: a published test key standing in for the issuer.
fn issuer() -> SigningKey {
    let mut seed = [0u8; 32];
    hex::decode_to_slice(
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        &mut seed,
    )
    .unwrap();
    SigningKey::from_bytes(&seed)
}

fn is_canonical(v: &Value) -> bool {
    v["algorithm"] == "canonical_json"
}

fn chain_input(v: &Value) -> ChainInput {
    let i = &v["input"];
    let e = &v["expected"];
    ChainInput {
        request_hash: e["request_hash"].as_str().unwrap().into(),
        response_hash: e["response_hash"].as_str().unwrap().into(),
        transaction_id: i["payment_intent_id"].as_str().unwrap().into(),
        timestamp: i["timestamp"].as_str().unwrap().into(),
        buyer_fingerprint: e["buyer_fingerprint"].as_str().unwrap().into(),
        seller: i["seller"].as_str().unwrap().into(),
        upstream_timestamp: i["upstream_timestamp"].as_str().map(Into::into),
        receipt_content_hash: i["receipt_content_hash"].as_str().map(Into::into),
    }
}

#[test]
fn all_nine_vectors_recompute() {
    let doc = vectors();
    assert_eq!(doc["spec_version"], "2.1.0");
    let vs = doc["vectors"].as_array().unwrap();
    assert_eq!(vs.len(), 9);
    let mut canonical = 0;
    for v in vs {
        let name = v["name"].as_str().unwrap();
        let i = &v["input"];
        let e = &v["expected"];
        let req = pyjson::dumps(&i["request"]).unwrap();
        let resp = pyjson::dumps(&i["response"]).unwrap();
        assert_eq!(req, e["canonical_request"].as_str().unwrap(), "{name}");
        assert_eq!(resp, e["canonical_response"].as_str().unwrap(), "{name}");
        assert_eq!(
            receipt::body_hash(&i["request"]).unwrap(),
            e["request_hash"],
            "{name}"
        );
        assert_eq!(
            receipt::body_hash(&i["response"]).unwrap(),
            e["response_hash"],
            "{name}"
        );
        assert_eq!(
            receipt::sha256_hex(i["api_key"].as_str().unwrap().as_bytes()),
            e["buyer_fingerprint"],
            "{name}"
        );
        let c = chain_input(v);
        let alg = if is_canonical(v) {
            canonical += 1;
            assert_eq!(
                receipt::canonical_chain_data(&c).unwrap(),
                e["canonical_chain_data"].as_str().unwrap(),
                "{name}"
            );
            ChainAlgorithm::CanonicalJson
        } else {
            ChainAlgorithm::Legacy
        };
        assert_eq!(chain_hash(&c, alg).unwrap(), e["chain_hash"], "{name}");
        // The other algorithm must give a different hash.
        assert_ne!(
            chain_hash(&c, alg.other()).unwrap(),
            e["chain_hash"],
            "{name}"
        );
        if let Some(sv) = v["spec_version"].as_str() {
            assert_eq!(algorithm_for(Some(sv)).unwrap(), alg, "{name}");
        }
    }
    assert_eq!(canonical, 2, "vectors 8 and 9 use the canonical-JSON chain");
}

/// A signed proof built from a vector, as the issuer would publish it.
fn proof(v: &Value, key: &SigningKey) -> Value {
    let i = &v["input"];
    let e = &v["expected"];
    let spec = if is_canonical(v) {
        v["spec_version"].as_str().unwrap()
    } else if i.get("receipt_content_hash").is_some() {
        "2.0"
    } else {
        "1.1"
    };
    let chain = e["chain_hash"].as_str().unwrap();
    let sig = key.sign(chain.as_bytes());
    let mut p = json!({
        "proof_id": format!("prf_test_{}", v["name"].as_str().unwrap()),
        "spec_version": spec,
        "timestamp": i["timestamp"],
        "hashes": {
            "request": format!("sha256:{}", e["request_hash"].as_str().unwrap()),
            "response": format!("sha256:{}", e["response_hash"].as_str().unwrap()),
            "chain": format!("sha256:{chain}"),
        },
        "parties": {"buyer_fingerprint": e["buyer_fingerprint"], "seller": i["seller"]},
        "payment": {"provider": "stripe", "transaction_id": i["payment_intent_id"],
                    "amount": 0.5, "currency": "eur", "status": "succeeded"},
        "arkforge_signature": format!("ed25519:{}", URL.encode(sig.to_bytes())),
        "arkforge_pubkey": format!("ed25519:{}", URL.encode(key.verifying_key().as_bytes())),
    });
    if let Some(u) = i.get("upstream_timestamp") {
        p["upstream_timestamp"] = u.clone();
    }
    if let Some(r) = i["receipt_content_hash"].as_str() {
        p["payment_evidence"] =
            json!({"type": "stripe", "receipt_content_hash": format!("sha256:{r}")});
    }
    p
}

#[test]
fn signed_proofs_from_every_vector_verify_and_alterations_fail() {
    let doc = vectors();
    let key = issuer();
    let pinned = [key.verifying_key()];
    for v in doc["vectors"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        let p = proof(v, &key);
        let opts = Options {
            pinned: &pinned,
            request: Some(&v["input"]["request"]),
            response: Some(&v["input"]["response"]),
        };
        let r = receipt::verify(&p, &opts);
        assert!(r.valid(), "{name}: {:#?}", r.steps);
        assert_eq!(r.signed_by, SignedBy::PinnedKey);
        if is_canonical(v) {
            assert!(r.warnings.is_empty(), "{name}: {:?}", r.warnings);
        } else {
            assert_eq!(r.warnings.len(), 1, "{name}: {:?}", r.warnings);
            assert!(r.warnings[0].contains("not separable"), "{}", r.warnings[0]);
        }
        assert!(r.steps.iter().all(|s| s.status == Status::Ok), "{name}");
        // Each bound field altered: the chain no longer matches.
        for (path, value) in [
            (vec!["timestamp"], json!("2026-01-15T12:00:01Z")),
            (vec!["parties", "seller"], json!("evil.example")),
            (vec!["payment", "transaction_id"], json!("pi_other")),
            (vec!["parties", "buyer_fingerprint"], json!("00")),
        ] {
            let mut q = p.clone();
            let slot = path.iter().fold(&mut q, |cur, k| &mut cur[*k]);
            *slot = value;
            let r = receipt::verify(&q, &opts);
            assert!(!r.valid(), "{name}: altering {path:?} must fail");
        }
        // A different response body than the one hashed.
        let other = json!({"files_scanned": 43});
        let r = receipt::verify(
            &p,
            &Options {
                response: Some(&other),
                ..opts
            },
        );
        assert!(!r.valid(), "{name}");
        // The same chain hash claimed under the other algorithm's spec_version: a downgrade.
        let mut q = p.clone();
        q["spec_version"] = json!(if is_canonical(v) { "1.1" } else { "2.1" });
        let r = receipt::verify(&q, &opts);
        assert!(!r.valid(), "{name}");
        let chain = r.steps.iter().find(|s| s.name == "chain hash").unwrap();
        assert!(
            chain.detail.contains("requires"),
            "{name}: {}",
            chain.detail
        );
        // A signature by another key than the pinned one.
        let r = receipt::verify(&proof(v, &SigningKey::from_bytes(&[9; 32])), &opts);
        assert!(!r.valid(), "{name}");
    }
}

#[test]
fn only_the_embedded_key_is_a_warning() {
    let doc = vectors();
    let p = proof(&doc["vectors"][0], &issuer());
    let r = receipt::verify(&p, &Options::default());
    assert!(r.valid());
    assert_eq!(r.signed_by, SignedBy::EmbeddedKey);
    assert!(
        r.warnings.iter().any(|w| w.contains("embedded")),
        "{:?}",
        r.warnings
    );
    // Unsigned receipts are invalid: anyone can recompute a chain hash.
    let mut q = p.clone();
    q.as_object_mut().unwrap().remove("arkforge_signature");
    assert!(!receipt::verify(&q, &Options::default()).valid());
    // Unknown spec versions are refused, not guessed.
    let mut q = p.clone();
    q["spec_version"] = json!("3.0");
    let r = receipt::verify(&q, &Options::default());
    assert!(!r.valid());
    assert!(r.steps[0].detail.contains("not supported"));
}

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_provscope"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn receipt_verify_command() {
    let doc = vectors();
    let dir = tempfile::tempdir().unwrap();
    let key = issuer();
    let v = &doc["vectors"][8];
    let file = dir.path().join("proof.json");
    std::fs::write(&file, proof(v, &key).to_string()).unwrap();
    let req = dir.path().join("req.json");
    std::fs::write(&req, v["input"]["request"].to_string()).unwrap();
    let f = file.to_str().unwrap();
    let pinned = format!("ed25519:{}", URL.encode(key.verifying_key().as_bytes()));
    let o = run(&[
        "receipt",
        "verify",
        f,
        "--pub",
        &pinned,
        "--request",
        req.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.contains("canonical JSON") && out.contains("valid"),
        "{out}"
    );
    assert!(o.stderr.is_empty());
    // Without --pub: signed by its own embedded key, not proof of origin: exit 1, unless the
    // user accepts it with --trust-embedded-key.
    let o = run(&["receipt", "verify", f]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("signed by its own embedded key: not proof of origin"),
        "{out}"
    );
    assert!(!out.contains(": valid"), "{out}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("warning"));
    let o = run(&["receipt", "verify", f, "--trust-embedded-key"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("not proof of origin"), "{out}");
    // Altered: exit 1.
    let mut p = proof(v, &key);
    p["parties"]["seller"] = json!("evil.example");
    std::fs::write(&file, p.to_string()).unwrap();
    let o = run(&["receipt", "verify", f, "--pub", &pinned]);
    assert_eq!(o.status.code(), Some(1));
    // Unreadable, not JSON, a bad key: exit 2.
    assert_eq!(
        run(&["receipt", "verify", "/nonexistent/proof.json"])
            .status
            .code(),
        Some(2)
    );
    std::fs::write(&file, "{\"hashes\":").unwrap();
    assert_eq!(run(&["receipt", "verify", f]).status.code(), Some(2));
    let o = run(&["receipt", "verify", f, "--pub", "ed25519:AAAA"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("32 bytes"));
}

/// The hole: in a legacy (concatenated) chain, characters can move between adjacent fields and
/// the chain hash, hence the signature, stays valid. The fields are now format-checked, and
/// every legacy receipt carries a warning.
#[test]
fn legacy_receipts_with_moved_characters_are_invalid() {
    let doc = vectors();
    let key = issuer();
    let pinned = [key.verifying_key()];
    let opts = Options {
        pinned: &pinned,
        ..Options::default()
    };
    let with_upstream = doc["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "with_upstream_timestamp")
        .unwrap();
    // (vector, field a at its path, new a, field b at the top level, new b)
    let cases: [(&Value, [&str; 2], &str, &str, &str); 2] = [
        (
            &doc["vectors"][0],
            ["payment", "transaction_id"],
            "pi_test_abc1232",
            "timestamp",
            "026-01-15T12:00:00Z",
        ),
        (
            with_upstream,
            ["parties", "seller"],
            "arkforge.frW",
            "upstream_timestamp",
            "ed, 15 Jan 2026 12:00:01 GMT",
        ),
    ];
    for (v, [obj, a], va, b, vb) in cases {
        let p = proof(v, &key);
        assert!(receipt::verify(&p, &opts).valid());
        let mut q = p.clone();
        q[obj][a] = json!(va);
        q[b] = json!(vb);
        // Same concatenation, so the same chain hash and a valid signature ...
        let c = receipt::chain_input(&q).unwrap();
        assert_eq!(
            chain_hash(&c, ChainAlgorithm::Legacy).unwrap(),
            v["expected"]["chain_hash"].as_str().unwrap()
        );
        // ... but a field out of its format: invalid.
        let r = receipt::verify(&q, &opts);
        assert!(!r.valid(), "{:#?}", r.steps);
        let fields = r.steps.iter().find(|s| s.name == "fields").unwrap();
        assert_eq!(fields.status, Status::Failed, "{}", fields.detail);
    }
    // A spec_version that is not a string is not "absent" (found by fuzz_receipt_verification).
    let mut q = proof(&doc["vectors"][0], &key);
    q["spec_version"] = json!([]);
    let r = receipt::verify(&q, &opts);
    assert!(!r.valid());
    assert!(r.steps[0].detail.contains("spec_version"), "{:?}", r.steps);
    // Field formats: each of these alone is a format problem.
    let p = proof(&doc["vectors"][0], &key);
    for (path, bad) in [
        (vec!["parties", "seller"], json!("not a domain")),
        (vec!["parties", "buyer_fingerprint"], json!("ABC")),
        (vec!["hashes", "request"], json!("sha256:1234")),
        (vec!["timestamp"], json!("15/01/2026")),
        (vec!["payment", "transaction_id"], json!("pi 1")),
    ] {
        let mut q = p.clone();
        let slot = path.iter().fold(&mut q, |cur, k| &mut cur[*k]);
        *slot = bad;
        let c = receipt::chain_input(&q).unwrap();
        assert!(
            !receipt::field_problems(&c).is_empty(),
            "{path:?} should be a format problem"
        );
    }
}

/// The hole: `receipt verify` printed `proof_id` and other receipt fields raw, so a forged
/// receipt could draw a fake verdict line, set the terminal title or write the clipboard.
#[test]
fn receipt_fields_never_reach_the_terminal_raw() {
    let doc = vectors();
    let dir = tempfile::tempdir().unwrap();
    let key = issuer();
    let mut p = proof(&doc["vectors"][8], &key);
    p["proof_id"] =
        json!("prf\u{1b}]0;pwned\u{7}\u{1b}]52;c;cm0gLXJmIH4=\u{7}\n/tmp/x: valid\u{9b}2J\u{202e}");
    p["spec_version"] = json!("2.1\u{1b}[2K");
    p["hashes"]["chain"] = json!("sha256:\u{1b}[31mforged");
    let file = dir.path().join("proof.json");
    std::fs::write(&file, p.to_string()).unwrap();
    let pinned = format!("ed25519:{}", URL.encode(key.verifying_key().as_bytes()));
    for args in [
        vec![
            "receipt",
            "verify",
            file.to_str().unwrap(),
            "--pub",
            &pinned,
        ],
        vec!["receipt", "verify", file.to_str().unwrap()],
    ] {
        let o = run(&args);
        for (what, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            assert!(
                !text.chars().any(|c| c.is_control() && c != '\n'),
                "{what} carries a control character: {text:?}"
            );
            assert!(!text.contains('\u{202e}'), "{what}: {text:?}");
            assert!(
                !text.lines().any(|l| l.starts_with("/tmp/x")),
                "{what} has a forged line: {text}"
            );
        }
    }
}
