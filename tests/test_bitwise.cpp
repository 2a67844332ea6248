// Element-wise AND, OR, XOR, AND-NOT and NOT (bitplane/bitwise.hpp) against std::vector
// references: every shape and size, mixed shapes between the operands, zero-block and
// same-operand shortcuts, pending write-back blocks and tails, aliasing, size errors, every
// SIMD path and thread counts 1 and 2.
//
// Besides the values, every result's blocks are checked to be valid encodings
// (codec::validate_block) that survive save + load. Blocks computed on planes are encoded
// by codec::encode_planes (plain, per-plane choices), so their bytes may differ from what
// codec::encode_block would pick for the same values; shortcut blocks copy operand bytes.
#include "test_support.hpp"

#include "../src/codec/block_layout.hpp"
#include "../src/codec/thresholds.hpp"

#include <bitplane/bitwise.hpp>
#include <bitplane/codec.hpp>
#include <bitplane/error.hpp>
#include <bitplane/parallel.hpp>
#include <bitplane/serialize.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::block_values;

template <class T>
using bvec = bitplane::vector<T>;

enum class op_kind { and_op, or_op, xor_op, andnot_op, not_op };
constexpr std::array all_ops{op_kind::and_op, op_kind::or_op, op_kind::xor_op, op_kind::andnot_op, op_kind::not_op};

const char* name_of(op_kind op) {
    switch (op) {
        case op_kind::and_op: return "and";
        case op_kind::or_op: return "or";
        case op_kind::xor_op: return "xor";
        case op_kind::andnot_op: return "andnot";
        case op_kind::not_op: return "not";
    }
    return "?";
}

template <class T>
T reference_op(op_kind op, T a, T b) {
    const auto x = std::bit_cast<std::uint32_t>(a);
    const auto y = std::bit_cast<std::uint32_t>(b);
    std::uint32_t r = 0;
    switch (op) {
        case op_kind::and_op: r = x & y; break;
        case op_kind::or_op: r = x | y; break;
        case op_kind::xor_op: r = x ^ y; break;
        case op_kind::andnot_op: r = x & ~y; break;
        case op_kind::not_op: r = ~x; break;
    }
    return std::bit_cast<T>(r);
}

template <class T>
std::vector<T> reference_op(op_kind op, const std::vector<T>& a, const std::vector<T>& b) {
    std::vector<T> out(a.size());
    std::transform(a.begin(), a.end(), b.begin(), out.begin(), [op](T x, T y) { return reference_op(op, x, y); });
    return out;
}

template <class T>
bvec<T> run_op(op_kind op, const bvec<T>& a, const bvec<T>& b) {
    switch (op) {
        case op_kind::and_op: return a & b;
        case op_kind::or_op: return a | b;
        case op_kind::xor_op: return a ^ b;
        case op_kind::andnot_op: return bitplane::andnot(a, b);
        case op_kind::not_op: return ~a;
    }
    return {};
}

template <class T>
bvec<T> from(const std::vector<T>& ref) {
    return bvec<T>(std::span<const T>(ref));
}

template <class T>
std::vector<std::byte> saved(const bvec<T>& v) {
    std::vector<std::byte> bytes;
    bitplane::save(v, bytes);
    return bytes;
}

