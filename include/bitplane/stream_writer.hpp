// bitplane::vector_writer<T>: writes a vector file (docs/format.md section 3) from values that
// arrive in pieces, without ever holding the values themselves. For inputs larger than memory
// (`bitplane pack` streams files through it): append chunks as they are read, then finish().
//
// The file is byte-for-byte the one save() writes for a vector holding the same values, with
// the same save_options (the zstd stage, format version 3, included) and value_form = false
// (a writer never holds the values, so it never writes version 4, the values form). The placed form below
// writes its blocks where they belong as they are encoded, so it writes version 2 (no zstd
// stage): the bytes of save() with save_options{.zstd_level = 0}.
//
// Each distinct block is stored once (format version 2): a block equal to one stored before
// is found through a hash of its bytes and becomes a run of the block map.
//
// Memory: the stored blocks (kept in 4 MiB chunks, so that growing never copies them), per
// stored block its 2-byte size, its offset and a hash entry (about 50 bytes), the block map
// (a few bytes per run), one partial block of values and buffers for the encoded bytes of
// 1024 blocks (what the parallel encoder fills before copying). The file's header holds
// counts known only at the end and its checksum covers everything, so nothing can be written
// to a sink before the last value is known; the writer therefore holds about the output size,
// never the input size.
//
// When the number of values is known in advance and the destination can be written at any
// offset and read back (a file: placed_output), the writer knows where every block goes:
// each batch of blocks is written to its place as soon as it is encoded (the payload starts
// right after the header), and finish() writes the sizes table, the block map and the header
// last, reading the blocks back for the checksum (and a stored block whose hash a later block
// shares, to compare their bytes). It then holds only the tables and the encoding buffers,
// and never copies the output in memory.
//
// Complexity: append is O(values), encoding full blocks in parallel over blocks when a call
// brings many (thread_count(), see parallel.hpp); the bytes do not depend on the thread count
// nor on how the values were split between calls.
// Thread safety: one writer is used by one thread at a time.
#pragma once

#include <bitplane/serialize.hpp>
#include <bitplane/vector.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <span>

namespace bitplane {

/// A destination written at any offset and read back: a file open for reading and writing.
class placed_output {
public:
    virtual ~placed_output() = default;
    /// Writes `bytes` at `offset`; the destination grows as needed. Throws on failure.
    virtual void write_at(std::uint64_t offset, std::span<const std::byte> bytes) = 0;
    /// Reads back `bytes.size()` bytes written before at `offset`. Throws on failure.
    virtual void read_at(std::uint64_t offset, std::span<std::byte> bytes) = 0;
    /// Hands the `size` bytes written at `offset` to `piece`, in order, in pieces of any size.
    /// The default reads them with read_at through a 1 MiB buffer; a destination that can map
    /// what it holds (a file) may hand out its own memory instead of copying.
    virtual void read_pieces(std::uint64_t offset, std::uint64_t size,
                             const std::function<void(std::span<const std::byte>)>& piece);
    /// Whether read_at/read_pieces may run on one thread while write_at writes a different
    /// range on another (a file: pread/mmap beside pwrite). If so, vector_writer::finish()
    /// hashes what is written while it writes the last blocks; otherwise one after the other.
    [[nodiscard]] virtual bool reads_while_writing() const noexcept { return false; }
};

template <column_value T>
class vector_writer {
public:
    using value_type = T;
    /// Receives the file's bytes, in order, in pieces of any size.
    using sink = std::function<void(std::span<const std::byte>)>;

    /// A writer that keeps the encoded blocks until finish(const sink&) or finish(std::ostream&),
    /// with the default save_options (the zstd stage at its default level).
    vector_writer();
    /// The same, writing the file as save() does with `options`; throws argument_error for a
    /// zstd level outside [0, 22]. finish() then compresses the kept blocks (zstd's memory:
    /// about the compressed size, at most the uncompressed one, beside the blocks).
    explicit vector_writer(const save_options& options);
    /// A writer of exactly `expected_values` values into `out` (which must outlive it), each
    /// batch of blocks written to its place as soon as it is encoded; finished by finish().
    /// The file is version 2 (no zstd stage: its blocks are written before the last is known).
    /// append throws argument_error when the values would exceed `expected_values`.
    vector_writer(std::uint64_t expected_values, placed_output& out);
    vector_writer(vector_writer&&) noexcept;
    vector_writer& operator=(vector_writer&&) noexcept;
    ~vector_writer();

    /// Appends values. Throws argument_error after finish().
    void append(std::span<const T> values);

    /// Values appended so far.
    [[nodiscard]] std::uint64_t size() const noexcept;
    /// Bytes of the distinct blocks stored so far (the partial last block is encoded by finish()).
    [[nodiscard]] std::uint64_t encoded_bytes() const noexcept;
    /// Bytes the writer holds now (stored blocks, tables, buffers), for memory accounting.
    [[nodiscard]] std::uint64_t memory_bytes() const noexcept;

    /// Encodes the last partial block and hands the whole file to `out`; returns its size in
    /// bytes. Exceptions thrown by `out` propagate. Afterwards the writer is finished: append
    /// and finish throw argument_error.
    std::uint64_t finish(const sink& out);
    /// The same into a stream; throws io_error when the stream fails.
    std::uint64_t finish(std::ostream& out);
    /// For a writer made with a placed_output: encodes the last partial block and writes the
    /// sizes table, the block map and the header; returns the file's size. Throws argument_error when fewer
    /// values than expected were appended (the file is then incomplete) or when the writer
    /// has no placed_output (and the two finish forms above throw it when it has one).
    std::uint64_t finish();

private:
    struct state;
    std::unique_ptr<state> state_;
};

}  // namespace bitplane
