// Scans (include/bitplane/scan.hpp) over 16M values (1 << 24), one thread, against a dense
// baseline in the same binary:
//
//   BM_Scan/<shape>/<query>/bitplane   find_eq, find_lt, find_range (a bitset) or count_eq,
//                                      count_range on the sealed bitplane::vector
//   BM_Scan/<shape>/<query>/dense      a plain, branch-free loop over the std::vector: one bit
//                                      per value, the comparison's 0/1 shifted into 64-bit
//                                      words (find_*), or the comparisons summed (count_*)
//   BM_Scan/uniform10/<find_eq|find_range>/dense_avx2
//                                      the same dense loop built for AVX2 (a reference point:
//                                      the baseline above is built for the default x86-64)
//   BM_ScanPath/<path>/uniform10/<query>   the bitplane scans of uniform10 on every SIMD path
//
// Shapes: uniform10 (uniform 10-bit: interleaved all-raw blocks), zeros90_20bit (90% zeros,
// else uniform 20-bit: sparse blocks), timestamps (sorted, step 1000 +- 15: delta blocks,
// decoded), signed_sentinels (int32 in [-1000, 1000], 10% -1: frame-of-reference blocks,
// signed order), scores3 (0..7), random32 (full range), runs12 (runs of 1..500 equal 12-bit
// values), sorted_ids (sorted, steps 0..2: delta blocks answered from their bounds); rare
// values (_rare, _absent, _middle: one run or one id) and ranges of about 10% (_10pct).
// Every bitplane answer is checked against the dense one before it is timed.
// bitplane runs on one thread (set_thread_count(1)) and the active SIMD path (BITPLANE_SIMD
// forces one). Items = values per iteration.
#include "../src/simd/kernels.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/parallel.hpp>
#include <bitplane/scan.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/vector.hpp>

#include <benchmark/benchmark.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

constexpr std::size_t value_count = std::size_t{1} << 24;

// ---- data ---------------------------------------------------------------------------------

template <class T>
struct column {
    std::vector<T> values;
    std::unique_ptr<bitplane::vector<T>> packed;
};

template <class T>
column<T> make_column(std::vector<T> values) {
    column<T> c;
    c.values = std::move(values);
    c.packed = std::make_unique<bitplane::vector<T>>(c.values.begin(), c.values.end());
    c.packed->seal();
    return c;
}

const column<std::uint32_t>& uniform10() {
    static const column<std::uint32_t> c = [] {
        std::mt19937_64 rng(0x5CA11);
        std::vector<std::uint32_t> v(value_count);
        for (auto& x : v) x = static_cast<std::uint32_t>(rng()) & 1023u;
        return make_column(std::move(v));
    }();
    return c;
}

const column<std::uint32_t>& zeros90() {
    static const column<std::uint32_t> c = [] {
        std::mt19937_64 rng(0x5CA12);
        std::vector<std::uint32_t> v(value_count);
        for (auto& x : v) x = rng() % 10 == 0 ? 1 + static_cast<std::uint32_t>(rng() % ((1u << 20) - 1)) : 0u;
        return make_column(std::move(v));
    }();
    return c;
}

const column<std::uint32_t>& timestamps() {
    static const column<std::uint32_t> c = [] {
        std::mt19937_64 rng(0x5CA13);
        std::vector<std::uint32_t> v(value_count);
        std::uint32_t t = 1'600'000'000u;
        for (auto& x : v) {
            t += 985u + static_cast<std::uint32_t>(rng() % 31);
            x = t;
        }
        return make_column(std::move(v));
    }();
    return c;
}

const column<std::int32_t>& signed_sentinels() {
    static const column<std::int32_t> c = [] {
        std::mt19937_64 rng(0x5CA14);
        std::vector<std::int32_t> v(value_count);
        for (auto& x : v) x = rng() % 10 == 0 ? -1 : static_cast<std::int32_t>(rng() % 2001) - 1000;
        return make_column(std::move(v));
    }();
    return c;
}

// The demo's scores (tools/demo_data.cpp): 0..7, planes all raw.
const column<std::uint32_t>& scores3() {
    static const column<std::uint32_t> c = [] {
        std::mt19937_64 rng(0x5CA15);
        std::vector<std::uint32_t> v(value_count);
        for (auto& x : v) x = static_cast<std::uint32_t>(rng()) & 7u;
        return make_column(std::move(v));
    }();
    return c;
}

// Full-range random values (incompressible).
const column<std::uint32_t>& random32() {
    static const column<std::uint32_t> c = [] {
        std::mt19937_64 rng(0x5CA16);
        std::vector<std::uint32_t> v(value_count);
        for (auto& x : v) x = static_cast<std::uint32_t>(rng());
        return make_column(std::move(v));
    }();
    return c;
}

