// Kernels of the exact reductions (sum, dot) over device-resident encoded blocks. Included by
// cuda/reduce.cu only.
//
// dot runs in two kernels:
//  - dot_planes: one warp per block pair, for pairs where both blocks are dense, plain or
//    frame of reference, full (2048 values), all-raw (interleaved) and have no plane at or
//    above 16 (uniform narrow data: the common case). The warp copies both payloads into
//    shared memory with asynchronous copies (cp.async, all words in flight at once), each lane takes two 32-bit columns and computes
//    sum_{j,k} 2^(j+k) popcount(A_j AND B_k) with both operands' words in registers, plus the
//    frame-of-reference terms. Other pairs are appended to a work list.
//  - dot_values: one CTA per listed pair; both blocks are decoded in shared memory
//    (block_device.cuh) and their values multiplied.
// Each CTA writes one 128-bit partial; reduce_partials adds them.
#pragma once

#include "block_device.cuh"
#include "blocks_ref.cuh"

#include <cuda_pipeline.h>

#include <cstddef>
#include <cstdint>

namespace bitplane::cuda::kernels {

/// The header of a plain block as the fast reduction kernels read it, and whether they can
/// take it; `load` reads a u32 at any byte (load_u32 from global memory, smem_u32 from a
/// shared-memory copy). `body` is the offset of the interleaved payload.
struct plain_header {
    bool ok;          // dot's fast kernels take it (planes_exact, no plane at or above 16)
    bool plain_form;  // dense, plain or frame of reference, all-raw (or nothing stored)
    bool no_wrap;     // base + residual never passes the type's maximum
    unsigned transform;
    std::uint32_t live;
    std::uint32_t ones;
    std::uint32_t base;
    unsigned stored;
    unsigned body;
};

template <class Load>
__device__ __forceinline__ plain_header parse_plain_header(const std::uint8_t* b, bool is_signed, Load load) {
    plain_header h;
    const unsigned flags = b[0];
    const unsigned transform = flags & 3u;
    unsigned pos = 1;
    h.base = 0;
    if (transform == transform_for) {
        h.base = load(b + 1);
        pos = 5;
    }
    h.live = load(b + pos);
    pos += 4;
    h.ones = 0;
    if (flags & 8u) {
        h.ones = load(b + pos);
        pos += 4;
    }
    h.stored = static_cast<unsigned>(__popc(h.live));
    h.body = pos;
    const std::uint32_t nonzero = h.live | h.ones;
    // The residual form v = base + r must hold without passing the type's maximum (the
    // encoder never writes otherwise; such blocks go to the decoding kernel).
    const long long top = is_signed ? 0x7fffffffLL : 0xffffffffLL;
    const long long base = is_signed ? static_cast<long long>(static_cast<std::int32_t>(h.base))
                                     : static_cast<long long>(h.base);
    h.transform = transform;
    h.plain_form = (flags & 4u) == 0 && transform <= transform_for && ((flags & 0x10u) != 0 || h.stored == 0);
    h.no_wrap = base + static_cast<long long>(nonzero) <= top;
    h.ok = h.plain_form && h.no_wrap && (nonzero >> 16) == 0;
    return h;
}

/// Warp-level header of a block for dot_planes (ok == false when it does not qualify), with
/// its payload's address in global memory.
struct fast_header : plain_header {
    const std::uint8_t* payload;
};

__device__ __forceinline__ fast_header fast_parse(const std::uint8_t* b, bool is_signed) {
    fast_header h{parse_plain_header(b, is_signed, [](const std::uint8_t* q) { return load_u32(q); }), nullptr};
    h.payload = b + h.body;
    return h;
}

inline constexpr int planes_warps = 4;                   // warps per CTA of dot_planes
inline constexpr unsigned fast_planes = 16;              // planes a fast block may use
inline constexpr unsigned fast_words = fast_planes * plane_words;

/// Starts copying the aligned words covering a block's interleaved payload (stored * 64 words
/// from an unaligned byte, so one word more) into `dst`, asynchronously (cp.async): every
/// word of both operands is in flight at once, with no register staging. column_planes
/// realigns them with a funnel shift.
__device__ __forceinline__ void copy_payload(const std::uint8_t* src, unsigned words, std::uint32_t* dst, unsigned lane) {
    const auto* q = reinterpret_cast<const std::uint32_t*>(reinterpret_cast<std::uintptr_t>(src) & ~std::uintptr_t{3});
    for (unsigned w = lane; w <= words; w += 32u) __pipeline_memcpy_async(dst + w, q + w, 4);
}

/// The words of column `c` of a fast block, by plane: live planes from the copied payload
/// (word c of rank r at c * stored + r, shifted by the payload's misalignment), all-one planes
/// as ~0, others 0.
__device__ __forceinline__ void column_planes(const std::uint32_t* words, const fast_header& h, unsigned c,
                                              std::uint32_t (&out)[fast_planes]) {
    unsigned at = c * h.stored;
    const unsigned shift = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(h.payload) & 3u) * 8u;
#pragma unroll
    for (unsigned j = 0; j < fast_planes; ++j) {
        if ((h.live >> j) & 1u) {
            out[j] = __funnelshift_r(words[at], words[at + 1], shift);
            ++at;
        } else {
            out[j] = ((h.ones >> j) & 1u) ? ~0u : 0u;
        }
    }
}

