// The block codec (bitplane::codec) against plain references: the input values themselves
// for round trips, residuals computed here from the documented transforms for the plane
// structure describe_block reports, hand-assembled blocks (from the byte layout of
// src/codec/block_format.hpp) for the decoder, and hostile bytes (truncations, flips, and one
// block per structural rule broken) that must throw format_error and never crash.
#include "test_support.hpp"

#include <bitplane/codec.hpp>
#include <bitplane/error.hpp>
#include <bitplane/simd.hpp>

#include "codec/block_format.hpp"
#include "codec/plane_gaps.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::block_values;
using bitplane::format_error;
using bitplane::plane_count;
using bitplane::codec::base_kind;
using bitplane::codec::block_info;
using bitplane::codec::layout;
using bitplane::codec::payload_kind;
using bitplane::codec::transform;
using bytes = std::vector<std::byte>;
using words = std::vector<std::uint32_t>;

// ---- helpers ----------------------------------------------------------------------------------

// The block in a buffer of exactly its size (a fresh allocation, so that ASan reports any
// read past its end).
bytes encode(std::span<const std::uint32_t> values, bool is_signed) {
    bytes out(bitplane::codec::max_block_bytes);
    const std::size_t n = bitplane::codec::encode_block(values, is_signed, out);
    EXPECT_GT(n, 0u);
    EXPECT_LE(n, out.size());
    return bytes(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n));
}

words decode(std::span<const std::byte> block, std::size_t count) {
    words out(count, 0xDEADBEEFu);
    bitplane::codec::decode_block(block, out);
    return out;
}

/// Restores the SIMD path active when it was made.
class simd_path_guard {
public:
    simd_path_guard() : saved_(bitplane::active_simd_path()) {}
    ~simd_path_guard() { bitplane::set_simd_path(saved_); }
    simd_path_guard(const simd_path_guard&) = delete;
    simd_path_guard& operator=(const simd_path_guard&) = delete;

private:
    bitplane::simd_path saved_;
};

/// Block lengths: 1..40, every power of two and its neighbours, a few odd ones, and random.
std::vector<std::size_t> block_lengths(std::uint64_t seed) {
    std::set<std::size_t> s;
    for (std::size_t n = 1; n <= (quick_mode() ? 17 : 40); ++n) s.insert(n);
    for (std::size_t p = 64; p <= 2048; p *= 2)
        for (std::size_t n : {p - 1, p, p + 1})
            if (n <= 2048) s.insert(n);
    for (std::size_t n : {100u, 200u, 255u, 300u, 333u, 777u, 1000u, 1500u, 1999u, 2015u, 2017u, 2040u, 2046u})
        if (!quick_mode() || n % 3 == 0) s.insert(n);
    std::mt19937_64 rng(seed);
    for (int i = 0; i < (quick_mode() ? 4 : 12); ++i) s.insert(1 + rng() % 2048);
    return {s.begin(), s.end()};
}

/// The format_error that `f` throws, or a failure.
template <class F>
::testing::AssertionResult throws_format_error(F&& f, std::size_t input_size, std::uint64_t* offset = nullptr) {
    try {
        f();
    } catch (const format_error& e) {
        if (offset) *offset = e.offset();
        if (e.offset() > input_size)
            return ::testing::AssertionFailure() << "format_error offset " << e.offset() << " beyond the input ("
                                                 << input_size << " bytes): " << e.what();
        return ::testing::AssertionSuccess();
    } catch (const std::exception& e) {
        return ::testing::AssertionFailure() << "threw something else than format_error: " << e.what();
    }
    return ::testing::AssertionFailure() << "did not throw";
}

// Both block checkers must reject `block` as a block of `count` values.
::testing::AssertionResult rejected(std::span<const std::byte> block, std::size_t count) {
    words out(count);
    auto r = throws_format_error([&] { bitplane::codec::decode_block(block, out); }, block.size());
    if (!r) return r << " (decode_block)";
    r = throws_format_error([&] { bitplane::codec::validate_block(block, count); }, block.size());
    if (!r) return r << " (validate_block)";
    return ::testing::AssertionSuccess();
}

std::uint32_t zigzag(std::uint32_t v) { return (v << 1) ^ (0u - (v >> 31)); }

/// Residuals of `values` under the transform describe_block reports, as the header comment
/// of src/codec/value_transform.hpp defines them (frame of reference: minus the minimum;
/// delta: differences minus the smallest difference, the first value as its own base).
// `delta_min` is the minimum difference the block's header holds: the smallest difference, or 0
// (the zero-preserving candidate of run-heavy sparse blocks); the other transforms have one
// choice of parameters each.
words residuals_of(std::span<const std::uint32_t> values, bool is_signed, transform t, std::uint32_t delta_min) {
    words r(values.begin(), values.end());
    switch (t) {
        case transform::none: break;
        case transform::frame_of_reference: {
            std::uint32_t lo = 0;
            if (is_signed) {
                std::int32_t m = std::numeric_limits<std::int32_t>::max();
                for (auto v : values) m = std::min(m, static_cast<std::int32_t>(v));
                lo = static_cast<std::uint32_t>(m);
            } else {
                lo = *std::min_element(values.begin(), values.end());
            }
            for (auto& v : r) v -= lo;
            break;
        }
        case transform::zigzag:
            for (auto& v : r) v = zigzag(v);
            break;
        case transform::delta: {
            std::int64_t dmin = std::numeric_limits<std::int64_t>::max();
            for (std::size_t i = 1; i < values.size(); ++i)
                dmin = std::min<std::int64_t>(dmin, static_cast<std::int32_t>(values[i] - values[i - 1]));
            if (delta_min != 0 && delta_min != static_cast<std::uint32_t>(dmin)) {
                ADD_FAILURE() << "delta minimum " << delta_min << " is neither 0 nor the smallest difference " << dmin;
            }
            r[0] = 0;
            for (std::size_t i = 1; i < values.size(); ++i) r[i] = values[i] - values[i - 1] - delta_min;
            break;
        }
    }
    return r;
}

std::uint32_t payload_bytes_of(const bitplane::codec::plane_info& p, std::uint32_t length) {
    switch (p.payload) {
        case payload_kind::none: return 0;
        case payload_kind::positions: return 2u * p.items;
        case payload_kind::runs: return 4u * p.items;
        case payload_kind::raw: return (length + 7) / 8;
        case payload_kind::gaps: return p.items;
    }
    return 0;
}

bool counted(payload_kind k) {
    return k == payload_kind::positions || k == payload_kind::runs || k == payload_kind::gaps;
}

/// Checks describe_block's account of an encoder output of `values` against the values.
::testing::AssertionResult description_consistent(std::span<const std::uint32_t> values, bool is_signed,
                                                  std::span<const std::byte> block) {
    const block_info info = bitplane::codec::describe_block(block, values.size());
    const auto n = static_cast<std::uint32_t>(values.size());
    if (info.bytes != block.size())
        return ::testing::AssertionFailure() << "describe says " << info.bytes << " bytes, block has " << block.size();
    if (info.values != n) return ::testing::AssertionFailure() << "describe says " << info.values << " values";

    // The planes the residuals need, from the values themselves.
    // The delta minimum: bytes 5..8 of a delta block's header (docs/format.md).
    std::uint32_t delta_min = 0;
    if (info.value_transform == transform::delta && block.size() >= 9)
        for (int k = 3; k >= 0; --k) delta_min = (delta_min << 8) | static_cast<std::uint32_t>(block[5 + k]);
    const words residuals = residuals_of(values, is_signed, info.value_transform, delta_min);
    words stored;
    for (auto r : residuals)
        if (info.value_layout == layout::dense || r != 0) stored.push_back(r);
    if (info.stored_values != stored.size())
        return ::testing::AssertionFailure() << "stored_values " << info.stored_values << ", expected "
                                             << stored.size() << " (transform "
                                             << static_cast<int>(info.value_transform) << ")";
    if (info.value_layout == layout::sparse && (stored.empty() || stored.size() * 2 > n))
        return ::testing::AssertionFailure() << "sparse layout with " << stored.size() << " of " << n
                                             << " values non-zero";
    std::uint32_t any = 0, all = ~0u;
    for (auto r : stored) any |= r, all &= r;
    const std::uint32_t length = info.stored_values;

    bool all_raw = true;
    std::uint32_t stored_planes = 0;
    for (std::uint32_t j = 0; j < plane_count; ++j) {
        const auto& p = info.planes[j];
        const bool elided = p.payload == payload_kind::none && (p.base == base_kind::zero || p.base == base_kind::one);
        const bool ones = (all >> j) & 1u, zeros = !((any >> j) & 1u);
        if (zeros && !(elided && p.base == base_kind::zero))
            return ::testing::AssertionFailure() << "plane " << j << " is all zero but not elided as zero";
        if (ones && !(elided && p.base == base_kind::one))
            return ::testing::AssertionFailure() << "plane " << j << " is all one but not elided as one";
        if (!zeros && !ones && elided)
            return ::testing::AssertionFailure() << "plane " << j << " varies but is elided";
        if (elided) {
            if (p.bytes != 0) return ::testing::AssertionFailure() << "elided plane " << j << " costs bytes";
            continue;
        }
        ++stored_planes;
        if (p.base == base_kind::plane || p.base == base_kind::complement) {
            const auto& q = info.planes[p.reference];
            if (p.reference == j || (q.payload == payload_kind::none &&
                                     (q.base == base_kind::zero || q.base == base_kind::one)))
                return ::testing::AssertionFailure() << "plane " << j << " refers to plane " << int(p.reference)
                                                     << ", which is not stored";
        }
        if (!(p.base == base_kind::zero && p.payload == payload_kind::raw)) all_raw = false;
    }
    // References are acyclic: following them ends at a constant base within 32 steps.
    for (std::uint32_t j = 0; j < plane_count; ++j) {
        std::uint32_t at = j;
        int steps = 0;
        while (info.planes[at].base == base_kind::plane || info.planes[at].base == base_kind::complement) {
            at = info.planes[at].reference;
            if (++steps > 32) return ::testing::AssertionFailure() << "reference cycle through plane " << j;
        }
    }
    // Byte accounting: header + planes (+ mask) == block size.
    std::uint32_t total = 1 + 4;  // flags, live mask
    if (info.value_transform == transform::frame_of_reference) total += 4;
    if (info.value_transform == transform::delta) total += 8;
    if (info.value_layout == layout::sparse) total += 2;
    if (all != 0 && !stored.empty()) total += 4;  // ones mask
    for (std::uint32_t j = 0; j < plane_count; ++j) {
        const auto& p = info.planes[j];
        if (p.payload == payload_kind::none && (p.base == base_kind::zero || p.base == base_kind::one)) continue;
        const std::uint32_t expected =
            (all_raw ? 0u : 2u) + (counted(p.payload) ? 2u : 0u) + payload_bytes_of(p, length);
        if (p.bytes != expected)
            return ::testing::AssertionFailure() << "plane " << j << " costs " << p.bytes << " bytes, its descriptor "
                                                 << "says " << expected;
        total += p.bytes;
    }
    if (info.value_layout == layout::sparse) {
        const auto& m = info.mask;
        if (m.base == base_kind::plane || m.base == base_kind::complement)
            return ::testing::AssertionFailure() << "mask plane refers to a plane";
        const std::uint32_t expected = 2u + (counted(m.payload) ? 2u : 0u) + payload_bytes_of(m, n);
        if (m.bytes != expected) return ::testing::AssertionFailure() << "mask costs " << m.bytes << ", expected " << expected;
        total += m.bytes;
    }
    if (total != info.bytes)
        return ::testing::AssertionFailure() << "header + planes = " << total << " bytes, block is " << info.bytes
                                             << " (" << stored_planes << " stored planes)";
    return ::testing::AssertionSuccess();
}

