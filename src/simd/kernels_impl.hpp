// The SIMD kernels, written once as templates over an xsimd architecture tag.
//
// Each instruction-set translation unit (kernels_sse2.cpp, kernels_avx2.cpp) defines
// BITPLANE_KERNEL_NS to a name of its own and then includes this file, so every function
// here lands in bitplane::detail::<that name>: the same inline function compiled with
// different flags never meets itself at link time (no ODR clash, no AVX2 code leaking into
// the SSE2 or scalar paths). For the same reason nothing here instantiates a std:: template.
//
// The kernels use xsimd::batch for what xsimd 8.1 offers (loads, stores, bitwise ops, byte
// adds). What 8.1 lacks -- byte movemask, byte shuffles, per-byte popcount, byte sums -- is in
// small helpers overloaded on the architecture tag, written with intrinsics, one overload
// per instruction set. The SSE2 overloads use SSE2 only (no pshufb, no popcnt).
#pragma once

#ifndef BITPLANE_KERNEL_NS
#error "define BITPLANE_KERNEL_NS (a namespace named after the instruction set) before including kernels_impl.hpp"
#endif

#include "simd/kernels.hpp"
#include "simd/spread_prefetch.hpp"

#include <xsimd/xsimd.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>

#if XSIMD_WITH_SSE2
#include <immintrin.h>
#endif

namespace bitplane::detail::BITPLANE_KERNEL_NS {

template <class A>
using u8 = xsimd::batch<std::uint8_t, A>;
template <class A>
using u32 = xsimd::batch<std::uint32_t, A>;

// ---- architecture helpers: what xsimd 8.1 does not offer -----------------------------------
//
// For an arch with S-byte registers (S = 16 or 32):
//   byte_movemask(x)          bit i = top bit of byte i (S bits)
//   byte_transpose(v, r)      32 values in 32/(S/4) batches -> r[k][h]: byte k of values
//                             h*S .. h*S+S-1, in order
//   byte_untranspose(r, v)    the inverse
//   expand_bits(w, e)         e[h] byte i = 0xFF if bit h*S+i of w is set, else 0
//   byte_popcount(x)          popcount of each byte
//   sum_bytes(x)              sum of all bytes (at most S * 255)
//   popcount32(w)             popcount of one word

#if XSIMD_WITH_SSE2

inline std::uint32_t byte_movemask(const u8<xsimd::sse2>& x, xsimd::sse2) noexcept {
    return static_cast<std::uint32_t>(_mm_movemask_epi8(x));
}

// Without pshufb: three rounds of byte interleaving sort the 16 bytes of four registers by
// byte index, then 64-bit unpacks join the halves.
inline void byte_transpose16(__m128i r0, __m128i r1, __m128i r2, __m128i r3, u8<xsimd::sse2>* out) noexcept {
    const __m128i t0 = _mm_unpacklo_epi8(r0, r1);  // values 0,4 / 1,5 interleaved by byte
    const __m128i t1 = _mm_unpackhi_epi8(r0, r1);  // values 2,6 / 3,7
    const __m128i t2 = _mm_unpacklo_epi8(r2, r3);
    const __m128i t3 = _mm_unpackhi_epi8(r2, r3);
    const __m128i u0 = _mm_unpacklo_epi8(t0, t1);  // per byte k: values 0,2,4,6
    const __m128i u1 = _mm_unpackhi_epi8(t0, t1);  // per byte k: values 1,3,5,7
    const __m128i u2 = _mm_unpacklo_epi8(t2, t3);
    const __m128i u3 = _mm_unpackhi_epi8(t2, t3);
    const __m128i w0 = _mm_unpacklo_epi8(u0, u1);  // byte 0 of values 0..7, byte 1 of 0..7
    const __m128i w1 = _mm_unpackhi_epi8(u0, u1);  // byte 2, byte 3
    const __m128i w2 = _mm_unpacklo_epi8(u2, u3);  // same for values 8..15
    const __m128i w3 = _mm_unpackhi_epi8(u2, u3);
    out[0] = _mm_unpacklo_epi64(w0, w2);
    out[2] = _mm_unpackhi_epi64(w0, w2);
    out[4] = _mm_unpacklo_epi64(w1, w3);
    out[6] = _mm_unpackhi_epi64(w1, w3);
}

inline void byte_transpose(const u32<xsimd::sse2> (&v)[8], u8<xsimd::sse2> (&r)[4][2], xsimd::sse2) noexcept {
    u8<xsimd::sse2> lo[8];
    u8<xsimd::sse2> hi[8];
    byte_transpose16(v[0], v[1], v[2], v[3], lo);
    byte_transpose16(v[4], v[5], v[6], v[7], hi);
    for (std::size_t k = 0; k < 4; ++k) {
        r[k][0] = lo[2 * k];
        r[k][1] = hi[2 * k];
    }
}

inline void byte_untranspose(const u8<xsimd::sse2> (&r)[4][2], u32<xsimd::sse2> (&v)[8], xsimd::sse2) noexcept {
    for (std::size_t h = 0; h < 2; ++h) {
        const __m128i t0 = _mm_unpacklo_epi8(r[0][h], r[1][h]);  // low halves of values 0..7
        const __m128i t1 = _mm_unpackhi_epi8(r[0][h], r[1][h]);  // values 8..15
        const __m128i t2 = _mm_unpacklo_epi8(r[2][h], r[3][h]);  // high halves
        const __m128i t3 = _mm_unpackhi_epi8(r[2][h], r[3][h]);
        v[4 * h + 0] = _mm_unpacklo_epi16(t0, t2);
        v[4 * h + 1] = _mm_unpackhi_epi16(t0, t2);
        v[4 * h + 2] = _mm_unpacklo_epi16(t1, t3);
        v[4 * h + 3] = _mm_unpackhi_epi16(t1, t3);
    }
}

inline void expand_bits(std::uint32_t w, u8<xsimd::sse2> (&e)[2], xsimd::sse2) noexcept {
    __m128i x = _mm_cvtsi32_si128(static_cast<int>(w));
    x = _mm_unpacklo_epi8(x, x);   // b0 b0 b1 b1 b2 b2 b3 b3
    x = _mm_unpacklo_epi16(x, x);  // b0 x4, b1 x4, b2 x4, b3 x4
    const __m128i bits = _mm_set1_epi64x(static_cast<long long>(0x8040201008040201ULL));
    const __m128i lo = _mm_and_si128(_mm_shuffle_epi32(x, 0x50), bits);  // b0 x8, b1 x8
    const __m128i hi = _mm_and_si128(_mm_shuffle_epi32(x, 0xFA), bits);  // b2 x8, b3 x8
    e[0] = _mm_cmpeq_epi8(lo, bits);
    e[1] = _mm_cmpeq_epi8(hi, bits);
}

// SWAR popcount per byte (16-bit shifts; the masks drop the bits that cross a byte).
inline u8<xsimd::sse2> byte_popcount(const u8<xsimd::sse2>& v, xsimd::sse2) noexcept {
    const __m128i m1 = _mm_set1_epi8(0x55);
    const __m128i m2 = _mm_set1_epi8(0x33);
    const __m128i m4 = _mm_set1_epi8(0x0F);
    __m128i x = v;
    x = _mm_sub_epi8(x, _mm_and_si128(_mm_srli_epi16(x, 1), m1));
    x = _mm_add_epi8(_mm_and_si128(x, m2), _mm_and_si128(_mm_srli_epi16(x, 2), m2));
    return _mm_and_si128(_mm_add_epi8(x, _mm_srli_epi16(x, 4)), m4);
}

inline std::uint32_t sum_bytes(const u8<xsimd::sse2>& x, xsimd::sse2) noexcept {
    const __m128i s = _mm_sad_epu8(x, _mm_setzero_si128());
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_add_epi64(s, _mm_unpackhi_epi64(s, s))));
}

