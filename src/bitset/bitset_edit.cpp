// Range edits and bulk additions of a bitset (bitset.hpp, "ranges and edits").
//
// A range within one or two blocks is applied to those blocks' planes and each is re-encoded
// once (bitset_core::edit_block_range). A longer range becomes a bitset of its own (its middle
// blocks full: one summary bit each) combined with this one by the set algebra, which walks
// the summary words and copies untouched blocks: one pass instead of a re-encode and a
// summary update per block. Bulk additions sort and deduplicate the positions, build a bitset
// from them (each block encoded once) and unite it with this one.
#include "bitset/bitset_core.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/error.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace bitplane {

namespace detail {

namespace {

constexpr std::uint64_t block_bits64 = block_values;

enum : int { op_add = 0, op_remove = 1, op_flip = 2 };

// Bits [lo, hi) of a plane set, cleared or flipped.
void apply_range(plane& bits, std::uint32_t lo, std::uint32_t hi, int op) noexcept {
    plane mask{};
    flip_range(mask, lo, hi);
    for (std::size_t w = 0; w < plane_words; ++w) {
        switch (op) {
            case op_add: bits[w] |= mask[w]; break;
            case op_remove: bits[w] &= ~mask[w]; break;
            default: bits[w] ^= mask[w]; break;
        }
    }
}

// The bitset of [begin, end) over [0, size) (begin < end <= size).
bitset range_set(std::uint64_t size, std::uint64_t begin, std::uint64_t end) {
    const std::size_t first = static_cast<std::size_t>(begin / block_bits64);
    const std::size_t last = static_cast<std::size_t>((end - 1) / block_bits64);
    core_writer out(size, 2, 2 * block_values / 8);
    for (std::size_t b = first; b <= last; ++b) {
        const std::uint64_t base = std::uint64_t{b} * block_bits64;
        const std::uint32_t len = out.block_len(b);
        const auto lo = static_cast<std::uint32_t>(std::max(begin, base) - base);
        const auto hi = static_cast<std::uint32_t>(std::min(end, base + len) - base);
        if (lo == 0 && hi == len) {
            out.add_full(b);
        } else {
            plane bits{};
            flip_range(bits, lo, hi);
            out.add_plane(b, bits, bitset_kernels().stats(bits.data()));
        }
    }
    return bitset_access::make(out.finish());
}

// Bits [begin, end) (checked, non-empty) set, cleared or flipped (`op`): a range within one or
// two blocks edits each block once in place; a longer one goes to `algebra` with the range's
// own bitset (one pass of set algebra; full blocks cost a summary bit each).
template <class Algebra>
void edit_range(bitset_core& core, std::uint64_t begin, std::uint64_t end, int op, Algebra&& algebra) {
    const std::uint64_t first = begin / block_bits64, last = (end - 1) / block_bits64;
    if (last - first >= 2) return algebra(range_set(core.size(), begin, end));
    for (std::uint64_t b = first; b <= last; ++b) {
        const std::uint64_t base = b * block_bits64;
        const std::uint64_t lo = std::max<std::uint64_t>(begin, base) - base;
        const std::uint64_t hi = std::min<std::uint64_t>(end - base, block_bits64);
        core.edit_block_range(static_cast<std::size_t>(b), static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(hi), op);
    }
}

}  // namespace

void bitset_core::edit_block_range(std::size_t b, std::uint32_t lo, std::uint32_t hi, int op) {
    plane bits;
    block_plane(b, bits);
    apply_range(bits, lo, hi, op);
    replace_block(b, bits, bitset_kernels().stats(bits.data()));
}

}  // namespace detail

namespace {

void check_range(const char* what, std::uint64_t begin, std::uint64_t end, std::uint64_t size) {
    if (begin > end || end > size)
        throw index_error(std::string("bitset::") + what + ": range [" + std::to_string(begin) + ", " +
                          std::to_string(end) + ") not within [0, " + std::to_string(size) + ")");
}

}  // namespace

void bitset::add_range(size_type begin, size_type end) {
    check_range("add_range", begin, end, size());
    if (begin == end) return;
    detail::edit_range(*core_, begin, end, detail::op_add, [&](const bitset& r) { *this |= r; });
}

void bitset::remove_range(size_type begin, size_type end) {
    check_range("remove_range", begin, end, size());
    if (begin == end) return;
    detail::edit_range(*core_, begin, end, detail::op_remove, [&](const bitset& r) { subtract(r); });
}

void bitset::flip_range(size_type begin, size_type end) {
    check_range("flip_range", begin, end, size());
    if (begin == end) return;
    detail::edit_range(*core_, begin, end, detail::op_flip, [&](const bitset& r) { *this ^= r; });
}

std::uint64_t bitset::count_range(size_type begin, size_type end) const {
    check_range("count_range", begin, end, size());
    const detail::bitset_core& c = detail::core_of(*this);
    return c.rank(end) - c.rank(begin);
}

bool bitset::contains_range(size_type begin, size_type end) const {
    check_range("contains_range", begin, end, size());
    const detail::bitset_core& c = detail::core_of(*this);
    return c.rank(end) - c.rank(begin) == end - begin;
}

namespace {

template <class T>
void add_sorted(bitset& s, std::vector<std::uint64_t>& sorted, std::span<const T> positions) {
    const std::uint64_t size = s.size();
    for (std::size_t i = 0; i < positions.size(); ++i)
        if (positions[i] >= size)
            throw index_error("bitset::add_many: position " + std::to_string(positions[i]) + " at index " +
                              std::to_string(i) + " outside [0, " + std::to_string(size) + ")");
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    // A few: one set() each (no pass over the summary).
    if (sorted.size() <= 4) {
        for (std::uint64_t p : sorted) s.set(p);
        return;
    }
    s |= bitset::from_positions(sorted, size);
}

}  // namespace

void bitset::add_many(std::span<const std::uint32_t> positions) {
    std::vector<std::uint64_t> sorted(positions.begin(), positions.end());
    add_sorted(*this, sorted, positions);
}

void bitset::add_many(std::span<const std::uint64_t> positions) {
    std::vector<std::uint64_t> sorted(positions.begin(), positions.end());
    add_sorted(*this, sorted, positions);
}

}  // namespace bitplane
