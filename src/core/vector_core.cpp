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
#include <array>
#include <cstring>
#include <string>
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

// Encodes a block of values and summarizes them from the encoder's own statistics.
std::size_t encode_summarized(std::span<const std::uint32_t> values, bool is_signed, std::span<std::byte> out,
                              block_summary& summary) {
    value_stats st;
    const std::size_t bytes = encode_block(values, is_signed, out, codec::encode_options{}, st);
    summary = summary_from_stats(st, is_signed);
    return bytes;
}
}  // namespace

block_summary summarize_values(std::span<const std::uint32_t> values, bool is_signed) noexcept {
    value_stats st;
    active_kernels().stats(values.data(), values.size(), &st);
    return summary_from_stats(st, is_signed);
}

std::size_t vector_core::block_count() const noexcept { return blocks_.size() + (tail_.empty() ? 0 : 1); }

vector_core::block_entry vector_core::make_entry(std::uint64_t offset, std::span<const std::byte> bytes) noexcept {
    block_entry e;
    e.offset = offset;
    // Trusted bytes (encoded here, appended by bitplane's own operations under their
    // contract, or adopted after load validated them): read without checks, but never beyond
    // the span. The extent is the span's in any case, so that the arena stays consistent;
    // validate() compares the entry with a checked parse.
    e.descriptor = read_descriptor(bytes.data(), static_cast<std::uint32_t>(block_values),
                                   static_cast<std::uint32_t>(bytes.size()));
    e.descriptor.end = static_cast<std::uint16_t>(bytes.size());
    return e;
}

void vector_core::refresh_sums(std::size_t block) {
    const block_descriptor& d = blocks_[block].descriptor;
    if (d.transform() != codec::transform::delta) return;
    static_assert(std::tuple_size_v<delta_sums> == delta_checkpoint_count);
    if (sums_.size() <= block) sums_.resize(blocks_.size());
    delta_checkpoints(d, arena_.data() + blocks_[block].offset, sums_[block].data());
}

std::uint32_t vector_core::skip_count(std::size_t block) const noexcept {
    if (skips_of(block) == nullptr) return 0;
    return gaps_skip_count(blocks_[block].descriptor, arena_.data() + blocks_[block].offset);
}

// `old_count`: the entries the block had before it was re-encoded (0 for a new block).
void vector_core::refresh_skips(std::size_t block, std::uint32_t old_count) {
    const block_entry& e = blocks_[block];
    const std::byte* bytes = arena_.data() + e.offset;
    const std::uint32_t count = gaps_skip_count(e.descriptor, bytes);
    const bool had = block < skip_at_.size() && skip_at_[block] != no_skips;
    if (count == 0) {
        if (had) skip_at_[block] = no_skips;
        skip_garbage_ += old_count;
        return;
    }
    if (skip_at_.size() < blocks_.size()) skip_at_.resize(blocks_.size(), no_skips);
    if (had && count <= old_count) {
        skip_garbage_ += old_count - count;
    } else {
        skip_garbage_ += old_count;
        skip_at_[block] = static_cast<std::uint32_t>(skip_data_.size());
        skip_data_.resize(skip_data_.size() + count);
    }
    gaps_skips(e.descriptor, bytes, skip_data_.data() + skip_at_[block]);
}

