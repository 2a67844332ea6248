// AND, ANDNOT, AND-count and the relations (intersects, is_subset, jaccard) of bitsets against
// std::vector<bool> references, on every pair of stored block kinds (positions, runs, raw, and
// the empty and full blocks that are not stored), each block built with contents that make
// bitsets store it in the kind meant (checked through core()), on every SIMD path, at sizes
// 0, 1, 2047, 2048, 2049 and across summary words with a partial last block. Results must also
// be stored exactly as a bitset built from their positions (operator== compares the bytes).
#include "test_support.hpp"

#include "bitset/bitset_core.hpp"
#include "bitset/bitset_kernels.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/error.hpp>
#include <bitplane/simd.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::bitset;
using bitplane::block_values;
using bitplane::detail::block_kind;
using ref_bits = std::vector<bool>;

// What a block is made of. `single` and `few` are positions blocks of 1 and 3 bits (the short
// paths), `probe` positions of 100 bits (bit probes), `edge` positions at the block's ends.
enum class fill { empty, full, single, few, probe, edge, runs, runs_long, raw, raw_sparse, count_ };
constexpr int fills = static_cast<int>(fill::count_);

const char* name_of(fill f) {
    static const char* names[] = {"empty", "full", "single", "few", "probe", "edge", "runs", "runs_long", "raw", "raw_sparse"};
    return names[static_cast<int>(f)];
}

// The kind a stored block of this fill has (or none for empty/full).
bool expected_kind(fill f, block_kind& kind) {
    switch (f) {
        case fill::empty:
        case fill::full: return false;
        case fill::single:
        case fill::few:
        case fill::probe:
        case fill::edge: kind = block_kind::positions; return true;
        case fill::runs:
        case fill::runs_long: kind = block_kind::runs; return true;
        case fill::raw:
        case fill::raw_sparse: kind = block_kind::raw; return true;
        case fill::count_: break;
    }
    return false;
}

// Sets bits [begin, begin + len) of `bits` as `f` says (random within the kind).
void fill_block(ref_bits& bits, std::size_t begin, std::size_t len, fill f, std::mt19937_64& rng) {
    auto set_random = [&](std::size_t n) {  // n distinct isolated random bits (n runs of one)
        std::size_t placed = 0;
        while (placed < n) {
            const std::size_t i = rng() % len;
            if (bits[begin + i]) continue;
            if ((i > 0 && bits[begin + i - 1]) || (i + 1 < len && bits[begin + i + 1])) continue;
            bits[begin + i] = true;
            ++placed;
        }
    };
    switch (f) {
        case fill::empty: break;
        case fill::full:
            for (std::size_t i = 0; i < len; ++i) bits[begin + i] = true;
            break;
        case fill::single: set_random(1); break;
        case fill::few: set_random(std::min<std::size_t>(3, len / 2)); break;
        case fill::probe:
            for (std::size_t i = rng() % 3; i < len && i < 300; i += 3) bits[begin + i] = true;  // 100 isolated bits
            break;
        case fill::edge:
            bits[begin] = true;
            bits[begin + len - 1] = true;
            if (len > 4) bits[begin + len / 2] = true;
            break;
        case fill::runs: {  // 1 .. 3 runs of up to 400 bits
            const std::size_t runs = 1 + rng() % 3;
            for (std::size_t r = 0; r < runs; ++r) {
                const std::size_t from = rng() % (len > 16 ? len - 16 : 1), to = std::min(len, from + 8 + rng() % 400);
                for (std::size_t i = from; i < to; ++i) bits[begin + i] = true;
            }
            if (bits[begin] && std::all_of(bits.begin() + static_cast<std::ptrdiff_t>(begin),
                                           bits.begin() + static_cast<std::ptrdiff_t>(begin + len), [](bool b) { return b; }))
                bits[begin + len / 2] = false;
            break;
        }
        case fill::runs_long:  // one run up to the block's end (bit 2047 set), one from its start
            for (std::size_t i = len / 3; i < len; ++i) bits[begin + i] = true;
            for (std::size_t i = 0; i < len / 5; ++i) bits[begin + i] = true;
            break;
        case fill::raw: {
            std::bernoulli_distribution coin(0.5);
            for (std::size_t i = 0; i < len; ++i) bits[begin + i] = coin(rng);
            break;
        }
        case fill::raw_sparse:  // 128 .. 199 isolated bits: raw just above positions' limit
            set_random(std::min<std::size_t>(len / 4, 128 + rng() % 72));
            break;
        case fill::count_: break;
    }
}

std::vector<std::uint64_t> positions_of(const ref_bits& bits) {
    std::vector<std::uint64_t> out;
    for (std::size_t i = 0; i < bits.size(); ++i)
        if (bits[i]) out.push_back(i);
    return out;
}

bitset make_set(const ref_bits& bits) { return bitset::from_positions(positions_of(bits), bits.size()); }

