// Exact reductions (include/bitplane/reduce.hpp) against plain scalar references with 128-bit
// accumulation: every data shape and standard size, both value types, operands of different
// shapes (so dense, sparse, frame-of-reference, delta and zigzag blocks meet), vectors with a
// pending write-back block and a partial tail, every SIMD path, 1 and 2 threads, and each dot
// method forced in turn (planes, decode) besides the cost model's own choice.
#include "test_support.hpp"
#include "core/vector_access.hpp"
#include "../src/codec/block_format.hpp"
#include "../src/ops/block_sum.hpp"
#include "../src/ops/reduce_internal.hpp"
#include "../src/simd/kernels.hpp"

#include <bitplane/codec.hpp>
#include <bitplane/error.hpp>
#include <bitplane/parallel.hpp>
#include <bitplane/reduce.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <climits>
#include <cstddef>
#include <map>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::block_values;
using bitplane::int128;
using bitplane::uint128;
using bitplane::detail::dot_method;

template <class T>
using bvec = bitplane::vector<T>;
template <class T>
using wide = bitplane::wide_t<T>;

template <class T>
bvec<T> from(const std::vector<T>& values) {
    return bvec<T>(std::span<const T>(values));
}

// ---- references: one value at a time, 128-bit sums ----------------------------------------------

template <class T>
wide<T> ref_sum(const std::vector<T>& v) {
    wide<T> s = 0;
    for (const T x : v) s += x;
    return s;
}

template <class T>
wide<T> ref_dot(const std::vector<T>& a, const std::vector<T>& b) {
    wide<T> s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += static_cast<wide<T>>(a[i]) * static_cast<wide<T>>(b[i]);
    return s;
}

template <class T>
uint128 ref_squares(const std::vector<T>& v) {
    uint128 s = 0;
    for (const T x : v) s += static_cast<uint128>(static_cast<int128>(x) * static_cast<int128>(x));
    return s;
}

template <class T>
std::uint64_t ref_popcount(const std::vector<T>& v) {
    std::uint64_t n = 0;
    for (const T x : v) n += static_cast<std::uint64_t>(std::popcount(std::bit_cast<std::uint32_t>(x)));
    return n;
}

template <class T>
std::uint64_t ref_hamming(const std::vector<T>& a, const std::vector<T>& b) {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        n += static_cast<std::uint64_t>(std::popcount(std::bit_cast<std::uint32_t>(a[i]) ^ std::bit_cast<std::uint32_t>(b[i])));
    return n;
}

template <class T>
std::uint64_t ref_mismatch(const std::vector<T>& a, const std::vector<T>& b) {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < a.size(); ++i) n += a[i] != b[i] ? 1 : 0;
    return n;
}

template <class W>
::testing::AssertionResult same_wide(const char* what, W expected, W actual) {
    if (expected == actual) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << what << ": expected " << bitplane::to_string(expected) << ", got "
                                         << bitplane::to_string(actual);
}

// ---- guards ---------------------------------------------------------------------------------------

struct settings_guard {
    bitplane::simd_path path = bitplane::active_simd_path();
    ~settings_guard() {
        bitplane::set_simd_path(path);
        bitplane::set_thread_count(0);
        bitplane::detail::force_dot_method(dot_method::automatic);
    }
};

constexpr dot_method all_methods[] = {dot_method::automatic, dot_method::planes, dot_method::decode};

const char* name_of(dot_method m) {
    switch (m) {
        case dot_method::automatic: return "automatic";
        case dot_method::planes: return "planes";
        case dot_method::decode: return "decode";
    }
    return "?";
}

// Large enough for the parallel path (at least 2 * 16 blocks), with a tail.
constexpr std::size_t parallel_size = 34 * block_values + 100;

std::vector<std::size_t> test_sizes() {
    std::vector<std::size_t> sizes = standard_sizes();
    if (!quick_mode()) sizes.push_back(parallel_size);
    return sizes;
}

// dot(a, b) and sum_of_squares(a) on every SIMD path under every dot method (the dot method
// is left automatic).
template <class T, class Wide>
void expect_dot_and_squares_everywhere(const bvec<T>& a, const bvec<T>& b, const Wide& dot, const uint128& squares) {
    for (const bitplane::simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        for (const dot_method m : all_methods) {
            SCOPED_TRACE(name_of(m));
            bitplane::detail::force_dot_method(m);
            EXPECT_TRUE(same_wide("dot", dot, bitplane::dot(a, b)));
            EXPECT_TRUE(same_wide("sum_of_squares", squares, bitplane::sum_of_squares(a)));
        }
    }
    bitplane::detail::force_dot_method(dot_method::automatic);
}

