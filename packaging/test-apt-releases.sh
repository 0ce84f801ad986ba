#!/usr/bin/env bash
# Installs fabric-broker from a signed APT repository with apt-get into clean Debian chroots
# (Debian 12 "bookworm" and Debian 13 "trixie" by default) and runs it there; shows that apt
# refuses a tampered and an unsigned copy of the same repository (#39).
#
#   packaging/test-apt-releases.sh [DEB]   default: the newest .deb in build/package/packages/
#
#   1. packaging/apt-repo.sh publishes DEB into a fresh repository signed with a fresh test key
#   2. base system per release: `mmdebstrap --variant=minbase` from Debian's archive, cached as
#      $FB_CI_CACHE/chroot-<suite>.tar (rebuilt when 7 days old; the cache is an optimisation
#      only, as is the cache of downloaded Debian packages next to it, which apt checks against
#      Debian's signed indexes like any download)
#   3. per release, in a freshly unpacked chroot: the repository as a `file:` source with
#      `signed-by=` its keyring, `apt-get update && apt-get install -y fabric-broker` (the
#      dependencies come from Debian's archive), apt-cache policy names the file: repository,
#      `fabric-broker --version` prints the package version, and the official MCP SDK client on
#      the host (packaging/apt-test-client.mjs) spawns `fabric-broker --headless --stdio
#      --sandbox` in the chroot as an unprivileged user: initialize, tools/list, a propose of a
#      sandbox connection, its confirm approved through elicitation, the result says created
#   4. refusals, in another fresh chroot with only the test repository as a source: the pristine
#      copy is accepted (control), a copy whose Packages index differs in one byte fails
#      `apt-get update` with a hash sum mismatch, a copy without InRelease and Release.gpg fails
#      it as "not signed"; for both, apt-get's exit status and message are checked and
#      `apt-get install fabric-broker` installs nothing
#
# Every chroot command runs in its own mount and PID namespace (unshare): /proc, /dev and a
# tmpfs /tmp are mounted there and unmounted on exit, so nothing stays mounted on the host and
# no process outlives its step.
#
# Environment:
#   FB_PACKAGE_BUILD_DIR   where scripts/package.sh put packages/ (default build/package)
#   FB_CI_CACHE            cache folder (default ${XDG_CACHE_HOME:-$HOME/.cache}/fabric-broker-ci)
#   FB_APT_SUITES          releases to install on (default "bookworm trixie")
#   FB_APT_REFUSAL_SUITES  releases whose apt must refuse the bad copies (default "bookworm trixie")
#   FB_DEBIAN_MIRROR       Debian archive (default http://deb.debian.org/debian)
#   FB_APT_KEEP=1          keep the scratch folder (chroots, logs) for a look afterwards
# Needs: root (chroot, mount namespaces), mmdebstrap, reprepro, gnupg (gpgv), dpkg-dev, tar,
# util-linux (unshare), node >= 18 and tests/e2e/node_modules (npm ci in tests/e2e), network
# access to the Debian archive. Not root and CI unset: skipped. In CI (CI=true) a missing
# prerequisite is a failure. Exit status 0 only when every check passed.
# shellcheck disable=SC2016 # dpkg-query -f '${Field}' formats are dpkg's, not the shell's
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
me=test-apt-releases

