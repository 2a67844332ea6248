// detail::bitset_builder: blocks set in any order, from several threads at once.
//
// Each block has a slot (a block_entry; count 0 = empty, count = length = full). A stored
// block's payload is encoded straight into its place: inside the slot when it is at most 8
// bytes, otherwise in one shared arena sized for the worst case (256 bytes a block, the size
// of a plain bitset of the same universe, of which only the pages written are ever touched),
// at an offset taken with one atomic add. finish() turns the slots into the summary and the
// entries and hands the arena over as it is (shrunk), so a block's payload is written once.
// A block set a second time leaves its old payload behind; should that ever overflow the
// arena, the payload goes to a side list and finish() packs everything into a fresh arena.
//
// Payloads are placed through a writer (one per thread: a scan's task), which takes arena
// bytes for itself with that atomic add and commits them block by block. After a raw block,
// a writer copies the next full-length plane into 256 bytes it holds with the kernel that
// also counts it (and_stretch(p, p): one pass, with the transitions counted only where they
// can change the encoding) before its encoding is known: dense scan results stay raw there,
// neither counted by `stats` then copied (callgrind, AVX2 path, find_eq frequent a call:
// bed_strand -8.7%, bam_flag -3.0%, word_length -2.3%, bam_mapq -2.0%). Another encoding is
// written over the copy (it is smaller), and the rest stays the writer's for its next block.
// A writer told where its blocks end (run_scan's tasks) takes the bytes for a copy once for
// up to bitset_builder_reserve_blocks of its next blocks, never past its end: one atomic add
// (a locked instruction) for several raw blocks, and the writers' bytes together stay within
// the arena's worst case. Its raw copies are stored before any other step (full_block_stays_raw),
// and it counts the blocks it stores for finish(), which then makes one pass over the slots
// (find14, callgrind AVX2, find_eq frequent a call: bam_flag 1.480M -> 1.429M instructions).
// After a block stored as runs, a writer counts the next with stats_transitions, which also
// writes the block's transitions, its run bounds: a runs payload is extracted from them with
// no second pass over the plane (bam_ref_span find_eq frequent, 835 of 863 blocks runs:
// 2.78M -> 2.66M instructions a call, callgrind AVX2).
// A plane whose set bits the scan's kernel counted (set_block_counted: the equality lane's
// interleaved kernel, equal_by_candidates) is, below stretch_raw_min of them, stored from its
// extracted positions with neither the stats pass nor the counting copy; from there on copied
// as after a raw block unless the previous block was runs (callgrind AVX2, find_eq frequent a
// call: geoip4_country 276.7K -> 262.1K, geoip6_country 224.0K -> 212.5K, bam_tlen 1606K ->
// 1527K; set_block's own way apart, bam_flag +0.4%, word_length +0.45%).
// No thread writes bytes another writer holds: a writer hands back what it did not use when
// it ends, with release order, and writers take bytes with acquire order, so one that gets
// them sees the writes made to them as done (find8 gave its reservation back block by block,
// unordered: ThreadSanitizer saw another thread's writes to it race with the copy).
#include "bitset/bitset_core.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/error.hpp>

#include <algorithm>
#include <bit>
#include <atomic>
#include <mutex>
#include <string>