// Every operation on (a, b) against the references, under every dot method.
template <class T>
void check_all(const bvec<T>& a, const bvec<T>& b, const std::vector<T>& ra, const std::vector<T>& rb) {
    EXPECT_TRUE(same_wide("sum(a)", ref_sum(ra), bitplane::sum(a)));
    EXPECT_TRUE(same_wide("sum(b)", ref_sum(rb), bitplane::sum(b)));
    EXPECT_EQ(ref_popcount(ra), bitplane::popcount(a));
    EXPECT_EQ(ref_hamming(ra, rb), bitplane::hamming_distance(a, b));
    EXPECT_EQ(ref_mismatch(ra, rb), bitplane::mismatch_count(a, b));
    for (const dot_method m : all_methods) {
        SCOPED_TRACE(name_of(m));
        bitplane::detail::force_dot_method(m);
        EXPECT_TRUE(same_wide("dot(a, b)", ref_dot(ra, rb), bitplane::dot(a, b)));
        EXPECT_TRUE(same_wide("dot(b, a)", ref_dot(rb, ra), bitplane::dot(b, a)));
        EXPECT_TRUE(same_wide("dot(a, a)", ref_dot(ra, ra), bitplane::dot(a, a)));
        EXPECT_TRUE(same_wide("sum_of_squares(a)", ref_squares(ra), bitplane::sum_of_squares(a)));
        EXPECT_TRUE(same_wide("sum_of_squares(b)", ref_squares(rb), bitplane::sum_of_squares(b)));
    }
    bitplane::detail::force_dot_method(dot_method::automatic);
}

// The partner shape of shape i: another encoding, so that blocks of different kinds meet.
shape partner(std::size_t i) {
    const std::vector<shape> shapes = all_shapes();
    return shapes[(i * 7 + 3) % shapes.size()];
}

template <class T>
class ReduceTest : public ::testing::Test {};
using value_types = ::testing::Types<std::uint32_t, std::int32_t>;
TYPED_TEST_SUITE(ReduceTest, value_types);

// ---- shapes and sizes -------------------------------------------------------------------------

TYPED_TEST(ReduceTest, EveryShapeAndSizeAgainstAnotherShape) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    const std::vector<shape> shapes = quick_mode() ? representative_shapes() : all_shapes();
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        const shape s = shapes[i];
        const shape t = partner(i);
        for (const std::size_t n : test_sizes()) {
            SCOPED_TRACE(case_name(s, n, "with " + t.name()));
            const std::vector<T> ra = make_typed<T>(s, n, case_seed("reduce-a", s.id(), n));
            const std::vector<T> rb = make_typed<T>(t, n, case_seed("reduce-b", s.id(), n));
            check_all(from(ra), from(rb), ra, rb);
        }
    }
}

// Equal values in two vectors: the same layouts (sparse blocks with one mask pair up as they
// are), but not the same object.
TYPED_TEST(ReduceTest, EqualVectorsThatAreNotTheSameObject) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    for (const shape& s : quick_mode() ? representative_shapes() : all_shapes()) {
        const std::size_t n = 5 * block_values + 17;
        SCOPED_TRACE(case_name(s, n));
        const std::vector<T> r = make_typed<T>(s, n, case_seed("equal", s.id()));
        check_all(from(r), from(r), r, r);
    }
}

// Every uniform width against every other: the dot method changes with the live planes.
TYPED_TEST(ReduceTest, EveryUniformWidthAgainstEveryOther) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    const std::size_t n = 2 * block_values + 3;
    const unsigned step = quick_mode() ? 5 : 1;
    for (unsigned x = 0; x <= 32; x += step) {
        const std::vector<T> ra = make_typed<T>(uniform(x), n, case_seed("widths-a", x));
        const bvec<T> a = from(ra);
        for (unsigned y = 0; y <= 32; y += step) {
            SCOPED_TRACE("widths " + std::to_string(x) + " x " + std::to_string(y));
            const std::vector<T> rb = make_typed<T>(uniform(y), n, case_seed("widths-b", y));
            const bvec<T> b = from(rb);
            for (const dot_method m : all_methods) {
                SCOPED_TRACE(name_of(m));
                bitplane::detail::force_dot_method(m);
                EXPECT_TRUE(same_wide("dot", ref_dot(ra, rb), bitplane::dot(a, b)));
            }
            bitplane::detail::force_dot_method(dot_method::automatic);
        }
    }
}

// Structured shapes against each other (sparse x sparse with other masks, sparse x FOR, delta x
// sparse, ...): every pair of the representative shapes.
TYPED_TEST(ReduceTest, StructuredShapesPairwise) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    const std::vector<shape> shapes = representative_shapes();
    const std::size_t n = 3 * block_values + 999;
    for (const shape& s : shapes) {
        const std::vector<T> ra = make_typed<T>(s, n, case_seed("pairs-a", s.id()));
        const bvec<T> a = from(ra);
        for (const shape& t : shapes) {
            SCOPED_TRACE(s.name() + " x " + t.name());
            const std::vector<T> rb = make_typed<T>(t, n, case_seed("pairs-b", t.id()));
            const bvec<T> b = from(rb);
            EXPECT_EQ(ref_hamming(ra, rb), bitplane::hamming_distance(a, b));
            EXPECT_EQ(ref_mismatch(ra, rb), bitplane::mismatch_count(a, b));
            for (const dot_method m : all_methods) {
                SCOPED_TRACE(name_of(m));
                bitplane::detail::force_dot_method(m);
                EXPECT_TRUE(same_wide("dot", ref_dot(ra, rb), bitplane::dot(a, b)));
            }
            bitplane::detail::force_dot_method(dot_method::automatic);
        }
    }
}

