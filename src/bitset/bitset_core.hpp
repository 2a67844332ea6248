// The storage of a bitset (docs/format.md, section 5, describes it and its file).
//
// Two levels:
//   - the summary: per 64 blocks, a word of non-empty blocks and a word of full blocks, with
//     the number of stored blocks and of set bits before that word (so that rank, select and
//     the entry of a block are found from one summary word);
//   - the stored blocks (non-empty, not full), in block order: a 16-byte entry each (kind,
//     count, items, and the arena offset or the payload itself when it is at most 8 bytes),
//     and one contiguous payload arena.
// Empty and full blocks cost one bit each in the summary and nothing else: set algebra skips
// them with word operations on the summary and never looks at their (absent) entries.
//
// Every block is stored in the encoding chosen by choose_plan() (bitset_block.hpp) from its
// contents alone, so equal sets have equal entries and payload bytes.
#pragma once

#include "bitset/bitset_block.hpp"

#include <bitplane/bitset.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace bitplane::detail {

/// A growable byte buffer with uninitialized growth (payloads are always written before they
/// are read) and `slack` readable bytes past its end, so that short payloads can be copied
/// with fixed-size loads.
///
/// It may also borrow bytes it does not own (borrow(): a frozen view's arena, bitset_view.hpp):
/// those are never freed and never written. Every path that may write (the non-const data(),
/// room(), reserve(), assign(), adopt()) first copies them into storage of its own, so a
/// bitset whose arena is borrowed behaves as any other; a copy of a borrowing buffer owns its
/// bytes.
class byte_buffer {
public:
    static constexpr std::size_t slack = 16;

    byte_buffer() = default;
    byte_buffer(const byte_buffer& other) { assign(other.data_, other.size_); }
    byte_buffer(byte_buffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)),
          size_(std::exchange(other.size_, 0)),
          capacity_(std::exchange(other.capacity_, 0)),
          borrowed_(std::exchange(other.borrowed_, false)) {}
    byte_buffer& operator=(byte_buffer other) noexcept {
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
        std::swap(capacity_, other.capacity_);
        std::swap(borrowed_, other.borrowed_);
        return *this;
    }
    ~byte_buffer() {
        if (!borrowed_) std::free(data_);
    }

    /// For writing: borrowed bytes are copied first (bad_alloc).
    [[nodiscard]] std::byte* data() {
        if (borrowed_) resize_storage(size_ + slack);
        return data_;
    }
    [[nodiscard]] const std::byte* data() const noexcept { return data_; }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }

    /// Room for n more bytes (plus slack) at the end; returns where they go.
    std::byte* room(std::size_t n) {
        if (size_ + n + slack > capacity_) grow(size_ + n + slack);
        return data_ + size_;
    }
    void commit(std::size_t n) noexcept { size_ += n; }
    /// Pads the size to an even number of bytes (0 or 1 zero byte added, returned): payloads
    /// of 16-bit items start at even offsets, and a short last block's raw payload may end the
    /// arena at an odd one before set() or an in-place operator appends after it.
    std::size_t pad_even() {
        if ((size_ & 1) == 0) return 0;
        *room(1) = std::byte{0};
        ++size_;
        return 1;
    }
    std::byte* append(const std::byte* p, std::size_t n) {
        std::byte* at = room(n);
        std::memcpy(at, p, n);
        size_ += n;
        return at;
    }
    void assign(const std::byte* p, std::size_t n) {
        size_ = 0;
        if (n == 0 && data_ == nullptr) return;
        room(n);
        if (n != 0) std::memcpy(data_, p, n);
        size_ = n;
    }
    /// Takes ownership of `p` (from std::malloc, `capacity` bytes, the first `size` in use).
    void adopt(std::byte* p, std::size_t size, std::size_t capacity) noexcept {
        if (!borrowed_) std::free(data_);
        data_ = p;
        size_ = size;
        capacity_ = capacity;
        borrowed_ = false;
    }
    /// Refers to `size` bytes at `p` that the caller keeps alive and unchanged, with `slack`
    /// readable bytes after them; capacity() is then 0 (nothing is held).
    void borrow(const std::byte* p, std::size_t size) noexcept {
        if (!borrowed_) std::free(data_);
        data_ = const_cast<std::byte*>(p);  // never written: see the class comment
        size_ = size;
        capacity_ = 0;
        borrowed_ = true;
    }
    [[nodiscard]] bool borrowed() const noexcept { return borrowed_; }
    void reserve(std::size_t n) {
        if (n + slack > capacity_) grow(n + slack, true);
    }
    void shrink_to_fit() {
        if (data_ == nullptr || borrowed_ || capacity_ == size_ + slack) return;
        resize_storage(size_ + slack);
    }

