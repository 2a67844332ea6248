// Reduction kernels: AND-popcount matrices (dot, similarity), the dense dot of values,
// popcounts and transposes of interleaved all-raw payloads, bit counts and position sums
// (sums of delta blocks). Part of the kernels (kernels_impl.hpp).
#pragma once

#ifndef BITPLANE_KERNEL_NS
#error "define BITPLANE_KERNEL_NS before including kernels_reduce.hpp (kernels_impl.hpp says why)"
#endif

#include "simd/kernels_codec.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bitplane::detail::BITPLANE_KERNEL_NS {

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

// a's stored planes fill the lanes of ceil(stored_a / lanes) registers per column; each word of
// b's column is broadcast and ANDed with them, so neither payload is de-interleaved. Byte
// counters take 16 columns (at most 8 * 16 < 256) before they widen into 32-bit lanes. Lanes
// past stored_a count other columns' words and are dropped; a is copied first into a padded
// buffer (at most 8 KiB, a small part of the work), so that no load reads past its payload.
// The planes' own counts (and the prefetches) are interleaved_popcounts'.
template <class A>
void interleaved_and_popcounts(const interleaved_operand* a, const interleaved_operand* b, std::uint32_t* pairs,
                               std::uint32_t* pop_a, std::uint32_t* pop_b) noexcept {
    constexpr std::size_t lanes = u32<A>::size;
    constexpr std::size_t flush_columns = 16;
    const auto stored_a = static_cast<std::uint32_t>(std::popcount(a->live));
    const auto stored_b = static_cast<std::uint32_t>(std::popcount(b->live));
    interleaved_popcounts<A>(a->payload, stored_a, pop_a, a->ahead, a->ahead_bytes);
    interleaved_popcounts<A>(b->payload, stored_b, pop_b, b->ahead, b->ahead_bytes);
    if (stored_a == 0 || stored_b == 0) return;
    const std::size_t column_a = 4 * std::size_t{stored_a};
    const std::size_t column_b = 4 * std::size_t{stored_b};
    alignas(64) std::uint8_t padded[plane_bytes * plane_count + 4 * lanes];
    std::memcpy(padded, a->payload, plane_words * column_a);
    std::memset(padded + plane_words * column_a, 0, 4 * lanes);
    for (std::size_t first = 0; first < stored_a; first += lanes) {
        for (std::uint32_t k = 0; k < stored_b; ++k) {
            u32<A> acc(0u);
            for (std::size_t c0 = 0; c0 < plane_words; c0 += flush_columns) {
                u8<A> bytes(std::uint8_t{0});
                for (std::size_t c = c0; c < c0 + flush_columns; ++c) {
                    std::uint32_t word;
                    std::memcpy(&word, b->payload + c * column_b + 4 * std::size_t{k}, sizeof word);
                    const u8<A> words = u8<A>::load_unaligned(padded + c * column_a + 4 * first);
                    bytes += byte_popcount(words & xsimd::bitwise_cast<u8<A>>(u32<A>(word)), A{});
                }
                acc += widen_byte_counts(bytes, A{});
            }
            alignas(64) std::uint32_t sums[lanes];
            acc.store_aligned(sums);
            for (std::size_t l = 0; l < lanes && first + l < stored_a; ++l) pairs[(first + l) * stored_b + k] = sums[l];
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

}  // namespace bitplane::detail::BITPLANE_KERNEL_NS
