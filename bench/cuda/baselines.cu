#include "baselines.hpp"

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/inner_product.h>

#if BITPLANE_BENCH_HAS_CUBLAS
#include <cublas_v2.h>
#endif

#include <cstdio>
#include <cstdlib>

namespace bitplane_bench {
namespace {

__global__ void __launch_bounds__(512) seed_kernel(const std::uint32_t* __restrict__ values, std::uint32_t* __restrict__ planes,
                                                   std::uint16_t* __restrict__ hamming) {
    __shared__ std::uint32_t bs[2048];
    int ibit = threadIdx.x;    // 32
    int iblock = threadIdx.y;  // 16
    const std::size_t block = blockIdx.x;
    const std::uint32_t* ax = values + block * 2048 + (iblock << 7);
    std::uint32_t* bx = &bs[(ibit << 6) + (iblock << 2)];
    std::uint32_t* by = planes + block * 2048 + (ibit << 6) + (iblock << 2);
    for (int q = 0; q < 4; ++q) {
        std::uint32_t w = 0;
#pragma unroll
        for (int k = 0; k < 32; ++k) w |= ((ax[k] >> ibit) & 1u) << k;
        by[q] = bx[q] = w;
        ax += 32;
    }
    __syncthreads();
    std::uint16_t* cy = hamming + block * 1024;
    const auto row_pop = [&](int r) {
        const auto* x = reinterpret_cast<const unsigned long long*>(&bs[r << 6]);
        int c = 0;
#pragma unroll
        for (int k = 0; k < 32; ++k) c += __popcll(x[k]);
        return c;
    };
    if (ibit == iblock) {
        cy[(ibit << 5) + iblock] = static_cast<std::uint16_t>(row_pop(ibit));
        const int other = 31 - ibit;
        cy[(other << 5) + other] = static_cast<std::uint16_t>(row_pop(other));
    } else {
        if (ibit > iblock) {
            ibit = 31 - ibit;
            iblock = 31 - iblock;
        }
        const auto* x = reinterpret_cast<const unsigned long long*>(&bs[ibit << 6]);
        const auto* y = reinterpret_cast<const unsigned long long*>(&bs[iblock << 6]);
        int c = 0;
#pragma unroll
        for (int k = 0; k < 32; ++k) c += __popcll(x[k] ^ y[k]);
        cy[(ibit << 5) + iblock] = cy[(iblock << 5) + ibit] = static_cast<std::uint16_t>(c);
    }
}

struct mul64 {
    __host__ __device__ std::uint64_t operator()(std::uint32_t x, std::uint32_t y) const {
        return static_cast<std::uint64_t>(x) * y;
    }
};

__global__ void convert_double(const std::uint32_t* in, double* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        out[i] = static_cast<double>(in[i]);
}
__global__ void convert_float(const std::uint32_t* in, float* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        out[i] = static_cast<float>(in[i]);
}

}  // namespace

void seed_transpose_hamming(const std::uint32_t* values, std::size_t blocks, std::uint32_t* planes,
                            std::uint16_t* hamming, cudaStream_t stream) {
    seed_kernel<<<static_cast<unsigned>(blocks), dim3(32, 16), 0, stream>>>(values, planes, hamming);
}

std::uint64_t thrust_dot(const std::uint32_t* a, const std::uint32_t* b, std::size_t n, cudaStream_t stream) {
    return thrust::inner_product(thrust::cuda::par.on(stream), a, a + n, b, std::uint64_t{0},
                                 thrust::plus<std::uint64_t>(), mul64());
}

void to_double(const std::uint32_t* in, double* out, std::size_t n) { convert_double<<<1024, 256>>>(in, out, n); }
void to_float(const std::uint32_t* in, float* out, std::size_t n) { convert_float<<<1024, 256>>>(in, out, n); }

#if BITPLANE_BENCH_HAS_CUBLAS
namespace {
cublasHandle_t handle() {
    static cublasHandle_t h = [] {
        cublasHandle_t x = nullptr;
        if (cublasCreate(&x) != CUBLAS_STATUS_SUCCESS) {
            std::fprintf(stderr, "cublasCreate failed\n");
            std::exit(1);
        }
        return x;
    }();
    return h;
}
}  // namespace
bool have_cublas() { return true; }
double cublas_ddot(const double* a, const double* b, std::size_t n) {
    double r = 0;
    cublasDdot(handle(), static_cast<int>(n), a, 1, b, 1, &r);
    return r;
}
float cublas_sdot(const float* a, const float* b, std::size_t n) {
    float r = 0;
    cublasSdot(handle(), static_cast<int>(n), a, 1, b, 1, &r);
    return r;
}
#else
bool have_cublas() { return false; }
double cublas_ddot(const double*, const double*, std::size_t) { return 0; }
float cublas_sdot(const float*, const float*, std::size_t) { return 0; }
#endif

}  // namespace bitplane_bench
