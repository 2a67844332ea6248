// The random-read path of blocks (read_value: one value from a block's descriptor and bytes,
// any layout; window sums of delta blocks; gap-list seeks), written once and compiled twice:
// block_reader.cpp includes it as reader_portable (any x86-64 or other CPU), and on x86-64
// block_reader_avx2.cpp as reader_avx2 with -mavx2 -mpopcnt -mbmi2, where counting a window's
// bits is one popcnt instead of a dozen shifts and masks (bam_pos 1032 -> 868 instructions
// per random read, callgrind). block_reader.cpp's read_value picks the copy by the active
// SIMD path. Each includer defines BITPLANE_READER_NS (a namespace of its own, so that the
// two copies never meet at link time: docs/HACKING.md, SIMD dispatch) and includes this once.
#pragma once

#ifndef BITPLANE_READER_NS
#error "define BITPLANE_READER_NS (reader_portable or reader_avx2) before including value_reader.hpp"
#endif

#include "block_decoding.hpp"
#include "block_format.hpp"
#include "direct_access.hpp"
#include "plane_gaps.hpp"
#include "plane_positions.hpp"
#include "plane_raw.hpp"
#include "plane_runs.hpp"
#include "thresholds.hpp"
#include "simd/kernels.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>
#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bitplane::detail::BITPLANE_READER_NS {

// Internal linkage: each includer has its own copy, inlined where the compiler sees fit.
namespace {

using codec::base_kind;
using codec::payload_kind;

std::uint32_t finish_value(codec::transform kind, std::uint32_t residual, std::uint32_t for_base) noexcept {
    switch (kind) {
        case codec::transform::frame_of_reference: return residual + for_base;
        case codec::transform::zigzag: return (residual >> 1) ^ (0u - (residual & 1u));
        default: return residual;
    }
}

// A gap list (plane_gaps.hpp) read up to position `bit`: how many positions precede it,
// whether it is listed, and where the walk stopped (byte `at`, next free position `next`).
// Lists run to a few hundred bytes and a read of a block seeks in every gaps plane, so on
// x86-64 (SSE2, part of x86-64) 16 gap bytes without an escape are resolved at once: their
// positions as 16-bit prefix sums, compared with `bit` (no walk byte by byte, no branch on
// each byte: the one mispredicted branch is where the list passes `bit`).
struct gaps_cursor {
    std::uint32_t rank = 0;
    bool set = false;
    std::uint32_t at = 0;
    std::uint32_t next = 0;
};

// One item (gap byte, or escape and u16 gap) at c.at: true when its position is >= bit
// (c then points at it), else c moves past it.
inline bool gaps_step(const std::byte* payload, std::uint32_t bit, gaps_cursor& c) noexcept {
    std::uint32_t gap = static_cast<std::uint8_t>(payload[c.at]);
    std::uint32_t step = 1;
    if (gap == gaps_payload::escape) {
        gap = load_le<std::uint16_t>(payload + c.at + 1);
        step = 3;
    }
    const std::uint32_t position = c.next + gap;
    if (position >= bit) {
        c.set = position == bit;
        return true;
    }
    c.at += step;
    c.next = position + 1;
    ++c.rank;
    return false;
}

#if defined(__SSE2__)
// The first `valid` (1..16) bytes of `x` are gap bytes without an escape, starting at c.at.
// True when one of their positions is >= bit (c then points at the first such item), else
// c moves past all of them. Needs c.next <= bit.
inline bool gaps_resolve16(__m128i x, std::uint32_t valid, std::uint32_t bit, gaps_cursor& c) noexcept {
    // s[k] = (g[0] + 1) + ... + (g[k] + 1): item k's position is c.next + s[k] - 1, so it is
    // below bit when s[k] < bit - c.next + 1 (at most 2049; s[k] at most 4096: signed 16-bit).
    const __m128i one = _mm_set1_epi16(1);
    __m128i lo = _mm_add_epi16(_mm_unpacklo_epi8(x, _mm_setzero_si128()), one);
    __m128i hi = _mm_add_epi16(_mm_unpackhi_epi8(x, _mm_setzero_si128()), one);
    lo = _mm_add_epi16(lo, _mm_slli_si128(lo, 2));
    hi = _mm_add_epi16(hi, _mm_slli_si128(hi, 2));
    lo = _mm_add_epi16(lo, _mm_slli_si128(lo, 4));
    hi = _mm_add_epi16(hi, _mm_slli_si128(hi, 4));
    lo = _mm_add_epi16(lo, _mm_slli_si128(lo, 8));
    hi = _mm_add_epi16(hi, _mm_slli_si128(hi, 8));
    const __m128i top = _mm_shufflehi_epi16(lo, 0xFF);
    hi = _mm_add_epi16(hi, _mm_unpackhi_epi64(top, top));
    const __m128i target = _mm_set1_epi16(static_cast<short>(bit - c.next + 1));
    const auto below = static_cast<std::uint32_t>(_mm_movemask_epi8(
                           _mm_packs_epi16(_mm_cmplt_epi16(lo, target), _mm_cmplt_epi16(hi, target)))) &
                       ((1u << valid) - 1);
    // Prefix sums grow, so the items below bit are the first k.
    const auto k = static_cast<std::uint32_t>(std::countr_one(below));
    alignas(16) std::uint16_t sums[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(sums), lo);
    _mm_store_si128(reinterpret_cast<__m128i*>(sums + 8), hi);
    const std::uint32_t before = k ? sums[k - 1] : 0u;
    c.rank += k;
    c.at += k;
    c.next += before;
    if (k == valid) return false;
    c.set = c.next + sums[k] - before - 1 == bit;
    return true;
}
#endif

// Gap bytes left up to which a seek walks them one by one (short lists, e.g. near-constant
// planes). Callgrind, instructions per random read, 0 / 4 / 12 / 20 bytes: bam_ref_span
// 1212 / 1190 / 1092 / 979, bam_mapq 1367 / 1361 / 1255 / 1110, geoip4_size 3547 / 3547 /
// 3435 / 3090 (without skip entries and chunks: 1125, 1379, 4445).
constexpr std::uint32_t gaps_short_bytes = 20;
// Long gaps payloads (thresholds::read_bitmap_min_gaps_bytes) get, beside the block,
// their bits as a 2048-bit map followed by the map's ranks: 64 words of bits, then 8 16-bit
// counts (bits [0, 256 k) set, k = 0..7) in 4 words. A read then tests one bit, a rank counts
// eight masked words, and a delta read's window is one 64-bit load, where a walk of the list
// costs a few mispredicted branches (the list's end, the escapes).
inline constexpr std::uint32_t gaps_bitmap_words = plane_words + 4;
constexpr bool gaps_bitmapped(std::uint32_t bytes, std::uint32_t least) noexcept { return bytes >= least; }
// The least payload bytes of the lists kept as maps beside block `d`: delta reads count a
// window of every plane (a walk to the window's end), the others test one bit.
constexpr std::uint32_t mapped_least(const block_descriptor& d) noexcept {
    return d.transform() == codec::transform::delta ? thresholds::read_bitmap_min_delta_gaps_bytes
                                                    : thresholds::read_bitmap_min_gaps_bytes;
}
// Shorter gaps payloads (below the map's bound) get their positions, decoded: one u16 per
// payload byte (at least one per item), rounded up to 16 and padded with gaps_listed_pad, in
// (bytes + 15) / 16 * 8 words. Short lists are sparse planes' and mostly hold escapes (gaps of
// 255+: bam_mapq 98% of 8-63-byte lists), so a walk of the file's bytes branches on each
// escape and on the item that passes the bit; the decoded positions are compared with the
// bit 8 at a time (positions_bit), none of it depending on where the bit lies. bam_mapq
// 11.8 -> 2.8 mispredicted branches a read (callgrind); memory in thresholds.hpp.
// (gaps_listed_pad and listed_positions: direct_access.hpp, beside the side's format.)
// Side entries of a list of `bytes` bytes in a block whose mapped_least is `least`.
constexpr std::uint32_t skip_entries(std::uint32_t bytes, std::uint32_t least) noexcept {
    return gaps_bitmapped(bytes, least) ? gaps_bitmap_words : listed_positions(bytes) / 2;
}

// The decoded positions of a short list (`bytes` its payload bytes, at `side`): whether `bit`
// is listed, and how many positions lie below it.
inline const std::uint16_t* listed_of(const std::uint32_t* side) noexcept {
    return reinterpret_cast<const std::uint16_t*>(side);  // u16 pairs in u32 words (written so)
}
// `n`: listed_positions of the list's bytes (16..Most, a multiple of 16); Most: the longest list
// the caller passes (64 for gap lists, read_filter_max_chunks * 16 for a plan's filter).
template <std::uint32_t Most = 64>
inline bool positions_bit_n(const std::uint32_t* side, std::uint32_t n, std::uint32_t bit) noexcept {
    static_assert(Most % 16 == 0);
    const std::uint16_t* at = listed_of(side);
#if defined(__SSE2__)
    // Always 8 loads of 8 (the most a list below the map's bound has), the ones past the list
    // taking its last 8 again: a loop of n / 8 steps mispredicted its end on most lists
    // (n differs from list to list). Callgrind per random read, loop / fixed: geoip4_size 1511 /
    // 1564 instructions and 14.3 / 8.0 mispredicted branches, bam_mapq 618 / 675 and 4.9 / 2.8,
    // bam_ref_span 666 / 716 and 6.9 / 3.5, tz_offset 1110 / 1160 and 16.0 / 13.4.
    static_assert(listed_positions(thresholds::read_bitmap_min_gaps_bytes - 1) == 64);
#if defined(__AVX2__)
    // The AVX2 copy (every read on avx2 and avx512): 4 loads of 16, the ones past the list
    // taking its last 16 again. Instructions a read with the SSE2 loop / this (callgrind, 20,000
    // reads): geoip4_size 945 / 684, tz_offset 786 / 664, bam_ref_span 552 / 438, bam_mapq
    // 516 / 427.
    const __m256i b16 = _mm256_set1_epi16(static_cast<short>(bit));
    const std::uint32_t last16 = n - 16;
    __m256i hits = _mm256_cmpeq_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)), b16);
    for (std::uint32_t k = 16; k < Most; k += 16) {
        const std::uint32_t from = k < last16 ? k : last16;
        hits = _mm256_or_si256(hits, _mm256_cmpeq_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + from)), b16));
    }
    return !_mm256_testz_si256(hits, hits);
