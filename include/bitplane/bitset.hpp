// bitplane::bitset: a compressed set of positions in [0, size()), stored in blocks of 2048
// bits, each all-zero or all-one (a summary bit), a sorted position list (below 128 set bits),
// runs, or raw bits, chosen by what operations cost; files use smaller coded forms
// (docs/format.md section 5). Scans of vectors return bitsets; set algebra works block by
// block without expanding empty or full blocks.
//
// Complexity: count() O(1); contains/test O(log) within a block; rank O(blocks / 64 + block);
// select O(log blocks + block); set algebra O(non-empty blocks); iteration O(count + blocks).
// Thread safety: concurrent const use is safe; non-const calls need exclusive access.
#pragma once

#include <bitplane/block.hpp>
#include <bitplane/error.hpp>

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <iterator>
#include <memory>
#include <span>
#include <vector>

namespace bitplane {

class bitset;

namespace detail {
class bitset_core;
class bitset_builder;
class bitset_access;
struct block_entry;
struct out_cursor;
/// The storage of `s` (an empty one of size 0 when `s` was moved from).
const bitset_core& core_of(const bitset& s) noexcept;
}  // namespace detail

class bitset {
public:
    using size_type = std::size_t;

    bitset();
    /// A bitset over [0, size) with every bit `value`.
    explicit bitset(size_type size, bool value = false);
    /// From strictly increasing positions, each < size (argument_error otherwise).
    static bitset from_positions(std::span<const std::uint64_t> positions, size_type size);

    bitset(const bitset&);
    bitset(bitset&&) noexcept;
    bitset& operator=(const bitset&);
    bitset& operator=(bitset&&) noexcept;
    ~bitset();

    [[nodiscard]] size_type size() const noexcept;        ///< universe size in bits
    [[nodiscard]] std::uint64_t count() const noexcept;   ///< set bits
    [[nodiscard]] bool none() const noexcept { return count() == 0; }
    [[nodiscard]] bool any() const noexcept { return count() != 0; }
    [[nodiscard]] bool all() const noexcept { return count() == size(); }

    /// Whether `pos` is set; false for pos >= size().
    [[nodiscard]] bool contains(size_type pos) const noexcept;
    /// Whether `pos` is set; index_error for pos >= size().
    [[nodiscard]] bool test(size_type pos) const;
    /// Sets or clears one bit; index_error for pos >= size().
    void set(size_type pos, bool value = true);
    void reset(size_type pos) { set(pos, false); }

    /// Set bits in [0, pos), pos <= size() (index_error otherwise).
    [[nodiscard]] std::uint64_t rank(size_type pos) const;
    /// Position of the set bit with rank k (0-based); index_error when k >= count().
    [[nodiscard]] size_type select(std::uint64_t k) const;

    /// Every set position, ascending.
    [[nodiscard]] std::vector<std::uint64_t> to_positions() const;

    /// Re-checks the whole structure with the checks load_bitset applies (summary against
    /// blocks, each block's encoding and count); throws format_error. O(size() / 2048 + bytes).
    void validate() const;

    // ---- iteration, seek, positions ---------------------------------------------------------
    /// Forward iterator over set positions, ascending. It decodes the set a chunk at a time
    /// (whole blocks while they fit, or a part of one, at most 256 positions) into a buffer of
    /// its own, so ++ is a load and a compare; copies are independent (each carries its buffer,
    /// about 1.2 KB, and copies only its undelivered part). Two iterators compare equal when they are at the same position;
    /// every exhausted iterator equals end(). Invalidated by any change to the set (set(),
    /// operators, assignment), not by moving the bitset.
    class const_iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = std::uint64_t;
        using difference_type = std::ptrdiff_t;
        using reference = std::uint64_t;
        using pointer = void;
        const_iterator() = default;
        const_iterator(const const_iterator& other) noexcept { copy_from(other); }
        const_iterator& operator=(const const_iterator& other) noexcept {
            if (this != &other) copy_from(other);
            return *this;
        }
        std::uint64_t operator*() const noexcept { return position_; }
        const_iterator& operator++() noexcept {
            if (++index_ < filled_) {
                position_ = base_ + buffer_[index_];
            } else {
                refill();
            }
            return *this;
        }
        const_iterator operator++(int) noexcept { auto copy = *this; ++*this; return copy; }
        friend bool operator==(const const_iterator& a, const const_iterator& b) noexcept {
            return a.position_ == b.position_;
        }