private:
    void grow(std::size_t need, bool exact = false) {
        std::size_t cap = exact ? need : std::max<std::size_t>({need, capacity_ * 2, 256});
        resize_storage(cap);
    }
    void resize_storage(std::size_t cap) {
        if (borrowed_) {  // copy out, never realloc what is not ours
            void* fresh = std::malloc(cap);
            if (fresh == nullptr) throw std::bad_alloc();
            if (size_ != 0) std::memcpy(fresh, data_, size_);
            data_ = static_cast<std::byte*>(fresh);
            capacity_ = cap;
            borrowed_ = false;
            return;
        }
        void* p = std::realloc(data_, cap);
        if (p == nullptr) throw std::bad_alloc();
        data_ = static_cast<std::byte*>(p);
        capacity_ = cap;
    }

    std::byte* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
    bool borrowed_ = false;
};

/// One summary word: 64 blocks.
struct summary_word {
    std::uint64_t nonempty = 0;       // block has a set bit
    std::uint64_t full = 0;           // block has every bit set (subset of nonempty)
    std::uint64_t stored_before = 0;  // stored blocks (entries) before this word
    std::uint64_t ones_before = 0;    // set bits before this word, less the core's fix-up (see
                                      // bitset_core::ones_before(): read it through that)
};

class bitset_core {
public:
    /// An empty set over [0, size), or the full one.
    explicit bitset_core(std::uint64_t size = 0, bool value = false);

