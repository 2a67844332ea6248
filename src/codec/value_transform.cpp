#include "value_transform.hpp"

#include "block_format.hpp"
#include "thresholds.hpp"
#include "simd/kernels.hpp"

#include <algorithm>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bitplane::detail {

namespace {

std::uint32_t unzigzag(std::uint32_t bits) noexcept { return (bits >> 1) ^ (0u - (bits & 1u)); }

// values[i] = first + (r[0] + min) + ... + (r[i] + min) - min, in place. The scalar loop is one
// add per value on a chain through memory (the residuals may alias the block's fields); on
// x86-64 (SSE2, part of x86-64) four values take a prefix sum in registers and two adds on the
// chain.
void prefix_sum(std::uint32_t* values, std::size_t n, std::uint32_t first, std::uint32_t min) noexcept {
    if (n == 0) return;
    std::uint32_t previous = first - min;  // so that value 0 is first + r[0]
    std::size_t i = 0;
#if defined(__SSE2__)
    const __m128i step = _mm_set1_epi32(static_cast<int>(min));
    __m128i carry = _mm_set1_epi32(static_cast<int>(previous));
    for (; i + 4 <= n; i += 4) {
        __m128i x = _mm_add_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(values + i)), step);
        x = _mm_add_epi32(x, _mm_slli_si128(x, 4));
        x = _mm_add_epi32(x, _mm_slli_si128(x, 8));
        x = _mm_add_epi32(x, carry);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(values + i), x);
        carry = _mm_shuffle_epi32(x, 0xFF);
    }
    previous = static_cast<std::uint32_t>(_mm_cvtsi128_si32(carry));
#endif
    for (; i < n; ++i) {
        previous += values[i] + min;
        values[i] = previous;
    }
}

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
        case codec::transform::delta:
            if (const auto kernel = active_kernels().delta_decode; kernel != nullptr)
                kernel(values.data(), values.size(), block.delta_first, block.delta_min);
            else
                prefix_sum(values.data(), values.size(), block.delta_first, block.delta_min);
            break;
    }
}

}  // namespace bitplane::detail
