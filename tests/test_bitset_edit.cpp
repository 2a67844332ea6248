// bitplane::bitset edits (issue #15): interleaved set()/reset() against std::set on every block
// kind and across the representation thresholds (the kinds asserted through core(), the bytes
// equal to the bitset built from the same positions), range add/remove/flip/contains/count
// against a std::vector<bool> on block and summary-word edges, bulk additions from unsorted
// positions with repeats, and the edge universe sizes (0, 1, 2^16 +- 1, 2^32 +- 1, 2^64 - 1),
// on every SIMD path.
#include "bitset_test_data.hpp"
#include "test_support.hpp"

#include "bitset/bitset_core.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/error.hpp>
#include <bitplane/simd.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::bitset;
using bitplane::block_values;
using bitplane::detail::block_kind;

using bitplane_test::make_set;  // beside the std::set form below

bitset make_set(const std::set<std::uint64_t>& s, std::uint64_t n) {
    const std::vector<std::uint64_t> p(s.begin(), s.end());
    return bitset::from_positions(p, n);
}

// Random bits: density d in each block (d < 0: one run per block of random length).
ref_bits make_bits(std::size_t n, double d, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    ref_bits bits(n, false);
    if (d < 0) {
        for (std::size_t b = 0; b * block_values < n; ++b) {
            const std::size_t begin = b * block_values, end = std::min(n, begin + block_values);
            const std::size_t from = begin + rng() % (end - begin), to = from + rng() % (end - from + 1);
            for (std::size_t i = from; i < to; ++i) bits[i] = true;
        }
        return bits;
    }
    std::bernoulli_distribution coin(d);
    for (std::size_t i = 0; i < n; ++i) bits[i] = coin(rng);
    return bits;
}

std::set<block_kind> kinds_of(const bitset& s) {
    std::set<block_kind> out;
    for (const auto& e : s.core().entries()) out.insert(e.kind);
    return out;
}

// ---- set() / reset() --------------------------------------------------------------------------

// Every bit of one block set in random order, then cleared in another, with a neighbour block
// stored (so entries before and after move): after each step the set equals (bytes) the one
// built from the same positions; the block passes through every kind it can take.
TEST(BitsetEdit, SetResetAcrossThresholdsOneBlockEveryPath) {
    on_every_path([] {
        for (const std::uint64_t n : {std::uint64_t{3 * block_values}, std::uint64_t{2 * block_values + 700}}) {
            SCOPED_TRACE("n=" + std::to_string(n));
            const std::uint64_t base = (n / block_values) * block_values == n ? block_values : 2 * block_values;
            const std::uint32_t len = static_cast<std::uint32_t>(std::min<std::uint64_t>(block_values, n - base));
            std::set<std::uint64_t> ref = {5, n - 1 == base + len - 1 && base == block_values ? 2 * block_values + 3 : 7};
            bitset s = make_set(ref, n);
            std::vector<std::uint32_t> order(len);
            for (std::uint32_t i = 0; i < len; ++i) order[i] = i;
            for (const int pattern : {0, 1}) {  // random order, then ascending (runs)
                SCOPED_TRACE("pattern " + std::to_string(pattern));
                std::mt19937_64 rng(case_seed("edit-one", n, pattern));
                if (pattern == 0) std::shuffle(order.begin(), order.end(), rng);
                std::set<block_kind> seen;
                for (const std::uint32_t i : order) {
                    s.set(base + i);
                    ref.insert(base + i);
                    for (const block_kind k : kinds_of(s)) seen.insert(k);
                    ASSERT_EQ(s, make_set(ref, n)) << "after set(" << base + i << ")";
                    ASSERT_EQ(s.count(), ref.size());
                }
                EXPECT_TRUE(s.contains_range(base, base + len));
                std::shuffle(order.begin(), order.end(), rng);
                for (const std::uint32_t i : order) {
                    s.reset(base + i);
                    ref.erase(base + i);
                    for (const block_kind k : kinds_of(s)) seen.insert(k);
                    ASSERT_EQ(s, make_set(ref, n)) << "after reset(" << base + i << ")";
                }
                if (len == block_values) {
                    EXPECT_TRUE(seen.count(block_kind::positions) && seen.count(block_kind::raw))
                        << "kinds seen: " << seen.size();
                    // Memory never stores gap lists (choose_plan: positions below the raw
                    // threshold, raw above it); only files do.
                    EXPECT_FALSE(seen.count(block_kind::gaps));
                    if (pattern == 1) {
                        EXPECT_TRUE(seen.count(block_kind::runs));
                    }
                }
            }
        }
    });
}

