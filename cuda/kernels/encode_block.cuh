// Kernel: 2048-value blocks -> the bytes codec::encode_block writes for them (default options).
// Included by cuda/encode.cu only (C++20: it compiles the codec's shared part, src/codec/
// block_plan.hpp and block_writer.hpp, for the device).
//
// One CTA of 256 threads per block, everything in shared memory. The CTA measures what the
// CPU's SIMD kernels measure: value statistics (each thread folds its values with the CPU's
// fold_value_stats, then warp reductions), residuals and their zeros, the OR/AND of the values
// a plan slices, the transpose of the live planes (warp ballots), each live plane's transition
// count, the pair popcount matrices of the planes and of the priced transition planes
// (four threads a pair), the sparse split (ballot masks, ranks by popcount). Thread 0 takes
// every decision with the CPU's own functions (rank_from_stats, transforms_to_try,
// classify_planes, choose_plane_encodings, choose_mask) and writes the winner with
// write_plan into shared memory; the CTA copies it out. The order of candidates and the
// tie rule are plan_smallest's, run by every thread with a planner whose calls are collective.
//
// Output: block b's bytes at slots + b * codec::max_block_bytes (rounded up to whole words,
// the slot has room), their count at sizes[b]; a block whose written size differs from its
// plan (an encoder bug) bumps *failures.
#pragma once

#include "codec/block_plan.hpp"
#include "codec/block_writer.hpp"
#include "simd/kernels.hpp"
#include "warp_planes.cuh"

#include <bitplane/codec.hpp>

#include <cstddef>
#include <cstdint>
#include <new>

namespace bitplane::cuda::kernels {

inline constexpr unsigned encode_block_threads = 256;
inline constexpr unsigned encode_block_warps = encode_block_threads / 32;

/// The shared memory of one CTA of encode_blocks (dynamic: it is above the 48 KiB static limit).
struct encode_shared {
    bitplane::detail::block_plan plans[2];
    // values and residuals lie together: after planning they hold the written block (9 KiB).
    std::uint32_t values[2048];
    std::uint32_t residuals[2048];
    std::uint32_t packed[2048];  // the sparse layout's non-zero residuals, zeros after them
    std::uint16_t hamming[32 * 32];
    std::uint16_t pair_transitions[32 * 32];
    std::uint16_t transition_matrix[32 * 32];
    bitplane::detail::plane_facts facts[32];
    std::uint32_t priced[32];
    std::uint32_t priced_count;
    std::uint32_t column_offset[64];  // sparse split: non-zeros before each 32-value column
    std::uint32_t slots[encode_block_warps];
    std::uint64_t broadcast;
    bitplane::detail::transform_choice candidates[4];
    std::uint32_t tries;
    bitplane::detail::transform_choice zero_preserving[3];
    std::uint32_t zero_count;
};
static_assert(sizeof(std::uint32_t) * 4096 >= codec::max_block_bytes, "the written block fits in values + residuals");

/// Reduces x over the CTA with `op`; every thread gets the result.
template <class Op>
__device__ __forceinline__ std::uint32_t cta_reduce(std::uint32_t x, Op op, encode_shared& s) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) x = op(x, __shfl_xor_sync(0xffffffffu, x, offset));
    if (threadIdx.x % 32u == 0) s.slots[threadIdx.x / 32u] = x;
    __syncthreads();
    x = s.slots[0];
    for (unsigned w = 1; w < encode_block_warps; ++w) x = op(x, s.slots[w]);
    __syncthreads();  // slots are free again
    return x;
}

/// Thread 0's `x` in every thread.
__device__ __forceinline__ std::uint64_t cta_broadcast(std::uint64_t x, encode_shared& s) {
    if (threadIdx.x == 0) s.broadcast = x;
    __syncthreads();
    x = s.broadcast;
    __syncthreads();
    return x;
}

