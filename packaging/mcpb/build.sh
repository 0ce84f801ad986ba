#!/usr/bin/env bash
# Builds the Fabric Broker MCP Bundle (.mcpb, manifest 0.4, server.type "binary") with the
# official CLI (@anthropic-ai/mcpb, a devDependency of tests/e2e: run `npm ci` there first):
# stages manifest.json (version from project(VERSION)), the launcher and the icon, validates the
# manifest, packs the bundle and prints its info.
#
#   packaging/mcpb/build.sh [OUT_DIR]      default: build/mcpb
#   -> OUT_DIR/fabric-broker-<version>.mcpb
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${1:-build/mcpb}"
mcpb="tests/e2e/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js"
[ -f "$mcpb" ] || { echo "mcpb/build.sh: $mcpb is missing (run 'npm ci' in tests/e2e)" >&2; exit 2; }
version=$(sed -n '/^project(FabricBroker/,/)/s/^ *VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || { echo "mcpb/build.sh: cannot read project(VERSION) from CMakeLists.txt" >&2; exit 2; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
stage="$out/stage"
rm -rf "$stage"
mkdir -p "$stage/server"
sed "s/@FB_VERSION@/$version/" packaging/mcpb/manifest.json.in >"$stage/manifest.json"
install -m 0755 packaging/mcpb/fabric-broker-stdio "$stage/server/fabric-broker-stdio"
install -m 0644 resources/icons/fabric-broker-512.png "$stage/icon.png"

node "$mcpb" validate "$stage/manifest.json"
bundle="$out/fabric-broker-$version.mcpb"
rm -f "$bundle"
node "$mcpb" pack "$stage" "$bundle"
node "$mcpb" info "$bundle"
echo "mcpb: $bundle"
