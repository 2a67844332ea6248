// bitplane::dna::fasta: records, writing the text back, adding records, 2bit sizes.
#include <bitplane/dna/fasta.hpp>

#include <bitplane/error.hpp>

#include "dna/fasta_access.hpp"
#include "dna/gzip.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>

namespace bitplane::dna {

fasta::record fasta::operator[](std::size_t index) const {
    const entry& e = records_[index];
    return {std::string_view(headers_).substr(e.header_begin, e.header_end - e.header_begin), e.first, e.size,
            std::span<const line_run>(runs_.data() + e.run_begin, e.run_end - e.run_begin)};
}

fasta::record fasta::at(std::size_t index) const {
    if (index >= size())
        throw index_error("dna::fasta::at: record " + std::to_string(index) + " >= " + std::to_string(size()));
    return (*this)[index];
}

sequence fasta::sequence_of(std::size_t index) const {
    const record r = at(index);
    // Whole blocks would be shared by a plane copy; a record is copied through its letters,
    // which keeps this simple and costs a fraction of parsing it.
    return sequence(letters_.substr(r.first, r.size));
}

void fasta::add(std::string_view header, std::string_view letters, std::uint64_t line_width) {
    if (header.find('\n') != std::string_view::npos)
        throw parse_error("dna::fasta::add: the header holds a line feed");
    if (!header.empty() && header.back() == '\r')  // would read back as part of a CRLF line end
        throw parse_error("dna::fasta::add: the header ends with a carriage return");
    letters_.append(letters);  // parse_error (and nothing appended) for a bad letter
    entry e;
    e.header_begin = headers_.size();
    headers_.append(header);
    e.header_end = headers_.size();
    e.first = letters_.size() - letters.size();
    e.size = letters.size();
    e.run_begin = runs_.size();
    const std::uint64_t width = line_width == 0 ? letters.size() : line_width;
    if (!letters.empty()) {
        if (letters.size() / width > 0) runs_.push_back({width, letters.size() / width});
        if (letters.size() % width != 0) runs_.push_back({letters.size() % width, 1});
    }
    e.run_end = runs_.size();
    records_.push_back(e);
}

void fasta::write(std::string& out) const {
    const std::string_view eol = crlf_ ? "\r\n" : "\n";
    std::uint64_t total = 0;
    for (const entry& e : records_) {
        total += 1 + (e.header_end - e.header_begin) + eol.size() + e.size;
        for (std::uint64_t r = e.run_begin; r < e.run_end; ++r) total += runs_[r].count * eol.size();
    }
    const std::size_t start = out.size();
    out.resize(start + total);
    char* p = out.data() + start;
    // Letters are decoded a block-aligned chunk at a time and cut into lines from there.
    constexpr std::size_t chunk = 1 << 16;
    std::string letters(chunk, '\0');
    for (const entry& e : records_) {
        *p++ = '>';
        std::memcpy(p, headers_.data() + e.header_begin, e.header_end - e.header_begin);
        p += e.header_end - e.header_begin;
        std::memcpy(p, eol.data(), eol.size());
        p += eol.size();
        std::uint64_t next = e.first;           // next letter to decode
        std::uint64_t have_from = e.first, have_to = e.first;  // decoded letters [from, to)
        for (std::uint64_t r = e.run_begin; r < e.run_end; ++r) {
            const line_run run = runs_[r];
            for (std::uint64_t k = 0; k < run.count; ++k) {
                std::uint64_t left = run.length;
                while (left > 0) {
                    if (next == have_to) {
                        const std::uint64_t n = std::min<std::uint64_t>(chunk, e.first + e.size - next);
                        letters_.decode(next, std::span<char>(letters.data(), n));
                        have_from = next;
                        have_to = next + n;
                    }
                    const std::uint64_t take = std::min(left, have_to - next);
                    std::memcpy(p, letters.data() + (next - have_from), take);
                    p += take;
                    next += take;
                    left -= take;
                }
                std::memcpy(p, eol.data(), eol.size());
                p += eol.size();
            }
        }
    }
    if (!final_newline_ && total > 0) out.erase(out.end() - static_cast<std::ptrdiff_t>(eol.size()), out.end());
}

std::string fasta::to_text() const {
    std::string out;
    write(out);
    return out;
}

void fasta::write_file(const std::string& path, int gzip_level) const {
    std::string text = to_text();
    if (gzip_level != 0) text = detail::gzip(text, gzip_level);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw io_error("cannot open '" + path + "' for writing");
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) throw io_error("writing '" + path + "' failed");
}

std::size_t fasta::memory_bytes() const noexcept {
    return sizeof(*this) + letters_.memory_bytes() - sizeof(letters_) + headers_.capacity() +
           records_.capacity() * sizeof(entry) + runs_.capacity() * sizeof(line_run);
}

bool operator==(const fasta& a, const fasta& b) {
    if (a.size() != b.size() || a.crlf_ != b.crlf_ || a.final_newline_ != b.final_newline_) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const fasta::record x = a[i], y = b[i];
        if (x.header != y.header || x.first != y.first || x.size != y.size ||
            !std::equal(x.lines.begin(), x.lines.end(), y.lines.begin(), y.lines.end()))
            return false;
    }
    return a.letters_ == b.letters_;
}

std::uint64_t twobit_bytes(const fasta& f) {
    std::uint64_t bytes = 16;  // signature, version, sequence count, reserved
    std::string letters(1 << 16, '\0');
    for (std::size_t i = 0; i < f.size(); ++i) {
        const fasta::record r = f[i];
        bytes += 1 + std::min<std::size_t>(r.name().size(), 255) + 4;  // index entry
        // N blocks: runs of letters that are not plain bases (2bit keeps only ACGT and N);
        // mask blocks: runs of lower-case letters.
        std::uint64_t n_blocks = 0, mask_blocks = 0;
        bool in_n = false, in_mask = false;
        for (std::uint64_t at = 0; at < r.size; at += letters.size()) {
            const std::uint64_t n = std::min<std::uint64_t>(letters.size(), r.size - at);
            f.letters().decode(r.first + at, std::span<char>(letters.data(), n));
            for (std::uint64_t k = 0; k < n; ++k) {
                const code c = to_code(letters[k]);
                const bool is_n = (c & special_bit) != 0, is_mask = (c & lower_bit) != 0;
                n_blocks += is_n && !in_n;
                mask_blocks += is_mask && !in_mask;
                in_n = is_n;
                in_mask = is_mask;
            }
        }
        bytes += 4 + 4 + 8 * n_blocks + 4 + 8 * mask_blocks + 4 + (r.size + 3) / 4;
    }
    return bytes;
}

}  // namespace bitplane::dna
