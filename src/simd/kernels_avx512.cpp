// The AVX-512 path: the AVX2 table with the 32x32 bit-matrix transposes done by GFNI, and
// the encoder's measurements (Hamming matrix, popcounts, value stats) done 512 bits at a time.
//
// Why a separate path: every untranspose in the AVX2 kernels is a movemask per 32 bits moved
// (32 movemasks, adds and stores per column of 32 values). GFNI's affine instruction transposes
// an 8x8 bit matrix per 64-bit lane in one instruction, and VBMI's two-register byte permute
// regroups bytes across 128 bytes in one more; a column of 32 values becomes two masked loads,
// two permutes, two affines, two permutes and two stores. That is what makes decode-and-multiply
// `dot` of wide (17-32 bit) data cheaper than the dense loop's memory traffic.
//
// Built with -mavx512f -mavx512bw -mavx512vbmi -mavx512vpopcntdq -mgfni (plus the AVX2 flags); dispatch.cpp hands
// the table out only when the CPU and OS support all of them (simd.hpp: simd_path::avx512).
#include "codec/thresholds.hpp"
#include "simd/dot_fused.hpp"
#include "simd/equal_rows.hpp"
#include "simd/kernels.hpp"
#include "simd/spread_prefetch.hpp"

// GCC 12 reports the intrinsics' own _mm512_undefined_* pass-through operands as (maybe)
// uninitialized: a false positive inside avx512fintrin.h once inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if !defined(__AVX512VBMI__) || !defined(__GFNI__) || !defined(__AVX512BW__) || !defined(__AVX512VPOPCNTDQ__)
#error "kernels_avx512.cpp must be compiled with -mavx512f -mavx512bw -mavx512vbmi -mavx512vpopcntdq -mgfni"
#endif

namespace bitplane::detail {
namespace {

constexpr std::size_t column_values = 32;  // values per plane word (one column)

// Byte indices of the two-register permutes, over the 128 bytes of a column (register pair
// lo:hi, byte 4w + k = byte k of word w).
//
// gather: qword q = 4k + g gets byte k of words 8g+7 .. 8g (reversed: the affine instruction
//   reads its matrix rows from the top byte down), so that after the affine transposition its
//   byte b is byte g of value 8k + b.
// scatter: value v = 8k + b, byte g (position 4v + g) comes from byte b of qword 4k + g.
struct permute_tables {
    alignas(64) std::array<std::uint8_t, 128> gather{};
    alignas(64) std::array<std::uint8_t, 128> scatter{};
};

constexpr permute_tables make_permute_tables() {
    permute_tables t;
    for (std::size_t k = 0; k < 4; ++k) {
        for (std::size_t g = 0; g < 4; ++g) {
            for (std::size_t p = 0; p < 8; ++p) {
                const std::size_t word = 8 * g + 7 - p;
                t.gather[8 * (4 * k + g) + p] = static_cast<std::uint8_t>(4 * word + k);
            }
        }
    }
    for (std::size_t v = 0; v < column_values; ++v) {
        for (std::size_t g = 0; g < 4; ++g) {
            const std::size_t k = v / 8;
            const std::size_t b = v % 8;
            t.scatter[4 * v + g] = static_cast<std::uint8_t>(8 * (4 * k + g) + b);
        }
    }
    return t;
}

constexpr permute_tables tables = make_permute_tables();

// With the data as the affine instruction's matrix and byte b of x = 1 << b, output byte b
// bit i = bit b of data byte 7 - i: the transpose of each 8x8 bit matrix (rows reversed).
inline __m512i transpose_8x8(__m512i data) noexcept {
    return _mm512_gf2p8affine_epi64_epi8(_mm512_set1_epi64(static_cast<long long>(0x8040201008040201ull)), data, 0);
}

// Plane words 0..15 in lo, 16..31 in hi -> values 0..15 in lo, 16..31 in hi.
[[gnu::always_inline]] inline void untranspose_column(__m512i& lo, __m512i& hi, __m512i gather_lo,
                                                      __m512i gather_hi, __m512i scatter_lo,
                                                      __m512i scatter_hi) noexcept {
    const __m512i q_lo = transpose_8x8(_mm512_permutex2var_epi8(lo, gather_lo, hi));
    const __m512i q_hi = transpose_8x8(_mm512_permutex2var_epi8(lo, gather_hi, hi));
    lo = _mm512_permutex2var_epi8(q_lo, scatter_lo, q_hi);
    hi = _mm512_permutex2var_epi8(q_lo, scatter_hi, q_hi);
}

// The columns of one interleaved payload. A column is `stored` little-endian words, one per
// live plane in plane order. Low planes (live = 0..stored-1, uniform data) are two masked
// loads; any other live set is two expand loads, which put the words at their planes' lanes.
// Masked lanes are never read, so the last column needs no care at the payload's end.
template <bool Low>
struct column_reader {
    const std::uint8_t* payload;
    __mmask16 mask_lo;
    __mmask16 mask_hi;
    std::size_t lo_bytes;      // bytes of the planes below 16 in a column
    std::size_t column_bytes;  // bytes of a column

    column_reader(const std::uint8_t* p, std::uint32_t live) noexcept
        : payload(p),
          mask_lo(static_cast<__mmask16>(live & 0xFFFFu)),
          mask_hi(static_cast<__mmask16>(live >> 16)),
          lo_bytes(4 * static_cast<std::size_t>(std::popcount(live & 0xFFFFu))),
          column_bytes(4 * static_cast<std::size_t>(std::popcount(live))) {}

