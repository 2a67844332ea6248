// Sparse block pairs (issue #15): the all-pairs comparison of two positions lists
// (block_pairs.hpp, its portable and AVX2 chunk functions) against a scalar reference, with
// garbage after the lists that must not match; then AND, ANDNOT, AND-count, OR and XOR of sets
// whose blocks are positions (every size pair from the scalar loop through the vector compare
// to bit probes, inline payloads of one to four positions, lists crossing 32-lane chunks),
// runs, raw, empty and full, against std::set references, on every SIMD path, at sizes 1,
// 2047, 2048, 2049 and across summary words.
#include "test_support.hpp"

#include "bitset/bitset_core.hpp"
#include "bitset/block_pairs.hpp"

#include <bitplane/bitset.hpp>
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

using bitplane_test::on_every_path;

using bitplane::bitset;
using bitplane::block_values;
using bitplane::detail::block_kind;
using pos_set = std::set<std::uint64_t>;

// n distinct sorted positions below 2048, sharing about `overlap` of them with `other`.
std::vector<std::uint16_t> random_list(std::uint32_t n, const std::vector<std::uint16_t>& other, double overlap,
                                       std::mt19937_64& rng) {
    std::set<std::uint16_t> s;
    if (n >= 2 && rng() % 4 == 0) s = {0, 2047};  // the block's ends
    std::bernoulli_distribution take(overlap);
    for (const std::uint16_t v : other)
        if (s.size() < n && take(rng)) s.insert(v);
    while (s.size() < n) s.insert(static_cast<std::uint16_t>(rng() % block_values));
    return {s.begin(), s.end()};
}

// A list in a buffer whose slots after it hold values of `other` (which must not match).
std::vector<std::uint16_t> with_garbage(const std::vector<std::uint16_t>& list, const std::vector<std::uint16_t>& other) {
    std::vector<std::uint16_t> out = list;
    for (std::size_t i = 0; i < 40; ++i) out.push_back(other.empty() ? 7 : other[i % other.size()]);
    return out;
}

TEST(BitsetSparse, MatchLanesAgainstScalar) {
    using namespace bitplane::detail;
    std::mt19937_64 rng(15);
    on_every_path([&] {
        const match_chunk_fn fn = match_chunk_for(bitset_kernels());
        for (int trial = 0; trial < 3000; ++trial) {
            const std::uint32_t n = 1 + static_cast<std::uint32_t>(rng() % (trial % 3 == 0 ? 127 : 40));
            const std::uint32_t m = 1 + static_cast<std::uint32_t>(rng() % (trial % 5 == 0 ? 127 : 40));
            const std::vector<std::uint16_t> y = random_list(m, {}, 0, rng);
            const std::vector<std::uint16_t> x = random_list(n, y, (trial % 4) / 3.0, rng);
            const std::vector<std::uint16_t> xs = with_garbage(x, y), ys = with_garbage(y, x);
            std::vector<std::uint16_t> and_ref, andnot_ref;
            std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(and_ref));
            std::set_difference(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(andnot_ref));
            SCOPED_TRACE("n " + std::to_string(n) + " m " + std::to_string(m));
            lane_masks lanes;
            const std::uint32_t chunks = match_lanes(xs.data(), n, ys.data(), m, lanes, fn);
            ASSERT_EQ(chunks, (n + 31) / 32);
            for (std::uint32_t i = 0; i < n; ++i)
                ASSERT_EQ((lanes.mask[i / 32] >> (i % 32)) & 1u, std::binary_search(y.begin(), y.end(), x[i]) ? 1u : 0u) << i;
            if (n % 32 != 0) {
                ASSERT_EQ(lanes.mask[n / 32] >> (n % 32), 0u);
            }
            ASSERT_EQ(count_lanes(lanes, chunks), and_ref.size());
            std::vector<std::uint16_t> out(n + 16);
            out.resize(keep_lanes<true>(xs.data(), n, lanes, out.data()));
            ASSERT_EQ(out, and_ref);
            out.assign(n + 16, 0);
            out.resize(keep_lanes<false>(xs.data(), n, lanes, out.data()));
            ASSERT_EQ(out, andnot_ref);
            // The entry points that also pick the scalar loop or decline (bit probes).
            std::uint32_t found = 0, kept = 0;
            if (count_position_pairs(xs.data(), n, ys.data(), m, fn, found)) {
                EXPECT_EQ(found, and_ref.size());
            } else {
                EXPECT_FALSE(pairwise_pays(std::max(n, m), std::min(n, m)));
            }
            out.assign(n + m + 16, 0);
            if (filter_position_pairs<true>(xs.data(), n, ys.data(), m, fn, out.data(), kept)) {
                out.resize(kept);
                EXPECT_EQ(out, and_ref);
            }
            out.assign(n + 16, 0);
            if (filter_position_pairs<false>(xs.data(), n, ys.data(), m, fn, out.data(), kept)) {
                out.resize(kept);
                EXPECT_EQ(out, andnot_ref);
            }
        }
    });
}

