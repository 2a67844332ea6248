// Sealed blocks with identical bytes share one block table entry (vector_core): columns of
// repeated blocks (constant runs, a non-constant block repeated side by side or a few blocks
// apart, a partial last block) checked against a std::vector reference after building, set()
// on a shared block, write-back, resize, copy and move, save/load, decoding, iteration and
// the operations that read the block table (sum, min/max, scans, dot, bitwise), on every SIMD
// path; and the memory a run column takes.

#include "test_support.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/bitwise.hpp>
#include <bitplane/int128.hpp>
#include <bitplane/reduce.hpp>
#include <bitplane/scan.hpp>
#include <bitplane/serialize.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::block_values;

template <class T>
using bvec = bitplane::vector<T>;

template <class T>
class BlockSharing : public ::testing::Test {};
using value_types = ::testing::Types<std::int32_t, std::uint32_t>;
TYPED_TEST_SUITE(BlockSharing, value_types);

// A column of whole-block segments: constant blocks in runs, a non-constant block repeated
// in a run, two blocks alternating (shared a block apart), fresh random blocks, and a partial
// last block of `tail` values that repeats the block before it.
template <class T>
std::vector<T> repeated_blocks(std::size_t blocks, std::size_t tail, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const std::vector<shape> shapes = representative_shapes();
    const auto block_of = [&](std::uint64_t s) {
        return make_typed<T>(shapes[s % shapes.size()], block_values, splitmix64(s));
    };
    std::vector<T> out;
    out.reserve((blocks + 1) * block_values);
    while (out.size() < blocks * block_values) {
        const std::size_t left = blocks - out.size() / block_values;
        const std::size_t run = std::min<std::size_t>(left, 1 + rng() % 12);
        switch (rng() % 4) {
            case 0: {  // constant blocks
                const T x = static_cast<T>(rng() % 4 == 0 ? rng() : rng() % 16);
                out.insert(out.end(), run * block_values, x);
                break;
            }
            case 1: {  // one block repeated
                const std::vector<T> b = block_of(rng());
                for (std::size_t k = 0; k < run; ++k) out.insert(out.end(), b.begin(), b.end());
                break;
            }
            case 2: {  // two blocks alternating
                const std::vector<T> a = block_of(rng());
                const std::vector<T> b = block_of(rng());
                for (std::size_t k = 0; k < run; ++k) out.insert(out.end(), (k % 2 ? b : a).begin(), (k % 2 ? b : a).end());
                break;
            }
            default: {  // distinct blocks
                for (std::size_t k = 0; k < run; ++k) {
                    const std::vector<T> b = block_of(rng());
                    out.insert(out.end(), b.begin(), b.end());
                }
            }
        }
    }
    for (std::size_t i = 0; i < tail; ++i) out.push_back(out[out.size() - block_values]);
    return out;
}

template <class T>
bitplane::wide_t<T> ref_sum(const std::vector<T>& v) {
    bitplane::wide_t<T> s = 0;
    for (const T x : v) s += x;
    return s;
}

template <class T>
bitplane::wide_t<T> ref_dot(const std::vector<T>& a, const std::vector<T>& b) {
    bitplane::wide_t<T> s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += static_cast<bitplane::wide_t<T>>(a[i]) * b[i];
    return s;
}

// Everything that reads the vector agrees with the reference; validate() passes.
template <class T>
::testing::AssertionResult agrees(const bvec<T>& v, const std::vector<T>& ref) {
    if (v.size() != ref.size()) return ::testing::AssertionFailure() << "size " << v.size() << " vs " << ref.size();
    try {
        v.validate();
    } catch (const std::exception& e) {
        return ::testing::AssertionFailure() << "validate: " << e.what();
    }
    if (auto r = same_values(ref, v.to_std_vector()); !r) return r << " (to_std_vector)";
    std::size_t i = 0;
    for (const T x : v)
        if (x != ref[i++]) return ::testing::AssertionFailure() << "iteration differs at " << i - 1;
    for (std::size_t k = 0; k < ref.size(); k += 97) {
        if (v[k] != ref[k]) return ::testing::AssertionFailure() << "operator[](" << k << ") differs";
    }
    for (std::size_t k = block_values - 1; k < ref.size(); k += block_values) {
        if (v[k] != ref[k]) return ::testing::AssertionFailure() << "operator[](" << k << ") differs";
    }
    if (bitplane::sum(v) != ref_sum(ref)) return ::testing::AssertionFailure() << "sum differs";
    if (!ref.empty()) {
        if (bitplane::min(v) != *std::min_element(ref.begin(), ref.end())) return ::testing::AssertionFailure() << "min";
        if (bitplane::max(v) != *std::max_element(ref.begin(), ref.end())) return ::testing::AssertionFailure() << "max";
        for (const T x : {ref.front(), ref[ref.size() / 2], ref.back()}) {
            const auto eq = static_cast<std::uint64_t>(std::count(ref.begin(), ref.end(), x));
            if (bitplane::count_eq(v, x) != eq) return ::testing::AssertionFailure() << "count_eq(" << x << ")";
            if (bitplane::find_eq(v, x).count() != eq) return ::testing::AssertionFailure() << "find_eq(" << x << ")";
            const auto lt = static_cast<std::uint64_t>(std::count_if(ref.begin(), ref.end(), [x](T y) { return y < x; }));
            if (bitplane::find_lt(v, x).count() != lt) return ::testing::AssertionFailure() << "find_lt(" << x << ")";
        }
    }
    if (bitplane::dot(v, v) != ref_dot(ref, ref)) return ::testing::AssertionFailure() << "dot(v, v) differs";
    return ::testing::AssertionSuccess();
}

