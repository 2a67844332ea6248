// Real columns (issue #13): every operation of bitplane::vector on every corpus column beside a
// plain std::vector loop and BitMagic's bm::sparse_vector (AVX2 build), one table per column.
//
// Columns: build/corpus/*.u32 / *.i32 with their MANIFEST.tsv (scripts/fetch-corpus.sh, or
// BITPLANE_CORPUS_DIR), and six synthetic shapes of `bitplane demo` (tools/demo_data.cpp),
// 1M values each. Without the corpus only the synthetic shapes run.
//
// Operations (one thread; each result checked against the std::vector answer before timing;
// each time the median of 7 rounds in which bitplane, the loop and BitMagic run in turn):
//   random []        ns per read, over a fixed sequence of 65,536 random indices (v[i]; BitMagic get)
//   iterate          ns per value: the vector's const_iterator (BitMagic: const_iterator)
//   sum              us: bitplane::sum; plain loop; BitMagic: popcounts of its bit-slices
//   count_eq / find_eq, frequent and rare value   us: count_eq / find_eq (a bitset); plain loop
//                    (count / a bitmap of positions); BitMagic: scanner find_eq into a bvector
//                    (+ count() for count_eq: it has no count-only search)
//   count_range / find_range   us, [lo, hi] covering ~10% of the values (the 45th..55th percentile)
//   decode           us: decode() of everything; memcpy; BitMagic decode()
//   encode           us: construction from a span; a copy of the std::vector; BitMagic import() + optimize()
//   sizes            bits per value: bitplane::save; memory_bytes(); BitMagic serializer (XOR
//                    compression on) and calc_stat memory; zstd -19 of the raw column
// Ratios are baseline / bitplane: above 1, bitplane is faster (or smaller).
//
//   bench_corpus [--filter=SUBSTRING] [--reps=N] [--no-synthetic] [--no-zstd] [--layouts] [--sizes]
//                [--levels] [--level=N]
// (--layouts: only how each column's blocks are stored, from vector_stats, no timing;
//  --sizes: only file and memory sizes in bytes beside zstd -19 and BitMagic, no timing;
//  --levels: file bits/value, save and load time at save_options::zstd_level 0, 1, 3, 9, 19;
//  --level=N: the zstd level of every other save, default save_options' default)
// BITPLANE_SIMD=avx2 forces a SIMD path. Output is Markdown (docs/benchmarks.md).
#include <bitplane/bitplane.hpp>
#include <bitplane/codec.hpp>
#include <bitplane/parallel.hpp>
#include <bitplane/reduce.hpp>
#include <bitplane/scan.hpp>
#include <bitplane/serialize.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/stats.hpp>

#if defined(BITPLANE_BENCH_HAS_BITMAGIC)
#include "corpus_bitmagic.hpp"
#endif
#if defined(BITPLANE_BENCH_HAS_ZSTD)
#include <zstd.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

struct column {
    std::string name, what;
    bool is_signed = false;
    bool synthetic = false;
    std::vector<std::uint32_t> bits;  // values as 32-bit patterns
};

// ---- columns ---------------------------------------------------------------------------------------

std::filesystem::path corpus_dir() {
    if (const char* env = std::getenv("BITPLANE_CORPUS_DIR"); env != nullptr && *env != '\0') return env;
    return std::filesystem::path(BITPLANE_SOURCE_DIR) / "build" / "corpus";
}

std::vector<column> corpus_columns() {
    std::vector<column> out;
    std::ifstream manifest(corpus_dir() / "MANIFEST.tsv");
    if (!manifest) {
        std::printf("> No corpus in %s (run scripts/fetch-corpus.sh): synthetic shapes only.\n\n", corpus_dir().c_str());
        return out;
    }
    std::string line;
    std::getline(manifest, line);  // header
    while (std::getline(manifest, line)) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string cell; std::getline(ss, cell, '\t');) f.push_back(cell);
        if (f.size() < 7) continue;
        column c;
        c.name = f[0];
        c.is_signed = f[1] == "i32";
        c.what = f[6] + " (" + f[3] + ")";
        std::ifstream in(corpus_dir() / (f[0] + "." + f[1]), std::ios::binary);
        if (!in) continue;
        in.seekg(0, std::ios::end);
        const auto bytes = static_cast<std::size_t>(in.tellg());
        in.seekg(0);
        c.bits.resize(bytes / 4);
        in.read(reinterpret_cast<char*>(c.bits.data()), static_cast<std::streamsize>(c.bits.size() * 4));
        if constexpr (std::endian::native == std::endian::big)
            for (auto& v : c.bits) v = __builtin_bswap32(v);
        out.push_back(std::move(c));
    }
    return out;
}

