// Several planes compacted at once to the set bits of one selector plane (pext column by
// column): kernel_table::extract_planes. The loop is written once here; the AVX2 unit
// instantiates it with the BMI2 pext (kernels_avx2.cpp), and ops/bitwise.cpp with a portable
// extract for the paths without one. Internal linkage: each translation unit, whatever its
// -m flags, gets its own copy (scripts/check-linkage.py).
#pragma once

#include "simd/kernels.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bitplane::detail {

namespace {

/// `N` planes of extract_planes_with (word c of plane r at words + c * column_stride +
/// r * plane_stride; plane_stride is `Stride` where that is not 0: constant offsets from the
/// column, as an interleaved payload's 4), their windows in registers.
template <std::uint32_t N, std::size_t Stride, class Extract>
inline void extract_group(const std::uint8_t* words, std::size_t column_stride, std::size_t plane_stride,
                          const std::uint32_t* select, std::size_t columns, std::uint32_t* const* target,
                          Extract extract) noexcept {
    std::uint64_t window[N] = {};
    std::uint32_t filled = 0;  // bits in every window
    std::size_t written = 0;   // words written to every target
    for (std::size_t c = 0; c < columns; ++c) {
        // No test for an empty selector word: it extracts nothing and adds nothing, and a
        // sparse mask's words are rarely empty (10% kept: 3% of them), so the branch cost more
        // than the columns it skips.
        const std::uint32_t m = select[c];
        const std::uint8_t* column = words + c * column_stride;
        for (std::uint32_t r = 0; r < N; ++r) {
            std::uint32_t w;
            std::memcpy(&w, column + r * (Stride != 0 ? Stride : plane_stride), 4);
            window[r] |= static_cast<std::uint64_t>(extract(w, m)) << filled;
        }
        filled += static_cast<std::uint32_t>(std::popcount(m));
        if (filled >= 32) {
            for (std::uint32_t r = 0; r < N; ++r) {
                target[r][written] = static_cast<std::uint32_t>(window[r]);
                window[r] >>= 32;
            }
            ++written;
            filled -= 32;
        }
    }
    if (filled != 0)
        for (std::uint32_t r = 0; r < N; ++r) target[r][written] = static_cast<std::uint32_t>(window[r]);
}

/// The groups of extract_planes_with, `Stride` as extract_group's.
template <std::size_t Stride, class Extract>
inline void extract_groups(const std::uint8_t* words, std::size_t column_stride, std::size_t plane_stride,
                           std::uint32_t stored, const std::uint32_t* select, std::size_t columns,
                           std::uint32_t* const* target, Extract extract) noexcept {
    // Groups of at most ten planes, as even as they come (20 planes: 10 + 10): each group
    // walks the selector words once (~9 instructions a column besides the planes' ~4 a word),
    // so fewer groups pay that walk fewer times. AND of uniform 10-bit with a 90%-sparse
    // column (AVX2, callgrind): 5 + 5 planes -> one group of 10, extract_planes 5.2K -> 4.7K
    // instructions a block, some windows spilled to the stack (an OR into memory is still
    // one instruction; timed no slower). 4 + 4 + 2 -> 5 + 5 had saved 1.1K before.
    constexpr std::uint32_t most = 10;
    const std::uint32_t groups = (stored + most - 1) / most;
    std::uint32_t r = 0;
    for (std::uint32_t g = 0; g < groups; ++g) {
        const std::uint32_t n = (stored - r + (groups - g) - 1) / (groups - g);
        const std::uint8_t* first = words + r * plane_stride;
        std::uint32_t* const* to = target + r;
        const std::size_t cs = column_stride, ps = plane_stride;
        switch (n) {
            case 10: extract_group<10, Stride>(first, cs, ps, select, columns, to, extract); break;
            case 9: extract_group<9, Stride>(first, cs, ps, select, columns, to, extract); break;
            case 8: extract_group<8, Stride>(first, cs, ps, select, columns, to, extract); break;
            case 7: extract_group<7, Stride>(first, cs, ps, select, columns, to, extract); break;
            case 6: extract_group<6, Stride>(first, cs, ps, select, columns, to, extract); break;
            case 5: extract_group<5, Stride>(first, cs, ps, select, columns, to, extract); break;
            case 4: extract_group<4, Stride>(first, cs, ps, select, columns, to, extract); break;
            case 3: extract_group<3, Stride>(first, cs, ps, select, columns, to, extract); break;
            case 2: extract_group<2, Stride>(first, cs, ps, select, columns, to, extract); break;
            default: extract_group<1, Stride>(first, cs, ps, select, columns, to, extract); break;
        }
        r += n;
    }
}

/// kernel_table::extract_planes with `extract` as the word pext. The planes' words of one
/// column share the selector word, so its popcount and the output position are computed once
/// for a group of up to ten planes, whose 64-bit windows (in registers, some spilled) are
/// written out 32 bits at a time. An interleaved payload (plane_stride 4) and whole planes one
/// after another (plane_stride 4 * plane_words, ops/bitwise.cpp's finish_sparse) read their
/// planes at constant offsets from the column; other strides at multiples of plane_stride
/// (~1 instruction a word more: finish_sparse's few words planes 8 words apart, callgrind).
template <class Extract>
inline void extract_planes_with(const std::uint8_t* words, std::size_t column_stride, std::size_t plane_stride,
                                std::uint32_t live, const std::uint32_t* select, std::size_t columns,
                                std::uint32_t* out, Extract extract) noexcept {
    columns = columns < plane_words ? columns : plane_words;
    std::uint32_t* target[plane_count];
    std::uint32_t stored = 0;
    for (std::uint32_t bits = live; bits; bits &= bits - 1)
        target[stored++] = out + static_cast<std::size_t>(std::countr_zero(bits)) * plane_words;
    if (plane_stride == 4) {
        extract_groups<4>(words, column_stride, 4, stored, select, columns, target, extract);
    } else if (plane_stride == 4 * plane_words) {
        extract_groups<4 * plane_words>(words, column_stride, plane_stride, stored, select, columns, target, extract);
    } else {
        extract_groups<0>(words, column_stride, plane_stride, stored, select, columns, target, extract);
    }
}

}  // namespace

}  // namespace bitplane::detail
