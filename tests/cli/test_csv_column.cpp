// The CSV column reader (tools/csv_column.hpp): what it accepts and returns, every error with
// its line and column, and that feeding a text in pieces split anywhere gives exactly what
// parsing it whole gives (values, or the same error).
#include "csv_column.hpp"

#include <bitplane/error.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

using bitplane::cli::csv_column;
using bitplane::cli::csv_column_reader;
using bitplane::cli::csv_options;
using bitplane::cli::header_mode;
using bitplane::cli::parse_csv_column;
using values = std::vector<std::uint32_t>;

csv_options column(std::string c, header_mode h = header_mode::detect) {
    csv_options o;
    o.column = std::move(c);
    o.header = h;
    return o;
}

csv_options signed_column(std::string c) {
    csv_options o = column(std::move(c));
    o.is_signed = true;
    return o;
}

std::uint32_t bits(std::int32_t v) { return std::bit_cast<std::uint32_t>(v); }

// The message of the parse_error parsing `text` throws (empty when it throws none).
std::string error_of(const std::string& text, const csv_options& o) {
    try {
        (void)parse_csv_column(text, o);
    } catch (const bitplane::parse_error& e) {
        return e.what();
    }
    return "";
}

TEST(CsvColumn, ByNameWithHeader) {
    const csv_column c = parse_csv_column("id,value,note\n1,10,a\n2,20,b\n", column("value"));
    EXPECT_EQ(c.values, (values{10, 20}));
    EXPECT_EQ(c.header_name, std::optional<std::string>("value"));
    EXPECT_EQ(c.column_index, 1u);
}

TEST(CsvColumn, ByIndexDetectsHeader) {
    EXPECT_EQ(parse_csv_column("id,value\n1,10\n2,20\n", column("2")).values, (values{10, 20}));
    EXPECT_EQ(parse_csv_column("id,value\n1,10\n2,20\n", column("2")).header_name, std::optional<std::string>("value"));
    // No header: the first record's cell is a number.
    const csv_column c = parse_csv_column("1,10\n2,20\n", column("2"));
    EXPECT_EQ(c.values, (values{10, 20}));
    EXPECT_FALSE(c.header_name.has_value());
    // The selected cell decides, not the others: text elsewhere in the first record is data.
    EXPECT_EQ(parse_csv_column("alice,10\nbob,20\n", column("2")).values, (values{10, 20}));
}

TEST(CsvColumn, HeaderModesForced) {
    EXPECT_EQ(parse_csv_column("7\n8\n", column("1", header_mode::present)).values, (values{8}));
    EXPECT_EQ(parse_csv_column("7\n8\n", column("1", header_mode::absent)).values, (values{7, 8}));
    EXPECT_EQ(error_of("x\n8\n", column("1", header_mode::absent)), "line 1, column 1: \"x\" is not an integer");
}

TEST(CsvColumn, QuotedFieldsCrLfAndSpaces) {
    const std::string text =
        "name,\"val,ue\"\r\n"
        "\"a, \"\"quoted\"\" name\",\" 12 \"\r\n"
        "\"multi\nline\", 13\r\n"
        "plain,+14\r\n";
    const csv_column c = parse_csv_column(text, column("val,ue"));
    EXPECT_EQ(c.values, (values{12, 13, 14}));
    EXPECT_EQ(c.column_index, 1u);
}

TEST(CsvColumn, DelimiterTab) {
    csv_options o = column("b");
    o.delimiter = '\t';
    EXPECT_EQ(parse_csv_column("a\tb\n1,5\t6\n", o).values, (values{6}));
}

TEST(CsvColumn, BlankLinesSkippedNoFinalNewlineAccepted) {
    EXPECT_EQ(parse_csv_column("v\n\n1\n\r\n2", column("v")).values, (values{1, 2}));
    EXPECT_EQ(parse_csv_column("", column("1")).values, values{});
    EXPECT_EQ(parse_csv_column("\n\n", column("1")).values, values{});
}

