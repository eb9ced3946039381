#!/usr/bin/env bash
# deterministic_views.sh SACCADE_CLI SAMPLES_DIR: every view of a model without sampled runs, as a
# user runs them on the bundled imported ViT (samples/torchscript/vit_model.pt) and Saccade's own
# ViT: compare --dataset compares their rules, adequacy gives the signals that need no sampling
# (the same seed twice gives the same figures), faithfulness on an image folder (no boxes) says
# "not measured" (null in JSON) where it used to print 0, report takes --dataset, and bad input is
# one line with exit 2. A stochastic model's comparison is unchanged.
set -u
cli=$1; samples=$2
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE PYTHONDONTWRITEBYTECODE=1
fail() { echo "FAIL: $*"; exit 1; }
refuses() {  # refuses WORDS CMD...: exit 2, one line on stderr containing WORDS
  local words=$1; shift
  "$@" > /dev/null 2> "$dir/err"; local rc=$?
  [ $rc -eq 2 ] || fail "'$*' exited $rc, not 2"
  [ "$(wc -l < "$dir/err")" -eq 1 ] || fail "'$*' printed more than one line: $(cat "$dir/err")"
  grep -qF -- "$words" "$dir/err" || fail "'$*' said: $(cat "$dir/err") (expected: $words)"
}
json() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
vit=$samples/torchscript/vit_model.pt own=$samples/models/vit-translated-fashion60.pt
grid=$samples/torchscript/grid_attention.pt

# An image folder of the model's size (60x60 grey): FOLDER/CLASS/IMAGE.png, no boxes.
/usr/bin/python3 - "$dir/folder" <<'PY' || fail "could not write the image folder"
import os, sys
import numpy as np
from PIL import Image
rng = np.random.RandomState(0)
for label in ("0", "1"):
    os.makedirs(os.path.join(sys.argv[1], label))
    for k in range(3):
        a = np.zeros((60, 60), np.uint8)
        x, y = rng.randint(0, 40, 2)
        a[y:y + 20, x:x + 20] = 255 if label == "0" else 120
        Image.fromarray(a).save(os.path.join(sys.argv[1], label, "%d.png" % k))
PY

# compare --dataset: the rules a transformer has, side by side.
"$cli" compare --model "$vit" --dataset translated-fashion60 --limit 12 > "$dir/cmp.txt" 2> /dev/null || fail "compare vit: $(cat "$dir/cmp.txt")"
for rule in attention head:0 rollout "same most attended cell"; do
  grep -qF "$rule" "$dir/cmp.txt" || fail "compare vit lacks '$rule': $(cat "$dir/cmp.txt")"
done
"$cli" compare --model "$vit" --dataset translated-fashion60 --limit 12 --json > "$dir/cmp.json" 2> /dev/null
[ "$(json "$dir/cmp.json" 'd["schema"], d["images"], d["boxed_images"], len(d["rules"]), len(d["peak_agreement"])')" = \
  "saccade.compare-rules 12 12 3 3" ] || fail "compare vit JSON: $(head -c 400 "$dir/cmp.json")"
json "$dir/cmp.json" 'all(0 <= r["mass_in_box"] <= 1 for r in d["rules"]) and len({r["accuracy"] for r in d["rules"]}) == 1' |
  grep -q True || fail "the ViT's rules have no masses in [0, 1] or answer differently"
"$cli" compare --model "$vit" --dataset "$dir/folder" --json > "$dir/cmpf.json" 2> /dev/null || fail "compare vit on a folder"
[ "$(json "$dir/cmpf.json" 'd["images"], d["boxed_images"], d["rules"][0]["mass_in_box"], d["rules"][0]["pointing"]')" = \
  "6 0 None None" ] || fail "compare on a folder measured box figures: $(head -c 400 "$dir/cmpf.json")"
"$cli" compare --model "$vit" --dataset "$dir/folder" > "$dir/cmpf.txt" 2> /dev/null
grep -q "not measured" "$dir/cmpf.txt" || fail "compare on a folder: $(cat "$dir/cmpf.txt")"
"$cli" compare --model "$own" --dataset translated-fashion60 --limit 12 > "$dir/own.txt" 2> /dev/null || fail "compare own vit"
grep -q "rollout" "$dir/own.txt" || fail "compare own vit: $(cat "$dir/own.txt")"
"$cli" compare --model "$grid" --dataset translated-fashion60 --limit 12 > "$dir/grid.txt" 2> /dev/null || fail "compare grid"
grep -q "sample and forward disagree on" "$dir/grid.txt" || fail "the sampled comparison changed: $(cat "$dir/grid.txt")"
echo "ok: compare"

