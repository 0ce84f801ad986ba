#!/bin/sh
# Renders the GUI screenshots offscreen into this folder:
#   docs/screenshots/render.sh [build-dir]
# Builds the fabric-broker-screenshots tool (tests/gui/screenshot_tool.cpp) and runs it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build/screenshots}
if [ ! -f "$build/build.ninja" ] && [ ! -f "$build/Makefile" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFB_BUILD_BENCH=OFF
fi
cmake --build "$build" --target fabric-broker-screenshots -j2
QT_QPA_PLATFORM=offscreen "$build/tests/gui/fabric-broker-screenshots" "$here"
