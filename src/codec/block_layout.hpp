// The one description of a block's header and plane table (docs/format.md section 2 is the
// prose version), for host and device code (host_device.hpp):
//
//   - the flag bits, the plane descriptor's two bytes and the payload sizes;
//   - block_descriptor: the compact summary (32 bytes) of a block that the vector's block
//     table keeps for every sealed block, so that no operation re-parses a header;
//   - read_descriptor: the trusted read of a block_descriptor from bytes the library wrote or
//     validated (no checks, never throws);
//   - put_block_prefix / put_plane_masks / put_plane_descriptor: the writes the encoder's
//     write_plan (block_writer.hpp) lays a header out with.
//
// The checking read is parse_block (block_format.hpp, block_decoder.cpp): it walks the same
// fields with the same helpers, throws format_error with the offset of a fault, and gives the
// block_descriptor of what it parsed (parsed_block::descriptor()), which must equal the trusted
// read of the same bytes (tests/test_codec.cpp checks both on every shape).
//
//   u8   flags: bits 0-1 transform, bit 2 sparse, bit 3 ones mask present,
//              bit 4 all live planes raw (no descriptors), bits 5-7 zero
//   u32  frame-of-reference base            (transform FOR)
//   u32  first value, u32 minimum delta     (transform delta)
//   u16  stored values m                    (sparse)
//   ...  mask plane: descriptor + payload   (sparse)
//   u32  live mask: planes stored
//   u32  ones mask: planes elided as all-one (flag bit 3)
//   descriptors of live planes in decode order (unless all-raw), 2 bytes each
//        byte 0: plane index (bits 0-4), payload kind (bits 5-7)
//        byte 1: base kind (bits 0-1), reference plane (bits 2-6)
//        + u16 item count for positions / runs payloads, byte count for gaps
//   payloads, in descriptor order (all-raw: ascending plane order)
//
// All-raw blocks whose planes are 2048 bits long store their planes interleaved: for each
// 32-bit column c (0..63), word c of every live plane in ascending plane order.
#pragma once

#include <bitplane/codec.hpp>
#include <bitplane/detail/block_descriptor.hpp>

#include "host_device.hpp"

#include <cstddef>
#include <cstdint>

namespace bitplane::detail {


/// Little-endian load at any alignment from bytes the caller knows exist (host and device).
template <class T>
BITPLANE_HOST_DEVICE inline T layout_load(const std::byte* p) noexcept {
#if defined(__CUDA_ARCH__)
    std::uint64_t v = 0;
    for (unsigned i = 0; i < sizeof(T); ++i) v |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(p[i])) << (8 * i);
    return static_cast<T>(v);
#else
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
#endif
}

/// Byte offset, from the start of an interleaved payload of `stored` planes, of 32-bit word
/// `column` of the `rank`-th stored plane.
BITPLANE_HOST_DEVICE constexpr std::uint32_t interleaved_offset(std::uint32_t column, std::uint32_t rank, std::uint32_t stored) noexcept {
    return (column * stored + rank) * 4;
}

// ---- plane descriptors --------------------------------------------------------------------

inline constexpr std::uint32_t plane_descriptor_bytes = 2;  // without the item count
inline constexpr std::uint32_t plane_item_count_bytes = 2;

/// Payload kinds whose descriptor carries a u16 item count.
BITPLANE_HOST_DEVICE constexpr bool counted(codec::payload_kind kind) noexcept {
    return kind == codec::payload_kind::positions || kind == codec::payload_kind::runs ||
           kind == codec::payload_kind::gaps;
}

/// Payload bytes of a plane of `length` bits stored as `kind` with `items` items (for gaps,
/// `items` is the byte count).
BITPLANE_HOST_DEVICE constexpr std::uint32_t payload_size(codec::payload_kind kind, std::uint32_t items,
                                                          std::uint32_t length) noexcept {
    switch (kind) {
        case codec::payload_kind::none: return 0;
        case codec::payload_kind::positions: return 2 * items;
        case codec::payload_kind::runs: return 4 * items;
        case codec::payload_kind::raw: return (length + 7) / 8;
        case codec::payload_kind::gaps: return items;
    }
    return 0;
}

/// The fields of a descriptor's two bytes (unchecked: the checking read tests the reserved
/// bit, the payload kind's range and the reference rules).
struct plane_code {
    std::uint8_t index = 0;      // plane number 0..31
    std::uint8_t payload = 0;    // codec::payload_kind (0..7 before checking)
    std::uint8_t base = 0;       // codec::base_kind
    std::uint8_t reference = 0;  // plane number 0..31
    std::uint8_t reserved = 0;   // byte 1 bit 7 (must be 0)

