// The kernels added for reductions and similarity (and_popcounts, dot_values, deposit_plane,
// extract_plane, interleaved_popcounts, interleaved_transpose, word_moments), on every SIMD path this CPU
// runs, against plain bit-at-a-time references. Inputs are random
// from a fixed seed; BITPLANE_TEST_SEED runs others (the seed is printed with every failure).
#include "test_support.hpp"
#include "../src/simd/kernels.hpp"

#include <bitplane/block.hpp>
#include <bitplane/int128.hpp>
#include <bitplane/simd.hpp>

#include <gtest/gtest.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <bit>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::plane_count;
using bitplane::plane_words;
using bitplane::simd_path;
using bitplane::detail::kernel_table;
using words = std::vector<std::uint32_t>;

constexpr std::uint32_t garbage = 0xDEADBEEFu;

bool bit(std::uint32_t w, std::size_t i) {
    return ((w >> i) & 1u) != 0;
}

template <class F>
void for_each_path(F&& f) {
    const simd_path saved = bitplane::active_simd_path();
    for (const simd_path p : bitplane_test::paths_to_sweep()) {
        bitplane::set_simd_path(p);
        SCOPED_TRACE("path " + std::string(bitplane::to_string(p)));
        f(bitplane::detail::active_kernels());
    }
    bitplane::set_simd_path(saved);
}

// Planes of every kind: random, sparse, dense, all zero, all one, copies and complements.
words test_planes(std::size_t count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    words planes(count * plane_words);
    for (std::size_t i = 0; i < count; ++i) {
        std::uint32_t* p = planes.data() + i * plane_words;
        for (std::size_t w = 0; w < plane_words; ++w) {
            const auto r = static_cast<std::uint32_t>(rng());
            switch (i % 7) {
                case 0: p[w] = r; break;
                case 1: p[w] = r & static_cast<std::uint32_t>(rng()) & static_cast<std::uint32_t>(rng()); break;
                case 2: p[w] = r | static_cast<std::uint32_t>(rng()); break;
                case 3: p[w] = 0; break;
                case 4: p[w] = 0xFFFFFFFFu; break;
                case 5: p[w] = i > 0 ? ~(p - plane_words)[w] : r; break;
                default: p[w] = i > 0 ? (p - plane_words)[w] : r; break;
            }
        }
    }
    return planes;
}

// ---- and_popcounts ----------------------------------------------------------------------------

std::uint32_t ref_and_popcount(const std::uint32_t* a, const std::uint32_t* b, std::size_t words_count) {
    std::uint32_t n = 0;
    for (std::size_t w = 0; w < words_count; ++w) {
        for (std::size_t k = 0; k < 32; ++k) n += bit(a[w], k) && bit(b[w], k) ? 1 : 0;
    }
    return n;
}

TEST(ReduceKernels, AndPopcountsMatchReference) {
    BITPLANE_SEED_TRACE();
    const words a_planes = test_planes(plane_count + 1, case_seed("and-a"));
    const words b_planes = test_planes(plane_count, case_seed("and-b"));
    for_each_path([&](const kernel_table& k) {
        for (const std::size_t na : {0, 1, 2, 3, 10, 32}) {
            for (const std::size_t nb : {0, 1, 2, 5, 31, 32}) {
                for (const std::size_t n_words : {0, 1, 3, 4, 7, 8, 9, 16, 31, 32, 33, 40, 56, 63, 64, 65}) {
                    SCOPED_TRACE(std::to_string(na) + " x " + std::to_string(nb) + ", " + std::to_string(n_words) + " words");
                    // Planes in a scrambled order, one of them unaligned (offset by a word).
                    std::vector<const std::uint32_t*> pa(na), pb(nb);
                    for (std::size_t j = 0; j < na; ++j) pa[j] = a_planes.data() + ((j * 5 + 1) % plane_count) * plane_words + (j == 1 ? 1 : 0);
                    for (std::size_t j = 0; j < nb; ++j) pb[j] = b_planes.data() + ((j * 11 + 2) % plane_count) * plane_words;
                    std::vector<std::uint32_t> out(na * nb + 3, garbage);
                    k.and_popcounts(pa.data(), na, pb.data(), nb, n_words, out.data());
                    const std::size_t effective = std::min<std::size_t>(n_words, plane_words);
                    for (std::size_t j = 0; j < na; ++j) {
                        for (std::size_t t = 0; t < nb; ++t) {
                            ASSERT_EQ(out[j * nb + t], ref_and_popcount(pa[j], pb[t], effective)) << j << ", " << t;
                        }
                    }
                    for (std::size_t x = na * nb; x < out.size(); ++x) ASSERT_EQ(out[x], garbage) << "wrote past the matrix";
                }
            }
        }
    });
}

// ---- dot_values -----------------------------------------------------------------------------

bitplane::uint128 ref_dot(const words& a, const words& b, std::size_t first, std::size_t count, bool is_signed) {
    bitplane::uint128 s = 0;  // modulo 2^128, as the kernel reports
    for (std::size_t i = first; i < first + count; ++i) {
        if (is_signed) {
            const bitplane::int128 p = bitplane::int128{static_cast<std::int32_t>(a[i])} * static_cast<std::int32_t>(b[i]);
            s += static_cast<bitplane::uint128>(p);
        } else {
            s += bitplane::uint128{a[i]} * b[i];
        }
    }
    return s;
}

