// The CSV column reader: a byte-at-a-time state machine (field start, unquoted, quoted,
// just after a quote inside a quoted field) whose state survives between feed() calls, so
// that a file is read in chunks of any size without ever holding a whole line. Only the
// selected column's cell is kept; the first record is looked at field by field to find the
// column by name or to decide whether it is a header.
#include "csv_column.hpp"

#include <bitplane/error.hpp>

#include <algorithm>
#include <charconv>
#include <limits>
#include <utility>

namespace bitplane::cli {

namespace {

constexpr std::size_t names_in_messages = 12;  // header names listed when a name is missing

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
    return s;
}

bool all_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The cell as it appears in a message: quoted, at most 40 bytes, control bytes escaped.
std::string shown(std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string out = "\"";
    for (const char c : s.substr(0, 40)) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f || c == '"' || c == '\\') {
            out += "\\x";
            out += hex[u >> 4];
            out += hex[u & 15];
        } else {
            out += c;
        }
    }
    if (s.size() > 40) out += "...";
    return out + "\"";
}

// Whether a first-record cell reads as data when the header is to be detected: an integer
// (whatever its range: an out-of-range number is a bad value, not a column name) or empty.
bool looks_like_data(std::string_view cell) {
    cell = trim(cell);
    if (cell.empty()) return true;
    if (cell.front() == '+' || cell.front() == '-') cell.remove_prefix(1);
    return all_digits(cell);
}

}  // namespace

csv_column_reader::csv_column_reader(csv_options options) : options_(std::move(options)) {
    if (options_.delimiter == '"' || options_.delimiter == '\n' || options_.delimiter == '\r')
        throw argument_error("the CSV delimiter cannot be a quote or a line end");
    if (options_.column.empty()) throw argument_error("empty CSV column name");
    if (all_digits(options_.column)) {
        std::size_t index = 0;
        const auto [end, ec] = std::from_chars(options_.column.data(), options_.column.data() + options_.column.size(), index);
        if (ec != std::errc() || index == 0 || index > (std::size_t{1} << 30))
            throw argument_error("CSV column index " + options_.column + " out of range (columns are numbered from 1)");
        wanted_index_ = index - 1;
    } else if (options_.header == header_mode::absent) {
        throw argument_error("CSV column \"" + options_.column + "\" is a name, but the file is said to have no header");
    }
    cell_.reserve(64);
}

void csv_column_reader::fail(std::uint64_t line, std::string_view what) const {
    throw parse_error(where(line) + ": " + std::string(what));
}

std::string csv_column_reader::where(std::uint64_t line) const {
    std::string out = "line " + std::to_string(line);
    if (column_known_) {
        out += ", column " + std::to_string(column_ + 1);
        if (header_name_) out += " (" + shown(*header_name_) + ")";
    }
    return out;
}

void csv_column_reader::keep(char c) {
    // The first record keeps every cell in turn (header candidates); later ones only the
    // selected column's.
    if (first_done_ && field_ != column_) return;
    if (cell_.size() >= max_csv_cell_bytes) {
        if (!first_done_) return;  // a long first-record cell cannot be a wanted name or number
        fail(record_line_, "cell longer than " + std::to_string(max_csv_cell_bytes) + " bytes");
    }
    cell_ += c;
}

void csv_column_reader::end_field() {
    if (!first_done_) {
        const std::string_view cell = trim(cell_);
        if (wanted_index_) {
            if (field_ == *wanted_index_) {
                first_fields_.assign(1, std::string(cell_));
                cell_seen_ = true;
            }
        } else {
            if (cell == options_.column) {
                if (!cell_seen_) column_ = field_;
                else duplicates_.push_back(field_);
                cell_seen_ = true;
            }
            if (first_fields_.size() < names_in_messages) first_fields_.emplace_back(cell);
        }
        cell_.clear();
    } else if (field_ == column_) {
        cell_seen_ = true;
    }
    ++field_;
}

