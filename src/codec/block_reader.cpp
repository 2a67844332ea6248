// Reading single values and describing blocks without decoding whole blocks: the side tables
// a vector keeps for random reads (delta checkpoints, gap-list skip entries), and read_value,
// which runs the portable or the AVX2 copy of value_reader.hpp.
#define BITPLANE_READER_NS reader_portable
#include "block_plan.hpp"
#include "value_reader.hpp"

#include <bitplane/simd.hpp>

#include <algorithm>
#include <bit>
#include <cstring>

namespace bitplane::detail {

#if defined(BITPLANE_X86)
// block_reader_avx2.cpp: value_reader.hpp's read_value compiled for AVX2 CPUs.
std::uint32_t read_value_avx2(const block_descriptor& d, const std::byte* block, std::uint32_t index,
                              const std::uint32_t* checkpoints, const std::uint32_t* skips, const std::uint32_t* plan) noexcept;
#endif

using codec::payload_kind;
using reader_portable::skip_entries;
using reader_portable::window_sum;

void delta_checkpoints(const block_descriptor& d, const std::byte* block, std::uint32_t* out) noexcept {
    static_assert(delta_checkpoint_stride == 32 && plane_words == delta_checkpoint_count);  // a column a checkpoint
    if (!d.sparse()) {
        // Dense blocks: the stored planes rebuilt once (the decoder's rebuild; the bytes are the
        // library's own or validated) and counted a column at a time. A window walk for each of
        // the 64 checkpoints walked every plane's payload 64 times: callgrind, the vector of
        // bam_pos built (vector_core::append), 61.2M instructions with 32 checkpoints a block
        // walked, 92.9M with 64 walked, 53.3M with 64 counted from the rebuilt planes. (Dense
        // delta blocks have no all-one plane, their smallest residual being 0; the loop keeps
        // window_sum's sum for any block.)
        plane planes[plane_count];
        plane mask;
        rebuild_planes(expand_descriptor(d, block, d.length), {block, d.end}, 0, planes, mask);
        std::uint32_t sum = 0;
        for (std::uint32_t k = 0; k < delta_checkpoint_count; ++k) {
            const std::uint32_t from = k * delta_checkpoint_stride;
            if (from < d.length) {
                const std::uint32_t n = std::min<std::uint32_t>(delta_checkpoint_stride, d.length - from);
                const std::uint32_t keep = n == 32 ? ~0u : (1u << n) - 1;
                for (std::uint32_t ones = d.ones; ones; ones &= ones - 1) sum += n << std::countr_zero(ones);
                for (std::uint32_t live = d.live; live; live &= live - 1)
                    sum += reader_portable::ones_in(planes[std::countr_zero(live)][k] & keep) << std::countr_zero(live);
            }
            out[k] = sum;
        }
        return;
    }
    std::uint32_t sum = 0;
    for (std::uint32_t k = 0; k < delta_checkpoint_count; ++k) {
        const std::uint32_t from = k * delta_checkpoint_stride;
        sum += window_sum(d, block, std::min<std::uint32_t>(from, d.length),
                          std::min<std::uint32_t>(from + delta_checkpoint_stride, d.length), nullptr, nullptr);
        out[k] = sum;
    }
}

namespace {

// payload_skips' buffer of decoded positions holds any list below either map bound.
static_assert(thresholds::read_bitmap_min_delta_gaps_bytes <= thresholds::read_bitmap_min_gaps_bytes);
// The planner's estimate of the side entries (block_plan.hpp, planes_memory_bytes) is these.
static_assert(side_map_bytes == 4 * BITPLANE_READER_NS::gaps_bitmap_words);
static_assert(side_listed_bytes(1) == 2 * listed_positions(1) && side_listed_bytes(63) == 2 * listed_positions(63) &&
              side_listed_bytes(32) == 2 * listed_positions(32));
static_assert(side_plan_fixed_words == read_plan_header_words + 1);

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

// Appends the side entries of one gaps payload at `out` (skip_entries in value_reader.hpp: a
// map for long lists, the decoded positions of the others); returns the end. Every appended
// block with a gap list (a sparse block's mask, gap-list planes) pays this, 16 gaps at a time
// (gaps_payload::for_every_position).
std::uint32_t* payload_skips(const std::byte* payload, std::uint32_t bytes, std::uint32_t least,
                             std::uint32_t* out) noexcept {
    if (reader_portable::gaps_bitmapped(bytes, least)) return payload_bitmap(payload, bytes, out);
    const std::uint32_t n = listed_positions(bytes);
    std::uint16_t listed[thresholds::read_bitmap_min_gaps_bytes + 16];
    std::uint32_t k = 0;
    gaps_payload::for_every_position(payload, bytes, [&](std::uint32_t p) {
        if (k < n) listed[k++] = static_cast<std::uint16_t>(p);
    });
    std::fill(listed + k, listed + n, gaps_listed_pad);
    std::memcpy(out, listed, 2 * n);
    return out + n / 2;
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

namespace {

constexpr std::uint32_t filter_most = read_filter_max_chunks * listed_positions_step;
constexpr std::uint32_t filter_chunks_of(std::uint32_t positions) noexcept {
    return (positions + listed_positions_step - 1) / listed_positions_step;
}

// A read plan's filter (direct_access.hpp): the distinct positions, ascending, of the lists of
// the plan's listed group (gap lists below the map's bound) and positions group, in
// out[0..returned). 0 where the block gets none: a delta block (its reads count windows, not
// bits), no such list, more than filter_most positions, or more than one stored position in
// thresholds::read_filter_min_share.
std::uint32_t filter_positions(const block_descriptor& d, const std::byte* block, std::uint16_t* out) noexcept {
    if (d.transform() == codec::transform::delta || d.stored == 0 || d.all_raw()) return 0;
    const std::uint32_t least = reader_portable::mapped_least(d);
    // Positions marked in a 2048-bit map, read back ascending and distinct: a plan's filter is
    // built on every append of a block (twice: read_side_words, read_side), where sorting the
    // lists' items cost bam_mapq ~14K instructions a block (callgrind).
    std::uint64_t marked[block_values / 64] = {};
    std::uint32_t items = 0;
    plane_walker walk(d, block);
    for (std::uint32_t i = 0; i < d.stored; ++i) {
        const plane_entry e = walk.next();
        const payload_kind kind = e.code.payload_kind();
        const bool listed = kind == payload_kind::gaps && !reader_portable::gaps_bitmapped(e.items, least);
        if (kind != payload_kind::positions && !listed) continue;
        // At most e.items positions either way (a gap list has at most one a byte).
        items += e.items;
        if (items > thresholds::read_filter_max_items) return 0;
        const std::byte* payload = block + e.payload_offset;
        const auto mark = [&](std::uint32_t p) {
            if (p < d.length) marked[p / 64] |= std::uint64_t{1} << (p % 64);
        };
        if (kind == payload_kind::positions) {
            for (std::uint32_t k = 0; k < e.items; ++k) mark(load_le<std::uint16_t>(payload + 2 * k));
        } else {
            gaps_payload::for_every_position(payload, e.items, mark);
        }
    }
    std::uint32_t n = 0;
    for (const std::uint64_t w : marked) n += reader_portable::ones_in64(w);
    if (n == 0 || n > filter_most || n * thresholds::read_filter_min_share > d.length) return 0;
    n = 0;
    for (std::uint32_t k = 0; k < block_values / 64; ++k)
        for (std::uint64_t w = marked[k]; w != 0; w &= w - 1)
            out[n++] = static_cast<std::uint16_t>(64 * k + static_cast<std::uint32_t>(std::countr_zero(w)));
    return n;
}

// A block's filter as its plan's builder found it (filter_positions).
struct plan_filter {
    std::uint16_t positions[filter_most];
    std::uint32_t count = 0;
};

// read_plan_words, with the plan's filter in `filter` (built once for the size and the plan).
std::uint32_t plan_words(const block_descriptor& d, const std::byte* block, plan_filter& filter) noexcept {
    if (d.stored == 0 || d.all_raw()) return 0;
    std::uint32_t words = read_plan_header_words;
    std::uint32_t lists = 0;
    plane_walker walk(d, block);
    for (std::uint32_t i = 0; i < d.stored; ++i) {
        const plane_entry e = walk.next();
        const payload_kind kind = e.code.payload_kind();
        words += kind == payload_kind::none ? 0 : kind == payload_kind::raw || kind == payload_kind::gaps ? 1 : 2;
        words += e.code.base >> 1;  // a reference
        lists += counted(kind) ? 1 : 0;
    }
    const bool delta = d.transform() == codec::transform::delta;
    if (lists < (delta ? thresholds::read_plan_min_delta_lists : thresholds::read_plan_min_lists)) return 0;
    filter.count = filter_positions(d, block, filter.positions);
    return words + (filter.count == 0 ? 0 : 1 + filter_chunks_of(filter.count) * listed_positions_step / 2);
}

// read_plan for a block that gets one (plan_words != 0), with plan_words' filter.
void write_read_plan(const block_descriptor& d, const std::byte* block, const plan_filter& filter,
                     std::uint32_t* out) noexcept {
    const std::uint32_t least = reader_portable::mapped_least(d);
    // Entries are counted from the planes' first (a read moves past the mask's before the planes).
    std::uint32_t entry = 0;
    // Raw entries go straight to their place (the first group); the others are gathered and
    // copied behind them word by word (copy_n's memmove calls cost a scan's plan ~30
    // instructions a block: unfiltered_read_plan).
    std::uint32_t* const raw = out + read_plan_header_words;
    std::uint32_t mapped[plane_count], listed[plane_count], positions[2 * plane_count], runs[2 * plane_count];
    std::uint32_t references[plane_count];
    std::uint32_t n_raw = 0, n_mapped = 0, n_listed = 0, n_positions = 0, n_runs = 0, n_references = 0, complemented = 0;
    plane_walker walk(d, block);
    for (std::uint32_t i = 0; i < d.stored; ++i) {
        const plane_entry e = walk.next();
        const std::uint32_t index = e.code.index;
        if (e.code.base & 1u) complemented |= 1u << index;
        if (e.code.base >> 1) references[n_references++] = index | std::uint32_t{e.code.reference} << 8;
        switch (e.code.payload_kind()) {
            case payload_kind::none: break;  // its bit is its base's
            case payload_kind::raw: raw[n_raw++] = e.payload_offset | index << 16; break;
            case payload_kind::gaps:
                if (reader_portable::gaps_bitmapped(e.items, least)) {
                    mapped[n_mapped++] = entry | index << 16;
                } else {
                    listed[n_listed++] = entry | index << 16 | listed_positions(e.items) << 24;
                }
                entry += skip_entries(e.items, least);
                break;
            case payload_kind::positions:
                positions[2 * n_positions] = e.payload_offset | index << 16;
                positions[2 * n_positions++ + 1] = e.items;
                break;
            case payload_kind::runs:
                runs[2 * n_runs] = e.payload_offset | index << 16;
                runs[2 * n_runs++ + 1] = e.items;
                break;
        }
    }
    const std::uint32_t filtered = filter.count;
    const std::uint32_t chunks = filter_chunks_of(filtered);
    // Outside the filter a plan without raw, mapped or run entries has no payload bit: every
    // such position's residual is its bases'.
    const bool only_lists = n_raw == 0 && n_mapped == 0 && n_runs == 0;
    out[0] = complemented;
    out[1] = n_raw | n_mapped << 8 | n_listed << 16 | n_positions << 24;
    out[2] = n_references | n_runs << 8 | chunks << 16 | (filtered != 0 && only_lists ? read_filter_default_flag : 0u);
    out += read_plan_header_words + n_raw;
    const auto append = [&out](const std::uint32_t* from, std::uint32_t n) {
        for (std::uint32_t i = 0; i < n; ++i) *out++ = from[i];
    };
    append(mapped, n_mapped);
    append(listed, n_listed);
    append(positions, 2 * n_positions);
    append(runs, 2 * n_runs);
    append(references, n_references);
    if (filtered == 0) return;
    out[0] = only_lists ? reader_portable::resolve_references(complemented | d.ones, references, n_references) : 0u;
    std::uint16_t slots[filter_most];
    std::fill(std::copy_n(filter.positions, filtered, slots), slots + chunks * listed_positions_step, gaps_listed_pad);
    std::memcpy(out + 1, slots, 2 * chunks * listed_positions_step);  // u16 pairs in words (listed_of)
}

}  // namespace

std::uint32_t read_plan_words(const block_descriptor& d, const std::byte* block) noexcept {
    plan_filter filter;
    return plan_words(d, block, filter);
}

void read_plan(const block_descriptor& d, const std::byte* block, std::uint32_t* out) noexcept {
    plan_filter filter;
    if (plan_words(d, block, filter) != 0) write_read_plan(d, block, filter, out);
}

bool unfiltered_read_plan(const block_descriptor& d, const std::byte* block, std::uint32_t* out) noexcept {
    if (d.stored == 0 || d.all_raw()) return false;
    plan_filter none;  // count 0: write_read_plan reads no position
    write_read_plan(d, block, none, out);
    return true;
}

std::uint32_t read_side_words(const block_descriptor& d, const std::byte* block) noexcept {
    const std::uint32_t plan = read_plan_words(d, block);
    const std::uint32_t gaps = gaps_skip_count(d, block);
    return plan == 0 && gaps == 0 ? 0 : 1 + plan + gaps;
}

void read_side(const block_descriptor& d, const std::byte* block, std::uint32_t* out) noexcept {
    plan_filter filter;
    const std::uint32_t plan = plan_words(d, block, filter);
    const std::uint32_t gaps = gaps_skip_count(d, block);
    if (plan == 0 && gaps == 0) return;  // no side (read_side_words is 0)
    out[0] = plan | (gaps != 0 ? read_side_gaps_flag : 0u);
    if (plan != 0) write_read_plan(d, block, filter, out + 1);  // plan known: no third walk of the planes
    if (gaps != 0) gaps_skips(d, block, out + 1 + plan);
}

gaps_side::gaps_side(const block_descriptor& d, const std::uint32_t* skips) noexcept
    : entries_(skips), least_(reader_portable::mapped_least(d)) {}

// next's walk without the positions (the decoder and the staged scan read maps only): a call
// through next cost ucd_script count_eq 3% more instructions (callgrind).
const std::uint32_t* gaps_side::next_map(payload_kind kind, std::uint32_t bytes) noexcept {
    if (entries_ == nullptr || kind != payload_kind::gaps) return nullptr;
    const std::uint32_t* at = entries_;
    entries_ += skip_entries(bytes, least_);
    return reader_portable::gaps_bitmapped(bytes, least_) ? at : nullptr;
}

gaps_side::entry gaps_side::next(payload_kind kind, std::uint32_t bytes) noexcept {
    if (entries_ == nullptr || kind != payload_kind::gaps) return {};
    const std::uint32_t* at = entries_;
    entries_ += skip_entries(bytes, least_);
    if (reader_portable::gaps_bitmapped(bytes, least_)) return {at, nullptr};
    return {nullptr, reader_portable::listed_of(at), listed_positions(bytes)};
}

namespace {

// Out of line so that read_value keeps no frame: with the portable copy inlined there, the AVX2
// reads paid its six register saves and restores and a call instead of a jump (35 instructions
// a read in read_value itself, callgrind bam_pos).
[[gnu::noinline]] std::uint32_t read_value_portable(const block_descriptor& d, const std::byte* block,
                                                    std::uint32_t index, const std::uint32_t* checkpoints,
                                                    const std::uint32_t* skips, const std::uint32_t* plan) noexcept {
    return reader_portable::read_value(d, block, index, checkpoints, skips, plan);
}

}  // namespace

std::uint32_t read_value(const block_descriptor& d, const std::byte* block, std::uint32_t index,
                         const std::uint32_t* checkpoints, const std::uint32_t* skips, const std::uint32_t* plan) noexcept {
#if defined(BITPLANE_X86)
    // Delta reads count a window of every plane (a popcnt each in the AVX2 copy, short lists'
    // windows by variable shifts, the sum 4 planes a step); reads by a plan compare short
    // lists' decoded positions 16 at a time, run lists 8 runs a load and raw planes 8 a
    // gather. Other blocks (no stored plane, fewer than 3 lists) stay with the portable copy:
    // the AVX2 copy's larger frame cost them about 40 instructions a read (ucd_bidi 113 ->
    // 156, bed_chrom 116 -> 164, callgrind).
    if ((d.transform() == codec::transform::delta || plan != nullptr) && active_kernels().path >= simd_path::avx2)
        return read_value_avx2(d, block, index, checkpoints, skips, plan);
#endif
    return read_value_portable(d, block, index, checkpoints, skips, plan);
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