    // Plane words of column c: planes 0..15 in lo, 16..31 in hi (zero where not live).
    [[gnu::always_inline]] void load(std::size_t c, __m512i& lo, __m512i& hi) const noexcept {
        const std::uint8_t* column = payload + column_bytes * c;
        if constexpr (Low) {
            lo = _mm512_maskz_loadu_epi32(mask_lo, column);
            // As an integer: a block without live planes may have no payload (a null pointer,
            // where adding 64 is undefined); the mask then reads nothing there.
            hi = _mm512_maskz_loadu_epi32(mask_hi, reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(column) + 64));
        } else {
            lo = _mm512_maskz_expandloadu_epi32(mask_lo, column);
            hi = _mm512_maskz_expandloadu_epi32(mask_hi, column + lo_bytes);
        }
    }
};

// The permute tables in registers, loaded once per call.
struct transposer {
    __m512i gather_lo = _mm512_load_si512(tables.gather.data());
    __m512i gather_hi = _mm512_load_si512(tables.gather.data() + 64);
    __m512i scatter_lo = _mm512_load_si512(tables.scatter.data());
    __m512i scatter_hi = _mm512_load_si512(tables.scatter.data() + 64);

    [[gnu::always_inline]] void operator()(__m512i& lo, __m512i& hi) const noexcept {
        untranspose_column(lo, hi, gather_lo, gather_hi, scatter_lo, scatter_hi);
    }
};

bool low_planes(std::uint32_t live) noexcept {
    return (live & (live + 1)) == 0;  // 0..k-1 (or none, or all 32)
}

template <bool Low>
void interleaved_columns(const std::uint8_t* payload, std::uint32_t live, std::uint32_t* out,
                         spread_prefetch& prefetch) noexcept {
    const column_reader<Low> reader(payload, live);
    const transposer transpose;
    for (std::size_t c = 0; c < plane_words; ++c) {
        prefetch.step();
        __m512i lo;
        __m512i hi;
        reader.load(c, lo, hi);
        transpose(lo, hi);
        _mm512_storeu_si512(out + column_values * c, lo);
        _mm512_storeu_si512(out + column_values * c + 16, hi);
    }
}

void interleaved_transpose(const std::uint8_t* payload, std::uint32_t live, std::uint32_t* out,
                           const std::uint8_t* ahead, std::size_t ahead_bytes) noexcept {
    spread_prefetch prefetch(ahead, ahead_bytes, plane_words);
    if (live == 0) {
        for (std::size_t i = 0; i < plane_words * column_values; i += 16) _mm512_storeu_si512(out + i, _mm512_setzero_si512());
        prefetch.rest();
        return;
    }
    if (low_planes(live)) {
        interleaved_columns<true>(payload, live, out, prefetch);
    } else {
        interleaved_columns<false>(payload, live, out, prefetch);
    }
}

// ---- untranspose of planar blocks --------------------------------------------------------------
//
// The AVX2 kernel's 8x8 bit-matrix scheme (kernels_codec.hpp, untranspose_bit_matrix) on 512-bit
// registers: sixteen columns (512 values) a round. Its fixed part (byte and word unpacks, the
// 8x8 dword transposes, the lane permutes) is shuffles, which all issue on one port: at 256 bits
// that part alone took ~0.75 cycles a value, and the untranspose was over half of a planar
// block's decode on the avx512 path (geoip4_size: 0.54 -> 0.29 ns a value with it skipped).
// Here each shuffle moves twice the values, and the 32 registers hold the four byte-planes'
// eight registers without spilling. The unpacks work within 128-bit lanes as at 256 bits, so
// lane L of u[p] / u[4 + p] holds values 8q .. 8q + 3 / 8q + 4 .. 8q + 7 for q = 16 L + 4 j + p;
// one two-register qword permute per pair of lanes joins them into 256-bit stores.
// Few live planes keep the AVX2 table's kernel (thresholds::untranspose_zmm_min_live).
// Only for a destination in cache (kernel_table::untranspose_in_cache): into memory not in cache
// its 256-bit stores, each line filled by four stores from four rounds apart, ran 0.26-0.31 ->
// 0.37-0.42 ns a value against the AVX2 kernel's (decode6, ad12470), so `untranspose` stays AVX2's.
template <int Shift>
[[gnu::always_inline]] inline void swap_bit_blocks(__m512i& low, __m512i& high, __m512i mask) noexcept {
    // As the AVX2 kernel's: bits [Shift, 2 Shift) of each group in `low` trade places with
    // bits [0, Shift) in `high` (16-bit shifts are exact: the mask drops what crosses a byte).
    const __m512i t = _mm512_and_si512(_mm512_xor_si512(_mm512_srli_epi16(low, Shift), high), mask);
    high = _mm512_xor_si512(high, t);
    low = _mm512_xor_si512(low, _mm512_slli_epi16(t, Shift));
}

[[gnu::always_inline]] inline void transpose_bit_bytes(__m512i (&r)[8]) noexcept {
    const __m512i m4 = _mm512_set1_epi8(0x0F);
    const __m512i m2 = _mm512_set1_epi8(0x33);
    const __m512i m1 = _mm512_set1_epi8(0x55);
    for (std::size_t b = 0; b < 4; ++b) swap_bit_blocks<4>(r[b], r[b + 4], m4);
    for (std::size_t b : {0u, 1u, 4u, 5u}) swap_bit_blocks<2>(r[b], r[b + 2], m2);
    for (std::size_t b = 0; b < 8; b += 2) swap_bit_blocks<1>(r[b], r[b + 1], m1);
}

void untranspose_in_cache(const std::uint32_t* planes, std::uint32_t live, std::uint32_t* values) noexcept {
    if (std::popcount(live) < static_cast<int>(thresholds::untranspose_zmm_min_live)) {
        avx2_kernels().untranspose(planes, live, values);
        return;
    }
    // Qwords of lanes 0 and 1 (2 and 3) of a, then of b, interleaved by lane.
    const __m512i lanes01 = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
    const __m512i lanes23 = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
    constexpr std::size_t columns = 16;  // plane words a round
    for (std::size_t c0 = 0; c0 < plane_words; c0 += columns) {
        // bytes[k][t]: byte k of values 8q + t (byte q of the register), q = 0..63.
        __m512i bytes[4][8];
        for (std::size_t k = 0; k < 4; ++k) {
            const std::uint32_t group = (live >> (8 * k)) & 0xFFu;
            __m512i* r = bytes[k];
            if (group == 0) {
                for (std::size_t t = 0; t < 8; ++t) r[t] = _mm512_setzero_si512();
                continue;
            }
            for (std::size_t b = 0; b < 8; ++b) {
                r[b] = ((group >> b) & 1u) != 0 ? _mm512_loadu_si512(planes + (8 * k + b) * plane_words + c0)
                                                : _mm512_setzero_si512();
            }
            transpose_bit_bytes(bytes[k]);
        }
        // words[t][j], lane L: values 8q + t as dwords, q = 16 L + 4 j .. 16 L + 4 j + 3.
        __m512i words[8][4];
        for (std::size_t t = 0; t < 8; ++t) {
            const __m512i a = _mm512_unpacklo_epi8(bytes[0][t], bytes[1][t]);
            const __m512i b = _mm512_unpackhi_epi8(bytes[0][t], bytes[1][t]);
            const __m512i c = _mm512_unpacklo_epi8(bytes[2][t], bytes[3][t]);
            const __m512i d = _mm512_unpackhi_epi8(bytes[2][t], bytes[3][t]);
            words[t][0] = _mm512_unpacklo_epi16(a, c);
            words[t][1] = _mm512_unpackhi_epi16(a, c);
            words[t][2] = _mm512_unpacklo_epi16(b, d);
            words[t][3] = _mm512_unpackhi_epi16(b, d);
        }
        std::uint32_t* out = values + column_values * c0;
        for (std::size_t j = 0; j < 4; ++j) {
            __m512i s[8], u[8];
            for (std::size_t h = 0; h < 8; h += 4) {
                s[h + 0] = _mm512_unpacklo_epi32(words[h + 0][j], words[h + 1][j]);
                s[h + 1] = _mm512_unpackhi_epi32(words[h + 0][j], words[h + 1][j]);
                s[h + 2] = _mm512_unpacklo_epi32(words[h + 2][j], words[h + 3][j]);
                s[h + 3] = _mm512_unpackhi_epi32(words[h + 2][j], words[h + 3][j]);
                u[h + 0] = _mm512_unpacklo_epi64(s[h + 0], s[h + 2]);  // slot 0: t = h..h+3
                u[h + 1] = _mm512_unpackhi_epi64(s[h + 0], s[h + 2]);  // slot 1
                u[h + 2] = _mm512_unpacklo_epi64(s[h + 1], s[h + 3]);  // slot 2
                u[h + 3] = _mm512_unpackhi_epi64(s[h + 1], s[h + 3]);  // slot 3
            }
            for (std::size_t p = 0; p < 4; ++p) {
                const std::size_t q = 4 * j + p;
                const __m512i low = _mm512_permutex2var_epi64(u[p], lanes01, u[4 + p]);   // q, q + 16
                const __m512i high = _mm512_permutex2var_epi64(u[p], lanes23, u[4 + p]);  // q + 32, q + 48
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * q), _mm512_castsi512_si256(low));
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * (q + 16)), _mm512_extracti64x4_epi64(low, 1));
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * (q + 32)), _mm512_castsi512_si256(high));
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * (q + 48)), _mm512_extracti64x4_epi64(high, 1));
            }
        }
    }
}

