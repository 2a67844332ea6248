// Plain files are read with read(2) straight into the caller's buffer (no copy through a
// stdio or zlib buffer: pack reads at memory speed). Gzip input goes through zlib's gzread.
// Standard input always goes through zlib, whose transparent mode passes plain data through,
// because its first bytes cannot be peeked at without consuming them.
#include "input_file.hpp"

#include "signals.hpp"

#include <bitplane/error.hpp>

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bitplane::cli {

namespace {

std::string system_message(int error) { return std::strerror(error); }

}  // namespace

input_file::input_file(const std::string& path) : path_(path) {
    const bool standard_input = path == "-";
    if (standard_input) {
        fd_ = STDIN_FILENO;
    } else {
        fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0) throw io_error("cannot open for reading: " + system_message(errno));
        owns_fd_ = true;
    }
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        const int error = errno;
        if (owns_fd_) ::close(fd_);
        throw io_error("cannot stat: " + system_message(error));
    }
    if (S_ISDIR(st.st_mode)) {
        if (owns_fd_) ::close(fd_);
        throw io_error("is a directory, not a file");
    }
    bool gzip = standard_input;
    if (S_ISREG(st.st_mode)) {
        disk_size_ = static_cast<std::uint64_t>(st.st_size);
        regular_ = true;
        unsigned char magic[2] = {0, 0};
        gzip = ::pread(fd_, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
        ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    if (gzip) {
        // gzdopen takes the descriptor over (gzclose closes it): give it a duplicate so that
        // closing never touches standard input's own descriptor.
        const int fd = ::dup(fd_);
        gzFile gz = fd < 0 ? nullptr : ::gzdopen(fd, "rb");
        if (gz == nullptr) {
            if (fd >= 0) ::close(fd);
            if (owns_fd_) ::close(fd_);
            throw io_error("cannot start reading gzip data");
        }
        ::gzbuffer(gz, 1 << 20);
        gz_ = gz;
    }
}

void input_file::unmap() noexcept {
    unregister_mapping(mapping_slot_);
    mapping_slot_ = -1;
    if (mapped_ != nullptr) ::munmap(mapped_, mapped_bytes_);
    mapped_ = nullptr;
    mapped_bytes_ = 0;
}

std::span<const std::byte> input_file::map_next(std::size_t max) {
    unmap();
    if (plain_position_ >= disk_size_) {
        // A file that shrank within its last page reads as zeros there instead of faulting:
        // its size at the end tells.
        struct stat st {};
        if (::fstat(fd_, &st) != 0) throw io_error("cannot stat: " + system_message(errno));
        if (static_cast<std::uint64_t>(st.st_size) != disk_size_)
            throw io_error("the file changed size while it was read (" + std::to_string(disk_size_) + " bytes, then " +
                           std::to_string(st.st_size) + ")");
        return {};
    }
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    max = std::max(page, max / page * page);  // keeps plain_position_ page-aligned
    const std::size_t bytes = static_cast<std::size_t>(std::min<std::uint64_t>(max, disk_size_ - plain_position_));
    // Not MAP_POPULATE: the pages are faulted in by the threads that encode them, in parallel
    // (and 16 at a time, the kernel's fault-around), instead of by this thread up front.
    void* p = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd_, static_cast<off_t>(plain_position_));
    if (p == MAP_FAILED) throw io_error("cannot map for reading: " + system_message(errno));
    ::madvise(p, bytes, MADV_SEQUENTIAL);
    mapped_ = p;
    mapped_bytes_ = bytes;
    mapping_slot_ = register_mapping(p, bytes, path_.c_str());
    plain_position_ += bytes;
    return {static_cast<const std::byte*>(p), bytes};
}

input_file::~input_file() {
    unmap();
    if (gz_ != nullptr) ::gzclose_r(static_cast<gzFile>(gz_));
    if (owns_fd_) ::close(fd_);
}

std::size_t input_file::read(std::span<std::byte> out) {
    std::size_t done = 0;
    while (done < out.size()) {
        // Both read(2) and gzread take at most INT_MAX-ish bytes per call: ask for 1 GiB at most.
        const std::size_t want = std::min<std::size_t>(out.size() - done, std::size_t{1} << 30);
        if (gz_ != nullptr) {
            auto* gz = static_cast<gzFile>(gz_);
            const int got = ::gzread(gz, out.data() + done, static_cast<unsigned>(want));
            int code = Z_OK;
            const char* message = ::gzerror(gz, &code);
            if (got < 0 || (code != Z_OK && code != Z_STREAM_END)) {
                if (code == Z_ERRNO) throw io_error("read failed: " + system_message(errno));
                // Z_BUF_ERROR at the end: the gzip stream stops before its end.
                throw parse_error(std::string("gzip data is corrupt or truncated: ") + message);
            }
            if (got == 0) break;
            done += static_cast<std::size_t>(got);
        } else {
            const ssize_t got = ::read(fd_, out.data() + done, want);
            if (got < 0) {
                if (errno == EINTR) continue;
                throw io_error("read failed: " + system_message(errno));
            }
            if (got == 0) break;
            done += static_cast<std::size_t>(got);
            plain_position_ += static_cast<std::uint64_t>(got);
        }
    }
    return done;
}

std::uint64_t input_file::disk_position() const noexcept {
    if (gz_ == nullptr) return plain_position_;
    const z_off_t at = ::gzoffset(static_cast<gzFile>(gz_));
    return at < 0 ? 0 : static_cast<std::uint64_t>(at);
}

}  // namespace bitplane::cli
