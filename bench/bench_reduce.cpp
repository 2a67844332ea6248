// Reductions (include/bitplane/reduce.hpp) over 16M values (1 << 24) of uniform k-bit data,
// one thread, against dense baselines in the same binary:
//
//   BM_ReduceSum/<impl>/<k>            sum: bitplane::sum, std::accumulate into a uint64_t, a
//                                      plain loop (uint64_t accumulator)
//   BM_ReduceDot/<impl>/<k>            dot of two k-bit columns: bitplane::dot (the cost model
//                                      picks the method per block pair), and the baselines
//                                        dense_avx2      a plain u32 loop built for AVX2
//                                                        (vpmuludq; exact: 64-bit products
//                                                        summed as 32-bit halves per 2048)
//                                        inner_product   std::inner_product with 64-bit
//                                                        products and accumulation
//                                        cblas_ddot      OpenBLAS on the same values as
//                                                        doubles (one OpenBLAS thread)
//   BM_ReduceDotMethod/<m>/<k>         bitplane::dot with every block pair forced to one method
//                                      (planes, decode): where they cross is the threshold
//                                      in src/codec/thresholds.hpp
//   BM_ReduceSquares/<impl>/<k>        sum_of_squares against dense_avx2 on (a, a)
//   BM_ReduceDot[Method]/<impl>/zeros90, /sentinels, /10x3
//                                      informational: sparse blocks (each operand its own mask),
//                                      delta blocks (always decoded), and a 10-bit by 3-bit dot
//                                      (the demo's dot(uniform10, scores3))
//
// Every bitplane result is checked against the dense loop before it is timed. bitplane runs
// on one thread (set_thread_count(1)) and the active SIMD path (BITPLANE_SIMD to force one).
// Items = values per iteration (16M).
#include "../src/ops/reduce_internal.hpp"

#include <bitplane/int128.hpp>
#include <bitplane/parallel.hpp>
#include <bitplane/reduce.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/vector.hpp>

#include <benchmark/benchmark.h>

#if defined(BITPLANE_BENCH_OPENBLAS)
#include <cblas.h>
#endif

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using bitplane::uint128;
using bitplane::detail::dot_method;

constexpr std::size_t value_count = std::size_t{1} << 24;

// ---- data: one width cached at a time (benchmarks are registered width by width) ------------

struct width_data {
    unsigned bits = 99;
    std::vector<std::uint32_t> a, b;
    std::vector<double> da, db;  // made on first use
    std::unique_ptr<bitplane::vector<std::uint32_t>> va, vb;
};

// Widths 1..32 are uniform k-bit values; two structured shapes (informational) take the
// numbers above 32: zeros90 (0 with probability 0.9, else uniform 20-bit non-zero: sparse
// blocks, each operand with its own mask) and sentinels (0..999 with 20% 0xFFFFFFFF, as
// uint32: the encoder takes delta for them, differences fit 11 planes, so they are decoded).
constexpr unsigned zeros90 = 100;
constexpr unsigned sentinels = 101;
// ... and 10x3: a uniform 10-bit, b uniform 3-bit (the demo's dot(uniform10, scores3): two
// widths, the plane pairs read in place).
constexpr unsigned mixed10x3 = 102;

std::vector<std::uint32_t> uniform_values(unsigned bits, std::uint64_t seed) {
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + bits);
    std::vector<std::uint32_t> v(value_count);
    if (bits == zeros90) {
        for (auto& x : v) x = rng() % 10 == 0 ? 1u + static_cast<std::uint32_t>(rng() % 0xFFFFFu) : 0u;
        return v;
    }
    if (bits == sentinels) {
        for (auto& x : v) x = rng() % 5 == 0 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(rng() % 1000);
        return v;
    }
    const std::uint32_t mask = bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
    for (auto& x : v) x = static_cast<std::uint32_t>(rng()) & mask;
    return v;
}

width_data& data_for(unsigned bits) {
    static width_data data;
    if (data.bits != bits) {
        data = width_data{};
        data.bits = bits;
        data.a = uniform_values(bits == mixed10x3 ? 10 : bits, 1);
        data.b = uniform_values(bits == mixed10x3 ? 3 : bits, 2);
    }
    return data;
}

