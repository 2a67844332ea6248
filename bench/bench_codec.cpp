// Codec and container benchmarks over 16M values (1 << 24) per data shape, each with its
// baseline in the same binary (docs/benchmarks.md; scripts/bench_report.py reads the ratios):
//
//   BM_SeedBaseline[_hwpopcnt]  the 2009 seed algorithm (seed_baseline.hpp), transpose + 32 x 32
//                               Hamming matrix of every block of uniform10
//   BM_Encode/<shape>           codec::encode_block of every 2048-value block
//   BM_Decode/<shape>           vector::decode of everything into a preallocated std::vector
//   BM_DecodeDense              memcpy of the same bytes (the ceiling for decode)
//   BM_RandomGet/<shape>        operator[] at 1M pre-generated random indices
//   BM_RandomGetDense           the same indices on a std::vector<std::uint32_t>
//   BM_PushBack/<shape>         push_back of every value into a fresh vector, then seal()
//   BM_PushBackStd              std::vector<std::uint32_t>::push_back, no reserve
//   BM_BulkDecodeRange/<shape>  vector::decode of a 4096-value range at a random (unaligned) start
//   BM_BulkDecodeRangeDense     memcpy of the same ranges from a std::vector
//   BM_Size/<shape>             sizes only (its time is three encodes of the data): bits per
//                               value in memory after seal(), and the encoded size against the
//                               same blocks encoded with transforms/sparse/references/runs off
//                               ("plain bit-plane size") and with only delta off
//
// Shapes (fixed seeds; values are generated once and cached):
//   uniform10         uniform in [0, 2^10)
//   uniform3          uniform in [0, 2^3)
//   zeros90_20bit     0 with probability 0.9, else uniform in [0, 2^20)
//   timestamps        1'700'000'000, then steps of 1000 +- 15 (uniform), as uint32_t: the series
//                     passes 2^32 after about 2.6M values and wraps (6 times in 16M values), so it
//                     is sorted between wraps; 6 of 8192 blocks straddle a wrap
//   signed_sentinels  int32_t: uniform in [-1000, 1000], 10% replaced by the sentinel -1
//   random32          uniform 32-bit
//
// Throughputs: items = values; bytes = 4 bytes per value (input for encode and push_back,
// output for decode).
#include "read_loops.hpp"
#include "seed_baseline.hpp"

#include <bitplane/block.hpp>
#include <bitplane/codec.hpp>
#include <bitplane/parallel.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/vector.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

// The acceptance figures are per core: every codec benchmark runs its work on one thread
// (bulk decode and construction would otherwise use every core; bench_bitwise.cpp measures
// the scaling). Restores the previous count when the benchmark ends.
class one_core {
public:
    one_core() : saved_(bitplane::thread_count()) { bitplane::set_thread_count(1); }
    ~one_core() { bitplane::set_thread_count(saved_); }
    one_core(const one_core&) = delete;
    one_core& operator=(const one_core&) = delete;

private:
    std::size_t saved_;
};


namespace codec = bitplane::codec;
using bitplane::block_values;

constexpr std::size_t value_count = std::size_t{1} << 24;
constexpr std::size_t random_get_count = std::size_t{1} << 20;
constexpr std::size_t range_values = 4096;
constexpr std::size_t range_count = 1024;  // distinct random ranges, cycled through

enum class shape { uniform10, uniform3, zeros90_20bit, timestamps, signed_sentinels, random32 };
constexpr std::array all_shapes{shape::uniform10,  shape::uniform3,         shape::zeros90_20bit,
                                shape::timestamps, shape::signed_sentinels, shape::random32};

const char* name_of(shape s) {
    switch (s) {
        case shape::uniform10: return "uniform10";
        case shape::uniform3: return "uniform3";
        case shape::zeros90_20bit: return "zeros90_20bit";
        case shape::timestamps: return "timestamps";
        case shape::signed_sentinels: return "signed_sentinels";
        case shape::random32: return "random32";
    }
    return "?";
}

