// What the compression did to a container: sizes, layouts and plane encodings.
#pragma once

#include <bitplane/codec.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace bitplane {

struct vector_stats {
    std::uint64_t values = 0;
    std::uint64_t sealed_blocks = 0;          ///< blocks stored compressed
    std::uint64_t memory_bytes = 0;           ///< everything the vector holds, see memory_bytes()
    std::uint64_t encoded_bytes = 0;          ///< bytes of the compressed blocks alone
    double bits_per_value = 0.0;              ///< 8 * memory_bytes / values
    std::array<std::uint64_t, 4> blocks_by_transform{};  ///< indexed by codec::transform
    std::array<std::uint64_t, 2> blocks_by_layout{};     ///< indexed by codec::layout
    /// planes[base][payload]: how many planes of sealed blocks are stored each way; elided
    /// all-zero planes count as [zero][none], all-one planes as [one][none]. Mask planes of
    /// sparse blocks are included.
    std::array<std::array<std::uint64_t, codec::payload_kind_count>, 4> planes{};
};

}  // namespace bitplane