const bitplane::vector<std::uint32_t>& vector_a(width_data& d) {
    if (!d.va) d.va = std::make_unique<bitplane::vector<std::uint32_t>>(std::span<const std::uint32_t>(d.a));
    return *d.va;
}

const bitplane::vector<std::uint32_t>& vector_b(width_data& d) {
    if (!d.vb) d.vb = std::make_unique<bitplane::vector<std::uint32_t>>(std::span<const std::uint32_t>(d.b));
    return *d.vb;
}

// ---- dense baselines ----------------------------------------------------------------------------

[[gnu::noinline]] std::uint64_t dense_sum_accumulate(const std::vector<std::uint32_t>& v) {
    return std::accumulate(v.begin(), v.end(), std::uint64_t{0});
}

[[gnu::noinline]] std::uint64_t dense_sum_loop(const std::uint32_t* p, std::size_t n) {
    std::uint64_t s = 0;
    for (std::size_t i = 0; i < n; ++i) s += p[i];
    return s;
}

[[gnu::noinline]] std::uint64_t dense_inner_product(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    return std::inner_product(a.begin(), a.end(), b.begin(), std::uint64_t{0}, std::plus<>(),
                              [](std::uint32_t x, std::uint32_t y) { return std::uint64_t{x} * y; });
}

// The products' 32-bit halves are summed into 64-bit accumulators over 2048 values (no
// overflow), then folded into 128 bits: exact, and GCC vectorizes the inner loop (vpmuludq).
#if defined(__x86_64__) && defined(__GNUC__)
[[gnu::target("avx2"), gnu::noinline]]
#else
[[gnu::noinline]]
#endif
uint128 dense_dot(const std::uint32_t* a, const std::uint32_t* b, std::size_t n) {
    uint128 total = 0;
    for (std::size_t first = 0; first < n; first += 2048) {
        const std::size_t last = first + 2048 < n ? first + 2048 : n;
        std::uint64_t lo = 0, hi = 0;
        for (std::size_t i = first; i < last; ++i) {
            const std::uint64_t p = std::uint64_t{a[i]} * b[i];
            lo += p & 0xFFFFFFFFu;
            hi += p >> 32;
        }
        total += lo + (uint128{hi} << 32);
    }
    return total;
}

struct one_thread {
    one_thread() { bitplane::set_thread_count(1); }
    ~one_thread() {
        bitplane::set_thread_count(0);
        bitplane::detail::force_dot_method(dot_method::automatic);
    }
    one_thread(const one_thread&) = delete;
    one_thread& operator=(const one_thread&) = delete;
};

void set_items(benchmark::State& state) {
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(value_count));
}

// ---- sum ------------------------------------------------------------------------------------------

enum class sum_impl { bitplane, accumulate, loop };

void bm_sum(benchmark::State& state, sum_impl impl, unsigned bits) {
    width_data& d = data_for(bits);
    const std::uint64_t expected = dense_sum_loop(d.a.data(), d.a.size());
    const one_thread guard;
    if (impl == sum_impl::bitplane) {
        const auto& v = vector_a(d);
        if (bitplane::sum(v) != expected) {
            state.SkipWithError("bitplane::sum differs from the dense loop");
            return;
        }
        for (auto _ : state) benchmark::DoNotOptimize(bitplane::sum(v));
    } else if (impl == sum_impl::accumulate) {
        for (auto _ : state) benchmark::DoNotOptimize(dense_sum_accumulate(d.a));
    } else {
        for (auto _ : state) benchmark::DoNotOptimize(dense_sum_loop(d.a.data(), d.a.size()));
    }
    set_items(state);
}

// ---- sum over shaped columns ------------------------------------------------------------------------
// BM_SumShape/<impl>/<shape>: bitplane::sum against the plain loop (a `for` over the
// std::vector accumulating into 64 bits) on the six shapes of `bitplane demo`
// (tools/demo_data.cpp) and on sorted, run and sparse shapes that take the delta, sparse and
// frame-of-reference encodings. 16M values each; readings are int32, the rest uint32.

