// The DNA kernels, written once over an xsimd architecture tag (see dna_kernels.hpp).
//
// As in simd/kernels_impl.hpp, each instruction-set translation unit defines
// BITPLANE_DNA_KERNEL_NS before including this file, so that the same inline functions compiled
// with different flags land in different namespaces. What xsimd 8.1 lacks (byte movemask, byte
// shuffles) is in small helpers overloaded on the architecture tag: the codec kernels' own
// (simd/arch_helpers.hpp, compiled here in a namespace of this unit's), plus the few only DNA
// needs.
//
// Letters to planes: a plane word is 32 letters. The common case -- all 32 letters in ACGTacgt
// -- needs no table: with A 0x41, C 0x43, G 0x47, T 0x54, the G-or-T plane (code bit 1) is ASCII
// bit 2, the C-or-T plane (code bit 0) is ASCII bit 1 XOR bit 2, and lower case is ASCII bit 5,
// so three movemasks of shifted bytes give the three planes. Other words (N, ambiguity codes,
// bad bytes) go through the code table a byte at a time and are then sliced the same way.
#pragma once

#ifndef BITPLANE_DNA_KERNEL_NS
#error "define BITPLANE_DNA_KERNEL_NS before including dna_kernels_impl.hpp"
#endif

#include "dna/dna_kernels.hpp"

#include <xsimd/xsimd.hpp>

#define BITPLANE_KERNEL_NS BITPLANE_DNA_KERNEL_NS
#include "simd/arch_helpers.hpp"
#undef BITPLANE_KERNEL_NS

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

namespace bitplane::dna::detail::BITPLANE_DNA_KERNEL_NS {

using bitplane::detail::BITPLANE_DNA_KERNEL_NS::byte_movemask;
using bitplane::detail::BITPLANE_DNA_KERNEL_NS::u8;
template <class A>
using u16 = xsimd::batch<std::uint16_t, A>;

// ---- what xsimd 8.1 lacks, beyond simd/arch_helpers.hpp ------------------------------------

inline std::uint32_t byte_movemask(const xsimd::batch_bool<std::uint8_t, xsimd::sse2>& x, xsimd::sse2) noexcept {
    return static_cast<std::uint32_t>(_mm_movemask_epi8(x));
}

// Codes (< 16) to letters through a 16-byte table; SSE2 has no byte shuffle, so a byte loop.
inline void codes_to_letters16(const std::uint8_t* codes, char* out, xsimd::sse2) noexcept {
    for (std::size_t i = 0; i < 16; ++i) out[i] = to_letter(codes[i]);
}

// Byte i = 0xFF when bit i of `w` (low 16 bits: the half `h` selects) is set.
inline u8<xsimd::sse2> expand_bits(std::uint32_t w, std::size_t h, xsimd::sse2) noexcept {
    const auto half = static_cast<std::uint16_t>(w >> (16 * h));
    __m128i x = _mm_set1_epi16(static_cast<short>(half));
    // bytes 0-7 from the low byte, 8-15 from the high byte
    x = _mm_unpacklo_epi8(x, x);                                      // b0 b0 b1 b1 ...
    x = _mm_shuffle_epi32(_mm_unpacklo_epi16(x, x), 0x50);            // b0 x8, b1 x8
    const __m128i bits = _mm_set1_epi64x(static_cast<long long>(0x8040201008040201ULL));
    return _mm_cmpeq_epi8(_mm_and_si128(x, bits), bits);
}

#if XSIMD_WITH_AVX2
inline std::uint32_t byte_movemask(const xsimd::batch_bool<std::uint8_t, xsimd::avx2>& x, xsimd::avx2) noexcept {
    return static_cast<std::uint32_t>(_mm256_movemask_epi8(x));
}

inline void codes_to_letters16(const std::uint8_t* codes, char* out, xsimd::avx2) noexcept {
    const __m128i table = _mm_setr_epi8('A', 'C', 'G', 'T', 'a', 'c', 'g', 't', 'N', 'S', 'W', '-', 'n', 's', 'w', 0);
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_shuffle_epi8(table, c));
}