// ---- write-back blocks and tails ----------------------------------------------------------------

TYPED_TEST(ReduceTest, PendingWriteBackBlocksAndTails) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    const std::size_t n = 5 * block_values + 1234;
    for (const shape& s : quick_mode() ? representative_shapes() : all_shapes()) {
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
        // Sealed blocks written (each write re-encodes the previous pending block), one pending
        // block left in each vector, and writes to the tails.
        for (std::size_t i : {std::size_t{7}, 3 * block_values + 1, 2 * block_values + 100}) write(a, ra, i);
        for (std::size_t i : {std::size_t{block_values}, 4 * block_values + 5}) write(b, rb, i);
        write(a, ra, n - 1);
        write(b, rb, 5 * block_values);
        check_all(a, b, ra, rb);
        // The same block pending in both.
        write(a, ra, 4 * block_values + 17);
        check_all(a, b, ra, rb);
        // After seal(): the written blocks re-encoded.
        a.seal();
        check_all(a, b, ra, rb);
        b.seal();
        check_all(a, b, ra, rb);
    }
}

// ---- exactness ------------------------------------------------------------------------------------

TEST(Reduce, DotOfValuesNearTheTopNeeds128Bits) {
    const settings_guard guard;
    const std::size_t n = 100'000;
    std::mt19937_64 rng(case_seed("near-top"));
    std::vector<std::uint32_t> ra(n), rb(n);
    for (std::size_t i = 0; i < n; ++i) {
        ra[i] = 0xFFFFFFFFu - static_cast<std::uint32_t>(rng() % 16);
        rb[i] = 0xFFFFFFFFu - static_cast<std::uint32_t>(rng() % 1000);
    }
    const bvec<std::uint32_t> a = from(ra), b = from(rb);
    const uint128 expected = ref_dot(ra, rb);
    EXPECT_GT(expected >> 64, uint128{0}) << "the test must exceed 64 bits";
    expect_dot_and_squares_everywhere(a, b, expected, ref_squares(ra));
    for (const bitplane::simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        EXPECT_TRUE(same_wide("sum", ref_sum(ra), bitplane::sum(a)));
    }
    // A closed form as a second witness: n * (2^32 - 1)^2 for all-ones values.
    const bvec<std::uint32_t> ones(n, 0xFFFFFFFFu);
    const uint128 top = 0xFFFFFFFFu;
    EXPECT_TRUE(same_wide("dot(ones, ones)", uint128{n} * top * top, bitplane::dot(ones, ones)));
    EXPECT_TRUE(same_wide("sum(ones)", uint128{n} * top, bitplane::sum(ones)));
}

// Uniform columns of 17..32 bits against partners of other widths (the AVX2 fused kernel's
// split and wide kernels, the column-pair transpose of 25..32-bit operands, unplaced planes of
// masked blocks), with frame-of-reference bases that keep or wrap the top, both types, a size
// that is not a multiple of 2048, every method, every path: the 128-bit reference decides.
template <class T>
void check_wide_dots() {
    const settings_guard guard;
    const std::size_t n = 3 * block_values + 77;
    std::mt19937_64 rng(case_seed(std::is_signed_v<T> ? "wide-dots-signed" : "wide-dots"));
    const auto column = [&](std::uint32_t bits, std::uint32_t offset, std::uint32_t keep) {
        std::vector<T> v(n);
        const std::uint32_t mask = bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
        for (auto& x : v) x = static_cast<T>(((static_cast<std::uint32_t>(rng()) & mask & keep) + offset));
        return v;
    };
    const std::uint32_t partners[] = {3, 10, 20, 28, 32};
    for (std::uint32_t bits = 17; bits <= 32; ++bits) {
        for (const std::uint32_t other : partners) {
            SCOPED_TRACE(std::to_string(bits) + " x " + std::to_string(other) + " bits");
            // Offsets: none, one that frame-of-reference removes, one past the top (wraps);
            // keep: every plane, or a scattered set (unplaced live planes).
            const std::uint32_t offset = static_cast<std::uint32_t>(rng() % 3) == 0 ? 0u : static_cast<std::uint32_t>(rng());
            const std::uint32_t keep = rng() % 2 == 0 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(rng() | rng()) | (1u << (bits - 1));
            const std::vector<T> ra = column(bits, offset, keep);
            const std::vector<T> rb = column(other, static_cast<std::uint32_t>(rng() % 1000), 0xFFFFFFFFu);
            const bvec<T> a = from(ra), b = from(rb);
            expect_dot_and_squares_everywhere(a, b, ref_dot(ra, rb), ref_squares(ra));
            if (::testing::Test::HasFailure()) return;
        }
    }
}

