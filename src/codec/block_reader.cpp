// Reading single values and describing blocks without decoding whole blocks: the side tables
// a vector keeps for random reads (delta checkpoints, gap-list skip entries), and read_value,
// which runs the portable or the AVX2 copy of value_reader.hpp.
#define BITPLANE_READER_NS reader_portable
#include "value_reader.hpp"

#include <bitplane/simd.hpp>

#include <algorithm>
#include <bit>
#include <cstring>

namespace bitplane::detail {

#if defined(BITPLANE_X86)
// block_reader_avx2.cpp: value_reader.hpp's read_value compiled for AVX2 CPUs.
std::uint32_t read_value_avx2(const block_descriptor& d, const std::byte* block, std::uint32_t index,
                              const std::uint32_t* checkpoints, const std::uint32_t* skips) noexcept;
#endif

using codec::payload_kind;
using reader_portable::gaps_index_none;
using reader_portable::skip_entries;
using reader_portable::skip_shift;
using reader_portable::window_sum;

void delta_checkpoints(const block_descriptor& d, const std::byte* block, std::uint32_t* out) noexcept {
    std::uint32_t sum = 0;
    for (std::uint32_t k = 0; k < delta_checkpoint_count; ++k) {
        const std::uint32_t from = k * delta_checkpoint_stride;
        sum += window_sum(d, block, std::min<std::uint32_t>(from, d.length),
                          std::min<std::uint32_t>(from + delta_checkpoint_stride, d.length), nullptr);
        out[k] = sum;
    }
}

namespace {

// payload_skips' buffer of decoded positions holds any list below either map bound.
static_assert(thresholds::read_bitmap_min_delta_gaps_bytes <= thresholds::read_bitmap_min_gaps_bytes);

// The map and ranks of a long gaps payload (value_reader.hpp, gaps_bitmap_words) at `out`;
// returns the end.
std::uint32_t* payload_bitmap(const std::byte* payload, std::uint32_t bytes, std::uint32_t* out) noexcept {
    std::fill_n(out, plane_words, 0u);
    // 16 gaps at a time (every appended block with a long list pays this).
    gaps_payload::for_every_position(payload, bytes, [&](std::uint32_t p) {
        if (p < block_values) out[p / 32] |= 1u << (p % 32);
    });
    std::uint16_t counts[8];
    std::uint32_t total = 0;
    for (std::uint32_t k = 0; k < 8; ++k) {
        counts[k] = static_cast<std::uint16_t>(total);
        total += reader_portable::ones_in(out + 8 * k, 8);  // no library popcount per word
    }
    std::memcpy(out + plane_words, counts, sizeof counts);
    return out + reader_portable::gaps_bitmap_words;
}

// Appends the side entries of one gaps payload at `out` (skip_entries above: a map for long
// lists, skip entries for the others); returns the end. Skip entries in one pass over the items
// (not a walk per bucket): where 16 gaps hold no escape, their positions come at once from
// gaps_payload::positions_of_16_gaps, and a chunk that ends before the next bucket starts is
// passed whole. Every appended block with a gap list (a sparse block's mask, gap-list planes)
// pays this: walking the list a byte at a time was ~12 instructions an item, 10% of AND with a
// sparse column (callgrind, bench_bitwise's shapes).
std::uint32_t* payload_skips(const std::byte* payload, std::uint32_t bytes, std::uint32_t least,
                             std::uint32_t* out) noexcept {
    if (reader_portable::gaps_bitmapped(bytes, least)) return payload_bitmap(payload, bytes, out);
    if (bytes == 0) return out;
    if (bytes < least) {  // short lists: their positions, padded (value_reader.hpp, listed_positions)
        const std::uint32_t n = reader_portable::listed_positions(bytes);
        std::uint16_t listed[thresholds::read_bitmap_min_gaps_bytes + 16];
        std::uint32_t k = 0;
        gaps_payload::for_every_position(payload, bytes, [&](std::uint32_t p) {
            if (k < n) listed[k++] = static_cast<std::uint16_t>(p);
        });
        std::fill(listed + k, listed + n, reader_portable::gaps_listed_pad);
        std::memcpy(out, listed, 2 * n);
        return out + n / 2;
    }
    const std::uint32_t entries = reader_portable::bucket_entries(bytes);
    if (entries == 0) return out;
    const std::uint32_t shift = 11 - skip_shift(bytes);
    const std::uint32_t width = 1u << shift;
    std::uint32_t b = 0;  // the next bucket to write
    // The item at byte `at`, the `rank`-th, at `position`: the entry of every bucket not
    // written yet that starts at or before it (items before such a bucket are all passed).
    const auto reach = [&](std::uint32_t at, std::uint32_t rank, std::uint32_t position) {
        for (; b < entries && (b << shift) <= position; ++b) {
            const std::uint32_t offset = position - (b << shift);
            *out++ = at | rank << 11 | (offset < width ? offset : gaps_index_none) << 22;
        }
    };
    std::uint32_t at = 0, rank = 0, next = 0;
    const auto one_gap = [&] {
        std::uint32_t gap = static_cast<std::uint8_t>(payload[at]);
        std::uint32_t step = 1;
        if (gap == gaps_payload::escape) [[unlikely]] {
            gap = load_le<std::uint16_t>(payload + at + 1);
            step = 3;
        }
        const std::uint32_t position = next + gap;
        reach(at, rank, position);
        at += step;
        ++rank;
        next = position + 1;
    };
#if defined(__SSE2__)
    while (at + 16 <= bytes && b < entries) {
        const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(payload + at));
        const auto escapes = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, _mm_set1_epi8(-1))));
        if (escapes != 0) {
            // The gaps before the first escape and the escape itself, one at a time.
            const std::uint32_t stop = at + static_cast<std::uint32_t>(std::countr_zero(escapes));
            while (at <= stop) one_gap();
            continue;
        }
        std::uint16_t positions[16];
        gaps_payload::positions_of_16_gaps(chunk, next, positions);
        if (std::uint32_t{positions[15]} >= (b << shift)) {
            // The first of the 16 at or past each bucket start they reach (positions < 2048:
            // signed 16-bit compares are exact).
            const __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(positions));
            const __m128i high = _mm_loadu_si128(reinterpret_cast<const __m128i*>(positions + 8));
            for (; b < entries && (b << shift) <= positions[15]; ++b) {
                const __m128i before = _mm_set1_epi16(static_cast<short>((b << shift) - 1));
                const auto past = static_cast<std::uint32_t>(_mm_movemask_epi8(
                    _mm_packs_epi16(_mm_cmpgt_epi16(low, before), _mm_cmpgt_epi16(high, before))));
                const auto k = static_cast<std::uint32_t>(std::countr_zero(past));
                const std::uint32_t offset = positions[k] - (b << shift);
                *out++ = (at + k) | (rank + k) << 11 | (offset < width ? offset : gaps_index_none) << 22;
            }
        }
        next = std::uint32_t{positions[15]} + 1;
        at += 16;
        rank += 16;
    }
