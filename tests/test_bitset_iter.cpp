// bitplane::bitset iteration, seek and to_positions against a sorted std::vector / std::set
// reference, on sets whose blocks are of every stored kind (positions, gaps, runs, raw) and
// full or empty, asserted through core(); at sizes 0, 1, 2047, 2048, 2049, multi-word with a
// partial last block; on every SIMD path. Also the new bitset kernels (widen, ramp) against
// the portable table, and iterator copies.
#include "test_support.hpp"

#include "bitset/bitset_core.hpp"
#include "bitset/bitset_kernels.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/error.hpp>
#include <bitplane/simd.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <numeric>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::bitset;
using bitplane::block_values;
using bitplane::detail::block_kind;
using positions = std::vector<std::uint64_t>;

// One block's positions (relative to its start, < len) of shape `shape`:
// 0 empty, 1 full, 2 a few far apart (positions), 3 many close (gaps), 4 long runs,
// 5 random 50% (raw), 6 random 10% (raw), 7 one position, 8 random density, 9 runs of 1..40.
void fill_block(positions& out, std::uint64_t base, std::uint32_t len, int shape, std::mt19937_64& rng) {
    auto add = [&](std::uint32_t p) {
        if (p < len) out.push_back(base + p);
    };
    switch (shape) {
        case 0: break;
        case 1: for (std::uint32_t p = 0; p < len; ++p) add(p); break;
        case 2: for (std::uint32_t p = static_cast<std::uint32_t>(rng() % 300); p < len; p += 260 + static_cast<std::uint32_t>(rng() % 200)) add(p); break;
        case 3: for (std::uint32_t p = static_cast<std::uint32_t>(rng() % 20); p < len && p < 1200; p += 2 + static_cast<std::uint32_t>(rng() % 20)) add(p); break;
        case 4: {
            std::uint32_t p = static_cast<std::uint32_t>(rng() % 100);
            for (int r = 0; r < 4 && p < len; ++r) {
                const std::uint32_t end = p + 100 + static_cast<std::uint32_t>(rng() % 300);
                for (; p < end; ++p) add(p);
                p += 50 + static_cast<std::uint32_t>(rng() % 200);
            }
            break;
        }
        case 5: for (std::uint32_t p = 0; p < len; ++p) if (rng() & 1) add(p); break;
        case 6: for (std::uint32_t p = 0; p < len; ++p) if (rng() % 10 == 0) add(p); break;
        case 7: add(static_cast<std::uint32_t>(rng() % len)); break;
        case 8: {
            const std::uint64_t per_mille = rng() % 1000;
            for (std::uint32_t p = 0; p < len; ++p) if (rng() % 1000 < per_mille) add(p);
            break;
        }
        default: {
            std::uint32_t p = static_cast<std::uint32_t>(rng() % 64);
            while (p < len) {
                const std::uint32_t end = p + 1 + static_cast<std::uint32_t>(rng() % 40);
                for (; p < end; ++p) add(p);
                p += 1 + static_cast<std::uint32_t>(rng() % 40);
            }
        }
    }
}

positions make_positions(std::uint64_t size, std::uint64_t seed, int only_shape = -1) {
    std::mt19937_64 rng(seed);
    positions out;
    for (std::uint64_t b = 0; b * block_values < size; ++b) {
        const auto len = static_cast<std::uint32_t>(std::min<std::uint64_t>(block_values, size - b * block_values));
        fill_block(out, b * block_values, len, only_shape >= 0 ? only_shape : static_cast<int>(rng() % 10), rng);
    }
    return out;
}

// Kinds of the stored blocks of s, as bits (1 << kind), and bit 0 for a full block.
unsigned kinds_of(const bitset& s) {
    unsigned kinds = 0;
    for (const auto& e : s.core().entries()) kinds |= 1u << static_cast<unsigned>(e.kind);
    for (const auto& w : s.core().words())
        if (w.full != 0) kinds |= 1u;
    return kinds;
}

std::vector<std::uint64_t> sizes() {
    return {0, 1, 2, 2047, 2048, 2049, 3 * 2048 + 5, 130 * 2048 + 1001};
}

