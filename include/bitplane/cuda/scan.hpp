// Scans of a device_vector answering with a device_bitset (dense form), as bitplane/scan.hpp
// on the host: comparisons in T's order (signed for int32). Each block is decoded in shared
// memory and its values compared (docs/gpu.md). Enqueued on `stream`; they do not wait.
// Host header (no CUDA header); link bitplane::cuda.
#pragma once

#include <bitplane/cuda/device_bitset.hpp>
#include <bitplane/cuda/device_vector.hpp>

#include <bit>
#include <cstdint>
#include <limits>

namespace bitplane::cuda {

namespace detail {
/// Positions whose key (bits ^ flip) lies in [lo, hi] (none when lo > hi), or outside when invert.
device_bitset scan_blocks(const device_blocks& v, std::uint32_t flip, std::uint32_t lo, std::uint32_t hi, bool invert,
                          stream_t stream);
/// T's order as an unsigned order: the sign bit flipped for signed types.
template <column_value T>
constexpr std::uint32_t flip_of() noexcept {
    return std::is_signed_v<T> ? 0x80000000u : 0u;
}
template <column_value T>
constexpr std::uint32_t key_of(T x) noexcept {
    return std::bit_cast<std::uint32_t>(x) ^ flip_of<T>();
}
}  // namespace detail

template <column_value T>
[[nodiscard]] device_bitset find_range(const device_vector<T>& v, T lo, T hi, stream_t stream = nullptr) {
    return detail::scan_blocks(v.blocks(), detail::flip_of<T>(), detail::key_of(lo), detail::key_of(hi), false, stream);
}
template <column_value T>
[[nodiscard]] device_bitset find_eq(const device_vector<T>& v, T x, stream_t stream = nullptr) {
    return find_range(v, x, x, stream);
}
template <column_value T>
[[nodiscard]] device_bitset find_ne(const device_vector<T>& v, T x, stream_t stream = nullptr) {
    return detail::scan_blocks(v.blocks(), detail::flip_of<T>(), detail::key_of(x), detail::key_of(x), true, stream);
}
template <column_value T>
[[nodiscard]] device_bitset find_le(const device_vector<T>& v, T x, stream_t stream = nullptr) {
    return find_range(v, std::numeric_limits<T>::min(), x, stream);
}
template <column_value T>
[[nodiscard]] device_bitset find_ge(const device_vector<T>& v, T x, stream_t stream = nullptr) {
    return find_range(v, x, std::numeric_limits<T>::max(), stream);
}
template <column_value T>
[[nodiscard]] device_bitset find_lt(const device_vector<T>& v, T x, stream_t stream = nullptr) {
    // Keys below key(x): none when x is the minimum (an empty range, lo > hi).
    const std::uint32_t k = detail::key_of(x);
    return detail::scan_blocks(v.blocks(), detail::flip_of<T>(), k == 0 ? 1u : 0u, k == 0 ? 0u : k - 1, false, stream);
}
template <column_value T>
[[nodiscard]] device_bitset find_gt(const device_vector<T>& v, T x, stream_t stream = nullptr) {
    const std::uint32_t k = detail::key_of(x);
    return detail::scan_blocks(v.blocks(), detail::flip_of<T>(), k == ~0u ? 1u : k + 1, k == ~0u ? 0u : ~0u, false,
                               stream);
}

}  // namespace bitplane::cuda