    [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
    [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
    [[nodiscard]] std::size_t block_count() const noexcept { return blocks_; }
    [[nodiscard]] std::uint32_t block_len(std::size_t b) const noexcept { return block_length(size_, b); }

    [[nodiscard]] const std::vector<summary_word>& words() const noexcept { return words_; }
    [[nodiscard]] const std::vector<block_entry>& entries() const noexcept { return entries_; }
    [[nodiscard]] const std::byte* arena() const noexcept { return arena_.data(); }
    /// Arena bytes that entries refer to.
    [[nodiscard]] std::size_t payload_bytes() const noexcept { return arena_.size() - garbage_; }
    [[nodiscard]] const std::byte* payload(const block_entry& e) const noexcept { return payload_of(e, arena_.data()); }
    /// Entry index of stored block b (which must be stored).
    [[nodiscard]] std::size_t entry_index(std::size_t b) const noexcept {
        const summary_word& w = words_[b / 64];
        return w.stored_before + popcount64(below(w.nonempty & ~w.full, b % 64));
    }
    /// The length of stored entry i (entries in block order): block_values, except the last
    /// entry's where it stores the last block and that block is short.
    [[nodiscard]] std::uint32_t stored_len(std::size_t i) const noexcept {
        if (i + 1 != entries_.size() || blocks_ == 0) return static_cast<std::uint32_t>(block_values);
        const std::size_t last = blocks_ - 1;
        const summary_word& w = words_.back();
        const bool last_stored = (((w.nonempty & ~w.full) >> (last % 64)) & 1) != 0;
        return last_stored ? block_len(last) : static_cast<std::uint32_t>(block_values);
    }
    /// Mask of the valid blocks of summary word w (the last word may be partial).
    [[nodiscard]] std::uint64_t valid_mask(std::size_t w) const noexcept {
        const std::size_t left = blocks_ - 64 * w;
        return left >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << left) - 1;
    }

    /// Set bits before summary word w (exact: the word's field plus its group's fix-up).
    [[nodiscard]] std::uint64_t ones_before(std::size_t w) const noexcept {
        return words_[w].ones_before + (ones_fix_.empty() ? 0 : ones_fix_[w >> fix_shift_]);
    }

    [[nodiscard]] bool contains(std::uint64_t pos) const noexcept;
    [[nodiscard]] std::uint64_t rank(std::uint64_t pos) const noexcept;     // pos <= size
    [[nodiscard]] std::uint64_t select(std::uint64_t k) const noexcept;     // k < count
    [[nodiscard]] std::uint64_t next_set(std::uint64_t from) const noexcept;  // size() if none
    void append_positions(std::vector<std::uint64_t>& out) const;
    /// Block b's bits into `out` (cleared first).
    void block_plane(std::size_t b, plane& out) const noexcept;
    [[nodiscard]] bool equals(const bitset_core& other) const noexcept;
    [[nodiscard]] std::size_t memory_bytes() const noexcept;

    void set(std::uint64_t pos, bool value);

private:
    friend class core_writer;
    friend class core_access;

    void replace_block(std::size_t b, const plane& bits, const block_stats& stats);
    void compact_arena();
    // ---- single-bit and range edits (bitset_core.cpp, bitset_edit.cpp)
    /// The summary of an empty universe costs 32 bytes per 2^17 bits; a universe whose summary
    /// would exceed this (more than 2^46 bits) is refused with argument_error.
    static constexpr std::uint64_t max_summary_bytes = std::uint64_t{1} << 34;
    /// Blocks of a universe of `size` bits, without wrapping near 2^64 (argument_error above).
    static std::size_t blocks_for(std::uint64_t size);
    void set_in_empty(std::size_t b, std::uint32_t off);
    void edit_stored(std::size_t b, std::uint32_t off, bool value);
    // One bit of stored block b (entry e, `len` bits) set or cleared, by its kind: in place
    // where the block keeps its kind, re-encoded from a plane (replace_block) where it changes.
    void edit_raw(std::size_t b, block_entry& e, std::uint32_t len, std::uint32_t off, bool value);
    void edit_runs(std::size_t b, block_entry& e, std::uint32_t len, std::uint32_t off, bool value);
    void edit_positions(std::size_t b, block_entry& e, std::uint32_t len, std::uint32_t off, bool value);
    /// Stores sorted distinct positions p[0..n) (0 < n < len, p in a position_buffer) as block
    /// b, whose entry idx exists (`exists`) or is to be inserted there. Summary bits untouched.
    void put_positions(std::size_t idx, bool exists, const std::uint16_t* p, std::uint32_t n, std::uint32_t len);
    /// Where a payload of `bytes` goes for entry e (which held `old_bytes` when `had`): inline,
    /// in place, extended at the arena's end, or appended; keeps garbage_ exact.
    std::byte* place_payload(block_entry& e, bool had, std::uint32_t old_bytes, std::uint32_t bytes);
    /// count_ and the exact ones_before() of the words after wi moved by delta (modulo 2^64):
    /// the later words of wi's group and the fix-ups of the later groups (O(sqrt(words))).
    void add_ones_after(std::size_t wi, std::uint64_t delta) noexcept;
    /// Sets up the groups of ones_fix_ (summaries over fix_min_words words) if not yet there.
    void prepare_fix();
    static constexpr std::size_t fix_min_words = 32;
    /// stored_before of the words after wi moved by delta (an entry inserted or erased).
    void add_stored_after(std::size_t wi, std::uint64_t delta) noexcept;
    void maybe_compact();

public:
    /// Bits [lo, hi) of block b set (op 0), cleared (1) or flipped (2), re-encoded once.
    void edit_block_range(std::size_t b, std::uint32_t lo, std::uint32_t hi, int op);

private:

    std::uint64_t size_ = 0;
    std::uint64_t count_ = 0;
    std::size_t blocks_ = 0;
    std::vector<summary_word> words_;
    std::vector<block_entry> entries_;
    byte_buffer arena_;
    std::uint64_t garbage_ = 0;  // arena bytes no entry refers to any more (after set())
    // Fix-ups of ones_before left by single-bit edits: words are grouped by 2^fix_shift_ (about
    // the square root of their number), and ones_fix_[g] is added to the ones_before of every
    // word of group g. Empty (no fix-ups) in every core built by a writer or index().
    std::vector<std::uint64_t> ones_fix_;
    unsigned fix_shift_ = 0;
};

/// Builds a core block by block in increasing block order (results of set algebra,
/// from_positions, load). Blocks not added are empty.
class core_writer {
public:
    core_writer(std::uint64_t size, std::size_t entries_hint, std::size_t arena_hint);

