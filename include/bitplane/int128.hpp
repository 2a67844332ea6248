// 128-bit integers for exact reductions (sums and dot products of 32-bit values overflow
// 64 bits after a few billion elements of a few million squared). GCC and Clang provide
// them as an extension on every 64-bit target bitplane builds for.
#pragma once

#include <string>

namespace bitplane {

__extension__ typedef unsigned __int128 uint128;
__extension__ typedef __int128 int128;

/// Decimal text of a 128-bit value (std::to_string has no overload for them).
std::string to_string(uint128 value);
std::string to_string(int128 value);

}  // namespace bitplane
