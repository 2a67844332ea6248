// The byte-string way of doing what bitplane::dna does on planes, for the demo to time and
// check against: the letters as one upper-case std::string and a plain loop per operation, as
// bench/bench_dna.cpp's baselines are (that file belongs to the benchmarks, so the demo keeps
// its own copy of these few loops).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bitplane::cli {

/// The letters of FASTA text: every line that does not start with '>', without its line end,
/// upper-cased. Read here without the library, so that it can check the library's parse.
[[nodiscard]] std::string fasta_letters_upper(std::string_view text);

/// Occurrences of each byte value (A, C, G, T, N ... by indexing with the letter).
[[nodiscard]] std::array<std::uint64_t, 256> byte_histogram(std::string_view letters);

/// The reverse complement by a 256-entry table (dna::complement_letter's pairs).
[[nodiscard]] std::string byte_reverse_complement(std::string_view letters);

/// Positions where a and b differ, case ignored (`(a[i] & 0xDF) != (b[i] & 0xDF)`, which GCC
/// vectorizes); a and b have the same length.
[[nodiscard]] std::uint64_t byte_mismatches(std::string_view a, std::string_view b);

/// Start positions of every occurrence of `pattern` in `text`, overlapping ones included
/// (a memmem loop).
[[nodiscard]] std::vector<std::uint64_t> byte_find_all(std::string_view text, std::string_view pattern);

}  // namespace bitplane::cli