// Every decode_value of a valid block equals the decoded value.
::testing::AssertionResult decode_value_matches(std::span<const std::byte> block, std::span<const std::uint32_t> expected,
                                                std::size_t stride = 1) {
    for (std::size_t i = 0; i < expected.size(); i += stride) {
        const std::uint32_t v = bitplane::codec::decode_value(block, expected.size(), i);
        if (v != expected[i])
            return ::testing::AssertionFailure() << "decode_value(" << i << ") = " << v << ", expected " << expected[i];
    }
    if (stride > 1) {  // always the last one
        const std::size_t i = expected.size() - 1;
        if (bitplane::codec::decode_value(block, expected.size(), i) != expected[i])
            return ::testing::AssertionFailure() << "decode_value(last) wrong";
    }
    return ::testing::AssertionSuccess();
}

// ---- round trips ------------------------------------------------------------------------------

// Every shape, both signedness flags, many block lengths, every SIMD path: the bytes are the
// same on every path, decode gives the input back on every path, validate accepts it,
// describe accounts for it, and decode_value of every index is the input value.
TEST(Codec, RoundTripEveryShapeLengthSignednessAndPath) {
    BITPLANE_SEED_TRACE();
    simd_path_guard guard;
    const auto paths = bitplane::available_simd_paths();
    ASSERT_FALSE(paths.empty());
    ASSERT_EQ(paths.front(), bitplane::simd_path::scalar);
    const auto lengths = block_lengths(case_seed("lengths"));
    std::size_t cases = 0;
    for (const shape& s : all_shapes()) {
        for (const bool is_signed : {false, true}) {
            for (std::size_t li = 0; li < lengths.size(); ++li) {
                const std::size_t n = lengths[li];
                SCOPED_TRACE(case_name(s, n, is_signed ? "signed" : "unsigned"));
                const words values = make_values(s, n, case_seed("codec", s.id(), n, is_signed));
                bytes reference;
                for (const auto path : paths) {
                    SCOPED_TRACE(std::string("simd path ") + std::string(bitplane::to_string(path)));
                    bitplane::set_simd_path(path);
                    const bytes block = encode(values, is_signed);
                    if (reference.empty())
                        reference = block;
                    else
                        ASSERT_TRUE(block == reference) << "encoded bytes differ from the scalar path's";
                    ASSERT_TRUE(same_values(values, decode(block, n)));
                    ASSERT_NO_THROW(bitplane::codec::validate_block(block, n));
                }
                ASSERT_TRUE(description_consistent(values, is_signed, reference));
                // decode_value on every index (quick mode: every length up to 300, a sample above).
                const std::size_t stride = quick_mode() && n > 300 ? 61 : 1;
                ASSERT_TRUE(decode_value_matches(reference, values, stride));
                ++cases;
            }
        }
    }
    EXPECT_GT(cases, 1000u);
}

// Every combination of encode_options round-trips, and what an option turns off is never used.
TEST(Codec, EncodeOptionsAreRespected) {
    BITPLANE_SEED_TRACE();
    for (unsigned mask = 0; mask < 64; ++mask) {
        bitplane::codec::encode_options o;
        o.frame_of_reference = mask & 1;
        o.delta = mask & 2;
        o.zigzag = mask & 4;
        o.sparse = mask & 8;
        o.references = mask & 16;
        o.runs = mask & 32;
        SCOPED_TRACE("options mask " + std::to_string(mask));
        for (const shape& s : representative_shapes()) {
            for (const std::size_t n : {1u, 2u, 100u, 2047u, 2048u}) {
                if (quick_mode() && mask % 4 != 0 && n > 100) continue;
                for (const bool is_signed : {false, true}) {
                    SCOPED_TRACE(case_name(s, n, is_signed ? "signed" : "unsigned"));
                    const words values = make_values(s, n, case_seed("options", s.id(), n));
                    bytes block(bitplane::codec::max_block_bytes);
                    block.resize(bitplane::codec::encode_block(values, is_signed, block, o));
                    ASSERT_TRUE(same_values(values, decode(block, n)));
                    const block_info info = bitplane::codec::describe_block(block, n);
                    ASSERT_TRUE(description_consistent(values, is_signed, block));
                    if (!o.frame_of_reference) {
                        EXPECT_NE(info.value_transform, transform::frame_of_reference);
                    }
                    if (!o.delta) {
                        EXPECT_NE(info.value_transform, transform::delta);
                    }
                    if (!o.zigzag) {
                        EXPECT_NE(info.value_transform, transform::zigzag);
                    }
                    if (!o.sparse) {
                        EXPECT_EQ(info.value_layout, layout::dense);
                    }
                    for (std::uint32_t j = 0; j < plane_count; ++j) {
                        if (!o.references) {
                            EXPECT_NE(info.planes[j].base, base_kind::plane) << "plane " << j;
                            EXPECT_NE(info.planes[j].base, base_kind::complement) << "plane " << j;
                        }
                        if (!o.runs) {
                            EXPECT_NE(info.planes[j].payload, payload_kind::runs) << "plane " << j;
                        }
                    }
                    if (!o.runs && info.value_layout == layout::sparse) {
                        EXPECT_NE(info.mask.payload, payload_kind::runs);
                    }
                }
            }
        }
    }
}

// Sorted series: delta makes them well under half the size of the plain bit planes (about
// 2.9x smaller for both shapes).
TEST(Codec, DeltaBeatsPlainPlanesOnSortedSeries) {
    BITPLANE_SEED_TRACE();
    bitplane::codec::encode_options plain;
    plain.frame_of_reference = plain.delta = plain.zigzag = false;
    for (const shape_kind kind : {shape_kind::timestamps, shape_kind::sorted_steps}) {
        SCOPED_TRACE(of(kind).name());
        for (int rep = 0; rep < 4; ++rep) {
            const words values = make_values(of(kind), 2048, case_seed("sorted", static_cast<int>(kind), rep));
            bytes block(bitplane::codec::max_block_bytes);
            const std::size_t plain_size = bitplane::codec::encode_block(values, false, block, plain);
            const std::size_t best = encode(values, false).size();
            EXPECT_LE(static_cast<double>(best), 0.4 * static_cast<double>(plain_size))
                << "default " << best << " bytes, without transforms " << plain_size;
        }
    }
}

// The encoder keeps scratch per thread: threads encoding at once get the bytes one thread gets.
TEST(Codec, ConcurrentEncodersAgree) {
    BITPLANE_SEED_TRACE();
    struct job {
        words values;
        bool is_signed;
        bytes expected;
    };
    std::vector<job> jobs;
    for (const shape& s : all_shapes())
        for (const std::size_t n : {7u, 1000u, 2048u})
            for (const bool is_signed : {false, true}) {
                job j{make_values(s, n, case_seed("threads", s.id(), n, is_signed)), is_signed, {}};
                j.expected = encode(j.values, is_signed);
                jobs.push_back(std::move(j));
            }
    std::atomic<int> mismatches{0};
    auto worker = [&](std::size_t id) {
        bytes out(bitplane::codec::max_block_bytes);
        words back;
        for (int round = 0; round < (quick_mode() ? 1 : 3); ++round) {
            for (std::size_t k = 0; k < jobs.size(); ++k) {
                const job& j = jobs[(k * 7 + id * 13) % jobs.size()];
                const std::size_t n = bitplane::codec::encode_block(j.values, j.is_signed, out);
                if (n != j.expected.size() || !std::equal(j.expected.begin(), j.expected.end(), out.begin())) ++mismatches;
                back.assign(j.values.size(), 0);
                bitplane::codec::decode_block(j.expected, back);
                if (back != j.values) ++mismatches;
            }
        }
    };
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 4; ++t) threads.emplace_back(worker, t);
    for (auto& t : threads) t.join();
    EXPECT_EQ(mismatches.load(), 0);
}

