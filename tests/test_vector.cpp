// bitplane::vector<uint32_t> and vector<int32_t> against std::vector as the reference: every
// shape and size, every way to build one, element access and its errors, ranges, iterators,
// writes (set, push_back, append, resize, clear) in a randomized model test, equality, swap,
// memory and statistics, and readers on several threads.
#include "test_support.hpp"

#include <bitplane/codec.hpp>
#include <bitplane/error.hpp>
#include <bitplane/parallel.hpp>
#include <bitplane/serialize.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/stats.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <iterator>
#include <limits>
#include <list>
#include <numeric>
#include <random>
#include <ranges>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::block_values;
using bitplane::index_error;

template <class T>
using bvec = bitplane::vector<T>;

// ---- helpers ----------------------------------------------------------------------------------

template <class T>
bvec<T> from(const std::vector<T>& ref) {
    return bvec<T>(std::span<const T>(ref));
}

/// Indices to probe: all of them, or (quick mode, large vectors) a sample with every block edge.
std::vector<std::size_t> probe_indices(std::size_t n, std::uint64_t seed) {
    std::vector<std::size_t> out;
    if (!quick_mode() || n <= 6000) {
        out.resize(n);
        std::iota(out.begin(), out.end(), std::size_t{0});
        return out;
    }
    std::mt19937_64 rng(seed);
    for (std::size_t b = 0; b * block_values < n; ++b) {
        for (std::size_t d : {std::size_t{0}, std::size_t{1}, block_values - 1}) {
            const std::size_t i = b * block_values + d;
            if (i < n) out.push_back(i);
        }
    }
    for (int k = 0; k < 3000; ++k) out.push_back(rng() % n);
    return out;
}

/// Everything a reader can see of `v` equals `ref`.
template <class T>
::testing::AssertionResult matches(const bvec<T>& v, const std::vector<T>& ref, std::uint64_t seed = 1) {
    if (v.size() != ref.size())
        return ::testing::AssertionFailure() << "size " << v.size() << ", expected " << ref.size();
    if (v.empty() != ref.empty()) return ::testing::AssertionFailure() << "empty() wrong";
    const auto decoded = v.to_std_vector();
    if (auto r = same_values(ref, decoded); !r) return r << " (to_std_vector)";
    std::size_t i = 0;
    for (const T x : v) {
        if (i >= ref.size() || x != ref[i])
            return ::testing::AssertionFailure() << "iteration differs at " << i;
        ++i;
    }
    if (i != ref.size()) return ::testing::AssertionFailure() << "iteration yields " << i << " values";
    for (const std::size_t k : probe_indices(ref.size(), seed))
        if (v[k] != ref[k])
            return ::testing::AssertionFailure() << "operator[](" << k << ") = " << v[k] << ", expected " << ref[k];
    if (!ref.empty()) {
        if (v.front() != ref.front()) return ::testing::AssertionFailure() << "front() wrong";
        if (v.back() != ref.back()) return ::testing::AssertionFailure() << "back() wrong";
        if (v.at(ref.size() - 1) != ref.back()) return ::testing::AssertionFailure() << "at(last) wrong";
    }
    const std::size_t blocks = (ref.size() + block_values - 1) / block_values;
    if (v.block_count() != blocks)
        return ::testing::AssertionFailure() << "block_count " << v.block_count() << ", expected " << blocks;
    return ::testing::AssertionSuccess();
}

/// Random ranges [first, first + len) decode to the reference's.
template <class T>
::testing::AssertionResult ranges_match(const bvec<T>& v, const std::vector<T>& ref, std::mt19937_64& rng, int count) {
    std::vector<T> out;
    for (int k = 0; k < count; ++k) {
        const std::size_t n = ref.size();
        std::size_t first = 0, len = 0;
        switch (k % 4) {
            case 0: first = n ? rng() % (n + 1) : 0; len = rng() % (n - first + 1); break;
            case 1: first = n ? rng() % (n + 1) : 0; len = std::min<std::size_t>(n - first, rng() % 5); break;
            case 2: first = (n / block_values) * block_values; len = n - first; break;  // the tail
            default: {  // across a block edge
                const std::size_t edge = n >= block_values ? block_values * (1 + rng() % (n / block_values)) : 0;
                first = edge >= 3 ? edge - 3 : 0;
                len = std::min<std::size_t>(n - std::min(n, first), 7);
                first = std::min(first, n);
            }
        }
        out.assign(len, T{0x5A});
        v.decode(first, out);
        if (!std::equal(out.begin(), out.end(), ref.begin() + static_cast<std::ptrdiff_t>(first)))
            return ::testing::AssertionFailure() << "decode(" << first << ", " << len << ") differs";
    }
    return ::testing::AssertionSuccess();
}

template <class T>
T random_value(std::mt19937_64& rng) {
    std::uint32_t bits = 0;
    switch (rng() % 6) {
        case 0: bits = static_cast<std::uint32_t>(rng() % 16); break;
        case 1: bits = static_cast<std::uint32_t>(rng() % 1024); break;
        case 2: bits = static_cast<std::uint32_t>(rng()); break;
        case 3: bits = 0xFFFFFFFFu; break;
        case 4: bits = 0x80000000u + static_cast<std::uint32_t>(rng() % 4); break;
        default: bits = 0; break;
    }
    return std::bit_cast<T>(bits);
}

template <class T>
class VectorTest : public ::testing::Test {};
using value_types = ::testing::Types<std::uint32_t, std::int32_t>;
TYPED_TEST_SUITE(VectorTest, value_types);

// ---- iterator concepts ------------------------------------------------------------------------

static_assert(std::random_access_iterator<bvec<std::uint32_t>::const_iterator>);
static_assert(std::random_access_iterator<bvec<std::int32_t>::const_iterator>);
static_assert(std::ranges::random_access_range<const bvec<std::uint32_t>>);
static_assert(std::ranges::sized_range<const bvec<std::int32_t>>);
static_assert(std::is_same_v<std::iter_value_t<bvec<std::int32_t>::const_iterator>, std::int32_t>);

// ---- every shape and size ---------------------------------------------------------------------

// Built from a span, by push_back and by append in random chunks: all equal the reference.
TYPED_TEST(VectorTest, EveryShapeAndSizeMatchesReference) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    for (const shape& s : all_shapes()) {
        for (const std::size_t n : standard_sizes()) {
            SCOPED_TRACE(case_name(s, n));
            const std::uint64_t seed = case_seed("vector", s.id(), n, std::is_signed_v<T>);
            const std::vector<T> ref = make_typed<T>(s, n, seed);
            const bvec<T> a = from(ref);
            ASSERT_TRUE(matches(a, ref, seed));

            bvec<T> b;
            for (const T x : ref) b.push_back(x);
            ASSERT_TRUE(same_values(ref, b.to_std_vector())) << "push_back";
            EXPECT_TRUE(a == b);

            std::mt19937_64 rng(seed);
            if (!quick_mode() || n < large_size) {
                bvec<T> c;
                for (std::size_t at = 0; at < n;) {
                    const std::size_t len = std::min<std::size_t>(n - at, rng() % 3000);
                    c.append(std::span<const T>(ref.data() + at, len));
                    at += len;
                }
                ASSERT_TRUE(same_values(ref, c.to_std_vector())) << "append";
            }

            ASSERT_TRUE(ranges_match(a, ref, rng, 12));
            EXPECT_EQ(a.stats().sealed_blocks, n / block_values);

            // Sealed, the last block ends the arena exactly: reads of its last values must stay
            // inside it (ASan sees any over-read past the shrunk arena).
            b.seal();
            if (n >= block_values) {
                const std::size_t last_block = n / block_values - 1;
                for (std::size_t i = last_block * block_values; i < (last_block + 1) * block_values; ++i)
                    ASSERT_EQ(b[i], ref[i]) << "sealed, index " << i;
            }
        }
    }
}

// ---- block descriptors and random reads on every layout ---------------------------------------

