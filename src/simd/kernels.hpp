// The table of SIMD kernels behind bitplane's runtime dispatch. One table per instruction set
// (kernels_scalar.cpp, kernels_sse2.cpp, kernels_avx2.cpp); `active_kernels()` returns the one
// chosen by simd.hpp. Host code calls kernels only through this table.
#pragma once

#include <bitplane/block.hpp>
#include <bitplane/simd.hpp>

#include <cstddef>
#include <cstdint>
#include <climits>

namespace bitplane::detail {

/// What the encoder's transform ranking needs to know about a block's values, in one pass.
struct value_stats {
    std::uint32_t any = 0;       // OR of the values
    std::uint32_t all = ~0u;     // AND of the values
    std::uint32_t umin = ~0u, umax = 0;
    std::int32_t smin = INT32_MAX, smax = INT32_MIN;
    std::int32_t dmin = INT32_MAX, dmax = INT32_MIN;  // of v[i] - v[i-1] (mod 2^32) as int32, i >= 1
    std::uint32_t zz_any = 0;    // OR of zigzag(v) = (v << 1) ^ (v >> 31, arithmetic)
    std::uint32_t zz_all = ~0u;  // AND of zigzag(v)
};

struct kernel_table {
    simd_path path;

    /// values[0..2047] -> planes (32 x 64 words). Both arrays hold exactly 2048 words.
    void (*transpose)(const std::uint32_t* values, std::uint32_t* planes);

    /// planes -> values[0..2047]; only planes whose bit is set in `live` are read, the others
    /// are taken as all-zero (so a 10-bit block costs 10 planes, not 32).
    void (*untranspose)(const std::uint32_t* planes, std::uint32_t live, std::uint32_t* values);

    /// For `count` planes stored contiguously (count x 64 words), writes the count x count
    /// matrix out[i * count + j] = popcount(p_i ^ p_j), out[i * count + i] = popcount(p_i).
    void (*pair_popcounts)(const std::uint32_t* planes, std::size_t count, std::uint16_t* out);

    /// Number of set bits in `words` 32-bit words.
    std::uint64_t (*popcount_words)(const std::uint32_t* words, std::size_t count);

    /// value_stats of values[0..count) (count >= 1).
    void (*stats)(const std::uint32_t* values, std::size_t count, value_stats* out);
};

const kernel_table& scalar_kernels() noexcept;
const kernel_table& sse2_kernels() noexcept;  // x86-64 only
const kernel_table& avx2_kernels() noexcept;  // x86-64 only

/// The table for the active path (see simd.hpp). Cheap: one atomic load.
const kernel_table& active_kernels();

}  // namespace bitplane::detail
