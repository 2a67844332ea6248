// Block summaries (include/bitplane/detail/block_summary.hpp): the smallest and largest key and
// the exact sum that vector_core keeps for every sealed block, and what reads them: sum, min,
// max, and the scans' whole-block answers (src/ops/scan.cpp). Every stored summary is compared
// with one computed here from the block's values, and sum/min/max/count_*/find_* with plain
// loops, for every shape of test_support.hpp and sizes around block edges, both value types, on
// every SIMD path, after each way a block comes to be: construction (serial and parallel
// appends), push_back, set() (write-back blocks, flushed and pending; blocks made constant, and
// blocks whose minimum or maximum moves in or out), resize, load(save(v)), encoded blocks
// appended (append_encoded_block(s), as bitwise operations and DNA do) and adopted without
// summaries (those carry block_summary::unknown() until a write re-encodes them, and every
// reader must take its per-block path for them). validate() must reject a summary that
// disagrees with its block.
#include "test_support.hpp"
#include "core/vector_access.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/codec.hpp>
#include <bitplane/detail/block_summary.hpp>
#include <bitplane/error.hpp>
#include <bitplane/parallel.hpp>
#include <bitplane/reduce.hpp>
#include <bitplane/scan.hpp>
#include <bitplane/serialize.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/vector.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::block_values;
using bitplane::detail::block_summary;
using bitplane::detail::key_hull;

template <class T>
using bvec = bitplane::vector<T>;
template <class T>
using wide = bitplane::wide_t<T>;

class settings_guard {
public:
    settings_guard() : path_(bitplane::active_simd_path()) {}
    settings_guard(const settings_guard&) = delete;
    settings_guard& operator=(const settings_guard&) = delete;
    ~settings_guard() {
        bitplane::set_simd_path(path_);
        bitplane::set_thread_count(0);
    }

private:
    bitplane::simd_path path_;
};

using value_types = ::testing::Types<std::uint32_t, std::int32_t>;

template <class T>
class SummaryTest : public ::testing::Test {};
TYPED_TEST_SUITE(SummaryTest, value_types);

template <class T>
std::vector<std::byte> save_bytes(const bvec<T>& v) {
    std::vector<std::byte> out;
    bitplane::save(v, out);
    return out;
}

// ---- references -------------------------------------------------------------------------------

template <class T>
std::uint32_t key_of(T x) {
    return std::bit_cast<std::uint32_t>(x) ^ (std::is_signed_v<T> ? 0x80000000u : 0u);
}

// Written without the library's helpers: min/max of T itself, the sum as a 64-bit integer of T's sign.
template <class T>
block_summary reference_summary(std::span<const T> values) {
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    block_summary s;
    s.min_key = key_of(*lo);
    s.max_key = key_of(*hi);
    std::int64_t sum = 0;
    for (const T x : values) sum += static_cast<std::int64_t>(x);
    s.sum = static_cast<std::uint64_t>(sum);
    return s;
}

template <class T>
wide<T> reference_sum(const std::vector<T>& values) {
    wide<T> s = 0;
    for (const T x : values) s += x;
    return s;
}

std::string text(const block_summary& s) {
    return "{min key " + std::to_string(s.min_key) + ", max key " + std::to_string(s.max_key) + ", sum " +
           std::to_string(s.sum) + "}";
}

