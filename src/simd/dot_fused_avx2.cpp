// The AVX2 path's fused dot of two interleaved all-raw blocks (kernel_table::interleaved_dot):
// each column of 32 values is turned from plane words into values in registers and multiplied
// there, so the two payloads stream side by side as in a dense dot loop and no value goes
// through memory (the unfused way transposes both blocks into 8 KiB of values each, then
// multiplies them: three passes).
//
// From planes to values, a byte at a time, two ways:
//   - a column alone (byte_plane, operands of 8 planes together): the words of planes
//     8k..8k+7 of one column, as an 8 x 32 bit matrix, become byte k of the column's 32 values
//     by one byte shuffle, one lane permute and three delta swaps per 64-bit lane (an 8 x 8 bit
//     transpose each): ~20 operations per 8 planes and 32 values, where the movemask way costs
//     32 movemasks per column whatever the width.
//   - a group of 8 columns (operand_reader::group_bytes, every other operand): an 8 x 8
//     transpose of 32-bit words puts each plane's 8 words in one register, then three delta
//     swaps between pairs of registers (half the operations of one inside a register) finish
//     the bit transpose: ~12 operations per 8 planes and 32 values, the group's bytes kept on
//     the stack until their values are multiplied. Kernel alone on cached payloads (TSC per
//     block pair of two k-bit operands, development VM, min of 100 calls of 16 blocks), columns
//     alone -> groups: 8 bits 1867 -> 1201, 12 2374 -> 1990, 15 2773 -> 1783, 16 3736 -> 2117,
//     17 3782 -> 2919, 24 4539 -> 3163, 28 5891 -> 3779, 32 6709 -> 4126.
// Then
//   - narrow operands (every value below 2^15 after its all-one planes, and the base added
//     without wrapping: uniform data up to 15 bits, the common case): bytes 0 and 1 interleave
//     into 16-bit values and pmaddwd multiplies 16 pairs and adds them pairwise. The base
//     (frame of reference) stays outside: sum a b = sum ra rb + bb sum ra + ba sum rb + n ba bb,
//     ra = residual | ones. When both operands' planes fit 8 lanes together (4 x 4 bits), they
//     share one column transpose.
//   - split operands (values of 16 to 24 bits): each value is cut into its low 15 bits and the
//     rest, both below 2^15, and pmaddwd multiplies the four pairs of parts (dot_split): half
//     the unpacks of 32-bit values and no 64-bit product halves. At 17-23 bits the transposes
//     make the cut themselves: their "bytes" are digits of planes 0-7, 8-14 and 15-22.
//   - wide operands (anything else: 25-32 bits, bases that wrap around 2^32): two columns at a
//     time go through a 32 x 32 bit transpose whose byte moves are byte unpacks (pair_values),
//     so each 32-bit lane ends up holding a whole value, multiplied by pmuludq into 64-bit
//     lanes; products of values below 2^bits_a, 2^bits_b with bits_a + bits_b <= 60 are summed
//     as they are and folded into high and low halves every few column pairs, those of 61-63
//     bits (31 x 31, 31 x 32) every 4, 2 or 1 registers of products, and only 32 x 32-bit ones
//     (and signed values biased to 32 bits) have their high halves summed apart. Callgrind, two 64-block uniform columns (stop 32): the
//     wide kernel cost 3.58-3.64M instructions at 25-30 bits where the split one cost
//     3.88-4.22M (3.32-3.37M at 17-24), and 3.55M at 32 bits where group transposes of 4
//     bytes cost 4.09M. Stop 37 (issue #13, dot on the AVX2 path at 17-32 bits), kernel alone on
//     cached payloads, TSC per block pair of two k-bit operands, min of 200 calls of 16 blocks:
//     17-23 bits ~2690 -> ~2480 (digits), 24 2620, 25-30 ~3400 -> ~2700 (folded products,
//     plain loads of full bytes, no zero shifts), 31 3480 -> 3210, 32 3410 -> 2960. Then
//     31 x 31 bits folded every 2 registers (products below 2^62: 4 fit a lane), 7 operations a
//     register where the high halves apart took 10: 31 bits 2965 -> 2765 (min of 200 calls of
//     16, beside 30 bits 2710 and 32 2830 in the same runs); odd halves by dword shuffles
//     (multiply_acc): 25-30 bits ~2650 -> ~2610, 31 2765 -> 2680, 31 x 32 2895 -> 2730.
// Built with -mavx2 -mpopcnt -mbmi2, like kernels_avx2.cpp; the AVX2 table points here, and the
// AVX-512 kernel calls it for operands of up to 16 bits (kernels_avx512.cpp, thresholds::dot_fused_avx2_on_avx512_bits).
#include "simd/dot_fused.hpp"

#include "simd/spread_prefetch.hpp"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#if !defined(__AVX2__)
#error "dot_fused_avx2.cpp must be compiled with -mavx2"
#endif

namespace bitplane::detail {
namespace {

constexpr std::size_t columns = plane_words;  // 64 columns of 32 values
constexpr std::uint32_t narrow_bits = 15;     // pmaddwd multiplies signed 16-bit lanes
constexpr std::uint32_t digit_bits = 23;      // widest values dot_split takes as 3 digits (digit_first)
constexpr std::uint32_t split_bits = 24;      // widest values dot_split takes; above, dot_wide
                                              // (thresholds::dot_fused_avx2_split_bits says why)
constexpr std::uint32_t wide_fold_bits = 60;   // dot_wide's products fold below 2^60 x 16 a pair
constexpr unsigned pair_registers = 8;         // dot_wide's registers of products a column pair
constexpr std::size_t prefetch_every = 8;     // columns per step of the next block's prefetch
constexpr std::size_t group_columns = 8;      // columns transposed together (operand_reader::group_bytes):
                                              // a step of the prefetch too

// The masks of the three delta swaps of an 8 x 8 bit transpose, read from memory as operands
// of the AND: GCC otherwise rebuilds each broadcast constant through a general register
// (three instructions) every time it runs short of vector registers.
alignas(32) constexpr std::uint64_t swap_masks[3][4] = {
    {0x00AA00AA00AA00AAull, 0x00AA00AA00AA00AAull, 0x00AA00AA00AA00AAull, 0x00AA00AA00AA00AAull},
    {0x0000CCCC0000CCCCull, 0x0000CCCC0000CCCCull, 0x0000CCCC0000CCCCull, 0x0000CCCC0000CCCCull},
    {0x00000000F0F0F0F0ull, 0x00000000F0F0F0F0ull, 0x00000000F0F0F0F0ull, 0x00000000F0F0F0F0ull}};

// swap_masks as vectors, its address hidden from the optimizer once per kernel call: the
// transposes then AND with memory operands (GCC otherwise rebuilds each broadcast constant
// through a general register, three instructions, every time it runs short of vector
// registers; hiding the address at every use costs an address computation per swap).
inline const __m256i* swap_mask_rows() noexcept {
    const auto* where = reinterpret_cast<const __m256i*>(swap_masks);
    asm("" : "+r"(where));
    return where;
}

// Swaps the bits of x at the set bits of masks[R] with those S places up (a delta swap).
template <int S, int R>
[[gnu::always_inline]] inline __m256i delta_swap(__m256i x, const __m256i* masks) noexcept {
    const __m256i mask = _mm256_load_si256(masks + R);
    const __m256i t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64(x, S)), mask);
    return _mm256_xor_si256(_mm256_xor_si256(x, t), _mm256_slli_epi64(t, S));
}

// Lane i = word of plane 8k + i of one column (zero where absent) -> byte v = byte k of value
// v of the column.
[[gnu::always_inline]] inline __m256i byte_plane(__m256i words, const __m256i* masks) noexcept {
    const __m256i by_byte = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,  //
                                             0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m256i join = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    // Qword m: byte m of words 0..7, an 8 x 8 bit matrix whose row r (byte r) is plane r's
    // bits of values 8m..8m+7.
    __m256i x = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(words, by_byte), join);
    // Transposed (bit b of byte r <-> bit r of byte b; Hacker's Delight, 7-3): byte b of
    // qword m is value 8m + b's byte.
    x = delta_swap<7, 0>(x, masks);
    x = delta_swap<14, 1>(x, masks);
    return delta_swap<28, 2>(x, masks);
}

