// vector_writer: the file of docs/format.md section 3 (version 2, or 3 with the zstd stage)
// from values that arrive in pieces. Full blocks are encoded as soon as they are complete (in
// parallel over blocks) and kept encoded, a block equal to the one before it stored once;
// finish() writes header, blocks, sizes table and block map (or their zstd frame),
// checksumming them on the way.
// tests/test_stream_writer.cpp checks that the bytes equal save()'s for the same values.
#include <bitplane/stream_writer.hpp>

#include <bitplane/codec.hpp>
#include <bitplane/serialize.hpp>

#include "codec/byte_io.hpp"
#include "core/file_header.hpp"
#include "core/vector_file.hpp"
#include "core/parallel.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

namespace bitplane {

namespace {

using detail::store_le;
namespace file = detail::file;

constexpr std::size_t chunk_bytes = std::size_t{4} << 20;  // encoded bytes kept per chunk
// Blocks encoded per parallel window (tasks of batch_blocks for the threads, plus the write
// of the previous window in the placed form): about window_bytes of encoded blocks at the
// average block size so far, between 256 and 1024 blocks. Incompressible data wants small
// windows (a window's bytes stay in L2/L3 from encoding to their write, and fewer pages of
// fresh buffer memory are faulted in: 1024-block windows made a 64 MiB random pack ~10%
// slower); well-compressed data, whose blocks cost more to encode than to move, wants
// large ones (fewer barriers where a thread waits: 256-block windows made a 90%-zero pack
// ~7% slower).
constexpr std::size_t min_window_blocks = 256;
constexpr std::size_t max_window_blocks = 1024;
constexpr std::uint64_t window_bytes = std::uint64_t{2} << 20;
constexpr std::size_t batch_blocks = 16;

// Bytes appended at the end only, in fixed-size chunks: growing never moves what is there,
// so the writer never holds two copies of the output (as a doubling buffer would while it
// reallocates). grow() then write_at() lets several threads fill disjoint ranges.
class chunked_bytes {
public:
    /// Makes the size `size() + n`; the new bytes are to be written with write_at.
    void grow(std::uint64_t n) {
        size_ += n;
        while (chunks_.size() * chunk_bytes < size_) chunks_.push_back(std::make_unique_for_overwrite<std::byte[]>(chunk_bytes));
    }
    /// Copies `bytes` to [at, at + bytes.size()), which must lie below size().
    void write_at(std::uint64_t at, std::span<const std::byte> bytes) {
        while (!bytes.empty()) {
            const std::size_t offset = static_cast<std::size_t>(at % chunk_bytes);
            const std::size_t take = std::min(bytes.size(), chunk_bytes - offset);
            std::memcpy(chunks_[static_cast<std::size_t>(at / chunk_bytes)].get() + offset, bytes.data(), take);
            at += take;
            bytes = bytes.subspan(take);
        }
    }
    void append(std::span<const std::byte> bytes) {
        const std::uint64_t at = size_;
        grow(bytes.size());
        write_at(at, bytes);
    }
    /// Copies [at, at + out.size()), which must lie below size(), to `out`.
    void read_at(std::uint64_t at, std::span<std::byte> out) const {
        while (!out.empty()) {
            const std::size_t offset = static_cast<std::size_t>(at % chunk_bytes);
            const std::size_t take = std::min(out.size(), chunk_bytes - offset);
            std::memcpy(out.data(), chunks_[static_cast<std::size_t>(at / chunk_bytes)].get() + offset, take);
            at += take;
            out = out.subspan(take);
        }
    }
    [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
    [[nodiscard]] std::uint64_t capacity() const noexcept { return chunks_.size() * chunk_bytes; }
    template <class F>
    void for_each_piece(F&& f) const {
        for (std::size_t i = 0; i < chunks_.size(); ++i)
            f(std::span<const std::byte>(chunks_[i].get(), std::min<std::uint64_t>(chunk_bytes, size_ - i * chunk_bytes)));
    }

private:
    std::vector<std::unique_ptr<std::byte[]>> chunks_;
    std::uint64_t size_ = 0;
};

// Where the payload starts: right after the header (docs/format.md section 3, version 2).
constexpr std::uint64_t payload_offset = file::header_bytes;

}  // namespace

void placed_output::read_pieces(std::uint64_t offset, std::uint64_t size,
                                const std::function<void(std::span<const std::byte>)>& piece) {
    std::vector<std::byte> buffer(static_cast<std::size_t>(std::min<std::uint64_t>(size, std::uint64_t{1} << 20)));
    for (std::uint64_t at = 0; at < size; at += buffer.size()) {
        const auto part = std::span<std::byte>(buffer).first(static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), size - at)));
        read_at(offset + at, part);
        piece(part);
    }
}

