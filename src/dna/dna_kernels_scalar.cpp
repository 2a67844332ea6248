// The portable DNA kernels, a letter at a time through the alphabet tables: the reference the
// SIMD tables are tested against, and the choice of table.
#include "dna/dna_kernels.hpp"

#include "simd/kernels.hpp"

#include <cstring>

namespace bitplane::dna::detail {
namespace {

bool encode_letters(const char* letters, std::size_t n, std::uint32_t* planes, std::uint32_t* nonzero) {
    std::memset(planes, 0, code_planes * plane_words * sizeof(std::uint32_t));
    std::uint32_t seen = 0;
    std::uint32_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t c = to_code(letters[i]);
        bad |= c >> 7;  // 0xFF marks a byte that is not a letter
        seen |= c;
        for (unsigned j = 0; j < code_planes; ++j)
            planes[j * plane_words + i / 32] |= ((c >> j) & 1u) << (i % 32);
    }
    *nonzero = bad ? 0 : seen;
    return bad == 0;
}

void decode_letters(const std::uint32_t* planes, std::uint32_t nonzero, std::size_t n, char* letters) {
    for (std::size_t i = 0; i < n; ++i) {
        unsigned c = 0;
        for (unsigned j = 0; j < code_planes; ++j)
            if ((nonzero >> j) & 1u) c |= ((planes[j * plane_words + i / 32] >> (i % 32)) & 1u) << j;
        letters[i] = to_letter(static_cast<code>(c));
    }
}

std::uint32_t popcount32(std::uint32_t w) noexcept {
    w = w - ((w >> 1) & 0x55555555u);
    w = (w & 0x33333333u) + ((w >> 2) & 0x33333333u);
    w = (w + (w >> 4)) & 0x0F0F0F0Fu;
    return (w * 0x01010101u) >> 24;
}

void count_codes(const std::uint32_t* planes, std::uint32_t, std::uint64_t* out) {
    for (std::size_t k = 0; k < 7; ++k) out[k] = 0;
    for (std::size_t w = 0; w < plane_words; ++w) {
        std::uint32_t p[code_planes];
        for (unsigned j = 0; j < code_planes; ++j) p[j] = planes[j * plane_words + w];
        const std::uint32_t plain = ~p[3];
        const std::uint32_t group0 = p[3] & ~p[4] & ~p[5];
        out[0] += popcount32(plain & p[0] & ~p[1]);
        out[1] += popcount32(plain & ~p[0] & p[1]);
        out[2] += popcount32(plain & p[0] & p[1]);
        out[3] += popcount32(p[3]);
        out[4] += popcount32(group0 & ~p[0] & ~p[1]);
        out[5] += popcount32(group0 & p[0] & p[1]);
        out[6] += popcount32(p[2]);
    }
}

std::uint64_t mismatch_planes(const std::uint32_t* a, const std::uint32_t* b, std::uint32_t compare) {
    std::uint64_t n = 0;
    for (std::size_t w = 0; w < plane_words; ++w) {
        std::uint32_t diff = 0;
        for (unsigned j = 0; j < code_planes; ++j)
            if ((compare >> j) & 1u) diff |= a[j * plane_words + w] ^ b[j * plane_words + w];
        n += popcount32(diff);
    }
    return n;
}

std::uint32_t reverse_complement(const std::uint32_t* in, std::uint32_t, std::size_t count, std::uint32_t* out) {
    // Letter by letter: the code of letter 2047 - i, complemented (the reference for the SIMD
    // tables, which work on whole words).
    for (unsigned j = 0; j < code_planes; ++j)
        for (std::size_t w = 0; w < plane_words; ++w) out[j * plane_words + w] = 0;
    std::uint32_t nonzero = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t src = block_values - 1 - i;
        unsigned c = 0;
        for (unsigned j = 0; j < code_planes; ++j) c |= ((in[j * plane_words + src / 32] >> (src % 32)) & 1u) << j;
        c = complement(static_cast<code>(c));
        nonzero |= c;
        for (unsigned j = 0; j < code_planes; ++j) out[j * plane_words + i / 32] |= ((c >> j) & 1u) << (i % 32);
    }
    return nonzero;
}

