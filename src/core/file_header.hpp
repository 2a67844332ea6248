// What every bitplane file shares, whatever it holds (vector, bitset): the 64-byte header's
// magic, version and fixed offsets, and the XXH3 checksum over everything but its own field
// (docs/format.md sections 3 and 5).
#pragma once

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane::detail::file {

inline constexpr std::array<char, 8> magic = {'B', 'I', 'T', 'P', 'L', 'A', 'N', 'E'};
inline constexpr std::uint16_t format_version = 1;
inline constexpr std::uint8_t kind_vector = 1;
inline constexpr std::uint8_t kind_bitset = 2;
inline constexpr std::size_t header_bytes = 64;
inline constexpr std::size_t checksum_offset = 56;

/// XXH3-64 of bytes [0, checksum_offset) followed by [header_bytes, end).
inline std::uint64_t checksum(std::span<const std::byte> file) {
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    XXH3_64bits_update(&state, file.data(), checksum_offset);
    XXH3_64bits_update(&state, file.data() + header_bytes, file.size() - header_bytes);
    return XXH3_64bits_digest(&state);
}

}  // namespace bitplane::detail::file
