// Parsing and decoding of encoded blocks. Every structural rule is checked here, so
// decode_block and validate_block never read outside the block or build a wrong vector.
#include "block_format.hpp"
#include "block_decoding.hpp"
#include "plane_gaps.hpp"
#include "plane_positions.hpp"
#include "plane_raw.hpp"
#include "plane_runs.hpp"
#include "value_transform.hpp"
#include "simd/kernels.hpp"

#include <bitplane/error.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bitplane::detail {

using codec::base_kind;
using codec::payload_kind;

namespace {

// Reads one descriptor (and its item count) at the reader's position, checking what
// block_layout.hpp's decode_plane_code leaves unchecked.
stored_plane read_descriptor(byte_reader& reader, std::uint32_t length) {
    stored_plane plane;
    plane.descriptor_offset = static_cast<std::uint32_t>(reader.position());
    const auto a = reader.read<std::uint8_t>("plane descriptor");
    const auto b = reader.read<std::uint8_t>("plane descriptor");
    const plane_code code = decode_plane_code(a, b);
    if (code.reserved) reader.fail_at("reserved descriptor bits set", plane.descriptor_offset);
    if (code.payload >= codec::payload_kind_count)
        reader.fail_at("unknown payload kind " + std::to_string(code.payload), plane.descriptor_offset);
    plane.index = code.index;
    plane.payload = code.payload_kind();
    plane.base = code.base_kind();
    plane.reference = code.reference;
    if ((plane.base == base_kind::zero || plane.base == base_kind::one) && plane.reference != 0)
        reader.fail_at("reference set on a plane with a constant base", plane.descriptor_offset);
    if (counted(plane.payload)) {
        const std::size_t at = reader.position();
        plane.items = reader.read<std::uint16_t>("item count");
        const std::uint32_t limit = plane.payload == payload_kind::positions ? length
                                    : plane.payload == payload_kind::runs ? (length + 1) / 2
                                                                          : gaps_payload::max_payload_bytes(length);
        if (plane.items == 0 || plane.items > limit)
            reader.fail_at("item count " + std::to_string(plane.items) + " outside 1.." +
                               std::to_string(limit),
                           at);
    }
    return plane;
}

// Planes are filled without `plane{}`: g++ -O3 writes it as rep stosq, whose start-up of tens
// of cycles on Zen 3 was paid for every plane of every block. Vector stores of a constant the
// compiler cannot see through, so that it does not turn them back into a memset.
void fill_plane(plane& p, std::uint32_t word) noexcept {
#if defined(__SSE2__)
    __m128i fill = _mm_set1_epi32(static_cast<int>(word));
    asm("" : "+x"(fill));
    for (std::size_t w = 0; w < plane_words; w += 4)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p.data() + w), fill);
#else
    p.fill(word);
#endif
}

void assign_payload(stored_plane& plane, std::size_t& cursor, std::uint32_t length) {
    plane.payload_offset = static_cast<std::uint32_t>(cursor);
    plane.payload_bytes = payload_size(plane.payload, plane.items, length);
    cursor += plane.payload_bytes;
}

}  // namespace

