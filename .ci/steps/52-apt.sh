#!/usr/bin/env bash
# CI step: fleets install from a signed APT repository and upgrade without losing a record (#39).
# After 50-package.sh built the new .deb: take the previous release's .deb (packaging/releases,
# checked against its SHA-256; built from its commit only when asked),
# publish both through packaging/apt-repo.sh, then
#   packaging/test-apt-releases.sh  install from the repository with apt-get in clean Debian 12
#                                   and 13 chroots (mmdebstrap), propose/confirm there; a
#                                   tampered and an unsigned repository are refused
#   packaging/test-upgrade.sh       the previous release, used, upgraded with apt-get: every
#                                   record kept; a downgrade refused
#   packaging/test-apt-attacks.sh   a mirror the test controls: tampered, re-signed, replayed,
#                                   expired repositories refused; downgrades refused
set -euo pipefail
cd "$(dirname "$0")/../.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
tools=(reprepro gnupg gpgv mmdebstrap dbus dbus-user-session gnome-keyring)
missing=()
for p in "${tools[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

new=$(ls -t "${FB_PACKAGE_BUILD_DIR:-build/package}"/packages/*.deb | head -n1)
old=$(bash packaging/build-previous.sh | tail -n1)
echo "== upgrade from $(basename "$old") to $(basename "$new")"
bash packaging/test-apt-releases.sh "$new"
bash packaging/test-upgrade.sh "$old" "$new"
bash packaging/test-apt-attacks.sh "$old" "$new"