TEST(Reduce, DotOfWideColumnsMatchesReferenceEveryPath) {
    check_wide_dots<std::uint32_t>();
    check_wide_dots<std::int32_t>();
}

TEST(Reduce, SignedExtremes) {
    const settings_guard guard;
    const std::size_t n = 3 * block_values + 11;
    std::vector<std::int32_t> lo(n, INT32_MIN), hi(n, INT32_MAX), alt(n);
    for (std::size_t i = 0; i < n; ++i) alt[i] = i % 2 == 0 ? INT32_MIN : INT32_MAX;
    const bvec<std::int32_t> a = from(lo), b = from(hi), c = from(alt);
    for (const dot_method m : all_methods) {
        SCOPED_TRACE(name_of(m));
        bitplane::detail::force_dot_method(m);
        EXPECT_TRUE(same_wide("dot(min, min)", int128{static_cast<std::int64_t>(n)} * (int128{1} << 62), bitplane::dot(a, a)));
        EXPECT_TRUE(same_wide("dot(min, max)", ref_dot(lo, hi), bitplane::dot(a, b)));
        EXPECT_TRUE(same_wide("dot(alt, min)", ref_dot(alt, lo), bitplane::dot(c, a)));
        EXPECT_TRUE(same_wide("squares(alt)", ref_squares(alt), bitplane::sum_of_squares(c)));
    }
    EXPECT_TRUE(same_wide("sum(min)", -int128{static_cast<std::int64_t>(n)} * (int128{1} << 31), bitplane::sum(a)));
    EXPECT_TRUE(same_wide("sum(alt)", ref_sum(alt), bitplane::sum(c)));
}

// A frame-of-reference block whose base + residual passes the type's maximum (the encoder never
// writes one, a file may hold one): v = base + r wraps modulo 2^32, so the plane identities do
// not hold and the block must be decoded.
template <class T>
bvec<T> wrapping_for_vector(std::uint32_t base, std::vector<T>& values) {
    constexpr std::uint32_t live = 0xFFu;  // residuals 0..255
    std::mt19937_64 rng(case_seed("wrap", base));
    std::vector<std::uint32_t> residuals(block_values);
    for (auto& r : residuals) r = static_cast<std::uint32_t>(rng() & live);
    std::vector<std::byte> bytes;
    auto put32 = [&bytes](std::uint32_t x) {
        for (int k = 0; k < 4; ++k) bytes.push_back(static_cast<std::byte>(x >> (8 * k)));
    };
    bytes.push_back(std::byte{0x11});  // frame of reference, all raw (interleaved)
    put32(base);
    put32(live);
    for (std::size_t column = 0; column < bitplane::plane_words; ++column) {
        for (std::size_t j = 0; j < 8; ++j) {
            std::uint32_t word = 0;
            for (std::size_t b = 0; b < 32; ++b) word |= ((residuals[32 * column + b] >> j) & 1u) << b;
            put32(word);
        }
    }
    std::vector<std::uint32_t> decoded(block_values);
    bitplane::codec::decode_block(bytes, decoded);  // a valid block
    values.resize(block_values);
    for (std::size_t i = 0; i < block_values; ++i) {
        EXPECT_EQ(decoded[i], base + residuals[i]);
        values[i] = std::bit_cast<T>(base + residuals[i]);
    }
    bvec<T> v;
    const std::uint64_t offset = 0;
    const auto size = static_cast<std::uint32_t>(bytes.size());
    bitplane::detail::vector_access::core(v).adopt(bytes, {&offset, 1}, {&size, 1}, {}, block_values);
    EXPECT_EQ(v.to_std_vector(), values);
    return v;
}

TEST(Reduce, FrameOfReferenceBlocksThatWrapAreDecoded) {
    const settings_guard guard;
    {
        std::vector<std::uint32_t> r;
        const bvec<std::uint32_t> v = wrapping_for_vector<std::uint32_t>(0xFFFFFF80u, r);
        EXPECT_TRUE(same_wide("sum", ref_sum(r), bitplane::sum(v)));
        for (const dot_method m : all_methods) {
            bitplane::detail::force_dot_method(m);
            EXPECT_TRUE(same_wide("squares", ref_squares(r), bitplane::sum_of_squares(v))) << name_of(m);
        }
    }
    {
        std::vector<std::int32_t> r;
        const bvec<std::int32_t> v = wrapping_for_vector<std::int32_t>(0x7FFFFF80u, r);
        EXPECT_TRUE(same_wide("sum", ref_sum(r), bitplane::sum(v)));
        for (const dot_method m : all_methods) {
            bitplane::detail::force_dot_method(m);
            EXPECT_TRUE(same_wide("squares", ref_squares(r), bitplane::sum_of_squares(v))) << name_of(m);
        }
    }
    {
        // A base just below the maximum that does not wrap as int32: the plane path applies.
        std::vector<std::int32_t> r;
        const bvec<std::int32_t> v = wrapping_for_vector<std::int32_t>(0xFFFFFF80u, r);  // -128 + 0..255
        EXPECT_TRUE(same_wide("sum", ref_sum(r), bitplane::sum(v)));
        for (const dot_method m : all_methods) {
            bitplane::detail::force_dot_method(m);
            EXPECT_TRUE(same_wide("squares", ref_squares(r), bitplane::sum_of_squares(v))) << name_of(m);
        }
    }
}

