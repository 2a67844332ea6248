// Element-wise bitwise operations on vectors of equal size (size_error otherwise), computed
// plane by plane and producing compressed vectors. A block that is all zero in one operand
// is answered without touching the other (x AND 0 = 0, x OR 0 = x, x XOR 0 = x).
// Thread safety: const operands; parallel over blocks.
#pragma once

#include <bitplane/vector.hpp>

namespace bitplane {

template <column_value T> [[nodiscard]] vector<T> operator&(const vector<T>& a, const vector<T>& b);
template <column_value T> [[nodiscard]] vector<T> operator|(const vector<T>& a, const vector<T>& b);
template <column_value T> [[nodiscard]] vector<T> operator^(const vector<T>& a, const vector<T>& b);
/// a AND NOT b.
template <column_value T> [[nodiscard]] vector<T> andnot(const vector<T>& a, const vector<T>& b);
template <column_value T> [[nodiscard]] vector<T> operator~(const vector<T>& a);

}  // namespace bitplane