// Swaps bit s of the register index with bit s of every byte, for the 8 registers r[0..7]
// (s = 1, 2, 4; `low`: the bits of each byte whose bit s is clear): a delta swap between
// each pair of registers whose indexes differ in bit s.
template <unsigned S>
[[gnu::always_inline]] inline void swap_registers(__m256i (&r)[8], __m256i low) noexcept {
#pragma GCC unroll 8
    for (unsigned i = 0; i < 8; ++i) {
        if ((i & S) != 0) continue;
        const __m256i t = _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi64(r[i], S), r[i + S]), low);
        r[i + S] = _mm256_xor_si256(r[i + S], t);
        r[i] = _mm256_xor_si256(r[i], _mm256_slli_epi64(t, S));
    }
}

// The bit transpose of a group (operand_reader::group_bytes): r[c] lane j = plane 8k + j's
// word of column c (8 columns) -> byte b of r[i] = byte k of one value of the group, in an
// order that depends on nothing but the position.
[[gnu::always_inline]] inline void transpose_group(__m256i (&r)[8]) noexcept {
    // r[c] lane j = plane j's word of column c -> r[j] lane c (in some lane order: the
    // same for every call).
    __m256i t[8];
#pragma GCC unroll 4
    for (unsigned c = 0; c < 8; c += 2) {
        t[c] = _mm256_unpacklo_epi32(r[c], r[c + 1]);
        t[c + 1] = _mm256_unpackhi_epi32(r[c], r[c + 1]);
    }
    // t[2m] = planes 0,1 / 4,5 of columns 2m, 2m+1 (by 128-bit half), t[2m+1] planes 2,3 / 6,7
    const __m256i u0 = _mm256_unpacklo_epi64(t[0], t[2]);  // planes 0 | 4 of columns 0..3
    const __m256i u1 = _mm256_unpackhi_epi64(t[0], t[2]);  // planes 1 | 5
    const __m256i u2 = _mm256_unpacklo_epi64(t[1], t[3]);  // planes 2 | 6
    const __m256i u3 = _mm256_unpackhi_epi64(t[1], t[3]);  // planes 3 | 7
    const __m256i u4 = _mm256_unpacklo_epi64(t[4], t[6]);  // the same of columns 4..7
    const __m256i u5 = _mm256_unpackhi_epi64(t[4], t[6]);
    const __m256i u6 = _mm256_unpacklo_epi64(t[5], t[7]);
    const __m256i u7 = _mm256_unpackhi_epi64(t[5], t[7]);
    r[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
    r[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
    r[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
    r[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
    r[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
    r[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
    r[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
    r[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
    // r[j] = plane 8k + j. Swap register bit s with bit s of each byte: afterwards bit j of
    // byte b of r[i] is plane 8k + j of the value with bits s of i where the plane's were.
    swap_registers<1>(r, _mm256_set1_epi8(0x55));
    swap_registers<2>(r, _mm256_set1_epi8(0x33));
    swap_registers<4>(r, _mm256_set1_epi8(0x0F));
}

// The split kernel's digits of a value below 2^30: planes 0-7, 8-14, 15-22, 23-29, so that
// digits 0 and 1 side by side in a 16-bit lane are the value's low 15 bits and digits 2 and 3 the
// rest (dot_split with Digits).
constexpr unsigned digit_first[4] = {0, 8, 15, 23};
constexpr unsigned digit_planes[4] = {8, 7, 8, 7};

// One operand's columns. A column is `stored` little-endian words, one per live plane in plane
// order; the live planes of byte k (planes 8k..8k+7) are consecutive there. They are loaded
// with a lane mask (so nothing past the payload is read) and, unless the live planes are
// 0..stored-1 (uniform data: already in their lanes), permuted to their planes' lanes.
struct operand_reader {
    const std::uint8_t* payload;
    std::size_t column_bytes;
    bool placed;
    std::uint32_t present = 0;  // bit k: byte k has a live plane
    std::uint32_t full = 0;     // bit k: all 8 planes of byte k are live (a plain load, in place)
    std::size_t offset[4] = {};
    __m256i load_mask[4];
    __m256i place[4];
    __m256i ones[4];  // byte k of the all-one planes, in every byte

    // With Digits, "byte" k is planes digit_first[k] .. +
    // digit_planes[k] - 1 instead of 8k..8k+7: the split kernel's 15-bit halves straight from
    // the transposes.
    // (A template: the byte layout's constants stay constants, ~80 instructions a block pair.)
    template <bool Digits = false>
    explicit operand_reader(const interleaved_operand& op, std::bool_constant<Digits> = {}) noexcept
        : payload(op.payload),
          column_bytes(4 * static_cast<std::size_t>(std::popcount(op.live))),
          placed((op.live & (op.live + 1)) == 0) {
#pragma GCC unroll 4
        for (unsigned k = 0; k < 4; ++k) {
            const unsigned first = Digits ? digit_first[k] : 8 * k;
            const std::uint32_t planes = (std::uint32_t{1} << (Digits ? digit_planes[k] : 8)) - 1u;
            const std::uint32_t in_byte = (op.live >> first) & planes;
            const auto n = static_cast<std::uint32_t>(std::popcount(in_byte));
            const auto rank = static_cast<std::uint32_t>(std::popcount(op.live & ((std::uint32_t{1} << first) - 1u)));
            if (n != 0) present |= 1u << k;
            if (n == 8) full |= 1u << k;
            offset[k] = 4 * std::size_t{rank};
            // Built in registers: 8 words stored and loaded back as a vector stall on store
            // forwarding, ~10% of a narrow block pair when every block built its readers so.
            const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            load_mask[k] = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), lane);
            // Planes 8k..8k+n-1 (or none): lane i takes lane min(i, n). Read by the permutes
            // whenever either operand of a dot is unplaced.
            place[k] = _mm256_min_epu32(lane, _mm256_set1_epi32(static_cast<int>(n)));
            if ((in_byte & (in_byte + 1)) != 0) {
                alignas(32) std::int32_t index[8];
                for (std::uint32_t i = 0; i < 8; ++i) {
                    // A lane whose plane is not live takes lane n, which the masked load zeroed
                    // (n < 8 whenever some plane of the byte is not live).
                    index[i] = static_cast<std::int32_t>(((in_byte >> i) & 1u) != 0 ? std::popcount(in_byte & ((1u << i) - 1u)) : n);
                }
                place[k] = _mm256_load_si256(reinterpret_cast<const __m256i*>(index));
            }
            ones[k] = _mm256_set1_epi8(static_cast<char>((op.ones >> first) & planes));
        }
    }

    // Byte k of the values r | ones of the 8 columns from `first` (a group), into out[0..7]
    // in group order: out[i] holds the values v = 8h + i of the group's columns (byte 4c + h:
    // column c, h = 0..3). The order depends on nothing but the position, the same for every
    // byte and both operands, which is all a dot product needs.
    //
    // 8 columns at once make the bit transpose cheaper than 8 column transposes (byte_plane):
    // an 8 x 8 transpose of 32-bit words puts plane 8k + j of the 8 columns into register j;
    // then three delta swaps between pairs of registers (3 operations a register each, where
    // a swap inside a register takes 6) exchange the register index (plane) with the bit in
    // the byte (value mod 8): ~12 operations a register and a store, against ~21 for
    // byte_plane; cheap enough that bytes of 1-4 live planes no longer need a way of their
    // own (the column way spread them plane by plane, ~5 operations a plane). A byte of 8
    // live planes is in its lanes whatever `placed` says, and has no all-one plane.
    template <bool Placed>
    [[gnu::always_inline]] void group_bytes(const std::uint8_t* first, unsigned k, __m256i* out) const noexcept {
        if (((present >> k) & 1u) == 0) {
            for (unsigned i = 0; i < 8; ++i) out[i] = ones[k];
            return;
        }
        const std::uint8_t* at = first + offset[k];
        const bool whole = ((full >> k) & 1u) != 0;
        __m256i r[8];
#pragma GCC unroll 8
        for (unsigned c = 0; c < 8; ++c, at += column_bytes) {
            if (whole) {
                r[c] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
            } else {
                r[c] = _mm256_maskload_epi32(reinterpret_cast<const int*>(at), load_mask[k]);
                if constexpr (!Placed) r[c] = _mm256_permutevar8x32_epi32(r[c], place[k]);
            }
        }
        transpose_group(r);
        if (whole) {
            for (unsigned i = 0; i < 8; ++i) out[i] = r[i];
        } else {
            for (unsigned i = 0; i < 8; ++i) out[i] = _mm256_or_si256(r[i], ones[k]);
        }
    }
};

std::uint64_t lane_total(__m256i v) noexcept {
    const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return static_cast<std::uint64_t>(_mm_cvtsi128_si64(s)) + static_cast<std::uint64_t>(_mm_extract_epi64(s, 1));
}

// Per 64-bit lane, the sum of the 16-bit values whose low bytes are in `lo` and high bytes in `hi`.
inline __m256i sum_byte_pairs(__m256i lo, __m256i hi) noexcept {
    const __m256i zero = _mm256_setzero_si256();
    return _mm256_add_epi64(_mm256_sad_epu8(lo, zero), _mm256_slli_epi64(_mm256_sad_epu8(hi, zero), 8));
}

// One column of 16-bit products x . y (pmaddwd) into the 32-bit lanes of `acc`, which move into
// the 64-bit lanes of `products` after every `flush`-th column (a power of 2; `column` counts
// from 0), before they can overflow (the kernels' exactness notes say why `flush` suffices).
inline void accumulate_column(__m256i& acc, __m256i& products, __m256i x0, __m256i x1, __m256i y0, __m256i y1,
                              std::size_t column, std::size_t flush) noexcept {
    acc = _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(x0, y0), _mm256_madd_epi16(x1, y1)));
    if (((column + 1) & (flush - 1)) == 0) {
        const __m256i low = _mm256_set1_epi64x(0xFFFFFFFFll);
        products = _mm256_add_epi64(products, _mm256_add_epi64(_mm256_and_si256(acc, low), _mm256_srli_epi64(acc, 32)));
        acc = _mm256_setzero_si256();
    }
}

// ---- narrow: values below 2^15, 16-bit products --------------------------------------------
//
// Exactness: a 32-bit lane of pmaddwd's result holds two products below 2^(wa + wb) (at most
// 2^31 - 2^17 + 2: a signed lane cannot overflow); a column adds 4 products to each lane of
// `acc`, which is widened into 64-bit lanes every `flush` columns, before 4 flush products can
// pass 2^32.
__extension__ typedef unsigned __int128 wide;
__extension__ typedef __int128 signed_wide;

struct narrow_sums {
    wide products = 0;        // sum of ra rb
    std::uint64_t sum_a = 0;  // sum of ra (when asked for)
    std::uint64_t sum_b = 0;
};

// The walk of the narrow and split kernels: the columns a group of 8 at a time, each group's
// bytes 0..Bytes-1 of both operands read (operand_reader::group_bytes; b's not, where Same: b is
// a) after the next spread is prefetched; body(ga, gb, c0) with the group's first column c0.
template <bool Placed, bool Same, unsigned Bytes, class Body>
[[gnu::always_inline]] inline void for_each_group(const operand_reader& a, const operand_reader& b,
                                                  spread_prefetch& ahead_a, spread_prefetch& ahead_b,
                                                  Body&& body) noexcept {
    const std::size_t step_a = group_columns * a.column_bytes;
    const std::size_t step_b = group_columns * b.column_bytes;
    const std::uint8_t* pa = a.payload;
    const std::uint8_t* pb = b.payload;
    __m256i ga[4][8];  // the group's bytes (group_bytes order)
    __m256i gb[4][8];
    for (std::size_t c0 = 0; c0 < columns; c0 += group_columns, pa += step_a, pb += step_b) {
        ahead_a.step();
        ahead_b.step();
#pragma GCC unroll 4
        for (unsigned k = 0; k < Bytes; ++k) {
            a.template group_bytes<Placed>(pa, k, ga[k]);
            if constexpr (!Same) b.template group_bytes<Placed>(pb, k, gb[k]);
        }
        body(ga, gb, c0);
    }
}

template <bool Placed, bool Same, bool Sums>
narrow_sums dot_narrow(const operand_reader& a, const operand_reader& b, std::size_t flush, spread_prefetch& ahead_a,
                       spread_prefetch& ahead_b) noexcept {
    const __m256i zero = _mm256_setzero_si256();
    __m256i products = zero;
    __m256i sum_a = zero;
    __m256i sum_b = zero;
    __m256i acc = zero;
    for_each_group<Placed, Same, 2>(a, b, ahead_a, ahead_b, [&](const __m256i(&ga)[4][8], const __m256i(&gb)[4][8],
                                                              std::size_t c0) {
        // Each step takes 32 values of each operand, as a column would (the flush counts).
        for (std::size_t i = 0; i < group_columns; ++i) {
            const __m256i a0 = ga[0][i];
            const __m256i a1 = ga[1][i];
            const __m256i x0 = _mm256_unpacklo_epi8(a0, a1);
            const __m256i x1 = _mm256_unpackhi_epi8(a0, a1);
            __m256i y0 = x0;
            __m256i y1 = x1;
            if constexpr (!Same) {
                const __m256i b0 = gb[0][i];
                const __m256i b1 = gb[1][i];
                y0 = _mm256_unpacklo_epi8(b0, b1);
                y1 = _mm256_unpackhi_epi8(b0, b1);
                if constexpr (Sums) sum_b = _mm256_add_epi64(sum_b, sum_byte_pairs(b0, b1));
            }
            if constexpr (Sums) sum_a = _mm256_add_epi64(sum_a, sum_byte_pairs(a0, a1));
            accumulate_column(acc, products, x0, x1, y0, y1, c0 + i, flush);
        }
    });
    narrow_sums s;
    s.products = lane_total(products);
    if constexpr (Sums) {
        s.sum_a = lane_total(sum_a);
        s.sum_b = Same ? s.sum_a : lane_total(sum_b);
    }
    return s;
}

// ---- split: values of 16 to 30 bits, 16-bit products ------------------------------------------
//
// A value x below 2^30 is split into its low 15 bits l and the rest u = x >> 15 (below 2^15),
// which pmaddwd multiplies as it does narrow values:
//   x y = lx ly + 2^15 (ux ly + lx uy) + 2^30 ux uy.
// Bytes 0 and 1 interleave into 16-bit lanes (l: their low 15 bits), bytes 2 and 3 into h, and
// u = (bytes 0..1 >> 15) | 2 h. Values of 16 bits (`Hi` false) have no h: u is their top bit.
// This takes half the unpacks of 32-bit values and no 64-bit product halves: the wide kernel
// below is left to values of 31 and 32 bits and to bases that wrap.
//
// Exactness: every pmaddwd lane adds two products below 2^30 (lower than 2^31: no signed
// overflow). Four 32-bit accumulators (ll, ux ly, lx uy, uu) get 4 products a column per
// lane and are widened into 64-bit lanes every 2^(30 - bits) columns, bits = the widths of
// the product's two factors (`flush_low` for ll, `flush_high` for the other three), before
// they can pass 2^32. The three sums each stay below 2^43 a block; the result is 128-bit.
struct split_flush {
    std::size_t low_mask;   // flush ll after column c when (c + 1) & low_mask == 0
    std::size_t high_mask;  // the three others
};

[[gnu::always_inline]] inline __m256i widen(__m256i sum, __m256i acc, __m256i low) noexcept {
    return _mm256_add_epi64(sum, _mm256_add_epi64(_mm256_and_si256(acc, low), _mm256_srli_epi64(acc, 32)));
}

// The 16-bit lanes l and u of 32 values from their bytes b0..b3 (b2, b3 only if Hi), and
// (Sums) the values' sum added to `sum`.
template <bool Hi, bool Sums>
[[gnu::always_inline]] inline void split_bytes(__m256i b0, __m256i b1, __m256i b2, __m256i b3, __m256i (&l)[2],
                                               __m256i (&u)[2], __m256i& sum) noexcept {
    const __m256i low15 = _mm256_set1_epi16(0x7FFF);
    // Values of bytes 0..7 and 16..23, then 8..15 and 24..31: the same order for both operands.
    const __m256i x0 = _mm256_unpacklo_epi8(b0, b1);
    const __m256i x1 = _mm256_unpackhi_epi8(b0, b1);
    l[0] = _mm256_and_si256(x0, low15);
    l[1] = _mm256_and_si256(x1, low15);
    u[0] = _mm256_srli_epi16(x0, 15);
    u[1] = _mm256_srli_epi16(x1, 15);
    if constexpr (Hi) {
        const __m256i h0 = _mm256_unpacklo_epi8(b2, b3);
        const __m256i h1 = _mm256_unpackhi_epi8(b2, b3);
        u[0] = _mm256_or_si256(u[0], _mm256_add_epi16(h0, h0));
        u[1] = _mm256_or_si256(u[1], _mm256_add_epi16(h1, h1));
    }
    if constexpr (Sums) {
        const __m256i zero = _mm256_setzero_si256();
        __m256i s = sum_byte_pairs(b0, b1);
        if constexpr (Hi) {
            s = _mm256_add_epi64(s, _mm256_add_epi64(_mm256_slli_epi64(_mm256_sad_epu8(b2, zero), 16),
                                                     _mm256_slli_epi64(_mm256_sad_epu8(b3, zero), 24)));
        }
        sum = _mm256_add_epi64(sum, s);
    }
}

// The same from digits d0..d2 (readers made with Digits: values below 2^23): l is digits 0 and
// 1 side by side, u digit 2, as they come (4 operations where split_bytes takes 14: the
// transposes did the split).
template <bool Sums>
[[gnu::always_inline]] inline void split_digits(__m256i d0, __m256i d1, __m256i d2, __m256i (&l)[2], __m256i (&u)[2],
                                                __m256i& sum) noexcept {
    const __m256i zero = _mm256_setzero_si256();
    l[0] = _mm256_unpacklo_epi8(d0, d1);
    l[1] = _mm256_unpackhi_epi8(d0, d1);
    u[0] = _mm256_unpacklo_epi8(d2, zero);
    u[1] = _mm256_unpackhi_epi8(d2, zero);
    if constexpr (Sums) {
        sum = _mm256_add_epi64(sum, _mm256_add_epi64(_mm256_add_epi64(_mm256_sad_epu8(d0, zero),
                                                                      _mm256_slli_epi64(_mm256_sad_epu8(d1, zero), 8)),
                                                     _mm256_slli_epi64(_mm256_sad_epu8(d2, zero), 15)));
    }
}

// Digits: both readers made with Digits, values of at most digit_bits (Hi unused).
template <bool Placed, bool Same, bool Sums, bool Hi, bool Digits>
narrow_sums dot_split(const operand_reader& a, const operand_reader& b, split_flush flush, spread_prefetch& ahead_a,
                      spread_prefetch& ahead_b) noexcept {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i low = _mm256_set1_epi64x(0xFFFFFFFFll);
    constexpr unsigned bytes = Digits ? 3 : Hi ? 4 : 2;
    __m256i ll = zero;  // 32-bit accumulators
    __m256i ul = zero;
    __m256i lu = zero;
    __m256i uu = zero;
    __m256i sum_ll = zero;  // 64-bit lanes
    __m256i sum_cross = zero;
    __m256i sum_uu = zero;
    __m256i sum_a = zero;
    __m256i sum_b = zero;
    for_each_group<Placed, Same, bytes>(a, b, ahead_a, ahead_b, [&](const __m256i(&ga)[4][8], const __m256i(&gb)[4][8],
                                                              std::size_t c0) {
        // Each step takes 32 values of each operand, as a column would (the flush counts).
        for (std::size_t i = 0; i < group_columns; ++i) {
            const std::size_t c = c0 + i;
            __m256i lx[2];
            __m256i ux[2];
            if constexpr (Digits) {
                split_digits<Sums>(ga[0][i], ga[1][i], ga[2][i], lx, ux, sum_a);
            } else {
                split_bytes<Hi, Sums>(ga[0][i], ga[1][i], Hi ? ga[2][i] : zero, Hi ? ga[3][i] : zero, lx, ux, sum_a);
            }
            if constexpr (Same) {
                ll = _mm256_add_epi32(ll, _mm256_add_epi32(_mm256_madd_epi16(lx[0], lx[0]), _mm256_madd_epi16(lx[1], lx[1])));
                ul = _mm256_add_epi32(ul, _mm256_add_epi32(_mm256_madd_epi16(ux[0], lx[0]), _mm256_madd_epi16(ux[1], lx[1])));
                uu = _mm256_add_epi32(uu, _mm256_add_epi32(_mm256_madd_epi16(ux[0], ux[0]), _mm256_madd_epi16(ux[1], ux[1])));
            } else {
                __m256i ly[2];
                __m256i uy[2];
                if constexpr (Digits) {
                    split_digits<Sums>(gb[0][i], gb[1][i], gb[2][i], ly, uy, sum_b);
                } else {
                    split_bytes<Hi, Sums>(gb[0][i], gb[1][i], Hi ? gb[2][i] : zero, Hi ? gb[3][i] : zero, ly, uy, sum_b);
                }
                ll = _mm256_add_epi32(ll, _mm256_add_epi32(_mm256_madd_epi16(lx[0], ly[0]), _mm256_madd_epi16(lx[1], ly[1])));
                ul = _mm256_add_epi32(ul, _mm256_add_epi32(_mm256_madd_epi16(ux[0], ly[0]), _mm256_madd_epi16(ux[1], ly[1])));
                lu = _mm256_add_epi32(lu, _mm256_add_epi32(_mm256_madd_epi16(lx[0], uy[0]), _mm256_madd_epi16(lx[1], uy[1])));
                uu = _mm256_add_epi32(uu, _mm256_add_epi32(_mm256_madd_epi16(ux[0], uy[0]), _mm256_madd_epi16(ux[1], uy[1])));
            }
            if (((c + 1) & flush.low_mask) == 0) {
                sum_ll = widen(sum_ll, ll, low);
                ll = zero;
            }
            if (((c + 1) & flush.high_mask) == 0) {
                sum_cross = widen(widen(sum_cross, ul, low), lu, low);
                sum_uu = widen(sum_uu, uu, low);
                ul = lu = uu = zero;
            }
        }
    });
    narrow_sums s;
    const wide cross = Same ? 2 * wide{lane_total(sum_cross)} : wide{lane_total(sum_cross)};
    s.products = wide{lane_total(sum_ll)} + (cross << 15) + (wide{lane_total(sum_uu)} << 30);
    if constexpr (Sums) {
        s.sum_a = lane_total(sum_a);
        s.sum_b = Same ? s.sum_a : lane_total(sum_b);
    }
    return s;
}

// Operands below 8 bits whose planes share one transpose: with planes 0..w-1 stored and no
// all-one planes, when w_a + w_b <= 8 both go through one column transpose (byte_plane; A's in
// bits 0..w_a-1 of each byte, B's above): 4 x 4 bits take 1 per column where two group
// transposes (dot_narrow) cost more. Wider operands take the group transposes: a 10 x 3-bit dot
// shared the top planes beside 10-bit A's own byte (2 column transposes per column) until
// group transposes made 3 of theirs cheaper.
struct shared_layout {
    const std::uint8_t* pa;
    const std::uint8_t* pb;
    std::size_t column_a;  // bytes of a column
    std::size_t column_b;
    unsigned width_a;
    unsigned width_b;
};

// The address `offset` bytes from p (possibly before p: only the lanes a mask keeps are read).
inline const int* lanes_at(const std::uint8_t* p, std::ptrdiff_t offset) noexcept {
    return reinterpret_cast<const int*>(reinterpret_cast<std::uintptr_t>(p) + static_cast<std::uintptr_t>(offset));
}

template <bool Sums>
narrow_sums dot_narrow_shared(const shared_layout& l, std::size_t flush, spread_prefetch& ahead_a,
                              spread_prefetch& ahead_b) noexcept {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i low = _mm256_set1_epi64x(0xFFFFFFFFll);
    const __m256i* masks = swap_mask_rows();
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const auto la = static_cast<int>(l.width_a);
    const auto lb = static_cast<int>(l.width_b);
    const __m256i mask_a = _mm256_cmpgt_epi32(_mm256_set1_epi32(la), lane);
    const __m256i mask_b = _mm256_andnot_si256(mask_a, _mm256_cmpgt_epi32(_mm256_set1_epi32(la + lb), lane));
    const __m256i keep_a = _mm256_set1_epi8(static_cast<char>((1u << la) - 1u));
    const __m256i keep_b = _mm256_set1_epi8(static_cast<char>((1u << lb) - 1u));
    const __m128i shift_b = _mm_cvtsi32_si128(la);
    const std::ptrdiff_t planes_at_b = -4 * std::ptrdiff_t{la};  // B's first plane in lane la
    __m256i products = zero;
    __m256i sum_a = zero;
    __m256i sum_b = zero;
    const std::uint8_t* pa = l.pa;
    const std::uint8_t* pb = l.pb;
    for (std::size_t c0 = 0; c0 < columns; c0 += flush) {
        __m256i acc = zero;
        for (std::size_t c = c0; c < c0 + flush; ++c, pa += l.column_a, pb += l.column_b) {
            if (c % prefetch_every == 0) {
                ahead_a.step();
                ahead_b.step();
            }
            const __m256i t = byte_plane(_mm256_or_si256(_mm256_maskload_epi32(lanes_at(pa, 0), mask_a),
                                                         _mm256_maskload_epi32(lanes_at(pb, planes_at_b), mask_b)),
                                          masks);
            const __m256i a0 = _mm256_and_si256(t, keep_a);
            const __m256i b0 = _mm256_and_si256(_mm256_srl_epi16(t, shift_b), keep_b);
            const __m256i x0 = _mm256_unpacklo_epi8(a0, zero);
            const __m256i x1 = _mm256_unpackhi_epi8(a0, zero);
            const __m256i y0 = _mm256_unpacklo_epi8(b0, zero);
            const __m256i y1 = _mm256_unpackhi_epi8(b0, zero);
            if constexpr (Sums) {
                sum_a = _mm256_add_epi64(sum_a, _mm256_sad_epu8(a0, zero));
                sum_b = _mm256_add_epi64(sum_b, _mm256_sad_epu8(b0, zero));
            }
            acc = _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(x0, y0), _mm256_madd_epi16(x1, y1)));
        }
        products = _mm256_add_epi64(products, _mm256_add_epi64(_mm256_and_si256(acc, low), _mm256_srli_epi64(acc, 32)));
    }
    narrow_sums s;
    s.products = lane_total(products);
    if constexpr (Sums) {
        s.sum_a = lane_total(sum_a);
        s.sum_b = lane_total(sum_b);
    }
    return s;
}

// A narrow operand of 9 to 15 planes 0..w-1 against one of at most 8 - (w - 8) planes (the
// demo's 10 x 3 bits): the wide one's top byte and the narrow one's planes share one group
// transpose (its planes 8.. in lanes 0..top-1, the other's above), so the pair costs two group
// transposes where it took three; its byte 0 goes through group_bytes alone. No all-one planes.
template <bool Sums>
narrow_sums dot_narrow_top(const operand_reader& a, const operand_reader& b, unsigned top_a, unsigned width_b,
                           std::size_t flush, spread_prefetch& ahead_a, spread_prefetch& ahead_b) noexcept {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const auto ta = static_cast<int>(top_a);
    const auto wb = static_cast<int>(width_b);
    const __m256i mask_a = _mm256_cmpgt_epi32(_mm256_set1_epi32(ta), lane);
    const __m256i mask_b = _mm256_andnot_si256(mask_a, _mm256_cmpgt_epi32(_mm256_set1_epi32(ta + wb), lane));
    const __m256i keep_a = _mm256_set1_epi8(static_cast<char>((1u << ta) - 1u));
    const __m256i keep_b = _mm256_set1_epi8(static_cast<char>((1u << wb) - 1u));
    const __m128i shift_b = _mm_cvtsi32_si128(ta);
    const std::ptrdiff_t planes_at_b = -4 * std::ptrdiff_t{ta};  // b's first plane in lane top_a
    const std::size_t step_a = group_columns * a.column_bytes;
    const std::size_t step_b = group_columns * b.column_bytes;
    const std::uint8_t* pa = a.payload;
    const std::uint8_t* pb = b.payload;
    __m256i products = zero;
    __m256i sum_a = zero;
    __m256i sum_b = zero;
    __m256i acc = zero;
    __m256i ga[8];  // a's byte 0 (group_bytes order)
    __m256i g[8];   // a's byte 1 and b's byte 0
    for (std::size_t c0 = 0; c0 < columns; c0 += group_columns, pa += step_a, pb += step_b) {
        ahead_a.step();
        ahead_b.step();
        a.template group_bytes<true>(pa, 0, ga);
#pragma GCC unroll 8
        for (unsigned c = 0; c < 8; ++c) {
            g[c] = _mm256_or_si256(_mm256_maskload_epi32(lanes_at(pa + 32 + c * a.column_bytes, 0), mask_a),
                                   _mm256_maskload_epi32(lanes_at(pb + c * b.column_bytes, planes_at_b), mask_b));
        }
        transpose_group(g);
        for (std::size_t i = 0; i < group_columns; ++i) {
            const __m256i a0 = ga[i];
            const __m256i a1 = _mm256_and_si256(g[i], keep_a);
            const __m256i b0 = _mm256_and_si256(_mm256_srl_epi16(g[i], shift_b), keep_b);
            const __m256i x0 = _mm256_unpacklo_epi8(a0, a1);
            const __m256i x1 = _mm256_unpackhi_epi8(a0, a1);
            const __m256i y0 = _mm256_unpacklo_epi8(b0, zero);
            const __m256i y1 = _mm256_unpackhi_epi8(b0, zero);
            if constexpr (Sums) {
                sum_a = _mm256_add_epi64(sum_a, sum_byte_pairs(a0, a1));
                sum_b = _mm256_add_epi64(sum_b, _mm256_sad_epu8(b0, zero));
            }
            accumulate_column(acc, products, x0, x1, y0, y1, c0 + i, flush);
        }
    }
    narrow_sums s;
    s.products = lane_total(products);
    if constexpr (Sums) {
        s.sum_a = lane_total(sum_a);
        s.sum_b = lane_total(sum_b);
    }
    return s;
}

// ---- wide: any 32-bit values -----------------------------------------------------------------
//
// Exactness: each 32 x 32-bit product's high 32-bit half is summed in 64-bit lanes, and the
// products themselves mod 2^64 (a block adds 512 products to a lane; multiply_add says why
// that gives the low halves' sum). Signed values are biased to unsigned (a' = a + 2^31) and
// corrected at the end:
//   sum a b = sum a' b' - 2^31 (sum a' + sum b') + 2048 * 2^62.
struct lane_sums {
    __m256i wrapped = _mm256_setzero_si256();  // the products' sum mod 2^64
    __m256i hi = _mm256_setzero_si256();       // the sum of their high halves
    __m256i sum_a = _mm256_setzero_si256();    // sum of a' (signed only)
    __m256i sum_b = _mm256_setzero_si256();
};

[[gnu::always_inline]] inline __m256i add_halves(__m256i acc, __m256i x, __m256i low) noexcept {
    return _mm256_add_epi64(acc, _mm256_add_epi64(_mm256_and_si256(x, low), _mm256_srli_epi64(x, 32)));
}

// The products' 64-bit lanes are added as they are (wrapping) and their high halves apart: a
// lane's exact sum is 2^32 hi + lo, lo the sum of the low halves, below 2^64 (512 products a
// block), so lo = wrapped - 2^32 hi mod 2^64 (wide_total) and the low halves need no mask.
template <bool Signed, bool Same>
[[gnu::always_inline]] inline void multiply_add(__m256i x, __m256i y, lane_sums& s, __m256i low) noexcept {
    const __m256i even = _mm256_mul_epu32(x, y);
    const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(y, 32));
    s.wrapped = _mm256_add_epi64(s.wrapped, _mm256_add_epi64(even, odd));
    s.hi = _mm256_add_epi64(s.hi, _mm256_add_epi64(_mm256_srli_epi64(even, 32), _mm256_srli_epi64(odd, 32)));
    if constexpr (Signed) {
        s.sum_a = add_halves(s.sum_a, x, low);
        if constexpr (!Same) s.sum_b = add_halves(s.sum_b, y, low);
    }
}

// Values narrow enough that two or more products fit a 64-bit lane (unsigned, below 2^bits_a and
// 2^bits_b with bits_a + bits_b <= 63): the even and odd products are added into `acc` as they
// are, 6 operations a register where multiply_add takes 10 (no high halves), and `acc` is
// folded into the lane sums (wrapped, hi) before it can overflow (dot_wide's Fold says when).
// The odd halves come down by a dword shuffle (port 5), not a 64-bit shift: shifts and pmuludq
// share ports 0 and 1 with the transposes' delta swaps (kernel alone, TSC per block pair:
// 25-30 bits -1.3%, 31 2765 -> 2680; multiply_add keeps its shifts: with shuffles 32 x 32 bits
// took 2830 -> 3000, its unpacks already keep port 5 busy).
template <bool Same>
[[gnu::always_inline]] inline void multiply_acc(__m256i x, __m256i y, __m256i& acc) noexcept {
    const __m256i odd_x = _mm256_shuffle_epi32(x, 0xF5);
    const __m256i odd_y = Same ? odd_x : _mm256_shuffle_epi32(y, 0xF5);
    acc = _mm256_add_epi64(acc, _mm256_add_epi64(_mm256_mul_epu32(x, y), _mm256_mul_epu32(odd_x, odd_y)));
}

// acc's lanes into the lane sums: its high halves apart, the whole added wrapping, as
// multiply_add does for each product (the low halves of at most 8 folds a column pair, 256 a
// block, stay far below 2^64).
[[gnu::always_inline]] inline void fold(__m256i& acc, lane_sums& s) noexcept {
    s.wrapped = _mm256_add_epi64(s.wrapped, acc);
    s.hi = _mm256_add_epi64(s.hi, _mm256_srli_epi64(acc, 32));
    acc = _mm256_setzero_si256();
}

wide wide_total(const lane_sums& s) noexcept {
    alignas(32) std::uint64_t wrapped[4];
    alignas(32) std::uint64_t hi[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(wrapped), s.wrapped);
    _mm256_store_si256(reinterpret_cast<__m256i*>(hi), s.hi);
    wide total = 0;
    for (unsigned i = 0; i < 4; ++i) {
        const std::uint64_t lo = wrapped[i] - (hi[i] << 32);
        total += (wide{hi[i]} << 32) + lo;
    }
    return total;
}

// How dot_wide reads both operands' bytes of planes, chosen once per block pair: a byte of 8 live
// planes is already in its lanes and takes a plain load, where a masked load costs a vector ALU
// uop besides the load (8 of pair_values' ~100 per operand and column pair); deciding that byte
// by byte in the loop cost more in branches than it saved.
enum class wide_reading : unsigned {
    scattered,   // every byte by lane mask, permuted to its planes' lanes
    top_masked,  // bytes 0..2 full (plain loads), byte 3 by lane mask, in place: 25-31-bit uniform data
    full,        // all 32 planes live: plain loads
};

// Planes 8k..8k+7 of the column at `column` in lanes 0..7 (zero where a plane is not live),
// without a branch: a byte with no live plane has an empty load mask, which reads nothing.
template <wide_reading Reading>
[[gnu::always_inline]] inline __m256i byte_words(const operand_reader& op, const std::uint8_t* column,
                                                 unsigned k) noexcept {
    if (Reading == wide_reading::full || (Reading == wide_reading::top_masked && k < 3)) {
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(column + op.offset[k]));
    }
    const __m256i r = _mm256_maskload_epi32(reinterpret_cast<const int*>(column + op.offset[k]), op.load_mask[k]);
    if constexpr (Reading == wide_reading::top_masked) return r;
    return _mm256_permutevar8x32_epi32(r, op.place[k]);
}