parsed_block parse_block(std::span<const std::byte> bytes, std::size_t count, bool exact,
                         std::uint64_t base_offset) {
    if (count == 0 || count > block_values)
        throw format_error("block value count " + std::to_string(count) + " outside 1..2048", base_offset);
    byte_reader reader(bytes, base_offset);
    parsed_block block;
    block.count = static_cast<std::uint32_t>(count);
    block.length = block.count;

    const auto flags = reader.read<std::uint8_t>("block flags");
    if (flags & block_flags::reserved) reader.fail_at("reserved block flag bits set", 0);
    block.value_transform = static_cast<codec::transform>(flags & block_flags::transform_mask);
    block.sparse = flags & block_flags::sparse;
    block.all_raw = flags & block_flags::all_raw;

    switch (block.value_transform) {
        case codec::transform::frame_of_reference:
            block.for_base = reader.read<std::uint32_t>("frame-of-reference base");
            break;
        case codec::transform::delta:
            block.delta_first = reader.read<std::uint32_t>("delta first value");
            block.delta_min = reader.read<std::uint32_t>("delta minimum");
            break;
        default: break;
    }

    // The payload cursor runs ahead of the descriptors: descriptors are read first, then
    // payload extents are assigned in the same order once the descriptor area ends.
    if (block.sparse) {
        const std::size_t at = reader.position();
        const auto stored = reader.read<std::uint16_t>("sparse value count");
        if (stored == 0 || stored > count)
            reader.fail_at("sparse value count " + std::to_string(stored) + " outside 1.." +
                               std::to_string(count),
                           at);
        block.length = stored;
        block.mask = read_descriptor(reader, block.count);
        if (block.mask.base == base_kind::plane || block.mask.base == base_kind::complement)
            reader.fail_at("mask plane refers to another plane", block.mask.descriptor_offset);
        std::size_t cursor = reader.position();
        assign_payload(block.mask, cursor, block.count);
        reader.take(block.mask.payload_bytes, "mask plane payload");
    }

    block.live = reader.read<std::uint32_t>("live plane mask");
    if (flags & block_flags::has_ones) {
        const std::size_t at = reader.position();
        block.ones = reader.read<std::uint32_t>("ones plane mask");
        if (block.ones == 0) reader.fail_at("ones mask flagged but empty", at);
        if (block.ones & block.live) reader.fail_at("a plane is both stored and all-one", at);
    }

    block.stored = static_cast<std::uint32_t>(std::popcount(block.live));
    const std::size_t planes_at = reader.position();
    if (block.all_raw) {
        std::uint32_t live = block.live;
        for (std::uint32_t i = 0; live; ++i, live &= live - 1) {
            stored_plane& plane = block.planes[i];
            plane.index = static_cast<std::uint8_t>(std::countr_zero(live));
            plane.payload = payload_kind::raw;
        }
    } else {
        std::uint32_t seen = 0;
        for (std::uint32_t i = 0; i < block.stored; ++i) {
            stored_plane plane = read_descriptor(reader, block.length);
            const std::uint32_t bit = 1u << plane.index;
            if (!(block.live & bit) || (seen & bit))
                reader.fail_at("descriptor for plane " + std::to_string(plane.index) +
                                   " not in the live mask or repeated",
                               plane.descriptor_offset);
            if ((plane.base == base_kind::plane || plane.base == base_kind::complement) &&
                !(seen & (1u << plane.reference)))
                reader.fail_at("plane " + std::to_string(plane.index) + " refers to plane " +
                                   std::to_string(plane.reference) + ", not decoded before it",
                               plane.descriptor_offset);
            seen |= bit;
            block.planes[i] = plane;
        }
    }
    block.interleaved = block.all_raw && block.length == block_values;
    const std::size_t payloads_at = reader.position();
    std::size_t cursor = payloads_at;
    // Interleaved planes have no extent of their own: each gets the offset of its first
    // word, and together they cover stored x 256 bytes, as planar ones would.
    for (std::uint32_t i = 0; i < block.stored; ++i) {
        assign_payload(block.planes[i], cursor, block.length);
        if (block.interleaved) block.planes[i].payload_offset = block.planes[0].payload_offset + 4 * i;
    }
    if (cursor > bytes.size())
        throw format_error("block payloads need " + std::to_string(cursor) + " bytes, " +
                               std::to_string(bytes.size()) + " available",
                           base_offset + bytes.size());
    if (exact && cursor != bytes.size())
        throw format_error("block has " + std::to_string(bytes.size() - cursor) + " trailing bytes",
                           base_offset + cursor);
    block.end = static_cast<std::uint32_t>(cursor);

    // The compact descriptor of what was parsed (read_descriptor gives the same from the bytes).
    block_descriptor& d = block.descriptor;
    d.flags = flags;
    d.live = block.live;
    d.ones = block.ones;
    d.base = block.value_transform == codec::transform::delta ? block.delta_first : block.for_base;
    d.delta_min = block.delta_min;
    d.end = static_cast<std::uint16_t>(block.end);
    d.length = static_cast<std::uint16_t>(block.length);
    d.planes_at = static_cast<std::uint16_t>(planes_at);
    d.payloads_at = static_cast<std::uint16_t>(payloads_at);
    if (block.sparse) {
        d.mask_at = static_cast<std::uint16_t>(block.mask.payload_offset);
        d.mask_items = block.mask.items;
        d.mask_code = static_cast<std::uint8_t>(static_cast<unsigned>(block.mask.payload) |
                                                (block.mask.base == base_kind::one ? 8u : 0u));
    }
    d.stored = static_cast<std::uint8_t>(block.stored);
    return block;
}

