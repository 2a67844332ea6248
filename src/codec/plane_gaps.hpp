// Payload "gaps": the positions of differing bits as gaps, one byte each (gap = distance to
// the previous position minus one; 255 escapes to a u16 gap). About half the size of a
// position list and smaller than raw bits up to ~12% density: the usual payload of the
// non-zero mask of a sparse block. Finding one bit is a linear scan, so the encoder keeps
// u16 positions where they are as small.
#pragma once

#include "byte_io.hpp"
#include "plane_bits.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#if defined(__SSE2__)
#include <emmintrin.h>  // SSE2 is part of x86-64: no dispatch needed (as direct_access.hpp)
#endif

namespace bitplane::detail::gaps_payload {

inline constexpr std::uint32_t escape = 255;

/// Exact payload size for `diff`, which has `set_bits` bits set: one byte per position plus
/// two per escape. Escapes happen only after 255+ zero bits, so one pass over the words
/// finds them (gaps inside one word are shorter than 32).
/// `word(w)` gives word w of the difference, so that the encoder need not build it.
/// A gap of 255+ zero bits covers at least 7 whole zero words, so a plane without 7 zero words
/// in a row has no escape: a branch-free pass over the words settles most planes (the exact
/// walk below branches on every word, and mispredicts on noisy ones).
template <class WordOf>
BITPLANE_HOST_DEVICE inline std::uint32_t payload_bytes_of(WordOf&& word_of, std::uint32_t set_bits) noexcept {
    static_assert(plane_words == 64, "one bit per word in a std::uint64_t");
    std::uint64_t zero_words = 0;
    for (std::uint32_t w = 0; w < plane_words; ++w) zero_words |= std::uint64_t{word_of(w) == 0} << w;
    std::uint64_t seven = zero_words;
    for (unsigned k = 1; k < 7; ++k) seven &= zero_words >> k;
    if (seven == 0) return set_bits;
    std::uint32_t escapes = 0;
    std::uint32_t zeros = 0;  // zero bits since the last set bit (or the plane start)
    for (std::uint32_t w = 0; w < plane_words; ++w) {
        const std::uint32_t word = word_of(w);
        if (word == 0) {
            zeros += 32;
            continue;
        }
        if (zeros + countr_zero32(word) >= escape) ++escapes;
        zeros = countl_zero32(word);
    }
    return set_bits + 2 * escapes;
}

BITPLANE_HOST_DEVICE inline std::uint32_t payload_bytes(const plane& diff, std::uint32_t set_bits) noexcept {
#if defined(__SSE2__) && !defined(__CUDA_ARCH__)
    // The zero words four at a time (compare, movemask): the scalar pass took ~9 instructions
    // a word, ~570 a plane, for every sparse block's mask (callgrind, AND with a sparse column).
    std::uint64_t zero_words = 0;
    for (std::uint32_t w = 0; w < plane_words; w += 4) {
        const __m128i words = _mm_loadu_si128(reinterpret_cast<const __m128i*>(diff.data() + w));
        const auto zero = static_cast<std::uint64_t>(
            _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(words, _mm_setzero_si128()))));
        zero_words |= zero << w;
    }
    std::uint64_t seven = zero_words;
    for (unsigned k = 1; k < 7; ++k) seven &= zero_words >> k;
    if (seven == 0) return set_bits;
#endif
    return payload_bytes_of([&](std::uint32_t w) { return diff[w]; }, set_bits);
}

/// Most bytes a gaps payload of a `len`-bit plane can take (every escape covers >= 255 bits).
BITPLANE_HOST_DEVICE constexpr std::uint32_t max_payload_bytes(std::uint32_t len) noexcept { return len + 2 * (len / escape + 1); }

