// The portable kernels: plain C++20, no intrinsics. This path runs everywhere and is the
// oracle the SIMD paths are tested against.
#include "simd/kernels.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

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

// Constant planes need no pair scan (is_constant_plane, constant_pair: kernels.hpp).
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
    for (std::size_t k = 0; k < count; ++k) fold_value_stats(r, v, k);
    *out = r;
}

// ---- reductions and similarity (issue #3) ---------------------------------------------------

void and_popcounts(const std::uint32_t* const* a, std::size_t na, const std::uint32_t* const* b, std::size_t nb,
                   std::size_t words, std::uint32_t* out) noexcept {
    words = words < plane_words ? words : plane_words;
    for (std::size_t j = 0; j < na; ++j) {
        for (std::size_t k = 0; k < nb; ++k) {
            std::uint32_t n = 0;
            std::size_t w = 0;
            for (; w + 2 <= words; w += 2) {
                n += static_cast<std::uint32_t>(std::popcount(word64(a[j], w / 2) & word64(b[k], w / 2)));
            }
            if (w < words) n += static_cast<std::uint32_t>(std::popcount(a[j][w] & b[k][w]));
            out[j * nb + k] = n;
        }
    }
}

// 64-bit products summed into a 128-bit total; signed values as int32 (two's complement).
void dot_values(const std::uint32_t* a, const std::uint32_t* b, std::size_t count, bool is_signed,
                std::uint64_t* out) noexcept {
    __extension__ typedef unsigned __int128 wide;
    wide total = 0;
    if (is_signed) {
        for (std::size_t i = 0; i < count; ++i) {
            const std::int64_t p = static_cast<std::int64_t>(static_cast<std::int32_t>(a[i])) *
                                   static_cast<std::int32_t>(b[i]);
            total += static_cast<wide>(p);  // modulo 2^128: sign-extended
        }
    } else {
        for (std::size_t i = 0; i < count; ++i) total += static_cast<std::uint64_t>(a[i]) * b[i];
    }
    out[0] = static_cast<std::uint64_t>(total);
    out[1] = static_cast<std::uint64_t>(total >> 64);
}

void deposit_plane(const std::uint32_t* compact, const std::uint32_t* mask, std::uint32_t* out) noexcept {
    std::uint32_t taken = 0;  // compact bits consumed so far
    for (std::size_t w = 0; w < plane_words; ++w) {
        std::uint32_t m = mask[w];
        std::uint32_t word = 0;
        for (; m != 0; m &= m - 1, ++taken) {
            if (((compact[taken >> 5] >> (taken & 31u)) & 1u) != 0) word |= m & (0u - m);
        }
        out[w] = word;
    }
}

void extract_plane(const std::uint32_t* p, const std::uint32_t* select, std::size_t words, std::uint32_t* out) noexcept {
    words = words < plane_words ? words : plane_words;
    for (std::size_t w = 0; w < words; ++w) out[w] = 0;
    std::uint32_t next = 0;  // output bits written so far
    for (std::uint32_t i = 0; i < words * 32; ++i) {
        if (((select[i >> 5] >> (i & 31u)) & 1u) == 0) continue;
        out[next >> 5] |= ((p[i >> 5] >> (i & 31u)) & 1u) << (next & 31u);
        ++next;
    }
}

// ---- scans (issue #3) ------------------------------------------------------------------------

std::uint32_t load_word(const std::uint8_t* p) noexcept {
    std::uint32_t w;
    std::memcpy(&w, p, sizeof w);
    return w;
}

// One word per column; the SIMD paths (kernels_impl.hpp) do the same with wider columns.
void compare_planes(const compare_job* job, std::uint32_t* eq, std::uint32_t* lt) noexcept {
    std::uint32_t range_lt[plane_words];  // a range_into job: target 0's lt, then the answer
    const bool range = job->range_into != nullptr && job->targets == 2 && job->need_lt;
    std::uint32_t counted = 0;
    for (std::uint32_t t = 0; t < job->targets; ++t) {
        for (std::size_t c = 0; c < job->words; ++c) {
            // Planes apart (compare_job::planes) have no base.
            const std::uint8_t* column = job->planes != nullptr ? nullptr : job->base + c * job->stride;
            std::uint32_t e = ~0u;
            std::uint32_t l = 0;
            for (std::uint32_t k = 0; k < job->steps[t]; ++k) {
                const std::uint32_t w =
                    load_word(job->planes != nullptr ? job->planes[k] + 4 * c : column + job->offset[k]);
                if (((job->bits[t] >> k) & 1u) != 0) {
                    l |= e & ~w;
                    e &= w;
                } else {
                    e &= ~w;
                }
            }
            if (job->finish[t] == compare_job::finish_lt) l |= e;
            if (job->finish[t] != compare_job::finish_none) e = 0;
            if (range) {
                if (t == 0) range_lt[c] = l;
                else job->range_into[c] = ((l | e) & ~range_lt[c]) ^ job->range_flip;
                if (t == 1) counted += static_cast<std::uint32_t>(std::popcount(job->range_into[c]));
                continue;
            }
            eq[t * plane_words + c] = e;
            if (job->need_lt) lt[t * plane_words + c] = l;
        }
    }
    if (range && job->range_count != nullptr) *job->range_count = counted;
}

