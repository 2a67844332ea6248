// The commands on packed DNA files: stats (print_dna_stats, called by cmd_stats.cpp), gc
// (add_gc: base counts and GC content per record), find (print_dna_find, called by
// cmd_scan.cpp). All of them run the library's plane operations (bitplane/dna/sequence.hpp).
#include "cli_error.hpp"
#include "column_stats.hpp"
#include "commands.hpp"
#include "dna_commands.hpp"
#include "report.hpp"
#include "timer.hpp"

#include <bitplane/dna/sequence.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace bitplane::cli {

namespace {

constexpr std::uint64_t letters_per_block = 2048;

double bits_per_letter(std::uint64_t bytes, std::uint64_t letters) {
    return letters ? 8.0 * static_cast<double>(bytes) / static_cast<double>(letters) : 0.0;
}

// Bytes of the FASTA text, from the layout (without writing the text out).
std::uint64_t fasta_bytes(const dna::fasta& f) {
    const std::uint64_t eol = f.crlf() ? 2 : 1;
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < f.size(); ++i) {
        const dna::fasta::record r = f[i];
        bytes += 1 + r.header.size() + eol;
        for (const dna::line_run& run : r.lines) bytes += run.count * (run.length + eol);
    }
    if (bytes > 0 && !f.final_newline()) bytes -= eol;
    return bytes;
}

// A record's name for printing: up to the first space or tab, or "#N" (1-based) when that is
// empty (a header like "> pig1").
std::string display_name(const dna::fasta& f, std::size_t i) {
    const std::string_view name = f[i].name();
    return name.empty() ? "#" + std::to_string(i + 1) : std::string(name);
}

constexpr const char* plane_names[dna::code_planes] = {"base bit 0", "base bit 1", "soft-masked", "not ACGT",
                                                        "group bit 0", "group bit 1"};

nlohmann::json counts_json(const dna::base_counts& c) {
    return {{"letters", c.total()}, {"A", c.a},         {"C", c.c},       {"G", c.g},
            {"T", c.t},             {"N", c.n},         {"ambiguous", c.ambiguous},
            {"gaps", c.gaps},       {"soft_masked", c.lower}, {"gc_content", c.gc_content()}};
}

}  // namespace

void print_dna_stats(const packed_dna& file, bool json) {
    const dna::fasta& f = file.fasta;
    const std::uint64_t letters = f.letters().size();
    const std::uint64_t text = fasta_bytes(f);
    const std::uint64_t twobit = dna::twobit_bytes(f);
    const std::uint64_t blocks = (letters + letters_per_block - 1) / letters_per_block;
    // How the letter codes' planes are stored as bit-plane blocks: what planes mode stores
    // (modeled files code the base planes arithmetically instead, and the others as blocks).
    packed_file codes;
    codes.path = file.path;
    codes.column = f.letters().codes();
    const column_stats planes = compute_stats(codes);
    const char* mode = file.modeled ? "modeled" : "planes";
    if (json) {
        nlohmann::json records = nlohmann::json::array();
        for (std::size_t i = 0; i < f.size(); ++i) {
            const dna::fasta::record r = f[i];
            records.push_back({{"name", display_name(f, i)}, {"letters", r.size}, {"line_width", r.line_width()}});
        }
        nlohmann::json per_plane = nlohmann::json::array();
        for (std::size_t j = 0; j < dna::code_planes; ++j) {
            nlohmann::json row = {{"plane", j}, {"meaning", plane_names[j]}, {"letters_set", planes.hamming[j][j]}};
            for (std::size_t e = 0; e < plane_encoding_count; ++e)
                row[std::string(name_of(static_cast<plane_encoding>(e)))] = planes.per_plane[j][e];
            per_plane.push_back(row);
        }
        print_json({{"file", file.path},
                    {"format", "dna"},
                    {"mode", mode},
                    {"records", f.size()},
                    {"letters", letters},
                    {"file_bytes", file.file_bytes},
                    {"bits_per_base", bits_per_letter(file.file_bytes, letters)},
                    {"fasta_bytes", text},
                    {"twobit_bytes", twobit},
                    {"twobit_bits_per_base", bits_per_letter(twobit, letters)},
                    {"crlf", f.crlf()},
                    {"blocks", blocks},
                    {"planes", per_plane},
                    {"record_list", records}});
        return;
    }
    std::printf("%s: packed DNA (%s mode), %zu record%s, %llu letters in %llu block%s\n", file.path.c_str(), mode,
                f.size(), f.size() == 1 ? "" : "s", static_cast<unsigned long long>(letters),
                static_cast<unsigned long long>(blocks), blocks == 1 ? "" : "s");
    std::printf("size: %s file, %.3f bits/base; FASTA %s (%.2fx smaller); UCSC 2bit %s (%.3f bits/base)\n",
                human_bytes(file.file_bytes).c_str(), bits_per_letter(file.file_bytes, letters),
                human_bytes(text).c_str(),
                file.file_bytes ? static_cast<double>(text) / static_cast<double>(file.file_bytes) : 0.0,
                human_bytes(twobit).c_str(), bits_per_letter(twobit, letters));
    std::printf("\nletter-code planes as bit-plane blocks (blocks per plane and encoding%s):\n",
                file.modeled ? "; modeled mode codes planes 0-1 arithmetically instead" : "");
    std::printf("  %-5s %-12s %12s", "plane", "meaning", "letters set");
    for (std::size_t e = 0; e < plane_encoding_count; ++e)
        std::printf(" %9s", std::string(name_of(static_cast<plane_encoding>(e))).c_str());
    std::printf("\n");
    for (std::size_t j = 0; j < dna::code_planes; ++j) {
        std::printf("  %-5zu %-12s %12llu", j, plane_names[j], static_cast<unsigned long long>(planes.hamming[j][j]));
        for (const std::uint64_t n : planes.per_plane[j]) std::printf(" %9llu", static_cast<unsigned long long>(n));
        std::printf("\n");
    }
    std::printf("\nrecords:\n");
    const std::size_t shown = std::min<std::size_t>(f.size(), 20);
    for (std::size_t i = 0; i < shown; ++i) {
        const dna::fasta::record r = f[i];
        std::printf("  %-30s %12llu letters, lines of %llu\n", display_name(f, i).c_str(),
                    static_cast<unsigned long long>(r.size), static_cast<unsigned long long>(r.line_width()));
    }
    if (shown < f.size()) std::printf("  (%zu more)\n", f.size() - shown);
}

