// One stored block of a bitset: its 16-byte entry, the choice of its encoding, writing its
// payload from a plane or from sorted positions, and reading it back (positions, plane,
// contains, rank, select, next set bit). The payload encodings themselves are the codec's
// (src/codec/plane_*.hpp); a bitset block is one plane of `len` bits, `len` = 2048 except in
// the last block.
//
// Payloads handed to the readers here come from the bitset itself (written by these writers
// or validated by the loader), so the readers do not check them again.
#pragma once

#include "bitset/bitset_kernels.hpp"
#include "bitset/bitset_words.hpp"
#include "codec/byte_io.hpp"
#include "codec/plane_bits.hpp"
#include "codec/plane_gaps.hpp"
#include "codec/plane_positions.hpp"
#include "codec/plane_raw.hpp"
#include "codec/plane_runs.hpp"
#include "codec/thresholds.hpp"

#include <bitplane/block.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>  // SSE2 is part of x86-64: no dispatch needed (as direct_access.hpp)
#endif

namespace bitplane::detail {

/// Payload kinds of stored blocks, numbered as the codec's payload kinds (docs/format.md).
enum class block_kind : std::uint8_t { positions = 1, runs = 2, raw = 3, gaps = 4 };

/// A stored block (neither empty nor full). Payloads of at most
/// thresholds::bitset_inline_payload_bytes bytes are kept in `offset`'s own bytes.
struct block_entry {
    std::uint64_t offset = 0;  // byte offset in the payload arena, or the inline payload
    std::uint16_t count = 0;   // set bits, 1 .. len - 1
    std::uint16_t items = 0;   // positions: positions; runs: runs; gaps: payload bytes; raw: 0
    block_kind kind = block_kind::raw;
    std::uint8_t inline_payload = 0;  // 1: the payload is in `offset` (is_inline(payload size))
    std::uint8_t reserved[2] = {};
};
static_assert(sizeof(block_entry) == 16);

/// Bits of block b (0-based) in a universe of `size` bits.
constexpr std::uint32_t block_length(std::uint64_t size, std::uint64_t block) noexcept {
    const std::uint64_t begin = block * block_values;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(block_values, size - begin));
}

constexpr std::uint32_t payload_size(block_kind kind, std::uint32_t items, std::uint32_t len) noexcept {
    switch (kind) {
        case block_kind::positions: return 2 * items;
        case block_kind::runs: return 4 * items;
        case block_kind::gaps: return items;
        case block_kind::raw: return raw_plane_bytes(len);
    }
    return 0;
}

inline std::uint32_t payload_size(const block_entry& e, std::uint32_t len) noexcept {
    return payload_size(e.kind, e.items, len);
}

constexpr bool is_inline(std::uint32_t bytes) noexcept { return bytes <= thresholds::bitset_inline_payload_bytes; }

/// The payload of `e`: inside the entry, or in `arena`.
inline const std::byte* payload_of(const block_entry& e, const std::byte* arena) noexcept {
    return e.inline_payload ? reinterpret_cast<const std::byte*>(&e.offset) : arena + e.offset;
}

// ---- choosing an encoding -------------------------------------------------------------------

struct bitset_block_plan {
    block_kind kind = block_kind::raw;
    std::uint16_t items = 0;
    std::uint32_t bytes = 0;
};

/// The in-memory encoding of a stored block with `count` set bits and `runs` runs, chosen by
/// what operations cost (thresholds.hpp): raw (a 256-byte bitmap) unless positions (below
/// bitset_positions_max_count set bits) or runs are smaller (ties: raw, positions, runs). Gaps
/// are never chosen in memory (every operation would decode them first); files may use them.
constexpr bitset_block_plan choose_plan(std::uint32_t count, std::uint32_t runs, std::uint32_t len) noexcept {
    bitset_block_plan best{block_kind::raw, 0, raw_plane_bytes(len)};
    if (count < thresholds::bitset_positions_max_count && 2 * count < best.bytes)
        best = {block_kind::positions, static_cast<std::uint16_t>(count), 2 * count};
    if (4 * runs < best.bytes) best = {block_kind::runs, static_cast<std::uint16_t>(runs), 4 * runs};
    return best;
}

/// Runs of a block from its stats (bit 2047 closes a run that reaches the end).
inline std::uint32_t runs_of(const block_stats& s, const plane& p) noexcept {
    return runs_from_transitions(s.transitions, (p[plane_words - 1] >> 31) != 0);
}

