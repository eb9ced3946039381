#!/usr/bin/env bash
# Installs the Debian 12 packages Saccade needs, only those that are missing.
# Usage: scripts/install-deps.sh [--no-gui]
set -euo pipefail

packages=(cmake ninja-build g++ pkgconf
          libtorch-dev libgloo-dev libopenblas0-pthread libopencv-dev  # libgloo-dev: the headers c10d's ProcessGroupGloo.hpp includes
          nlohmann-json3-dev libcli11-dev zlib1g-dev libgtest-dev libbenchmark-dev
          dataset-fashion-mnist
          desktop-file-utils appstream  # tests/install validates the .desktop and metainfo files
          chromium)                     # tests/core/test_report.cpp renders the HTML report headless
gui_packages=(qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev libxkbcommon-dev)
[ "${1:-}" = "--no-gui" ] || packages+=("${gui_packages[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "saccade: all ${#packages[@]} Debian packages are installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "saccade: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "saccade: installing ${#missing[@]} Debian packages: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
