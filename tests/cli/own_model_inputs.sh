#!/usr/bin/env bash
# own_model_inputs.sh SACCADE_CLI SAMPLES_DIR [exports]: a real model's inputs as users bring
# them. torchvision's ViT (samples/torchscript/torchvision_vit.pt: resize 256, centre crop 224,
# ImageNet normalisation) on images of other sizes and on a folder of mixed sizes; the user's
# --resize/--center-crop/--mean/--std over the file's; bench import's figures; and one line, exit 2,
# for every combination that cannot work. With "exports", the export script runs first (Debian's
# python3-torch; skipped, exit 77, when it is missing) and its fresh file is used.
set -u
cli=$1; samples=$2; mode=${3:-bundled}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE PYTHONDONTWRITEBYTECODE=1
fail() { echo "FAIL: $*"; exit 1; }
refuses() {  # refuses WORDS CMD...: exit 2 with one line on stderr that contains WORDS.
  local words=$1; shift
  "$@" > /dev/null 2> "$dir/err"; local rc=$?
  [ $rc -eq 2 ] || fail "'$*' exited $rc, not 2"
  [ "$(wc -l < "$dir/err")" -eq 1 ] || fail "'$*' printed more than one line: $(cat "$dir/err")"
  grep -qF -- "$words" "$dir/err" || fail "'$*' said: $(cat "$dir/err") (expected: $words)"
}

vit=$samples/torchscript/torchvision_vit.pt
if [ "$mode" = exports ]; then
  /usr/bin/python3 -c 'import torchvision' 2> /dev/null || { echo "skip: python3-torchvision is not installed"; exit 77; }
  /usr/bin/python3 "$samples/torchscript/torchvision_vit.py" --seed 1 --registers 4 --out "$dir/vit.pt" > "$dir/export.log" 2>&1 ||
    fail "torchvision_vit.py: $(tail -3 "$dir/export.log")"
  vit=$dir/vit.pt
fi

# Images of other sizes: a 528x390 and a 204x522 picture (Saccade's own previews).
"$cli" data preview --dataset translated-fashion60 --count 6 --columns 3 --out "$dir/wide.png" > /dev/null || fail "preview"
"$cli" data preview --dataset scenes64 --count 2 --columns 1 --out "$dir/tall.png" > /dev/null || fail "preview"
"$cli" trace --model "$vit" --image "$dir/wide.png" --rule rollout --json > "$dir/t.json" || fail "trace a 528x390 image"
tr -d ' \n' < "$dir/t.json" | grep -q '"image_size":\[224,224\]' || fail "the trace is not of a 224x224 input"
grep -c '"rows": 14' "$dir/t.json" | grep -qx 4 && grep -c '"cols": 14' "$dir/t.json" | grep -qx 4 ||
  fail "the 4 layers' maps are not 14x14 (the prefix dropped)"
echo "ok: a 528x390 image as 224x224"

# A folder of mixed sizes.
mkdir -p "$dir/photos/0" "$dir/photos/1"
cp "$dir/wide.png" "$dir/photos/0/a.png"; cp "$dir/tall.png" "$dir/photos/1/b.png"
"$cli" eval --model "$vit" --dataset "$dir/photos" --json > "$dir/eval.json" || fail "eval on a folder of mixed sizes"
grep -q '"n": 2' "$dir/eval.json" || fail "eval did not read both images: $(head -c 300 "$dir/eval.json")"
echo "ok: a folder of mixed sizes"

# The user's settings over the file's; what cannot work is refused before any work.
"$cli" trace --model "$vit" --image "$dir/wide.png" --resize 300 --mean 0.5 --std 0.25 --csv > /dev/null || fail "overrides"
refuses "--center-crop 224 is larger than --resize 200" "$cli" trace --model "$vit" --image "$dir/wide.png" --resize 200 --center-crop 224
refuses "give --mean and --std together" "$cli" trace --model "$vit" --image "$dir/wide.png" --mean 0.5
refuses "--std must be positive" "$cli" eval --model "$vit" --dataset "$dir/photos" --mean 0.5 --std 0
refuses "--resize must be a whole number" "$cli" compare --model "$vit" --image "$dir/wide.png" --resize 12abc
refuses "not square" "$cli" trace --model "$vit" --image "$dir/wide.png" --center-crop 200x224
refuses "apply to imported TorchScript models" "$cli" trace --model "$samples/models/patch-soft-fashion60.pt" \
  --sample translated-fashion60:1 --mean imagenet
refuses "its centre crop must be 60" "$cli" trace --model "$samples/models/patch-soft-fashion60.pt" \
  --sample translated-fashion60:1 --center-crop 50
echo "ok: overrides and refusals"

# bench import: every figure measured, the switch between maps of one forward included.
"$cli" bench import --model "$vit" --image "$dir/wide.png" --dataset "$dir/photos" --repeats 1 --json > "$dir/b.json" ||
  fail "bench import"
for key in open_ms warm_trace_ms switch_ms eval_ms_per_image read_ms_per_image; do
  tr -d ' \n' < "$dir/b.json" | grep -q "\"$key\":[0-9]" || fail "bench import gave no $key: $(cat "$dir/b.json")"
done
echo "all inputs fitted ($mode)"
