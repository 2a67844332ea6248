// The type-erased storage behind bitplane::vector<T>: values as 32-bit patterns, sealed
// blocks in one arena, and per sealed block its descriptor and its summary (min and max key,
// exact sum: block_summary.hpp), made where the values are at hand (seal, append, write-back
// flush, load) so that sums and scans need not read a block to know what it holds. Sealed
// blocks whose encoded bytes are identical share one entry of the block table (and one copy
// of the bytes): a column of runs is mostly constant blocks, and each then costs a 4-byte
// index instead of ~70 bytes. Writes copy a shared entry first. Not part of the public API;
// use bitplane::vector.
#pragma once

#include <bitplane/codec.hpp>
#include <bitplane/detail/block_descriptor.hpp>
#include <bitplane/detail/block_summary.hpp>
#include <bitplane/detail/decode_destination.hpp>
#include <bitplane/stats.hpp>

#include <bitplane/detail/default_init_allocator.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

namespace bitplane::detail {

/// One block's values decoded for vector<T>::const_iterator, shared by an iterator and its
/// copies (`refs` of them) until one of them moves to another block: an iterator writes into
/// its buffer only while it holds the only reference.
struct iteration_buffer {
    std::atomic<std::uint32_t> refs{1};
    alignas(64) std::uint32_t values[block_values];
};

/// Drops one reference to `buffer` (may be null), deleting it with the last. Out of line: inline,
/// g++ 12 saw the delete and warned of a use after free in every copy (-Wuse-after-free).
void release(iteration_buffer* buffer) noexcept;

/// What iteration_fill gives an iterator: values [first, first + count) in buffer->values.
struct iteration_window {
    iteration_buffer* buffer = nullptr;
    std::size_t first = 0;
    std::size_t count = 0;
};

class vector_core {
public:
    explicit vector_core(bool is_signed) noexcept : signed_(is_signed) {}
    vector_core(const vector_core&) = default;
    vector_core& operator=(const vector_core&) = default;
    /// A moved-from vector is empty (and usable), not a husk with its old size.
    vector_core(vector_core&& other) noexcept : signed_(other.signed_) { swap(other); }
    vector_core& operator=(vector_core&& other) noexcept {
        if (this != &other) {
            vector_core taken(std::move(other));
            swap(taken);
        }
        return *this;
    }

    [[nodiscard]] bool is_signed() const noexcept { return signed_; }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }

    void push_back(std::uint32_t bits);
    /// Appends values. Full blocks of a long span are encoded in parallel over blocks
    /// (thread_count(), see parallel.hpp); the encoded bytes are the same for every thread count.
    void append(std::span<const std::uint32_t> bits);
    [[nodiscard]] std::uint32_t get(std::size_t index) const;  // unchecked
    void set(std::size_t index, std::uint32_t bits);           // unchecked
    /// Unchecked. Ranges spanning many full blocks are decoded in parallel over blocks.
    void decode(std::size_t first, std::span<std::uint32_t> out) const;
    void decode_block(std::size_t block, std::span<std::uint32_t> out,
                      decode_destination destination = decode_destination::memory) const;
    /// Decodes the block holding `index` (< size()) for an iterator that holds `held` (may be
    /// null): into `held` itself when the iterator holds its only reference, else into a new
    /// buffer, and then `held` is released. If this throws, `held` is untouched (though its
    /// values may be, when it was written into). Out of line, so that the iterator's loop
    /// keeps its members in registers.
    [[nodiscard]] iteration_window iteration_fill(std::size_t index, iteration_buffer* held) const;
    void clear() noexcept;
    void resize(std::size_t count, std::uint32_t fill);
    void reserve(std::size_t count);
    void seal();
    void swap(vector_core& other) noexcept;

