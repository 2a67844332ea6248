// bitplane_cuda_encode_bench [min_log2 = 16] [max_log2 = 26] [csv path]: run_encode_benchmarks
// alone (bitplane_cuda_bench calls it too once wired in). Exit 1 on a mismatch, 77 without a GPU.
#include "bench_encode.hpp"

#include <bitplane/cuda/device.hpp>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    if (bitplane::cuda::device_count() == 0) {
        std::fprintf(stderr, "no CUDA device\n");
        return 77;
    }
    const int min_log2 = argc > 1 ? std::atoi(argv[1]) : 16;
    const int max_log2 = argc > 2 ? std::atoi(argv[2]) : 26;
    std::FILE* csv = argc > 3 ? std::fopen(argv[3], "w") : nullptr;
    if (csv) std::fprintf(csv, "values,operation,variant,seconds,GBps,note\n");
    const bool ok = run_encode_benchmarks(min_log2, max_log2, csv);
    if (csv) std::fclose(csv);
    return ok ? 0 : 1;
}
