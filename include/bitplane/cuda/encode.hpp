// Encoding on the GPU. Host header (no kernel code): link bitplane::cuda.
//
// encode() turns device-resident values into a device_vector whose blocks are, byte for byte,
// the ones bitplane::vector<T> of the same values uploads (codec::encode_block with default
// options for every block; the last block partial): one CTA per block measures the values and
// planes with warp ballots and popcounts and takes every decision with the CPU codec's own
// functions (docs/gpu.md, "Encoding on the GPU"). transpose_hamming() gives the planes and
// Hamming matrices alone.
#pragma once

#include <bitplane/cuda/device_vector.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace bitplane::cuda {

namespace detail {
/// The blocks of `n` device-resident values (see encode()).
device_blocks encode_values(const std::uint32_t* device_values, std::size_t n, bool is_signed, stream_t stream);
}  // namespace detail

/// Compresses `n` values in device memory (`device_values`, any 4-byte aligned device pointer)
/// into a device_vector<T> on the device: its blocks and offsets table are those that
/// uploading bitplane::vector<T> of the same values gives. Work: one CTA per 2048 values,
/// an exclusive scan of the block sizes (CUB) and a copy of each block to its offset; scratch
/// of codec::max_block_bytes per block is kept per calling thread (as for the other entry
/// points). Waits for `stream`: once for the payload's size (its allocation is sized on the
/// host), and before returning, so the result is complete and the values may be freed then.
/// No device-wide synchronization. Throws cuda_error on a CUDA failure, size_error past 2^31
/// blocks. Thread safety: calls from different threads are independent.
template <column_value T>
[[nodiscard]] device_vector<T> encode(const T* device_values, std::size_t n, stream_t stream = nullptr) {
    return device_vector<T>(
        detail::encode_values(reinterpret_cast<const std::uint32_t*>(device_values), n, std::is_signed_v<T>, stream));
}

/// For each of `blocks` full blocks of device-resident values (2048 each): its 32 planes into
/// device_planes[2048 * k ...] with the layout of bitplane/block.hpp, and its Hamming matrix
/// (entry (i, j) = popcount(P_i XOR P_j), diagonal = popcount(P_i), as
/// bitplane::compute_hamming_matrix) into device_hamming[1024 * k + 32 * i + j]. Either output
/// may be null to skip it. Warp ballots transpose; pairs of all-zero planes are not counted.
/// Enqueued on `stream`; does not wait. Throws cuda_error on a failed launch.
void transpose_hamming(const std::uint32_t* device_values, std::size_t blocks, std::uint32_t* device_planes,
                       std::uint16_t* device_hamming, stream_t stream = nullptr);

}  // namespace bitplane::cuda
