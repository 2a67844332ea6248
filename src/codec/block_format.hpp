// The byte layout of one encoded block (docs/format.md is the prose version) and the parser
// that turns the header and descriptors into a `parsed_block`. Parsing checks structure and
// sizes; payload contents are checked when planes are rebuilt (block_decoder.cpp).
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
// 32-bit column c (0..63), word c of every live plane in ascending plane order. One value's
// bits then sit in one or two cache lines instead of one line per plane, which is what
// makes random access fast; operations de-interleave a block into planes in L1 first.
#pragma once

#include <bitplane/codec.hpp>

#include "byte_io.hpp"
#include "host_device.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane::detail {

namespace block_flags {
inline constexpr std::uint8_t transform_mask = 0x03;
inline constexpr std::uint8_t sparse = 0x04;
inline constexpr std::uint8_t has_ones = 0x08;
inline constexpr std::uint8_t all_raw = 0x10;
inline constexpr std::uint8_t reserved = 0xE0;
}  // namespace block_flags

/// One stored plane as its descriptor says.
struct stored_plane {
    std::uint8_t index = 0;
    codec::base_kind base = codec::base_kind::zero;
    std::uint8_t reference = 0;
    codec::payload_kind payload = codec::payload_kind::none;
    std::uint16_t items = 0;
    std::uint32_t descriptor_offset = 0;  // where its descriptor starts in the block
    std::uint32_t payload_offset = 0;     // where its payload starts in the block
    std::uint32_t payload_bytes = 0;
};

struct parsed_block {
    codec::transform value_transform = codec::transform::none;
    bool sparse = false;
    bool all_raw = false;
    bool interleaved = false;  // all-raw planes of 2048 bits, stored column by column
    std::uint32_t count = 0;   // values in the block
    std::uint32_t length = 0;  // bits per value plane: count, or m when sparse
    std::uint32_t for_base = 0;
    std::uint32_t delta_first = 0;
    std::uint32_t delta_min = 0;
    std::uint32_t live = 0;
    std::uint32_t ones = 0;
    stored_plane mask;                 // sparse only; its index field is unused
    std::uint32_t stored = 0;          // number of entries used in `planes`
    std::array<stored_plane, plane_count> planes;  // decode order
    std::uint32_t end = 0;             // bytes the block occupies
};

/// Byte offset, from the start of an interleaved payload of `stored` planes, of 32-bit word
/// `column` of the `rank`-th stored plane.
BITPLANE_HOST_DEVICE constexpr std::uint32_t interleaved_offset(std::uint32_t column, std::uint32_t rank, std::uint32_t stored) noexcept {
    return (column * stored + rank) * 4;
}

/// Payload bytes of a plane of `length` bits stored as `kind` with `items` items.
std::uint32_t payload_size(codec::payload_kind kind, std::uint32_t items, std::uint32_t length) noexcept;

/// Parses header, descriptors and payload extents of a block of `count` values. Throws
/// format_error (offsets relative to `bytes`, plus `base_offset`) on any structural fault.
/// Checks that the block ends exactly at bytes.size() when `exact` is set.
parsed_block parse_block(std::span<const std::byte> bytes, std::size_t count, bool exact,
                         std::uint64_t base_offset = 0);

}  // namespace bitplane::detail
