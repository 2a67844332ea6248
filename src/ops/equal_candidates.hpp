// An equality on a dense block, answered from the few positions one of its list planes allows.
//
// A list plane (gap list, position list) that keeps only its own positions for the target (its
// base differs from the target's bit: the residual equals the target only where the plane
// lists a position) leaves those positions as the only candidates. Each other plane is then
// asked about the candidates alone: lists merged with them (kept or dropped by membership),
// raw payloads and gap maps read bit by bit. No 2048-bit word is built, and the plane table is
// read once, from the block's read plan (direct_access.hpp). bam_mapq's and geoip4_size's rare
// values: a block of about five gap lists, each walked in full or marked into a byte map and
// packed before (about 1.4K instructions a block on bam_mapq, AVX2).
#pragma once

#include <bitplane/block.hpp>
#include <bitplane/detail/block_descriptor.hpp>

#include <cstddef>
#include <cstdint>

namespace bitplane::detail {

/// Whether the equality (residual == `target`) on dense block `d` (bytes `bytes`) can be
/// answered from candidates: the block has a read plan `plan` (and `skips`, its gaps side
/// entries, where the plan names gap lists), no plane whose payload is its base (or whose base
/// is itself) rules the target out, and its shortest list plane that keeps its positions holds
/// at most thresholds::equal_candidates_max of them. Then `count` gets the number of positions
/// below d.length where every plane agrees with the target, and, where `out` is not null, words
/// [0, plane_words) of `out` get their bits (nothing else set); with `out`, `count` may instead
/// be equal_not_counted where counting would take a pass of its own (the finds count the plane
/// as they store it). The caller has settled the constant planes: `target`'s bits on planes not
/// live are d.ones's.
inline constexpr std::uint32_t equal_not_counted = ~0u;
bool equal_by_candidates(const block_descriptor& d, const std::byte* bytes, const std::uint32_t* plan,
                         const std::uint32_t* skips, std::uint32_t target, std::uint8_t* marks,
                         std::uint32_t* out, std::uint32_t& count) noexcept;

}  // namespace bitplane::detail