/// Only a word's first set bit can need an escape (a later one follows another bit of the same
/// word: a gap below 31), so the rest are written without the test; and each of those is the
/// trailing zeros of the word shifted past the bit before, so no position is kept (a sparse
/// block's mask is written for every result of AND with a sparse column: ~13 instructions an
/// item at first, ~12 with the escape test hoisted, ~9 now: callgrind).
BITPLANE_HOST_DEVICE inline std::uint32_t write(const plane& diff, std::byte* out) noexcept {
    std::byte* p = out;
    std::uint32_t zeros = 0;  // clear bits since the last set bit (or the plane start)
    for (std::uint32_t w = 0; w < plane_words; ++w) {
        std::uint32_t word = diff[w];
        if (word == 0) {
            zeros += 32;
            continue;
        }
        const std::uint32_t first = countr_zero32(word);
        const std::uint32_t gap = zeros + first;
        if (gap >= escape) {
            *p++ = static_cast<std::byte>(escape);
            put_le<std::uint16_t>(p, static_cast<std::uint16_t>(gap));
            p += 2;
        } else {
            *p++ = static_cast<std::byte>(gap);
        }
        zeros = countl_zero32(word);
        for (word = (word >> first) >> 1; word != 0; word = (word >> countr_zero32(word)) >> 1)
            *p++ = static_cast<std::byte>(countr_zero32(word));
    }
    return static_cast<std::uint32_t>(p - out);
}

/// Calls f(position) for each position of a validated payload of `bytes` bytes.
template <class F>
inline void for_each_position(const std::byte* payload, std::uint32_t bytes, F&& f) {
    std::uint32_t next = 0;
    for (std::uint32_t i = 0; i < bytes;) {
        std::uint32_t gap = static_cast<std::uint32_t>(payload[i++]);
        if (gap == escape) {
            gap = load_le<std::uint16_t>(payload + i);
            i += 2;
        }
        const std::uint32_t position = next + gap;
        if (!f(position)) return;
        next = position + 1;
    }
}

#if defined(__SSE2__)
/// Running sums of eight 16-bit lanes.
inline __m128i prefix_sum16(__m128i x) noexcept {
    x = _mm_add_epi16(x, _mm_slli_si128(x, 2));
    x = _mm_add_epi16(x, _mm_slli_si128(x, 4));
    return _mm_add_epi16(x, _mm_slli_si128(x, 8));
}

/// The positions of 16 gaps that hold no escape, the first after position next - 1, modulo
/// 2^16: position k = next - 1 + (g_0 + 1) + ... + (g_k + 1), as 16-bit prefix sums, so that
/// what is done with them waits on no running position (a chain of a load and two adds per gap).
/// In registers: positions 0-7 in `low`, 8-15 in `high` (for callers whose stores may alias
/// an array of them: byte maps).
inline void positions_of_16_gaps(__m128i gaps, std::uint32_t next, __m128i& low, __m128i& high) noexcept {
    const __m128i zero = _mm_setzero_si128();
    const __m128i one = _mm_set1_epi16(1);
    const __m128i base = _mm_set1_epi16(static_cast<short>(next - 1));
    low = _mm_add_epi16(prefix_sum16(_mm_add_epi16(_mm_unpacklo_epi8(gaps, zero), one)), base);
    const __m128i low_last = _mm_shuffle_epi32(_mm_shufflehi_epi16(low, 0xFF), 0xFF);  // lane 7 everywhere
    high = _mm_add_epi16(prefix_sum16(_mm_add_epi16(_mm_unpackhi_epi8(gaps, zero), one)), low_last);
}
inline void positions_of_16_gaps(__m128i gaps, std::uint32_t next, std::uint16_t (&positions)[16]) noexcept {
    __m128i low, high;
    positions_of_16_gaps(gaps, next, low, high);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(positions), low);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(positions + 8), high);
}
#endif
/// Calls f(position) for every position of a validated payload of `bytes` bytes (no early
/// stop: for scans that apply a whole list). Where 16 gaps hold no escape, SSE2 turns them
/// into positions at once (prefix sums of gap + 1 in 16-bit lanes) before any f is called:
/// for_each_position's one position at a time, each waiting on the previous, was about half
/// of an equality scan on columns of long gap lists (geoip6_country, rare value: callgrind).
/// Those positions are computed modulo 2^16: the same as for_each_position's for a validated
/// payload (positions below 2048), and the same modulo the plane's length for forged bytes.
template <class F>
inline void for_every_position(const std::byte* payload, std::uint32_t bytes, F&& f) {
    std::uint32_t next = 0;
    std::uint32_t i = 0;
    const auto one_gap = [&] {
        std::uint32_t gap = static_cast<std::uint32_t>(payload[i++]);
        if (gap == escape) [[unlikely]] {
            gap = load_le<std::uint16_t>(payload + i);
            i += 2;
        }
        const std::uint32_t position = next + gap;
        f(position);
        next = position + 1;
    };
#if defined(__SSE2__)
    while (i + 16 <= bytes) {
        const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(payload + i));
        const auto escapes = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, _mm_set1_epi8(-1))));
        if (escapes != 0) {
            // The gaps before the first escape and the escape itself, one at a time.
            const std::uint32_t stop = i + static_cast<std::uint32_t>(countr_zero32(escapes));
            while (i <= stop) one_gap();
            continue;
        }
        std::uint16_t positions[16];
        positions_of_16_gaps(chunk, next, positions);
        for (std::uint32_t k = 0; k < 16; ++k) f(std::uint32_t{positions[k]});
        next = std::uint32_t{positions[15]} + 1;
        i += 16;
    }