namespace bitplane::detail {

namespace {

// The transitions of p, p XOR (p << 1) (bitset_kernel_table::stats_transitions' t), where
// no kernel wrote them.
void transitions_into(const plane& p, plane& t) noexcept {
    t[0] = p[0] ^ (p[0] << 1);
    for (std::uint32_t w = 1; w < plane_words; ++w) t[w] = p[w] ^ ((p[w] << 1) | (p[w - 1] >> 31));
}

// The runs payload of a block (the bytes runs_payload::write writes) from its transitions t:
// the set bits of p XOR (p << 1) are, in order, begin0, end0, begin1, end1, ..., and 2048
// ends a run that reaches the end of the block (`top`: p's bit 2047 set). One SIMD extraction
// of the (at most 2 runs) transitions instead of a walk over the runs bit by bit (the cost of
// dense scan results).
// Writes exactly 4 runs bytes; runs < 64, as choose_plan() picks runs only below raw's 256 bytes.
void write_runs_payload(const plane& t, bool top, const bitset_kernel_table& k, std::byte* out) noexcept {
    // At most 2 runs <= 126 transitions (+ 8 slots the kernel may write past them).
    position_buffer<2 * block_values / 32> ends;
    std::uint32_t n = k.extract_sparse(t.data(), ends.data());
    if (top) ends.data()[n++] = static_cast<std::uint16_t>(block_values);
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(out, ends.data(), 2u * n);
    } else {
        for (std::uint32_t i = 0; i < n; ++i) store_le<std::uint16_t>(out + 2 * i, ends.data()[i]);
    }
}

// No bit set: an OR of the words (vectorized; no popcount). The first 32 bytes settle most
// non-empty planes (dense scan results: bam_flag find_eq frequent lost 4% to the whole OR).
bool is_empty(const plane& p) noexcept {
    std::uint32_t head = 0;
    for (std::uint32_t w = 0; w < 8; ++w) head |= p[w];
    if (head != 0) return false;
    std::uint32_t any = 0;
    for (std::uint32_t w = 8; w < plane_words; ++w) any |= p[w];
    return any == 0;
}

// Whether the stats of the counting copy (the stretch kernels' contract: transitions counted
// only where they can change the encoding) give the plan exact ones would; made so where they
// do. From stretch_raw_min set bits on, they do (raw, or runs from transitions below
// stretch_runs_never, which are exact). Below it the transitions are a lower bound: at least
// one a set bit makes runs >= count / 2 take no fewer bytes than positions, which win the
// tie, so positions whatever the exact value; 2 count then stands for it (positions too).
bool settle_copy_stats(block_stats& st) noexcept {
    static_assert(choose_plan(stretch_raw_min - 1, block_values, block_values).kind != block_kind::raw &&
                  choose_plan(stretch_raw_min, stretch_runs_never / 2, block_values).kind == block_kind::raw);
    if (st.count >= stretch_raw_min) return true;
    if (st.transitions < st.count) return false;
    st.transitions = 2 * st.count;
    return true;
}

}  // namespace

struct bitset_builder::state {
    std::uint64_t size = 0;
    std::size_t blocks = 0;

    // Allocated on first use (and again after finish()).
    std::atomic<bool> ready{false};
    std::mutex mutex;  // first use; overflow payloads
    std::unique_ptr<block_entry[]> slots;
    std::byte* arena = nullptr;  // std::malloc, `capacity` bytes
    std::size_t capacity = 0;
    std::atomic<std::uint64_t> used{0};
    std::atomic<std::uint64_t> superseded{0};
    // The writers' stored blocks (~writer()): finish()'s entries reserved without a pass over
    // the slots. At least the stored blocks finish() finds (more where blocks were set again).
    std::atomic<std::size_t> stored{0};
    std::vector<std::pair<std::size_t, std::unique_ptr<std::byte[]>>> overflow;  // (block, payload)
    std::atomic<bool> has_overflow{false};

    ~state() { std::free(arena); }

    void ensure_ready() {
        if (!ready.load(std::memory_order_acquire)) allocate();
    }

    // Out of line: inlined into set_block_full, the allocation made it save six registers for
    // every full block (ucd_upper_diff find_eq frequent: 531 of 544 blocks). Not `cold`: GCC
    // then optimizes it for size, and the slots' zeroing loop cost ~900 instructions a find.
    [[gnu::noinline]] void allocate() {
        const std::lock_guard lock(mutex);
        if (ready.load(std::memory_order_relaxed)) return;
        slots = std::make_unique<block_entry[]>(blocks);
        capacity = blocks * (block_values / 8) + byte_buffer::slack;
        if (blocks != 0) {
            arena = static_cast<std::byte*>(std::malloc(capacity));
            if (arena == nullptr) throw std::bad_alloc();
        }
        used.store(0, std::memory_order_relaxed);
        superseded.store(0, std::memory_order_relaxed);
        stored.store(0, std::memory_order_relaxed);
        overflow.clear();
        has_overflow.store(false, std::memory_order_relaxed);
        ready.store(true, std::memory_order_release);
    }

