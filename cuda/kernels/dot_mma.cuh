// dot_mma: the dot product of narrow interleaved all-raw block pairs as a 1-bit tensor-core
// product. Included by cuda/reduce.cu only (after reduce.cuh).
//
// For a pair of full blocks whose planes are all below 16, dot = sum_{j,k} 2^(j+k) M[j][k]
// with M[j][k] = popcount(A_j AND B_k) over the 2048 bits of plane j of a and plane k of b.
// M is a 16 x 16 x 2048 binary matrix product: mma.sync m16n8k256 .b1 with AND.popc computes
// a 16 x 8 tile of it over 256 bits per instruction, so a pair costs 8 k-steps of one or two
// instructions (two when b has a plane at or above 8) instead of 6,400 popcounts per warp
// (the CUDA-core kernel dot_planes, which was compute-bound at about half the bandwidth).
//
// Bytes: one warp per pair, several pairs in flight per warp. Each pair's two encoded blocks
// are copied whole into shared memory with 16-byte cp.async (their byte sizes come from the
// offset table, so the header is not read from global memory first), double-buffered: the copy
// of the warp's next pair is in flight while this one is multiplied, and the offsets of the
// pair after that are loaded into registers a step ahead. The header is then parsed from
// shared memory; a pair that does not qualify (sparse, delta, zigzag, wide, partial, too big
// to copy) is appended to the work list for dot_values, as in dot_planes.
//
// Fragments (PTX ISA, mma.m16n8k256 .b1): lane l, g = l / 4, q = l % 4. A (row major, 16 x
// 256): a0 = row g, bits 32q..32q+31; a1 = row g + 8, same bits; a2, a3 = rows g, g + 8, bits
// 128 + 32q... B (column major, 256 x 8): b0 = column g, bits 32q..; b1 = column g, bits
// 128 + 32q... D: d0, d1 = row g, columns 2q, 2q + 1; d2, d3 = row g + 8, same columns. Row j
// of A is plane j of a, column k of B plane k of b (second tile: planes 8..15), and k-step t
// covers 32-bit columns 8t .. 8t + 7 of the planes, so bits 32q.. of a row are column word
// 8t + q and bits 128 + 32q.. column word 8t + 4 + q. Interleaved, word c of the rank-r stored
// plane is at payload word c * stored + r. The counts accumulate in the D registers across
// pairs (at most 2048 per pair: 512 pairs stay far below 2^31) and are weighted by 2^(j+k)
// when flushed. The frame-of-reference terms need sum(r_a) and sum(r_b): every payload word is
// loaded by exactly one lane, which adds popcount(word) << plane.
#pragma once

#include "reduce.cuh"

#include <cuda_pipeline.h>

#include <cstddef>
#include <cstdint>

