// What reduce.cpp and similarity.cpp share: the size check, the parallel reduction over
// blocks, and value planes with every plane written.
#pragma once

#include <bitplane/error.hpp>

#include "core/parallel.hpp"
#include "ops/block_view.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

namespace bitplane::detail {

/// Blocks per parallel task: a block costs about a microsecond, so 16 keep the task overhead
/// (and the per-task partial result) small against the work.
inline constexpr std::size_t reduce_grain = 16;

/// size_error naming both sizes when they differ.
inline void check_same_size(const char* what, std::size_t a, std::size_t b) {
    if (a != b)
        throw size_error(std::string("bitplane::") + what + ": sizes differ (" + std::to_string(a) + " and " +
                         std::to_string(b) + " values)");
}

/// Runs body(first, last, partial) over disjoint ranges of [0, blocks) (in parallel, see
/// parallel_for), each with its own value-initialized partial result, and folds every partial
/// into the total with combine(total, partial). The folds are exact integer additions, so the
/// result does not depend on how the blocks were split.
template <class R, class Body, class Combine>
R reduce_blocks(std::size_t blocks, Body&& body, Combine&& combine) {
    R total{};
    std::mutex mutex;
    parallel_for(blocks, reduce_grain, [&](std::size_t first, std::size_t last) {
        R partial{};
        body(first, last, partial);
        const std::lock_guard lock(mutex);
        combine(total, partial);
    });
    return total;
}

/// 32-bit words of a plane that can hold bits of a `length`-bit plane, rounded up to whole
/// 256-bit registers: the kernels then need no scalar tail, and the words past `length` are
/// zero (block_view guarantees it for every plane it wrote).
inline std::size_t plane_words_for(std::uint32_t length) noexcept {
    const std::size_t words = (static_cast<std::size_t>(length) + 31) / 32;
    return std::min<std::size_t>(plane_words, (words + 7) / 8 * 8);
}

/// value_planes() with every one of the 32 planes written (the ones that are all zero set to
/// zero), for kernels that take all planes at once. May zero planes of `view` that it did not
/// write (they are not part of it).
inline const block_planes& all_value_planes(block_view& view, block_planes& scratch, std::uint32_t& nonzero) {
    if (view.planes_are_values()) {
        const std::uint32_t written = view.nonzero();
        for (std::size_t j = 0; j < plane_count; ++j) {
            if (((written >> j) & 1u) == 0) view.planes.planes[j].fill(0u);
        }
    }
    return value_planes(view, scratch, nonzero);
}

}  // namespace bitplane::detail