bool is_signed(shape s) { return s == shape::signed_sentinels; }

std::vector<std::uint32_t> generate(shape s) {
    std::mt19937_64 rng(0x5EED0000u + static_cast<unsigned>(s));
    std::vector<std::uint32_t> v(value_count);
    switch (s) {
        case shape::uniform10:
            for (auto& x : v) x = static_cast<std::uint32_t>(rng()) & 0x3FFu;
            break;
        case shape::uniform3:
            for (auto& x : v) x = static_cast<std::uint32_t>(rng()) & 0x7u;
            break;
        case shape::zeros90_20bit:
            for (auto& x : v) {
                const std::uint64_t r = rng();
                x = (r % 10 == 0) ? static_cast<std::uint32_t>(r >> 32) & 0xFFFFFu : 0u;
            }
            break;
        case shape::timestamps: {
            std::uint32_t t = 1'700'000'000u;
            for (auto& x : v) {
                x = t;
                t += static_cast<std::uint32_t>(1000 - 15 + static_cast<int>(rng() % 31));  // wraps mod 2^32
            }
            break;
        }
        case shape::signed_sentinels:
            for (auto& x : v) {
                const std::uint64_t r = rng();
                const std::int32_t value = (r % 10 == 0) ? -1 : static_cast<std::int32_t>((r >> 32) % 2001) - 1000;
                x = static_cast<std::uint32_t>(value);
            }
            break;
        case shape::random32:
            for (auto& x : v) x = static_cast<std::uint32_t>(rng());
            break;
    }
    return v;
}

// ---- data, generated once ------------------------------------------------------------------

const std::vector<std::uint32_t>& values_of(shape s) {
    static std::array<std::vector<std::uint32_t>, all_shapes.size()> cache;
    auto& v = cache[static_cast<std::size_t>(s)];
    if (v.empty()) v = generate(s);
    return v;
}

template <class T>
std::span<const T> typed_values(shape s) {
    const auto& bits = values_of(s);
    // int32_t and uint32_t may alias each other.
    return {reinterpret_cast<const T*>(bits.data()), bits.size()};
}

template <class T>
const bitplane::vector<T>& sealed_vector(shape s) {
    static std::array<std::unique_ptr<bitplane::vector<T>>, all_shapes.size()> cache;
    auto& v = cache[static_cast<std::size_t>(s)];
    if (!v) {
        v = std::make_unique<bitplane::vector<T>>();
        v->append(typed_values<T>(s));
        v->seal();
    }
    return *v;
}

const std::vector<std::uint32_t>& random_indices() {
    static const std::vector<std::uint32_t> indices = [] {
        std::mt19937_64 rng(0x1D1CE5u);
        std::vector<std::uint32_t> v(random_get_count);
        for (auto& i : v) i = static_cast<std::uint32_t>(rng() % value_count);
        return v;
    }();
    return indices;
}

const std::vector<std::size_t>& range_starts() {
    static const std::vector<std::size_t> starts = [] {
        std::mt19937_64 rng(0x5A4A1Eu);
        std::vector<std::size_t> v(range_count);
        for (auto& s : v) s = rng() % (value_count - range_values + 1);
        return v;
    }();
    return starts;
}

std::size_t encoded_bytes(std::span<const std::uint32_t> v, bool sign, const codec::encode_options& options) {
    alignas(64) std::array<std::byte, codec::max_block_bytes> out;
    std::size_t total = 0;
    for (std::size_t first = 0; first < v.size(); first += block_values) {
        const std::size_t count = std::min(block_values, v.size() - first);
        total += codec::encode_block(v.subspan(first, count), sign, out, options);
    }
    return total;
}

void set_value_throughput(benchmark::State& state, std::size_t values_per_iteration) {
    const auto n = static_cast<std::int64_t>(values_per_iteration);
    state.SetItemsProcessed(state.iterations() * n);
    state.SetBytesProcessed(state.iterations() * n * static_cast<std::int64_t>(sizeof(std::uint32_t)));
}

