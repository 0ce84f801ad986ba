#!/usr/bin/env bash
# CI step: the whole test suite (unit, integration, gui, e2e) built with AddressSanitizer +
# UndefinedBehaviorSanitizer (the `asan` preset: Debug, FB_SANITIZE=ON, FB_WERROR=ON). Any ASan
# report, UB, or leak fails the test that triggered it. The e2e tests run the asan build of
# fabric-broker (FB_BROKER_BIN is set per test by CMake to the preset's binary) and pass
# ASAN_OPTIONS/UBSAN_OPTIONS through to it.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
jobs="${FB_JOBS:-$(nproc)}"

# detect_leaks: LSan on (the default on x86_64 Linux; explicit here). Suppressions are
# narrowly scoped to Qt-internal allocations, each justified in the file.
export ASAN_OPTIONS="detect_leaks=1"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export QT_QPA_PLATFORM=offscreen

start=$(date +%s)
cmake --preset asan >/dev/null
cmake --build --preset asan -j"$jobs"
built=$(date +%s)
ctest --preset asan -j"$jobs"
end=$(date +%s)
echo "== asan: build $((built - start)) s, tests $((end - built)) s"