/// Sums a 128-bit value over the CTA into partial[blockIdx.x] (lo, hi).
template <int THREADS>
__device__ inline void write_partial(u128 value, std::uint64_t* partial) {
    __shared__ std::uint64_t lo[THREADS];
    __shared__ std::uint64_t hi[THREADS];
    // Warp sums first: 128-bit adds through two 64-bit halves with carry.
    for (int offset = 16; offset > 0; offset /= 2) {
        const std::uint64_t l = __shfl_down_sync(0xffffffffu, static_cast<std::uint64_t>(value), offset);
        const std::uint64_t h = __shfl_down_sync(0xffffffffu, static_cast<std::uint64_t>(value >> 64), offset);
        value += (static_cast<u128>(h) << 64) | l;
    }
    const unsigned lane = threadIdx.x % 32u;
    const unsigned warp = threadIdx.x / 32u;
    if (lane == 0) {
        lo[warp] = static_cast<std::uint64_t>(value);
        hi[warp] = static_cast<std::uint64_t>(value >> 64);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        u128 total = 0;
        for (int w = 0; w < THREADS / 32; ++w) total += (static_cast<u128>(hi[w]) << 64) | lo[w];
        partial[2 * blockIdx.x] = static_cast<std::uint64_t>(total);
        partial[2 * blockIdx.x + 1] = static_cast<std::uint64_t>(total >> 64);
    }
}

