// OR, XOR and NOT of bitsets on every pair of stored block kinds, the in-place operators and
// the many-way union and intersection (src/bitset/block_union.cpp, block_complement.cpp,
// bitset_many.cpp), against std::vector<bool> references, on every SIMD path.
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
#include <string>
#include <vector>

namespace {

using bitplane_test::on_every_path;

using bitplane::bitset;
using bitplane::block_values;
using bitplane::detail::block_kind;
using ref_bits = std::vector<bool>;

// What a block is stored as: empty, full, or one of the payload kinds.
enum class stored : int { empty, full, positions, runs, raw, gaps };
constexpr stored all_kinds[] = {stored::empty, stored::full, stored::positions, stored::runs, stored::raw, stored::gaps};

const char* name(stored k) {
    switch (k) {
        case stored::empty: return "empty";
        case stored::full: return "full";
        case stored::positions: return "positions";
        case stored::runs: return "runs";
        case stored::raw: return "raw";
        case stored::gaps: return "gaps";
    }
    return "?";
}

std::vector<std::uint64_t> positions_of(const ref_bits& bits) {
    std::vector<std::uint64_t> out;
    for (std::size_t i = 0; i < bits.size(); ++i)
        if (bits[i]) out.push_back(i);
    return out;
}

bitset make_set(const ref_bits& bits) { return bitset::from_positions(positions_of(bits), bits.size()); }

stored kind_of_block(const bitset& s, std::size_t b) {
    const auto& core = s.core();
    const auto& w = core.words()[b / 64];
    const std::uint64_t bit = std::uint64_t{1} << (b % 64);
    if (!(w.nonempty & bit)) return stored::empty;
    if (w.full & bit) return stored::full;
    switch (core.entries()[core.entry_index(b)].kind) {
        case block_kind::positions: return stored::positions;
        case block_kind::runs: return stored::runs;
        case block_kind::raw: return stored::raw;
        case block_kind::gaps: return stored::gaps;
    }
    return stored::empty;
}

// Whether a block meant to be stored as `want` is: memory keeps no gap lists (the in-memory
// choice stores a few dozen close positions as positions), so the gaps shape may be either.
bool stored_as(stored got, stored want) {
    return got == want || (want == stored::gaps && got == stored::positions);
}

// Bits [begin, begin + len) of `bits` in a shape meant to be stored as `kind` (a few shapes a
// kind, picked at random; the caller checks what was stored).
void fill_block(ref_bits& bits, std::size_t begin, std::size_t len, stored kind, std::mt19937_64& rng) {
    auto set = [&](std::size_t i) {
        if (i < len) bits[begin + i] = true;
    };
    switch (kind) {
        case stored::empty: break;
        case stored::full:
            for (std::size_t i = 0; i < len; ++i) set(i);
            break;
        case stored::positions: {  // a few bits far apart: gaps would need escapes
            const std::size_t k = 2 + rng() % 5, step = 260 + rng() % 120;
            for (std::size_t i = 0, at = rng() % 16; i < k; ++i, at += step) set(at);
            break;
        }
        case stored::gaps: {  // a few dozen bits close together, none adjacent
            const std::size_t k = 20 + rng() % 40;
            for (std::size_t i = 0, at = rng() % 8; i < k; ++i, at += 2 + rng() % 30) set(at);
            break;
        }
        case stored::runs: {  // up to 6 long runs
            const std::size_t k = 1 + rng() % 6;
            std::size_t at = rng() % 50;
            for (std::size_t r = 0; r < k; ++r) {
                const std::size_t run = 30 + rng() % 300;
                for (std::size_t i = 0; i < run; ++i) set(at + i);
                at += run + 1 + rng() % 60;
            }
            if (rng() % 2) {  // sometimes a run reaching the block's end
                for (std::size_t i = len - 1 - rng() % 40; i < len; ++i) set(i);
            }
            break;
        }
        case stored::raw: {
            std::bernoulli_distribution coin(0.3 + 0.4 * static_cast<double>(rng() % 2));
            for (std::size_t i = 0; i < len; ++i)
                if (coin(rng)) set(i);
            break;
        }
    }
}

ref_bits apply_ref(const ref_bits& a, const ref_bits& b, char op) {
    ref_bits out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        switch (op) {
            case '|': out[i] = a[i] || b[i]; break;
            case '^': out[i] = a[i] != b[i]; break;
            case '&': out[i] = a[i] && b[i]; break;
            case '-': out[i] = a[i] && !b[i]; break;
            case '~': out[i] = !a[i]; break;
        }
    }
    return out;
}

// The result equals the set built from its reference: the same bits, and (==) the same
// encoding of every block.
::testing::AssertionResult same(const bitset& got, const ref_bits& ref) {
    const bitset expected = make_set(ref);
    if (got.size() != ref.size()) return ::testing::AssertionFailure() << "size " << got.size() << " != " << ref.size();
    if (got.to_positions() != positions_of(ref)) return ::testing::AssertionFailure() << "positions differ";
    if (got.count() != expected.count()) return ::testing::AssertionFailure() << "count differs";
    if (!(got == expected)) return ::testing::AssertionFailure() << "encodings differ from the set built from positions";
    return ::testing::AssertionSuccess();
}

