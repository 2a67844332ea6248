// The AVX-512 DNA kernels (simd_path::avx512: F, BW, VBMI, VPOPCNTDQ and GFNI).
//
// What 64-byte registers change, kernel by kernel:
//   - letters -> planes: one two-register byte permute (vpermt2b) looks up the codes of 64
//     letters in the 128-entry ASCII table, and one test-into-mask (vptestmb) per plane gives
//     64 bits of that plane: every letter, not only plain ACGT, takes the vector path.
//   - planes -> letters: masked ORs build 64 codes from the plane bits, one vpermb looks the
//     letters up (codes are below 64).
//   - counts and mismatches: vpopcntq counts 512 bits an instruction (the AVX2 kernels count
//     nibbles with byte shuffles).
//   - reverse complement: vpermb reverses 64 bytes and GFNI's affine instruction reverses the
//     bits of every byte and inverts them (its constant byte) in one instruction.
//   - pattern search: the shift-and of dna_kernels_impl.hpp on 8 words a register.
// Intrinsics only, no xsimd: a template instantiated here and in the AVX2 unit would have the
// same name in both, and the linker could keep this unit's AVX-512 copy for the AVX2 path.
#if defined(BITPLANE_X86)
// GCC 12 reports the intrinsics' own _mm512_undefined_* pass-through operands as (maybe)
// uninitialized: a false positive inside avx512fintrin.h once inlined here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#if !defined(__AVX512BW__) || !defined(__AVX512VBMI__) || !defined(__AVX512VPOPCNTDQ__) || !defined(__GFNI__)
#error "dna_kernels_avx512.cpp must be compiled with -mavx512f -mavx512bw -mavx512vbmi -mavx512vpopcntdq -mgfni"
#endif

