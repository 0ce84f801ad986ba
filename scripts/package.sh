#!/usr/bin/env bash
# Builds the Linux packages of fabric-broker: a .deb (built on Debian 12, it installs on Debian 12
# and 13: packaging/README.md; dpkg-shlibdeps computes Depends from the libraries found here) and
# a relocatable .tar.gz. Needs the build dependencies of scripts/dev.sh plus dpkg-dev.
#
#   scripts/package.sh            -> build/package/packages/fabric-broker_<version>_<arch>.deb
#                                    build/package/packages/fabric-broker-<version>-linux-<arch>.tar.gz
#
# Environment: FB_PACKAGE_BUILD_DIR (default build/package), FB_JOBS (default: nproc),
# FB_WERROR=ON to make warnings errors (CI: the optimised build's warnings fail it).
# Then test it: packaging/test-install.sh (lintian, desktop/AppStream validation, install test).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build_dir="${FB_PACKAGE_BUILD_DIR:-build/package}"
jobs="${FB_JOBS:-$(nproc)}"

for tool in cmake ninja cpack dpkg-shlibdeps dpkg-buildflags gzip; do
  command -v "$tool" >/dev/null || {
    echo "package.sh: $tool is missing (apt-get install cmake ninja-build dpkg-dev gzip)" >&2
    exit 2
  }
done

# Debian's hardening flags (stack protector, _FORTIFY_SOURCE, format checks, RELRO, BIND_NOW) as
# in a real Debian build; -g/-O2 are dropped (Release builds -O3, CPack strips the binary).
export DEB_BUILD_MAINT_OPTIONS="hardening=+all"
strip_flags() { sed -e 's/\(^\| \)-g\( \|$\)/ /g' -e 's/\(^\| \)-O2\( \|$\)/ /g'; }
cxxflags="$(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CXXFLAGS | strip_flags)"
ldflags="$(dpkg-buildflags --get LDFLAGS)"

cmake -S "$root" -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX=/usr \
  -DFB_BUILD_TESTS=OFF -DFB_BUILD_BENCH=OFF -DFB_LLD=OFF -DFB_WERROR="${FB_WERROR:-OFF}" \
  "-DCMAKE_CXX_FLAGS=$cxxflags" \
  "-DCMAKE_EXE_LINKER_FLAGS=$ldflags"
cmake --build "$build_dir" -j "$jobs"

rm -rf "$build_dir/packages"
(cd "$build_dir" && cpack -G "DEB;TGZ")

echo "== packages in $build_dir/packages:"
ls -l "$build_dir/packages"/*.deb "$build_dir/packages"/*.tar.gz
