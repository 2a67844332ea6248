// Device-side reading of encoded blocks (docs/format.md): header parsing, the rebuild of a
// block's residual planes into shared memory, and residuals -> values. Included by kernel
// files only.
//
// Decoding choice (docs/gpu.md): one thread block (CTA) decodes one 2048-value block into
// shared memory, as the CPU decoder does in L1: thread 0 parses the header and descriptors;
// planes with a constant base (zero/one) are rebuilt by all threads together, in parallel over
// planes and payload items; planes stored from another plane (references) are then rebuilt one
// after another in descriptor order (which the format guarantees is a valid decode order),
// with a barrier between them. Interleaved all-raw blocks (uniform data) are de-interleaved in
// one coalesced pass. Blocks come from bitplane::vector (validated), so kernels trust them.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>

namespace bitplane::cuda::kernels {

inline constexpr unsigned block_values = 2048;
inline constexpr unsigned plane_words = 64;
inline constexpr unsigned plane_count = 32;

enum : unsigned { payload_none = 0, payload_positions = 1, payload_runs = 2, payload_raw = 3, payload_gaps = 4 };
enum : unsigned { base_zero = 0, base_one = 1, base_plane = 2, base_complement = 3 };
enum : unsigned { transform_none = 0, transform_for = 1, transform_delta = 2, transform_zigzag = 3 };

__device__ __forceinline__ std::uint32_t load_u16(const std::uint8_t* p) {
    return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8);
}

/// Unaligned little-endian u32 from global memory: two aligned words and a funnel shift.
/// Device payload buffers carry 16 bytes of padding, so the second word always exists.
__device__ __forceinline__ std::uint32_t load_u32(const std::uint8_t* p) {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    const auto* q = reinterpret_cast<const std::uint32_t*>(address & ~std::uintptr_t{3});
    return __funnelshift_r(__ldg(q), __ldg(q + 1), static_cast<unsigned>(address & 3u) * 8u);
}

/// Bits of word `w` of a plane of `length` bits that lie inside it.
__device__ __forceinline__ std::uint32_t length_mask(unsigned w, unsigned length) {
    const unsigned first = w * 32u;
    if (first + 32u <= length) return ~0u;
    if (first >= length) return 0u;
    return (1u << (length - first)) - 1u;
}

struct plane_desc {
    std::uint8_t index;
    std::uint8_t kind;
    std::uint8_t base;
    std::uint8_t ref;
    std::uint32_t items;
    std::uint32_t offset;  // payload offset from the block start
};

struct block_header {
    unsigned transform;
    bool sparse;
    bool all_raw;
    bool interleaved;
    unsigned count;   // values
    unsigned length;  // bits per plane (count, or m when sparse)
    std::uint32_t for_base;
    std::uint32_t delta_first;
    std::uint32_t delta_min;
    std::uint32_t live;
    std::uint32_t ones;
    unsigned stored;
    unsigned body;  // offset of the descriptors (or of the all-raw payload)
};

__device__ __forceinline__ unsigned payload_size(unsigned kind, unsigned items, unsigned length) {
    switch (kind) {
        case payload_positions: return 2u * items;
        case payload_runs: return 4u * items;
        case payload_raw: return (length + 7u) / 8u;
        case payload_gaps: return items;
        default: return 0u;
    }
}

/// Reads a descriptor at b + pos (advancing pos).
__device__ __forceinline__ plane_desc read_descriptor(const std::uint8_t* b, unsigned& pos) {
    plane_desc d;
    const unsigned x = b[pos];
    const unsigned y = b[pos + 1];
    pos += 2;
    d.index = static_cast<std::uint8_t>(x & 31u);
    d.kind = static_cast<std::uint8_t>(x >> 5);
    d.base = static_cast<std::uint8_t>(y & 3u);
    d.ref = static_cast<std::uint8_t>((y >> 2) & 31u);
    d.items = 0;
    if (d.kind == payload_positions || d.kind == payload_runs || d.kind == payload_gaps) {
        d.items = load_u16(b + pos);
        pos += 2;
    }
    d.offset = 0;
    return d;
}

