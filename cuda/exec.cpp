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
#include <bitplane/codec.hpp>
#include <bitplane/parallel.hpp>

#include "core/parallel.hpp"
#include "ops/reduce_internal.hpp"
#include "ops/reduce_support.hpp"
#include "transfer.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <cstdio>
#include <future>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace bitplane::exec {
namespace {

constexpr double split_overhead_s = 60e-6;  // starting the CPU side's thread, joining it

// What runs taught the planner about one half-octave of sizes: seconds per byte of each side
// alone and of a split, and the share that made a split's sides finish together.
struct lesson {
    double cpu = 0;
    double gpu = 0;
    double split = 0;
    double share = -1;
};

std::mutex state_mutex;
rates current;  // guarded by state_mutex
bool calibrated = false;
std::map<int, lesson> lessons;

// Payload bytes (both operands) at or below which hybrid and automatic run on the CPU without
// planning: half the size where the rates first prefer anything but the CPU alone. Before any
// rates are known, 32 KiB (the GPU's fixed cost of tens of microseconds is worth far more CPU
// work than that). Read without the lock: it is only a hint that skips the planner.
constexpr double default_tiny_bytes = 32.0 * 1024;
std::atomic<double> tiny_bytes{default_tiny_bytes};

int bucket_of(double bytes) { return static_cast<int>(std::floor(2.0 * std::log2(std::max(bytes, 1.0)))); }

double blend(double old_value, double fresh) { return old_value > 0 ? 0.5 * old_value + 0.5 * fresh : fresh; }

double interpolate(const std::vector<double>& x, const std::vector<double>& y, double at) {
    if (x.empty()) return 0;
    if (at <= x.front() || x.size() == 1) return x.size() == 1 ? y.front() * std::max(1.0, at / x.front()) : y.front();
    for (std::size_t i = 1; i < x.size(); ++i)
        if (at <= x[i]) return y[i - 1] + (y[i] - y[i - 1]) * (at - x[i - 1]) / (x[i] - x[i - 1]);
    const std::size_t n = x.size();
    const double slope = std::max(0.0, (y[n - 1] - y[n - 2]) / (x[n - 1] - x[n - 2]));
    return y[n - 1] + slope * (at - x[n - 1]);
}

struct plan {
    double share = 1.0;
};

plan make_plan(const policy& p, double bytes, const rates& r, const lesson* learned) {
    plan out;
    if (p.kind == where::cpu) return out;
    out.share = 0.0;
    if (p.kind == where::gpu) return out;
    if (p.kind == where::hybrid && p.cpu_share >= 0) {
        out.share = std::min(1.0, p.cpu_share);
        return out;
    }
    const double cpu_only = learned && learned->cpu > 0 ? learned->cpu * bytes : r.cpu_time(bytes);
    const double gpu_only = learned && learned->gpu > 0 ? learned->gpu * bytes : r.gpu_time(bytes);
    // A split runs both sides, each at least its smallest measured time, plus the thread: when
    // one side alone is already faster than that floor (every small input), the share is not
    // searched for. Keeps the planner's cost far below the CPU's time on small inputs.
    const double split_floor = std::max(r.cpu_seconds.front(), r.gpu_seconds.front()) + split_overhead_s;
    if (!(learned && learned->split > 0) && std::min(cpu_only, gpu_only) <= split_floor) {
        out.share = cpu_only <= gpu_only ? 1.0 : 0.0;
        return out;
    }
    // The share where the table says both sides finish together (bisection: times grow with bytes).
    double lo = 0.0;
    double hi = 1.0;
    for (int i = 0; i < 40; ++i) {
        const double x = 0.5 * (lo + hi);
        if (r.cpu_time(x * bytes) < r.gpu_time((1 - x) * bytes)) lo = x; else hi = x;
    }
    double x = 0.5 * (lo + hi);
    double split = std::max(r.cpu_time(x * bytes), r.gpu_time((1 - x) * bytes)) + split_overhead_s;
    if (learned && learned->share >= 0) x = learned->share;
    if (learned && learned->split > 0) split = learned->split * bytes;
    if (cpu_only <= gpu_only && cpu_only <= split) {
        out.share = 1.0;
    } else if (gpu_only <= split) {
        out.share = 0.0;
    } else {
        out.share = std::clamp(x, 0.0, 1.0);
    }
    return out;
}

}  // namespace