// The block table keeps each block's descriptor (and, for delta blocks, residual sums) from
// seal, append, write-back and load on; validate() re-derives both with a checked parse and
// throws if they disagree. Random reads and iteration follow them on every SIMD path.
TYPED_TEST(VectorTest, CachedDescriptorsAndRandomReadsOnEveryLayoutAndPath) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const bitplane::simd_path saved = bitplane::active_simd_path();
    std::vector<shape> shapes = representative_shapes();
    for (shape_kind kind : {shape_kind::sorted_steps, shape_kind::spaced, shape_kind::masked, shape_kind::mixed,
                            shape_kind::alternating_zero_one, shape_kind::near_int_min})
        shapes.push_back(of(kind));
    std::size_t delta_blocks = 0, sparse_blocks = 0;
    for (const shape& s : shapes) {
        for (const std::size_t n : {std::size_t{3} * block_values + 17, std::size_t{4} * block_values}) {
            SCOPED_TRACE(case_name(s, n));
            const std::uint64_t seed = case_seed("descriptors", s.id(), n, std::is_signed_v<T>);
            std::vector<T> ref = make_typed<T>(s, n, seed);
            bvec<T> v = from(ref);
            ASSERT_NO_THROW(v.validate());
            const bitplane::vector_stats st = v.stats();
            delta_blocks += st.blocks_by_transform[static_cast<std::size_t>(bitplane::codec::transform::delta)];
            sparse_blocks += st.blocks_by_layout[static_cast<std::size_t>(bitplane::codec::layout::sparse)];
            std::vector<std::byte> file;
            bitplane::save(v, file);
            const bvec<T> loaded = bitplane::load<T>(std::span<const std::byte>(file));
            ASSERT_NO_THROW(loaded.validate());
            for (const auto path : bitplane_test::paths_to_sweep()) {
                SCOPED_TRACE(std::string(bitplane::to_string(path)));
                bitplane::set_simd_path(path);
                for (std::size_t i = 0; i < n; ++i) {
                    ASSERT_EQ(v[i], ref[i]) << "index " << i;
                    ASSERT_EQ(loaded[i], ref[i]) << "loaded, index " << i;
                }
                std::size_t i = 0;
                for (const T x : v) ASSERT_EQ(x, ref[i++]) << "iteration, index " << i - 1;
            }
            bitplane::set_simd_path(saved);
            // A write re-encodes a block (possibly into another layout): its entry follows.
            std::mt19937_64 rng(seed);
            for (int k = 0; k < 3; ++k) {
                const std::size_t at = rng() % n;
                const T x = ref[(at + 1) % n];
                v.set(at, x);
                ref[at] = x;
                ASSERT_EQ(v[at], x);
            }
            v.seal();
            ASSERT_NO_THROW(v.validate());
            for (std::size_t j = 0; j < n; j += 7) ASSERT_EQ(v[j], ref[j]) << "after writes, index " << j;
            v.resize(block_values + 5);
            ref.resize(block_values + 5);
            ASSERT_NO_THROW(v.validate());
            ASSERT_TRUE(matches(v, ref, seed));
        }
    }
    bitplane::set_simd_path(saved);
    EXPECT_GT(delta_blocks, 0u) << "no shape reached a delta block";
    EXPECT_GT(sparse_blocks, 0u) << "no shape reached a sparse block";
}

// Gap-list planes (the usual payload of sparse planes and masks) of every length the planner
// keeps, with escapes (gaps of 255+ bits) at every offset, so that the in-memory skip entries
// (block_reader.cpp, one per bucket of positions) start seeks everywhere: random reads of dense, sparse
// and delta blocks against the values, on every SIMD path, after writes that grow and shrink
// the lists, after seal and after load.
TYPED_TEST(VectorTest, RandomReadsOfGapListsWithSkipEntries) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const bitplane::simd_path saved = bitplane::active_simd_path();
    const std::uint64_t seed = case_seed("gap-skips", std::is_signed_v<T>);
    std::mt19937_64 rng(seed);
    // Positions of a sparse plane: runs of short gaps, now and then a long one (an escape).
    auto sparse_plane = [&](std::uint32_t length, std::uint32_t density_per_mille, std::uint32_t escape_per_mille) {
        std::vector<bool> bits(length, false);
        for (std::uint32_t i = 0; i < length; ++i) {
            if (rng() % 1000 < escape_per_mille) i += 255 + static_cast<std::uint32_t>(rng() % 300);
            if (i < length && rng() % 1000 < density_per_mille) bits[i] = true;
        }
        return bits;
    };
    const std::size_t blocks = 24;
    const std::size_t n = blocks * block_values + 777;
    std::vector<T> ref(n);
    for (std::size_t b = 0; b * block_values < n; ++b) {
        const auto len = static_cast<std::uint32_t>(std::min(block_values, n - b * block_values));
        const std::size_t first = b * block_values;
        const std::uint32_t density = 10 + static_cast<std::uint32_t>(rng() % 110);  // 1% .. 12%
        const std::uint32_t escapes = static_cast<std::uint32_t>(rng() % 4);
        switch (b % 3) {
            case 0:  // dense: a few gap planes of different lengths
                for (unsigned plane = 0; plane < 6; ++plane) {
                    const auto bits = sparse_plane(len, density / (plane + 1) + 5, escapes);
                    for (std::uint32_t i = 0; i < len; ++i)
                        if (bits[i]) ref[first + i] = static_cast<T>(static_cast<std::uint32_t>(ref[first + i]) | 1u << (3 * plane));
                }
                break;
            case 1: {  // sparse: the mask is a gap list; values below it
                const auto mask = sparse_plane(len, density, escapes);
                for (std::uint32_t i = 0; i < len; ++i)
                    if (mask[i]) ref[first + i] = static_cast<T>(1 + rng() % 100000);
                break;
            }
            default: {  // sorted: delta with sparse increments (every other block: all with bit 5
                        // set, an all-ones plane over a sparse block's stored residuals)
                std::uint32_t at = first == 0 ? 0u : static_cast<std::uint32_t>(ref[first - 1]);
                const auto steps = sparse_plane(len, density, escapes);
                const bool bit5 = b % 2 == 1;
                for (std::uint32_t i = 0; i < len; ++i) {
                    if (steps[i]) at += bit5 ? 32 + static_cast<std::uint32_t>(rng() % 32) : 1 + static_cast<std::uint32_t>(rng() % 40);
                    ref[first + i] = static_cast<T>(at);
                }
                break;
            }
        }
    }
    bvec<T> v = from(ref);
    const bitplane::vector_stats st = v.stats();
    std::uint64_t gap_planes = 0;
    for (const auto& by_payload : st.planes) gap_planes += by_payload[static_cast<std::size_t>(bitplane::codec::payload_kind::gaps)];
    ASSERT_GT(gap_planes, blocks) << "the data should give gap-list planes";
    ASSERT_GT(st.blocks_by_transform[static_cast<std::size_t>(bitplane::codec::transform::delta)], 0u);
    ASSERT_GT(st.blocks_by_layout[static_cast<std::size_t>(bitplane::codec::layout::sparse)], 0u);
    auto check_all = [&](const bvec<T>& w, const char* what) {
        for (const auto path : bitplane_test::paths_to_sweep()) {
            SCOPED_TRACE(std::string(what) + " " + std::string(bitplane::to_string(path)));
            bitplane::set_simd_path(path);
            for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(w[i], ref[i]) << "index " << i;
        }
        bitplane::set_simd_path(saved);
    };
    check_all(v, "built");
    ASSERT_NO_THROW(v.validate());
    // Writes: a block's lists grow (more set bits) or shrink (cleared); reads of the hot block
    // and, after the next write elsewhere, of the re-encoded block.
    for (int k = 0; k < 40; ++k) {
        const std::size_t b = rng() % blocks;
        const std::size_t at = b * block_values + rng() % block_values;
        const T x = k % 2 ? T{} : static_cast<T>(static_cast<std::uint32_t>(ref[at]) | 1u << (rng() % 16));
        for (std::size_t j = at; j < std::min(n, at + 5); ++j) {
            // keep sorted blocks sorted: write the same value into a short range
            if (b % 3 == 2) break;
            v.set(j, x);
            ref[j] = x;
        }
        const std::size_t probe = rng() % n;
        ASSERT_EQ(v[probe], ref[probe]) << "after write " << k << ", index " << probe;
    }
    check_all(v, "written");
    v.seal();
    ASSERT_NO_THROW(v.validate());
    check_all(v, "sealed");
    std::vector<std::byte> file;
    bitplane::save(v, file);
    const bvec<T> loaded = bitplane::load<T>(std::span<const std::byte>(file));
    ASSERT_NO_THROW(loaded.validate());
    check_all(loaded, "loaded");
}