// The 64 values r + shift of two columns from `first`, as 32-bit lanes of out[0..7], in an
// order that depends on nothing but the position (the same for both operands).
//
// A 32 x 32 bit transpose per column, with bytes moved as bytes: a column's 4 registers of 8
// planes (register q, lane j: plane 8q + j) go through a 4 x 4 byte transpose (4 byte and 4
// word unpacks) to u[m], whose 32-bit lane (half, h) holds byte h of planes j, 8 + j, 16 + j,
// 24 + j, j = m + 4 half; a lane permute per pair of registers joins the two columns' halves
// of the same j, so that register j holds plane j of every byte; then three delta swaps
// between pairs of registers (transpose_group's) exchange j with the bit in the byte, and
// every 32-bit lane holds a whole value. ~104 operations for 64 values and no stores, where
// group transposes of 4 bytes and the unpacking of their bytes into values took ~150 and
// kept the bytes on the stack.
template <wide_reading Reading, bool Shifted>
[[gnu::always_inline]] inline void pair_values(const operand_reader& op, const std::uint8_t* first, __m256i shift,
                                               __m256i (&out)[8]) noexcept {
    __m256i u[2][4];
    const std::uint8_t* column = first;
#pragma GCC unroll 2
    for (unsigned c = 0; c < 2; ++c, column += op.column_bytes) {
        const __m256i v0 = byte_words<Reading>(op, column, 0);
        const __m256i v1 = byte_words<Reading>(op, column, 1);
        const __m256i v2 = byte_words<Reading>(op, column, 2);
        const __m256i v3 = byte_words<Reading>(op, column, 3);
        const __m256i t0 = _mm256_unpacklo_epi8(v0, v1);  // lanes 0, 1 of each half
        const __m256i t1 = _mm256_unpackhi_epi8(v0, v1);  // lanes 2, 3
        const __m256i t2 = _mm256_unpacklo_epi8(v2, v3);
        const __m256i t3 = _mm256_unpackhi_epi8(v2, v3);
        u[c][0] = _mm256_unpacklo_epi16(t0, t2);  // j = 0 | 4 (by half), bytes h = 0..3
        u[c][1] = _mm256_unpackhi_epi16(t0, t2);  // j = 1 | 5
        u[c][2] = _mm256_unpacklo_epi16(t1, t3);  // j = 2 | 6
        u[c][3] = _mm256_unpackhi_epi16(t1, t3);  // j = 3 | 7
    }
#pragma GCC unroll 4
    for (unsigned m = 0; m < 4; ++m) {
        out[m] = _mm256_permute2x128_si256(u[0][m], u[1][m], 0x20);
        out[m + 4] = _mm256_permute2x128_si256(u[0][m], u[1][m], 0x31);
    }
    swap_registers<1>(out, _mm256_set1_epi8(0x55));
    swap_registers<2>(out, _mm256_set1_epi8(0x33));
    swap_registers<4>(out, _mm256_set1_epi8(0x0F));
    if constexpr (Shifted) {
#pragma GCC unroll 8
        for (unsigned i = 0; i < 8; ++i) out[i] = _mm256_add_epi32(out[i], shift);
    }
}

