#include <bitplane/bitplane.hpp>
#include <bitplane/cuda/device.hpp>
#include <bitplane/cuda/device_vector.hpp>
#include <bitplane/cuda/exec.hpp>

#include <cuda_runtime.h>  // only for the stream and the device buffer of decode()

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    if (bitplane::cuda::device_count() == 0) {  // cudaGetDeviceCount found none (or no driver)
        std::printf("gpu_example: no CUDA device here, skipped\n");
        return 77;  // the test's SKIP_RETURN_CODE
    }
    bitplane::vector<std::uint32_t> a, b;
    for (std::uint32_t i = 0; i < 1'000'000; ++i) {
        a.push_back(i * 7 % 1000);  // 10-bit values
        b.push_back(i % 5);         // 3-bit values
    }
    cudaStream_t stream = nullptr;
    std::uint32_t* device_values = nullptr;  // room for decode()
    if (cudaStreamCreate(&stream) != cudaSuccess ||
        cudaMalloc(&device_values, a.size() * sizeof(std::uint32_t)) != cudaSuccess)
        return 1;

    bitplane::cuda::device_vector<std::uint32_t> da(a, stream), db(b, stream);  // blocks copied, not decoded
    const bitplane::uint128 d = bitplane::cuda::dot(da, db, stream);             // exact; waits for the stream
    const bitplane::uint128 s = bitplane::cuda::sum(da, stream);
    da.decode(device_values, stream);  // dense values on the device, for your own kernels
    std::vector<std::uint32_t> values(a.size());
    const bool copied = cudaMemcpyAsync(values.data(), device_values, a.size() * sizeof(std::uint32_t),
                                        cudaMemcpyDeviceToHost, stream) == cudaSuccess;
    const bitplane::vector<std::uint32_t> back = da.download(stream);  // the blocks again: == a

    bitplane::cuda::pinned_vector<std::uint32_t> pa(a), pb(b);         // host copy in pinned memory
    const bitplane::uint128 t = bitplane::cuda::dot(pa, pb);           // streamed to the GPU, overlapped
    const bitplane::uint128 h = bitplane::cuda::dot(bitplane::exec::hybrid, a, b);  // CPU share + GPU share

    const bool synced = cudaStreamSynchronize(stream) == cudaSuccess;
    cudaFree(device_values);
    cudaStreamDestroy(stream);
    const bool ok = d == bitplane::dot(a, b) && s == bitplane::sum(a) && copied && synced &&
                    values == a.to_std_vector() && back == a && t == d && h == d;
    std::printf("on %s: dot %s, sum %s, %s\n", bitplane::cuda::device_name(0).c_str(), bitplane::to_string(d).c_str(),
                bitplane::to_string(s).c_str(), ok ? "as on the CPU" : "DIFFERENT FROM THE CPU");
    return ok ? 0 : 1;
}
