// Set algebra, walked on the summary: for each 64-block summary word, the blocks an operation
// can produce are found with word operations on the non-empty and full masks (AND visits
// only blocks non-empty on both sides), empty and full blocks are settled without reading
// any payload (a full block ANDed with a stored one is that stored block, copied as is), and
// only pairs of stored blocks reach the block operations of block_*.cpp. Results are written
// in block order by a core_writer, each block in the encoding its contents choose.
#include "bitset/bitset_algebra.hpp"
#include "bitset/block_pairs.hpp"
#include "bitset/block_spread.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/error.hpp>

#include <algorithm>
#include <bit>
#include <new>
#include <string>

namespace bitplane {

namespace detail {

namespace {

enum block_state : unsigned { empty_block = 0, full_block = 1, stored_block = 2 };

// State of block `bit` of a summary word, and its stored entry when it has one.
struct block_view {
    block_state state;
    block_ref ref;
};

inline block_view view_of(const bitset_core& c, const summary_word& w, unsigned bit) noexcept {
    if ((w.full >> bit) & 1) return {full_block, {}};
    const std::uint64_t stored = w.nonempty & ~w.full;
    if (!((stored >> bit) & 1)) return {empty_block, {}};
    // Every block of the word stored (dense and 1% sets): the rank is the bit itself.
    const std::uint64_t rank = stored == ~std::uint64_t{0} ? bit : popcount64(below(stored, bit));
    const block_entry& e = c.entries()[w.stored_before + rank];
    return {stored_block, {&e, c.payload(e)}};
}

constexpr unsigned pair(block_state a, block_state b) noexcept { return 3 * a + b; }

// Two positions blocks whose sizes make comparing every pair pay (block_pairs.hpp): filtered
// here, without the general block operation's set-up; false when they go the general way.
template <bool Keep>
inline bool filter_positions_pair(core_writer& out, std::size_t blk, const block_ref& a, const block_ref& b,
                                  const block_context& c) {
    if (a.entry->kind != block_kind::positions || b.entry->kind != block_kind::positions) return false;
    position_buffer<thresholds::bitset_positions_max_count> result;
    std::uint32_t n;
    if (!filter_position_pairs<Keep>(reinterpret_cast<const std::uint16_t*>(a.payload), a.entry->items,
                                     reinterpret_cast<const std::uint16_t*>(b.payload), b.entry->items,
                                     match_chunk_for(c.kernels), result.data(), n))
        return false;
    // A result equal to an operand (ANDNOT removing nothing, AND of a subset) is that block as
    // stored: copied without re-encoding.
    if (n == a.entry->items) {
        out.add_copy(blk, *a.entry, a.payload);
    } else if (Keep && n == b.entry->items) {
        out.add_copy(blk, *b.entry, b.payload);
    } else {
        out.add_positions(blk, result.data(), n);
    }
    return true;
}

// ---- stretches of raw x raw blocks ---------------------------------------------------------
// Dense sets store word after word of raw blocks, one after the other in their arenas. Such a
// stretch (within one summary word) goes to one kernel call writing straight into the output
// arena (core_writer::add_raw_stretch) or to one AND-count span, instead of a call and a walk
// step per block.

using stretch_kernel = void (*)(const void*, const void*, void*, std::size_t, block_stats*);

// Blocks from `bit` on (at most `limit` >= 1), stored on both sides (`both`), raw on both sides,
// whose payloads follow one another in both arenas; ea, eb are the entries of block `bit`, a
// raw pair of full length.
inline unsigned raw_stretch_length(const block_entry* ea, const block_entry* eb, std::uint64_t both, unsigned bit,
                                   std::size_t limit) noexcept {
    const auto run = static_cast<unsigned>(std::min<std::size_t>(std::countr_one(both >> bit), limit));
    unsigned n = 1;
    constexpr std::uint64_t bytes = block_values / 8;
    while (n < run && ea[n].kind == block_kind::raw && eb[n].kind == block_kind::raw &&
           ea[n].offset == ea->offset + bytes * n && eb[n].offset == eb->offset + bytes * n)
        ++n;
    return n;
}

// m without the blocks after `bit` of a stretch of n from `bit` (the walk's m &= m - 1 takes
// `bit` itself).
inline std::uint64_t past_stretch(std::uint64_t m, unsigned bit, unsigned n) noexcept {
    const std::uint64_t span = n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
    return m & ~((span << bit) & ~(std::uint64_t{1} << bit));
}

// Full-length blocks before this one (the last block may be short).
inline std::size_t full_blocks(const bitset_core& a) noexcept {
    return a.size() % block_values == 0 ? a.block_count() : a.block_count() - 1;
}

// The stretch of raw x raw blocks from block `bit` of word w (entries ea, eb), written by
// `kernel`; how many blocks (0: none, the walk goes on with this block).
inline unsigned add_stretch(core_writer& out, const bitset_core& a, const bitset_core& b, const block_entry* ea,
                            const block_entry* eb, std::uint64_t both, std::size_t w, unsigned bit,
                            stretch_kernel kernel) {
    if (ea->kind != block_kind::raw || eb->kind != block_kind::raw) return 0;
    const std::size_t blk = 64 * w + bit;
    if (blk >= full_blocks(a)) return 0;
    const unsigned n = raw_stretch_length(ea, eb, both, bit, full_blocks(a) - blk);
    const std::byte* pa = a.arena() + ea->offset;
    const std::byte* pb = b.arena() + eb->offset;
    out.add_raw_stretch(blk, n, [&](std::byte* at, block_stats* stats) { kernel(pa, pb, at, n, stats); });
    return n;
}

// combine()'s hook: the stretch from block `bit` when it is stored on both sides.
inline unsigned combine_stretch(core_writer& out, const bitset_core& a, const bitset_core& b, const summary_word& x,
                                const summary_word& y, std::size_t w, unsigned bit, stretch_kernel kernel) {
    const std::uint64_t sx = x.nonempty & ~x.full, sy = y.nonempty & ~y.full;
    if (!(((sx & sy) >> bit) & 1)) return 0;
    const block_entry* ea = a.entries().data() + x.stored_before + popcount64(below(sx, bit));
    const block_entry* eb = b.entries().data() + y.stored_before + popcount64(below(sy, bit));
    return add_stretch(out, a, b, ea, eb, sx & sy, w, bit, kernel);
}

struct and_op {
    static stretch_kernel stretch(const bitset_kernel_table& k) noexcept { return k.and_stretch; }
    static std::uint64_t visit(const summary_word& a, const summary_word& b) noexcept { return a.nonempty & b.nonempty; }
    static std::size_t arena_hint(const bitset_core& a, const bitset_core& b) noexcept {
        return std::min(a.payload_bytes(), b.payload_bytes());
    }
    static void apply(core_writer& out, std::size_t blk, std::uint32_t len, const block_view& a, const block_view& b,
                      const block_context& c) {
        switch (pair(a.state, b.state)) {
            case pair(full_block, full_block): out.add_full(blk); break;
            case pair(full_block, stored_block): out.add_copy(blk, *b.ref.entry, b.ref.payload); break;
            case pair(stored_block, full_block): out.add_copy(blk, *a.ref.entry, a.ref.payload); break;
            case pair(stored_block, stored_block):
                if (filter_positions_pair<true>(out, blk, a.ref, b.ref, c)) break;
                if (a.ref.entry->kind == block_kind::raw && b.ref.entry->kind == block_kind::raw && len == block_values) {
                    // Two raw blocks: one kernel pass straight into the output arena.
                    out.add_room(blk, c.kernels.and_blocks(a.ref.payload, b.ref.payload, out.room()), c.kernels);
                } else {
                    and_blocks(out, blk, len, a.ref, b.ref, c);
                }
                break;
            default: break;
        }
    }
};

struct andnot_op {
    static stretch_kernel stretch(const bitset_kernel_table& k) noexcept { return k.andnot_stretch; }
    static std::uint64_t visit(const summary_word& a, const summary_word&) noexcept { return a.nonempty; }
    static std::size_t arena_hint(const bitset_core& a, const bitset_core&) noexcept { return a.payload_bytes(); }
    static void apply(core_writer& out, std::size_t blk, std::uint32_t len, const block_view& a, const block_view& b,
                      const block_context& c) {
        switch (pair(a.state, b.state)) {
            case pair(full_block, empty_block): out.add_full(blk); break;
            case pair(full_block, stored_block): not_block(out, blk, len, b.ref, c); break;
            case pair(stored_block, empty_block): out.add_copy(blk, *a.ref.entry, a.ref.payload); break;
            case pair(stored_block, stored_block):
                if (filter_positions_pair<false>(out, blk, a.ref, b.ref, c)) break;
                if (a.ref.entry->kind == block_kind::raw && b.ref.entry->kind == block_kind::raw && len == block_values) {
                    out.add_room(blk, c.kernels.andnot_blocks(a.ref.payload, b.ref.payload, out.room()), c.kernels);
                } else {
                    andnot_blocks(out, blk, len, a.ref, b.ref, c);
                }
                break;
            default: break;  // anything minus a full block, full minus full: empty
        }
    }
};

void check_sizes(const bitset_core& a, const bitset_core& b, const char* op) {
    if (a.size() != b.size())
        throw size_error(std::string("bitset ") + op + ": sizes differ (" + std::to_string(a.size()) + " and " +
                         std::to_string(b.size()) + ")");
}

template <class Op>
std::unique_ptr<bitset_core> combine(const bitset_core& a, const bitset_core& b, const char* name) {
    check_sizes(a, b, name);
    const std::vector<summary_word>& wa = a.words();
    const std::vector<summary_word>& wb = b.words();
    std::size_t entries_hint = 0;
    for (std::size_t w = 0; w < wa.size(); ++w) entries_hint += popcount64(Op::visit(wa[w], wb[w]));
    // No stored block is larger than raw (256 bytes). A close hint matters beyond saving a copy:
    // glibc serves requests above its (adaptive) mmap threshold with fresh pages, whose page
    // faults cost as much as the operation itself on dense sets.
    const std::size_t arena_hint = std::min(Op::arena_hint(a, b), entries_hint * (block_values / 8));
    core_writer out(a.size(), entries_hint, arena_hint);
    const block_context ctx{bitset_kernels()};
    const stretch_kernel stretch = Op::stretch(ctx.kernels);
    for (std::size_t w = 0; w < wa.size(); ++w) {
        const summary_word& x = wa[w];
        const summary_word& y = wb[w];
        for (std::uint64_t m = Op::visit(x, y); m != 0; m &= m - 1) {
            const unsigned bit = lowest_bit(m);
            if (const unsigned n = combine_stretch(out, a, b, x, y, w, bit, stretch)) {
                m = past_stretch(m, bit, n);
                continue;
            }
            const std::size_t blk = 64 * w + bit;
            const std::uint32_t len = a.block_len(blk);
            Op::apply(out, blk, len, view_of(a, x, bit), view_of(b, y, bit), ctx);
        }
    }
    return out.finish();
}

// OR and XOR visit every non-empty block of either side, in order, so the entry of each stored
// block is simply the next one of its side (no rank needed); a block non-empty on one side
// only is copied (OR, XOR) as it is.
template <bool Xor>
std::unique_ptr<bitset_core> unite_cores(const bitset_core& a, const bitset_core& b, const char* name) {
    check_sizes(a, b, name);
    const std::vector<summary_word>& wa = a.words();
    const std::vector<summary_word>& wb = b.words();
    std::size_t entries_hint = 0;
    for (std::size_t w = 0; w < wa.size(); ++w) entries_hint += popcount64(wa[w].nonempty | wb[w].nonempty);
    const std::size_t arena_hint = std::min(a.payload_bytes() + b.payload_bytes(), entries_hint * (block_values / 8));
    core_writer out(a.size(), entries_hint, arena_hint);
    const block_context ctx{bitset_kernels()};
    const stretch_kernel stretch = Xor ? ctx.kernels.xor_stretch : ctx.kernels.or_stretch;
    const block_entry* const entries_a = a.entries().data();
    const block_entry* const entries_b = b.entries().data();
    for (std::size_t w = 0; w < wa.size(); ++w) {
        const summary_word& x = wa[w];
        const summary_word& y = wb[w];
        const block_entry* ea = entries_a + x.stored_before;
        const block_entry* eb = entries_b + y.stored_before;
        const std::uint64_t stored_both = x.nonempty & ~x.full & y.nonempty & ~y.full;
        for (std::uint64_t m = x.nonempty | y.nonempty; m != 0; m &= m - 1) {
            const unsigned bit = lowest_bit(m);
            const std::size_t blk = 64 * w + bit;
            const bool in_x = (x.nonempty >> bit) & 1, in_y = (y.nonempty >> bit) & 1;
            const bool full_x = (x.full >> bit) & 1, full_y = (y.full >> bit) & 1;
            if (!in_y || !in_x) {  // one side only: that block
                if (full_x || full_y) {
                    out.add_full(blk);
                } else if (in_x) {
                    out.add_copy(blk, *ea, a.payload(*ea));
                    ++ea;
                } else {
                    out.add_copy(blk, *eb, b.payload(*eb));
                    ++eb;
                }
                continue;
            }
            const std::uint32_t len = a.block_len(blk);
            if (full_x || full_y) {
                if (!Xor) {
                    out.add_full(blk);
                } else if (!full_x) {
                    not_block(out, blk, len, {ea, a.payload(*ea)}, ctx);
                } else if (!full_y) {
                    not_block(out, blk, len, {eb, b.payload(*eb)}, ctx);
                }  // full XOR full: empty
                ea += !full_x;
                eb += !full_y;
                continue;
            }
            if (const unsigned n = add_stretch(out, a, b, ea, eb, stored_both, w, bit, stretch)) {
                ea += n;
                eb += n;
                m = past_stretch(m, bit, n);
                continue;
            }
            const block_ref rx{ea, a.payload(*ea)};
            const block_ref ry{eb, b.payload(*eb)};
            ++ea;
            ++eb;
            if (Xor) {
                xor_blocks(out, blk, len, rx, ry, ctx);
            } else {
                or_blocks(out, blk, len, rx, ry, ctx);
            }
        }
    }
    return out.finish();
}

// `a` OR (XOR) `b` into a's own storage: the walk of unite_cores, on a writer that took over
// a's arena. Blocks of a that the operation leaves alone keep their payload where it is; a raw
// block of a with a stored block of b is rewritten over itself by the kernel when it stays
// raw; only new and re-encoded blocks are appended. Freed payloads are counted as garbage and
// the arena compacted once they outweigh the rest (core_writer::finish).
template <bool Xor>
std::unique_ptr<bitset_core> unite_in_place(bitset_core& a, const bitset_core& b, const char* name) {
    check_sizes(a, b, name);
    const std::vector<summary_word>& wa = a.words();
    const std::vector<summary_word>& wb = b.words();
    std::size_t entries_hint = 0;
    for (std::size_t w = 0; w < wa.size(); ++w) entries_hint += popcount64(wa[w].nonempty | wb[w].nonempty);
    core_writer out(a, entries_hint);
    const block_context ctx{bitset_kernels()};
    const bitset_kernel_table& k = ctx.kernels;
    const block_entry* const entries_a = a.entries().data();
    const block_entry* const entries_b = b.entries().data();
    plane scratch;
    for (std::size_t w = 0; w < wa.size(); ++w) {
        const summary_word& x = wa[w];
        const summary_word& y = wb[w];
        const block_entry* ea = entries_a + x.stored_before;
        const block_entry* eb = entries_b + y.stored_before;
        for (std::uint64_t m = x.nonempty | y.nonempty; m != 0; m &= m - 1) {
            const unsigned bit = lowest_bit(m);
            const std::size_t blk = 64 * w + bit;
            const bool in_x = (x.nonempty >> bit) & 1, in_y = (y.nonempty >> bit) & 1;
            const bool full_x = (x.full >> bit) & 1, full_y = (y.full >> bit) & 1;
            const std::uint32_t len = a.block_len(blk);
            if (!in_y || !in_x) {
                if (full_x || full_y) {
                    out.add_full(blk);
                } else if (in_x) {
                    out.keep(blk, *ea++);
                } else {
                    out.add_copy(blk, *eb, b.payload(*eb));
                    ++eb;
                }
                continue;
            }
            if (full_x || full_y) {
                if (!Xor) {
                    out.add_full(blk);
                    if (!full_x) out.drop(*ea, len);
                } else if (!full_x) {
                    if (ea->kind == block_kind::raw && len == block_values) {
                        out.add_in_place(blk, ea->offset, [&](std::byte* at) { return k.not_block(at, at); });
                    } else {  // read before the arena grows: not_block spreads it first
                        not_block(out, blk, len, {ea, payload_of(*ea, out.arena())}, ctx);
                        out.drop(*ea, len);
                    }
                } else if (!full_y) {
                    not_block(out, blk, len, {eb, b.payload(*eb)}, ctx);
                }
                ea += !full_x;
                eb += !full_y;
                continue;
            }
            const block_ref ry{eb, b.payload(*eb)};
            if (ea->kind == block_kind::raw && len == block_values) {
                const void* bits = spread_block(ry, len, scratch, k);
                out.add_in_place(blk, ea->offset, [&](std::byte* at) {
                    return Xor ? k.xor_blocks(at, bits, at) : k.or_blocks(at, bits, at);
                });
            } else {  // not raw: decoded or spread before the arena grows
                const block_ref rx{ea, payload_of(*ea, out.arena())};
                if (Xor) {
                    xor_blocks(out, blk, len, rx, ry, ctx);
                } else {
                    or_blocks(out, blk, len, rx, ry, ctx);
                }
                out.drop(*ea, len);
            }
            ++ea;
            ++eb;
        }
    }
    return out.finish();
}

std::unique_ptr<bitset_core> complement_core(const bitset_core& a) {
    core_writer out(a.size(), a.entries().size(), a.payload_bytes());
    const block_context ctx{bitset_kernels()};
    const std::vector<summary_word>& wa = a.words();
    for (std::size_t w = 0; w < wa.size(); ++w) {
        const summary_word& x = wa[w];
        for (std::uint64_t m = a.valid_mask(w) & ~x.full; m != 0; m &= m - 1) {
            const unsigned bit = lowest_bit(m);
            const std::size_t blk = 64 * w + bit;
            const std::uint32_t len = a.block_len(blk);
            const block_view v = view_of(a, x, bit);
            if (v.state == empty_block) {
                out.add_full(blk);
            } else {
                not_block(out, blk, len, v.ref, ctx);
            }
        }
    }
    return out.finish();
}

// AND-count walks the blocks non-empty on both sides. Pairs of full-length raw blocks whose
// payloads follow one another in both arenas (as in any set built or combined in block order)
// are gathered into spans counted by one kernel call each, so a dense pair of sets costs one
// Harley-Seal pass over its bytes plus a few instructions a block.
std::uint64_t count_and(const bitset_core& a, const bitset_core& b) {
    check_sizes(a, b, "and_count");
    const std::vector<summary_word>& wa = a.words();
    const std::vector<summary_word>& wb = b.words();
    const bitset_kernel_table& k = bitset_kernels();
    const block_context ctx{k};
    const match_chunk_fn match = match_chunk_for(k);
    const block_entry* const entries_a = a.entries().data();
    const block_entry* const entries_b = b.entries().data();
    const std::byte* const arena_a = a.arena();
    const std::byte* const arena_b = b.arena();
    const std::size_t short_block = a.size() % block_values == 0 ? a.block_count() : a.block_count() - 1;
    std::uint64_t total = 0;
    const std::byte* span_a = nullptr;
    const std::byte* span_b = nullptr;
    std::size_t span = 0;  // blocks
    for (std::size_t w = 0; w < wa.size(); ++w) {
        const summary_word& x = wa[w];
        const summary_word& y = wb[w];
        const std::uint64_t both = x.nonempty & y.nonempty;
        if (both == 0) continue;
        const std::uint64_t stored_x = x.nonempty & ~x.full, stored_y = y.nonempty & ~y.full;
        const block_entry* const ex = entries_a + x.stored_before;
        const block_entry* const ey = entries_b + y.stored_before;
        for (std::uint64_t m = both; m != 0; m &= m - 1) {
            const unsigned bit = lowest_bit(m);
            const std::size_t blk = 64 * w + bit;
            const bool fx = (x.full >> bit) & 1, fy = (y.full >> bit) & 1;
            if (fx | fy) {
                if (fx & fy) {
                    total += a.block_len(blk);
                } else {
                    total += fx ? ey[popcount64(below(stored_y, bit))].count : ex[popcount64(below(stored_x, bit))].count;
                }
                continue;
            }
            const block_entry& u = ex[popcount64(below(stored_x, bit))];
            const block_entry& v = ey[popcount64(below(stored_y, bit))];
            if (u.kind == block_kind::positions && v.kind == block_kind::positions) {  // block_pairs.hpp
                std::uint32_t found;
                if (count_position_pairs(reinterpret_cast<const std::uint16_t*>(a.payload(u)), u.items,
                                         reinterpret_cast<const std::uint16_t*>(b.payload(v)), v.items, match, found)) {
                    total += found;
                    continue;
                }
            }
            if (u.kind == block_kind::raw && v.kind == block_kind::raw && blk != short_block) {
                const unsigned n = raw_stretch_length(&u, &v, stored_x & stored_y, bit, short_block - blk);
                const std::byte* pa = arena_a + u.offset;
                const std::byte* pb = arena_b + v.offset;
                const std::size_t bytes = span * (block_values / 8);
                if (span != 0 && pa == span_a + bytes && pb == span_b + bytes) {
                    span += n;
                } else {
                    if (span != 0) total += k.and_count_span(span_a, span_b, span);
                    span_a = pa;
                    span_b = pb;
                    span = n;
                }
                m = past_stretch(m, bit, n);
                continue;
            }
            total += and_count_blocks(a.block_len(blk), {&u, a.payload(u)}, {&v, b.payload(v)}, ctx);
        }
    }
    if (span != 0) total += k.and_count_span(span_a, span_b, span);
    return total;
}

}  // namespace

}  // namespace detail

using detail::core_of;

bitset operator&(const bitset& a, const bitset& b) {
    return bitset(detail::combine<detail::and_op>(core_of(a), core_of(b), "AND"));
}

bitset operator|(const bitset& a, const bitset& b) {
    return bitset(detail::unite_cores<false>(core_of(a), core_of(b), "OR"));
}

bitset operator^(const bitset& a, const bitset& b) {
    return bitset(detail::unite_cores<true>(core_of(a), core_of(b), "XOR"));
}

bitset andnot(const bitset& a, const bitset& b) {
    return bitset(detail::combine<detail::andnot_op>(core_of(a), core_of(b), "ANDNOT"));
}

bitset operator~(const bitset& a) { return bitset(detail::complement_core(core_of(a))); }

bitset& bitset::operator&=(const bitset& other) {
    core_ = detail::combine<detail::and_op>(core_of(*this), core_of(other), "AND");
    return *this;
}

// The in-place walks take over this set's arena; should an allocation fail half-way, the set
// is left empty (of its size) rather than with entries into an arena it no longer holds.
namespace {
template <class Walk>
void update_in_place(std::unique_ptr<detail::bitset_core>& core, Walk&& walk) {
    try {
        core = walk();
    } catch (const std::bad_alloc&) {
        core = std::make_unique<detail::bitset_core>(core->size());
        throw;
    }
}
}  // namespace

bitset& bitset::operator|=(const bitset& other) {
    if (&other == this) return *this;
    update_in_place(core_, [&] { return detail::unite_in_place<false>(*core_, core_of(other), "OR"); });
    return *this;
}

bitset& bitset::operator^=(const bitset& other) {
    if (&other == this) {
        core_ = std::make_unique<detail::bitset_core>(core_->size());
        return *this;
    }
    update_in_place(core_, [&] { return detail::unite_in_place<true>(*core_, core_of(other), "XOR"); });
    return *this;
}

bitset& bitset::subtract(const bitset& other) {
    core_ = detail::combine<detail::andnot_op>(core_of(*this), core_of(other), "ANDNOT");
    return *this;
}

bool operator==(const bitset& a, const bitset& b) { return core_of(a).equals(core_of(b)); }

std::uint64_t and_count(const bitset& a, const bitset& b) { return detail::count_and(core_of(a), core_of(b)); }

}  // namespace bitplane
