// Element-wise bitwise operations of two device_vectors of equal size (size_error otherwise),
// as bitplane/bitwise.hpp on the host, with the result as dense values in caller-provided
// device memory (size() values of T): both blocks are decoded in shared memory and combined.
// Re-encoding the result on the GPU is not written (upload a host vector to get one back).
// Enqueued on `stream`; they do not wait. Host header; link bitplane::cuda.
#pragma once

#include <bitplane/cuda/device_vector.hpp>

namespace bitplane::cuda {

namespace detail {
enum class bitwise_op : unsigned { and_op = 0, or_op = 1, xor_op = 2, andnot_op = 3 };
void bitwise_blocks(const device_blocks& a, const device_blocks& b, bitwise_op op, std::uint32_t* device_out,
                    stream_t stream);
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

}  // namespace bitplane::cuda
