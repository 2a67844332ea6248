// The SIMD kernels, written once as templates over an xsimd architecture tag.
//
// Each instruction-set translation unit (kernels_sse2.cpp, kernels_avx2.cpp) defines
// BITPLANE_KERNEL_NS to a name of its own and then includes this file, so every function
// here lands in bitplane::detail::<that name>: the same inline function compiled with
// different flags never meets itself at link time (no ODR clash, no AVX2 code leaking into
// the SSE2 or scalar paths). For the same reason nothing here instantiates a std:: template.
//
// The kernels use xsimd::batch for what xsimd 8.1 offers (loads, stores, bitwise ops, byte
// adds). What 8.1 lacks -- byte movemask, byte shuffles, per-byte popcount, byte sums -- is in
// small helpers overloaded on the architecture tag, written with intrinsics, one overload
// per instruction set. The SSE2 overloads use SSE2 only (no pshufb, no popcnt).
//
// The kernels live in one file per job -- arch_helpers.hpp (what xsimd lacks),
// kernels_codec.hpp, kernels_reduce.hpp, kernels_scan.hpp -- each included here under the
// same BITPLANE_KERNEL_NS; this file assembles them into the path's kernel_table.
#pragma once

#ifndef BITPLANE_KERNEL_NS
#error "define BITPLANE_KERNEL_NS (a namespace named after the instruction set) before including kernels_impl.hpp"
#endif

#include "simd/arch_helpers.hpp"
#include "simd/kernels.hpp"
#include "simd/kernels_codec.hpp"
#include "simd/kernels_reduce.hpp"
#include "simd/kernels_scan.hpp"

namespace bitplane::detail::BITPLANE_KERNEL_NS {

template <class A>
constexpr kernel_table make_table(simd_path path) noexcept {
    return kernel_table{.path = path,
                        .transpose = &transpose<A>,
                        .untranspose = &untranspose<A>,
                        .pair_popcounts = &pair_popcounts<A>,
                        .popcount_words = &popcount_words<A>,
                        .stats = &stats<A>,
                        .key_presence = &key_presence<A>,
                        .and_popcounts = &and_popcounts<A>,
                        .dot_values = &dot_values<A>,
                        .deposit_plane = &deposit_plane<A>,
                        .compare_planes = &compare_planes<A>,
                        .interleaved_popcounts = &interleaved_popcounts<A>,
                        .interleaved_transpose = &interleaved_transpose<A>,
                        .extract_plane = &extract_plane<A>,
                        .interleaved_and_popcounts = &interleaved_and_popcounts<A>,
                        .word_moments = &word_moments<A>,
                        .interleaved_dot = nullptr};
}

}  // namespace bitplane::detail::BITPLANE_KERNEL_NS
