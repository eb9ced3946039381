#!/usr/bin/env bash
# README command 1: install what is missing, build, and start the GUI.
# Without a display it says so and runs the headless demo instead.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
scripts/install-deps.sh
# Only the two programs: the window opens sooner (command 2 builds the tests as well).
SACCADE_TARGETS="saccade saccade-cli" scripts/build.sh build
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo
  echo "saccade: no display found (DISPLAY and WAYLAND_DISPLAY are unset), so the GUI cannot open."
  echo "saccade: running the headless demo instead: build/app/cli/saccade-cli demo"
  echo
  exec build/app/cli/saccade-cli demo
fi
exec build/app/gui/saccade "$@"
