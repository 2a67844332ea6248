// Runtime choice of the kernel table (see include/bitplane/simd.hpp).
//
// The CPU is probed once (xsimd::available_architectures(), cached in a function-local
// static). The first call of active_kernels() picks the path: BITPLANE_SIMD if set, else the
// best the CPU runs. That choice, or a later set_simd_path, is one atomic pointer store; every
// kernel call afterwards costs one atomic load.
#include "simd/kernels.hpp"

#include <bitplane/error.hpp>
#include <bitplane/simd.hpp>

#include <atomic>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#if defined(BITPLANE_X86)
#include <xsimd/xsimd.hpp>
#endif

namespace bitplane {
namespace {

struct cpu_features {
    bool sse2 = false;
    bool avx2 = false;
    bool avx512 = false;  // AVX-512 F + BW + VBMI + VPOPCNTDQ and GFNI (kernels_avx512.cpp)
};

cpu_features probe_cpu() noexcept {
    cpu_features f;
#if defined(BITPLANE_X86)
    const auto arch = xsimd::available_architectures();
    f.sse2 = arch.sse2 != 0;
    f.avx2 = arch.avx2 != 0;
#if defined(__GNUC__)
    // The AVX2 unit is also built with -mpopcnt -mbmi -mbmi2, which xsimd 8.1 does not report, and
    // xsimd 8.1 reads the AVX2 CPUID bit without asking the OS (XGETBV) whether it saves the
    // YMM registers; libgcc's probe checks all of that.
    __builtin_cpu_init();
    f.avx2 = f.avx2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") &&
             __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
    // libgcc also checks XCR0 for the ZMM state before it reports any AVX-512 feature.
    f.avx512 = f.avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vpopcntdq") &&
               __builtin_cpu_supports("gfni");
#endif
#endif
    return f;
}

const cpu_features& cpu() noexcept {
    static const cpu_features features = probe_cpu();
    return features;
}

// Whether this build has the path (only scalar off x86) and this CPU can run it.
bool usable(simd_path path) noexcept {
    switch (path) {
        case simd_path::scalar: return true;
#if defined(BITPLANE_X86)
        case simd_path::sse2: return cpu().sse2;
        case simd_path::avx2: return cpu().avx2;
        case simd_path::avx512: return cpu().avx512;
#endif
        default: return false;
    }
}

const detail::kernel_table& table_for(simd_path path) noexcept {
    switch (path) {
#if defined(BITPLANE_X86)
        case simd_path::sse2: return detail::sse2_kernels();
        case simd_path::avx2: return detail::avx2_kernels();
        case simd_path::avx512: return detail::avx512_kernels();
#endif
        default: return detail::scalar_kernels();
    }
}

simd_path best_path() noexcept {
    if (usable(simd_path::avx512)) return simd_path::avx512;
    if (usable(simd_path::avx2)) return simd_path::avx2;
    if (usable(simd_path::sse2)) return simd_path::sse2;
    return simd_path::scalar;
}

// The path named by BITPLANE_SIMD, or the best one when it is unset or empty.
simd_path initial_path() {
    const char* env = std::getenv("BITPLANE_SIMD");
    if (env == nullptr || *env == '\0') {
        return best_path();
    }
    const std::string_view name(env);
    simd_path path{};
    try {
        path = parse_simd_path(name);
    } catch (const argument_error&) {
        throw argument_error("BITPLANE_SIMD='" + std::string(name) +
                             "' is not a SIMD path (expected scalar, sse2, avx2 or avx512)");
    }
    if (!usable(path)) {
        throw argument_error("BITPLANE_SIMD='" + std::string(name) +
                             "': this build or CPU cannot run that path");
    }
    return path;
}

using detail::active_table;

}  // namespace

namespace detail {

std::atomic<const kernel_table*> active_table{nullptr};

// Cold path of active_kernels(): decided once; a bad BITPLANE_SIMD throws here, at every use,
// until set_simd_path installs a path explicitly.
const kernel_table& first_kernels_use() {
    const detail::kernel_table* chosen = &table_for(initial_path());
    const detail::kernel_table* expected = nullptr;
    if (active_table.compare_exchange_strong(expected, chosen, std::memory_order_acq_rel)) {
        return *chosen;
    }
    return *expected;  // another thread (or set_simd_path) got there first
}

}  // namespace detail

std::string_view to_string(simd_path path) noexcept {
    switch (path) {
        case simd_path::scalar: return "scalar";
        case simd_path::sse2: return "sse2";
        case simd_path::avx2: return "avx2";
        case simd_path::avx512: return "avx512";
    }
    return "unknown";
}

simd_path parse_simd_path(std::string_view name) {
    for (const simd_path path : {simd_path::scalar, simd_path::sse2, simd_path::avx2, simd_path::avx512}) {
        if (name == to_string(path)) {
            return path;
        }
    }
    throw argument_error("unknown SIMD path '" + std::string(name) + "' (expected scalar, sse2, avx2 or avx512)");
}

std::vector<simd_path> available_simd_paths() {
    std::vector<simd_path> paths;
    for (const simd_path path : {simd_path::scalar, simd_path::sse2, simd_path::avx2, simd_path::avx512}) {
        if (usable(path)) {
            paths.push_back(path);
        }
    }
    return paths;
}

simd_path active_simd_path() {
    return detail::active_kernels().path;
}

void set_simd_path(simd_path path) {
    if (!usable(path)) {
        throw argument_error("SIMD path '" + std::string(to_string(path)) +
                             "' is not available (this build or CPU lacks it)");
    }
    active_table.store(&table_for(path), std::memory_order_release);
}

}  // namespace bitplane
