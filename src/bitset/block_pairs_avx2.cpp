// The AVX2 all-pairs comparison of block_pairs.hpp: 16 lanes a register, so a list of up to
// 32 positions takes two registers and each position of the other list one broadcast, two
// compares and two ORs. Compiled in a target region as bitset_kernels_avx2.cpp (see there):
// every header is included first, and the function is only reached through
// avx2_match_chunk(), which callers use only on the AVX2 path.
#if defined(BITPLANE_X86)

#include "bitset/block_pairs.hpp"

#include <immintrin.h>

#include <cstdint>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,popcnt,bmi2"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,popcnt,bmi2")
#endif

namespace bitplane::detail {
namespace {

// Lanes of s (16 a register) in the first `lanes`, the rest zero: masked 32-bit loads (an
// odd count reads one slot more), nothing past that read.
template <unsigned V>
std::uint32_t match(const std::uint16_t* s, std::uint32_t lanes, const std::uint16_t* t, std::uint32_t m) {
    __m256i x[V], hit[V];
    const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (unsigned v = 0; v < V; ++v) {
        const int dwords = static_cast<int>((lanes - 16 * v + 1) / 2);
        const __m256i inside = _mm256_cmpgt_epi32(_mm256_set1_epi32(dwords), index);
        x[v] = _mm256_maskload_epi32(reinterpret_cast<const int*>(s + 16 * v), inside);
        hit[v] = _mm256_setzero_si256();
    }
    for (std::uint32_t j = 0; j < m; ++j) {
        const __m256i y = _mm256_set1_epi16(static_cast<short>(t[j]));
        for (unsigned v = 0; v < V; ++v) hit[v] = _mm256_or_si256(hit[v], _mm256_cmpeq_epi16(x[v], y));
    }
    // packs interleaves the two registers per 128-bit half; the permute restores lane order.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packs_epi16(hit[0], V > 1 ? hit[V - 1] : _mm256_setzero_si256()), 0xD8);
    const auto mask = static_cast<std::uint32_t>(_mm256_movemask_epi8(packed));
    return lanes >= 32 ? mask : mask & ((1u << lanes) - 1);
}

std::uint32_t match_chunk(const std::uint16_t* s, std::uint32_t lanes, const std::uint16_t* t, std::uint32_t m) {
    return lanes <= 16 ? match<1>(s, lanes, t, m) : match<2>(s, lanes, t, m);
}

}  // namespace
}  // namespace bitplane::detail

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

namespace bitplane::detail {

match_chunk_fn avx2_match_chunk() noexcept { return match_chunk; }

}  // namespace bitplane::detail

#endif  // BITPLANE_X86
