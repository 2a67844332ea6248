#include <bitplane/detail/vector_core.hpp>

#include <bitplane/error.hpp>

#include "codec/block_decoding.hpp"
#include "codec/block_encoder.hpp"
#include "codec/block_format.hpp"
#include "codec/direct_access.hpp"
#include "codec/thresholds.hpp"
#include "core/parallel.hpp"
#include "simd/kernels.hpp"

#include <algorithm>
#include <bit>
#include <array>
#include <cstring>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace bitplane::detail {

namespace {
using block_buffer = std::array<std::byte, codec::max_block_bytes>;

// Parallel grains, in blocks. Encoding a block takes ~3-15 us and decoding ~1-4 us (one core,
// docs/benchmarks.md), so these keep a task well above oneTBB's ~1 us scheduling cost.
constexpr std::size_t encode_batch_blocks = 16;
constexpr std::size_t decode_grain_blocks = 8;
// Blocks encoded in parallel before they are appended in order: bounds the extra memory to
// the encoded bytes of this many blocks (at most 9 MiB, ~1.3 MiB for 10-bit data).
constexpr std::size_t encode_window_blocks = 1024;

// The stats kernel gives the sum in 16-bit halves (2048 values never overflow a 32-bit lane);
// the key order is unsigned for uint32 columns and signed for int32 ones.
block_summary summary_from_stats(const value_stats& st, bool is_signed) noexcept {
    block_summary s;
    s.min_key = is_signed ? static_cast<std::uint32_t>(st.smin) ^ key_bias(true) : st.umin;
    s.max_key = is_signed ? static_cast<std::uint32_t>(st.smax) ^ key_bias(true) : st.umax;
    s.sum = std::uint64_t{st.sum_low} + (std::uint64_t{st.sum_high} << 16);
    if (is_signed) s.sum -= std::uint64_t{st.negatives} << 32;
    return s;
}

// Encodes a block of values and summarizes them from the encoder's own statistics (and
// their presence filter, where the block gets one).
std::size_t encode_summarized(std::span<const std::uint32_t> values, bool is_signed, std::span<std::byte> out,
                              block_summary& summary, presence_filter& presence) {
    value_stats st;
    const std::size_t bytes = encode_block(values, is_signed, out, codec::encode_options{}, st);
    summary = summary_from_stats(st, is_signed);
    presence = summarize_presence(values, summary, is_signed);
    return bytes;
}

// Drops every presence filter where fewer than 1/presence_min_filtered_share of the entries
// have one: the slot table (4 bytes an entry) then costs more memory than the few filters save
// time (word_length: 2 filters of 323 blocks took it 260 bytes above BitMagic's memory).
// Dropping is always safe: a block without a filter is read, never skipped.
template <class Slots, class Words>
void drop_scarce_presence(Slots& slots, Words& words, std::uint32_t none) {
    if (slots.empty()) return;
    const auto kept = static_cast<std::size_t>(std::count_if(slots.begin(), slots.end(), [none](std::uint32_t s) { return s != none; }));
    if (kept * thresholds::presence_min_filtered_share >= slots.size()) return;
    Slots().swap(slots);
    Words().swap(words);
}

// presence_at_'s entries: where a filter's words start in presence_words_ (above 2 bits) and
// how many words its slot has, less one (low 2 bits: a rewritten block reuses a slot as big).
constexpr std::uint32_t presence_slot(std::size_t at, std::uint32_t words) noexcept {
    return static_cast<std::uint32_t>(at << 2) | (words - 1);
}

// The arena's capacity set to `capacity` bytes (at least its size), its bytes moved by one
// memcpy. std::vector relocates with this allocator one construct() a byte (GCC's memmove
// relocation is std::allocator's alone): growing by doubling and giving the spare back after
// a long append copied the arena ~3 times that way, ~0.3 instructions a byte, ~460 of the
// ~10.6K instructions of a block of an AND of uniform 10-bit with a 90%-sparse column
// (callgrind, AVX2).
template <class Bytes>
void move_to_capacity(Bytes& arena, std::size_t capacity) {
    Bytes moved;
    moved.reserve(std::max(capacity, arena.size()));
    moved.resize(arena.size());  // default-initialized: nothing written
    if (!arena.empty()) std::memcpy(moved.data(), arena.data(), arena.size());
    arena.swap(moved);
}

// The arena resized to `size` bytes (the new ones unwritten), doubling its capacity where it
// must grow, as std::vector would, but moved by memcpy.
template <class Bytes>
void grow_to(Bytes& arena, std::size_t size) {
    if (size > arena.capacity()) move_to_capacity(arena, std::max(size, 2 * arena.capacity()));
    arena.resize(size);
}

// Entries this rarely dead are left for seal() to drop; more, and the table is compacted.
constexpr std::size_t compact_min_dead_entries = 64;

// A hash of a block's size and its first and last 32 bytes: enough to tell distinct blocks
// apart in the small table of recent ones (a hit is confirmed with memcmp), without reading
// all of a 4 KiB block.
// Blocks of 32 bytes or more (nearly all) are read as eight whole words: the short-block loop's
// memcpy of a variable length was a call per word, ~440 instructions a block, 7% of an AND
// of two uniform columns (callgrind).
std::uint32_t block_hash(std::span<const std::byte> bytes) noexcept {
    std::uint64_t h = 0x9e3779b97f4a7c15ull * (bytes.size() + 1);
    const auto mix_word = [&h](std::uint64_t word) {
        h = (h ^ word) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    };
    const auto mix = [&](const std::byte* p, std::size_t n) {
        for (std::size_t i = 0; i < n; i += 8) {
            std::uint64_t word = 0;
            std::memcpy(&word, p + i, std::min<std::size_t>(8, n - i));
            mix_word(word);
        }
    };
    const auto mix32 = [&](const std::byte* p) {
        for (std::size_t i = 0; i < 32; i += 8) {
            std::uint64_t word;
            std::memcpy(&word, p + i, 8);
            mix_word(word);
        }
    };
    if (bytes.size() < 32) {
        mix(bytes.data(), bytes.size());
        return static_cast<std::uint32_t>(h >> 32);
    }
    mix32(bytes.data());
    if (bytes.size() > 32) mix32(bytes.data() + bytes.size() - 32);
    return static_cast<std::uint32_t>(h >> 32);
}
}  // namespace

