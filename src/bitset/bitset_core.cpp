// Queries and single-bit updates of a bitset's storage (bitset_core.hpp).
#include "bitset/bitset_core.hpp"
#include "bitset/bitset_positions.hpp"

#include <bitplane/error.hpp>

#include <algorithm>
#include <bit>
#include <string>

namespace bitplane::detail {

namespace {

constexpr std::uint64_t block_bits64 = block_values;

std::size_t words_for(std::size_t blocks) noexcept { return (blocks + 63) / 64; }

}  // namespace

std::size_t bitset_core::blocks_for(std::uint64_t size) {
    // No (size + 2047) / 2048: it wraps near 2^64.
    const std::uint64_t blocks = size / block_bits64 + (size % block_bits64 != 0);
    const std::uint64_t summary_bytes = (blocks / 64 + (blocks % 64 != 0)) * sizeof(summary_word);
    if (summary_bytes > max_summary_bytes)
        throw argument_error("bitset: a universe of " + std::to_string(size) + " bits needs a summary of " +
                             std::to_string(summary_bytes) + " bytes (one " + std::to_string(sizeof(summary_word)) +
                             "-byte word per 131072 bits, empty or not), over the limit of " +
                             std::to_string(max_summary_bytes) + " (universes up to 2^" +
                             std::to_string(std::bit_width(max_summary_bytes / sizeof(summary_word)) - 1 + 17) +
                             " bits)");
    return static_cast<std::size_t>(blocks);
}

bitset_core::bitset_core(std::uint64_t size, bool value) : size_(size), blocks_(blocks_for(size)) {
    words_.resize(words_for(blocks_));
    if (value) {
        for (std::size_t w = 0; w < words_.size(); ++w) {
            words_[w].nonempty = words_[w].full = valid_mask(w);
            words_[w].ones_before = std::uint64_t{w} * 64 * block_bits64;
        }
        count_ = size;
    }
}

bool bitset_core::contains(std::uint64_t pos) const noexcept {
    if (pos >= size_) return false;
    const std::size_t b = static_cast<std::size_t>(pos / block_bits64);
    const summary_word& w = words_[b / 64];
    const std::uint64_t bit = std::uint64_t{1} << (b % 64);
    if (!(w.nonempty & bit)) return false;
    if (w.full & bit) return true;
    const block_entry& e = entries_[entry_index(b)];
    return block_contains(e, payload(e), static_cast<std::uint32_t>(pos % block_bits64));
}

std::uint64_t bitset_core::rank(std::uint64_t pos) const noexcept {
    if (pos >= size_) return count_;
    const std::size_t b = static_cast<std::size_t>(pos / block_bits64);
    const auto off = static_cast<std::uint32_t>(pos % block_bits64);
    const summary_word& w = words_[b / 64];
    const unsigned bit = b % 64;
    const std::uint64_t stored = w.nonempty & ~w.full;
    // Blocks before b in its word are full length (only the last block is short).
    std::uint64_t r = w.ones_before + std::uint64_t{popcount64(below(w.full, bit))} * block_bits64;
    std::size_t i = w.stored_before;
    for (const std::size_t end = i + popcount64(below(stored, bit)); i < end; ++i) r += entries_[i].count;
    if (w.full >> bit & 1) return r + off;
    if (stored >> bit & 1) r += block_rank(entries_[i], payload(entries_[i]), off);
    return r;
}

std::uint64_t bitset_core::select(std::uint64_t k) const noexcept {
    // The last word whose ones_before is <= k holds the bit.
    const auto it = std::upper_bound(words_.begin(), words_.end(), k,
                                     [](std::uint64_t v, const summary_word& w) { return v < w.ones_before; });
    const std::size_t wi = static_cast<std::size_t>(it - words_.begin()) - 1;
    const summary_word& w = words_[wi];
    std::uint64_t rest = k - w.ones_before;
    std::size_t i = w.stored_before;
    for (std::uint64_t m = w.nonempty; m != 0; m &= m - 1) {
        const std::size_t b = 64 * wi + lowest_bit(m);
        const std::uint32_t len = block_len(b);
        const bool full = (w.full >> lowest_bit(m)) & 1;
        const std::uint32_t c = full ? len : entries_[i].count;
        if (rest < c) {
            const auto r = static_cast<std::uint32_t>(rest);
            const std::uint32_t in = full ? r : block_select(entries_[i], payload(entries_[i]), len, r);
            return std::uint64_t{b} * block_bits64 + in;
        }
        rest -= c;
        if (!full) ++i;
    }
    return size_;  // not reached for k < count
}

std::uint64_t bitset_core::next_set(std::uint64_t from) const noexcept {
    if (from >= size_) return size_;
    std::size_t b = static_cast<std::size_t>(from / block_bits64);
    auto off = static_cast<std::uint32_t>(from % block_bits64);
    for (;;) {
        const summary_word& w = words_[b / 64];
        const std::uint64_t bit = std::uint64_t{1} << (b % 64);
        if (w.full & bit) return std::uint64_t{b} * block_bits64 + off;
        if (w.nonempty & bit) {
            const block_entry& e = entries_[entry_index(b)];
            const std::uint32_t len = block_len(b);
            const std::uint32_t n = block_next(e, payload(e), len, off);
            if (n < len) return std::uint64_t{b} * block_bits64 + n;
        }
        // The next non-empty block after b.
        std::size_t wi = b / 64;
        std::uint64_t rest = (b % 64 == 63) ? 0 : words_[wi].nonempty & (~std::uint64_t{0} << (b % 64 + 1));
        while (rest == 0) {
            if (++wi >= words_.size()) return size_;
            rest = words_[wi].nonempty;
        }
        b = 64 * wi + lowest_bit(rest);
        off = 0;
    }
}

void bitset_core::append_positions(std::vector<std::uint64_t>& out) const {
    const std::size_t start = out.size();
    out.resize(start + static_cast<std::size_t>(count_));
    write_positions(*this, out.data() + start, bitset_kernels());
}

void bitset_core::block_plane(std::size_t b, plane& out) const noexcept {
    out = plane{};
    const summary_word& w = words_[b / 64];
    const std::uint64_t bit = std::uint64_t{1} << (b % 64);
    const std::uint32_t len = block_len(b);
    if (w.full & bit) {
        out = ones_plane(len);
    } else if (w.nonempty & bit) {
        const block_entry& e = entries_[entry_index(b)];
        block_to_plane(e, payload(e), len, out, bitset_kernels());
    }
}

bool bitset_core::equals(const bitset_core& other) const noexcept {
    if (size_ != other.size_ || count_ != other.count_ || entries_.size() != other.entries_.size()) return false;
    for (std::size_t w = 0; w < words_.size(); ++w)
        if (words_[w].nonempty != other.words_[w].nonempty || words_[w].full != other.words_[w].full) return false;
    // Equal summaries: entry i is the same block on both sides. Only the last block is short.
    const bool last_stored = blocks_ > 0 && entries_.size() > 0 && [&] {
        const summary_word& w = words_.back();
        return (((w.nonempty & ~w.full) >> ((blocks_ - 1) % 64)) & 1) != 0;
    }();
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        const block_entry& a = entries_[i];
        const block_entry& b = other.entries_[i];
        if (a.kind != b.kind || a.items != b.items || a.count != b.count) return false;
        const std::uint32_t len = (last_stored && i + 1 == entries_.size()) ? block_len(blocks_ - 1)
                                                                             : static_cast<std::uint32_t>(block_values);
        if (std::memcmp(payload(a), other.payload(b), payload_size(a, len)) != 0) return false;
    }
    return true;
}

