// Reading one value of a block from its block_descriptor (block_layout.hpp), with no header
// parsing: dense, full, all-raw blocks (plain or frame of reference) inline, as one or two
// cache lines of interleaved plane words; every other layout through read_value
// (block_reader.cpp), which walks the descriptor's plane table.
#pragma once

#include "block_layout.hpp"
#include "byte_io.hpp"

#include <bit>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane::detail {

/// Delta blocks: the sums of the stored residuals at positions [0, 32 (k + 1)), k = 0..63, that
/// a container may keep beside a block, so that a random read counts at most 31 positions, all
/// in one 32-bit column of every plane, forward from the checkpoint before it. 256 bytes a
/// delta block (0.5 bits a value more than at stride 64). At stride 64 a read counted from the
/// nearer checkpoint, forward or back: a branch on the position that mispredicted about every
/// other read (callgrind, 20,000 reads, instructions / mispredicted branches a read, stride 64
/// -> 32 alone: bam_pos 556 / 4.63 -> 527 / 4.05, bed_start 638 / 2.00 -> 610 / 1.54,
/// geoip4_start 964 / 8.90 -> 930 / 8.35), and its windows of up to 64 positions did not fit
/// the AVX2 copy's 32-bit columns (value_reader.hpp, plan_column_sum). At stride 256 (32 bytes)
/// reads took about twice the instructions of stride 64 (bam_pos 2351 -> 1136 a read).
inline constexpr std::uint32_t delta_checkpoint_stride = 32;
inline constexpr std::uint32_t delta_checkpoint_count = block_values / delta_checkpoint_stride;

/// Fills out[0..delta_checkpoint_count) for a delta block (block_reader.cpp).
void delta_checkpoints(const block_descriptor& d, const std::byte* block, std::uint32_t* out) noexcept;

/// Gaps payloads (plane_gaps.hpp): side entries a container may keep beside a block (the
/// mask's payload first, then the planes' in descriptor order), so that finding a bit does not
/// walk the list: a long payload (thresholds::read_bitmap_min_gaps_bytes, in delta blocks
/// read_bitmap_min_delta_gaps_bytes) has its bits as a 2048-bit map and the map's ranks
/// (value_reader.hpp, gaps_bitmap_words), so that a read tests a bit; a shorter one its
/// positions, decoded and padded (value_reader.hpp, listed_positions), so that a read compares
/// them with the bit. In memory only.
std::uint32_t gaps_skip_count(const block_descriptor& d, const std::byte* block) noexcept;
/// Fills out[0..gaps_skip_count(d, block)).
void gaps_skips(const block_descriptor& d, const std::byte* block, std::uint32_t* out) noexcept;

/// gaps_skips' entries of one block as the decoder walks them (the mask's payload, then the
/// planes' in descriptor order): a payload whose map is kept is rebuilt by XORing the map's 64
/// words in, not by walking its list (a list of 170 gaps, geoip4_size's usual plane, cost ~900
/// instructions to apply: over half of its decode).
class gaps_side {
public:
    gaps_side() = default;
    /// `skips`: the block's gaps_skips entries (null: none kept, every list is walked).
    gaps_side(const block_descriptor& d, const std::uint32_t* skips) noexcept;
    /// The map of the next stored payload, of `kind` with `items` (for gaps: its bytes), or
    /// null; a gaps payload moves past its entries, any other kind has none.
    const std::uint32_t* next_map(codec::payload_kind kind, std::uint32_t items) noexcept;

    /// A gaps payload's side entries: its map, or (shorter lists) its decoded positions,
    /// ascending, then padded with gaps_listed_pad (above every position) to `listed` in all
    /// (value_reader.hpp, listed_positions: a multiple of 16).
    struct entry {
        const std::uint32_t* map = nullptr;
        const std::uint16_t* positions = nullptr;
        std::uint32_t listed = 0;
    };
    /// next_map's walk, with the positions of a list that has no map (both null where none
    /// are kept or the payload is not a gap list).
    entry next(codec::payload_kind kind, std::uint32_t items) noexcept;
    /// Where the next payload's entries start (null where none are kept): a read plan's gaps
    /// entries count from the planes' first, which is here once a sparse mask's are passed.
    [[nodiscard]] const std::uint32_t* at() const noexcept { return entries_; }

private:
    const std::uint32_t* entries_ = nullptr;
    std::uint32_t least_ = 0;
};

