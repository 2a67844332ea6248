// The executor of reductions over host-resident vectors (include/bitplane/cuda/exec.hpp):
// CPU (bitplane's block kernels over threads), GPU (the transfer pipeline from the vectors'
// arenas) and the CPU+GPU split, sized from measured rates.
//
// Model: a side that gets S bytes of compressed payload (both operands) takes
// latency + S / rate. The split gives the CPU the share x that makes both sides finish
// together, x = (L_gpu - L_cpu + S / R_gpu) / (S / R_cpu + S / R_gpu); the planner then keeps
// whichever of {CPU only, GPU only, split} the model says is fastest (a split pays two
// latencies and a thread start, so it loses on small inputs).
#include <bitplane/cuda/exec.hpp>
#include <bitplane/parallel.hpp>

#include "core/parallel.hpp"
#include "ops/reduce_internal.hpp"
#include "ops/reduce_support.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace bitplane::exec {
namespace {

std::mutex rates_mutex;
rates current;  // guarded by rates_mutex
bool calibrated = false;

constexpr double split_overhead_s = 60e-6;  // starting the CPU side's thread, joining it

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

rates current_rates() {
    {
        const std::lock_guard lock(rates_mutex);
        if (calibrated) return current;
    }
    return calibrate();
}

void set_rates(const rates& r) {
    const std::lock_guard lock(rates_mutex);
    current = r;
    calibrated = r.valid();
}

double planned_cpu_share(const policy& p, std::uint64_t bytes) {
    if (p.kind == where::cpu) return 1.0;
    if (p.kind == where::gpu) return 0.0;
    if (p.kind == where::hybrid && p.cpu_share >= 0) return std::min(1.0, p.cpu_share);
    const rates r = current_rates();
    const double s = static_cast<double>(bytes);
    const double cpu_only = r.cpu_latency_s + s / r.cpu_bytes_per_s;
    const double gpu_only = r.gpu_latency_s + s / r.gpu_bytes_per_s;
    double x = (r.gpu_latency_s - r.cpu_latency_s + s / r.gpu_bytes_per_s) /
               (s / r.cpu_bytes_per_s + s / r.gpu_bytes_per_s);
    x = std::clamp(x, 0.0, 1.0);
    const double split = std::max(r.cpu_latency_s + x * s / r.cpu_bytes_per_s,
                                  r.gpu_latency_s + (1 - x) * s / r.gpu_bytes_per_s) + split_overhead_s;
    if (cpu_only <= gpu_only && cpu_only <= split) return 1.0;
    if (gpu_only <= split) return 0.0;
    return x;
}

std::string describe(const rates& r) {
    char text[200];
    std::snprintf(text, sizeof text, "cpu %.2f GB/s + %.1f us, gpu %.2f GB/s + %.1f us", r.cpu_bytes_per_s / 1e9,
                  r.cpu_latency_s * 1e6, r.gpu_bytes_per_s / 1e9, r.gpu_latency_s * 1e6);
    return text;
}

}  // namespace bitplane::exec

