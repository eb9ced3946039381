#!/usr/bin/env bash
# Proves, on a machine with no GPU, that Saccade compiles and links against a CUDA LibTorch: the
# CUDA build of PyPI's torch in the ecosystem check's virtual environment (scripts/check-ecosystem.sh
# makes it), with this machine's CUDA toolkit (nvcc: compile and link only). Builds saccade-cli and
# the core tests (no GUI) in BUILD, then shows what they linked (libtorch_cuda, libc10_cuda) and
# runs the core tests on the CPU with that build: every CUDA code path is compiled and
# linked, and the device code falls back to the CPU when no GPU answers (as it does on Debian 12's
# CPU LibTorch). scripts/gpu-check.sh runs the same build on a lent GPU.
#
# Usage: scripts/check-cuda-build.sh [BUILD]      (default /tmp/saccade-cuda-build; kept between runs)
# Env:   SACCADE_ECOSYSTEM_VENV (default ~/.cache/saccade-ecosystem/venv), CUDA_HOME (default
#        /usr/local/cuda), JOBS (default nproc), GTEST_FILTER (the core tests run; default all)
# Exit status: 0 when it built, linked the CUDA libraries and the tests passed.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-/tmp/saccade-cuda-build}
venv=${SACCADE_ECOSYSTEM_VENV:-$HOME/.cache/saccade-ecosystem/venv}
cuda=${CUDA_HOME:-/usr/local/cuda}
jobs=${JOBS:-$(nproc)}
die() { echo "check-cuda-build: $*" >&2; exit 1; }
[ -x "$venv/bin/python" ] || die "no virtual environment at $venv (scripts/check-ecosystem.sh makes it)"
[ -x "$cuda/bin/nvcc" ] || die "no nvcc at $cuda/bin/nvcc (set CUDA_HOME)"
prefix=$("$venv/bin/python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)') ||
  die "the environment's torch cannot say where its CMake files are"
cuda_torch=$("$venv/bin/python" -c 'import torch; print(torch.version.cuda or "")')
[ -n "$cuda_torch" ] || die "the environment's torch is a CPU build: it has no CUDA LibTorch to build against"
torch_lib=$(cd "$prefix/../../lib" && pwd)
echo "torch $("$venv/bin/python" -c 'import torch; print(torch.__version__)') (CUDA $cuda_torch) from $torch_lib;" \
     "nvcc $("$cuda/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
# The wheel's CUDA runtime libraries (NCCL, cuDNN, ...) lie in the nvidia-* packages beside torch.
nvidia_libs=$(find "$torch_lib/../../nvidia" -maxdepth 3 -name lib -type d 2>/dev/null | sort | paste -sd: || true)
# CMAKE_LIBRARY_PATH: TorchConfig looks for its libraries with PATHS, which CMake searches after
# /usr/lib, where Debian's CPU LibTorch lies; this puts the wheel's first. -rpath-link: the linker
# resolves libtorch_cuda's own needs (libnccl.so.2) from the wheel's, not from an older toolkit's.
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSACCADE_BUILD_GUI=OFF \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_LIBRARY_PATH="$torch_lib" -DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc" \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$nvidia_libs" \
  > "$build.configure.log" 2>&1 || { tail -30 "$build.configure.log"; die "configure failed (log: $build.configure.log)"; }
grep -qx "TORCH_LIBRARY:FILEPATH=$torch_lib/libtorch.so" "$build/CMakeCache.txt" ||
  die "CMake found another LibTorch than $torch_lib (see TORCH_LIBRARY in $build/CMakeCache.txt)"
cmake --build "$build" -j "$jobs" --target saccade-cli core_tests > "$build.build.log" 2>&1 ||
  { grep -E "error|FAILED" "$build.build.log" | head -20; die "the build failed (log: $build.build.log)"; }
export LD_LIBRARY_PATH="$torch_lib:$nvidia_libs"
linked=$(ldd "$build/app/cli/saccade-cli" | grep -oE 'lib(torch_cuda|c10_cuda)\.so' | sort -u | paste -sd' ' || true)
[ "$linked" = "libc10_cuda.so libtorch_cuda.so" ] || die "saccade-cli does not link the CUDA libraries (it links: '$linked')"
echo "saccade-cli links $linked"
"$build/app/cli/saccade-cli" doctor | grep -iE "torch|cuda|device" | head -5 || true
"$build/tests/core_tests" --gtest_brief=1 --gtest_filter="${GTEST_FILTER:-*}" 2>&1 | tail -5