// Interleaved set/reset on sets of every density (so every kind is edited), against std::set;
// equal bytes with from_positions at checkpoints and at the end.
TEST(BitsetEdit, InterleavedSetResetEveryShapeEveryPath) {
    const std::uint64_t n = quick_mode() ? 70 * block_values + 17 : 131 * block_values + 17;
    const double densities[] = {0.0, 0.0005, 0.003, 0.02, 0.06, 0.12, 0.3, 0.5, 0.9, 0.999, 1.0, -1.0};
    std::set<block_kind> kinds_edited;
    on_every_path([&] {
        for (const double d : densities) {
            SCOPED_TRACE("density " + std::to_string(d));
            const ref_bits bits = make_bits(n, d, case_seed("edit-shape", static_cast<std::uint64_t>(static_cast<std::int64_t>(d * 1e6) + 10)));
            std::set<std::uint64_t> ref;
            for (std::size_t i = 0; i < n; ++i)
                if (bits[i]) ref.insert(i);
            bitset s = make_set(bits);
            for (const block_kind k : kinds_of(s)) kinds_edited.insert(k);
            std::mt19937_64 rng(case_seed("edit-ops", static_cast<std::uint64_t>(static_cast<std::int64_t>(d * 1e6) + 10)));
            const int steps = quick_mode() ? 1500 : 6000;
            for (int step = 0; step < steps; ++step) {
                // Mostly a few blocks (so blocks cross kinds), sometimes anywhere, and the edges.
                std::uint64_t p;
                switch (rng() % 4) {
                    case 0: p = rng() % n; break;
                    case 1: p = (rng() % 2 ? n - 1 - rng() % 3 : rng() % 3); break;
                    default: p = (rng() % 3) * 64 * block_values % n + rng() % block_values; break;
                }
                p %= n;
                const bool value = (rng() % 100) < (d > 0.5 ? 40 : 60);
                s.set(p, value);
                if (value) ref.insert(p); else ref.erase(p);
                ASSERT_EQ(s.contains(p), value);
                if (step % 500 == 0 || step + 1 == steps) {
                    ASSERT_EQ(s.count(), ref.size());
                    ASSERT_EQ(s, make_set(ref, n)) << "step " << step;
                    s.validate();
                }
            }
            const std::vector<std::uint64_t> got = s.to_positions();
            ASSERT_TRUE(std::equal(got.begin(), got.end(), ref.begin(), ref.end()));
            for (std::uint64_t i = 0; i < n; i += 97)
                ASSERT_EQ(s.rank(i), static_cast<std::uint64_t>(std::lower_bound(got.begin(), got.end(), i) - got.begin()));
            if (!ref.empty()) {
                ASSERT_EQ(s.select(ref.size() - 1), *ref.rbegin());
            }
        }
    });
    // positions, runs, raw: every kind memory stores (gap lists only in files).
    EXPECT_EQ(kinds_edited.size(), 3u) << "the shapes must start from every block kind memory stores";
}

// ---- ranges ------------------------------------------------------------------------------------

std::vector<std::uint64_t> edges(std::uint64_t n) {
    const std::uint64_t word = 64 * block_values;
    std::vector<std::uint64_t> out = {0, 1, 2047, 2048, 2049, 4095, 4096, 3 * 2048 + 100, word - 1, word, word + 1,
                                      2 * word, 2 * word + 2047, n / 2, n - 2049, n - 2048, n - 1, n};
    std::vector<std::uint64_t> kept;
    for (const std::uint64_t e : out)
        if (e <= n) kept.push_back(e);
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    return kept;
}

