// The checked parse of an encoded block: parse_block turns the header and descriptors into a
// `parsed_block` (every stored plane with its extent), checking structure and sizes; payload
// contents are checked when planes are rebuilt (block_decoder.cpp). The layout itself (flags,
// descriptor bytes, payload sizes, the compact block_descriptor and its trusted read) is
// block_layout.hpp's.
#pragma once

#include <bitplane/codec.hpp>

#include "block_layout.hpp"
#include "byte_io.hpp"
#include "host_device.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane::detail {

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
    block_descriptor descriptor;       // the compact summary (equal to read_descriptor's)
};

/// Parses header, descriptors and payload extents of a block of `count` values. Throws
/// format_error (offsets relative to `bytes`, plus `base_offset`) on any structural fault.
/// Checks that the block ends exactly at bytes.size() when `exact` is set.
parsed_block parse_block(std::span<const std::byte> bytes, std::size_t count, bool exact,
                         std::uint64_t base_offset = 0);

/// The parsed_block of a block whose descriptor `d` was read from trusted bytes (by
/// read_descriptor or a parse_block before): the plane table from the descriptor bytes at
/// d.planes_at, with no checks. Equal to parse_block's result on the same bytes.
parsed_block expand_descriptor(const block_descriptor& d, const std::byte* bytes, std::uint32_t count) noexcept;

}  // namespace bitplane::detail
