// Point reads of single blocks (codec/direct_access.hpp: read_value) with and without the
// in-memory side tables a vector keeps beside each block (delta checkpoints every
// delta_checkpoint_stride positions, short gap lists' decoded positions, and long gap lists as
// 2048-bit maps with ranks: thresholds::read_bitmap_min_gaps_bytes), against the values, on
// every shape and SIMD path; gap lists with empty stretches and escapes; position and run
// lists around the SSE2 probe's bound (thresholds::read_probe_list_bytes), some at the block's
// end. The block decoder, which rebuilds long lists' planes from their maps and short lists'
// from their decoded positions (gaps_side), is checked on the same blocks with and without them.
#include "codec/block_decoding.hpp"
#include "codec/block_format.hpp"
#include "codec/block_layout.hpp"
#include "codec/direct_access.hpp"
#include "codec/thresholds.hpp"
#include "test_support.hpp"

#include <bitplane/codec.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::detail::block_descriptor;

struct read_counts {
    std::size_t delta_blocks = 0;
    std::size_t indexed_blocks = 0;  // blocks with gap-list side entries (positions or maps)
    std::size_t mixed_delta_blocks = 0;  // delta, raw planes on base zero beside list planes
    std::size_t mapped_blocks = 0;  // blocks with a gap list kept as a map in memory
    std::size_t mapped_masks = 0;   // sparse blocks whose mask is such a list (read by rank)
    std::size_t mask_skip_blocks = 0;    // sparse blocks whose mask's decoded positions were checked one by one
    std::size_t planned_blocks = 0;      // blocks with a read plan (descriptor-ful)
    std::size_t filtered_blocks = 0;     // plans with a filter of list positions (read_plan_filter)
    std::size_t default_blocks = 0;      // ... whose plan has only lists (one residual outside it)
    std::size_t wide_filter_blocks = 0;  // ... of more than 64 positions
    // Delta blocks with a plan, by what the AVX2 copy's column reads (value_reader.hpp,
    // plan_column_sum) meet in them:
    std::size_t delta_raw_partial = 0;        // raw planes of a length not a multiple of 32
    std::size_t delta_positions = 0;          // position lists
    std::size_t delta_runs = 0;               // run lists
    std::size_t delta_mapped = 0;             // gap lists kept as maps
    std::size_t delta_listed = 0;             // gap lists kept as decoded positions (listed_column)
    std::size_t delta_references = 0;         // planes stored as differences from others
    std::size_t delta_high_complements = 0;   // planes 8-31 on a complemented base (the complements' later steps)
};

// Counts what a delta block's plan holds (read_counts' delta_* members).
void count_delta_plan(const block_descriptor& d, const std::uint32_t* plan, read_counts& counts) {
    const bitplane::detail::plan_groups g = bitplane::detail::groups_of(plan);
    if (g.raw != 0 && d.length % 32 != 0) ++counts.delta_raw_partial;
    counts.delta_positions += g.positions != 0;
    counts.delta_runs += g.runs != 0;
    counts.delta_mapped += g.mapped != 0;
    counts.delta_listed += g.listed != 0;
    counts.delta_references += g.references != 0;
    counts.delta_high_complements += (plan[0] >> 8) != 0;
}

// Payload bytes of a gap-list plane or mask (plane_info.bytes counts its descriptor and count).
std::uint32_t gaps_payload_bytes(const bitplane::codec::plane_info& p) {
    return p.payload == bitplane::codec::payload_kind::gaps ? p.bytes - 4 : 0;
}

// Counts the block's gap lists that the side tables keep as maps.
void count_mapped(std::span<const std::byte> block, std::size_t count, read_counts& counts) {
    const bitplane::codec::block_info info = bitplane::codec::describe_block(block, count);
    constexpr std::uint32_t least = bitplane::detail::thresholds::read_bitmap_min_gaps_bytes;
    bool mapped = false;
    for (const auto& p : info.planes) mapped = mapped || gaps_payload_bytes(p) >= least;
    const bool mask = info.value_layout == bitplane::codec::layout::sparse && gaps_payload_bytes(info.mask) >= least;
    if (mapped || mask) ++counts.mapped_blocks;
    if (mask) ++counts.mapped_masks;
}

// Whether a block is delta with both a raw plane on base zero (window_sum's inline case) and
// a plane of another kind (its general case) among its stored planes.
bool mixed_delta(std::span<const std::byte> block, std::size_t count) {
    using bitplane::codec::base_kind;
    using bitplane::codec::payload_kind;
    const bitplane::codec::block_info info = bitplane::codec::describe_block(block, count);
    if (info.value_transform != bitplane::codec::transform::delta) return false;
    bool raw = false, other = false;
    for (const auto& p : info.planes) {
        if (p.payload == payload_kind::none) continue;
        if (p.payload == payload_kind::raw && p.base == base_kind::zero) raw = true;
        else other = true;
    }
    return raw && other;
}