words dot_inputs(std::size_t n, int kind, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    words v(n);
    for (auto& x : v) {
        const auto r = static_cast<std::uint32_t>(rng());
        switch (kind) {
            case 0: x = r; break;                                  // full range
            case 1: x = 0xFFFFFFFFu - (r % 7); break;             // near 2^32 - 1 / small negatives
            case 2: x = r % 2 == 0 ? 0x80000000u : 0x7FFFFFFFu; break;  // INT32_MIN / INT32_MAX
            case 3: x = r & 0x3FFu; break;                          // narrow
            default: x = r % 3 == 0 ? 0x80000000u : r; break;
        }
    }
    return v;
}

TEST(ReduceKernels, DotValuesMatchesReference) {
    BITPLANE_SEED_TRACE();
    for_each_path([&](const kernel_table& k) {
        for (int ka = 0; ka < 5; ++ka) {
            for (int kb = 0; kb < 5; ++kb) {
                const words a = dot_inputs(2100, ka, case_seed("dot-a", static_cast<std::uint64_t>(ka)));
                const words b = dot_inputs(2100, kb, case_seed("dot-b", static_cast<std::uint64_t>(kb)));
                for (const std::size_t first : {0, 1, 3}) {
                    for (const std::size_t count : {0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 100, 2047, 2048, 2096}) {
                        for (const bool is_signed : {false, true}) {
                            SCOPED_TRACE("kinds " + std::to_string(ka) + "/" + std::to_string(kb) + " first " +
                                         std::to_string(first) + " count " + std::to_string(count) +
                                         (is_signed ? " signed" : " unsigned"));
                            std::uint64_t out[3] = {garbage, garbage, garbage};
                            k.dot_values(a.data() + first, b.data() + first, count, is_signed, out);
                            const bitplane::uint128 expected = ref_dot(a, b, first, count, is_signed);
                            const bitplane::uint128 got = (bitplane::uint128{out[1]} << 64) | out[0];
                            ASSERT_TRUE(got == expected) << bitplane::to_string(got) << " != " << bitplane::to_string(expected);
                            ASSERT_EQ(out[2], garbage);
                        }
                    }
                }
            }
        }
    });
}

// More values than one chunk of lane sums holds (2^24): the flushes must not lose anything.
TEST(ReduceKernelsSlow, DotValuesOverManyChunks) {
    const std::size_t n = (std::size_t{1} << 25) + 13;
    const words a(n, 0xFFFFFFFFu);
    const words b(n, 0xFFFFFFFEu);
    for_each_path([&](const kernel_table& k) {
        for (const bool is_signed : {false, true}) {
            std::uint64_t out[2];
            k.dot_values(a.data(), b.data(), n, is_signed, out);
            const bitplane::uint128 expected =
                is_signed ? bitplane::uint128{2} * n : bitplane::uint128{n} * 0xFFFFFFFFu * 0xFFFFFFFEu;
            EXPECT_TRUE(((bitplane::uint128{out[1]} << 64) | out[0]) == expected) << is_signed;
        }
    });
}

// ---- deposit_plane ------------------------------------------------------------------------------

// word_moments: set bits and the sum of their positions, words at any stride and alignment, a
// bit at a time (the reference), on every path; the positions sum is what a delta block's sum
// weighs its residuals with.
TEST(ReduceKernels, WordMomentsMatchReference) {
    BITPLANE_SEED_TRACE();
    const words planes = test_planes(12, case_seed("word-moments"));
    std::vector<std::uint8_t> bytes(planes.size() * 4 + 3);
    for_each_path([&](const kernel_table& k) {
        for (const std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
            std::memcpy(bytes.data() + offset, planes.data(), planes.size() * 4);
            for (const std::size_t stride_words : {std::size_t{1}, std::size_t{3}, std::size_t{12}}) {
                for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{8},
                                                std::size_t{33}, std::size_t{64}}) {
                    if ((count == 0 ? 0 : (count - 1) * stride_words + 1) > planes.size()) continue;
                    SCOPED_TRACE("offset " + std::to_string(offset) + ", stride " + std::to_string(stride_words) +
                                 ", count " + std::to_string(count));
                    std::uint64_t pop = 0, sum = 0;
                    for (std::size_t c = 0; c < count; ++c) {
                        const std::uint32_t w = planes[c * stride_words];
                        for (std::size_t b = 0; b < 32; ++b) {
                            if (bit(w, b)) {
                                ++pop;
                                sum += 32 * c + b;
                            }
                        }
                    }
                    for (const bool positions : {false, true}) {
                        std::uint64_t out[2] = {garbage, garbage};
                        k.word_moments(bytes.data() + offset, 4 * stride_words, count, positions, out);
                        EXPECT_EQ(out[0], pop);
                        EXPECT_EQ(out[1], positions ? sum : 0u);
                    }
                }
            }
        }
    });
}

