// Choosing how each live plane of a block is stored.
//
// Every live plane j can be stored from the root (base zero or one, payload positions, runs
// or raw) or from another plane k (base k or ~k, payload = the difference as positions or
// runs, or nothing when equal). Costs come from the Hamming matrix (positions) and the
// Hamming matrix of transition planes (runs). The cheapest acyclic choice is a minimum
// spanning arborescence rooted at the constant planes; because the cost of storing j from k
// equals the cost of storing k from j, that arborescence is the minimum spanning tree of the
// undirected graph, oriented away from the root, which Prim's algorithm finds in O(n^2)
// (n <= 32). Prim's visiting order is a valid decode order: every parent comes first.
//
// Host and device code (host_device.hpp): the CPU encoder and the GPU one (cuda/encode.cu)
// call the same choose_references, so both pick the same encodings.
#pragma once

#include <bitplane/codec.hpp>

#include "host_device.hpp"
#include "plane_bits.hpp"
#include "plane_positions.hpp"
#include "plane_raw.hpp"
#include "plane_runs.hpp"
#include "thresholds.hpp"

#include <cstdint>

namespace bitplane::detail {

/// What the tree needs to know about one live plane.
struct plane_facts {
    std::uint8_t index = 0;        // plane number 0..31
    std::uint16_t popcount = 0;    // set bits
    std::uint16_t transitions = 0; // popcount of its transition plane
    bool first = false;            // bit 0
    bool end = false;              // bit length-1, the plane's last bit
};

struct plane_choice {
    codec::base_kind base = codec::base_kind::zero;
    std::uint8_t reference = 0;  // plane number of the base plane
    codec::payload_kind payload = codec::payload_kind::raw;
    std::uint16_t items = 0;     // positions for gaps too, until the encoder sizes them
    std::uint32_t cost = 0;      // descriptor + count + payload bytes
};

struct tree_input {
    std::uint32_t count = 0;     // live planes
    std::uint32_t length = 0;    // bits per plane
    const plane_facts* facts = nullptr;
    const std::uint16_t* hamming = nullptr;      // count x count
    const std::uint16_t* transitions = nullptr;  // count x count, transition planes
    bool references = true;  // may planes be stored from other planes?
    bool runs = true;        // may payloads be run lists? (transitions unused when not)
};

namespace reference_tree_impl {

using codec::base_kind;
using codec::payload_kind;

BITPLANE_HOST_DEVICE constexpr std::uint32_t listed_cost(std::uint32_t payload) noexcept {
    return thresholds::descriptor_bytes + thresholds::item_count_bytes + payload;
}

// Planes are padded with zeros to 2048 bits, so a plane's transitions count a change at
// position 0 (from the implicit zero before it) and, for short planes, at position `length`.
// Every run then has a start and an end transition, except a run reaching bit 2047.
BITPLANE_HOST_DEVICE inline std::uint32_t runs_of(std::uint32_t t, bool end, std::uint32_t length) noexcept {
    return runs_from_transitions(t, length == block_bits && end);
}

// Runs of ~d (restricted to `length` bits) from the transitions of d: only the changes at
// position 0 and at position `length` differ.
BITPLANE_HOST_DEVICE inline std::uint32_t complement_runs_of(std::uint32_t t, bool first, bool end, std::uint32_t length) noexcept {
    t = first ? t - 1 : t + 1;
    if (length < block_bits) t = end ? t - 1 : t + 1;
    return runs_of(t, !end, length);
}

struct candidate_set {
    plane_choice best{};
    BITPLANE_HOST_DEVICE void offer(base_kind base, std::uint8_t reference, payload_kind payload, std::uint32_t items,
               std::uint32_t cost) noexcept {
        if (cost < best.cost) best = {base, reference, payload, static_cast<std::uint16_t>(items), cost};
    }
};

// Offers every way to store a plane that differs from a base in `differing` bits: nothing,
// positions or runs on the base or on its complement. `t` is the transition count of the
// difference (or `no_transitions` when unknown), `first`/`end` its first and last bits.
inline constexpr std::uint32_t no_transitions = 0xFFFFFFFFu;

BITPLANE_HOST_DEVICE inline void offer_difference(candidate_set& c, base_kind base, base_kind complement_base, std::uint8_t reference,
                      std::uint32_t differing, std::uint32_t t, bool first, bool end, std::uint32_t length) {
    if (differing == 0) {
        c.offer(base, reference, payload_kind::none, 0, thresholds::descriptor_bytes);
        return;
    }
    if (differing == length) {
        c.offer(complement_base, reference, payload_kind::none, 0, thresholds::descriptor_bytes);
        return;
    }
    // Nothing below can cost less than a gap list of the fewer differing bits (a byte each,
    // positions take two) or a run list of the fewer runs: when even that is no cheaper than
    // the best choice so far, no offer would be taken (offers must be strictly cheaper).
    // Incompressible blocks skip every pair here.
    std::uint32_t runs = 0, complement_runs = 0;
    std::uint32_t bound = listed_cost(min32(differing, length - differing));
    if (t != no_transitions) {
        runs = runs_of(t, end, length);
        complement_runs = complement_runs_of(t, first, end, length);
        bound = min32(bound, listed_cost(runs_payload::payload_bytes(min32(runs, complement_runs))));
    }
    if (bound >= c.best.cost) return;
    c.offer(base, reference, payload_kind::positions, differing,
            listed_cost(positions_payload::payload_bytes(differing)));
    c.offer(complement_base, reference, payload_kind::positions, length - differing,
            listed_cost(positions_payload::payload_bytes(length - differing)));
    // Gaps are priced at their lower bound, one byte a position; the encoder prices the
    // chosen ones exactly and falls back to positions where escapes make them larger.
    c.offer(base, reference, payload_kind::gaps, differing, listed_cost(differing));
    c.offer(complement_base, reference, payload_kind::gaps, length - differing, listed_cost(length - differing));
    if (t == no_transitions) return;
    c.offer(base, reference, payload_kind::runs, runs, listed_cost(runs_payload::payload_bytes(runs)));
    c.offer(complement_base, reference, payload_kind::runs, complement_runs,
            listed_cost(runs_payload::payload_bytes(complement_runs)));
}

// A quick test before offer_difference: can storing a plane as a difference of `differing`
// bits from a base (or from its complement), with `t` transitions in the difference, cost
// less than `best`? A lower bound on every offer: a gap list of the fewer differing bits, or
// a run list of at least (t - 2) / 2 runs (runs_of and complement_runs_of shift t by at most
// 2). Most pairs of a noisy block fail it, and the tree then costs a comparison per pair.
BITPLANE_HOST_DEVICE inline bool could_improve(std::uint32_t differing, std::uint32_t t, std::uint32_t best, std::uint32_t length) noexcept {
    if (differing == 0 || differing == length) return thresholds::descriptor_bytes < best;
    std::uint32_t fewest = min32(differing, length - differing);
    if (t != no_transitions) fewest = min32(fewest, runs_payload::payload_bytes(t > 2 ? (t - 2) / 2 : 0));
    return listed_cost(fewest) < best;
}

BITPLANE_HOST_DEVICE inline bool any_pair_could_improve(const tree_input& in, const plane_choice* choices) noexcept {
    const std::uint32_t n = in.count;
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = i + 1; j < n; ++j)
            if (could_improve(in.hamming[i * n + j], in.runs ? in.transitions[i * n + j] : no_transitions,
                              max32(choices[i].cost, choices[j].cost), in.length))
                return true;
    return false;
}

}  // namespace reference_tree_impl

