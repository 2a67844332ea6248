// The genome part of `bitplane demo` (demo_genome.cpp): a real genome packed as `bitplane pack
// --dna` packs it, its size against UCSC 2bit, gzip and zstd, an exact round trip, and the DNA
// operations on planes timed against byte-string loops. Without --genome it is the lambda phage
// genome compiled into the program (tools/data/README.md), so the demo needs no file and no
// network.
#pragma once

#include "pack_formats.hpp"
#include "packed_file.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace bitplane::cli {

/// The built-in genome as a gzip file (tools/data/lambda_phage.fa.gz), compiled in: the
/// definition is generated at build time by tools/embed_file.cmake.
[[nodiscard]] std::span<const std::byte> builtin_genome_gz();

struct genome_demo_options {
    std::string dir;     ///< where the files go
    std::string genome;  ///< a FASTA file (plain or gzip); empty: the built-in genome
};

/// One packed form of the genome: what pack_dna did, and whether the file loads back to the
/// input text byte for byte.
struct genome_pack {
    const char* label = "";
    pack_result packed;
    bool round_trip = false;
};

/// The genome packed and loaded back, ready for the report.
struct genome_demo {
    std::string source;   ///< what it is, for the report's first line
    std::string fasta;    ///< the FASTA input (the built-in genome is written out as <dir>/lambda_phage.fa.gz)
    std::string planes;   ///< <dir>/<stem>.bp (pack --dna)
    std::string modeled;  ///< <dir>/<stem>.modeled.bp (pack --dna --modeled)
    std::string pattern;  ///< the k-mer the report searches for
    std::string text;     ///< the FASTA text, decompressed
    std::vector<genome_pack> packs;  ///< planes, then modeled
    packed_dna loaded;    ///< the planes file, loaded back
};

/// Writes the built-in genome out (or takes options.genome), packs it in both modes and loads
/// the files back. Called before the demo prints anything, so that a bad --genome fails at
/// once: errors name the file, exit 3 for I/O, 2 for a file that is no FASTA or has no letters.
[[nodiscard]] genome_demo prepare_genome_demo(const genome_demo_options& options);

/// Prints the genome part of the report on stdout: sizes against UCSC 2bit, gzip -9 and zstd
/// -19, and the DNA operations timed against byte-string loops (on the calling thread count:
/// the demo sets one). Returns whether every round trip was exact and every operation equal to
/// its byte-string loop.
[[nodiscard]] bool report_genome_demo(const genome_demo& genome);

}  // namespace bitplane::cli
