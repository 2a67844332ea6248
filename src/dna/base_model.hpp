// The modeled payload of a packed DNA file (fasta.hpp, pack_mode::modeled): the letters split
// into a bit-plane vector of everything but the plain bases' base bits (case, N, ambiguity
// codes: usually all-zero blocks), and the plain bases coded by a context-mixing model and a
// binary arithmetic coder. docs/format.md and docs/dna.md describe it.
#pragma once

#include <bitplane/dna/fasta.hpp>
#include <bitplane/dna/sequence.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace bitplane::dna::detail {

/// Which arithmetic of the base model coded a modeled payload (docs/format.md section 6, flag
/// bit 4 of a packed DNA file). v1: the mixer's weights are never bounded and its sums wrap at
/// 32 bits, so that long exact repeats saturate it and then wrap it into noise (issue #14: 2.4
/// bits per base on 20 copies of a random 200 kb sequence); kept to read files written before.
/// v2: no mixer step where the clamped output already agrees with the bit, weights clamped to
/// +-16, 64-bit sums; what `pack` writes.
enum class modeled_coder : std::uint8_t { v1 = 1, v2 = 2 };

/// Appends the modeled payload of `s`, coded by `coder`.
void write_modeled(const sequence& s, std::vector<std::byte>& out, modeled_coder coder = modeled_coder::v2);

/// Reads a modeled payload of `letters` letters (`base`: its offset in the file, for errors)
/// that `coder` wrote. format_error when its structure is wrong; the coded bases themselves
/// are covered by the file's checksum, and any bytes decode to some bases.
[[nodiscard]] bitplane::vector<std::uint32_t> read_modeled(std::span<const std::byte> payload, std::uint64_t base,
                                                           std::uint64_t letters, modeled_coder coder = modeled_coder::v2);

/// dna::pack with the modeled coder chosen (pack uses v2): v1 lets tests write the bytes of
/// files written before v2 existed. `coder` is ignored in planes mode.
void pack_with_coder(const fasta& f, std::vector<std::byte>& out, pack_mode mode, modeled_coder coder);

}  // namespace bitplane::dna::detail