/// op(a, b) has the reference's values, block count, and the encoding a vector built from
/// those values has.
template <class T>
::testing::AssertionResult op_matches(op_kind op, const bvec<T>& a, const bvec<T>& b, const std::vector<T>& ra,
                                      const std::vector<T>& rb) {
    const std::vector<T> expected = reference_op(op, ra, op == op_kind::not_op ? ra : rb);
    const bvec<T> result = run_op(op, a, b);
    if (result.size() != expected.size())
        return ::testing::AssertionFailure() << name_of(op) << ": size " << result.size() << ", expected "
                                             << expected.size();
    if (auto r = same_values(expected, result.to_std_vector()); !r) return r << " (" << name_of(op) << ")";
    if (result.block_count() != (expected.size() + block_values - 1) / block_values)
        return ::testing::AssertionFailure() << name_of(op) << ": block_count " << result.block_count();
    if (!expected.empty() && result[expected.size() - 1] != expected.back())
        return ::testing::AssertionFailure() << name_of(op) << ": operator[] on the last value";
    // Random reads of the appended result blocks go through the side tables built as they were
    // appended (gap-list skip entries of sparse results' masks): a stride that visits every
    // offset within a bucket over a few blocks.
    for (std::size_t i = 0; i < expected.size(); i += 13)
        if (result[i] != expected[i])
            return ::testing::AssertionFailure() << name_of(op) << ": operator[" << i << "] " << result[i] << ", expected "
                                                 << expected[i];
    std::array<std::byte, bitplane::codec::max_block_bytes> scratch{};
    for (std::size_t k = 0; k < result.core().sealed_block_count(); ++k) {
        try {
            bitplane::codec::validate_block(result.core().sealed_block(k, scratch), block_values);
        } catch (const bitplane::format_error& e) {
            return ::testing::AssertionFailure() << name_of(op) << ": block " << k << " invalid: " << e.what();
        }
    }
    if (bitplane::load<T>(saved(result)).to_std_vector() != expected)
        return ::testing::AssertionFailure() << name_of(op) << ": save + load changed the values";
    return ::testing::AssertionSuccess();
}

/// Every operation on (a, b).
template <class T>
void check_all_ops(const bvec<T>& a, const bvec<T>& b, const std::vector<T>& ra, const std::vector<T>& rb) {
    for (const op_kind op : all_ops) EXPECT_TRUE(op_matches(op, a, b, ra, rb));
}

struct thread_count_guard {
    ~thread_count_guard() { bitplane::set_thread_count(0); }
};

struct simd_path_guard {
    bitplane::simd_path saved = bitplane::active_simd_path();
    ~simd_path_guard() { bitplane::set_simd_path(saved); }
};

// Large enough for the parallel path (at least 32 full blocks), with a tail.
constexpr std::size_t parallel_size = 40 * block_values + 77;

template <class T>
class BitwiseTest : public ::testing::Test {};
using value_types = ::testing::Types<std::uint32_t, std::int32_t>;
TYPED_TEST_SUITE(BitwiseTest, value_types);

// ---- shapes and sizes -------------------------------------------------------------------------

TYPED_TEST(BitwiseTest, EveryShapeAndSize) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    for (const shape& s : all_shapes()) {
        for (const std::size_t n : standard_sizes()) {
            SCOPED_TRACE(case_name(s, n));
            const std::vector<T> ra = make_typed<T>(s, n, case_seed("bitwise-a", s.id(), n));
            const std::vector<T> rb = make_typed<T>(s, n, case_seed("bitwise-b", s.id(), n));
            check_all_ops(from(ra), from(rb), ra, rb);
        }
    }
}

TYPED_TEST(BitwiseTest, MixedShapesBetweenOperands) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    // Sparse against dense, delta against plain, frame of reference against zigzag, ...
    const std::size_t n = 3 * block_values + 5;
    for (const shape& sa : representative_shapes()) {
        const std::vector<T> ra = make_typed<T>(sa, n, case_seed("mixed-a", sa.id()));
        const bvec<T> a = from(ra);
        for (const shape& sb : representative_shapes()) {
            SCOPED_TRACE(sa.name() + " with " + sb.name());
            const std::vector<T> rb = make_typed<T>(sb, n, case_seed("mixed-b", sb.id()));
            check_all_ops(a, from(rb), ra, rb);
        }
    }
}

TYPED_TEST(BitwiseTest, EveryUniformWidthAgainstEveryOther) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const std::size_t n = block_values + 1;
    for (unsigned ka = 0; ka <= 32; ka += quick_mode() ? 4 : 1) {
        const std::vector<T> ra = make_typed<T>(uniform(ka), n, case_seed("widths-a", ka));
        const bvec<T> a = from(ra);
        for (unsigned kb = 0; kb <= 32; kb += 3) {
            SCOPED_TRACE("uniform" + std::to_string(ka) + " with uniform" + std::to_string(kb));
            const std::vector<T> rb = make_typed<T>(uniform(kb), n, case_seed("widths-b", kb));
            check_all_ops(a, from(rb), ra, rb);
        }
    }
}

// ---- a sparse operand against a dense one (ops/bitwise.cpp: combine_sparse_raw) ---------------

