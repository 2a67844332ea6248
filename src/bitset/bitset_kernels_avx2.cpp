// The AVX2 + POPCNT whole-block kernels.
//
// src/CMakeLists.txt picks up src/bitset/*.cpp without per-file flags, so this translation
// unit asks for AVX2 with a target region around its kernels instead of -mavx2 (the same
// effect, scoped to the functions defined inside the region, as simdjson does). Everything
// inside the region is in an anonymous namespace and only reached through the table, which
// the dispatcher hands out only where the CPU runs AVX2, POPCNT and BMI2
// (simd/dispatch.cpp); every header is included before the region, so no inline function or
// template shared with other translation units is compiled with AVX2.
#if defined(BITPLANE_X86)

#include "bitset/bitset_kernels.hpp"

#include <immintrin.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace bitplane::detail {
namespace {

// compact_lanes[mask]: a byte shuffle moving the 16-bit lanes whose bit in `mask` is clear to
// the front, in order.
struct lane_table {
    alignas(16) std::array<std::uint8_t, 16> rows[256];
};
constexpr lane_table make_lane_table() {
    lane_table t{};
    for (unsigned mask = 0; mask < 256; ++mask) {
        unsigned k = 0;
        for (unsigned lane = 0; lane < 8; ++lane) {
            if ((mask >> lane) & 1) continue;
            t.rows[mask][2 * k] = static_cast<std::uint8_t>(2 * lane);
            t.rows[mask][2 * k + 1] = static_cast<std::uint8_t>(2 * lane + 1);
            ++k;
        }
        for (; k < 8; ++k) t.rows[mask][2 * k] = t.rows[mask][2 * k + 1] = 0x80;
    }
    return t;
}
constexpr lane_table lane_rows = make_lane_table();
constexpr const std::array<std::uint8_t, 16>* compact_lanes = lane_rows.rows;

// Rows of 8 bytes, read with a scaled index (8 is x86's largest scale), so that a row's address
// takes no shift: extract_positions' 14 instructions a non-zero byte down to 12 (bam_ref_span
// find_eq frequent: ~50 non-zero bytes a block of transitions, ~2.6 run bounds each).
// bit_rows[v]: the positions of the set bits of byte v, then zeros (8 lanes of 8 bits,
// widened to 16 by the load).
struct byte_rows8 {
    alignas(64) std::array<std::uint8_t, 8> rows[256];
};
constexpr byte_rows8 make_bit_rows() {
    byte_rows8 t{};
    for (unsigned v = 0; v < 256; ++v) {
        unsigned k = 0;
        for (unsigned bit = 0; bit < 8; ++bit)
            if ((v >> bit) & 1) t.rows[v][k++] = static_cast<std::uint8_t>(bit);
    }
    return t;
}
constexpr byte_rows8 bit_rows = make_bit_rows();

// bit_counts[v]: the set bits of byte v, a load where POPCNT takes a zeroing of its
// destination too (GCC breaks its false dependency on it).
struct byte_counts {
    alignas(64) std::uint8_t count[256];
};
constexpr byte_counts make_bit_counts() {
    byte_counts t{};
    for (unsigned v = 0; v < 256; ++v) t.count[v] = static_cast<std::uint8_t>(std::popcount(v));
    return t;
}
constexpr byte_counts bit_counts = make_bit_counts();

// byte_base[k]: 8k in each of 4 lanes of 16 bits (broadcast to 8 by the load), the first
// position of byte k of a block: one load, the quarter's base included, where a broadcast of
// the byte's position took three instructions and the quarter's base an add.
struct base_rows {
    alignas(64) std::uint64_t rows[256];
};
constexpr base_rows make_byte_base() {
    base_rows t{};
    for (std::uint64_t k = 0; k < 256; ++k) t.rows[k] = 8 * k * 0x0001000100010001ull;
    return t;
}
constexpr base_rows byte_base = make_byte_base();


}  // namespace
}  // namespace bitplane::detail

// BMI too (every CPU with AVX2 has it; simd/dispatch.cpp checks): extract_positions counts a
// mask's trailing zeros into a 64-bit index, with no sign extension after it.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,popcnt,bmi"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,popcnt,bmi")
#endif

namespace bitplane::detail {
namespace {

// Per-byte popcount by nibble lookup, summed into the four 64-bit lanes of `acc`.
inline __m256i add_popcount(__m256i acc, __m256i v) {
    const __m256i lookup = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,  //
                                            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0F);
    const __m256i lo = _mm256_and_si256(v, low);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
    const __m256i bytes = _mm256_add_epi8(_mm256_shuffle_epi8(lookup, lo), _mm256_shuffle_epi8(lookup, hi));
    return _mm256_add_epi64(acc, _mm256_sad_epu8(bytes, _mm256_setzero_si256()));
}

inline std::uint32_t horizontal_sum(__m256i v) {
    const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si64(s) + _mm_extract_epi64(s, 1));
}

