// Value transforms applied to a block before it is sliced into planes: frame of reference
// (subtract the minimum), delta (differences, minus the smallest difference) and zigzag
// (sign folded into bit 0). Plane operations work directly on frame-of-reference residuals;
// delta and zigzag blocks are decoded first.
//
// Ranking from the statistics, the choice of how many candidates to try and the residual of
// one value are host and device code (host_device.hpp): the GPU encoder calls them too.
#pragma once

#include <bitplane/codec.hpp>

#include "host_device.hpp"
#include "simd/kernels.hpp"
#include "thresholds.hpp"

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
    std::uint32_t estimate = 0;  // live planes the residuals are expected to need
};

BITPLANE_HOST_DEVICE inline std::uint32_t zigzag_bits(std::uint32_t bits) noexcept {
    const auto value = static_cast<std::int32_t>(bits);
    return (bits << 1) ^ static_cast<std::uint32_t>(value >> 31);
}

/// Residual i >= 1 of a delta block.
BITPLANE_HOST_DEVICE inline std::uint32_t delta_residual(std::uint32_t value, std::uint32_t previous,
                                                         std::uint32_t delta_min) noexcept {
    return value - previous - delta_min;
}

/// residuals[i] as apply_transform writes it (one value at a time, for the GPU's threads).
BITPLANE_HOST_DEVICE inline std::uint32_t residual_of(const transform_choice& choice, const std::uint32_t* values,
                                                      std::size_t i) noexcept {
    switch (choice.kind) {
        case codec::transform::frame_of_reference: return values[i] - choice.for_base;
        case codec::transform::zigzag: return zigzag_bits(values[i]);
        case codec::transform::delta:
            return i == 0 ? values[0] - choice.delta_first : delta_residual(values[i], values[i - 1], choice.delta_min);
        case codec::transform::none: break;
    }
    return values[i];
}

/// The transforms worth trying for a block of `count` values whose first value is `first`
/// and whose statistics are `st`, best estimate first (equal estimates keep this order:
/// none, frame of reference, zigzag, delta); returns how many were written to `out` (at
/// least 1: `none` is always a candidate).
BITPLANE_HOST_DEVICE inline std::uint32_t rank_from_stats(const value_stats& st, std::uint32_t first,
                                                          std::uint32_t count, bool is_signed,
                                                          transform_choice (&out)[4]) noexcept {
    std::uint32_t ranked = 0;
    const std::uint32_t plain = popcount32(st.any ^ st.all);
    out[ranked++] = {codec::transform::none, 0, 0, 0, plain};

    const std::uint32_t lo = is_signed ? static_cast<std::uint32_t>(st.smin) : st.umin;
    const std::uint32_t hi = is_signed ? static_cast<std::uint32_t>(st.smax) : st.umax;
    const std::uint32_t for_planes = bit_width32(hi - lo);
    if (lo != 0 && for_planes < plain) out[ranked++] = {codec::transform::frame_of_reference, lo, 0, 0, for_planes};

    const std::uint32_t zz_planes = popcount32(st.zz_any ^ st.zz_all);
    if (is_signed && st.smin < 0 && zz_planes < min32(plain, for_planes))
        out[ranked++] = {codec::transform::zigzag, 0, 0, 0, zz_planes};

    if (count >= 2) {
        const std::uint32_t delta_planes =
            bit_width32(static_cast<std::uint32_t>(st.dmax) - static_cast<std::uint32_t>(st.dmin)) +
            thresholds::delta_penalty_planes;
        if (delta_planes < out[0].estimate && delta_planes < for_planes)
            out[ranked++] = {codec::transform::delta, 0, first, static_cast<std::uint32_t>(st.dmin), delta_planes};
    }
    sort_small(out, ranked, [](const transform_choice& a, const transform_choice& b) { return a.estimate < b.estimate; });
    return ranked;
}

/// Drops the ranked candidates that `options` turns off (keeping the order) and returns how
/// many of the rest to encode: the best, and the runner-up too when its estimate is within
/// thresholds::transform_runner_up_planes (runs and references can make it smaller).
BITPLANE_HOST_DEVICE inline std::uint32_t transforms_to_try(transform_choice (&candidates)[4], std::uint32_t ranked,
                                                            const codec::encode_options& options) noexcept {
    std::uint32_t kept = 0;
    for (std::uint32_t c = 0; c < ranked; ++c) {
        const codec::transform kind = candidates[c].kind;
        const bool off = (kind == codec::transform::frame_of_reference && !options.frame_of_reference) ||
                         (kind == codec::transform::delta && !options.delta) ||
                         (kind == codec::transform::zigzag && !options.zigzag);
        if (!off) candidates[kept++] = candidates[c];
    }
    return kept > 1 && candidates[1].estimate <= candidates[0].estimate + thresholds::transform_runner_up_planes ? 2 : 1;
}

/// The candidates whose residuals are zero wherever a block repeats itself, for the sparse
/// layout only, tried after the ranked ones (plan_smallest) where these were not all raw:
/// delta with minimum 0 (a run of equal values leaves zero differences, where the ranked
/// delta's minimum - the smallest difference - leaves -min, so a run-heavy block is never
/// sparse: its mask is then the change points and its stored values the steps); zigzag for
/// signed blocks with negatives (zero stays zero, small steps either way stay small, where
/// frame of reference moves the zeros to -min); none where zeros occur (umin = 0) and no
/// negative wraps to 32 planes. The planes estimate ranks nothing here (it cannot see zeros):
/// each is planned only when its zeros make the sparse layout worth trying. A candidate that
/// equals one of the `tried` is left out. Returns how many were written to `out`.
BITPLANE_HOST_DEVICE inline std::uint32_t zero_preserving_candidates(const value_stats& st, std::uint32_t first,
                                                                     std::uint32_t count, bool is_signed,
                                                                     const transform_choice* tried,
                                                                     std::uint32_t tries,
                                                                     const codec::encode_options& options,
                                                                     transform_choice (&out)[3]) noexcept {
    if (!options.sparse) return 0;
    std::uint32_t n = 0;
    auto offer = [&](const transform_choice& c) {
        for (std::uint32_t t = 0; t < tries; ++t)
            if (tried[t].kind == c.kind && tried[t].for_base == c.for_base && tried[t].delta_first == c.delta_first &&
                tried[t].delta_min == c.delta_min)
                return;
        out[n++] = c;
    };
    if (count >= 2 && options.delta && st.dmin <= 0 && st.dmax >= 0) offer({codec::transform::delta, 0, first, 0, 0});
    const bool negative = is_signed && st.smin < 0;
    if (negative && options.zigzag && st.smax >= 0) offer({codec::transform::zigzag, 0, 0, 0, 0});
    if (!negative && st.umin == 0) offer({codec::transform::none, 0, 0, 0, 0});
    return n;
}

/// The transforms worth trying for `values`, best estimate first; returns how many were
/// written to `out` (at least 1: `none` is always a candidate).
std::size_t rank_transforms(std::span<const std::uint32_t> values, bool is_signed, transform_choice (&out)[4]);

/// residuals[i] = transform of values[i].
void apply_transform(const transform_choice& choice, std::span<const std::uint32_t> values,
                     std::uint32_t* residuals) noexcept;

/// In place: residuals -> values, as the parsed block's header says.
void undo_transform(const parsed_block& block, std::span<std::uint32_t> values) noexcept;

}  // namespace bitplane::detail
