// bitplane::bitset against references: std::vector<bool> (set algebra, queries) and
// std::set<std::uint64_t> (interleaved set/reset), on random sets of densities 0.01% .. 99.99%,
// runs, mixed blocks, all-zero and all-one, at sizes 0, 1, 2047, 2048, 2049 and multi-block
// (across summary words, partial last block). Every operation, on every SIMD path; the builder
// (out of order, from threads, re-set blocks); save/load round trips; version 1 headers and
// malformed blocks rejected (hostile version 2 files: tests/test_bitset_file.cpp).
#include "bitset_test_data.hpp"
#include "test_support.hpp"

#include "bitset/bitset_core.hpp"
#include "bitset/bitset_file_v2.hpp"
#include "bitset/bitset_kernels.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/error.hpp>
#include <bitplane/serialize.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::bitset;
using bitplane::block_values;
using bytes = std::vector<std::byte>;

// ---- checking a bitset against its reference ---------------------------------------------------

::testing::AssertionResult matches(const bitset& s, const ref_bits& ref) {
    const std::vector<std::uint64_t> expected = positions_of(ref);
    if (s.size() != ref.size())
        return ::testing::AssertionFailure() << "size " << s.size() << ", expected " << ref.size();
    if (s.count() != expected.size())
        return ::testing::AssertionFailure() << "count " << s.count() << ", expected " << expected.size();
    if (s.none() != expected.empty() || s.any() == expected.empty() || s.all() != (expected.size() == ref.size()))
        return ::testing::AssertionFailure() << "none/any/all disagree with the count";
    const std::vector<std::uint64_t> got = s.to_positions();
    if (got != expected) {
        std::size_t i = 0;
        while (i < got.size() && i < expected.size() && got[i] == expected[i]) ++i;
        return ::testing::AssertionFailure() << "to_positions differs at index " << i << " (got "
                                             << (i < got.size() ? std::to_string(got[i]) : "end") << ", expected "
                                             << (i < expected.size() ? std::to_string(expected[i]) : "end") << ")";
    }
    std::vector<std::uint64_t> iterated;
    for (const std::uint64_t p : s) iterated.push_back(p);
    if (iterated != expected) return ::testing::AssertionFailure() << "iteration differs from the reference";
    // contains/test everywhere (or a sample of a large set), rank at the same positions.
    const std::size_t step = ref.size() > 20000 ? (quick_mode() ? 31 : 11) : 1;
    std::uint64_t rank = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        if (i % step == 0 || i + 1 == ref.size()) {
            if (s.contains(i) != ref[i] || s.test(i) != ref[i])
                return ::testing::AssertionFailure() << "contains(" << i << ") is " << s.contains(i);
            if (s.rank(i) != rank) return ::testing::AssertionFailure() << "rank(" << i << ") " << s.rank(i) << ", expected " << rank;
        }
        rank += ref[i];
    }
    if (s.rank(ref.size()) != expected.size()) return ::testing::AssertionFailure() << "rank(size) != count";
    if (s.contains(ref.size()) || s.contains(ref.size() + 12345)) return ::testing::AssertionFailure() << "contains past the end";
    const std::size_t kstep = expected.size() > 5000 ? expected.size() / 997 + 1 : 1;
    for (std::size_t k = 0; k < expected.size(); k += kstep)
        if (s.select(k) != expected[k])
            return ::testing::AssertionFailure() << "select(" << k << ") " << s.select(k) << ", expected " << expected[k];
    if (!expected.empty() && s.select(expected.size() - 1) != expected.back())
        return ::testing::AssertionFailure() << "select(count - 1)";
    return ::testing::AssertionSuccess();
}

ref_bits apply_ref(const ref_bits& a, const ref_bits& b, char op) {
    ref_bits out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        switch (op) {
            case '&': out[i] = a[i] && b[i]; break;
            case '|': out[i] = a[i] || b[i]; break;
            case '^': out[i] = a[i] != b[i]; break;
            case '-': out[i] = a[i] && !b[i]; break;
            case '~': out[i] = !a[i]; break;
        }
    }
    return out;
}

// ---- construction and queries ------------------------------------------------------------------

TEST(Bitset, EmptyAndFilledConstructors) {
    const bitset none;
    EXPECT_EQ(none.size(), 0u);
    EXPECT_EQ(none.count(), 0u);
    EXPECT_TRUE(none.none());
    EXPECT_TRUE(none.all());
    EXPECT_EQ(none.begin(), none.end());
    for (const std::size_t n : set_sizes()) {
        SCOPED_TRACE("n=" + std::to_string(n));
        EXPECT_TRUE(matches(bitset(n), ref_bits(n, false)));
        EXPECT_TRUE(matches(bitset(n, true), ref_bits(n, true)));
        EXPECT_EQ(bitset(n, true), make_set(ref_bits(n, true)));
        EXPECT_EQ(bitset(n), make_set(ref_bits(n, false)));
    }
}

TEST(Bitset, QueriesMatchReferenceForEveryShapeAndSize) {
    BITPLANE_SEED_TRACE();
    for (const std::size_t n : set_sizes()) {
        for (const set_shape& shape : set_shapes()) {
            SCOPED_TRACE(shape.name + " n=" + std::to_string(n));
            const ref_bits ref = make_bits(shape, n, case_seed("queries", n, density_salt(shape.density)));
            const bitset s = make_set(ref);
            ASSERT_TRUE(matches(s, ref));
        }
    }
}

TEST(Bitset, IndexErrors) {
    bitset s(5000);
    s.set(10);
    EXPECT_THROW((void)s.test(5000), bitplane::index_error);
    EXPECT_THROW(s.set(5000), bitplane::index_error);
    EXPECT_THROW(s.reset(9999), bitplane::index_error);
    EXPECT_THROW((void)s.rank(5001), bitplane::index_error);
    EXPECT_EQ(s.rank(5000), 1u);
    EXPECT_THROW((void)s.select(1), bitplane::index_error);
    EXPECT_EQ(s.select(0), 10u);
    EXPECT_FALSE(s.contains(5000));
    EXPECT_THROW((void)bitset().select(0), bitplane::index_error);
}

TEST(Bitset, FromPositionsRejectsBadInput) {
    using P = std::vector<std::uint64_t>;
    auto make = [](const P& p, std::size_t n) { return bitset::from_positions(p, n); };
    EXPECT_THROW(make({1, 3, 2}, 10), bitplane::argument_error);              // unsorted
    EXPECT_THROW(make({1, 3, 3}, 10), bitplane::argument_error);              // duplicate
    EXPECT_THROW(make({1, 10}, 10), bitplane::argument_error);                // out of range
    EXPECT_THROW(make({5, 150}, 100), bitplane::argument_error);              // past a short last block
    EXPECT_THROW(make({5, 1'000'000'000'000, 1'000'000'000'001, 3}, 100), bitplane::argument_error);
    EXPECT_THROW(make({5, 3000, 2999}, 10000), bitplane::argument_error);     // step back across blocks
    EXPECT_THROW(make({0}, 0), bitplane::argument_error);
    EXPECT_THROW(make({4096, 4096}, 10000), bitplane::argument_error);
    EXPECT_NO_THROW(make({}, 0));
    EXPECT_TRUE(matches(make({0, 2047, 2048, 4095, 4096}, 4097), [] {
        ref_bits r(4097);
        for (const std::size_t i : {0, 2047, 2048, 4095, 4096}) r[i] = true;
        return r;
    }()));
}

TEST(Bitset, IteratorIsAForwardIterator) {
    const bitset s = bitset::from_positions(std::vector<std::uint64_t>{3, 2048, 9000}, 10000);
    auto it = s.begin();
    EXPECT_EQ(*it, 3u);
    auto old = it++;
    EXPECT_EQ(*old, 3u);
    EXPECT_EQ(*it, 2048u);
    EXPECT_EQ(*++it, 9000u);
    EXPECT_EQ(++it, s.end());
    EXPECT_EQ(std::distance(s.begin(), s.end()), 3);
    static_assert(std::forward_iterator<bitset::const_iterator>);
}

