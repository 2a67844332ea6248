// bitplane::bitset against the current peers (issue #15): CRoaring 5.x (roaring_bitmap_t) and
// BitMagic (bm::bvector<>, AVX2 build), in the same process, on the same sets, one table per
// workload: synthetic shapes (uniform densities, runs, dense/sparse mixes, a 2^31 universe) and
// sets cut from the real-column corpus (positions where a column holds its most frequent value).
//
// Operations (one thread; every result checked against a plain std::vector reference before
// timing; each time the median of --reps rounds in which bitplane and the peers run in turn):
//   and, or, xor, andnot   us: a new set from two (a & b; roaring_bitmap_and; bvector::bit_and
//                          3-operand with on-the-fly compression)
//   and_count              us: |a & b| without building it
//   iterate                ns per position: the iterator over a (sum of the positions)
//   to_positions           ns per position: every position of a into a caller's buffer, 32-bit
//                          (the peers, the same: roaring_bitmap_to_uint32_array; a bvector
//                          enumerator loop)
//   to_positions_vector    the same into a new std::vector<uint64_t> (bitset::to_positions())
//   set()                  ns per call: 4096 single set() of random positions on a copy of a
//   file size              bytes of a and b saved (bitplane::save; CRoaring portable
//                          serialization; BitMagic serializer, default compression)
// Ratios are peer / bitplane: above 1, bitplane is faster (or smaller).
//
//   bench_bitset_peers [--filter=SUBSTRING] [--reps=N] [--no-corpus]
// The peers come from scripts/build-peers.sh (-DBITPLANE_CROARING_DIR, -DBITPLANE_BITMAGIC_DIR);
// without them this program measures bitplane alone and says so. BITPLANE_SIMD forces a path.
// Output is Markdown (docs/benchmarks.md).
#include "bitset_peers.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/simd.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using positions = std::vector<std::uint32_t>;

struct workload {
    std::string name, what;
    std::uint64_t universe = 0;
    positions a, b;
};

// ---- workloads ----------------------------------------------------------------------------------

positions uniform(std::uint64_t universe, double density, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::bernoulli_distribution take(density);
    positions out;
    if (density >= 0.01) {
        for (std::uint64_t p = 0; p < universe; ++p)
            if (take(random)) out.push_back(static_cast<std::uint32_t>(p));
        return out;
    }
    // Sparse: geometric gaps instead of a draw per position.
    std::geometric_distribution<std::uint64_t> gap(density);
    for (std::uint64_t p = gap(random); p < universe; p += 1 + gap(random)) out.push_back(static_cast<std::uint32_t>(p));
    return out;
}

// Runs of 1..2*mean_run positions, separated so that they cover about `cover` of the universe.
positions runs(std::uint64_t universe, double cover, std::uint32_t mean_run, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::uniform_int_distribution<std::uint32_t> run(1, 2 * mean_run);
    const auto mean_gap = static_cast<std::uint32_t>(mean_run * (1 - cover) / cover);
    std::uniform_int_distribution<std::uint32_t> gap(1, 2 * mean_gap);
    positions out;
    for (std::uint64_t p = gap(random); p < universe;) {
        const std::uint64_t end = std::min<std::uint64_t>(universe, p + run(random));
        for (; p < end; ++p) out.push_back(static_cast<std::uint32_t>(p));
        p += gap(random);
    }
    return out;
}

// Dense 65,536-position chunks (half their bits set) in 2% of the chunks, the rest empty.
positions clustered(std::uint64_t universe, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    positions out;
    for (std::uint64_t chunk = 0; chunk < universe >> 16; ++chunk) {
        if (random() % 50 != 0) continue;
        for (std::uint64_t p = chunk << 16; p < (chunk + 1) << 16; ++p)
            if ((random() & 1) != 0) out.push_back(static_cast<std::uint32_t>(p));
    }
    return out;
}

