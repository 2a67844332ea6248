// The encoder's host+device part (src/codec/host_device.hpp, block_plan.hpp, value_transform.hpp),
// which the CPU encoder and the GPU one (cuda/) both call: its portable helpers against the
// standard calls they replace, the ranking from statistics against rank_transforms, the choice of
// candidates to try, and plan_smallest's order of candidates and tie rule with a scripted planner.
#include "codec/block_plan.hpp"
#include "codec/host_device.hpp"
#include "codec/value_transform.hpp"
#include "simd/kernels.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace bitplane_test;
namespace d = bitplane::detail;
using transform = bitplane::codec::transform;

TEST(CodecShared, BitHelpersMatchTheStandardCalls) {
    std::mt19937_64 rng(case_seed("bit helpers"));
    std::vector<std::uint32_t> xs = {0u, 1u, 2u, 0x80000000u, 0xFFFFFFFFu, 0x7FFFFFFFu, 0xFFFF0000u};
    for (int i = 0; i < 2000; ++i) xs.push_back(static_cast<std::uint32_t>(rng()) >> (rng() % 32));
    for (const std::uint32_t x : xs) {
        EXPECT_EQ(d::popcount32(x), static_cast<std::uint32_t>(std::popcount(x))) << x;
        EXPECT_EQ(d::countr_zero32(x), static_cast<std::uint32_t>(std::countr_zero(x))) << x;
        EXPECT_EQ(d::countl_zero32(x), static_cast<std::uint32_t>(std::countl_zero(x))) << x;
        EXPECT_EQ(d::countr_one32(x), static_cast<std::uint32_t>(std::countr_one(x))) << x;
        EXPECT_EQ(d::bit_width32(x), static_cast<std::uint32_t>(std::bit_width(x))) << x;
    }
}

TEST(CodecShared, SortSmallIsStable) {
    std::mt19937_64 rng(case_seed("sort small"));
    for (int round = 0; round < 500; ++round) {
        std::vector<std::pair<unsigned, unsigned>> items(rng() % 33);
        for (unsigned i = 0; i < items.size(); ++i) items[i] = {static_cast<unsigned>(rng() % 5), i};
        auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
        std::vector<std::pair<unsigned, unsigned>> expected = items;
        std::stable_sort(expected.begin(), expected.end(), by_key);
        d::sort_small(items.data(), static_cast<std::uint32_t>(items.size()), by_key);
        EXPECT_EQ(items, expected);
    }
}

TEST(CodecShared, PutLittleEndian) {
    std::byte out[8] = {};
    d::put_le<std::uint32_t>(out + 1, 0x04030201u);
    d::put_le<std::uint16_t>(out + 5, 0x0605u);
    for (int i = 1; i <= 6; ++i) EXPECT_EQ(static_cast<int>(out[i]), i);
    const std::uint32_t words[2] = {0x44332211u, 0x88776655u};
    std::byte raw[6] = {};
    d::put_words_le(raw, words, 5);
    EXPECT_EQ(static_cast<int>(raw[0]), 0x11);
    EXPECT_EQ(static_cast<int>(raw[4]), 0x55);
    EXPECT_EQ(static_cast<int>(raw[5]), 0);
}

// rank_from_stats over statistics folded one value at a time (as each GPU thread folds its
// values) ranks as rank_transforms (the SIMD stats kernel) does, on every shape.
TEST(CodecShared, RankFromFoldedStatsMatchesRankTransforms) {
    for (const shape& s : all_shapes())
        for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{700}, std::size_t{2048}})
            for (const bool is_signed : {false, true}) {
                SCOPED_TRACE(case_name(s, n, is_signed ? "signed" : "unsigned"));
                const std::vector<std::uint32_t> v = make_values(s, n, case_seed("rank", s.id(), n));
                d::value_stats folded;
                for (std::size_t k = 0; k < n; ++k) d::fold_value_stats(folded, v.data(), k);
                d::transform_choice expected[4], actual[4];
                const std::size_t e = d::rank_transforms(v, is_signed, expected);
                const std::uint32_t a = d::rank_from_stats(folded, v[0], static_cast<std::uint32_t>(n), is_signed, actual);
                ASSERT_EQ(a, e);
                for (std::uint32_t c = 0; c < a; ++c) {
                    EXPECT_EQ(actual[c].kind, expected[c].kind) << c;
                    EXPECT_EQ(actual[c].estimate, expected[c].estimate) << c;
                    EXPECT_EQ(actual[c].for_base, expected[c].for_base) << c;
                    EXPECT_EQ(actual[c].delta_first, expected[c].delta_first) << c;
                    EXPECT_EQ(actual[c].delta_min, expected[c].delta_min) << c;
                }
            }
}