#include "dna/dna_kernels.hpp"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bitplane::dna::detail::dna_kernels_avx512 {
namespace {

constexpr std::size_t zmm_words = 16;  // 32-bit plane words per register

__m512i load(const void* p) noexcept { return _mm512_loadu_si512(p); }
void store(void* p, __m512i v) noexcept { _mm512_storeu_si512(p, v); }

std::uint64_t load_u64(const std::uint32_t* p) noexcept {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
void store_u64(std::uint32_t* p, std::uint64_t v) noexcept { std::memcpy(p, &v, 8); }

// ---- letters <-> planes --------------------------------------------------------------------

struct letter_tables {
    alignas(64) std::array<std::uint8_t, 128> code{};   // ASCII 0..127 -> code, 0xFF: no letter
    alignas(64) std::array<std::uint8_t, 64> letter{};  // code -> ASCII ('\0': no letter)
};

constexpr letter_tables make_letter_tables() {
    letter_tables t;
    for (std::size_t i = 0; i < 128; ++i) t.code[i] = to_code(static_cast<char>(i));
    for (std::size_t c = 0; c < 64; ++c) t.letter[c] = static_cast<std::uint8_t>(to_letter(static_cast<code>(c)));
    return t;
}

constexpr letter_tables tables = make_letter_tables();

bool encode_letters(const char* letters, std::size_t n, std::uint32_t* planes, std::uint32_t* nonzero) {
    const __m512i code_lo = load(tables.code.data()), code_hi = load(tables.code.data() + 64);
    const __m512i padding = _mm512_set1_epi8('A');  // code 0: sets no plane bit
    std::uint64_t seen[code_planes] = {};
    std::uint64_t bad = 0;
    for (std::size_t q = 0; q < plane_words / 2; ++q) {  // 64 letters: two words of each plane
        const std::size_t first = 64 * q;
        const std::size_t count = first >= n ? 0 : n - first < 64 ? n - first : 64;
        const __mmask64 keep = count == 64 ? ~__mmask64{0} : (__mmask64{1} << count) - 1;
        // Masked: bytes past n are neither read nor faulted on.
        const __m512i x = _mm512_mask_loadu_epi8(padding, keep, letters + first);
        // Entry x & 127 of the table; bytes >= 128 are caught by their top bit, non-letters by
        // the table's 0xFF.
        const __m512i codes = _mm512_permutex2var_epi8(code_lo, x, code_hi);
        bad |= _mm512_movepi8_mask(_mm512_or_si512(x, codes));
        for (unsigned j = 0; j < code_planes; ++j) {
            const std::uint64_t bits = _mm512_test_epi8_mask(codes, _mm512_set1_epi8(static_cast<char>(1u << j)));
            store_u64(planes + j * plane_words + 2 * q, bits);
            seen[j] |= bits;
        }
    }
    std::uint32_t mask = 0;
    for (unsigned j = 0; j < code_planes; ++j) mask |= static_cast<std::uint32_t>(seen[j] != 0) << j;
    *nonzero = bad != 0 ? 0 : mask;
    return bad == 0;
}

void decode_letters(const std::uint32_t* planes, std::uint32_t nonzero, std::size_t n, char* letters) {
    const __m512i letter = load(tables.letter.data());
    for (std::size_t q = 0; 64 * q < n; ++q) {
        __m512i c = _mm512_setzero_si512();
        for (std::uint32_t bits = nonzero; bits; bits &= bits - 1) {
            const auto j = static_cast<unsigned>(std::countr_zero(bits));
            c = _mm512_or_si512(c, _mm512_maskz_mov_epi8(load_u64(planes + j * plane_words + 2 * q),
                                                         _mm512_set1_epi8(static_cast<char>(1u << j))));
        }
        const std::size_t count = n - 64 * q < 64 ? n - 64 * q : 64;
        const __mmask64 keep = count == 64 ? ~__mmask64{0} : (__mmask64{1} << count) - 1;
        _mm512_mask_storeu_epi8(letters + 64 * q, keep, _mm512_permutexvar_epi8(c, letter));
    }
}

// ---- counts and mismatches -----------------------------------------------------------------

std::uint64_t sum_lanes(__m512i v) noexcept { return static_cast<std::uint64_t>(_mm512_reduce_add_epi64(v)); }

__m512i plane_chunk(const std::uint32_t* planes, unsigned j, std::size_t k) noexcept {
    return load(planes + j * plane_words + k * zmm_words);
}

void count_codes(const std::uint32_t* planes, std::uint32_t nonzero, std::uint64_t* out) {
    __m512i c = _mm512_setzero_si512(), g = c, t = c, special = c, n = c, gap = c, lower = c;
    if ((nonzero & ~(base_mask | lower_bit)) == 0) {  // plain bases only: three popcounts
        for (std::size_t k = 0; k < plane_words / zmm_words; ++k) {
            const __m512i a = plane_chunk(planes, 0, k), b = plane_chunk(planes, 1, k);
            c = _mm512_add_epi64(c, _mm512_popcnt_epi64(a));
            g = _mm512_add_epi64(g, _mm512_popcnt_epi64(b));
            t = _mm512_add_epi64(t, _mm512_popcnt_epi64(_mm512_and_si512(a, b)));
        }
        c = _mm512_sub_epi64(c, t);
        g = _mm512_sub_epi64(g, t);
    } else {
        for (std::size_t k = 0; k < plane_words / zmm_words; ++k) {
            const __m512i a = plane_chunk(planes, 0, k), b = plane_chunk(planes, 1, k);
            const __m512i s = plane_chunk(planes, 3, k);
            // Ternary-logic immediates are truth tables: bit 4A + 2B + C is the result for
            // operands (A, B, C). Group 0 of the specials: s & ~(p4 | p5).
            const __m512i group0 = _mm512_ternarylogic_epi64(s, plane_chunk(planes, 4, k), plane_chunk(planes, 5, k), 0x10);
            c = _mm512_add_epi64(c, _mm512_popcnt_epi64(_mm512_ternarylogic_epi64(s, a, b, 0x04)));  // ~s & a & ~b
            g = _mm512_add_epi64(g, _mm512_popcnt_epi64(_mm512_ternarylogic_epi64(s, a, b, 0x02)));  // ~s & ~a & b
            t = _mm512_add_epi64(t, _mm512_popcnt_epi64(_mm512_ternarylogic_epi64(s, a, b, 0x08)));  // ~s & a & b
            special = _mm512_add_epi64(special, _mm512_popcnt_epi64(s));
            n = _mm512_add_epi64(n, _mm512_popcnt_epi64(_mm512_ternarylogic_epi64(group0, a, b, 0x10)));    // g0 & ~a & ~b
            gap = _mm512_add_epi64(gap, _mm512_popcnt_epi64(_mm512_ternarylogic_epi64(group0, a, b, 0x80)));  // g0 & a & b
        }
    }
    if (nonzero & lower_bit)
        for (std::size_t k = 0; k < plane_words / zmm_words; ++k)
            lower = _mm512_add_epi64(lower, _mm512_popcnt_epi64(plane_chunk(planes, 2, k)));
    out[0] = sum_lanes(c);
    out[1] = sum_lanes(g);
    out[2] = sum_lanes(t);
    out[3] = sum_lanes(special);
    out[4] = sum_lanes(n);
    out[5] = sum_lanes(gap);
    out[6] = sum_lanes(lower);
}

std::uint64_t mismatch_planes(const std::uint32_t* a, const std::uint32_t* b, std::uint32_t compare) {
    __m512i total = _mm512_setzero_si512();
    for (std::size_t k = 0; k < plane_words / zmm_words; ++k) {
        __m512i diff = _mm512_setzero_si512();
        for (std::uint32_t bits = compare & ((1u << code_planes) - 1u); bits; bits &= bits - 1) {
            const auto j = static_cast<unsigned>(std::countr_zero(bits));
            // diff | (x ^ y)
            diff = _mm512_ternarylogic_epi64(diff, plane_chunk(a, j, k), plane_chunk(b, j, k), 0xF6);
        }
        total = _mm512_add_epi64(total, _mm512_popcnt_epi64(diff));
    }
    return sum_lanes(total);
}

// ---- two-plane payloads ----------------------------------------------------------------------
// A payload is 64 columns of (word of plane 0, word of plane 1): 16 columns are two registers.

// Permute indices. Functions, not namespace-scope constants: this file's static initializers
// would run (and fault) on CPUs without AVX-512; these fold into constants of the code.

// Dword indices (0..31 over a register pair) of the plane 0 words and of the plane 1 words.
__m512i even_words() noexcept { return _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30); }
__m512i odd_words() noexcept { return _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31); }
// And back: columns 0..7 (first register) and 8..15 (second) from a plane 0 and a plane 1 register.
__m512i low_columns() noexcept { return _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23); }
__m512i high_columns() noexcept { return _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31); }

