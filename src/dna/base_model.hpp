// The modeled payload of a packed DNA file (fasta.hpp, pack_mode::modeled): the letters split
// into a bit-plane vector of everything but the plain bases' base bits (case, N, ambiguity
// codes: usually all-zero blocks), and the plain bases coded by a context-mixing model and a
// binary arithmetic coder. docs/format.md and docs/dna.md describe it.
#pragma once

#include <bitplane/dna/sequence.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace bitplane::dna::detail {

/// Appends the modeled payload of `s`.
void write_modeled(const sequence& s, std::vector<std::byte>& out);

/// Reads a modeled payload of `letters` letters (`base`: its offset in the file, for errors).
/// format_error when its structure is wrong; the coded bases themselves are covered by the
/// file's checksum, and any bytes decode to some bases.
[[nodiscard]] bitplane::vector<std::uint32_t> read_modeled(std::span<const std::byte> payload, std::uint64_t base,
                                                           std::uint64_t letters);

}  // namespace bitplane::dna::detail