inline std::uint32_t popcount32(std::uint32_t w, xsimd::sse2) noexcept {
    w = w - ((w >> 1) & 0x55555555u);
    w = (w & 0x33333333u) + ((w >> 2) & 0x33333333u);
    w = (w + (w >> 4)) & 0x0F0F0F0Fu;
    return (w * 0x01010101u) >> 24;
}

// Products of the low 32 bits of each 64-bit lane, as 64-bit lanes (pmuludq).
inline xsimd::batch<std::uint64_t, xsimd::sse2> mul_even_u32(const xsimd::batch<std::uint64_t, xsimd::sse2>& a,
                                                             const xsimd::batch<std::uint64_t, xsimd::sse2>& b,
                                                             xsimd::sse2) noexcept {
    return _mm_mul_epu32(a, b);
}

// The four byte counters of each 32-bit lane summed into that lane.
inline u32<xsimd::sse2> widen_byte_counts(const u8<xsimd::sse2>& bytes, xsimd::sse2) noexcept {
    const __m128i low = _mm_set1_epi16(0x00FF);
    const __m128i x = bytes;
    const __m128i pairs = _mm_add_epi16(_mm_and_si128(x, low), _mm_and_si128(_mm_srli_epi16(x, 8), low));
    return _mm_add_epi32(_mm_and_si128(pairs, _mm_set1_epi32(0xFFFF)), _mm_srli_epi32(pairs, 16));
}

// pdep without BMI2: the low bits of `bits`, in order, at the set bits of `mask`.
inline std::uint32_t deposit32(std::uint32_t bits, std::uint32_t mask, xsimd::sse2) noexcept {
    std::uint32_t out = 0;
    for (; mask != 0; mask &= mask - 1, bits >>= 1) {
        out |= (0u - (bits & 1u)) & (mask & (0u - mask));
    }
    return out;
}

// pext without BMI2: the bits of `bits` at the set bits of `mask`, packed from bit 0.
inline std::uint32_t extract32(std::uint32_t bits, std::uint32_t mask, xsimd::sse2) noexcept {
    std::uint32_t out = 0;
    for (std::uint32_t k = 0; mask != 0; mask &= mask - 1, ++k) {
        out |= static_cast<std::uint32_t>((bits & mask & (0u - mask)) != 0) << k;
    }
    return out;
}

#endif  // XSIMD_WITH_SSE2

#if XSIMD_WITH_AVX2

inline std::uint32_t byte_movemask(const u8<xsimd::avx2>& x, xsimd::avx2) noexcept {
    return static_cast<std::uint32_t>(_mm256_movemask_epi8(x));
}

// pshufb gathers byte k of the four values in each 128-bit lane into dword k; a dword
// permute makes qword k hold byte k of the register's eight values; a 4 x 4 qword transpose
// (unpack + lane permute) then collects byte k of all 32 values in register k.
inline void byte_transpose(const u32<xsimd::avx2> (&v)[4], u8<xsimd::avx2> (&r)[4][1], xsimd::avx2) noexcept {
    const __m256i by_byte = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,  //
                                             0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m256i join_lanes = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    __m256i a[4];
    for (std::size_t q = 0; q < 4; ++q) {
        a[q] = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v[q], by_byte), join_lanes);
    }
    const __m256i lo01 = _mm256_unpacklo_epi64(a[0], a[1]);  // byte 0 of 0..15 | byte 2 of 0..15
    const __m256i hi01 = _mm256_unpackhi_epi64(a[0], a[1]);  // byte 1 | byte 3
    const __m256i lo23 = _mm256_unpacklo_epi64(a[2], a[3]);  // same for values 16..31
    const __m256i hi23 = _mm256_unpackhi_epi64(a[2], a[3]);
    r[0][0] = _mm256_permute2x128_si256(lo01, lo23, 0x20);
    r[1][0] = _mm256_permute2x128_si256(hi01, hi23, 0x20);
    r[2][0] = _mm256_permute2x128_si256(lo01, lo23, 0x31);
    r[3][0] = _mm256_permute2x128_si256(hi01, hi23, 0x31);
}

inline void byte_untranspose(const u8<xsimd::avx2> (&r)[4][1], u32<xsimd::avx2> (&v)[4], xsimd::avx2) noexcept {
    const __m256i t0 = _mm256_unpacklo_epi8(r[0][0], r[1][0]);  // low halves: values 0..7 | 16..23
    const __m256i t1 = _mm256_unpackhi_epi8(r[0][0], r[1][0]);  // values 8..15 | 24..31
    const __m256i t2 = _mm256_unpacklo_epi8(r[2][0], r[3][0]);  // high halves
    const __m256i t3 = _mm256_unpackhi_epi8(r[2][0], r[3][0]);
    const __m256i w0 = _mm256_unpacklo_epi16(t0, t2);  // values 0..3 | 16..19
    const __m256i w1 = _mm256_unpackhi_epi16(t0, t2);  // values 4..7 | 20..23
    const __m256i w2 = _mm256_unpacklo_epi16(t1, t3);  // values 8..11 | 24..27
    const __m256i w3 = _mm256_unpackhi_epi16(t1, t3);  // values 12..15 | 28..31
    v[0] = _mm256_permute2x128_si256(w0, w1, 0x20);
    v[1] = _mm256_permute2x128_si256(w2, w3, 0x20);
    v[2] = _mm256_permute2x128_si256(w0, w1, 0x31);
    v[3] = _mm256_permute2x128_si256(w2, w3, 0x31);
}

inline void expand_bits(std::uint32_t w, u8<xsimd::avx2> (&e)[1], xsimd::avx2) noexcept {
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,  //
                                            2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bits = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ULL));
    const __m256i x = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(w)), spread);
    e[0] = _mm256_cmpeq_epi8(_mm256_and_si256(x, bits), bits);
}

// Nibble lookup (pshufb) popcount per byte.
inline u8<xsimd::avx2> byte_popcount(const u8<xsimd::avx2>& x, xsimd::avx2) noexcept {
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,  //
                                         0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0F);
    const __m256i lo = _mm256_and_si256(x, low);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), low);
    return _mm256_add_epi8(_mm256_shuffle_epi8(lut, lo), _mm256_shuffle_epi8(lut, hi));
}

inline std::uint32_t sum_bytes(const u8<xsimd::avx2>& x, xsimd::avx2) noexcept {
    const __m256i s = _mm256_sad_epu8(x, _mm256_setzero_si256());
    __m128i t = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    t = _mm_add_epi64(t, _mm_unpackhi_epi64(t, t));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(t));
}

inline std::uint32_t popcount32(std::uint32_t w, xsimd::avx2) noexcept {
    return static_cast<std::uint32_t>(_mm_popcnt_u32(w));  // the AVX2 unit is built with -mpopcnt
}

inline xsimd::batch<std::uint64_t, xsimd::avx2> mul_even_u32(const xsimd::batch<std::uint64_t, xsimd::avx2>& a,
                                                             const xsimd::batch<std::uint64_t, xsimd::avx2>& b,
                                                             xsimd::avx2) noexcept {
    return _mm256_mul_epu32(a, b);
}

// The four byte counters of each 32-bit lane summed into that lane, by two multiply-adds.
inline u32<xsimd::avx2> widen_byte_counts(const u8<xsimd::avx2>& bytes, xsimd::avx2) noexcept {
    const __m256i pairs = _mm256_maddubs_epi16(bytes, _mm256_set1_epi8(1));
    return _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
}

