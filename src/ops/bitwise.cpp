// Element-wise AND, OR, XOR, AND-NOT and NOT of vectors (include/bitplane/bitwise.hpp).
//
// Full blocks are combined one by one, in parallel over blocks (vector_core::
// append_encoded_blocks), and re-encoded with codec::encode_block; the partial last block is
// combined value by value into the result's tail. Per block, cheapest first:
//   0. both blocks plain, all-raw, with the same live planes (uniform data): op on the stored
//      interleaved words themselves, checking only that no plane became constant;
//   1. no plane work: identical operands (x & x = x | x = x, x ^ x = x & ~x = 0) and blocks
//      that are all zero in one operand (x & 0 = 0, x | 0 = x ^ 0 = x) answer with an all-zero
//      block or the other operand's encoded bytes, copied unchanged;
//   2. AND, and AND-NOT with a sparse left operand, where an operand whose zeros the result
//      keeps is plain and sparse: both operands at that mask's positions only (compacted
//      planes), combined and encoded in the sparse layout from the planes (write_sparse_raw
//      where every plane is plainly raw, else codec::encode_sparse_planes). Against a plain
//      dense interleaved block with a sparse all-raw one (combine_sparse_raw) this reads the
//      stored bytes: the sparse payloads as they are, its mask from the vector's gap-list map
//      where it keeps one, the dense columns compacted to the mask all planes at once
//      (kernel_table::extract_planes), and writes the result's mask raw where it keeps many
//      values (thresholds::bitwise_raw_mask_min_values: no gap list written, nor mapped when
//      the block is appended); other pairs go through block views (combine_sparse);
//   2b. a plain dense interleaved operand with another one (different live planes) or with a
//      plain sparse all-raw one (its planes spread over its mask), for every operation: the
//      result's words from the stored words, written all-raw interleaved unless a plane is
//      constant or the planner would make it much smaller (combine_interleaved;
//      thresholds::bitwise_all_raw_max_eighths);
//   3. both blocks plain (untransformed), dense or sparse: the live value planes (a sparse
//      block's spread over its mask) are combined word by word (a few hundred bytes per
//      plane, vectorized by the compiler) and encoded from the planes (codec::encode_planes:
//      elision + raw/positions/gaps per plane, no transform search), which is what makes
//      this path faster than a dense loop on uniform data;
//   4. otherwise (frame of reference, delta, zigzag): both blocks are decoded to values and
//      combined value by value, which costs less than transposing their values back into
//      planes (two transposes) and untransposing the result once more.
// Re-encoding from values dominates path 4 (see bench/bench_bitwise.cpp).
#include <bitplane/bitwise.hpp>

#include <bitplane/error.hpp>

#include "core/vector_access.hpp"
#include "codec/block_decoding.hpp"
#include "codec/block_format.hpp"
#include "codec/block_writer.hpp"
#include "codec/byte_io.hpp"
#include "codec/direct_access.hpp"
#include "codec/thresholds.hpp"
#include "ops/block_view.hpp"
#include "ops/reduce_support.hpp"
#include "simd/kernels.hpp"
#include "simd/kernels_compact.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace bitplane::detail {