std::size_t bitset_core::memory_bytes() const noexcept {
    return sizeof(*this) + words_.capacity() * sizeof(summary_word) + entries_.capacity() * sizeof(block_entry) +
           arena_.capacity();
}

// set(): the block keeps its encoding where choose_plan keeps it (a raw bit flipped in place, a
// sorted position inserted or erased), and is re-encoded from a plane where it changes kind,
// becomes empty or full, or is runs (whose runs split and merge). Summary upkeep: the block's
// bits, count_ and the ones_before of later words (an entry inserted or erased also moves
// stored_before).
void bitset_core::set(std::uint64_t pos, bool value) {
    const std::size_t b = static_cast<std::size_t>(pos / block_bits64);
    const auto off = static_cast<std::uint32_t>(pos % block_bits64);
    const summary_word& w = words_[b / 64];
    const std::uint64_t bit = std::uint64_t{1} << (b % 64);
    if (!(w.nonempty & bit)) {
        if (value) set_in_empty(b, off);
        return;
    }
    if (w.full & bit) {
        if (value) return;
        plane bits = ones_plane(block_len(b));
        flip_bit(bits, off);
        replace_block(b, bits, bitset_kernels().stats(bits.data()));
        return;
    }
    edit_stored(b, off, value);
}

void bitset_core::add_ones_after(std::size_t wi, std::uint64_t delta) noexcept {
    count_ += delta;
    summary_word* w = words_.data();
    for (std::size_t k = wi + 1, n = words_.size(); k < n; ++k) w[k].ones_before += delta;
}

