#include "bitset/bitset_file_fields.hpp"

#include "bitset/bitset_words.hpp"
#include "codec/byte_io.hpp"

#include <bitplane/error.hpp>

#include <algorithm>

#include <string>

namespace bitplane::detail::bitset_file {

void check_counts(std::uint64_t size, std::uint64_t blocks, std::uint64_t count, std::uint64_t stored,
                  std::uint64_t max_size) {
    if (size > max_size) throw format_error("bitset size " + std::to_string(size) + " too large", 16);
    // size <= 2^48: no overflow.
    if (blocks != (size + block_values - 1) / block_values)
        throw format_error("block count " + std::to_string(blocks) + " does not match size " + std::to_string(size), 24);
    if (count > size)
        throw format_error("set bit count " + std::to_string(count) + " exceeds size " + std::to_string(size), 32);
    if (stored > blocks)
        throw format_error("stored block count " + std::to_string(stored) + " exceeds block count " +
                               std::to_string(blocks),
                           40);
}

void check_file_length(std::uint64_t have, std::uint64_t announced) {
    if (have != announced)
        throw format_error("file is " + std::to_string(have) + " bytes, header announces " + std::to_string(announced),
                           std::min(have, announced));
}

void check_summary(const std::byte* summary, std::size_t words, std::uint64_t blocks, std::uint64_t at,
                   std::uint64_t stored) {
    std::uint64_t found = 0;
    for (std::size_t w = 0; w < words; ++w) {
        const auto nonempty = load_le<std::uint64_t>(summary + 8 * w);
        const auto full = load_le<std::uint64_t>(summary + 8 * (words + w));
        const std::uint64_t left = blocks - 64 * std::uint64_t{w};
        const std::uint64_t valid = left >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << left) - 1;
        if (nonempty & ~valid) throw format_error("non-empty summary marks blocks beyond the last", at + 8 * w);
        if (full & ~nonempty)
            throw format_error("full summary marks a block not marked non-empty", at + 8 * (words + w));
        found += popcount64(nonempty & ~full);
    }
    if (found != stored)
        throw format_error("summary has " + std::to_string(found) + " stored blocks, header announces " +
                               std::to_string(stored),
                           40);
}

void check_items(block_kind kind, std::uint32_t items, std::uint32_t len, const char* what, std::uint64_t items_at,
                 std::uint64_t kind_at, bool memory_kinds_only) {
    auto fail = [&](const std::string& why, std::uint64_t at) {
        throw format_error(std::string(what) + ": " + why, at);
    };
    switch (kind) {
        case block_kind::positions:
            if (items < 1 || items > len) fail("position count " + std::to_string(items) + " outside [1, len]", items_at);
            return;
        case block_kind::runs:
            if (items < 1 || items > (len + 1) / 2)
                fail("run count " + std::to_string(items) + " outside [1, (len+1)/2]", items_at);
            return;
        case block_kind::gaps:
            if (memory_kinds_only) fail("gap lists are never stored in memory", kind_at);
            if (items < 1 || items > gaps_payload::max_payload_bytes(len))
                fail("gap list of " + std::to_string(items) + " bytes out of range", items_at);
            return;
        case block_kind::raw:
            if (items != 0) fail("raw block with a non-zero item count", items_at);
            return;
    }
    fail("unknown payload kind " + std::to_string(static_cast<int>(kind)), kind_at);
}

}  // namespace bitplane::detail::bitset_file
