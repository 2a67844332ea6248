// Scan kernels: value comparisons on the planes (equality and less-than masks, planar and
// interleaved payloads). Part of the kernels (kernels_impl.hpp).
#pragma once

#ifndef BITPLANE_KERNEL_NS
#error "define BITPLANE_KERNEL_NS before including kernels_scan.hpp (kernels_impl.hpp says why)"
#endif

#include "codec/thresholds.hpp"
#include "simd/kernels_codec.hpp"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace bitplane::detail::BITPLANE_KERNEL_NS {

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
// Equalities take no branch: the bit as a mask (all ones for 1), broadcast per step (a branch
// on the bit mispredicted on blocks of several planes, whose bit pattern repeats only once per
// column group: geoip4_country count_eq rare 47 -> 44.5 us, min of 100, AVX2). Order tests keep
// the branch (the mask's extra AND measured ~5% slower on geoip4_country count_range).
template <class A, bool need_lt>
[[gnu::always_inline]] inline void compare_step(const u32<A>& w, bool bit, u32<A>& eq, u32<A>& lt) noexcept {
    if constexpr (!need_lt) {
        (void)lt;
        eq &= ~(w ^ u32<A>(0u - static_cast<std::uint32_t>(bit)));
    } else if (bit) {
        lt |= eq & ~w;
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

// The top planes read where a two-target job's targets have the same bits: compare_group steps
// them once for both (a narrow range's bounds share most: word_length [9, 10], 3 of 5 planes).
// Worked out once per job, not per column group (stores to eq and lt may alias the job).
inline std::uint32_t common_steps(const compare_job& job) noexcept {
    if (job.targets != 2) return 0;
    const std::uint32_t shared = job.steps[0] < job.steps[1] ? job.steps[0] : job.steps[1];
    const auto first_differing = static_cast<std::uint32_t>(std::countr_zero(job.bits[0] ^ job.bits[1]));  // 32: none
    return first_differing < shared ? first_differing : shared;
}

// The steps of one column group (words c .. c + lanes - 1), planes in the inner loop: eq and
// lt never leave the registers, and each plane register is fetched once for both targets of
// a range. plane_word(k) is the group's register of the k-th plane read. With `count`, the
// range_into answer's bits are added to `counted`'s bytes (job.range_count; a template
// argument, so that other jobs take no branch for it per group: bed_name find_range +70
// instructions a block with one).
template <class A, bool need_lt, bool count, class PlaneWord>
[[gnu::always_inline]] inline void compare_group(const compare_job& job, std::uint32_t common, std::size_t c,
                                                 const PlaneWord& plane_word, std::uint32_t* eq, std::uint32_t* lt,
                                                 u8<A>& counted) noexcept {
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
    // The top planes where both targets have the same bits are stepped once for both.
    for (std::uint32_t k = 0; k < common; ++k) {
        compare_step<A, need_lt>(plane_word(k), ((job.bits[0] >> k) & 1u) != 0, e0, l0);
    }
    u32<A> e1 = e0, l1 = l0;
    for (std::uint32_t k = common; k < shared; ++k) {
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
    if constexpr (need_lt) {
        if (job.range_into != nullptr) {
            const u32<A> answer = ((l1 | e1) & ~l0) ^ u32<A>(job.range_flip);
            answer.store_unaligned(job.range_into + c);
            if constexpr (count) counted += byte_popcount(xsimd::bitwise_cast<u8<A>>(answer), A{});
            return;
        }
    }
    e0.store_unaligned(eq + c);
    e1.store_unaligned(eq + plane_words + c);
    if constexpr (need_lt) {
        l0.store_unaligned(lt + c);
        l1.store_unaligned(lt + plane_words + c);
    }
}

// Planes in memory (stride 4): at base + offset[k], or where job.planes[k] points.
template <class A, bool need_lt, bool count>
void compare_planar(const compare_job& job, std::uint32_t* eq, std::uint32_t* lt) noexcept {
    u8<A> counted(std::uint8_t{0});
    const std::uint32_t common = common_steps(job);
    if (job.planes != nullptr) {
        const std::uint8_t* const* planes = job.planes;
        for (std::size_t c = 0; c < job.words; c += u32<A>::size) {
            const auto plane_word = [&](std::uint32_t k) {
                return u32<A>::load_unaligned(reinterpret_cast<const std::uint32_t*>(planes[k] + 4 * c));
            };
            compare_group<A, need_lt, count>(job, common, c, plane_word, eq, lt, counted);
        }
    } else {
        for (std::size_t c = 0; c < job.words; c += u32<A>::size) {
            const std::uint8_t* column = job.base + 4 * c;
            const auto plane_word = [&](std::uint32_t k) {
                return u32<A>::load_unaligned(reinterpret_cast<const std::uint32_t*>(column + job.offset[k]));
            };
            compare_group<A, need_lt, count>(job, common, c, plane_word, eq, lt, counted);
        }
    }
    // At most 64 / lanes groups of 8 bits per byte: the byte counts cannot overflow.
    if constexpr (count) *job.range_count = sum_bytes(counted, A{});
}

// An interleaved payload of stride / 4 planes, read in place: per column group, the rank
// groups holding the planes read are loaded row by row and transposed (transpose_rows).
// Loads run up to lanes - 1 words past a group's last row; near the end of the payload the
// rows are copied into a zero-padded buffer first, so nothing past the payload is read.
template <class A, bool need_lt, bool count>
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
    u8<A> counted(std::uint8_t{0});
    // No shared steps here (0: the loop is compiled away): with them, bed_name's 19 planes
    // took ~5 instructions more a column group, for bounds that share no top plane.
    constexpr std::uint32_t common = 0;
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
        compare_group<A, need_lt, count>(job, common, c, [&](std::uint32_t k) { return planes[rank[k]]; }, eq, lt, counted);
    }
    if constexpr (count) *job.range_count = sum_bytes(counted, A{});
}

#if XSIMD_WITH_AVX2
// and_lanes8(r): lane i = the AND of the 8 lanes of r[i] (a transpose that ANDs as it goes:
// 21 instructions for 8 rows, where transpose_rows takes 24 shuffles before any AND).
[[gnu::always_inline]] inline __m256i and_lanes8(const __m256i (&r)[8]) noexcept {
    __m256i t[4];
    for (std::size_t i = 0; i < 4; ++i)  // rows 2i, 2i+1: lanes (0&2, 1&3) of each, per half
        t[i] = _mm256_and_si256(_mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]), _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]));
    // rows 0-3 (then 4-7): lanes 0-3 of each row ANDed in the low half, 4-7 in the high half
    const __m256i u0 = _mm256_and_si256(_mm256_unpacklo_epi64(t[0], t[1]), _mm256_unpackhi_epi64(t[0], t[1]));
    const __m256i u1 = _mm256_and_si256(_mm256_unpacklo_epi64(t[2], t[3]), _mm256_unpackhi_epi64(t[2], t[3]));
    return _mm256_and_si256(_mm256_permute2x128_si256(u0, u1, 0x20), _mm256_permute2x128_si256(u0, u1, 0x31));
}