void bitset_core::set_in_empty(std::size_t b, std::uint32_t off) {
    const std::size_t wi = b / 64;
    const std::uint64_t bit = std::uint64_t{1} << (b % 64);
    const std::uint32_t len = block_len(b);
    if (len == 1) {  // a one-bit last block: full
        words_[wi].nonempty |= bit;
        words_[wi].full |= bit;
    } else {
        const std::size_t idx = entry_index(b);
        position_buffer<8> one;
        std::fill_n(one.data(), 8 + position_slack, std::uint16_t{0xFFFF});
        one.data()[0] = static_cast<std::uint16_t>(off);
        put_positions(idx, false, one.data(), 1, len);
        words_[wi].nonempty |= bit;
        // One pass over the later words for both prefixes.
        ++count_;
        summary_word* w = words_.data();
        for (std::size_t k = wi + 1, n = words_.size(); k < n; ++k) {
            ++w[k].stored_before;
            ++w[k].ones_before;
        }
        return;
    }
    add_ones_after(wi, 1);
}

void bitset_core::edit_stored(std::size_t b, std::uint32_t off, bool value) {
    const std::size_t wi = b / 64;
    const std::uint32_t len = block_len(b);
    const std::size_t idx = entry_index(b);
    block_entry& e = entries_[idx];
    const std::uint64_t delta = value ? 1 : ~std::uint64_t{0};
    const bitset_kernel_table& kernels = bitset_kernels();
    if (e.kind == block_kind::raw || e.kind == block_kind::runs) {
        const std::byte* p = payload(e);
        plane bits{};
        block_to_plane(e, p, len, bits, kernels);
        if (test_bit(bits, off) == value) return;
        flip_bit(bits, off);
        const block_stats s = kernels.stats(bits.data());
        if (e.kind == block_kind::raw && s.count != 0 && s.count != len && plan_for_plane(bits, s, len).kind == block_kind::raw) {
            std::byte* at = e.inline_payload ? reinterpret_cast<std::byte*>(&e.offset) : arena_.data() + e.offset;
            at[off >> 3] ^= static_cast<std::byte>(1u << (off & 7));
            e.count = static_cast<std::uint16_t>(s.count);
            add_ones_after(wi, delta);
            return;
        }
        replace_block(b, bits, s);  // summary, count and the new encoding
        return;
    }
    // positions and gaps: edit the sorted positions.
    position_buffer<> buffer;
    std::uint16_t* const q = buffer.data();
    const std::uint32_t n = block_positions(e, payload(e), len, q, kernels);
    const std::uint32_t i = static_cast<std::uint32_t>(std::lower_bound(q, q + n, static_cast<std::uint16_t>(off)) - q);
    const bool has = i < n && q[i] == off;
    if (has == value) return;
    const std::uint32_t m = value ? n + 1 : n - 1;
    if (m == 0 || m == len) {
        plane bits{};
        set_positions(bits, q, n);
        flip_bit(bits, off);
        replace_block(b, bits, kernels.stats(bits.data()));
        return;
    }
    if (value) {
        std::memmove(q + i + 1, q + i, 2u * (n - i));
        q[i] = static_cast<std::uint16_t>(off);
    } else {
        std::memmove(q + i, q + i + 1, 2u * (n - i - 1));
    }
    put_positions(idx, true, q, m, len);
    add_ones_after(wi, delta);
    maybe_compact();
}