template <column_value T>
struct vector_writer<T>::state {
    std::uint64_t values = 0;
    chunked_bytes payload;             // the blocks, unless placed
    std::uint64_t payload_size = 0;    // bytes of blocks so far (either way)
    placed_output* placed = nullptr;   // where the blocks go at once, if anywhere
    std::uint64_t expected = 0;        // placed: the values that will come
    int zstd_level = 0;                // kept form: save_options::zstd_level (placed: 0, version 2)
    // Each distinct block is stored once (docs/format.md section 3): a block equal to the one
    // before it is found by one comparison, others through their key (vector_file.hpp:
    // block_key), compared byte by byte with the stored blocks of that key (read back from
    // where they are: the payload, the output, or the encoding buffers).
    std::vector<std::uint16_t> sizes;      // size of each stored block
    std::vector<std::uint64_t> stored_at;  // where each stored block starts in the payload
    file::block_index seen;                // stored blocks by block_key
    file::block_map_builder map;           // which stored block each block is
    std::vector<std::byte> last_block;     // the bytes of the previous block
    std::uint64_t last_stored = 0;         // its stored block
    std::vector<std::byte> read_back;      // a stored block read back from the payload or the output
    // While a window's blocks are added: the stored blocks it introduced so far, first and
    // where their bytes are in its batch buffers.
    std::uint64_t window_first = 0;
    std::vector<const std::byte*> window_stored;
    std::vector<std::uint32_t> tail;   // the values of the partial last block
    bool finished = false;

    // Encoding buffers of the parallel path, kept from one append to the next: each batch of
    // blocks is encoded straight into its own buffer, which grows to the largest batch seen.
    // Two sets, for the placed form: one window's batches are written out while the next
    // window is encoded into the other set (the kept form uses set 0 only).
    struct batch {
        std::vector<std::byte> bytes;
        std::size_t used = 0;
        std::uint64_t offset = 0;  // in the payload
        std::array<std::uint16_t, batch_blocks> sizes{};
    };
    std::array<std::vector<batch>, 2> sets;
    std::size_t current = 0;        // the set the next window is encoded into
    std::size_t pending_used = 0;   // placed: batches of the other set still to be written
    bool failed = false;            // placed: a write failed; the file cannot be finished

    void write_pending() {
        const std::uint64_t base = payload_offset;
        const std::vector<batch>& written = sets[1 - current];
        for (std::size_t k = 0; k < pending_used; ++k)
            placed->write_at(base + written[k].offset, {written[k].bytes.data(), written[k].used});
        pending_used = 0;
    }

    // The bytes of stored block s (sizes[s] of them).
    const std::byte* stored_bytes(std::uint64_t s) {
        if (s >= window_first && s - window_first < window_stored.size()) return window_stored[s - window_first];
        const std::uint64_t at = stored_at[s];
        if (placed) {
            for (std::size_t k = 0; k < pending_used; ++k) {  // written with the next window
                const batch& b = sets[1 - current][k];
                if (at >= b.offset && at < b.offset + b.used) return b.bytes.data() + (at - b.offset);
            }
        }
        read_back.resize(sizes[s]);
        if (placed) {
            placed->read_at(payload_offset + at, read_back);
        } else {
            payload.read_at(at, read_back);
        }
        return read_back.data();
    }