inline u8<xsimd::avx2> expand_bits(std::uint32_t w, std::size_t, xsimd::avx2) noexcept {
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,  //
                                            2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i x = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(w)), spread);
    const __m256i bits = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ULL));
    return _mm256_cmpeq_epi8(_mm256_and_si256(x, bits), bits);
}
#endif

// Bit 7 of each byte after shifting the bytes left by k (16-bit lanes: the bits a byte gets from
// its neighbour never reach bit 7 of the byte that is read).
template <class A>
inline std::uint32_t top_bits_after_shift(const u8<A>& x, int k) noexcept {
    const auto shifted = xsimd::bitwise_cast<u8<A>>(xsimd::bitwise_cast<u16<A>>(x) << k);
    return byte_movemask(shifted, A{});
}

// ---- kernels -------------------------------------------------------------------------------

template <class A>
bool encode_letters(const char* letters, std::size_t n, std::uint32_t* planes, std::uint32_t* nonzero) {
    constexpr std::size_t S = u8<A>::size;
    constexpr std::size_t parts = 32 / S;
    std::uint32_t seen[code_planes] = {};
    bool bad = false;
    alignas(32) char padded[32];
    alignas(32) std::uint8_t codes[32];
    for (std::size_t w = 0; w < plane_words; ++w) {
        const std::size_t first = 32 * w;
        if (first >= n) {
            for (unsigned j = 0; j < code_planes; ++j) planes[j * plane_words + w] = 0;
            continue;
        }
        const std::size_t count = n - first < 32 ? n - first : 32;
        const char* src = letters + first;
        if (count < 32) {  // pad with 'A' (code 0), so the padding sets no bit
            std::memset(padded, 'A', 32);
            std::memcpy(padded, src, count);
            src = padded;
        }
        u8<A> x[parts];
        std::uint32_t acgt = 0;
        for (std::size_t h = 0; h < parts; ++h) {
            x[h] = u8<A>::load_unaligned(reinterpret_cast<const std::uint8_t*>(src) + h * S);
            const u8<A> folded = x[h] | u8<A>(std::uint8_t{0x20});
            const auto is_base = (folded == u8<A>(std::uint8_t{'a'})) | (folded == u8<A>(std::uint8_t{'c'})) | (folded == u8<A>(std::uint8_t{'g'})) |
                                 (folded == u8<A>(std::uint8_t{'t'}));
            acgt |= byte_movemask(is_base, A{}) << (h * S);
        }
        std::uint32_t word[code_planes] = {};
        if (acgt == 0xFFFFFFFFu) {
            for (std::size_t h = 0; h < parts; ++h) {
                const std::uint32_t bit2 = top_bits_after_shift<A>(x[h], 5);
                word[0] |= (top_bits_after_shift<A>(x[h], 6) ^ bit2) << (h * S);
                word[1] |= bit2 << (h * S);
                word[2] |= top_bits_after_shift<A>(x[h], 2) << (h * S);
            }
        } else {
            std::uint8_t any_bad = 0;
            for (std::size_t i = 0; i < 32; ++i) {
                const std::uint8_t c = to_code(src[i]);
                any_bad |= static_cast<std::uint8_t>(c & 0x80);
                codes[i] = c;
            }
            bad = bad || any_bad != 0;
            for (std::size_t h = 0; h < parts; ++h) {
                const auto c = u8<A>::load_aligned(codes + h * S);
                for (unsigned j = 0; j < code_planes; ++j)
                    word[j] |= top_bits_after_shift<A>(c, static_cast<int>(7 - j)) << (h * S);
            }
        }
        if (count < 32) {
            const std::uint32_t keep = (1u << count) - 1u;
            for (unsigned j = 0; j < code_planes; ++j) word[j] &= keep;
        }
        for (unsigned j = 0; j < code_planes; ++j) {
            planes[j * plane_words + w] = word[j];
            seen[j] |= word[j];
        }
    }
    std::uint32_t mask = 0;
    for (unsigned j = 0; j < code_planes; ++j) mask |= static_cast<std::uint32_t>(seen[j] != 0) << j;
    *nonzero = bad ? 0 : mask;
    return !bad;
}

