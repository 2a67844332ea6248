// Scan kernels: value comparisons on the planes (equality and less-than masks, planar and
// interleaved payloads). Part of the kernels (kernels_impl.hpp).
#pragma once

#ifndef BITPLANE_KERNEL_NS
#error "define BITPLANE_KERNEL_NS before including kernels_scan.hpp (kernels_impl.hpp says why)"
#endif

#include "simd/kernels_codec.hpp"

#include <cstddef>
#include <cstdint>

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

}  // namespace bitplane::detail::BITPLANE_KERNEL_NS
