#include <bitplane/detail/vector_core.hpp>

#include <bitplane/error.hpp>

#include "codec/direct_access.hpp"
#include "codec/thresholds.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace bitplane::detail {

namespace {
using block_buffer = std::array<std::byte, codec::max_block_bytes>;
}

std::size_t vector_core::block_count() const noexcept { return blocks_.size() + (tail_.empty() ? 0 : 1); }

vector_core::block_entry vector_core::make_entry(std::uint64_t offset, std::span<const std::byte> bytes) const noexcept {
    block_entry e;
    e.offset = offset;
    e.bytes = static_cast<std::uint16_t>(bytes.size());
    const direct_access direct = direct_access_of(bytes, block_values);
    if (direct.usable) {
        e.direct = static_cast<std::uint8_t>(direct.stored + 1);
        e.header = direct.header;
        e.live = direct.live;
        e.ones = direct.ones;
        e.base = direct.base;
    }
    return e;
}

void vector_core::push_back(std::uint32_t bits) {
    if (tail_.capacity() == 0) tail_.reserve(block_values);
    tail_.push_back(bits);
    ++size_;
    if (tail_.size() == block_values) seal_tail();
}

void vector_core::append(std::span<const std::uint32_t> bits) {
    while (!bits.empty()) {
        if (tail_.capacity() == 0) tail_.reserve(block_values);
        const std::size_t take = std::min(bits.size(), block_values - tail_.size());
        tail_.insert(tail_.end(), bits.begin(), bits.begin() + static_cast<std::ptrdiff_t>(take));
        size_ += take;
        bits = bits.subspan(take);
        if (tail_.size() == block_values) seal_tail();
    }
}

void vector_core::seal_tail() {
    block_buffer encoded;
    const std::size_t bytes = codec::encode_block({tail_.data(), tail_.size()}, signed_, encoded);
    blocks_.push_back(make_entry(arena_.size(), std::span<const std::byte>(encoded).first(bytes)));
    arena_.insert(arena_.end(), encoded.begin(), encoded.begin() + static_cast<std::ptrdiff_t>(bytes));
    tail_.clear();
}

std::uint32_t vector_core::get(std::size_t index) const {
    const std::size_t block = index / block_values;
    const std::size_t slot = index % block_values;
    if (block == blocks_.size()) return tail_[slot];
    if (block == hot_block_) return hot_[slot];
    const block_entry& e = blocks_[block];
    if (e.direct) return direct_value(arena_.data() + e.offset, e.header, e.live, e.direct - 1u, e.ones, e.base, slot);
    return codec::decode_value(arena_block(block), block_values, slot);
}

void vector_core::set(std::size_t index, std::uint32_t bits) {
    const std::size_t block = index / block_values;
    const std::size_t slot = index % block_values;
    if (block == blocks_.size()) {
        tail_[slot] = bits;
        return;
    }
    if (block != hot_block_) {
        flush_hot();
        load_hot(block);
    }
    hot_[slot] = bits;
}

void vector_core::load_hot(std::size_t block) {
    hot_.resize(block_values);
    codec::decode_block(arena_block(block), {hot_.data(), block_values});
    hot_block_ = block;
}

void vector_core::flush_hot() {
    if (hot_block_ == no_block) return;
    const std::size_t block = std::exchange(hot_block_, no_block);
    store_block(block, {hot_.data(), block_values});
    compact_if_wasteful();
}

// Re-encodes a sealed block: in place when it did not grow, else at the end of the arena.
void vector_core::store_block(std::size_t block, std::span<const std::uint32_t> values) {
    block_buffer encoded;
    const std::size_t bytes = codec::encode_block(values, signed_, encoded);
    const std::span<const std::byte> fresh = std::span<const std::byte>(encoded).first(bytes);
    block_entry& e = blocks_[block];
    if (bytes <= e.bytes) {
        std::memcpy(arena_.data() + e.offset, encoded.data(), bytes);
        garbage_bytes_ += e.bytes - bytes;
        e = make_entry(e.offset, fresh);
    } else {
        garbage_bytes_ += e.bytes;
        e = make_entry(arena_.size(), fresh);
        arena_.insert(arena_.end(), encoded.begin(), encoded.begin() + static_cast<std::ptrdiff_t>(bytes));
    }
}

void vector_core::compact_if_wasteful() {
    if (garbage_bytes_ < thresholds::compact_min_garbage_bytes) return;
    if (garbage_bytes_ * 4 < arena_.size() * thresholds::compact_garbage_quarters) return;
    seal();
}

void vector_core::seal() {
    flush_hot();
    if (garbage_bytes_ != 0) {
        byte_vector packed;
        packed.reserve(arena_.size() - garbage_bytes_);
        for (block_entry& e : blocks_) {
            const std::uint64_t from = e.offset;
            e.offset = packed.size();
            packed.insert(packed.end(), arena_.begin() + static_cast<std::ptrdiff_t>(from),
                          arena_.begin() + static_cast<std::ptrdiff_t>(from + e.bytes));
        }
        arena_.swap(packed);
        garbage_bytes_ = 0;
    }
    arena_.shrink_to_fit();
    blocks_.shrink_to_fit();
    if (hot_block_ == no_block) {
        hot_.clear();
        hot_.shrink_to_fit();
    }
}