now() { echo "${EPOCHREALTIME/,/.}"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
t_start=$(now)

missing_prerequisite() {
  if [ "${CI:-}" = true ]; then
    echo "$me: FAIL: $*" >&2
    exit 1
  fi
  echo "$me: FAIL: $* (a prerequisite is missing)" >&2
  exit 2
}
if [ "$(id -u)" -ne 0 ]; then
  [ "${CI:-}" = true ] || { echo "$me: skipped: needs root (chroot, mount namespaces); CI is not true"; exit 0; }
  missing_prerequisite "needs root (chroot, mount namespaces)"
fi
for tool in mmdebstrap reprepro gpg gpgv dpkg-deb tar unshare chroot mount node; do
  command -v "$tool" >/dev/null ||
    missing_prerequisite "$tool is missing (apt-get install mmdebstrap reprepro gnupg gpgv dpkg-dev util-linux nodejs)"
done
e2e_dir=$src/tests/e2e
[ -f "$e2e_dir/node_modules/@modelcontextprotocol/sdk/package.json" ] ||
  missing_prerequisite "tests/e2e/node_modules lacks @modelcontextprotocol/sdk (cd tests/e2e && npm ci)"
[ -f "$src/packaging/apt-repo.sh" ] ||
  missing_prerequisite "packaging/apt-repo.sh is missing"

pkg_dir="${FB_PACKAGE_BUILD_DIR:-build/package}/packages"
# shellcheck disable=SC2012 # the newest by time; package file names have no odd characters
deb="${1:-$(ls -t "$pkg_dir"/*.deb 2>/dev/null | head -n1 || true)}"
[ -f "$deb" ] || missing_prerequisite "no .deb (run scripts/package.sh first, or pass its path)"
deb=$(readlink -f "$deb")
version=$(dpkg-deb -f "$deb" Version)
arch=$(dpkg-deb -f "$deb" Architecture)
read -r -a suites <<<"${FB_APT_SUITES:-bookworm trixie}"
read -r -a refusal_suites <<<"${FB_APT_REFUSAL_SUITES:-bookworm trixie}"
mirror=${FB_DEBIAN_MIRROR:-http://deb.debian.org/debian}

failures=0
ok()   { echo "  ok    $*"; }
fail() { echo "  FAIL  $*"; failures=$((failures + 1)); }
check() { # check DESCRIPTION COMMAND...: ok when the command succeeds
  local what=$1; shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}
timing() { echo "  time  $1: $(since "$2") s"; }
indent() { sed 's/^/        /'; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fb-apt-releases.XXXXXX")
chmod 0755 "$tmp"
cleanup() {
  local status=$? mounted
  # Every mount lives in a namespace that ended with its step; make sure before deleting.
  mounted=$(grep -h " $tmp/" /proc/[0-9]*/mountinfo 2>/dev/null | awk '{ print $5 }' | sort -u || true)
  if [ -n "$mounted" ]; then
    echo "$me: still mounted under $tmp (left in place):" >&2
    echo "$mounted" | indent >&2
  elif [ "${FB_APT_KEEP:-0}" = 1 ]; then
    echo "$me: kept $tmp"
  else
    rm -rf --one-file-system "$tmp"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cache=${FB_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fabric-broker-ci}
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
  echo "  note  cache $cache is not writable: using the scratch folder"
  cache=$tmp/cache
  mkdir -p "$cache"
fi

# shellcheck source=packaging/chroot-lib.sh
source "$src/packaging/chroot-lib.sh"
# apt_run ROOT LOG COMMAND...: runs an apt command in the chroot, output to LOG; its status is
# left in $apt_status (0 or apt's exit status).
apt_run() {
  local root=$1 log=$2; shift 2
  apt_status=0
  in_chroot "$root" "$@" >"$log" 2>&1 || apt_status=$?
}
# fresh_chroot SUITE NAME: unpacks the base of SUITE into $tmp/NAME (a clean system) and prints
# its path.
fresh_chroot() {
  local tarball root=$tmp/$2
  tarball=$(base_tarball "$1") || return 1
  rm -rf --one-file-system "$root"
  mkdir -p "$root"
  tar -C "$root" -xf "$tarball"
  # What a Debian system has for name resolution and for not starting services in a chroot.
  [ -e /etc/resolv.conf ] && cp -L /etc/resolv.conf "$root/etc/resolv.conf"
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 0755 "$root/usr/sbin/policy-rc.d"
  echo "$root"
}
keyring_path=/usr/share/keyrings/fabric-broker-archive-keyring.gpg
# add_repository ROOT TREE DIR: copies the published TREE to DIR in the chroot and adds the two
# things a machine adds: the keyring (from the pristine repository, fetched out of band) and
# the sources line.
add_repository() {
  local root=$1 tree=$2 dir=$3
  mkdir -p "$root$dir"
  cp -a "$tree/." "$root$dir/"
  chmod -R a+rX "$root$dir"
  install -m 0644 "$repo/fabric-broker-archive-keyring.gpg" "$root$keyring_path"
  echo "deb [signed-by=$keyring_path] file:$dir stable main" >"$root/etc/apt/sources.list.d/fabric-broker.list"
}
# apt_messages LOG: apt's error and warning lines (apt 2.x: E:/W:, apt 3.x: Error:/Warning:).
apt_messages() { grep -E '^(E|W|Err|Error|Warning):' "$1" || true; }

echo "== $me: $(basename "$deb") (version $version, $arch) on ${suites[*]}; refusals on ${refusal_suites[*]}"
echo "   cache: $cache"

# ------------------------------------------------------------------------------------------
echo "== 1. the signed repository (packaging/apt-repo.sh)"
t=$(now)
if bash "$src/packaging/apt-repo.sh" "$tmp/repo" "$deb" >"$tmp/apt-repo.log" 2>&1; then
  ok "apt-repo.sh $tmp/repo $(basename "$deb")"
else
  fail "apt-repo.sh failed"
  indent <"$tmp/apt-repo.log"
  exit 1
fi
repo=$tmp/repo/public
for f in dists/stable/InRelease dists/stable/Release dists/stable/Release.gpg \
  "dists/stable/main/binary-$arch/Packages" fabric-broker-archive-keyring.gpg; do
  check "published: $f" test -s "$repo/$f"
done
check "the Packages index lists fabric-broker $version" \
  grep -qx "Version: $version" "$repo/dists/stable/main/binary-$arch/Packages"
gpgv_check() { # gpgv_check SIGNATURE [DATA]: good signature by the published keyring
  gpgv --keyring "$repo/fabric-broker-archive-keyring.gpg" "$@" >"$tmp/gpgv.log" 2>&1 ||
    { indent <"$tmp/gpgv.log"; return 1; }
}
check "InRelease verifies against the published keyring (gpgv)" gpgv_check "$repo/dists/stable/InRelease"
check "Release.gpg verifies Release against it (gpgv)" \
  gpgv_check "$repo/dists/stable/Release.gpg" "$repo/dists/stable/Release"
timing "repository" "$t"

# ------------------------------------------------------------------------------------------
echo "== 2. base systems (mmdebstrap, cached in $cache)"
t=$(now)
for suite in "${suites[@]}" "${refusal_suites[@]}"; do
  [ -e "$tmp/base-$suite.done" ] && continue
  if base_tarball "$suite" >/dev/null; then touch "$tmp/base-$suite.done"; else failures=$((failures + 1)); fi
done
timing "base systems" "$t"
[ "$failures" -eq 0 ] || { echo "$me: $failures check(s) FAILED" >&2; exit 1; }

# ------------------------------------------------------------------------------------------
step=3
for suite in "${suites[@]}"; do
  echo "== $step. $suite: apt-get install fabric-broker from the repository"
  step=$((step + 1))
  t_suite=$(now)
  t=$(now)
  root=$(fresh_chroot "$suite" "install-$suite")
  echo "        $(cat "$root/etc/debian_version" 2>/dev/null) in $root"
  add_repository "$root" "$repo" /srv/fabric-broker-apt
  timing "$suite: unpack a clean chroot" "$t"
  logs=$tmp/logs-$suite
  mkdir -p "$logs" "$cache/apt-archives-$suite/partial"
  export FB_NS_ARCHIVES=$cache/apt-archives-$suite

  t=$(now)
  apt_run "$root" "$logs/update.log" apt-get -q -o Dpkg::Use-Pty=0 update
  check "apt-get update: exit status 0" test "$apt_status" -eq 0
  messages=$(apt_messages "$logs/update.log")
  check "apt-get update: no error or warning" test -z "$messages"
  if [ "$apt_status" -ne 0 ] || [ -n "$messages" ]; then indent <"$logs/update.log"; fi
  timing "$suite: apt-get update" "$t"

  in_chroot "$root" apt-cache policy fabric-broker >"$logs/policy-before.txt" 2>&1 || true
  check "apt-cache policy: candidate $version" grep -qx "  Candidate: $version" "$logs/policy-before.txt"
  check "apt-cache policy: offered by file:/srv/fabric-broker-apt stable/main $arch" \
    grep -Eq "^ +500 file:/srv/fabric-broker-apt stable/main $arch Packages\$" "$logs/policy-before.txt"

  t=$(now)
  # As a fleet runs it (Recommends included); dpkg skips fsync in this throwaway system.
  apt_run "$root" "$logs/install.log" apt-get -q -o Dpkg::Use-Pty=0 \
    -o Dpkg::Options::=--force-unsafe-io install -y fabric-broker
  check "apt-get install -y fabric-broker: exit status 0" test "$apt_status" -eq 0
  if [ "$apt_status" -ne 0 ]; then
    tail -n 40 "$logs/install.log" | indent
  else
    grep -E '^[0-9]+ (upgraded|newly installed)' "$logs/install.log" | indent
  fi
  timing "$suite: apt-get install" "$t"
  # Keep the download cache to what the archive still offers.
  in_chroot "$root" apt-get -q autoclean >"$logs/autoclean.log" 2>&1 || true
  unset FB_NS_ARCHIVES

  status=$(in_chroot "$root" dpkg-query -W -f='${Status} ${Version}' fabric-broker 2>&1 || true)
  check "dpkg: fabric-broker $version installed ($status)" test "$status" = "install ok installed $version"
  in_chroot "$root" apt-cache policy fabric-broker >"$logs/policy-after.txt" 2>&1 || true
  came_from_file() { # the installed version (the *** entry) is the one the file: source offers
    grep -qx "  Installed: $version" "$logs/policy-after.txt" &&
      awk -v v="$version" '/^ \*\*\* / { mine = ($2 == v); next } /^     [^ ]/ { mine = 0; next }
        /^        / && mine { print }' "$logs/policy-after.txt" |
      grep -Eq "^ +500 file:/srv/fabric-broker-apt stable/main $arch Packages\$"
  }
  if came_from_file; then
    ok "apt-cache policy: installed $version came from the file: repository"
  else
    fail "apt-cache policy: installed $version came from the file: repository"
    indent <"$logs/policy-after.txt"
  fi
  echo "        Depends: $(dpkg-deb -f "$deb" Depends)"
  in_chroot "$root" dpkg-query -W -f='${db:Status-Abbrev} ${Package}=${Version}\n' 'libqt6core6*' \
    'libqt6network6*' 'libmicrohttpd12*' 'libqt6keychain1*' 'libssl3*' 2>/dev/null |
    awk '$1 == "ii" { printf "%s ", $2 }' | fold -s -w 90 | sed 's/^/        resolved: /' || true
  echo

  t=$(now)
  in_chroot "$root" useradd --create-home --shell /bin/bash fbtest >"$logs/useradd.log" 2>&1 ||
    { fail "useradd fbtest"; indent <"$logs/useradd.log"; }
  uid=$(in_chroot "$root" id -u fbtest)
  gid=$(in_chroot "$root" id -g fbtest)
  # The environment an MCP client gives a server it spawns (the SDK's getDefaultEnvironment()).
  as_user=(chroot "--userspec=$uid:$gid" "$root" /usr/bin/env -i HOME=/home/fbtest LOGNAME=fbtest
    USER=fbtest SHELL=/bin/bash PATH=/usr/local/bin:/usr/bin:/bin TERM=dumb)
  got=$(run_ns "$root" "${as_user[@]}" /usr/bin/fabric-broker --version 2>"$logs/version.err" || true)
  check "fabric-broker --version prints 'fabric-broker $version' ($got)" test "$got" = "fabric-broker $version"
  if [ "$got" != "fabric-broker $version" ]; then
    indent <"$logs/version.err"
    # Every symbol the dynamic linker cannot find (the binary is linked with BIND_NOW, so it
    # stopped at the first).
    in_chroot "$root" ldd -r /usr/bin/fabric-broker >"$logs/ldd.txt" 2>&1 || true
    unresolved=$(grep -E 'undefined symbol|not found' "$logs/ldd.txt" || true)
    if [ -n "$unresolved" ]; then
      echo "        ldd -r: $(grep -c . <<<"$unresolved") unresolved:"
      if command -v c++filt >/dev/null; then c++filt <<<"$unresolved"; else echo "$unresolved"; fi | indent
    fi
    fail "$suite: MCP session not attempted: the installed binary does not start"
    timing "$suite: run" "$t"
    timing "$suite: total" "$t_suite"
    if [ "${FB_APT_KEEP:-0}" != 1 ]; then rm -rf --one-file-system "$root"; fi
    continue
  fi

  echo "        MCP session: $(basename "$e2e_dir")/node_modules/@modelcontextprotocol/sdk client on the host," \
    "fabric-broker --headless --stdio --sandbox in the chroot as fbtest ($uid)"
  if run_ns "$root" env FB_E2E_DIR="$e2e_dir" node "$src/packaging/apt-test-client.mjs" "$version" \
    "${as_user[@]}" /usr/bin/fabric-broker --headless --stdio --sandbox --toolsets read,mutate \
    >"$logs/mcp.log" 2>&1; then
    cat "$logs/mcp.log"
  else
    cat "$logs/mcp.log"
    fail "$suite: the MCP session (above)"
  fi
  timing "$suite: run" "$t"
  timing "$suite: total" "$t_suite"
  if [ "${FB_APT_KEEP:-0}" != 1 ]; then rm -rf --one-file-system "$root"; fi
done

# ------------------------------------------------------------------------------------------
# The bad copies. Tampered: one byte of the Packages index changed (the fabric-broker entry's
# SHA256 now names another file), and its compressed forms made from it as a mirror would
# serve them; Release and its signatures are untouched (still good), so only the index hashes
# in Release can catch it. Unsigned: InRelease and Release.gpg removed.
tampered=$tmp/tampered
unsigned=$tmp/unsigned
cp -a "$repo" "$tampered"
cp -a "$repo" "$unsigned"
index="dists/stable/main/binary-$arch/Packages"
sed -i -E '/^SHA256: /{ s/^SHA256: 0/SHA256: 1/; t; s/^SHA256: ./SHA256: 0/ }' "$tampered/$index"
for packed in "$tampered/$index".*; do
  case $packed in
    *.gz) gzip -9nc "$tampered/$index" >"$packed" ;;
    *.xz) xz -c "$tampered/$index" >"$packed" ;;
    *.bz2) bzip2 -c "$tampered/$index" >"$packed" ;;
    *.zst) zstd -q -c "$tampered/$index" >"$packed" ;;
    *) ;;
  esac