struct sum_shape {
    const char* name;
    bool is_signed;
    std::uint32_t start;  // the value before the first
    std::uint32_t (*next)(std::mt19937_64& rng, std::uint32_t previous);
};

constexpr sum_shape sum_shapes[] = {
    {"uniform10", false, 1700000000u, [](std::mt19937_64& r, std::uint32_t) { return static_cast<std::uint32_t>(r() & 1023); }},
    {"scores3", false, 1700000000u, [](std::mt19937_64& r, std::uint32_t) { return static_cast<std::uint32_t>(r() & 7); }},
    {"sparse20", false, 1700000000u,
     [](std::mt19937_64& r, std::uint32_t) { return r() % 10 == 0 ? static_cast<std::uint32_t>(r() & 0xfffff) : 0u; }},
    {"timestamps", false, 1700000000u,  // ms, one a second +- 8 ms (demo): delta blocks
     [](std::mt19937_64& r, std::uint32_t p) { return p + 992u + static_cast<std::uint32_t>(r() % 17); }},
    {"readings", true, 0u,  // int32 in [-100, 100], 10% -1
     [](std::mt19937_64& r, std::uint32_t) {
         return static_cast<std::uint32_t>(r() % 10 == 0 ? -1 : static_cast<std::int32_t>(r() % 201) - 100);
     }},
    {"random32", false, 1700000000u, [](std::mt19937_64& r, std::uint32_t) { return static_cast<std::uint32_t>(r()); }},
    {"sorted_ids", false, 1700000000u,  // non-decreasing by 0..15: delta
     [](std::mt19937_64& r, std::uint32_t p) { return p + static_cast<std::uint32_t>(r() % 16); }},
    {"ticks", false, 1700000000u,  // exactly 1000 apart but 1% of steps (sparse delta)
     [](std::mt19937_64& r, std::uint32_t p) { return p + (r() % 100 == 0 ? 1000u + static_cast<std::uint32_t>(r() % 64) : 1000u); }},
    {"falling", false, 0xF0000000u,  // descending by 90..100 (delta, negative minimum)
     [](std::mt19937_64& r, std::uint32_t p) { return p - 90u - static_cast<std::uint32_t>(r() % 11); }},
    {"runs", false, 1700000000u,  // runs of equal 16-bit values, length 1/64 on average
     [](std::mt19937_64& r, std::uint32_t p) { return r() % 64 == 0 ? static_cast<std::uint32_t>(r() & 0xffff) : p; }},
    {"offset8", false, 1700000000u,  // 1e6 + 0..255: frame of reference
     [](std::mt19937_64& r, std::uint32_t) { return 1'000'000u + static_cast<std::uint32_t>(r() & 255); }},
    {"zeros999", false, 1700000000u,  // 99.9% zeros: sparse, position lists
     [](std::mt19937_64& r, std::uint32_t) { return r() % 1000 == 0 ? 1u + static_cast<std::uint32_t>(r() & 0xfffff) : 0u; }},
};

std::vector<std::uint32_t> shape_values(const sum_shape& shape) {
    std::mt19937_64 rng(42);
    std::vector<std::uint32_t> v(value_count);
    std::uint32_t previous = shape.start;
    for (auto& x : v) x = previous = shape.next(rng, previous);
    return v;
}

template <class T>
[[gnu::noinline]] bitplane::wide_t<T> plain_sum(const std::vector<T>& v) {
    using acc = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
    acc s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) s += v[i];
    return s;
}

