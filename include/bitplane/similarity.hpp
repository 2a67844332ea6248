// Similarity of bit positions and of vectors, from plane popcounts.
#pragma once

#include <bitplane/block.hpp>
#include <bitplane/vector.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace bitplane {

/// 32 x 32 matrix of counts summed over a whole vector.
using plane_matrix = std::array<std::array<std::uint64_t, plane_count>, plane_count>;

/// The Hamming matrix of block `block` of `v` (value planes): entry (i, j) = popcount(P_i XOR
/// P_j), diagonal popcount(P_i). index_error when block >= v.block_count().
template <column_value T> [[nodiscard]] hamming_matrix block_hamming_matrix(const vector<T>& v, std::size_t block);

/// The Hamming matrix summed over all blocks: which bit positions carry the same information.
template <column_value T> [[nodiscard]] plane_matrix plane_hamming_matrix(const vector<T>& v);

/// Cross matrix: entry (i, j) = popcount(A_i XOR B_j) summed over blocks (size_error when
/// sizes differ).
template <column_value T> [[nodiscard]] plane_matrix cross_hamming_matrix(const vector<T>& a, const vector<T>& b);

/// Bitwise Jaccard similarity: set bits of (a AND b) over set bits of (a OR b), all values
/// as 32-bit patterns; 1.0 when both have no set bit. size_error when sizes differ.
template <column_value T> [[nodiscard]] double jaccard(const vector<T>& a, const vector<T>& b);

}  // namespace bitplane