// Uniform values with some planes always one: plain all-raw blocks with an all-one plane mask
// (the interleaved payload leaves those planes out), in both value types.
TYPED_TEST(ReduceTest, AllOnePlanesOfRawBlocks) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    const std::size_t n = 4 * block_values + 33;
    for (const std::uint32_t ones : {0x00100020u, 0x80000001u, 0xC0000000u}) {
        SCOPED_TRACE("ones " + std::to_string(ones));
        std::mt19937_64 rng(case_seed("ones", ones));
        std::vector<T> ra(n), rb(n);
        for (std::size_t i = 0; i < n; ++i) {
            ra[i] = std::bit_cast<T>(static_cast<std::uint32_t>(rng()) | ones);
            rb[i] = std::bit_cast<T>(static_cast<std::uint32_t>(rng()) >> 12 | ones);
        }
        const bvec<T> a = from(ra), b = from(rb);
        const bitplane::codec::block_info info = bitplane::codec::describe_block(a.core().sealed_block(0, {}), block_values);
        EXPECT_EQ(info.value_transform, bitplane::codec::transform::none);
        check_all(a, b, ra, rb);
    }
}

// ---- sums of single blocks ---------------------------------------------------------------------------
// encoded_block_sum on blocks of every shape, partial sizes included, as the encoder writes them
// with each choice turned off in turn (so that plain, frame-of-reference, delta and zigzag blocks,
// dense and sparse, raw and listed planes, with and without references all occur), on every
// SIMD path, read in place and from rebuilt planes, against the sum of the values.

struct rebuilt_guard {
    explicit rebuilt_guard(bool on) { bitplane::detail::force_rebuilt_plane_sums(on); }
    ~rebuilt_guard() { bitplane::detail::force_rebuilt_plane_sums(false); }
    rebuilt_guard(const rebuilt_guard&) = delete;
    rebuilt_guard& operator=(const rebuilt_guard&) = delete;
};

template <class T>
std::map<std::string, int> check_block_sums(const std::vector<T>& values, std::map<std::string, int> seen) {
    using bitplane::codec::encode_options;
    constexpr bool is_signed = std::is_signed_v<T>;
    std::vector<std::uint32_t> bits(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) bits[i] = std::bit_cast<std::uint32_t>(values[i]);
    const wide<T> expected = ref_sum(values);
    encode_options no_delta, no_sparse, no_references, no_transforms;
    no_delta.delta = false;
    no_sparse.sparse = false;
    no_references.references = false;
    no_transforms.frame_of_reference = no_transforms.delta = no_transforms.zigzag = false;
    // The block's bits do not depend on the column type: blocks encoded as the other type's
    // (zigzag in a uint32 column, a signed base in a uint32 frame of reference) are summed too.
    for (const bool encode_signed : {is_signed, !is_signed})
    for (const encode_options& options : {encode_options{}, no_delta, no_sparse, no_references, no_transforms}) {
        std::vector<std::byte> bytes(bitplane::codec::max_block_bytes);
        bytes.resize(bitplane::codec::encode_block(bits, encode_signed, bytes, options));
        const bitplane::detail::parsed_block header = bitplane::detail::parse_block(bytes, bits.size(), true);
        const bitplane::codec::block_info info = bitplane::codec::describe_block(bytes, bits.size());
        bool refers = false;
        for (const auto& p : info.planes) refers = refers || p.base == bitplane::codec::base_kind::plane ||
                                                   p.base == bitplane::codec::base_kind::complement;
        std::string payloads;  // the payload kinds of its planes: p positions, r runs, w raw, g gaps, 1 base one
        for (const auto& p : info.planes) {
            const char letter = "-prwg"[static_cast<int>(p.payload)];
            if (letter != '-' && payloads.find(letter) == std::string::npos) payloads += letter;
            if (p.base == bitplane::codec::base_kind::one && payloads.find('1') == std::string::npos) payloads += '1';
        }
        const std::string kind = "transform " + std::to_string(static_cast<int>(header.value_transform)) +
                                 (header.sparse ? " sparse" : " dense") + (header.interleaved ? " interleaved" : "") +
                                 (refers ? " references" : "") + " payloads " + payloads +
                                 (header.sparse ? std::string(" mask ") + "-prwg"[static_cast<int>(info.mask.payload)] : "");
        ++seen[kind];
        SCOPED_TRACE(kind);
        for (const bitplane::simd_path path : bitplane_test::paths_to_sweep()) {
            bitplane::set_simd_path(path);
            for (const bool rebuilt : {false, true}) {
                SCOPED_TRACE(std::string(bitplane::to_string(path)) + (rebuilt ? ", rebuilt planes" : ", in place"));
                const rebuilt_guard guard(rebuilt);
                bitplane::detail::block_sum_scratch scratch;
                const auto sum = static_cast<wide<T>>(bitplane::detail::encoded_block_sum(
                    header, bytes, is_signed, bitplane::detail::active_kernels(), scratch));
                EXPECT_TRUE(same_wide("block sum", expected, sum));
                if (header.value_transform == bitplane::codec::transform::none) {
                    EXPECT_EQ(ref_popcount(values), bitplane::detail::encoded_block_popcount(
                                                        header, bytes, bitplane::detail::active_kernels(), scratch));
                }
            }
        }
    }
    return seen;
}

