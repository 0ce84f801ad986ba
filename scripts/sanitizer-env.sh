#!/usr/bin/env bash
# Sourced by scripts/dev.sh (FB_PRESET=asan) and .ci/run: the options every sanitized run uses.
# Leaks on (LSan, explicit), Qt-internal leaks suppressed (tests/sanitizers/lsan.supp, each
# entry justified there), UB stops the process. Values already set in the environment win.
_fb_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$_fb_root/tests/sanitizers/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
unset _fb_root