// ---- delta_decode ------------------------------------------------------------------------------
//
// The AVX2 kernel's scheme (kernels_avx2.cpp) at 16 lanes: 32 values a round as two prefix sums
// that do not wait on each other, the running value joining each by one add and moving on by
// the second sum's last lane, so the chain from round to round is two adds. A 16-lane prefix
// sum is four shift-and-adds (valignd pulls zeros in below); the 8-lane one of AVX2 needs a
// cross-lane fix-up besides, and takes twice the rounds.
[[gnu::always_inline]] inline __m512i prefix_sum16(__m512i x) noexcept {
    const __m512i zero = _mm512_setzero_si512();
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 15));  // lane i += lane i - 1
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 14));  // ... i - 2
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 12));  // ... i - 4
    return _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 8));  // ... i - 8
}

void delta_decode(std::uint32_t* values, std::size_t count, std::uint32_t first, std::uint32_t step) noexcept {
    const __m512i steps = _mm512_set1_epi32(static_cast<int>(step));
    const __m512i last = _mm512_set1_epi32(15);
    __m512i carry = _mm512_set1_epi32(static_cast<int>(first - step));  // so that value 0 is first + r[0]
    std::size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        const __m512i a = prefix_sum16(_mm512_add_epi32(_mm512_loadu_si512(values + i), steps));
        const __m512i b = prefix_sum16(_mm512_add_epi32(_mm512_loadu_si512(values + i + 16), steps));
        const __m512i mid = _mm512_add_epi32(carry, _mm512_permutexvar_epi32(last, a));
        _mm512_storeu_si512(values + i, _mm512_add_epi32(a, carry));
        _mm512_storeu_si512(values + i + 16, _mm512_add_epi32(b, mid));
        carry = _mm512_add_epi32(mid, _mm512_permutexvar_epi32(last, b));
    }
    // The rest (a partial block's, under 32 values) 16 lanes at a time under a mask: lanes
    // past the end are neither read nor written, and only the last round's carry is off.
    for (; i < count; i += 16) {
        const std::size_t rest = count - i;
        const auto mask = static_cast<__mmask16>(rest >= 16 ? 0xFFFFu : (1u << rest) - 1u);
        const __m512i a = prefix_sum16(_mm512_add_epi32(_mm512_maskz_loadu_epi32(mask, values + i), steps));
        const __m512i v = _mm512_add_epi32(a, carry);
        _mm512_mask_storeu_epi32(values + i, mask, v);
        carry = _mm512_permutexvar_epi32(last, v);
    }
}

