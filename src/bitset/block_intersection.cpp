// AND, AND-count and ANDNOT of two stored blocks. The result is a subset of the left (ANDNOT)
// or of the smaller (AND) operand, so a sparse operand is never spread into a plane: its
// positions are filtered against the other block, by a tagged vector merge when both are
// sparse (bitset_kernels.hpp), by bit probes into a raw block, or into a plane spread from runs.
#include "bitset/bitset_algebra.hpp"

namespace bitplane::detail {

namespace {

// Keeps the positions s[0..n) that are (Keep) or are not (!Keep) in the sorted positions
// t[0..m); returns how many remain. Branch-free merge steps, for a few positions.
template <bool Keep>
std::uint32_t filter_by_list(std::uint16_t* s, std::uint32_t n, const std::uint16_t* t, std::uint32_t m) noexcept {
    std::uint32_t i = 0, j = 0, k = 0;
    while (i < n && j < m) {
        const std::uint16_t x = s[i], y = t[j];
        s[k] = x;
        k += Keep ? (x == y) : (x < y);
        i += x <= y;
        j += y <= x;
    }
    if (!Keep)
        while (i < n) s[k++] = s[i++];
    return k;
}

// Keeps the positions whose bit in `bits` (256 bytes, raw bit order) is (Keep) or is not set.
template <bool Keep>
std::uint32_t filter_by_bits(std::uint16_t* s, std::uint32_t n, const std::byte* bits) noexcept {
    std::uint32_t k = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t p = s[i];
        const std::uint32_t set = (static_cast<std::uint32_t>(bits[p >> 3]) >> (p & 7)) & 1u;
        s[k] = static_cast<std::uint16_t>(p);
        k += Keep ? set : set ^ 1u;
    }
    return k;
}

// The positions of sparse block `s` that are (Keep) or are not in block `o`, into `out` (a
// position_buffer); returns how many.
template <bool Keep>
std::uint32_t filter(const block_ref& s, const block_ref& o, std::uint32_t len, std::uint16_t* out,
                     const bitset_kernel_table& k) {
    const block_entry& e = *o.entry;
    if (is_sparse(e.kind)) {
        position_buffer<> ps, po;
        const std::uint32_t n = block_positions(*s.entry, s.payload, len, ps.data(), k);
        const std::uint32_t m = block_positions(e, o.payload, len, po.data(), k);
        if (std::uint64_t{n} * m <= thresholds::bitset_pairwise_max_product) {
            const std::uint32_t kept = filter_by_list<Keep>(ps.data(), n, po.data(), m);
            std::memcpy(out, ps.data(), 2u * kept);
            return kept;
        }
        return Keep ? k.and_positions(ps.data(), n, po.data(), m, out) : k.andnot_positions(ps.data(), n, po.data(), m, out);
    }
    const std::uint32_t n = block_positions(*s.entry, s.payload, len, out, k);
    if (e.kind == block_kind::raw) return filter_by_bits<Keep>(out, n, o.payload);
    plane spread{};
    block_to_plane(e, o.payload, len, spread, k);
    return filter_by_bits<Keep>(out, n, reinterpret_cast<const std::byte*>(spread.data()));
}

void add_single(core_writer& out, std::size_t block, std::uint32_t p) {
    position_buffer<1> buffer;
    buffer.data()[0] = static_cast<std::uint16_t>(p);
    out.add_positions(block, buffer.data(), 1);
}

}  // namespace

void and_blocks(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_ref& b,
                const block_context& c) {
    if (a.entry->count == 1 || b.entry->count == 1) {  // a lone bit probes the other block
        const bool left = a.entry->count == 1;
        const block_ref& s = left ? a : b;
        const block_ref& o = left ? b : a;
        const std::uint32_t p = first_position(*s.entry, s.payload, len);
        if (block_contains(*o.entry, o.payload, p)) add_single(out, block, p);
        return;
    }
    const bool sa = is_sparse(a.entry->kind), sb = is_sparse(b.entry->kind);
    if (sa || sb) {
        // Filter the sparse side with fewer bits by the other.
        const bool left = sa && (!sb || a.entry->count <= b.entry->count);
        position_buffer<> result;
        const std::uint32_t n = filter<true>(left ? a : b, left ? b : a, len, result.data(), c.kernels);
        out.add_positions(block, result.data(), n);
        return;
    }
    plane sa_plane, sb_plane, result;
    const bitset_kernel_table& k = c.kernels;
    const block_stats st =
        k.and_blocks(block_bytes_view(a, len, sa_plane, k), block_bytes_view(b, len, sb_plane, k), result.data());
    out.add_plane(block, result, st);
}

void andnot_blocks(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_ref& b,
                   const block_context& c) {
    if (a.entry->count == 1) {
        const std::uint32_t p = first_position(*a.entry, a.payload, len);
        if (!block_contains(*b.entry, b.payload, p)) add_single(out, block, p);
        return;
    }
    if (is_sparse(a.entry->kind)) {
        position_buffer<> result;
        const std::uint32_t n = filter<false>(a, b, len, result.data(), c.kernels);
        out.add_positions(block, result.data(), n);
        return;
    }
    plane sa_plane, sb_plane, result;
    const bitset_kernel_table& k = c.kernels;
    const block_stats st =
        k.andnot_blocks(block_bytes_view(a, len, sa_plane, k), block_bytes_view(b, len, sb_plane, k), result.data());
    out.add_plane(block, result, st);
}

std::uint32_t and_count_blocks(std::uint32_t len, const block_ref& a, const block_ref& b, const block_context& c) {
    if (a.entry->count == 1 || b.entry->count == 1) {
        const bool left = a.entry->count == 1;
        const block_ref& s = left ? a : b;
        const block_ref& o = left ? b : a;
        return block_contains(*o.entry, o.payload, first_position(*s.entry, s.payload, len)) ? 1 : 0;
    }
    const bool sa = is_sparse(a.entry->kind), sb = is_sparse(b.entry->kind);
    if (sa || sb) {
        const bool left = sa && (!sb || a.entry->count <= b.entry->count);
        position_buffer<> result;
        return filter<true>(left ? a : b, left ? b : a, len, result.data(), c.kernels);
    }
    plane sa_plane, sb_plane;
    const bitset_kernel_table& k = c.kernels;
    return k.and_count(block_bytes_view(a, len, sa_plane, k), block_bytes_view(b, len, sb_plane, k));
}

}  // namespace bitplane::detail
