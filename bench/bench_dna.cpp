// DNA (issue #5): sizes and speeds of bitplane::dna against their baselines, in one run.
//
// Sizes (BM_DnaSize/<genome>, one iteration each, reported as counters): the packed file in
// both modes, UCSC 2bit (computed: dna::twobit_bytes), gzip -9 (zlib) and zstd -19 (libzstd) of
// the FASTA text, each in bits per base.
//
// Speeds (one thread, the active SIMD path; items = letters, bytes = FASTA bytes):
//   BM_DnaParse/<genome>/planes        FASTA text in memory -> dna::fasta (letters as planes)
//   BM_DnaCount/<genome>/{planes,bytes}     base counts: count_bases vs a 256-entry histogram loop
//   BM_DnaMismatch/<genome>/{planes,bytes}  letters differing between the genome and a copy with
//                                           1% substitutions, case ignored: mismatch_count vs a
//                                           byte loop (which GCC vectorizes)
//   BM_DnaMismatch/<genome>/read_only       no count: an XOR-OR loop over two buffers of the size
//                                           of the two sequences' planes (2 bits a letter each),
//                                           what reading them from L2, L3 or memory costs: the
//                                           ceiling of any plane mismatch count
//   BM_DnaRevcomp/<genome>/{planes,bytes}   reverse complement: planes vs a table loop into a string
//   BM_DnaFind/<genome>/<k>/{planes,memmem,std_search}   every occurrence of a k-mer taken from
//                                           the genome: dna::find vs memmem and std::search loops
// Extra rows on E. coli, to explain the figures above (not part of the acceptance):
//   BM_DnaMismatch/ecoli_1Mb/{planes,bytes,read_only}  the same on the first 2^20 letters, whose planes
//                                           (2 x 256 KiB) stay in L2: the kernel without the
//                                           L3 bandwidth limit
//   BM_DnaRevcomp/ecoli_iupac<d>/{planes,bytes}  reverse complement of E. coli with an ambiguity
//                                           code every ~d letters (d = 20000, 2000, 200): how the
//                                           special-letter path scales with their density
// The byte baselines run on the upper-cased letters as one std::string (no line breaks). Every
// planes result is checked against its baseline once before timing. At the end the program
// prints the ratios of each pair, from this run (the acceptance table of docs/benchmarks.md).
//
// Genomes come from scripts/fetch-genomes.sh (build/genomes, or BITPLANE_GENOMES_DIR); without
// them a random 8 Mb genome stands in and the size table is empty.
#include <bitplane/dna/dna.hpp>
#include <bitplane/parallel.hpp>

#include <benchmark/benchmark.h>
#include <zlib.h>
#if defined(BITPLANE_BENCH_HAS_ZSTD)
#include <zstd.h>
#endif

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

namespace dna = bitplane::dna;

struct genome {
    std::string name;
    std::string text;     // the FASTA file, decompressed
    std::string letters;  // its letters, upper case, one string
    std::string mutated;  // letters with 1% substitutions
    dna::fasta parsed;
    dna::sequence mutated_seq;
};

// Letters as a sequence and as a string, for the extra rows.
struct variant {
    std::string name;  // row name in place of the genome's
    std::string letters, other;
    dna::sequence seq, other_seq;
};

std::filesystem::path genomes_dir() {
    if (const char* env = std::getenv("BITPLANE_GENOMES_DIR"); env != nullptr && *env != '\0') return env;
    return std::filesystem::path(BITPLANE_SOURCE_DIR) / "build" / "genomes";
}

