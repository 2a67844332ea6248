// The table of SIMD kernels behind bitplane's runtime dispatch. One table per instruction set
// (kernels_scalar.cpp, kernels_sse2.cpp, kernels_avx2.cpp); `active_kernels()` returns the one
// chosen by simd.hpp. Host code calls kernels only through this table.
#pragma once

#include <bitplane/block.hpp>
#include <bitplane/simd.hpp>

#include "codec/host_device.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <climits>

namespace bitplane::detail {

/// What the encoder's transform ranking needs to know about a block's values, in one pass,
/// and the pieces of their exact sum, which vector_core keeps per block (block_summary.hpp):
/// the sums are exact for count <= 65536 (2048 x 65535 < 2^32 in every lane).
struct value_stats {
    std::uint32_t any = 0;       // OR of the values
    std::uint32_t all = ~0u;     // AND of the values
    std::uint32_t umin = ~0u, umax = 0;
    std::int32_t smin = INT32_MAX, smax = INT32_MIN;
    std::int32_t dmin = INT32_MAX, dmax = INT32_MIN;  // of v[i] - v[i-1] (mod 2^32) as int32, i >= 1
    std::uint32_t zz_any = 0;    // OR of zigzag(v) = (v << 1) ^ (v >> 31, arithmetic)
    std::uint32_t zz_all = ~0u;  // AND of zigzag(v)
    std::uint32_t sum_low = 0;    // sum of v & 0xFFFF
    std::uint32_t sum_high = 0;   // sum of v >> 16
    std::uint32_t negatives = 0;  // sum of v >> 31: sum as int32 = low + (high << 16) - (negatives << 32)
};

// The helpers below are compiled into the scalar and into every ISA translation unit (with
// -mavx2 and so on): internal linkage gives each its own copy, so the linker can never hand
// the scalar path a copy built for another instruction set (scripts/check-linkage.py).
namespace {

/// Folds value v[k] into `r` (and the difference v[k] - v[k-1] when k > 0): the scalar step
/// every path's stats kernel uses for value 0 and for the values past its last full register,
/// and each GPU thread over its values (cuda/kernels/encode_block.cuh).
BITPLANE_HOST_DEVICE inline void fold_value_stats(value_stats& r, const std::uint32_t* v, std::size_t k) noexcept {
    const std::uint32_t x = v[k];
    const auto sx = static_cast<std::int32_t>(x);
    r.any |= x;
    r.all &= x;
    r.umin = r.umin < x ? r.umin : x;
    r.umax = r.umax > x ? r.umax : x;
    r.smin = r.smin < sx ? r.smin : sx;
    r.smax = r.smax > sx ? r.smax : sx;
    const std::uint32_t zz = (x << 1) ^ static_cast<std::uint32_t>(sx >> 31);
    r.zz_any |= zz;
    r.zz_all &= zz;
    r.sum_low += x & 0xFFFFu;
    r.sum_high += x >> 16;
    r.negatives += x >> 31;
    if (k > 0) {
        const auto d = static_cast<std::int32_t>(x - v[k - 1]);
        r.dmin = r.dmin < d ? r.dmin : d;
        r.dmax = r.dmax > d ? r.dmax : d;
    }
}

/// A plane with no set bit, or no clear bit, needs no pair scan in pair_popcounts:
/// pop(p ^ 0) = pop(p) and pop(p ^ ~0) = 2048 - pop(p). Narrow or sign-extended values leave
/// many such planes.
inline constexpr std::uint32_t plane_bits = plane_words * 32;

inline bool is_constant_plane(std::uint32_t pop) noexcept { return pop == 0 || pop == plane_bits; }

/// pop(p_i ^ p_j) when one of the planes is constant (see is_constant_plane).
inline std::uint32_t constant_pair(std::uint32_t pop_i, std::uint32_t pop_j) noexcept {
    if (pop_i == 0) return pop_j;
    if (pop_j == 0) return pop_i;
    return pop_i == plane_bits ? plane_bits - pop_j : plane_bits - pop_i;
}

/// Row i (and column i) of a pair_popcounts matrix whose diagonal is filled, for a constant
/// plane i: every pair from the popcounts alone.
inline void fill_constant_pairs(std::uint16_t* out, std::size_t count, std::size_t i) noexcept {
    const std::uint32_t pop_i = out[i * count + i];
    for (std::size_t j = i + 1; j < count; ++j) {
        const auto n = static_cast<std::uint16_t>(constant_pair(pop_i, out[j * count + j]));
        out[i * count + j] = n;
        out[j * count + i] = n;
    }
}

/// The portable key_presence (see kernel_table): a byte a key, marked by the value's low byte
/// (keys of a span up to 256 have distinct low bytes), so a value costs a byte load and a store
/// with no dependency between values (~2.4 instructions a value with the loop's, callgrind;
/// setting bits in words took ~11, and presence8's (v - base) & 255 index ~4.75). The bytes are then read from the
/// base's low byte on, 8 at a time into bits by one multiply.
inline void key_presence_bytes(const std::uint32_t* v, std::size_t count, std::uint32_t base, std::uint32_t words,
                               std::uint32_t* out) noexcept {
    alignas(32) std::uint8_t seen[512] = {};
    const auto* low = reinterpret_cast<const std::uint8_t*>(v);  // little-endian: a value's low byte first
    std::size_t i = 0;
    for (; i + 8 <= count; i += 8) {  // 8 a step: the loop's 3 instructions spread thinner
        seen[low[4 * i]] = 1;
        seen[low[4 * i + 4]] = 1;
        seen[low[4 * i + 8]] = 1;
        seen[low[4 * i + 12]] = 1;
        seen[low[4 * i + 16]] = 1;
        seen[low[4 * i + 20]] = 1;
        seen[low[4 * i + 24]] = 1;
        seen[low[4 * i + 28]] = 1;
    }
    for (; i < count; ++i) seen[low[4 * i]] = 1;
    std::memcpy(seen + 256, seen, 256);  // key base + k at seen[(base & 255) + k], k < 256
    const std::uint8_t* from = seen + (base & 255);
    for (std::uint32_t w = 0; w < 4 * words; ++w) {  // 8 bytes of 0/1: 8 bits of word w / 4
        std::uint64_t eight;
        std::memcpy(&eight, from + 8 * w, 8);
        const auto bits = static_cast<std::uint32_t>((eight * 0x0102040810204080ull) >> 56);
        out[w >> 2] |= bits << (8 * (w & 3));
    }
}

}  // namespace

/// One bit-sliced comparison (O'Neil & Quass) of a block's residual planes with one or two
/// constants, read from the top plane down. The caller has already resolved the all-zero and
/// all-one planes: reading stops at the first constant plane that differs from a target's
/// bit there (`finish` says what that plane decides), and constant planes that agree with
/// the target are not listed. Word c of the k-th plane read is the little-endian 32-bit word
/// at `base + offset[k] + c * stride` (any alignment), either
///   - stride 4: planes in memory, offset[k] the plane's byte offset; or
///   - stride 4 x n (n >= 2): an interleaved all-raw payload of n planes read in place, 64
///     rows of `stride` bytes, offset[k] = 4 x the plane's rank; any byte of the payload
///     (base .. base + 64 x stride) may be read, none past it.
struct compare_job {
    enum finish_kind : std::uint8_t {
        finish_none = 0,  // no constant plane stops this target
        finish_lt = 1,    // an all-zero plane where the target has a one: still equal -> less
        finish_gt = 2,    // an all-one plane where the target has a zero: still equal -> greater
    };
    const std::uint8_t* base = nullptr;
    std::uint32_t stride = 4;
    std::uint32_t words = 64;     // result words to compute: a multiple of 8 in 8..64
    std::uint32_t targets = 1;    // 1 or 2
    bool need_lt = true;          // false: only eq is written (for equality tests)
    std::uint32_t steps[2] = {};  // planes target i reads: offset[0 .. steps[i])
    std::uint32_t bits[2] = {};   // bit k: target i's bit in the k-th plane read
    std::uint8_t finish[2] = {};  // finish_kind, applied after target i's steps
    std::uint32_t offset[plane_count];  // set by the caller for the steps read (not zeroed: jobs are built per block)
    // Stride 4 only: where not null, the k-th plane read starts at planes[k] (base and offset
    // unused; any alignment), so that planes lying apart are read where they lie. Raw payloads
    // were copied into one buffer after the list planes built there: about 1.0K instructions a
    // block, as much as the kernel (word_length count_range, AVX2, issue #13).
    const std::uint8_t* const* planes = nullptr;
    // A range's answer written straight, where not null (two targets, need_lt: target 0 the
    // lower bound, target 1 the upper): words [0, words) of range_into get
    // (~lt0 & (lt1 | eq1)) ^ range_flip, and eq and lt are not written. The scans' combine
    // pass over eq and lt after the kernel (another 200 instructions a block, SSE2) and the
    // kernel's four stores a column group become one store (issue #13: word_length, bam_tlen).
    std::uint32_t* range_into = nullptr;
    std::uint32_t range_flip = 0;
    // With range_into, where not null: *range_count gets the set bits of words [0, words) of
    // the answer, counted from the registers as they are stored (count_range: no popcount
    // pass over the plane after the kernel, ~140 instructions a block on word_length, AVX2).
    std::uint32_t* range_count = nullptr;
};

/// One operand of interleaved_dot: an interleaved all-raw payload (as for
/// interleaved_transpose) whose value i is (residual i | ones) + base, mod 2^32.
struct interleaved_operand {
    const std::uint8_t* payload = nullptr;
    std::uint32_t live = 0;
    std::uint32_t ones = 0;
    std::uint32_t base = 0;
    const std::uint8_t* ahead = nullptr;  // prefetched meanwhile, as for interleaved_transpose
    std::size_t ahead_bytes = 0;
};

/// A test of 32-bit values for test_values: value v passes when ((v ^ bias) - start) <= span
/// (unsigned), the answer XOR flip (0 or ~0). With `delta`, the kernel is given a delta block's
/// residuals r and tests the values they encode: v[0] = first + r[0], v[i] = v[i-1] + r[i] +
/// step (mod 2^32), as docs/format.md defines them.
struct value_test {
    std::uint32_t bias = 0;
    std::uint32_t start = 0;
    std::uint32_t span = 0;
    std::uint32_t flip = 0;
    bool delta = false;
    std::uint32_t first = 0;
    std::uint32_t step = 0;
};

struct kernel_table {
    simd_path path;