#endif
    const __m128i b = _mm_set1_epi16(static_cast<short>(bit));
    __m128i any = _mm_setzero_si128();
    const std::uint32_t last = n - 8;
    for (std::uint32_t k = 0; k < Most; k += 8) {
        const std::uint32_t from = k < last ? k : last;
        any = _mm_or_si128(any, _mm_cmpeq_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at + from)), b));
    }
    return _mm_movemask_epi8(any) != 0;
#else
    bool listed = false;
    for (std::uint32_t k = 0; k < n; ++k) listed |= at[k] == bit;
    return listed;
#endif
}
inline bool positions_bit(const std::uint32_t* side, std::uint32_t bytes, std::uint32_t bit) noexcept {
    return positions_bit_n(side, listed_positions(bytes), bit);
}

// A window of a short list's decoded positions (`n`: listed_positions, at most 32 in delta
// blocks, whose lists of 32 bytes or more have maps): bit p - from set for every position p in
// [from, from + 64). Positions at or past the window's end `to` may set bits past it: every
// caller masks those off (window_sum's `keep`, after the references' XORs, which are bitwise).
// In the AVX2 copy (delta reads on avx2 and avx512) 4 positions a step, each widened to 64
// bits, moved from and shifted into place by a variable shift (a count of 64 or more, where p
// lies outside the window or is the pad, gives 0): no compare and no branch; the scalar loop
// cost about 20 instructions a position (geoip4_start: 420 of its 1417 a read, callgrind).
static_assert(listed_positions(thresholds::read_bitmap_min_delta_gaps_bytes - 1) <= 32);
inline std::uint64_t listed_window(const std::uint16_t* at, std::uint32_t n, std::uint32_t from, std::uint32_t to) noexcept {
#if defined(__AVX2__)
    (void)to;
    if (n == 0) return 0;  // an empty list (a loaded file may hold one) has no entries to load
    // Two chunks of 16 (the second the list's last 16, again the first one's on a list of 16):
    // no loop whose end differs from list to list.
    const __m256i base = _mm256_set1_epi64x(from);
    const __m256i one = _mm256_set1_epi64x(1);
    __m256i w = _mm256_setzero_si256();
    for (const std::uint16_t* chunk : {at, at + (n - 16)}) {
        for (std::uint32_t k = 0; k < 16; k += 4) {
            const __m256i p = _mm256_cvtepu16_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(chunk + k)));
            w = _mm256_or_si256(w, _mm256_sllv_epi64(one, _mm256_sub_epi64(p, base)));
        }
    }
    __m128i x = _mm_or_si128(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
    x = _mm_or_si128(x, _mm_unpackhi_epi64(x, x));
    return static_cast<std::uint64_t>(_mm_cvtsi128_si64(x));
#else
    // Every decoded position tested, no branch on where they lie.
    std::uint64_t w = 0;
    for (std::uint32_t k = 0; k < n; ++k) {
        const std::uint32_t offset = at[k] - from;  // wraps below from
        w |= std::uint64_t{at[k] < to && offset < 64} << (offset & 63);
    }
    return w;
#endif
}

// Bits [from, from + 64) of a payload's map (from a multiple of 32, below 2048: the ranks
// after the bits keep the load inside the map's entries; bits at or past the plane's length
// are zero up to bit 2047, and a window's caller masks what lies past its end).
inline std::uint64_t bitmap_window(const std::uint32_t* map, std::uint32_t from) noexcept {
    std::uint64_t w;
    std::memcpy(&w, map + from / 32, sizeof w);
    return w;
}

inline bool bitmap_bit(const std::uint32_t* map, std::uint32_t bit) noexcept { return (map[bit / 32] >> (bit % 32)) & 1u; }

// A seek from the list's start (short lists have their positions beside the block, long ones
// a map: this walk serves reads without those, e.g. the checkpoints' sums).
// `end`: the end of the block, up to which 16-byte loads may run past the payload.
gaps_cursor gaps_seek(const std::byte* payload, std::uint32_t bytes, std::uint32_t bit, const std::byte* end) noexcept {
    gaps_cursor c;
#if defined(__SSE2__)
    while (c.at < bytes) {
        if (bytes - c.at <= gaps_short_bytes) {  // a few items: walking them is cheaper
            while (c.at < bytes)
                if (gaps_step(payload, bit, c)) return c;
            return c;
        }
        const std::uint32_t valid = std::min<std::uint32_t>(16, bytes - c.at);
        __m128i x;
        if (end - (payload + c.at) >= 16) {
            // Bytes past the payload (the block's next payloads) are cleared.
            alignas(16) static constexpr std::uint8_t lanes[32] = {
                255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255};
            x = _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(payload + c.at)),
                              _mm_loadu_si128(reinterpret_cast<const __m128i*>(lanes + 16 - valid)));
        } else {
            alignas(16) std::byte tail[16] = {};
            std::memcpy(tail, payload + c.at, valid);
            x = _mm_load_si128(reinterpret_cast<const __m128i*>(tail));
        }
        const auto escapes = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(-1)))) &
                             ((1u << valid) - 1);
        if (escapes == 0) {
            // The whole chunk below bit (the usual case): one sum of absolute differences
            // adds its gaps up, off the chain of c.next; else its prefix sums place bit.
            const __m128i sums = _mm_sad_epu8(x, _mm_setzero_si128());
            const auto total = static_cast<std::uint32_t>(_mm_cvtsi128_si32(sums) + _mm_extract_epi16(sums, 4)) + valid;
            if (c.next + total <= bit) {
                c.next += total;
                c.rank += valid;
                c.at += valid;
                continue;
            }
            gaps_resolve16(x, valid, bit, c);
            return c;
        }
        // Items before the first escape at once, then the escaped item on its own.
        const auto plain = static_cast<std::uint32_t>(std::countr_zero(escapes));
        if (plain != 0 && gaps_resolve16(x, plain, bit, c)) return c;
        if (gaps_step(payload, bit, c)) return c;
    }
