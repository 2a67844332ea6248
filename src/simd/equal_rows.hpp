// Equality kernels over interleaved rows that live in translation units of their own
// (kernels.hpp: kernel_table::equal_interleaved), each in a namespace named after its
// instruction set.
#pragma once

#include <cstdint>

namespace bitplane::detail::equal_rows_avx512 {

/// Rows narrower than this go to the AVX2 fold (kernels_scan.hpp: fold_short_rows and
/// fold_interleaved_rows), which packs several short rows into a register.
inline constexpr std::uint32_t min_planes = 9;

/// kernel_table::equal_interleaved for rows of min_planes..32 planes on the AVX-512 path
/// (simd/equal_rows_avx512.cpp, built with the AVX-512 path's flags): the same contract,
/// for `stored` in [min_planes, 32] only.
std::uint32_t equal_interleaved(const std::uint8_t* payload, std::uint32_t stored, std::uint32_t bits,
                                std::uint32_t* eq) noexcept;

}  // namespace bitplane::detail::equal_rows_avx512