TEST(CsvColumn, Ranges) {
    EXPECT_EQ(parse_csv_column("4294967295\n0\n", column("1")).values, (values{4294967295u, 0}));
    EXPECT_EQ(parse_csv_column("-2147483648\n2147483647\n-0\n", signed_column("1")).values,
              (values{bits(-2147483647 - 1), bits(2147483647), 0}));
    EXPECT_EQ(error_of("4294967296\n", column("1")), "line 1, column 1: \"4294967296\" is outside the uint32 range");
    EXPECT_EQ(error_of("1\n-1\n", column("1")),
              "line 2, column 1: \"-1\" is negative, outside the uint32 range (--type i32 reads negative values)");
    EXPECT_EQ(error_of("2147483648\n", signed_column("1")), "line 1, column 1: \"2147483648\" is outside the int32 range");
    EXPECT_EQ(error_of("-2147483649\n", signed_column("1")), "line 1, column 1: \"-2147483649\" is outside the int32 range");
    EXPECT_EQ(error_of("99999999999999999999999\n", column("1")),
              "line 1, column 1: \"99999999999999999999999\" is outside the uint32 range");
}

TEST(CsvColumn, MalformedCellsNameLineAndColumn) {
    const std::string head = "id,value\n1,5\n";
    EXPECT_EQ(error_of(head + "2,\n", column("value")),
              "line 3, column 2 (\"value\"): empty cell (--null-as-zero reads empty cells as 0)");
    EXPECT_EQ(error_of(head + "2,1.5\n", column("value")), "line 3, column 2 (\"value\"): \"1.5\" is not an integer");
    EXPECT_EQ(error_of(head + "2,12a\n", column("value")), "line 3, column 2 (\"value\"): \"12a\" is not an integer");
    EXPECT_EQ(error_of(head + "2,--3\n", column("value")), "line 3, column 2 (\"value\"): \"--3\" is not an integer");
    EXPECT_EQ(error_of(head + "2,\"\"\n", column("value")),
              "line 3, column 2 (\"value\"): empty cell (--null-as-zero reads empty cells as 0)");
    EXPECT_EQ(error_of(head + "2\n", column("value")), "line 3, column 2 (\"value\"): the record has 1 field, no column 2");
    EXPECT_EQ(error_of(head + "2,\"7\"x\n", column("value")),
              "line 3, column 2 (\"value\"): unexpected \"x\" after the closing quote of a field");
    EXPECT_EQ(error_of(head + "2,\"7\n", column("value")),
              "line 3, column 2 (\"value\"): a quoted field is not closed at the end of the input");
    // A record spanning lines is reported at the line where it starts.
    EXPECT_EQ(error_of(head + "\"a\nb\",x\n", column("value")), "line 3, column 2 (\"value\"): \"x\" is not an integer");
    // Control bytes are escaped in messages.
    EXPECT_EQ(error_of("v\n1\x01\n", column("v")), "line 2, column 1 (\"v\"): \"1\\x01\" is not an integer");
}

TEST(CsvColumn, NullAsZero) {
    csv_options o = column("value");
    o.null_as_zero = true;
    EXPECT_EQ(parse_csv_column("id,value\n1,\n2, \n3,4\n4,\"\"\n", o).values, (values{0, 0, 4, 0}));
}

TEST(CsvColumn, HeaderProblems) {
    EXPECT_EQ(error_of("a,b\n1,2\n", column("c")), "line 1: no column named \"c\" in the header (\"a\", \"b\")");
    EXPECT_EQ(error_of("", column("c")), "line 1: the input has no header, so no column named \"c\"");
    EXPECT_EQ(error_of("1,2\n", column("3")), "line 1: the first record has 2 fields, no column 3");
}

TEST(CsvColumn, BadOptionsAreArgumentErrors) {
    EXPECT_THROW(csv_column_reader(column("0")), bitplane::argument_error);
    EXPECT_THROW(csv_column_reader(column("")), bitplane::argument_error);
    EXPECT_THROW(csv_column_reader(column("99999999999")), bitplane::argument_error);
    EXPECT_THROW(csv_column_reader(column("name", header_mode::absent)), bitplane::argument_error);
    csv_options quote = column("1");
    quote.delimiter = '"';
    EXPECT_THROW(csv_column_reader{quote}, bitplane::argument_error);
}