TEST(CodecShared, TransformsToTryDropsWhatOptionsTurnOff) {
    using bitplane::codec::transform;
    const auto ranked = [] {
        std::array<d::transform_choice, 4> c{};
        c[0].kind = transform::delta, c[0].estimate = 3;
        c[1].kind = transform::frame_of_reference, c[1].estimate = 5;
        c[2].kind = transform::zigzag, c[2].estimate = 9;
        c[3].kind = transform::none, c[3].estimate = 12;
        return c;
    };
    const std::array<d::transform_choice, 4> order = ranked();
    d::transform_choice c[4];
    std::ranges::copy(order, c);
    EXPECT_EQ(d::transforms_to_try(c, 4, {}), 2u);  // the runner-up is within 2 planes
    std::ranges::copy(order, c);
    bitplane::codec::encode_options no_for;
    no_for.frame_of_reference = false;
    EXPECT_EQ(d::transforms_to_try(c, 4, no_for), 1u);  // zigzag (9) is too far behind delta (3)
    EXPECT_EQ(c[0].kind, transform::delta);
    EXPECT_EQ(c[1].kind, transform::zigzag);
    EXPECT_EQ(c[2].kind, transform::none);
    std::ranges::copy(order, c);
    bitplane::codec::encode_options only_none;
    only_none.frame_of_reference = only_none.delta = only_none.zigzag = false;
    EXPECT_EQ(d::transforms_to_try(c, 4, only_none), 1u);
    EXPECT_EQ(c[0].kind, transform::none);
}

// A planner that returns scripted sizes and records the calls plan_smallest makes.
struct scripted_planner {
    d::block_plan plans[2];
    std::vector<std::size_t> sizes;  // returned in call order by dense() and sparse()
    std::uint32_t zeros = 0;
    std::vector<std::string> calls;
    d::block_plan* storage(int i) { return &plans[i]; }
    void store_all_raw(d::block_plan& p, std::size_t bytes) { d::store_all_raw(p, bytes); }
    std::uint32_t apply(const d::transform_choice&) {
        calls.push_back("apply");
        return zeros;
    }
    std::size_t dense(d::block_plan& p, const d::transform_choice&) { return next(p, "dense"); }
    std::size_t sparse(d::block_plan& p, const d::transform_choice&) { return next(p, "sparse"); }
    std::size_t next(d::block_plan& p, const char* what) {
        calls.push_back(what);
        p.bytes = sizes.at(planned++);
        p.stored = stored;
        p.all_raw = all_raw;
        return p.bytes;
    }
    std::size_t planned = 0;
    std::uint32_t stored = 1;  // what every plan reports
    bool all_raw = false;
};

TEST(CodecShared, PlanSmallestKeepsTheFirstSmallest) {
    d::transform_choice candidates[4];
    {
        scripted_planner p;
        p.sizes = {100, 100};  // a tie: the first (dense, candidate 0) stays
        std::size_t best = 0;
        const d::block_plan* kept = d::plan_smallest(p, candidates, 2, nullptr, 0, 2048, {}, best);
        EXPECT_EQ(best, 100u);
        EXPECT_EQ(kept, &p.plans[1]);  // the first trial plan, swapped in as best
        EXPECT_EQ(p.calls, (std::vector<std::string>{"apply", "dense", "apply", "dense"}));
    }
    {
        scripted_planner p;
        p.zeros = 1024;  // half the values: sparse is tried after each dense plan
        p.sizes = {300, 200, 250, 199};
        std::size_t best = 0;
        const d::block_plan* kept = d::plan_smallest(p, candidates, 2, nullptr, 0, 2048, {}, best);
        EXPECT_EQ(best, 199u);
        EXPECT_EQ(kept->bytes, 199u);
        EXPECT_EQ(p.calls, (std::vector<std::string>{"apply", "dense", "sparse", "apply", "dense", "sparse"}));
    }
    {
        scripted_planner p;
        p.zeros = 1023;  // below half: no sparse plan
        p.sizes = {300};
        std::size_t best = 0;
        (void)d::plan_smallest(p, candidates, 1, nullptr, 0, 2048, {}, best);
        EXPECT_EQ(p.calls, (std::vector<std::string>{"apply", "dense"}));
    }
}

