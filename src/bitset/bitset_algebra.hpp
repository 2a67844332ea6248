// Set algebra on two stored blocks (neither empty nor full; the summary walk in
// bitset_algebra.cpp handles every case with an empty or full block without calling these).
// One file per kind of operation, as CRoaring's mixed_*.c:
//   block_intersection.cpp   AND, AND-count, ANDNOT (results no larger than one operand)
//   block_union.cpp          OR, XOR
//   block_complement.cpp     NOT
// Strategies, by the operands' encodings ("sparse" = positions or gaps):
//   raw with raw              one SIMD kernel pass (bitset_kernels.hpp) that also counts the
//                             result's bits and transitions, so its encoding is chosen at once;
//   sparse with anything      for AND/ANDNOT: the sparse side's positions filtered by probing the
//                             other side (raw bits in place, or the other side spread into a
//                             plane); for OR/XOR of few bits: a merge of the sorted positions;
//   anything else             both blocks as planes (raw payloads read in place), the kernel.
#pragma once

#include "bitset/bitset_core.hpp"

#include <cstddef>
#include <cstdint>

namespace bitplane::detail {

/// A stored block of an operand.
struct block_ref {
    const block_entry* entry;
    const std::byte* payload;
};

inline bool is_sparse(block_kind k) noexcept { return k == block_kind::positions || k == block_kind::gaps; }

/// What every block operation of one set operation shares.
struct block_context {
    const bitset_kernel_table& kernels;  // fetched once per set operation
};

void and_blocks(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_ref& b,
                const block_context& c);
void andnot_blocks(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_ref& b,
                   const block_context& c);
std::uint32_t and_count_blocks(std::uint32_t len, const block_ref& a, const block_ref& b, const block_context& c);
void or_blocks(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_ref& b,
               const block_context& c);
void xor_blocks(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_ref& b,
                const block_context& c);
void not_block(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_context& c);

}  // namespace bitplane::detail