done
rm -f "$unsigned/dists/stable/InRelease" "$unsigned/dists/stable/Release.gpg"

for suite in "${refusal_suites[@]}"; do
  echo "== $step. $suite: apt refuses a tampered and an unsigned repository"
  step=$((step + 1))
  t=$(now)
  echo "        tampered: $(cmp "$repo/$index" "$tampered/$index" | sed 's/^.*differ: //') of $index" \
    "($(stat -c %s "$repo/$index") -> $(stat -c %s "$tampered/$index") bytes)"
  one_byte_changed() {
    [ "$(stat -c %s "$repo/$index")" -eq "$(stat -c %s "$tampered/$index")" ] &&
      [ "$(cmp -l "$repo/$index" "$tampered/$index" | wc -l)" -eq 1 ]
  }
  check "tampered copy: the index differs from the published one in one byte" one_byte_changed
  check "tampered copy: InRelease still verifies (only the index was changed)" \
    gpgv_check "$tampered/dists/stable/InRelease"
  root=$(fresh_chroot "$suite" "refuse-$suite")
  logs=$tmp/logs-refuse-$suite
  mkdir -p "$logs"
  # Only the repository under test is a source: nothing else can offer fabric-broker.
  rm -f "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*
  rm -rf "${root:?}"/var/lib/apt/lists/*

  # use_copy NAME TREE: the chroot's only source is TREE (copied to /srv/NAME), no old lists.
  use_copy() {
    rm -rf "$root/srv"/* "${root:?}"/var/lib/apt/lists/*
    add_repository "$root" "$2" "/srv/$1"
  }
  not_installable() { # apt-get install finds no fabric-broker and installs nothing
    local what=$1
    in_chroot "$root" apt-cache policy fabric-broker >"$logs/policy-$what.txt" 2>&1 || true
    check "$what: apt-cache policy offers no fabric-broker" \
      test -z "$(grep -E '^  Candidate: [^(]' "$logs/policy-$what.txt")"
    apt_run "$root" "$logs/install-$what.log" apt-get -q -o Dpkg::Use-Pty=0 install -y fabric-broker
    check "$what: apt-get install -y fabric-broker fails (exit status $apt_status)" test "$apt_status" -ne 0
    check "$what: ... with 'Unable to locate package fabric-broker'" \
      grep -q 'Unable to locate package fabric-broker' "$logs/install-$what.log"
    [ "$apt_status" -ne 0 ] || indent <"$logs/install-$what.log"
    nothing_installed() {
      [ ! -e "$root/usr/bin/fabric-broker" ] &&
        ! in_chroot "$root" dpkg-query -W -f='${Status}\n' fabric-broker 2>/dev/null | grep -q ' installed$'
    }
    check "$what: fabric-broker is not installed" nothing_installed
  }

  use_copy pristine "$repo"
  apt_run "$root" "$logs/update-pristine.log" apt-get -q update
  check "control, the published copy: apt-get update exit status 0 ($apt_status)" test "$apt_status" -eq 0
  check "control: no error or warning" test -z "$(apt_messages "$logs/update-pristine.log")"
  in_chroot "$root" apt-cache policy fabric-broker >"$logs/policy-pristine.txt" 2>&1 || true
  check "control: apt-cache policy offers fabric-broker $version from file:/srv/pristine" \
    grep -qx "  Candidate: $version" "$logs/policy-pristine.txt"

  use_copy tampered "$tampered"
  apt_run "$root" "$logs/update-tampered.log" apt-get -q update
  echo "        apt-get update (exit status $apt_status):"
  apt_messages "$logs/update-tampered.log" | indent
  check "tampered: apt-get update fails (exit status $apt_status)" test "$apt_status" -ne 0
  check "tampered: ... reporting a hash sum mismatch for the Packages index" \
    grep -Eq '^(E|Err|Error):.*(Hash Sum mismatch|Hash sum mismatch)' "$logs/update-tampered.log"
  not_installable tampered

  use_copy unsigned "$unsigned"
  apt_run "$root" "$logs/update-unsigned.log" apt-get -q update
  echo "        apt-get update (exit status $apt_status):"
  apt_messages "$logs/update-unsigned.log" | indent
  check "unsigned: apt-get update fails (exit status $apt_status)" test "$apt_status" -ne 0
  check "unsigned: ... saying the repository is not signed" \
    grep -Eq "^(E|Error): The repository 'file:/srv/unsigned stable Release' is not signed" "$logs/update-unsigned.log"
  not_installable unsigned
  timing "$suite: refusals" "$t"
  if [ "${FB_APT_KEEP:-0}" != 1 ]; then rm -rf --one-file-system "$root"; fi
done

echo
echo "  time  total: $(since "$t_start") s"
if [ "$failures" -eq 0 ]; then
  echo "$me: all checks passed ($(basename "$deb") on ${suites[*]}; refusals on ${refusal_suites[*]})"
else
  echo "$me: $failures check(s) FAILED" >&2
  exit 1
fi