TYPED_TEST(ReduceTest, BlockSumsOfEveryTransformAndLayout) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    std::map<std::string, int> seen;
    for (const shape& s : quick_mode() ? representative_shapes() : all_shapes()) {
        for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{100}, std::size_t{2047}, block_values}) {
            SCOPED_TRACE(case_name(s, n));
            seen = check_block_sums(make_typed<T>(s, n, case_seed("block-sums", s.id(), n)), std::move(seen));
        }
    }
    // Sparse delta (steps of exactly 1000 but a few) and sparse frame of reference (a base with
    // a few values above it), beside the shapes'.
    std::mt19937_64 rng(case_seed("block-sums-sparse"));
    for (const std::size_t n : {std::size_t{3}, std::size_t{700}, block_values}) {
        std::vector<T> ticks(n), above(n);
        std::uint32_t t = static_cast<std::uint32_t>(rng());
        for (std::size_t i = 0; i < n; ++i) {
            t += rng() % 30 == 0 ? 1000u + static_cast<std::uint32_t>(rng() % 100) : 1000u;
            ticks[i] = std::bit_cast<T>(t);
            above[i] = std::bit_cast<T>(1'000'000u + (rng() % 10 == 0 ? static_cast<std::uint32_t>(rng() % 5000) : 0u));
        }
        SCOPED_TRACE("sparse deltas and offsets, n=" + std::to_string(n));
        seen = check_block_sums(ticks, std::move(seen));
        seen = check_block_sums(above, std::move(seen));
    }
    std::string kinds;
    for (const auto& [kind, count] : seen) kinds += kind + ": " + std::to_string(count) + "\n";
    // Every transform (0 none, 1 frame of reference, 2 delta, 3 zigzag) occurred, and the
    // layouts each path treats its own way.
    for (const char* kind : {"transform 0 dense interleaved", "transform 0 sparse", "transform 1 dense",
                             "transform 1 sparse", "transform 2 dense", "transform 2 sparse",
                             "transform 2 dense interleaved", "transform 3 dense"}) {
        bool found = false;
        for (const auto& entry : seen) found = found || entry.first.rfind(kind, 0) == 0;
        EXPECT_TRUE(found) << kind << " never occurred; seen:\n" << kinds;
    }
}

// Delta blocks whose residuals make every payload kind (position lists, runs, raw bits, gap
// lists, on a zero or a one base), dense and sparse: each has its own position sums.
TYPED_TEST(ReduceTest, DeltaBlocksOfEveryPayloadKind) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    std::mt19937_64 rng(case_seed("delta-payloads"));
    std::map<std::string, int> seen;
    // residual(i): rare isolated ones far apart, near apart, long runs of ones, random bits, and
    // ones but for a few zeros.
    const std::vector<std::function<std::uint32_t(std::size_t)>> residuals = {
        [&](std::size_t i) { return i % 300 == 7 ? 1u : 0u; },  // gaps past the 255 escape: positions
        [&](std::size_t i) { return i % 300 == 9 ? 1u + static_cast<std::uint32_t>(rng() % 255) : 0u; },  // sparse
        [&](std::size_t) { return rng() % 20 == 0 ? 1u + static_cast<std::uint32_t>(rng() % 3) : 0u; },
        [&](std::size_t i) { return (i / 150) % 2 == 0 ? 0u : 1u; },
        [&](std::size_t) { return static_cast<std::uint32_t>(rng() % 8); },
        [&](std::size_t) { return rng() % 200 == 0 ? 0u : 1u; },
        [&](std::size_t i) { return (i / 100) % 2 == 0 ? 2u : 2u + static_cast<std::uint32_t>(rng() % 2); },
    };
    for (std::size_t r = 0; r < residuals.size(); ++r) {
        for (const std::size_t n : {std::size_t{777}, block_values}) {
            SCOPED_TRACE("residuals " + std::to_string(r) + ", n=" + std::to_string(n));
            std::vector<T> values(n);
            std::uint32_t v = static_cast<std::uint32_t>(rng() % 1000);
            for (std::size_t i = 0; i < n; ++i) {
                v += 7 + residuals[r](i);
                values[i] = std::bit_cast<T>(v);
            }
            seen = check_block_sums(values, std::move(seen));
        }
    }
    std::string kinds;
    for (const auto& [kind, count] : seen) kinds += kind + ": " + std::to_string(count) + "\n";
    for (const char letter : std::string("prwg1")) {
        bool found = false;
        for (const auto& entry : seen) {
            const std::size_t at = entry.first.find("payloads ");
            found = found || (entry.first.rfind("transform 2", 0) == 0 && entry.first.find(letter, at + 9) != std::string::npos);
        }
        EXPECT_TRUE(found) << "no delta block with payload " << letter << "; seen:\n" << kinds;
    }
    for (const char* mask : {"mask p", "mask g"}) {  // the masks listing positions
        bool found = false;
        for (const auto& entry : seen) {
            found = found || (entry.first.rfind("transform 2 sparse", 0) == 0 && entry.first.find(mask) != std::string::npos);
        }
        EXPECT_TRUE(found) << "no sparse delta block with " << mask << "; seen:\n" << kinds;
    }
}

