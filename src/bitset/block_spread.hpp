// A stored block's bits as 256 bytes, for the whole-block kernels of OR, XOR and NOT
// (block_union.cpp, block_complement.cpp): a full-length raw payload read in place, any other
// block spread into a plane.
//
// Positions are set with the word being built kept in a register and stored whole each step
// (sorted positions fill one word after another): OR-ing each bit into memory instead chains
// every position to the store of the one before it through store forwarding, which cost most of
// an OR of two 10% blocks.
#pragma once

#include "bitset/bitset_algebra.hpp"

#include <cstring>

namespace bitplane::detail {

/// Sets the bits of sorted distinct positions p[0..n) in `out`, whose other words are clear.
inline void spread_positions(plane& out, const std::uint16_t* p, std::uint32_t n) noexcept {
    std::uint64_t words[block_values / 64];
    std::memset(words, 0, sizeof(words));
    std::uint32_t current = 0;
    std::uint64_t acc = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t w = p[i] >> 6;
        // A mask, not a select: compilers turn the select into a branch, which the word
        // changes of random positions miss.
        acc = (acc & (std::uint64_t{0} - std::uint64_t{w == current})) | std::uint64_t{1} << (p[i] & 63);
        words[w] = acc;
        current = w;
    }
    std::memcpy(out.data(), words, sizeof(words));
}

/// Block `r`'s bits (len bits) as 256 bytes: a full-length raw payload in place, any other
/// block spread into `scratch`.
inline const void* spread_block(const block_ref& r, std::uint32_t len, plane& scratch,
                              const bitset_kernel_table& k) noexcept {
    const block_entry& e = *r.entry;
    switch (e.kind) {
        case block_kind::raw:
            if (len == block_values) return r.payload;
            scratch = plane{};
            std::memcpy(scratch.data(), r.payload, raw_plane_bytes(len));
            return scratch.data();
        case block_kind::positions:
        case block_kind::gaps: {
            position_buffer<> positions;
            const std::uint32_t n = block_positions(e, r.payload, len, positions.data(), k);
            spread_positions(scratch, positions.data(), n);
            return scratch.data();
        }
        case block_kind::runs:
            scratch = plane{};
            for (std::uint32_t i = 0; i < e.items; ++i)
                flip_range(scratch, load_le<std::uint16_t>(r.payload + 4 * i), load_le<std::uint16_t>(r.payload + 4 * i + 2));
            return scratch.data();
    }
    return r.payload;
}

}  // namespace bitplane::detail
