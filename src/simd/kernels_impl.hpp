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

#endif  // XSIMD_WITH_AVX2

// ---- the kernels --------------------------------------------------------------------------

inline constexpr std::size_t column_values = 32;  // values per plane word

inline const std::uint8_t* as_bytes(const std::uint32_t* p) noexcept {
    return reinterpret_cast<const std::uint8_t*>(p);
}

// Per column of 32 values: byte-transpose them into 4 byte-planes, then each byte-plane gives
// 8 plane words by movemask (top bit) and add-to-self (shift every byte left by one).
template <class A>
void transpose(const std::uint32_t* values, std::uint32_t* planes) noexcept {
    constexpr std::size_t loads = column_values / u32<A>::size;
    constexpr std::size_t bytes = u8<A>::size;
    constexpr std::size_t parts = column_values / bytes;
    for (std::size_t c = 0; c < plane_words; ++c) {
        u32<A> v[loads];
        for (std::size_t i = 0; i < loads; ++i) {
            v[i] = u32<A>::load_unaligned(values + column_values * c + u32<A>::size * i);
        }
        u8<A> r[4][parts];
        byte_transpose(v, r, A{});
        for (std::size_t k = 0; k < 4; ++k) {
            for (std::size_t b = 8; b-- > 0;) {
                std::uint32_t word = 0;
                for (std::size_t h = 0; h < parts; ++h) {
                    word |= byte_movemask(r[k][h], A{}) << (h * bytes);
                }
                planes[(8 * k + b) * plane_words + c] = word;
                for (std::size_t h = 0; h < parts; ++h) {
                    r[k][h] += r[k][h];
                }
            }
        }
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

// A plane with no set bit, or no clear bit, needs no pair scan: pop(p ^ 0) = pop(p) and
// pop(p ^ ~0) = 2048 - pop(p). Narrow or sign-extended values leave many such planes.
inline constexpr std::uint32_t plane_bits = plane_words * 32;

inline bool is_constant_plane(std::uint32_t pop) noexcept {
    return pop == 0 || pop == plane_bits;
}

// pop(p_i ^ p_j) when one of the planes is constant (see is_constant_plane).
inline std::uint32_t constant_pair(std::uint32_t pop_i, std::uint32_t pop_j) noexcept {
    if (pop_i == 0) return pop_j;
    if (pop_j == 0) return pop_i;
    return pop_i == plane_bits ? plane_bits - pop_j : plane_bits - pop_i;
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
            for (std::size_t j = i + 1; j < count; ++j) {
                const auto n = static_cast<std::uint16_t>(constant_pair(pop_i, out[j * count + j]));
                out[i * count + j] = n;
                out[j * count + i] = n;
            }
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
// differences and the OR/AND of the zigzagged values (the encoder's transform estimates).
template <class A>
void stats(const std::uint32_t* v, std::size_t count, value_stats* out) noexcept {
    using s32 = xsimd::batch<std::int32_t, A>;
    constexpr std::size_t step = u32<A>::size;
    value_stats r;
    std::size_t i = 0;
    if (count > step) {
        u32<A> any(0u), all(~0u), umin(~0u), umax(0u), zz_any(0u), zz_all(~0u);
        s32 smin(INT32_MAX), smax(INT32_MIN), dmin(INT32_MAX), dmax(INT32_MIN);
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
        }
        alignas(64) std::uint32_t lanes[10][step];
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
        }
    }
    // Value 0 and the tail are folded in one at a time.
    auto fold = [&](std::size_t k) {
        const std::uint32_t x = v[k];
        const auto sx = static_cast<std::int32_t>(x);
        r.any |= x;
        r.all &= x;
        r.umin = r.umin < x ? r.umin : x;
        r.umax = r.umax > x ? r.umax : x;
        r.smin = r.smin < sx ? r.smin : sx;
        r.smax = r.smax > sx ? r.smax : sx;
        const std::uint32_t zz = (x << 1) ^ static_cast<std::uint32_t>(sx >> 31);
        r.zz_any |= zz;
        r.zz_all &= zz;
        if (k > 0) {
            const auto d = static_cast<std::int32_t>(x - v[k - 1]);
            r.dmin = r.dmin < d ? r.dmin : d;
            r.dmax = r.dmax > d ? r.dmax : d;
        }
    };
    fold(0);
    for (std::size_t k = i == 0 ? 1 : i; k < count; ++k) fold(k);
    *out = r;
}

template <class A>
constexpr kernel_table make_table(simd_path path) noexcept {
    return kernel_table{path, &transpose<A>, &untranspose<A>, &pair_popcounts<A>, &popcount_words<A>, &stats<A>};
}

}  // namespace bitplane::detail::BITPLANE_KERNEL_NS
