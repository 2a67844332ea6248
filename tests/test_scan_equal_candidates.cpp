// Equalities on list-heavy dense blocks (src/ops/equal_candidates.cpp): columns shaped like
// bam_mapq and geoip4_size (one frequent value, others scattered or in runs over it, so that
// blocks hold many short gap lists, position lists and runs over constant bases, some planes
// stored against others, and a frame-of-reference base), each block's answer from
// equal_by_candidates against a plain loop over its values, and count_eq / find_eq / find_ne
// over the vector against a plain loop, on every SIMD path.
#include "test_support.hpp"
#include "equal_candidates_check.hpp"
#include "scan_equality_check.hpp"

#include "codec/direct_access.hpp"
#include "codec/thresholds.hpp"
#include "ops/equal_candidates.hpp"
#include "ops/scan_block.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/scan.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using bitplane_test::case_seed;
using bitplane_test::check_equality_against_loop;
using bitplane_test::on_every_path;

struct column_shape {
    const char* name;
    std::uint32_t frequent;
    std::vector<std::uint32_t> others;
    double density;    // of values other than the frequent one
    bool in_runs;      // others in runs of 1-40
};

std::vector<std::uint32_t> make_column(const column_shape& c, std::size_t n, std::mt19937_64& rng) {
    std::vector<std::uint32_t> values(n, c.frequent);
    for (std::size_t i = 0; i < n;) {
        const std::size_t len = c.in_runs ? 1 + rng() % 40 : 1;
        if (std::uniform_real_distribution<double>(0, 1)(rng) < c.density) {
            const std::uint32_t x = c.others[rng() % c.others.size()];
            for (std::size_t k = i; k < std::min(n, i + len); ++k) values[k] = x;
        }
        i += len;
    }
    // Hits in a block's first and last positions.
    if (n > 0) values[0] = c.others[0];
    if (n > 2048) values[2047] = c.others[0], values[2048] = c.others.back();
    if (n > 1) values[n - 1] = c.others.back();
    return values;
}

// Every value present, the frequent one, each block's smallest (a frame-of-reference block's
// base: residual 0), and absent values between, around and far off.
std::vector<std::uint32_t> probes(const column_shape& c, const std::vector<std::uint32_t>& values) {
    std::vector<std::uint32_t> out = c.others;
    out.push_back(c.frequent);
    for (std::size_t first = 0; first < values.size(); first += 2048)
        out.push_back(*std::min_element(values.begin() + first, values.begin() + std::min(values.size(), first + 2048)));
    for (const std::uint32_t x : std::vector<std::uint32_t>(out)) {
        out.push_back(x + 1);
        out.push_back(x - 1);
        out.push_back(x ^ 0x100u);
    }
    out.push_back(0xFFFFFFFFu);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

const std::vector<column_shape>& shapes() {
    static const std::vector<column_shape> all = {
        // bam_mapq: 60 at 85%, a few others, short lists of escapes.
        {"mapq", 60, {0, 4, 23, 37, 59, 61, 255, 1}, 0.15, false},
        {"mapq-sparse", 60, {0, 4, 23, 37, 59, 61}, 0.01, false},
        {"mapq-runs", 60, {0, 4, 23, 59, 61}, 0.1, true},
        // geoip4_size: powers of two over a frame of reference near 2^18 (256 frequent, 20%).
        {"geoip-size", 256, {346112, 262144, 512, 1024, 4096, 65536, 256 + 1, 300000}, 0.8, false},
        {"geoip-for", 346112, {346112 + 256, 346112 + 1, 346112 + 4096, 346112 + 65536}, 0.2, false},
    };
    return all;
}

// Each sealed block's equality from equal_by_candidates (where it applies) against a plain
// loop, on residuals of plain and frame-of-reference blocks. Counts the blocks answered from
// candidates (a list keeps its positions) and by clearing lists.
void check_blocks(const bitplane::vector<std::uint32_t>& packed, const std::vector<std::uint32_t>& values,
                  const std::vector<std::uint32_t>& xs, std::size_t& from_candidates, std::size_t& from_clearing) {
    namespace d = bitplane::detail;
    const auto& core = packed.core();
    auto scratch = std::make_unique<d::scan_scratch>();
    for (std::size_t b = 0; b < core.sealed_block_count(); ++b) {
        const d::block_descriptor& desc = core.sealed_descriptor(b);
        if (desc.sparse() || (desc.transform() != bitplane::codec::transform::none &&
                              desc.transform() != bitplane::codec::transform::frame_of_reference))
            continue;
        const std::uint32_t base =
            desc.transform() == bitplane::codec::transform::frame_of_reference ? desc.for_base() : 0u;
        const std::uint32_t* side = core.sealed_read_side(b);
        const std::byte* bytes = core.sealed_block(b, {}).data();
        for (const std::uint32_t x : xs) {
            const std::uint32_t target = x - base;
            if (((target ^ desc.ones) & ~desc.live) != 0) continue;  // the caller answers these
            if (!check_equal_by_candidates(desc, bytes, d::side_plan(side), d::side_gaps(side), target, scratch->marks,
                                           values.data() + b * 2048, x, b))
                continue;
            if (::testing::Test::HasFailure()) return;
            // Which way answered it: a list plane whose base (settled against its reference
            // where it has one) differs from the target's bit keeps its positions
            // (candidates); else every list clears its own.
            const std::uint32_t* plan = d::side_plan(side);
            const d::plan_groups g = d::groups_of(plan);
            std::uint32_t one_base = plan[0], lists = 0;
            const std::uint32_t* e = g.entries + g.raw + g.mapped;
            for (std::uint32_t i = 0; i < g.listed; ++i) lists |= 1u << d::plan_index(*e++);
            for (std::uint32_t i = 0; i < g.positions + g.runs; ++i, e += 2) lists |= 1u << d::plan_index(*e);
            for (std::uint32_t i = 0; i < g.references; ++i, ++e) one_base ^= ((target >> ((*e >> 8) & 31u)) & 1u) << (*e & 31u);
            const bool keeps = ((target ^ one_base) & desc.live & lists) != 0;
            (keeps ? from_candidates : from_clearing) += 1;
        }
    }
}

}  // namespace

