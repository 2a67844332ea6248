// A block's residual planes materialized in L1, with what is needed to interpret them: the
// starting point of every bulk operation. Sealed blocks are rebuilt from their encodings
// (de-interleaved, references resolved); the uncompressed tail and write-back blocks are
// transposed. Operations that can work on residual planes (plain and frame-of-reference
// blocks, dense or sparse) do; others ask for values or value planes.
#pragma once

#include <bitplane/codec.hpp>
#include <bitplane/detail/vector_core.hpp>

#include "codec/plane_bits.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane::detail {

struct block_view {
    std::uint32_t count = 0;   // values in the block
    codec::transform transform = codec::transform::none;
    std::uint32_t for_base = 0;
    std::uint32_t delta_first = 0;
    std::uint32_t delta_min = 0;
    bool sparse = false;
    plane mask{};              // sparse: bit i set where residual i is not zero
    std::uint32_t length = 0;  // bits per residual plane: count, or the non-zero count
    std::uint32_t live = 0;    // planes stored
    std::uint32_t ones = 0;    // planes all ones (first `length` bits)
    // Residual planes; only planes in live | ones are valid, every other plane is all zero
    // and is NOT written (read the masks, not the planes). Bits >= length are zero.
    block_planes planes;

    [[nodiscard]] std::uint32_t nonzero() const noexcept { return live | ones; }
    /// Residuals are the values, bit for bit (plain dense block).
    [[nodiscard]] bool planes_are_values() const noexcept {
        return transform == codec::transform::none && !sparse;
    }
    /// Operations on residual planes apply (plain or frame of reference, dense or sparse).
    [[nodiscard]] bool plane_operable() const noexcept {
        return transform == codec::transform::none || transform == codec::transform::frame_of_reference;
    }
};

/// View of an encoded block of `count` values (bytes produced by the encoder or validated).
void view_encoded_block(std::span<const std::byte> bytes, std::uint32_t count, block_view& out);

/// View of raw values (1..2048): plain, dense.
void view_values(std::span<const std::uint32_t> values, block_view& out);

/// View of block `block` of a vector (sealed, write-back or tail).
void view_block(const vector_core& v, std::size_t block, block_view& out);

/// The block's values.
void view_to_values(const block_view& view, std::span<std::uint32_t> out);

/// Planes of the block's values (not residuals): the view's own planes when they are the
/// values, else `scratch` filled by decoding and transposing. `nonzero` gets the mask of
/// planes that are not all zero; other planes of the result are all zero (written).
const block_planes& value_planes(const block_view& view, block_planes& scratch, std::uint32_t& nonzero);

}  // namespace bitplane::detail