// Each block is stored in the smallest of raw, positions (below 128 bits) and runs (ties: raw,
// positions, runs); gap lists are never chosen in memory (thresholds.hpp).
TEST(Bitset, BlockEncodingIsChosenBySize) {
    using bitplane::detail::block_kind;
    auto kind_of = [](const std::vector<std::uint64_t>& p, std::size_t n = 2048) {
        const bitset s = bitset::from_positions(p, n);
        EXPECT_EQ(s.core().entries().size(), 1u);
        return s.core().entries().empty() ? block_kind{} : s.core().entries()[0].kind;
    };
    EXPECT_EQ(kind_of({10}), block_kind::positions);   // gaps (1 byte) are not used in memory
    EXPECT_EQ(kind_of({300}), block_kind::positions);  // gap escape: 3 bytes vs 2
    std::vector<std::uint64_t> run(1000);
    for (std::size_t i = 0; i < run.size(); ++i) run[i] = 500 + i;
    EXPECT_EQ(kind_of(run), block_kind::runs);
    std::vector<std::uint64_t> spread;
    for (std::uint64_t i = 0; i < 2048; i += 2) spread.push_back(i);
    EXPECT_EQ(kind_of(spread), block_kind::raw);
    std::vector<std::uint64_t> some;
    for (std::uint64_t i = 0; i < 2048; i += 16) some.push_back(i);  // 128 positions: raw from 128 bits
    EXPECT_EQ(kind_of(some), block_kind::raw);
    // The complement of one bit is two runs.
    const bitset one_missing = ~bitset::from_positions(std::vector<std::uint64_t>{700}, 2048);
    ASSERT_EQ(one_missing.core().entries().size(), 1u);
    EXPECT_EQ(one_missing.core().entries()[0].kind, block_kind::runs);
    EXPECT_EQ(one_missing.count(), 2047u);
    // Empty and full blocks are not stored.
    EXPECT_TRUE(bitset(1 << 20, true).core().entries().empty());
    EXPECT_TRUE(bitset(1 << 20).core().entries().empty());
    // A short last block: raw is ceil(len / 8) bytes.
    std::vector<std::uint64_t> short_block;
    for (std::uint64_t i = 0; i < 100; i += 2) short_block.push_back(i);
    EXPECT_EQ(kind_of(short_block, 100), block_kind::raw);
}

TEST(Bitset, MemoryFollowsContents) {
    const std::size_t n = 1 << 22;
    const ref_bits sparse = make_bits({"", 0.0001}, n, 1), dense = make_bits({"", 0.5}, n, 2);
    const bitset s = make_set(sparse), d = make_set(dense);
    EXPECT_LT(s.memory_bytes(), 40'000u);
    EXPECT_GT(d.memory_bytes(), n / 8);
    EXPECT_LT(d.memory_bytes(), n / 8 + n / 8 / 10);  // raw blocks and a 16-byte entry per 256 bytes
    EXPECT_LT(bitset(n, true).memory_bytes(), 2'000u);
}

TEST(Bitset, MovedFromIsEmpty) {
    bitset a(5000, true);
    bitset b(std::move(a));
    EXPECT_EQ(b.count(), 5000u);
    EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from bitsets are empty
    EXPECT_EQ(a.count(), 0u);
    EXPECT_EQ(a.begin(), a.end());
    EXPECT_TRUE(a.to_positions().empty());
    a = b;
    EXPECT_EQ(a, b);
}

// ---- set algebra --------------------------------------------------------------------------------

void check_algebra(const ref_bits& ra, const ref_bits& rb) {
    const bitset a = make_set(ra), b = make_set(rb);
    const ref_bits and_ref = apply_ref(ra, rb, '&'), or_ref = apply_ref(ra, rb, '|'), xor_ref = apply_ref(ra, rb, '^'),
                   andnot_ref = apply_ref(ra, rb, '-'), not_ref = apply_ref(ra, rb, '~');
    const bitset x = a & b, y = a | b, z = a ^ b, w = andnot(a, b), v = ~a;
    ASSERT_TRUE(matches(x, and_ref)) << "AND";
    ASSERT_TRUE(matches(y, or_ref)) << "OR";
    ASSERT_TRUE(matches(z, xor_ref)) << "XOR";
    ASSERT_TRUE(matches(w, andnot_ref)) << "ANDNOT";
    ASSERT_TRUE(matches(v, not_ref)) << "NOT";
    EXPECT_EQ(bitplane::and_count(a, b), x.count());
    // Results are stored exactly as a bitset built from their positions (canonical blocks).
    EXPECT_EQ(x, make_set(and_ref));
    EXPECT_EQ(y, make_set(or_ref));
    EXPECT_EQ(z, make_set(xor_ref));
    EXPECT_EQ(w, make_set(andnot_ref));
    EXPECT_EQ(v, make_set(not_ref));
    // In place.
    bitset c = a;
    c &= b;
    EXPECT_EQ(c, x);
    c = a;
    c |= b;
    EXPECT_EQ(c, y);
    c = a;
    c ^= b;
    EXPECT_EQ(c, z);
    c = a;
    c.subtract(b);
    EXPECT_EQ(c, w);
    // Identities.
    EXPECT_EQ(~v, a);
    EXPECT_EQ((a & b) | (a ^ b), y);
    EXPECT_EQ(a == b, ra == rb);
}

TEST(Bitset, AlgebraBetweenEveryPairOfShapes) {
    BITPLANE_SEED_TRACE();
    const std::vector<set_shape> shapes = set_shapes();
    for (const std::size_t n : set_sizes()) {
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            for (std::size_t j = 0; j < shapes.size(); ++j) {
                if (quick_mode() && n > 10000 && (i + j) % 3 != 0) continue;
                SCOPED_TRACE(shapes[i].name + " with " + shapes[j].name + " n=" + std::to_string(n));
                const ref_bits ra = make_bits(shapes[i], n, case_seed("algebra-a", n, i, j));
                const ref_bits rb = make_bits(shapes[j], n, case_seed("algebra-b", n, i, j));
                check_algebra(ra, rb);
                if (::testing::Test::HasFatalFailure()) return;
            }
        }
    }
}

TEST(Bitset, AlgebraIsTheSameOnEverySimdPath) {
    BITPLANE_SEED_TRACE();
    const std::vector<set_shape> shapes = set_shapes();
    const std::size_t n = 40 * 2048 + 999;
    on_every_path([&] {
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            const std::size_t j = (i * 5 + 3) % shapes.size();
            SCOPED_TRACE(shapes[i].name + " with " + shapes[j].name);
            const ref_bits ra = make_bits(shapes[i], n, case_seed("paths-a", i));
            const ref_bits rb = make_bits(shapes[j], n, case_seed("paths-b", i));
            check_algebra(ra, rb);
            if (::testing::Test::HasFatalFailure()) return;
        }
    });
}

TEST(Bitset, AlgebraWithOperandsAliased) {
    const ref_bits r = make_bits({"", 0.3}, 10000, 7);
    bitset a = make_set(r);
    const bitset copy = a;
    const bitset& same = a;  // the operand is the object itself
    a &= same;
    EXPECT_EQ(a, copy);
    a |= same;
    EXPECT_EQ(a, copy);
    a ^= same;
    EXPECT_TRUE(a.none());
    EXPECT_EQ(a.size(), 10000u);
    bitset b = copy;
    b.subtract(b);
    EXPECT_TRUE(b.none());
}

TEST(Bitset, SizeErrorOnMismatchedSizes) {
    bitset a(4096), b(4097);
    EXPECT_THROW((void)(a & b), bitplane::size_error);
    EXPECT_THROW((void)(a | b), bitplane::size_error);
    EXPECT_THROW((void)(a ^ b), bitplane::size_error);
    EXPECT_THROW((void)andnot(a, b), bitplane::size_error);
    EXPECT_THROW(a &= b, bitplane::size_error);
    EXPECT_THROW(a |= b, bitplane::size_error);
    EXPECT_THROW(a ^= b, bitplane::size_error);
    EXPECT_THROW(a.subtract(b), bitplane::size_error);
    EXPECT_THROW((void)bitplane::and_count(a, b), bitplane::size_error);
    EXPECT_FALSE(a == b);
    EXPECT_EQ(a.size(), 4096u);  // unchanged by the failed operations
}

