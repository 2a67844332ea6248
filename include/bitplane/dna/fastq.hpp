// bitplane::dna::fastq: sequencing reads in FASTQ, letters as one bit-plane sequence, the rest
// kept as text so that writing gives back the input byte for byte.
//
// Accepted: the four-line form every current instrument and tool writes ('@' header, letters,
// '+' with optional text, qualities of the same length as the letters), LF or CRLF line ends
// (as the first line has), with or without a final line end. What is kept: every header, the
// text after every '+', the qualities as a plain byte stream (Phred+33 bytes, '!'..'~'), and the
// letters as codes. Multi-line (wrapped) FASTQ is rejected, like every malformed record, with a
// parse_error naming the read, line and column.
#pragma once

#include <bitplane/dna/sequence.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bitplane::dna {

class fastq {
public:
    struct read {
        std::string_view header;   ///< after '@', without the line end
        std::string_view plus;     ///< after '+' (usually empty or the header again)
        std::string_view quality;  ///< one byte per letter
        std::uint64_t first = 0;   ///< its first letter in letters()
        std::uint64_t size = 0;

        [[nodiscard]] std::string_view name() const noexcept { return header.substr(0, header.find_first_of(" \t")); }
    };

    [[nodiscard]] static fastq parse(std::string_view text);
    /// Plain or gzip-compressed bytes.
    [[nodiscard]] static fastq parse_bytes(std::span<const std::byte> bytes);
    [[nodiscard]] static fastq read_file(const std::string& path);

    [[nodiscard]] std::string to_text() const;

    [[nodiscard]] std::size_t size() const noexcept { return reads_.size(); }
    [[nodiscard]] read operator[](std::size_t index) const;
    [[nodiscard]] const sequence& letters() const noexcept { return letters_; }
    /// Every read's qualities, one after another (the side stream).
    [[nodiscard]] const std::string& qualities() const noexcept { return qualities_; }
    [[nodiscard]] bool crlf() const noexcept { return crlf_; }

private:
    struct entry {
        std::uint64_t header_begin = 0, header_end = 0, plus_end = 0;  // in text_: header, then plus
        std::uint64_t first = 0, size = 0;
    };
    sequence letters_;
    std::string text_;       // headers and plus lines
    std::string qualities_;
    std::vector<entry> reads_;
    bool crlf_ = false;
    bool final_newline_ = true;
};

}  // namespace bitplane::dna