template <class T>
void bm_sum_shape_typed(benchmark::State& state, const sum_shape& shape, bool plain) {
    static const sum_shape* cached = nullptr;
    static std::vector<T> values;
    static std::unique_ptr<bitplane::vector<T>> column;
    if (cached != &shape) {
        const std::vector<std::uint32_t> raw = shape_values(shape);
        values.assign(raw.size(), T{});
        for (std::size_t i = 0; i < raw.size(); ++i) values[i] = static_cast<T>(raw[i]);
        column = std::make_unique<bitplane::vector<T>>(std::span<const T>(values));
        cached = &shape;
    }
    const one_thread guard;
    if (plain) {
        for (auto _ : state) benchmark::DoNotOptimize(plain_sum(values));
    } else {
        if (bitplane::sum(*column) != plain_sum(values)) {
            state.SkipWithError("bitplane::sum differs from the plain loop");
            return;
        }
        for (auto _ : state) benchmark::DoNotOptimize(bitplane::sum(*column));
    }
    set_items(state);
}

void bm_sum_shape(benchmark::State& state, const sum_shape* shape, bool plain) {
    if (shape->is_signed) {
        bm_sum_shape_typed<std::int32_t>(state, *shape, plain);
    } else {
        bm_sum_shape_typed<std::uint32_t>(state, *shape, plain);
    }
}

// ---- dot ------------------------------------------------------------------------------------------

enum class dot_impl { bitplane, planes, decode, dense_avx2, inner_product, cblas_ddot };

void bm_dot(benchmark::State& state, dot_impl impl, unsigned bits) {
    width_data& d = data_for(bits);
    const std::size_t n = d.a.size();
    const uint128 expected = dense_dot(d.a.data(), d.b.data(), n);
    const one_thread guard;
    switch (impl) {
        case dot_impl::bitplane:
        case dot_impl::planes:
        case dot_impl::decode: {
            const auto& va = vector_a(d);
            const auto& vb = vector_b(d);
            bitplane::detail::force_dot_method(impl == dot_impl::planes   ? dot_method::planes
                                               : impl == dot_impl::decode ? dot_method::decode
                                                                          : dot_method::automatic);
            if (bitplane::dot(va, vb) != expected) {
                state.SkipWithError("bitplane::dot differs from the dense loop");
                return;
            }
            for (auto _ : state) benchmark::DoNotOptimize(bitplane::dot(va, vb));
            break;
        }
        case dot_impl::dense_avx2:
            for (auto _ : state) benchmark::DoNotOptimize(dense_dot(d.a.data(), d.b.data(), n));
            break;
        case dot_impl::inner_product:
            if (bits <= 16 && dense_inner_product(d.a, d.b) != expected) {  // wider sums pass 2^64
                state.SkipWithError("inner_product differs from the dense loop");
                return;
            }
            for (auto _ : state) benchmark::DoNotOptimize(dense_inner_product(d.a, d.b));
            break;
        case dot_impl::cblas_ddot: {
#if defined(BITPLANE_BENCH_OPENBLAS)
            if (d.da.empty()) {
                d.da.assign(d.a.begin(), d.a.end());
                d.db.assign(d.b.begin(), d.b.end());
            }
            openblas_set_num_threads(1);
            for (auto _ : state)
                benchmark::DoNotOptimize(cblas_ddot(static_cast<int>(n), d.da.data(), 1, d.db.data(), 1));
#else
            state.SkipWithError("built without OpenBLAS");
            return;
#endif
            break;
        }
    }
    set_items(state);
}

enum class squares_impl { bitplane, dense_avx2 };

void bm_squares(benchmark::State& state, squares_impl impl, unsigned bits) {
    width_data& d = data_for(bits);
    const uint128 expected = dense_dot(d.a.data(), d.a.data(), d.a.size());
    const one_thread guard;
    if (impl == squares_impl::bitplane) {
        const auto& v = vector_a(d);
        if (bitplane::sum_of_squares(v) != expected) {
            state.SkipWithError("bitplane::sum_of_squares differs from the dense loop");
            return;
        }
        for (auto _ : state) benchmark::DoNotOptimize(bitplane::sum_of_squares(v));
    } else {
        for (auto _ : state) benchmark::DoNotOptimize(dense_dot(d.a.data(), d.a.data(), d.a.size()));
    }
    set_items(state);
}

// ---- registration ---------------------------------------------------------------------------------