// 90% zeros (99.9% for `rare`), else a random value of `bits` bits, made non-zero; `ones`
// ORed into every non-zero value (an all-one plane of the stored values); with `thin_top`
// the top bit is set in one value of 50 only (a plane with few bits: not stored raw).
std::vector<std::uint32_t> sparse_values(std::size_t n, unsigned bits, std::uint32_t ones, bool thin_top, bool rare,
                                         std::uint64_t seed, bool clustered = false) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint32_t> out(n, 0u);
    const std::uint32_t width = bits == 32 ? ~0u : (1u << bits) - 1;
    for (std::size_t i = 0; i < n; ++i) {
        auto& x = out[i];
        // clustered: stretches of 90 in every 700 positions, so the mask's gap list escapes
        // (gaps of 255 and more) between them
        if (clustered && i % 700 >= 90) continue;
        if (rare ? rng() % 1000 != 0 : rng() % 10 != 0) continue;
        std::uint32_t v = static_cast<std::uint32_t>(rng()) & width;
        if (thin_top && bits < 32) v = (v & (width >> 1)) | (rng() % 50 == 0 ? 1u << (bits - 1) : 0u);
        x = (v | ones) != 0 ? v | ones : 1u;
    }
    return out;
}

// Uniform `bits`-bit values shifted left by `shift`, with `ones` set in all of them (all-one
// planes of a dense block).
std::vector<std::uint32_t> dense_values(std::size_t n, unsigned bits, unsigned shift, std::uint32_t ones,
                                        std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint32_t> out(n);
    const std::uint32_t width = bits == 32 ? ~0u : (1u << bits) - 1;
    for (auto& x : out) x = ((static_cast<std::uint32_t>(rng()) & width) << shift) | ones;
    return out;
}

// codec::encode_sparse_planes of a full block's values (the sparse layout's mask and planes
// built bit by bit): what a sparse result block of AND / AND-NOT must be, byte for byte,
// whether ops/bitwise.cpp wrote it itself (write_sparse_raw) or through the planner.
std::vector<std::byte> sparse_planes_encoding(std::span<const std::uint32_t> values) {
    bitplane::plane mask{};
    bitplane::block_planes planes{};
    std::uint32_t kept = 0;
    for (std::uint32_t i = 0; i < values.size(); ++i) {
        if (values[i] == 0) continue;
        mask[i / 32] |= 1u << (i % 32);
        for (std::size_t j = 0; j < bitplane::plane_count; ++j)
            if ((values[i] >> j) & 1u) planes.planes[j][kept / 32] |= 1u << (kept % 32);
        ++kept;
    }
    std::vector<std::byte> out(bitplane::codec::max_block_bytes);
    out.resize(bitplane::codec::encode_sparse_planes(mask, planes, ~0u, values.size(), out));
    return out;
}

/// Where the mask plane of a plain sparse block (flags, u16 m, then the mask's descriptor and
/// payload) ends.
std::size_t sparse_mask_end(const std::vector<std::byte>& block) {
    namespace d = bitplane::detail;
    const std::size_t at = 3;  // flags, u16 m
    const d::plane_code code = d::decode_plane_code(static_cast<std::uint8_t>(block[at]), static_cast<std::uint8_t>(block[at + 1]));
    const std::uint32_t items =
        d::counted(code.payload_kind()) ? static_cast<std::uint32_t>(block[at + 2]) | static_cast<std::uint32_t>(block[at + 3]) << 8 : 0;
    return at + d::plane_descriptor_bytes + (d::counted(code.payload_kind()) ? d::plane_item_count_bytes : 0) +
           d::payload_size(code.payload_kind(), items, block_values);
}

/// Whether the sparse layout of `values` plainly stores every plane raw: each plane is
/// constant over the stored values, or has so many set and clear bits that no position or gap
/// list (4 bytes of descriptor and count, a byte or more a bit) is smaller than its raw bytes.
/// AND / AND-NOT then write it without the planner (ops/bitwise.cpp, write_sparse_raw).
bool plainly_raw(std::span<const std::uint32_t> values) {
    const auto kept = static_cast<std::uint32_t>(std::count_if(values.begin(), values.end(), [](std::uint32_t v) { return v != 0; }));
    for (std::uint32_t j = 0; j < 32; ++j) {
        const auto set = static_cast<std::uint32_t>(
            std::count_if(values.begin(), values.end(), [j](std::uint32_t v) { return ((v >> j) & 1u) != 0; }));
        if (set == 0 || set == kept) continue;
        if (std::min(set, kept - set) + 4 < (kept + 7) / 8) return false;
    }
    return true;
}

