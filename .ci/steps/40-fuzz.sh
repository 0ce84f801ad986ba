#!/usr/bin/env bash
# CI step: libFuzzer. Configures build/fuzz with clang (FB_FUZZ=ON: libraries get
# -fsanitize=fuzzer-no-link,address,undefined, targets -fsanitize=fuzzer), builds the fuzzers,
# replays tests/fuzz/regressions/, then runs each target for a bounded time on its seed corpus.
# Any crash, sanitizer report, leak, timeout (-timeout) or RSS overrun (-rss_limit_mb) fails.
# FB_FUZZ_SECONDS (default 60) sets the time per target.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
seconds="${FB_FUZZ_SECONDS:-60}"
jobs="${FB_JOBS:-$(nproc)}"
build=build/fuzz

# clang + compiler-rt + libFuzzer (Debian 12); same policy as scripts/dev.sh.
if [ "${FB_SKIP_DEPS:-0}" != 1 ]; then
  missing=()
  for p in clang libclang-rt-14-dev libfuzzer-14-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi

start=$(date +%s)
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFB_FUZZ=ON -DFB_BUILD_GUI=OFF -DFB_BUILD_BENCH=OFF -DFB_PCH=OFF >/dev/null
cmake --build "$build" --target fb_fuzzers -j"$jobs"
built=$(date +%s)

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"
export QT_LOGGING_RULES="*=false"

targets=(mcp_session changespec canonical fabric_parsing)
# A fixed seed and a fixed number of runs per target make the CI fuzz pass repeatable: the same
# binary explores the same inputs, so CI turns red for a change, not for luck. Longer, seeded
# differently: FB_FUZZ_SEED=$RANDOM FB_FUZZ_SECONDS=600 FB_FUZZ_RUNS_SCALE=100 bash .ci/steps/40-fuzz.sh
seed="${FB_FUZZ_SEED:-1}"
scale="${FB_FUZZ_RUNS_SCALE:-1}"
declare -A runs=([mcp_session]=12000 [changespec]=150000 [canonical]=1000000 [fabric_parsing]=1000000)
mkdir -p "$build/artifacts"
status=0
# One target: its regressions, then its seeded run. Prints into $build/fuzz_$t.out; exits 1 on a
# finding. Targets run $jobs at a time (each libFuzzer run is single-threaded).
fuzz_one() {
  local t=$1 bin="$build/tests/fuzz/fuzz_$1" rc=0
  # Known findings first: every reproducer must now run clean.
  shopt -s nullglob
  local regressions=(tests/fuzz/regressions/"$t"-*)
  shopt -u nullglob
  if [ ${#regressions[@]} -gt 0 ]; then
    echo "== fuzz_$t: replaying ${#regressions[@]} regression input(s)"
    "$bin" -rss_limit_mb=2048 -timeout=10 "${regressions[@]}" 2>&1 || rc=1
  fi
  # New units go to the build tree; the seed corpus in the source tree stays read-only.
  local work="$build/corpus/$t"
  mkdir -p "$work"
  echo "== fuzz_$t: seed $seed, $((runs[$t] * scale)) runs, at most ${seconds}s"
  if ! "$bin" -seed="$seed" -runs=$((runs[$t] * scale)) -max_total_time="$seconds" \
      -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
      "$work" "tests/fuzz/corpus/$t" 2>"$build/fuzz_$t.log"; then
    rc=1
    echo "!! fuzz_$t found a problem (reproducer in $build/artifacts/):"
    tail -n 60 "$build/fuzz_$t.log"
  else
    grep -E '^stat::(number_of_executed_units|peak_rss_mb|new_units_added)' "$build/fuzz_$t.log" || true
  fi
  return $rc
}

for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
  ( rc=0; fuzz_one "$t" >"$build/fuzz_$t.out" 2>&1 || rc=1; echo "$rc" >"$build/fuzz_$t.rc" ) &
done
wait
for t in "${targets[@]}"; do
  cat "$build/fuzz_$t.out"
  [ "$(cat "$build/fuzz_$t.rc" 2>/dev/null)" = 0 ] || status=1
done
end=$(date +%s)
echo "== fuzz: build $((built - start)) s, fuzzing $((end - built)) s"
exit $status
