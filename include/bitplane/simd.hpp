// Runtime choice of the SIMD code path. Each kernel is compiled once per instruction set;
// the best path the CPU supports is picked on first use. The environment variable
// BITPLANE_SIMD=scalar|sse2|avx2|avx512 forces a path (an unsupported one is an argument_error at
// first use), and tests call `set_simd_path` to run every path.
#pragma once

#include <string_view>
#include <vector>

namespace bitplane {

/// avx512: the avx2 kernels with the bit-matrix transposes done by AVX-512 VBMI byte permutes
/// and GFNI affine instructions (needs AVX-512 F, BW, VBMI, VPOPCNTDQ and GFNI: Ice Lake, Zen 4 and later).
enum class simd_path { scalar, sse2, avx2, avx512 };

/// Name of a path: "scalar", "sse2", "avx2", "avx512".
[[nodiscard]] std::string_view to_string(simd_path path) noexcept;

/// Parses a path name; throws argument_error for an unknown name.
[[nodiscard]] simd_path parse_simd_path(std::string_view name);

/// Paths this CPU can run, scalar first.
[[nodiscard]] std::vector<simd_path> available_simd_paths();

/// The path in use now.
[[nodiscard]] simd_path active_simd_path();

/// Switches every kernel to `path`. Throws argument_error if the CPU cannot run it.
/// Not synchronized with kernels running on other threads: call it before starting them.
void set_simd_path(simd_path path);

}  // namespace bitplane