/// A plain sparse block's bytes with its mask written raw instead: what AND / AND-NOT write
/// for a mask of many values taken from an operand's gap list or raw mask, where every plane
/// is raw (thresholds::bitwise_raw_mask_min_values).
std::vector<std::byte> with_raw_mask(const std::vector<std::byte>& block, std::span<const std::uint32_t> values) {
    namespace d = bitplane::detail;
    const std::size_t at = 3;
    const std::size_t end = sparse_mask_end(block);
    std::vector<std::byte> out(block.begin(), block.begin() + at);
    out.push_back(static_cast<std::byte>(d::plane_code_byte0(0, bitplane::codec::payload_kind::raw)));
    out.push_back(std::byte{0});
    for (std::size_t byte = 0; byte < block_values / 8; ++byte) {
        std::uint32_t bits = 0;
        for (std::size_t i = 0; i < 8; ++i) bits |= (values[8 * byte + i] != 0 ? 1u : 0u) << i;
        out.push_back(static_cast<std::byte>(bits));
    }
    out.insert(out.end(), block.begin() + static_cast<std::ptrdiff_t>(end), block.end());
    return out;
}

template <class T>
std::vector<T> as_typed(const std::vector<std::uint32_t>& v) {
    std::vector<T> out(v.size());
    std::transform(v.begin(), v.end(), out.begin(), [](std::uint32_t x) { return std::bit_cast<T>(x); });
    return out;
}

