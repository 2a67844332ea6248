// Value transforms applied to a block before it is sliced into planes: frame of reference
// (subtract the minimum), delta (differences, minus the smallest difference) and zigzag
// (sign folded into bit 0). Plane operations work directly on frame-of-reference residuals;
// delta and zigzag blocks are decoded first.
#pragma once

#include <bitplane/codec.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane::detail {

struct parsed_block;

struct transform_choice {
    codec::transform kind = codec::transform::none;
    std::uint32_t for_base = 0;
    std::uint32_t delta_first = 0;
    std::uint32_t delta_min = 0;
    unsigned estimate = 0;  // live planes the residuals are expected to need
};

/// The transforms worth trying for `values`, best estimate first; returns how many were
/// written to `out` (at least 1: `none` is always a candidate).
std::size_t rank_transforms(std::span<const std::uint32_t> values, bool is_signed, transform_choice (&out)[4]);

/// residuals[i] = transform of values[i].
void apply_transform(const transform_choice& choice, std::span<const std::uint32_t> values,
                     std::uint32_t* residuals) noexcept;

/// In place: residuals -> values, as the parsed block's header says.
void undo_transform(const parsed_block& block, std::span<std::uint32_t> values) noexcept;

}  // namespace bitplane::detail