TEST(ScanEqualCandidates, ListHeavyBlocksAgainstPlainLoopOnEveryPath) {
    BITPLANE_SEED_TRACE();
    std::size_t from_candidates = 0, from_clearing = 0, planned = 0;
    for (const column_shape& c : shapes()) {
        for (const std::size_t n : {std::size_t{2048}, std::size_t{3 * 2048 + 1000}, std::size_t{2 * 2048 - 1}}) {
            SCOPED_TRACE(std::string(c.name) + " " + std::to_string(n));
            std::mt19937_64 rng(case_seed("scan-equal-candidates", c.frequent, n));
            const std::vector<std::uint32_t> values = make_column(c, n, rng);
            const bitplane::vector<std::uint32_t> packed(values.begin(), values.end());
            for (std::size_t b = 0; b < packed.core().sealed_block_count(); ++b)
                planned += bitplane::detail::side_plan(packed.core().sealed_read_side(b)) != nullptr ? 1 : 0;
            const std::vector<std::uint32_t> xs = probes(c, values);
            on_every_path([&] {
                check_blocks(packed, values, xs, from_candidates, from_clearing);
                if (HasFatalFailure()) return;
                for (const std::uint32_t x : xs) {
                    check_equality_against_loop(packed, values, x);
                    if (HasFatalFailure()) return;
                }
            });
            if (HasFatalFailure()) return;
        }
    }
    EXPECT_GT(planned, 0u) << "no block with a read plan: equal_by_candidates is not reached";
    EXPECT_GT(from_candidates, 0u) << "no block answered from a list's candidates";
    EXPECT_GT(from_clearing, 0u) << "no block answered by clearing lists";
}

