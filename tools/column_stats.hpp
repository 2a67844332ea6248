// What `bitplane stats` reports about a packed column: sizes, blocks by transform and layout,
// planes by how they are stored (overall and per plane index), and the 32 x 32 plane
// similarity matrix. Every block of the file is described, the partial last one included.
#pragma once

#include "packed_file.hpp"

#include <bitplane/similarity.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string_view>

namespace bitplane::cli {

/// How one plane of one block is stored, coarsely: elided (zero, one), a plain copy of
/// another plane or its complement (copy), or by its payload (positions, gaps, runs, raw;
/// whatever its base).
enum class plane_encoding : std::uint8_t { zero, one, copy, positions, gaps, runs, raw };
inline constexpr std::size_t plane_encoding_count = 7;
[[nodiscard]] std::string_view name_of(plane_encoding e) noexcept;

struct column_stats {
    std::uint64_t values = 0;
    std::uint64_t file_bytes = 0;
    std::uint64_t encoded_bytes = 0;  ///< the blocks alone (no header or offsets table)
    std::uint64_t blocks = 0;
    std::array<std::uint64_t, 4> blocks_by_transform{};  ///< by codec::transform
    std::array<std::uint64_t, 2> blocks_by_layout{};     ///< by codec::layout
    /// [plane][encoding]: blocks storing value-plane `plane` that way (sparse blocks' planes
    /// are of their non-zero residuals; their mask planes are counted in `mask`).
    std::array<std::array<std::uint64_t, plane_encoding_count>, plane_count> per_plane{};
    std::array<std::uint64_t, plane_encoding_count> mask{};
    /// Bytes (descriptor + payload) of all planes stored each way.
    std::array<std::uint64_t, plane_encoding_count> bytes_by_encoding{};
    /// Stored planes whose base is another plane or its complement.
    std::uint64_t referenced = 0;
    plane_matrix hamming{};  ///< popcount(P_i XOR P_j) over the whole column; diagonal popcount(P_i)
};

[[nodiscard]] column_stats compute_stats(const packed_file& file);

/// Share of values on which planes i and j agree, in [0, 1] (1 for an empty column).
[[nodiscard]] double agreement(const column_stats& s, std::size_t i, std::size_t j) noexcept;

[[nodiscard]] nlohmann::json to_json(const column_stats& s, const packed_file& file);

}  // namespace bitplane::cli