TEST(ReduceKernels, DepositPlaneMatchesReference) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("deposit"));
    const std::vector<words> masks = plane_masks(rng);
    const words compact_random = test_planes(1, case_seed("deposit-c"));
    for_each_path([&](const kernel_table& k) {
        for (std::size_t mi = 0; mi < masks.size(); ++mi) {
            const words& mask = masks[mi];
            std::size_t set = 0;
            for (const std::uint32_t w : mask) set += static_cast<std::size_t>(std::popcount(w));
            for (int ci = 0; ci < 3; ++ci) {
                SCOPED_TRACE("mask " + std::to_string(mi) + " compact " + std::to_string(ci));
                // Compact planes hold `set` bits, zeros above (as block views guarantee).
                words compact = ci == 0 ? compact_random : words(plane_words, ci == 1 ? 0xFFFFFFFFu : 0x5A5A5A5Au);
                for (std::size_t i = set; i < plane_words * 32; ++i) compact[i / 32] &= ~(1u << (i % 32));
                words out(plane_words + 1, garbage);
                k.deposit_plane(compact.data(), mask.data(), out.data());
                words expected(plane_words, 0);
                std::size_t next = 0;
                for (std::size_t i = 0; i < plane_words * 32; ++i) {
                    if (!bit(mask[i / 32], i % 32)) continue;
                    if (bit(compact[next / 32], next % 32)) expected[i / 32] |= 1u << (i % 32);
                    ++next;
                }
                for (std::size_t w = 0; w < plane_words; ++w) ASSERT_EQ(out[w], expected[w]) << "word " << w;
                ASSERT_EQ(out[plane_words], garbage);
            }
        }
    });
}

TEST(ReduceKernels, ExtractPlaneMatchesReference) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("extract"));
    const std::vector<words> selectors = plane_masks(rng);
    const std::vector<words> planes = {test_planes(1, case_seed("extract-p")), words(plane_words, 0xFFFFFFFFu),
                                       words(plane_words, 0x5A5A5A5Au), words(plane_words, 0u)};
    for_each_path([&](const kernel_table& k) {
        for (std::size_t si = 0; si < selectors.size(); ++si) {
            for (std::size_t pi = 0; pi < planes.size(); ++pi) {
                SCOPED_TRACE("selector " + std::to_string(si) + " plane " + std::to_string(pi));
                const words& select = selectors[si];
                const words& p = planes[pi];
                for (const std::size_t n_words : {std::size_t{64}, std::size_t{40}, std::size_t{8}, std::size_t{1},
                                                  std::size_t{0}, std::size_t{99}}) {
                    SCOPED_TRACE(std::to_string(n_words) + " words");
                    const std::size_t used = std::min<std::size_t>(n_words, plane_words);
                    words out(plane_words + 1, garbage);
                    k.extract_plane(p.data(), select.data(), n_words, out.data());
                    words expected(used, 0);
                    std::size_t next = 0;
                    for (std::size_t i = 0; i < used * 32; ++i) {
                        if (!bit(select[i / 32], i % 32)) continue;
                        if (bit(p[i / 32], i % 32)) expected[next / 32] |= 1u << (next % 32);
                        ++next;
                    }
                    for (std::size_t w = 0; w < used; ++w) ASSERT_EQ(out[w], expected[w]) << "word " << w;
                    for (std::size_t w = used; w <= plane_words; ++w) ASSERT_EQ(out[w], garbage) << "wrote word " << w;
                    if (used != plane_words) continue;
                    // deposit_plane undoes it on the selected bits.
                    words back(plane_words, garbage);
                    k.deposit_plane(out.data(), select.data(), back.data());
                    for (std::size_t w = 0; w < plane_words; ++w) ASSERT_EQ(back[w], p[w] & select[w]) << "word " << w;
                }
            }
        }
    });
}

// ---- interleaved payloads -------------------------------------------------------------------

std::vector<std::uint32_t> interleaved_live_masks(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint32_t> masks = {0u, 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 0xFFFFFFFEu, 0x80000001u,
                                        0x0000FF00u, 0xAAAAAAAAu};
    for (unsigned k = 1; k < 32; ++k) masks.push_back((1u << k) - 1u);  // planes 0..k-1 (uniform data)
    for (int i = 0; i < 12; ++i) masks.push_back(static_cast<std::uint32_t>(rng() & rng()));
    return masks;
}

