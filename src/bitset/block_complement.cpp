// NOT of a stored block: the kernel on the block as a plane. The complement of a sparse block
// has few runs (a block missing one bit is two runs, 8 bytes), which the kernel's transition
// count finds without a second pass.
#include "bitset/bitset_algebra.hpp"

namespace bitplane::detail {

void not_block(core_writer& out, std::size_t block, std::uint32_t len, const block_ref& a, const block_context& c) {
    plane scratch, result;
    const bitset_kernel_table& k = c.kernels;
    block_stats st = k.not_block(block_bytes_view(a, len, scratch, k), result.data());
    if (len < block_values) {  // bits at or beyond the length stay clear
        clear_from(result, len);
        st = k.stats(result.data());
    }
    out.add_plane(block, result, st);
}

}  // namespace bitplane::detail
