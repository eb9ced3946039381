#!/usr/bin/env bash
# blas_kernels.sh SACCADE_CLI: with OPENBLAS_CORETYPE unset, a processor with AVX2 and FMA never
# runs OpenBLAS's Prescott (SSE3) kernels, which OpenBLAS 0.3.21 falls back to on a processor it
# does not know; a value the user sets is what OpenBLAS runs.
set -u
cli=$1
fail() { echo "FAIL: $*"; exit 1; }
field() { /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["blas"].get(sys.argv[1]) or "")' "$1"; }
report=$(env -u OPENBLAS_CORETYPE "$cli" --threads 1 doctor --json --matmul-size 64) || fail "doctor failed"
kernels=$(printf '%s' "$report" | field kernels)
[ -n "$kernels" ] || { echo "not OpenBLAS: nothing to check"; echo "kernels checked"; exit 0; }
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
    [ "$kernels" != "Prescott" ] || fail "OpenBLAS runs Prescott's kernels on a processor with AVX2"
fi
forced=$(env OPENBLAS_CORETYPE=Sandybridge "$cli" --threads 1 doctor --json --matmul-size 64 | field kernels)
[ "$forced" = "Sandybridge" ] || fail "OPENBLAS_CORETYPE=Sandybridge ran $forced"
echo "OpenBLAS runs $kernels here unset, Sandybridge when set"
echo "kernels checked"
