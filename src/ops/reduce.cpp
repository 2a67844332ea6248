// Exact reductions (include/bitplane/reduce.hpp), block by block from the views of
// ops/block_view.hpp, in parallel over blocks (ops/reduce_support.hpp).
//
// A block of a plain or frame-of-reference column holds values v = base + r as exact
// integers, with residual r = sum_j w_j P_j over its planes: w_j = 2^j, except plane 31 of a
// plain int32 block, which weighs -2^31 (frame-of-reference residuals are unsigned offsets
// from a signed base). All-one planes are constants, not planes: with W1 = sum of their
// weights and L the plane length, r = l + W1 at each of the L positions, l from the stored
// ("live") planes alone. So, per block:
//
//   sum  = sum_live w_j pop(P_j) + L W1 + n base                      (no plane read twice)
//   dot  = sum_{j,k live} w_j w_k pop(A_j AND B_k)                     (the plane-pair matrix)
//          + W1b sum la + W1a sum lb + L W1a W1b                       (all-one planes)
//          + bb sum ra + ba sum rb + n ba bb                           (frame of reference)
//
// Sparse blocks have planes of length L = m over the non-zero residuals only; the base
// applies to all n values. Two sparse blocks with one mask pair up as they are; otherwise
// products vanish wherever either residual is zero, so both operands' planes are compacted
// (pext, extract kernel) to the positions where both may be non-zero, which makes sparse
// pairs cheap. Planes stored as copies or complements of another plane (references) are
// merged into it, with summed weights, before any pairing. The plane-pair matrix costs
// live_a * live_b plane scans, decode-and-multiply costs two untransposes and a multiply
// pass: choose_dot_method picks by the cost model of codec/thresholds.hpp. For dot, delta and
// zigzag blocks (and frame-of-reference blocks whose base + residual could pass the type's
// maximum, which the encoder never writes) are decoded.
//
// sum, min and max read the block summaries that vector_core keeps (block_summary.hpp: exact
// sum, smallest and largest key of every sealed block, 16 bytes), so a block costs 16 bytes
// instead of its payload: issue #13 asks sum to beat BitMagic's plane popcounts on every
// column, which no per-block plane work can on 2048-value blocks. popcount of sealed blocks
// does not build views: ops/block_sum.cpp counts a block's planes from its payloads where they
// lie; its encoded_block_sum (every transform: delta by position-weighted counts, zigzag by
// counts paired with plane 0) sums a block of bytes that has no summary.
//
// Dense all-raw blocks of 2048 values keep their planes interleaved in the arena (one column
// of every plane after another, codec/block_format.hpp). Viewing such a block de-interleaves
// it (~35 ns a plane on the development VM), which would cost more than the work itself for
// sums and for decode-and-multiply, so those two read the payload directly, through kernels
// made for it: per-plane popcounts (sum, popcount) and a transpose of the columns into the
// values (dot, sum_of_squares), or, where the path has one (avx512: GFNI transposes; avx2:
// simd/dot_fused_avx2.cpp, 8 x 8 bit transposes a byte of width at a time), a fused kernel
// that transposes both payloads' columns and multiplies them in registers. Their plane-pair
// method reads them in place too (interleaved_and_popcounts: one operand's planes in vector
// lanes, the other's words broadcast against them); every other block goes through view_block.
//
// Arithmetic is modulo 2^128 (uint128, which wraps instead of overflowing); the exact result
// fits the public type, so converting at the end gives it back.
#include <bitplane/reduce.hpp>

#include <bitplane/error.hpp>

#include "codec/block_format.hpp"
#include "codec/thresholds.hpp"
#include "ops/block_sum.hpp"
#include "ops/block_view.hpp"
#include "ops/reduce_internal.hpp"
#include "ops/reduce_support.hpp"
#include "simd/kernels.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