// r XOR (r shifted up one bit across the whole block): `previous` is the vector before r
// (zero before the first), whose top 64-bit lane feeds r's bit 0.
inline __m256i transitions_of(__m256i r, __m256i previous) {
    const __m256i rotated = _mm256_permute4x64_epi64(r, 0x93);        // lanes 3,0,1,2
    const __m256i carried = _mm256_permute4x64_epi64(previous, 0x93);  // lane 0 = previous lane 3
    const __m256i below = _mm256_blend_epi32(rotated, carried, 0x03);   // lane i = r lane i-1
    const __m256i shifted = _mm256_or_si256(_mm256_slli_epi64(r, 1), _mm256_srli_epi64(below, 63));
    return _mm256_xor_si256(r, shifted);
}

inline __m256i load(const void* p, int i) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(static_cast<const char*>(p) + 32 * i));
}

inline void store(void* p, int i, __m256i v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<char*>(p) + 32 * i), v);
}

inline block_stats finish(__m256i count, __m256i transitions) {
    return {horizontal_sum(count), horizontal_sum(transitions)};
}

block_stats and_blocks(const void* a, const void* b, void* out) {
    __m256i count = _mm256_setzero_si256(), trans = _mm256_setzero_si256(), previous = _mm256_setzero_si256();
    for (int i = 0; i < 8; ++i) {
        const __m256i r = _mm256_and_si256(load(a, i), load(b, i));
        store(out, i, r);
        count = add_popcount(count, r);
        trans = add_popcount(trans, transitions_of(r, previous));
        previous = r;
    }
    return finish(count, trans);
}

block_stats or_blocks(const void* a, const void* b, void* out) {
    __m256i count = _mm256_setzero_si256(), trans = _mm256_setzero_si256(), previous = _mm256_setzero_si256();
    for (int i = 0; i < 8; ++i) {
        const __m256i r = _mm256_or_si256(load(a, i), load(b, i));
        store(out, i, r);
        count = add_popcount(count, r);
        trans = add_popcount(trans, transitions_of(r, previous));
        previous = r;
    }
    return finish(count, trans);
}

block_stats xor_blocks(const void* a, const void* b, void* out) {
    __m256i count = _mm256_setzero_si256(), trans = _mm256_setzero_si256(), previous = _mm256_setzero_si256();
    for (int i = 0; i < 8; ++i) {
        const __m256i r = _mm256_xor_si256(load(a, i), load(b, i));
        store(out, i, r);
        count = add_popcount(count, r);
        trans = add_popcount(trans, transitions_of(r, previous));
        previous = r;
    }
    return finish(count, trans);
}

block_stats andnot_blocks(const void* a, const void* b, void* out) {
    __m256i count = _mm256_setzero_si256(), trans = _mm256_setzero_si256(), previous = _mm256_setzero_si256();
    for (int i = 0; i < 8; ++i) {
        const __m256i r = _mm256_andnot_si256(load(b, i), load(a, i));
        store(out, i, r);
        count = add_popcount(count, r);
        trans = add_popcount(trans, transitions_of(r, previous));
        previous = r;
    }
    return finish(count, trans);
}

block_stats not_block(const void* a, void* out) {
    __m256i count = _mm256_setzero_si256(), trans = _mm256_setzero_si256(), previous = _mm256_setzero_si256();
    const __m256i ones = _mm256_set1_epi32(-1);
    for (int i = 0; i < 8; ++i) {
        const __m256i r = _mm256_xor_si256(load(a, i), ones);
        store(out, i, r);
        count = add_popcount(count, r);
        trans = add_popcount(trans, transitions_of(r, previous));
        previous = r;
    }
    return finish(count, trans);
}

block_stats stats(const void* a) {
    __m256i count = _mm256_setzero_si256(), trans = _mm256_setzero_si256(), previous = _mm256_setzero_si256();
    for (int i = 0; i < 8; ++i) {
        const __m256i r = load(a, i);
        count = add_popcount(count, r);
        trans = add_popcount(trans, transitions_of(r, previous));
        previous = r;
    }
    return finish(count, trans);
}

block_stats stats_transitions(const void* a, void* t) {
    __m256i count = _mm256_setzero_si256(), trans = _mm256_setzero_si256(), previous = _mm256_setzero_si256();
    for (int i = 0; i < 8; ++i) {
        const __m256i r = load(a, i);
        const __m256i bounds = transitions_of(r, previous);
        store(t, i, bounds);
        count = add_popcount(count, r);
        trans = add_popcount(trans, bounds);
        previous = r;
    }
    return finish(count, trans);
}

std::uint32_t and_count(const void* a, const void* b) {
    __m256i count = _mm256_setzero_si256();
    for (int i = 0; i < 8; ++i) count = add_popcount(count, _mm256_and_si256(load(a, i), load(b, i)));
    return horizontal_sum(count);
}

