// The SSE2 kernels: kernels_impl.hpp instantiated for xsimd::sse2. Built with -msse2 only, so
// this path runs on every x86-64 CPU; it uses no pshufb (SSSE3) and no popcnt.
#include <xsimd/xsimd.hpp>

#if !XSIMD_WITH_SSE2
#error "kernels_sse2.cpp must be compiled with -msse2"
#endif

#define BITPLANE_KERNEL_NS kernels_sse2
#include "simd/kernels_impl.hpp"

namespace bitplane::detail {

const kernel_table& sse2_kernels() noexcept {
    static constexpr kernel_table table = kernels_sse2::make_table<xsimd::sse2>(simd_path::sse2);
    return table;
}

}  // namespace bitplane::detail
