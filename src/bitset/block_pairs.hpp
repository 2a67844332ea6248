// Intersection of two short sorted position lists by comparing every pair at once, for the
// AND, ANDNOT and AND-count of two positions blocks (block_intersection.cpp): one list is held
// in vectors, each position of the other is broadcast and compared with all of them. No branch
// depends on the data (a merge of lists that interleave at random mispredicts every other
// step), and the result is a mask of the vector side's lanes found in the other list.
#pragma once

#include "bitset/bitset_block.hpp"
#include "bitset/bitset_kernels.hpp"
#include "bitset/bitset_words.hpp"
#include "codec/thresholds.hpp"

#include <bitplane/block.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bitplane::detail {

/// Per 32 lanes of the vector side (mask[c]: its lanes 32c .. 32c + 31), those found.
struct lane_masks {
    std::uint32_t mask[(block_values + 31) / 32];
};

/// Fills `out` for the sorted distinct positions s[0..lanes) (1 <= lanes <= 32) found in the
/// sorted t[0..m); returns the mask (lanes at or past `lanes` clear). s may be read up to 7
/// slots past `lanes` (an arena's slack, an inline payload's entry, a position_buffer's slack).
using match_chunk_fn = std::uint32_t (*)(const std::uint16_t* s, std::uint32_t lanes, const std::uint16_t* t,
                                         std::uint32_t m);

#if defined(BITPLANE_X86)
/// The AVX2 version (block_pairs_avx2.cpp), for CPUs that run AVX2.
match_chunk_fn avx2_match_chunk() noexcept;
#endif

// Keeps the positions s[0..n) that are (Keep) or are not in the sorted positions t[0..m),
// into out; returns how many. Branch-free merge steps.
template <bool Keep>
inline std::uint32_t filter_by_list(const std::uint16_t* s, std::uint32_t n, const std::uint16_t* t, std::uint32_t m,
                             std::uint16_t* out) noexcept {
    std::uint32_t i = 0, j = 0, k = 0;
    while (i < n && j < m) {
        const std::uint16_t x = s[i], y = t[j];
        out[k] = x;
        k += Keep ? (x == y) : (x < y);
        i += x <= y;
        j += y <= x;
    }
    if (!Keep)
        while (i < n) out[k++] = s[i++];
    return k;
}

// The portable match_chunk_fn: SSE2 (8 lanes a register), or a merge without it.
template <unsigned V>
inline std::uint32_t match_sse2(const std::uint16_t* s, const std::uint16_t* t, std::uint32_t m) noexcept {
#if defined(__SSE2__)
    __m128i x[V], hit[V];
    for (unsigned v = 0; v < V; ++v) {
        x[v] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 8 * v));
        hit[v] = _mm_setzero_si128();
    }
    for (std::uint32_t j = 0; j < m; ++j) {
        const __m128i y = _mm_set1_epi16(static_cast<short>(t[j]));
        for (unsigned v = 0; v < V; ++v) hit[v] = _mm_or_si128(hit[v], _mm_cmpeq_epi16(x[v], y));
    }
    std::uint32_t mask = 0;
    for (unsigned v = 0; v < V; v += 2) {
        const __m128i high = v + 1 < V ? hit[v + 1] : _mm_setzero_si128();
        mask |= static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(hit[v], high))) << (8 * v);
    }
    return mask;
#else
    std::uint32_t mask = 0;
    for (std::uint32_t i = 0, j = 0; i < 8 * V && j < m;) {
        mask |= std::uint32_t{s[i] == t[j]} << i;
        const bool step_i = s[i] <= t[j], step_j = t[j] <= s[i];
        i += step_i;
        j += step_j;
    }
    return mask;
#endif
}

inline std::uint32_t match_chunk_portable(const std::uint16_t* s, std::uint32_t lanes, const std::uint16_t* t,
                                          std::uint32_t m) noexcept {
    std::uint32_t mask;
    switch ((lanes + 7) / 8) {
        case 1: mask = match_sse2<1>(s, t, m); break;
        case 2: mask = match_sse2<2>(s, t, m); break;
        case 3: mask = match_sse2<3>(s, t, m); break;
        default: mask = match_sse2<4>(s, t, m); break;
    }
    return lanes >= 32 ? mask : mask & ((1u << lanes) - 1);
}

