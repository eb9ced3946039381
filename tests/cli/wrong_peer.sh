#!/usr/bin/env bash
# wrong_peer.sh SACCADE_CLI: a rank that reaches a service that is not a Saccade rank 0 (garbage
# bytes, random bytes, a silent listener, a web server) stops with one line and exit 2 within the
# group timeout plus a small margin: no abort, no hang.
set -u
cli=$1; here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d); trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
timeout=5
for mode in ff random silent http; do
  p=$(( 20000 + (RANDOM % 20000) ))
  /usr/bin/python3 "$here/wrong_peer.py" "$p" "$mode" 60 > peer.log 2>&1 &
  peer=$!
  for _ in $(seq 50); do grep -q listening peer.log 2>/dev/null && break; sleep 0.1; done
  start=$SECONDS
  err=$("$cli" train patch --dataset digits28 --grid 7 --steps 2 --iterations 2 --out never.pt --world-size 2 \
        --rank 1 --master-port "$p" --group-timeout "$timeout" 2>&1 >/dev/null); rc=$?
  took=$((SECONDS - start))
  kill "$peer" 2>/dev/null; wait "$peer" 2>/dev/null
  [ "$rc" -eq 2 ] || { echo "FAIL: $mode: exit $rc (want 2): $err"; exit 1; }
  [ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ] || { echo "FAIL: $mode: not one line: $err"; exit 1; }
  case "$err" in *"is not a Saccade rank 0"*) ;; *) echo "FAIL: $mode: $err"; exit 1;; esac
  # The timeout plus the program's start and a margin for a busy machine.
  [ "$took" -le $((timeout + 15)) ] || { echo "FAIL: $mode took $took s for a $timeout s group timeout"; exit 1; }
  [ ! -e never.pt ] || { echo "FAIL: $mode: a checkpoint was written"; exit 1; }
  echo "ok: $mode peer refused in $took s: $err"
done
echo "every wrong peer refused"
