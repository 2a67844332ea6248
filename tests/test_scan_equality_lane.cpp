// The equality lane of the scans (src/ops/equality_lane.hpp): count_eq, find_eq and find_ne
// answer a sealed block from its summary's [min, max], on a dense interleaved block through
// the equal_interleaved kernel, or on a dense block of direct planes with list planes through
// equal_by_candidates (a count alone for count_eq, a plane it may leave uncounted for the
// finds), before the generic way; other blocks, and those equal_by_candidates declines, take
// the generic way. Against a plain loop on every path, on one column that mixes block kinds (interleaved
// blocks of a few planes, each framed from its own base; plain blocks; list-plane blocks;
// constant, sparse, sorted (delta) and zigzag blocks; a partial tail), uint32 and int32, for
// targets at each block's smallest and largest value, at a block's first and last position,
// inside a block's [min, max] but absent (only even values held), just outside it, and on
// blocks held for writes (the write-back block, whose summary and bytes are stale).
#include "scan_equality_check.hpp"
#include "test_support.hpp"

#include <bitplane/scan.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using bitplane_test::case_seed;
using bitplane_test::check_equality_against_loop;
using bitplane_test::on_every_path;

constexpr std::size_t bv = bitplane::block_values;

// Block k of the column (values as bits), by kind.
void append_block(std::vector<std::uint32_t>& bits, int kind, std::size_t count, std::mt19937_64& rng) {
    const std::uint32_t base = static_cast<std::uint32_t>(rng());
    for (std::size_t i = 0; i < count; ++i) {
        std::uint32_t x = 0;
        switch (kind) {
            case 0: x = base + static_cast<std::uint32_t>(rng() % 200) * 2; break;  // interleaved, even residuals
            case 1: x = static_cast<std::uint32_t>(rng() % 256); break;             // plain, 8 planes
            case 2: x = rng() % 64 == 0 ? static_cast<std::uint32_t>(rng() % 8) : 60u; break;  // lists
            case 3: x = 0xDEADBEEFu; break;                                           // constant
            case 4: x = rng() % 50 == 0 ? static_cast<std::uint32_t>(rng()) : 0u; break;       // sparse
            case 5: x = base / 2 + static_cast<std::uint32_t>(i) * 3; break;         // sorted (delta)
            case 6: x = static_cast<std::uint32_t>(static_cast<std::int32_t>(rng() % 201) - 100); break;  // zigzag
            default: x = static_cast<std::uint32_t>(rng()); break;                   // random 32-bit
        }
        bits.push_back(x);
    }
}

template <class T>
void check(const bitplane::vector<T>& v, const std::vector<T>& values, const std::vector<std::uint32_t>& targets) {
    for (const std::uint32_t target_bits : targets) {
        check_equality_against_loop(v, values, std::bit_cast<T>(target_bits));
        if (::testing::Test::HasFatalFailure()) return;
    }
}

template <class T>
void run_case(const std::vector<std::uint32_t>& bits, std::mt19937_64& rng) {
    std::vector<T> values(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) values[i] = std::bit_cast<T>(bits[i]);
    std::vector<std::uint32_t> targets;
    for (std::size_t first = 0; first < bits.size(); first += bv) {
        const std::size_t last = std::min(bits.size(), first + bv) - 1;
        const auto [lo, hi] = std::minmax_element(values.begin() + static_cast<std::ptrdiff_t>(first),
                                                  values.begin() + static_cast<std::ptrdiff_t>(last) + 1);
        for (const T t : {*lo, *hi}) {
            const std::uint32_t b = std::bit_cast<std::uint32_t>(t);
            targets.insert(targets.end(), {b, b - 1u, b + 1u});  // the bounds, and just past them
        }
        targets.insert(targets.end(), {bits[first], bits[last], bits[first + (last - first) / 2] | 1u});
    }
    targets.push_back(static_cast<std::uint32_t>(rng()));
    bitplane::vector<T> v{std::span<const T>(values)};
    {
        SCOPED_TRACE("sealed");
        check(v, values, targets);
    }
    // A block held for writes: its bytes and summary are stale, the lane must not read them.
    const std::size_t at = bv + rng() % bv;
    values[at] = std::bit_cast<T>(targets[rng() % targets.size()]);
    v.set(at, values[at]);
    SCOPED_TRACE("write-back block");
    check(v, values, targets);
}

TEST(ScanEqualityLane, MixedBlocksAgainstPlainLoopEveryPath) {
    BITPLANE_SEED_TRACE();
    on_every_path([&] {
        std::mt19937_64 rng(case_seed("equality-lane", static_cast<std::uint64_t>(bitplane::active_simd_path())));
        for (int round = 0; round < 3; ++round) {
            SCOPED_TRACE("round " + std::to_string(round));
            std::vector<std::uint32_t> bits;
            for (int kind = 0; kind < 8; ++kind) append_block(bits, kind, bv, rng);
            for (int k = 0; k < 4; ++k) append_block(bits, static_cast<int>(rng() % 8), bv, rng);
            append_block(bits, round % 2 == 0 ? 0 : 1, 1 + rng() % (bv - 1), rng);  // partial tail
            run_case<std::uint32_t>(bits, rng);
            run_case<std::int32_t>(bits, rng);
        }
    });
}