// A set of `size` bits: block b holds counts[b % counts.size()] random positions (0: empty;
// -1: full; -2: runs; -3: raw; positions share about `overlap` with `other`'s block).
pos_set make_blocks(std::uint64_t size, const std::vector<int>& counts, const pos_set& other, double overlap,
                    std::mt19937_64& rng) {
    pos_set out;
    const std::uint64_t blocks = (size + block_values - 1) / block_values;
    for (std::uint64_t b = 0; b < blocks; ++b) {
        const std::uint64_t begin = b * block_values, len = std::min<std::uint64_t>(block_values, size - begin);
        const int c = counts[b % counts.size()];
        if (c == -1) {
            for (std::uint64_t i = 0; i < len; ++i) out.insert(begin + i);
        } else if (c == -2) {  // 1..4 runs, one touching the block's end
            for (int r = 0, runs = 1 + static_cast<int>(rng() % 4); r < runs; ++r) {
                const std::uint64_t from = rng() % len, to = r == 0 ? len : std::min(len, from + 1 + rng() % 300);
                for (std::uint64_t i = from; i < to; ++i) out.insert(begin + i);
            }
        } else if (c == -3) {
            for (std::uint64_t i = 0; i < len; ++i)
                if (rng() % 2) out.insert(begin + i);
        } else {
            const auto want = std::min<std::uint64_t>(static_cast<std::uint64_t>(c), len);
            std::vector<std::uint64_t> theirs;
            for (auto it = other.lower_bound(begin); it != other.end() && *it < begin + len; ++it) theirs.push_back(*it);
            std::uint64_t placed = 0;
            std::bernoulli_distribution take(overlap);
            for (const std::uint64_t p : theirs)
                if (placed < want && take(rng) && out.insert(p).second) ++placed;
            while (placed < want)
                if (out.insert(begin + rng() % len).second) ++placed;
        }
    }
    return out;
}

bitset make_set(const pos_set& s, std::uint64_t size) {
    const std::vector<std::uint64_t> p(s.begin(), s.end());
    return bitset::from_positions(p, size);
}

std::vector<std::uint64_t> to_vec(const pos_set& s) { return {s.begin(), s.end()}; }

void check_ops(const pos_set& ra, const pos_set& rb, std::uint64_t size) {
    const bitset a = make_set(ra, size), b = make_set(rb, size);
    pos_set both, minus, either, odd;
    std::set_intersection(ra.begin(), ra.end(), rb.begin(), rb.end(), std::inserter(both, both.end()));
    std::set_difference(ra.begin(), ra.end(), rb.begin(), rb.end(), std::inserter(minus, minus.end()));
    std::set_union(ra.begin(), ra.end(), rb.begin(), rb.end(), std::inserter(either, either.end()));
    std::set_symmetric_difference(ra.begin(), ra.end(), rb.begin(), rb.end(), std::inserter(odd, odd.end()));
    const bitset x = a & b, y = andnot(a, b), u = a | b, v = a ^ b;
    ASSERT_EQ(x.to_positions(), to_vec(both)) << "AND";
    ASSERT_EQ(y.to_positions(), to_vec(minus)) << "ANDNOT";
    ASSERT_EQ(u.to_positions(), to_vec(either)) << "OR";
    ASSERT_EQ(v.to_positions(), to_vec(odd)) << "XOR";
    // Stored exactly as the set built from the result's positions (the encoding it chooses).
    EXPECT_EQ(x, make_set(both, size));
    EXPECT_EQ(y, make_set(minus, size));
    EXPECT_EQ(u, make_set(either, size));
    EXPECT_EQ(v, make_set(odd, size));
    EXPECT_EQ(bitplane::and_count(a, b), both.size());
    EXPECT_EQ(bitplane::and_count(b, a), both.size());
}

