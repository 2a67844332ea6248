// The AVX2 kernels: kernels_impl.hpp instantiated for xsimd::avx2. Built with
// -mavx2 -mpopcnt -mbmi2; dispatch.cpp hands this table out only when the CPU (and the OS, for
// the YMM state) supports all three.
#include <xsimd/xsimd.hpp>

#if !XSIMD_WITH_AVX2
#error "kernels_avx2.cpp must be compiled with -mavx2"
#endif

#define BITPLANE_KERNEL_NS kernels_avx2
#include "simd/kernels_impl.hpp"
#include "simd/kernels_compact.hpp"

#include "simd/dot_fused.hpp"

#include <immintrin.h>

#include <cstring>

namespace bitplane::detail {

namespace kernels_avx2 {

// Prefix sums of 8 lanes: within each 128-bit half, then the low half's last sum added to
// the high half.
[[gnu::always_inline]] inline __m256i prefix_sum8(__m256i x) noexcept {
    x = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));
    x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
    const __m256i low_last = _mm256_shuffle_epi32(_mm256_permute2x128_si256(x, x, 0x08), 0xFF);
    return _mm256_add_epi32(x, low_last);
}

// 8 values at a time: decoded from delta residuals (prefix sums, the running value carried
// in a register), keyed, compared unsigned (min == self), and their sign bits gathered.
template <bool delta>
std::uint32_t test_words(const std::uint32_t* values, std::size_t words, const value_test& t, std::uint32_t* out) noexcept {
    const __m256i bias = _mm256_set1_epi32(static_cast<int>(t.bias));
    const __m256i start = _mm256_set1_epi32(static_cast<int>(t.start));
    const __m256i span = _mm256_set1_epi32(static_cast<int>(t.span));
    const __m256i step = _mm256_set1_epi32(static_cast<int>(t.step));
    const __m256i last = _mm256_set1_epi32(7);
    __m256i carry = _mm256_set1_epi32(static_cast<int>(t.first - t.step));
    for (std::size_t w = 0; w < words; ++w) {
        std::uint32_t bits = 0;
        for (std::size_t q = 0; q < 4; ++q) {
            __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(values + 32 * w + 8 * q));
            if constexpr (delta) {
                // Only one add per 8 values waits on the previous ones.
                const __m256i sums = prefix_sum8(_mm256_add_epi32(v, step));
                v = _mm256_add_epi32(sums, carry);
                carry = _mm256_add_epi32(carry, _mm256_permutevar8x32_epi32(sums, last));
            }
            const __m256i key = _mm256_sub_epi32(_mm256_xor_si256(v, bias), start);
            const __m256i pass = _mm256_cmpeq_epi32(_mm256_min_epu32(key, span), key);
            bits |= static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(pass))) << (8 * q);
        }
        out[w] = bits ^ t.flip;
    }
    return static_cast<std::uint32_t>(_mm256_cvtsi256_si32(carry));  // the last value decoded (all lanes)
}

void test_values(const std::uint32_t* values, std::size_t count, const value_test* test, std::uint32_t* out) noexcept {
    const std::size_t full = count / 32;
    const std::uint32_t last = test->delta ? test_words<true>(values, full, *test, out)
                                           : test_words<false>(values, full, *test, out);
    if (full == plane_words) return;
    // The last partial word and the empty ones after it; a delta block's running value
    // continues from the last one decoded.
    value_test rest = *test;
    if (test->delta && full != 0) rest.first = last + test->step;
    test_values_portable(values + 32 * full, count - 32 * full, &rest, out + full, plane_words - full);
}

// 16 values a round, as two prefix sums of 8 that do not wait on each other: the running
// value joins each by one add, and moves on by the sums' last lanes (broadcast), so the chain
// from round to round is two adds, not a prefix sum.
void delta_decode(std::uint32_t* values, std::size_t count, std::uint32_t first, std::uint32_t step) noexcept {
    const __m256i steps = _mm256_set1_epi32(static_cast<int>(step));
    const __m256i last = _mm256_set1_epi32(7);
    __m256i carry = _mm256_set1_epi32(static_cast<int>(first - step));
    std::size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        auto* p = reinterpret_cast<__m256i*>(values + i);
        const __m256i a = prefix_sum8(_mm256_add_epi32(_mm256_loadu_si256(p), steps));
        const __m256i b = prefix_sum8(_mm256_add_epi32(_mm256_loadu_si256(p + 1), steps));
        const __m256i mid = _mm256_add_epi32(carry, _mm256_permutevar8x32_epi32(a, last));
        _mm256_storeu_si256(p, _mm256_add_epi32(a, carry));
        _mm256_storeu_si256(p + 1, _mm256_add_epi32(b, mid));
        carry = _mm256_add_epi32(mid, _mm256_permutevar8x32_epi32(b, last));
    }
    const auto previous = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(carry));  // the last value decoded
    delta_decode_portable(values + i, count - i, previous + step, step);
}

// For each byte m of a non-zero mask, the dword permutation that spreads the next popcount(m)
// stored values onto the set bits of m: lane j takes stored value "set bits of m below j", or
// -1 where bit j is clear (its sign bit then selects zero). A table, not pdep: pdep is
// microcoded on Zen 2, an AVX2 CPU this path serves.
struct expand_table {
    std::int8_t index[256][8];
};

constexpr expand_table make_expand_table() noexcept {
    expand_table t{};
    for (unsigned m = 0; m < 256; ++m) {
        std::int8_t k = 0;
        for (unsigned j = 0; j < 8; ++j) t.index[m][j] = ((m >> j) & 1u) != 0 ? k++ : std::int8_t{-1};
    }
    return t;
}

