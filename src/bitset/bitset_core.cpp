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
    std::uint64_t r = ones_before(b / 64) + std::uint64_t{popcount64(below(w.full, bit))} * block_bits64;
    std::size_t i = w.stored_before;
    for (const std::size_t end = i + popcount64(below(stored, bit)); i < end; ++i) r += entries_[i].count;
    if (w.full >> bit & 1) return r + off;
    if (stored >> bit & 1) r += block_rank(entries_[i], payload(entries_[i]), off);
    return r;
}

std::uint64_t bitset_core::select(std::uint64_t k) const noexcept {
    // The last word whose ones_before() is <= k holds the bit.
    std::size_t lo = 1, hi = words_.size();  // ones_before(0) = 0 <= k
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (ones_before(mid) <= k) lo = mid + 1; else hi = mid;
    }
    const std::size_t wi = lo - 1;
    const summary_word& w = words_[wi];
    std::uint64_t rest = k - ones_before(wi);
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
           arena_.capacity() + ones_fix_.capacity() * sizeof(std::uint64_t);
}

// set(): the block keeps its encoding where choose_plan keeps it (a raw bit flipped in place, a
// sorted position inserted or erased), and is re-encoded from a plane where it changes kind,
// becomes empty or full, or is runs (whose runs split and merge). Summary upkeep: the block's
// bits, count_ and the ones_before of later words (an entry inserted or erased also moves
// stored_before).
void bitset_core::set(std::uint64_t pos, bool value) {
    prepare_fix();  // the one allocation of the summary upkeep, before anything changes
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

void bitset_core::prepare_fix() {
    const std::size_t n = words_.size();
    if (n <= fix_min_words || !ones_fix_.empty()) return;
    fix_shift_ = static_cast<unsigned>(std::bit_width(n - 1) + 1) / 2;
    ones_fix_.assign(((n - 1) >> fix_shift_) + 1, 0);
}

void bitset_core::add_ones_after(std::size_t wi, std::uint64_t delta) noexcept {
    count_ += delta;
    summary_word* w = words_.data();
    const std::size_t n = words_.size();
    if (ones_fix_.empty()) {  // a few words (prepare_fix())
        for (std::size_t k = wi + 1; k < n; ++k) w[k].ones_before += delta;
        return;
    }
    const std::size_t g = wi >> fix_shift_;
    const std::size_t group_end = std::min(n, (g + 1) << fix_shift_);
    for (std::size_t k = wi + 1; k < group_end; ++k) w[k].ones_before += delta;
    std::uint64_t* fix = ones_fix_.data();
    for (std::size_t h = g + 1, groups = ones_fix_.size(); h < groups; ++h) fix[h] += delta;
}

void bitset_core::add_stored_after(std::size_t wi, std::uint64_t delta) noexcept {
    summary_word* w = words_.data();
    for (std::size_t k = wi + 1, n = words_.size(); k < n; ++k) w[k].stored_before += delta;
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
        if (choose_plan(1, 1, len).kind == block_kind::positions) {  // one inline position
            block_entry& e = *entries_.insert(entries_.begin() + static_cast<std::ptrdiff_t>(idx), block_entry{});
            store_le<std::uint16_t>(reinterpret_cast<std::byte*>(&e.offset), static_cast<std::uint16_t>(off));
            e.count = 1;
            e.items = 1;
            e.kind = block_kind::positions;
            e.inline_payload = 1;
        } else {  // a short last block: raw
            position_buffer<8> one;
            std::fill_n(one.data(), 8 + position_slack, std::uint16_t{0xFFFF});
            one.data()[0] = static_cast<std::uint16_t>(off);
            put_positions(idx, false, one.data(), 1, len);
        }
        words_[wi].nonempty |= bit;
        add_stored_after(wi, 1);
    }
    add_ones_after(wi, 1);
}

