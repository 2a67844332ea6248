// Exact reductions. sum, min and max read the small summary (exact sum, smallest and largest
// value) that a vector keeps for every sealed block of 2048 values: O(size() / 2048), plus the
// values of the partial last block and of a block with pending writes (set()). The others
// work on the planes: popcounts of planes and of plane pairs, corrected for each block's frame
// of reference; delta/zigzag blocks are decoded first.
//   dot(a, b)        = sum over plane pairs (j, k) of 2^(j+k) popcount(A_j AND B_k), or a
//                      decode-and-multiply per block where that is faster (many live planes)
// Signed vectors use two's complement weights (plane 31 weighs -2^31). Results are exact
// 128-bit integers. Binary operations throw size_error when sizes differ.
// Thread safety: const; the plane reductions run over blocks on thread_count() threads.
#pragma once

#include <bitplane/int128.hpp>
#include <bitplane/vector.hpp>

#include <cstdint>
#include <type_traits>

namespace bitplane {

/// int128 for int32 vectors, uint128 for uint32 vectors.
template <column_value T>
using wide_t = std::conditional_t<std::is_signed_v<T>, int128, uint128>;

template <column_value T> [[nodiscard]] wide_t<T> sum(const vector<T>& v);
/// The smallest and the largest value. Throws argument_error when `v` is empty (there is no
/// value to return, and no sentinel of T that could not also be a value).
template <column_value T> [[nodiscard]] T min(const vector<T>& v);
template <column_value T> [[nodiscard]] T max(const vector<T>& v);
template <column_value T> [[nodiscard]] uint128 sum_of_squares(const vector<T>& v);
template <column_value T> [[nodiscard]] wide_t<T> dot(const vector<T>& a, const vector<T>& b);

/// Set bits over all values (as 32-bit patterns).
template <column_value T> [[nodiscard]] std::uint64_t popcount(const vector<T>& v);
/// Differing bits between a[i] and b[i], summed.
template <column_value T> [[nodiscard]] std::uint64_t hamming_distance(const vector<T>& a, const vector<T>& b);
/// Positions where a[i] != b[i]: popcount of the OR over planes of A_j XOR B_j.
template <column_value T> [[nodiscard]] std::uint64_t mismatch_count(const vector<T>& a, const vector<T>& b);

}  // namespace bitplane
