#!/usr/bin/env bash
# CI step: build the MCP Bundle with the official CLI (@anthropic-ai/mcpb, from npm, pinned in
# tests/e2e/package.json): validate the manifest, pack build/mcpb/fabric-broker-<version>.mcpb,
# print its info, then start the broker through the unpacked bundle (tests/e2e/mcpb.test.mjs).
# Runs after `scripts/dev.sh test` (which built build/$FB_PRESET and ran `npm ci` in tests/e2e).
set -euo pipefail
cd "$(dirname "$0")/../.."
e2e=tests/e2e
if [ ! -f "$e2e/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js" ]; then
  echo "== npm ci in $e2e"
  (cd "$e2e" && npm ci --no-audit --no-fund --loglevel=error)
fi
bash packaging/mcpb/build.sh build/mcpb
export FB_BROKER_BIN="${FB_BROKER_BIN:-$PWD/build/${FB_PRESET:-ci}/src/app/fabric-broker}"
(cd "$e2e" && node --test --test-reporter=spec mcpb.test.mjs)
