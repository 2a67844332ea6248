// The genome part of `bitplane demo` (demo_genome.hpp). It packs the FASTA file with pack_dna,
// the code of `bitplane pack --dna`, in both modes (file to file, timed), loads each .bp file
// back and compares its text with the input byte for byte, sizes the same text as UCSC 2bit
// (computed by the library, as faToTwoBit would write it), gzip -9 and zstd -19, and times the
// operations on the loaded letters against byte-string loops (dna_baselines.hpp), checking
// that both give the same result.
#include "demo_genome.hpp"

#include "cli_error.hpp"
#include "compressors.hpp"
#include "dna_baselines.hpp"
#include "input_file.hpp"
#include "output_file.hpp"
#include "pack_formats.hpp"
#include "packed_file.hpp"
#include "timer.hpp"

#include <bitplane/dna/sequence.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bitplane::cli {

namespace {

constexpr std::string_view builtin_stem = "lambda_phage";
// The EcoRI restriction site: a k-mer people look for, present a few times in lambda (5) and
// hundreds of times in a bacterial genome.
constexpr std::string_view demo_pattern = "GAATTC";

// gzip's header and trailer are 18 bytes where zlib's wrapper (what deflate_size counts) is 6:
// the deflate stream inside is the same, so this is the size `gzip -9` writes.
constexpr std::uint64_t gzip_frame_extra = 18 - 6;

std::string file_stem(const std::string& path) {
    std::string name = std::filesystem::path(path).filename().string();
    for (const std::string_view suffix : {".gz", ".fa", ".fasta", ".fna", ".fas"})
        if (name.size() > suffix.size() && name.ends_with(suffix)) name.resize(name.size() - suffix.size());
    return name;
}

std::string read_whole(const std::string& path) {
    return about_file(path, [&] {
        input_file in(path);
        std::string text(static_cast<std::size_t>(std::max<std::uint64_t>(in.size_on_disk(), 1 << 16)), '\0');
        std::size_t have = 0;
        for (;;) {
            have += in.read(std::as_writable_bytes(std::span<char>(text)).subspan(have));
            if (have < text.size()) break;
            text.resize(text.size() * 2);
        }
        text.resize(have);
        return text;
    });
}

double bits_per_base(std::uint64_t bytes, std::uint64_t letters) {
    return letters ? 8.0 * static_cast<double>(bytes) / static_cast<double>(letters) : 0.0;
}

genome_pack pack_form(const char* label, const std::string& input, const std::string& output, dna::pack_mode mode,
                      const std::string& text) {
    std::filesystem::remove(output);  // a fresh output, as the columns' packs are (cmd_demo.cpp)
    genome_pack form{label, pack_dna({input, output, false, false}, mode)};
    form.round_trip = load_dna(output).fasta.to_text() == text;
    return form;
}

void print_sizes(const std::string& text, std::uint64_t letters, const std::vector<genome_pack>& forms,
                 std::uint64_t twobit, std::uint64_t gzip9, double gzip_s, std::uint64_t zstd19, double zstd_s) {
    std::printf("%-40s %10s %9s %11s  %s\n", "file", "bytes", "bits/base", "compress ms", "round trip");
    const auto row = [&](const char* what, std::uint64_t bytes, double seconds, const char* round_trip) {
        std::printf("%-40s %10llu %9.3f", what, static_cast<unsigned long long>(bytes), bits_per_base(bytes, letters));
        if (seconds > 0 || *round_trip) std::printf(" %11.2f", seconds * 1e3);
        if (*round_trip) std::printf("  %s", round_trip);
        std::printf("\n");
    };
    row("FASTA text (the input, uncompressed)", text.size(), 0, "");
    for (const genome_pack& f : forms)
        row(f.label, f.packed.output_bytes, f.packed.seconds, f.round_trip ? "ok" : "MISMATCH");
    row("UCSC 2bit (size computed)", twobit, 0, "");
    row("gzip -9 (of the FASTA text)", gzip9, gzip_s, "");
    row("zstd -19 (of the FASTA text)", zstd19, zstd_s, "");
    std::printf("round trip: the .bp file unpacks to the FASTA text byte for byte (headers, line layout,\n"
                "case, N and IUPAC codes); 2bit keeps no descriptions, line layout or IUPAC codes (they become N).\n"
                "compress: pack file to file; gzip (zlib deflate + gzip frame) and zstd in memory, one thread.\n");
}

struct dna_row {
    std::string name;
    double bitplane_s = 0;
    double bytes_s = 0;
    bool same = false;
};

std::vector<dna_row> time_operations(const dna::sequence& letters, const std::string& upper, std::string_view pattern) {
    // A copy with a substitution every 50 to 150 letters (about 1%, a quarter of them the same
    // letter again), as bench_dna's mismatch benchmark makes it.
    std::string mutated = upper;
    std::mt19937_64 random(7);
    for (std::size_t i = 0; i < mutated.size(); i += 50 + random() % 100) mutated[i] = "ACGT"[random() & 3];
    const dna::sequence mutated_letters(mutated);
    std::vector<dna_row> rows;

    {
        dna::base_counts planes;
        std::array<std::uint64_t, 256> bytes{};
        dna_row row{"base counts and GC content"};
        row.bitplane_s = seconds_per_call([&] { planes = dna::count_bases(letters); });
        row.bytes_s = seconds_per_call([&] { bytes = byte_histogram(upper); });
        row.same = planes.a == bytes['A'] && planes.c == bytes['C'] && planes.g == bytes['G'] &&
                   planes.t == bytes['T'] && planes.n == bytes['N'] && planes.total() == upper.size();
        rows.push_back(row);
    }
    {
        dna::sequence planes;
        std::string bytes;
        dna_row row{"reverse complement"};
        row.bitplane_s = seconds_per_call([&] { planes = dna::reverse_complement(letters); });
        row.bytes_s = seconds_per_call([&] { bytes = byte_reverse_complement(upper); });
        std::string back = planes.to_string();  // soft-masking kept: compare upper-cased
        std::transform(back.begin(), back.end(), back.begin(), [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; });
        row.same = back == bytes;
        rows.push_back(row);
    }
    {
        std::uint64_t planes = 0, bytes = 0;
        dna_row row{"mismatches against a 1%-mutated copy"};
        row.bitplane_s = seconds_per_call([&] { planes = dna::mismatch_count(letters, mutated_letters); });
        row.bytes_s = seconds_per_call([&] { bytes = byte_mismatches(upper, mutated); });
        row.same = planes == bytes;
        rows.push_back(row);
    }
    {
        std::vector<std::uint64_t> planes, bytes;
        dna_row row{"find " + std::string(pattern)};
        row.bitplane_s = seconds_per_call([&] { planes = dna::find(letters, pattern); });
        row.bytes_s = seconds_per_call([&] { bytes = byte_find_all(upper, pattern); });
        row.same = planes == bytes;
        row.name += " (" + std::to_string(bytes.size()) + " hits)";
        rows.push_back(row);
    }
    return rows;
}

void print_operations(const std::vector<dna_row>& rows) {
    std::printf("%-40s %12s %15s %9s  %s\n", "DNA operation (one thread each)", "bitplane us", "byte string us",
                "speedup", "same result");
    for (const dna_row& row : rows)
        std::printf("%-40s %12.1f %15.1f %8.1fx  %s\n", row.name.c_str(), row.bitplane_s * 1e6, row.bytes_s * 1e6,
                    row.bitplane_s > 0 ? row.bytes_s / row.bitplane_s : 0.0, row.same ? "yes" : "NO");
    std::printf("bitplane works on the letters loaded from the .bp file (bit-planes); the byte-string loops on\n"
                "the upper-case letters as one std::string (best of 3 rounds). On a small genome fixed per-call\n"
                "costs weigh more: try --genome with a larger one; docs/benchmarks.md has bench_dna's figures.\n");
}

}  // namespace