// ---- interleaved_dot ----------------------------------------------------------------------------
//
// Both operands' columns are transposed and multiplied in registers, column by column, so the
// two payloads stream side by side as in a dense dot loop and nothing goes through memory.
// Exactness: each 32x32-bit product is split into its low and high 32-bit halves, summed in
// 64-bit lanes (a block adds at most 256 halves of < 2^32 per lane). Signed values are
// biased to unsigned (a' = a + 2^31) and corrected at the end:
//   sum a b = sum a' b' - 2^31 (sum a' + sum b') + 2048 * 2^62.
struct lane_sums {
    __m512i lo = _mm512_setzero_si512();
    __m512i hi = _mm512_setzero_si512();
    __m512i sum_a = _mm512_setzero_si512();  // sum of a' (signed only)
    __m512i sum_b = _mm512_setzero_si512();
};

[[gnu::always_inline]] inline __m512i add_halves(__m512i acc, __m512i x, __m512i low) noexcept {
    return _mm512_add_epi64(acc, _mm512_add_epi64(_mm512_and_si512(x, low), _mm512_srli_epi64(x, 32)));
}

template <bool Signed>
[[gnu::always_inline]] inline void multiply_add(__m512i x, __m512i y, lane_sums& s, __m512i low) noexcept {
    const __m512i even = _mm512_mul_epu32(x, y);
    const __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(x, 32), _mm512_srli_epi64(y, 32));
    s.lo = _mm512_add_epi64(s.lo, _mm512_add_epi64(_mm512_and_si512(even, low), _mm512_and_si512(odd, low)));
    s.hi = _mm512_add_epi64(s.hi, _mm512_add_epi64(_mm512_srli_epi64(even, 32), _mm512_srli_epi64(odd, 32)));
    if constexpr (Signed) {
        s.sum_a = add_halves(s.sum_a, x, low);
        s.sum_b = add_halves(s.sum_b, y, low);
    }
}

std::uint64_t lane_total(__m512i v) noexcept {
    return static_cast<std::uint64_t>(_mm512_reduce_add_epi64(v));
}

template <bool LowA, bool LowB, bool Signed>
void dot_columns(const interleaved_operand& a, const interleaved_operand& b, std::uint64_t* out) noexcept {
    __extension__ typedef unsigned __int128 wide;
    const column_reader<LowA> reader_a(a.payload, a.live);
    const column_reader<LowB> reader_b(b.payload, b.live);
    const transposer transpose;
    spread_prefetch ahead_a(a.ahead, a.ahead_bytes, plane_words);
    spread_prefetch ahead_b(b.ahead, b.ahead_bytes, plane_words);
    const __m512i ones_a = _mm512_set1_epi32(static_cast<int>(a.ones));
    const __m512i ones_b = _mm512_set1_epi32(static_cast<int>(b.ones));
    // The bias of signed values folds into the base: (r | ones) + base + 2^31.
    const std::uint32_t bias = Signed ? 0x80000000u : 0u;
    const __m512i base_a = _mm512_set1_epi32(static_cast<int>(a.base + bias));
    const __m512i base_b = _mm512_set1_epi32(static_cast<int>(b.base + bias));
    const __m512i low = _mm512_set1_epi64(0xFFFFFFFFll);
    lane_sums s;
    for (std::size_t c = 0; c < plane_words; ++c) {
        ahead_a.step();
        ahead_b.step();
        __m512i a_lo;
        __m512i a_hi;
        __m512i b_lo;
        __m512i b_hi;
        reader_a.load(c, a_lo, a_hi);
        reader_b.load(c, b_lo, b_hi);
        transpose(a_lo, a_hi);
        transpose(b_lo, b_hi);
        multiply_add<Signed>(_mm512_add_epi32(_mm512_or_si512(a_lo, ones_a), base_a),
                             _mm512_add_epi32(_mm512_or_si512(b_lo, ones_b), base_b), s, low);
        multiply_add<Signed>(_mm512_add_epi32(_mm512_or_si512(a_hi, ones_a), base_a),
                             _mm512_add_epi32(_mm512_or_si512(b_hi, ones_b), base_b), s, low);
    }
    wide total = wide{lane_total(s.lo)} + (wide{lane_total(s.hi)} << 32);
    if constexpr (Signed) {
        total -= (wide{lane_total(s.sum_a)} + wide{lane_total(s.sum_b)}) << 31;
        total += wide{block_values} << 62;
    }
    out[0] = static_cast<std::uint64_t>(total);
    out[1] = static_cast<std::uint64_t>(total >> 64);
}

