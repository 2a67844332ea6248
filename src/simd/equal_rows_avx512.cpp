// The AVX-512 path's equality over an interleaved all-raw payload of 9 to 32 planes
// (kernel_table::equal_interleaved; kernels_avx512.cpp hands shorter rows to the AVX2 fold).
//
// Row c of the payload is the c-th word of every stored plane (rank 0, the bottom plane,
// first), so a row of up to 16 planes is one 512-bit load, and its equality is the AND of its
// 16 lanes after an XOR with the target's want mask. 16 rows are folded together by an
// AND-transpose (and_lanes16: 45 instructions for 16 rows, lane i = AND of row i's lanes), so
// each group of 16 columns costs a load and XOR per row plus the transpose, where the AVX2
// fold takes a load, XOR and AND per 8 words of a row and an 8-row transpose for every 8
// columns (bed_name, 19 planes: about 500 instructions a block there).
//
// Rows of more than 16 planes settle on their bottom 16 first (thresholds.hpp,
// scan_fold_first_registers: the same rule as the AVX2 fold): only where a column of the 16
// rows is still equal is the rest read, as the row's last 16 words (overlapping the first
// part: an AND does not mind a rank twice), one ternary-logic instruction a row.
#include "simd/equal_rows.hpp"

#include "simd/kernels.hpp"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#if !defined(__AVX512F__) || !defined(__AVX512VPOPCNTDQ__)
#error "equal_rows_avx512.cpp must be compiled with the AVX-512 path's flags (src/CMakeLists.txt)"
#endif

namespace bitplane::detail::equal_rows_avx512 {
namespace {

constexpr std::uint32_t group_rows = 16;  // rows (columns of 32 values) folded together

// lane i = the AND of the 16 lanes of r[i]: pairs of rows by 32-bit unpacks, then 64-bit
// unpacks (each 128-bit chunk then holds 4 rows, ANDed over that chunk), then the chunks of
// two registers regrouped and ANDed twice.
[[gnu::always_inline]] inline __m512i and_lanes16(const __m512i (&r)[group_rows]) noexcept {
    __m512i t[8];
    for (std::size_t i = 0; i < 8; ++i)
        t[i] = _mm512_and_si512(_mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]),
                                _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]));
    __m512i u[4];  // chunk k: rows 4j..4j+3, each ANDed over chunk k of its lanes
    for (std::size_t j = 0; j < 4; ++j)
        u[j] = _mm512_and_si512(_mm512_unpacklo_epi64(t[2 * j], t[2 * j + 1]),
                                _mm512_unpackhi_epi64(t[2 * j], t[2 * j + 1]));
    // Chunks (0, 2) of a and of b against chunks (1, 3): each row's chunks pairwise.
    const auto fold_chunks = [](__m512i a, __m512i b) {
        return _mm512_and_si512(_mm512_shuffle_i64x2(a, b, _MM_SHUFFLE(2, 0, 2, 0)),
                                _mm512_shuffle_i64x2(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
    };
    return fold_chunks(fold_chunks(u[0], u[1]), fold_chunks(u[2], u[3]));
}

// Rows of Stored planes (a constant: each row's loads then address one pointer plus a fixed
// offset, where a stride known only at run time had GCC keep 16 row pointers, half of them
// spilled, and step each one every group: about 50 instructions a group). Rows of more than
// 16 planes settle on the first 16 (Wide).
template <std::uint32_t Stored>
std::uint32_t fold_rows(const std::uint8_t* payload, std::uint32_t bits, std::uint32_t* eq) noexcept {
    static_assert(Stored >= min_planes && Stored <= plane_count);
    constexpr bool wide = Stored > 16;
    constexpr std::size_t stride = 4 * std::size_t{Stored};
    constexpr auto first_lanes = static_cast<__mmask16>(wide ? 0xFFFFu : (1u << Stored) - 1u);
    constexpr std::size_t last_at = wide ? stride - 64 : 0;  // the row's last 16 words (ranks Stored-16..)
    const std::uint64_t ranks = std::uint64_t{bits} & ((std::uint64_t{1} << Stored) - 1);
    // want: ~0 where the target's bit of the lane's rank is 0; lanes past a short row are
    // loaded as 0 and want ~0, so they count as equal.
    const __m512i want_first = _mm512_maskz_set1_epi32(static_cast<__mmask16>(~ranks & 0xFFFFu), -1);
    [[maybe_unused]] const __m512i want_last =
        _mm512_maskz_set1_epi32(static_cast<__mmask16>(~(ranks >> (wide ? Stored - 16 : 0)) & 0xFFFFu), -1);
    constexpr int and_xor = 0x60;  // A & (B ^ C) for A = 0xF0, B = 0xCC, C = 0xAA
    __m512i counts = _mm512_setzero_si512();
    for (std::size_t c = 0; c < plane_words; c += group_rows) {
        __m512i rows[group_rows];
        const std::uint8_t* first = payload + c * stride;
        for (std::size_t i = 0; i < group_rows; ++i) {
            const __m512i row = wide ? _mm512_loadu_si512(first + i * stride)
                                     : _mm512_maskz_loadu_epi32(first_lanes, first + i * stride);
            rows[i] = _mm512_xor_si512(row, want_first);
        }
        __m512i folded = and_lanes16(rows);
        if constexpr (wide) {
            if (_mm512_test_epi32_mask(folded, folded) == 0) {
                _mm512_storeu_si512(eq + c, folded);
                continue;
            }
            for (std::size_t i = 0; i < group_rows; ++i)
                rows[i] = _mm512_ternarylogic_epi32(rows[i], _mm512_loadu_si512(first + i * stride + last_at), want_last,
                                                    and_xor);
            folded = and_lanes16(rows);
        }
        _mm512_storeu_si512(eq + c, folded);
        counts = _mm512_add_epi64(counts, _mm512_popcnt_epi64(folded));
    }
    return static_cast<std::uint32_t>(_mm512_reduce_add_epi64(counts));
}

using fold_fn = std::uint32_t (*)(const std::uint8_t*, std::uint32_t, std::uint32_t*) noexcept;

template <std::uint32_t... K>
constexpr std::array<fold_fn, sizeof...(K)> make_folds(std::integer_sequence<std::uint32_t, K...>) noexcept {
    return {&fold_rows<min_planes + K>...};
}

// fold_rows by plane count, from min_planes.
constexpr auto folds = make_folds(std::make_integer_sequence<std::uint32_t, plane_count - min_planes + 1>{});

}  // namespace

std::uint32_t equal_interleaved(const std::uint8_t* payload, std::uint32_t stored, std::uint32_t bits,
                                std::uint32_t* eq) noexcept {
    return folds[stored - min_planes](payload, bits, eq);
}

}  // namespace bitplane::detail::equal_rows_avx512
