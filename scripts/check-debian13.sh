#!/usr/bin/env bash
# Proves that Saccade builds and passes its whole suite on Debian 13 (trixie: LibTorch 2.6,
# Qt 6.8, OpenCV 4.10): makes a trixie chroot with debootstrap (or re-uses one), clones this
# repository's committed HEAD into it and runs README command 2 (scripts/test.sh) there.
#
# Usage: scripts/check-debian13.sh [CHROOT] [LOG]
#   CHROOT  the chroot folder (default /var/tmp/saccade-trixie); made if it has no Debian yet
#   LOG     where the log goes (default CHROOT.log)
# Needs root (debootstrap, chroot, mounts) and Debian's package mirror. Exit status: that of
# README command 2 inside the chroot. Env: SACCADE_MIRROR (default http://deb.debian.org/debian).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
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

step "clone $(git -C "$src" rev-parse --short HEAD) into $root/work/saccade"
rm -rf "$root/work/saccade"
mkdir -p "$root/work"
git clone -q --no-hardlinks "$src" "$root/work/saccade"

step "README command 2 in the chroot"
set +e
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  bash -c 'cd /work/saccade && scripts/test.sh'
rc=$?
set -e
step "done: README command 2 exited $rc on Debian $(cat "$root/etc/debian_version")"
exit $rc
