// An input file read front to back in chunks: a path or "-" (standard input), gzip-compressed
// or not. Not by its name: by its first bytes (up to 64 KiB, peeked at or held for reading):
// gzip when they hold a whole gzip header (magic 1f 8b, method 8, no reserved flag) and
// inflate without error, so that raw data that happens to start with 1f 8b (the value 35615)
// is not taken for gzip; input_kind settles it either way (pack --input-type). Gzip input may
// hold several members back to back (as `cat a.gz b.gz` makes); anything else after a member
// (rows appended to a compressed file) is a parse_error, not silently dropped.
// Errors: io_error for what the system refused (open, read), parse_error for corrupt or
// truncated gzip data; messages do not repeat the path (callers wrap with about_file).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace bitplane::cli {

enum class input_kind { detect, gzip, plain };

class input_file {
public:
    explicit input_file(const std::string& path, input_kind kind = input_kind::detect);
    input_file(const input_file&) = delete;
    input_file& operator=(const input_file&) = delete;
    ~input_file();

    /// Fills `out` as far as the input goes; returns the bytes read (less than out.size()
    /// only at the end of the input).
    std::size_t read(std::span<std::byte> out);

    /// Whether the input is a plain (not gzip) regular file, which map_next can read.
    [[nodiscard]] bool mappable() const noexcept { return z_ == nullptr && regular_ && held_.empty(); }
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
    [[nodiscard]] bool gzipped() const noexcept { return z_ != nullptr; }
    [[nodiscard]] const std::string& path() const noexcept { return path_; }

private:
    void refill();          // more raw bytes into held_ (none left: eof_)
    void start_member();    // after a member's end: another member, or an error
    std::size_t read_gzip(std::span<std::byte> out);

    std::string path_;
    int fd_ = -1;
    bool owns_fd_ = false;
    void* z_ = nullptr;  // z_stream when gzipped
    std::uint64_t disk_size_ = 0;
    std::uint64_t plain_position_ = 0;  // raw bytes read from the descriptor
    bool regular_ = false;
    bool eof_ = false;                  // the descriptor has no more bytes
    bool member_done_ = false;          // gzip: the current member ended
    std::vector<unsigned char> held_;   // raw bytes read, not yet used: [held_at_, held_.size())
    std::size_t held_at_ = 0;
    void* mapped_ = nullptr;
    std::size_t mapped_bytes_ = 0;
    int mapping_slot_ = -1;  // in the SIGBUS handler's list
    void unmap() noexcept;
};

}  // namespace bitplane::cli
