#include "value_transform.hpp"

#include "block_format.hpp"
#include "thresholds.hpp"
#include "simd/kernels.hpp"

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
    value_stats st;
    active_kernels().stats(values.data(), values.size(), &st);
    const std::uint32_t any = st.any, all = st.all, umin = st.umin, umax = st.umax;
    const std::int32_t smin = st.smin, smax = st.smax, dmin = st.dmin, dmax = st.dmax;
    const std::uint32_t zz_any = st.zz_any, zz_all = st.zz_all;

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
