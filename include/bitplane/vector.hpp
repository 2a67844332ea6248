// bitplane::vector<T>: a compressed column of 32-bit integers (T = std::uint32_t or
// std::int32_t) stored as bit-plane blocks of 2048 values.
//
// Storage: full blocks are encoded ("sealed") into one contiguous arena plus an offsets
// table; the last, partial block stays uncompressed until it fills. `set` on a sealed block
// decodes it into a write-back buffer that is re-encoded when another block is written,
// on seal(), or on save().
//
// Complexity: push_back amortized O(1) (a block is encoded every 2048 values); operator[]
// O(live planes) for dense frame-of-reference/plain blocks, O(block) for delta blocks;
// decode/iteration O(n).
//
// Thread safety: concurrent calls of const members on one vector are safe. Any non-const
// call needs exclusive access, as for std::vector.
#pragma once

#include <bitplane/error.hpp>
#include <bitplane/detail/vector_core.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace bitplane {

namespace detail {
struct vector_access;  // src/core/vector_access.hpp
}  // namespace detail

template <class T>
concept column_value = std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::int32_t>;

template <column_value T>
class vector {
public:
    using value_type = T;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;

    class const_iterator;
    using iterator = const_iterator;

    vector() noexcept : core_(std::is_signed_v<T>) {}
    explicit vector(size_type count, T value = T{}) : vector() { resize(count, value); }
    vector(std::initializer_list<T> values) : vector(std::span<const T>(values.begin(), values.size())) {}
    explicit vector(std::span<const T> values) : vector() {
        core_.append({reinterpret_cast<const std::uint32_t*>(values.data()), values.size()});
    }
    template <std::input_iterator It, std::sentinel_for<It> S>
    vector(It first, S last) : vector() {
        for (; first != last; ++first) push_back(static_cast<T>(*first));
    }

    // ---- size -------------------------------------------------------------------------
    [[nodiscard]] size_type size() const noexcept { return core_.size(); }
    [[nodiscard]] bool empty() const noexcept { return size() == 0; }
    void clear() noexcept { core_.clear(); }
    void resize(size_type count, T value = T{}) { core_.resize(count, to_bits(value)); }
    /// Reserves room for the encoded blocks of about `count` values (an estimate).
    void reserve(size_type count) { core_.reserve(count); }

    // ---- writes -----------------------------------------------------------------------
    void push_back(T value) { core_.push_back(to_bits(value)); }
    void append(std::span<const T> values) {
        core_.append({reinterpret_cast<const std::uint32_t*>(values.data()), values.size()});
    }
    /// Sets element `index`; throws index_error when index >= size().
    void set(size_type index, T value) {
        check_index(index, "set");
        core_.set(index, to_bits(value));
    }
    /// Encodes any pending write-back block and compacts the arena, so that every full block
    /// is in the contiguous arena (what save, the GPU upload and views read).
    void seal() { core_.seal(); }

    // ---- reads ------------------------------------------------------------------------
    /// Unchecked element access (index < size()).
    [[nodiscard]] T operator[](size_type index) const { return from_bits(core_.get(index)); }
    /// Checked element access: throws index_error when index >= size().
    [[nodiscard]] T at(size_type index) const {
        check_index(index, "at");
        return (*this)[index];
    }
    [[nodiscard]] T front() const { return at(0); }
    [[nodiscard]] T back() const { return at(size() - 1); }

    /// Decodes values [first, first + out.size()) into `out`; throws index_error when the
    /// range is not inside the vector.
    void decode(size_type first, std::span<T> out) const {
        if (first > size() || out.size() > size() - first)
            throw index_error("bitplane::vector::decode: range [" + std::to_string(first) + ", " +
                              std::to_string(first + out.size()) + ") outside size " +
                              std::to_string(size()));
        core_.decode(first, {reinterpret_cast<std::uint32_t*>(out.data()), out.size()});
    }
    /// Decodes everything into a std::vector.
    template <class Allocator = std::allocator<T>>
    [[nodiscard]] std::vector<T, Allocator> to_std_vector() const {
        std::vector<T, Allocator> out(size());
        decode(0, out);
        return out;
    }

