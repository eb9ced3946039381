#!/usr/bin/env bash
# example_reader.sh SACCADE_CLI SOURCE_DIR: examples/plot_trace_and_runs.py reads what the CLI
# writes (a trace and a run set, by their documented schemas) and plots them; the figures it prints
# are the CLI's own, and a file of another schema is refused with one line.
set -u
cli=$1 src=$2
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE PYTHONDONTWRITEBYTECODE=1 MPLCONFIGDIR="$dir/mpl"
model=$src/samples/models/patch-hard-fashion60.pt
"$cli" trace --model "$model" --sample translated-fashion60:12 --rule sample --seed 3 --json --out trace.json > /dev/null \
  || { echo "FAIL: trace"; exit 1; }
"$cli" compare --model "$model" --sample translated-fashion60:12 --runs 200 --out runs.json --json > compare.json \
  || { echo "FAIL: compare"; exit 1; }
/usr/bin/python3 "$src/examples/plot_trace_and_runs.py" trace.json runs.json figure.png > out.txt 2> err.txt \
  || { echo "FAIL: the example failed: $(cat err.txt)"; exit 1; }
cat out.txt
# The figures the example read are those the CLI printed.
expected=$(/usr/bin/python3 -c '
import json
c = json.load(open("compare.json"))
s = c["stats"]
print("%d runs, agreement with %s %.4f, accuracy %.4f, %d distinct paths"
      % (s["runs"], c["deterministic_rule"], s["agreement"], s["accuracy"], s["distinct_paths"]))
') || { echo "FAIL: could not read compare.json"; exit 1; }
grep -qF "runs: $expected" out.txt || { echo "FAIL: expected 'runs: $expected'"; exit 1; }
grep -qF "trace: 4 steps, rule sample, seed 3, answer " out.txt || { echo "FAIL: the trace line"; exit 1; }
[ "$(head -c 4 figure.png | od -An -c | tr -d ' ')" = "211PNG" ] || { echo "FAIL: figure.png is not a PNG"; exit 1; }
[ "$(stat -c %s figure.png)" -gt 20000 ] || { echo "FAIL: figure.png is too small to hold the panels"; exit 1; }
# Another schema (a run set given as the trace) is refused with one line.
if /usr/bin/python3 "$src/examples/plot_trace_and_runs.py" runs.json runs.json x.png > /dev/null 2> refused.txt; then
  echo "FAIL: a run set was read as a trace"; exit 1
fi
grep -qF "runs.json: not a saccade.trace file" refused.txt || { echo "FAIL: $(cat refused.txt)"; exit 1; }
echo "the example read the trace and the run set"