// Delta blocks whose values cross the type's bounds: the walk first + prefix leaves the range,
// so the plane identities would give the sum of the unwrapped walk; such blocks are decoded.
// Rising and falling, just reaching the bound and passing it by one, at each position.
TYPED_TEST(ReduceTest, DeltaBlocksThatWrapAroundTheType) {
    using T = TypeParam;
    using U = std::uint32_t;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    constexpr bool is_signed = std::is_signed_v<T>;
    const U top = is_signed ? U{INT32_MAX} : U{UINT32_MAX};
    const U bottom = is_signed ? static_cast<U>(INT32_MIN) : U{0};
    std::mt19937_64 rng(case_seed("delta-wrap"));
    std::map<std::string, int> seen;
    for (const std::size_t n : {std::size_t{2}, std::size_t{1000}, block_values}) {
        for (const bool rising : {true, false}) {
            for (const std::uint32_t jitter : {0u, 3u, 16u}) {
                for (const std::int64_t pass : {std::int64_t{-1}, std::int64_t{0}, std::int64_t{1}, std::int64_t{1000}}) {
                    // Steps of 5 + 0..jitter; the walk ends `pass` beyond the bound (negative: inside).
                    std::vector<U> steps(n, 0);
                    std::uint64_t total = 0;
                    for (std::size_t i = 1; i < n; ++i) {
                        steps[i] = 5 + (jitter == 0 ? 0u : static_cast<U>(rng() % (jitter + 1)));
                        total += steps[i];
                    }
                    std::vector<T> values(n);
                    U v = rising ? static_cast<U>(top - total + static_cast<U>(pass))
                                 : static_cast<U>(bottom + total - static_cast<U>(pass));
                    for (std::size_t i = 0; i < n; ++i) {
                        v = rising ? v + steps[i] : v - steps[i];
                        values[i] = std::bit_cast<T>(v);
                    }
                    SCOPED_TRACE("n " + std::to_string(n) + (rising ? " rising" : " falling") + ", jitter " +
                                 std::to_string(jitter) + ", pass " + std::to_string(pass));
                    seen = check_block_sums(values, std::move(seen));
                    const bvec<T> column = from(values);
                    EXPECT_TRUE(same_wide("sum", ref_sum(values), bitplane::sum(column)));
                }
            }
        }
    }
    int delta = 0;
    for (const auto& [kind, count] : seen) delta += kind.rfind("transform 2", 0) == 0 ? count : 0;
    EXPECT_GT(delta, 50) << "the walks must be delta blocks";
}

// ---- the cost model -------------------------------------------------------------------------------