    [[nodiscard]] std::size_t block_count() const noexcept;
    [[nodiscard]] std::size_t sealed_block_count() const noexcept { return entry_of_.size(); }
    /// Whether sealed block `block` (>= 1) shares its block table entry, hence its bytes,
    /// descriptor and summary, with block `block - 1`. Not for the write-back block (its
    /// entry is stale until flushed).
    [[nodiscard]] bool same_as_previous(std::size_t block) const noexcept {
        return entry_of_[block] == entry_of_[block - 1];
    }
    /// Distinct block table entries in use (sealed blocks with identical bytes count once).
    [[nodiscard]] std::size_t unique_block_count() const noexcept { return entries_.size() - dead_entries_; }
    /// Encoded bytes of sealed block `block` as it is now. For the block held in the
    /// write-back buffer they are encoded into `scratch` (max_block_bytes); otherwise they
    /// are the arena's bytes and `scratch` is untouched.
    [[nodiscard]] std::span<const std::byte> sealed_block(std::size_t block, std::span<std::byte> scratch) const;
    /// The block_descriptor (src/codec/block_layout.hpp) of sealed block `block`, read when
    /// the block was sealed, appended or adopted. Not for the write-back block (its bytes are
    /// stale until flushed: see write_back_values).
    [[nodiscard]] const block_descriptor& sealed_descriptor(std::size_t block) const noexcept {
        return entries_[entry_of_[block]].descriptor;
    }
    /// The block_summary (min and max key, exact sum) of sealed block `block`, kept from seal,
    /// append, write-back flush and load on; block_summary::unknown() for a block appended or
    /// adopted as bytes (block_summary.hpp says why). Not for the write-back block: like its
    /// bytes, its summary is stale until flushed (see write_back_values).
    [[nodiscard]] const block_summary& sealed_summary(std::size_t block) const noexcept { return summaries_[entry_of_[block]]; }
    /// A key range holding the keys of every sealed block whose summary is known (key_hull:
    /// possibly wider than they are; unknown where some block's summary is). Not for the
    /// write-back block's values (stale like its summary until flushed).
    [[nodiscard]] const key_hull& sealed_keys_hull() const noexcept { return hull_; }
    /// The presence filter's words of sealed block `block` (block_summary.hpp: presence_filter;
    /// presence_filter::words_for(sealed_summary(block)) of them), or null where it has none
    /// (most blocks: see summarize_presence). Not for the write-back block.
    [[nodiscard]] const std::uint64_t* sealed_presence(std::size_t block) const noexcept {
        return presence_of(entry_of_[block]);
    }
    /// The presence filters as a scan reads them block after block (sealed_lacks): the slots
    /// by entry (null where the column has no filter) and their words, taken once a scan.
    struct presence_table {
        const std::uint32_t* slots = nullptr;
        const std::uint64_t* words = nullptr;
    };
    [[nodiscard]] presence_table presences() const noexcept {
        return presence_at_.empty() ? presence_table{} : presence_table{presence_at_.data(), presence_words_.data()};
    }
    /// Whether sealed block `block` has a filter (from `t`, this vector's presences(), slots
    /// not null) that lacks `key`, a key within the block's summary's [min, max]. O(1): the
    /// slot beside the block's entry, then one word (presence8 searched a table sorted by
    /// entry: frequent scans 2-16% more instructions).
    [[nodiscard]] bool sealed_lacks(const presence_table& t, std::size_t block, std::uint32_t key) const noexcept {
        const std::uint32_t id = entry_of_[block];
        const std::uint32_t slot = t.slots[id];
        if (slot == no_presence) return false;
        const std::uint32_t k = key - summaries_[id].min_key;
        return ((t.words[(slot >> 2) + (k >> 6)] >> (k & 63)) & 1) == 0;
    }
    /// The side entries kept in memory for the gaps payloads of sealed block `block`
    /// (src/codec/direct_access.hpp: gaps_skips; read them through gaps_side), or null where
    /// it has none. Not for the write-back block.
    [[nodiscard]] const std::uint32_t* sealed_gaps_skips(std::size_t block) const noexcept;
    /// The whole read side of sealed block `block` (src/codec/direct_access.hpp, read_side:
    /// its read plan and gaps side entries, split by side_plan and side_gaps), or null where it
    /// has none. Not for the write-back block.
    [[nodiscard]] const std::uint32_t* sealed_read_side(std::size_t block) const noexcept;
    /// The checkpoint sums of sealed delta block `block` (src/codec/direct_access.hpp,
    /// delta_checkpoints), or null where none are kept. Not for the write-back block.
    [[nodiscard]] const std::uint32_t* sealed_delta_sums(std::size_t block) const noexcept {
        return sums_of(entry_of_[block]);
    }
    [[nodiscard]] std::span<const std::uint32_t> tail() const noexcept {
        return {tail_.data(), tail_.size()};
    }
    /// The values of sealed block `block` when it is the write-back block, else empty.
    /// The sealed block held in the write-back buffer, or none (block_count() or more).
    [[nodiscard]] std::size_t write_back_block() const noexcept { return hot_block_; }
    [[nodiscard]] std::span<const std::uint32_t> write_back_values(std::size_t block) const noexcept {
        return block == hot_block_ ? std::span<const std::uint32_t>(hot_.data(), hot_.size())
                                   : std::span<const std::uint32_t>();
    }
    [[nodiscard]] std::size_t memory_bytes() const noexcept;
    [[nodiscard]] vector_stats stats() const;
    /// Checks every invariant load() establishes: sizes agree, each block's entry index is in
    /// the table and the entries' reference counts are right, each entry in use lies in the
    /// arena and caches what its block's header says, every sealed block passes
    /// codec::validate_block and decodes, and its summary is that of its values. Throws
    /// format_error naming the (first) block of a bad entry; O(size()).
    void validate() const;

