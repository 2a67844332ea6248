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

#if defined(__SSE2__) && !defined(__CUDACC__)
#include <emmintrin.h>
#define BITPLANE_GAPS_SSE2 1
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
    return payload_bytes_of([&](std::uint32_t w) { return diff[w]; }, set_bits);
}

/// Most bytes a gaps payload of a `len`-bit plane can take (every escape covers >= 255 bits).
BITPLANE_HOST_DEVICE constexpr std::uint32_t max_payload_bytes(std::uint32_t len) noexcept { return len + 2 * (len / escape + 1); }

BITPLANE_HOST_DEVICE inline std::uint32_t write(const plane& diff, std::byte* out) noexcept {
    std::byte* p = out;
    std::uint32_t next = 0;
    for_each_set_bit(diff, [&](std::uint32_t bit) {
        const std::uint32_t gap = bit - next;
        if (gap >= escape) {
            *p++ = static_cast<std::byte>(escape);
            put_le<std::uint16_t>(p, static_cast<std::uint16_t>(gap));
            p += 2;
        } else {
            *p++ = static_cast<std::byte>(gap);
        }
        next = bit + 1;
    });
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

#if defined(BITPLANE_GAPS_SSE2)
/// The positions of 16 plain gaps `g` (no escape) that follow position next - 1, modulo 2^16:
/// position k = next - 1 + the sum of (gap + 1) over gaps 0..k, where gaps whose byte of
/// `keep` is zero count as nothing (they were taken before).
inline void sixteen_positions(__m128i g, __m128i keep, std::uint32_t next, std::uint16_t* out) noexcept {
    const __m128i zero = _mm_setzero_si128();
    const __m128i one = _mm_set1_epi16(1);
    __m128i lo = _mm_and_si128(_mm_add_epi16(_mm_unpacklo_epi8(g, zero), one), _mm_unpacklo_epi8(keep, keep));
    __m128i hi = _mm_and_si128(_mm_add_epi16(_mm_unpackhi_epi8(g, zero), one), _mm_unpackhi_epi8(keep, keep));
    lo = _mm_add_epi16(lo, _mm_slli_si128(lo, 2));
    hi = _mm_add_epi16(hi, _mm_slli_si128(hi, 2));
    lo = _mm_add_epi16(lo, _mm_slli_si128(lo, 4));
    hi = _mm_add_epi16(hi, _mm_slli_si128(hi, 4));
    lo = _mm_add_epi16(lo, _mm_slli_si128(lo, 8));
    hi = _mm_add_epi16(hi, _mm_slli_si128(hi, 8));
    lo = _mm_add_epi16(lo, _mm_set1_epi16(static_cast<short>(next - 1)));
    const __m128i lo_last = _mm_shufflehi_epi16(lo, 0xFF);
    hi = _mm_add_epi16(hi, _mm_unpackhi_epi64(lo_last, lo_last));
    _mm_store_si128(reinterpret_cast<__m128i*>(out), lo);
    _mm_store_si128(reinterpret_cast<__m128i*>(out + 8), hi);
}
#endif

/// Calls f(position) for every position of a trusted payload of `bytes` bytes, without an
/// early exit. Positions come modulo 2^16 (a forged list may run past the plane: callers mask
/// them to it, as for_each_position's callers do). With SSE2, 16 gaps at a time: widened to
/// 16 bits, prefix sums of gap + 1 in two registers (no chain of two adds per position, as the
/// scalar loop has), then f on each; a chunk with an escape takes the items up to and
/// including the escape one by one. The scans mark long gap lists this way (bam_mapq,
/// geoip4_size: lists of 100-250 positions per plane).
template <class F>
inline void for_each_position_all(const std::byte* payload, std::uint32_t bytes, F&& f) {
    std::uint32_t next = 0;
    std::uint32_t i = 0;
#if defined(BITPLANE_GAPS_SSE2)
    const __m128i escapes = _mm_set1_epi8(static_cast<char>(escape));
    while (bytes - i >= 16) {
        const __m128i g = _mm_loadu_si128(reinterpret_cast<const __m128i*>(payload + i));
        const auto esc = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(g, escapes)));
        if (esc != 0) {
            // The bytes before the first 255 are plain gaps (each < 255), so it starts an item.
            const std::uint32_t end = i + static_cast<std::uint32_t>(countr_zero32(esc));
            for (; i < end; ++i) {
                const std::uint32_t position = next + static_cast<std::uint32_t>(payload[i]);
                f(position);
                next = position + 1;
            }
            const std::uint32_t position = next + load_le<std::uint16_t>(payload + i + 1);
            i += 3;
            f(position);
            next = position + 1;
            if (i > bytes) return;  // a forged escape cut off at the end
            continue;
        }
        alignas(16) std::uint16_t positions[16];
        sixteen_positions(g, _mm_set1_epi8(-1), next, positions);
        for (std::uint32_t k = 0; k < 16; ++k) f(std::uint32_t{positions[k]});
        next = std::uint32_t{positions[15]} + 1;
        i += 16;
    }
    // The last 1-15 gaps of a list of 16 bytes or more: the payload's last 16 bytes, with the
    // gaps already taken counted as zero (lanes below 16 - left masked off), where no escape
    // is among the new ones.
    const std::uint32_t left = bytes - i;
    if (left != 0 && bytes >= 16) {
        alignas(16) static constexpr std::uint8_t masks[32] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                               255, 255, 255, 255, 255, 255, 255, 255,
                                                               255, 255, 255, 255, 255, 255, 255, 255};
        const __m128i g = _mm_loadu_si128(reinterpret_cast<const __m128i*>(payload + bytes - 16));
        const auto esc = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(g, escapes)));
        if ((esc >> (16 - left)) == 0) {
            alignas(16) std::uint16_t positions[16];
            sixteen_positions(g, _mm_loadu_si128(reinterpret_cast<const __m128i*>(masks + left)), next, positions);
            for (std::uint32_t k = 16 - left; k < 16; ++k) f(std::uint32_t{positions[k]});
            return;
        }
    }
#endif
    while (i < bytes) {
        std::uint32_t gap = static_cast<std::uint32_t>(payload[i++]);
        if (gap == escape) {
            gap = load_le<std::uint16_t>(payload + i);
            i += 2;
        }
        const std::uint32_t position = next + gap;
        f(position);
        next = position + 1;
    }
}

/// XORs the positions onto `target`, checking escapes are complete and positions < len.
inline void apply(byte_reader& reader, std::uint32_t bytes, std::uint32_t len, plane& target) {
    const std::size_t start = reader.position();
    const std::span<const std::byte> payload = reader.take(bytes, "gap list");
    std::uint32_t next = 0;
    for (std::uint32_t i = 0; i < bytes;) {
        const std::size_t at = start + i;
        std::uint32_t gap = static_cast<std::uint32_t>(payload[i++]);
        if (gap == escape) {
            if (bytes - i < 2) reader.fail_at("gap escape cut off at the end of the list", at);
            gap = load_le<std::uint16_t>(payload.data() + i);
            i += 2;
        }
        const std::uint32_t position = next + gap;
        if (position >= len)
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
