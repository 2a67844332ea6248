// Random and sequential reads of single values on every kind of block the encoder produces
// (issue #13's acceptance: random operator[] <= 40 ns, sequential iteration <= 1 ns/value),
// each beside a plain std::vector<std::uint32_t> of the same values in the same binary.
//
//   BM_AccessRandom/<shape>      operator[] at 1M pre-generated random indices (summed, so
//                                reads overlap: throughput, as BM_RandomGet in bench_codec.cpp)
//   BM_AccessRandomStd/<shape>   the same indices on the std::vector
//   BM_AccessIterate/<shape>     range-for over the vector (const_iterator), summing
//   BM_AccessIterateStd/<shape>  the same loop over the std::vector
//
// 4M values (1 << 22) per shape, one thread. Counters: ns_per_value; the label names the
// blocks' layouts and transforms and the planes' payload kinds (from vector::stats()).
//
// Shapes: the demo's six (tools/demo_data.cpp: uniform10, scores3, sparse20, timestamps,
// readings (an int32 column with -1), random32) plus sorted (delta), runs (run payloads), sparse999
// (a 0.1%-set mask stored as positions / gaps), small_signed (int32 in [-30, 30]: zigzag), and clustered (values
// near a large base: frame of reference).
#include "read_loops.hpp"

#include <bitplane/parallel.hpp>
#include <bitplane/vector.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

using bitplane_bench::sum_all;
using bitplane_bench::time_random_reads;

constexpr std::size_t access_values = std::size_t{1} << 22;
constexpr std::size_t access_gets = std::size_t{1} << 20;

class one_core {
public:
    one_core() : saved_(bitplane::thread_count()) { bitplane::set_thread_count(1); }
    ~one_core() { bitplane::set_thread_count(saved_); }
    one_core(const one_core&) = delete;
    one_core& operator=(const one_core&) = delete;

private:
    std::size_t saved_;
};

enum class access_shape {
    uniform10, scores3, sparse20, timestamps, readings, random32, sorted, runs, sparse999, small_signed, clustered
};
constexpr std::array all_access_shapes{access_shape::uniform10, access_shape::scores3,   access_shape::sparse20,
                                       access_shape::timestamps, access_shape::readings, access_shape::random32,
                                       access_shape::sorted,     access_shape::runs,     access_shape::sparse999,
                                       access_shape::small_signed, access_shape::clustered};

const char* name_of(access_shape s) {
    switch (s) {
        case access_shape::uniform10: return "uniform10";
        case access_shape::scores3: return "scores3";
        case access_shape::sparse20: return "sparse20";
        case access_shape::timestamps: return "timestamps";
        case access_shape::readings: return "readings";
        case access_shape::random32: return "random32";
        case access_shape::sorted: return "sorted";
        case access_shape::runs: return "runs";
        case access_shape::sparse999: return "sparse999";
        case access_shape::small_signed: return "small_signed";
        case access_shape::clustered: return "clustered";
    }
    return "?";
}

std::vector<std::uint32_t> generate(access_shape s) {
    std::mt19937_64 random(0xACCE55u + static_cast<unsigned>(s));
    std::vector<std::uint32_t> out(access_values);
    switch (s) {
        case access_shape::uniform10:
            for (auto& v : out) v = static_cast<std::uint32_t>(random() & 1023);
            break;
        case access_shape::scores3:
            for (auto& v : out) v = static_cast<std::uint32_t>(random() & 7);
            break;
        case access_shape::sparse20:
            for (auto& v : out) v = random() % 10 == 0 ? static_cast<std::uint32_t>(random() & 0xfffff) : 0u;
            break;
        case access_shape::timestamps: {
            auto now = static_cast<std::uint32_t>(1'700'000'000'000ull);
            std::uniform_int_distribution<int> jitter(-8, 8);
            for (auto& v : out) {
                v = now;
                now += static_cast<std::uint32_t>(1000 + jitter(random));
            }
            break;
        }
        case access_shape::readings: {
            std::uniform_int_distribution<std::int32_t> reading(-100, 100);
            for (auto& v : out) v = std::bit_cast<std::uint32_t>(random() % 10 == 0 ? -1 : reading(random));
            break;
        }
        case access_shape::random32:
            for (auto& v : out) v = static_cast<std::uint32_t>(random());
            break;
        case access_shape::sorted: {
            std::uint32_t at = 12345;
            for (auto& v : out) v = at += static_cast<std::uint32_t>(random() % 7);
            break;
        }
        case access_shape::runs: {
            std::uint32_t value = 0;
            std::size_t left = 0;
            for (auto& v : out) {
                if (left == 0) {
                    value = static_cast<std::uint32_t>(random() % 5000);
                    left = 1 + random() % 300;
                }
                v = value;
                --left;
            }
            break;
        }
        case access_shape::sparse999:
            for (auto& v : out) v = random() % 1000 == 0 ? static_cast<std::uint32_t>(random() & 0xffff) : 0u;
            break;
        case access_shape::small_signed:
            for (auto& v : out) v = std::bit_cast<std::uint32_t>(static_cast<std::int32_t>(random() % 61) - 30);
            break;
        case access_shape::clustered:
            for (auto& v : out) v = 3'000'000'000u + static_cast<std::uint32_t>(random() % 4000);
            break;
    }
    return out;
}

const std::vector<std::uint32_t>& values_of(access_shape s) {
    static std::map<access_shape, std::vector<std::uint32_t>> cache;
    auto it = cache.find(s);
    if (it == cache.end()) it = cache.emplace(s, generate(s)).first;
    return it->second;
}