// The shapes of tools/demo_data.cpp (bitplane demo), 1M values each.
std::vector<column> synthetic_columns() {
    constexpr std::size_t n = 1 << 20;
    std::vector<column> out;
    auto add = [&](const char* name, const char* what, bool is_signed, auto gen) {
        std::mt19937_64 random(42);
        column c;
        c.name = name;
        c.what = what;
        c.is_signed = is_signed;
        c.synthetic = true;
        c.bits.resize(n);
        for (auto& v : c.bits) v = gen(random);
        out.push_back(std::move(c));
    };
    add("uniform10", "uniform 10-bit values", false, [](auto& r) { return static_cast<std::uint32_t>(r() & 1023); });
    add("scores3", "scores 0..7 (3 bits)", false, [](auto& r) { return static_cast<std::uint32_t>(r() & 7); });
    add("sparse20", "90% zeros, else 20-bit values", false,
        [](auto& r) { return r() % 10 == 0 ? static_cast<std::uint32_t>(r() & 0xfffff) : 0u; });
    {
        auto now = static_cast<std::uint32_t>(1'700'000'000'000ull);
        std::uniform_int_distribution<int> jitter(-8, 8);
        add("timestamps", "ms timestamps, 1 s apart +- 8 ms", false, [&](auto& r) {
            const std::uint32_t v = now;
            now += static_cast<std::uint32_t>(1000 + jitter(r));
            return v;
        });
    }
    {
        std::uniform_int_distribution<std::int32_t> reading(-100, 100);
        add("readings", "int32 in [-100, 100], 10% -1 (missing)", true,
            [&](auto& r) { return std::bit_cast<std::uint32_t>(r() % 10 == 0 ? -1 : reading(r)); });
    }
    add("random32", "full-range random (incompressible)", false, [](auto& r) { return static_cast<std::uint32_t>(r()); });
    return out;
}

// ---- timing ----------------------------------------------------------------------------------------

int g_reps = 7;
bitplane::save_options g_save;  // --level
volatile std::uint64_t g_sink = 0;

using job = std::function<std::uint64_t()>;

// Median seconds of one call of each of bitplane's, the plain loop's and BitMagic's job (an empty
// job: 0), over g_reps rounds (3 when a round takes over 0.3 s) after a warm-up round. A round
// runs the three in turn, so that the load of the machine falls on all three alike. A sample
// repeats a job until it has run for min_sample_seconds (the mean of those calls): one call of
// a small column's job (tz_offset's iteration: 30 us) timed alone varied 2x from run to run, as
// it met caches the other two jobs had just filled.
constexpr double min_sample_seconds = 1e-3;

std::array<double, 3> median_seconds(const job& ours, const job& plain, const job& peer) {
    using clock = std::chrono::steady_clock;
    const job* jobs[3] = {&ours, &plain, &peer};
    auto once = [](const job& f) {
        const auto t0 = clock::now();
        double elapsed = 0;
        int calls = 0;
        do {
            g_sink = g_sink + f();
            ++calls;
            elapsed = std::chrono::duration<double>(clock::now() - t0).count();
        } while (elapsed < min_sample_seconds);
        return elapsed / calls;
    };
    double first = 0;
    for (const job* f : jobs)
        if (*f) first += once(*f);
    const int reps = first > 0.3 ? 3 : g_reps;
    std::array<std::vector<double>, 3> t;
    for (int r = 0; r < reps; ++r)
        for (int k = 0; k < 3; ++k)
            if (*jobs[k]) t[k].push_back(once(*jobs[k]));
    std::array<double, 3> out{};
    for (int k = 0; k < 3; ++k) {
        if (t[k].empty()) continue;
        std::sort(t[k].begin(), t[k].end());
        out[k] = t[k][t[k].size() / 2];
    }
    return out;
}

// ---- the plain loops -------------------------------------------------------------------------------

template <class T>
std::vector<std::uint64_t> bitmap_of(const std::vector<T>& v, auto pred) {
    std::vector<std::uint64_t> words((v.size() + 63) / 64);
    for (std::size_t w = 0; w < words.size(); ++w) {
        std::uint64_t bits = 0;
        const std::size_t base = w * 64, end = std::min(v.size(), base + 64);
        for (std::size_t i = base; i < end; ++i) bits |= static_cast<std::uint64_t>(pred(v[i])) << (i - base);
        words[w] = bits;
    }
    return words;
}

