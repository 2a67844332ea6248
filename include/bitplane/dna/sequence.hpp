// bitplane::dna::sequence: a DNA sequence stored as a bitplane::vector of letter codes
// (alphabet.hpp), so that plain ACGT costs two bit-planes, N runs and soft-masked runs almost
// nothing, and counting, comparing, complementing and searching work on planes.
//
// Letters: A C G T N, the IUPAC codes R Y S W K M B D H V, and '-', each in upper or lower case
// ('-' upper only). Anything else is a parse_error naming the position.
//
// Complexity: building from text is O(n) (SIMD, about a GB/s); operator[] is a random read of
// the block (tens of ns); substr(pos, len) O(len + 2048).
//
// Thread safety: as bitplane::vector: const members may be called concurrently; anything
// non-const needs exclusive access.
#pragma once

#include <bitplane/dna/alphabet.hpp>
#include <bitplane/vector.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bitplane::dna {

inline constexpr std::size_t npos = static_cast<std::size_t>(-1);

class sequence {
public:
    sequence() = default;
    /// The letters of `text` (no line breaks). Throws parse_error naming the column (1-based)
    /// of the first byte that is not a letter.
    explicit sequence(std::string_view text) { append(text); }

    /// Takes codes as they are; throws argument_error naming the first index whose value is
    /// not a valid code (is_valid_code), and leaves `codes` untouched then.
    [[nodiscard]] static sequence from_codes(bitplane::vector<std::uint32_t> codes);

    /// Appends letters; throws parse_error (column = 1-based index in `text`) and appends
    /// nothing when one of them is not a letter.
    void append(std::string_view text);
    void push_back(char letter) { append(std::string_view(&letter, 1)); }

    [[nodiscard]] std::size_t size() const noexcept { return codes_.size(); }
    [[nodiscard]] bool empty() const noexcept { return codes_.empty(); }

    /// The letter at `index` (unchecked).
    [[nodiscard]] char operator[](std::size_t index) const { return to_letter(static_cast<code>(codes_[index])); }
    /// The letter at `index`; index_error past the end.
    [[nodiscard]] char at(std::size_t index) const { return to_letter(static_cast<code>(codes_.at(index))); }
    [[nodiscard]] code code_at(std::size_t index) const { return static_cast<code>(codes_.at(index)); }

    /// Letters [pos, pos + min(count, size() - pos)); index_error when pos > size().
    [[nodiscard]] std::string substr(std::size_t pos = 0, std::size_t count = npos) const;
    /// Letters [first, first + out.size()) into `out`; index_error when outside.
    void decode(std::size_t first, std::span<char> out) const;
    [[nodiscard]] std::string to_string() const { return substr(); }

    /// The codes, one per letter (planes: alphabet.hpp).
    [[nodiscard]] const bitplane::vector<std::uint32_t>& codes() const noexcept { return codes_; }

    /// Bytes held (see bitplane::vector::memory_bytes).
    [[nodiscard]] std::size_t memory_bytes() const noexcept { return codes_.memory_bytes(); }

    void clear() noexcept { codes_.clear(); }
    void swap(sequence& other) noexcept { codes_.swap(other.codes_); }
    friend bool operator==(const sequence& a, const sequence& b) { return a.codes_ == b.codes_; }

private:
    friend class sequence_access;  // the library's builders and operations
    bitplane::vector<std::uint32_t> codes_;
};

// ---- operations on planes (src/dna/operations.cpp) ---------------------------------------------

/// Letters of each kind in a range. `lower` counts soft-masked letters of any kind.
struct base_counts {
    std::uint64_t a = 0, c = 0, g = 0, t = 0;
    std::uint64_t n = 0;          ///< N
    std::uint64_t ambiguous = 0;  ///< R Y S W K M B D H V
    std::uint64_t gaps = 0;       ///< '-'
    std::uint64_t lower = 0;      ///< soft-masked (lower case), included in the counts above

    [[nodiscard]] std::uint64_t acgt() const noexcept { return a + c + g + t; }
    [[nodiscard]] std::uint64_t total() const noexcept { return acgt() + n + ambiguous + gaps; }
    /// (C + G) / (A + C + G + T): N, ambiguity codes and gaps are left out, as samtools and
    /// seqkit do; 0 when the range holds no plain base.
    [[nodiscard]] double gc_content() const noexcept {
        return acgt() == 0 ? 0.0 : static_cast<double>(c + g) / static_cast<double>(acgt());
    }
    friend bool operator==(const base_counts&, const base_counts&) = default;
};

/// Counts of letters [first, first + count) (count clipped to the end); index_error when
/// first > size(). O(count / 2048) block operations: popcounts of plane combinations.
[[nodiscard]] base_counts count_bases(const sequence& s, std::size_t first = 0, std::size_t count = npos);

/// GC content of [first, first + count): count_bases(...).gc_content().
[[nodiscard]] double gc_content(const sequence& s, std::size_t first = 0, std::size_t count = npos);

/// Whether soft-masking counts as a difference in mismatch_count.
enum class case_rule : std::uint8_t { ignore, compare };

/// Positions i < count where a[a_first + i] and b[b_first + i] are different letters (Hamming
/// distance in letters; by default 'a' and 'A' are the same letter). N matches N. index_error
/// when either range is not inside its sequence. O(count / 32) word operations.
[[nodiscard]] std::uint64_t mismatch_count(const sequence& a, std::size_t a_first, const sequence& b,
                                           std::size_t b_first, std::size_t count,
                                           case_rule rule = case_rule::ignore);
/// Whole sequences; size_error when their lengths differ.
[[nodiscard]] std::uint64_t mismatch_count(const sequence& a, const sequence& b, case_rule rule = case_rule::ignore);

/// The reverse complement of [first, first + count) (count clipped): letters reversed and
/// complemented (alphabet.hpp: complement), soft-masking kept. On planes: bit reversal and
/// XOR, whole blocks at a time.
[[nodiscard]] sequence reverse_complement(const sequence& s, std::size_t first = 0, std::size_t count = npos);

/// Start positions (ascending, overlapping ones included) of every exact occurrence of
/// `pattern` in [first, first + count). Case is ignored on both sides. Pattern letters may be
/// IUPAC codes, which match any of their bases (N matches A, C, G or T); a text letter that is
/// not a plain base (N, an ambiguity code, '-') matches nothing. An empty pattern matches
/// nowhere. parse_error when the pattern holds a byte that is not a letter.
/// Bit-parallel over planes (shift-and over the base planes of each block).
[[nodiscard]] std::vector<std::uint64_t> find(const sequence& s, std::string_view pattern, std::size_t first = 0,
                                              std::size_t count = npos);

// ---- files -----------------------------------------------------------------------------------

/// A sequence as a bitplane vector file (bitplane::save of its codes).
void save(const sequence& s, std::vector<std::byte>& out);
/// Loads a saved sequence from untrusted bytes: the vector file is checked as bitplane::load
/// does (format_error with the offset) and then every code (format_error naming the index of
/// the first code that is no letter).
[[nodiscard]] sequence load_sequence(std::span<const std::byte> bytes);

}  // namespace bitplane::dna