// The blocks of `v` that share an entry with the block before them.
template <class T>
std::size_t shared_with_previous(const bvec<T>& v) {
    std::size_t n = 0;
    for (std::size_t b = 1; b < v.core().sealed_block_count(); ++b) n += v.core().same_as_previous(b) ? 1 : 0;
    return n;
}

TYPED_TEST(BlockSharing, RepeatedBlocksShareEntriesAndReadBackOnEveryPath) {
    using T = TypeParam;
    for (const std::size_t blocks : {std::size_t{1}, std::size_t{7}, std::size_t{40}, std::size_t{90}}) {
        for (const std::size_t tail : {std::size_t{0}, std::size_t{1}, std::size_t{1500}}) {
            SCOPED_TRACE("blocks=" + std::to_string(blocks) + " tail=" + std::to_string(tail) + " " + seed_note());
            const std::vector<T> ref = repeated_blocks<T>(blocks, tail, case_seed("sharing", blocks, tail));
            // Built three ways: one append (parallel encoding when long), push_back (sealed
            // one block at a time) and block-sized appends.
            const bvec<T> whole{std::span<const T>(ref)};
            bvec<T> pushed;
            for (const T x : ref) pushed.push_back(x);
            bvec<T> pieces;
            for (std::size_t i = 0; i < ref.size(); i += block_values)
                pieces.append(std::span<const T>(ref).subspan(i, std::min(block_values, ref.size() - i)));
            for (const bvec<T>* v : {&whole, static_cast<const bvec<T>*>(&pushed), static_cast<const bvec<T>*>(&pieces)}) {
                ASSERT_TRUE(agrees(*v, ref));
                // push_back and short appends compare with the two blocks before; a long append
                // also with the recent distinct blocks.
                ASSERT_GE(v->core().unique_block_count(), whole.core().unique_block_count());
            }
            std::size_t runs = 0;
            for (std::size_t b = 1; b < blocks; ++b)
                runs += std::equal(ref.begin() + static_cast<std::ptrdiff_t>(b * block_values),
                                   ref.begin() + static_cast<std::ptrdiff_t>((b + 1) * block_values),
                                   ref.begin() + static_cast<std::ptrdiff_t>((b - 1) * block_values))
                            ? 1
                            : 0;
            // Equal values encode to equal bytes: every block equal to the one before shares it.
            EXPECT_EQ(shared_with_previous(whole), runs);
            if (blocks >= 40) {
                EXPECT_LT(whole.core().unique_block_count(), blocks);
            }
            const bitplane::simd_path initial = bitplane::active_simd_path();
            for (const auto path : bitplane_test::paths_to_sweep()) {
                SCOPED_TRACE(std::string(bitplane::to_string(path)));
                bitplane::set_simd_path(path);
                const ::testing::AssertionResult r = agrees(whole, ref);
                bitplane::set_simd_path(initial);
                ASSERT_TRUE(r);
            }
        }
    }
}

