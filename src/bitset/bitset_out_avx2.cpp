// The AVX2 walk of write_blocks (bitset_out.hpp): each block written with fixed-size stores that
// may run up to out_overshoot slots past its last position, so that a block costs no loop exit
// that depends on its count in the usual cases:
//   - positions: the payload widened 32 at a time (a 1% block, ~20 positions, is one step),
//     an inline payload (1 to 4 positions) by one 8-lane store;
//   - runs: ramps, 16 a step;
//   - raw: per non-zero byte, its bits' positions from a table of 32-bit rows, plus the byte's
//     offset, stored 8 at a time straight into the output (no block-sized staging buffer);
//   - full blocks and anything near the end of the caller's buffer: the exact writers.
// As bitset_kernels_avx2.cpp, the AVX2 code is a target region after every include, reached
// only where the dispatcher chose the AVX2 kernel table.
#if defined(BITPLANE_X86)

#include "bitset/bitset_out.hpp"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace bitplane::detail {
namespace {

// bits32[v]: the positions of the set bits of byte v, then zeros (8 lanes of 32 bits).
struct byte_rows32 {
    alignas(32) std::array<std::uint32_t, 8> rows[256];
};
constexpr byte_rows32 make_rows32() {
    byte_rows32 t{};
    for (unsigned v = 0; v < 256; ++v) {
        unsigned k = 0;
        for (unsigned bit = 0; bit < 8; ++bit)
            if ((v >> bit) & 1) t.rows[v][k++] = bit;
    }
    return t;
}
constexpr byte_rows32 bits32 = make_rows32();

}  // namespace
}  // namespace bitplane::detail

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,popcnt,bmi"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,popcnt,bmi")
#endif

namespace bitplane::detail {
namespace {

// 8 positions given as 32-bit lanes, plus base, stored as T.
inline void store8(std::uint32_t* out, __m256i v32, std::uint64_t base) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_add_epi32(v32, _mm256_set1_epi32(static_cast<int>(base))));
}
inline void store8(std::uint64_t* out, __m256i v32, std::uint64_t base) {
    const __m256i b = _mm256_set1_epi64x(static_cast<long long>(base));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_add_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(v32)), b));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4),
                        _mm256_add_epi64(_mm256_cvtepu32_epi64(_mm256_extracti128_si256(v32, 1)), b));
}
// 8 little-endian u16 at p (16 bytes read), widened.
inline __m256i load8_u16(const std::byte* p) {
    return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// A positions payload of n positions, 32 a step. Reads up to 64 bytes from p: the caller
// checked that they are readable.
template <class T>
inline void positions32(const std::byte* p, std::uint32_t n, std::uint64_t base, T* out) {
    std::uint32_t j = 0;
    do {
        store8(out + j, load8_u16(p + 2 * j), base);
        store8(out + j + 8, load8_u16(p + 2 * j + 16), base);
        store8(out + j + 16, load8_u16(p + 2 * j + 32), base);
        store8(out + j + 24, load8_u16(p + 2 * j + 48), base);
        j += 32;
    } while (j < n);
}

// The same 8 a step: reads at most 14 bytes past the payload (the arena's slack covers them).
template <class T>
inline void positions8(const std::byte* p, std::uint32_t n, std::uint64_t base, T* out) {
    for (std::uint32_t j = 0; j < n; j += 8) store8(out + j, load8_u16(p + 2 * j), base);
}

template <class T>
inline void runs16(const std::byte* p, std::uint32_t items, std::uint64_t base, T* out) {
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (std::uint32_t r = 0; r < items; ++r) {
        const std::uint32_t begin = load_le<std::uint16_t>(p + 4 * r);
        const std::uint32_t end = load_le<std::uint16_t>(p + 4 * r + 2);
        const std::uint32_t n = end - begin;
        std::uint32_t j = 0;
        do {
            const __m256i v = _mm256_add_epi32(iota, _mm256_set1_epi32(static_cast<int>(begin + j)));
            store8(out + j, v, base);
            store8(out + j + 8, _mm256_add_epi32(v, _mm256_set1_epi32(8)), base);
            j += 16;
        } while (j < n);
        out += n;
    }
}

// A 2048-bit raw payload: a mask of its non-zero bytes, then 8 positions stored per such byte.
template <class T>
inline std::uint32_t raw_bytes(const std::byte* block, std::uint64_t base, T* out) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(block);
    std::uint32_t n = 0;
    for (int h = 0; h < 4; ++h) {
        const __m256i lo_v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes + 64 * h));
        const __m256i hi_v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes + 64 * h + 32));
        const auto lo = static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo_v, _mm256_setzero_si256())));
        const auto hi = static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi_v, _mm256_setzero_si256())));
        for (std::uint64_t m = ~((static_cast<std::uint64_t>(hi) << 32) | lo); m != 0; m &= m - 1) {
            const auto at = static_cast<unsigned>(64 * h + __builtin_ctzll(m));
            const unsigned value = bytes[at];
            const __m256i row = _mm256_load_si256(reinterpret_cast<const __m256i*>(bits32.rows[value].data()));
            store8(out + n, row, base + 8 * at);
            n += static_cast<std::uint32_t>(_mm_popcnt_u32(value));
        }
    }
    return n;
}

