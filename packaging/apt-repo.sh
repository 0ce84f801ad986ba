#!/usr/bin/env bash
# Builds or updates a signed APT repository of fabric-broker with reprepro (Debian's package),
# for fleets that install and upgrade it with apt (unattended-upgrades included).
#
#   packaging/apt-repo.sh OUTDIR DEB...
#
# OUTDIR holds reprepro's state (conf/, db/) and the published tree OUTDIR/public:
#   public/dists/stable/{InRelease,Release,Release.gpg,main/binary-*/Packages*}
#   public/pool/main/f/fabric-broker/fabric-broker_<version>_<arch>.deb
#   public/fabric-broker-archive-keyring.gpg   the public key, binary, for `signed-by=`
#   public/fabric-broker-archive-keyring.asc   the same, armored
# The release key signs this one repository and nothing else: apt warns, but accepts, a Release
# signed by the same key for another suite (packaging/README.md). OUTDIR and what is in it must
# belong to the caller and be writable by no one else (checked).
# Serve OUTDIR/public over HTTPS (any static web server); a machine adds it with the two lines
# in packaging/README.md ("A signed APT repository"). Adding a newer .deb replaces the older one
# in `stable`, so `apt-get upgrade` (and unattended-upgrades) moves every machine to it.
#
# Signing key:
#   FB_APT_SIGNING_KEY=FINGERPRINT  sign with this key from $GNUPGHOME (the release key; its
#                                   secret part never leaves the machine that publishes)
#   unset                           use, or make on first use, a test key in OUTDIR/gnupg
#                                   (Ed25519, no passphrase): for tests and trials only
# Freshness: the signed Release carries Valid-Until (FB_APT_VALID_FOR, default 30d, reprepro's
# ValidFor syntax), after which apt refuses it: a mirror or proxy that keeps serving an old signed
# Release (a freeze or replay, hiding a newer release) cannot hold machines back longer than
# that. Publish again, or re-sign with `reprepro --basedir OUTDIR export stable`, well within it.
# Needs: reprepro, gnupg (apt-get install reprepro gnupg).
set -euo pipefail

usage() { echo "usage: $0 OUTDIR DEB..." >&2; exit 2; }
[ $# -ge 2 ] || usage
out=$1; shift
for deb in "$@"; do
  [ -f "$deb" ] || { echo "apt-repo: no such .deb: $deb" >&2; exit 2; }
done
for tool in reprepro gpg dpkg-deb; do
  command -v "$tool" >/dev/null || {
    echo "apt-repo: $tool is missing (apt-get install reprepro gnupg)" >&2
    exit 2
  }
done

# Everything here decides what the fleet trusts: the key, the configuration, the database, the
# published tree. Another local user must not have made or be able to change any of it (a gnupg/
# made beforehand would hold that user's key, and this script would sign with it).
me=$(id -u)
owned_by_me() { # owned_by_me PATH: PATH is not a symlink, is ours, and no one else may write it
  [ ! -L "$1" ] && [ "$(stat -c %u "$1")" = "$me" ] &&
    [ $(( 8#$(stat -c %a "$1") & 8#022 )) -eq 0 ]
}
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
for path in "$out" "$out/conf" "$out/db" "$out/gnupg" "$out/public"; do
  if [ -e "$path" ] || [ -L "$path" ]; then
    owned_by_me "$path" || {
      echo "apt-repo: $path is not owned by $(id -un) or is writable by others: refusing to" \
        "publish from it (another user could choose what is signed, or the key)" >&2
      exit 1
    }
  fi
done
install -d -m 0755 "$out/conf" "$out/public"

if [ -n "${FB_APT_SIGNING_KEY:-}" ]; then
  key=$FB_APT_SIGNING_KEY
else
  export GNUPGHOME="$out/gnupg"
  install -d -m 0700 "$GNUPGHOME"
  trap 'gpgconf --kill gpg-agent 2>/dev/null || true' EXIT
  key=$(gpg --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')
  if [ -z "$key" ]; then
    echo "== apt-repo: making a test signing key in $GNUPGHOME (not for production)"
    gpg --batch --quiet --passphrase '' \
      --quick-generate-key "Fabric Broker test archive key <fabric-broker@users.noreply.github.com>" \
      ed25519 sign 2y
    key=$(gpg --batch --with-colons --list-secret-keys | awk -F: '$1 == "fpr" { print $10; exit }')
  fi
fi
gpg --batch --with-colons --list-secret-keys "$key" >/dev/null 2>&1 || {
  echo "apt-repo: no secret key $key in ${GNUPGHOME:-~/.gnupg}" >&2
  exit 2
}

# One suite for every release this package installs on (packaging/README.md says which).
cat > "$out/conf/distributions" <<EOF
Origin: Fabric Broker
Label: Fabric Broker
Suite: stable
Codename: stable
Architectures: amd64 arm64
Components: main
Description: Fabric Broker: an MCP server for Equinix Fabric
ValidFor: ${FB_APT_VALID_FOR:-30d}
SignWith: $key
EOF
cat > "$out/conf/options" <<EOF
outdir $out/public
EOF

for deb in "$@"; do
  reprepro --basedir "$out" --silent includedeb stable "$deb"
  # reprepro skips some .debs (no Section, say) with only a message: check it is published.
  name=$(dpkg-deb --field "$deb" Package)
  version=$(dpkg-deb --field "$deb" Version)
  arch=$(dpkg-deb --field "$deb" Architecture)
  listed=$(reprepro --basedir "$out" --architecture "$arch" list stable "$name" | awk '{ print $3 }')
  [ "$listed" = "$version" ] || {
    echo "apt-repo: $deb was not published (stable has ${listed:-nothing} of $name)" >&2
    exit 1
  }
done
# Re-sign even when nothing changed (a new key, or a repository copied from elsewhere).
reprepro --basedir "$out" --silent export stable

# Written next to the tree and renamed into place: never through a link someone left there.
for format in gpg asc; do
  tmpkey=$(mktemp "$out/public/.keyring.XXXXXX")
  if [ "$format" = asc ]; then
    gpg --batch --yes --armor --export "$key" > "$tmpkey"
  else
    gpg --batch --yes --export "$key" > "$tmpkey"
  fi
  chmod 0644 "$tmpkey"
  mv -f "$tmpkey" "$out/public/fabric-broker-archive-keyring.$format"
done

echo "== apt-repo: $out/public (signed by $key)"
reprepro --basedir "$out" list stable