// ---- construction -----------------------------------------------------------------------------

TYPED_TEST(VectorTest, Construction) {
    using T = TypeParam;
    const bvec<T> empty;
    EXPECT_EQ(empty.size(), 0u);
    EXPECT_TRUE(empty.empty());
    EXPECT_EQ(empty.begin(), empty.end());
    EXPECT_EQ(empty.block_count(), 0u);
    EXPECT_TRUE(empty.to_std_vector().empty());

    for (const std::size_t n : standard_sizes()) {
        SCOPED_TRACE("n=" + std::to_string(n));
        const T value = std::is_signed_v<T> ? static_cast<T>(-7) : static_cast<T>(7);
        EXPECT_TRUE(matches(bvec<T>(n, value), std::vector<T>(n, value)));
        EXPECT_TRUE(matches(bvec<T>(n), std::vector<T>(n)));
    }

    const bvec<T> two{5, 7};  // an initializer list, not five sevens
    EXPECT_TRUE(matches(two, std::vector<T>{5, 7}));
    const bvec<T> five(5, 7);
    EXPECT_TRUE(matches(five, std::vector<T>(5, 7)));
    const bvec<T> list{1, 2, 3, static_cast<T>(-1), std::numeric_limits<T>::max(), std::numeric_limits<T>::min()};
    EXPECT_TRUE(matches(list, std::vector<T>{1, 2, 3, static_cast<T>(-1), std::numeric_limits<T>::max(),
                                             std::numeric_limits<T>::min()}));

    const std::vector<T> ref = make_typed<T>(of(shape_kind::mixed), 3 * 2048 + 5, case_seed("ctor"));
    const std::list<T> linked(ref.begin(), ref.end());
    EXPECT_TRUE(matches(bvec<T>(linked.begin(), linked.end()), ref)) << "bidirectional iterators";
    EXPECT_TRUE(matches(bvec<T>(ref.begin(), ref.end()), ref)) << "random-access iterators";
    const std::deque<T> dq(ref.begin(), ref.end());
    EXPECT_TRUE(matches(bvec<T>(dq.begin(), dq.end()), ref)) << "deque iterators";
    std::stringstream text;
    for (const T x : ref) text << x << ' ';
    EXPECT_TRUE(matches(bvec<T>(std::istream_iterator<T>(text), std::istream_iterator<T>()), ref))
        << "input iterators";
    EXPECT_TRUE(matches(bvec<T>(std::span<const T>(ref)), ref)) << "span";
    EXPECT_TRUE(matches(bvec<T>(std::span<const T>(ref).subspan(100, 2500)),
                        std::vector<T>(ref.begin() + 100, ref.begin() + 2600)))
        << "subspan";

    // Copies are independent.
    bvec<T> original = from(ref);
    bvec<T> copy = original;
    original.set(10, 99);
    original.push_back(5);
    EXPECT_TRUE(matches(copy, ref));
    bvec<T> assigned;
    assigned = copy;
    copy.resize(3);
    EXPECT_TRUE(matches(assigned, ref));
    bvec<T> moved = std::move(assigned);
    EXPECT_TRUE(matches(moved, ref));
}

// A moved-from vector is valid but unspecified: whatever size it reports, it must hold that
// many values and accept new ones. (Bug: vector_core's implicit move operations move the
// arena, block table and tail away but leave size_ (and hot_block_) behind, so the moved-from
// vector reports the old size with no storage; push_back + back() then reads past the empty
// block table: boost assertion in debug builds, segfault in Release.)
TYPED_TEST(VectorTest, MovedFromVectorStaysUsable) {
    using T = TypeParam;
    const std::vector<T> ref = make_typed<T>(of(shape_kind::mixed), 3 * 2048 + 5, case_seed("moved"));
    auto check_moved_from = [](bvec<T>& moved, const char* how) {
        SCOPED_TRACE(how);
        // Checked before any read, so that the broken state fails here instead of crashing.
        ASSERT_EQ(moved.block_count(), (moved.size() + block_values - 1) / block_values)
            << "moved-from vector reports " << moved.size() << " values but holds "
            << moved.block_count() << " blocks";
        std::vector<T> now = moved.to_std_vector();
        ASSERT_EQ(now.size(), moved.size());
        moved.push_back(42);
        now.push_back(42);
        ASSERT_EQ(moved.back(), T{42});
        ASSERT_TRUE(same_values(now, moved.to_std_vector()));
        moved.clear();
        moved.push_back(7);
        ASSERT_TRUE(same_values(std::vector<T>{7}, moved.to_std_vector()));
    };
    {
        bvec<T> a = from(ref);
        bvec<T> b = std::move(a);
        EXPECT_TRUE(matches(b, ref));
        check_moved_from(a, "move construction");
    }
    {
        bvec<T> a = from(ref);
        a.set(5, 1);  // with a pending write-back block
        std::vector<T> r = ref;
        r[5] = 1;
        bvec<T> b{1, 2, 3};
        b = std::move(a);
        EXPECT_TRUE(matches(b, r));
        check_moved_from(a, "move assignment");
    }
}

// ---- element access ---------------------------------------------------------------------------

TYPED_TEST(VectorTest, CheckedAccessThrowsIndexError) {
    using T = TypeParam;
    const bvec<T> empty;
    EXPECT_THROW((void)empty.at(0), index_error);
    EXPECT_THROW((void)empty.front(), index_error);
    EXPECT_THROW((void)empty.back(), index_error);
    for (const std::size_t n : {std::size_t{1}, std::size_t{2048}, std::size_t{2049}, std::size_t{3 * 2048 + 5}}) {
        SCOPED_TRACE("n=" + std::to_string(n));
        const std::vector<T> ref = make_typed<T>(of(shape_kind::full_range), n, case_seed("at", n));
        bvec<T> v = from(ref);
        EXPECT_EQ(v.at(0), ref[0]);
        EXPECT_EQ(v.at(n - 1), ref[n - 1]);
        EXPECT_THROW((void)v.at(n), index_error);
        EXPECT_THROW((void)v.at(n + 2048), index_error);
        EXPECT_THROW((void)v.at(std::numeric_limits<std::size_t>::max()), index_error);
        EXPECT_THROW(v.set(n, 1), index_error);
        EXPECT_THROW(v.set(std::numeric_limits<std::size_t>::max(), 1), index_error);
        EXPECT_THROW((void)v.at(n), bitplane::error);  // index_error is a bitplane::error
        EXPECT_TRUE(matches(v, ref)) << "a failed set changed the vector";
    }
}

TYPED_TEST(VectorTest, DecodeRangesAndTheirErrors) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    for (const shape& s : representative_shapes()) {
        for (const std::size_t n : standard_sizes()) {
            SCOPED_TRACE(case_name(s, n));
            const std::vector<T> ref = make_typed<T>(s, n, case_seed("ranges", s.id(), n));
            bvec<T> v = from(ref);
            std::mt19937_64 rng(case_seed("ranges-rng", s.id(), n));
            ASSERT_TRUE(ranges_match(v, ref, rng, 40));
            // With a pending write-back block, too.
            if (n > 2048) {
                std::vector<T> changed = ref;
                for (int k = 0; k < 5; ++k) {
                    const std::size_t i = rng() % 2048 + 2048 * (rng() % (n / 2048));
                    const T x = random_value<T>(rng);
                    v.set(i, x);
                    changed[i] = x;
                }
                ASSERT_TRUE(ranges_match(v, changed, rng, 40));
            }
            std::vector<T> out(1);
            EXPECT_THROW(v.decode(n, out), index_error);
            EXPECT_THROW(v.decode(n + 1, std::span<T>()), index_error);
            EXPECT_THROW(v.decode(std::numeric_limits<std::size_t>::max(), out), index_error);
            std::vector<T> all(n + 1);
            EXPECT_THROW(v.decode(0, all), index_error);
            if (n >= 3) {
                std::vector<T> four(4);
                EXPECT_THROW(v.decode(n - 3, four), index_error);
            }
            EXPECT_NO_THROW(v.decode(n, std::span<T>()));  // empty range at the end
        }
    }
}