struct vector_core::recent_entries {
    static constexpr std::size_t slots = 256;
    std::array<std::uint32_t, slots> id;
    recent_entries() noexcept { id.fill(no_entry); }
    static std::size_t slot(std::span<const std::byte> bytes) noexcept { return block_hash(bytes) % slots; }
    // The slot find_same hashed its bytes to when it found no match, for push_encoded to
    // record the new entry in without hashing the block again (~55 instructions a block).
    mutable std::size_t looked_up = 0;
};

block_summary summarize_values(std::span<const std::uint32_t> values, bool is_signed) noexcept {
    value_stats st;
    active_kernels().stats(values.data(), values.size(), &st);
    return summary_from_stats(st, is_signed);
}

presence_filter summarize_presence(std::span<const std::uint32_t> values, const block_summary& s,
                                   bool is_signed) noexcept {
    static_assert(thresholds::presence_max_key_span <= 256);  // 8 words of 32 keys: key_presence
    presence_filter p;
    // A block's smallest and largest keys occur: spans of 1 or 2 have nothing to skip
    // (bed_strand's 0/1 blocks), and skipping them costs nothing at encode.
    if (!s.known() || s.max_key - s.min_key >= thresholds::presence_max_key_span || s.max_key - s.min_key < 2) return p;
    // key - min_key = (bits ^ bias) - min_key = bits - (min_key ^ bias) (mod 2^32): below the span.
    const std::uint32_t span = s.max_key - s.min_key + 1;
    const std::uint32_t words = (span + 31) / 32;
    const std::uint32_t base = s.min_key ^ key_bias(is_signed);
    const kernel_table& kernels = active_kernels();
    std::uint32_t bits[8] = {};
    const auto too_full = [&] {  // fewer than 1/presence_min_absent_share of the span's keys absent
        const auto present = static_cast<std::uint32_t>(kernels.popcount_words(bits, words));
        return (span - present) * thresholds::presence_min_absent_share < span;
    };
    std::size_t done = 0;
    if (span <= thresholds::presence_sample_max_span && values.size() >= 2 * thresholds::presence_sample_values) {
        kernels.key_presence(values.data(), thresholds::presence_sample_values, base, words, bits);
        if (too_full()) return p;
        done = thresholds::presence_sample_values;
    }
    kernels.key_presence(values.data() + done, values.size() - done, base, words, bits);
    if (too_full()) return p;
    for (std::uint32_t w = 0; w < words; ++w) p.words[w / 2] |= std::uint64_t{bits[w]} << (32 * (w & 1));
    p.word_count = presence_filter::words_for(s);
    return p;
}

std::size_t vector_core::block_count() const noexcept { return entry_of_.size() + (tail_.empty() ? 0 : 1); }

vector_core::block_entry vector_core::make_entry(std::uint64_t offset, std::span<const std::byte> bytes) noexcept {
    block_entry e;
    e.set_offset(offset);
    // Trusted bytes (encoded here, appended by bitplane's own operations under their
    // contract, or adopted after load validated them): read without checks, but never beyond
    // the span. The extent is the span's in any case, so that the arena stays consistent;
    // validate() compares the entry with a checked parse.
    e.descriptor = read_descriptor(bytes.data(), static_cast<std::uint32_t>(block_values),
                                   static_cast<std::uint32_t>(bytes.size()));
    e.descriptor.end = static_cast<std::uint16_t>(bytes.size());
    return e;
}

void vector_core::refresh_sums(std::uint32_t id) {
    const block_descriptor& d = entries_[id].descriptor;
    if (d.transform() != codec::transform::delta) return;
    static_assert(std::tuple_size_v<delta_sums> == delta_checkpoint_count);
    if (sums_.size() <= id) sums_.resize(entries_.size());
    delta_checkpoints(d, arena_.data() + entries_[id].offset(), sums_[id].data());
}

std::uint32_t vector_core::side_words(std::uint32_t id) const noexcept {
    if (side_of(id) == nullptr) return 0;
    return read_side_words(entries_[id].descriptor, arena_.data() + entries_[id].offset());
}

// `old_count`: the side words the entry had before its block was re-encoded (0 for a new entry).
void vector_core::refresh_side(std::uint32_t id, std::uint32_t old_count) {
    const block_entry& e = entries_[id];
    const std::byte* bytes = arena_.data() + e.offset();
    const std::uint32_t count = read_side_words(e.descriptor, bytes);
    const bool had = id < side_at_.size() && side_at_[id] != no_side;
    if (count == 0) {
        if (had) side_at_[id] = no_side;
        side_garbage_ += old_count;
        return;
    }
    if (side_at_.size() < entries_.size()) side_at_.resize(entries_.size(), no_side);
    if (had && count <= old_count) {
        side_garbage_ += old_count - count;
    } else {
        side_garbage_ += old_count;
        side_at_[id] = static_cast<std::uint32_t>(side_data_.size());
        side_data_.resize(side_data_.size() + count);
    }
    read_side(e.descriptor, bytes, side_data_.data() + side_at_[id]);
}

const std::uint32_t* vector_core::sealed_gaps_skips(std::size_t block) const noexcept {
    return side_gaps(side_of(entry_of_[block]));
}

const std::uint32_t* vector_core::sealed_read_side(std::size_t block) const noexcept {
    return side_of(entry_of_[block]);
}

std::uint32_t vector_core::find_same(std::span<const std::byte> bytes, std::uint64_t offset,
                                     const recent_entries* recent) const noexcept {
    const auto same = [&](std::uint32_t id) {
        const block_entry& e = entries_[id];
        if (block_bytes(e) != bytes.size()) return false;
        return e.offset() == offset || std::memcmp(arena_.data() + e.offset(), bytes.data(), bytes.size()) == 0;
    };
    // The previous block (runs) and the one before it (two values alternating).
    const std::size_t n = entry_of_.size();
    if (n >= 1 && same(entry_of_[n - 1])) return entry_of_[n - 1];
    if (n >= 2 && same(entry_of_[n - 2])) return entry_of_[n - 2];
    if (recent == nullptr) return no_entry;
    recent->looked_up = recent_entries::slot(bytes);
    const std::uint32_t id = recent->id[recent->looked_up];
    return id != no_entry && id < entries_.size() && entries_[id].refs() != 0 && same(id) ? id : no_entry;
}

