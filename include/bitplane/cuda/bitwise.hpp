// Element-wise bitwise operations of two device_vectors of equal size (size_error otherwise),
// as bitplane/bitwise.hpp on the host. Both blocks are decoded in shared memory and combined.
// Two forms:
//   - bitwise_and(a, b, T* device_out, stream): the result as dense values in caller-provided
//     device memory (size() values of T); enqueued on `stream`, does not wait;
//   - bitwise_and(a, b, stream) (and a & b, a | b, a ^ b): the result compressed on the device
//     by bitplane::cuda::encode (bitplane/cuda/encode.hpp) into a new device_vector: its
//     blocks are those of bitplane::vector<T> built from the result's values (the full
//     encoder; the CPU's operators re-encode plain blocks from their planes without the
//     transform search, so their bytes may differ, never their values). Waits for `stream`
//     as encode() does.
// Host header; link bitplane::cuda.
#pragma once

#include <bitplane/cuda/device_vector.hpp>

namespace bitplane::cuda {

namespace detail {
enum class bitwise_op : unsigned { and_op = 0, or_op = 1, xor_op = 2, andnot_op = 3 };
void bitwise_blocks(const device_blocks& a, const device_blocks& b, bitwise_op op, std::uint32_t* device_out,
                    stream_t stream);
/// a op b, encoded on the device.
device_blocks bitwise_encoded(const device_blocks& a, const device_blocks& b, bitwise_op op, stream_t stream);
}  // namespace detail

template <column_value T>
void bitwise_and(const device_vector<T>& a, const device_vector<T>& b, T* device_out, stream_t stream = nullptr) {
    detail::bitwise_blocks(a.blocks(), b.blocks(), detail::bitwise_op::and_op, reinterpret_cast<std::uint32_t*>(device_out), stream);
}
template <column_value T>
void bitwise_or(const device_vector<T>& a, const device_vector<T>& b, T* device_out, stream_t stream = nullptr) {
    detail::bitwise_blocks(a.blocks(), b.blocks(), detail::bitwise_op::or_op, reinterpret_cast<std::uint32_t*>(device_out), stream);
}
template <column_value T>
void bitwise_xor(const device_vector<T>& a, const device_vector<T>& b, T* device_out, stream_t stream = nullptr) {
    detail::bitwise_blocks(a.blocks(), b.blocks(), detail::bitwise_op::xor_op, reinterpret_cast<std::uint32_t*>(device_out), stream);
}
/// a AND NOT b.
template <column_value T>
void bitwise_andnot(const device_vector<T>& a, const device_vector<T>& b, T* device_out, stream_t stream = nullptr) {
    detail::bitwise_blocks(a.blocks(), b.blocks(), detail::bitwise_op::andnot_op, reinterpret_cast<std::uint32_t*>(device_out),
                           stream);
}

// ---- results compressed on the device ----------------------------------------------------------

template <column_value T>
[[nodiscard]] device_vector<T> bitwise_and(const device_vector<T>& a, const device_vector<T>& b,
                                           stream_t stream = nullptr) {
    return device_vector<T>(detail::bitwise_encoded(a.blocks(), b.blocks(), detail::bitwise_op::and_op, stream));
}
template <column_value T>
[[nodiscard]] device_vector<T> bitwise_or(const device_vector<T>& a, const device_vector<T>& b,
                                          stream_t stream = nullptr) {
    return device_vector<T>(detail::bitwise_encoded(a.blocks(), b.blocks(), detail::bitwise_op::or_op, stream));
}
template <column_value T>
[[nodiscard]] device_vector<T> bitwise_xor(const device_vector<T>& a, const device_vector<T>& b,
                                           stream_t stream = nullptr) {
    return device_vector<T>(detail::bitwise_encoded(a.blocks(), b.blocks(), detail::bitwise_op::xor_op, stream));
}
/// a AND NOT b.
template <column_value T>
[[nodiscard]] device_vector<T> bitwise_andnot(const device_vector<T>& a, const device_vector<T>& b,
                                              stream_t stream = nullptr) {
    return device_vector<T>(detail::bitwise_encoded(a.blocks(), b.blocks(), detail::bitwise_op::andnot_op, stream));
}

/// The same on the default stream.
template <column_value T>
[[nodiscard]] device_vector<T> operator&(const device_vector<T>& a, const device_vector<T>& b) {
    return bitwise_and(a, b);
}
template <column_value T>
[[nodiscard]] device_vector<T> operator|(const device_vector<T>& a, const device_vector<T>& b) {
    return bitwise_or(a, b);
}
template <column_value T>
[[nodiscard]] device_vector<T> operator^(const device_vector<T>& a, const device_vector<T>& b) {
    return bitwise_xor(a, b);
}

}  // namespace bitplane::cuda
