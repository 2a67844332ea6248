// Payload "positions": the sorted positions of the bits that differ from the base, one u16
// each. Cheap for near-empty (or, on a complement base, near-full) planes.
#pragma once

#include "byte_io.hpp"
#include "plane_bits.hpp"
#include "thresholds.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane::detail::positions_payload {

BITPLANE_HOST_DEVICE constexpr std::uint32_t payload_bytes(std::uint32_t items) noexcept {
    return items * thresholds::position_bytes;
}

/// Writes the set bits of `diff` (all below the plane length); returns bytes written.
BITPLANE_HOST_DEVICE inline std::uint32_t write(const plane& diff, std::byte* out) noexcept {
    std::byte* p = out;
    for_each_set_bit(diff, [&](std::uint32_t bit) {
        put_le<std::uint16_t>(p, static_cast<std::uint16_t>(bit));
        p += 2;
    });
    return static_cast<std::uint32_t>(p - out);
}

/// XORs `items` positions onto `target`, checking they are strictly increasing and below
/// `len`. `reader` is positioned at the payload.
/// The loop takes no branch per position: order is folded into one flag and the range follows
/// from order and the last position, so both are tested once after it (the flips of a bad
/// list stay inside the plane, masked to its 2048 bits, and the error is then thrown). A branch
/// per position was most of a list plane's cost in the iterator's block decode.
inline void apply(byte_reader& reader, std::uint32_t items, std::uint32_t len, plane& target) {
    const std::size_t start = reader.position();
    const std::span<const std::byte> bytes = reader.take(payload_bytes(items), "position list");
    std::int32_t previous = -1;
    std::uint32_t disorder = 0;
    for (std::uint32_t i = 0; i < items; ++i) {
        const auto bit = static_cast<std::int32_t>(load_le<std::uint16_t>(bytes.data() + 2 * i));
        disorder |= static_cast<std::uint32_t>(bit <= previous);
        flip_bit(target, static_cast<std::uint32_t>(bit) % block_bits);
        previous = bit;
    }
    if (disorder == 0 && static_cast<std::uint32_t>(previous) < len) [[likely]] return;
    previous = -1;
    for (std::uint32_t i = 0; i < items; ++i) {
        const std::uint32_t bit = load_le<std::uint16_t>(bytes.data() + 2 * i);
        if (bit >= len || static_cast<std::int32_t>(bit) <= previous)
            reader.fail_at("position " + std::to_string(bit) + " out of order or beyond plane length " +
                               std::to_string(len),
                           start + 2 * i);
        previous = static_cast<std::int32_t>(bit);
    }
}

/// Whether `bit` is listed (binary search over a validated payload). The halving takes a
/// select, not a branch: the steps depend on `items` alone, where a branch on each comparison
/// mispredicted about half of them on random reads.
inline bool contains(const std::byte* payload, std::uint32_t items, std::uint32_t bit) noexcept {
    if (items == 0) return false;
    std::uint32_t lo = 0;  // the last item at or below bit, or 0
    for (std::uint32_t n = items; n > 1; n -= n / 2) {
        const std::uint32_t mid = lo + n / 2;
        lo = load_le<std::uint16_t>(payload + 2 * mid) <= bit ? mid : lo;
    }
    return load_le<std::uint16_t>(payload + 2 * lo) == bit;
}

}  // namespace bitplane::detail::positions_payload
