// Bitset file format version 2 (docs/format.md, section 5.1): the body is a list of segments,
// each a stretch of consecutive blocks coded as set positions, runs, clear positions (all
// three as Rice-coded gaps with a per-segment parameter) or raw bits, chosen for size by the
// writer. bitset_io.cpp dispatches on the header's version; version 1 lives there.
#pragma once

#include "bitset/bitset_core.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace bitplane::detail::bitset_v2 {

inline constexpr std::uint16_t version = 2;

/// Appends the version 2 file of `c` to `out`.
void save(const bitset_core& c, std::vector<std::byte>& out);

/// The file's total size from its (checked) 64-byte header: the stream loader reads this many.
std::uint64_t total_bytes(std::span<const std::byte> header);

/// Parses a whole version 2 file (format_error on any broken rule).
std::unique_ptr<bitset_core> load(std::span<const std::byte> bytes);

}  // namespace bitplane::detail::bitset_v2

namespace bitplane {
class bitset;
}

namespace bitplane::detail::bitset_v1 {

/// Appends the version 1 file of `set` (memory's payloads as they are; bitset_io.cpp): what
/// validate() checks, and the old files tests keep loading.
void save(const bitset& set, std::vector<std::byte>& out);

}  // namespace bitplane::detail::bitset_v1
