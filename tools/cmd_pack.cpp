// bitplane pack INPUT -o OUT.bp: binary (default), --csv COLUMN, or --dna (FASTA, [--modeled]).
#include "cli_error.hpp"
#include "commands.hpp"
#include "pack_formats.hpp"
#include "report.hpp"

#include <cstdio>
#include <map>
#include <memory>
#include <string>

namespace bitplane::cli {

namespace {

struct pack_options {
    std::string input;
    std::string output;
    bool is_signed = false;
    std::string csv_column;
    std::string delimiter = ",";
    bool header = false;
    bool no_header = false;
    bool null_as_zero = false;
    bool dna = false;
    bool modeled = false;
    bool json = false;
    input_kind kind = input_kind::detect;
};

char delimiter_of(const std::string& text) {
    if (text == "\\t" || text == "tab") return '\t';
    if (text.size() != 1) throw usage_failure("--delimiter must be one character (or \"tab\"), not \"" + text + "\"");
    return text[0];
}

void report_dna(const pack_target& target, const pack_result& r, bool json, bool quiet) {
    const auto per_letter = [&](std::uint64_t bytes) {
        return r.values ? 8.0 * static_cast<double>(bytes) / static_cast<double>(r.values) : 0.0;
    };
    if (json) {
        print_json({{"input", target.input},
                    {"output", target.output},
                    {"format", r.format},
                    {"records", r.records},
                    {"letters", r.values},
                    {"input_bytes", r.input_bytes},
                    {"output_bytes", r.output_bytes},
                    {"bits_per_base", per_letter(r.output_bytes)},
                    {"twobit_bytes", r.twobit_bytes},
                    {"seconds", r.seconds}});
        return;
    }
    if (quiet) return;
    std::printf("%s -> %s: %llu record%s, %llu letters, %s FASTA -> %s (%.3f bits/base; UCSC 2bit: %s, %.3f bits/base) "
                "in %.3f s\n",
                target.input.c_str(), target.output.c_str(), static_cast<unsigned long long>(r.records),
                r.records == 1 ? "" : "s", static_cast<unsigned long long>(r.values), human_bytes(r.input_bytes).c_str(),
                human_bytes(r.output_bytes).c_str(), per_letter(r.output_bytes), human_bytes(r.twobit_bytes).c_str(),
                per_letter(r.twobit_bytes), r.seconds);
}

void report(const pack_target& target, const pack_result& r, bool json, bool quiet) {
    if (r.format.starts_with("dna")) return report_dna(target, r, json, quiet);
    const double raw = 4.0 * static_cast<double>(r.values);
    const double bits = r.values ? 8.0 * static_cast<double>(r.output_bytes) / static_cast<double>(r.values) : 0;
    const double rate = r.seconds > 0 ? static_cast<double>(r.input_bytes) / r.seconds / 1e9 : 0;
    if (json) {
        nlohmann::json j = {{"input", target.input},         {"output", target.output},
                            {"format", r.format},            {"type", r.type},
                            {"values", r.values},            {"input_bytes", r.input_bytes},
                            {"output_bytes", r.output_bytes}, {"bits_per_value", bits},
                            {"seconds", r.seconds},          {"input_gb_per_s", rate}};
        if (!r.column.empty()) j["column"] = r.column;
        print_json(j);
        return;
    }
    if (quiet) return;
    std::printf("%s -> %s: %llu %s values%s%s, %s -> %s (%.2f bits/value, ratio %.2f to 4-byte values) in %.3f s "
                "(%.2f GB/s of input)\n",
                target.input.c_str(), target.output.c_str(), static_cast<unsigned long long>(r.values), r.type,
                r.column.empty() ? "" : " from ", r.column.c_str(), human_bytes(r.input_bytes).c_str(),
                human_bytes(r.output_bytes).c_str(), bits, r.output_bytes ? raw / static_cast<double>(r.output_bytes) : 0,
                r.seconds, rate);
}

}  // namespace

command_runner add_pack(CLI::App& root, const global_options& global) {
    auto o = std::make_shared<pack_options>();
    CLI::App* c = root.add_subcommand("pack", "Compress a column of integers into a .bp file");
    c->footer(
        "Input formats:\n"
        "  binary (default)  little-endian 32-bit values, 4 bytes each\n"
        "  --csv COLUMN      one column of a CSV file, by header name or 1-based index\n"
        "  --dna             FASTA sequences (plain or gzip), byte-exact; --modeled: smaller, slower\n"
        "                    (FASTQ is not packed yet)\n"
        "Input may be gzip-compressed (detected from its first bytes, or say --input-type gzip|plain);\n"
        "INPUT - reads stdin.\n"
        "The output is written to OUT.partial-XXXXXX and renamed to OUT when complete.");
    c->add_option("INPUT", o->input, "Input file, or - for standard input")->required();
    c->add_option("-o,--output", o->output, "The .bp file to write")->required();
    add_type_option(*c, o->is_signed, "the values");
    auto* csv = c->add_option("--csv", o->csv_column, "Read CSV and pack this column (header name or 1-based index)");
    c->add_option("--delimiter", o->delimiter, "CSV field delimiter: one character, or \"tab\" (default ,)")
        ->needs(csv);
    auto* header = c->add_flag("--header", o->header, "The CSV's first line is a header (default: detected)")->needs(csv);
    c->add_flag("--no-header", o->no_header, "The CSV has no header line")->needs(csv)->excludes(header);
    c->add_flag("--null-as-zero", o->null_as_zero, "Read empty CSV cells as 0 instead of rejecting them")->needs(csv);
    auto* dna = c->add_flag("--dna", o->dna, "Read FASTA sequences and write a packed DNA file")->excludes(csv);
    c->add_flag("--modeled", o->modeled,
                "With --dna: code the bases with a context-mixing model (about 1.6-1.95 bits/base, MB/s)")
        ->needs(dna);
    c->add_flag("--json", o->json, "Print the summary as JSON");
    static const std::map<std::string, input_kind> kinds = {
        {"auto", input_kind::detect}, {"gzip", input_kind::gzip}, {"plain", input_kind::plain}};
    c->add_option("--input-type", o->kind,
                  "Whether INPUT is gzip-compressed: auto (default: from its first bytes), gzip or plain")
        ->transform(CLI::CheckedTransformer(kinds, CLI::ignore_case))
        ->option_text("auto|gzip|plain");

    return [o, csv, &global] {
        pack_target target{o->input, o->output, o->is_signed, !global.quiet, o->kind};
        pack_result result;
        if (o->dna) {
            result = pack_dna(target, o->modeled ? dna::pack_mode::modeled : dna::pack_mode::planes);
        } else if (csv->count() > 0) {
            csv_options options;
            options.column = o->csv_column;
            options.delimiter = delimiter_of(o->delimiter);
            options.header = o->header ? header_mode::present : o->no_header ? header_mode::absent : header_mode::detect;
            options.null_as_zero = o->null_as_zero;
            result = pack_csv(target, options);
        } else {
            result = pack_binary(target);
        }
        report(target, result, o->json, global.quiet);
    };
}

}  // namespace bitplane::cli