std::vector<genome>& genomes() {
    static std::vector<genome> all = [] {
        std::vector<genome> out;
        const std::pair<const char*, const char*> files[] = {{"lambda", "lambda_phage.fa.gz"},
                                                              {"ecoli", "ecoli_k12_mg1655.fa.gz"},
                                                              {"vcholerae", "vcholerae_o1.fa.gz"},
                                                              {"pseudopig", "pseudopig_softmasked.fa.gz"},
                                                              {"chr20", "human_chr20_grch37.fa.gz"}};
        for (const auto& [name, file] : files) {
            std::ifstream in(genomes_dir() / file, std::ios::binary);
            if (!in) continue;
            const std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            genome g;
            g.name = name;
            g.parsed = dna::fasta::parse_bytes(std::as_bytes(std::span<const char>(gz.data(), gz.size())));
            g.text = g.parsed.to_text();
            out.push_back(std::move(g));
        }
        if (out.empty()) {
            std::fprintf(stderr, "bench_dna: no genomes in %s (run scripts/fetch-genomes.sh); using random letters\n",
                         genomes_dir().c_str());
            std::mt19937_64 rng(1);
            std::string text = ">random 8 Mb\n";
            for (int line = 0; line < 8 * 1000 * 1000 / 60; ++line) {
                for (int k = 0; k < 60; ++k) text += "ACGT"[rng() & 3];
                text += '\n';
            }
            genome g;
            g.name = "random";
            g.parsed = dna::fasta::parse(text);
            g.text = std::move(text);
            out.push_back(std::move(g));
        }
        for (genome& g : out) {
            g.letters = g.parsed.letters().to_string();
            for (char& c : g.letters)
                if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);  // upper case
            g.mutated = g.letters;
            std::mt19937_64 rng(7);
            for (std::size_t i = 0; i < g.mutated.size(); i += 50 + rng() % 100) g.mutated[i] = "ACGT"[rng() & 3];
            g.mutated_seq = dna::sequence(g.mutated);
        }
        return out;
    }();
    return all;
}

std::vector<variant>& variants() {
    static std::vector<variant> all = [] {
        std::vector<variant> out;
        for (const genome& g : genomes()) {
            if (g.name != "ecoli") continue;
            variant l2;
            l2.name = g.name + "_1Mb";
            l2.letters = g.letters.substr(0, std::size_t{1} << 20);
            l2.other = g.mutated.substr(0, std::size_t{1} << 20);
            l2.seq = dna::sequence(l2.letters);
            l2.other_seq = dna::sequence(l2.other);
            out.push_back(std::move(l2));
            for (const std::size_t every : {20000, 2000, 200}) {
                variant v;
                v.name = g.name + "_iupac" + std::to_string(every);
                v.letters = g.letters;
                std::mt19937_64 rng(every);
                for (std::size_t i = rng() % every; i < v.letters.size(); i += every / 2 + rng() % every)
                    v.letters[i] = "RYKMSWBDHVN"[rng() % 11];
                v.seq = dna::sequence(v.letters);
                out.push_back(std::move(v));
            }
        }
        return out;
    }();
    return all;
}

// ---- sizes ---------------------------------------------------------------------------------------

std::size_t gzip9_bytes(const std::string& text) {
    uLongf size = compressBound(static_cast<uLong>(text.size()));
    std::string out(size, '\0');
    // compress2 writes the zlib wrapper (6 bytes) where gzip writes its 18-byte header and
    // trailer: the deflate stream inside is the same.
    compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(text.data()),
              static_cast<uLong>(text.size()), 9);
    return size - 6 + 18;
}

std::size_t zstd19_bytes(const std::string& text) {
#if defined(BITPLANE_BENCH_HAS_ZSTD)
    std::string out(ZSTD_compressBound(text.size()), '\0');
    return ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 19);
#else
    (void)text;
    return 0;  // built without libzstd
#endif
}