template <class A>
void decode_letters(const std::uint32_t* planes, std::uint32_t nonzero, std::size_t n, char* letters) {
    constexpr std::size_t S = u8<A>::size;
    constexpr std::size_t parts = 32 / S;
    alignas(32) std::uint8_t codes[32];
    alignas(32) char out[32];
    const bool small_codes = (nonzero & group_mask) == 0;  // every code < 16: one 16-entry table
    for (std::size_t w = 0; 32 * w < n; ++w) {
        for (std::size_t h = 0; h < parts; ++h) {
            u8<A> c(std::uint8_t{0});
            for (unsigned j = 0; j < code_planes; ++j) {
                if (!((nonzero >> j) & 1u)) continue;
                const u8<A> set = expand_bits(planes[j * plane_words + w], h, A{});
                c = c | (set & u8<A>(static_cast<std::uint8_t>(1u << j)));
            }
            c.store_aligned(codes + h * S);
        }
        const std::size_t count = n - 32 * w < 32 ? n - 32 * w : 32;
        char* dst = count == 32 ? letters + 32 * w : out;
        if (small_codes) {
            codes_to_letters16(codes, dst, A{});
            codes_to_letters16(codes + 16, dst + 16, A{});
        } else {
            for (std::size_t i = 0; i < 32; ++i) dst[i] = to_letter(codes[i]);
        }
        if (count < 32) std::memcpy(letters + 32 * w, out, count);
    }
}

inline std::uint64_t popcount64(std::uint64_t x, xsimd::sse2) noexcept {  // no POPCNT in SSE2
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (x * 0x0101010101010101ull) >> 56;
}
#if XSIMD_WITH_AVX2
inline std::uint64_t popcount64(std::uint64_t x, xsimd::avx2) noexcept {  // built with -mpopcnt
    return static_cast<std::uint64_t>(__builtin_popcountll(x));
}
#endif

inline std::uint64_t word64(const std::uint32_t* plane, std::size_t i) noexcept {
    std::uint64_t w;
    std::memcpy(&w, plane + 2 * i, 8);
    return w;
}

template <class A>
void count_codes(const std::uint32_t* planes, std::uint32_t nonzero, std::uint64_t* out) {
    std::uint64_t c = 0, g = 0, t = 0, special = 0, n = 0, gap = 0, lower = 0;
    const std::uint32_t* p0 = planes;
    const std::uint32_t* p1 = planes + plane_words;
    if ((nonzero & ~(base_mask | lower_bit)) == 0) {  // plain bases only: three popcounts a word
        for (std::size_t i = 0; i < plane_words / 2; ++i) {
            const std::uint64_t a = word64(p0, i), b = word64(p1, i);
            c += popcount64(a, A{});
            g += popcount64(b, A{});
            t += popcount64(a & b, A{});
        }
        c -= t;
        g -= t;
    } else {
        for (std::size_t i = 0; i < plane_words / 2; ++i) {
            const std::uint64_t a = word64(p0, i), b = word64(p1, i);
            const std::uint64_t s = word64(planes + 3 * plane_words, i);
            const std::uint64_t group0 = s & ~(word64(planes + 4 * plane_words, i) | word64(planes + 5 * plane_words, i));
            c += popcount64(~s & a & ~b, A{});
            g += popcount64(~s & ~a & b, A{});
            t += popcount64(~s & a & b, A{});
            special += popcount64(s, A{});
            n += popcount64(group0 & ~a & ~b, A{});
            gap += popcount64(group0 & a & b, A{});
        }
    }
    if (nonzero & lower_bit)
        for (std::size_t i = 0; i < plane_words / 2; ++i) lower += popcount64(word64(planes + 2 * plane_words, i), A{});
    out[0] = c; out[1] = g; out[2] = t; out[3] = special; out[4] = n; out[5] = gap; out[6] = lower;
}