    [[nodiscard]] std::uint64_t size() const noexcept { return core_->size_; }
    [[nodiscard]] std::size_t block_count() const noexcept { return core_->blocks_; }

    /// A writer whose result takes over `reuse`'s arena, for the in-place operators: the
    /// payloads of `reuse` stay where they are (keep() refers to them, add_in_place() rewrites
    /// a raw one over itself), `reuse` keeps its summary and entries for the caller to read
    /// (payload_of(e, arena())). The arena grows (and may move) as blocks are added: a payload
    /// of `reuse` handed to an add_*() must not be read after the arena grew (add_computed()
    /// reads its operands after making room; only add_in_place() may work on a reused raw
    /// payload).
    core_writer(bitset_core& reuse, std::size_t entries_hint) : core_(std::make_unique<bitset_core>(reuse.size_)) {
        core_->entries_.reserve(entries_hint);
        core_->arena_ = std::move(reuse.arena_);
        core_->garbage_ = reuse.garbage_;
    }
    [[nodiscard]] const std::byte* arena() const noexcept { return core_->arena_.data(); }
    /// Block b stored as `e` of the reused core, payload and all where it is.
    void keep(std::size_t b, const block_entry& e) {
        enter(b);
        core_->entries_.push_back(e);
        mark(b, e.count);
    }
    /// A payload of the reused core that no entry refers to any more.
    void drop(const block_entry& e, std::uint32_t len) noexcept {
        if (!e.inline_payload) core_->garbage_ += payload_size(e, len);
    }
    /// Block b (full length) computed over the reused raw payload at `offset`: `compute(at)`
    /// rewrites its 256 bytes in place and returns their stats. Kept there if it stays raw,
    /// re-encoded at the arena's end otherwise (the old bytes then garbage).
    template <class Compute>
    void add_in_place(std::size_t b, std::uint64_t offset, Compute&& compute) {
        const std::uint32_t len = core_->block_len(b);
        std::byte* at = core_->arena_.data() + offset;
        const block_stats s = compute(at);
        if (s.count >= raw_plane_bytes(len) && s.count != len) {
            std::uint32_t last_word;
            std::memcpy(&last_word, at + block_values / 8 - 4, 4);
            const std::uint32_t runs = runs_from_transitions(s.transitions, (last_word >> 31) != 0);
            const bitset_block_plan plan = choose_plan(s.count, runs, len);
            if (plan.kind == block_kind::raw) {
                enter(b);
                block_entry& e = slot(s.count, plan);
                e.offset = offset;
                mark(b, s.count);
                return;
            }
        }
        core_->garbage_ += block_values / 8;
        plane p;
        std::memcpy(p.data(), at, block_values / 8);
        add_plane(b, p, s);
    }


    [[nodiscard]] std::uint32_t block_len(std::size_t b) const noexcept { return core_->block_len(b); }

