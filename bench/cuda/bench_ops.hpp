// The operations section of bitplane_cuda_bench (bench_ops.cpp): every GPU operation of
// bitplane::cuda but dot and the encode kernel (those are in bench_cuda.cpp): device_vector
// upload and download, decode to dense values, sum, sum of squares, scans (find_eq, find_range,
// count), bitwise and/or/xor, plane and cross Hamming matrices, jaccard, and device_bitset
// upload, download, expansion, set algebra and count. Each is timed device-resident and with
// its transfers, beside the dense GPU equivalent (thrust or a plain kernel), the bus (plain
// cudaMemcpy of the dense data) and bitplane's CPU path, after its result has been checked
// against the CPU's.
#pragma once

#include <cstdio>

namespace bitplane_bench {

/// Uniform 10-bit values at 2^min_log2 .. 2^max_log2 (even exponents), and full-range random
/// values at 2^(max_log2 - 4) and 2^max_log2 (the less compressible shape). Rows go to `csv`
/// (may be null) and the console; exits with status 3 on a result that differs from the CPU's.
void run_ops_benchmarks(int min_log2, int max_log2, std::FILE* csv);

}  // namespace bitplane_bench