std::uint64_t reference_next(const positions& ref, std::uint64_t pos, std::uint64_t size) {
    const auto it = std::lower_bound(ref.begin(), ref.end(), pos);
    return it == ref.end() ? size : *it;
}

// Positions to seek to: around every block boundary, on and around set positions (a sample of
// a large set), and past the end.
std::vector<std::uint64_t> seek_targets(const positions& ref, std::uint64_t size, std::mt19937_64& rng) {
    std::vector<std::uint64_t> t = {0, 1, size, size + 1, size + 4096, ~std::uint64_t{0}};
    if (size > 0) t.push_back(size - 1);
    for (std::uint64_t b = 0; b * block_values <= size; ++b) {
        const std::uint64_t at = b * block_values;
        for (std::uint64_t d : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{63}, std::uint64_t{64}, std::uint64_t{1000}}) {
            t.push_back(at + d);
            if (at >= d) t.push_back(at - d);
        }
    }
    const std::size_t step = ref.size() > 4000 ? 37 : 1;
    for (std::size_t i = 0; i < ref.size(); i += step) {
        t.push_back(ref[i]);
        t.push_back(ref[i] + 1);
        if (ref[i] > 0) t.push_back(ref[i] - 1);
    }
    for (int k = 0; k < 200 && size > 0; ++k) t.push_back(rng() % size);
    return t;
}

::testing::AssertionResult check_set(const bitset& s, const positions& ref, std::uint64_t seed) {
    const std::uint64_t size = s.size();
    // Iteration.
    positions got;
    for (const std::uint64_t p : s) got.push_back(p);
    if (got != ref) return ::testing::AssertionFailure() << "iteration differs (" << got.size() << " vs " << ref.size() << ")";
    if (static_cast<std::size_t>(std::distance(s.begin(), s.end())) != ref.size())
        return ::testing::AssertionFailure() << "std::distance differs";
    // to_positions, three ways.
    if (s.to_positions() != ref) return ::testing::AssertionFailure() << "to_positions() differs";
    positions buffer(ref.size() + 3, 0xDEAD);
    if (s.to_positions(std::span<std::uint64_t>(buffer)) != ref.size())
        return ::testing::AssertionFailure() << "to_positions(span64) count";
    if (!std::equal(ref.begin(), ref.end(), buffer.begin()) || buffer[ref.size()] != 0xDEAD)
        return ::testing::AssertionFailure() << "to_positions(span64) differs or writes past count()";
    std::vector<std::uint32_t> buffer32(ref.size() + 3, 0xDEAD);
    if (s.to_positions(std::span<std::uint32_t>(buffer32)) != ref.size())
        return ::testing::AssertionFailure() << "to_positions(span32) count";
    if (!std::equal(ref.begin(), ref.end(), buffer32.begin()) || buffer32[ref.size()] != 0xDEAD)
        return ::testing::AssertionFailure() << "to_positions(span32) differs or writes past count()";
    // Seek, then walk a few hundred steps (across chunk and block ends).
    std::mt19937_64 rng(seed);
    for (const std::uint64_t target : seek_targets(ref, size, rng)) {
        const std::uint64_t expected = reference_next(ref, target, size);
        auto it = s.seek(target);
        if (*it != expected)
            return ::testing::AssertionFailure() << "seek(" << target << ") at " << *it << ", expected " << expected;
        if (s.lower_bound(target) != it) return ::testing::AssertionFailure() << "lower_bound differs from seek";
        if (s.next_set(target) != expected)
            return ::testing::AssertionFailure() << "next_set(" << target << ") = " << s.next_set(target);
        if ((it == s.end()) != (expected == size)) return ::testing::AssertionFailure() << "seek end mismatch at " << target;
        auto r = std::lower_bound(ref.begin(), ref.end(), target);
        const int steps = static_cast<int>(rng() % 300);
        for (int k = 0; k < steps && r != ref.end(); ++k, ++r, ++it)
            if (*it != *r) return ::testing::AssertionFailure() << "walk after seek(" << target << ") step " << k;
        if (r == ref.end() && it != s.end()) return ::testing::AssertionFailure() << "walk after seek not at end";
    }
    return ::testing::AssertionSuccess();
}

