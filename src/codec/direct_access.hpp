// Reading one value of a block with no parsing: for dense, full, all-raw blocks (plain or
// frame of reference), the header fields a read needs are copied once into the vector's
// block table, so a random read is one table entry plus one or two cache lines of
// interleaved plane words. Other blocks go through codec::decode_value.
#pragma once

#include "block_format.hpp"
#include "byte_io.hpp"

#include <bit>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane::detail {

struct direct_access {
    bool usable = false;
    std::uint8_t header = 0;  // bytes before the interleaved plane words
    std::uint8_t stored = 0;  // live planes
    std::uint32_t live = 0;
    std::uint32_t ones = 0;
    std::uint32_t base = 0;   // frame-of-reference base, 0 for plain blocks
};

/// The direct-access fields of a validated block of `count` values (usable == false when
/// the block needs the general reader).
inline direct_access direct_access_of(std::span<const std::byte> block, std::size_t count) noexcept {
    direct_access a;
    const auto flags = static_cast<std::uint8_t>(block[0]);
    const auto kind = static_cast<codec::transform>(flags & block_flags::transform_mask);
    if (count != block_values || (flags & (block_flags::sparse | block_flags::all_raw)) != block_flags::all_raw ||
        (kind != codec::transform::none && kind != codec::transform::frame_of_reference))
        return a;
    std::size_t at = 1;
    if (kind == codec::transform::frame_of_reference) {
        a.base = load_le<std::uint32_t>(block.data() + at);
        at += 4;
    }
    a.live = load_le<std::uint32_t>(block.data() + at);
    at += 4;
    if (flags & block_flags::has_ones) {
        a.ones = load_le<std::uint32_t>(block.data() + at);
        at += 4;
    }
    a.header = static_cast<std::uint8_t>(at);
    a.stored = static_cast<std::uint8_t>(std::popcount(a.live));
    a.usable = true;
    return a;
}

/// Gathers bit `shift` of the `stored` consecutive 32-bit words at `words` into bits
/// 0..stored-1. May read up to 12 bytes past the last word (the caller makes sure they exist).
/// A random read is bound by how many instructions keep the out-of-order window busy per
/// cache miss, so on x86-64 this takes 4 words per SSE2 shift + movemask (SSE2 is part of
/// x86-64, no dispatch needed) instead of 5 scalar instructions per word.
inline std::uint32_t gather_bits(const std::byte* words, unsigned stored, unsigned shift, bool may_overread) noexcept {
    std::uint32_t packed = 0;
#if defined(__SSE2__)
    if (may_overread) {
        const __m128i count = _mm_cvtsi32_si128(static_cast<int>(31 - shift));
        for (unsigned k = 0; k < stored; k += 4) {
            const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(words + 4 * k));
            packed |= static_cast<std::uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_sll_epi32(x, count)))) << k;
        }
        return stored >= 32 ? packed : packed & ((1u << stored) - 1);
    }
#else
    (void)may_overread;
#endif
    for (unsigned k = 0; k < stored; ++k) packed |= ((load_le<std::uint32_t>(words + 4 * k) >> shift) & 1u) << k;
    return packed;
}

/// Value `index` of a block whose direct-access fields are (header, live, ones, base) and
/// whose live mask has `stored` bits (passed in: without -mpopcnt, std::popcount is a call).
inline std::uint32_t direct_value(const std::byte* block, std::uint32_t header, std::uint32_t live, unsigned stored,
                                  std::uint32_t ones, std::uint32_t base, std::size_t index) noexcept {
    const auto column = static_cast<unsigned>(index / 32);
    const std::byte* words = block + header + interleaved_offset(column, 0, stored);
    // Over-reading past this column stays inside the block while later columns hold at
    // least the 0..3 words a 4-word load can run over.
    const unsigned overread = (4 - stored % 4) % 4;
    std::uint32_t packed = gather_bits(words, stored, index % 32, (63 - column) * stored >= overread);
    // Live planes are usually the low ones, possibly above some all-zero planes: then the
    // packed bits only need a shift. Otherwise scatter them to their plane numbers.
    const auto low = static_cast<unsigned>(std::countr_zero(live | (live == 0 ? 1u : 0u)));
    std::uint32_t value;
    if (((live >> low) & ((live >> low) + 1)) == 0) {
        value = low < 32 ? packed << low : 0;
    } else {
        value = 0;
        for (unsigned k = 0; live; live &= live - 1, ++k) value |= ((packed >> k) & 1u) << std::countr_zero(live);
    }
    return (value | ones) + base;
}

}  // namespace bitplane::detail