void BM_DnaSize(benchmark::State& state, const genome* g) {
    std::size_t planes = 0, modeled = 0;
    for (auto _ : state) {
        std::vector<std::byte> a, b;
        dna::pack(g->parsed, a, dna::pack_mode::planes);
        dna::pack(g->parsed, b, dna::pack_mode::modeled);
        planes = a.size();
        modeled = b.size();
    }
    const double bases = static_cast<double>(g->parsed.letters().size());
    auto bpb = [&](double bytes) { return benchmark::Counter(8.0 * bytes / bases); };
    state.counters["planes_bpb"] = bpb(static_cast<double>(planes));
    state.counters["modeled_bpb"] = bpb(static_cast<double>(modeled));
    state.counters["twobit_bpb"] = bpb(static_cast<double>(dna::twobit_bytes(g->parsed)));
    state.counters["gzip9_bpb"] = bpb(static_cast<double>(gzip9_bytes(g->text)));
    state.counters["zstd19_bpb"] = bpb(static_cast<double>(zstd19_bytes(g->text)));
    state.counters["bases"] = bases;
}

// ---- speeds --------------------------------------------------------------------------------------

void check(bool ok, const char* what, const std::string& genome_name) {
    if (!ok) {
        std::fprintf(stderr, "bench_dna: %s differs from its baseline on %s\n", what, genome_name.c_str());
        std::exit(1);
    }
}

void BM_DnaParse(benchmark::State& state, const genome* g) {
    for (auto _ : state) {
        dna::fasta f = dna::fasta::parse(g->text);
        benchmark::DoNotOptimize(f);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * g->text.size()));
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * g->letters.size()));
}

std::array<std::uint64_t, 256> histogram(const std::string& s) {
    std::array<std::uint64_t, 256> counts{};
    for (const char c : s) ++counts[static_cast<unsigned char>(c)];
    return counts;
}

void BM_DnaCount(benchmark::State& state, const genome* g, bool planes) {
    const auto h = histogram(g->letters);
    const auto c = dna::count_bases(g->parsed.letters());
    check(c.a == h['A'] && c.c == h['C'] && c.g == h['G'] && c.t == h['T'] && c.n == h['N'], "count", g->name);
    for (auto _ : state) {
        if (planes) {
            const auto counts = dna::count_bases(g->parsed.letters());
            benchmark::DoNotOptimize(counts.gc_content());
        } else {
            const auto counts = histogram(g->letters);
            benchmark::DoNotOptimize(static_cast<double>(counts['C'] + counts['G']) /
                                     static_cast<double>(counts['A'] + counts['C'] + counts['G'] + counts['T']));
        }
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * g->letters.size()));
}

std::uint64_t byte_mismatches(const std::string& a, const std::string& b) {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < a.size(); ++i) n += (a[i] & 0xDF) != (b[i] & 0xDF);  // case ignored
    return n;
}

// Reads two buffers of `letters / 32` words each, as mismatch_count reads two sequences' planes.
void read_only(benchmark::State& state, std::size_t letters) {
    const std::vector<std::uint64_t> a(letters / 32 + 1, 0x0123456789ABCDEFull), b(letters / 32 + 1, 0xFEDCBA9876543210ull);
    for (auto _ : state) {
        std::uint64_t acc = 0;
        for (std::size_t i = 0; i < a.size(); ++i) acc |= a[i] ^ b[i];
        benchmark::DoNotOptimize(acc);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * letters));
}

void BM_DnaMismatchReadOnly(benchmark::State& state, std::size_t letters) { read_only(state, letters); }

void BM_DnaMismatch(benchmark::State& state, const genome* g, bool planes) {
    check(dna::mismatch_count(g->parsed.letters(), g->mutated_seq) == byte_mismatches(g->letters, g->mutated), "mismatch",
          g->name);
    for (auto _ : state) {
        if (planes) {
            benchmark::DoNotOptimize(dna::mismatch_count(g->parsed.letters(), g->mutated_seq));
        } else {
            benchmark::DoNotOptimize(byte_mismatches(g->letters, g->mutated));
        }
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * g->letters.size()));
}

