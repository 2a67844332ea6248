// equal_candidates.hpp says what this answers and why.
#include "ops/equal_candidates.hpp"
#include "ops/listed_marks.hpp"

#include "codec/byte_io.hpp"
#include "codec/direct_access.hpp"
#include "codec/thresholds.hpp"
#include "simd/kernels.hpp"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bitplane::detail {

namespace {

constexpr std::uint32_t max_candidates = thresholds::equal_candidates_max;

// Positions that may still equal the target: ascending, distinct, below the block's length.
struct candidates {
    std::uint32_t n = 0;
    std::uint16_t at[max_candidates];

    // Keeps those for which pass(position) holds, in order (pass is asked in ascending
    // order, so that a list is merged with the candidates in one walk). Whether any is left.
    template <class Pass>
    bool keep_if(Pass&& pass) noexcept {
        std::uint32_t m = 0;
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint16_t p = at[i];
            at[m] = p;
            m += pass(std::uint32_t{p}) ? 1u : 0u;
        }
        n = m;
        return n != 0;
    }
    // Appends p where it ascends and falls inside the block (a valid list's positions do; a
    // forged one's others are dropped, so that every read below stays inside its plane).
    void add(std::uint32_t p, std::uint32_t length) noexcept {
        if (p >= length || (n != 0 && p <= at[n - 1])) return;
        at[n++] = static_cast<std::uint16_t>(p);
    }
};

// The first k in [from, items) with position_at(k) >= p (items where none): a binary search
// whose step is a conditional move, not a branch.
template <class PositionAt>
std::uint32_t lower_bound_from(std::uint32_t from, std::uint32_t items, std::uint32_t p,
                               PositionAt& position_at) noexcept {
    std::uint32_t base = from, len = items - from;
    while (len > 1) {
        const std::uint32_t half = len / 2;
        base = position_at(base + half - 1) < p ? base + half : base;
        len -= half;
    }
    return len == 1 && position_at(base) < p ? base + 1 : base;
}

// Membership in an ascending list of `items` positions, position_at(k) the k-th: candidates
// kept where it equals `keep`. Few candidates against a long list search it (bam_mapq's rare
// value: a few dozen candidates left after its lists that keep, against lists of 100-250);
// more walk it alongside them.
template <class PositionAt>
bool keep_listed(candidates& c, std::uint32_t items, bool keep, PositionAt&& position_at) noexcept {
    std::uint32_t i = 0;
    if (c.n * thresholds::equal_candidates_search_ratio < items) {
        return c.keep_if([&](std::uint32_t p) {
            i = lower_bound_from(i, items, p, position_at);
            return (i < items && position_at(i) == p) == keep;
        });
    }
    return c.keep_if([&](std::uint32_t p) {
        while (i < items && position_at(i) < p) ++i;
        return (i < items && position_at(i) == p) == keep;
    });
}

// Bits [begin, end) of words cleared (begin < end <= block_values).
void clear_range(std::uint32_t* words, std::uint32_t begin, std::uint32_t end) noexcept {
    const std::uint32_t first = begin >> 5, last = (end - 1) >> 5;
    const std::uint32_t head = ~0u << (begin & 31u), tail = ~0u >> (31u - ((end - 1) & 31u));
    if (first == last) {
        words[first] &= ~(head & tail);
        return;
    }
    words[first] &= ~head;
    for (std::uint32_t w = first + 1; w < last; ++w) words[w] = 0;
    words[last] &= ~tail;
}

// narrow_planes' inputs from a read plan's raw and mapped entries (g.raw + g.mapped of them):
// each plane's words (a raw payload, or a gap list's map in the side entries) and its flip
// (0 where `keeps` has the plane's bit, all ones where it has not). Shared by clear_lists and
// equal_by_candidates' narrowing of many candidates.
void narrow_inputs(const plan_groups& g, const std::byte* bytes, const std::uint32_t* skips, std::uint32_t keeps,
                   const std::uint8_t** planes, std::uint32_t* flips) noexcept {
    for (std::uint32_t i = 0; i < g.raw + g.mapped; ++i) {
        const std::uint32_t e = g.entries[i];
        planes[i] = i < g.raw ? reinterpret_cast<const std::uint8_t*>(bytes + plan_low(e))
                              : reinterpret_cast<const std::uint8_t*>(skips + plan_low(e));
        flips[i] = ((keeps >> plan_index(e)) & 1u) != 0 ? 0u : ~0u;
    }
}

