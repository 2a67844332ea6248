// bitplane::vector_writer<T>: writes a vector file (docs/format.md section 3) from values that
// arrive in pieces, without ever holding the values themselves. For inputs larger than memory
// (`bitplane pack` streams files through it): append chunks as they are read, then finish().
//
// The file is byte-for-byte the one save() writes for a vector holding the same values.
//
// Memory: the encoded blocks (kept in 4 MiB chunks, so that growing never copies them),
// 8 bytes per block for the offsets table, one partial block of values and buffers for the
// encoded bytes of 1024 blocks (what the parallel encoder fills before copying). The file's header and offsets table come before
// the blocks and its checksum covers all of them, so nothing can be written before the last
// value is known; the writer therefore holds about the output size, never the input size.
//
// Complexity: append is O(values), encoding full blocks in parallel over blocks when a call
// brings many (thread_count(), see parallel.hpp); the bytes do not depend on the thread count
// nor on how the values were split between calls.
// Thread safety: one writer is used by one thread at a time.
#pragma once

#include <bitplane/vector.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <span>

namespace bitplane {

template <column_value T>
class vector_writer {
public:
    using value_type = T;
    /// Receives the file's bytes, in order, in pieces of any size.
    using sink = std::function<void(std::span<const std::byte>)>;

    vector_writer();
    vector_writer(vector_writer&&) noexcept;
    vector_writer& operator=(vector_writer&&) noexcept;
    ~vector_writer();

    /// Appends values. Throws argument_error after finish().
    void append(std::span<const T> values);

    /// Values appended so far.
    [[nodiscard]] std::uint64_t size() const noexcept;
    /// Bytes of the blocks encoded so far (the partial last block is encoded by finish()).
    [[nodiscard]] std::uint64_t encoded_bytes() const noexcept;
    /// Bytes the writer holds now (encoded blocks, offsets, buffers), for memory accounting.
    [[nodiscard]] std::uint64_t memory_bytes() const noexcept;

    /// Encodes the last partial block and hands the whole file to `out`; returns its size in
    /// bytes. Exceptions thrown by `out` propagate. Afterwards the writer is finished: append
    /// and finish throw argument_error.
    std::uint64_t finish(const sink& out);
    /// The same into a stream; throws io_error when the stream fails.
    std::uint64_t finish(std::ostream& out);

private:
    struct state;
    std::unique_ptr<state> state_;
};

}  // namespace bitplane