/// The value statistics of values[0 .. count), as the CPU's stats kernel gives them, but for
/// the sum's parts (sum_low, sum_high, negatives), which the encoder does not read: they are
/// left per thread, not reduced (vector_core summarizes blocks from the GPU on the host).
__device__ inline bitplane::detail::value_stats cta_value_stats(const std::uint32_t* values, std::uint32_t count,
                                                                encode_shared& s) {
    bitplane::detail::value_stats r;
    for (std::uint32_t i = threadIdx.x; i < count; i += encode_block_threads) bitplane::detail::fold_value_stats(r, values, i);
    auto or_op = [](std::uint32_t a, std::uint32_t b) { return a | b; };
    auto and_op = [](std::uint32_t a, std::uint32_t b) { return a & b; };
    auto umin = [](std::uint32_t a, std::uint32_t b) { return a < b ? a : b; };
    auto umax = [](std::uint32_t a, std::uint32_t b) { return a > b ? a : b; };
    auto smin = [](std::uint32_t a, std::uint32_t b) {
        return static_cast<std::int32_t>(a) < static_cast<std::int32_t>(b) ? a : b;
    };
    auto smax = [](std::uint32_t a, std::uint32_t b) {
        return static_cast<std::int32_t>(a) > static_cast<std::int32_t>(b) ? a : b;
    };
    auto to_u = [](std::int32_t v) { return static_cast<std::uint32_t>(v); };
    auto to_s = [](std::uint32_t v) { return static_cast<std::int32_t>(v); };
    r.any = cta_reduce(r.any, or_op, s);
    r.all = cta_reduce(r.all, and_op, s);
    r.umin = cta_reduce(r.umin, umin, s);
    r.umax = cta_reduce(r.umax, umax, s);
    r.smin = to_s(cta_reduce(to_u(r.smin), smin, s));
    r.smax = to_s(cta_reduce(to_u(r.smax), smax, s));
    r.dmin = to_s(cta_reduce(to_u(r.dmin), smin, s));
    r.dmax = to_s(cta_reduce(to_u(r.dmax), smax, s));
    r.zz_any = cta_reduce(r.zz_any, or_op, s);
    r.zz_all = cta_reduce(r.zz_all, and_op, s);
    return r;
}

/// Popcount of the transition plane of `p` (bitplane::detail::transitions), by one warp.
__device__ __forceinline__ std::uint32_t warp_transition_count(const bitplane::plane& p) {
    const unsigned lane = threadIdx.x % 32u;
    const std::uint32_t w0 = p[2 * lane];
    const std::uint32_t w1 = p[2 * lane + 1];
    const std::uint32_t before = lane == 0 ? 0u : p[2 * lane - 1];
    const std::uint32_t t0 = w0 ^ ((w0 << 1) | (before >> 31));
    const std::uint32_t t1 = w1 ^ ((w1 << 1) | (w0 >> 31));
    return __reduce_add_sync(0xffffffffu, static_cast<unsigned>(__popc(t0) + __popc(t1)));
}

/// The GPU's planner for bitplane::detail::plan_smallest: every call is made by all threads of
/// the CTA and returns the same value in each.
class cta_planner {
public:
    __device__ cta_planner(encode_shared& s, std::uint32_t count, const codec::encode_options& options)
        : s_(s), count_(count), options_(options) {}

    __device__ bitplane::detail::block_plan* storage(int i) { return &s_.plans[i]; }

    /// Every thread has read the shared plan (raw_for_reads_bytes) before one rewrites it, and
    /// sees the rewrite after: all threads calling the rewrite raced (compute-sanitizer racecheck).
    __device__ void store_all_raw(bitplane::detail::block_plan& plan, std::size_t bytes) {
        __syncthreads();
        if (threadIdx.x == 0) bitplane::detail::store_all_raw(plan, bytes);
        __syncthreads();
    }

    /// residuals = the transform of the values (zeros from count to 2048); returns their zeros.
    __device__ std::uint32_t apply(const bitplane::detail::transform_choice& t) {
        std::uint32_t zeros = 0;
        for (std::uint32_t i = threadIdx.x; i < 2048u; i += encode_block_threads) {
            const std::uint32_t r = i < count_ ? bitplane::detail::residual_of(t, s_.values, i) : 0u;
            s_.residuals[i] = r;
            zeros += i < count_ && r == 0 ? 1u : 0u;
        }
        return cta_reduce(zeros, [](std::uint32_t a, std::uint32_t b) { return a + b; }, s_);
    }

