"""Validates an OTLP/JSON trace request against the OTLP protobuf schema.

Usage: validate_otlp.py FILE.json

Parses FILE with google.protobuf.json_format into the official
opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest (strict: an unknown field, a
wrong type or an unknown enum value is an error), then checks what the OTLP/JSON encoding adds
to the proto3 JSON mapping: traceId / spanId / parentSpanId are lowercase hex of 16 / 8 bytes
(not base64). Prints a JSON summary of what it parsed (spans with their attributes and events)
for the Rust test to compare field by field. Exit 1 with a message on any violation.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.environ.get("PROVSCOPE_PYDEPS", ".cache/pydeps"))

from google.protobuf import json_format  # noqa: E402
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (  # noqa: E402
    ExportTraceServiceRequest,
)

HEX = {"traceId": 32, "spanId": 16, "parentSpanId": 16}


def fail(msg):
    print(f"validate_otlp: {msg}", file=sys.stderr)
    sys.exit(1)


def any_value(v):
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [any_value(x) for x in v.array_value.values]
    return getattr(v, kind) if kind else None


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    try:
        req = json_format.Parse(text, ExportTraceServiceRequest())
    except json_format.ParseError as e:
        fail(f"not a valid ExportTraceServiceRequest: {e}")
    raw = json.loads(text)
    for rs in raw.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for sp in ss.get("spans", []):
                for field, n in HEX.items():
                    v = sp.get(field, "")
                    if field == "parentSpanId" and v == "":
                        continue
                    if not re.fullmatch(f"[0-9a-f]{{{n}}}", v):
                        fail(f"span {sp.get('name')!r}: {field} {v!r} is not {n} hex digits")
    spans = []
    for rs in req.resource_spans:
        resource = {kv.key: any_value(kv.value) for kv in rs.resource.attributes}
        for ss in rs.scope_spans:
            for sp in ss.spans:
                spans.append({
                    "name": sp.name,
                    "kind": sp.kind,
                    "scope": ss.scope.name,
                    "resource": resource,
                    "start": sp.start_time_unix_nano,
                    "status": sp.status.code,
                    "attributes": {kv.key: any_value(kv.value) for kv in sp.attributes},
                    "events": [
                        {"name": e.name, "attributes": {kv.key: any_value(kv.value) for kv in e.attributes}}
                        for e in sp.events
                    ],
                })
    print(json.dumps({"spans": spans}))


main()