TYPED_TEST(BitwiseTest, SparseOperandAgainstDenseOnEveryPath) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const simd_path_guard guard;
    const std::size_t n = 4 * block_values + 77;
    struct sparse_case {
        const char* name;
        unsigned bits;
        std::uint32_t ones;
        bool thin_top;
        bool rare;
        bool clustered = false;
    };
    const sparse_case sparse_cases[] = {{"sparse20", 20, 0, false, false},
                                        {"sparse20 with an all-one plane", 20, 0x100u, false, false},
                                        {"sparse20 with a thin top plane", 20, 0, true, false},
                                        {"sparse32", 32, 0, false, false},
                                        {"sparse3", 3, 0, false, false},
                                        {"sparse20 rare", 20, 0, false, true},
                                        {"sparse20 in clusters", 20, 0, false, false, true},
                                        {"sparse1 in clusters", 1, 0, false, false, true}};
    struct dense_case {
        const char* name;
        unsigned bits;
        unsigned shift;
        std::uint32_t ones;
    };
    // Planes from 0 and from elsewhere (the sparse operand's payloads are then read from the
    // middle of its stored planes), all-one planes, every width.
    const dense_case dense_cases[] = {{"uniform1", 1, 0, 0},
                                      {"uniform10", 10, 0, 0},
                                      {"uniform10 on planes 7-16", 10, 7, 0},
                                      {"uniform3 on planes 12-14", 3, 12, 0},
                                      {"uniform10 with an all-one plane", 10, 0, 0x400u},
                                      {"uniform12 over all-one low planes", 12, 20, 0xFFFFFu},
                                      {"uniform32", 32, 0, 0}};
    std::size_t fast_pairs = 0, raw_masks = 0, planned_masks = 0;
    for (const bitplane::simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        for (const sparse_case& sc : sparse_cases) {
            const std::vector<T> rs =
                as_typed<T>(sparse_values(n, sc.bits, sc.ones, sc.thin_top, sc.rare,
                                          case_seed("sparse-op", sc.bits, sc.ones, sc.clustered), sc.clustered));
            const bvec<T> sparse = from(rs);
            for (const dense_case& dc : dense_cases) {
                SCOPED_TRACE(std::string(sc.name) + " with " + dc.name);
                const std::vector<T> rd = as_typed<T>(dense_values(n, dc.bits, dc.shift, dc.ones, case_seed("dense-op", dc.bits, dc.shift)));
                const bvec<T> dense = from(rd);
                check_all_ops(dense, sparse, rd, rs);
                check_all_ops(sparse, dense, rs, rd);
                // Where the operands are a sparse all-raw block and a dense interleaved one, the
                // fast pair was taken: AND's blocks are sparse (or all zero) like the operand's.
                const bvec<T> anded = dense & sparse;
                for (std::size_t k = 0; k < sparse.core().sealed_block_count(); ++k) {
                    const auto& ds = sparse.core().sealed_descriptor(k);
                    const auto& dd = dense.core().sealed_descriptor(k);
                    const bool pair = ds.sparse() && ds.all_raw() && ds.transform() == bitplane::codec::transform::none &&
                                      !dd.sparse() && dd.interleaved() &&
                                      dd.transform() == bitplane::codec::transform::none;
                    if (!pair) continue;
                    ++fast_pairs;
                    const auto& dr = anded.core().sealed_descriptor(k);
                    EXPECT_TRUE(dr.sparse() || (dr.live == 0 && dr.ones == 0)) << "block " << k;
                    if (!dr.sparse()) continue;
                    std::array<std::byte, bitplane::codec::max_block_bytes> scratch{};
                    const auto bytes = anded.core().sealed_block(k, scratch);
                    std::vector<std::uint32_t> values(block_values);
                    for (std::size_t i = 0; i < block_values; ++i)
                        values[i] = std::bit_cast<std::uint32_t>(anded[k * block_values + i]);
                    // A mask of many values from an operand's gap list or raw mask is written raw.
                    const auto mask_kind = ds.mask_payload();
                    const std::vector<std::byte> planned = sparse_planes_encoding(values);
                    const bool raw_mask = dr.length >= bitplane::detail::thresholds::bitwise_raw_mask_min_values &&
                                          plainly_raw(values) &&
                                          (mask_kind == bitplane::codec::payload_kind::gaps ||
                                           mask_kind == bitplane::codec::payload_kind::raw);
                    const std::vector<std::byte> expected =
                        raw_mask ? with_raw_mask(planned, values) : planned;
                    EXPECT_TRUE(std::vector<std::byte>(bytes.begin(), bytes.end()) == expected)
                        << "block " << k << ": not encode_sparse_planes' bytes" << (raw_mask ? " with a raw mask" : "");
                    raw_masks += raw_mask ? 1 : 0;
                    planned_masks += raw_mask ? 0 : 1;
                }
            }
        }
    }
    EXPECT_GT(fast_pairs, 0u);  // the shapes above reach the fast pair
    EXPECT_GT(raw_masks, 0u);      // and write raw masks (many values kept)
    EXPECT_GT(planned_masks, 0u);  // and planned ones (few kept, or clustered)
}

// `permille` of 1000 values non-zero (random `bits`-bit values, made non-zero), the rest zero.
std::vector<std::uint32_t> values_of_density(std::size_t n, unsigned permille, unsigned bits, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint32_t> out(n, 0u);
    const std::uint32_t width = bits == 32 ? ~0u : (1u << bits) - 1;
    for (auto& x : out) {
        if (rng() % 1000 >= permille) continue;
        const std::uint32_t v = static_cast<std::uint32_t>(rng()) & width;
        x = v != 0 ? v : 1u;
    }
    return out;
}

// Sparse operands from a few values in a block to half of them, against uniform columns of
// several widths (few to most of the kept values becoming zero in an AND: the result's mask
// loses a few bits or many, deposit_plane's one-step and split word pairs), a size that is no
// multiple of a block, and empty columns; every operation in both orders, on every path.
TYPED_TEST(BitwiseTest, SparseOperandsOfEveryDensityEveryPath) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const simd_path_guard guard;
    const std::size_t n = 3 * block_values + 1311;
    const unsigned densities[] = {2, 20, 100, 250, 400, 550};  // permille
    const unsigned sparse_widths[] = {1, 8, 20, 32};
    const unsigned dense_widths[] = {1, 4, 10, 17, 32};
    std::size_t sparse_blocks = 0;
    for (const bitplane::simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        for (const std::size_t size : {std::size_t{0}, n}) {
            for (const unsigned permille : densities) {
                for (const unsigned sw : sparse_widths) {
                    const std::vector<T> rs = as_typed<T>(values_of_density(size, permille, sw, case_seed("density", permille, sw)));
                    const bvec<T> sparse = from(rs);
                    for (std::size_t k = 0; k < sparse.core().sealed_block_count(); ++k)
                        sparse_blocks += sparse.core().sealed_descriptor(k).sparse() ? 1 : 0;
                    for (const unsigned dw : dense_widths) {
                        SCOPED_TRACE("size " + std::to_string(size) + ", " + std::to_string(permille) + " per mille of " +
                                     std::to_string(sw) + "-bit values with uniform" + std::to_string(dw));
                        const std::vector<T> rd = as_typed<T>(dense_values(size, dw, 0, 0, case_seed("density-dense", dw)));
                        const bvec<T> dense = from(rd);
                        check_all_ops(dense, sparse, rd, rs);
                        check_all_ops(sparse, dense, rs, rd);
                    }
                }
            }
        }
    }
    EXPECT_GT(sparse_blocks, 0u);  // the densities above reach the sparse layout
}

