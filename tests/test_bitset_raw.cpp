// Raw x raw stretches of set algebra (bitset_algebra.cpp, core_writer::add_raw_stretch, the
// *_stretch kernels): dense sets store word after word of raw blocks one after the other, and
// AND, OR, XOR, ANDNOT and AND-count take such a stretch in one kernel call. Sets here force
// long raw stretches mixed with empty, full, positions and runs blocks, stretches that end at
// summary-word ends, at a partial last block and at payloads out of block order (blocks turned
// raw by set()), and raw pairs whose results must turn empty, full, positions, runs or stay raw
// (with few mixed bytes: the kernels' shortcut for the transitions). Every result is checked
// against a std::vector<bool> reference, against a set built from the reference's positions
// (operator== compares stored kinds and payload bytes), and the stored kinds through core();
// on every SIMD path.
#include "test_support.hpp"

#include "bitset/bitset_core.hpp"
#include "bitset/bitset_kernels.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/simd.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::bitset;
using bitplane::block_values;
using bitplane::detail::block_kind;
using bitplane::detail::block_stats;
using ref_bits = std::vector<bool>;

std::vector<std::uint64_t> positions_of(const ref_bits& bits) {
    std::vector<std::uint64_t> out;
    for (std::size_t i = 0; i < bits.size(); ++i)
        if (bits[i]) out.push_back(i);
    return out;
}

bitset make_set(const ref_bits& bits) { return bitset::from_positions(positions_of(bits), bits.size()); }

// ---- the kernels ------------------------------------------------------------------------------

// One block's 256 bytes: random at some density, or a few runs, or bytes of 0x00/0xFF with a
// few mixed ones (few transitions although many bits are set).
void random_block(std::uint8_t* out, std::mt19937_64& rng) {
    const int style = static_cast<int>(rng() % 6);
    if (style <= 2) {
        const std::uint64_t per_mille = style == 0 ? 500 : style == 1 ? 100 : 5 + rng() % 20;
        for (int i = 0; i < 256; ++i) {
            std::uint8_t byte = 0;
            for (int bit = 0; bit < 8; ++bit)
                if (rng() % 1000 < per_mille) byte |= static_cast<std::uint8_t>(1u << bit);
            out[i] = byte;
        }
    } else if (style == 3) {  // runs
        std::memset(out, 0, 256);
        const int runs = 1 + static_cast<int>(rng() % 70);
        for (int r = 0; r < runs; ++r) {
            const auto begin = static_cast<std::uint32_t>(rng() % 2048);
            const auto len = static_cast<std::uint32_t>(1 + rng() % 200);
            for (std::uint32_t b = begin; b < begin + len && b < 2048; ++b)
                out[b / 8] |= static_cast<std::uint8_t>(1u << (b % 8));
        }
    } else if (style == 4) {  // uniform bytes, a few mixed
        for (int i = 0; i < 256; ++i) out[i] = (rng() & 1) ? 0xFF : 0x00;
        const int mixed = static_cast<int>(rng() % 160);
        for (int i = 0; i < mixed; ++i) out[rng() % 256] = static_cast<std::uint8_t>(rng());
    } else {
        std::memset(out, (rng() & 1) ? 0xFF : 0x00, 256);
    }
}

