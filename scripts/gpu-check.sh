#!/usr/bin/env bash
# Builds the CUDA part for sm_90, runs its tests, then compute-sanitizer memcheck and racecheck
# over them (BITPLANE_TEST_QUICK=1: representative shapes and sizes), then the GPU benchmark,
# on a machine with an NVIDIA GPU. Logs go to $OUT (the device tool's result folder) or
# build/gpu-out. Headers missing on that machine (xsimd, xxhash) may be carried in .deps/
# (git-ignored): .deps/include and .deps/lib/x86_64-linux-gnu/cmake/xsimd.
#   BITPLANE_GPU_BENCH=0       skip the benchmark
#   BITPLANE_GPU_BENCH_MAX=N   largest size 2^N of the benchmark (default 28)
#   BITPLANE_GPU_SANITIZE=0    skip compute-sanitizer
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${OUT:-build/gpu-out}"
mkdir -p "$out"
jobs="$(nproc)"
prefix=()
[[ -d .deps ]] && prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps")
status=0
step() { echo "=== gpu-check: $* ($(date +%T)) ==="; }

nvidia-smi -L | tee "$out/device.txt"
step configure
cmake -S . -B build/gpu -DCMAKE_BUILD_TYPE=Release -DBITPLANE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DBITPLANE_BUILD_TESTS=ON -DBITPLANE_BUILD_BENCHMARKS=ON -DBITPLANE_BUILD_TOOLS=OFF -DBITPLANE_WERROR=ON \
  "${prefix[@]}" >"$out/configure.log" 2>&1 \
  || { tail -30 "$out/configure.log"; exit 1; }
grep -E "bitplane:" "$out/configure.log"
step build
cmake --build build/gpu -j "$jobs" --target bitplane_cuda_tests bitplane_cuda_bench >"$out/build.log" 2>&1 \
  || { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }

step "cuda tests"
build/gpu/tests/bitplane_cuda_tests 2>&1 | tee "$out/cuda_tests.log" | grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|error|Expected|Which is|actual" | head -40
[[ ${PIPESTATUS[0]} -eq 0 ]] || status=1

if [[ "${BITPLANE_GPU_SANITIZE:-1}" != 0 ]]; then
  sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
  # API errors are not reported: the error-path tests provoke them on purpose (an invalid
  # device ordinal, a 4 EiB allocation must become a cuda_error); memory and race errors are
  # what is checked.
  for tool in memcheck racecheck; do
    step "compute-sanitizer $tool"
    filter='*'
    [[ $tool == racecheck ]] && filter='*Uint32*:*Encode*:*WriteBack*:*Empty*'
    BITPLANE_TEST_QUICK=1 timeout "${BITPLANE_GPU_SANITIZE_TIMEOUT:-170}" "$sanitizer" --tool "$tool" \
      --report-api-errors no --error-exitcode 7 build/gpu/tests/bitplane_cuda_tests --gtest_filter="$filter" \
      >"$out/sanitizer_$tool.log" 2>&1
    rc=$?
    tail -4 "$out/sanitizer_$tool.log"
    [[ $rc -eq 0 ]] || { echo "compute-sanitizer $tool: exit $rc"; status=1; }
  done
fi

if [[ "${BITPLANE_GPU_PROFILE:-0}" != 0 ]]; then
  step "ncu profile of the dot and encode kernels (2^24 values)"
  ncu -k regex:"dot_planes|transpose_hamming" --launch-skip 4 --launch-count 2 --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy \
    --section WarpStateStats --section InstructionStats --section SchedulerStats \
    build/gpu/bench/cuda/bitplane_cuda_bench 24 /dev/null 24 >"$out/ncu.log" 2>&1
  grep -E "transpose_hamming|dot_planes|Duration|Throughput|Pipe|Issue|Stall|Occupancy|Registers|Warp Cycles" "$out/ncu.log" | head -60
fi

if [[ "${BITPLANE_GPU_BENCH:-1}" != 0 ]]; then
  step benchmark
  build/gpu/bench/cuda/bitplane_cuda_bench "${BITPLANE_GPU_BENCH_MAX:-28}" "$out/bench_cuda.csv" 2>&1 \
    | tee "$out/bench_cuda.log" | grep -v -E "^  [a-z]"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
fi
step "done (status $status)"
exit "$status"
