#include "value_transform.hpp"

#include "block_format.hpp"
#include "thresholds.hpp"
#include "simd/kernels.hpp"

#include <algorithm>

namespace bitplane::detail {

namespace {

std::uint32_t unzigzag(std::uint32_t bits) noexcept { return (bits >> 1) ^ (0u - (bits & 1u)); }

}  // namespace

std::size_t rank_transforms(std::span<const std::uint32_t> values, bool is_signed, transform_choice (&out)[4]) {
    value_stats st;
    active_kernels().stats(values.data(), values.size(), &st);
    return rank_from_stats(st, values[0], static_cast<std::uint32_t>(values.size()), is_signed, out);
}

void apply_transform(const transform_choice& choice, std::span<const std::uint32_t> values,
                     std::uint32_t* residuals) noexcept {
    const std::size_t n = values.size();
    switch (choice.kind) {
        case codec::transform::none:
            std::copy_n(values.data(), n, residuals);
            break;
        case codec::transform::frame_of_reference:
            for (std::size_t i = 0; i < n; ++i) residuals[i] = values[i] - choice.for_base;
            break;
        case codec::transform::zigzag:
            for (std::size_t i = 0; i < n; ++i) residuals[i] = zigzag_bits(values[i]);
            break;
        case codec::transform::delta:
            residuals[0] = values[0] - choice.delta_first;
            for (std::size_t i = 1; i < n; ++i) residuals[i] = delta_residual(values[i], values[i - 1], choice.delta_min);
            break;
    }
}

void undo_transform(const parsed_block& block, std::span<std::uint32_t> values) noexcept {
    switch (block.value_transform) {
        case codec::transform::none:
            break;
        case codec::transform::frame_of_reference:
            for (std::uint32_t& v : values) v += block.for_base;
            break;
        case codec::transform::zigzag:
            for (std::uint32_t& v : values) v = unzigzag(v);
            break;
        case codec::transform::delta: {
            std::uint32_t previous = block.delta_first + values[0];
            values[0] = previous;
            for (std::size_t i = 1; i < values.size(); ++i) {
                previous += values[i] + block.delta_min;
                values[i] = previous;
            }
            break;
        }
    }
}

}  // namespace bitplane::detail
