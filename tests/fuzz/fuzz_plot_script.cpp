// libFuzzer target: the gnuplot script of `bitplane stats --plot` (tools/gnuplot_script.cpp),
// which carries user text: the title names the input file, the paths come from TMPDIR. A line
// end or an unbalanced quote in that text would end a string literal and let the rest run as
// gnuplot commands (`!cmd` runs a shell command: issue #14, finding 2).
//
// Input: byte 0 the length of the directory text (at most the rest), then the directory, then
// the title. The script must be refused (io_error) exactly when the directory holds a control
// character; otherwise, read as gnuplot reads it, every line ends outside any string, the
// script holds no control character but its line feeds, its commands outside the strings are
// those of the script for a plain title and directory, and its strings read back as the title
// (control characters shown as '?') and the paths in the directory.
#include "gnuplot_script.hpp"

#include <bitplane/error.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::array<std::string_view, 3> series = {"zero", "raw", "runs"};

bool is_control(char c) noexcept { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; }

struct reading {
    std::string commands;              // the script with every string literal replaced by "S"
    std::vector<std::string> strings;  // the string literals' contents, in order
};

// Reads the script as gnuplot's lexer does: single-quoted strings ('' is a quote), double-quoted
// strings (backslash escapes), one command per line. Aborts when a line ends inside a string.
reading read_script(std::string_view script) {
    reading r;
    std::size_t i = 0;
    while (i < script.size()) {
        const char c = script[i];
        if (c == '\n' || c == '\\' || (is_control(c) && c != '\n')) {
            if (c != '\n') std::abort();  // no CR, no other control character, no continuation
            r.commands += c;
            ++i;
            continue;
        }
        if (c != '\'' && c != '"') {
            r.commands += c;
            ++i;
            continue;
        }
        std::string content;
        ++i;
        for (;; ++i) {
            if (i == script.size() || script[i] == '\n') std::abort();  // the line ends inside a string
            if (c == '\'' && script[i] == '\'') {
                if (i + 1 < script.size() && script[i + 1] == '\'') {
                    content += '\'';
                    ++i;
                    continue;
                }
                break;
            }
            if (c == '"' && script[i] == '\\') {
                if (++i == script.size() || script[i] == '\n') std::abort();
                content += script[i];
                continue;
            }
            if (c == '"' && script[i] == '"') break;
            content += script[i];
        }
        ++i;
        r.commands += 'S';
        r.strings.push_back(std::move(content));
    }
    return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::size_t split = std::min<std::size_t>(data[0], size - 1);
    const std::string_view directory(reinterpret_cast<const char*>(data + 1), split);
    const std::string_view title(reinterpret_cast<const char*>(data + 1 + split), size - 1 - split);
    const bool refused = std::any_of(directory.begin(), directory.end(), is_control);
    std::string script;
    try {
        script = bitplane::cli::stats_plot_script(title, directory, series);
    } catch (const bitplane::io_error&) {
        if (!refused) std::abort();
        return 0;
    }
    if (refused) std::abort();
    const reading got = read_script(script);
    static const reading plain = read_script(bitplane::cli::stats_plot_script("t", "/d", series));
    if (got.commands != plain.commands || got.strings.size() != plain.strings.size()) std::abort();
    std::string shown(title);
    std::replace_if(shown.begin(), shown.end(), is_control, '?');
    const std::string dir(directory);
    for (std::size_t k = 0; k < plain.strings.size(); ++k) {
        const std::string& p = plain.strings[k];
        std::string expected = p;
        if (p == "t") expected = shown;
        else if (p.rfind("/d/", 0) == 0) expected = dir + p.substr(2);
        if (got.strings[k] != expected) std::abort();
    }
    return 0;
}
