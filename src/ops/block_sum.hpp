// The sum of one encoded block from its planes' bit counts, without decoding its values
// (issue #13): every transform and layout, read from the payloads in place where it can be.
// Independent of how the header was read: it takes a parsed_block, so a cached descriptor
// can stand in for parse_block later.
#pragma once

#include <bitplane/block.hpp>
#include <bitplane/int128.hpp>

#include "codec/block_format.hpp"
#include "simd/kernels.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane::detail {

/// What encoded_block_sum needs besides the block: room for rebuilt planes, made once per
/// run of blocks (block_planes is 8 KiB).
struct block_sum_scratch {
    block_planes planes;
    plane mask{};
    plane deposited{};
};

/// The exact sum, modulo 2^128, of the `header.count` values of the encoded block `bytes`
/// (parsed as `header`; produced by the encoder or validated), as int32 values when
/// `is_signed`, else uint32. Plain, frame-of-reference and delta blocks are summed from the
/// popcounts (and position sums) of their planes, read from the payloads where no plane
/// refers to another; zigzag, sparse delta and referring blocks from rebuilt planes; blocks
/// whose values wrap around 2^32 (possible in delta and, in files, frame-of-reference blocks)
/// are decoded.
[[nodiscard]] uint128 encoded_block_sum(const parsed_block& header, std::span<const std::byte> bytes, bool is_signed,
                                        const kernel_table& kernels, block_sum_scratch& scratch);

/// The set bits of the values of an encoded block whose transform is none (its planes hold the
/// values' bits; a sparse block's zeros have none), from its planes' popcounts as
/// encoded_block_sum reads them.
[[nodiscard]] std::uint64_t encoded_block_popcount(const parsed_block& header, std::span<const std::byte> bytes,
                                                   const kernel_table& kernels, block_sum_scratch& scratch);

/// Forces encoded_block_sum (and encoded_block_popcount) to take the rebuilt-planes route for every block (true) or lets it
/// read payloads in place (false, the default): for tests, which compare both. Not
/// synchronized with running operations.
void force_rebuilt_plane_sums(bool on) noexcept;

}  // namespace bitplane::detail
