#include "output_file.hpp"

#include "signals.hpp"

#include <bitplane/error.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>

namespace bitplane::cli {

namespace {

bool sync_outputs = false;

std::string system_message(int error) { return std::strerror(error); }

// The permissions a plainly created file would get (0666 less the umask): mkstemp makes 0600.
mode_t default_mode() {
    static const mode_t mode = [] {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        return static_cast<mode_t>(0666 & ~mask);
    }();
    return mode;
}

void stall(const std::string& temporary) {
    std::fprintf(stderr, "bitplane: test hook: stalled writing %s\n", temporary.c_str());
    std::fflush(stderr);
    const char* hold = std::getenv("BITPLANE_TEST_STALL_WRITE");
    const bool held = hold != nullptr && hold[0] == '/';
    for (int i = 0; i < 600; ++i) {
        if (held && ::access(hold, F_OK) != 0) return;
        timespec tenth{0, 100'000'000};
        ::nanosleep(&tenth, nullptr);
    }
}

}  // namespace

output_file::output_file(std::string path) : path_(std::move(path)) {
    if (path_ == "-") {
        fd_ = STDOUT_FILENO;
        return;
    }
    // Only a regular file is ever replaced. stat follows symbolic links: a link to a
    // regular file has its target replaced (the link stays), with the target's permissions.
    std::string destination = path_;
    mode_t mode = default_mode();
    struct stat st {};
    if (::stat(path_.c_str(), &st) == 0) {
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {  // /dev/null, a terminal, a pipe: in place
            fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
            if (fd_ < 0) throw io_error("cannot open for writing: " + system_message(errno));
            owns_direct_ = true;
            return;
        }
        if (S_ISDIR(st.st_mode)) throw io_error("is a directory, not a file");
        if (!S_ISREG(st.st_mode))
            throw io_error("is neither a regular file nor a character device or FIFO: refusing to replace it");
        mode = st.st_mode & 07777;
        struct stat link {};
        if (::lstat(path_.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
            char* real = ::realpath(path_.c_str(), nullptr);
            if (real == nullptr) throw io_error("cannot resolve the symbolic link: " + system_message(errno));
            destination = real;
            std::free(real);
        }
    } else {
        struct stat link {};
        if (::lstat(path_.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
            throw io_error("is a symbolic link to nothing (" + system_message(ENOENT) + "): refusing to replace it");
    }
    destination_ = destination;
    temporary_ = destination + ".partial-XXXXXX";
    fd_ = ::mkostemp(temporary_.data(), O_CLOEXEC);
    if (fd_ < 0) throw io_error("cannot create a temporary file next to it: " + system_message(errno));
    slot_ = register_cleanup(temporary_.c_str());
    ::fchmod(fd_, mode);
    const char* hook = std::getenv("BITPLANE_TEST_STALL_WRITE");
    stall_ = hook != nullptr && *hook != '\0';
}

output_file::~output_file() {
    if (fd_ < 0 || fd_ == STDOUT_FILENO) return;
    ::close(fd_);
    if (!committed_ && !owns_direct_) {
        ::unlink(temporary_.c_str());
        unregister_cleanup(slot_);
    }
}

void output_file::write(std::span<const std::byte> bytes) {
    const std::byte* at = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
        const ssize_t done = ::write(fd_, at, std::min<std::size_t>(left, std::size_t{1} << 30));
        if (done < 0) {
            if (errno == EINTR) continue;
            throw io_error("write failed: " + system_message(errno));
        }
        at += done;
        left -= static_cast<std::size_t>(done);
    }
    written_ += bytes.size();
    stall_once();
}

void output_file::write_at(std::uint64_t offset, std::span<const std::byte> bytes) {
    const std::byte* at = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
        const ssize_t done = ::pwrite(fd_, at, std::min<std::size_t>(left, std::size_t{1} << 30),
                                      static_cast<off_t>(offset + (bytes.size() - left)));
        if (done < 0) {
            if (errno == EINTR) continue;
            throw io_error("write failed: " + system_message(errno));
        }
        at += done;
        left -= static_cast<std::size_t>(done);
    }
    written_ = std::max<std::uint64_t>(written_, offset + bytes.size());
    stall_once();
}

void output_file::read_at(std::uint64_t offset, std::span<std::byte> bytes) {
    std::size_t got = 0;
    while (got < bytes.size()) {
        const ssize_t done = ::pread(fd_, bytes.data() + got, bytes.size() - got, static_cast<off_t>(offset + got));
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0)
            throw io_error("reading back what was written failed: " +
                           (done < 0 ? system_message(errno) : std::string("the file is shorter than written")));
        got += static_cast<std::size_t>(done);
    }
}

void output_file::read_pieces(std::uint64_t offset, std::uint64_t size,
                              const std::function<void(std::span<const std::byte>)>& piece) {
    // Windows of 64 MiB at page-aligned offsets: the pages just written are in the page
    // cache, and mapping them costs a fault per 16 pages instead of a copy of every byte.
    constexpr std::uint64_t window = std::uint64_t{64} << 20;
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    for (std::uint64_t at = offset; at < offset + size;) {
        const std::uint64_t start = at / page * page;
        const std::uint64_t end = std::min(offset + size, start + window);
        const auto length = static_cast<std::size_t>(end - start);
        void* map = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd_, static_cast<off_t>(start));
        if (map == MAP_FAILED) {  // a file system without mmap: copy instead
            placed_output::read_pieces(at, offset + size - at, piece);
            return;
        }
        ::madvise(map, length, MADV_SEQUENTIAL);
        try {
            piece(std::span<const std::byte>(static_cast<const std::byte*>(map) + (at - start), static_cast<std::size_t>(end - at)));
        } catch (...) {
            ::munmap(map, length);
            throw;
        }
        ::munmap(map, length);
        at = end;
    }
}

void output_file::stall_once() {
    if (!stall_) return;
    stall_ = false;
    stall(temporary_);
}

void output_file::set_sync_outputs(bool sync) noexcept { sync_outputs = sync; }

void output_file::commit() {
    if (temporary_.empty()) return;  // standard output, a device or a FIFO: written in place
    // Data on disk before the name: a power cut right after the rename must not show an empty file.
    if (sync_outputs && ::fsync(fd_) != 0) throw io_error("flushing to disk failed: " + system_message(errno));
    if (::rename(temporary_.c_str(), destination_.c_str()) != 0)
        throw io_error("cannot rename the finished temporary file onto it: " + system_message(errno));
    committed_ = true;
    unregister_cleanup(slot_);
}

}  // namespace bitplane::cli
