// Wall-clock seconds of one call, for the timings the commands report.
#pragma once

#include <chrono>
#include <utility>

namespace bitplane::cli {

template <class F>
double timed(F&& f) {
    const auto start = std::chrono::steady_clock::now();
    std::forward<F>(f)();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace bitplane::cli