TEST(BitsetIter, EveryKindEverySizeEveryPath) {
    on_every_path([] {
        unsigned seen = 0;
        for (const std::uint64_t size : sizes()) {
            for (int shape = -1; shape < 10; ++shape) {
                const std::uint64_t seed = size * 31 + static_cast<std::uint64_t>(shape + 1);
                const positions ref = make_positions(size, seed, shape);
                const bitset s = bitset::from_positions(ref, size);
                SCOPED_TRACE("size " + std::to_string(size) + " shape " + std::to_string(shape));
                seen |= kinds_of(s);
                EXPECT_TRUE(check_set(s, ref, seed));
            }
        }
        // Every kind that memory stores, and full blocks, were exercised (memory keeps no gaps
        // blocks since the in-memory choice of bitset_block.hpp; gaps are a file encoding).
        for (const block_kind k : {block_kind::positions, block_kind::runs, block_kind::raw})
            EXPECT_TRUE(seen & (1u << static_cast<unsigned>(k))) << "no block of kind " << static_cast<int>(k);
        EXPECT_TRUE(seen & 1u) << "no full block";
    });
}

TEST(BitsetIter, SetsFromAlgebraAndSetCalls) {
    on_every_path([] {
        const std::uint64_t size = 70 * 2048 + 3;
        const positions a = make_positions(size, 5), b = make_positions(size, 6);
        const bitset sa = bitset::from_positions(a, size), sb = bitset::from_positions(b, size);
        for (const bitset& s : {sa & sb, sa | sb, sa ^ sb, andnot(sa, sb), ~sa}) {
            const positions ref = s.to_positions();
            std::set<std::uint64_t> ordered;
            for (const std::uint64_t p : s) ordered.insert(p);
            EXPECT_EQ(positions(ordered.begin(), ordered.end()), ref);
            EXPECT_TRUE(check_set(s, ref, 9));
        }
        bitset edited = sa;
        std::set<std::uint64_t> ref(a.begin(), a.end());
        std::mt19937_64 rng(3);
        for (int k = 0; k < 300; ++k) {
            const std::uint64_t p = rng() % size;
            const bool value = rng() & 1;
            edited.set(p, value);
            if (value) ref.insert(p); else ref.erase(p);
        }
        EXPECT_TRUE(check_set(edited, positions(ref.begin(), ref.end()), 4));
    });
}

TEST(BitsetIter, FullAndEmpty) {
    for (const std::uint64_t size : sizes()) {
        const bitset full(size, true), none(size, false);
        positions all(size);
        std::iota(all.begin(), all.end(), std::uint64_t{0});
        EXPECT_TRUE(check_set(full, all, 1));
        EXPECT_TRUE(check_set(none, {}, 2));
        EXPECT_EQ(none.begin(), none.end());
    }
    const bitset moved_from = [] {
        bitset s(100, true);
        bitset t = std::move(s);
        return s;  // NOLINT(bugprone-use-after-move): a moved-from set iterates as empty
    }();
    EXPECT_EQ(moved_from.begin(), moved_from.end());
}

TEST(BitsetIter, CopiesAreIndependent) {
    const std::uint64_t size = 20 * 2048 + 7;
    const positions ref = make_positions(size, 11, 5);  // raw blocks: several chunks each
    const bitset s = bitset::from_positions(ref, size);
    auto it = s.begin();
    for (int k = 0; k < 100; ++k) ++it;
    auto copy = it;  // mid-chunk
    bitset::const_iterator assigned;
    assigned = it;
    for (int k = 0; k < 1000; ++k) ++it;  // the original moves on across chunks and blocks
    EXPECT_EQ(*it, ref[1100]);
    for (std::size_t k = 100; k < 1500; ++k, ++copy) ASSERT_EQ(*copy, ref[k]) << k;
    for (std::size_t k = 100; k < 700; ++k) ASSERT_EQ(*assigned++, ref[k]) << k;
    EXPECT_EQ(*assigned, ref[700]);
    // Copies at the end of a chunk, and of an exhausted iterator, equal end().
    auto last = s.seek(ref.back());
    auto done = last;
    ++done;
    EXPECT_EQ(done, s.end());
    EXPECT_EQ(bitset::const_iterator(done), s.end());
    EXPECT_EQ(*last, ref.back());
    EXPECT_NE(last, s.end());
    // std algorithms copy iterators.
    EXPECT_EQ(std::accumulate(s.begin(), s.end(), std::uint64_t{0}), std::accumulate(ref.begin(), ref.end(), std::uint64_t{0}));
    EXPECT_EQ(std::find(s.begin(), s.end(), ref[500]), s.seek(ref[500]));
}