TEST(BitsetEdit, RangesOnBlockAndWordEdgesEveryPath) {
    const std::uint64_t sizes[] = {0, 1, 2049, quick_mode() ? 130 * block_values + 17 : 131 * block_values + 17};
    const double densities[] = {0.0, 0.003, 0.2, 0.9, 1.0, -1.0};
    on_every_path([&] {
        for (const std::uint64_t n : sizes) {
            const std::vector<std::uint64_t> e = edges(n);
            for (const double d : densities) {
                SCOPED_TRACE("n=" + std::to_string(n) + " density " + std::to_string(d));
                const ref_bits start = make_bits(n, d, case_seed("range", n, static_cast<std::uint64_t>(static_cast<std::int64_t>(d * 1e6) + 10)));
                const bitset original = make_set(start);
                // prefix counts for count_range
                std::vector<std::uint64_t> prefix(n + 1, 0);
                for (std::uint64_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + start[i];
                for (std::size_t x = 0; x < e.size(); ++x) {
                    for (std::size_t y = x; y < e.size(); ++y) {
                        const std::uint64_t begin = e[x], end = e[y];
                        ASSERT_EQ(original.count_range(begin, end), prefix[end] - prefix[begin]) << begin << ".." << end;
                        ASSERT_EQ(original.contains_range(begin, end), prefix[end] - prefix[begin] == end - begin);
                        for (int op = 0; op < 3; ++op) {
                            // Large sets: inner ranges sampled (every other one; under a
                            // sanitizer every fourth: 158 s in the CI's ASan stage otherwise).
                            const std::size_t stride = quick_mode() ? 4 : 2;
                            if ((x + y + op) % stride != 0 && n > 10000 && !(x == 0 || y + 1 == e.size())) continue;
                            ref_bits ref = start;
                            bitset s = original;
                            for (std::uint64_t i = begin; i < end; ++i) ref[i] = op == 0 ? true : op == 1 ? false : !ref[i];
                            if (op == 0) s.add_range(begin, end);
                            if (op == 1) s.remove_range(begin, end);
                            if (op == 2) s.flip_range(begin, end);
                            ASSERT_EQ(s, make_set(ref)) << "op " << op << " [" << begin << ", " << end << ")";
                            if (op == 0) {
                                ASSERT_TRUE(s.contains_range(begin, end));
                            }
                            if (op == 1) {
                                ASSERT_EQ(s.count_range(begin, end), 0u);
                            }
                        }
                    }
                }
                bitset s = original;
                EXPECT_THROW(s.add_range(0, n + 1), bitplane::index_error);
                EXPECT_THROW(s.remove_range(n, n + 1), bitplane::index_error);
                EXPECT_THROW(s.flip_range(1, 0), bitplane::index_error);
                EXPECT_THROW((void)s.count_range(0, n + 1), bitplane::index_error);
                EXPECT_THROW((void)s.contains_range(2, 1), bitplane::index_error);
                EXPECT_EQ(s, original);
            }
        }
    });
}

// ---- bulk additions ----------------------------------------------------------------------------

TEST(BitsetEdit, AddManyUnsortedWithRepeatsEveryPath) {
    on_every_path([] {
        for (const std::uint64_t n : {std::uint64_t{1}, std::uint64_t{2049}, std::uint64_t{131 * block_values + 17}}) {
            for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{5},
                                            std::size_t{1000}, std::size_t{60000}}) {
                SCOPED_TRACE("n=" + std::to_string(n) + " count " + std::to_string(count));
                std::mt19937_64 rng(case_seed("add-many", n, count));
                const ref_bits start = make_bits(n, 0.01, case_seed("add-many-start", n));
                std::set<std::uint64_t> ref;
                for (std::uint64_t i = 0; i < n; ++i)
                    if (start[i]) ref.insert(i);
                std::vector<std::uint32_t> p32(count);
                std::vector<std::uint64_t> p64(count);
                for (std::size_t i = 0; i < count; ++i) {
                    // clustered halves: some blocks get many, repeats on purpose
                    p32[i] = static_cast<std::uint32_t>(i % 2 ? rng() % n : rng() % std::min<std::uint64_t>(n, 5000));
                    p64[i] = rng() % n;
                }
                bitset a = make_set(start), b = make_set(start);
                a.add_many(p32);
                b.add_many(p64);
                std::set<std::uint64_t> ref_a = ref, ref_b = ref;
                ref_a.insert(p32.begin(), p32.end());
                ref_b.insert(p64.begin(), p64.end());
                EXPECT_EQ(a, make_set(ref_a, n));
                EXPECT_EQ(b, make_set(ref_b, n));
                EXPECT_EQ(a.count(), ref_a.size());
                // Out of range: index_error, nothing changed.
                p64.push_back(n);
                bitset c = make_set(start);
                EXPECT_THROW(c.add_many(p64), bitplane::index_error);
                EXPECT_EQ(c, make_set(start));
            }
        }
    });
}

