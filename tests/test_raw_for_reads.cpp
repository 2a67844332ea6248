// Dense full blocks stored all-raw for reads (codec/block_plan.hpp, raw_for_reads_bytes) and
// the inline read of delta all-raw blocks (codec/direct_access.hpp, direct_delta_value): hand-
// built delta blocks of every live-plane count 1..32 (contiguous and with unstored planes
// between, ones masks, negative minimum steps, words of every density) read against a plain
// sum of their residuals on every SIMD path; the planner's choice on block shapes like the
// corpus's (tz_transition: raw, bed_start's mapped gap lists: raw, bam_pos's rare high
// bits: kept as lists); vectors of such blocks read after seal, set, copy and load.
#include "codec/block_layout.hpp"
#include "codec/byte_io.hpp"
#include "codec/direct_access.hpp"
#include "test_support.hpp"

#include <bitplane/codec.hpp>
#include <bitplane/serialize.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::detail::block_descriptor;

struct hand_block {
    std::vector<std::byte> bytes;
    block_descriptor d;
    std::vector<std::uint32_t> values;
    std::vector<std::uint32_t> checkpoints;  // the residuals' sums at every 32 positions, plainly
};

// A word of plane words of the given kind: 0 none set, 1 sparse, 2 random, 3 all set.
std::uint32_t word_of(std::mt19937_64& rng, unsigned kind) {
    const auto r = [&] { return static_cast<std::uint32_t>(rng()); };
    return kind == 0 ? 0u : kind == 1 ? r() & r() & r() : kind == 2 ? r() : ~0u;
}

// A delta all-raw block of 2048 values with planes `live` (interleaved, after a prefix of
// `prefix` bytes and nothing after them), elided all-one planes `ones`, and its values by a
// plain running sum: v[i] = base + r[0] + ... + r[i] + i * delta_min.
hand_block make_delta_block(std::mt19937_64& rng, std::uint32_t live, std::uint32_t ones, std::uint32_t delta_min,
                            unsigned prefix) {
    using namespace bitplane::detail;
    hand_block b;
    const auto stored = static_cast<unsigned>(std::popcount(live));
    b.bytes.resize(prefix + 256u * stored);
    for (unsigned i = 0; i < prefix; ++i) b.bytes[i] = static_cast<std::byte>(rng());
    std::vector<unsigned> kind(stored);
    for (auto& k : kind) k = static_cast<unsigned>(rng() % 4);
    std::vector<std::uint32_t> words(64u * stored);  // [column * stored + rank]
    for (unsigned c = 0; c < 64; ++c)
        for (unsigned r = 0; r < stored; ++r) {
            words[c * stored + r] = word_of(rng, rng() % 8 == 0 ? static_cast<unsigned>(rng() % 4) : kind[r]);
            store_le<std::uint32_t>(b.bytes.data() + prefix + interleaved_offset(c, r, stored), words[c * stored + r]);
        }
    b.d.live = live;
    b.d.ones = ones;
    b.d.base = static_cast<std::uint32_t>(rng());
    b.d.delta_min = delta_min;
    b.d.length = bitplane::block_values;
    b.d.stored = static_cast<std::uint8_t>(stored);
    b.d.planes_at = b.d.payloads_at = static_cast<std::uint16_t>(prefix);
    b.d.end = static_cast<std::uint16_t>(b.bytes.size());
    b.d.flags = static_cast<std::uint8_t>(static_cast<std::uint8_t>(bitplane::codec::transform::delta) | block_flags::all_raw |
                                          (ones != 0 ? block_flags::has_ones : 0));
    std::uint32_t sum = 0;
    for (std::uint32_t i = 0; i < bitplane::block_values; ++i) {
        std::uint32_t residual = ones;
        unsigned r = 0;
        for (std::uint32_t m = live; m != 0; m &= m - 1, ++r)
            residual |= ((words[(i / 32) * stored + r] >> (i % 32)) & 1u) << std::countr_zero(m);
        sum += residual;
        b.values.push_back(b.d.base + sum + i * delta_min);
        if (i % 32 == 31) b.checkpoints.push_back(sum);
    }
    return b;
}

// A mask of `count` planes: the low ones, ones from a random plane up, or scattered.
std::uint32_t live_mask(std::mt19937_64& rng, unsigned count, unsigned how) {
    if (count == 32) return ~0u;
    const std::uint32_t low = (1u << count) - 1;
    if (how == 0) return low;
    if (how == 1) return low << (rng() % (33 - count));
    std::uint32_t m = 0;
    while (static_cast<unsigned>(std::popcount(m)) < count) m |= 1u << (rng() % 32);
    return m;
}

