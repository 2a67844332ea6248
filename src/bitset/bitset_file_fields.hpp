// Checks shared by the bitset files whose headers carry the universe, block, set-bit and
// stored-block counts at offsets 16, 24, 32 and 40 (versions 1 and 3: docs/format.md sections
// 5.2 and 5.3): their length, summary bitmaps and stored blocks' item counts; one place for
// the rules both readers apply.
#pragma once

#include "bitset/bitset_block.hpp"

#include <cstddef>
#include <cstdint>

namespace bitplane::detail::bitset_file {

/// The largest payload a stored block may have in a file of version 1 or 3 (a writer of
/// memory's encodings never exceeds 256 bytes): 2048 positions or 1024 runs.
inline constexpr std::uint64_t max_block_payload = 4096;

/// Universe `size` at most `max_size`, `blocks` = ceil(size / 2048), `count` <= size and
/// `stored` <= blocks; format_error at the offending field's offset otherwise.
void check_counts(std::uint64_t size, std::uint64_t blocks, std::uint64_t count, std::uint64_t stored,
                  std::uint64_t max_size);

/// A file of `have` bytes whose header announces `announced`: format_error where they differ.
void check_file_length(std::uint64_t have, std::uint64_t announced);

/// The summary of a file: `words` non-empty bitmaps then `words` full bitmaps at `summary`
/// (file offset `at`). Full only within non-empty, nothing beyond block `blocks`, and as many
/// stored blocks (non-empty, not full) as the header's count at offset 40 announces;
/// format_error at the offending word otherwise.
void check_summary(const std::byte* summary, std::size_t words, std::uint64_t blocks, std::uint64_t at,
                   std::uint64_t stored);

/// A stored block's item count against its kind and length (`len` bits). format_error named
/// by `what` ("block descriptor", "block entry"): at `items_at` for a count out of range, at
/// `kind_at` for an unknown kind or, where `memory_kinds_only`, a gap list.
void check_items(block_kind kind, std::uint32_t items, std::uint32_t len, const char* what, std::uint64_t items_at,
                 std::uint64_t kind_at, bool memory_kinds_only);

}  // namespace bitplane::detail::bitset_file
