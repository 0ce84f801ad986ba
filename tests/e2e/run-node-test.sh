#!/usr/bin/env bash
# Runs one e2e test file with Node's test runner; fails clearly when `npm ci` was not run.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d node_modules/@modelcontextprotocol/sdk ]; then
  echo "tests/e2e/node_modules is missing: run 'npm ci' in tests/e2e (scripts/dev.sh test does)" >&2
  exit 1
fi
exec node --test --test-reporter=spec "$@"