// The union (or symmetric difference) of two sorted position lists, eight at a time, after
// Inoue et al. and CRoaring's union_vector16: a rotate-and-min/max network merges two sorted
// 8-lane vectors into 16 sorted values, the lower 8 are written and the upper 8 merged with the
// next input vector (from whichever list has the smaller next value); repeats are then dropped
// with one byte shuffle from a table (union: every repeat; XOR: both copies). The lists are
// padded to a multiple of 8 with 0xFFFF (above every position), which falls off the end.
// No templates or lambdas in this region: clang's target region is only sure to reach plain
// functions.
inline void merge8(__m128i a, __m128i b, __m128i* lo, __m128i* hi) {
    __m128i low = _mm_min_epu16(a, b);
    __m128i high = _mm_max_epu16(a, b);
    for (int r = 0; r < 7; ++r) {
        low = _mm_alignr_epi8(low, low, 2);
        const __m128i m = _mm_min_epu16(low, high);
        high = _mm_max_epu16(low, high);
        low = m;
    }
    *lo = _mm_alignr_epi8(low, low, 2);
    *hi = high;
}

inline __m128i load8(const std::uint16_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

// Values i .. i + 7 of a list of n, with 0xFFFF (above every position) past its end: padded in
// registers, since a store of the padding followed by a wider load across it would wait for
// the store to complete instead of being forwarded.
inline __m128i load_list(const std::uint16_t* p, std::uint32_t i, std::uint32_t n) {
    const __m128i v = load8(p + i);
    if (n - i >= 8) return v;
    const __m128i inside =
        _mm_cmpgt_epi16(_mm_set1_epi16(static_cast<short>(n - i)), _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7));
    return _mm_or_si128(v, _mm_andnot_si128(inside, _mm_set1_epi16(-1)));
}

// Writes the lanes of `v` that differ from the lane before (the last lane of `previous` before
// lane 0); returns how many.
inline std::uint32_t store_unique(__m128i previous, __m128i v, std::uint16_t* out) {
    const __m128i before = _mm_alignr_epi8(v, previous, 14);
    const auto repeats = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_packs_epi16(_mm_cmpeq_epi16(before, v), _mm_setzero_si128())));
    const __m128i kept = _mm_shuffle_epi8(v, _mm_load_si128(reinterpret_cast<const __m128i*>(compact_lanes[repeats].data())));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), kept);
    return 8 - static_cast<std::uint32_t>(_mm_popcnt_u32(repeats));
}

// One lane late: writes the lanes of [last lane of previous, v0 .. v6] equal to neither
// neighbour; returns how many.
inline std::uint32_t store_single(__m128i previous, __m128i v, std::uint16_t* out) {
    const __m128i left = _mm_alignr_epi8(v, previous, 12);
    const __m128i middle = _mm_alignr_epi8(v, previous, 14);
    const __m128i repeated = _mm_or_si128(_mm_cmpeq_epi16(middle, left), _mm_cmpeq_epi16(middle, v));
    const auto drop = static_cast<unsigned>(_mm_movemask_epi8(_mm_packs_epi16(repeated, _mm_setzero_si128())));
    const __m128i kept = _mm_shuffle_epi8(middle, _mm_load_si128(reinterpret_cast<const __m128i*>(compact_lanes[drop].data())));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), kept);
    return 8 - static_cast<std::uint32_t>(_mm_popcnt_u32(drop));
}

inline std::uint32_t store_result(__m128i previous, __m128i v, std::uint16_t* out, bool exclusive) {
    return exclusive ? store_single(previous, v, out) : store_unique(previous, v, out);
}

inline std::uint32_t unite_positions(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b, std::uint32_t m,
                                     std::uint16_t* out, bool exclusive) {
    const std::uint32_t n8 = (n + 7) & ~7u, m8 = (m + 7) & ~7u;
    if (n8 == 0 && m8 == 0) return 0;
    // Lane 7 of `previous` (and lane 6) start as a value that is no position and no padding.
    __m128i previous = _mm_set1_epi16(static_cast<short>(0xFFFE));
    __m128i lo, hi = n8 != 0 ? load_list(a, 0, n) : load_list(b, 0, m);
    std::uint32_t i = n8 != 0 ? 8 : 0, j = n8 != 0 ? 0 : 8, k = 0;
    // `hi` holds the 8 largest values seen so far; each step merges in the next 8 inputs.
    while (i < n8 || j < m8) {
        __m128i v;
        if (j >= m8 || (i < n8 && a[i] <= b[j])) {
            v = load_list(a, i, n);
            i += 8;
        } else {
            v = load_list(b, j, m);
            j += 8;
        }
        merge8(v, hi, &lo, &hi);
        k += store_result(previous, lo, out + k, exclusive);
        previous = lo;
    }
    k += store_result(previous, hi, out + k, exclusive);
    if (exclusive) k += store_single(hi, _mm_set1_epi16(static_cast<short>(0xFFFD)), out + k);
    while (k != 0 && out[k - 1] == 0xFFFF) --k;  // padding left over
    return k;
}

