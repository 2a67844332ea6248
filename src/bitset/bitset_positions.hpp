// Every set position of a bitset's storage into an array of 64- or 32-bit positions: the block
// walk of bitset_out.hpp over the whole set.
#pragma once

#include "bitset/bitset_out.hpp"

#include <cstdint>

namespace bitplane::detail {

/// Writes the set positions of `c` to out[0, c.count()) (T = uint32_t only when c.size() <= 2^32),
/// nothing past.
template <class T>
void write_positions(const bitset_core& c, T* out, const bitset_kernel_table& k) noexcept {
    out_cursor cur = out_cursor::at_start(c);
    T* const end = out + c.count();
    write_blocks(c, cur, 0, out, end, end, c.block_count(), k);
}

}  // namespace bitplane::detail
