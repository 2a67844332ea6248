// bitplane stats IN.bp [--json] [--plot FILE.png]: what the compression did (packed DNA files:
// dna_commands.hpp).
#include "cli_error.hpp"
#include "column_stats.hpp"
#include "commands.hpp"
#include "dna_commands.hpp"
#include "plot.hpp"
#include "report.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace bitplane::cli {

namespace {

struct stats_options {
    std::string input;
    bool json = false;
    std::string plot;
};

// "3, 10-31" from ascending or descending plane numbers.
std::string ranges(std::vector<std::size_t> planes) {
    std::sort(planes.begin(), planes.end());
    std::string out;
    for (std::size_t i = 0; i < planes.size();) {
        std::size_t j = i;
        while (j + 1 < planes.size() && planes[j + 1] == planes[j] + 1) ++j;
        out += (out.empty() ? "" : ", ") + std::to_string(planes[i]);
        if (j > i) out += "-" + std::to_string(planes[j]);
        i = j + 1;
    }
    return out;
}

void print_text(const column_stats& s, const packed_file& file) {
    const double values = static_cast<double>(s.values);
    std::printf("%s: %llu %s values in %llu blocks\n", file.path.c_str(), static_cast<unsigned long long>(s.values),
                type_name(file.column), static_cast<unsigned long long>(s.blocks));
    std::printf("size: %s file, %.3f bits/value (raw %s: %.2fx smaller); blocks alone %s\n",
                human_bytes(s.file_bytes).c_str(), s.values ? 8.0 * static_cast<double>(s.file_bytes) / values : 0.0,
                human_bytes(4 * s.values).c_str(),
                s.file_bytes ? 4.0 * values / static_cast<double>(s.file_bytes) : 0.0, human_bytes(s.encoded_bytes).c_str());
    std::printf("blocks by transform: none %llu, frame of reference %llu, delta %llu, zigzag %llu; by layout: dense %llu, "
                "sparse %llu\n",
                static_cast<unsigned long long>(s.blocks_by_transform[0]),
                static_cast<unsigned long long>(s.blocks_by_transform[1]),
                static_cast<unsigned long long>(s.blocks_by_transform[2]),
                static_cast<unsigned long long>(s.blocks_by_transform[3]),
                static_cast<unsigned long long>(s.blocks_by_layout[0]),
                static_cast<unsigned long long>(s.blocks_by_layout[1]));

    // The planes stored are those of each block's residuals (after its transform and, for
    // sparse blocks, of the non-zero values only); the similarity below is of the values.
    std::printf("\nhow the planes of the residuals are stored (blocks per plane and encoding; zero/one: elided,\n"
                "copy: another plane or its complement, else by payload):\n");
    std::printf("  %-6s", "plane");
    for (std::size_t e = 0; e < plane_encoding_count; ++e) std::printf(" %9s", std::string(name_of(static_cast<plane_encoding>(e))).c_str());
    std::printf("\n");
    std::array<std::uint64_t, plane_encoding_count> total{};
    std::vector<std::size_t> zero_everywhere;
    for (std::size_t j = plane_count; j-- > 0;) {
        const auto& row = s.per_plane[j];
        for (std::size_t e = 0; e < plane_encoding_count; ++e) total[e] += row[e];
        if (row[0] == s.blocks && s.blocks != 0) {
            zero_everywhere.push_back(j);
            continue;
        }
        std::printf("  %-6zu", j);
        for (const std::uint64_t n : row) std::printf(" %9llu", static_cast<unsigned long long>(n));
        std::printf("\n");
    }
    if (!zero_everywhere.empty())
        std::printf("  (not listed: planes %s, zero in every block)\n", ranges(zero_everywhere).c_str());
    std::printf("  %-6s", "all");
    for (const std::uint64_t n : total) std::printf(" %9llu", static_cast<unsigned long long>(n));
    std::printf("\n  %-6s", "bytes");
    for (const std::uint64_t n : s.bytes_by_encoding) std::printf(" %9s", human_bytes(n).c_str());
    std::printf("\n  stored planes with another plane as base: %llu; sparse blocks' mask planes:",
                static_cast<unsigned long long>(s.referenced));
    for (std::size_t e = 0; e < plane_encoding_count; ++e)
        if (s.mask[e]) std::printf(" %s %llu", std::string(name_of(static_cast<plane_encoding>(e))).c_str(), static_cast<unsigned long long>(s.mask[e]));
    std::printf("\n");

    // The similarity matrix of the planes that vary somewhere (constant planes agree with
    // everything or nothing and only widen the table).
    std::vector<std::size_t> varying;
    for (std::size_t j = 0; j < plane_count; ++j)
        if (s.hamming[j][j] != 0 && s.hamming[j][j] != s.values) varying.push_back(j);
    std::printf("\nsimilarity of the value planes (%% of values where planes i and j agree; 50 = unrelated; the %zu\n"
                "planes that are not constant):\n", varying.size());
    if (varying.empty()) return;
    std::printf("      ");
    for (const std::size_t j : varying) std::printf("%4zu", j);
    std::printf("\n");
    for (const std::size_t i : varying) {
        std::printf("  %3zu ", i);
        for (const std::size_t j : varying) std::printf("%4.0f", 100.0 * agreement(s, i, j));
        std::printf("\n");
    }
}

}  // namespace

command_runner add_stats(CLI::App& root, const global_options&) {
    auto o = std::make_shared<stats_options>();
    CLI::App* c = root.add_subcommand("stats", "Show how a .bp file is compressed: sizes, blocks, planes, similarity");
    c->add_option("INPUT", o->input, "The .bp file")->required();
    c->add_flag("--json", o->json, "Print everything as JSON (the full 32x32 matrices included)");
    c->add_option("--plot", o->plot, "Also draw the similarity heat map and per-plane encodings into this PNG (gnuplot)");
    return [o] {
        any_packed loaded = load_any(o->input);
        if (const auto* dna = std::get_if<packed_dna>(&loaded)) {
            if (!o->plot.empty()) throw usage_failure("--plot: " + o->input + " is a packed DNA file; --plot draws columns");
            return print_dna_stats(*dna, o->json);
        }
        const packed_file& file = std::get<packed_file>(loaded);
        const column_stats stats = compute_stats(file);
        // The plot first: when it fails, the command fails without having printed anything.
        if (!o->plot.empty()) {
            const std::string title = file.path + ": " + std::to_string(stats.values) + " " + type_name(file.column) +
                                      " values, " + human_bytes(stats.file_bytes);
            about_file(o->plot, [&] { plot_stats(stats, title, o->plot); });
        }
        if (o->json) print_json(to_json(stats, file));
        else print_text(stats, file);
    };
}

}  // namespace bitplane::cli
