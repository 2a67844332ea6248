// bitplane::cuda::encode against the CPU encoder (bench_encode.hpp).
#include "bench_encode.hpp"

#include <bitplane/codec.hpp>
#include <bitplane/cuda/device_vector.hpp>
#include <bitplane/cuda/encode.hpp>
#include <bitplane/parallel.hpp>
#include <bitplane/vector.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

template <class F>
double median_seconds(int reps, F&& f) {
    f();  // warm-up: scratch, allocations, caches
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        const auto start = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

std::vector<std::uint32_t> make_data(bool ten_bit, std::size_t n) {
    std::mt19937_64 rng(ten_bit ? 0x10b17 : 0x32b17);
    std::vector<std::uint32_t> v(n);
    for (auto& x : v) x = static_cast<std::uint32_t>(rng()) & (ten_bit ? 0x3FFu : 0xFFFFFFFFu);
    return v;
}

bool same_blocks(const bitplane::cuda::device_vector<std::uint32_t>& a,
                 const bitplane::cuda::device_vector<std::uint32_t>& b) {
    if (a.block_count() != b.block_count() || a.payload_bytes() != b.payload_bytes()) return false;
    std::vector<std::byte> x(a.payload_bytes()), y(b.payload_bytes());
    std::vector<std::uint64_t> ox(a.block_count() + 1), oy(b.block_count() + 1);
    return cudaMemcpy(x.data(), a.device_payload(), x.size(), cudaMemcpyDeviceToHost) == cudaSuccess &&
           cudaMemcpy(y.data(), b.device_payload(), y.size(), cudaMemcpyDeviceToHost) == cudaSuccess &&
           cudaMemcpy(ox.data(), a.device_offsets(), 8 * ox.size(), cudaMemcpyDeviceToHost) == cudaSuccess &&
           cudaMemcpy(oy.data(), b.device_offsets(), 8 * oy.size(), cudaMemcpyDeviceToHost) == cudaSuccess &&
           x == y && ox == oy;
}

void row(std::FILE* csv, std::size_t n, const char* data, const char* variant, double seconds, double bytes_per_value) {
    const double gbps = 4.0 * static_cast<double>(n) / seconds / 1e9;
    std::printf("  %10zu  %-7s %-34s %12.6f ms %8.3f GB/s  %.3f B/value\n", n, data, variant, seconds * 1e3, gbps,
                bytes_per_value);
    if (csv)
        std::fprintf(csv, "%zu,encode to bytes %s,%s,%.9f,%.3f,%.4f B/value\n", n, data, variant, seconds, gbps,
                     bytes_per_value);
}

}  // namespace

bool run_encode_benchmarks(int min_log2, int max_log2, std::FILE* csv) {
    bool ok = true;
    std::printf("encode: device-resident values -> compressed blocks (GB/s of input values)\n");
    for (int k = min_log2 + (min_log2 & 1); k <= max_log2; k += 2) {
        const std::size_t n = std::size_t{1} << k;
        const int reps = k <= 20 ? 21 : k <= 24 ? 9 : 5;
        for (const bool ten_bit : {true, false}) {
            const char* data = ten_bit ? "10-bit" : "random";
            const std::vector<std::uint32_t> values = make_data(ten_bit, n);
            void* device = nullptr;
            if (cudaMalloc(&device, 4 * n) != cudaSuccess ||
                cudaMemcpy(device, values.data(), 4 * n, cudaMemcpyHostToDevice) != cudaSuccess) {
                std::fprintf(stderr, "encode bench: cudaMalloc/cudaMemcpy of %zu values failed\n", n);
                cudaFree(device);
                return false;
            }
            const auto* d = static_cast<const std::uint32_t*>(device);
            bitplane::cuda::device_vector<std::uint32_t> gpu;
            const double t_gpu = median_seconds(reps, [&] { gpu = bitplane::cuda::encode(d, n); });
            cudaFree(device);

            std::vector<std::byte> out(bitplane::codec::max_block_bytes);
            const std::span<const std::uint32_t> all(values);
            const int cpu_reps = k <= 20 ? 9 : 3;
            std::size_t cpu_bytes = 0;
            const double t_one = median_seconds(cpu_reps, [&] {
                cpu_bytes = 0;
                for (std::size_t at = 0; at < n; at += bitplane::block_values)
                    cpu_bytes += bitplane::codec::encode_block(
                        all.subspan(at, std::min<std::size_t>(bitplane::block_values, n - at)), false, out);
            });
            bitplane::vector<std::uint32_t> host;
            const double t_all = median_seconds(cpu_reps, [&] { host = bitplane::vector<std::uint32_t>(all); });

            const bitplane::cuda::device_vector<std::uint32_t> uploaded(host);
            if (!same_blocks(gpu, uploaded) || cpu_bytes != gpu.payload_bytes()) {
                std::fprintf(stderr, "MISMATCH: GPU-encoded blocks differ from the CPU's (%s, %zu values)\n", data, n);
                ok = false;
            }
            const double per_value = static_cast<double>(gpu.payload_bytes()) / static_cast<double>(n);
            row(csv, n, data, "bitplane::cuda::encode (GPU)", t_gpu, per_value);
            row(csv, n, data, "codec::encode_block 1 CPU thread", t_one, per_value);
            const std::string threads = "bitplane::vector(values) " + std::to_string(bitplane::thread_count()) + " CPU threads";
            row(csv, n, data, threads.c_str(), t_all, per_value);
        }
    }
    return ok;
}
