// Sorted delta blocks answered by binary search (src/ops/scan_sorted.hpp) against plain loops:
// non-decreasing columns with long runs of one value across the 64-position checkpoint windows,
// small and large steps, a smallest step above 0, values up to the type's top and (int32)
// across zero, sizes not a multiple of 2048 (the tail is kept as values: a vector's sealed
// blocks are whole); every interval test
// through the public scans, and each block's answer from scan_sorted_delta itself, on every
// SIMD path.
#include "test_support.hpp"

#include "ops/scan_sorted.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/scan.hpp>
#include <bitplane/vector.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::block_values;

enum class steps { runs, small, large, above_zero, near_top };

const char* name_of(steps s) {
    switch (s) {
        case steps::runs: return "runs";
        case steps::small: return "small";
        case steps::large: return "large";
        case steps::above_zero: return "above_zero";
        case steps::near_top: return "near_top";
    }
    return "?";
}

// Non-decreasing values (in T's order) of the given steps.
template <class T>
std::vector<T> sorted_values(steps kind, std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    using lim = std::numeric_limits<T>;
    std::int64_t x = kind == steps::near_top ? std::int64_t{lim::max()} - std::int64_t{40} * static_cast<std::int64_t>(n)
                     : std::is_signed_v<T>   ? -std::int64_t{20} * static_cast<std::int64_t>(n)
                                             : std::int64_t{1000};
    std::vector<T> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        out.push_back(static_cast<T>(x));
        switch (kind) {
            case steps::runs: x += rng() % 97 == 0 ? 1 + static_cast<std::int64_t>(rng() % 5) : 0; break;  // runs of ~100
            case steps::small: x += static_cast<std::int64_t>(rng() % 4); break;
            case steps::large: x += static_cast<std::int64_t>(rng() % 60000); break;
            case steps::above_zero: x += 3 + static_cast<std::int64_t>(rng() % 3); break;
            case steps::near_top: x += static_cast<std::int64_t>(rng() % 40); break;
        }
    }
    return out;
}

// Values to test with: every window's edge values and their neighbours, each block's first
// and last, the extremes, and random ones (present or not).
template <class T>
std::vector<T> probes_of(const std::vector<T>& values, std::uint64_t seed) {
    using lim = std::numeric_limits<T>;
    std::vector<T> out = {lim::min(), lim::max(), T(0)};
    for (std::size_t i = 0; i < values.size(); i += 64) {
        for (const std::size_t at : {i, std::min(values.size(), i + 64) - 1}) {
            out.push_back(values[at]);
            out.push_back(static_cast<T>(values[at] - 1));
            out.push_back(static_cast<T>(values[at] + 1));
        }
    }
    std::mt19937_64 rng(seed);
    for (int k = 0; k < 8 && !values.empty(); ++k) out.push_back(values[rng() % values.size()]);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    // Every third one, and the extremes: the scans below run each on every path.
    std::vector<T> kept;
    for (std::size_t i = 0; i < out.size(); ++i)
        if (i % 3 == 0 || out[i] == lim::min() || out[i] == lim::max()) kept.push_back(out[i]);
    return kept;
}

template <class T>
std::vector<std::uint64_t> passing(const std::vector<T>& values, T lo, T hi, bool negate) {
    std::vector<std::uint64_t> out;
    for (std::size_t i = 0; i < values.size(); ++i)
        if ((lo <= values[i] && values[i] <= hi) != negate) out.push_back(i);
    return out;
}

std::vector<std::uint64_t> positions_of(const bitplane::bitset& s) {
    std::vector<std::uint64_t> out;
    for (const std::uint64_t p : s) out.push_back(p);
    return out;
}

