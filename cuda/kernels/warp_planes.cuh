// Warp and CTA helpers that measure bit-planes: the ballot transpose of 32-value columns and the
// pair popcount matrix of a set of planes. Used by transpose_hamming (encode.cuh) and the block
// encoder (encode_block.cuh). Included by kernel files only; C++17-clean.
#pragma once

#include <cstdint>

namespace bitplane::cuda::kernels {

/// Transposes eight 32-value columns held by a warp (lane b holds value b of column q in
/// v[q]): for each bit j set in `bits` (the same in every lane), eight independent ballots give
/// word j of the eight columns, which lane j keeps in mine[q]. Bits outside `bits` are left as
/// they were in mine (the caller zeroes it: those plane words are zero, or not needed).
__device__ __forceinline__ void ballot_columns(const std::uint32_t (&v)[8], std::uint32_t bits,
                                               std::uint32_t (&mine)[8]) {
    const unsigned lane = threadIdx.x % 32u;
    for (std::uint32_t m = bits; m != 0; m &= m - 1) {
        const unsigned j = static_cast<unsigned>(__ffs(m) - 1);
        const bool keep = j == lane;
#pragma unroll
        for (int q = 0; q < 8; ++q) {
            const std::uint32_t word = __ballot_sync(0xffffffffu, (v[q] >> j) & 1u);
            if (keep) mine[q] = word;
        }
    }
}

/// The symmetric matrix of popcount(R_i XOR R_j) over `n` rows of 64 words (diagonal:
/// popcount(R_i)), computed by every thread of a CTA of `threads` threads (all must call it):
/// four threads per pair (i <= j), 16 words each, as four uint4 from rows.quad(i, k) for
/// k = 4 * quarter .. 4 * quarter + 3 (16 quads a row), summed by shuffles. Each pair's count
/// goes to store(i, j, count) from one thread. No barrier inside: the caller syncs around it.
template <class Rows, class Store>
__device__ __forceinline__ void cta_pair_popcounts(const Rows& rows, unsigned n, unsigned threads, Store store) {
    const unsigned pairs = n * (n + 1) / 2;
    // Every thread runs every round (idle ones count zero words) so that the shuffles see the
    // whole warp.
    const unsigned rounds = (4u * pairs + threads - 1) / threads;
    for (unsigned round = 0; round < rounds; ++round) {
        const unsigned slot = round * threads + threadIdx.x;
        const unsigned p = slot / 4u;
        const unsigned quarter = slot % 4u;
        unsigned count = 0;
        unsigned i = 0;
        unsigned left = p;
        if (p < pairs) {
            // p -> (i, i + left), row-major over the upper triangle.
            while (left >= n - i) {
                left -= n - i;
                ++i;
            }
            const unsigned j = i + left;
#pragma unroll
            for (unsigned k = 0; k < 4; ++k) {
                const uint4 x = rows.quad(i, 4u * quarter + k);
                const uint4 y = i == j ? make_uint4(0, 0, 0, 0) : rows.quad(j, 4u * quarter + k);
                count += __popc(x.x ^ y.x) + __popc(x.y ^ y.y) + __popc(x.z ^ y.z) + __popc(x.w ^ y.w);
            }
        }
        count += __shfl_xor_sync(0xffffffffu, count, 1);
        count += __shfl_xor_sync(0xffffffffu, count, 2);
        if (p < pairs && quarter == 0) store(i, i + left, count);
    }
}

}  // namespace bitplane::cuda::kernels