namespace bitplane::cuda::kernels {

inline constexpr int mma_warps = 4;                                     // warps per CTA
inline constexpr unsigned mma_block_bytes = 13u + 16u * 256u;           // largest block copied
inline constexpr unsigned mma_buffer_bytes = (mma_block_bytes + 15u + 16u + 15u) / 16u * 16u + 16u;
inline constexpr unsigned mma_stages = 2;
inline constexpr unsigned mma_flush_pairs = 512;                        // D counts < 2^31
/// Dynamic shared memory of one dot_mma CTA.
inline constexpr std::size_t mma_smem_bytes = std::size_t{mma_warps} * mma_stages * 2u * mma_buffer_bytes;

/// Starts copying the block at payload[begin, end) into `buffer` (16-byte chunks covering it);
/// returns the block's byte position inside the buffer.
__device__ __forceinline__ unsigned mma_issue(const std::uint8_t* payload, std::uint64_t begin, std::uint64_t end,
                                              std::uint8_t* buffer, unsigned lane) {
    const std::uint64_t first = begin & ~std::uint64_t{15};
    const std::uint64_t chunks = (end - first + 15u) / 16u;  // the payload's 16-byte padding covers the last one
    for (unsigned i = lane; i < chunks; i += 32u) __pipeline_memcpy_async(buffer + 16u * i, payload + first + 16u * i, 16);
    return static_cast<unsigned>(begin - first);
}

__device__ __forceinline__ std::uint32_t smem_u32(const std::uint8_t* p) {
    return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
           (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

/// A copied block's header (parse_plain_header, from the shared-memory copy), with where its
/// payload starts in the buffer.
struct mma_header : plain_header {
    unsigned first_word;  // buffer word holding the payload's first byte
    unsigned shift;       // payload misalignment in bits (funnel shift)
};

__device__ __forceinline__ mma_header mma_parse(const std::uint8_t* buffer, unsigned at, bool is_signed) {
    mma_header h{parse_plain_header(buffer + at, is_signed, [](const std::uint8_t* q) { return smem_u32(q); }), 0u, 0u};
    h.first_word = (at + h.body) / 4u;
    h.shift = (at + h.body) % 4u * 8u;
    return h;
}

/// What one lane needs of plane `j` of a block: where its words are, or its constant word.
struct mma_plane {
    bool stored;
    std::uint32_t constant;  // ~0 for an all-one plane, else 0
    unsigned word;           // buffer word of column 0 (plus c * stored for column c)
};

__device__ __forceinline__ mma_plane mma_plane_of(const mma_header& h, unsigned j) {
    mma_plane p;
    p.stored = ((h.live >> j) & 1u) != 0;
    p.constant = ((h.ones >> j) & 1u) ? ~0u : 0u;
    p.word = h.first_word + static_cast<unsigned>(__popc(h.live & ((1u << j) - 1u)));
    return p;
}

__device__ __forceinline__ std::uint32_t mma_word(const std::uint32_t* words, const mma_plane& p, unsigned stored,
                                                  unsigned shift, unsigned column) {
    if (!p.stored) return p.constant;
    const unsigned w = p.word + column * stored;
    return __funnelshift_r(words[w], words[w + 1], shift);
}

__device__ __forceinline__ void mma_b1(int (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                       std::uint32_t a3, std::uint32_t b0, std::uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

/// total += the counts in d weighted by 2^(row + column), then d = 0.
__device__ __forceinline__ void mma_flush(int (&d0)[4], int (&d1)[4], unsigned g, unsigned q, u128& total) {
    std::uint64_t sum = 0;
    sum += static_cast<std::uint64_t>(static_cast<unsigned>(d0[0])) << (g + 2u * q);
    sum += static_cast<std::uint64_t>(static_cast<unsigned>(d0[1])) << (g + 2u * q + 1u);
    sum += static_cast<std::uint64_t>(static_cast<unsigned>(d0[2])) << (g + 8u + 2u * q);
    sum += static_cast<std::uint64_t>(static_cast<unsigned>(d0[3])) << (g + 8u + 2u * q + 1u);
    sum += static_cast<std::uint64_t>(static_cast<unsigned>(d1[0])) << (g + 8u + 2u * q);
    sum += static_cast<std::uint64_t>(static_cast<unsigned>(d1[1])) << (g + 8u + 2u * q + 1u);
    sum += static_cast<std::uint64_t>(static_cast<unsigned>(d1[2])) << (g + 16u + 2u * q);
    sum += static_cast<std::uint64_t>(static_cast<unsigned>(d1[3])) << (g + 16u + 2u * q + 1u);
    total += sum;
#pragma unroll
    for (int i = 0; i < 4; ++i) d0[i] = d1[i] = 0;
}

/// dot over block pairs [first, last) (file comment); pairs that do not qualify go to the list.
__global__ void __launch_bounds__(mma_warps * 32)
dot_mma(blocks_ref a, blocks_ref b, bool is_signed, std::uint64_t first, std::uint64_t last, std::uint64_t* partial,
        std::uint64_t* list, unsigned long long* listed) {
    extern __shared__ uint4 mma_dynamic[];
    const unsigned lane = threadIdx.x % 32u;
    const unsigned warp = threadIdx.x / 32u;
    const unsigned g = lane / 4u;
    const unsigned q = lane % 4u;
    auto* buffers = reinterpret_cast<std::uint8_t*>(mma_dynamic) + std::size_t{warp} * mma_stages * 2u * mma_buffer_bytes;
    auto buffer = [&](unsigned stage, unsigned operand) { return buffers + (2u * stage + operand) * mma_buffer_bytes; };
    const bool same = a.payload == b.payload && a.offsets == b.offsets;
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * mma_warps;

    // A pair is "copied" when its blocks were sent to a stage buffer; otherwise it is listed.
    auto fits = [&](std::uint64_t pair, std::uint64_t a0, std::uint64_t a1, std::uint64_t b0, std::uint64_t b1) {
        return a1 - a0 <= mma_block_bytes && b1 - b0 <= mma_block_bytes && block_count_of(a, pair) == block_values;
    };
    struct pending {
        std::uint64_t pair;
        bool copied;
        unsigned at_a;
        unsigned at_b;
    };
    auto issue = [&](std::uint64_t pair, std::uint64_t a0, std::uint64_t a1, std::uint64_t b0, std::uint64_t b1,
                     unsigned stage) {
        pending p{pair, false, 0, 0};
        if (pair < last && fits(pair, a0, a1, b0, b1)) {
            p.copied = true;
            p.at_a = mma_issue(a.payload, a0, a1, buffer(stage, 0), lane);
            p.at_b = same ? p.at_a : mma_issue(b.payload, b0, b1, buffer(stage, 1), lane);
        }
        __pipeline_commit();  // one group per step, empty or not: wait_prior(1) counts on it
        return p;
    };
    struct offsets4 {
        std::uint64_t a0, a1, b0, b1;
    };
    auto offsets_of = [&](std::uint64_t pair) {
        offsets4 o{0, 0, 0, 0};
        if (pair < last) {
            o.a0 = a.offsets[pair];
            o.a1 = a.offsets[pair + 1];
            o.b0 = same ? o.a0 : b.offsets[pair];
            o.b1 = same ? o.a1 : b.offsets[pair + 1];
        }
        return o;
    };

    u128 total = 0;
    int d0[4] = {0, 0, 0, 0};
    int d1[4] = {0, 0, 0, 0};
    unsigned counted = 0;
    std::uint64_t pair = first + static_cast<std::uint64_t>(blockIdx.x) * mma_warps + warp;
    unsigned stage = 0;
    offsets4 o = offsets_of(pair);
    pending now = issue(pair, o.a0, o.a1, o.b0, o.b1, stage);
    offsets4 next = offsets_of(pair + step);
    for (; pair < last; pair += step) {
        const pending later = issue(pair + step, next.a0, next.a1, next.b0, next.b1, stage ^ 1u);
        next = offsets_of(pair + 2 * step);
        __pipeline_wait_prior(1);
        __syncwarp();
        if (now.copied) {
            const std::uint8_t* ba = buffer(stage, 0);
            const std::uint8_t* bb = same ? ba : buffer(stage, 1);
            const mma_header ha = mma_parse(ba, now.at_a, is_signed);
            const mma_header hb = same ? ha : mma_parse(bb, now.at_b, is_signed);
            now.copied = ha.ok && hb.ok;
            if (now.copied) {
                const auto* wa = reinterpret_cast<const std::uint32_t*>(ba);
                const auto* wb = reinterpret_cast<const std::uint32_t*>(bb);
                const mma_plane pa_lo = mma_plane_of(ha, g), pa_hi = mma_plane_of(ha, g + 8u);
                const mma_plane pb_lo = mma_plane_of(hb, g), pb_hi = mma_plane_of(hb, g + 8u);
                const bool wide_b = ((hb.live | hb.ones) >> 8) != 0;
                const bool bases = ha.base != 0 || hb.base != 0;
                std::uint64_t sum_a = 0;  // this lane's share of sum(r_a), sum(r_b)
                std::uint64_t sum_b = 0;
#pragma unroll 2
                for (unsigned t = 0; t < 8u; ++t) {
                    const unsigned c0 = 8u * t + q;
                    const unsigned c1 = c0 + 4u;
                    const std::uint32_t a0 = mma_word(wa, pa_lo, ha.stored, ha.shift, c0);
                    const std::uint32_t a1 = mma_word(wa, pa_hi, ha.stored, ha.shift, c0);
                    const std::uint32_t a2 = mma_word(wa, pa_lo, ha.stored, ha.shift, c1);
                    const std::uint32_t a3 = mma_word(wa, pa_hi, ha.stored, ha.shift, c1);
                    const std::uint32_t b0 = mma_word(wb, pb_lo, hb.stored, hb.shift, c0);
                    const std::uint32_t b1 = mma_word(wb, pb_lo, hb.stored, hb.shift, c1);
                    mma_b1(d0, a0, a1, a2, a3, b0, b1);
                    std::uint32_t b2 = 0;
                    std::uint32_t b3 = 0;
                    if (wide_b) {
                        b2 = mma_word(wb, pb_hi, hb.stored, hb.shift, c0);
                        b3 = mma_word(wb, pb_hi, hb.stored, hb.shift, c1);
                        mma_b1(d1, a0, a1, a2, a3, b2, b3);
                    }
                    if (bases) {
                        sum_a += static_cast<std::uint64_t>(__popc(a0) + __popc(a2)) << g;
                        sum_a += static_cast<std::uint64_t>(__popc(a1) + __popc(a3)) << (g + 8u);
                        sum_b += static_cast<std::uint64_t>(__popc(b0) + __popc(b1)) << g;
                        sum_b += static_cast<std::uint64_t>(__popc(b2) + __popc(b3)) << (g + 8u);
                    }
                }
                if (bases) {
                    const u128 base_a = is_signed ? static_cast<u128>(static_cast<__int128>(static_cast<std::int32_t>(ha.base)))
                                                  : static_cast<u128>(ha.base);
                    const u128 base_b = is_signed ? static_cast<u128>(static_cast<__int128>(static_cast<std::int32_t>(hb.base)))
                                                  : static_cast<u128>(hb.base);
                    total += base_b * sum_a + base_a * sum_b;
                    if (lane == 0) total += base_a * base_b * block_values;
                }
                if (++counted == mma_flush_pairs) {
                    mma_flush(d0, d1, g, q, total);
                    counted = 0;
                }
            }
        }
        if (!now.copied && lane == 0) list[atomicAdd(listed, 1ull)] = pair;
        __syncwarp();  // the buffers of this stage are refilled two steps on
        now = later;
        stage ^= 1u;
    }
    __pipeline_wait_prior(0);
    mma_flush(d0, d1, g, q, total);
    write_partial<mma_warps * 32>(total, partial);
}

}  // namespace bitplane::cuda::kernels