// Shifted: some value's shift (ones + base + bias) is not 0 (otherwise the adds are skipped).
// Fold: how often the products, unsigned values below 2^bits_a and 2^bits_b, go through
// multiply_acc and are folded (fold_registers says which):
//   0: never (bits_a + bits_b = 64, or signed: multiply_add, high halves summed apart);
//   1, 2, 4: after every Fold registers of a column pair (bits_a + bits_b = 63, 62, 61: a lane
//     takes 2 Fold products below 2^(64 - 1 - log2 Fold), below 2^64 together): 31 x 31 bits
//     costs 7 operations a register where multiply_add costs 10;
//   pair_registers: after every column pair p with (p + 1) & fold_mask == 0 (bits_a + bits_b <=
//     wide_fold_bits: 16 products a lane a column pair).
template <wide_reading Reading, bool Signed, bool Same, bool Shifted, unsigned Fold>
wide dot_wide(const operand_reader& a, const operand_reader& b, std::uint32_t shift_a, std::uint32_t shift_b,
              std::size_t fold_mask, spread_prefetch& ahead_a, spread_prefetch& ahead_b) noexcept {
    static_assert(!(Signed && Fold != 0), "signed values are biased to the whole 32 bits");
    const __m256i add_a = _mm256_set1_epi32(static_cast<int>(shift_a));
    const __m256i add_b = _mm256_set1_epi32(static_cast<int>(shift_b));
    const __m256i low = _mm256_set1_epi64x(0xFFFFFFFFll);
    const std::size_t step_a = 2 * a.column_bytes;
    const std::size_t step_b = 2 * b.column_bytes;
    const std::uint8_t* pa = a.payload;
    const std::uint8_t* pb = b.payload;
    lane_sums s;
    __m256i acc = _mm256_setzero_si256();
    for (std::size_t c = 0; c < columns; c += 2, pa += step_a, pb += step_b) {
        ahead_a.step();
        ahead_b.step();
        __m256i x[8];
        __m256i y[8] = {};
        pair_values<Reading, Shifted>(a, pa, add_a, x);
        if constexpr (!Same) pair_values<Reading, Shifted>(b, pb, add_b, y);
#pragma GCC unroll 8
        for (std::size_t r = 0; r < 8; ++r) {
            const __m256i& yr = Same ? x[r] : y[r];
            if constexpr (Fold != 0) {
                multiply_acc<Same>(x[r], yr, acc);
                if constexpr (Fold < pair_registers) {
                    if ((r + 1) % Fold == 0) fold(acc, s);
                }
            } else {
                multiply_add<Signed, Same>(x[r], yr, s, low);
            }
        }
        if constexpr (Fold == pair_registers) {
            if (((c / 2 + 1) & fold_mask) == 0) fold(acc, s);
        }
    }
    wide total = wide_total(s);
    if constexpr (Signed) {
        const wide sum_a = lane_total(s.sum_a);
        const wide sum_b = Same ? sum_a : wide{lane_total(s.sum_b)};
        total -= (sum_a + sum_b) << 31;
        total += wide{block_values} << 62;
    }
    return total;
}

