// What lets the encoder's decisions and its byte writer be compiled twice: for the CPU and, in
// cuda/encode.cu, for the GPU (the same functions, so that both write the same bytes).
// Functions marked BITPLANE_HOST_DEVICE may only call each other and these helpers: no
// exceptions, no C++20 library calls that nvcc's device code lacks (<bit>), no memcpy.
// On the host every helper is the standard call it replaces, so CPU code compiles as before.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define BITPLANE_HOST_DEVICE __host__ __device__
// Before a host+device template that calls its argument's functions: the GPU's planner is
// device-only, the CPU's host-only, and each instantiation is used on its own side only.
#define BITPLANE_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#define BITPLANE_HOST_DEVICE
#define BITPLANE_EXEC_CHECK_DISABLE
#endif

namespace bitplane::detail {

BITPLANE_HOST_DEVICE inline std::uint32_t popcount32(std::uint32_t x) noexcept {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint32_t>(__popc(x));
#else
    return static_cast<std::uint32_t>(std::popcount(x));
#endif
}

/// Trailing zeros of x; 32 for x == 0.
BITPLANE_HOST_DEVICE inline std::uint32_t countr_zero32(std::uint32_t x) noexcept {
#if defined(__CUDA_ARCH__)
    return x == 0 ? 32u : static_cast<std::uint32_t>(__ffs(static_cast<int>(x)) - 1);
#else
    return static_cast<std::uint32_t>(std::countr_zero(x));
#endif
}

/// Leading zeros of x; 32 for x == 0.
BITPLANE_HOST_DEVICE inline std::uint32_t countl_zero32(std::uint32_t x) noexcept {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint32_t>(__clz(static_cast<int>(x)));
#else
    return static_cast<std::uint32_t>(std::countl_zero(x));
#endif
}

BITPLANE_HOST_DEVICE inline std::uint32_t countr_one32(std::uint32_t x) noexcept { return countr_zero32(~x); }

BITPLANE_HOST_DEVICE inline std::uint32_t bit_width32(std::uint32_t x) noexcept { return 32u - countl_zero32(x); }

BITPLANE_HOST_DEVICE constexpr std::uint32_t min32(std::uint32_t a, std::uint32_t b) noexcept { return a < b ? a : b; }
BITPLANE_HOST_DEVICE constexpr std::uint32_t max32(std::uint32_t a, std::uint32_t b) noexcept { return a > b ? a : b; }

/// Stores `value` little-endian at any alignment (a plain store on x86-64; bytes on the GPU,
/// whose stores must be aligned).
template <class T>
BITPLANE_HOST_DEVICE inline void put_le(std::byte* p, T value) noexcept {
#if defined(__CUDA_ARCH__)
    for (unsigned i = 0; i < sizeof(T); ++i) p[i] = static_cast<std::byte>(static_cast<std::uint64_t>(value) >> (8 * i));
#else
    std::memcpy(p, &value, sizeof(T));
#endif
}

/// The first `bytes` bytes of the little-endian words `words` (a raw plane payload).
BITPLANE_HOST_DEVICE inline void put_words_le(std::byte* p, const std::uint32_t* words, std::uint32_t bytes) noexcept {
#if defined(__CUDA_ARCH__)
    for (std::uint32_t i = 0; i < bytes; ++i) p[i] = static_cast<std::byte>(words[i / 4] >> (8 * (i % 4)));
#else
    std::memcpy(p, words, bytes);
#endif
}

/// Stable insertion sort of a few elements by `less` (std::stable_sort's result; no
/// allocation, callable on the GPU). For the encoder's at most 32 keys and 4 transforms.
template <class T, class Less>
BITPLANE_HOST_DEVICE inline void sort_small(T* first, std::uint32_t count, Less less) noexcept {
    for (std::uint32_t i = 1; i < count; ++i) {
        T x = first[i];
        std::uint32_t j = i;
        for (; j > 0 && less(x, first[j - 1]); --j) first[j] = first[j - 1];
        first[j] = x;
    }
}

template <class T>
BITPLANE_HOST_DEVICE inline void swap_values(T& a, T& b) noexcept {
    T t = a;
    a = b;
    b = t;
}

}  // namespace bitplane::detail