template <bool Signed>
void dot_signedness(const interleaved_operand& a, const interleaved_operand& b, std::uint64_t* out) noexcept {
    const bool low_a = low_planes(a.live);
    const bool low_b = low_planes(b.live);
    if (low_a && low_b) return dot_columns<true, true, Signed>(a, b, out);
    if (low_a) return dot_columns<true, false, Signed>(a, b, out);
    if (low_b) return dot_columns<false, true, Signed>(a, b, out);
    dot_columns<false, false, Signed>(a, b, out);
}

// Operands of up to thresholds::dot_fused_avx2_on_avx512_bits on both sides go to the AVX2
// path's fused kernel (simd/dot_fused_avx2.cpp): its transposes a byte of width at a time and
// 16-bit products beat the whole 32 x 32 transposes below there (thresholds.hpp has the figures).
std::uint32_t operand_width(const interleaved_operand& op) noexcept {
    return 32u - static_cast<std::uint32_t>(std::countl_zero(op.live | op.ones));
}

void interleaved_dot(const interleaved_operand* a, const interleaved_operand* b, bool is_signed,
                     std::uint64_t* out) noexcept {
    if (operand_width(*a) <= thresholds::dot_fused_avx2_on_avx512_bits &&
        operand_width(*b) <= thresholds::dot_fused_avx2_on_avx512_bits) {
        dot_fused_avx2::interleaved_dot(a, b, is_signed, out);
        return;
    }
    if (is_signed) {
        dot_signedness<true>(*a, *b, out);
    } else {
        dot_signedness<false>(*a, *b, out);
    }
}

// ---- interleaved_and_popcounts ------------------------------------------------------------------
//
// VPOPCNTD counts each 32-bit lane in one instruction: a's stored planes fill the 16 lanes of
// one register per column (two above 16 planes; masked loads read nothing past the payload),
// four of b's words at a time are broadcast against them, and the lane counts add up over the
// 64 columns (at most 2048). The first pass over the columns also counts a's planes and b's
// (b's column in lanes the same way) and prefetches the next blocks. A 10 x 3-plane block
// pair is one pass: 4 x 64 AND-counts, plus 2 x 64 for the planes' own counts.
constexpr std::uint32_t pair_lanes = 16;
constexpr std::uint32_t pairs_together = 4;  // b's planes per pass

__mmask16 first_lanes(std::uint32_t stored, std::uint32_t first) noexcept {
    const std::uint32_t n = stored > first ? stored - first : 0;
    return static_cast<__mmask16>(n >= pair_lanes ? 0xFFFFu : (1u << n) - 1u);
}

// One pass: pairs of a's planes [first, first + 16) with b's [k0, k0 + Together); with Counts,
// also the planes' own counts (a's from `first`, all of b's) and the prefetches.
template <bool Counts, std::uint32_t Together>
void pair_pass(const interleaved_operand& a, std::uint32_t stored_a, const interleaved_operand& b, std::uint32_t stored_b,
               std::uint32_t first, std::uint32_t k0, std::uint32_t* pairs, std::uint32_t* pop_a, std::uint32_t* pop_b) noexcept {
    const std::size_t column_a = 4 * std::size_t{stored_a};
    const std::size_t column_b = 4 * std::size_t{stored_b};
    const __mmask16 mask = first_lanes(stored_a, first);
    const __mmask16 mask_b0 = first_lanes(stored_b, 0);
    const __mmask16 mask_b1 = first_lanes(stored_b, pair_lanes);
    std::size_t word[Together];  // byte offsets of b's words in a column
    for (std::uint32_t t = 0; t < Together; ++t) word[t] = 4 * std::size_t{k0 + t};
    spread_prefetch ahead_a(Counts ? a.ahead : nullptr, a.ahead_bytes, plane_words / 8);
    spread_prefetch ahead_b(Counts ? b.ahead : nullptr, b.ahead_bytes, plane_words / 8);
    __m512i acc[Together];
    for (auto& x : acc) x = _mm512_setzero_si512();
    __m512i count_a = _mm512_setzero_si512();
    __m512i count_b0 = _mm512_setzero_si512();
    __m512i count_b1 = _mm512_setzero_si512();
    for (std::size_t c = 0; c < plane_words; ++c) {
        if (Counts && c % 8 == 0) {
            ahead_a.step();
            ahead_b.step();
        }
        const __m512i w = _mm512_maskz_loadu_epi32(mask, a.payload + c * column_a + 4 * std::size_t{first});
        const std::uint8_t* column = b.payload + c * column_b;
#pragma GCC unroll 4
        for (std::uint32_t t = 0; t < Together; ++t) {
            std::uint32_t bw;
            std::memcpy(&bw, column + word[t], sizeof bw);
            acc[t] = _mm512_add_epi32(acc[t], _mm512_popcnt_epi32(_mm512_and_si512(w, _mm512_set1_epi32(static_cast<int>(bw)))));
        }
        if constexpr (Counts) {
            count_a = _mm512_add_epi32(count_a, _mm512_popcnt_epi32(w));
            count_b0 = _mm512_add_epi32(count_b0, _mm512_popcnt_epi32(_mm512_maskz_loadu_epi32(mask_b0, column)));
            if (mask_b1 != 0) {
                count_b1 = _mm512_add_epi32(count_b1, _mm512_popcnt_epi32(_mm512_maskz_loadu_epi32(mask_b1, column + 4 * pair_lanes)));
            }
        }
    }
    alignas(64) std::uint32_t sums[pair_lanes];
    const std::uint32_t n = std::popcount(static_cast<unsigned>(mask));
    for (std::uint32_t t = 0; t < Together; ++t) {
        _mm512_store_si512(sums, acc[t]);
        for (std::uint32_t l = 0; l < n; ++l) pairs[(first + l) * stored_b + k0 + t] = sums[l];
    }
    if constexpr (Counts) {
        _mm512_store_si512(sums, count_a);
        for (std::uint32_t l = 0; l < n; ++l) pop_a[first + l] = sums[l];
        if (first == 0) {
            const std::uint32_t nb0 = std::popcount(static_cast<unsigned>(mask_b0));
            _mm512_store_si512(sums, count_b0);
            for (std::uint32_t l = 0; l < nb0; ++l) pop_b[l] = sums[l];
            _mm512_store_si512(sums, count_b1);
            for (std::uint32_t l = nb0; l < stored_b; ++l) pop_b[l] = sums[l - nb0];
        }
    }
}

