// Codec kernels: values <-> planes (transpose, untranspose), plane statistics for the
// planner (pair popcounts, value stats), and the sparse layout's plane compaction (deposit,
// extract). Part of the kernels (kernels_impl.hpp).
#pragma once

#ifndef BITPLANE_KERNEL_NS
#error "define BITPLANE_KERNEL_NS before including kernels_codec.hpp (kernels_impl.hpp says why)"
#endif

#include "codec/thresholds.hpp"
#include "simd/arch_helpers.hpp"
#include "simd/kernels.hpp"
#include "simd/spread_prefetch.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace bitplane::detail::BITPLANE_KERNEL_NS {

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

#if XSIMD_WITH_AVX2
// ---- AVX2 untranspose by 8x8 bit-matrix transposes -----------------------------------------
//
// Eight columns (256 values) at a time. For byte-plane k, register b holds plane 8k+b's eight
// words: byte q, bit t is that plane's bit of value 8q+t. Three rounds of delta swaps between
// registers transpose every byte position's 8x8 bit matrix, leaving in register t, byte q,
// byte k of value 8q+t. Byte unpacks join the four byte-planes into dwords (one register per t
// and group of q), and 8x8 dword transposes turn "one register per t" into "one register per
// q": values 8q..8q+7, stored whole. About 2 instructions per value with all 32 planes live,
// against 6.5 for spreading each plane word to bytes; with few live planes the fixed part
// (unpacks and dword transposes, ~1 per value) loses, so untranspose<avx2> takes this path
// from untranspose_bit_matrix_min_live live planes on.
inline constexpr int untranspose_bit_matrix_min_live = 6;

template <int Shift>
[[gnu::always_inline]] inline void swap_bit_blocks(__m256i& low, __m256i& high, __m256i mask) noexcept {
    // Bits [Shift, 2 Shift) of each group in `low` trade places with bits [0, Shift) in `high`;
    // 16-bit shifts are exact here: the mask drops what crosses a byte.
    const __m256i t = _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi16(low, Shift), high), mask);
    high = _mm256_xor_si256(high, t);
    low = _mm256_xor_si256(low, _mm256_slli_epi16(t, Shift));
}

[[gnu::always_inline]] inline void transpose_bit_bytes(__m256i (&r)[8]) noexcept {
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i m2 = _mm256_set1_epi8(0x33);
    const __m256i m1 = _mm256_set1_epi8(0x55);
    for (std::size_t b = 0; b < 4; ++b) swap_bit_blocks<4>(r[b], r[b + 4], m4);
    for (std::size_t b : {0u, 1u, 4u, 5u}) swap_bit_blocks<2>(r[b], r[b + 2], m2);
    for (std::size_t b = 0; b < 8; b += 2) swap_bit_blocks<1>(r[b], r[b + 1], m1);
}

inline void untranspose_bit_matrix(const std::uint32_t* planes, std::uint32_t live, std::uint32_t* values) noexcept {
    for (std::size_t c0 = 0; c0 < plane_words; c0 += 8) {
        // bytes[k][t]: byte k of values 8q + t (byte q of the register), q = 0..31.
        __m256i bytes[4][8];
        for (std::size_t k = 0; k < 4; ++k) {
            const std::uint32_t group = (live >> (8 * k)) & 0xFFu;
            __m256i* r = bytes[k];
            if (group == 0) {
                for (std::size_t t = 0; t < 8; ++t) r[t] = _mm256_setzero_si256();
                continue;
            }
            for (std::size_t b = 0; b < 8; ++b) {
                r[b] = ((group >> b) & 1u) != 0
                           ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(planes + (8 * k + b) * plane_words + c0))
                           : _mm256_setzero_si256();
            }
            transpose_bit_bytes(bytes[k]);
        }
        // words[t][j]: values 8q + t as dwords, q = 4j..4j+3 (low lane) and 16+4j..16+4j+3 (high).
        __m256i words[8][4];
        for (std::size_t t = 0; t < 8; ++t) {
            const __m256i a = _mm256_unpacklo_epi8(bytes[0][t], bytes[1][t]);  // q 0..7 | 16..23
            const __m256i b = _mm256_unpackhi_epi8(bytes[0][t], bytes[1][t]);  // q 8..15 | 24..31
            const __m256i c = _mm256_unpacklo_epi8(bytes[2][t], bytes[3][t]);
            const __m256i d = _mm256_unpackhi_epi8(bytes[2][t], bytes[3][t]);
            words[t][0] = _mm256_unpacklo_epi16(a, c);
            words[t][1] = _mm256_unpackhi_epi16(a, c);
            words[t][2] = _mm256_unpacklo_epi16(b, d);
            words[t][3] = _mm256_unpackhi_epi16(b, d);
        }
        std::uint32_t* out = values + column_values * c0;
        for (std::size_t j = 0; j < 4; ++j) {
            __m256i s[8], u[8];
            for (std::size_t h = 0; h < 8; h += 4) {
                s[h + 0] = _mm256_unpacklo_epi32(words[h + 0][j], words[h + 1][j]);
                s[h + 1] = _mm256_unpackhi_epi32(words[h + 0][j], words[h + 1][j]);
                s[h + 2] = _mm256_unpacklo_epi32(words[h + 2][j], words[h + 3][j]);
                s[h + 3] = _mm256_unpackhi_epi32(words[h + 2][j], words[h + 3][j]);
                u[h + 0] = _mm256_unpacklo_epi64(s[h + 0], s[h + 2]);  // slot 0: t = h..h+3
                u[h + 1] = _mm256_unpackhi_epi64(s[h + 0], s[h + 2]);  // slot 1
                u[h + 2] = _mm256_unpacklo_epi64(s[h + 1], s[h + 3]);  // slot 2
                u[h + 3] = _mm256_unpackhi_epi64(s[h + 1], s[h + 3]);  // slot 3
            }
            for (std::size_t p = 0; p < 4; ++p) {
                const std::size_t q = 4 * j + p;
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * q), _mm256_permute2x128_si256(u[p], u[4 + p], 0x20));
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * (q + 16)),
                                    _mm256_permute2x128_si256(u[p], u[4 + p], 0x31));
            }
        }
    }
}
#endif  // XSIMD_WITH_AVX2