    [[nodiscard]] const_iterator begin() const { return const_iterator(this, 0); }
    [[nodiscard]] const_iterator end() const { return const_iterator(this, size()); }
    [[nodiscard]] const_iterator cbegin() const { return begin(); }
    [[nodiscard]] const_iterator cend() const { return end(); }

    // ---- introspection ------------------------------------------------------------------
    /// Bytes held: the arena (capacity), offsets and sizes tables, tail and write-back
    /// buffers, and the object itself.
    [[nodiscard]] size_type memory_bytes() const noexcept { return core_.memory_bytes(); }
    [[nodiscard]] vector_stats stats() const { return core_.stats(); }
    /// Re-checks the whole structure as load() does (every block validated and decoded, the
    /// block table against the blocks); throws format_error naming the block. For vectors
    /// built over bytes from elsewhere; O(size()).
    void validate() const { core_.validate(); }
    [[nodiscard]] size_type block_count() const noexcept { return core_.block_count(); }

    void swap(vector& other) noexcept { core_.swap(other.core_); }
    friend bool operator==(const vector& a, const vector& b) { return a.core_ == b.core_; }

    /// The storage, read-only, for bitplane's own algorithms (operations, GPU upload). Write
    /// access (building a vector from encoded blocks, which are trusted) is for the library
    /// itself only: detail::vector_access, in a header that is not installed.
    [[nodiscard]] const detail::vector_core& core() const noexcept { return core_; }

    /// Random-access iterator over values; dereferencing yields a value (not a reference), as
    /// std::vector<bool>'s iterators do, and like them it declares the random-access category
    /// so that std::next/prev/distance/lower_bound take constant steps. It decodes one block
    /// at a time into a buffer it shares with its copies until one of them moves to another
    /// block; a sequential pass costs one block decode per 2048 values and one compare per
    /// value. std::reverse_iterator dereferences a fresh copy each time, which decodes a block
    /// per element once the copy leaves its original's block: decode() into a buffer for
    /// reverse scans. Copies of an iterator may be used from different threads.
    class const_iterator {
    public:
        using iterator_concept = std::random_access_iterator_tag;
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using reference = T;
        using pointer = void;

        const_iterator() = default;
        const_iterator(const const_iterator& other) noexcept
            : owner_(other.owner_), index_(other.index_), buffer_(other.buffer_), base_(other.base_),
              first_(other.first_), limit_(other.limit_) {
            if (buffer_ != nullptr) buffer_->refs.fetch_add(1, std::memory_order_relaxed);
        }
        const_iterator(const_iterator&& other) noexcept
            : owner_(other.owner_), index_(other.index_), buffer_(std::exchange(other.buffer_, nullptr)),
              base_(other.base_), first_(other.first_), limit_(std::exchange(other.limit_, 0)) {}
        const_iterator& operator=(const const_iterator& other) noexcept {
            if (other.buffer_ != nullptr) other.buffer_->refs.fetch_add(1, std::memory_order_relaxed);
            detail::release(buffer_);
            owner_ = other.owner_;
            index_ = other.index_;
            buffer_ = other.buffer_;
            base_ = other.base_;
            first_ = other.first_;
            limit_ = other.limit_;
            return *this;
        }
        const_iterator& operator=(const_iterator&& other) noexcept {
            if (this != &other) {
                detail::release(buffer_);
                owner_ = other.owner_;
                index_ = other.index_;
                buffer_ = std::exchange(other.buffer_, nullptr);
                base_ = other.base_;
                first_ = other.first_;
                limit_ = std::exchange(other.limit_, 0);
            }
            return *this;
        }
        ~const_iterator() { detail::release(buffer_); }