TEST(Codec, EncodingIsDeterministic) {
    BITPLANE_SEED_TRACE();
    for (const shape& s : representative_shapes()) {
        const words values = make_values(s, 2048, case_seed("deterministic", s.id()));
        EXPECT_TRUE(encode(values, false) == encode(values, false)) << s.name();
    }
}

// decode_block writes exactly out.size() values (no more).
TEST(Codec, DecodeWritesOnlyItsOutput) {
    BITPLANE_SEED_TRACE();
    for (const shape& s : representative_shapes()) {
        for (std::size_t n : {1u, 33u, 1000u, 2047u}) {
            SCOPED_TRACE(case_name(s, n));
            const words values = make_values(s, n, case_seed("guard", s.id(), n));
            const bytes block = encode(values, true);
            words out(n + 64, 0xA5A5A5A5u);
            bitplane::codec::decode_block(block, std::span<std::uint32_t>(out.data(), n));
            EXPECT_TRUE(same_values<std::uint32_t>(values, std::span<const std::uint32_t>(out.data(), n)));
            for (std::size_t i = n; i < out.size(); ++i) ASSERT_EQ(out[i], 0xA5A5A5A5u) << "wrote past the end at " << i;
        }
    }
}

// ---- the choices the encoder makes ------------------------------------------------------------

TEST(Codec, SparseDataPicksSparseLayout) {
    BITPLANE_SEED_TRACE();
    // 90% zeros, and blocks with exactly k non-zero (20-bit) values at random places. (Blocks
    // of 2..5 non-zeros are left out: see EncoderDefaultsNeverLargerThanWithoutReferences.)
    std::vector<std::pair<std::string, words>> cases;
    for (const bool is_signed : {false, true})
        cases.push_back({"sparse_90", make_values(of(shape_kind::sparse_90), 2048, case_seed("sparse", is_signed))});
    for (const std::size_t k : {1u, 20u, 100u, 600u}) {
        words values(2048, 0);
        std::mt19937_64 rng(case_seed("sparse-k", k));
        const words nonzero = make_values(of(shape_kind::full_range), k, rng());
        for (std::size_t placed = 0; placed < k;) {
            const std::size_t i = rng() % 2048;
            if (values[i] != 0) continue;
            values[i] = 1 + nonzero[placed] % ((1u << 20) - 1);
            ++placed;
        }
        cases.push_back({std::to_string(k) + " non-zeros", values});
    }
    for (const auto& [name, values] : cases) {
        for (const bool is_signed : {false, true}) {
            SCOPED_TRACE(name + (is_signed ? " signed" : " unsigned"));
            const bytes block = encode(values, is_signed);
            const block_info info = bitplane::codec::describe_block(block, 2048);
            EXPECT_EQ(info.value_layout, layout::sparse);
            const auto nonzero = static_cast<std::uint32_t>(std::count_if(values.begin(), values.end(),
                                                                          [](std::uint32_t v) { return v != 0; }));
            EXPECT_EQ(info.stored_values, nonzero);
            // 20-bit values: the mask and at most 20 planes of the non-zero values.
            EXPECT_LE(block.size(), 16u + 300u + 20u * ((nonzero + 7) / 8 + 6)) << "sparse block too big";
        }
    }
}

// Bug (encoder, src/codec/block_encoder.cpp write_planes + reference_tree.cpp): the
// reference tree charges every stored plane a 2-byte descriptor, but a block whose planes are
// all raw is written without descriptors, and that all-raw alternative is never compared
// with the tree's choice. For short planes (sparse blocks with a few non-zeros, short blocks)
// the tree prefers "same as plane k" (2 bytes) to raw (1 byte + 2-byte descriptor), so every
// plane gets a descriptor and the block is larger than with references switched off: the
// defaults do not give the smallest block, as codec.hpp promises. Switching references off
// only removes choices, so with a correct cost model it can never give a smaller block.
TEST(Codec, EncoderDefaultsNeverLargerThanWithoutReferences) {
    words values(2048, 0);
    values[187] = 789736;
    values[1053] = 41032;
    bitplane::codec::encode_options no_references;
    no_references.references = false;
    bytes block(bitplane::codec::max_block_bytes);
    const std::size_t without = bitplane::codec::encode_block(values, false, block, no_references);
    const std::size_t with_defaults = encode(values, false).size();
    EXPECT_LE(with_defaults, without) << "2 non-zeros in 2048: default options make " << with_defaults
                                      << " bytes, references off " << without;
    // Short blocks of random values show it too.
    std::mt19937_64 rng(7);
    std::size_t larger = 0;
    for (int k = 0; k < 200; ++k) {
        const words v = make_values(of(shape_kind::full_range), 1 + rng() % 16, rng());
        const std::size_t a = encode(v, false).size();
        const std::size_t b = bitplane::codec::encode_block(v, false, block, no_references);
        larger += a > b ? 1 : 0;
    }
    EXPECT_EQ(larger, 0u) << "of 200 random blocks of 1..16 values, the defaults made " << larger
                          << " larger than references off";
}

TEST(Codec, Uniform10BitPicksAllRawWithTenPlanes) {
    BITPLANE_SEED_TRACE();
    const words values = make_values(uniform(10), 2048, case_seed("u10"));
    const bytes block = encode(values, false);
    const block_info info = bitplane::codec::describe_block(block, 2048);
    EXPECT_EQ(info.value_layout, layout::dense);
    EXPECT_EQ(info.value_transform, transform::none);
    for (std::uint32_t j = 0; j < plane_count; ++j) {
        SCOPED_TRACE("plane " + std::to_string(j));
        if (j < 10) {
            EXPECT_EQ(info.planes[j].base, base_kind::zero);
            EXPECT_EQ(info.planes[j].payload, payload_kind::raw);
            EXPECT_EQ(info.planes[j].bytes, 256u);  // all raw: no descriptor
        } else {
            EXPECT_EQ(info.planes[j].base, base_kind::zero);
            EXPECT_EQ(info.planes[j].payload, payload_kind::none);
        }
    }
    EXPECT_EQ(block.size(), 1u + 4u + 10u * 256u);
}

TEST(Codec, SortedSeriesPickDelta) {
    BITPLANE_SEED_TRACE();
    for (const shape_kind kind : {shape_kind::timestamps, shape_kind::sorted_steps}) {
        for (const bool is_signed : {false, true}) {
            SCOPED_TRACE(of(kind).name() + (is_signed ? " signed" : " unsigned"));
            const words values = make_values(of(kind), 2048, case_seed("delta", static_cast<int>(kind), is_signed));
            const bytes block = encode(values, is_signed);
            const block_info info = bitplane::codec::describe_block(block, 2048);
            EXPECT_EQ(info.value_transform, transform::delta);
            // differences span 31 (timestamps) or 4 (steps) values: at most 5 raw planes.
            EXPECT_LE(block.size(), 1u + 8u + 8u + 5u * 258u);
        }
    }
}

TEST(Codec, ConstantBlocksAreTiny) {
    BITPLANE_SEED_TRACE();
    const auto lengths = block_lengths(case_seed("tiny"));
    for (const shape& s : {uniform(0), of(shape_kind::all_ones), of(shape_kind::constant)}) {
        for (const std::size_t n : lengths) {
            for (const bool is_signed : {false, true}) {
                SCOPED_TRACE(case_name(s, n));
                const words values = make_values(s, n, case_seed("tiny", s.id(), n));
                EXPECT_LE(encode(values, is_signed).size(), 16u);
            }
        }
    }
    // A constant block is a plain value with elided planes: 1 + 4 + 4 bytes.
    const words ones(2048, 0xFFFFFFFFu);
    EXPECT_EQ(encode(ones, false).size(), 9u);
    const block_info info = bitplane::codec::describe_block(encode(ones, false), 2048);
    for (const auto& p : info.planes) {
        EXPECT_EQ(p.base, base_kind::one);
        EXPECT_EQ(p.payload, payload_kind::none);
    }
}

TEST(Codec, SizeBounds) {
    BITPLANE_SEED_TRACE();
    const auto lengths = block_lengths(case_seed("bounds"));
    for (unsigned k = 0; k <= 32; ++k) {
        for (const bool is_signed : {false, true}) {
            SCOPED_TRACE("uniform " + std::to_string(k) + (is_signed ? " signed" : " unsigned"));
            const words full = make_values(uniform(k), 2048, case_seed("bound", k, is_signed));
            EXPECT_LE(encode(full, is_signed).size(), k * 256u + 16u);
            for (const std::size_t n : lengths) {
                const words values = make_values(uniform(k), n, case_seed("bound", k, is_signed, n));
                EXPECT_LE(encode(values, is_signed).size(), k * ((n + 7) / 8 + 2) + 24u) << "n=" << n;
            }
        }
    }
    for (int rep = 0; rep < 8; ++rep) {
        const words values = make_values(of(shape_kind::full_range), 2048, case_seed("full", rep));
        EXPECT_LE(encode(values, false).size(), 8192u + 16u);
        EXPECT_LE(encode(values, true).size(), 8192u + 16u);
    }
    // Worst cases the header comment of codec.hpp promises fit max_block_bytes.
    for (const shape& s : all_shapes())
        for (const bool is_signed : {false, true})
            EXPECT_LE(encode(make_values(s, 2048, case_seed("max", s.id())), is_signed).size(),
                      bitplane::codec::max_block_bytes);
}

