// AND, AND-count and ANDNOT of two stored blocks. The result is a subset of the left (ANDNOT)
// or of the smaller (AND) operand, so a sparse operand is never spread into a plane for its
// own sake: its positions (read in place from a positions payload) are filtered by bit probes
// into the other block (a raw payload in place, or the other block spread into a plane on the
// stack: a positions block costs one store a position). Two blocks with bits to spare (raw,
// runs) go through one SIMD kernel pass that writes the result straight into the output arena
// and counts its bits and transitions (core_writer::room / add_room), so no intermediate plane
// is copied and the result's encoding is known at once.
#include "bitset/bitset_algebra.hpp"
#include "bitset/block_pairs.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bitplane::detail {

namespace {

// A block's bits, set from a stored block.
struct scratch_bits {
    alignas(32) std::uint64_t words[block_values / 64];
};

// Bit p of 256 bytes in raw bit order, read as the 64-bit word that holds it (the word the
// scratch bits were set with, so the load is forwarded from that store).
inline std::uint32_t bit_at(const std::byte* bits, std::uint32_t p) noexcept {
    std::uint64_t word;
    std::memcpy(&word, bits + 8 * (p >> 6), 8);
    return static_cast<std::uint32_t>(word >> (p & 63)) & 1u;
}

// Keeps the positions whose bit in `bits` (256 bytes, raw bit order) is (Keep) or is not set.
template <bool Keep>
std::uint32_t filter_by_bits(const std::uint16_t* s, std::uint32_t n, const std::byte* bits, std::uint16_t* out) noexcept {
    std::uint32_t k = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t p = s[i];
        const std::uint32_t set = bit_at(bits, p);
        out[k] = static_cast<std::uint16_t>(p);
        k += Keep ? set : set ^ 1u;
    }
    return k;
}

std::uint32_t count_by_bits(const std::uint16_t* s, std::uint32_t n, const std::byte* bits) noexcept {
    std::uint32_t k = 0;
    for (std::uint32_t i = 0; i < n; ++i) k += bit_at(bits, s[i]);
    return k;
}

// The payload of a positions or runs block as 16-bit values (little-endian, as the library).
const std::uint16_t* runs_of(const block_ref& r) noexcept { return reinterpret_cast<const std::uint16_t*>(r.payload); }

// The sorted positions of a sparse block: a positions payload in place, anything else
// decoded into `buffer`.
const std::uint16_t* positions_of(const block_ref& r, std::uint32_t len, std::uint16_t* buffer,
                                  const bitset_kernel_table& k) noexcept {
    if (r.entry->kind == block_kind::positions) return reinterpret_cast<const std::uint16_t*>(r.payload);
    block_positions(*r.entry, r.payload, len, buffer, k);
    return buffer;
}

// The bits of block `r` as 256 bytes: a full-length raw payload in place, anything else set
// into `scratch` (64-bit words: a positions block costs one store a position, a run a few).
const std::byte* bits_of(const block_ref& r, std::uint32_t len, scratch_bits& scratch, const bitset_kernel_table& k) noexcept {
    const block_entry& e = *r.entry;
    if (e.kind == block_kind::raw && len == block_values) return r.payload;
    std::uint64_t* w = scratch.words;
#if defined(__SSE2__)
    // Plain vector stores (a memset of this size becomes `rep stos`, whose start-up costs as
    // much as a sparse block's whole operation, and whose stores later loads cannot forward).
    __m128i zero = _mm_setzero_si128();
    __asm__("" : "+x"(zero));  // hides the zero, or GCC turns the loop back into `rep stos`
    for (std::uint32_t i = 0; i < block_values / 64; i += 2) _mm_store_si128(reinterpret_cast<__m128i*>(w + i), zero);
#else
    std::memset(w, 0, sizeof scratch.words);
#endif
    switch (e.kind) {
        case block_kind::positions: {
            const auto* p = reinterpret_cast<const std::uint16_t*>(r.payload);
            for (std::uint32_t i = 0; i < e.items; ++i) w[p[i] >> 6] |= std::uint64_t{1} << (p[i] & 63);
            break;
        }
        case block_kind::runs: {
            const auto* p = reinterpret_cast<const std::uint16_t*>(r.payload);
            for (std::uint32_t i = 0; i < e.items; ++i) set_range64(w, p[2 * i], p[2 * i + 1]);
            break;
        }
        case block_kind::raw: std::memcpy(w, r.payload, raw_plane_bytes(len)); break;
        case block_kind::gaps: {
            position_buffer<> positions;
            block_positions(e, r.payload, len, positions.data(), k);
            const std::uint16_t* p = positions.data();
            for (std::uint32_t i = 0; i < e.count; ++i) w[p[i] >> 6] |= std::uint64_t{1} << (p[i] & 63);
            break;
        }
    }
    return reinterpret_cast<const std::byte*>(w);
}

