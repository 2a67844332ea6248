// bitplane::bitset against CRoaring (the baseline, in the same binary) on the same sets:
// a 16M-bit universe (1 << 24), two independent random sets per density (each bit set with
// probability 50%, 1% or 0.01%; fixed seeds, generated once and cached).
//
//   BM_Bitset<Op>/<density>    bitplane::bitset
//   BM_Roaring<Op>/<density>   CRoaring (roaring_bitmap_t, C API), built from the same positions
//
//   Op: And, Or, Xor, AndNot    a new result set from two sets (a & b, roaring_bitmap_and, ...)
//       AndCount                the size of a AND b without building it (and_count,
//                               roaring_bitmap_and_cardinality)
//       Build                   a set from its sorted positions (bitset::from_positions,
//                               roaring_bitmap_add_many on a new bitmap)
//   BM_BitsetBuilder/<density>  detail::bitset_builder fed every block as a plane (what scans
//                               do), single-threaded; items = blocks
//   density: 5000 = 50%, 100 = 1%, 1 = 0.01% (in units of 0.01%)
//
// Throughput: items = set bits of the inputs (both operands; for Build, the positions).
// The CRoaring half is built only where CMake found it (Debian: libroaring-dev); Debian's
// libroaring 0.2.66 is compiled for baseline x86-64 (no AVX2, no POPCNT), which is what a user
// of the distribution package gets.
#include <bitplane/bitset.hpp>

#include <benchmark/benchmark.h>

#if defined(BITPLANE_BENCH_HAS_ROARING)
#include <roaring/roaring.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <vector>

namespace {

constexpr std::uint64_t universe = std::uint64_t{1} << 24;

struct data_set {
    std::vector<std::uint64_t> a, b;  // sorted positions
    std::vector<std::uint32_t> a32, b32;
    bitplane::bitset sa, sb;
};

std::vector<std::uint64_t> random_positions(double density, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> out;
    out.reserve(static_cast<std::size_t>(static_cast<double>(universe) * density * 1.1) + 16);
    if (density >= 0.25) {
        // One 64-bit draw per 64 bits, thinned (50%: one draw; others: AND/OR of draws).
        const auto threshold = static_cast<std::uint64_t>(density * 18446744073709551615.0);
        for (std::uint64_t i = 0; i < universe; ++i)
            if (rng() < threshold) out.push_back(i);
    } else {
        // Geometric gaps: the same distribution as one Bernoulli draw per bit.
        std::geometric_distribution<std::uint64_t> gap(density);
        for (std::uint64_t i = gap(rng); i < universe; i += 1 + gap(rng)) out.push_back(i);
    }
    return out;
}

const data_set& data(int density_units) {
    static std::map<int, std::unique_ptr<data_set>> cache;
    std::unique_ptr<data_set>& slot = cache[density_units];
    if (!slot) {
        auto d = std::make_unique<data_set>();
        const double density = density_units / 10000.0;
        d->a = random_positions(density, 0xB175E7A0ull + static_cast<std::uint64_t>(density_units));
        d->b = random_positions(density, 0xB175E7B0ull + static_cast<std::uint64_t>(density_units));
        d->a32.assign(d->a.begin(), d->a.end());
        d->b32.assign(d->b.begin(), d->b.end());
        d->sa = bitplane::bitset::from_positions(d->a, universe);
        d->sb = bitplane::bitset::from_positions(d->b, universe);
        slot = std::move(d);
    }
    return *slot;
}

void set_items(benchmark::State& state, const data_set& d) {
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(d.a.size() + d.b.size()));
}

template <class Op>
void bitset_binary(benchmark::State& state, Op op) {
    const data_set& d = data(static_cast<int>(state.range(0)));
    std::uint64_t bits = 0;
    for (auto _ : state) {
        bitplane::bitset r = op(d.sa, d.sb);
        bits = r.count();
        benchmark::DoNotOptimize(r);
    }
    set_items(state, d);
    state.counters["result_bits"] = static_cast<double>(bits);
}

void BM_BitsetAnd(benchmark::State& s) { bitset_binary(s, [](const auto& a, const auto& b) { return a & b; }); }
void BM_BitsetOr(benchmark::State& s) { bitset_binary(s, [](const auto& a, const auto& b) { return a | b; }); }
void BM_BitsetXor(benchmark::State& s) { bitset_binary(s, [](const auto& a, const auto& b) { return a ^ b; }); }
void BM_BitsetAndNot(benchmark::State& s) { bitset_binary(s, [](const auto& a, const auto& b) { return andnot(a, b); }); }

void BM_BitsetAndCount(benchmark::State& state) {
    const data_set& d = data(static_cast<int>(state.range(0)));
    for (auto _ : state) benchmark::DoNotOptimize(bitplane::and_count(d.sa, d.sb));
    set_items(state, d);
}

void BM_BitsetBuild(benchmark::State& state) {
    const data_set& d = data(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        bitplane::bitset s = bitplane::bitset::from_positions(d.a, universe);
        benchmark::DoNotOptimize(s);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(d.a.size()));
    std::vector<std::byte> file;
    bitplane::save(d.sa, file);
    const auto bits = static_cast<double>(std::max<std::size_t>(1, d.a.size()));
    state.counters["memory_bytes_per_bit"] = static_cast<double>(d.sa.memory_bytes()) / bits;
    state.counters["file_bytes_per_bit"] = static_cast<double>(file.size()) / bits;
}

