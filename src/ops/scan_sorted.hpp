// Scans of sorted delta blocks by binary search (scan_block.cpp's entry points ask here before
// a delta block is decoded).
//
// A dense delta block whose steps are all >= 0 holds keys key(first) + u_i with u_i
// non-decreasing (when they cannot pass 2^32), so the positions that pass an interval test are
// one range of positions, or the complement of one: two lower bounds over u, each found from
// the vector's checkpoint sums (one every 64 positions: which window holds it, no plane read)
// and then a binary search of at most 6 reads inside that window (read_value). Sorted columns
// (bed_start: start positions, sorted per chromosome) leave the few blocks whose [min, max]
// holds an equality's value, and those cost ~19K instructions each decoded and tested
// whole (callgrind, AVX2), where two searches read ~12 values.
#pragma once

#include "ops/scan_block.hpp"

#include <cstdint>

namespace bitplane::detail {

/// Positions [begin, end) of a block, or (inside false) every position of [0, length) outside them.
struct sorted_answer {
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    std::uint32_t length = 0;
    bool inside = true;

    [[nodiscard]] std::uint32_t count() const noexcept { return inside ? end - begin : length - (end - begin); }
    [[nodiscard]] block_answer answer() const noexcept {
        const std::uint32_t n = count();
        return n == 0 ? block_answer::none : n == length ? block_answer::all : block_answer::some;
    }
    /// The passing positions as a plane (bits at or beyond length clear).
    void write(plane& out) const noexcept;
};

/// The positions of sealed block `block` of `v` that pass `test` (an interval), where the
/// block is a dense delta block of non-decreasing keys whose checkpoint sums the vector keeps;
/// false otherwise (`out` untouched), and the block goes the usual way.
bool scan_sorted_delta(const vector_core& v, std::size_t block, const scan_test& test, sorted_answer& out) noexcept;

}  // namespace bitplane::detail
