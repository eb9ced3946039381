#!/usr/bin/env bash
# The prepared GPU check: Saccade's core, CLI and core tests built against a GPU machine's own
# PyTorch (LibTorch 2.x with CUDA) and Debian 12's OpenCV core and imgproc unpacked into a local
# prefix (no imgcodecs: the build reads and writes PNG with its own codec), then run on CUDA.
#
#   scripts/gpu-check.sh prepare          here (Debian, reaches its mirror): download the .debs
#                                         into .gpu-check/debs (git ignores it; about 10 MB)
#   scripts/gpu-check.sh slim | unslim    shrink the checkout to what the check needs (a sparse
#                                         checkout: the device tool carries at most 64 MiB, the
#                                         whole tree is 68) and bring the rest back afterwards
#   scripts/gpu-check.sh run OUT [DEVICE] there: build, then on DEVICE (default cuda): the core
#                                         tests with SACCADE_TEST_DEVICE=DEVICE, bundled models'
#                                         traces on cpu and DEVICE compared (scripts/compare_traces.py),
#                                         a few training iterations of each family, and the bench
#                                         commands on both devices. Writes OUT/gpu-check.log,
#                                         OUT/gpu-check.json and the JSON each step printed.
# `run ... cpu` is the dry run on a machine without a GPU (here it uses Debian's LibTorch when
# python3's torch has no CMake files). Env: PYTHON (default python3), SACCADE_GPU_WORK (build
# folder, default /tmp/saccade-gpu-check), JOBS (default nproc).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
debs=$root/.gpu-check/debs
# Debian 12's OpenCV core + imgproc, what their libraries load beyond glibc, libstdc++ and zlib,
# and the header-only and test libraries the build takes.
packages=(libopencv-core406 libopencv-imgproc406 libopencv-core-dev libopencv-imgproc-dev
          libtbb12 libblas3 liblapack3 libgfortran5 libquadmath0 libgomp1
          libglx0 libglvnd0 libx11-6 libxcb1 libxau6 libxdmcp6 libbsd0 libmd0
          nlohmann-json3-dev libcli11-dev libgtest-dev zlib1g-dev libgloo-dev)
# What the sparse checkout keeps: sources, build files, scripts and the models the check opens.
check_models=(patch-hard-fashion60 ram-fashion28 caption-soft-scenes64 vit-translated-fashion60
              seq-dates-additive seq-dates-transformer)

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

prepare() {
  rm -rf "$debs" && mkdir -p "$debs"
  (cd "$debs" && apt-get download "${packages[@]}") || { echo "gpu-check: apt-get download failed" >&2; exit 1; }
  echo "gpu-check: $(ls "$debs" | wc -l) packages, $(du -sh "$debs" | cut -f1) in $debs"
}

slim() {
  local keep=('/*' '!/samples/models/*' '!/docs/*' '!/tests/fuzz/corpus/*')
  for m in "${check_models[@]}"; do keep+=("/samples/models/$m.*"); done
  git -C "$root" sparse-checkout set --no-cone "${keep[@]}" &&
    echo "gpu-check: the checkout now holds $(git -C "$root" ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1) bytes of tracked files; 'scripts/gpu-check.sh unslim' brings the rest back"
}

unslim() { git -C "$root" sparse-checkout disable && echo "gpu-check: the whole checkout is back"; }

case ${1:-} in
  prepare) prepare; exit ;;
  slim) slim; exit ;;
  unslim) unslim; exit ;;
  run) [ $# -ge 2 ] || usage ;;
  *) usage ;;
esac
out=$(mkdir -p "$2" && cd "$2" && pwd) || { echo "gpu-check: cannot make '$2'" >&2; exit 2; }
device=${3:-cuda}
exec > >(tee "$out/gpu-check.log") 2>&1
work=${SACCADE_GPU_WORK:-/tmp/saccade-gpu-check}
py=${PYTHON:-python3}
jobs=${JOBS:-$(nproc)}
export OMP_WAIT_POLICY=PASSIVE
start=$(date +%s)
step() { echo "== $1 ($(( $(date +%s) - start )) s) =="; }
failures=()
note_failure() { failures+=("$1"); echo "gpu-check: FAILED: $1"; }

step "machine"
nvidia-smi -L 2>/dev/null || echo "(no nvidia-smi)"
torch_line=$("$py" -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())' 2>&1)
echo "python3's torch (version, CUDA, available): $torch_line"