std::string byte_revcomp(const std::string& s) {
    static const auto table = [] {
        std::array<char, 256> t{};
        for (int i = 0; i < 256; ++i) t[static_cast<std::size_t>(i)] = static_cast<char>(i);
        for (const char c : std::string("ACGTNSWRKMYBDHV-acgtnswrkmybdhv"))
            t[static_cast<unsigned char>(c)] = dna::complement_letter(c);
        return t;
    }();
    std::string out(s.size(), '\0');
    const std::size_t n = s.size();
    for (std::size_t i = 0; i < n; ++i) out[n - 1 - i] = table[static_cast<unsigned char>(s[i])];
    return out;
}

void BM_DnaRevcomp(benchmark::State& state, const genome* g, bool planes) {
    check(dna::reverse_complement(g->parsed.letters()).to_string() == byte_revcomp(g->parsed.letters().to_string()),
          "reverse complement", g->name);
    for (auto _ : state) {
        if (planes) {
            dna::sequence rc = dna::reverse_complement(g->parsed.letters());
            benchmark::DoNotOptimize(rc);
        } else {
            std::string rc = byte_revcomp(g->letters);
            benchmark::DoNotOptimize(rc);
        }
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * g->letters.size()));
}

void BM_DnaMismatchVariant(benchmark::State& state, const variant* v, bool planes) {
    check(dna::mismatch_count(v->seq, v->other_seq) == byte_mismatches(v->letters, v->other), "mismatch", v->name);
    for (auto _ : state) {
        if (planes) {
            benchmark::DoNotOptimize(dna::mismatch_count(v->seq, v->other_seq));
        } else {
            benchmark::DoNotOptimize(byte_mismatches(v->letters, v->other));
        }
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * v->letters.size()));
}

void BM_DnaRevcompVariant(benchmark::State& state, const variant* v, bool planes) {
    check(dna::reverse_complement(v->seq).to_string() == byte_revcomp(v->letters), "reverse complement", v->name);
    for (auto _ : state) {
        if (planes) {
            dna::sequence rc = dna::reverse_complement(v->seq);
            benchmark::DoNotOptimize(rc);
        } else {
            std::string rc = byte_revcomp(v->letters);
            benchmark::DoNotOptimize(rc);
        }
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * v->letters.size()));
}

std::vector<std::uint64_t> memmem_all(const std::string& text, const std::string& pattern) {
    std::vector<std::uint64_t> hits;
    const char* p = text.data();
    const char* end = text.data() + text.size();
    while (const void* q = memmem(p, static_cast<std::size_t>(end - p), pattern.data(), pattern.size())) {
        hits.push_back(static_cast<std::uint64_t>(static_cast<const char*>(q) - text.data()));
        p = static_cast<const char*>(q) + 1;
    }
    return hits;
}

std::vector<std::uint64_t> search_all(const std::string& text, const std::string& pattern) {
    std::vector<std::uint64_t> hits;
    for (auto it = text.begin();; ++it) {
        it = std::search(it, text.end(), pattern.begin(), pattern.end());
        if (it == text.end()) break;
        hits.push_back(static_cast<std::uint64_t>(it - text.begin()));
    }
    return hits;
}

enum class finder { planes, memmem, std_search };

void BM_DnaFind(benchmark::State& state, const genome* g, std::size_t k, finder how) {
    // A k-mer of plain bases from the middle of the genome (it occurs at least once).
    std::size_t at = g->letters.size() / 2;
    while (g->letters.substr(at, k).find_first_not_of("ACGT") != std::string::npos) at += 997;
    const std::string pattern = g->letters.substr(at, k);
    const auto expect = memmem_all(g->letters, pattern);
    check(dna::find(g->parsed.letters(), pattern) == expect, "find", g->name);
    for (auto _ : state) {
        switch (how) {
            case finder::planes: benchmark::DoNotOptimize(dna::find(g->parsed.letters(), pattern)); break;
            case finder::memmem: benchmark::DoNotOptimize(memmem_all(g->letters, pattern)); break;
            case finder::std_search: benchmark::DoNotOptimize(search_all(g->letters, pattern)); break;
        }
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * g->letters.size()));
    state.counters["hits"] = static_cast<double>(expect.size());
}

