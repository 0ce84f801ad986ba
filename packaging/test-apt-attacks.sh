#!/usr/bin/env bash
# Attacks on the signed APT repository (packaging/apt-repo.sh) and on the downgrade refusal
# (packaging/linux/prerm), issue #39. The attacker controls the mirror (or the network path to
# it) or is a local unprivileged user; never root on the target.
#
#   packaging/test-apt-attacks.sh [OLD_DEB NEW_DEB]
#     default NEW_DEB: the newest .deb in build/package/packages/; OLD_DEB: $FB_OLD_DEB, else the
#     newest fabric-broker_*.deb that packaging/build-previous.sh left in the cache folder
#
# How: apt-repo.sh publishes OLD_DEB, then NEW_DEB, into one repository (one test key); both
# signed trees are kept (the "old" and the "new" snapshot). A small HTTP server on 127.0.0.1
# plays the mirror; each attack swaps what it serves. In a chroot unpacked from the cached base
# tarball of test-apt-releases.sh (FB_CI_CACHE/chroot-<suite>.tar; mmdebstrap when missing), with
# the keyring in /usr/share/keyrings and `deb [signed-by=...] http://127.0.0.1:PORT/fb stable
# main`, `apt-get update` of that source alone is run (Debian's lists come from the tarball;
# apt-get install takes Debian's packages from the shared download cache, a hard-linked copy).
# Each attack prints one line: "ok" = refused as it must be (apt failed, or ignored the bad
# data: no tampered version offered, nothing installed), "FAIL" = got through, with evidence.
#   1. tampering: Packages, Packages.gz, both, Release (+ old Release.gpg), InRelease (body
#      changed; forged text before / after the signed block; no signature at all), unsigned
#      repository, a .deb in pool with other bytes under the same name and version
#   2. signer: re-signed with another key; signed by our key but for another suite (a fresh
#      machine, and one that saw ours)
#   3. freeze: the older, validly signed snapshot served after the newer one was seen; a Release
#      whose Valid-Until has passed, re-signed with the test key
#   4. downgrade (FB_ATTACK_DOWNGRADE_SUITES, default bookworm): NEW installed from the mirror,
#      OLD reachable from a second source signed by the same key: apt-get install =OLD
#      --allow-downgrades, pinning OLD at 1001, pinning NEW at -1, dpkg -i, dpkg -i --force-all,
#      dpkg --unpack, apt-get install ./OLD.deb, and dpkg -i OLD while NEW is only unpacked (an
#      interrupted upgrade); after each NEW must be installed, unchanged (dpkg --verify) and
#      working (--version as a user). Control: FABRIC_BROKER_ALLOW_DOWNGRADE=1 does downgrade.
#   5. secrets and the publisher's machine (on the host): no secret key material in public/, the
#      keyring holds exactly the signing key's public part, OUTDIR/gnupg unreadable by others,
#      an OUTDIR whose gnupg/ another local user created beforehand, an OUTDIR with a space
# Attacks 1-3 run on every suite in FB_ATTACK_SUITES (default "bookworm trixie": apt 2.6 and
# apt 3.0 verify differently, gpgv and sqv).
#
# Environment: FB_CI_CACHE (as test-apt-releases.sh), FB_ATTACK_SUITES,
# FB_ATTACK_DOWNGRADE_SUITES, FB_DEBIAN_MIRROR, FB_APT_KEEP=1 keeps the scratch folder.
# Needs: root (chroot, mount namespaces), reprepro, gnupg, gpgv, dpkg-deb, tar, util-linux
# (unshare, setpriv), python3 (the mirror), mmdebstrap when no cached tarball. Not root and CI
# not true: skipped. In CI (CI=true) a missing prerequisite is a failure.
# Exit status 0 only when every attack was refused and every control passed.
# shellcheck disable=SC2016 # dpkg-query -f '${Field}' formats are dpkg's, not the shell's
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
me=test-apt-attacks

