// Helpers shared by the sections of bitplane_cuda_bench (bench_cuda.cpp, bench_ops.cpp, ...):
// CUDA error checks, owning device and pinned buffers, the median timers, the CSV/console row
// writer and the mismatch exit. Host code (C++20), no kernels.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace bitplane_bench {

inline void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(2);
    }
}

struct device_array {
    void* p = nullptr;
    explicit device_array(std::size_t bytes) { check(cudaMalloc(&p, std::max<std::size_t>(bytes, 16)), "cudaMalloc"); }
    ~device_array() { cudaFree(p); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
    template <class T>
    T* as() const { return static_cast<T*>(p); }
};

struct pinned_array {
    void* p = nullptr;
    explicit pinned_array(std::size_t bytes) { check(cudaMallocHost(&p, std::max<std::size_t>(bytes, 16)), "cudaMallocHost"); }
    ~pinned_array() { cudaFreeHost(p); }
    pinned_array(const pinned_array&) = delete;
    pinned_array& operator=(const pinned_array&) = delete;
    template <class T>
    T* as() const { return static_cast<T*>(p); }
};

/// Median seconds of `run` (one warm-up run first), repeated until ~`budget` s or 200 runs, at least 3.
inline double median_seconds(const std::function<void()>& run, double budget = 0.25) {
    using clock = std::chrono::steady_clock;
    run();
    std::vector<double> times;
    const auto start = clock::now();
    while (times.size() < 3 || (times.size() < 200 && std::chrono::duration<double>(clock::now() - start).count() < budget)) {
        const auto t0 = clock::now();
        run();
        times.push_back(std::chrono::duration<double>(clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

/// Median seconds of `run` with no warm-up of its own (the caller has just run it to get the
/// reference result), at least `min_runs`, then more until `budget` s or 200 runs. For the CPU
/// path at large sizes, where one run takes a large share of the budget.
inline double median_seconds_warm(const std::function<void()>& run, double budget, std::size_t min_runs = 2) {
    using clock = std::chrono::steady_clock;
    std::vector<double> times;
    const auto start = clock::now();
    while (times.size() < min_runs ||
           (times.size() < 200 && std::chrono::duration<double>(clock::now() - start).count() < budget)) {
        const auto t0 = clock::now();
        run();
        times.push_back(std::chrono::duration<double>(clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

/// Medians of several runs timed in interleaved rounds (each round runs every one once, in a
/// fresh random order), so that drifts of the machine (clocks, other load) and the after-effects
/// of one run on the next (a GPU call's wait leaves the CPU's caches and clocks colder) hit all
/// of them alike; rounds go on until `budget` seconds or `max_rounds`, at least 5.
inline std::vector<double> interleaved_medians(const std::vector<std::function<void()>>& runs, double budget, int max_rounds) {
    using clock = std::chrono::steady_clock;
    for (const auto& run : runs) run();
    std::vector<std::vector<double>> times(runs.size());
    const auto start = clock::now();
    std::vector<std::size_t> order(runs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::mt19937 shuffle(12345u);
    for (int round = 0; round < max_rounds; ++round) {
        if (round >= 5 && std::chrono::duration<double>(clock::now() - start).count() > budget) break;
        std::shuffle(order.begin(), order.end(), shuffle);
        for (const std::size_t i : order) {
            const auto t0 = clock::now();
            runs[i]();
            times[i].push_back(std::chrono::duration<double>(clock::now() - t0).count());
        }
    }
    std::vector<double> out;
    for (auto& t : times) {
        std::sort(t.begin(), t.end());
        out.push_back(t[t.size() / 2]);
    }
    return out;
}

/// Median seconds of a device-only region between events (for kernels).
inline double median_event_seconds(const std::function<void()>& enqueue, int reps) {
    cudaEvent_t a, b;
    check(cudaEventCreate(&a), "event");
    check(cudaEventCreate(&b), "event");
    enqueue();
    check(cudaDeviceSynchronize(), "warm-up");
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
        check(cudaEventRecord(a), "record");
        enqueue();
        check(cudaEventRecord(b), "record");
        check(cudaEventSynchronize(b), "sync");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, a, b), "elapsed");
        times.push_back(ms * 1e-3);
    }
    check(cudaGetLastError(), "kernel");
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

inline std::uint64_t xorshift(std::uint64_t& s) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
}

/// One result row: console and CSV (`values,operation,variant,seconds,GBps,note`). GB/s is
/// `bytes` (the dense size of the operands, see each section) over the median time.
inline void record(std::FILE* csv, std::size_t n, const char* op, const char* variant, double seconds, double bytes,
                   const std::string& note = "") {
    std::printf("  %-34s %-36s %10.4f ms %9.2f GB/s %s\n", op, variant, seconds * 1e3, bytes / seconds / 1e9, note.c_str());
    if (csv) {
        std::fprintf(csv, "%zu,%s,%s,%.9f,%.3f,%s\n", n, op, variant, seconds, bytes / seconds / 1e9, note.c_str());
        std::fflush(csv);  // a run stopped at its time limit keeps every row written so far
    }
    std::fflush(stdout);
}

[[noreturn]] inline void fail(const std::string& what) {
    std::fprintf(stderr, "MISMATCH: %s\n", what.c_str());
    std::exit(3);
}

}  // namespace bitplane_bench
