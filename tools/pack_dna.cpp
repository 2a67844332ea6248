// FASTA input (`bitplane pack --dna`, issue #5): the file (plain or gzip, or stdin) is read
// whole, parsed by bitplane::dna::fasta (byte-exact: headers, line layout, line ends kept) and
// written as a packed DNA file (docs/format.md section 6) through output_file. Unlike the
// column formats this holds the input text and the parsed sequence at once: the DNA library
// parses and packs whole files.
//
// FASTQ: the library reads it (dna::fastq) but has no packed FASTQ format yet, so FASTQ input
// is refused as bad input (exit 2) with a message saying so.
#include "cli_error.hpp"
#include "input_file.hpp"
#include "output_file.hpp"
#include "pack_formats.hpp"
#include "progress.hpp"

#include <bitplane/dna/fasta.hpp>
#include <bitplane/error.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace bitplane::cli {

namespace {

std::string read_text(input_file& in, bool show_progress) {
    progress bar("read " + in.path(), in.size_on_disk(), show_progress);
    std::string text(static_cast<std::size_t>(std::max<std::uint64_t>(in.size_on_disk(), 1 << 16)), '\0');
    std::size_t have = 0;
    for (;;) {
        have += in.read(std::as_writable_bytes(std::span<char>(text)).subspan(have));
        bar.update(in.disk_position());
        if (have < text.size()) break;
        text.resize(text.size() * 2);
    }
    text.resize(have);
    return text;
}

}  // namespace

pack_result pack_dna(const pack_target& target, dna::pack_mode mode) {
    const auto start = std::chrono::steady_clock::now();
    // The output first: a destination that cannot be written fails before any work is done.
    const auto out = about_file(target.output, [&] { return std::make_unique<output_file>(target.output); });
    pack_result result;
    result.format = mode == dna::pack_mode::modeled ? "dna-modeled" : "dna";
    result.type = "letters";
    std::vector<std::byte> packed;
    about_file(target.input, [&] {
        input_file in(target.input, target.kind);
        const std::string text = read_text(in, target.progress);
        result.input_bytes = text.size();
        const std::size_t first = text.find_first_not_of(" \t\r\n");
        if (first != std::string::npos && text[first] == '@')
            throw parse_error("FASTQ input: packing FASTQ is not supported yet (--dna packs FASTA files, which start "
                              "with '>')");
        const dna::fasta f = dna::fasta::parse(text);
        result.values = f.letters().size();
        result.records = f.size();
        result.twobit_bytes = dna::twobit_bytes(f);
        dna::pack(f, packed, mode);
    });
    about_file(target.output, [&] {
        out->write(packed);
        out->commit();
        result.output_bytes = out->bytes_written();
    });
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

}  // namespace bitplane::cli