/// dot over block pairs [first, last) (see the file comment). Pairs that do not qualify are
/// appended to list[0 .. *listed).
__global__ void __launch_bounds__(planes_warps * 32)
dot_planes(blocks_ref a, blocks_ref b, bool is_signed, std::uint64_t first, std::uint64_t last, std::uint64_t* partial,
           std::uint64_t* list, unsigned long long* listed) {
    __shared__ std::uint32_t words[planes_warps][2][fast_words + 4];
    const unsigned lane = threadIdx.x % 32u;
    const unsigned warp = threadIdx.x / 32u;
    std::uint32_t* wa = words[warp][0];
    std::uint32_t* wb = words[warp][1];
    const bool same = a.payload == b.payload && a.offsets == b.offsets;
    u128 total = 0;
    const std::uint64_t warps = static_cast<std::uint64_t>(gridDim.x) * planes_warps;
    std::uint64_t pair = first + static_cast<std::uint64_t>(blockIdx.x) * planes_warps + warp;
    std::uint64_t next_a = pair < last ? a.offsets[pair] : 0;
    std::uint64_t next_b = pair < last ? b.offsets[pair] : 0;
    for (; pair < last; pair += warps) {
        const std::uint8_t* ba = a.payload + next_a;
        const std::uint8_t* bb = b.payload + next_b;
        // The next pair's offsets load while this pair is worked on.
        if (pair + warps < last) {
            next_a = a.offsets[pair + warps];
            next_b = b.offsets[pair + warps];
        }
        const fast_header ha = fast_parse(ba, is_signed);
        const fast_header hb = same ? ha : fast_parse(bb, is_signed);
        if (!ha.ok || !hb.ok || block_count_of(a, pair) != block_values) {
            if (lane == 0) list[atomicAdd(listed, 1ull)] = pair;
            continue;
        }
        __syncwarp();
        copy_payload(ha.payload, ha.stored * plane_words, wa, lane);
        if (!same) copy_payload(hb.payload, hb.stored * plane_words, wb, lane);
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncwarp();
        const std::uint32_t* sb = same ? wa : wb;
        std::uint32_t a0[fast_planes], a1[fast_planes], b0[fast_planes], b1[fast_planes];
        column_planes(wa, ha, lane, a0);
        column_planes(wa, ha, lane + 32u, a1);
        column_planes(sb, hb, lane, b0);
        column_planes(sb, hb, lane + 32u, b1);
        const std::uint32_t za = ha.live | ha.ones;
        const std::uint32_t zb = hb.live | hb.ones;
        std::uint64_t product = 0;
#pragma unroll
        for (unsigned j = 0; j < fast_planes; ++j) {
            if (!((za >> j) & 1u)) continue;
            std::uint32_t row = 0;  // sum_k 2^k popcounts: < 16 * 64 * 2^15
#pragma unroll
            for (unsigned k = 0; k < fast_planes; ++k) {
                if (!((zb >> k) & 1u)) continue;
                row += static_cast<std::uint32_t>(__popc(a0[j] & b0[k]) + __popc(a1[j] & b1[k])) << k;
            }
            product += static_cast<std::uint64_t>(row) << j;
        }
        total += product;
        if (ha.base != 0 || hb.base != 0) {
            // (ba + ra)(bb + rb) = ra rb + bb ra + ba rb + ba bb, bases as integers of the type.
            std::uint64_t sa = 0;
            std::uint64_t sb_sum = 0;
#pragma unroll
            for (unsigned j = 0; j < fast_planes; ++j) {
                sa += static_cast<std::uint64_t>(__popc(a0[j]) + __popc(a1[j])) << j;
                sb_sum += static_cast<std::uint64_t>(__popc(b0[j]) + __popc(b1[j])) << j;
            }
            const u128 base_a = is_signed ? static_cast<u128>(static_cast<__int128>(static_cast<std::int32_t>(ha.base)))
                                          : static_cast<u128>(ha.base);
            const u128 base_b = is_signed ? static_cast<u128>(static_cast<__int128>(static_cast<std::int32_t>(hb.base)))
                                          : static_cast<u128>(hb.base);
            total += base_b * sa + base_a * sb_sum;
            if (lane == 0) total += base_a * base_b * block_values;
        }
    }
    write_partial<planes_warps * 32>(total, partial);
}

inline constexpr int values_threads = 256;