void csv_column_reader::first_record(std::vector<std::uint32_t>& out) {
    first_done_ = true;
    if (!wanted_index_) {
        if (!cell_seen_) {
            std::string names;
            for (const std::string& name : first_fields_) names += (names.empty() ? "" : ", ") + shown(name);
            if (field_ > first_fields_.size()) names += ", ...";
            fail(record_line_, "no column named " + shown(options_.column) + " in the header (" + names + ")");
        }
        if (!duplicates_.empty()) {
            // Which one was meant cannot be told: taking the first silently packed the wrong column.
            std::string columns = std::to_string(column_ + 1);
            for (const std::size_t d : duplicates_) columns += ", " + std::to_string(d + 1);
            fail(record_line_, "the header names " + std::to_string(duplicates_.size() + 1) + " columns " +
                                   shown(options_.column) + " (columns " + columns +
                                   "): choose one by its number (--csv N)");
        }
        column_known_ = true;
        header_name_ = options_.column;
        return;
    }
    column_ = *wanted_index_;
    if (!cell_seen_)
        fail(record_line_, "the first record has " + std::to_string(field_) + " field" + (field_ == 1 ? "" : "s") +
                               ", no column " + std::to_string(column_ + 1));
    column_known_ = true;
    const std::string cell = std::move(first_fields_.front());
    first_fields_.clear();
    const bool header = options_.header == header_mode::present ||
                        (options_.header == header_mode::detect && !looks_like_data(cell));
    if (header) {
        header_name_ = std::string(trim(cell));
        return;
    }
    out.push_back(value_of(cell, record_line_));
    ++records_;
}

void csv_column_reader::end_record(std::vector<std::uint32_t>& out) {
    if (!first_done_) {
        first_record(out);
    } else {
        if (!cell_seen_)
            fail(record_line_, "the record has " + std::to_string(field_) + " field" + (field_ == 1 ? "" : "s") +
                                   ", no column " + std::to_string(column_ + 1));
        out.push_back(value_of(cell_, record_line_));
        ++records_;
    }
    cell_.clear();
    cell_seen_ = false;
    field_ = 0;
    record_bytes_ = 0;
}

std::uint32_t csv_column_reader::value_of(std::string_view cell, std::uint64_t line) const {
    cell = trim(cell);
    if (cell.empty()) {
        if (options_.null_as_zero) return 0;
        fail(line, "empty cell (--null-as-zero reads empty cells as 0)");
    }
    std::string_view digits = cell;
    const bool negative = digits.front() == '-';
    if (digits.front() == '+' || digits.front() == '-') digits.remove_prefix(1);
    if (!all_digits(digits)) fail(line, shown(cell) + " is not an integer");
    std::uint64_t magnitude = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
    const char* type = options_.is_signed ? "int32" : "uint32";
    if (ec != std::errc() || end != digits.data() + digits.size())
        fail(line, shown(cell) + " is outside the " + type + " range");
    if (!options_.is_signed) {
        if (negative && magnitude != 0)
            fail(line, shown(cell) + " is negative, outside the uint32 range (--type i32 reads negative values)");
        if (magnitude > std::numeric_limits<std::uint32_t>::max()) fail(line, shown(cell) + " is outside the uint32 range");
        return static_cast<std::uint32_t>(magnitude);
    }
    const std::uint64_t limit = negative ? std::uint64_t{1} << 31 : (std::uint64_t{1} << 31) - 1;
    if (magnitude > limit) fail(line, shown(cell) + " is outside the int32 range");
    // Two's complement bits of the value (the int32 column's pattern).
    return negative ? static_cast<std::uint32_t>(0u - static_cast<std::uint32_t>(magnitude))
                    : static_cast<std::uint32_t>(magnitude);
}

