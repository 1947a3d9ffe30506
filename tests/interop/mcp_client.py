"""The official Python MCP SDK (`mcp` on PyPI, pinned in requirements.txt) as a client.

`mcp_client.py SCENARIO -- SERVER_CMD ARGS...` connects over stdio to SERVER_CMD (in the tests:
a tee, `provscope record`, another tee, the real server), runs a scenario and prints one JSON
object describing what the client saw:

    {"tools": [names...], "calls": [{"tool", "arguments", "outcome": "result"|"error",
      "is_error", "structured", "text", "progress"}...]}

Scenarios: `everything` (@modelcontextprotocol/server-everything, `stdio` argument) and `memory`
(@modelcontextprotocol/server-memory). Driven by tests/it/record_interop.rs.
"""

import json
import os
import sys

sys.path.insert(0, os.environ.get("PROVSCOPE_PYDEPS", os.path.join(os.path.dirname(__file__), "../../.cache/pydeps")))

import anyio  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402


async def call(session, log, tool, arguments, progress=False):
    seen = []

    async def on_progress(p, total, message):
        seen.append(p)

    entry = {"tool": tool, "arguments": arguments}
    try:
        r = await session.call_tool(tool, arguments, progress_callback=on_progress if progress else None)
        entry["outcome"] = "result"
        entry["is_error"] = bool(r.is_error)
        entry["structured"] = r.structured_content
        entry["text"] = "".join(getattr(c, "text", "") or "" for c in r.content)
    except MCPError as e:
        entry["outcome"] = "error"
        entry["error"] = str(e)
    entry["progress"] = len(seen)
    log.append(entry)


async def everything(session, calls):
    await call(session, calls, "echo", {"message": "héllo from the Python SDK"})
    await call(session, calls, "get-sum", {"a": 2, "b": 40})
    await call(session, calls, "get-structured-content", {"location": "Chicago"})
    # invalid arguments: the SDK server answers with isError
    await call(session, calls, "get-structured-content", {"location": "Atlantis"})
    # no such tool
    await call(session, calls, "no-such-tool", {})
    await call(session, calls, "trigger-long-running-operation", {"duration": 1, "steps": 4}, progress=True)
    await call(session, calls, "get-annotated-message", {"messageType": "success", "includeImage": True})


async def memory(session, calls):
    await call(session, calls, "create_entities", {"entities": [
        {"name": "provscope", "entityType": "tool", "observations": ["records MCP sessions"]},
        {"name": "envelope", "entityType": "concept", "observations": ["DSSE, Ed25519"]},
    ]})
    await call(session, calls, "create_relations", {"relations": [
        {"from": "provscope", "to": "envelope", "relationType": "seals"},
    ]})
    await call(session, calls, "add_observations", {"observations": [
        {"entityName": "provscope", "contents": ["written in Rust"]},
    ]})
    # an entity that does not exist: an error
    await call(session, calls, "add_observations", {"observations": [
        {"entityName": "nobody", "contents": ["x"]},
    ]})
    await call(session, calls, "search_nodes", {"query": "provscope"})
    await call(session, calls, "open_nodes", {"names": ["provscope", "envelope"]})
    await call(session, calls, "read_graph", {})


async def main():
    argv = sys.argv[1:]
    if len(argv) < 3 or argv[1] != "--":
        sys.stderr.write("usage: mcp_client.py everything|memory -- SERVER_CMD ARGS...\n")
        sys.exit(2)
    scenario, cmd = argv[0], argv[2:]
    env = {k: v for k, v in os.environ.items() if k.startswith("MEMORY_") or k.startswith("FAKE_")}
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env or None)
    out = {"tools": [], "calls": []}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            out["tools"] = sorted(t.name for t in tools.tools)
            await {"everything": everything, "memory": memory}[scenario](session, out["calls"])
    print(json.dumps(out, ensure_ascii=False))


anyio.run(main)