// Bytes of an interleaved payload for `live` from random plane words (written little-endian).
std::vector<std::uint8_t> interleaved_payload(std::uint32_t live, std::uint64_t seed) {
    const auto stored = static_cast<std::size_t>(std::popcount(live));
    std::mt19937_64 rng(seed);
    std::vector<std::uint8_t> bytes(4 * plane_words * stored);
    for (std::size_t w = 0; w < plane_words * stored; ++w) {
        std::uint32_t x = static_cast<std::uint32_t>(rng());
        if (w % 5 == 1) x &= static_cast<std::uint32_t>(rng());  // some sparser words
        for (int k = 0; k < 4; ++k) bytes[4 * w + static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(x >> (8 * k));
    }
    return bytes;
}

std::uint32_t payload_word(const std::uint8_t* p, std::size_t index) {
    return static_cast<std::uint32_t>(p[4 * index]) | static_cast<std::uint32_t>(p[4 * index + 1]) << 8 |
           static_cast<std::uint32_t>(p[4 * index + 2]) << 16 | static_cast<std::uint32_t>(p[4 * index + 3]) << 24;
}

// The kernels on `payload` against bit-by-bit references.
void check_interleaved(const kernel_table& k, const std::uint8_t* payload, std::uint32_t live) {
    const auto stored = static_cast<std::size_t>(std::popcount(live));
    std::vector<std::uint32_t> plane_of;
    for (std::size_t j = 0; j < plane_count; ++j)
        if (bit(live, j)) plane_of.push_back(static_cast<std::uint32_t>(j));
    // Popcounts per stored plane.
    std::vector<std::uint32_t> counts(stored + 1, garbage);
    // Half the time with a prefetch area (the payload itself: only a hint, never read).
    const bool ahead = (live & 1u) != 0;
    k.interleaved_popcounts(payload, static_cast<std::uint32_t>(stored), counts.data(), ahead ? payload : nullptr,
                            ahead ? 4 * plane_words * stored : 0);
    for (std::size_t i = 0; i < stored; ++i) {
        std::uint32_t n = 0;
        for (std::size_t c = 0; c < plane_words; ++c) {
            const std::uint32_t w = payload_word(payload, c * stored + i);
            for (std::size_t b = 0; b < 32; ++b) n += bit(w, b) ? 1 : 0;
        }
        ASSERT_EQ(counts[i], n) << "stored plane " << i;
    }
    ASSERT_EQ(counts[stored], garbage) << "wrote past the counts";
    // Values: out[32 c + j] = value 32 c + j, whose bit p is bit j of word c of plane p.
    std::vector<std::uint32_t> out(bitplane::block_values + 1, garbage);
    k.interleaved_transpose(payload, live, out.data(), ahead ? payload : nullptr, ahead ? 4 * plane_words * stored : 0);
    for (std::size_t c = 0; c < plane_words; ++c) {
        for (std::size_t j = 0; j < 32; ++j) {
            std::uint32_t value = 0;
            for (std::size_t i = 0; i < stored; ++i) {
                if (bit(payload_word(payload, c * stored + i), j)) value |= 1u << plane_of[i];
            }
            ASSERT_EQ(out[32 * c + j], value) << "value " << 32 * c + j;
        }
    }
    ASSERT_EQ(out[bitplane::block_values], garbage) << "wrote past the values";
}

// interleaved_dot (where a path has it) on one pair of operands against values decoded bit by
// bit and multiplied in 128-bit arithmetic: a_i = (residual | ones) + base mod 2^32, as uint32
// or int32.
void expect_interleaved_dot(const kernel_table& k, const bitplane::detail::interleaved_operand& a,
                            const bitplane::detail::interleaved_operand& b, bool is_signed) {
    auto value = [](const bitplane::detail::interleaved_operand& op, std::size_t i) {
        const auto stored = static_cast<std::size_t>(std::popcount(op.live));
        const std::size_t c = i / 32;
        const std::size_t j = i % 32;
        std::uint32_t v = 0;
        std::size_t rank = 0;
        for (std::size_t plane = 0; plane < plane_count; ++plane) {
            if (!bit(op.live, plane)) continue;
            if (bit(payload_word(op.payload, c * stored + rank), j)) v |= 1u << plane;
            ++rank;
        }
        return (v | op.ones) + op.base;
    };
    bitplane::int128 expected = 0;
    for (std::size_t i = 0; i < bitplane::block_values; ++i) {
        const std::uint32_t x = value(a, i);
        const std::uint32_t y = value(b, i);
        expected += is_signed ? bitplane::int128{static_cast<std::int32_t>(x)} * static_cast<std::int32_t>(y)
                              : static_cast<bitplane::int128>(bitplane::uint128{x} * y);
    }
    std::uint64_t out[2] = {garbage, garbage};
    k.interleaved_dot(&a, &b, is_signed, out);
    const auto got = static_cast<bitplane::int128>((bitplane::uint128{out[1]} << 64) | out[0]);
    ASSERT_TRUE(got == expected) << (is_signed ? "signed" : "unsigned") << ": got " << bitplane::to_string(got)
                                 << ", expected " << bitplane::to_string(expected);
}

// interleaved_dot on two payloads with random all-one planes and bases.
void check_interleaved_dot(const kernel_table& k, const std::uint8_t* pa, std::uint32_t live_a,
                           const std::uint8_t* pb, std::uint32_t live_b, std::uint64_t seed) {
    if (k.interleaved_dot == nullptr) return;
    std::mt19937_64 rng(seed);
    for (int round = 0; round < 4; ++round) {
        // Round 0 plain residuals; then all-one planes outside the live ones, and bases that
        // wrap around 2^32 and cross the sign bit.
        const auto ones_a = round == 0 ? 0u : static_cast<std::uint32_t>(rng()) & ~live_a;
        const auto ones_b = round == 0 ? 0u : static_cast<std::uint32_t>(rng()) & ~live_b;
        const auto base_a = round < 2 ? 0u : static_cast<std::uint32_t>(rng());
        const auto base_b = round < 2 ? 0u : static_cast<std::uint32_t>(rng());
        for (const bool is_signed : {false, true}) {
            SCOPED_TRACE("round " + std::to_string(round));
            expect_interleaved_dot(k, {pa, live_a, ones_a, base_a, pb, 64}, {pb, live_b, ones_b, base_b, nullptr, 0},
                                   is_signed);
        }
    }
}

// The cases the width tests run on one pair of payloads, unsigned and signed: plain residuals;
// all-one planes just above the live ones (`above_*`, 0 for none) with a small base on a; bases
// on both (negative ones for int32; b's unsigned base below `unsigned_base_b_bound`); and a
// with itself.
void expect_dot_cases(const kernel_table& k, const std::uint8_t* a, std::uint32_t live_a, std::uint32_t above_a,
                      const std::uint8_t* b, std::uint32_t live_b, std::uint32_t above_b,
                      std::uint32_t unsigned_base_b_bound, std::mt19937_64& rng) {
    const auto small = [&] { return static_cast<std::uint32_t>(rng() % 5000); };
    const auto negative = [&] { return static_cast<std::uint32_t>(-static_cast<std::int32_t>(rng() % 70000)); };
    for (const bool is_signed : {false, true}) {
        SCOPED_TRACE(is_signed ? "signed" : "unsigned");
        expect_interleaved_dot(k, {a, live_a, 0, 0, nullptr, 0}, {b, live_b, 0, 0, nullptr, 0}, is_signed);
        expect_interleaved_dot(k, {a, live_a, above_a, small(), nullptr, 0}, {b, live_b, above_b, 0, nullptr, 0},
                               is_signed);
        const std::uint32_t base_a = is_signed ? negative() : small();
        const std::uint32_t base_b =
            is_signed ? negative() : static_cast<std::uint32_t>(rng() % unsigned_base_b_bound);
        expect_interleaved_dot(k, {a, live_a, 0, base_a, nullptr, 0}, {b, live_b, 0, base_b, nullptr, 0}, is_signed);
        expect_interleaved_dot(k, {a, live_a, above_a, 7, nullptr, 0}, {a, live_a, above_a, 7, nullptr, 0}, is_signed);
    }
}

// interleaved_and_popcounts on two payloads against a bit-by-bit reference: every pair count and
// every plane's count, nothing written past them (half the time with prefetch areas: hints).
void check_interleaved_pairs(const kernel_table& k, const std::uint8_t* a, std::uint32_t live_a, const std::uint8_t* b,
                             std::uint32_t live_b) {
    const auto sa = static_cast<std::size_t>(std::popcount(live_a));
    const auto sb = static_cast<std::size_t>(std::popcount(live_b));
    std::vector<std::uint32_t> pairs(sa * sb + 1, garbage);
    std::vector<std::uint32_t> pop_a(sa + 1, garbage);
    std::vector<std::uint32_t> pop_b(sb + 1, garbage);
    const bool ahead = ((live_a ^ live_b) & 1u) != 0;
    const bitplane::detail::interleaved_operand oa{a, live_a, 0, 0, ahead ? b : nullptr, ahead ? 4 * plane_words * sb : 0};
    const bitplane::detail::interleaved_operand ob{b, live_b, 0, 0, ahead ? a : nullptr, ahead ? 4 * plane_words * sa : 0};
    k.interleaved_and_popcounts(&oa, &ob, pairs.data(), pop_a.data(), pop_b.data());
    const auto count = [](std::uint32_t w) {
        std::uint32_t n = 0;
        for (std::size_t i = 0; i < 32; ++i) n += bit(w, i) ? 1 : 0;
        return n;
    };
    for (std::size_t j = 0; j < sa; ++j) {
        std::uint32_t n = 0;
        for (std::size_t c = 0; c < plane_words; ++c) n += count(payload_word(a, c * sa + j));
        ASSERT_EQ(pop_a[j], n) << "a's stored plane " << j;
        for (std::size_t q = 0; q < sb; ++q) {
            std::uint32_t m = 0;
            for (std::size_t c = 0; c < plane_words; ++c) m += count(payload_word(a, c * sa + j) & payload_word(b, c * sb + q));
            ASSERT_EQ(pairs[j * sb + q], m) << "pair " << j << " x " << q;
        }
    }
    for (std::size_t q = 0; q < sb; ++q) {
        std::uint32_t n = 0;
        for (std::size_t c = 0; c < plane_words; ++c) n += count(payload_word(b, c * sb + q));
        ASSERT_EQ(pop_b[q], n) << "b's stored plane " << q;
    }
    EXPECT_EQ(pairs[sa * sb], garbage);
    EXPECT_EQ(pop_a[sa], garbage);
    EXPECT_EQ(pop_b[sb], garbage);
}

// Every pair of stored plane counts 0..32 (lane registers full, partial and two of them; the
// avx512 kernel's groups of 4 broadcast planes, partial ones included), scattered live masks
// (the kernel reads stored ranks only), one payload with itself, at odd offsets.
TEST(ReduceKernels, InterleavedAndPopcountsMatchReference) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("and-popcounts"));
    for_each_path([&](const kernel_table& k) {
        for (std::uint32_t sa = 0; sa <= 32; ++sa) {
            for (std::uint32_t sb = 0; sb <= 32; ++sb) {
                const auto scattered = [&](std::uint32_t stored) {  // `stored` distinct planes, anywhere
                    std::uint32_t live = 0;
                    while (static_cast<std::uint32_t>(std::popcount(live)) < stored) live |= 1u << (rng() % 32);
                    return live;
                };
                const std::uint32_t live_a = scattered(sa);
                const std::uint32_t live_b = scattered(sb);
                SCOPED_TRACE("stored " + std::to_string(sa) + " x " + std::to_string(sb));
                const std::vector<std::uint8_t> a = interleaved_payload(live_a, case_seed("pairs-a", sa));
                const std::vector<std::uint8_t> b = interleaved_payload(live_b, case_seed("pairs-b", sb));
                const std::size_t offset = rng() % 4;
                std::vector<std::uint8_t> shifted(offset + a.size());  // ends where its heap buffer does
                std::copy(a.begin(), a.end(), shifted.begin() + static_cast<std::ptrdiff_t>(offset));
                check_interleaved_pairs(k, shifted.data() + offset, live_a, b.data(), live_b);
                if (sa == sb) check_interleaved_pairs(k, b.data(), live_b, b.data(), live_b);
            }
        }
    });
}

