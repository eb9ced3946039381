#!/usr/bin/env bash
# shard_merge.sh SACCADE_CLI SAMPLES_DIR: each sharded command, run as N shards and merged,
# prints byte for byte what one unsharded run prints (the "seconds" timing lines removed), with
# the shards given in any order.
set -u
cli=$1; models=$2/models
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
untimed() { grep -v '"seconds":' "$1"; }

# check NAME N ARGS...: the unsharded --json run against N shards merged (given last to first).
check() {
  local name=$1 n=$2; shift 2
  "$cli" "$@" --json > "$name.full.json" || { echo "FAIL: $name unsharded"; exit 1; }
  local parts=()
  for ((i = n - 1; i >= 0; i--)); do
    "$cli" "$@" --shard "$i/$n" > "$name.$i.json" || { echo "FAIL: $name shard $i/$n"; exit 1; }
    parts+=("$name.$i.json")
  done
  "$cli" merge "${parts[@]}" --out "$name.merged.json" > /dev/null || { echo "FAIL: $name merge"; exit 1; }
  if ! diff <(untimed "$name.full.json") <(untimed "$name.merged.json") > "$name.diff"; then
    echo "FAIL: $name: merged shards differ from the unsharded run:"; head -20 "$name.diff"; exit 1
  fi
  [ "$(wc -c < "$name.full.json")" -gt 200 ] || { echo "FAIL: $name printed too little"; exit 1; }
  echo "ok: $name, $n shards merged = unsharded"
}

check eval-patch 3 eval --model "$models/patch-hard-fashion60.pt" --limit 600 --rules soft,sample,argmax,ksample:3
check eval-caption 2 eval --model "$models/caption-hard-scenes64.pt" --limit 250
# Its figures per object size add up too; a shard naming more small objects than it held is refused.
/usr/bin/python3 -c 'import json,sys; z=json.load(open(sys.argv[1]))["by_object_size"]; sys.exit(0 if all(z[k]["objects"] > 0 for k in ("small", "large")) else 1)' \
  eval-caption.merged.json || { echo "FAIL: eval-caption: no small and large objects counted"; exit 1; }
/usr/bin/python3 - eval-caption.0.json forged.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for counts in d["caption_counts"].values():
    counts["named"]["small"]["named"] = counts["named"]["small"]["objects"] + 1
json.dump(d, open(sys.argv[2], "w"))
PY
if "$cli" merge eval-caption.1.json forged.json --out forged.merged.json > forged.out 2>&1 \
    || ! grep -q "more small objects named than held" forged.out; then
  echo "FAIL: a forged count of small objects named was not refused:"; cat forged.out; exit 1
fi
check compare-ram 3 compare --model "$models/ram-fashion28.pt" --dataset fashion28 --limit 700
check sweep-patch 3 sweep --model "$models/patch-hard-fashion60.pt" --runs 10 --dx -6:5 --dy 0:1
check faithfulness-ram 2 faithfulness --model "$models/ram-translated-fashion60.pt" --limit 30 --saliency-images 3
check faithfulness-caption 3 faithfulness --model "$models/caption-soft-scenes64.pt" --limit 7
check adequacy-caption 2 adequacy --model "$models/caption-hard-scenes64.pt" --limit 20 --runs 10
check sweep-caption 3 sweep --model "$models/caption-hard-scenes64.pt" --runs 5
echo "all shards merged"