    void check_block(std::size_t block, const char* what) const {
        if (block >= blocks)
            throw index_error(std::string("bitset_builder::") + what + ": block " + std::to_string(block) +
                              " outside [0, " + std::to_string(blocks) + ")");
    }

    // Forgets the payload of the slot's previous contents.
    void release(const block_entry& old, std::uint32_t len) {
        if (old.count == 0 || old.count == len) return;
        const std::uint32_t bytes = payload_size(old, len);
        if (!is_inline(bytes)) superseded.fetch_add(bytes, std::memory_order_relaxed);
    }

    // `bytes` arena bytes at the start of a writer's free range [from, to), which grows where
    // the arena's end is still its end, else moves there (what was left of it stays a hole,
    // counted as superseded). Null where the arena is out of room: the bytes taken then lie
    // past its capacity, where nothing is ever written.
    // `ask` >= bytes: how many to take from the arena where it takes any (room for the
    // writer's next blocks too: one atomic add for several of them).
    std::byte* reserve(std::uint64_t& from, std::uint64_t& to, std::uint32_t bytes, std::uint64_t ask = 0) {
        if (to - from >= bytes) return arena + from;
        ask = std::max<std::uint64_t>(ask, bytes);
        // Acquire: these may be bytes another writer handed back (release, hand_back()).
        const std::uint64_t at = used.fetch_add(ask, std::memory_order_acquire);
        if (at + ask + byte_buffer::slack > capacity) return nullptr;
        if (at != to) {
            if (to != from) superseded.fetch_add(to - from, std::memory_order_relaxed);
            from = at;
        }
        to = at + ask;
        return arena + from;
    }

    // A writer's unused range back to the arena where nothing was taken after it, else counted
    // as superseded (finish() packs the arena when those grow too many).
    void hand_back(std::uint64_t from, std::uint64_t to) {
        if (from == to) return;
        std::uint64_t end = to;
        if (!used.compare_exchange_strong(end, from, std::memory_order_release, std::memory_order_relaxed))
            superseded.fetch_add(to - from, std::memory_order_relaxed);
    }

    // Where a payload of `bytes` bytes (not inline) for `block` goes, taken from the writer's
    // free range [from, to) or else from the side list; sets e.offset.
    std::byte* place(std::size_t block, block_entry& e, std::uint32_t bytes, std::uint64_t& from, std::uint64_t& to) {
        if (std::byte* p = reserve(from, to, bytes)) {
            e.offset = from;
            from += bytes;
            return p;
        }
        const std::lock_guard lock(mutex);
        auto copy = std::make_unique<std::byte[]>(bytes);
        std::byte* p = copy.get();
        overflow.emplace_back(block, std::move(copy));
        has_overflow.store(true, std::memory_order_relaxed);
        e.offset = ~std::uint64_t{0};  // resolved by finish()
        return p;
    }
};

bitset_builder::bitset_builder(std::size_t size) : state_(std::make_unique<state>()) {
    state_->size = size;
    state_->blocks = size / block_values + (size % block_values != 0);  // no wrap near 2^64
}

bitset_builder::~bitset_builder() = default;

std::size_t bitset_builder::block_count() const noexcept { return state_->blocks; }

// A plane the caller counted (count < stretch_raw_min, never raw on a full-length block) stored
// from its positions straight from their extraction: no stats pass nor counting copy before
// it, its runs counted from the positions (positions win unless 4 runs < 2 count; runs then
// written from the positions too), the payload written once to its place (geoip4_country /
// geoip6_country find_eq frequent: about half of their result blocks are positions of ~65 /
// ~36 set bits, the lane's kernel having counted them). False, with nothing stored, where the
// plane is raw (then set_block's way decides). The count only chose this way: a plane of
// another count is stored all the same.
bool bitset_builder::writer::set_counted_sparse(block_entry& slot, std::size_t block, const plane& bits,
                                                   std::uint32_t len) {
    // Room for every bit of the plane: a miscounted plane must not overflow it.
    position_buffer<block_values> positions;
    const std::uint32_t n = kernels_->extract_sparse(bits.data(), positions.data());
    const bitset_block_plan plan = choose_plan(n, runs_of_positions(positions.data(), n), len);
    if (plan.kind == block_kind::raw) return false;  // a short last block's (256 bytes at most)
    state& s = *state_;
    ++stored_;
    // Written in place, field by field (see core_writer::slot()).
    slot = block_entry{};
    slot.count = static_cast<std::uint16_t>(n);
    slot.items = plan.items;
    slot.kind = plan.kind;
    slot.inline_payload = is_inline(plan.bytes);
    std::byte* dest = slot.inline_payload ? reinterpret_cast<std::byte*>(&slot.offset)
                                          : s.place(block, slot, plan.bytes, free_from_, free_to_);
    write_positions_payload(plan, positions.data(), n, len, dest);
    copy_next_ = false;
    runs_next_ = false;
    return true;
}