// The side entries of a short gaps payload of `bytes` bytes, one item at a time (the definition
// in codec/value_reader.hpp, listed_positions: its positions as u16, one slot per payload byte
// rounded up to 16, the rest 0x7FFF, two to a word), to check gaps_skips' batched decode against.
std::vector<std::uint32_t> reference_listed(const std::byte* payload, std::uint32_t bytes) {
    std::vector<std::uint16_t> listed((bytes + 15) / 16 * 16, 0x7FFF);
    std::uint32_t at = 0, rank = 0, next = 0;
    while (at < bytes) {
        std::uint32_t gap = static_cast<std::uint8_t>(payload[at]);
        std::uint32_t step = 1;
        if (gap == 255) {
            gap = static_cast<std::uint32_t>(payload[at + 1]) | static_cast<std::uint32_t>(payload[at + 2]) << 8;
            step = 3;
        }
        listed[rank++] = static_cast<std::uint16_t>(next + gap);
        next += gap + 1;
        at += step;
    }
    std::vector<std::uint32_t> out(listed.size() / 2);
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = listed[2 * k] | std::uint32_t{listed[2 * k + 1]} << 16;
    return out;
}

// Encodes `values` as one block (with `options`) and checks every read_value against them:
// with both side tables, with none, and with each alone, on every SIMD path.
// The encoding of the blocks these tests read: the smallest, so that their list planes stay
// lists (the default stores some dense blocks all-raw for reads: test_raw_for_reads.cpp).
bitplane::codec::encode_options smallest() {
    bitplane::codec::encode_options o;
    o.raw_for_reads = false;
    return o;
}

void expect_reads(std::span<const std::uint32_t> values, bool is_signed, read_counts& counts, const std::string& what,
                  const bitplane::codec::encode_options& options = smallest()) {
    SCOPED_TRACE(what);
    std::vector<std::byte> out(bitplane::codec::max_block_bytes);
    const std::size_t n = bitplane::codec::encode_block(values, is_signed, out, options);
    ASSERT_GT(n, 0u);
    // A buffer of exactly the block's size, so that ASan sees any read past it.
    const std::vector<std::byte> block(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n));
    const block_descriptor d = bitplane::detail::read_descriptor(block.data(), static_cast<std::uint32_t>(values.size()),
                                                                 static_cast<std::uint32_t>(block.size()));
    std::vector<std::uint32_t> checkpoints;
    if (d.transform() == bitplane::codec::transform::delta) {
        checkpoints.resize(bitplane::detail::delta_checkpoint_count);
        bitplane::detail::delta_checkpoints(d, block.data(), checkpoints.data());
        ++counts.delta_blocks;
        if (mixed_delta(block, values.size())) ++counts.mixed_delta_blocks;
    }
    std::vector<std::uint32_t> skips(bitplane::detail::gaps_skip_count(d, block.data()));
    if (!skips.empty()) {
        bitplane::detail::gaps_skips(d, block.data(), skips.data());
        ++counts.indexed_blocks;
        // A sparse block whose only gap list is its mask, not kept as a map: its decoded
        // positions, one by one.
        const std::uint32_t mapped_from = d.transform() == bitplane::codec::transform::delta
                                              ? bitplane::detail::thresholds::read_bitmap_min_delta_gaps_bytes
                                              : bitplane::detail::thresholds::read_bitmap_min_gaps_bytes;
        if (d.sparse() && d.mask_payload() == bitplane::codec::payload_kind::gaps && (d.stored == 0 || d.all_raw()) &&
            d.mask_items < mapped_from) {
            const auto expected = reference_listed(block.data() + d.mask_at, d.mask_items);
            ASSERT_EQ(skips, expected) << "decoded positions of the mask's gap list of " << d.mask_items << " bytes";
            ++counts.mask_skip_blocks;
        }
    }
    count_mapped(block, values.size(), counts);
    // The read plan (descriptor-ful blocks), and the side a vector keeps (plan and skips).
    std::vector<std::uint32_t> plan(bitplane::detail::read_plan_words(d, block.data()));
    bitplane::detail::read_plan(d, block.data(), plan.data());
    if (!plan.empty()) {
        ++counts.planned_blocks;
        if (bitplane::detail::filter_chunks(plan.data()) != 0) ++counts.filtered_blocks;
        if (bitplane::detail::filter_chunks(plan.data()) != 0 && bitplane::detail::filter_has_default(plan.data()))
            ++counts.default_blocks;
        if (bitplane::detail::filter_chunks(plan.data()) > 4) ++counts.wide_filter_blocks;
        if (d.transform() == bitplane::codec::transform::delta) count_delta_plan(d, plan.data(), counts);
    }
    std::vector<std::uint32_t> vector_side(bitplane::detail::read_side_words(d, block.data()));
    bitplane::detail::read_side(d, block.data(), vector_side.data());
    ASSERT_EQ(vector_side.empty(), plan.empty() && skips.empty());
    if (!vector_side.empty()) {
        ASSERT_EQ(bitplane::detail::side_plan(vector_side.data()) != nullptr, !plan.empty());
        ASSERT_EQ(bitplane::detail::side_gaps(vector_side.data()) != nullptr, !skips.empty());
        if (!plan.empty()) {
            ASSERT_TRUE(std::equal(plan.begin(), plan.end(), bitplane::detail::side_plan(vector_side.data())));
        }
        if (!skips.empty()) {
            ASSERT_TRUE(std::equal(skips.begin(), skips.end(), bitplane::detail::side_gaps(vector_side.data())));
        }
    }
    const std::uint32_t* sums = checkpoints.empty() ? nullptr : checkpoints.data();
    const std::uint32_t* entries = skips.empty() ? nullptr : skips.data();
    const std::uint32_t* planned = plan.empty() ? nullptr : plan.data();
    const bitplane::simd_path saved = bitplane::active_simd_path();
    for (const auto path : bitplane_test::paths_to_sweep()) {
        bitplane::set_simd_path(path);
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        for (std::uint32_t i = 0; i < values.size(); ++i) {
            ASSERT_EQ(bitplane::detail::descriptor_value(d, block.data(), i, sums, entries), values[i]) << "index " << i;
            ASSERT_EQ(bitplane::detail::descriptor_value(d, block.data(), i), values[i]) << "index " << i << ", no tables";
            ASSERT_EQ(bitplane::detail::descriptor_value(d, block.data(), i, nullptr, entries), values[i])
                << "index " << i << ", skips only";
            ASSERT_EQ(bitplane::detail::descriptor_value(d, block.data(), i, sums, nullptr), values[i])
                << "index " << i << ", checkpoints only";
            ASSERT_EQ(bitplane::detail::descriptor_value(d, block.data(), i, sums, entries, planned), values[i])
                << "index " << i << ", checkpoints, skips and plan";
            ASSERT_EQ(bitplane::detail::descriptor_value(d, block.data(), i, nullptr, entries, planned), values[i])
                << "index " << i << ", skips and plan";
            if (!vector_side.empty() && !bitplane::detail::direct_readable(d)) {
                ASSERT_EQ(bitplane::detail::read_side_value(d, block.data(), i, sums, vector_side.data()), values[i])
                    << "index " << i << ", a vector's read side";
            }
        }
        // The whole block decoded with the side entries (maps of long lists, decoded positions of
        // short ones), and without.
        const auto parsed = bitplane::detail::expand_descriptor(d, block.data(), static_cast<std::uint32_t>(values.size()));
        for (const std::uint32_t* side : {entries, static_cast<const std::uint32_t*>(nullptr)}) {
            std::vector<std::uint32_t> decoded(values.size());
            bitplane::detail::decode_parsed(parsed, block, 0, decoded, bitplane::detail::gaps_side(d, side));
            ASSERT_TRUE(std::equal(decoded.begin(), decoded.end(), values.begin()))
                << "decoded block differs" << (side != nullptr ? ", with the side's entries" : "");
        }
    }
    bitplane::set_simd_path(saved);
}

