// Writing a planned block (block_plan.hpp) as the bytes block_layout.hpp lays out. Host and
// device code (host_device.hpp): the CPU encoder and the GPU one write through write_plan.
#pragma once

#include "block_format.hpp"
#include "block_plan.hpp"
#include "host_device.hpp"
#include "plane_bits.hpp"
#include "plane_gaps.hpp"
#include "plane_positions.hpp"
#include "plane_raw.hpp"
#include "plane_runs.hpp"

#include <cstddef>
#include <cstdint>

namespace bitplane::detail {

class block_writer {
public:
    BITPLANE_HOST_DEVICE explicit block_writer(std::byte* out) noexcept : out_(out) {}
    template <class T>
    BITPLANE_HOST_DEVICE void put(T value) noexcept {
        put_le<T>(out_ + size_, value);
        size_ += sizeof(T);
    }
    [[nodiscard]] BITPLANE_HOST_DEVICE std::byte* cursor() noexcept { return out_ + size_; }
    BITPLANE_HOST_DEVICE void advance(std::uint32_t bytes) noexcept { size_ += bytes; }
    [[nodiscard]] BITPLANE_HOST_DEVICE std::size_t size() const noexcept { return size_; }

private:
    std::byte* out_;
    std::size_t size_ = 0;
};

BITPLANE_HOST_DEVICE inline plane base_plane(const plane_choice& c, const block_planes& planes,
                                             std::uint32_t length) noexcept {
    switch (c.base) {
        case codec::base_kind::zero: return plane{};
        case codec::base_kind::one: return ones_plane(length);
        case codec::base_kind::plane: return planes.planes[c.reference];
        case codec::base_kind::complement: return complement(planes.planes[c.reference], length);
    }
    return plane{};
}

BITPLANE_HOST_DEVICE inline void put_descriptor(block_writer& w, std::uint8_t index, const plane_choice& c) noexcept {
    w.advance(put_plane_descriptor(w.cursor(), index, c.payload, c.base, c.reference, c.items));
}

BITPLANE_HOST_DEVICE inline void put_payload(block_writer& w, const plane& value, const plane_choice& c,
                                             const block_planes& planes, std::uint32_t length) noexcept {
    if (c.payload == codec::payload_kind::none) return;
    const plane diff = xor_planes(value, base_plane(c, planes, length));
    switch (c.payload) {
        case codec::payload_kind::positions: w.advance(positions_payload::write(diff, w.cursor())); break;
        case codec::payload_kind::runs: w.advance(runs_payload::write(diff, w.cursor())); break;
        case codec::payload_kind::raw: w.advance(raw_payload::write(diff, length, w.cursor())); break;
        case codec::payload_kind::gaps: w.advance(gaps_payload::write(diff, w.cursor())); break;
        case codec::payload_kind::none: break;
    }
}

/// Whether the plan's planes are stored as one interleaved all-raw payload (block_layout.hpp).
BITPLANE_HOST_DEVICE constexpr bool interleaved_payload(const block_plan& plan) noexcept {
    return plan.stored != 0 && plan.all_raw && plan.length == block_values;
}

/// Word `column` of `p`, the `rank`-th of `stored` planes, into an interleaved payload starting
/// at `payload`. (Counts and pointers by value: the byte stores may alias any plan field, and
/// the CPU's loop keeps them in registers.)
BITPLANE_HOST_DEVICE inline void put_interleaved_word(std::byte* payload, const plane& p, std::uint32_t column,
                                                      std::uint32_t rank, std::uint32_t stored) noexcept {
    put_le<std::uint32_t>(payload + interleaved_offset(column, rank, stored), p[column]);
}

/// Writes `plan` (whose planes are `planes`) to `out`, which holds codec::max_block_bytes;
/// returns the bytes written (plan.bytes when the plan is consistent). With
/// `leave_interleaved`, an interleaved payload (the last stored_bytes of the block) is left
/// for the caller to fill with put_interleaved_word (the GPU's threads write it together).
BITPLANE_HOST_DEVICE inline std::size_t write_plan(const block_plan& plan, const block_planes& planes, std::byte* out,
                                                   bool leave_interleaved = false) noexcept {
    block_writer w(out);
    block_prefix prefix;
    prefix.transform = plan.transform.kind;
    prefix.sparse = plan.sparse;
    prefix.has_ones = plan.ones != 0;
    prefix.all_raw = plan.all_raw && plan.live;
    prefix.for_base = plan.transform.for_base;
    prefix.delta_first = plan.transform.delta_first;
    prefix.delta_min = plan.transform.delta_min;
    prefix.stored_values = plan.length;
    w.advance(put_block_prefix(w.cursor(), prefix));
    if (plan.sparse) {
        put_descriptor(w, 0, plan.mask_choice);
        put_payload(w, plan.mask, plan.mask_choice, planes, plan.count);
    }
    w.advance(put_plane_masks(w.cursor(), plan.live, plan.ones));
    const std::uint32_t n = plan.stored;
    if (interleaved_payload(plan)) {
        std::byte* payload = w.cursor();
        if (!leave_interleaved)
            for (std::uint32_t column = 0; column < plane_words; ++column)
                for (std::uint32_t j = 0; j < n; ++j)
                    put_interleaved_word(payload, planes.planes[plan.index[j]], column, j, n);
        w.advance(n * static_cast<std::uint32_t>(plane_bytes));
    } else if (n && plan.all_raw) {
        for (std::uint32_t j = 0; j < n; ++j)
            put_payload(w, planes.planes[plan.index[j]], plan.choices[j], planes, plan.length);
    } else {
        for (std::uint32_t k = 0; k < n; ++k) put_descriptor(w, plan.index[plan.order[k]], plan.choices[plan.order[k]]);
        for (std::uint32_t k = 0; k < n; ++k)
            put_payload(w, planes.planes[plan.index[plan.order[k]]], plan.choices[plan.order[k]], planes, plan.length);
    }
    return w.size();
}

}  // namespace bitplane::detail