/// dot of the listed pairs by decoding both blocks (one CTA per pair, grid-stride).
__global__ void __launch_bounds__(values_threads)
dot_values(blocks_ref a, blocks_ref b, bool is_signed, const std::uint64_t* list, const unsigned long long* listed,
           std::uint64_t* partial) {
    __shared__ block_smem s;
    __shared__ typename block_values_traits<values_threads>::scan::TempStorage scan;
    constexpr int items = block_values_traits<values_threads>::items;
    const unsigned long long count = *listed;
    u128 total = 0;
    for (unsigned long long i = blockIdx.x; i < count; i += gridDim.x) {
        const std::uint64_t pair = list[i];
        const unsigned n = block_count_of(a, pair);
        std::uint32_t va[items];
        std::uint32_t vb[items];
        load_block_planes(a.payload + a.offsets[pair], n, s);
        decode_values<values_threads>(s, scan, va);
        __syncthreads();
        load_block_planes(b.payload + b.offsets[pair], n, s);
        decode_values<values_threads>(s, scan, vb);
        __syncthreads();
#pragma unroll
        for (int q = 0; q < items; ++q) {
            if (is_signed) {
                const long long p = static_cast<long long>(static_cast<std::int32_t>(va[q])) *
                                    static_cast<long long>(static_cast<std::int32_t>(vb[q]));
                total += static_cast<u128>(static_cast<__int128>(p));
            } else {
                total += static_cast<u128>(static_cast<std::uint64_t>(va[q]) * vb[q]);
            }
        }
    }
    write_partial<values_threads>(total, partial);
}

inline constexpr int sum_warps = 8;  // warps per CTA of sum_planes

/// sum over the blocks that need no decoding: full, dense blocks, plain or frame of reference,
/// stored all-raw (uniform data: the common case), one warp per block. Their sum is
/// sum_j w_j pop(P_j) + 2048 (W1 + base), w_j = 2^j (-2^31 for plane 31 of a plain int32
/// block), so the warp reads the interleaved payload once, word by word (word w is plane
/// rank w mod stored), and never rebuilds a value: 1.25 bytes a value for 10-bit data
/// against the 4 that a sum of the dense values reads. Other blocks are appended to
/// list[0 .. *listed) for sum_values.
__global__ void __launch_bounds__(sum_warps * 32)
sum_planes(blocks_ref v, bool is_signed, std::uint64_t* partial, std::uint64_t* list, unsigned long long* listed) {
    __shared__ long long weights[sum_warps][plane_count];
    const unsigned lane = threadIdx.x % 32u;
    const unsigned warp = threadIdx.x / 32u;
    u128 total = 0;  // two's complement
    const std::uint64_t warps = static_cast<std::uint64_t>(gridDim.x) * sum_warps;
    for (std::uint64_t block = static_cast<std::uint64_t>(blockIdx.x) * sum_warps + warp; block < v.blocks;
         block += warps) {
        const std::uint8_t* b = v.payload + v.offsets[block];
        const plain_header h = parse_plain_header(b, is_signed, [](const std::uint8_t* q) { return load_u32(q); });
        // Plain blocks are exact with the signed weight of plane 31; frame-of-reference blocks
        // when base + residual does not wrap (the encoder never writes otherwise).
        const bool exact = h.plain_form && (h.transform == transform_none || h.no_wrap);
        if (!exact || block_count_of(v, block) != block_values) {
            if (lane == 0) list[atomicAdd(listed, 1ull)] = block;
            continue;
        }
        const bool signed_top = is_signed && h.transform == transform_none;
        auto weight = [signed_top](unsigned j) { return signed_top && j == 31u ? -(1ll << 31) : (1ll << j); };
        __syncwarp();
        if (lane < h.stored) weights[warp][lane] = weight(static_cast<unsigned>(__fns(h.live, 0u, static_cast<int>(lane) + 1)));
        __syncwarp();
        long long sum = 0;  // per lane: at most 2 * stored words of 32 bits, weights below 2^32
        const unsigned words = h.stored * plane_words;
        if (words != 0) {
            const std::uint8_t* payload = b + h.body;
            const unsigned step = 32u % h.stored;
            unsigned rank = lane % h.stored;
            for (unsigned w = lane; w < words; w += 32u) {
                sum += weights[warp][rank] * __popc(load_u32(payload + 4u * w));
                rank += step;
                if (rank >= h.stored) rank -= h.stored;
            }
        }
        if (lane == 0) {
            long long w1 = 0;
            for (std::uint32_t ones = h.ones; ones != 0; ones &= ones - 1) w1 += weight(static_cast<unsigned>(__ffs(ones) - 1));
            const long long base = is_signed ? static_cast<long long>(static_cast<std::int32_t>(h.base))
                                             : static_cast<long long>(h.base);
            sum += (w1 + base) * static_cast<long long>(block_values);
        }
        total += static_cast<u128>(static_cast<__int128>(sum));
    }
    write_partial<sum_warps * 32>(total, partial);
}