/// Whether a full-length block of these stats is stored raw, as choose_plan() decides: from its
/// count and transitions alone where the stretch kernels' stats settle it (bitset_kernels.hpp),
/// from its runs otherwise. `top`: bit 2047 set. One test for the bitset's raw stretches
/// (bitset_core.hpp) and the scan builder's counting copies (bitset_builder.cpp).
inline bool full_block_stays_raw(const block_stats& s, bool top) noexcept {
    return s.count >= stretch_raw_min && s.count != block_values &&
           (s.transitions >= stretch_runs_never ||
            choose_plan(s.count, runs_from_transitions(s.transitions, top), block_values).kind == block_kind::raw);
}

inline bitset_block_plan plan_for_plane(const plane& p, const block_stats& s, std::uint32_t len) {
    return choose_plan(s.count, runs_of(s, p), len);
}

/// Writes the payload of `plan` for plane `p` (bits at or beyond len clear) to `out`.
inline void write_plane_payload(const bitset_block_plan& plan, const plane& p, std::uint32_t len, std::byte* out) noexcept {
    switch (plan.kind) {
        case block_kind::positions: positions_payload::write(p, out); break;
        case block_kind::runs: runs_payload::write(p, out); break;
        case block_kind::gaps: gaps_payload::write(p, out); break;
        case block_kind::raw: raw_payload::write(p, len, out); break;
    }
}

/// Sorted positions of one block, with the slack the vector code below needs: reads and writes
/// up to `position_slack` slots past the last (and the kernels' padding, bitset_kernels.hpp).
inline constexpr std::uint32_t position_slack = 16;
template <std::uint32_t Capacity = block_values>
struct position_buffer {
    std::uint16_t storage[Capacity + position_slack];
    std::uint16_t* data() noexcept { return storage; }
};

/// Encoding facts of sorted distinct positions: runs and the gaps payload size.
struct positions_facts {
    std::uint32_t runs = 0;
    std::uint32_t gaps_bytes = 0;
};

#if defined(__SSE2__)
namespace sse2 {

inline std::uint32_t sum_u16(__m128i v) noexcept {
    __m128i s = _mm_madd_epi16(v, _mm_set1_epi16(1));  // 4 x i32
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(s));
}

inline __m128i load8(const std::uint16_t* p) noexcept { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

// Gaps of the 8 positions `cur`, whose predecessor is the last lane of `previous`:
// p[i] - p[i-1] - 1 in 16-bit arithmetic. The predecessor comes from registers, not from an
// unaligned reload of memory just written (which would stall on store forwarding).
inline __m128i gaps8(__m128i cur, __m128i previous) noexcept {
    const __m128i before = _mm_or_si128(_mm_slli_si128(cur, 2), _mm_srli_si128(previous, 14));
    return _mm_sub_epi16(_mm_sub_epi16(cur, before), _mm_set1_epi16(1));
}

// 0xFFFF in the lanes below `count` (count <= 8 keeps that many).
inline __m128i first_lanes(std::uint32_t count) noexcept {
    return _mm_cmpgt_epi16(_mm_set1_epi16(static_cast<short>(count)), _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7));
}

}  // namespace sse2
#endif

/// facts_of() one position at a time (for a few positions, and without SSE2).
inline positions_facts facts_of_few(const std::uint16_t* p, std::uint32_t n) noexcept {
    std::uint32_t next = 0;  // one past the previous position (0 before the first)
    std::uint32_t breaks = 0, escapes = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t gap = p[i] - next;
        breaks += (gap != 0) | (i == 0);
        escapes += gap >= gaps_payload::escape;
        next = p[i] + 1u;
    }
    return {breaks, n + 2 * escapes};
}

/// Writes the gaps payload of sorted distinct positions p[0..n) one position at a time;
/// returns the end.
inline std::byte* write_gaps_few(const std::uint16_t* p, std::uint32_t n, std::byte* out, std::uint32_t next = 0) noexcept {
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t gap = p[i] - next;
        if (gap >= gaps_payload::escape) {
            *out++ = static_cast<std::byte>(gaps_payload::escape);
            store_le<std::uint16_t>(out, static_cast<std::uint16_t>(gap));
            out += 2;
        } else {
            *out++ = static_cast<std::byte>(gap);
        }
        next = p[i] + 1u;
    }
    return out;
}

