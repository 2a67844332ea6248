// vector_writer: the file of docs/format.md section 3 from values that arrive in pieces.
// Full blocks are encoded as soon as they are complete (in parallel over blocks) and kept
// encoded; finish() writes header, offsets table and blocks, checksumming them on the way.
// tests/test_stream_writer.cpp checks that the bytes equal save()'s for the same values.
#include <bitplane/stream_writer.hpp>

#include <bitplane/codec.hpp>

#include "codec/byte_io.hpp"
#include "core/file_header.hpp"
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

constexpr std::size_t payload_alignment = 64;          // docs/format.md section 3
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

constexpr std::uint64_t align_up(std::uint64_t n, std::uint64_t a) { return (n + a - 1) / a * a; }

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

// Where the payload of a file of `blocks` blocks starts: after the header and the offsets
// table (blocks + 1 entries), aligned (docs/format.md section 3).
constexpr std::uint64_t payload_offset_of(std::uint64_t blocks) {
    return align_up(file::header_bytes + 8 * (blocks + 1), payload_alignment);
}

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
    std::vector<std::uint64_t> ends;   // end of each block in the payload
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
        const std::uint64_t base = payload_offset_of(blocks_expected());
        const std::vector<batch>& written = sets[1 - current];
        for (std::size_t k = 0; k < pending_used; ++k)
            placed->write_at(base + written[k].offset, {written[k].bytes.data(), written[k].used});
        pending_used = 0;
    }

    void push_block(std::span<const std::byte> bytes) {
        if (placed) {
            placed->write_at(payload_offset_of(blocks_expected()) + payload_size, bytes);
        } else {
            payload.append(bytes);
        }
        payload_size += bytes.size();
        ends.push_back(payload_size);
    }

    [[nodiscard]] std::uint64_t blocks_expected() const noexcept { return (expected + block_values - 1) / block_values; }

    [[nodiscard]] std::size_t next_window_blocks() const noexcept {
        if (ends.empty()) return min_window_blocks;
        const std::uint64_t average = std::max<std::uint64_t>(payload_size / ends.size(), 1);
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
            std::uint64_t end = payload_size;
            for (std::size_t k = 0; k < used; ++k) {
                batches[k].offset = end;
                for (std::size_t i = 0; i < blocks_of(k); ++i) ends.push_back(end += batches[k].sizes[i]);
            }
            payload_size = end;
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

    // The partial last block, encoded into `out` (and released); its size, 0 if there is none.
    std::size_t encode_tail(std::array<std::byte, codec::max_block_bytes>& out) {
        if (tail.empty()) return 0;
        const std::size_t n = codec::encode_block(tail, std::is_signed_v<T>, out);
        tail = {};
        return n;
    }

    // The header (checksum field still zero) and the offsets table with the zero padding up
    // to the payload, as words (the host is little-endian, byte_io.hpp checks it): entry 0 is
    // 0, entry b + 1 the end of block b.
    struct front {
        std::array<std::byte, file::header_bytes> header{};
        std::vector<std::uint64_t> table_words;
        std::uint64_t payload_offset = 0;
        [[nodiscard]] std::span<const std::byte> table() const noexcept {
            return std::as_bytes(std::span<const std::uint64_t>(table_words));
        }
    };
    [[nodiscard]] front make_front() const {
        front f;
        const std::uint64_t blocks = ends.size();
        f.payload_offset = payload_offset_of(blocks);
        f.table_words.assign((f.payload_offset - file::header_bytes) / 8, 0);
        std::copy(ends.begin(), ends.end(), f.table_words.begin() + 1);
        std::byte* h = f.header.data();
        file::write_header_start(h, file::kind_vector, std::is_signed_v<T> ? 1 : 0);
        store_le<std::uint64_t>(h + 16, values);
        store_le<std::uint64_t>(h + 24, blocks);
        store_le<std::uint64_t>(h + 32, file::header_bytes);
        store_le<std::uint64_t>(h + 40, f.payload_offset);
        store_le<std::uint64_t>(h + 48, payload_size);
        return f;
    }

    // The checksum (file_header.hpp) covers the header up to its own field, then everything
    // after the header: the table and the blocks, handed over by `each_payload_piece`.
    template <class Pieces>
    static void seal(front& f, Pieces&& each_payload_piece) {
        XXH3_state_t hash;
        XXH3_64bits_reset(&hash);
        XXH3_64bits_update(&hash, f.header.data(), file::checksum_offset);
        XXH3_64bits_update(&hash, f.table().data(), f.table().size());
        each_payload_piece([&](std::span<const std::byte> piece) { file::update(&hash, piece.data(), piece.size()); });
        store_le<std::uint64_t>(f.header.data() + file::checksum_offset, XXH3_64bits_digest(&hash));
    }
};

template <column_value T>
vector_writer<T>::vector_writer() : state_(std::make_unique<state>()) {}
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
    return sizeof(state) + s.payload.capacity() + s.ends.capacity() * sizeof(std::uint64_t) +
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
    state::seal(f, [&](auto&& hash) { s.payload.for_each_piece(hash); });
    out(f.header);
    out(f.table());
    s.payload.for_each_piece([&](std::span<const std::byte> piece) { out(piece); });
    return f.payload_offset + s.payload_size;
}

template <column_value T>
std::uint64_t vector_writer<T>::finish() {
    state& s = *state_;
    s.check_open("finish");
    s.check_form("finish", true);
    if (s.values != s.expected)
        throw argument_error("bitplane::vector_writer::finish: " + std::to_string(s.values) + " values appended, " +
                             std::to_string(s.expected) + " expected: the file would be incomplete");
    // The tail is encoded first (kept here) so that the offsets table is complete; then the
    // last window's blocks and the tail are written while (if the output allows it), beside
    // them, the checksum (which
    // covers the table before the blocks, so it can only start now) reads the blocks already
    // in the file back from the page cache and the ones still in memory from there: the
    // last write no longer delays the hash, which is the serial end of every pack.
    std::array<std::byte, codec::max_block_bytes> tail_bytes;
    const std::size_t tail_size = s.encode_tail(tail_bytes);
    const std::span<const std::byte> tail_block(tail_bytes.data(), tail_size);
    const std::uint64_t pending_from = s.pending_used > 0 ? s.sets[1 - s.current][0].offset : s.payload_size;
    const std::uint64_t tail_at = s.payload_size;
    s.payload_size += tail_size;
    if (tail_size) s.ends.push_back(s.payload_size);
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
                    if (tail_size) s.placed->write_at(f.payload_offset + tail_at, tail_block);
                    continue;
                }
                state::seal(f, [&](auto&& hash) {
                    s.placed->read_pieces(f.payload_offset, pending_from, [&](std::span<const std::byte> piece) { hash(piece); });
                    for (std::size_t k = 0; k < pending_used; ++k) hash(std::span<const std::byte>(pending[k].bytes.data(), pending[k].used));
                    if (tail_size) hash(tail_block);
                });
            }
        });
    });
    s.finished = true;
    s.placed->write_at(file::header_bytes, f.table());
    s.placed->write_at(0, f.header);
    return f.payload_offset + s.payload_size;
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