void interleaved_and_popcounts(const interleaved_operand* a, const interleaved_operand* b, std::uint32_t* pairs,
                               std::uint32_t* pop_a, std::uint32_t* pop_b) noexcept {
    const auto stored_a = static_cast<std::uint32_t>(std::popcount(a->live));
    const auto stored_b = static_cast<std::uint32_t>(std::popcount(b->live));
    if (stored_a == 0 || stored_b == 0) {  // no pairs: the counts alone
        avx2_kernels().interleaved_popcounts(a->payload, stored_a, pop_a, a->ahead, a->ahead_bytes);
        avx2_kernels().interleaved_popcounts(b->payload, stored_b, pop_b, b->ahead, b->ahead_bytes);
        return;
    }
    for (std::uint32_t first = 0; first < stored_a; first += pair_lanes) {
        for (std::uint32_t k0 = 0; k0 < stored_b; k0 += pairs_together) {
            // b's planes k0.. (at most 4), the first pass with the counts.
            using pass_fn = void (*)(const interleaved_operand&, std::uint32_t, const interleaved_operand&, std::uint32_t,
                                     std::uint32_t, std::uint32_t, std::uint32_t*, std::uint32_t*, std::uint32_t*) noexcept;
            static constexpr pass_fn with_counts[] = {&pair_pass<true, 1>, &pair_pass<true, 2>, &pair_pass<true, 3>,
                                                      &pair_pass<true, 4>};
            static constexpr pass_fn without[] = {&pair_pass<false, 1>, &pair_pass<false, 2>, &pair_pass<false, 3>,
                                                  &pair_pass<false, 4>};
            const std::uint32_t n = stored_b - k0 < pairs_together ? stored_b - k0 : pairs_together;
            (k0 == 0 ? with_counts : without)[n - 1](*a, stored_a, *b, stored_b, first, k0, pairs, pop_a, pop_b);
        }
    }
}

// ---- the encoder's measurements -------------------------------------------------------------
// VPOPCNTQ counts a 64-bit lane in one instruction, where AVX2 needs a nibble lookup, a
// shift and an add per byte; the Hamming matrix of a block's planes (496 plane pairs when all
// 32 are live) is most of what encoding an incompressible block costs.

constexpr std::size_t plane_registers = plane_bytes / 64;  // 4 ZMM registers per plane

[[gnu::always_inline]] inline __m512i popcount_lanes(__m512i x) noexcept { return _mm512_popcnt_epi64(x); }

std::uint64_t popcount_words(const std::uint32_t* words, std::size_t count) noexcept {
    __m512i acc = _mm512_setzero_si512();
    std::size_t i = 0;
    for (; i + 16 <= count; i += 16) acc = _mm512_add_epi64(acc, popcount_lanes(_mm512_loadu_si512(words + i)));
    if (i < count) {  // masked lanes are neither read nor counted
        const auto tail = static_cast<__mmask16>((1u << (count - i)) - 1);
        acc = _mm512_add_epi64(acc, popcount_lanes(_mm512_maskz_loadu_epi32(tail, words + i)));
    }
    return static_cast<std::uint64_t>(_mm512_reduce_add_epi64(acc));
}

void pair_popcounts(const std::uint32_t* planes, std::size_t count, std::uint16_t* out) noexcept {
    for (std::size_t i = 0; i < count; ++i)
        out[i * count + i] = static_cast<std::uint16_t>(popcount_words(planes + i * plane_words, plane_words));
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t pop_i = out[i * count + i];
        if (is_constant_plane(pop_i)) {
            fill_constant_pairs(out, count, i);
            continue;
        }
        const std::uint32_t* pi = planes + i * plane_words;
        __m512i a[plane_registers];
        for (std::size_t r = 0; r < plane_registers; ++r) a[r] = _mm512_loadu_si512(pi + 16 * r);
        for (std::size_t j = i + 1; j < count; ++j) {
            const std::uint32_t pop_j = out[j * count + j];
            std::uint16_t n = 0;
            if (is_constant_plane(pop_j)) {
                n = static_cast<std::uint16_t>(constant_pair(pop_i, pop_j));
            } else {
                const std::uint32_t* pj = planes + j * plane_words;
                __m512i d = _mm512_setzero_si512();
                for (std::size_t r = 0; r < plane_registers; ++r)
                    d = _mm512_add_epi64(d, popcount_lanes(_mm512_xor_si512(a[r], _mm512_loadu_si512(pj + 16 * r))));
                n = static_cast<std::uint16_t>(_mm512_reduce_add_epi64(d));
            }
            out[i * count + j] = n;
            out[j * count + i] = n;
        }
    }
}

