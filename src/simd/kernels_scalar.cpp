// The portable kernels: plain C++20, no intrinsics. This path runs everywhere and is the
// oracle the SIMD paths are tested against.
#include "simd/kernels.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>

namespace bitplane::detail {
namespace {

inline constexpr std::size_t column_values = 32;  // values per plane word

// In-place transpose of a 32 x 32 bit matrix, a[r] bit c = M[r][c] -> a[r] bit c = M[c][r].
// Recursive block swap (Hacker's Delight, 2nd ed., section 7-3, "transpose32"), here with
// bit 0 as column 0: at block size w, the upper-right w x w block of each 2w x 2w tile is
// exchanged with the lower-left one; five rounds of 16 swaps instead of 1024 bit moves.
void transpose32(std::uint32_t (&a)[column_values]) noexcept {
    std::uint32_t m = 0x0000FFFFu;
    for (unsigned w = 16; w != 0; w >>= 1, m ^= m << w) {
        for (unsigned r = 0; r < column_values; r = (r + w + 1) & ~w) {
            const std::uint32_t t = ((a[r] >> w) ^ a[r + w]) & m;
            a[r + w] ^= t;
            a[r] ^= t << w;
        }
    }
}

void transpose(const std::uint32_t* values, std::uint32_t* planes) noexcept {
    for (std::size_t c = 0; c < plane_words; ++c) {
        std::uint32_t a[column_values];
        for (std::size_t b = 0; b < column_values; ++b) {
            a[b] = values[column_values * c + b];
        }
        transpose32(a);
        for (std::size_t j = 0; j < plane_count; ++j) {
            planes[j * plane_words + c] = a[j];
        }
    }
}

void untranspose(const std::uint32_t* planes, std::uint32_t live, std::uint32_t* values) noexcept {
    for (std::size_t c = 0; c < plane_words; ++c) {
        std::uint32_t a[column_values];
        for (std::size_t j = 0; j < plane_count; ++j) {
            a[j] = ((live >> j) & 1u) != 0 ? planes[j * plane_words + c] : 0u;
        }
        transpose32(a);
        for (std::size_t b = 0; b < column_values; ++b) {
            values[column_values * c + b] = a[b];
        }
    }
}

inline std::uint64_t word64(const std::uint32_t* p, std::size_t k) noexcept {
    return static_cast<std::uint64_t>(p[2 * k]) | (static_cast<std::uint64_t>(p[2 * k + 1]) << 32);
}

// A plane with no set bit, or no clear bit, needs no pair scan: pop(p ^ 0) = pop(p) and
// pop(p ^ ~0) = 2048 - pop(p). (The SIMD paths do the same, kernels_impl.hpp.)
constexpr std::uint32_t plane_bits = plane_words * 32;

bool is_constant_plane(std::uint32_t pop) noexcept {
    return pop == 0 || pop == plane_bits;
}

std::uint32_t constant_pair(std::uint32_t pop_i, std::uint32_t pop_j) noexcept {
    if (pop_i == 0) return pop_j;
    if (pop_j == 0) return pop_i;
    return pop_i == plane_bits ? plane_bits - pop_j : plane_bits - pop_i;
}

void pair_popcounts(const std::uint32_t* planes, std::size_t count, std::uint16_t* out) noexcept {
    constexpr std::size_t words64 = plane_words / 2;
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t* pi = planes + i * plane_words;
        unsigned n = 0;
        for (std::size_t k = 0; k < words64; ++k) {
            n += static_cast<unsigned>(std::popcount(word64(pi, k)));
        }
        out[i * count + i] = static_cast<std::uint16_t>(n);
    }
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t* pi = planes + i * plane_words;
        const std::uint32_t pop_i = out[i * count + i];
        for (std::size_t j = i + 1; j < count; ++j) {
            const std::uint32_t pop_j = out[j * count + j];
            std::uint32_t d = 0;
            if (is_constant_plane(pop_i) || is_constant_plane(pop_j)) {
                d = constant_pair(pop_i, pop_j);
            } else {
                const std::uint32_t* pj = planes + j * plane_words;
                for (std::size_t k = 0; k < words64; ++k) {
                    d += static_cast<std::uint32_t>(std::popcount(word64(pi, k) ^ word64(pj, k)));
                }
            }
            out[i * count + j] = static_cast<std::uint16_t>(d);
            out[j * count + i] = static_cast<std::uint16_t>(d);
        }
    }
}

std::uint64_t popcount_words(const std::uint32_t* words, std::size_t count) noexcept {
    std::uint64_t total = 0;
    std::size_t k = 0;
    for (; k < count / 2; ++k) {
        total += static_cast<std::uint64_t>(std::popcount(word64(words, k)));
    }
    if (count % 2 != 0) {
        total += static_cast<std::uint64_t>(std::popcount(words[count - 1]));
    }
    return total;
}

void stats(const std::uint32_t* v, std::size_t count, value_stats* out) noexcept {
    value_stats r;
    for (std::size_t k = 0; k < count; ++k) {
        const std::uint32_t x = v[k];
        const auto sx = static_cast<std::int32_t>(x);
        r.any |= x;
        r.all &= x;
        r.umin = r.umin < x ? r.umin : x;
        r.umax = r.umax > x ? r.umax : x;
        r.smin = r.smin < sx ? r.smin : sx;
        r.smax = r.smax > sx ? r.smax : sx;
        const std::uint32_t zz = (x << 1) ^ static_cast<std::uint32_t>(sx >> 31);
        r.zz_any |= zz;
        r.zz_all &= zz;
        if (k > 0) {
            const auto d = static_cast<std::int32_t>(x - v[k - 1]);
            r.dmin = r.dmin < d ? r.dmin : d;
            r.dmax = r.dmax > d ? r.dmax : d;
        }
    }
    *out = r;
}

constexpr kernel_table table{simd_path::scalar, &transpose, &untranspose, &pair_popcounts, &popcount_words, &stats};

}  // namespace

const kernel_table& scalar_kernels() noexcept {
    return table;
}

}  // namespace bitplane::detail
