// bitplane::bitset: the public class over bitset_core (queries, single bits, iteration,
// from_positions). Set algebra is in bitset_algebra.cpp, files in bitset_io.cpp.
#include "bitset/bitset_core.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/error.hpp>

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

bitset::const_iterator& bitset::const_iterator::operator++() {
    position_ = detail::core_of(*owner_).next_set(position_ + 1);
    return *this;
}

bitset::const_iterator bitset::begin() const { return const_iterator(this, core_of(*this).next_set(0)); }

bitset::const_iterator bitset::end() const { return const_iterator(this, core_of(*this).size()); }

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