void csv_column_reader::feed(std::string_view bytes, std::vector<std::uint32_t>& out) {
    // A UTF-8 byte order mark at the start of the input is no part of the first cell (it made
    // a first number read as a header name). It may arrive split across pieces.
    constexpr std::string_view bom = "\xEF\xBB\xBF";
    if (!bom_settled_) {
        std::size_t used = 0;
        while (used < bytes.size() && bom_seen_.size() < bom.size() && bytes[used] == bom[bom_seen_.size()])
            bom_seen_ += bytes[used++];
        bytes.remove_prefix(used);
        if (bom_seen_.size() < bom.size() && bytes.empty()) return;  // a prefix of it so far
        bom_settled_ = true;
        if (bom_seen_.size() < bom.size()) parse(bom_seen_, out);  // not a mark after all: text
        bom_seen_.clear();
    }
    parse(bytes, out);
}

void csv_column_reader::parse(std::string_view bytes, std::vector<std::uint32_t>& out) {
    const char delimiter = options_.delimiter;
    for (const char c : bytes) {
        if (c == '\n') ++line_;
        switch (state_) {
            case state::field_start:
                if (c == '"') {
                    state_ = state::quoted;
                    ++record_bytes_;
                } else if (c == delimiter) {
                    end_field();
                    ++record_bytes_;
                } else if (c == '\n') {
                    // A line with nothing on it (or only "\r") is skipped, not an empty record.
                    if (record_bytes_ != 0 || field_ != 0) {
                        end_field();
                        end_record(out);
                    } else {
                        cell_.clear();
                    }
                    record_line_ = line_;
                } else {
                    keep(c);
                    if (c != '\r') ++record_bytes_;
                    state_ = state::unquoted;
                }
                break;
            case state::unquoted:
                if (c == delimiter) {
                    end_field();
                    state_ = state::field_start;
                } else if (c == '\n') {
                    end_field();
                    if (record_bytes_ != 0 || field_ != 1) {
                        end_record(out);
                    } else {  // the line held only "\r"
                        cell_.clear();
                        cell_seen_ = false;
                        field_ = 0;
                        if (!first_done_) first_fields_.clear();
                    }
                    record_line_ = line_;
                    state_ = state::field_start;
                } else {
                    keep(c);
                    if (c != '\r') ++record_bytes_;
                }
                break;
            case state::quoted:
                if (c == '"') state_ = state::quote_in_quoted;
                else keep(c);
                break;
            case state::quote_in_quoted:
                if (c == '"') {
                    keep('"');
                    state_ = state::quoted;
                } else if (c == delimiter) {
                    end_field();
                    state_ = state::field_start;
                } else if (c == '\n') {
                    end_field();
                    end_record(out);
                    record_line_ = line_;
                    state_ = state::field_start;
                } else if (!is_blank(c)) {
                    // The line of the offending character, which a multi-line cell may have moved.
                    fail(line_, "unexpected " + shown(std::string_view(&c, 1)) + " after the closing quote of a field");
                }
                break;
        }
    }
}

void csv_column_reader::finish(std::vector<std::uint32_t>& out) {
    if (!bom_settled_) {  // input shorter than a byte order mark, and a prefix of one
        bom_settled_ = true;
        parse(std::exchange(bom_seen_, std::string()), out);
    }
    if (state_ == state::quoted) fail(record_line_, "a quoted field is not closed at the end of the input");
    // A last record without a line end; an input ending in a line end has nothing pending.
    if (state_ != state::field_start || field_ != 0) feed("\n", out);
    if (!first_done_ && !wanted_index_)
        throw parse_error("line " + std::to_string(line_) + ": the input has no header, so no column named " +
                          shown(options_.column));
}

csv_column parse_csv_column(std::string_view text, const csv_options& options) {
    csv_column_reader reader(options);
    csv_column result;
    reader.feed(text, result.values);
    reader.finish(result.values);
    result.header_name = reader.header_name();
    result.column_index = reader.column_index();
    return result;
}

}  // namespace bitplane::cli
