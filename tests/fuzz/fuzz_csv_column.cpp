// libFuzzer target: the CSV column reader of `bitplane pack --csv` (tools/csv_column.hpp) on
// arbitrary text. The first byte picks the options (column by index 1..4 or by the name "b",
// delimiter, header mode, empty cells as zero, signedness); the second byte where the text is
// cut into pieces. Reading the text at once and fed in pieces must agree exactly: the same
// values, or the same parse_error message. Values read back from a CSV written from them.
#include "csv_column.hpp"

#include <bitplane/error.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct outcome {
    std::vector<std::uint32_t> values;
    std::optional<std::string> error;
    bool operator==(const outcome&) const = default;
};

bitplane::cli::csv_options options_of(std::uint8_t b) {
    bitplane::cli::csv_options o;
    static constexpr const char* columns[] = {"1", "2", "3", "4", "b", "1", "2", "b"};
    static constexpr char delimiters[] = {',', ';', '\t', '|'};
    static constexpr bitplane::cli::header_mode headers[] = {
        bitplane::cli::header_mode::detect, bitplane::cli::header_mode::present, bitplane::cli::header_mode::absent,
        bitplane::cli::header_mode::detect};
    o.column = columns[b & 7];
    o.delimiter = delimiters[(b >> 3) & 3];
    o.header = headers[(b >> 5) & 3];
    o.null_as_zero = (b & 0x80) != 0;
    o.is_signed = (b & 0x40) != 0;
    return o;
}

template <class F>
outcome run(F&& read) {
    outcome r;
    try {
        r.values = read();
    } catch (const bitplane::parse_error& e) {
        r.error = e.what();
    } catch (const bitplane::argument_error& e) {
        r.error = std::string("argument: ") + e.what();  // impossible options (a name without a header)
    }
    return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const bitplane::cli::csv_options options = options_of(data[0]);
    const std::size_t piece = 1 + data[1];
    const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);

    const outcome whole = run([&] { return bitplane::cli::parse_csv_column(text, options).values; });
    const outcome pieces = run([&] {
        bitplane::cli::csv_column_reader reader(options);
        std::vector<std::uint32_t> out;
        for (std::size_t at = 0; at < text.size(); at += piece) reader.feed(text.substr(at, piece), out);
        reader.finish(out);
        return out;
    });
    if (!(whole == pieces)) std::abort();
    if (whole.error) return 0;

    // The values, written as a one-column CSV without header, read back the same.
    std::string csv;
    for (const std::uint32_t v : whole.values) {
        csv += options.is_signed ? std::to_string(static_cast<std::int32_t>(v)) : std::to_string(v);
        csv += '\n';
    }
    bitplane::cli::csv_options plain;
    plain.header = bitplane::cli::header_mode::absent;
    plain.is_signed = options.is_signed;
    if (bitplane::cli::parse_csv_column(csv, plain).values != whole.values) std::abort();
    return 0;
}
