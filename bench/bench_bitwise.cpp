// Element-wise bitwise operations on compressed columns and the parallel bulk paths, each
// with its baseline in the same binary (docs/benchmarks.md):
//
//   BM_BitwiseDense/<op>             std::transform over two std::vector<uint32_t> of 16M
//                                    uniform 10-bit values into a preallocated third
//   BM_BitwiseDenseLoop/<op>         the same as a plain indexed loop
//   BM_Bitwise/<op>/<threads>        the same operation on bitplane::vector<uint32_t>: the
//                                    result is a new compressed vector
//   BM_BitwiseReencode/<threads>     bitplane::vector(span) of the AND result's values: every
//                                    block through codec::encode_block and appended, which is
//                                    BM_Bitwise/and without its plane work (the re-encoding share)
//   BM_BitwiseZeroBlocks/<op>/<threads>  half of a's blocks all zero: the shortcut blocks copy
//                                    b's bytes (or, xor) or write a zero block (and)
//   BM_BitwiseSparse/<op>/<threads>  b is 90% zeros (else 20-bit, the sparse layout): AND and
//                                    AND-NOT keep its zeros (compacted planes, sparse result);
//                                    against BM_BitwiseSparseLoop/<op>, the plain loop
//   BM_ParallelBuild/<threads>       bitplane::vector(span) of the 16M values (blocks encoded
//                                    in parallel), against BM_ParallelBuildStd (std::vector copy)
//   BM_ParallelDecode/<threads>      vector::decode of everything into a preallocated vector
//
// <threads> is bitplane::set_thread_count (1 = no threads). Times are wall-clock
// (UseRealTime: the TBB workers' CPU time is not the benchmark thread's); items = values.
#include <bitplane/bitwise.hpp>
#include <bitplane/codec.hpp>
#include <bitplane/parallel.hpp>
#include <bitplane/vector.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <span>
#include <utility>
#include <vector>

namespace {

using bitplane::block_values;
using column = bitplane::vector<std::uint32_t>;

constexpr std::size_t value_count = std::size_t{1} << 24;

enum class op { and_op, or_op, xor_op, andnot_op };

std::vector<std::uint32_t> uniform10(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint32_t> v(value_count);
    for (auto& x : v) x = static_cast<std::uint32_t>(rng()) & 0x3FFu;
    return v;
}

const std::vector<std::uint32_t>& dense_a() {
    static const std::vector<std::uint32_t> v = uniform10(0xB17A);
    return v;
}

const std::vector<std::uint32_t>& dense_b() {
    static const std::vector<std::uint32_t> v = uniform10(0xB17B);
    return v;
}

// 90% zeros, else uniform 20-bit: blocks in the sparse layout.
const std::vector<std::uint32_t>& sparse_b() {
    static const std::vector<std::uint32_t> v = [] {
        std::mt19937_64 rng(0xB17C);
        std::vector<std::uint32_t> out(value_count);
        for (auto& x : out) x = rng() % 10 == 0 ? static_cast<std::uint32_t>(rng() % ((1u << 20) - 1)) + 1 : 0u;
        return out;
    }();
    return v;
}

// dense_a with every other block all zero.
const std::vector<std::uint32_t>& dense_half_zero() {
    static const std::vector<std::uint32_t> v = [] {
        std::vector<std::uint32_t> out = dense_a();
        for (std::size_t b = 0; b < value_count / block_values; b += 2)
            std::fill_n(out.begin() + static_cast<std::ptrdiff_t>(b * block_values), block_values, 0u);
        return out;
    }();
    return v;
}

const column& compressed(const std::vector<std::uint32_t>& values) {
    static std::array<std::pair<const void*, std::unique_ptr<column>>, 4> cache;
    for (auto& [key, v] : cache) {
        if (key == &values) return *v;
        if (key == nullptr) {
            key = &values;
            v = std::make_unique<column>(std::span<const std::uint32_t>(values));
            v->seal();
            return *v;
        }
    }
    std::abort();
}

std::uint32_t apply(op o, std::uint32_t a, std::uint32_t b) {
    switch (o) {
        case op::and_op: return a & b;
        case op::or_op: return a | b;
        case op::xor_op: return a ^ b;
        case op::andnot_op: return a & ~b;
    }
    return 0;
}

column apply(op o, const column& a, const column& b) {
    switch (o) {
        case op::and_op: return a & b;
        case op::or_op: return a | b;
        case op::xor_op: return a ^ b;
        case op::andnot_op: return bitplane::andnot(a, b);
    }
    return {};
}

void set_items(benchmark::State& state) {
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(value_count));
}

struct threads_from_arg {
    explicit threads_from_arg(const benchmark::State& state) {
        bitplane::set_thread_count(static_cast<std::size_t>(state.range(0)));
    }
    ~threads_from_arg() { bitplane::set_thread_count(0); }
};

// ---- dense baselines --------------------------------------------------------------------------

