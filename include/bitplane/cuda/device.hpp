// bitplane's CUDA part, host side: device queries and the block transpose on the GPU.
// Link bitplane::cuda (built when CMake finds a CUDA compiler, see BITPLANE_CUDA). This
// header includes no CUDA header, so plain C++ code can use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace bitplane::cuda {

/// Number of CUDA devices; 0 when there is none or no usable driver. Never throws.
[[nodiscard]] int device_count() noexcept;

/// The name of device `device` (0 .. device_count() - 1). Throws bitplane::cuda_error with
/// CUDA's message when the device does not exist or the runtime fails.
[[nodiscard]] std::string device_name(int device);

/// Transposes `blocks` full blocks of 2048 values into their bit-planes on the current device,
/// with the layout of bitplane/block.hpp: host_planes[2048 * k + 64 * j + c], bit b, is bit j
/// of host_values[2048 * k + 32 * c + b]. Both arrays hold 2048 * blocks words.
/// Uploads, runs one kernel and downloads; returns when host_planes is written (synchronous).
/// Does nothing when blocks == 0. Throws bitplane::cuda_error when a CUDA call fails, and
/// bitplane::size_error when the sizes overflow.
void transpose_blocks(const std::uint32_t* host_values, std::size_t blocks, std::uint32_t* host_planes);

}  // namespace bitplane::cuda
