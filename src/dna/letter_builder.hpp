// Letters -> a sequence's blocks: letters are staged 2048 at a time, turned into code planes by
// the encode_letters kernel (SIMD compares and movemasks, 32 letters a word) and appended as
// encoded blocks, with no per-letter values in between. Used by sequence::append and the
// FASTA/FASTQ parsers.
#pragma once

#include "dna/code_window.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace bitplane::dna::detail {

class letter_builder {
public:
    /// Appends to `codes` (any size: a partial last block is completed first).
    explicit letter_builder(bitplane::vector<std::uint32_t>& codes) noexcept : codes_(codes) {}

    /// Stages letters; a full stage is encoded. Returns false when the stage held a byte that
    /// is not a letter: bad_index() is then its index among all letters given to this builder,
    /// and the builder must not be used further.
    [[nodiscard]] bool append(const char* letters, std::size_t count);
    /// Encodes what is staged. Same result as append.
    [[nodiscard]] bool finish();

    [[nodiscard]] std::uint64_t bad_index() const noexcept { return bad_index_; }
    /// Letters given so far.
    [[nodiscard]] std::uint64_t letters() const noexcept { return given_; }

private:
    bool flush();

    bitplane::vector<std::uint32_t>& codes_;
    std::array<char, block_values> stage_;
    std::size_t staged_ = 0;
    std::uint64_t given_ = 0;
    std::uint64_t flushed_ = 0;
    std::uint64_t bad_index_ = 0;
    code_window window_;
};

/// Index of the first byte of letters[0..count) that is not a letter, if any.
[[nodiscard]] std::optional<std::size_t> first_bad_letter(const char* letters, std::size_t count) noexcept;

/// "'X' (0x58)": a byte as an error message shows it.
[[nodiscard]] std::string describe_byte(char c);

}  // namespace bitplane::dna::detail