    /// values[0..2047] -> planes (32 x 64 words). Both arrays hold exactly 2048 words.
    void (*transpose)(const std::uint32_t* values, std::uint32_t* planes);

    /// planes -> values[0..2047]; only planes whose bit is set in `live` are read, the others
    /// are taken as all-zero (so a 10-bit block costs 10 planes, not 32).
    void (*untranspose)(const std::uint32_t* planes, std::uint32_t live, std::uint32_t* values);

    /// For `count` planes stored contiguously (count x 64 words), writes the count x count
    /// matrix out[i * count + j] = popcount(p_i ^ p_j), out[i * count + i] = popcount(p_i).
    void (*pair_popcounts)(const std::uint32_t* planes, std::size_t count, std::uint16_t* out);

    /// Number of set bits in `words` 32-bit words.
    std::uint64_t (*popcount_words)(const std::uint32_t* words, std::size_t count);

    /// value_stats of values[0..count) (count >= 1).
    void (*stats)(const std::uint32_t* values, std::size_t count, value_stats* out);

    /// Which keys occur among values[0..count): bit v - base of out[0..words) (32-bit words,
    /// words <= 8) ORed in for every value v. Every v - base (mod 2^32) must be below
    /// 32 * words (the block's summary says so: summarize_presence, block_summary.hpp).
    void (*key_presence)(const std::uint32_t* values, std::size_t count, std::uint32_t base, std::uint32_t words,
                         std::uint32_t* out);