// Every byte value at every byte of a block (byte i holds i + shift): extract_positions' table
// rows and byte bases, each row in each quarter, on every path against the portable kernel.
TEST(Bitset, ExtractPositionsTakesEveryByteValueAtEveryByte) {
    using namespace bitplane::detail;
    const bitset_kernel_table& ref = portable_bitset_kernels();
    on_every_path([&] {
        const bitset_kernel_table& k = bitset_kernels();
        for (unsigned shift = 0; shift < 256; shift += 37) {
            alignas(64) unsigned char block[256];
            for (unsigned i = 0; i < 256; ++i) block[i] = static_cast<unsigned char>(i + shift);
            std::vector<std::uint16_t> p1(2048 + 8), p2(2048 + 8);
            const std::uint32_t n1 = k.extract_positions(block, p1.data());
            ASSERT_EQ(n1, ref.extract_positions(block, p2.data()));
            ASSERT_EQ(n1, 256u * 4u);  // every value once: 4 set bits a byte on average
            EXPECT_TRUE(std::equal(p1.begin(), p1.begin() + n1, p2.begin())) << "shift " << shift;
            std::fill(p1.begin(), p1.end(), 0);
            ASSERT_EQ(k.extract_sparse(block, p1.data()), n1);
            EXPECT_TRUE(std::equal(p1.begin(), p1.begin() + n1, p2.begin())) << "shift " << shift;
        }
    });
}

// The kernels of every path against the portable reference, on blocks of every density.
TEST(Bitset, BlockKernelsAgreeWithThePortableOnes) {
    BITPLANE_SEED_TRACE();
    using namespace bitplane::detail;
    const bitset_kernel_table& ref = portable_bitset_kernels();
    std::mt19937_64 rng(case_seed("kernels"));
    on_every_path([&] {
        const bitset_kernel_table& k = bitset_kernels();
        for (int round = 0; round < 300; ++round) {
            bitplane::plane a{}, b{};
            const int da = round % 7, db = (round / 7) % 7;
            for (std::size_t w = 0; w < bitplane::plane_words; ++w) {
                auto word = [&](int d) {
                    auto x = static_cast<std::uint32_t>(rng());
                    for (int t = 0; t < d; ++t) x &= static_cast<std::uint32_t>(rng());
                    return d == 6 ? ~0u : x;
                };
                a[w] = word(da);
                b[w] = word(db);
            }
            bitplane::plane o1{}, o2{};
            auto same = [&](block_stats s1, block_stats s2) {
                EXPECT_EQ(s1.count, s2.count);
                EXPECT_EQ(s1.transitions, s2.transitions);
                EXPECT_EQ(o1, o2);
                EXPECT_EQ(s1.count, popcount(o1));
                EXPECT_EQ(s1.transitions, popcount(transitions(o1)));
            };
            same(k.and_blocks(a.data(), b.data(), o1.data()), ref.and_blocks(a.data(), b.data(), o2.data()));
            same(k.or_blocks(a.data(), b.data(), o1.data()), ref.or_blocks(a.data(), b.data(), o2.data()));
            same(k.xor_blocks(a.data(), b.data(), o1.data()), ref.xor_blocks(a.data(), b.data(), o2.data()));
            same(k.andnot_blocks(a.data(), b.data(), o1.data()), ref.andnot_blocks(a.data(), b.data(), o2.data()));
            same(k.not_block(a.data(), o1.data()), ref.not_block(a.data(), o2.data()));
            o1 = a;
            o2 = a;
            same(k.stats(a.data()), ref.stats(a.data()));
            // The transitions plane too, at any alignment of the block (raw payloads in the arena).
            {
                alignas(64) unsigned char in[256 + 8];
                std::memcpy(in + 3, a.data(), 256);
                bitplane::plane t1{}, t2{};
                const block_stats s1 = k.stats_transitions(in + 3, t1.data());
                const block_stats s2 = ref.stats_transitions(a.data(), t2.data());
                EXPECT_EQ(t1, transitions(a));
                EXPECT_EQ(t2, transitions(a));
                EXPECT_EQ(s1.count, s2.count);
                EXPECT_EQ(s1.transitions, s2.transitions);
                EXPECT_EQ(s1.count, popcount(a));
                EXPECT_EQ(s1.transitions, popcount(transitions(a)));
            }
            EXPECT_EQ(k.and_count(a.data(), b.data()), ref.and_count(a.data(), b.data()));
            std::vector<std::uint16_t> p1(2048 + 8), p2(2048 + 8);
            const std::uint32_t n1 = k.extract_positions(a.data(), p1.data());
            ASSERT_EQ(n1, ref.extract_positions(a.data(), p2.data()));
            ASSERT_EQ(n1, popcount(a));
            EXPECT_TRUE(std::equal(p1.begin(), p1.begin() + n1, p2.begin()));
            // The run bounds of the block (its transitions: what a runs payload is extracted from).
            const bitplane::plane bounds = transitions(a);
            const std::uint32_t b1 = k.extract_positions(bounds.data(), p1.data());
            ASSERT_EQ(b1, ref.extract_positions(bounds.data(), p2.data()));
            ASSERT_EQ(b1, popcount(bounds));
            EXPECT_TRUE(std::equal(p1.begin(), p1.begin() + b1, p2.begin()));
            // extract_sparse, the scan builder's, on both (any density, tuned for few bits).
            std::fill(p1.begin(), p1.end(), 0);
            ASSERT_EQ(k.extract_sparse(bounds.data(), p1.data()), b1);
            EXPECT_TRUE(std::equal(p1.begin(), p1.begin() + b1, p2.begin()));
            ASSERT_EQ(k.extract_sparse(a.data(), p1.data()), n1);
            ASSERT_EQ(ref.extract_positions(a.data(), p2.data()), n1);
            EXPECT_TRUE(std::equal(p1.begin(), p1.begin() + n1, p2.begin()));
            // Unaligned operands (raw payloads sit at any offset in the arena).
            alignas(64) unsigned char buffer[2 * 256 + 8];
            std::memcpy(buffer + 1, a.data(), 256);
            std::memcpy(buffer + 259, b.data(), 256);
            EXPECT_EQ(k.and_count(buffer + 1, buffer + 259), ref.and_count(a.data(), b.data()));
        }
    });
}

// Union, symmetric difference, intersection and difference of sorted position lists, every path
// against the scalar merges.
TEST(Bitset, PositionListKernelsAgreeWithTheMerges) {
    BITPLANE_SEED_TRACE();
    using namespace bitplane::detail;
    const bitset_kernel_table& ref = portable_bitset_kernels();
    std::mt19937_64 rng(case_seed("position-kernels"));
    on_every_path([&] {
        const bitset_kernel_table& k = bitset_kernels();
        for (int round = 0; round < 2000; ++round) {
            // Sizes 0 .. 200 (around multiples of 8), overlapping or not.
            const std::uint32_t sizes[] = {0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 40, 64, 100, 191, 200};
            const std::uint32_t n = sizes[rng() % std::size(sizes)], m = sizes[rng() % std::size(sizes)];
            const std::uint32_t span = 1 + static_cast<std::uint32_t>(rng() % 2048);
            auto draw = [&](std::uint32_t count) {
                std::set<std::uint16_t> s;
                while (s.size() < std::min(count, span)) s.insert(static_cast<std::uint16_t>(rng() % span));
                std::vector<std::uint16_t> v(s.begin(), s.end());
                v.resize(v.size() + 16, 0x5555);  // the slack the kernels may overwrite
                return v;
            };
            std::vector<std::uint16_t> a = draw(n), b = draw(m);
            const auto na = static_cast<std::uint32_t>(a.size() - 16), nb = static_cast<std::uint32_t>(b.size() - 16);
            using fn = std::uint32_t (*)(const std::uint16_t*, std::uint32_t, const std::uint16_t*, std::uint32_t, std::uint16_t*);
            const std::pair<fn, fn> ops[] = {{k.union_positions, ref.union_positions},
                                             {k.xor_positions, ref.xor_positions},
                                             {k.and_positions, ref.and_positions},
                                             {k.andnot_positions, ref.andnot_positions}};
            for (std::size_t op = 0; op < std::size(ops); ++op) {
                const std::vector<std::uint16_t> a1 = a, b1 = b, a2 = a, b2 = b;
                std::vector<std::uint16_t> out(na + nb + 24), expected(na + nb + 24);
                const std::uint32_t got = ops[op].first(a1.data(), na, b1.data(), nb, out.data());
                const std::uint32_t want = ops[op].second(a2.data(), na, b2.data(), nb, expected.data());
                ASSERT_EQ(got, want) << "n=" << na << " m=" << nb << " op " << op;
                ASSERT_TRUE(std::equal(out.begin(), out.begin() + got, expected.begin())) << "op " << op;
                ASSERT_TRUE(std::is_sorted(out.begin(), out.begin() + got));
            }
        }
    });
}

