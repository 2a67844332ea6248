// The AVX2 DNA kernels: dna_kernels_impl.hpp instantiated for xsimd::avx2 (built with -mavx2
// -mpopcnt -mbmi2; simd/dispatch.cpp selects the avx2 path only where the CPU runs all three).
#if defined(BITPLANE_X86)
#include <xsimd/xsimd.hpp>

#if !XSIMD_WITH_AVX2
#error "dna_kernels_avx2.cpp must be compiled with -mavx2"
#endif

#define BITPLANE_DNA_KERNEL_NS dna_kernels_avx2
#include "dna/dna_kernels_impl.hpp"

namespace bitplane::dna::detail {

const dna_kernel_table& avx2_dna_kernels() noexcept {
    static constexpr dna_kernel_table table = dna_kernels_avx2::make_table<xsimd::avx2>(simd_path::avx2);
    return table;
}

}  // namespace bitplane::dna::detail
#endif