// ---- dispatch ----------------------------------------------------------------------------------

std::uint32_t width(std::uint32_t planes) noexcept {
    return planes == 0 ? 0u : 32u - static_cast<std::uint32_t>(std::countl_zero(planes));
}

// The operand's values are (r | ones) + base without wrapping around the type: r | ones is
// at most live | ones, so that plus the base must stay within the type.
bool fits_type(const interleaved_operand& op, bool is_signed) noexcept {
    const std::int64_t top = op.live | op.ones;
    return is_signed ? std::int64_t{static_cast<std::int32_t>(op.base)} + top <= std::int64_t{INT32_MAX}
                     : std::int64_t{op.base} + top <= std::int64_t{UINT32_MAX};
}

bool same_operand(const interleaved_operand& a, const interleaved_operand& b) noexcept {
    return a.payload == b.payload && a.live == b.live && a.ones == b.ones && a.base == b.base;
}

signed_wide as_integer(std::uint32_t base, bool is_signed) noexcept {
    return is_signed ? signed_wide{static_cast<std::int32_t>(base)} : signed_wide{base};
}

// The instantiation for the flags, chosen once per block.
using narrow_fn = narrow_sums (*)(const operand_reader&, const operand_reader&, std::size_t, spread_prefetch&,
                                  spread_prefetch&) noexcept;