// ---- iterators --------------------------------------------------------------------------------

TYPED_TEST(VectorTest, Iterators) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2049}, std::size_t{3 * 2048 + 5}, large_size}) {
        SCOPED_TRACE("n=" + std::to_string(n));
        const std::vector<T> ref = make_typed<T>(of(shape_kind::mixed), n, case_seed("iter", n));
        const bvec<T> v = from(ref);

        EXPECT_EQ(std::distance(v.begin(), v.end()), static_cast<std::ptrdiff_t>(n));
        EXPECT_EQ(std::ranges::distance(v.begin(), v.end()), static_cast<std::ptrdiff_t>(n));
        EXPECT_EQ(std::ranges::distance(v), static_cast<std::ptrdiff_t>(n));
        EXPECT_EQ(v.end() - v.begin(), static_cast<std::ptrdiff_t>(n));
        EXPECT_EQ(v.cbegin(), v.begin());
        EXPECT_EQ(v.cend(), v.end());
        const auto sum = std::accumulate(v.begin(), v.end(), std::int64_t{0},
                                         [](std::int64_t a, T x) { return a + static_cast<std::int64_t>(x); });
        const auto ref_sum = std::accumulate(ref.begin(), ref.end(), std::int64_t{0},
                                             [](std::int64_t a, T x) { return a + static_cast<std::int64_t>(x); });
        EXPECT_EQ(sum, ref_sum);
        EXPECT_TRUE(std::equal(v.begin(), v.end(), ref.begin(), ref.end()));
        EXPECT_TRUE(std::ranges::equal(v, ref));
        // reverse_iterator dereferences a fresh copy each time, so every element costs a block
        // decode: keep it to the smaller sizes.
        if (n <= 3 * 2048 + 5) {
            EXPECT_TRUE(std::equal(std::make_reverse_iterator(v.end()), std::make_reverse_iterator(v.begin()),
                                   ref.rbegin(), ref.rend()))
                << "backwards";
        }
        if (n == 0) continue;

        std::mt19937_64 rng(case_seed("iter-rng", n));
        for (int k = 0; k < 300; ++k) {
            const auto i = static_cast<std::ptrdiff_t>(rng() % n);
            const auto j = static_cast<std::ptrdiff_t>(rng() % n);
            auto it = v.begin() + i;
            ASSERT_EQ(*it, ref[i]);
            ASSERT_EQ(it.index(), static_cast<std::size_t>(i));
            ASSERT_EQ(v.begin()[i], ref[i]);
            ASSERT_EQ(it[j - i], ref[j]);
            auto jt = it;
            jt += j - i;
            ASSERT_EQ(*jt, ref[j]);
            ASSERT_EQ(jt - it, j - i);
            ASSERT_EQ(i < j, it < jt);
            ASSERT_EQ(i <= j, it <= jt);
            ASSERT_EQ(i > j, it > jt);
            ASSERT_EQ(i == j, it == jt);
            ASSERT_EQ(*(jt - (j - i)), ref[i]);
            ASSERT_EQ(*((j - i) + it), ref[j]);
            // (C++20 iterator operations: the legacy category is only input_iterator_tag, as
            // for every iterator that yields values, so std::prev does not apply.)
            ASSERT_EQ(*std::ranges::next(v.begin(), i), ref[i]);
            ASSERT_EQ(*std::ranges::prev(v.end(), static_cast<std::ptrdiff_t>(n) - i), ref[i]);
            ASSERT_EQ(*std::ranges::next(v.begin(), i, v.end()), ref[i]);
        }
        // Increment and decrement, pre and post, across block edges.
        auto it = v.begin();
        for (std::size_t i = 0; i < std::min<std::size_t>(n, 4200); ++i) ASSERT_EQ(*it++, ref[i]) << i;
        for (std::size_t i = std::min<std::size_t>(n, 4200); i-- > 0;) ASSERT_EQ(*--it, ref[i]) << i;
        it = v.end();
        --it;
        ASSERT_EQ(*it--, ref[n - 1]);
        if (n > 1) {
            ASSERT_EQ(*it, ref[n - 2]);
        }
        auto pre = v.begin();
        if (n > 1) {
            ASSERT_EQ(*++pre, ref[1]);  // (with n == 1 this would read end(): undefined)
        }
    }
}

TYPED_TEST(VectorTest, IteratorsOnSortedDataWorkWithBinarySearch) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const std::vector<T> ref = make_typed<T>(of(shape_kind::sorted_steps), large_size, case_seed("sorted"));
    const bvec<T> v = from(ref);
    std::mt19937_64 rng(case_seed("sorted-rng"));
    for (int k = 0; k < 500; ++k) {
        const T key = ref[rng() % ref.size()] + static_cast<T>(rng() % 3);
        const auto a = std::ranges::lower_bound(v.begin(), v.end(), key) - v.begin();
        const auto b = std::lower_bound(ref.begin(), ref.end(), key) - ref.begin();
        ASSERT_EQ(a, b) << "key " << key;
        const auto c = std::ranges::upper_bound(v, key) - v.begin();
        ASSERT_EQ(c, std::upper_bound(ref.begin(), ref.end(), key) - ref.begin());
    }
}

// Iterators share a decoded block with their copies until one moves to another block; the
// others must keep reading their own values.
TYPED_TEST(VectorTest, IteratorCopiesStayValidWhenOneMovesOn) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const std::vector<T> ref = make_typed<T>(of(shape_kind::full_range), 4 * 2048 + 17, case_seed("copies"));
    bvec<T> v = from(ref);
    v.set(2048 + 3, 12345);  // block 1 is the pending write-back block
    std::vector<T> r = ref;
    r[2048 + 3] = 12345;

    auto a = v.begin() + 5;
    ASSERT_EQ(*a, r[5]);
    auto b = a;  // shares a's decoded block 0
    b += 2 * 2048;
    ASSERT_EQ(*b, r[5 + 2 * 2048]);
    ASSERT_EQ(*a, r[5]) << "a's block changed under it when its copy moved on";
    ASSERT_EQ(a[1], r[6]);
    auto c = b;  // shares b's block 2
    a += 2048;  // a moves to block 1 (the write-back block)
    ASSERT_EQ(*a, r[5 + 2048]);
    ASSERT_EQ(*(a - 2), r[2048 + 3]);
    ASSERT_EQ(*(a - 2), 12345);
    ASSERT_EQ(*b, r[5 + 2 * 2048]);
    ASSERT_EQ(*c, r[5 + 2 * 2048]);
    ++c;
    ASSERT_EQ(*c, r[6 + 2 * 2048]);
    c += 3 * 2048 - 6 - 2 * 2048 + 12;  // into the tail
    ASSERT_EQ(*c, r[3 * 2048 + 12]);
    ASSERT_EQ(*b, r[5 + 2 * 2048]);

    // Many live copies walking in lock step and apart.
    std::vector<typename bvec<T>::const_iterator> its;
    std::vector<std::size_t> at;
    std::mt19937_64 rng(case_seed("copies-rng"));
    auto base = v.begin();
    for (int k = 0; k < 16; ++k) {
        its.push_back(base);
        at.push_back(0);
    }
    for (int step = 0; step < 4000; ++step) {
        const std::size_t k = rng() % its.size();
        const std::size_t move = rng() % 700;
        if (at[k] + move < r.size()) {
            its[k] += static_cast<std::ptrdiff_t>(move);
            at[k] += move;
        } else {
            its[k] = v.begin() + static_cast<std::ptrdiff_t>(rng() % r.size());
            at[k] = its[k].index();
        }
        if (rng() % 5 == 0) {  // copy another iterator over this one
            const std::size_t from_k = rng() % its.size();
            its[k] = its[from_k];
            at[k] = at[from_k];
        }
        for (std::size_t j = 0; j < its.size(); ++j) ASSERT_EQ(*its[j], r[at[j]]) << "iterator " << j << " at " << at[j];
    }
}