// Every sealed block's stored summary (but the write-back block's, which is stale by contract).
// With `unknown_from` = k, blocks from k on must be unknown (appended as bytes) or right (a block
// sharing its bytes with a summarized one has its summary), never wrong.
template <class T>
::testing::AssertionResult summaries_match(const bvec<T>& v, const std::vector<T>& values,
                                           std::size_t unknown_from = ~std::size_t{0}) {
    const auto& core = v.core();
    if (core.size() != values.size()) return ::testing::AssertionFailure() << "sizes differ";
    for (std::size_t b = 0; b < core.sealed_block_count(); ++b) {
        if (!core.write_back_values(b).empty()) continue;
        const block_summary want = reference_summary<T>(std::span<const T>(values).subspan(b * block_values, block_values));
        const block_summary& got = core.sealed_summary(b);
        // Blocks from bytes have none, unless they share their entry with an equal block that has.
        const bool ok = got == want || (b >= unknown_from && got == block_summary::unknown());
        if (!ok)
            return ::testing::AssertionFailure() << "block " << b << ": stored " << text(got) << ", values give "
                                                 << text(want);
    }
    // The key hull (vector_core::sealed_keys_hull) holds every stored summary's keys, the
    // write-back block's stale one too, and is unknown where one is (wider is allowed).
    const key_hull& hull = core.sealed_keys_hull();
    for (std::size_t b = 0; b < core.sealed_block_count(); ++b) {
        const block_summary& got = core.sealed_summary(b);
        const bool held = got.known() ? !hull.known() || (hull.min_key <= got.min_key && got.max_key <= hull.max_key)
                                      : !hull.known();
        if (!held)
            return ::testing::AssertionFailure() << "block " << b << ": summary " << text(got) << " outside the hull ["
                                                 << hull.min_key << ", " << hull.max_key << "]"
                                                 << (hull.unknown ? " (unknown)" : "");
    }
    return ::testing::AssertionSuccess();
}

