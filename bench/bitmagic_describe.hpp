// "BitMagic <version>, <SIMD code in use>" for the benchmarks' BitMagic sides
// (corpus_bitmagic.cpp, bitset_peer_bitmagic.cpp), which alone include BitMagic.
#pragma once

#include <bm.h>

#include <string>

namespace bench_bitmagic {

inline std::string describe() {
    const int simd = bm::simd_version();
    return std::string("BitMagic ") + std::to_string(BM_VERSION_MAJOR) + "." + std::to_string(BM_VERSION_MINOR) + "." +
           std::to_string(BM_VERSION_PATCH) + ", " +
           (simd == bm::simd_avx2 ? "AVX2" : "SIMD code " + std::to_string(simd));
}

}  // namespace bench_bitmagic