namespace {

// What a block answers with when no plane work is needed.
enum class answer { compute, zero, left, right };

// Operations: the word operation, the planes it can make non-zero from the operands' non-zero
// planes, and the shortcuts. `unary` operations ignore their second operand.
struct and_op {
    static constexpr bool unary = false;
    static std::uint32_t apply(std::uint32_t a, std::uint32_t b) noexcept { return a & b; }
    static std::uint32_t planes(std::uint32_t a, std::uint32_t b) noexcept { return a & b; }
    static constexpr answer left_zero = answer::zero;   // 0 & b
    static constexpr answer right_zero = answer::zero;  // a & 0
    static constexpr answer same = answer::left;        // a & a
    // The result is zero wherever this operand is (combine_sparse).
    static constexpr bool keeps_left_zeros = true;
    static constexpr bool keeps_right_zeros = true;
};

struct or_op {
    static constexpr bool unary = false;
    static std::uint32_t apply(std::uint32_t a, std::uint32_t b) noexcept { return a | b; }
    static std::uint32_t planes(std::uint32_t a, std::uint32_t b) noexcept { return a | b; }
    static constexpr answer left_zero = answer::right;
    static constexpr answer right_zero = answer::left;
    static constexpr answer same = answer::left;
    static constexpr bool keeps_left_zeros = false;
    static constexpr bool keeps_right_zeros = false;
};

struct xor_op {
    static constexpr bool unary = false;
    static std::uint32_t apply(std::uint32_t a, std::uint32_t b) noexcept { return a ^ b; }
    static std::uint32_t planes(std::uint32_t a, std::uint32_t b) noexcept { return a | b; }
    static constexpr answer left_zero = answer::right;
    static constexpr answer right_zero = answer::left;
    static constexpr answer same = answer::zero;
    static constexpr bool keeps_left_zeros = false;
    static constexpr bool keeps_right_zeros = false;
};

struct andnot_op {
    static constexpr bool unary = false;
    static std::uint32_t apply(std::uint32_t a, std::uint32_t b) noexcept { return a & ~b; }
    static std::uint32_t planes(std::uint32_t a, std::uint32_t /*b*/) noexcept { return a; }
    static constexpr answer left_zero = answer::zero;   // 0 & ~b
    static constexpr answer right_zero = answer::left;  // a & ~0
    static constexpr answer same = answer::zero;
    static constexpr bool keeps_left_zeros = true;
    static constexpr bool keeps_right_zeros = false;
};

struct not_op {
    static constexpr bool unary = true;
    static std::uint32_t apply(std::uint32_t a, std::uint32_t /*b*/) noexcept { return ~a; }
    static std::uint32_t planes(std::uint32_t /*a*/, std::uint32_t /*b*/) noexcept { return ~0u; }
    // No shortcut answers: a unary operation never takes the two-operand shortcuts.
};

// Per-thread working memory (~83 KiB): two views, the result planes, two compacted operands,
// two value buffers, the sparse result's plan and its planes column by column.
struct scratch {
    block_view left;
    block_view right;
    block_planes result;
    block_planes compact_left;   // combine_sparse: the operands at the result's possible
    block_planes compact_right;  // non-zero positions
    alignas(64) std::uint32_t values[block_values];
    alignas(64) std::uint32_t other[block_values];
    block_plan plan;             // write_sparse_raw: the mask's choice
    // finish_sparse: the result's compacted planes, whole planes apart (word w of the r-th
    // result plane at columns[r * plane_words + w]), for one extract_planes call.
    alignas(64) std::uint32_t columns[plane_words * plane_count];
};

scratch& thread_scratch() {
    thread_local const std::unique_ptr<scratch> s = std::make_unique<scratch>();
    return *s;
}

// The encoding of a full block of zeros, as the encoder writes it (the same for both types).
std::span<const std::byte> zero_block() {
    struct encoded {
        std::array<std::byte, codec::max_block_bytes> bytes;
        std::size_t size;
    };
    static const encoded zeros = [] {
        encoded e{};
        const std::array<std::uint32_t, block_values> values{};
        e.size = codec::encode_block(values, false, e.bytes);
        return e;
    }();
    return {zeros.bytes.data(), zeros.size};
}

// Whether full block `block` of `v` is all zero as stored: a plain, dense block with no live
// and no all-one planes (a header check), or a write-back block of zeros.
bool zero_block_in(const vector_core& v, std::size_t block) {
    const std::span<const std::uint32_t> hot = v.write_back_values(block);
    if (!hot.empty()) return std::all_of(hot.begin(), hot.end(), [](std::uint32_t x) { return x == 0; });
    const block_descriptor& d = v.sealed_descriptor(block);
    return d.transform() == codec::transform::none && !d.sparse() && d.ones == 0 && d.live == 0;
}

std::size_t copy_into(std::span<const std::byte> bytes, std::span<std::byte> out) {
    if (bytes.data() != out.data()) std::memcpy(out.data(), bytes.data(), bytes.size());
    return bytes.size();
}

// Writes the encoded bytes `kind` names for block `block` into `out`.
std::size_t write_answer(answer kind, const vector_core& a, const vector_core& b, std::size_t block,
                         std::span<std::byte> out) {
    switch (kind) {
        case answer::zero: return copy_into(zero_block(), out);
        case answer::left: return copy_into(a.sealed_block(block, out), out);
        case answer::right: return copy_into(b.sealed_block(block, out), out);
        case answer::compute: break;
    }
    return 0;
}

// result = op(left, right) on value planes (the non-zero ones: a and b); returns the planes of
// the result that may be non-zero (the others are not written).
template <class Op>
std::uint32_t combine_planes(const block_planes& left, std::uint32_t a, const block_planes* right, std::uint32_t b,
                             block_planes& result) {
    static const plane zero{};
    const std::uint32_t live = Op::planes(a, b);
    for (std::uint32_t bits = live; bits; bits &= bits - 1) {
        const auto j = static_cast<std::size_t>(std::countr_zero(bits));
        const plane& x = (a >> j) & 1u ? left.planes[j] : zero;
        const plane& y = right && ((b >> j) & 1u) ? right->planes[j] : zero;
        plane& r = result.planes[j];
        for (std::size_t w = 0; w < plane_words; ++w) r[w] = Op::apply(x[w], y[w]);
    }
    return live;
}

// Words [from, to) of `p` zeroed 8 at a time (one register store each, words from `to` up to
// the next 8 too: the compacted planes' words past the ones in use are scratch), not by a
// memset call for a few words (~25 instructions a plane: 10 planes twice a sparse AND block).
void clear_words(plane& p, std::size_t from, std::size_t to) {
    std::size_t w = from;
    for (; w < to && w + 8 <= plane_words; w += 8) std::memset(p.data() + w, 0, 32);
    for (; w < to; ++w) p[w] = 0;
}

// The stored planes of a plain, dense, all-raw full block (uniform data): its live mask and
// its interleaved plane words, usable as they are. Empty when the block is anything else.
struct raw_block {
    std::uint32_t live = 0;
    const std::byte* words = nullptr;
};

raw_block raw_block_in(const vector_core& v, std::size_t block) {
    if (!v.write_back_values(block).empty()) return {};
    // The table's descriptor: plain (flags all-raw alone: no transform, dense, no ones), full.
    const block_descriptor& d = v.sealed_descriptor(block);
    if (d.flags != block_flags::all_raw || !d.interleaved()) return {};
    return {d.live, v.sealed_block(block, {}).data() + d.payloads_at};
}

// op(a, b) straight on the stored bytes of two such blocks with the same live planes: the
// interleaved words line up, so the result's words are op of the operands' words, and the
// result is again a plain all-raw block, unless op made some plane all zero or all one
// (then it must be elided and this returns 0, leaving the general path to do it).
template <class Op>
std::size_t combine_raw(const raw_block& x, const raw_block& y, std::span<std::byte> out) {
    const auto stored = static_cast<std::size_t>(std::popcount(x.live));
    const std::size_t words = stored * plane_words;
    block_prefix prefix;
    prefix.all_raw = true;
    std::uint32_t header = put_block_prefix(out.data(), prefix);
    header += put_plane_masks(out.data() + header, x.live, 0);
    std::byte* result = out.data() + header;
    for (std::size_t w = 0; w < words; ++w)
        store_le<std::uint32_t>(result + 4 * w, Op::apply(load_le<std::uint32_t>(x.words + 4 * w),
                                                          load_le<std::uint32_t>(y.words + 4 * w)));
    // A constant plane (no or every bit set) must be elided. The popcount kernel counts the
    // interleaved planes with the CPU's vectors: a scalar OR/AND of every word into per-plane
    // accumulators was ~5 instructions a word, half of this path (callgrind).
    std::uint32_t set[plane_count];
    active_kernels().interleaved_popcounts(reinterpret_cast<const std::uint8_t*>(result), static_cast<std::uint32_t>(stored),
                                           set, nullptr, 0);
    for (std::size_t k = 0; k < stored; ++k)
        if (set[k] == 0 || set[k] == block_values) return 0;
    return header + stored * plane_bytes;
}

// The value planes of a plain view: its own planes when dense; a sparse view's planes spread
// over its mask (non-zero planes only) into `scratch`.
const block_planes& spread_planes(const block_view& view, block_planes& scratch) {
    if (!view.sparse) return view.planes;
    const kernel_table& k = active_kernels();
    for (std::uint32_t bits = view.nonzero(); bits; bits &= bits - 1) {
        const auto j = static_cast<std::size_t>(std::countr_zero(bits));
        k.deposit_plane(view.planes.planes[j].data(), view.mask.data(), scratch.planes[j].data());
    }
    return scratch;
}

// `view`'s planes `nonzero` taken at the positions set in `within` (a full block's plane),
// compacted into out[j] (the first `words` words written, the rest not): straight from a
// dense plain view; from a sparse one through `select` (the positions of `within` among its
// mask) when `within` lies inside its mask, else by spreading its planes over the mask first.
void compact_planes(const block_view& view, const plane& within, std::size_t words, block_planes& out) {
    const kernel_table& k = active_kernels();
    if (!view.sparse) {
        for (std::uint32_t bits = view.nonzero(); bits; bits &= bits - 1) {
            const auto j = static_cast<std::size_t>(std::countr_zero(bits));
            k.extract_plane(view.planes.planes[j].data(), within.data(), plane_words, out.planes[j].data());
        }
        return;
    }
    bool inside = true;
    for (std::size_t w = 0; w < plane_words; ++w) inside = inside && (within[w] & ~view.mask[w]) == 0;
    if (inside) {
        plane select;
        k.extract_plane(within.data(), view.mask.data(), plane_words, select.data());
        const std::size_t from = plane_words_for(view.length);
        for (std::uint32_t bits = view.nonzero(); bits; bits &= bits - 1) {
            const auto j = static_cast<std::size_t>(std::countr_zero(bits));
            k.extract_plane(view.planes.planes[j].data(), select.data(), from, out.planes[j].data());
            std::fill(out.planes[j].begin() + static_cast<std::ptrdiff_t>(from),
                      out.planes[j].begin() + static_cast<std::ptrdiff_t>(std::max(from, words)), 0u);
        }
        return;
    }
    plane spread;
    for (std::uint32_t bits = view.nonzero(); bits; bits &= bits - 1) {
        const auto j = static_cast<std::size_t>(std::countr_zero(bits));
        k.deposit_plane(view.planes.planes[j].data(), view.mask.data(), spread.data());
        k.extract_plane(spread.data(), within.data(), plane_words, out.planes[j].data());
    }
}

// The sparse block of `mask` (kept = its popcount) whose planes `candidates` are `planes`
// (kept bits each; words from plane_words_for(kept) on not read), written with every stored
// plane raw when that is plainly what the planner would choose: every stored plane has at
// least ceil(kept / 8) - 4 set and as many clear bits, so no gap or position list (4 bytes
// of descriptor and count, a byte or more per bit) is smaller than its raw bytes, and
// codec::encode_sparse_planes would store them all raw (references and runs are not
// planned there). The bytes are then those encode_sparse_planes writes, without measuring
// 64-word planes or copying them through write_plan. Returns 0 where the plan is not plain
// (the caller encodes with encode_sparse_planes). `raw_mask`: the mask is a subset of one the
// planner stored as a gap list or raw, so that a mask of thresholds::bitwise_raw_mask_min_values
// or more set bits is written raw, unplanned (no list written, nor mapped on append).
std::size_t write_sparse_raw(const plane& mask, std::uint32_t kept, const block_planes& planes,
                             std::uint32_t candidates, bool raw_mask, block_plan& plan, std::span<std::byte> out) {
    const kernel_table& k = active_kernels();
    const std::size_t words = plane_words_for(kept);
    const std::uint32_t raw = raw_payload::payload_bytes(kept);
    const std::uint32_t listed = thresholds::descriptor_bytes + thresholds::item_count_bytes;
    // Every candidate's set bits in one kernel call (one popcount_words call a plane cost
    // ~60 instructions for its few words).
    static const plane all_ones = ones_plane(block_values);
    const std::uint32_t* rows[plane_count];
    std::uint32_t count = 0;
    for (std::uint32_t bits = candidates; bits; bits &= bits - 1)
        rows[count++] = planes.planes[static_cast<std::size_t>(std::countr_zero(bits))].data();
    std::uint32_t sets[plane_count];
    const std::uint32_t* const all = all_ones.data();
    k.and_popcounts(&all, 1, rows, count, words, sets);
    std::uint32_t live = 0, ones = 0, rank = 0;
    for (std::uint32_t bits = candidates; bits; bits &= bits - 1, ++rank) {
        const auto j = static_cast<std::uint32_t>(std::countr_zero(bits));
        const std::uint32_t set = sets[rank];
        if (set == 0) continue;
        if (set == kept) {
            ones |= 1u << j;
            continue;
        }
        if (std::min(set, kept - set) + listed < raw) return 0;
        live |= 1u << j;
    }
    const bool mask_raw = raw_mask && kept >= thresholds::bitwise_raw_mask_min_values;
    if (!mask_raw) {
        plan.sparse = true;
        plan.count = block_values;
        plan.mask = mask;
        choose_mask(plan, kept, static_cast<std::uint32_t>(k.popcount_words(transitions(mask).data(), plane_words)),
                    codec::encode_options{});
    }
    block_writer w(out.data());
    block_prefix prefix;
    prefix.sparse = true;
    prefix.has_ones = ones != 0;
    prefix.all_raw = live != 0;
    prefix.stored_values = kept;
    w.advance(put_block_prefix(w.cursor(), prefix));
    if (mask_raw) {
        w.advance(put_plane_descriptor(w.cursor(), 0, codec::payload_kind::raw, codec::base_kind::zero, 0, 0));
        w.advance(raw_payload::write(mask, block_values, w.cursor()));
    } else {
        put_descriptor(w, 0, plan.mask_choice);
        put_payload(w, mask, plan.mask_choice, planes, block_values);
    }
    w.advance(put_plane_masks(w.cursor(), live, ones));
    for (std::uint32_t bits = live; bits; bits &= bits - 1)
        w.advance(raw_payload::write(planes.planes[static_cast<std::size_t>(std::countr_zero(bits))], kept, w.cursor()));
    return w.size();
}

// The end of combine_sparse: op of the operands' planes compacted to the `length` set bits of
// `within` (a: the left operand's non-zero planes in `left`, b: the right one's in `right`;
// the first plane_words_for(length) words of each valid), re-compacted to the values that
// stayed non-zero and encoded in the sparse layout.
template <class Op>
std::size_t finish_sparse(const plane& within, std::uint32_t length, const block_planes& left, std::uint32_t a,
                          const block_planes& right, std::uint32_t b, bool raw_mask, scratch& s,
                          std::span<std::byte> out) {
    const kernel_table& k = active_kernels();
    const std::size_t words = plane_words_for(length);
    static const plane zero{};
    const std::uint32_t live = Op::planes(a, b);
    // The result's words go into s.columns a whole plane apart (word w of the r-th plane of
    // `live` at columns[r * plane_words + w]), which extract_planes re-compacts from with a
    // plane stride it knows (constant offsets): a plane's words in a vectorized loop. Written
    // column by column (strided stores, ~9 instructions a word) they cost ~0.7K instructions
    // a block of an AND of uniform 10-bit with a 90%-sparse column (callgrind, AVX2).
    plane kept{};  // values that stayed non-zero, among the `length` compacted ones
    std::uint32_t* to = s.columns;
    for (std::uint32_t bits = live; bits; bits &= bits - 1, to += plane_words) {
        const auto j = static_cast<std::size_t>(std::countr_zero(bits));
        const plane& x = (a >> j) & 1u ? left.planes[j] : zero;
        const plane& y = (b >> j) & 1u ? right.planes[j] : zero;
        for (std::size_t w = 0; w < words; ++w) {
            const std::uint32_t r = Op::apply(x[w], y[w]);
            to[w] = r;
            kept[w] |= r;
        }
    }
    const auto still = static_cast<std::uint32_t>(k.popcount_words(kept.data(), words));
    if (still == 0) return copy_into(zero_block(), out);
    plane mask = within;
    // The planes from the columns, at the values that stayed non-zero (all of them where
    // none became zero: the same bits, in planes); every plane at once, the kept words'
    // popcounts shared (extract_plane on each plane cost ~170 instructions a call for its
    // few words).
    if (still < length) k.deposit_plane(kept.data(), within.data(), mask.data());
    const auto* columns = reinterpret_cast<const std::uint8_t*>(s.columns);
    if (k.extract_planes) {
        k.extract_planes(columns, 4, 4 * plane_words, live, kept.data(), words, s.result.planes[0].data());
    } else {
        extract_planes_with(columns, 4, 4 * plane_words, live, kept.data(), words, s.result.planes[0].data(),
                            &extract32_portable);
    }
    const std::size_t written = (std::size_t{still} + 31) / 32;  // then zeros up to `words`
    for (std::uint32_t bits = live; bits; bits &= bits - 1) {
        clear_words(s.result.planes[static_cast<std::size_t>(std::countr_zero(bits))], written, words);
    }
    if (const std::size_t bytes = write_sparse_raw(mask, still, s.result, live, raw_mask, s.plan, out)) return bytes;
    for (std::uint32_t bits = live; bits; bits &= bits - 1) {
        plane& r = s.result.planes[static_cast<std::size_t>(std::countr_zero(bits))];
        std::fill(r.begin() + static_cast<std::ptrdiff_t>(words), r.end(), 0u);
    }
    return codec::encode_sparse_planes(mask, s.result, live, block_values, out);
}

// op(a, b) for AND and AND-NOT where an operand whose zeros the result keeps (either one for
// AND, the left one for AND-NOT) is plain and sparse: the result can be non-zero only inside
// that operand's mask, so both operands are taken at those positions alone (compacted planes
// of a few words), combined, re-compacted to the values that stayed non-zero, and encoded
// in the sparse layout from those planes (write_sparse_raw, else codec::encode_sparse_planes)
// - instead of decoding both blocks and encoding 2048 values from scratch. Returns 0 where
// it does not apply (a transformed operand, or no such sparse operand).
template <class Op>
std::size_t combine_sparse(const block_view& left, const block_view& right, scratch& s, std::span<std::byte> out) {
    if constexpr (!Op::keeps_left_zeros && !Op::keeps_right_zeros) {
        return 0;
    } else {
        const bool left_bounds = Op::keeps_left_zeros && left.sparse;
        const bool right_bounds = Op::keeps_right_zeros && right.sparse;
        if (left.transform != codec::transform::none || right.transform != codec::transform::none ||
            (!left_bounds && !right_bounds))
            return 0;
        const kernel_table& k = active_kernels();
        plane within;
        for (std::size_t w = 0; w < plane_words; ++w)
            within[w] = (left_bounds ? left.mask[w] : ~0u) & (right_bounds ? right.mask[w] : ~0u);
        const auto length = static_cast<std::uint32_t>(k.popcount_words(within.data(), plane_words));
        if (length == 0) return copy_into(zero_block(), out);
        const std::size_t words = plane_words_for(length);
        compact_planes(left, within, words, s.compact_left);
        compact_planes(right, within, words, s.compact_right);
        return finish_sparse<Op>(within, length, s.compact_left, left.nonzero(), s.compact_right, right.nonzero(),
                                 false, s, out);
    }
}

// A plain, sparse, all-raw sealed block read in place: its mask rebuilt, its planes (`length`
// bits each, raw, one after another from `payloads`) not copied.
struct sparse_raw_block {
    plane mask;
    std::uint32_t length = 0;
    std::uint32_t live = 0;
    std::uint32_t ones = 0;
    const std::byte* payloads = nullptr;
};

bool plain_sparse_raw(const block_descriptor& d) {
    return d.transform() == codec::transform::none && d.sparse() && (d.all_raw() || d.live == 0);
}

bool plain_interleaved(const block_descriptor& d) {
    return d.transform() == codec::transform::none && !d.sparse() && d.interleaved();
}

void read_sparse_raw(const vector_core& v, std::size_t block, sparse_raw_block& out) {
    const block_descriptor& d = v.sealed_descriptor(block);
    const std::span<const std::byte> bytes = v.sealed_block(block, {});
    // A long gap list's map, where the vector keeps one (gaps_side): the mask itself when its
    // base is zero, else the decoder XORs it onto the base; rebuilding the mask from the list
    // cost ~10 instructions a position.
    gaps_side side(d, v.sealed_gaps_skips(block));
    const std::uint32_t* map = side.next_map(d.mask_payload(), d.mask_items);
    if (map != nullptr && !d.mask_base_one()) {
        std::memcpy(out.mask.data(), map, sizeof out.mask);
    } else {
        const parsed_block parsed = expand_descriptor(d, bytes.data(), static_cast<std::uint32_t>(block_values));
        rebuild_plane(parsed.mask, bytes, 0, static_cast<std::uint32_t>(block_values), nullptr, out.mask, map);
    }
    out.length = d.length;
    out.live = d.live;
    out.ones = d.ones;
    out.payloads = bytes.data() + d.payloads_at;
}

// The sparse operand's non-zero planes among `needed`, compact already: each live plane's raw
// bytes, the all-one planes `length` ones (the first plane_words_for(length) words written).
void sparse_raw_planes(const sparse_raw_block& x, std::uint32_t needed, block_planes& out) {
    const std::size_t words = plane_words_for(x.length);
    const std::uint32_t raw = raw_payload::payload_bytes(x.length);
    std::uint32_t rank = 0;  // among all live planes: the payloads lie in that order
    for (std::uint32_t bits = x.live; bits; bits &= bits - 1, ++rank) {
        if (((needed >> std::countr_zero(bits)) & 1u) == 0) continue;
        plane& p = out.planes[static_cast<std::size_t>(std::countr_zero(bits))];
        const std::byte* payload = x.payloads + std::size_t{rank} * raw;
        // Whole 8-word registers (words is a multiple of 8): no call to memset for a few words.
        for (std::size_t w = 0; w < words; w += 8) std::memset(p.data() + w, 0, 32);
        if constexpr (std::endian::native == std::endian::little) {
            std::memcpy(p.data(), payload, raw);  // the payload's bytes are the words' (little-endian)
        } else {
            for (std::uint32_t w = 0; w < raw / 4; ++w) p[w] = load_le<std::uint32_t>(payload + 4 * w);
            for (std::uint32_t byte = raw / 4 * 4; byte < raw; ++byte)
                p[byte / 4] |= static_cast<std::uint32_t>(payload[byte]) << (8 * (byte % 4));
        }
    }
    if (x.ones & needed) {
        const plane all = ones_plane(x.length);
        for (std::uint32_t bits = x.ones & needed; bits; bits &= bits - 1)
            std::copy_n(all.begin(), words, out.planes[static_cast<std::size_t>(std::countr_zero(bits))].begin());
    }
}

// A plain, dense, interleaved block's planes at the set bits of `select` (`length` of them):
// each live plane compacted straight from the stored columns (kernel_table::extract_planes),
// the all-one planes `length` ones (the first plane_words_for(length) words written).
void interleaved_planes_at(const vector_core& v, std::size_t block, const plane& select, std::uint32_t length,
                           block_planes& out) {
    const block_descriptor& d = v.sealed_descriptor(block);
    const auto* payload = reinterpret_cast<const std::uint8_t*>(v.sealed_block(block, {}).data() + d.payloads_at);
    const kernel_table& k = active_kernels();
    const std::size_t stride = 4 * std::size_t{d.stored};
    if (k.extract_planes) {
        k.extract_planes(payload, stride, 4, d.live, select.data(), plane_words, out.planes[0].data());
    } else {
        extract_planes_with(payload, stride, 4, d.live, select.data(), plane_words, out.planes[0].data(),
                            &extract32_portable);
    }
    const std::size_t words = plane_words_for(length), written = (length + 31) / 32;
    for (std::uint32_t bits = d.live; bits; bits &= bits - 1) {
        clear_words(out.planes[static_cast<std::size_t>(std::countr_zero(bits))], written, words);
    }
    if (d.ones) {
        const plane all = ones_plane(length);
        for (std::uint32_t bits = d.ones; bits; bits &= bits - 1)
            std::copy_n(all.begin(), words, out.planes[static_cast<std::size_t>(std::countr_zero(bits))].begin());
    }
}

// combine_sparse for its most common pair, read from the stored bytes without block views: a
// plain sparse all-raw operand whose zeros the result keeps, against a plain dense interleaved
// block (uniform data). The sparse operand's planes are its payloads as they are; the dense
// one's are compacted to the sparse mask column by column, all planes at once. Returns 0
// where the pair is not that (combine_sparse then handles it through views).
template <class Op>
std::size_t combine_sparse_raw(const vector_core& a, const vector_core& b, std::size_t block, scratch& s,
                               std::span<std::byte> out) {
    if constexpr (!Op::keeps_left_zeros && !Op::keeps_right_zeros) {
        return 0;
    } else {
        if (!a.write_back_values(block).empty() || !b.write_back_values(block).empty()) return 0;
        const block_descriptor& da = a.sealed_descriptor(block);
        const block_descriptor& db = b.sealed_descriptor(block);
        const bool left_sparse = Op::keeps_left_zeros && plain_sparse_raw(da) && plain_interleaved(db);
        const bool right_sparse = Op::keeps_right_zeros && plain_sparse_raw(db) && plain_interleaved(da);
        if (!left_sparse && !right_sparse) return 0;
        sparse_raw_block sparse;
        read_sparse_raw(left_sparse ? a : b, block, sparse);
        block_planes& sparse_planes = left_sparse ? s.compact_left : s.compact_right;
        block_planes& dense_planes = left_sparse ? s.compact_right : s.compact_left;
        const std::uint32_t sparse_nonzero = sparse.live | sparse.ones;
        const block_descriptor& dense = left_sparse ? db : da;
        const std::uint32_t dense_nonzero = dense.live | dense.ones;
        // Only the sparse planes the result can have (AND: those the dense operand has too).
        const std::uint32_t needed = left_sparse ? Op::planes(sparse_nonzero, dense_nonzero)
                                                 : Op::planes(dense_nonzero, sparse_nonzero);
        sparse_raw_planes(sparse, needed, sparse_planes);
        interleaved_planes_at(left_sparse ? b : a, block, sparse.mask, sparse.length, dense_planes);
        const codec::payload_kind mask_kind = (left_sparse ? da : db).mask_payload();
        const bool raw_mask = mask_kind == codec::payload_kind::gaps || mask_kind == codec::payload_kind::raw;
        return finish_sparse<Op>(sparse.mask, sparse.length, s.compact_left, left_sparse ? sparse_nonzero : dense_nonzero,
                                 s.compact_right, left_sparse ? dense_nonzero : sparse_nonzero, raw_mask, s, out);
    }
}

// ---- dense results written all-raw from stored words ------------------------------------------

// Where plane j of an operand's values is read in combine_interleaved: word c at
// base + c * stride (little-endian).
struct word_source {
    const std::byte* base = nullptr;
    std::size_t stride = 0;
};

// The non-zero value planes of block `block` of `v` as word sources, when it is plain and
// either dense interleaved (its stored words in place) or sparse all-raw (its planes spread
// over its mask into `spread`, planes `needed` only); else false. `nonzero` gets the planes.
bool value_sources(const vector_core& v, std::size_t block, std::uint32_t needed, block_planes& spread,
                   word_source (&out)[plane_count], std::uint32_t& nonzero) {
    if (!v.write_back_values(block).empty()) return false;
    const block_descriptor& d = v.sealed_descriptor(block);
    if (d.flags == block_flags::all_raw && d.interleaved()) {  // plain, dense, no all-one planes
        const std::byte* payload = v.sealed_block(block, {}).data() + d.payloads_at;
        std::uint32_t rank = 0;
        for (std::uint32_t bits = d.live; bits; bits &= bits - 1, ++rank)
            out[std::countr_zero(bits)] = {payload + 4 * rank, 4 * std::size_t{d.stored}};
        nonzero = d.live;
        return true;
    }
    if (!plain_sparse_raw(d)) return false;
    sparse_raw_block x;
    read_sparse_raw(v, block, x);
    block_planes compact;
    const std::uint32_t used = (x.live | x.ones) & needed;
    for (std::uint32_t bits = used; bits; bits &= bits - 1) {
        // deposit_plane may read a word past the valid ones (bits it does not use): zero them all.
        compact.planes[std::countr_zero(bits)].fill(0u);
    }
    sparse_raw_planes(x, needed, compact);
    const kernel_table& k = active_kernels();
    for (std::uint32_t bits = used; bits; bits &= bits - 1) {
        const auto j = static_cast<std::size_t>(std::countr_zero(bits));
        k.deposit_plane(compact.planes[j].data(), x.mask.data(), spread.planes[j].data());
        out[j] = {reinterpret_cast<const std::byte*>(spread.planes[j].data()), 4};
    }
    nonzero = d.live | d.ones;  // planes not needed are never read
    return true;
}

// op(a, b) straight from stored words where one operand is a plain, dense, interleaved block
// without all-one planes and the other is one too (other live planes than its own, or
// combine_raw would have taken them) or a plain sparse all-raw block (its planes spread over
// its mask): each result word is op of the operands' words, written as an interleaved
// all-raw block - no views, no planner. Returns 0 where the operands are not such blocks, a
// result plane is constant (it must be elided), or the planner could make the planes more
// than thresholds::bitwise_all_raw_max_eighths / 8 smaller; the general path then encodes
// the result.
template <class Op>
std::size_t combine_interleaved(const vector_core& a, const vector_core& b, std::size_t block, scratch& s,
                                std::span<std::byte> out) {
    if (!a.write_back_values(block).empty() || !b.write_back_values(block).empty()) return 0;
    const block_descriptor& da = a.sealed_descriptor(block);
    const block_descriptor& db = b.sealed_descriptor(block);
    const bool dense_a = da.flags == block_flags::all_raw && da.interleaved();
    const bool dense_b = db.flags == block_flags::all_raw && db.interleaved();
    if (!dense_a && !dense_b) return 0;
    // The planes the result can have: only those of the sparse operand are spread.
    const std::uint32_t live = Op::planes(da.live | da.ones, db.live | db.ones);
    if (live == 0) return 0;
    if (!dense_a || !dense_b) {
        // A result plane that only the sparse operand has (OR, XOR) is its plane spread: as
        // many bits. Where those alone make all-raw too large, stop before any plane work
        // (the other planes counted raw, an upper bound of the planner's smallest).
        const block_descriptor& sparse = dense_a ? db : da;
        const std::uint32_t dense_nonzero = dense_a ? da.live : db.live;
        const std::uint32_t alone = live & ~dense_nonzero & (sparse.live | sparse.ones);
        if (alone != 0 && !sparse.interleaved() && sparse.sparse()) {
            const std::size_t listed = thresholds::descriptor_bytes + thresholds::item_count_bytes;
            const std::uint32_t raw = raw_payload::payload_bytes(sparse.length);
            const std::byte* payloads = (dense_a ? b : a).sealed_block(block, {}).data() + sparse.payloads_at;
            std::size_t smallest = std::size_t{plane_bytes} * static_cast<std::size_t>(std::popcount(live & ~alone));
            std::uint32_t rank = 0;
            for (std::uint32_t bits = sparse.live | sparse.ones; bits; bits &= bits - 1) {
                const auto j = static_cast<std::uint32_t>(std::countr_zero(bits));
                const bool stored = (sparse.live >> j) & 1u;
                if ((alone >> j) & 1u) {
                    std::size_t set = sparse.length;  // an all-one plane spreads to the mask
                    if (stored && !sparse.all_raw()) {
                        set = block_values / 2;  // not counted here: raw at most
                    } else if (stored) {
                        plane bytes{};
                        std::memcpy(bytes.data(), payloads + std::size_t{rank} * raw, raw);
                        set = active_kernels().popcount_words(bytes.data(), plane_words);
                    }
                    smallest += std::min<std::size_t>(plane_bytes, listed + std::min<std::size_t>(set, block_values - set));
                }
                rank += stored ? 1 : 0;
            }
            if (static_cast<std::size_t>(std::popcount(live)) * plane_bytes * 8 >
                smallest * thresholds::bitwise_all_raw_max_eighths)
                return 0;
        }
    }
    word_source x[plane_count], y[plane_count];
    std::uint32_t nx = 0, ny = 0;
    if (!value_sources(a, block, live, s.compact_left, x, nx)) return 0;
    if (!value_sources(b, block, live, s.compact_right, y, ny)) return 0;
    static const plane zero{};
    const word_source none{reinterpret_cast<const std::byte*>(zero.data()), 4};
    const auto stored = static_cast<std::uint32_t>(std::popcount(live));
    word_source left[plane_count], right[plane_count];
    std::uint32_t r = 0;
    for (std::uint32_t bits = live; bits; bits &= bits - 1, ++r) {
        const auto j = static_cast<std::uint32_t>(std::countr_zero(bits));
        left[r] = (nx >> j) & 1u ? x[j] : none;
        right[r] = (ny >> j) & 1u ? y[j] : none;
    }
    block_prefix prefix;
    prefix.all_raw = true;
    std::uint32_t header = put_block_prefix(out.data(), prefix);
    header += put_plane_masks(out.data() + header, live, 0);
    std::byte* result = out.data() + header;
    // Plane by plane, each source's words one stride apart: three pointers stepping through a
    // plane (column by column, with every plane's sources reloaded, was ~17 instructions a word:
    // 10.9K a block of AND-NOT of uniform 10-bit with a sparse column, callgrind).
    const std::size_t result_stride = 4 * std::size_t{stored};
    for (std::uint32_t k = 0; k < stored; ++k) {
        const std::byte* from_left = left[k].base;
        const std::byte* from_right = right[k].base;
        const std::size_t left_stride = left[k].stride, right_stride = right[k].stride;
        std::byte* to = result + 4 * k;
        for (std::size_t c = 0; c < plane_words; ++c, from_left += left_stride, from_right += right_stride, to += result_stride)
            store_le<std::uint32_t>(to, Op::apply(load_le<std::uint32_t>(from_left), load_le<std::uint32_t>(from_right)));
    }
    // Constant planes must be elided; the planner's lower bound per plane is raw or a gap list
    // (codec::encode_planes, which the general path calls, plans no runs nor references).
    std::uint32_t set[plane_count];
    active_kernels().interleaved_popcounts(reinterpret_cast<const std::uint8_t*>(result), stored, set, nullptr, 0);
    std::size_t smallest = 0;
    const std::size_t raw = plane_bytes;
    const std::size_t listed = thresholds::descriptor_bytes + thresholds::item_count_bytes;
    for (std::uint32_t k = 0; k < stored; ++k) {
        if (set[k] == 0 || set[k] == block_values) return 0;
        smallest += std::min(raw, listed + std::min<std::size_t>(set[k], block_values - set[k]));
    }
    if (std::size_t{stored} * raw * 8 > smallest * thresholds::bitwise_all_raw_max_eighths) return 0;
    return header + std::size_t{stored} * raw;
}

// Full block `block` of op(a, b) (b unused for unary operations), encoded into `out`.
template <class Op>
std::size_t combine_block(const vector_core& a, const vector_core& b, std::size_t block, std::span<std::byte> out) {
    if constexpr (!Op::unary) {
        if (&a == &b) return write_answer(Op::same, a, b, block, out);
        if (zero_block_in(a, block)) return write_answer(Op::left_zero, a, b, block, out);
        if (zero_block_in(b, block)) return write_answer(Op::right_zero, a, b, block, out);
        const raw_block x = raw_block_in(a, block);
        if (x.words) {
            const raw_block y = raw_block_in(b, block);
            if (y.words && y.live == x.live)
                if (const std::size_t bytes = combine_raw<Op>(x, y, out)) return bytes;
        }
    }
    scratch& s = thread_scratch();
    if constexpr (!Op::unary) {
        if (const std::size_t bytes = combine_sparse_raw<Op>(a, b, block, s, out)) return bytes;
        if (const std::size_t bytes = combine_interleaved<Op>(a, b, block, s, out)) return bytes;
    }
    view_block(a, block, s.left);
    if constexpr (!Op::unary) view_block(b, block, s.right);
    const block_view* right = Op::unary ? nullptr : &s.right;
    if constexpr (!Op::unary)
        if (const std::size_t bytes = combine_sparse<Op>(s.left, *right, s, out)) return bytes;
    auto plain = [](const block_view* v) { return !v || v->transform == codec::transform::none; };
    if (plain(&s.left) && plain(right)) {
        // The result's planes are at hand (a sparse operand's value planes are its planes
        // spread over its mask): encode them directly (plain block, each plane
        // zero/one/raw/positions/gaps) instead of untransposing and searching transforms.
        const block_planes& x = spread_planes(s.left, s.compact_left);
        const block_planes* y = right ? &spread_planes(*right, s.compact_right) : nullptr;
        const std::uint32_t live =
            combine_planes<Op>(x, s.left.nonzero(), y, right ? right->nonzero() : 0u, s.result);
        return codec::encode_planes(s.result, live, block_values, out);
    }
    view_to_values(s.left, s.values);
    if (right) view_to_values(*right, s.other);
    for (std::size_t i = 0; i < block_values; ++i) s.values[i] = Op::apply(s.values[i], s.other[i]);
    return codec::encode_block(std::span<const std::uint32_t>(s.values), a.is_signed(), out);
}

// result = op(a, b); a and b have the same size (b == a for unary operations).
template <class Op>
void combine(const vector_core& a, const vector_core& b, vector_core& result) {
    const std::size_t full = a.size() / block_values;
    result.append_encoded_blocks(full, [&a, &b](std::size_t block, std::span<std::byte> out) {
        return combine_block<Op>(a, b, block, out);
    });
    const std::span<const std::uint32_t> x = a.tail();
    const std::span<const std::uint32_t> y = b.tail();
    if (x.empty()) return;
    std::array<std::uint32_t, block_values> values;
    for (std::size_t i = 0; i < x.size(); ++i) values[i] = Op::apply(x[i], y[i]);
    result.append({values.data(), x.size()});
}

}  // namespace

}  // namespace bitplane::detail