// stats over 16 values a register (the AVX2 kernel's loop, twice as wide).
void stats(const std::uint32_t* v, std::size_t count, value_stats* out) noexcept {
    value_stats r;
    std::size_t i = 0;
    if (count > 16) {
        __m512i any = _mm512_setzero_si512(), all = _mm512_set1_epi32(-1);
        __m512i umin = all, umax = any, zz_any = any, zz_all = all;
        __m512i smin = _mm512_set1_epi32(INT32_MAX), smax = _mm512_set1_epi32(INT32_MIN);
        __m512i dmin = smin, dmax = smax;
        __m512i sum_low = any, sum_high = any, negatives = any;
        const __m512i low_half = _mm512_set1_epi32(0xFFFF);
        for (i = 1; i + 16 <= count; i += 16) {
            const __m512i x = _mm512_loadu_si512(v + i);
            const __m512i d = _mm512_sub_epi32(x, _mm512_loadu_si512(v + i - 1));
            any = _mm512_or_si512(any, x);
            all = _mm512_and_si512(all, x);
            umin = _mm512_min_epu32(umin, x);
            umax = _mm512_max_epu32(umax, x);
            smin = _mm512_min_epi32(smin, x);
            smax = _mm512_max_epi32(smax, x);
            dmin = _mm512_min_epi32(dmin, d);
            dmax = _mm512_max_epi32(dmax, d);
            const __m512i zz = _mm512_xor_si512(_mm512_slli_epi32(x, 1), _mm512_srai_epi32(x, 31));
            zz_any = _mm512_or_si512(zz_any, zz);
            zz_all = _mm512_and_si512(zz_all, zz);
            sum_low = _mm512_add_epi32(sum_low, _mm512_and_si512(x, low_half));
            sum_high = _mm512_add_epi32(sum_high, _mm512_srli_epi32(x, 16));
            negatives = _mm512_add_epi32(negatives, _mm512_srli_epi32(x, 31));
        }
        r.any = static_cast<std::uint32_t>(_mm512_reduce_or_epi32(any));
        r.all = static_cast<std::uint32_t>(_mm512_reduce_and_epi32(all));
        r.umin = _mm512_reduce_min_epu32(umin);
        r.umax = _mm512_reduce_max_epu32(umax);
        r.smin = _mm512_reduce_min_epi32(smin);
        r.smax = _mm512_reduce_max_epi32(smax);
        r.dmin = _mm512_reduce_min_epi32(dmin);
        r.dmax = _mm512_reduce_max_epi32(dmax);
        r.zz_any = static_cast<std::uint32_t>(_mm512_reduce_or_epi32(zz_any));
        r.zz_all = static_cast<std::uint32_t>(_mm512_reduce_and_epi32(zz_all));
        r.sum_low = static_cast<std::uint32_t>(_mm512_reduce_add_epi32(sum_low));
        r.sum_high = static_cast<std::uint32_t>(_mm512_reduce_add_epi32(sum_high));
        r.negatives = static_cast<std::uint32_t>(_mm512_reduce_add_epi32(negatives));
    }
    fold_value_stats(r, v, 0);
    for (std::size_t k = i == 0 ? 1 : i; k < count; ++k) fold_value_stats(r, v, k);
    *out = r;
}

// split_nonzero 16 values a register: a test gives the mask bits, a compressing store the
// values (the portable loop costs a few instructions per value).
std::size_t split_nonzero(const std::uint32_t* values, std::size_t count, std::uint32_t* mask,
                          std::uint32_t* stored) noexcept {
    std::size_t kept = 0;
    for (std::size_t w = 0; w < plane_words; ++w) {
        std::uint32_t bits = 0;
        for (std::size_t half = 0; half < 2; ++half) {
            const std::size_t first = 32 * w + 16 * half;
            if (first >= count) break;
            const std::size_t n = count - first < 16 ? count - first : 16;
            const auto lanes = static_cast<__mmask16>((1u << n) - 1);
            const __m512i v = _mm512_maskz_loadu_epi32(lanes, values + first);
            const __mmask16 nonzero = _mm512_test_epi32_mask(v, v);
            _mm512_mask_compressstoreu_epi32(stored + kept, nonzero, v);
            kept += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(nonzero)));
            bits |= static_cast<std::uint32_t>(nonzero) << (16 * half);
        }
        mask[w] = bits;
    }
    return kept;
}

// narrow_planes (kernels.hpp): eq's 64 words in 4 registers for the whole pass, each plane one
// ternary-logic instruction per register (acc & (flip ^ word), the plane's words its memory
// operand), where the AVX2 kernel takes a load, an XOR and an AND per 8 words. With Count
// (narrow_planes_count), the popcount of the result from those registers: a VPOPCNTQ each.
template <bool Count>
std::uint32_t narrow_planes_into(std::uint32_t* eq, const std::uint8_t* const* planes, const std::uint32_t* flips,
                                 std::uint32_t count, bool fresh) noexcept {
    constexpr std::uint32_t regs = plane_words / 16;
    constexpr int acc_and_xor = 0x60;  // A & (B ^ C) for A = 0xF0, B = 0xCC, C = 0xAA
    __m512i acc[regs];
    for (std::uint32_t r = 0; r < regs; ++r) acc[r] = fresh ? _mm512_set1_epi32(-1) : _mm512_loadu_si512(eq + 16 * r);
    for (std::uint32_t k = 0; k < count; ++k) {
        const std::uint8_t* p = planes[k];
        const __m512i flip = _mm512_set1_epi32(static_cast<int>(flips[k]));
        for (std::uint32_t r = 0; r < regs; ++r)
            acc[r] = _mm512_ternarylogic_epi32(acc[r], flip, _mm512_loadu_si512(p + 64 * r), acc_and_xor);
    }
    __m512i any = _mm512_setzero_si512();
    for (std::uint32_t r = 0; r < regs; ++r) {
        _mm512_storeu_si512(eq + 16 * r, acc[r]);
        if constexpr (Count) any = _mm512_add_epi64(any, _mm512_popcnt_epi64(acc[r]));
        else any = _mm512_or_si512(any, acc[r]);
    }
    if constexpr (Count) return static_cast<std::uint32_t>(_mm512_reduce_add_epi64(any));
    return _mm512_test_epi32_mask(any, any) != 0 ? 1u : 0u;
}