/// The chunk function for kernel table k's path: AVX2 where k is the AVX2 table, else the
/// portable one (block_intersection.cpp; out of line, so that every translation unit agrees).
match_chunk_fn match_chunk_for(const bitset_kernel_table& k) noexcept;

// Fills `out` for the sorted positions s[0..n) (n >= 1) found in t[0..m); returns the number
// of 32-lane chunks. s may be read up to 7 slots past n.
inline std::uint32_t match_lanes(const std::uint16_t* s, std::uint32_t n, const std::uint16_t* t, std::uint32_t m,
                          lane_masks& out, match_chunk_fn match) noexcept {
    const std::uint32_t chunks = (n + 31) / 32;
    if (chunks == 1) {
        out.mask[0] = match(s, n, t, m);
        return 1;
    }
    for (std::uint32_t c = 0; c < chunks; ++c) {
        const std::uint16_t* x = s + 32 * c;
        const std::uint32_t lanes = std::min(n - 32 * c, 32u);
        // Only the positions of t within this chunk's range can match (both lists sorted).
        const std::uint16_t* lo = std::lower_bound(t, t + m, x[0]);
        const std::uint16_t* hi = std::upper_bound(lo, t + m, x[lanes - 1]);
        out.mask[c] = match(x, lanes, lo, static_cast<std::uint32_t>(hi - lo));
    }
    return chunks;
}

// Whether comparing every pair of two position lists (n on the vector side, m broadcast)
// costs less than spreading one into bits and probing them.
inline bool pairwise_pays(std::uint32_t n, std::uint32_t m) noexcept {
    return m * ((n + 7) / 8) <= thresholds::bitset_pairwise_max_product;
}

// The positions s[0..n) whose lane is (Keep) or is not set in `found`, into out (room for n
// rounded up to 8, plus 8). A chunk kept whole (ANDNOT of a chunk nothing removes from, AND of
// one the other list holds entirely) is copied 8 slots at a time, reading up to 7 slots past n
// as match_lanes; a chunk of few kept lanes (AND) visits their bits; the rest is a branch-free
// pass.
template <bool Keep>
inline std::uint32_t keep_lanes(const std::uint16_t* s, std::uint32_t n, const lane_masks& found, std::uint16_t* out) noexcept {
    std::uint32_t k = 0;
    for (std::uint32_t c = 0; 32 * c < n; ++c) {
        const std::uint16_t* x = s + 32 * c;
        const std::uint32_t lanes = std::min(n - 32 * c, 32u);
        const std::uint32_t all = lanes == 32 ? ~0u : (1u << lanes) - 1;
        const std::uint32_t keep = Keep ? found.mask[c] : ~found.mask[c] & all;
        if (keep == all) {
            for (std::uint32_t i = 0; i < lanes; i += 8) std::memcpy(out + k + i, x + i, 16);
            k += lanes;
        } else if (Keep) {
            for (std::uint32_t mask = keep; mask != 0; mask &= mask - 1)
                out[k++] = x[static_cast<std::uint32_t>(std::countr_zero(mask))];
        } else {
            for (std::uint32_t i = 0; i < lanes; ++i) {
                out[k] = x[i];
                k += (keep >> i) & 1u;
            }
        }
    }
    return k;
}

inline std::uint32_t count_lanes(const lane_masks& found, std::uint32_t chunks) noexcept {
    std::uint32_t k = 0;
    for (std::uint32_t c = 0; c < chunks; ++c) k += popcount64(found.mask[c]);
    return k;
}


