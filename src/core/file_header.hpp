// What every bitplane file shares, whatever it holds (vector, bitset): the 64-byte header's
// magic, version and fixed offsets, and the XXH3 checksum over everything but its own field
// (docs/format.md sections 3 and 5).
#pragma once

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "codec/byte_io.hpp"

#include <bitplane/error.hpp>
#include <bitplane/simd.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace bitplane::detail::file {

inline constexpr std::array<char, 8> magic = {'B', 'I', 'T', 'P', 'L', 'A', 'N', 'E'};
inline constexpr std::uint16_t format_version = 1;         // bitset and packed DNA files
inline constexpr std::uint16_t vector_format_version = 2;  // vector files (docs/format.md section 3)
inline constexpr std::uint16_t vector_zstd_version = 3;    // vector files whose body is a zstd frame (section 3)
inline constexpr std::uint8_t kind_vector = 1;
inline constexpr std::uint8_t kind_bitset = 2;
inline constexpr std::uint8_t kind_dna = 3;
inline constexpr std::size_t header_bytes = 64;
inline constexpr std::size_t checksum_offset = 56;

#if defined(BITPLANE_X86)
/// XXH3_64bits_update compiled for AVX2 (file_checksum_avx2.cpp).
void update_avx2(XXH3_state_t* state, const void* data, std::size_t size) noexcept;
#endif

/// Adds bytes to a file checksum: large pieces through the AVX2 build of XXH3 when the AVX2
/// (or a wider) SIMD path is active (about twice as fast: packing an incompressible column
/// hashes as many bytes as it reads), small ones inline.
inline void update(XXH3_state_t* state, const void* data, std::size_t size) noexcept {
#if defined(BITPLANE_X86)
    if (size >= 4096 && active_simd_path() >= simd_path::avx2) {
        update_avx2(state, data, size);
        return;
    }
#endif
    XXH3_64bits_update(state, data, size);
}

/// XXH3-64 of bytes [0, checksum_offset) followed by [header_bytes, end).
inline std::uint64_t checksum(std::span<const std::byte> file) {
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    update(&state, file.data(), checksum_offset);
    update(&state, file.data() + header_bytes, file.size() - header_bytes);
    return XXH3_64bits_digest(&state);
}

/// Writes the fields every file's header shares (bytes 0-15): magic, format `version`, `kind`,
/// the kind's own byte 11 and the header size. The caller writes bytes 16-63.
inline void write_header_start(std::byte* h, std::uint8_t kind, std::uint8_t kind_byte,
                               std::uint16_t version = format_version) noexcept {
    std::copy(magic.begin(), magic.end(), reinterpret_cast<char*>(h));
    store_le<std::uint16_t>(h + 8, version);
    h[10] = static_cast<std::byte>(kind);
    h[11] = static_cast<std::byte>(kind_byte);
    store_le<std::uint32_t>(h + 12, static_cast<std::uint32_t>(header_bytes));
}

/// Checks the fields every file's header shares: magic (bytes 0-7), format version (8-9), the
/// kind of content (10, which must be `kind`; `holds` names it in the message) and the header
/// size (12-15); byte 11 belongs to each kind. The version must lie in [1, max_version].
/// `bytes` holds at least header_bytes. Returns the version; format_error with the field's
/// offset otherwise.
inline std::uint16_t check_header(std::span<const std::byte> bytes, std::uint8_t kind, std::string_view holds,
                                  std::uint16_t max_version = format_version) {
    const std::byte* h = bytes.data();
    if (!std::equal(magic.begin(), magic.end(), reinterpret_cast<const char*>(h)))
        throw format_error("not a bitplane file (bad magic)", 0);
    const auto version = load_le<std::uint16_t>(h + 8);
    if (version < 1 || version > max_version)
        throw format_error("unsupported format version " + std::to_string(version) + " (this library reads 1" +
                               (max_version > 1 ? " to " + std::to_string(max_version) : std::string()) + ")",
                           8);
    if (static_cast<std::uint8_t>(h[10]) != kind)
        throw format_error("file does not hold " + std::string(holds) + " (kind " +
                               std::to_string(static_cast<unsigned>(h[10])) + ")",
                           10);
    if (load_le<std::uint32_t>(h + 12) != header_bytes) throw format_error("unexpected header size", 12);
    return version;
}

}  // namespace bitplane::detail::file
