// Host entry points of bitplane's CUDA part (include/bitplane/cuda/device.hpp): device queries,
// and the launch logic of the block transpose (kernels in cuda/kernels/).
#include <bitplane/cuda/device.hpp>
#include <bitplane/error.hpp>

#include "kernels/transpose.cuh"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace bitplane::cuda {
namespace {

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw cuda_error(std::string("bitplane::cuda::") + what + ": " + cudaGetErrorName(status) +
                         ": " + cudaGetErrorString(status));
}

/// Device memory owned for the duration of one call.
class device_buffer {
public:
    explicit device_buffer(std::size_t bytes) { check(cudaMalloc(&data_, bytes), "cudaMalloc"); }
    ~device_buffer() { cudaFree(data_); }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;
    [[nodiscard]] std::uint32_t* get() const noexcept { return static_cast<std::uint32_t*>(data_); }

private:
    void* data_ = nullptr;
};

constexpr std::size_t block_words = 2048;

}  // namespace

int device_count() noexcept {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();  // clear the error so that later calls do not report it
        return 0;
    }
    return count;
}

std::string device_name(int device) {
    cudaDeviceProp properties{};
    const cudaError_t status = cudaGetDeviceProperties(&properties, device);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        check(status, ("device_name(" + std::to_string(device) + ")").c_str());
    }
    return properties.name;
}

void transpose_blocks(const std::uint32_t* host_values, std::size_t blocks, std::uint32_t* host_planes) {
    if (blocks == 0) return;
    constexpr std::size_t blocks_per_grid_row =
        static_cast<std::size_t>(std::numeric_limits<int>::max()) / (block_words / kernels::transpose_threads);
    if (blocks > blocks_per_grid_row)
        throw size_error("bitplane::cuda::transpose_blocks: " + std::to_string(blocks) + " blocks is too many");
    const std::size_t bytes = blocks * block_words * sizeof(std::uint32_t);

    device_buffer values(bytes);
    device_buffer planes(bytes);
    check(cudaMemcpy(values.get(), host_values, bytes, cudaMemcpyHostToDevice), "transpose_blocks: upload");
    const unsigned grid = static_cast<unsigned>(blocks * (block_words / kernels::transpose_threads));
    kernels::transpose_blocks<<<grid, kernels::transpose_threads>>>(values.get(), planes.get());
    check(cudaGetLastError(), "transpose_blocks: launch");
    // cudaMemcpy waits for the kernel and reports its errors.
    check(cudaMemcpy(host_planes, planes.get(), bytes, cudaMemcpyDeviceToHost), "transpose_blocks: download");
}

}  // namespace bitplane::cuda