    private:
        friend class bitset;
        static constexpr std::uint32_t chunk = 256;  // positions decoded at once, at most
        static constexpr std::uint32_t slack = 32;   // written past the last by the decoders
        // At the first set position >= from, or at the end.
        const_iterator(const detail::bitset_core* core, std::uint64_t from) noexcept;
        void refill() noexcept;
        // Whole blocks from cur on into the buffer (or the first chunk of a block larger than
        // one), or the end.
        void load_blocks(detail::out_cursor& cur) noexcept;
        // Decodes the positions >= from of the current block (block_), at most a chunk;
        // false when there are none.
        bool fill(std::uint32_t from) noexcept;
        void copy_from(const const_iterator& other) noexcept;

        const detail::bitset_core* core_ = nullptr;
        std::uint64_t position_ = 0;  // size() at the end
        std::uint64_t base_ = 0;      // buffer_ holds positions - base_
        std::uint64_t block_ = 0;     // the last block decoded (in part or whole)
        std::uint64_t entry_ = 0;     // stored blocks before block_ (its entry when stored)
        std::uint32_t index_ = 0;     // buffer_[index_] is position_ - base_
        std::uint32_t filled_ = 0;
        std::uint32_t next_ = 0;      // where in block_ the next chunk starts (its length: done)
        std::uint32_t item_ = 0;      // runs: the run that the next chunk starts in
        std::uint32_t buffer_[chunk + slack];
    };
    [[nodiscard]] const_iterator begin() const;
    [[nodiscard]] const_iterator end() const;
    /// The iterator at the first set position >= pos (end() when there is none; any pos,
    /// also >= size()). O(blocks / 64 to the next non-empty block + one block).
    [[nodiscard]] const_iterator seek(size_type pos) const;
    [[nodiscard]] const_iterator lower_bound(size_type pos) const { return seek(pos); }
    /// The first set position >= pos, or size() when there is none.
    [[nodiscard]] size_type next_set(size_type pos) const noexcept;
    /// Every set position, ascending, into out[0, count()); returns count(). size_error when
    /// out is shorter than count(). O(count() + blocks / 64), vectorized per block kind.
    std::size_t to_positions(std::span<std::uint64_t> out) const;
    /// The same in 32 bits: argument_error when size() > 2^32 (a position would not fit),
    /// size_error when out is shorter than count().
    std::size_t to_positions(std::span<std::uint32_t> out) const;

    // ---- set algebra (size_error when sizes differ) ---------------------------------------
    bitset& operator&=(const bitset& other);
    bitset& operator|=(const bitset& other);
    bitset& operator^=(const bitset& other);
    /// this = this AND NOT other.
    bitset& subtract(const bitset& other);
    friend bitset operator&(const bitset& a, const bitset& b);
    friend bitset operator|(const bitset& a, const bitset& b);
    friend bitset operator^(const bitset& a, const bitset& b);
    friend bitset operator~(const bitset& a);
    friend bitset andnot(const bitset& a, const bitset& b);
    friend bool operator==(const bitset& a, const bitset& b);

    // ---- ranges and edits (src/bitset/bitset_edit.cpp) --------------------------------------
    // Ranges are [begin, end) with begin <= end <= size() (index_error otherwise); an empty
    // range changes nothing. A range within one or two blocks (2048 bits each) re-encodes those
    // blocks, O(blocks / 64 + entries) for the summary; a longer one is one pass of set algebra
    // with the range's own bitset (full blocks cost a bit each), O(blocks / 64 + stored blocks).
    void add_range(size_type begin, size_type end);
    void remove_range(size_type begin, size_type end);
    void flip_range(size_type begin, size_type end);
    /// Whether every position of [begin, end) is set (true for an empty range).
    [[nodiscard]] bool contains_range(size_type begin, size_type end) const;
    /// Set bits in [begin, end). O(blocks / 64 + two blocks).
    [[nodiscard]] std::uint64_t count_range(size_type begin, size_type end) const;
    /// Sets every position of `positions`, in any order, repeats allowed; index_error (and no
    /// change) if one is >= size(). Sorted and grouped by block, each block merged once.
    void add_many(std::span<const std::uint32_t> positions);
    void add_many(std::span<const std::uint64_t> positions);

    /// Bytes held (blocks, tables, the object).
    [[nodiscard]] std::size_t memory_bytes() const noexcept;

    [[nodiscard]] const detail::bitset_core& core() const noexcept { return detail::core_of(*this); }

private:
    friend class detail::bitset_builder;
    friend class detail::bitset_access;
    explicit bitset(std::unique_ptr<detail::bitset_core> core) noexcept;
    std::unique_ptr<detail::bitset_core> core_;
};

/// Set bits of a AND b, without building it (size_error when sizes differ). O(non-empty blocks).
[[nodiscard]] std::uint64_t and_count(const bitset& a, const bitset& b);