TEST(RandomRead, EveryShapeAndSizeWithAndWithoutSideTables) {
    BITPLANE_SEED_TRACE();
    read_counts counts;
    for (const shape& s : all_shapes()) {
        for (const std::size_t count : {std::size_t{2048}, std::size_t{2047}, std::size_t{1000}, std::size_t{65},
                                        std::size_t{33}, std::size_t{1}}) {
            const auto values = make_values(s, count, case_seed("random-read", count, static_cast<std::uint64_t>(s.kind), s.bits));
            for (const bool is_signed : {false, true}) {
                expect_reads(values, is_signed, counts, case_name(s, count, is_signed ? "signed" : "unsigned"));
                expect_reads(values, is_signed, counts, case_name(s, count, is_signed ? "signed, default" : "unsigned, default"),
                             bitplane::codec::encode_options{});
                if (::testing::Test::HasFatalFailure()) return;
            }
        }
    }
    EXPECT_GT(counts.delta_blocks, 0u) << "no shape gave a delta block";
    EXPECT_GT(counts.indexed_blocks, 0u) << "no shape gave gap-list side entries";
    EXPECT_GT(counts.planned_blocks, 0u) << "no shape gave a block with a read plan";
}

// Bits at, just before and just after edges of every width 32 .. 512 positions (where the
// skip entries that decoded positions replaced had their buckets), stretches without any
// (escapes of 255+ positions), as the residual planes of plain blocks, a sparse block's mask,
// and the steps of delta blocks (increasing, and with negative steps).
TEST(RandomRead, GapListsAtEdgesHolesAndEscapes) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("random-read-gaps"));
    read_counts counts;
    auto plane_bits = [&](std::uint32_t length, unsigned edge_width, unsigned density_per_mille, bool holes) {
        std::vector<bool> bits(length, false);
        for (std::uint32_t i = 0; i < length; ++i) {
            const std::uint32_t off = i % edge_width;
            const bool edge = off == 0 || off == 1 || off == edge_width - 1;
            if ((edge && rng() % 3 != 0) || rng() % 1000 < density_per_mille) bits[i] = true;
        }
        if (holes) {  // empty stretches: whole buckets and gaps past the escape
            const std::uint32_t from = static_cast<std::uint32_t>(rng() % length);
            const std::uint32_t span = 300 + static_cast<std::uint32_t>(rng() % 700);
            for (std::uint32_t i = from; i < length && i < from + span; ++i) bits[i] = false;
        }
        return bits;
    };
    for (int round = 0; round < 60; ++round) {
        const std::uint32_t length = round % 5 == 4 ? 1 + static_cast<std::uint32_t>(rng() % 2048) : 2048;
        const unsigned edge_width = 32u << (round % 5);
        const unsigned density = static_cast<unsigned>(rng() % 80);
        const bool holes = round % 2 == 0;
        std::vector<std::uint32_t> values(length, 0);
        switch (round % 3) {
            case 0:  // plain: several gap-list planes
                for (unsigned plane = 0; plane < 5; ++plane) {
                    const auto bits = plane_bits(length, edge_width, density / (plane + 1), holes);
                    for (std::uint32_t i = 0; i < length; ++i)
                        if (bits[i]) values[i] |= 1u << (2 * plane + 1);
                }
                break;
            case 1: {  // sparse: the mask is the gap list
                const auto mask = plane_bits(length, edge_width, density / 4, holes);
                for (std::uint32_t i = 0; i < length; ++i)
                    if (mask[i]) values[i] = 1 + static_cast<std::uint32_t>(rng() % 5000);
                break;
            }
            default: {  // delta: steps where the plane is set; every other round some negative
                const auto steps = plane_bits(length, edge_width, density / 2, holes);
                std::uint32_t at = 1u << 30;
                const bool negative = round % 2 == 1;
                for (std::uint32_t i = 0; i < length; ++i) {
                    if (steps[i]) at += 1 + static_cast<std::uint32_t>(rng() % 200);
                    else if (negative && rng() % 50 == 0) at -= 3;
                    values[i] = at;
                }
                break;
            }
        }
        expect_reads(values, round % 4 == 3, counts, "round " + std::to_string(round) + " length " + std::to_string(length));
        if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(counts.delta_blocks, 0u) << "no round gave a delta block";
    EXPECT_GT(counts.indexed_blocks, 10u) << "the rounds should give gap-list side entries";
    EXPECT_GT(counts.mapped_blocks, 5u) << "the rounds should give gap lists kept as maps";
    EXPECT_GT(counts.mapped_masks, 2u) << "the rounds should give sparse masks kept as maps";
    EXPECT_GT(counts.mask_skip_blocks, 3u) << "the rounds should give sparse blocks with short gap-list masks";
}