    // ---- reductions and similarity (issue #3; src/ops/reduce.cpp, similarity.cpp) ----------

    /// The plane-pair AND matrix: out[j * nb + k] = popcount(a[j] AND b[k]) over the first
    /// `words` words (at most plane_words) of each plane. a[0..na) and b[0..nb) point to planes.
    void (*and_popcounts)(const std::uint32_t* const* a, std::size_t na, const std::uint32_t* const* b,
                          std::size_t nb, std::size_t words, std::uint32_t* out);

    /// Exact sum of a[i] * b[i] over count < 2^32 values, as unsigned 32-bit values or, when
    /// `is_signed`, as int32; out[0] and out[1] get the low and high 64 bits of the 128-bit
    /// two's complement result.
    void (*dot_values)(const std::uint32_t* a, const std::uint32_t* b, std::size_t count, bool is_signed,
                       std::uint64_t* out);

    /// Expands a compact plane onto a mask (pdep over the whole plane): out gets the first
    /// popcount(mask) bits of `compact`, in order, at the set bits of `mask`, zeros elsewhere.
    /// All three are plane_words words; `out` must not overlap the others.
    void (*deposit_plane)(const std::uint32_t* compact, const std::uint32_t* mask, std::uint32_t* out);

    // ---- scans (issue #3; src/ops/scan.cpp) ------------------------------------------------