void bitset_core::put_positions(std::size_t idx, bool exists, const std::uint16_t* p, std::uint32_t n,
                                std::uint32_t len) {
    const bitset_block_plan plan = plan_for_positions(p, n, len);
    const bool had = exists && !entries_[idx].inline_payload;
    const std::uint32_t old_bytes = exists ? payload_size(entries_[idx], len) : 0;
    if (!exists) entries_.insert(entries_.begin() + static_cast<std::ptrdiff_t>(idx), block_entry{});
    block_entry& e = entries_[idx];
    // The writers may write up to 7 bytes past the payload: through a buffer unless the
    // payload ends the arena, or is the whole inline field.
    alignas(16) std::byte scratch[3 * block_values + 32];
    write_positions_payload(plan, p, n, len, scratch);
    std::byte* at = place_payload(e, had, old_bytes, plan.bytes);
    std::memcpy(at, scratch, plan.bytes);
    e.count = static_cast<std::uint16_t>(n);
    e.items = plan.items;
    e.kind = plan.kind;
}

std::byte* bitset_core::place_payload(block_entry& e, bool had, std::uint32_t old_bytes, std::uint32_t bytes) {
    if (is_inline(bytes)) {
        if (had) garbage_ += old_bytes;
        e.inline_payload = 1;
        e.offset = 0;
        return reinterpret_cast<std::byte*>(&e.offset);
    }
    if (had) {
        if (bytes <= old_bytes) {  // in place; the tail becomes garbage
            garbage_ += old_bytes - bytes;
            return arena_.data() + e.offset;
        }
        if (e.offset + old_bytes == arena_.size()) {  // the arena's last payload grows where it is
            arena_.room(bytes - old_bytes);
            arena_.commit(bytes - old_bytes);
            return arena_.data() + e.offset;
        }
        garbage_ += old_bytes;
    }
    std::byte* at = arena_.room(bytes);
    e.offset = static_cast<std::uint64_t>(at - arena_.data());
    e.inline_payload = 0;
    arena_.commit(bytes);
    return at;
}

void bitset_core::maybe_compact() {
    if (garbage_ >= thresholds::bitset_compact_min_garbage_bytes &&
        garbage_ * 4 > arena_.size() * thresholds::bitset_compact_garbage_quarters)
        compact_arena();
}