now() { echo "${EPOCHREALTIME/,/.}"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
t_start=$(now)

missing_prerequisite() {
  if [ "${CI:-}" = true ]; then echo "$me: FAIL: $*" >&2; exit 1; fi
  echo "$me: FAIL: $* (a prerequisite is missing)" >&2
  exit 2
}
if [ "$(id -u)" -ne 0 ]; then
  [ "${CI:-}" = true ] || { echo "$me: skipped: needs root (chroot, mount namespaces); CI is not true"; exit 0; }
  missing_prerequisite "needs root (chroot, mount namespaces)"
fi
for tool in reprepro gpg gpgv dpkg-deb tar unshare setpriv chroot python3 gzip sha256sum; do
  command -v "$tool" >/dev/null ||
    missing_prerequisite "$tool is missing (apt-get install reprepro gnupg gpgv dpkg-dev util-linux python3)"
done

cache=${FB_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fabric-broker-ci}
pkg_dir="${FB_PACKAGE_BUILD_DIR:-build/package}/packages"
# shellcheck disable=SC2012 # the newest by time; package file names have no odd characters
new_deb="${2:-$(ls -t "$pkg_dir"/fabric-broker_*.deb 2>/dev/null | head -n1 || true)}"
# shellcheck disable=SC2012
old_deb="${1:-${FB_OLD_DEB:-$(ls -t "$cache"/fabric-broker_*.deb 2>/dev/null | head -n1 || true)}}"
[ -f "$new_deb" ] || missing_prerequisite "no new .deb (scripts/package.sh, or pass OLD_DEB NEW_DEB)"
[ -f "$old_deb" ] || missing_prerequisite "no old .deb (packaging/build-previous.sh, or pass OLD_DEB NEW_DEB)"
new_deb=$(readlink -f "$new_deb"); old_deb=$(readlink -f "$old_deb")
new_v=$(dpkg-deb -f "$new_deb" Version); old_v=$(dpkg-deb -f "$old_deb" Version)
arch=$(dpkg-deb -f "$new_deb" Architecture)
dpkg --compare-versions "$old_v" lt "$new_v" ||
  missing_prerequisite "OLD_DEB ($old_v) must be older than NEW_DEB ($new_v)"
evil_v="$new_v+evil1" # what the attacker wants installed: newer than everything published
read -r -a suites <<<"${FB_ATTACK_SUITES:-bookworm trixie}"
read -r -a downgrade_suites <<<"${FB_ATTACK_DOWNGRADE_SUITES:-bookworm}"
mirror=${FB_DEBIAN_MIRROR:-http://deb.debian.org/debian}

failures=0
ok()   { echo "  ok    $*"; }
fail() { echo "  FAIL  $*"; failures=$((failures + 1)); }
# verdict REFUSED(0/1) ATTACK EVIDENCE: one line per attack
verdict() {
  if [ "$1" = 1 ]; then ok "$2: refused ($3)"; else fail "$2: GOT THROUGH ($3)"; fi
}
timing() { echo "  time  $1: $(since "$2") s"; }
indent() { sed 's/^/        /'; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fb-apt-attacks.XXXXXX")
chmod 0755 "$tmp" # other users may look in (the secrets checks need that), never write
http_pid=
agents=()
cleanup() {
  local status=$? mounted h
  [ -z "$http_pid" ] || kill "$http_pid" 2>/dev/null || true
  for h in "${agents[@]}"; do gpgconf --homedir "$h" --kill gpg-agent >/dev/null 2>&1 || true; done
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

# ---- chroot helpers: run_ns, in_chroot, base_tarball -----------------------------------------
# shellcheck source=packaging/chroot-lib.sh
source "$src/packaging/chroot-lib.sh"

# ---- the repository, two snapshots ------------------------------------------------------------
echo "== $me: $(basename "$old_deb") ($old_v) and $(basename "$new_deb") ($new_v); suites ${suites[*]}"
t=$(now)
out=$tmp/repo
bash "$src/packaging/apt-repo.sh" "$out" "$old_deb" >"$tmp/apt-repo-old.log" 2>&1 ||
  { indent <"$tmp/apt-repo-old.log"; missing_prerequisite "apt-repo.sh failed (old)"; }
agents+=("$out/gnupg")
cp -a "$out/public" "$tmp/snap-old"
sleep 1.1 # the Date fields of the two snapshots differ
bash "$src/packaging/apt-repo.sh" "$out" "$new_deb" >"$tmp/apt-repo-new.log" 2>&1 ||
  { indent <"$tmp/apt-repo-new.log"; missing_prerequisite "apt-repo.sh failed (new)"; }
cp -a "$out/public" "$tmp/snap-new"
export GNUPGHOME=$out/gnupg
gpg --batch --quiet --check-trustdb >/dev/null 2>&1 || true
key=$(gpg --batch --with-colons --list-secret-keys | awk -F: '$1 == "fpr" { print $10; exit }')
keyring=$tmp/snap-new/fabric-broker-archive-keyring.gpg
dists=dists/stable
index="main/binary-$arch/Packages"
echo "        test key $key; old snapshot $(grep '^Date:' "$tmp/snap-old/$dists/Release")," \
  "new $(grep '^Date:' "$tmp/snap-new/$dists/Release")"

# The attacker's package: installs a marker file; newer than anything published.
mk_evil_deb() { # mk_evil_deb VERSION OUTFILE
  local d=$tmp/evil-src-$1
  mkdir -p "$d/DEBIAN" "$d/usr/share/fabric-broker-evil"
  printf 'Package: fabric-broker\nVersion: %s\nArchitecture: %s\nMaintainer: Mallory <m@example.org>\nDescription: not ours\n' \
    "$1" "$arch" >"$d/DEBIAN/control"
  echo "planted by $me" >"$d/usr/share/fabric-broker-evil/marker"
  dpkg-deb --root-owner-group -Zgzip --build "$d" "$2" >/dev/null
}
mk_evil_deb "$evil_v" "$tmp/evil.deb"
mk_evil_deb "$new_v" "$tmp/evil-same-version.deb"

sign_tree() { # sign_tree TREE GNUPGHOME KEY: InRelease and Release.gpg for TREE's Release
  GNUPGHOME=$2 gpg --batch --yes --quiet --no-tty --local-user "$3" --digest-algo SHA512 \
    --clearsign -o "$1/$dists/InRelease" "$1/$dists/Release"
  GNUPGHOME=$2 gpg --batch --yes --quiet --no-tty --local-user "$3" --digest-algo SHA512 \
    --armor --detach-sign -o "$1/$dists/Release.gpg" "$1/$dists/Release"
}
rehash_release() { # rehash_release TREE: Release's checksum lines recomputed from TREE's files
  local rel=$1/$dists/Release line algo='' f
  while IFS= read -r line; do
    case $line in
      MD5Sum:) algo=md5sum ;;
      SHA1:) algo=sha1sum ;;
      SHA256:) algo=sha256sum ;;
      SHA512:) algo=sha512sum ;;
      " "*)
        read -r _ _ f <<<"$line"
        if [ -n "$algo" ] && [ -f "$1/$dists/$f" ]; then
          line=" $($algo "$1/$dists/$f" | cut -d' ' -f1) $(stat -c %s "$1/$dists/$f") $f"
        fi ;;
      *) algo='' ;;
    esac
    printf '%s\n' "$line"
  done <"$rel" >"$rel.new"
  mv "$rel.new" "$rel"
}
# The evil index: the published one plus a stanza for the attacker's package (in pool).
evil_packages() { # evil_packages TREE
  local p=$1/$dists/$index deb=pool/main/f/fabric-broker/fabric-broker_${evil_v}_$arch.deb
  cp "$tmp/evil.deb" "$1/$deb"
  { echo; dpkg-deb -f "$tmp/evil.deb"; echo "Filename: $deb"; echo "Size: $(stat -c %s "$tmp/evil.deb")"
    echo "MD5sum: $(md5sum <"$tmp/evil.deb" | cut -d' ' -f1)"; echo "SHA1: $(sha1sum <"$tmp/evil.deb" | cut -d' ' -f1)"
    echo "SHA256: $(sha256sum <"$tmp/evil.deb" | cut -d' ' -f1)"; } >>"$p.evil"
  # shellcheck disable=SC2094 # reads Packages, writes Packages.evil
  cat "$p" "$p.evil" >"$p.new"; mv "$p.new" "$p.evil"
}
variant() { # variant NAME: a fresh copy of the new snapshot as $tmp/v/NAME, printed
  rm -rf "$tmp/v/$1"; mkdir -p "$tmp/v"; cp -a "$tmp/snap-new" "$tmp/v/$1"; echo "$tmp/v/$1"
}
use_evil_plain() { mv "$1/$dists/$index.evil" "$1/$dists/$index"; }
use_evil_gz() { gzip -9nc "$1/$dists/$index.evil" >"$1/$dists/$index.gz"; rm "$1/$dists/$index.evil"; }
use_evil_both() { gzip -9nc "$1/$dists/$index.evil" >"$1/$dists/$index.gz"; mv "$1/$dists/$index.evil" "$1/$dists/$index"; }
forged_release_text() { # forged_release_text TREE: TREE's Release rehashed for its (evil) files
  local c=$tmp/forge.$$; rm -rf "$c"; cp -a "$1" "$c"; rehash_release "$c"; cat "$c/$dists/Release"; rm -rf "$c"
}
declare -A trees=() names=()
order=()
add_tree() { order+=("$1"); trees[$1]=$2; names[$1]=$3; }

