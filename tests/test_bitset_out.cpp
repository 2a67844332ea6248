// Positions out of a bitset (bitset_out.hpp, bitset_out_avx2.cpp): to_positions into 32- and
// 64-bit buffers, the vector form, and the iterator's whole-block refill, against a std::set
// reference on every SIMD path. Shapes aim at the writers' edges: positions blocks of every
// count around the 8- and 32-position steps (inline ones of 1..4), runs of every length around
// 8 and 16, raw blocks, full blocks, empty summary words, partial last blocks; buffers exactly
// count() long (no room for the writers' overshoot), longer (nothing past count() written) and
// shorter (size_error); payloads at the arena's end and arenas with garbage (after set());
// iterator chunks that end exactly at 256 positions; a 2^33 universe (u64 positions, the 32-bit
// form refused, iterator chunks limited to 2^32 offsets).
#include "test_support.hpp"

#include "bitset/bitset_core.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/error.hpp>
#include <bitplane/simd.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace {

using bitplane_test::on_every_path;

using bitplane::bitset;
using bitplane::block_values;
using bitplane::detail::block_kind;
using positions = std::vector<std::uint64_t>;

// One block (base, len) of shape s:
// 0 empty, 1 full, 2 k positions (k = 1 .. 127, spread), 3 runs of length r (1 .. 40),
// 4 random 50% (raw), 5 random 3% (raw or positions), 6 one run to the block's end,
// 7 positions at the block's last bits.
void add_block(std::set<std::uint64_t>& ref, std::uint64_t base, std::uint32_t len, int shape, std::mt19937_64& rng) {
    auto add = [&](std::uint64_t p) {
        if (p < len) ref.insert(base + p);
    };
    switch (shape) {
        case 0: break;
        case 1: for (std::uint32_t p = 0; p < len; ++p) add(p); break;
        case 2: {
            const std::uint32_t k = 1 + static_cast<std::uint32_t>(rng() % 127);
            for (std::uint32_t i = 0; i < k; ++i) add(rng() % len);
            break;
        }
        case 3: {
            const std::uint32_t r = 1 + static_cast<std::uint32_t>(rng() % 40);
            for (std::uint32_t p = static_cast<std::uint32_t>(rng() % 30); p < len; p += r + 1 + static_cast<std::uint32_t>(rng() % 200))
                for (std::uint32_t q = 0; q < r; ++q) add(p + q);
            break;
        }
        case 4: for (std::uint32_t p = 0; p < len; ++p) if (rng() & 1) add(p); break;
        case 5: for (std::uint32_t p = 0; p < len; ++p) if (rng() % 33 == 0) add(p); break;
        case 6: for (std::uint32_t p = len / 2; p < len; ++p) add(p); break;
        default: add(len - 1); add(len - 2); add(len - 64); break;
    }
}

bitset build(const std::set<std::uint64_t>& ref, std::uint64_t size) {
    const positions p(ref.begin(), ref.end());
    return bitset::from_positions(p, size);
}

::testing::AssertionResult check(const bitset& s, const std::set<std::uint64_t>& ref) {
    const positions want(ref.begin(), ref.end());
    if (s.count() != want.size()) return ::testing::AssertionFailure() << "count " << s.count();
    // The vector form.
    if (s.to_positions() != want) return ::testing::AssertionFailure() << "to_positions() differs";
    // 64-bit: exact, and longer with sentinels that must stay.
    {
        positions exact(want.size(), 77);
        if (s.to_positions(std::span<std::uint64_t>(exact)) != want.size() || exact != want)
            return ::testing::AssertionFailure() << "to_positions(span<u64>) differs";
        positions longer(want.size() + 40, 0xDEAD);
        s.to_positions(std::span<std::uint64_t>(longer));
        for (std::size_t i = 0; i < longer.size(); ++i)
            if (longer[i] != (i < want.size() ? want[i] : 0xDEAD))
                return ::testing::AssertionFailure() << "u64 buffer slot " << i << " = " << longer[i];
    }
    // 32-bit, where the universe allows.
    if (s.size() <= (std::uint64_t{1} << 32)) {
        std::vector<std::uint32_t> exact(want.size(), 77), longer(want.size() + 40, 0xBEEF);
        if (s.to_positions(std::span<std::uint32_t>(exact)) != want.size())
            return ::testing::AssertionFailure() << "to_positions(span<u32>) count";
        for (std::size_t i = 0; i < want.size(); ++i)
            if (exact[i] != want[i]) return ::testing::AssertionFailure() << "u32 position " << i;
        s.to_positions(std::span<std::uint32_t>(longer));
        for (std::size_t i = 0; i < longer.size(); ++i)
            if (longer[i] != (i < want.size() ? static_cast<std::uint32_t>(want[i]) : 0xBEEFu))
                return ::testing::AssertionFailure() << "u32 buffer slot " << i << " = " << longer[i];
    }
    // The iterator, whole and from seeks.
    positions got;
    for (const std::uint64_t p : s) got.push_back(p);
    if (got != want) return ::testing::AssertionFailure() << "iteration differs (" << got.size() << " positions)";
    std::mt19937_64 rng(s.count() + s.size());
    std::vector<std::uint64_t> targets = {0, s.size()};
    for (std::uint64_t b = 0; b * block_values < s.size() && b < 200; ++b)
        for (std::uint64_t d : {0, 1, 2047, 2048}) targets.push_back(b * block_values + d);
    for (int k = 0; k < 100 && s.size() > 0; ++k) targets.push_back(rng() % s.size());
    for (const std::uint64_t t : targets) {
        auto it = s.seek(t);
        auto r = ref.lower_bound(t);
        for (int steps = 0; steps < 600 && r != ref.end(); ++steps, ++it, ++r)
            if (it == s.end() || *it != *r) return ::testing::AssertionFailure() << "seek(" << t << ") step " << steps;
        if (r == ref.end() && it != s.end()) return ::testing::AssertionFailure() << "seek(" << t << ") not at end";
    }
    return ::testing::AssertionSuccess();
}

