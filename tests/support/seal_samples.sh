#!/usr/bin/env bash
# Seals the three calls of sample 09 with the committed TEST key tests/support/sample-attestor.key
# (not a secret: it exists only to sign the bundled samples) and writes the envelope event lines
# to tests/support/sample-envelopes.jsonl; tests/support/make_samples.py splices them into
# sample-sessions/09-result-tampered.jsonl. req_902 is sealed over the ORIGINAL result
# (tests/support/tampered-originals.json), so verify reports result_tampered for it.
#
#   python3 tests/support/make_samples.py && bash tests/support/seal_samples.sh \
#     && python3 tests/support/make_samples.py
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
log=sample-sessions/09-result-tampered.jsonl
key=tests/support/sample-attestor.key
original="$(mktemp)"
trap 'rm -f "$original"' EXIT
python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1], encoding="utf-8"))["req_902"], ensure_ascii=False))' \
  tests/support/tampered-originals.json > "$original"
seal() { cargo run --quiet -- envelope seal --key "$key" --session "$log" --attestor-id "sample-attestor (TEST KEY)" "$@"; }
{
  seal --call req_901
  seal --call req_902 --result "$original"
  seal --call req_903
} > tests/support/sample-envelopes.jsonl
echo "wrote tests/support/sample-envelopes.jsonl"