// sum, min, max, and counts and scans at every sealed block's bounds and next to them (where a
// whole-block answer flips), at the type's extremes and at a few values of the data.
template <class T>
::testing::AssertionResult answers_match(const bvec<T>& v, const std::vector<T>& values, std::uint64_t seed,
                                         std::size_t max_points) {
    using lim = std::numeric_limits<T>;
    if (bitplane::sum(v) != reference_sum(values)) return ::testing::AssertionFailure() << "sum";
    if (values.empty()) {
        try {
            (void)bitplane::min(v);
            return ::testing::AssertionFailure() << "min of an empty vector did not throw";
        } catch (const bitplane::argument_error&) {
        }
        try {
            (void)bitplane::max(v);
            return ::testing::AssertionFailure() << "max of an empty vector did not throw";
        } catch (const bitplane::argument_error&) {
        }
    } else {
        const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
        if (bitplane::min(v) != *lo)
            return ::testing::AssertionFailure() << "min " << bitplane::min(v) << ", want " << *lo;
        if (bitplane::max(v) != *hi)
            return ::testing::AssertionFailure() << "max " << bitplane::max(v) << ", want " << *hi;
    }
    std::vector<T> points = {lim::min(), lim::max(), T(0), static_cast<T>(lim::min() + 1),
                             static_cast<T>(lim::max() - 1)};
    std::mt19937_64 rng(seed);
    for (std::size_t first = 0; first < values.size(); first += block_values) {
        const auto block = std::span<const T>(values).subspan(first, std::min(block_values, values.size() - first));
        const auto [lo, hi] = std::minmax_element(block.begin(), block.end());
        for (const T x : {*lo, *hi}) {
            points.push_back(x);
            points.push_back(static_cast<T>(std::bit_cast<T>(std::bit_cast<std::uint32_t>(x) - 1)));
            points.push_back(static_cast<T>(std::bit_cast<T>(std::bit_cast<std::uint32_t>(x) + 1)));
        }
        points.push_back(block[rng() % block.size()]);
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    if (points.size() > max_points) {  // keep the cost bounded: the bounds of a sample of blocks
        std::shuffle(points.begin() + 5, points.end(), rng);
        points.resize(max_points);
    }
    auto count_if = [&](auto pass) {
        return static_cast<std::uint64_t>(std::count_if(values.begin(), values.end(), pass));
    };
    for (const T x : points) {
        const std::uint64_t eq = count_if([x](T y) { return y == x; });
        if (bitplane::count_eq(v, x) != eq) return ::testing::AssertionFailure() << "count_eq " << x;
        if (bitplane::find_eq(v, x).count() != eq) return ::testing::AssertionFailure() << "find_eq " << x;
        if (bitplane::find_ne(v, x).count() != values.size() - eq)
            return ::testing::AssertionFailure() << "find_ne " << x;
        const std::uint64_t lt = count_if([x](T y) { return y < x; });
        if (bitplane::find_lt(v, x).count() != lt) return ::testing::AssertionFailure() << "find_lt " << x;
        if (bitplane::find_ge(v, x).count() != values.size() - lt)
            return ::testing::AssertionFailure() << "find_ge " << x;
        const T y = points[rng() % points.size()];
        const T a = std::min(x, y), b = std::max(x, y);
        const std::uint64_t in = count_if([a, b](T z) { return a <= z && z <= b; });
        if (bitplane::count_range(v, a, b) != in) return ::testing::AssertionFailure() << "count_range " << a << " " << b;
        const bitplane::bitset found = bitplane::find_range(v, a, b);
        if (found.count() != in) return ::testing::AssertionFailure() << "find_range " << a << " " << b;
        // The positions, not only their number: a whole block answered wrongly both ways would cancel.
        for (const std::uint64_t i : found.to_positions())
            if (values[i] < a || values[i] > b)
                return ::testing::AssertionFailure() << "find_range " << a << " " << b << " gave position " << i;
    }
    return ::testing::AssertionSuccess();
}

template <class T>
void check_all(const bvec<T>& v, const std::vector<T>& values, std::uint64_t seed, std::size_t max_points = 60,
               std::size_t unknown_from = ~std::size_t{0}) {
    ASSERT_NO_THROW(v.validate());
    ASSERT_TRUE(summaries_match(v, values, unknown_from));
    ASSERT_TRUE(answers_match(v, values, seed, max_points));
}

// ---- construction, every shape and size, every path -------------------------------------------

TYPED_TEST(SummaryTest, EveryShapeAndSizeOnEveryPath) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    const std::vector<bitplane::simd_path> paths = bitplane_test::paths_to_sweep();  // best last
    for (const bitplane::simd_path path : paths) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        const bool best = path == paths.back();
        for (const shape& s : best && !quick_mode() ? all_shapes() : representative_shapes()) {
            for (const std::size_t n : standard_sizes()) {
                SCOPED_TRACE(case_name(s, n));
                const std::uint64_t seed = case_seed("summary-shapes", s.id(), n, std::is_signed_v<T>);
                const std::vector<T> values = make_typed<T>(s, n, seed);
                const bvec<T> v(std::span<const T>{values});  // parallel encode past 32 blocks
                check_all(v, values, seed);
                if (::testing::Test::HasFatalFailure()) return;
                // One value at a time: every block sealed from the tail.
                if (n <= 3 * block_values + 5) {
                    bvec<T> pushed;
                    for (const T x : values) pushed.push_back(x);
                    check_all(pushed, values, seed);
                    if (::testing::Test::HasFatalFailure()) return;
                }
            }
        }
    }
}

// A long vector split over two threads: the windows of the parallel append.
TYPED_TEST(SummaryTest, ParallelAppendOneAndTwoThreads) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    const std::size_t n = 1100 * block_values + 99;  // more than one window of 1024 blocks
    const std::vector<T> values = make_typed<T>(of(shape_kind::mixed), n, case_seed("summary-parallel"));
    for (const std::size_t threads : {std::size_t{1}, std::size_t{2}}) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        bitplane::set_thread_count(threads);
        const bvec<T> v(std::span<const T>{values});
        ASSERT_TRUE(summaries_match(v, values));
        EXPECT_TRUE(bitplane::sum(v) == reference_sum(values));
        const bvec<T> loaded = bitplane::load<T>(std::span<const std::byte>(save_bytes(v)));
        ASSERT_TRUE(summaries_match(loaded, values));
    }
}