template <class A>
std::uint64_t mismatch_planes(const std::uint32_t* a, const std::uint32_t* b, std::uint32_t compare) {
    std::uint64_t n = 0;
    if (compare == base_mask) {  // the common case: two planes
        for (std::size_t i = 0; i < plane_words / 2; ++i)
            n += popcount64((word64(a, i) ^ word64(b, i)) | (word64(a + plane_words, i) ^ word64(b + plane_words, i)), A{});
        return n;
    }
    for (std::size_t i = 0; i < plane_words / 2; ++i) {
        std::uint64_t diff = 0;
        for (unsigned j = 0; j < code_planes; ++j)
            if ((compare >> j) & 1u) diff |= word64(a + j * plane_words, i) ^ word64(b + j * plane_words, i);
        n += popcount64(diff, A{});
    }
    return n;
}

inline std::uint32_t reverse_bits32(std::uint32_t x) noexcept {
    x = __builtin_bswap32(x);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    return ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
}

// out[w] = (reverse_bits32(in[63 - w]) ^ (flip ? ~0 : 0)) & valid[w] over a plane's 64 words;
// returns 1 when out has a set bit.
inline std::uint32_t reverse_plane(const std::uint32_t* in, const std::uint32_t* valid, bool flip, std::uint32_t* out,
                                   xsimd::sse2) noexcept {
    std::uint32_t any = 0;
    const std::uint32_t x = flip ? ~0u : 0u;
    for (std::size_t w = 0; w < plane_words; ++w) {
        out[w] = (reverse_bits32(in[plane_words - 1 - w]) ^ x) & valid[w];
        any |= out[w];
    }
    return any != 0 ? 1u : 0u;
}

#if XSIMD_WITH_AVX2
inline std::uint32_t reverse_plane(const std::uint32_t* in, const std::uint32_t* valid, bool flip, std::uint32_t* out,
                                   xsimd::avx2) noexcept {
    const __m256i reverse_dwords = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    const __m256i reverse_bytes = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12,  //
                                                   3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
    // bit-reversed nibbles, for the low nibble (moved up) and the high nibble (moved down)
    const __m256i rev_low = _mm256_slli_epi16(
        _mm256_setr_epi8(0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15, 0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15),
        4);  // shifted in 16-bit lanes: each byte's value < 16, so no bit crosses into its neighbour
    const __m256i rev_high = _mm256_setr_epi8(0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15,  //
                                              0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    const __m256i x = flip ? _mm256_set1_epi32(-1) : _mm256_setzero_si256();
    __m256i any = _mm256_setzero_si256();
    for (std::size_t w = 0; w < plane_words; w += 8) {
        __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + plane_words - 8 - w));
        v = _mm256_shuffle_epi8(_mm256_permutevar8x32_epi32(v, reverse_dwords), reverse_bytes);
        v = _mm256_or_si256(_mm256_shuffle_epi8(rev_low, _mm256_and_si256(v, nibble)),
                            _mm256_shuffle_epi8(rev_high, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble)));
        v = _mm256_and_si256(_mm256_xor_si256(v, x), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(valid + w)));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + w), v);
        any = _mm256_or_si256(any, v);
    }
    return _mm256_testz_si256(any, any) ? 0u : 1u;
}
#endif

inline void deinterleave2(const std::byte* payload, std::uint32_t* p0, std::uint32_t* p1, xsimd::sse2) noexcept;
inline void interleave2(const std::uint32_t* p0, const std::uint32_t* p1, std::byte* payload, xsimd::sse2) noexcept;

inline std::uint32_t revcomp2(const std::byte* low, const std::byte* high, std::size_t shift, std::byte* payload,
                              xsimd::sse2) noexcept {
    static constexpr auto all_valid = [] {
        std::array<std::uint32_t, plane_words> v{};
        for (auto& w : v) w = ~0u;
        return v;
    }();
    const std::size_t ws = shift / 32, bs = shift % 32;
    std::uint32_t in[2][2 * plane_words], window[2][plane_words], out[2][plane_words];
    deinterleave2(low, in[0], in[1], xsimd::sse2{});
    deinterleave2(high, in[0] + plane_words, in[1] + plane_words, xsimd::sse2{});
    std::uint32_t result = 0;
    for (unsigned j = 0; j < 2; ++j) {
        for (std::size_t w = 0; w < plane_words; ++w)
            window[j][w] = bs == 0 ? in[j][ws + w] : (in[j][ws + w] >> bs) | (in[j][ws + w + 1] << (32 - bs));
        reverse_plane(window[j], all_valid.data(), true, out[j], xsimd::sse2{});
        std::uint32_t any = 0, all = ~0u;
        for (std::size_t w = 0; w < plane_words; ++w) {
            any |= out[j][w];
            all &= out[j][w];
        }
        result |= static_cast<std::uint32_t>(any != 0 && all != ~0u) << j;
    }
    interleave2(out[0], out[1], payload, xsimd::sse2{});
    return result;
}