// Gaps to positions, eight at a time and without branches: each byte is a gap (prefix sums
// of gap + 1), except around escapes (255, then a u16 gap: three bytes, one position). An
// escape's gap is at most 2047, so its high byte is below 8 and only its low byte can be
// another 255: in a run of 255 bytes (two at most) the first is the escape. So the escape
// bytes are the 255 bytes whose predecessor is not one, found for the whole payload with mask
// arithmetic. In each 8-lane group the escape's first two slots add nothing and are dropped
// (lane-compaction table) when the positions are stored, and its third adds the true gap + 1,
// lo + 256 hi + 1, from its own byte (hi) and the one before (lo).
std::uint32_t decode_gaps(const std::byte* payload, std::uint32_t bytes, std::uint16_t* out) {
    std::uint64_t marks[4] = {0, 0, 0, 0};
    const __m128i escape_byte = _mm_set1_epi8(-1);
    for (std::uint32_t i = 0; i < bytes; i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(payload + i));
        const auto m = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, escape_byte)));
        marks[i / 64] |= static_cast<std::uint64_t>(m) << (i % 64);
    }
    if (bytes % 64 != 0) marks[bytes / 64] &= (std::uint64_t{1} << (bytes % 64)) - 1;
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi16(1);
    __m128i base = _mm_set1_epi16(-1);
    if ((marks[0] | marks[1] | marks[2] | marks[3]) == 0) {  // no escape: one position a byte
        for (std::uint32_t i = 0; i < bytes; i += 8) {
            __m128i inc = _mm_add_epi16(
                _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(payload + i)), zero), one);
            inc = _mm_add_epi16(inc, _mm_slli_si128(inc, 2));
            inc = _mm_add_epi16(inc, _mm_slli_si128(inc, 4));
            inc = _mm_add_epi16(inc, _mm_slli_si128(inc, 8));
            const __m128i v = _mm_add_epi16(inc, base);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), v);
            base = _mm_shuffle_epi32(_mm_shufflehi_epi16(v, 0xFF), 0xFF);
        }
        return bytes;
    }
    std::uint64_t escapes[4], dropped[4];
    std::uint64_t mark_carry = 0, escape_carry = 0;
    for (int w = 0; w < 4; ++w) {
        escapes[w] = marks[w] & ~((marks[w] << 1) | mark_carry);
        dropped[w] = escapes[w] | (escapes[w] << 1) | escape_carry;
        mark_carry = marks[w] >> 63;
        escape_carry = escapes[w] >> 63;
    }
    const __m128i lane_bit = _mm_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128);
    __m128i previous_bytes = zero, previous_escapes = zero;
    std::uint32_t n = 0;
    for (std::uint32_t i = 0; i < bytes; i += 8) {
        const __m128i b = _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(payload + i)), zero);
        const auto escape_bits = static_cast<short>((escapes[i / 64] >> (i % 64)) & 0xFF);
        const __m128i e = _mm_cmpeq_epi16(_mm_and_si128(_mm_set1_epi16(escape_bits), lane_bit), lane_bit);
        const __m128i low_slot = _mm_alignr_epi8(e, previous_escapes, 14);   // slot after an escape
        const __m128i high_slot = _mm_alignr_epi8(e, previous_escapes, 12);  // two after: the position
        const __m128i byte_before = _mm_alignr_epi8(b, previous_bytes, 14);
        __m128i inc = _mm_andnot_si128(_mm_or_si128(e, low_slot), _mm_add_epi16(b, one));
        const __m128i escaped = _mm_add_epi16(_mm_add_epi16(byte_before, _mm_slli_epi16(b, 8)), one);
        inc = _mm_blendv_epi8(inc, escaped, high_slot);
        inc = _mm_add_epi16(inc, _mm_slli_si128(inc, 2));
        inc = _mm_add_epi16(inc, _mm_slli_si128(inc, 4));
        inc = _mm_add_epi16(inc, _mm_slli_si128(inc, 8));
        const __m128i v = _mm_add_epi16(inc, base);
        base = _mm_shuffle_epi32(_mm_shufflehi_epi16(v, 0xFF), 0xFF);
        unsigned drop = static_cast<unsigned>(dropped[i / 64] >> (i % 64)) & 0xFF;
        if (bytes - i < 8) drop |= (0xFFu << (bytes - i)) & 0xFF;  // lanes past the payload
        const __m128i kept =
            _mm_shuffle_epi8(v, _mm_load_si128(reinterpret_cast<const __m128i*>(compact_lanes[drop].data())));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + n), kept);
        n += 8 - static_cast<std::uint32_t>(_mm_popcnt_u32(drop));
        previous_bytes = b;
        previous_escapes = e;
    }
    return n;
}