    // ---- appending already encoded blocks (bitplane's own operations) -------------------
    // Preconditions, checked (size_error otherwise): the vector has no tail
    // (size() % block_values == 0), and each block is 1..codec::max_block_bytes bytes.
    // The bytes themselves are trusted, not validated: they must hold one full block of
    // block_values values, as written by codec::encode_block or accepted by
    // codec::validate_block. Exception safety: basic (blocks appended before a throw stay).

    /// Appends one encoded full block (copied into the arena); size() grows by block_values.
    void append_encoded_block(std::span<const std::byte> bytes);

    /// Writes the encoded block `index` into `out` (codec::max_block_bytes long) and returns
    /// its size in bytes.
    using block_writer = std::function<std::size_t(std::size_t index, std::span<std::byte> out)>;

    /// Appends `count` encoded full blocks, block i written by `write(i, out)`. `write` runs in
    /// parallel over blocks (on disjoint i, from several threads: it must be safe to call
    /// concurrently) when thread_count() > 1 and count is large; blocks are appended in order
    /// 0..count-1 whatever the thread count. Extra memory: the encoded bytes of at most
    /// 1024 blocks at a time.
    void append_encoded_blocks(std::size_t count, const block_writer& write);

    /// Rebuilds a vector from already validated blocks (used by load). `summaries`: the
    /// blocks' summaries where the caller has them (load decodes every block anyway), trusted
    /// as the bytes are (size_error unless one per block); empty: every block's is unknown.
    /// Blocks at the same offset and size share one entry, and so do blocks whose bytes are
    /// identical (checked against the previous block and a small table of recent ones); the
    /// arena is then packed so that it holds each distinct block once.
    void adopt(std::span<const std::byte> arena, std::span<const std::uint64_t> offsets,
               std::span<const std::uint32_t> sizes, std::span<const std::uint32_t> tail,
               std::size_t size, std::span<const block_summary> summaries = {},
               std::span<const presence_filter> presences = {});
    /// As adopt, but the `arena_bytes` bytes of blocks are written by `fill` straight into
    /// the vector's own storage, which is not zeroed first: a download from the GPU copies
    /// the blocks once instead of into a buffer and then again. `tail` is read after `fill`
    /// returns (so fill may produce it). If `fill` throws, the vector is left empty.
    void adopt_filled(std::size_t arena_bytes, const std::function<void(std::span<std::byte>)>& fill,
                      std::span<const std::uint64_t> offsets, std::span<const std::uint32_t> sizes,
                      std::span<const std::uint32_t> tail, std::size_t size,
                      std::span<const block_summary> summaries = {},
                      std::span<const presence_filter> presences = {});

