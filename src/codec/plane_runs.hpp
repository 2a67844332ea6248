// Payload "runs": sorted, non-touching [start, end) intervals of differing bits, two u16
// each (as Roaring's run containers). Long masked regions, N runs and flag columns with
// long stretches cost a few bytes instead of 256.
#pragma once

#include "byte_io.hpp"
#include "plane_bits.hpp"
#include "thresholds.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane::detail::runs_payload {

BITPLANE_HOST_DEVICE constexpr std::uint32_t payload_bytes(std::uint32_t items) noexcept {
    return items * thresholds::run_bytes;
}

/// Writes the maximal runs of `diff`; returns bytes written.
BITPLANE_HOST_DEVICE inline std::uint32_t write(const plane& diff, std::byte* out) noexcept {
    std::byte* p = out;
    for_each_run(diff, [&](std::uint32_t begin, std::uint32_t end) {
        put_le<std::uint16_t>(p, static_cast<std::uint16_t>(begin));
        put_le<std::uint16_t>(p + 2, static_cast<std::uint16_t>(end));
        p += 4;
    });
    return static_cast<std::uint32_t>(p - out);
}

/// XORs `items` runs onto `target`, checking start < end <= len and that each run starts
/// after the previous one ended (maximal runs never touch).
inline void apply(byte_reader& reader, std::uint32_t items, std::uint32_t len, plane& target) {
    const std::size_t start = reader.position();
    const std::span<const std::byte> bytes = reader.take(payload_bytes(items), "run list");
    std::uint32_t previous_end = 0;
    for (std::uint32_t i = 0; i < items; ++i) {
        const std::uint32_t begin = load_le<std::uint16_t>(bytes.data() + 4 * i);
        const std::uint32_t end = load_le<std::uint16_t>(bytes.data() + 4 * i + 2);
        if (begin >= end || end > len || (i > 0 && begin <= previous_end))
            reader.fail_at("run [" + std::to_string(begin) + ", " + std::to_string(end) +
                               ") empty, out of order or beyond plane length " + std::to_string(len),
                           start + 4 * i);
        flip_range(target, begin, end);
        previous_end = end;
    }
}

/// Whether `bit` lies in one of the runs (binary search over a validated payload, halving by a
/// select as positions_payload::contains does).
inline bool contains(const std::byte* payload, std::uint32_t items, std::uint32_t bit) noexcept {
    if (items == 0) return false;
    std::uint32_t lo = 0;  // the last run starting at or before bit, or 0
    for (std::uint32_t n = items; n > 1; n -= n / 2) {
        const std::uint32_t mid = lo + n / 2;
        lo = load_le<std::uint16_t>(payload + 4 * mid) <= bit ? mid : lo;
    }
    return load_le<std::uint16_t>(payload + 4 * lo) <= bit && bit < load_le<std::uint16_t>(payload + 4 * lo + 2);
}

}  // namespace bitplane::detail::runs_payload