/// Header of a block of `count` values; the sparse mask's descriptor goes to `mask`.
__device__ inline block_header parse_header(const std::uint8_t* b, unsigned count, plane_desc& mask) {
    block_header h;
    const unsigned flags = b[0];
    unsigned pos = 1;
    h.transform = flags & 3u;
    h.sparse = (flags & 4u) != 0;
    h.all_raw = (flags & 0x10u) != 0;
    h.count = count;
    h.length = count;
    h.for_base = h.delta_first = h.delta_min = 0;
    if (h.transform == transform_for) {
        h.for_base = load_u32(b + pos);
        pos += 4;
    } else if (h.transform == transform_delta) {
        h.delta_first = load_u32(b + pos);
        h.delta_min = load_u32(b + pos + 4);
        pos += 8;
    }
    mask.kind = payload_none;
    mask.base = base_zero;
    if (h.sparse) {
        h.length = load_u16(b + pos);
        pos += 2;
        mask = read_descriptor(b, pos);
        mask.offset = pos;
        pos += payload_size(mask.kind, mask.items, count);
    }
    h.live = load_u32(b + pos);
    pos += 4;
    h.ones = 0;
    if (flags & 8u) {
        h.ones = load_u32(b + pos);
        pos += 4;
    }
    h.stored = static_cast<unsigned>(__popc(h.live));
    h.body = pos;
    h.interleaved = h.all_raw && h.length == block_values;
    return h;
}

/// Shared-memory state of one block being decoded.
struct block_smem {
    std::uint32_t planes[plane_count][plane_words];
    std::uint32_t mask[plane_words];
    std::uint32_t mask_rank[plane_words];  // set mask bits before word w
    plane_desc desc[plane_count];          // decode order
    plane_desc mask_desc;
    block_header header;
    std::uint32_t referenced;              // descriptors (by decode position) with a plane base
};

/// XORs a payload onto plane row `row` (bits [0, length)), cooperatively; `serial_thread`
/// does the work that cannot be split (gap lists). No barrier inside.
__device__ inline void apply_payload(const std::uint8_t* b, const plane_desc& d, unsigned length, std::uint32_t* row,
                                     unsigned serial_thread) {
    const std::uint8_t* p = b + d.offset;
    const unsigned tid = threadIdx.x;
    const unsigned threads = blockDim.x;
    switch (d.kind) {
        case payload_raw: {
            const unsigned bytes = (length + 7u) / 8u;
            for (unsigned w = tid; w < plane_words; w += threads) {
                if (4u * w < bytes) row[w] ^= load_u32(p + 4u * w) & length_mask(w, length);
            }
            break;
        }
        case payload_positions:
            for (unsigned k = tid; k < d.items; k += threads) {
                const unsigned bit = load_u16(p + 2u * k);
                atomicXor(&row[bit >> 5], 1u << (bit & 31u));
            }
            break;
        case payload_runs:
            for (unsigned k = tid; k < d.items; k += threads) {
                const unsigned begin = load_u16(p + 4u * k);
                const unsigned end = load_u16(p + 4u * k + 2u);
                for (unsigned w = begin >> 5; w * 32u < end; ++w) {
                    const unsigned lo = max(begin, w * 32u) - w * 32u;
                    const unsigned hi = min(end, w * 32u + 32u) - w * 32u;  // 1..32
                    const std::uint32_t bits = (hi == 32u ? ~0u : (1u << hi) - 1u) & ~((1u << lo) - 1u);
                    atomicXor(&row[w], bits);
                }
            }
            break;
        case payload_gaps:
            if (tid == serial_thread) {
                unsigned next = 0;
                for (unsigned i = 0; i < d.items;) {
                    unsigned gap = p[i++];
                    if (gap == 255u) {
                        gap = load_u16(p + i);
                        i += 2;
                    }
                    const unsigned position = next + gap;
                    atomicXor(&row[position >> 5], 1u << (position & 31u));
                    next = position + 1;
                }
            }
            break;
        default: break;
    }
}