v=$(variant packages); evil_packages "$v"; use_evil_plain "$v"
add_tree packages "$v" "Packages changed (evil $evil_v stanza), Packages.gz and Release untouched"
v=$(variant packages-gz); evil_packages "$v"; use_evil_gz "$v"
add_tree packages-gz "$v" "Packages.gz changed, Packages and Release untouched"
v=$(variant packages-all); evil_packages "$v"; use_evil_both "$v"
add_tree packages-all "$v" "Packages and Packages.gz changed consistently"
v=$(variant release); evil_packages "$v"; use_evil_both "$v"; rehash_release "$v"; rm "$v/$dists/InRelease"
add_tree release "$v" "Release rehashed for the changed indexes, InRelease gone, Release.gpg kept"
v=$(variant inrelease); evil_packages "$v"; use_evil_both "$v"
python3 - "$v/$dists/InRelease" "$(forged_release_text "$v")" <<'PY'
import sys
path, forged = sys.argv[1], sys.argv[2] + "\n"
text = open(path).read()
head, rest = text.split("\n\n", 1)            # armor header block
body, sig = rest.split("\n-----BEGIN PGP SIGNATURE-----", 1)
open(path, "w").write(head + "\n\n" + forged.rstrip("\n") + "\n-----BEGIN PGP SIGNATURE-----" + sig)
PY
add_tree inrelease "$v" "InRelease body replaced by the rehashed Release, signature kept"
v=$(variant inrelease-prefix); evil_packages "$v"; use_evil_both "$v"
{ forged_release_text "$v"; echo; cat "$tmp/snap-new/$dists/InRelease"; } >"$v/$dists/InRelease.new"
mv "$v/$dists/InRelease.new" "$v/$dists/InRelease"
add_tree inrelease-prefix "$v" "InRelease: forged Release text before the (good) signed block"
v=$(variant inrelease-suffix); evil_packages "$v"; use_evil_both "$v"
{ cat "$tmp/snap-new/$dists/InRelease"; forged_release_text "$v"; } >"$v/$dists/InRelease.new"
mv "$v/$dists/InRelease.new" "$v/$dists/InRelease"
add_tree inrelease-suffix "$v" "InRelease: forged Release text after the (good) signed block"
v=$(variant inrelease-plain); evil_packages "$v"; use_evil_both "$v"
forged_release_text "$v" >"$v/$dists/InRelease.new"; mv "$v/$dists/InRelease.new" "$v/$dists/InRelease"
cp "$v/$dists/InRelease" "$v/$dists/Release"
add_tree inrelease-plain "$v" "InRelease and Release forged, no signature in InRelease, old Release.gpg"
v=$(variant unsigned); evil_packages "$v"; use_evil_both "$v"; rehash_release "$v"
rm "$v/$dists/InRelease" "$v/$dists/Release.gpg"
add_tree unsigned "$v" "unsigned: InRelease and Release.gpg removed, Release rehashed"
# Another key.
evil_home=$tmp/evil-gnupg; mkdir -m 0700 "$evil_home"; agents+=("$evil_home")
GNUPGHOME=$evil_home gpg --batch --quiet --passphrase '' --quick-generate-key \
  "Fabric Broker test archive key <fabric-broker@users.noreply.github.com>" ed25519 sign 2y 2>/dev/null