// The iterator reads its buffered block with one compare (index below the window's end): every
// move down must drop the window once it leaves it. Each way of moving down (--, post --, -=,
// += a negative step, it - n, it + -n, it[-n]), by steps that stay in the block, land on its
// first value, cross into the previous block, or skip blocks, always after a read that filled
// the window.
TYPED_TEST(VectorTest, IteratorMovesDownOutOfItsWindow) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const std::size_t n = 5 * 2048 + 77;
    const std::vector<T> ref = make_typed<T>(of(shape_kind::mixed), n, case_seed("iter-down", n));
    const bvec<T> v = from(ref);
    for (const std::size_t from_index : {std::size_t{0}, std::size_t{2048}, std::size_t{2049}, std::size_t{4095},
                                         std::size_t{3 * 2048 + 1000}, n - 1}) {
        for (const std::size_t down : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{1000}, std::size_t{2048},
                                       std::size_t{2049}, std::size_t{4100}}) {
            if (down > from_index) continue;
            SCOPED_TRACE("from " + std::to_string(from_index) + " down " + std::to_string(down));
            const std::size_t to = from_index - down;
            const auto d = static_cast<std::ptrdiff_t>(down);
            const auto start = [&] {
                auto it = v.begin() + static_cast<std::ptrdiff_t>(from_index);
                EXPECT_EQ(*it, ref[from_index]);  // fills the window
                return it;
            };
            auto a = start();
            for (std::size_t k = 0; k < down; ++k) --a;
            ASSERT_EQ(*a, ref[to]) << "--";
            auto b = start();
            for (std::size_t k = 0; k < down; ++k) b--;
            ASSERT_EQ(*b, ref[to]) << "post --";
            auto c = start();
            c -= d;
            ASSERT_EQ(*c, ref[to]) << "-=";
            auto e = start();
            e += -d;
            ASSERT_EQ(*e, ref[to]) << "+= negative";
            const auto f = start();
            ASSERT_EQ(*(f - d), ref[to]) << "it - n";
            ASSERT_EQ(*(f + -d), ref[to]) << "it + -n";
            ASSERT_EQ(*(-d + f), ref[to]) << "-n + it";
            ASSERT_EQ(f[-d], ref[to]) << "it[-n]";
            ASSERT_EQ(*f, ref[from_index]) << "the original after its copies moved";
            // Down, then back up into the block it had buffered.
            auto g = start();
            g -= d;
            g += d;
            ASSERT_EQ(*g, ref[from_index]) << "down and up again";
        }
    }
}

// Forward and reverse passes, post-increment through copies, and operator[] on shapes of every
// encoding and every standard size (block edges, a partial last block, empty), on every SIMD path: the iterator's
// block decode and get()'s per-layout reads against the std::vector they were built from.
TYPED_TEST(VectorTest, IterationAndReadsMatchOnEverySimdPath) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    struct restore_path {
        bitplane::simd_path saved = bitplane::active_simd_path();
        ~restore_path() { bitplane::set_simd_path(saved); }
    } restore;  // also when an ASSERT returns early
    // Under a sanitizer (quick_mode) each shape and size is checked on every other path in turn:
    // all of them on every path took 66-92 s a type in the CI's ASan stage; the release stages
    // still check every combination.
    std::size_t path_number = 0;
    for (const bitplane::simd_path path : bitplane_test::paths_to_sweep()) {
        bitplane::set_simd_path(path);
        SCOPED_TRACE(std::string("SIMD path ") + std::string(bitplane::to_string(path)));
        std::size_t combination = path_number++;
        // Shapes of every encoding (all of them and every path: 85 s on this project's VM).
        for (const shape& s : representative_shapes()) {
            for (const std::size_t n : standard_sizes()) {
                if (quick_mode() && combination++ % 2 != 0) continue;
                SCOPED_TRACE(case_name(s, n));
                const std::vector<T> ref = make_typed<T>(s, n, case_seed("iter-paths", n));
                const bvec<T> v = from(ref);
                std::size_t i = 0;
                for (const T x : v) {
                    ASSERT_LT(i, n);
                    ASSERT_EQ(x, ref[i]) << "forward at " << i;
                    ++i;
                }
                ASSERT_EQ(i, n);
                // *it++ reads through the copy it++ returns, which shares the buffer.
                auto it = v.begin();
                for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(*it++, ref[k]) << "post-increment at " << k;
                ASSERT_TRUE(it == v.end());
                // Backwards with the iterator itself (a reverse_iterator decodes per element).
                for (std::size_t k = n; k-- > 0;) ASSERT_EQ(*--it, ref[k]) << "backwards at " << k;
                if (n <= 2049) {
                    ASSERT_TRUE(std::equal(std::make_reverse_iterator(v.end()), std::make_reverse_iterator(v.begin()),
                                           ref.rbegin(), ref.rend()))
                        << "reverse_iterator";
                }
                // Every index up to two blocks; beyond, block edges and a random sample.
                std::mt19937_64 rng(case_seed("iter-paths-probe", n));
                for (std::size_t k = 0; k < n; ++k) {
                    const std::size_t slot = k % block_values;
                    if (n > 2 * block_values && slot > 1 && slot < block_values - 1 && rng() % 16 != 0) continue;
                    ASSERT_EQ(v[k], ref[k]) << "operator[](" << k << ")";
                }
            }
        }
    }
}

// Planar dense blocks of every live plane count 1..32 (the iterator's buffer takes the avx512
// path's zmm untranspose from 6 live planes, decode() the AVX2 one): on every path the iterator
// gives the values decode() gives and the reference. Plane w-1 holds runs, so no block is all
// raw planes (those are interleaved and transpose without planes); the rest are random.
TYPED_TEST(VectorTest, IterationMatchesDecodeOnPlanarBlocksOfEveryWidthEveryPath) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const std::size_t n = 3 * block_values + 777;  // the last block partial
    on_every_path([&] {
        for (std::uint32_t w = 1; w <= 32; ++w) {
            SCOPED_TRACE("live planes " + std::to_string(w));
            std::mt19937_64 rng(case_seed("iter-planar", w));
            const std::uint32_t low = w == 32 ? 0x7FFFFFFFu : (1u << (w - 1)) - 1u;
            std::vector<T> ref(n);
            for (std::size_t i = 0; i < n; ++i) {
                const std::uint32_t top = ((i / 300) % 2) != 0 ? 1u << (w - 1) : 0u;
                ref[i] = static_cast<T>(top | (static_cast<std::uint32_t>(rng()) & low));
            }
            const bvec<T> v = from(ref);
            std::vector<T> decoded(n);
            v.decode(0, std::span<T>(decoded));
            ASSERT_EQ(decoded, ref);
            std::size_t i = 0;
            for (const T x : v) {
                ASSERT_LT(i, n);
                ASSERT_EQ(x, decoded[i]) << "at " << i;
                ++i;
            }
            ASSERT_EQ(i, n);
        }
    });
}

// A default-constructed and an empty vector's iterators, copies and moves of iterators that hold
// a buffer, and assignment over one that holds another block.
TYPED_TEST(VectorTest, IteratorLifetimes) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const bvec<T> empty;
    EXPECT_TRUE(empty.begin() == empty.end());
    std::size_t visited = 0;
    for ([[maybe_unused]] const T x : empty) ++visited;
    EXPECT_EQ(visited, 0u);
    typename bvec<T>::const_iterator unset;
    typename bvec<T>::const_iterator unset_copy = unset;
    EXPECT_TRUE(unset == unset_copy);

    const std::vector<T> ref = make_typed<T>(uniform(13), 3 * 2048 + 100, case_seed("lifetimes"));
    const bvec<T> v = from(ref);
    auto a = v.begin() + 10;
    ASSERT_EQ(*a, ref[10]);
    auto moved = std::move(a);  // takes a's buffer
    ASSERT_EQ(*moved, ref[10]);
    a = v.begin() + 2048 * 3 + 99;  // a moved-from iterator can be assigned and used
    ASSERT_EQ(*a, ref[2048 * 3 + 99]) << "the partial last block";
    auto b = moved;  // shares block 0
    b = a;           // drops block 0, shares the last block
    ASSERT_EQ(*b, ref[2048 * 3 + 99]);
    ASSERT_EQ(*moved, ref[10]);
    const auto& same = b;  // (through a reference: clang warns on a literal `b = b`)
    b = same;              // self-assignment keeps the buffer
    ASSERT_EQ(*b, ref[2048 * 3 + 99]);
    moved = std::move(b);
    ASSERT_EQ(*moved, ref[2048 * 3 + 99]);
    ++moved;
    ASSERT_TRUE(moved == v.end());
    moved -= 2048 * 2 + 50;
    ASSERT_EQ(*moved, ref[2048 * 3 + 100 - 2048 * 2 - 50]);
    // Copies handed to other threads, each walking on from the shared block.
    auto start = v.begin() + 2047;
    ASSERT_EQ(*start, ref[2047]);
    std::atomic<int> errors{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&errors, &ref, copy = start, t]() mutable {
            for (std::size_t k = 2047; k < ref.size(); k += static_cast<std::size_t>(t) + 1, copy += t + 1)
                if (*copy != ref[k]) ++errors;
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(errors.load(), 0);
    EXPECT_EQ(*start, ref[2047]);
}

