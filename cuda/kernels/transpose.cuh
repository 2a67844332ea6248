// Kernels: 2048-value blocks -> 32 bit-planes (layout of include/bitplane/block.hpp).
// Included by the dispatch layer (cuda/device.cu) only; host code never includes this file.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bitplane::cuda::kernels {

inline constexpr unsigned full_warp = 0xffffffffu;
inline constexpr int transpose_threads = 256;  // 8 warps: 8 words of each plane per CUDA block

/// One warp per 32 values: lane b of warp w holds value 32 * w + b; the ballot of bit j is
/// then word (w mod 64) of plane j of block (w / 64). Lane j keeps ballot j and writes it, so
/// each lane does one load and one store. The grid covers exactly blocks * 2048 threads (a
/// whole number of warps), so every lane of every warp is active for __ballot_sync.
__global__ void __launch_bounds__(transpose_threads)
transpose_blocks(const std::uint32_t* __restrict__ values, std::uint32_t* __restrict__ planes) {
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x % 32u;
    const std::size_t warp = thread / 32u;
    const std::uint32_t value = values[thread];

    std::uint32_t mine = 0;
#pragma unroll
    for (unsigned j = 0; j < 32; ++j) {
        const std::uint32_t word = __ballot_sync(full_warp, (value >> j) & 1u);
        if (j == lane) mine = word;
    }
    // Plane `lane`, word (warp mod 64), of block (warp / 64).
    const std::size_t block = warp / 64u;
    const std::size_t word = warp % 64u;
    planes[block * 2048u + lane * 64u + word] = mine;
}

}  // namespace bitplane::cuda::kernels