    friend bool operator==(const vector_core& a, const vector_core& b);

private:
    // resize() leaves new elements uninitialized (they are written right after it grows).
    using byte_vector = std::vector<std::byte, default_init_allocator<std::byte>>;
    template <class U> using pod_vector = std::vector<U, default_init_allocator<U>>;

    static constexpr std::size_t no_block = static_cast<std::size_t>(-1);

    // A block_writer that also gives the block's summary (the encoder's, from the values).
    // (and its presence filter, or none).
    using summarized_writer = std::function<std::size_t(std::size_t index, std::span<std::byte> out,
                                                        block_summary& summary, presence_filter& presence)>;
    void append_blocks(std::size_t count, const summarized_writer& write);

    // A few recent distinct entries by a hash of their bytes, so that a block repeated a few
    // blocks later shares the entry too; lives for one append or adopt.
    struct recent_entries;

    void seal_tail();
    void push_encoded(std::span<const std::byte> bytes, const block_summary& summary, const presence_filter& presence,
                      recent_entries* recent);
    // The entry of a sealed block whose bytes equal `bytes` (the previous two blocks', or one
    // in `recent`), or no_entry. `offset`: where `bytes` lie in the arena (adopt), else no_offset.
    [[nodiscard]] std::uint32_t find_same(std::span<const std::byte> bytes, std::uint64_t offset,
                                          const recent_entries* recent) const noexcept;
    // Block `block` (the next one, entry_of_.size() == block) takes entry `id`.
    void share_entry(std::uint32_t id, const block_summary& summary);
    // A new entry for bytes already at `offset` in the arena; returns its index.
    std::uint32_t add_entry(std::uint64_t offset, std::span<const std::byte> bytes, const block_summary& summary);
    // Entry `id`'s presence filter set to `presence` (none: dropped).
    void set_presence(std::uint32_t id, const presence_filter& presence);
    [[nodiscard]] const std::uint64_t* presence_of(std::uint32_t id) const noexcept {
        if (presence_at_.empty()) return nullptr;
        const std::uint32_t slot = presence_at_[id];
        return slot == no_presence ? nullptr : presence_words_.data() + (slot >> 2);
    }
    // Drops one reference to entry `id`; the last one makes its bytes garbage.
    void release_entry(std::uint32_t id) noexcept;
    void add_ref(std::uint32_t id) noexcept {
        const std::uint32_t n = entries_[id].refs();
        if (n != sticky_refs) entries_[id].set_refs(n + 1);
    }
    static void check_encoded_size(std::size_t bytes);
    void check_appendable(const char* what) const;
    void decode_serial(std::size_t first, std::span<std::uint32_t> out) const;
    void flush_hot();
    void load_hot(std::size_t block);
    void store_block(std::size_t block, std::span<const std::uint32_t> values);
    void compact_if_wasteful();
    void compact();
    void give_back_growth(std::size_t arena_bytes_before);

    // Where a sealed block lives and what it is: its block_descriptor (src/codec/
    // block_layout.hpp), read once when the block is sealed, appended or adopted, so that no
    // read or operation parses a header again. 40 bytes per distinct block.
    // The sealed blocks using an entry are counted in the top 16 bits of `place` (no table of
    // their own: 4 bytes per distinct block less); a count that reaches sticky_refs stays
    // there (such an entry is never written in place nor freed before compact() counts again).
    static constexpr std::uint32_t sticky_refs = 0xffff;
    struct block_entry {
        static constexpr std::uint64_t offset_mask = (std::uint64_t{1} << 48) - 1;
        std::uint64_t place = 0;        // start in arena_ (low 48 bits), blocks using it (high 16)
        block_descriptor descriptor{};  // descriptor.end: the encoded size

        [[nodiscard]] std::uint64_t offset() const noexcept { return place & offset_mask; }
        void set_offset(std::uint64_t at) noexcept { place = (place & ~offset_mask) | at; }
        [[nodiscard]] std::uint32_t refs() const noexcept { return static_cast<std::uint32_t>(place >> 48); }
        void set_refs(std::uint32_t n) noexcept { place = (place & offset_mask) | (std::uint64_t{n} << 48); }
    };