    // Adds the next block: true when it is a new stored block (to be placed at the payload's
    // end, payload_size), false when it repeats a stored block.
    bool add_block(std::span<const std::byte> bytes) {
        if (!sizes.empty() && bytes.size() == last_block.size() &&
            std::memcmp(bytes.data(), last_block.data(), bytes.size()) == 0) {
            map.add(last_stored, false, bytes.size());
            return false;
        }
        last_block.assign(bytes.begin(), bytes.end());
        const std::uint64_t found = seen.find_or_add(file::block_key(bytes), sizes.size(), [&](std::uint64_t s) {
            return sizes[s] == bytes.size() && std::memcmp(stored_bytes(s), bytes.data(), bytes.size()) == 0;
        });
        if (found != file::block_index::no_block) {
            map.add(last_stored = found, false, bytes.size());
            return false;
        }
        last_stored = sizes.size();
        sizes.push_back(static_cast<std::uint16_t>(bytes.size()));
        stored_at.push_back(payload_size);
        map.add(last_stored, true, bytes.size());
        return true;
    }

    void push_block(std::span<const std::byte> bytes) {
        if (!add_block(bytes)) return;
        if (placed) {
            placed->write_at(payload_offset + payload_size, bytes);
        } else {
            payload.append(bytes);
        }
        payload_size += bytes.size();
    }

    [[nodiscard]] std::size_t next_window_blocks() const noexcept {
        if (sizes.empty()) return min_window_blocks;
        const std::uint64_t average = std::max<std::uint64_t>(payload_size / sizes.size(), 1);
        const std::uint64_t wanted = std::clamp<std::uint64_t>(window_bytes / average, min_window_blocks, max_window_blocks);
        return static_cast<std::size_t>(wanted / batch_blocks * batch_blocks);
    }

    void encode_full_blocks(std::span<const std::uint32_t> bits) {
        const std::size_t count = bits.size() / block_values;
        if (thread_count() == 1 || count < 2 * batch_blocks) {
            std::array<std::byte, codec::max_block_bytes> encoded;
            for (std::size_t b = 0; b < count; ++b)
                push_block(std::span<const std::byte>(encoded).first(
                    codec::encode_block(bits.subspan(b * block_values, block_values), std::is_signed_v<T>, encoded)));
            return;
        }
        // A window at a time: batches of blocks are encoded in parallel, each straight into
        // its own buffer (reused from window to window); once their sizes give every batch its
        // place in the payload, they are copied there in parallel too (kept form), or written
        // out while the next window is encoded, as one more task beside its batches (placed
        // form: the output then costs no core of its own; what is left is written by finish()).
        for (std::size_t window = 0, window_blocks = 0; window < count; window += window_blocks) {
            window_blocks = next_window_blocks();
            std::vector<batch>& batches = sets[current];
            if (batches.size() < window_blocks / batch_blocks) batches.resize(window_blocks / batch_blocks);
            const std::size_t blocks = std::min(window_blocks, count - window);
            const std::size_t used = (blocks + batch_blocks - 1) / batch_blocks;
            auto blocks_of = [&](std::size_t k) { return std::min(batch_blocks, blocks - k * batch_blocks); };
            // The write, when there is one, is task 0: started first, it overlaps the batches
            // the other threads encode instead of holding the window's end.
            const std::size_t writes = pending_used > 0 ? 1 : 0;
            detail::parallel_for(used + writes, 1, [&](std::size_t first, std::size_t last) {
                for (std::size_t task = first; task < last; ++task) {
                    if (task < writes) {
                        write_pending();
                        continue;
                    }
                    const std::size_t k = task - writes;
                    batch& b = batches[k];
                    b.used = 0;
                    for (std::size_t i = 0; i < blocks_of(k); ++i) {
                        const std::size_t at = (window + k * batch_blocks + i) * block_values;
                        if (b.bytes.size() < b.used + codec::max_block_bytes) {
                            // Room for a worst-case batch reserved once: the buffer never moves
                            // (growing by doubling copied and re-faulted it, a few ms of each
                            // of the first two windows), and pages past what is used are
                            // never touched, so they cost no memory.
                            if (b.bytes.capacity() == 0) b.bytes.reserve(batch_blocks * codec::max_block_bytes);
                            b.bytes.resize(b.used + codec::max_block_bytes);
                        }
                        const std::size_t n = codec::encode_block(bits.subspan(at, block_values), std::is_signed_v<T>,
                                                                  {b.bytes.data() + b.used, codec::max_block_bytes});
                        b.sizes[i] = static_cast<std::uint16_t>(n);
                        b.used += n;
                    }
                }
            });
            // In block order: a block equal to a stored one is dropped from its batch (the
            // batch compacted in place: a block only moves down, below the blocks after it),
            // the others become stored blocks.
            window_first = sizes.size();
            window_stored.clear();
            for (std::size_t k = 0; k < used; ++k) {
                batch& b = batches[k];
                b.offset = payload_size;
                std::size_t from = 0, to = 0;
                for (std::size_t i = 0; i < blocks_of(k); ++i) {
                    const std::size_t n = b.sizes[i];
                    std::byte* block = b.bytes.data() + from;
                    from += n;
                    if (!add_block({block, n})) continue;
                    if (to != from - n) std::memmove(b.bytes.data() + to, block, n);
                    window_stored.push_back(b.bytes.data() + to);
                    to += n;
                    payload_size += n;
                }
                b.used = to;
            }
            window_stored.clear();
            window_first = sizes.size();
            const std::uint64_t end = payload_size;
            if (placed) {
                pending_used = used;
                current = 1 - current;
                continue;
            }
            payload.grow(end - payload.size());
            detail::parallel_for(used, 1, [&](std::size_t first, std::size_t last) {
                for (std::size_t k = first; k < last; ++k)
                    payload.write_at(batches[k].offset, {batches[k].bytes.data(), batches[k].used});
            });
        }
    }