// Narrow operands (values below 2^15 once their all-one planes and bases are added, where the
// AVX2 kernel multiplies 16-bit lanes and may transpose both operands' top planes together):
// every pair of widths 0..16, low planes, with and without all-one planes just above them, bases
// that keep the values within the type (and negative int32 bases), and one block with itself.
TEST(ReduceKernels, InterleavedDotMatchesReferenceOnNarrowOperands) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("dot-narrow"));
    bool fused_somewhere = false;
    for_each_path([&](const kernel_table& k) {
        if (k.interleaved_dot == nullptr) return;
        fused_somewhere = true;
        for (std::uint32_t wa = 0; wa <= 16; ++wa) {
            for (std::uint32_t wb = 0; wb <= 16; ++wb) {
                const std::uint32_t live_a = (1u << wa) - 1u;
                const std::uint32_t live_b = (1u << wb) - 1u;
                SCOPED_TRACE("widths " + std::to_string(wa) + " x " + std::to_string(wb));
                const std::vector<std::uint8_t> a = interleaved_payload(live_a, case_seed("narrow-a", wa));
                const std::vector<std::uint8_t> b = interleaved_payload(live_b, case_seed("narrow-b", wb));
                const std::uint32_t above_a = wa < 15 && rng() % 2 == 0 ? 1u << wa : 0u;
                const std::uint32_t above_b = wb < 15 && rng() % 2 == 0 ? 1u << wb : 0u;
                expect_dot_cases(k, a.data(), live_a, above_a, b.data(), live_b, above_b, 5000, rng);
            }
        }
        // Planes 0..w-1 against scattered planes of the same span (one operand in its lanes,
        // the other permuted: the AVX2 kernel's readers must both permute then), both ways.
        for (std::uint32_t w = 1; w <= 16; ++w) {
            const std::uint32_t placed = (1u << w) - 1u;
            const std::uint32_t scattered = (static_cast<std::uint32_t>(rng()) & placed) | (1u << (w - 1));
            SCOPED_TRACE("live " + std::to_string(placed) + " x " + std::to_string(scattered));
            const std::vector<std::uint8_t> a = interleaved_payload(placed, case_seed("placed-a", w));
            const std::vector<std::uint8_t> b = interleaved_payload(scattered, case_seed("scattered-b", w));
            for (const bool is_signed : {false, true}) {
                expect_interleaved_dot(k, {a.data(), placed, 0, 0, nullptr, 0}, {b.data(), scattered, 0, 0, nullptr, 0},
                                       is_signed);
                expect_interleaved_dot(k, {b.data(), scattered, 0, 7, nullptr, 0}, {a.data(), placed, 0, 0, nullptr, 0},
                                       is_signed);
            }
        }
    });
    if (!fused_somewhere) GTEST_SKIP() << "no SIMD path of this CPU has a fused interleaved_dot kernel";
}

