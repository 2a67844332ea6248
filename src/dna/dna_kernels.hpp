// The SIMD kernels of the DNA part: ASCII letters <-> the six code planes of a block.
//
// One table per instruction set: dna_kernels_scalar.cpp (portable, the reference every other
// table is tested against), dna_kernels_sse2.cpp and dna_kernels_avx2.cpp (dna_kernels_impl.hpp
// written once over the xsimd architecture tag, compiled with each set's flags), and
// dna_kernels_avx512.cpp (intrinsics: 64-byte registers, vpopcntq, byte permutes, GFNI bit
// reversal). The table follows the library's SIMD path (active_simd_path(), BITPLANE_SIMD,
// set_simd_path).
#pragma once

#include <bitplane/block.hpp>
#include <bitplane/dna/alphabet.hpp>
#include <bitplane/simd.hpp>

#include <cstddef>
#include <cstdint>

namespace bitplane::dna::detail {

struct dna_kernel_table {
    simd_path path;

    /// letters[0..n), n <= 2048 -> code planes: bit i of planes[64 j + i / 32] = bit j of the code
    /// of letter i, for j < code_planes; bits at or past n are zero. `nonzero` gets bit j set when
    /// plane j has a set bit. Returns false when some letter is not in the alphabet (the planes
    /// are then unspecified).
    bool (*encode_letters)(const char* letters, std::size_t n, std::uint32_t* planes, std::uint32_t* nonzero);

    /// The inverse: code planes (only planes in `nonzero` are read, the others are taken as
    /// zero) -> letters[0..n). Codes must be valid (is_valid_code).
    void (*decode_letters)(const std::uint32_t* planes, std::uint32_t nonzero, std::size_t n, char* letters);

    // The operations below read code planes laid out as above (code_planes x 64 words) in which
    // every plane outside `nonzero` is all zero (written).

    /// Letters of a 2048-letter window by kind, out[0..7) = C, G, T (plain bases), specials (plane
    /// 3), N, gaps, soft-masked. A is what is left of the window's letter count.
    void (*count_codes)(const std::uint32_t* planes, std::uint32_t nonzero, std::uint64_t* out);

    /// popcount over the 64 words of OR_j (a_j XOR b_j), j in `compare` (a plane mask).
    std::uint64_t (*mismatch_planes)(const std::uint32_t* a, const std::uint32_t* b, std::uint32_t compare);

    /// out = the reverse complement of `in`: letter i of out is the complement (alphabet.hpp)
    /// of letter 2047 - i of in; letters at or past `count` are then cleared to code 0. Writes
    /// every plane of out; returns out's nonzero mask.
    std::uint32_t (*reverse_complement)(const std::uint32_t* in, std::uint32_t nonzero, std::size_t count,
                                        std::uint32_t* out);

    /// Shift-and over match masks: masks[j] points to 36 words (2304 bits: a window and the next
    /// 256 bits, then zeros) of "text letter i matches pattern letter j"; out[w] (32 words) gets
    /// bit b set when every masks[j] has bit 64 w + b + j set, for j < k (1 <= k <= 64).
    void (*shift_and)(const std::uint64_t* const* masks, std::size_t k, std::uint64_t* out);

    // Two-plane blocks (plain upper-case ACGT, the common case) read and written in place: the
    // all-raw interleaved payload of planes 0 and 1, 64 columns of (word of plane 0, word of
    // plane 1), 512 bytes at any alignment.

    /// payload -> planes 0 and 1 (64 words each).
    void (*deinterleave2)(const std::byte* payload, std::uint32_t* p0, std::uint32_t* p1);
    /// planes 0 and 1 -> payload.
    void (*interleave2)(const std::uint32_t* p0, const std::uint32_t* p1, std::byte* payload);
    /// out[0..3) = C, G, T of the 2048 n letters of blocks payloads[0..n) (A is the rest). Many
    /// blocks a call: the sums stay in registers, and the next blocks are prefetched.
    void (*count2)(const std::byte* const* payloads, std::size_t n, std::uint64_t* out);
    /// Letters that differ between blocks a[i] and b[i], summed over i < n.
    std::uint64_t (*mismatch2)(const std::byte* const* a, const std::byte* const* b, std::size_t n);

    /// Reverse complement of plain upper-case letters, payload to payload: the window is
    /// letters [shift, shift + 2048) (shift < 2048) of block `low` followed by block `high`
    /// (two payloads; with shift 0, `high` is read but unused), and payload letter i gets the
    /// complement of window letter 2047 - i. Returns bit j set when plane j of the result is
    /// neither all zero nor all one (3: the payload is a valid two-plane block).
    std::uint32_t (*revcomp2)(const std::byte* low, const std::byte* high, std::size_t shift, std::byte* payload);
};

const dna_kernel_table& scalar_dna_kernels() noexcept;
#if defined(BITPLANE_X86)
const dna_kernel_table& sse2_dna_kernels() noexcept;
const dna_kernel_table& avx2_dna_kernels() noexcept;
const dna_kernel_table& avx512_dna_kernels() noexcept;
#endif

/// The table of the active SIMD path (one atomic load).
const dna_kernel_table& dna_kernels();

}  // namespace bitplane::dna::detail
