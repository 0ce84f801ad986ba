#!/usr/bin/env bash
# CI step: every C++ file follows the repository's .clang-format (Debian 12's clang-format 14).
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v clang-format >/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then apt-get install -y -q clang-format >/dev/null; else sudo apt-get install -y -q clang-format >/dev/null; fi
fi
git ls-files 'src/*.cpp' 'src/*.h' 'tests/*.cpp' 'tests/*.h' 'bench/*.cpp' |
  xargs clang-format --dry-run --Werror
echo "== format: clean"