/// Sum of the listed blocks' values (one CTA per block, grid-stride), by decoding.
__global__ void __launch_bounds__(values_threads)
sum_values(blocks_ref v, bool is_signed, const std::uint64_t* list, const unsigned long long* listed,
           std::uint64_t* partial) {
    __shared__ block_smem s;
    __shared__ typename block_values_traits<values_threads>::scan::TempStorage scan;
    constexpr int items = block_values_traits<values_threads>::items;
    u128 total = 0;
    const unsigned long long count = *listed;
    for (unsigned long long i = blockIdx.x; i < count; i += gridDim.x) {
        const std::uint64_t block = list[i];
        std::uint32_t values[items];
        load_block_planes(v.payload + v.offsets[block], block_count_of(v, block), s);
        decode_values<values_threads>(s, scan, values);
        __syncthreads();
#pragma unroll
        for (int q = 0; q < items; ++q)
            total += is_signed ? static_cast<u128>(static_cast<__int128>(static_cast<std::int32_t>(values[q])))
                               : static_cast<u128>(values[q]);
    }
    write_partial<values_threads>(total, partial);
}

/// result (lo, hi) += sum of `count` partials (one CTA).
__global__ void reduce_partials(const std::uint64_t* partial, unsigned count, std::uint64_t* result) {
    u128 total = 0;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x)
        total += (static_cast<u128>(partial[2 * i + 1]) << 64) | partial[2 * i];
    __shared__ std::uint64_t lo[256];
    __shared__ std::uint64_t hi[256];
    lo[threadIdx.x] = static_cast<std::uint64_t>(total);
    hi[threadIdx.x] = static_cast<std::uint64_t>(total >> 64);
    __syncthreads();
    if (threadIdx.x == 0) {
        u128 sum = (static_cast<u128>(result[1]) << 64) | result[0];
        for (unsigned t = 0; t < blockDim.x; ++t) sum += (static_cast<u128>(hi[t]) << 64) | lo[t];
        result[0] = static_cast<std::uint64_t>(sum);
        result[1] = static_cast<std::uint64_t>(sum >> 64);
    }
}

/// Decodes every block into out (one CTA per block, grid-stride).
__global__ void __launch_bounds__(values_threads)
decode_blocks(blocks_ref v, std::uint32_t* out) {
    __shared__ block_smem s;
    __shared__ typename block_values_traits<values_threads>::scan::TempStorage scan;
    constexpr int items = block_values_traits<values_threads>::items;
    for (std::uint64_t block = blockIdx.x; block < v.blocks; block += gridDim.x) {
        const unsigned n = block_count_of(v, block);
        std::uint32_t values[items];
        load_block_planes(v.payload + v.offsets[block], n, s);
        decode_values<values_threads>(s, scan, values);
        std::uint32_t* target = out + block * block_values;
        const unsigned first = threadIdx.x * static_cast<unsigned>(items);
        if (n == block_values) {
            auto* vec = reinterpret_cast<uint4*>(target + first);
#pragma unroll
            for (int q = 0; q < items / 4; ++q)
                vec[q] = make_uint4(values[4 * q], values[4 * q + 1], values[4 * q + 2], values[4 * q + 3]);
        } else {
#pragma unroll
            for (int q = 0; q < items; ++q)
                if (first + static_cast<unsigned>(q) < n) target[first + static_cast<unsigned>(q)] = values[q];
        }
        __syncthreads();
    }
}

}  // namespace bitplane::cuda::kernels