namespace bitplane::cuda::detail {
namespace {

// dot over blocks [first, last) on the CPU: bitplane's thread pool when there is one, else
// std::threads taking chunks of blocks.
uint128 cpu_dot(const bitplane::detail::vector_core& a, const bitplane::detail::vector_core& b, bool is_signed,
                std::size_t first, std::size_t last) {
    if (first >= last) return 0;
    if (bitplane::parallel_available()) {
        return bitplane::detail::reduce_blocks<uint128>(
            last - first,
            [&](std::size_t f, std::size_t l, uint128& part) {
                part += bitplane::detail::dot_block_range(a, b, is_signed, first + f, first + l);
            },
            [](uint128& total, const uint128& part) { total += part; });
    }
    const std::size_t blocks = last - first;
    constexpr std::size_t chunk = 16;
    const std::size_t threads = std::min<std::size_t>(bitplane::thread_count(), (blocks + chunk - 1) / chunk);
    std::atomic<std::size_t> next{first};
    auto work = [&]() {
        uint128 part = 0;
        for (;;) {
            const std::size_t f = next.fetch_add(chunk);
            if (f >= last) break;
            part += bitplane::detail::dot_block_range(a, b, is_signed, f, std::min(last, f + chunk));
        }
        return part;
    };
    std::vector<std::future<uint128>> helpers;
    for (std::size_t t = 1; t < threads; ++t) helpers.push_back(std::async(std::launch::async, work));
    uint128 total = work();
    for (auto& h : helpers) total += h.get();
    return total;
}

}  // namespace

uint128 exec_dot(const exec::policy& p, const bitplane::detail::vector_core& a, const bitplane::detail::vector_core& b,
                 bool is_signed) {
    const std::size_t blocks = a.block_count();
    if (blocks == 0) return 0;
    if (p.kind == exec::where::cpu) return cpu_dot(a, b, is_signed, 0, blocks);
    const host_blocks ha = gather_blocks(a);
    const host_blocks hb = &a == &b ? host_blocks{} : gather_blocks(b);
    const host_blocks& rb = &a == &b ? ha : hb;
    const double share = exec::planned_cpu_share(p, ha.bytes() + rb.bytes());
    // The GPU takes a prefix of sealed blocks; the CPU the rest (with the tail).
    std::size_t gpu_blocks = static_cast<std::size_t>((1.0 - share) * static_cast<double>(blocks) + 0.5);
    if (share > 0) gpu_blocks = std::min(gpu_blocks, ha.sealed);
    if (gpu_blocks == 0) return cpu_dot(a, b, is_signed, 0, blocks);
    if (gpu_blocks >= blocks) return transfer_dot(view_of(ha), view_of(rb), blocks, is_signed, {});
    auto cpu_side = std::async(std::launch::async, [&] { return cpu_dot(a, b, is_signed, gpu_blocks, blocks); });
    uint128 total = 0;
    try {
        total = transfer_dot(view_of(ha), view_of(rb), gpu_blocks, is_signed, {});
    } catch (...) {
        cpu_side.wait();
        throw;
    }
    return total + cpu_side.get();
}

}  // namespace bitplane::cuda::detail

namespace bitplane::exec {

rates calibrate() {
    using clock = std::chrono::steady_clock;
    rates r;
    std::mt19937 random(20240611u);
    const auto make = [&](std::size_t n) {
        std::vector<std::uint32_t> values(n);
        for (auto& v : values) v = random() & 1023u;
        return vector<std::uint32_t>(std::span<const std::uint32_t>(values));
    };
    const std::size_t small_n = std::size_t{1} << 20;
    const std::size_t large_n = std::size_t{1} << 24;
    const vector<std::uint32_t> sa = make(small_n), sb = make(small_n), la = make(large_n), lb = make(large_n);
    const auto bytes_of = [](const vector<std::uint32_t>& v) {
        return static_cast<double>(cuda::detail::gather_blocks(v.core()).bytes());
    };
    const double small_bytes = bytes_of(sa) + bytes_of(sb);
    const double large_bytes = bytes_of(la) + bytes_of(lb);
    const auto median_time = [&](auto&& run) {
        std::vector<double> times;
        run();  // warm-up (allocations, streams, module load)
        for (int i = 0; i < 5; ++i) {
            const auto start = clock::now();
            run();
            times.push_back(seconds_since(start));
        }
        std::sort(times.begin(), times.end());
        return times[times.size() / 2];
    };
    const auto fit = [&](double t_small, double t_large, double& rate, double& latency) {
        const double dt = std::max(t_large - t_small, 1e-9);
        rate = (large_bytes - small_bytes) / dt;
        latency = std::max(0.0, t_small - small_bytes / rate);
    };
    const auto cpu_small = median_time([&] { (void)cuda::detail::exec_dot(exec::cpu, sa.core(), sb.core(), false); });
    const auto cpu_large = median_time([&] { (void)cuda::detail::exec_dot(exec::cpu, la.core(), lb.core(), false); });
    const auto gpu_small = median_time([&] { (void)cuda::detail::exec_dot(exec::gpu, sa.core(), sb.core(), false); });
    const auto gpu_large = median_time([&] { (void)cuda::detail::exec_dot(exec::gpu, la.core(), lb.core(), false); });
    fit(cpu_small, cpu_large, r.cpu_bytes_per_s, r.cpu_latency_s);
    fit(gpu_small, gpu_large, r.gpu_bytes_per_s, r.gpu_latency_s);
    set_rates(r);
    return r;
}

}  // namespace bitplane::exec
