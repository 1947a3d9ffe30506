#!/usr/bin/env python3
"""The script a user would write instead of provscope: json + hashlib, checking only that each
stamp's call exists (dangling), that the cited result is within its TTL (stale) and that the span
is within the block (range). Used by `cargo bench --bench load` as the speed baseline."""
import hashlib
import json
import os
import sys
from datetime import datetime


def ts(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def check(path):
    results, findings = {}, 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            kind = ev.get("event")
            if kind == "tool_call":
                args = ev["request"]["params"].get("arguments", {})
                hashlib.sha256(json.dumps(args, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
            elif kind == "tool_result":
                results[ev["tag"]["call_id"]] = ev
            elif kind == "answer":
                gen = ts(ev["generated_at"])
                for c in ev.get("claims", []):
                    o = c.get("origin")
                    if not o:
                        continue
                    r = results.get(o["tool_call_id"])
                    if r is None:
                        findings += 1
                        continue
                    tag = r["tag"]
                    if gen > ts(tag["fetched_at"]) + (tag.get("ttl_seconds") or 3600):
                        findings += 1
                    sp = c.get("span") or {}
                    blocks = r["response"].get("result", {}).get("content", [])
                    b = sp.get("block", 0)
                    if b >= len(blocks) or sp.get("end", 0) > len(blocks[b].get("text", "")):
                        findings += 1
    return findings


def main():
    total = 0
    for root, _, names in os.walk(sys.argv[1]):
        for n in sorted(names):
            if n.endswith(".jsonl"):
                total += check(os.path.join(root, n))
    print(total)


if __name__ == "__main__":
    main()