// Operands of 15 to 32 bits (the AVX2 kernel splits values below 2^30 into 15-bit halves,
// multiplies them in 16-bit lanes and widens its 32-bit sums before they can overflow; wider
// values take 32-bit products): every pair of widths 14..32 and some narrow ones against them,
// on random payloads and on all-one payloads (every value 2^w - 1: the largest products and
// sums), with all-one planes just above the live ones, bases that keep the values within the
// type or push them past 2^30, negative int32 bases, and one block with itself.
TEST(ReduceKernels, InterleavedDotMatchesReferenceOnSplitOperands) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("dot-split"));
    std::vector<std::uint32_t> widths = {0, 1, 7, 8, 9};
    for (std::uint32_t w = 14; w <= 32; ++w) widths.push_back(w);
    bool fused_somewhere = false;
    for_each_path([&](const kernel_table& k) {
        if (k.interleaved_dot == nullptr) return;
        fused_somewhere = true;
        for (const std::uint32_t wa : widths) {
            for (const std::uint32_t wb : widths) {
                if (wa < 15 && wb < 15) continue;  // the narrow test's
                const std::uint32_t live_a = wa == 32 ? 0xFFFFFFFFu : (1u << wa) - 1u;
                const std::uint32_t live_b = wb == 32 ? 0xFFFFFFFFu : (1u << wb) - 1u;
                for (const bool full : {false, true}) {
                    SCOPED_TRACE("widths " + std::to_string(wa) + " x " + std::to_string(wb) + (full ? ", all ones" : ""));
                    const auto payload = [&](std::uint32_t live, std::uint64_t seed) {
                        return full ? std::vector<std::uint8_t>(4 * plane_words * static_cast<std::size_t>(std::popcount(live)), 0xFF)
                                    : interleaved_payload(live, seed);
                    };
                    const std::vector<std::uint8_t> a = payload(live_a, case_seed("split-a", wa));
                    const std::vector<std::uint8_t> b = payload(live_b, case_seed("split-b", wb));
                    const std::uint32_t above_a = wa < 31 && rng() % 2 == 0 ? 1u << wa : 0u;
                    const std::uint32_t above_b = wb < 31 && rng() % 2 == 0 ? 1u << wb : 0u;
                    // Unsigned b bases up to 2^30: values pushed past the split kernel's 15-bit halves.
                    expect_dot_cases(k, a.data(), live_a, above_a, b.data(), live_b, above_b, 0x40000000u, rng);
                }
            }
        }
        // Scattered live planes below 2^w (bytes of a few planes, loaded by lane masks and
        // permuted to their planes' lanes, beside full ones that the AVX2 kernel loads whole),
        // with all-one planes among them; above 24 bits, the wide kernel's (on AVX2).
        for (std::uint32_t w = 9; w <= 32; ++w) {
            const std::uint32_t below = w == 32 ? 0xFFFFFFFFu : (1u << w) - 1u;
            const auto scattered = [&] {
                return (static_cast<std::uint32_t>(rng() & rng()) & below) | (1u << (w - 1)) | (rng() % 2 == 0 ? 0xFFu : 0u);
            };
            const std::uint32_t live_a = scattered();
            const std::uint32_t live_b = scattered();
            SCOPED_TRACE("live " + std::to_string(live_a) + " x " + std::to_string(live_b));
            const std::vector<std::uint8_t> a = interleaved_payload(live_a, case_seed("scattered-a", w));
            const std::vector<std::uint8_t> b = interleaved_payload(live_b, case_seed("scattered-b", w));
            const auto ones_a = static_cast<std::uint32_t>(rng()) & below & ~live_a;
            const auto ones_b = static_cast<std::uint32_t>(rng()) & below & ~live_b;
            for (const bool is_signed : {false, true}) {
                expect_interleaved_dot(k, {a.data(), live_a, 0, 0, nullptr, 0}, {b.data(), live_b, 0, 0, nullptr, 0}, is_signed);
                expect_interleaved_dot(k, {a.data(), live_a, ones_a, 99, nullptr, 0}, {b.data(), live_b, ones_b, 0, nullptr, 0},
                                       is_signed);
                expect_interleaved_dot(k, {a.data(), live_a, ones_a, 0, nullptr, 0}, {a.data(), live_a, ones_a, 0, nullptr, 0},
                                       is_signed);
            }
        }
    });
    if (!fused_somewhere) GTEST_SKIP() << "no SIMD path of this CPU has a fused interleaved_dot kernel";
}

