#!/usr/bin/env bash
# bench_all.sh SACCADE_CLI: `bench all` runs a family's bench in its own process, reads its figures
# and its reference's, and computes each ratio the right way round (a rate: ours / reference; a
# time: reference / ours). The reference here is a stand-in script with fixed figures, so the
# ratios are checked exactly; without a reference every reference figure is null, never 0.
set -u
cli=$1
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
cat > "$dir/sat_reference.py" <<'PY'
import json
print(json.dumps({"torch": "stand-in", "images_per_s": 100.0, "ms": 1000.0}))
PY
"$cli" --threads 1 bench all --family caption --reference "$dir" --json > "$dir/with.json" 2> "$dir/with.err" ||
  { echo "FAIL: bench all with a reference: $(cat "$dir/with.err")"; exit 1; }
"$cli" --threads 1 bench all --family caption --json > "$dir/without.json" 2> "$dir/without.err" ||
  { echo "FAIL: bench all without a reference: $(cat "$dir/without.err")"; exit 1; }
/usr/bin/python3 - "$dir" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
w, wo = json.load(open(d + "/with.json")), json.load(open(d + "/without.json"))
assert w["schema"] == "saccade.bench_all" and w["version"] == 1, w.keys()
m = w["machine"]
assert m["cpu"] and m["threads"] == 1 and m["saccade_kernels"] in ("avx512", "avx2", "plain"), m
rows = w["figures"]
assert [r["figure"] for r in rows] == ["captioner training", "1,000 stochastic captions"], rows
train, captions = rows
assert train["reference"] == 100.0 and captions["reference"] == 1000.0, rows
assert abs(train["ratio"] - train["ours"] / 100.0) < 1e-9, train
assert abs(captions["ratio"] - 1000.0 / captions["ours"]) < 1e-9, captions
assert train["ours"] == w["families"]["caption"]["train"]["images_per_s"], train
for r in rows:
    assert r["met"] == (r["ratio"] >= r["target"]), r
for r in wo["figures"]:
    assert r["ours"] > 0 and r["reference"] is None and r["ratio"] is None and r["met"] is None, r
print("ok: training %.0f images/s -> %.2fx; captions %.1f ms -> %.2fx" % (train["ours"], train["ratio"], captions["ours"], captions["ratio"]))
PY
err=$("$cli" bench all --family nope 2>&1 >/dev/null); rc=$?
[ "$rc" -ne 0 ] && [ "$(printf '%s\n' "$err" | grep -c .)" -le 2 ] || { echo "FAIL: --family nope: exit $rc: $err"; exit 1; }
err=$("$cli" bench all --reference "$dir/missing" 2>&1 >/dev/null); rc=$?
[ "$rc" -ne 0 ] || { echo "FAIL: a missing reference folder was accepted"; exit 1; }
echo "bench all reads every figure"
