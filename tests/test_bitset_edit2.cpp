// bitplane::bitset single-bit edits (issue #15, bsedit2): random set()/reset() sequences against
// std::set on every block kind and transition (empty -> positions -> raw/runs -> full and back,
// runs extended, shrunk, split and merged, new blocks in empty words, the last partial block),
// on universes 1, 2047, 2049, a summary large enough for the ones_before fix-up groups, and
// sparse 2^31 and 2^36 (2^40 would need a 256 MiB summary per copy; the same code path as
// 2^36). Interleaved with contains/count/rank/select, and at checkpoints iteration,
// to_positions, algebra, and_count, save + load, validate() and operator== against the set
// built from the same positions at once (equal sets have equal entries and bytes). Every SIMD
// path.
#include "test_support.hpp"

#include "bitset/bitset_core.hpp"

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

using namespace bitplane_test;
using bitplane::bitset;
using bitplane::block_values;
using bitplane::detail::block_kind;
using ref_set = std::set<std::uint64_t>;

std::uint64_t block_length_of(std::uint64_t n, std::uint64_t b) { return std::min<std::uint64_t>(block_values, n - b * block_values); }

bitset make_set(const ref_set& s, std::uint64_t n) {
    const std::vector<std::uint64_t> p(s.begin(), s.end());
    return bitset::from_positions(p, n);
}

void kinds_into(const bitset& s, std::set<block_kind>& seen) {
    for (const auto& e : s.core().entries()) seen.insert(e.kind);
}

// Starting shapes: d > 0 random density; d == -1: one run per block; d == -2: short runs (a
// runs block: tens of runs); d == -3: full blocks and a sprinkle.
ref_set make_ref(std::uint64_t n, double d, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    ref_set out;
    if (n == 0) return out;
    if (d > 0) {
        if (static_cast<double>(n) * d > 2e5) d = 2e5 / static_cast<double>(n);  // a std::set of 200K at most
        if (d >= 0.01) {
            std::bernoulli_distribution coin(d);
            for (std::uint64_t i = 0; i < n; ++i)
                if (coin(rng)) out.insert(i);
        } else {
            std::geometric_distribution<std::uint64_t> gap(d);
            for (std::uint64_t p = gap(rng); p < n; p += 1 + gap(rng)) out.insert(p);
        }
        return out;
    }
    const std::uint64_t blocks = (n + block_values - 1) / block_values;
    const std::uint64_t step = std::max<std::uint64_t>(1, blocks / 512);  // a few hundred blocks at most
    for (std::uint64_t b = 0; b < blocks; b += step) {
        const std::uint64_t begin = b * block_values, end = std::min(n, begin + block_values);
        if (d == -1) {
            const std::uint64_t from = begin + rng() % (end - begin), to = from + rng() % (end - from + 1);
            for (std::uint64_t i = from; i < to; ++i) out.insert(i);
        } else if (d == -2) {
            for (std::uint64_t i = begin + rng() % 40; i < end;) {
                const std::uint64_t len = 1 + rng() % 30;
                for (std::uint64_t k = i; k < std::min(end, i + len); ++k) out.insert(k);
                i += len + 1 + rng() % 30;
            }
        } else {
            if (b % 3 != 2)
                for (std::uint64_t i = begin; i < end; ++i) out.insert(i);
            else
                out.insert(begin + rng() % (end - begin));
        }
    }
    return out;
}

std::uint64_t ref_rank(const ref_set& ref, std::uint64_t pos) {
    return static_cast<std::uint64_t>(std::distance(ref.begin(), ref.lower_bound(pos)));
}

// The cheap checks after an edit at `pos`.
void check_edit(const bitset& s, const ref_set& ref, std::uint64_t n, std::uint64_t pos) {
    ASSERT_EQ(s.count(), ref.size());
    for (std::uint64_t q = pos == 0 ? 0 : pos - 1; q <= pos + 1 && q < n; ++q) ASSERT_EQ(s.contains(q), ref.count(q) != 0) << q;
}

