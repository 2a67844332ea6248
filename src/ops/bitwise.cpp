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
//      planes), combined and encoded in the sparse layout from the planes
//      (codec::encode_sparse_planes; combine_sparse);
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
#include "codec/block_format.hpp"
#include "codec/byte_io.hpp"
#include "ops/block_view.hpp"
#include "ops/reduce_support.hpp"
#include "simd/kernels.hpp"

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

// Per-thread working memory (~57 KiB): two views, the result planes, two compacted operands
// and two value buffers.
struct scratch {
    block_view left;
    block_view right;
    block_planes result;
    block_planes compact_left;   // combine_sparse: the operands at the result's possible
    block_planes compact_right;  // non-zero positions
    alignas(64) std::uint32_t values[block_values];
    alignas(64) std::uint32_t other[block_values];
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
                                                          y.words ? load_le<std::uint32_t>(y.words + 4 * w) : 0u));
    // Plane k of the result is word k of every column: OR and AND them to find constant planes.
    std::uint32_t any[plane_count] = {}, all[plane_count];
    std::fill(all, all + stored, ~0u);
    for (std::size_t c = 0; c < plane_words; ++c)
        for (std::size_t k = 0; k < stored; ++k) {
            const auto word = load_le<std::uint32_t>(result + 4 * (c * stored + k));
            any[k] |= word;
            all[k] &= word;
        }
    for (std::size_t k = 0; k < stored; ++k)
        if (any[k] == 0 || all[k] == ~0u) return 0;
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

// op(a, b) for AND and AND-NOT where an operand whose zeros the result keeps (either one for
// AND, the left one for AND-NOT) is plain and sparse: the result can be non-zero only inside
// that operand's mask, so both operands are taken at those positions alone (compacted planes
// of a few words), combined, re-compacted to the values that stayed non-zero, and encoded
// in the sparse layout from those planes (codec::encode_sparse_planes) - instead of decoding
// both blocks and encoding 2048 values from scratch. Returns 0 where it does not apply
// (a transformed operand, or no such sparse operand).
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

        static const plane zero{};
        const std::uint32_t a = left.nonzero(), b = right.nonzero();
        const std::uint32_t live = Op::planes(a, b);
        plane kept{};  // values that stayed non-zero, among the `length` compacted ones
        for (std::uint32_t bits = live; bits; bits &= bits - 1) {
            const auto j = static_cast<std::size_t>(std::countr_zero(bits));
            const plane& x = (a >> j) & 1u ? s.compact_left.planes[j] : zero;
            const plane& y = (b >> j) & 1u ? s.compact_right.planes[j] : zero;
            plane& r = s.result.planes[j];
            for (std::size_t w = 0; w < words; ++w) {
                r[w] = Op::apply(x[w], y[w]);
                kept[w] |= r[w];
            }
        }
        const auto still = static_cast<std::uint32_t>(k.popcount_words(kept.data(), words));
        if (still == 0) return copy_into(zero_block(), out);
        plane mask = within;
        if (still < length) {  // some values became zero: drop them from the mask and the planes
            k.deposit_plane(kept.data(), within.data(), mask.data());
            for (std::uint32_t bits = live; bits; bits &= bits - 1) {
                plane& r = s.result.planes[static_cast<std::size_t>(std::countr_zero(bits))];
                plane packed;
                k.extract_plane(r.data(), kept.data(), words, packed.data());
                std::copy_n(packed.begin(), words, r.begin());
            }
        }
        for (std::uint32_t bits = live; bits; bits &= bits - 1) {
            plane& r = s.result.planes[static_cast<std::size_t>(std::countr_zero(bits))];
            std::fill(r.begin() + static_cast<std::ptrdiff_t>(words), r.end(), 0u);
        }
        return codec::encode_sparse_planes(mask, s.result, live, block_values, out);
    }
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