using split_fn = narrow_sums (*)(const operand_reader&, const operand_reader&, split_flush, spread_prefetch&,
                                 spread_prefetch&) noexcept;
using wide_fn = wide (*)(const operand_reader&, const operand_reader&, std::uint32_t, std::uint32_t, std::size_t,
                         spread_prefetch&, spread_prefetch&) noexcept;

template <bool... Flags>
narrow_fn pick_narrow(bool placed, bool same, bool sums) noexcept {
    if constexpr (sizeof...(Flags) == 3) {
        return &dot_narrow<Flags...>;
    } else {
        const bool flags[] = {placed, same, sums};
        return flags[sizeof...(Flags)] ? pick_narrow<Flags..., true>(placed, same, sums)
                                       : pick_narrow<Flags..., false>(placed, same, sums);
    }
}

template <bool... Flags>
split_fn pick_split(bool placed, bool same, bool sums, bool hi, bool digits) noexcept {
    if constexpr (sizeof...(Flags) == 5) {
        constexpr bool flags[] = {Flags...};
        if constexpr (flags[3] && flags[4]) {
            return nullptr;  // digits take values of at most digit_bits, never Hi
        } else {
            return &dot_split<Flags...>;
        }
    } else {
        const bool flags[] = {placed, same, sums, hi, digits};
        return flags[sizeof...(Flags)] ? pick_split<Flags..., true>(placed, same, sums, hi, digits)
                                       : pick_split<Flags..., false>(placed, same, sums, hi, digits);
    }
}