void register_all() {
    for (const genome& g : genomes()) {
        const genome* p = &g;
        const std::string n = g.name;
        benchmark::RegisterBenchmark(("BM_DnaSize/" + n).c_str(), BM_DnaSize, p)
            ->Iterations(1)
            ->Repetitions(1)  // sizes do not vary; zstd -19 and the model take a minute on chr20
            ->Unit(benchmark::kMillisecond);
        if (g.name == "lambda" || g.name == "pseudopig") continue;  // sizes only: too small to time well
        benchmark::RegisterBenchmark(("BM_DnaParse/" + n + "/planes").c_str(), BM_DnaParse, p)->Unit(benchmark::kMillisecond);
        for (const bool planes : {true, false}) {
            const std::string side = planes ? "/planes" : "/bytes";
            benchmark::RegisterBenchmark(("BM_DnaCount/" + n + side).c_str(), BM_DnaCount, p, planes)->Unit(benchmark::kMillisecond);
            benchmark::RegisterBenchmark(("BM_DnaMismatch/" + n + side).c_str(), BM_DnaMismatch, p, planes)->Unit(benchmark::kMillisecond);
            benchmark::RegisterBenchmark(("BM_DnaRevcomp/" + n + side).c_str(), BM_DnaRevcomp, p, planes)->Unit(benchmark::kMillisecond);
        }
        benchmark::RegisterBenchmark(("BM_DnaMismatch/" + n + "/read_only").c_str(), BM_DnaMismatchReadOnly, g.letters.size())
            ->Unit(benchmark::kMillisecond);
        for (const variant& v : variants()) {
            if (v.name.rfind(g.name + "_", 0) != 0) continue;
            for (const bool planes : {true, false}) {
                const std::string side = planes ? "/planes" : "/bytes";
                if (v.other.empty()) {
                    benchmark::RegisterBenchmark(("BM_DnaRevcomp/" + v.name + side).c_str(), BM_DnaRevcompVariant, &v, planes)
                        ->Unit(benchmark::kMillisecond);
                } else {
                    benchmark::RegisterBenchmark(("BM_DnaMismatch/" + v.name + side).c_str(), BM_DnaMismatchVariant, &v, planes)
                        ->Unit(benchmark::kMillisecond);
                }
            }
            if (!v.other.empty())
                benchmark::RegisterBenchmark(("BM_DnaMismatch/" + v.name + "/read_only").c_str(), BM_DnaMismatchReadOnly,
                                             v.letters.size())
                    ->Unit(benchmark::kMillisecond);
        }
        for (const std::size_t k : {12, 32}) {
            std::string kk = "/";
            kk += std::to_string(k);
            benchmark::RegisterBenchmark(("BM_DnaFind/" + n + kk + "/planes").c_str(), BM_DnaFind, p, k, finder::planes)->Unit(benchmark::kMillisecond);
            benchmark::RegisterBenchmark(("BM_DnaFind/" + n + kk + "/memmem").c_str(), BM_DnaFind, p, k, finder::memmem)->Unit(benchmark::kMillisecond);
            benchmark::RegisterBenchmark(("BM_DnaFind/" + n + kk + "/std_search").c_str(), BM_DnaFind, p, k, finder::std_search)->Unit(benchmark::kMillisecond);
        }
    }
}

// Keeps every run's CPU time per item and counters, to print the ratios at the end.
class recording_reporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& r : runs) {
            if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
            std::string name = r.benchmark_name();
            const auto cut = name.find("_median");
            if (cut != std::string::npos) name.resize(cut);
            const auto items = r.counters.find("items_per_second");
            if (items != r.counters.end()) rate[name] = items->second.value;
            const auto bytes = r.counters.find("bytes_per_second");
            if (bytes != r.counters.end()) byte_rate[name] = bytes->second.value;
            for (const auto& [k, v] : r.counters) counters[name][k] = v.value;
        }
        ConsoleReporter::ReportRuns(runs);
    }
    std::map<std::string, double> rate, byte_rate;
    std::map<std::string, std::map<std::string, double>> counters;
};

