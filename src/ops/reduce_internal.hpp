// Internals of ops/reduce.cpp that tests and benchmarks reach: the per-block dot product
// with its method choice, and a switch that forces one method for whole-vector runs.
#pragma once

#include <bitplane/int128.hpp>

#include "ops/block_view.hpp"

#include <cstddef>
#include <cstdint>

namespace bitplane::detail {

/// How dot() combines a pair of blocks.
enum class dot_method {
    automatic,  // the cheaper one by the cost model of codec/thresholds.hpp
    planes,     // sum over plane pairs of 2^(j+k) popcount(A_j AND B_k), plus base corrections
    decode,     // decode both blocks and multiply values
};

/// The method the cost model picks for a pair of plane-operable blocks whose residuals have
/// `live_a` and `live_b` distinct stored planes (all-one planes cost nothing), `words` words
/// per plane (fewer for sparse blocks), where `compact` planes must first be compacted to the
/// positions both blocks may have non-zero, and `decoded` planes of which `sparse` blocks
/// would be untransposed (and scattered) by the decode method. `same`: the two blocks are one
/// (sum_of_squares), so half of the plane pairs are needed and one decode.
[[nodiscard]] dot_method choose_dot_method(std::uint32_t live_a, std::uint32_t live_b, std::uint32_t words,
                                           std::uint32_t compact, std::uint32_t decoded, std::uint32_t sparse,
                                           bool same) noexcept;

/// Which fused interleaved_dot kernel the active path has (kernel_table::interleaved_dot): their
/// costs grow differently with the width (codec/thresholds.hpp).
enum class fused_dot {
    none,    // transpose both payloads into values, then dot_values
    avx512,  // GFNI transposes: about one cost at every width
    avx2,    // 8 x 8 bit transposes: a cost per byte of width, more above 15 bits
};

struct kernel_table;  // simd/kernels.hpp

/// The fused kernel of a kernel table.
[[nodiscard]] fused_dot fused_kind(const kernel_table& kernels) noexcept;

/// The method for two interleaved all-raw blocks (read in place) whose non-zero planes are
/// `planes_a` and `planes_b` (stored and all-one): the plane method on their payloads in place
/// (kernel_table::interleaved_and_popcounts: a pass per lane register of the operand of more
/// planes and plane, or group of 4 on avx512, of the other), or transposing their payloads into
/// values, which costs less when every plane is below 16 or 8, and less again when the path
/// has a fused interleaved_dot kernel (`fused`, which also names the path's lane count).
/// `same`: one block (sum_of_squares; planes_b is not used).
[[nodiscard]] dot_method choose_raw_dot_method(std::uint32_t planes_a, std::uint32_t planes_b, bool same,
                                               fused_dot fused) noexcept;

/// Sum over the block of a[i] * b[i] (values of the column type: int32 when `is_signed`),
/// modulo 2^128. `same`: a and b are the same block (b is not read). `method` other than
/// automatic forces that method where it applies (delta and zigzag blocks always decode).
/// May rewrite the views' planes (compacted in place).
[[nodiscard]] uint128 dot_block(block_view& a, block_view& b, bool same, bool is_signed, dot_method method);

/// Sum of a[i] * b[i] over blocks [first, last) of two vectors of equal size (`is_signed`: int32
/// columns), modulo 2^128, serially on the calling thread, with the block methods dot() uses.
/// For callers that split blocks themselves (the CUDA part's CPU+GPU executor).
[[nodiscard]] uint128 dot_block_range(const vector_core& a, const vector_core& b, bool is_signed,
                                      std::size_t first, std::size_t last);

/// Forces the method of every block pair of dot() and sum_of_squares() from now on
/// (automatic restores the cost model). For tests and benchmarks; not synchronized with
/// running operations.
void force_dot_method(dot_method method) noexcept;

}  // namespace bitplane::detail