// Blocks of direct planes with list planes, shaped as the list-heavy categorical columns
// (issue #13: word_length, bam_flag, bam_ref_span, bam_tlen), each with its own frame of
// reference and signed: raw low planes with a short gap list above (lists that clear, few
// items); a frequent value with scattered others (every plane a list: the marked way for the
// frequent value, candidates for the rare ones); planes stored as complements of others
// (bam_flag's flag pairs); long lists that keep (equal_by_candidates declines: the generic
// way); runs of values (run lists). Every distinct value of each block is a target, with its
// neighbours.
std::uint32_t list_value(int kind, std::uint32_t base, std::size_t i, std::mt19937_64& rng) {
    switch (kind) {
        case 0: return base + static_cast<std::uint32_t>(rng() % 12) + (rng() % 90 == 0 ? 16u : 0u);
        case 1: return base + (rng() % 16 != 0 ? 9u : static_cast<std::uint32_t>(rng() % 256));
        case 2: {
            static constexpr std::uint32_t flags[] = {99, 147, 83, 163, 99, 147};
            return base + flags[rng() % 6] + (rng() % 200 == 0 ? 256u : 0u);
        }
        case 3: return base + (rng() % 3 == 0 ? 5u : static_cast<std::uint32_t>(rng() % 64) * 2);
        default: return base + static_cast<std::uint32_t>((i / 97) % 5) * 3 + (rng() % 300 == 0 ? 1u : 0u);
    }
}

template <class T>
void check_list_blocks(const std::vector<std::uint32_t>& bits) {
    std::vector<T> values(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) values[i] = std::bit_cast<T>(bits[i]);
    std::vector<std::uint32_t> targets(bits.begin(), bits.end());
    std::sort(targets.begin(), targets.end());
    targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
    if (targets.size() > 96) {  // every value of a few blocks' ranges is enough: a sample of them
        std::vector<std::uint32_t> sample;
        for (std::size_t k = 0; k < targets.size(); k += targets.size() / 64) sample.push_back(targets[k]);
        targets = sample;
    }
    for (const std::uint32_t t : std::vector<std::uint32_t>(targets)) targets.insert(targets.end(), {t + 1u, t - 1u});
    const bitplane::vector<T> v{std::span<const T>(values)};
    check(v, values, targets);
}

TEST(ScanEqualityLane, ListBlocksAgainstPlainLoopEveryPath) {
    BITPLANE_SEED_TRACE();
    on_every_path([&] {
        std::mt19937_64 rng(case_seed("equality-lane-lists", static_cast<std::uint64_t>(bitplane::active_simd_path())));
        for (int kind = 0; kind < 5; ++kind) {
            SCOPED_TRACE("kind " + std::to_string(kind));
            std::vector<std::uint32_t> bits;
            const std::size_t blocks = 3;
            const std::size_t n = blocks * bv + (kind % 2 == 0 ? 0 : 1 + rng() % (bv - 1));  // tails
            for (std::size_t b = 0; b * bv < n; ++b) {
                // A negative base (int32: a frame of reference below zero) or none.
                const std::uint32_t base = b % 2 == 0 ? 0u : static_cast<std::uint32_t>(-1000 - static_cast<int>(rng() % 1000));
                for (std::size_t i = b * bv; i < std::min(n, (b + 1) * bv); ++i) bits.push_back(list_value(kind, base, i, rng));
            }
            check_list_blocks<std::uint32_t>(bits);
            check_list_blocks<std::int32_t>(bits);
        }
    });
}

// Sizes at block edges (empty, one value, one block, one past it), every value equal or none.
TEST(ScanEqualityLane, EdgeSizesEveryPath) {
    BITPLANE_SEED_TRACE();
    on_every_path([&] {
        std::mt19937_64 rng(case_seed("equality-lane-edges", static_cast<std::uint64_t>(bitplane::active_simd_path())));
        for (const std::size_t n : {std::size_t{0}, std::size_t{1}, bv - 1, bv, bv + 1, 3 * bv}) {
            SCOPED_TRACE("n " + std::to_string(n));
            std::vector<std::uint32_t> bits;
            append_block(bits, 0, n, rng);
            std::vector<std::uint32_t> targets = {0u, ~0u};
            if (n != 0) targets.insert(targets.end(), {bits.front(), bits.back()});
            std::vector<std::uint32_t> same(n, 7u);
            const bitplane::vector<std::uint32_t> v{std::span<const std::uint32_t>(bits)};
            check(v, bits, targets);
            const bitplane::vector<std::uint32_t> c{std::span<const std::uint32_t>(same)};
            check(c, same, {7u, 6u, 8u});
        }
    });
}

}  // namespace
