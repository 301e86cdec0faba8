#!/usr/bin/env bash
# Installs the third-party MCP test servers into target/mcp-servers/ (project-local, under the git-ignored /target)
# and runs the wenshu-mcp interoperability tests against them:
#   - @modelcontextprotocol/server-everything (npm; stdio and streamable HTTP)
#   - mcp-server-time (PyPI; stdio), in a virtual environment
# Needs node/npm and python3 (with venv). Set MCP_SERVERS_DIR to install elsewhere.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${MCP_SERVERS_DIR:-$root/target/mcp-servers}"
mkdir -p "$dir"

everything="$dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if [[ ! -f "$everything" ]]; then
  npm install --no-audit --no-fund --prefix "$dir" @modelcontextprotocol/server-everything >&2
fi

time_cmd="$dir/venv/bin/mcp-server-time"
if [[ ! -x "$time_cmd" ]]; then
  python3 -m venv "$dir/venv"
  "$dir/venv/bin/pip" install --quiet mcp-server-time >&2
fi

export WENSHU_MCP_EVERYTHING="$everything"
export WENSHU_MCP_TIME="$time_cmd"
if [[ "${1:-}" == "--env" ]]; then
  # Install only, and print the variables for `eval "$(scripts/mcp-interop.sh --env)"`.
  printf 'export WENSHU_MCP_EVERYTHING=%q\nexport WENSHU_MCP_TIME=%q\n' "$everything" "$time_cmd"
  exit 0
fi
cd "$root"
cargo test -p wenshu-mcp --test interop -- --test-threads=2 "$@"
