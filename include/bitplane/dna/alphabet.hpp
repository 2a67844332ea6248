// The DNA alphabet as bit-plane codes: which bits of a letter's code mean what.
//
// A letter is a small integer (0..63) whose bits are the planes of a bitplane::vector:
//
//   bit 0-1  base: A 0, C 1, G 2, T 3 (for ambiguity codes: the low bits of their index)
//   bit 2    soft-masked (lower case)
//   bit 3    not a plain base: N, an IUPAC ambiguity code or the gap '-'
//   bit 4-5  which group of ambiguity codes (0 for N and plain bases)
//
// Plain upper-case ACGT uses only planes 0 and 1: the four others are all zero and elided
// by the block codec, so such blocks cost 2 bits per letter. An N run is plane 3 alone (its
// base bits are 0), so a block of N costs a few header bytes. The ambiguity codes are
// placed so that complementing is a plane operation for every letter (see complement):
//
//   group 0 (self-complementary):   N 0, S 1, W 2, - 3
//   group 1:                         R 0, K 1, M 2, Y 3    (R<->Y, K<->M)
//   group 2:                         B 0, D 1, H 2, V 3    (B<->V, D<->H)
//
// Upper and lower case are kept apart (bit 2); '-' has no lower case. Every other byte is
// rejected by the parsers. U (RNA) is not accepted: it would need its own code to round-trip.
#pragma once

#include <array>
#include <cstdint>

namespace bitplane::dna {

using code = std::uint8_t;

inline constexpr code base_mask = 0x3;      ///< bits 0-1
inline constexpr code lower_bit = 0x4;      ///< bit 2: soft-masked
inline constexpr code special_bit = 0x8;    ///< bit 3: N, ambiguity code or gap
inline constexpr code group_mask = 0x30;    ///< bits 4-5: ambiguity group
inline constexpr unsigned code_planes = 6;  ///< planes a code uses
inline constexpr code code_limit = 64;      ///< codes are below this

inline constexpr unsigned lower_plane = 2;
inline constexpr unsigned special_plane = 3;

inline constexpr code code_A = 0, code_C = 1, code_G = 2, code_T = 3;
inline constexpr code code_N = special_bit;  ///< 8: plane 3 alone
inline constexpr code code_gap = special_bit | 3;

/// The 16 upper-case letters, '-' included; lower case is `letter | 0x20` for the 15 letters.
inline constexpr std::array<char, 16> all_letters = {'A', 'C', 'G', 'T', 'N', 'S', 'W', '-',
                                                 'R', 'K', 'M', 'Y', 'B', 'D', 'H', 'V'};

namespace detail {
// Code of each upper-case letter, in the order of `all_letters`.
inline constexpr std::array<code, 16> letter_codes = {0,  1,  2,  3,  8,  9,  10, 11,
                                                      24, 25, 26, 27, 40, 41, 42, 43};
// Bases each letter stands for (bit 0 A, bit 1 C, bit 2 G, bit 3 T), in the order of `all_letters`.
inline constexpr std::array<std::uint8_t, 16> letter_bases = {1, 2, 4, 8, 15, 6, 9, 0,
                                                              5, 12, 3, 10, 14, 13, 11, 7};

struct tables {
    std::array<std::uint8_t, 256> to_code{};  // 0xFF: not a letter
    std::array<char, code_limit> to_letter{};  // '\0': not a valid code
    std::array<std::uint8_t, code_limit> bases{};
};

consteval tables make_tables() {
    tables t;
    for (auto& c : t.to_code) c = 0xFF;
    for (std::size_t i = 0; i < all_letters.size(); ++i) {
        const char upper = all_letters[i];
        const code c = letter_codes[i];
        t.to_code[static_cast<unsigned char>(upper)] = c;
        t.to_letter[c] = upper;
        t.bases[c] = letter_bases[i];
        if (upper != '-') {
            const char lower = static_cast<char>(upper | 0x20);
            t.to_code[static_cast<unsigned char>(lower)] = static_cast<std::uint8_t>(c | lower_bit);
            t.to_letter[c | lower_bit] = lower;
            t.bases[c | lower_bit] = letter_bases[i];
        }
    }
    return t;
}

inline constexpr tables alphabet_tables = make_tables();
}  // namespace detail

/// Code of an ASCII letter, or 0xFF when the byte is not one of the accepted letters.
[[nodiscard]] constexpr std::uint8_t to_code(char letter) noexcept {
    return detail::alphabet_tables.to_code[static_cast<unsigned char>(letter)];
}

/// Whether `c` is a code some letter has (codes of group 3, lower-case gaps and codes >= 64
/// are not).
[[nodiscard]] constexpr bool is_valid_code(std::uint32_t c) noexcept {
    return c < code_limit && detail::alphabet_tables.to_letter[c] != '\0';
}

/// The letter of a valid code.
[[nodiscard]] constexpr char to_letter(code c) noexcept { return detail::alphabet_tables.to_letter[c & 63]; }

/// The bases a valid code stands for: bit 0 A, bit 1 C, bit 2 G, bit 3 T (0 for the gap).
[[nodiscard]] constexpr std::uint8_t bases_of(code c) noexcept { return detail::alphabet_tables.bases[c & 63]; }

/// Complement of a valid code, case kept: A<->T, C<->G, R<->Y, K<->M, B<->V, D<->H; N, S, W
/// and '-' are their own complements. As planes: the base bits flip where the letter is a
/// plain base or in ambiguity group 1 or 2, i.e. P0 ^= M, P1 ^= M with M = ~P3 | P4 | P5.
[[nodiscard]] constexpr code complement(code c) noexcept {
    const bool flip = (c & special_bit) == 0 || (c & group_mask) != 0;
    return static_cast<code>(flip ? c ^ base_mask : c);
}

/// Complement of an ASCII letter (case kept); 0 when it is not a letter.
[[nodiscard]] constexpr char complement_letter(char letter) noexcept {
    const std::uint8_t c = to_code(letter);
    return c == 0xFF ? '\0' : to_letter(complement(c));
}

}  // namespace bitplane::dna