// An equality where every list plane clears its positions (the residual differs from the
// target wherever such a plane lists one; bam_mapq's and geoip4_size's frequent values): eq
// from the raw planes and maps in one pass of the narrow_planes kernel (all ones without
// them), then each listed position cleared in it, a word at a time; count or `out` from eq.
// False where the path has no narrow_planes kernel or the block is short (the caller's way).
bool clear_lists(const plan_groups& g, const std::byte* bytes, const std::uint32_t* skips, std::uint32_t keeps,
                 std::uint32_t length, std::uint8_t* marks, std::uint32_t* out, std::uint32_t& count) noexcept {
    const kernel_table& k = active_kernels();
    if (length != block_values || k.narrow_planes == nullptr) return false;
    alignas(64) std::uint32_t words[plane_words];
    std::uint32_t* const eq = out != nullptr ? out : words;
    const std::uint32_t lists = g.listed + g.positions + g.runs;
    const std::uint32_t raw = g.raw + g.mapped;
    if (raw != 0) {
        const std::uint8_t* planes[plane_count];
        std::uint32_t flips[plane_count];
        narrow_inputs(g, bytes, skips, keeps, planes, flips);
        if (lists == 0 && out == nullptr && k.narrow_planes_count != nullptr) {
            count = k.narrow_planes_count(eq, planes, flips, raw, true);
            return true;
        }
        if (!k.narrow_planes(eq, planes, flips, raw, true)) {
            count = 0;
            return true;
        }
    } else {
        std::fill_n(eq, plane_words, ~0u);
    }
    const std::uint32_t* const listed_entries = g.entries + raw;
    const std::uint32_t* const pair_entries = listed_entries + g.listed;
    // Many positions: a byte each in `marks` (a store, none waiting on another), packed once
    // into eq with its count; few: each cleared in its word of eq.
    std::uint32_t items = 0;
    for (std::uint32_t i = 0; i < g.listed; ++i) items += listed_entries[i] >> 24;
    for (std::uint32_t i = 0; i < g.positions + g.runs; ++i) items += pair_entries[2 * i + 1];
    const bool marked = items > thresholds::equal_clear_marked_items && k.pack_marks_count != nullptr;
    if (marked) std::memset(marks, 0, block_values);
    constexpr std::uint8_t mark = 0x80;  // the byte's top bit: what pack_marks packs
    constexpr std::uint32_t last_bit = block_values - 1;
    const auto clear = [eq](std::uint32_t p) { eq[p >> 5] &= ~(1u << (p & 31u)); };
    for (std::uint32_t i = 0; i < g.listed; ++i) {
        const std::uint32_t e = listed_entries[i];
        const auto* positions = reinterpret_cast<const std::uint16_t*>(skips + plan_low(e));
        if (marked) {
            mark_listed(positions, e >> 24, marks, mark);
        } else {
            for (std::uint32_t j = 0, n = e >> 24; j < n && positions[j] < block_values; ++j) clear(positions[j]);
        }
    }
    for (std::uint32_t i = 0; i < g.positions; ++i) {
        const std::byte* at = bytes + plan_low(pair_entries[2 * i]);
        for (std::uint32_t j = 0, n = pair_entries[2 * i + 1]; j < n; ++j) {
            const std::uint32_t p = load_le<std::uint16_t>(at + 2 * j) & last_bit;
            if (marked) {
                marks[p] = mark;
            } else {
                clear(p);
            }
        }
    }
    for (std::uint32_t i = g.positions; i < g.positions + g.runs; ++i) {
        const std::byte* at = bytes + plan_low(pair_entries[2 * i]);
        for (std::uint32_t j = 0, n = pair_entries[2 * i + 1]; j < n; ++j) {
            const std::uint32_t begin = std::min<std::uint32_t>(load_le<std::uint16_t>(at + 4 * j), block_values);
            const std::uint32_t end = std::min<std::uint32_t>(load_le<std::uint16_t>(at + 4 * j + 2), block_values);
            if (begin >= end) continue;
            if (marked) {
                std::memset(marks + begin, mark, end - begin);
            } else {
                clear_range(eq, begin, end);
            }
        }
    }
    if (marked) {
        count = k.pack_marks_count(marks, eq, plane_words, ~0u, false);
        return true;
    }
    // A find's plane is counted where it is stored (bitset_builder::set_block), not here too
    // (bam_flag find_eq frequent: ~60 instructions a block, callgrind AVX2).
    count = out != nullptr ? equal_not_counted : static_cast<std::uint32_t>(k.popcount_words(eq, plane_words));
    return true;
}

}  // namespace

