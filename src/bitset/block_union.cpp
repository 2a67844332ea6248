// OR and XOR of two stored blocks: the union of their sorted positions when both are sparse
// and small (bitset_kernels.hpp), otherwise the SIMD kernel on the two blocks as planes.
#include "bitset/bitset_algebra.hpp"

namespace bitplane::detail {

namespace {


template <bool Xor>
void unite(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_ref& b,
           const block_context& c) {
    const bitset_kernel_table& k = c.kernels;
    if (is_sparse(a.entry->kind) && is_sparse(b.entry->kind) &&
        std::uint32_t{a.entry->count} + b.entry->count <= thresholds::bitset_merge_max_items) {
        constexpr std::uint32_t most = thresholds::bitset_merge_max_items;
        position_buffer<most> pa, pb;
        position_buffer<most + 24> result;
        const std::uint32_t n = block_positions(*a.entry, a.payload, len, pa.data(), k);
        const std::uint32_t m = block_positions(*b.entry, b.payload, len, pb.data(), k);
        std::uint32_t size;
        if (n + m <= thresholds::bitset_few_items) {
            size = merge_positions<Xor>(pa.data(), n, pb.data(), m, result.data());
        } else {
            size = Xor ? k.xor_positions(pa.data(), n, pb.data(), m, result.data())
                       : k.union_positions(pa.data(), n, pb.data(), m, result.data());
        }
        out.add_positions(block, result.data(), size);
        return;
    }
    plane sa, sb, result;
    const void* x = block_bytes_view(a, len, sa, k);
    const void* y = block_bytes_view(b, len, sb, k);
    const block_stats st = Xor ? k.xor_blocks(x, y, result.data()) : k.or_blocks(x, y, result.data());
    out.add_plane(block, result, st);
}

}  // namespace

void or_blocks(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_ref& b,
               const block_context& c) {
    unite<false>(out, block, len, a, b, c);
}

void xor_blocks(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_ref& b,
                const block_context& c) {
    unite<true>(out, block, len, a, b, c);
}

}  // namespace bitplane::detail