std::vector<workload> synthetic_workloads() {
    constexpr std::uint64_t u = std::uint64_t{1} << 24;
    std::vector<workload> out;
    auto add = [&](std::string name, std::string what, std::uint64_t universe, positions a, positions b) {
        out.push_back({std::move(name), std::move(what), universe, std::move(a), std::move(b)});
    };
    add("uniform50", "two random sets, 50% of 2^24", u, uniform(u, 0.5, 1), uniform(u, 0.5, 2));
    add("uniform10", "two random sets, 10% of 2^24", u, uniform(u, 0.1, 3), uniform(u, 0.1, 4));
    add("uniform1", "two random sets, 1% of 2^24", u, uniform(u, 0.01, 5), uniform(u, 0.01, 6));
    add("uniform0.1", "two random sets, 0.1% of 2^24", u, uniform(u, 0.001, 7), uniform(u, 0.001, 8));
    add("uniform0.01", "two random sets, 0.01% of 2^24", u, uniform(u, 0.0001, 9), uniform(u, 0.0001, 10));
    add("runs30", "runs of 1..2000 covering 30% of 2^24, twice", u, runs(u, 0.3, 1000, 11), runs(u, 0.3, 1000, 12));
    add("runs30_uniform10", "runs covering 30% against random 10%", u, runs(u, 0.3, 1000, 13), uniform(u, 0.1, 14));
    add("dense50_sparse0.01", "random 50% against random 0.01%", u, uniform(u, 0.5, 15), uniform(u, 0.0001, 16));
    add("clustered", "dense 64K chunks in 2% of the chunks, twice", u, clustered(u, 17), clustered(u, 18));
    constexpr std::uint64_t wide = std::uint64_t{1} << 31;
    add("wide31", "2^20 random positions of 2^31, twice", wide, uniform(wide, 1.0 / 2048, 19), uniform(wide, 1.0 / 2048, 20));
    return out;
}

std::filesystem::path corpus_dir() {
    if (const char* env = std::getenv("BITPLANE_CORPUS_DIR"); env != nullptr && *env != '\0') return env;
    return std::filesystem::path(BITPLANE_SOURCE_DIR) / "build" / "corpus";
}

// Positions where the column holds its most frequent value; empty if the column is absent.
positions mode_positions(const std::string& file, std::uint64_t& rows, std::uint32_t& mode) {
    std::ifstream in(corpus_dir() / file, std::ios::binary);
    if (!in) return {};
    std::vector<std::uint32_t> values;
    in.seekg(0, std::ios::end);
    values.resize(static_cast<std::size_t>(in.tellg()) / 4);
    in.seekg(0);
    in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
    std::map<std::uint32_t, std::size_t> counts;
    for (auto v : values) ++counts[v];
    mode = std::max_element(counts.begin(), counts.end(), [](auto& x, auto& y) { return x.second < y.second; })->first;
    positions out;
    for (std::size_t k = 0; k < values.size(); ++k)
        if (values[k] == mode) out.push_back(static_cast<std::uint32_t>(k));
    rows = values.size();
    return out;
}

std::vector<workload> corpus_workloads() {
    // Two columns of one table each: the same rows, so their sets share a universe.
    const std::pair<const char*, const char*> pairs[] = {
        {"bam_flag.u32", "bam_mapq.u32"},       {"bed_strand.u32", "bed_chrom.u32"},
        {"geoip4_country.u32", "geoip4_size.u32"}, {"ucd_script.u32", "ucd_category.u32"},
        {"ucd_bidi.u32", "ucd_linebreak.u32"},  {"word_first.u32", "word_length.u32"},
    };
    std::vector<workload> out;
    for (const auto& [fa, fb] : pairs) {
        std::uint64_t rows_a = 0, rows_b = 0;
        std::uint32_t mode_a = 0, mode_b = 0;
        workload w;
        w.a = mode_positions(fa, rows_a, mode_a);
        w.b = mode_positions(fb, rows_b, mode_b);
        if (rows_a == 0 || rows_b == 0) continue;
        const std::string a = std::string(fa).substr(0, std::string(fa).find('.'));
        const std::string b = std::string(fb).substr(0, std::string(fb).find('.'));
        w.name = a + "&" + b;
        w.what = "rows where " + a + " == " + std::to_string(mode_a) + " / " + b + " == " + std::to_string(mode_b) +
                 " (each column's most frequent value), " + std::to_string(rows_a) + " rows";
        w.universe = std::max(rows_a, rows_b);
        out.push_back(std::move(w));
    }
    if (out.empty())
        std::printf("> No corpus in %s (run scripts/fetch-corpus.sh): synthetic workloads only.\n\n", corpus_dir().c_str());
    return out;
}

// ---- timing -------------------------------------------------------------------------------------

using clock_type = std::chrono::steady_clock;