void vector_core::validate() const {
    const auto fail = [](std::size_t block, const std::string& what) {
        throw format_error("vector block " + std::to_string(block) + ": " + what, 0);
    };
    if (size_ != blocks_.size() * block_values + tail_.size() || tail_.size() >= block_values)
        throw format_error("vector size " + std::to_string(size_) + " disagrees with " +
                               std::to_string(blocks_.size()) + " sealed blocks and a tail of " +
                               std::to_string(tail_.size()),
                           0);
    if (hot_block_ != no_block && (hot_block_ >= blocks_.size() || hot_.size() != block_values))
        throw format_error("write-back block " + std::to_string(hot_block_) + " is not a sealed block", 0);
    if (summaries_.size() != blocks_.size())
        throw format_error(std::to_string(summaries_.size()) + " block summaries for " + std::to_string(blocks_.size()) +
                               " sealed blocks",
                           0);
    alignas(64) std::uint32_t values[block_values];
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const block_entry& e = blocks_[b];
        if (block_bytes(e) == 0 || e.offset > arena_.size() || arena_.size() - e.offset < block_bytes(e))
            fail(b, "extent [" + std::to_string(e.offset) + ", +" + std::to_string(block_bytes(e)) + ") outside the arena of " +
                        std::to_string(arena_.size()) + " bytes");
        const std::span<const std::byte> bytes = arena_block(b);
        // The checked parse (format_error with the offset in the block), then the payloads.
        const parsed_block parsed = parse_block(bytes, block_values, true);
        decode_parsed(parsed, bytes, 0, std::span<std::uint32_t>(values, block_values));
        if (!(parsed.descriptor == e.descriptor)) fail(b, "block table entry disagrees with the block's header");
        // Unknown is one exact pattern: a summary corrupted into min > max is still refused.
        if (!(summaries_[b] == block_summary::unknown()) &&
            !(summaries_[b] == summarize_values({values, block_values}, signed_)))
            fail(b, "block summary (min, max, sum) disagrees with the block's values");
        if (e.descriptor.transform() == codec::transform::delta) {
            delta_sums expected{};
            delta_checkpoints(e.descriptor, bytes.data(), expected.data());
            if (b >= sums_.size() || sums_[b] != expected) fail(b, "delta sums disagree with the block");
        }
        const std::uint32_t skips = gaps_skip_count(e.descriptor, bytes.data());
        if (skips != 0) {
            std::vector<std::uint32_t> expected(skips);
            gaps_skips(e.descriptor, bytes.data(), expected.data());
            const std::uint32_t* have = skips_of(b);
            if (have == nullptr || skip_data_.size() - static_cast<std::size_t>(have - skip_data_.data()) < skips ||
                !std::equal(expected.begin(), expected.end(), have))
                fail(b, "gaps skip entries disagree with the block");
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
        append_blocks(full, [this, source](std::size_t i, std::span<std::byte> out, block_summary& summary) {
            return encode_summarized(source.subspan(i * block_values, block_values), signed_, out, summary);
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
    const std::size_t bytes = encode_summarized({tail_.data(), tail_.size()}, signed_, encoded, summary);
    blocks_.push_back(make_entry(arena_.size(), std::span<const std::byte>(encoded).first(bytes)));
    summaries_.push_back(summary);
    arena_.insert(arena_.end(), encoded.begin(), encoded.begin() + static_cast<std::ptrdiff_t>(bytes));
    refresh_sums(blocks_.size() - 1);
    refresh_skips(blocks_.size() - 1, 0);
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

void vector_core::push_encoded(std::span<const std::byte> bytes, const block_summary& summary) {
    check_encoded_size(bytes.size());
    blocks_.push_back(make_entry(arena_.size(), bytes));
    summaries_.push_back(summary);
    arena_.insert(arena_.end(), bytes.begin(), bytes.end());
    refresh_sums(blocks_.size() - 1);
    refresh_skips(blocks_.size() - 1, 0);
    size_ += block_values;
}

void vector_core::append_encoded_block(std::span<const std::byte> bytes) {
    check_appendable("append_encoded_block");
    push_encoded(bytes, block_summary::unknown());
}

void vector_core::append_encoded_blocks(std::size_t count, const block_writer& write) {
    check_appendable("append_encoded_blocks");
    append_blocks(count, [&write](std::size_t i, std::span<std::byte> out, block_summary& summary) {
        summary = block_summary::unknown();  // bytes from outside the encoder: see block_summary.hpp
        return write(i, out);
    });
}

void vector_core::append_blocks(std::size_t count, const summarized_writer& write) {
    if (count == 0) return;
    // Geometric growth: an exact reserve on every call made appending one block at a time
    // (resize, vector(n, x), block-sized appends) copy the whole table each time, O(n^2).
    if (blocks_.capacity() - blocks_.size() < count)
        blocks_.reserve(std::max(blocks_.size() + count, blocks_.capacity() + blocks_.capacity() / 2));
    if (summaries_.capacity() - summaries_.size() < count)
        summaries_.reserve(std::max(summaries_.size() + count, summaries_.capacity() + summaries_.capacity() / 2));
    // After the first window, room for the rest at the same bytes per block (plus 1/64), so
    // that a long append leaves little spare capacity instead of up to a growth step.
    const std::size_t start_bytes = arena_.size();
    const std::size_t start_skips = skip_data_.size();
    auto reserve_for_rest = [&](std::size_t done) {
        if (done != encode_window_blocks || done >= count) return;
        const std::size_t rest = (arena_.size() - start_bytes) * (count - done) / done;
        arena_.reserve(arena_.size() + rest + rest / 64);
        const std::size_t skips = (skip_data_.size() - start_skips) * (count - done) / done;
        skip_data_.reserve(skip_data_.size() + skips + skips / 64);
    };
    if (thread_count() == 1 || count < 2 * encode_batch_blocks) {
        block_buffer encoded;
        block_summary summary;
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t bytes = write(i, encoded, summary);
            check_encoded_size(bytes);
            push_encoded(std::span<const std::byte>(encoded).first(bytes), summary);
            reserve_for_rest(i + 1);
        }
        give_back_growth(start_bytes);
        return;
    }
    // A window at a time: batches of blocks are encoded in parallel, each into its own
    // buffer; then, once their sizes give every block its offset, the buffers are copied into
    // the arena and the block table filled, in parallel as well.
    struct batch {
        std::vector<std::byte> bytes;
        std::array<std::uint16_t, encode_batch_blocks> sizes{};
        std::array<block_summary, encode_batch_blocks> summaries{};
        std::size_t offset = 0;  // in the arena
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
                    const std::size_t bytes = write(window + k * encode_batch_blocks + i, encoded, b.summaries[i]);
                    check_encoded_size(bytes);
                    b.sizes[i] = static_cast<std::uint16_t>(bytes);
                    b.bytes.insert(b.bytes.end(), encoded.begin(), encoded.begin() + static_cast<std::ptrdiff_t>(bytes));
                }
            }
        });
        std::size_t offset = arena_.size();
        for (std::size_t k = 0; k < used; ++k) {
            batches[k].offset = offset;
            offset += batches[k].bytes.size();
        }
        const std::size_t first_entry = blocks_.size();
        arena_.resize(offset);
        blocks_.resize(first_entry + blocks);
        summaries_.resize(first_entry + blocks);
        parallel_for(used, 1, [&](std::size_t first, std::size_t last) {
            for (std::size_t k = first; k < last; ++k) {
                const batch& b = batches[k];
                std::memcpy(arena_.data() + b.offset, b.bytes.data(), b.bytes.size());
                std::size_t at = b.offset;
                for (std::size_t i = 0; i < blocks_of(k); ++i) {
                    const std::span<const std::byte> bytes(arena_.data() + at, b.sizes[i]);
                    blocks_[first_entry + k * encode_batch_blocks + i] = make_entry(at, bytes);
                    summaries_[first_entry + k * encode_batch_blocks + i] = b.summaries[i];
                    at += b.sizes[i];
                }
            }
        });
        // Delta sums: the table first (serially), then each block's sums in parallel.
        for (std::size_t i = first_entry; i < blocks_.size(); ++i)
            if (blocks_[i].descriptor.transform() == codec::transform::delta) {
                if (sums_.size() < blocks_.size()) sums_.resize(blocks_.size());
                break;
            }
        if (sums_.size() == blocks_.size())
            parallel_for(blocks, encode_batch_blocks, [&](std::size_t first, std::size_t last) {
                for (std::size_t i = first; i < last; ++i) refresh_sums(first_entry + i);
            });
        // Skip entries go to one shared array: serially.
        for (std::size_t i = first_entry; i < blocks_.size(); ++i) refresh_skips(i, 0);
        size_ += blocks * block_values;
        reserve_for_rest(window + blocks);
    }
    give_back_growth(start_bytes);
}