    void check_open(const char* what) const {
        if (finished)
            throw argument_error(std::string("bitplane::vector_writer::") + what + ": the writer is finished");
        if (failed)
            throw argument_error(std::string("bitplane::vector_writer::") + what +
                                 ": writing to the placed_output failed earlier; the file cannot be completed");
    }

    // Runs f; a failure while the placed form writes leaves the file's blocks incomplete, so
    // the writer refuses further work.
    template <class F>
    void guarded(F&& f) {
        try {
            f();
        } catch (...) {
            if (placed) failed = true;
            throw;
        }
    }

    void check_form(const char* what, bool wants_placed) const {
        if ((placed != nullptr) != wants_placed)
            throw argument_error(std::string("bitplane::vector_writer::") + what +
                                 (wants_placed ? ": the writer has no placed_output (use finish(sink) or finish(stream))"
                                               : ": the writer writes to a placed_output (use finish())"));
    }

    // The partial last block, encoded into `out` (and released); its size, 0 if there is none
    // (the caller adds it as a block).
    std::size_t encode_tail(std::array<std::byte, codec::max_block_bytes>& out) {
        if (tail.empty()) return 0;
        const std::size_t n = codec::encode_block(tail, std::is_signed_v<T>, out);
        tail = {};
        return n;
    }

    // The header (checksum field still zero) and what follows the payload: the stored blocks'
    // u16 sizes, then the block map.
    struct front {
        std::array<std::byte, file::header_bytes> header{};
        std::vector<std::byte> footer;
        [[nodiscard]] std::span<const std::byte> table() const noexcept { return footer; }
    };
    [[nodiscard]] front make_front() {
        front f;
        const std::uint64_t blocks = map.blocks();
        f.footer.resize(2 * sizes.size());
        for (std::size_t s = 0; s < sizes.size(); ++s) store_le<std::uint16_t>(f.footer.data() + 2 * s, sizes[s]);
        const std::vector<std::byte> map_bytes = map.finish(payload_offset + payload_size + f.footer.size());
        f.footer.insert(f.footer.end(), map_bytes.begin(), map_bytes.end());
        std::byte* h = f.header.data();
        file::write_header_start(h, file::kind_vector, std::is_signed_v<T> ? 1 : 0, file::vector_format_version);
        store_le<std::uint64_t>(h + 16, values);
        store_le<std::uint64_t>(h + 24, blocks);
        store_le<std::uint64_t>(h + 32, sizes.size());
        store_le<std::uint64_t>(h + 40, map_bytes.size());
        store_le<std::uint64_t>(h + 48, payload_size);
        return f;
    }

    // The checksum (file_header.hpp) covers the header up to its own field, then everything
    // after the header in file order: the blocks, handed over by `each_payload_piece`, then
    // the sizes table and the block map.
    template <class Pieces>
    static void seal(front& f, Pieces&& each_payload_piece) {
        XXH3_state_t hash;
        XXH3_64bits_reset(&hash);
        XXH3_64bits_update(&hash, f.header.data(), file::checksum_offset);
        each_payload_piece([&](std::span<const std::byte> piece) { file::update(&hash, piece.data(), piece.size()); });
        file::update(&hash, f.table().data(), f.table().size());
        store_le<std::uint64_t>(f.header.data() + file::checksum_offset, XXH3_64bits_digest(&hash));
    }
};

