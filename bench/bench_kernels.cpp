// Kernel benchmarks, one block (2048 values, 8 KiB) per iteration, for every SIMD path this
// CPU runs, and the seed baseline they are measured against, in the same binary:
//
//   seed_transpose_hamming            the 2009 algorithm (see below), std::popcount as built
//   seed_transpose_hamming_hwpopcnt   the same with the popcnt instruction allowed (x86)
//   bitplane_transpose_pair_popcounts/<path>
//                                     transpose + 32 x 32 pair_popcounts through the kernel table
//
// on uniform 10-bit values from a fixed seed. pair_popcounts skips the pair scans of all-zero
// (and all-one) planes, which 10-bit data has 22 of; the *_32bit twins run the same on uniform
// 32-bit values, where every pair is scanned. pair_popcounts_<n> runs on random planes (no
// skipping) and untranspose_live<n> reads n planes.
#include "seed_baseline.hpp"
#include "../src/simd/kernels.hpp"

#include <bitplane/block.hpp>
#include <bitplane/simd.hpp>

#include <benchmark/benchmark.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using bitplane::block_values;
using bitplane::plane_count;
using bitplane::plane_words;
using bitplane::simd_path;

constexpr std::size_t block_words = plane_count * plane_words;
constexpr std::int64_t block_bytes = static_cast<std::int64_t>(block_values * sizeof(std::uint32_t));

std::vector<std::uint32_t> uniform_values(unsigned bits) {
    std::mt19937_64 rng(0xB17B1A4Eu);
    std::vector<std::uint32_t> v(block_values);
    const std::uint32_t mask = bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
    for (auto& x : v) x = static_cast<std::uint32_t>(rng()) & mask;
    return v;
}

// ---- the seed baseline (bench/seed_baseline.hpp) -------------------------------------------

using seed_matrix = seed_baseline::tmatrix;
using seed_distance = seed_baseline::distance_matrix;

void seed_transpose(const std::uint32_t* block, seed_matrix& tmatrix) { seed_baseline::transpose(block, tmatrix); }
void seed_hamming(const seed_matrix& t, seed_distance& d) { seed_baseline::hamming(t, d); }
#if defined(__x86_64__) && defined(__GNUC__)
void seed_hamming_hwpopcnt(const seed_matrix& t, seed_distance& d) { seed_baseline::hamming_hwpopcnt(t, d); }
#endif

// The baseline must compute what bitplane computes, or the comparison means nothing.
bool seed_agrees_with_bitplane(const std::vector<std::uint32_t>& values,
                               void (*hamming)(const seed_matrix&, seed_distance&)) {
    seed_matrix tmatrix;
    seed_distance distance;
    seed_transpose(values.data(), tmatrix);
    hamming(tmatrix, distance);
    bitplane::block_planes planes;
    bitplane::transpose(values, planes);
    const bitplane::hamming_matrix m = bitplane::compute_hamming_matrix(planes);
    for (std::size_t i = 0; i < plane_count; ++i) {
        for (std::size_t j = 0; j < plane_count; ++j) {
            if (m[i][j] != distance.d[i][j]) return false;
        }
        for (std::size_t c = 0; c < plane_words; ++c) {
            if (planes.planes[i][c] != tmatrix.row[i][c]) return false;
        }
    }
    return true;
}

void BM_seed_transpose(benchmark::State& state) {
    const auto values = uniform_values(10);
    seed_matrix tmatrix;
    for (auto _ : state) {
        seed_transpose(values.data(), tmatrix);
        benchmark::DoNotOptimize(tmatrix);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * block_bytes);
}
BENCHMARK(BM_seed_transpose)->Name("seed_transpose");

template <void (*Hamming)(const seed_matrix&, seed_distance&), unsigned Bits>
void BM_seed_transpose_hamming(benchmark::State& state) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (Hamming == seed_hamming_hwpopcnt && !__builtin_cpu_supports("popcnt")) {
        state.SkipWithError("this CPU has no popcnt instruction");
        return;
    }
#endif
    const auto values = uniform_values(Bits);
    seed_matrix tmatrix;
    seed_distance distance;
    if (!seed_agrees_with_bitplane(values, Hamming)) {
        state.SkipWithError("the seed baseline and bitplane disagree");
        return;
    }
    for (auto _ : state) {
        seed_transpose(values.data(), tmatrix);
        Hamming(tmatrix, distance);
        benchmark::DoNotOptimize(distance);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * block_bytes);
}
BENCHMARK(BM_seed_transpose_hamming<seed_hamming, 10>)->Name("seed_transpose_hamming");
BENCHMARK(BM_seed_transpose_hamming<seed_hamming, 32>)->Name("seed_transpose_hamming_32bit");
#if defined(__x86_64__) && defined(__GNUC__)
BENCHMARK(BM_seed_transpose_hamming<seed_hamming_hwpopcnt, 10>)->Name("seed_transpose_hamming_hwpopcnt");
BENCHMARK(BM_seed_transpose_hamming<seed_hamming_hwpopcnt, 32>)->Name("seed_transpose_hamming_hwpopcnt_32bit");
#endif

