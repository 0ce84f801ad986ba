#!/usr/bin/env bash
# The README's two commands. Idempotent; run as root or as a user with sudo.
#   scripts/dev.sh run  [app args...]  install dependencies, build, run the app (sandbox by default)
#   scripts/dev.sh test                install dependencies, build with -Werror, run every test suite
# Environment: FB_PRESET (default: dev for run, ci for test; asan runs the suite under ASan +
# UBSan + LSan, as CI does), FB_SKIP_DEPS=1 to skip apt/npm.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-}"
[ $# -gt 0 ] && shift

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config git ccache lld
  qt6-base-dev qt6-base-dev-tools qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools libmicrohttpd-dev
  qtkeychain-qt6-dev libgl-dev libqt6svg6 qt6-qpa-plugins
  libbenchmark-dev clang libclang-rt-14-dev libfuzzer-14-dev
  nodejs npm xvfb xdotool xauth strace
  dbus at-spi2-core python3-pyatspi gnome-keyring
  libpq-dev postgresql libssl-dev python3-yaml python3-jsonschema
  prometheus rsyslog rsyslog-gnutls openssh-client
)

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

install_deps() {
  [ "${FB_SKIP_DEPS:-0}" = 1 ] && return 0
  local missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  # A machine may already have a newer Node.js than Debian's; keep it.
  if command -v node >/dev/null && command -v npm >/dev/null; then
    missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
  fi
  local want=()
  for p in "${missing[@]}"; do [ -n "$p" ] && want+=("$p"); done
  if [ ${#want[@]} -gt 0 ]; then
    echo "== installing: ${want[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${want[@]}"
  fi
}

# build PRESET [TARGET...]: everything, or only the named targets (and what they need).
build() {
  local preset="$1"; shift
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" ${1:+--target "$@"}
}

case "$mode" in
  run)
    install_deps
    preset="${FB_PRESET:-dev}"
    # Only what running needs: the app and its libraries, not the tests and benchmarks.
    if [ ! -x "build/$preset/src/app/fabric-broker" ]; then
      echo "== building fabric-broker: the first build compiles 117 files, about 15 minutes on 2 cores; later runs rebuild only what changed"
    fi
    build "$preset" fabric-broker
    exec "build/$preset/src/app/fabric-broker" "$@"
    ;;
  test)
    install_deps
    preset="${FB_PRESET:-ci}"
    if [ "${FB_SKIP_DEPS:-0}" != 1 ]; then
      for dir in tests/e2e bench/ts-reference; do
        [ -f "$dir/package.json" ] && (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
      done
    fi
    # The sanitized suite (what CI runs).
    # shellcheck source=scripts/sanitizer-env.sh
    if [ "$preset" = asan ]; then source scripts/sanitizer-env.sh; fi
    build "$preset"
    ctest --preset "$preset" -j"$(nproc)"
    ;;
  *)
    echo "usage: $0 run [fabric-broker args...] | test" >&2
    exit 2
    ;;
esac