TEST(Reduce, CostModelPicksPlanesForNarrowAndDecodeForWideBlocks) {
    using bitplane::detail::choose_dot_method;
    EXPECT_EQ(choose_dot_method(3, 3, 64, 0, 6, 0, false), dot_method::planes);
    EXPECT_EQ(choose_dot_method(1, 32, 64, 0, 33, 0, false), dot_method::planes);
    EXPECT_EQ(choose_dot_method(32, 32, 64, 0, 64, 0, false), dot_method::decode);
    // Sparse blocks compacted to a few shared positions: the planes, whatever their number.
    EXPECT_EQ(choose_dot_method(20, 20, 8, 40, 40, 2, false), dot_method::planes);
    EXPECT_EQ(choose_dot_method(0, 32, 64, 0, 32, 0, false), dot_method::planes);
    // The method flips once as both widths grow.
    int flips = 0;
    dot_method last = dot_method::planes;
    for (std::uint32_t w = 0; w <= 32; ++w) {
        const dot_method m = choose_dot_method(w, w, 64, 0, 2 * w, 0, false);
        if (m != last) ++flips;
        last = m;
    }
    EXPECT_EQ(flips, 1);
    // Interleaved blocks: the plane method pays for de-interleaving, decode is a fixed cost.
    using bitplane::detail::choose_raw_dot_method;
    auto low = [](std::uint32_t w) { return w >= 32 ? ~0u : (1u << w) - 1u; };
    using bitplane::detail::fused_dot;
    for (const fused_dot fused : {fused_dot::none, fused_dot::avx512, fused_dot::avx2}) {
        SCOPED_TRACE("fused kernel " + std::to_string(static_cast<int>(fused)));
        EXPECT_EQ(choose_raw_dot_method(low(2), low(2), false, fused), dot_method::planes);
        EXPECT_EQ(choose_raw_dot_method(low(32), low(32), false, fused), dot_method::decode);
        EXPECT_EQ(choose_raw_dot_method(low(32), 0, true, fused), dot_method::decode);
        EXPECT_EQ(choose_raw_dot_method(low(1), 0, true, fused), dot_method::planes);
        flips = 0;
        last = dot_method::planes;
        std::uint32_t first_decode = 0;
        for (std::uint32_t w = 0; w <= 32; ++w) {
            const dot_method m = choose_raw_dot_method(low(w), low(w), false, fused);
            if (m != last) ++flips;
            if (m == dot_method::decode && first_decode == 0) first_decode = w;
            last = m;
        }
        EXPECT_EQ(flips, 1);
        // Where they were measured (codec/thresholds.hpp; plane pairs read in place): decode
        // from 7 bits (sse2), from 5 (avx512: 16 lanes, 4 broadcast planes a pass, against the
        // AVX2 fused kernel it calls up to 16 bits) and from 4 (avx2: the fused kernel's byte
        // transposes).
        EXPECT_EQ(first_decode, fused == fused_dot::none ? 7u : fused == fused_dot::avx512 ? 5u : 4u);
    }
    // The demo's dot(uniform10, scores3): one in-place pass on avx512 (10 planes in lanes, 3
    // broadcast); on avx2, 2 x 3 passes cost more than the fused kernel's three bytes.
    EXPECT_EQ(choose_raw_dot_method(low(10), low(3), false, fused_dot::avx512), dot_method::planes);
    EXPECT_EQ(choose_raw_dot_method(low(10), low(3), false, fused_dot::avx2), dot_method::decode);
    // A 1-bit flag column against 10 bits: a pass per lane register on every path.
    for (const fused_dot fused : {fused_dot::none, fused_dot::avx512, fused_dot::avx2}) {
        EXPECT_EQ(choose_raw_dot_method(low(10), low(1), false, fused), dot_method::planes);
    }
}

// ---- errors ----------------------------------------------------------------------------------------

TYPED_TEST(ReduceTest, SizeMismatchThrowsNamingBothSizes) {
    using T = TypeParam;
    const bvec<T> a(5, T{1}), b(7, T{2}), e;
    auto expect_sizes = [](auto&& f) {
        try {
            f();
            ADD_FAILURE() << "no size_error";
        } catch (const bitplane::size_error& error) {
            const std::string what = error.what();
            EXPECT_NE(what.find('5'), std::string::npos) << what;
            EXPECT_NE(what.find('7'), std::string::npos) << what;
        }
    };
    expect_sizes([&] { (void)bitplane::dot(a, b); });
    expect_sizes([&] { (void)bitplane::hamming_distance(a, b); });
    expect_sizes([&] { (void)bitplane::mismatch_count(b, a); });
    EXPECT_THROW((void)bitplane::dot(e, a), bitplane::size_error);
    EXPECT_THROW((void)bitplane::hamming_distance(a, e), bitplane::size_error);
    EXPECT_THROW((void)bitplane::mismatch_count(e, b), bitplane::size_error);
    // Empty vectors reduce to zero.
    EXPECT_TRUE(bitplane::sum(e) == 0);
    EXPECT_TRUE(bitplane::dot(e, e) == 0);
    EXPECT_TRUE(bitplane::sum_of_squares(e) == 0);
    EXPECT_EQ(bitplane::popcount(e), 0u);
    EXPECT_EQ(bitplane::hamming_distance(e, e), 0u);
    EXPECT_EQ(bitplane::mismatch_count(e, e), 0u);
}

// ---- SIMD paths and threads ---------------------------------------------------------------------

TYPED_TEST(ReduceTest, EverySimdPathAndThreadCount) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    const settings_guard guard;
    const std::size_t n = parallel_size;
    const std::vector<shape> shapes = quick_mode() ? representative_shapes() : all_shapes();
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        const shape s = shapes[i];
        const shape t = partner(i);
        SCOPED_TRACE(case_name(s, n, "with " + t.name()));
        std::vector<T> ra = make_typed<T>(s, n, case_seed("paths-a", s.id()));
        std::vector<T> rb = make_typed<T>(t, n, case_seed("paths-b", s.id()));
        bvec<T> a = from(ra), b = from(rb);
        // One pending write-back block in a.
        a.set(block_values + 5, T{3});
        ra[block_values + 5] = T{3};
        for (const bitplane::simd_path path : bitplane_test::paths_to_sweep()) {
            bitplane::set_simd_path(path);
            for (const std::size_t threads : {std::size_t{1}, std::size_t{2}}) {
                SCOPED_TRACE(std::string(bitplane::to_string(path)) + ", " + std::to_string(threads) + " threads");
                bitplane::set_thread_count(threads);
                check_all(a, b, ra, rb);
            }
        }
    }
}

}  // namespace