// Seconds per call of f, timing batches long enough (>= 2 ms) to read a steady clock.
double seconds_per_call(const std::function<void()>& f) {
    std::size_t calls = 1;
    for (;;) {
        const auto start = clock_type::now();
        for (std::size_t k = 0; k < calls; ++k) f();
        const double took = std::chrono::duration<double>(clock_type::now() - start).count();
        if (took >= 2e-3 || calls >= (std::size_t{1} << 24)) return took / static_cast<double>(calls);
        calls *= took <= 0 ? 16 : std::min<std::size_t>(16, static_cast<std::size_t>(2.5e-3 / took) + 1);
    }
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

volatile std::uint64_t sink;  // keeps results alive

[[noreturn]] void mismatch(const workload& w, const char* who, const char* what) {
    std::fprintf(stderr, "bench_bitset_peers: %s: %s: %s differs from the reference\n", w.name.c_str(), who, what);
    std::exit(1);
}

// ---- one workload -------------------------------------------------------------------------------

struct row {
    std::string op, unit;
    double ours = 0;
    std::vector<double> peers;  // per library, same order as libraries()
};

std::vector<std::uint64_t> widen(const positions& p) { return {p.begin(), p.end()}; }

std::vector<row> run(const workload& w, const std::vector<const bitset_peers::library*>& libs, int reps) {
    using bitset_peers::op;
    const auto a = bitplane::bitset::from_positions(widen(w.a), w.universe);
    const auto b = bitplane::bitset::from_positions(widen(w.b), w.universe);
    std::vector<bitset_peers::set_ptr> pa, pb;
    for (const auto* lib : libs) {
        pa.push_back(lib->build(w.a.data(), w.a.size(), w.universe));
        pb.push_back(lib->build(w.b.data(), w.b.size(), w.universe));
    }

    // References.
    positions ref_and, ref_or, ref_xor, ref_andnot;
    std::set_intersection(w.a.begin(), w.a.end(), w.b.begin(), w.b.end(), std::back_inserter(ref_and));
    std::set_union(w.a.begin(), w.a.end(), w.b.begin(), w.b.end(), std::back_inserter(ref_or));
    std::set_symmetric_difference(w.a.begin(), w.a.end(), w.b.begin(), w.b.end(), std::back_inserter(ref_xor));
    std::set_difference(w.a.begin(), w.a.end(), w.b.begin(), w.b.end(), std::back_inserter(ref_andnot));
    std::uint64_t ref_sum = 0;
    for (auto p : w.a) ref_sum += p;
    std::mt19937_64 random(99);
    std::uniform_int_distribution<std::uint64_t> any(0, w.universe - 1);
    positions to_set(4096);
    for (auto& p : to_set) p = static_cast<std::uint32_t>(any(random));
    positions after_set = w.a;
    after_set.insert(after_set.end(), to_set.begin(), to_set.end());
    std::sort(after_set.begin(), after_set.end());
    after_set.erase(std::unique(after_set.begin(), after_set.end()), after_set.end());

    // Checks, before any timing.
    const std::pair<op, const positions*> binary[] = {
        {op::and_, &ref_and}, {op::or_, &ref_or}, {op::xor_, &ref_xor}, {op::andnot, &ref_andnot}};
    const char* op_names[] = {"and", "or", "xor", "andnot"};
    auto ours_of = [&](op which) {
        switch (which) {
            case op::and_: return a & b;
            case op::or_: return a | b;
            case op::xor_: return a ^ b;
            case op::andnot: return andnot(a, b);
        }
        return bitplane::bitset();
    };
    for (const auto& [which, ref] : binary) {
        const auto mine = ours_of(which).to_positions();
        if (!std::equal(mine.begin(), mine.end(), ref->begin(), ref->end())) mismatch(w, "bitplane", op_names[int(which)]);
        for (std::size_t l = 0; l < libs.size(); ++l) {
            positions theirs;
            libs[l]->to_positions(*libs[l]->combine(*pa[l], *pb[l], which), theirs);
            if (theirs != *ref) mismatch(w, libs[l]->name, op_names[int(which)]);
        }
    }
    if (and_count(a, b) != ref_and.size()) mismatch(w, "bitplane", "and_count");
    std::uint64_t our_sum = 0;
    for (auto p : a) our_sum += p;
    if (our_sum != ref_sum) mismatch(w, "bitplane", "iterate");
    {
        auto copy = a;
        for (auto p : to_set) copy.set(p);
        const auto got = copy.to_positions();
        if (!std::equal(got.begin(), got.end(), after_set.begin(), after_set.end())) mismatch(w, "bitplane", "set()");
    }
    for (std::size_t l = 0; l < libs.size(); ++l) {
        if (libs[l]->and_count(*pa[l], *pb[l]) != ref_and.size()) mismatch(w, libs[l]->name, "and_count");
        if (libs[l]->iterate_sum(*pa[l]) != ref_sum) mismatch(w, libs[l]->name, "iterate");
        positions got;
        libs[l]->to_positions(*pa[l], got);
        if (got != w.a) mismatch(w, libs[l]->name, "to_positions");
        auto copy = libs[l]->copy(*pa[l]);
        if (libs[l]->set_each(*copy, to_set.data(), to_set.size()) != after_set.size()) mismatch(w, libs[l]->name, "set()");
    }

    std::vector<row> rows;
    auto measure = [&](const char* name, const char* unit, double scale, const std::function<void()>& ours,
                       const std::function<void(std::size_t)>& peer) {
        std::vector<double> mine;
        std::vector<std::vector<double>> theirs(libs.size());
        for (int r = 0; r < reps; ++r) {
            mine.push_back(seconds_per_call(ours) * scale);
            for (std::size_t l = 0; l < libs.size(); ++l) theirs[l].push_back(seconds_per_call([&] { peer(l); }) * scale);
        }
        row out{name, unit, median(mine), {}};
        for (auto& t : theirs) out.peers.push_back(median(t));
        rows.push_back(std::move(out));
    };
    for (const auto& [which, ref] : binary) {
        const op wh = which;
        measure(op_names[int(wh)], "us", 1e6, [&] { sink = ours_of(wh).memory_bytes(); },
                [&](std::size_t l) { sink = libs[l]->combine(*pa[l], *pb[l], wh) != nullptr; });
    }
    measure("and_count", "us", 1e6, [&] { sink = and_count(a, b); },
            [&](std::size_t l) { sink = libs[l]->and_count(*pa[l], *pb[l]); });
    const double per_position = 1e9 / static_cast<double>(std::max<std::size_t>(1, w.a.size()));
    measure("iterate", "ns/position", per_position,
            [&] {
                std::uint64_t s = 0;
                for (auto p : a) s += p;
                sink = s;
            },
            [&](std::size_t l) { sink = libs[l]->iterate_sum(*pa[l]); });
    // to_positions: every position of a into a buffer kept from round to round, 32-bit, as the
    // peers' rows write theirs (to_positions(std::span<uint32_t>); every workload's universe
    // fits in 32 bits). to_positions_vector: our std::vector<uint64_t> form, a new vector each
    // call (its allocation and first-touch page faults included), against the same peer rows.
    std::vector<std::uint32_t> buffer;
    if (a.size() <= (std::uint64_t{1} << 32)) {
        std::vector<std::uint32_t> ours32(a.count());
        if (a.to_positions(std::span<std::uint32_t>(ours32)) != w.a.size() || ours32 != w.a)
            mismatch(w, "bitplane", "to_positions");
        measure("to_positions", "ns/position", per_position,
                [&] { sink = a.to_positions(std::span<std::uint32_t>(ours32)); },
                [&](std::size_t l) {
                    libs[l]->to_positions(*pa[l], buffer);
                    sink = buffer.size();
                });
    }
    measure("to_positions_vector", "ns/position", per_position, [&] { sink = a.to_positions().size(); },
            [&](std::size_t l) {
                libs[l]->to_positions(*pa[l], buffer);
                sink = buffer.size();
            });
    {
        // set(): a fresh copy each round, outside the timed part.
        std::vector<double> mine;
        std::vector<std::vector<double>> theirs(libs.size());
        for (int r = 0; r < reps; ++r) {
            auto copy = a;
            auto start = clock_type::now();
            for (auto p : to_set) copy.set(p);
            mine.push_back(std::chrono::duration<double>(clock_type::now() - start).count() * 1e9 / static_cast<double>(to_set.size()));
            for (std::size_t l = 0; l < libs.size(); ++l) {
                auto c = libs[l]->copy(*pa[l]);
                start = clock_type::now();
                sink = libs[l]->set_each(*c, to_set.data(), to_set.size());
                theirs[l].push_back(std::chrono::duration<double>(clock_type::now() - start).count() * 1e9 / static_cast<double>(to_set.size()));
            }
        }
        row out{"set()", "ns/call", median(mine), {}};
        for (auto& t : theirs) out.peers.push_back(median(t));
        rows.push_back(std::move(out));
    }
    {
        std::vector<std::byte> bytes;
        save(a, bytes);
        save(b, bytes);
        row out{"file size", "bytes", static_cast<double>(bytes.size()), {}};
        for (std::size_t l = 0; l < libs.size(); ++l)
            out.peers.push_back(static_cast<double>(libs[l]->serialized_bytes(*pa[l]) + libs[l]->serialized_bytes(*pb[l])));
        rows.push_back(std::move(out));
    }
    return rows;
}

std::string number(double v) {
    char text[32];
    if (v >= 1000) std::snprintf(text, sizeof text, "%.0f", v);
    else if (v >= 10) std::snprintf(text, sizeof text, "%.1f", v);
    else std::snprintf(text, sizeof text, "%.3g", v);
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    std::string filter;
    int reps = 5;
    bool with_corpus = true;
    for (int k = 1; k < argc; ++k) {
        const std::string arg = argv[k];
        if (arg.rfind("--filter=", 0) == 0) filter = arg.substr(9);
        else if (arg.rfind("--reps=", 0) == 0) reps = std::max(1, std::atoi(arg.c_str() + 7));
        else if (arg == "--no-corpus") with_corpus = false;
        else {
            std::fprintf(stderr, "usage: bench_bitset_peers [--filter=SUBSTRING] [--reps=N] [--no-corpus]\n");
            return 2;
        }
    }
    const auto libs = bitset_peers::libraries();
    std::printf("## bench_bitset_peers\n\nbitplane SIMD path: %s (BITPLANE_SIMD=scalar|sse2|avx2|avx512 forces one); one "
                "thread; median of %d rounds.\n",
                std::string(bitplane::to_string(bitplane::active_simd_path())).c_str(), reps);
    if (libs.empty()) std::printf("Peers: none built in (scripts/build-peers.sh): bitplane alone.\n");
    for (const auto* lib : libs) std::printf("Peer: %s.\n", lib->describe());
    std::printf("\n");

    auto workloads = synthetic_workloads();
    if (with_corpus)
        for (auto& w : corpus_workloads()) workloads.push_back(std::move(w));

    std::map<std::string, std::vector<double>> vs_best, vs_each;  // op -> ratios
    std::map<std::string, int> below;                              // op -> workloads below 0.8x of a peer
    std::size_t measured = 0;
    for (const auto& w : workloads) {
        if (!filter.empty() && w.name.find(filter) == std::string::npos) continue;
        ++measured;
        std::printf("### %s\n\n%s; universe %llu; |a| = %zu, |b| = %zu\n\n", w.name.c_str(), w.what.c_str(),
                    static_cast<unsigned long long>(w.universe), w.a.size(), w.b.size());
        std::printf("| operation | unit | bitplane |");
        for (const auto* lib : libs) std::printf(" %s | ratio |", lib->name);
        std::printf("\n|---|---|---:|");
        for (std::size_t l = 0; l < libs.size(); ++l) std::printf("---:|---:|");
        std::printf("\n");
        for (const auto& r : run(w, libs, reps)) {
            std::printf("| %s | %s | %s |", r.op.c_str(), r.unit.c_str(), number(r.ours).c_str());
            double best = 0;
            bool any_below = false;
            for (double t : r.peers) {
                std::printf(" %s | %.2fx |", number(t).c_str(), t / r.ours);
                best = best == 0 ? t : std::min(best, t);
                any_below = any_below || t / r.ours < 0.8;
            }
            std::printf("\n");
            if (!r.peers.empty()) {
                vs_best[r.op].push_back(best / r.ours);
                below[r.op] += any_below ? 1 : 0;
            }
        }
        std::printf("\n");
    }
    if (measured == 0 || libs.empty()) return 0;
    std::printf("### Summary (%zu workloads)\n\nGeometric mean of (the faster or smaller peer) / bitplane, and the "
                "workloads where bitplane is below 0.8x of either peer.\n\n| operation | vs the better peer | below 0.8x of a peer |\n|---|---:|---:|\n",
                measured);
    for (const auto& [op, ratios] : vs_best) {
        double log_sum = 0;
        for (double r : ratios) log_sum += std::log(r);
        std::printf("| %s | %.2fx | %d/%zu |\n", op.c_str(), std::exp(log_sum / static_cast<double>(ratios.size())),
                    below[op], ratios.size());
    }
    return 0;
}

namespace bitset_peers {
std::vector<const library*> libraries() {
    std::vector<const library*> out;
#if defined(BITPLANE_BENCH_HAS_CROARING)
    out.push_back(&croaring());
#endif
#if defined(BITPLANE_BENCH_HAS_BITMAGIC_BITSET)
    out.push_back(&bitmagic());
#endif
    return out;
}
}  // namespace bitset_peers