// Set bits to positions: a mask of the non-zero bytes (one compare per 32 bytes), then for each
// non-zero byte its bits' positions from a table, offset and stored eight at a time. Sparse
// blocks cost a little per set byte, not per word or bit, and no branch per bit.
std::uint32_t extract_positions(const void* block, std::uint16_t* out) {
    const auto* bytes = static_cast<const unsigned char*>(block);
    std::uint64_t nonzero[4];
    for (int h = 0; h < 4; ++h) {
        const auto lo = static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(load(block, 2 * h), _mm256_setzero_si256())));
        const auto hi = static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(load(block, 2 * h + 1), _mm256_setzero_si256())));
        nonzero[h] = ~((static_cast<std::uint64_t>(hi) << 32) | lo);
    }
    // Per set byte: its row of bit positions (widened on the load) + its byte's base (a
    // broadcast on the load; the rows of the quarter's bytes start at quarter_base), stored
    // through a pointer (no index to widen): 12 instructions where the 16-bit rows, whose
    // addresses took a shift each, and the quarter's own add took 14 (and the broadcast and
    // index before them 18).
    std::uint16_t* at_out = out;
    for (int h = 0; h < 4; ++h) {
        const unsigned char* quarter = bytes + 64 * h;
        const std::uint64_t* quarter_base = byte_base.rows + 64 * h;
        for (std::uint64_t m = nonzero[h]; m != 0; m = _blsr_u64(m)) {
            const std::size_t at = _tzcnt_u64(m);
            const unsigned value = quarter[at];
            const __m128i row = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(bit_rows.rows[value].data())));
            const __m128i base = _mm_set1_epi64x(static_cast<long long>(quarter_base[at]));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(at_out), _mm_add_epi16(row, base));
            at_out += bit_counts.count[value];
        }
    }
    return static_cast<std::uint32_t>(at_out - out);
}

// AND and ANDNOT of two sorted position lists by the same merge, on tagged values: 2p for
// the left list, 2p + 1 for the right one, so that a position on both sides becomes the pair
// 2p, 2p + 1, adjacent in the merged order. One lane late (as store_single), an even value is
// kept if the next one is (AND) or is not (ANDNOT) its partner, and written as p.
// Values i .. i + 7 of a list as tagged values 2p + tag, padded with 0xFFFF (odd: never kept).
inline __m128i load_tagged(const std::uint16_t* p, std::uint32_t i, std::uint32_t n, short tag) {
    const __m128i v = _mm_or_si128(_mm_slli_epi16(load8(p + i), 1), _mm_set1_epi16(tag));
    if (n - i >= 8) return v;
    const __m128i inside =
        _mm_cmpgt_epi16(_mm_set1_epi16(static_cast<short>(n - i)), _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7));
    return _mm_or_si128(v, _mm_andnot_si128(inside, _mm_set1_epi16(-1)));
}

inline std::uint32_t store_tagged(__m128i previous, __m128i v, std::uint16_t* out, bool keep_pairs) {
    const __m128i middle = _mm_alignr_epi8(v, previous, 14);
    const __m128i even = _mm_cmpeq_epi16(_mm_and_si128(middle, _mm_set1_epi16(1)), _mm_setzero_si128());
    const __m128i paired = _mm_cmpeq_epi16(_mm_add_epi16(middle, _mm_set1_epi16(1)), v);
    const __m128i keep = keep_pairs ? _mm_and_si128(even, paired) : _mm_andnot_si128(paired, even);
    const auto kept_lanes = static_cast<unsigned>(_mm_movemask_epi8(_mm_packs_epi16(keep, _mm_setzero_si128())));
    const __m128i values = _mm_shuffle_epi8(
        _mm_srli_epi16(middle, 1), _mm_load_si128(reinterpret_cast<const __m128i*>(compact_lanes[~kept_lanes & 0xFF].data())));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), values);
    return static_cast<std::uint32_t>(_mm_popcnt_u32(kept_lanes));
}

inline std::uint32_t intersect_positions(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b,
                                         std::uint32_t m, std::uint16_t* out, bool keep_pairs) {
    const std::uint32_t n8 = (n + 7) & ~7u, m8 = (m + 7) & ~7u;
    if (n8 == 0) return 0;
    __m128i previous = _mm_set1_epi16(-1);
    __m128i lo, hi = load_tagged(a, 0, n, 0);
    std::uint32_t i = 8, j = 0, k = 0;
    while (i < n8 || j < m8) {
        __m128i v;
        if (j >= m8 || (i < n8 && a[i] <= b[j])) {  // 2a <= 2b + 1 exactly when a <= b
            v = load_tagged(a, i, n, 0);
            i += 8;
        } else {
            v = load_tagged(b, j, m, 1);
            j += 8;
        }
        merge8(v, hi, &lo, &hi);
        k += store_tagged(previous, lo, out + k, keep_pairs);
        previous = lo;
    }
    k += store_tagged(previous, hi, out + k, keep_pairs);
    k += store_tagged(hi, _mm_set1_epi16(-1), out + k, keep_pairs);
    return k;
}