# adequacy: no sampled runs; confidence, entropy and the seeded shifts; the same seed twice.
for n in 1 2; do
  "$cli" adequacy --model "$vit" --limit 10 --seed 5 --json 2> /dev/null | grep -v '"seconds"' > "$dir/adq$n.json" ||
    fail "adequacy vit"
done
cmp -s "$dir/adq1.json" "$dir/adq2.json" || fail "adequacy with one seed gave two results"
[ "$(json "$dir/adq1.json" 'd["runs"], d["shifts"], d["run_seeds"], d["per_image"][0]["agreement"]')" = "0 8 None None" ] ||
  fail "adequacy vit header: $(head -c 400 "$dir/adq1.json")"
json "$dir/adq1.json" '[s["name"] for s in d["signals"] if s["available"]]' |
  grep -qF "['confidence', 'prediction-entropy', 'shift-agreement', 'shift-look']" || fail "adequacy vit signals"
json "$dir/adq1.json" 'all(0 <= i["shift-agreement"] <= 1 and i["shift-agreement"] * 8 == round(i["shift-agreement"] * 8) for i in d["per_image"])' |
  grep -q True || fail "shift-agreement is not a share of 8 copies"
"$cli" adequacy --model "$vit" --limit 6 --shifts 4 --max-shift 3 > "$dir/adq.txt" 2> /dev/null || fail "adequacy text"
grep -q "no sampled runs" "$dir/adq.txt" && grep -q "4 shifted copies each (up to 3 px" "$dir/adq.txt" &&
  grep -q "agreement .*not measured" "$dir/adq.txt" || fail "adequacy text: $(cat "$dir/adq.txt")"
echo "ok: adequacy"

# faithfulness on a folder: the box figures not measured, deletion and saliency measured.
"$cli" faithfulness --model "$vit" --dataset "$dir/folder" --limit 6 --saliency-images 2 --json > "$dir/f.json" 2> /dev/null ||
  fail "faithfulness on a folder"
[ "$(json "$dir/f.json" 'd["boxed_images"], d["mass_in_box_per_step"], d["pointing_per_step"], d["uniform_mass"], d["expected_calibration_error"], d["grid"], len(d["deletion"])')" = \
  "0 None None None None [6, 6] 6" ] || fail "faithfulness JSON on a folder: $(head -c 600 "$dir/f.json")"
"$cli" faithfulness --model "$vit" --dataset "$dir/folder" --limit 6 --saliency-images 2 > "$dir/f.txt" 2> /dev/null
grep -q "mass in box, pointing game and calibration: not measured" "$dir/f.txt" || fail "faithfulness text: $(cat "$dir/f.txt")"
grep -q " 0\.0%   " "$dir/f.txt" && grep -q "step   mass in box" "$dir/f.txt" && fail "faithfulness printed a box table without boxes"
echo "ok: faithfulness"

# report --dataset, on a folder, for a model without sampled runs.
"$cli" report --model "$vit" --dataset "$dir/folder" --quick --cost-repeats 1 --out "$dir/r.html" > /dev/null 2>&1 ||
  fail "report --dataset FOLDER"
grep -q "The model&#39;s rules compared\|The model's rules compared" "$dir/r.html" || fail "the report lacks the rules"
grep -q "not measured" "$dir/r.html" || fail "the report shows box figures without boxes"
echo "ok: report"

# Bad input: one line, exit 2.
refuses "--shifts: must be a whole number" "$cli" adequacy --model "$vit" --shifts 12abc
refuses "--shifts" "$cli" adequacy --model "$vit" --shifts=-1
refuses "--max-shift" "$cli" adequacy --model "$vit" --max-shift nan
refuses "unknown dataset" "$cli" report --model "$vit" --dataset "$dir/missing" --out "$dir/never.html"
refuses "unknown dataset" "$cli" compare --model "$vit" --dataset "$dir/missing"
[ ! -e "$dir/never.html" ] || fail "a refused report wrote its file"
echo "all deterministic views measured"
