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
// A step walks its bytes, ~4 instructions a line where counting lines against a stored
// bound took ~6-7 (the AVX2 fused dot prefetches ~200-260 lines a block pair at 17-32 bits:
// callgrind, stop 38). Rounding the lines a step up to 4 to unroll the loop cut ~2 more, but
// cost the 32-bit dot ~20% on the Xeon device host (8 lines a step where 5 spread them).
struct spread_prefetch {
    const std::uint8_t* next;
    std::size_t left;        // bytes from next to the end
    std::size_t step_bytes;  // 64 x lines a step

    spread_prefetch(const std::uint8_t* p, std::size_t bytes, std::size_t steps) noexcept
        : next(p),
          left(p == nullptr ? 0 : bytes),
          step_bytes(64 * ((((p == nullptr ? 0 : bytes) + 63) / 64 + steps - 1) / steps)) {}

    void step() noexcept {
        const std::size_t take = left < step_bytes ? left : step_bytes;
        for (std::size_t at = 0; at < take; at += 64) __builtin_prefetch(next + at, 0, 3);
        next += take;
        left -= take;
    }
    void rest() noexcept { step_bytes = left; step(); }
};

}  // namespace
}  // namespace bitplane::detail
