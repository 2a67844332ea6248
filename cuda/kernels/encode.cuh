// Kernel: 2048-value blocks -> 32 bit-planes + the 32 x 32 Hamming matrix of the planes.
// Included by cuda/reduce.cu only.
//
// One CTA of 256 threads (8 warps) per block. Warp w transposes columns 8w .. 8w+7: lane b
// loads value 32c + b, and warp ballots give the plane words of column c, lane j keeping word
// c of plane j; a ballot is taken only for bits set in some value of the warp (one OR
// reduction finds them), since the other planes' words are zero. The words go to shared memory (row stride padded by 4 words), the planes
// leave with 16-byte coalesced stores, and the live planes (non-zero in the block) are the OR of
// the warps' reductions. The Hamming matrix needs popcounts only for pairs of live planes: an all-zero plane
// has distance popcount(P_i) to plane i and 0 to another zero plane, so the 528 pairs of full
// 32-bit data shrink to 55 for 10-bit data. Four threads count one pair, 16 words each.
#pragma once

#include "warp_planes.cuh"

#include <cstddef>
#include <cstdint>

namespace bitplane::cuda::kernels {

inline constexpr int encode_threads = 256;
inline constexpr unsigned encode_stride = 68;  // padded plane row in shared memory (words)

__global__ void __launch_bounds__(encode_threads)
transpose_hamming(const std::uint32_t* __restrict__ values, std::uint32_t* __restrict__ planes,
                  std::uint16_t* __restrict__ hamming) {
    __shared__ __align__(16) std::uint32_t rows[32 * encode_stride];
    __shared__ std::uint16_t matrix[32][32];
    __shared__ std::uint32_t live_shared;
    __shared__ std::uint8_t live_index[32];
    const unsigned lane = threadIdx.x % 32u;
    const unsigned warp = threadIdx.x / 32u;
    const std::size_t block = blockIdx.x;
    const std::uint32_t* in = values + block * 2048u;

    if (threadIdx.x == 0) live_shared = 0;
    std::uint32_t v[8];
#pragma unroll
    for (int q = 0; q < 8; ++q) v[q] = __ldg(in + (warp * 8u + static_cast<unsigned>(q)) * 32u + lane);
    // Bits set in any of the warp's 256 values: only those planes need ballots (the others
    // are zero words), 10 instead of 32 for 10-bit data.
    std::uint32_t bits = 0;
#pragma unroll
    for (int q = 0; q < 8; ++q) bits |= v[q];
    const std::uint32_t live = __reduce_or_sync(0xffffffffu, bits);
    // One live bit at a time, eight independent ballots (one per column) in flight.
    std::uint32_t mine[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    ballot_columns(v, live, mine);
#pragma unroll
    for (int q = 0; q < 8; ++q) rows[lane * encode_stride + warp * 8u + static_cast<unsigned>(q)] = mine[q];
    __syncthreads();  // live_shared = 0 is visible
    if (lane == 0) atomicOr(&live_shared, live);
    __syncthreads();
    const std::uint32_t all_live = live_shared;

    if (planes != nullptr) {
        // 2048 words: thread t stores words 4t .. 4t+3 and 1024 + 4t .. (plane row = word / 64).
        std::uint32_t* out = planes + block * 2048u;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const unsigned word = static_cast<unsigned>(half) * 1024u + threadIdx.x * 4u;
            const unsigned row = word / 64u;
            const unsigned col = word % 64u;
            const uint4 x = *reinterpret_cast<const uint4*>(&rows[row * encode_stride + col]);
            *reinterpret_cast<uint4*>(out + word) = x;
        }
    }
    if (hamming == nullptr) return;

    // Index of the live planes; matrix cleared.
    if (threadIdx.x < 32) {
        const std::uint32_t below = all_live & ((1u << threadIdx.x) - 1u);
        if ((all_live >> threadIdx.x) & 1u) live_index[__popc(below)] = static_cast<std::uint8_t>(threadIdx.x);
    }
    auto* flat = &matrix[0][0];
    for (unsigned i = threadIdx.x; i < 32u * 32u / 2u; i += encode_threads) reinterpret_cast<std::uint32_t*>(flat)[i] = 0;
    __syncthreads();

    struct live_rows {
        const std::uint32_t* rows;
        const std::uint8_t* index;
        __device__ uint4 quad(unsigned i, unsigned k) const {
            return reinterpret_cast<const uint4*>(rows + index[i] * encode_stride)[k];
        }
    };
    cta_pair_popcounts(live_rows{rows, live_index}, static_cast<unsigned>(__popc(all_live)), encode_threads,
                       [&](unsigned i, unsigned j, unsigned count) {
                           const unsigned pi = live_index[i];
                           const unsigned pj = live_index[j];
                           matrix[pi][pj] = static_cast<std::uint16_t>(count);
                           matrix[pj][pi] = static_cast<std::uint16_t>(count);
                       });
    __syncthreads();
    // A live plane i against a zero plane z: popcount(P_i), from the diagonal.
    for (unsigned e = threadIdx.x; e < 32u * 32u; e += encode_threads) {
        const unsigned r = e / 32u;
        const unsigned c = e % 32u;
        const bool lr = (all_live >> r) & 1u;
        const bool lc = (all_live >> c) & 1u;
        std::uint16_t x = matrix[r][c];
        if (lr && !lc) x = matrix[r][r];
        if (!lr && lc) x = matrix[c][c];
        hamming[block * 1024u + e] = x;
    }
}

}  // namespace bitplane::cuda::kernels
