// Dispatch of the GPU block encoder (encode_dispatch.hpp): the encoding kernel (one CTA per
// block, writing into per-block slots), CUB's exclusive sum of the sizes into the offsets table,
// and the copy of each block to its offset. Compiled as C++20 (cuda/CMakeLists.txt): the
// kernel compiles the CPU codec's shared decisions and writer (src/codec/block_plan.hpp).
#include "encode_dispatch.hpp"

#include "dispatch.hpp"
#include "kernels/encode_block.cuh"

#include <bitplane/error.hpp>

#include <cub/device/device_scan.cuh>

#include <limits>

namespace bitplane::cuda::dispatch {

namespace {

constexpr std::size_t align_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

std::size_t scan_storage_bytes(std::uint64_t blocks) {
    std::size_t bytes = 0;
    check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const std::uint64_t*>(nullptr),
                                        static_cast<std::uint64_t*>(nullptr), static_cast<std::int64_t>(blocks + 1)),
          "encode: scan storage size");
    return bytes;
}

}  // namespace

std::size_t encode_slot_bytes(std::uint64_t blocks) { return blocks * codec::max_block_bytes; }

std::size_t encode_table_bytes(std::uint64_t blocks) {
    return align_up(8 * (blocks + 1)) + align_up(sizeof(unsigned)) + scan_storage_bytes(blocks);
}

encode_scratch encode_scratch_at(void* slots, void* table, std::uint64_t blocks) {
    encode_scratch s;
    auto* base = static_cast<std::uint8_t*>(table);
    s.slots = static_cast<std::uint8_t*>(slots);
    s.sizes = reinterpret_cast<std::uint64_t*>(base);
    base += align_up(8 * (blocks + 1));
    s.failures = reinterpret_cast<unsigned*>(base);
    base += align_up(sizeof(unsigned));
    s.scan = base;
    s.scan_bytes = scan_storage_bytes(blocks);
    return s;
}

void enqueue_encode(const std::uint32_t* values, std::uint64_t n, bool is_signed, const encode_scratch& scratch,
                    std::uint64_t* offsets, cudaStream_t stream) {
    const std::uint64_t blocks = (n + 2047) / 2048;
    if (blocks == 0) return;
    if (blocks > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        throw size_error("bitplane::cuda::encode: too many blocks");
    constexpr int shared = static_cast<int>(sizeof(kernels::encode_shared));
    check(cudaFuncSetAttribute(kernels::encode_blocks, cudaFuncAttributeMaxDynamicSharedMemorySize, shared),
          "encode: shared memory size");
    check(cudaMemsetAsync(scratch.sizes + blocks, 0, 8, stream), "encode: cudaMemsetAsync");
    check(cudaMemsetAsync(scratch.failures, 0, sizeof(unsigned), stream), "encode: cudaMemsetAsync");
    kernels::encode_blocks<<<static_cast<unsigned>(blocks), kernels::encode_block_threads, shared, stream>>>(
        values, n, is_signed, scratch.slots, scratch.sizes, scratch.failures);
    check(cudaGetLastError(), "encode: encode_blocks launch");
    std::size_t scan_bytes = scratch.scan_bytes;
    check(cub::DeviceScan::ExclusiveSum(scratch.scan, scan_bytes, scratch.sizes, offsets,
                                        static_cast<std::int64_t>(blocks + 1), stream),
          "encode: offsets scan");
}

void enqueue_compact(const encode_scratch& scratch, std::uint64_t blocks, const std::uint64_t* offsets,
                     std::uint8_t* payload, cudaStream_t stream) {
    if (blocks == 0) return;
    kernels::compact_blocks<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(scratch.slots, offsets, payload);
    check(cudaGetLastError(), "encode: compact_blocks launch");
}

}  // namespace bitplane::cuda::dispatch