/// Read plans: a block's planes (descriptor-ful blocks: not all-raw) listed once in memory,
/// grouped by how a read finds a bit (raw payloads, gap lists kept as maps, gap lists kept as
/// decoded positions, position lists, run lists), with the bases as one XOR mask and the reference planes
/// in decode order. A read then runs one loop per group instead of walking the descriptors
/// with a switch on every plane's kind, whose target differs plane to plane (tz_offset 4.6
/// mispredicted branches a read in that switch alone). Words: the XOR mask (planes on a
/// complemented base), the group counts (raw | mapped << 8 | listed << 16 | positions << 24),
/// (references | runs << 8), then the entries in that order: raw `offset | index << 16`;
/// mapped `entry | index << 16` (`entry`: the word of its gaps_skips entries, counted from
/// the planes' first: after a sparse mask's); listed `entry | index << 16 | positions << 24`
/// (listed_positions); positions and runs two words, `offset | index << 16` and the item
/// count; references `index | reference << 8`, in decode order. Then, in blocks of few list
/// positions (read_plan_filter), a filter of the positions where any plane of the listed and
/// positions groups has a bit: plan[2] bits 16-19 its chunks c (1..8), bit 24 set when the
/// plan has no raw, mapped or run entry; the words after the references are the residual of
/// every position outside the filter (valid with bit 24 only), then the filter's positions as
/// u16 in c * listed_positions_step slots (two a word, ascending, padded with gaps_listed_pad).
/// A read at a position outside it skips those groups (and with bit 24 returns that residual):
/// most reads of a column of rare exceptions (bam_ref_span, bam_mapq). In memory only.
inline constexpr std::uint32_t read_plan_header_words = 3;
/// A read plan's group counts and first entry, as the header words give them (read_plan).
struct plan_groups {
    std::uint32_t raw, mapped, listed, positions, runs, references;
    const std::uint32_t* entries;
};
inline plan_groups groups_of(const std::uint32_t* plan) noexcept {
    const std::uint32_t counts = plan[1];
    return {counts & 0xFFu, (counts >> 8) & 0xFFu, (counts >> 16) & 0xFFu, counts >> 24, (plan[2] >> 8) & 0xFFu,
            plan[2] & 0xFFu, plan + read_plan_header_words};
}
/// A read plan's filter (above): its chunks of listed_positions_step positions (0: none), whether
/// its first word is the residual outside it, and where its words start (after the references).
inline constexpr std::uint32_t read_filter_max_chunks = 8;
inline constexpr std::uint32_t read_filter_default_flag = 1u << 24;
inline std::uint32_t filter_chunks(const std::uint32_t* plan) noexcept { return (plan[2] >> 16) & 15u; }
inline bool filter_has_default(const std::uint32_t* plan) noexcept { return (plan[2] & read_filter_default_flag) != 0; }
inline const std::uint32_t* filter_words(const plan_groups& g) noexcept {
    return g.entries + g.raw + g.mapped + g.listed + 2 * (g.positions + g.runs) + g.references;
}
/// An entry's low 16 bits (payload offset, or word of its side entries) and plane number.
constexpr std::uint32_t plan_low(std::uint32_t entry) noexcept { return entry & 0xFFFFu; }
constexpr std::uint32_t plan_index(std::uint32_t entry) noexcept { return (entry >> 16) & 31u; }
/// A short gap list's kept positions: one u16 per payload byte, rounded up to a multiple of
/// listed_positions_step and padded with gaps_listed_pad (value_reader.hpp says why).
inline constexpr std::uint32_t listed_positions_step = 16;
inline constexpr std::uint16_t gaps_listed_pad = 0x7FFF;  // above every bit, also as signed 16-bit
constexpr std::uint32_t listed_positions(std::uint32_t bytes) noexcept {
    return (bytes + listed_positions_step - 1) / listed_positions_step * listed_positions_step;
}
/// The plan's words (0: the block gets none: all-raw, or no stored plane).
std::uint32_t read_plan_words(const block_descriptor& d, const std::byte* block) noexcept;
/// Fills out[0..read_plan_words(d, block)).
void read_plan(const block_descriptor& d, const std::byte* block, std::uint32_t* out) noexcept;
/// The most words of a read plan without a filter: the header, an entry of at most two words
/// a plane and a reference a plane.
inline constexpr std::uint32_t read_plan_max_unfiltered_words = read_plan_header_words + 3 * plane_count;
/// A read plan of any block read_plan_words gives one or would give one with more lists
/// (descriptor-ful, a stored plane), without a filter, into out[0..read_plan_max_unfiltered_words):
/// for an equality scan on a block that keeps no plan (thresholds::read_plan_min_lists keeps
/// them for reads only where they pay for their memory). False (nothing written) where the
/// block gets no plan at all.
bool unfiltered_read_plan(const block_descriptor& d, const std::byte* block, std::uint32_t* out) noexcept;

