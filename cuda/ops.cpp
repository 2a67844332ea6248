// Host entry points of the device scans, bitwise operations and similarity
// (include/bitplane/cuda/scan.hpp, bitwise.hpp, similarity.hpp).
#include <bitplane/cuda/bitwise.hpp>
#include <bitplane/cuda/encode.hpp>
#include <bitplane/cuda/scan.hpp>
#include <bitplane/cuda/similarity.hpp>
#include <bitplane/error.hpp>

#include "dispatch.hpp"
#include "scratch.hpp"

#include <cuda_runtime.h>

namespace bitplane::cuda::detail {

using dispatch::check;

namespace {

dispatch::device_blocks_ref blocks_ref_of(const device_blocks& v) {
    return {static_cast<const std::uint8_t*>(v.payload.get()), static_cast<const std::uint64_t*>(v.offsets.get()),
            v.blocks, v.size};
}

}  // namespace

device_bitset scan_blocks(const device_blocks& v, std::uint32_t flip, std::uint32_t lo, std::uint32_t hi, bool invert,
                          stream_t stream) {
    device_bitset out = device_bitset::uninitialized_dense(v.size);
    dispatch::enqueue_scan_range(blocks_ref_of(v), flip, lo, hi, invert,
                                 static_cast<std::uint32_t*>(out.storage().words.get()),
                                 reinterpret_cast<cudaStream_t>(stream));
    return out;
}

void bitwise_blocks(const device_blocks& a, const device_blocks& b, bitwise_op op, std::uint32_t* device_out,
                    stream_t stream) {
    if (a.size != b.size)
        throw size_error("bitplane::cuda::bitwise: sizes differ (" + std::to_string(a.size) + " and " +
                         std::to_string(b.size) + " values)");
    dispatch::enqueue_bitwise(blocks_ref_of(a), blocks_ref_of(b), static_cast<unsigned>(op), device_out,
                              reinterpret_cast<cudaStream_t>(stream));
}

device_blocks bitwise_encoded(const device_blocks& a, const device_blocks& b, bitwise_op op, stream_t stream) {
    // Dense result in the thread's decode scratch (encode_values uses other slots and waits
    // for its work, so the scratch is free again when this returns), then encoded on the device.
    auto* dense = static_cast<std::uint32_t*>(device_scratch(scratch_slot::decode, 4 * a.blocks * block_values));
    bitwise_blocks(a, b, op, dense, stream);
    return encode_values(dense, a.size, a.is_signed, stream);
}

plane_matrix hamming_blocks(const device_blocks& a, const device_blocks* b, std::size_t first, std::size_t last,
                            stream_t stream) {
    plane_matrix out{};
    if (first >= last) return out;
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    constexpr std::size_t bytes = 8 * plane_count * plane_count;
    auto* counts = static_cast<unsigned long long*>(device_scratch(scratch_slot::reduce, bytes));
    check(cudaMemsetAsync(counts, 0, bytes, s), "hamming: cudaMemsetAsync");
    dispatch::enqueue_hamming(blocks_ref_of(a), blocks_ref_of(b != nullptr ? *b : a), b == nullptr, first, last, counts, s);
    auto* host = static_cast<std::uint64_t*>(pinned_scratch(bytes));
    check(cudaMemcpyAsync(host, counts, bytes, cudaMemcpyDeviceToHost, s), "hamming: result");
    check(cudaStreamSynchronize(s), "hamming: cudaStreamSynchronize");
    for (std::size_t i = 0; i < plane_count; ++i)
        for (std::size_t j = 0; j < plane_count; ++j) out[i][j] = host[i * plane_count + j];
    return out;
}

double jaccard_blocks(const device_blocks& a, const device_blocks& b, stream_t stream) {
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    auto* counts = static_cast<unsigned long long*>(device_scratch(scratch_slot::reduce, 16));
    check(cudaMemsetAsync(counts, 0, 16, s), "jaccard: cudaMemsetAsync");
    dispatch::enqueue_overlap(blocks_ref_of(a), blocks_ref_of(b), counts, s);
    auto* host = static_cast<std::uint64_t*>(pinned_scratch(16));
    check(cudaMemcpyAsync(host, counts, 16, cudaMemcpyDeviceToHost, s), "jaccard: result");
    check(cudaStreamSynchronize(s), "jaccard: cudaStreamSynchronize");
    const std::uint64_t either = host[1] - host[0];
    return either == 0 ? 1.0 : static_cast<double>(host[0]) / static_cast<double>(either);
}

}  // namespace bitplane::cuda::detail