/// Facts of sorted distinct positions p[0..n), n >= 1 (p may be read up to 8 slots past n).
inline positions_facts facts_of(const std::uint16_t* p, std::uint32_t n) noexcept {
    positions_facts f;
#if defined(__SSE2__)
    if (n == 1) return {1, p[0] >= gaps_payload::escape ? 3u : 1u};
    // p[-1] = 0xFFFF: the first gap is p[0] - 0xFFFF - 1 = p[0].
    __m128i previous = _mm_set1_epi16(-1);
    __m128i zero_gaps = _mm_setzero_si128(), short_gaps = _mm_setzero_si128();
    const __m128i zero = _mm_setzero_si128(), limit = _mm_set1_epi16(gaps_payload::escape - 1);
    for (std::uint32_t i = 0; i < n; i += 8) {
        const __m128i cur = sse2::load8(p + i);
        const __m128i valid = sse2::first_lanes(n - i);
        const __m128i d = sse2::gaps8(cur, previous);
        zero_gaps = _mm_sub_epi16(zero_gaps, _mm_and_si128(_mm_cmpeq_epi16(d, zero), valid));
        short_gaps = _mm_sub_epi16(short_gaps, _mm_and_si128(_mm_cmpeq_epi16(_mm_subs_epu16(d, limit), zero), valid));
        previous = cur;
    }
    // Every non-zero gap starts a run; so does position 0 (whose gap is 0).
    f.runs = n - sse2::sum_u16(zero_gaps) + (p[0] == 0);
    f.gaps_bytes = n + 2 * (n - sse2::sum_u16(short_gaps));
#else
    f = facts_of_few(p, n);
#endif
    return f;
}

/// Runs of sorted distinct positions p[0..n), n >= 1 (p may be read up to 8 slots past n):
/// facts_of()'s runs alone, for a scan's sparse block that needs no gaps size (positions
/// against runs): n less the positions that follow their predecessor, the tail's lanes masked
/// once rather than every step (geoip4_country find_eq frequent: ~100 instructions a block of
/// ~65 positions where facts_of took ~260, callgrind AVX2).
inline std::uint32_t runs_of_positions(const std::uint16_t* p, std::uint32_t n) noexcept {
#if defined(__SSE2__)
    // p[-1] = 0xFFFE: p[-1] + 1 is no position.
    __m128i previous = _mm_set1_epi16(-2);
    __m128i follows = _mm_setzero_si128();
    const __m128i one = _mm_set1_epi16(1);
    std::uint32_t i = 0;
    const auto step = [&](__m128i keep) {
        const __m128i cur = sse2::load8(p + i);
        const __m128i before = _mm_or_si128(_mm_slli_si128(cur, 2), _mm_srli_si128(previous, 14));
        follows = _mm_sub_epi16(follows, _mm_and_si128(_mm_cmpeq_epi16(cur, _mm_add_epi16(before, one)), keep));
        previous = cur;
    };
    for (; i + 8 <= n; i += 8) step(_mm_set1_epi16(-1));
    if (i < n) step(sse2::first_lanes(n - i));
    return n - sse2::sum_u16(follows);
#else
    std::uint32_t runs = 1;
    for (std::uint32_t i = 1; i < n; ++i) runs += p[i] != p[i - 1] + 1u;
    return runs;
#endif
}

/// Writes the gaps payload of sorted distinct positions p[0..n) (n >= 1) to `out` and returns
/// its facts (gaps_bytes = bytes written) in the same pass: the encoder of sparse results,
/// which are gaps far more often than not. Reads p up to 8 slots past n and writes up to 7
/// bytes past the payload; `out` has room for 3 n + 8 bytes.
inline positions_facts write_gaps_with_facts(const std::uint16_t* p, std::uint32_t n, std::byte* out) noexcept {
    const std::byte* const start = out;
#if defined(__SSE2__)
    __m128i previous = _mm_set1_epi16(-1), zero_gaps = _mm_setzero_si128();
    const __m128i zero = _mm_setzero_si128(), limit = _mm_set1_epi16(gaps_payload::escape - 1);
    for (std::uint32_t i = 0; i < n; i += 8) {
        const __m128i cur = sse2::load8(p + i);
        const __m128i d = sse2::gaps8(cur, previous);
        previous = cur;
        const std::uint32_t lanes = std::min(n - i, 8u);
        const std::uint32_t valid = (1u << (2 * lanes)) - 1;  // movemask bits of the lanes in use
        zero_gaps = _mm_sub_epi16(zero_gaps, _mm_and_si128(_mm_cmpeq_epi16(d, zero), sse2::first_lanes(lanes)));
        const auto small = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_subs_epu16(d, limit), zero)));
        if ((small & valid) == valid) {  // every gap of the group below 255: one byte each
            _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_packus_epi16(d, d));
            out += lanes;
            continue;
        }
        out = write_gaps_few(p + i, lanes, out, i == 0 ? 0u : p[i - 1] + 1u);
    }
    // Every non-zero gap starts a run; so does position 0 (whose gap is 0).
    return {n - sse2::sum_u16(zero_gaps) + (p[0] == 0), static_cast<std::uint32_t>(out - start)};
