// Fused interleaved_dot kernels that live in translation units of their own (kernels.hpp:
// kernel_table::interleaved_dot), each in a namespace named after its instruction set.
#pragma once

#include "simd/kernels.hpp"

#include <cstdint>

namespace bitplane::detail::dot_fused_avx2 {

/// kernel_table::interleaved_dot for the AVX2 path (simd/dot_fused_avx2.cpp, built with
/// -mavx2 -mpopcnt -mbmi2): the AVX2 table points to it, and the AVX-512 kernel calls it for
/// operands of up to 16 bits (kernels_avx512.cpp, thresholds::dot_fused_avx2_on_avx512_bits).
void interleaved_dot(const interleaved_operand* a, const interleaved_operand* b, bool is_signed,
                     std::uint64_t* out) noexcept;

}  // namespace bitplane::detail::dot_fused_avx2
