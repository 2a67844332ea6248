#include "value_transform.hpp"

#include "block_format.hpp"
#include "thresholds.hpp"

#include <algorithm>
#include <bit>
#include <limits>

namespace bitplane::detail {

namespace {

unsigned varying_planes(std::uint32_t any, std::uint32_t all) noexcept {
    return static_cast<unsigned>(std::popcount(any ^ all));
}

std::uint32_t zigzag(std::uint32_t bits) noexcept {
    const auto value = static_cast<std::int32_t>(bits);
    return (bits << 1) ^ static_cast<std::uint32_t>(value >> 31);
}

std::uint32_t unzigzag(std::uint32_t bits) noexcept { return (bits >> 1) ^ (0u - (bits & 1u)); }

}  // namespace

std::size_t rank_transforms(std::span<const std::uint32_t> values, bool is_signed, transform_choice (&out)[4]) {
    // Simple single-purpose loops: each one vectorizes, where one loop computing all of
    // this at once does not (and this runs for every block encoded).
    const std::size_t n = values.size();
    const std::uint32_t* v = values.data();
    std::uint32_t any = 0, all = ~0u;
    for (std::size_t i = 0; i < n; ++i) any |= v[i];
    for (std::size_t i = 0; i < n; ++i) all &= v[i];
    std::uint32_t umin = ~0u, umax = 0;
    for (std::size_t i = 0; i < n; ++i) umin = std::min(umin, v[i]);
    for (std::size_t i = 0; i < n; ++i) umax = std::max(umax, v[i]);
    std::int32_t smin = std::numeric_limits<std::int32_t>::max(), smax = std::numeric_limits<std::int32_t>::min();
    std::uint32_t zz_any = 0, zz_all = ~0u;
    if (is_signed) {
        for (std::size_t i = 0; i < n; ++i) smin = std::min(smin, static_cast<std::int32_t>(v[i]));
        for (std::size_t i = 0; i < n; ++i) smax = std::max(smax, static_cast<std::int32_t>(v[i]));
        for (std::size_t i = 0; i < n; ++i) zz_any |= zigzag(v[i]);
        for (std::size_t i = 0; i < n; ++i) zz_all &= zigzag(v[i]);
    }
    std::int32_t dmin = std::numeric_limits<std::int32_t>::max(), dmax = std::numeric_limits<std::int32_t>::min();
    for (std::size_t i = 1; i < n; ++i) dmin = std::min(dmin, static_cast<std::int32_t>(v[i] - v[i - 1]));
    for (std::size_t i = 1; i < n; ++i) dmax = std::max(dmax, static_cast<std::int32_t>(v[i] - v[i - 1]));

    std::size_t count = 0;
    const unsigned plain = varying_planes(any, all);
    out[count++] = {codec::transform::none, 0, 0, 0, plain};

    const std::uint32_t lo = is_signed ? static_cast<std::uint32_t>(smin) : umin;
    const std::uint32_t hi = is_signed ? static_cast<std::uint32_t>(smax) : umax;
    const auto for_planes = static_cast<unsigned>(std::bit_width(hi - lo));
    if (lo != 0 && for_planes < plain)
        out[count++] = {codec::transform::frame_of_reference, lo, 0, 0, for_planes};

    const unsigned zz_planes = varying_planes(zz_any, zz_all);
    if (is_signed && smin < 0 && zz_planes < std::min(plain, for_planes))
        out[count++] = {codec::transform::zigzag, 0, 0, 0, zz_planes};

    if (values.size() >= 2) {
        const auto delta_planes = static_cast<unsigned>(
            std::bit_width(static_cast<std::uint32_t>(dmax) - static_cast<std::uint32_t>(dmin)) +
            thresholds::delta_penalty_planes);
        if (delta_planes < out[0].estimate && delta_planes < for_planes)
            out[count++] = {codec::transform::delta, 0, values[0], static_cast<std::uint32_t>(dmin), delta_planes};
    }
    std::stable_sort(out, out + count,
                     [](const transform_choice& a, const transform_choice& b) { return a.estimate < b.estimate; });
    return count;
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
            for (std::size_t i = 0; i < n; ++i) residuals[i] = zigzag(values[i]);
            break;
        case codec::transform::delta:
            residuals[0] = values[0] - choice.delta_first;
            for (std::size_t i = 1; i < n; ++i) residuals[i] = values[i] - values[i - 1] - choice.delta_min;
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