[[maybe_unused]] const bool registered = [] {
    using benchmark::kMillisecond;
    auto name = [](const char* family, const char* impl, unsigned bits) {
        return std::string(family) + "/" + impl + "/" + std::to_string(bits);
    };
    for (const unsigned bits : {3u, 10u, 32u}) {
        benchmark::RegisterBenchmark(name("BM_ReduceSum", "bitplane", bits).c_str(), bm_sum, sum_impl::bitplane, bits)
            ->Unit(kMillisecond);
        benchmark::RegisterBenchmark(name("BM_ReduceSum", "accumulate", bits).c_str(), bm_sum, sum_impl::accumulate, bits)
            ->Unit(kMillisecond);
        benchmark::RegisterBenchmark(name("BM_ReduceSum", "loop", bits).c_str(), bm_sum, sum_impl::loop, bits)
            ->Unit(kMillisecond);
    }
    for (unsigned bits = 1; bits <= 32; ++bits) {
        benchmark::RegisterBenchmark(name("BM_ReduceDot", "bitplane", bits).c_str(), bm_dot, dot_impl::bitplane, bits)
            ->Unit(kMillisecond);
        benchmark::RegisterBenchmark(name("BM_ReduceDot", "dense_avx2", bits).c_str(), bm_dot, dot_impl::dense_avx2, bits)
            ->Unit(kMillisecond);
        benchmark::RegisterBenchmark(name("BM_ReduceDotMethod", "planes", bits).c_str(), bm_dot, dot_impl::planes, bits)
            ->Unit(kMillisecond);
        benchmark::RegisterBenchmark(name("BM_ReduceDotMethod", "decode", bits).c_str(), bm_dot, dot_impl::decode, bits)
            ->Unit(kMillisecond);
        if (bits == 3 || bits == 8 || bits == 32) {
            benchmark::RegisterBenchmark(name("BM_ReduceDot", "inner_product", bits).c_str(), bm_dot,
                                         dot_impl::inner_product, bits)
                ->Unit(kMillisecond);
            benchmark::RegisterBenchmark(name("BM_ReduceDot", "cblas_ddot", bits).c_str(), bm_dot, dot_impl::cblas_ddot,
                                         bits)
                ->Unit(kMillisecond);
        }
        if (bits == 10 || bits == 32) {
            benchmark::RegisterBenchmark(name("BM_ReduceSquares", "bitplane", bits).c_str(), bm_squares,
                                         squares_impl::bitplane, bits)
                ->Unit(kMillisecond);
            benchmark::RegisterBenchmark(name("BM_ReduceSquares", "dense_avx2", bits).c_str(), bm_squares,
                                         squares_impl::dense_avx2, bits)
                ->Unit(kMillisecond);
        }
    }
    for (const sum_shape& shape : sum_shapes) {
        for (const bool plain : {false, true}) {
            benchmark::RegisterBenchmark((std::string("BM_SumShape/") + (plain ? "loop/" : "bitplane/") + shape.name).c_str(),
                                         bm_sum_shape, &shape, plain)
                ->Unit(benchmark::kMicrosecond);
        }
    }
    auto shape = [](unsigned bits) { return bits == zeros90 ? "zeros90" : bits == sentinels ? "sentinels" : "10x3"; };
    for (const unsigned bits : {zeros90, sentinels, mixed10x3}) {
        for (const auto& [impl, kind] : {std::pair{"bitplane", dot_impl::bitplane}, std::pair{"dense_avx2", dot_impl::dense_avx2}}) {
            benchmark::RegisterBenchmark((std::string("BM_ReduceDot/") + impl + "/" + shape(bits)).c_str(), bm_dot, kind, bits)
                ->Unit(kMillisecond);
        }
        for (const auto& [impl, kind] : {std::pair{"planes", dot_impl::planes}, std::pair{"decode", dot_impl::decode}}) {
            benchmark::RegisterBenchmark((std::string("BM_ReduceDotMethod/") + impl + "/" + shape(bits)).c_str(), bm_dot,
                                         kind, bits)
                ->Unit(kMillisecond);
        }
    }
    return true;
}();

}  // namespace