// acc + the set bits of each byte of v (a nibble table; each byte of acc grows by at most 8,
// so 31 calls cannot overflow it). The AVX2 path has no vector popcount instruction.
[[gnu::always_inline]] inline __m256i add_byte_popcounts(__m256i acc, __m256i v) noexcept {
    const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,  //
                                           0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    const __m256i low = _mm256_shuffle_epi8(table, _mm256_and_si256(v, nibble));
    const __m256i high = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
    return _mm256_add_epi8(acc, _mm256_add_epi8(low, high));
}

// The sum of the 32 bytes of acc.
[[gnu::always_inline]] inline std::uint32_t sum_bytes(__m256i acc) noexcept {
    const __m256i sums = _mm256_sad_epu8(acc, _mm256_setzero_si256());  // 4 x 64-bit sums
    const __m128i pair = _mm_add_epi64(_mm256_castsi256_si128(sums), _mm256_extracti128_si256(sums, 1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si64(pair) + _mm_extract_epi64(pair, 1));
}

// The columns [0, words) of an equality over an interleaved payload (`stride` bytes a row) of
// Full * 8 + rest words a row (see compare_interleaved_equal); want: per rank, ~0 where the
// target's bit is 0, and ~0 past the last rank up to the next multiple of 8. With Count, returns
// the set bits of eq[0, words) (words <= 248), counted in registers as the words are folded
// (a popcount pass after it read the 256 bytes again: equal_interleaved); else 0.
// Tail (rest != 0): the last rest words of a row. Where a row has a whole register before them
// (Full >= 1), they are read by a plain load of the row's last 8 words, overlapping the
// register before (an AND does not mind a rank twice), with want's last 8 ranks; a masked load
// cost bed_name's 19 planes two uops a row more. Shorter rows take the masked load.
//
// The body takes the want registers as the row's registers meet them (wants[Full]: the tail's,
// from rank tail_at / 4 on) and is inlined into two callers: fold_interleaved_rows, where the
// stride is known only at run time, and fold_fixed_rows, where it is a constant.
template <std::uint32_t Full, bool Tail>
constexpr std::size_t fold_tail_at(std::uint32_t rest) noexcept {
    return Tail && Full >= 1 ? 32 * std::size_t{Full} + 4 * std::size_t{rest} - 32 : 32 * std::size_t{Full};
}

template <std::uint32_t Full, bool Tail, bool Count>
[[gnu::always_inline]] inline std::uint32_t fold_rows_body(const std::uint8_t* base, std::size_t stride,
                                                           std::size_t words, const __m256i (&wants)[Full + 1],
                                                           std::uint32_t rest, std::uint32_t* eq) noexcept {
    [[maybe_unused]] __m256i counts = _mm256_setzero_si256();
    constexpr bool overlap = Tail && Full >= 1;
    const std::size_t tail_at = fold_tail_at<Full, Tail>(rest);
    [[maybe_unused]] const __m256i rest_mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(rest)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    // thresholds.hpp: rows of more than 16 planes settle on their bottom 16 first.
    constexpr std::uint32_t first = (Full > thresholds::scan_fold_first_registers ||
                                     (Full == thresholds::scan_fold_first_registers && Tail))
                                        ? thresholds::scan_fold_first_registers
                                        : 0;
    for (std::size_t c = 0; c < words; c += 8) {
        __m256i rows[8];
        if constexpr (first != 0) {
            for (std::size_t i = 0; i < 8; ++i) {
                const std::uint8_t* row = base + (c + i) * stride;
                __m256i acc = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row)), wants[0]);
                for (std::uint32_t v = 1; v < first; ++v) {
                    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 32 * v));
                    acc = _mm256_and_si256(acc, _mm256_xor_si256(w, wants[v]));
                }
                rows[i] = acc;
            }
            const __m256i settled = and_lanes8(rows);
            if (_mm256_testz_si256(settled, settled) != 0) {  // nothing to count: all zero
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(eq + c), settled);
                continue;
            }
        }
        for (std::size_t i = 0; i < 8; ++i) {
            const std::uint8_t* row = base + (c + i) * stride;
            __m256i acc;
            if constexpr (first != 0) {
                acc = rows[i];
            } else {
                acc = _mm256_set1_epi32(-1);
            }
            for (std::uint32_t v = first; v < Full; ++v) {
                const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 32 * v));
                acc = _mm256_and_si256(acc, _mm256_xor_si256(w, wants[v]));
            }
            if constexpr (overlap) {
                const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + tail_at));
                acc = _mm256_and_si256(acc, _mm256_xor_si256(w, wants[Full]));
            } else if constexpr (Tail) {
                const __m256i w = _mm256_maskload_epi32(reinterpret_cast<const int*>(row + tail_at), rest_mask);
                acc = _mm256_and_si256(acc, _mm256_xor_si256(w, wants[Full]));  // missing lanes: 0 ^ ~0
            }
            rows[i] = acc;
        }
        const __m256i folded = and_lanes8(rows);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(eq + c), folded);
        if constexpr (Count) counts = add_byte_popcounts(counts, folded);
    }
    if constexpr (Count) return sum_bytes(counts);
    return 0;
}