// The zero-preserving candidates are planned last, sparse only, only where the best plan so far
// stores planes that are not all raw and their zeros make the sparse layout worth trying; one
// replaces the best only at 14/16 of its bytes or less.
TEST(CodecShared, PlanSmallestTriesZeroPreservingCandidatesLastAndKeepsThemOnlyWhenClearlySmaller) {
    static_assert(d::thresholds::zero_preserving_max_sixteenths == 14, "the sizes below assume 14/16");
    d::transform_choice candidates[4];
    d::transform_choice zero_preserving[2] = {{transform::delta, 0, 5, 0, 0}, {transform::zigzag, 0, 0, 0, 0}};
    {
        scripted_planner p;
        p.zeros = 1792;
        p.sizes = {1600, 1700, 1401, 1400};  // 1400 <= 1600 * 14 / 16, 1401 is not
        std::size_t best = 0;
        const d::block_plan* kept = d::plan_smallest(p, candidates, 1, zero_preserving, 2, 2048, {}, best);
        EXPECT_EQ(best, 1400u);
        EXPECT_EQ(kept->bytes, 1400u);
        EXPECT_EQ(p.calls, (std::vector<std::string>{"apply", "dense", "sparse", "apply", "sparse", "apply", "sparse"}));
    }
    {
        scripted_planner p;
        p.zeros = 1792;
        p.sizes = {1600, 1700, 1401};  // not clearly smaller: the dense plan stays
        std::size_t best = 0;
        (void)d::plan_smallest(p, candidates, 1, zero_preserving, 1, 2048, {}, best);
        EXPECT_EQ(best, 1600u);
    }
    {
        scripted_planner p;
        p.zeros = 1792;
        p.all_raw = true;  // uniform data: nothing more is tried
        p.sizes = {1600, 1700};
        std::size_t best = 0;
        (void)d::plan_smallest(p, candidates, 1, zero_preserving, 2, 2048, {}, best);
        EXPECT_EQ(p.calls, (std::vector<std::string>{"apply", "dense", "sparse"}));
    }
    {
        scripted_planner p;
        p.zeros = 1792;
        p.stored = 0;  // a constant block
        p.sizes = {9, 20};
        std::size_t best = 0;
        (void)d::plan_smallest(p, candidates, 1, zero_preserving, 2, 2048, {}, best);
        EXPECT_EQ(p.calls, (std::vector<std::string>{"apply", "dense", "sparse"}));
    }
    {
        scripted_planner p;
        p.zeros = 1791;  // below 14/16 zeros: no zero-preserving plan, only the ranked one's sparse plan
        p.sizes = {1600, 1700};
        std::size_t best = 0;
        (void)d::plan_smallest(p, candidates, 1, zero_preserving, 2, 2048, {}, best);
        EXPECT_EQ(p.calls, (std::vector<std::string>{"apply", "dense", "sparse", "apply", "apply"}));
    }
}

TEST(CodecShared, ZeroPreservingCandidates) {
    d::value_stats st;
    st.umin = 0;
    st.smin = -7;
    st.smax = 9;
    st.dmin = -16;
    st.dmax = 16;
    d::transform_choice out[3];
    d::transform_choice tried[1] = {{transform::frame_of_reference, static_cast<std::uint32_t>(-7), 0, 0, 5}};
    // signed with negatives: delta with minimum 0, then zigzag
    ASSERT_EQ(d::zero_preserving_candidates(st, 42, 2048, true, tried, 1, {}, out), 2u);
    EXPECT_EQ(out[0].kind, transform::delta);
    EXPECT_EQ(out[0].delta_first, 42u);
    EXPECT_EQ(out[0].delta_min, 0u);
    EXPECT_EQ(out[1].kind, transform::zigzag);
    // unsigned with zeros: delta, then none; none left out when it was tried already
    ASSERT_EQ(d::zero_preserving_candidates(st, 42, 2048, false, tried, 1, {}, out), 2u);
    EXPECT_EQ(out[1].kind, transform::none);
    const d::transform_choice none_tried[1] = {{transform::none, 0, 0, 0, 6}};
    EXPECT_EQ(d::zero_preserving_candidates(st, 42, 2048, false, none_tried, 1, {}, out), 1u);
    // differences that are never 0, one value, or the options off: nothing
    d::value_stats rising = st;
    rising.dmin = 1;
    rising.umin = 3;
    EXPECT_EQ(d::zero_preserving_candidates(rising, 42, 2048, false, tried, 1, {}, out), 0u);
    EXPECT_EQ(d::zero_preserving_candidates(rising, 42, 1, false, tried, 1, {}, out), 0u);
    bitplane::codec::encode_options dense_only;
    dense_only.sparse = false;
    EXPECT_EQ(d::zero_preserving_candidates(st, 42, 2048, true, tried, 1, dense_only, out), 0u);
}

}  // namespace
