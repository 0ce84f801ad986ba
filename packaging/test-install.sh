#!/usr/bin/env bash
# Install test of the Linux packages built by scripts/package.sh:
#   1. the .deb's control fields (name, version from CMake, Depends/Recommends, maintainer, ...)
#   2. lintian (no errors), desktop-file-validate, appstreamcli validate --no-net, man page
#      warnings, bash -n of the completion, systemd-analyze verify of the user unit
#   3. installs the .deb into a clean root (dpkg --root --force-depends as root, else dpkg-deb -x)
#      and checks every installed path, its type, owner and mode against the list below; nothing
#      else may be installed
#   4. runs the installed binary with the host's Qt libraries: --version, and an MCP initialize /
#      tools/list round trip over --headless --stdio --sandbox
#   5. the .tar.gz: the same files under one top-level directory, and its binary runs from there
#   6. (as root) dpkg --root -r removes every file again
#
#   packaging/test-install.sh [DEB [TGZ]]     default: the newest in build/package/packages/
# Needs: dpkg-dev, lintian, desktop-file-utils, appstream, man-db (.ci/steps/50-package.sh
# installs them). Exit status 0 only when every check passed.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
pkg_dir="${FB_PACKAGE_BUILD_DIR:-build/package}/packages"
deb="${1:-$(ls -t "$pkg_dir"/*.deb 2>/dev/null | head -n1 || true)}"
tgz="${2:-$(ls -t "$pkg_dir"/*.tar.gz 2>/dev/null | head -n1 || true)}"
[ -f "$deb" ] || { echo "test-install: no .deb (run scripts/package.sh first)" >&2; exit 2; }
[ -f "$tgz" ] || { echo "test-install: no .tar.gz (run scripts/package.sh first)" >&2; exit 2; }
deb=$(readlink -f "$deb"); tgz=$(readlink -f "$tgz")

