#include "ops_baselines.hpp"

#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/inner_product.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace bitplane_bench {
namespace {

void must(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(2);
    }
}

struct widen {
    __host__ __device__ std::uint64_t operator()(std::uint32_t x) const { return x; }
};

struct square128 {
    __host__ __device__ u128_parts operator()(std::uint32_t x) const {
        u128_parts r;
        r.lo = static_cast<std::uint64_t>(x) * x;
        r.hi = 0;
        return r;
    }
};
struct plus128 {
    __host__ __device__ u128_parts operator()(const u128_parts& a, const u128_parts& b) const {
        u128_parts r;
        r.lo = a.lo + b.lo;
        r.hi = a.hi + b.hi + (r.lo < a.lo ? 1u : 0u);
        return r;
    }
};

struct in_range {
    std::uint32_t lo, hi;
    __host__ __device__ bool operator()(std::uint32_t x) const { return x >= lo && x <= hi; }
};

template <int Op>
struct bitwise_fn {
    __host__ __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
        if (Op == 0) return a & b;
        if (Op == 1) return a | b;
        if (Op == 2) return a ^ b;
        return a & ~b;
    }
};

struct popc32 {
    __device__ std::uint64_t operator()(std::uint32_t x) const { return static_cast<std::uint64_t>(__popc(x)); }
};

struct two_counts {
    std::uint64_t both = 0;
    std::uint64_t either = 0;
};
struct and_or_popc {
    __device__ two_counts operator()(std::uint32_t a, std::uint32_t b) const {
        two_counts r;
        r.both = static_cast<std::uint64_t>(__popc(a & b));
        r.either = static_cast<std::uint64_t>(__popc(a | b));
        return r;
    }
};
struct plus_counts {
    __host__ __device__ two_counts operator()(const two_counts& a, const two_counts& b) const {
        two_counts r;
        r.both = a.both + b.both;
        r.either = a.either + b.either;
        return r;
    }
};

// Every warp walks whole words (the loop bound and stride are multiples of 32), so the ballot
// always sees all 32 lanes.
__global__ void range_bitmap_kernel(const std::uint32_t* __restrict__ v, std::size_t n, std::size_t n_rounded,
                                    std::uint32_t lo, std::uint32_t hi, std::uint32_t* __restrict__ words) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n_rounded; i += stride) {
        const bool hit = i < n && v[i] >= lo && v[i] <= hi;
        const unsigned word = __ballot_sync(0xffffffffu, hit);
        if ((threadIdx.x & 31u) == 0) words[i / 32] = word;
    }
}

// CTA c adds matrices c, c + grid, ... entry by entry (thread t: entry t, coalesced u16 loads),
// then adds its partial counts into out with one atomic per entry.
__global__ void __launch_bounds__(1024) sum_matrices_kernel(const std::uint16_t* __restrict__ m, std::size_t blocks,
                                                           unsigned long long* __restrict__ out) {
    unsigned long long acc = 0;
    for (std::size_t b = blockIdx.x; b < blocks; b += gridDim.x) acc += m[b * 1024 + threadIdx.x];
    atomicAdd(out + threadIdx.x, acc);
}

}  // namespace

std::uint64_t thrust_sum(const std::uint32_t* v, std::size_t n, cudaStream_t stream) {
    return thrust::transform_reduce(thrust::cuda::par.on(stream), v, v + n, widen(), std::uint64_t{0},
                                    thrust::plus<std::uint64_t>());
}

u128_parts thrust_sum_of_squares(const std::uint32_t* v, std::size_t n, cudaStream_t stream) {
    return thrust::transform_reduce(thrust::cuda::par.on(stream), v, v + n, square128(), u128_parts{}, plus128());
}

std::uint64_t thrust_count_range(const std::uint32_t* v, std::size_t n, std::uint32_t lo, std::uint32_t hi,
                                 cudaStream_t stream) {
    return static_cast<std::uint64_t>(thrust::count_if(thrust::cuda::par.on(stream), v, v + n, in_range{lo, hi}));
}

void dense_range_bitmap(const std::uint32_t* v, std::size_t n, std::uint32_t lo, std::uint32_t hi, std::uint32_t* words,
                        cudaStream_t stream) {
    const std::size_t rounded = (n + 31) / 32 * 32;
    const std::size_t grid = std::min<std::size_t>((rounded + 255) / 256, 132 * 16);
    if (grid == 0) return;
    range_bitmap_kernel<<<static_cast<unsigned>(grid), 256, 0, stream>>>(v, n, rounded, lo, hi, words);
    must(cudaGetLastError(), "range_bitmap_kernel");
    must(cudaStreamSynchronize(stream), "range_bitmap_kernel");
}

void thrust_bitwise(const std::uint32_t* a, const std::uint32_t* b, std::uint32_t* out, std::size_t n, bit_op op,
                    cudaStream_t stream) {
    const auto policy = thrust::cuda::par.on(stream);
    switch (op) {
        case bit_op::and_op: thrust::transform(policy, a, a + n, b, out, bitwise_fn<0>()); break;
        case bit_op::or_op: thrust::transform(policy, a, a + n, b, out, bitwise_fn<1>()); break;
        case bit_op::xor_op: thrust::transform(policy, a, a + n, b, out, bitwise_fn<2>()); break;
        case bit_op::andnot_op: thrust::transform(policy, a, a + n, b, out, bitwise_fn<3>()); break;
    }
    must(cudaStreamSynchronize(stream), "thrust::transform");
}

std::uint64_t thrust_popcount(const std::uint32_t* words, std::size_t n, cudaStream_t stream) {
    return thrust::transform_reduce(thrust::cuda::par.on(stream), words, words + n, popc32(), std::uint64_t{0},
                                    thrust::plus<std::uint64_t>());
}

void thrust_and_or_counts(const std::uint32_t* a, const std::uint32_t* b, std::size_t n, std::uint64_t* and_count,
                          std::uint64_t* or_count, cudaStream_t stream) {
    const two_counts c =
        thrust::inner_product(thrust::cuda::par.on(stream), a, a + n, b, two_counts{}, plus_counts(), and_or_popc());
    *and_count = c.both;
    *or_count = c.either;
}

void sum_block_matrices(const std::uint16_t* matrices, std::size_t blocks, unsigned long long* out, cudaStream_t stream) {
    must(cudaMemsetAsync(out, 0, 1024 * sizeof(unsigned long long), stream), "sum_block_matrices: memset");
    const std::size_t grid = std::min<std::size_t>(blocks, 132 * 2);
    if (grid != 0) sum_matrices_kernel<<<static_cast<unsigned>(grid), 1024, 0, stream>>>(matrices, blocks, out);
    must(cudaGetLastError(), "sum_matrices_kernel");
    must(cudaStreamSynchronize(stream), "sum_block_matrices");
}

}  // namespace bitplane_bench