std::vector<std::uint64_t> positions_of(const std::vector<std::uint64_t>& words) {
    std::vector<std::uint64_t> out;
    for (std::size_t w = 0; w < words.size(); ++w)
        for (std::uint64_t bits = words[w]; bits != 0; bits &= bits - 1)
            out.push_back(w * 64 + static_cast<std::uint64_t>(std::countr_zero(bits)));
    return out;
}

// ---- results ---------------------------------------------------------------------------------------

struct row {
    std::string op, unit;
    double bitplane = 0, plain = 0, bitmagic = 0;  // time (0: not measured)
};

struct column_result {
    std::string name;
    bool synthetic = false;
    std::vector<row> rows;
};

void fail(const std::string& column_name, const std::string& what) {
    std::fprintf(stderr, "bench_corpus: %s: %s\n", column_name.c_str(), what.c_str());
    std::exit(1);
}

std::string fmt(double x) {
    char buf[32];
    if (x == 0) return "-";
    if (x >= 1000) std::snprintf(buf, sizeof buf, "%.0f", x);
    else if (x >= 100) std::snprintf(buf, sizeof buf, "%.1f", x);
    else if (x >= 10) std::snprintf(buf, sizeof buf, "%.2f", x);
    else std::snprintf(buf, sizeof buf, "%.3f", x);
    return buf;
}

// 1.23x, 0.45x, 0.0012x: two significant digits below 0.1.
std::string times(double r) {
    char buf[32];
    std::snprintf(buf, sizeof buf, r >= 0.1 ? "%.2fx" : "%.2gx", r);
    return buf;
}

std::string ratio(double baseline, double ours) {
    if (baseline == 0 || ours == 0) return "-";
    return times(baseline / ours);
}

// zstd -19 takes seconds a column: the size is kept in <corpus>/zstd19.tsv (name, values, FNV-1a
// of the bytes, compressed bytes) and recomputed only when the column changes.
std::size_t zstd19_bytes(const column& c) {
#if defined(BITPLANE_BENCH_HAS_ZSTD)
    std::uint64_t hash = 14695981039346656037ull;
    for (std::uint32_t b : c.bits) hash = (hash ^ b) * 1099511628211ull;
    const std::string key = c.name + "\t" + std::to_string(c.bits.size()) + "\t" + std::to_string(hash) + "\t";
    const std::filesystem::path cache = corpus_dir() / "zstd19.tsv";
    {
        std::ifstream in(cache);
        for (std::string line; std::getline(in, line);)
            if (line.rfind(key, 0) == 0) return std::stoull(line.substr(key.size()));
    }
    std::vector<char> out(ZSTD_compressBound(c.bits.size() * 4));
    const std::size_t bytes = ZSTD_compress(out.data(), out.size(), c.bits.data(), c.bits.size() * 4, 19);
    if (ZSTD_isError(bytes)) return 0;
    if (std::filesystem::is_directory(corpus_dir())) std::ofstream(cache, std::ios::app) << key << bytes << "\n";
    return bytes;
#else
    (void)c;
    return 0;
#endif
}

// How the column's blocks are stored (vector_stats): transforms, layouts and plane payloads.
template <class T>
std::string layout_of(const bitplane::vector<T>& v) {
    const bitplane::vector_stats st = v.stats();
    std::uint64_t elided = 0;
    std::array<std::uint64_t, bitplane::codec::payload_kind_count> payloads{};
    for (const auto& by_payload : st.planes)
        for (std::size_t k = 0; k < payloads.size(); ++k) payloads[k] += by_payload[k];
    elided = payloads[0];
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu",
                  static_cast<unsigned long long>(st.sealed_blocks), static_cast<unsigned long long>(st.blocks_by_transform[0]),
                  static_cast<unsigned long long>(st.blocks_by_transform[1]), static_cast<unsigned long long>(st.blocks_by_transform[2]),
                  static_cast<unsigned long long>(st.blocks_by_transform[3]), static_cast<unsigned long long>(st.blocks_by_layout[1]),
                  static_cast<unsigned long long>(elided), static_cast<unsigned long long>(payloads[3]),
                  static_cast<unsigned long long>(payloads[1]), static_cast<unsigned long long>(payloads[2]),
                  static_cast<unsigned long long>(payloads[4]));
    return buf;
}

// --sizes: file and memory sizes only, no timing (bytes; the round trip is checked).
struct size_totals {
    double file = 0, zstd = 0, bm_file = 0;
    int over_zstd = 0, over_bm_memory = 0, columns = 0;
};