    /// Runs a compare_job: for target i, eq[64 i + c] and lt[64 i + c] get word c of
    /// "residual equal to target i" and "residual less than target i", for c < job.words
    /// (bits past the planes' length are garbage: the caller masks them). lt is not written
    /// when !job.need_lt.
    void (*compare_planes)(const compare_job* job, std::uint32_t* eq, std::uint32_t* lt);

    // ---- reductions, interleaved blocks (issue #3; src/ops/reduce.cpp) ----------------------

    /// For the interleaved payload of an all-raw 2048-value block (64 columns of `stored`
    /// little-endian words, codec/block_format.hpp; any alignment): counts[i] = set bits of
    /// the i-th stored plane, i < stored. `ahead` (ahead_bytes long, may be null): bytes to
    /// prefetch, a few lines at a time while the kernel works (the next block, so that its
    /// loads overlap with this one's work instead of stalling the next call).
    void (*interleaved_popcounts)(const std::uint8_t* payload, std::uint32_t stored, std::uint32_t* counts,
                                  const std::uint8_t* ahead, std::size_t ahead_bytes);

    /// The same payload, planes `live` stored, to its 2048 residuals: out[i] = residual i.
    /// `ahead` as for interleaved_popcounts.
    void (*interleaved_transpose)(const std::uint8_t* payload, std::uint32_t live, std::uint32_t* out,
                                  const std::uint8_t* ahead, std::size_t ahead_bytes);

    /// The inverse of deposit_plane (pext over a plane): out gets the bits of `p` at the set
    /// bits of `select`, in order, from bit 0, and zeros after them. Only the first `words`
    /// words (at most plane_words) of each are read and written; `out` must not overlap.
    void (*extract_plane)(const std::uint32_t* p, const std::uint32_t* select, std::size_t words, std::uint32_t* out);

    /// The plane-pair AND matrix of two interleaved all-raw payloads read in place (as for
    /// interleaved_popcounts; any alignment, nothing read past either payload; `live` gives
    /// the stored planes, `ones` and `base` are not read): with A_j the j-th of a's
    /// stored_a = popcount(a->live) stored planes and B_k the k-th of b's stored_b,
    /// pairs[j * stored_b + k] = popcount(A_j AND B_k) over the block's 2048 positions,
    /// pop_a[j] = popcount(A_j), pop_b[k] = popcount(B_k) (stored counts 0..32; a and b may be
    /// one payload). Both operands' `ahead` bytes are prefetched meanwhile. a's planes fill
    /// vector lanes and each of b's words is broadcast against them, so no payload is
    /// de-interleaved: cheapest with stored_a >= stored_b (dot's plane-pair method on
    /// interleaved blocks, ops/reduce.cpp).
    void (*interleaved_and_popcounts)(const interleaved_operand* a, const interleaved_operand* b, std::uint32_t* pairs,
                                      std::uint32_t* pop_a, std::uint32_t* pop_b);