void bitset_core::edit_stored(std::size_t b, std::uint32_t off, bool value) {
    const std::uint32_t len = block_len(b);
    block_entry& e = entries_[entry_index(b)];
    switch (e.kind) {
        case block_kind::raw: return edit_raw(b, e, len, off, value);
        case block_kind::runs: return edit_runs(b, e, len, off, value);
        case block_kind::positions: return edit_positions(b, e, len, off, value);
        case block_kind::gaps: break;  // never in memory (choose_plan); a plane edit if ever
    }
    plane bits{};
    block_to_plane(e, payload(e), len, bits, bitset_kernels());
    if (test_bit(bits, off) == value) return;
    flip_bit(bits, off);
    replace_block(b, bits, bitset_kernels().stats(bits.data()));
}

// A raw block stays raw while positions cannot win (its count) and runs cannot: raw was chosen
// with 4 * runs >= its bytes, and one flipped bit moves the runs by one, down only where a set
// bit joins two runs or a cleared bit was a run of its own. Only then are the runs counted (one
// stats pass over the payload); anything else is one byte written.
void bitset_core::edit_raw(std::size_t b, block_entry& e, std::uint32_t len, std::uint32_t off, bool value) {
    std::byte* const at = e.inline_payload ? reinterpret_cast<std::byte*>(&e.offset) : arena_.data() + e.offset;
    auto bit_at = [&](std::uint32_t i) { return ((static_cast<std::uint32_t>(at[i >> 3]) >> (i & 7)) & 1) != 0; };
    if (bit_at(off) == value) return;
    const std::uint32_t count = value ? e.count + 1u : e.count - 1u;
    const std::uint32_t bytes = raw_plane_bytes(len);
    const bool left = off > 0 && bit_at(off - 1);
    const bool right = off + 1 < len && bit_at(off + 1);
    const bool runs_may_drop = value ? (left && right) : (!left && !right);
    const bool stays = count != 0 && count != len && (count >= thresholds::bitset_positions_max_count || 2 * count >= bytes) &&
                       (!runs_may_drop || len == block_values);
    if (stays) {
        at[off >> 3] ^= static_cast<std::byte>(1u << (off & 7));
        bool raw = true;
        if (runs_may_drop) {
            const block_stats s = bitset_kernels().stats(at);
            raw = choose_plan(count, runs_from_transitions(s.transitions, bit_at(block_values - 1)), len).kind == block_kind::raw;
            if (!raw) at[off >> 3] ^= static_cast<std::byte>(1u << (off & 7));  // back: re-encoded below
        }
        if (raw) {
            e.count = static_cast<std::uint16_t>(count);
            add_ones_after(b / 64, value ? 1 : ~std::uint64_t{0});
            return;
        }
    }
    plane bits{};
    block_to_plane(e, at, len, bits, bitset_kernels());
    flip_bit(bits, off);
    replace_block(b, bits, bitset_kernels().stats(bits.data()));
}

