// FASTA text -> fasta (fasta.hpp).
//
// Lines are found with memchr, except that a record's next sequence line is first guessed to
// have the width of its first one (one byte compared, no scan): the letters of the guessed
// line then go to the letter builder, whose SIMD check would flag a line break inside it as a
// bad letter. Any bad letter sends the whole parse to an exact pass that finds every line with
// memchr and checks each line's letters before using them, so that it either reads the file
// (when the guess was wrong) or names the record, line and column of the bad byte.
#include <bitplane/dna/fasta.hpp>

#include <bitplane/error.hpp>

#include "dna/fasta_access.hpp"
#include "dna/gzip.hpp"
#include "dna/letter_builder.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

namespace bitplane::dna {
namespace {

struct guess_failed {};  // a bad letter in the fast pass: redo exactly

class parser {
public:
    parser(std::string_view text, bool exact) : text_(text), exact_(exact) {}

    fasta run() {
        fasta f;
        if (text_.empty()) return f;
        if (text_[0] != '>')
            fail(0, 1, 1, "expected '>' at the start of a FASTA file, found " + detail::describe_byte(text_[0]));
        const char* nl = find_newline(0);
        crlf_ = nl != nullptr && nl > text_.data() && nl[-1] == '\r';
        f.set_crlf(crlf_);
        f.set_final_newline(text_.back() == '\n');
        detail::letter_builder builder(sequence_access::codes(fasta_access::letters(f)));
        parse_records(f, builder);
        if (!builder.finish()) throw guess_failed{};  // only the fast pass stages unchecked letters
        return f;
    }

private:
    const char* find_newline(std::size_t pos) const noexcept {
        return static_cast<const char*>(std::memchr(text_.data() + pos, '\n', text_.size() - pos));
    }

    [[noreturn]] void fail(std::size_t record, std::uint64_t line_no, std::uint64_t column, const std::string& what) const {
        std::string where = "FASTA";
        if (record > 0) where += " record " + std::to_string(record) + " ('" + std::string(name_) + "')";
        where += ", line " + std::to_string(line_no) + ", column " + std::to_string(column);
        throw parse_error(where + ": " + what);
    }

    // The line starting at pos: [pos, content_end) and where the next line starts.
    struct line {
        std::size_t end = 0;   // content end (line ending excluded)
        std::size_t next = 0;  // start of the next line (text size at the end)
    };
    line read_line(std::size_t pos, std::uint64_t line_no, std::size_t record) const {
        const char* nl = find_newline(pos);
        if (nl == nullptr) return {text_.size(), text_.size()};
        const auto at = static_cast<std::size_t>(nl - text_.data());
        if (!crlf_) return {at, at + 1};
        if (at == pos || text_[at - 1] != '\r')
            fail(record, line_no, at - pos + 1, "line ends with LF alone, but the file's first line ends with CRLF");
        return {at - 1, at + 1};
    }

    void parse_records(fasta& f, detail::letter_builder& builder) {
        auto& headers = fasta_access::headers(f);
        auto& records = fasta_access::records(f);
        auto& runs = fasta_access::runs(f);
        const std::size_t eol = crlf_ ? 2 : 1;
        std::size_t pos = 0;
        std::uint64_t line_no = 1;
        std::uint64_t letters = 0;
        while (pos < text_.size()) {
            const std::size_t record = records.size() + 1;
            const line head = read_line(pos, line_no, record);
            fasta_access::entry e;
            e.header_begin = headers.size();
            headers.append(text_.data() + pos + 1, head.end - pos - 1);
            e.header_end = headers.size();
            name_ = std::string_view(text_.data() + pos + 1, head.end - pos - 1);
            name_ = name_.substr(0, name_.find_first_of(" \t"));
            e.first = letters;
            e.run_begin = runs.size();
            pos = head.next;
            ++line_no;
            std::uint64_t width = 0;
            bool first_line = true;
            while (pos < text_.size() && text_[pos] != '>') {
                line l;
                // Guess: a line of the record's width, ended where the file's line ending is.
                const std::size_t guess = pos + width;
                if (!exact_ && !first_line && width > 0 && guess + eol <= text_.size() && text_[guess + eol - 1] == '\n' &&
                    (eol == 1 || text_[guess] == '\r')) {
                    l = {guess, guess + eol};
                } else {
                    l = read_line(pos, line_no, record);
                }
                const std::size_t length = l.end - pos;
                if (exact_) {
                    if (const auto bad = detail::first_bad_letter(text_.data() + pos, length))
                        fail(record, line_no, *bad + 1,
                             detail::describe_byte(text_[pos + *bad]) +
                                 (text_[pos + *bad] == '\r' ? " before a line feed (the file's first line ends with LF alone)"
                                                            : " is not a DNA letter (ACGTN, IUPAC codes or '-')"));
                }
                if (!builder.append(text_.data() + pos, length)) throw guess_failed{};
                if (!runs.empty() && runs.size() > e.run_begin && runs.back().length == length) {
                    ++runs.back().count;
                } else {
                    runs.push_back({length, 1});
                }
                if (first_line) width = length;
                first_line = false;
                letters += length;
                pos = l.next;
                ++line_no;
            }
            e.size = letters - e.first;
            e.run_end = runs.size();
            records.push_back(e);
        }
    }

    std::string_view text_;
    bool exact_;
    bool crlf_ = false;
    std::string_view name_;
};

}  // namespace

fasta fasta::parse(std::string_view text) {
    try {
        return parser(text, false).run();
    } catch (const guess_failed&) {
        return parser(text, true).run();
    }
}

fasta fasta::parse_bytes(std::span<const std::byte> bytes) {
    if (detail::is_gzip(bytes)) return parse(detail::gunzip(bytes));
    return parse(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

fasta fasta::read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw io_error("cannot open '" + path + "' for reading");
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw io_error("reading '" + path + "' failed");
    return parse_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())));
}

}  // namespace bitplane::dna
