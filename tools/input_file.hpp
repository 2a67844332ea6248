// An input file read front to back in chunks: a path or "-" (standard input), gzip-compressed
// or not (recognized by its magic bytes, not its name). Errors: io_error for what the system
// refused (open, read), parse_error for corrupt or truncated gzip data; messages do not
// repeat the path (callers wrap with about_file).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace bitplane::cli {

class input_file {
public:
    explicit input_file(const std::string& path);
    input_file(const input_file&) = delete;
    input_file& operator=(const input_file&) = delete;
    ~input_file();

    /// Fills `out` as far as the input goes; returns the bytes read (less than out.size()
    /// only at the end of the input).
    std::size_t read(std::span<std::byte> out);

    /// Whether the input is a plain (not gzip) regular file, which map_next can read.
    [[nodiscard]] bool mappable() const noexcept { return gz_ == nullptr && regular_; }
    /// For mappable inputs: the next up to `max` bytes (a multiple of the page size) mapped
    /// in place of read(), valid until the next call or destruction; empty at the end.
    /// Reading through the mapping saves the copy into a buffer; the window is unmapped as
    /// soon as the next one is asked for, so at most `max` bytes of the file are mapped.
    /// A file that shrinks while mapped ends the program as an I/O error (signals.hpp:
    /// SIGBUS); io_error at the end when the file's size is no longer what it was at open.
    std::span<const std::byte> map_next(std::size_t max);

    /// Size of the file on disk when known (a regular file), else 0: for progress.
    [[nodiscard]] std::uint64_t size_on_disk() const noexcept { return disk_size_; }
    /// Bytes consumed from the file on disk so far (compressed bytes for gzip).
    [[nodiscard]] std::uint64_t disk_position() const noexcept;
    [[nodiscard]] bool gzipped() const noexcept { return gz_ != nullptr; }
    [[nodiscard]] const std::string& path() const noexcept { return path_; }

private:
    std::string path_;
    int fd_ = -1;
    bool owns_fd_ = false;
    void* gz_ = nullptr;  // gzFile when gzipped
    std::uint64_t disk_size_ = 0;
    std::uint64_t plain_position_ = 0;
    bool regular_ = false;
    void* mapped_ = nullptr;
    std::size_t mapped_bytes_ = 0;
    int mapping_slot_ = -1;  // in the SIGBUS handler's list
    void unmap() noexcept;
};

}  // namespace bitplane::cli