// Every sealed block that takes the sorted way, against the plain loop over its values; returns
// how many did.
template <class T>
std::size_t check_blocks(const bitplane::vector<T>& v, const std::vector<T>& values, T lo, T hi, bool negate) {
    using bitplane::detail::scan_test;
    const auto x = std::bit_cast<std::uint32_t>(lo), y = std::bit_cast<std::uint32_t>(hi);
    const scan_test test = negate ? bitplane::detail::scan_ne(x, std::is_signed_v<T>)
                                  : bitplane::detail::scan_range(x, y, std::is_signed_v<T>);
    std::size_t sorted = 0;
    for (std::size_t b = 0; b < v.core().sealed_block_count(); ++b) {
        bitplane::detail::sorted_answer answer;
        if (!bitplane::detail::scan_sorted_delta(v.core(), b, test, answer)) continue;
        ++sorted;
        const std::size_t first = b * block_values, n = std::min(values.size() - first, std::size_t{block_values});
        std::uint32_t expected = 0;
        bitplane::plane bits{};
        answer.write(bits);
        for (std::size_t i = 0; i < n; ++i) {
            const bool pass = (lo <= values[first + i] && values[first + i] <= hi) != negate;
            expected += pass;
            EXPECT_EQ(pass, ((bits[i / 32] >> (i % 32)) & 1u) != 0) << "block " << b << ", position " << i;
        }
        for (std::size_t i = n; i < block_values; ++i)
            EXPECT_EQ(0u, (bits[i / 32] >> (i % 32)) & 1u) << "block " << b << ", bit " << i << " past the block";
        EXPECT_EQ(expected, answer.count()) << "block " << b;
        EXPECT_EQ(n, answer.length) << "block " << b;
        if (::testing::Test::HasFailure()) return sorted;
    }
    return sorted;
}

template <class T>
void check_sorted(steps kind, std::size_t n) {
    const std::vector<T> values = sorted_values<T>(kind, n, case_seed("scan-sorted", static_cast<std::uint64_t>(kind), n));
    SCOPED_TRACE(std::string(name_of(kind)) + ", " + std::to_string(n) + " values");
    const bitplane::vector<T> v{std::span<const T>(values)};
    std::size_t sorted = 0;
    const std::vector<T> probes = probes_of(values, case_seed("scan-sorted-probes", n));
    for (std::size_t k = 0; k < probes.size(); ++k) {
        const T x = probes[k], y = probes[(k * 7 + 3) % probes.size()];
        const T lo = std::min(x, y), hi = std::max(x, y);
        SCOPED_TRACE("probe " + std::to_string(x) + ", range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
        sorted += check_blocks(v, values, x, x, false);
        sorted += check_blocks(v, values, x, x, true);
        sorted += check_blocks(v, values, lo, hi, false);
        if (::testing::Test::HasFailure()) return;
        on_every_path([&] {
            const std::vector<std::uint64_t> eq = passing(values, x, x, false);
            EXPECT_EQ(eq.size(), bitplane::count_eq(v, x));
            EXPECT_EQ(eq, positions_of(bitplane::find_eq(v, x)));
            EXPECT_EQ(passing(values, x, x, true), positions_of(bitplane::find_ne(v, x)));
            const std::vector<std::uint64_t> in = passing(values, lo, hi, false);
            EXPECT_EQ(in.size(), bitplane::count_range(v, lo, hi));
            EXPECT_EQ(in, positions_of(bitplane::find_range(v, lo, hi)));
            EXPECT_EQ(passing(values, std::numeric_limits<T>::min(), x, false), positions_of(bitplane::find_le(v, x)));
            EXPECT_EQ(passing(values, x, std::numeric_limits<T>::max(), false), positions_of(bitplane::find_ge(v, x)));
        });
        if (::testing::Test::HasFailure()) return;
    }
    // The shapes are delta-encoded (runs of one value: as sparse delta blocks, which go
    // another way): the sorted way must have been taken, or nothing here tested it.
    if (n >= block_values && kind != steps::runs) {
        EXPECT_GT(sorted, 0u) << "no block took the sorted way";
    }
}

template <class T>
void check_all() {
    for (const steps kind : {steps::runs, steps::small, steps::large, steps::above_zero, steps::near_top}) {
        for (const std::size_t n : {std::size_t{3 * block_values + 777}, std::size_t{block_values}, std::size_t{65}}) {
            check_sorted<T>(kind, n);
            if (::testing::Test::HasFailure()) return;
        }
    }
}

TEST(ScanSorted, DeltaBlocksMatchPlainLoopsEveryPath) {
    BITPLANE_SEED_TRACE();
    check_all<std::uint32_t>();
    if (HasFailure()) return;
    check_all<std::int32_t>();
}

}  // namespace