// Result blocks that repeat, not side by side (a period of three blocks): AND and AND-NOT of a
// sparse column with a dense one, each built of the same three blocks over and over, give
// blocks that share one stored entry each (found through the recent-blocks table, not the
// previous two blocks), with the right values, on every path.
TYPED_TEST(BitwiseTest, RepeatedSparseResultBlocksShareEntriesEveryPath) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const simd_path_guard guard;
    constexpr std::size_t period = 3, blocks = 12;
    const std::vector<std::uint32_t> sparse_block = values_of_density(period * block_values, 100, 20, case_seed("repeat-s"));
    const std::vector<std::uint32_t> dense_block = dense_values(period * block_values, 10, 0, 0, case_seed("repeat-d"));
    std::vector<std::uint32_t> s32, d32;
    for (std::size_t b = 0; b < blocks; ++b) {
        const auto from_block = static_cast<std::ptrdiff_t>((b % period) * block_values);
        s32.insert(s32.end(), sparse_block.begin() + from_block, sparse_block.begin() + from_block + block_values);
        d32.insert(d32.end(), dense_block.begin() + from_block, dense_block.begin() + from_block + block_values);
    }
    const std::vector<T> rs = as_typed<T>(s32), rd = as_typed<T>(d32);
    for (const bitplane::simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        const bvec<T> sparse = from(rs), dense = from(rd);
        for (const op_kind op : {op_kind::and_op, op_kind::andnot_op}) {
            for (const bool sparse_left : {true, false}) {
                SCOPED_TRACE(std::string(name_of(op)) + (sparse_left ? ", sparse left" : ", sparse right"));
                const bvec<T>& a = sparse_left ? sparse : dense;
                const bvec<T>& b = sparse_left ? dense : sparse;
                EXPECT_TRUE(op_matches(op, a, b, sparse_left ? rs : rd, sparse_left ? rd : rs));
                const bvec<T> result = run_op(op, a, b);
                ASSERT_EQ(result.core().sealed_block_count(), blocks);
                for (std::size_t k = 0; k < blocks; ++k) {
                    const std::byte* stored = result.core().sealed_block(k, {}).data();
                    if (k >= period) {
                        EXPECT_EQ(stored, result.core().sealed_block(k - period, {}).data()) << "block " << k;
                    }
                    if (k >= 1) {
                        EXPECT_NE(stored, result.core().sealed_block(k - 1, {}).data()) << "block " << k;
                    }
                }
            }
        }
    }
}

// ---- shortcuts --------------------------------------------------------------------------------

