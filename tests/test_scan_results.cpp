// Scan results used as bitsets afterwards: find_eq and find_range results (empty, full,
// sparse, dense, runs; sizes not a multiple of 2048) iterated, ANDed, ORed, XORed, counted
// and saved and loaded, against std::set references, on every SIMD path. The bitset kernels
// that count a result's blocks (stats), combine them and extract their positions differ by
// path (the AVX-512 table: VPOPCNTQ, VPCOMPRESSW), and a scan's result blocks are built by
// bitset_builder from those kernels' counts.
#include "test_support.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/scan.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using bitplane_test::case_seed;
using bitplane_test::on_every_path;
using positions = std::set<std::uint64_t>;

positions where(const std::vector<std::uint32_t>& values, std::uint32_t lo, std::uint32_t hi) {
    positions out;
    for (std::size_t i = 0; i < values.size(); ++i)
        if (values[i] >= lo && values[i] <= hi) out.insert(i);
    return out;
}

positions elements(const bitplane::bitset& b) {
    positions out;
    for (const std::uint64_t p : b) out.insert(p);
    return out;
}

// Values whose equality and range results take every block encoding: a frequent value with
// isolated exceptions (dense raw and runs of many short gaps), long runs, a rare value
// (positions), a value in a region of its own (full and empty blocks).
std::vector<std::uint32_t> make_values(std::size_t n, int kind, std::mt19937_64& rng) {
    std::vector<std::uint32_t> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        switch (kind) {
            case 0: v[i] = rng() % 64 == 0 ? static_cast<std::uint32_t>(rng() % 200) : 150u; break;  // ~98% one value
            case 1: v[i] = static_cast<std::uint32_t>((i / (1 + rng() % 700)) % 3); break;              // runs of 0, 1, 2
            case 2: v[i] = static_cast<std::uint32_t>(rng() % 2); break;                                // half and half
            case 3: v[i] = i < n / 2 ? 7u : static_cast<std::uint32_t>(rng() % 1000); break;            // full, then sparse
            default: v[i] = static_cast<std::uint32_t>(rng() % 4096); break;                            // rare values
        }
    }
    return v;
}

TEST(ScanResults, BitsetOperationsAgreeWithSetsEveryPath) {
    BITPLANE_SEED_TRACE();
    const std::size_t sizes[] = {0, 1, 2047, 2048, 2049, 5 * 2048 + 77, 40 * 2048 + 1000};
    on_every_path([&] {
        for (const std::size_t n : sizes) {
            for (int kind = 0; kind < 5; ++kind) {
                SCOPED_TRACE("size " + std::to_string(n) + " kind " + std::to_string(kind));
                std::mt19937_64 rng(case_seed("scan-results", n, static_cast<std::uint64_t>(kind)));
                const std::vector<std::uint32_t> values = make_values(n, kind, rng);
                const bitplane::vector<std::uint32_t> v(values.begin(), values.end());
                const std::uint32_t x = n == 0 ? 150u : values[rng() % n];
                const std::uint32_t lo = static_cast<std::uint32_t>(rng() % 8), hi = lo + static_cast<std::uint32_t>(rng() % 300);

                const bitplane::bitset eq = bitplane::find_eq(v, x);
                const bitplane::bitset range = bitplane::find_range(v, lo, hi);
                const positions want_eq = where(values, x, x), want_range = where(values, lo, hi);
                ASSERT_EQ(eq.size(), n);
                ASSERT_EQ(elements(eq), want_eq);
                ASSERT_EQ(elements(range), want_range);
                ASSERT_EQ(eq.count(), want_eq.size());
                ASSERT_EQ(range.count(), want_range.size());
                ASSERT_EQ(eq.to_positions(), std::vector<std::uint64_t>(want_eq.begin(), want_eq.end()));
                for (int probe = 0; probe < 20 && n != 0; ++probe) {
                    const std::uint64_t p = rng() % n;
                    ASSERT_EQ(eq.test(p), want_eq.count(p) != 0) << p;
                }

                positions want_and, want_or, want_xor;
                std::set_intersection(want_eq.begin(), want_eq.end(), want_range.begin(), want_range.end(),
                                      std::inserter(want_and, want_and.end()));
                std::set_union(want_eq.begin(), want_eq.end(), want_range.begin(), want_range.end(),
                               std::inserter(want_or, want_or.end()));
                std::set_symmetric_difference(want_eq.begin(), want_eq.end(), want_range.begin(), want_range.end(),
                                              std::inserter(want_xor, want_xor.end()));
                EXPECT_EQ(elements(eq & range), want_and);
                EXPECT_EQ(elements(eq | range), want_or);
                EXPECT_EQ(elements(eq ^ range), want_xor);
                EXPECT_EQ(bitplane::and_count(eq, range), want_and.size());
                bitplane::bitset edited = eq;
                edited |= range;
                EXPECT_EQ(elements(edited), want_or);
                EXPECT_EQ(edited, eq | range);

                std::vector<std::byte> saved;
                bitplane::save(range, saved);
                const bitplane::bitset loaded = bitplane::load_bitset(saved);
                EXPECT_EQ(loaded, range);
                EXPECT_EQ(elements(loaded), want_range);
                if (::testing::Test::HasFailure()) return;
            }
        }
    });
}

}  // namespace
