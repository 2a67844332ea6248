// Kernels over decoded values and over bitset blocks: scans (vector -> dense bitset), bitwise
// operations of two vectors (dense values out), Hamming matrices of value planes, jaccard
// counts, bitset algebra and popcount. Included by cuda/ops.cu only.
//
// Vectors: one CTA of 256 threads per block (grid-stride), decoded in shared memory by the
// general route of block_device.cuh (thread t holds values 8t .. 8t+7). Scans compare the
// decoded values; bit-sliced comparisons on the planes (as the CPU's scans) are not written:
// the decode already runs at the payload's bandwidth and a scan reads each block once.
//
// Bitsets on the device come in two forms (cuda/device_bitset.cpp): dense (64 words per block)
// or encoded (the host bitset's stored-block payloads, byte for byte, and a 16-byte record per
// block: the host entry, or kind 0 for an empty block, 0x80 for a full one). A block of either
// form is rebuilt into 64 words of shared memory by the CTA; encoded payloads are the codec's
// plane payloads (positions, runs, gaps, raw), so apply_payload reads them.
#pragma once

#include "block_device.cuh"
#include "blocks_ref.cuh"

#include <cstddef>
#include <cstdint>

namespace bitplane::cuda::kernels {

inline constexpr int ops_threads = 256;
inline constexpr int ops_items = block_values_traits<ops_threads>::items;  // 8

/// Decodes block `block` of v into `values` (blocked: thread t, values 8t ..), zero past the
/// block's count. All threads; `s` and `scan` are free again after the call's final barrier.
__device__ __forceinline__ unsigned decode_block_values(const blocks_ref& v, std::uint64_t block, block_smem& s,
                                                        typename block_values_traits<ops_threads>::scan::TempStorage& scan,
                                                        std::uint32_t (&values)[ops_items]) {
    const unsigned n = block_count_of(v, block);
    load_block_planes(v.payload + v.offsets[block], n, s);
    decode_values<ops_threads>(s, scan, values);
    const unsigned first = threadIdx.x * static_cast<unsigned>(ops_items);
#pragma unroll
    for (int q = 0; q < ops_items; ++q)
        if (first + static_cast<unsigned>(q) >= n) values[q] = 0;  // a frame-of-reference base lands there
    __syncthreads();
    return n;
}

// ---- scans ------------------------------------------------------------------------------------

/// Bits of positions whose key (value, or value ^ 2^31 for signed types: the order as unsigned)
/// lies in [lo, hi], inverted when `invert`; into 64 words per block of `out`.
__global__ void __launch_bounds__(ops_threads)
scan_range(blocks_ref v, std::uint32_t flip, std::uint32_t lo, std::uint32_t hi, bool invert, std::uint32_t* out) {
    __shared__ block_smem s;
    __shared__ typename block_values_traits<ops_threads>::scan::TempStorage scan;
    __shared__ std::uint8_t bits[ops_threads];
    for (std::uint64_t block = blockIdx.x; block < v.blocks; block += gridDim.x) {
        std::uint32_t values[ops_items];
        const unsigned n = decode_block_values(v, block, s, scan, values);
        const unsigned first = threadIdx.x * static_cast<unsigned>(ops_items);
        unsigned byte = 0;
#pragma unroll
        for (int q = 0; q < ops_items; ++q) {
            const std::uint32_t key = values[q] ^ flip;
            const bool in = (key >= lo && key <= hi) != invert;
            if (in && first + static_cast<unsigned>(q) < n) byte |= 1u << q;
        }
        bits[threadIdx.x] = static_cast<std::uint8_t>(byte);
        __syncthreads();
        if (threadIdx.x < plane_words) {
            const unsigned w = threadIdx.x;
            out[block * plane_words + w] = static_cast<std::uint32_t>(bits[4 * w]) | (static_cast<std::uint32_t>(bits[4 * w + 1]) << 8) |
                                           (static_cast<std::uint32_t>(bits[4 * w + 2]) << 16) |
                                           (static_cast<std::uint32_t>(bits[4 * w + 3]) << 24);
        }
        __syncthreads();
    }
}

// ---- bitwise operations of two vectors -----------------------------------------------------------

enum : unsigned { op_and = 0, op_or = 1, op_xor = 2, op_andnot = 3 };

__device__ __forceinline__ std::uint32_t apply_op(unsigned op, std::uint32_t x, std::uint32_t y) {
    switch (op) {
        case op_and: return x & y;
        case op_or: return x | y;
        case op_xor: return x ^ y;
        default: return x & ~y;
    }
}

/// out[i] = a[i] op b[i], dense values.
__global__ void __launch_bounds__(ops_threads)
bitwise_values(blocks_ref a, blocks_ref b, unsigned op, std::uint32_t* out) {
    __shared__ block_smem s;
    __shared__ typename block_values_traits<ops_threads>::scan::TempStorage scan;
    for (std::uint64_t block = blockIdx.x; block < a.blocks; block += gridDim.x) {
        std::uint32_t va[ops_items];
        std::uint32_t vb[ops_items];
        const unsigned n = decode_block_values(a, block, s, scan, va);
        (void)decode_block_values(b, block, s, scan, vb);
        const unsigned first = threadIdx.x * static_cast<unsigned>(ops_items);
        std::uint32_t* target = out + block * block_values;
#pragma unroll
        for (int q = 0; q < ops_items; ++q)
            if (first + static_cast<unsigned>(q) < n) target[first + static_cast<unsigned>(q)] = apply_op(op, va[q], vb[q]);
    }
}

// ---- Hamming matrices and jaccard -------------------------------------------------------------

/// The 32 value planes of a block from its decoded values (thread t holds values 8t ..): values
/// go through shared memory, then warp w takes columns w, w + 8, ...: lane b holds value 32c + b
/// and one ballot per bit gives word c of each plane.
__device__ inline void values_to_planes(const std::uint32_t (&values)[ops_items], std::uint32_t* staging,
                                        std::uint32_t (*planes)[plane_words]) {
#pragma unroll
    for (int q = 0; q < ops_items; ++q) staging[threadIdx.x * ops_items + static_cast<unsigned>(q)] = values[q];
    __syncthreads();
    const unsigned lane = threadIdx.x % 32u;
    const unsigned warp = threadIdx.x / 32u;
    for (unsigned c = warp; c < plane_words; c += ops_threads / 32) {
        const std::uint32_t v = staging[32u * c + lane];
        for (unsigned j = 0; j < plane_count; ++j) {
            const std::uint32_t word = __ballot_sync(0xffffffffu, (v >> j) & 1u);
            if (lane == j) planes[j][c] = word;
        }
    }
    __syncthreads();
}

/// counts[i][j] += popcount(A_i XOR B_j) over blocks [first, last); when `diagonal_popcount`
/// (one vector: a == b), the diagonal is popcount(A_i) instead (as bitplane::hamming_matrix).
/// Each CTA adds its sums into `counts` (32 x 32 u64) once.
__global__ void __launch_bounds__(ops_threads)
hamming_planes(blocks_ref a, blocks_ref b, bool one_vector, std::uint64_t first, std::uint64_t last,
               unsigned long long* counts) {
    __shared__ block_smem s;
    __shared__ typename block_values_traits<ops_threads>::scan::TempStorage scan;
    __shared__ std::uint32_t staging[block_values];
    __shared__ std::uint32_t pa[plane_count][plane_words];
    __shared__ std::uint32_t pb[plane_count][plane_words];
    // Thread t owns entries t, t + 256, t + 512, t + 768 of the 32 x 32 matrix.
    std::uint64_t sums[4] = {0, 0, 0, 0};
    for (std::uint64_t block = first + blockIdx.x; block < last; block += gridDim.x) {
        std::uint32_t values[ops_items];
        (void)decode_block_values(a, block, s, scan, values);
        values_to_planes(values, staging, pa);
        if (!one_vector) {
            (void)decode_block_values(b, block, s, scan, values);
            values_to_planes(values, staging, pb);
        }
        const std::uint32_t(*qb)[plane_words] = one_vector ? pa : pb;
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const unsigned entry = threadIdx.x + static_cast<unsigned>(e) * ops_threads;
            const unsigned i = entry / plane_count;
            const unsigned j = entry % plane_count;
            unsigned count = 0;
            if (one_vector && i == j) {
                for (unsigned w = 0; w < plane_words; ++w) count += static_cast<unsigned>(__popc(pa[i][w]));
            } else {
                for (unsigned w = 0; w < plane_words; ++w) count += static_cast<unsigned>(__popc(pa[i][w] ^ qb[j][w]));
            }
            sums[e] += count;
        }
        __syncthreads();
    }
#pragma unroll
    for (int e = 0; e < 4; ++e)
        if (sums[e] != 0) atomicAdd(&counts[threadIdx.x + static_cast<unsigned>(e) * ops_threads], sums[e]);
}

