#!/usr/bin/env bash
# Builds the CUDA part for sm_90 and runs its tests, then compute-sanitizer memcheck and
# racecheck over them, on a machine with an NVIDIA GPU. Logs go to $OUT (the device tool's
# result folder) or build/gpu-out. Headers missing on that machine (xsimd, xxhash) may be
# carried in .deps/ (git-ignored): .deps/include and .deps/lib/x86_64-linux-gnu/cmake/xsimd.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${OUT:-build/gpu-out}"
mkdir -p "$out"
jobs="$(nproc)"
prefix=()
[[ -d .deps ]] && prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps")
status=0
step() { echo "=== gpu-check: $* ==="; }

nvidia-smi -L | tee "$out/device.txt"
step configure
cmake -S . -B build/gpu -DCMAKE_BUILD_TYPE=Release -DBITPLANE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DBITPLANE_BUILD_BENCHMARKS=OFF -DBITPLANE_BUILD_TOOLS=OFF "${prefix[@]}" >"$out/configure.log" 2>&1 \
  || { tail -30 "$out/configure.log"; exit 1; }
step build
cmake --build build/gpu -j "$jobs" --target bitplane_cuda_tests >"$out/build.log" 2>&1 \
  || { grep -E "error" "$out/build.log" | head -30; exit 1; }

step "cuda tests"
build/gpu/tests/bitplane_cuda_tests 2>&1 | tee "$out/cuda_tests.log" | tail -25
[[ ${PIPESTATUS[0]} -eq 0 ]] || status=1

sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
# API errors are not reported: the error-path tests provoke them on purpose (an invalid
# device ordinal must become a cuda_error); memory and race errors are what is checked.
for tool in memcheck racecheck; do
  step "compute-sanitizer $tool"
  "$sanitizer" --tool "$tool" --report-api-errors no --error-exitcode 7 build/gpu/tests/bitplane_cuda_tests \
    >"$out/sanitizer_$tool.log" 2>&1
  rc=$?
  tail -4 "$out/sanitizer_$tool.log"
  [[ $rc -eq 0 ]] || { echo "compute-sanitizer $tool: exit $rc"; status=1; }
done
step "done (status $status)"
exit "$status"