// Everything, against the reference and against the set built from it at once.
void check_all(const bitset& s, const ref_set& ref, std::uint64_t n, std::mt19937_64& rng) {
    ASSERT_EQ(s.size(), n);
    ASSERT_EQ(s.count(), ref.size());
    const std::vector<std::uint64_t> want(ref.begin(), ref.end());
    EXPECT_EQ(s.to_positions(), want);
    std::vector<std::uint64_t> iterated;
    for (const auto p : s) iterated.push_back(p);
    EXPECT_EQ(iterated, want);
    const bitset fresh = make_set(ref, n);
    EXPECT_TRUE(s == fresh) << "edited set differs (entries/bytes) from the set built at once";
    EXPECT_TRUE(s.core().equals(fresh.core()));
    EXPECT_NO_THROW(s.validate());
    std::vector<std::byte> bytes;
    save(s, bytes);
    EXPECT_TRUE(bitplane::load_bitset(bytes) == s);
    // rank / select at random points, the ends and around set bits.
    for (int i = 0; i < 16 && n > 0; ++i) {
        const std::uint64_t p = i == 0 ? n : rng() % n;
        ASSERT_EQ(s.rank(p), static_cast<std::uint64_t>(std::lower_bound(want.begin(), want.end(), p) - want.begin())) << p;
        if (!want.empty()) {
            const std::uint64_t k = i == 1 ? want.size() - 1 : rng() % want.size();
            ASSERT_EQ(s.select(k), want[k]) << k;
            ASSERT_EQ(s.rank(want[k]), k);
        }
    }
    // Algebra against a second set of the same universe.
    const ref_set other = make_ref(n, n > 100000 ? 0.0005 : 0.01, rng());
    const bitset t = make_set(other, n);
    std::vector<std::uint64_t> o(other.begin(), other.end()), r_and, r_or, r_xor, r_andnot;
    std::set_intersection(want.begin(), want.end(), o.begin(), o.end(), std::back_inserter(r_and));
    std::set_union(want.begin(), want.end(), o.begin(), o.end(), std::back_inserter(r_or));
    std::set_symmetric_difference(want.begin(), want.end(), o.begin(), o.end(), std::back_inserter(r_xor));
    std::set_difference(want.begin(), want.end(), o.begin(), o.end(), std::back_inserter(r_andnot));
    EXPECT_EQ((s & t).to_positions(), r_and);
    EXPECT_EQ((s | t).to_positions(), r_or);
    EXPECT_EQ((s ^ t).to_positions(), r_xor);
    EXPECT_EQ(andnot(s, t).to_positions(), r_andnot);
    EXPECT_EQ(and_count(s, t), r_and.size());
}

// A position to edit: uniform, next to a set bit (run ends: merge, split, extend), or in one of
// a few hot blocks (so blocks change kind).
std::uint64_t pick(const ref_set& ref, std::uint64_t n, const std::vector<std::uint64_t>& hot, std::mt19937_64& rng) {
    switch (rng() % 3) {
        case 0: return rng() % n;
        case 1: {
            if (ref.empty()) return rng() % n;
            auto it = ref.lower_bound(rng() % n);
            if (it == ref.end()) it = ref.begin();
            const std::uint64_t p = *it + (rng() % 5) - 2;  // wraps for *it < 2: caught below
            return p < n ? p : *it;
        }
        default: {
            const std::uint64_t base = hot[rng() % hot.size()];
            return std::min(n - 1, base + rng() % block_values);
        }
    }
}

void random_edits(std::uint64_t n, double d, int ops, int every, std::uint64_t seed) {
    SCOPED_TRACE("universe " + std::to_string(n) + ", shape " + std::to_string(d));
    std::mt19937_64 rng(seed);
    ref_set ref = make_ref(n, d, seed + 1);
    bitset s = make_set(ref, n);
    std::vector<std::uint64_t> hot;
    for (int i = 0; i < 3; ++i) hot.push_back((rng() % ((n + block_values - 1) / block_values)) * block_values);
    hot.push_back((n - 1) / block_values * block_values);  // the last (maybe partial) block
    for (int i = 0; i < ops; ++i) {
        const std::uint64_t pos = pick(ref, n, hot, rng);
        const bool value = (rng() & 1) != 0;
        s.set(pos, value);
        if (value) ref.insert(pos); else ref.erase(pos);
        ASSERT_NO_FATAL_FAILURE(check_edit(s, ref, n, pos));
        if ((i + 1) % every == 0) {
            ASSERT_NO_FATAL_FAILURE(check_all(s, ref, n, rng));
        }
    }
    ASSERT_NO_FATAL_FAILURE(check_all(s, ref, n, rng));
}

