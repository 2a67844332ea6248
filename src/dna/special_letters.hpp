// Blocks of plain upper-case bases with a few other letters: the "special letters", whose codes
// have a bit in planes 2-5 (lower case, N, ambiguity codes, gaps). Such a block is planes 0 and 1
// (a two-plane payload, which the payload kernels work on) plus a short list of its special
// letters. The reverse complement uses this form for blocks with scattered N or IUPAC codes:
// the payload kernel does the bulk, the few letters are fixed up one by one, and the block is
// written directly instead of through the codec's plane encoder (which chooses among every
// payload kind of every plane, about 0.5 us a block).
#pragma once

#include "dna/code_window.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace bitplane::dna::detail {

struct special_letter {
    std::uint16_t position;  ///< in the block (or window)
    code letter;             ///< its code, 4 or more
};

/// The letters of `window` (2048) whose codes have a bit in planes 2-5, in ascending position,
/// into `out`. Returns false, `out` then unspecified, when there are more than `limit`.
[[nodiscard]] bool find_special_letters(const code_window& window, std::size_t limit, std::vector<special_letter>& out);

enum class special_read { done, too_many, other_layout };

/// Reads sealed block `block` of `codes` in place when it has a layout that the DNA encoders
/// write for such blocks (plain dense block, planes 0 and 1 raw, the higher planes as
/// position, gap or run lists on the zero plane or on another higher plane): planes 0 and 1
/// into `payload` (interleaved, 512 bytes) and its special letters into `out`, in ascending
/// position, as find_special_letters would give them; `scratch` holds the block's planes
/// meanwhile. too_many: more than `limit` special letters; other_layout: any other block
/// (then read_block and find_special_letters).
[[nodiscard]] special_read read_special_block(const bitplane::vector<std::uint32_t>& codes, std::size_t block,
                                              std::size_t limit, code_window& scratch, std::byte* payload,
                                              std::vector<special_letter>& out);

/// Encodes a full window given as planes 0 and 1 (`payload`, interleaved as in a two-plane
/// block: see dna_kernels.hpp) and its special letters (ascending positions, fewer than 2048;
/// the payload holds their base bits already). Planes 0 and 1 are stored raw, each higher plane
/// as positions, gaps, runs or raw bits, whichever is smallest; the bytes are a plain dense
/// block (docs/format.md section 2) that the codec decodes and validates like its own. `out`
/// holds codec::max_block_bytes. Returns the size, or 0 when plane 0 or 1 has fewer than 256
/// set or clear bits (a window of mostly one base: the codec's encoder stores such a plane as a
/// list, smaller than raw; use encode_window).
[[nodiscard]] std::size_t encode_special_block(const std::byte* payload, std::span<const special_letter> letters,
                                               std::span<std::byte> out);

}  // namespace bitplane::dna::detail