void bitset_builder::writer::set_block(std::size_t block, const plane& bits) { store<false>(block, bits, unknown_count); }

void bitset_builder::writer::set_block_counted(std::size_t block, const plane& bits, std::uint32_t count) {
    store<true>(block, bits, count);
}

// set_block and set_block_counted, apart so that set_block's way takes no count (bam_flag
// find_eq frequent: +1% instructions where one body tested it for every block, callgrind AVX2).
template <bool Counted>
void bitset_builder::writer::store(std::size_t block, const plane& bits, std::uint32_t count) {
    state& s = *state_;
    if (block >= s.blocks) s.check_block(block, "set_block");  // throws (the message built out of line)
    const std::uint32_t len = block_length(s.size, block);
    if (len < block_values) {
        plane tail = bits;
        clear_from(tail, len);
        if (tail != bits)
            throw argument_error("bitset_builder::set_block: block " + std::to_string(block) + " has bits set at or beyond " +
                                 "the bitset's size " + std::to_string(s.size));
    }
    s.ensure_ready();
    block_entry& slot = s.slots[block];
    s.release(slot, len);
    if (Counted ? count == 0 : is_empty(bits)) {
        // Scans hand over the empty planes of blocks without a match (scan_block with exact
        // false): one OR over the words instead of the stats (find_eq rare: most blocks).
        slot = block_entry{0, 0, 0, block_kind::raw, 0, {}};
        return;
    }
    if (kernels_ == nullptr) kernels_ = &bitset_kernels();  // once a writer, not once a block
    const bitset_kernel_table& k = *kernels_;
    if (Counted && count < stretch_raw_min && set_counted_sparse(slot, block, bits, len)) return;
    // A full-length plane (little-endian: a raw payload's bytes are the plane's) copied and
    // counted in one pass into bytes this writer holds: where it is raw, it is stored there.
    // Only where the writer's previous one was raw: a block of few runs or set bits is counted
    // by `stats` alone, as the copy would be lost (a task's blocks are neighbours, alike in
    // most columns; bam_ref_span find_eq frequent, mostly runs blocks, lost 2% to the copy on
    // each), and a writer that stores no raw block holds no bytes it may not use (the sparse
    // results of find_eq rare: no holes where its hand-back comes too late).
    const bool full_length = len == block_values && std::endian::native == std::endian::little;
    // A counted plane of stretch_raw_min set bits or more is raw unless few runs: copied too
    // (after a block stored as runs, counted with its transitions, as below).
    const bool copy_it = Counted ? count >= stretch_raw_min && !runs_next_ : copy_next_;
    std::byte* copy = nullptr;
    if (full_length && copy_it) {
        if (free_to_ - free_from_ >= block_values / 8) {
            copy = s.arena + free_from_;
        } else {
            // Room for the raw blocks that may follow too (the writer's blocks ascend to end_;
            // none past it, so that the writers' bytes together stay within the arena's worst case).
            const std::uint64_t ahead =
                end_ > block ? std::min<std::uint64_t>(end_ - block, thresholds::bitset_builder_reserve_blocks) : 1;
            copy = s.reserve(free_from_, free_to_, block_values / 8, ahead * (block_values / 8));
        }
    }
    block_stats st;
    // The transitions, where the stats' kernel wrote them (after a block stored as runs: the
    // next is likely runs too, and its payload is extracted from them): no second pass over
    // the plane for them (bam_ref_span find_eq frequent: 835 of 863 blocks runs).
    plane bounds;
    bool have_bounds = false;
    if (copy != nullptr) {
        k.and_stretch(bits.data(), bits.data(), copy, 1, &st);  // p AND p = p, counted on the way
        if (full_block_stays_raw(st, (bits[plane_words - 1] >> 31) != 0)) {
            // Most blocks of a dense result: the copy is the payload, the writer copies the next.
            slot = block_entry{free_from_, static_cast<std::uint16_t>(st.count), 0, block_kind::raw, 0, {}};
            free_from_ += block_values / 8;
            ++stored_;
            return;
        }
        if (!settle_copy_stats(st)) st = k.stats(bits.data());
    } else if (runs_next_) {
        st = k.stats_transitions(bits.data(), bounds.data());
        have_bounds = true;
    } else {
        st = k.stats(bits.data());
    }
    const auto write_runs = [&](std::byte* dest) {
        if (!have_bounds) transitions_into(bits, bounds);
        write_runs_payload(bounds, (bits[plane_words - 1] >> 31) != 0, k, dest);
    };
    if (st.count == len) {
        slot = block_entry{0, static_cast<std::uint16_t>(st.count), 0, block_kind::raw, 0, {}};
        return;
    }
    ++stored_;  // every way below stores the block
    // Written in place, field by field (see core_writer::slot()).
    slot = block_entry{};
    slot.count = static_cast<std::uint16_t>(st.count);
    // Where the payload goes, once slot.inline_payload is set: the copy's place where there is one.
    const auto payload_at = [&](std::uint32_t bytes) {
        return slot.inline_payload ? reinterpret_cast<std::byte*>(&slot.offset)
                                   : s.place(block, slot, bytes, free_from_, free_to_);
    };
    const std::uint32_t runs = runs_of(st, bits);
    const block_kind kind = choose_plan(st.count, runs, len).kind;
    copy_next_ = full_length && kind == block_kind::raw;
    runs_next_ = kind == block_kind::runs;
    if (copy_next_ && copy != nullptr) {
        slot.kind = block_kind::raw;  // items 0, not inline
        slot.offset = free_from_;     // the copy, at the start of the free range
        free_from_ += block_values / 8;
        return;
    }
    if (4 * runs <= st.count) {
        // Runs win outright, as choose_plan() would pick them: 4 runs <= count < 2 count, and
        // below raw's bytes when count is; gaps take at least a byte a set bit, so no fewer
        // than 4 runs bytes (ties go to runs). No positions extracted nor gaps encoded for
        // sparse clustered results (ucd_script find_eq frequent: 11 of its 41 stored blocks).
        if (4 * runs < raw_plane_bytes(len)) {
            slot.items = static_cast<std::uint16_t>(runs);
            slot.kind = block_kind::runs;
            slot.inline_payload = is_inline(4 * runs);
            std::byte* dest = payload_at(4 * runs);
            write_runs(dest);
            return;
        }
    }
    const bitset_block_plan plan = choose_plan(st.count, runs, len);
    if (plan.kind == block_kind::positions) {
        // The payload is the positions, written into scratch (the kernel writes past them),
        // then copied to its place. Only where positions win: a block of 128-255 set bits is
        // stored raw, and extracting its positions first cost more than the scan itself
        // (scores3 find_eq frequent, 1/8 of the values: 3.5x the count_eq time).
        position_buffer<thresholds::bitset_positions_max_count + 8> positions;
        k.extract_sparse(bits.data(), positions.data());
        std::byte scratch[2 * thresholds::bitset_positions_max_count + 16];
        write_positions_payload(plan, positions.data(), st.count, len, scratch);
        slot.items = plan.items;
        slot.kind = plan.kind;
        slot.inline_payload = is_inline(plan.bytes);
        std::byte* dest = payload_at(plan.bytes);
        std::memcpy(dest, scratch, plan.bytes);
        return;
    }
    slot.items = plan.items;
    slot.kind = plan.kind;
    slot.inline_payload = is_inline(plan.bytes);
    std::byte* dest = payload_at(plan.bytes);
    if (plan.kind == block_kind::runs) {
        write_runs(dest);
    } else if (plan.kind == block_kind::raw && len == block_values && std::endian::native == std::endian::little) {
        std::memcpy(dest, bits.data(), block_values / 8);  // a fixed size: vector moves, not rep movs (scans)
    } else {
        write_plane_payload(plan, bits, len, dest);
    }
}

