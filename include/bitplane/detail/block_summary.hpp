// What vector_core keeps beside each sealed block's descriptor: the block's smallest and largest
// key and its exact sum, so that sum(), min(), max() and the scans answer whole blocks without
// reading their planes (issue #13: a sorted column's range scan visits only the blocks that
// straddle a bound, and a sum costs 16 bytes a block instead of its payload). Not part of the
// public API: it is here because vector_core's table holds it.
//
// A summary is made where the values are at hand: by the encoder (seal, append, write-back
// flush) and by load, which decodes every block to validate it. Blocks that arrive as bytes
// (bitwise results, DNA, the GPU: append_encoded_block(s), adopt without summaries) are not
// decoded for one: that tripled the time of AND/XOR on uniform data, whose blocks are combined
// without a decode. They carry block_summary::unknown(), and readers take their old per-block
// path for them (plane popcounts, scan_block) until a write re-encodes the block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane::detail {

/// Keys order values as T does, as unsigned 32-bit integers: key = bits for uint32 and
/// bits ^ 0x80000000 for int32 (the scans' keys, src/ops/scan_block.hpp).
[[nodiscard]] constexpr std::uint32_t key_bias(bool is_signed) noexcept { return is_signed ? 0x80000000u : 0u; }

/// One sealed block's summary: 16 bytes per 2048 values.
struct block_summary {
    std::uint32_t min_key = 0;  // smallest key of the block's values
    std::uint32_t max_key = 0;  // largest
    std::uint64_t sum = 0;      // exact sum of the values: uint64 for uint32 columns, int64 (two's
                                // complement) for int32 ones (2048 values always fit)

    /// The summary of a block nobody summarized: min_key > max_key, which no block has.
    [[nodiscard]] static constexpr block_summary unknown() noexcept { return {~0u, 0u, 0u}; }
    [[nodiscard]] constexpr bool known() const noexcept { return min_key <= max_key; }

    friend bool operator==(const block_summary&, const block_summary&) = default;
};
static_assert(sizeof(block_summary) == 16);

/// A key range that holds every key of many blocks, from their summaries: vector_core keeps one
/// over its sealed blocks so that a scan whose interval holds all of it, or none of it,
/// answers the whole column at once (issue #13: bed_strand's range [0, 1] over 488 blocks
/// took a min and a max per block, ~15 instructions each, where BitMagic answers in ~0.6 us).
/// It only widens as summaries come and may stay wider than the blocks' keys after blocks are
/// rewritten or dropped (a scan then looks at each block): wider is never wrong, narrower
/// would be. `unknown` once any summary added was unknown() (readers then look per block).
struct key_hull {
    std::uint32_t min_key = ~0u;  // no summary yet: min_key > max_key
    std::uint32_t max_key = 0;
    bool unknown = false;

    constexpr void widen(const block_summary& s) noexcept {
        unknown = unknown || !s.known();
        if (!s.known()) return;
        min_key = s.min_key < min_key ? s.min_key : min_key;
        max_key = s.max_key > max_key ? s.max_key : max_key;
    }
    /// Whether [min_key, max_key] holds every key (false with no known summary, or an unknown one).
    [[nodiscard]] constexpr bool known() const noexcept { return !unknown && min_key <= max_key; }
};

/// Which keys a sealed block holds, for a block whose keys lie close together: bit k - min_key
/// of words[] is set where key k occurs (k - min_key < 64 * word_count). An equality scan skips
/// a block whose filter lacks the target before it reads the block (ops/equality_lane.hpp):
/// in categorical columns a rare value lies inside most blocks' [min, max] but occurs in few
/// (issue #13: geoip4_country's rare country in 176 of 188 blocks' ranges, present in 1).
/// vector_core keeps one in memory only (no file format) for blocks summarize_presence
/// chose, set wherever the block's summary is made from its values and dropped wherever its
/// bytes change otherwise; a block without one is never skipped by it.
struct presence_filter {
    std::uint64_t words[4] = {};
    std::uint32_t word_count = 0;  // 0: no filter

    [[nodiscard]] constexpr bool some() const noexcept { return word_count != 0; }
    /// Words a filter of a block with this summary has: (max_key - min_key) / 64 + 1.
    [[nodiscard]] static constexpr std::uint32_t words_for(const block_summary& s) noexcept {
        return (s.max_key - s.min_key) / 64 + 1;
    }
    friend bool operator==(const presence_filter&, const presence_filter&) = default;
};

/// The presence filter of a block of `values` with summary `s`, or none (word_count 0) where
/// the block's key range is too wide or too few keys in it are absent for a filter to pay
/// (src/codec/thresholds.hpp: presence_max_key_span, presence_min_absent_share).
[[nodiscard]] presence_filter summarize_presence(std::span<const std::uint32_t> values, const block_summary& s,
                                                 bool is_signed) noexcept;

/// The summary of `values` (1 .. 65536 of them; a block has 2048), in one pass of the active
/// path's stats kernel (src/simd/kernels.hpp, which the encoder runs anyway).
[[nodiscard]] block_summary summarize_values(std::span<const std::uint32_t> values, bool is_signed) noexcept;

}  // namespace bitplane::detail