step "dependencies: unpack $(ls "$debs"/*.deb 2>/dev/null | wc -l) packages into $work/deps"
[ -d "$debs" ] || { echo "gpu-check: no $debs: run 'scripts/gpu-check.sh prepare' on a Debian machine first" >&2; exit 1; }
rm -rf "$work/deps" && mkdir -p "$work/deps"
for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$work/deps" || exit 1; done
deps=$work/deps/usr
arch=$deps/lib/x86_64-linux-gnu
mkdir -p "$work/deps/opencv"
cat > "$work/deps/opencv/OpenCVConfig.cmake" << EOF2
# Written by scripts/gpu-check.sh: OpenCV core and imgproc from Debian 12's packages.
set(OpenCV_VERSION 4.6.0)
set(OpenCV_INCLUDE_DIRS "$deps/include/opencv4")
foreach(m core imgproc)
  if(NOT TARGET opencv_\${m})
    add_library(opencv_\${m} SHARED IMPORTED)
    set_target_properties(opencv_\${m} PROPERTIES IMPORTED_LOCATION "$arch/libopencv_\${m}.so.406"
                          INTERFACE_INCLUDE_DIRECTORIES "$deps/include/opencv4")
  endif()
endforeach()
set(OpenCV_LIBS opencv_core opencv_imgproc)
set(OpenCV_FOUND TRUE)
EOF2
export LD_LIBRARY_PATH=$arch:$arch/blas:$arch/lapack${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

step "configure and build (LibTorch: python3's torch, else Debian's)"
torch_prefix=$("$py" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)' 2>/dev/null)
[ -f "$torch_prefix/Torch/TorchConfig.cmake" ] || { echo "python3's torch has no CMake files: using the system LibTorch"; torch_prefix=/usr/lib/x86_64-linux-gnu/cmake; }
extra=()
[ -f /usr/include/zlib.h ] || extra+=("-DZLIB_INCLUDE_DIR=$deps/include")
torch_include=$(dirname "$torch_prefix")/../include
# Gloo's headers: the wheel's own, else Debian's (the symbols are libtorch_cpu's either way).
[ -f "$torch_include/gloo/algorithm.h" ] || [ -f /usr/include/gloo/algorithm.h ] ||
  { echo "this torch has no Gloo headers: using Debian 12's"; extra+=("-DSACCADE_TORCH_GLOO_HEADERS=$deps/include"); }
cmake -S "$root" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSACCADE_BUILD_GUI=OFF \
  -DSACCADE_OPENCV_CODECS=OFF -DOpenCV_DIR="$work/deps/opencv" -DCMAKE_PREFIX_PATH="$torch_prefix;$deps" \
  "${extra[@]}" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$work/build" -j "$jobs" --target saccade-cli core_tests core_length_tests > "$out/build.log" 2>&1 ||
  { grep -m 20 -E "error|undefined" "$out/build.log"; exit 1; }
cli=$work/build/app/cli/saccade-cli
"$cli" doctor --json > "$out/doctor.json" 2>&1 || note_failure "doctor"

step "core tests with SACCADE_TEST_DEVICE=$device"
for t in core_tests core_length_tests; do
  SACCADE_TEST_DEVICE=$device "$work/build/tests/$t" --gtest_brief=1 --gtest_output="json:$out/$t.json" \
    > "$out/$t.log" 2>&1 || note_failure "$t (see $t.log; tests that need Fashion-MNIST fail where it is not installed)"
  tail -3 "$out/$t.log"
done

step "the same traces on cpu and $device"
models=$root/samples/models
traces=(
  "patch-hard-fashion60 --sample translated-digits60:5 --rule sample --seed 3"
  "patch-hard-fashion60 --sample translated-digits60:5 --rule ksample:5 --seed 3"
  "ram-fashion28 --sample digits28:4 --rule sample --seed 7"
  "caption-soft-scenes64 --sample scenes64:2 --rule sample --seed 2"
  "caption-soft-scenes64 --sample scenes64:2 --rule argmax"
  "vit-translated-fashion60 --sample translated-digits60:5 --rule rollout")
: > "$out/traces.jsonl"
for spec in "${traces[@]}"; do
  set -- $spec; m=$1; shift
  "$cli" trace --model "$models/$m.pt" "$@" --device cpu --json > "$work/a.json" || note_failure "trace $spec on cpu"
  "$cli" trace --model "$models/$m.pt" "$@" --device "$device" --json > "$work/b.json" || note_failure "trace $spec on $device"
  "$py" "$root/scripts/compare_traces.py" "$work/a.json" "$work/b.json" >> "$out/traces.jsonl" || note_failure "trace $spec differs"
done
for spec in "seq-dates-additive --rule sample --seed 4" "seq-dates-transformer --rule soft"; do
  set -- $spec; m=$1; shift
  "$cli" translate --model "$models/$m.pt" --text "3rd of March 2021" "$@" --device cpu --json > "$work/a.json" || note_failure "translate $spec on cpu"
  "$cli" translate --model "$models/$m.pt" --text "3rd of March 2021" "$@" --device "$device" --json > "$work/b.json" || note_failure "translate $spec on $device"
  "$py" "$root/scripts/compare_traces.py" "$work/a.json" "$work/b.json" >> "$out/traces.jsonl" || note_failure "translate $spec differs"
done
cat "$out/traces.jsonl"

step "a few training iterations of each family on $device"
: > "$out/training.txt"
for family in "patch --dataset translated-digits60" "ram --dataset translated-digits60" "vit --dataset translated-digits60" "caption" "seq --task dates"; do
  set -- $family; name=$1; shift
  t0=$(date +%s%N)
  "$cli" train $name "$@" --iterations 20 --device "$device" --out "$work/train-$name.pt" > "$work/train-$name.log" 2>&1 ||
    { note_failure "train $name"; tail -3 "$work/train-$name.log"; }
  echo "$name: 20 iterations in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$out/training.txt"
done

step "bench commands on cpu and $device"
for d in cpu "$device"; do
  "$cli" bench compare --model "$models/patch-hard-fashion60.pt" --sample translated-digits60:5 --runs 1000 --repeats 3 --device "$d" > "$out/bench-compare-$d.txt" || note_failure "bench compare on $d"
  "$cli" bench vit --repeats 3 --device "$d" --open "$models/vit-translated-fashion60.pt" --json > "$out/bench-vit-$d.json" || note_failure "bench vit on $d"
  "$cli" bench patch --model "$models/patch-hard-fashion60.pt" --repeats 3 --device "$d" --json > "$out/bench-patch-$d.json" || note_failure "bench patch on $d"
  "$cli" bench ram --repeats 3 --device "$d" --json > "$out/bench-ram-$d.json" || note_failure "bench ram on $d"
  "$cli" bench caption --repeats 3 --device "$d" --json > "$out/bench-caption-$d.json" || note_failure "bench caption on $d"
  "$cli" bench attention --lengths 256,1024,4096 --repeats 3 --device "$d" --json > "$out/bench-attention-$d.json" || note_failure "bench attention on $d"
done

step "summary"
"$py" - "$out" "$device" "$torch_line" "${failures[@]}" << 'EOF2'
import glob, json, os, sys
out, device, torch_line, failures = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def load(name):
    try:
        with open(os.path.join(out, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
tests = {}
for t in ("core_tests", "core_length_tests"):
    doc = load(t + ".json")
    if doc:
        failed = [c["name"] for s in doc["testsuites"] for c in s["testsuite"] if c.get("failures")]
        tests[t] = {"tests": doc["tests"], "failures": doc["failures"], "failed": failed}
traces = [json.loads(line) for line in open(os.path.join(out, "traces.jsonl")) if line.strip()]
bench = {os.path.basename(p)[6:-5]: load(os.path.basename(p)) for p in sorted(glob.glob(os.path.join(out, "bench-*.json")))}
summary = {"schema": "saccade.gpu-check", "version": 1, "device": device, "torch": torch_line,
           "tests": tests, "traces_agree": sum(t["agree"] for t in traces), "traces": len(traces),
           "trace_max_abs_diff": max((t["max_abs_diff"] for t in traces), default=None),
           "training": open(os.path.join(out, "training.txt")).read().splitlines(),
           "bench": bench, "failures": failures}
with open(os.path.join(out, "gpu-check.json"), "w") as f:
    json.dump(summary, f, indent=1)
print(json.dumps({k: v for k, v in summary.items() if k != "bench"}, indent=1))
EOF2
echo "gpu-check: done in $(( $(date +%s) - start )) s with ${#failures[@]} failures; log and JSON in $out"
[ ${#failures[@]} -eq 0 ]