/// What a container keeps beside a block for reads, in one run of words: a header word (the
/// plan's words, bit 31 set when gaps entries follow), the read plan, then gaps_skips'
/// entries. read_side_words is 0 for a block that needs neither.
inline constexpr std::uint32_t read_side_gaps_flag = 1u << 31;
std::uint32_t read_side_words(const block_descriptor& d, const std::byte* block) noexcept;
void read_side(const block_descriptor& d, const std::byte* block, std::uint32_t* out) noexcept;
/// The gaps_skips entries of a read side (null: none, or no side).
inline const std::uint32_t* side_gaps(const std::uint32_t* side) noexcept {
    return side != nullptr && (side[0] & read_side_gaps_flag) ? side + 1 + (side[0] & ~read_side_gaps_flag) : nullptr;
}
/// The read plan of a read side (null: none, or no side).
inline const std::uint32_t* side_plan(const std::uint32_t* side) noexcept {
    return side != nullptr && (side[0] & ~read_side_gaps_flag) != 0 ? side + 1 : nullptr;
}

/// Value `index` of a block whose descriptor is `d`, from the block's bytes (written by the
/// library or validated). Any layout; `checkpoints` (delta blocks only, may be null) are
/// delta_checkpoints' sums; `skips` (may be null) gaps_skips' entries; `plan` (may be null;
/// where given, so are `skips` if the block has gap lists) read_plan's words. Defined in
/// block_reader.cpp.
std::uint32_t read_value(const block_descriptor& d, const std::byte* block, std::uint32_t index,
                         const std::uint32_t* checkpoints = nullptr, const std::uint32_t* skips = nullptr,
                         const std::uint32_t* plan = nullptr) noexcept;
/// read_value with a container's read side (read_side; may be null). Inline: as a call of its
/// own it cost vector_core::get 13 instructions a read and a call more (callgrind bam_pos).
inline std::uint32_t read_side_value(const block_descriptor& d, const std::byte* block, std::uint32_t index,
                                     const std::uint32_t* checkpoints, const std::uint32_t* side) noexcept {
    return read_value(d, block, index, checkpoints, side_gaps(side), side_plan(side));
}

/// Whether read_value's inline interleaved path (direct_value) reads this block: dense, full,
/// all-raw, plain or frame of reference.
BITPLANE_HOST_DEVICE constexpr bool direct_readable(const block_descriptor& d) noexcept {
    return d.interleaved() && !d.sparse() &&
           (d.transform() == codec::transform::none || d.transform() == codec::transform::frame_of_reference);
}

