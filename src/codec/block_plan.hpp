// The encoder's decisions, measured inputs in, a plan out: which candidates are planned, how
// the planes of one candidate are classified and stored (reference tree, exact gap sizes,
// all-raw or not), how a sparse block's mask is stored, and which plan is kept.
//
// Host and device code (host_device.hpp). The measuring (statistics, transposes, popcounts of
// transition planes, pair popcount matrices) is not here: the CPU encoder
// (block_encoder.cpp) measures with the SIMD kernel table, the GPU encoder
// (cuda/kernels/encode_block.cuh) with warp ballots and __popc, and both hand the measures to
// these same functions, so that both keep the same plan and write the same bytes.
#pragma once

#include "host_device.hpp"
#include "plane_bits.hpp"
#include "plane_gaps.hpp"
#include "plane_positions.hpp"
#include "plane_raw.hpp"
#include "reference_tree.hpp"
#include "thresholds.hpp"
#include "value_transform.hpp"

#include <cstddef>
#include <cstdint>

namespace bitplane::detail {

// Pair run counts are priced only between planes with at most this many transitions, and
// only when the two counts are within 2 * 64 of each other: runs(a ^ b) >= |T(a) - T(b)| / 2,
// and a run list of 64+ runs (258+ bytes) never beats raw bits. Skipping noisy planes halves
// the cost of measuring uniform data; what it can miss is two noisy planes whose XOR is a
// few long runs, which positions or raw then store instead.
inline constexpr std::uint32_t run_pricing_max_transitions = 256;
inline constexpr std::uint32_t run_pricing_max_difference = 128;
inline constexpr std::uint16_t unpriced = 0xFFFF;

/// Whether a plane with `transitions` transitions takes part in the pair run pricing (its
/// transition plane goes into the pair popcount matrix of transition planes).
BITPLANE_HOST_DEVICE constexpr bool priced_for_runs(std::uint32_t transitions) noexcept {
    return transitions <= run_pricing_max_transitions;
}

// Everything needed to write one candidate encoding, and its exact size, so that candidates
// are compared by planning them and only the winner is written.
struct block_plan {
    transform_choice transform;
    bool sparse = false;
    std::uint32_t count = 0;   // values in the block (bits of the mask plane)
    std::uint32_t length = 0;  // bits per value plane
    std::uint32_t live = 0;
    std::uint32_t ones = 0;
    std::uint32_t stored = 0;
    std::uint8_t index[plane_count] = {};  // plane number of each stored plane (ascending)
    std::uint8_t order[plane_count] = {};  // decode order, as positions in index[]
    plane_choice choices[plane_count];
    bool all_raw = false;
    plane mask{};                          // sparse only
    plane_choice mask_choice;
    std::size_t bytes = 0;                 // exact encoded size
    block_planes planes;                   // the residuals' planes (live ones valid)
};

BITPLANE_HOST_DEVICE constexpr std::uint32_t transform_header_bytes(const transform_choice& t) noexcept {
    return t.kind == codec::transform::frame_of_reference ? 4 : t.kind == codec::transform::delta ? 8 : 0;
}

/// Starts a plan of `count` values; returns the bytes of its flags, transform fields and (for
/// the sparse layout) stored-value count.
BITPLANE_HOST_DEVICE inline std::size_t start_plan(block_plan& plan, const transform_choice& t, bool sparse,
                                                   std::uint32_t count) noexcept {
    plan.transform = t;
    plan.sparse = sparse;
    plan.count = count;
    return 1 + transform_header_bytes(t) + (sparse ? 2 : 0);
}

/// Whether the sparse layout is worth planning for residuals with `zeros` zeros among `count`.
BITPLANE_HOST_DEVICE constexpr bool sparse_worth_trying(std::uint32_t zeros, std::uint32_t count,
                                                        const codec::encode_options& options) noexcept {
    return options.sparse && zeros < count && zeros * 16 >= count * thresholds::sparse_min_zero_sixteenths;
}

/// Classifies the planes of `length` values whose OR is `any` and AND is `all`: all-one planes
/// are elided (ones mask), the others that vary are stored (index[] in ascending order).
/// Returns the bytes of the live and ones masks.
BITPLANE_HOST_DEVICE inline std::size_t classify_planes(block_plan& plan, std::uint32_t any, std::uint32_t all,
                                                        std::uint32_t length) noexcept {
    plan.length = length;
    plan.ones = all;
    plan.live = any & ~all;
    plan.stored = popcount32(plan.live);
    std::uint32_t j = 0;
    for (std::uint32_t bits = plan.live; bits; bits &= bits - 1, ++j) plan.index[j] = static_cast<std::uint8_t>(countr_zero32(bits));
    return 4 + (plan.ones ? 4 : 0);
}

/// The facts of stored plane j that its bits give (its transitions are measured apart).
BITPLANE_HOST_DEVICE inline plane_facts facts_of(const block_plan& plan, std::uint32_t j) noexcept {
    plane_facts f;
    const plane& p = plan.planes.planes[plan.index[j]];
    f.index = plan.index[j];
    f.first = test_bit(p, 0);
    f.end = test_bit(p, plan.length - 1);
    return f;
}

// Gap payloads were chosen at their lower bound; size them exactly now and fall back to a
// position list where escapes make the gaps larger. Keeps `cost` exact.
// The difference is read a word at a time (value ^ base, complemented within the plane's
// length for the one and complement bases) instead of being built.
BITPLANE_HOST_DEVICE inline void size_gaps(plane_choice& c, const plane& value, const block_planes& planes,
                                           std::uint32_t length) noexcept {
    if (c.payload != codec::payload_kind::gaps) return;
    const bool referenced = c.base == codec::base_kind::plane || c.base == codec::base_kind::complement;
    const bool flipped = c.base == codec::base_kind::one || c.base == codec::base_kind::complement;
    const plane& reference = planes.planes[c.reference];
    const auto difference = [&](std::uint32_t w) {
        const std::uint32_t x = value[w] ^ (referenced ? reference[w] : 0u);
        if (!flipped) return x;
        const std::uint32_t first = w * 32;
        const std::uint32_t within = first >= length ? 0u : length - first >= 32 ? ~0u : (1u << (length - first)) - 1;
        return ~x & within;
    };
    // A plane stored against zero (usually a sparse block's mask) is its own difference:
    // payload_bytes counts its zero words with SIMD where the host has it.
    const std::uint32_t bytes = referenced || flipped ? gaps_payload::payload_bytes_of(difference, c.items)
                                                      : gaps_payload::payload_bytes(value, c.items);
    const std::uint32_t listed = thresholds::descriptor_bytes + thresholds::item_count_bytes;
    if (bytes > positions_payload::payload_bytes(c.items)) {
        c.payload = codec::payload_kind::positions;
        c.cost = listed + positions_payload::payload_bytes(c.items);
    } else {
        c.items = static_cast<std::uint16_t>(bytes);
        c.cost = listed + bytes;
    }
}

// Finishes the tree's choices for the plan's stored planes: sizes gap payloads exactly, then
// compares with storing every plane raw, which needs no descriptors and so can win where the
// tree saved less than 2 bytes a plane (short planes, few references). Returns the bytes of
// the descriptors and payloads.
BITPLANE_HOST_DEVICE inline std::size_t settle_choices(block_plan& plan, const block_planes& planes) noexcept {
    const std::uint32_t n = plan.stored;
    for (std::uint32_t j = 0; j < n; ++j) size_gaps(plan.choices[j], planes.planes[plan.index[j]], planes, plan.length);
    std::size_t tree_bytes = 0;
    for (std::uint32_t j = 0; j < n; ++j) tree_bytes += plan.choices[j].cost;
    const std::uint32_t raw_plane = raw_payload::payload_bytes(plan.length);
    const std::size_t raw_bytes = std::size_t{n} * raw_plane;
    plan.all_raw = raw_bytes <= tree_bytes;
    if (plan.all_raw)
        for (std::uint32_t j = 0; j < n; ++j)
            plan.choices[j] = {codec::base_kind::zero, 0, codec::payload_kind::raw, 0, raw_plane};
    return plan.all_raw ? raw_bytes : tree_bytes;
}

// What a container keeps in memory beside a block for reads (direct_access.hpp, read_side),
// as the planner estimates it: a gap list of at least the mapped bound gets a 2048-bit map
// and 4 rank words, a shorter one its decoded positions (2 bytes a payload byte, rounded up
// to 16 positions); block_reader.cpp checks these against value_reader.hpp's.
inline constexpr std::uint32_t side_map_bytes = 4 * (plane_words + 4);
BITPLANE_HOST_DEVICE constexpr std::uint32_t side_listed_bytes(std::uint32_t payload_bytes) noexcept {
    return (payload_bytes + 15) / 16 * 16 * 2;
}
// The words of a read plan (direct_access.hpp, read_plan) besides its entries, with the side's
// header word (its filter, where it gets one, is left out).
inline constexpr std::uint32_t side_plan_fixed_words = 4;

/// The bytes a dense full block's stored planes take in memory as `plan` stores them (not
/// all-raw): descriptors and payloads, the side entries of its gap lists, and its read plan.
BITPLANE_HOST_DEVICE inline std::size_t planes_memory_bytes(const block_plan& plan) noexcept {
    const bool delta = plan.transform.kind == codec::transform::delta;
    const std::uint32_t mapped = delta ? thresholds::read_bitmap_min_delta_gaps_bytes : thresholds::read_bitmap_min_gaps_bytes;
    std::size_t bytes = 0, side = 0;
    std::uint32_t lists = 0, plan_words = side_plan_fixed_words;
    for (std::uint32_t j = 0; j < plan.stored; ++j) {
        const plane_choice& c = plan.choices[j];
        bytes += c.cost;
        switch (c.payload) {
        case codec::payload_kind::gaps:
            side += c.items >= mapped ? side_map_bytes : side_listed_bytes(c.items);
            plan_words += 1;
            ++lists;
            break;
        case codec::payload_kind::positions:
        case codec::payload_kind::runs:
            plan_words += 2;
            ++lists;
            break;
        case codec::payload_kind::raw: plan_words += 1; break;
        default: break;
        }
        plan_words += c.base == codec::base_kind::plane || c.base == codec::base_kind::complement ? 1 : 0;
    }
    if (lists >= (delta ? thresholds::read_plan_min_delta_lists : thresholds::read_plan_min_lists)) side += 4 * plan_words;
    return bytes + side;
}

/// The bytes of the kept plan of a dense full block stored all-raw, where that costs at most
/// thresholds::read_raw_max_eighths / 8 of what its planes take in memory as they are
/// (planes_memory_bytes): interleaved, a random read finds its value in one or two cache lines
/// (direct_access.hpp), where lists cost a line and a walk or a map each; 0 where the plan is
/// kept as it is. Candidates are still compared by their smallest bytes (plan_smallest); only
/// the winner's planes change (store_all_raw). Reads the plan only: on the GPU every thread of
/// the CTA runs it on the shared plan.
BITPLANE_HOST_DEVICE inline std::size_t raw_for_reads_bytes(const block_plan& plan, std::size_t bytes) noexcept {
    if (plan.sparse || plan.all_raw || plan.stored == 0 || plan.length != block_values) return 0;
    std::size_t tree_bytes = 0;
    for (std::uint32_t j = 0; j < plan.stored; ++j) tree_bytes += plan.choices[j].cost;
    const std::uint32_t raw_plane = raw_payload::payload_bytes(plan.length);
    const std::size_t raw_bytes = std::size_t{plan.stored} * raw_plane;
    const bool wide = plan.transform.kind == codec::transform::none && plan.stored >= thresholds::read_raw_wide_min_planes;
    const std::size_t eighths = wide ? thresholds::read_raw_wide_max_eighths : thresholds::read_raw_max_eighths;
    if (raw_bytes * 8 > planes_memory_bytes(plan) * eighths) return 0;
    return bytes - tree_bytes + raw_bytes;
}

/// Stores every planned plane of `plan` raw (all-raw), `bytes` in all (raw_for_reads_bytes).
/// The planner's store_all_raw calls it (once a CTA on the GPU).
BITPLANE_HOST_DEVICE inline void store_all_raw(block_plan& plan, std::size_t bytes) noexcept {
    const std::uint32_t raw_plane = raw_payload::payload_bytes(plan.length);
    plan.all_raw = true;
    for (std::uint32_t j = 0; j < plan.stored; ++j)
        plan.choices[j] = {codec::base_kind::zero, 0, codec::payload_kind::raw, 0, raw_plane};
    plan.bytes = bytes;
}

/// What was measured on the stored planes of a plan (stored = n, in index[] order).
struct plane_measures {
    plane_facts* facts = nullptr;                    // n: index, first, end, transitions (runs only)
    const std::uint16_t* hamming = nullptr;          // n x n pair popcounts, diagonal = popcount
    const std::uint32_t* priced = nullptr;           // stored planes with priced_for_runs(transitions)
    std::uint32_t priced_count = 0;
    const std::uint16_t* pair_transitions = nullptr; // priced_count^2 pair popcounts of their
                                                     // transition planes (read when priced_count > 1)
    std::uint16_t* transition_matrix = nullptr;      // n x n scratch (runs only)
};

/// Picks how each stored plane of `plan` is stored (the reference tree over the measured
/// costs, then settle_choices); returns the bytes of the descriptors and payloads.
BITPLANE_HOST_DEVICE inline std::size_t choose_plane_encodings(block_plan& plan, const plane_measures& m,
                                                               const codec::encode_options& options) noexcept {
    const std::uint32_t n = plan.stored;
    for (std::uint32_t j = 0; j < n; ++j) m.facts[j].popcount = m.hamming[j * n + j];
    const std::uint16_t* transition_matrix = nullptr;
    if (options.runs) {
        for (std::uint32_t e = 0; e < n * n; ++e) m.transition_matrix[e] = unpriced;
        if (m.priced_count > 1)
            for (std::uint32_t a = 0; a < m.priced_count; ++a)
                for (std::uint32_t b = 0; b < m.priced_count; ++b) {
                    const std::uint32_t ta = m.facts[m.priced[a]].transitions, tb = m.facts[m.priced[b]].transitions;
                    if ((ta > tb ? ta - tb : tb - ta) < run_pricing_max_difference)
                        m.transition_matrix[m.priced[a] * n + m.priced[b]] = m.pair_transitions[a * m.priced_count + b];
                }
        transition_matrix = m.transition_matrix;
    }
    choose_references({n, plan.length, m.facts, m.hamming, transition_matrix, options.references, options.runs},
                      plan.order, plan.choices);
    return settle_choices(plan, plan.planes);
}

/// How a sparse plan's mask (plan.mask, `kept` bits set among plan.count, `transitions`
/// = popcount of its transition plane) is stored: on its own, the reference tree with a
/// single node. Returns its cost in bytes (descriptor, count, payload).
BITPLANE_HOST_DEVICE inline std::uint32_t choose_mask(block_plan& plan, std::uint32_t kept, std::uint32_t transitions,
                                                      const codec::encode_options& options) noexcept {
    plane_facts f;
    f.popcount = static_cast<std::uint16_t>(kept);
    f.transitions = static_cast<std::uint16_t>(transitions);
    f.first = test_bit(plan.mask, 0);
    f.end = test_bit(plan.mask, plan.count - 1);
    const std::uint16_t none = 0;
    std::uint8_t order = 0;
    choose_references({1, plan.count, &f, &none, &none, options.references, options.runs}, &order, &plan.mask_choice);
    size_gaps(plan.mask_choice, plan.mask, plan.planes, plan.count);
    return plan.mask_choice.cost;
}

/// Plans every candidate worth trying and returns the smallest plan (the first among equals),
/// its size in `best_bytes`. `candidates[0 .. tries)` come from rank_from_stats and
/// transforms_to_try, `zero_preserving[0 .. zero_count)` from zero_preserving_candidates:
/// these are planned after the others, sparse only, only where the best so far stores planes and
/// not all raw (constant and uniform blocks pay nothing for them) and nearly all their residuals are zero
/// (thresholds::zero_preserving_min_zero_sixteenths),
/// and kept only where they are clearly smaller (thresholds::zero_preserving_max_sixteenths):
/// a sparse delta block is slower to operate on than a dense one. The planner measures and
/// plans; it provides:
///   block_plan* storage(int i)                  two plans (i = 0, 1) to plan into
///   std::uint32_t apply(const transform_choice&)   residuals of the values; returns their zeros
///   std::size_t dense(block_plan&, const transform_choice&)    plans the dense layout
///   std::size_t sparse(block_plan&, const transform_choice&)   plans the sparse layout
///   void store_all_raw(block_plan&, std::size_t bytes)       rewrites the kept plan all-raw
///                                                  (block_plan.hpp store_all_raw)
/// On the GPU every thread of the block's CTA runs this with the same results from the
/// planner (its calls are collective), so all take the same branches.
BITPLANE_EXEC_CHECK_DISABLE
template <class Planner>
BITPLANE_HOST_DEVICE inline block_plan* plan_smallest(Planner& planner, const transform_choice* candidates,
                                                      std::uint32_t tries, const transform_choice* zero_preserving,
                                                      std::uint32_t zero_count, std::uint32_t count,
                                                      const codec::encode_options& options, std::size_t& best_bytes) {
    block_plan* best = planner.storage(0);
    block_plan* trial = planner.storage(1);
    best_bytes = 0;
    auto consider = [&](std::size_t bytes) {
        if (best_bytes == 0 || bytes < best_bytes) {
            swap_values(best, trial);
            best_bytes = bytes;
        }
    };
    for (std::uint32_t c = 0; c < tries; ++c) {
        const std::uint32_t zeros = planner.apply(candidates[c]);
        consider(planner.dense(*trial, candidates[c]));
        if (sparse_worth_trying(zeros, count, options)) consider(planner.sparse(*trial, candidates[c]));
    }
    if (best->stored == 0 || best->all_raw) return best;  // constant or uniform: nothing to gain
    for (std::uint32_t c = 0; c < zero_count; ++c) {
        const std::uint32_t zeros = planner.apply(zero_preserving[c]);
        if (zeros * 16 < count * thresholds::zero_preserving_min_zero_sixteenths) continue;
        const std::size_t bytes = planner.sparse(*trial, zero_preserving[c]);
        if (bytes * 16 <= best_bytes * thresholds::zero_preserving_max_sixteenths) {
            swap_values(best, trial);
            best_bytes = bytes;
        }
    }
    if (options.raw_for_reads) {
        const std::size_t raw_bytes = raw_for_reads_bytes(*best, best_bytes);
        if (raw_bytes != 0) {
            planner.store_all_raw(*best, raw_bytes);
            best_bytes = raw_bytes;
        }
    }
    return best;
}

}  // namespace bitplane::detail