TEST(CsvColumn, LongCellsLimited) {
    const std::string long_cell(bitplane::cli::max_csv_cell_bytes + 1, '1');
    EXPECT_EQ(error_of("v\n" + long_cell + "\n", column("v")), "line 2, column 1 (\"v\"): cell longer than 4096 bytes");
    // Long cells in other columns (and in the first record) cost nothing and are fine.
    EXPECT_EQ(parse_csv_column("\"" + long_cell + "\",v\nx" + long_cell + ",3\n", column("v")).values, (values{3}));
}

// Every split of the text into two pieces, and random splits into many, give what parsing it
// whole gives; errors too, with the same message.
void check_splits(const std::string& text, const csv_options& o) {
    SCOPED_TRACE(text);
    const std::string whole_error = error_of(text, o);
    const values whole = whole_error.empty() ? parse_csv_column(text, o).values : values{};
    auto parse_pieces = [&](const std::vector<std::size_t>& cuts) {
        csv_column_reader reader(o);
        values out;
        std::size_t at = 0;
        try {
            for (const std::size_t cut : cuts) {
                reader.feed(std::string_view(text).substr(at, cut - at), out);
                at = cut;
            }
            reader.feed(std::string_view(text).substr(at), out);
            reader.finish(out);
        } catch (const bitplane::parse_error& e) {
            EXPECT_EQ(e.what(), whole_error);
            return;
        }
        EXPECT_TRUE(whole_error.empty()) << "no error in pieces, whole text fails with " << whole_error;
        EXPECT_EQ(out, whole);
    };
    for (std::size_t cut = 0; cut <= text.size(); ++cut) parse_pieces({cut});
    std::mt19937_64 random(text.size());
    for (int round = 0; round < 20; ++round) {
        std::vector<std::size_t> cuts;
        for (std::size_t at = 0; at < text.size(); at += 1 + random() % 4) cuts.push_back(at);
        parse_pieces(cuts);
    }
}

TEST(CsvColumn, PiecesGiveTheSameResult) {
    check_splits("id,\"v\"\r\n1,\"2\"\r\n\r\n\"x,\ny\",-3\r\n4, 5 \r\n6,7", signed_column("v"));
    check_splits("a;b\n1;2\n3;\"4\"\"\"\n", [] {
        csv_options o = column("2");
        o.delimiter = ';';
        return o;
    }());
    check_splits("v\n1\n\n2\n,\n", column("v"));
}

// Issue #14, finding 8: a UTF-8 byte order mark made --csv 1 take the first number for a
// header (the value was lost); it is skipped now, wherever the pieces split it, and a text
// that merely starts like one keeps its bytes.
TEST(CsvColumn, ByteOrderMarkSkipped) {
    const std::string bom = "\xEF\xBB\xBF";
    const csv_column c = parse_csv_column(bom + "35\n36\n", column("1"));
    EXPECT_EQ(c.values, (values{35, 36}));
    EXPECT_FALSE(c.header_name.has_value());
    EXPECT_EQ(parse_csv_column(bom + "v\n7\n", column("v")).values, (values{7}));
    check_splits(bom + "1\n2\n", column("1"));
    check_splits(bom + "v,w\n1,2\n", column("w"));
    // Two bytes of a mark, then something else: those bytes are text (here, a header cell).
    const csv_column partial = parse_csv_column("\xEF\xBBx\n5\n", column("1"));
    EXPECT_EQ(partial.values, (values{5}));
    EXPECT_EQ(partial.header_name, std::optional<std::string>("\xEF\xBBx"));
    EXPECT_EQ(parse_csv_column("\xEF", column("1", header_mode::present)).values, values{});
}

// Issue #14, finding 8: with two columns of one name, the first was taken silently.
TEST(CsvColumn, DuplicateHeaderNamesAreAnError) {
    const std::string text = "id,v,x,v\n1,2,3,4\n";
    const std::string message = error_of(text, column("v"));
    EXPECT_NE(message.find("the header names 2 columns \"v\" (columns 2, 4)"), std::string::npos) << message;
    EXPECT_NE(message.find("--csv N"), std::string::npos) << message;
    EXPECT_EQ(parse_csv_column(text, column("4")).values, (values{4}));  // by number: fine
    EXPECT_EQ(parse_csv_column(text, column("x")).values, (values{3}));  // another name: fine
}

}  // namespace
