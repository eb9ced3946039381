#!/usr/bin/env bash
# torchscript_import.sh SACCADE_CLI SAMPLES_DIR [exports]: imported TorchScript models as a user
# opens them. Without "exports": the bundled samples/torchscript/*.pt in every command their form
# allows, and the one-line refusals of the views it does not. With "exports": the export scripts
# beside them run (Debian's python3-torch; skipped, exit 77, saying why, when it is missing) and
# their fresh files open the same way.
set -u
cli=$1; samples=$2/torchscript; mode=${3:-bundled}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE PYTHONDONTWRITEBYTECODE=1
fail() { echo "FAIL: $*"; exit 1; }
# refuses WORDS CMD...: exit 2 with one line on stderr that contains WORDS.
refuses() {
  local words=$1; shift
  "$@" > /dev/null 2> "$dir/err"; local rc=$?
  [ $rc -eq 2 ] || fail "'$*' exited $rc, not 2"
  [ "$(wc -l < "$dir/err")" -eq 1 ] || fail "'$*' printed more than one line: $(cat "$dir/err")"
  grep -qF -- "$words" "$dir/err" || fail "'$*' said: $(cat "$dir/err") (expected: $words)"
}

if [ "$mode" = exports ]; then
  if ! /usr/bin/python3 -c 'import torch' 2> /dev/null; then
    echo "skip: Debian's python3-torch is not installed (apt install python3-torch), so the export scripts cannot run"
    exit 77
  fi
  for s in grid_attention glimpse_model vit_model; do
    /usr/bin/python3 "$samples/$s.py" --steps 2 --out "$dir/$s.pt" > "$dir/$s.log" 2>&1 ||
      fail "$s.py: $(tail -3 "$dir/$s.log")"
  done
  models=$dir
else
  models=$samples
fi

grid=$models/grid_attention.pt glimpses=$models/glimpse_model.pt vit=$models/vit_model.pt
sample=translated-fashion60:7

# Grid form with forward_sampled: its traces, the sampled rules, runs and a dataset evaluation.
"$cli" trace --model "$grid" --sample $sample --csv > "$dir/grid.csv" || fail "trace grid"
[ "$(wc -l < "$dir/grid.csv")" -eq 4 ] || fail "the grid model's trace has not 3 steps: $(cat "$dir/grid.csv")"
"$cli" trace --model "$grid" --sample $sample --rule sample --seed 4 --json > "$dir/s1.json" || fail "trace sample"
"$cli" trace --model "$grid" --sample $sample --rule sample --seed 4 --json > "$dir/s2.json"
cmp -s "$dir/s1.json" "$dir/s2.json" || fail "the same seed gave two different sampled traces"
grep -q '"chosen_cells"' "$dir/s1.json" || fail "a sampled trace of the grid model records no chosen cells"
"$cli" compare --model "$grid" --sample $sample --runs 30 > "$dir/runs.txt" || fail "compare runs"
grep -q "30 sampled runs" "$dir/runs.txt" || fail "compare: $(head -3 "$dir/runs.txt")"
"$cli" eval --model "$grid" --limit 40 --json > "$dir/eval.json" || fail "eval grid"
grep -q '"rule": "ksample:10"' "$dir/eval.json" || fail "eval's default rules lack ksample:10"
"$cli" render --model "$grid" --sample $sample --out "$dir/grid.png" > /dev/null || fail "render grid"
[ -s "$dir/grid.png" ] || fail "render wrote nothing"
echo "ok: grid form"

# Glimpse form without forward_sampled: traces yes; sampled views say what is missing.
"$cli" trace --model "$glimpses" --sample $sample --csv > "$dir/glimpses.csv" || fail "trace glimpses"
[ "$(wc -l < "$dir/glimpses.csv")" -eq 4 ] || fail "the glimpse model's trace has not 3 steps"
refuses "has no forward_sampled" "$cli" compare --model "$glimpses" --sample $sample --runs 10
refuses "needs forward_sampled" "$cli" trace --model "$glimpses" --sample $sample --rule sample
echo "ok: glimpse form"

# Transformer form: one step per layer under attention, rollout and head:K; faithfulness of both.
for rule in attention rollout head:3; do
  "$cli" trace --model "$vit" --sample $sample --rule $rule --csv > "$dir/vit.csv" || fail "trace vit $rule"
  [ "$(wc -l < "$dir/vit.csv")" -eq 4 ] || fail "the ViT's $rule trace has not 3 layers"
done
refuses "(this model has 4 heads)" "$cli" trace --model "$vit" --sample $sample --rule head:4
"$cli" compare --model "$vit" --dataset translated-fashion60 --limit 10 > "$dir/rules.txt" 2> /dev/null ||
  fail "compare --dataset on the ViT: $(cat "$dir/rules.txt")"
grep -q "rollout" "$dir/rules.txt" || fail "compare --dataset did not compare the ViT's rules"
"$cli" faithfulness --model "$vit" --rule attention --limit 20 --saliency-images 0 --json > "$dir/raw.json" || fail "faithfulness attention"
"$cli" faithfulness --model "$vit" --rule rollout --limit 20 --saliency-images 0 --json > "$dir/roll.json" || fail "faithfulness rollout"
grep -q '"rule": "rollout"' "$dir/roll.json" || fail "faithfulness ignored --rule rollout"
raw=$(grep -A3 '"mass_in_box_per_step"' "$dir/raw.json" | tail -1 | tr -d " ") roll=$(grep -A3 '"mass_in_box_per_step"' "$dir/roll.json" | tail -1 | tr -d " ")
[ -n "$raw" ] && [ "$raw" != "$roll" ] || fail "raw attention and rollout gave the same last-layer mass ($raw)"
echo "ok: transformer form (last-layer mass: attention $raw, rollout $roll)"

# Files that are not models.
echo "not a model" > "$dir/text.pt"
refuses "is not a TorchScript model" "$cli" trace --model "$dir/text.pt" --sample $sample
head -c 3000 "$vit" > "$dir/cut.pt"
refuses "is not a TorchScript model" "$cli" eval --model "$dir/cut.pt"
echo "all imported models opened ($mode)"