namespace bitplane::detail {
namespace {

using acc_t = uint128;

std::atomic<dot_method> forced_method{dot_method::automatic};

// ---- residual planes -----------------------------------------------------------------------

struct residual_form {
    bool planes = false;         // v = base + sum_j w_j P_j holds: plane arithmetic applies
    acc_t base = 0;              // frame-of-reference base (as an integer of the type, mod 2^128)
    std::uint32_t negative = 0;  // planes of negative weight
};

residual_form form_of(codec::transform transform, std::uint32_t for_base, std::uint32_t nonzero,
                      bool is_signed) noexcept {
    residual_form f;
    if (transform == codec::transform::none) {
        f.planes = true;
        f.negative = is_signed ? 0x80000000u : 0u;
        return f;
    }
    if (transform != codec::transform::frame_of_reference) return f;
    const std::int64_t base = is_signed ? std::int64_t{static_cast<std::int32_t>(for_base)} : std::int64_t{for_base};
    const std::int64_t max_value = is_signed ? std::int64_t{INT32_MAX} : std::int64_t{UINT32_MAX};
    // A residual's bits lie within the non-zero planes, so it is at most their mask.
    f.planes = base + std::int64_t{nonzero} <= max_value;
    f.base = static_cast<acc_t>(base);
    return f;
}

residual_form form_of(const block_view& view, bool is_signed) noexcept {
    return form_of(view.transform, view.for_base, view.nonzero(), is_signed);
}

// ---- interleaved all-raw blocks, read in place --------------------------------------------------

struct raw_block {
    block_descriptor header;
    const std::uint8_t* payload = nullptr;
    residual_form form;
};

// Whether the block of descriptor `out.header` (of `bytes`) is a dense, interleaved all-raw
// block whose residual planes are operable; if so, completes `out`.
bool raw_interleaved(std::span<const std::byte> bytes, bool is_signed, raw_block& out) {
    const block_descriptor& h = out.header;
    if (!h.interleaved() || h.sparse()) return false;
    out.form = form_of(h.transform(), h.for_base(), h.live | h.ones, is_signed);
    if (!out.form.planes) return false;
    out.payload = reinterpret_cast<const std::uint8_t*>(bytes.data()) + (h.stored != 0 ? h.payloads_at : 0);
    return true;
}

// From the descriptor the vector keeps (a parse_block of the header here took ~1,200
// instructions a block and operand: 7% of a 32-bit dot's).
bool raw_interleaved(const vector_core& v, std::size_t block, bool is_signed, raw_block& out) {
    if (block >= v.sealed_block_count() || !v.write_back_values(block).empty()) return false;
    out.header = v.sealed_descriptor(block);
    if (!out.header.interleaved() || out.header.sparse()) return false;
    return raw_interleaved(v.sealed_block(block, {}), is_signed, out);
}

constexpr std::size_t block_limit = ~std::size_t{0};  // no block: nothing to prefetch

// The encoded bytes of block `block` where they lie in the arena (empty for the tail, the
// write-back block and block_limit): what the interleaved kernels prefetch while they work
// on the block before it.
std::span<const std::byte> arena_bytes(const vector_core& v, std::size_t block) noexcept {
    if (block >= v.sealed_block_count() || !v.write_back_values(block).empty()) return {};
    return v.sealed_block(block, {});
}

const std::uint8_t* as_u8(std::span<const std::byte> bytes) noexcept {
    return bytes.empty() ? nullptr : reinterpret_cast<const std::uint8_t*>(bytes.data());
}

// The block's values, from its payload; `ahead` is prefetched meanwhile.
void raw_values(const raw_block& b, const kernel_table& kernels, std::uint32_t* out, std::span<const std::byte> ahead) {
    kernels.interleaved_transpose(b.payload, b.header.live, out, as_u8(ahead), ahead.size());
    const std::uint32_t ones = b.header.ones;  // all-one planes are not in the payload
    const auto base = static_cast<std::uint32_t>(b.form.base);
    if (ones != 0 || base != 0) {
        for (std::size_t i = 0; i < block_values; ++i) out[i] = (out[i] | ones) + base;
    }
}

// count * w_j.
acc_t weighted(std::uint64_t count, unsigned j, std::uint32_t negative) noexcept {
    const acc_t t = static_cast<acc_t>(count) << j;
    return ((negative >> j) & 1u) != 0 ? acc_t{0} - t : t;
}

// Sum of the weights of the all-one planes (W1).
acc_t ones_weight(const block_view& view, std::uint32_t negative) noexcept {
    acc_t w = 0;
    for (std::uint32_t ones = view.ones; ones != 0; ones &= ones - 1) {
        w += weighted(1, static_cast<unsigned>(std::countr_zero(ones)), negative);
    }
    return w;
}

// ---- sum ------------------------------------------------------------------------------------

acc_t sum_values(const std::uint32_t* values, std::uint32_t count, bool is_signed) noexcept {
    if (is_signed) {
        std::int64_t s = 0;  // 2048 * 2^31 fits
        for (std::uint32_t i = 0; i < count; ++i) s += static_cast<std::int32_t>(values[i]);
        return static_cast<acc_t>(s);
    }
    std::uint64_t s = 0;
    for (std::uint32_t i = 0; i < count; ++i) s += values[i];
    return s;
}

// ---- dot --------------------------------------------------------------------------------------

// The distinct stored planes of one operand, for the plane-pair method. The encoder stores
// copies of a plane (sign-extension planes, sentinel flags) as references, and a view
// rebuilds them: identical planes are merged by adding their weights, and a complement
// (P_j = ~P_r within the length) becomes weight -w_j on P_r plus w_j on the all-one
// constant. Weights are then exact integers of magnitude below 2^32.
struct plane_set {
    std::uint32_t count = 0;
    const std::uint32_t* words[plane_count];
    std::int64_t weight[plane_count];
    std::uint32_t pop[plane_count];  // over `length`
    acc_t ones = 0;                  // W1, the weight of the all-one constant
    std::uint32_t length = 0;

