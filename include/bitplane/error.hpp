// Exceptions thrown by bitplane. Every failure the library reports is a bitplane::error,
// so callers can catch one type; the subclasses say which kind of input was wrong.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace bitplane {

/// Base of every exception bitplane throws.
class error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Bytes handed to `load` (or a block decoder) are not a valid bitplane encoding.
/// `offset()` is the byte offset in the input where the problem was found.
class format_error : public error {
public:
    format_error(const std::string& what, std::uint64_t offset)
        : error(what + " (at byte offset " + std::to_string(offset) + ")"), offset_(offset) {}
    [[nodiscard]] std::uint64_t offset() const noexcept { return offset_; }

private:
    std::uint64_t offset_;
};

/// Operands whose sizes must agree do not.
class size_error : public error {
public:
    using error::error;
};

/// An index is outside the container (`at`, `set`, `decode` ranges).
class index_error : public error {
public:
    using error::error;
};

/// Text input (FASTA, CSV) is malformed; the message names the record, line and column.
class parse_error : public error {
public:
    using error::error;
};

/// An argument outside what the function accepts (an unknown SIMD path name, say).
class argument_error : public error {
public:
    using error::error;
};

/// Reading or writing a stream or file failed.
class io_error : public error {
public:
    using error::error;
};

/// A CUDA runtime call failed; the message carries CUDA's own text.
class cuda_error : public error {
public:
    using error::error;
};

}  // namespace bitplane
