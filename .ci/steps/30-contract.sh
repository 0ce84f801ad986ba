#!/usr/bin/env bash
# CI step: the contract tests. Every change-spec fixture's compiled dry-run request (and the real
# broker's own dry runs) go to a validating Prism mock of Equinix's Fabric v4 OpenAPI document;
# any request violation fails. Beside it, the example walk: every request example of the spec,
# mapped onto the sandbox estate, must be accepted by the sandbox, by Prism and by the broker
# (or be listed in src/sandbox/CONTRACT.md with its reason), with 0 disagreements. And the read
# operations: every row of the read-operation table, answered by the sandbox, matches the spec's
# response for that operation (or is listed in CONTRACT.md with its reason). Skips with a
# message when the spec (../shared, or FB_SHARED_DIR) is absent. Runs after `scripts/dev.sh
# test` (build/$FB_PRESET, CI: build/asan, and `npm ci` done).
set -euo pipefail
cd "$(dirname "$0")/../.."
export CI="${CI:-true}"
e2e=tests/e2e
if [ ! -f "$e2e/node_modules/@stoplight/prism-cli/dist/index.js" ] \
  || [ ! -d "$e2e/node_modules/@modelcontextprotocol/sdk" ]; then
  echo "== npm ci in $e2e"
  (cd "$e2e" && npm ci --no-audit --no-fund --loglevel=error)
fi
export FB_BUILD_DIR="${FB_BUILD_DIR:-build/${FB_PRESET:-ci}}"
export FB_BROKER_BIN="${FB_BROKER_BIN:-$PWD/$FB_BUILD_DIR/src/app/fabric-broker}"
start=$(date +%s)
(cd "$e2e" && node --test --test-reporter=spec --test-concurrency=1 contract/prism.test.mjs \
  contract/examples.test.mjs contract/readops.test.mjs)
echo "== contract: $(( $(date +%s) - start )) s"
