"""A scripted stand-in for an MCP stdio server, for tests/it/record.rs.

Reads newline-delimited messages on stdin and writes every byte it read to $FAKE_STDIN_LOG and
every byte it wrote to $FAKE_STDOUT_LOG (when set), so a test can compare both sides. Answers:

- `tools/call` of `echo`: a result with the arguments as text and as structuredContent;
- `tools/call` of `big`: a text block of `arguments.bytes` bytes;
- `tools/call` of `fail`: a JSON-RPC error;
- `tools/call` of `crash`: exits at once with status `arguments.status`;
- `tools/call` of `die`: kills itself with signal `arguments.signal`;
- `tools/call` of `slow`: answers after `arguments.seconds`, with progress notifications (the
  text of its answer holds its arguments);
- `tools/call` of `later`: answered (with its arguments as text) only after the next message
  has been answered, so answers go out of order;
- any other request: an empty result; notifications: nothing; a batch: a batch of answers;
- a line that is not JSON: the line `garbage-seen` plus raw bytes that are not UTF-8.

On SIGTERM or SIGINT it writes `fake: got signal N` to stderr and exits with status 40 + N.
It exits 0 at the end of its stdin.
"""

import json
import os
import signal
import sys
import time

log = open(os.environ["FAKE_STDIN_LOG"], "ab", buffering=0) if os.environ.get("FAKE_STDIN_LOG") else None
out_log = open(os.environ["FAKE_STDOUT_LOG"], "ab", buffering=0) if os.environ.get("FAKE_STDOUT_LOG") else None


class Out:
    """stdout, copying every byte written to $FAKE_STDOUT_LOG (when set)."""

    def write(self, b):
        if out_log:
            out_log.write(b)
        sys.stdout.buffer.write(b)

    def flush(self):
        sys.stdout.buffer.flush()


out = Out()


def on_signal(n, _frame):
    sys.stderr.write(f"fake: got signal {n}\n")
    sys.stderr.flush()
    os._exit(40 + n)


signal.signal(signal.SIGTERM, on_signal)
signal.signal(signal.SIGINT, on_signal)


def write(obj):
    out.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
    out.flush()


deferred = []


def answer(msg):
    if not isinstance(msg, dict) or "method" not in msg or "id" not in msg:
        return None
    rid = msg["id"]
    if msg["method"] != "tools/call":
        return {"jsonrpc": "2.0", "id": rid, "result": {}}
    params = msg.get("params") or {}
    name = params.get("name")
    args = params.get("arguments") or {}
    if name == "echo":
        return {"jsonrpc": "2.0", "id": rid, "result": {
            "content": [{"type": "text", "text": json.dumps(args, ensure_ascii=False)}],
            "structuredContent": args}}
    if name == "big":
        return {"jsonrpc": "2.0", "id": rid, "result": {
            "content": [{"type": "text", "text": "é" * (int(args.get("bytes", 10)) // 2)}]}}
    if name == "fail":
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no such tool"}}
    if name == "crash":
        sys.stderr.write("fake: crashing\n")
        sys.stderr.flush()
        os._exit(int(args.get("status", 3)))
    if name == "die":
        os.kill(os.getpid(), int(args.get("signal", 9)))
        time.sleep(5)
    if name == "slow":
        token = (params.get("_meta") or {}).get("progressToken")
        steps = 3
        for i in range(steps):
            time.sleep(float(args.get("seconds", 0.3)) / steps)
            if token is not None:
                write({"jsonrpc": "2.0", "method": "notifications/progress",
                       "params": {"progressToken": token, "progress": i + 1, "total": steps}})
        return {"jsonrpc": "2.0", "id": rid, "result": {"content": [
            {"type": "text", "text": "done " + json.dumps(args, ensure_ascii=False)}]}}
    if name == "later":
        deferred.append({"jsonrpc": "2.0", "id": rid, "result": {"content": [
            {"type": "text", "text": "later " + json.dumps(args, ensure_ascii=False)}]}})
        return None
    return {"jsonrpc": "2.0", "id": rid, "result": {"content": [], "isError": True}}


for line in sys.stdin.buffer:
    if log:
        log.write(line)
    try:
        msg = json.loads(line)
    except ValueError:
        out.write(b"garbage-seen \xff\xfe\n")
        out.flush()
        continue
    if isinstance(msg, list):
        answers = [a for a in (answer(m) for m in msg) if a is not None]
        if answers:
            out.write(json.dumps(answers, separators=(",", ":")).encode() + b"\n")
            out.flush()
        continue
    held = list(deferred)
    deferred.clear()
    a = answer(msg)
    if a is not None:
        write(a)
    for d in held:
        write(d)
sys.exit(0)