    // sum over the planes of weight * popcount: the residuals' sum without the constant.
    [[nodiscard]] acc_t live_sum() const noexcept {
        std::int64_t s = 0;  // 32 terms below 2^32 * 2^11
        for (std::uint32_t t = 0; t < count; ++t) s += weight[t] * pop[t];
        return static_cast<acc_t>(s);
    }
    // The residuals' sum: sum over the `length` positions.
    [[nodiscard]] acc_t residual_sum() const noexcept { return live_sum() + ones * length; }
};

bool same_words(const std::uint32_t* p, const std::uint32_t* q, std::size_t words) noexcept {
    for (std::size_t w = 0; w < words; ++w)
        if (p[w] != q[w]) return false;
    return true;
}

// p == ~q on bits [0, length), both zero above.
bool complement_words(const std::uint32_t* p, const std::uint32_t* q, std::uint32_t length) noexcept {
    const std::uint32_t full = length / 32;
    for (std::uint32_t w = 0; w < full; ++w)
        if (p[w] != ~q[w]) return false;
    const std::uint32_t tail = length % 32;
    return tail == 0 || p[full] == (~q[full] & ((1u << tail) - 1u));
}

void collect_planes(block_view& view, std::uint32_t negative, const kernel_table& kernels, plane_set& out) {
    const std::size_t words = plane_words_for(view.length);
    out.count = 0;
    out.length = view.length;
    out.ones = ones_weight(view, negative);
    for (std::uint32_t live = view.live; live != 0; live &= live - 1) {
        const auto j = static_cast<unsigned>(std::countr_zero(live));
        const std::uint32_t* p = view.planes.planes[j].data();
        const auto pop = static_cast<std::uint32_t>(kernels.popcount_words(p, words));
        const std::int64_t w = ((negative >> j) & 1u) != 0 ? -(std::int64_t{1} << j) : std::int64_t{1} << j;
        bool merged = false;
        for (std::uint32_t t = 0; t < out.count && !merged; ++t) {
            if (pop == out.pop[t] && same_words(p, out.words[t], words)) {
                out.weight[t] += w;
                merged = true;
            } else if (pop + out.pop[t] == view.length && complement_words(p, out.words[t], view.length)) {
                out.weight[t] -= w;
                out.ones += static_cast<acc_t>(w);
                merged = true;
            }
        }
        if (!merged) {
            out.words[out.count] = p;
            out.weight[out.count] = w;
            out.pop[out.count] = pop;
            ++out.count;
        }
    }
}

// Keeps the bits of every plane at the set bits of `select` (all-one planes stay all one
// over the new, shorter length), into `storage`.
void compact_planes(plane_set& set, const plane& select, std::uint32_t length, plane* storage,
                    const kernel_table& kernels) {
    const std::size_t words_in = plane_words_for(set.length);  // covers `select` and the planes
    const std::size_t words = plane_words_for(length);         // <= words_in
    for (std::uint32_t t = 0; t < set.count; ++t) {
        std::uint32_t* kept = storage[t].data();
        kernels.extract_plane(set.words[t], select.data(), words_in, kept);
        set.words[t] = kept;
        set.pop[t] = static_cast<std::uint32_t>(kernels.popcount_words(kept, words));
    }
    set.length = length;
}

// sum over position of (sum_t wa_t A_t) (sum_u wb_u B_u), from the matrix c[t][u] = pop(A_t AND B_u).
acc_t weigh_matrix(const std::uint32_t* c, const plane_set& a, const plane_set& b) noexcept {
    acc_t total = 0;
    for (std::uint32_t t = 0; t < a.count; ++t) {
        std::int64_t row = 0;  // 32 terms of magnitude below 2^11 * 2^32
        for (std::uint32_t u = 0; u < b.count; ++u) row += std::int64_t{c[t * b.count + u]} * b.weight[u];
        total += static_cast<acc_t>(static_cast<int128>(row) * a.weight[t]);
    }
    return total;
}

// The residuals' product sum of two sets of one length from their pair counts c (a's planes
// by rows): sum_{t,u} wa_t wb_u c_tu + W1b sum la + W1a sum lb + L W1a W1b.
acc_t residuals_from_pairs(const std::uint32_t* c, const plane_set& a, const plane_set& b) noexcept {
    return weigh_matrix(c, a, b) + b.ones * a.live_sum() + a.ones * b.live_sum() + a.ones * b.ones * a.length;
}

// The values' product sum from the residuals' (r = value - base): sum ra rb + Bb sum ra +
// Ba sum rb + n Ba Bb over n positions.
acc_t with_bases(acc_t residuals, acc_t sum_ra, acc_t sum_rb, acc_t base_a, acc_t base_b, std::uint32_t n) noexcept {
    return residuals + base_b * sum_ra + base_a * sum_rb + base_a * base_b * n;
}

// The plane-pair method on two sets of one length (aligned positions): the residuals' product
// sum (residuals_from_pairs) with the pair counts from and_popcounts.
acc_t residual_product(const plane_set& a, const plane_set& b, bool same, const kernel_table& kernels) {
    const std::size_t words = plane_words_for(a.length);
    std::uint32_t c[plane_count * plane_count];
    if (same) {
        // Symmetric: the upper triangle, row by row, mirrored.
        for (std::uint32_t t = 0; t < a.count; ++t) {
            std::uint32_t row[plane_count];
            kernels.and_popcounts(a.words + t, 1, a.words + t, a.count - t, words, row);
            for (std::uint32_t u = t; u < a.count; ++u) {
                c[t * a.count + u] = row[u - t];
                c[u * a.count + t] = row[u - t];
            }
        }
    } else if (a.count != 0 && b.count != 0) {
        kernels.and_popcounts(a.words, a.count, b.words, b.count, words, c);
    }
    return residuals_from_pairs(c, a, b);
}

acc_t dot_decoded(const block_view& a, const block_view& b, bool same, bool is_signed, const kernel_table& kernels) {
    alignas(64) std::uint32_t va[block_values];
    alignas(64) std::uint32_t vb[block_values];
    view_to_values(a, {va, a.count});
    if (!same) view_to_values(b, {vb, b.count});
    std::uint64_t out[2];
    kernels.dot_values(va, same ? va : vb, a.count, is_signed, out);
    return (static_cast<acc_t>(out[1]) << 64) | out[0];
}

}  // namespace

dot_method choose_dot_method(std::uint32_t live_a, std::uint32_t live_b, std::uint32_t words, std::uint32_t compact,
                             std::uint32_t decoded, std::uint32_t sparse, bool same) noexcept {
    namespace t = thresholds;
    const std::uint64_t pairs = same ? std::uint64_t{live_a} * (live_a + 1) / 2 : std::uint64_t{live_a} * live_b;
    const std::uint64_t plane_cost =
        pairs * words * t::dot_pair_ns / plane_words + std::uint64_t{compact} * t::dot_compact_plane_ns;
    const std::uint64_t decode_cost = (same ? 1u : 2u) * t::dot_untranspose_block_ns +
                                      std::uint64_t{decoded} * t::dot_untranspose_plane_ns +
                                      std::uint64_t{sparse} * t::dot_scatter_block_ns + t::dot_multiply_ns;
    return plane_cost <= decode_cost ? dot_method::planes : dot_method::decode;
}

fused_dot fused_kind(const kernel_table& kernels) noexcept {
    if (kernels.interleaved_dot == nullptr) return fused_dot::none;
    return kernels.path == simd_path::avx512 ? fused_dot::avx512 : fused_dot::avx2;
}

dot_method choose_raw_dot_method(std::uint32_t planes_a, std::uint32_t planes_b, bool same, fused_dot fused) noexcept {
    namespace t = thresholds;
    // The plane pairs, read in place: a pass over the columns per lane register of the
    // operand of more planes and group of the other's (interleaved_and_popcounts).
    const auto stored_a = static_cast<std::uint64_t>(std::popcount(planes_a));
    const auto stored_b = same ? stored_a : static_cast<std::uint64_t>(std::popcount(planes_b));
    const std::uint64_t wide_planes = std::max(stored_a, stored_b);
    const std::uint64_t narrow_planes = std::min(stored_a, stored_b);
    auto passes = [&](std::uint64_t lanes, std::uint64_t together) {
        return (wide_planes + lanes - 1) / lanes * ((narrow_planes + together - 1) / together);
    };
    const std::uint64_t plane_cost =
        fused == fused_dot::avx512 ? t::dot_inplace_block_ns_avx512 + passes(16, 4) * t::dot_inplace_pass_ns_avx512
        : fused == fused_dot::avx2 ? t::dot_inplace_block_ns_avx2 + passes(8, 1) * t::dot_inplace_pass_ns_avx2
                                   : t::dot_inplace_block_ns_sse2 + passes(4, 1) * t::dot_inplace_pass_ns_sse2;
    auto transpose = [](std::uint32_t planes) -> std::uint64_t {
        return planes < (1u << 8) ? t::dot_transpose8_block_ns
               : planes < (1u << 16) ? t::dot_transpose16_block_ns
                                     : t::dot_transpose32_block_ns;
    };
    // The AVX2 fused kernel transposes a byte of every operand's values at a time (up to the
    // highest non-zero plane); values of more than 30 bits take the 32-bit multiply (below,
    // 15-bit halves multiply in 16-bit lanes).
    auto width = [](std::uint32_t planes) { return planes == 0 ? 0u : 32u - static_cast<std::uint32_t>(std::countl_zero(planes)); };
    auto bytes = [&](std::uint32_t planes) -> std::uint64_t { return (width(planes) + 7) / 8; };
    std::uint64_t decode_cost = 0;
    switch (fused) {
        case fused_dot::none:
            decode_cost = transpose(planes_a) + (same ? 0 : transpose(planes_b)) + t::dot_multiply_ns;
            break;
        case fused_dot::avx512: {
            // Narrow operands take the AVX2 kernel there (kernels_avx512.cpp).
            const bool narrow = width(planes_a) <= t::dot_fused_avx2_on_avx512_bits &&
                                width(planes_b) <= t::dot_fused_avx2_on_avx512_bits;
            decode_cost = narrow ? t::dot_fused_avx2_on_avx512_block_ns +
                                       (bytes(planes_a) + (same ? 0 : bytes(planes_b))) * t::dot_fused_avx2_on_avx512_byte_ns
                                 : t::dot_fused_block_ns;
            break;
        }
        case fused_dot::avx2: {
            const bool wide = width(planes_a) > t::dot_fused_avx2_split_bits ||
                              (!same && width(planes_b) > t::dot_fused_avx2_split_bits);
            // A 9..15-bit operand's top byte and a narrow one's planes share one transpose
            // when they fit a byte together (dot_fused_avx2.cpp, dot_narrow_top).
            const auto top_fits = [&](std::uint32_t wider, std::uint32_t narrow) {
                return wider > 8 && wider < 16 && narrow != 0 && (wider - 8) + narrow <= 8;
            };
            const std::uint64_t shared = !same && (top_fits(width(planes_a), width(planes_b)) ||
                                                   top_fits(width(planes_b), width(planes_a)))
                                             ? 1
                                             : 0;
            decode_cost = t::dot_fused_avx2_block_ns + (wide ? t::dot_fused_avx2_wide_ns : 0) +
                          (bytes(planes_a) + (same ? 0 : bytes(planes_b)) - shared) * t::dot_fused_avx2_byte_ns;
            break;
        }
    }
    return plane_cost <= decode_cost ? dot_method::planes : dot_method::decode;
}

uint128 dot_block(block_view& a, block_view& b, bool same, bool is_signed, dot_method method) {
    const kernel_table& kernels = active_kernels();
    const residual_form fa = form_of(a, is_signed);
    const residual_form fb = same ? fa : form_of(b, is_signed);
    if (!fa.planes || !fb.planes || method == dot_method::decode) return dot_decoded(a, b, same, is_signed, kernels);
    plane_set pa;
    plane_set pb_storage;
    collect_planes(a, fa.negative, kernels, pa);
    if (!same) collect_planes(b, fb.negative, kernels, pb_storage);
    plane_set& pb = same ? pa : pb_storage;
    // The residuals' sums over all their positions, before any compaction.
    const acc_t sum_ra = pa.residual_sum();
    const acc_t sum_rb = same ? sum_ra : pb.residual_sum();

    // Pair up positions. Products are zero wherever either residual is: a sparse operand's
    // planes cover its non-zero residuals only, so both sides keep just the positions where
    // both can be non-zero (the dense side's planes are compacted by the sparse side's mask;
    // two sparse sides with different masks, each by the intersection expressed in its own
    // positions).
    plane select_a;
    plane select_b;
    bool compact_a = false;
    bool compact_b = false;
    std::uint32_t length = a.length;
    if (!same && (a.sparse || b.sparse) && !(a.sparse && b.sparse && a.mask == b.mask)) {
        if (a.sparse && b.sparse) {
            plane both;
            for (std::size_t w = 0; w < plane_words; ++w) both[w] = a.mask[w] & b.mask[w];
            const std::size_t words = plane_words_for(a.count);
            kernels.extract_plane(both.data(), a.mask.data(), words, select_a.data());
            kernels.extract_plane(both.data(), b.mask.data(), words, select_b.data());
            length = static_cast<std::uint32_t>(kernels.popcount_words(both.data(), plane_words));
            compact_a = compact_b = true;
        } else if (a.sparse) {
            select_b = a.mask;
            compact_b = true;
        } else {
            select_a = b.mask;
            compact_a = true;
            length = b.length;
        }
    }
    if (method == dot_method::automatic) {
        const std::uint32_t compact = (compact_a ? pa.count : 0u) + (compact_b ? pb.count : 0u);
        const auto decoded = static_cast<std::uint32_t>(std::popcount(a.nonzero()) + (same ? 0 : std::popcount(b.nonzero())));
        const std::uint32_t sparse = (a.sparse ? 1u : 0u) + (!same && b.sparse ? 1u : 0u);
        method = choose_dot_method(pa.count, pb.count, static_cast<std::uint32_t>(plane_words_for(length)), compact,
                                   decoded, sparse, same);
        if (method == dot_method::decode) return dot_decoded(a, b, same, is_signed, kernels);
    }
    plane storage_a[plane_count];  // the compacted planes (uninitialized: written before read)
    plane storage_b[plane_count];
    if (compact_a) compact_planes(pa, select_a, length, storage_a, kernels);
    if (compact_b) compact_planes(pb, select_b, length, storage_b, kernels);
    return with_bases(residual_product(pa, pb, same, kernels), sum_ra, sum_rb, fa.base, fb.base, a.count);
}

void force_dot_method(dot_method method) noexcept {
    forced_method.store(method, std::memory_order_relaxed);
}

namespace {

// An interleaved block as the kernels read it, with the next block's bytes to prefetch.
interleaved_operand interleaved_of(const raw_block& r, std::span<const std::byte> ahead) noexcept {
    return interleaved_operand{r.payload, r.header.live, r.header.ones, static_cast<std::uint32_t>(r.form.base),
                               as_u8(ahead), ahead.size()};
}

// Decode-and-multiply of two interleaved blocks, straight from their payloads.
acc_t raw_dot(const raw_block& a, const raw_block& b, bool same, bool is_signed, const kernel_table& kernels,
              std::span<const std::byte> ahead_a, std::span<const std::byte> ahead_b) {
    std::uint64_t out[2];
    if (kernels.interleaved_dot != nullptr) {
        const interleaved_operand oa = interleaved_of(a, ahead_a);
        const interleaved_operand ob = same ? oa : interleaved_of(b, ahead_b);
        kernels.interleaved_dot(&oa, &ob, is_signed, out);
        return (static_cast<acc_t>(out[1]) << 64) | out[0];
    }
    alignas(64) std::uint32_t va[block_values];
    alignas(64) std::uint32_t vb[block_values];
    raw_values(a, kernels, va, ahead_a);
    if (!same) raw_values(b, kernels, vb, ahead_b);
    kernels.dot_values(va, same ? va : vb, block_values, is_signed, out);
    return (static_cast<acc_t>(out[1]) << 64) | out[0];
}

// The plane-pair method on two interleaved blocks, read in place (no view de-interleaves
// them): the pair and plane counts from interleaved_and_popcounts, the operand of more stored
// planes in the kernel's lanes, weighed as residual_product does. All-raw planes are distinct
// (no references to merge).
void raw_weights(const raw_block& r, plane_set& set) noexcept {
    auto weight = [&](unsigned j) {
        return ((r.form.negative >> j) & 1u) != 0 ? -(std::int64_t{1} << j) : std::int64_t{1} << j;
    };
    set.count = 0;
    set.length = block_values;
    for (std::uint32_t live = r.header.live; live != 0; live &= live - 1) {
        set.weight[set.count++] = weight(static_cast<unsigned>(std::countr_zero(live)));
    }
    std::int64_t ones = 0;
    for (std::uint32_t rest = r.header.ones; rest != 0; rest &= rest - 1) {
        ones += weight(static_cast<unsigned>(std::countr_zero(rest)));
    }
    set.ones = static_cast<acc_t>(ones);
}

acc_t raw_pairs_dot(const raw_block& a, const raw_block& b, bool same, const kernel_table& kernels,
                    std::span<const std::byte> ahead_a, std::span<const std::byte> ahead_b) {
    plane_set pa;
    plane_set pb;
    raw_weights(a, pa);
    raw_weights(same ? a : b, pb);
    const interleaved_operand oa = interleaved_of(a, ahead_a);
    const interleaved_operand ob = same ? oa : interleaved_of(b, ahead_b);
    std::uint32_t c[plane_count * plane_count];
    // The operand of more planes in the kernel's lanes; the product is symmetric.
    const bool a_wider = pa.count >= pb.count;
    kernels.interleaved_and_popcounts(a_wider ? &oa : &ob, a_wider ? &ob : &oa, c, a_wider ? pa.pop : pb.pop,
                                      a_wider ? pb.pop : pa.pop);
    const acc_t residuals = a_wider ? residuals_from_pairs(c, pa, pb) : residuals_from_pairs(c, pb, pa);
    const acc_t base_b = same ? acc_t{a.form.base} : acc_t{b.form.base};
    return with_bases(residuals, pa.residual_sum(), pb.residual_sum(), a.form.base, base_b, block_values);
}

// One pair of interleaved blocks by `method` (planes or decode).
acc_t raw_block_dot(const raw_block& a, const raw_block& b, bool same, bool is_signed, dot_method method,
                    const kernel_table& kernels, std::span<const std::byte> ahead_a, std::span<const std::byte> ahead_b) {
    return method == dot_method::planes ? raw_pairs_dot(a, b, same, kernels, ahead_a, ahead_b)
                                        : raw_dot(a, b, same, is_signed, kernels, ahead_a, ahead_b);
}

template <column_value T>
acc_t dot_vectors(const vector<T>& a, const vector<T>& b) {
    constexpr bool is_signed = std::is_signed_v<T>;
    const bool same = &a == &b;
    const vector_core& ca = a.core();
    const vector_core& cb = b.core();
    const dot_method forced = forced_method.load(std::memory_order_relaxed);
    return reduce_blocks<acc_t>(
        ca.block_count(),
        [&](std::size_t first, std::size_t last, acc_t& part) {
            const kernel_table& kernels = active_kernels();
            raw_block ra;
            raw_block rb;
            block_view va;
            block_view vb;
            for (std::size_t block = first; block < last; ++block) {
                dot_method method = forced;
                if (raw_interleaved(ca, block, is_signed, ra) && (same || raw_interleaved(cb, block, is_signed, rb))) {
                    if (method == dot_method::automatic) {
                        method = choose_raw_dot_method(ra.header.live | ra.header.ones,
                                                       same ? 0u : rb.header.live | rb.header.ones, same,
                                                       fused_kind(kernels));
                    }
                    const std::size_t next = block + 1 < last ? block + 1 : block_limit;
                    part += raw_block_dot(ra, same ? ra : rb, same, is_signed, method, kernels, arena_bytes(ca, next),
                                          same ? std::span<const std::byte>() : arena_bytes(cb, next));
                    continue;
                }
                view_block(ca, block, va);
                if (!same) view_block(cb, block, vb);
                part += dot_block(va, same ? va : vb, same, is_signed, method);
            }
        },
        [](acc_t& total, const acc_t& part) { total += part; });
}

}  // namespace

uint128 dot_block_range(const vector_core& ca, const vector_core& cb, bool is_signed, std::size_t first,
                        std::size_t last) {
    const kernel_table& kernels = active_kernels();
    const bool same = &ca == &cb;
    raw_block ra;
    raw_block rb;
    block_view va;
    block_view vb;
    acc_t part = 0;
    for (std::size_t block = first; block < last; ++block) {
        if (raw_interleaved(ca, block, is_signed, ra) && (same || raw_interleaved(cb, block, is_signed, rb))) {
            const dot_method method = choose_raw_dot_method(
                ra.header.live | ra.header.ones, same ? 0u : rb.header.live | rb.header.ones, same, fused_kind(kernels));
            const std::size_t next = block + 1 < last ? block + 1 : block_limit;
            part += raw_block_dot(ra, same ? ra : rb, same, is_signed, method, kernels, arena_bytes(ca, next),
                                  same ? std::span<const std::byte>() : arena_bytes(cb, next));
            continue;
        }
        view_block(ca, block, va);
        if (!same) view_block(cb, block, vb);
        part += dot_block(va, same ? va : vb, same, is_signed, dot_method::automatic);
    }
    return part;
}

namespace {

// Differing bits and differing positions of two blocks, on their value planes.
struct difference {
    std::uint64_t bits = 0;
    std::uint64_t positions = 0;
};

void block_difference(block_view& a, block_view& b, bool count_bits, block_planes& scratch_a, block_planes& scratch_b,
                      const kernel_table& kernels, difference& out) {
    std::uint32_t nz_a = 0;
    std::uint32_t nz_b = 0;
    const block_planes& pa = value_planes(a, scratch_a, nz_a);
    const block_planes& pb = value_planes(b, scratch_b, nz_b);
    plane any{};
    plane x;
    for (std::uint32_t nz = nz_a | nz_b; nz != 0; nz &= nz - 1) {
        const auto j = static_cast<std::size_t>(std::countr_zero(nz));
        const bool in_a = ((nz_a >> j) & 1u) != 0;
        const bool in_b = ((nz_b >> j) & 1u) != 0;
        if (in_a && in_b) {
            for (std::size_t w = 0; w < plane_words; ++w) x[w] = pa.planes[j][w] ^ pb.planes[j][w];
        } else {
            x = in_a ? pa.planes[j] : pb.planes[j];
        }
        if (count_bits) out.bits += kernels.popcount_words(x.data(), plane_words);
        for (std::size_t w = 0; w < plane_words; ++w) any[w] |= x[w];
    }
    out.positions += kernels.popcount_words(any.data(), plane_words);
}

template <column_value T>
difference differences(const char* what, const vector<T>& a, const vector<T>& b, bool count_bits) {
    check_same_size(what, a.size(), b.size());
    if (&a == &b) return {};
    const vector_core& ca = a.core();
    const vector_core& cb = b.core();
    return reduce_blocks<difference>(
        ca.block_count(),
        [&](std::size_t first, std::size_t last, difference& part) {
            const kernel_table& kernels = active_kernels();
            block_view va;
            block_view vb;
            block_planes sa;
            block_planes sb;
            for (std::size_t block = first; block < last; ++block) {
                view_block(ca, block, va);
                view_block(cb, block, vb);
                block_difference(va, vb, count_bits, sa, sb, kernels, part);
            }
        },
        [](difference& total, const difference& part) {
            total.bits += part.bits;
            total.positions += part.positions;
        });
}

// The smallest (largest, when `largest`) value: sealed blocks from their summaries' keys, the
// write-back block and the tail from their values.
template <column_value T>
T extreme(const vector<T>& v, const char* what, bool largest) {
    const vector_core& core = v.core();
    if (core.size() == 0) throw argument_error(std::string("bitplane::") + what + ": the vector is empty");
    const std::uint32_t bias = key_bias(std::is_signed_v<T>);
    std::uint32_t best = largest ? 0u : ~0u;
    const auto fold = [&](std::uint32_t key) { best = largest ? std::max(best, key) : std::min(best, key); };
    const auto fold_values = [&](std::span<const std::uint32_t> values) {
        for (const std::uint32_t x : values) fold(x ^ bias);
    };
    for (std::size_t block = 0; block < core.sealed_block_count(); ++block) {
        const std::span<const std::uint32_t> pending = core.write_back_values(block);
        if (!pending.empty()) {
            fold_values(pending);
            continue;
        }
        const block_summary& s = core.sealed_summary(block);
        if (s.known()) {
            fold(largest ? s.max_key : s.min_key);
        } else {  // appended as bytes: no summary
            alignas(64) std::uint32_t values[block_values];
            core.decode_block(block, {values, block_values});
            fold_values({values, block_values});
        }
    }
    fold_values(core.tail());
    return std::bit_cast<T>(best ^ bias);
}

}  // namespace
}  // namespace bitplane::detail