TEST(BitsetOut, EveryShapeAndSize) {
    on_every_path([] {
        for (const std::uint64_t size : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{2047}, std::uint64_t{2048},
                                         std::uint64_t{2049}, std::uint64_t{65535}, std::uint64_t{65536},
                                         std::uint64_t{65537}, std::uint64_t{64 * 2048 * 3 + 777}}) {
            for (int only = -1; only < 8; ++only) {
                SCOPED_TRACE("size " + std::to_string(size) + " shape " + std::to_string(only));
                std::mt19937_64 rng(size * 31 + static_cast<std::uint64_t>(only + 1));
                std::set<std::uint64_t> ref;
                for (std::uint64_t b = 0; b * block_values < size; ++b) {
                    const auto len = static_cast<std::uint32_t>(std::min<std::uint64_t>(block_values, size - b * block_values));
                    add_block(ref, b * block_values, len, only >= 0 ? only : static_cast<int>(rng() % 8), rng);
                }
                EXPECT_TRUE(check(build(ref, size), ref));
            }
        }
        const bitset empty(0);
        EXPECT_TRUE(check(empty, {}));
        EXPECT_TRUE(check(bitset(5000), {}));
    });
}

// Positions blocks of every count 1..127 (the 8- and 32-wide steps, inline ones), each alone,
// then all in one set; and runs blocks of every run length 1..40.
TEST(BitsetOut, EveryPositionsCountAndRunLength) {
    on_every_path([] {
        std::mt19937_64 rng(7);
        std::set<std::uint64_t> all;
        const std::uint64_t size = 130 * block_values;
        for (std::uint32_t k = 1; k <= 127; ++k) {
            std::set<std::uint64_t> one;
            while (one.size() < k) one.insert((k - 1) * block_values + rng() % block_values);
            all.insert(one.begin(), one.end());
            const bitset s = build(one, size);
            ASSERT_EQ(s.core().entries().size(), 1u);
            ASSERT_EQ(s.core().entries()[0].kind, block_kind::positions);
            ASSERT_TRUE(check(s, one)) << k << " positions";
        }
        ASSERT_TRUE(check(build(all, size), all));
        std::set<std::uint64_t> runs;
        for (std::uint32_t r = 1; r <= 40; ++r)  // 30 runs a block: runs from r = 3 on (positions below)
            for (std::uint32_t p = 5, n = 0; n < 30; p += r + 1 + static_cast<std::uint32_t>(rng() % 20), ++n)
                for (std::uint32_t q = 0; q < r; ++q) runs.insert((r - 1) * block_values + p + q);
        const bitset s = build(runs, 40 * block_values);
        for (std::size_t i = 2; i < 40; ++i) ASSERT_EQ(s.core().entries()[i].kind, block_kind::runs) << i;
        ASSERT_TRUE(check(s, runs));
    });
}

// Iterator chunks: blocks whose counts add up to 256 exactly, one over, one block of 257.
TEST(BitsetOut, IteratorChunkEdges) {
    on_every_path([] {
        for (const std::uint32_t per : {1u, 2u, 4u, 5u, 16u, 64u, 100u, 127u, 128u, 255u, 256u, 257u, 300u}) {
            std::set<std::uint64_t> ref;
            for (std::uint64_t b = 0; b < 40; ++b)
                for (std::uint32_t i = 0; i < per; ++i) ref.insert(b * block_values + (i * 7) % block_values);
            ASSERT_TRUE(check(build(ref, 40 * block_values + 3), ref)) << per << " a block";
        }
    });
}