void vector_core::share_entry(std::uint32_t id, const block_summary& summary) {
    entry_of_.push_back(id);
    add_ref(id);
    // Equal bytes hold equal values: a summary known from this copy serves all of them.
    if (summaries_[id] == block_summary::unknown()) summaries_[id] = summary;
    hull_.widen(summaries_[id]);
}

std::uint32_t vector_core::add_entry(std::uint64_t offset, std::span<const std::byte> bytes,
                                     const block_summary& summary) {
    const auto id = static_cast<std::uint32_t>(entries_.size());
    entries_.push_back(make_entry(offset, bytes));
    summaries_.push_back(summary);
    if (!presence_at_.empty()) presence_at_.push_back(no_presence);
    hull_.widen(summary);
    refresh_sums(id);
    refresh_side(id, 0);
    return id;
}

void vector_core::set_presence(std::uint32_t id, const presence_filter& presence) {
    if (presence_at_.empty()) {
        if (!presence.some()) return;
        presence_at_.assign(entries_.size(), no_presence);  // the column's first filter
    }
    const std::uint32_t old = presence_at_[id];
    if (!presence.some()) {
        presence_at_[id] = no_presence;
        return;
    }
    std::uint32_t slot;
    if (old != no_presence && (old & 3) + 1 >= presence.word_count) {
        slot = old;  // as big: rewritten in place
    } else {
        slot = presence_slot(presence_words_.size(), presence.word_count);
        presence_words_.resize(presence_words_.size() + presence.word_count);
    }
    std::copy_n(presence.words, presence.word_count, presence_words_.data() + (slot >> 2));
    presence_at_[id] = slot;
}

void vector_core::release_entry(std::uint32_t id) noexcept {
    const std::uint32_t n = entries_[id].refs();
    if (n == sticky_refs) return;  // uncounted: compact() finds out
    entries_[id].set_refs(n - 1);
    if (n != 1) return;
    garbage_bytes_ += block_bytes(entries_[id]);
    side_garbage_ += side_words(id);
    if (id < side_at_.size()) side_at_[id] = no_side;
    ++dead_entries_;
}

void vector_core::validate() const {
    const auto fail = [](std::size_t block, const std::string& what) {
        throw format_error("vector block " + std::to_string(block) + ": " + what, 0);
    };
    if (size_ != entry_of_.size() * block_values + tail_.size() || tail_.size() >= block_values)
        throw format_error("vector size " + std::to_string(size_) + " disagrees with " +
                               std::to_string(entry_of_.size()) + " sealed blocks and a tail of " +
                               std::to_string(tail_.size()),
                           0);
    if (hot_block_ != no_block && (hot_block_ >= entry_of_.size() || hot_.size() != block_values))
        throw format_error("write-back block " + std::to_string(hot_block_) + " is not a sealed block", 0);
    if (summaries_.size() != entries_.size())
        throw format_error(std::to_string(summaries_.size()) + " block summaries for " + std::to_string(entries_.size()) +
                               " block table entries",
                           0);
    // Scans answer the whole column from the hull (ops/scan.cpp, answer_for_all): it must hold
    // every summary, and say unknown where one is.
    for (const block_summary& s : summaries_) {
        const bool held = s.known() ? hull_.unknown || (hull_.min_key <= s.min_key && s.max_key <= hull_.max_key)
                                    : hull_.unknown;
        if (!held) throw format_error("the column's key range does not hold every block summary", 0);
    }
    // Every block's entry index in the table, and every entry's count of the blocks using it.
    std::vector<std::uint32_t> uses(entries_.size(), 0);
    for (std::size_t b = 0; b < entry_of_.size(); ++b) {
        if (entry_of_[b] >= entries_.size())
            fail(b, "entry index " + std::to_string(entry_of_[b]) + " beyond the block table of " +
                        std::to_string(entries_.size()) + " entries");
        ++uses[entry_of_[b]];
    }
    std::size_t dead = 0;
    for (std::size_t id = 0; id < entries_.size(); ++id) {
        const std::uint32_t refs = entries_[id].refs();
        if (refs == sticky_refs) continue;  // counted no more
        if (uses[id] != refs)
            throw format_error("block table entry " + std::to_string(id) + " counts " + std::to_string(refs) +
                                   " blocks using it, " + std::to_string(uses[id]) + " do",
                               0);
        dead += uses[id] == 0 ? 1 : 0;
    }
    if (dead != dead_entries_)
        throw format_error(std::to_string(dead) + " unused block table entries, " + std::to_string(dead_entries_) +
                               " counted",
                           0);
    // Each entry in use once, at its first block (shared entries are checked like any other).
    std::vector<bool> checked(entries_.size(), false);
    alignas(64) std::uint32_t values[block_values];
    for (std::size_t b = 0; b < entry_of_.size(); ++b) {
        const std::uint32_t id = entry_of_[b];
        if (checked[id]) continue;
        checked[id] = true;
        const block_entry& e = entries_[id];
        if (block_bytes(e) == 0 || e.offset() > arena_.size() || arena_.size() - e.offset() < block_bytes(e))
            fail(b, "extent [" + std::to_string(e.offset()) + ", +" + std::to_string(block_bytes(e)) + ") outside the arena of " +
                        std::to_string(arena_.size()) + " bytes");
        const std::span<const std::byte> bytes = arena_block(b);
        // The checked parse (format_error with the offset in the block), then the payloads.
        const parsed_block parsed = parse_block(bytes, block_values, true);
        decode_parsed(parsed, bytes, 0, std::span<std::uint32_t>(values, block_values));
        if (!(parsed.descriptor == e.descriptor)) fail(b, "block table entry disagrees with the block's header");
        // Unknown is one exact pattern: a summary corrupted into min > max is still refused.
        if (!(summaries_[id] == block_summary::unknown()) &&
            !(summaries_[id] == summarize_values({values, block_values}, signed_)))
            fail(b, "block summary (min, max, sum) disagrees with the block's values");
        // A filter must say every key of the block present (one that did not would skip it).
        if (!presence_at_.empty() && presence_at_.size() != entries_.size())
            fail(b, "presence slots do not match the entries");
        if (const std::uint64_t* have = presence_of(id); have != nullptr) {
            const presence_filter expected =
                summarize_presence({values, block_values}, summaries_[id], signed_);
            if (!expected.some() || !std::equal(expected.words, expected.words + expected.word_count, have))
                fail(b, "presence filter disagrees with the block's values");
        }
        if (e.descriptor.transform() == codec::transform::delta) {
            delta_sums expected{};
            delta_checkpoints(e.descriptor, bytes.data(), expected.data());
            if (id >= sums_.size() || sums_[id] != expected) fail(b, "delta sums disagree with the block");
        }
        const std::uint32_t side = read_side_words(e.descriptor, bytes.data());
        if (side != 0) {
            std::vector<std::uint32_t> expected(side);
            read_side(e.descriptor, bytes.data(), expected.data());
            const std::uint32_t* have = side_of(id);
            if (have == nullptr || side_data_.size() - static_cast<std::size_t>(have - side_data_.data()) < side ||
                !std::equal(expected.begin(), expected.end(), have))
                fail(b, "read side entries (plan, gaps skip entries) disagree with the block");
        }
    }
}

