// Gap lists as the vector keeps them beside a block (codec/direct_access.hpp, gaps_side::entry:
// decoded u16 positions, ascending, then pads at or past the block) walked or marked into a
// byte map: scan_block.cpp's equality and order paths and equal_candidates.cpp's clearing
// lists (which had its own copy of mark_listed).
#pragma once

#include <bitplane/block.hpp>

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bitplane::detail {

#if defined(__SSE2__)
// marks[p & last_bit] = v for the eight 16-bit positions of `positions` (last_bit: the
// block's last position, or ~0u where the caller has bounded the positions: no mask then,
// eight ANDs fewer, 3% of bam_mapq's count_eq frequent).
template <std::uint32_t last_bit = block_values - 1>
[[gnu::always_inline]] inline void mark_8(__m128i positions, std::uint8_t* marks, std::uint8_t v) noexcept {
    marks[static_cast<std::uint32_t>(_mm_extract_epi16(positions, 0)) & last_bit] = v;
    marks[static_cast<std::uint32_t>(_mm_extract_epi16(positions, 1)) & last_bit] = v;
    marks[static_cast<std::uint32_t>(_mm_extract_epi16(positions, 2)) & last_bit] = v;
    marks[static_cast<std::uint32_t>(_mm_extract_epi16(positions, 3)) & last_bit] = v;
    marks[static_cast<std::uint32_t>(_mm_extract_epi16(positions, 4)) & last_bit] = v;
    marks[static_cast<std::uint32_t>(_mm_extract_epi16(positions, 5)) & last_bit] = v;
    marks[static_cast<std::uint32_t>(_mm_extract_epi16(positions, 6)) & last_bit] = v;
    marks[static_cast<std::uint32_t>(_mm_extract_epi16(positions, 7)) & last_bit] = v;
}
#endif

// f(position) for each of a gap list's decoded positions as the vector keeps them beside the
// block (gaps_side::entry: `listed` of them, ascending, then pads at or past the block, which
// end the walk).
template <class F>
inline void for_each_listed(const std::uint16_t* positions, std::uint32_t listed, F&& f) noexcept {
    for (std::uint32_t i = 0; i < listed; ++i) {
        const std::uint32_t p = positions[i];
        if (p >= block_values) break;  // the pads
        f(p);
    }
}

// marks[p] = v for each position p of a gap list's decoded positions as the vector keeps them
// beside the block (gaps_side::entry: `listed` of them, a multiple of 8, ascending, then pads
// above the block): a store each, no gap decoded. Positions at or past the block (the pads)
// mark marks[block_values], a byte past the block that no one reads; it stops after the first
// eight that reach it. bam_mapq's short lists are mostly escapes (gaps of 255 and more), each
// a mispredicted branch when decoded.
inline void mark_listed(const std::uint16_t* positions, std::uint32_t listed, std::uint8_t* marks, std::uint8_t v) noexcept {
#if defined(__SSE2__)
    // min(x, block_values) unsigned, in SSE2: x - max(x - block_values, 0).
    const __m128i end = _mm_set1_epi16(static_cast<short>(block_values));
    for (std::uint32_t i = 0; i < listed; i += 8) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(positions + i));
        const __m128i bounded = _mm_sub_epi16(x, _mm_subs_epu16(x, end));
        mark_8<~0u>(bounded, marks, v);
        if (static_cast<std::uint32_t>(_mm_extract_epi16(bounded, 7)) == block_values) break;
    }
#else
    for_each_listed(positions, listed, [marks, v](std::uint32_t p) { marks[p] = v; });
#endif
}

}  // namespace bitplane::detail