TEST(Codec, RunsCompress) {
    BITPLANE_SEED_TRACE();
    for (int rep = 0; rep < 8; ++rep) {
        // Runs of 100 or more values: a handful per block.
        words values(2048);
        std::mt19937_64 rng(case_seed("runs", rep));
        for (std::size_t i = 0; i < values.size();) {
            const std::size_t len = 100 + rng() % 400;
            const auto v = static_cast<std::uint32_t>(rng());
            for (std::size_t e = std::min(values.size(), i + len); i < e; ++i) values[i] = v;
        }
        const bytes block = encode(values, false);
        EXPECT_LT(block.size(), 2048u) << "piecewise-constant data should cost far less than raw planes";
        EXPECT_TRUE(same_values(values, decode(block, 2048)));
    }
}

// Runs of equal values that step up and down (categories: ucd_script, bed_chrom of the corpus).
// Delta with minimum 0 leaves zero residuals inside the runs, so the sparse layout holds only
// the C change points. Its size is at most: flags, delta first and minimum, stored count
// (1 + 8 + 2); the mask as gaps (descriptor and count 4, one byte a change: runs are at most
// 40 long, so no gap escapes); live and ones masks (8); the steps' planes: steps lie in
// [-80, 80], so planes 8..31 equal plane 7 (the sign) and cost a descriptor each (2, base
// plane 7, no payload), planes 0..7 a descriptor and C raw bits each (2 + ceil(C / 8)). The
// reference tree finds that plan or a smaller one, and it is kept (it is well under 14/16 of
// the dense plans). Measured on 16 such blocks (bench_corpus --sizes on a column of them):
// 283 bytes a block, against 362 before these candidates existed (dense planes of runs and
// gaps), above this bound (~290 for C ~ 100).
TEST(Codec, RunsOfEqualValuesWithNegativeStepsStayBelowTheSparseDeltaBound) {
    BITPLANE_SEED_TRACE();
    for (int rep = 0; rep < 16; ++rep) {
        std::mt19937_64 rng(case_seed("category runs", rep));
        words values(2048);
        for (std::size_t i = 0; i < values.size();) {
            const std::size_t len = 1 + rng() % 40;
            const auto v = static_cast<std::uint32_t>(static_cast<std::int32_t>(rng() % 81) - 40);
            for (std::size_t e = std::min(values.size(), i + len); i < e; ++i) values[i] = v;
        }
        std::size_t changes = 0;
        for (std::size_t i = 1; i < values.size(); ++i) changes += values[i] != values[i - 1] ? 1 : 0;
        const std::size_t bound = 11 + 4 + changes + 8 + 8 * (2 + (changes + 7) / 8) + 24 * 2;
        for (const bool is_signed : {false, true}) {
            SCOPED_TRACE(std::to_string(rep) + (is_signed ? " signed" : " unsigned"));
            const bytes block = encode(values, is_signed);
            EXPECT_LE(block.size(), bound) << changes << " changes";
            EXPECT_TRUE(same_values(values, decode(block, 2048)));
            ASSERT_NO_THROW(bitplane::codec::validate_block(block, 2048));
        }
    }
}

TEST(Codec, EncodeRejectsBadSizes) {
    bytes out(bitplane::codec::max_block_bytes);
    const words none;
    const words too_many(2049, 1u);
    EXPECT_THROW(bitplane::codec::encode_block(none, false, out), bitplane::size_error);
    EXPECT_THROW(bitplane::codec::encode_block(too_many, false, out), bitplane::size_error);
    EXPECT_THROW(bitplane::codec::encode_block(too_many, true, out), bitplane::size_error);
    const words some(10, 7u);
    bytes small(bitplane::codec::max_block_bytes - 1);
    EXPECT_THROW(bitplane::codec::encode_block(some, false, small), bitplane::size_error);
    // size_error is a bitplane::error.
    EXPECT_THROW(bitplane::codec::encode_block(none, false, out), bitplane::error);
}

// ---- hand-assembled blocks: the decoder against the documented layout ---------------------------

struct builder {
    bytes b;
    builder& u8(unsigned v) {
        b.push_back(static_cast<std::byte>(v));
        return *this;
    }
    builder& u16(unsigned v) { return u8(v & 0xFF).u8((v >> 8) & 0xFF); }
    builder& u32(std::uint32_t v) { return u16(v & 0xFFFF).u16(v >> 16); }
    // Descriptor: plane index, payload kind, base kind, reference plane.
    builder& desc(unsigned plane, payload_kind payload, base_kind base = base_kind::zero, unsigned reference = 0) {
        return u8(plane | (static_cast<unsigned>(payload) << 5)).u8(static_cast<unsigned>(base) | (reference << 2));
    }
};

struct valid_case {
    std::string name;
    std::size_t count;
    bytes block;
    words expected;
};