void vector_core::push_back(std::uint32_t bits) {
    if (tail_.capacity() == 0) tail_.reserve(block_values);
    tail_.push_back(bits);
    ++size_;
    if (tail_.size() == block_values) seal_tail();
}

void vector_core::append(std::span<const std::uint32_t> bits) {
    // Fill a partial tail first; then whole blocks are encoded straight from `bits` (in
    // parallel when there are many) and only the rest goes to the tail.
    if (!tail_.empty()) {
        const std::size_t take = std::min(bits.size(), block_values - tail_.size());
        tail_.insert(tail_.end(), bits.begin(), bits.begin() + static_cast<std::ptrdiff_t>(take));
        size_ += take;
        bits = bits.subspan(take);
        if (tail_.size() == block_values) seal_tail();
    }
    const std::size_t full = tail_.empty() ? bits.size() / block_values : 0;
    if (full != 0) {
        const std::span<const std::uint32_t> source = bits.first(full * block_values);
        append_blocks(full, [this, source](std::size_t i, std::span<std::byte> out, block_summary& summary,
                                           presence_filter& presence) {
            return encode_summarized(source.subspan(i * block_values, block_values), signed_, out, summary, presence);
        });
        bits = bits.subspan(full * block_values);
    }
    while (!bits.empty()) {
        // The rest of a long append is all the tail will hold: no room for more (8 KiB a
        // column, a sixth of a run-heavy column's memory). Short appends reserve a block.
        tail_.reserve(full != 0 ? bits.size() : std::size_t{block_values});
        const std::size_t take = std::min(bits.size(), block_values - tail_.size());
        tail_.insert(tail_.end(), bits.begin(), bits.begin() + static_cast<std::ptrdiff_t>(take));
        size_ += take;
        bits = bits.subspan(take);
        if (tail_.size() == block_values) seal_tail();
    }
}

void vector_core::seal_tail() {
    block_buffer encoded;
    block_summary summary;
    presence_filter presence;
    const std::size_t bytes = encode_summarized({tail_.data(), tail_.size()}, signed_, encoded, summary, presence);
    push_encoded(std::span<const std::byte>(encoded).first(bytes), summary, presence, nullptr);
    tail_.clear();
}

void vector_core::check_appendable(const char* what) const {
    if (!tail_.empty())
        throw size_error(std::string("bitplane::detail::vector_core::") + what + ": size " + std::to_string(size_) +
                         " is not a multiple of " + std::to_string(block_values) +
                         " (encoded blocks can only follow full blocks)");
}

void vector_core::check_encoded_size(std::size_t bytes) {
    if (bytes == 0 || bytes > codec::max_block_bytes)
        throw size_error("bitplane::detail::vector_core: an encoded block of " + std::to_string(bytes) +
                         " bytes, expected 1.." + std::to_string(codec::max_block_bytes));
}

void vector_core::push_encoded(std::span<const std::byte> bytes, const block_summary& summary,
                               const presence_filter& presence, recent_entries* recent) {
    check_encoded_size(bytes.size());
    const std::uint32_t same = find_same(bytes, no_offset, recent);
    if (same != no_entry) {
        share_entry(same, summary);
        // Equal bytes, equal values: this copy's filter serves the entry if it had none.
        if (presence.some() && summaries_[same] == summary && presence_of(same) == nullptr) set_presence(same, presence);
    } else {
        const std::uint64_t offset = arena_.size();
        // resize (default-init bytes) and memcpy: insert through the allocator's construct
        // copied byte by byte, ~1000 instructions for a 2.6 KiB block (callgrind). Bytes of
        // this arena (a sealed block appended again) are found again after the resize moved it.
        const std::less<const std::byte*> before;
        const bool own = !before(bytes.data(), arena_.data()) && before(bytes.data(), arena_.data() + arena_.size());
        const std::size_t own_at = own ? static_cast<std::size_t>(bytes.data() - arena_.data()) : 0;
        grow_to(arena_, offset + bytes.size());
        std::memcpy(arena_.data() + offset, own ? arena_.data() + own_at : bytes.data(), bytes.size());
        const std::uint32_t id = add_entry(offset, {arena_.data() + offset, bytes.size()}, summary);
        share_entry(id, summary);
        if (presence.some()) set_presence(id, presence);
        if (recent != nullptr) recent->id[recent->looked_up] = id;  // find_same found no match: it hashed them
    }
}

void vector_core::append_encoded_block(std::span<const std::byte> bytes) {
    check_appendable("append_encoded_block");
    push_encoded(bytes, block_summary::unknown(), presence_filter{}, nullptr);
    size_ += block_values;
}

