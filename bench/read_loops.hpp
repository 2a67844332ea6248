// The timed loops of the random-read and iteration benchmarks (bench_codec.cpp's BM_RandomGet,
// bench_access.cpp's BM_Access*), shared so that both time exactly the same code: a read of a
// bitplane::vector and of the std::vector beside it differ only in the container.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace bitplane_bench {

/// Sum of c[i] over the indices (wrapping): the random-read loop.
template <class Container>
std::uint32_t sum_at(const Container& c, const std::vector<std::uint32_t>& indices) {
    std::uint32_t sum = 0;
    for (const std::uint32_t i : indices) sum += static_cast<std::uint32_t>(c[i]);
    return sum;
}

/// Sum over a range-for of c (wrapping): the iteration loop.
template <class Container>
std::uint32_t sum_all(const Container& c) {
    std::uint32_t sum = 0;
    for (const auto x : c) sum += static_cast<std::uint32_t>(x);
    return sum;
}

/// Times sum_at(c, indices) after checking it against the same reads of `reference`; false
/// (and the benchmark marked as failed) when they differ.
template <class Container, class Reference>
bool time_random_reads(benchmark::State& state, const Container& c, const Reference& reference,
                       const std::vector<std::uint32_t>& indices) {
    if (sum_at(c, indices) != sum_at(reference, indices)) {
        state.SkipWithError("operator[] does not give back the values");
        return false;
    }
    for (auto _ : state) {
        std::uint32_t sum = sum_at(c, indices);
        benchmark::DoNotOptimize(sum);
    }
    return true;
}

}  // namespace bitplane_bench