void vector_core::decode_block(std::size_t block, std::span<std::uint32_t> out) const {
    if (block == blocks_.size()) {
        std::copy_n(tail_.begin(), out.size(), out.begin());
    } else if (block == hot_block_) {
        std::copy_n(hot_.begin(), out.size(), out.begin());
    } else if (out.size() == block_values) {
        codec::decode_block(arena_block(block), out);
    } else {
        alignas(64) std::uint32_t values[block_values];
        codec::decode_block(arena_block(block), {values, block_values});
        std::copy_n(values, out.size(), out.begin());
    }
}

void vector_core::decode(std::size_t first, std::span<std::uint32_t> out) const {
    alignas(64) std::uint32_t values[block_values];
    while (!out.empty()) {
        const std::size_t block = first / block_values;
        const std::size_t slot = first % block_values;
        const std::size_t take = std::min(out.size(), block_values - slot);
        if (slot == 0) {
            decode_block(block, out.first(take));
        } else {
            decode_block(block, {values, slot + take});
            std::copy_n(values + slot, take, out.begin());
        }
        out = out.subspan(take);
        first += take;
    }
}

void vector_core::clear() noexcept {
    size_ = 0;
    arena_.clear();
    blocks_.clear();
    garbage_bytes_ = 0;
    tail_.clear();
    hot_block_ = no_block;
    hot_.clear();
}

void vector_core::resize(std::size_t count, std::uint32_t fill) {
    if (count >= size_) {
        std::array<std::uint32_t, block_values> chunk;
        chunk.fill(fill);
        while (size_ < count) {
            const std::size_t take = std::min(count - size_, block_values - tail_.size());
            append({chunk.data(), take});
        }
        return;
    }
    // Shrinking: the block holding the new end becomes the tail.
    flush_hot();
    const std::size_t keep_blocks = count / block_values;
    const std::size_t keep_tail = count % block_values;
    if (keep_blocks < blocks_.size()) {
        pod_vector<std::uint32_t> new_tail(block_values);
        decode_block(keep_blocks, {new_tail.data(), block_values});
        new_tail.resize(keep_tail);
        for (std::size_t b = keep_blocks; b < blocks_.size(); ++b) garbage_bytes_ += blocks_[b].bytes;
        blocks_.resize(keep_blocks);
        tail_.swap(new_tail);
        tail_.reserve(block_values);
        seal();
    } else {
        tail_.resize(keep_tail);
    }
    size_ = count;
}

void vector_core::reserve(std::size_t count) {
    const std::size_t blocks = count / block_values;
    blocks_.reserve(blocks);
}

void vector_core::swap(vector_core& other) noexcept {
    std::swap(signed_, other.signed_);
    std::swap(size_, other.size_);
    arena_.swap(other.arena_);
    blocks_.swap(other.blocks_);
    std::swap(garbage_bytes_, other.garbage_bytes_);
    tail_.swap(other.tail_);
    std::swap(hot_block_, other.hot_block_);
    hot_.swap(other.hot_);
}

std::span<const std::byte> vector_core::sealed_block(std::size_t block, std::span<std::byte> scratch) const {
    if (block == hot_block_) {
        const std::size_t bytes = codec::encode_block({hot_.data(), block_values}, signed_, scratch);
        return scratch.first(bytes);
    }
    return arena_block(block);
}

std::size_t vector_core::memory_bytes() const noexcept {
    return sizeof(*this) + arena_.capacity() + blocks_.capacity() * sizeof(block_entry) +
           tail_.capacity() * sizeof(std::uint32_t) +
           hot_.capacity() * sizeof(std::uint32_t);
}

vector_stats vector_core::stats() const {
    vector_stats s;
    s.values = size_;
    s.sealed_blocks = blocks_.size();
    s.memory_bytes = memory_bytes();
    s.bits_per_value = size_ ? 8.0 * static_cast<double>(s.memory_bytes) / static_cast<double>(size_) : 0.0;
    block_buffer scratch;
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const codec::block_info info = codec::describe_block(sealed_block(b, scratch), block_values);
        s.encoded_bytes += info.bytes;
        ++s.blocks_by_transform[static_cast<std::size_t>(info.value_transform)];
        ++s.blocks_by_layout[static_cast<std::size_t>(info.value_layout)];
        for (const codec::plane_info& p : info.planes)
            ++s.planes[static_cast<std::size_t>(p.base)][static_cast<std::size_t>(p.payload)];
        if (info.value_layout == codec::layout::sparse)
            ++s.planes[static_cast<std::size_t>(info.mask.base)][static_cast<std::size_t>(info.mask.payload)];
    }
    return s;
}

void vector_core::adopt(std::span<const std::byte> arena, std::span<const std::uint64_t> offsets,
                        std::span<const std::uint32_t> sizes, std::span<const std::uint32_t> tail,
                        std::size_t size) {
    clear();
    arena_.assign(arena.begin(), arena.end());
    blocks_.reserve(offsets.size());
    for (std::size_t b = 0; b < offsets.size(); ++b)
        blocks_.push_back(make_entry(offsets[b], arena.subspan(offsets[b], sizes[b])));
    if (!tail.empty()) {
        tail_.reserve(block_values);
        tail_.assign(tail.begin(), tail.end());
    }
    size_ = size;
}

bool operator==(const vector_core& a, const vector_core& b) {
    if (a.size_ != b.size_ || a.signed_ != b.signed_) return false;
    alignas(64) std::uint32_t x[block_values];
    alignas(64) std::uint32_t y[block_values];
    for (std::size_t first = 0; first < a.size_; first += block_values) {
        const std::size_t n = std::min(block_values, a.size_ - first);
        a.decode(first, {x, n});
        b.decode(first, {y, n});
        if (!std::equal(x, x + n, y)) return false;
    }
    return true;
}

}  // namespace bitplane::detail
