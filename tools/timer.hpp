// Wall-clock seconds of one call, for the timings the commands report.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <utility>

namespace bitplane::cli {

template <class F>
double timed(F&& f) {
    const auto start = std::chrono::steady_clock::now();
    std::forward<F>(f)();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Seconds per call of `f`: the best of 3 rounds, each calling it as often as `round_seconds`
/// takes (at least once). Calls of a few microseconds (operations on the 48 kb built-in genome)
/// cannot be timed one at a time; the best round is the figure of a quiet moment on a shared
/// machine.
template <class F>
double seconds_per_call(F&& f, double round_seconds = 0.02) {
    double best = 0;
    for (int round = 0; round < 3; ++round) {
        std::uint64_t calls = 0;
        const double seconds = timed([&] {
            const auto start = std::chrono::steady_clock::now();
            do {
                f();
                ++calls;
            } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < round_seconds);
        });
        const double per_call = seconds / static_cast<double>(calls);
        best = round == 0 ? per_call : std::min(best, per_call);
    }
    return best;
}

}  // namespace bitplane::cli
