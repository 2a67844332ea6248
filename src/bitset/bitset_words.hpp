// Word helpers for bitsets. The library is built for baseline x86-64, where std::popcount is a
// call into libgcc; the summary walks popcount one word per block visited, so an inline SWAR
// count (a dozen ALU operations) is used where the POPCNT instruction is not known to exist.
#pragma once

#include <bit>
#include <cstdint>

namespace bitplane::detail {

inline std::uint32_t popcount64(std::uint64_t x) noexcept {
#if defined(__POPCNT__)
    return static_cast<std::uint32_t>(std::popcount(x));
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return static_cast<std::uint32_t>((x * 0x0101010101010101ull) >> 56);
#endif
}

/// Bits of `mask` below bit `bit` (bit < 64).
inline std::uint64_t below(std::uint64_t mask, unsigned bit) noexcept { return mask & ((std::uint64_t{1} << bit) - 1); }

inline unsigned lowest_bit(std::uint64_t x) noexcept { return static_cast<unsigned>(std::countr_zero(x)); }

}  // namespace bitplane::detail
