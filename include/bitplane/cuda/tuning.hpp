// Launch parameters of bitplane's CUDA kernels, per device and data-size range: built-in
// defaults, replaced by the table that bitplane-tune writes (JSON keyed by device name, named by
// the environment variable BITPLANE_CUDA_TUNING or loaded with load_table), or forced for every
// size (the tuner's sweep, tests). Host header, C++17-clean, no CUDA header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace bitplane::cuda::tuning {

/// How dot multiplies two full, narrow (< 16 planes), interleaved all-raw blocks.
enum class dot_method : int {
    popcount = 0,  ///< per lane, popcount(A_j AND B_k) over plane pairs (CUDA cores)
    mma = 1,       ///< the plane-pair counts as a 1-bit tensor-core product (mma .b1 AND.popc)
};

struct launch_params {
    int dot_method = static_cast<int>(dot_method::mma);
    int dot_ctas_per_sm = 3;          // dot kernel CTAs (4 warps each) per multiprocessor
    int dot_values_ctas_per_sm = 2;   // CTAs of 256 threads for pairs that must be decoded
    int sum_ctas_per_sm = 4;
    int decode_ctas_per_sm = 8;
    int scan_ctas_per_sm = 8;         // scans, bitwise and bitset kernels
    int streams = 4;                  // transfer pipeline
    std::size_t batch_bytes = std::size_t{8} << 20;  // payload bytes per batch and operand
};

/// The parameters for work over `blocks` blocks on the current device (table or defaults, or
/// the forced set). Throws bitplane::cuda_error when the device cannot be queried.
[[nodiscard]] launch_params params_for(std::uint64_t blocks);

/// Uses `p` for every size until unforce() (process-wide; the tuner's sweep, tests).
void force(const launch_params& p);
void unforce();

/// Loads a table file for the current device (replacing BITPLANE_CUDA_TUNING's); returns the
/// number of size ranges read for this device (0: none, defaults apply).
std::size_t load_table(const std::string& path);

/// The name the tables are keyed by (cudaDeviceProp::name of the current device).
[[nodiscard]] std::string current_device_name();

}  // namespace bitplane::cuda::tuning