inline std::uint32_t deposit32(std::uint32_t bits, std::uint32_t mask, xsimd::avx2) noexcept {
    return _pdep_u32(bits, mask);  // the AVX2 unit is built with -mbmi2
}

inline std::uint32_t extract32(std::uint32_t bits, std::uint32_t mask, xsimd::avx2) noexcept {
    return _pext_u32(bits, mask);  // the AVX2 unit is built with -mbmi2
}

#endif  // XSIMD_WITH_AVX2

// ---- the kernels --------------------------------------------------------------------------

inline constexpr std::size_t column_values = 32;  // values per plane word

inline const std::uint8_t* as_bytes(const std::uint32_t* p) noexcept {
    return reinterpret_cast<const std::uint8_t*>(p);
}

// Per column of 32 values: byte-transpose them into 4 byte-planes, then each byte-plane gives
// 8 plane words by movemask (top bit) and add-to-self (shift every byte left by one).
// Output word w (= bit w of the 32 input words) goes to out[w * stride].
template <class A>
[[gnu::always_inline]] inline void transpose_column(const u32<A> (&v)[column_values / u32<A>::size],
                                                    std::uint32_t* out, std::size_t stride) noexcept {
    constexpr std::size_t bytes = u8<A>::size;
    constexpr std::size_t parts = column_values / bytes;
    u8<A> r[4][parts];
    byte_transpose(v, r, A{});
    for (std::size_t k = 0; k < 4; ++k) {
        for (std::size_t b = 8; b-- > 0;) {
            std::uint32_t word = 0;
            for (std::size_t h = 0; h < parts; ++h) {
                word |= byte_movemask(r[k][h], A{}) << (h * bytes);
            }
            out[(8 * k + b) * stride] = word;
            for (std::size_t h = 0; h < parts; ++h) {
                r[k][h] += r[k][h];
            }
        }
    }
}

template <class A>
void transpose(const std::uint32_t* values, std::uint32_t* planes) noexcept {
    constexpr std::size_t loads = column_values / u32<A>::size;
    for (std::size_t c = 0; c < plane_words; ++c) {
        u32<A> v[loads];
        for (std::size_t i = 0; i < loads; ++i) {
            v[i] = u32<A>::load_unaligned(values + column_values * c + u32<A>::size * i);
        }
        transpose_column<A>(v, planes + c, plane_words);
    }
}

// Per column: each live plane word is spread to one byte per value and merged into its
// byte-plane; the 4 byte-planes are then byte-untransposed into 32 values. Planes not in
// `live` are never read.
template <class A>
void untranspose(const std::uint32_t* planes, std::uint32_t live, std::uint32_t* values) noexcept {
    constexpr std::size_t stores = column_values / u32<A>::size;
    constexpr std::size_t parts = column_values / u8<A>::size;
    struct live_plane {
        const std::uint32_t* words;
        u8<A> bit;  // the plane's bit within its byte-plane
    };
    live_plane lp[plane_count];
    std::size_t group_end[4];
    std::size_t n = 0;
    for (std::size_t k = 0; k < 4; ++k) {
        for (std::size_t b = 0; b < 8; ++b) {
            if (((live >> (8 * k + b)) & 1u) != 0) {
                lp[n++] = {planes + (8 * k + b) * plane_words, u8<A>(static_cast<std::uint8_t>(1u << b))};
            }
        }
        group_end[k] = n;
    }
    // Two columns per round: the walk over the live list is shared.
    constexpr std::size_t cols = 2;
    static_assert(plane_words % cols == 0);
    for (std::size_t c0 = 0; c0 < plane_words; c0 += cols) {
        u8<A> r[cols][4][parts];
        std::size_t t = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            // Local accumulators: merging straight into r kept it in memory, and every plane
            // then waited on a store-to-load round trip.
            u8<A> acc[cols][parts];
            for (std::size_t c = 0; c < cols; ++c) {
                for (std::size_t h = 0; h < parts; ++h) {
                    acc[c][h] = u8<A>(std::uint8_t{0});
                }
            }
            for (; t < group_end[k]; ++t) {
                for (std::size_t c = 0; c < cols; ++c) {
                    u8<A> e[parts];
                    expand_bits(lp[t].words[c0 + c], e, A{});
                    for (std::size_t h = 0; h < parts; ++h) {
                        acc[c][h] |= e[h] & lp[t].bit;
                    }
                }
            }
            for (std::size_t c = 0; c < cols; ++c) {
                for (std::size_t h = 0; h < parts; ++h) {
                    r[c][k][h] = acc[c][h];
                }
            }
        }
        for (std::size_t c = 0; c < cols; ++c) {
            u32<A> v[stores];
            byte_untranspose(r[c], v, A{});
            for (std::size_t i = 0; i < stores; ++i) {
                v[i].store_unaligned(values + column_values * (c0 + c) + u32<A>::size * i);
            }
        }
    }
}

// The diagonal first (it also finds the constant planes); then plane i stays in registers
// while every later plane j is XORed against it. Per-byte counts are summed in bytes (a plane
// is at most 16 registers, 16 * 8 < 256) and reduced once per pair.
template <class A>
void pair_popcounts(const std::uint32_t* planes, std::size_t count, std::uint16_t* out) noexcept {
    constexpr std::size_t regs = plane_bytes / u8<A>::size;
    constexpr std::size_t step = u8<A>::size;
    static_assert(regs * 8 < 256, "byte counters would overflow");
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint8_t* pi = as_bytes(planes + i * plane_words);
        u8<A> acc(std::uint8_t{0});
        for (std::size_t r = 0; r < regs; ++r) {
            acc += byte_popcount(u8<A>::load_unaligned(pi + step * r), A{});
        }
        out[i * count + i] = static_cast<std::uint16_t>(sum_bytes(acc, A{}));
    }
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t pop_i = out[i * count + i];
        if (is_constant_plane(pop_i)) {
            fill_constant_pairs(out, count, i);
            continue;
        }
        const std::uint8_t* pi = as_bytes(planes + i * plane_words);
        u8<A> a[regs];
        for (std::size_t r = 0; r < regs; ++r) {
            a[r] = u8<A>::load_unaligned(pi + step * r);
        }
        for (std::size_t j = i + 1; j < count; ++j) {
            const std::uint32_t pop_j = out[j * count + j];
            std::uint16_t n = 0;
            if (is_constant_plane(pop_j)) {
                n = static_cast<std::uint16_t>(constant_pair(pop_i, pop_j));
            } else {
                const std::uint8_t* pj = as_bytes(planes + j * plane_words);
                u8<A> d(std::uint8_t{0});
                for (std::size_t r = 0; r < regs; ++r) {
                    d += byte_popcount(a[r] ^ u8<A>::load_unaligned(pj + step * r), A{});
                }
                n = static_cast<std::uint16_t>(sum_bytes(d, A{}));
            }
            out[i * count + j] = n;
            out[j * count + i] = n;
        }
    }
}

template <class A>
std::uint64_t popcount_words(const std::uint32_t* words, std::size_t count) noexcept {
    constexpr std::size_t step = u8<A>::size;
    constexpr std::size_t words_per_batch = step / 4;
    constexpr std::size_t flush = 31;  // 31 * 8 = 248: byte counters cannot overflow
    const std::uint8_t* bytes = as_bytes(words);
    const std::size_t batches = count / words_per_batch;
    std::uint64_t total = 0;
    std::size_t n = 0;
    while (n < batches) {
        const std::size_t end = batches - n < flush ? batches : n + flush;
        u8<A> acc(std::uint8_t{0});
        for (; n < end; ++n) {
            acc += byte_popcount(u8<A>::load_unaligned(bytes + step * n), A{});
        }
        total += sum_bytes(acc, A{});
    }
    for (std::size_t w = batches * words_per_batch; w < count; ++w) {
        total += popcount32(words[w], A{});
    }
    return total;
}

