// bitplane::dna::fasta: multi-record FASTA held as one bit-plane sequence of all records'
// letters plus, per record, its header line and the lengths of its lines, so that writing it
// back gives the input byte for byte.
//
// What is kept exactly: every header line (after '>', any bytes but the line end: name,
// description, tabs, trailing spaces), every sequence line length (regular widths, a short
// last line, irregular or empty lines, blank lines between records), the line ending (LF, or
// CRLF when the first line ends with CRLF), and whether the file ends with a line ending.
// So text -> fasta -> text is the identity for every file parse accepts.
//
// What parse rejects (parse_error naming the record, its name, the line and the column): a
// file that does not start with '>', a byte in a sequence line that is not a DNA letter
// (alphabet.hpp; spaces, digits, '*', '.', U and X included), and in a CRLF file a line that
// ends with LF alone (and in an LF file a CR before the LF of a sequence line). Input through
// gzip is decompressed first (zlib; concatenated members, as bgzip writes, are read whole).
//
// Thread safety: const members may be called concurrently.
#pragma once

#include <bitplane/dna/sequence.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bitplane::dna {

/// `count` consecutive sequence lines of `length` letters each.
struct line_run {
    std::uint64_t length = 0;
    std::uint64_t count = 0;
    friend bool operator==(const line_run&, const line_run&) = default;
};

class fasta {
public:
    /// One record, as a view into its fasta (valid while the fasta lives and is not changed).
    struct record {
        std::string_view header;          ///< the header line after '>', without the line end
        std::uint64_t first = 0;          ///< its first letter in letters()
        std::uint64_t size = 0;           ///< its letters
        std::span<const line_run> lines;  ///< its sequence lines, in order

        /// The header up to the first space or tab.
        [[nodiscard]] std::string_view name() const noexcept { return header.substr(0, header.find_first_of(" \t")); }
        /// The header after the first space or tab ("" when there is none).
        [[nodiscard]] std::string_view description() const noexcept {
            const std::size_t cut = header.find_first_of(" \t");
            return cut == std::string_view::npos ? std::string_view() : header.substr(cut + 1);
        }
        /// Length of the first sequence line (0 when there is none): the line width.
        [[nodiscard]] std::uint64_t line_width() const noexcept { return lines.empty() ? 0 : lines.front().length; }
    };

    fasta() = default;

    /// Parses FASTA text (already decompressed). Throws parse_error.
    [[nodiscard]] static fasta parse(std::string_view text);
    /// Parses FASTA bytes, plain or gzip-compressed (detected by the gzip magic). Throws
    /// parse_error, or format_error for a corrupt gzip stream.
    [[nodiscard]] static fasta parse_bytes(std::span<const std::byte> bytes);
    /// Reads a file, plain or gzip-compressed. io_error when it cannot be read.
    [[nodiscard]] static fasta read_file(const std::string& path);

    /// The FASTA text: exactly what was parsed, or for records added with add(), lines of
    /// their width.
    [[nodiscard]] std::string to_text() const;
    /// Appends the text to `out`.
    void write(std::string& out) const;
    /// Writes the text to a file, gzip-compressed when `gzip_level` is 1..9 (0: plain).
    /// io_error when the file cannot be written.
    void write_file(const std::string& path, int gzip_level = 0) const;

    /// Appends a record: header (after '>', no line break) and letters cut into lines of
    /// `line_width` letters (0: one line). parse_error for a letter that is not one, or a
    /// header holding a line feed or ending with a carriage return.
    void add(std::string_view header, std::string_view letters, std::uint64_t line_width = 60);

    [[nodiscard]] std::size_t size() const noexcept { return records_.size(); }
    [[nodiscard]] bool empty() const noexcept { return records_.empty(); }
    /// Record `index` (unchecked); at() throws index_error.
    [[nodiscard]] record operator[](std::size_t index) const;
    [[nodiscard]] record at(std::size_t index) const;

    /// All records' letters, one after another.
    [[nodiscard]] const sequence& letters() const noexcept { return letters_; }
    /// A copy of record `index`'s letters as a sequence of their own.
    [[nodiscard]] sequence sequence_of(std::size_t index) const;

    /// Lines end with CRLF (else LF).
    [[nodiscard]] bool crlf() const noexcept { return crlf_; }
    /// The text ends with a line ending.
    [[nodiscard]] bool final_newline() const noexcept { return final_newline_; }
    void set_crlf(bool value) noexcept { crlf_ = value; }
    void set_final_newline(bool value) noexcept { final_newline_ = value; }

    /// Bytes held (letters, headers, layouts).
    [[nodiscard]] std::size_t memory_bytes() const noexcept;

    friend bool operator==(const fasta& a, const fasta& b);

private:
    friend class fasta_access;  // the parser and the packed format
    struct entry {
        std::uint64_t header_begin = 0, header_end = 0;  // in headers_
        std::uint64_t first = 0, size = 0;               // in letters_
        std::uint64_t run_begin = 0, run_end = 0;        // in runs_
    };
    sequence letters_;
    std::string headers_;
    std::vector<entry> records_;
    std::vector<line_run> runs_;
    bool crlf_ = false;
    bool final_newline_ = true;
};

// ---- the packed file -------------------------------------------------------------------------

/// How pack stores the letters.
enum class pack_mode : std::uint8_t {
    /// The sequence's bit-plane blocks as they are (about 2.03 bits per plain base; N runs and
    /// soft-masked runs almost free). Fast both ways (GB/s).
    planes = 0,
    /// The base bits coded with a context-mixing model (orders 2 to 24, arithmetic coding):
    /// about 1.6-1.95 bits per base on real genomes, always below UCSC 2bit; tens of MB/s.
    /// Case, N and ambiguity codes stay bit-plane blocks.
    modeled = 1,
};

/// Appends the packed file of `f` to `out` (docs/format.md, section "DNA"): headers, line
/// layouts and letters, checksummed. unpack(pack(f)) == f.
void pack(const fasta& f, std::vector<std::byte>& out, pack_mode mode = pack_mode::planes);

/// Reads a packed file from untrusted bytes. Everything is checked (header, checksum, every
/// size against the bytes present, layouts against letter counts, every block, every code);
/// format_error with the byte offset otherwise. Allocation is bounded by the letter count, which
/// is bounded by the payload (at most 2048 letters per payload byte: N runs compress that well);
/// the modeled mode also allocates its model tables (at most about 200 MiB).
[[nodiscard]] fasta unpack(std::span<const std::byte> bytes);

// ---- sizes of other formats, for comparison ----------------------------------------------------

/// Bytes of the UCSC .2bit file of `f` as faToTwoBit writes it (version 0: 16-byte header, an
/// index of names (up to the first whitespace) and 32-bit offsets, then per record its length,
/// N blocks, mask blocks (lower-case runs), a reserved word and 2 bits per letter). 2bit keeps
/// neither descriptions nor line layout nor ambiguity codes (they become N).
[[nodiscard]] std::uint64_t twobit_bytes(const fasta& f);

}  // namespace bitplane::dna
