// Relations between two bitsets: intersects, is_subset (each stops at the first block that
// settles the answer) and the Jaccard index. Walked on the summary as the set algebra is
// (bitset_algebra.cpp): empty and full blocks are settled by word operations, only pairs of
// stored blocks reach a block operation (the AND-count of block_intersection.cpp).
#include "bitset/bitset_algebra.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/error.hpp>

#include <string>

namespace bitplane {

namespace {

using detail::bitset_core;
using detail::block_entry;
using detail::block_ref;
using detail::summary_word;

void check_sizes(const bitset_core& a, const bitset_core& b, const char* op) {
    if (a.size() != b.size())
        throw size_error(std::string("bitset ") + op + ": sizes differ (" + std::to_string(a.size()) + " and " +
                         std::to_string(b.size()) + ")");
}

// Stored block `bit` of summary word w of core c.
block_ref stored_ref(const bitset_core& c, const summary_word& w, unsigned bit) noexcept {
    const std::uint64_t stored = w.nonempty & ~w.full;
    const block_entry& e = c.entries()[w.stored_before + detail::popcount64(detail::below(stored, bit))];
    return {&e, c.payload(e)};
}

}  // namespace

bool intersects(const bitset& a, const bitset& b) {
    const bitset_core& x = detail::core_of(a);
    const bitset_core& y = detail::core_of(b);
    check_sizes(x, y, "intersects");
    const std::vector<summary_word>& wx = x.words();
    const std::vector<summary_word>& wy = y.words();
    const detail::block_context ctx{detail::bitset_kernels()};
    for (std::size_t w = 0; w < wx.size(); ++w) {
        const std::uint64_t both = wx[w].nonempty & wy[w].nonempty;
        if (both == 0) continue;
        if ((both & (wx[w].full | wy[w].full)) != 0) return true;  // a full block meets a non-empty one
        for (std::uint64_t m = both; m != 0; m &= m - 1) {
            const unsigned bit = detail::lowest_bit(m);
            const std::uint32_t len = x.block_len(64 * w + bit);
            if (detail::and_count_blocks(len, stored_ref(x, wx[w], bit), stored_ref(y, wy[w], bit), ctx) != 0) return true;
        }
    }
    return false;
}

bool is_subset(const bitset& a, const bitset& b) {
    const bitset_core& x = detail::core_of(a);
    const bitset_core& y = detail::core_of(b);
    check_sizes(x, y, "is_subset");
    if (x.count() > y.count()) return false;
    const std::vector<summary_word>& wx = x.words();
    const std::vector<summary_word>& wy = y.words();
    const detail::block_context ctx{detail::bitset_kernels()};
    for (std::size_t w = 0; w < wx.size(); ++w) {
        const summary_word& u = wx[w];
        const summary_word& v = wy[w];
        // A block of a non-empty where b's is empty, or full where b's is not.
        if ((u.nonempty & ~v.nonempty) != 0 || (u.full & ~v.full) != 0) return false;
        // Stored in both: a's bits all in b's (a block of a under a full one of b is inside it).
        for (std::uint64_t m = u.nonempty & ~u.full & ~v.full; m != 0; m &= m - 1) {
            const unsigned bit = detail::lowest_bit(m);
            const block_ref ra = stored_ref(x, u, bit), rb = stored_ref(y, v, bit);
            if (ra.entry->count > rb.entry->count) return false;
            const std::uint32_t len = x.block_len(64 * w + bit);
            if (detail::and_count_blocks(len, ra, rb, ctx) != ra.entry->count) return false;
        }
    }
    return true;
}

double jaccard(const bitset& a, const bitset& b) {
    const std::uint64_t both = and_count(a, b);  // checks the sizes
    const std::uint64_t either = a.count() + b.count() - both;
    return either == 0 ? 1.0 : static_cast<double>(both) / static_cast<double>(either);
}

}  // namespace bitplane
