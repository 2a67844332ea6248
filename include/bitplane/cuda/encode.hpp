// Encoding work on the GPU: the transpose of 2048-value blocks into bit-planes and each
// block's 32 x 32 Hamming matrix (the inputs the block encoder decides from). Host header.
#pragma once

#include <bitplane/cuda/device_vector.hpp>

#include <cstddef>
#include <cstdint>

namespace bitplane::cuda {

/// For each of `blocks` full blocks of device-resident values (2048 each): its 32 planes into
/// device_planes[2048 * k ...] with the layout of bitplane/block.hpp, and its Hamming matrix
/// (entry (i, j) = popcount(P_i XOR P_j), diagonal = popcount(P_i), as
/// bitplane::compute_hamming_matrix) into device_hamming[1024 * k + 32 * i + j]. Either output
/// may be null to skip it. Warp ballots transpose; pairs of all-zero planes are not counted.
/// Enqueued on `stream`; does not wait. Throws cuda_error on a failed launch.
void transpose_hamming(const std::uint32_t* device_values, std::size_t blocks, std::uint32_t* device_planes,
                       std::uint16_t* device_hamming, stream_t stream = nullptr);

}  // namespace bitplane::cuda
