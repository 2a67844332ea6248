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
#pragma once

#include <bitplane/codec.hpp>

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

/// Fills order[0..count) with local plane indices in decode order and choices[local] with
/// how each is stored; returns the total cost in bytes.
std::uint32_t choose_references(const tree_input& in, std::uint8_t* order, plane_choice* choices);

}  // namespace bitplane::detail
