#!/usr/bin/env bash
# omp_wait_policy.sh SACCADE_CLI: with OMP_WAIT_POLICY unset, the OpenMP runtime the program runs
# under reads PASSIVE (GOMP_SPINCOUNT 0). Where libgomp reads the variable through getenv (it
# imports no `environ`: GCC 12's), the program answers it and starts once; where libgomp reads
# `environ` itself (GCC 13's and later), the program starts once more with the variable set.
set -u
cli=$1
# On a processor OpenBLAS does not know, the program has it choose its AVX kernels again in the
# same process (common/runtime.h): no start is added for them, so OPENBLAS_CORETYPE is unset too.
err=$(env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u OPENBLAS_CORETYPE OMP_DISPLAY_ENV=VERBOSE "$cli" scalar --values 1,2 --probs 0.5,0.5 --f square 2>&1 >/dev/null)
starts=$(printf '%s\n' "$err" | grep -c "OPENMP DISPLAY ENVIRONMENT BEGIN")
last=$(printf '%s\n' "$err" | grep "GOMP_SPINCOUNT" | tail -1)
case "$last" in *"'0'"*) ;; *) echo "FAIL: libgomp's spin count at the end: $last"; exit 1 ;; esac
gomp=$(ldd "$cli" | sed -n 's/.*libgomp[^ ]* => \([^ ]*\).*/\1/p' | head -1)
if objdump -T "$gomp" 2>/dev/null | grep -qw "environ"; then want=2; else want=1; fi
[ "$starts" -eq "$want" ] || { echo "FAIL: $starts start(s), $want expected with $gomp"; exit 1; }
echo "libgomp read PASSIVE after $starts start(s) ($gomp)"
