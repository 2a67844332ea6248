// Similarity (include/bitplane/similarity.hpp) against references computed value by value:
// every data shape and standard size, both value types, a pending write-back block and a
// partial tail, every SIMD path, 1 and 2 threads.
#include "test_support.hpp"

#include <bitplane/error.hpp>
#include <bitplane/parallel.hpp>
#include <bitplane/similarity.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::block_values;
using bitplane::plane_count;
using bitplane::plane_matrix;

template <class T>
using bvec = bitplane::vector<T>;

template <class T>
bvec<T> from(const std::vector<T>& values) {
    return bvec<T>(std::span<const T>(values));
}

template <class T>
std::uint32_t bits(T x) {
    return std::bit_cast<std::uint32_t>(x);
}

bool bit(std::uint32_t x, std::size_t j) {
    return ((x >> j) & 1u) != 0;
}

// ---- references: bit by bit over values --------------------------------------------------------

// Entry (i, j) = positions where bit i of a differs from bit j of b, from counts taken bit by
// bit over the values: pop(A_i) + pop(B_j) - 2 * #(bit i of a and bit j of b both set).
template <class T>
plane_matrix ref_cross(std::span<const T> a, std::span<const T> b) {
    plane_matrix both{};
    std::uint64_t pa[plane_count] = {}, pb[plane_count] = {};
    for (std::size_t x = 0; x < a.size(); ++x) {
        const std::uint32_t u = bits(a[x]), v = bits(b[x]);
        for (std::size_t i = 0; i < plane_count; ++i) {
            pb[i] += bit(v, i) ? 1 : 0;
            if (!bit(u, i)) continue;
            ++pa[i];
            for (std::size_t j = 0; j < plane_count; ++j) both[i][j] += bit(v, j) ? 1 : 0;
        }
    }
    plane_matrix m{};
    for (std::size_t i = 0; i < plane_count; ++i) {
        for (std::size_t j = 0; j < plane_count; ++j) m[i][j] = pa[i] + pb[j] - 2 * both[i][j];
    }
    return m;
}

template <class T>
plane_matrix ref_planes(std::span<const T> v) {
    plane_matrix m = ref_cross(v, v);
    for (std::size_t i = 0; i < plane_count; ++i) {
        m[i][i] = 0;
        for (const T x : v) m[i][i] += bit(bits(x), i) ? 1 : 0;
    }
    return m;
}

template <class T>
double ref_jaccard(const std::vector<T>& a, const std::vector<T>& b) {
    std::uint64_t both = 0, either = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        both += static_cast<std::uint64_t>(std::popcount(bits(a[i]) & bits(b[i])));
        either += static_cast<std::uint64_t>(std::popcount(bits(a[i]) | bits(b[i])));
    }
    return either == 0 ? 1.0 : static_cast<double>(both) / static_cast<double>(either);
}

::testing::AssertionResult same_matrix(const plane_matrix& expected, const plane_matrix& actual) {
    for (std::size_t i = 0; i < plane_count; ++i) {
        for (std::size_t j = 0; j < plane_count; ++j) {
            if (expected[i][j] != actual[i][j])
                return ::testing::AssertionFailure() << "entry (" << i << ", " << j << "): expected " << expected[i][j]
                                                     << ", got " << actual[i][j];
        }
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult same_matrix(const plane_matrix& expected, const bitplane::hamming_matrix& actual) {
    plane_matrix wide{};
    for (std::size_t i = 0; i < plane_count; ++i) {
        for (std::size_t j = 0; j < plane_count; ++j) wide[i][j] = actual[i][j];
    }
    return same_matrix(expected, wide);
}

// Every function on (a, b) against the references.
template <class T>
void check_all(const bvec<T>& a, const bvec<T>& b, const std::vector<T>& ra, const std::vector<T>& rb) {
    EXPECT_TRUE(same_matrix(ref_planes<T>(ra), bitplane::plane_hamming_matrix(a))) << "plane_hamming_matrix";
    EXPECT_TRUE(same_matrix(ref_cross<T>(ra, rb), bitplane::cross_hamming_matrix(a, b))) << "cross_hamming_matrix";
    EXPECT_EQ(ref_jaccard(ra, rb), bitplane::jaccard(a, b));
    EXPECT_EQ(ref_jaccard(ra, ra), bitplane::jaccard(a, a));
    ASSERT_EQ(a.block_count(), (ra.size() + block_values - 1) / block_values);
    for (std::size_t block = 0; block < a.block_count(); ++block) {
        const std::size_t first = block * block_values;
        const std::size_t n = std::min(block_values, ra.size() - first);
        EXPECT_TRUE(same_matrix(ref_planes<T>(std::span<const T>(ra).subspan(first, n)),
                                bitplane::block_hamming_matrix(a, block)))
            << "block " << block;
    }
}

struct settings_guard {
    bitplane::simd_path path = bitplane::active_simd_path();
    ~settings_guard() {
        bitplane::set_simd_path(path);
        bitplane::set_thread_count(0);
    }
};

constexpr std::size_t parallel_size = 34 * block_values + 100;

shape partner(std::size_t i) {
    const std::vector<shape> shapes = all_shapes();
    return shapes[(i * 5 + 2) % shapes.size()];
}

template <class T>
class SimilarityTest : public ::testing::Test {};
using value_types = ::testing::Types<std::uint32_t, std::int32_t>;
TYPED_TEST_SUITE(SimilarityTest, value_types);

TYPED_TEST(SimilarityTest, EveryShapeAndSize) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const std::vector<shape> shapes = quick_mode() ? representative_shapes() : all_shapes();
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        const shape s = shapes[i];
        const shape t = partner(i);
        for (const std::size_t n : standard_sizes()) {
            // The references cost 32 x 32 per value: the largest size for a few shapes only.
            if (n > 4 * block_values && (quick_mode() || i % 8 != 0)) continue;
            SCOPED_TRACE(case_name(s, n, "with " + t.name()));
            const std::vector<T> ra = make_typed<T>(s, n, case_seed("sim-a", s.id(), n));
            const std::vector<T> rb = make_typed<T>(t, n, case_seed("sim-b", s.id(), n));
            check_all(from(ra), from(rb), ra, rb);
        }
    }
}