evil_key=$(GNUPGHOME=$evil_home gpg --batch --with-colons --list-secret-keys | awk -F: '$1 == "fpr" { print $10; exit }')
v=$(variant other-key); evil_packages "$v"; use_evil_both "$v"; rehash_release "$v"
sign_tree "$v" "$evil_home" "$evil_key"
add_tree other-key "$v" "re-signed with another key (same user id as ours)"
# Our key, another suite: the old snapshot's contents as they would be in a suite "testing".
v=$tmp/v/other-suite; cp -a "$tmp/snap-old" "$v"
sed -i -e 's/^Suite: stable$/Suite: testing/' -e 's/^Codename: stable$/Codename: testing/' "$v/$dists/Release"
sign_tree "$v" "$GNUPGHOME" "$key"
# The same, dated now (after ours, not in the future), for a machine that has seen ours.
v=$tmp/v/other-suite-newer; cp -a "$tmp/v/other-suite" "$v"
sed -i -e "s/^Date: .*/Date: $(LC_ALL=C date -u '+%a, %d %b %Y %H:%M:%S UTC')/" "$v/$dists/Release"
sign_tree "$v" "$GNUPGHOME" "$key"
# Expired: the new snapshot, Date 40 days ago, Valid-Until 10 days ago, re-signed with our key.
v=$tmp/v/expired; cp -a "$tmp/snap-new" "$v"
sed -i -e "s/^Date: .*/Date: $(LC_ALL=C date -u -d '-40 days' '+%a, %d %b %Y %H:%M:%S UTC')/" \
  -e "s/^Valid-Until: .*/Valid-Until: $(LC_ALL=C date -u -d '-10 days' '+%a, %d %b %Y %H:%M:%S UTC')/" "$v/$dists/Release"
