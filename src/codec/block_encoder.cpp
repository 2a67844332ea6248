// Encoding a block on the CPU: pick a value transform and a layout, slice the residuals into
// planes, measure the planes (Hamming matrices of the planes and of their transition planes)
// with the SIMD kernel table, and hand the measures to the shared decisions (block_plan.hpp:
// reference tree, gap sizing, all-raw, the smallest candidate) and writer (block_writer.hpp),
// which the GPU encoder (cuda/) calls too. Candidates are encoded in full and the smallest
// kept, so the estimates only decide what is tried, never what is correct.
#include "block_encoder.hpp"
#include "block_plan.hpp"
#include "block_writer.hpp"
#include "plane_bits.hpp"
#include "reference_tree.hpp"
#include "simd/kernels.hpp"
#include "value_transform.hpp"

#include <bitplane/error.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace bitplane::detail {

namespace {

struct measure_scratch {
    alignas(64) std::uint32_t live[plane_count * plane_words];
    alignas(64) std::uint32_t transitions[plane_count * plane_words];
    alignas(64) std::uint32_t padded[block_values];
    std::uint16_t hamming[plane_count * plane_count];
    std::uint16_t pair_transitions[plane_count * plane_count];
    std::uint16_t transition_matrix[plane_count * plane_count];
};

// Slices `values` into planes, measures them and picks how each live plane is stored; returns
// the bytes the live/ones masks, descriptors and payloads will take.
std::size_t plan_planes(block_plan& plan, const kernel_table& kernels, measure_scratch& m,
                        const std::uint32_t* values, std::uint32_t length, const codec::encode_options& options) {
    std::uint32_t any = 0, all = ~0u;
    for (std::uint32_t i = 0; i < length; ++i) {
        any |= values[i];
        all &= values[i];
    }
    const std::size_t bytes = classify_planes(plan, any, all, length);
    if (!plan.live) return bytes;

    if (length == block_values) {
        kernels.transpose(values, plan.planes.planes[0].data());
    } else {
        std::copy_n(values, length, m.padded);
        std::fill(m.padded + length, m.padded + block_values, 0u);
        kernels.transpose(m.padded, plan.planes.planes[0].data());
    }

    const std::uint32_t n = plan.stored;
    plane_facts facts[plane_count];
    std::uint32_t priced[plane_count];  // stored planes whose pair runs are priced
    std::uint32_t priced_count = 0;
    for (std::uint32_t j = 0; j < n; ++j) {
        const plane& p = plan.planes.planes[plan.index[j]];
        std::memcpy(m.live + j * plane_words, p.data(), plane_bytes);
        facts[j] = facts_of(plan, j);
        if (!options.runs) continue;
        const plane t = transitions(p);
        facts[j].transitions = static_cast<std::uint16_t>(kernels.popcount_words(t.data(), plane_words));
        if (priced_for_runs(facts[j].transitions)) {
            std::memcpy(m.transitions + priced_count * plane_words, t.data(), plane_bytes);
            priced[priced_count++] = j;
        }
    }
    kernels.pair_popcounts(m.live, n, m.hamming);
    if (options.runs && priced_count > 1) kernels.pair_popcounts(m.transitions, priced_count, m.pair_transitions);
    return bytes + choose_plane_encodings(
                       plan, {facts, m.hamming, priced, priced_count, m.pair_transitions, m.transition_matrix}, options);
}

// The CPU's planner for plan_smallest (block_plan.hpp): residuals in a local array, measures
// by the SIMD kernels.
class cpu_planner {
public:
    cpu_planner(block_plan* plans, measure_scratch& m, std::span<const std::uint32_t> values,
                const codec::encode_options& options) noexcept
        : plans_(plans), m_(m), values_(values), count_(static_cast<std::uint32_t>(values.size())),
          kernels_(active_kernels()), options_(options) {}

    block_plan* storage(int i) noexcept { return &plans_[i]; }
    void store_all_raw(block_plan& plan, std::size_t bytes) noexcept { detail::store_all_raw(plan, bytes); }

    std::uint32_t apply(const transform_choice& t) noexcept {
        apply_transform(t, values_, residuals_);
        return static_cast<std::uint32_t>(std::count(residuals_, residuals_ + count_, 0u));
    }

    std::size_t dense(block_plan& plan, const transform_choice& t) {
        plan.bytes = start_plan(plan, t, false, count_) + plan_planes(plan, kernels_, m_, residuals_, count_, options_);
        return plan.bytes;
    }

    std::size_t sparse(block_plan& plan, const transform_choice& t) {
        const std::size_t header = start_plan(plan, t, true, count_);
        alignas(64) std::uint32_t stored[block_values];
        const auto kept = static_cast<std::uint32_t>(
            kernels_.split_nonzero ? kernels_.split_nonzero(residuals_, count_, plan.mask.data(), stored)
                                   : split_nonzero_portable(residuals_, count_, plan.mask.data(), stored));
        const std::uint32_t mask_cost = choose_mask(plan, kept, mask_transitions(plan.mask), options_);
        plan.bytes = header + mask_cost + plan_planes(plan, kernels_, m_, stored, kept, options_);
        return plan.bytes;
    }

    std::uint32_t mask_transitions(const plane& mask) const {
        return static_cast<std::uint32_t>(kernels_.popcount_words(transitions(mask).data(), plane_words));
    }

private:
    block_plan* plans_;
    measure_scratch& m_;
    std::span<const std::uint32_t> values_;
    std::uint32_t count_;
    const kernel_table& kernels_;
    const codec::encode_options& options_;
    alignas(64) std::uint32_t residuals_[block_values];
};

// Two plans, the best so far and the one being tried (the loser's storage is reused), and the
// measuring scratch: ~45 KiB that every call would otherwise allocate and zero.
struct encoder_state {
    block_plan plans[2];
    measure_scratch scratch;
};

encoder_state* thread_encoder_state() {
    thread_local const std::unique_ptr<encoder_state> state = std::make_unique<encoder_state>();
    return state.get();
}

}  // namespace