// Runs: the run holding or next to the bit is extended, shrunk, split, merged or dropped in a
// copy of the (at most 64) runs, written back in place when the block stays runs.
void bitset_core::edit_runs(std::size_t b, block_entry& e, std::uint32_t len, std::uint32_t off, bool value) {
    std::uint16_t r[2 * (block_values / 32) + 4];
    std::uint32_t runs = e.items;
    std::memcpy(r, payload(e), 4u * runs);
    // i: the first run ending after off.
    std::uint32_t lo = 0, hi = runs;
    while (lo < hi) {
        const std::uint32_t mid = (lo + hi) / 2;
        if (r[2 * mid + 1] <= off) lo = mid + 1; else hi = mid;
    }
    const std::uint32_t i = lo;
    const bool has = i < runs && r[2 * i] <= off;
    if (has == value) return;
    auto erase_run = [&](std::uint32_t k) {
        std::memmove(r + 2 * k, r + 2 * k + 2, 4u * (runs - k - 1));
        --runs;
    };
    auto insert_run = [&](std::uint32_t k, std::uint32_t begin, std::uint32_t end) {
        std::memmove(r + 2 * k + 2, r + 2 * k, 4u * (runs - k));
        r[2 * k] = static_cast<std::uint16_t>(begin);
        r[2 * k + 1] = static_cast<std::uint16_t>(end);
        ++runs;
    };
    if (value) {
        const bool joins_prev = i > 0 && r[2 * i - 1] == off;
        const bool joins_next = i < runs && r[2 * i] == off + 1;
        if (joins_prev && joins_next) {
            r[2 * i - 1] = r[2 * i + 1];
            erase_run(i);
        } else if (joins_prev) {
            r[2 * i - 1] = static_cast<std::uint16_t>(off + 1);
        } else if (joins_next) {
            r[2 * i] = static_cast<std::uint16_t>(off);
        } else {
            insert_run(i, off, off + 1);
        }
    } else {
        const std::uint32_t begin = r[2 * i], end = r[2 * i + 1];
        if (begin == off && end == off + 1) {
            erase_run(i);
        } else if (begin == off) {
            r[2 * i] = static_cast<std::uint16_t>(off + 1);
        } else if (end == off + 1) {
            r[2 * i + 1] = static_cast<std::uint16_t>(off);
        } else {
            r[2 * i + 1] = static_cast<std::uint16_t>(off);
            insert_run(i + 1, off + 1, end);
        }
    }
    const std::uint32_t count = value ? e.count + 1u : e.count - 1u;
    const bitset_block_plan plan = choose_plan(count, runs, len);
    if (count == 0 || count == len || plan.kind != block_kind::runs) {
        plane bits{};
        for (std::uint32_t k = 0; k < runs; ++k) flip_range(bits, r[2 * k], r[2 * k + 1]);
        replace_block(b, bits, bitset_kernels().stats(bits.data()));
        return;
    }
    const std::uint32_t old_bytes = 4u * e.items;
    std::byte* at = place_payload(e, !e.inline_payload, old_bytes, plan.bytes);
    std::memcpy(at, r, plan.bytes);
    e.count = static_cast<std::uint16_t>(count);
    e.items = plan.items;
    add_ones_after(b / 64, value ? 1 : ~std::uint64_t{0});
    maybe_compact();
}

// Positions: the sorted list is searched where it is (a bit already as asked costs nothing),
// then rewritten with the position inserted or erased and re-planned (runs or raw may win).
void bitset_core::edit_positions(std::size_t b, block_entry& e, std::uint32_t len, std::uint32_t off, bool value) {
    const std::uint32_t n = e.items;
    const std::byte* const p = payload(e);
    std::uint32_t lo = 0, hi = n;  // first position >= off
    while (lo < hi) {
        const std::uint32_t mid = (lo + hi) / 2;
        if (load_le<std::uint16_t>(p + 2 * mid) < off) lo = mid + 1; else hi = mid;
    }
    const std::uint32_t i = lo;
    const bool has = i < n && load_le<std::uint16_t>(p + 2 * i) == off;
    if (has == value) return;
    position_buffer<thresholds::bitset_positions_max_count + 8> buffer;
    std::uint16_t* const q = buffer.data();
    const std::uint32_t m = value ? n + 1 : n - 1;
    std::memcpy(q, p, 2u * i);
    if (value) {
        q[i] = static_cast<std::uint16_t>(off);
        std::memcpy(q + i + 1, p + 2 * i, 2u * (n - i));
    } else {
        std::memcpy(q + i, p + 2 * i + 2, 2u * (n - i - 1));
    }
    if (m == 0 || m == len) {
        plane bits{};
        set_positions(bits, q, m);
        replace_block(b, bits, bitset_kernels().stats(bits.data()));
        return;
    }
    std::fill_n(q + m, position_slack, std::uint16_t{0xFFFF});
    put_positions(static_cast<std::size_t>(&e - entries_.data()), true, q, m, len);
    add_ones_after(b / 64, value ? 1 : ~std::uint64_t{0});
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
    garbage_ += arena_.pad_even();
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
    prepare_fix();
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
    add_ones_after(wi, std::uint64_t{s.count} - old_count);  // modulo 2^64
    if (now_stored != was_stored) add_stored_after(wi, now_stored ? 1 : ~std::uint64_t{0});

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
            garbage_ += arena_.pad_even();
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
    c.ones_fix_.clear();
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