std::uint32_t and_positions(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b, std::uint32_t m,
                            std::uint16_t* out) {
    return intersect_positions(a, n, b, m, out, true);
}

std::uint32_t andnot_positions(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b, std::uint32_t m,
                               std::uint16_t* out) {
    return intersect_positions(a, n, b, m, out, false);
}

std::uint32_t union_positions(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b, std::uint32_t m,
                              std::uint16_t* out) {
    return unite_positions(a, n, b, m, out, false);
}

std::uint32_t xor_positions(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b, std::uint32_t m,
                            std::uint16_t* out) {
    return unite_positions(a, n, b, m, out, true);
}

// Harley-Seal (Mula, Kurz, Lemire): carry-save adders fold 16 vectors into one of weight 16
// and a few of lower weight, so that one popcount serves 16 vectors instead of one each.
inline void csa(__m256i* high, __m256i* low, __m256i a, __m256i b, __m256i c) {
    const __m256i u = _mm256_xor_si256(a, b);
    *high = _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(u, c));
    *low = _mm256_xor_si256(u, c);
}

inline __m256i and_at(const void* a, const void* b, std::size_t i) {
    return _mm256_and_si256(load(a, static_cast<int>(i)), load(b, static_cast<int>(i)));
}

std::uint64_t and_count_span(const void* a, const void* b, std::size_t blocks) {
    const std::size_t vectors = 8 * blocks;
    __m256i total = _mm256_setzero_si256(), ones = _mm256_setzero_si256(), twos = _mm256_setzero_si256(),
            fours = _mm256_setzero_si256(), eights = _mm256_setzero_si256(), sixteens, twos_a, twos_b, fours_a,
            fours_b, eights_a, eights_b;
    const auto* pa = static_cast<const char*>(a);
    const auto* pb = static_cast<const char*>(b);
    std::size_t i = 0;
    for (; i + 16 <= vectors; i += 16) {
        const char* x = pa + 32 * i;
        const char* y = pb + 32 * i;
        csa(&twos_a, &ones, ones, and_at(x, y, 0), and_at(x, y, 1));
        csa(&twos_b, &ones, ones, and_at(x, y, 2), and_at(x, y, 3));
        csa(&fours_a, &twos, twos, twos_a, twos_b);
        csa(&twos_a, &ones, ones, and_at(x, y, 4), and_at(x, y, 5));
        csa(&twos_b, &ones, ones, and_at(x, y, 6), and_at(x, y, 7));
        csa(&fours_b, &twos, twos, twos_a, twos_b);
        csa(&eights_a, &fours, fours, fours_a, fours_b);
        csa(&twos_a, &ones, ones, and_at(x, y, 8), and_at(x, y, 9));
        csa(&twos_b, &ones, ones, and_at(x, y, 10), and_at(x, y, 11));
        csa(&fours_a, &twos, twos, twos_a, twos_b);
        csa(&twos_a, &ones, ones, and_at(x, y, 12), and_at(x, y, 13));
        csa(&twos_b, &ones, ones, and_at(x, y, 14), and_at(x, y, 15));
        csa(&fours_b, &twos, twos, twos_a, twos_b);
        csa(&eights_b, &fours, fours, fours_a, fours_b);
        csa(&sixteens, &eights, eights, eights_a, eights_b);
        total = add_popcount(total, sixteens);
    }
    total = _mm256_slli_epi64(total, 4);
    __m256i low = _mm256_setzero_si256();
    low = add_popcount(low, eights);
    low = _mm256_add_epi64(low, low);
    low = add_popcount(low, fours);
    low = _mm256_add_epi64(low, low);
    low = add_popcount(low, twos);
    low = _mm256_add_epi64(low, low);
    low = add_popcount(low, ones);
    total = _mm256_add_epi64(total, low);
    for (; i < vectors; ++i) total = add_popcount(total, and_at(pa, pb, i));
    const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(total), _mm256_extracti128_si256(total, 1));
    return static_cast<std::uint64_t>(_mm_cvtsi128_si64(s) + _mm_extract_epi64(s, 1));
}

