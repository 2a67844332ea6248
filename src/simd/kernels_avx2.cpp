// The AVX2 kernels: kernels_impl.hpp instantiated for xsimd::avx2. Built with
// -mavx2 -mpopcnt -mbmi2; dispatch.cpp hands this table out only when the CPU (and the OS, for
// the YMM state) supports all three.
#include <xsimd/xsimd.hpp>

#if !XSIMD_WITH_AVX2
#error "kernels_avx2.cpp must be compiled with -mavx2"
#endif

#define BITPLANE_KERNEL_NS kernels_avx2
#include "simd/kernels_impl.hpp"

namespace bitplane::detail {

const kernel_table& avx2_kernels() noexcept {
    static constexpr kernel_table table = kernels_avx2::make_table<xsimd::avx2>(simd_path::avx2);
    return table;
}

}  // namespace bitplane::detail