/// Fills order[0..count) with local plane indices in decode order and choices[local] with
/// how each is stored; returns the total cost in bytes.
BITPLANE_HOST_DEVICE inline std::uint32_t choose_references(const tree_input& in, std::uint8_t* order, plane_choice* choices) {
    using namespace reference_tree_impl;
    const std::uint32_t n = in.count;
    const std::uint32_t raw_cost = thresholds::descriptor_bytes + raw_payload::payload_bytes(in.length);
    bool in_tree[plane_count] = {};
    std::uint32_t total = 0;

    // Root edges: each plane stored on its own (base zero or one).
    for (std::uint32_t j = 0; j < n; ++j) {
        const plane_facts& f = in.facts[j];
        candidate_set c;
        c.best = {base_kind::zero, 0, payload_kind::raw, 0, raw_cost};
        offer_difference(c, base_kind::zero, base_kind::one, 0, f.popcount, in.runs ? f.transitions : no_transitions,
                         f.first, f.end, in.length);
        choices[j] = c.best;
    }
    // Prim: take the cheapest plane not yet in the tree (the lowest index among equals), then
    // let it offer itself as a base. The pick is a minimum over keys cost * 32 + index (costs
    // stay far below 2^26), with planes in the tree keyed out of reach: a branch-free scan.
    constexpr std::uint32_t taken = 0xFFFFFFFFu;
    std::uint32_t key[plane_count];
    for (std::uint32_t j = 0; j < n; ++j) key[j] = choices[j].cost << 5 | j;
    // When no pair of planes could improve on the dearer of their root choices (costs only
    // fall as the tree grows), no offer would ever be taken: the tree is the root choices,
    // picked in key order. Noisy blocks (every plane raw, no two alike) end here.
    if (!in.references || !any_pair_could_improve(in, choices)) {
        sort_small(key, n, [](std::uint32_t a, std::uint32_t b) { return a < b; });
        for (std::uint32_t step = 0; step < n; ++step) {
            order[step] = static_cast<std::uint8_t>(key[step] & 31);
            total += choices[key[step] & 31].cost;
        }
        return total;
    }
    for (std::uint32_t step = 0; step < n; ++step) {
        std::uint32_t least = taken;
        for (std::uint32_t j = 0; j < n; ++j) least = min32(least, key[j]);
        const std::uint32_t pick = least & 31;
        const std::uint32_t pick_cost = choices[pick].cost;
        key[pick] = taken;
        in_tree[pick] = true;
        order[step] = static_cast<std::uint8_t>(pick);
        total += pick_cost;
        const plane_facts& p = in.facts[pick];
        for (std::uint32_t j = 0; j < n; ++j) {
            if (in_tree[j]) continue;
            const std::uint32_t t = in.runs ? in.transitions[pick * n + j] : no_transitions;
            if (!could_improve(in.hamming[pick * n + j], t, choices[j].cost, in.length)) continue;
            const plane_facts& f = in.facts[j];
            candidate_set c;
            c.best = choices[j];
            offer_difference(c, base_kind::plane, base_kind::complement, p.index, in.hamming[pick * n + j], t,
                             p.first != f.first, p.end != f.end, in.length);
            choices[j] = c.best;
            key[j] = c.best.cost << 5 | j;
        }
    }
    return total;
}

}  // namespace bitplane::detail
