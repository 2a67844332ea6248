// Whole-block kernels of bitsets: a bitwise operation on two 2048-bit blocks that also counts
// the result's set bits and transitions (so that the result's encoding is chosen without a
// second pass), the counts alone, and the union of two sparse blocks' sorted positions.
//
// Blocks are 256 bytes at any alignment (raw payloads are read in place from the arena) in
// the raw payload's bit order. One table per instruction set: bitset_kernels.cpp holds the
// portable one (the reference every other is tested against), bitset_kernels_avx2.cpp the
// AVX2 + POPCNT one, bitset_kernels_avx512.cpp the AVX2 one with its counting kernels on
// AVX-512 (VPOPCNTQ). The table follows the SIMD path of the block codec
// (bitplane::active_simd_path(), BITPLANE_SIMD, set_simd_path): the AVX-512 table where that
// path is avx512, the AVX2 table where it is avx2, the portable one otherwise.
#pragma once

#include <bitplane/simd.hpp>

#include <cstddef>
#include <cstdint>

namespace bitplane::detail {

/// What choosing a block's encoding needs: set bits, and transitions of the 2048-bit block
/// read with a zero before bit 0 (popcount of p XOR (p << 1)); runs = (transitions + bit
/// 2047) / 2, see plane_bits.hpp.
struct block_stats {
    std::uint32_t count = 0;
    std::uint32_t transitions = 0;
};

/// What the stretch kernels' stats must tell apart (choose_plan(), checked in bitset_core.hpp):
/// a full-length block is never raw below stretch_raw_min set bits (positions are smaller), and
/// never runs from stretch_runs_never transitions on (runs >= 64 take 256 bytes, as raw).
inline constexpr std::uint32_t stretch_raw_min = 128;
inline constexpr std::uint32_t stretch_runs_never = 128;

struct bitset_kernel_table {
    simd_path path;
    /// out = a OP b over 256 bytes; returns the stats of out. `out` may be `a` or `b`.
    block_stats (*and_blocks)(const void* a, const void* b, void* out);
    block_stats (*or_blocks)(const void* a, const void* b, void* out);
    block_stats (*xor_blocks)(const void* a, const void* b, void* out);
    block_stats (*andnot_blocks)(const void* a, const void* b, void* out);  // a AND NOT b
    /// out = NOT a over all 2048 bits (the caller clears bits beyond a short block's length).
    block_stats (*not_block)(const void* a, void* out);
    /// The stats of one block.
    block_stats (*stats)(const void* a);
    /// The stats of one block, and its transitions into `t` (256 bytes): bit i of t is set
    /// where bit i of a differs from bit i - 1 (bit -1 being 0), so t's set bits are a's run
    /// bounds begin0, end0, begin1, ... (a run reaching bit 2047 has no end there). For blocks
    /// stored as runs: their bounds extracted from t, not from a second pass over a.
    block_stats (*stats_transitions)(const void* a, void* t);
    /// popcount(a AND b).
    std::uint32_t (*and_count)(const void* a, const void* b);
    /// Sorted distinct positions a[0..n) and b[0..m) of one block (< 2048) -> their union, or
    /// for xor_positions their symmetric difference, sorted, into out; returns its size. The
    /// inputs may be read up to 8 slots past their ends; `out` needs room for n + m + 24.
    std::uint32_t (*union_positions)(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b, std::uint32_t m,
                                     std::uint16_t* out);
    std::uint32_t (*xor_positions)(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b, std::uint32_t m,
                                   std::uint16_t* out);
    /// Sorted distinct positions a[0..n) and b[0..m) -> those of a that are (and_positions) or
    /// are not (andnot_positions) in b, into out; returns how many. As union_positions; `out`
    /// needs room for n + 24.
    std::uint32_t (*and_positions)(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b, std::uint32_t m,
                                   std::uint16_t* out);
    std::uint32_t (*andnot_positions)(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b,
                                      std::uint32_t m, std::uint16_t* out);
    /// The set bits of a 2048-bit block (256 bytes), ascending, into out (room for their
    /// number + 8); returns how many.
    std::uint32_t (*extract_positions)(const void* block, std::uint16_t* out);
    /// As extract_positions, for a block of few set bits (up to ~128: the scan builder's
    /// positions, sparse planes and run bounds): the AVX2 kernel (a table row a non-zero byte)
    /// on the AVX-512 path too, where VPCOMPRESSW's word at a time is faster only on denser
    /// blocks (dev VM, Zen 4, ns a block, bytes / VPCOMPRESSW, min of 40: find_eq frequent's
    /// run bounds of bam_ref_span 38.9 / 44.6, its sparse blocks of geoip4_country 39.0 / 39.5
    /// and geoip6_country 27.9 / 28.9; random bits: 65 45.3 / 57.6, 250 even, 800 179 / 92).
    std::uint32_t (*extract_sparse)(const void* block, std::uint16_t* out);
    /// Decodes a (validated) gaps payload of `bytes` < 256 bytes into its positions; returns
    /// their number. Reads up to 15 bytes past the payload (the arena's slack, or the rest of
    /// the 16-byte entry for an inline payload) and writes up to 8 positions past the last.
    std::uint32_t (*decode_gaps)(const std::byte* payload, std::uint32_t bytes, std::uint16_t* out);
    /// popcount(a AND b) over `blocks` consecutive 256-byte blocks (AND-count of runs of raw
    /// blocks whose payloads lie one after the other in both arenas).
    std::uint64_t (*and_count_span)(const void* a, const void* b, std::size_t blocks);
    /// out = a OP b over `blocks` consecutive 256-byte blocks (a stretch of raw blocks whose
    /// payloads lie one after the other; `out` may be `a` or `b`), stats[i] = block i's stats,
    /// except for transitions that cannot change the encoding: a block of fewer than
    /// stretch_raw_min set bits may report any lower bound of its transitions, one of
    /// stretch_runs_never transitions or more any value from stretch_runs_never up.
    void (*and_stretch)(const void* a, const void* b, void* out, std::size_t blocks, block_stats* stats);
    void (*or_stretch)(const void* a, const void* b, void* out, std::size_t blocks, block_stats* stats);
    void (*xor_stretch)(const void* a, const void* b, void* out, std::size_t blocks, block_stats* stats);
    void (*andnot_stretch)(const void* a, const void* b, void* out, std::size_t blocks, block_stats* stats);
    /// out[k] = base + in[k] for k < n, in[] being n little-endian u16 at any alignment (a
    /// positions payload read in place, or decoded positions): reads and writes nothing past n.
    void (*widen_positions64)(const void* in, std::uint32_t n, std::uint64_t base, std::uint64_t* out);
    void (*widen_positions32)(const void* in, std::uint32_t n, std::uint32_t base, std::uint32_t* out);
    /// out[k] = start + k for k < n (a run, a full block); writes nothing past n.
    void (*ramp64)(std::uint64_t start, std::uint32_t n, std::uint64_t* out);
    void (*ramp32)(std::uint32_t start, std::uint32_t n, std::uint32_t* out);
    /// The set bits of bytes[0, n) (a part of a raw payload, n <= 32, read at any alignment
    /// and nothing past n) as positions first + bit index, ascending, into out (room for their
    /// number + 8); returns how many.
    std::uint32_t (*extract_bits)(const std::byte* bytes, std::uint32_t n, std::uint32_t first, std::uint16_t* out);
};

const bitset_kernel_table& portable_bitset_kernels() noexcept;
#if defined(BITPLANE_X86)
const bitset_kernel_table& avx2_bitset_kernels() noexcept;
/// The AVX2 table with the counting kernels (stats, the block operations, and_count) on
/// 512-bit registers and VPOPCNTQ, and extract_positions by VPCOMPRESSW where the CPU has
/// AVX-512 VBMI2 (bitset_kernels_avx512.cpp).
const bitset_kernel_table& avx512_bitset_kernels() noexcept;
#endif

/// The table for the active SIMD path (one atomic load).
const bitset_kernel_table& bitset_kernels();

/// Union (Xor = false) or symmetric difference (Xor = true) of two sorted position lists,
/// by a merge with branch-free steps (the inputs interleave at random, so branches would
/// miss). The portable kernel, and what small blocks use before the vector kernels pay.
template <bool Xor>
inline std::uint32_t merge_positions(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b, std::uint32_t m,
                    std::uint16_t* out) noexcept {
    std::uint32_t i = 0, j = 0, k = 0;
    while (i < n && j < m) {
        const std::uint16_t x = a[i], y = b[j];
        out[k] = x < y ? x : y;
        k += Xor ? (x != y) : 1u;
        i += x <= y;
        j += y <= x;
    }
    while (i < n) out[k++] = a[i++];
    while (j < m) out[k++] = b[j++];
    return k;
}

}  // namespace bitplane::detail
