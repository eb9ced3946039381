#!/usr/bin/env bash
# Fuzzes the input readers with clang's libFuzzer, ASan and UBSan (issue 18).
# Usage: scripts/fuzz.sh [SECONDS] [TARGETS...]
#   SECONDS  per target (default 600; 0 builds only); TARGETS from: idx image checkpoint trace parsers
#            (default all)
# Builds the fuzz_* targets in build-fuzz (core included, so the code under test is instrumented),
# fuzzes each on a working copy of tests/fuzz/corpus/<name> (build-fuzz/fuzz-corpus/<name>, kept
# between runs), and keeps crash-*, leak-*, timeout-* and oom-* inputs in tests/fuzz/findings/<name>/
# with a .log beside each (the input replayed once: the sanitizer's report and stack).
# Environment: SACCADE_FUZZ_BUILD (build folder), SACCADE_FUZZ_JOBS (compile jobs, default nproc),
# SACCADE_FUZZ_FORK (1, the default: -fork=1 and keep going after a finding; 0: stop at the first),
# ASAN_OPTIONS and UBSAN_OPTIONS (defaults below).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

all_targets=(idx image checkpoint trace parsers)
seconds=${1:-600}
[ $# -gt 0 ] && shift
if ! [[ $seconds =~ ^[0-9]+$ ]]; then
  echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2
  exit 2
fi
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  if [[ " ${all_targets[*]} " != *" $t "* ]]; then
    echo "fuzz.sh: unknown target '$t' (use: ${all_targets[*]})" >&2
    exit 2
  fi
done

build=${SACCADE_FUZZ_BUILD:-build-fuzz}
jobs=${SACCADE_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
fork=${SACCADE_FUZZ_FORK:-1}
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ is not installed" >&2; exit 1; }

# -fsanitize=fuzzer-no-link gives core libFuzzer's coverage feedback; without it the fuzzer sees only
# the harness. -O1 without NDEBUG keeps assert() on; line tables give symbolized stacks cheaply.
sanitize="-fsanitize=address,undefined -fsanitize=fuzzer-no-link -fno-omit-frame-pointer"
echo "== configuring $build (clang, libFuzzer, ASan, UBSan) =="
cmake -S . -B "$build" -G Ninja \
  -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$sanitize" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DSACCADE_FUZZ=ON -DSACCADE_BUILD_GUI=OFF -DSACCADE_BUILD_TESTS=ON >/dev/null
build_targets=()
for t in "${targets[@]}"; do build_targets+=("fuzz_$t"); done
echo "== building ${build_targets[*]} =="
cmake --build "$build" -j "$jobs" --target "${build_targets[@]}"
[ "$seconds" -eq 0 ] && exit 0

# LibTorch and OpenCV are not built with ASan; their allocations are still intercepted. A huge
# allocation returns null, so LibTorch throws as it would for a user (see tests/fuzz/README.md).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:report_error_type=1}
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE

max_len_for() {
  case $1 in
    idx) echo 4096 ;;
    image) echo 32768 ;;
    trace) echo 65536 ;;
    parsers) echo 256 ;;
    checkpoint)  # the real models are the seeds: room for the largest and some growth
      local largest
      largest=$(find "$root/tests/fuzz/corpus/checkpoint" -type f -printf '%s\n' | sort -n | tail -1)
      echo $(( ${largest:-0} + 65536 )) ;;
  esac
}

summary=()
for t in "${targets[@]}"; do
  bin=$build/tests/fuzz/fuzz_$t
  work=$build/fuzz-corpus/$t
  findings=$root/tests/fuzz/findings/$t
  mkdir -p "$work" "$findings"
  cp -n "$root/tests/fuzz/corpus/$t/"* "$work/" 2>/dev/null || true
  timeout_s=10
  [ "$t" = checkpoint ] && timeout_s=30
  flags=(-max_total_time="$seconds" -max_len="$(max_len_for "$t")" -rss_limit_mb=4096
         -timeout="$timeout_s" -artifact_prefix="$findings/" -print_final_stats=1)
  [ "$fork" = 1 ] && flags+=(-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
  log=$build/fuzz-$t.log
  before=$(find "$findings" -type f ! -name '*.log' | sort)
  echo "== fuzz_$t for $seconds s (log: $log) =="
  start=$(date +%s)
  set +e
  "$bin" "${flags[@]}" "$work" >"$log" 2>&1
  rc=$?
  set -e
  elapsed=$(( $(date +%s) - start ))
  # The last "#N" status line holds the executions (both plain and fork mode print one).
  execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  after=$(find "$findings" -type f ! -name '*.log' | sort)
  new=$(comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | sed '/^$/d')
  count=$(printf '%s\n' "$new" | sed '/^$/d' | wc -l)
  grep -E 'ERROR:|runtime error:|exception escaped|invariant failed' "$log" | sort | uniq -c | head -20 || true
  # Replay each new finding once to keep its full report beside it.
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    timeout 300 "$bin" -rss_limit_mb=4096 -timeout="$timeout_s" "$f" >"$f.log" 2>&1 || true
  done <<<"$new"
  line="fuzz_$t: ${execs:-?} executions in $elapsed s, exit $rc, $count new findings in tests/fuzz/findings/$t/"
  echo "$line"
  summary+=("$line")
done
echo "== summary =="
printf '%s\n' "${summary[@]}"