// ---- runs with runs: interval merges, no bits ------------------------------------------------


// The intersection of run lists a[0..n) and b[0..m) (begin, end pairs), into out (room for
// n + m runs); returns the runs written, `count` their bits. Intersections of maximal runs
// are maximal.
std::uint32_t intersect_runs(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b, std::uint32_t m,
                             std::uint16_t* out, std::uint32_t& count) noexcept {
    std::uint32_t i = 0, j = 0, k = 0, total = 0;
    while (i < n && j < m) {
        const std::uint32_t lo = std::max(a[2 * i], b[2 * j]);
        const std::uint32_t a_end = a[2 * i + 1], b_end = b[2 * j + 1];
        const std::uint32_t hi = std::min(a_end, b_end);
        if (lo < hi) {
            out[2 * k] = static_cast<std::uint16_t>(lo);
            out[2 * k + 1] = static_cast<std::uint16_t>(hi);
            ++k;
            total += hi - lo;
        }
        i += a_end <= b_end;
        j += b_end <= a_end;
    }
    count = total;
    return k;
}

std::uint32_t overlap_runs(const std::uint16_t* a, std::uint32_t n, const std::uint16_t* b, std::uint32_t m) noexcept {
    std::uint32_t i = 0, j = 0, total = 0;
    while (i < n && j < m) {
        const std::uint32_t lo = std::max(a[2 * i], b[2 * j]);
        const std::uint32_t a_end = a[2 * i + 1], b_end = b[2 * j + 1];
        const std::uint32_t hi = std::min(a_end, b_end);
        total += lo < hi ? hi - lo : 0;
        i += a_end <= b_end;
        j += b_end <= a_end;
    }
    return total;
}

// The complement of run list r[0..n) within [0, len), into out (room for n + 1 runs).
std::uint32_t complement_runs(const std::uint16_t* r, std::uint32_t n, std::uint32_t len, std::uint16_t* out) noexcept {
    std::uint32_t k = 0, next = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        if (r[2 * i] > next) {
            out[2 * k] = static_cast<std::uint16_t>(next);
            out[2 * k + 1] = r[2 * i];
            ++k;
        }
        next = r[2 * i + 1];
    }
    if (next < len) {
        out[2 * k] = static_cast<std::uint16_t>(next);
        out[2 * k + 1] = static_cast<std::uint16_t>(len);
        ++k;
    }
    return k;
}

constexpr std::uint32_t max_runs = block_values / 2 + 1;

// The positions of sparse block `s` that are (Keep) or are not in block `o`, into `out` (a
// position_buffer); returns how many.
template <bool Keep>
std::uint32_t filter(const block_ref& s, const block_ref& o, std::uint32_t len, std::uint16_t* out,
                     const bitset_kernel_table& k) noexcept {
    std::uint32_t kept;
    if (s.entry->kind == block_kind::positions && o.entry->kind == block_kind::positions &&
        filter_position_pairs<Keep>(runs_of(s), s.entry->items, runs_of(o), o.entry->items, match_chunk_for(k), out, kept))
        return kept;
    if (s.entry->count == 1) {  // a lone position probes the other block
        const std::uint32_t p = first_position(*s.entry, s.payload, len);
        out[0] = static_cast<std::uint16_t>(p);
        return block_contains(*o.entry, o.payload, p) == Keep ? 1 : 0;
    }
    if (o.entry->count == 1) {  // the other block's lone position, merged
        const auto q = static_cast<std::uint16_t>(first_position(*o.entry, o.payload, len));
        position_buffer<> buffer;
        const std::uint16_t* p = positions_of(s, len, buffer.data(), k);
        return filter_by_list<Keep>(p, s.entry->count, &q, 1, out);
    }
    position_buffer<> buffer;
    const std::uint16_t* p = positions_of(s, len, buffer.data(), k);
    scratch_bits scratch;
    return filter_by_bits<Keep>(p, s.entry->count, bits_of(o, len, scratch, k), out);
}