#endif
    while (at < bytes && b < entries) one_gap();
    // Buckets after the last item: no item in or after them.
    for (; b < entries; ++b) *out++ = bytes | rank << 11 | gaps_index_none << 22;
    return out;
}

template <class Visit>
void for_each_gaps_payload(const block_descriptor& d, const std::byte* block, Visit&& visit) noexcept {
    if (d.sparse() && d.mask_payload() == payload_kind::gaps) visit(block + d.mask_at, d.mask_items);
    if (d.stored == 0 || d.all_raw()) return;
    plane_walker walk(d, block);
    for (std::uint32_t i = 0; i < d.stored; ++i) {
        const plane_entry e = walk.next();
        if (e.code.payload_kind() == payload_kind::gaps) visit(block + e.payload_offset, e.items);
    }
}

}  // namespace

std::uint32_t gaps_skip_count(const block_descriptor& d, const std::byte* block) noexcept {
    std::uint32_t count = 0;
    const std::uint32_t least = reader_portable::mapped_least(d);
    for_each_gaps_payload(d, block, [&](const std::byte*, std::uint32_t bytes) { count += skip_entries(bytes, least); });
    return count;
}

void gaps_skips(const block_descriptor& d, const std::byte* block, std::uint32_t* out) noexcept {
    const std::uint32_t least = reader_portable::mapped_least(d);
    for_each_gaps_payload(d, block,
                          [&](const std::byte* payload, std::uint32_t bytes) { out = payload_skips(payload, bytes, least, out); });
}

std::uint32_t read_value(const block_descriptor& d, const std::byte* block, std::uint32_t index,
                         const std::uint32_t* checkpoints, const std::uint32_t* skips) noexcept {
#if defined(BITPLANE_X86)
    // Delta reads count a window of every plane (a popcnt each in the AVX2 copy); the others
    // test one bit per plane and gain nothing worth the dispatch (bam_mapq 997 -> 1013
    // instructions per read when every layout took it).
    if (d.transform() == codec::transform::delta && active_kernels().path >= simd_path::avx2)
        return read_value_avx2(d, block, index, checkpoints, skips);
#endif
    return reader_portable::read_value(d, block, index, checkpoints, skips);
}

}  // namespace bitplane::detail

namespace bitplane::codec {

std::uint32_t decode_value(std::span<const std::byte> bytes, std::size_t count, std::size_t index) {
    using namespace bitplane::detail;
    // The block was validated (the contract): its descriptor is read without checks.
    const block_descriptor d = read_descriptor(bytes.data(), static_cast<std::uint32_t>(count),
                                               static_cast<std::uint32_t>(bytes.size()));
    return descriptor_value(d, bytes.data(), static_cast<std::uint32_t>(index));
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