parsed_block expand_descriptor(const block_descriptor& d, const std::byte* bytes, std::uint32_t count) noexcept {
    parsed_block block;
    block.value_transform = d.transform();
    block.sparse = d.sparse();
    block.all_raw = d.all_raw();
    block.interleaved = d.interleaved();
    block.count = count;
    block.length = d.length;
    block.for_base = d.for_base();
    block.delta_first = block.value_transform == codec::transform::delta ? d.base : 0;
    block.delta_min = d.delta_min;
    block.live = d.live;
    block.ones = d.ones;
    block.stored = d.stored;
    block.end = d.end;
    block.descriptor = d;
    if (block.sparse) {
        stored_plane& mask = block.mask;
        mask.payload = d.mask_payload();
        mask.base = d.mask_base_one() ? base_kind::one : base_kind::zero;
        mask.items = d.mask_items;
        mask.payload_offset = d.mask_at;
        mask.payload_bytes = payload_size(mask.payload, mask.items, count);
        mask.descriptor_offset = d.mask_at - plane_descriptor_bytes - (counted(mask.payload) ? plane_item_count_bytes : 0);
    }
    if (block.all_raw) {
        const std::uint32_t raw = payload_size(payload_kind::raw, 0, d.length);
        std::uint32_t live = d.live;
        for (std::uint32_t i = 0; live; ++i, live &= live - 1) {
            stored_plane& plane = block.planes[i];
            plane.index = static_cast<std::uint8_t>(std::countr_zero(live));
            plane.payload = payload_kind::raw;
            plane.payload_bytes = raw;
            plane.payload_offset = d.payloads_at + (block.interleaved ? 4 * i : raw * i);
        }
        return block;
    }
    plane_walker walk(d, bytes);
    std::uint32_t at = d.planes_at;
    for (std::uint32_t i = 0; i < d.stored; ++i) {
        const plane_entry e = walk.next();
        stored_plane& plane = block.planes[i];
        plane.index = e.code.index;
        plane.payload = e.code.payload_kind();
        plane.base = e.code.base_kind();
        plane.reference = e.code.reference;
        plane.items = static_cast<std::uint16_t>(e.items);
        plane.descriptor_offset = at;
        plane.payload_offset = e.payload_offset;
        plane.payload_bytes = payload_size(plane.payload, e.items, d.length);
        at += plane_descriptor_bytes + (counted(plane.payload) ? plane_item_count_bytes : 0);
    }
    return block;
}