void vector_core::append_encoded_blocks(std::size_t count, const block_writer& write) {
    check_appendable("append_encoded_blocks");
    append_blocks(count, [&write](std::size_t i, std::span<std::byte> out, block_summary& summary,
                                  presence_filter& presence) {
        summary = block_summary::unknown();  // bytes from outside the encoder: see block_summary.hpp
        presence = presence_filter{};
        return write(i, out);
    });
}

void vector_core::append_blocks(std::size_t count, const summarized_writer& write) {
    if (count == 0) return;
    // Geometric growth: an exact reserve on every call made appending one block at a time
    // (resize, vector(n, x), block-sized appends) copy the whole table each time, O(n^2).
    // (The entry table grows by push_back: how many blocks are distinct is not known ahead.)
    if (entry_of_.capacity() - entry_of_.size() < count)
        entry_of_.reserve(std::max(entry_of_.size() + count, entry_of_.capacity() + entry_of_.capacity() / 2));
    recent_entries recent;
    // After the first window, room for the rest at the same bytes per block (plus 1/64), so
    // that a long append leaves little spare capacity instead of up to a growth step.
    const std::size_t start_bytes = arena_.size();
    const std::size_t start_side = side_data_.size();
    auto reserve_for_rest = [&](std::size_t done) {
        if (done != encode_window_blocks || done >= count) return;
        const std::size_t rest = (arena_.size() - start_bytes) * (count - done) / done;
        if (arena_.size() + rest + rest / 64 > arena_.capacity()) move_to_capacity(arena_, arena_.size() + rest + rest / 64);
        const std::size_t side = (side_data_.size() - start_side) * (count - done) / done;
        side_data_.reserve(side_data_.size() + side + side / 64);
    };
    if (thread_count() == 1 || count < 2 * encode_batch_blocks) {
        block_buffer encoded;
        block_summary summary;
        presence_filter presence;
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t bytes = write(i, encoded, summary, presence);
            check_encoded_size(bytes);
            push_encoded(std::span<const std::byte>(encoded).first(bytes), summary, presence, &recent);
            size_ += block_values;
            reserve_for_rest(i + 1);
        }
        give_back_growth(start_bytes);
        return;
    }
    // A window at a time: batches of blocks are encoded in parallel, each into its own
    // buffer; then the blocks are appended in order (push_encoded: shared or copied).
    struct batch {
        std::vector<std::byte> bytes;
        std::array<std::uint16_t, encode_batch_blocks> sizes{};
        std::array<block_summary, encode_batch_blocks> summaries{};
        std::array<presence_filter, encode_batch_blocks> presences{};
    };
    std::vector<batch> batches((std::min(count, encode_window_blocks) + encode_batch_blocks - 1) / encode_batch_blocks);
    for (std::size_t window = 0; window < count; window += encode_window_blocks) {
        const std::size_t blocks = std::min(encode_window_blocks, count - window);
        const std::size_t used = (blocks + encode_batch_blocks - 1) / encode_batch_blocks;
        auto blocks_of = [&](std::size_t k) { return std::min(encode_batch_blocks, blocks - k * encode_batch_blocks); };
        parallel_for(used, 1, [&](std::size_t first, std::size_t last) {
            block_buffer encoded;
            for (std::size_t k = first; k < last; ++k) {
                batch& b = batches[k];
                b.bytes.clear();
                for (std::size_t i = 0; i < blocks_of(k); ++i) {
                    const std::size_t bytes = write(window + k * encode_batch_blocks + i, encoded, b.summaries[i], b.presences[i]);
                    check_encoded_size(bytes);
                    b.sizes[i] = static_cast<std::uint16_t>(bytes);
                    b.bytes.insert(b.bytes.end(), encoded.begin(), encoded.begin() + static_cast<std::ptrdiff_t>(bytes));
                }
            }
        });
        // In order, serially: each block is compared with the previous one and the recent
        // distinct ones, and shares an entry or is copied into the arena.
        for (std::size_t k = 0; k < used; ++k) {
            const batch& b = batches[k];
            std::size_t at = 0;
            for (std::size_t i = 0; i < blocks_of(k); ++i) {
                push_encoded(std::span<const std::byte>(b.bytes).subspan(at, b.sizes[i]), b.summaries[i], b.presences[i],
                             &recent);
                size_ += block_values;
                at += b.sizes[i];
            }
        }
        reserve_for_rest(window + blocks);
    }
    give_back_growth(start_bytes);
}

void vector_core::give_back_growth(std::size_t arena_bytes_before) {
    // Shorter appends than one window (and the entry/sums tables) grow by doubling, which
    // left up to half the arena spare: 1.8x the file's bytes in memory on real columns of
    // 500-900 blocks. Give the spare back when this append wrote at least half of what is
    // there, so the copy costs no more than the append did and appending piece by piece stays
    // linear (later, smaller appends keep the geometric growth).
    const auto spare = [](const auto& v) { return v.capacity() - v.size() > v.size() / 16; };
    drop_scarce_presence(presence_at_, presence_words_, no_presence);
    if (2 * (arena_.size() - arena_bytes_before) < arena_.size()) return;
    if (spare(arena_)) move_to_capacity(arena_, arena_.size());
    if (spare(entry_of_)) entry_of_.shrink_to_fit();
    if (spare(entries_)) entries_.shrink_to_fit();
    if (spare(sums_)) sums_.shrink_to_fit();
    if (spare(summaries_)) summaries_.shrink_to_fit();
    if (spare(presence_at_)) presence_at_.shrink_to_fit();
    if (spare(presence_words_)) presence_words_.shrink_to_fit();
    if (spare(side_at_)) side_at_.shrink_to_fit();
    if (spare(side_data_)) side_data_.shrink_to_fit();
}

