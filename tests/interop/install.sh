#!/usr/bin/env bash
# Installs the interop peers (pinned) into .cache/, which git ignores. Idempotent and quiet when
# everything is already there. Used by .ci/run and by tests that need the peers.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/tests/interop"
cache="$root/.cache"
stamp_py="$cache/pydeps/.installed-$(sha256sum "$here/requirements.txt" | cut -c1-16)"
if [ ! -f "$stamp_py" ]; then
  rm -rf "$cache/pydeps"
  python3 -m pip install --quiet --disable-pip-version-check --target "$cache/pydeps" -r "$here/requirements.txt"
  touch "$stamp_py"
fi
stamp_npm="$cache/npm/.installed-$(cat "$here/package-lock.json" | sha256sum | cut -c1-16)"
if [ ! -f "$stamp_npm" ]; then
  rm -rf "$cache/npm"
  mkdir -p "$cache/npm"
  cp "$here/package.json" "$here/package-lock.json" "$here/.npmrc" "$cache/npm/"
  npm ci --prefix "$cache/npm" --legacy-peer-deps --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
  touch "$stamp_npm"
fi
#
# MCP interop (tests/it/record_interop.rs): the official Python SDK `mcp` (pinned with its
# dependencies in requirements.txt) as client; @modelcontextprotocol/server-everything and
# @modelcontextprotocol/server-memory 2026.8.31 (package.json + package-lock.json) as servers,
# run with `node .cache/npm/node_modules/@modelcontextprotocol/<server>/dist/index.js`.