#else
    const positions_facts f = facts_of_few(p, n);
    write_gaps_few(p, n, out);
    (void)start;
    return f;
#endif
}

/// The encoding of sorted positions p[0..n) (as facts_of()).
inline bitset_block_plan plan_for_positions(const std::uint16_t* p, std::uint32_t n, std::uint32_t len) noexcept {
    const positions_facts f = facts_of(p, n);
    return choose_plan(n, f.runs, len);
}

/// Sets bits [begin, end) (begin < end <= 2048) of 32 words.
inline void set_range64(std::uint64_t* w, std::uint32_t begin, std::uint32_t end) noexcept {
    const std::uint32_t first = begin >> 6, last = (end - 1) >> 6;
    const std::uint64_t head = ~std::uint64_t{0} << (begin & 63);
    const std::uint64_t tail = ~std::uint64_t{0} >> (63 - ((end - 1) & 63));
    if (first == last) {
        w[first] |= head & tail;
        return;
    }
    w[first] |= head;
    for (std::uint32_t i = first + 1; i < last; ++i) w[i] = ~std::uint64_t{0};
    w[last] |= tail;
}

/// Sets the bits of positions p[0..n) in `out`.
inline void set_positions(plane& out, const std::uint16_t* p, std::uint32_t n) noexcept {
    for (std::uint32_t i = 0; i < n; ++i) out[p[i] >> 5] |= 1u << (p[i] & 31);
}

/// Writes the payload of `plan` for sorted distinct positions p[0..n) to `out`. p may be read
/// up to 8 slots past n, and up to 7 bytes past the payload may be written: `out` is the end of
/// an arena (which keeps slack there) or the 8-byte inline field, never a payload with another
/// one after it.
inline void write_positions_payload(const bitset_block_plan& plan, const std::uint16_t* p, std::uint32_t n,
                                    std::uint32_t len, std::byte* out) noexcept {
    switch (plan.kind) {
        case block_kind::positions:
            std::memcpy(out, p, 2u * n);
            break;
        case block_kind::gaps: write_gaps_with_facts(p, n, out); break;
        case block_kind::runs: {
            std::uint32_t i = 0;
            while (i < n) {
                std::uint32_t j = i + 1;
                while (j < n && p[j] == p[j - 1] + 1) ++j;
                store_le<std::uint16_t>(out, p[i]);
                store_le<std::uint16_t>(out + 2, static_cast<std::uint16_t>(p[j - 1] + 1));
                out += 4;
                i = j;
            }
            break;
        }
        case block_kind::raw: {
            plane bits{};
            set_positions(bits, p, n);
            raw_payload::write(bits, len, out);
            break;
        }
    }
}

// ---- reading --------------------------------------------------------------------------------

/// 64-bit word i of a raw payload of a `len`-bit block (a short block's last word is partial).
inline std::uint64_t raw_word(const std::byte* payload, std::uint32_t len, std::uint32_t i) noexcept {
    const std::uint32_t bytes = raw_plane_bytes(len);
    if (8 * i + 8 <= bytes) return load_le<std::uint64_t>(payload + 8 * i);
    std::uint64_t word = 0;
    std::memcpy(&word, payload + 8 * i, bytes - 8 * i);
    return word;
}