#else
    (void)end;
    while (c.at < bytes)
        if (gaps_step(payload, bit, c)) return c;
#endif
    return c;
}

// Set bits of a payload below `bit` (its rank) and whether `bit` itself is set. Positions and
// runs search, gaps walk their list (the planner keeps gap lists for sparse planes: few items).
struct rank_bit {
    std::uint32_t rank = 0;
    bool set = false;
};

// Set bits of one word without a library call: the popcnt instruction where this copy is
// built with it (block_reader_avx2.cpp), else shifts and masks (the generic x86-64 build has
// no popcnt instruction, and std::popcount is then a call to libgcc).
constexpr std::uint32_t ones_in(std::uint32_t x) noexcept {
#if defined(__POPCNT__)
    return static_cast<std::uint32_t>(__builtin_popcount(x));
#else
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
#endif
}

// Set bits of `count` words (the kernel table's popcount: popcnt or vector instructions).
std::uint32_t ones_in(const std::uint32_t* words, std::uint32_t count) noexcept {
    if (count <= 4) {  // a delta read's window: inline beats the table's indirect call
        std::uint32_t n = 0;
        for (std::uint32_t k = 0; k < count; ++k) n += ones_in(words[k]);
        return n;
    }
    return static_cast<std::uint32_t>(active_kernels().popcount_words(words, count));
}

rank_bit raw_rank(const std::byte* payload, std::uint32_t bit) noexcept {
    rank_bit out;
    const std::uint32_t words = bit / 32;
    alignas(64) std::uint32_t copy[plane_words];  // the payload is not aligned
    std::memcpy(copy, payload, 4 * words);
    out.rank = ones_in(copy, words);
    std::uint32_t last = 0;
    for (std::uint32_t b = 4 * words; b <= bit / 8; ++b)
        last |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(payload[b])) << (8 * (b - 4 * words));
    out.rank += ones_in(last & ((1u << (bit % 32)) - 1));
    out.set = (last >> (bit % 32)) & 1u;
    return out;
}

// Rank and bit of a payload's map (gaps_bitmap_words above): the count at the bit's 256-bit
// stretch, plus the set bits of its words before the bit, each word masked without a branch.
rank_bit bitmap_rank(const std::uint32_t* map, std::uint32_t bit) noexcept {
    std::uint16_t counts[8];
    std::memcpy(counts, map + plane_words, sizeof counts);
    const std::uint32_t stretch = bit / 256;
    const std::uint32_t q = bit % 256 / 32;
    const std::uint32_t low = (1u << (bit % 32)) - 1;
    const std::uint32_t* words = map + 8 * stretch;
    std::uint32_t rank = counts[stretch];
    for (std::uint32_t j = 0; j < 8; ++j) rank += ones_in(words[j] & (j < q ? ~0u : j == q ? low : 0u));
    return {rank, bitmap_bit(map, bit)};
}

rank_bit positions_rank(const std::uint32_t* side, std::uint32_t bytes, std::uint32_t bit) noexcept {
    const std::uint16_t* at = listed_of(side);
    const std::uint32_t n = listed_positions(bytes);
    rank_bit out;
#if defined(__AVX2__)
    // Positions and the pad are below 2^15: signed 16-bit compares are exact. 16 at a time.
    const __m256i b16 = _mm256_set1_epi16(static_cast<short>(bit));
    __m256i hits = _mm256_setzero_si256();
    for (std::uint32_t k = 0; k < n; k += 16) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + k));
        out.rank += ones_in(static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpgt_epi16(b16, x)))) / 2;
        hits = _mm256_or_si256(hits, _mm256_cmpeq_epi16(x, b16));
    }
    out.set = !_mm256_testz_si256(hits, hits);
#elif defined(__SSE2__)
    // Positions and the pad are below 2^15: signed 16-bit compares are exact.
    const __m128i b = _mm_set1_epi16(static_cast<short>(bit));
    __m128i any = _mm_setzero_si128();
    for (std::uint32_t k = 0; k < n; k += 8) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + k));
        out.rank += ones_in(static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmplt_epi16(x, b)))) / 2;
        any = _mm_or_si128(any, _mm_cmpeq_epi16(x, b));
    }
    out.set = _mm_movemask_epi8(any) != 0;
#else
    for (std::uint32_t k = 0; k < n; ++k) {
        out.rank += at[k] < bit;
        out.set |= at[k] == bit;
    }
#endif
    return out;
}

rank_bit payload_rank(payload_kind kind, const std::byte* payload, std::uint32_t items, std::uint32_t bit,
                      const std::uint32_t* skips, std::uint32_t least, const std::byte* block_end) noexcept {
    rank_bit out;
    switch (kind) {
        case payload_kind::none: break;
        case payload_kind::raw: out = raw_rank(payload, bit); break;
        case payload_kind::positions: {
            std::uint32_t lo = 0, hi = items;  // first position >= bit
            while (lo < hi) {
                const std::uint32_t mid = (lo + hi) / 2;
                if (load_le<std::uint16_t>(payload + 2 * mid) < bit) lo = mid + 1; else hi = mid;
            }
            out.rank = lo;
            out.set = lo < items && load_le<std::uint16_t>(payload + 2 * lo) == bit;
            break;
        }
        case payload_kind::runs:
            for (std::uint32_t r = 0; r < items; ++r) {
                const std::uint32_t start = load_le<std::uint16_t>(payload + 4 * r);
                const std::uint32_t end = load_le<std::uint16_t>(payload + 4 * r + 2);
                if (bit < start) break;
                if (bit < end) {
                    out.rank += bit - start;
                    out.set = true;
                    break;
                }
                out.rank += end - start;
            }
            break;
        case payload_kind::gaps: {
            if (skips != nullptr) return gaps_bitmapped(items, least) ? bitmap_rank(skips, bit) : positions_rank(skips, items, bit);
            const gaps_cursor c = gaps_seek(payload, items, bit, block_end);
            out.rank = c.rank;
            out.set = c.set;
            break;
        }
    }
    return out;
}

#if defined(__SSE2__)
// ---- point reads of short position and run lists: every item compared with the bit --------
// A list of at most thresholds::read_probe_list_bytes (32) bytes is loaded as two 16-byte
// chunks and each item compared with the bit in SSE2 lanes; lanes past the list are masked off
// the compare's bit mask. No search: a binary search stops after a number of halvings that
// differs from list to list, a likely mispredict on a random read. (Short gap lists are read
// from their decoded positions: listed_positions.)
// `room`: bytes from the payload to the block's end (both loads must stay inside the block).

// The movemask bits of the first `bytes` bytes of two chunks (bytes <= 32).
inline std::uint32_t probe_lanes(std::uint32_t bytes) noexcept {
    return static_cast<std::uint32_t>((std::uint64_t{1} << bytes) - 1);
}

inline std::uint32_t probe_mask(__m128i low, __m128i high) noexcept {
    return static_cast<std::uint32_t>(_mm_movemask_epi8(low)) | static_cast<std::uint32_t>(_mm_movemask_epi8(high)) << 16;
}

inline bool probe_room(std::uint32_t bytes, std::ptrdiff_t room) noexcept {
    return bytes <= thresholds::read_probe_list_bytes && room >= 32;
}