std::vector<valid_case> hand_made_blocks() {
    std::vector<valid_case> out;
    {  // all raw, plain: bits 0,2,5,7,9 of plane 0
        builder b;
        b.u8(0x10).u32(0x1).u8(0b10100101).u8(0b00000010);
        out.push_back({"all-raw plain", 10, b.b, {1, 0, 1, 0, 0, 1, 0, 1, 0, 1}});
    }
    {  // frame of reference 100; plane 0 = run [3, 7); plane 2 = ~plane 0 with position 10 flipped
        builder b;
        b.u8(0x01).u32(100).u32(0b101);
        b.desc(0, payload_kind::runs).u16(1);
        b.desc(2, payload_kind::positions, base_kind::complement, 0).u16(1);
        b.u16(3).u16(7).u16(10);
        words e(40);
        for (std::uint32_t i = 0; i < 40; ++i) {
            const bool b0 = i >= 3 && i < 7;
            const bool b2 = !b0 ^ (i == 10);
            e[i] = 100u + (b0 ? 1u : 0u) + (b2 ? 4u : 0u);
        }
        out.push_back({"runs + complement positions + FOR", 40, b.b, e});
    }
    {  // gaps with an escape: positions 2, 303, 304 of plane 0; plane 5 = plane 0
        builder b;
        b.u8(0x00).u32(0x21);
        b.desc(0, payload_kind::gaps).u16(5);
        b.desc(5, payload_kind::none, base_kind::plane, 0);
        b.u8(2).u8(255).u16(300).u8(0);
        words e(2048, 0);
        for (std::uint32_t i : {2u, 303u, 304u}) e[i] = 0x21;
        out.push_back({"gaps with escape + plane reference", 2048, b.b, e});
    }
    {  // long gap lists, decoded 16 gaps at a time where no escape is among them: plane 0
       // from 70 gaps with escapes at gaps 20 and 50 (in the second and fourth run of 16);
       // plane 3 = ones with 40 gaps; plane 6 = plane 0 with 17 gaps (one run of 16 + 1).
        std::mt19937_64 rng(5);
        words e(2048, 0);
        std::vector<std::uint8_t> gaps0, gaps3, gaps6;
        auto list = [&](std::vector<std::uint8_t>& list_bytes, std::size_t n, std::uint32_t bit, std::size_t escape_a,
                        std::size_t escape_b) {
            std::uint32_t next = 0;
            for (std::size_t k = 0; k < n; ++k) {
                std::uint32_t gap = static_cast<std::uint32_t>(rng() % 20);
                if (k == escape_a || k == escape_b) {
                    gap = 260 + static_cast<std::uint32_t>(k);
                    list_bytes.push_back(255);
                    list_bytes.push_back(static_cast<std::uint8_t>(gap & 0xFF));
                    list_bytes.push_back(static_cast<std::uint8_t>(gap >> 8));
                } else {
                    list_bytes.push_back(static_cast<std::uint8_t>(gap));
                }
                e[next + gap] ^= bit;
                next += gap + 1;
            }
        };
        list(gaps0, 70, 1u, 20, 50);
        for (std::uint32_t i = 0; i < 2048; ++i) e[i] ^= (e[i] & 1u) << 6;  // plane 6 starts as plane 0
        for (std::uint32_t i = 0; i < 2048; ++i) e[i] ^= 8u;                // plane 3 starts all one
        list(gaps3, 40, 8u, 99, 99);
        list(gaps6, 17, 64u, 99, 99);
        builder b;
        b.u8(0x00).u32(0x49);
        b.desc(0, payload_kind::gaps).u16(static_cast<unsigned>(gaps0.size()));
        b.desc(3, payload_kind::gaps, base_kind::one).u16(static_cast<unsigned>(gaps3.size()));
        b.desc(6, payload_kind::gaps, base_kind::plane, 0).u16(static_cast<unsigned>(gaps6.size()));
        for (const auto* g : {&gaps0, &gaps3, &gaps6})
            for (std::uint8_t x : *g) b.u8(x);
        out.push_back({"long gap lists with escapes, ones and plane bases", 2048, b.b, e});
    }
    {  // delta (first 1000, min 7), plane 0 all one, plane 1 raw bits 1,2
        builder b;
        b.u8(0x02 | 0x08 | 0x10).u32(1000).u32(7).u32(0x2).u32(0x1).u8(0b00110);
        out.push_back({"delta + ones mask + all raw", 5, b.b, {1001, 1011, 1021, 1029, 1037}});
    }
    {  // sparse zigzag: non-zeros at 1, 5, 15 with residuals 3, 2, 1 -> -2, 1, -1
        builder b;
        b.u8(0x03 | 0x04 | 0x10).u16(3);
        b.desc(0, payload_kind::positions).u16(3).u16(1).u16(5).u16(15);
        b.u32(0x3).u8(0b101).u8(0b011);
        words e(16, 0);
        e[1] = std::bit_cast<std::uint32_t>(-2);
        e[5] = 1;
        e[15] = std::bit_cast<std::uint32_t>(-1);
        out.push_back({"sparse zigzag", 16, b.b, e});
    }
    // Full all-raw blocks store their planes interleaved: for each 32-bit column c, word c of
    // every live plane in ascending plane order (block_format.hpp).
    for (const std::uint32_t live : {0x1u, 0x3u, 0x85u, 0x1Fu, 0xFFFFFFFFu, 0x80000001u}) {
        for (const bool for_base : {false, true}) {
            std::mt19937_64 rng(live * 2 + for_base);
            const auto stored = static_cast<std::uint32_t>(std::popcount(live));
            std::vector<std::uint32_t> plane_words(64 * stored);
            for (auto& w : plane_words) w = static_cast<std::uint32_t>(rng());
            builder b;
            b.u8(0x10 | (for_base ? 0x01 : 0x00));
            if (for_base) b.u32(1000);
            b.u32(live);
            for (std::uint32_t c = 0; c < 64; ++c)
                for (std::uint32_t k = 0; k < stored; ++k) b.u32(plane_words[c * stored + k]);
            words e(2048, for_base ? 1000u : 0u);
            for (std::uint32_t i = 0; i < 2048; ++i) {
                std::uint32_t k = 0;
                for (std::uint32_t j = 0; j < 32; ++j) {
                    if (!((live >> j) & 1u)) continue;
                    if ((plane_words[(i / 32) * stored + k] >> (i % 32)) & 1u) e[i] += 1u << j;
                    ++k;
                }
            }
            out.push_back({"interleaved all-raw, live " + std::to_string(live) + (for_base ? " FOR" : ""), 2048, b.b, e});
        }
    }
    {  // interleaved with a ones mask and no live plane at all
        builder b;
        b.u8(0x10 | 0x08).u32(0).u32(5);
        out.push_back({"all-raw, no live plane, ones mask", 2048, b.b, words(2048, 5)});
    }
    {  // sparse with every value non-zero (m == count), all raw and interleaved: a corner of the
       // format. Planes 1 and 2 are complements, so every value is 2 or 4 (never a stored zero).
        builder b;
        b.u8(0x04 | 0x10).u16(2048).desc(0, payload_kind::none, base_kind::one).u32(0x6);
        words e(2048);
        for (std::uint32_t c = 0; c < 64; ++c) {
            const std::uint32_t w = 0x9E3779B9u * (c + 1);
            b.u32(w).u32(~w);
            for (std::uint32_t i = 0; i < 32; ++i) e[c * 32 + i] = ((w >> i) & 1u) ? 2u : 4u;
        }
        out.push_back({"sparse with m == count", 2048, b.b, e});
    }
    {  // plane 31 with base one and positions of its zeros, FOR base 0xFFFFFFF0 (wraps)
        builder b;
        b.u8(0x01).u32(0xFFFFFFF0u).u32(0x80000000u);
        b.desc(31, payload_kind::positions, base_kind::one).u16(2).u16(0).u16(6);
        words e(7);
        for (std::uint32_t i = 0; i < 7; ++i) e[i] = (i == 0 || i == 6 ? 0u : 0x80000000u) + 0xFFFFFFF0u;
        out.push_back({"base one + FOR wrap", 7, b.b, e});
    }
    // Layouts a random read answers by searching lists or from plane popcounts (delta): every
    // payload kind under delta, a delta plane that refers to another (decoded instead), and
    // sparse masks stored as runs, as gaps under base one, and as positions under delta.
    auto delta_values = [](const words& residuals, std::uint32_t first, std::uint32_t min) {
        words v(residuals.size());
        std::uint32_t previous = first + residuals[0];
        v[0] = previous;
        for (std::size_t i = 1; i < v.size(); ++i) v[i] = previous += residuals[i] + min;
        return v;
    };
    {  // delta: plane 0 positions {3, 10}, plane 1 run [5, 9), plane 2 gaps {1, 40}, plane 3 one except 0
        builder b;
        b.u8(0x02).u32(50).u32(2).u32(0xF);
        b.desc(0, payload_kind::positions).u16(2);
        b.desc(1, payload_kind::runs).u16(1);
        b.desc(2, payload_kind::gaps).u16(2);
        b.desc(3, payload_kind::positions, base_kind::one).u16(1);
        b.u16(3).u16(10).u16(5).u16(9).u8(1).u8(38).u16(0);
        words r(64);
        for (std::uint32_t i = 0; i < 64; ++i)
            r[i] = (i == 3 || i == 10 ? 1u : 0u) + (i >= 5 && i < 9 ? 2u : 0u) + (i == 1 || i == 40 ? 4u : 0u) + (i != 0 ? 8u : 0u);
        out.push_back({"delta over positions, runs, gaps and base one", 64, b.b, delta_values(r, 50, 2)});
    }
    {  // delta: plane 1 = plane 0 with position 9 flipped
        builder b;
        b.u8(0x02).u32(7).u32(0).u32(0x3);
        b.desc(0, payload_kind::positions).u16(2);
        b.desc(1, payload_kind::positions, base_kind::plane, 0).u16(1);
        b.u16(2).u16(4).u16(9);
        words r(20, 0);
        r[2] = r[4] = 3;
        r[9] = 2;
        out.push_back({"delta with a plane reference", 20, b.b, delta_values(r, 7, 0)});
    }
    {  // sparse FOR 1000, mask runs [10, 20) and [50, 52): 12 values, planes 0 (all set) and 2 raw
        builder b;
        b.u8(0x01 | 0x04 | 0x10).u32(1000).u16(12);
        b.desc(0, payload_kind::runs).u16(2).u16(10).u16(20).u16(50).u16(52);
        b.u32(0x5).u8(0xFF).u8(0x0F).u8(0xAA).u8(0x0A);
        words e(100, 1000);
        std::uint32_t k = 0;
        for (std::uint32_t i = 0; i < 100; ++i)
            if ((i >= 10 && i < 20) || (i >= 50 && i < 52)) e[i] = 1000 + 1 + 4 * ((0xAAAu >> k++) & 1u);
        out.push_back({"sparse FOR with a runs mask", 100, b.b, e});
    }
    {  // sparse: mask all one but gaps {0, 7, 39}, 37 values; plane 1 all one (base one), plane 0 raw
        builder b;
        b.u8(0x04).u16(37);
        b.desc(0, payload_kind::gaps, base_kind::one).u16(3).u8(0).u8(6).u8(31);
        b.u32(0x3);
        b.desc(1, payload_kind::none, base_kind::one);
        b.desc(0, payload_kind::raw);
        b.u8(0x55).u8(0x55).u8(0x55).u8(0x55).u8(0x15);
        words e(40, 0);
        std::uint32_t k = 0;
        for (std::uint32_t i = 0; i < 40; ++i)
            if (i != 0 && i != 7 && i != 39) e[i] = 2 + ((k++ % 2 == 0) ? 1u : 0u);
        out.push_back({"sparse with a gaps mask under base one", 40, b.b, e});
    }
    {  // sparse delta (first 100, min 1): residual 1 at 4, 10, 29
        builder b;
        b.u8(0x02 | 0x04 | 0x10).u32(100).u32(1).u16(3);
        b.desc(0, payload_kind::positions).u16(3).u16(4).u16(10).u16(29);
        b.u32(0x1).u8(0x07);
        words r(30, 0);
        r[4] = r[10] = r[29] = 1;
        out.push_back({"sparse delta with a positions mask", 30, b.b, delta_values(r, 100, 1)});
    }
    return out;
}

TEST(Codec, DecodesHandMadeBlocks) {
    simd_path_guard guard;
    for (const valid_case& c : hand_made_blocks()) {
        SCOPED_TRACE(c.name);
        for (const auto path : bitplane_test::paths_to_sweep()) {
            bitplane::set_simd_path(path);
            words out(c.count);
            ASSERT_NO_THROW(bitplane::codec::decode_block(c.block, out));
            EXPECT_TRUE(same_values(c.expected, out)) << bitplane::to_string(path);
            EXPECT_NO_THROW(bitplane::codec::validate_block(c.block, c.count));
        }
        EXPECT_TRUE(decode_value_matches(c.block, c.expected));
        const block_info info = bitplane::codec::describe_block(c.block, c.count);
        EXPECT_EQ(info.bytes, c.block.size());
        EXPECT_EQ(info.values, c.count);
    }
    // The describe_block view of the second block, field by field.
    const valid_case c = hand_made_blocks()[1];
    const block_info info = bitplane::codec::describe_block(c.block, c.count);
    EXPECT_EQ(info.value_transform, transform::frame_of_reference);
    EXPECT_EQ(info.planes[0].payload, payload_kind::runs);
    EXPECT_EQ(info.planes[0].items, 1u);
    EXPECT_EQ(info.planes[2].base, base_kind::complement);
    EXPECT_EQ(info.planes[2].reference, 0u);
    EXPECT_EQ(info.planes[2].payload, payload_kind::positions);
    EXPECT_EQ(info.planes[1].payload, payload_kind::none);
}

