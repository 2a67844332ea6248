// Prefetching the next block while a kernel works on this one, shared by the kernel TUs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bitplane::detail {
// Internal linkage: each kernel TU is built with its own instruction-set flags, and an inline
// function shared across them could be linked in its AVX-512 build for the scalar path.
namespace {

// Prefetches [ahead, ahead + bytes) a few lines per step over `steps` steps of a kernel's
// work. A whole block's lines asked for at once fill the line-fill buffers and stall the loads
// behind them; a few per step keep the next block streaming in while this one is computed.
struct spread_prefetch {
    const std::uint8_t* ahead;
    std::size_t lines;
    std::size_t per_step;
    std::size_t next = 0;

    spread_prefetch(const std::uint8_t* p, std::size_t bytes, std::size_t steps) noexcept
        : ahead(p), lines(p == nullptr ? 0 : (bytes + 63) / 64), per_step((lines + steps - 1) / steps) {}

    void step() noexcept {
        const std::size_t end = next + per_step < lines ? next + per_step : lines;
        for (; next < end; ++next) __builtin_prefetch(ahead + 64 * next, 0, 3);
    }
    void rest() noexcept {
        for (; next < lines; ++next) __builtin_prefetch(ahead + 64 * next, 0, 3);
    }
};

}  // namespace
}  // namespace bitplane::detail
