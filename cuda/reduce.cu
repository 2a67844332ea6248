// Dispatch of the reductions, decode and encode kernels (cuda/dispatch.hpp).
#include "dispatch.hpp"

#include "kernels/encode.cuh"
#include "kernels/dot_mma.cuh"
#include "kernels/reduce.cuh"

#include <algorithm>
#include <limits>

namespace bitplane::cuda::dispatch {
namespace {

kernels::blocks_ref ref_of(const device_blocks_ref& v) {
    return {v.payload, v.offsets, v.blocks, v.size};
}

int grid_for(std::uint64_t work, std::uint64_t per_cta, int ctas_per_sm) {
    const std::uint64_t wanted = (work + per_cta - 1) / per_cta;
    const std::uint64_t cap = static_cast<std::uint64_t>(multiprocessors()) * static_cast<std::uint64_t>(ctas_per_sm);
    return static_cast<int>(std::max<std::uint64_t>(1, std::min(wanted, cap)));
}

std::size_t align256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace

int multiprocessors() {
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    static thread_local int cached_device = -1;
    static thread_local int cached = 0;
    if (device != cached_device) {
        check(cudaDeviceGetAttribute(&cached, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
        cached_device = device;
    }
    return cached;
}

std::size_t dot_scratch_bytes(std::uint64_t pairs, const launch_params& p) {
    const std::size_t ctas = static_cast<std::size_t>(multiprocessors()) *
                             static_cast<std::size_t>(p.dot_ctas_per_sm + p.dot_values_ctas_per_sm + p.sum_ctas_per_sm);
    return align256(16 * ctas) + align256(8 * std::max<std::uint64_t>(pairs, 1)) + 256 + 256;
}

dot_scratch dot_scratch_at(void* base, std::uint64_t pairs, const launch_params& p) {
    const std::size_t ctas = static_cast<std::size_t>(multiprocessors()) *
                             static_cast<std::size_t>(p.dot_ctas_per_sm + p.dot_values_ctas_per_sm + p.sum_ctas_per_sm);
    auto* bytes = static_cast<unsigned char*>(base);
    dot_scratch s;
    s.partial = reinterpret_cast<std::uint64_t*>(bytes);
    bytes += align256(16 * ctas);
    s.list = reinterpret_cast<std::uint64_t*>(bytes);
    bytes += align256(8 * std::max<std::uint64_t>(pairs, 1));
    s.listed = reinterpret_cast<unsigned long long*>(bytes);
    bytes += 256;
    s.result = reinterpret_cast<std::uint64_t*>(bytes);
    s.planes_ctas = multiprocessors() * p.dot_ctas_per_sm;
    s.values_ctas = multiprocessors() * p.dot_values_ctas_per_sm;
    return s;
}

void enqueue_dot(const device_blocks_ref& a, const device_blocks_ref& b, bool is_signed, std::uint64_t first,
                 std::uint64_t last, const dot_scratch& scratch, cudaStream_t stream) {
    if (first >= last) return;
    const std::uint64_t pairs = last - first;
    const launch_params p = params_for(pairs);
    check(cudaMemsetAsync(scratch.listed, 0, sizeof(unsigned long long), stream), "dot: cudaMemsetAsync");
    int planes_grid = 0;
    if (p.dot_method == static_cast<int>(tuning::dot_method::mma)) {
        // More than 48 KB of dynamic shared memory must be allowed per kernel (once per device).
        static thread_local int raised_for = -1;
        int device = 0;
        check(cudaGetDevice(&device), "cudaGetDevice");
        if (raised_for != device) {
            check(cudaFuncSetAttribute(kernels::dot_mma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(kernels::mma_smem_bytes)),
                  "dot: cudaFuncSetAttribute");
            raised_for = device;
        }
        planes_grid = std::min(scratch.planes_ctas, grid_for(pairs, kernels::mma_warps, p.dot_ctas_per_sm));
        kernels::dot_mma<<<planes_grid, kernels::mma_warps * 32, kernels::mma_smem_bytes, stream>>>(
            ref_of(a), ref_of(b), is_signed, first, last, scratch.partial, scratch.list, scratch.listed);
        check(cudaGetLastError(), "dot: dot_mma launch");
    } else {
        planes_grid = std::min(scratch.planes_ctas, grid_for(pairs, kernels::planes_warps, p.dot_ctas_per_sm));
        kernels::dot_planes<<<planes_grid, kernels::planes_warps * 32, 0, stream>>>(
            ref_of(a), ref_of(b), is_signed, first, last, scratch.partial, scratch.list, scratch.listed);
        check(cudaGetLastError(), "dot: dot_planes launch");
    }
    const int values_grid = std::min(scratch.values_ctas, std::max(1, multiprocessors() * p.dot_values_ctas_per_sm));
    std::uint64_t* values_partial = scratch.partial + 2 * static_cast<std::size_t>(planes_grid);
    kernels::dot_values<<<values_grid, kernels::values_threads, 0, stream>>>(
        ref_of(a), ref_of(b), is_signed, scratch.list, scratch.listed, values_partial);
    check(cudaGetLastError(), "dot: dot_values launch");
    kernels::reduce_partials<<<1, 256, 0, stream>>>(scratch.partial, static_cast<unsigned>(planes_grid + values_grid),
                                                   scratch.result);
    check(cudaGetLastError(), "dot: reduce_partials launch");
}

void enqueue_sum(const device_blocks_ref& v, bool is_signed, const dot_scratch& scratch, cudaStream_t stream) {
    if (v.blocks == 0) return;
    const launch_params p = params_for(v.blocks);
    check(cudaMemsetAsync(scratch.listed, 0, sizeof(unsigned long long), stream), "sum: cudaMemsetAsync");
    // The scratch's partials hold (dot + dot_values + sum) CTAs per multiprocessor: sum_planes
    // takes the first two shares (8 warps a CTA: enough loads in flight to stream the
    // payload), sum_values, for the blocks it lists, the third.
    const int planes_grid = grid_for(v.blocks, kernels::sum_warps, p.dot_ctas_per_sm + p.dot_values_ctas_per_sm);
    kernels::sum_planes<<<planes_grid, kernels::sum_warps * 32, 0, stream>>>(ref_of(v), is_signed, scratch.partial,
                                                                             scratch.list, scratch.listed);
    check(cudaGetLastError(), "sum: sum_planes launch");
    const int values_grid = grid_for(v.blocks, 1, p.sum_ctas_per_sm);
    kernels::sum_values<<<values_grid, kernels::values_threads, 0, stream>>>(
        ref_of(v), is_signed, scratch.list, scratch.listed, scratch.partial + 2 * static_cast<std::size_t>(planes_grid));
    check(cudaGetLastError(), "sum: sum_values launch");
    kernels::reduce_partials<<<1, 256, 0, stream>>>(scratch.partial, static_cast<unsigned>(planes_grid + values_grid),
                                                   scratch.result);
    check(cudaGetLastError(), "sum: reduce_partials launch");
}

void enqueue_decode(const device_blocks_ref& v, std::uint32_t* out, cudaStream_t stream) {
    if (v.blocks == 0) return;
    const launch_params p = params_for(v.blocks);
    const int grid = grid_for(v.blocks, 1, p.decode_ctas_per_sm);
    kernels::decode_blocks<<<grid, kernels::values_threads, 0, stream>>>(ref_of(v), out);
    check(cudaGetLastError(), "decode: decode_blocks launch");
}

void enqueue_transpose_hamming(const std::uint32_t* values, std::size_t blocks, std::uint32_t* planes,
                               std::uint16_t* hamming, cudaStream_t stream) {
    if (blocks == 0) return;
    if (blocks > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw size_error("bitplane::cuda::transpose_hamming: too many blocks");
    kernels::transpose_hamming<<<static_cast<unsigned>(blocks), kernels::encode_threads, 0, stream>>>(values, planes,
                                                                                                     hamming);
    check(cudaGetLastError(), "transpose_hamming: launch");
}

}  // namespace bitplane::cuda::dispatch