// ---- writes: a randomized model test ----------------------------------------------------------

template <class T>
void run_model(std::uint64_t seed, int operations) {
    SCOPED_TRACE("model seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    bvec<T> v;
    std::vector<T> ref;
    const auto shapes = all_shapes();
    auto random_size = [&](std::size_t around) {
        switch (rng() % 4) {
            case 0: return static_cast<std::size_t>(rng() % (around + 3000));
            case 1: {  // next to a block edge
                const std::size_t blocks = 1 + (around + 2048) / 2048;
                const std::size_t edge = 2048 * (rng() % (blocks + 1));
                return edge + (rng() % 5) - std::min<std::size_t>(edge, 2);
            }
            case 2: return around > 0 ? around - std::min<std::size_t>(around, rng() % 50) : 0;
            default: return around + rng() % 50;
        }
    };
    for (int op = 1; op <= operations; ++op) {
        const unsigned r = static_cast<unsigned>(rng() % 1000);
        if (r < 250) {
            const T x = random_value<T>(rng);
            v.push_back(x);
            ref.push_back(x);
        } else if (r < 330) {
            const std::size_t count = rng() % 300;
            for (std::size_t k = 0; k < count; ++k) {
                const T x = random_value<T>(rng);
                v.push_back(x);
                ref.push_back(x);
            }
        } else if (r < 560) {
            if (!ref.empty()) {
                const std::size_t i = rng() % ref.size();
                const T x = random_value<T>(rng);
                v.set(i, x);
                ref[i] = x;
            }
        } else if (r < 600) {  // a burst of sets in one block
            if (!ref.empty()) {
                const std::size_t first = rng() % ref.size();
                const std::size_t last = std::min(ref.size(), first + rng() % 400);
                const shape s = shapes[rng() % shapes.size()];
                const std::vector<T> xs = make_typed<T>(s, last - first, rng());
                for (std::size_t i = first; i < last; ++i) {
                    v.set(i, xs[i - first]);
                    ref[i] = xs[i - first];
                }
            }
        } else if (r < 720) {
            if (!ref.empty()) {
                for (int k = 0; k < 8; ++k) {
                    const std::size_t i = rng() % ref.size();
                    ASSERT_EQ(v[i], ref[i]) << "operator[](" << i << ") after " << op << " operations";
                    ASSERT_EQ(v.at(i), ref[i]);
                }
            }
        } else if (r < 760) {
            const shape s = shapes[rng() % shapes.size()];
            const std::vector<T> xs = make_typed<T>(s, rng() % 3000, rng());
            v.append(xs);
            ref.insert(ref.end(), xs.begin(), xs.end());
        } else if (r < 790) {
            v.seal();
        } else if (r < 850) {
            std::size_t n = random_size(ref.size());
            if (ref.size() > 40000) n = rng() % 20000;
            const T fill = random_value<T>(rng);
            if (rng() % 2) {
                v.resize(n, fill);
                ref.resize(n, fill);
            } else {
                v.resize(n);
                ref.resize(n);
            }
        } else if (r < 890) {
            ASSERT_TRUE(ranges_match(v, ref, rng, 4)) << "after " << op << " operations";
        } else if (r < 893) {
            v.clear();
            ref.clear();
        } else if (r < 905) {
            bvec<T> copy = v;
            ASSERT_TRUE(copy == v);
            copy.swap(v);
            ASSERT_TRUE(same_values(ref, v.to_std_vector())) << "after swap with a copy";
        } else if (r < 915) {
            if (ref.empty()) {
                ASSERT_THROW((void)v.front(), index_error);
            } else {
                ASSERT_EQ(v.front(), ref.front()) << "front";
                ASSERT_EQ(v.back(), ref.back()) << "back";
            }
        } else if (r < 925) {
            const auto st = v.stats();
            ASSERT_EQ(st.values, ref.size());
            ASSERT_EQ(st.sealed_blocks, ref.size() / block_values);
        } else if (r < 928) {  // through a file and back: the copy must carry on like the original
            std::vector<std::byte> file;
            bitplane::save(v, file);
            bvec<T> loaded = bitplane::load<T>(file);
            ASSERT_TRUE(same_values(ref, loaded.to_std_vector())) << "loaded after " << op << " operations";
            loaded.swap(v);
        } else if (r < 935) {
            if (!ref.empty()) {
                const std::size_t i = rng() % ref.size();
                auto it = v.begin() + static_cast<std::ptrdiff_t>(i);
                for (std::size_t k = i; k < std::min(ref.size(), i + 100); ++k, ++it)
                    ASSERT_EQ(*it, ref[k]) << "iterator at " << k;
            }
        } else {
            // Many sets spread over every block: each switch re-encodes the write-back block.
            if (!ref.empty()) {
                for (int k = 0; k < 60; ++k) {
                    const std::size_t i = rng() % ref.size();
                    const T x = random_value<T>(rng);
                    v.set(i, x);
                    ref[i] = x;
                }
            }
        }
        ASSERT_EQ(v.size(), ref.size()) << "after " << op << " operations";
        if (op % 50 == 0 || op == operations) {
            ASSERT_TRUE(same_values(ref, v.to_std_vector())) << "after " << op << " operations";
            ASSERT_EQ(v.block_count(), (ref.size() + block_values - 1) / block_values);
        }
    }
    ASSERT_TRUE(matches(v, ref, seed));
    v.seal();
    ASSERT_TRUE(matches(v, ref, seed));
}

TYPED_TEST(VectorTest, RandomizedModelAgainstStdVector) {
    BITPLANE_SEED_TRACE();
    const int runs = quick_mode() ? 2 : 6;
    const int operations = quick_mode() ? 1500 : 4000;
    for (int k = 0; k < runs; ++k) run_model<TypeParam>(case_seed("model", k, std::is_signed_v<TypeParam>), operations);
}

TYPED_TEST(VectorTest, SetInterleavedWithReadsOnSealedData) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    for (const shape& s : representative_shapes()) {
        SCOPED_TRACE(s.name());
        std::vector<T> ref = make_typed<T>(s, 5 * 2048 + 100, case_seed("setread", s.id()));
        bvec<T> v = from(ref);
        std::mt19937_64 rng(case_seed("setread-rng", s.id()));
        const int sets = quick_mode() ? 200 : 600;
        for (int k = 0; k < sets; ++k) {
            const std::size_t i = rng() % ref.size();
            const T x = k % 3 == 0 ? ref[(i + 1) % ref.size()] : random_value<T>(rng);
            v.set(i, x);
            ref[i] = x;
            const std::size_t j = rng() % ref.size();
            ASSERT_EQ(v[j], ref[j]) << "read " << j << " after set " << i;
            ASSERT_EQ(v[i], ref[i]) << "read back " << i;
            if (k % 100 == 0) v.seal();
        }
        ASSERT_TRUE(matches(v, ref));
    }
}