// Positions (u16 each): whether one equals `bit`.
inline bool probe_positions(const std::byte* payload, std::uint32_t items, std::uint32_t bit) noexcept {
    const __m128i b = _mm_set1_epi16(static_cast<short>(bit));
    const __m128i low = _mm_cmpeq_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(payload)), b);
    const __m128i high = _mm_cmpeq_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(payload + 16)), b);
    return (probe_mask(low, high) & probe_lanes(2 * items)) != 0;
}

// Runs (start, end u16 pairs): their bounds are strictly increasing, so `bit` lies in a run when
// an odd number of bounds are at or below it (starts count in, ends count out). Bounds are at
// most 2048: signed 16-bit compares are exact.
inline bool probe_runs(const std::byte* payload, std::uint32_t items, std::uint32_t bit) noexcept {
    const __m128i b = _mm_set1_epi16(static_cast<short>(bit));
    const __m128i low = _mm_cmpgt_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(payload)), b);
    const __m128i high = _mm_cmpgt_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(payload + 16)), b);
    const std::uint32_t at_or_below = ~probe_mask(low, high) & probe_lanes(4 * items);
    return (ones_in(at_or_below) / 2) & 1u;  // two mask bits a 16-bit lane
}


#if defined(__AVX2__)
// Run lists above the probe's bound and up to thresholds::read_scan_runs_max_items runs: the
// parity of the bounds at or below the bit, as in probe_runs, over 8 runs (one 32-bit lane
// each) a masked load, 4 or 8 loads and no branch on the items. Lanes past the list load as 0
// (no access: a masked load touches only the lanes it keeps), never above the bit; the bounds
// of the runs are 2 a run, an even count, so the parity of those above the bit is the parity of
// those at or below it.
inline bool scan_runs(const std::byte* payload, std::uint32_t items, std::uint32_t bit) noexcept {
    static_assert(thresholds::read_scan_runs_max_items <= 64);
    const __m256i b = _mm256_set1_epi16(static_cast<short>(bit));
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const std::uint32_t loads = items <= 32 ? 4 : 8;
    std::uint32_t above = 0;
    for (std::uint32_t k = 0; k < loads; ++k) {
        const __m256i keep = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(items) - static_cast<int>(8 * k)), lane);
        const __m256i x = _mm256_maskload_epi32(reinterpret_cast<const int*>(payload + 32 * k), keep);
        above += ones_in(static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpgt_epi16(x, b))));
    }
    return (above / 2) & 1u;  // two mask bits a 16-bit lane
}
#endif
#endif

bool payload_bit(payload_kind kind, const std::byte* payload, std::uint32_t items, std::uint32_t bit,
                 const std::uint32_t* skips, std::uint32_t least, const std::byte* end) noexcept {
#if defined(__SSE2__)
    const std::ptrdiff_t room = end - payload;
#endif
    switch (kind) {
        case payload_kind::none: return false;
        case payload_kind::positions:
#if defined(__SSE2__)
            if (probe_room(positions_payload::payload_bytes(items), room)) return probe_positions(payload, items, bit);
#endif
            return positions_payload::contains(payload, items, bit);
        case payload_kind::runs:
#if defined(__SSE2__)
            if (probe_room(runs_payload::payload_bytes(items), room)) return probe_runs(payload, items, bit);
#endif
#if defined(__AVX2__)
            if (items <= thresholds::read_scan_runs_max_items) return scan_runs(payload, items, bit);
#endif
            return runs_payload::contains(payload, items, bit);
        case payload_kind::raw: return raw_payload::contains(payload, bit);
        case payload_kind::gaps:
            if (skips != nullptr) return gaps_bitmapped(items, least) ? bitmap_bit(skips, bit) : positions_bit(skips, items, bit);
            return gaps_seek(payload, items, bit, end).set;
    }
    return false;
}

// Advances a skip-entry pointer (null stays null) past a payload's entries.
inline const std::uint32_t* skip_past(const std::uint32_t* skips, payload_kind kind, std::uint32_t items,
                                      std::uint32_t least) noexcept {
    return skips != nullptr && kind == payload_kind::gaps ? skips + skip_entries(items, least) : skips;
}

// ---- read plans (direct_access.hpp: read_plan): one loop per group of planes --------------
// (plan_groups, groups_of, plan_low, plan_index: direct_access.hpp, beside the plan's format.)

#if defined(__AVX2__)
// The bits at word `index` of 8 planes a gather: entry e's low 16 bits locate its plane (in
// units of Scale bytes from `base`), its bits 16-20 the plane's number; each gathered word
// is shifted right by `shift`. plan_raw_bits and plan_mapped_bits below.
template <int Scale>
inline __m256i plan_gathered_bits(__m256i bits, const void* base, const std::uint32_t* entries, std::uint32_t count,
                                  int index, int shift) noexcept {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i at = _mm256_set1_epi32(index);
    const __m128i right = _mm_cvtsi32_si128(shift);
    const __m256i low16 = _mm256_set1_epi32(0xFFFF);
    const __m256i one = _mm256_set1_epi32(1);
    for (std::uint32_t k = 0; k < count; k += 8) {
        const __m256i keep = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count - k)), lane);
        const __m256i e = _mm256_maskload_epi32(reinterpret_cast<const int*>(entries + k), keep);
        const __m256i offsets = _mm256_add_epi32(_mm256_and_si256(e, low16), at);
        const __m256i words =
            _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), static_cast<const int*>(base), offsets, keep, Scale);
        const __m256i bit = _mm256_and_si256(_mm256_srl_epi32(words, right), one);
        bits = _mm256_or_si256(bits, _mm256_sllv_epi32(bit, _mm256_and_si256(_mm256_srli_epi32(e, 16), _mm256_set1_epi32(31))));
    }
    return bits;
}

// A plan's raw group at `position` in the AVX2 copy: 8 planes a gather (each lane the 4 bytes
// ending at the position's byte of its plane: the 3 before it lie in the block, in the
// plane's payload or the header and plane table before the payloads, where a load of the 3
// after it could pass the block's end), each bit shifted to its plane's number, in place of
// a load, shifts and an OR a plane. tz_transition (24 raw planes a block): callgrind, 20,000
// reads, 1005 -> 838 instructions and 4.70 -> 4.22 mispredicted branches a read (valgrind
// counts a gather as one instruction: its loads are in the A/B timings of the commit).
// Returns the bits by lanes, ORed into `bits` (plan_lanes_or folds them once for both groups).
inline __m256i plan_raw_bits(__m256i bits, const std::byte* block, const std::uint32_t* entries, std::uint32_t count,
                             std::uint32_t position) noexcept {
    return plan_gathered_bits<1>(bits, block, entries, count, static_cast<int>(position / 8) - 3,
                                 static_cast<int>(24 + position % 8));
}

// A plan's mapped group (gap lists kept as 2048-bit maps) at `position` in the AVX2 copy: 8
// maps a gather of the position's word, as plan_raw_bits. As a loop of one bitmap_bit a plane,
// its exit (0-5 maps a block, tz_offset) was mispredicted on most reads.
inline __m256i plan_mapped_bits(__m256i bits, const std::uint32_t* skips, const std::uint32_t* entries,
                                std::uint32_t count, std::uint32_t position) noexcept {
    return plan_gathered_bits<4>(bits, skips, entries, count, static_cast<int>(position / 32),
                                 static_cast<int>(position % 32));
}