TYPED_TEST(BitwiseTest, ZeroBlocksAnswerWithoutPlaneWork) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    // a: blocks 0, 2, 4 zero; b: blocks 0, 1, 5 zero; the rest of various shapes.
    const std::size_t blocks = 6;
    const std::size_t n = blocks * block_values + 100;
    std::vector<T> ra = make_typed<T>(of(shape_kind::mixed), n, case_seed("zero-a"));
    std::vector<T> rb = make_typed<T>(uniform(10), n, case_seed("zero-b"));
    auto zero_block = [](std::vector<T>& v, std::size_t block) {
        std::fill_n(v.begin() + static_cast<std::ptrdiff_t>(block * block_values), block_values, T{0});
    };
    for (std::size_t k : {0, 2, 4}) zero_block(ra, k);
    for (std::size_t k : {0, 1, 5}) zero_block(rb, k);
    const bvec<T> a = from(ra), b = from(rb);
    check_all_ops(a, b, ra, rb);

    // The shortcut copies the other operand's encoded block unchanged.
    std::array<std::byte, bitplane::codec::max_block_bytes> s1{}, s2{};
    auto block_bytes = [](const bvec<T>& v, std::size_t k, std::span<std::byte> scratch) {
        const auto bytes = v.core().sealed_block(k, scratch);
        return std::vector<std::byte>(bytes.begin(), bytes.end());
    };
    const bvec<T> ored = a | b, xored = a ^ b, anded = a & b;
    EXPECT_EQ(block_bytes(ored, 2, s1), block_bytes(b, 2, s2));
    EXPECT_EQ(block_bytes(xored, 1, s1), block_bytes(a, 1, s2));
    EXPECT_EQ(block_bytes(ored, 0, s1), block_bytes(a, 0, s2));
    const std::vector<std::uint32_t> zeros(block_values, 0u);
    std::array<std::byte, bitplane::codec::max_block_bytes> z{};
    const std::size_t zn = bitplane::codec::encode_block(zeros, std::is_signed_v<T>, z);
    EXPECT_EQ(block_bytes(anded, 4, s1), std::vector<std::byte>(z.begin(), z.begin() + static_cast<std::ptrdiff_t>(zn)));
}

TYPED_TEST(BitwiseTest, SameOperandAndAliasing) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    for (const shape& s : representative_shapes()) {
        SCOPED_TRACE(s.name());
        const std::size_t n = 4 * block_values + 9;
        std::vector<T> r = make_typed<T>(s, n, case_seed("alias", s.id()));
        bvec<T> a = from(r);
        check_all_ops(a, a, r, r);
        // With a pending write-back block in the shared operand.
        a.set(block_values + 3, T{5});
        r[block_values + 3] = T{5};
        check_all_ops(a, a, r, r);
        // The result assigned back to an operand.
        a = a ^ a;
        EXPECT_TRUE(same_values(std::vector<T>(n, T{0}), a.to_std_vector()));
    }
}

// ---- write-back blocks and tails ----------------------------------------------------------------

TYPED_TEST(BitwiseTest, PendingWriteBackBlocksAndTails) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const std::size_t n = 5 * block_values + 1234;
    for (const shape& s : representative_shapes()) {
        SCOPED_TRACE(s.name());
        std::vector<T> ra = make_typed<T>(s, n, case_seed("hot-a", s.id()));
        std::vector<T> rb = make_typed<T>(of(shape_kind::mixed), n, case_seed("hot-b", s.id()));
        bvec<T> a = from(ra), b = from(rb);
        std::mt19937_64 rng(case_seed("hot-writes", s.id()));
        auto write = [&rng](bvec<T>& v, std::vector<T>& r, std::size_t i) {
            const T x = std::bit_cast<T>(static_cast<std::uint32_t>(rng()) >> (rng() % 32));
            v.set(i, x);
            r[i] = x;
        };
        // Several sealed blocks written, a pending one left in each (different blocks), the tails too.
        for (std::size_t i : {std::size_t{7}, 3 * block_values + 1, 2 * block_values + 100}) write(a, ra, i);
        for (std::size_t i : {std::size_t{block_values}, 4 * block_values + 5}) write(b, rb, i);
        write(a, ra, n - 1);
        write(b, rb, 5 * block_values);
        check_all_ops(a, b, ra, rb);
        // The same block pending in both.
        write(a, ra, 4 * block_values + 17);
        check_all_ops(a, b, ra, rb);
        // A pending block that is all zero: the zero shortcut through the write-back buffer.
        for (std::size_t i = block_values; i < 2 * block_values; ++i) {
            b.set(i, T{0});
            rb[i] = T{0};
        }
        check_all_ops(a, b, ra, rb);
        check_all_ops(b, a, rb, ra);
    }
}

// ---- errors -----------------------------------------------------------------------------------

