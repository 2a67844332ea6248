// What the commands do with a packed DNA file (pack --dna): stats, gc and find (cmd_dna.cpp).
// unpack writes it back itself (cmd_unpack.cpp).
#pragma once

#include "packed_file.hpp"

#include <cstdint>
#include <string>

namespace bitplane::cli {

/// `bitplane stats` of a packed DNA file: records, letters, sizes against FASTA and UCSC 2bit,
/// bits per base, blocks and how the letter-code planes are stored.
void print_dna_stats(const packed_dna& file, bool json);

/// `bitplane find IN.bp PATTERN` on a packed DNA file: every occurrence of `pattern` (IUPAC
/// codes allowed, case ignored) inside a record, as "record<TAB>position" (0-based in the
/// record), at most `limit` of them printed.
void print_dna_find(const packed_dna& file, const std::string& pattern, std::uint64_t limit, bool json);

}  // namespace bitplane::cli