bool narrow_planes(std::uint32_t* eq, const std::uint8_t* const* planes, const std::uint32_t* flips,
                   std::uint32_t count, bool fresh) noexcept {
    return narrow_planes_into<false>(eq, planes, flips, count, fresh) != 0;
}

std::uint32_t narrow_planes_count(std::uint32_t* eq, const std::uint8_t* const* planes, const std::uint32_t* flips,
                                  std::uint32_t count, bool fresh) noexcept {
    return narrow_planes_into<true>(eq, planes, flips, count, fresh);
}

// equal_interleaved (kernels.hpp): rows of 9 planes or more 16 to a register
// (equal_rows_avx512.cpp), shorter ones by the AVX2 fold, which packs several rows in a
// register. bed_name (19 planes) count_eq: about 300 instructions a block in the kernel, 69 a
// group of 16 columns (counted from GCC 12's output: callgrind cannot run AVX-512), where the
// AVX2 fold takes 502 (callgrind).
std::uint32_t equal_interleaved(const std::uint8_t* payload, std::uint32_t stored, std::uint32_t bits,
                                std::uint32_t* eq) noexcept {
    if (stored < equal_rows_avx512::min_planes || stored > plane_count)
        return avx2_kernels().equal_interleaved(payload, stored, bits, eq);
    return equal_rows_avx512::equal_interleaved(payload, stored, bits, eq);
}

// key_presence 16 values a register (the AVX2 kernel's shifts, kernels_codec.hpp): a shift,
// an OR and a subtraction a register and word of keys, ~1.6 instructions a value at 8 words,
// below key_presence_bytes' ~2.3 at every width, and half its time at 8 words (246 vs 468 ns a
// block of 250 keys, dev VM microbenchmark; AVX2's shifts at 8 words: 469 ns).
template <std::uint32_t W>
void key_presence_shifted(const std::uint32_t* v, std::size_t count, std::uint32_t base, std::uint32_t* out) noexcept {
    const __m512i one = _mm512_set1_epi32(1);
    __m512i acc[W], from[W];
#pragma GCC unroll 8
    for (std::uint32_t w = 0; w < W; ++w) {
        acc[w] = _mm512_setzero_si512();
        from[w] = _mm512_set1_epi32(static_cast<int>(base + 32 * w));
    }
    std::size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m512i x = _mm512_loadu_si512(v + i);
#pragma GCC unroll 8
        for (std::uint32_t w = 0; w < W; ++w)  // a count of 32 or more: 0
            acc[w] = _mm512_or_si512(acc[w], _mm512_sllv_epi32(one, _mm512_sub_epi32(x, from[w])));
    }
    for (std::uint32_t w = 0; w < W; ++w) out[w] |= static_cast<std::uint32_t>(_mm512_reduce_or_epi32(acc[w]));
    for (; i < count; ++i) {
        const std::uint32_t k = v[i] - base;
        out[k >> 5] |= 1u << (k & 31);
    }
}

void key_presence(const std::uint32_t* v, std::size_t count, std::uint32_t base, std::uint32_t words,
                  std::uint32_t* out) noexcept {
    switch (words) {
        case 1: return key_presence_shifted<1>(v, count, base, out);
        case 2: return key_presence_shifted<2>(v, count, base, out);
        case 3: return key_presence_shifted<3>(v, count, base, out);
        case 4: return key_presence_shifted<4>(v, count, base, out);
        case 5: return key_presence_shifted<5>(v, count, base, out);
        case 6: return key_presence_shifted<6>(v, count, base, out);
        case 7: return key_presence_shifted<7>(v, count, base, out);
        default: return key_presence_shifted<8>(v, count, base, out);
    }
}

kernel_table make_table() noexcept {
    kernel_table table = avx2_kernels();
    table.path = simd_path::avx512;
    table.interleaved_transpose = &interleaved_transpose;
    table.interleaved_dot = &interleaved_dot;
    table.interleaved_and_popcounts = &interleaved_and_popcounts;
    table.pair_popcounts = &pair_popcounts;
    table.popcount_words = &popcount_words;
    table.stats = &stats;
    table.key_presence = &key_presence;
    table.split_nonzero = &split_nonzero;
    table.delta_decode = &delta_decode;
    table.untranspose_in_cache = &untranspose_in_cache;
    table.narrow_planes = &narrow_planes;
    table.narrow_planes_count = &narrow_planes_count;
    table.equal_interleaved = &equal_interleaved;
    return table;
}

}  // namespace

const kernel_table& avx512_kernels() noexcept {
    static const kernel_table table = make_table();
    return table;
}

}  // namespace bitplane::detail
