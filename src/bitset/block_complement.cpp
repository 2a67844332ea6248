// NOT of a stored block. A runs block's complement is its bound list with 0 and len toggled
// (no plane); any other block goes through the kernel, whose result a full-length block writes
// straight into the output's arena, counted in the same pass (core_writer::add_computed). The
// complement of a sparse block has few runs (a block missing one bit is two runs, 8 bytes),
// which the kernel's transition count finds without a second pass.
#include "bitset/block_spread.hpp"

namespace bitplane::detail {

void not_block(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_context& c) {
    const bitset_kernel_table& k = c.kernels;
    if (a.entry->kind == block_kind::runs) {
        const std::uint32_t runs = a.entry->items;
        std::uint16_t bounds[block_values + 8];
        std::uint32_t n = 0;
        const std::uint32_t first = load_le<std::uint16_t>(a.payload);
        const std::uint32_t last = load_le<std::uint16_t>(a.payload + 4 * runs - 2);
        if (first != 0) bounds[n++] = 0;
        for (std::uint32_t i = first == 0 ? 1 : 0; i < 2 * runs; ++i) {
            if (i == 2 * runs - 1 && last == len) break;
            bounds[n++] = load_le<std::uint16_t>(a.payload + 2 * i);
        }
        if (last != len) bounds[n++] = static_cast<std::uint16_t>(len);
        out.add_runs(block, bounds, n / 2, len - a.entry->count);
        return;
    }
    plane scratch;
    const void* bits = spread_block(a, len, scratch, k);
    if (len == block_values) {
        out.add_computed(block, [&](std::byte* at) { return k.not_block(bits, at); });
        return;
    }
    plane result;  // bits at or beyond the length stay clear
    k.not_block(bits, result.data());
    clear_from(result, len);
    out.add_plane(block, result, k.stats(result.data()));
}

}  // namespace bitplane::detail