void print_summary(const recording_reporter& rep) {
    std::printf("\n== DNA acceptance (issue #5), this run ==\n");
    std::printf("%-12s %9s %9s %9s %9s %9s\n", "sizes", "planes", "modeled", "2bit", "gzip -9", "zstd -19");
    for (const auto& [name, c] : rep.counters) {
        if (name.rfind("BM_DnaSize/", 0) != 0) continue;
        const std::string genome_name = name.substr(11, name.find('/', 11) - 11);
        std::printf("%-12s %9.4f %9.4f %9.4f %9.4f %9.4f   bits/base\n", genome_name.c_str(), c.at("planes_bpb"),
                    c.at("modeled_bpb"), c.at("twobit_bpb"), c.at("gzip9_bpb"), c.at("zstd19_bpb"));
    }
    auto ratio = [&](const std::string& a, const std::string& b) {
        const auto x = rep.rate.find(a), y = rep.rate.find(b);
        return x == rep.rate.end() || y == rep.rate.end() || y->second == 0 ? 0.0 : x->second / y->second;
    };
    for (const genome& g : genomes()) {
        if (g.name == "lambda" || g.name == "pseudopig") continue;
        const std::string n = g.name;
        const auto parse = rep.byte_rate.find("BM_DnaParse/" + n + "/planes");
        std::printf("%s: FASTA->planes %.2f GB/s (target >= 1)\n", n.c_str(),
                    parse == rep.byte_rate.end() ? 0.0 : parse->second / 1e9);
        std::printf("%s: counts/GC %.1fx (>= 30)  mismatch %.1fx (>= 30; reading the planes alone: %.1fx)  revcomp %.1fx (>= 10)\n",
                    n.c_str(), ratio("BM_DnaCount/" + n + "/planes", "BM_DnaCount/" + n + "/bytes"),
                    ratio("BM_DnaMismatch/" + n + "/planes", "BM_DnaMismatch/" + n + "/bytes"),
                    ratio("BM_DnaMismatch/" + n + "/read_only", "BM_DnaMismatch/" + n + "/bytes"),
                    ratio("BM_DnaRevcomp/" + n + "/planes", "BM_DnaRevcomp/" + n + "/bytes"));
        for (const variant& v : variants()) {
            if (v.name.rfind(n + "_", 0) != 0) continue;
            const char* op = v.other.empty() ? "revcomp" : "mismatch";
            const std::string row = std::string(v.other.empty() ? "BM_DnaRevcomp/" : "BM_DnaMismatch/") + v.name;
            if (v.other.empty()) {
                std::printf("  (extra) %s: %s %.1fx\n", v.name.c_str(), op, ratio(row + "/planes", row + "/bytes"));
            } else {
                std::printf("  (extra) %s: %s %.1fx (reading the planes alone: %.1fx)\n", v.name.c_str(), op,
                            ratio(row + "/planes", row + "/bytes"), ratio(row + "/read_only", row + "/bytes"));
            }
        }
        for (const int k : {12, 32})
            std::printf("%s: find %d-mer %.1fx memmem, %.1fx std::search (>= 2)\n", n.c_str(), k,
                        ratio("BM_DnaFind/" + n + "/" + std::to_string(k) + "/planes", "BM_DnaFind/" + n + "/" + std::to_string(k) + "/memmem"),
                        ratio("BM_DnaFind/" + n + "/" + std::to_string(k) + "/planes", "BM_DnaFind/" + n + "/" + std::to_string(k) + "/std_search"));
    }
}

}  // namespace

int main(int argc, char** argv) {
    bitplane::set_thread_count(1);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    register_all();
    recording_reporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    print_summary(reporter);
    benchmark::Shutdown();
    return 0;
}
