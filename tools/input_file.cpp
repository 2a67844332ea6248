// Plain files are read with read(2) straight into the caller's buffer (no copy through a
// stdio or zlib buffer: pack reads at memory speed), or mapped (map_next). Gzip input is
// inflated here with zlib's inflate, member after member, from a 1 MiB buffer of raw bytes.
// What is not a regular file (standard input, a pipe) cannot be peeked at: its first bytes
// are read into that buffer, looked at, and then handed out first.
#include "input_file.hpp"

#include "signals.hpp"

#include <bitplane/error.hpp>

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bitplane::cli {

namespace {

std::string system_message(int error) { return std::strerror(error); }

constexpr std::size_t peek_bytes = std::size_t{64} << 10;
constexpr std::size_t raw_chunk = std::size_t{1} << 20;

z_stream* stream_of(void* z) noexcept { return static_cast<z_stream*>(z); }

// Whether `head` (the start of an input) is gzip data: a whole member header that inflates
// without error as far as it goes. Raw values starting 1f 8b 00 00 (35615) fail at the method.
bool looks_like_gzip(std::span<const unsigned char> head) {
    if (head.size() < 10 || head[0] != 0x1f || head[1] != 0x8b || head[2] != 8 || (head[3] & 0xE0) != 0) return false;
    z_stream z{};
    if (::inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw std::bad_alloc();
    z.next_in = const_cast<unsigned char*>(head.data());
    z.avail_in = static_cast<uInt>(head.size());
    std::vector<unsigned char> scratch(peek_bytes);
    int code = Z_OK;
    while (code == Z_OK && z.avail_in > 0) {
        z.next_out = scratch.data();
        z.avail_out = static_cast<uInt>(scratch.size());
        code = ::inflate(&z, Z_NO_FLUSH);
        if (code == Z_BUF_ERROR) code = Z_OK;  // the head ends inside the member: so far so good
        if (code == Z_OK && z.avail_in > 0 && z.avail_out > 0) break;
    }
    ::inflateEnd(&z);
    return code == Z_OK || code == Z_STREAM_END;
}

}  // namespace

input_file::input_file(const std::string& path, input_kind kind) : path_(path) {
    const bool standard_input = path == "-";
    if (standard_input) {
        fd_ = STDIN_FILENO;
    } else {
        fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0) throw io_error("cannot open for reading: " + system_message(errno));
        owns_fd_ = true;
    }
    try {
        struct stat st {};
        if (::fstat(fd_, &st) != 0) throw io_error("cannot stat: " + system_message(errno));
        if (S_ISDIR(st.st_mode)) throw io_error("is a directory, not a file");
        bool gzip = kind == input_kind::gzip;
        if (S_ISREG(st.st_mode)) {
            disk_size_ = static_cast<std::uint64_t>(st.st_size);
            regular_ = true;
            if (kind == input_kind::detect) {
                std::vector<unsigned char> head(static_cast<std::size_t>(std::min<std::uint64_t>(peek_bytes, disk_size_)));
                const ssize_t got = head.empty() ? 0 : ::pread(fd_, head.data(), head.size(), 0);
                if (got < 0) throw io_error("read failed: " + system_message(errno));
                gzip = looks_like_gzip(std::span<const unsigned char>(head).first(static_cast<std::size_t>(got)));
            }
            ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
        } else if (kind == input_kind::detect) {
            // Cannot be peeked at: the first bytes are read now and handed out first.
            while (held_.size() < peek_bytes && !eof_) refill();
            gzip = looks_like_gzip(held_);
        }
        if (gzip) {
            auto* z = new z_stream{};
            if (::inflateInit2(z, 16 + MAX_WBITS) != Z_OK) {
                delete z;
                throw std::bad_alloc();
            }
            z_ = z;
        }
    } catch (...) {
        if (owns_fd_) ::close(fd_);
        throw;
    }
}

void input_file::refill() {
    if (held_at_ > 0) {  // drop what was used
        held_.erase(held_.begin(), held_.begin() + static_cast<std::ptrdiff_t>(held_at_));
        held_at_ = 0;
    }
    const std::size_t have = held_.size();
    held_.resize(std::max(have + raw_chunk / 4, raw_chunk));
    for (;;) {
        const ssize_t got = ::read(fd_, held_.data() + have, held_.size() - have);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            const int error = errno;
            held_.resize(have);
            throw io_error("read failed: " + system_message(error));
        }
        held_.resize(have + static_cast<std::size_t>(got));
        plain_position_ += static_cast<std::uint64_t>(got);
        if (got == 0) eof_ = true;
        return;
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
    if (z_ != nullptr) {
        ::inflateEnd(stream_of(z_));
        delete stream_of(z_);
    }
    if (owns_fd_) ::close(fd_);
}

void input_file::start_member() {
    // Another member may follow (gzip allows them back to back); anything else is data this
    // reader would otherwise drop without a word.
    while (held_.size() - held_at_ < 2 && !eof_) refill();
    const std::size_t left = held_.size() - held_at_;
    if (left == 0) return;  // the end
    if (left < 2 || held_[held_at_] != 0x1f || held_[held_at_ + 1] != 0x8b)
        throw parse_error("data after the end of the gzip data, at byte " + std::to_string(plain_position_ - left) +
                          " of the file (rows appended to a compressed file?)");
    if (::inflateReset(stream_of(z_)) != Z_OK) throw parse_error("gzip data is corrupt or truncated: cannot restart");
    member_done_ = false;
}

std::size_t input_file::read_gzip(std::span<std::byte> out) {
    z_stream& z = *stream_of(z_);
    std::size_t done = 0;
    while (done < out.size()) {
        if (member_done_) {
            start_member();
            if (member_done_) break;  // no member follows: the end
        }
        if (held_at_ == held_.size() && !eof_) refill();
        z.next_in = held_.data() + held_at_;
        z.avail_in = static_cast<uInt>(held_.size() - held_at_);
        z.next_out = reinterpret_cast<unsigned char*>(out.data() + done);
        z.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - done, std::size_t{1} << 30));
        const uInt before_out = z.avail_out;
        const int code = ::inflate(&z, Z_NO_FLUSH);
        held_at_ = held_.size() - z.avail_in;
        done += before_out - z.avail_out;
        if (code == Z_STREAM_END) {
            member_done_ = true;
            continue;
        }
        if (code == Z_MEM_ERROR) throw std::bad_alloc();
        if (code == Z_BUF_ERROR && eof_ && held_at_ == held_.size())
            throw parse_error("gzip data is corrupt or truncated: the file ends inside a gzip member");
        if (code != Z_OK && code != Z_BUF_ERROR)
            throw parse_error(std::string("gzip data is corrupt or truncated: ") + (z.msg != nullptr ? z.msg : "inflate failed"));
    }
    return done;
}

std::size_t input_file::read(std::span<std::byte> out) {
    if (z_ != nullptr) return read_gzip(out);
    std::size_t done = 0;
    if (held_at_ < held_.size()) {  // the bytes looked at first
        const std::size_t n = std::min(out.size(), held_.size() - held_at_);
        std::memcpy(out.data(), held_.data() + held_at_, n);
        held_at_ += n;
        done = n;
    }
    while (done < out.size() && !eof_) {
        // read(2) takes at most about INT_MAX bytes per call: ask for 1 GiB at most.
        const std::size_t want = std::min<std::size_t>(out.size() - done, std::size_t{1} << 30);
        const ssize_t got = ::read(fd_, out.data() + done, want);
        if (got < 0) {
            if (errno == EINTR) continue;
            throw io_error("read failed: " + system_message(errno));
        }
        if (got == 0) break;
        done += static_cast<std::size_t>(got);
        plain_position_ += static_cast<std::uint64_t>(got);
    }
    return done;
}

std::uint64_t input_file::disk_position() const noexcept { return plain_position_ - (held_.size() - held_at_); }

}  // namespace bitplane::cli