// Blocks far apart: empty summary words skipped, and a 2^33 universe: 64-bit positions, the
// 32-bit form refused, iterator offsets (32-bit, from the chunk's first block) kept in range.
TEST(BitsetOut, SparseAndWide) {
    on_every_path([] {
        std::set<std::uint64_t> ref = {0, 3, 2048 * 64 * 5 + 1, 2048 * 64 * 5 + 2};
        EXPECT_TRUE(check(build(ref, 2048 * 64 * 9), ref));
        const std::uint64_t wide = (std::uint64_t{1} << 32) + 1;
        std::set<std::uint64_t> far = {1, (std::uint64_t{1} << 31) + 5, std::uint64_t{1} << 32};
        EXPECT_TRUE(check(build(far, wide), far));
        const std::uint64_t huge = std::uint64_t{1} << 33;
        std::set<std::uint64_t> h = {7, 100, (std::uint64_t{1} << 32) - 1, std::uint64_t{1} << 32,
                                     (std::uint64_t{1} << 32) + 2048 * 3, huge - 1};
        const bitset s = build(h, huge);
        EXPECT_TRUE(check(s, h));
        std::vector<std::uint32_t> out32(10);
        EXPECT_THROW(s.to_positions(std::span<std::uint32_t>(out32)), bitplane::argument_error);
        EXPECT_THROW(bitset(wide).to_positions(std::span<std::uint32_t>(out32)), bitplane::argument_error);
        std::vector<std::uint32_t> fits(0);
        EXPECT_EQ(bitset(std::uint64_t{1} << 32).to_positions(std::span<std::uint32_t>(fits)), 0u);
    });
}

TEST(BitsetOut, ShortBuffersRefused) {
    std::set<std::uint64_t> ref;
    for (std::uint64_t p = 0; p < 10000; p += 3) ref.insert(p);
    const bitset s = build(ref, 10000);
    positions out64(ref.size() - 1);
    std::vector<std::uint32_t> out32(ref.size() - 1);
    EXPECT_THROW(s.to_positions(std::span<std::uint64_t>(out64)), bitplane::size_error);
    EXPECT_THROW(s.to_positions(std::span<std::uint32_t>(out32)), bitplane::size_error);
    EXPECT_THROW(s.to_positions(std::span<std::uint32_t>()), bitplane::size_error);
}

// Arenas with garbage and payloads at their end (set() and reset() rewrite blocks), checked
// after every few edits.
TEST(BitsetOut, AfterEdits) {
    on_every_path([] {
        std::mt19937_64 rng(11);
        const std::uint64_t size = 50 * block_values + 100;
        std::set<std::uint64_t> ref;
        for (std::uint64_t b = 0; b * block_values < size; ++b)
            add_block(ref, b * block_values, static_cast<std::uint32_t>(std::min<std::uint64_t>(block_values, size - b * block_values)),
                      static_cast<int>(rng() % 8), rng);
        bitset s = build(ref, size);
        for (int round = 0; round < 30; ++round) {
            for (int k = 0; k < 50; ++k) {
                const std::uint64_t p = rng() % size;
                const bool v = (rng() & 3) != 0;
                s.set(p, v);
                if (v) ref.insert(p); else ref.erase(p);
            }
            ASSERT_TRUE(check(s, ref)) << "round " << round;
        }
    });
}

// Random mixes of every shape, many sizes.
TEST(BitsetOut, RandomMixes) {
    on_every_path([] {
        std::mt19937_64 rng(99);
        for (int t = 0; t < 12; ++t) {
            const std::uint64_t size = 1 + rng() % (300 * block_values);
            std::set<std::uint64_t> ref;
            const int skew = static_cast<int>(rng() % 3);
            for (std::uint64_t b = 0; b * block_values < size; ++b) {
                const auto len = static_cast<std::uint32_t>(std::min<std::uint64_t>(block_values, size - b * block_values));
                int shape = static_cast<int>(rng() % 8);
                if (skew == 1 && rng() % 4 != 0) shape = 0;  // mostly empty: whole empty words
                if (skew == 2 && rng() % 2 != 0) shape = 2;  // mostly positions
                add_block(ref, b * block_values, len, shape, rng);
            }
            ASSERT_TRUE(check(build(ref, size), ref)) << "size " << size;
        }
    });
}

}  // namespace
