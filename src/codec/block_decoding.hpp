// Rebuilding the planes and values of a parsed block; shared by the decoder and the reader.
#pragma once

#include <bitplane/detail/decode_destination.hpp>

#include "block_format.hpp"
#include "direct_access.hpp"
#include "plane_bits.hpp"

#include <cstdint>
#include <span>

namespace bitplane::detail {

/// Rebuilds one stored plane of `length` bits from its base and payload. `planes` holds the
/// planes decoded before it (indexed by plane number). `gaps_map` (may be null): a gaps
/// payload's bits as kept in memory (gaps_side), applied instead of its list.
void rebuild_plane(const stored_plane& stored, std::span<const std::byte> bytes, std::uint64_t base_offset,
                   std::uint32_t length, const plane* planes, plane& out, const std::uint32_t* gaps_map = nullptr);

/// Rebuilds every live and all-one plane (others are left untouched) and, if sparse, the
/// non-zero mask; checks the mask against the stored value count.
/// `planes` points to plane_count planes; the decoder passes uninitialized ones (a
/// block_planes is zeroed on construction: 8 KiB of stores per block that nothing reads).
/// `side`: the maps a container keeps beside the block (gaps_side), if any.
void rebuild_planes(const parsed_block& block, std::span<const std::byte> bytes, std::uint64_t base_offset,
                    plane* planes, plane& mask, gaps_side side = {});
inline void rebuild_planes(const parsed_block& block, std::span<const std::byte> bytes, std::uint64_t base_offset,
                           block_planes& planes, plane& mask) {
    rebuild_planes(block, bytes, base_offset, planes.planes.data(), mask);
}

/// Decodes the block's values into out[0..block.count); `destination` says whether out is in
/// cache (it picks the untranspose kernel only).
void decode_parsed(const parsed_block& block, std::span<const std::byte> bytes, std::uint64_t base_offset,
                   std::span<std::uint32_t> out, gaps_side side = {},
                   decode_destination destination = decode_destination::memory);

}  // namespace bitplane::detail