template <std::uint32_t Full, bool Tail, bool Count = false>
std::uint32_t fold_interleaved_rows(const std::uint8_t* base, std::size_t stride, std::size_t words,
                                    const std::uint32_t* want, std::uint32_t rest, std::uint32_t* eq) noexcept {
    __m256i wants[Full + 1];
    for (std::uint32_t v = 0; v < Full; ++v) wants[v] = _mm256_load_si256(reinterpret_cast<const __m256i*>(want + 8 * v));
    if constexpr (Tail)
        wants[Full] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(want + fold_tail_at<Full, Tail>(rest) / 4));
    return fold_rows_body<Full, Tail, Count>(base, stride, words, wants, rest, eq);
}

// fold_interleaved_rows for rows of `stored` words (1..32), want as it takes it.
template <bool Count>
std::uint32_t fold_interleaved(const std::uint8_t* base, std::size_t stride, std::size_t words,
                               const std::uint32_t* want, std::uint32_t stored, std::uint32_t* eq) noexcept {
    const std::uint32_t rest = stored % 8;
    const auto fold = [&]<std::uint32_t Full>(std::integral_constant<std::uint32_t, Full>) {
        return rest != 0 ? fold_interleaved_rows<Full, true, Count>(base, stride, words, want, rest, eq)
                         : fold_interleaved_rows<Full, false, Count>(base, stride, words, want, rest, eq);
    };
    switch (stored / 8) {
        case 0: return fold(std::integral_constant<std::uint32_t, 0>{});
        case 1: return fold(std::integral_constant<std::uint32_t, 1>{});
        case 2: return fold(std::integral_constant<std::uint32_t, 2>{});
        case 3: return fold(std::integral_constant<std::uint32_t, 3>{});
        default: return fold(std::integral_constant<std::uint32_t, 4>{});
    }
}

