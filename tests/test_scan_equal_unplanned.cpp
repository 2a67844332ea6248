// Equalities on dense blocks that keep no read plan (fewer list planes than
// thresholds::read_plan_min_lists): compare_direct builds one on the stack
// (unfiltered_read_plan, direct_access.hpp) and hands it to equal_by_candidates. Columns shaped
// like word_length (small values, a high plane of few bits: one or two short gap lists, raw
// planes below, a plane of mostly ones stored against a one base) at every bit width, signed
// (zigzag and frame of reference), with tails not a multiple of 2048: the unfiltered plan
// against the kept one where a block keeps one, each unplanned block's equality from its
// built plan against a plain loop, and count_eq / find_eq / find_ne against a plain loop on
// every SIMD path.
#include "test_support.hpp"
#include "equal_candidates_check.hpp"

#include "codec/direct_access.hpp"
#include "ops/equal_candidates.hpp"
#include "ops/scan_block.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/scan.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using bitplane_test::case_seed;
using bitplane_test::on_every_path;

// Values of `width` bits (1..32): the low `width - 1` bits from a narrow spread around a
// frequent value (raw planes), the top bit set at about one value in `rare` (a short list).
// With `high_ones`, the bit below the top is set nearly everywhere (a plane of mostly ones).
std::vector<std::uint32_t> word_like(std::uint32_t width, std::size_t n, std::uint32_t rare, bool high_ones,
                                     std::mt19937_64& rng) {
    const std::uint32_t low_bits = width - 1;
    const std::uint32_t low_mask = low_bits == 0 ? 0u : (low_bits >= 32 ? ~0u : (1u << low_bits) - 1u);
    const std::uint32_t top = 1u << (width - 1);
    const std::uint32_t frequent = static_cast<std::uint32_t>(rng()) & low_mask & 0x5u;
    std::vector<std::uint32_t> values(n);
    for (std::uint32_t& v : values) {
        std::uint32_t x = rng() % 4 == 0 ? frequent : static_cast<std::uint32_t>(rng()) & low_mask & 0xFu;
        if (high_ones && width >= 3) x |= (rng() % 64 != 0 ? 1u : 0u) << (width - 2);
        if (rng() % rare == 0) x |= top;
        v = x;
    }
    return values;
}

// Every value of the column's first block, their neighbours and values absent from it.
std::vector<std::uint32_t> probes(const std::vector<std::uint32_t>& values) {
    std::vector<std::uint32_t> out(values.begin(), values.begin() + std::min<std::size_t>(values.size(), 2048));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    if (out.size() > 24) out.resize(24);  // the frequent ones are the smallest
    for (const std::uint32_t x : std::vector<std::uint32_t>(out)) {
        out.push_back(x + 1);
        out.push_back(x ^ 0x80000000u);
    }
    out.push_back(0xFFFFFFFFu);
    out.push_back(0x12345678u);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// The plan a block keeps, where it keeps one, against the one built for a scan: the same
// bases, groups and entries (the kept one may add a filter: plan[2] bits 16 and up).
void check_plans(const bitplane::detail::vector_core& core, std::size_t& compared) {
    namespace d = bitplane::detail;
    for (std::size_t b = 0; b < core.sealed_block_count(); ++b) {
        const std::uint32_t* kept = d::side_plan(core.sealed_read_side(b));
        if (kept == nullptr) continue;
        std::uint32_t built[d::read_plan_max_unfiltered_words];
        ASSERT_TRUE(d::unfiltered_read_plan(core.sealed_descriptor(b), core.sealed_block(b, {}).data(), built)) << b;
        ASSERT_EQ(kept[0], built[0]) << b;
        ASSERT_EQ(kept[1], built[1]) << b;
        ASSERT_EQ(kept[2] & 0xFFFFu, built[2]) << b;
        const d::plan_groups g = d::groups_of(kept);
        const std::size_t words = g.raw + g.mapped + g.listed + 2 * (g.positions + g.runs) + g.references;
        for (std::size_t i = 0; i < words; ++i) ASSERT_EQ(g.entries[i], built[d::read_plan_header_words + i]) << b;
        ++compared;
    }
}

// Each sealed plain or frame-of-reference block without a kept plan: its equality from the
// built plan (where equal_by_candidates takes it) against a plain loop; counts those answered.
template <class T>
void check_unplanned_blocks(const bitplane::vector<T>& packed, const std::vector<std::uint32_t>& bits,
                            const std::vector<std::uint32_t>& xs, std::size_t& answered) {
    namespace d = bitplane::detail;
    const auto& core = packed.core();
    auto scratch = std::make_unique<d::scan_scratch>();
    const std::uint32_t bias = std::is_signed_v<T> ? 0x80000000u : 0u;  // keys: scan_block.hpp
    for (std::size_t b = 0; b < core.sealed_block_count(); ++b) {
        const d::block_descriptor& desc = core.sealed_descriptor(b);
        const std::uint32_t* side = core.sealed_read_side(b);
        if (desc.sparse() || d::side_plan(side) != nullptr ||
            (desc.transform() != bitplane::codec::transform::none &&
             desc.transform() != bitplane::codec::transform::frame_of_reference))
            continue;
        const std::byte* bytes = core.sealed_block(b, {}).data();
        std::uint32_t plan[d::read_plan_max_unfiltered_words];
        if (!d::unfiltered_read_plan(desc, bytes, plan)) continue;
        const std::uint32_t base = desc.for_base() ^ bias;  // as equality_lane's residual: for_base() is 0 unless FOR
        for (const std::uint32_t x : xs) {
            const std::uint32_t target = (x ^ bias) - base;
            if (((target ^ desc.ones) & ~desc.live) != 0) continue;  // the caller answers these
            if (!check_equal_by_candidates(desc, bytes, plan, d::side_gaps(side), target, scratch->marks,
                                           bits.data() + b * 2048, x, b))
                continue;
            if (::testing::Test::HasFailure()) return;
            ++answered;
        }
    }
}

template <class T>
void check_column(const std::vector<std::uint32_t>& bits, std::size_t& answered, std::size_t& compared) {
    std::vector<T> values(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) values[i] = std::bit_cast<T>(bits[i]);
    const bitplane::vector<T> packed(values.begin(), values.end());
    check_plans(packed.core(), compared);
    if (::testing::Test::HasFatalFailure()) return;
    const std::vector<std::uint32_t> xs = probes(bits);
    on_every_path([&] {
        check_unplanned_blocks(packed, bits, xs, answered);
        if (::testing::Test::HasFatalFailure()) return;
        for (const std::uint32_t xb : xs) {
            const T x = std::bit_cast<T>(xb);
            std::vector<std::uint64_t> at;
            for (std::size_t i = 0; i < bits.size(); ++i)
                if (bits[i] == xb) at.push_back(i);
            ASSERT_EQ(bitplane::count_eq(packed, x), at.size()) << "value " << xb;
            const bitplane::bitset eq = bitplane::find_eq(packed, x);
            ASSERT_EQ(eq.count(), at.size()) << "value " << xb;
            ASSERT_TRUE(std::equal(eq.begin(), eq.end(), at.begin(), at.end())) << "value " << xb;
            const bitplane::bitset ne = bitplane::find_ne(packed, x);
            ASSERT_EQ(ne.count(), bits.size() - at.size()) << "value " << xb;
            for (const std::uint64_t p : at) ASSERT_FALSE(ne.contains(p)) << "value " << xb << " at " << p;
        }
    });
}

}  // namespace

