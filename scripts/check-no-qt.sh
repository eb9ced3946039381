#!/usr/bin/env bash
# Proves, from one build, that core and saccade-cli stand without Qt:
#  1. every core and CLI source was compiled with no Qt include folder on its command line, so a
#     Qt include anywhere in them (or in what they include) could not have compiled;
#  2. saccade-cli links no Qt library;
#  3. CMake configures core and the CLI with the GUI switched off (no Qt package looked up).
# Usage: scripts/check-no-qt.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1
fail() { echo "saccade: $*: core and the CLI must not depend on Qt" >&2; exit 1; }

commands="$build/compile_commands.json"
[ -f "$commands" ] || fail "$commands is missing (configure with CMAKE_EXPORT_COMPILE_COMMANDS=ON)"
checked=$(/usr/bin/python3 - "$commands" "$PWD" <<'PY'
import json, sys
entries, root = json.load(open(sys.argv[1])), sys.argv[2]
# Plain sources under core/ and app/cli/, and the unity batches that include them.
core = [e for e in entries if e["file"].startswith((root + "/core/", root + "/app/cli/"))
        or "/saccade_core.dir/" in e["file"] or "/saccade-cli.dir/" in e["file"]
        or "/saccade_cli_commands.dir/" in e["file"]]
bad = [e["file"] for e in core if "qt6" in e.get("command", " ".join(e.get("arguments", []))).lower()]
if bad or not core:
    print("QT " + " ".join(bad) if bad else "NONE")
else:
    print(len(core))
PY
)
case "$checked" in
  QT*) fail "compiled with Qt include folders: ${checked#QT }" ;;
  NONE) fail "no core or CLI sources found in $commands" ;;
esac
if ldd "$build/app/cli/saccade-cli" | grep -q "libQt6"; then fail "saccade-cli links Qt"; fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
cmake -S . -B "$probe" -G Ninja -DSACCADE_BUILD_GUI=OFF -DSACCADE_BUILD_TESTS=OFF >/dev/null
if grep -q "^Qt6" "$probe/CMakeCache.txt"; then fail "the no-GUI configuration looked up Qt"; fi
echo "core and saccade-cli: $checked compile commands ran without Qt on their include path; the CLI links no Qt"
