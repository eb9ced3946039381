#!/usr/bin/env bash
# README command 2 (and CI): install what is missing, build, and run the whole test suite.
# First core and the CLI alone, built without Qt (proving they stand without it), then everything.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
jobs=$(nproc 2>/dev/null || echo 2)
start=$(date +%s)

scripts/install-deps.sh

echo "== core and saccade-cli without Qt =="
scripts/build.sh build-nogui -DSACCADE_BUILD_GUI=OFF
if grep -q "^Qt6" build-nogui/CMakeCache.txt || ldd build-nogui/app/cli/saccade-cli | grep -q "libQt6"; then
  echo "saccade: the no-GUI build found or linked Qt: core and the CLI must not depend on it" >&2
  exit 1
fi
(cd build-nogui && ctest -j "$jobs" --output-on-failure)

echo "== everything, with the GUI =="
scripts/build.sh build
(cd build && ctest -j "$jobs" --output-on-failure)
echo "saccade: all tests passed in $(( $(date +%s) - start )) s"