// ---- universe sizes ----------------------------------------------------------------------------

TEST(BitsetEdit, EdgeSizesSparse) {
    const std::uint64_t one = 1;
    const std::uint64_t sizes[] = {0, 1, (one << 16) - 1, one << 16, (one << 16) + 1, (one << 32) - 1, one << 32,
                                   (one << 32) + 1, one << 36};
    for (const std::uint64_t n : sizes) {
        SCOPED_TRACE("n=" + std::to_string(n));
        bitset s(n);
        EXPECT_EQ(s.size(), n);
        EXPECT_FALSE(s.contains(n));
        EXPECT_FALSE(s.contains(~std::uint64_t{0}));
        std::set<std::uint64_t> ref;
        for (const std::uint64_t p : {std::uint64_t{0}, n / 2, n - 1, std::uint64_t{65535}, std::uint64_t{65536},
                                      (one << 32) - 1, one << 32, n - 2049, n - 2048}) {
            if (n == 0 || p >= n) continue;
            s.set(p);
            ref.insert(p);
        }
        EXPECT_EQ(s.count(), ref.size());
        EXPECT_EQ(s, make_set(ref, n));
        const std::vector<std::uint64_t> got = s.to_positions();
        EXPECT_TRUE(std::equal(got.begin(), got.end(), ref.begin(), ref.end()));
        std::uint64_t k = 0;
        for (const std::uint64_t p : ref) {
            EXPECT_TRUE(s.contains(p));
            EXPECT_EQ(s.rank(p), k);
            EXPECT_EQ(s.select(k), p);
            ++k;
        }
        EXPECT_EQ(s.rank(n), ref.size());
        if (n > 0) {
            EXPECT_EQ(s.count_range(0, n), ref.size());
            s.add_range(n - 1, n);
            EXPECT_TRUE(s.contains(n - 1));
            if (n > 3 * block_values) {
                s.add_range(n - 3 * block_values - 5, n);  // through the algebra, up to the end
                EXPECT_TRUE(s.contains_range(n - 3 * block_values - 5, n));
                s.remove_range(n - 3 * block_values - 5, n);
                EXPECT_EQ(s.count_range(n - 3 * block_values - 5, n), 0u);
            }
            for (const std::uint64_t p : std::vector<std::uint64_t>(ref.begin(), ref.end())) s.reset(p);
            EXPECT_TRUE(s.none());
            EXPECT_EQ(s, bitset(n));
        }
        EXPECT_THROW(s.set(n), bitplane::index_error);
    }
}

TEST(BitsetEdit, ImpossibleSizesAreRefused) {
    const std::uint64_t top = ~std::uint64_t{0};
    // 2^64 - 1 bits: the block count must not wrap (it did, and contains() then crashed); the
    // summary it needs is refused with a clear error.
    EXPECT_THROW(bitset{top}, bitplane::argument_error);
    EXPECT_THROW((bitset{top, true}), bitplane::argument_error);
    EXPECT_THROW(bitset{top - 2047}, bitplane::argument_error);
    const std::vector<std::uint64_t> p = {0, top - 1};
    EXPECT_THROW((void)bitset::from_positions(p, top), bitplane::argument_error);
    EXPECT_THROW((void)bitset::from_positions({}, top), bitplane::argument_error);
    const std::uint64_t limit = std::uint64_t{1} << 46;  // the largest universe accepted
    EXPECT_THROW(bitset{limit + 1}, bitplane::argument_error);
    try {
        bitset b(top);
        FAIL() << "no error";
    } catch (const bitplane::argument_error& e) {
        EXPECT_NE(std::string(e.what()).find("summary"), std::string::npos) << e.what();
    }
}

}  // namespace
