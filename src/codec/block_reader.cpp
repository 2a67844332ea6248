// Reading single values and describing blocks without decoding whole blocks.
#include "block_decoding.hpp"
#include "block_format.hpp"
#include "direct_access.hpp"
#include "plane_gaps.hpp"
#include "plane_positions.hpp"
#include "plane_raw.hpp"
#include "plane_runs.hpp"
#include "thresholds.hpp"

#include <bit>

namespace bitplane::detail {

namespace {

using codec::base_kind;
using codec::payload_kind;

std::uint32_t finish_value(codec::transform kind, std::uint32_t residual, std::uint32_t for_base) noexcept {
    switch (kind) {
        case codec::transform::frame_of_reference: return residual + for_base;
        case codec::transform::zigzag: return (residual >> 1) ^ (0u - (residual & 1u));
        default: return residual;
    }
}

// One bit of a stored plane, following references; `slot` maps plane number to its entry.
bool stored_bit(const parsed_block& block, const std::uint8_t* slot, const std::byte* bytes,
                const stored_plane& p, std::uint32_t bit, std::uint32_t length) {
    bool value = false;
    switch (p.base) {
        case base_kind::zero: value = false; break;
        case base_kind::one: value = true; break;
        case base_kind::plane:
            value = stored_bit(block, slot, bytes, block.planes[slot[p.reference]], bit, length);
            break;
        case base_kind::complement:
            value = !stored_bit(block, slot, bytes, block.planes[slot[p.reference]], bit, length);
            break;
    }
    const std::byte* payload = bytes + p.payload_offset;
    if (block.interleaved) {
        // p.payload_offset is its word in column 0; columns are `stored` words apart.
        payload += interleaved_offset(bit / 32, 0, block.stored);
        return static_cast<bool>((load_le<std::uint32_t>(payload) >> (bit % 32)) & 1u);
    }
    switch (p.payload) {
        case payload_kind::none: break;
        case payload_kind::positions: value ^= positions_payload::contains(payload, p.items, bit); break;
        case payload_kind::runs: value ^= runs_payload::contains(payload, p.items, bit); break;
        case payload_kind::raw: value ^= raw_payload::contains(payload, bit); break;
        case payload_kind::gaps: value ^= gaps_payload::contains(payload, p.items, bit); break;
    }
    return value;
}

std::uint32_t general_value(std::span<const std::byte> bytes, std::size_t count, std::size_t index) {
    const parsed_block block = parse_block(bytes, count, false);
    if (block.value_transform == codec::transform::delta) {
        alignas(64) std::uint32_t values[block_values];
        decode_parsed(block, bytes, 0, std::span<std::uint32_t>(values, count));
        return values[index];
    }
    auto position = static_cast<std::uint32_t>(index);
    if (block.sparse) {
        plane mask;
        rebuild_plane(block.mask, bytes, 0, block.count, nullptr, mask);
        if (!test_bit(mask, position)) return finish_value(block.value_transform, 0, block.for_base);
        std::uint32_t rank = 0;
        for (std::uint32_t w = 0; w < position / 32; ++w) rank += static_cast<std::uint32_t>(std::popcount(mask[w]));
        rank += static_cast<std::uint32_t>(std::popcount(mask[position / 32] & ((1u << (position % 32)) - 1)));
        position = rank;
    }
    std::uint8_t slot[plane_count] = {};
    for (std::uint32_t i = 0; i < block.stored; ++i) slot[block.planes[i].index] = static_cast<std::uint8_t>(i);
    std::uint32_t residual = block.ones;
    for (std::uint32_t i = 0; i < block.stored; ++i) {
        const stored_plane& p = block.planes[i];
        if (stored_bit(block, slot, bytes.data(), p, position, block.length)) residual |= 1u << p.index;
    }
    return finish_value(block.value_transform, residual, block.for_base);
}

}  // namespace

}  // namespace bitplane::detail

namespace bitplane::codec {

std::uint32_t decode_value(std::span<const std::byte> bytes, std::size_t count, std::size_t index) {
    using namespace bitplane::detail;
    // Fast path: dense, full, all-raw blocks (uniform data), plain or frame of reference.
    const direct_access direct = direct_access_of(bytes, count);
    if (direct.usable) return direct_value(bytes.data(), direct.header, direct.live, direct.stored, direct.ones, direct.base, index);
    return general_value(bytes, count, index);
}

block_info describe_block(std::span<const std::byte> bytes, std::size_t count) {
    using namespace bitplane::detail;
    const parsed_block block = parse_block(bytes, count, true);
    block_info info;
    info.value_transform = block.value_transform;
    info.value_layout = block.sparse ? layout::sparse : layout::dense;
    info.values = block.count;
    info.stored_values = block.length;
    info.bytes = block.end;
    auto describe = [&](const stored_plane& p, bool has_descriptor) {
        plane_info out;
        out.base = p.base;
        out.payload = p.payload;
        out.reference = p.reference;
        out.items = p.items;
        const bool counted = p.payload == payload_kind::positions || p.payload == payload_kind::runs ||
                             p.payload == payload_kind::gaps;
        out.bytes = (has_descriptor ? thresholds::descriptor_bytes : 0) +
                    (counted ? thresholds::item_count_bytes : 0) + p.payload_bytes;
        return out;
    };
    for (std::uint32_t j = 0; j < plane_count; ++j)
        if (block.ones >> j & 1u) info.planes[j].base = base_kind::one;
    for (std::uint32_t i = 0; i < block.stored; ++i) info.planes[block.planes[i].index] = describe(block.planes[i], !block.all_raw);
    if (block.sparse) info.mask = describe(block.mask, true);
    return info;
}

}  // namespace bitplane::codec
