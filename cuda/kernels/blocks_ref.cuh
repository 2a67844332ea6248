// A device vector's encoded blocks as kernels see them (plain pointers), and the 128-bit
// accumulator type of the reductions. Included by kernel files only.
#pragma once

#include "block_device.cuh"

#include <cstdint>

namespace bitplane::cuda::kernels {

using u128 = unsigned __int128;

struct blocks_ref {
    const std::uint8_t* payload;
    const std::uint64_t* offsets;
    std::uint64_t blocks;
    std::uint64_t size;  // values
};

__device__ __forceinline__ unsigned block_count_of(const blocks_ref& v, std::uint64_t block) {
    const std::uint64_t first = block * block_values;
    const std::uint64_t left = v.size - first;
    return left < block_values ? static_cast<unsigned>(left) : block_values;
}

}  // namespace bitplane::cuda::kernels
