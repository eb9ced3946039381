#!/usr/bin/env bash
# distributed_train.sh SACCADE_CLI: data-parallel training as users run it, two processes on
# loopback: both ranks end with the same parameters, rank 0's loss curve equals one process on the
# same global batch, a killed rank stops the other within seconds with one clear line, and a
# resumed two-process run continues from rank 0's checkpoint.
set -u
cli=$1
dir=$(mktemp -d); trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
fail() { echo "FAIL: $*"; for f in *.log; do echo "--- $f"; cat "$f"; done; exit 1; }
port() { echo $(( 20000 + (RANDOM % 20000) )); }
args=(train patch --dataset digits28 --grid 7 --steps 2 --batch 16 --seed 5)

"${cli[@]}" "${args[@]}" --iterations 8 --eval-every 4 --out one.pt > one.log 2>&1 || fail "single process"
p=$(port)
"${cli[@]}" "${args[@]}" --iterations 8 --eval-every 4 --out two.pt --world-size 2 --rank 1 --master-port "$p" > r1.log 2>&1 &
pid1=$!
"${cli[@]}" "${args[@]}" --iterations 8 --eval-every 4 --out two.pt --world-size 2 --rank 0 --master-port "$p" > r0.log 2>&1 || fail "rank 0"
wait "$pid1" || fail "rank 1"
crc0=$(grep -o 'CRC-32 [0-9a-f]*' r0.log | head -1); crc1=$(grep -o 'CRC-32 [0-9a-f]*' r1.log | head -1)
[ -n "$crc0" ] && [ "$crc0" = "$crc1" ] || fail "parameters differ: '$crc0' vs '$crc1'"
[ "$(grep -c . r1.log)" -eq 1 ] || fail "rank 1 printed more than its closing line"
# The loss column of the metrics: equal to one process within 1e-4 (float sums in another order).
loss_col=$(head -1 one.metrics.csv | tr ',' '\n' | grep -n '^loss$' | cut -d: -f1)
paste -d' ' <(cut -d, -f"$loss_col" one.metrics.csv | tail -n +2) <(cut -d, -f"$loss_col" two.metrics.csv | tail -n +2) \
  | awk 'NF != 2 { bad = 1 } { d = $1 - $2; if (d < 0) d = -d; if (d > 1e-4) bad = 1; n++ }
         END { exit (bad || n != 2) }' || fail "loss curves differ: $(paste -d' ' one.metrics.csv two.metrics.csv)"
echo "ok: two ranks, parameters $crc0, loss curve equal to one process"

# The captioner divides by the global batch's words: two ranks equal one process (without
# dropout, whose draws are each rank's own).
cap=(train caption --feature-dim 8 --hidden 16 --embed 8 --attn-hidden 8 --batch 8 --iterations 6 --eval-every 3
     --eval-images 16 --seed 2 --dropout 0)
"${cli[@]}" "${cap[@]}" --out c1.pt > c1.log 2>&1 || fail "captioner, one process"
p=$(port)
"${cli[@]}" "${cap[@]}" --out c2.pt --world-size 2 --rank 1 --master-port "$p" > c2r1.log 2>&1 &
pid1=$!
"${cli[@]}" "${cap[@]}" --out c2.pt --world-size 2 --rank 0 --master-port "$p" > c2r0.log 2>&1 || fail "captioner rank 0"
wait "$pid1" || fail "captioner rank 1"
loss_col=$(head -1 c1.metrics.csv | tr ',' '\n' | grep -n '^loss$' | cut -d: -f1)
paste -d' ' <(cut -d, -f"$loss_col" c1.metrics.csv | tail -n +2) <(cut -d, -f"$loss_col" c2.metrics.csv | tail -n +2) \
  | awk 'NF != 2 { bad = 1 } { d = $1 - $2; if (d < 0) d = -d; if (d > 1e-4) bad = 1; n++ }
         END { exit (bad || n != 2) }' || fail "captioner loss curves differ: $(paste -d' ' c1.metrics.csv c2.metrics.csv)"
echo "ok: the captioner on two ranks equals one process"

# Rank 0 evaluates 1,000 scenes alone (about 5 s), longer than a 3 s group timeout: the others wait.
p=$(port)
slow=(train caption --feature-dim 8 --hidden 16 --embed 8 --attn-hidden 8 --batch 8 --iterations 2 --eval-every 2
      --eval-images 1000 --seed 2 --group-timeout 3)
"${cli[@]}" "${slow[@]}" --out e.pt --world-size 2 --rank 1 --master-port "$p" > e1.log 2>&1 &
pid1=$!
"${cli[@]}" "${slow[@]}" --out e.pt --world-size 2 --rank 0 --master-port "$p" > e0.log 2>&1 || fail "slow evaluation, rank 0"
wait "$pid1" || fail "rank 1 gave up while rank 0 evaluated"
echo "ok: rank 1 waited out rank 0's evaluations"

# Resume on two processes from rank 0's checkpoint.
p=$(port)
"${cli[@]}" train patch --resume two.pt --iterations 12 --out two.pt --world-size 2 --rank 1 --master-port "$p" > r1b.log 2>&1 &
pid1=$!
"${cli[@]}" train patch --resume two.pt --iterations 12 --out two.pt --world-size 2 --rank 0 --master-port "$p" > r0b.log 2>&1 || fail "resumed rank 0"
wait "$pid1" || fail "resumed rank 1"
grep -q 'saved two.pt after 12 iterations' r0b.log || fail "the resumed run did not reach iteration 12"
# Resumed to another total, it ran under two schedules (8, then 12): the recipe is both runs.
grep -q 're-create it exactly: saccade-cli train patch --dataset digits28 .*--iterations 8 --out two.pt --world-size 2 .*; then saccade-cli train patch --resume two.pt --iterations 12 --out two.pt --world-size 2' r0b.log \
  || fail "the resumed run forgot how it was trained: $(tail -1 r0b.log)"
grep -q 'rank 1 of 2: done after 12 iterations' r1b.log || fail "rank 1 did not resume"
echo "ok: resumed from iteration 8 to 12 on two ranks"

# Kill rank 1 mid-run: rank 0 says so in one line and exits 2, long before the group timeout.
p=$(port)
"${cli[@]}" "${args[@]}" --iterations 1000000 --eval-every 50 --out k.pt --world-size 2 --rank 1 --master-port "$p" --group-timeout 120 > k1.log 2>&1 &
pid1=$!
"${cli[@]}" "${args[@]}" --iterations 1000000 --eval-every 50 --out k.pt --world-size 2 --rank 0 --master-port "$p" --group-timeout 120 > k0.log 2> k0.err &
pid0=$!
for _ in $(seq 1 300); do grep -q 'eval' k0.log && break; kill -0 "$pid0" 2>/dev/null || break; sleep 0.2; done
grep -q 'eval' k0.log || fail "rank 0 never evaluated"
kill -9 "$pid1"
start=$SECONDS
wait "$pid0"; rc=$?
took=$((SECONDS - start))
[ "$rc" -eq 2 ] || fail "rank 0 exited $rc, not 2"
[ "$took" -le 20 ] || fail "rank 0 took $took s to notice"
[ "$(grep -c . k0.err)" -eq 1 ] || fail "not one line: $(cat k0.err)"
grep -q 'rank 0 of 2 lost the training group' k0.err || fail "unclear message: $(cat k0.err)"
echo "ok: rank 0 stopped ${took} s after rank 1 was killed: $(cat k0.err)"