// Runs of equal 12-bit values, 1..500 long (categories in sorted or grouped data): planes
// stored as runs and against each other.
const column<std::uint32_t>& runs12() {
    static const column<std::uint32_t> c = [] {
        std::mt19937_64 rng(0x5CA17);
        std::vector<std::uint32_t> v(value_count);
        for (std::size_t i = 0; i < v.size();) {
            const std::size_t n = 1 + rng() % 500;
            const auto x = static_cast<std::uint32_t>(rng() % 4096);
            for (std::size_t k = 0; k < n && i < v.size(); ++k) v[i++] = x;
        }
        return make_column(std::move(v));
    }();
    return c;
}

// Sorted ids with repeats (coordinates of sorted reads, interval starts): delta blocks with
// non-negative steps, answered from their bounds away from the queried values.
const column<std::uint32_t>& sorted_ids() {
    static const column<std::uint32_t> c = [] {
        std::mt19937_64 rng(0x5CA18);
        std::vector<std::uint32_t> v(value_count);
        std::uint32_t x = 10'000;
        for (auto& y : v) {
            x += static_cast<std::uint32_t>(rng() % 3);
            y = x;
        }
        return make_column(std::move(v));
    }();
    return c;
}

// ---- queries ------------------------------------------------------------------------------

enum class query_kind { eq, lt, range, count_eq, count_range };

template <class T>
struct query {
    query_kind kind;
    T a;
    T b;                     // range only
    bool at_middle = false;  // a = the middle value of the column, b = a + b
    const char* tag = "";    // appended to the query's name (e.g. "_rare")
};

template <class T>
query<T> resolve(const std::vector<T>& values, query<T> q) {
    if (q.at_middle) {
        const T width = q.b;
        q.a = values[values.size() / 2];
        q.b = static_cast<T>(q.a + width);
        q.at_middle = false;
    }
    return q;
}

// The dense baseline: bits into 64-bit words, branch-free.
template <class T, class Test>
void dense_bits(const std::vector<T>& v, Test test, std::vector<std::uint64_t>& out) {
    const std::size_t n = v.size();
    out.resize((n + 63) / 64);
    const T* p = v.data();
    for (std::size_t w = 0; w < n / 64; ++w) {
        std::uint64_t word = 0;
        for (std::size_t j = 0; j < 64; ++j) word |= static_cast<std::uint64_t>(test(p[64 * w + j])) << j;
        out[w] = word;
    }
    if (n % 64 != 0) {
        std::uint64_t word = 0;
        for (std::size_t j = 0; j < n % 64; ++j) word |= static_cast<std::uint64_t>(test(p[n / 64 * 64 + j])) << j;
        out[n / 64] = word;
    }
}

template <class T, class Test>
std::uint64_t dense_count(const std::vector<T>& v, Test test) {
    std::uint64_t n = 0;
    for (const T x : v) n += static_cast<std::uint64_t>(test(x));
    return n;
}

