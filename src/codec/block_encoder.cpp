// Encoding a block: pick a value transform and a layout, slice the residuals into planes,
// measure the planes (Hamming matrices of the planes and of their transition planes), pick
// each plane's encoding with the reference tree, and write the bytes block_format.hpp lays
// out. Candidates are encoded in full and the smallest kept, so the estimates only decide
// what is tried, never what is correct.
#include "block_format.hpp"
#include "plane_bits.hpp"
#include "plane_gaps.hpp"
#include "plane_positions.hpp"
#include "plane_raw.hpp"
#include "plane_runs.hpp"
#include "reference_tree.hpp"
#include "simd/kernels.hpp"
#include "thresholds.hpp"
#include "value_transform.hpp"

#include <bitplane/error.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace bitplane::detail {

namespace {

using codec::base_kind;
using codec::payload_kind;

// Pair run counts are priced only between planes with at most this many transitions, and
// only when the two counts are within 2 * 64 of each other: runs(a ^ b) >= |T(a) - T(b)| / 2,
// and a run list of 64+ runs (258+ bytes) never beats raw bits. Skipping noisy planes halves
// the cost of measuring uniform data; what it can miss is two noisy planes whose XOR is a
// few long runs, which positions or raw then store instead.
constexpr std::uint32_t run_pricing_max_transitions = 256;
constexpr std::uint32_t run_pricing_max_difference = 128;
constexpr std::uint16_t unpriced = 0xFFFF;

class block_writer {
public:
    explicit block_writer(std::byte* out) noexcept : out_(out) {}
    template <class T>
    void put(T value) noexcept {
        store_le<T>(out_ + size_, value);
        size_ += sizeof(T);
    }
    [[nodiscard]] std::byte* cursor() noexcept { return out_ + size_; }
    void advance(std::uint32_t bytes) noexcept { size_ += bytes; }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }

private:
    std::byte* out_;
    std::size_t size_ = 0;
};

plane base_plane(const plane_choice& c, const block_planes& planes, std::uint32_t length) {
    switch (c.base) {
        case base_kind::zero: return plane{};
        case base_kind::one: return ones_plane(length);
        case base_kind::plane: return planes.planes[c.reference];
        case base_kind::complement: return complement(planes.planes[c.reference], length);
    }
    return plane{};
}

bool counted(payload_kind kind) noexcept {
    return kind == payload_kind::positions || kind == payload_kind::runs || kind == payload_kind::gaps;
}

// Gap payloads were chosen at their lower bound; size them exactly now and fall back to a
// position list where escapes make the gaps larger. Keeps `cost` exact.
// The difference is read a word at a time (value ^ base, complemented within the plane's
// length for the one and complement bases) instead of being built.
void size_gaps(plane_choice& c, const plane& value, const block_planes& planes, std::uint32_t length) {
    if (c.payload != payload_kind::gaps) return;
    const bool referenced = c.base == base_kind::plane || c.base == base_kind::complement;
    const bool flipped = c.base == base_kind::one || c.base == base_kind::complement;
    const plane& reference = planes.planes[c.reference];
    const std::uint32_t bytes = gaps_payload::payload_bytes_of(
        [&](std::uint32_t w) {
            const std::uint32_t x = value[w] ^ (referenced ? reference[w] : 0u);
            if (!flipped) return x;
            const std::uint32_t first = w * 32;
            const std::uint32_t within = first >= length ? 0u : length - first >= 32 ? ~0u : (1u << (length - first)) - 1;
            return ~x & within;
        },
        c.items);
    const std::uint32_t listed = thresholds::descriptor_bytes + thresholds::item_count_bytes;
    if (bytes > positions_payload::payload_bytes(c.items)) {
        c.payload = payload_kind::positions;
        c.cost = listed + positions_payload::payload_bytes(c.items);
    } else {
        c.items = static_cast<std::uint16_t>(bytes);
        c.cost = listed + bytes;
    }
}

void put_descriptor(block_writer& w, std::uint8_t index, const plane_choice& c) {
    w.put<std::uint8_t>(static_cast<std::uint8_t>(index | (static_cast<unsigned>(c.payload) << 5)));
    w.put<std::uint8_t>(static_cast<std::uint8_t>(static_cast<unsigned>(c.base) | (c.reference << 2)));
    if (counted(c.payload)) w.put<std::uint16_t>(c.items);
}