// The OR of plan_raw_bits' and plan_mapped_bits' lanes.
inline std::uint32_t plan_lanes_or(__m256i bits) noexcept {
    __m128i x = _mm_or_si128(_mm256_castsi256_si128(bits), _mm256_extracti128_si256(bits, 1));
    x = _mm_or_si128(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_or_si128(x, _mm_shuffle_epi32(x, 0xB1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(x));
}
#endif

// A plan's references (`n` entries at `e`, decode order: a reference's own plane is final by
// then) applied to `bits` (payload bits XOR the complemented bases, ones planes set).
inline std::uint32_t resolve_references(std::uint32_t bits, const std::uint32_t* e, std::uint32_t n) noexcept {
    for (const std::uint32_t* end = e + n; e != end; ++e) bits ^= ((bits >> (*e >> 8)) & 1u) << (*e & 31u);
    return bits;
}

// Residual at stored position `position` from the plan: the bits of each group, then the
// bases (XOR mask, then the references in decode order: a reference's own plane is final by
// then), as residual_at's walk resolves them plane by plane.
std::uint32_t plan_residual(const block_descriptor& d, const std::byte* block, std::uint32_t position,
                            const std::uint32_t* skips, const std::uint32_t* plan) noexcept {
    const plan_groups g = groups_of(plan);
    const std::uint32_t* e = g.entries;
    // Outside the filter no list of the listed and positions groups has a bit: those loops
    // (their ends mispredicted, their counts differing block to block) are skipped, and where
    // the plan has only lists the residual is the filter's first word.
    std::uint32_t listed = g.listed, positions = g.positions;
    if (const std::uint32_t chunks = filter_chunks(plan); chunks != 0) {
        const std::uint32_t* filter = filter_words(g);
        if (!positions_bit_n<read_filter_max_chunks * listed_positions_step>(filter + 1, chunks * listed_positions_step,
                                                                              position)) {
            if (filter_has_default(plan)) return filter[0];
            listed = 0;
            positions = 0;
        }
    }
    std::uint32_t bits = 0;
#if defined(__AVX2__)
    const __m256i raw = plan_raw_bits(_mm256_setzero_si256(), block, e, g.raw, position);
    e += g.raw;
    bits = plan_lanes_or(plan_mapped_bits(raw, skips, e, g.mapped, position));
    e += g.mapped;
#else
    const std::byte* bytes = block + position / 8;
    const std::uint32_t shift = position % 8;
    for (const std::uint32_t* end = e + g.raw; e != end; ++e)
        bits |= ((static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[plan_low(*e)])) >> shift) & 1u) << plan_index(*e);
    for (const std::uint32_t* end = e + g.mapped; e != end; ++e)
        bits |= static_cast<std::uint32_t>(bitmap_bit(skips + plan_low(*e), position)) << plan_index(*e);
#endif
    for (const std::uint32_t* end = e + listed; e != end; ++e)
        bits |= static_cast<std::uint32_t>(positions_bit_n(skips + plan_low(*e), *e >> 24, position)) << plan_index(*e);
    e += g.listed - listed;
    // Lists by kind, so that payload_bit's switch folds away.
    for (const std::uint32_t* end = e + 2 * positions; e != end; e += 2)
        bits |= static_cast<std::uint32_t>(
                    payload_bit(payload_kind::positions, block + plan_low(e[0]), e[1], position, nullptr, 0, block + d.end))
                << plan_index(e[0]);
    e += 2 * (g.positions - positions);
    for (const std::uint32_t* end = e + 2 * g.runs; e != end; e += 2)
        bits |= static_cast<std::uint32_t>(
                    payload_bit(payload_kind::runs, block + plan_low(e[0]), e[1], position, nullptr, 0, block + d.end))
                << plan_index(e[0]);
    return resolve_references((bits ^ plan[0]) | d.ones, e, g.references);
}

// Residual at stored position `position` (ones planes included); `skips`: the planes' entries;
// `plan`: the block's read plan (may be null).
std::uint32_t residual_at(const block_descriptor& d, const std::byte* block, std::uint32_t position,
                          const std::uint32_t* skips, const std::uint32_t* plan = nullptr) noexcept {
    if (d.stored == 0) return d.ones;
    if (plan != nullptr) return plan_residual(d, block, position, skips, plan);
    if (d.interleaved()) return direct_value(block, d.payloads_at, d.live, d.stored, d.ones, 0, position);
    std::uint32_t bits = d.ones;
    if (d.all_raw()) {
        // Planar raw planes, ascending plane order.
        const std::uint32_t stride = payload_size(payload_kind::raw, 0, d.length);
        const std::byte* payload = block + d.payloads_at;
        for (std::uint32_t live = d.live; live; live &= live - 1, payload += stride)
            if (raw_payload::contains(payload, position)) bits |= live & (0u - live);
        return bits;
    }
    // The walk of plane_walker, inline: a raw plane on base zero (descriptor byte 1 is then 0)
    // costs one byte load and no switch. tz_transition, 24 mostly raw planes a block: 2088 ->
    // 1815 instructions per random read (callgrind, 20,000 reads; bam_flag 499 -> 472).
    const std::uint32_t least = mapped_least(d);
    const std::byte* at = block + d.planes_at;
    std::uint32_t payload = d.payloads_at;
    const std::uint32_t raw_bytes = payload_size(payload_kind::raw, 0, d.length);
    constexpr auto raw_code = static_cast<std::uint32_t>(payload_kind::raw);
    for (std::uint32_t i = 0; i < d.stored; ++i) {
        const auto byte0 = static_cast<std::uint32_t>(static_cast<std::uint8_t>(at[0]));
        const auto byte1 = static_cast<std::uint8_t>(at[1]);
        if ((byte0 >> 5) == raw_code && byte1 == 0) {
            bits |= ((static_cast<std::uint32_t>(static_cast<std::uint8_t>(block[payload + position / 8])) >> (position % 8)) &
                     1u)
                    << (byte0 & 31u);
            at += plane_descriptor_bytes;
            payload += raw_bytes;
            continue;
        }
        const plane_code code = decode_plane_code(static_cast<std::uint8_t>(byte0), byte1);
        at += plane_descriptor_bytes;
        std::uint32_t items = 0;
        if (counted(code.payload_kind())) {
            items = load_le<std::uint16_t>(at);
            at += plane_item_count_bytes;
        }
        // The base without a branch (base_kind: bit 0 complements, bit 1 takes the reference):
        // blocks of mixed bases mispredicted a switch on most planes (bam_mapq 15.2 -> 12.0
        // mispredicted branches per random read, tz_transition 30.8 -> 26.2: callgrind
        // --branch-sim, 20,000 reads).
        static_assert(static_cast<unsigned>(base_kind::one) == 1 && static_cast<unsigned>(base_kind::plane) == 2 &&
                      static_cast<unsigned>(base_kind::complement) == 3);
        bool bit = (((bits >> code.reference) & (code.base >> 1)) ^ (code.base & 1u)) != 0;
        bit ^= payload_bit(code.payload_kind(), block + payload, items, position, skips, least, block + d.end);
        skips = skip_past(skips, code.payload_kind(), items, least);
        payload += payload_size(code.payload_kind(), items, d.length);
        bits |= static_cast<std::uint32_t>(bit) << code.index;
    }
    return bits;
}

// The sparse mask at `index`: whether it is set and how many set bits precede it.
rank_bit mask_rank(const block_descriptor& d, const std::byte* block, std::uint32_t index,
                   const std::uint32_t* skips) noexcept {
    rank_bit m = payload_rank(d.mask_payload(), block + d.mask_at, d.mask_items, index, skips, mapped_least(d), block + d.end);
    if (d.mask_base_one()) {
        m.rank = index - m.rank;
        m.set = !m.set;
    }
    return m;
}

// ---- delta blocks: sums of residuals over windows of stored positions ----------------------
// v[i] = first + r[0] + ... + r[i] + i * min, and a sum of residuals is a weighted sum of plane
// popcounts. A window [from, to) of at most 64 stored positions (from a multiple of 32) is
// rebuilt as one 64-bit word per plane, references resolved, and counted; the vector keeps the
// sums at every delta_checkpoint_stride (32) positions, so that a random read counts at most
// 31 positions (from the checkpoint before them).
static_assert(delta_checkpoint_stride <= 64);