template <op O>
void BM_BitwiseDense(benchmark::State& state) {
    const auto& a = dense_a();
    const auto& b = dense_b();
    std::vector<std::uint32_t> out(value_count);
    for (auto _ : state) {
        std::transform(a.begin(), a.end(), b.begin(), out.begin(), [](std::uint32_t x, std::uint32_t y) {
            return apply(O, x, y);
        });
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    set_items(state);
}

template <op O>
void BM_BitwiseDenseLoop(benchmark::State& state) {
    const std::uint32_t* a = dense_a().data();
    const std::uint32_t* b = dense_b().data();
    std::vector<std::uint32_t> out(value_count);
    std::uint32_t* r = out.data();
    for (auto _ : state) {
        for (std::size_t i = 0; i < value_count; ++i) r[i] = apply(O, a[i], b[i]);
        benchmark::DoNotOptimize(r);
        benchmark::ClobberMemory();
    }
    set_items(state);
}

// ---- compressed -------------------------------------------------------------------------------

template <op O>
void BM_Bitwise(benchmark::State& state) {
    const column& a = compressed(dense_a());
    const column& b = compressed(dense_b());
    const threads_from_arg threads(state);
    std::size_t bytes = 0;
    for (auto _ : state) {
        const column r = apply(O, a, b);
        bytes = r.memory_bytes();
        benchmark::DoNotOptimize(bytes);
    }
    set_items(state);
    state.counters["result_bits_per_value"] = 8.0 * static_cast<double>(bytes) / static_cast<double>(value_count);
}

void BM_BitwiseReencode(benchmark::State& state) {
    std::vector<std::uint32_t> values(value_count);
    for (std::size_t i = 0; i < value_count; ++i) values[i] = dense_a()[i] & dense_b()[i];
    const threads_from_arg threads(state);
    for (auto _ : state) {
        // One encode_block per result block, parallel over blocks as the operation is.
        const column r{std::span<const std::uint32_t>(values)};
        benchmark::DoNotOptimize(r.size());
    }
    set_items(state);
}

template <op O>
void BM_BitwiseZeroBlocks(benchmark::State& state) {
    const column& a = compressed(dense_half_zero());
    const column& b = compressed(dense_b());
    const threads_from_arg threads(state);
    for (auto _ : state) {
        const column r = apply(O, a, b);
        benchmark::DoNotOptimize(r.size());
    }
    set_items(state);
}

// ---- parallel construction and decode ---------------------------------------------------------

template <op O>
void BM_BitwiseSparse(benchmark::State& state) {
    const threads_from_arg threads(state);
    const column& a = compressed(dense_a());
    const column& b = compressed(sparse_b());
    for (auto _ : state) {
        column r = apply(O, a, b);
        benchmark::DoNotOptimize(r);
    }
    set_items(state);
}

template <op O>
void BM_BitwiseSparseLoop(benchmark::State& state) {
    const auto& a = dense_a();
    const auto& b = sparse_b();
    std::vector<std::uint32_t> out(value_count);
    for (auto _ : state) {
        for (std::size_t i = 0; i < value_count; ++i) out[i] = apply(O, a[i], b[i]);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    set_items(state);
}

void BM_ParallelBuild(benchmark::State& state) {
    const auto& values = dense_a();
    const threads_from_arg threads(state);
    for (auto _ : state) {
        const column v{std::span<const std::uint32_t>(values)};
        benchmark::DoNotOptimize(v.size());
    }
    set_items(state);
}

void BM_ParallelBuildStd(benchmark::State& state) {
    const auto& values = dense_a();
    for (auto _ : state) {
        const std::vector<std::uint32_t> v(values.begin(), values.end());
        benchmark::DoNotOptimize(v.data());
    }
    set_items(state);
}

void BM_ParallelDecode(benchmark::State& state) {
    const column& v = compressed(dense_a());
    std::vector<std::uint32_t> out(value_count);
    const threads_from_arg threads(state);
    for (auto _ : state) {
        v.decode(0, out);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    set_items(state);
}

}  // namespace

BENCHMARK(BM_BitwiseDense<op::and_op>)->Name("BM_BitwiseDense/and")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseDense<op::or_op>)->Name("BM_BitwiseDense/or")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseDense<op::xor_op>)->Name("BM_BitwiseDense/xor")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseDense<op::andnot_op>)->Name("BM_BitwiseDense/andnot")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseDenseLoop<op::and_op>)->Name("BM_BitwiseDenseLoop/and")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseDenseLoop<op::or_op>)->Name("BM_BitwiseDenseLoop/or")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseDenseLoop<op::xor_op>)->Name("BM_BitwiseDenseLoop/xor")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseDenseLoop<op::andnot_op>)->Name("BM_BitwiseDenseLoop/andnot")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Bitwise<op::and_op>)->Name("BM_Bitwise/and")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Bitwise<op::or_op>)->Name("BM_Bitwise/or")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Bitwise<op::xor_op>)->Name("BM_Bitwise/xor")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Bitwise<op::andnot_op>)->Name("BM_Bitwise/andnot")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseReencode)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseZeroBlocks<op::and_op>)->Name("BM_BitwiseZeroBlocks/and")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseZeroBlocks<op::or_op>)->Name("BM_BitwiseZeroBlocks/or")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseSparse<op::and_op>)->Name("BM_BitwiseSparse/and")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseSparse<op::andnot_op>)->Name("BM_BitwiseSparse/andnot")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseSparse<op::or_op>)->Name("BM_BitwiseSparse/or")->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseSparseLoop<op::and_op>)->Name("BM_BitwiseSparseLoop/and")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseSparseLoop<op::andnot_op>)->Name("BM_BitwiseSparseLoop/andnot")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BitwiseSparseLoop<op::or_op>)->Name("BM_BitwiseSparseLoop/or")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParallelBuild)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParallelBuildStd)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParallelDecode)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
