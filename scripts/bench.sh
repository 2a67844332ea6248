#!/usr/bin/env bash
# Builds bitplane_bench (Release, build/bench) and runs every benchmark three times, writing
# build/bench/bench.json and printing the acceptance table (scripts/bench_report.py).
# docs/benchmarks.md holds the figures of the last recorded run.
#
# Usage: scripts/bench.sh [extra Google Benchmark arguments, e.g. --benchmark_filter=BM_Encode]
#
# Environment:
#   BITPLANE_JOBS=N   build parallelism (default: nproc)
#   BITPLANE_SIMD=... forces a SIMD path in the library (scalar|sse2|avx2|avx512), see simd.hpp
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs="${BITPLANE_JOBS:-$(nproc)}"
build=build/bench
json="$build/bench.json"

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBITPLANE_CUDA=OFF
cmake --build "$build" -j "$jobs" --target bitplane_bench

"$build/bench/bitplane_bench" \
  --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true \
  --benchmark_min_time=0.2 \
  --benchmark_out="$json" \
  --benchmark_out_format=json \
  "$@"

python3 scripts/bench_report.py "$json"