#if XSIMD_WITH_AVX2
// Columns i .. i + 3 (8 bytes each) of block `low` followed by block `high`.
inline __m256i pair_columns(const std::byte* low, const std::byte* high, std::size_t i) noexcept {
    if (i + 4 <= plane_words) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(low + 8 * i));
    if (i >= plane_words) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(high + 8 * (i - plane_words)));
    alignas(32) std::byte both[32];  // across the two blocks (one load in 16 per window)
    const std::size_t from_low = plane_words - i;
    std::memcpy(both, low + 8 * i, 8 * from_low);
    std::memcpy(both + 8 * from_low, high, 32 - 8 * from_low);
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(both));
}

// Straight from payload to payload: a column (8 bytes) holds word c of plane 0 and of plane 1,
// and both words of a column shift by the same count, so the window's funnel shift works on
// 32-bit lanes of the interleaved bytes; reversing the column order (not the planes inside a
// column) and the bits of each word, then inverting, gives the output columns.
inline std::uint32_t revcomp2(const std::byte* low, const std::byte* high, std::size_t shift, std::byte* payload,
                              xsimd::avx2) noexcept {
    const std::size_t ws = shift / 32, bs = shift % 32;
    // Shift counts of 32 give zeros, so bs = 0 needs no case of its own.
    const __m128i right = _mm_cvtsi32_si128(static_cast<int>(bs));
    const __m128i left = _mm_cvtsi32_si128(static_cast<int>(32 - bs));
    const __m256i reverse_bytes = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12,  //
                                                   3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
    // The complement of the bit-reversed nibble, moved up (low nibbles) or kept low (high
    // nibbles): their OR is the complemented, bit-reversed byte.
    const __m256i not_rev_up = _mm256_setr_epi8(-16, 112, -80, 48, -48, 80, -112, 16, -32, 96, -96, 32, -64, 64, -128, 0,  //
                                                -16, 112, -80, 48, -48, 80, -112, 16, -32, 96, -96, 32, -64, 64, -128, 0);
    const __m256i not_rev = _mm256_setr_epi8(15, 7, 11, 3, 13, 5, 9, 1, 14, 6, 10, 2, 12, 4, 8, 0,  //
                                             15, 7, 11, 3, 13, 5, 9, 1, 14, 6, 10, 2, 12, 4, 8, 0);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    __m256i any = _mm256_setzero_si256(), all = _mm256_set1_epi32(-1);
    for (std::size_t c = 0; c < plane_words; c += 4) {  // output columns c .. c + 3
        const std::size_t i = ws + plane_words - 4 - c;
        __m256i v = _mm256_or_si256(_mm256_srl_epi32(pair_columns(low, high, i), right),
                                    _mm256_sll_epi32(pair_columns(low, high, i + 1), left));
        v = _mm256_shuffle_epi8(_mm256_permute4x64_epi64(v, 0x1B), reverse_bytes);
        v = _mm256_or_si256(_mm256_shuffle_epi8(not_rev_up, _mm256_and_si256(v, nibble)),
                            _mm256_shuffle_epi8(not_rev, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble)));
        any = _mm256_or_si256(any, v);
        all = _mm256_and_si256(all, v);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(payload + 8 * c), v);
    }
    const __m256i plane0 = _mm256_set1_epi64x(0xFFFFFFFFll);  // the low word of each column
    const __m256i plane1 = _mm256_slli_epi64(plane0, 32);
    const bool live0 = !_mm256_testz_si256(any, plane0) && !_mm256_testc_si256(all, plane0);
    const bool live1 = !_mm256_testz_si256(any, plane1) && !_mm256_testc_si256(all, plane1);
    return (live0 ? 1u : 0u) | (live1 ? 2u : 0u);
}
#endif

