// kernel_table::extract_planes (src/simd/kernels_compact.hpp): several planes stored column by
// column (an interleaved all-raw payload) or one after another (any plane stride) compacted at
// once to the set bits of a selector,
// against extract_plane applied to each plane alone (itself tested against a bit loop in
// test_reduce_kernels.cpp), on every SIMD path, and the portable loop the paths without a
// kernel use (ops/bitwise.cpp).
#include "test_support.hpp"

#include "../src/simd/kernels.hpp"
#include "../src/simd/kernels_compact.hpp"

#include <bitplane/block.hpp>
#include <bitplane/simd.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::plane_count;
using bitplane::plane_words;
using bitplane::detail::kernel_table;
using words = std::vector<std::uint32_t>;

constexpr std::uint32_t garbage = 0xDEADBEEFu;

template <class F>
void for_each_path(F&& f) {
    const bitplane::simd_path saved = bitplane::active_simd_path();
    for (const bitplane::simd_path p : bitplane_test::paths_to_sweep()) {
        bitplane::set_simd_path(p);
        SCOPED_TRACE("path " + std::string(bitplane::to_string(p)));
        f(bitplane::detail::active_kernels());
    }
    bitplane::set_simd_path(saved);
}

// extract_planes(planes of `live`, select, columns) against extract_plane on each plane's
// first `columns` words alone; only the planes of `live` and their first ceil(popcount / 32)
// words are written, and nothing from column `columns` on is read (those bytes are left out
// of the buffer: ASan sees a stray read). `plane_stride` 0: the planes stored column by
// column (an interleaved payload); else each plane's words one after another, `plane_stride`
// bytes from one plane to the next (finish_sparse's whole planes: 4 * plane_words).
template <class Extract>
void check_extract(Extract extract, const kernel_table& k, std::uint32_t live, const words& select, std::size_t columns,
                   std::size_t plane_stride, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto stored = static_cast<std::size_t>(std::popcount(live));
    const std::size_t column_stride = plane_stride == 0 ? 4 * stored : 4;
    const std::size_t row_stride = plane_stride == 0 ? 4 : plane_stride;
    const auto at = [&](std::size_t c, std::size_t r) { return 1 + c * column_stride + r * row_stride; };
    // One spare byte before the first word, to catch misaligned reads; the buffer ends at the
    // last word read (column columns - 1 of the last plane).
    std::vector<std::uint8_t> bytes(stored == 0 ? 1 : at(columns - 1, stored - 1) + 4);
    for (auto& byte : bytes) byte = static_cast<std::uint8_t>(rng());
    std::vector<words> planes(stored, words(plane_words));
    for (std::size_t r = 0; r < stored; ++r)
        for (std::size_t c = 0; c < plane_words; ++c) {
            auto w = static_cast<std::uint32_t>(rng());
            if (r % 3 == 1) w = 0;
            if (r % 5 == 2) w = ~0u;
            planes[r][c] = w;
            if (c < columns) std::memcpy(bytes.data() + at(c, r), &w, 4);
        }
    const words select_head(select.begin(), select.begin() + static_cast<std::ptrdiff_t>(columns));
    words out(plane_count * plane_words, garbage);
    extract(bytes.data() + 1, column_stride, row_stride, live, select_head.data(), columns, out.data());
    std::size_t selected = 0;
    for (const std::uint32_t w : select_head) selected += static_cast<std::size_t>(std::popcount(w));
    const std::size_t written = (selected + 31) / 32;
    std::size_t r = 0;
    for (std::size_t j = 0; j < plane_count; ++j) {
        const std::uint32_t* got = out.data() + j * plane_words;
        if (((live >> j) & 1u) == 0) {
            for (std::size_t w = 0; w < plane_words; ++w) ASSERT_EQ(got[w], garbage) << "plane " << j << " not in live";
            continue;
        }
        words expected(plane_words);
        k.extract_plane(planes[r].data(), select.data(), columns, expected.data());
        for (std::size_t w = 0; w < written; ++w) ASSERT_EQ(got[w], expected[w]) << "plane " << j << " word " << w;
        for (std::size_t w = written; w < plane_words; ++w) ASSERT_EQ(got[w], garbage) << "plane " << j << " word " << w;
        ++r;
    }
}

TEST(BitwiseKernels, ExtractPlanesMatchesExtractPlaneOnEachPlane) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("extract-planes"));
    const std::vector<words> selects = plane_masks(rng);
    // Every count of planes 0 to 32 (groups of up to ten, split evenly), gaps between live planes.
    std::vector<std::uint32_t> lives = {0x80000001u, 0xAAAAAAAAu, 0x00FF00F0u, 0xFFFFFFFFu, 0x0u, 0x7FFF0000u};
    for (std::uint32_t n = 1; n < 32; ++n) lives.push_back((1u << n) - 1u);
    // Interleaved (0), whole planes apart (the constant stride), and planes of 8 and 65 words
    // one after another (any other stride).
    const std::size_t strides[] = {0, 4 * plane_words, 4 * 8, 4 * 65};
    bool kernel_seen = false;
    for_each_path([&](const kernel_table& k) {
        kernel_seen = kernel_seen || k.extract_planes != nullptr;
        for (std::size_t si = 0; si < selects.size(); ++si)
            for (const std::uint32_t live : lives)
                for (const std::size_t columns : {plane_words, std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{33}})
                    for (const std::size_t stride : strides) {
                        if (stride != 0 && stride < 4 * columns) continue;  // planes would overlap
                        SCOPED_TRACE("selector " + std::to_string(si) + " live " + std::to_string(live) + " columns " +
                                     std::to_string(columns) + " plane stride " + std::to_string(stride));
                        const std::uint64_t seed = case_seed("extract-planes-data", si, live);
                        if (k.extract_planes) check_extract(k.extract_planes, k, live, selects[si], columns, stride, seed);
                        check_extract(
                            [](const std::uint8_t* w, std::size_t cs, std::size_t ps, std::uint32_t l, const std::uint32_t* s,
                               std::size_t c, std::uint32_t* o) {
                                bitplane::detail::extract_planes_with(w, cs, ps, l, s, c, o,
                                                                      &bitplane::detail::extract32_portable);
                            },
                            k, live, selects[si], columns, stride, seed);
                    }
    });
    // The AVX2 table has the kernel; where AVX2 is available, it was tested.
    for (const bitplane::simd_path p : bitplane_test::paths_to_sweep()) {
        if (p == bitplane::simd_path::avx2) {
            EXPECT_TRUE(kernel_seen);
        }
    }
}

}  // namespace
