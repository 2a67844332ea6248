// The gnuplot script behind `bitplane stats --plot` (plot.cpp runs it). Apart from plot.cpp so
// that the script text, which carries user text (the title names the input file; the paths
// come from TMPDIR), can be fuzzed on its own (tests/fuzz/fuzz_plot_script.cpp).
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace bitplane::cli {

/// `s` as a gnuplot single-quoted string literal: a quote is written twice, and nothing else
/// is special inside one (no backslash escapes, no backquote or macro substitution) except a
/// line end, which ends the command: a line feed in the text would let the rest of it run as
/// gnuplot commands (`!cmd` is a shell command). io_error when `s` holds a control character.
[[nodiscard]] std::string gnuplot_quoted(std::string_view s);

/// User text with every control character (below 0x20, and 0x7F) shown as '?'.
[[nodiscard]] std::string gnuplot_printable(std::string_view s);

/// The script: draws `directory`/matrix.dat (32 x 32 agreement percentages) and
/// `directory`/encodings.dat (a plane number and one block count per name of `series`) into
/// `directory`/plot.png, titled `title` (user text, shown with control characters as '?').
/// io_error when `directory` holds a control character.
[[nodiscard]] std::string stats_plot_script(std::string_view title, std::string_view directory,
                                            std::span<const std::string_view> series);

}  // namespace bitplane::cli