    [[nodiscard]] BITPLANE_HOST_DEVICE constexpr codec::payload_kind payload_kind() const noexcept {
        return static_cast<codec::payload_kind>(payload);
    }
    [[nodiscard]] BITPLANE_HOST_DEVICE constexpr codec::base_kind base_kind() const noexcept {
        return static_cast<codec::base_kind>(base);
    }
};

BITPLANE_HOST_DEVICE constexpr plane_code decode_plane_code(std::uint8_t byte0, std::uint8_t byte1) noexcept {
    plane_code c;
    c.index = byte0 & 0x1F;
    c.payload = static_cast<std::uint8_t>(byte0 >> 5);
    c.base = byte1 & 3;
    c.reference = (byte1 >> 2) & 0x1F;
    c.reserved = byte1 >> 7;
    return c;
}

BITPLANE_HOST_DEVICE constexpr std::uint8_t plane_code_byte0(std::uint32_t index, codec::payload_kind payload) noexcept {
    return static_cast<std::uint8_t>(index | (static_cast<std::uint32_t>(payload) << 5));
}
BITPLANE_HOST_DEVICE constexpr std::uint8_t plane_code_byte1(codec::base_kind base, std::uint32_t reference) noexcept {
    return static_cast<std::uint8_t>(static_cast<std::uint32_t>(base) | (reference << 2));
}

/// Writes a plane descriptor (2 bytes, plus the u16 item count of counted kinds) at `out`;
/// returns the bytes written.
BITPLANE_HOST_DEVICE inline std::uint32_t put_plane_descriptor(std::byte* out, std::uint32_t index, codec::payload_kind payload,
                                                               codec::base_kind base, std::uint32_t reference,
                                                               std::uint32_t items) noexcept {
    put_le<std::uint8_t>(out, plane_code_byte0(index, payload));
    put_le<std::uint8_t>(out + 1, plane_code_byte1(base, reference));
    if (!counted(payload)) return plane_descriptor_bytes;
    put_le<std::uint16_t>(out + 2, static_cast<std::uint16_t>(items));
    return plane_descriptor_bytes + plane_item_count_bytes;
}

// ---- block header -------------------------------------------------------------------------

/// The header fields before the mask plane (sparse) or the plane masks.
struct block_prefix {
    codec::transform transform = codec::transform::none;
    bool sparse = false;
    bool has_ones = false;
    bool all_raw = false;
    std::uint32_t for_base = 0;
    std::uint32_t delta_first = 0;
    std::uint32_t delta_min = 0;
    std::uint32_t stored_values = 0;  // m (sparse)
};

BITPLANE_HOST_DEVICE constexpr std::uint8_t flags_of(const block_prefix& p) noexcept {
    std::uint8_t flags = static_cast<std::uint8_t>(p.transform);
    if (p.sparse) flags |= block_flags::sparse;
    if (p.has_ones) flags |= block_flags::has_ones;
    if (p.all_raw) flags |= block_flags::all_raw;
    return flags;
}

/// Bytes of the prefix for a block with these flags (flags, transform fields, m).
BITPLANE_HOST_DEVICE constexpr std::uint32_t prefix_bytes(std::uint8_t flags) noexcept {
    const auto kind = static_cast<codec::transform>(flags & block_flags::transform_mask);
    return 1 + (kind == codec::transform::frame_of_reference ? 4u : 0u) + (kind == codec::transform::delta ? 8u : 0u) +
           ((flags & block_flags::sparse) ? 2u : 0u);
}

/// Writes flags, transform fields and m; returns the bytes written (prefix_bytes).
BITPLANE_HOST_DEVICE inline std::uint32_t put_block_prefix(std::byte* out, const block_prefix& p) noexcept {
    std::uint32_t at = 0;
    put_le<std::uint8_t>(out, flags_of(p));
    at += 1;
    if (p.transform == codec::transform::frame_of_reference) {
        put_le<std::uint32_t>(out + at, p.for_base);
        at += 4;
    }
    if (p.transform == codec::transform::delta) {
        put_le<std::uint32_t>(out + at, p.delta_first);
        put_le<std::uint32_t>(out + at + 4, p.delta_min);
        at += 8;
    }
    if (p.sparse) {
        put_le<std::uint16_t>(out + at, static_cast<std::uint16_t>(p.stored_values));
        at += 2;
    }
    return at;
}

/// Writes the live mask and, when `ones` is not zero, the ones mask; returns the bytes written.
BITPLANE_HOST_DEVICE inline std::uint32_t put_plane_masks(std::byte* out, std::uint32_t live, std::uint32_t ones) noexcept {
    put_le<std::uint32_t>(out, live);
    if (ones == 0) return 4;
    put_le<std::uint32_t>(out + 4, ones);
    return 8;
}

// ---- the compact descriptor (include/bitplane/detail/block_descriptor.hpp) ------------------

static_assert(codec::max_block_bytes <= 0xFFFF);

