// Baselines of bench_cuda.cpp, compiled by nvcc (baselines.cu): the 2009 seed kernel, thrust,
// cuBLAS. Plain-pointer interface, C++17.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace bitplane_bench {

/// The seed kernel, written afresh after Kuznetsov and Tolstoy, "SSE2 vs CUDA in parallel bit
/// stream transposition / similarity" (2009): one CTA of 32 x 16 threads per 2048-value block;
/// thread (bit, row) gathers bit `bit` of 32 values per word by scalar shifts for 4 words of
/// plane `bit` (into shared memory and the planes output), then the 32 x 32 Hamming matrix by
/// 64-bit popcounts over shared memory, each off-diagonal pair computed once and mirrored, two
/// diagonal entries per diagonal thread (the article's triangular folding). The article read
/// its input from constant memory (8 blocks at a time); here it reads global memory, so that
/// any number of blocks runs in one launch. The matrix is written as u16, as bitplane's.
void seed_transpose_hamming(const std::uint32_t* values, std::size_t blocks, std::uint32_t* planes,
                            std::uint16_t* hamming, cudaStream_t stream);

/// thrust::inner_product of two device arrays of n uint32 values, exact (64-bit products and sum).
std::uint64_t thrust_dot(const std::uint32_t* a, const std::uint32_t* b, std::size_t n, cudaStream_t stream);

/// cuBLAS dot products (cublasDdot / cublasSdot) of device arrays; false when cuBLAS is not
/// built in. `handle` is created on first use.
bool have_cublas();
double cublas_ddot(const double* a, const double* b, std::size_t n);
float cublas_sdot(const float* a, const float* b, std::size_t n);
/// Converts n uint32 values to double / float on the device.
void to_double(const std::uint32_t* in, double* out, std::size_t n);
void to_float(const std::uint32_t* in, float* out, std::size_t n);

}  // namespace bitplane_bench