    void add_full(std::size_t b) {
        enter(b);
        summary_word& w = core_->words_[b / 64];
        const std::uint64_t bit = std::uint64_t{1} << (b % 64);
        w.nonempty |= bit;
        w.full |= bit;
        core_->count_ += core_->block_len(b);
    }

    /// A stored block copied from another core (same block length).
    void add_copy(std::size_t b, const block_entry& e, const std::byte* payload) {
        enter(b);
        core_->entries_.push_back(e);  // copied from memory as a whole (see slot())
        if (!e.inline_payload)
            core_->entries_.back().offset = append_payload(payload, payload_size(e, core_->block_len(b)));
        mark(b, e.count);
    }

    /// Block b from a plane (bits at or beyond its length clear) and its stats.
    void add_plane(std::size_t b, const plane& p, const block_stats& s) {
        const std::uint32_t len = core_->block_len(b);
        if (s.count == 0) return;
        if (s.count == len) return add_full(b);
        if (s.count < raw_plane_bytes(len)) {  // positions or gaps may win: work from positions
            position_buffer<block_values / 8> positions;
            bitset_kernels().extract_positions(p.data(), positions.data());
            return add_positions(b, positions.data(), s.count);
        }
        enter(b);
        const bitset_block_plan plan = plan_for_plane(p, s, len);
        block_entry& e = slot(s.count, plan);
        write_plane_payload(plan, p, len, target(e, plan.bytes));
        mark(b, s.count);
    }

    /// Block b computed straight into the arena's end: `compute(at)` writes the block's 256
    /// bytes (bits at or beyond its length clear) at `at` and returns their stats; kept there
    /// when raw, re-encoded otherwise (add_room()).
    template <class Compute>
    void add_computed(std::size_t b, Compute&& compute, const bitset_kernel_table& k = bitset_kernels()) {
        const block_stats s = compute(room());
        add_room(b, s, k);
    }

    /// Block b from its sorted distinct positions p[0..n), in a position_buffer (its slack is
    /// written).
    void add_positions(std::size_t b, const std::uint16_t* p, std::uint32_t n) {
        const std::uint32_t len = core_->block_len(b);
        if (n == 0) return;
        if (n == len) return add_full(b);
        enter(b);
        const std::uint32_t runs = n <= 8 ? facts_of_few(p, n).runs : facts_of(p, n).runs;
        const bitset_block_plan plan = choose_plan(n, runs, len);
        block_entry& e = slot(n, plan);
        write_positions_payload(plan, p, n, len, target(e, plan.bytes));
        mark(b, n);
    }

    std::unique_ptr<bitset_core> finish();

private:
    // Fills the "before" fields of the words up to b's word.
    void enter(std::size_t b) noexcept {
        const std::size_t w = b / 64;
        while (current_word_ < w) {
            summary_word& next = core_->words_[++current_word_];
            next.stored_before = core_->entries_.size();
            next.ones_before = core_->count_;
        }
    }
    std::uint64_t append_payload(const std::byte* p, std::uint32_t bytes) {
        core_->garbage_ += core_->arena_.pad_even();
        std::byte* at = core_->arena_.room(bytes);
        std::memcpy(at, p, bytes);
        const std::uint64_t offset = static_cast<std::uint64_t>(at - core_->arena_.data());
        core_->arena_.commit(bytes);
        return offset;
    }
    // Where the payload of `e` (bytes long) is to be written: inline, or at the arena's end.
    std::byte* target(block_entry& e, std::uint32_t bytes) {
        if (is_inline(bytes)) {
            e.inline_payload = 1;
            return reinterpret_cast<std::byte*>(&e.offset);
        }
        core_->garbage_ += core_->arena_.pad_even();
        std::byte* at = core_->arena_.room(bytes);
        e.offset = static_cast<std::uint64_t>(at - core_->arena_.data());
        core_->arena_.commit(bytes);
        return at;
    }
    // A new entry, built where it stays: an entry assembled elsewhere from narrow stores (the
    // fields, an inline payload) and then copied would be reloaded as one 16-byte load, which
    // cannot be forwarded from those stores and stalls for about as long as the whole block
    // operation of a sparse block takes.
    block_entry& slot(std::uint32_t count, const bitset_block_plan& plan) {
        block_entry& e = core_->entries_.emplace_back();
        e.count = static_cast<std::uint16_t>(count);
        e.items = plan.items;
        e.kind = plan.kind;
        return e;
    }
    void mark(std::size_t b, std::uint32_t count) noexcept {
        core_->words_[b / 64].nonempty |= std::uint64_t{1} << (b % 64);
        core_->count_ += count;
    }