template <class A>
std::uint32_t revcomp2(const std::byte* low, const std::byte* high, std::size_t shift, std::byte* payload) {
    return revcomp2(low, high, shift, payload, A{});
}

template <class A>
std::uint32_t reverse_complement(const std::uint32_t* in, std::uint32_t nonzero, std::size_t count, std::uint32_t* out) {
    // valid[w]: the bits of output word w below `count`
    std::uint32_t valid[plane_words];
    for (std::size_t w = 0; w < plane_words; ++w) {
        const std::size_t lo = 32 * w;
        valid[w] = count >= lo + 32 ? ~0u : count <= lo ? 0u : (1u << (count - lo)) - 1u;
    }
    if ((nonzero & ~std::uint32_t{base_mask}) == 0) {
        // Plain upper-case bases: the complement flips both planes everywhere (A 00 <-> T 11,
        // C 01 <-> G 10), planes 2-5 stay zero.
        std::uint32_t result = 0;
        for (unsigned j = 0; j < 2; ++j)
            result |= reverse_plane(in + j * plane_words, valid, true, out + j * plane_words, A{}) << j;
        std::memset(out + 2 * plane_words, 0, (code_planes - 2) * plane_bytes);
        return result;
    }
    std::uint32_t result = 0;
    for (unsigned j = 0; j < code_planes; ++j) {
        std::uint32_t* o = out + j * plane_words;
        if (!((nonzero >> j) & 1u)) {
            std::memset(o, 0, plane_bytes);
            continue;
        }
        result |= reverse_plane(in + j * plane_words, valid, false, o, A{}) << j;
    }
    // Base bits flip where the letter is a plain base or in ambiguity group 1 or 2.
    std::uint32_t* o0 = out;
    std::uint32_t* o1 = out + plane_words;
    const std::uint32_t* s = out + 3 * plane_words;
    const std::uint32_t* g4 = out + 4 * plane_words;
    const std::uint32_t* g5 = out + 5 * plane_words;
    std::uint32_t any0 = 0, any1 = 0;
    for (std::size_t w = 0; w < plane_words; ++w) {
        const std::uint32_t flip = (~s[w] | g4[w] | g5[w]) & valid[w];
        o0[w] ^= flip;
        o1[w] ^= flip;
        any0 |= o0[w];
        any1 |= o1[w];
    }
    return (result & ~std::uint32_t{base_mask}) | (any0 != 0 ? 1u : 0u) | (any1 != 0 ? 2u : 0u);
}

template <class A>
void shift_and(const std::uint64_t* const* masks, std::size_t k, std::uint64_t* out) {
    using u64 = xsimd::batch<std::uint64_t, A>;
    constexpr std::size_t L = u64::size;
    for (std::size_t w = 0; w < 32; w += L) {
        u64 r = u64::load_unaligned(masks[0] + w);
        for (std::size_t j = 1; j < k; ++j) {
            const std::uint64_t* m = masks[j];
            r = r & ((u64::load_unaligned(m + w) >> static_cast<int>(j)) |
                     (u64::load_unaligned(m + w + 1) << static_cast<int>(64 - j)));
            // Random text leaves no candidate after a few letters: stop then.
            if ((j & 3) == 0 && xsimd::none(r != u64(std::uint64_t{0}))) break;
        }
        r.store_unaligned(out + w);
    }
}

// ---- two-plane blocks in place ------------------------------------------------------------------
// Plain loops: built with each instruction set's flags, GCC vectorizes the shuffles; the
// popcounts are 64-bit (POPCNT on the AVX2 path): two columns (64 letters) make one 64-bit word
// of each plane.

