#!/usr/bin/env bash
# CI step: build the Linux packages (.deb, .tar.gz) and run the install test on them.
# Runs after "scripts/dev.sh test", which installed the build dependencies; the packaging tools
# (dpkg-shlibdeps, lintian, desktop-file-validate, appstreamcli, man) are installed here.
set -euo pipefail
cd "$(dirname "$0")/../.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
tools=(dpkg-dev lintian desktop-file-utils appstream man-db file binutils)
missing=()
for p in "${tools[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing packaging tools: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The only optimised (-O3, Debian hardening flags) build in CI: its warnings are errors too.
FB_WERROR=ON bash scripts/package.sh
bash packaging/test-install.sh