/// Gathers bit `shift` of the `stored` consecutive 32-bit words at `words` into bits
/// 0..stored-1. May read up to 12 bytes past the last word (the caller makes sure they exist).
/// A random read is bound by how many instructions keep the out-of-order window busy per
/// cache miss, so on x86-64 this takes 4 words per SSE2 shift + movemask (SSE2 is part of
/// x86-64, no dispatch needed) instead of 5 scalar instructions per word.
inline std::uint32_t gather_bits(const std::byte* words, unsigned stored, unsigned shift, bool may_overread) noexcept {
    std::uint32_t packed = 0;
#if defined(__SSE2__)
    if (may_overread) {
        const __m128i count = _mm_cvtsi32_si128(static_cast<int>(31 - shift));
        for (unsigned k = 0; k < stored; k += 4) {
            const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(words + 4 * k));
            packed |= static_cast<std::uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_sll_epi32(x, count)))) << k;
        }
        return stored >= 32 ? packed : packed & ((1u << stored) - 1);
    }
#else
    (void)may_overread;
#endif
    for (unsigned k = 0; k < stored; ++k) packed |= ((load_le<std::uint32_t>(words + 4 * k) >> shift) & 1u) << k;
    return packed;
}

/// Value `index` of a block whose direct-access fields are (header, live, ones, base) and
/// whose live mask has `stored` bits (passed in: without -mpopcnt, std::popcount is a call).
inline std::uint32_t direct_value(const std::byte* block, std::uint32_t header, std::uint32_t live, unsigned stored,
                                  std::uint32_t ones, std::uint32_t base, std::size_t index) noexcept {
    const auto column = static_cast<unsigned>(index / 32);
    const std::byte* words = block + header + interleaved_offset(column, 0, stored);
    // Over-reading past this column stays inside the block while later columns hold at
    // least the 0..3 words a 4-word load can run over.
    const unsigned overread = (4 - stored % 4) % 4;
    std::uint32_t packed = gather_bits(words, stored, index % 32, (63 - column) * stored >= overread);
    // Live planes are usually the low ones, possibly above some all-zero planes: then the
    // packed bits only need a shift. Otherwise scatter them to their plane numbers.
    const auto low = static_cast<unsigned>(std::countr_zero(live | (live == 0 ? 1u : 0u)));
    std::uint32_t value;
    if (((live >> low) & ((live >> low) + 1)) == 0) {
        value = low < 32 ? packed << low : 0;
    } else {
        value = 0;
        for (unsigned k = 0; live; live &= live - 1, ++k) value |= ((packed >> k) & 1u) << std::countr_zero(live);
    }
    return (value | ones) + base;
}

/// Whether a delta block is read inline (direct_delta_value): dense, full, all-raw.
BITPLANE_HOST_DEVICE constexpr bool direct_delta_readable(const block_descriptor& d) noexcept {
    return d.interleaved() && !d.sparse() && d.transform() == codec::transform::delta;
}

/// The sum (mod 2^32) of popcount(word r & keep) << r over the `stored` consecutive 32-bit
/// words at `words` (one column of an interleaved payload): the residuals of the positions in
/// `keep`, added up plane by plane. May read up to 12 bytes past the last word where
/// `may_overread`. Without -mpopcnt (std::popcount is then ~12 instructions) on x86-64 4 words
/// a step with SSE2 (no dispatch needed, as gather_bits): popcounts in 32-bit lanes, weighted
/// 1, 2, 4, 8 by one multiply-add; with it (the AVX2 copy of value_reader.hpp) a popcnt a word.
inline std::uint32_t weighted_column_ones(const std::byte* words, unsigned stored, std::uint32_t keep,
                                          bool may_overread) noexcept {
#if defined(__SSE2__) && !defined(__POPCNT__)
    if (may_overread && stored != 0) {
        const __m128i m55 = _mm_set1_epi32(0x55555555), m33 = _mm_set1_epi32(0x33333333);
        const __m128i m0f = _mm_set1_epi32(0x0F0F0F0F), m00ff = _mm_set1_epi32(0x00FF00FF);
        const __m128i weights = _mm_setr_epi16(1, 1, 2, 2, 4, 4, 8, 8);
        const __m128i keep4 = _mm_set1_epi32(static_cast<int>(keep));
        // Lane j of 4 words: popcount << j, as 16-bit halves' sums (bytes: counts up to 8).
        const auto weighted = [&](__m128i x) {
            x = _mm_sub_epi32(x, _mm_and_si128(_mm_srli_epi32(x, 1), m55));
            x = _mm_add_epi32(_mm_and_si128(x, m33), _mm_and_si128(_mm_srli_epi32(x, 2), m33));
            x = _mm_and_si128(_mm_add_epi32(x, _mm_srli_epi32(x, 4)), m0f);
            x = _mm_and_si128(_mm_add_epi32(x, _mm_srli_epi32(x, 8)), m00ff);
            return _mm_madd_epi16(x, weights);
        };
        // From the last step down (Horner: each step's planes 4 below the one before), the
        // last step's lanes past the last word (the next column's) masked off.
        unsigned k = (stored - 1) / 4 * 4;
        const __m128i in = _mm_cmpgt_epi32(_mm_set1_epi32(static_cast<int>(stored - k)), _mm_setr_epi32(0, 1, 2, 3));
        __m128i sum = weighted(_mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(words + 4 * k)),
                                             _mm_and_si128(keep4, in)));
        while (k != 0) {
            k -= 4;
            const __m128i x = _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(words + 4 * k)), keep4);
            sum = _mm_add_epi32(_mm_slli_epi32(sum, 4), weighted(x));
        }
        sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0x4E));
        sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0xB1));
        return static_cast<std::uint32_t>(_mm_cvtsi128_si32(sum));
    }