bool equal_by_candidates(const block_descriptor& d, const std::byte* bytes, const std::uint32_t* plan,
                         const std::uint32_t* skips, std::uint32_t target, std::uint8_t* marks,
                         std::uint32_t* out, std::uint32_t& count) noexcept {
    if (plan == nullptr || d.sparse() || d.all_raw() || d.transform() == codec::transform::delta) return false;
    const plan_groups g = groups_of(plan);
    if (skips == nullptr && g.mapped + g.listed != 0) return false;
    const std::uint32_t length = d.length;

    // Each plane's base as a constant: a plane stored against plane r has, where r equals the
    // target, the target's bit of r there (XOR its complement flag) for its base.
    std::uint32_t one_base = plan[0];
    const std::uint32_t* const listed_entries = g.entries + g.raw + g.mapped;
    const std::uint32_t* const pair_entries = listed_entries + g.listed;  // positions, then runs: two words each
    const std::uint32_t* const reference_entries = pair_entries + 2 * (g.positions + g.runs);
    for (std::uint32_t i = 0; i < g.references; ++i) {
        const std::uint32_t j = reference_entries[i] & 31u, r = (reference_entries[i] >> 8) & 31u;
        if (r == j) return false;
        one_base ^= ((target >> r) & 1u) << j;
    }
    // Planes whose bits must be 1 (their payload's) where the residual equals the target.
    const std::uint32_t keeps = (target ^ one_base) & d.live;

    // The shortest list that keeps its positions (positions lists and gap lists kept as
    // positions; a run list may cover a whole block) is the candidates' source.
    std::uint32_t list_planes = 0;
    const std::uint32_t* source = nullptr;
    bool source_listed = false;
    std::uint32_t shortest = max_candidates + 1;
    for (std::uint32_t i = 0; i < g.listed; ++i) {
        const std::uint32_t e = listed_entries[i], j = plan_index(e);
        list_planes |= 1u << j;
        if (((keeps >> j) & 1u) != 0 && (e >> 24) < shortest) {
            source = listed_entries + i;
            source_listed = true;
            shortest = e >> 24;
        }
    }
    for (std::uint32_t i = 0; i < g.positions + g.runs; ++i) {
        const std::uint32_t e = pair_entries[2 * i], j = plan_index(e);
        list_planes |= 1u << j;
        if (i < g.positions && ((keeps >> j) & 1u) != 0 && pair_entries[2 * i + 1] < shortest) {
            source = pair_entries + 2 * i;
            source_listed = false;
            shortest = pair_entries[2 * i + 1];
        }
    }
    // A live plane with no payload is its base: where that differs from the target's bit,
    // no residual equals the target. A block's plan has an entry for each live plane but
    // those (a vector's blocks are validated: one descriptor a live plane), so the raw
    // entries' planes are gathered only where it has fewer entries than live planes (a loop
    // over them cost bam_tlen's ~9 raw planes ~60 instructions a block, count_eq frequent).
    if (g.raw + g.mapped + g.listed + g.positions + g.runs != d.stored) {
        std::uint32_t stored = list_planes;
        for (const std::uint32_t* e = g.entries; e != listed_entries; ++e) stored |= 1u << plan_index(*e);
        if ((keeps & d.live & ~stored) != 0) {
            count = 0;
            if (out != nullptr) std::fill_n(out, plane_words, 0u);
            return true;
        }
    }
    if (source == nullptr) {
        // Lists that keep only their positions, all too long to be candidates: the word-wise way.
        if ((keeps & list_planes) != 0) return false;
        return clear_lists(g, bytes, skips, keeps, length, marks, out, count);
    }

    candidates c;
    if (source_listed) {
        const auto* positions = reinterpret_cast<const std::uint16_t*>(skips + plan_low(*source));
        for (std::uint32_t i = 0; i < shortest && positions[i] < length; ++i) c.add(positions[i], length);  // pads end it
    } else {
        const std::byte* at = bytes + plan_low(*source);
        for (std::uint32_t i = 0; i < shortest; ++i) c.add(load_le<std::uint16_t>(at + 2 * i), length);
    }

    // Every other stored plane while candidates are left: raw planes and maps first (a read a
    // candidate), then the lists that keep (they leave the fewest), then those that clear; a
    // list met by few candidates is searched rather than walked. count_eq instructions a call
    // (callgrind, AVX2), lists that keep first / raw planes and maps first: bam_mapq rare (a
    // map, lists of 100-250) 925K / 706K; geoip4_size rare (three raw planes, short lists)
    // 195K / 231K.
    bool any = c.n != 0;
    bool narrowed = false;
    // Many candidates against raw planes and maps: those planes narrowed in one pass of the
    // narrow_planes kernel (a load, XOR and AND a register a plane), then each candidate read
    // once in the result, where reading every plane at each candidate costs ~7 instructions a
    // candidate and plane (thresholds::equal_candidates_narrow_min_reads: the estimate).
    const std::uint32_t raw_planes_count = g.raw + g.mapped;
    if (any && raw_planes_count != 0 && length == block_values &&
        c.n * (std::min(g.raw, 2u) + g.mapped) >=
            thresholds::equal_candidates_narrow_min_reads +
                thresholds::equal_candidates_narrow_plane_reads * raw_planes_count) {
        const kernel_table& k = active_kernels();
        if (k.narrow_planes != nullptr) {
            alignas(64) std::uint32_t eq[plane_words];
            const std::uint8_t* planes[plane_count];
            std::uint32_t flips[plane_count];
            narrow_inputs(g, bytes, skips, keeps, planes, flips);
            any = k.narrow_planes(eq, planes, flips, raw_planes_count, true) &&
                  c.keep_if([&eq](std::uint32_t p) { return ((eq[p >> 5] >> (p & 31u)) & 1u) != 0; });
            if (!any) c.n = 0;
            narrowed = true;
        }
    }
    for (std::uint32_t i = 0; !narrowed && any && i < g.raw; ++i) {  // (length + 7) / 8 bytes: candidates are below length
        const std::uint32_t e = g.entries[i];
        const std::byte* at = bytes + plan_low(e);
        const std::uint32_t keep = (keeps >> plan_index(e)) & 1u;
        any = c.keep_if([at, keep](std::uint32_t p) {
            return ((static_cast<std::uint32_t>(at[p >> 3]) >> (p & 7u)) & 1u) == keep;
        });
    }
    for (std::uint32_t i = 0; !narrowed && any && i < g.mapped; ++i) {  // a whole block's 64 words
        const std::uint32_t e = g.entries[g.raw + i];
        const std::uint32_t* map = skips + plan_low(e);
        const std::uint32_t keep = (keeps >> plan_index(e)) & 1u;
        any = c.keep_if([map, keep](std::uint32_t p) { return ((map[p >> 5] >> (p & 31u)) & 1u) == keep; });
    }
    for (const std::uint32_t keep_round : {1u, 0u}) {
        for (std::uint32_t i = 0; any && i < g.listed; ++i) {
            const std::uint32_t e = listed_entries[i];
            if (listed_entries + i == source || ((keeps >> plan_index(e)) & 1u) != keep_round) continue;
            const auto* positions = reinterpret_cast<const std::uint16_t*>(skips + plan_low(e));
            any = keep_listed(c, e >> 24, keep_round != 0,
                              [positions](std::uint32_t k) { return std::uint32_t{positions[k]}; });
        }
        for (std::uint32_t i = 0; any && i < g.positions; ++i) {
            const std::uint32_t* e = pair_entries + 2 * i;
            if (e == source || ((keeps >> plan_index(e[0])) & 1u) != keep_round) continue;
            const std::byte* at = bytes + plan_low(e[0]);
            any = keep_listed(c, e[1], keep_round != 0,
                              [at](std::uint32_t k) { return std::uint32_t{load_le<std::uint16_t>(at + 2 * k)}; });
        }
        for (std::uint32_t i = g.positions; any && i < g.positions + g.runs; ++i) {
            const std::uint32_t* e = pair_entries + 2 * i;
            if (((keeps >> plan_index(e[0])) & 1u) != keep_round) continue;
            const std::byte* at = bytes + plan_low(e[0]);
            const std::uint32_t items = e[1];
            std::uint32_t k = 0;  // the first run not ending at or before the candidate: [begin, end)
            any = c.keep_if([&](std::uint32_t p) {
                while (k < items && load_le<std::uint16_t>(at + 4 * k + 2) <= p) ++k;
                return (k < items && load_le<std::uint16_t>(at + 4 * k) <= p) == (keep_round != 0);
            });
        }
    }

    count = c.n;
    if (out != nullptr) {
        std::fill_n(out, plane_words, 0u);
        for (std::uint32_t i = 0; i < c.n; ++i) out[c.at[i] >> 5] |= 1u << (c.at[i] & 31u);
    }
    return true;
}

}  // namespace bitplane::detail