void put_payload(block_writer& w, const plane& value, const plane_choice& c, const block_planes& planes,
                 std::uint32_t length) {
    if (c.payload == payload_kind::none) return;
    const plane diff = xor_planes(value, base_plane(c, planes, length));
    switch (c.payload) {
        case payload_kind::positions: w.advance(positions_payload::write(diff, w.cursor())); break;
        case payload_kind::runs: w.advance(runs_payload::write(diff, w.cursor())); break;
        case payload_kind::raw: w.advance(raw_payload::write(diff, length, w.cursor())); break;
        case payload_kind::gaps: w.advance(gaps_payload::write(diff, w.cursor())); break;
        case payload_kind::none: break;
    }
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

struct measure_scratch {
    alignas(64) std::uint32_t live[plane_count * plane_words];
    alignas(64) std::uint32_t transitions[plane_count * plane_words];
    alignas(64) std::uint32_t padded[block_values];
    std::uint16_t hamming[plane_count * plane_count];
    std::uint16_t pair_transitions[plane_count * plane_count];
    std::uint16_t transition_matrix[plane_count * plane_count];
};

std::uint32_t transform_header_bytes(const transform_choice& t) noexcept {
    switch (t.kind) {
        case codec::transform::frame_of_reference: return 4;
        case codec::transform::delta: return 8;
        default: return 0;
    }
}

// Finishes the tree's choices for the plan's stored planes: sizes gap payloads exactly, then
// compares with storing every plane raw, which needs no descriptors and so can win where the
// tree saved less than 2 bytes a plane (short planes, few references). Returns the bytes of
// the descriptors and payloads.
std::size_t settle_choices(block_plan& plan, const block_planes& planes) {
    const std::uint32_t n = plan.stored;
    for (std::uint32_t j = 0; j < n; ++j) size_gaps(plan.choices[j], planes.planes[plan.index[j]], planes, plan.length);
    std::size_t tree_bytes = 0;
    for (std::uint32_t j = 0; j < n; ++j) tree_bytes += plan.choices[j].cost;
    const std::uint32_t raw_plane = raw_payload::payload_bytes(plan.length);
    const std::size_t raw_bytes = std::size_t{n} * raw_plane;
    plan.all_raw = raw_bytes <= tree_bytes;
    if (plan.all_raw)
        for (std::uint32_t j = 0; j < n; ++j) plan.choices[j] = {base_kind::zero, 0, payload_kind::raw, 0, raw_plane};
    return plan.all_raw ? raw_bytes : tree_bytes;
}

// Slices `values` into planes and picks how each live plane is stored; returns the bytes
// the live/ones masks, descriptors and payloads will take.
std::size_t plan_planes(block_plan& plan, const kernel_table& kernels, measure_scratch& m,
                        const std::uint32_t* values, std::uint32_t length, const codec::encode_options& options) {
    std::uint32_t any = 0, all = ~0u;
    for (std::uint32_t i = 0; i < length; ++i) {
        any |= values[i];
        all &= values[i];
    }
    plan.length = length;
    plan.ones = all;
    plan.live = any & ~all;
    plan.stored = static_cast<std::uint32_t>(std::popcount(plan.live));
    std::size_t bytes = 4 + (plan.ones ? 4 : 0);
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
    {
        std::uint32_t j = 0;
        for (std::uint32_t bits = plan.live; bits; bits &= bits - 1, ++j) {
            plan.index[j] = static_cast<std::uint8_t>(std::countr_zero(bits));
            const plane& p = plan.planes.planes[plan.index[j]];
            std::memcpy(m.live + j * plane_words, p.data(), plane_bytes);
            facts[j].index = plan.index[j];
            facts[j].first = test_bit(p, 0);
            facts[j].end = test_bit(p, length - 1);
            if (!options.runs) continue;
            const plane t = transitions(p);
            facts[j].transitions = static_cast<std::uint16_t>(kernels.popcount_words(t.data(), plane_words));
            if (facts[j].transitions <= run_pricing_max_transitions) {
                std::memcpy(m.transitions + priced_count * plane_words, t.data(), plane_bytes);
                priced[priced_count++] = j;
            }
        }
    }
    kernels.pair_popcounts(m.live, n, m.hamming);
    for (std::uint32_t j = 0; j < n; ++j) facts[j].popcount = m.hamming[j * n + j];

    const std::uint16_t* transition_matrix = nullptr;
    if (options.runs) {
        std::fill(m.transition_matrix, m.transition_matrix + n * n, unpriced);
        if (priced_count > 1) {
            kernels.pair_popcounts(m.transitions, priced_count, m.pair_transitions);
            for (std::uint32_t a = 0; a < priced_count; ++a)
                for (std::uint32_t b = 0; b < priced_count; ++b) {
                    const std::uint32_t ta = facts[priced[a]].transitions, tb = facts[priced[b]].transitions;
                    if ((ta > tb ? ta - tb : tb - ta) < run_pricing_max_difference)
                        m.transition_matrix[priced[a] * n + priced[b]] = m.pair_transitions[a * priced_count + b];
                }
        }
        transition_matrix = m.transition_matrix;
    }
    choose_references({n, length, facts, m.hamming, transition_matrix, options.references, options.runs},
                      plan.order, plan.choices);
    return bytes + settle_choices(plan, plan.planes);
}

std::size_t plan_dense(block_plan& plan, const transform_choice& t, const std::uint32_t* residuals,
                       std::uint32_t count, const kernel_table& kernels, measure_scratch& m,
                       const codec::encode_options& options) {
    plan.transform = t;
    plan.sparse = false;
    plan.count = count;
    plan.bytes = 1 + transform_header_bytes(t) + plan_planes(plan, kernels, m, residuals, count, options);
    return plan.bytes;
}

// How a sparse plan's mask (plan.mask, `kept` bits set among plan.count) is stored: on its
// own, the reference tree with a single node.
void choose_mask(block_plan& plan, std::uint32_t kept, const kernel_table& kernels, const codec::encode_options& options) {
    plane_facts f;
    f.popcount = static_cast<std::uint16_t>(kept);
    f.transitions = static_cast<std::uint16_t>(kernels.popcount_words(transitions(plan.mask).data(), plane_words));
    f.first = test_bit(plan.mask, 0);
    f.end = test_bit(plan.mask, plan.count - 1);
    const std::uint16_t none = 0;
    std::uint8_t order = 0;
    choose_references({1, plan.count, &f, &none, &none, options.references, options.runs}, &order, &plan.mask_choice);
    size_gaps(plan.mask_choice, plan.mask, plan.planes, plan.count);
}

std::size_t plan_sparse(block_plan& plan, const transform_choice& t, const std::uint32_t* residuals,
                        std::uint32_t count, const kernel_table& kernels, measure_scratch& m,
                        const codec::encode_options& options) {
    plan.transform = t;
    plan.sparse = true;
    plan.count = count;
    alignas(64) std::uint32_t stored[block_values];
    const auto kept = static_cast<std::uint32_t>(
        kernels.split_nonzero ? kernels.split_nonzero(residuals, count, plan.mask.data(), stored)
                              : split_nonzero_portable(residuals, count, plan.mask.data(), stored));
    choose_mask(plan, kept, kernels, options);
    plan.bytes = 1 + transform_header_bytes(t) + 2 + plan.mask_choice.cost +
                 plan_planes(plan, kernels, m, stored, kept, options);
    return plan.bytes;
}

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

std::size_t write_plan(const block_plan& plan, const block_planes& planes, std::byte* out) {
    block_writer w(out);
    std::uint8_t flags = static_cast<std::uint8_t>(plan.transform.kind);
    if (plan.sparse) flags |= block_flags::sparse;
    if (plan.ones) flags |= block_flags::has_ones;
    if (plan.all_raw && plan.live) flags |= block_flags::all_raw;
    w.put<std::uint8_t>(flags);
    if (plan.transform.kind == codec::transform::frame_of_reference) w.put<std::uint32_t>(plan.transform.for_base);
    if (plan.transform.kind == codec::transform::delta) {
        w.put<std::uint32_t>(plan.transform.delta_first);
        w.put<std::uint32_t>(plan.transform.delta_min);
    }
    if (plan.sparse) {
        w.put<std::uint16_t>(static_cast<std::uint16_t>(plan.length));
        put_descriptor(w, 0, plan.mask_choice);
        put_payload(w, plan.mask, plan.mask_choice, planes, plan.count);
    }
    w.put<std::uint32_t>(plan.live);
    if (plan.ones) w.put<std::uint32_t>(plan.ones);
    const std::uint32_t n = plan.stored;
    if (n && plan.all_raw && plan.length == block_values) {
        std::byte* cursor = w.cursor();
        for (std::uint32_t column = 0; column < plane_words; ++column)
            for (std::uint32_t j = 0; j < n; ++j)
                store_le<std::uint32_t>(cursor + interleaved_offset(column, j, n), planes.planes[plan.index[j]][column]);
        w.advance(n * static_cast<std::uint32_t>(plane_bytes));
    } else if (n && plan.all_raw) {
        for (std::uint32_t j = 0; j < n; ++j)
            put_payload(w, planes.planes[plan.index[j]], plan.choices[j], planes, plan.length);
    } else {
        for (std::uint32_t k = 0; k < n; ++k) put_descriptor(w, plan.index[plan.order[k]], plan.choices[plan.order[k]]);
        for (std::uint32_t k = 0; k < n; ++k)
            put_payload(w, planes.planes[plan.index[plan.order[k]]], plan.choices[plan.order[k]], planes, plan.length);
    }
    return w.size();
}

}  // namespace

}  // namespace bitplane::detail