alignas(64) constexpr expand_table expand_indices = make_expand_table();

// 8 values a step, branch-free: a sparse block's scatter loop took a store and a branch per
// set bit and mispredicted at the end of every mask word.
void expand_nonzero(const std::uint32_t* stored, std::size_t readable, const std::uint32_t* mask, std::size_t count,
                    std::uint32_t* values) noexcept {
    std::size_t next = 0;
    std::size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const std::uint32_t m = (mask[i / 32] >> (i % 32)) & 0xFFu;
        const __m256i index =
            _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(expand_indices.index[m])));
        __m256i v;
        if (next + 8 <= readable) {
            v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(stored + next));
        } else {
            alignas(32) std::uint32_t rest[8] = {};
            for (std::size_t k = 0; next + k < readable && k < 8; ++k) rest[k] = stored[next + k];
            v = _mm256_load_si256(reinterpret_cast<const __m256i*>(rest));
        }
        v = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(v, index), _mm256_setzero_si256(), index);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(values + i), v);
        next += static_cast<std::size_t>(_mm_popcnt_u32(m));
    }
    for (; i < count; ++i) {
        const bool set = ((mask[i / 32] >> (i % 32)) & 1u) != 0;
        values[i] = set ? stored[next++] : 0u;
    }
}

// kernel_table::deposit_plane two mask words at a time: where they hold at most 32 set bits
// (the window always holds 32 compact bits or more), one 64-bit deposit; else the two words
// as the 32-bit loop does them (kernels_codec.hpp's deposit_plane, which the other paths
// keep). A sparse mask's pair of words is nearly always the first case: ~14 -> ~7
// instructions a mask word, the mask a sparse AND result keeps (~870 -> ~450 instructions a
// block of uniform 10-bit AND a 90%-sparse column, callgrind) and every spread of a sparse
// operand's planes (OR, XOR, AND-NOT).
void deposit_plane(const std::uint32_t* compact, const std::uint32_t* mask, std::uint32_t* out) noexcept {
    std::uint64_t window = compact[0] | static_cast<std::uint64_t>(compact[1]) << 32;
    std::uint32_t filled = 64;  // bits in the window (at least 32 while compact words are left)
    std::size_t next = 2;       // the next compact word to load
    const auto take = [&](std::uint32_t n) {  // n <= 32
        window >>= n;
        filled -= n;
        if (filled <= 32 && next < plane_words) {
            window |= static_cast<std::uint64_t>(compact[next++]) << filled;
            filled += 32;
        }
    };
    for (std::size_t w = 0; w < plane_words; w += 2) {
        std::uint64_t m;
        std::memcpy(&m, mask + w, 8);
        const auto n = static_cast<std::uint32_t>(_mm_popcnt_u64(m));
        if (n <= 32) {
            const std::uint64_t bits = _pdep_u64(window, m);
            std::memcpy(out + w, &bits, 8);  // little-endian: word w, then w + 1
            take(n);
        } else {
            const auto low = static_cast<std::uint32_t>(m);
            const auto high = static_cast<std::uint32_t>(m >> 32);
            out[w] = _pdep_u32(static_cast<std::uint32_t>(window), low);
            take(static_cast<std::uint32_t>(_mm_popcnt_u32(low)));
            out[w + 1] = _pdep_u32(static_cast<std::uint32_t>(window), high);
            take(static_cast<std::uint32_t>(_mm_popcnt_u32(high)));
        }
    }
}

void extract_planes(const std::uint8_t* words, std::size_t column_stride, std::size_t plane_stride, std::uint32_t live,
                    const std::uint32_t* select, std::size_t columns, std::uint32_t* out) noexcept {
    // The 64-bit pext of the zero-extended words: its result is 64 bits already, so the
    // window's shift takes it without the zero-extending move a 32-bit pext's result needs
    // (one instruction a plane word of ~5: AND of uniform 10-bit with a 90%-sparse column).
    extract_planes_with(words, column_stride, plane_stride, live, select, columns, out,
                        [](std::uint32_t bits, std::uint32_t mask) -> std::uint64_t { return _pext_u64(bits, mask); });
}

}  // namespace kernels_avx2

const kernel_table& avx2_kernels() noexcept {
    static constexpr kernel_table table = [] {
        kernel_table t = kernels_avx2::make_table<xsimd::avx2>(simd_path::avx2);
        t.test_values = &kernels_avx2::test_values;
        t.equal_interleaved = &kernels_avx2::equal_interleaved;  // kernels_scan.hpp (AVX-512: rows of 9+ its own)
        t.pack_marks = &kernels_avx2::pack_marks;                // kernels_scan.hpp (AVX-512 inherits it)
        t.pack_marks_count = &kernels_avx2::pack_marks_count;    // kernels_scan.hpp (AVX-512 inherits it)
        t.narrow_planes = &kernels_avx2::narrow_planes;          // kernels_scan.hpp (AVX-512: its own)
        t.narrow_planes_count = &kernels_avx2::narrow_planes_count;  // kernels_scan.hpp (AVX-512: its own)
        t.extract_planes = &kernels_avx2::extract_planes;
        t.deposit_plane = &kernels_avx2::deposit_plane;
        t.delta_decode = &kernels_avx2::delta_decode;
        t.expand_nonzero = &kernels_avx2::expand_nonzero;
        t.interleaved_dot = &dot_fused_avx2::interleaved_dot;  // simd/dot_fused_avx2.cpp
        return t;
    }();
    return table;
}

}  // namespace bitplane::detail