// Gap lists (with escapes of every kind, 255 bytes inside an escape's gap included) decode the
// same on every path.
TEST(Bitset, GapDecodingKernelsAgree) {
    BITPLANE_SEED_TRACE();
    using namespace bitplane::detail;
    std::mt19937_64 rng(case_seed("decode-gaps"));
    on_every_path([&] {
        const bitset_kernel_table& k = bitset_kernels();
        for (int round = 0; round < 3000; ++round) {
            bitplane::plane p{};
            const int style = round % 4;
            for (std::uint32_t bit = 0; bit < 2048; ++bit) {
                const std::uint64_t r = rng() % 1000;
                const bool set = style == 0 ? r < 10 : style == 1 ? r < 3 : style == 2 ? r < 100 : (bit % 256 == 255 || bit % 511 == 0);
                if (set) p[bit / 32] |= 1u << (bit % 32);
            }
            const std::uint32_t count = popcount(p);
            if (count == 0) continue;
            std::vector<std::byte> payload(gaps_payload::max_payload_bytes(2048) + 16, std::byte{0xFF});  // slack reads 255s
            const std::uint32_t size = gaps_payload::write(p, payload.data());
            if (size >= 256) continue;  // bitsets keep gap lists below 256 bytes
            std::vector<std::uint16_t> got(count + position_slack), expected(count + position_slack);
            ASSERT_EQ(k.decode_gaps(payload.data(), size, got.data()), count);
            ASSERT_EQ(portable_bitset_kernels().decode_gaps(payload.data(), size, expected.data()), count);
            ASSERT_TRUE(std::equal(got.begin(), got.begin() + count, expected.begin()));
            std::uint32_t i = 0;
            for_each_set_bit(p, [&](std::uint32_t bit) { EXPECT_EQ(got[i++], bit); });
        }
    });
}

// ---- single bits ----------------------------------------------------------------------------------

TEST(Bitset, SetAndResetInterleavedMatchStdSet) {
    BITPLANE_SEED_TRACE();
    for (const std::size_t n : {std::size_t{1}, std::size_t{2049}, std::size_t{9 * 2048 + 100}}) {
        for (const set_shape& shape : set_shapes()) {
            SCOPED_TRACE(shape.name + " n=" + std::to_string(n));
            std::mt19937_64 rng(case_seed("set-reset", n, density_salt(shape.density)));
            const ref_bits start = make_bits(shape, n, rng());
            std::set<std::uint64_t> ref;
            for (std::size_t i = 0; i < n; ++i)
                if (start[i]) ref.insert(i);
            bitset s = make_set(start);
            const int ops = quick_mode() ? 300 : 3000;
            for (int op = 0; op < ops; ++op) {
                // Half the operations near a few hot positions, so blocks go through every kind.
                const std::uint64_t pos = (op % 2 == 0) ? rng() % n : (rng() % 4) * (n / 4) + rng() % std::min<std::size_t>(n, 300) % n;
                const std::uint64_t p = pos % n;
                const bool value = rng() % 3 != 0;
                s.set(p, value);
                if (value) ref.insert(p); else ref.erase(p);
                ASSERT_EQ(s.contains(p), value);
                ASSERT_EQ(s.count(), ref.size());
                if (op % 500 == 0) {
                    ref_bits bits(n);
                    for (const std::uint64_t q : ref) bits[q] = true;
                    ASSERT_TRUE(matches(s, bits));
                }
            }
            ref_bits bits(n);
            for (const std::uint64_t q : ref) bits[q] = true;
            ASSERT_TRUE(matches(s, bits));
            EXPECT_EQ(s, make_set(bits));  // still canonical
        }
    }
}