// Plain blocks of a few planes, each a short list of 1 to 24 items: positions (bits 256+
// apart), runs, or gap lists (bits close together, or far apart: escapes), so that position
// lists (up to 8 items: gaps are smaller unless most of them escape) and run lists of up to 8
// (thresholds::read_probe_list_bytes) are probed and longer run lists searched, gap lists of 1 to 63 bytes are read from their decoded
// positions, and some list is the block's last payload (the probe's loads then may not run
// past the block: the buffer is the block's size, for ASan).
TEST(RandomRead, ShortListsAroundTheProbeBound) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("random-read-short-lists"));
    read_counts counts;
    std::vector<bool> positions_seen(40), runs_seen(40), gaps_seen(64);
    for (int round = 0; round < 120; ++round) {
        const std::uint32_t length = round % 6 == 5 ? 200 + static_cast<std::uint32_t>(rng() % 1848) : 2048;
        std::vector<std::uint32_t> values(length, 0);
        const unsigned planes = 1 + static_cast<unsigned>(rng() % 4);
        for (unsigned plane = 0; plane < planes; ++plane) {
            const std::uint32_t items = 1 + static_cast<std::uint32_t>(rng() % 24);
            const std::uint32_t kind = static_cast<std::uint32_t>(rng() % 4);
            const std::uint32_t bit = 1u << (3 * plane + static_cast<unsigned>(rng() % 3));
            const std::uint32_t spread = kind == 0 ? 256 + static_cast<std::uint32_t>(rng() % 120)  // positions
                                         : kind == 1 ? 2 + static_cast<std::uint32_t>(rng() % 60)  // gaps
                                                     : 40 + static_cast<std::uint32_t>(rng() % 60); // runs, far gaps
            std::uint32_t at = static_cast<std::uint32_t>(rng() % (spread + 1));
            for (std::uint32_t k = 0; k < items && at < length; ++k) {
                const std::uint32_t run = kind == 2 ? 2 + static_cast<std::uint32_t>(rng() % 20) : 1;
                for (std::uint32_t i = at; i < at + run && i < length; ++i) values[i] |= bit;
                at += run + 1 + static_cast<std::uint32_t>(rng() % spread);
            }
        }
        std::vector<std::byte> out(bitplane::codec::max_block_bytes);
        const std::size_t n = bitplane::codec::encode_block(values, false, out, smallest());
        const auto info = bitplane::codec::describe_block(std::span<const std::byte>(out).first(n), values.size());
        for (const auto& p : info.planes) {
            if (p.payload == bitplane::codec::payload_kind::positions && p.items < positions_seen.size()) positions_seen[p.items] = true;
            if (p.payload == bitplane::codec::payload_kind::runs && p.items < runs_seen.size()) runs_seen[p.items] = true;
            if (p.payload == bitplane::codec::payload_kind::gaps && p.items < gaps_seen.size()) gaps_seen[p.items] = true;
        }
        expect_reads(values, false, counts, "round " + std::to_string(round) + " length " + std::to_string(length));
        if (::testing::Test::HasFatalFailure()) return;
    }
    // Position lists of several lengths, both sides of the run lists' bound (8), and gap
    // lists of many sizes below the map's bound.
    const auto seen = [](const std::vector<bool>& v, std::size_t from, std::size_t to) {
        std::size_t n = 0;
        for (std::size_t k = from; k <= to && k < v.size(); ++k) n += v[k] ? 1 : 0;
        return n;
    };
    EXPECT_GE(seen(positions_seen, 1, 16), 2u);
    EXPECT_GE(seen(runs_seen, 1, 8), 5u);
    EXPECT_GE(seen(runs_seen, 9, 39), 2u);
    EXPECT_GE(seen(gaps_seen, 1, 63), 20u);
}