inline std::uint64_t load_u64(const std::byte* p) noexcept {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

inline void deinterleave2(const std::byte* payload, std::uint32_t* p0, std::uint32_t* p1, xsimd::sse2) noexcept {
    std::uint32_t w[2 * plane_words];
    std::memcpy(w, payload, sizeof w);
    for (std::size_t c = 0; c < plane_words; ++c) {
        p0[c] = w[2 * c];
        p1[c] = w[2 * c + 1];
    }
}

inline void interleave2(const std::uint32_t* p0, const std::uint32_t* p1, std::byte* payload, xsimd::sse2) noexcept {
    std::uint32_t w[2 * plane_words];
    for (std::size_t c = 0; c < plane_words; ++c) {
        w[2 * c] = p0[c];
        w[2 * c + 1] = p1[c];
    }
    std::memcpy(payload, w, sizeof w);
}

#if XSIMD_WITH_AVX2
inline void deinterleave2(const std::byte* payload, std::uint32_t* p0, std::uint32_t* p1, xsimd::avx2) noexcept {
    const __m256i split = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    for (std::size_t c = 0; c < plane_words; c += 4) {
        const __m256i x = _mm256_permutevar8x32_epi32(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(payload + 8 * c)), split);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p0 + c), _mm256_castsi256_si128(x));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p1 + c), _mm256_extracti128_si256(x, 1));
    }
}

inline void interleave2(const std::uint32_t* p0, const std::uint32_t* p1, std::byte* payload, xsimd::avx2) noexcept {
    const __m256i join = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (std::size_t c = 0; c < plane_words; c += 4) {
        const __m256i x = _mm256_set_m128i(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p1 + c)),
                                           _mm_loadu_si128(reinterpret_cast<const __m128i*>(p0 + c)));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(payload + 8 * c), _mm256_permutevar8x32_epi32(x, join));
    }
}
#endif

template <class A>
void deinterleave2(const std::byte* payload, std::uint32_t* p0, std::uint32_t* p1) {
    deinterleave2(payload, p0, p1, A{});
}

template <class A>
void interleave2(const std::uint32_t* p0, const std::uint32_t* p1, std::byte* payload) {
    interleave2(p0, p1, payload, A{});
}

// Portable (SSE2) forms: 64-bit words and popcounts.
inline void count2(const std::byte* payload, std::uint64_t* out, xsimd::sse2) noexcept {
    std::uint64_t ct = 0, gt = 0, t = 0;
    constexpr std::uint64_t low = 0xFFFFFFFFull;
    for (std::size_t c = 0; c < plane_words; c += 2) {
        const std::uint64_t x0 = load_u64(payload + 8 * c), x1 = load_u64(payload + 8 * c + 8);
        const std::uint64_t a = (x0 & low) | (x1 << 32);   // plane 0, 64 letters
        const std::uint64_t b = (x0 >> 32) | (x1 & ~low);  // plane 1
        ct += popcount64(a, xsimd::sse2{});
        gt += popcount64(b, xsimd::sse2{});
        t += popcount64(a & b, xsimd::sse2{});
    }
    out[0] = ct - t;
    out[1] = gt - t;
    out[2] = t;
}

inline std::uint64_t mismatch2_block(const std::byte* a, const std::byte* b, xsimd::sse2) noexcept {
    std::uint64_t n = 0;
    constexpr std::uint64_t low = 0xFFFFFFFFull;
    for (std::size_t c = 0; c < plane_words; c += 2) {
        const std::uint64_t x0 = load_u64(a + 8 * c) ^ load_u64(b + 8 * c);
        const std::uint64_t x1 = load_u64(a + 8 * c + 8) ^ load_u64(b + 8 * c + 8);
        n += popcount64(((x0 | (x0 >> 32)) & low) | ((x1 | (x1 << 32)) & ~low), xsimd::sse2{});
    }
    return n;
}

#if XSIMD_WITH_AVX2
// Byte popcounts by nibble lookup (pshufb), summed per byte; at most 8 per byte per call.
inline __m256i byte_popcounts(__m256i v) noexcept {
    const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,  //
                                           0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    return _mm256_add_epi8(_mm256_shuffle_epi8(table, _mm256_and_si256(v, nibble)),
                           _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble)));
}