// ---- relations -------------------------------------------------------------------------------
/// Whether a and b have a set bit in common (size_error when sizes differ). Stops at the first
/// block pair that shares one; O(non-empty blocks) at worst.
[[nodiscard]] bool intersects(const bitset& a, const bitset& b);
/// Whether every set bit of a is set in b (size_error when sizes differ). Stops at the first
/// block that settles it; O(non-empty blocks of a) at worst.
[[nodiscard]] bool is_subset(const bitset& a, const bitset& b);
/// The Jaccard index |a AND b| / |a OR b|, 1 for two empty sets (size_error when sizes differ).
/// O(non-empty blocks), as and_count.
[[nodiscard]] double jaccard(const bitset& a, const bitset& b);

// ---- many-way ------------------------------------------------------------------------------
/// Union of every set (as roaring_bitmap_or_many): one walk over the blocks, each block's
/// stored operands OR-ed into one plane, never an intermediate set. No sets: an empty set of
/// size 0. size_error when sizes differ. O(non-empty blocks of all the sets).
[[nodiscard]] bitset unite(std::span<const bitset* const> sets);
/// Intersection of every set: pairwise, smallest first, stopping once empty. No sets: an
/// empty set of size 0. size_error when sizes differ.
[[nodiscard]] bitset intersect(std::span<const bitset* const> sets);

/// Appends a saved bitset (checksummed, validated on load like vectors; docs/format.md).
void save(const bitset& set, std::vector<std::byte>& out);
void save(const bitset& set, std::ostream& out);
/// Loads a saved bitset; format_error on anything malformed.
bitset load_bitset(std::span<const std::byte> bytes);
bitset load_bitset(std::istream& in);

namespace detail {

struct bitset_kernel_table;

/// Builds a bitset block by block, for scans: blocks may be set in any order and from
/// several threads at once (distinct blocks), then finish() assembles the bitset.
class bitset_builder {
    struct state;

public:
    explicit bitset_builder(std::size_t size);
    bitset_builder(const bitset_builder&) = delete;
    bitset_builder& operator=(const bitset_builder&) = delete;
    ~bitset_builder();

    /// One thread's way into the builder (a scan's task): the arena bytes it reserves for a
    /// block before the block's encoding is known stay its own until it commits them to a
    /// block or is destroyed, when it hands back what it did not use. Several writers may work
    /// at once (distinct blocks); each is used by one thread and destroyed before finish().
    class writer {
    public:
        /// `end_block`: where the writer's blocks, set in ascending order, end (a scan task's
        /// last block + 1), so that it may take arena bytes for several raw blocks at once; 0
        /// where unknown (bytes taken block by block).
        explicit writer(bitset_builder& builder, std::size_t end_block = 0) noexcept
            : state_(builder.state_.get()), end_(end_block) {}
        writer(const writer&) = delete;
        writer& operator=(const writer&) = delete;
        ~writer();

        /// As bitset_builder::set_block / set_block_full.
        void set_block(std::size_t block, const plane& bits);
        void set_block_full(std::size_t block);
        /// As set_block, for a plane whose set bits the caller counted (`count`: a scan's
        /// kernel counts as it compares), so that a sparse one goes to its positions without
        /// a pass of its own to count it. A wrong count costs time, never a wrong block.
        void set_block_counted(std::size_t block, const plane& bits, std::uint32_t count);
        /// A count no plane has (a scan's "not counted").
        static constexpr std::uint32_t unknown_count = ~std::uint32_t{0};

    private:
        template <bool Counted>
        void store(std::size_t block, const plane& bits, std::uint32_t count);
        bool set_counted_sparse(block_entry& slot, std::size_t block, const plane& bits, std::uint32_t len);

        state* state_;
        std::uint64_t free_from_ = 0;  // [free_from_, free_to_): arena bytes reserved, not committed
        std::uint64_t free_to_ = 0;
        std::size_t end_ = 0;  // the constructor's end_block
        const bitset_kernel_table* kernels_ = nullptr;  // the active path's, taken at the first block
        std::size_t stored_ = 0;  // blocks stored (neither empty nor full), told to finish() when it ends
        bool copy_next_ = false;  // the previous full-length plane was stored raw (see set_block)
        bool runs_next_ = false;  // the previous plane was stored as runs (see set_block)
    };

    /// Bits of block `block` (positions [2048 block, 2048 block + 2048)); bits at or beyond
    /// size() must be clear. Blocks never set stay empty. A writer per thread does the same
    /// with fewer atomic operations.
    void set_block(std::size_t block, const plane& bits);
    /// Block `block` all set (up to size()).
    void set_block_full(std::size_t block);
    [[nodiscard]] std::size_t block_count() const noexcept;
    bitset finish();

private:
    std::unique_ptr<state> state_;
};

}  // namespace detail

}  // namespace bitplane
