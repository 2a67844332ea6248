// The dispatch layer of bitplane's CUDA part: launch logic over plain device pointers, between
// the host entry points (cuda/*.cpp, C++20, which know bitplane::vector) and the kernels
// (cuda/kernels/*.cuh, included by the .cu files only). C++17-clean, as the .cu files are.
#pragma once

#include <bitplane/cuda/tuning.hpp>
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

/// Launch parameters (include/bitplane/cuda/tuning.hpp; tuning.cpp fills them from the table
/// for this device, or defaults).
using tuning::launch_params;
using tuning::params_for;
/// Multiprocessors of the current device (cached per device).
int multiprocessors();

/// Device scratch of one reduction: partials, the work list and the 128-bit result.
struct dot_scratch {
    std::uint64_t* partial = nullptr;        // 2 * (planes_ctas + values_ctas), or the sum's
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

// ---- scans, bitwise operations, similarity, bitsets (cuda/ops.cu, kernels/value_ops.cuh) ----

/// A device bitset: dense (words: 64 per block) or encoded (records: 16 bytes per block, the
/// host's block entries; arena: their payloads, padded with 16 readable bytes).
struct device_bitset_ref {
    const std::uint32_t* words = nullptr;
    const void* records = nullptr;
    const std::uint8_t* arena = nullptr;
    std::uint64_t size = 0;  // bits
    std::uint64_t blocks = 0;
};

enum : unsigned { op_and = 0, op_or = 1, op_xor = 2, op_andnot = 3 };

/// out (64 words per block) = positions whose key (value ^ flip) is in [lo, hi], or outside
/// it when `invert`.
void enqueue_scan_range(const device_blocks_ref& v, std::uint32_t flip, std::uint32_t lo, std::uint32_t hi, bool invert,
                        std::uint32_t* out, cudaStream_t stream);
/// out[i] = a[i] op b[i] (dense values).
void enqueue_bitwise(const device_blocks_ref& a, const device_blocks_ref& b, unsigned op, std::uint32_t* out,
                     cudaStream_t stream);
/// counts (32 x 32, zeroed by the caller) += Hamming counts of the value planes of blocks
/// [first, last) (one_vector: a's own matrix, diagonal popcount(A_i); else a against b).
void enqueue_hamming(const device_blocks_ref& a, const device_blocks_ref& b, bool one_vector, std::uint64_t first,
                     std::uint64_t last, unsigned long long* counts, cudaStream_t stream);
/// counts[0] += popcount(a AND b), counts[1] += popcount(a) + popcount(b).
void enqueue_overlap(const device_blocks_ref& a, const device_blocks_ref& b, unsigned long long* counts,
                     cudaStream_t stream);
/// out (dense) = a op b.
void enqueue_bitset_algebra(const device_bitset_ref& a, const device_bitset_ref& b, unsigned op, std::uint32_t* out,
                            cudaStream_t stream);
/// *count += set bits of v.
void enqueue_bitset_count(const device_bitset_ref& v, unsigned long long* count, cudaStream_t stream);
/// out (dense) = v.
void enqueue_bitset_expand(const device_bitset_ref& v, std::uint32_t* out, cudaStream_t stream);

}  // namespace bitplane::cuda::dispatch
