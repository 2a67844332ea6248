// FASTQ reading and writing (fastq.hpp).
#include <bitplane/dna/fastq.hpp>

#include <bitplane/error.hpp>

#include "dna/code_window.hpp"
#include "dna/gzip.hpp"
#include "dna/letter_builder.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

namespace bitplane::dna {
namespace {

[[noreturn]] void fail(std::uint64_t read, std::uint64_t line, std::uint64_t column, const std::string& what) {
    throw parse_error("FASTQ read " + std::to_string(read) + ", line " + std::to_string(line) + ", column " +
                      std::to_string(column) + ": " + what);
}

}  // namespace

fastq::read fastq::operator[](std::size_t index) const {
    const entry& e = reads_[index];
    const std::string_view t(text_);
    return {t.substr(e.header_begin, e.header_end - e.header_begin), t.substr(e.header_end, e.plus_end - e.header_end),
            std::string_view(qualities_).substr(e.first, e.size), e.first, e.size};
}

fastq fastq::parse(std::string_view text) {
    fastq q;
    if (text.empty()) return q;
    const char* first_nl = static_cast<const char*>(std::memchr(text.data(), '\n', text.size()));
    q.crlf_ = first_nl != nullptr && first_nl > text.data() && first_nl[-1] == '\r';
    q.final_newline_ = text.back() == '\n';
    detail::letter_builder builder(sequence_access::codes(q.letters_));
    std::size_t pos = 0;
    std::uint64_t line_no = 1;
    // One line: [pos, end) and the start of the next.
    auto next_line = [&](std::uint64_t read, std::size_t& end) {
        const char* nl = static_cast<const char*>(std::memchr(text.data() + pos, '\n', text.size() - pos));
        std::size_t next = text.size();
        end = text.size();
        if (nl != nullptr) {
            end = static_cast<std::size_t>(nl - text.data());
            next = end + 1;
            if (q.crlf_) {
                if (end == pos || text[end - 1] != '\r')
                    fail(read, line_no, end - pos + 1, "line ends with LF alone, but the file's first line ends with CRLF");
                --end;
            }
        }
        const std::size_t start = pos;
        pos = next;
        ++line_no;
        return start;
    };
    while (pos < text.size()) {
        const std::uint64_t read = q.reads_.size() + 1;
        entry e;
        std::size_t end = 0;
        std::size_t start = next_line(read, end);
        if (text[start] != '@' || end == start)
            fail(read, line_no - 1, 1, "expected '@' starting a read, found " + detail::describe_byte(text[start]));
        e.header_begin = q.text_.size();
        q.text_.append(text.data() + start + 1, end - start - 1);
        e.header_end = q.text_.size();
        if (pos >= text.size()) fail(read, line_no, 1, "the file ends inside a read (no letters line)");
        start = next_line(read, end);
        e.first = q.qualities_.size();
        e.size = end - start;
        if (const auto bad = detail::first_bad_letter(text.data() + start, e.size))
            fail(read, line_no - 1, *bad + 1, detail::describe_byte(text[start + *bad]) + " is not a DNA letter");
        if (!builder.append(text.data() + start, e.size)) fail(read, line_no - 1, 1, "bad letter");
        if (pos >= text.size()) fail(read, line_no, 1, "the file ends inside a read (no '+' line)");
        start = next_line(read, end);
        if (text[start] != '+' || end == start)
            fail(read, line_no - 1, 1,
                 "expected the '+' line, found " + detail::describe_byte(text[start]) + " (multi-line FASTQ is not accepted)");
        q.text_.append(text.data() + start + 1, end - start - 1);
        e.plus_end = q.text_.size();
        // Even an empty read has its (empty) quality line.
        if (pos >= text.size()) fail(read, line_no, 1, "the file ends inside a read (no quality line)");
        start = next_line(read, end);
        if (end - start != e.size)
            fail(read, line_no - 1, 1, std::to_string(end - start) + " qualities for " + std::to_string(e.size) + " letters");
        for (std::size_t i = start; i < end; ++i)
            if (text[i] < '!' || text[i] > '~')
                fail(read, line_no - 1, i - start + 1, detail::describe_byte(text[i]) + " is not a quality ('!'..'~')");
        q.qualities_.append(text.data() + start, end - start);
        q.reads_.push_back(e);
    }
    if (!builder.finish()) throw parse_error("FASTQ: bad letter");  // checked line by line above
    return q;
}

fastq fastq::parse_bytes(std::span<const std::byte> bytes) {
    if (detail::is_gzip(bytes)) return parse(detail::gunzip(bytes));
    return parse(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

fastq fastq::read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw io_error("cannot open '" + path + "' for reading");
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return parse_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())));
}

std::string fastq::to_text() const {
    const std::string_view eol = crlf_ ? "\r\n" : "\n";
    std::string out;
    out.reserve(text_.size() + 2 * qualities_.size() + reads_.size() * (2 + 4 * eol.size()));
    std::string letters;
    for (std::size_t i = 0; i < size(); ++i) {
        const read r = (*this)[i];
        letters = letters_.substr(r.first, r.size);
        out += '@';
        out += r.header;
        out += eol;
        out += letters;
        out += eol;
        out += '+';
        out += r.plus;
        out += eol;
        out += r.quality;
        out += eol;
    }
    if (!final_newline_ && !out.empty()) out.erase(out.end() - static_cast<std::ptrdiff_t>(eol.size()), out.end());
    return out;
}

}  // namespace bitplane::dna
