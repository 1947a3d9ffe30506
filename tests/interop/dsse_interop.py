#!/usr/bin/env python3
"""DSSE interop between provscope and securesystemslib (software nobody here wrote).

    python3 tests/interop/dsse_interop.py verify CASES.json
    python3 tests/interop/dsse_interop.py sign STATEMENT.json OUT.json

verify: CASES.json is a list of {"envelope": DSSE, "public_key": "ed25519:<base64>",
"keyid": str, "result": object or null}. Each envelope is parsed with
securesystemslib.dsse.Envelope.from_dict and verified with Envelope.verify([SSlibKey], 1); the
payload must be a provscope execution statement; when "result" is given, the result hash is
recomputed over {"result": result, "call_hash": predicate.call_hash} and must equal the sealed
result_hash. Prints one JSON list of {"ok": bool, "reason": str}, in order. Exit 0.

sign: signs the statement (JSON) with a fresh Ed25519 key from securesystemslib's
CryptoSigner.generate_ed25519, stating that key as the attestor, and writes
{"envelope": DSSE, "public_key": "ed25519:<base64>", "keyid": str}. Exit 0.

Canonical JSON here is json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False),
equal to RFC 8785 for the strings and integers the interop test uses (no floats).
Python deps come from $PROVSCOPE_PYDEPS, else <repo>/.cache/pydeps (tests/interop/install.sh).
Exit 2 on a set-up problem (missing dependency, unreadable file).
"""

import base64
import copy
import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYDEPS = os.environ.get("PROVSCOPE_PYDEPS") or str(ROOT / ".cache" / "pydeps")
if os.path.isdir(PYDEPS):
    sys.path.insert(0, PYDEPS)

try:
    from securesystemslib.dsse import Envelope
    from securesystemslib.signer import CryptoSigner, SSlibKey
except ImportError as e:  # pragma: no cover - set-up problem
    print(f"dsse_interop: securesystemslib is not installed ({e}); run tests/interop/install.sh",
          file=sys.stderr)
    sys.exit(2)

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPES = ("https://provscope.dev/mcp-execution/v2", "https://provscope.dev/mcp-execution/v1")


def jcs(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def raw_public(compact):
    if not compact.startswith("ed25519:"):
        raise ValueError("public key must be ed25519:<base64>")
    raw = base64.b64decode(compact[len("ed25519:"):], validate=True)
    if len(raw) != 32:
        raise ValueError("an Ed25519 public key is 32 bytes")
    return raw


def verify_case(case):
    try:
        env = Envelope.from_dict(copy.deepcopy(case["envelope"]))
    except Exception as e:  # malformed base64, missing fields, duplicate keyids
        return False, f"unparsable: {type(e).__name__}: {e}"
    if env.payload_type != PAYLOAD_TYPE:
        return False, f"payloadType {env.payload_type!r}"
    raw = raw_public(case["public_key"])
    key = SSlibKey(case["keyid"], "ed25519", "ed25519", {"public": raw.hex()})
    try:
        env.verify([key], 1)
    except Exception as e:
        return False, f"signature: {type(e).__name__}: {e}"
    try:
        st = json.loads(env.payload.decode("utf-8"))
        if st["_type"] != STATEMENT_TYPE or st["predicateType"] not in PREDICATE_TYPES:
            return False, "not an execution statement"
        p = st["predicate"]
    except Exception as e:
        return False, f"payload: {type(e).__name__}: {e}"
    if case.get("result") is not None:
        recomputed = hashlib.sha256(
            jcs({"result": case["result"], "call_hash": p["call_hash"]}).encode("utf-8")
        ).hexdigest()
        if recomputed != p["result_hash"]:
            return False, f"result hash {recomputed} != sealed {p['result_hash']}"
    return True, "valid"


def cmd_verify(path):
    cases = json.loads(Path(path).read_text(encoding="utf-8"))
    out = []
    for c in cases:
        ok, reason = verify_case(c)
        out.append({"ok": ok, "reason": reason})
    print(json.dumps(out))
    return 0


def cmd_sign(statement_path, out_path):
    st = json.loads(Path(statement_path).read_text(encoding="utf-8"))
    signer = CryptoSigner.generate_ed25519()
    raw = bytes.fromhex(signer.public_key.keyval["public"])
    compact = "ed25519:" + base64.b64encode(raw).decode()
    st["predicate"]["attestor"] = {"id": "securesystemslib-interop", "key": compact}
    env = Envelope(jcs(st).encode("utf-8"), PAYLOAD_TYPE, {})
    env.sign(signer)
    Path(out_path).write_text(json.dumps({
        "envelope": env.to_dict(),
        "public_key": compact,
        "keyid": signer.public_key.keyid,
    }), encoding="utf-8")
    return 0


def main(argv):
    if len(argv) == 2 and argv[0] == "verify":
        return cmd_verify(argv[1])
    if len(argv) == 3 and argv[0] == "sign":
        return cmd_sign(argv[1], argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