// An equality that reads every plane of an interleaved payload once (one target, no finish,
// the steps a permutation of the ranks): eq of column c is the AND over the ranks r of
// row c's word r XOR (all ones where the target's bit is 0), so each row is read as it lies,
// 8 words to a register, and 8 rows are folded by and_lanes8 -- no transpose, no plane
// registers to keep. The last register of a row takes a masked load (lanes past the row read
// nothing, so nothing past the payload is read either) and its missing lanes count as equal.
// False (nothing written) where the job is not such an equality.
inline bool compare_interleaved_equal(const compare_job& job, std::uint32_t* eq, xsimd::avx2) noexcept {
    const std::uint32_t stored = job.stride / 4;
    if (job.targets != 1 || job.need_lt || job.finish[0] != compare_job::finish_none || job.steps[0] != stored ||
        stored == 0 || stored > plane_count || job.stride % 4 != 0)
        return false;
    alignas(32) std::uint32_t want[plane_count + 8];
    // The planes from the top down (rank stored - 1 - k), as the scans read them: checked and
    // set in loops without a dependency from one step to the next (vectorized), where the
    // general loop below cost as many instructions a block as the fold of 32 planes.
    bool top_down = true;
    for (std::uint32_t k = 0; k < stored; ++k) top_down &= job.offset[k] == 4 * (stored - 1 - k);
    if (top_down) {
        for (std::uint32_t r = 0; r < stored; ++r) want[r] = ((job.bits[0] >> (stored - 1 - r)) & 1u) - 1u;
    } else {
        std::uint64_t seen = 0;
        for (std::uint32_t k = 0; k < stored; ++k) {
            const std::uint32_t rank = job.offset[k] / 4;
            if (job.offset[k] % 4 != 0 || rank >= stored) return false;
            seen |= std::uint64_t{1} << rank;
            want[rank] = ((job.bits[0] >> k) & 1u) != 0 ? 0u : ~0u;
        }
        if (seen != (std::uint64_t{1} << stored) - 1) return false;  // a rank read twice, another never
    }
    for (std::uint32_t r = stored; r < stored / 8 * 8 + 8; ++r) want[r] = ~0u;
    fold_interleaved<false>(job.base, job.stride, job.words, want, stored, eq);
    return true;
}