void deinterleave2(const std::byte* payload, std::uint32_t* p0, std::uint32_t* p1) {
    for (std::size_t c = 0; c < plane_words; c += zmm_words) {
        const __m512i x = load(payload + 8 * c), y = load(payload + 8 * c + 64);
        store(p0 + c, _mm512_permutex2var_epi32(x, even_words(), y));
        store(p1 + c, _mm512_permutex2var_epi32(x, odd_words(), y));
    }
}

void interleave2(const std::uint32_t* p0, const std::uint32_t* p1, std::byte* payload) {
    for (std::size_t c = 0; c < plane_words; c += zmm_words) {
        const __m512i a = load(p0 + c), b = load(p1 + c);
        store(payload + 8 * c, _mm512_permutex2var_epi32(a, low_columns(), b));
        store(payload + 8 * c + 64, _mm512_permutex2var_epi32(a, high_columns(), b));
    }
}

// The 8 cache lines of a payload, fetched ahead: blocks sit wherever the arena put them, and
// each is read once.
void prefetch_payload(const std::byte* p) noexcept {
    for (std::size_t line = 0; line < 2 * plane_bytes; line += 64) _mm_prefetch(reinterpret_cast<const char*>(p + line), _MM_HINT_T0);
}

constexpr std::size_t prefetch_ahead = 2;  // blocks