sign_tree "$v" "$GNUPGHOME" "$key"
# The .deb in pool: same name and version, other bytes.
v=$(variant pool-deb)
cp "$tmp/evil-same-version.deb" "$v/pool/main/f/fabric-broker/fabric-broker_${new_v}_$arch.deb"
for d in "$tmp"/v/*; do chmod -R a+rX "$d"; done
chmod -R a+rX "$tmp/snap-old" "$tmp/snap-new"
timing "repository, snapshots and ${#order[@]}+4 attack trees" "$t"

# ---- the mirror ---------------------------------------------------------------------------------
www=$tmp/www; mkdir -p "$www"
python3 - "$www" "$tmp/http.port" <<'PY' >"$tmp/http.log" 2>&1 &
import functools, http.server, os, sys
class Handler(http.server.SimpleHTTPRequestHandler):
    def send_head(self):  # every request gets the file as it is now (no 304)
        del self.headers["If-Modified-Since"]
        return super().send_head()
    def log_message(self, *args):
        pass
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=sys.argv[1]))
with open(sys.argv[2] + ".new", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(sys.argv[2] + ".new", sys.argv[2])
srv.serve_forever()
PY
http_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/http.port" ] && break; sleep 0.05; done
[ -s "$tmp/http.port" ] || { cat "$tmp/http.log"; missing_prerequisite "the HTTP mirror did not start"; }
port=$(cat "$tmp/http.port")
base=http://127.0.0.1:$port
serve() { # serve PATH TREE: the mirror serves TREE at /PATH (fresh copy: new mtimes)
  rm -rf "${www:?}/$1"; cp -r "$2" "$www/$1"; chmod -R a+rX "$www/$1"
}

# ---- per suite --------------------------------------------------------------------------------
keyring_path=/usr/share/keyrings/fabric-broker-archive-keyring.gpg
for suite in "${suites[@]}"; do
  echo "== $suite"
  t_suite=$(now)
  tarball=$(base_tarball "$suite") || { fail "$suite: no base tarball"; continue; }
  root=$tmp/root-$suite; logs=$tmp/logs-$suite; mkdir -p "$root" "$logs"
  tar -C "$root" -xf "$tarball"
  [ -e /etc/resolv.conf ] && cp -L /etc/resolv.conf "$root/etc/resolv.conf"
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"; chmod 0755 "$root/usr/sbin/policy-rc.d"
  install -m 0644 "$keyring" "$root$keyring_path"
  list=/etc/apt/sources.list.d/fabric-broker.list
  echo "deb [signed-by=$keyring_path] $base/fb stable main" >"$root$list"
  # Debian's packages from the shared download cache, through a copy of it of our own.
  archives=$tmp/archives-$suite; mkdir -p "$archives/partial"
  if [ -d "$cache/apt-archives-$suite" ]; then
    cp -al "$cache/apt-archives-$suite/." "$archives/" 2>/dev/null || cp -a "$cache/apt-archives-$suite/." "$archives/"
  fi
  rm -f "$archives"/fabric-broker_*
  export FB_NS_ARCHIVES=$archives
  echo "        $(cat "$root/etc/debian_version"), $(in_chroot "$root" apt-get --version | head -n1)"


  apt_update() { # apt_update LOG: our sources only; apt's status in $st
    st=0
    in_chroot "$root" apt-get -q -o Dpkg::Use-Pty=0 -o Dir::Etc::sourcelist="sources.list.d/fabric-broker.list" \
      -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0 update >"$1" 2>&1 || st=$?
  }
  forget_lists() { rm -rf "$root"/var/lib/apt/lists/*127.0.0.1* "$root"/var/lib/apt/lists/partial/*127.0.0.1*; }
  offered() { # the versions of fabric-broker the mirror's source offers, space-separated
    in_chroot "$root" apt-cache madison fabric-broker 2>/dev/null |
      awk -F'|' -v b="$base" 'index($3, b) { gsub(/ /, "", $2); printf "%s ", $2 }' | sed 's/ $//' || true
  }
  messages() { { grep -E '^(E|W|Err|Error|Warning):' "$1" || true; } | head -n "${2:-2}" | cut -c1-200 | tr '\n' ' ' | sed 's/ $//'; }
  evil_installed() { [ -e "$root/usr/share/fabric-broker-evil/marker" ]; }
  sim_installs() { # what apt-get -s install fabric-broker would install (the version) or ''
    in_chroot "$root" apt-get -s -q install fabric-broker 2>/dev/null | awk '/^Inst fabric-broker / { gsub(/[()]/, "", $3); print $3 }' || true
  }

  # Control: the published tree is accepted and offers NEW.
  t=$(now)
  serve fb "$tmp/snap-new"; forget_lists; apt_update "$logs/control.log"
  got=$(offered)
  if [ "$st" -eq 0 ] && [ "$got" = "$new_v" ] && [ -z "$(messages "$logs/control.log")" ]; then
    ok "control: the published repository is accepted, offers $got"
  else
    fail "control: the published repository (exit $st, offers '${got}') $(messages "$logs/control.log" 3)"
    indent <"$logs/control.log"; continue
  fi

  # 1. tampering, 2a. another key: a machine that has not seen the repository yet.
  for name in "${order[@]}"; do
    serve fb "${trees[$name]}"; forget_lists; apt_update "$logs/$name.log"
    got=$(offered); would=''
    [ -z "$got" ] || would=$(sim_installs)
    refused=1
    case " $got " in *" $evil_v "*) refused=0 ;; esac
    [ "$would" != "$evil_v" ] || refused=0
    ! evil_installed || refused=0
    verdict "$refused" "$name: ${names[$name]}" \
      "update exit $st, offers '${got:-nothing}'$( [ -z "$would" ] || echo ", install would take $would"); $(messages "$logs/$name.log")"
  done

  # 1. the .deb in pool with other bytes: indexes untouched, apt-get install must fail.
  serve fb "$tmp/v/pool-deb"; forget_lists; apt_update "$logs/pool-deb.log"
  in_chroot "$root" apt-get -q -y -o Dpkg::Use-Pty=0 --no-install-recommends install fabric-broker \
    >"$logs/pool-deb-install.log" 2>&1 && ist=0 || ist=$?
  status=$(in_chroot "$root" dpkg-query -W -f='${Status} ${Version}' fabric-broker 2>/dev/null || true)
  refused=1
  [ "$ist" -ne 0 ] || refused=0
  ! evil_installed || refused=0
  case $status in *" installed "*) refused=0 ;; esac
  verdict "$refused" "pool-deb: fabric-broker_${new_v}_$arch.deb in pool replaced by other bytes (same name, version)" \
    "install exit $ist, dpkg: '${status:-not installed}'; $(grep -E '^(E|Error):' "$logs/pool-deb-install.log" | head -n1 | cut -c1-160)"

  # 2b. our key, another suite: a fresh machine.
  serve fb "$tmp/v/other-suite"; forget_lists; apt_update "$logs/other-suite-fresh.log"
  got=$(offered)
  refused=1; [ "$st" -eq 0 ] && [ -n "$got" ] && refused=0
  # apt's own behaviour, not ours to change: documented as a residual (packaging/README.md, "A
  # signed APT repository": the release key signs one repository). Reported, not failed; it
  # fails if apt ever stops even warning.
  what="other-suite, fresh machine: InRelease signed by our key for Suite/Codename 'testing' served as 'stable'"
  evidence="update exit $st, offers '${got:-nothing}'; $(messages "$logs/other-suite-fresh.log")"
  if [ "$refused" = 1 ]; then
    ok "$what: refused ($evidence)"
  elif grep -q "Conflicting distribution" "$logs/other-suite-fresh.log"; then
    echo "  known $what: accepted with apt's warning only (residual; the release key signs one repository) ($evidence)"
  else
    fail "$what: GOT THROUGH without apt's warning ($evidence)"
  fi

  # A machine that has seen the published repository.
  seen_new() { serve fb "$tmp/snap-new"; forget_lists; apt_update "$logs/seen.log"; [ "$st" -eq 0 ] && [ "$(offered)" = "$new_v" ]; }

  seen_new || fail "set-up: the machine sees the published repository"
  serve fb "$tmp/v/other-suite-newer"; apt_update "$logs/other-suite-seen.log"
  got=$(offered)
  refused=1; [ "$got" != "$new_v" ] && refused=0
  verdict "$refused" "other-suite, after seeing ours: the same 'testing' InRelease, dated after ours" \
    "update exit $st, offers '${got:-nothing}'; $(messages "$logs/other-suite-seen.log")"

  # 3. freeze: the older, validly signed snapshot after the newer one was seen.
  seen_new || fail "set-up: the machine sees the published repository"
  serve fb "$tmp/snap-old"; apt_update "$logs/replay.log"
  got=$(offered)
  refused=1; [ "$got" != "$new_v" ] && refused=0
  verdict "$refused" "replay: the older signed snapshot ($old_v, $(grep '^Date:' "$tmp/snap-old/$dists/Release" | cut -d' ' -f2-)) after the newer was seen" \
    "update exit $st, offers now '${got:-nothing}'$( [ -z "$(messages "$logs/replay.log")" ] && echo ", no error or warning" || echo "; $(messages "$logs/replay.log")")"

  # What decides it: the same snapshot is taken by a machine that has not seen the newer one.
  forget_lists; apt_update "$logs/replay-fresh.log"
  echo "        (the older snapshot on a fresh machine: update exit $st, offers '$(offered)': apt refuses a Release" \
    "older than the one it holds; a machine that never saw the newer is held back until Valid-Until)"

  seen_new || fail "set-up: the machine sees the published repository"
  serve fb "$tmp/v/expired"; apt_update "$logs/expired.log"
  got=$(offered)
  refused=1; { [ "$st" -eq 0 ] || ! grep -qi 'expired' "$logs/expired.log"; } && refused=0
  verdict "$refused" "expired: Valid-Until 10 days ago, re-signed with our key" \
    "update exit $st, offers '${got:-nothing}'; $(messages "$logs/expired.log")"
  forget_lists; apt_update "$logs/expired-fresh.log"
  got=$(offered)
  refused=1; { [ "$st" -eq 0 ] || [ -n "$got" ]; } && refused=0
  verdict "$refused" "expired, fresh machine" "update exit $st, offers '${got:-nothing}'; $(messages "$logs/expired-fresh.log")"
  timing "$suite: repository attacks" "$t"

  # 4. downgrades.
  case " ${downgrade_suites[*]} " in
    *" $suite "*) ;;
    *)
      timing "$suite: total" "$t_suite"
      [ "${FB_APT_KEEP:-0}" = 1 ] || rm -rf --one-file-system "$root" "$archives"
      continue ;;
  esac
  t=$(now)
  seen_new || fail "set-up: the machine sees the published repository"
  in_chroot "$root" apt-get -q -y -o Dpkg::Use-Pty=0 -o Dpkg::Options::=--force-unsafe-io \
    --no-install-recommends install fabric-broker >"$logs/install.log" 2>&1 && ist=0 || ist=$?
  in_chroot "$root" useradd --create-home fbtest >/dev/null 2>&1 || true
  uid=$(in_chroot "$root" id -u fbtest); gid=$(in_chroot "$root" id -g fbtest)
  version_as_user() {
    run_ns "$root" chroot "--userspec=$uid:$gid" "$root" /usr/bin/env -i HOME=/home/fbtest \
      PATH=/usr/bin:/bin /usr/bin/fabric-broker --version 2>/dev/null || true
  }
  new_intact() { # NEW installed, its files unchanged, it runs
    local s vv ver
    s=$(in_chroot "$root" dpkg-query -W -f='${Status} ${Version}' fabric-broker 2>/dev/null || true)
    vv=$(in_chroot "$root" dpkg --verify fabric-broker 2>&1 || true)
    ver=$(version_as_user)
    intact_evidence="dpkg: '$s'$( [ -z "$vv" ] || echo ", dpkg --verify: $(head -n1 <<<"$vv")"), runs as '$ver'"
    [ "$s" = "install ok installed $new_v" ] && [ -z "$vv" ] && [ "$ver" = "fabric-broker $new_v" ]
  }
  if [ "$ist" -eq 0 ] && new_intact; then
    ok "control: apt-get install fabric-broker from the mirror: $intact_evidence"
  else
    fail "control: apt-get install fabric-broker (exit $ist): $intact_evidence"; tail -n 20 "$logs/install.log" | indent
    continue
  fi
  # OLD reachable too: the old snapshot, signed by the same key, as a second source.
  serve fb-old "$tmp/snap-old"
  echo "deb [signed-by=$keyring_path] $base/fb-old stable main" >>"$root$list"
  apt_update "$logs/both.log"
  got=$(offered)
  if [ "$got" = "$new_v $old_v" ] || [ "$got" = "$old_v $new_v" ]; then
    ok "set-up: both versions reachable ($got)"
  else
    fail "set-up: both versions reachable (offers '$got')"
  fi
  cp "$old_deb" "$root/root/old.deb"
  prefs=$root/etc/apt/preferences.d/fb-attack
  apt_y=(apt-get -q -y -o Dpkg::Use-Pty=0 -o Dpkg::Options::=--force-unsafe-io)
  attempt() { # attempt NAME DESCRIPTION COMMAND...: a downgrade that must be refused
    local name=$1 what=$2 rc=0 refused=1 said
    shift 2
    in_chroot "$root" "$@" >"$logs/down-$name.log" 2>&1 || rc=$?
    rm -f "$prefs"
    said=$(grep -o "refusing to downgrade from [^ ]* to [^ ]*" "$logs/down-$name.log" | head -n1 | sed 's/\.$//' || true)
    [ -n "$said" ] || said=$(messages "$logs/down-$name.log" 1)
    new_intact || refused=0
    [ "$rc" -ne 0 ] || refused=0
    verdict "$refused" "$what" "exit $rc, ${said:-no refusal message}; $intact_evidence"
  }
  attempt apt-eq "apt-get install -y --allow-downgrades fabric-broker=$old_v" \
    "${apt_y[@]}" --allow-downgrades install "fabric-broker=$old_v"
  printf 'Package: fabric-broker\nPin: version %s\nPin-Priority: 1001\n' "$old_v" >"$prefs"
  attempt pin-1001-dist "pin $old_v at 1001, apt-get -y --allow-downgrades dist-upgrade" \
    "${apt_y[@]}" --allow-downgrades dist-upgrade
  printf 'Package: fabric-broker\nPin: version %s\nPin-Priority: 1001\n' "$old_v" >"$prefs"
  attempt pin-1001-upgrade "pin $old_v at 1001, apt-get -y --allow-downgrades upgrade" \
    "${apt_y[@]}" --allow-downgrades upgrade
  printf 'Package: fabric-broker\nPin: version %s\nPin-Priority: -1\n' "$new_v" >"$prefs"
  attempt pin-neg "pin $new_v at -1, apt-get -y --allow-downgrades install fabric-broker" \
    "${apt_y[@]}" --allow-downgrades install fabric-broker
  attempt apt-file "apt-get install -y --allow-downgrades ./old.deb" \
    "${apt_y[@]}" --allow-downgrades install /root/old.deb
  attempt dpkg-i "dpkg -i old.deb" dpkg -i /root/old.deb
  attempt dpkg-force "dpkg -i --force-all old.deb" dpkg --force-all -i /root/old.deb
  attempt dpkg-unpack "dpkg --unpack old.deb" dpkg --unpack /root/old.deb
  # NEW only unpacked (an upgrade or reinstall interrupted before configuring), then an older
  # version: dpkg runs no prerm then, only the older package's preinst. OLD ($old_v) has none, so
  # going back to it is a documented gap (packaging/README.md, "Upgrades and downgrades"); NEW
  # ($new_v) has one: it is tested as the older version, under a NEWER made from NEW by raising
  # its version (and its scripts') to $new_v.1.
  newer=$tmp/newer; rm -rf "$newer"; dpkg-deb -R "$new_deb" "$newer"
  sed -i "s/^Version: .*/Version: $new_v.1/" "$newer/DEBIAN/control"
  sed -i "s/^this=.*/this=$new_v.1/" "$newer/DEBIAN/preinst" "$newer/DEBIAN/prerm"
  dpkg-deb --root-owner-group -Zxz --build "$newer" "$root/root/newer.deb" >/dev/null
  cp "$new_deb" "$root/root/new.deb"
  half() { # half INSTALL DESCRIPTION: NEWER unpacked only, then dpkg -i INSTALL must be refused
    local rc=0 s2 refusedh=1
    in_chroot "$root" dpkg --unpack /root/newer.deb >"$logs/unpack-newer.log" 2>&1 || true
    s=$(in_chroot "$root" dpkg-query -W -f='${Status} ${Version}' fabric-broker 2>/dev/null || true)
    in_chroot "$root" dpkg -i "$1" >"$logs/down-half.log" 2>&1 || rc=$?
    s2=$(in_chroot "$root" dpkg-query -W -f='${Status} ${Version}' fabric-broker 2>/dev/null || true)
    [ "$rc" -eq 0 ] && refusedh=0
    case $s2 in *" $new_v.1") ;; *) refusedh=0 ;; esac
    half_evidence="exit $rc, then dpkg: '$s2', $(grep -o "refusing to downgrade from [^ ]* to [^ ]*" "$logs/down-half.log" | head -n1 | sed 's/\.$//' || true)"
    half_refused=$refusedh
    half_state=${s% *}
  }
  half /root/new.deb
  verdict "$half_refused" "dpkg -i $new_v while $new_v.1 is '$half_state' (dpkg --unpack, not configured): its preinst" \
    "$half_evidence"
  half /root/old.deb
  if [ "$half_refused" = 1 ]; then
    ok "dpkg -i $old_v while $new_v.1 is '$half_state': refused ($half_evidence)"
  else
    echo "  known dpkg -i $old_v while $new_v.1 is '$half_state': $old_v has no preinst, documented ($half_evidence)"
  fi
  in_chroot "$root" env FABRIC_BROKER_ALLOW_DOWNGRADE=1 dpkg -i /root/new.deb >"$logs/back-to-new.log" 2>&1 || true
  # Control: root asking for it does downgrade (the attempts above could have succeeded).
  in_chroot "$root" dpkg -i "/var/cache/apt/archives/fabric-broker_${new_v}_$arch.deb" >"$logs/restore.log" 2>&1 || true
  # The refused attempts may have left OLD's own dependencies (that NEW no longer has) unpacked:
  # configure them, as an administrator finishing an interrupted run would.
  in_chroot "$root" dpkg --configure -a >"$logs/configure-a.log" 2>&1 || true
  rc=0; in_chroot "$root" env FABRIC_BROKER_ALLOW_DOWNGRADE=1 dpkg -i /root/old.deb >"$logs/down-allowed.log" 2>&1 || rc=$?
  s=$(in_chroot "$root" dpkg-query -W -f='${Status} ${Version}' fabric-broker 2>/dev/null || true)
  if [ "$rc" -eq 0 ] && [ "$s" = "install ok installed $old_v" ]; then
    ok "control: FABRIC_BROKER_ALLOW_DOWNGRADE=1 dpkg -i old.deb downgrades ($s)"
  else
    fail "control: FABRIC_BROKER_ALLOW_DOWNGRADE=1 dpkg -i old.deb (exit $rc, dpkg: '$s')"
  fi
  timing "$suite: downgrade attacks" "$t"
  timing "$suite: total" "$t_suite"
  unset FB_NS_ARCHIVES
  [ "${FB_APT_KEEP:-0}" = 1 ] || rm -rf --one-file-system "$root" "$archives"