    __device__ std::size_t dense(bitplane::detail::block_plan& plan, const bitplane::detail::transform_choice& t) {
        if (threadIdx.x == 0) s_.broadcast = bitplane::detail::start_plan(plan, t, false, count_);
        __syncthreads();
        const std::size_t header = s_.broadcast;
        __syncthreads();
        const std::size_t bytes = header + plan_planes(plan, s_.residuals, count_);
        if (threadIdx.x == 0) plan.bytes = bytes;
        return bytes;
    }

    __device__ std::size_t sparse(bitplane::detail::block_plan& plan, const bitplane::detail::transform_choice& t) {
        const unsigned lane = threadIdx.x % 32u;
        const unsigned warp = threadIdx.x / 32u;
        for (unsigned i = threadIdx.x; i < 2048u; i += encode_block_threads) s_.packed[i] = 0;
        // Column c (values 32c .. 32c+31) is mask word c; warp w takes columns 8w .. 8w+7.
        std::uint32_t r[8];
        std::uint32_t nonzero[8];
#pragma unroll
        for (unsigned q = 0; q < 8; ++q) {
            const unsigned c = warp * 8u + q;
            r[q] = s_.residuals[c * 32u + lane];
            nonzero[q] = __ballot_sync(0xffffffffu, r[q] != 0);
            if (lane == 0) plan.mask[c] = nonzero[q];
        }
        __syncthreads();  // mask complete; packed zeroed
        if (threadIdx.x < 64) {
            std::uint32_t before = 0;
            for (unsigned c = 0; c < threadIdx.x; ++c) before += static_cast<std::uint32_t>(__popc(plan.mask[c]));
            s_.column_offset[threadIdx.x] = before;
        }
        __syncthreads();
        const std::uint32_t below = (1u << lane) - 1u;
#pragma unroll
        for (unsigned q = 0; q < 8; ++q) {
            const unsigned c = warp * 8u + q;
            if (r[q] != 0) s_.packed[s_.column_offset[c] + static_cast<unsigned>(__popc(nonzero[q] & below))] = r[q];
        }
        const std::uint32_t kept = s_.column_offset[63] + static_cast<std::uint32_t>(__popc(plan.mask[63]));
        std::uint32_t mask_transitions = 0;
        if (warp == 0) mask_transitions = warp_transition_count(plan.mask);
        if (threadIdx.x == 0) {
            const std::size_t header = bitplane::detail::start_plan(plan, t, true, count_);
            s_.broadcast = header + bitplane::detail::choose_mask(plan, kept, mask_transitions, options_);
        }
        __syncthreads();  // packed complete, mask chosen
        const std::size_t head = s_.broadcast;
        __syncthreads();
        const std::size_t bytes = head + plan_planes(plan, s_.packed, kept);
        if (threadIdx.x == 0) plan.bytes = bytes;
        return bytes;
    }

private:
    /// Measures the planes of values[0 .. length) (zeros after them, up to 2048) and lets thread
    /// 0 choose their encodings; returns the bytes of the masks, descriptors and payloads.
    __device__ std::size_t plan_planes(bitplane::detail::block_plan& plan, const std::uint32_t* values,
                                       std::uint32_t length) {
        namespace d = bitplane::detail;
        const unsigned lane = threadIdx.x % 32u;
        const unsigned warp = threadIdx.x / 32u;
        std::uint32_t any = 0;
        std::uint32_t all = ~0u;
        for (std::uint32_t i = threadIdx.x; i < length; i += encode_block_threads) {
            any |= values[i];
            all &= values[i];
        }
        any = cta_reduce(any, [](std::uint32_t a, std::uint32_t b) { return a | b; }, s_);
        all = cta_reduce(all, [](std::uint32_t a, std::uint32_t b) { return a & b; }, s_);
        if (threadIdx.x == 0) s_.broadcast = d::classify_planes(plan, any, all, length);
        __syncthreads();
        const std::size_t masks = s_.broadcast;
        const std::uint32_t live = plan.live;
        const std::uint32_t n = plan.stored;
        __syncthreads();
        if (live == 0) return masks;

        // Transpose the live planes: warp w, columns 8w .. 8w+7, lane b value 32c + b.
        std::uint32_t v[8];
        std::uint32_t bits = 0;
#pragma unroll
        for (unsigned q = 0; q < 8; ++q) {
            v[q] = values[(warp * 8u + q) * 32u + lane];
            bits |= v[q];
        }
        std::uint32_t mine[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        ballot_columns(v, __reduce_or_sync(0xffffffffu, bits) & live, mine);
        if ((live >> lane) & 1u) {
#pragma unroll
            for (unsigned q = 0; q < 8; ++q) plan.planes.planes[lane][warp * 8u + q] = mine[q];
        }
        __syncthreads();

        // Facts of each stored plane, its transition count by one warp.
        for (std::uint32_t j = warp; j < n; j += encode_block_warps) {
            const std::uint32_t t = options_.runs ? warp_transition_count(plan.planes.planes[plan.index[j]]) : 0u;
            if (lane == 0) {
                s_.facts[j] = d::facts_of(plan, j);
                s_.facts[j].transitions = static_cast<std::uint16_t>(t);
            }
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            std::uint32_t priced = 0;
            for (std::uint32_t j = 0; options_.runs && j < n; ++j)
                if (d::priced_for_runs(s_.facts[j].transitions)) s_.priced[priced++] = j;
            s_.priced_count = priced;
        }
        __syncthreads();
        const std::uint32_t priced_count = s_.priced_count;

        struct plane_rows {
            const d::block_plan& plan;
            __device__ uint4 quad(unsigned i, unsigned k) const {
                return reinterpret_cast<const uint4*>(plan.planes.planes[plan.index[i]].data())[k];
            }
        };
        // Transition plane words, t[w] = p[w] ^ (p[w] << 1 | p[w - 1] >> 31), of the priced planes.
        struct transition_rows {
            const d::block_plan& plan;
            const std::uint32_t* priced;
            __device__ uint4 quad(unsigned i, unsigned k) const {
                const std::uint32_t* p = plan.planes.planes[plan.index[priced[i]]].data();
                const uint4 x = reinterpret_cast<const uint4*>(p)[k];
                const std::uint32_t before = k == 0 ? 0u : p[4 * k - 1];
                return make_uint4(x.x ^ ((x.x << 1) | (before >> 31)), x.y ^ ((x.y << 1) | (x.x >> 31)),
                                  x.z ^ ((x.z << 1) | (x.y >> 31)), x.w ^ ((x.w << 1) | (x.z >> 31)));
            }
        };
        std::uint16_t* hamming = s_.hamming;
        cta_pair_popcounts(plane_rows{plan}, n, encode_block_threads, [&](unsigned i, unsigned j, unsigned count) {
            hamming[i * n + j] = static_cast<std::uint16_t>(count);
            hamming[j * n + i] = static_cast<std::uint16_t>(count);
        });
        if (options_.runs && priced_count > 1) {
            std::uint16_t* pairs = s_.pair_transitions;
            cta_pair_popcounts(transition_rows{plan, s_.priced}, priced_count, encode_block_threads,
                               [&](unsigned i, unsigned j, unsigned count) {
                                   pairs[i * priced_count + j] = static_cast<std::uint16_t>(count);
                                   pairs[j * priced_count + i] = static_cast<std::uint16_t>(count);
                               });
        }
        __syncthreads();
        if (threadIdx.x == 0)
            s_.broadcast = masks + d::choose_plane_encodings(
                                       plan,
                                       {s_.facts, s_.hamming, s_.priced, priced_count, s_.pair_transitions,
                                        s_.transition_matrix},
                                       options_);
        __syncthreads();
        const std::size_t bytes = s_.broadcast;
        __syncthreads();
        return bytes;
    }

    encode_shared& s_;
    std::uint32_t count_;
    const codec::encode_options& options_;
};

/// Encodes block blockIdx.x of `values` (n values in all; the last block may be partial).
/// At most 64 registers a thread, so that 4 CTAs share an SM (shared memory allows 4): while
/// one CTA's thread 0 decides, the others measure. Measured on the H100 against 106 registers
/// and 2 CTAs: 1.65 against 2.66 ms for 2^26 10-bit values, 6.2 against 10.4 ms for random ones.
__global__ void __launch_bounds__(encode_block_threads, 4)
encode_blocks(const std::uint32_t* __restrict__ values, std::uint64_t n, bool is_signed, std::uint8_t* __restrict__ slots,
              std::uint64_t* __restrict__ sizes, unsigned* __restrict__ failures) {
    namespace d = bitplane::detail;
    extern __shared__ __align__(64) unsigned char shared_bytes[];
    encode_shared& s = *reinterpret_cast<encode_shared*>(shared_bytes);
    const std::uint64_t block = blockIdx.x;
    const std::uint64_t first = block * 2048u;
    const auto count = static_cast<std::uint32_t>(n - first < 2048u ? n - first : 2048u);
    const codec::encode_options options{};

    if (threadIdx.x < 2) new (&s.plans[threadIdx.x]) d::block_plan();
    for (std::uint32_t i = threadIdx.x; i < count; i += encode_block_threads) s.values[i] = __ldg(values + first + i);
    __syncthreads();

    const d::value_stats stats = cta_value_stats(s.values, count, s);
    if (threadIdx.x == 0) {
        const std::uint32_t ranked = d::rank_from_stats(stats, s.values[0], count, is_signed, s.candidates);
        s.tries = d::transforms_to_try(s.candidates, ranked, options);
        s.zero_count = d::zero_preserving_candidates(stats, s.values[0], count, is_signed, s.candidates, s.tries,
                                                     options, s.zero_preserving);
    }
    __syncthreads();

    cta_planner planner(s, count, options);
    std::size_t planned = 0;
    const d::block_plan* best = d::plan_smallest(planner, s.candidates, s.tries, s.zero_preserving, s.zero_count, count, options, planned);

    // Thread 0 writes all but an interleaved payload (uniform data: most of the bytes), which
    // the CTA writes together, a word per thread at a time.
    auto* out = reinterpret_cast<std::byte*>(s.values);
    if (threadIdx.x == 0) {
        const std::size_t written = d::write_plan(*best, best->planes, out, true);
        if (written != planned) atomicAdd(failures, 1u);
        s.broadcast = written;
    }
    __syncthreads();
    const std::size_t written = s.broadcast;
    if (d::interleaved_payload(*best)) {
        const std::uint32_t n_planes = best->stored;  // interleaved: 64 words each
        std::byte* payload = out + written - n_planes * bitplane::plane_bytes;
        for (std::uint32_t k = threadIdx.x; k < n_planes * bitplane::plane_words; k += encode_block_threads)
            d::put_interleaved_word(payload, best->planes.planes[best->index[k % n_planes]], k / n_planes, k % n_planes,
                                    n_planes);
        __syncthreads();
    }
    auto* slot = reinterpret_cast<std::uint32_t*>(slots + block * codec::max_block_bytes);
    const auto* words = reinterpret_cast<const std::uint32_t*>(out);
    for (std::size_t w = threadIdx.x; w < (written + 3) / 4; w += encode_block_threads) slot[w] = words[w];
    if (threadIdx.x == 0) sizes[block] = written;
}

/// Copies block b's bytes from its slot to payload + offsets[b] (one CTA a block).
__global__ void __launch_bounds__(256)
compact_blocks(const std::uint8_t* __restrict__ slots, const std::uint64_t* __restrict__ offsets,
               std::uint8_t* __restrict__ payload) {
    const std::uint64_t block = blockIdx.x;
    const std::uint8_t* from = slots + block * codec::max_block_bytes;
    const std::uint64_t at = offsets[block];
    const std::uint64_t bytes = offsets[block + 1] - at;
    for (std::uint64_t i = threadIdx.x; i < bytes; i += blockDim.x) payload[at + i] = from[i];
}

}  // namespace bitplane::cuda::kernels