namespace {

// Flips the bits of a short gap list's decoded positions (gaps_side::entry): no escape to
// branch on. The list ends at its first pad (gaps_listed_pad, above every bit) or at `listed`:
// stopping there skips the pad's up to 15 entries (a list is padded to a multiple of 16) and
// the test per entry that made a pad flip nothing. geoip4_size's decode 2.48M -> 2.20M
// instructions (callgrind, avx2), one mispredicted exit per list as before.
void flip_listed(const std::uint16_t* positions, std::uint32_t listed, plane& out) noexcept {
    for (std::uint32_t k = 0; k < listed; ++k) {
        const std::uint32_t p = positions[k];
        if (p >= block_bits) break;
        out[p >> 5] ^= 1u << (p & 31);
    }
}

void rebuild_from(const stored_plane& stored, std::span<const std::byte> bytes, std::uint64_t base_offset,
                  std::uint32_t length, const plane* planes, plane& out, const gaps_side::entry& side) {
    byte_reader reader(bytes.subspan(stored.payload_offset, stored.payload_bytes),
                       base_offset + stored.payload_offset);
    switch (stored.base) {
        case base_kind::zero:
            if (side.map != nullptr) {  // the list's bits are the plane
                std::copy_n(side.map, plane_words, out.begin());
                return;
            }
            if (stored.payload == payload_kind::raw) {
                // The copy covers the whole plane at full length; shorter ones keep zeros after it.
                if (length != block_values) fill_plane(out, 0);
                raw_payload::assign(reader, length, out);
                return;
            }
            fill_plane(out, 0);
            break;
        case base_kind::one:
            if (length == block_values) fill_plane(out, ~0u); else out = ones_plane(length);
            break;
        case base_kind::plane:
            if (side.map != nullptr) {  // base and map in one pass, not a copy and then an XOR
                const plane& base = planes[stored.reference];
                for (std::size_t w = 0; w < plane_words; ++w) out[w] = base[w] ^ side.map[w];
                return;
            }
            out = planes[stored.reference];
            break;
        case base_kind::complement: out = complement(planes[stored.reference], length); break;
    }
    switch (stored.payload) {
        case payload_kind::none: break;
        case payload_kind::positions: positions_payload::apply(reader, stored.items, length, out); break;
        case payload_kind::runs: runs_payload::apply(reader, stored.items, length, out); break;
        case payload_kind::raw: raw_payload::apply(reader, length, out); break;
        case payload_kind::gaps:
            if (side.map != nullptr) {
                for (std::size_t w = 0; w < plane_words; ++w) out[w] ^= side.map[w];
            } else if (side.positions != nullptr) {
                flip_listed(side.positions, side.listed, out);
            } else {
                gaps_payload::apply(reader, stored.items, length, out);
            }
            break;
    }
}

}  // namespace

void rebuild_plane(const stored_plane& stored, std::span<const std::byte> bytes, std::uint64_t base_offset,
                   std::uint32_t length, const plane* planes, plane& out, const std::uint32_t* gaps_map) {
    rebuild_from(stored, bytes, base_offset, length, planes, out, {gaps_map, nullptr, 0});
}

void rebuild_planes(const parsed_block& block, std::span<const std::byte> bytes, std::uint64_t base_offset,
                    plane* planes, plane& mask, gaps_side side) {
    // The side's maps come in gaps_skips' order: the mask's payload, then the planes'.
    const auto entry_of = [&](const stored_plane& p) { return side.next(p.payload, p.items); };
    if (block.sparse) {
        rebuild_from(block.mask, bytes, base_offset, block.count, nullptr, mask, entry_of(block.mask));
        const auto stored = static_cast<std::uint32_t>(active_kernels().popcount_words(mask.data(), plane_words));
        if (stored != block.length)
            throw format_error("mask plane has " + std::to_string(stored) + " bits set, header says " +
                                   std::to_string(block.length),
                               base_offset + block.mask.payload_offset);
    }
    // Only live planes are written; the untranspose kernel reads no others.
    if (block.interleaved) {
        const std::byte* payload = bytes.data() + block.planes[0].payload_offset;
        const std::uint32_t stored = block.stored;
        std::uint32_t* target[plane_count];
        for (std::uint32_t i = 0; i < stored; ++i) target[i] = planes[block.planes[i].index].data();
        for (std::uint32_t column = 0; column < plane_words; ++column, payload += 4 * stored)
            for (std::uint32_t i = 0; i < stored; ++i) target[i][column] = load_le<std::uint32_t>(payload + 4 * i);
    }
    for (std::uint32_t i = 0; i < block.stored && !block.interleaved; ++i) {
        const stored_plane& stored = block.planes[i];
        rebuild_from(stored, bytes, base_offset, block.length, planes, planes[stored.index], entry_of(stored));
    }
    if (std::uint32_t ones = block.ones; ones != 0) {
        const plane all_ones = ones_plane(block.length);
        for (; ones; ones &= ones - 1) planes[std::countr_zero(ones)] = all_ones;
    }
    if (block.sparse && block.ones == 0) {
        // The mask lists the non-zero residuals only (docs/format.md): every stored value has
        // a set bit in some plane. Operations read "mask clear" as "value zero" and count
        // non-zeros from the mask, so a zero stored under the mask would make them wrong.
        plane any{};
        for (std::uint32_t live = block.live; live; live &= live - 1) {
            const plane& p = planes[std::countr_zero(live)];
            for (std::size_t w = 0; w < plane_words; ++w) any[w] |= p[w];
        }
        const auto nonzero = static_cast<std::uint32_t>(active_kernels().popcount_words(any.data(), plane_words));
        if (nonzero != block.length)
            throw format_error("sparse block stores " + std::to_string(block.length - nonzero) +
                                   " zero value(s) under its non-zero mask",
                               base_offset + block.mask.descriptor_offset);
    }
}