// ---- seed baseline -------------------------------------------------------------------------

// The seed's planes and matrix must be bitplane's (same layout): checked on a few blocks, so
// that the baseline is known to compute what bitplane computes.
bool seed_matches_bitplane(const std::vector<std::uint32_t>& v) {
    seed_baseline::tmatrix t;
    seed_baseline::distance_matrix d;
    bitplane::block_planes planes;
    for (std::size_t block : {std::size_t{0}, std::size_t{1}, v.size() / block_values - 1}) {
        const std::uint32_t* values = v.data() + block * block_values;
        seed_baseline::transpose_hamming(values, t, d);
        bitplane::transpose({values, block_values}, planes);
        const bitplane::hamming_matrix h = bitplane::compute_hamming_matrix(planes);
        for (std::size_t i = 0; i < bitplane::plane_count; ++i) {
            if (std::memcmp(t.row[i], planes.planes[i].data(), bitplane::plane_bytes) != 0) return false;
            for (std::size_t j = 0; j < bitplane::plane_count; ++j)
                if (d.d[i][j] != h[i][j]) return false;
        }
    }
    return true;
}

template <void (*TransposeHamming)(const std::uint32_t*, seed_baseline::tmatrix&, seed_baseline::distance_matrix&)>
void bm_seed_baseline(benchmark::State& state) {
    const one_core single_thread;
    const auto& v = values_of(shape::uniform10);
    if (!seed_matches_bitplane(v)) {
        state.SkipWithError("seed baseline disagrees with bitplane::transpose/compute_hamming_matrix");
        return;
    }
    seed_baseline::tmatrix t;
    seed_baseline::distance_matrix d;
    for (auto _ : state) {
        for (std::size_t first = 0; first < v.size(); first += block_values) {
            TransposeHamming(v.data() + first, t, d);
            benchmark::DoNotOptimize(d);  // also a memory clobber: every block's work is kept
        }
    }
    set_value_throughput(state, v.size());
}

// ---- encode / decode -----------------------------------------------------------------------

void bm_encode(benchmark::State& state, shape s) {
    const one_core single_thread;
    const auto& v = values_of(s);
    const bool sign = is_signed(s);
    alignas(64) std::array<std::byte, codec::max_block_bytes> out;
    std::size_t total = 0;
    for (auto _ : state) {
        total = 0;
        for (std::size_t first = 0; first < v.size(); first += block_values) {
            const std::size_t count = std::min(block_values, v.size() - first);
            total += codec::encode_block({v.data() + first, count}, sign, out);
        }
        benchmark::DoNotOptimize(total);
    }
    set_value_throughput(state, v.size());
    state.counters["bits_per_value"] = 8.0 * static_cast<double>(total) / static_cast<double>(v.size());
}