// ---- writes, resizes, reloads --------------------------------------------------------------

TYPED_TEST(SummaryTest, WritesResizesAndReloadsOnEveryPath) {
    using T = TypeParam;
    using lim = std::numeric_limits<T>;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    for (const bitplane::simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        for (const shape& s : representative_shapes()) {
            const std::size_t n = 5 * block_values + 777;
            SCOPED_TRACE(case_name(s, n));
            const std::uint64_t seed = case_seed("summary-writes", s.id(), std::is_signed_v<T>);
            std::vector<T> values = make_typed<T>(s, n, seed);
            bvec<T> v(std::span<const T>{values});
            std::mt19937_64 rng(seed);
            const auto put = [&](std::size_t i, T x) {
                v.set(i, x);
                values[i] = x;
            };
            // Random positions in every block and the tail; the last block written stays pending.
            for (int k = 0; k < 40; ++k) put(rng() % n, values[rng() % n]);
            check_all(v, values, seed);
            if (::testing::Test::HasFatalFailure()) return;
            // Block 1 made constant; block 2's extremes moved out to the type's and back in.
            for (std::size_t i = block_values; i < 2 * block_values; ++i) put(i, values[block_values]);
            put(2 * block_values + 5, lim::max());
            put(2 * block_values + 6, lim::min());
            put(4 * block_values + 1, T(1));  // flushes block 2, stays pending
            check_all(v, values, seed + 1);
            if (::testing::Test::HasFatalFailure()) return;
            put(2 * block_values + 5, values[2 * block_values + 4]);
            put(2 * block_values + 6, values[2 * block_values + 4]);  // the minimum and maximum move back in
            v.seal();
            check_all(v, values, seed + 2);
            if (::testing::Test::HasFatalFailure()) return;
            // load(save(v)) takes the summaries from load's own decode.
            const bvec<T> loaded = bitplane::load<T>(std::span<const std::byte>(save_bytes(v)));
            check_all(loaded, values, seed + 3);
            if (::testing::Test::HasFatalFailure()) return;
            // Shrinking into a block (it becomes the tail), growing with a fill value, push_back.
            v.resize(2 * block_values + 100);
            values.resize(2 * block_values + 100);
            check_all(v, values, seed + 4);
            if (::testing::Test::HasFatalFailure()) return;
            const T fill = std::bit_cast<T>(static_cast<std::uint32_t>(rng()));
            v.resize(5 * block_values + 3, fill);
            values.resize(5 * block_values + 3, fill);
            for (int k = 0; k < 3000; ++k) {
                const T x = values[rng() % values.size()];
                v.push_back(x);
                values.push_back(x);
            }
            check_all(v, values, seed + 5);
            if (::testing::Test::HasFatalFailure()) return;
            v.resize(block_values);
            values.resize(block_values);
            check_all(v, values, seed + 6);
            if (::testing::Test::HasFatalFailure()) return;
            v.resize(0);
            values.clear();
            check_all(v, values, seed + 7);
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
}

// Copies, moves and swaps carry the summaries with the blocks.
TYPED_TEST(SummaryTest, CopyMoveSwap) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const std::vector<T> a = make_typed<T>(of(shape_kind::runs), 4 * block_values + 9, case_seed("summary-copy-a"));
    const std::vector<T> b = make_typed<T>(uniform(7), 2 * block_values, case_seed("summary-copy-b"));
    bvec<T> va(std::span<const T>{a});
    bvec<T> vb(std::span<const T>{b});
    bvec<T> copy = va;
    ASSERT_TRUE(summaries_match(copy, a));
    copy.swap(vb);
    ASSERT_TRUE(summaries_match(copy, b));
    ASSERT_TRUE(summaries_match(vb, a));
    bvec<T> moved = std::move(vb);
    ASSERT_TRUE(summaries_match(moved, a));
    EXPECT_TRUE(bitplane::sum(moved) == reference_sum(a));
    copy = moved;
    ASSERT_TRUE(summaries_match(copy, a));
    EXPECT_TRUE(copy == va);
}

// ---- encoded blocks from outside the encoder -------------------------------------------------

template <class T>
std::vector<std::byte> encode(std::span<const T> values) {
    std::vector<std::uint32_t> bits(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) bits[i] = std::bit_cast<std::uint32_t>(values[i]);
    std::vector<std::byte> out(bitplane::codec::max_block_bytes);
    out.resize(bitplane::codec::encode_block(bits, std::is_signed_v<T>, out));
    return out;
}

TYPED_TEST(SummaryTest, AppendedAndAdoptedEncodedBlocks) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    for (const bitplane::simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        for (const shape& s : representative_shapes()) {
            const std::size_t blocks = 33;  // past the parallel threshold of append_encoded_blocks (32)
            SCOPED_TRACE(case_name(s, blocks * block_values));
            const std::uint64_t seed = case_seed("summary-encoded", s.id(), std::is_signed_v<T>);
            const std::vector<T> values = make_typed<T>(s, blocks * block_values, seed);
            std::vector<std::vector<std::byte>> encoded;
            for (std::size_t b = 0; b < blocks; ++b)
                encoded.push_back(encode<T>(std::span<const T>(values).subspan(b * block_values, block_values)));
            // One at a time, after summarized blocks: no summary for bytes from outside the encoder.
            std::vector<T> both(values.begin(), values.begin() + 2 * block_values);
            bvec<T> one(std::span<const T>{both});
            for (const auto& e : encoded) bitplane::detail::vector_access::core(one).append_encoded_block(e);
            both.insert(both.end(), values.begin(), values.end());
            check_all(one, both, seed, 12, 2);
            if (::testing::Test::HasFatalFailure()) return;
            // A write re-encodes a block, which then has its summary; so does a reload.
            one.set(2 * block_values + 5, both[7]);
            both[2 * block_values + 5] = both[7];
            one.seal();
            ASSERT_TRUE(one.core().sealed_summary(2).known());
            // Block 3 (from bytes) has none, unless it shares the entry of an equal block that
            // has one: check_all takes either, never a wrong one.
            const auto bytes_of = [&](std::size_t b) { return one.core().sealed_block(b, {}); };
            if (std::ranges::none_of(std::array<std::size_t, 3>{0, 1, 2}, [&](std::size_t b) {
                    return std::ranges::equal(bytes_of(b), bytes_of(3));
                })) {
                ASSERT_FALSE(one.core().sealed_summary(3).known());
            }
            check_all(one, both, seed, 12, 3);
            if (::testing::Test::HasFatalFailure()) return;
            check_all(bitplane::load<T>(std::span<const std::byte>(save_bytes(one))), both, seed, 12);
            if (::testing::Test::HasFatalFailure()) return;
            // In batches, on one and on two threads.
            for (const std::size_t threads : {std::size_t{1}, std::size_t{2}}) {
                bitplane::set_thread_count(threads);
                bvec<T> many;
                bitplane::detail::vector_access::core(many).append_encoded_blocks(blocks, [&](std::size_t i, std::span<std::byte> out) {
                    std::copy(encoded[i].begin(), encoded[i].end(), out.begin());
                    return encoded[i].size();
                });
                check_all(many, values, seed, 12, 0);
                if (::testing::Test::HasFatalFailure()) return;
            }
            bitplane::set_thread_count(0);
            // Adopted without summaries (as DNA does), with a tail.
            std::vector<std::byte> arena;
            std::vector<std::uint64_t> offsets;
            std::vector<std::uint32_t> sizes;
            for (const auto& e : encoded) {
                offsets.push_back(arena.size());
                sizes.push_back(static_cast<std::uint32_t>(e.size()));
                arena.insert(arena.end(), e.begin(), e.end());
            }
            std::vector<T> with_tail = values;
            std::vector<std::uint32_t> tail;
            for (std::size_t i = 0; i < 100; ++i) {
                with_tail.push_back(values[i * 7]);
                tail.push_back(std::bit_cast<std::uint32_t>(values[i * 7]));
            }
            bvec<T> adopted;
            bitplane::detail::vector_access::core(adopted).adopt(arena, offsets, sizes, tail, with_tail.size());
            check_all(adopted, with_tail, seed, 12, 0);
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
}

// ---- validate() catches a wrong summary -----------------------------------------------------

TYPED_TEST(SummaryTest, ValidateRejectsAWrongSummary) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const std::vector<T> values = make_typed<T>(of(shape_kind::mixed), 3 * block_values, case_seed("summary-mutate"));
    std::vector<std::byte> arena;
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint32_t> sizes;
    std::vector<block_summary> summaries;
    for (std::size_t b = 0; b < 3; ++b) {
        const auto block = std::span<const T>(values).subspan(b * block_values, block_values);
        const std::vector<std::byte> e = encode<T>(block);
        offsets.push_back(arena.size());
        sizes.push_back(static_cast<std::uint32_t>(e.size()));
        arena.insert(arena.end(), e.begin(), e.end());
        summaries.push_back(reference_summary<T>(block));
    }
    const auto adopt = [&](const std::vector<block_summary>& given) {
        bvec<T> v;
        bitplane::detail::vector_access::core(v).adopt(arena, offsets, sizes, {}, values.size(), given);
        return v;
    };
    ASSERT_NO_THROW(adopt(summaries).validate());
    ASSERT_TRUE(summaries_match(adopt(summaries), values));
    // Unknown is accepted (readers do not use it), as the exact pattern only.
    std::vector<block_summary> partly = summaries;
    partly[1] = block_summary::unknown();
    ASSERT_NO_THROW(adopt(partly).validate());
    EXPECT_FALSE(adopt(partly).core().sealed_summary(1).known());
    EXPECT_TRUE(bitplane::sum(adopt(partly)) == reference_sum(values));
    EXPECT_EQ(bitplane::max(adopt(partly)), *std::max_element(values.begin(), values.end()));
    // Each field of each block, off by one either way and by a high bit.
    for (std::size_t b = 0; b < 3; ++b) {
        for (int field = 0; field < 3; ++field) {
            for (const std::uint64_t delta : {std::uint64_t{1}, ~std::uint64_t{0}, std::uint64_t{1} << 31}) {
                std::vector<block_summary> bad = summaries;
                switch (field) {
                    case 0: bad[b].min_key += static_cast<std::uint32_t>(delta); break;
                    case 1: bad[b].max_key += static_cast<std::uint32_t>(delta); break;
                    default: bad[b].sum += delta; break;
                }
                SCOPED_TRACE("block " + std::to_string(b) + ", field " + std::to_string(field) + ", delta " +
                             std::to_string(delta));
                try {
                    adopt(bad).validate();
                    ADD_FAILURE() << "validate accepted a wrong summary";
                } catch (const bitplane::format_error& e) {
                    EXPECT_NE(std::string(e.what()).find("block " + std::to_string(b)), std::string::npos) << e.what();
                    EXPECT_NE(std::string(e.what()).find("summary"), std::string::npos) << e.what();
                }
            }
        }
    }
    // A summary table of the wrong length is refused by adopt itself.
    EXPECT_THROW(adopt(std::vector<block_summary>(2)), bitplane::size_error);
}

// ---- whole-block answers at block bounds -------------------------------------------------------

// Blocks each in a narrow range somewhere in the key space (the type's extremes included),
// constant blocks and one-value-off blocks, in shuffled order: every block is answered whole
// or partly depending on where a probe falls against its bounds, including intervals that
// wrap around the key space (find_ne, and ranges ending at the extremes).
TYPED_TEST(SummaryTest, BlockBoundsAgainstProbesOnEveryPath) {
    using T = TypeParam;
    using lim = std::numeric_limits<T>;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    std::mt19937_64 rng(case_seed("summary-bounds", std::is_signed_v<T>));
    const std::vector<T> centers = {lim::min(), static_cast<T>(lim::min() + 2), T(0), T(1), T(1000),
                                    static_cast<T>(lim::max() - 2), lim::max(),
                                    std::bit_cast<T>(0x80000000u), std::bit_cast<T>(0x7FFFFFFFu)};
    std::vector<T> values;
    for (const T c : centers) {
        for (const std::uint32_t width : {0u, 1u, 2u, 50u}) {
            for (std::size_t i = 0; i < block_values; ++i) {
                const std::uint32_t off = width == 0 ? 0u : static_cast<std::uint32_t>(rng() % (width + 1));
                // Within [c, c + width], clamped at the type's top (unsigned wrap avoided in key space).
                const std::uint32_t key = key_of(c);
                const std::uint32_t k = key > 0xFFFFFFFFu - off ? key - off : key + off;
                values.push_back(std::bit_cast<T>(k ^ (std::is_signed_v<T> ? 0x80000000u : 0u)));
            }
        }
    }
    // Shuffle whole blocks, and add a partial block.
    std::vector<std::size_t> order(values.size() / block_values);
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<T> shuffled;
    for (const std::size_t b : order)
        shuffled.insert(shuffled.end(), values.begin() + static_cast<std::ptrdiff_t>(b * block_values),
                        values.begin() + static_cast<std::ptrdiff_t>((b + 1) * block_values));
    for (std::size_t i = 0; i < 333; ++i) shuffled.push_back(values[rng() % values.size()]);
    for (const bitplane::simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        const bvec<T> v(std::span<const T>{shuffled});
        ASSERT_NO_THROW(v.validate());
        ASSERT_TRUE(summaries_match(v, shuffled));
        // Every block's bounds and their neighbours (answers_match samples; here all of them).
        std::vector<T> points;
        for (const T c : centers)
            for (const std::int64_t d : {-1, 0, 1, 2, 3, 49, 50, 51})
                points.push_back(std::bit_cast<T>(static_cast<std::uint32_t>(std::bit_cast<std::uint32_t>(c) + d)));
        for (const T x : points) {
            const auto eq = static_cast<std::uint64_t>(std::count(shuffled.begin(), shuffled.end(), x));
            ASSERT_EQ(bitplane::count_eq(v, x), eq) << x;
            ASSERT_EQ(bitplane::find_eq(v, x).count(), eq) << x;
            ASSERT_EQ(bitplane::find_ne(v, x).count(), shuffled.size() - eq) << x;
            const auto le = static_cast<std::uint64_t>(
                std::count_if(shuffled.begin(), shuffled.end(), [x](T y) { return y <= x; }));
            ASSERT_EQ(bitplane::find_le(v, x).count(), le) << x;
            ASSERT_EQ(bitplane::find_gt(v, x).count(), shuffled.size() - le) << x;
            for (const T y : {x, lim::max(), lim::min(), points[rng() % points.size()]}) {
                const T a = std::min(x, y), b = std::max(x, y);
                const auto in = static_cast<std::uint64_t>(
                    std::count_if(shuffled.begin(), shuffled.end(), [a, b](T z) { return a <= z && z <= b; }));
                ASSERT_EQ(bitplane::count_range(v, a, b), in) << a << " " << b;
                const bitplane::bitset found = bitplane::find_range(v, a, b);
                ASSERT_EQ(found.count(), in) << a << " " << b;
                for (const std::uint64_t i : found.to_positions())
                    ASSERT_TRUE(a <= shuffled[i] && shuffled[i] <= b) << i;
            }
        }
    }
}

// ---- whole-column answers ---------------------------------------------------------------------

// Columns whose every block the summaries answer alike (a range holding every value, a value
// outside the column) get one empty or full bitset (src/ops/scan.cpp, answer_for_all): every
// size around block bounds, the unsealed tail inside or outside the range, a first or last
// sealed block that differs, and a write-back block (never answered whole), against the
// positions of the values themselves.
TYPED_TEST(SummaryTest, WholeColumnAnswersOnEveryPath) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    std::mt19937_64 rng(case_seed("summary-whole-column", std::is_signed_v<T>));
    const T base = std::is_signed_v<T> ? T(-3) : T(7);
    const T far = static_cast<T>(base + 100);
    const auto check = [&](const bvec<T>& v, const std::vector<T>& values) {
        for (const auto& [a, b] : {std::pair{base, static_cast<T>(base + 3)}, std::pair{static_cast<T>(base - 5), far},
                                   std::pair{static_cast<T>(far + 1), static_cast<T>(far + 9)},
                                   std::pair{far, far}, std::pair{base, base}}) {
            std::vector<std::uint64_t> want;
            for (std::size_t i = 0; i < values.size(); ++i)
                if (a <= values[i] && values[i] <= b) want.push_back(i);
            ASSERT_EQ(bitplane::count_range(v, a, b), want.size()) << a << " " << b;
            ASSERT_EQ(bitplane::find_range(v, a, b), bitplane::bitset::from_positions(want, values.size()))
                << a << " " << b;
        }
        for (const T x : {base, far, static_cast<T>(far + 1)}) {
            std::vector<std::uint64_t> want;
            for (std::size_t i = 0; i < values.size(); ++i)
                if (values[i] == x) want.push_back(i);
            ASSERT_EQ(bitplane::count_eq(v, x), want.size()) << x;
            ASSERT_EQ(bitplane::find_eq(v, x), bitplane::bitset::from_positions(want, values.size())) << x;
        }
    };
    for (const bitplane::simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        for (const std::size_t n : {std::size_t{0}, std::size_t{1}, block_values - 1, block_values, block_values + 1,
                                    3 * block_values + 576}) {
            for (int variant = 0; variant < 4; ++variant) {
                SCOPED_TRACE("n " + std::to_string(n) + " variant " + std::to_string(variant));
                std::vector<T> values(n);
                for (T& x : values) x = static_cast<T>(base + static_cast<T>(rng() % 4));  // [base, base + 3]
                if (n != 0 && variant == 1) values.back() = far;                              // the tail (or last block)
                if (n != 0 && variant == 2) values.front() = far;                             // the first block
                bvec<T> v(std::span<const T>{values});
                if (n != 0 && variant == 3) {  // a write-back block
                    const std::size_t at = rng() % n;
                    v.set(at, far);
                    values[at] = far;
                }
                check(v, values);
                if (::testing::Test::HasFatalFailure()) return;
                // The whole-column answers come from the hull, exact over the sealed blocks of a
                // column built in one go (or sealed): their smallest and largest key.
                v.seal();
                const std::size_t sealed = n / block_values * block_values;
                const auto& hull = v.core().sealed_keys_hull();
                if (sealed == 0) {
                    EXPECT_FALSE(hull.known());
                } else {
                    const auto [lo, hi] = std::minmax_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(sealed));
                    const std::uint32_t bias = std::is_signed_v<T> ? 0x80000000u : 0u;
                    ASSERT_TRUE(hull.known());
                    EXPECT_EQ(hull.min_key, std::bit_cast<std::uint32_t>(*lo) ^ bias);
                    EXPECT_EQ(hull.max_key, std::bit_cast<std::uint32_t>(*hi) ^ bias);
                }
                check(v, values);
                if (::testing::Test::HasFatalFailure()) return;
            }
        }
    }
}

}  // namespace