// Operands of 17 to 32 bits whose bases lift their largest value to 2^k - 1 for every k up to
// 32 without wrapping (the AVX2 wide kernel sums products as they are while the two values'
// bits add up to at most 60 and folds them before a 64-bit lane can overflow; above, it sums
// their high halves apart): all-one payloads (the largest products), unsigned, int32 (where
// such values are non-negative and multiply as unsigned, or pass INT32_MAX and wrap to
// negative), and each operand with itself.
TEST(ReduceKernels, InterleavedDotMatchesReferenceAtFoldBounds) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("dot-fold-bounds"));
    bool fused_somewhere = false;
    // Payloads of all-one planes: every value is its operand's largest, the products as large as
    // they can be at each fold bound.
    const auto check = [](const kernel_table& k, std::uint32_t wa, std::uint32_t wb, std::uint32_t top_a,
                          std::uint32_t top_b) {
        const std::uint32_t live_a = wa == 32 ? 0xFFFFFFFFu : (1u << wa) - 1u;
        const std::uint32_t live_b = wb == 32 ? 0xFFFFFFFFu : (1u << wb) - 1u;
        const std::vector<std::uint8_t> a(4 * plane_words * wa, 0xFF);
        const std::vector<std::uint8_t> b(4 * plane_words * wb, 0xFF);
        const auto lift = [](std::uint32_t top, std::uint32_t live) {
            return (top == 32 ? 0xFFFFFFFFu : (1u << top) - 1u) - live;
        };
        const std::uint32_t base_a = lift(top_a, live_a);  // top_a >= wa, top_b >= wb
        const std::uint32_t base_b = lift(top_b, live_b);
        SCOPED_TRACE("widths " + std::to_string(wa) + " x " + std::to_string(wb) + ", bases " + std::to_string(base_a) +
                     ", " + std::to_string(base_b));
        for (const bool is_signed : {false, true}) {
            expect_interleaved_dot(k, {a.data(), live_a, 0, base_a, nullptr, 0}, {b.data(), live_b, 0, base_b, nullptr, 0},
                                   is_signed);
            expect_interleaved_dot(k, {b.data(), live_b, 0, base_b, nullptr, 0}, {b.data(), live_b, 0, base_b, nullptr, 0},
                                   is_signed);
        }
    };
    for_each_path([&](const kernel_table& k) {
        if (k.interleaved_dot == nullptr) return;
        fused_somewhere = true;
        for (std::uint32_t wa = 17; wa <= 32; wa += static_cast<std::uint32_t>(rng() % 2) + 1) {
            for (std::uint32_t wb = wa; wb <= 32; wb += static_cast<std::uint32_t>(rng() % 3) + 1) {
                for (std::uint32_t top_b = wb; top_b <= 32; ++top_b) {
                    // b's largest value 2^top_b - 1; a's 2^top_a - 1, top_a the same or one above
                    // (wa < 32): the two tops add up to every sum from wa + wb to 64.
                    check(k, wa, wb, std::min<std::uint32_t>(32, top_b + static_cast<std::uint32_t>(rng() % 2)), top_b);
                    if (::testing::Test::HasFailure()) return;
                }
            }
        }
        // Every product width from 59 to 64 bits of the wide kernel's folds (dot_fused_avx2.cpp,
        // fold_registers: 61-63 fold every 4, 2, 1 registers), without bases and with them:
        // 31 x 31 (int32 too), 31 x 32, 30 x 31, 31 x narrower, 32 x 32.
        const std::uint32_t widths[][2] = {{31, 31}, {31, 32}, {30, 31}, {30, 30}, {29, 31}, {32, 32},
                                            {17, 31}, {24, 31}, {25, 31}, {31, 30}, {32, 31}, {28, 32}};
        for (const auto& w : widths) {
            for (std::uint32_t lift_a = 0; lift_a <= 1 && w[0] + lift_a <= 32; ++lift_a) {
                for (std::uint32_t lift_b = 0; lift_b <= 1 && w[1] + lift_b <= 32; ++lift_b) {
                    check(k, w[0], w[1], w[0] + lift_a, w[1] + lift_b);
                    if (::testing::Test::HasFailure()) return;
                }
            }
        }
    });
    if (!fused_somewhere) GTEST_SKIP() << "no SIMD path of this CPU has a fused interleaved_dot kernel";
}

