// Similarity of bit positions and of device vectors, as bitplane/similarity.hpp on the host:
// Hamming matrices of the value planes (each block decoded in shared memory and transposed
// with warp ballots) and bitwise Jaccard. Each waits for `stream` (it returns host values).
// Host header; link bitplane::cuda.
#pragma once

#include <bitplane/cuda/device_vector.hpp>
#include <bitplane/similarity.hpp>

namespace bitplane::cuda {

namespace detail {
/// 32 x 32 counts over blocks [first, last): a's Hamming matrix (diagonal popcount), or a
/// against b when `b` is not null.
plane_matrix hamming_blocks(const device_blocks& a, const device_blocks* b, std::size_t first, std::size_t last,
                            stream_t stream);
double jaccard_blocks(const device_blocks& a, const device_blocks& b, stream_t stream);
}  // namespace detail

/// The Hamming matrix of block `block` (index_error when block >= block_count()).
template <column_value T>
[[nodiscard]] hamming_matrix block_hamming_matrix(const device_vector<T>& v, std::size_t block, stream_t stream = nullptr) {
    if (block >= v.block_count())
        throw index_error("bitplane::cuda::block_hamming_matrix: block " + std::to_string(block) + " >= block count " +
                          std::to_string(v.block_count()));
    const plane_matrix m = detail::hamming_blocks(v.blocks(), nullptr, block, block + 1, stream);
    hamming_matrix out{};
    for (std::size_t i = 0; i < plane_count; ++i)
        for (std::size_t j = 0; j < plane_count; ++j) out[i][j] = static_cast<std::uint16_t>(m[i][j]);
    return out;
}

/// The Hamming matrix summed over all blocks.
template <column_value T>
[[nodiscard]] plane_matrix plane_hamming_matrix(const device_vector<T>& v, stream_t stream = nullptr) {
    return detail::hamming_blocks(v.blocks(), nullptr, 0, v.block_count(), stream);
}

/// Entry (i, j) = popcount(A_i XOR B_j) summed over blocks (size_error when sizes differ).
template <column_value T>
[[nodiscard]] plane_matrix cross_hamming_matrix(const device_vector<T>& a, const device_vector<T>& b,
                                                stream_t stream = nullptr) {
    if (a.size() != b.size()) throw size_error("bitplane::cuda::cross_hamming_matrix: sizes differ");
    return detail::hamming_blocks(a.blocks(), &b.blocks(), 0, a.block_count(), stream);
}

/// Set bits of (a AND b) over set bits of (a OR b); 1.0 when both have none.
template <column_value T>
[[nodiscard]] double jaccard(const device_vector<T>& a, const device_vector<T>& b, stream_t stream = nullptr) {
    if (a.size() != b.size()) throw size_error("bitplane::cuda::jaccard: sizes differ");
    return detail::jaccard_blocks(a.blocks(), b.blocks(), stream);
}

}  // namespace bitplane::cuda
