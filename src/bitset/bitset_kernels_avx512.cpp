// The AVX-512 whole-block kernels: the AVX2 table (bitset_kernels_avx2.cpp) with the kernels
// that count a block's set bits and transitions replaced by ones on 512-bit registers with
// VPOPCNTQ. AVX2 counts bits by a nibble lookup (nine instructions a register, for the bits
// and again for the transitions): the stats of a scan's raw result block were 14.9% of
// bed_strand's find_eq time and 4.8% of bam_ref_span's (perf, stop 34), for every block a
// scan hands to bitset_builder::set_block and every block of a bitset AND, OR, XOR or NOT.
// Where the CPU has AVX-512 VBMI2, extract_positions too (below).
//
// As in the AVX2 file, a target region instead of per-file flags (src/CMakeLists.txt picks
// up src/bitset/*.cpp without them); every header is included before the region, and the
// table is only handed out where the SIMD path is avx512, which the dispatcher
// (simd/dispatch.cpp) allows only on CPUs with AVX-512 F, BW and VPOPCNTDQ (and AVX2).
#if defined(BITPLANE_X86)

#include "bitset/bitset_kernels.hpp"

// GCC 12 reports the intrinsics' own _mm512_undefined_* pass-through operands as (maybe)
// uninitialized: a false positive inside avx512fintrin.h once inlined here (as in
// simd/kernels_avx512.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,popcnt,avx512f,avx512bw,avx512vpopcntdq"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,popcnt,avx512f,avx512bw,avx512vpopcntdq")
#endif

namespace bitplane::detail {
namespace {

// r XOR (r shifted up one bit across the whole block): `previous` is the register before r
// (zero before the first), whose top 64-bit lane feeds r's bit 0.
inline __m512i transitions_of(__m512i r, __m512i previous) {
    const __m512i below = _mm512_alignr_epi64(r, previous, 7);  // lane i = r lane i-1, lane 0 = previous lane 7
    return _mm512_xor_si512(r, _mm512_or_si512(_mm512_slli_epi64(r, 1), _mm512_srli_epi64(below, 63)));
}

inline __m512i load(const void* p, int i) { return _mm512_loadu_si512(static_cast<const char*>(p) + 64 * i); }
inline void store(void* p, int i, __m512i v) { _mm512_storeu_si512(static_cast<char*>(p) + 64 * i, v); }

inline block_stats finish(__m512i count, __m512i transitions) {
    return {static_cast<std::uint32_t>(_mm512_reduce_add_epi64(count)),
            static_cast<std::uint32_t>(_mm512_reduce_add_epi64(transitions))};
}

// The stats of a block held in four registers, in order. No templates or lambdas in this
// region (as in the AVX2 file): clang's target region is only sure to reach plain functions.
inline block_stats stats_of(__m512i r0, __m512i r1, __m512i r2, __m512i r3) {
    const __m512i count = _mm512_add_epi64(_mm512_add_epi64(_mm512_popcnt_epi64(r0), _mm512_popcnt_epi64(r1)),
                                           _mm512_add_epi64(_mm512_popcnt_epi64(r2), _mm512_popcnt_epi64(r3)));
    const __m512i t0 = transitions_of(r0, _mm512_setzero_si512());
    const __m512i t1 = transitions_of(r1, r0), t2 = transitions_of(r2, r1), t3 = transitions_of(r3, r2);
    const __m512i transitions = _mm512_add_epi64(_mm512_add_epi64(_mm512_popcnt_epi64(t0), _mm512_popcnt_epi64(t1)),
                                                 _mm512_add_epi64(_mm512_popcnt_epi64(t2), _mm512_popcnt_epi64(t3)));
    return finish(count, transitions);
}

// Stores the four registers of a result (all computed before any store, so `out` may be an
// operand) and returns their stats.
inline block_stats store_stats(void* out, __m512i r0, __m512i r1, __m512i r2, __m512i r3) {
    store(out, 0, r0);
    store(out, 1, r1);
    store(out, 2, r2);
    store(out, 3, r3);
    return stats_of(r0, r1, r2, r3);
}

block_stats and_blocks(const void* a, const void* b, void* out) {
    return store_stats(out, _mm512_and_si512(load(a, 0), load(b, 0)), _mm512_and_si512(load(a, 1), load(b, 1)),
                       _mm512_and_si512(load(a, 2), load(b, 2)), _mm512_and_si512(load(a, 3), load(b, 3)));
}
block_stats or_blocks(const void* a, const void* b, void* out) {
    return store_stats(out, _mm512_or_si512(load(a, 0), load(b, 0)), _mm512_or_si512(load(a, 1), load(b, 1)),
                       _mm512_or_si512(load(a, 2), load(b, 2)), _mm512_or_si512(load(a, 3), load(b, 3)));
}
block_stats xor_blocks(const void* a, const void* b, void* out) {
    return store_stats(out, _mm512_xor_si512(load(a, 0), load(b, 0)), _mm512_xor_si512(load(a, 1), load(b, 1)),
                       _mm512_xor_si512(load(a, 2), load(b, 2)), _mm512_xor_si512(load(a, 3), load(b, 3)));
}
block_stats andnot_blocks(const void* a, const void* b, void* out) {  // a AND NOT b
    return store_stats(out, _mm512_andnot_si512(load(b, 0), load(a, 0)), _mm512_andnot_si512(load(b, 1), load(a, 1)),
                       _mm512_andnot_si512(load(b, 2), load(a, 2)), _mm512_andnot_si512(load(b, 3), load(a, 3)));
}
block_stats not_block(const void* a, void* out) {
    const __m512i ones = _mm512_set1_epi64(-1);
    return store_stats(out, _mm512_xor_si512(load(a, 0), ones), _mm512_xor_si512(load(a, 1), ones),
                       _mm512_xor_si512(load(a, 2), ones), _mm512_xor_si512(load(a, 3), ones));
}
block_stats stats(const void* a) { return stats_of(load(a, 0), load(a, 1), load(a, 2), load(a, 3)); }
block_stats stats_transitions(const void* a, void* t) {
    const __m512i r0 = load(a, 0), r1 = load(a, 1), r2 = load(a, 2), r3 = load(a, 3);
    const __m512i t0 = transitions_of(r0, _mm512_setzero_si512());
    const __m512i t1 = transitions_of(r1, r0), t2 = transitions_of(r2, r1), t3 = transitions_of(r3, r2);
    store(t, 0, t0);
    store(t, 1, t1);
    store(t, 2, t2);
    store(t, 3, t3);
    const __m512i count = _mm512_add_epi64(_mm512_add_epi64(_mm512_popcnt_epi64(r0), _mm512_popcnt_epi64(r1)),
                                           _mm512_add_epi64(_mm512_popcnt_epi64(r2), _mm512_popcnt_epi64(r3)));
    const __m512i transitions = _mm512_add_epi64(_mm512_add_epi64(_mm512_popcnt_epi64(t0), _mm512_popcnt_epi64(t1)),
                                                 _mm512_add_epi64(_mm512_popcnt_epi64(t2), _mm512_popcnt_epi64(t3)));
    return finish(count, transitions);
}
std::uint32_t and_count(const void* a, const void* b) {
    __m512i count = _mm512_setzero_si512();
    for (int i = 0; i < 4; ++i) count = _mm512_add_epi64(count, _mm512_popcnt_epi64(_mm512_and_si512(load(a, i), load(b, i))));
    return static_cast<std::uint32_t>(_mm512_reduce_add_epi64(count));
}

}  // namespace
}  // namespace bitplane::detail

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