TEST(BitsetRawKernels, StretchesMatchTheScalarOperation) {
    using table = bitplane::detail::bitset_kernel_table;
    std::vector<const table*> tables;  // the table of every SIMD path (the portable one first)
    on_every_path([&] {
        const table* k = &bitplane::detail::bitset_kernels();
        if (std::find(tables.begin(), tables.end(), k) == tables.end()) tables.push_back(k);
    });
    std::mt19937_64 rng(case_seed("raw-kernels"));
    std::size_t few_transitions = 0;  // blocks whose exact transitions the test compares
    for (const table* k : tables) {
        SCOPED_TRACE(std::string("table ") + std::string(bitplane::to_string(k->path)));
        for (int trial = 0; trial < 60; ++trial) {
            const std::size_t blocks = 1 + rng() % 9;
            const std::size_t offset = rng() % 32;  // payloads at any alignment
            std::vector<std::uint8_t> a(256 * blocks + 64), b(256 * blocks + 64), out(256 * blocks + 64);
            for (std::size_t i = 0; i < blocks; ++i) {
                random_block(a.data() + offset + 256 * i, rng);
                random_block(b.data() + offset + 256 * i, rng);
            }
            for (int op = 0; op < 4; ++op) {
                SCOPED_TRACE("op " + std::to_string(op) + " trial " + std::to_string(trial));
                auto fn = op == 0   ? k->and_stretch
                          : op == 1 ? k->or_stretch
                          : op == 2 ? k->xor_stretch
                                    : k->andnot_stretch;
                const bool in_place = trial % 3 == 0;
                std::vector<std::uint8_t> target = in_place ? a : out;
                std::vector<block_stats> stats(blocks);
                fn(a.data() + offset, b.data() + offset, target.data() + offset, blocks, stats.data());
                for (std::size_t blk = 0; blk < blocks; ++blk) {
                    std::uint32_t count = 0, transitions = 0;
                    std::uint64_t carry = 0;
                    for (std::size_t w = 0; w < 32; ++w) {
                        std::uint64_t x, y, got;
                        std::memcpy(&x, a.data() + offset + 256 * blk + 8 * w, 8);
                        std::memcpy(&y, b.data() + offset + 256 * blk + 8 * w, 8);
                        std::memcpy(&got, target.data() + offset + 256 * blk + 8 * w, 8);
                        const std::uint64_t r = op == 0 ? x & y : op == 1 ? x | y : op == 2 ? x ^ y : x & ~y;
                        ASSERT_EQ(got, r) << "block " << blk << " word " << w;
                        count += static_cast<std::uint32_t>(std::popcount(r));
                        transitions += static_cast<std::uint32_t>(std::popcount(r ^ ((r << 1) | carry)));
                        carry = r >> 63;
                    }
                    EXPECT_EQ(stats[blk].count, count) << "block " << blk;
                    if (count < bitplane::detail::stretch_raw_min) {  // never raw: a lower bound will do
                        EXPECT_LE(stats[blk].transitions, transitions) << "block " << blk;
                    } else if (transitions < bitplane::detail::stretch_runs_never) {
                        EXPECT_EQ(stats[blk].transitions, transitions) << "block " << blk;
                        ++few_transitions;
                    } else {
                        EXPECT_GE(stats[blk].transitions, bitplane::detail::stretch_runs_never) << "block " << blk;
                    }
                }
                // Nothing written past the stretch.
                for (std::size_t i = offset + 256 * blocks; i < target.size(); ++i)
                    ASSERT_EQ(target[i], in_place ? a[i] : 0) << "byte " << i;
            }
        }
    }
    EXPECT_GT(few_transitions, 100u);
}

// ---- sets ---------------------------------------------------------------------------------------

// What a pair of blocks (a's, b's) is made of. The raw_* pairs are raw on both sides and make
// the named result for AND (and others for OR, XOR, ANDNOT: see pair_block).
enum class pair_fill {
    raw_dense,        // two random 50% blocks
    raw_sparse,       // two random 12% blocks (AND: 1.5%, positions)
    raw_complement,   // a = P, b = NOT P: AND empty, OR and XOR full, ANDNOT = P
    raw_and_runs,     // a = P | R, b = NOT P | R: AND = R (runs), XOR = NOT R (runs), OR full
    raw_and_few,      // as raw_and_runs with R a few bits: AND positions, XOR runs
    raw_and_mid,      // R 200 random bits: AND raw with 200 bits and few mixed bytes
    raw_equal,        // a = b: AND = OR = a, XOR and ANDNOT empty
    other,            // empty, full, positions or runs on one side or both
    count_
};

void set_random_bits(ref_bits& bits, std::size_t begin, std::size_t len, std::size_t n, std::mt19937_64& rng) {
    for (std::size_t i = 0; i < n; ++i) bits[begin + rng() % len] = true;
}

