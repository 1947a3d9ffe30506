#!/usr/bin/env python3
"""Writes tests/vectors/envelope-v2.json and envelope-v1.json: test vectors for provscope
execution envelopes (docs/envelope-format.md; predicate v2, and the older v1 that provscope still
verifies), computed independently of the Rust code.

    PYTHONPATH=.cache/pydeps python3 tests/vectors/make_vectors.py   # needs `cryptography`

Canonical JSON here is json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False),
which equals RFC 8785 for the values used below (strings, integers, booleans, no floats, keys in
the Basic Multilingual Plane); the script asserts that no float appears. The signing key is the
RFC 8032 section 7.1 TEST 1 key: a published test key, never a secret. Ed25519 is deterministic,
so the signatures are reproducible bit for bit.
"""

import base64
import hashlib
import json
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives import serialization

HERE = Path(__file__).resolve().parent
SEED_HEX = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"  # RFC 8032 TEST 1
PAYLOAD_TYPE = "application/vnd.in-toto+json"


def no_floats(v):
    if isinstance(v, float):
        raise AssertionError("floats are not allowed in the vectors")
    if isinstance(v, dict):
        for x in v.values():
            no_floats(x)
    if isinstance(v, list):
        for x in v:
            no_floats(x)


def jcs(v):
    no_floats(v)
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def pae(payload_type, payload):
    t = payload_type.encode("utf-8")
    return b"DSSEv1 %d %b %d %b" % (len(t), t, len(payload), payload)


key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(SEED_HEX))
pub = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
PUB_COMPACT = "ed25519:" + base64.b64encode(pub).decode()
KEYID = hashlib.sha256(pub).hexdigest()

CASES = [
    {
        "name": "text_and_structured_result",
        "session_id": "sess_vectors_0001",
        "call_id": "req_42",
        "server": "pricing.internal",
        "tool": "get_plan_price",
        "arguments": {"plan": "team", "currency": "EUR", "seats": 3},
        "called_at": "2026-10-02T14:00:01.250Z",
        "returned_at": "2026-10-02T14:00:01.900Z",
        # v2 only: the ingestion tag's freshness.
        "fetched_at": "2026-10-02T14:00:01.900Z",
        "ttl_seconds": 900,
        "cache": {"hit": False},
        "response": {
            "jsonrpc": "2.0",
            "id": "req_42",
            "result": {
                "content": [{"type": "text",
                             "text": "Team plan: seats cost €19 per user per month."}],
                "structuredContent": {"price": 19, "currency": "EUR"},
                "isError": False,
            },
        },
    },
    {
        "name": "jsonrpc_error_no_arguments",
        "session_id": "sess_vectors_0001",
        "call_id": "7",
        "server": "pricing.internal",
        "tool": "list_plans",
        "arguments": None,
        "called_at": "2026-10-02T14:00:05Z",
        "returned_at": "2026-10-02T14:00:05.040Z",
        # v2 only: served from a cache, no TTL in the tag (null).
        "fetched_at": "2026-10-02T14:00:05.040Z",
        "ttl_seconds": None,
        "cache": {"hit": True, "original_fetched_at": "2026-10-02T13:10:00Z"},
        "response": {
            "jsonrpc": "2.0",
            "id": 7,
            "error": {"code": -32602, "message": "Unknown plan: platinum"},
        },
    },
]


def make(version):
    vectors = []
    for c in CASES:
        args = c["arguments"] if c["arguments"] is not None else {}
        arguments_hash = sha256(jcs(args))
        call_input = jcs({"tool": c["tool"], "arguments": args, "call_id": c["call_id"],
                          "called_at": c["called_at"]})
        call_hash = sha256(call_input)
        r = c["response"]
        delivered = r["result"] if "result" in r else {"error": r["error"]}
        result_input = jcs({"result": delivered, "call_hash": call_hash})
        result_hash = sha256(result_input)
        predicate = {
            "session_id": c["session_id"],
            "call_id": c["call_id"],
            "server": c["server"],
            "tool": c["tool"],
            "arguments_hash": arguments_hash,
            "called_at": c["called_at"],
            "returned_at": c["returned_at"],
            "call_hash": call_hash,
            "result_hash": result_hash,
            "attestor": {"id": "provscope-vectors", "key": PUB_COMPACT},
        }
        fields = ["session_id", "call_id", "server", "tool", "arguments", "called_at",
                  "returned_at", "response"]
        if version == 2:
            predicate["fetched_at"] = c["fetched_at"]
            predicate["ttl_seconds"] = c["ttl_seconds"]  # null when the tag has none
            predicate["cache"] = c["cache"]
            fields[7:7] = ["fetched_at", "ttl_seconds", "cache"]
        statement = {
            "_type": "https://in-toto.io/Statement/v1",
            "subject": [{"name": "mcp-call:" + c["call_id"], "digest": {"sha256": call_hash}}],
            "predicateType": f"https://provscope.dev/mcp-execution/v{version}",
            "predicate": predicate,
        }
        payload = jcs(statement).encode("utf-8")
        signed = pae(PAYLOAD_TYPE, payload)
        sig = key.sign(signed)
        envelope = {
            "payload": base64.b64encode(payload).decode(),
            "payloadType": PAYLOAD_TYPE,
            "signatures": [{"keyid": KEYID, "sig": base64.b64encode(sig).decode()}],
        }
        vectors.append({
            "name": c["name"],
            "input": {k: c[k] for k in fields},
            "expected": {
                "arguments_hash": arguments_hash,
                "call_hash_input": call_input,
                "call_hash": call_hash,
                "result_hash_input": result_input,
                "result_hash": result_hash,
                "payload": payload.decode("utf-8"),
                "pae_hex": signed.hex(),
                "signature_hex": sig.hex(),
                "envelope": envelope,
            },
        })
    doc = {
        "format": f"provscope execution envelope v{version} (docs/envelope-format.md)",
        "generator": "tests/vectors/make_vectors.py (Python, independent of the Rust code)",
        "key": {
            "note": "RFC 8032 section 7.1 TEST 1: a published test key, not a secret",
            "seed_hex": SEED_HEX,
            "public_hex": pub.hex(),
            "public": PUB_COMPACT,
            "keyid": KEYID,
        },
        "attestor_id": "provscope-vectors",
        "vectors": vectors,
    }
    out = HERE / f"envelope-v{version}.json"
    out.write_text(json.dumps(doc, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


make(1)
make(2)
