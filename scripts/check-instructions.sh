#!/bin/bash
# A speed guard that noise cannot fool: the instructions (valgrind's callgrind, event Ir) that four
# fixed workloads execute, against the counts recorded in scripts/instruction-counts.json. Fails
# (exit 1) when one grows by more than 10%. Run it by hand before landing a change to a kernel;
# it takes about 10 minutes (each workload starts LibTorch under valgrind, about 80 s).
#
#   scripts/check-instructions.sh            # compare with the recorded counts
#   scripts/check-instructions.sh --record   # record the counts of this build (commit the file)
#
# Workloads, one thread (only the named functions are counted, not the start-up):
#   captioner-training   bench caption: one training step of batch 16 (benchCaption)
#   captions-100         bench caption: 100 stochastic captions of one image (CaptionNetworkImpl::decode)
#   translations-100     bench seq --scorer additive: greedy translation of 100 sentences (SeqNetworkImpl::decode)
#   compare-1000         bench compare on the hard patch model: 1,000 runs and their statistics
#
# Valgrind 3.19 runs no AVX-512, and shows the program a processor without it: the counts are of
# the AVX2 variants of Saccade's loops (SACCADE_KERNELS=avx2, on any machine) and OpenBLAS's
# Haswell kernels. A kernel's structure shows in its AVX2 variant as in its AVX-512 one.
set -euo pipefail
cd "$(dirname "$0")/.."

record=0
case "${1:-}" in
--record) record=1 ;;
"") ;;
-h | --help)
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
*)
    echo "check-instructions.sh: unknown argument '$1' (use --record, or nothing)" >&2
    exit 2
    ;;
esac

cli=${SACCADE_CLI:-build/app/cli/saccade-cli}
counts=scripts/instruction-counts.json
limit=0.10
command -v valgrind >/dev/null || { echo "check-instructions.sh: valgrind is not installed (apt install valgrind)" >&2; exit 2; }
[[ -x $cli ]] || { echo "check-instructions.sh: $cli is not built (scripts/build.sh build)" >&2; exit 2; }
model=samples/models/patch-hard-fashion60.pt
[[ -f $model ]] || { echo "check-instructions.sh: $model is missing" >&2; exit 2; }

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# count NAME TOGGLE... -- ARGS...: the instructions inside the TOGGLE functions while running ARGS.
count() {
    local name=$1 toggles=()
    shift
    while [[ $1 != -- ]]; do toggles+=("--toggle-collect=$1"); shift; done
    shift
    echo "check-instructions.sh: $name ..." >&2
    if ! env SACCADE_KERNELS=avx2 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE \
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "${toggles[@]}" "$cli" --threads 1 "$@" \
        >/dev/null 2>"$log"; then
        echo "check-instructions.sh: $name failed under valgrind:" >&2
        tail -5 "$log" >&2
        exit 2
    fi
    local n
    n=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$log" | tail -1)
    [[ -n $n && $n -gt 0 ]] || { echo "check-instructions.sh: $name: callgrind counted nothing" >&2; exit 2; }
    echo "$name $n"
}

# One run of each (--warmups 0 --repeats 1), at sizes that callgrind, some hundreds of times
# slower than the processor here, gets through in minutes.
once=(--warmups 0 --repeats 1)
now=$(
    count captioner-training '*benchCaption*' -- bench caption --batch 16 --steps 1 "${once[@]}" --captions 1
    count captions-100 '*CaptionNetworkImpl::decode*' -- bench caption --batch 1 --steps 1 "${once[@]}" --captions 100
    count translations-100 '*SeqNetworkImpl::decode*' -- bench seq --scorer additive --batch 8 --sentences 100 "${once[@]}"
    count compare-1000 '*::sampleRuns*' '*computeRunStats*' -- bench compare --model "$model" --runs 1000 "${once[@]}"
)

/usr/bin/python3 - "$counts" "$record" "$limit" "$(valgrind --version)" "$(git rev-parse --short HEAD)" <<EOF
import json, sys
path, record, limit, valgrind, commit = sys.argv[1], sys.argv[2] == "1", float(sys.argv[3]), sys.argv[4], sys.argv[5]
now = {line.split()[0]: int(line.split()[1]) for line in """$now""".strip().splitlines()}
if record:
    with open(path + ".tmp", "w") as f:
        json.dump({"schema": "saccade.instruction_counts", "version": 1, "valgrind": valgrind, "commit": commit,
                   "kernels": "avx2", "counts": now}, f, indent=2)
        f.write("\n")
    import os
    os.replace(path + ".tmp", path)
    for name, n in now.items():
        print(f"{name:20s} {n:>16,d} recorded")
    sys.exit(0)
try:
    recorded = json.load(open(path))["counts"]
except (OSError, ValueError, KeyError) as e:
    print(f"check-instructions.sh: cannot read {path} ({e}): record it with --record", file=sys.stderr)
    sys.exit(2)
grew = 0
print(f"{'workload':20s} {'recorded':>16s} {'now':>16s}  change")
for name, n in now.items():
    before = recorded.get(name)
    if before is None:
        print(f"{name:20s} {'-':>16s} {n:>16,d}  not recorded (run --record)")
        continue
    change = n / before - 1
    bad = change > limit
    grew += bad
    print(f"{name:20s} {before:>16,d} {n:>16,d}  {100 * change:+.1f}%{'  GREW more than 10%' if bad else ''}")
print(f"{grew} of {len(now)} workloads grew by more than {100 * limit:.0f}% (recorded at {json.load(open(path)).get('commit', '?')})")
sys.exit(1 if grew else 0)
EOF