template <class T>
void print_sizes(const column& c, bool with_zstd, size_totals& t) {
    const std::size_t n = c.bits.size();
    const std::span<const T> values(reinterpret_cast<const T*>(c.bits.data()), n);
    const bitplane::vector<T> v{values};
    std::vector<std::byte> file;
    bitplane::save(v, file, g_save);
    std::vector<T> back(n);
    bitplane::load<T>(std::span<const std::byte>(file)).decode(0, std::span<T>(back));
    if (!std::equal(back.begin(), back.end(), values.begin())) fail(c.name, "the saved file's values");
    const double zstd = static_cast<double>(with_zstd ? zstd19_bytes(c) : 0);
    double bm_file = 0, bm_memory = 0;
#if defined(BITPLANE_BENCH_HAS_BITMAGIC)
    auto bm = corpus_bitmagic::build(c.bits.data(), n, c.is_signed);
    bm_file = static_cast<double>(corpus_bitmagic::serialized_bytes(*bm));
    bm_memory = static_cast<double>(corpus_bitmagic::memory_bytes(*bm));
#endif
    const double f = static_cast<double>(file.size()), m = static_cast<double>(v.memory_bytes());
    std::printf("| %s | %.0f | %.0f | %.2fx | %.0f | %.0f | %.0f | %.2fx |\n", c.name.c_str(), f, zstd,
                zstd > 0 ? f / zstd : 0.0, bm_file, m, bm_memory, bm_memory > 0 ? m / bm_memory : 0.0);
    t.file += f;
    t.zstd += zstd;
    t.bm_file += bm_file;
    t.over_zstd += zstd > 0 && f > 1.25 * zstd ? 1 : 0;
    t.over_bm_memory += bm_memory > 0 && m >= bm_memory ? 1 : 0;
    ++t.columns;
}

// --levels: per zstd level, the file's bits per value and the median save and load times
// (save into a reserved byte vector; load from it, which validates and decodes every block).
constexpr std::array<int, 5> level_list{0, 1, 3, 9, 19};
struct level_totals {
    std::array<double, level_list.size()> file{}, save{}, load{}, log_ratio{};
    std::array<int, level_list.size()> over{};
    double zstd = 0;
    int columns = 0;
};

template <class T>
void print_levels(const column& c, bool with_zstd, level_totals& t) {
    const std::size_t n = c.bits.size();
    const std::span<const T> values(reinterpret_cast<const T*>(c.bits.data()), n);
    const bitplane::vector<T> v{values};
    const double zstd = static_cast<double>(with_zstd ? zstd19_bytes(c) : 0);
    const double bits_per = 8.0 / static_cast<double>(n);
    std::printf("| %s | %.3f |", c.name.c_str(), zstd * bits_per);
    for (std::size_t l = 0; l < level_list.size(); ++l) {
        const bitplane::save_options options{.zstd_level = level_list[l]};
        std::vector<std::byte> file;
        auto save_once = [&] {
            file.clear();
            bitplane::save(v, file, options);
            return static_cast<std::uint64_t>(file.size());
        };
        auto load_once = [&] { return static_cast<std::uint64_t>(bitplane::load<T>(std::span<const std::byte>(file)).size()); };
        save_once();
        std::vector<T> back(n);
        bitplane::load<T>(std::span<const std::byte>(file)).decode(0, std::span<T>(back));
        if (!std::equal(back.begin(), back.end(), values.begin())) fail(c.name, "the saved file's values");
        const double save_s = median_seconds(save_once, job{}, job{})[0];
        const double load_s = median_seconds(load_once, job{}, job{})[0];
        const double f = static_cast<double>(file.size());
        std::printf(" %.3f / %.0f / %.0f |", f * bits_per, save_s * 1e6, load_s * 1e6);
        t.file[l] += f;
        t.save[l] += save_s;
        t.load[l] += load_s;
        if (zstd > 0) {
            t.log_ratio[l] += std::log(f / zstd);
            t.over[l] += f > 1.25 * zstd ? 1 : 0;
        }
    }
    std::printf("\n");
    std::fflush(stdout);
    t.zstd += zstd;
    ++t.columns;
}

const char* layout_header =
    "| column | blocks | plain | FOR | delta | zigzag | sparse | planes elided | raw | positions | runs | gaps |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";