TYPED_TEST(BlockSharing, SetOnASharedBlockCopiesItsEntry) {
    using T = TypeParam;
    std::mt19937_64 rng(case_seed("sharing-set"));
    for (int round = 0; round < 6; ++round) {
        SCOPED_TRACE("round " + std::to_string(round) + " " + seed_note());
        std::vector<T> ref = repeated_blocks<T>(30, round * 300, rng());
        // A run of eight equal constant blocks in the middle, so that there is a shared entry.
        std::fill(ref.begin() + 10 * block_values, ref.begin() + 18 * block_values, static_cast<T>(5));
        bvec<T> v{std::span<const T>(ref)};
        ASSERT_TRUE(v.core().same_as_previous(14));
        const std::size_t unique = v.core().unique_block_count();
        // One value of block 14 changes: only that block does (it gets its own entry).
        const std::size_t at = 14 * block_values + rng() % block_values;
        v.set(at, static_cast<T>(6));
        ref[at] = static_cast<T>(6);
        ASSERT_TRUE(agrees(v, ref));  // reads the write-back block and flushes nothing
        v.seal();
        ASSERT_TRUE(agrees(v, ref));
        EXPECT_FALSE(v.core().same_as_previous(14));
        EXPECT_FALSE(v.core().same_as_previous(15));
        EXPECT_TRUE(v.core().same_as_previous(13));
        EXPECT_TRUE(v.core().same_as_previous(16));
        EXPECT_EQ(v.core().unique_block_count(), unique + 1);
        // Set back: the block equals its neighbours again and shares their entry again.
        v.set(at, static_cast<T>(5));
        ref[at] = static_cast<T>(5);
        v.seal();
        ASSERT_TRUE(agrees(v, ref));
        EXPECT_TRUE(v.core().same_as_previous(14));
        EXPECT_TRUE(v.core().same_as_previous(15));
        EXPECT_EQ(v.core().unique_block_count(), unique);
        // Random writes all over (shared and unshared blocks, the tail), reads between them.
        for (int k = 0; k < 300; ++k) {
            const std::size_t i = rng() % ref.size();
            const T x = k % 3 == 0 ? ref[(i + block_values) % ref.size()] : static_cast<T>(rng() % 8);
            v.set(i, x);
            ref[i] = x;
            if (k % 50 == 0) {
                ASSERT_TRUE(agrees(v, ref));
            }
            if (k % 7 == 0) {
                const std::size_t j = rng() % ref.size();
                ASSERT_EQ(v[j], ref[j]) << "at " << j;
            }
        }
        ASSERT_TRUE(agrees(v, ref));
        v.seal();
        ASSERT_TRUE(agrees(v, ref));
    }
}

TYPED_TEST(BlockSharing, ResizeCopyMoveSaveLoadAndBitwise) {
    using T = TypeParam;
    std::mt19937_64 rng(case_seed("sharing-resize"));
    std::vector<T> ref = repeated_blocks<T>(50, 700, rng());
    bvec<T> v{std::span<const T>(ref)};
    // Up with a fill value (constant blocks appended one at a time: they share).
    ref.resize(ref.size() + 20 * block_values + 3, static_cast<T>(9));
    v.resize(ref.size(), static_cast<T>(9));
    ASSERT_TRUE(agrees(v, ref));
    EXPECT_TRUE(v.core().same_as_previous(v.core().sealed_block_count() - 1));
    // Down into a shared run, while a block is in the write-back buffer.
    v.set(3, static_cast<T>(1));
    ref[3] = static_cast<T>(1);
    ref.resize(60 * block_values + 11);
    v.resize(ref.size());
    ASSERT_TRUE(agrees(v, ref));
    ref.resize(7 * block_values);
    v.resize(ref.size());
    ASSERT_TRUE(agrees(v, ref));
    ref.resize(40 * block_values + 5, static_cast<T>(-3));
    v.resize(ref.size(), static_cast<T>(-3));
    ASSERT_TRUE(agrees(v, ref));

    // A copy is independent: writes to one leave the other's shared entries alone.
    bvec<T> copy = v;
    copy.set(20 * block_values, static_cast<T>(77));
    std::vector<T> copy_ref = ref;
    copy_ref[20 * block_values] = static_cast<T>(77);
    ASSERT_TRUE(agrees(copy, copy_ref));
    ASSERT_TRUE(agrees(v, ref));
    bvec<T> moved = std::move(copy);
    ASSERT_TRUE(agrees(moved, copy_ref));

    // Save and load: the loaded vector shares as the saved one does.
    std::vector<std::byte> file;
    bitplane::save(v, file);
    const bvec<T> loaded = bitplane::load<T>(std::span<const std::byte>(file));
    ASSERT_TRUE(agrees(loaded, ref));
    EXPECT_EQ(loaded.core().unique_block_count(), v.core().unique_block_count());
    EXPECT_EQ(shared_with_previous(loaded), shared_with_previous(v));

    // Decoded ranges across shared blocks.
    for (int k = 0; k < 20; ++k) {
        const std::size_t first = rng() % ref.size();
        const std::size_t len = rng() % (ref.size() - first + 1);
        std::vector<T> out(len);
        loaded.decode(first, std::span<T>(out));
        ASSERT_TRUE(same_values<T>(std::span<const T>(ref).subspan(first, len), out));
    }

    // Bitwise results (their blocks appended as bytes) and dot against another vector.
    const std::vector<T> other_ref = repeated_blocks<T>(40, 5, rng());
    const bvec<T> other{std::span<const T>(other_ref)};
    std::vector<T> and_ref(ref.size()), or_ref(ref.size()), xor_ref(ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const auto a = std::bit_cast<std::uint32_t>(ref[i]);
        const auto b = std::bit_cast<std::uint32_t>(other_ref[i]);
        and_ref[i] = std::bit_cast<T>(a & b);
        or_ref[i] = std::bit_cast<T>(a | b);
        xor_ref[i] = std::bit_cast<T>(a ^ b);
    }
    ASSERT_TRUE(agrees(v & other, and_ref));
    ASSERT_TRUE(agrees(v | other, or_ref));
    ASSERT_TRUE(agrees(v ^ other, xor_ref));
    ASSERT_TRUE(agrees(v & v, ref));
    EXPECT_TRUE(bitplane::dot(v, other) == ref_dot(ref, other_ref));
}