// Blocks growing again and again (sets of random values into compressible blocks) leave old
// versions behind in the arena; the vector must compact them and stay correct.
TYPED_TEST(VectorTest, GrowingBlocksAreCompacted) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const std::size_t blocks = 16;
    std::vector<T> ref(blocks * 2048, T{0});
    bvec<T> v = from(ref);
    std::mt19937_64 rng(case_seed("grow"));
    const int rounds = quick_mode() ? 12 : 30;
    for (int round = 0; round < rounds; ++round) {
        for (std::size_t b = 0; b < blocks; ++b) {
            for (int k = 0; k < 70; ++k) {
                const std::size_t i = b * 2048 + rng() % 2048;
                const auto x = static_cast<T>(rng());
                v.set(i, x);
                ref[i] = x;
            }
        }
        ASSERT_TRUE(same_values(ref, v.to_std_vector())) << "round " << round;
        // Never more than the live blocks, two full copies of their worst size, and the tables.
        ASSERT_LE(v.memory_bytes(), 3 * blocks * (bitplane::codec::max_block_bytes + 64) + 64 * 1024)
            << "superseded block versions are not reclaimed";
    }
    v.seal();
    ASSERT_TRUE(matches(v, ref));
    const auto st = v.stats();
    EXPECT_LE(st.memory_bytes, st.encoded_bytes + 64 * blocks + 4 * 2048 + 1024)
        << "seal() left superseded bytes or buffers behind";
}

TYPED_TEST(VectorTest, ResizeAcrossBlockEdges) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const std::vector<T> original = make_typed<T>(of(shape_kind::mixed), 3 * 2048 + 5, case_seed("resize"));
    const T fill = std::is_signed_v<T> ? static_cast<T>(-3) : static_cast<T>(3);
    const std::vector<std::size_t> steps = {2 * 2048 + 10,  // down into sealed block 2
                                            3 * 2048 + 100, // back up past it: filled, not the old values
                                            2048,           // exactly a block edge
                                            2047, 2049, 1, 0, 5000, 4096, 4095, 8192 + 1, 10, 2 * 2048};
    for (const bool with_fill : {false, true}) {
        bvec<T> v = from(original);
        std::vector<T> ref = original;
        for (const std::size_t n : steps) {
            SCOPED_TRACE("resize to " + std::to_string(n) + (with_fill ? " with fill" : ""));
            if (with_fill) {
                v.resize(n, fill);
                ref.resize(n, fill);
            } else {
                v.resize(n);
                ref.resize(n);
            }
            ASSERT_TRUE(matches(v, ref));
            v.push_back(fill);
            ref.push_back(fill);
            if (ref.size() > 1) {
                v.set(ref.size() / 2, 77);
                ref[ref.size() / 2] = 77;
            }
            ASSERT_TRUE(matches(v, ref));
        }
    }
    // Shrinking into the pending write-back block keeps its pending values.
    bvec<T> v = from(original);
    std::vector<T> ref = original;
    v.set(2048 + 7, 4242);
    ref[2048 + 7] = 4242;
    v.resize(2048 + 100);
    ref.resize(2048 + 100);
    ASSERT_TRUE(matches(v, ref));
    v.resize(5 * 2048, fill);
    ref.resize(5 * 2048, fill);
    ASSERT_TRUE(matches(v, ref));
    v.resize(v.size());  // no-op
    ASSERT_TRUE(matches(v, ref));
}

TYPED_TEST(VectorTest, ClearReserveSwap) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const std::vector<T> ra = make_typed<T>(of(shape_kind::runs), 3 * 2048 + 5, case_seed("swap-a"));
    const std::vector<T> rb = make_typed<T>(of(shape_kind::small_negative), 2049, case_seed("swap-b"));
    bvec<T> a = from(ra);
    bvec<T> b = from(rb);
    a.set(1, 9);  // pending write-back blocks travel with the swap
    std::vector<T> ra2 = ra;
    ra2[1] = 9;
    a.swap(b);
    EXPECT_TRUE(matches(a, rb));
    EXPECT_TRUE(matches(b, ra2));
    swap(a, b);  // the free function, found by ADL
    EXPECT_TRUE(matches(a, ra2));
    EXPECT_TRUE(matches(b, rb));
    std::swap(a, b);
    EXPECT_TRUE(matches(a, rb));
    EXPECT_TRUE(matches(b, ra2));

    b.clear();
    EXPECT_TRUE(matches(b, std::vector<T>{}));
    b.push_back(4);
    b.set(0, 5);
    EXPECT_TRUE(matches(b, std::vector<T>{5}));
    b.clear();
    b.clear();
    EXPECT_TRUE(b.empty());

    bvec<T> r;
    r.reserve(100000);
    EXPECT_TRUE(r.empty());
    const std::vector<T> rc = make_typed<T>(of(shape_kind::mixed), large_size, case_seed("reserve"));
    for (const T x : rc) r.push_back(x);
    EXPECT_TRUE(matches(r, rc));
    r.reserve(10);  // smaller than the size: no effect
    EXPECT_TRUE(matches(r, rc));
}

TYPED_TEST(VectorTest, Equality) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2048}, std::size_t{3 * 2048 + 5}}) {
        SCOPED_TRACE("n=" + std::to_string(n));
        const std::vector<T> ref = make_typed<T>(of(shape_kind::mixed), n, case_seed("eq", n));
        const bvec<T> a = from(ref);
        bvec<T> b;
        for (const T x : ref) b.push_back(x);
        EXPECT_TRUE(a == b);
        EXPECT_TRUE(b == a);
        EXPECT_FALSE(a != b);
        if (n == 0) {
            EXPECT_TRUE(a == bvec<T>());
            continue;
        }
        const std::size_t i = n / 2;
        const T old = b[i];
        b.set(i, static_cast<T>(old + 1));
        EXPECT_FALSE(a == b) << "one value differs";
        EXPECT_TRUE(a != b);
        b.set(i, old);  // back, still pending in the write-back block
        EXPECT_TRUE(a == b);
        b.seal();
        EXPECT_TRUE(a == b);
        b.push_back(0);
        EXPECT_FALSE(a == b) << "sizes differ";
        b.resize(n);
        EXPECT_TRUE(a == b);
        b.set(n - 1, static_cast<T>(b[n - 1] ^ 1));
        EXPECT_FALSE(a == b) << "last value differs";
    }
}

// ---- memory and statistics --------------------------------------------------------------------

template <class T>
bitplane::vector_stats sealed_stats_of(const shape& s, std::size_t n, std::uint64_t seed) {
    const std::vector<T> ref = make_typed<T>(s, n, seed);
    bvec<T> v = from(ref);
    v.seal();
    const auto st = v.stats();
    EXPECT_EQ(st.memory_bytes, v.memory_bytes());
    EXPECT_EQ(st.values, n);
    EXPECT_DOUBLE_EQ(st.bits_per_value, 8.0 * static_cast<double>(st.memory_bytes) / static_cast<double>(n));
    return st;
}

TEST(VectorMemory, BitsPerValueOnOneMillionValues) {
    BITPLANE_SEED_TRACE();
    const std::size_t n = 1'000'000;
    struct expectation {
        shape s;
        double low, high;
    };
    const expectation cases[] = {
        // 10 raw planes + table: 56 bytes per block (a 32-byte block_descriptor, the offset and
        // the 16-byte block_summary, 0.219 bits/value) + the 576-value uncompressed tail of 1M
        // values (0.066 bits/value)
        {uniform(10), 10.0, 10.31},
        // entropy ~2.47 bits; the mask's gap list (~200 bytes) is kept in memory as a 2048-bit
        // map with ranks for random reads (272 bytes, ~1.06 bits/value:
        // thresholds::read_bitmap_min_gaps_bytes), summaries 0.06
        {of(shape_kind::sparse_90), 2.4, 4.3},
        {of(shape_kind::full_range), 32.0, 32.3},       // nothing to gain
        {of(shape_kind::timestamps), 0.5, 11.0},        // delta: ~5 planes
        {of(shape_kind::all_ones), 0.0, 0.5},           // 9 bytes a block
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.s.name());
        const auto st = sealed_stats_of<std::uint32_t>(c.s, n, case_seed("bpv", c.s.id()));
        EXPECT_GE(st.bits_per_value, c.low);
        EXPECT_LE(st.bits_per_value, c.high);
        EXPECT_GE(st.memory_bytes, st.encoded_bytes);
        RecordProperty(c.s.name() + "_bits_per_value", std::to_string(st.bits_per_value));
    }
    // int32 timestamps too.
    const auto st = sealed_stats_of<std::int32_t>(of(shape_kind::timestamps), n, case_seed("bpv-signed"));
    EXPECT_LE(st.bits_per_value, 11.0);
}

