// An output file that appears complete or not at all: bytes go to a temporary file next to
// the destination ("<path>.partial-XXXXXX"), which commit() flushes to disk and renames onto
// the destination. If the program fails before commit (an exception: the destructor) or is
// interrupted (SIGINT, SIGTERM, SIGHUP, SIGPIPE: the handlers of signals.hpp), the temporary
// file is removed and an existing file at the destination is left as it was. Only SIGKILL or
// a crash can leave a "*.partial-*" file behind, never a truncated file under the real name.
//
// Interruption is what this guards against. Durability against a power cut needs the data
// on disk before the rename (fsync), which costs as much as a third of a fast pack: it is
// asked for with set_sync_outputs(true) (`bitplane --sync`), as gzip --synchronous does.
//
// "-" writes to standard output directly (no temporary file, nothing to commit). Only a
// regular file is ever replaced: a character device or a FIFO (/dev/null, /dev/stdout on a
// pipe or terminal, a named pipe) is opened and written in place, like "-"; a symbolic link
// to a regular file has its target replaced (the link stays); a replaced file keeps its
// permission bits (a 0600 file stays 0600); anything else (a directory, a block device, a
// socket, a link to nothing) is refused with io_error before anything is written.
//
// Test hook: with BITPLANE_TEST_STALL_WRITE set, the first write() writes its bytes, prints
// "bitplane: test hook: stalled writing <temporary path>" on stderr and sleeps for up to a
// minute, so that tests can interrupt a write half done. When its value is an absolute path,
// the sleep ends early once no file exists there (the test removes it to let the write go on).
#pragma once

#include <bitplane/stream_writer.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace bitplane::cli {

/// Also a placed_output (write_at/read_at at any offset of the temporary file), so that a
/// vector_writer that knows its value count writes blocks in place as they are encoded;
/// not for "-" (placeable() is false: standard output may be a pipe).
class output_file : public placed_output {
public:
    /// Creates the temporary file; io_error when its directory cannot hold it.
    explicit output_file(std::string path);
    output_file(const output_file&) = delete;
    output_file& operator=(const output_file&) = delete;
    /// Removes the temporary file unless committed.
    ~output_file() override;

    /// Appends bytes; io_error on failure (disk full, ...).
    void write(std::span<const std::byte> bytes);
    void write(std::string_view text) { write(std::as_bytes(std::span<const char>(text.data(), text.size()))); }
    /// Whether write_at and read_at can be used (a file, not standard output or a device).
    [[nodiscard]] bool placeable() const noexcept { return !temporary_.empty(); }
    /// pwrite/pread on the temporary file; io_error on failure.
    void write_at(std::uint64_t offset, std::span<const std::byte> bytes) override;
    void read_at(std::uint64_t offset, std::span<std::byte> bytes) override;
    /// Maps the range (read-only, a window at a time) instead of copying it.
    void read_pieces(std::uint64_t offset, std::uint64_t size,
                     const std::function<void(std::span<const std::byte>)>& piece) override;
    /// pread and read-only mappings of ranges already written are safe beside a pwrite of
    /// another range (write_at touches no state the reads use).
    [[nodiscard]] bool reads_while_writing() const noexcept override { return true; }
    /// Whether commit() flushes to disk before renaming (default false); for the whole program.
    static void set_sync_outputs(bool sync) noexcept;

    /// Renames onto the destination (after flushing to disk with set_sync_outputs(true));
    /// io_error on failure.
    void commit();

    [[nodiscard]] const std::string& path() const noexcept { return path_; }
    [[nodiscard]] std::uint64_t bytes_written() const noexcept { return written_; }

private:
    void stall_once();  // the test hook, on the first write

    std::string path_;
    std::string destination_;  // path_, or the regular file a symbolic link names
    std::string temporary_;    // empty when written in place
    int fd_ = -1;
    int slot_ = -1;  // in the signal handlers' cleanup list
    bool committed_ = false;
    bool owns_direct_ = false;  // a device or FIFO opened here, written in place
    bool stall_ = false;
    std::uint64_t written_ = 0;
};

}  // namespace bitplane::cli
