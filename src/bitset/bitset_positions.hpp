// Every set position of a bitset's storage into an array of 64- or 32-bit positions, block by
// block with a kernel per kind: full blocks and runs as ramps, positions payloads widened in
// place, gaps decoded then widened, raw blocks extracted (a byte table) then widened. No call
// per position.
#pragma once

#include "bitset/bitset_core.hpp"

#include <cstdint>

namespace bitplane::detail {

inline void widen_into(const bitset_kernel_table& k, const void* in, std::uint32_t n, std::uint64_t base,
                       std::uint64_t* out) noexcept {
    k.widen_positions64(in, n, base, out);
}
inline void widen_into(const bitset_kernel_table& k, const void* in, std::uint32_t n, std::uint64_t base,
                       std::uint32_t* out) noexcept {
    k.widen_positions32(in, n, static_cast<std::uint32_t>(base), out);
}
template <class T>
inline void ramp_into(const bitset_kernel_table& k, std::uint64_t start, std::uint32_t n, T* out) noexcept {
    if (n < 8) {  // short runs: no call
        for (std::uint32_t i = 0; i < n; ++i) out[i] = static_cast<T>(start + i);
    } else if constexpr (sizeof(T) == 8) {
        k.ramp64(start, n, out);
    } else {
        k.ramp32(static_cast<std::uint32_t>(start), n, out);
    }
}

/// Writes the set positions of `c` to out[0, c.count()) (T = uint32_t only when c.size() <= 2^32).
template <class T>
void write_positions(const bitset_core& c, T* out, const bitset_kernel_table& k) noexcept {
    position_buffer<> buffer;
    std::uint16_t* const local = buffer.data();
    const std::vector<summary_word>& words = c.words();
    const std::vector<block_entry>& entries = c.entries();
    T* const out_end = out + c.count();
    std::size_t i = 0;
    for (std::size_t wi = 0; wi < words.size(); ++wi) {
        const summary_word& w = words[wi];
        for (std::uint64_t m = w.nonempty; m != 0; m &= m - 1) {
            const std::size_t b = 64 * wi + lowest_bit(m);
            const std::uint64_t base = std::uint64_t{b} * block_values;
            const std::uint32_t len = c.block_len(b);
            if ((w.full >> lowest_bit(m)) & 1) {
                ramp_into(k, base, len, out);
                out += len;
                continue;
            }
            const block_entry& e = entries[i++];
            const std::byte* payload = c.payload(e);
            if (e.inline_payload) {  // sparse blocks (8 payload bytes at most): no call, few branches
                if (e.kind == block_kind::positions && out_end - out >= 4) {
                    // Four slots written whatever the count (the next block overwrites the rest).
                    for (std::uint32_t j = 0; j < 4; ++j)
                        out[j] = static_cast<T>(base + load_le<std::uint16_t>(payload + 2 * j));
                    out += e.items;
                    continue;
                }
                if (e.kind == block_kind::gaps) {
                    std::uint32_t next = 0;
                    for (std::uint32_t j = 0; j < e.items;) {
                        std::uint32_t gap = static_cast<std::uint32_t>(payload[j++]);
                        if (gap == gaps_payload::escape) {
                            gap = load_le<std::uint16_t>(payload + j);
                            j += 2;
                        }
                        next += gap;
                        *out++ = static_cast<T>(base + next);
                        ++next;
                    }
                    continue;
                }
            }
            switch (e.kind) {
                case block_kind::positions: widen_into(k, payload, e.items, base, out); break;
                case block_kind::runs:
                    for (std::uint32_t r = 0; r < e.items; ++r) {
                        const std::uint32_t begin = load_le<std::uint16_t>(payload + 4 * r);
                        const std::uint32_t end = load_le<std::uint16_t>(payload + 4 * r + 2);
                        ramp_into(k, base + begin, end - begin, out);
                        out += end - begin;
                    }
                    continue;
                case block_kind::gaps:
                case block_kind::raw: widen_into(k, local, block_positions(e, payload, len, local, k), base, out); break;
            }
            out += e.count;
        }
    }
}

}  // namespace bitplane::detail