TYPED_TEST(BitwiseTest, SizeMismatchThrowsNamingBothSizes) {
    using T = TypeParam;
    const bvec<T> a(5, T{1}), b(7, T{2}), e;
    for (const op_kind op : all_ops) {
        if (op == op_kind::not_op) continue;
        SCOPED_TRACE(name_of(op));
        try {
            (void)run_op(op, a, b);
            ADD_FAILURE() << "no size_error";
        } catch (const bitplane::size_error& error) {
            const std::string what = error.what();
            EXPECT_NE(what.find('5'), std::string::npos) << what;
            EXPECT_NE(what.find('7'), std::string::npos) << what;
        }
        EXPECT_THROW((void)run_op(op, e, a), bitplane::size_error);
        EXPECT_THROW((void)run_op(op, b, e), bitplane::size_error);
    }
    const bvec<T> empty_result = ~e;
    EXPECT_TRUE(empty_result.empty());
    EXPECT_TRUE((e & e).empty());
}

// ---- SIMD paths and threads ---------------------------------------------------------------------

TYPED_TEST(BitwiseTest, EverySimdPathGivesTheSameBytes) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const simd_path_guard guard;
    const std::size_t n = 3 * block_values + 300;
    for (const shape& s : representative_shapes()) {
        SCOPED_TRACE(s.name());
        const std::vector<T> ra = make_typed<T>(s, n, case_seed("simd-a", s.id()));
        const std::vector<T> rb = make_typed<T>(of(shape_kind::mixed), n, case_seed("simd-b", s.id()));
        std::vector<std::vector<std::byte>> first;
        for (const bitplane::simd_path path : bitplane_test::paths_to_sweep()) {
            SCOPED_TRACE(std::string(bitplane::to_string(path)));
            bitplane::set_simd_path(path);
            const bvec<T> a = from(ra), b = from(rb);
            check_all_ops(a, b, ra, rb);
            std::vector<std::vector<std::byte>> bytes;
            for (const op_kind op : all_ops) bytes.push_back(saved(run_op(op, a, b)));
            if (first.empty()) first = bytes;
            EXPECT_TRUE(bytes == first) << "encoded results differ from the first path's";
        }
    }
}

TYPED_TEST(BitwiseTest, ThreadCountsGiveTheSameBytes) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const thread_count_guard guard;
    const std::vector<shape> shapes = quick_mode() ? representative_shapes() : all_shapes();
    for (const shape& s : shapes) {
        SCOPED_TRACE(s.name());
        const std::vector<T> ra = make_typed<T>(s, parallel_size, case_seed("threads-a", s.id()));
        const std::vector<T> rb = make_typed<T>(of(shape_kind::mixed), parallel_size, case_seed("threads-b", s.id()));
        bvec<T> a = from(ra), b = from(rb);
        std::vector<T> wa = ra;
        a.set(17 * block_values + 5, T{3});  // a pending write-back block
        wa[17 * block_values + 5] = T{3};
        std::vector<std::vector<std::byte>> first;
        for (const std::size_t threads : {1, 2}) {
            SCOPED_TRACE("threads " + std::to_string(threads));
            bitplane::set_thread_count(threads);
            check_all_ops(a, b, wa, rb);
            std::vector<std::vector<std::byte>> bytes;
            for (const op_kind op : all_ops) bytes.push_back(saved(run_op(op, a, b)));
            if (first.empty()) first = bytes;
            EXPECT_TRUE(bytes == first) << "encoded results differ between thread counts";
        }
    }
}

TEST(BitwiseTest, CombinesWithOtherOperationsOnLargeColumns) {
    BITPLANE_SEED_TRACE();
    // A chain on ~100 blocks at the default thread count: (a & b) | (a ^ ~b) == ~(a ^ b).
    const std::size_t n = 100 * block_values + 3;
    const auto ra = make_typed<std::uint32_t>(uniform(10), n, case_seed("chain-a"));
    const auto rb = make_typed<std::uint32_t>(of(shape_kind::mixed), n, case_seed("chain-b"));
    const bvec<std::uint32_t> a = from(ra), b = from(rb);
    const bvec<std::uint32_t> left = (a & b) | (a ^ ~b);
    const bvec<std::uint32_t> right = ~(a ^ b);
    EXPECT_TRUE(left == right);  // values; encodings may differ (planes vs values path)
    std::vector<std::uint32_t> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = ~(ra[i] ^ rb[i]);
    EXPECT_TRUE(same_values(expected, right.to_std_vector()));
}

}  // namespace