// Gap lists whose decoded positions fill their side slots exactly (16, 32, 48 positions of one
// byte each: no pad after them) and lists one short of and one past those sizes (a pad of 15
// or 1): the decoder applies a short list up to its first pad or its slots' end
// (block_decoder.cpp, flip_listed). Blocks on their own, with and without the side, and a
// vector's iteration and decode() of the same blocks, signed and unsigned, on every path.
TEST(RandomRead, ShortGapListsFillingTheirSlotsEveryPath) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("random-read-full-slots"));
    read_counts counts;
    std::vector<bool> full_seen(64);
    std::vector<std::uint32_t> column;
    for (const std::uint32_t items : {15u, 16u, 17u, 31u, 32u, 33u, 47u, 48u, 49u}) {
        for (int round = 0; round < 3; ++round) {
            std::vector<std::uint32_t> values(bitplane::block_values, 0);
            // Planes 1, 4 and 7: `items` bits about 2048 / items apart (gaps of one byte, now and
            // then an escape; on round 2 evenly, the last at the block's end); plane 0 random (raw).
            for (unsigned plane = 0; plane < 3; ++plane) {
                const std::uint32_t step = static_cast<std::uint32_t>(bitplane::block_values) / items;
                for (std::uint32_t k = 0; k < items; ++k) {
                    const std::uint32_t at = round == 2 ? static_cast<std::uint32_t>(bitplane::block_values) - 1 - k * step
                                                        : k * step + static_cast<std::uint32_t>(rng() % step);
                    values[at] |= 2u << (3 * plane);
                }
            }
            for (auto& v : values) v |= static_cast<std::uint32_t>(rng() & 1);
            std::vector<std::byte> out(bitplane::codec::max_block_bytes);
            const std::size_t n = bitplane::codec::encode_block(values, false, out, smallest());
            const auto info = bitplane::codec::describe_block(std::span<const std::byte>(out).first(n), values.size());
            for (const auto& p : info.planes)
                if (p.payload == bitplane::codec::payload_kind::gaps && p.items % 16 == 0 && p.items < full_seen.size())
                    full_seen[p.items] = true;
            expect_reads(values, false, counts, "items " + std::to_string(items) + " round " + std::to_string(round));
            if (::testing::Test::HasFatalFailure()) return;
            column.insert(column.end(), values.begin(), values.end());
        }
    }
    EXPECT_TRUE(full_seen[16] && full_seen[32] && full_seen[48]) << "no gap list filled its slots";
    column.resize(column.size() - 555);  // a partial last block
    const auto check_vector = [&](auto tag) {
        using T = decltype(tag);
        std::vector<T> ref(column.size());
        for (std::size_t i = 0; i < column.size(); ++i) ref[i] = static_cast<T>(column[i]);
        const bitplane::vector<T> v{std::span<const T>(ref)};
        on_every_path([&] {
            std::size_t i = 0;
            for (const T x : v) ASSERT_EQ(x, ref[i++]) << "iteration, index " << i - 1;
            ASSERT_EQ(i, ref.size());
            std::vector<T> decoded(ref.size());
            v.decode(0, decoded);
            ASSERT_TRUE(decoded == ref) << "decode()";
        });
    };
    check_vector(std::uint32_t{});
    check_vector(std::int32_t{});
}

// Plain blocks with a read plan (3+ list planes) like tz_transition's: 1 to 26 raw planes of
// random low bits (the plan's raw group, read 8 planes a gather in the AVX2 copy, so 1, 8, 9,
// 16, 17 and 24+ of them) under 3 or 4 run-list planes of 1 to 90 runs (probed up to 8, compared
// bound by bound up to thresholds::read_scan_runs_max_items, searched on the portable paths;
// the encoder keeps no list of more than 64 runs: a raw plane is smaller), on lengths that
// are and are not whole blocks; a run list is often the block's last payload (masked loads
// near the end of a buffer of the block's size, for ASan).
TEST(RandomRead, PlannedBlocksOfRawPlanesAndRunLists) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("random-read-planned-runs"));
    read_counts counts;
    std::vector<bool> runs_seen(65), raw_seen(33);
    for (int round = 0; round < 60; ++round) {
        const std::uint32_t length = round % 4 == 3 ? 300 + static_cast<std::uint32_t>(rng() % 1748) : 2048;
        const unsigned raw = 1 + static_cast<unsigned>(round % 26);
        const unsigned lists = 3 + static_cast<unsigned>(rng() % 2);
        std::vector<std::uint32_t> values(length, 0);
        for (std::uint32_t i = 0; i < length; ++i) values[i] = static_cast<std::uint32_t>(rng()) & ((1u << raw) - 1);
        for (unsigned plane = 0; plane < lists; ++plane) {
            const std::uint32_t runs = 1 + static_cast<std::uint32_t>(rng() % 90);
            const std::uint32_t bit = 1u << (raw + plane);
            const std::uint32_t longest = plane % 2 == 0 ? 4 : 12;  // long runs keep long lists as runs
            const std::uint32_t spread = std::max<std::uint32_t>(2, length / runs - longest);
            std::uint32_t at = static_cast<std::uint32_t>(rng() % spread);
            for (std::uint32_t k = 0; k < runs && at < length; ++k) {
                const std::uint32_t run = longest - 2 + static_cast<std::uint32_t>(rng() % 3);
                for (std::uint32_t i = at; i < at + run && i < length; ++i) values[i] |= bit;
                at += run + 1 + static_cast<std::uint32_t>(rng() % spread);
            }
        }
        std::vector<std::byte> out(bitplane::codec::max_block_bytes);
        const std::size_t n = bitplane::codec::encode_block(values, round % 3 == 2, out, smallest());
        const auto info = bitplane::codec::describe_block(std::span<const std::byte>(out).first(n), values.size());
        std::uint32_t raws = 0;
        for (const auto& p : info.planes) {
            if (p.payload == bitplane::codec::payload_kind::runs && p.items < runs_seen.size()) runs_seen[p.items] = true;
            raws += p.payload == bitplane::codec::payload_kind::raw ? 1u : 0u;
        }
        raw_seen[raws] = true;
        expect_reads(values, round % 3 == 2, counts, "round " + std::to_string(round) + " length " + std::to_string(length));
        if (::testing::Test::HasFatalFailure()) return;
    }
    const auto seen = [](const std::vector<bool>& v, std::size_t from, std::size_t to) {
        std::size_t n = 0;
        for (std::size_t k = from; k <= to && k < v.size(); ++k) n += v[k] ? 1 : 0;
        return n;
    };
    EXPECT_GT(counts.planned_blocks, 30u) << "the rounds should give blocks with read plans";
    EXPECT_GE(seen(runs_seen, 9, 32), 5u);
    EXPECT_GE(seen(runs_seen, 33, 64), 5u);
    EXPECT_GE(seen(raw_seen, 1, 7), 2u);
    EXPECT_GE(seen(raw_seen, 9, 15), 2u);
    EXPECT_GE(seen(raw_seen, 17, 32), 2u);
}

