// bitplane unpack IN.bp -o OUT: the values back as little-endian binary (byte-exact with what
// pack read) or, with --csv, as text, one value per line. Decoded 1M values at a time.
// A packed DNA file (pack --dna) is written back as its FASTA text, byte for byte.
#include "cli_error.hpp"
#include "commands.hpp"
#include "output_file.hpp"
#include "packed_file.hpp"
#include "report.hpp"

#include <charconv>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace bitplane::cli {

namespace {

struct unpack_options {
    std::string input;
    std::string output;
    bool csv = false;
    std::string header;
    bool json = false;
};

constexpr std::size_t chunk_values = std::size_t{1} << 20;

template <class T>
void write_values(const vector<T>& column, output_file& out, bool csv, const std::string& header) {
    std::vector<T> values(std::min<std::size_t>(chunk_values, column.size()));
    std::string text;
    if (csv && !header.empty()) out.write(header + "\n");
    for (std::size_t first = 0; first < column.size(); first += chunk_values) {
        const std::size_t n = std::min(chunk_values, column.size() - first);
        column.decode(first, std::span<T>(values).first(n));
        if (!csv) {
            out.write(std::as_bytes(std::span<const T>(values).first(n)));
            continue;
        }
        text.resize(n * 12);  // at most 11 characters ("-2147483648") and a line end per value
        char* at = text.data();
        for (std::size_t i = 0; i < n; ++i) {
            at = std::to_chars(at, text.data() + text.size(), values[i]).ptr;
            *at++ = '\n';
        }
        out.write(std::string_view(text.data(), static_cast<std::size_t>(at - text.data())));
    }
}

void unpack_dna(const packed_dna& in, const unpack_options& o, bool quiet) {
    if (o.csv) throw usage_failure("--csv: " + in.path + " is a packed DNA file, which unpacks to FASTA");
    std::uint64_t written = 0;
    about_file(o.output, [&] {
        output_file out(o.output);
        out.write(in.fasta.to_text());
        out.commit();
        written = out.bytes_written();
    });
    const std::uint64_t letters = in.fasta.letters().size();
    if (o.json) {
        print_json({{"input", in.path}, {"output", o.output}, {"format", "fasta"}, {"records", in.fasta.size()},
                    {"letters", letters}, {"output_bytes", written}});
    } else if (!quiet && o.output != "-") {
        std::printf("%s -> %s: %zu FASTA records, %llu letters, %s\n", in.path.c_str(), o.output.c_str(),
                    in.fasta.size(), static_cast<unsigned long long>(letters), human_bytes(written).c_str());
    }
}

}  // namespace

command_runner add_unpack(CLI::App& root, const global_options& global) {
    auto o = std::make_shared<unpack_options>();
    CLI::App* c = root.add_subcommand("unpack", "Decompress a .bp file back to raw values or CSV text");
    c->footer("Binary output is byte for byte the input that `bitplane pack` read; a packed DNA file (pack --dna)\n"
              "gives back its FASTA file byte for byte. OUT - writes to stdout.");
    c->add_option("INPUT", o->input, "The .bp file")->required();
    c->add_option("-o,--output", o->output, "File to write, or - for standard output")->required();
    auto* csv = c->add_flag("--csv", o->csv, "Write text, one value per line, instead of binary");
    c->add_option("--header", o->header, "With --csv: a first line naming the column")->needs(csv);
    c->add_flag("--json", o->json, "Print a summary as JSON");
    return [o, &global] {
        if (o->json && o->output == "-")
            throw usage_failure("--json and -o - would both write to standard output: choose one");
        any_packed loaded = load_any(o->input);
        if (const auto* dna = std::get_if<packed_dna>(&loaded)) return unpack_dna(*dna, *o, global.quiet);
        const packed_file& in = std::get<packed_file>(loaded);
        std::uint64_t written = 0;
        about_file(o->output, [&] {
            output_file out(o->output);
            std::visit([&](const auto& column) { write_values(column, out, o->csv, o->header); }, in.column);
            out.commit();
            written = out.bytes_written();
        });
        const std::uint64_t values = std::visit([](const auto& v) { return static_cast<std::uint64_t>(v.size()); }, in.column);
        if (o->json) {
            print_json({{"input", o->input}, {"output", o->output}, {"format", o->csv ? "csv" : "binary"},
                        {"type", type_name(in.column)}, {"values", values}, {"output_bytes", written}});
        } else if (!global.quiet && o->output != "-") {
            std::printf("%s -> %s: %llu %s values, %s\n", o->input.c_str(), o->output.c_str(),
                        static_cast<unsigned long long>(values), type_name(in.column), human_bytes(written).c_str());
        }
    };
}

}  // namespace bitplane::cli
