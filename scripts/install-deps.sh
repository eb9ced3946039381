#!/usr/bin/env bash
# Installs the Debian packages Saccade needs, only those that are missing, by the names of the
# running release: Debian 12 (bookworm: LibTorch 1.13, Qt 6.4, OpenCV 4.6) or Debian 13 (trixie:
# LibTorch 2.6, Qt 6.8, OpenCV 4.10; scripts/check-debian13.sh builds and tests there).
# Usage: scripts/install-deps.sh [--no-gui]
set -euo pipefail

release=$( (. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-unknown}") || echo unknown)
qt_opengl=(libqt6opengl6-dev)
case $release in
  bookworm) ;;
  trixie) qt_opengl=() ;;  # qt6-base-dev carries Qt OpenGL's headers there (a virtual package)
  *) echo "saccade: this is '$release', not Debian 12 (bookworm) or 13 (trixie): trying their package names" >&2 ;;
esac

packages=(cmake ninja-build g++ pkgconf
          libtorch-dev libgloo-dev libopenblas0-pthread libopencv-dev  # libgloo-dev: the headers c10d's ProcessGroupGloo.hpp includes
          nlohmann-json3-dev libcli11-dev zlib1g-dev libgtest-dev libbenchmark-dev
          dataset-fashion-mnist
          desktop-file-utils appstream  # tests/install validates the .desktop and metainfo files
          chromium                      # tests/core/test_report.cpp renders the HTML report headless
          iproute2                      # tests/cli/two_hosts.sh: two ranks in two network namespaces
          python3-matplotlib            # tests/cli/example_reader.sh runs examples/plot_trace_and_runs.py
          python3-torch python3-torchvision)  # tests/matrix and the imports' export scripts write TorchScript files
gui_packages=(qt6-base-dev qt6-charts-dev qt6-svg-dev "${qt_opengl[@]}" libgl-dev libxkbcommon-dev)
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