template <column_value T>
vector_writer<T>::vector_writer() : vector_writer(save_options{}) {}
template <column_value T>
vector_writer<T>::vector_writer(const save_options& options) : state_(std::make_unique<state>()) {
    file::check_zstd_level(options.zstd_level, "bitplane::vector_writer");
    state_->zstd_level = options.zstd_level;
}
template <column_value T>
vector_writer<T>::vector_writer(std::uint64_t expected_values, placed_output& out) : state_(std::make_unique<state>()) {
    state_->placed = &out;
    state_->expected = expected_values;
}
template <column_value T>
vector_writer<T>::vector_writer(vector_writer&&) noexcept = default;
template <column_value T>
vector_writer<T>& vector_writer<T>::operator=(vector_writer&&) noexcept = default;
template <column_value T>
vector_writer<T>::~vector_writer() = default;

template <column_value T>
void vector_writer<T>::append(std::span<const T> values) {
    state& s = *state_;
    s.check_open("append");
    if (s.placed && values.size() > s.expected - s.values)
        throw argument_error("bitplane::vector_writer::append: " + std::to_string(s.values + values.size()) +
                             " values, more than the " + std::to_string(s.expected) + " the writer was made for");
    std::span<const std::uint32_t> bits(reinterpret_cast<const std::uint32_t*>(values.data()), values.size());
    s.values += bits.size();
    // Complete a partial block first; then whole blocks straight from the caller's span.
    if (!s.tail.empty()) {
        const std::size_t take = std::min(bits.size(), block_values - s.tail.size());
        s.tail.insert(s.tail.end(), bits.begin(), bits.begin() + static_cast<std::ptrdiff_t>(take));
        bits = bits.subspan(take);
        if (s.tail.size() < block_values) return;
        s.guarded([&] { s.encode_full_blocks(s.tail); });
        s.tail.clear();
    }
    const std::size_t full = bits.size() / block_values * block_values;
    s.guarded([&] { s.encode_full_blocks(bits.first(full)); });
    s.tail.assign(bits.begin() + static_cast<std::ptrdiff_t>(full), bits.end());
}

template <column_value T>
std::uint64_t vector_writer<T>::size() const noexcept {
    return state_->values;
}

template <column_value T>
std::uint64_t vector_writer<T>::encoded_bytes() const noexcept {
    return state_->payload_size;
}

template <column_value T>
std::uint64_t vector_writer<T>::memory_bytes() const noexcept {
    const state& s = *state_;
    std::uint64_t buffers = 0;
    for (const auto& set : s.sets)
        for (const auto& b : set) buffers += b.bytes.size();  // the reserve beyond is never touched
    return sizeof(state) + s.payload.capacity() + s.sizes.capacity() * sizeof(std::uint16_t) +
           s.last_block.capacity() + s.read_back.capacity() + s.stored_at.capacity() * sizeof(std::uint64_t) +
           s.seen.memory_bytes() +
           s.tail.capacity() * sizeof(std::uint32_t) + buffers;
}

template <column_value T>
std::uint64_t vector_writer<T>::finish(const sink& out) {
    state& s = *state_;
    s.check_open("finish");
    s.check_form("finish", false);
    s.finished = true;
    std::array<std::byte, codec::max_block_bytes> tail_bytes;
    if (const std::size_t n = s.encode_tail(tail_bytes)) s.push_block(std::span<const std::byte>(tail_bytes).first(n));
    auto f = s.make_front();
    if (s.zstd_level > 0) {
        // Version 3 (vector_file.hpp, as save() writes it): the body as one zstd frame, kept
        // when smaller and within the loader's bounds.
        const std::uint64_t body = s.payload_size + f.footer.size();
        auto frame = file::compress_body(s.zstd_level, body, [&](auto&& add) {
            s.payload.for_each_piece(add);
            add(f.table());
        });
        if (frame && file::zstd_file_in_bounds(s.map.blocks(), s.map.expanded(), body, frame->size())) {
            s.payload = {};  // released before the output is handed over
            std::array<std::byte, 8> size;
            store_le<std::uint64_t>(size.data(), frame->size());
            store_le<std::uint16_t>(f.header.data() + 8, file::vector_zstd_version);
            XXH3_state_t hash;
            XXH3_64bits_reset(&hash);
            XXH3_64bits_update(&hash, f.header.data(), file::checksum_offset);
            file::update(&hash, size.data(), size.size());
            file::update(&hash, frame->data(), frame->size());
            store_le<std::uint64_t>(f.header.data() + file::checksum_offset, XXH3_64bits_digest(&hash));
            out(f.header);
            out(size);
            out(*frame);
            return file::zstd_frame_at + frame->size();
        }
    }
    state::seal(f, [&](auto&& hash) { s.payload.for_each_piece(hash); });
    out(f.header);
    s.payload.for_each_piece([&](std::span<const std::byte> piece) { out(piece); });
    out(f.table());
    return payload_offset + s.payload_size + f.footer.size();
}