// Per column: each live plane word is spread to one byte per value and merged into its
// byte-plane; the 4 byte-planes are then byte-untransposed into 32 values. Planes not in
// `live` are never read.
template <class A>
void untranspose(const std::uint32_t* planes, std::uint32_t live, std::uint32_t* values) noexcept {
#if XSIMD_WITH_AVX2
    if constexpr (std::is_same_v<A, xsimd::avx2>) {
        if (popcount32(live, A{}) >= untranspose_bit_matrix_min_live) {
            untranspose_bit_matrix(planes, live, values);
            return;
        }
    }
#endif
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

// Word by word: the mask word says how many compact bits it takes and where they go. The next
// compact bits wait in a 64-bit window, refilled a word at a time once 32 or fewer are left,
// so that a mask word costs a deposit, a popcount and a shift, without a branch on empty mask
// words nor two loads at a computed index (AVX2: ~23 -> ~12 instructions a word, callgrind;
// spreading a sparse operand's planes is most of OR/XOR/AND-NOT with a sparse column).
template <class A>
void deposit_plane(const std::uint32_t* compact, const std::uint32_t* mask, std::uint32_t* out) noexcept {
    std::uint64_t window = compact[0] | static_cast<std::uint64_t>(compact[1]) << 32;
    std::uint32_t filled = 64;  // bits in the window (at least 32 while compact words are left)
    std::size_t next = 2;       // the next compact word to load
    for (std::size_t w = 0; w < plane_words; ++w) {
        const std::uint32_t m = mask[w];
        out[w] = deposit32(static_cast<std::uint32_t>(window), m, A{});
        const std::uint32_t n = popcount32(m, A{});
        window >>= n;
        filled -= n;
        if (filled <= 32 && next < plane_words) {
            window |= static_cast<std::uint64_t>(compact[next++]) << filled;
            filled += 32;
        }
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

// key_presence with W words of keys: a register of values less (base + 32 w) shifts a 1 into
// word w's accumulator (a count of 32 or more shifts it out). Three instructions a register
// and word, each word's independent of the others' (a chain of subtractions from one register
// cost twice the time), the words unrolled so that the accumulators stay in registers (GCC
// kept 3 or more on the stack: 5x the time).
template <class A, std::uint32_t W>
void key_presence_shifted(const std::uint32_t* v, std::size_t count, std::uint32_t base, std::uint32_t* out) noexcept {
    constexpr std::size_t step = u32<A>::size;
    const u32<A> one(1u);
    u32<A> acc[W], from[W];
#pragma GCC unroll 8
    for (std::uint32_t w = 0; w < W; ++w) {
        acc[w] = u32<A>(0u);
        from[w] = u32<A>(base + 32 * w);
    }
    std::size_t i = 0;
    for (; i + step <= count; i += step) {
        const u32<A> x = u32<A>::load_unaligned(v + i);
#pragma GCC unroll 8
        for (std::uint32_t w = 0; w < W; ++w) acc[w] |= shift_left_each(one, x - from[w], A{});
    }
    alignas(64) std::uint32_t lanes[step];
    for (std::uint32_t w = 0; w < W; ++w) {
        acc[w].store_aligned(lanes);
        std::uint32_t any = 0;
        for (std::size_t k = 0; k < step; ++k) any |= lanes[k];
        out[w] |= any;
    }
    for (; i < count; ++i) {
        const std::uint32_t k = v[i] - base;
        out[k >> 5] |= 1u << (k & 31);
    }
}

template <class A>
void key_presence(const std::uint32_t* v, std::size_t count, std::uint32_t base, std::uint32_t words,
                  std::uint32_t* out) noexcept {
    if constexpr (u32<A>::size >= 8) {  // SSE2 has no shift by a count a lane
        static_assert(thresholds::presence_shift_max_words == 5);
        switch (words) {
            case 1: return key_presence_shifted<A, 1>(v, count, base, out);
            case 2: return key_presence_shifted<A, 2>(v, count, base, out);
            case 3: return key_presence_shifted<A, 3>(v, count, base, out);
            case 4: return key_presence_shifted<A, 4>(v, count, base, out);
            case 5: return key_presence_shifted<A, 5>(v, count, base, out);
            default: break;
        }
    }
    key_presence_bytes(v, count, base, words, out);
}

}  // namespace bitplane::detail::BITPLANE_KERNEL_NS