// The equality of equal_interleaved on rows of S = 1..4 or 8 words: 8 rows are S whole registers,
// loaded as they lie (fold_interleaved_rows takes a masked load per row, 8 of them for 8 rows,
// and an 8 x 8 AND-transpose: scores3 and bed_strand, 3 planes and 1; for 8 words, where it
// loads no mask, GCC kept its 8 rows on the stack: geoip country columns). bits: the target's
// bit of rank r at bit r, turned into the want masks here, in registers (a want array filled a
// rank at a time cost about 40 instructions a block of 8 planes: callgrind). Returns the set bits of eq[0..64).
template <std::uint32_t S>
std::uint32_t fold_short_rows(const std::uint8_t* base, std::uint32_t bits, std::uint32_t* eq) noexcept {
    static_assert((S >= 1 && S <= 4) || S == 8);
    // want by lane, for the registers as loaded (S = 1, 2, 4, 8: every register alike; lane v
    // tests rank v % S, ~0 where the target's bit there is 0); for S = 3, one want per rank
    // broadcast, applied once the rows are split into planes.
    [[maybe_unused]] const __m256i lanes = _mm256_cmpeq_epi32(
        _mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits)),
                         _mm256_setr_epi32(1 << (0 % S), 1 << (1 % S), 1 << (2 % S), 1 << (3 % S), 1 << (4 % S),
                                           1 << (5 % S), 1 << (6 % S), 1 << (7 % S))),
        _mm256_setzero_si256());
    __m256i counts = _mm256_setzero_si256();
    for (std::size_t c = 0; c < plane_words; c += 8) {
        __m256i x[S];
        for (std::uint32_t v = 0; v < S; ++v)
            x[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + 4 * (S * c + 8 * v)));
        __m256i folded;
        if constexpr (S == 1) {
            folded = _mm256_xor_si256(x[0], lanes);
        } else if constexpr (S == 2) {
            // Rows of 2 words: AND each row's words into its even lane, then gather the even lanes
            // (per half: rows 0, 1 of x0, rows 0, 1 of x1; then the halves' 64-bit pairs in order).
            const __m256i a0 = _mm256_xor_si256(x[0], lanes);
            const __m256i a1 = _mm256_xor_si256(x[1], lanes);
            const __m256i e0 = _mm256_and_si256(a0, _mm256_srli_epi64(a0, 32));
            const __m256i e1 = _mm256_and_si256(a1, _mm256_srli_epi64(a1, 32));
            const __m256i pairs = _mm256_castps_si256(
                _mm256_shuffle_ps(_mm256_castsi256_ps(e0), _mm256_castsi256_ps(e1), _MM_SHUFFLE(2, 0, 2, 0)));
            folded = _mm256_permute4x64_epi64(pairs, _MM_SHUFFLE(3, 1, 2, 0));
        } else if constexpr (S == 3) {
            // Word 3 c + r of the 24 is plane r of row c: each plane's 8 words come from the
            // three registers by one permutation each, blended by lane.
            const __m256i idx0 = _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5);
            const __m256i idx1 = _mm256_setr_epi32(1, 4, 7, 2, 5, 0, 3, 6);
            const __m256i idx2 = _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7);
            const auto plane = [&](__m256i idx, auto from1, auto from2) {
                const __m256i p0 = _mm256_permutevar8x32_epi32(x[0], idx);
                const __m256i p1 = _mm256_permutevar8x32_epi32(x[1], idx);
                const __m256i p2 = _mm256_permutevar8x32_epi32(x[2], idx);
                return _mm256_blend_epi32(_mm256_blend_epi32(p0, p1, decltype(from1)::value), p2,
                                          decltype(from2)::value);
            };
            const __m256i p0 = plane(idx0, std::integral_constant<int, 0x38>{}, std::integral_constant<int, 0xC0>{});
            const __m256i p1 = plane(idx1, std::integral_constant<int, 0x18>{}, std::integral_constant<int, 0xE0>{});
            const __m256i p2 = plane(idx2, std::integral_constant<int, 0x1C>{}, std::integral_constant<int, 0xE0>{});
            const __m256i w0 = _mm256_set1_epi32(static_cast<int>(((bits >> 0) & 1u) - 1u));
            const __m256i w1 = _mm256_set1_epi32(static_cast<int>(((bits >> 1) & 1u) - 1u));
            const __m256i w2 = _mm256_set1_epi32(static_cast<int>(((bits >> 2) & 1u) - 1u));
            folded = _mm256_and_si256(_mm256_and_si256(_mm256_xor_si256(p0, w0), _mm256_xor_si256(p1, w1)),
                                      _mm256_xor_si256(p2, w2));
        } else if constexpr (S == 4) {
            // Rows of 4 words: each 128-bit half is one row, ANDed across its lanes; then one
            // lane of each row, in order.
            __m256i t[4];
            for (std::uint32_t v = 0; v < 4; ++v) {
                const __m256i a = _mm256_xor_si256(x[v], lanes);
                const __m256i b = _mm256_and_si256(a, _mm256_shuffle_epi32(a, _MM_SHUFFLE(2, 3, 0, 1)));
                t[v] = _mm256_and_si256(b, _mm256_shuffle_epi32(b, _MM_SHUFFLE(1, 0, 3, 2)));
            }
            const __m256i u01 = _mm256_blend_epi32(t[0], t[1], 0xAA);  // rows 0 2 0 2 | 1 3 1 3
            const __m256i u23 = _mm256_blend_epi32(t[2], t[3], 0xAA);  // rows 4 6 4 6 | 5 7 5 7
            const __m256i rows = _mm256_blend_epi32(u01, u23, 0xCC);   // rows 0 2 4 6 | 1 3 5 7
            folded = _mm256_permutevar8x32_epi32(rows, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        } else {
            // Rows of 8 words: each register is one row, ANDed across its lanes by and_lanes8.
            __m256i rows[8];
            for (std::uint32_t v = 0; v < 8; ++v) rows[v] = _mm256_xor_si256(x[v], lanes);
            folded = and_lanes8(rows);
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(eq + c), folded);
        // Counted only where some residual is equal: a rare value leaves nearly every group of
        // 8 rows empty, and the test and branch cost 2 instructions where the count costs 7
        // (geoip4_country count_eq rare, callgrind AVX2: see the commit).
        if (!_mm256_testz_si256(folded, folded)) counts = add_byte_popcounts(counts, folded);
    }
    return sum_bytes(counts);
}