genome_demo prepare_genome_demo(const genome_demo_options& o) {
    genome_demo g;
    std::string stem;
    if (o.genome.empty()) {
        stem = builtin_stem;
        g.fasta = (std::filesystem::path(o.dir) / (stem + ".fa.gz")).string();
        about_file(g.fasta, [&] {
            output_file out(g.fasta);
            out.write(builtin_genome_gz());
            out.commit();
        });
        g.source = "lambda phage, NCBI NC_001416.1, built in (--genome FILE for another)";
    } else {
        stem = file_stem(o.genome);
        g.fasta = o.genome;
        g.source = o.genome;
    }
    const std::string base = (std::filesystem::path(o.dir) / stem).string();
    g.planes = base + ".bp";
    g.modeled = base + ".modeled.bp";
    g.pattern = demo_pattern;
    g.text = read_whole(g.fasta);
    g.packs.push_back(pack_form(".bp, planes (pack --dna)", g.fasta, g.planes, dna::pack_mode::planes, g.text));
    if (g.packs.front().packed.values == 0)
        throw failure(exit_bad_input, g.fasta + ": no letters in this FASTA file to show");
    g.packs.push_back(
        pack_form(".bp, modeled (pack --dna --modeled)", g.fasta, g.modeled, dna::pack_mode::modeled, g.text));
    g.loaded = load_dna(g.planes);
    return g;
}

bool report_genome_demo(const genome_demo& g) {
    const pack_result& packed = g.packs.front().packed;
    const dna::sequence& letters = g.loaded.fasta.letters();
    const std::string upper = fasta_letters_upper(g.text);
    const dna::base_counts counts = dna::count_bases(letters);
    std::printf("genome: %s; %llu record%s, %llu letters, GC %.2f%%\n", g.source.c_str(),
                static_cast<unsigned long long>(packed.records), packed.records == 1 ? "" : "s",
                static_cast<unsigned long long>(packed.values), 100.0 * counts.gc_content());

    const auto text_bytes = std::as_bytes(std::span<const char>(g.text.data(), g.text.size()));
    std::uint64_t gzip9 = 0, zstd19 = 0;
    const double gzip_s = timed([&] { gzip9 = deflate_size(text_bytes, 9) + gzip_frame_extra; });
    const double zstd_s = timed([&] { zstd19 = zstd_size(text_bytes, 19); });
    print_sizes(g.text, packed.values, g.packs, packed.twobit_bytes, gzip9, gzip_s, zstd19, zstd_s);
    std::printf("\n");

    const std::vector<dna_row> rows = time_operations(letters, upper, g.pattern);
    print_operations(rows);

    return upper.size() == packed.values &&
           std::all_of(g.packs.begin(), g.packs.end(), [](const genome_pack& f) { return f.round_trip; }) &&
           std::all_of(rows.begin(), rows.end(), [](const dna_row& r) { return r.same; });
}

}  // namespace bitplane::cli