void set_runs(ref_bits& bits, std::size_t begin, std::size_t len, std::size_t runs, std::mt19937_64& rng) {
    for (std::size_t r = 0; r < runs; ++r) {
        const std::size_t first = rng() % len, n = 1 + rng() % 120;
        for (std::size_t i = first; i < first + n && i < len; ++i) bits[begin + i] = true;
    }
}

void pair_block(ref_bits& a, ref_bits& b, std::size_t begin, std::size_t len, pair_fill f, std::mt19937_64& rng) {
    auto random_at = [&](ref_bits& bits, unsigned per_mille) {
        for (std::size_t i = 0; i < len; ++i) bits[begin + i] = rng() % 1000 < per_mille;
    };
    switch (f) {
        case pair_fill::raw_dense:
            random_at(a, 500);
            random_at(b, 500);
            break;
        case pair_fill::raw_sparse:
            random_at(a, 120);
            random_at(b, 120);
            break;
        case pair_fill::raw_equal:
            random_at(a, 400);
            for (std::size_t i = 0; i < len; ++i) b[begin + i] = a[begin + i];
            break;
        case pair_fill::raw_complement:
        case pair_fill::raw_and_runs:
        case pair_fill::raw_and_few:
        case pair_fill::raw_and_mid: {
            ref_bits r(len, false);
            if (f == pair_fill::raw_and_runs) set_runs(r, 0, len, 1 + rng() % 20, rng);
            if (f == pair_fill::raw_and_few) set_random_bits(r, 0, len, 1 + rng() % 40, rng);
            if (f == pair_fill::raw_and_mid) set_random_bits(r, 0, len, 200, rng);
            for (std::size_t i = 0; i < len; ++i) {
                const bool p = rng() & 1;
                a[begin + i] = p || r[i];
                b[begin + i] = !p || r[i];
            }
            break;
        }
        case pair_fill::other:
        case pair_fill::count_:
            for (ref_bits* side : {&a, &b}) {
                switch (rng() % 5) {
                    case 0: break;  // empty
                    case 1:
                        for (std::size_t i = 0; i < len; ++i) (*side)[begin + i] = true;
                        break;
                    case 2: set_random_bits(*side, begin, len, 1 + rng() % 60, rng); break;
                    case 3: set_runs(*side, begin, len, 1 + rng() % 10, rng); break;
                    default:
                        for (std::size_t i = 0; i < len; ++i) (*side)[begin + i] = rng() % 1000 < 300;
                }
            }
            break;
    }
}

// Every stored block of s in the kind choose_plan gives its contents: that of a set built from
// its positions (which operator== checks too); here the kinds are counted for the test's reach.
void count_kinds(const bitset& s, std::vector<std::size_t>& kinds) {
    for (const auto& e : s.core().entries()) ++kinds[static_cast<std::size_t>(e.kind)];
}

ref_bits apply_ref(const ref_bits& a, const ref_bits& b, char op) {
    ref_bits out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        switch (op) {
            case '&': out[i] = a[i] && b[i]; break;
            case '|': out[i] = a[i] || b[i]; break;
            case '^': out[i] = a[i] != b[i]; break;
            default: out[i] = a[i] && !b[i];
        }
    }
    return out;
}

void check_ops(const ref_bits& ra, const ref_bits& rb, const bitset& a, const bitset& b,
               std::vector<std::size_t>& kinds) {
    for (const char op : {'&', '|', '^', '-'}) {
        SCOPED_TRACE(std::string("op ") + op);
        const ref_bits want = apply_ref(ra, rb, op);
        const bitset got = op == '&' ? (a & b) : op == '|' ? (a | b) : op == '^' ? (a ^ b) : andnot(a, b);
        ASSERT_EQ(got.to_positions(), positions_of(want));
        ASSERT_TRUE(got == make_set(want)) << "stored differently from the same set built from its positions";
        count_kinds(got, kinds);
        bitset in_place = a;  // the in-place operators walk block by block
        if (op == '&') in_place &= b;
        if (op == '|') in_place |= b;
        if (op == '^') in_place ^= b;
        if (op == '-') in_place.subtract(b);
        ASSERT_TRUE(in_place == got) << "in-place result differs";
    }
    ASSERT_EQ(and_count(a, b), positions_of(apply_ref(ra, rb, '&')).size());
}

