// Host entry points of the GPU encoding work (include/bitplane/cuda/encode.hpp): the transpose +
// Hamming matrix, and the block encoder that turns device-resident values into a device_vector.
#include <bitplane/cuda/encode.hpp>
#include <bitplane/error.hpp>

#include "dispatch.hpp"
#include "encode_dispatch.hpp"
#include "scratch.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace bitplane::cuda {

void transpose_hamming(const std::uint32_t* device_values, std::size_t blocks, std::uint32_t* device_planes,
                       std::uint16_t* device_hamming, stream_t stream) {
    dispatch::enqueue_transpose_hamming(device_values, blocks, device_planes, device_hamming,
                                        reinterpret_cast<cudaStream_t>(stream));
}

}  // namespace bitplane::cuda

namespace bitplane::cuda::detail {

using dispatch::check;

namespace {

constexpr std::size_t padding = 16;  // readable bytes after a payload, as upload leaves them

}  // namespace

device_blocks encode_values(const std::uint32_t* device_values, std::size_t n, bool is_signed, stream_t stream) {
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    const std::uint64_t blocks = (n + block_values - 1) / block_values;
    device_blocks out;
    out.offsets = device_memory(8 * (blocks + 1));
    auto* offsets = static_cast<std::uint64_t*>(out.offsets.get());
    std::uint64_t total = 0;
    if (blocks == 0) {
        check(cudaMemsetAsync(offsets, 0, 8, s), "encode: cudaMemsetAsync");
    } else {
        // The thread's transfer scratch (scratch.hpp) holds the slots and the size table: this
        // call waits for its work before returning, so no other call of the thread uses them.
        void* slots = device_scratch(scratch_slot::payload_a, dispatch::encode_slot_bytes(blocks));
        void* table = device_scratch(scratch_slot::offsets_a, dispatch::encode_table_bytes(blocks));
        const dispatch::encode_scratch scratch = dispatch::encode_scratch_at(slots, table, blocks);
        dispatch::enqueue_encode(device_values, n, is_signed, scratch, offsets, s);
        // The payload's size decides its allocation: one wait for it (and the failure count).
        auto* host = static_cast<std::uint64_t*>(pinned_scratch(16));
        check(cudaMemcpyAsync(host, offsets + blocks, 8, cudaMemcpyDeviceToHost, s), "encode: size download");
        check(cudaMemcpyAsync(host + 1, scratch.failures, sizeof(unsigned), cudaMemcpyDeviceToHost, s),
              "encode: failure count download");
        check(cudaStreamSynchronize(s), "encode: cudaStreamSynchronize");
        total = host[0];
        const auto failures = static_cast<unsigned>(host[1] & 0xFFFFFFFFu);
        if (failures != 0)
            throw std::logic_error("bitplane::cuda::encode: planned and written sizes differ in " +
                                   std::to_string(failures) + " blocks");
        out.payload = device_memory(total + padding);
        auto* payload = static_cast<std::uint8_t*>(out.payload.get());
        dispatch::enqueue_compact(scratch, blocks, offsets, payload, s);
    }
    if (!out.payload.get()) out.payload = device_memory(padding);
    check(cudaMemsetAsync(static_cast<std::uint8_t*>(out.payload.get()) + total, 0, padding, s),
          "encode: cudaMemsetAsync");
    // Done before returning, so that the scratch is free for the thread's next call.
    check(cudaStreamSynchronize(s), "encode: cudaStreamSynchronize");
    out.blocks = blocks;
    out.size = n;
    out.bytes = total;
    out.is_signed = is_signed;
    return out;
}

}  // namespace bitplane::cuda::detail
