// The seed algorithm, the baseline bitplane's codec benchmarks are measured against.
//
// Written afresh after A. Kuznetsov and I. Tolstoy, "SSE2 vs CUDA in parallel bit stream
// transposition / similarity" (BitMagic, 2009; ../shared/seeds/000_fcccd1cb75b1e65b.txt):
//
//   1. bit_block_transpose: a block of 2048 32-bit values becomes 32 rows (bit-planes) of 64
//      words; word `col` of row j gathers bit j of the 32 values block[32 * col .. 32 * col + 31]
//      with a shift, a mask and an or per value (the article's fully unrolled inner loop, here
//      unrolled by a fold expression).
//   2. bit_block_tmatrix_distance: the 32 x 32 matrix of Hamming distances between rows, by
//      per-word popcount of row_i XOR row_j. As in the article's CUDA kernel, words are read
//      64 bits at a time, the diagonal holds each row's population count, and every pair is
//      counted once (the article's triangular loop) and mirrored, so the full matrix is filled.
//
// Plain scalar C++ with no dependence on bitplane: the layout (plane j, word c, bit b = bit j of
// value 32c + b) happens to match bitplane::block_planes, which bench_codec.cpp checks once.
// std::popcount compiles to a libgcc call unless the popcnt instruction is enabled; the
// `_hwpopcnt` twin enables it (x86, GCC/Clang), so that the baseline can be read both ways.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

namespace seed_baseline {

inline constexpr std::size_t block_values = 2048;
inline constexpr std::size_t rows = 32;        // bit-planes
inline constexpr std::size_t row_words = 64;   // 32-bit words per plane
inline constexpr std::size_t row_words64 = row_words / 2;

struct tmatrix {
    alignas(64) std::uint32_t row[rows][row_words];
};

struct distance_matrix {
    std::uint32_t d[rows][rows];
};

namespace detail {
// bit j of block[0..31], gathered into one word: the article's 32-term shift/mask/or expression.
template <std::size_t... B>
inline std::uint32_t gather_bit(const std::uint32_t* block, unsigned j, std::index_sequence<B...>) noexcept {
    return ((((block[B] >> j) & 1u) << B) | ...);
}

[[gnu::always_inline]] inline std::uint32_t popcount(std::uint64_t w) noexcept {
    return static_cast<std::uint32_t>(std::popcount(w));
}

inline std::uint64_t word64(const std::uint32_t* row, std::size_t k) noexcept {
    std::uint64_t w;
    std::memcpy(&w, row + 2 * k, sizeof w);
    return w;
}

// The distance loop, written once for both popcount flavours: it and `popcount` are always
// inlined, so that the `_hwpopcnt` caller compiles them with its own target flags.
[[gnu::always_inline]] inline void distance(const tmatrix& t, distance_matrix& out) noexcept {
    for (std::size_t i = 0; i < rows; ++i) {
        const std::uint32_t* ri = t.row[i];
        std::uint32_t diag = 0;
        for (std::size_t k = 0; k < row_words64; ++k) diag += popcount(word64(ri, k));
        out.d[i][i] = diag;
        for (std::size_t j = i + 1; j < rows; ++j) {
            const std::uint32_t* rj = t.row[j];
            std::uint32_t count = 0;
            for (std::size_t k = 0; k < row_words64; ++k) count += popcount(word64(ri, k) ^ word64(rj, k));
            out.d[i][j] = count;
            out.d[j][i] = count;
        }
    }
}
}  // namespace detail

/// Transposes exactly 2048 values into 32 rows of 64 words.
inline void transpose(const std::uint32_t* block, tmatrix& out) noexcept {
    for (std::size_t col = 0; col < row_words; ++col, block += 32) {
        for (unsigned j = 0; j < rows; ++j) {
            out.row[j][col] = detail::gather_bit(block, j, std::make_index_sequence<32>{});
        }
    }
}

/// The full 32 x 32 Hamming matrix of the rows, diagonal = popcount of each row; std::popcount
/// as the build flags make it.
inline void hamming(const tmatrix& t, distance_matrix& out) noexcept {
    detail::distance(t, out);
}

/// Transpose + Hamming matrix of one block: the whole seed algorithm.
inline void transpose_hamming(const std::uint32_t* block, tmatrix& t, distance_matrix& out) noexcept {
    transpose(block, t);
    hamming(t, out);
}

#if defined(__x86_64__) && defined(__GNUC__)
inline constexpr bool has_hwpopcnt_twin = true;

/// `hamming` with the popcnt instruction allowed (the CPU must have it).
__attribute__((target("popcnt"))) inline void hamming_hwpopcnt(const tmatrix& t, distance_matrix& out) noexcept {
    detail::distance(t, out);
}

__attribute__((target("popcnt"))) inline void transpose_hamming_hwpopcnt(const std::uint32_t* block, tmatrix& t,
                                                                         distance_matrix& out) noexcept {
    transpose(block, t);
    hamming_hwpopcnt(t, out);
}
#else
inline constexpr bool has_hwpopcnt_twin = false;
#endif

}  // namespace seed_baseline