// Blocks: stretches of raw pairs of random kinds, broken now and then by `other` pairs.
void make_pair(std::size_t size, std::mt19937_64& rng, ref_bits& ra, ref_bits& rb, int mix) {
    ra.assign(size, false);
    rb.assign(size, false);
    const std::size_t blocks = (size + block_values - 1) / block_values;
    for (std::size_t blk = 0; blk < blocks; ++blk) {
        const std::size_t begin = blk * block_values, len = std::min<std::size_t>(block_values, size - begin);
        pair_fill f;
        if (mix == 0) {
            f = pair_fill::raw_dense;  // one long stretch
        } else if (rng() % 8 == 0) {
            f = pair_fill::other;
        } else {
            f = static_cast<pair_fill>(rng() % static_cast<unsigned>(pair_fill::other));
        }
        pair_block(ra, rb, begin, len, f, rng);
    }
}

TEST(BitsetRaw, StretchesAgainstReference) {
    const std::size_t sizes[] = {2047, 2048, 2049, 3 * 2048, 64 * 2048, 64 * 2048 + 1, 65 * 2048 - 1,
                                 130 * 2048 + 700, 200 * 2048};
    std::vector<std::size_t> kinds(8, 0);
    on_every_path([&] {
        for (const std::size_t size : sizes) {
            for (int mix = 0; mix < 3; ++mix) {
                SCOPED_TRACE("size " + std::to_string(size) + " mix " + std::to_string(mix));
                std::mt19937_64 rng(case_seed("raw-sets", size, static_cast<std::uint64_t>(mix)));
                ref_bits ra, rb;
                make_pair(size, rng, ra, rb, mix);
                const bitset a = make_set(ra), b = make_set(rb);
                check_ops(ra, rb, a, b, kinds);
                check_ops(rb, ra, b, a, kinds);
            }
        }
    });
    // The test reaches every kind of result.
    EXPECT_GT(kinds[static_cast<std::size_t>(block_kind::raw)], 0u);
    EXPECT_GT(kinds[static_cast<std::size_t>(block_kind::runs)], 0u);
    EXPECT_GT(kinds[static_cast<std::size_t>(block_kind::positions)], 0u);
}

// Raw blocks whose payloads are not in block order: blocks of positions made raw by set()
// get their payload at the arena's end, which breaks the stretches there.
TEST(BitsetRaw, PayloadsOutOfOrder) {
    on_every_path([&] {
        for (const std::size_t size : {std::size_t{70} * 2048, std::size_t{129} * 2048 + 5}) {
            SCOPED_TRACE("size " + std::to_string(size));
            std::mt19937_64 rng(case_seed("raw-order", size));
            ref_bits ra(size), rb(size);
            const std::size_t blocks = (size + block_values - 1) / block_values;
            std::vector<std::size_t> sparse;
            for (std::size_t blk = 0; blk < blocks; ++blk) {
                const std::size_t begin = blk * block_values, len = std::min<std::size_t>(block_values, size - begin);
                const bool few = rng() % 5 == 0;
                if (few) sparse.push_back(blk);
                for (std::size_t i = 0; i < len; ++i) {
                    ra[begin + i] = few ? (i % 700 == 3) : rng() % 2 == 0;
                    rb[begin + i] = rng() % 3 == 0;
                }
            }
            bitset a = make_set(ra);
            for (const std::size_t blk : sparse) {  // now raw, payload appended
                const std::size_t begin = blk * block_values, len = std::min<std::size_t>(block_values, size - begin);
                for (std::size_t i = 0; i < len; i += 2) {
                    a.set(begin + i, true);
                    ra[begin + i] = true;
                }
            }
            ASSERT_EQ(a.to_positions(), positions_of(ra));
            std::vector<std::size_t> kinds(8, 0);
            const bitset b = make_set(rb);
            check_ops(ra, rb, a, b, kinds);
            check_ops(rb, ra, b, a, kinds);
        }
    });
}

}  // namespace