/// Rebuilds the residual planes of the block at `b` (count values) into s.planes: every plane
/// written (planes that are neither stored nor all-one are zero), bits >= length zero; and,
/// when sparse, s.mask and s.mask_rank. All threads of the CTA must call it; it ends with a
/// barrier, after which s.header is valid.
__device__ inline void load_block_planes(const std::uint8_t* b, unsigned count, block_smem& s) {
    const unsigned tid = threadIdx.x;
    const unsigned threads = blockDim.x;
    if (tid == 0) {
        block_header h = parse_header(b, count, s.mask_desc);
        std::uint32_t referenced = 0;
        if (h.all_raw) {
            unsigned rank = 0;
            for (std::uint32_t live = h.live; live != 0; live &= live - 1, ++rank) {
                plane_desc d;
                d.index = static_cast<std::uint8_t>(__ffs(live) - 1);
                d.kind = payload_raw;
                d.base = base_zero;
                d.ref = 0;
                d.items = 0;
                d.offset = h.body + rank * ((h.length + 7u) / 8u);
                s.desc[rank] = d;
            }
        } else {
            unsigned pos = h.body;
            for (unsigned i = 0; i < h.stored; ++i) {
                s.desc[i] = read_descriptor(b, pos);
                if (s.desc[i].base >= base_plane) referenced |= 1u << i;
            }
            for (unsigned i = 0; i < h.stored; ++i) {
                s.desc[i].offset = pos;
                pos += payload_size(s.desc[i].kind, s.desc[i].items, h.length);
            }
        }
        s.header = h;
        s.referenced = referenced;
    }
    // Zero every plane and the mask while thread 0 parses.
    std::uint32_t* flat = &s.planes[0][0];
    for (unsigned i = tid; i < plane_count * plane_words; i += threads) flat[i] = 0u;
    for (unsigned w = tid; w < plane_words; w += threads) s.mask[w] = 0u;
    __syncthreads();
    const block_header h = s.header;

    if (h.sparse) {
        if (s.mask_desc.base == base_one)
            for (unsigned w = tid; w < plane_words; w += threads) s.mask[w] = length_mask(w, h.count);
        __syncthreads();
        apply_payload(b, s.mask_desc, h.count, s.mask, 0);
        __syncthreads();
        if (tid == 0) {
            unsigned rank = 0;
            for (unsigned w = 0; w < plane_words; ++w) {
                s.mask_rank[w] = rank;
                rank += static_cast<unsigned>(__popc(s.mask[w]));
            }
        }
    }

    if (h.interleaved) {
        // Word `column` of the rank-th stored plane is at body + 4 (column * stored + rank).
        const std::uint8_t* payload = b + h.body;
        const unsigned words = h.stored * plane_words;
        for (unsigned t = tid; t < words; t += threads) {
            const unsigned column = t / h.stored;
            const unsigned rank = t - column * h.stored;
            s.planes[s.desc[rank].index][column] = load_u32(payload + 4u * t);
        }
    } else {
        // Planes on a constant base: all at once.
        for (unsigned i = 0; i < h.stored; ++i) {
            const plane_desc d = s.desc[i];
            if (d.base == base_one)
                for (unsigned w = tid; w < plane_words; w += threads) s.planes[d.index][w] = length_mask(w, h.length);
        }
        __syncthreads();
        for (unsigned i = 0; i < h.stored; ++i) {
            if ((s.referenced >> i) & 1u) continue;
            const plane_desc d = s.desc[i];
            apply_payload(b, d, h.length, s.planes[d.index], (i * 32u) % threads);
        }
        // Planes stored from another plane, in decode order.
        for (std::uint32_t r = s.referenced; r != 0; r &= r - 1) {
            const plane_desc d = s.desc[__ffs(r) - 1];
            __syncthreads();
            for (unsigned w = tid; w < plane_words; w += threads) {
                const std::uint32_t base = s.planes[d.ref][w];
                s.planes[d.index][w] = d.base == base_plane ? base : ~base & length_mask(w, h.length);
            }
            __syncthreads();
            apply_payload(b, d, h.length, s.planes[d.index], 0);
        }
    }
    for (std::uint32_t ones = h.ones; ones != 0; ones &= ones - 1) {
        const unsigned j = static_cast<unsigned>(__ffs(ones) - 1);
        for (unsigned w = tid; w < plane_words; w += threads) s.planes[j][w] = length_mask(w, h.length);
    }
    __syncthreads();
}

