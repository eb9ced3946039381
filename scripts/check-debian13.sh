#!/usr/bin/env bash
# Proves that Saccade builds and passes its suite on Debian 13 (trixie: LibTorch 2.6, Qt 6.8,
# OpenCV 4.10): makes a trixie chroot with debootstrap (or re-uses one), brings this repository's
# committed HEAD into it (a clone kept there between runs, with its build folder, so a later run
# rebuilds only what changed) and runs README command 2 (scripts/test.sh) there.
#
# Usage: scripts/check-debian13.sh [--fast] [CHROOT] [LOG]
#   --fast  the whole build and the Debian 13 subset of the tests (what broke there before: the
#           memory meter under oneDNN, the presentation's fit, the room walk at 1280x800, the GUI's
#           abuse run, every refusal),
#           as README command 2 runs it on Debian 12; without it, the whole suite
#   CHROOT  the chroot folder (default /var/tmp/saccade-trixie); made if it has no Debian yet
#   LOG     where the log goes (default CHROOT.log)
# Needs root (debootstrap, chroot, mounts) and Debian's package mirror. Exit status: that of the
# run inside the chroot. Env: SACCADE_MIRROR (default http://deb.debian.org/debian).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
fast=0
if [ "${1:-}" = "--fast" ]; then fast=1; shift; fi
root=${1:-/var/tmp/saccade-trixie}
log=${2:-$root.log}
mirror=${SACCADE_MIRROR:-http://deb.debian.org/debian}

[ "$(id -u)" -eq 0 ] || { echo "check-debian13: needs root (debootstrap, chroot and mounts)" >&2; exit 1; }
command -v debootstrap >/dev/null || {
  echo "check-debian13: installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
}
exec > >(tee "$log") 2>&1
start=$(date +%s)
step() { echo "== $1 ($(( $(date +%s) - start )) s) =="; }

if [ ! -f "$root/etc/debian_version" ]; then
  step "debootstrap trixie into $root"
  debootstrap --variant=minbase --include=ca-certificates,git,sudo trixie "$root" "$mirror"
fi
grep -q '^13' "$root/etc/debian_version" || {
  echo "check-debian13: $root holds Debian $(cat "$root/etc/debian_version"), not 13" >&2; exit 1; }

mounted=()
mount_into() {  # mount_into ARGS... TARGET: mount once, and remember it for the unmount on exit
  local target=$root${!#}
  mountpoint -q "$target" && return
  mkdir -p "$target"
  mount "${@:1:$#-1}" "$target"
  mounted=("$target" "${mounted[@]}")
}
cleanup() { for m in "${mounted[@]}"; do umount -l "$m" || true; done; }
trap cleanup EXIT
mount_into -t proc proc /proc
mount_into -t sysfs sys /sys
mount_into --bind /dev /dev
mount_into -t devpts devpts /dev/pts
mount_into -t tmpfs -o size=2g tmpfs /dev/shm
cp /etc/resolv.conf "$root/etc/resolv.conf"

step "bring $(git -C "$src" rev-parse --short HEAD) into $root/work/saccade"
repo=$root/work/saccade
if [ -d "$repo/.git" ]; then  # kept from an earlier run: its build folder makes this run incremental
  git -C "$repo" fetch -q "$src" HEAD
  git -C "$repo" reset -q --hard FETCH_HEAD
  git -C "$repo" clean -q -fdx -e build
else
  mkdir -p "$root/work"
  git clone -q --no-hardlinks "$src" "$repo"
fi

inside='cd /work/saccade && scripts/test.sh'
if [ "$fast" -eq 1 ]; then
  # The whole build, then the tests that broke on Debian 13 before, every refusal, and OpenMP's
  # wait policy (Debian 13's libgomp reads the environment itself).
  inside='cd /work/saccade && scripts/install-deps.sh && scripts/build.sh build && cd build &&
    ctest -j "$(nproc)" --output-on-failure -R "MemoryMeter|^ui_test_main_window|^ui_test_room_walk|^ui_test_gui_abuse|^cli\.refuses_|^cli\.hostile_imports|^install\.check_skips|^cli\.omp_wait_policy"'
fi
step "$( [ "$fast" -eq 1 ] && echo "the build and the Debian 13 subset" || echo "README command 2") in the chroot"
set +e
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  SACCADE_DEBIAN13=0 bash -c "$inside"
rc=$?
set -e
step "done: exit $rc on Debian $(cat "$root/etc/debian_version")"
exit $rc