TEST(RawForReads, DeltaAllRawBlocksOfEveryLivePlaneCountReadInline) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("raw-for-reads-delta-inline"));
    std::size_t scattered = 0, with_ones = 0;
    for (unsigned count = 1; count <= 32; ++count) {
        for (unsigned how = 0; how < 3; ++how) {
            const std::uint32_t live = live_mask(rng, count, how);
            const std::uint32_t ones = how == 1 ? 0u : static_cast<std::uint32_t>(rng()) & ~live & static_cast<std::uint32_t>(rng());
            const std::uint32_t mins[] = {0u, 1u, 0u - 1u - static_cast<std::uint32_t>(rng() % 1000),
                                          static_cast<std::uint32_t>(rng())};
            const std::uint32_t delta_min = mins[(count + how) % 4];
            const hand_block b = make_delta_block(rng, live, ones, delta_min, 7 + static_cast<unsigned>(rng() % 40));
            const block_descriptor& d = b.d;
            SCOPED_TRACE("live " + std::to_string(live) + " ones " + std::to_string(ones) + " delta_min " +
                         std::to_string(delta_min));
            ASSERT_TRUE(bitplane::detail::direct_delta_readable(d));
            ASSERT_FALSE(bitplane::detail::direct_readable(d));
            const std::uint32_t low = live >> std::countr_zero(live);
            scattered += (low & (low + 1)) != 0 ? 1 : 0;
            with_ones += ones != 0 ? 1 : 0;
            // The vector's checkpoints are these sums.
            std::vector<std::uint32_t> sums(bitplane::detail::delta_checkpoint_count);
            bitplane::detail::delta_checkpoints(d, b.bytes.data(), sums.data());
            ASSERT_EQ(sums, b.checkpoints);
            on_every_path([&] {
                for (std::uint32_t i = 0; i < bitplane::block_values; ++i) {
                    ASSERT_EQ(bitplane::detail::direct_delta_value(d, b.bytes.data(), sums.data(), i), b.values[i])
                        << "index " << i;
                    ASSERT_EQ(bitplane::detail::descriptor_value(d, b.bytes.data(), i, sums.data()), b.values[i])
                        << "index " << i;
                    ASSERT_EQ(bitplane::detail::read_value(d, b.bytes.data(), i, sums.data()), b.values[i])
                        << "index " << i << ", read_value";
                    if (i % 61 == 0) {
                        ASSERT_EQ(bitplane::detail::read_value(d, b.bytes.data(), i), b.values[i])
                            << "index " << i << ", no checkpoints";
                    }
                }
            });
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
    EXPECT_GT(scattered, 20u) << "live masks with unstored planes between stored ones";
    EXPECT_GT(with_ones, 20u) << "blocks with all-one planes elided";
}

// One block of `values` encoded, and its descriptor.
block_descriptor encoded(const std::vector<std::uint32_t>& values, bool is_signed, std::vector<std::byte>& block) {
    block.assign(bitplane::codec::max_block_bytes, std::byte{0});
    const std::size_t n = bitplane::codec::encode_block(values, is_signed, block);
    block.resize(n);
    return bitplane::detail::read_descriptor(block.data(), static_cast<std::uint32_t>(values.size()),
                                             static_cast<std::uint32_t>(n));
}

// tz_transition's blocks (int32 timestamps, both signs): planes 7-30 random, the sign planes
// in long runs, planes 0-6 set rarely. Stored compactly, the rare planes are gap lists and
// the sign planes run lists, a few hundred bytes under all-raw; read, each costs a cache line
// and a search. thresholds::read_raw_wide_max_eighths keeps them raw.
std::vector<std::uint32_t> timestamp_shape(std::mt19937_64& rng) {
    std::vector<std::uint32_t> values(2048);
    bool negative = false;
    for (std::uint32_t i = 0; i < values.size(); ++i) {
        if (i % 300 == 0) negative = rng() % 2 == 0;
        std::uint32_t v = static_cast<std::uint32_t>(rng()) & 0x7FFFFF80u;
        if (rng() % 100 < 4) v |= static_cast<std::uint32_t>(rng()) & 0x7Fu;
        values[i] = negative ? 0u - v : v;
    }
    return values;
}

// Interval starts (bed_start): steps of 8 random low bits, and planes 8-10 of the steps each
// set about once in 12: delta residuals with 8 raw planes and three gap lists of ~170 bytes,
// which a container keeps as 2048-bit maps (272 bytes) beside them. Compact is ~250 bytes
// smaller in the file, raw ~600 smaller in memory.
std::vector<std::uint32_t> range_start_shape(std::mt19937_64& rng) {
    std::vector<std::uint32_t> values(2048);
    std::uint32_t at = static_cast<std::uint32_t>(rng() % 1000);
    for (auto& v : values) {
        at += static_cast<std::uint32_t>(rng() & 0xFFu);
        for (unsigned p = 8; p < 11; ++p) at += rng() % 12 == 0 ? 1u << p : 0u;
        v = at;
    }
    return values;
}

// Read positions (bam_pos): steps of 8 random low bits, a high bit now and then: 8 raw planes
// and short lists above them, whose memory is well under raw planes'.
std::vector<std::uint32_t> position_shape(std::mt19937_64& rng) {
    std::vector<std::uint32_t> values(2048);
    std::uint32_t at = static_cast<std::uint32_t>(rng() % 100000);
    for (auto& v : values) {
        at += static_cast<std::uint32_t>(rng() & 0xFFu);
        if (rng() % 200 == 0) at += 1u << (8 + rng() % 4);
        v = at;
    }
    return values;
}

TEST(RawForReads, PlannerStoresReadHeavyShapesAllRaw) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("raw-for-reads-planner"));
    on_every_path([&] {
        for (int round = 0; round < 4; ++round) {
            std::vector<std::byte> block;
            const auto stamps = timestamp_shape(rng);
            const block_descriptor t = encoded(stamps, true, block);
            EXPECT_TRUE(t.interleaved()) << "timestamps of both signs, round " << round;
            EXPECT_GE(t.stored, 24u);
            EXPECT_NE(t.transform(), bitplane::codec::transform::delta);
            const block_descriptor s = encoded(range_start_shape(rng), false, block);
            EXPECT_TRUE(bitplane::detail::direct_delta_readable(s)) << "range starts, round " << round;
            const block_descriptor p = encoded(position_shape(rng), false, block);
            EXPECT_EQ(p.transform(), bitplane::codec::transform::delta) << "positions, round " << round;
            EXPECT_FALSE(p.all_raw()) << "positions, round " << round;
        }
    });
}

