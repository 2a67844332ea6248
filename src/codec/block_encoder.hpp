// The CPU encoder's entry for bitplane's own containers: codec::encode_block that also hands
// back the value statistics it measured, so that vector_core summarizes a block it seals
// (block_summary.hpp) without a second pass over the values.
#pragma once

#include <bitplane/codec.hpp>

#include "simd/kernels.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane::detail {

/// codec::encode_block, and `stats` gets the active stats kernel's value_stats of `values`.
std::size_t encode_block(std::span<const std::uint32_t> values, bool is_signed, std::span<std::byte> out,
                         const codec::encode_options& options, value_stats& stats);

}  // namespace bitplane::detail