// Set bits of a 64-bit word without a library call (see ones_in).
constexpr std::uint32_t ones_in64(std::uint64_t x) noexcept {
#if defined(__POPCNT__)
    return static_cast<std::uint32_t>(__builtin_popcountll(x));
#else
    x = x - ((x >> 1) & 0x5555555555555555u);
    x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
    return static_cast<std::uint32_t>((((x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Fu) * 0x0101010101010101u) >> 56);
#endif
}

// Bits [first, last) of a window that starts at position `from` (last - from <= 64).
constexpr std::uint64_t window_range(std::uint32_t from, std::uint32_t first, std::uint32_t last) noexcept {
    if (last <= first) return 0;
    const std::uint32_t span = last - first;
    return (span == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << span) - 1) << (first - from);
}

// The first of `items` sorted u16 keys (item i's at payload + stride i + offset) that is >= key,
// or items: halving by a select, whose steps depend on `items` alone.
inline std::uint32_t first_not_below(const std::byte* payload, std::uint32_t stride, std::uint32_t offset,
                                     std::uint32_t items, std::uint32_t key) noexcept {
    if (items == 0) return 0;
    const std::byte* keys = payload + offset;
    std::uint32_t lo = 0;
    for (std::uint32_t n = items; n > 1; n -= n / 2) {
        const std::uint32_t mid = lo + n / 2;
        lo = load_le<std::uint16_t>(keys + stride * mid) < key ? mid : lo;
    }
    return lo + (load_le<std::uint16_t>(keys + stride * lo) < key ? 1u : 0u);
}

// The payload's bits at positions [from, to) (to - from <= 64), bit k = position from + k.
std::uint64_t payload_window(payload_kind kind, const std::byte* payload, std::uint32_t items, std::uint32_t length,
                             std::uint32_t from, std::uint32_t to, const std::uint32_t* skips, std::uint32_t least,
                             const std::byte* block_end) noexcept {
    std::uint64_t win = 0;
    switch (kind) {
        case payload_kind::none: break;
        case payload_kind::raw: {
            const std::uint32_t bytes = payload_size(payload_kind::raw, 0, length);
            const std::uint32_t at = from / 8;  // from is a multiple of 32: whole bytes
            if (at + 8 <= bytes) return load_le<std::uint64_t>(payload + at);
            for (std::uint32_t k = 0; at + k < bytes && k < 8; ++k)
                win |= std::uint64_t{static_cast<std::uint8_t>(payload[at + k])} << (8 * k);
            break;
        }
        case payload_kind::positions: {
            // The first position >= from, halving by a select (a branch on each comparison
            // mispredicted about half of them: geoip4_start 2.6 a read in these two searches).
            const std::uint32_t lo = first_not_below(payload, 2, 0, items, from);
            for (std::uint32_t i = lo; i < items; ++i) {
                const std::uint32_t p = load_le<std::uint16_t>(payload + 2 * i);
                if (p >= to) break;
                win |= std::uint64_t{1} << (p - from);
            }
            break;
        }
        case payload_kind::runs: {
            const std::uint32_t lo = first_not_below(payload, 4, 2, items, from + 1);  // first run ending after from
            for (std::uint32_t r = lo; r < items; ++r) {
                const std::uint32_t start = load_le<std::uint16_t>(payload + 4 * r);
                const std::uint32_t end = load_le<std::uint16_t>(payload + 4 * r + 2);
                if (start >= to) break;
                win |= window_range(from, std::max(start, from), std::min(end, to));
            }
            break;
        }
        case payload_kind::gaps: {
            if (skips != nullptr) {
                if (gaps_bitmapped(items, least)) return bitmap_window(skips, from);
                return listed_window(listed_of(skips), listed_positions(items), from, to);
            }
            // Skip to the first position >= from, then list positions up to `to`.
            const gaps_cursor c = gaps_seek(payload, items, from, block_end);
            std::uint32_t next = c.next;
            for (std::uint32_t i = c.at; i < items;) {
                std::uint32_t gap = static_cast<std::uint8_t>(payload[i++]);
                if (gap == gaps_payload::escape) {
                    gap = load_le<std::uint16_t>(payload + i);
                    i += 2;
                }
                const std::uint32_t p = next + gap;
                if (p >= to) break;
                win |= std::uint64_t{1} << (p - from);
                next = p + 1;
            }
            break;
        }
    }
    return win;
}

// A delta read's per-plane windows, zeroed (planes never written read as 0). Written as vector
// stores: GCC emitted `win[plane_count] = {}` (256 bytes) as `rep stosq`, a microcoded string
// store with a start-up cost, on every delta read. Callgrind, 200,000 reads, instructions a
// read before / after: bam_pos 581 / 557, bed_start 671 / 648, geoip4_start 1000 / 977.
struct plane_windows {
    std::uint64_t win[plane_count];
    // Unrolled by hand: as a loop, GCC's loop distribution turns the stores back into a memset
    // and the memset into rep stosq.
    plane_windows() noexcept {
        static_assert(plane_count == 32);
#if defined(__AVX2__)
        const __m256i z = _mm256_setzero_si256();
        auto* at = reinterpret_cast<__m256i*>(win);
        _mm256_storeu_si256(at + 0, z); _mm256_storeu_si256(at + 1, z); _mm256_storeu_si256(at + 2, z);
        _mm256_storeu_si256(at + 3, z); _mm256_storeu_si256(at + 4, z); _mm256_storeu_si256(at + 5, z);
        _mm256_storeu_si256(at + 6, z); _mm256_storeu_si256(at + 7, z);
#elif defined(__SSE2__)
        const __m128i z = _mm_setzero_si128();
        auto* at = reinterpret_cast<__m128i*>(win);
        _mm_storeu_si128(at + 0, z); _mm_storeu_si128(at + 1, z); _mm_storeu_si128(at + 2, z); _mm_storeu_si128(at + 3, z);
        _mm_storeu_si128(at + 4, z); _mm_storeu_si128(at + 5, z); _mm_storeu_si128(at + 6, z); _mm_storeu_si128(at + 7, z);
        _mm_storeu_si128(at + 8, z); _mm_storeu_si128(at + 9, z); _mm_storeu_si128(at + 10, z); _mm_storeu_si128(at + 11, z);
        _mm_storeu_si128(at + 12, z); _mm_storeu_si128(at + 13, z); _mm_storeu_si128(at + 14, z); _mm_storeu_si128(at + 15, z);
#else
        std::fill(std::begin(win), std::end(win), std::uint64_t{0});
#endif
    }
};

// Sum (mod 2^32) of popcount(win[p] & keep) << p over the planes p of `live` (the windows of
// other planes are 0). The AVX2 copy counts 4 planes a step (nibble table, then a sum of
// absolute differences a lane) up to the highest live plane, in place of a loop over the live
// planes with a count, shift and add each whose end mispredicted. Callgrind, 20,000 reads,
// instructions a read loop / this: geoip4_start 1156 / 1013, bed_start 818 / 683, bam_mate_pos
// 713 / 617, bam_pos 687 / 604, geoip6_start 554 / 528 (mispredicted branches 0.6-1.0 fewer).
inline std::uint32_t weighted_ones(const std::uint64_t* win, std::uint64_t keep, std::uint32_t live) noexcept {
#if defined(__AVX2__)
    static_assert(plane_count == 32);
    const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2,
                                           3, 2, 3, 3, 4);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    const __m256i mask = _mm256_set1_epi64x(static_cast<long long>(keep));
    __m256i shift = _mm256_setr_epi64x(0, 1, 2, 3);
    __m256i sum = _mm256_setzero_si256();
    const auto steps = static_cast<std::uint32_t>(35 - std::countl_zero(live)) / 4;  // 0 for no live plane
    for (std::uint32_t k = 0; k < steps; ++k) {
        const __m256i x = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(win + 4 * k)), mask);
        const __m256i ones = _mm256_add_epi8(_mm256_shuffle_epi8(table, _mm256_and_si256(x, nibble)),
                                             _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble)));
        sum = _mm256_add_epi64(sum, _mm256_sllv_epi64(_mm256_sad_epu8(ones, _mm256_setzero_si256()), shift));
        shift = _mm256_add_epi64(shift, _mm256_set1_epi64x(4));
    }
    __m128i x = _mm_add_epi64(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    x = _mm_add_epi64(x, _mm_unpackhi_epi64(x, x));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(x));