// Vectors of blocks read inline (delta all-raw, all-raw values) beside blocks that are not:
// operator[] at every index after seal, after set (the write-back block, then sealed again),
// in a copy written to (the original unchanged) and after save / load in both file forms.
TEST(RawForReads, VectorsOfRawBlocksReadEveryIndex) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("raw-for-reads-vector"));
    std::vector<std::uint32_t> values;
    for (int b = 0; b < 6; ++b) {
        const auto part = b % 3 == 0 ? range_start_shape(rng) : b % 3 == 1 ? timestamp_shape(rng) : position_shape(rng);
        values.insert(values.end(), part.begin(), part.end());
    }
    values.resize(values.size() - 1000);  // a tail
    on_every_path([&] {
        std::vector<std::uint32_t> want = values;
        bitplane::vector<std::uint32_t> v(std::span<const std::uint32_t>(want.data(), want.size()));
        v.seal();
        const auto check = [&](const bitplane::vector<std::uint32_t>& x, const std::vector<std::uint32_t>& w,
                               const char* when) {
            ASSERT_EQ(x.size(), w.size()) << when;
            for (std::size_t i = 0; i < w.size(); ++i) ASSERT_EQ(x[i], w[i]) << when << ", index " << i;
        };
        check(v, want, "sealed");
        for (const std::size_t i : {std::size_t{5}, std::size_t{2048 + 77}, std::size_t{3 * 2048 + 2047}}) {
            v.set(i, want[i] + 3u);
            want[i] += 3u;
        }
        check(v, want, "after set");
        v.seal();
        check(v, want, "after set and seal");
        bitplane::vector<std::uint32_t> copy = v;
        copy.set(4 * 2048 + 1, 12345u);
        std::vector<std::uint32_t> copy_want = want;
        copy_want[4 * 2048 + 1] = 12345u;
        check(copy, copy_want, "copy after set");
        check(v, want, "original after its copy's set");
        for (const bool value_form : {false, true}) {
            std::vector<std::byte> file;
            bitplane::save_options options;
            options.value_form = value_form;
            bitplane::save(v, file, options);
            check(bitplane::load<std::uint32_t>(file), want, value_form ? "loaded (values form)" : "loaded");
        }
    });
}

}  // namespace
