// The 2048-value block and its 32 bit-planes: the unit every bitplane structure is built from.
//
// Layout: plane j, word c, bit b holds bit j of value[32 * c + b]. A plane is 64 words of
// 32 bits (2048 bits, 256 bytes). Planes of a block are stored one after another, so the
// planes of a block form a 32 x 64 array of words.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane {

inline constexpr std::size_t block_values = 2048;  ///< values in a full block
inline constexpr std::size_t plane_count = 32;     ///< bits per value, planes per block
inline constexpr std::size_t plane_words = 64;     ///< 32-bit words per plane
inline constexpr std::size_t plane_bytes = plane_words * 4;

/// One bit-plane: 2048 bits as 64 little-endian 32-bit words.
using plane = std::array<std::uint32_t, plane_words>;

/// The 32 planes of one block, 8 KiB, aligned for 256-bit loads.
struct alignas(64) block_planes {
    std::array<plane, plane_count> planes{};
};

/// Entry (i, j) = popcount(plane_i XOR plane_j); entry (i, i) = popcount(plane_i).
using hamming_matrix = std::array<std::array<std::uint16_t, plane_count>, plane_count>;

/// Transposes `values` (at most 2048; missing values read as 0) into `out`.
/// Uses the active SIMD path (see simd.hpp). O(2048). Thread-safe.
void transpose(std::span<const std::uint32_t> values, block_planes& out);

/// Inverse of `transpose`: writes the first `out.size()` (at most 2048) values.
void untranspose(const block_planes& in, std::span<std::uint32_t> out);

/// The 32 x 32 Hamming matrix of a block's planes (diagonal = popcount of each plane).
[[nodiscard]] hamming_matrix compute_hamming_matrix(const block_planes& in);

}  // namespace bitplane