// Flags: signed, same, shifted (signed values are always shifted, never folded: Fold 0).
template <wide_reading Reading, unsigned Fold, bool... Flags>
wide_fn pick_wide(bool is_signed, bool same, bool shifted) noexcept {
    if constexpr (sizeof...(Flags) == 3) {
        constexpr bool flags[] = {Flags...};
        if constexpr (flags[0] && (Fold != 0 || !flags[2])) {
            return nullptr;
        } else {
            return &dot_wide<Reading, Flags..., Fold>;
        }
    } else {
        const bool flags[] = {is_signed, same, shifted};
        return flags[sizeof...(Flags)] ? pick_wide<Reading, Fold, Flags..., true>(is_signed, same, shifted)
                                       : pick_wide<Reading, Fold, Flags..., false>(is_signed, same, shifted);
    }
}

template <wide_reading Reading>
wide_fn pick_wide_fold(bool is_signed, bool same, bool shifted, unsigned fold) noexcept {
    switch (fold) {
        case 0: return pick_wide<Reading, 0>(is_signed, same, shifted);
        case 1: return pick_wide<Reading, 1>(is_signed, same, shifted);
        case 2: return pick_wide<Reading, 2>(is_signed, same, shifted);
        case 4: return pick_wide<Reading, 4>(is_signed, same, shifted);
        default: break;
    }
    return pick_wide<Reading, pair_registers>(is_signed, same, shifted);
}

narrow_fn narrow_kernel(bool placed, bool same, bool sums) noexcept { return pick_narrow<>(placed, same, sums); }
split_fn split_kernel(bool placed, bool same, bool sums, bool hi, bool digits) noexcept {
    return pick_split<>(placed, same, sums, hi, digits);
}

// 2^(30 - bits) columns, at most a block's: how long a 32-bit lane may take 4 products of
// `bits` bits a column.
std::size_t flush_columns(std::uint32_t bits) noexcept {
    return bits >= 24 ? std::size_t{1} << (30 - bits) : columns;
}
wide_fn wide_kernel(wide_reading reading, bool is_signed, bool same, bool shifted, unsigned fold) noexcept {
    switch (reading) {
        case wide_reading::full: return pick_wide_fold<wide_reading::full>(is_signed, same, shifted, fold);
        case wide_reading::top_masked: return pick_wide_fold<wide_reading::top_masked>(is_signed, same, shifted, fold);
        case wide_reading::scattered: break;
    }
    return pick_wide_fold<wide_reading::scattered>(is_signed, same, shifted, fold);
}