// ---- every bit of a block, one at a time ------------------------------------------------------

// Block `b` of an n-bit universe filled in random order, then emptied in another, with stored
// neighbours (entries before and after move); checked against the set built at once at each
// threshold and every few steps; the block takes every kind it can.
void fill_and_empty(std::uint64_t n, std::uint64_t b, std::uint64_t seed) {
    SCOPED_TRACE("universe " + std::to_string(n) + ", block " + std::to_string(b));
    std::mt19937_64 rng(seed);
    ref_set ref;
    const std::uint64_t blocks = (n + block_values - 1) / block_values;
    for (std::uint64_t k = 0; k < blocks; k += std::max<std::uint64_t>(1, blocks / 7))
        if (k != b) ref.insert(k * block_values + rng() % block_length_of(n, k));
    bitset s = make_set(ref, n);
    const std::uint64_t begin = b * block_values, len = block_length_of(n, b);
    std::vector<std::uint64_t> order(len);
    for (std::uint64_t i = 0; i < len; ++i) order[i] = begin + i;
    std::set<block_kind> seen;
    for (const bool value : {true, false}) {
        std::shuffle(order.begin(), order.end(), rng);
        for (std::uint64_t i = 0; i < len; ++i) {
            s.set(order[i], value);
            if (value) ref.insert(order[i]); else ref.erase(order[i]);
            ASSERT_NO_FATAL_FAILURE(check_edit(s, ref, n, order[i]));
            kinds_into(s, seen);
            const std::uint64_t in_block = value ? i + 1 : len - i - 1;
            if (in_block % 257 == 0 || (in_block >= 126 && in_block <= 130) || in_block + 4 >= len || in_block <= 2) {
                ASSERT_NO_FATAL_FAILURE(check_all(s, ref, n, rng));
            }
        }
    }
    if (len == block_values) {
        EXPECT_TRUE(seen.count(block_kind::positions) && seen.count(block_kind::raw) && seen.count(block_kind::runs))
            << "kinds seen: " << seen.size();
    }
    EXPECT_FALSE(seen.count(block_kind::gaps));
}

TEST(BitsetEdit2, FillAndEmptyEveryKind) {
    on_every_path([] {
        fill_and_empty(2049, 0, case_seed("edit2-fill", 1));
        fill_and_empty(2049, 1, case_seed("edit2-fill", 2));  // the one-bit last block
        fill_and_empty(5 * 2048 + 700, 2, case_seed("edit2-fill", 3));
        fill_and_empty(5 * 2048 + 700, 5, case_seed("edit2-fill", 4));  // partial last block
        // A summary of 65 words: the ones_before fix-up groups are in use.
        const std::uint64_t big = (std::uint64_t{1} << 23) + 1234;
        fill_and_empty(big, 2100, case_seed("edit2-fill", 5));
    });
}

TEST(BitsetEdit2, RandomEditsSmallUniverses) {
    on_every_path([] {
        for (const std::uint64_t n : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{2047}, std::uint64_t{2048},
                                      std::uint64_t{2049}, std::uint64_t{3 * 2048 + 17}})
            for (const double d : {0.001, 0.05, 0.3, 0.97, -1.0, -2.0, -3.0})
                random_edits(n, d, 600, 150, case_seed("edit2-small", n * 10 + static_cast<std::uint64_t>(d * 100 + 500)));
    });
}

TEST(BitsetEdit2, RandomEditsManyWords) {
    const std::uint64_t n = (std::uint64_t{1} << 23) + 1234;  // 4097 blocks, 65 summary words
    on_every_path([&] {
        for (const double d : {0.0005, 0.02, -1.0, -2.0, -3.0})
            random_edits(n, d, 1200, 600, case_seed("edit2-many", static_cast<std::uint64_t>(d * 1e4 + 1e5)));
    });
}

TEST(BitsetEdit2, RandomEditsSparseWide) {
    // 2^31: 16384 summary words (fix-up groups of 128); 2^36: 2^19 words.
    for (const std::uint64_t n : {std::uint64_t{1} << 31, (std::uint64_t{1} << 31) + 5, std::uint64_t{1} << 36})
        random_edits(n, 1.0 / 4096, 1500, 750, case_seed("edit2-wide", n % 1000003));
}