// One pass over the values for OR/AND, unsigned and signed min/max, the range of the
// differences and the OR/AND of the zigzagged values (the encoder's transform estimates), and
// the sum's 16-bit halves (vector_core's block summaries, without a second pass).
template <class A>
void stats(const std::uint32_t* v, std::size_t count, value_stats* out) noexcept {
    using s32 = xsimd::batch<std::int32_t, A>;
    constexpr std::size_t step = u32<A>::size;
    value_stats r;
    std::size_t i = 0;
    if (count > step) {
        u32<A> any(0u), all(~0u), umin(~0u), umax(0u), zz_any(0u), zz_all(~0u);
        s32 smin(INT32_MAX), smax(INT32_MIN), dmin(INT32_MAX), dmax(INT32_MIN);
        u32<A> sum_low(0u), sum_high(0u), negatives(0u);
        for (i = 1; i + step <= count; i += step) {
            const u32<A> x = u32<A>::load_unaligned(v + i);
            const u32<A> previous = u32<A>::load_unaligned(v + i - 1);
            const s32 sx = xsimd::bitwise_cast<s32>(x);
            const s32 d = xsimd::bitwise_cast<s32>(x - previous);
            any |= x;
            all &= x;
            umin = xsimd::min(umin, x);
            umax = xsimd::max(umax, x);
            smin = xsimd::min(smin, sx);
            smax = xsimd::max(smax, sx);
            dmin = xsimd::min(dmin, d);
            dmax = xsimd::max(dmax, d);
            const u32<A> zz = (x << 1) ^ xsimd::bitwise_cast<u32<A>>(sx >> 31);
            zz_any |= zz;
            zz_all &= zz;
            sum_low += x & u32<A>(0xFFFFu);
            sum_high += x >> 16;
            negatives += x >> 31;
        }
        alignas(64) std::uint32_t lanes[13][step];
        any.store_aligned(lanes[0]);
        all.store_aligned(lanes[1]);
        umin.store_aligned(lanes[2]);
        umax.store_aligned(lanes[3]);
        zz_any.store_aligned(lanes[4]);
        zz_all.store_aligned(lanes[5]);
        xsimd::bitwise_cast<u32<A>>(smin).store_aligned(lanes[6]);
        xsimd::bitwise_cast<u32<A>>(smax).store_aligned(lanes[7]);
        xsimd::bitwise_cast<u32<A>>(dmin).store_aligned(lanes[8]);
        xsimd::bitwise_cast<u32<A>>(dmax).store_aligned(lanes[9]);
        sum_low.store_aligned(lanes[10]);
        sum_high.store_aligned(lanes[11]);
        negatives.store_aligned(lanes[12]);
        for (std::size_t k = 0; k < step; ++k) {
            r.any |= lanes[0][k];
            r.all &= lanes[1][k];
            r.umin = r.umin < lanes[2][k] ? r.umin : lanes[2][k];
            r.umax = r.umax > lanes[3][k] ? r.umax : lanes[3][k];
            r.zz_any |= lanes[4][k];
            r.zz_all &= lanes[5][k];
            const auto sn = static_cast<std::int32_t>(lanes[6][k]), sx = static_cast<std::int32_t>(lanes[7][k]);
            const auto dn = static_cast<std::int32_t>(lanes[8][k]), dx = static_cast<std::int32_t>(lanes[9][k]);
            r.smin = r.smin < sn ? r.smin : sn;
            r.smax = r.smax > sx ? r.smax : sx;
            r.dmin = r.dmin < dn ? r.dmin : dn;
            r.dmax = r.dmax > dx ? r.dmax : dx;
            r.sum_low += lanes[10][k];
            r.sum_high += lanes[11][k];
            r.negatives += lanes[12][k];
        }
    }
    // Value 0 and the tail are folded in one at a time.
    fold_value_stats(r, v, 0);
    for (std::size_t k = i == 0 ? 1 : i; k < count; ++k) fold_value_stats(r, v, k);
    *out = r;
}

// ---- reductions and similarity (issue #3) ---------------------------------------------------

// One row of the AND matrix over `regs` whole registers per plane: plane a stays in registers
// while every b plane streams past it, two at a time (sharing the a registers). Byte counters
// hold at most 8 * regs < 256. Always inlined, so that the whole-plane call gets a constant
// `regs` and fully unrolled loops.
template <class A>
[[gnu::always_inline]] inline void and_popcount_row(const std::uint8_t* pa, const std::uint32_t* const* b,
                                                    std::size_t nb, std::size_t regs, std::uint32_t* out) noexcept {
    constexpr std::size_t step = u8<A>::size;
    constexpr std::size_t max_regs = plane_bytes / step;
    static_assert(max_regs * 8 < 256, "byte counters would overflow");
    u8<A> ra[max_regs];
    for (std::size_t r = 0; r < regs; ++r) ra[r] = u8<A>::load_unaligned(pa + step * r);
    std::size_t k = 0;
    for (; k + 2 <= nb; k += 2) {
        const std::uint8_t* p0 = as_bytes(b[k]);
        const std::uint8_t* p1 = as_bytes(b[k + 1]);
        u8<A> acc0(std::uint8_t{0});
        u8<A> acc1(std::uint8_t{0});
        for (std::size_t r = 0; r < regs; ++r) {
            acc0 += byte_popcount(ra[r] & u8<A>::load_unaligned(p0 + step * r), A{});
            acc1 += byte_popcount(ra[r] & u8<A>::load_unaligned(p1 + step * r), A{});
        }
        out[k] = sum_bytes(acc0, A{});
        out[k + 1] = sum_bytes(acc1, A{});
    }
    if (k < nb) {
        const std::uint8_t* pb = as_bytes(b[k]);
        u8<A> acc(std::uint8_t{0});
        for (std::size_t r = 0; r < regs; ++r) acc += byte_popcount(ra[r] & u8<A>::load_unaligned(pb + step * r), A{});
        out[k] = sum_bytes(acc, A{});
    }
}

template <class A>
void and_popcounts(const std::uint32_t* const* a, std::size_t na, const std::uint32_t* const* b, std::size_t nb,
                   std::size_t words, std::uint32_t* out) noexcept {
    constexpr std::size_t words_per_reg = u8<A>::size / 4;
    constexpr std::size_t full = plane_words / words_per_reg;
    words = words < plane_words ? words : plane_words;
    const std::size_t regs = words / words_per_reg;
    for (std::size_t j = 0; j < na; ++j) {
        std::uint32_t* row = out + j * nb;
        if (regs == full) {
            and_popcount_row<A>(as_bytes(a[j]), b, nb, full, row);
        } else {
            and_popcount_row<A>(as_bytes(a[j]), b, nb, regs, row);
        }
        for (std::size_t w = regs * words_per_reg; w < words; ++w) {
            for (std::size_t k = 0; k < nb; ++k) row[k] += popcount32(a[j][w] & b[k][w], A{});
        }
    }
}