void shift_and(const std::uint64_t* const* masks, std::size_t k, std::uint64_t* out) {
    for (std::size_t w = 0; w < 32; ++w) {
        std::uint64_t r = ~std::uint64_t{0};
        for (std::size_t j = 0; j < k && r != 0; ++j) {
            const std::uint64_t* m = masks[j];
            r &= j == 0 ? m[w] : (m[w] >> j) | (m[w + 1] << (64 - j));
        }
        out[w] = r;
    }
}

std::uint32_t word_at(const std::byte* payload, std::size_t i) noexcept {
    std::uint32_t w;
    std::memcpy(&w, payload + 4 * i, 4);
    return w;
}

void deinterleave2(const std::byte* payload, std::uint32_t* p0, std::uint32_t* p1) {
    for (std::size_t c = 0; c < plane_words; ++c) {
        p0[c] = word_at(payload, 2 * c);
        p1[c] = word_at(payload, 2 * c + 1);
    }
}

void interleave2(const std::uint32_t* p0, const std::uint32_t* p1, std::byte* payload) {
    for (std::size_t c = 0; c < plane_words; ++c) {
        std::memcpy(payload + 8 * c, p0 + c, 4);
        std::memcpy(payload + 8 * c + 4, p1 + c, 4);
    }
}

void count2(const std::byte* const* payloads, std::size_t n, std::uint64_t* out) {
    out[0] = out[1] = out[2] = 0;
    for (std::size_t k = 0; k < n; ++k) {
        for (std::size_t c = 0; c < plane_words; ++c) {
            const std::uint32_t a = word_at(payloads[k], 2 * c), b = word_at(payloads[k], 2 * c + 1);
            out[0] += popcount32(a & ~b);
            out[1] += popcount32(~a & b);
            out[2] += popcount32(a & b);
        }
    }
}

std::uint64_t mismatch2(const std::byte* const* a, const std::byte* const* b, std::size_t n) {
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < n; ++k)
        for (std::size_t c = 0; c < plane_words; ++c)
            total += popcount32((word_at(a[k], 2 * c) ^ word_at(b[k], 2 * c)) | (word_at(a[k], 2 * c + 1) ^ word_at(b[k], 2 * c + 1)));
    return total;
}

std::uint32_t revcomp2(const std::byte* low, const std::byte* high, std::size_t shift, std::byte* payload) {
    std::uint32_t in[2][2 * plane_words];
    deinterleave2(low, in[0], in[1]);
    deinterleave2(high, in[0] + plane_words, in[1] + plane_words);
    std::uint32_t out[2][plane_words] = {};
    for (std::size_t i = 0; i < block_values; ++i) {
        const std::size_t src = shift + block_values - 1 - i;
        for (unsigned j = 0; j < 2; ++j) {
            const std::uint32_t bit = ((in[j][src / 32] >> (src % 32)) & 1u) ^ 1u;  // complement: NOT
            out[j][i / 32] |= bit << (i % 32);
        }
    }
    interleave2(out[0], out[1], payload);
    std::uint32_t result = 0;
    for (unsigned j = 0; j < 2; ++j) {
        std::uint32_t any = 0, all = ~0u;
        for (std::size_t w = 0; w < plane_words; ++w) {
            any |= out[j][w];
            all &= out[j][w];
        }
        result |= static_cast<std::uint32_t>(any != 0 && all != ~0u) << j;
    }
    return result;
}

constexpr dna_kernel_table scalar_table{.path = simd_path::scalar,
                                        .encode_letters = encode_letters,
                                        .decode_letters = decode_letters,
                                        .count_codes = count_codes,
                                        .mismatch_planes = mismatch_planes,
                                        .reverse_complement = reverse_complement,
                                        .shift_and = shift_and,
                                        .deinterleave2 = deinterleave2,
                                        .interleave2 = interleave2,
                                        .count2 = count2,
                                        .mismatch2 = mismatch2,
                                        .revcomp2 = revcomp2};

}  // namespace

const dna_kernel_table& scalar_dna_kernels() noexcept { return scalar_table; }

const dna_kernel_table& dna_kernels() {
#if defined(BITPLANE_X86)
    switch (bitplane::detail::active_kernels().path) {
        case simd_path::avx512: return avx512_dna_kernels();
        case simd_path::avx2: return avx2_dna_kernels();
        case simd_path::sse2: return sse2_dna_kernels();
        default: break;
    }
#endif
    return scalar_table;
}

}  // namespace bitplane::dna::detail