/// counts[0] += popcount(a AND b), counts[1] += popcount(a) + popcount(b), over all values.
__global__ void __launch_bounds__(ops_threads)
overlap_counts(blocks_ref a, blocks_ref b, unsigned long long* counts) {
    __shared__ block_smem s;
    __shared__ typename block_values_traits<ops_threads>::scan::TempStorage scan;
    unsigned long long both = 0;
    unsigned long long total = 0;
    for (std::uint64_t block = blockIdx.x; block < a.blocks; block += gridDim.x) {
        std::uint32_t va[ops_items];
        std::uint32_t vb[ops_items];
        (void)decode_block_values(a, block, s, scan, va);
        (void)decode_block_values(b, block, s, scan, vb);
#pragma unroll
        for (int q = 0; q < ops_items; ++q) {
            both += static_cast<unsigned>(__popc(va[q] & vb[q]));
            total += static_cast<unsigned>(__popc(va[q]) + __popc(vb[q]));
        }
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        both += __shfl_down_sync(0xffffffffu, both, offset);
        total += __shfl_down_sync(0xffffffffu, total, offset);
    }
    if (threadIdx.x % 32u == 0) {
        atomicAdd(&counts[0], both);
        atomicAdd(&counts[1], total);
    }
}

// ---- bitsets -----------------------------------------------------------------------------------