void check_all_ops(const ref_bits& ra, const ref_bits& rb) {
    const bitset a = make_set(ra), b = make_set(rb);
    EXPECT_TRUE(same(a | b, apply_ref(ra, rb, '|')));
    EXPECT_TRUE(same(a ^ b, apply_ref(ra, rb, '^')));
    EXPECT_TRUE(same(~a, apply_ref(ra, rb, '~')));
    EXPECT_TRUE(same(~b, apply_ref(rb, ra, '~')));
    // In place: the same as out of place, and the reference.
    bitset c = a;
    c |= b;
    EXPECT_TRUE(same(c, apply_ref(ra, rb, '|')));
    c = a;
    c ^= b;
    EXPECT_TRUE(same(c, apply_ref(ra, rb, '^')));
    c = a;
    c &= b;
    EXPECT_TRUE(same(c, apply_ref(ra, rb, '&')));
    c = a;
    c.subtract(b);
    EXPECT_TRUE(same(c, apply_ref(ra, rb, '-')));
    // Many-way against pairwise.
    const bitset* both[] = {&a, &b};
    EXPECT_TRUE(same(bitplane::unite(both), apply_ref(ra, rb, '|')));
    EXPECT_TRUE(same(bitplane::intersect(both), apply_ref(ra, rb, '&')));
}

TEST(BitsetOr, EveryPairOfStoredKinds) {
    std::mt19937_64 rng(15);
    constexpr std::size_t blocks = 3;
    const std::size_t tails[] = {0, 777};
    on_every_path([&] {
        for (const stored ka : all_kinds) {
            for (const stored kb : all_kinds) {
                SCOPED_TRACE(std::string(name(ka)) + " with " + std::string(name(kb)));
                for (const std::size_t tail : tails) {
                    const std::size_t n = blocks * block_values + tail;
                    ref_bits ra(n), rb(n);
                    for (std::size_t blk = 0; blk * block_values < n; ++blk) {
                        const std::size_t begin = blk * block_values, len = std::min<std::size_t>(block_values, n - begin);
                        fill_block(ra, begin, len, ka, rng);
                        fill_block(rb, begin, len, kb, rng);
                    }
                    // The kinds meant are the kinds stored (full-length blocks): a change of
                    // representation must not skip a pair silently.
                    const bitset a = make_set(ra), b = make_set(rb);
                    for (std::size_t blk = 0; blk < blocks; ++blk) {
                        ASSERT_TRUE(stored_as(kind_of_block(a, blk), ka)) << "block " << blk << " of a is " << name(kind_of_block(a, blk));
                        ASSERT_TRUE(stored_as(kind_of_block(b, blk), kb)) << "block " << blk << " of b is " << name(kind_of_block(b, blk));
                    }
                    check_all_ops(ra, rb);
                }
            }
        }
    });
}

TEST(BitsetOr, RandomMixesOfKindsAndEdgeSizes) {
    std::mt19937_64 rng(1515);
    const std::size_t sizes[] = {0, 1, 2, 63, 64, 65, 2047, 2048, 2049, 4096, 5 * 2048 + 1, 70 * 2048 + 17};
    on_every_path([&] {
        for (const std::size_t n : sizes) {
            SCOPED_TRACE("size " + std::to_string(n));
            for (int round = 0; round < 3; ++round) {
                ref_bits ra(n), rb(n);
                for (std::size_t blk = 0; blk * block_values < n; ++blk) {
                    const std::size_t begin = blk * block_values, len = std::min<std::size_t>(block_values, n - begin);
                    fill_block(ra, begin, len, all_kinds[rng() % 6], rng);
                    fill_block(rb, begin, len, all_kinds[rng() % 6], rng);
                }
                check_all_ops(ra, rb);
            }
        }
    });
}

TEST(BitsetOr, RunsThatTouchOverlapOrCancel) {
    const std::size_t n = 2 * block_values;
    auto runs = [&](std::initializer_list<std::pair<std::size_t, std::size_t>> list) {
        ref_bits r(n);
        for (const auto& [from, to] : list)
            for (std::size_t i = from; i < to; ++i) r[i] = true;
        return r;
    };
    const ref_bits a = runs({{10, 100}, {500, 900}, {1500, 2048}, {2048, 2100}});
    const ref_bits b = runs({{100, 500}, {900, 1000}, {1400, 1600}, {2100, 2200}});
    const ref_bits c = runs({{10, 100}, {500, 900}, {1500, 2048}});
    ASSERT_EQ(kind_of_block(make_set(a), 0), stored::runs);
    ASSERT_EQ(kind_of_block(make_set(b), 0), stored::runs);
    on_every_path([&] {
        check_all_ops(a, b);
        check_all_ops(a, c);
        check_all_ops(c, a);
        check_all_ops(b, c);
    });
}