TYPED_TEST(BlockSharing, ARunColumnTakesFewBytesPerBlock) {
    using T = TypeParam;
    constexpr std::size_t blocks = 1000;
    // 1000 constant blocks of one value, then 1000 alternating between two values.
    std::vector<T> ref(blocks * block_values, static_cast<T>(9));
    for (std::size_t b = 0; b < blocks; ++b) ref.insert(ref.end(), block_values, static_cast<T>(b % 2 ? 3 : 4));
    const bvec<T> v{std::span<const T>(ref)};
    ASSERT_TRUE(agrees(v, ref));
    EXPECT_EQ(v.core().unique_block_count(), 3u);
    // Each block: its 4-byte entry index (no table entry, summary or bytes of its own).
    EXPECT_LT(v.memory_bytes(), 16 * 2 * blocks) << v.memory_bytes() << " bytes";
    bvec<T> pushed;
    for (const T x : ref) pushed.push_back(x);
    EXPECT_LT(pushed.memory_bytes(), 16 * 2 * blocks + 16 * 1024) << pushed.memory_bytes() << " bytes";
    std::vector<std::byte> file;
    bitplane::save(v, file);
    const bvec<T> loaded = bitplane::load<T>(std::span<const std::byte>(file));
    ASSERT_TRUE(agrees(loaded, ref));
    EXPECT_EQ(loaded.core().unique_block_count(), 3u);
    EXPECT_LT(loaded.memory_bytes(), 16 * 2 * blocks) << loaded.memory_bytes() << " bytes";
}

}  // namespace

namespace {

// More blocks share one entry than its 16-bit count holds: the count sticks, writes still copy
// the entry, and compaction counts again.
TEST(BlockSharingCount, MoreSharersThanTheCountHolds) {
    constexpr std::size_t blocks = 70'000;
    bitplane::vector<std::uint32_t> v;
    v.resize(blocks * block_values, 7u);
    ASSERT_EQ(v.core().unique_block_count(), 1u);
    EXPECT_LT(v.memory_bytes(), 8 * blocks);
    const std::size_t at = 40'000 * block_values + 5;
    v.set(at, 8u);
    v.seal();
    EXPECT_EQ(v.core().unique_block_count(), 2u);
    EXPECT_EQ(v[at], 8u);
    EXPECT_EQ(v[at - 1], 7u);
    EXPECT_EQ(v[at - block_values], 7u);
    EXPECT_EQ(v[at + block_values], 7u);
    EXPECT_EQ(bitplane::count_eq(v, 8u), 1u);
    EXPECT_EQ(bitplane::sum(v), bitplane::uint128{7} * blocks * block_values + 1);
    v.set(at, 7u);
    v.seal();
    EXPECT_EQ(v.core().unique_block_count(), 1u);
    v.resize(10 * block_values + 3);
    v.validate();
    EXPECT_EQ(v.core().unique_block_count(), 1u);
    EXPECT_EQ(bitplane::sum(v), bitplane::uint128{7} * (10 * block_values + 3));
}

}  // namespace