// ---- bitplane kernels, per path ------------------------------------------------------------

// Runs `body(table)` with `path` active, restoring the previous path afterwards.
template <class Body>
void with_path(simd_path path, Body&& body) {
    const simd_path saved = bitplane::active_simd_path();
    bitplane::set_simd_path(path);
    body(bitplane::detail::active_kernels());
    bitplane::set_simd_path(saved);
}

void bench_transpose(benchmark::State& state, simd_path path) {
    const auto values = uniform_values(10);
    bitplane::block_planes planes;
    with_path(path, [&](const bitplane::detail::kernel_table& k) {
        for (auto _ : state) {
            k.transpose(values.data(), planes.planes.front().data());
            benchmark::DoNotOptimize(planes);
            benchmark::ClobberMemory();
        }
    });
    state.SetBytesProcessed(state.iterations() * block_bytes);
}

void bench_untranspose(benchmark::State& state, simd_path path, unsigned live_planes) {
    const auto values = uniform_values(live_planes);
    bitplane::block_planes planes;
    std::vector<std::uint32_t> out(block_values);
    const std::uint32_t live = live_planes >= 32 ? 0xFFFFFFFFu : (1u << live_planes) - 1u;
    with_path(path, [&](const bitplane::detail::kernel_table& k) {
        k.transpose(values.data(), planes.planes.front().data());
        for (auto _ : state) {
            k.untranspose(planes.planes.front().data(), live, out.data());
            benchmark::DoNotOptimize(out.data());
            benchmark::ClobberMemory();
        }
    });
    state.SetBytesProcessed(state.iterations() * block_bytes);
}

void bench_pair_popcounts(benchmark::State& state, simd_path path, std::size_t count) {
    std::mt19937_64 rng(0xC0FFEEu);
    std::vector<std::uint32_t> planes(block_words);
    for (auto& w : planes) w = static_cast<std::uint32_t>(rng());
    std::vector<std::uint16_t> out(count * count);
    with_path(path, [&](const bitplane::detail::kernel_table& k) {
        for (auto _ : state) {
            k.pair_popcounts(planes.data(), count, out.data());
            benchmark::DoNotOptimize(out.data());
            benchmark::ClobberMemory();
        }
    });
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(count * bitplane::plane_bytes));
}

void bench_transpose_pair_popcounts(benchmark::State& state, simd_path path, unsigned bits) {
    const auto values = uniform_values(bits);
    bitplane::block_planes planes;
    std::vector<std::uint16_t> out(plane_count * plane_count);
    with_path(path, [&](const bitplane::detail::kernel_table& k) {
        for (auto _ : state) {
            k.transpose(values.data(), planes.planes.front().data());
            k.pair_popcounts(planes.planes.front().data(), plane_count, out.data());
            benchmark::DoNotOptimize(out.data());
            benchmark::ClobberMemory();
        }
    });
    state.SetBytesProcessed(state.iterations() * block_bytes);
}

// One set of benchmarks per path this CPU runs, named "<kernel>/<path>".
[[maybe_unused]] const bool registered = [] {
    for (const simd_path path : bitplane::available_simd_paths()) {
        const std::string p(bitplane::to_string(path));
        benchmark::RegisterBenchmark(("transpose/" + p).c_str(), bench_transpose, path);
        benchmark::RegisterBenchmark(("untranspose_live10/" + p).c_str(), bench_untranspose, path, 10u);
        benchmark::RegisterBenchmark(("untranspose_live32/" + p).c_str(), bench_untranspose, path, 32u);
        benchmark::RegisterBenchmark(("pair_popcounts_10/" + p).c_str(), bench_pair_popcounts, path, std::size_t{10});
        benchmark::RegisterBenchmark(("pair_popcounts_32/" + p).c_str(), bench_pair_popcounts, path, std::size_t{32});
        benchmark::RegisterBenchmark(("bitplane_transpose_pair_popcounts/" + p).c_str(), bench_transpose_pair_popcounts,
                                     path, 10u);
        benchmark::RegisterBenchmark(("bitplane_transpose_pair_popcounts_32bit/" + p).c_str(),
                                     bench_transpose_pair_popcounts, path, 32u);
    }
    return true;
}();

}  // namespace
