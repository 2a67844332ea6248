// A progress bar on stderr, drawn only when stderr is a terminal (and not with --quiet), so
// that logs and pipes never receive carriage returns. Drawn at the first update, then at most
// ten times a second; erased when done.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace bitplane::cli {

class progress {
public:
    /// `total` units of work (bytes), 0 when unknown (then only the amount done is shown).
    progress(std::string label, std::uint64_t total, bool enabled);
    progress(const progress&) = delete;
    progress& operator=(const progress&) = delete;
    /// Clears the bar.
    ~progress();

    void update(std::uint64_t done);
    /// Whether anything is drawn (stderr is a terminal and progress was not turned off).
    [[nodiscard]] bool active() const noexcept { return active_; }

    /// Whether progress is shown by default: stderr is a terminal.
    [[nodiscard]] static bool stderr_is_terminal() noexcept;

private:
    void draw(std::uint64_t done);
    std::string label_;
    std::uint64_t total_;
    bool active_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_;
};

}  // namespace bitplane::cli