// The kinds of the full-length blocks of a set made by make_blocks (-1 full, 0 empty: none).
void expect_kinds(const bitset& s, const std::vector<int>& counts, std::uint64_t size) {
    const auto& c = s.core();
    std::size_t entry = 0;
    for (std::size_t b = 0; b < c.block_count(); ++b) {
        const auto& w = c.words()[b / 64];
        const bool stored = ((w.nonempty & ~w.full) >> (b % 64)) & 1;
        const int k = counts[b % counts.size()];
        if ((b + 1) * block_values <= size && k > 0) {
            ASSERT_TRUE(stored) << b;
            const block_kind want =
                static_cast<std::uint32_t>(k) < bitplane::detail::thresholds::bitset_positions_max_count ? block_kind::positions
                                                                                                       : block_kind::raw;
            EXPECT_EQ(c.entries()[entry].kind, want) << "block " << b << " of " << k << " positions";
        }
        entry += stored;
    }
}

TEST(BitsetSparse, PositionsPairsEverySize) {
    // Sizes of positions blocks around every switch: the scalar loop (product <= 24), inline
    // payloads (<= 4), one vector (<= 8), 16/32-lane chunk ends, bit probes, the positions
    // limit (127) and raw just above it (128).
    const std::vector<int> sizes{1, 2, 3, 4, 5, 8, 9, 12, 16, 17, 20, 31, 32, 33, 48, 64, 65, 100, 127, 128};
    std::mt19937_64 rng(1515);
    on_every_path([&] {
        for (const double overlap : {0.0, 0.3, 1.0}) {
            // Block i of a has sizes[i % 20] positions, of b sizes[(i / 20) % 20]: 400 blocks,
            // every pair of sizes once.
            std::vector<int> ca, cb;
            for (std::size_t i = 0; i < sizes.size() * sizes.size(); ++i) {
                ca.push_back(sizes[i % sizes.size()]);
                cb.push_back(sizes[i / sizes.size()]);
            }
            const std::uint64_t size = ca.size() * block_values;
            const pos_set rb = make_blocks(size, cb, {}, 0, rng);
            const pos_set ra = make_blocks(size, ca, rb, overlap, rng);
            SCOPED_TRACE("overlap " + std::to_string(overlap));
            expect_kinds(make_set(ra, size), ca, size);
            expect_kinds(make_set(rb, size), cb, size);
            check_ops(ra, rb, size);
            check_ops(rb, ra, size);
        }
    });
}

TEST(BitsetSparse, MixedKindsAndEdgeSizes) {
    // positions (few, many), runs (-2), raw (-3), full (-1), empty (0), paired every way.
    const std::vector<int> kinds{3, 20, 100, -2, -3, -1, 0, 1};
    std::mt19937_64 rng(2049);
    on_every_path([&] {
        for (const std::uint64_t size : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{2047}, std::uint64_t{2048},
                                         std::uint64_t{2049}, std::uint64_t{65 * 2048 + 1000}}) {
            SCOPED_TRACE("size " + std::to_string(size));
            for (std::size_t shift = 0; shift < kinds.size(); ++shift) {
                std::vector<int> ca = kinds, cb;
                for (std::size_t i = 0; i < kinds.size(); ++i) cb.push_back(kinds[(i + shift) % kinds.size()]);
                const pos_set rb = make_blocks(size, cb, {}, 0, rng);
                const pos_set ra = make_blocks(size, ca, rb, 0.5, rng);
                check_ops(ra, rb, size);
            }
        }
    });
}

TEST(BitsetSparse, ResultsTurnEmptyOrShrink) {
    // Equal sets: AND keeps every block as it is, ANDNOT and XOR empty it; disjoint sets: AND
    // empty; subsets: ANDNOT keeps the difference only.
    std::mt19937_64 rng(7);
    on_every_path([&] {
        const std::uint64_t size = 200 * block_values + 77;
        const std::vector<int> counts{1, 4, 5, 20, 33, 90, 127};
        const pos_set a = make_blocks(size, counts, {}, 0, rng);
        pos_set sub;
        for (const auto p : a)
            if (rng() % 2) sub.insert(p);
        pos_set shifted;  // disjoint: every position moved by one where free
        for (const auto p : a)
            if (p + 1 < size && !a.count(p + 1)) shifted.insert(p + 1);
        check_ops(a, a, size);
        check_ops(a, sub, size);
        check_ops(sub, a, size);
        check_ops(a, shifted, size);
        const bitset x = make_set(a, size);
        EXPECT_EQ(bitplane::and_count(x, x), a.size());
        EXPECT_EQ(andnot(x, x).count(), 0u);
        EXPECT_EQ((x & make_set(shifted, size)).count(), 0u);
    });
}

}  // namespace
