// Many-way OR and AND of bitsets (include/bitplane/bitset.hpp, "many-way").
//
// OR walks the summary words once: a block full in any set is full; a block stored in one set
// only is copied; otherwise every stored operand is OR-ed into one plane by the kernel and the
// last OR writes the result straight into the output's arena (core_writer::add_computed).
// AND folds pairwise from the smallest set, whose result bounds every later one.
#include "bitset/block_spread.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/error.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace bitplane {

namespace {

void check_same_sizes(std::span<const bitset* const> sets, const char* op) {
    for (const bitset* s : sets)
        if (s->size() != sets[0]->size())
            throw size_error(std::string("bitset ") + op + ": sizes differ (" + std::to_string(sets[0]->size()) +
                             " and " + std::to_string(s->size()) + ")");
}

}  // namespace

bitset unite(std::span<const bitset* const> sets) {
    using namespace detail;
    if (sets.empty()) return bitset();
    check_same_sizes(sets, "unite");
    if (sets.size() == 1) return *sets[0];
    const bitset_core& first = core_of(*sets[0]);
    const std::size_t words = first.words().size();
    std::size_t entries_hint = 0, arena_hint = 0;
    for (std::size_t w = 0; w < words; ++w) {
        std::uint64_t m = 0;
        for (const bitset* s : sets) m |= core_of(*s).words()[w].nonempty;
        entries_hint += popcount64(m);
    }
    for (const bitset* s : sets) arena_hint += core_of(*s).payload_bytes();
    arena_hint = std::min(arena_hint, entries_hint * (block_values / 8));
    core_writer out(first.size(), entries_hint, arena_hint);
    const bitset_kernel_table& k = bitset_kernels();
    std::vector<const bitset_core*> cores;
    for (const bitset* s : sets) cores.push_back(&core_of(*s));
    std::vector<block_ref> stored;
    plane acc, scratch;
    for (std::size_t w = 0; w < words; ++w) {
        std::uint64_t any = 0, full = 0;
        for (const bitset_core* c : cores) {
            any |= c->words()[w].nonempty;
            full |= c->words()[w].full;
        }
        for (std::uint64_t m = any; m != 0; m &= m - 1) {
            const unsigned bit = lowest_bit(m);
            const std::size_t blk = 64 * w + bit;
            if ((full >> bit) & 1) {
                out.add_full(blk);
                continue;
            }
            stored.clear();
            for (const bitset_core* c : cores) {
                if (!((c->words()[w].nonempty >> bit) & 1)) continue;
                const block_entry& e = c->entries()[c->entry_index(blk)];
                stored.push_back({&e, c->payload(e)});
            }
            const std::uint32_t len = first.block_len(blk);
            if (stored.size() == 1) {
                out.add_copy(blk, *stored[0].entry, stored[0].payload);
                continue;
            }
            // acc = OR of all but the last; the last OR lands in the arena.
            const void* x = spread_block(stored[0], len, acc, k);
            for (std::size_t i = 1; i + 1 < stored.size(); ++i) {
                k.or_blocks(x, spread_block(stored[i], len, scratch, k), acc.data());
                x = acc.data();
            }
            const void* y = spread_block(stored.back(), len, scratch, k);
            out.add_computed(blk, [&](std::byte* at) { return k.or_blocks(x, y, at); });
        }
    }
    return detail::bitset_access::make(out.finish());
}

bitset intersect(std::span<const bitset* const> sets) {
    if (sets.empty()) return bitset();
    check_same_sizes(sets, "intersect");
    std::vector<const bitset*> order(sets.begin(), sets.end());
    std::stable_sort(order.begin(), order.end(),
                     [](const bitset* a, const bitset* b) { return a->count() < b->count(); });
    if (order.size() == 1) return *order[0];
    bitset result = *order[0] & *order[1];
    for (std::size_t i = 2; i < order.size() && result.any(); ++i) result &= *order[i];
    return result;
}

}  // namespace bitplane