// Every empty word gets its first block, in random word order (entries inserted before and after).
TEST(BitsetEdit2, NewBlocksInEmptyWords) {
    const std::uint64_t n = 200 * 64 * block_values + 99;
    std::mt19937_64 rng(case_seed("edit2-words", 1));
    ref_set ref;
    bitset s(n);
    std::vector<std::uint64_t> words(201);
    for (std::uint64_t w = 0; w < words.size(); ++w) words[w] = w;
    std::shuffle(words.begin(), words.end(), rng);
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::uint64_t pos = std::min(n - 1, words[i] * 64 * block_values + rng() % (64 * block_values));
        s.set(pos);
        ref.insert(pos);
        ASSERT_NO_FATAL_FAILURE(check_edit(s, ref, n, pos));
        if (i % 40 == 0) {
            ASSERT_NO_FATAL_FAILURE(check_all(s, ref, n, rng));
        }
    }
    for (std::size_t i = 0; i < words.size(); i += 2) {  // half of them cleared again
        const std::uint64_t pos = *ref.lower_bound(std::min(n - 1, words[i] * 64 * block_values));
        s.reset(pos);
        ref.erase(pos);
        ASSERT_NO_FATAL_FAILURE(check_edit(s, ref, n, pos));
    }
    ASSERT_NO_FATAL_FAILURE(check_all(s, ref, n, rng));
}

// Copies carry their fix-ups; edits to one leave the other as it was; range edits and the
// operators (which build fresh cores) after single-bit edits keep rank and select exact.
TEST(BitsetEdit2, CopiesRangesAndOperatorsAfterEdits) {
    const std::uint64_t n = (std::uint64_t{1} << 23) + 1234;
    std::mt19937_64 rng(case_seed("edit2-copy", 1));
    ref_set ref = make_ref(n, 0.01, 7);
    bitset s = make_set(ref, n);
    for (int i = 0; i < 300; ++i) {
        const std::uint64_t pos = rng() % n;
        s.set(pos);
        ref.insert(pos);
    }
    const ref_set ref_copy = ref;
    const bitset copy = s;
    for (int i = 0; i < 300; ++i) {
        const std::uint64_t pos = rng() % n;
        s.reset(pos);
        ref.erase(pos);
    }
    ASSERT_NO_FATAL_FAILURE(check_all(copy, ref_copy, n, rng));
    ASSERT_NO_FATAL_FAILURE(check_all(s, ref, n, rng));
    // Ranges within one or two blocks (edited in place) and longer ones (the operators).
    for (int i = 0; i < 40; ++i) {
        const std::uint64_t begin = rng() % n;
        const std::uint64_t end = std::min(n, begin + (i % 2 ? rng() % 3000 : rng() % 100000));
        switch (i % 3) {
            case 0:
                s.add_range(begin, end);
                for (std::uint64_t p = begin; p < end; ++p) ref.insert(p);
                break;
            case 1:
                s.remove_range(begin, end);
                ref.erase(ref.lower_bound(begin), ref.lower_bound(end));
                break;
            default:
                s.flip_range(begin, end);
                for (std::uint64_t p = begin; p < end; ++p)
                    if (!ref.erase(p)) ref.insert(p);
                break;
        }
        const std::uint64_t pos = rng() % n;
        s.set(pos);
        ref.insert(pos);
        ASSERT_EQ(s.rank(pos), ref_rank(ref, pos));
        ASSERT_EQ(s.count_range(begin, end), ref_rank(ref, end) - ref_rank(ref, begin));
    }
    ASSERT_NO_FATAL_FAILURE(check_all(s, ref, n, rng));
    s |= copy;
    for (const auto p : ref_copy) ref.insert(p);
    for (int i = 0; i < 50; ++i) {
        const std::uint64_t pos = rng() % n;
        s.set(pos, i % 2 == 0);
        if (i % 2 == 0) ref.insert(pos); else ref.erase(pos);
    }
    ASSERT_NO_FATAL_FAILURE(check_all(s, ref, n, rng));
}

}  // namespace