    /// Set bits, and the sum of their positions, of `count` little-endian 32-bit words, word c at
    /// byte c * stride from `words` (any alignment; bit b of word c is position 32 c + b):
    /// out[0] = set bits, out[1] = sum of the set bits' positions (0 unless `positions`). A
    /// delta block's sum weighs each residual by its position (ops/block_sum.cpp).
    void (*word_moments)(const std::uint8_t* words, std::size_t stride, std::size_t count, bool positions,
                         std::uint64_t* out);

    /// Optional (null where a path has no fused kernel: the caller then transposes both
    /// operands and calls dot_values): the exact sum over a block's 2048 values of a_i b_i,
    /// as dot_values writes it (int32 values when `is_signed`), each column transposed and
    /// multiplied in registers.
    void (*interleaved_dot)(const interleaved_operand* a, const interleaved_operand* b, bool is_signed,
                            std::uint64_t* out) = nullptr;

    /// Optional (null: the encoder's portable loop, split_nonzero_portable): the sparse
    /// layout's split of values[0..count), count <= 2048. mask[0..64) gets bit i set where
    /// values[i] != 0 (bits from count on clear); stored gets those values in order. Returns
    /// how many were stored.
    std::size_t (*split_nonzero)(const std::uint32_t* values, std::size_t count, std::uint32_t* mask,
                                 std::uint32_t* stored) = nullptr;

    /// Optional (null: the scans' portable loop, test_values_portable): out[0..64) gets bit i
    /// set where value i of values[0..count) passes `test` (count <= 2048; bits from count on
    /// clear). Only values[0..count) are read. For blocks the scans cannot compare on planes
    /// (delta blocks, decoded; the uncompressed tail).
    void (*test_values)(const std::uint32_t* values, std::size_t count, const value_test* test,
                        std::uint32_t* out) = nullptr;

    /// Optional (null: the scans run compare_planes, then popcount_words): an equality over
    /// the interleaved payload of an all-raw 2048-value block of `stored` planes (0..32; 64
    /// columns of `stored` little-endian words, any alignment, nothing read past it). eq[c],
    /// c < 64, gets bit i set where residual 32 c + i has, in the r-th stored plane, bit r of
    /// `bits`, for every r < stored; returns the set bits of eq[0..64).
    std::uint32_t (*equal_interleaved)(const std::uint8_t* payload, std::uint32_t stored, std::uint32_t bits,
                                       std::uint32_t* eq) = nullptr;

    /// Optional (null: the scans' SSE2 or portable loop, ops/scan_block.cpp): bit i of word w,
    /// w < words, is the top bit of marks[32 w + i], XORed with `flip`; stored into out[w], or
    /// ANDed into it unless `fresh`. Returns whether any bit of out[0..words) is set. The byte
    /// map that the equality scans mark list planes into (bam_mapq, geoip4_size).
    bool (*pack_marks)(const std::uint8_t* marks, std::uint32_t* out, std::uint32_t words, std::uint32_t flip,
                       bool fresh) = nullptr;

    /// Optional (null: pack_marks, then popcount_words): pack_marks, returning the number of
    /// bits set in out[0, words) afterwards instead of whether there is one (a count_eq whose
    /// last step packs marks: bam_mapq, geoip4_size).
    std::uint32_t (*pack_marks_count)(const std::uint8_t* marks, std::uint32_t* out, std::uint32_t words,
                                      std::uint32_t flip, bool fresh) = nullptr;

    /// Optional (null: the scans narrow eq one plane at a time, ops/scan_block.cpp): the raw
    /// planes of an equality in one pass over a whole plane of eq. For w < 64:
    /// eq[w] = (fresh ? ~0 : eq[w]) & AND over k < count of (word w of planes[k] ^ flips[k]),
    /// where word w of planes[k] is the little-endian word at planes[k] + 4 w (any alignment,
    /// 256 bytes read) and flips[k] is 0 or ~0. Returns whether any bit of eq is set. eq is
    /// loaded and stored once, not once per plane (word_length, geoip4_country: 4-8 raw
    /// planes a block).
    bool (*narrow_planes)(std::uint32_t* eq, const std::uint8_t* const* planes, const std::uint32_t* flips,
                          std::uint32_t count, bool fresh) = nullptr;