/// Every set position of a stored block, ascending, into out; returns e.count. `out` needs room
/// for e.count + position_slack. `k`: the kernel table (callers fetch it once per operation).
inline std::uint32_t block_positions(const block_entry& e, const std::byte* payload, std::uint32_t len,
                                     std::uint16_t* out, const bitset_kernel_table& k) noexcept {
    switch (e.kind) {
        case block_kind::positions: std::memcpy(out, payload, 2u * e.items); return e.items;
        case block_kind::gaps:
            if (e.items <= 3 && e.count == 1) {  // one position: one byte, or an escape
                out[0] = static_cast<std::uint16_t>(e.items == 1 ? static_cast<std::uint32_t>(payload[0])
                                                                 : load_le<std::uint16_t>(payload + 1));
                return 1;
            }
            return k.decode_gaps(payload, e.items, out);
        case block_kind::runs: {
            std::uint32_t n = 0;
            for (std::uint32_t r = 0; r < e.items; ++r) {
                const std::uint32_t begin = load_le<std::uint16_t>(payload + 4 * r);
                const std::uint32_t end = load_le<std::uint16_t>(payload + 4 * r + 2);
                for (std::uint32_t bit = begin; bit < end; ++bit) out[n++] = static_cast<std::uint16_t>(bit);
            }
            return n;
        }
        case block_kind::raw: {
            if (len == block_values) return k.extract_positions(payload, out);  // 256 bytes to read
            std::uint32_t n = 0;
            for (std::uint32_t w = 0; n < e.count; ++w) {
                std::uint64_t word = raw_word(payload, len, w);
                while (word) {
                    out[n++] = static_cast<std::uint16_t>(64 * w + lowest_bit(word));
                    word &= word - 1;
                }
            }
            return n;
        }
    }
    return 0;
}

/// The lowest set bit of a stored block.
inline std::uint32_t first_position(const block_entry& e, const std::byte* payload, std::uint32_t len) noexcept {
    switch (e.kind) {
        case block_kind::positions:
        case block_kind::runs: return load_le<std::uint16_t>(payload);
        case block_kind::gaps: {
            const auto gap = static_cast<std::uint32_t>(payload[0]);
            return gap == gaps_payload::escape ? load_le<std::uint16_t>(payload + 1) : gap;
        }
        case block_kind::raw: {
            std::uint32_t w = 0;
            std::uint64_t word;
            while ((word = raw_word(payload, len, w)) == 0) ++w;
            return 64 * w + lowest_bit(word);
        }
    }
    return 0;
}

/// Sets the bits of a stored block in `out` (which must be all clear).
inline void block_to_plane(const block_entry& e, const std::byte* payload, std::uint32_t len, plane& out,
                           const bitset_kernel_table& k) noexcept {
    switch (e.kind) {
        case block_kind::positions:
            for (std::uint32_t i = 0; i < e.items; ++i) {
                const std::uint32_t bit = load_le<std::uint16_t>(payload + 2 * i);
                out[bit >> 5] |= 1u << (bit & 31);
            }
            break;
        case block_kind::gaps: {  // decoded as a vector first (no escape branch per position)
            position_buffer<> positions;
            block_positions(e, payload, len, positions.data(), k);
            set_positions(out, positions.data(), e.count);
            break;
        }
        case block_kind::runs:
            for (std::uint32_t r = 0; r < e.items; ++r)
                flip_range(out, load_le<std::uint16_t>(payload + 4 * r), load_le<std::uint16_t>(payload + 4 * r + 2));
            break;
        case block_kind::raw: std::memcpy(out.data(), payload, raw_plane_bytes(len)); break;
    }
}

/// A gaps payload walked from its start to its first position at or after `bit`: that
/// position (block_values when none is) and the number of positions below it. One walk for
/// contains, rank and next.
struct gap_seek {
    std::uint32_t position;
    std::uint32_t below;
};
inline gap_seek seek_gaps(const std::byte* payload, std::uint32_t items, std::uint32_t bit) noexcept {
    std::uint32_t n = 0, next = 0;
    for (std::uint32_t i = 0; i < items;) {
        std::uint32_t gap = static_cast<std::uint32_t>(payload[i++]);
        if (gap == gaps_payload::escape) [[unlikely]] {
            gap = load_le<std::uint16_t>(payload + i);
            i += 2;
        }
        next += gap;
        if (next >= bit) return {next, n};
        ++n;
        ++next;
    }
    return {static_cast<std::uint32_t>(block_values), n};
}

/// Whether bit `bit` (< len) of a stored block is set.
inline bool block_contains(const block_entry& e, const std::byte* payload, std::uint32_t bit) noexcept {
    switch (e.kind) {
        case block_kind::positions: return positions_payload::contains(payload, e.items, bit);
        case block_kind::gaps: return seek_gaps(payload, e.items, bit).position == bit;
        case block_kind::runs: return runs_payload::contains(payload, e.items, bit);
        case block_kind::raw: return raw_payload::contains(payload, bit);
    }
    return false;
}