app_id=io.github.fabric_broker.FabricBroker
version=$(sed -n '/^project(FabricBroker/,/)/s/^ *VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || { echo "test-install: cannot read project(VERSION) from CMakeLists.txt" >&2; exit 2; }

failures=0
ok()   { echo "  ok    $*"; }
fail() { echo "  FAIL  $*"; failures=$((failures + 1)); }
check() { # check DESCRIPTION COMMAND...: ok when the command succeeds
  local what=$1; shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fb-pkgtest.XXXXXX")
cleanup() { [ -n "${fb_pid:-}" ] && kill "$fb_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

# ------------------------------------------------------------------------------------------
# The complete list of what the package installs: path, type (f/d), mode. Owner is root:root.
expected_files=(
  "usr/bin/fabric-broker                                                 0755"
  "usr/libexec/fabric-broker/fabric-broker-app                           0755"
  "usr/libexec/fabric-broker/fabric-broker-server                        0755"
  "usr/share/applications/$app_id.desktop                                0644"
  "etc/xdg/autostart/$app_id.desktop                                     0644"
  "usr/share/metainfo/$app_id.metainfo.xml                               0644"
  "usr/share/icons/hicolor/scalable/apps/fabric-broker.svg               0644"
  "usr/share/icons/hicolor/16x16/apps/fabric-broker.png                  0644"
  "usr/share/icons/hicolor/32x32/apps/fabric-broker.png                  0644"
  "usr/share/icons/hicolor/48x48/apps/fabric-broker.png                  0644"
  "usr/share/icons/hicolor/64x64/apps/fabric-broker.png                  0644"
  "usr/share/icons/hicolor/128x128/apps/fabric-broker.png                0644"
  "usr/share/icons/hicolor/256x256/apps/fabric-broker.png                0644"
  "usr/share/icons/hicolor/512x512/apps/fabric-broker.png                0644"
  "usr/share/man/man1/fabric-broker.1.gz                                 0644"
  "usr/share/bash-completion/completions/fabric-broker                    0644"
  "usr/lib/systemd/user/fabric-broker.service                            0644"
  "usr/share/doc/fabric-broker/copyright                                 0644"
  "usr/share/doc/fabric-broker/changelog.gz                              0644"
  "usr/share/fabric-broker/policy.schema.json                            0644"
  "usr/share/fabric-broker/policy.example.json                           0644"
)

echo "== 1. control fields of $(basename "$deb")"
field() { dpkg-deb -f "$deb" "$1"; }
check "Package: fabric-broker" test "$(field Package)" = fabric-broker
check "Version: $version (project(VERSION))" test "$(field Version)" = "$version"
check "Architecture: $(dpkg --print-architecture)" test "$(field Architecture)" = "$(dpkg --print-architecture)"
check "Section: net, Priority: optional" test "$(field Section)/$(field Priority)" = net/optional
check "Maintainer has an address" grep -q '<.*@.*>' <<<"$(field Maintainer)"
check "Homepage" test -n "$(field Homepage)"
check "Description has a synopsis and an extended description" \
  test "$(field Description | wc -l)" -ge 3
depends=$(field Depends)
echo "        Depends: $depends"
echo "        Recommends: $(field Recommends)"
has_dep() { [[ ", $depends," == *", $1"[\ ,]* ]]; }
# libpq5, libssl3 and libmicrohttpd12 are opened on first use (src/lazy), so dpkg-shlibdeps cannot
# see them: the package names them itself.
for dep in libc6 libstdc++6 libqt6core6 libqt6network6 libqt6widgets6 libqt6gui6 qt6-qpa-plugins \
  libqt6svg6 libpq5 libssl3 libmicrohttpd12; do
  check "Depends on $dep" has_dep "$dep"
done
check "Depends on QtKeychain (shlibdeps)" grep -q 'libqt6keychain' <<<"$depends"
check "Recommends a Secret Service provider" \
  grep -q 'gnome-keyring | keepassxc | kwalletmanager' <<<"$(field Recommends)"

echo "== 2. lintian and validators"
lintian_out="$tmp/lintian.txt"
if lintian --fail-on error --display-info "$deb" >"$lintian_out" 2>&1; then
  ok "lintian: no errors ($(grep -c '^W:' "$lintian_out" || true) warnings, $(grep -c '^I:' "$lintian_out" || true) infos)"
else
  fail "lintian reported errors"
fi
sed 's/^/        /' "$lintian_out"

extract="$tmp/extract"
mkdir -p "$extract"
dpkg-deb -x "$deb" "$extract"
desktop_validate() { # desktop-file-validate exits 0 on hints; any output is a finding
  local out
  out=$(desktop-file-validate "$extract/usr/share/applications/$app_id.desktop" \
    "$extract/etc/xdg/autostart/$app_id.desktop" 2>&1) || true
  [ -z "$out" ] || { echo "$out" | sed 's/^/        /'; return 1; }
}
check "desktop-file-validate (no findings)" desktop_validate
mkdir -p "$tmp/control"
dpkg-deb -e "$deb" "$tmp/control"
check "the autostart entry is a conffile" \
  grep -qx "/etc/xdg/autostart/$app_id.desktop" "$tmp/control/conffiles"
# The only maintainer scripts: preinst and prerm refuse a downgrade and do nothing else
# (packaging/README.md).
check "maintainer scripts: preinst and prerm only, mode 0755" \
  test "$(cd "$tmp/control" && ls | grep -vx -e control -e conffiles -e md5sums | tr '\n' ' ')" = "preinst prerm " \
  -a "$(stat -c %a "$tmp/control/preinst")" = 755 -a "$(stat -c %a "$tmp/control/prerm")" = 755
prerm_says() { # prerm_says STATUS ARGS...: prerm exits with STATUS; a refusal names both versions
  local want=$1; shift
  local got=0
  env -u FABRIC_BROKER_ALLOW_DOWNGRADE sh "$tmp/control/prerm" "$@" >"$tmp/prerm.out" 2>&1 || got=$?
  [ "$got" = "$want" ] || { sed 's/^/        /' "$tmp/prerm.out"; return 1; }
  [ "$want" = 0 ] || grep -q "refusing to downgrade" "$tmp/prerm.out"
}
check "prerm refuses a downgrade (upgrade 0~older)" prerm_says 1 upgrade "0~older"
check "prerm refuses being installed over a newer version (failed-upgrade $version.1)" \
  prerm_says 1 failed-upgrade "$version.1"
check "prerm lets an upgrade (upgrade $version.1), a reinstall and a removal through" \
  eval 'prerm_says 0 upgrade "$version.1" && prerm_says 0 upgrade "$version" && prerm_says 0 remove'
preinst_says() { # preinst_says STATUS ARGS...: preinst exits with STATUS; a refusal names both
  local want=$1; shift
  local got=0
  env -u FABRIC_BROKER_ALLOW_DOWNGRADE sh "$tmp/control/preinst" "$@" >"$tmp/preinst.out" 2>&1 || got=$?
  [ "$got" = "$want" ] || { sed 's/^/        /' "$tmp/preinst.out"; return 1; }
  [ "$want" = 0 ] || grep -q "refusing to downgrade from $2 to $version" "$tmp/preinst.out"
}
check "preinst refuses being installed over a newer version (upgrade/install $version.1)" \
  eval 'preinst_says 1 upgrade "$version.1" "$version" && preinst_says 1 install "$version.1" "$version"'
check "preinst lets an install, an upgrade and a reinstall through" \
  eval 'preinst_says 0 install && preinst_says 0 upgrade "0~older" "$version" && preinst_says 0 upgrade "$version" "$version"'
check "FABRIC_BROKER_ALLOW_DOWNGRADE=1 lets a downgrade through preinst and prerm" \
  eval 'FABRIC_BROKER_ALLOW_DOWNGRADE=1 sh "$tmp/control/preinst" upgrade "$version.1" "$version" 2>/dev/null && FABRIC_BROKER_ALLOW_DOWNGRADE=1 sh "$tmp/control/prerm" upgrade "0~older" 2>/dev/null'
appstream_validate() {
  appstreamcli validate --no-net "$extract/usr/share/metainfo/$app_id.metainfo.xml" >"$tmp/as.txt" 2>&1 ||
    { sed 's/^/        /' "$tmp/as.txt"; return 1; }
}
check "appstreamcli validate --no-net" appstream_validate
man_warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z \
  "$extract/usr/share/man/man1/fabric-broker.1.gz" 2>&1 >/dev/null || echo "man failed")
check "man page renders without warnings" test -z "$man_warnings"
[ -z "$man_warnings" ] || echo "$man_warnings" | sed 's/^/        /'
check "bash completion parses" bash -n "$extract/usr/share/bash-completion/completions/fabric-broker"
unit="$extract/usr/lib/systemd/user/fabric-broker.service"
check "unit runs /usr/bin/fabric-broker --headless --listen" \
  grep -qx 'ExecStart=/usr/bin/fabric-broker --headless --listen' "$unit"
if command -v systemd-analyze >/dev/null; then
  # Verify a copy pointing at the extracted binary (the host has no /usr/bin/fabric-broker).
  sed "s#^ExecStart=/usr/bin/#ExecStart=$extract/usr/bin/#" "$unit" >"$tmp/fabric-broker.service"
  sd_out=$(systemd-analyze verify --man=no "$tmp/fabric-broker.service" 2>&1 || echo "verify failed")
  check "systemd-analyze verify (no findings)" test -z "$sd_out"
  [ -z "$sd_out" ] || echo "$sd_out" | sed 's/^/        /'
  # 9.6 before the hardening of issue 14, 6.2-6.3 after (packaging/README.md).
  sd_exposure() { systemd-analyze security --offline=yes --threshold=70 "$1" >/dev/null 2>&1; }
  check "systemd-analyze security exposure at most 7.0" sd_exposure "$tmp/fabric-broker.service"
fi
for option in NoNewPrivileges=true LockPersonality=true RestrictRealtime=true \
  SystemCallArchitectures=native MemoryDenyWriteExecute=true PrivateTmp=true \
  ProtectSystem=strict; do
  check "unit sets $option" grep -qx "$option" "$unit"
done
check "unit keeps the audit log, its day marker and the socket writable" \
  grep -qx 'ReadWritePaths=%t %h/.local/share/fabric-broker %h/.local/state/fabric-broker' "$unit"
check "man page is stamped with version $version" \
  zgrep -q "\"fabric-broker $version\"" "$extract/usr/share/man/man1/fabric-broker.1.gz"
check "changelog.gz starts with version $version" \
  zgrep -q "^fabric-broker ($version)" "$extract/usr/share/doc/fabric-broker/changelog.gz"
check "metainfo has a <release> for $version" \
  grep -q "<release version=\"$version\"" "$extract/usr/share/metainfo/$app_id.metainfo.xml"
for size in 16 32 48 64 128 256 512; do
  png="$extract/usr/share/icons/hicolor/${size}x${size}/apps/fabric-broker.png"
  check "icon ${size}x${size} is a ${size} x ${size} PNG" \
    grep -q "PNG image data, $size x $size," <<<"$(file -b "$png" 2>&1)"
done

echo "== 3. install into a clean root and check every path"
root="$tmp/root"
mkdir -p "$root"
if [ "$(id -u)" -eq 0 ]; then
  mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
  touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
  dpkg_install() {
    dpkg --root="$root" --force-depends --force-script-chrootless -i "$deb" >"$tmp/dpkg.log" 2>&1 ||
      { sed 's/^/        /' "$tmp/dpkg.log"; return 1; }
  }
  check "dpkg --root --force-depends -i" dpkg_install
  check "dpkg reports fabric-broker $version installed" \
    test "$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Status} ${Version}' fabric-broker)" \
    = "install ok installed $version"
  installed_root=$root
else
  echo "  (not root: extracting with dpkg-deb -x instead of dpkg --root)"
  installed_root=$extract
fi

# Owner, group and mode as packaged (from the data.tar listing: independent of the extractor).
listing="$tmp/listing.txt"
dpkg-deb -c "$deb" | awk '{ sub(/^\.\//, "", $6); print $1, $2, $6 }' >"$listing"
mode_of() { # mode_of PATH -> octal mode from "drwxr-xr-x"
  local p=$1 line
  line=$(awk -v p="$p" '$3 == p || $3 == p "/" { print $1 }' "$listing")
  [ -n "$line" ] || return 1
  local perm=${line:1:9} octal="" i
  for i in 0 3 6; do
    local t=${perm:$i:3} n=0
    [ "${t:0:1}" = r ] && n=$((n + 4)); [ "${t:1:1}" = w ] && n=$((n + 2)); [ "${t:2:1}" = x ] && n=$((n + 1))
    octal+=$n
  done
  echo "0$octal"
}
declare -A expected=()
for entry in "${expected_files[@]}"; do
  read -r path mode <<<"$entry"
  expected[$path]=1
  if [ -f "$installed_root/$path" ] && [ ! -L "$installed_root/$path" ]; then
    got=$(mode_of "$path" || echo missing)
    installed_mode=$(stat -c '0%a' "$installed_root/$path")
    if [ "$got" = "$mode" ] && [ "$installed_mode" = "$mode" ]; then
      ok "/$path $mode"
    else
      fail "/$path: mode $got in the package, $installed_mode installed, expected $mode"
    fi
  else
    fail "/$path is missing or not a regular file"
  fi
  # Every parent directory is in the package as a 0755 directory.
  dir=$(dirname "$path")
  while [ "$dir" != . ]; do
    expected[$dir]=1
    dir=$(dirname "$dir")
  done
done
for dir in "${!expected[@]}"; do
  [ -d "$installed_root/$dir" ] || continue
  got=$(mode_of "$dir" || echo missing)
  [ "$got" = 0755 ] || fail "directory /$dir has mode $got, expected 0755"
done
check "every entry is owned by root/root" test -z "$(awk '$2 != "root/root"' "$listing")"
unexpected=$(awk '{ print $3 }' "$listing" | sed -e 's#/$##' -e '/^\.\?$/d' | while read -r p; do
  [ -n "${expected[$p]:-}" ] || echo "/$p"
done)
check "nothing else is installed" test -z "$unexpected"
[ -z "$unexpected" ] || echo "$unexpected" | sed 's/^/        unexpected: /'
for exe in usr/bin/fabric-broker usr/libexec/fabric-broker/fabric-broker-app \
  usr/libexec/fabric-broker/fabric-broker-server; do
  check "/$exe is stripped" grep -q ', stripped' <<<"$(file -b "$installed_root/$exe")"
  check "/$exe has no RPATH/RUNPATH" \
    test -z "$(objdump -p "$installed_root/$exe" | grep -E 'R(UN)?PATH' || true)"
done
# What MCP clients spawn links no Qt (the launcher, src/launcher); the app binary is the Qt one.
check "/usr/bin/fabric-broker links no Qt library (the launcher)" \
  test -z "$(objdump -p "$installed_root/usr/bin/fabric-broker" | grep -E 'NEEDED +libQt' || true)"
# What never shows a window (the headless server, a --stdio without a display) runs the server
# binary: Qt Core and Network, no Gui or Widgets.
for exe in usr/libexec/fabric-broker/fabric-broker-app usr/libexec/fabric-broker/fabric-broker-server; do
  check "/$exe does not link libpq, libcrypto or libmicrohttpd (opened on first use)" \
    test -z "$(objdump -p "$installed_root/$exe" | grep -E 'NEEDED +lib(pq|crypto|ssl|microhttpd)' || true)"
done
# The forwarders stay inside the binaries: exported, they would take the libraries' own calls.
for exe in usr/libexec/fabric-broker/fabric-broker-app usr/libexec/fabric-broker/fabric-broker-server; do
  check "/$exe exports no PQ*, EVP_* or MHD_* function (src/lazy's forwarders are internal)" \
    test -z "$(nm -D --defined-only "$installed_root/$exe" | grep -E ' (PQ|EVP_|MHD_)' || true)"
done
check "fabric-broker-server links no Qt Gui or Widgets" \
  test -z "$(objdump -p "$installed_root/usr/libexec/fabric-broker/fabric-broker-server" |
    grep -E 'NEEDED +libQt6(Gui|Widgets)' || true)"

echo "== 4. run the installed binary (host Qt libraries)"
bin="$installed_root/usr/bin/fabric-broker"
home="$tmp/home"
mkdir -p "$home" "$tmp/run"
chmod 0700 "$tmp/run"
run_env=(env -i PATH=/usr/bin:/bin HOME="$home" XDG_RUNTIME_DIR="$tmp/run"
  XDG_DATA_HOME="$home/.local/share" XDG_CONFIG_HOME="$home/.config" QT_QPA_PLATFORM=offscreen
  LANG=C.UTF-8)
check "--version prints 'fabric-broker $version'" \
  test "$("${run_env[@]}" "$bin" --version 2>/dev/null)" = "fabric-broker $version"
help_text=$("${run_env[@]}" "$bin" --help 2>/dev/null || true)
check "--help lists --headless, --stdio and --listen" \
  test "$(grep -cE -- '^ +--(headless|stdio|listen) ' <<<"$help_text")" -eq 3

# MCP round trip over stdio: initialize, notifications/initialized, tools/list, then EOF.
coproc FB { exec "${run_env[@]}" "$bin" --headless --stdio --sandbox 2>"$tmp/stderr.txt"; }
fb_pid=$FB_PID
fb_in=${FB[1]}; fb_out=${FB[0]}
send() { printf '%s\n' "$1" >&"$fb_in"; }
receive() { # receive ID: prints the first response line with that id (within 30 s)
  local line
  while IFS= read -r -t 30 line <&"$fb_out"; do
    case $line in
      \{*) ;;
      *) echo "non-JSON line on stdout: $line" >&2; return 1 ;;
    esac
    if [[ $line =~ \"id\":\ ?$1[,\}] ]]; then
      printf '%s\n' "$line"
      return 0
    fi
  done
  return 1
}
send '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"fabric-broker-package-test","version":"1.0"}}}'
init=$(receive 1 || true)
echo "        initialize -> ${init:0:300}"
check "initialize answered with a result" grep -q '"result":' <<<"$init"
check "initialize names protocolVersion" grep -q '"protocolVersion":"' <<<"$init"
check "serverInfo is fabric-broker $version" \
  grep -Eq '"serverInfo":\{[^}]*"version":"'"${version//./\\.}"'"' <<<"$init"
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
send '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
tools=$(receive 2 || true)
check "tools/list answered with fabric tools" grep -q '"name":"fabric_' <<<"$tools"
exec {fb_in}>&-
status=0
wait "$fb_pid" || status=$?
fb_pid=
check "exits 0 at end of input" test "$status" -eq 0
check "says SANDBOX on stderr" grep -q SANDBOX "$tmp/stderr.txt"
check "audit log created 0600 under XDG_DATA_HOME" \
  test "$(stat -c %a "$home/.local/share/fabric-broker/audit.jsonl" 2>/dev/null)" = 600
[ "$status" -eq 0 ] || sed 's/^/        stderr: /' "$tmp/stderr.txt"

echo "== 5. the relocatable .tar.gz: $(basename "$tgz")"
mkdir -p "$tmp/tgz"
tar -xzf "$tgz" -C "$tmp/tgz"
top=$(ls "$tmp/tgz")
check "one top-level directory ($top)" test "$(ls "$tmp/tgz" | wc -l)" -eq 1
tgz_files=0
for entry in "${expected_files[@]}"; do
  read -r path mode <<<"$entry"
  [[ $path == usr/* ]] || continue # /etc (the autostart entry) is only for the .deb
  tgz_files=$((tgz_files + 1))
  rel=${path#usr/}
  [ -f "$tmp/tgz/$top/$rel" ] || fail ".tar.gz lacks $rel"
done
check ".tar.gz holds the same files as the .deb under usr/" \
  test "$(find "$tmp/tgz/$top" -type f | wc -l)" -eq "$tgz_files"
check "its binary runs in place: --version" \
  test "$("${run_env[@]}" "$tmp/tgz/$top/bin/fabric-broker" --version 2>/dev/null)" = "fabric-broker $version"

if [ "$(id -u)" -eq 0 ]; then
  echo "== 6. remove"
  dpkg_remove() {
    dpkg --root="$root" --force-script-chrootless -r fabric-broker >"$tmp/dpkg-r.log" 2>&1 ||
      { sed 's/^/        /' "$tmp/dpkg-r.log"; return 1; }
  }
  check "dpkg --root -r" dpkg_remove
  left=$(cd "$root" && find usr -type f 2>/dev/null || true)
  check "no files left after removal" test -z "$left"
fi

echo
if [ "$failures" -eq 0 ]; then
  echo "test-install: all checks passed ($(basename "$deb"), $(basename "$tgz"))"
else
  echo "test-install: $failures check(s) FAILED" >&2
  exit 1
fi
