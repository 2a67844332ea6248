// The GPU block encoder's benchmark (bitplane::cuda::encode) against the CPU encoder, for
// bitplane_cuda_bench (and bitplane_cuda_encode_bench, which runs it alone).
#pragma once

#include <cstdio>

/// For 2^min_log2 .. 2^max_log2 values (even exponents) of uniform 10-bit and full-range random
/// uint32 data: device-resident values -> device_vector with bitplane::cuda::encode (medians of
/// synchronous calls, the result's allocation included), and the CPU encoders on the same values
/// (codec::encode_block over every block on one thread; bitplane::vector's constructor on every
/// thread). Checks that the GPU's blocks equal the CPU's. Prints a table to stdout and writes
/// CSV rows `values,operation,variant,seconds,GBps,note` (GB/s of input values) to `csv` when
/// it is not null. Returns false on a mismatch or a CUDA failure.
bool run_encode_benchmarks(int min_log2, int max_log2, std::FILE* csv);