void bitset_builder::writer::set_block_full(std::size_t block) {
    state& s = *state_;
    // The check's call only where it throws: full blocks are most of some results (ucd_bidi
    // find_eq frequent: 518 of 544 blocks), and an unconditional call saved six registers.
    if (block >= s.blocks) s.check_block(block, "set_block_full");
    s.ensure_ready();
    const std::uint32_t len = block_length(s.size, block);
    block_entry& slot = s.slots[block];
    s.release(slot, len);
    slot = block_entry{0, static_cast<std::uint16_t>(len), 0, block_kind::raw, 0, {}};
}

bitset_builder::writer::~writer() {
    state_->hand_back(free_from_, free_to_);
    if (stored_ != 0) state_->stored.fetch_add(stored_, std::memory_order_relaxed);
}

void bitset_builder::set_block(std::size_t block, const plane& bits) { writer(*this).set_block(block, bits); }

void bitset_builder::set_block_full(std::size_t block) { writer(*this).set_block_full(block); }

bitset bitset_builder::finish() {
    state& s = *state_;
    s.ensure_ready();
    auto core = std::make_unique<bitset_core>(s.size);
    std::vector<summary_word>& words = core_access::words(*core);
    std::vector<block_entry>& entries = core_access::entries(*core);
    // One pass over the slots: the entries reserved from the writers' count, and every block
    // but the last full-length, its length not worked out block by block (a pass to count the
    // stored blocks and block_length() in both were ~50 instructions a block, bam_flag find_eq
    // frequent, callgrind).
    const std::size_t last = s.blocks - 1;  // unused where there are no blocks
    entries.reserve(s.stored.load(std::memory_order_relaxed));
    for (std::size_t b = 0; b < s.blocks; ++b) {
        const block_entry& e = s.slots[b];
        if (e.count == 0) continue;
        summary_word& w = words[b / 64];
        const std::uint64_t bit = std::uint64_t{1} << (b % 64);
        w.nonempty |= bit;
        if (e.count == (b != last ? block_values : block_length(s.size, b))) {
            w.full |= bit;
        } else {
            entries.push_back(e);
        }
    }
    if (entries.capacity() != entries.size()) entries.shrink_to_fit();  // blocks set again: fewer than counted

    byte_buffer& arena = core_access::arena(*core);
    const std::uint64_t used = std::min<std::uint64_t>(s.used.load(), s.capacity - byte_buffer::slack);
    const bool overflowed = s.has_overflow.load();
    if (!overflowed && s.superseded.load() * 4 <= used) {
        if (s.arena != nullptr) arena.adopt(std::exchange(s.arena, nullptr), used, s.capacity);
        arena.shrink_to_fit();
    } else {
        // Pack the live payloads (in block order) into a fresh arena.
        std::size_t i = 0, next_overflow = 0;
        std::stable_sort(s.overflow.begin(), s.overflow.end(),
                  [](const auto& x, const auto& y) { return x.first < y.first; });
        for (std::size_t b = 0; b < s.blocks; ++b) {
            const block_entry& slot = s.slots[b];
            const std::uint32_t len = block_length(s.size, b);
            if (slot.count == 0 || slot.count == len) continue;
            block_entry& e = entries[i++];
            if (e.inline_payload) continue;
            const std::uint32_t bytes = payload_size(e, len);
            const std::byte* from = nullptr;
            if (e.offset == ~std::uint64_t{0}) {
                // The last overflow payload of this block is its live one.
                while (next_overflow < s.overflow.size() && s.overflow[next_overflow].first <= b) {
                    if (s.overflow[next_overflow].first == b) from = s.overflow[next_overflow].second.get();
                    ++next_overflow;
                }
            } else {
                from = s.arena + e.offset;
            }
            e.offset = static_cast<std::uint64_t>(arena.append(from, bytes) - arena.data());
        }
        arena.shrink_to_fit();
        std::free(std::exchange(s.arena, nullptr));
    }
    core_access::index(*core);

    // The builder starts over, empty, at its next use.
    s.slots.reset();
    s.ready.store(false, std::memory_order_release);
    return bitset(std::move(core));
}

}  // namespace bitplane::detail