// The fold of fold_interleaved_rows over a whole payload of rows of Stored planes (5-7, 9-32),
// with the stride a constant and the want registers made from `bits` in registers: with the
// stride known only at run time GCC kept 8 row pointers (6 of them spilled, reloaded in the
// second part) and the want masks went through an array on the stack and a dispatch by
// plane count: bed_name (19 planes) count_eq 683 -> 585 instructions a block, the fold's
// loop ~410 of them (callgrind AVX2; the group loop is 51 instructions for 8 rows).
template <std::uint32_t Stored>
std::uint32_t fold_fixed_rows(const std::uint8_t* payload, std::uint32_t bits, std::uint32_t* eq) noexcept {
    constexpr std::uint32_t full = Stored / 8, rest = Stored % 8;
    constexpr bool tail = rest != 0;
    // ~0 where the target's bit of rank r is 0; ranks past Stored read as 0 here, so lanes past
    // a short row (the masked load's 0s) count as equal.
    const std::uint64_t ranks = std::uint64_t{bits} & ((std::uint64_t{1} << Stored) - 1);
    const __m256i lane_bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const auto want_from = [&](std::size_t rank) {
        const __m256i b = _mm256_set1_epi32(static_cast<int>((ranks >> rank) & 0xFFu));
        return _mm256_cmpeq_epi32(_mm256_and_si256(b, lane_bits), _mm256_setzero_si256());
    };
    __m256i wants[full + 1];
    for (std::uint32_t v = 0; v < full; ++v) wants[v] = want_from(8 * v);
    if constexpr (tail) wants[full] = want_from(fold_tail_at<full, tail>(rest) / 4);
    return fold_rows_body<full, tail, true>(payload, 4 * std::size_t{Stored}, plane_words, wants, rest, eq);
}

