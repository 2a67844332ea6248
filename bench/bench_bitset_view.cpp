// bitplane::bitset_view (the frozen layout, file version 3) against its baseline, load_bitset of
// save()'s version 2 file of the same set, in the same binary:
//
//   BM_ViewOpen/<set>      bitset_view over the frozen bytes in memory (validated, payloads borrowed)
//   BM_LoadV2/<set>        load_bitset of the version 2 bytes (the baseline: decoded, re-encoded)
//   BM_LoadV3/<set>        load_bitset of the frozen bytes (validated, arena copied)
//   BM_ViewAnd/<set>       a & b with a and b two open views
//   BM_LoadedAnd/<set>     a & b with a and b two loaded (owned) bitsets (the baseline)
//
//   set: uniform1, uniform50 (random 1% and 50% of 2^24, as bench_bitset_peers), and
//   bam_flag&bam_mapq (rows of the corpus columns bam_flag and bam_mapq holding their most
//   frequent value; from $BITPLANE_CORPUS_DIR or build/corpus, left out when absent).
// Throughput: bytes = the file's bytes (open, load), items = set bits of both operands (AND).
#include <bitplane/bitset.hpp>
#include <bitplane/bitset_view.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

struct view_workload {
    std::string name;
    bitplane::bitset a, b;
    std::vector<std::byte> frozen_a, frozen_b, v2_a, v2_b;
};

std::vector<std::uint64_t> uniform(std::uint64_t universe, double density, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> out;
    std::bernoulli_distribution coin(density);
    for (std::uint64_t i = 0; i < universe; ++i)
        if (coin(rng)) out.push_back(i);
    return out;
}

std::vector<std::uint64_t> mode_positions(const std::string& file, std::uint64_t& rows) {
    const char* env = std::getenv("BITPLANE_CORPUS_DIR");
    const std::filesystem::path dir = env != nullptr && *env != '\0' ? env : "build/corpus";
    std::ifstream in(dir / file, std::ios::binary);
    if (!in) return {};
    in.seekg(0, std::ios::end);
    std::vector<std::uint32_t> values(static_cast<std::size_t>(in.tellg()) / 4);
    in.seekg(0);
    in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
    std::map<std::uint32_t, std::size_t> counts;
    for (const std::uint32_t v : values) ++counts[v];
    const std::uint32_t mode =
        std::max_element(counts.begin(), counts.end(), [](auto& x, auto& y) { return x.second < y.second; })->first;
    std::vector<std::uint64_t> out;
    for (std::size_t k = 0; k < values.size(); ++k)
        if (values[k] == mode) out.push_back(k);
    rows = values.size();
    return out;
}

view_workload make(std::string name, bitplane::bitset a, bitplane::bitset b) {
    view_workload w{std::move(name), std::move(a), std::move(b), {}, {}, {}, {}};
    bitplane::save_frozen(w.a, w.frozen_a);
    bitplane::save_frozen(w.b, w.frozen_b);
    bitplane::save(w.a, w.v2_a);
    bitplane::save(w.b, w.v2_b);
    return w;
}

const std::vector<view_workload>& workloads() {
    static const std::vector<view_workload> all = [] {
        std::vector<view_workload> out;
        constexpr std::uint64_t u = std::uint64_t{1} << 24;
        out.push_back(make("uniform1", bitplane::bitset::from_positions(uniform(u, 0.01, 5), u),
                           bitplane::bitset::from_positions(uniform(u, 0.01, 6), u)));
        out.push_back(make("uniform50", bitplane::bitset::from_positions(uniform(u, 0.5, 1), u),
                           bitplane::bitset::from_positions(uniform(u, 0.5, 2), u)));
        std::uint64_t rows_a = 0, rows_b = 0;
        std::vector<std::uint64_t> pa = mode_positions("bam_flag.u32", rows_a);
        std::vector<std::uint64_t> pb = mode_positions("bam_mapq.u32", rows_b);
        if (rows_a != 0 && rows_a == rows_b)
            out.push_back(make("bam_flag&bam_mapq", bitplane::bitset::from_positions(pa, rows_a),
                               bitplane::bitset::from_positions(pb, rows_b)));
        return out;
    }();
    return all;
}

void BM_ViewOpen(benchmark::State& state, std::size_t i) {
    const view_workload& w = workloads()[i];
    for (auto _ : state) {
        bitplane::bitset_view v{std::span<const std::byte>(w.frozen_a)};
        benchmark::DoNotOptimize(v.bits().count());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * w.frozen_a.size()));
    state.counters["file_bytes"] = static_cast<double>(w.frozen_a.size());
}

void BM_LoadV2(benchmark::State& state, std::size_t i) {
    const view_workload& w = workloads()[i];
    for (auto _ : state) {
        bitplane::bitset s = bitplane::load_bitset(std::span<const std::byte>(w.v2_a));
        benchmark::DoNotOptimize(s.count());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * w.v2_a.size()));
    state.counters["file_bytes"] = static_cast<double>(w.v2_a.size());
}

void BM_LoadV3(benchmark::State& state, std::size_t i) {
    const view_workload& w = workloads()[i];
    for (auto _ : state) {
        bitplane::bitset s = bitplane::load_bitset(std::span<const std::byte>(w.frozen_a));
        benchmark::DoNotOptimize(s.count());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * w.frozen_a.size()));
}

void BM_ViewAnd(benchmark::State& state, std::size_t i) {
    const view_workload& w = workloads()[i];
    const bitplane::bitset_view a{std::span<const std::byte>(w.frozen_a)}, b{std::span<const std::byte>(w.frozen_b)};
    if (!a.borrows() || !b.borrows()) state.SkipWithError("the views copied their bytes");
    for (auto _ : state) {
        bitplane::bitset r = a.bits() & b.bits();
        benchmark::DoNotOptimize(r.count());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * (w.a.count() + w.b.count())));
}

void BM_LoadedAnd(benchmark::State& state, std::size_t i) {
    const view_workload& w = workloads()[i];
    const bitplane::bitset a = bitplane::load_bitset(std::span<const std::byte>(w.v2_a));
    const bitplane::bitset b = bitplane::load_bitset(std::span<const std::byte>(w.v2_b));
    for (auto _ : state) {
        bitplane::bitset r = a & b;
        benchmark::DoNotOptimize(r.count());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * (w.a.count() + w.b.count())));
}

// Registered per workload once the sets exist (the corpus one only where the corpus is).
const bool registered = [] {
    const char* names[] = {"uniform1", "uniform50", "bam_flag&bam_mapq"};
    for (std::size_t i = 0; i < 3; ++i) {
        const std::string n = names[i];
        auto guard = [i](auto f) {
            return [i, f](benchmark::State& state) {
                if (i >= workloads().size()) {
                    state.SkipWithError("no corpus (build/corpus or $BITPLANE_CORPUS_DIR)");
                    for (auto _ : state) {
                    }
                    return;
                }
                f(state, i);
            };
        };
        benchmark::RegisterBenchmark(("BM_ViewOpen/" + n).c_str(), guard(BM_ViewOpen))->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(("BM_LoadV2/" + n).c_str(), guard(BM_LoadV2))->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(("BM_LoadV3/" + n).c_str(), guard(BM_LoadV3))->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(("BM_ViewAnd/" + n).c_str(), guard(BM_ViewAnd))->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(("BM_LoadedAnd/" + n).c_str(), guard(BM_LoadedAnd))->Unit(benchmark::kMicrosecond);
    }
    return true;
}();

}  // namespace