    /// Optional (null: narrow_planes, then popcount_words): narrow_planes, returning the
    /// number of bits set in eq afterwards instead of whether there is one. A count_eq whose
    /// last step is the raw planes counts the registers it already holds, not eq again from
    /// memory (a popcount_words call: about 136 instructions a block, AVX2).
    std::uint32_t (*narrow_planes_count)(std::uint32_t* eq, const std::uint8_t* const* planes,
                                         const std::uint32_t* flips, std::uint32_t count, bool fresh) = nullptr;

    /// Optional (null: ops/bitwise.cpp's portable loop, kernels_compact.hpp): extract_plane
    /// for the planes `live` at once: word c of the r-th plane of `live` is the little-endian
    /// word at words + c * column_stride + r * plane_stride (any alignment): an interleaved
    /// all-raw payload has column_stride = 4 * popcount(live) and plane_stride = 4; planes
    /// of W words one after another have column_stride = 4 and plane_stride = 4 W. For each plane j
    /// of `live`, out[j * plane_words ..] gets the bits at the set bits of
    /// select[0..columns), columns <= 64, in order, in its first ceil(popcount / 32) words
    /// (zeros above the last bit); the words after those and the planes not in `live` are not
    /// written, and neither the columns nor the select words from `columns` on are read
    /// (compacting a few words of planes costs no walk over 64).
    void (*extract_planes)(const std::uint8_t* words, std::size_t column_stride, std::size_t plane_stride,
                           std::uint32_t live, const std::uint32_t* select, std::size_t columns,
                           std::uint32_t* out) = nullptr;

    /// Optional (null: the codec's SSE2/portable loop, value_transform.cpp): a delta block's
    /// residuals r[0..count) to its values, in place: v[0] = first + r[0], v[i] = v[i-1] + r[i]
    /// + step (mod 2^32), as docs/format.md defines them (step is the block's minimum
    /// difference). Every decode and every iterator refill of a delta block runs it.
    void (*delta_decode)(std::uint32_t* values, std::size_t count, std::uint32_t first, std::uint32_t step) = nullptr;

    /// Optional (null: expand_nonzero_portable): the inverse of split_nonzero, a sparse
    /// block's values from its non-zero mask. values[i], i < count <= 2048, gets the next of
    /// stored[0..) where bit i of mask[0..64) is set, 0 where it is clear. `readable` words from
    /// `stored` may be read (at least the set bits below count; more lets whole registers load).
    void (*expand_nonzero)(const std::uint32_t* stored, std::size_t readable, const std::uint32_t* mask,
                           std::size_t count, std::uint32_t* values) = nullptr;