// Signed shapes (readings, small_signed) are int32 columns, as the demo stores readings.
bool is_signed(access_shape s) { return s == access_shape::readings || s == access_shape::small_signed; }

template <class T>
const std::vector<T>& typed_values_of(access_shape s) {
    static std::map<access_shape, std::vector<T>> cache;
    auto it = cache.find(s);
    if (it == cache.end()) {
        std::vector<T> typed;
        for (const std::uint32_t x : values_of(s)) typed.push_back(std::bit_cast<T>(x));
        it = cache.emplace(s, std::move(typed)).first;
    }
    return it->second;
}

template <class T>
const bitplane::vector<T>& vector_of(access_shape s) {
    static std::map<access_shape, bitplane::vector<T>> cache;
    auto it = cache.find(s);
    if (it == cache.end()) {
        const auto& values = typed_values_of<T>(s);
        bitplane::vector<T> v(values.begin(), values.end());
        v.seal();
        it = cache.emplace(s, std::move(v)).first;
    }
    return it->second;
}

const std::vector<std::uint32_t>& random_indices() {
    static const std::vector<std::uint32_t> indices = [] {
        std::mt19937_64 random(0x1D1CE5u);
        std::vector<std::uint32_t> v(access_gets);
        for (auto& i : v) i = static_cast<std::uint32_t>(random() % access_values);
        return v;
    }();
    return indices;
}

// What the vector's blocks are made of: "dense 2048 sparse 0 | none 2048 | raw 10 positions 3 ...".
template <class T>
std::string layout_label(const bitplane::vector<T>& v) {
    const bitplane::vector_stats s = v.stats();
    static constexpr std::array transforms{"none", "for", "delta", "zigzag"};
    static constexpr std::array payloads{"none", "pos", "runs", "raw", "gaps"};
    std::string out = "dense " + std::to_string(s.blocks_by_layout[0]) + " sparse " + std::to_string(s.blocks_by_layout[1]) + " |";
    for (std::size_t t = 0; t < transforms.size(); ++t)
        if (s.blocks_by_transform[t]) out += std::string(" ") + transforms[t] + " " + std::to_string(s.blocks_by_transform[t]);
    out += " | planes";
    std::array<std::uint64_t, 5> by_payload{};
    std::uint64_t referenced = 0;
    for (std::size_t b = 0; b < s.planes.size(); ++b)
        for (std::size_t p = 0; p < s.planes[b].size(); ++p) {
            by_payload[p] += s.planes[b][p];
            if (b >= 2) referenced += s.planes[b][p];  // planes whose base is another plane
        }
    for (std::size_t p = 1; p < payloads.size(); ++p)
        if (by_payload[p]) out += std::string(" ") + payloads[p] + " " + std::to_string(by_payload[p]);
    out += " ref " + std::to_string(referenced);
    return out;
}

void set_rate(benchmark::State& state, std::size_t per_iteration) {
    const auto total = static_cast<double>(state.iterations()) * static_cast<double>(per_iteration);
    state.SetItemsProcessed(static_cast<std::int64_t>(total));
    state.counters["ns_per_value"] =
        benchmark::Counter(total * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <class T>
void bm_random(benchmark::State& state, access_shape s) {
    const one_core single_thread;
    const auto& v = vector_of<T>(s);
    const auto& indices = random_indices();
    if (!time_random_reads(state, v, values_of(s), indices)) return;
    set_rate(state, indices.size());
    state.SetLabel(layout_label(v));
}

void bm_random_std(benchmark::State& state, access_shape s) {
    const auto& v = values_of(s);
    const auto& indices = random_indices();
    if (!time_random_reads(state, v, v, indices)) return;
    set_rate(state, indices.size());
}

template <class T>
void bm_iterate(benchmark::State& state, access_shape s) {
    const one_core single_thread;
    const auto& v = vector_of<T>(s);
    if (sum_all(v) != sum_all(values_of(s))) {
        state.SkipWithError("iteration does not give back the values");
        return;
    }
    for (auto _ : state) {
        std::uint32_t sum = sum_all(v);
        benchmark::DoNotOptimize(sum);
    }
    set_rate(state, v.size());
}

void bm_iterate_std(benchmark::State& state, access_shape s) {
    const auto& v = values_of(s);
    for (auto _ : state) {
        std::uint32_t sum = sum_all(v);
        benchmark::DoNotOptimize(sum);
    }
    set_rate(state, v.size());
}

[[maybe_unused]] const bool registered = [] {
    // (The SIMD path is in the JSON context: bench_codec.cpp adds it for the whole binary.)
    for (const access_shape s : all_access_shapes) {
        const std::string name = name_of(s);
        const auto random = is_signed(s) ? bm_random<std::int32_t> : bm_random<std::uint32_t>;
        const auto iterate = is_signed(s) ? bm_iterate<std::int32_t> : bm_iterate<std::uint32_t>;
        benchmark::RegisterBenchmark(("BM_AccessRandom/" + name).c_str(), random, s)->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("BM_AccessRandomStd/" + name).c_str(), bm_random_std, s)->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("BM_AccessIterate/" + name).c_str(), iterate, s)->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("BM_AccessIterateStd/" + name).c_str(), bm_iterate_std, s)->Unit(benchmark::kMillisecond);
    }
    return true;
}();

}  // namespace