// Unsigned products from pmuludq on even and odd lanes; each 64-bit product is added as its
// two 32-bit halves into 64-bit lanes, which cannot overflow within a chunk. Signed values
// reuse the unsigned products: a*b = au*bu - 2^32 ([a<0] bu + [b<0] au) + 2^64 [a<0][b<0].
template <class A, bool is_signed>
void dot_values_impl(const std::uint32_t* a, const std::uint32_t* b, std::size_t count, std::uint64_t* out) noexcept {
    using u64 = xsimd::batch<std::uint64_t, A>;
    using s32 = xsimd::batch<std::int32_t, A>;
    __extension__ typedef unsigned __int128 wide;
    constexpr std::size_t step = u32<A>::size;
    constexpr std::size_t chunk = std::size_t{1} << 24;  // values per flush of the lane sums
    const u64 low(std::uint64_t{0xFFFFFFFFu});
    wide products = 0;    // sum of au * bu
    wide correction = 0;  // sum of [a<0] bu + [b<0] au
    wide both = 0;        // count of [a<0][b<0]
    std::size_t i = 0;
    while (count - i >= step) {
        const std::size_t end = i + (count - i < chunk ? (count - i) / step * step : chunk);
        u64 lo(std::uint64_t{0}), hi(std::uint64_t{0}), corr(std::uint64_t{0});
        u32<A> neg(0u);
        for (; i < end; i += step) {
            const u32<A> x = u32<A>::load_unaligned(a + i);
            const u32<A> y = u32<A>::load_unaligned(b + i);
            const u64 xe = xsimd::bitwise_cast<u64>(x);
            const u64 ye = xsimd::bitwise_cast<u64>(y);
            const u64 p0 = mul_even_u32(xe, ye, A{});
            const u64 p1 = mul_even_u32(xe >> 32, ye >> 32, A{});
            lo += (p0 & low) + (p1 & low);
            hi += (p0 >> 32) + (p1 >> 32);
            if constexpr (is_signed) {
                const u32<A> sa = xsimd::bitwise_cast<u32<A>>(xsimd::bitwise_cast<s32>(x) >> 31);
                const u32<A> sb = xsimd::bitwise_cast<u32<A>>(xsimd::bitwise_cast<s32>(y) >> 31);
                const u64 c = xsimd::bitwise_cast<u64>(sa & y);
                const u64 d = xsimd::bitwise_cast<u64>(sb & x);
                corr += (c & low) + (c >> 32) + (d & low) + (d >> 32);
                neg += (sa & sb) >> 31;
            }
        }
        alignas(64) std::uint64_t lanes[3][u64::size];
        lo.store_aligned(lanes[0]);
        hi.store_aligned(lanes[1]);
        corr.store_aligned(lanes[2]);
        for (std::size_t k = 0; k < u64::size; ++k) {
            products += static_cast<wide>(lanes[0][k]) + (static_cast<wide>(lanes[1][k]) << 32);
            correction += lanes[2][k];
        }
        alignas(64) std::uint32_t counts[step];
        neg.store_aligned(counts);
        for (std::size_t k = 0; k < step; ++k) both += counts[k];
    }
    for (; i < count; ++i) {
        products += static_cast<wide>(static_cast<std::uint64_t>(a[i]) * b[i]);
        if constexpr (is_signed) {
            const std::uint32_t sa = 0u - (a[i] >> 31), sb = 0u - (b[i] >> 31);
            correction += static_cast<std::uint64_t>(sa & b[i]) + (sb & a[i]);
            both += (sa & sb) & 1u;
        }
    }
    const wide result = products - (correction << 32) + (both << 64);
    out[0] = static_cast<std::uint64_t>(result);
    out[1] = static_cast<std::uint64_t>(result >> 64);
}

template <class A>
void dot_values(const std::uint32_t* a, const std::uint32_t* b, std::size_t count, bool is_signed,
                std::uint64_t* out) noexcept {
    if (is_signed) {
        dot_values_impl<A, true>(a, b, count, out);
    } else {
        dot_values_impl<A, false>(a, b, count, out);
    }
}

// Word by word: the mask word says how many compact bits it takes and where they go.
template <class A>
void deposit_plane(const std::uint32_t* compact, const std::uint32_t* mask, std::uint32_t* out) noexcept {
    std::uint32_t taken = 0;  // compact bits consumed so far
    for (std::size_t w = 0; w < plane_words; ++w) {
        const std::uint32_t m = mask[w];
        if (m == 0) {
            out[w] = 0;
            continue;
        }
        const std::uint32_t word = taken >> 5;
        std::uint64_t window = compact[word];
        if (word + 1 < plane_words) window |= static_cast<std::uint64_t>(compact[word + 1]) << 32;
        out[w] = deposit32(static_cast<std::uint32_t>(window >> (taken & 31u)), m, A{});
        taken += popcount32(m, A{});
    }
}

// Word by word: each selector word gives popcount(select) bits, appended to a 64-bit window
// that is written out 32 bits at a time.
template <class A>
void extract_plane(const std::uint32_t* p, const std::uint32_t* select, std::size_t words, std::uint32_t* out) noexcept {
    words = words < plane_words ? words : plane_words;
    std::uint64_t window = 0;
    std::uint32_t filled = 0;  // bits in the window
    std::size_t written = 0;
    for (std::size_t w = 0; w < words; ++w) {
        const std::uint32_t m = select[w];
        if (m == 0) continue;
        window |= static_cast<std::uint64_t>(extract32(p[w], m, A{})) << filled;
        filled += popcount32(m, A{});
        if (filled >= 32) {
            out[written++] = static_cast<std::uint32_t>(window);
            window >>= 32;
            filled -= 32;
        }
    }
    if (filled != 0) out[written++] = static_cast<std::uint32_t>(window);
    for (; written < words; ++written) out[written] = 0;
}

// ---- scans (issue #3) ------------------------------------------------------------------------

// transpose_rows(r, out): r[i] holds `lanes` consecutive words of row i; out[k] lane i gets
// word k of row i. An interleaved all-raw payload is a 64 x stored matrix of words (row c =
// word c of every stored plane), so transposing `lanes` rows at a time puts `lanes` columns of
// each plane in one register: a de-interleave in registers. (A gather per plane register
// costs about 10 cycles here; the transpose costs 24 shuffles per 8 x 8 tile on AVX2.)
#if XSIMD_WITH_SSE2
inline void transpose_rows(const u32<xsimd::sse2> (&r)[4], u32<xsimd::sse2>* out, xsimd::sse2) noexcept {
    const __m128i t0 = _mm_unpacklo_epi32(r[0], r[1]);  // r0[0] r1[0] r0[1] r1[1]
    const __m128i t1 = _mm_unpackhi_epi32(r[0], r[1]);  // words 2, 3
    const __m128i t2 = _mm_unpacklo_epi32(r[2], r[3]);
    const __m128i t3 = _mm_unpackhi_epi32(r[2], r[3]);
    out[0] = _mm_unpacklo_epi64(t0, t2);
    out[1] = _mm_unpackhi_epi64(t0, t2);
    out[2] = _mm_unpacklo_epi64(t1, t3);
    out[3] = _mm_unpackhi_epi64(t1, t3);
}
#endif
#if XSIMD_WITH_AVX2
inline void transpose_rows(const u32<xsimd::avx2> (&r)[8], u32<xsimd::avx2>* out, xsimd::avx2) noexcept {
    __m256i t[8];
    for (std::size_t i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);      // words 0, 1 | 4, 5 of rows i, i+1
        t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);  // words 2, 3 | 6, 7
    }
    __m256i u[8];
    for (std::size_t h = 0; h < 8; h += 4) {  // rows 0-3, then 4-7
        u[h + 0] = _mm256_unpacklo_epi64(t[h], t[h + 2]);      // word 0 | 4 of four rows
        u[h + 1] = _mm256_unpackhi_epi64(t[h], t[h + 2]);      // word 1 | 5
        u[h + 2] = _mm256_unpacklo_epi64(t[h + 1], t[h + 3]);  // word 2 | 6
        u[h + 3] = _mm256_unpackhi_epi64(t[h + 1], t[h + 3]);  // word 3 | 7
    }
    for (std::size_t k = 0; k < 4; ++k) {
        out[k] = _mm256_permute2x128_si256(u[k], u[4 + k], 0x20);
        out[k + 4] = _mm256_permute2x128_si256(u[k], u[4 + k], 0x31);
    }
}
#endif

