// Dense GPU baselines of bench_ops.cpp, compiled by nvcc (ops_baselines.cu): what a user with
// the plain uint32 values (or plain bitmap words) on the device would write with thrust, plus a
// ballot kernel for a dense bitmap scan and the summation of the seed kernel's per-block Hamming
// matrices. Plain-pointer interface, C++17. Every function here waits for `stream` before it
// returns (thrust's default policy waits; the rest synchronize explicitly), as bitplane's calls
// that they are timed against do.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace bitplane_bench {

/// An unsigned 128-bit count as two halves (sums of squares of 32-bit values exceed 64 bits).
struct u128_parts {
    std::uint64_t lo = 0;
    std::uint64_t hi = 0;
};

/// thrust::transform_reduce of n values widened to u64 (exact for n < 2^32).
std::uint64_t thrust_sum(const std::uint32_t* v, std::size_t n, cudaStream_t stream);
/// thrust::transform_reduce of the squares, accumulated in 128 bits (exact, as bitplane's).
u128_parts thrust_sum_of_squares(const std::uint32_t* v, std::size_t n, cudaStream_t stream);
/// thrust::count_if of lo <= v[i] <= hi (unsigned order).
std::uint64_t thrust_count_range(const std::uint32_t* v, std::size_t n, std::uint32_t lo, std::uint32_t hi,
                                 cudaStream_t stream);
/// Dense bitmap of lo <= v[i] <= hi: bit i % 32 of words[i / 32] (ceil(n / 32) words, bits past
/// n clear), one warp ballot per word; the layout of a dense device_bitset's words.
void dense_range_bitmap(const std::uint32_t* v, std::size_t n, std::uint32_t lo, std::uint32_t hi, std::uint32_t* words,
                        cudaStream_t stream);

enum class bit_op : int { and_op = 0, or_op = 1, xor_op = 2, andnot_op = 3 };
/// thrust::transform of two arrays of n words with `op` (andnot: a AND NOT b).
void thrust_bitwise(const std::uint32_t* a, const std::uint32_t* b, std::uint32_t* out, std::size_t n, bit_op op,
                    cudaStream_t stream);
/// thrust::transform_reduce of __popc over n words.
std::uint64_t thrust_popcount(const std::uint32_t* words, std::size_t n, cudaStream_t stream);
/// thrust::inner_product of popcount(a AND b) and popcount(a OR b) over n words, in one pass.
void thrust_and_or_counts(const std::uint32_t* a, const std::uint32_t* b, std::size_t n, std::uint64_t* and_count,
                          std::uint64_t* or_count, cudaStream_t stream);
/// Adds `blocks` 32 x 32 u16 matrices (1024 entries each, back to back) into 1024 u64 counts
/// at out (device memory; zeroed here first).
void sum_block_matrices(const std::uint16_t* matrices, std::size_t blocks, unsigned long long* out, cudaStream_t stream);

}  // namespace bitplane_bench
