// Equality on blocks of many raw planes (all-raw blocks, stored interleaved: rows of 8 to 32
// planes; kernel_table::equal_interleaved, the AVX2 fold and the AVX-512 equal_rows kernel,
// rows of more than 16 planes settling on their bottom 16 first), through the vector API:
// count_eq and find_eq against a plain loop on every path, for values present (at the first
// and last position of the vector and of a block, at random positions, repeated), absent,
// and sharing their bottom 16 bits with many others (the rest of each row is then read);
// sizes not a multiple of 2048, uint32 and int32.
#include "test_support.hpp"

#include <bitplane/codec.hpp>
#include <bitplane/scan.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using bitplane_test::case_seed;
using bitplane_test::on_every_path;

// Values of `width` bits (the top one set in some, so that every plane is live): 0 random ids,
// 1 ids drawn from a pool of 40 (each repeated in most blocks), 2 the bottom 16 bits one of two
// patterns and the rest random (a target's first 16 planes leave half the columns equal).
std::vector<std::uint32_t> make_ids(std::size_t n, std::uint32_t width, int shape, std::mt19937_64& rng) {
    const std::uint32_t mask = width == 32 ? ~0u : (1u << width) - 1u;
    const auto id = [&] { return static_cast<std::uint32_t>(rng()) & mask; };
    std::vector<std::uint32_t> pool(40);
    for (auto& p : pool) p = id();
    std::vector<std::uint32_t> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        switch (shape) {
            case 0: v[i] = id(); break;
            case 1: v[i] = pool[rng() % pool.size()]; break;
            default: v[i] = (id() & ~0xFFFFu & mask) | ((rng() % 2 == 0 ? 0x1234u : 0xBEEFu) & mask); break;
        }
    }
    v[rng() % n] |= 1u << (width - 1);
    return v;
}

template <class T>
void check_targets(const std::vector<std::uint32_t>& bits, const std::vector<std::uint32_t>& targets) {
    std::vector<T> values(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) values[i] = std::bit_cast<T>(bits[i]);
    const bitplane::vector<T> v{std::span<const T>(values)};
    for (const std::uint32_t target_bits : targets) {
        const T x = std::bit_cast<T>(target_bits);
        SCOPED_TRACE("target " + std::to_string(x));
        std::vector<std::uint64_t> want;
        for (std::size_t i = 0; i < values.size(); ++i)
            if (values[i] == x) want.push_back(i);
        ASSERT_EQ(bitplane::count_eq(v, x), want.size());
        const bitplane::bitset found = bitplane::find_eq(v, x);
        std::vector<std::uint64_t> got(found.begin(), found.end());
        ASSERT_EQ(got, want);
    }
}

TEST(ScanEqualRows, ManyRawPlanesAgainstPlainLoopEveryPath) {
    BITPLANE_SEED_TRACE();
    on_every_path([&] {
        std::mt19937_64 rng(case_seed("equal-rows", static_cast<std::uint64_t>(bitplane::active_simd_path())));
        for (std::uint32_t width = 8; width <= 32; ++width) {
            for (int shape = 0; shape < 3; ++shape) {
                if (shape == 2 && width <= 16) continue;
                SCOPED_TRACE("width " + std::to_string(width) + " shape " + std::to_string(shape));
                const std::size_t n = 3 * bitplane::block_values + 1 + rng() % 1500;  // not a multiple of 2048
                const std::vector<std::uint32_t> bits = make_ids(n, width, shape, rng);
                // The test is about all-raw blocks: the first block must be one, of `width` planes.
                std::vector<std::byte> bytes(bitplane::codec::max_block_bytes);
                const std::span<const std::uint32_t> first(bits.data(), bitplane::block_values);
                bytes.resize(bitplane::codec::encode_block(first, false, bytes, {}));
                const auto info = bitplane::codec::describe_block(bytes, bitplane::block_values);
                std::uint32_t raw = 0;
                bool all_raw = info.value_layout == bitplane::codec::layout::dense;
                for (const auto& p : info.planes) {
                    raw += p.payload == bitplane::codec::payload_kind::raw ? 1u : 0u;
                    all_raw &= p.payload == bitplane::codec::payload_kind::none ||
                               p.payload == bitplane::codec::payload_kind::raw;
                }
                if (shape == 0) {
                    ASSERT_TRUE(all_raw && raw >= width - 1) << "random ids: an all-raw block of " << raw << " planes";
                }
                std::vector<std::uint32_t> targets = {bits.front(), bits.back(), bits[bitplane::block_values - 1],
                                                      bits[bitplane::block_values], bits[rng() % n],
                                                      static_cast<std::uint32_t>(rng())};
                if (width < 32) targets.push_back(1u << width);  // above every value
                check_targets<std::uint32_t>(bits, targets);
                if (width == 32) check_targets<std::int32_t>(bits, targets);  // negative values
            }
        }
    });
}

