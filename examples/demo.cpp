// bitplane_demo: the main job for now. Generates integer columns of typical shapes and a small
// genome-like sequence, stores each in a bitplane::vector and reports size, speed, a save/load
// round trip and how the blocks were encoded.
//
//   bitplane_demo [--values N] [--genome N] [--seed S]
//
// Exits non-zero when any decoded, accessed or reloaded value differs from the input.
#include <bitplane/bitplane.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
    return std::chrono::duration<double>(clock_type::now() - start).count();
}

struct options {
    std::size_t values = 4'000'000;  // per integer column
    std::size_t genome = 2'000'000;  // letters of the genome-like sequence
    std::uint64_t seed = 20240611;
};

struct result {
    std::string name;
    std::size_t values = 0;
    std::size_t raw_bytes = 0;
    std::size_t memory_bytes = 0;
    std::size_t file_bytes = 0;
    double encode_ns = 0;     // per value: push_back of every value + seal()
    double decode_gbps = 0;   // raw bytes decoded per second, best of a few full decodes
    double random_ns = 0;     // per operator[] at random indices
    bool decode_ok = false;
    bool random_ok = false;
    bool file_ok = false;
    bitplane::vector_stats stats;
};

template <class T>
result measure(std::string name, const std::vector<T>& data, std::uint64_t seed) {
    result r;
    r.name = std::move(name);
    r.values = data.size();
    r.raw_bytes = data.size() * sizeof(T);

    // Encode: push every value, then seal (encodes the last full block, compacts).
    bitplane::vector<T> column;
    const auto encode_start = clock_type::now();
    for (const T value : data) column.push_back(value);
    column.seal();
    r.encode_ns = seconds_since(encode_start) * 1e9 / static_cast<double>(std::max<std::size_t>(data.size(), 1));
    r.memory_bytes = column.memory_bytes();
    r.stats = column.stats();

    // Full decode into a std::vector: best of up to 5 runs, within about a quarter second.
    std::vector<T> decoded(data.size());
    double best = 0;
    const auto decode_budget = clock_type::now();
    for (int run = 0; run < 5 && (run == 0 || seconds_since(decode_budget) < 0.25); ++run) {
        const auto start = clock_type::now();
        column.decode(0, decoded);
        const double elapsed = seconds_since(start);
        best = run == 0 ? elapsed : std::min(best, elapsed);
    }
    r.decode_gbps = best > 0 ? static_cast<double>(r.raw_bytes) / best / 1e9 : 0;
    r.decode_ok = decoded == data;

    // Random operator[]: batches of random indices until about 0.2 s have passed.
    r.random_ok = true;
    if (!data.empty()) {
        std::mt19937_64 random(seed);
        std::vector<std::size_t> indices(1 << 14);
        for (auto& index : indices) index = static_cast<std::size_t>(random() % data.size());
        std::size_t accesses = 0;
        std::size_t mismatches = 0;
        const auto start = clock_type::now();
        do {
            for (const std::size_t index : indices) mismatches += column[index] != data[index] ? 1 : 0;
            accesses += indices.size();
        } while (seconds_since(start) < 0.2 && accesses < (std::size_t{1} << 22));
        r.random_ns = seconds_since(start) * 1e9 / static_cast<double>(accesses);
        r.random_ok = mismatches == 0;
    }

    // Save + load round trip.
    std::vector<std::byte> bytes;
    bitplane::save(column, bytes);
    r.file_bytes = bytes.size();
    const bitplane::vector<T> loaded = bitplane::load<T>(bytes);
    r.file_ok = loaded == column && loaded.to_std_vector() == data;
    return r;
}

// ---- data ----------------------------------------------------------------------------------

std::vector<std::uint32_t> uniform_bits(std::size_t count, unsigned bits, std::mt19937_64& random) {
    std::vector<std::uint32_t> out(count);
    const std::uint64_t mask = bits >= 32 ? 0xffffffffull : (1ull << bits) - 1;
    for (auto& value : out) value = static_cast<std::uint32_t>(random() & mask);
    return out;
}

std::vector<std::uint32_t> mostly_zeros(std::size_t count, std::mt19937_64& random) {
    std::vector<std::uint32_t> out(count);
    for (auto& value : out) value = random() % 10 == 0 ? static_cast<std::uint32_t>(random() & 0xfffff) : 0u;
    return out;
}

