#!/usr/bin/env bash
# The wenshu browser test: `tests/browser/run.sh PORT` (or WENSHU_URL=http://host:port tests/browser/run.sh).
# Expects `wenshu demo` to be serving (run.mjs waits for /healthz). Installs Debian's chromium when it is missing,
# installs playwright-core from package-lock.json (no browser download), then runs run.mjs.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [[ $# -ge 1 && -n "$1" ]]; then
  export WENSHU_URL="http://127.0.0.1:$1"
fi
export WENSHU_URL="${WENSHU_URL:-http://127.0.0.1:8080}"
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"

if [[ ! -x "$CHROMIUM" ]]; then
  echo "browser test: $CHROMIUM is missing; installing Debian's chromium" >&2
  sudo_cmd=()
  if [[ "$(id -u)" -ne 0 ]]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq chromium >/dev/null
fi
[[ -x "$CHROMIUM" ]] || { echo "browser test: no Chromium at $CHROMIUM" >&2; exit 1; }

# A Chinese font, so that the screenshots are readable (the checks themselves do not need it).
if command -v fc-list >/dev/null && [[ -z "$(fc-list :lang=zh 2>/dev/null | head -1)" ]]; then
  echo "browser test: no Chinese font; installing fonts-wqy-microhei for readable screenshots" >&2
  sudo_cmd=()
  if [[ "$(id -u)" -ne 0 ]]; then sudo_cmd=(sudo); fi
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq fonts-wqy-microhei >/dev/null \
    || echo "browser test: could not install a Chinese font (screenshots will show boxes)" >&2
fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "browser test: node and npm are needed (Node 20 or later)" >&2
  exit 1
fi

cd "$here"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if [[ ! -f node_modules/playwright-core/package.json ]] \
  || ! cmp -s package-lock.json node_modules/.package-lock.json.ci 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.package-lock.json.ci
fi

exec node run.mjs