// load_transpose(rows, stride, words, out): transpose_rows of the `lanes` rows at `rows`
// (`stride` bytes apart), of which only words 0 .. words - 1 are needed. On AVX2 four or
// fewer words take 16-byte loads, rows i and i + 4 paired in one register, and a 4 x 4
// transpose in each half: 8 shuffles instead of 24 (a block of 10 planes has a group of 2).
#if XSIMD_WITH_SSE2
inline void load_transpose(const std::uint8_t* rows, std::size_t stride, std::size_t, u32<xsimd::sse2>* out,
                           xsimd::sse2) noexcept {
    u32<xsimd::sse2> r[4];
    for (std::size_t i = 0; i < 4; ++i) {
        r[i] = u32<xsimd::sse2>::load_unaligned(reinterpret_cast<const std::uint32_t*>(rows + i * stride));
    }
    transpose_rows(r, out, xsimd::sse2{});
}
#endif
#if XSIMD_WITH_AVX2
inline void load_transpose(const std::uint8_t* rows, std::size_t stride, std::size_t words, u32<xsimd::avx2>* out,
                           xsimd::avx2) noexcept {
    if (words > 4) {
        u32<xsimd::avx2> r[8];
        for (std::size_t i = 0; i < 8; ++i) {
            r[i] = u32<xsimd::avx2>::load_unaligned(reinterpret_cast<const std::uint32_t*>(rows + i * stride));
        }
        transpose_rows(r, out, xsimd::avx2{});
        return;
    }
    __m256i r[4];
    for (std::size_t i = 0; i < 4; ++i) {
        const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows + i * stride));
        const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows + (i + 4) * stride));
        r[i] = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);  // row i | row i + 4
    }
    const __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]);
    const __m256i t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    const __m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]);
    const __m256i t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    out[0] = _mm256_unpacklo_epi64(t0, t2);
    out[1] = _mm256_unpackhi_epi64(t0, t2);
    out[2] = _mm256_unpacklo_epi64(t1, t3);
    out[3] = _mm256_unpackhi_epi64(t1, t3);
}
#endif

// One compare step: the plane word `w` against the target's bit. A target bit 1 turns the
// still-equal positions with a 0 into "less"; either bit keeps only the positions that agree.
// The branch follows the target's bits, the same pattern for every column of the block.
template <class A, bool need_lt>
[[gnu::always_inline]] inline void compare_step(const u32<A>& w, bool bit, u32<A>& eq, u32<A>& lt) noexcept {
    if (bit) {
        if constexpr (need_lt) lt |= eq & ~w;
        eq &= w;
    } else {
        eq &= ~w;
    }
}

template <class A>
[[gnu::always_inline]] inline void compare_finish(std::uint8_t finish, u32<A>& eq, u32<A>& lt) noexcept {
    if (finish == compare_job::finish_lt) lt |= eq;
    if (finish != compare_job::finish_none) eq = u32<A>(0u);
}

// The steps of one column group (words c .. c + lanes - 1), planes in the inner loop: eq and
// lt never leave the registers, and each plane register is fetched once for both targets of
// a range. plane_word(k) is the group's register of the k-th plane read.
template <class A, bool need_lt, class PlaneWord>
[[gnu::always_inline]] inline void compare_group(const compare_job& job, std::size_t c, const PlaneWord& plane_word,
                                                 std::uint32_t* eq, std::uint32_t* lt) noexcept {
    const std::uint32_t steps0 = job.steps[0];
    u32<A> e0(~0u), l0(0u);
    if (job.targets == 1) {
        for (std::uint32_t k = 0; k < steps0; ++k) {
            compare_step<A, need_lt>(plane_word(k), ((job.bits[0] >> k) & 1u) != 0, e0, l0);
        }
        compare_finish<A>(job.finish[0], e0, l0);
        e0.store_unaligned(eq + c);
        if constexpr (need_lt) l0.store_unaligned(lt + c);
        return;
    }
    const std::uint32_t steps1 = job.steps[1];
    const std::uint32_t shared = steps0 < steps1 ? steps0 : steps1;
    u32<A> e1(~0u), l1(0u);
    for (std::uint32_t k = 0; k < shared; ++k) {
        const u32<A> w = plane_word(k);
        compare_step<A, need_lt>(w, ((job.bits[0] >> k) & 1u) != 0, e0, l0);
        compare_step<A, need_lt>(w, ((job.bits[1] >> k) & 1u) != 0, e1, l1);
    }
    for (std::uint32_t k = shared; k < steps0; ++k) {
        compare_step<A, need_lt>(plane_word(k), ((job.bits[0] >> k) & 1u) != 0, e0, l0);
    }
    for (std::uint32_t k = shared; k < steps1; ++k) {
        compare_step<A, need_lt>(plane_word(k), ((job.bits[1] >> k) & 1u) != 0, e1, l1);
    }
    compare_finish<A>(job.finish[0], e0, l0);
    compare_finish<A>(job.finish[1], e1, l1);
    e0.store_unaligned(eq + c);
    e1.store_unaligned(eq + plane_words + c);
    if constexpr (need_lt) {
        l0.store_unaligned(lt + c);
        l1.store_unaligned(lt + plane_words + c);
    }
}

// Planes in memory, one after another (stride 4).
template <class A, bool need_lt>
void compare_planar(const compare_job& job, std::uint32_t* eq, std::uint32_t* lt) noexcept {
    for (std::size_t c = 0; c < job.words; c += u32<A>::size) {
        const std::uint8_t* column = job.base + 4 * c;
        const auto plane_word = [&](std::uint32_t k) {
            return u32<A>::load_unaligned(reinterpret_cast<const std::uint32_t*>(column + job.offset[k]));
        };
        compare_group<A, need_lt>(job, c, plane_word, eq, lt);
    }
}

// An interleaved payload of stride / 4 planes, read in place: per column group, the rank
// groups holding the planes read are loaded row by row and transposed (transpose_rows).
// Loads run up to lanes - 1 words past a group's last row; near the end of the payload the
// rows are copied into a zero-padded buffer first, so nothing past the payload is read.
template <class A, bool need_lt>
void compare_interleaved(const compare_job& job, std::uint32_t* eq, std::uint32_t* lt) noexcept {
    constexpr std::size_t lanes = u32<A>::size;
    const std::size_t stride = job.stride;
    const std::uint32_t steps = job.steps[0] > job.steps[1] || job.targets == 1 ? job.steps[0] : job.steps[1];
    std::uint32_t rank[plane_count];
    std::size_t first_group = plane_count, last_group = 0;
    std::size_t group_words[plane_count / lanes] = {};  // words of each rank group needed
    for (std::uint32_t k = 0; k < steps; ++k) {
        rank[k] = job.offset[k] / 4;
        const std::size_t g = rank[k] / lanes;
        first_group = g < first_group ? g : first_group;
        last_group = g > last_group ? g : last_group;
        const std::size_t words = rank[k] % lanes + 1;
        group_words[g] = words > group_words[g] ? words : group_words[g];
    }
    u32<A> planes[plane_count];
    alignas(64) std::uint8_t bounce[lanes * 4 * plane_count + 4 * lanes];
    for (std::size_t c = 0; c < job.words; c += lanes) {
        const std::uint8_t* rows = job.base + c * stride;
        if ((c + lanes) * stride + 4 * (lanes - 1) > plane_words * stride) {
            std::memcpy(bounce, rows, lanes * stride);
            std::memset(bounce + lanes * stride, 0, 4 * lanes);
            rows = bounce;
        }
        for (std::size_t g = first_group; g <= last_group && steps != 0; ++g) {
            if (group_words[g] != 0) {
                load_transpose(rows + 4 * lanes * g, stride, group_words[g], planes + lanes * g, A{});
            }
        }
        compare_group<A, need_lt>(job, c, [&](std::uint32_t k) { return planes[rank[k]]; }, eq, lt);
    }
}