/// The descriptor of a block of `count` values from bytes the library wrote or validated
/// (trusted: no checks of the rules parse_block enforces). It never reads at or beyond
/// `size` bytes: a header cut short gives a descriptor with end == 0, which no valid block has.
BITPLANE_HOST_DEVICE inline block_descriptor read_descriptor(const std::byte* bytes, std::uint32_t count,
                                                             std::uint32_t size = 0xFFFFFFFFu) noexcept {
    block_descriptor d;
    const block_descriptor cut_short;
    if (size < 1) return cut_short;
    d.flags = layout_load<std::uint8_t>(bytes);
    std::uint32_t at = 1;
    // Header bytes up to the plane masks, then the masks themselves.
    if (size < prefix_bytes(d.flags)) return cut_short;
    switch (d.transform()) {
        case codec::transform::frame_of_reference:
            d.base = layout_load<std::uint32_t>(bytes + at);
            at += 4;
            break;
        case codec::transform::delta:
            d.base = layout_load<std::uint32_t>(bytes + at);
            d.delta_min = layout_load<std::uint32_t>(bytes + at + 4);
            at += 8;
            break;
        default: break;
    }
    d.length = static_cast<std::uint16_t>(count);
    if (d.sparse()) {
        d.length = layout_load<std::uint16_t>(bytes + at);
        at += 2;
        if (size - at < plane_descriptor_bytes) return cut_short;
        const plane_code mask = decode_plane_code(layout_load<std::uint8_t>(bytes + at),
                                                  layout_load<std::uint8_t>(bytes + at + 1));
        at += plane_descriptor_bytes;
        if (counted(mask.payload_kind())) {
            if (size - at < plane_item_count_bytes) return cut_short;
            d.mask_items = layout_load<std::uint16_t>(bytes + at);
            at += plane_item_count_bytes;
        }
        d.mask_code = static_cast<std::uint8_t>((mask.payload & 7u) | (mask.base_kind() == codec::base_kind::one ? 8u : 0u));
        d.mask_at = static_cast<std::uint16_t>(at);
        at += payload_size(mask.payload_kind(), d.mask_items, count);
    }
    const std::uint32_t masks = (d.flags & block_flags::has_ones) ? 8u : 4u;
    if (at > size || size - at < masks) return cut_short;
    d.live = layout_load<std::uint32_t>(bytes + at);
    if (d.flags & block_flags::has_ones) d.ones = layout_load<std::uint32_t>(bytes + at + 4);
    at += masks;
    d.stored = static_cast<std::uint8_t>(popcount32(d.live));
    d.planes_at = static_cast<std::uint16_t>(at);
    std::uint32_t payloads = 0;
    if (d.all_raw()) {
        payloads = d.stored * payload_size(codec::payload_kind::raw, 0, d.length);
    } else {
        for (std::uint32_t i = 0; i < d.stored; ++i) {
            if (size - at < plane_descriptor_bytes) return cut_short;
            const plane_code c = decode_plane_code(layout_load<std::uint8_t>(bytes + at), 0);
            at += plane_descriptor_bytes;
            std::uint32_t items = 0;
            if (counted(c.payload_kind())) {
                if (size - at < plane_item_count_bytes) return cut_short;
                items = layout_load<std::uint16_t>(bytes + at);
                at += plane_item_count_bytes;
            }
            payloads += payload_size(c.payload_kind(), items, d.length);
        }
    }
    d.payloads_at = static_cast<std::uint16_t>(at);
    d.end = static_cast<std::uint16_t>(at + payloads);
    return d;
}

/// One stored plane found by walking a descriptor's plane table.
struct plane_entry {
    plane_code code;
    std::uint32_t items = 0;           // item count (gaps: byte count)
    std::uint32_t payload_offset = 0;  // in the block
};

/// Walks the stored planes of a descriptor-ful (not all-raw) block in decode order:
/// `next()` gives each plane with its payload offset.
class plane_walker {
public:
    BITPLANE_HOST_DEVICE plane_walker(const block_descriptor& d, const std::byte* bytes) noexcept
        : bytes_(bytes), at_(d.planes_at), payload_(d.payloads_at), length_(d.length) {}
    BITPLANE_HOST_DEVICE plane_entry next() noexcept {
        plane_entry e;
        e.code = decode_plane_code(layout_load<std::uint8_t>(bytes_ + at_), layout_load<std::uint8_t>(bytes_ + at_ + 1));
        at_ += plane_descriptor_bytes;
        if (counted(e.code.payload_kind())) {
            e.items = layout_load<std::uint16_t>(bytes_ + at_);
            at_ += plane_item_count_bytes;
        }
        e.payload_offset = payload_;
        payload_ += payload_size(e.code.payload_kind(), e.items, length_);
        return e;
    }

private:
    const std::byte* bytes_;
    std::uint32_t at_;
    std::uint32_t payload_;
    std::uint32_t length_;
};

}  // namespace bitplane::detail