/// Residual at plane position `p`: bit j from plane j, for the planes in `nonzero`.
__device__ __forceinline__ std::uint32_t residual_at(const block_smem& s, std::uint32_t nonzero, unsigned p) {
    const unsigned w = p >> 5;
    const unsigned bit = p & 31u;
    std::uint32_t v = 0;
    for (std::uint32_t m = nonzero; m != 0; m &= m - 1) {
        const unsigned j = static_cast<unsigned>(__ffs(m) - 1);
        v |= ((s.planes[j][w] >> bit) & 1u) << j;
    }
    return v;
}

/// Values per thread when THREADS threads decode a block.
template <int THREADS>
struct block_values_traits {
    static constexpr int items = static_cast<int>(block_values) / THREADS;
    using scan = cub::BlockScan<std::uint32_t, THREADS>;
};

/// decode_values: the values of a block whose planes are in `s` (after load_block_planes): thread t gets
/// values [t * ITEMS, t * ITEMS + ITEMS) (blocked), 0 past the count. All threads must call it.
template <int THREADS>
__device__ inline void decode_values(const block_smem& s, typename block_values_traits<THREADS>::scan::TempStorage& scan,
                                    std::uint32_t (&out)[block_values_traits<THREADS>::items]) {
    constexpr int items = block_values_traits<THREADS>::items;
    const block_header h = s.header;
    const std::uint32_t nonzero = h.live | h.ones;
    const unsigned first = threadIdx.x * static_cast<unsigned>(items);
#pragma unroll
    for (int q = 0; q < items; ++q) {
        const unsigned p = first + static_cast<unsigned>(q);
        std::uint32_t r = 0;
        if (p < h.count) {
            if (h.sparse) {
                const unsigned w = p >> 5;
                const std::uint32_t below = s.mask[w] & ((1u << (p & 31u)) - 1u);
                if ((s.mask[w] >> (p & 31u)) & 1u)
                    r = residual_at(s, nonzero, s.mask_rank[w] + static_cast<unsigned>(__popc(below)));
            } else {
                r = residual_at(s, nonzero, p);
            }
        }
        out[q] = r;
    }
    switch (h.transform) {
        case transform_for:
#pragma unroll
            for (int q = 0; q < items; ++q) out[q] += h.for_base;
            break;
        case transform_zigzag:
#pragma unroll
            for (int q = 0; q < items; ++q) out[q] = (out[q] >> 1) ^ (0u - (out[q] & 1u));
            break;
        case transform_delta: {
            // v[i] = first + sum_{t <= i} r[t] + i * min (mod 2^32); positions past the count
            // hold r = 0 and are never written out.
            typename block_values_traits<THREADS>::scan(scan).InclusiveSum(out, out);
#pragma unroll
            for (int q = 0; q < items; ++q)
                out[q] += h.delta_first + (first + static_cast<unsigned>(q)) * h.delta_min;
            break;
        }
        default: break;
    }
    // Positions past the count (a partial block) hold 0, whatever the transform made of them.
#pragma unroll
    for (int q = 0; q < items; ++q)
        if (first + static_cast<unsigned>(q) >= h.count) out[q] = 0;
}

}  // namespace bitplane::cuda::kernels
