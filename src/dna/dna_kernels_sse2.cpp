// The SSE2 DNA kernels: dna_kernels_impl.hpp instantiated for xsimd::sse2 (built with -msse2).
#if defined(BITPLANE_X86)
#include <xsimd/xsimd.hpp>

#define BITPLANE_DNA_KERNEL_NS dna_kernels_sse2
#include "dna/dna_kernels_impl.hpp"

namespace bitplane::dna::detail {

const dna_kernel_table& sse2_dna_kernels() noexcept {
    static constexpr dna_kernel_table table = dna_kernels_sse2::make_table<xsimd::sse2>(simd_path::sse2);
    return table;
}

}  // namespace bitplane::dna::detail
#endif