template <class A>
void compare_planes(const compare_job* job, std::uint32_t* eq, std::uint32_t* lt) noexcept {
    const bool interleaved = job->stride != 4;
    if (job->need_lt) {
        if (interleaved) {
            compare_interleaved<A, true>(*job, eq, lt);
        } else {
            compare_planar<A, true>(*job, eq, lt);
        }
    } else if (interleaved) {
        compare_interleaved<A, false>(*job, eq, lt);
    } else {
        compare_planar<A, false>(*job, eq, lt);
    }
}

// ---- reductions, interleaved all-raw payloads (issue #3) -------------------------------------
// The payload is 64 columns of `stored` words (codec/block_format.hpp), at any alignment.

// Register t of the payload holds words tW..tW+W-1, of ranks (tW + l) mod stored: registers
// `period` apart (period W = lcm(stored, W)) hold the same ranks lane for lane, so each of the
// `period` chains is summed in one register (byte counters, widened every 31 registers, so
// they cannot overflow) and its lanes are credited to their ranks once.
template <class A>
void interleaved_popcounts(const std::uint8_t* payload, std::uint32_t stored, std::uint32_t* counts,
                           const std::uint8_t* ahead, std::size_t ahead_bytes) noexcept {
    constexpr std::size_t lanes = u32<A>::size;
    for (std::uint32_t i = 0; i < stored; ++i) counts[i] = 0;
    if (stored == 0) {
        spread_prefetch(ahead, ahead_bytes, 1).rest();
        return;
    }
    const std::size_t regs = plane_words * stored / lanes;  // plane_words is a multiple of lanes
    const std::size_t common = std::size_t{1} << __builtin_ctz(stored | static_cast<std::uint32_t>(lanes));
    const std::size_t period = stored / common;
    spread_prefetch prefetch(ahead, ahead_bytes, period);
    for (std::size_t q = 0; q < period; ++q) {
        prefetch.step();
        u32<A> acc(0u);
        std::size_t t = q;
        while (t < regs) {
            u8<A> bytes(std::uint8_t{0});
            for (std::size_t k = 0; k < 31 && t < regs; ++k, t += period) {
                bytes += byte_popcount(u8<A>::load_unaligned(payload + 4 * lanes * t), A{});
            }
            acc += widen_byte_counts(bytes, A{});
        }
        alignas(64) std::uint32_t sums[lanes];
        acc.store_aligned(sums);
        std::size_t rank = q * lanes % stored;
        for (std::size_t l = 0; l < lanes; ++l) {
            counts[rank] += sums[l];
            rank = rank + 1 == stored ? 0 : rank + 1;
        }
    }
}

// A column's words, put where their plane numbers say (zeros for planes not stored), are 32
// words for transpose_column, whose output word j is then value 32 c + j. When every stored
// plane is below 16 (or 8), the planes of 2 (or 4) columns share one such transpose in slots
// of 16 (8) words, and each output word holds 2 (4) values, unpacked afterwards: the movemask
// work, which bounds the transpose, shrinks in proportion.
template <class A>
void interleaved_transpose(const std::uint8_t* payload, std::uint32_t live, std::uint32_t* out,
                           const std::uint8_t* ahead, std::size_t ahead_bytes) noexcept {
    constexpr std::size_t lanes = u32<A>::size;
    constexpr std::size_t loads = column_values / lanes;
    constexpr std::size_t step = 4 * lanes;  // bytes per register
    const std::uint32_t stored = popcount32(live, A{});
    if (stored == 0) {
        for (std::size_t i = 0; i < plane_words * column_values; ++i) out[i] = 0;
        spread_prefetch(ahead, ahead_bytes, 1).rest();
        return;
    }
    const std::uint32_t top = 32u - static_cast<std::uint32_t>(__builtin_clz(live));  // highest plane + 1
    const std::size_t slot = top <= 8 ? 8 : top <= 16 ? 16 : 32;  // words per column in a transpose
    const std::size_t group = column_values / slot;                // columns per transpose
    const std::size_t slot_regs = slot / lanes;
    const std::size_t column_bytes = 4 * std::size_t{stored};
    const std::size_t total = column_bytes * plane_words;
    std::uint32_t index[column_values];
    std::uint32_t n = 0;
    for (std::uint32_t rest = live; rest != 0; rest &= rest - 1) index[n++] = static_cast<std::uint32_t>(__builtin_ctz(rest));
    // Planes 0..stored-1 (uniform data): a column is `stored` words and zeros, loaded as whole
    // registers with the lanes past its words masked off, which may read into the next columns
    // but never past the payload (columns too close to its end take the general way).
    const bool low = (live & (live + 1)) == 0;
    const std::size_t reach = slot_regs * step;  // bytes a column's loads touch
    alignas(64) std::uint32_t keep_words[column_values];
    for (std::size_t w = 0; w < column_values; ++w) keep_words[w] = w < stored ? ~0u : 0u;
    // Packed output words go to two buffers in turn and are unpacked one transpose later: a
    // vector load right after the 32 word stores it spans would wait for them to commit.
    alignas(64) std::uint32_t words[2][column_values];
    const u32<A> slot_mask(slot == 32 ? ~0u : (1u << slot) - 1u);
    auto unpack = [&](const std::uint32_t* packed, std::size_t c0) {
        // Word j holds value 32 (c0 + t) + j in bits [t slot, (t + 1) slot).
        for (std::size_t r = 0; r < loads; ++r) {
            const u32<A> w = u32<A>::load_aligned(packed + lanes * r);
            for (std::size_t t = 0; t < group; ++t) {
                ((w >> static_cast<int>(t * slot)) & slot_mask).store_unaligned(out + column_values * (c0 + t) + lanes * r);
            }
        }
    };
    spread_prefetch prefetch(ahead, ahead_bytes, plane_words / group);
    std::size_t round = 0;
    for (std::size_t c0 = 0; c0 < plane_words; c0 += group, ++round) {
        prefetch.step();
        u32<A> v[loads];
        for (std::size_t t = 0; t < group; ++t) {
            const std::size_t c = c0 + t;
            const std::uint8_t* column = payload + column_bytes * c;
            if (low && column_bytes * c + reach <= total) {
                for (std::size_t r = 0; r < slot_regs; ++r) {
                    v[t * slot_regs + r] = xsimd::bitwise_cast<u32<A>>(u8<A>::load_unaligned(column + step * r)) &
                                           u32<A>::load_aligned(keep_words + lanes * r);
                }
            } else {
                alignas(64) std::uint32_t placed[column_values] = {};
                for (std::uint32_t i = 0; i < stored; ++i) std::memcpy(&placed[index[i]], column + 4 * i, 4);
                for (std::size_t r = 0; r < slot_regs; ++r) v[t * slot_regs + r] = u32<A>::load_aligned(placed + lanes * r);
            }
        }
        if (group == 1) {
            transpose_column<A>(v, out + column_values * c0, 1);
            continue;
        }
        transpose_column<A>(v, words[round % 2], 1);
        if (round > 0) unpack(words[(round - 1) % 2], c0 - group);
    }
    if (group > 1) unpack(words[(round - 1) % 2], plane_words - group);
}