namespace bitplane {

template <column_value T>
wide_t<T> sum(const vector<T>& v) {
    // Sealed blocks from their summaries, serially (16 bytes a block); the write-back block
    // (stale summary) and the tail from their values. Only if some block has no summary
    // (appended as bytes) are blocks split over threads, those summed from their planes.
    constexpr bool is_signed = std::is_signed_v<T>;
    const detail::vector_core& core = v.core();
    // A block's sum (a summary's, or 64 bits of them) as the accumulator: sign-extended for
    // int32 columns, whose sums are two's complement.
    const auto widen = [](std::uint64_t x) {
        return is_signed ? static_cast<detail::acc_t>(static_cast<std::int64_t>(x)) : static_cast<detail::acc_t>(x);
    };
    const auto block_sum = [&](std::size_t block, std::unique_ptr<detail::block_sum_scratch>& scratch) {
        const std::span<const std::uint32_t> pending = core.write_back_values(block);
        if (!pending.empty())
            return detail::sum_values(pending.data(), static_cast<std::uint32_t>(pending.size()), is_signed);
        const detail::block_summary& summary = core.sealed_summary(block);
        if (summary.known())
            return widen(summary.sum);
        const std::span<const std::byte> bytes = core.sealed_block(block, {});
        if (!scratch) scratch = std::make_unique<detail::block_sum_scratch>();
        return detail::encoded_block_sum(detail::parse_block(bytes, block_values, false), bytes, is_signed,
                                         detail::active_kernels(), *scratch);
    };
    const std::size_t sealed = core.sealed_block_count();
    // Summaries only, in one pass that stops at the first block without one: 64-bit partial
    // sums (a block's sum is below 2^43 in magnitude, so 2^20 blocks fit; two's complement
    // wraps correctly), then the write-back block's values in place of its stale summary.
    detail::acc_t total = 0;
    bool all_known = true;
    constexpr std::size_t chunk = std::size_t{1} << 20;
    for (std::size_t first = 0; first < sealed && all_known; first += chunk) {
        const std::size_t last = std::min(sealed, first + chunk);
        std::uint64_t part = 0;
        for (std::size_t block = first; block < last; ++block) {
            const detail::block_summary& summary = core.sealed_summary(block);
            if (!summary.known()) {
                all_known = false;
                break;
            }
            part += summary.sum;
        }
        total += widen(part);
    }
    std::unique_ptr<detail::block_sum_scratch> none;  // never made: every block here is summarized
    if (all_known) {
        if (const std::size_t hot = core.write_back_block(); hot < sealed) {
            total -= widen(core.sealed_summary(hot).sum);
            total += block_sum(hot, none);
        }
    } else {
        total = detail::reduce_blocks<detail::acc_t>(
            sealed,
            [&](std::size_t first, std::size_t last, detail::acc_t& part) {
                std::unique_ptr<detail::block_sum_scratch> scratch;
                for (std::size_t block = first; block < last; ++block) part += block_sum(block, scratch);
            },
            [](detail::acc_t& t, const detail::acc_t& part) { t += part; });
    }
    const std::span<const std::uint32_t> tail = core.tail();
    total += detail::sum_values(tail.data(), static_cast<std::uint32_t>(tail.size()), is_signed);
    return static_cast<wide_t<T>>(total);
}

template <column_value T>
T min(const vector<T>& v) {
    return detail::extreme(v, "min", false);
}

template <column_value T>
T max(const vector<T>& v) {
    return detail::extreme(v, "max", true);
}

template <column_value T>
wide_t<T> dot(const vector<T>& a, const vector<T>& b) {
    detail::check_same_size("dot", a.size(), b.size());
    return static_cast<wide_t<T>>(detail::dot_vectors(a, b));
}

template <column_value T>
uint128 sum_of_squares(const vector<T>& v) {
    return detail::dot_vectors(v, v);  // non-negative for both types
}

template <column_value T>
std::uint64_t popcount(const vector<T>& v) {
    const detail::vector_core& core = v.core();
    return detail::reduce_blocks<std::uint64_t>(
        core.block_count(),
        [&](std::size_t first, std::size_t last, std::uint64_t& part) {
            const detail::kernel_table& kernels = detail::active_kernels();
            detail::block_view view;
            alignas(64) std::uint32_t values[block_values];
            detail::raw_block raw;
            std::uint32_t counts[plane_count];
            std::unique_ptr<detail::block_sum_scratch> scratch;
            for (std::size_t block = first; block < last; ++block) {
                const std::span<const std::byte> bytes = detail::arena_bytes(core, block);
                if (!bytes.empty()) {
                    const detail::parsed_block parsed = detail::parse_block(bytes, block_values, false);
                    if (parsed.value_transform == codec::transform::none && !parsed.interleaved) {
                        if (!scratch) scratch = std::make_unique<detail::block_sum_scratch>();
                        part += detail::encoded_block_popcount(parsed, bytes, kernels, *scratch);
                        continue;
                    }
                    raw.header = parsed.descriptor;
                }
                if (!bytes.empty() && detail::raw_interleaved(bytes, false, raw) &&
                    raw.header.transform() == codec::transform::none) {
                    const std::size_t next = block + 1 < last ? block + 1 : detail::block_limit;
                    const std::span<const std::byte> ahead = detail::arena_bytes(core, next);
                    kernels.interleaved_popcounts(raw.payload, raw.header.stored, counts, detail::as_u8(ahead),
                                                  ahead.size());
                    for (std::uint32_t i = 0; i < raw.header.stored; ++i) part += counts[i];
                    part += std::uint64_t{block_values} * static_cast<std::uint32_t>(std::popcount(raw.header.ones));
                    continue;
                }
                detail::view_block(core, block, view);
                if (view.transform == codec::transform::none) {
                    // The residuals are the values (zeros left out when sparse).
                    const std::size_t words = detail::plane_words_for(view.length);
                    for (std::uint32_t live = view.live; live != 0; live &= live - 1) {
                        part += kernels.popcount_words(view.planes.planes[std::countr_zero(live)].data(), words);
                    }
                    part += std::uint64_t{view.length} * static_cast<std::uint32_t>(std::popcount(view.ones));
                } else {
                    detail::view_to_values(view, {values, view.count});
                    part += kernels.popcount_words(values, view.count);
                }
            }
        },
        [](std::uint64_t& t, const std::uint64_t& part) { t += part; });
}

template <column_value T>
std::uint64_t hamming_distance(const vector<T>& a, const vector<T>& b) {
    return detail::differences("hamming_distance", a, b, true).bits;
}

template <column_value T>
std::uint64_t mismatch_count(const vector<T>& a, const vector<T>& b) {
    return detail::differences("mismatch_count", a, b, false).positions;
}

template wide_t<std::uint32_t> sum(const vector<std::uint32_t>&);
template wide_t<std::int32_t> sum(const vector<std::int32_t>&);
template std::uint32_t min(const vector<std::uint32_t>&);
template std::int32_t min(const vector<std::int32_t>&);
template std::uint32_t max(const vector<std::uint32_t>&);
template std::int32_t max(const vector<std::int32_t>&);
template uint128 sum_of_squares(const vector<std::uint32_t>&);
template uint128 sum_of_squares(const vector<std::int32_t>&);
template wide_t<std::uint32_t> dot(const vector<std::uint32_t>&, const vector<std::uint32_t>&);
template wide_t<std::int32_t> dot(const vector<std::int32_t>&, const vector<std::int32_t>&);
template std::uint64_t popcount(const vector<std::uint32_t>&);
template std::uint64_t popcount(const vector<std::int32_t>&);
template std::uint64_t hamming_distance(const vector<std::uint32_t>&, const vector<std::uint32_t>&);
template std::uint64_t hamming_distance(const vector<std::int32_t>&, const vector<std::int32_t>&);
template std::uint64_t mismatch_count(const vector<std::uint32_t>&, const vector<std::uint32_t>&);
template std::uint64_t mismatch_count(const vector<std::int32_t>&, const vector<std::int32_t>&);

}  // namespace bitplane