// Positions as u16 plus a base, widened: 16 a step, then 4, then one at a time (nothing read
// or written past n; the input may be a positions payload at any alignment).
void widen_positions64(const void* in, std::uint32_t n, std::uint64_t base, std::uint64_t* out) {
    const auto* p = static_cast<const unsigned char*>(in);
    const __m256i b = _mm256_set1_epi64x(static_cast<long long>(base));
    auto* o = reinterpret_cast<__m256i*>(out);
    std::uint32_t k = 0;
    for (; k + 16 <= n; k += 16) {
        const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * k));
        const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * k + 16));
        _mm256_storeu_si256(o + k / 4, _mm256_add_epi64(_mm256_cvtepu16_epi64(lo), b));
        _mm256_storeu_si256(o + k / 4 + 1, _mm256_add_epi64(_mm256_cvtepu16_epi64(_mm_srli_si128(lo, 8)), b));
        _mm256_storeu_si256(o + k / 4 + 2, _mm256_add_epi64(_mm256_cvtepu16_epi64(hi), b));
        _mm256_storeu_si256(o + k / 4 + 3, _mm256_add_epi64(_mm256_cvtepu16_epi64(_mm_srli_si128(hi, 8)), b));
    }
    for (; k + 4 <= n; k += 4) {
        const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 2 * k));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k), _mm256_add_epi64(_mm256_cvtepu16_epi64(v), b));
    }
    for (; k < n; ++k) out[k] = base + (static_cast<std::uint32_t>(p[2 * k]) | static_cast<std::uint32_t>(p[2 * k + 1]) << 8);
}

void widen_positions32(const void* in, std::uint32_t n, std::uint32_t base, std::uint32_t* out) {
    const auto* p = static_cast<const unsigned char*>(in);
    const __m256i b = _mm256_set1_epi32(static_cast<int>(base));
    std::uint32_t k = 0;
    for (; k + 16 <= n; k += 16) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 2 * k));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k),
                            _mm256_add_epi32(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(v)), b));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k + 8),
                            _mm256_add_epi32(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(v, 1)), b));
    }
    for (; k + 8 <= n; k += 8) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * k));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k), _mm256_add_epi32(_mm256_cvtepu16_epi32(v), b));
    }
    for (; k < n; ++k) out[k] = base + (static_cast<std::uint32_t>(p[2 * k]) | static_cast<std::uint32_t>(p[2 * k + 1]) << 8);
}

void ramp64(std::uint64_t start, std::uint32_t n, std::uint64_t* out) {
    __m256i v = _mm256_add_epi64(_mm256_set1_epi64x(static_cast<long long>(start)), _mm256_setr_epi64x(0, 1, 2, 3));
    const __m256i four = _mm256_set1_epi64x(4), sixteen = _mm256_set1_epi64x(16);
    std::uint32_t k = 0;
    for (; k + 16 <= n; k += 16) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k), v);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k + 4), _mm256_add_epi64(v, four));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k + 8), _mm256_add_epi64(v, _mm256_set1_epi64x(8)));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k + 12), _mm256_add_epi64(v, _mm256_set1_epi64x(12)));
        v = _mm256_add_epi64(v, sixteen);
    }
    for (; k + 4 <= n; k += 4) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k), v);
        v = _mm256_add_epi64(v, four);
    }
    for (; k < n; ++k) out[k] = start + k;
}

void ramp32(std::uint32_t start, std::uint32_t n, std::uint32_t* out) {
    __m256i v = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(start)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const __m256i eight = _mm256_set1_epi32(8), sixteen = _mm256_set1_epi32(16);
    std::uint32_t k = 0;
    for (; k + 16 <= n; k += 16) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k), v);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k + 8), _mm256_add_epi32(v, eight));
        v = _mm256_add_epi32(v, sixteen);
    }
    for (; k + 8 <= n; k += 8) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k), v);
        v = _mm256_add_epi32(v, eight);
    }
    for (; k < n; ++k) out[k] = start + k;
}

// A part of a raw payload to positions, as extract_positions: a mask of the non-zero bytes,
// then a table row per non-zero byte.
std::uint32_t extract_bits(const std::byte* bytes, std::uint32_t n, std::uint32_t first, std::uint16_t* out) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes);
    std::uint32_t nonzero;
    if (n == 32) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
        nonzero = ~static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_setzero_si256())));
    } else {
        nonzero = 0;
        for (std::uint32_t i = 0; i < n; ++i) nonzero |= static_cast<std::uint32_t>(p[i] != 0) << i;
    }
    std::uint32_t k = 0;
    const __m128i offset = _mm_set1_epi16(static_cast<short>(first));
    for (; nonzero != 0; nonzero &= nonzero - 1) {
        const auto at = static_cast<unsigned>(__builtin_ctz(nonzero));
        const unsigned value = p[at];
        const __m128i positions =
            _mm_add_epi16(_mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(bit_rows.rows[value].data()))),
                          _mm_add_epi16(offset, _mm_set1_epi16(static_cast<short>(8 * at))));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k), positions);
        k += static_cast<std::uint32_t>(_mm_popcnt_u32(value));
    }
    return k;
}

}  // namespace
// A stretch of raw blocks: per vector the operation, the store and a byte-wise popcount (nibble
// lookup) summed over the block's 8 vectors before one SAD. The transitions need a second
// popcount of p XOR (p << 1); they only matter when they are few (runs can win below
// stretch_runs_never), and every byte that is neither 0x00 nor 0xFF holds at least one, so
// the mixed bytes are counted from the byte popcounts (count not 0 or 8) and the exact count is
// taken (from the block just written, in L1) only for a block with fewer mixed bytes than that
// and enough set bits to be raw.
// op: 0 AND, 1 OR, 2 XOR, 3 AND NOT.
inline __m256i apply_op(int op, __m256i a, __m256i b) {
    switch (op) {
        case 0: return _mm256_and_si256(a, b);
        case 1: return _mm256_or_si256(a, b);
        case 2: return _mm256_xor_si256(a, b);
        default: return _mm256_andnot_si256(b, a);
    }
}