// Lanes of x[0..n) found in y[0..m), n, m <= 4 (inline payloads: one to four positions in
// an entry's 8 bytes; both read as 8 bytes), without a branch: the lanes past n and m are
// filled with values no position has (0xFFFF, 0xFFFE), then x, twice, is compared with the
// four rotations of y, two to a register.
inline std::uint32_t match_four(const std::uint16_t* x, std::uint32_t n, const std::uint16_t* y, std::uint32_t m) noexcept {
    std::uint64_t a, b;
    std::memcpy(&a, x, 8);
    std::memcpy(&b, y, 8);
    const std::uint64_t ones = ~std::uint64_t{0};
    const std::uint64_t past_n = n >= 4 ? 0 : ones << (16 * n), past_m = m >= 4 ? 0 : ones << (16 * m);
    a |= past_n;
    b = (b & ~past_m) | (past_m & 0xFFFEFFFEFFFEFFFEull);
#if defined(__SSE2__)
    const __m128i xa = _mm_set1_epi64x(static_cast<long long>(a));
    const __m128i yb = _mm_set1_epi64x(static_cast<long long>(b));
    // Lanes 0-3: y rotated by 0 and (high half) 1; then by 2 and 3.
    const __m128i r01 = _mm_shufflehi_epi16(yb, 0x39);
    const __m128i r23 = _mm_shufflehi_epi16(_mm_shufflelo_epi16(yb, 0x4E), 0x93);
    const __m128i eq = _mm_or_si128(_mm_cmpeq_epi16(xa, r01), _mm_cmpeq_epi16(xa, r23));
    const auto bytes = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(eq, eq)));  // lanes 0-7
    return (bytes | (bytes >> 4)) & 0xFu;
#else
    std::uint32_t mask = 0;
    for (std::uint32_t i = 0; i < 4; ++i)
        for (std::uint32_t j = 0; j < 4; ++j) mask |= std::uint32_t{((a >> (16 * i)) & 0xFFFF) == ((b >> (16 * j)) & 0xFFFF)} << i;
    return mask;
#endif
}

/// AND-count of two positions lists x[0..n), y[0..m) (read in place, as match_lanes), when
/// their sizes make comparing pairs pay; false (found untouched) otherwise.
inline bool count_position_pairs(const std::uint16_t* x, std::uint32_t n, const std::uint16_t* y, std::uint32_t m,
                                 match_chunk_fn match, std::uint32_t& found) noexcept {
    if (n <= 4 && m <= 4) {
        found = popcount64(match_four(x, n, y, m));
        return true;
    }
    if (n * m <= thresholds::bitset_few_pairs_product) {
        std::uint32_t k = 0;
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j = 0; j < m; ++j) k += x[i] == y[j];
        found = k;
        return true;
    }
    if (m > n) {
        std::swap(x, y);
        std::swap(n, m);
    }
    if (!pairwise_pays(n, m)) return false;
    lane_masks lanes;
    found = count_lanes(lanes, match_lanes(x, n, y, m, lanes, match));
    return true;
}

/// The positions of x[0..n) that are (Keep) or are not in y[0..m) into out (room for n + 16),
/// when their sizes make comparing pairs pay; false otherwise. The result is sorted; for AND
/// it is the lanes of the longer list (the vector side) found in the shorter.
template <bool Keep>
inline bool filter_position_pairs(const std::uint16_t* x, std::uint32_t n, const std::uint16_t* y, std::uint32_t m,
                                  match_chunk_fn match, std::uint16_t* out, std::uint32_t& kept) noexcept {
    if (n <= 4 && m <= 4) {
        lane_masks lanes;
        lanes.mask[0] = Keep ? match_four(x, n, y, m) : match_four(x, n, y, m) ^ ((1u << n) - 1);
        std::uint32_t k = 0;
        for (std::uint32_t mask = lanes.mask[0]; mask != 0; mask &= mask - 1)
            out[k++] = x[static_cast<std::uint32_t>(std::countr_zero(mask))];
        kept = k;
        return true;
    }
    if (n * m <= thresholds::bitset_few_pairs_product) {
        kept = filter_by_list<Keep>(x, n, y, m, out);
        return true;
    }
    if (Keep && m > n) {  // AND: the longer list on the vector side
        std::swap(x, y);
        std::swap(n, m);
    }
    if (!pairwise_pays(n, m)) return false;
    lane_masks lanes;
    match_lanes(x, n, y, m, lanes, match);
    kept = keep_lanes<Keep>(x, n, lanes, out);
    return true;
}

}  // namespace bitplane::detail