// Millisecond timestamps from about 2023-11-14 (1.7e12 ms, kept to its low 32 bits), one a
// second with up to 8 ms of jitter.
std::vector<std::uint32_t> timestamps(std::size_t count, std::mt19937_64& random) {
    std::vector<std::uint32_t> out(count);
    std::uint32_t now = static_cast<std::uint32_t>(1'700'000'000'000ull);
    std::uniform_int_distribution<int> jitter(-8, 8);
    for (auto& value : out) {
        value = now;
        now += static_cast<std::uint32_t>(1000 + jitter(random));
    }
    return out;
}

// Small signed readings in [-100, 100], 10% of them the sentinel -1 ("missing").
std::vector<std::int32_t> small_signed(std::size_t count, std::mt19937_64& random) {
    std::vector<std::int32_t> out(count);
    std::uniform_int_distribution<std::int32_t> reading(-100, 100);
    for (auto& value : out) value = random() % 10 == 0 ? -1 : reading(random);
    return out;
}

// A genome-like sequence: A, C, G, T coded 0..3, with a few runs of N (coded 4) such as
// assemblies have at gaps.
std::vector<std::uint32_t> genome(std::size_t count, std::mt19937_64& random) {
    std::vector<std::uint32_t> out(count);
    for (auto& letter : out) letter = static_cast<std::uint32_t>(random() & 3);
    if (count == 0) return out;
    for (int run = 0; run < 6; ++run) {
        const std::size_t first = static_cast<std::size_t>(random() % count);
        const std::size_t length = std::min<std::size_t>(count - first, 500 + random() % 20'000);
        std::fill_n(out.begin() + static_cast<std::ptrdiff_t>(first), length, 4u);
    }
    return out;
}

// ---- output --------------------------------------------------------------------------------

double mib(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

void print_results(const std::vector<result>& results) {
    std::printf("%-24s %10s %8s %8s %8s %7s %9s %9s %8s %8s  %s\n", "column", "values", "raw MiB",
                "mem MiB", "bits/val", "ratio", "enc ns/v", "dec GB/s", "rand ns", "file MiB", "check");
    for (const result& r : results) {
        const double bits = r.values ? 8.0 * static_cast<double>(r.memory_bytes) / static_cast<double>(r.values) : 0;
        const double ratio = r.memory_bytes ? static_cast<double>(r.raw_bytes) / static_cast<double>(r.memory_bytes) : 0;
        std::string checks;
        if (!r.decode_ok) checks += " decode";
        if (!r.random_ok) checks += " operator[]";
        if (!r.file_ok) checks += " save/load";
        checks = checks.empty() ? "ok" : "MISMATCH:" + checks;
        std::printf("%-24s %10zu %8.2f %8.2f %8.2f %6.2fx %9.1f %9.2f %8.1f %8.2f  %s\n", r.name.c_str(), r.values,
                    mib(r.raw_bytes), mib(r.memory_bytes), bits, ratio, r.encode_ns, r.decode_gbps, r.random_ns,
                    mib(r.file_bytes), checks.c_str());
    }
    std::printf("mem: memory_bytes() after seal(); ratio: raw / mem; enc: push_back of every value + seal();\n"
                "dec: full decode into a std::vector (raw bytes per second); rand: one operator[] at a random\n"
                "index; file: bytes save() wrote; check: decode, operator[] and save/load equal the input.\n");
}

void print_breakdown(const std::vector<result>& results) {
    using bitplane::codec::base_kind;
    using bitplane::codec::payload_kind;
    const auto at = [](const bitplane::vector_stats& s, base_kind base, payload_kind payload) {
        return s.planes[static_cast<std::size_t>(base)][static_cast<std::size_t>(payload)];
    };
    std::printf("\nHow the sealed blocks were stored (blocks by transform and layout; planes per block by "
                "how each plane is stored)\n");
    std::printf("%-24s %7s | %6s %6s %6s %6s | %6s %6s | %6s %6s %6s %6s %6s %6s\n", "column", "blocks", "none",
                "FOR", "delta", "zigzag", "dense", "sparse", "zero", "one", "ref", "pos", "runs", "raw");
    for (const result& r : results) {
        const bitplane::vector_stats& s = r.stats;
        const double blocks = s.sealed_blocks ? static_cast<double>(s.sealed_blocks) : 1.0;
        std::uint64_t referenced = 0, positions = 0, runs = 0, raw = 0;
        for (const base_kind base : {base_kind::zero, base_kind::one, base_kind::plane, base_kind::complement}) {
            if (base == base_kind::plane || base == base_kind::complement)
                for (std::size_t p = 0; p < 4; ++p) referenced += s.planes[static_cast<std::size_t>(base)][p];
            positions += at(s, base, payload_kind::positions);
            runs += at(s, base, payload_kind::runs);
            raw += at(s, base, payload_kind::raw);
        }
        const auto per_block = [&](std::uint64_t planes) { return static_cast<double>(planes) / blocks; };
        std::printf("%-24s %7llu | %6llu %6llu %6llu %6llu | %6llu %6llu | %6.1f %6.1f %6.1f %6.1f %6.1f %6.1f\n",
                    r.name.c_str(), static_cast<unsigned long long>(s.sealed_blocks),
                    static_cast<unsigned long long>(s.blocks_by_transform[0]),
                    static_cast<unsigned long long>(s.blocks_by_transform[1]),
                    static_cast<unsigned long long>(s.blocks_by_transform[2]),
                    static_cast<unsigned long long>(s.blocks_by_transform[3]),
                    static_cast<unsigned long long>(s.blocks_by_layout[0]),
                    static_cast<unsigned long long>(s.blocks_by_layout[1]),
                    per_block(at(s, base_kind::zero, payload_kind::none)),
                    per_block(at(s, base_kind::one, payload_kind::none)), per_block(referenced), per_block(positions),
                    per_block(runs), per_block(raw));
    }
    std::printf("zero/one: planes elided (all 0 / all 1); ref: stored as XOR onto another plane or its complement;\n"
                "pos/runs/raw: planes with a position-list, run-list or raw-bits payload (ref planes included).\n");
}

[[noreturn]] void usage(int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: bitplane_demo [--values N] [--genome N] [--seed S]\n"
                 "  --values N   values per integer column (default 4000000)\n"
                 "  --genome N   letters of the genome-like sequence (default 2000000)\n"
                 "  --seed S     seed of the generated data (default 20240611)\n");
    std::exit(status);
}

options parse(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "-h" || arg == "--help") usage(0);
        if (i + 1 >= argc) usage(2);
        char* end = nullptr;
        const unsigned long long number = std::strtoull(argv[++i], &end, 10);
        if (end == argv[i] || *end != '\0') usage(2);
        if (arg == "--values") o.values = static_cast<std::size_t>(number);
        else if (arg == "--genome") o.genome = static_cast<std::size_t>(number);
        else if (arg == "--seed") o.seed = number;
        else usage(2);
    }
    return o;
}

}  // namespace