// Asserts that every full-length block of `s` holds the kind its fill means.
void expect_kinds(const bitset& s, const std::vector<fill>& fills_of, std::size_t n) {
    const auto& c = s.core();
    std::size_t entry = 0;
    for (std::size_t b = 0; b < c.block_count(); ++b) {
        const auto& w = c.words()[b / 64];
        const bool nonempty = (w.nonempty >> (b % 64)) & 1, full = (w.full >> (b % 64)) & 1;
        const bool stored = nonempty && !full;
        const fill f = fills_of[b];
        if ((b + 1) * block_values <= n) {
            SCOPED_TRACE("block " + std::to_string(b) + " " + name_of(f));
            block_kind kind{};
            if (expected_kind(f, kind)) {
                EXPECT_TRUE(stored);
                if (stored) {
                    EXPECT_EQ(c.entries()[entry].kind, kind);
                }
            } else {
                EXPECT_FALSE(stored);
                EXPECT_EQ(full, f == fill::full);
            }
        }
        entry += stored;
    }
}

ref_bits apply_ref(const ref_bits& a, const ref_bits& b, char op) {
    ref_bits out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) out[i] = op == '&' ? (a[i] && b[i]) : (a[i] && !b[i]);
    return out;
}

void check_pair(const ref_bits& ra, const ref_bits& rb) {
    const bitset a = make_set(ra), b = make_set(rb);
    const ref_bits and_ref = apply_ref(ra, rb, '&'), andnot_ref = apply_ref(ra, rb, '-');
    const bitset x = a & b, y = andnot(a, b);
    ASSERT_EQ(x.to_positions(), positions_of(and_ref)) << "AND";
    ASSERT_EQ(y.to_positions(), positions_of(andnot_ref)) << "ANDNOT";
    EXPECT_EQ(x, make_set(and_ref)) << "AND result not stored canonically";
    EXPECT_EQ(y, make_set(andnot_ref)) << "ANDNOT result not stored canonically";
    const std::uint64_t both = positions_of(and_ref).size();
    EXPECT_EQ(bitplane::and_count(a, b), both);
    EXPECT_EQ(bitplane::and_count(b, a), both);
    // Relations.
    EXPECT_EQ(bitplane::intersects(a, b), both != 0);
    EXPECT_EQ(bitplane::intersects(b, a), both != 0);
    EXPECT_EQ(bitplane::is_subset(a, b), positions_of(andnot_ref).empty());
    EXPECT_EQ(bitplane::is_subset(b, a), positions_of(apply_ref(rb, ra, '-')).empty());
    EXPECT_TRUE(bitplane::is_subset(x, a));
    EXPECT_TRUE(bitplane::is_subset(x, b));
    EXPECT_TRUE(bitplane::is_subset(a, a));
    const std::uint64_t na = a.count(), nb = b.count(), either = na + nb - both;
    const double j = either == 0 ? 1.0 : static_cast<double>(both) / static_cast<double>(either);
    EXPECT_DOUBLE_EQ(bitplane::jaccard(a, b), j);
    // In place.
    bitset c = a;
    c &= b;
    EXPECT_EQ(c, x);
    c = a;
    c.subtract(b);
    EXPECT_EQ(c, y);
}

// Every pair of fills, once each, block by block, in sets of `n` bits (fills cycle if fewer
// blocks than pairs; the last block may be short).
void check_every_pair(std::size_t n, std::uint64_t salt) {
    const std::size_t blocks = (n + block_values - 1) / block_values;
    for (std::size_t start = 0; start < fills * fills; start += std::max<std::size_t>(blocks, 1)) {
        ref_bits ra(n), rb(n);
        std::vector<fill> fa(blocks), fb(blocks);
        std::mt19937_64 rng(case_seed("and-pairs", n, salt, start));
        for (std::size_t b = 0; b < blocks; ++b) {
            const std::size_t pair = (start + b) % (fills * fills);
            fa[b] = static_cast<fill>(pair / fills);
            fb[b] = static_cast<fill>(pair % fills);
            const std::size_t begin = b * block_values, len = std::min(n - begin, block_values);
            fill_block(ra, begin, len, fa[b], rng);
            fill_block(rb, begin, len, fb[b], rng);
        }
        const bitset a = make_set(ra), b = make_set(rb);
        expect_kinds(a, fa, n);
        expect_kinds(b, fb, n);
        SCOPED_TRACE("n=" + std::to_string(n) + " first pair " + std::to_string(start));
        check_pair(ra, rb);
        check_pair(rb, ra);
        if (::testing::Test::HasFatalFailure()) return;
        if (blocks == 0) return;
    }
}

TEST(BitsetAnd, EveryPairOfBlockKindsOnEveryPath) {
    BITPLANE_SEED_TRACE();
    on_every_path([] {
        for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2047}, std::size_t{2048},
                                    std::size_t{2049}, std::size_t{100 * 2048}, std::size_t{130 * 2048 + 77}}) {
            check_every_pair(n, 0);
            if (::testing::Test::HasFatalFailure()) return;
        }
    });
}