// The hot path of a random read reads no table size: the tail block is the one at
// size_ / block_values (size_ = sealed blocks * block_values + tail_.size(), and the tail is
// shorter than a block, so with an empty tail no valid index gets there), and a direct-readable
// block needs neither checkpoints nor a read side. Since the tables became std::vectors (issue #22)
// each size() was a load, subtract and shift, and sums_of / side_of ran on every read.
namespace {
// direct_delta_value out of get's body: inlined there, its SSE2 registers made get save six
// more registers and spill on every read, +20 instructions a read of other layouts (callgrind
// bam_pos, 20,000 reads: 60 -> 80 in get); a direct call costs the delta reads ~6.
[[gnu::noinline]] std::uint32_t delta_direct_read(const block_descriptor& d, const std::byte* bytes,
                                                 const std::uint32_t* sums, std::uint32_t slot) noexcept {
    return direct_delta_value(d, bytes, sums, slot);
}
}  // namespace

std::uint32_t vector_core::get(std::size_t index) const {
    const std::size_t block = index / block_values;
    const auto slot = static_cast<std::uint32_t>(index % block_values);
    if (block == size_ / block_values) return tail_[slot];
    if (block == hot_block_) return hot_[slot];
    const std::uint32_t id = entry_of_[block];
    const block_entry& e = entries_[id];
    const std::byte* bytes = arena_.data() + e.offset();
    if (direct_readable(e.descriptor))
        return direct_value(bytes, e.descriptor.payloads_at, e.descriptor.live, e.descriptor.stored, e.descriptor.ones,
                            e.descriptor.base, slot);
    if (direct_delta_readable(e.descriptor)) {
        if (const std::uint32_t* sums = sums_of(id)) return delta_direct_read(e.descriptor, bytes, sums, slot);
    }
    return read_side_value(e.descriptor, bytes, slot, sums_of(id), side_of(id));
}