void bitset_core::replace_block(std::size_t b, const plane& bits, const block_stats& s) {
    const std::size_t wi = b / 64;
    summary_word& w = words_[wi];
    const std::uint64_t bit = std::uint64_t{1} << (b % 64);
    const std::uint32_t len = block_len(b);
    const bool was_full = (w.full & bit) != 0;
    const bool was_stored = !was_full && (w.nonempty & bit) != 0;
    const std::size_t idx = entry_index(b);
    const std::uint32_t old_count = was_full ? len : was_stored ? entries_[idx].count : 0;
    const std::uint32_t old_bytes = was_stored ? payload_size(entries_[idx], len) : 0;
    const bool now_stored = s.count != 0 && s.count != len;

    // Summary bits, count and the per-word prefixes after this word.
    w.nonempty = s.count != 0 ? (w.nonempty | bit) : (w.nonempty & ~bit);
    w.full = s.count == len ? (w.full | bit) : (w.full & ~bit);
    const std::uint64_t delta = std::uint64_t{s.count} - old_count;  // modulo 2^64
    count_ += delta;
    const std::uint64_t entry_delta = std::uint64_t{now_stored} - std::uint64_t{was_stored};
    for (std::size_t k = wi + 1; k < words_.size(); ++k) {
        words_[k].ones_before += delta;
        words_[k].stored_before += entry_delta;
    }

    if (was_stored && !is_inline(old_bytes)) garbage_ += old_bytes;
    if (!now_stored) {
        if (was_stored) entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(idx));
    } else {
        const bitset_block_plan plan = plan_for_plane(bits, s, len);
        block_entry e{0, static_cast<std::uint16_t>(s.count), plan.items, plan.kind, is_inline(plan.bytes), {}};
        std::byte* dest;
        if (is_inline(plan.bytes)) {
            dest = reinterpret_cast<std::byte*>(&e.offset);
        } else if (was_stored && !is_inline(old_bytes) && plan.bytes <= old_bytes) {
            e.offset = entries_[idx].offset;  // rewrite in place
            dest = arena_.data() + e.offset;
            garbage_ -= plan.bytes;
        } else {
            dest = arena_.room(plan.bytes);
            e.offset = static_cast<std::uint64_t>(dest - arena_.data());
            arena_.commit(plan.bytes);
        }
        write_plane_payload(plan, bits, len, dest);
        if (was_stored) {
            entries_[idx] = e;
        } else {
            entries_.insert(entries_.begin() + static_cast<std::ptrdiff_t>(idx), e);
        }
    }
    maybe_compact();
}

void bitset_core::compact_arena() {
    byte_buffer fresh;
    fresh.reserve(arena_.size() - garbage_);
    std::size_t i = 0;
    for (std::size_t wi = 0; wi < words_.size(); ++wi) {
        for (std::uint64_t m = words_[wi].nonempty & ~words_[wi].full; m != 0; m &= m - 1) {
            block_entry& e = entries_[i++];
            if (e.inline_payload) continue;
            const std::uint32_t bytes = payload_size(e, block_len(64 * wi + lowest_bit(m)));
            const std::byte* at = fresh.append(arena_.data() + e.offset, bytes);
            e.offset = static_cast<std::uint64_t>(at - fresh.data());
        }
    }
    arena_ = std::move(fresh);
    garbage_ = 0;
}

// ---- core_writer ----------------------------------------------------------------------------

core_writer::core_writer(std::uint64_t size, std::size_t entries_hint, std::size_t arena_hint)
    : core_(std::make_unique<bitset_core>(size)) {
    core_->entries_.reserve(entries_hint);
    if (arena_hint != 0) core_->arena_.reserve(arena_hint);
}

std::unique_ptr<bitset_core> core_writer::finish() {
    if (!core_->words_.empty()) enter(64 * (core_->words_.size() - 1));
    if (core_->garbage_ >= thresholds::bitset_compact_min_garbage_bytes &&
        core_->garbage_ * 4 > core_->arena_.size() * thresholds::bitset_compact_garbage_quarters)
        core_->compact_arena();  // a reused arena (the in-place operators)
    byte_buffer& arena = core_->arena_;
    if (arena.capacity() > arena.size() + byte_buffer::slack + 4096) arena.shrink_to_fit();
    std::vector<block_entry>& entries = core_->entries_;
    if (entries.capacity() > 2 * entries.size() + 256) entries.shrink_to_fit();
    return std::move(core_);
}

// ---- core_access ----------------------------------------------------------------------------

void core_access::index(bitset_core& c) noexcept {
    std::uint64_t ones = 0;
    std::size_t i = 0;
    for (std::size_t wi = 0; wi < c.words_.size(); ++wi) {
        summary_word& w = c.words_[wi];
        w.stored_before = i;
        w.ones_before = ones;
        for (std::uint64_t m = w.nonempty; m != 0; m &= m - 1) {
            const std::size_t b = 64 * wi + lowest_bit(m);
            ones += ((w.full >> lowest_bit(m)) & 1) ? c.block_len(b) : c.entries_[i++].count;
        }
    }
    c.count_ = ones;
}

}  // namespace bitplane::detail
