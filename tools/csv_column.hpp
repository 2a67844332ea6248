// Reading one integer column out of CSV text, for `bitplane pack --csv`.
//
// Records follow RFC 4180: fields separated by the delimiter, records by "\n" or "\r\n";
// a field may be quoted ("..."), holding delimiters, line ends and doubled quotes ("").
// Lenient where files commonly are: a quote inside an unquoted field is a plain character,
// and lines that are entirely empty are skipped (as pandas does). Strict where a wrong
// number would follow: the selected cell, once unquoted and stripped of surrounding spaces
// and tabs, must be an optional sign and decimal digits within the value type's range;
// anything else, an empty cell (unless null_as_zero) and a record too short to have the
// column are parse_errors naming the line and column. The cell is limited to 4096 bytes.
//
// A UTF-8 byte order mark at the start of the input is skipped.
//
// The column is chosen by name (the header must be there and hold it exactly once: a name
// that two columns share is a parse_error naming them) or by 1-based index.
// With an index and header_mode::detect, the first record is a header when its cell in that
// column is neither empty nor a valid number.
//
// Untrusted input: the reader keeps at most one cell of the selected column and the header
// names; memory does not grow with field or line length elsewhere. Thread safety: none
// needed (no shared state); one reader per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bitplane::cli {

enum class header_mode { detect, present, absent };

struct csv_options {
    /// Header name, or a 1-based column index written in decimal digits.
    std::string column = "1";
    char delimiter = ',';
    header_mode header = header_mode::detect;
    /// Empty cells read as 0 instead of being errors.
    bool null_as_zero = false;
    /// int32 values (two's complement bits in the output) instead of uint32.
    bool is_signed = false;
};

/// Longest cell of the selected column (and header name) accepted.
inline constexpr std::size_t max_csv_cell_bytes = 4096;

/// A streaming reader: feed the file's bytes in pieces of any size, then finish().
/// Errors are bitplane::parse_error ("line L, column C (name): what"); options that make no
/// sense (index 0, a name with header_mode::absent, a delimiter that is a quote or a line
/// end) are bitplane::argument_error from the constructor. After an error the reader is
/// unusable.
class csv_column_reader {
public:
    explicit csv_column_reader(csv_options options);

    /// Parses `bytes`; the values of every record completed in them are appended to `out`
    /// (as 32-bit patterns).
    void feed(std::string_view bytes, std::vector<std::uint32_t>& out);
    /// End of input: completes a last record that has no line end.
    void finish(std::vector<std::uint32_t>& out);

    /// The header's name of the selected column, when the file has a header (known once the
    /// first record is complete).
    [[nodiscard]] const std::optional<std::string>& header_name() const noexcept { return header_name_; }
    /// 0-based index of the selected column (known once the first record is complete).
    [[nodiscard]] std::size_t column_index() const noexcept { return column_; }
    /// Data records read so far (header excluded).
    [[nodiscard]] std::uint64_t records() const noexcept { return records_; }

private:
    enum class state : std::uint8_t { field_start, unquoted, quoted, quote_in_quoted };

    void parse(std::string_view bytes, std::vector<std::uint32_t>& out);
    void end_field();
    void end_record(std::vector<std::uint32_t>& out);
    void first_record(std::vector<std::uint32_t>& out);
    void keep(char c);
    [[noreturn]] void fail(std::uint64_t line, std::string_view what) const;
    [[nodiscard]] std::string where(std::uint64_t line) const;
    [[nodiscard]] std::uint32_t value_of(std::string_view cell, std::uint64_t line) const;

    csv_options options_;
    std::optional<std::size_t> wanted_index_;  // from options (0-based), when given as index
    std::size_t column_ = 0;                   // the selected column, 0-based
    bool column_known_ = false;                // false until the first record settles it
    std::optional<std::string> header_name_;

    state state_ = state::field_start;
    std::uint64_t line_ = 1;          // physical line being read
    std::uint64_t record_line_ = 1;   // line where the current record started
    std::size_t field_ = 0;           // index of the field being read in the record
    std::size_t record_bytes_ = 0;    // bytes in the current record so far (blank-line test)
    bool cell_seen_ = false;          // the record reached the selected column
    std::string cell_;                // the selected column's text in the current record
    bool cell_quoted_ = false;
    std::vector<std::string> first_fields_;  // the first record's fields (header candidates)
    std::vector<std::size_t> duplicates_;     // later header columns named like the wanted one
    std::string bom_seen_;                    // bytes of a UTF-8 byte order mark seen so far
    bool bom_settled_ = false;                // past the start of the input
    bool first_done_ = false;
    std::uint64_t records_ = 0;
};

/// The whole of a CSV text at once (tests, fuzzing).
struct csv_column {
    std::vector<std::uint32_t> values;
    std::optional<std::string> header_name;
    std::size_t column_index = 0;
};
[[nodiscard]] csv_column parse_csv_column(std::string_view text, const csv_options& options);

}  // namespace bitplane::cli
