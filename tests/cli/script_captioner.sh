#!/usr/bin/env bash
# script_captioner.sh SACCADE_CLI SAMPLES_DIR: the bundled imported captioner
# (samples/torchscript/sat_captioner.pt) as a user opens it: trace word by word with its maps,
# eval with BLEU against scenes64's references, and a rule it lacks refused in one line.
set -u
cli=$1; model=$2/torchscript/sat_captioner.pt
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
fail() { echo "FAIL: $*"; exit 1; }

"$cli" trace --model "$model" --sample scenes64:3 --json --device cpu > "$dir/trace.json" 2> "$dir/err" ||
  fail "trace: $(cat "$dir/err")"
grep -q '"token": "[a-z<]' "$dir/trace.json" || fail "trace has no word: $(head -c 400 "$dir/trace.json")"
grep -q '"rows": 8' "$dir/trace.json" || fail "trace has no 8x8 map: $(head -c 400 "$dir/trace.json")"
grep -q '"probs": \[' "$dir/trace.json" || fail "trace has no map probabilities"

"$cli" eval --model "$model" --dataset scenes64 --limit 20 --device cpu --json > "$dir/eval.json" 2> "$dir/err" ||
  fail "eval: $(cat "$dir/err")"
grep -qi 'bleu' "$dir/eval.json" || fail "eval has no BLEU: $(head -c 400 "$dir/eval.json")"

"$cli" trace --model "$model" --sample scenes64:3 --rule sample --device cpu > /dev/null 2> "$dir/err"; rc=$?
[ $rc -eq 2 ] || fail "trace --rule sample exited $rc, not 2"
[ "$(wc -l < "$dir/err")" -eq 1 ] || fail "trace --rule sample printed more than one line: $(cat "$dir/err")"
grep -q "caption_sampled" "$dir/err" || fail "trace --rule sample said: $(cat "$dir/err")"
echo "imported captioner traced and evaluated"