// The block table's trusted read (block_layout.hpp read_descriptor) gives what the checked
// parse gives, on hand-made blocks and on every shape, length and signedness the encoder sees.
TEST(Codec, TrustedDescriptorEqualsCheckedParse) {
    namespace bd = bitplane::detail;
    auto agree = [](std::span<const std::byte> block, std::size_t n) -> ::testing::AssertionResult {
        const bd::block_descriptor trusted = bd::read_descriptor(block.data(), static_cast<std::uint32_t>(n));
        const bd::parsed_block checked = bd::parse_block(block, n, true);
        if (!(trusted == checked.descriptor))
            return ::testing::AssertionFailure() << "trusted and checked descriptors differ";
        if (trusted.end != block.size()) return ::testing::AssertionFailure() << "end " << trusted.end;
        if (trusted.live != checked.live || trusted.ones != checked.ones || trusted.stored != checked.stored ||
            trusted.length != checked.length || trusted.sparse() != checked.sparse ||
            trusted.transform() != checked.value_transform || trusted.interleaved() != checked.interleaved)
            return ::testing::AssertionFailure() << "descriptor fields disagree with parsed_block";
        // The plane table expanded from the descriptor is the checked parse's, field by field.
        const bd::parsed_block x = bd::expand_descriptor(trusted, block.data(), static_cast<std::uint32_t>(n));
        auto same_plane = [](const bd::stored_plane& a, const bd::stored_plane& b) {
            return a.index == b.index && a.base == b.base && a.reference == b.reference && a.payload == b.payload &&
                   a.items == b.items && a.descriptor_offset == b.descriptor_offset &&
                   a.payload_offset == b.payload_offset && a.payload_bytes == b.payload_bytes;
        };
        if (x.value_transform != checked.value_transform || x.sparse != checked.sparse || x.all_raw != checked.all_raw ||
            x.interleaved != checked.interleaved || x.count != checked.count || x.length != checked.length ||
            x.for_base != checked.for_base || x.delta_first != checked.delta_first || x.delta_min != checked.delta_min ||
            x.live != checked.live || x.ones != checked.ones || x.stored != checked.stored || x.end != checked.end ||
            !(x.descriptor == checked.descriptor) || (checked.sparse && !same_plane(x.mask, checked.mask)))
            return ::testing::AssertionFailure() << "expand_descriptor's header fields differ from parse_block's";
        for (std::uint32_t i = 0; i < checked.stored; ++i)
            if (!same_plane(x.planes[i], checked.planes[i]))
                return ::testing::AssertionFailure() << "expand_descriptor's plane " << i << " differs";
        return ::testing::AssertionSuccess();
    };
    for (const valid_case& c : hand_made_blocks()) {
        SCOPED_TRACE(c.name);
        EXPECT_TRUE(agree(c.block, c.count));
    }
    const auto lengths = block_lengths(case_seed("descriptor lengths"));
    std::size_t kinds_seen = 0;
    std::set<std::pair<int, int>> seen;  // (transform, sparse)
    for (const shape& s : all_shapes()) {
        for (const bool is_signed : {false, true}) {
            for (const std::size_t n : lengths) {
                SCOPED_TRACE(case_name(s, n, is_signed ? "signed" : "unsigned"));
                const words values = make_values(s, n, case_seed("descriptor", s.id(), n, is_signed));
                const bytes block = encode(values, is_signed);
                ASSERT_TRUE(agree(block, n));
                const bd::block_descriptor d = bd::read_descriptor(block.data(), static_cast<std::uint32_t>(n));
                seen.insert({static_cast<int>(d.transform()), d.sparse() ? 1 : 0});
            }
        }
    }
    kinds_seen = seen.size();
    EXPECT_GE(kinds_seen, 6u) << "the shapes should reach most (transform, layout) pairs";
}

// ---- hostile bytes ----------------------------------------------------------------------------

struct malformed_case {
    std::string name;
    std::size_t count;
    bytes block;
    std::int64_t offset = -1;  // expected format_error offset, when the rule fixes it
};

std::vector<malformed_case> malformed_blocks() {
    std::vector<malformed_case> out;
    auto add = [&](std::string name, std::size_t count, const builder& b, std::int64_t offset = -1) {
        out.push_back({std::move(name), count, b.b, offset});
    };
    // A valid dense block of 16 values with one positions plane, to break one way at a time.
    auto positions_block = [](std::initializer_list<unsigned> positions, unsigned items) {
        builder b;
        b.u8(0x00).u32(0x1).desc(0, payload_kind::positions).u16(items);
        for (unsigned p : positions) b.u16(p);
        return b;
    };
    auto runs_block = [](std::initializer_list<std::pair<unsigned, unsigned>> runs) {
        builder b;
        b.u8(0x00).u32(0x1).desc(0, payload_kind::runs).u16(static_cast<unsigned>(runs.size()));
        for (auto [s, e] : runs) b.u16(s).u16(e);
        return b;
    };
    auto gaps_block = [](std::initializer_list<unsigned> gap_bytes) {
        builder b;
        b.u8(0x00).u32(0x1).desc(0, payload_kind::gaps).u16(static_cast<unsigned>(gap_bytes.size()));
        for (unsigned g : gap_bytes) b.u8(g);
        return b;
    };
    for (unsigned bit : {0x20u, 0x40u, 0x80u}) {
        builder b;
        b.u8(0x10 | bit).u32(0x1).u8(0xFF).u8(0x00);
        add("reserved flag bit " + std::to_string(bit), 16, b, 0);
    }
    {
        builder b;
        b.u8(0x00).u32(0x3).desc(0, payload_kind::none, base_kind::plane, 1).desc(1, payload_kind::none, base_kind::plane, 0);
        add("reference cycle 0 -> 1 -> 0", 8, b, 5);
    }
    {
        builder b;
        b.u8(0x00).u32(0x1).desc(0, payload_kind::raw, base_kind::plane, 0).u8(0x0F);
        add("plane refers to itself", 8, b, 5);
    }
    {
        builder b;
        b.u8(0x00).u32(0x3).desc(0, payload_kind::raw).desc(1, payload_kind::raw, base_kind::complement, 7).u8(1).u8(2);
        add("reference to a plane that is not stored", 8, b, 7);
    }
    {
        builder b;
        b.u8(0x00).u32(0x3).desc(1, payload_kind::raw, base_kind::plane, 0).desc(0, payload_kind::raw).u8(1).u8(2);
        add("reference to a plane decoded later", 8, b, 5);
    }
    add("positions out of order", 16, positions_block({5, 3}, 2));
    add("positions repeated", 16, positions_block({4, 4}, 2));
    add("position beyond the length", 16, positions_block({16}, 1));
    add("position far beyond the length", 16, positions_block({0xFFFF}, 1));
    add("position count 0", 16, positions_block({}, 0));
    add("position count above the length", 16, positions_block({}, 17));
    add("runs overlapping", 16, runs_block({{0, 5}, {3, 8}}));
    add("runs touching", 16, runs_block({{0, 5}, {5, 8}}));
    add("run empty", 16, runs_block({{4, 4}}));
    add("run reversed", 16, runs_block({{6, 2}}));
    add("run beyond the length", 16, runs_block({{10, 17}}));
    add("runs out of order", 16, runs_block({{8, 10}, {1, 3}}));
    add("gap escape cut off (1 of 2 bytes)", 2048, gaps_block({255, 1}));
    add("gap escape cut off (0 of 2 bytes)", 2048, gaps_block({255}));
    add("gap beyond the length", 16, gaps_block({16}));
    add("gaps reach beyond the length", 16, gaps_block({10, 10}));
    // Runs of 16 gaps are checked together (the last position inside the plane, no escape):
    // the error still names the first gap past the end (offset 9 = the payload's start).
    add("gaps reach beyond the length in a run of 16", 2048,
        gaps_block({200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200}), 9 + 10);
    add("gaps reach beyond the length after runs of 16", 2048,
        gaps_block({100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100,  //
                    100, 100, 100, 100, 100, 100, 100, 100}),
        9 + 20);
    add("gap escape cut off after a run of 16", 2048,
        gaps_block({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 255, 1}), 9 + 17);
    {
        builder b;
        b.u8(0x10).u32(0x1).u8(0x00).u8(0x04);
        add("raw bits beyond the length (all raw)", 10, b, 6);
    }
    {
        builder b;
        b.u8(0x00).u32(0x1).desc(0, payload_kind::raw).u8(0x00).u8(0x80);
        add("raw bits beyond the length (descriptor)", 10, b, 8);
    }
    auto sparse_block = [](unsigned m, std::initializer_list<unsigned> mask_positions, base_kind mask_base) {
        builder b;
        b.u8(0x04 | 0x10).u16(m);
        b.desc(0, payload_kind::positions, mask_base).u16(static_cast<unsigned>(mask_positions.size()));
        for (unsigned p : mask_positions) b.u16(p);
        b.u32(0x1).u8(0x07);
        return b;
    };
    add("sparse count above the mask's", 16, sparse_block(3, {1, 5}, base_kind::zero));
    add("sparse count below the mask's", 16, sparse_block(1, {1, 5, 9}, base_kind::zero));
    add("sparse count 0", 16, sparse_block(0, {1, 5}, base_kind::zero));
    add("sparse count above the block", 16, sparse_block(17, {1, 5}, base_kind::zero));
    add("mask refers to a plane", 16, sparse_block(2, {1, 5}, base_kind::plane));
    {  // stored values 1, 0, 1: a zero under the non-zero mask
        builder b;
        b.u8(0x04 | 0x10).u16(3);
        b.desc(0, payload_kind::positions, base_kind::zero).u16(3).u16(1).u16(5).u16(9);
        b.u32(0x1).u8(0x05);
        add("sparse block storing a zero under its mask", 16, b, 3);
    }
    {
        builder b;
        b.u8(0x00).u32(0x1).u8(0xA0).u8(0x00);
        add("unknown payload kind 5", 16, b, 5);
        builder c;
        c.u8(0x00).u32(0x1).u8(0xE0).u8(0x00);
        add("unknown payload kind 7", 16, c, 5);
    }
    {
        builder b;
        b.u8(0x00).u32(0x1).u8(0x60).u8(0x80).u8(1).u8(0);
        add("reserved descriptor bit", 16, b, 5);
    }
    {
        builder b;
        b.u8(0x00).u32(0x1).u8(0x60).u8(0x00 | (3 << 2)).u8(1).u8(0);
        add("reference on a constant base", 16, b, 5);
    }
    {
        builder b;
        b.u8(0x08).u32(0x0).u32(0x0);
        add("ones mask flagged but empty", 16, b, 5);
    }
    {
        builder b;
        b.u8(0x18).u32(0x1).u32(0x1).u8(1).u8(0);
        add("plane both stored and all one", 16, b, 5);
    }
    {
        builder b;
        b.u8(0x00).u32(0x1).desc(3, payload_kind::raw).u8(1).u8(0);
        add("descriptor of a plane not in the live mask", 16, b, 5);
    }
    {
        builder b;
        b.u8(0x00).u32(0x3).desc(0, payload_kind::raw).desc(0, payload_kind::raw).u8(1).u8(0).u8(1).u8(0);
        add("descriptor repeated", 16, b, 7);
    }
    {
        builder b;
        b.u8(0x10).u32(0x1).u8(1).u8(0).u8(0);
        add("trailing byte", 16, b, 7);
    }
    {
        builder b;
        b.u8(0x01).u8(0).u8(0);
        add("frame-of-reference header cut off", 16, b);
    }
    {
        builder b;
        add("empty input", 16, b, 0);
    }
    return out;
}

