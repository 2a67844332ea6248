// The dispatch layer of the GPU block encoder (cuda/encode.cu, kernels/encode_block.cuh): launch
// logic over plain device pointers, called by the host entry point (cuda/encode.cpp).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace bitplane::cuda::dispatch {

/// Device scratch of one encode over `blocks` blocks: a slot of codec::max_block_bytes per block
/// (each block is written to its slot, then copied to its offset), the block sizes (blocks + 1,
/// the last one 0), a failure counter and CUB's scan storage.
struct encode_scratch {
    std::uint8_t* slots = nullptr;
    std::uint64_t* sizes = nullptr;
    unsigned* failures = nullptr;
    void* scan = nullptr;
    std::size_t scan_bytes = 0;
};

/// Bytes of the slots, and of the rest (sizes, counter, scan storage), for `blocks` blocks.
std::size_t encode_slot_bytes(std::uint64_t blocks);
std::size_t encode_table_bytes(std::uint64_t blocks);
/// The layout of the scratch in those two buffers.
encode_scratch encode_scratch_at(void* slots, void* table, std::uint64_t blocks);

/// Encodes `n` values (blocks of 2048, the last one partial) as codec::encode_block does with
/// default options, into the slots, and writes offsets[0 .. blocks] (the exclusive sum of the
/// block sizes: offsets[blocks] is the payload size), on `stream`; scratch.failures gets the
/// number of blocks whose written size differs from their plan (0 unless the encoder is wrong).
void enqueue_encode(const std::uint32_t* values, std::uint64_t n, bool is_signed, const encode_scratch& scratch,
                    std::uint64_t* offsets, cudaStream_t stream);
/// Copies every block from its slot to payload + offsets[b], on `stream`.
void enqueue_compact(const encode_scratch& scratch, std::uint64_t blocks, const std::uint64_t* offsets,
                     std::uint8_t* payload, cudaStream_t stream);

}  // namespace bitplane::cuda::dispatch