#else
    std::uint32_t sum = 0;
    for (; live; live &= live - 1) sum += ones_in64(win[std::countr_zero(live)] & keep) << std::countr_zero(live);
    return sum;
#endif
}

#if defined(__AVX2__)
// ---- delta reads in the AVX2 copy: one 32-bit column of every plane -----------------------
// A read's window (delta_value: at most 31 positions from a checkpoint, one column) as 32-bit
// words: raw planes one 4-byte load each, short gap lists' decoded positions 8 a step, the
// complements 8 planes a step and the count 8 planes a step (weighted_ones counts 4 64-bit
// windows a step). Tried and left out, slower on the dev VM (AMD EPYC, thread CPU time of
// 200,000 reads, medians of 4 alternated runs) though callgrind counted 1-3 fewer mispredicted
// branches a read: raw and mapped planes 8 an AVX2 gather (bam_pos 52 -> 56 ns, bed_start
// 46 -> 55, geoip4_start 73 -> 82), short position and run lists compared at once by masked
// loads, and the references 4 a step (geoip4_start 73 -> 80).

// Plane windows of one column, by plane number.
struct column_windows {
    alignas(32) std::uint32_t win[plane_count];
    column_windows() noexcept {
        static_assert(plane_count == 32);
        const __m256i z = _mm256_setzero_si256();
        auto* at = reinterpret_cast<__m256i*>(win);
        _mm256_store_si256(at + 0, z); _mm256_store_si256(at + 1, z); _mm256_store_si256(at + 2, z);
        _mm256_store_si256(at + 3, z);
    }
};

// Sum (mod 2^32) of popcount(win[p] & keep) << p over planes 0..31 up to the highest of `live`
// (the windows of other planes are 0): 8 planes a step (nibble table, then byte sums a lane).
inline std::uint32_t weighted_ones32(const std::uint32_t* win, std::uint32_t keep, std::uint32_t live) noexcept {
    const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2,
                                           3, 2, 3, 3, 4);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    const __m256i mask = _mm256_set1_epi32(static_cast<int>(keep));
    __m256i shift = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i sum = _mm256_setzero_si256();
    const auto steps = static_cast<std::uint32_t>(39 - std::countl_zero(live)) / 8;  // 0 for no live plane
    for (std::uint32_t k = 0; k < steps; ++k) {
        const __m256i x = _mm256_and_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(win + 8 * k)), mask);
        const __m256i ones = _mm256_add_epi8(_mm256_shuffle_epi8(table, _mm256_and_si256(x, nibble)),
                                             _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble)));
        const __m256i counts =
            _mm256_madd_epi16(_mm256_maddubs_epi16(ones, _mm256_set1_epi8(1)), _mm256_set1_epi16(1));
        sum = _mm256_add_epi32(sum, _mm256_sllv_epi32(counts, shift));
        shift = _mm256_add_epi32(shift, _mm256_set1_epi32(8));
    }
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    x = _mm_add_epi32(x, _mm_unpackhi_epi64(x, x));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(x));
}

// listed_window for one column: 8 decoded positions a 32-bit step (twice listed_window's 4).
// A position p sets bit p - from; one before the column wraps, one past it (or the pad) shifts
// by 32 or more: both give 0.
inline std::uint32_t listed_column(const std::uint16_t* at, std::uint32_t n, std::uint32_t from) noexcept {
    if (n == 0) return 0;  // an empty list (a loaded file may hold one) has no entries to load
    const __m256i base = _mm256_set1_epi32(static_cast<int>(from));
    const __m256i one = _mm256_set1_epi32(1);
    __m256i w = _mm256_setzero_si256();
    for (const std::uint16_t* chunk : {at, at + (n - 16)}) {
        for (std::uint32_t k = 0; k < 16; k += 8) {
            const __m256i p = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(chunk + k)));
            w = _mm256_or_si256(w, _mm256_sllv_epi32(one, _mm256_sub_epi32(p, base)));
        }
    }
    __m128i x = _mm_or_si128(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
    x = _mm_or_si128(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_or_si128(x, _mm_shuffle_epi32(x, 0xB1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(x));
}

// plan_window_sum for a window inside one 32-bit column (from a multiple of 32, to - from <= 32).
std::uint32_t plan_column_sum(const block_descriptor& d, const std::byte* block, std::uint32_t from, std::uint32_t to,
                              std::uint32_t keep, const std::uint32_t* skips, const std::uint32_t* plan) noexcept {
    const plan_groups g = groups_of(plan);
    const std::uint32_t* e = g.entries;
    column_windows windows;  // read (masked off) by references to unstored planes
    std::uint32_t* const win = windows.win;
    // Raw planes: the 4 bytes from the column's first, or, where they would pass the payload's
    // end (a sparse block's planes of m bits), the 4 ending at its last byte, shifted down: the
    // bytes before it lie in the block (earlier payloads, the plane table, the header).
    const auto raw_bytes = static_cast<int>(payload_size(payload_kind::raw, 0, d.length));
    const auto first = static_cast<int>(from / 8);
    const int back = std::max(0, first + 4 - raw_bytes);
    const std::byte* const column = block + (first - back);
    const unsigned right = 8u * static_cast<unsigned>(back);
    for (const std::uint32_t* end = e + g.raw; e != end; ++e)
        win[plan_index(*e)] = load_le<std::uint32_t>(column + plan_low(*e)) >> right;
    for (const std::uint32_t* end = e + g.mapped; e != end; ++e) win[plan_index(*e)] = skips[plan_low(*e) + from / 32];
    for (const std::uint32_t* end = e + g.listed; e != end; ++e)
        win[plan_index(*e)] = listed_column(listed_of(skips + plan_low(*e)), *e >> 24, from);
    for (const std::uint32_t* end = e + 2 * g.positions; e != end; e += 2)
        win[plan_index(e[0])] = static_cast<std::uint32_t>(payload_window(
            payload_kind::positions, block + plan_low(e[0]), e[1], d.length, from, to, nullptr, 0, block + d.end));
    for (const std::uint32_t* end = e + 2 * g.runs; e != end; e += 2)
        win[plan_index(e[0])] = static_cast<std::uint32_t>(
            payload_window(payload_kind::runs, block + plan_low(e[0]), e[1], d.length, from, to, nullptr, 0, block + d.end));
    // Complemented bases, 8 planes a step: lane j of step k flips where bit 8 k + j of the mask is set.
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    for (std::uint32_t k = 0; k < 4; ++k) {
        auto* at = reinterpret_cast<__m256i*>(win + 8 * k);
        const __m256i flip = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(plan[0] >> (8 * k))), bit), bit);
        _mm256_store_si256(at, _mm256_xor_si256(_mm256_load_si256(at), flip));
    }
    for (const std::uint32_t* end = e + g.references; e != end; ++e) win[*e & 31u] ^= win[*e >> 8];
    return weighted_ones32(win, keep, d.live);
}
#endif