inline constexpr int bitset_threads = 64;
inline constexpr std::uint8_t bitset_empty = 0;
inline constexpr std::uint8_t bitset_full = 0x80;

/// One block's record of an encoded device bitset (the host's block_entry layout).
struct bitset_record {
    std::uint64_t offset;  // in the arena, or the payload itself (inline)
    std::uint16_t count;
    std::uint16_t items;
    std::uint8_t kind;     // 1 positions, 2 runs, 3 raw, 4 gaps; 0 empty, 0x80 full
    std::uint8_t is_inline;
    std::uint8_t reserved[2];
};

struct bitset_ref {
    const std::uint32_t* words;     // dense form (64 per block), or null
    const bitset_record* records;   // encoded form
    const std::uint8_t* arena;
    std::uint64_t size;             // bits
    std::uint64_t blocks;
};

/// Block `block` of `v` into row[0..64) (every thread of the CTA; ends with a barrier).
__device__ inline void bitset_block_words(const bitset_ref& v, std::uint64_t block, std::uint32_t* row) {
    const std::uint64_t left = v.size - block * block_values;
    const unsigned length = left < block_values ? static_cast<unsigned>(left) : block_values;
    if (v.words != nullptr) {
        for (unsigned w = threadIdx.x; w < plane_words; w += blockDim.x) row[w] = v.words[block * plane_words + w];
        __syncthreads();
        return;
    }
    const bitset_record* r = v.records + block;
    const unsigned kind = r->kind;
    for (unsigned w = threadIdx.x; w < plane_words; w += blockDim.x) row[w] = kind == bitset_full ? length_mask(w, length) : 0u;
    __syncthreads();
    if (kind != bitset_empty && kind != bitset_full) {
        plane_desc d;
        d.index = 0;
        d.kind = static_cast<std::uint8_t>(kind);
        d.base = base_zero;
        d.ref = 0;
        d.items = r->items;
        d.offset = 0;
        const std::uint8_t* payload = r->is_inline ? reinterpret_cast<const std::uint8_t*>(&r->offset) : v.arena + r->offset;
        apply_payload(payload, d, length, row, 0);
        __syncthreads();
    }
}

/// out = a op b (dense, 64 words per block), one CTA per block (grid-stride).
__global__ void __launch_bounds__(bitset_threads)
bitset_algebra(bitset_ref a, bitset_ref b, unsigned op, std::uint32_t* out) {
    __shared__ std::uint32_t ra[plane_words];
    __shared__ std::uint32_t rb[plane_words];
    for (std::uint64_t block = blockIdx.x; block < a.blocks; block += gridDim.x) {
        bitset_block_words(a, block, ra);
        bitset_block_words(b, block, rb);
        for (unsigned w = threadIdx.x; w < plane_words; w += blockDim.x) out[block * plane_words + w] = apply_op(op, ra[w], rb[w]);
        __syncthreads();
    }
}

/// *count += set bits of v (either form).
__global__ void __launch_bounds__(bitset_threads)
bitset_count(bitset_ref v, unsigned long long* count) {
    __shared__ std::uint32_t row[plane_words];
    unsigned long long total = 0;
    for (std::uint64_t block = blockIdx.x; block < v.blocks; block += gridDim.x) {
        bitset_block_words(v, block, row);
        for (unsigned w = threadIdx.x; w < plane_words; w += blockDim.x) total += static_cast<unsigned>(__popc(row[w]));
        __syncthreads();
    }
    for (int offset = 16; offset > 0; offset /= 2) total += __shfl_down_sync(0xffffffffu, total, offset);
    if (threadIdx.x % 32u == 0 && total != 0) atomicAdd(count, total);
}

/// Dense copy of v (either form).
__global__ void __launch_bounds__(bitset_threads)
bitset_expand(bitset_ref v, std::uint32_t* out) {
    __shared__ std::uint32_t row[plane_words];
    for (std::uint64_t block = blockIdx.x; block < v.blocks; block += gridDim.x) {
        bitset_block_words(v, block, row);
        for (unsigned w = threadIdx.x; w < plane_words; w += blockDim.x) out[block * plane_words + w] = row[w];
        __syncthreads();
    }
}

}  // namespace bitplane::cuda::kernels