inline std::uint64_t sum_bytes(__m256i v) noexcept {
    const __m256i s = _mm256_sad_epu8(v, _mm256_setzero_si256());
    return static_cast<std::uint64_t>(_mm256_extract_epi64(s, 0) + _mm256_extract_epi64(s, 1) + _mm256_extract_epi64(s, 2) +
                                      _mm256_extract_epi64(s, 3));
}

// 64 bytes (8 columns) at a time: two registers of (plane 0 word, plane 1 word) pairs become one
// register of plane 0 words and one of plane 1 words (column order does not matter to counts).
inline void split_planes(const std::byte* p, __m256i& a, __m256i& b) noexcept {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
    a = _mm256_blend_epi32(x, _mm256_slli_epi64(y, 32), 0xAA);  // even dwords: plane 0
    b = _mm256_blend_epi32(_mm256_srli_epi64(x, 32), y, 0xAA);  // odd dwords: plane 1
}

inline void count2(const std::byte* payload, std::uint64_t* out, xsimd::avx2) noexcept {
    __m256i ct = _mm256_setzero_si256(), gt = ct, t = ct;  // 8 steps x at most 8 per byte
    for (std::size_t k = 0; k < 2 * plane_bytes; k += 64) {
        __m256i a, b;
        split_planes(payload + k, a, b);
        ct = _mm256_add_epi8(ct, byte_popcounts(a));
        gt = _mm256_add_epi8(gt, byte_popcounts(b));
        t = _mm256_add_epi8(t, byte_popcounts(_mm256_and_si256(a, b)));
    }
    const std::uint64_t tt = sum_bytes(t);
    out[0] = sum_bytes(ct) - tt;
    out[1] = sum_bytes(gt) - tt;
    out[2] = tt;
}

inline std::uint64_t mismatch2_block(const std::byte* a, const std::byte* b, xsimd::avx2) noexcept {
    // No need to split the planes: a column's two words differ where (x0 ^ y0) | (x1 ^ y1), so
    // OR each 64-bit lane's halves together, then take the low halves of one register and the
    // high halves of the next: one popcount per 256 letters.
    __m256i n = _mm256_setzero_si256();
    for (std::size_t k = 0; k < 2 * plane_bytes; k += 64) {
        const __m256i x = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + k)),
                                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + k)));
        const __m256i y = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + k + 32)),
                                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + k + 32)));
        const __m256i d = _mm256_blend_epi32(_mm256_or_si256(x, _mm256_srli_epi64(x, 32)),
                                             _mm256_or_si256(y, _mm256_slli_epi64(y, 32)), 0xAA);
        n = _mm256_add_epi8(n, byte_popcounts(d));
    }
    return sum_bytes(n);
}
#endif

template <class A>
void count2(const std::byte* const* payloads, std::size_t n, std::uint64_t* out) {
    out[0] = out[1] = out[2] = 0;
    for (std::size_t k = 0; k < n; ++k) {
        std::uint64_t cgt[3];
        count2(payloads[k], cgt, A{});
        for (unsigned j = 0; j < 3; ++j) out[j] += cgt[j];
    }
}

template <class A>
std::uint64_t mismatch2(const std::byte* const* a, const std::byte* const* b, std::size_t n) {
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < n; ++k) total += mismatch2_block(a[k], b[k], A{});
    return total;
}

template <class A>
constexpr dna_kernel_table make_table(simd_path path) {
    return {.path = path,
            .encode_letters = encode_letters<A>,
            .decode_letters = decode_letters<A>,
            .count_codes = count_codes<A>,
            .mismatch_planes = mismatch_planes<A>,
            .reverse_complement = reverse_complement<A>,
            .shift_and = shift_and<A>,
            .deinterleave2 = deinterleave2<A>,
            .interleave2 = interleave2<A>,
            .count2 = count2<A>,
            .mismatch2 = mismatch2<A>,
            .revcomp2 = revcomp2<A>};
}

}  // namespace bitplane::dna::detail::BITPLANE_DNA_KERNEL_NS
