#!/usr/bin/env bash
# Configures and builds Saccade. Usage: scripts/build.sh BUILD_DIR [extra cmake args...]
# SACCADE_TARGETS="saccade saccade-cli" builds only those targets (and what they need).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1; shift
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@" >/dev/null
# shellcheck disable=SC2086  # the targets are words
cmake --build "$dir" -j "$jobs" ${SACCADE_TARGETS:+--target $SACCADE_TARGETS}