// Runs the dense baseline of `q`; returns the number of passing values.
template <class T>
std::uint64_t run_dense(const std::vector<T>& v, const query<T>& q, std::vector<std::uint64_t>& bits) {
    const T a = q.a;
    const T b = q.b;
    switch (q.kind) {
        case query_kind::eq: dense_bits(v, [a](T x) { return x == a; }, bits); break;
        case query_kind::lt: dense_bits(v, [a](T x) { return x < a; }, bits); break;
        case query_kind::range: dense_bits(v, [a, b](T x) { return (a <= x) & (x <= b); }, bits); break;
        case query_kind::count_eq: return dense_count(v, [a](T x) { return x == a; });
        case query_kind::count_range: return dense_count(v, [a, b](T x) { return (a <= x) & (x <= b); });
    }
    std::uint64_t n = 0;
    for (const std::uint64_t w : bits) n += static_cast<std::uint64_t>(std::popcount(w));
    return n;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define BITPLANE_BENCH_DENSE_AVX2 1
// The dense find_eq / find_range loops again, compiled for AVX2.
[[gnu::target("avx2")]] void dense_eq_avx2(const std::vector<std::uint32_t>& v, std::uint32_t x,
                                           std::vector<std::uint64_t>& out) {
    const std::size_t n = v.size();
    out.resize((n + 63) / 64);
    const std::uint32_t* p = v.data();
    for (std::size_t w = 0; w < n / 64; ++w) {
        std::uint64_t word = 0;
        for (std::size_t j = 0; j < 64; ++j) word |= static_cast<std::uint64_t>(p[64 * w + j] == x) << j;
        out[w] = word;
    }
}

[[gnu::target("avx2")]] void dense_range_avx2(const std::vector<std::uint32_t>& v, std::uint32_t lo, std::uint32_t hi,
                                              std::vector<std::uint64_t>& out) {
    const std::size_t n = v.size();
    out.resize((n + 63) / 64);
    const std::uint32_t* p = v.data();
    for (std::size_t w = 0; w < n / 64; ++w) {
        std::uint64_t word = 0;
        for (std::size_t j = 0; j < 64; ++j)
            word |= static_cast<std::uint64_t>((lo <= p[64 * w + j]) & (p[64 * w + j] <= hi)) << j;
        out[w] = word;
    }
}

void bm_dense_avx2(benchmark::State& state, query<std::uint32_t> q) {
    const column<std::uint32_t>& c = uniform10();
    std::vector<std::uint64_t> bits;
    for (auto _ : state) {
        if (q.kind == query_kind::eq) {
            dense_eq_avx2(c.values, q.a, bits);
        } else {
            dense_range_avx2(c.values, q.a, q.b, bits);
        }
        benchmark::DoNotOptimize(bits.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(c.values.size()));
}
#endif

template <class T>
bitplane::bitset run_find(const bitplane::vector<T>& v, const query<T>& q) {
    switch (q.kind) {
        case query_kind::eq: return bitplane::find_eq(v, q.a);
        case query_kind::lt: return bitplane::find_lt(v, q.a);
        default: return bitplane::find_range(v, q.a, q.b);
    }
}

bool is_count(query_kind k) { return k == query_kind::count_eq || k == query_kind::count_range; }

// bitplane's answer, checked once against the dense one: positions for finds, the count for counts.
template <class T>
bool agrees(const column<T>& c, const query<T>& q) {
    std::vector<std::uint64_t> bits;
    const std::uint64_t expected = run_dense(c.values, q, bits);
    if (q.kind == query_kind::count_eq) return bitplane::count_eq(*c.packed, q.a) == expected;
    if (q.kind == query_kind::count_range) return bitplane::count_range(*c.packed, q.a, q.b) == expected;
    const bitplane::bitset found = run_find(*c.packed, q);
    if (found.count() != expected || found.size() != c.values.size()) return false;
    for (const std::uint64_t i : found.to_positions())
        if (((bits[i / 64] >> (i % 64)) & 1u) == 0) return false;
    return true;
}

template <class T>
void bm_bitplane(benchmark::State& state, const column<T>& c, query<T> q) {
    q = resolve(c.values, q);
    bitplane::set_thread_count(1);
    if (!agrees(c, q)) {
        state.SkipWithError("bitplane disagrees with the dense scan");
        bitplane::set_thread_count(0);
        return;
    }
    for (auto _ : state) {
        if (is_count(q.kind)) {
            const std::uint64_t n = q.kind == query_kind::count_eq ? bitplane::count_eq(*c.packed, q.a)
                                                                   : bitplane::count_range(*c.packed, q.a, q.b);
            benchmark::DoNotOptimize(n);
        } else {
            bitplane::bitset found = run_find(*c.packed, q);
            benchmark::DoNotOptimize(found);
        }
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(c.values.size()));
    state.counters["bits_per_value"] =
        static_cast<double>(c.packed->memory_bytes()) * 8.0 / static_cast<double>(c.values.size());
    bitplane::set_thread_count(0);
}

template <class T>
void bm_dense(benchmark::State& state, const column<T>& c, query<T> q) {
    q = resolve(c.values, q);
    std::vector<std::uint64_t> bits;
    for (auto _ : state) {
        const std::uint64_t n = run_dense(c.values, q, bits);
        benchmark::DoNotOptimize(n);
        benchmark::DoNotOptimize(bits.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(c.values.size()));
}

const char* query_name(query_kind k) {
    switch (k) {
        case query_kind::eq: return "find_eq";
        case query_kind::lt: return "find_lt";
        case query_kind::range: return "find_range";
        case query_kind::count_eq: return "count_eq";
        case query_kind::count_range: return "count_range";
    }
    return "?";
}

template <class T>
void register_shape(const std::string& shape, const column<T>& (*data)(), const std::vector<query<T>>& queries) {
    for (const query<T>& q : queries) {
        const std::string base = "BM_Scan/" + shape + "/" + query_name(q.kind) + q.tag;
        benchmark::RegisterBenchmark((base + "/bitplane").c_str(),
                                     [data, q](benchmark::State& s) { bm_bitplane(s, data(), q); })
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark((base + "/dense").c_str(), [data, q](benchmark::State& s) {
            bm_dense(s, data(), q);
        })->Unit(benchmark::kMillisecond);
    }
}

void bm_path(benchmark::State& state, bitplane::simd_path path, query<std::uint32_t> q) {
    const bitplane::simd_path saved = bitplane::active_simd_path();
    bitplane::set_simd_path(path);
    bm_bitplane(state, uniform10(), q);
    bitplane::set_simd_path(saved);
}

const int registered = [] {
    using u32 = std::uint32_t;
    const std::vector<query<u32>> u10 = {{query_kind::eq, 517, 0},        {query_kind::lt, 300, 0},
                                         {query_kind::range, 100, 600},   {query_kind::count_eq, 517, 0},
                                         {query_kind::count_range, 100, 600}};
    register_shape<u32>("uniform10", &uniform10, u10);
#if defined(BITPLANE_BENCH_DENSE_AVX2)
    if (__builtin_cpu_supports("avx2")) {
        for (const query<u32>& q : {u10[0], u10[2]}) {
            benchmark::RegisterBenchmark(
                ("BM_Scan/uniform10/" + std::string(query_name(q.kind)) + "/dense_avx2").c_str(),
                [q](benchmark::State& s) { bm_dense_avx2(s, q); })
                ->Unit(benchmark::kMillisecond);
        }
    }
#endif
    register_shape<u32>("zeros90_20bit", &zeros90,
                        {{query_kind::eq, 123456, 0}, {query_kind::lt, 1000, 0}, {query_kind::range, 1, 500000},
                         {query_kind::count_eq, 0, 0}, {query_kind::count_range, 1, 500000}});
    // The middle value, and a window of about 1% of the values from there.
    const u32 window = 1000u * static_cast<u32>(value_count / 100);
    register_shape<u32>("timestamps", &timestamps,
                        {{query_kind::eq, 0, 0, true},
                         {query_kind::lt, 0, 0, true},
                         {query_kind::range, 0, window, true},
                         {query_kind::count_eq, 0, 0, true},
                         {query_kind::count_range, 0, window, true}});
    register_shape<std::int32_t>("signed_sentinels", &signed_sentinels,
                                 {{query_kind::eq, -1, 0}, {query_kind::lt, 0, 0}, {query_kind::range, -10, 10},
                                  {query_kind::count_eq, -1, 0}, {query_kind::count_range, -10, 10}});
    // Rare values (one or a few occurrences, or none) and ranges of about 10% of the values.
    register_shape<u32>("uniform10", &uniform10,
                        {{query_kind::eq, 2000, 0, false, "_absent"}, {query_kind::count_eq, 2000, 0, false, "_absent"}});
    register_shape<u32>("zeros90_20bit", &zeros90,
                        {{query_kind::eq, 0, 0, false, "_zero"}, {query_kind::range, 1, 104857, false, "_10pct"}});
    register_shape<u32>("scores3", &scores3,
                        {{query_kind::eq, 3, 0},
                         {query_kind::count_eq, 3, 0},
                         {query_kind::eq, 9, 0, false, "_absent"},
                         {query_kind::range, 2, 4},
                         {query_kind::count_range, 2, 4}});
    register_shape<u32>("random32", &random32,
                        {{query_kind::eq, 0, 0, true, "_rare"},
                         {query_kind::count_eq, 0, 0, true, "_rare"},
                         {query_kind::range, 0x40000000u, 0x40000000u + 429'496'729u, false, "_10pct"},
                         {query_kind::count_range, 0x40000000u, 0x40000000u + 429'496'729u, false, "_10pct"}});
    register_shape<u32>("runs12", &runs12,
                        {{query_kind::eq, 0, 0, true, "_middle"},
                         {query_kind::count_eq, 0, 0, true, "_middle"},
                         {query_kind::eq, 5000, 0, false, "_absent"},
                         {query_kind::range, 0, 409, true, "_10pct"},
                         {query_kind::count_range, 0, 409, true, "_10pct"}});
    register_shape<u32>("sorted_ids", &sorted_ids,
                        {{query_kind::eq, 0, 0, true, "_middle"},
                         {query_kind::count_eq, 0, 0, true, "_middle"},
                         {query_kind::range, 0, static_cast<u32>(value_count / 10), true, "_10pct"},
                         {query_kind::count_range, 0, static_cast<u32>(value_count / 10), true, "_10pct"}});
    for (const bitplane::simd_path path : bitplane::available_simd_paths()) {
        for (const query<u32>& q : {u10[0], u10[2]}) {
            benchmark::RegisterBenchmark(
                ("BM_ScanPath/" + std::string(bitplane::to_string(path)) + "/uniform10/" + query_name(q.kind)).c_str(),
                [path, q](benchmark::State& s) { bm_path(s, path, q); })
                ->Unit(benchmark::kMillisecond);
        }
    }
    return 0;
}();

}  // namespace
