// Checked arithmetic on sizes read from untrusted files: every loader (vectors, bitsets, packed
// DNA and its modeled payload) computes offsets, totals and bounds from header fields through
// these, so that a forged field can never wrap a sum or a product into a small, plausible size.
// An overflow is a format_error naming the quantity and the file offset of the field it came
// from. (Most fields are bounded before any arithmetic, e.g. a vector's value count by 2^48;
// the checks keep each computation safe on its own, whatever order the bounds are checked in.)
#pragma once

#include <bitplane/error.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace bitplane::detail {

/// a + b, or format_error("<what> overflows 64 bits (a + b)", offset).
[[nodiscard]] inline std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, std::string_view what,
                                               std::uint64_t offset) {
    if (b > std::numeric_limits<std::uint64_t>::max() - a)
        throw format_error(std::string(what) + " overflows 64 bits (" + std::to_string(a) + " + " + std::to_string(b) + ")",
                           offset);
    return a + b;
}

/// a * b, or format_error("<what> overflows 64 bits (a x b)", offset).
[[nodiscard]] inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, std::string_view what,
                                               std::uint64_t offset) {
    if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a)
        throw format_error(std::string(what) + " overflows 64 bits (" + std::to_string(a) + " x " + std::to_string(b) + ")",
                           offset);
    return a * b;
}

}  // namespace bitplane::detail