namespace bitplane::codec {

std::size_t encode_block(std::span<const std::uint32_t> values, bool is_signed, std::span<std::byte> out,
                         const encode_options& options) {
    using namespace bitplane::detail;
    if (values.empty() || values.size() > block_values)
        throw size_error("encode_block: " + std::to_string(values.size()) + " values, expected 1..2048");
    if (out.size() < max_block_bytes)
        throw size_error("encode_block: output holds " + std::to_string(out.size()) + " bytes, needs " +
                         std::to_string(max_block_bytes));
    const auto count = static_cast<std::uint32_t>(values.size());
    const kernel_table& kernels = active_kernels();

    transform_choice candidates[4];
    std::size_t ranked = rank_transforms(values, is_signed, candidates);
    ranked = static_cast<std::size_t>(
        std::remove_if(candidates, candidates + ranked,
                       [&](const transform_choice& c) {
                           return (c.kind == transform::frame_of_reference && !options.frame_of_reference) ||
                                  (c.kind == transform::delta && !options.delta) ||
                                  (c.kind == transform::zigzag && !options.zigzag);
                       }) -
        candidates);
    std::size_t tries = 1;
    if (ranked > 1 && candidates[1].estimate <= candidates[0].estimate + thresholds::transform_runner_up_planes)
        tries = 2;

    encoder_state* state = thread_encoder_state();
    block_plan* best = &state->plans[0];
    block_plan* trial = &state->plans[1];
    measure_scratch& scratch = state->scratch;
    alignas(64) std::uint32_t residuals[block_values];
    std::size_t best_bytes = 0;
    auto consider = [&](std::size_t bytes) {
        if (best_bytes == 0 || bytes < best_bytes) {
            std::swap(best, trial);
            best_bytes = bytes;
        }
    };
    for (std::size_t c = 0; c < tries; ++c) {
        apply_transform(candidates[c], values, residuals);
        const auto zeros = static_cast<std::uint32_t>(std::count(residuals, residuals + count, 0u));
        consider(plan_dense(*trial, candidates[c], residuals, count, kernels, scratch, options));
        if (options.sparse && zeros < count && zeros * 16 >= count * thresholds::sparse_min_zero_sixteenths)
            consider(plan_sparse(*trial, candidates[c], residuals, count, kernels, scratch, options));
    }
    const std::size_t written = write_plan(*best, best->planes, out.data());
    if (written != best_bytes)
        throw std::logic_error("bitplane encoder: planned " + std::to_string(best_bytes) + " bytes, wrote " +
                               std::to_string(written));
    return written;
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
        const auto j = static_cast<std::uint8_t>(std::countr_zero(bits));
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
    choose_mask(plan, kept, active_kernels(), encode_options{});
    plan_own_planes(plan, planes, candidates, kept);
    return write_plan(plan, planes, out.data());
}

}  // namespace bitplane::codec