inline std::uint32_t transitions_of_block(const void* p) {
    __m256i trans = _mm256_setzero_si256(), previous = _mm256_setzero_si256();
    for (int i = 0; i < 8; ++i) {
        const __m256i r = load(p, i);
        trans = add_popcount(trans, transitions_of(r, previous));
        previous = r;
    }
    return horizontal_sum(trans);
}

inline void stretch_op(int op, const void* a, const void* b, void* out, std::size_t blocks, block_stats* stats) {
    const __m256i lookup = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,  //
                                            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0F), seven = _mm256_set1_epi8(7), zero = _mm256_setzero_si256();
    const auto* pa = static_cast<const char*>(a);
    const auto* pb = static_cast<const char*>(b);
    auto* po = static_cast<char*>(out);
    for (std::size_t k = 0; k < blocks; ++k, pa += 256, pb += 256, po += 256) {
        __m256i bytes = zero, uniform = zero;
        for (int i = 0; i < 8; ++i) {
            const __m256i r = apply_op(op, load(pa, i), load(pb, i));
            store(po, i, r);
            const __m256i lo = _mm256_and_si256(r, low);
            const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(r, 4), low);
            const __m256i c = _mm256_add_epi8(_mm256_shuffle_epi8(lookup, lo), _mm256_shuffle_epi8(lookup, hi));
            bytes = _mm256_add_epi8(bytes, c);
            // + 1 where the byte is 0x00 or 0xFF
            uniform = _mm256_sub_epi8(uniform, _mm256_cmpeq_epi8(_mm256_and_si256(c, seven), zero));
        }
        const std::uint32_t count = horizontal_sum(_mm256_sad_epu8(bytes, zero));
        const std::uint32_t mixed = 256 - horizontal_sum(_mm256_sad_epu8(uniform, zero));
        stats[k] = {count, mixed >= stretch_runs_never || count < stretch_raw_min ? mixed : transitions_of_block(po)};
    }
}

void and_stretch(const void* a, const void* b, void* out, std::size_t blocks, block_stats* stats) {
    stretch_op(0, a, b, out, blocks, stats);
}
void or_stretch(const void* a, const void* b, void* out, std::size_t blocks, block_stats* stats) {
    stretch_op(1, a, b, out, blocks, stats);
}
void xor_stretch(const void* a, const void* b, void* out, std::size_t blocks, block_stats* stats) {
    stretch_op(2, a, b, out, blocks, stats);
}
void andnot_stretch(const void* a, const void* b, void* out, std::size_t blocks, block_stats* stats) {
    stretch_op(3, a, b, out, blocks, stats);
}

}  // namespace bitplane::detail

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

namespace bitplane::detail {

const bitset_kernel_table& avx2_bitset_kernels() noexcept {
    static constexpr bitset_kernel_table table{.path = simd_path::avx2,
                                               .and_blocks = and_blocks,
                                               .or_blocks = or_blocks,
                                               .xor_blocks = xor_blocks,
                                               .andnot_blocks = andnot_blocks,
                                               .not_block = not_block,
                                               .stats = stats,
                                               .stats_transitions = stats_transitions,
                                               .and_count = and_count,
                                               .union_positions = union_positions,
                                               .xor_positions = xor_positions,
                                               .and_positions = and_positions,
                                               .andnot_positions = andnot_positions,
                                               .extract_positions = extract_positions,
                                               .extract_sparse = extract_positions,
                                               .decode_gaps = decode_gaps,
                                               .and_count_span = and_count_span,
                                               .and_stretch = and_stretch,
                                               .or_stretch = or_stretch,
                                               .xor_stretch = xor_stretch,
                                               .andnot_stretch = andnot_stretch,
                                               .widen_positions64 = widen_positions64,
                                               .widen_positions32 = widen_positions32,
                                               .ramp64 = ramp64,
                                               .ramp32 = ramp32,
                                               .extract_bits = extract_bits};
    return table;
}

}  // namespace bitplane::detail

#endif  // BITPLANE_X86
