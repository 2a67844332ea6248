// Dispatch of the scans, bitwise operations, similarity and bitset kernels (cuda/dispatch.hpp,
// kernels/value_ops.cuh): grids from the tuning table (scan_ctas_per_sm), one launch each.
#include "dispatch.hpp"

#include "kernels/value_ops.cuh"

#include <algorithm>

namespace bitplane::cuda::dispatch {
namespace {

kernels::blocks_ref ref_of(const device_blocks_ref& v) { return {v.payload, v.offsets, v.blocks, v.size}; }

kernels::bitset_ref ref_of(const device_bitset_ref& v) {
    return {v.words, static_cast<const kernels::bitset_record*>(v.records), v.arena, v.size, v.blocks};
}

// CTAs for `work` blocks: one per block up to the table's CTAs per multiprocessor.
int grid_of(std::uint64_t work) {
    const launch_params p = params_for(work);
    const std::uint64_t cap = static_cast<std::uint64_t>(multiprocessors()) * static_cast<std::uint64_t>(p.scan_ctas_per_sm);
    return static_cast<int>(std::max<std::uint64_t>(1, std::min(work, cap)));
}

}  // namespace

static_assert(sizeof(kernels::bitset_record) == 16, "bitset records are the host's 16-byte block entries");

void enqueue_scan_range(const device_blocks_ref& v, std::uint32_t flip, std::uint32_t lo, std::uint32_t hi, bool invert,
                        std::uint32_t* out, cudaStream_t stream) {
    if (v.blocks == 0) return;
    kernels::scan_range<<<grid_of(v.blocks), kernels::ops_threads, 0, stream>>>(ref_of(v), flip, lo, hi, invert, out);
    check(cudaGetLastError(), "scan: launch");
}

void enqueue_bitwise(const device_blocks_ref& a, const device_blocks_ref& b, unsigned op, std::uint32_t* out,
                     cudaStream_t stream) {
    if (a.blocks == 0) return;
    kernels::bitwise_values<<<grid_of(a.blocks), kernels::ops_threads, 0, stream>>>(ref_of(a), ref_of(b), op, out);
    check(cudaGetLastError(), "bitwise: launch");
}

void enqueue_hamming(const device_blocks_ref& a, const device_blocks_ref& b, bool one_vector, std::uint64_t first,
                     std::uint64_t last, unsigned long long* counts, cudaStream_t stream) {
    if (first >= last) return;
    kernels::hamming_planes<<<grid_of(last - first), kernels::ops_threads, 0, stream>>>(ref_of(a), ref_of(b), one_vector,
                                                                                       first, last, counts);
    check(cudaGetLastError(), "hamming: launch");
}

void enqueue_overlap(const device_blocks_ref& a, const device_blocks_ref& b, unsigned long long* counts,
                     cudaStream_t stream) {
    if (a.blocks == 0) return;
    kernels::overlap_counts<<<grid_of(a.blocks), kernels::ops_threads, 0, stream>>>(ref_of(a), ref_of(b), counts);
    check(cudaGetLastError(), "jaccard: launch");
}

void enqueue_bitset_algebra(const device_bitset_ref& a, const device_bitset_ref& b, unsigned op, std::uint32_t* out,
                            cudaStream_t stream) {
    if (a.blocks == 0) return;
    kernels::bitset_algebra<<<grid_of(a.blocks), kernels::bitset_threads, 0, stream>>>(ref_of(a), ref_of(b), op, out);
    check(cudaGetLastError(), "bitset algebra: launch");
}

void enqueue_bitset_count(const device_bitset_ref& v, unsigned long long* count, cudaStream_t stream) {
    if (v.blocks == 0) return;
    kernels::bitset_count<<<grid_of(v.blocks), kernels::bitset_threads, 0, stream>>>(ref_of(v), count);
    check(cudaGetLastError(), "bitset count: launch");
}

void enqueue_bitset_expand(const device_bitset_ref& v, std::uint32_t* out, cudaStream_t stream) {
    if (v.blocks == 0) return;
    kernels::bitset_expand<<<grid_of(v.blocks), kernels::bitset_threads, 0, stream>>>(ref_of(v), out);
    check(cudaGetLastError(), "bitset expand: launch");
}

}  // namespace bitplane::cuda::dispatch
