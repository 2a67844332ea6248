// The transfer pipeline's own types (cuda/transfer.cpp): how it reads host-resident blocks,
// from a vector's arena or a pinned copy. Private to the CUDA part; the public entry points are
// in include/bitplane/cuda/exec.hpp.
#pragma once

#include <bitplane/cuda/exec.hpp>

#include <cstddef>
#include <cstdint>

namespace bitplane::cuda::detail {

/// Blocks as the transfer pipeline reads them (host pointers; `pinned`: page-locked).
struct host_view {
    const std::byte* payload = nullptr;   // blocks [0, contiguous)
    std::size_t contiguous = 0;
    const std::byte* tail = nullptr;      // the bytes of block `contiguous` when not in payload
    const std::uint64_t* offsets = nullptr;
    std::size_t blocks = 0;
    std::size_t size = 0;
    std::uint64_t bytes = 0;
    bool pinned = false;
};

struct transfer_settings {
    int streams = 0;                 ///< 0: from the tuning table (default 4)
    std::size_t batch_bytes = 0;     ///< payload bytes per batch and operand; 0: tuning table
};

/// dot of blocks [0, blocks) of two host-resident vectors on the GPU, transfers included.
uint128 transfer_dot(const host_view& a, const host_view& b, std::size_t blocks, bool is_signed,
                     const transfer_settings& settings);

host_view view_of(const host_blocks& h) noexcept;
host_view view_of(const pinned_blocks& p) noexcept;

}  // namespace bitplane::cuda::detail