TEST(CodecHostile, MalformedBlocksThrowFormatError) {
    for (const malformed_case& c : malformed_blocks()) {
        SCOPED_TRACE(c.name);
        EXPECT_TRUE(rejected(c.block, c.count));
        if (c.offset >= 0) {
            std::uint64_t offset = 0;
            words out(c.count);
            if (throws_format_error([&] { bitplane::codec::decode_block(c.block, out); }, c.block.size(), &offset)) {
                EXPECT_EQ(offset, static_cast<std::uint64_t>(c.offset));
            }
        }
    }
}

// The builders above really make valid blocks when left unbroken (so each case breaks one rule).
TEST(CodecHostile, MalformedCasesAreOneRuleAwayFromValid) {
    builder positions;
    positions.u8(0x00).u32(0x1).desc(0, payload_kind::positions).u16(2).u16(3).u16(5);
    words out(16);
    ASSERT_NO_THROW(bitplane::codec::decode_block(positions.b, out));
    EXPECT_EQ(out[3], 1u);
    EXPECT_EQ(out[5], 1u);
    builder runs;
    runs.u8(0x00).u32(0x1).desc(0, payload_kind::runs).u16(2).u16(0).u16(5).u16(6).u16(8);
    ASSERT_NO_THROW(bitplane::codec::decode_block(runs.b, out));
    EXPECT_TRUE(same_values(words{1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}, out));
    builder sparse;
    sparse.u8(0x04 | 0x10).u16(2).desc(0, payload_kind::positions).u16(2).u16(1).u16(5).u32(0x1).u8(0x03);
    ASSERT_NO_THROW(bitplane::codec::decode_block(sparse.b, out));
    EXPECT_EQ(out[1], 1u);
    EXPECT_EQ(out[5], 1u);
    EXPECT_EQ(out[0], 0u);
    builder raw;
    raw.u8(0x10).u32(0x1).u8(0xFF).u8(0x03);
    words ten(10);
    ASSERT_NO_THROW(bitplane::codec::decode_block(raw.b, ten));
    EXPECT_TRUE(same_values(words(10, 1u), ten));
}

TEST(CodecHostile, BadValueCountsThrowFormatError) {
    const words values(100, 5u);
    const bytes block = encode(values, false);
    words none;
    EXPECT_TRUE(throws_format_error([&] { bitplane::codec::decode_block(block, none); }, block.size()));
    EXPECT_TRUE(throws_format_error([&] { bitplane::codec::validate_block(block, 0); }, block.size()));
    EXPECT_TRUE(throws_format_error([&] { bitplane::codec::validate_block(block, 2049); }, block.size()));
}

/// Valid blocks of several structures to break.
std::vector<std::pair<std::string, std::pair<words, bool>>> victims() {
    std::vector<std::pair<std::string, std::pair<words, bool>>> out;
    const std::vector<std::pair<shape, bool>> shapes = {
        {uniform(10), false},          {uniform(3), false},
        {of(shape_kind::sparse_90), false},   {of(shape_kind::sparse_999), false},
        {of(shape_kind::runs), false},        {of(shape_kind::timestamps), false},
        {of(shape_kind::small_negative), true}, {of(shape_kind::near_int_max), false},
        {of(shape_kind::minus_one_sentinels), true}, {of(shape_kind::alternating_bits), false},
        {of(shape_kind::all_ones), false},    {of(shape_kind::mixed), true}};
    for (const auto& [s, is_signed] : shapes)
        for (std::size_t n : {2048u, 777u, 40u, 1u})
            out.push_back({case_name(s, n), {make_values(s, n, case_seed("victim", s.id(), n)), is_signed}});
    // Planes stored from other planes and as runs: bit j equals bit 0 or its complement.
    words linked(2048);
    std::mt19937_64 rng(case_seed("linked"));
    for (auto& v : linked) {
        const std::uint32_t b = (rng() % 8 == 0) ? 1u : 0u;
        v = b * 0x0F0Fu + (1u - b) * 0xF0F0u + static_cast<std::uint32_t>(rng() % 2 == 0 ? 0 : 0x10000);
    }
    out.push_back({"linked planes", {linked, false}});
    return out;
}

// Every proper prefix of a valid block is rejected.
TEST(CodecHostile, EveryTruncationThrowsFormatError) {
    BITPLANE_SEED_TRACE();
    for (const auto& [name, victim] : victims()) {
        const auto& [values, is_signed] = victim;
        SCOPED_TRACE(name);
        const bytes block = encode(values, is_signed);
        const std::size_t stride = quick_mode() && block.size() > 600 ? 7 : 1;
        for (std::size_t len = 0; len < block.size(); len += (len < 64 ? 1 : stride)) {
            const std::span<const std::byte> prefix(block.data(), len);
            ASSERT_TRUE(rejected(prefix, values.size())) << "prefix of " << len << " of " << block.size() << " bytes";
        }
        // Passed as an exactly sized heap copy, so ASan sees any read past the end.
        for (std::size_t len : {block.size() - 1, block.size() / 2}) {
            const bytes copy(block.begin(), block.begin() + static_cast<std::ptrdiff_t>(len));
            ASSERT_TRUE(rejected(copy, values.size()));
        }
    }
}

// A mutated block either throws format_error or is a valid block: then every reader agrees on it.
::testing::AssertionResult survives(const bytes& block, std::size_t count) {
    words out(count);
    bool decoded = false;
    try {
        bitplane::codec::decode_block(block, out);
        decoded = true;
    } catch (const format_error& e) {
        if (e.offset() > block.size()) return ::testing::AssertionFailure() << "offset beyond the block: " << e.what();
    } catch (const std::exception& e) {
        return ::testing::AssertionFailure() << "not a format_error: " << e.what();
    }
    bool valid = false;
    try {
        bitplane::codec::validate_block(block, count);
        valid = true;
    } catch (const format_error&) {
    } catch (const std::exception& e) {
        return ::testing::AssertionFailure() << "validate: not a format_error: " << e.what();
    }
    if (valid != decoded)
        return ::testing::AssertionFailure() << "decode_block " << (decoded ? "accepts" : "rejects")
                                             << " what validate_block " << (valid ? "accepts" : "rejects");
    if (!decoded) return ::testing::AssertionSuccess();
    // Validated: decode_value and describe_block must be consistent with decode_block
    // (about 100 indices: every one would make these tests slow).
    auto r = decode_value_matches(block, out, std::max<std::size_t>(1, count / 97));
    if (!r) return r << " (on a mutated block that validates)";
    const block_info info = bitplane::codec::describe_block(block, count);
    if (info.bytes != block.size()) return ::testing::AssertionFailure() << "describe_block bytes != block size";
    return ::testing::AssertionSuccess();
}

