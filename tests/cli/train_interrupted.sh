#!/usr/bin/env bash
# train_interrupted.sh SACCADE_CLI: Ctrl+C (SIGINT) stops a training run, which saves its
# checkpoint and says how it was made: the run to its total, stopped at the iteration it reached,
# and how --resume finishes that schedule (a fresh run of as many iterations would anneal its
# learning rate over another total).
set -u
cli=$1
dir=$(mktemp -d); trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
fail() { echo "FAIL: $*"; for f in *.log; do echo "--- $f"; cat "$f"; done; exit 1; }
args=(train patch --dataset digits28 --grid 7 --steps 2 --batch 16 --seed 5 --eval-images 16)

"$cli" "${args[@]}" --iterations 400000 --eval-every 10 --out m.pt > run.log 2>&1 &
pid=$!
for _ in $(seq 1 1200); do grep -q 'eval' run.log && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
grep -q 'eval' run.log || fail "the run never evaluated"
kill -INT "$pid"
wait "$pid" || fail "an interrupted run must exit 0 with its checkpoint saved"
line=$(grep 're-create it exactly' run.log) || fail "no re-create line"
n=$(grep -o 'interrupted; saved m.pt after [0-9]*' run.log | grep -o '[0-9]*$') || fail "no 'interrupted; saved' line"
echo "$line" | grep -q -- "--iterations 400000 --out m.pt, stopped at iteration $n (saccade-cli train patch --resume m.pt --out m.pt finishes its schedule)" \
  || fail "the re-create line of an interrupted run: $line"
echo "$line" | grep -q -- "--iterations $n --out" && fail "an interrupted run claimed a fresh $n-iteration run re-creates it"
echo "ok: an interrupted run at iteration $n says it was stopped and how --resume finishes it"
