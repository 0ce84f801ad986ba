#!/usr/bin/env bash
# Builds the .deb of the previous release, the one packaging/test-upgrade.sh upgrades from, from
# the commit named in packaging/previous-release, with that commit's own scripts/package.sh.
#
#   packaging/build-previous.sh        prints the path of the .deb on its last line
#
# The released .deb itself is kept in the repository (packaging/releases/, its SHA-256 the third
# field of packaging/previous-release): a release is immutable, and rebuilding it cost CI about
# eight minutes on two cores. It is used when its hash matches; FB_REBUILD_PREVIOUS=1 builds it
# from the commit instead. A build is kept in $FB_CI_CACHE (default ~/.cache/fabric-broker-ci),
# named by version and commit, and goes through ccache like every other (CMakeLists.txt).
# Needs: git with the commit in this clone's history, and scripts/package.sh's dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD

read -r version commit sha256 < <(grep -v '^#' packaging/previous-release)
[ -n "${version:-}" ] && [ -n "${commit:-}" ] || {
  echo "build-previous: packaging/previous-release has no 'VERSION COMMIT' line" >&2
  exit 2
}
cache="${FB_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fabric-broker-ci}"
arch=$(dpkg --print-architecture)
kept="$cache/fabric-broker_${version}_${arch}.${commit}.deb"

released="packaging/releases/fabric-broker_${version}_${arch}.deb"
if [ "${FB_REBUILD_PREVIOUS:-0}" != 1 ] && [ -n "${sha256:-}" ] && [ -f "$released" ]; then
  got=$(sha256sum "$released" | cut -d' ' -f1)
  if [ "$got" = "$sha256" ] && [ "$(dpkg-deb --field "$released" Version)" = "$version" ]; then
    echo "== build-previous: $version as released, $released (SHA-256 $sha256)"
    echo "$PWD/$released"
    exit 0
  fi
  echo "build-previous: $released has SHA-256 $got, not $sha256 (packaging/previous-release)" >&2
  exit 1
fi
if [ -f "$kept" ] && [ "$(dpkg-deb --field "$kept" Version 2>/dev/null)" = "$version" ]; then
  echo "== build-previous: $version from $commit, kept in $kept"
  echo "$kept"
  exit 0
fi

# A shallow clone (CI may make one) lacks the commit: fetch the history it needs first.
if ! git -C "$src" cat-file -e "$commit^{commit}" 2>/dev/null &&
  [ "$(git -C "$src" rev-parse --is-shallow-repository)" = true ]; then
  echo "== build-previous: shallow clone, fetching the history (git fetch --unshallow)"
  git -C "$src" fetch --quiet --unshallow || true
fi
git -C "$src" cat-file -e "$commit^{commit}" 2>/dev/null || {
  echo "build-previous: commit $commit ($version) is not in this clone; fetch the full history" \
    "(git fetch --unshallow)" >&2
  exit 2
}

work=$(mktemp -d "${TMPDIR:-/tmp}/fb-previous.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "== build-previous: building $version from $commit in $work"
git -C "$src" archive --format=tar "$commit" | tar -x -C "$work"
started=$(date +%s)
FB_PACKAGE_BUILD_DIR="$work/build" bash "$work/scripts/package.sh" >"$work/build.log" 2>&1 || {
  tail -n 40 "$work/build.log" >&2
  echo "build-previous: the build of $version failed" >&2
  exit 1
}
deb=$(ls "$work"/build/packages/*.deb)
got=$(dpkg-deb --field "$deb" Version)
[ "$got" = "$version" ] || {
  echo "build-previous: $commit built version $got, not $version" >&2
  exit 1
}
mkdir -p "$cache"
cp "$deb" "$kept.part" && mv "$kept.part" "$kept"
echo "== build-previous: $version built in $(($(date +%s) - started)) s, kept in $kept"
echo "$kept"