rates rates::linear(double cpu_bytes_per_s, double cpu_latency_s, double gpu_bytes_per_s, double gpu_latency_s) {
    rates r;
    for (double b = 1e3; b <= 1e11; b *= 10) {
        r.bytes.push_back(b);
        r.cpu_seconds.push_back(cpu_latency_s + b / cpu_bytes_per_s);
        r.gpu_seconds.push_back(gpu_latency_s + b / gpu_bytes_per_s);
    }
    return r;
}

double rates::cpu_time(double b) const { return interpolate(bytes, cpu_seconds, b); }
double rates::gpu_time(double b) const { return interpolate(bytes, gpu_seconds, b); }

rates current_rates() {
    {
        const std::lock_guard lock(state_mutex);
        if (calibrated) return current;
    }
    return calibrate();
}

// Half the smallest size at which the rates stop preferring the CPU alone (bisection on the
// bytes: below the crossover the CPU wins, above it the GPU or a split does).
double tiny_bytes_of(const rates& r) {
    if (!r.valid()) return default_tiny_bytes;
    const auto cpu_wins = [&](double b) { return make_plan(automatic, b, r, nullptr).share >= 1.0; };
    double lo = 0;
    double hi = 1e12;
    if (cpu_wins(hi)) return hi;
    for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (cpu_wins(mid)) lo = mid; else hi = mid;
    }
    return 0.5 * lo;
}

void set_rates(const rates& r) {
    const std::lock_guard lock(state_mutex);
    current = r;
    calibrated = r.valid();
    lessons.clear();
    tiny_bytes.store(tiny_bytes_of(r), std::memory_order_relaxed);
}

double cpu_only_below_bytes() { return tiny_bytes.load(std::memory_order_relaxed); }

double planned_cpu_share(const policy& p, std::uint64_t bytes) {
    if (p.kind == where::cpu) return 1.0;
    if (p.kind == where::gpu) return 0.0;
    if (p.kind == where::hybrid && p.cpu_share >= 0) return std::min(1.0, p.cpu_share);
    if (static_cast<double>(bytes) <= cpu_only_below_bytes()) return 1.0;
    {
        const std::lock_guard lock(state_mutex);
        if (calibrated) {
            const auto it = lessons.find(bucket_of(static_cast<double>(bytes)));
            return make_plan(p, static_cast<double>(bytes), current, it == lessons.end() ? nullptr : &it->second).share;
        }
    }
    (void)calibrate();
    return planned_cpu_share(p, bytes);
}

/// Records a run: `share` of `bytes` on the CPU; side times (negative when a side did not run).
void learn(double bytes, double share, double total_s, double cpu_s, double gpu_s) {
    if (bytes <= 0) return;
    const std::lock_guard lock(state_mutex);
    lesson& l = lessons[bucket_of(bytes)];
    if (share >= 1.0) {
        l.cpu = blend(l.cpu, total_s / bytes);
    } else if (share <= 0.0) {
        l.gpu = blend(l.gpu, total_s / bytes);
    } else {
        l.split = blend(l.split, total_s / bytes);
        if (cpu_s > 0 && gpu_s > 0) {
            const double cpu_rate = share * bytes / cpu_s;
            const double gpu_rate = (1 - share) * bytes / gpu_s;
            const double balanced = cpu_rate / (cpu_rate + gpu_rate);
            l.share = l.share >= 0 ? 0.5 * l.share + 0.5 * balanced : balanced;
        }
    }
}

std::string describe(const rates& r) {
    std::string out;
    char text[160];
    for (std::size_t i = 0; i < r.bytes.size(); ++i) {
        std::snprintf(text, sizeof text, "%s%.3g B: cpu %.1f us, gpu %.1f us", i ? "; " : "", r.bytes[i],
                      r.cpu_seconds[i] * 1e6, r.gpu_seconds[i] * 1e6);
        out += text;
    }
    return out;
}

}  // namespace bitplane::exec

namespace bitplane::exec {
void learn(double bytes, double share, double total_s, double cpu_s, double gpu_s);
}