// Blocks of one common value with rare exceptions (bam_ref_span, bam_mapq): several planes
// each a short gap list or position list, mostly at the same few positions, so that the read
// plan keeps a filter of those positions (direct_access.hpp: up to 128, at most one stored
// position in thresholds::read_filter_min_share), which a read outside it skips, or where the
// plan has only lists answers with one residual. Exceptions from 1 to ~200 positions (past
// the filter's bound), planes on complemented and referenced bases (an exception that sets
// a plane the common value has), with 0-2 raw low planes and a run-list plane now and then
// (no single residual outside the filter), signed and unsigned, sparse (mostly zero) rounds,
// lengths that are and are not whole blocks; every position read on every path.
TEST(RandomRead, PlannedBlocksOfRareExceptions) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("random-read-rare-exceptions"));
    read_counts counts;
    std::size_t unfiltered_planned = 0;
    for (int round = 0; round < 90; ++round) {
        const std::uint32_t length = round % 5 == 4 ? 300 + static_cast<std::uint32_t>(rng() % 1748) : 2048;
        const bool sparse = round % 9 == 8;
        const std::uint32_t common = sparse ? 0 : 100 + static_cast<std::uint32_t>(rng() % 60);
        const unsigned raw = round % 3 == 1 ? 1 + static_cast<unsigned>(rng() % 2) : 0;
        const std::uint32_t exceptions = 1 + static_cast<std::uint32_t>(rng() % (round % 6 == 5 ? 200 : 90));
        std::vector<std::uint32_t> values(length, common);
        for (std::uint32_t i = 0; i < length && raw != 0; ++i) values[i] ^= static_cast<std::uint32_t>(rng()) & ((1u << raw) - 1);
        for (std::uint32_t k = 0; k < exceptions; ++k) {
            const std::uint32_t at = static_cast<std::uint32_t>(rng() % length);
            // Mostly near the common value (a few low and middle planes differ), now and then far.
            const std::uint32_t other = rng() % 4 == 0 ? static_cast<std::uint32_t>(rng() % 4000)
                                                       : common + 1 + static_cast<std::uint32_t>(rng() % 40);
            values[at] = (other & ~((1u << raw) - 1)) | (values[at] & ((1u << raw) - 1));
        }
        if (round % 7 == 6) {  // a few runs on a high plane: a run list beside the others
            for (std::uint32_t r = 0; r < 3; ++r) {
                const std::uint32_t from = static_cast<std::uint32_t>(rng() % length);
                for (std::uint32_t i = from; i < from + 30 && i < length; ++i) values[i] |= 1u << 14;
            }
        }
        const bool is_signed = round % 4 == 3;
        if (is_signed)
            for (auto& v : values) v = static_cast<std::uint32_t>(static_cast<std::int32_t>(v) - 130);  // some negative
        const std::size_t filtered_before = counts.filtered_blocks, planned_before = counts.planned_blocks;
        expect_reads(values, is_signed, counts, "round " + std::to_string(round) + " length " + std::to_string(length));
        if (::testing::Test::HasFatalFailure()) return;
        if (counts.planned_blocks > planned_before && counts.filtered_blocks == filtered_before) ++unfiltered_planned;
    }
    EXPECT_GT(counts.filtered_blocks, 20u) << "the rounds should give plans with a filter";
    EXPECT_GT(counts.default_blocks, 10u) << "the rounds should give filtered plans of lists only";
    EXPECT_GT(counts.filtered_blocks - counts.default_blocks, 5u) << "the rounds should give filters beside raw or run planes";
    EXPECT_GT(counts.wide_filter_blocks, 3u) << "the rounds should give filters of more than 64 positions";
    EXPECT_GT(unfiltered_planned, 2u) << "the rounds should give planned blocks past the filter's bounds";
}