// The fold by plane count (1..32): fold_short_rows where it takes the rows, else fold_fixed_rows.
using equal_fold_fn = std::uint32_t (*)(const std::uint8_t*, std::uint32_t, std::uint32_t*) noexcept;
template <std::uint32_t Stored>
constexpr equal_fold_fn equal_fold_for() noexcept {
    if constexpr (Stored <= 4 || Stored == 8) return &fold_short_rows<Stored>;
    else return &fold_fixed_rows<Stored>;
}
template <std::uint32_t... K>
constexpr std::array<equal_fold_fn, sizeof...(K)> make_equal_folds(std::integer_sequence<std::uint32_t, K...>) noexcept {
    return {equal_fold_for<K + 1>()...};
}
inline constexpr auto equal_folds = make_equal_folds(std::make_integer_sequence<std::uint32_t, plane_count>{});

// equal_interleaved of the kernel table (kernels.hpp): the fold above over a whole payload,
// from the target's bits by rank, with its popcount. An equality on an interleaved block
// (ops/scan_block.cpp) called compare_planes with a compare_job (200 bytes to fill, and the
// order of its planes checked), then popcount_words over the result: as many instructions a
// block as the fold itself on 3 to 10 planes (scores3, uniform10: callgrind).
inline std::uint32_t equal_interleaved(const std::uint8_t* payload, std::uint32_t stored, std::uint32_t bits,
                                       std::uint32_t* eq) noexcept {
    if (stored == 0 || stored > plane_count) {  // no plane: every residual is equal
        for (std::size_t c = 0; c < plane_words; ++c) eq[c] = ~0u;
        return static_cast<std::uint32_t>(block_values);
    }
    return equal_folds[stored - 1](payload, bits, eq);
}

// pack_marks of the kernel table (kernels.hpp): a word a movemask of 32 bytes, where SSE2
// takes two and a shift (bam_mapq count_eq frequent: about 14 instructions a word there).
// Two words are ANDed, stored and ORed as one 64-bit word: a word at a time took 11
// instructions a word (the loop's counters, load, AND, store and OR each), 7 so.
template <bool Count>
std::uint32_t pack_marks_into(const std::uint8_t* marks, std::uint32_t* out, std::uint32_t words, std::uint32_t flip,
                              bool fresh) noexcept {
    const auto word = [marks](std::uint32_t w) {
        return static_cast<std::uint32_t>(
            _mm256_movemask_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(marks + 32 * w))));
    };
    const std::uint64_t flip2 = std::uint64_t{flip} << 32 | flip;
    std::uint64_t acc = 0;
    std::uint32_t w = 0;
    for (; w + 2 <= words; w += 2) {
        std::uint64_t pair = (std::uint64_t{word(w)} | std::uint64_t{word(w + 1)} << 32) ^ flip2;
        if (!fresh) {
            std::uint64_t old;
            std::memcpy(&old, out + w, sizeof old);
            pair &= old;
        }
        std::memcpy(out + w, &pair, sizeof pair);
        if constexpr (Count) acc += static_cast<std::uint64_t>(std::popcount(pair));
        else acc |= pair;
    }
    if (w < words) {
        const std::uint32_t last = (word(w) ^ flip) & (fresh ? ~0u : out[w]);
        out[w] = last;
        if constexpr (Count) acc += static_cast<std::uint64_t>(std::popcount(last));
        else acc |= last;
    }
    if constexpr (Count) return static_cast<std::uint32_t>(acc);
    return acc != 0 ? 1u : 0u;
}

inline bool pack_marks(const std::uint8_t* marks, std::uint32_t* out, std::uint32_t words, std::uint32_t flip,
                       bool fresh) noexcept {
    return pack_marks_into<false>(marks, out, words, flip, fresh) != 0;
}

