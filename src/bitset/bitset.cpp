// bitplane::bitset: the public class over bitset_core (queries, single bits, iteration,
// from_positions). Set algebra is in bitset_algebra.cpp, files in bitset_io.cpp.
#include "bitset/bitset_core.hpp"
#include "bitset/bitset_out.hpp"
#include "bitset/bitset_positions.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/error.hpp>

#include <algorithm>
#include <cstring>
#include <string>

namespace bitplane {

namespace detail {

const bitset_core& core_of(const bitset& s) noexcept {
    static const bitset_core empty;
    const bitset_core* core = bitset_access::get(s);
    return core != nullptr ? *core : empty;
}

}  // namespace detail

using detail::core_of;

bitset::bitset() : core_(std::make_unique<detail::bitset_core>()) {}

bitset::bitset(size_type size, bool value) : core_(std::make_unique<detail::bitset_core>(size, value)) {}

bitset::bitset(std::unique_ptr<detail::bitset_core> core) noexcept : core_(std::move(core)) {}

bitset::bitset(const bitset& other) : core_(std::make_unique<detail::bitset_core>(core_of(other))) {}

bitset::bitset(bitset&&) noexcept = default;

bitset& bitset::operator=(const bitset& other) {
    if (this != &other) core_ = std::make_unique<detail::bitset_core>(core_of(other));
    return *this;
}

bitset& bitset::operator=(bitset&&) noexcept = default;

bitset::~bitset() = default;

bitset::size_type bitset::size() const noexcept { return static_cast<size_type>(core_of(*this).size()); }

std::uint64_t bitset::count() const noexcept { return core_of(*this).count(); }

bool bitset::contains(size_type pos) const noexcept { return core_of(*this).contains(pos); }

bool bitset::test(size_type pos) const {
    if (pos >= size())
        throw index_error("bitset::test: position " + std::to_string(pos) + " outside [0, " + std::to_string(size()) + ")");
    return core_of(*this).contains(pos);
}

void bitset::set(size_type pos, bool value) {
    if (pos >= size())
        throw index_error("bitset::set: position " + std::to_string(pos) + " outside [0, " + std::to_string(size()) + ")");
    core_->set(pos, value);
}

std::uint64_t bitset::rank(size_type pos) const {
    if (pos > size())
        throw index_error("bitset::rank: position " + std::to_string(pos) + " beyond size " + std::to_string(size()));
    return core_of(*this).rank(pos);
}

bitset::size_type bitset::select(std::uint64_t k) const {
    if (k >= count())
        throw index_error("bitset::select: rank " + std::to_string(k) + " but only " + std::to_string(count()) +
                          " bits are set");
    return static_cast<size_type>(core_of(*this).select(k));
}

std::vector<std::uint64_t> bitset::to_positions() const {
    std::vector<std::uint64_t> out;
    core_of(*this).append_positions(out);
    return out;
}

std::size_t bitset::to_positions(std::span<std::uint64_t> out) const {
    const detail::bitset_core& c = core_of(*this);
    if (out.size() < c.count())
        throw size_error("bitset::to_positions: buffer of " + std::to_string(out.size()) + " positions for " +
                         std::to_string(c.count()) + " set bits");
    detail::write_positions(c, out.data(), detail::bitset_kernels());
    return static_cast<std::size_t>(c.count());
}

std::size_t bitset::to_positions(std::span<std::uint32_t> out) const {
    const detail::bitset_core& c = core_of(*this);
    if (c.size() > (std::uint64_t{1} << 32))
        throw argument_error("bitset::to_positions: 32-bit positions for a universe of " + std::to_string(c.size()) +
                             " bits (at most 2^32)");
    if (out.size() < c.count())
        throw size_error("bitset::to_positions: buffer of " + std::to_string(out.size()) + " positions for " +
                         std::to_string(c.count()) + " set bits");
    detail::write_positions(c, out.data(), detail::bitset_kernels());
    return static_cast<std::size_t>(c.count());
}

bitset::size_type bitset::next_set(size_type pos) const noexcept {
    return static_cast<size_type>(core_of(*this).next_set(pos));
}

// ---- the iterator -----------------------------------------------------------------------------

bitset::const_iterator::const_iterator(const detail::bitset_core* core, std::uint64_t from) noexcept : core_(core) {
    const std::uint64_t size = core->size();
    if (from >= size) {
        position_ = size;
        return;
    }
    block_ = from / block_values;
    const auto b = static_cast<std::size_t>(block_);
    entry_ = core->entry_index(b);
    if (from % block_values == 0) {  // begin(), or a seek to a block's start: whole blocks from b on
        const detail::summary_word& w = core->words()[b / 64];
        detail::out_cursor cur;
        cur.wi = b / 64;
        cur.rest = w.nonempty & (~std::uint64_t{0} << (b % 64));
        cur.entry = static_cast<std::size_t>(entry_);
        load_blocks(cur);
        return;
    }
    if (fill(static_cast<std::uint32_t>(from % block_values))) return;
    next_ = block_values;
    refill();
}

void bitset::const_iterator::copy_from(const const_iterator& other) noexcept {
    core_ = other.core_;
    position_ = other.position_;
    base_ = other.base_;
    block_ = other.block_;
    entry_ = other.entry_;
    index_ = other.index_;
    filled_ = other.filled_;
    next_ = other.next_;
    item_ = other.item_;
    if (index_ < filled_) std::memcpy(buffer_ + index_, other.buffer_ + index_, 4 * std::size_t{filled_ - index_});
}

void bitset::const_iterator::refill() noexcept {
    const detail::bitset_core& c = *core_;
    const auto b = static_cast<std::size_t>(block_);
    if (next_ < block_values && b < c.block_count() && next_ < c.block_len(b) && fill(next_)) return;
    // Whole blocks after block_.
    const std::vector<detail::summary_word>& words = c.words();
    detail::out_cursor cur;
    cur.wi = b / 64;
    if (cur.wi < words.size()) {
        const detail::summary_word& w = words[cur.wi];
        cur.entry = static_cast<std::size_t>(entry_ + (((w.nonempty & ~w.full) >> (b % 64)) & 1));
        if (b % 64 != 63) cur.rest = w.nonempty & (~std::uint64_t{0} << (b % 64 + 1));
    }
    load_blocks(cur);
}

void bitset::const_iterator::load_blocks(detail::out_cursor& cur) noexcept {
    const detail::bitset_core& c = *core_;
    if (cur.wi >= c.words().size() || !cur.settle(c)) {
        position_ = c.size();
        index_ = filled_ = 0;
        block_ = c.block_count();
        return;
    }
    const std::size_t first = cur.block();
    const std::uint64_t origin = std::uint64_t{first} * block_values;
    // Offsets from origin stay below 2^32: at most 2^21 blocks a chunk.
    const std::size_t n = detail::write_blocks(c, cur, origin, buffer_, buffer_ + chunk, buffer_ + chunk + slack,
                                               first + (std::size_t{1} << 21), detail::bitset_kernels());
    item_ = 0;
    if (n != 0) {
        base_ = origin;
        index_ = 0;
        filled_ = static_cast<std::uint32_t>(n);
        next_ = block_values;
        block_ = cur.last;
        const detail::summary_word& w = c.words()[cur.last / 64];
        entry_ = cur.entry - (((w.nonempty & ~w.full) >> (cur.last % 64)) & 1);
        position_ = base_ + buffer_[0];
        return;
    }
    // The first block holds more than a chunk: its first chunk (a non-empty block has one).
    block_ = first;
    entry_ = cur.entry;
    fill(0);
}

bool bitset::const_iterator::fill(std::uint32_t from) noexcept {
    using namespace detail;
    const bitset_core& c = *core_;
    const auto b = static_cast<std::size_t>(block_);
    const std::uint32_t len = c.block_len(b);
    const summary_word& w = c.words()[b / 64];
    const std::uint64_t bit = std::uint64_t{1} << (b % 64);
    std::uint16_t local[chunk + slack];  // the chunk as offsets in the block, widened at the end
    std::uint32_t n = 0;
    base_ = block_ * block_values;
    index_ = 0;
    next_ = block_values;  // the block is done, unless a chunk stops inside it
    if (w.full & bit) {
        n = std::min(chunk, len - from);
        for (std::uint32_t k = 0; k < n; ++k) local[k] = static_cast<std::uint16_t>(from + k);
        next_ = from + n;
    } else if (w.nonempty & bit) {
        const block_entry& e = c.entries()[static_cast<std::size_t>(entry_)];
        const std::byte* payload = c.payload(e);
        switch (e.kind) {
            case block_kind::runs: {
                std::uint32_t r = item_;
                while (r < e.items && n < chunk) {
                    const std::uint32_t begin = load_le<std::uint16_t>(payload + 4 * r);
                    const std::uint32_t end = load_le<std::uint16_t>(payload + 4 * r + 2);
                    if (end <= from) {
                        ++r;
                        continue;
                    }
                    const std::uint32_t start = std::max(begin, from);
                    const std::uint32_t take = std::min(end - start, chunk - n);
                    for (std::uint32_t k = 0; k < take; ++k) local[n + k] = static_cast<std::uint16_t>(start + k);
                    n += take;
                    from = start + take;
                    if (from == end) ++r;
                }
                item_ = r;
                if (r < e.items) next_ = from;
                break;
            }
            case block_kind::raw: {
                const std::uint32_t bytes = raw_plane_bytes(len), total = (len + 63) / 64;
                std::uint32_t wd = from / 64;
                if (from % 64 != 0) {  // a seek inside a word
                    std::uint64_t word = raw_word(payload, len, wd) & (~std::uint64_t{0} << (from % 64));
                    for (; word != 0; word &= word - 1) local[n++] = static_cast<std::uint16_t>(64 * wd + lowest_bit(word));
                    ++wd;
                }
                // Then whole words, as many as surely fit (64 positions a word at most).
                const bitset_kernel_table& k = bitset_kernels();
                for (std::uint32_t fit = (chunk - n) / 64; fit != 0 && wd < total; fit = (chunk - n) / 64) {
                    const std::uint32_t words = std::min({fit, total - wd, 4u});
                    n += k.extract_bits(payload + 8 * wd, std::min(8 * words, bytes - 8 * wd), 64 * wd, local + n);
                    wd += words;
                }
                if (wd < total) next_ = 64 * wd;
                break;
            }
            case block_kind::positions:
                if (from == 0 && e.items <= chunk) {  // the usual step to a new block: a copy, no search
                    n = e.items;
                    for (std::uint32_t k = 0; k < n; ++k) local[k] = load_le<std::uint16_t>(payload + 2 * k);
                    break;
                }
                [[fallthrough]];
            case block_kind::gaps:
                if (e.inline_payload && from == 0) {  // a few positions: no kernel call
                    std::uint32_t next = 0;
                    for (std::uint32_t j = 0; j < e.items;) {
                        std::uint32_t gap = static_cast<std::uint32_t>(payload[j++]);
                        if (gap == gaps_payload::escape) {
                            gap = load_le<std::uint16_t>(payload + j);
                            j += 2;
                        }
                        next += gap;
                        local[n++] = static_cast<std::uint16_t>(next);
                        ++next;
                    }
                    break;
                }
                if (e.count <= chunk) {  // the whole block (at most 255 positions: under 256 bytes)
                    n = block_positions(e, payload, len, local, bitset_kernels());
                    if (from != 0)
                        index_ = static_cast<std::uint32_t>(std::lower_bound(local, local + n, from) - local);
                } else {  // not written by this library's encoder; through a block-sized buffer
                    position_buffer<> all;
                    const std::uint32_t count = block_positions(e, payload, len, all.data(), bitset_kernels());
                    const auto first = static_cast<std::uint32_t>(std::lower_bound(all.data(), all.data() + count, from) - all.data());
                    n = std::min(chunk, count - first);
                    std::memcpy(local, all.data() + first, 2 * std::size_t{n});
                    if (first + n < count) next_ = all.data()[first + n];
                }
                break;
        }
    }
    for (std::uint32_t k = index_; k < n; ++k) buffer_[k] = local[k];
    filled_ = n;
    if (index_ >= n) return false;
    position_ = base_ + local[index_];
    return true;
}

bitset::const_iterator bitset::begin() const { return const_iterator(&core_of(*this), 0); }

bitset::const_iterator bitset::end() const {
    const_iterator it;
    it.core_ = &core_of(*this);
    it.position_ = it.core_->size();
    it.block_ = it.core_->block_count();
    return it;
}

bitset::const_iterator bitset::seek(size_type pos) const { return const_iterator(&core_of(*this), pos); }

std::size_t bitset::memory_bytes() const noexcept {
    return sizeof(*this) + (core_ ? core_->memory_bytes() : 0);
}

bitset bitset::from_positions(std::span<const std::uint64_t> positions, size_type size) {
    const std::size_t n = positions.size();
    auto outside = [&](std::size_t at) {
        return argument_error("bitset::from_positions: position " + std::to_string(positions[at]) + " at index " +
                              std::to_string(at) + " outside [0, " + std::to_string(size) + ")");
    };
    // Entries: at most one per position; payload: at most 256 bytes per block.
    // No (size + 2047) / 2048: it wraps near 2^64 (the core refuses universes too large).
    const std::uint64_t blocks = size / block_values + (size % block_values != 0);
    detail::core_writer out(size, static_cast<std::size_t>(std::min<std::uint64_t>(n, blocks)), 0);
    detail::position_buffer<> buffer;
    std::uint16_t* const local = buffer.data();
    std::size_t i = 0;
    while (i < n) {
        const std::uint64_t first = positions[i];
        if (first >= size) throw outside(i);
        const std::size_t b = static_cast<std::size_t>(first / block_values);
        const std::uint64_t base = std::uint64_t{b} * block_values;
        const std::uint64_t end = base + std::min<std::uint64_t>(block_values, size - base);  // a later one starts a block
        std::uint32_t k = 0;
        local[k++] = static_cast<std::uint16_t>(first - base);
        std::uint64_t previous = first;
        ++i;
        // Positions of this block, strictly increasing: a repeat or a step back ends the block
        // and is reported below; a position past the block ends it and starts the next one.
        for (; i < n && positions[i] < end; ++i) {
            const std::uint64_t p = positions[i];
            if (p <= previous) break;
            local[k++] = static_cast<std::uint16_t>(p - base);
            previous = p;
        }
        if (i < n && positions[i] <= previous)
            throw argument_error("bitset::from_positions: positions not strictly increasing at index " +
                                 std::to_string(i) + " (" + std::to_string(positions[i]) + " after " +
                                 std::to_string(previous) + ")");
        out.add_positions(b, local, k);
    }
    return bitset(out.finish());
}

}  // namespace bitplane
