// The input formats `bitplane pack` reads, one function each (pack_binary.cpp, pack_csv.cpp,
// pack_dna.cpp). Each streams its input through a vector_writer into an output_file, never
// holding the input: memory is the encoded output plus a chunk of input.
//
// Adding a format: a pack_<format>.cpp with its function here, its options in cmd_pack.cpp,
// and a row in docs/cli.md. FASTA (pack_dna.cpp) is read whole: the DNA library packs whole files.
#pragma once

#include "input_file.hpp"

#include "csv_column.hpp"

#include <bitplane/dna/fasta.hpp>

#include <cstdint>
#include <string>

namespace bitplane::cli {

/// What a pack did, for the summary line and --json.
struct pack_result {
    std::string format;              ///< "binary", "csv", "dna", "dna-modeled"
    const char* type = "uint32";     ///< value type of the column written ("letters" for DNA)
    std::uint64_t values = 0;        ///< values, or letters for DNA
    std::uint64_t input_bytes = 0;   ///< bytes of input read (uncompressed)
    std::uint64_t output_bytes = 0;  ///< bytes of the .bp file
    double seconds = 0;              ///< wall time, opening the input to renaming the output
    std::string column;              ///< CSV: the column's header name or "column N"
    std::uint64_t records = 0;       ///< DNA: FASTA records
    std::uint64_t twobit_bytes = 0;  ///< DNA: size of the UCSC .2bit file of the same sequences
};

struct pack_target {
    std::string input;   ///< path or "-"
    std::string output;  ///< path of the .bp file
    bool is_signed = false;
    bool progress = true;  ///< draw a progress bar when stderr is a terminal
    input_kind kind = input_kind::detect;  ///< gzip or not: by the first bytes, or as told (--input-type)
};

/// Little-endian 32-bit values, 4 bytes each (the input size must be a multiple of 4).
pack_result pack_binary(const pack_target& target);

/// One column of a CSV file (options.is_signed is taken from the target).
pack_result pack_csv(const pack_target& target, csv_options options);

/// FASTA sequences (plain or gzip) as a packed DNA file (docs/format.md section 6), letters
/// stored as `mode` says. FASTQ input is refused (parse_error: no packed FASTQ format yet).
pack_result pack_dna(const pack_target& target, dna::pack_mode mode);

}  // namespace bitplane::cli
