// Presence filters (include/bitplane/detail/block_summary.hpp: presence_filter): a sealed
// block whose keys span fewer than thresholds::presence_max_key_span values, with at least
// 1/presence_min_absent_share of them absent, keeps a bitmap of the keys it holds, and the
// equality lane (src/ops/equality_lane.hpp) skips it for a target it lacks. Checked here:
// - every filter kept says exactly which keys its block holds (against a std::set per block),
//   and blocks that qualify have one (else the skip would be untested);
// - count_eq / find_eq / find_ne against a plain loop on every path, for every key around each
//   block's [min, max], uint32 and int32 (negative keys), sizes not multiples of 2048;
// - a value written into a block (in place, into a shared block, through the write-back block
//   and after its flush), compact() after many writes, resize() and load(save()) never leave a
//   stale filter: the value written is then found.
#include "scan_equality_check.hpp"
#include "test_support.hpp"

#include "codec/thresholds.hpp"

#include <bitplane/scan.hpp>
#include <bitplane/serialize.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace {

using bitplane_test::case_seed;
using bitplane_test::check_equality_against_loop;
using bitplane_test::on_every_path;
namespace th = bitplane::detail::thresholds;

constexpr std::size_t bv = bitplane::block_values;

template <class T>
std::uint32_t key_of(T x) {
    return std::bit_cast<std::uint32_t>(x) ^ (std::is_signed_v<T> ? 0x80000000u : 0u);
}

// One block of `count` values drawn from `choices` keys spread over `span` values from `low`
// (categorical: a few codes of a wider range), each block its own set.
template <class T>
void append_categorical(std::vector<T>& out, T low, std::uint32_t span, std::size_t choices, std::size_t count,
                        std::mt19937_64& rng) {
    std::vector<T> codes;
    for (std::size_t i = 0; i < choices; ++i) codes.push_back(static_cast<T>(low + static_cast<T>(rng() % span)));
    codes.push_back(low);                                   // the span's ends, so that it is
    codes.push_back(static_cast<T>(low + static_cast<T>(span - 1)));  // exactly `span` wide
    for (std::size_t i = 0; i < count; ++i) out.push_back(codes[rng() % codes.size()]);
}

// Every sealed block's filter (but the write-back block's) against its values: a kept filter
// says exactly which keys occur; `want_some`: at least one block has a filter.
template <class T>
::testing::AssertionResult filters_match(const bitplane::vector<T>& v, const std::vector<T>& values, bool want_some) {
    const auto& core = v.core();
    std::size_t kept = 0;
    for (std::size_t b = 0; b < core.sealed_block_count(); ++b) {
        if (!core.write_back_values(b).empty()) continue;
        const std::uint64_t* words = core.sealed_presence(b);
        if (words == nullptr) continue;
        ++kept;
        std::set<std::uint32_t> keys;
        for (std::size_t i = b * bv; i < (b + 1) * bv; ++i) keys.insert(key_of(values[i]));
        const std::uint32_t lo = *keys.begin(), hi = *keys.rbegin();
        if (hi - lo >= th::presence_max_key_span) return ::testing::AssertionFailure() << "block " << b << ": span too wide";
        const auto& s = core.sealed_summary(b);
        if (s.min_key != lo || s.max_key != hi) return ::testing::AssertionFailure() << "block " << b << ": summary";
        for (std::uint32_t k = lo; k <= hi; ++k) {
            const std::uint32_t at = k - lo;
            const bool said = (words[at / 64] >> (at % 64)) & 1;
            if (said != keys.contains(k))
                return ::testing::AssertionFailure() << "block " << b << ": key " << k << " filter says " << said;
        }
    }
    if (want_some && kept == 0) return ::testing::AssertionFailure() << "no block kept a presence filter";
    return ::testing::AssertionSuccess();
}


// Every key from 2 below the column's smallest to 2 above its largest (spans are small).
template <class T>
void check_all_keys(const bitplane::vector<T>& v, const std::vector<T>& values) {
    if (values.empty()) return;
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    for (std::int64_t x = static_cast<std::int64_t>(*lo) - 2; x <= static_cast<std::int64_t>(*hi) + 2; ++x) {
        check_equality_against_loop(v, values, static_cast<T>(x));
        if (::testing::Test::HasFatalFailure()) return;
    }
}

// A column of categorical blocks of several spans (a filter of 1 word, 2, 4, none at the
// span bound, none where nearly every key occurs), then a partial tail.
template <class T>
std::vector<T> categorical_column(std::size_t tail, std::mt19937_64& rng) {
    std::vector<T> values;
    const T low = std::is_signed_v<T> ? static_cast<T>(-100) : static_cast<T>(1000);
    for (const std::uint32_t span : {2u, 40u, 64u, 65u, 128u, 200u, 255u, 256u, 300u})
        append_categorical<T>(values, static_cast<T>(low + static_cast<T>(rng() % 50)), span, 5, bv, rng);
    append_categorical<T>(values, low, 40u, 400, bv, rng);  // every key: no filter pays
    append_categorical<T>(values, low, 100u, 3, tail, rng);
    return values;
}

template <class T>
class PresenceFilterTest : public ::testing::Test {};
using value_types = ::testing::Types<std::uint32_t, std::int32_t>;
TYPED_TEST_SUITE(PresenceFilterTest, value_types);