TEST(BitsetAnd, RandomFillsAgainstStdSet) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("and-random"));
    for (int round = 0; round < (quick_mode() ? 4 : 20); ++round) {
        const std::size_t n = 1 + rng() % (200 * 2048);
        const std::size_t blocks = (n + block_values - 1) / block_values;
        ref_bits ra(n), rb(n);
        for (std::size_t b = 0; b < blocks; ++b) {
            const std::size_t begin = b * block_values, len = std::min(n - begin, block_values);
            fill_block(ra, begin, len, static_cast<fill>(rng() % fills), rng);
            fill_block(rb, begin, len, static_cast<fill>(rng() % fills), rng);
        }
        SCOPED_TRACE("round " + std::to_string(round) + " n=" + std::to_string(n));
        const bitset a = make_set(ra), b = make_set(rb);
        std::set<std::uint64_t> sa, sb, expected;
        for (auto p : positions_of(ra)) sa.insert(p);
        for (auto p : positions_of(rb)) sb.insert(p);
        std::set_intersection(sa.begin(), sa.end(), sb.begin(), sb.end(), std::inserter(expected, expected.end()));
        const std::vector<std::uint64_t> got = (a & b).to_positions();
        ASSERT_EQ(std::set<std::uint64_t>(got.begin(), got.end()), expected);
        EXPECT_EQ(bitplane::and_count(a, b), expected.size());
        check_pair(ra, rb);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

// Raw blocks whose payloads follow each other in the arena are AND-counted as spans; sets
// edited with set() (payloads moved to the arena's end) break the spans at any block.
TEST(BitsetAnd, AndCountOverBrokenSpans) {
    BITPLANE_SEED_TRACE();
    on_every_path([] {
        const std::size_t n = 300 * 2048 + 5;
        std::mt19937_64 rng(case_seed("and-spans"));
        ref_bits ra(n), rb(n);
        std::bernoulli_distribution coin(0.5);
        for (std::size_t i = 0; i < n; ++i) {
            ra[i] = coin(rng);
            rb[i] = coin(rng);
        }
        bitset a = make_set(ra), b = make_set(rb);
        for (int k = 0; k < 200; ++k) {
            const std::size_t p = rng() % n;
            const bool v = coin(rng);
            (k % 2 ? a : b).set(p, v);
            (k % 2 ? ra : rb)[p] = v;
        }
        EXPECT_EQ(bitplane::and_count(a, b), positions_of(apply_ref(ra, rb, '&')).size());
        check_pair(ra, rb);
    });
}

TEST(BitsetAnd, Relations) {
    const std::size_t n = 5 * 2048 + 3;
    bitset none(n), all(n, true);
    bitset one = bitset::from_positions(std::vector<std::uint64_t>{4000}, n);
    bitset two = bitset::from_positions(std::vector<std::uint64_t>{4000, n - 1}, n);
    EXPECT_FALSE(bitplane::intersects(none, all));
    EXPECT_TRUE(bitplane::intersects(one, all));
    EXPECT_TRUE(bitplane::intersects(one, two));
    EXPECT_TRUE(bitplane::is_subset(none, one));
    EXPECT_TRUE(bitplane::is_subset(one, two));
    EXPECT_FALSE(bitplane::is_subset(two, one));
    EXPECT_TRUE(bitplane::is_subset(two, all));
    EXPECT_FALSE(bitplane::is_subset(all, two));
    EXPECT_DOUBLE_EQ(bitplane::jaccard(none, none), 1.0);
    EXPECT_DOUBLE_EQ(bitplane::jaccard(one, two), 0.5);
    EXPECT_DOUBLE_EQ(bitplane::jaccard(none, all), 0.0);
    EXPECT_DOUBLE_EQ(bitplane::jaccard(all, all), 1.0);
    const bitset empty;
    EXPECT_FALSE(bitplane::intersects(empty, empty));
    EXPECT_TRUE(bitplane::is_subset(empty, empty));
    bitset other(n + 1);
    EXPECT_THROW((void)bitplane::intersects(one, other), bitplane::size_error);
    EXPECT_THROW((void)bitplane::is_subset(one, other), bitplane::size_error);
    EXPECT_THROW((void)bitplane::jaccard(one, other), bitplane::size_error);
}

// The in-memory choice: positions below 128 bits, raw from 128 (unless runs are smaller), never
// gap lists; a function of the contents alone.
TEST(BitsetAnd, MemoryKindsByCount) {
    auto kind_of = [](const std::vector<std::uint64_t>& p) {
        const bitset s = bitset::from_positions(p, 2048);
        EXPECT_EQ(s.core().entries().size(), 1u);
        return s.core().entries().empty() ? block_kind{} : s.core().entries()[0].kind;
    };
    std::vector<std::uint64_t> p;
    for (std::uint64_t i = 0; i < 127 * 16; i += 16) p.push_back(i);
    EXPECT_EQ(kind_of(p), block_kind::positions);  // 127 bits
    p.push_back(127 * 16);
    EXPECT_EQ(kind_of(p), block_kind::raw);  // 128 bits
    EXPECT_EQ(kind_of({10}), block_kind::positions);
    std::vector<std::uint64_t> run;
    for (std::uint64_t i = 100; i < 1900; ++i) run.push_back(i);
    EXPECT_EQ(kind_of(run), block_kind::runs);
}

}  // namespace