// dot_wide's Fold for unsigned products below 2^bits: a 64-bit lane takes 2^(64 - bits)
// of them before it can overflow, 2 a register of products, 16 a column pair.
unsigned fold_registers(std::uint32_t bits) noexcept {
    if (bits <= wide_fold_bits) return pair_registers;
    if (bits >= 64) return 0;
    return 1u << (63 - bits);  // 61: 4, 62: 2, 63: 1
}

// The cheapest wide_reading that reads the operand's planes right.
wide_reading reading_of(std::uint32_t live) noexcept {
    if (live == 0xFFFFFFFFu) return wide_reading::full;
    const bool placed = (live & (live + 1)) == 0;
    return placed && (live & 0x00FFFFFFu) == 0x00FFFFFFu ? wide_reading::top_masked : wide_reading::scattered;
}

// Bits of the operand's largest value (r | ones) + base when its values are non-negative and
// do not wrap around the type (r | ones is at most live | ones); 32 otherwise.
std::uint32_t value_bits(const interleaved_operand& op, bool is_signed) noexcept {
    if (!fits_type(op, is_signed) || (is_signed && static_cast<std::int32_t>(op.base) < 0)) return 32;
    const std::uint64_t top = std::uint64_t{op.live | op.ones} + op.base;
    return 64u - static_cast<std::uint32_t>(std::countl_zero(top | 1u));
}

// dot_wide on any two operands: values that are all non-negative with bits_a + bits_b <= 63
// multiply as unsigned, folded every few registers or column pairs (fold_registers).
wide dot_wide_any(const operand_reader& ra, const operand_reader& rb, const interleaved_operand& a,
                  const interleaved_operand& b, bool is_signed, bool same) noexcept {
    spread_prefetch ahead_a(a.ahead, a.ahead_bytes, columns / 2);
    spread_prefetch ahead_b(b.ahead, b.ahead_bytes, columns / 2);
    const std::uint32_t bits_a = value_bits(a, is_signed);
    const std::uint32_t bits_b = value_bits(b, is_signed);
    const std::uint32_t bits = bits_a + bits_b;
    // Non-negative int32 values (below 2^31) multiply as the same uint32 values.
    const bool as_signed = is_signed && (bits_a == 32 || bits_b == 32);
    const unsigned fold = as_signed ? 0u : fold_registers(bits);
    // A value is (r | ones) + base, and r + ones + base as well (the all-one planes are not
    // live: r is 0 there); the bias of signed values folds in too: r + ones + base + 2^31.
    const std::uint32_t bias = as_signed ? 0x80000000u : 0u;
    const std::uint32_t shift_a = a.ones + a.base + bias;
    const std::uint32_t shift_b = b.ones + b.base + bias;
    const bool shifted = as_signed || shift_a != 0 || shift_b != 0;
    // Each column pair adds 16 products below 2^bits to a 64-bit lane.
    const std::size_t pairs = fold == pair_registers ? std::min<std::size_t>(columns / 2, std::size_t{1} << (wide_fold_bits - bits)) : 1;
    const wide_reading reading = std::min(reading_of(a.live), reading_of(b.live));
    return wide_kernel(reading, as_signed, same, shifted, fold)(ra, rb, shift_a, shift_b, pairs - 1, ahead_a, ahead_b);
}

wide dot_block(const interleaved_operand& a, const interleaved_operand& b, bool is_signed) noexcept {
    const std::uint32_t wa = width(a.live | a.ones);
    const std::uint32_t wb = width(b.live | b.ones);
    const bool split = wa <= split_bits && wb <= split_bits && fits_type(a, is_signed) && fits_type(b, is_signed);
    // Values of 17..23 bits: three digit transposes, as three byte transposes, and no cutting
    // of values after them (dot_split with Digits).
    const std::uint32_t widest = std::max(wa, wb);
    const bool digits = split && widest > narrow_bits + 1 && widest <= digit_bits;
    const operand_reader ra = digits ? operand_reader(a, std::true_type{}) : operand_reader(a);
    const operand_reader rb = digits ? operand_reader(b, std::true_type{}) : operand_reader(b);
    spread_prefetch ahead_a(a.ahead, a.ahead_bytes, columns / prefetch_every);
    spread_prefetch ahead_b(b.ahead, b.ahead_bytes, columns / prefetch_every);
    const bool same = same_operand(a, b);
    if (split) {
        const bool sums = a.base != 0 || b.base != 0;
        const std::uint32_t la = wa < narrow_bits ? wa : narrow_bits;  // widths of l and u
        const std::uint32_t lb = wb < narrow_bits ? wb : narrow_bits;
        const std::uint32_t ua = wa - la;
        const std::uint32_t ub = wb - lb;
        narrow_sums s;
        if (ua == 0 && ub == 0) {
            // 4 flush products below 2^(wa + wb) each stay below 2^32.
            const std::size_t flush = flush_columns(wa + wb);
            const shared_layout shared{a.payload, b.payload, ra.column_bytes, rb.column_bytes, wa, wb};
            const bool plain = !same && ra.placed && rb.placed && a.ones == 0 && b.ones == 0;
            const bool share = plain && wa + wb != 0 && wa + wb <= 8;
            // A 9..15-bit operand whose top byte fits beside the other's planes (either way round).
            const auto top_fits = [](std::uint32_t wider, std::uint32_t narrow) {
                return wider > 8 && narrow != 0 && (wider - 8) + narrow <= 8;
            };
            if (share) {
                s = sums ? dot_narrow_shared<true>(shared, flush, ahead_a, ahead_b)
                         : dot_narrow_shared<false>(shared, flush, ahead_a, ahead_b);
            } else if (plain && top_fits(wa, wb)) {
                s = sums ? dot_narrow_top<true>(ra, rb, wa - 8, wb, flush, ahead_a, ahead_b)
                         : dot_narrow_top<false>(ra, rb, wa - 8, wb, flush, ahead_a, ahead_b);
            } else if (plain && top_fits(wb, wa)) {
                s = sums ? dot_narrow_top<true>(rb, ra, wb - 8, wa, flush, ahead_b, ahead_a)
                         : dot_narrow_top<false>(rb, ra, wb - 8, wa, flush, ahead_b, ahead_a);
                std::swap(s.sum_a, s.sum_b);
            } else {
                s = narrow_kernel(ra.placed && rb.placed, same, sums)(ra, rb, flush, ahead_a, ahead_b);
            }
        } else {
            const std::uint32_t high = std::max(ua + ub, std::max(ua + lb, la + ub));
            const split_flush flush{flush_columns(la + lb) - 1, flush_columns(high) - 1};
            const bool hi = !digits && widest > narrow_bits + 1;
            s = split_kernel(ra.placed && rb.placed, same, sums, hi, digits)(ra, rb, flush, ahead_a, ahead_b);
        }
        const signed_wide ba = as_integer(a.base, is_signed);
        const signed_wide bb = as_integer(b.base, is_signed);
        const signed_wide total = static_cast<signed_wide>(s.products) + bb * signed_wide{s.sum_a} +
                                  ba * signed_wide{s.sum_b} + signed_wide{block_values} * ba * bb;
        return static_cast<wide>(total);
    }
    return dot_wide_any(ra, rb, a, b, is_signed, same);
}

}  // namespace

void dot_fused_avx2::interleaved_dot(const interleaved_operand* a, const interleaved_operand* b, bool is_signed,
                                     std::uint64_t* out) noexcept {
    const wide total = dot_block(*a, *b, is_signed);
    out[0] = static_cast<std::uint64_t>(total);
    out[1] = static_cast<std::uint64_t>(total >> 64);
}

}  // namespace bitplane::detail