// Blocks whose plans hold many gap lists kept as maps (the AVX2 copy reads them 8 a gather,
// plan_mapped_bits): 0-3 raw low planes under 1-24 sparse planes of ~60-160 set bits each (gap
// lists of at least read_bitmap_min_gaps_bytes), so that the mapped group runs 0, 1, 2 and 3
// gathers, beside raw planes in the same lanes.
TEST(RandomRead, PlannedBlocksOfManyMappedLists) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("random-read-planned-maps"));
    read_counts counts;
    std::vector<bool> maps_seen(33);
    for (int round = 0; round < 48; ++round) {
        const std::uint32_t length = round % 4 == 3 ? 1200 + static_cast<std::uint32_t>(rng() % 848) : 2048;
        const unsigned raw = static_cast<unsigned>(round % 4);
        const unsigned sparse = 1 + static_cast<unsigned>(round % 24);
        std::vector<std::uint32_t> values(length, 0);
        for (std::uint32_t i = 0; i < length; ++i) values[i] = static_cast<std::uint32_t>(rng()) & ((1u << raw) - 1);
        for (unsigned plane = 0; plane < sparse && raw + plane < 32; ++plane) {
            const std::uint32_t ones = 60 + static_cast<std::uint32_t>(rng() % 100);
            for (std::uint32_t k = 0; k < ones; ++k) values[rng() % length] |= 1u << (raw + plane);
        }
        std::vector<std::byte> out(bitplane::codec::max_block_bytes);
        const std::size_t n = bitplane::codec::encode_block(values, round % 3 == 2, out, smallest());
        const auto info = bitplane::codec::describe_block(std::span<const std::byte>(out).first(n), values.size());
        std::uint32_t maps = 0;
        for (const auto& p : info.planes)
            maps += gaps_payload_bytes(p) >= bitplane::detail::thresholds::read_bitmap_min_gaps_bytes ? 1u : 0u;
        maps_seen[maps] = true;
        expect_reads(values, round % 3 == 2, counts, "round " + std::to_string(round) + " length " + std::to_string(length));
        if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(counts.planned_blocks, 40u) << "the rounds should give blocks with read plans";
    const auto seen = [&](std::size_t from, std::size_t to) {
        std::size_t k = 0;
        for (std::size_t m = from; m <= to; ++m) k += maps_seen[m] ? 1 : 0;
        return k;
    };
    EXPECT_GE(seen(1, 8), 3u) << "one gather";
    EXPECT_GE(seen(9, 16), 3u) << "two gathers";
    EXPECT_GE(seen(17, 24), 3u) << "three gathers";
}

// Delta blocks as sorted read positions give them (bam_pos): random low bits of each step
// (raw planes on base zero, read inline by window_sum) under steps of a few sizes whose high
// bits are sparse (gap lists, positions, planes XORed onto others), some steps negative, on
// block lengths that are and are not multiples of the checkpoint stride.
TEST(RandomRead, DeltaBlocksMixingRawAndListPlanes) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("random-read-mixed-delta"));
    read_counts counts;
    for (int round = 0; round < 48; ++round) {
        const std::uint32_t length = round % 4 == 3 ? 1 + static_cast<std::uint32_t>(rng() % 2048) : 2048;
        const unsigned low_bits = 2 + static_cast<unsigned>(round % 9);         // raw planes
        const unsigned big_per_mille = 5 + static_cast<unsigned>(rng() % 120);  // steps into the high planes
        std::vector<std::uint32_t> values(length);
        std::uint32_t at = static_cast<std::uint32_t>(rng());
        for (std::uint32_t i = 0; i < length; ++i) {
            std::uint32_t step = static_cast<std::uint32_t>(rng()) & ((1u << low_bits) - 1);
            if (rng() % 1000 < big_per_mille) step += static_cast<std::uint32_t>(rng() % 5) << (low_bits + rng() % 6);
            if (round % 5 == 4 && rng() % 64 == 0) step = 0u - static_cast<std::uint32_t>(rng() % 7);
            at += step;
            values[i] = at;
        }
        expect_reads(values, round % 2 == 1, counts, "round " + std::to_string(round) + " length " + std::to_string(length));
        if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(counts.mixed_delta_blocks, 10u) << "the rounds should give delta blocks mixing raw and list planes";
}

// Delta blocks whose stored planes have unstored (all-zero) planes between them and above
// them: a delta read sums a window of every plane up to the highest live one, so the windows
// of planes it never writes must read as 0 (value_reader.hpp, plane_windows).
TEST(RandomRead, DeltaBlocksWithUnstoredPlanesBetweenStoredOnes) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("random-read-delta-holes"));
    read_counts counts;
    std::size_t holed = 0;
    for (int round = 0; round < 24; ++round) {
        const std::uint32_t length = round % 3 == 2 ? 1 + static_cast<std::uint32_t>(rng() % 2048) : 2048;
        // Steps made of a few scattered bits: plane 0 often, two higher planes rarely.
        const unsigned mid = 3 + static_cast<unsigned>(rng() % 8), high = mid + 4 + static_cast<unsigned>(rng() % 12);
        const unsigned rare = 1 + static_cast<unsigned>(rng() % 40);  // per mille
        std::vector<std::uint32_t> values(length);
        std::uint32_t at = static_cast<std::uint32_t>(rng());
        for (std::uint32_t i = 0; i < length; ++i) {
            std::uint32_t step = static_cast<std::uint32_t>(rng() & 1u);
            if (rng() % 1000 < rare) step |= 1u << mid;
            if (rng() % 1000 < rare) step |= 1u << high;
            at += step;
            values[i] = at;
        }
        std::vector<std::byte> out(bitplane::codec::max_block_bytes);
        const std::size_t n = bitplane::codec::encode_block(values, false, out, smallest());
        ASSERT_GT(n, 0u);
        const block_descriptor d = bitplane::detail::read_descriptor(out.data(), length, static_cast<std::uint32_t>(n));
        const std::uint32_t live = d.live >> std::countr_zero(d.live | 1u);
        if (d.transform() == bitplane::codec::transform::delta && (live & (live + 1)) != 0) ++holed;
        expect_reads(values, false, counts, "round " + std::to_string(round) + " length " + std::to_string(length));
        if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(holed, 8u) << "the rounds should give delta blocks with unstored planes between stored ones";
}