// Sum (mod 2^32) of the stored residuals' bits [from, to) masked by `keep`, from the plan:
// each group's windows, then the bases (as plan_residual), then one count per plane.
std::uint32_t plan_window_sum(const block_descriptor& d, const std::byte* block, std::uint32_t from, std::uint32_t to,
                              std::uint64_t keep, const std::uint32_t* skips, const std::uint32_t* plan) noexcept {
#if defined(__AVX2__)
    if (to - from <= 32) return plan_column_sum(d, block, from, to, static_cast<std::uint32_t>(keep), skips, plan);
#endif
    const plan_groups g = groups_of(plan);
    const std::uint32_t* e = g.entries;
    plane_windows windows;  // read (masked off) by references to unstored planes
    std::uint64_t* const win = windows.win;
    for (const std::uint32_t* end = e + g.raw; e != end; ++e)
        win[plan_index(*e)] =
            payload_window(payload_kind::raw, block + plan_low(*e), 0, d.length, from, to, nullptr, 0, nullptr);
    for (const std::uint32_t* end = e + g.mapped; e != end; ++e) win[plan_index(*e)] = bitmap_window(skips + plan_low(*e), from);
    for (const std::uint32_t* end = e + g.listed; e != end; ++e)
        win[plan_index(*e)] = listed_window(listed_of(skips + plan_low(*e)), *e >> 24, from, to);
    for (const std::uint32_t* end = e + 2 * g.positions; e != end; e += 2)
        win[plan_index(e[0])] = payload_window(payload_kind::positions, block + plan_low(e[0]), e[1], d.length, from, to,
                                               nullptr, 0, block + d.end);
    for (const std::uint32_t* end = e + 2 * g.runs; e != end; e += 2)
        win[plan_index(e[0])] =
            payload_window(payload_kind::runs, block + plan_low(e[0]), e[1], d.length, from, to, nullptr, 0, block + d.end);
    for (std::uint32_t m = plan[0]; m; m &= m - 1) win[std::countr_zero(m)] = ~win[std::countr_zero(m)];
    for (const std::uint32_t* end = e + g.references; e != end; ++e) win[*e & 31u] ^= win[*e >> 8];
    return weighted_ones(win, keep, d.live);
}

// Sum (mod 2^32) of the stored residuals at positions [from, to), to - from <= 64; from is a
// multiple of 32. `skips`: the planes' skip entries (may be null); `plan`: the block's read
// plan (may be null). Positions [from, from + lead) (lead < 32) are left out.
std::uint32_t window_sum(const block_descriptor& d, const std::byte* block, std::uint32_t from, std::uint32_t to,
                         const std::uint32_t* skips, const std::uint32_t* plan, std::uint32_t lead = 0) noexcept {
    if (to <= from + lead) return 0;
    const std::uint32_t n = to - from;
    const std::uint64_t keep = window_range(from, from + lead, to);
    std::uint32_t sum = 0;
    for (std::uint32_t ones = d.ones; ones; ones &= ones - 1) sum += (n - lead) << std::countr_zero(ones);
    if (d.stored == 0) return sum;
    if (d.interleaved()) {
        // Columns from / 32 and the next hold every plane's words side by side.
        const std::byte* column = block + d.payloads_at + interleaved_offset(from / 32, 0, d.stored);
        const bool two = n > 32;
        std::uint32_t r = 0;
        for (std::uint32_t live = d.live; live; live &= live - 1, ++r) {
            std::uint64_t w = load_le<std::uint32_t>(column + interleaved_offset(0, r, d.stored));
            if (two) w |= std::uint64_t{load_le<std::uint32_t>(column + interleaved_offset(1, r, d.stored))} << 32;
            sum += ones_in64(w & keep) << std::countr_zero(live);
        }
        return sum;
    }
    if (d.all_raw()) {
        const std::uint32_t stride = payload_size(payload_kind::raw, 0, d.length);
        const std::byte* payload = block + d.payloads_at;
        for (std::uint32_t live = d.live; live; live &= live - 1, payload += stride)
            sum += ones_in64(payload_window(payload_kind::raw, payload, 0, d.length, from, to, nullptr, 0, nullptr) & keep)
                   << std::countr_zero(live);
        return sum;
    }
    if (plan != nullptr) return sum + plan_window_sum(d, block, from, to, keep, skips, plan);
    // The walk of plane_walker, inline (as in residual_at): a raw plane on base zero
    // (descriptor byte 1 is then 0) costs one 64-bit load and a count, no decode and no
    // switch. Delta blocks of sorted positions keep their low planes raw: bam_pos 1141 -> 1032
    // instructions per random read (callgrind, 4,096 reads).
    plane_windows windows;  // read (masked off) by planes on a zero or one base
    std::uint64_t* const win = windows.win;
    const std::uint32_t least = mapped_least(d);
    const std::byte* at = block + d.planes_at;
    std::uint32_t payload = d.payloads_at;
    const std::uint32_t raw_bytes = payload_size(payload_kind::raw, 0, d.length);
    constexpr auto raw_code = static_cast<std::uint32_t>(payload_kind::raw);
    for (std::uint32_t i = 0; i < d.stored; ++i) {
        const auto byte0 = static_cast<std::uint32_t>(static_cast<std::uint8_t>(at[0]));
        const auto byte1 = static_cast<std::uint8_t>(at[1]);
        at += plane_descriptor_bytes;
        if ((byte0 >> 5) == raw_code && byte1 == 0) {
            const std::uint64_t w = payload_window(payload_kind::raw, block + payload, 0, d.length, from, to, nullptr, 0, nullptr);
            win[byte0 & 31u] = w;
            sum += ones_in64(w & keep) << (byte0 & 31u);
            payload += raw_bytes;
            continue;
        }
        const plane_code code = decode_plane_code(static_cast<std::uint8_t>(byte0), byte1);
        std::uint32_t items = 0;
        if (counted(code.payload_kind())) {
            items = load_le<std::uint16_t>(at);
            at += plane_item_count_bytes;
        }
        // The base without a branch, as in residual_at.
        std::uint64_t w = (win[code.reference] & (0 - (std::uint64_t{code.base} >> 1))) ^ (0 - (std::uint64_t{code.base} & 1u));
        w ^= payload_window(code.payload_kind(), block + payload, items, d.length, from, to, skips, least, block + d.end);
        skips = skip_past(skips, code.payload_kind(), items, least);
        payload += payload_size(code.payload_kind(), items, d.length);
        win[code.index] = w;
        sum += ones_in64(w & keep) << code.index;
    }
    return sum;
}

std::uint32_t delta_value(const block_descriptor& d, const std::byte* block, std::uint32_t index,
                          const std::uint32_t* checkpoints, const std::uint32_t* skips, const std::uint32_t* plan) noexcept {
    if (checkpoints != nullptr && direct_delta_readable(d)) return direct_delta_value(d, block, checkpoints, index);
    // Residuals outside a sparse mask are 0: only the stored ones up to `index` count.
    std::uint32_t stored = index + 1;
    if (d.sparse()) {
        const rank_bit m = mask_rank(d, block, index, skips);
        stored = m.rank + (m.set ? 1u : 0u);
        skips = skip_past(skips, d.mask_payload(), d.mask_items, mapped_least(d));
    }
    constexpr std::uint32_t stride = delta_checkpoint_stride;
    std::uint32_t sum = 0;
    if (checkpoints == nullptr) {
        for (std::uint32_t from = 0; from < stored; from += stride)
            sum += window_sum(d, block, from, std::min(from + stride, stored), skips, plan);
        return d.base + sum + index * d.delta_min;
    }
    // Forward from the checkpoint at or before `stored`: a window of at most 31 positions in
    // one 32-bit column (none where stored is a multiple of the stride: k may then be 64).
    static_assert(stride == 32);
    const std::uint32_t k = stored / stride;
    sum = (k ? checkpoints[k - 1] : 0) + window_sum(d, block, k * stride, stored, skips, plan);
    return d.base + sum + index * d.delta_min;
}


// Value `index` of a block (direct_access.hpp's read_value, which dispatches here).
std::uint32_t read_value(const block_descriptor& d, const std::byte* block, std::uint32_t index,
                         const std::uint32_t* checkpoints, const std::uint32_t* skips, const std::uint32_t* plan) noexcept {
    if (d.transform() == codec::transform::delta) return delta_value(d, block, index, checkpoints, skips, plan);
    std::uint32_t position = index;
    if (d.sparse()) {
        const rank_bit m = mask_rank(d, block, index, skips);
        if (!m.set) return finish_value(d.transform(), 0, d.base);
        position = m.rank;
        skips = skip_past(skips, d.mask_payload(), d.mask_items, mapped_least(d));
    }
    return finish_value(d.transform(), residual_at(d, block, position, skips, plan), d.base);
}

}  // namespace
}  // namespace bitplane::detail::BITPLANE_READER_NS
