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
# Serve OUTDIR/public over HTTPS (any static web server); a machine adds it with the two lines
# in packaging/README.md ("A signed APT repository"). Adding a newer .deb replaces the older one
# in `stable`, so `apt-get upgrade` (and unattended-upgrades) moves every machine to it.
#
# Signing key:
#   FB_APT_SIGNING_KEY=FINGERPRINT  sign with this key from $GNUPGHOME (the release key; its
#                                   secret part never leaves the machine that publishes)
#   unset                           use, or make on first use, a test key in OUTDIR/gnupg
#                                   (Ed25519, no passphrase): for tests and trials only
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

mkdir -p "$out/conf" "$out/public"
out=$(cd "$out" && pwd)

if [ -n "${FB_APT_SIGNING_KEY:-}" ]; then
  key=$FB_APT_SIGNING_KEY
else
  export GNUPGHOME="$out/gnupg"
  mkdir -p "$GNUPGHOME"
  chmod 700 "$GNUPGHOME"
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

gpg --batch --yes --export "$key" > "$out/public/fabric-broker-archive-keyring.gpg"
gpg --batch --yes --armor --export "$key" > "$out/public/fabric-broker-archive-keyring.asc"

echo "== apt-repo: $out/public (signed by $key)"
reprepro --basedir "$out" list stable