TYPED_TEST(PresenceFilterTest, ScansAgainstPlainLoopOnEveryPath) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    on_every_path([&] {
        std::mt19937_64 rng(case_seed("presence-scans", static_cast<std::uint64_t>(bitplane::active_simd_path())));
        for (const std::size_t tail : {std::size_t{0}, std::size_t{1}, bv - 1, std::size_t{777}}) {
            SCOPED_TRACE("tail " + std::to_string(tail));
            const std::vector<T> values = categorical_column<T>(tail, rng);
            const bitplane::vector<T> v{std::span<const T>(values)};
            ASSERT_TRUE(filters_match(v, values, true));
            v.validate();
            check_all_keys(v, values);
        }
        const std::vector<T> none;
        const bitplane::vector<T> empty{std::span<const T>(none)};
        check_equality_against_loop(empty, none, T{0});
    });
}

TYPED_TEST(PresenceFilterTest, WrittenValuesAreFoundOnEveryPath) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    on_every_path([&] {
        std::mt19937_64 rng(case_seed("presence-writes", static_cast<std::uint64_t>(bitplane::active_simd_path())));
        std::vector<T> values = categorical_column<T>(333, rng);
        // Two equal blocks at the end (one shared entry): a write into one copies it.
        const std::vector<T> twin(values.begin(), values.begin() + bv);
        const std::size_t tail = values.size() % bv;
        values.resize(values.size() - tail);
        values.insert(values.end(), twin.begin(), twin.end());
        values.insert(values.end(), twin.begin(), twin.end());
        bitplane::vector<T> v{std::span<const T>(values)};
        ASSERT_TRUE(filters_match(v, values, true));
        const std::size_t blocks = values.size() / bv;
        for (int round = 0; round < 40; ++round) {
            SCOPED_TRACE("round " + std::to_string(round));
            // A key absent from the block but inside its [min, max], at a block edge or inside.
            const std::size_t b = round % 4 == 0 ? blocks - 1 : rng() % blocks;
            const std::size_t at = b * bv + (round % 3 == 0 ? 0 : round % 3 == 1 ? bv - 1 : rng() % bv);
            const auto [lo, hi] = std::minmax_element(values.begin() + static_cast<std::ptrdiff_t>(b * bv),
                                                      values.begin() + static_cast<std::ptrdiff_t>((b + 1) * bv));
            T x = *lo;
            for (T k = *lo; k <= *hi; ++k) {
                if (std::find(values.begin() + static_cast<std::ptrdiff_t>(b * bv),
                              values.begin() + static_cast<std::ptrdiff_t>((b + 1) * bv), k) ==
                    values.begin() + static_cast<std::ptrdiff_t>((b + 1) * bv)) {
                    x = k;
                    break;
                }
                if (k == *hi) break;
            }
            values[at] = x;
            v.set(at, x);
            check_equality_against_loop(v, values, x);  // through the write-back block
            if (round % 2 == 0) v.seal();  // flushed (and compacted)
            check_equality_against_loop(v, values, x);
            ASSERT_TRUE(filters_match(v, values, false));
        }
        v.seal();
        v.validate();
        ASSERT_TRUE(filters_match(v, values, true));
        check_all_keys(v, values);
        // Shrunk to a partial block, grown again with the block's values.
        v.resize(values.size() - bv - 5);
        values.resize(values.size() - bv - 5);
        v.validate();
        check_all_keys(v, values);
        // Saved and loaded: filters made again from the values.
        std::vector<std::byte> file;
        bitplane::save(v, file);
        const bitplane::vector<T> loaded = bitplane::load<T>(std::span<const std::byte>(file));
        loaded.validate();
        ASSERT_TRUE(filters_match(loaded, values, true));
        check_all_keys(loaded, values);
    });
}

// A copy shares its blocks (and their filters' entries) until written: a value written into
// the copy is found there and not in the original, whose filters stay as they were.
TYPED_TEST(PresenceFilterTest, CopiesWrittenApartOnEveryPath) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    on_every_path([&] {
        std::mt19937_64 rng(case_seed("presence-copies", static_cast<std::uint64_t>(bitplane::active_simd_path())));
        const std::vector<T> values = categorical_column<T>(bv - 1, rng);
        const bitplane::vector<T> original{std::span<const T>(values)};
        ASSERT_TRUE(filters_match(original, values, true));
        for (const std::size_t b : {std::size_t{0}, std::size_t{3}}) {
            bitplane::vector<T> copy = original;
            std::vector<T> changed = values;
            // A key inside block b's [min, max] that the block lacks (the filter says absent).
            const auto first = changed.begin() + static_cast<std::ptrdiff_t>(b * bv);
            const auto [lo, hi] = std::minmax_element(first, first + static_cast<std::ptrdiff_t>(bv));
            T x = *lo;
            for (T k = *lo; k < *hi; ++k) {
                if (std::find(first, first + static_cast<std::ptrdiff_t>(bv), k) == first + static_cast<std::ptrdiff_t>(bv)) {
                    x = k;
                    break;
                }
            }
            const std::size_t at = b * bv + bv / 2;
            changed[at] = x;
            copy.set(at, x);
            check_equality_against_loop(copy, changed, x);
            check_equality_against_loop(original, values, x);
            copy.seal();
            copy.validate();
            ASSERT_TRUE(filters_match(copy, changed, true));
            check_equality_against_loop(copy, changed, x);
            ASSERT_TRUE(filters_match(original, values, true));
            check_equality_against_loop(original, values, x);
        }
    });
}

}  // namespace