// Any stored block but an inline positions one (kept out of the walk's loop, whose registers
// it would take). `roomy`: out_overshoot slots may be written past the block's positions.
template <class T>
[[gnu::noinline]] void write_stored(const bitset_core& c, const block_entry& e, std::size_t b, std::uint64_t base, T* out,
                                    bool roomy) {
    const std::byte* const payload = c.payload(e);
    if (roomy && e.kind == block_kind::positions) {
        // positions32 reads whole 64-byte steps: where they stay inside the arena's bytes in use
        // (payload_bytes() <= the arena's size).
        if (!e.inline_payload && e.offset + 2 * ((std::uint64_t{e.items} + 31) & ~std::uint64_t{31}) <= c.payload_bytes()) {
            positions32(payload, e.items, base, out);
        } else {
            positions8(payload, e.items, base, out);
        }
    } else if (roomy && e.kind == block_kind::runs) {
        runs16(payload, e.items, base, out);
    } else if (roomy && e.kind == block_kind::raw && c.block_len(b) == block_values) {
        raw_bytes(payload, base, out);
    } else {
        position_buffer<> buffer;
        write_block_exact(e, payload, c.block_len(b), base, out, buffer.data(), bitset_kernels());
    }
}

template <class T>
std::size_t walk(const bitset_core& c, out_cursor& cursor, std::uint64_t origin, T* out, T* stop, T* limit,
                 std::size_t block_end) {
    T* const start = out;
    const summary_word* const words = c.words().data();
    const std::size_t word_count = c.words().size();
    const block_entry* const entries = c.entries().data();
    // The cursor in registers (stores to `out` could alias it).
    std::size_t wi = cursor.wi, entry = cursor.entry, last = cursor.last;
    std::uint64_t rest = cursor.rest;
    // Below fast_stop, a block fits with its overshoot.
    T* const fast_stop = std::min(stop, limit - start >= std::ptrdiff_t{out_overshoot} ? limit - out_overshoot : start);
    for (;;) {
        while (rest == 0) {
            if (wi + 1 >= word_count) goto done;
            rest = words[++wi].nonempty;
        }
        // Blocks of a summary word without full blocks, below block_end: a loop with one room
        // check a block, one entry after the other (the usual sparse set).
        if (words[wi].full == 0 && 64 * wi + 64 <= block_end) {
            const std::uint64_t base0 = std::uint64_t{64 * wi} * block_values - origin;
            const block_entry* e = entries + entry;
            while (rest != 0 && out + e->count <= fast_stop) {
                const std::uint32_t bit = lowest_bit(rest);
                const std::uint64_t base = base0 + std::uint64_t{bit} * block_values;
                if (e->kind == block_kind::positions && e->inline_payload) {
                    store8(out, _mm256_cvtepu16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(&e->offset))), base);
                } else {
                    write_stored(c, *e, 64 * wi + bit, base, out, true);
                }
                out += e->count;
                last = 64 * wi + bit;
                ++e;
                rest &= rest - 1;
            }
            entry = static_cast<std::size_t>(e - entries);
            if (rest == 0) continue;
        }
        const std::uint32_t bit = lowest_bit(rest);
        const std::size_t b = 64 * wi + bit;
        if (b >= block_end) break;
        const std::uint64_t base = std::uint64_t{b} * block_values - origin;
        if ((words[wi].full >> bit) & 1) [[unlikely]] {
            const std::uint32_t len = c.block_len(b);
            if (static_cast<std::size_t>(stop - out) < len) break;
            ramp_exact(bitset_kernels(), base, len, out);
            out += len;
        } else {
            const block_entry& e = entries[entry];
            if (static_cast<std::size_t>(stop - out) < e.count) break;
            const bool roomy = static_cast<std::size_t>(limit - out) >= std::size_t{e.count} + out_overshoot;
            if (roomy && e.kind == block_kind::positions && e.inline_payload) {
                // 1 to 4 positions in the entry's first 8 bytes: the usual sparse block
                store8(out, _mm256_cvtepu16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(&e.offset))), base);
            } else {
                write_stored(c, e, b, base, out, roomy);
            }
            out += e.count;
            ++entry;
        }
        last = b;
        rest &= rest - 1;
    }
done:
    cursor.wi = wi;
    cursor.rest = rest;
    cursor.entry = entry;
    cursor.last = last;
    return static_cast<std::size_t>(out - start);
}

}  // namespace

std::size_t write_blocks_avx2(const bitset_core& c, out_cursor& cur, std::uint64_t origin, std::uint32_t* out,
                              std::uint32_t* stop, std::uint32_t* limit, std::size_t block_end) noexcept {
    return walk(c, cur, origin, out, stop, limit, block_end);
}

std::size_t write_blocks_avx2(const bitset_core& c, out_cursor& cur, std::uint64_t origin, std::uint64_t* out,
                              std::uint64_t* stop, std::uint64_t* limit, std::size_t block_end) noexcept {
    return walk(c, cur, origin, out, stop, limit, block_end);
}

}  // namespace bitplane::detail

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

#endif  // BITPLANE_X86