template <class T>
column_result run_column(const column& c, bool with_zstd) {
    using wide = bitplane::wide_t<T>;
    using U = std::uint32_t;
    const std::size_t n = c.bits.size();
    std::vector<T> plain(n);
    std::memcpy(plain.data(), c.bits.data(), n * 4);
    const bitplane::vector<T> v{std::span<const T>(plain)};
    auto check = [&](bool ok, const std::string& what) {
        if (!ok) fail(c.name, what + " differs from the std::vector answer");
    };

    // Frequent and rare values, and a range over the 45th..55th percentile.
    std::unordered_map<U, std::uint64_t> counts;
    for (U b : c.bits) ++counts[b];
    U frequent = c.bits[0], rare = c.bits[0];
    std::uint64_t most = 0, least = ~std::uint64_t{0};
    for (std::size_t i = 0; i < n; ++i) {  // ties: the first in column order
        const std::uint64_t k = counts[c.bits[i]];
        if (k > most) most = k, frequent = c.bits[i];
        if (k < least) least = k, rare = c.bits[i];
    }
    std::vector<T> sorted = plain;
    std::sort(sorted.begin(), sorted.end());
    const T lo = sorted[n * 45 / 100], hi = sorted[std::min(n - 1, n * 55 / 100)];
    const T xf = std::bit_cast<T>(frequent), xr = std::bit_cast<T>(rare);
    const auto in_range = [lo, hi](T x) { return static_cast<U>(x - lo) <= static_cast<U>(hi - lo); };
    std::uint64_t in_range_count = 0;
    for (T x : plain) in_range_count += in_range(x);

    std::printf("### %s\n\n%s; %s, %zu values; frequent value %lld (%.1f%%), rare %lld (%llu), range [%lld, %lld] (%.1f%%)\n\n",
                c.name.c_str(), c.what.c_str(), c.is_signed ? "int32" : "uint32", n, static_cast<long long>(xf),
                100.0 * static_cast<double>(most) / static_cast<double>(n), static_cast<long long>(xr),
                static_cast<unsigned long long>(least), static_cast<long long>(lo), static_cast<long long>(hi),
                100.0 * static_cast<double>(in_range_count) / static_cast<double>(n));
    std::printf("%s| %s | %s |\n\n", layout_header, c.name.c_str(), layout_of(v).c_str());
    std::fflush(stdout);

    column_result result{c.name, c.synthetic, {}};
    auto add = [&](std::string op, std::string unit, double a, double b, double m) {
        result.rows.push_back(row{std::move(op), std::move(unit), a, b, m});
    };
    auto timed = [&](std::string op, std::string unit, double scale, const job& ours, const job& base, const job& peer) {
        const auto t = median_seconds(ours, base, peer);
        add(std::move(op), std::move(unit), t[0] * scale, t[1] * scale, t[2] * scale);
    };
    const double us = 1e6;

#if defined(BITPLANE_BENCH_HAS_BITMAGIC)
    auto bm = corpus_bitmagic::build(c.bits.data(), n, c.is_signed);
#endif

    // random reads
    constexpr std::size_t reads = 65536;
    std::vector<U> index(reads);
    {
        std::mt19937_64 random(7);
        for (auto& i : index) i = static_cast<U>(random() % n);
    }
    auto plain_random = [&] {
        std::uint64_t s = 0;
        for (U i : index) s += static_cast<U>(plain[i]);
        return s;
    };
    auto bp_random = [&] {
        std::uint64_t s = 0;
        for (U i : index) s += static_cast<U>(v[i]);
        return s;
    };
    const std::uint64_t random_answer = plain_random();
    check(bp_random() == random_answer, "random []");
    job bm_random;
#if defined(BITPLANE_BENCH_HAS_BITMAGIC)
    check(corpus_bitmagic::random_reads(*bm, index.data(), reads) == random_answer, "BitMagic get");
    bm_random = [&] { return corpus_bitmagic::random_reads(*bm, index.data(), reads); };
#endif
    timed("random []", "ns", 1e9 / static_cast<double>(reads), bp_random, plain_random, bm_random);

    // sequential iteration
    auto plain_iter = [&] {
        std::uint64_t s = 0;
        for (T x : plain) s += static_cast<U>(x);
        return s;
    };
    auto bp_iter = [&] {
        std::uint64_t s = 0;
        for (T x : v) s += static_cast<U>(x);
        return s;
    };
    const std::uint64_t iter_answer = plain_iter();
    check(bp_iter() == iter_answer, "iteration");
    job bm_iter;
#if defined(BITPLANE_BENCH_HAS_BITMAGIC)
    check(corpus_bitmagic::iterate(*bm) == iter_answer, "BitMagic iteration");
    bm_iter = [&] { return corpus_bitmagic::iterate(*bm); };
#endif
    timed("iterate", "ns/value", 1e9 / static_cast<double>(n), bp_iter, plain_iter, bm_iter);

    // sum
    auto plain_sum = [&] {
        std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t> s = 0;
        for (T x : plain) s += x;
        return s;
    };
    const auto sum_answer = plain_sum();
    check(bitplane::sum(v) == static_cast<wide>(sum_answer), "sum");
    job bm_sum;
#if defined(BITPLANE_BENCH_HAS_BITMAGIC)
    check(corpus_bitmagic::plane_sum(*bm) == static_cast<bitplane::int128>(sum_answer), "BitMagic plane sum");
    bm_sum = [&] { return static_cast<std::uint64_t>(corpus_bitmagic::plane_sum(*bm)); };
#endif
    timed("sum", "us", us, [&] { return static_cast<std::uint64_t>(bitplane::sum(v)); },
          [&] { return static_cast<std::uint64_t>(plain_sum()); }, bm_sum);

    // equality and range scans
    struct scan_case {
        std::string label;
        bool range;
        T x;
    };
    for (const scan_case& sc : {scan_case{"frequent", false, xf}, scan_case{"rare", false, xr}, scan_case{"range", true, xf}}) {
        auto pred = [in_range, is_range = sc.range, x0 = sc.x](T x) { return is_range ? in_range(x) : x == x0; };
        const std::vector<std::uint64_t> expected = positions_of(bitmap_of(plain, pred));
        // counts
        auto plain_count = [&, is_range = sc.range, x0 = sc.x] {
            std::uint64_t k = 0;
            if (is_range) {
                for (T x : plain) k += in_range(x);
            } else {
                for (T x : plain) k += x == x0;
            }
            return k;
        };
        auto bp_count = [&] { return sc.range ? bitplane::count_range(v, lo, hi) : bitplane::count_eq(v, sc.x); };
        check(plain_count() == expected.size() && bp_count() == expected.size(), "count " + sc.label);
        auto bp_find = [&] { return sc.range ? bitplane::find_range(v, lo, hi) : bitplane::find_eq(v, sc.x); };
        {
            const bitplane::bitset found = bp_find();
            check(found.size() == n && found.to_positions() == expected, "find " + sc.label);
        }
        auto plain_find = [&] {
            const std::vector<std::uint64_t> words = bitmap_of(plain, pred);
            return words.empty() ? 0 : words[words.size() / 2] + words.back();
        };
        job bm_search;
#if defined(BITPLANE_BENCH_HAS_BITMAGIC)
        {
            const U bits_x = std::bit_cast<U>(sc.x);
            auto bm_find = [&, bits_x](std::vector<std::uint64_t>* positions) {
                return sc.range ? corpus_bitmagic::find_range(*bm, std::bit_cast<U>(lo), std::bit_cast<U>(hi), positions)
                                : corpus_bitmagic::find_eq(*bm, bits_x, positions);
            };
            std::vector<std::uint64_t> positions;
            check(bm_find(&positions) == expected.size() && positions == expected, "BitMagic find " + sc.label);
            bm_search = [bm_find] { return bm_find(nullptr); };  // count_eq too: no count-only search
        }
#endif
        const std::string name = sc.range ? "range" : "eq " + sc.label;
        timed("count_" + name, "us", us, bp_count, plain_count, bm_search);
        timed("find_" + name, "us", us, [&] { return bp_find().count(); }, plain_find, bm_search);
    }

    // decode and encode
    std::vector<T> buffer(n);
    v.decode(0, buffer);
    check(buffer == plain, "decode");
    job bm_decode, bm_encode;
#if defined(BITPLANE_BENCH_HAS_BITMAGIC)
    std::vector<U> bm_buffer(n);
    corpus_bitmagic::decode(*bm, bm_buffer.data(), n);
    check(bm_buffer == c.bits, "BitMagic decode");
    bm_decode = [&] {
        corpus_bitmagic::decode(*bm, bm_buffer.data(), n);
        return static_cast<std::uint64_t>(bm_buffer[n / 2]);
    };
    bm_encode = [&] { return static_cast<std::uint64_t>(corpus_bitmagic::build(c.bits.data(), n, c.is_signed).get() != nullptr); };
#endif
    timed("decode", "us", us,
          [&] {
              v.decode(0, buffer);
              return static_cast<std::uint64_t>(buffer[n / 2]);
          },
          [&] {
              std::memcpy(buffer.data(), plain.data(), n * sizeof(T));
              return static_cast<std::uint64_t>(buffer[n / 2]);
          },
          bm_decode);
    timed("encode", "us", us, [&] { return static_cast<std::uint64_t>(bitplane::vector<T>(std::span<const T>(plain)).size()); },
          [&] { return static_cast<std::uint64_t>(std::vector<T>(plain).size()); }, bm_encode);

    // sizes, bits per value
    std::vector<std::byte> file;
    bitplane::save(v, file, g_save);
    const double bits_per = 8.0 / static_cast<double>(n);
    const double zstd = static_cast<double>(with_zstd ? zstd19_bytes(c) : 0) * bits_per;
    double bm_file = 0, bm_memory = 0;
#if defined(BITPLANE_BENCH_HAS_BITMAGIC)
    bm_file = static_cast<double>(corpus_bitmagic::serialized_bytes(*bm)) * bits_per;
    bm_memory = static_cast<double>(corpus_bitmagic::memory_bytes(*bm)) * bits_per;
#endif
    // "plain" holds zstd -19 for the file row, 32 bits for the memory row.
    add("file size", "bits/value", static_cast<double>(file.size()) * bits_per, zstd, bm_file);
    add("memory", "bits/value", static_cast<double>(v.memory_bytes()) * bits_per, 32.0, bm_memory);

    std::printf("| operation | unit | bitplane | std::vector | ratio | BitMagic | ratio |\n|---|---|---:|---:|---:|---:|---:|\n");
    for (const row& r : result.rows) {
        const bool file_row = r.op == "file size";
        std::printf("| %s | %s | %s | %s%s | %s | %s | %s |\n", r.op.c_str(), r.unit.c_str(), fmt(r.bitplane).c_str(),
                    fmt(r.plain).c_str(), file_row ? " (zstd -19)" : "", ratio(r.plain, r.bitplane).c_str(),
                    fmt(r.bitmagic).c_str(), ratio(r.bitmagic, r.bitplane).c_str());
    }
    std::printf("\n");
    std::fflush(stdout);
    return result;
}