// Many candidates against raw planes (equal_candidates.cpp: where the candidates are many for
// the block's raw planes and gap maps, thresholds::equal_candidates_narrow_min_reads, those
// planes are narrowed in one kernel pass on the AVX2 and AVX-512 paths and each candidate read
// once in the result): random low planes (raw), a plane set at a few percent of the positions
// (a gap list that keeps its positions for targets with that bit: tens of candidates), a
// denser one (a longer gap list, or its map) and a frame of reference from a high constant.
// Each block's answer from its kept plan or one built as a scan builds it, against a plain
// loop, then count_eq / find_eq / find_ne over the vector, on every path; whole blocks and a
// tail.
TEST(ScanEqualCandidates, ManyCandidatesAgainstRawPlanesOnEveryPath) {
    BITPLANE_SEED_TRACE();
    namespace d = bitplane::detail;
    constexpr std::uint32_t sparse = 1u << 13;
    std::size_t many = 0;  // blocks answered for a target with the sparse bit, from enough candidates
    for (const std::size_t n : {std::size_t{2048}, std::size_t{4 * 2048 + 777}}) {
        for (const double sparse_share : {0.005, 0.03, 0.12}) {
            SCOPED_TRACE("n " + std::to_string(n) + " share " + std::to_string(sparse_share));
            std::mt19937_64 rng(case_seed("scan-equal-many-candidates", static_cast<std::uint64_t>(1000 * sparse_share), n));
            std::bernoulli_distribution sparse_bit(sparse_share), denser_bit(0.25);
            std::vector<std::uint32_t> values(n);
            for (std::uint32_t& v : values)
                v = 0x40000u | static_cast<std::uint32_t>(rng() & 0x3Fu) | (sparse_bit(rng) ? sparse : 0u) |
                    (denser_bit(rng) ? 1u << 11 : 0u);
            const bitplane::vector<std::uint32_t> packed(values.begin(), values.end());
            // Present values with the sparse bit (candidates from its list), absent ones
            // beside them, and values without it (its list clears).
            std::vector<std::uint32_t> xs;
            for (std::size_t i = 0; i < n; i += 97) {
                xs.push_back(values[i] | sparse);
                xs.push_back((values[i] | sparse) ^ 1u);
                xs.push_back(values[i] & ~sparse);
            }
            std::sort(xs.begin(), xs.end());
            xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
            const auto& core = packed.core();
            auto scratch = std::make_unique<d::scan_scratch>();
            on_every_path([&] {
                for (std::size_t b = 0; b < core.sealed_block_count(); ++b) {
                    const d::block_descriptor& desc = core.sealed_descriptor(b);
                    if (desc.sparse() || desc.transform() == bitplane::codec::transform::delta ||
                        desc.transform() == bitplane::codec::transform::zigzag)
                        continue;
                    const std::uint32_t* side = core.sealed_read_side(b);
                    const std::byte* bytes = core.sealed_block(b, {}).data();
                    std::uint32_t built[d::read_plan_max_unfiltered_words];
                    const std::uint32_t* plan = d::side_plan(side);
                    if (plan == nullptr && d::unfiltered_read_plan(desc, bytes, built)) plan = built;
                    if (plan == nullptr) continue;
                    std::uint32_t with_bit = 0;
                    for (std::size_t i = b * 2048; i < std::min(n, b * 2048 + 2048); ++i) with_bit += (values[i] & sparse) != 0;
                    for (const std::uint32_t x : xs) {
                        const std::uint32_t target = x - desc.for_base();
                        if (((target ^ desc.ones) & ~desc.live) != 0) continue;  // the caller answers these
                        if (!check_equal_by_candidates(desc, bytes, plan, d::side_gaps(side), target, scratch->marks,
                                                       values.data() + b * 2048, x, b))
                            continue;
                        ASSERT_FALSE(HasFailure());
                        // As equal_candidates.cpp decides (the sparse bit's list is the shortest that keeps).
                        const d::plan_groups g = d::groups_of(plan);
                        if ((x & sparse) != 0 && desc.length == 2048 && g.raw + g.mapped != 0 &&
                            with_bit * (std::min(g.raw, 2u) + g.mapped) >=
                                d::thresholds::equal_candidates_narrow_min_reads +
                                    d::thresholds::equal_candidates_narrow_plane_reads * (g.raw + g.mapped))
                            ++many;
                    }
                }
                for (const std::uint32_t x : xs) {
                    check_equality_against_loop(packed, values, x);
                    if (HasFatalFailure()) return;
                }
            });
            if (HasFatalFailure()) return;
        }
    }
    EXPECT_GT(many, 0u) << "no block answered from many candidates against raw planes";
}