/// Set bits of a stored block below `bit` (bit <= len).
inline std::uint32_t block_rank(const block_entry& e, const std::byte* payload, std::uint32_t bit) noexcept {
    switch (e.kind) {
        case block_kind::positions: {
            std::uint32_t lo = 0, hi = e.items;  // first position >= bit
            while (lo < hi) {
                const std::uint32_t mid = (lo + hi) / 2;
                if (load_le<std::uint16_t>(payload + 2 * mid) < bit) lo = mid + 1; else hi = mid;
            }
            return lo;
        }
        case block_kind::gaps: return seek_gaps(payload, e.items, bit).below;
        case block_kind::runs: {
            std::uint32_t n = 0;
            for (std::uint32_t r = 0; r < e.items; ++r) {
                const std::uint32_t begin = load_le<std::uint16_t>(payload + 4 * r);
                if (begin >= bit) break;
                const std::uint32_t end = load_le<std::uint16_t>(payload + 4 * r + 2);
                n += std::min(end, bit) - begin;
            }
            return n;
        }
        case block_kind::raw: {
            std::uint32_t n = 0;
            const std::uint32_t words = bit / 64;
            for (std::uint32_t w = 0; w < words; ++w) n += popcount64(load_le<std::uint64_t>(payload + 8 * w));
            if (bit % 64 != 0) {
                std::uint64_t last = 0;
                std::memcpy(&last, payload + 8 * words, (bit % 64 + 7) / 8);
                n += popcount64(below(last, bit % 64));
            }
            return n;
        }
    }
    return 0;
}

/// Position of the set bit of rank k (k < e.count) in a stored block.
inline std::uint32_t block_select(const block_entry& e, const std::byte* payload, std::uint32_t len,
                                  std::uint32_t k) noexcept {
    switch (e.kind) {
        case block_kind::positions: return load_le<std::uint16_t>(payload + 2 * k);
        case block_kind::gaps: {
            std::uint32_t next = 0, n = 0;
            for (std::uint32_t i = 0; i < e.items;) {
                std::uint32_t gap = static_cast<std::uint32_t>(payload[i++]);
                if (gap == gaps_payload::escape) [[unlikely]] {
                    gap = load_le<std::uint16_t>(payload + i);
                    i += 2;
                }
                next += gap;
                if (n++ == k) return next;
                ++next;
            }
            return next;
        }
        case block_kind::runs: {
            for (std::uint32_t r = 0; r < e.items; ++r) {
                const std::uint32_t begin = load_le<std::uint16_t>(payload + 4 * r);
                const std::uint32_t end = load_le<std::uint16_t>(payload + 4 * r + 2);
                if (k < end - begin) return begin + k;
                k -= end - begin;
            }
            return 0;
        }
        case block_kind::raw: {
            for (std::uint32_t w = 0;; ++w) {
                std::uint64_t word = raw_word(payload, len, w);
                const std::uint32_t n = popcount64(word);
                if (k < n) {
                    for (; k > 0; --k) word &= word - 1;
                    return 64 * w + lowest_bit(word);
                }
                k -= n;
            }
        }
    }
    return 0;
}

/// The first set bit at or after `bit` in a stored block, or block_values if none.
inline std::uint32_t block_next(const block_entry& e, const std::byte* payload, std::uint32_t len,
                                std::uint32_t bit) noexcept {
    constexpr std::uint32_t none = static_cast<std::uint32_t>(block_values);
    if (bit >= len) return none;
    switch (e.kind) {
        case block_kind::positions: {
            const std::uint32_t i = block_rank(e, payload, bit);
            return i < e.items ? load_le<std::uint16_t>(payload + 2 * i) : none;
        }
        case block_kind::gaps: return seek_gaps(payload, e.items, bit).position;  // block_values: none
        case block_kind::runs: {
            for (std::uint32_t r = 0; r < e.items; ++r) {
                const std::uint32_t begin = load_le<std::uint16_t>(payload + 4 * r);
                const std::uint32_t end = load_le<std::uint16_t>(payload + 4 * r + 2);
                if (bit < end) return std::max(begin, bit);
            }
            return none;
        }
        case block_kind::raw: {
            const std::uint32_t total = (len + 63) / 64;
            std::uint32_t w = bit / 64;
            std::uint64_t word = raw_word(payload, len, w) & (~std::uint64_t{0} << (bit % 64));
            while (word == 0) {
                if (++w >= total) return none;
                word = raw_word(payload, len, w);
            }
            return 64 * w + lowest_bit(word);
        }
    }
    return none;
}

}  // namespace bitplane::detail