void print_summary(const std::vector<column_result>& results, bool synthetic, bool have_bitmagic) {
    std::vector<std::string> ops;
    for (const column_result& c : results)
        for (const row& r : c.rows)
            if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) ops.push_back(r.op);
    std::size_t columns = 0;
    for (const column_result& c : results) columns += c.synthetic == synthetic;
    if (columns == 0) return;
    std::printf("### Summary: %s (%zu columns)\n\nGeometric mean of baseline / bitplane over the columns, and the "
                "columns where bitplane is faster (smaller); the file-size baseline is zstd -19.\n\n",
                synthetic ? "synthetic shapes" : "corpus", columns);
    std::printf("| operation | vs std::vector | bitplane wins | vs BitMagic | bitplane wins |\n|---|---:|---:|---:|---:|\n");
    for (const std::string& op : ops) {
        double log_plain = 0, log_bm = 0;
        int n_plain = 0, n_bm = 0, wins_plain = 0, wins_bm = 0;
        for (const column_result& c : results) {
            if (c.synthetic != synthetic) continue;
            for (const row& r : c.rows) {
                if (r.op != op || r.bitplane <= 0) continue;
                if (r.plain > 0) log_plain += std::log(r.plain / r.bitplane), ++n_plain, wins_plain += r.plain > r.bitplane;
                if (r.bitmagic > 0) log_bm += std::log(r.bitmagic / r.bitplane), ++n_bm, wins_bm += r.bitmagic > r.bitplane;
            }
        }
        auto gm = [](double l, int k) {
            if (k == 0) return std::string("-");
            return times(std::exp(l / k));
        };
        std::printf("| %s%s | %s | %d/%d | %s | %s |\n", op.c_str(), op == "file size" ? " (vs zstd -19)" : "",
                    gm(log_plain, n_plain).c_str(), wins_plain, n_plain, gm(log_bm, n_bm).c_str(),
                    have_bitmagic ? (std::to_string(wins_bm) + "/" + std::to_string(n_bm)).c_str() : "-");
    }
    std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
    std::string filter;
    bool with_synthetic = true, with_zstd = true, layouts_only = false, sizes_only = false, levels_only = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.rfind("--filter=", 0) == 0) filter = a.substr(9);
        else if (a.rfind("--reps=", 0) == 0) g_reps = std::max(1, std::atoi(a.c_str() + 7));
        else if (a == "--no-synthetic") with_synthetic = false;
        else if (a == "--no-zstd") with_zstd = false;
        else if (a == "--layouts") layouts_only = true;
        else if (a == "--sizes") sizes_only = true;
        else if (a == "--levels") levels_only = true;
        else if (a.rfind("--level=", 0) == 0) g_save.zstd_level = std::atoi(a.c_str() + 8);
        else {
            std::fprintf(stderr, "usage: bench_corpus [--filter=SUBSTRING] [--reps=N] [--no-synthetic] [--no-zstd] [--layouts] [--sizes] [--levels] [--level=N]\n");
            return 2;
        }
    }
    bitplane::set_thread_count(1);
    std::printf("## bench_corpus\n\nbitplane SIMD path: %s (BITPLANE_SIMD=scalar|sse2|avx2|avx512 forces one); one thread; "
                "median of %d rounds.\n",
                std::string(bitplane::to_string(bitplane::active_simd_path())).c_str(), g_reps);
