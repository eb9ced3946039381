#!/bin/bash
# One training command over several seeds, each model evaluated, and every learned figure given as
# its mean and spread over the seeds: what a claim that compares systems needs (one seed's figure
# can move more between seeds than between the systems compared).
#
#   scripts/seeds.sh OUT SEEDS -- TRAIN ARGS...
#   scripts/seeds.sh runs/additive 1,2,3 -- train seq --task dates --scorer additive --iterations 6173
#
# For each seed S: `saccade-cli --threads 1 TRAIN ARGS... --seed S --out OUT/seed-S.pt` (skipped
# when that checkpoint is already there, so a stopped run goes on where it stopped), then
# `saccade-cli --threads 1 eval --model OUT/seed-S.pt --json > OUT/seed-S.eval.json`. Last, every
# number at the top of the evaluations (accuracy, exact match, AER, BLEU, ...) as mean, standard
# deviation, min and max over the seeds: a table, and OUT/seeds.json. Give --iterations (not
# --minutes) so that a seed is the only thing that differs between the runs.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -lt 4 || $3 != -- ]]; then
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
out=$1 seeds=$2
shift 3
cli=${SACCADE_CLI:-build/app/cli/saccade-cli}
[[ -x $cli ]] || { echo "seeds.sh: $cli is not built (scripts/build.sh build)" >&2; exit 2; }
[[ $seeds =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "seeds.sh: SEEDS must be numbers separated by commas, got '$seeds'" >&2; exit 2; }
for a in "$@"; do
    case $a in
    --seed | --out) echo "seeds.sh: give no $a: the script sets it per seed" >&2; exit 2 ;;
    --minutes) echo "seeds.sh: give --iterations, not --minutes: a time budget gives each seed a different count" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
IFS=, read -r -a list <<<"$seeds"
for s in "${list[@]}"; do
    model="$out/seed-$s.pt"
    if [[ ! -f $model ]]; then
        echo "seeds.sh: seed $s: $cli --threads 1 $* --seed $s --out $model" >&2
        "$cli" --threads 1 "$@" --seed "$s" --out "$model" --json >"$out/seed-$s.train.json"
    fi
    "$cli" --threads 1 eval --model "$model" --json >"$out/seed-$s.eval.json"
done

/usr/bin/python3 - "$out" "$seeds" "$*" <<'EOF'
import json, math, os, sys
out, seeds, command = sys.argv[1], [int(s) for s in sys.argv[2].split(",")], sys.argv[3]
evals = {s: json.load(open(os.path.join(out, f"seed-{s}.eval.json"))) for s in seeds}
names = [k for k, v in evals[seeds[0]].items()
         if isinstance(v, (int, float)) and not isinstance(v, bool) and all(isinstance(e.get(k), (int, float)) for e in evals.values())]
summary = {"schema": "saccade.seeds", "version": 1, "command": command, "seeds": seeds, "figures": {}}
print(f"{len(seeds)} seeds ({', '.join(map(str, seeds))}): {command}")
print(f"{'figure':28s} {'mean':>10s} {'sd':>10s} {'min':>10s} {'max':>10s}  per seed")
for k in names:
    v = [float(evals[s][k]) for s in seeds]
    mean = sum(v) / len(v)
    sd = math.sqrt(sum((x - mean) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else None
    summary["figures"][k] = {"mean": mean, "sd": sd, "min": min(v), "max": max(v), "per_seed": dict(zip(map(str, seeds), v))}
    sds = "-" if sd is None else f"{sd:.4f}"
    print(f"{k:28s} {mean:10.4f} {sds:>10s} {min(v):10.4f} {max(v):10.4f}  {' '.join(f'{x:.4f}' for x in v)}")
tmp = os.path.join(out, "seeds.json.tmp")
with open(tmp, "w") as f:
    json.dump(summary, f, indent=2)
    f.write("\n")
os.replace(tmp, os.path.join(out, "seeds.json"))
EOF