std::size_t encode_block(std::span<const std::uint32_t> values, bool is_signed, std::span<std::byte> out,
                         const codec::encode_options& options, value_stats& st) {
    if (values.empty() || values.size() > block_values)
        throw size_error("encode_block: " + std::to_string(values.size()) + " values, expected 1..2048");
    if (out.size() < codec::max_block_bytes)
        throw size_error("encode_block: output holds " + std::to_string(out.size()) + " bytes, needs " +
                         std::to_string(codec::max_block_bytes));
    const auto count = static_cast<std::uint32_t>(values.size());
    transform_choice candidates[4];
    active_kernels().stats(values.data(), values.size(), &st);
    const std::uint32_t ranked = rank_from_stats(st, values[0], count, is_signed, candidates);
    const std::uint32_t tries = transforms_to_try(candidates, ranked, options);
    transform_choice zero_preserving[3];
    const std::uint32_t zero_count =
        zero_preserving_candidates(st, values[0], count, is_signed, candidates, tries, options, zero_preserving);

    encoder_state* state = thread_encoder_state();
    cpu_planner planner(state->plans, state->scratch, values, options);
    std::size_t best_bytes = 0;
    const block_plan* best = plan_smallest(planner, candidates, tries, zero_preserving, zero_count, count, options, best_bytes);
    const std::size_t written = write_plan(*best, best->planes, out.data());
    if (written != best_bytes)
        throw std::logic_error("bitplane encoder: planned " + std::to_string(best_bytes) + " bytes, wrote " +
                               std::to_string(written));
    return written;
}

}  // namespace bitplane::detail

namespace bitplane::codec {

std::size_t encode_block(std::span<const std::uint32_t> values, bool is_signed, std::span<std::byte> out,
                         const encode_options& options) {
    detail::value_stats stats;
    return detail::encode_block(values, is_signed, out, options, stats);
}

}  // namespace bitplane::codec

namespace bitplane::codec {

namespace {

// The planes part of encode_planes and encode_sparse_planes: each candidate plane of `length`
// bits classified (all zero, all one, live) and stored on its own (no references, no runs).
void plan_own_planes(bitplane::detail::block_plan& plan, const block_planes& planes, std::uint32_t candidates,
                     std::uint32_t length) {
    using namespace bitplane::detail;
    const kernel_table& kernels = active_kernels();
    plan.transform = transform_choice{};
    plan.length = length;
    plan.live = plan.ones = 0;
    plane_facts facts[plane_count];
    std::uint32_t n = 0;
    for (std::uint32_t bits = candidates; bits; bits &= bits - 1) {
        const auto j = static_cast<std::uint8_t>(countr_zero32(bits));
        const plane& p = planes.planes[j];
        const auto set = static_cast<std::uint32_t>(kernels.popcount_words(p.data(), plane_words));
        if (set == 0) continue;
        if (set == length) {
            plan.ones |= 1u << j;
            continue;
        }
        plan.live |= 1u << j;
        plan.index[n] = j;
        facts[n].index = j;
        facts[n].popcount = static_cast<std::uint16_t>(set);
        facts[n].first = test_bit(p, 0);
        facts[n].end = test_bit(p, length - 1);
        ++n;
    }
    plan.stored = n;
    choose_references({n, length, facts, nullptr, nullptr, false, false}, plan.order, plan.choices);
    settle_choices(plan, planes);
}

void check_block_out(const char* what, std::size_t count, std::span<std::byte> out) {
    if (count == 0 || count > block_values)
        throw size_error(std::string(what) + ": " + std::to_string(count) + " values, expected 1..2048");
    if (out.size() < max_block_bytes)
        throw size_error(std::string(what) + ": output holds " + std::to_string(out.size()) + " bytes, needs " +
                         std::to_string(max_block_bytes));
}

}  // namespace

std::size_t encode_planes(const block_planes& planes, std::uint32_t candidates, std::size_t count,
                          std::span<std::byte> out) {
    using namespace bitplane::detail;
    check_block_out("encode_planes", count, out);
    block_plan& plan = thread_encoder_state()->plans[0];
    plan.sparse = false;
    plan.count = static_cast<std::uint32_t>(count);
    plan_own_planes(plan, planes, candidates, plan.count);
    return write_plan(plan, planes, out.data());
}

std::size_t encode_sparse_planes(const plane& mask, const block_planes& planes, std::uint32_t candidates,
                                 std::size_t count, std::span<std::byte> out) {
    using namespace bitplane::detail;
    check_block_out("encode_sparse_planes", count, out);
    const auto kept = static_cast<std::uint32_t>(active_kernels().popcount_words(mask.data(), plane_words));
    if (kept == 0) return encode_planes(planes, 0, count, out);  // all zero: a plain block
    block_plan& plan = thread_encoder_state()->plans[0];
    plan.sparse = true;
    plan.count = static_cast<std::uint32_t>(count);
    plan.mask = mask;
    choose_mask(plan, kept,
                static_cast<std::uint32_t>(active_kernels().popcount_words(transitions(mask).data(), plane_words)),
                encode_options{});
    plan_own_planes(plan, planes, candidates, kept);
    return write_plan(plan, planes, out.data());
}

}  // namespace bitplane::codec