#if defined(BITPLANE_BENCH_HAS_BITMAGIC)
    const bool have_bitmagic = true;
    std::printf("Peer: %s (bm::sparse_vector, optimize(); scanner; serializer with XOR compression).\n",
                corpus_bitmagic::describe());
#else
    const bool have_bitmagic = false;
    std::printf("Peer: BitMagic absent (build with -DBITPLANE_BITMAGIC_DIR=<BitMagic>/src after scripts/build-peers.sh).\n");
#endif
#if !defined(BITPLANE_BENCH_HAS_ZSTD)
    std::printf("zstd absent (libzstd-dev): no zstd -19 sizes.\n");
    with_zstd = false;
#endif
    std::printf("\n");

    std::vector<column> columns = corpus_columns();
    if (with_synthetic)
        for (column& c : synthetic_columns()) columns.push_back(std::move(c));
    if (layouts_only) {  // how each column is stored, no timing
        std::printf("%s", layout_header);
        for (const column& c : columns) {
            if ((!filter.empty() && c.name.find(filter) == std::string::npos) || c.bits.empty()) continue;
            const std::string row = c.is_signed
                ? layout_of(bitplane::vector<std::int32_t>(std::span<const std::int32_t>(
                      reinterpret_cast<const std::int32_t*>(c.bits.data()), c.bits.size())))
                : layout_of(bitplane::vector<std::uint32_t>(std::span<const std::uint32_t>(c.bits)));
            std::printf("| %s | %s |\n", c.name.c_str(), row.c_str());
        }
        return 0;
    }
    if (levels_only) {
        std::printf("File bits/value / save us / load us by save_options::zstd_level (0: format version 2, no zstd).\n\n"
                    "| column | zstd -19 of raw |");
        for (int l : level_list) std::printf(" level %d |", l);
        std::printf("\n|---|---:|");
        for (std::size_t l = 0; l < level_list.size(); ++l) std::printf("---:|");
        std::printf("\n");
        level_totals t;
        for (const column& c : columns) {
            if ((!filter.empty() && c.name.find(filter) == std::string::npos) || c.bits.empty()) continue;
            if (c.is_signed) print_levels<std::int32_t>(c, with_zstd, t);
            else print_levels<std::uint32_t>(c, with_zstd, t);
        }
        std::printf("\n| level | total file bytes | vs zstd -19 total | geomean file / zstd | columns > 1.25x zstd | "
                    "total save ms | total load ms |\n|---:|---:|---:|---:|---:|---:|---:|\n");
        for (std::size_t l = 0; l < level_list.size(); ++l)
            std::printf("| %d | %.0f | %.3fx | %.3fx | %d of %d | %.1f | %.1f |\n", level_list[l], t.file[l],
                        t.zstd > 0 ? t.file[l] / t.zstd : 0.0, std::exp(t.log_ratio[l] / std::max(1, t.columns)),
                        t.over[l], t.columns, t.save[l] * 1e3, t.load[l] * 1e3);
        return 0;
    }
    if (sizes_only) {
        std::printf("| column | file bytes | zstd -19 | file / zstd | BitMagic file | memory bytes | BitMagic memory | "
                    "memory / BitMagic |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
        size_totals t;
        for (const column& c : columns) {
            if ((!filter.empty() && c.name.find(filter) == std::string::npos) || c.bits.empty()) continue;
            if (c.is_signed) print_sizes<std::int32_t>(c, with_zstd, t);
            else print_sizes<std::uint32_t>(c, with_zstd, t);
        }
        std::printf("\ntotal: file %.0f bytes, zstd -19 %.0f, BitMagic file %.0f; %d of %d columns above 1.25x zstd -19; "
                    "memory not below BitMagic's on %d\n",
                    t.file, t.zstd, t.bm_file, t.over_zstd, t.columns, t.over_bm_memory);
        return 0;
    }
    std::vector<column_result> results;
    for (const column& c : columns) {
        if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
        if (c.bits.empty()) continue;
        results.push_back(c.is_signed ? run_column<std::int32_t>(c, with_zstd) : run_column<std::uint32_t>(c, with_zstd));
    }
    print_summary(results, false, have_bitmagic);
    print_summary(results, true, have_bitmagic);
    return 0;
}