        T operator*() const {
            // One compare per value: index_ >= first_ whenever limit_ != 0 (the moves that go
            // down drop the window when they leave it), so the buffered block is
            // [first_, limit_) and its value is at base_ + 4 index_.
            if (index_ >= limit_) [[unlikely]] return refill();
            return std::bit_cast<T>(*reinterpret_cast<const std::uint32_t*>(base_ + sizeof(std::uint32_t) * index_));
        }
        T operator[](difference_type n) const { return *(*this + n); }

        const_iterator& operator++() { ++index_; return *this; }
        const_iterator operator++(int) { auto copy = *this; ++index_; return copy; }
        const_iterator& operator--() { --index_; leave_if_below(); return *this; }
        const_iterator operator--(int) { auto copy = *this; --*this; return copy; }
        const_iterator& operator+=(difference_type n) { index_ += static_cast<std::size_t>(n); leave_if_below(); return *this; }
        const_iterator& operator-=(difference_type n) { index_ -= static_cast<std::size_t>(n); leave_if_below(); return *this; }
        friend const_iterator operator+(const_iterator it, difference_type n) { return it += n; }
        friend const_iterator operator+(difference_type n, const_iterator it) { return it += n; }
        friend const_iterator operator-(const_iterator it, difference_type n) { return it -= n; }
        friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
            return static_cast<difference_type>(a.index_) - static_cast<difference_type>(b.index_);
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.index_ == b.index_; }
        friend auto operator<=>(const const_iterator& a, const const_iterator& b) { return a.index_ <=> b.index_; }

        [[nodiscard]] std::size_t index() const noexcept { return index_; }

    private:
        friend class vector;
        const_iterator(const vector* owner, std::size_t index) : owner_(owner), index_(index) {}

        // The slow path, kept small: the decoding is out of line (vector_core::iteration_fill),
        // and nothing here takes the iterator's address, so that a loop over it keeps index_,
        // base_ and limit_ in registers.
        T refill() const {
            limit_ = 0;  // if the fill throws, the buffer's values may be half written
            const detail::iteration_window w = owner_->core_.iteration_fill(index_, buffer_);
            buffer_ = w.buffer;
            first_ = w.first;
            base_ = reinterpret_cast<std::uintptr_t>(buffer_->values) - sizeof(std::uint32_t) * first_;
            limit_ = w.first + w.count;
            return std::bit_cast<T>(buffer_->values[index_ - first_]);
        }
        // After a move down: below the window, the next read refills.
        void leave_if_below() noexcept {
            if (index_ < first_) limit_ = 0;
        }

        const vector* owner_ = nullptr;
        std::size_t index_ = 0;
        mutable detail::iteration_buffer* buffer_ = nullptr;  // shared with copies (refs)
        // buffer_->values minus 4 first_, as an integer: values[index_ - first_] is at
        // base_ + 4 index_, one load with no subtraction (a pointer that far out of its array
        // could not be formed). Read only for first_ <= index_ < limit_.
        mutable std::uintptr_t base_ = 0;
        mutable std::size_t first_ = 0;  // index of buffer_->values[0]
        mutable std::size_t limit_ = 0;  // first_ + values buffered (0: none)
    };

private:
    friend struct detail::vector_access;

    static std::uint32_t to_bits(T value) noexcept { return std::bit_cast<std::uint32_t>(value); }
    static T from_bits(std::uint32_t bits) noexcept { return std::bit_cast<T>(bits); }
    void check_index(size_type index, const char* what) const {
        if (index >= size())
            throw index_error(std::string("bitplane::vector::") + what + ": index " +
                              std::to_string(index) + " >= size " + std::to_string(size()));
    }

    detail::vector_core core_;
};

template <column_value T>
void swap(vector<T>& a, vector<T>& b) noexcept { a.swap(b); }

}  // namespace bitplane