TEST(BitsetOr, AliasedOperands) {
    std::mt19937_64 rng(7);
    const std::size_t n = 6 * block_values + 100;
    on_every_path([&] {
        for (const stored k : all_kinds) {
            ref_bits r(n);
            for (std::size_t blk = 0; blk * block_values < n; ++blk) {
                const std::size_t begin = blk * block_values;
                fill_block(r, begin, std::min<std::size_t>(block_values, n - begin), blk % 2 ? k : all_kinds[rng() % 6], rng);
            }
            bitset a = make_set(r);
            const bitset& alias = a;  // (through a reference: clang warns on a literal `a |= a`)
            a |= alias;
            EXPECT_TRUE(same(a, r));
            a &= alias;
            EXPECT_TRUE(same(a, r));
            a ^= alias;
            EXPECT_TRUE(same(a, ref_bits(n)));
            bitset b = make_set(r);
            b.subtract(b);
            EXPECT_TRUE(same(b, ref_bits(n)));
            const bitset c = make_set(r);
            EXPECT_TRUE(same(c | c, r));
            EXPECT_TRUE(same(c ^ c, ref_bits(n)));
        }
    });
}

// In-place operators reuse the left side's arena: repeated updates must stay right and the
// payloads they free must be reclaimed (the arena compacted), not pile up.
TEST(BitsetOr, RepeatedInPlaceUpdatesStayRightAndCompact) {
    std::mt19937_64 rng(2024);
    const std::size_t n = 200 * block_values + 99;
    ref_bits ra(n);
    for (std::size_t blk = 0; blk * block_values < n; ++blk) {
        const std::size_t begin = blk * block_values;
        fill_block(ra, begin, std::min<std::size_t>(block_values, n - begin), all_kinds[rng() % 6], rng);
    }
    bitset a = make_set(ra);
    const std::size_t start_memory = a.memory_bytes();
    on_every_path([&] {
        for (int round = 0; round < 30; ++round) {
            ref_bits rb(n);
            for (std::size_t blk = 0; blk * block_values < n; ++blk) {
                const std::size_t begin = blk * block_values;
                fill_block(rb, begin, std::min<std::size_t>(block_values, n - begin), all_kinds[rng() % 6], rng);
            }
            const bitset b = make_set(rb);
            if (round % 3 == 0) {
                a |= b;
                ra = apply_ref(ra, rb, '|');
            } else {
                a ^= b;
                ra = apply_ref(ra, rb, '^');
            }
            ASSERT_TRUE(same(a, ra)) << "round " << round;
            // Live payloads are at most 256 bytes a block; the arena may hold as much again in
            // garbage before it is compacted, plus what was reserved for one operation.
            EXPECT_LT(a.memory_bytes(), 4 * (n / 8) + 16 * 201 * 4 + start_memory) << "round " << round;
        }
    });
}

TEST(BitsetOr, ManyWayMatchesPairwiseFolds) {
    std::mt19937_64 rng(99);
    const std::size_t sizes[] = {1, 2049, 9 * 2048 + 300};
    on_every_path([&] {
        for (const std::size_t n : sizes) {
            for (std::size_t count = 1; count <= 6; ++count) {
                std::vector<ref_bits> refs(count, ref_bits(n));
                std::vector<bitset> sets;
                for (ref_bits& r : refs) {
                    for (std::size_t blk = 0; blk * block_values < n; ++blk) {
                        const std::size_t begin = blk * block_values;
                        // Mostly stored blocks, so that several operands meet in one block.
                        const stored k = all_kinds[2 + rng() % 4];
                        fill_block(r, begin, std::min<std::size_t>(block_values, n - begin), rng() % 8 == 0 ? stored::full : k, rng);
                    }
                    sets.push_back(make_set(r));
                }
                std::vector<const bitset*> ptrs;
                for (const bitset& s : sets) ptrs.push_back(&s);
                ref_bits all_or = refs[0], all_and = refs[0];
                bitset fold_or = sets[0], fold_and = sets[0];
                for (std::size_t i = 1; i < count; ++i) {
                    all_or = apply_ref(all_or, refs[i], '|');
                    all_and = apply_ref(all_and, refs[i], '&');
                    fold_or = fold_or | sets[i];
                    fold_and = fold_and & sets[i];
                }
                const bitset u = bitplane::unite(ptrs), x = bitplane::intersect(ptrs);
                EXPECT_TRUE(same(u, all_or)) << count << " sets of " << n;
                EXPECT_TRUE(same(x, all_and)) << count << " sets of " << n;
                EXPECT_TRUE(u == fold_or);
                EXPECT_TRUE(x == fold_and);
            }
        }
    });
}

TEST(BitsetOr, ManyWayEdges) {
    EXPECT_EQ(bitplane::unite({}).size(), 0u);
    EXPECT_EQ(bitplane::intersect({}).size(), 0u);
    const bitset a(100), b(101);
    const bitset* mixed[] = {&a, &b};
    EXPECT_THROW((void)bitplane::unite(mixed), bitplane::size_error);
    EXPECT_THROW((void)bitplane::intersect(mixed), bitplane::size_error);
}

}  // namespace