// Short rows (1 to 10 raw planes) of values offset by a frame-of-reference base, through the
// vector API: count_block and scan_block answer an equality on such a block through the
// interleaved kernel before compare_direct (equal_interleaved_first). The target's residual
// is its key less the block's base; targets present (first and last position of the vector
// and of a block), absent inside the block's [min, max] (a plane constant in the block
// disagrees: all residuals even, an odd target), below the base and above the top; find_ne
// too (the shortcut's negated answer). uint32 and int32 (negative bases).
TEST(ScanEqualRows, ShortRowsWithBasesAgainstPlainLoopEveryPath) {
    BITPLANE_SEED_TRACE();
    on_every_path([&] {
        std::mt19937_64 rng(case_seed("equal-short-rows", static_cast<std::uint64_t>(bitplane::active_simd_path())));
        // Bases whose values carry across a high bit (2^20, the sign bit, 2^32) from width 4 up:
        // the encoder frames those blocks from their smallest value.
        const std::uint32_t bases[] = {0u, 0x000FFFF3u, 0x7FFFFFF1u, 0xFFFFFFF8u};
        int framed = 0;  // first blocks framed from a base
        for (std::uint32_t width = 1; width <= 10; ++width) {
            for (const std::uint32_t base : bases) {
                for (int shape = 0; shape < 2; ++shape) {
                    SCOPED_TRACE("width " + std::to_string(width) + " base " + std::to_string(base) + " shape " +
                                 std::to_string(shape));
                    const std::size_t n = 3 * bitplane::block_values + 1 + rng() % 1500;  // a partial last block
                    std::vector<std::uint32_t> bits = make_ids(n, width, 0, rng);
                    // shape 1: even residuals only (plane 0 constant zero) in the first block
                    if (shape == 1 && width > 1)
                        for (std::size_t i = 0; i < bitplane::block_values; ++i) bits[i] &= ~1u;
                    for (auto& b : bits) b += base;
                    // The first block must be dense, all raw, and framed from its smallest value.
                    std::vector<std::byte> bytes(bitplane::codec::max_block_bytes);
                    const std::span<const std::uint32_t> first(bits.data(), bitplane::block_values);
                    bytes.resize(bitplane::codec::encode_block(first, false, bytes, {}));
                    const auto info = bitplane::codec::describe_block(bytes, bitplane::block_values);
                    ASSERT_EQ(info.value_layout, bitplane::codec::layout::dense);
                    framed += info.value_transform == bitplane::codec::transform::frame_of_reference ? 1 : 0;
                    std::vector<std::uint32_t> targets = {bits.front(), bits.back(), bits[bitplane::block_values - 1],
                                                          bits[bitplane::block_values], bits[rng() % n],
                                                          base - 1u, base + (1u << width),
                                                          bits[rng() % bitplane::block_values] | 1u};
                    check_targets<std::uint32_t>(bits, targets);
                    check_targets<std::int32_t>(bits, targets);
                    std::vector<std::uint32_t> values = bits;
                    const bitplane::vector<std::uint32_t> v{std::span<const std::uint32_t>(values)};
                    for (const std::uint32_t x : targets) {
                        std::vector<std::uint64_t> want;
                        for (std::size_t i = 0; i < n; ++i)
                            if (values[i] != x) want.push_back(i);
                        const bitplane::bitset found = bitplane::find_ne(v, x);
                        ASSERT_EQ(std::vector<std::uint64_t>(found.begin(), found.end()), want) << "find_ne " << x;
                    }
                }
            }
        }
        EXPECT_GE(framed, 20) << "frame-of-reference blocks: the bases must carry across a high bit";
    });
}

}  // namespace