TEST(BitsetIter, ToPositionsErrors) {
    const positions ref = make_positions(5000, 3, 6);
    ASSERT_GT(ref.size(), 1u);
    const bitset s = bitset::from_positions(ref, 5000);
    std::vector<std::uint64_t> small(ref.size() - 1);
    EXPECT_THROW((void)s.to_positions(std::span<std::uint64_t>(small)), bitplane::size_error);
    std::vector<std::uint32_t> small32(ref.size() - 1);
    EXPECT_THROW((void)s.to_positions(std::span<std::uint32_t>(small32)), bitplane::size_error);
    // 32-bit positions: a universe of exactly 2^32 fits, one more bit does not.
    const std::uint64_t limit = std::uint64_t{1} << 32;
    bitset edge(static_cast<std::size_t>(limit));
    edge.set(static_cast<std::size_t>(limit - 1));
    edge.set(5);
    std::vector<std::uint32_t> two(2);
    EXPECT_EQ(edge.to_positions(std::span<std::uint32_t>(two)), 2u);
    EXPECT_EQ(two, (std::vector<std::uint32_t>{5, 0xFFFFFFFFu}));
    EXPECT_EQ(*edge.seek(6), limit - 1);
    EXPECT_EQ(edge.seek(limit), edge.end());
    const bitset beyond(static_cast<std::size_t>(limit + 1));
    std::vector<std::uint32_t> none;
    EXPECT_THROW((void)beyond.to_positions(std::span<std::uint32_t>(none)), bitplane::argument_error);
    std::vector<std::uint64_t> none64;
    EXPECT_EQ(beyond.to_positions(std::span<std::uint64_t>(none64)), 0u);
    EXPECT_EQ(beyond.begin(), beyond.end());
}

// The widen and ramp kernels of every table against plain loops, at every length 0..70 and
// misaligned inputs (positions payloads are read in place at any offset).
TEST(BitsetIter, WidenAndRampKernels) {
    on_every_path([] {
        const auto& k = bitplane::detail::bitset_kernels();
        std::mt19937_64 rng(8);
        std::vector<unsigned char> bytes(2 * 80 + 1);
        for (auto& b : bytes) b = static_cast<unsigned char>(rng());
        for (std::uint32_t n = 0; n <= 70; ++n) {
            for (std::size_t misalign = 0; misalign < 2; ++misalign) {
                const unsigned char* in = bytes.data() + misalign;
                const std::uint64_t base = (rng() % 1000) * 2048;
                std::vector<std::uint64_t> out64(n + 4, 7), want64(n + 4, 7);
                std::vector<std::uint32_t> out32(n + 4, 7), want32(n + 4, 7);
                for (std::uint32_t i = 0; i < n; ++i) {
                    std::uint16_t v;
                    std::memcpy(&v, in + 2 * i, 2);
                    want64[i] = base + v;
                    want32[i] = static_cast<std::uint32_t>(base + v);
                }
                k.widen_positions64(in, n, base, out64.data());
                k.widen_positions32(in, n, static_cast<std::uint32_t>(base), out32.data());
                EXPECT_EQ(out64, want64) << n;
                EXPECT_EQ(out32, want32) << n;
            }
            const std::uint64_t start = rng() % (std::uint64_t{1} << 40);
            std::vector<std::uint64_t> r64(n + 4, 7), w64(n + 4, 7);
            std::vector<std::uint32_t> r32(n + 4, 7), w32(n + 4, 7);
            for (std::uint32_t i = 0; i < n; ++i) {
                w64[i] = start + i;
                w32[i] = static_cast<std::uint32_t>(start) + i;
            }
            k.ramp64(start, n, r64.data());
            k.ramp32(static_cast<std::uint32_t>(start), n, r32.data());
            EXPECT_EQ(r64, w64) << n;
            EXPECT_EQ(r32, w32) << n;
        }
    });
}

}  // namespace