// pack_marks_count of the kernel table: the same, with a POPCNT per pair of words where
// pack_marks ORs them (count_eq on bam_mapq, geoip4_size: popcount_words over eq again after).
inline std::uint32_t pack_marks_count(const std::uint8_t* marks, std::uint32_t* out, std::uint32_t words,
                                      std::uint32_t flip, bool fresh) noexcept {
    return pack_marks_into<true>(marks, out, words, flip, fresh);
}

// narrow_planes of the kernel table (kernels.hpp): eq's 64 words in 8 registers for the whole
// pass, each plane a load, XOR and AND per register (the SSE2 loop of scan_block.cpp loads and
// stores eq again for every plane, 4 words an instruction). With Count, the popcount of the
// result from those registers (narrow_planes_count): byte counts of 8 registers (at most 64 a
// byte, no overflow), summed once.
template <bool Count>
std::uint32_t narrow_planes_into(std::uint32_t* eq, const std::uint8_t* const* planes, const std::uint32_t* flips,
                                 std::uint32_t count, bool fresh) noexcept {
    constexpr std::uint32_t regs = plane_words / 8;
    __m256i acc[regs];
    for (std::uint32_t r = 0; r < regs; ++r)
        acc[r] = fresh ? _mm256_set1_epi32(-1) : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(eq + 8 * r));
    for (std::uint32_t k = 0; k < count; ++k) {
        const std::uint8_t* p = planes[k];
        const __m256i flip = _mm256_set1_epi32(static_cast<int>(flips[k]));
        for (std::uint32_t r = 0; r < regs; ++r) {
            const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * r));
            acc[r] = _mm256_and_si256(acc[r], _mm256_xor_si256(x, flip));
        }
    }
    __m256i any = _mm256_setzero_si256();
    for (std::uint32_t r = 0; r < regs; ++r) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(eq + 8 * r), acc[r]);
        if constexpr (Count) any = add_byte_popcounts(any, acc[r]);
        else any = _mm256_or_si256(any, acc[r]);
    }
    if constexpr (Count) return sum_bytes(any);
    return _mm256_testz_si256(any, any) == 0 ? 1u : 0u;
}

inline bool narrow_planes(std::uint32_t* eq, const std::uint8_t* const* planes, const std::uint32_t* flips,
                          std::uint32_t count, bool fresh) noexcept {
    return narrow_planes_into<false>(eq, planes, flips, count, fresh) != 0;
}

inline std::uint32_t narrow_planes_count(std::uint32_t* eq, const std::uint8_t* const* planes,
                                         const std::uint32_t* flips, std::uint32_t count, bool fresh) noexcept {
    return narrow_planes_into<true>(eq, planes, flips, count, fresh);
}
#endif

template <class A>
void compare_planes(const compare_job* job, std::uint32_t* eq, std::uint32_t* lt) noexcept {
    const bool interleaved = job->stride != 4;
#if XSIMD_WITH_AVX2
    if constexpr (std::is_same_v<A, xsimd::avx2>) {
        if (interleaved && compare_interleaved_equal(*job, eq, A{})) return;
    }
#endif
    // A range's answer counted in the registers (compare_job::range_count).
    const bool count = job->need_lt && job->targets == 2 && job->range_into != nullptr && job->range_count != nullptr;
    if (count) {
        if (interleaved) {
            compare_interleaved<A, true, true>(*job, eq, lt);
        } else {
            compare_planar<A, true, true>(*job, eq, lt);
        }
    } else if (job->need_lt) {
        if (interleaved) {
            compare_interleaved<A, true, false>(*job, eq, lt);
        } else {
            compare_planar<A, true, false>(*job, eq, lt);
        }
    } else if (interleaved) {
        compare_interleaved<A, false, false>(*job, eq, lt);
    } else {
        compare_planar<A, false, false>(*job, eq, lt);
    }
}

}  // namespace bitplane::detail::BITPLANE_KERNEL_NS
