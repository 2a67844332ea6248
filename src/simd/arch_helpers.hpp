// What xsimd 8.1 lacks, per instruction set: byte movemask, byte shuffles and transposes,
// per-byte popcount, byte sums, bit deposit/extract. Overloads on the xsimd architecture tag,
// written with intrinsics; the SSE2 overloads use SSE2 only (no pshufb, no popcnt). Part of
// the kernels (kernels_impl.hpp): included once per instruction-set translation unit.
#pragma once

#ifndef BITPLANE_KERNEL_NS
#error "define BITPLANE_KERNEL_NS before including arch_helpers.hpp (kernels_impl.hpp says why)"
#endif

#include "simd/kernels.hpp"

#include <xsimd/xsimd.hpp>

#include <cstddef>
#include <cstdint>

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
    return extract32_portable(bits, mask);
}

#endif  // XSIMD_WITH_SSE2

#if XSIMD_WITH_AVX2

inline std::uint32_t byte_movemask(const u8<xsimd::avx2>& x, xsimd::avx2) noexcept {
    return static_cast<std::uint32_t>(_mm256_movemask_epi8(x));
}

// x << counts, lane by lane; a count of 32 or more gives 0 (vpsllvd), which key_presence relies on.
inline u32<xsimd::avx2> shift_left_each(const u32<xsimd::avx2>& x, const u32<xsimd::avx2>& counts,
                                        xsimd::avx2) noexcept {
    return _mm256_sllv_epi32(x, counts);
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

}  // namespace bitplane::detail::BITPLANE_KERNEL_NS