// ---- reductions, interleaved blocks (issue #3) ------------------------------------------------

std::uint32_t payload_word(const std::uint8_t* payload, std::size_t index) noexcept {
    std::uint32_t w;
    std::memcpy(&w, payload + 4 * index, sizeof w);
    return w;
}

// `ahead` is only a performance hint; the portable kernels ignore it.
void interleaved_popcounts(const std::uint8_t* payload, std::uint32_t stored, std::uint32_t* counts,
                           const std::uint8_t* /*ahead*/, std::size_t /*ahead_bytes*/) noexcept {
    for (std::uint32_t i = 0; i < stored; ++i) {
        std::uint32_t n = 0;
        for (std::size_t c = 0; c < plane_words; ++c) {
            n += static_cast<std::uint32_t>(std::popcount(payload_word(payload, c * stored + i)));
        }
        counts[i] = n;
    }
}

void interleaved_transpose(const std::uint8_t* payload, std::uint32_t live, std::uint32_t* out,
                           const std::uint8_t* /*ahead*/, std::size_t /*ahead_bytes*/) noexcept {
    const auto stored = static_cast<std::size_t>(std::popcount(live));
    for (std::size_t c = 0; c < plane_words; ++c) {
        std::uint32_t a[column_values] = {};
        std::size_t rank = 0;
        for (std::uint32_t rest = live; rest != 0; rest &= rest - 1, ++rank) {
            a[std::countr_zero(rest)] = payload_word(payload, c * stored + rank);
        }
        transpose32(a);  // a[j] = value 32 c + j
        for (std::size_t j = 0; j < column_values; ++j) out[column_values * c + j] = a[j];
    }
}

// The reference: every column's word pairs, one by one.
void interleaved_and_popcounts(const interleaved_operand* a, const interleaved_operand* b, std::uint32_t* pairs,
                               std::uint32_t* pop_a, std::uint32_t* pop_b) noexcept {
    const auto stored_a = static_cast<std::uint32_t>(std::popcount(a->live));
    const auto stored_b = static_cast<std::uint32_t>(std::popcount(b->live));
    interleaved_popcounts(a->payload, stored_a, pop_a, nullptr, 0);
    interleaved_popcounts(b->payload, stored_b, pop_b, nullptr, 0);
    for (std::uint32_t j = 0; j < stored_a; ++j) {
        for (std::uint32_t k = 0; k < stored_b; ++k) {
            std::uint32_t n = 0;
            for (std::size_t c = 0; c < plane_words; ++c) {
                n += static_cast<std::uint32_t>(
                    std::popcount(payload_word(a->payload, c * stored_a + j) & payload_word(b->payload, c * stored_b + k)));
            }
            pairs[j * stored_b + k] = n;
        }
    }
}

// The reference: every set bit visited, its position added.
void word_moments(const std::uint8_t* words, std::size_t stride, std::size_t count, bool positions,
                  std::uint64_t* out) noexcept {
    std::uint64_t pop = 0;
    std::uint64_t sum = 0;
    for (std::size_t c = 0; c < count; ++c) {
        std::uint32_t w;
        std::memcpy(&w, words + c * stride, sizeof w);
        for (; w != 0; w &= w - 1) {
            ++pop;
            sum += 32 * c + static_cast<std::uint64_t>(std::countr_zero(w));
        }
    }
    out[0] = pop;
    out[1] = positions ? sum : 0;
}

constexpr kernel_table table{.path = simd_path::scalar,
                             .transpose = &transpose,
                             .untranspose = &untranspose,
                             .pair_popcounts = &pair_popcounts,
                             .popcount_words = &popcount_words,
                             .stats = &stats,
                             .key_presence = &key_presence_bytes,
                             .and_popcounts = &and_popcounts,
                             .dot_values = &dot_values,
                             .deposit_plane = &deposit_plane,
                             .compare_planes = &compare_planes,
                             .interleaved_popcounts = &interleaved_popcounts,
                             .interleaved_transpose = &interleaved_transpose,
                             .extract_plane = &extract_plane,
                             .interleaved_and_popcounts = &interleaved_and_popcounts,
                             .word_moments = &word_moments,
                             .interleaved_dot = nullptr};

}  // namespace

const kernel_table& scalar_kernels() noexcept {
    return table;
}

}  // namespace bitplane::detail
