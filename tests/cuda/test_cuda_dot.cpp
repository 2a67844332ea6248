// The device dot kernels (dot_mma: 1-bit tensor-core product; dot_planes: CUDA-core popcounts),
// each forced in turn, against bitplane::dot on the CPU: every pair of plane counts around the
// kernels' limits (8 and 16 planes), frame-of-reference bases, signed and unsigned, and long
// vectors whose blocks alternate between shapes that the fast kernels take and shapes that go to
// the decoding kernel, so that each warp works through several pairs with its copies in flight.
#include <bitplane/cuda/device.hpp>
#include <bitplane/cuda/device_vector.hpp>
#include <bitplane/cuda/tuning.hpp>
#include <bitplane/reduce.hpp>
#include <bitplane/vector.hpp>

#include "../test_support.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::cuda::tuning::dot_method;

#define BITPLANE_NEED_DEVICE() \
    if (bitplane::cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device: bitplane::cuda::device_count() == 0"

/// Forces one dot kernel (and a CTA count) for the scope.
struct forced_method {
    explicit forced_method(dot_method m, int ctas_per_sm = 0) {
        bitplane::cuda::tuning::launch_params p;
        p.dot_method = static_cast<int>(m);
        if (ctas_per_sm > 0) p.dot_ctas_per_sm = ctas_per_sm;
        bitplane::cuda::tuning::force(p);
    }
    ~forced_method() { bitplane::cuda::tuning::unforce(); }
    forced_method(const forced_method&) = delete;
    forced_method& operator=(const forced_method&) = delete;
};

const char* name_of(dot_method m) { return m == dot_method::mma ? "mma" : "popcount"; }

template <class T>
std::string dot_text(const bitplane::vector<T>& a, const bitplane::vector<T>& b) {
    return bitplane::to_string(bitplane::dot(a, b));
}

template <class T>
std::string device_dot_text(const bitplane::vector<T>& a, const bitplane::vector<T>& b) {
    const bitplane::cuda::device_vector<T> da(a), db(b);
    return bitplane::to_string(bitplane::cuda::dot(da, db));
}

/// n values of `bits` random bits plus `base` (mod 2^32), as T.
template <class T>
bitplane::vector<T> offset_uniform(unsigned bits, std::uint32_t base, std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<T> values(n);
    for (auto& v : values) {
        const auto r = static_cast<std::uint32_t>(rng());
        v = std::bit_cast<T>(base + (bits == 0 ? 0u : bits >= 32 ? r : r & ((1u << bits) - 1u)));
    }
    return bitplane::vector<T>(std::span<const T>(values));
}

template <class T>
void check_widths(dot_method m) {
    const std::size_t n = quick_mode() ? 3 * 2048 + 7 : 9 * 2048 + 7;
    const std::vector<unsigned> widths = quick_mode() ? std::vector<unsigned>{0, 7, 9, 16, 17}
                                                      : std::vector<unsigned>{0, 1, 5, 7, 8, 9, 10, 15, 16, 17, 24};
    // Bases: none, small (frame of reference), large (so that base + residual nears the top), negative.
    const std::vector<std::uint32_t> bases = {0u, 1000u, 0x7fff0000u, 0xfffff000u};
    for (const unsigned wa : widths)
        for (const unsigned wb : widths)
            for (const std::uint32_t base : bases) {
                SCOPED_TRACE(std::string(name_of(m)) + " widths " + std::to_string(wa) + " x " + std::to_string(wb) +
                             " base " + std::to_string(base));
                const auto a = offset_uniform<T>(wa, base, n, case_seed("dot widths a", wa * 100 + wb, base));
                const auto b = offset_uniform<T>(wb, base / 2, n, case_seed("dot widths b", wa * 100 + wb, base));
                ASSERT_EQ(device_dot_text(a, b), dot_text(a, b));
                ASSERT_EQ(device_dot_text(a, a), dot_text(a, a));
            }
}

TEST(CudaDot, EveryWidthPairMatchesCpuUint32) {
    BITPLANE_NEED_DEVICE();
    for (const dot_method m : {dot_method::mma, dot_method::popcount}) {
        const forced_method scope(m);
        check_widths<std::uint32_t>(m);
    }
}

TEST(CudaDot, EveryWidthPairMatchesCpuInt32) {
    BITPLANE_NEED_DEVICE();
    for (const dot_method m : {dot_method::mma, dot_method::popcount}) {
        const forced_method scope(m);
        check_widths<std::int32_t>(m);
    }
}

/// Blocks of alternating shapes: some the fast kernels take, some they list for decoding.
template <class T>
bitplane::vector<T> patchwork(std::size_t blocks, std::uint64_t seed) {
    const std::vector<shape> shapes = {uniform(10), uniform(16), uniform(3),  uniform(10), of(shape_kind::sparse_90),
                                       uniform(12), of(shape_kind::runs), uniform(10), uniform(20),
                                       of(shape_kind::small_negative), of(shape_kind::near_int_max), uniform(8)};
    std::mt19937_64 rng(seed);
    std::vector<T> values;
    values.reserve(blocks * 2048 + 100);
    for (std::size_t k = 0; k < blocks; ++k) {
        const shape& s = shapes[rng() % shapes.size()];
        for (const std::uint32_t v : make_values(s, 2048, rng())) values.push_back(std::bit_cast<T>(v));
    }
    for (int i = 0; i < 100; ++i) values.push_back(std::bit_cast<T>(static_cast<std::uint32_t>(rng() & 1023u)));
    return bitplane::vector<T>(std::span<const T>(values));
}

template <class T>
void check_many_pairs() {
    // Enough pairs that every warp of the grid takes several (the grid holds at most
    // multiprocessors x 3 CTAs x 4 warps; forced to 1 CTA per SM, a third of that).
    const std::size_t blocks = quick_mode() ? 1500 : 6000;
    const auto a = patchwork<T>(blocks, case_seed("dot patchwork a", blocks));
    const auto b = patchwork<T>(blocks, case_seed("dot patchwork b", blocks));
    const auto c = offset_uniform<T>(10, 0, a.size(), case_seed("dot patchwork c", blocks));
    const std::string ab = dot_text(a, b), ac = dot_text(a, c), cc = dot_text(c, c);
    for (const dot_method m : {dot_method::mma, dot_method::popcount})
        for (const int ctas : {1, 3}) {
            SCOPED_TRACE(std::string(name_of(m)) + ", " + std::to_string(ctas) + " CTAs per SM");
            const forced_method scope(m, ctas);
            EXPECT_EQ(device_dot_text(a, b), ab);
            EXPECT_EQ(device_dot_text(a, c), ac);
            EXPECT_EQ(device_dot_text(c, c), cc);
            const bitplane::cuda::device_vector<T> dc(c);
            EXPECT_EQ(bitplane::to_string(bitplane::cuda::dot(dc, dc)), cc);  // one operand: copied once
            // sum: blocks read as planes (sum_planes) and listed ones decoded, in one call,
            // many per warp; the launch shares follow the forced CTA counts too.
            const bitplane::cuda::device_vector<T> da(a);
            EXPECT_EQ(bitplane::to_string(bitplane::cuda::sum(da)), bitplane::to_string(bitplane::sum(a)));
            EXPECT_EQ(bitplane::to_string(bitplane::cuda::sum(dc)), bitplane::to_string(bitplane::sum(c)));
        }
}

TEST(CudaDot, ManyPairsPerWarpMixedBlocksUint32) {
    BITPLANE_NEED_DEVICE();
    check_many_pairs<std::uint32_t>();
}

TEST(CudaDot, ManyPairsPerWarpMixedBlocksInt32) {
    BITPLANE_NEED_DEVICE();
    check_many_pairs<std::int32_t>();
}

}  // namespace