TYPED_TEST(SimilarityTest, PendingWriteBackBlockAndTail) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const std::size_t n = 3 * block_values + 700;
    for (const shape& s : representative_shapes()) {
        SCOPED_TRACE(s.name());
        std::vector<T> ra = make_typed<T>(s, n, case_seed("sim-hot-a", s.id()));
        std::vector<T> rb = make_typed<T>(of(shape_kind::mixed), n, case_seed("sim-hot-b", s.id()));
        bvec<T> a = from(ra), b = from(rb);
        for (const std::size_t i : {std::size_t{3}, block_values + 9, n - 1}) {  // the last write stays pending
            const T x = std::bit_cast<T>(0x80000001u + static_cast<std::uint32_t>(i));
            a.set(i, x);
            ra[i] = x;
        }
        b.set(2 * block_values + 1, T{0});
        rb[2 * block_values + 1] = T{0};
        check_all(a, b, ra, rb);
        a.seal();
        check_all(a, b, ra, rb);
    }
}

TYPED_TEST(SimilarityTest, EverySimdPathAndThreadCount) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    const std::size_t n = quick_mode() ? 4 * block_values + 1 : parallel_size;
    for (const shape& s : representative_shapes()) {
        SCOPED_TRACE(case_name(s, n));
        const std::vector<T> ra = make_typed<T>(s, n, case_seed("sim-paths-a", s.id()));
        const std::vector<T> rb = make_typed<T>(of(shape_kind::mixed), n, case_seed("sim-paths-b", s.id()));
        const bvec<T> a = from(ra), b = from(rb);
        const plane_matrix planes = ref_planes<T>(ra);
        const plane_matrix cross = ref_cross<T>(ra, rb);
        for (const bitplane::simd_path path : bitplane_test::paths_to_sweep()) {
            bitplane::set_simd_path(path);
            for (const std::size_t threads : {std::size_t{1}, std::size_t{2}}) {
                SCOPED_TRACE(std::string(bitplane::to_string(path)) + ", " + std::to_string(threads) + " threads");
                bitplane::set_thread_count(threads);
                EXPECT_TRUE(same_matrix(planes, bitplane::plane_hamming_matrix(a)));
                EXPECT_TRUE(same_matrix(cross, bitplane::cross_hamming_matrix(a, b)));
                EXPECT_EQ(ref_jaccard(ra, rb), bitplane::jaccard(a, b));
                EXPECT_TRUE(same_matrix(ref_planes<T>(std::span<const T>(ra).subspan(block_values, block_values)),
                                        bitplane::block_hamming_matrix(a, 1)));
            }
        }
    }
}

TYPED_TEST(SimilarityTest, JaccardEdgeCases) {
    using T = TypeParam;
    const bvec<T> zeros(3000, T{0}), e;
    EXPECT_EQ(bitplane::jaccard(zeros, zeros), 1.0);
    EXPECT_EQ(bitplane::jaccard(e, e), 1.0);
    const bvec<T> ones(3000, std::bit_cast<T>(0xFFFFFFFFu));
    EXPECT_EQ(bitplane::jaccard(ones, ones), 1.0);
    EXPECT_EQ(bitplane::jaccard(zeros, ones), 0.0);
    const bvec<T> low(3000, T{0x0F}), mid(3000, T{0x3C});  // 2 shared bits of 6
    EXPECT_DOUBLE_EQ(bitplane::jaccard(low, mid), 2.0 / 6.0);
}

TYPED_TEST(SimilarityTest, Errors) {
    using T = TypeParam;
    const bvec<T> a(5, T{1}), b(7, T{2}), e;
    for (int f = 0; f < 2; ++f) {
        try {
            if (f == 0) {
                (void)bitplane::cross_hamming_matrix(a, b);
            } else {
                (void)bitplane::jaccard(b, a);
            }
            ADD_FAILURE() << "no size_error";
        } catch (const bitplane::size_error& error) {
            const std::string what = error.what();
            EXPECT_NE(what.find('5'), std::string::npos) << what;
            EXPECT_NE(what.find('7'), std::string::npos) << what;
        }
    }
    EXPECT_THROW((void)bitplane::block_hamming_matrix(a, 1), bitplane::index_error);
    EXPECT_THROW((void)bitplane::block_hamming_matrix(e, 0), bitplane::index_error);
    const bvec<T> two_blocks(block_values + 1, T{1});
    EXPECT_NO_THROW((void)bitplane::block_hamming_matrix(two_blocks, 1));
    EXPECT_THROW((void)bitplane::block_hamming_matrix(two_blocks, 2), bitplane::index_error);
    EXPECT_TRUE(same_matrix(plane_matrix{}, bitplane::plane_hamming_matrix(e)));
    EXPECT_TRUE(same_matrix(plane_matrix{}, bitplane::cross_hamming_matrix(e, e)));
}

}  // namespace