namespace bitplane {

namespace {

template <class Op, column_value T>
vector<T> apply(const char* name, const vector<T>& a, const vector<T>& b) {
    if (a.size() != b.size())
        throw size_error(std::string("bitplane::") + name + ": operand sizes differ (" + std::to_string(a.size()) +
                         " and " + std::to_string(b.size()) + ")");
    vector<T> result;
    detail::combine<Op>(a.core(), b.core(), detail::vector_access::core(result));
    return result;
}

}  // namespace

template <column_value T>
vector<T> operator&(const vector<T>& a, const vector<T>& b) {
    return apply<detail::and_op>("operator&", a, b);
}

template <column_value T>
vector<T> operator|(const vector<T>& a, const vector<T>& b) {
    return apply<detail::or_op>("operator|", a, b);
}

template <column_value T>
vector<T> operator^(const vector<T>& a, const vector<T>& b) {
    return apply<detail::xor_op>("operator^", a, b);
}

template <column_value T>
vector<T> andnot(const vector<T>& a, const vector<T>& b) {
    return apply<detail::andnot_op>("andnot", a, b);
}

template <column_value T>
vector<T> operator~(const vector<T>& a) {
    return apply<detail::not_op>("operator~", a, a);
}

template vector<std::uint32_t> operator&(const vector<std::uint32_t>&, const vector<std::uint32_t>&);
template vector<std::uint32_t> operator|(const vector<std::uint32_t>&, const vector<std::uint32_t>&);
template vector<std::uint32_t> operator^(const vector<std::uint32_t>&, const vector<std::uint32_t>&);
template vector<std::uint32_t> andnot(const vector<std::uint32_t>&, const vector<std::uint32_t>&);
template vector<std::uint32_t> operator~(const vector<std::uint32_t>&);
template vector<std::int32_t> operator&(const vector<std::int32_t>&, const vector<std::int32_t>&);
template vector<std::int32_t> operator|(const vector<std::int32_t>&, const vector<std::int32_t>&);
template vector<std::int32_t> operator^(const vector<std::int32_t>&, const vector<std::int32_t>&);
template vector<std::int32_t> andnot(const vector<std::int32_t>&, const vector<std::int32_t>&);
template vector<std::int32_t> operator~(const vector<std::int32_t>&);

}  // namespace bitplane
