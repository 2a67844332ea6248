// Positions out of a bitset, whole blocks at a time: to_positions (into 32- or 64-bit arrays)
// and the iterator's refill (32-bit offsets from its base) share write_blocks(). It walks the
// summary word by word and the entries one after the other (no rank per block). The portable
// walk writes exactly (kernels that write nothing past their count); the AVX2 walk
// (bitset_out_avx2.cpp) writes each block with fixed-size stores that may run up to
// `out_overshoot` slots past the block's last position (the next block overwrites them), and
// falls back to the exact writer where the caller's buffer has no room for that.
#pragma once

#include "bitset/bitset_core.hpp"

#include <cstddef>
#include <cstdint>

namespace bitplane::detail {

/// Where a walk over the stored blocks stands: word wi of the summary, its non-empty blocks not
/// yet written (rest), the entry index of the next stored block; and the last block written.
/// The entry index of that last block, where stored, is entry - 1.
struct out_cursor {
    std::size_t wi = 0;
    std::uint64_t rest = 0;
    std::size_t entry = 0;
    std::size_t last = 0;  // the last block written (when any was)

    /// The cursor at the first block of c.
    static out_cursor at_start(const bitset_core& c) noexcept {
        out_cursor cur;
        if (!c.words().empty()) cur.rest = c.words()[0].nonempty;
        return cur;
    }
    /// Moves wi to the word of the next non-empty block; false when there is none.
    bool settle(const bitset_core& c) noexcept {
        const std::vector<summary_word>& words = c.words();
        while (rest == 0) {
            if (wi + 1 >= words.size()) return false;
            rest = words[++wi].nonempty;
        }
        return true;
    }
    /// The next block to write (settle() returned true).
    [[nodiscard]] std::size_t block() const noexcept { return 64 * wi + lowest_bit(rest); }
};

/// Slots the AVX2 writer may write past a block's last position.
inline constexpr std::uint32_t out_overshoot = 32;

template <class T>
inline void widen_exact(const bitset_kernel_table& k, const std::uint16_t* in, std::uint32_t n, std::uint64_t base,
                        T* out) noexcept {
    if constexpr (sizeof(T) == 8) {
        k.widen_positions64(in, n, base, out);
    } else {
        k.widen_positions32(in, n, static_cast<std::uint32_t>(base), out);
    }
}

template <class T>
inline void ramp_exact(const bitset_kernel_table& k, std::uint64_t start, std::uint32_t n, T* out) noexcept {
    if (n < 8) {  // short runs: no call
        for (std::uint32_t i = 0; i < n; ++i) out[i] = static_cast<T>(start + i);
    } else if constexpr (sizeof(T) == 8) {
        k.ramp64(start, n, out);
    } else {
        k.ramp32(static_cast<std::uint32_t>(start), n, out);
    }
}

/// The positions of stored block entry e (block length len) plus base into out[0, e.count),
/// nothing written past. `local`: a position_buffer's data.
template <class T>
inline void write_block_exact(const block_entry& e, const std::byte* payload, std::uint32_t len, std::uint64_t base,
                              T* out, std::uint16_t* local, const bitset_kernel_table& k) noexcept {
    switch (e.kind) {
        case block_kind::positions: {
            if constexpr (sizeof(T) == 8) {
                k.widen_positions64(payload, e.items, base, out);
            } else {
                k.widen_positions32(payload, e.items, static_cast<std::uint32_t>(base), out);
            }
            return;
        }
        case block_kind::runs:
            for (std::uint32_t r = 0; r < e.items; ++r) {
                const std::uint32_t begin = load_le<std::uint16_t>(payload + 4 * r);
                const std::uint32_t end = load_le<std::uint16_t>(payload + 4 * r + 2);
                ramp_exact(k, base + begin, end - begin, out);
                out += end - begin;
            }
            return;
        case block_kind::gaps:
        case block_kind::raw: widen_exact(k, local, block_positions(e, payload, len, local, k), base, out); return;
    }
}

/// Writes whole blocks from `cur` on, each position p as T(p - origin), into out: a block is
/// written when all its positions fit below `stop`; blocks >= block_end are not written.
/// Writes may reach `limit` (>= stop). Returns the positions written; `cur` moves past the
/// blocks written. Portable: exact writes through the kernel table.
template <class T>
std::size_t write_blocks_portable(const bitset_core& c, out_cursor& cur, std::uint64_t origin, T* out, T* stop,
                                  std::size_t block_end, const bitset_kernel_table& k) noexcept {
    position_buffer<> buffer;
    T* const start = out;
    const std::vector<summary_word>& words = c.words();
    const block_entry* const entries = c.entries().data();
    while (cur.settle(c)) {
        const std::uint32_t bit = lowest_bit(cur.rest);
        const std::size_t b = 64 * cur.wi + bit;
        if (b >= block_end) break;
        const std::uint64_t base = std::uint64_t{b} * block_values - origin;
        const std::uint32_t len = c.block_len(b);
        const bool full = (words[cur.wi].full >> bit) & 1;
        if (full) {
            if (static_cast<std::size_t>(stop - out) < len) break;
            ramp_exact(k, base, len, out);
            out += len;
        } else {
            const block_entry& e = entries[cur.entry];
            if (static_cast<std::size_t>(stop - out) < e.count) break;
            write_block_exact(e, c.payload(e), len, base, out, buffer.data(), k);
            out += e.count;
            ++cur.entry;
        }
        cur.last = b;
        cur.rest &= cur.rest - 1;
    }
    return static_cast<std::size_t>(out - start);
}

#if defined(BITPLANE_X86)
/// write_blocks_portable with AVX2 (bitset_out_avx2.cpp): writes may reach `limit`.
std::size_t write_blocks_avx2(const bitset_core& c, out_cursor& cur, std::uint64_t origin, std::uint32_t* out,
                              std::uint32_t* stop, std::uint32_t* limit, std::size_t block_end) noexcept;
std::size_t write_blocks_avx2(const bitset_core& c, out_cursor& cur, std::uint64_t origin, std::uint64_t* out,
                              std::uint64_t* stop, std::uint64_t* limit, std::size_t block_end) noexcept;
#endif

/// The walk for the kernel table's SIMD path.
template <class T>
std::size_t write_blocks(const bitset_core& c, out_cursor& cur, std::uint64_t origin, T* out, T* stop, T* limit,
                         std::size_t block_end, const bitset_kernel_table& k) noexcept {
#if defined(BITPLANE_X86)
    if (k.path >= simd_path::avx2) return write_blocks_avx2(c, cur, origin, out, stop, limit, block_end);
#endif
    (void)limit;
    return write_blocks_portable(c, cur, origin, out, stop, block_end, k);
}

}  // namespace bitplane::detail