void count2(const std::byte* const* payloads, std::size_t n, std::uint64_t* out) {
    // vpopcntd counts each word: even lanes are plane 0 (C or T), odd lanes plane 1 (G or T);
    // T is the low word ANDed with the high word of each column. Lanes gain at most 256 a
    // block, so 32-bit lanes hold 2^24 blocks.
    __m512i words = _mm512_setzero_si512(), t = words;
    for (std::size_t k = 0; k < n; ++k) {
        if (k + prefetch_ahead < n) prefetch_payload(payloads[k + prefetch_ahead]);
        for (std::size_t at = 0; at < 2 * plane_bytes; at += 64) {
            const __m512i x = load(payloads[k] + at);
            words = _mm512_add_epi32(words, _mm512_popcnt_epi32(x));
            t = _mm512_add_epi64(t, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_srli_epi64(x, 32))));
        }
    }
    const __m512i low = _mm512_set1_epi64(0xFFFFFFFFll);
    const std::uint64_t ct = sum_lanes(_mm512_and_si512(words, low));
    const std::uint64_t gt = sum_lanes(_mm512_srli_epi64(words, 32));
    const std::uint64_t tt = sum_lanes(t);
    out[0] = ct - tt;
    out[1] = gt - tt;
    out[2] = tt;
}

std::uint64_t mismatch2(const std::byte* const* a, const std::byte* const* b, std::size_t n) {
    // Letters differ where (x0 ^ y0) | (x1 ^ y1): gather the plane 0 and plane 1 words of 16
    // columns into one register each, OR them, count.
    __m512i total = _mm512_setzero_si512();
    for (std::size_t k = 0; k < n; ++k) {
        if (k + prefetch_ahead < n) {
            prefetch_payload(a[k + prefetch_ahead]);
            prefetch_payload(b[k + prefetch_ahead]);
        }
        for (std::size_t at = 0; at < 2 * plane_bytes; at += 128) {
            const __m512i x = _mm512_xor_si512(load(a[k] + at), load(b[k] + at));
            const __m512i y = _mm512_xor_si512(load(a[k] + at + 64), load(b[k] + at + 64));
            const __m512i d = _mm512_or_si512(_mm512_permutex2var_epi32(x, even_words(), y),
                                              _mm512_permutex2var_epi32(x, odd_words(), y));
            total = _mm512_add_epi64(total, _mm512_popcnt_epi64(d));
        }
    }
    return sum_lanes(total);
}

// ---- reverse complement ----------------------------------------------------------------------

// GF(2) affine matrix that reverses the bits of a byte (row i of the matrix picks bit 7 - i).
__m512i reverse_bits_matrix() noexcept { return _mm512_set1_epi64(static_cast<long long>(0x8040201008040201ull)); }

constexpr std::array<std::uint8_t, 64> make_byte_index(bool columns) {
    std::array<std::uint8_t, 64> index{};
    for (std::size_t k = 0; k < 64; ++k) {
        // columns: column c (8 bytes) <- column 7 - c, the two words of a column kept in place,
        // each word's bytes reversed; else byte k <- byte 63 - k (16 words in reverse order,
        // each byte-reversed).
        const std::size_t c = k / 8, j = k % 8 / 4, b = k % 4;
        index[k] = static_cast<std::uint8_t>(columns ? 8 * (7 - c) + 4 * j + 3 - b : 63 - k);
    }
    return index;
}
alignas(64) constexpr std::array<std::uint8_t, 64> reverse_words_index = make_byte_index(false);
alignas(64) constexpr std::array<std::uint8_t, 64> reverse_columns_index = make_byte_index(true);