TEST(ScanEqualUnplanned, WordLikeBlocksAgainstPlainLoopOnEveryPath) {
    BITPLANE_SEED_TRACE();
    std::size_t answered = 0, compared = 0;
    for (std::uint32_t width = 1; width <= 32; ++width) {
        for (const bool high_ones : {false, true}) {
            for (const std::size_t n : {std::size_t{2048}, std::size_t{3 * 2048 - 77}}) {
                SCOPED_TRACE("width " + std::to_string(width) + (high_ones ? " high ones " : " ") + std::to_string(n));
                std::mt19937_64 rng(case_seed("scan-equal-unplanned", width, n, high_ones));
                const std::uint32_t rare = width % 3 == 0 ? 400 : 60;  // lists of ~5 or ~35 positions
                const std::vector<std::uint32_t> bits = word_like(width, n, rare, high_ones, rng);
                check_column<std::uint32_t>(bits, answered, compared);
                if (HasFatalFailure()) return;
            }
        }
    }
    EXPECT_GT(answered, 0u) << "no unplanned block answered from a built plan";
}

TEST(ScanEqualUnplanned, SignedBlocksAgainstPlainLoopOnEveryPath) {
    BITPLANE_SEED_TRACE();
    std::size_t answered = 0, compared = 0;
    for (const std::int32_t center : {0, -3, 1000, -200000}) {
        for (const bool both_ways : {false, true}) {
            for (const std::size_t n : {std::size_t{2048}, std::size_t{2 * 2048 + 999}}) {
                SCOPED_TRACE("center " + std::to_string(center) + (both_ways ? " both ways " : " ") + std::to_string(n));
                std::mt19937_64 rng(
                    case_seed("scan-equal-unplanned-signed", static_cast<std::uint32_t>(center), n, both_ways));
                std::vector<std::uint32_t> bits(n);
                for (std::uint32_t& b : bits) {
                    // Around center, and a template length's rare far values: upwards only, one
                    // short list on a high plane (no plan kept); both ways, several (a kept plan).
                    std::int32_t x = center + static_cast<std::int32_t>(rng() % 8);
                    if (rng() % 4 == 0) x = center;
                    if (rng() % 80 == 0) x += !both_ways || rng() % 2 == 0 ? 4096 : -5000;
                    b = static_cast<std::uint32_t>(x);
                }
                check_column<std::int32_t>(bits, answered, compared);
                if (HasFatalFailure()) return;
            }
        }
    }
    // Everywhere: one value in every position of a block.
    std::vector<std::uint32_t> constant(2 * 2048 + 5, static_cast<std::uint32_t>(-7));
    check_column<std::int32_t>(constant, answered, compared);
    EXPECT_GT(answered, 0u) << "no unplanned signed block answered from a built plan";
    EXPECT_GT(compared, 0u) << "no kept plan compared with a built one";
}