TEST(Bitset, ManySetsCompactTheArena) {
    BITPLANE_SEED_TRACE();
    // Gap lists that grow byte by byte move to the arena's end each time; the superseded bytes
    // are reclaimed once they pass the threshold.
    const std::size_t n = 600 * 2048;
    ref_bits ref = make_bits({"", 0.04}, n, case_seed("compact"));
    bitset s = make_set(ref);
    std::mt19937_64 rng(case_seed("compact-ops"));
    for (int op = 0; op < 20000; ++op) {
        const std::uint64_t p = rng() % n;
        s.set(p);
        ref[p] = true;
    }
    EXPECT_TRUE(matches(s, ref));
    EXPECT_EQ(s, make_set(ref));
    EXPECT_LT(s.memory_bytes(), 2 * make_set(ref).memory_bytes() + 200'000);
}

// ---- builder ------------------------------------------------------------------------------------

bitplane::plane block_of(const ref_bits& ref, std::size_t b) {
    bitplane::plane p{};
    for (std::size_t i = 0; i < block_values && b * block_values + i < ref.size(); ++i)
        if (ref[b * block_values + i]) p[i / 32] |= 1u << (i % 32);
    return p;
}

TEST(BitsetBuilder, BlocksOutOfOrderMatchFromPositions) {
    BITPLANE_SEED_TRACE();
    for (const std::size_t n : set_sizes()) {
        for (const set_shape& shape : set_shapes()) {
            SCOPED_TRACE(shape.name + " n=" + std::to_string(n));
            const ref_bits ref = make_bits(shape, n, case_seed("builder", n, density_salt(shape.density)));
            bitplane::detail::bitset_builder builder(n);
            ASSERT_EQ(builder.block_count(), (n + block_values - 1) / block_values);
            std::vector<std::size_t> order(builder.block_count());
            for (std::size_t b = 0; b < order.size(); ++b) order[b] = b;
            std::shuffle(order.begin(), order.end(), std::mt19937_64(case_seed("order", n)));
            for (const std::size_t b : order) {
                const bitplane::plane p = block_of(ref, b);
                const std::uint32_t len = bitplane::detail::block_length(n, b);
                if (bitplane::detail::popcount(p) == len && b % 2 == 0) {
                    builder.set_block_full(b);
                } else if (bitplane::detail::popcount(p) != 0 || b % 3 == 0) {
                    builder.set_block(b, p);  // empty blocks: set or left alone
                }
            }
            const bitset s = builder.finish();
            ASSERT_TRUE(matches(s, ref));
            EXPECT_EQ(s, make_set(ref));
            // The builder starts over empty.
            const bitset again = builder.finish();
            EXPECT_EQ(again, bitset(n));
        }
    }
}

// `ref` built block by block in order through bitset_builder: a valid set of those bits whose
// saved bytes are those of the same bits through from_positions (the same encodings and
// payloads).
// `s`, built from `ref`'s bits: a valid set of them whose saved bytes are those of the same
// bits through from_positions.
void expect_saves_as_from_positions(const bitset& s, const ref_bits& ref) {
    ASSERT_NO_THROW(s.validate());
    ASSERT_TRUE(matches(s, ref));
    const bitset expected = make_set(ref);
    EXPECT_EQ(s, expected);
    std::vector<std::byte> got, want;
    bitplane::save(s, got);
    bitplane::save(expected, want);
    ASSERT_EQ(got, want);
}

// How a test hands a plane to a writer: set_block, or set_block_counted with the plane's
// count (as the scans do where their kernel counted it: a sparse plane goes straight to its
// positions) or with a wrong non-zero one, which may cost time but never change the block.
enum class handing { plain, counted, miscounted };

void hand(bitplane::detail::bitset_builder::writer& out, std::size_t b, const bitplane::plane& p, handing how) {
    const auto count = static_cast<std::uint32_t>(bitplane::detail::popcount(p));
    switch (how) {
        case handing::plain: out.set_block(b, p); break;
        case handing::counted: out.set_block_counted(b, p, count); break;
        case handing::miscounted:
            if (count == 0) {
                out.set_block(b, p);  // a count of 0 says empty
            } else {
                out.set_block_counted(b, p, count % 2 == 0 ? count - 1 : count + 1);
            }
            break;
    }
}

const char* name_of(handing how) {
    return how == handing::plain ? "set_block" : how == handing::counted ? "set_block_counted" : "miscounted";
}

void expect_builder_saves_as_from_positions(const ref_bits& ref) {
    {
        bitplane::detail::bitset_builder builder(ref.size());
        for (std::size_t b = 0; b < builder.block_count(); ++b) builder.set_block(b, block_of(ref, b));
        expect_saves_as_from_positions(builder.finish(), ref);
        if (::testing::Test::HasFatalFailure()) return;
    }
    // The same blocks through one writer, as a scan's task: a block after one stored as runs
    // is counted with its transitions (stats_transitions) and its runs payload taken from them,
    // whatever it turns out to be (runs again, raw, positions, full, empty, a partial last block).
    // Also with each plane's count handed over (or a wrong one).
    for (const handing how : {handing::plain, handing::counted, handing::miscounted}) {
        SCOPED_TRACE(std::string("one writer, ") + name_of(how));
        bitplane::detail::bitset_builder builder(ref.size());
        {
            bitplane::detail::bitset_builder::writer out(builder, builder.block_count());
            for (std::size_t b = 0; b < builder.block_count(); ++b) hand(out, b, block_of(ref, b), how);
        }
        expect_saves_as_from_positions(builder.finish(), ref);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

// Dense blocks stored as runs (written from the block's transitions): 1 .. 63 runs, runs
// that touch bit 0, bit 2047 or the end of a partial last block, and the neighbouring
// encodings (64 runs: raw; all-but-one, alternating, one-bit blocks). Built in block order,
// the saved bytes equal those of from_positions (the same encodings, payloads and offsets).
TEST(BitsetBuilder, DenseBlocksWithFewRunsSaveAsFromPositions) {
    BITPLANE_SEED_TRACE();
    on_every_path([] {
        for (const std::size_t n : {std::size_t{2048}, std::size_t{5 * 2048}, std::size_t{6 * 2048 + 1000}}) {
            std::mt19937_64 rng(case_seed("dense-runs", n));
            for (int round = 0; round < 40; ++round) {
                ref_bits ref(n);
                for (std::size_t b = 0; b * block_values < n; ++b) {
                    const std::uint32_t len = bitplane::detail::block_length(n, b);
                    const std::size_t base = b * block_values;
                    const std::uint32_t pick = static_cast<std::uint32_t>(rng() % 8);
                    if (pick == 0) {  // alternating
                        for (std::uint32_t i = 0; i < len; ++i) ref[base + i] = i % 2 == 0;
                    } else if (pick == 1) {  // all but one bit, or one bit
                        const std::uint32_t at = static_cast<std::uint32_t>(rng() % len);
                        const bool ones = rng() % 2 == 0;
                        for (std::uint32_t i = 0; i < len; ++i) ref[base + i] = (i == at) != ones;
                    } else {  // ones with `holes` holes of random widths: about holes + 1 runs
                        const std::uint32_t holes = static_cast<std::uint32_t>(rng() % 66);
                        for (std::uint32_t i = 0; i < len; ++i) ref[base + i] = true;
                        for (std::uint32_t h = 0; h < holes; ++h) {
                            const std::uint32_t at = static_cast<std::uint32_t>(rng() % len);
                            const std::uint32_t width = 1 + static_cast<std::uint32_t>(rng() % 3);
                            for (std::uint32_t i = at; i < std::min(len, at + width); ++i) ref[base + i] = false;
                        }
                        if (rng() % 3 == 0) ref[base] = false;
                        if (rng() % 3 == 0) ref[base + len - 1] = false;
                    }
                }
                SCOPED_TRACE("n=" + std::to_string(n) + " round " + std::to_string(round));
                expect_builder_saves_as_from_positions(ref);
            }
        }
    });
}

// runs_of_positions (a counted sparse block's runs, SSE2) against a plain count of the
// positions that do not follow their predecessor: every length 1 .. 200 (full steps of 8 and
// tails), runs of width 1 .. 4 and lone positions, position 0 and 2047, with the slots past n
// holding what an extraction leaves there (ascending values that would extend the last run).
TEST(BitsetBuilder, RunsOfPositionsMatchAPlainCount) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("runs-of-positions"));
    for (std::uint32_t n = 1; n <= 200; ++n) {
        for (int round = 0; round < 20; ++round) {
            bitplane::detail::position_buffer<256> buffer;
            std::uint16_t* p = buffer.data();
            const std::uint32_t widest = 1 + static_cast<std::uint32_t>(rng() % 4);
            std::uint32_t at = round % 3 == 0 ? 0 : static_cast<std::uint32_t>(rng() % 8);
            for (std::uint32_t i = 0; i < n;) {
                const std::uint32_t width = 1 + static_cast<std::uint32_t>(rng() % widest);
                for (std::uint32_t k = 0; k < width && i < n; ++k, ++i) p[i] = static_cast<std::uint16_t>(at++);
                at += 1 + static_cast<std::uint32_t>(rng() % 3);
            }
            if (round % 5 == 1 && p[n - 1] < 2047) {  // the last position at 2047
                const auto shift = static_cast<std::uint16_t>(2047 - p[n - 1]);
                for (std::uint32_t i = 0; i < n; ++i) p[i] = static_cast<std::uint16_t>(p[i] + shift);
            }
            for (std::uint32_t i = n; i < n + bitplane::detail::position_slack; ++i)
                p[i] = static_cast<std::uint16_t>(p[n - 1] + 1 + (i - n));
            std::uint32_t expected = 1;
            for (std::uint32_t i = 1; i < n; ++i) expected += p[i] != p[i - 1] + 1u;
            ASSERT_EQ(bitplane::detail::runs_of_positions(p, n), expected) << "n=" << n << " round " << round;
        }
    }
}

// Sparse blocks whose runs lie at the line between positions and runs (4 runs against 2 count:
// runs = count / 2 - 1, count / 2, count / 2 + 1, count 2 .. 127), through the builder and its
// writers with and without their counts: the saved bytes equal from_positions'.
TEST(BitsetBuilder, SparseBlocksAtThePositionsRunsLineSaveAsFromPositions) {
    BITPLANE_SEED_TRACE();
    on_every_path([] {
        std::mt19937_64 rng(case_seed("positions-runs-line"));
        const std::size_t n = 6 * 2048 + 1500;
        for (int round = 0; round < 12; ++round) {
            ref_bits ref(n);
            for (std::size_t b = 0; b * block_values < n; ++b) {
                const std::uint32_t len = bitplane::detail::block_length(n, b);
                const std::uint32_t count = 2 + static_cast<std::uint32_t>(rng() % 126);
                const std::uint32_t runs = std::clamp<std::uint32_t>(count / 2 + static_cast<std::uint32_t>(rng() % 3) - 1, 1, count);
                // `runs` runs of widths summing to `count`, apart by gaps of 1 .. 8.
                std::vector<std::uint32_t> widths(runs, 1);
                for (std::uint32_t extra = count - runs; extra > 0; --extra) ++widths[rng() % runs];
                std::uint32_t at = static_cast<std::uint32_t>(rng() % 64);
                for (const std::uint32_t w : widths) {
                    for (std::uint32_t k = 0; k < w && at < len; ++k) ref[b * block_values + at++] = true;
                    at += 1 + static_cast<std::uint32_t>(rng() % 8);
                }
            }
            SCOPED_TRACE("round " + std::to_string(round));
            expect_builder_saves_as_from_positions(ref);
            if (::testing::Test::HasFatalFailure()) return;
        }
    });
}

// The builder against from_positions on blocks of every density and run shape: plane_masks()
// (empty, full, random densities, stretches, the last bit), and clusters of `k` runs of
// width 1 .. 48 at random places, which cross the line where runs win outright over gaps
// (4 runs <= count) and over positions, sparse and dense, up to a partial last block. Built
// in block order, the saved bytes equal from_positions' (the same encodings and payloads).
TEST(BitsetBuilder, EveryDensityAndRunShapeSavesAsFromPositions) {
    BITPLANE_SEED_TRACE();
    on_every_path([] {
        for (const std::size_t n : {std::size_t{2048}, std::size_t{7 * 2048 + 999}}) {
            std::mt19937_64 rng(case_seed("builder-shapes", n));
            for (int round = 0; round < 60; ++round) {
                ref_bits ref(n);
                const auto masks = plane_masks(rng);
                for (std::size_t b = 0; b * block_values < n; ++b) {
                    const std::uint32_t len = bitplane::detail::block_length(n, b);
                    const std::size_t base = b * block_values;
                    const std::uint32_t pick = static_cast<std::uint32_t>(rng() % 3);
                    if (pick == 0) {
                        const auto& m = masks[rng() % masks.size()];
                        for (std::uint32_t i = 0; i < len; ++i) ref[base + i] = ((m[i / 32] >> (i % 32)) & 1u) != 0;
                    } else {
                        const std::uint32_t k = 1 + static_cast<std::uint32_t>(rng() % (pick == 1 ? 8 : 80));
                        const std::uint32_t widest = 1 + static_cast<std::uint32_t>(rng() % 48);
                        for (std::uint32_t r = 0; r < k; ++r) {
                            const std::uint32_t at = static_cast<std::uint32_t>(rng() % len);
                            const std::uint32_t width = 1 + static_cast<std::uint32_t>(rng() % widest);
                            for (std::uint32_t i = at; i < std::min(len, at + width); ++i) ref[base + i] = true;
                        }
                        if (rng() % 4 == 0) ref[base + len - 1] = true;
                        if (rng() % 4 == 0) ref[base] = true;
                    }
                }
                SCOPED_TRACE("n=" + std::to_string(n) + " round " + std::to_string(round));
                expect_builder_saves_as_from_positions(ref);
            }
        }
    });
}

TEST(BitsetBuilder, FromSeveralThreads) {
    BITPLANE_SEED_TRACE();
    const std::size_t n = (quick_mode() ? 300 : 3000) * 2048 + 1234;
    for (const set_shape& shape : {set_shape{"mixed", -2.0}, set_shape{"d50%", 0.5}, set_shape{"d1%", 0.01}}) {
        SCOPED_TRACE(shape.name);
        const ref_bits ref = make_bits(shape, n, case_seed("threads", density_salt(shape.density)));
        std::vector<bitplane::plane> blocks((n + block_values - 1) / block_values);
        for (std::size_t b = 0; b < blocks.size(); ++b) blocks[b] = block_of(ref, b);
        bitplane::detail::bitset_builder builder(n);
        const std::size_t threads = 4;
        std::vector<std::thread> pool;
        for (std::size_t t = 0; t < threads; ++t) {
            pool.emplace_back([&, t] {
                // Interleaved blocks, backwards: neighbours are written by different threads.
                for (std::size_t b = blocks.size(); b-- > 0;)
                    if (b % threads == t) builder.set_block(b, blocks[b]);
            });
        }
        for (std::thread& th : pool) th.join();
        const bitset s = builder.finish();
        ASSERT_TRUE(matches(s, ref));
        EXPECT_EQ(s, make_set(ref));
    }
}

// Writers as the scans use them, one a task of `task` neighbouring blocks. A full-length
// plane after a raw one is copied and counted on the way into bytes the writer holds: the
// encodings, payloads and saved bytes are those of from_positions all the same, for blocks of
// every shape one after the other in a writer (its held bytes kept, overwritten by a smaller
// payload, grown, handed back). Then every block set again from other bits by writers over
// other tasks (old payloads superseded, the arena overflowing). Writers told where their
// blocks end (`told_end`, as run_scan's) take bytes for up to bitset_builder_reserve_blocks
// raw blocks at once.
void expect_writers_save_as_from_positions(std::size_t task, bool told_end, handing how) {
    for (const std::size_t n : set_sizes()) {
        for (const set_shape& shape : set_shapes()) {
            SCOPED_TRACE(shape.name + " n=" + std::to_string(n) + " task " + std::to_string(task) +
                         (told_end ? ", writers told their end, " : ", ") + name_of(how));
            const ref_bits ref = make_bits(shape, n, case_seed("writers", n, density_salt(shape.density)));
            bitplane::detail::bitset_builder builder(n);
            const std::size_t blocks = builder.block_count();
            for (std::size_t first = 0; first < blocks; first += task) {
                const std::size_t end = std::min(first + task, blocks);
                bitplane::detail::bitset_builder::writer out(builder, told_end ? end : 0);
                for (std::size_t b = first; b < end; ++b) hand(out, b, block_of(ref, b), how);
            }
            expect_saves_as_from_positions(builder.finish(), ref);
            if (::testing::Test::HasFatalFailure()) return;

            const ref_bits other = make_bits({"mixed", -2.0}, n, case_seed("writers-again", n));
            for (const ref_bits* r : {&ref, &other}) {
                for (std::size_t first = 0; first < blocks; first += 3) {
                    const std::size_t end = std::min(first + 3, blocks);
                    bitplane::detail::bitset_builder::writer out(builder, told_end ? end : 0);
                    for (std::size_t b = first; b < end; ++b) {
                        if (b % 4 == 3 && bitplane::detail::block_length(n, b) == block_values) {
                            out.set_block_full(b);
                        } else {
                            hand(out, b, block_of(*r, b), how);
                        }
                    }
                }
            }
            ref_bits expected_again = other;
            for (std::size_t b = 3; b < blocks; b += 4)
                if (bitplane::detail::block_length(n, b) == block_values)
                    for (std::size_t i = b * block_values; i < (b + 1) * block_values; ++i) expected_again[i] = true;
            const bitset again = builder.finish();
            ASSERT_NO_THROW(again.validate());
            ASSERT_TRUE(matches(again, expected_again));
            EXPECT_EQ(again, make_set(expected_again));
        }
    }
}

// On every path; tasks of 5 blocks, and of 11 that take bytes for raw blocks twice and stop
// inside the second reservation.
TEST(BitsetBuilder, WritersSaveAsFromPositionsEveryPath) {
    BITPLANE_SEED_TRACE();
    on_every_path([] {
        for (const std::size_t task : {std::size_t{5}, std::size_t{11}}) {
            for (const bool told_end : {false, true}) {
                for (const handing how : {handing::plain, handing::counted, handing::miscounted}) {
                    expect_writers_save_as_from_positions(task, told_end, how);
                    if (::testing::Test::HasFatalFailure()) return;
                }
            }
        }
    });
}

// Writers on several threads at once, as a scan's tasks: each takes arena bytes, fills them
// and hands back what it did not use while the others take theirs (ThreadSanitizer's stage
// runs this test); a second round sets every block again, overflowing the arena.
TEST(BitsetBuilder, WritersFromSeveralThreads) {
    BITPLANE_SEED_TRACE();
    const std::size_t n = (quick_mode() ? 300 : 3000) * 2048 + 1234;
    const ref_bits first_bits = make_bits({"mixed", -2.0}, n, case_seed("writer-threads-1"));
    const ref_bits second_bits = make_bits({"mixed", -2.0}, n, case_seed("writer-threads-2"));
    const std::size_t blocks = (n + block_values - 1) / block_values;
    bitplane::detail::bitset_builder builder(n);
    for (const ref_bits* ref : {&first_bits, &second_bits}) {
        std::vector<bitplane::plane> planes(blocks);
        for (std::size_t b = 0; b < blocks; ++b) planes[b] = block_of(*ref, b);
        const std::size_t threads = 4, task = ref == &first_bits ? 3 : 7;
        std::vector<std::thread> pool;
        for (std::size_t t = 0; t < threads; ++t) {
            pool.emplace_back([&, t] {
                // Interleaved tasks: the arena's end moves between a writer's blocks.
                for (std::size_t first = t * task; first < blocks; first += threads * task) {
                    // The second round's writers told their end (bytes taken for several blocks).
                    const std::size_t end = std::min(first + task, blocks);
                    bitplane::detail::bitset_builder::writer out(builder, ref == &first_bits ? 0 : end);
                    for (std::size_t b = first; b < end; ++b) out.set_block(b, planes[b]);
                }
            });
        }
        for (std::thread& th : pool) th.join();
    }
    const bitset s = builder.finish();
    ASSERT_TRUE(matches(s, second_bits));
    EXPECT_EQ(s, make_set(second_bits));
}

// Bytes a writer hands back, taken by a writer on another thread with nothing else ordering
// the two (a relaxed flag): the first one's copy written into them must happen before the
// second one's (the builder hands back with release order, takes with acquire), else
// ThreadSanitizer's stage reports a race here, as it did for find8's hand-back. On every
// path: ThreadSanitizer does not see the AVX2 and AVX-512 kernels' 32- and 64-byte stores
// (with relaxed orders it reports this race on the scalar and SSE2 paths only).
TEST(BitsetBuilder, BytesHandedBackFromSeveralThreadsEveryPath) {
    bitplane::plane sparse{}, dense{};
    sparse[3] = 0x11;                                 // 2 set bits: positions, inline
    for (std::uint32_t& w : dense) w = 0x55555555u;  // 1024 set bits, 1024 runs: raw
    ref_bits expected(3 * block_values);
    expected[block_values + 3 * 32] = expected[block_values + 3 * 32 + 4] = true;
    for (std::size_t i = 0; i < block_values; i += 2) expected[i] = expected[2 * block_values + i] = true;
    on_every_path([&] {
        bitplane::detail::bitset_builder builder(3 * block_values);
        std::atomic<bool> handed_back{false};
        std::thread first([&] {
            {
                bitplane::detail::bitset_builder::writer out(builder);
                out.set_block(0, dense);   // raw: the arena's first 256 bytes
                out.set_block(1, sparse);  // copied after a raw block (the next 256 bytes), not raw
            }
            handed_back.store(true, std::memory_order_relaxed);
        });
        std::thread second([&] {
            while (!handed_back.load(std::memory_order_relaxed)) std::this_thread::yield();
            bitplane::detail::bitset_builder::writer out(builder);
            out.set_block(2, dense);  // raw, written into the bytes handed back
        });
        first.join();
        second.join();
        const bitset s = builder.finish();
        ASSERT_TRUE(matches(s, expected));
        EXPECT_EQ(s, make_set(expected));
    });
}

TEST(BitsetBuilder, BlocksSetAgainReplaceTheOldOnes) {
    BITPLANE_SEED_TRACE();
    const std::size_t n = 40 * 2048 + 77;
    const ref_bits first = make_bits({"", 0.5}, n, case_seed("again-1"));
    const ref_bits second = make_bits({"mixed", -2.0}, n, case_seed("again-2"));
    const ref_bits third = make_bits({"", 0.45}, n, case_seed("again-3"));
    bitplane::detail::bitset_builder builder(n);
    for (const ref_bits* r : {&first, &second, &third})  // the third round overflows the arena
        for (std::size_t b = 0; b < builder.block_count(); ++b) builder.set_block(b, block_of(*r, b));
    builder.set_block_full(3);
    builder.set_block(4, bitplane::plane{});
    ref_bits expected = third;
    for (std::size_t i = 3 * 2048; i < 5 * 2048; ++i) expected[i] = i < 4 * 2048;
    const bitset s = builder.finish();
    ASSERT_TRUE(matches(s, expected));
    EXPECT_EQ(s, make_set(expected));
}

TEST(BitsetBuilder, RejectsBadBlocks) {
    bitplane::detail::bitset_builder builder(2048 + 100);
    bitplane::plane p{};
    EXPECT_THROW(builder.set_block(2, p), bitplane::index_error);
    EXPECT_THROW(builder.set_block_full(2), bitplane::index_error);
    p[100 / 32] = 1u << (100 % 32);  // bit 100 of the last block: beyond the size
    EXPECT_THROW(builder.set_block(1, p), bitplane::argument_error);
    p[0] = 1;
    p[100 / 32] = 0;
    builder.set_block(1, p);
    builder.set_block_full(0);
    const bitset s = builder.finish();
    EXPECT_EQ(s.count(), 2049u);
    EXPECT_TRUE(s.contains(2048));
    EXPECT_EQ(bitplane::detail::bitset_builder(0).finish(), bitset());
}

// ---- save / load --------------------------------------------------------------------------------

TEST(BitsetFile, RoundTripsForEveryShapeAndSize) {
    BITPLANE_SEED_TRACE();
    for (const std::size_t n : set_sizes()) {
        for (const set_shape& shape : set_shapes()) {
            SCOPED_TRACE(shape.name + " n=" + std::to_string(n));
            const ref_bits ref = make_bits(shape, n, case_seed("file", n, density_salt(shape.density)));
            const bitset s = make_set(ref);
            bytes f = {std::byte{0xAB}};  // save appends
            bitplane::save(s, f);
            EXPECT_EQ(f[0], std::byte{0xAB});
            const bitset loaded = bitplane::load_bitset(std::span<const std::byte>(f).subspan(1));
            EXPECT_NO_THROW(loaded.validate());
            EXPECT_NO_THROW(s.validate());
            ASSERT_TRUE(matches(loaded, ref));
            EXPECT_EQ(loaded, s);
            std::stringstream stream;
            bitplane::save(s, stream);
            EXPECT_EQ(bitplane::load_bitset(stream), s);
            // The layout of section 5 (version 2; tests/test_bitset_file.cpp has the rest).
            EXPECT_EQ(std::memcmp(f.data() + 1, "BITPLANE", 8), 0);
            EXPECT_EQ(field_at<std::uint16_t>(f, 9), 2);
            EXPECT_EQ(static_cast<int>(f[11]), 2);
            EXPECT_EQ(field_at<std::uint64_t>(f, 17), n);
            EXPECT_EQ(field_at<std::uint64_t>(f, 33), s.count());
            EXPECT_EQ(f.size() - 1, 64 + field_at<std::uint64_t>(f, 49));
        }
    }
}

bytes saved(const bitset& s) {
    bytes f;
    bitplane::save(s, f);
    return f;
}

// Truncations, byte flips and forged flips of version 2 files: tests/test_bitset_file.cpp
// (BitsetFileV2, on more shapes).

TEST(BitsetFile, HostileHeadersAreRejected) {
    const bitset s = make_set(make_bits({"mixed", -2.0}, 3 * 2048 + 5, 99));
    bytes f;  // a version 1 file: its layout's fields (version 2's: tests/test_bitset_file.cpp)
    bitplane::detail::bitset_v1::save(s, f);
    auto rejects = [&](const char* what, auto&& edit, bool keep_checksum = false) {
        SCOPED_TRACE(what);
        bytes g = f;
        edit(g);
        if (!keep_checksum) reseal_bitset_file(g);
        EXPECT_THROW((void)bitplane::load_bitset(g), bitplane::format_error);
        std::stringstream stream(std::string(reinterpret_cast<const char*>(g.data()), g.size()));
        EXPECT_THROW((void)bitplane::load_bitset(stream), bitplane::format_error);
    };
    rejects("magic", [](bytes& g) { g[0] = std::byte{'X'}; });
    rejects("version", [](bytes& g) { put_field<std::uint16_t>(g, 8, 3); });
    rejects("kind", [](bytes& g) { g[10] = std::byte{1}; });
    rejects("reserved", [](bytes& g) { g[11] = std::byte{1}; });
    rejects("header size", [](bytes& g) { put_field<std::uint32_t>(g, 12, 65); });
    rejects("huge size", [](bytes& g) { put_field<std::uint64_t>(g, 16, ~std::uint64_t{0}); });
    rejects("size vs blocks", [](bytes& g) { put_field<std::uint64_t>(g, 16, field_at<std::uint64_t>(g, 16) + 2048); });
    rejects("terabyte bitset with matching blocks", [](bytes& g) {
        put_field<std::uint64_t>(g, 16, std::uint64_t{1} << 43);
        put_field<std::uint64_t>(g, 24, (std::uint64_t{1} << 43) / 2048);
    });
    rejects("count", [](bytes& g) { put_field<std::uint64_t>(g, 32, field_at<std::uint64_t>(g, 32) + 1); });
    rejects("count > size", [](bytes& g) { put_field<std::uint64_t>(g, 32, ~std::uint64_t{0}); });
    rejects("stored", [](bytes& g) { put_field<std::uint64_t>(g, 40, field_at<std::uint64_t>(g, 40) + 1); });
    rejects("stored huge", [](bytes& g) { put_field<std::uint64_t>(g, 40, std::uint64_t{1} << 40); });
    rejects("payload", [](bytes& g) { put_field<std::uint64_t>(g, 48, field_at<std::uint64_t>(g, 48) + 1); });
    rejects("payload huge", [](bytes& g) { put_field<std::uint64_t>(g, 48, std::uint64_t{1} << 60); });
    rejects("checksum", [](bytes& g) { g[56] ^= std::byte{1}; }, true);
    rejects("block beyond the last", [](bytes& g) { g[64] |= std::byte{0x80}; });
    rejects("full but not non-empty", [&](bytes& g) {
        const std::uint64_t nonempty = field_at<std::uint64_t>(g, 64);
        put_field<std::uint64_t>(g, 72, field_at<std::uint64_t>(g, 72) | (~nonempty & 0xF));
    });
    // A vector file is not a bitset file, and the other way round.
    bitplane::vector<std::uint32_t> v;
    v.push_back(1);
    bytes vf;
    bitplane::save(v, vf);
    EXPECT_THROW((void)bitplane::load_bitset(vf), bitplane::format_error);
    EXPECT_THROW((void)bitplane::load<std::uint32_t>(f), bitplane::format_error);
}

// Hand-made files: one stored block, in a chosen encoding, with a recomputed checksum.
bytes one_block_file(std::uint64_t size, std::uint8_t kind, std::uint16_t items, const bytes& payload,
                     std::uint64_t count) {
    bytes f(64 + 16 + 4);
    std::memcpy(f.data(), "BITPLANE", 8);
    put_field<std::uint16_t>(f, 8, 1);
    f[10] = std::byte{2};
    put_field<std::uint32_t>(f, 12, 64);
    put_field<std::uint64_t>(f, 16, size);
    put_field<std::uint64_t>(f, 24, 1);
    put_field<std::uint64_t>(f, 32, count);
    put_field<std::uint64_t>(f, 40, 1);
    put_field<std::uint64_t>(f, 48, payload.size());
    put_field<std::uint64_t>(f, 64, 1);  // block 0 non-empty, not full
    f[80] = std::byte{kind};
    put_field<std::uint16_t>(f, 82, items);
    f.resize(84 + payload.size());
    if (!payload.empty()) std::memcpy(f.data() + 84, payload.data(), payload.size());
    reseal_bitset_file(f);
    return f;
}

bytes le16(std::initializer_list<unsigned> values) {
    bytes out;
    for (const unsigned v : values) {
        out.push_back(static_cast<std::byte>(v & 0xFF));
        out.push_back(static_cast<std::byte>(v >> 8));
    }
    return out;
}

TEST(BitsetFile, AnyValidEncodingLoadsAndIsStoredCanonically) {
    // Positions {5, 6, 7} as positions, runs, gaps and raw: all load to the same bitset.
    const bitset expected = bitset::from_positions(std::vector<std::uint64_t>{5, 6, 7}, 2048);
    bytes raw(256);
    raw[0] = std::byte{0xE0};
    for (const bytes& f : {one_block_file(2048, 1, 3, le16({5, 6, 7}), 3), one_block_file(2048, 2, 1, le16({5, 8}), 3),
                           one_block_file(2048, 4, 3, bytes{std::byte{5}, std::byte{0}, std::byte{0}}, 3),
                           one_block_file(2048, 3, 0, raw, 3)}) {
        const bitset s = bitplane::load_bitset(f);
        EXPECT_EQ(s, expected);
        EXPECT_EQ(saved(s), saved(expected));
    }
}

TEST(BitsetFile, MalformedBlocksAreRejected) {
    struct bad {
        const char* what;
        bytes file;
    };
    bytes raw_full(256, std::byte{0xFF});
    bytes raw_empty(256);
    bytes raw_short(13);  // a 100-bit block: 13 bytes, bits 100..103 must be clear
    raw_short[12] = std::byte{0x10};
    const std::vector<bad> cases = {
        {"positions out of order", one_block_file(2048, 1, 3, le16({5, 7, 6}), 3)},
        {"positions repeated", one_block_file(2048, 1, 2, le16({5, 5}), 2)},
        {"position beyond length", one_block_file(100, 1, 1, le16({100}), 1)},
        {"zero positions", one_block_file(2048, 1, 0, bytes{}, 0)},
        {"run empty", one_block_file(2048, 2, 1, le16({5, 5}), 0)},
        {"run beyond length", one_block_file(100, 2, 1, le16({5, 101}), 96)},
        {"runs touching", one_block_file(2048, 2, 2, le16({1, 3, 3, 5}), 4)},
        {"too many runs", one_block_file(4, 2, 3, le16({0, 1, 2, 3, 3, 4}), 3)},
        {"gap beyond length", one_block_file(100, 4, 1, bytes{std::byte{100}}, 1)},
        {"gap escape cut off", one_block_file(2048, 4, 2, bytes{std::byte{255}, std::byte{1}}, 1)},
        {"raw bits beyond length", one_block_file(100, 3, 0, raw_short, 1)},
        {"raw with items", one_block_file(2048, 3, 1, raw_full, 2048)},
        {"stored block full", one_block_file(2048, 3, 0, raw_full, 2048)},
        {"stored block empty", one_block_file(2048, 3, 0, raw_empty, 0)},
        {"kind 0", one_block_file(2048, 0, 1, le16({5}), 1)},
        {"kind 5", one_block_file(2048, 5, 1, le16({5}), 1)},
        {"count mismatch", one_block_file(2048, 1, 1, le16({5}), 2)},
        {"payload longer than its block", [] {
             bytes f = one_block_file(2048, 1, 1, le16({5, 9}), 1);
             return f;
         }()},
        {"descriptor reserved byte", [] {
             bytes f = one_block_file(2048, 1, 1, le16({5}), 1);
             f[81] = std::byte{1};
             reseal_bitset_file(f);
             return f;
         }()},
    };
    for (const bad& c : cases) {
        SCOPED_TRACE(c.what);
        EXPECT_THROW((void)bitplane::load_bitset(c.file), bitplane::format_error);
    }
    EXPECT_NO_THROW((void)bitplane::load_bitset(one_block_file(2048, 1, 1, le16({5}), 1)));
}

TEST(BitsetFile, StreamFailures) {
    const bitset s = make_set(make_bits({"mixed", -2.0}, 10000, 5));
    std::stringstream empty;
    EXPECT_THROW((void)bitplane::load_bitset(empty), bitplane::format_error);
    struct failing_buffer : std::streambuf {
        int overflow(int) override { return traits_type::eof(); }
    } sink;
    std::ostream out(&sink);
    EXPECT_THROW(bitplane::save(s, out), bitplane::io_error);
}

}  // namespace