void print_dna_find(const packed_dna& file, const std::string& pattern, std::uint64_t limit, bool json) {
    const dna::fasta& f = file.fasta;
    struct hit {
        std::size_t record;
        std::uint64_t position;
    };
    // Matches are counted as they are found, and only the first `limit` kept: find --limit 1
    // on a file with billions of matches holds one (records are searched in windows of 2^20
    // letters, overlapping by the pattern's length, so no window's list grows past 8 MiB).
    constexpr std::uint64_t window = std::uint64_t{1} << 20;
    std::vector<hit> hits;
    std::uint64_t count = 0;
    const double seconds = about_file(file.path, [&] {
        return timed([&] {
            for (std::size_t i = 0; i < f.size(); ++i) {
                const dna::fasta::record r = f[i];
                if (r.size == 0) {
                    // Still check the pattern's letters (parse_error) on an empty record.
                    (void)dna::find(dna::sequence(), pattern);
                    continue;
                }
                const std::uint64_t overlap = pattern.size() > 0 ? pattern.size() - 1 : 0;
                for (std::uint64_t at = 0; at < r.size; at += window) {
                    const std::uint64_t span = std::min<std::uint64_t>(r.size - at, window + overlap);
                    for (const std::uint64_t p : dna::find(f.letters(), pattern, r.first + at, span)) {
                        if (p - r.first >= at + window) continue;  // the next window's
                        ++count;
                        if (hits.size() < limit) hits.push_back({i, p - r.first});
                    }
                }
            }
        });
    });
    const std::uint64_t shown = hits.size();
    if (json) {
        nlohmann::json list = nlohmann::json::array();
        for (std::uint64_t k = 0; k < shown; ++k)
            list.push_back({{"record", hits[k].record}, {"name", display_name(f, hits[k].record)},
                            {"position", hits[k].position}});
        print_json({{"file", file.path},
                    {"pattern", pattern},
                    {"count", count},
                    {"matches", list},
                    {"truncated", shown < count},
                    {"seconds", seconds}});
        return;
    }
    std::string text;
    for (std::uint64_t k = 0; k < shown; ++k) {
        text += display_name(f, hits[k].record);
        text += '\t';
        text += std::to_string(hits[k].position);
        text += '\n';
        if (text.size() >= (1 << 16) || k + 1 == shown) {
            write_stdout(text);
            text.clear();
        }
    }
}

namespace {
struct gc_options {
    std::string input;
    bool json = false;
};
}  // namespace

command_runner add_gc(CLI::App& root, const global_options&) {
    auto o = std::make_shared<gc_options>();
    CLI::App* c = root.add_subcommand("gc", "Print base counts and GC content of a packed DNA file, per record");
    c->footer("GC content is (C + G) / (A + C + G + T): N, ambiguity codes and gaps are left out. Counts ignore case;\n"
              "soft_masked counts the lower-case letters among them. Counted on the planes (popcounts).");
    c->add_option("INPUT", o->input, "A packed DNA file (bitplane pack --dna)")->required();
    c->add_flag("--json", o->json, "Print the counts as JSON");
    return [o] {
        const packed_dna file = load_dna(o->input);
        const dna::fasta& f = file.fasta;
        std::vector<dna::base_counts> counts(f.size());
        for (std::size_t i = 0; i < f.size(); ++i) counts[i] = dna::count_bases(f.letters(), f[i].first, f[i].size);
        const dna::base_counts all = dna::count_bases(f.letters());
        if (o->json) {
            nlohmann::json records = nlohmann::json::array();
            for (std::size_t i = 0; i < f.size(); ++i) {
                nlohmann::json j = counts_json(counts[i]);
                j["name"] = display_name(f, i);
                records.push_back(j);
            }
            print_json({{"file", file.path}, {"records", records}, {"total", counts_json(all)}});
            return;
        }
        std::printf("%-24s %12s %10s %10s %10s %10s %10s %9s %6s %11s %7s\n", "record", "letters", "A", "C", "G", "T",
                    "N", "ambiguous", "gaps", "soft_masked", "GC%");
        auto row = [](const std::string& name, const dna::base_counts& b) {
            std::printf("%-24s %12llu %10llu %10llu %10llu %10llu %10llu %9llu %6llu %11llu %7.3f\n", name.c_str(),
                        static_cast<unsigned long long>(b.total()), static_cast<unsigned long long>(b.a),
                        static_cast<unsigned long long>(b.c), static_cast<unsigned long long>(b.g),
                        static_cast<unsigned long long>(b.t), static_cast<unsigned long long>(b.n),
                        static_cast<unsigned long long>(b.ambiguous), static_cast<unsigned long long>(b.gaps),
                        static_cast<unsigned long long>(b.lower), 100.0 * b.gc_content());
        };
        for (std::size_t i = 0; i < f.size(); ++i) row(display_name(f, i), counts[i]);
        if (f.size() != 1) row("(all)", all);
    };
}

}  // namespace bitplane::cli