    std::unique_ptr<bitset_core> core_;
    std::size_t current_word_ = 0;

public:
    // ---- results written in place (AND / ANDNOT, block_intersection.cpp) ----------------------
    /// Where a 2048-bit result may be written (256 bytes at the arena's end, valid until the
    /// next add): a kernel writes it there, then add_room() keeps it as raw or re-encodes it.
    std::byte* room() {
        core_->garbage_ += core_->arena_.pad_even();
        return core_->arena_.room(block_values / 8);
    }
    /// Block b, whose bits (clear at and beyond its length) were written at room(), with their
    /// stats.
    void add_room(std::size_t b, const block_stats& s, const bitset_kernel_table& k) {
        const std::uint32_t len = core_->block_len(b);
        if (s.count == 0) return;
        if (s.count == len) return add_full(b);
        byte_buffer& arena = core_->arena_;
        std::byte* const at = arena.data() + arena.size();
        const bool top = (static_cast<std::uint32_t>(at[block_values / 8 - 1]) >> 7) != 0;  // bit 2047
        const bitset_block_plan plan = choose_plan(s.count, runs_from_transitions(s.transitions, top), len);
        if (plan.kind == block_kind::raw) {
            enter(b);
            block_entry& e = slot(s.count, plan);
            e.offset = arena.size();
            arena.commit(plan.bytes);
            mark(b, s.count);
            return;
        }
        if (plan.kind == block_kind::positions) {
            position_buffer<thresholds::bitset_positions_max_count + 8> positions;
            k.extract_positions(at, positions.data());
            return add_positions(b, positions.data(), s.count);
        }
        // Runs: their ends are the set bits of p XOR (p << 1) (bit 2048 ends a run that reaches
        // the end), taken out before the payload is written where the bits are.
        std::uint64_t t[block_values / 64];
        std::uint64_t carry = 0;
        for (std::uint32_t w = 0; w < block_values / 64; ++w) {
            std::uint64_t word;
            std::memcpy(&word, at + 8 * w, 8);
            t[w] = word ^ ((word << 1) | carry);
            carry = word >> 63;
        }
        position_buffer<2 * block_values / 32 + 8> ends;
        std::uint32_t n = k.extract_positions(t, ends.data());
        if (top) ends.data()[n++] = static_cast<std::uint16_t>(block_values);
        enter(b);
        block_entry& e = slot(s.count, plan);
        std::memcpy(target(e, plan.bytes), ends.data(), 2u * n);
        mark(b, s.count);
    }
    /// Blocks b0 .. b0 + n - 1 (full length, one summary word, n <= 64) computed by one kernel
    /// call straight into the arena's end: `compute(at, stats)` writes their n * 256 bytes at
    /// `at` and each block's stats (as the stretch kernels: bitset_kernels.hpp). Blocks that
    /// stay raw stay where they were written (moved down past any that did not, which are
    /// re-encoded: empty, full, positions, runs).
    template <class Compute>
    void add_raw_stretch(std::size_t b0, std::size_t n, Compute&& compute) {
        constexpr std::uint32_t bytes = block_values / 8;
        static_assert(choose_plan(stretch_raw_min - 1, block_values, block_values).kind != block_kind::raw &&
                      choose_plan(stretch_raw_min, stretch_runs_never / 2, block_values).kind == block_kind::raw);
        byte_buffer& arena = core_->arena_;
        block_stats stats[64];
        core_->garbage_ += arena.pad_even();
        compute(arena.room(n * bytes), stats);
        std::size_t from = arena.size();  // block i's bytes (the arena does not move below)
        enter(b0);
        summary_word& w = core_->words_[b0 / 64];
        std::uint64_t ones = 0;
        for (std::size_t i = 0; i < n; ++i, from += bytes) {
            const block_stats s = stats[i];
            const std::byte* at = arena.data() + from;
            const bool top = (static_cast<std::uint32_t>(at[bytes - 1]) >> 7) != 0;  // bit 2047
            if (full_block_stays_raw(s, top)) {
                block_entry& e = slot(s.count, {block_kind::raw, 0, bytes});
                e.offset = arena.size();
                if (e.offset != from) std::memmove(arena.data() + e.offset, at, bytes);
                arena.commit(bytes);
                w.nonempty |= std::uint64_t{1} << ((b0 + i) % 64);
                ones += s.count;
                continue;
            }
            // Rare: re-encoded from a copy, at the arena's end (below `from`: nothing unread).
            plane p;
            std::memcpy(p.data(), at, bytes);
            core_->count_ += ones;
            ones = 0;
            add_plane(b0 + i, p, s);
        }
        core_->count_ += ones;
    }
    /// Block b from `runs` maximal runs r = begin0, end0, begin1, ... (sorted, not touching)
    /// holding `count` bits.
    void add_runs(std::size_t b, const std::uint16_t* r, std::uint32_t runs, std::uint32_t count,
                  const bitset_kernel_table& k = bitset_kernels()) {
        const std::uint32_t len = core_->block_len(b);
        if (count == 0) return;
        if (count == len) return add_full(b);
        const bitset_block_plan plan = choose_plan(count, runs, len);
        if (plan.kind == block_kind::runs) {
            enter(b);
            block_entry& e = slot(count, plan);
            std::memcpy(target(e, plan.bytes), r, 4u * runs);
            mark(b, count);
        } else if (plan.kind == block_kind::positions) {
            position_buffer<thresholds::bitset_positions_max_count + 8> positions;
            std::uint32_t n = 0;
            for (std::uint32_t i = 0; i < runs; ++i)
                for (std::uint32_t bit = r[2 * i]; bit < r[2 * i + 1]; ++bit) positions.data()[n++] = static_cast<std::uint16_t>(bit);
            add_positions(b, positions.data(), n);
        } else {
            std::uint64_t bits[block_values / 64] = {};
            for (std::uint32_t i = 0; i < runs; ++i) set_range64(bits, r[2 * i], r[2 * i + 1]);
            std::memcpy(room(), bits, block_values / 8);
            const bool top = runs != 0 && r[2 * runs - 1] == block_values;
            add_room(b, {count, 2 * runs - top}, k);
        }
    }
};

/// What the algebra, the builder and the serializer reach inside a core.
class core_access {
public:
    static std::vector<summary_word>& words(bitset_core& c) noexcept { return c.words_; }
    static std::vector<block_entry>& entries(bitset_core& c) noexcept { return c.entries_; }
    static byte_buffer& arena(bitset_core& c) noexcept { return c.arena_; }
    static void set_count(bitset_core& c, std::uint64_t n) noexcept { c.count_ = n; }
    /// Recomputes the "before" fields of every summary word and the count from the entries.
    static void index(bitset_core& c) noexcept;
};

/// Inside a bitset object.
class bitset_access {
public:
    static bitset make(std::unique_ptr<bitset_core> core) noexcept { return bitset(std::move(core)); }
    static const bitset_core* get(const bitset& s) noexcept { return s.core_.get(); }
};

}  // namespace bitplane::detail