template <class T>
void bm_decode(benchmark::State& state, shape s) {
    const one_core single_thread;
    const auto& vec = sealed_vector<T>(s);
    std::vector<T> out(vec.size());
    for (auto _ : state) {
        vec.decode(0, out);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    const auto expected = typed_values<T>(s);
    if (!std::equal(out.begin(), out.end(), expected.begin(), expected.end()))
        state.SkipWithError("decode does not give back the values");
    set_value_throughput(state, vec.size());
}

void BM_DecodeDense(benchmark::State& state) {
    const one_core single_thread;
    const auto& v = values_of(shape::uniform10);
    std::vector<std::uint32_t> out(v.size());
    for (auto _ : state) {
        std::memcpy(out.data(), v.data(), v.size() * sizeof(std::uint32_t));
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    set_value_throughput(state, v.size());
}

// ---- random reads --------------------------------------------------------------------------

// ns per get as a counter: total gets * 1e-9 per second of CPU time, inverted.
void set_get_rate(benchmark::State& state, std::size_t gets_per_iteration) {
    const auto total = static_cast<double>(state.iterations()) * static_cast<double>(gets_per_iteration);
    state.SetItemsProcessed(static_cast<std::int64_t>(total));
    state.counters["ns_per_get"] = benchmark::Counter(total * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <class T>
void bm_random_get(benchmark::State& state, shape s) {
    const one_core single_thread;
    const auto& vec = sealed_vector<T>(s);
    const auto& indices = random_indices();
    if (!bitplane_bench::time_random_reads(state, vec, values_of(s), indices)) return;
    set_get_rate(state, indices.size());
}

void BM_RandomGetDense(benchmark::State& state) {
    const one_core single_thread;
    const std::vector<std::uint32_t>& dense = values_of(shape::uniform10);
    const auto& indices = random_indices();
    if (!bitplane_bench::time_random_reads(state, dense, dense, indices)) return;
    set_get_rate(state, indices.size());
}

// ---- building ------------------------------------------------------------------------------

template <class T>
void bm_push_back(benchmark::State& state, shape s) {
    const one_core single_thread;
    const auto v = typed_values<T>(s);
    for (auto _ : state) {
        bitplane::vector<T> vec;
        for (const T x : v) vec.push_back(x);
        vec.seal();
        benchmark::DoNotOptimize(vec.size());
    }
    set_value_throughput(state, v.size());
}

void BM_PushBackStd(benchmark::State& state) {
    const one_core single_thread;
    const auto& v = values_of(shape::uniform10);
    for (auto _ : state) {
        std::vector<std::uint32_t> vec;
        for (const std::uint32_t x : v) vec.push_back(x);
        benchmark::DoNotOptimize(vec.data());
        benchmark::ClobberMemory();
    }
    set_value_throughput(state, v.size());
}

// ---- range reads ---------------------------------------------------------------------------

template <class T>
void bm_bulk_decode_range(benchmark::State& state, shape s) {
    const one_core single_thread;
    const auto& vec = sealed_vector<T>(s);
    const auto& starts = range_starts();
    std::vector<T> out(range_values);
    std::size_t next = 0;
    for (auto _ : state) {
        vec.decode(starts[next], out);
        next = (next + 1) % starts.size();
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    const auto expected = typed_values<T>(s).subspan(starts[0], range_values);
    vec.decode(starts[0], out);
    if (!std::equal(out.begin(), out.end(), expected.begin(), expected.end()))
        state.SkipWithError("decode of a range does not give back the values");
    set_value_throughput(state, range_values);
}

void BM_BulkDecodeRangeDense(benchmark::State& state) {
    const one_core single_thread;
    const auto& v = values_of(shape::uniform10);
    const auto& starts = range_starts();
    std::vector<std::uint32_t> out(range_values);
    std::size_t next = 0;
    for (auto _ : state) {
        std::memcpy(out.data(), v.data() + starts[next], range_values * sizeof(std::uint32_t));
        next = (next + 1) % starts.size();
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    set_value_throughput(state, range_values);
}

// ---- sizes ---------------------------------------------------------------------------------

// The "plain bit-plane size": planes with only all-zero/all-one elision and raw/position payloads.
constexpr codec::encode_options plain_options{.frame_of_reference = false, .delta = false, .zigzag = false,
                                              .sparse = false, .references = false, .runs = false};
constexpr codec::encode_options no_delta_options{.delta = false};

template <class T>
void bm_size(benchmark::State& state, shape s) {
    const one_core single_thread;
    const auto& vec = sealed_vector<T>(s);
    const auto& v = values_of(s);
    const bool sign = is_signed(s);
    std::size_t encoded = 0, plain = 0, no_delta = 0;
    for (auto _ : state) {
        encoded = encoded_bytes(v, sign, {});
        plain = encoded_bytes(v, sign, plain_options);
        no_delta = encoded_bytes(v, sign, no_delta_options);
        benchmark::DoNotOptimize(encoded);
    }
    const auto n = static_cast<double>(vec.size());
    state.counters["bits_per_value"] = 8.0 * static_cast<double>(vec.memory_bytes()) / n;
    state.counters["encoded_bits_per_value"] = 8.0 * static_cast<double>(encoded) / n;
    state.counters["plain_bits_per_value"] = 8.0 * static_cast<double>(plain) / n;
    state.counters["no_delta_bits_per_value"] = 8.0 * static_cast<double>(no_delta) / n;
    state.counters["ratio_to_plain"] = static_cast<double>(encoded) / static_cast<double>(plain);
    state.counters["ratio_to_no_delta"] = static_cast<double>(encoded) / static_cast<double>(no_delta);
}

// ---- registration --------------------------------------------------------------------------

// Registers `Bench<T>` for every shape, T = int32_t for the signed shape.
template <template <class> class Bench>
void register_per_shape(const char* prefix, benchmark::TimeUnit unit, benchmark::IterationCount iterations = 0) {
    for (const shape s : all_shapes) {
        const std::string name = std::string(prefix) + "/" + name_of(s);
        auto* b = is_signed(s) ? benchmark::RegisterBenchmark(name.c_str(), Bench<std::int32_t>::run, s)
                               : benchmark::RegisterBenchmark(name.c_str(), Bench<std::uint32_t>::run, s);
        b->Unit(unit);
        if (iterations > 0) b->Iterations(iterations);
    }
}

template <class T> struct decode_bench { static void run(benchmark::State& st, shape s) { bm_decode<T>(st, s); } };
template <class T> struct random_get_bench { static void run(benchmark::State& st, shape s) { bm_random_get<T>(st, s); } };
template <class T> struct push_back_bench { static void run(benchmark::State& st, shape s) { bm_push_back<T>(st, s); } };
template <class T> struct range_bench { static void run(benchmark::State& st, shape s) { bm_bulk_decode_range<T>(st, s); } };
template <class T> struct size_bench { static void run(benchmark::State& st, shape s) { bm_size<T>(st, s); } };

[[maybe_unused]] const bool registered = [] {
    using benchmark::kMicrosecond;
    using benchmark::kMillisecond;
    // The SIMD path the codec runs on, in the JSON context (scripts/bench_report.py prints it).
    std::string path;
    try {
        path = std::string(bitplane::to_string(bitplane::active_simd_path()));
    } catch (const std::exception& e) {
        path = std::string("error: ") + e.what();
    }
    benchmark::AddCustomContext("bitplane_simd_path", path);

    benchmark::RegisterBenchmark("BM_SeedBaseline", bm_seed_baseline<seed_baseline::transpose_hamming>)
        ->Unit(kMillisecond);
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("popcnt"))
        benchmark::RegisterBenchmark("BM_SeedBaseline_hwpopcnt", bm_seed_baseline<seed_baseline::transpose_hamming_hwpopcnt>)
            ->Unit(kMillisecond);
#endif
    for (const shape s : all_shapes)
        benchmark::RegisterBenchmark((std::string("BM_Encode/") + name_of(s)).c_str(), bm_encode, s)->Unit(kMillisecond);

    register_per_shape<decode_bench>("BM_Decode", kMillisecond);
    benchmark::RegisterBenchmark("BM_DecodeDense", BM_DecodeDense)->Unit(kMillisecond);

    register_per_shape<random_get_bench>("BM_RandomGet", kMillisecond);
    benchmark::RegisterBenchmark("BM_RandomGetDense", BM_RandomGetDense)->Unit(kMillisecond);

    register_per_shape<push_back_bench>("BM_PushBack", kMillisecond);
    benchmark::RegisterBenchmark("BM_PushBackStd", BM_PushBackStd)->Unit(kMillisecond);

    register_per_shape<range_bench>("BM_BulkDecodeRange", kMicrosecond);
    benchmark::RegisterBenchmark("BM_BulkDecodeRangeDense", BM_BulkDecodeRangeDense)->Unit(kMicrosecond);

    register_per_shape<size_bench>("BM_Size", kMillisecond, 1);
    return true;
}();

}  // namespace