// The builder the scans fill: every block of the set handed over as a 2048-bit plane, then
// finish(). The planes are made once, outside the timing.
void BM_BitsetBuilder(benchmark::State& state) {
    const data_set& d = data(static_cast<int>(state.range(0)));
    const std::size_t blocks = universe / bitplane::block_values;
    std::vector<bitplane::plane> planes(blocks, bitplane::plane{});
    for (const std::uint64_t p : d.a) planes[p / 2048][p % 2048 / 32] |= 1u << (p % 32);
    for (auto _ : state) {
        bitplane::detail::bitset_builder builder(universe);
        for (std::size_t b = 0; b < blocks; ++b) builder.set_block(b, planes[b]);
        bitplane::bitset s = builder.finish();
        benchmark::DoNotOptimize(s);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(blocks));
}

void densities(benchmark::internal::Benchmark* b) { b->Arg(5000)->Arg(100)->Arg(1)->Unit(benchmark::kMicrosecond); }

BENCHMARK(BM_BitsetAnd)->Apply(densities);
BENCHMARK(BM_BitsetOr)->Apply(densities);
BENCHMARK(BM_BitsetXor)->Apply(densities);
BENCHMARK(BM_BitsetAndNot)->Apply(densities);
BENCHMARK(BM_BitsetAndCount)->Apply(densities);
BENCHMARK(BM_BitsetBuild)->Apply(densities);
BENCHMARK(BM_BitsetBuilder)->Apply(densities);

#if defined(BITPLANE_BENCH_HAS_ROARING)

struct roaring_pair {
    roaring_bitmap_t* a = nullptr;
    roaring_bitmap_t* b = nullptr;
    roaring_pair() = default;
    roaring_pair(const roaring_pair&) = delete;
    roaring_pair& operator=(const roaring_pair&) = delete;
    ~roaring_pair() {
        roaring_bitmap_free(a);
        roaring_bitmap_free(b);
    }
};

const roaring_pair& roaring_data(int density_units) {
    static std::map<int, std::unique_ptr<roaring_pair>> cache;
    std::unique_ptr<roaring_pair>& slot = cache[density_units];
    if (!slot) {
        const data_set& d = data(density_units);
        slot = std::make_unique<roaring_pair>();
        slot->a = roaring_bitmap_of_ptr(d.a32.size(), d.a32.data());
        slot->b = roaring_bitmap_of_ptr(d.b32.size(), d.b32.data());
        if (roaring_bitmap_get_cardinality(slot->a) != d.a.size() ||
            roaring_bitmap_get_cardinality(slot->b) != d.b.size())
            std::abort();
    }
    return *slot;
}

template <class Op>
void roaring_binary(benchmark::State& state, Op op) {
    const data_set& d = data(static_cast<int>(state.range(0)));
    const roaring_pair& r = roaring_data(static_cast<int>(state.range(0)));
    std::uint64_t bits = 0;
    for (auto _ : state) {
        roaring_bitmap_t* x = op(r.a, r.b);
        benchmark::DoNotOptimize(x);
        bits = roaring_bitmap_get_cardinality(x);
        roaring_bitmap_free(x);
    }
    set_items(state, d);
    state.counters["result_bits"] = static_cast<double>(bits);
}

void BM_RoaringAnd(benchmark::State& s) { roaring_binary(s, roaring_bitmap_and); }
void BM_RoaringOr(benchmark::State& s) { roaring_binary(s, roaring_bitmap_or); }
void BM_RoaringXor(benchmark::State& s) { roaring_binary(s, roaring_bitmap_xor); }
void BM_RoaringAndNot(benchmark::State& s) { roaring_binary(s, roaring_bitmap_andnot); }

void BM_RoaringAndCount(benchmark::State& state) {
    const data_set& d = data(static_cast<int>(state.range(0)));
    const roaring_pair& r = roaring_data(static_cast<int>(state.range(0)));
    for (auto _ : state) benchmark::DoNotOptimize(roaring_bitmap_and_cardinality(r.a, r.b));
    set_items(state, d);
}

void BM_RoaringBuild(benchmark::State& state) {
    const data_set& d = data(static_cast<int>(state.range(0)));
    const roaring_pair& r = roaring_data(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        roaring_bitmap_t* x = roaring_bitmap_create();
        roaring_bitmap_add_many(x, d.a32.size(), d.a32.data());
        benchmark::DoNotOptimize(x);
        roaring_bitmap_free(x);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(d.a.size()));
    state.counters["file_bytes_per_bit"] = static_cast<double>(roaring_bitmap_portable_size_in_bytes(r.a)) /
                                           static_cast<double>(std::max<std::size_t>(1, d.a.size()));
}

BENCHMARK(BM_RoaringAnd)->Apply(densities);
BENCHMARK(BM_RoaringOr)->Apply(densities);
BENCHMARK(BM_RoaringXor)->Apply(densities);
BENCHMARK(BM_RoaringAndNot)->Apply(densities);
BENCHMARK(BM_RoaringAndCount)->Apply(densities);
BENCHMARK(BM_RoaringBuild)->Apply(densities);

#endif  // BITPLANE_BENCH_HAS_ROARING

}  // namespace
