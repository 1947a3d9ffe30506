#!/usr/bin/env python3
"""The Python baseline of `cargo bench --bench attest`: verify DSSE envelopes (one JSON object
per line) with `cryptography`'s Ed25519 (OpenSSL), one at a time, the loop a user would write.

    attest_baseline.py ENVELOPES.jsonl PUBLIC_KEY_HEX

Prints {"n": N, "full_secs": S, "sig_secs": S}: "full" parses each envelope's JSON, decodes
base64, builds the DSSE PAE and verifies; "sig" verifies pre-built (signature, PAE) pairs.
Reading the file is not timed. Needs the pinned peers: bash tests/interop/install.sh.
"""

import base64
import json
import os
import sys
import time

sys.path.insert(0, os.environ.get("PROVSCOPE_PYDEPS", os.path.join(os.path.dirname(__file__), "../.cache/pydeps")))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey  # noqa: E402


def pae(payload_type: bytes, payload: bytes) -> bytes:
    return b"DSSEv1 %d %s %d %s" % (len(payload_type), payload_type, len(payload), payload)


def main():
    path, key_hex = sys.argv[1], sys.argv[2]
    key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(key_hex))
    with open(path, "rb") as f:
        lines = [line for line in f.read().split(b"\n") if line]

    def full():
        ok = 0
        for line in lines:
            env = json.loads(line)
            payload = base64.b64decode(env["payload"])
            sig = base64.b64decode(env["signatures"][0]["sig"])
            key.verify(sig, pae(env["payloadType"].encode(), payload))
            ok += 1
        return ok

    pairs = []
    for line in lines:
        env = json.loads(line)
        pairs.append((base64.b64decode(env["signatures"][0]["sig"]),
                      pae(env["payloadType"].encode(), base64.b64decode(env["payload"]))))

    def sig_only():
        ok = 0
        for sig, msg in pairs:
            key.verify(sig, msg)
            ok += 1
        return ok

    def best(f, runs=2):
        b = float("inf")
        for _ in range(runs):
            t = time.perf_counter()
            assert f() == len(lines)
            b = min(b, time.perf_counter() - t)
        return b

    print(json.dumps({"n": len(lines), "full_secs": best(full), "sig_secs": best(sig_only)}))


if __name__ == "__main__":
    main()