    static block_entry make_entry(std::uint64_t offset, std::span<const std::byte> bytes) noexcept;
    static std::size_t block_bytes(const block_entry& e) noexcept { return e.descriptor.end; }
    [[nodiscard]] std::span<const std::byte> entry_bytes(std::uint32_t id) const noexcept {
        return {arena_.data() + entries_[id].offset(), block_bytes(entries_[id])};
    }
    [[nodiscard]] std::span<const std::byte> arena_block(std::size_t block) const noexcept {
        return entry_bytes(entry_of_[block]);
    }

    static constexpr std::uint32_t no_entry = static_cast<std::uint32_t>(-1);
    static constexpr std::uint64_t no_offset = static_cast<std::uint64_t>(-1);

    // Delta blocks: sums of residuals at every 32 positions (codec/direct_access.hpp,
    // delta_checkpoint_stride), so that a random read counts at most 31 positions. Indexed like
    // entries_; empty while no entry is delta, and possibly shorter than entries_ (no delta
    // entry beyond its end).
    using delta_sums = std::array<std::uint32_t, 64>;
    void refresh_sums(std::uint32_t id);
    [[nodiscard]] const std::uint32_t* sums_of(std::uint32_t id) const noexcept {
        return id < sums_.size() ? sums_[id].data() : nullptr;
    }

    // Read sides (codec/direct_access.hpp, read_side): the block's read plan, so that a random
    // read does not walk the plane descriptors, and its gaps payloads' skip entries, so that it
    // does not walk whole gap lists. side_at_[id]: where table entry id's side starts in
    // side_data_ (no_side: none); empty while no entry has any, possibly shorter than entries_.
    // Skips of re-encoded blocks that grew are appended; seal() packs them again.
    static constexpr std::uint32_t no_side = static_cast<std::uint32_t>(-1);
    void refresh_side(std::uint32_t id, std::uint32_t old_count);
    [[nodiscard]] std::uint32_t side_words(std::uint32_t id) const noexcept;
    [[nodiscard]] const std::uint32_t* side_of(std::uint32_t id) const noexcept {
        return id < side_at_.size() && side_at_[id] != no_side ? side_data_.data() + side_at_[id] : nullptr;
    }

    bool signed_;
    std::size_t size_ = 0;
    byte_vector arena_;                    // encoded sealed blocks, each distinct one once
    pod_vector<std::uint32_t> entry_of_;   // per sealed block: its entry in entries_
    pod_vector<block_entry> entries_;      // the block table: one entry per distinct block
    std::size_t dead_entries_ = 0;         // entries no block uses any more (until compact())
    pod_vector<delta_sums> sums_;          // see refresh_sums
    pod_vector<std::uint32_t> side_at_;    // see refresh_side
    pod_vector<std::uint32_t> side_data_;
    std::size_t side_garbage_ = 0;         // entries in side_data_ no block refers to any more
    pod_vector<block_summary> summaries_;  // one per entry, beside entries_
    key_hull hull_;                        // over summaries_ (widened as they change, exact after compact())
    // Presence filters (set_presence): one slot beside each entry, no_presence or where the
    // entry's words start in presence_words_ (above 2 bits) and how many words the slot holds,
    // less one (low 2 bits: a rewritten block reuses a slot as big), so that an equality scan
    // reaches a block's filter by its entry, not by a search (presence8's search in a table
    // sorted by entry cost frequent scans 2-16% more instructions). Empty until the first
    // filter (a column without filters pays no memory). Words of a dropped filter stay until compact().
    static constexpr std::uint32_t no_presence = ~0u;
    pod_vector<std::uint32_t> presence_at_;
    pod_vector<std::uint64_t> presence_words_;
    std::size_t garbage_bytes_ = 0;        // arena bytes no block refers to any more
    pod_vector<std::uint32_t> tail_;       // last, partial block, uncompressed
    std::size_t hot_block_ = no_block;     // sealed block held decoded for writes
    pod_vector<std::uint32_t> hot_;        // its values (2048) while hot_block_ is set
};

}  // namespace bitplane::detail