// Bits of every byte reversed; inverted as well when `flip`.
template <bool flip>
__m512i reverse_byte_bits(__m512i v) noexcept {
    return _mm512_gf2p8affine_epi64_epi8(v, reverse_bits_matrix(), flip ? 0xFF : 0x00);
}

// out[w] = (reverse_bits32(in[63 - w]) ^ (flip ? ~0 : 0)) & valid[w]; returns 1 when out has a
// set bit.
template <bool flip>
std::uint32_t reverse_plane(const std::uint32_t* in, const std::uint32_t* valid, std::uint32_t* out) noexcept {
    __m512i any = _mm512_setzero_si512();
    for (std::size_t w = 0; w < plane_words; w += zmm_words) {
        __m512i v = _mm512_permutexvar_epi8(load(reverse_words_index.data()), load(in + plane_words - zmm_words - w));
        v = _mm512_and_si512(reverse_byte_bits<flip>(v), load(valid + w));
        store(out + w, v);
        any = _mm512_or_si512(any, v);
    }
    return _mm512_test_epi64_mask(any, any) != 0 ? 1u : 0u;
}

std::uint32_t reverse_complement(const std::uint32_t* in, std::uint32_t nonzero, std::size_t count, std::uint32_t* out) {
    alignas(64) std::uint32_t valid[plane_words];  // the bits of output word w below `count`
    for (std::size_t w = 0; w < plane_words; ++w) {
        const std::size_t lo = 32 * w;
        valid[w] = count >= lo + 32 ? ~0u : count <= lo ? 0u : (1u << (count - lo)) - 1u;
    }
    std::uint32_t result = 0;
    if ((nonzero & ~std::uint32_t{base_mask}) == 0) {
        // Plain upper-case bases: the complement flips both planes everywhere.
        result = reverse_plane<true>(in, valid, out) | reverse_plane<true>(in + plane_words, valid, out + plane_words) << 1;
        std::memset(out + 2 * plane_words, 0, (code_planes - 2) * plane_bytes);
        return result;
    }
    for (unsigned j = 0; j < code_planes; ++j) {
        std::uint32_t* o = out + j * plane_words;
        if (!((nonzero >> j) & 1u)) {
            std::memset(o, 0, plane_bytes);
            continue;
        }
        result |= reverse_plane<false>(in + j * plane_words, valid, o) << j;
    }
    // Base bits flip where the letter is a plain base or in ambiguity group 1 or 2:
    // (~s | g4 | g5) & valid.
    __m512i any0 = _mm512_setzero_si512(), any1 = any0;
    for (std::size_t w = 0; w < plane_words; w += zmm_words) {
        const __m512i flip = _mm512_and_si512(
            _mm512_ternarylogic_epi32(load(out + 3 * plane_words + w), load(out + 4 * plane_words + w),
                                      load(out + 5 * plane_words + w), 0xEF),  // ~A | B | C
            load(valid + w));
        const __m512i o0 = _mm512_xor_si512(load(out + w), flip);
        const __m512i o1 = _mm512_xor_si512(load(out + plane_words + w), flip);
        store(out + w, o0);
        store(out + plane_words + w, o1);
        any0 = _mm512_or_si512(any0, o0);
        any1 = _mm512_or_si512(any1, o1);
    }
    return (result & ~std::uint32_t{base_mask}) | (_mm512_test_epi64_mask(any0, any0) != 0 ? 1u : 0u) |
           (_mm512_test_epi64_mask(any1, any1) != 0 ? 2u : 0u);
}

// Columns i .. i + 7 (8 bytes each) of block `low` followed by block `high`.
__m512i pair_columns(const std::byte* low, const std::byte* high, std::size_t i) noexcept {
    if (i + 8 <= plane_words) return load(low + 8 * i);
    if (i >= plane_words) return load(high + 8 * (i - plane_words));
    // Across the two blocks: columns 56..63 of low and 0..7 of high, permuted.
    const __m512i index = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(i - (plane_words - 8))),
                                           _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    return _mm512_permutex2var_epi64(load(low + 8 * (plane_words - 8)), index, load(high));
}

