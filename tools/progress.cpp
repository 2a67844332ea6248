#include "progress.hpp"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace bitplane::cli {

bool progress::stderr_is_terminal() noexcept { return ::isatty(STDERR_FILENO) == 1; }

progress::progress(std::string label, std::uint64_t total, bool enabled)
    : label_(std::move(label)), total_(total), active_(enabled && stderr_is_terminal()),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

progress::~progress() {
    if (drawn_) {
        std::fputs("\r\033[K", stderr);  // carriage return, erase the line
        std::fflush(stderr);
    }
}

void progress::update(std::uint64_t done) {
    if (!active_) return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    draw(done);
}

void progress::draw(std::uint64_t done) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double mb = static_cast<double>(done) / 1e6;
    const double rate = seconds > 0 ? mb / seconds : 0;
    if (total_ > 0) {
        constexpr int width = 30;
        const double fraction = std::min(1.0, static_cast<double>(done) / static_cast<double>(total_));
        const int filled = static_cast<int>(fraction * width);
        std::string bar(static_cast<std::size_t>(filled), '#');
        bar.resize(width, '.');
        std::fprintf(stderr, "\r%s [%s] %3.0f%%  %.0f MB  %.0f MB/s\033[K", label_.c_str(), bar.c_str(), fraction * 100,
                     mb, rate);
    } else {
        std::fprintf(stderr, "\r%s %.0f MB  %.0f MB/s\033[K", label_.c_str(), mb, rate);
    }
    std::fflush(stderr);
    drawn_ = true;
}

}  // namespace bitplane::cli