TEST(CodecHostile, RandomByteFlipsNeverCrash) {
    BITPLANE_SEED_TRACE();
    const int rounds = quick_mode() ? 100 : 600;
    std::size_t accepted = 0, total = 0;
    for (const auto& [name, victim] : victims()) {
        const auto& [values, is_signed] = victim;
        SCOPED_TRACE(name);
        const bytes block = encode(values, is_signed);
        std::mt19937_64 rng(case_seed("flips", total));
        for (int r = 0; r < rounds; ++r) {
            bytes mutated = block;
            const int flips = 1 + static_cast<int>(rng() % 3);
            for (int f = 0; f < flips; ++f)
                mutated[rng() % mutated.size()] ^= static_cast<std::byte>(1 + rng() % 255);
            ++total;
            const auto result = survives(mutated, values.size());
            ASSERT_TRUE(result) << "round " << r;
            try {
                bitplane::codec::validate_block(mutated, values.size());
                ++accepted;
            } catch (const format_error&) {
            }
        }
    }
    RecordProperty("mutations", static_cast<int>(total));
    RecordProperty("accepted", static_cast<int>(accepted));
}

// Every single-byte position, every bit, of small blocks.
TEST(CodecHostile, EverySingleBitFlipOfSmallBlocks) {
    BITPLANE_SEED_TRACE();
    for (const auto& [name, victim] : victims()) {
        const auto& [values, is_signed] = victim;
        const bytes block = encode(values, is_signed);
        if (block.size() > (quick_mode() ? 300u : 1200u)) continue;
        SCOPED_TRACE(name);
        for (std::size_t i = 0; i < block.size(); ++i) {
            for (unsigned bit = 0; bit < 8; ++bit) {
                bytes mutated = block;
                mutated[i] ^= static_cast<std::byte>(1u << bit);
                ASSERT_TRUE(survives(mutated, values.size())) << "byte " << i << " bit " << bit;
            }
        }
    }
}

// A valid block read with the wrong value count throws or decodes something, never crashes.
TEST(CodecHostile, WrongValueCountNeverCrashes) {
    for (const auto& [name, victim] : victims()) {
        const auto& [values, is_signed] = victim;
        SCOPED_TRACE(name);
        const bytes block = encode(values, is_signed);
        for (std::size_t count : {values.size() - 1, values.size() + 1, values.size() * 2, std::size_t{1}, std::size_t{2048}}) {
            if (count == 0 || count > 2048 || count == values.size()) continue;
            EXPECT_TRUE(survives(block, count)) << "count " << count;
        }
    }
}

// Longer random mutation campaign (label `fuzz`: run with BITPLANE_TEST_ALL=1).
TEST(CodecFuzz, ManyRandomMutations) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("fuzz"));
    const auto shapes = all_shapes();
    for (int r = 0; r < 20000; ++r) {
        const shape& s = shapes[rng() % shapes.size()];
        const std::size_t n = 1 + rng() % 2048;
        const bool is_signed = rng() % 2 == 0;
        const words values = make_values(s, n, rng());
        bytes block = encode(values, is_signed);
        const int flips = 1 + static_cast<int>(rng() % 4);
        for (int f = 0; f < flips; ++f) block[rng() % block.size()] ^= static_cast<std::byte>(1 + rng() % 255);
        ASSERT_TRUE(survives(block, n)) << case_name(s, n) << " round " << r;
    }
}

// gaps_payload::for_every_position (16 gaps at a time by SSE2 prefix sums where no escape is
// among them) lists the positions for_each_position lists, one by one: gap lists of every
// density and length, with escapes at every offset of a 16-byte chunk (gaps of 254, 255 and
// 256 zero bits: an escape whose u16 holds a 255 byte too), and payloads exactly as long as
// their bytes (ASan catches a read past the end).
TEST(Codec, GapListBatchDecodeMatchesOneByOne) {
    BITPLANE_SEED_TRACE();
    using namespace bitplane::detail;
    std::mt19937_64 rng(case_seed("gap-batch"));
    for (int round = 0; round < 4000; ++round) {
        bitplane::plane p{};
        const int style = round % 6;
        const std::uint32_t length = round % 3 == 0 ? 1 + static_cast<std::uint32_t>(rng() % block_values) : block_values;
        std::uint32_t bit = static_cast<std::uint32_t>(rng() % 300);
        while (bit < length) {
            p[bit / 32] |= 1u << (bit % 32);
            std::uint32_t step = 1;
            switch (style) {
                case 0: step = 1; break;                                                      // every bit
                case 1: step = 1 + static_cast<std::uint32_t>(rng() % 4); break;              // dense
                case 2: step = 1 + static_cast<std::uint32_t>(rng() % 40); break;             // sparse
                case 3: step = 254 + static_cast<std::uint32_t>(rng() % 4); break;            // escapes at the edge
                case 4: step = rng() % 8 == 0 ? 200 + static_cast<std::uint32_t>(rng() % 900) : 1 + static_cast<std::uint32_t>(rng() % 3); break;
                default: step = 1 + static_cast<std::uint32_t>(rng() % 600); break;
            }
            bit += step;
        }
        std::vector<std::byte> scratch(gaps_payload::max_payload_bytes(block_values));
        const std::uint32_t size = gaps_payload::write(p, scratch.data());
        const std::vector<std::byte> payload(scratch.begin(), scratch.begin() + size);  // exact: no slack
        std::vector<std::uint32_t> expected, got;
        gaps_payload::for_each_position(payload.data(), size, [&](std::uint32_t position) {
            expected.push_back(position);
            return true;
        });
        gaps_payload::for_every_position(payload.data(), size, [&](std::uint32_t position) { got.push_back(position); });
        ASSERT_EQ(got, expected) << "round " << round << ", style " << style << ", " << size << " bytes";
        std::vector<std::uint32_t> bits;
        for_each_set_bit(p, [&](std::uint32_t b) { bits.push_back(b); });
        ASSERT_EQ(got, bits) << "round " << round;
    }
    // The empty list.
    gaps_payload::for_every_position(nullptr, 0, [](std::uint32_t) { ADD_FAILURE() << "a position in an empty list"; });
}

// gaps_payload::write (each later gap of a word its trailing zeros after the bits before are
// shifted out) and payload_bytes (zero words found with SSE2 where the host has it) against a
// plain encoder of the format: one byte a gap, 255 and a u16 from 255 on; planes of every
// density, runs of zero words around the 7-word escape threshold, bits at both ends, the empty
// and the full plane.
TEST(Codec, GapListWriteAndSizeMatchReference) {
    BITPLANE_SEED_TRACE();
    using namespace bitplane::detail;
    const auto reference = [](const bitplane::plane& p) {
        std::vector<std::byte> out;
        std::uint32_t next = 0;
        for (std::uint32_t bit = 0; bit < block_values; ++bit) {
            if (((p[bit / 32] >> (bit % 32)) & 1u) == 0) continue;
            const std::uint32_t gap = bit - next;
            if (gap >= 255) {
                out.push_back(std::byte{255});
                out.push_back(static_cast<std::byte>(gap & 0xFF));
                out.push_back(static_cast<std::byte>(gap >> 8));
            } else {
                out.push_back(static_cast<std::byte>(gap));
            }
            next = bit + 1;
        }
        return out;
    };
    std::vector<bitplane::plane> planes;
    planes.push_back({});
    bitplane::plane full;
    full.fill(~0u);
    planes.push_back(full);
    for (const std::uint32_t bit : {0u, 31u, 32u, 254u, 255u, 256u, 2047u}) {
        bitplane::plane p{};
        p[bit / 32] |= 1u << (bit % 32);
        planes.push_back(p);
        p[63] |= 1u << 31;
        planes.push_back(p);
    }
    std::mt19937_64 rng(case_seed("gap-write"));
    for (int round = 0; round < 3000; ++round) {
        bitplane::plane p{};
        const int style = round % 5;
        for (std::uint32_t w = 0; w < bitplane::plane_words; ++w) {
            auto word = static_cast<std::uint32_t>(rng());
            switch (style) {
                case 0: break;                                                              // dense words
                case 1: word &= static_cast<std::uint32_t>(rng()) & static_cast<std::uint32_t>(rng()); break;  // ~1/8
                case 2: word = rng() % 10 == 0 ? 1u << (rng() % 32) : 0u; break;            // a bit now and then
                case 3: word = (w / 6) % 2 == 0 ? word : 0u; break;                          // 6 zero words: no escape
                default: word = (w / 8) % 2 == 0 ? word & 0x80000001u : 0u; break;           // 8: escapes at word edges
            }
            p[w] = word;
        }
        planes.push_back(p);
    }
    std::vector<std::byte> scratch(gaps_payload::max_payload_bytes(block_values));
    for (std::size_t i = 0; i < planes.size(); ++i) {
        const bitplane::plane& p = planes[i];
        std::uint32_t set = 0;
        for (const std::uint32_t w : p) set += static_cast<std::uint32_t>(std::popcount(w));
        const std::vector<std::byte> expected = reference(p);
        const std::uint32_t size = gaps_payload::write(p, scratch.data());
        ASSERT_EQ(std::vector<std::byte>(scratch.begin(), scratch.begin() + size), expected) << "plane " << i;
        ASSERT_EQ(gaps_payload::payload_bytes(p, set), expected.size()) << "plane " << i;
        ASSERT_EQ(gaps_payload::payload_bytes_of([&](std::uint32_t w) { return p[w]; }, set), expected.size())
            << "plane " << i;
    }
}

}  // namespace
