// value_reader.hpp compiled with -mavx2 -mpopcnt -mbmi2 (src/CMakeLists.txt): the random-read
// path that block_reader.cpp's read_value takes when the active SIMD path is avx2 or avx512.
#define BITPLANE_READER_NS reader_avx2
#include "value_reader.hpp"

namespace bitplane::detail {

std::uint32_t read_value_avx2(const block_descriptor& d, const std::byte* block, std::uint32_t index,
                              const std::uint32_t* checkpoints, const std::uint32_t* skips, const std::uint32_t* plan) noexcept {
    return reader_avx2::read_value(d, block, index, checkpoints, skips, plan);
}

}  // namespace bitplane::detail