void vector_core::set(std::size_t index, std::uint32_t bits) {
    const std::size_t block = index / block_values;
    const std::size_t slot = index % block_values;
    if (block == entry_of_.size()) {
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

// Re-encodes a sealed block. Bytes equal to a neighbour's share its entry; an entry of this
// block alone is rewritten in place when the block did not grow, else at the end of the arena;
// a shared entry is never written: the block gets a new one (copy on write).
void vector_core::store_block(std::size_t block, std::span<const std::uint32_t> values) {
    block_buffer encoded;
    block_summary summary;
    presence_filter presence;
    const std::size_t bytes = encode_summarized(values, signed_, encoded, summary, presence);
    const std::span<const std::byte> fresh = std::span<const std::byte>(encoded).first(bytes);
    const std::uint32_t id = entry_of_[block];
    const auto equal_to = [&](std::uint32_t other) {
        const std::span<const std::byte> have = entry_bytes(other);
        return have.size() == bytes && std::memcmp(have.data(), encoded.data(), bytes) == 0;
    };
    if (equal_to(id)) {  // unchanged (written back with the values it had)
        if (summaries_[id] == block_summary::unknown()) summaries_[id] = summary;
        hull_.widen(summaries_[id]);
        if (presence.some() && summaries_[id] == summary && presence_of(id) == nullptr) set_presence(id, presence);
        return;
    }
    for (const std::size_t next : {block - 1, block + 1}) {
        if (next >= entry_of_.size() || entry_of_[next] == id || !equal_to(entry_of_[next])) continue;
        release_entry(id);
        entry_of_[block] = entry_of_[next];
        add_ref(entry_of_[next]);
        return;
    }
    if (entries_[id].refs() == 1) {
        const std::uint32_t old_side = side_words(id);
        block_entry& e = entries_[id];
        if (bytes <= block_bytes(e)) {
            std::memcpy(arena_.data() + e.offset(), encoded.data(), bytes);
            garbage_bytes_ += block_bytes(e) - bytes;
            e = make_entry(e.offset(), {arena_.data() + e.offset(), bytes});
        } else {
            garbage_bytes_ += block_bytes(e);
            const std::uint64_t offset = arena_.size();
            arena_.insert(arena_.end(), encoded.begin(), encoded.begin() + static_cast<std::ptrdiff_t>(bytes));
            e = make_entry(offset, {arena_.data() + offset, bytes});
        }
        e.set_refs(1);
        summaries_[id] = summary;
        hull_.widen(summary);
        set_presence(id, presence);  // the new values' filter, or none: never the old values'
        refresh_sums(id);
        refresh_side(id, old_side);
        return;
    }
    if (entries_[id].refs() != sticky_refs) entries_[id].set_refs(entries_[id].refs() - 1);  // others use it
    const std::uint64_t offset = arena_.size();
    arena_.insert(arena_.end(), fresh.begin(), fresh.end());
    const std::uint32_t copy = add_entry(offset, {arena_.data() + offset, bytes}, summary);
    entries_[copy].set_refs(1);
    set_presence(copy, presence);
    entry_of_[block] = copy;
}

void vector_core::compact_if_wasteful() {
    if (dead_entries_ >= compact_min_dead_entries && dead_entries_ * 4 >= entries_.size()) {
        seal();
        return;
    }
    if (garbage_bytes_ < thresholds::compact_min_garbage_bytes) return;
    if (garbage_bytes_ * 4 < arena_.size() * thresholds::compact_garbage_quarters) return;
    seal();
}

// Drops dead entries (renumbering the live ones in the order their first blocks come) and
// the arena bytes no entry uses, and rebuilds the read-side tables when they hold garbage.
void vector_core::compact() {
    // Entries whose count stuck at sticky_refs may be dead without being known: count again.
    const bool renumber = dead_entries_ != 0 || std::any_of(entries_.begin(), entries_.end(), [](const block_entry& e) {
                              return e.refs() == sticky_refs;
                          });
    bool dropped = false;  // entries not known to be dead went too: their bytes with them
    if (renumber) {
        std::vector<std::uint32_t> moved(entries_.size(), no_entry);
        pod_vector<block_entry> entries;
        pod_vector<block_summary> summaries;
        pod_vector<delta_sums> sums;
        entries.reserve(entries_.size() - dead_entries_);
        summaries.reserve(entries_.size() - dead_entries_);
        for (std::uint32_t& id : entry_of_) {
            if (moved[id] == no_entry) {
                moved[id] = static_cast<std::uint32_t>(entries.size());
                entries.push_back(entries_[id]);
                entries.back().set_refs(0);
                summaries.push_back(summaries_[id]);
                if (id < sums_.size()) {
                    sums.resize(entries.size());
                    sums.back() = sums_[id];
                }
            }
            id = moved[id];
            const std::uint32_t n = entries[id].refs();
            if (n != sticky_refs) entries[id].set_refs(n + 1);
        }
        dropped = entries.size() != entries_.size() - dead_entries_;
        // Filters follow their entries' new numbers (those of dropped entries go).
        if (!presence_at_.empty()) {
            pod_vector<std::uint32_t> at(entries.size(), no_presence);
            for (std::size_t id = 0; id < moved.size(); ++id)
                if (moved[id] != no_entry) at[moved[id]] = presence_at_[id];
            presence_at_.swap(at);
        }
        entries_.swap(entries);
        summaries_.swap(summaries);
        sums_.swap(sums);
        dead_entries_ = 0;
    }
    if (garbage_bytes_ != 0 || dropped) {
        byte_vector packed;
        packed.reserve(arena_.size() - std::min(garbage_bytes_, arena_.size()));
        for (block_entry& e : entries_) {
            const std::uint64_t from = e.offset();
            e.set_offset(packed.size());
            packed.insert(packed.end(), arena_.begin() + static_cast<std::ptrdiff_t>(from),
                          arena_.begin() + static_cast<std::ptrdiff_t>(from + block_bytes(e)));
        }
        arena_.swap(packed);
        garbage_bytes_ = 0;
    }
    // Filters packed: words of dropped or rewritten ones go, each slot as big as its filter.
    drop_scarce_presence(presence_at_, presence_words_, no_presence);
    if (!presence_at_.empty()) {
        pod_vector<std::uint64_t> packed;
        for (std::size_t id = 0; id < presence_at_.size(); ++id) {
            std::uint32_t& slot = presence_at_[id];
            if (slot == no_presence) continue;
            const std::uint32_t words = presence_filter::words_for(summaries_[id]);
            const std::uint64_t* from = presence_words_.data() + (slot >> 2);
            slot = presence_slot(packed.size(), words);
            packed.insert(packed.end(), from, from + words);
        }
        presence_words_.swap(packed);
    }
    // The hull exact again: every entry left is in use where renumbered, else none is dead.
    hull_ = key_hull{};
    for (const block_summary& s : summaries_) hull_.widen(s);
    if (side_garbage_ != 0 || renumber) {
        side_at_.clear();
        side_data_.clear();
        side_garbage_ = 0;
        for (std::uint32_t id = 0; id < entries_.size(); ++id) refresh_side(id, 0);
    }
}

void vector_core::seal() {
    flush_hot();
    compact();
    arena_.shrink_to_fit();
    entry_of_.shrink_to_fit();
    entries_.shrink_to_fit();
    summaries_.shrink_to_fit();
    presence_at_.shrink_to_fit();
    presence_words_.shrink_to_fit();
    sums_.shrink_to_fit();
    side_at_.shrink_to_fit();
    side_data_.shrink_to_fit();
    if (hot_block_ == no_block) {
        hot_.clear();
        hot_.shrink_to_fit();
    }
}

void vector_core::decode_block(std::size_t block, std::span<std::uint32_t> out,
                               decode_destination destination) const {
    if (block == entry_of_.size()) {
        std::copy_n(tail_.begin(), out.size(), out.begin());
    } else if (block == hot_block_) {
        std::copy_n(hot_.begin(), out.size(), out.begin());
    } else {
        // The table's descriptor gives the plane table: no header parse (payloads are still
        // checked as planes are rebuilt).
        const std::span<const std::byte> bytes = arena_block(block);
        const std::uint32_t id = entry_of_[block];
        const block_descriptor& d = entries_[id].descriptor;
        const parsed_block parsed = expand_descriptor(d, bytes.data(), block_values);
        const gaps_side side(d, side_gaps(side_of(id)));  // long lists' maps: no list walked
        if (out.size() == block_values) {
            decode_parsed(parsed, bytes, 0, out, side, destination);
        } else {
            alignas(64) std::uint32_t values[block_values];
            decode_parsed(parsed, bytes, 0, {values, block_values}, side, decode_destination::cache);
            std::copy_n(values, out.size(), out.begin());
        }
    }
}

void release(iteration_buffer* buffer) noexcept {
    if (buffer != nullptr && buffer->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete buffer;
}

iteration_window vector_core::iteration_fill(std::size_t index, iteration_buffer* held) const {
    const std::size_t block = index / block_values;
    const std::size_t first = block * block_values;
    const std::size_t count = std::min(block_values, size_ - first);
    // The acquire pairs with release(): a copy that let go of this buffer in another thread
    // has finished reading it.
    const bool reuse = held != nullptr && held->refs.load(std::memory_order_acquire) == 1;
    iteration_buffer* buffer = reuse ? held : new iteration_buffer;
    try {
        // The buffer is reused block after block: in cache.
        decode_block(block, {buffer->values, count}, decode_destination::cache);
    } catch (...) {
        if (!reuse) delete buffer;
        throw;
    }
    if (!reuse) release(held);
    return {buffer, first, count};
}

void vector_core::decode(std::size_t first, std::span<std::uint32_t> out) const {
    // A partial first block, then whole blocks (in parallel when there are many), then the rest.
    const std::size_t head = std::min(out.size(), (block_values - first % block_values) % block_values);
    const std::size_t full = (out.size() - head) / block_values;
    if (full < 2 * decode_grain_blocks || thread_count() == 1) {
        decode_serial(first, out);
        return;
    }
    decode_serial(first, out.first(head));
    const std::size_t first_block = (first + head) / block_values;
    const std::span<std::uint32_t> blocks = out.subspan(head, full * block_values);
    parallel_for(full, decode_grain_blocks, [&](std::size_t begin, std::size_t end) {
        for (std::size_t b = begin; b < end; ++b)
            decode_block(first_block + b, blocks.subspan(b * block_values, block_values));
    });
    const std::size_t done = head + full * block_values;
    decode_serial(first + done, out.subspan(done));
}

void vector_core::decode_serial(std::size_t first, std::span<std::uint32_t> out) const {
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
    entry_of_.clear();
    entries_.clear();
    dead_entries_ = 0;
    summaries_.clear();
    presence_at_.clear();
    presence_words_.clear();
    hull_ = key_hull{};
    sums_.clear();
    side_at_.clear();
    side_data_.clear();
    side_garbage_ = 0;
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
    if (keep_blocks < entry_of_.size()) {
        pod_vector<std::uint32_t> new_tail(block_values);
        decode_block(keep_blocks, {new_tail.data(), block_values});
        new_tail.resize(keep_tail);
        for (std::size_t b = keep_blocks; b < entry_of_.size(); ++b) release_entry(entry_of_[b]);
        entry_of_.resize(keep_blocks);
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
    entry_of_.reserve(blocks);
}

void vector_core::swap(vector_core& other) noexcept {
    std::swap(signed_, other.signed_);
    std::swap(size_, other.size_);
    arena_.swap(other.arena_);
    entry_of_.swap(other.entry_of_);
    entries_.swap(other.entries_);
    std::swap(dead_entries_, other.dead_entries_);
    summaries_.swap(other.summaries_);
    presence_at_.swap(other.presence_at_);
    presence_words_.swap(other.presence_words_);
    std::swap(hull_, other.hull_);
    sums_.swap(other.sums_);
    side_at_.swap(other.side_at_);
    side_data_.swap(other.side_data_);
    std::swap(side_garbage_, other.side_garbage_);
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
    return sizeof(*this) + arena_.capacity() + entries_.capacity() * sizeof(block_entry) +
           entry_of_.capacity() * sizeof(std::uint32_t) +
           summaries_.capacity() * sizeof(block_summary) +
           presence_at_.capacity() * sizeof(std::uint32_t) +
           presence_words_.capacity() * sizeof(std::uint64_t) +
           sums_.capacity() * sizeof(delta_sums) +
           (side_at_.capacity() + side_data_.capacity()) * sizeof(std::uint32_t) +
           tail_.capacity() * sizeof(std::uint32_t) +
           hot_.capacity() * sizeof(std::uint32_t);
}

vector_stats vector_core::stats() const {
    vector_stats s;
    s.values = size_;
    s.sealed_blocks = entry_of_.size();
    s.memory_bytes = memory_bytes();
    s.bits_per_value = size_ ? 8.0 * static_cast<double>(s.memory_bytes) / static_cast<double>(size_) : 0.0;
    block_buffer scratch;
    for (std::size_t b = 0; b < entry_of_.size(); ++b) {
        // Every block's bytes, shared or not (what a file holding each block takes).
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
                        std::size_t size, std::span<const block_summary> summaries,
                        std::span<const presence_filter> presences) {
    adopt_filled(
        arena.size(), [&](std::span<std::byte> out) { std::copy(arena.begin(), arena.end(), out.begin()); }, offsets,
        sizes, tail, size, summaries, presences);
}

void vector_core::adopt_filled(std::size_t arena_bytes, const std::function<void(std::span<std::byte>)>& fill,
                               std::span<const std::uint64_t> offsets, std::span<const std::uint32_t> sizes,
                               std::span<const std::uint32_t> tail, std::size_t size,
                               std::span<const block_summary> summaries,
                               std::span<const presence_filter> presences) {
    if (!summaries.empty() && summaries.size() != offsets.size())
        throw size_error("bitplane::detail::vector_core::adopt: " + std::to_string(summaries.size()) +
                         " block summaries for " + std::to_string(offsets.size()) + " blocks");
    if (!presences.empty() && presences.size() != summaries.size())
        throw size_error("bitplane::detail::vector_core::adopt: " + std::to_string(presences.size()) +
                         " presence filters for " + std::to_string(summaries.size()) + " block summaries");
    clear();
    arena_.resize(arena_bytes);
    try {
        fill(std::span<std::byte>(arena_.data(), arena_bytes));
    } catch (...) {
        clear();
        throw;
    }
    const std::span<const std::byte> arena(arena_.data(), arena_bytes);
    entry_of_.reserve(offsets.size());
    recent_entries recent;
    std::size_t used = 0;  // arena bytes the distinct entries take
    // Offsets that go back (a block stored once for several, anywhere before): every entry
    // by its offset, made when the first one does.
    std::unordered_map<std::uint64_t, std::uint32_t> by_offset;
    std::uint64_t end = 0;
    for (std::size_t b = 0; b < offsets.size(); ++b) {
        const std::span<const std::byte> bytes = arena.subspan(offsets[b], sizes[b]);
        const block_summary& summary = summaries.empty() ? block_summary::unknown() : summaries[b];
        std::uint32_t id = find_same(bytes, offsets[b], &recent);
        if (id == no_entry && offsets[b] < end) {
            if (by_offset.empty())
                for (std::uint32_t e = 0; e < entries_.size(); ++e) by_offset.emplace(entries_[e].offset(), e);
            const auto hit = by_offset.find(offsets[b]);
            if (hit != by_offset.end() && block_bytes(entries_[hit->second]) == bytes.size()) id = hit->second;
        }
        if (id == no_entry) {
            id = add_entry(offsets[b], bytes, summary);
            recent.id[recent_entries::slot(bytes)] = id;
            if (!by_offset.empty()) by_offset.emplace(offsets[b], id);
            used += bytes.size();
        }
        share_entry(id, summary);
        if (!presences.empty() && presences[b].some() && summaries_[id] == summary && presence_of(id) == nullptr)
            set_presence(id, presences[b]);
        end = std::max<std::uint64_t>(end, offsets[b] + bytes.size());
    }
    // Repeated blocks stored again (files written before blocks were shared, or not side by
    // side) leave bytes no entry uses: pack the arena so that it holds each block once.
    garbage_bytes_ = arena_bytes > used ? arena_bytes - used : 0;
    if (garbage_bytes_ * 64 > arena_bytes) compact();
    // As after an append: scarce presence filters dropped, and the tables that grew by doubling
    // here (entries, summaries, sides, sums) trimmed: bam_mapq took 1.42 MB after load(save())
    // where the vector saved took 0.91 MB (BitMagic 1.01 MB).
    give_back_growth(0);
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