namespace bitplane::cuda::detail {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The size the planner goes by: encoded bytes of a vector's sealed blocks plus 4 bytes per
// value of its uncompressed tail (found without encoding the tail, which a CPU-only run skips).
std::uint64_t plan_bytes(const bitplane::detail::vector_core& v) {
    std::array<std::byte, codec::max_block_bytes> scratch;
    std::uint64_t total = 4 * v.tail().size();
    for (std::size_t b = 0; b < v.sealed_block_count(); ++b) total += v.sealed_block(b, scratch).size();
    return total;
}

// dot over blocks [first, last) on the CPU: bitplane's thread pool when there is one, else
// std::threads taking chunks of blocks.
uint128 cpu_dot(const bitplane::detail::vector_core& a, const bitplane::detail::vector_core& b, bool is_signed,
                std::size_t first, std::size_t last, std::size_t thread_limit) {
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
    const std::size_t threads = std::min<std::size_t>(thread_limit, (blocks + chunk - 1) / chunk);
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
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const std::size_t blocks = a.block_count();
    if (blocks == 0) return 0;
    const std::size_t threads = bitplane::thread_count();
    const double bytes = static_cast<double>(plan_bytes(a) + (&a == &b ? plan_bytes(a) : plan_bytes(b)));
    const double share = exec::planned_cpu_share(p, static_cast<std::uint64_t>(bytes));
    if (share >= 1.0) {
        const uint128 r = cpu_dot(a, b, is_signed, 0, blocks, threads);
        exec::learn(bytes, 1.0, seconds_since(start), -1, -1);
        return r;
    }
    const host_blocks ha = gather_blocks(a);
    const host_blocks hb = &a == &b ? host_blocks{} : gather_blocks(b);
    const host_blocks& rb = &a == &b ? ha : hb;
    // The GPU takes a prefix of sealed blocks; the CPU the rest (with the tail).
    std::size_t gpu_blocks = static_cast<std::size_t>((1.0 - share) * static_cast<double>(blocks) + 0.5);
    if (share > 0) gpu_blocks = std::min(gpu_blocks, ha.sealed);
    uint128 total = 0;
    if (gpu_blocks == 0) {
        total = cpu_dot(a, b, is_signed, 0, blocks, threads);
        exec::learn(bytes, 1.0, seconds_since(start), -1, -1);
        return total;
    }
    if (gpu_blocks >= blocks) {
        total = transfer_dot(view_of(ha), view_of(rb), blocks, is_signed, {});
        exec::learn(bytes, 0.0, seconds_since(start), -1, -1);
        return total;
    }
    // The CPU side leaves one hardware thread to this one, which drives the copies.
    double cpu_seconds = 0;
    auto cpu_side = std::async(std::launch::async, [&] {
        const auto t0 = clock::now();
        const uint128 r = cpu_dot(a, b, is_signed, gpu_blocks, blocks, std::max<std::size_t>(1, threads - 1));
        cpu_seconds = seconds_since(t0);
        return r;
    });
    double gpu_seconds = 0;
    try {
        const auto t0 = clock::now();
        total = transfer_dot(view_of(ha), view_of(rb), gpu_blocks, is_signed, {});
        gpu_seconds = seconds_since(t0);
    } catch (...) {
        cpu_side.wait();
        throw;
    }
    total += cpu_side.get();
    const double cpu_bytes = bytes - static_cast<double>(ha.offsets[gpu_blocks] + rb.offsets[gpu_blocks]);
    exec::learn(bytes, cpu_bytes / bytes, seconds_since(start), cpu_seconds, gpu_seconds);
    return total;
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
    const auto median_time = [&](auto&& run) {
        std::vector<double> times;
        run();  // warm-up (allocations, streams, module load)
        for (int i = 0; i < 5; ++i) {
            const auto start = clock::now();
            run();
            times.push_back(std::chrono::duration<double>(clock::now() - start).count());
        }
        std::sort(times.begin(), times.end());
        return times[times.size() / 2];
    };
    for (const int lg : {12, 16, 20, 24}) {
        const vector<std::uint32_t> a = make(std::size_t{1} << lg);
        const vector<std::uint32_t> b = make(std::size_t{1} << lg);
        r.bytes.push_back(static_cast<double>(cuda::detail::plan_bytes(a.core()) + cuda::detail::plan_bytes(b.core())));
        r.cpu_seconds.push_back(median_time([&] { (void)cuda::detail::exec_dot(exec::cpu, a.core(), b.core(), false); }));
        r.gpu_seconds.push_back(median_time([&] { (void)cuda::detail::exec_dot(exec::gpu, a.core(), b.core(), false); }));
    }
    set_rates(r);
    return r;
}

}  // namespace bitplane::exec
