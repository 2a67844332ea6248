// The compact description of one encoded block that bitplane's containers keep for every
// block (src/codec/block_layout.hpp reads and writes it; docs/format.md section 2 is the byte
// layout). Not part of the public API: it is here because vector_core's block table holds it.
#pragma once

#include <bitplane/codec.hpp>

#include <cstdint>

#if defined(__CUDACC__)
#define BITPLANE_DESCRIPTOR_HD __host__ __device__
#else
#define BITPLANE_DESCRIPTOR_HD
#endif

namespace bitplane::detail {

/// The bits of a block's flags byte.
namespace block_flags {
inline constexpr std::uint8_t transform_mask = 0x03;
inline constexpr std::uint8_t sparse = 0x04;
inline constexpr std::uint8_t has_ones = 0x08;
inline constexpr std::uint8_t all_raw = 0x10;
inline constexpr std::uint8_t reserved = 0xE0;
}  // namespace block_flags

/// What a block is, in 32 bytes: enough for a random read or an operation to find every plane
/// without reading the header again. Plane descriptors themselves are not copied: stored
/// planes are found by walking the descriptor bytes at `planes_at` (2 or 4 bytes each) while
/// adding up payload sizes from `payloads_at`; all-raw blocks have no descriptors and their
/// payloads start at `payloads_at`.
struct block_descriptor {
    std::uint32_t live = 0;
    std::uint32_t ones = 0;
    std::uint32_t base = 0;        // frame-of-reference base, or the delta first value
    std::uint32_t delta_min = 0;   // delta minimum difference
    std::uint16_t end = 0;         // bytes the block occupies
    std::uint16_t length = 0;      // bits per stored plane: the block's count, or m when sparse
    std::uint16_t planes_at = 0;   // first plane descriptor (== payloads_at when all-raw)
    std::uint16_t payloads_at = 0; // first payload of the live planes
    std::uint16_t mask_at = 0;     // sparse: the mask plane's payload
    std::uint16_t mask_items = 0;  // sparse: the mask plane's item count
    std::uint8_t flags = 0;        // the block's flags byte
    std::uint8_t mask_code = 0;    // sparse: mask payload kind (bits 0-2), base one (bit 3)
    std::uint8_t stored = 0;       // live planes (popcount of live)
    std::uint8_t spare = 0;

    [[nodiscard]] BITPLANE_DESCRIPTOR_HD constexpr codec::transform transform() const noexcept {
        return static_cast<codec::transform>(flags & block_flags::transform_mask);
    }
    [[nodiscard]] BITPLANE_DESCRIPTOR_HD constexpr bool sparse() const noexcept { return flags & block_flags::sparse; }
    [[nodiscard]] BITPLANE_DESCRIPTOR_HD constexpr bool all_raw() const noexcept { return flags & block_flags::all_raw; }
    /// All-raw planes of 2048 bits, stored column by column.
    [[nodiscard]] BITPLANE_DESCRIPTOR_HD constexpr bool interleaved() const noexcept {
        return all_raw() && length == block_values;
    }
    [[nodiscard]] BITPLANE_DESCRIPTOR_HD constexpr codec::payload_kind mask_payload() const noexcept {
        return static_cast<codec::payload_kind>(mask_code & 7);
    }
    [[nodiscard]] BITPLANE_DESCRIPTOR_HD constexpr bool mask_base_one() const noexcept { return mask_code & 8; }
    [[nodiscard]] BITPLANE_DESCRIPTOR_HD constexpr std::uint32_t for_base() const noexcept {
        return transform() == codec::transform::frame_of_reference ? base : 0;
    }

    friend BITPLANE_DESCRIPTOR_HD constexpr bool operator==(const block_descriptor&, const block_descriptor&) = default;
};
static_assert(sizeof(block_descriptor) == 32);

}  // namespace bitplane::detail

#undef BITPLANE_DESCRIPTOR_HD