template <column_value T>
std::uint64_t vector_writer<T>::finish() {
    state& s = *state_;
    s.check_open("finish");
    s.check_form("finish", true);
    if (s.values != s.expected)
        throw argument_error("bitplane::vector_writer::finish: " + std::to_string(s.values) + " values appended, " +
                             std::to_string(s.expected) + " expected: the file would be incomplete");
    // The tail is encoded first (kept here) so that the block map is complete; then the
    // last window's blocks and the tail are written while (if the output allows it), beside
    // them, the checksum (which covers the header's fields, known only now) reads the blocks
    // already in the file back from the page cache and the ones still in memory from there:
    // the last write no longer delays the hash, which is the serial end of every pack.
    std::array<std::byte, codec::max_block_bytes> tail_bytes;
    std::size_t tail_size = s.encode_tail(tail_bytes);
    if (tail_size != 0 && !s.add_block({tail_bytes.data(), tail_size})) tail_size = 0;  // a repeat: not stored
    const std::span<const std::byte> tail_block(tail_bytes.data(), tail_size);
    const std::uint64_t pending_from = s.pending_used > 0 ? s.sets[1 - s.current][0].offset : s.payload_size;
    const std::uint64_t tail_at = s.payload_size;
    s.payload_size += tail_size;
    auto f = s.make_front();
    const std::vector<typename state::batch>& pending = s.sets[1 - s.current];
    const std::size_t pending_used = s.pending_used;
    // Two tasks; one chunk of both (in order: write, then hash) where the output cannot be
    // read while it is written.
    const std::size_t grain = s.placed->reads_while_writing() ? 1 : 2;
    s.guarded([&] {
        detail::parallel_for(2, grain, [&](std::size_t first, std::size_t last) {
            for (std::size_t task = first; task < last; ++task) {
                if (task == 0) {
                    if (s.pending_used > 0) s.write_pending();
                    if (tail_size) s.placed->write_at(payload_offset + tail_at, tail_block);
                    continue;
                }
                state::seal(f, [&](auto&& hash) {
                    s.placed->read_pieces(payload_offset, pending_from, [&](std::span<const std::byte> piece) { hash(piece); });
                    for (std::size_t k = 0; k < pending_used; ++k) hash(std::span<const std::byte>(pending[k].bytes.data(), pending[k].used));
                    if (tail_size) hash(tail_block);
                });
            }
        });
    });
    s.finished = true;
    s.placed->write_at(payload_offset + s.payload_size, f.table());
    s.placed->write_at(0, f.header);
    return payload_offset + s.payload_size + f.footer.size();
}

template <column_value T>
std::uint64_t vector_writer<T>::finish(std::ostream& out) {
    std::uint64_t written = 0;
    const auto total = finish([&](std::span<const std::byte> bytes) {
        auto failed = [&] {
            return "bitplane::vector_writer::finish: writing to the stream failed after " + std::to_string(written) +
                   " bytes";
        };
        try {  // streams with exceptions() enabled throw instead of setting badbit
            out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        } catch (const std::ios_base::failure& e) {
            throw io_error(failed() + ": " + e.what());
        }
        if (!out) throw io_error(failed());
        written += bytes.size();
    });
    return total;
}

template class vector_writer<std::uint32_t>;
template class vector_writer<std::int32_t>;

}  // namespace bitplane