// ---- reductions: bit counts and position sums (sum of delta blocks) -------------------------
// Position 32 c + b of a set bit adds 32 c, plus 2^t for each bit t of b: so a word's position
// sum is 32 c pop(w) + sum_t 2^t pop(w AND m_t), m_t the bits whose index has bit t set.

// moments_registers(p, regs, out): out[0] += set bits and out[1] += position sum of `regs`
// consecutive 32-byte registers at p (any alignment), or false where the path has no such
// kernel (SSE2 lacks pshufb: the word loop serves). AVX2: per byte, its popcount and the sum
// of its set bits' indices (0..7) by nibble lookups; a bit of byte q of register t is at
// 256 t + 8 q + b, so the register adds 256 t pop + 8 sum_q q pop_q + sum_q index sums.
#if XSIMD_WITH_SSE2
inline bool moments_registers(const std::uint8_t*, std::size_t, std::uint64_t*, xsimd::sse2) noexcept {
    return false;
}
#endif
#if XSIMD_WITH_AVX2
inline std::uint64_t sum_u64_lanes(__m256i x) noexcept {
    const __m128i t = _mm_add_epi64(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
    return static_cast<std::uint64_t>(_mm_cvtsi128_si64(t)) + static_cast<std::uint64_t>(_mm_extract_epi64(t, 1));
}

inline bool moments_registers(const std::uint8_t* p, std::size_t regs, std::uint64_t* out, xsimd::avx2) noexcept {
    const __m256i low = _mm256_set1_epi8(0x0F);
    const __m256i pop_lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,  //
                                             0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    // Index sums of a low nibble's bits (0..3), and of a high nibble's (4..7).
    const __m256i low_lut = _mm256_setr_epi8(0, 0, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 5, 5, 6, 6,  //
                                             0, 0, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 5, 5, 6, 6);
    const __m256i high_lut = _mm256_setr_epi8(0, 4, 5, 9, 6, 10, 11, 15, 7, 11, 12, 16, 13, 17, 18, 22,  //
                                              0, 4, 5, 9, 6, 10, 11, 15, 7, 11, 12, 16, 13, 17, 18, 22);
    const __m256i byte_index = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,  //
                                                16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i ones16 = _mm256_set1_epi16(1);
    __m256i pops = zero;     // u64 lanes: set bits
    __m256i by_reg = zero;   // u64 lanes: sum of t * set bits of register t
    __m256i indices = zero;  // u64 lanes: bit-in-byte index sums
    __m256i by_byte = zero;  // i32 lanes: sum of q * pop(byte q), at most 8 * 31 * 4 per register
    for (std::size_t t = 0; t < regs; ++t) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * t));
        const __m256i lo = _mm256_and_si256(x, low);
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), low);
        const __m256i pc = _mm256_add_epi8(_mm256_shuffle_epi8(pop_lut, lo), _mm256_shuffle_epi8(pop_lut, hi));
        const __m256i ix = _mm256_add_epi8(_mm256_shuffle_epi8(low_lut, lo), _mm256_shuffle_epi8(high_lut, hi));
        const __m256i reg_pop = _mm256_sad_epu8(pc, zero);
        pops = _mm256_add_epi64(pops, reg_pop);
        by_reg = _mm256_add_epi64(by_reg, _mm256_mul_epu32(reg_pop, _mm256_set1_epi64x(static_cast<long long>(t))));
        indices = _mm256_add_epi64(indices, _mm256_sad_epu8(ix, zero));
        by_byte = _mm256_add_epi32(by_byte, _mm256_madd_epi16(_mm256_maddubs_epi16(pc, byte_index), ones16));
    }
    const __m256i by_byte64 = _mm256_add_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(by_byte)),
                                               _mm256_cvtepu32_epi64(_mm256_extracti128_si256(by_byte, 1)));
    out[0] += sum_u64_lanes(pops);
    out[1] += 256 * sum_u64_lanes(by_reg) + 8 * sum_u64_lanes(by_byte64) + sum_u64_lanes(indices);
    return true;
}
#endif

template <class A>
void word_moments(const std::uint8_t* words, std::size_t stride, std::size_t count, bool positions,
                  std::uint64_t* out) noexcept {
    constexpr std::size_t chunk = 64;  // words gathered at a time when strided
    std::uint64_t pop = 0;
    std::uint64_t sum = 0;
    if (!positions && stride == 4) {  // counts alone: byte popcounts, as popcount_words
        constexpr std::size_t step = u8<A>::size;
        const std::size_t regs = 4 * count / step;
        std::size_t t = 0;
        while (t < regs) {
            const std::size_t end = regs - t < 31 ? regs : t + 31;  // byte counters stay below 256
            u8<A> acc(std::uint8_t{0});
            for (; t < end; ++t) acc += byte_popcount(u8<A>::load_unaligned(words + step * t), A{});
            pop += sum_bytes(acc, A{});
        }
        for (std::size_t c = regs * step / 4; c < count; ++c) {
            std::uint32_t w;
            std::memcpy(&w, words + 4 * c, 4);
            pop += popcount32(w, A{});
        }
        out[0] = pop;
        out[1] = 0;
        return;
    }
    alignas(32) std::uint8_t gathered[4 * chunk];
    for (std::size_t first = 0; first < count; first += chunk) {
        const std::size_t n = count - first < chunk ? count - first : chunk;
        const std::uint8_t* p = words + first * stride;
        std::size_t done = 0;
        std::uint64_t part[2] = {0, 0};
        if (n >= 8) {
            if (stride != 4) {
                for (std::size_t c = 0; c < n; ++c) std::memcpy(gathered + 4 * c, p + c * stride, 4);
            }
            if (moments_registers(stride != 4 ? gathered : p, n / 8, part, A{})) done = n / 8 * 8;
        }
        for (std::size_t c = done; c < n; ++c) {
            std::uint32_t w;
            std::memcpy(&w, p + c * stride, 4);
            const std::uint32_t k = popcount32(w, A{});
            part[0] += k;
            if (positions) {
                part[1] += 32 * c * k + popcount32(w & 0xAAAAAAAAu, A{}) + 2 * popcount32(w & 0xCCCCCCCCu, A{}) +
                           4 * popcount32(w & 0xF0F0F0F0u, A{}) + 8 * popcount32(w & 0xFF00FF00u, A{}) +
                           16 * popcount32(w & 0xFFFF0000u, A{});
            }
        }
        pop += part[0];
        sum += part[1] + 32 * first * part[0];
    }
    out[0] = pop;
    out[1] = positions ? sum : 0;
}

template <class A>
constexpr kernel_table make_table(simd_path path) noexcept {
    return kernel_table{.path = path,
                        .transpose = &transpose<A>,
                        .untranspose = &untranspose<A>,
                        .pair_popcounts = &pair_popcounts<A>,
                        .popcount_words = &popcount_words<A>,
                        .stats = &stats<A>,
                        .and_popcounts = &and_popcounts<A>,
                        .dot_values = &dot_values<A>,
                        .deposit_plane = &deposit_plane<A>,
                        .compare_planes = &compare_planes<A>,
                        .interleaved_popcounts = &interleaved_popcounts<A>,
                        .interleaved_transpose = &interleaved_transpose<A>,
                        .extract_plane = &extract_plane<A>,
                        .word_moments = &word_moments<A>,
                        .interleaved_dot = nullptr};
}

}  // namespace bitplane::detail::BITPLANE_KERNEL_NS