#endif
    while (i < bytes) one_gap();
}

/// XORs the positions onto `target`, checking escapes are complete and positions < len.
/// 16 gaps without an escape whose last position is inside the plane (checked first, from the
/// byte sum) take no per-gap checks: those checks were about half of the block decoder's loop.
inline void apply(byte_reader& reader, std::uint32_t bytes, std::uint32_t len, plane& target) {
    const std::size_t start = reader.position();
    const std::byte* payload = reader.take(bytes, "gap list").data();
    std::uint32_t next = 0;
    for (std::uint32_t i = 0; i < bytes;) {
#if defined(__SSE2__)
        if (bytes - i >= 16) {
            const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(payload + i));
            const __m128i sums = _mm_sad_epu8(chunk, _mm_setzero_si128());
            const auto total = static_cast<std::uint32_t>(_mm_cvtsi128_si32(sums) + _mm_extract_epi16(sums, 4));
            if (_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, _mm_set1_epi8(-1))) == 0 && next + total + 15 < len) {
                // The 16 positions at once (all below len <= 2048 here).
                std::uint16_t positions[16];
                positions_of_16_gaps(chunk, next, positions);
                for (std::uint32_t k = 0; k < 16; ++k) flip_bit(target, positions[k]);
                next = positions[15] + 1u;
                i += 16;
                continue;
            }
        }
#endif
        const std::size_t at = start + i;
        std::uint32_t gap = static_cast<std::uint32_t>(payload[i++]);
        if (gap == escape) [[unlikely]] {
            if (bytes - i < 2) reader.fail_at("gap escape cut off at the end of the list", at);
            gap = load_le<std::uint16_t>(payload + i);
            i += 2;
        }
        const std::uint32_t position = next + gap;
        if (position >= len) [[unlikely]]
            reader.fail_at("gap list reaches position " + std::to_string(position) + ", beyond plane length " +
                               std::to_string(len),
                           at);
        flip_bit(target, position);
        next = position + 1;
    }
}

inline bool contains(const std::byte* payload, std::uint32_t bytes, std::uint32_t bit) {
    bool found = false;
    for_each_position(payload, bytes, [&](std::uint32_t position) {
        found = position == bit;
        return position < bit;
    });
    return found;
}

}  // namespace bitplane::detail::gaps_payload
