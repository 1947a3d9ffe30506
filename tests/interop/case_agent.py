"""A scripted agent's tool side, with the official Python MCP SDK (`mcp` on PyPI, pinned in
requirements.txt) as the client: `case_agent.py CONFIG.json CALLS.json`.

CONFIG.json is what `provscope serve CASE --client-config [--record-key K --record-dir D]`
prints (`{"mcpServers": {NAME: {"command", "args"}}}`). The script starts every server the way a
client does, lists its tools and makes the calls in CALLS.json (`[{"server", "tool",
"arguments"}]`), then prints one JSON object:

    {"servers": {NAME: {"name": serverInfo.name, "tools": {TOOL: inputSchema}}},
     "calls": [{"server", "tool", "arguments", "is_error", "text"}]}

Driven by tests/it/case_serve.rs.
"""

import json
import os
import sys

sys.path.insert(0, os.environ.get("PROVSCOPE_PYDEPS", os.path.join(os.path.dirname(__file__), "../../.cache/pydeps")))

import anyio  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402


async def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: case_agent.py CONFIG.json CALLS.json\n")
        sys.exit(2)
    with open(sys.argv[1], encoding="utf-8") as f:
        config = json.load(f)["mcpServers"]
    with open(sys.argv[2], encoding="utf-8") as f:
        calls = json.load(f)
    out = {"servers": {}, "calls": []}
    with anyio.fail_after(60):  # a hung server fails the test instead of stalling it
        await run(config, calls, out)
    print(json.dumps(out, ensure_ascii=False))


async def run(config, calls, out):
    for name, entry in config.items():
        params = StdioServerParameters(command=entry["command"], args=entry["args"])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                tools = await session.list_tools()
                out["servers"][name] = {
                    "name": init.server_info.name,
                    "tools": {t.name: t.input_schema for t in tools.tools},
                }
                for c in calls:
                    if c["server"] != name:
                        continue
                    r = await session.call_tool(c["tool"], c["arguments"])
                    out["calls"].append({
                        "server": name,
                        "tool": c["tool"],
                        "arguments": c["arguments"],
                        "is_error": bool(r.is_error),
                        "text": "".join(getattr(b, "text", "") or "" for b in r.content),
                    })


anyio.run(main)
