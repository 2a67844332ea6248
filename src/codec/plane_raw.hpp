// Payload "raw": the plane's first `len` bits as ceil(len / 8) bytes, bit k of byte i being
// plane bit 8i + k. The fallback for planes with no structure (uniform data).
#pragma once

#include "byte_io.hpp"
#include "plane_bits.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace bitplane::detail::raw_payload {

BITPLANE_HOST_DEVICE constexpr std::uint32_t payload_bytes(std::uint32_t len) noexcept { return raw_plane_bytes(len); }

BITPLANE_HOST_DEVICE inline std::uint32_t write(const plane& diff, std::uint32_t len, std::byte* out) noexcept {
    const std::uint32_t bytes = payload_bytes(len);
    put_words_le(out, diff.data(), bytes);
    return bytes;
}

/// Copies the raw bits over the first ceil(len / 8) bytes of `target` (the rest is left as it
/// is: a whole plane at full length); bits at or above `len` must be zero.
// Always inline: the decoder calls it for most planes of wide blocks (tz_transition: 24 a block),
// and g++ left it out of line once the decoder's plane rebuild grew.
[[gnu::always_inline]] inline void assign(byte_reader& reader, std::uint32_t len, plane& target) {
    const std::uint32_t bytes = payload_bytes(len);
    const std::span<const std::byte> payload = reader.take(bytes, "raw plane");
    std::memcpy(target.data(), payload.data(), bytes);
    if (len % 8 != 0 && (static_cast<std::uint32_t>(payload[bytes - 1]) >> (len % 8)) != 0)
        reader.fail_at("raw plane has bits set beyond its length " + std::to_string(len),
                       reader.position() - 1);
}

/// XORs the raw bits onto `target`; bits at or above `len` must be zero.
inline void apply(byte_reader& reader, std::uint32_t len, plane& target) {
    plane bits{};
    assign(reader, len, bits);
    for (std::size_t w = 0; w < plane_words; ++w) target[w] ^= bits[w];
}

inline bool contains(const std::byte* payload, std::uint32_t bit) noexcept {
    return (static_cast<std::uint32_t>(payload[bit >> 3]) >> (bit & 7)) & 1u;
}

}  // namespace bitplane::detail::raw_payload