// Delta blocks whose plans hold every kind of plane the AVX2 copy reads a column of
// (value_reader.hpp, plan_column_sum): steps of random low bits (raw planes), high bits set
// rarely (position and gap lists), in stretches (run lists), mostly (complemented bases), and
// blocks of mostly equal steps (sparse, m stored positions: planes not a multiple of 32 long),
// some steps negative, lengths that are and are not multiples of 32.
TEST(RandomRead, DeltaBlocksReadByColumnsOfEveryPlaneKind) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("random-read-delta-columns"));
    read_counts counts;
    for (int round = 0; round < 160; ++round) {
        const std::uint32_t length = round % 4 == 3 ? 1 + static_cast<std::uint32_t>(rng() % 2048) : 2048;
        const unsigned low_bits = static_cast<unsigned>(rng() % 6);  // raw planes (none: 0)
        const bool sparse = round % 5 == 2;                           // most steps equal
        // Three high planes, each set rarely, in stretches or mostly.
        unsigned plane[3];
        unsigned per_mille[3];
        unsigned stretch[3];
        for (int h = 0; h < 3; ++h) {
            plane[h] = low_bits + 1 + static_cast<unsigned>(rng() % 14);
            const unsigned kind = static_cast<unsigned>(rng() % 4);
            per_mille[h] = kind == 0 ? 2 + static_cast<unsigned>(rng() % 30)
                           : kind == 1 ? 30 + static_cast<unsigned>(rng() % 200)
                           : kind == 2 ? 500
                                       : 960 + static_cast<unsigned>(rng() % 40);
            stretch[h] = kind == 2 ? 16 + static_cast<unsigned>(rng() % 200) : 1;
        }
        std::vector<std::uint32_t> values(length);
        std::uint32_t at = static_cast<std::uint32_t>(rng());
        bool on[3] = {false, false, false};
        for (std::uint32_t i = 0; i < length; ++i) {
            std::uint32_t step = static_cast<std::uint32_t>(rng()) & ((1u << low_bits) - 1);
            for (int h = 0; h < 3; ++h) {
                if (i % stretch[h] == 0) on[h] = rng() % 1000 < per_mille[h];
                if (on[h]) step |= 1u << plane[h];
            }
            if (sparse && rng() % 8 != 0) step = 0;
            if (round % 7 == 6 && rng() % 64 == 0) step = 0u - static_cast<std::uint32_t>(rng() % 7);
            at += step;
            values[i] = at;
        }
        expect_reads(values, round % 2 == 1, counts, "round " + std::to_string(round) + " length " + std::to_string(length));
        if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(counts.delta_raw_partial, 0u) << "raw planes of a length not a multiple of 32";
    EXPECT_GT(counts.delta_positions, 0u) << "position lists";
    EXPECT_GT(counts.delta_runs, 0u) << "run lists";
    EXPECT_GT(counts.delta_mapped, 0u) << "gap lists kept as maps";
    EXPECT_GT(counts.delta_listed, 0u) << "gap lists kept as decoded positions";
    EXPECT_GT(counts.delta_references, 0u) << "planes stored as differences from others";
    EXPECT_GT(counts.delta_high_complements, 0u) << "planes 8-31 on a complemented base";
}

// vector::operator[] at every index against the values: tails of several lengths (none, 1,
// 2047), a block held for writing (set), a resize that drops blocks, every SIMD path.
// vector_core::get tells the tail block by size() / block_values, not by its tables' sizes.
TEST(RandomRead, VectorReadsEveryIndexEveryPath) {
    BITPLANE_SEED_TRACE();
    on_every_path([] {
        for (const shape& s : all_shapes()) {
            for (const std::size_t count : {std::size_t{1}, std::size_t{2047}, std::size_t{2048}, std::size_t{4096},
                                            std::size_t{4097}, std::size_t{3 * 2048 + 2047}}) {
                SCOPED_TRACE(case_name(s, count));
                std::vector<std::uint32_t> values =
                    make_values(s, count, case_seed("random-read-vector", count, static_cast<std::uint64_t>(s.kind), s.bits));
                bitplane::vector<std::uint32_t> v;
                v.append(values);
                const auto check = [&](const char* when) {
                    ASSERT_EQ(v.size(), values.size()) << when;
                    for (std::size_t i = 0; i < values.size(); ++i) ASSERT_EQ(v[i], values[i]) << when << ", index " << i;
                };
                check("appended");
                v.seal();
                check("sealed");
                if (count > 2048) {
                    v.set(2050, values[2050] ^ 5u);  // block 1 is now held for writing
                    values[2050] ^= 5u;
                    check("after set");
                    const std::size_t keep = count / 2;
                    v.resize(keep, 0);
                    values.resize(keep);
                    check("after resize");
                }
                if (::testing::Test::HasFatalFailure()) return;
            }
        }
    });
}

}  // namespace
