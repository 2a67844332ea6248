// Scans of a vector that answer with a bitset of positions, computed on the planes with
// bit-sliced comparisons (from the top plane down, stopping where nothing is still equal to
// the bounds; all-zero and all-one planes cost nothing; frame-of-reference blocks compare
// against x - base; sparse blocks compare their non-zero values only). Sorted delta blocks are
// answered from their bounds where the interval holds all or none of them; other delta blocks
// are decoded on the way.
// Comparisons use T's order (signed for int32). Thread safety: const; parallel over blocks.
#pragma once

#include <bitplane/bitset.hpp>
#include <bitplane/vector.hpp>

#include <cstdint>

namespace bitplane {

template <column_value T> [[nodiscard]] bitset find_eq(const vector<T>& v, T x);
template <column_value T> [[nodiscard]] bitset find_ne(const vector<T>& v, T x);
template <column_value T> [[nodiscard]] bitset find_lt(const vector<T>& v, T x);
template <column_value T> [[nodiscard]] bitset find_le(const vector<T>& v, T x);
template <column_value T> [[nodiscard]] bitset find_gt(const vector<T>& v, T x);
template <column_value T> [[nodiscard]] bitset find_ge(const vector<T>& v, T x);
/// Positions with lo <= v[i] <= hi (empty when lo > hi).
template <column_value T> [[nodiscard]] bitset find_range(const vector<T>& v, T lo, T hi);

/// Counts without building the bitset.
template <column_value T> [[nodiscard]] std::uint64_t count_eq(const vector<T>& v, T x);
template <column_value T> [[nodiscard]] std::uint64_t count_range(const vector<T>& v, T lo, T hi);

}  // namespace bitplane
