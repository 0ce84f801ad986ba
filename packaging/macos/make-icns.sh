#!/bin/sh
# Builds packaging/macos/fabric-broker.icns from the PNG icons. Runs on macOS (iconutil).
#   sh packaging/macos/make-icns.sh
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
icons="$root/resources/icons"
set_dir=$(mktemp -d)/fabric-broker.iconset
mkdir -p "$set_dir"
png() { # png SIZE -> path of the PNG for that size, or nothing
  for c in "$icons/hicolor/${1}x${1}/fabric-broker.png" "$icons/fabric-broker-$1.png"; do
    [ -f "$c" ] && { echo "$c"; return; }
  done
}
for s in 16 32 128 256 512; do
  p=$(png "$s")
  if [ -n "$p" ]; then cp "$p" "$set_dir/icon_${s}x${s}.png"; fi
  p2=$(png $((s * 2)))
  if [ -n "$p2" ]; then cp "$p2" "$set_dir/icon_${s}x${s}@2x.png"; fi
done
iconutil -c icns -o "$root/packaging/macos/fabric-broker.icns" "$set_dir"
echo "wrote $root/packaging/macos/fabric-broker.icns"