done

# ---- 5. secrets and the publisher's machine ---------------------------------------------------
echo "== secrets and the publisher's machine"
t=$(now)
pub=$out/public
secret=$(for f in "$pub"/*.gpg "$pub"/*.asc; do gpg --list-packets "$f" 2>/dev/null; done | grep -ci 'secret' || true)
found=$(grep -rlIE 'PRIVATE KEY|SECRET KEY' "$pub" 2>/dev/null || true)
files=$(find "$pub" -type f \( -name '*.key' -o -path '*private-keys*' -o -name '*.kbx' -o -name 'secring*' \) || true)
refused=1; { [ "$secret" -ne 0 ] || [ -n "$found" ] || [ -n "$files" ]; } && refused=0
verdict "$refused" "secret key material in OUTDIR/public" \
  "secret packets: $secret, armored private blocks: ${found:-none}, key files: ${files:-none}"
fprs=$(gpg --batch --with-colons --show-keys "$pub/fabric-broker-archive-keyring.gpg" 2>/dev/null | awk -F: '$1 == "fpr" { print $10 }' | tr '\n' ' ' | sed 's/ $//')
pubs=$(gpg --batch --with-colons --show-keys "$pub/fabric-broker-archive-keyring.gpg" 2>/dev/null | grep -c '^pub:' || true)
signer=$(gpgv --status-fd 1 --keyring "$pub/fabric-broker-archive-keyring.gpg" "$pub/$dists/InRelease" 2>/dev/null |
  awk '$2 == "VALIDSIG" { print $NF }')
refused=1; { [ "$pubs" -ne 1 ] || [ "$signer" != "$key" ]; } && refused=0
verdict "$refused" "the keyring holds more than the signing key's public part" \
  "$pubs public key(s): $fprs; InRelease signed by primary $signer"
leak=$(setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \
  'ls "$1"/private-keys-v1.d/ 2>/dev/null; cat "$1"/private-keys-v1.d/* 2>/dev/null | head -c 40' sh "$out/gnupg" | head -n 2 || true)
refused=1; [ -n "$leak" ] && refused=0
verdict "$refused" "another user reads OUTDIR/gnupg" \
  "mode $(stat -c %a "$out/gnupg"), as nobody: ${leak:-nothing readable}"

# A publisher's OUTDIR in a world-writable folder whose gnupg/ a local user created first (with
# a key of that user's): apt-repo.sh signs with whatever key it finds there.
shared=$tmp/shared; mkdir -m 1777 "$shared"
setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME="$shared" PATH=/usr/bin:/bin GNUPGHOME="$shared/out/gnupg" \
  sh -c 'mkdir -p -m 0700 "$GNUPGHOME" && gpg --batch --quiet --passphrase "" --quick-generate-key "Mallory <m@example.org>" ed25519 sign 1y' \
  >"$tmp/mallory.log" 2>&1 || true
agents+=("$shared/out/gnupg")
mallory=$(setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME="$shared" PATH=/usr/bin:/bin GNUPGHOME="$shared/out/gnupg" \
  gpg --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }' || true)
rc=0; (unset GNUPGHOME; bash "$src/packaging/apt-repo.sh" "$shared/out" "$new_deb") >"$tmp/apt-repo-shared.log" 2>&1 || rc=$?
used=$(gpgv --status-fd 1 --keyring "$shared/out/public/fabric-broker-archive-keyring.gpg" \
  "$shared/out/public/$dists/InRelease" 2>/dev/null | awk '$2 == "VALIDSIG" { print $NF }' || true)
refused=1; [ -n "$mallory" ] && [ "$used" = "$mallory" ] && refused=0
[ -n "$mallory" ] || echo "        (nobody could not make a key: $(tail -n1 "$tmp/mallory.log"))"
verdict "$refused" "OUTDIR/gnupg created beforehand by another local user (with that user's key)" \
  "apt-repo.sh exit $rc, repository signed by ${used:-nothing}; the other user's key ${mallory:-none}, owner of gnupg/: $(stat -c %U "$shared/out/gnupg")"

# A space in OUTDIR (conf/options, the outdir line).
rc=0; (unset GNUPGHOME; bash "$src/packaging/apt-repo.sh" "$tmp/with space/repo" "$new_deb") >"$tmp/apt-repo-space.log" 2>&1 || rc=$?
agents+=("$tmp/with space/repo/gnupg")
if [ "$rc" -eq 0 ] && [ -s "$tmp/with space/repo/public/$dists/InRelease" ]; then
  ok "apt-repo.sh with a space in OUTDIR publishes in OUTDIR/public"
else
  fail "apt-repo.sh with a space in OUTDIR (exit $rc): $(grep -v '^==' "$tmp/apt-repo-space.log" | head -n2 | tr '\n' ' ')"
fi
# Valid-Until present and within FB_APT_VALID_FOR's default (30 days).
vu=$(sed -n 's/^Valid-Until: //p' "$pub/$dists/Release")
days=$(( ( $(date -u -d "${vu:-now}" +%s) - $(date -u +%s) ) / 86400 ))
if [ -n "$vu" ] && [ "$days" -ge 28 ] && [ "$days" -le 30 ]; then
  ok "the signed Release carries Valid-Until: $vu (in $days days)"
else
  fail "the signed Release carries Valid-Until (got '${vu:-none}')"
fi
left=$(pgrep -f -x "gpg-agent --homedir $out/gnupg --use-standard-socket --daemon" | head -n1 || true)
echo "        note: gpg-agent for OUTDIR/gnupg still running after apt-repo.sh: ${left:-no}"
timing "secrets" "$t"

echo
echo "  time  total: $(since "$t_start") s"
if [ "$failures" -eq 0 ]; then
  echo "$me: every attack was refused"
else
  echo "$me: $failures attack(s) GOT THROUGH or check(s) FAILED" >&2
  exit 1
fi
