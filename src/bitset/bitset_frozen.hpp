// Bitset file format version 3, the frozen layout (docs/format.md, section 5.3): the summary
// bitmaps, one 16-byte entry per stored block in memory's own form, then the payload arena as
// memory lays it out, so that a view (include/bitplane/bitset_view.hpp) validates the bytes once
// and then reads them where they are. bitset_io.cpp dispatches load_bitset here for version 3.
#pragma once

#include "bitset/bitset_core.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace bitplane::detail::bitset_frozen {

inline constexpr std::uint16_t version = 3;

/// Header byte 11: the version of memory's block layout the entries and payloads follow (the
/// entry fields, the payload encodings, choose_plan()'s thresholds, the inline payload
/// bound). Bump it whenever one of those changes: files of another layout version are then
/// decoded and re-encoded (copied), never read in place.
inline constexpr std::uint8_t layout_version = 1;

/// Readable zero bytes after the arena (memory's byte_buffer::slack: fixed-size loads past a
/// payload's end).
inline constexpr std::size_t slack_bytes = byte_buffer::slack;

/// The alignment a span must have to be read in place (the arena then starts at a multiple of
/// 16 of the file, hence of 8 in memory, as payload loads of 2, 4 and 8 bytes expect).
inline constexpr std::size_t view_alignment = 8;

/// Appends the version 3 file of `c` to `out` (payloads packed in block order, canonical).
void save(const bitset_core& c, std::vector<std::byte>& out);

/// The file's total size from its 64-byte header (checked): the stream loader reads this many.
std::uint64_t total_bytes(std::span<const std::byte> header);

/// Parses a whole version 3 file (format_error on any broken rule). With `borrow` (and a file
/// of this layout version, at an address aligned to view_alignment) the core's arena refers
/// to `bytes`, which must then outlive it; otherwise it owns a copy. `borrowed` tells which.
std::unique_ptr<bitset_core> load(std::span<const std::byte> bytes, bool borrow, bool* borrowed = nullptr);

}  // namespace bitplane::detail::bitset_frozen