int main(int argc, char** argv) try {
    const options o = parse(argc, argv);
    const auto start = clock_type::now();
    std::printf("bitplane demo: %zu values per column, %zu genome letters, seed %llu, SIMD path %s\n\n", o.values,
                o.genome, static_cast<unsigned long long>(o.seed),
                std::string(bitplane::to_string(bitplane::active_simd_path())).c_str());

    std::mt19937_64 random(o.seed);
    std::vector<result> results;
    results.push_back(measure("uniform 10-bit", uniform_bits(o.values, 10, random), o.seed + 1));
    results.push_back(measure("90% zeros + 20-bit", mostly_zeros(o.values, random), o.seed + 2));
    results.push_back(measure("sorted timestamps (ms)", timestamps(o.values, random), o.seed + 3));
    results.push_back(measure("small signed, -1 = NA", small_signed(o.values, random), o.seed + 4));
    results.push_back(measure("full-range random", uniform_bits(o.values, 32, random), o.seed + 5));
    results.push_back(measure("genome ACGT + N runs", genome(o.genome, random), o.seed + 6));

    print_results(results);
    print_breakdown(results);

    const bool ok = std::all_of(results.begin(), results.end(),
                                [](const result& r) { return r.decode_ok && r.random_ok && r.file_ok; });
    std::printf("\n%s in %.1f s\n", ok ? "all checks passed" : "SOME CHECKS FAILED", seconds_since(start));
    return ok ? 0 : 1;
} catch (const std::exception& e) {
    std::fprintf(stderr, "bitplane_demo: %s\n", e.what());
    return 1;
}
