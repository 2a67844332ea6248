// The dispatch layer of bitplane's CUDA part: launch logic over plain device pointers, between
// the host entry points (cuda/*.cpp, C++20, which know bitplane::vector) and the kernels
// (cuda/kernels/*.cuh, included by the .cu files only). C++17-clean, as the .cu files are.
#pragma once

#include <bitplane/error.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace bitplane::cuda::dispatch {

/// Throws bitplane::cuda_error "bitplane::cuda::<what>: <name>: <message>" on failure.
inline void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        throw cuda_error(std::string("bitplane::cuda::") + what + ": " + cudaGetErrorName(status) + ": " +
                         cudaGetErrorString(status));
    }
}

/// Encoded blocks in device memory (the payload padded with 16 readable bytes at the end).
struct device_blocks_ref {
    const std::uint8_t* payload = nullptr;
    const std::uint64_t* offsets = nullptr;
    std::uint64_t blocks = 0;
    std::uint64_t size = 0;  // values
};

/// Launch parameters; tuning.cpp fills them from the table for this device (or defaults).
struct launch_params {
    int dot_planes_ctas_per_sm = 5;   // CTAs of 4 warps (~96 registers, 35 KB shared: 5 fit an SM)
    int dot_values_ctas_per_sm = 2;   // CTAs of 256 threads for the decoding path
    int sum_ctas_per_sm = 4;
    int decode_ctas_per_sm = 8;
    int streams = 4;                  // transfer pipeline
    std::size_t batch_bytes = std::size_t{8} << 20;  // payload bytes per batch and operand
};

/// Parameters for a reduction over `blocks` blocks on the current device.
launch_params params_for(std::uint64_t blocks);
/// Multiprocessors of the current device (cached per device).
int multiprocessors();

/// Device scratch of one reduction: partials, the work list and the 128-bit result.
struct dot_scratch {
    std::uint64_t* partial = nullptr;        // 2 * (planes_ctas + values_ctas)
    std::uint64_t* list = nullptr;           // capacity: the pairs of one call
    unsigned long long* listed = nullptr;
    std::uint64_t* result = nullptr;         // lo, hi (accumulated into; zero it first)
    int planes_ctas = 0;
    int values_ctas = 0;
};

/// Bytes of scratch for a reduction over up to `pairs` block pairs, and its layout in `base`.
std::size_t dot_scratch_bytes(std::uint64_t pairs, const launch_params& p);
dot_scratch dot_scratch_at(void* base, std::uint64_t pairs, const launch_params& p);

/// result += sum over block pairs [first, last) of the dot product (mod 2^128), on `stream`.
void enqueue_dot(const device_blocks_ref& a, const device_blocks_ref& b, bool is_signed, std::uint64_t first,
                 std::uint64_t last, const dot_scratch& scratch, cudaStream_t stream);
/// result += the sum of all values, on `stream` (scratch as for dot over v.blocks pairs).
void enqueue_sum(const device_blocks_ref& v, bool is_signed, const dot_scratch& scratch, cudaStream_t stream);
/// Decodes every value into out, on `stream`.
void enqueue_decode(const device_blocks_ref& v, std::uint32_t* out, cudaStream_t stream);
/// Transpose + Hamming matrices of `blocks` full blocks (kernels/encode.cuh).
void enqueue_transpose_hamming(const std::uint32_t* values, std::size_t blocks, std::uint32_t* planes,
                               std::uint16_t* hamming, cudaStream_t stream);

}  // namespace bitplane::cuda::dispatch