std::uint32_t revcomp2(const std::byte* low, const std::byte* high, std::size_t shift, std::byte* payload) {
    // As the AVX2 kernel (dna_kernels_impl.hpp): the funnel shift works on the 32-bit lanes of
    // the interleaved columns; here 8 columns a register.
    const std::size_t ws = shift / 32, bs = shift % 32;
    const __m128i right = _mm_cvtsi32_si128(static_cast<int>(bs));  // counts of 32 give zeros
    const __m128i left = _mm_cvtsi32_si128(static_cast<int>(32 - bs));
    const __m512i reverse = load(reverse_columns_index.data());
    __m512i any = _mm512_setzero_si512(), all = _mm512_set1_epi32(-1);
    for (std::size_t c = 0; c < plane_words; c += 8) {  // output columns c .. c + 7
        const std::size_t i = ws + plane_words - 8 - c;
        __m512i v = _mm512_or_si512(_mm512_srl_epi32(pair_columns(low, high, i), right),
                                    _mm512_sll_epi32(pair_columns(low, high, i + 1), left));
        v = reverse_byte_bits<true>(_mm512_permutexvar_epi8(reverse, v));
        any = _mm512_or_si512(any, v);
        all = _mm512_and_si512(all, v);
        store(payload + 8 * c, v);
    }
    // Plane 0 is the even words, plane 1 the odd ones.
    const __mmask16 any_words = _mm512_test_epi32_mask(any, any);
    const __mmask16 not_all_words = _mm512_cmpneq_epi32_mask(all, _mm512_set1_epi32(-1));
    const bool live0 = (any_words & 0x5555) != 0 && (not_all_words & 0x5555) != 0;
    const bool live1 = (any_words & 0xAAAA) != 0 && (not_all_words & 0xAAAA) != 0;
    return (live0 ? 1u : 0u) | (live1 ? 2u : 0u);
}

// ---- pattern search ----------------------------------------------------------------------------

void shift_and(const std::uint64_t* const* masks, std::size_t k, std::uint64_t* out) {
    for (std::size_t w = 0; w < 32; w += 8) {
        __m512i r = load(masks[0] + w);
        for (std::size_t j = 1; j < k; ++j) {
            const std::uint64_t* m = masks[j];
            const __m512i next = _mm512_or_si512(_mm512_srl_epi64(load(m + w), _mm_cvtsi64_si128(static_cast<long long>(j))),
                                                 _mm512_sll_epi64(load(m + w + 1), _mm_cvtsi64_si128(static_cast<long long>(64 - j))));
            r = _mm512_and_si512(r, next);
            // Random text leaves no candidate after a few letters: stop then.
            if ((j & 3) == 0 && _mm512_test_epi64_mask(r, r) == 0) break;
        }
        store(out + w, r);
    }
}

}  // namespace
}  // namespace bitplane::dna::detail::dna_kernels_avx512

namespace bitplane::dna::detail {

const dna_kernel_table& avx512_dna_kernels() noexcept {
    namespace k = dna_kernels_avx512;
    static constexpr dna_kernel_table table{.path = simd_path::avx512,
                                            .encode_letters = k::encode_letters,
                                            .decode_letters = k::decode_letters,
                                            .count_codes = k::count_codes,
                                            .mismatch_planes = k::mismatch_planes,
                                            .reverse_complement = k::reverse_complement,
                                            .shift_and = k::shift_and,
                                            .deinterleave2 = k::deinterleave2,
                                            .interleave2 = k::interleave2,
                                            .count2 = k::count2,
                                            .mismatch2 = k::mismatch2,
                                            .revcomp2 = k::revcomp2};
    return table;
}

}  // namespace bitplane::dna::detail
#endif