    /// Optional (null: untranspose): untranspose into a destination already in cache (the
    /// iterator's buffer, a decoder's stack scratch). The avx512 path's zmm kernel is faster
    /// there but slower than `untranspose` into memory not in cache (decode() into the caller's
    /// array), so decoders pick by destination (detail::decode_destination).
    void (*untranspose_in_cache)(const std::uint32_t* planes, std::uint32_t live, std::uint32_t* values) = nullptr;
};

// Portable loops that ISA kernels also call for their tails: internal linkage, as above.
namespace {

/// pext without BMI2: a loop over the set bits of `mask` (a sparse selector has a few a word).
/// The SSE2 path's extract32 (simd/arch_helpers.hpp) and the portable extract_planes use it.
inline std::uint32_t extract32_portable(std::uint32_t bits, std::uint32_t mask) noexcept {
    std::uint32_t out = 0;
    for (std::uint32_t k = 0; mask != 0; mask &= mask - 1, ++k)
        out |= static_cast<std::uint32_t>((bits & mask & (0u - mask)) != 0) << k;
    return out;
}

/// test_values without SIMD (the reference of every path's kernel); writes out[0..words).
inline void test_values_portable(const std::uint32_t* values, std::size_t count, const value_test* test,
                                 std::uint32_t* out, std::size_t words = plane_words) noexcept {
    std::uint32_t v = test->first - test->step;
    for (std::size_t w = 0; w < words; ++w) {
        std::uint32_t bits = 0;
        const std::size_t end = count < 32 * w ? 0 : count - 32 * w < 32 ? count - 32 * w : 32;
        for (std::size_t b = 0; b < end; ++b) {
            const std::uint32_t r = values[32 * w + b];
            v = test->delta ? v + r + test->step : r;
            const std::uint32_t pass = ((v ^ test->bias) - test->start) <= test->span ? 1u : 0u;
            bits |= pass << b;
        }
        const std::uint32_t valid = end == 32 ? ~0u : (1u << end) - 1u;
        out[w] = (bits ^ test->flip) & valid;
    }
}

/// delta_decode without SIMD: one add per value (the reference of every path's kernel, and
/// the AVX2 kernel's tail).
inline void delta_decode_portable(std::uint32_t* values, std::size_t count, std::uint32_t first,
                                  std::uint32_t step) noexcept {
    std::uint32_t v = first - step;  // so that value 0 is first + r[0]
    for (std::size_t i = 0; i < count; ++i) {
        v += values[i] + step;
        values[i] = v;
    }
}

/// expand_nonzero without SIMD: zeros, then a store per set bit (cheap where few are set).
inline void expand_nonzero_portable(const std::uint32_t* stored, std::size_t /*readable*/, const std::uint32_t* mask,
                                    std::size_t count, std::uint32_t* values) noexcept {
    std::size_t next = 0;
    for (std::size_t w = 0; 32 * w < count; ++w) {
        const std::size_t end = count - 32 * w < 32 ? count - 32 * w : 32;
        for (std::size_t b = 0; b < end; ++b) values[32 * w + b] = 0;
        for (std::uint32_t word = mask[w]; word != 0; word &= word - 1)
            values[32 * w + static_cast<std::size_t>(__builtin_ctz(word))] = stored[next++];
    }
}

/// split_nonzero without SIMD, branch-free (the non-zero values of a sparse block are where
/// a branch per value mispredicts): every value is written at the next free place, which only
/// a non-zero one keeps.
inline std::size_t split_nonzero_portable(const std::uint32_t* values, std::size_t count, std::uint32_t* mask,
                                          std::uint32_t* stored) noexcept {
    std::size_t kept = 0;
    for (std::size_t w = 0; w < plane_words; ++w) {
        std::uint32_t bits = 0;
        const std::size_t end = count < 32 * w ? 0 : count - 32 * w < 32 ? count - 32 * w : 32;
        for (std::size_t b = 0; b < end; ++b) {
            const std::uint32_t v = values[32 * w + b];
            const std::uint32_t nonzero = v != 0 ? 1u : 0u;
            stored[kept] = v;
            kept += nonzero;
            bits |= nonzero << b;
        }
        mask[w] = bits;
    }
    return kept;
}

}  // namespace

const kernel_table& scalar_kernels() noexcept;
const kernel_table& sse2_kernels() noexcept;  // x86-64 only
const kernel_table& avx2_kernels() noexcept;  // x86-64 only
const kernel_table& avx512_kernels() noexcept;  // x86-64 only: avx2's table, GFNI transposes

/// The active path's table (dispatch.cpp; null until first use or set_simd_path).
extern std::atomic<const kernel_table*> active_table;
/// active_kernels' cold path: picks the path once (dispatch.cpp).
const kernel_table& first_kernels_use();

/// The table for the active path (see simd.hpp). Cheap: one atomic load. Inline, so that a
/// caller that only dispatches (read_value) needs no call before its tail jump, and with it no
/// saved registers: out of line it cost a random read ~30 instructions (callgrind bam_pos).
inline const kernel_table& active_kernels() {
    const kernel_table* table = active_table.load(std::memory_order_acquire);
    if (table != nullptr) [[likely]] {
        return *table;
    }
    return first_kernels_use();
}

}  // namespace bitplane::detail
