// Host entry of the GPU transpose + Hamming matrix (include/bitplane/cuda/encode.hpp).
#include <bitplane/cuda/encode.hpp>

#include "dispatch.hpp"

namespace bitplane::cuda {

void transpose_hamming(const std::uint32_t* device_values, std::size_t blocks, std::uint32_t* device_planes,
                       std::uint16_t* device_hamming, stream_t stream) {
    dispatch::enqueue_transpose_hamming(device_values, blocks, device_planes, device_hamming,
                                        reinterpret_cast<cudaStream_t>(stream));
}

}  // namespace bitplane::cuda