// Building from a span leaves little spare capacity (the arena, block table and delta sums
// grew by doubling and kept up to half of it spare): no more than a loaded copy, whose storage
// is sized exactly, plus 1/16. Appends of one block at a time keep their geometric growth.
TEST(VectorMemory, ConstructionFromSpanLeavesLittleSpare) {
    BITPLANE_SEED_TRACE();
    for (const shape& s : {uniform(10), of(shape_kind::timestamps), of(shape_kind::sparse_90), of(shape_kind::runs)}) {
        for (const std::size_t n : {std::size_t{300 * block_values + 576}, std::size_t{1500 * block_values}}) {
            const std::vector<std::uint32_t> ref = make_typed<std::uint32_t>(s, n, case_seed("spare", s.id(), n));
            for (const std::size_t threads : {std::size_t{1}, std::size_t{0}}) {  // 1: blocks pushed one by one
                SCOPED_TRACE(case_name(s, n) + ", thread count " + std::to_string(threads));
                bitplane::set_thread_count(threads);
                const bvec<std::uint32_t> v = from(ref);
                bitplane::set_thread_count(0);
                std::vector<std::byte> file;
                bitplane::save(v, file);
                const auto loaded = bitplane::load<std::uint32_t>(file);
                ASSERT_EQ(loaded, v);
                EXPECT_LE(v.memory_bytes(), loaded.memory_bytes() + loaded.memory_bytes() / 16);
            }
        }
    }
}

TYPED_TEST(VectorTest, StatsCountsAddUp) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    for (const shape& s : all_shapes()) {
        for (const std::size_t n : {std::size_t{0}, std::size_t{2047}, std::size_t{2048}, std::size_t{3 * 2048 + 5}, large_size}) {
            if (quick_mode() && n == large_size && s.kind == shape_kind::uniform && s.bits % 4 != 0) continue;
            SCOPED_TRACE(case_name(s, n));
            const std::vector<T> ref = make_typed<T>(s, n, case_seed("stats", s.id(), n));
            bvec<T> v = from(ref);
            const auto st = v.stats();
            const std::uint64_t sealed = n / block_values;
            ASSERT_EQ(st.values, n);
            ASSERT_EQ(st.sealed_blocks, sealed);
            ASSERT_EQ(st.memory_bytes, v.memory_bytes());
            ASSERT_GE(st.memory_bytes, sizeof(bvec<T>));
            // encoded_bytes counts every block; memory holds blocks with equal bytes once.
            if (v.core().unique_block_count() == sealed) {
                ASSERT_GE(st.memory_bytes, st.encoded_bytes);
            }
            if (n == 0) {
                ASSERT_EQ(st.bits_per_value, 0.0);
            } else {
                ASSERT_DOUBLE_EQ(st.bits_per_value, 8.0 * static_cast<double>(st.memory_bytes) / static_cast<double>(n));
            }
            std::uint64_t by_transform = 0, by_layout = 0, planes = 0;
            for (auto c : st.blocks_by_transform) by_transform += c;
            for (auto c : st.blocks_by_layout) by_layout += c;
            for (const auto& row : st.planes)
                for (auto c : row) planes += c;
            ASSERT_EQ(by_transform, sealed);
            ASSERT_EQ(by_layout, sealed);
            ASSERT_EQ(planes, 32 * sealed + st.blocks_by_layout[1]) << "planes of sealed blocks + sparse masks";
            // Encoded bytes: what the codec makes of each full block of the reference.
            std::uint64_t encoded = 0;
            std::vector<std::byte> scratch(bitplane::codec::max_block_bytes);
            for (std::uint64_t b = 0; b < sealed; ++b) {
                const auto* first = reinterpret_cast<const std::uint32_t*>(ref.data() + b * block_values);
                encoded += bitplane::codec::encode_block({first, block_values}, std::is_signed_v<T>, scratch);
            }
            ASSERT_EQ(st.encoded_bytes, encoded);
            // Shape-specific accounts.
            if (sealed > 0 && s.kind == shape_kind::uniform && s.bits == 10 && !std::is_signed_v<T>) {
                EXPECT_EQ(st.planes[0][3], 10 * sealed) << "[zero][raw]";
                EXPECT_EQ(st.planes[0][0], 22 * sealed) << "[zero][none]";
            }
            if (s.kind == shape_kind::all_ones) {
                EXPECT_EQ(st.planes[1][0], 32 * sealed) << "[one][none]";
            }
            if (s.kind == shape_kind::timestamps) {
                EXPECT_EQ(st.blocks_by_transform[2], sealed) << "delta";
            }
            if (s.kind == shape_kind::sparse_999) {  // every full block with a non-zero value
                std::uint64_t with_nonzero = 0;
                for (std::uint64_t b = 0; b < sealed; ++b)
                    with_nonzero += std::any_of(ref.begin() + static_cast<std::ptrdiff_t>(b * block_values),
                                                ref.begin() + static_cast<std::ptrdiff_t>((b + 1) * block_values),
                                                [](T x) { return x != 0; });
                // Nearly all of them sparse (2..5 non-zeros may go dense: see
                // Codec.EncoderDefaultsNeverLargerThanWithoutReferences); all-zero blocks dense.
                EXPECT_LE(st.blocks_by_layout[1], with_nonzero) << "sparse";
                EXPECT_GE(2 * st.blocks_by_layout[1], with_nonzero) << "sparse";
            }

            // A pending write-back block is counted as it would be sealed.
            if (sealed > 0) {
                const std::size_t i = (sealed - 1) * block_values + 7;
                v.set(i, static_cast<T>(ref[i] ^ 0x100));
                const auto pending = v.stats();
                v.seal();
                const auto after = v.stats();
                ASSERT_EQ(pending.encoded_bytes, after.encoded_bytes);
                ASSERT_EQ(pending.blocks_by_transform, after.blocks_by_transform);
                ASSERT_EQ(pending.blocks_by_layout, after.blocks_by_layout);
                ASSERT_EQ(pending.planes, after.planes);
            }
        }
    }
}

// ---- concurrent readers -----------------------------------------------------------------------

TYPED_TEST(VectorTest, ConcurrentReaders) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    std::vector<T> ref = make_typed<T>(of(shape_kind::mixed), large_size, case_seed("threads"));
    bvec<T> writable = from(ref);
    writable.set(2048 * 3 + 11, 31337);  // a pending write-back block, read concurrently too
    ref[2048 * 3 + 11] = 31337;
    const bvec<T>& v = writable;
    const auto expected_stats = v.stats();

    std::atomic<int> errors{0};
    std::atomic<int> done{0};
    const int iterations = quick_mode() ? 400 : 2000;
    auto reader = [&](int id) {
        std::mt19937_64 rng(case_seed("reader", id));
        std::vector<T> out;
        for (int k = 0; k < iterations; ++k) {
            const std::size_t i = rng() % ref.size();
            if (v[i] != ref[i]) ++errors;
            if (k % 10 == 0) {
                const std::size_t first = rng() % ref.size();
                out.resize(std::min<std::size_t>(ref.size() - first, rng() % 5000));
                v.decode(first, out);
                if (!std::equal(out.begin(), out.end(), ref.begin() + static_cast<std::ptrdiff_t>(first))) ++errors;
            }
            if (k % 500 == 0) {
                if (!std::equal(v.begin(), v.end(), ref.begin(), ref.end())) ++errors;
                const auto st = v.stats();
                if (st.encoded_bytes != expected_stats.encoded_bytes || st.planes != expected_stats.planes ||
                    st.memory_bytes != expected_stats.memory_bytes)
                    ++errors;
            }
        }
        ++done;
    };
    std::vector<std::thread> threads;
    const int thread_count = 4;
    for (int t = 0; t < thread_count; ++t) threads.emplace_back(reader, t);
    for (auto& t : threads) t.join();
    EXPECT_EQ(done.load(), thread_count);
    EXPECT_EQ(errors.load(), 0);
    EXPECT_TRUE(matches(v, ref));
}

}  // namespace