void vector_core::give_back_growth(std::size_t arena_bytes_before) {
    // Shorter appends than one window (and the blocks_/sums_ tables) grow by doubling, which
    // left up to half the arena spare: 1.8x the file's bytes in memory on real columns of
    // 500-900 blocks. Give the spare back when this append wrote at least half of what is
    // there, so the copy costs no more than the append did and appending piece by piece stays
    // linear (later, smaller appends keep the geometric growth).
    const auto spare = [](const auto& v) { return v.capacity() - v.size() > v.size() / 16; };
    if (2 * (arena_.size() - arena_bytes_before) < arena_.size()) return;
    if (spare(arena_)) arena_.shrink_to_fit();
    if (spare(blocks_)) blocks_.shrink_to_fit();
    if (spare(sums_)) sums_.shrink_to_fit();
    if (spare(summaries_)) summaries_.shrink_to_fit();
    if (spare(skip_at_)) skip_at_.shrink_to_fit();
    if (spare(skip_data_)) skip_data_.shrink_to_fit();
}

std::uint32_t vector_core::get(std::size_t index) const {
    const std::size_t block = index / block_values;
    const std::size_t slot = index % block_values;
    if (block == blocks_.size()) return tail_[slot];
    if (block == hot_block_) return hot_[slot];
    const block_entry& e = blocks_[block];
    return descriptor_value(e.descriptor, arena_.data() + e.offset, static_cast<std::uint32_t>(slot), sums_of(block),
                            skips_of(block));
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
    const std::size_t bytes = encode_summarized(values, signed_, encoded, summaries_[block]);
    const std::span<const std::byte> fresh = std::span<const std::byte>(encoded).first(bytes);
    const std::uint32_t old_skips = skip_count(block);
    block_entry& e = blocks_[block];
    if (bytes <= block_bytes(e)) {
        std::memcpy(arena_.data() + e.offset, encoded.data(), bytes);
        garbage_bytes_ += block_bytes(e) - bytes;
        e = make_entry(e.offset, fresh);
    } else {
        garbage_bytes_ += block_bytes(e);
        e = make_entry(arena_.size(), fresh);
        arena_.insert(arena_.end(), encoded.begin(), encoded.begin() + static_cast<std::ptrdiff_t>(bytes));
    }
    refresh_sums(block);
    refresh_skips(block, old_skips);
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
                          arena_.begin() + static_cast<std::ptrdiff_t>(from + block_bytes(e)));
        }
        arena_.swap(packed);
        garbage_bytes_ = 0;
    }
    if (skip_garbage_ != 0) {
        skip_at_.clear();
        skip_data_.clear();
        skip_garbage_ = 0;
        for (std::size_t b = 0; b < blocks_.size(); ++b) refresh_skips(b, 0);
    }
    arena_.shrink_to_fit();
    blocks_.shrink_to_fit();
    summaries_.shrink_to_fit();
    sums_.shrink_to_fit();
    skip_at_.shrink_to_fit();
    skip_data_.shrink_to_fit();
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
    } else {
        // The table's descriptor gives the plane table: no header parse (payloads are still
        // checked as planes are rebuilt).
        const std::span<const std::byte> bytes = arena_block(block);
        const parsed_block parsed = expand_descriptor(blocks_[block].descriptor, bytes.data(), block_values);
        if (out.size() == block_values) {
            decode_parsed(parsed, bytes, 0, out);
        } else {
            alignas(64) std::uint32_t values[block_values];
            decode_parsed(parsed, bytes, 0, {values, block_values});
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
        decode_block(block, {buffer->values, count});
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
    blocks_.clear();
    summaries_.clear();
    sums_.clear();
    skip_at_.clear();
    skip_data_.clear();
    skip_garbage_ = 0;
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
        for (std::size_t b = keep_blocks; b < blocks_.size(); ++b) {
            garbage_bytes_ += block_bytes(blocks_[b]);
            skip_garbage_ += skip_count(b);
        }
        blocks_.resize(keep_blocks);
        summaries_.resize(keep_blocks);
        if (sums_.size() > keep_blocks) sums_.resize(keep_blocks);
        if (skip_at_.size() > keep_blocks) skip_at_.resize(keep_blocks);
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
    summaries_.reserve(blocks);
}

void vector_core::swap(vector_core& other) noexcept {
    std::swap(signed_, other.signed_);
    std::swap(size_, other.size_);
    arena_.swap(other.arena_);
    blocks_.swap(other.blocks_);
    summaries_.swap(other.summaries_);
    sums_.swap(other.sums_);
    skip_at_.swap(other.skip_at_);
    skip_data_.swap(other.skip_data_);
    std::swap(skip_garbage_, other.skip_garbage_);
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
           summaries_.capacity() * sizeof(block_summary) +
           sums_.capacity() * sizeof(delta_sums) +
           (skip_at_.capacity() + skip_data_.capacity()) * sizeof(std::uint32_t) +
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
                        std::size_t size, std::span<const block_summary> summaries) {
    adopt_filled(
        arena.size(), [&](std::span<std::byte> out) { std::copy(arena.begin(), arena.end(), out.begin()); }, offsets,
        sizes, tail, size, summaries);
}

void vector_core::adopt_filled(std::size_t arena_bytes, const std::function<void(std::span<std::byte>)>& fill,
                               std::span<const std::uint64_t> offsets, std::span<const std::uint32_t> sizes,
                               std::span<const std::uint32_t> tail, std::size_t size,
                               std::span<const block_summary> summaries) {
    if (!summaries.empty() && summaries.size() != offsets.size())
        throw size_error("bitplane::detail::vector_core::adopt: " + std::to_string(summaries.size()) +
                         " block summaries for " + std::to_string(offsets.size()) + " blocks");
    clear();
    arena_.resize(arena_bytes);
    try {
        fill(std::span<std::byte>(arena_.data(), arena_bytes));
    } catch (...) {
        clear();
        throw;
    }
    const std::span<const std::byte> arena(arena_.data(), arena_bytes);
    blocks_.reserve(offsets.size());
    for (std::size_t b = 0; b < offsets.size(); ++b) {
        blocks_.push_back(make_entry(offsets[b], arena.subspan(offsets[b], sizes[b])));
        refresh_sums(b);
        refresh_skips(b, 0);
    }
    if (!summaries.empty()) {
        summaries_.assign(summaries.begin(), summaries.end());
    } else {
        summaries_.assign(blocks_.size(), block_summary::unknown());
    }
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