#else
    (void)may_overread;
#endif
    std::uint32_t sum = 0;
    for (unsigned r = 0; r < stored; ++r)
        sum += static_cast<std::uint32_t>(std::popcount(load_le<std::uint32_t>(words + 4 * r) & keep)) << r;
    return sum;
}

/// Value `index` of a block that direct_delta_readable reads, from its delta_checkpoints
/// sums: the checkpoint before the index's column, then that column's words of every plane
/// counted over the positions up to the index (one or two cache lines), where read_value
/// walks the descriptor to window_sum (callgrind in thresholds.hpp, read_raw_max_eighths).
inline std::uint32_t direct_delta_value(const block_descriptor& d, const std::byte* block,
                                        const std::uint32_t* checkpoints, std::uint32_t index) noexcept {
    const std::uint32_t column = index / 32;
    const std::uint32_t within = index % 32 + 1;  // positions column * 32 .. index
    const std::uint32_t keep = (2u << (index % 32)) - 1;  // index % 32 == 31: 0 - 1, every bit
    const unsigned stored = d.stored;
    const std::byte* words = block + d.payloads_at + interleaved_offset(column, 0, stored);
    const unsigned overread = (4 - stored % 4) % 4;
    const bool may_overread = (63 - column) * stored >= overread;
    std::uint32_t live = d.live;
    const auto low = static_cast<unsigned>(std::countr_zero(live));  // live != 0: the block stores planes
    std::uint32_t sum;
    if (((live >> low) & ((live >> low) + 1)) == 0) {
        sum = weighted_column_ones(words, stored, keep, may_overread) << low;
    } else {  // live planes with unstored ones between them: each count to its plane
        sum = 0;
        for (unsigned r = 0; live; live &= live - 1, ++r)
            sum += static_cast<std::uint32_t>(std::popcount(load_le<std::uint32_t>(words + 4 * r) & keep))
                   << std::countr_zero(live);
    }
    const std::uint32_t before = column == 0 ? 0u : checkpoints[column - 1];
    return d.base + before + sum + within * d.ones + index * d.delta_min;
}

}  // namespace bitplane::detail

namespace bitplane::detail {

/// Value `index` of a block described by `d` (any layout; `checkpoints`, `skips`, `plan` as for read_value).
inline std::uint32_t descriptor_value(const block_descriptor& d, const std::byte* block, std::uint32_t index,
                                      const std::uint32_t* checkpoints = nullptr,
                                      const std::uint32_t* skips = nullptr, const std::uint32_t* plan = nullptr) noexcept {
    if (direct_readable(d)) return direct_value(block, d.payloads_at, d.live, d.stored, d.ones, d.base, index);
    if (checkpoints != nullptr && direct_delta_readable(d)) return direct_delta_value(d, block, checkpoints, index);
    return read_value(d, block, index, checkpoints, skips, plan);
}

}  // namespace bitplane::detail