void decode_parsed(const parsed_block& block, std::span<const std::byte> bytes, std::uint64_t base_offset,
                   std::span<std::uint32_t> out, gaps_side side, decode_destination destination) {
    const kernel_table& kernels = active_kernels();
    const auto untranspose_in_cache =
        kernels.untranspose_in_cache != nullptr ? kernels.untranspose_in_cache : kernels.untranspose;
    if (block.interleaved && !block.sparse && out.size() == block_values) {
        // Interleaved payloads transpose to values in place: no planes in between.
        const auto* payload = reinterpret_cast<const std::uint8_t*>(bytes.data()) +
                              (block.stored != 0 ? block.planes[0].payload_offset : 0);
        kernels.interleaved_transpose(payload, block.live, out.data(), nullptr, 0);
        if (block.ones != 0) {
            for (std::uint32_t& v : out) v |= block.ones;
        }
        undo_transform(block, out);
        return;
    }
    // Left uninitialized: only the live and all-one planes are written, and only those read.
    alignas(64) plane planes[plane_count];
    plane mask;
    rebuild_planes(block, bytes, base_offset, planes, mask, side);
    if (!block.sparse && out.size() == block_values) {
        // A full dense block untransposes straight into the caller's buffer.
        const auto untranspose =
            destination == decode_destination::cache ? untranspose_in_cache : kernels.untranspose;
        untranspose(planes[0].data(), block.live | block.ones, out.data());
        undo_transform(block, out);
        return;
    }
    alignas(64) std::uint32_t residuals[block_values];  // on the stack: in cache
    untranspose_in_cache(planes[0].data(), block.live | block.ones, residuals);
    if (block.sparse) {
        // untranspose wrote all 2048 residuals: the kernel may load whole registers of them.
        const auto expand = kernels.expand_nonzero != nullptr ? kernels.expand_nonzero : expand_nonzero_portable;
        expand(residuals, block_values, mask.data(), block.count, out.data());
    } else {
        std::copy_n(residuals, block.count, out.data());
    }
    undo_transform(block, out.first(block.count));
}

}  // namespace bitplane::detail

namespace bitplane::codec {

void decode_block(std::span<const std::byte> bytes, std::span<std::uint32_t> out) {
    const detail::parsed_block block = detail::parse_block(bytes, out.size(), true);
    detail::decode_parsed(block, bytes, 0, out);
}

void validate_block(std::span<const std::byte> bytes, std::size_t count) {
    const detail::parsed_block block = detail::parse_block(bytes, count, true);
    alignas(64) std::uint32_t scratch[block_values];
    detail::decode_parsed(block, bytes, 0, std::span<std::uint32_t>(scratch, count));
}

}  // namespace bitplane::codec