TEST(ReduceKernels, InterleavedDotMatchesReference) {
    BITPLANE_SEED_TRACE();
    const std::vector<std::uint32_t> masks = interleaved_live_masks(case_seed("dot-masks"));
    std::mt19937_64 pick(case_seed("dot-pairs"));
    bool fused_somewhere = false;
    for_each_path([&](const kernel_table& k) {
        fused_somewhere = fused_somewhere || k.interleaved_dot != nullptr;
        for (std::size_t i = 0; i < masks.size(); ++i) {
            const std::uint32_t live_a = masks[i];
            const std::uint32_t live_b = masks[pick() % masks.size()];
            SCOPED_TRACE("live " + std::to_string(live_a) + " x " + std::to_string(live_b));
            const std::vector<std::uint8_t> a = interleaved_payload(live_a, case_seed("dot-a", live_a));
            const std::vector<std::uint8_t> b = interleaved_payload(live_b, case_seed("dot-b", live_b));
            check_interleaved_dot(k, a.data(), live_a, b.data(), live_b, case_seed("dot-ones", i));
        }
    });
    if (!fused_somewhere) GTEST_SKIP() << "no SIMD path of this CPU has a fused interleaved_dot kernel";
}

TEST(ReduceKernels, InterleavedPayloadsMatchReference) {
    BITPLANE_SEED_TRACE();
    const std::vector<std::uint32_t> masks = interleaved_live_masks(case_seed("interleaved-masks"));
    for_each_path([&](const kernel_table& k) {
        for (const std::uint32_t live : masks) {
            const std::vector<std::uint8_t> bytes = interleaved_payload(live, case_seed("interleaved", live));
            for (const std::size_t offset : {0, 1, 3}) {
                SCOPED_TRACE("live " + std::to_string(live) + " offset " + std::to_string(offset));
                // The payload ends exactly where its heap buffer ends (ASan sees any over-read).
                std::vector<std::uint8_t> buffer(offset + bytes.size());
                std::copy(bytes.begin(), bytes.end(), buffer.begin() + static_cast<std::ptrdiff_t>(offset));
                check_interleaved(k, buffer.data() + offset, live);
            }
        }
    });
}

#if defined(__linux__)
// The payload ends at a page with no access: the kernels never read past it.
TEST(ReduceKernels, InterleavedPayloadsAreNotOverread) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t room = 2 * 4 * plane_words * plane_count;  // 16 KiB, a whole number of pages
    if (room % page != 0) GTEST_SKIP() << "page size " << page;
    void* mem = mmap(nullptr, room + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(mem, MAP_FAILED);
    auto* base = static_cast<std::uint8_t*>(mem);
    ASSERT_EQ(mprotect(base + room, page, PROT_NONE), 0);
    for_each_path([&](const kernel_table& k) {
        for (const std::uint32_t live : interleaved_live_masks(case_seed("overread-masks"))) {
            const std::vector<std::uint8_t> bytes = interleaved_payload(live, case_seed("overread", live));
            std::uint8_t* payload = base + room - bytes.size();
            std::copy(bytes.begin(), bytes.end(), payload);
            SCOPED_TRACE("live " + std::to_string(live));
            check_interleaved(k, payload, live);  // a read past the end faults here
            check_interleaved_dot(k, payload, live, payload, live, case_seed("overread-dot", live));
            check_interleaved_pairs(k, payload, live, payload, live);
            const std::vector<std::uint8_t> narrow = interleaved_payload(0x7u, case_seed("overread-narrow", live));
            check_interleaved_pairs(k, payload, live, narrow.data(), 0x7u);
            check_interleaved_pairs(k, narrow.data(), 0x7u, payload, live);
        }
    });
    munmap(mem, room + page);
}
#endif

}  // namespace