// Two blocks through a whole-block kernel, straight into the output arena.
template <class Kernel>
void kernel_into(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_ref& b,
                 const bitset_kernel_table& k, Kernel kernel) {
    scratch_bits sa, sb;
    const std::byte* x = bits_of(a, len, sa, k);
    const std::byte* y = bits_of(b, len, sb, k);
    const block_stats st = kernel(x, y, out.room());
    out.add_room(block, st, k);
}

}  // namespace

match_chunk_fn match_chunk_for(const bitset_kernel_table& k) noexcept {
#if defined(BITPLANE_X86)
    if (k.path >= simd_path::avx2) return avx2_match_chunk();
#endif
    (void)k;
    return match_chunk_portable;
}

void and_blocks(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_ref& b,
                const block_context& c) {
    const bitset_kernel_table& k = c.kernels;
    const bool sa = is_sparse(a.entry->kind), sb = is_sparse(b.entry->kind);
    if (sa || sb) {
        // Filter the sparse side with fewer bits by the other.
        const bool left = sa && (!sb || a.entry->count <= b.entry->count);
        position_buffer<> result;
        const std::uint32_t n = filter<true>(left ? a : b, left ? b : a, len, result.data(), k);
        out.add_positions(block, result.data(), n);
        return;
    }
    if (a.entry->kind == block_kind::runs && b.entry->kind == block_kind::runs) {
        std::uint16_t runs[2 * max_runs];
        std::uint32_t count = 0;
        const std::uint32_t n = intersect_runs(runs_of(a), a.entry->items, runs_of(b), b.entry->items, runs, count);
        out.add_runs(block, runs, n, count, k);
        return;
    }
    kernel_into(out, block, len, a, b, k, k.and_blocks);
}

void andnot_blocks(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_ref& b,
                   const block_context& c) {
    const bitset_kernel_table& k = c.kernels;
    if (is_sparse(a.entry->kind)) {
        position_buffer<> result;
        const std::uint32_t n = filter<false>(a, b, len, result.data(), k);
        out.add_positions(block, result.data(), n);
        return;
    }
    if (a.entry->kind == block_kind::runs && b.entry->kind == block_kind::runs) {
        std::uint16_t gaps[2 * max_runs], runs[4 * max_runs];
        const std::uint32_t g = complement_runs(runs_of(b), b.entry->items, len, gaps);
        std::uint32_t count = 0;
        const std::uint32_t n = intersect_runs(runs_of(a), a.entry->items, gaps, g, runs, count);
        out.add_runs(block, runs, n, count, k);
        return;
    }
    kernel_into(out, block, len, a, b, k, k.andnot_blocks);
}

std::uint32_t and_count_blocks(std::uint32_t len, const block_ref& a, const block_ref& b, const block_context& c) {
    const bitset_kernel_table& k = c.kernels;
    const bool sa = is_sparse(a.entry->kind), sb = is_sparse(b.entry->kind);
    if (sa || sb) {
        const bool left = sa && (!sb || a.entry->count <= b.entry->count);
        const block_ref& s = left ? a : b;
        const block_ref& o = left ? b : a;
        std::uint32_t found;
        if (s.entry->kind == block_kind::positions && o.entry->kind == block_kind::positions &&
            count_position_pairs(runs_of(s), s.entry->items, runs_of(o), o.entry->items, match_chunk_for(k), found))
            return found;
        if (s.entry->count == 1)
            return block_contains(*o.entry, o.payload, first_position(*s.entry, s.payload, len)) ? 1 : 0;
        position_buffer<> buffer;
        scratch_bits scratch;
        return count_by_bits(positions_of(s, len, buffer.data(), k), s.entry->count, bits_of(o, len, scratch, k));
    }
    if (a.entry->kind == block_kind::runs && b.entry->kind == block_kind::runs)
        return overlap_runs(runs_of(a), a.entry->items, runs_of(b), b.entry->items);
    scratch_bits sa_bits, sb_bits;
    return k.and_count(bits_of(a, len, sa_bits, k), bits_of(b, len, sb_bits, k));
}

}  // namespace bitplane::detail