// Positions by VPCOMPRESSW (AVX-512 VBMI2: Ice Lake and later, Zen 4), handed out only where
// the CPU has it: 32 bits at a time, where the AVX2 kernel takes a table row per non-zero
// byte. Dense blocks cost a few instructions per non-zero 32-bit word. The scan builder's
// sparse extractions (run bounds of a dense result, ~60 a block in bam_ref_span find_eq
// frequent; positions below ~128 set bits) keep the AVX2 kernel (extract_sparse), faster there
// once its loop sat on one 64-byte line (bitset_kernels.hpp).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,popcnt,avx512f,avx512bw,avx512vbmi2"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,popcnt,avx512f,avx512bw,avx512vbmi2")
#endif

namespace bitplane::detail {
namespace {

std::uint32_t extract_positions_vbmi2(const void* block, std::uint16_t* out) {
    const auto* bytes = static_cast<const unsigned char*>(block);
    const __m512i lanes = _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16,  //
                                           15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    std::uint32_t n = 0;
    for (int h = 0; h < 4; ++h) {
        const __m512i v = _mm512_loadu_si512(bytes + 64 * h);
        for (unsigned m = _mm512_test_epi32_mask(v, v); m != 0; m &= m - 1) {
            const unsigned j = 16 * static_cast<unsigned>(h) + static_cast<unsigned>(__builtin_ctz(m));
            std::uint32_t word;
            std::memcpy(&word, bytes + 4 * j, 4);  // little-endian: bit k of the word is position 32 j + k
            const __m512i positions = _mm512_add_epi16(lanes, _mm512_set1_epi16(static_cast<short>(32 * j)));
            const auto c = static_cast<unsigned>(_mm_popcnt_u32(word));
            // Only the c positions are stored: nothing is written past the last.
            _mm512_mask_storeu_epi16(out + n, static_cast<__mmask32>(0xFFFFFFFFull >> (32 - c)),
                                     _mm512_maskz_compress_epi16(static_cast<__mmask32>(word), positions));
            n += c;
        }
    }
    return n;
}

}  // namespace
}  // namespace bitplane::detail

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

namespace bitplane::detail {

const bitset_kernel_table& avx512_bitset_kernels() noexcept {
    static const bitset_kernel_table table = [] {
        bitset_kernel_table t = avx2_bitset_kernels();
        t.path = simd_path::avx512;
        t.and_blocks = and_blocks;
        t.or_blocks = or_blocks;
        t.xor_blocks = xor_blocks;
        t.andnot_blocks = andnot_blocks;
        t.not_block = not_block;
        t.stats = stats;
        t.stats_transitions = stats_transitions;
        t.and_count = and_count;
        if (__builtin_cpu_supports("avx512vbmi2")) t.extract_positions = extract_positions_vbmi2;
        return t;
    }();
    return table;
}

}  // namespace bitplane::detail

#endif  // BITPLANE_X86
