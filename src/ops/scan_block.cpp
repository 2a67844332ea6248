// One block of a scan: scan_block.hpp says what each kind of block goes through. The parts,
// in order: the tests (scan_eq ...), the values compared one by one (test_values), the walk
// of a target down the constant planes, the staged way over built planes
// (block_planes_source, compare_in_stages), compare_residuals (shared by every way), the direct
// ways from the vector's descriptor (direct_planes, run_direct, run_interleaved), and the
// entry points.
#include "ops/scan_block.hpp"

#include "ops/scan_sorted.hpp"

#include "bitset/bitset_words.hpp"
#include "codec/block_decoding.hpp"
#include "codec/block_format.hpp"
#include "codec/byte_io.hpp"
#include "codec/plane_bits.hpp"
#include "codec/plane_gaps.hpp"
#include "codec/value_transform.hpp"
#include "ops/equal_candidates.hpp"
#include "ops/equality_lane.hpp"
#include "ops/listed_marks.hpp"
#include "simd/kernels.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bitplane::detail {

// ---- tests ----------------------------------------------------------------------------------

namespace {

constexpr std::uint32_t max_key = 0xFFFFFFFFu;

scan_test nothing(bool is_signed) noexcept {
    scan_test t;
    t.is_signed = is_signed;
    return t;
}

// Keys start .. start + span (span < 2^32), negated when `negate`.
scan_test keys(std::uint32_t start, std::uint32_t span, bool negate, bool is_signed) noexcept {
    scan_test t = nothing(is_signed);
    if (span == max_key) {
        t.what = negate ? scan_test::kind::none : scan_test::kind::all;
        return t;
    }
    t.what = scan_test::kind::interval;
    t.start = start;
    t.span = span;
    t.negate = negate;
    return t;
}

std::uint32_t key(std::uint32_t bits, bool is_signed) noexcept { return bits ^ scan_test::bias(is_signed); }

}  // namespace

scan_test scan_eq(std::uint32_t x, bool is_signed) noexcept { return keys(key(x, is_signed), 0, false, is_signed); }

scan_test scan_ne(std::uint32_t x, bool is_signed) noexcept { return keys(key(x, is_signed), 0, true, is_signed); }

scan_test scan_lt(std::uint32_t x, bool is_signed) noexcept {
    const std::uint32_t k = key(x, is_signed);
    return k == 0 ? nothing(is_signed) : keys(0, k - 1, false, is_signed);
}

scan_test scan_le(std::uint32_t x, bool is_signed) noexcept { return keys(0, key(x, is_signed), false, is_signed); }

scan_test scan_gt(std::uint32_t x, bool is_signed) noexcept {
    const std::uint32_t k = key(x, is_signed);
    return k == max_key ? nothing(is_signed) : keys(k + 1, max_key - k - 1, false, is_signed);
}

scan_test scan_ge(std::uint32_t x, bool is_signed) noexcept {
    const std::uint32_t k = key(x, is_signed);
    return keys(k, max_key - k, false, is_signed);
}

scan_test scan_range(std::uint32_t lo, std::uint32_t hi, bool is_signed) noexcept {
    const std::uint32_t klo = key(lo, is_signed);
    const std::uint32_t khi = key(hi, is_signed);
    return klo > khi ? nothing(is_signed) : keys(klo, khi - klo, false, is_signed);
}

// ---- one block ------------------------------------------------------------------------------

namespace {

// A test of residuals: (lo <= r <= hi) == inside.
struct residual_test {
    std::uint32_t lo = 0;
    std::uint32_t hi = 0;
    bool inside = true;
    [[nodiscard]] bool passes(std::uint32_t r) const noexcept { return (lo <= r && r <= hi) == inside; }
};

// The key interval as a residual test for residuals r with key = key_base + r (mod 2^32):
// an interval of residuals, or the complement of one where it wraps around 2^32.
residual_test to_residuals(const scan_test& test, std::uint32_t key_base) noexcept {
    const std::uint32_t first = test.start - key_base;
    const std::uint32_t last = first + test.span;
    if (first <= last) return {first, last, !test.negate};
    return {last + 1, first - 1, test.negate};  // non-empty: span < 2^32 - 1
}

// A zigzag residual z holds the int32 s = z / 2 where z is even and -(z + 1) / 2 where it is
// odd, so the residuals of an int32 interval [lo, hi] with lo < 0 <= hi are the even z up to
// 2 hi and the odd z up to -2 lo - 1. Where these two bounds are neighbours, hi = -lo
// (bam_tlen's [-434, 434]) or hi = -lo - 1, every z from 0 up to the larger bound passes: one
// residual interval [0, max(2 hi, -2 lo - 1)], compared on the planes like a frame of
// reference (a block of 2048 went through decode_and_test before, about 16K instructions,
// callgrind AVX2). Other intervals need the parity plane beside the comparison, and are
// decoded: false. The interval is taken on the values' bits as int32 whatever the keys'
// sign (a block of uint32 values may be zigzag too): the keys start .. start + span are
// those int32 values when they do not pass from 0x7FFFFFFF to 0x80000000 as bits.
bool zigzag_prefix(const scan_test& test, residual_test& out) noexcept {
    if (test.negate) return false;
    const std::uint32_t first_bits = test.start ^ scan_test::bias(test.is_signed);
    // Offset by 2^31, the int32 order is the unsigned order: the interval must not wrap.
    const std::uint32_t first_ordered = first_bits ^ 0x80000000u;
    if (first_ordered > max_key - test.span) return false;
    const std::int64_t lo = static_cast<std::int32_t>(first_bits);
    const std::int64_t hi = lo + test.span;
    if (lo >= 0 || hi < 0 || (hi != -lo && hi != -lo - 1)) return false;
    out.lo = 0;
    out.hi = static_cast<std::uint32_t>(std::max(2 * hi, -2 * lo - 1));  // <= 2^32 - 1
    out.inside = true;
    return true;
}

// The block's test on its residual planes, where there is one (plain, frame of reference,
// zigzag for equality and for intervals zigzag_prefix takes); false where the values must
// be decoded.
[[gnu::always_inline]] inline bool residual_form(codec::transform transform, std::uint32_t for_base, const scan_test& test,
                   residual_test& out) noexcept {
    const std::uint32_t bias = scan_test::bias(test.is_signed);
    switch (transform) {
        case codec::transform::none: out = to_residuals(test, bias); return true;
        case codec::transform::frame_of_reference: out = to_residuals(test, for_base ^ bias); return true;
        case codec::transform::zigzag:
            if (test.span != 0) return zigzag_prefix(test, out);
            out.lo = out.hi = zigzag_bits(test.start ^ bias);
            out.inside = !test.negate;
            return true;
        case codec::transform::delta: return false;
    }
    return false;
}

std::uint32_t block_popcount(const plane& p) {
    return static_cast<std::uint32_t>(active_kernels().popcount_words(p.data(), plane_words));
}

block_answer classify(const plane& p, std::uint32_t count) {
    const std::uint32_t n = block_popcount(p);
    return n == 0 ? block_answer::none : n == count ? block_answer::all : block_answer::some;
}

// Bits [0, n) of word w set, for a plane of n bits.
constexpr std::uint32_t valid_bits(std::uint32_t w, std::uint32_t n) noexcept {
    const std::uint32_t first = w * 32;
    if (n >= first + 32) return ~0u;
    return n <= first ? 0u : ~0u >> (32 - (n - first));
}

// Values compared one by one (tail, write-back block, decoded delta and zigzag blocks), or a
// delta block's residuals decoded on the way (`delta`: first and step as the block gives them).
void test_values(std::span<const std::uint32_t> values, const scan_test& test, plane& out,
                 const parsed_block* delta = nullptr) noexcept {
    value_test t;
    t.bias = scan_test::bias(test.is_signed);
    t.start = test.start;
    t.span = test.span;
    t.flip = test.negate ? ~0u : 0u;
    if (delta != nullptr) {
        t.delta = true;
        t.first = delta->delta_first;
        t.step = delta->delta_min;
    }
    const auto kernel = active_kernels().test_values;
    if (kernel != nullptr) {
        kernel(values.data(), values.size(), &t, out.data());
    } else {
        test_values_portable(values.data(), values.size(), &t, out.data());
    }
}

// One target's walk down the planes: the live planes above the first constant plane that
// disagrees with the target are read (steps, with the target's bit of each); that plane
// then decides the still-equal positions (finish). With no step, the answer is constant.
struct target_walk {
    std::uint32_t steps = 0;
    std::uint32_t bits = 0;
    std::uint8_t finish = compare_job::finish_none;
    [[nodiscard]] bool constant() const noexcept { return steps == 0; }
    [[nodiscard]] bool all_equal() const noexcept { return finish == compare_job::finish_none; }
    [[nodiscard]] bool all_less() const noexcept { return finish == compare_job::finish_lt; }
};

// The bits of x where mask is set, packed, the topmost first: bit k of the answer is x's bit
// at the k-th set bit of mask counted from the top. Where the set bits of mask are contiguous
// (every live plane read, as in most blocks) a shift and a bit reversal; else one bit per
// step from the bottom. A loop from the top (countl_zero, clear the bit) made every step wait
// on the previous one: a block of 32 live planes spent as long on it as on its equality (this
// file has no BMI2 for pext). `count` is the number of set bits of mask.
std::uint32_t gather_top_down(std::uint32_t x, std::uint32_t mask, std::uint32_t count) noexcept {
    if (mask == 0) return 0;
    const int low = std::countr_zero(mask);
    const std::uint32_t shifted = mask >> low;
    std::uint32_t packed = 0;  // bit i: x's bit at the i-th set bit of mask from the bottom
    if ((shifted & (shifted + 1)) == 0) {
        packed = (x & mask) >> low;
    } else {
        std::uint32_t i = 0;
        for (std::uint32_t m = mask; m != 0; m &= m - 1, ++i) packed |= ((x >> std::countr_zero(m)) & 1u) << i;
    }
    // Reverse the 32 bits, then drop the 32 - count zeros that came to the bottom.
    packed = (packed >> 16) | (packed << 16);
    packed = ((packed >> 8) & 0x00FF00FFu) | ((packed & 0x00FF00FFu) << 8);
    packed = ((packed >> 4) & 0x0F0F0F0Fu) | ((packed & 0x0F0F0F0Fu) << 4);
    packed = ((packed >> 2) & 0x33333333u) | ((packed & 0x33333333u) << 2);
    packed = ((packed >> 1) & 0x55555555u) | ((packed & 0x55555555u) << 1);
    return packed >> (32 - count);  // count >= 1
}

// Walks over at most this many planes go one plane at a time (fewer instructions than
// gather_top_down's reversal; the steps' chain is short).
constexpr std::uint32_t walk_steps_one_by_one = 4;

[[gnu::always_inline]] inline target_walk walk(std::uint32_t target, std::uint32_t live, std::uint32_t ones) noexcept {
    target_walk out;
    const std::uint32_t stops = ~live & (ones ^ target);  // constant planes != the target's bit
    std::uint32_t read = live;
    if (stops != 0) {
        const int top = 31 - std::countl_zero(stops);
        read = top == 31 ? 0u : live & (~0u << (top + 1));
        out.finish = ((ones >> top) & 1u) != 0 ? compare_job::finish_gt : compare_job::finish_lt;
    }
    out.steps = popcount64(read);  // inline: std::popcount is a library call in this SSE2 file
    if (out.steps <= walk_steps_one_by_one) {
        // A few planes (bed_strand 1, scores3 3): one at a time from the top, no reversal.
        for (std::uint32_t k = 0; read != 0; ++k) {
            const int j = 31 - std::countl_zero(read);
            out.bits |= ((target >> j) & 1u) << k;
            read &= ~(1u << j);
        }
        return out;
    }
    out.bits = gather_top_down(target, read, out.steps);
    return out;
}

// The k-th plane a compare_job reads is the k-th live plane from the top: order[k] for the
// first `steps` of them (how many there are is returned). Walked from the bottom (clearing the
// lowest bit), as gather_top_down does, so that no step waits on the previous one's bit scan.
std::uint32_t top_planes(std::uint32_t live, std::uint32_t steps, std::uint8_t* order) noexcept {
    std::uint32_t k = popcount64(live);
    const std::uint32_t taken = std::min(steps, k);
    for (std::uint32_t m = live; m != 0; m &= m - 1) {
        --k;
        if (k < steps) order[k] = static_cast<std::uint8_t>(std::countr_zero(m));
    }
    return taken;
}

// Words [0, words) of a stored plane from its base and payload. The bytes are trusted (a
// vector's blocks were validated when it got them, or written by the encoder): no rule is
// checked, but positions are masked to the plane, so that even forged bytes stay inside it.
// Planes referred to must be built (at least `words` words) in `planes`. `map`: a gaps
// payload's bits as the vector keeps them beside the block (gaps_side), XORed in instead of
// walking the list; null where there is none.
void build_plane(const stored_plane& sp, const std::byte* block_bytes, std::uint32_t length, std::uint32_t words,
                 const block_planes& planes, std::uint32_t* out, const std::uint32_t* map = nullptr) noexcept {
    constexpr std::uint32_t last_bit = block_values - 1;
    const std::uint32_t* ref = planes.planes[sp.reference & 31u].data();
    // Bits at or beyond length: clear after a base of ones (whole words first, vectorized).
    const auto clear_tail = [out, length, words] {
        for (std::uint32_t w = length / 32; w < words; ++w) out[w] &= valid_bits(w, length);
    };
    switch (sp.base) {
        case codec::base_kind::zero: std::fill_n(out, words, 0u); break;
        case codec::base_kind::one:
            std::fill_n(out, words, ~0u);
            clear_tail();
            break;
        case codec::base_kind::plane: std::copy_n(ref, words, out); break;
        case codec::base_kind::complement:
            for (std::uint32_t w = 0; w < words; ++w) out[w] = ~ref[w];
            clear_tail();
            break;
    }
    const std::byte* p = block_bytes + sp.payload_offset;
    const auto flip = [out](std::uint32_t bit) { out[(bit & last_bit) >> 5] ^= 1u << (bit & 31u); };
    switch (sp.payload) {
        case codec::payload_kind::none: break;
        case codec::payload_kind::positions:
            for (std::uint32_t i = 0; i < sp.items; ++i) flip(load_le<std::uint16_t>(p + 2 * i));
            break;
        case codec::payload_kind::runs:
            for (std::uint32_t i = 0; i < sp.items; ++i) {
                const std::uint32_t begin = std::min<std::uint32_t>(load_le<std::uint16_t>(p + 4 * i), block_values);
                const std::uint32_t end = std::min<std::uint32_t>(load_le<std::uint16_t>(p + 4 * i + 2), block_values);
                if (begin >= end) continue;
                const std::uint32_t first = begin >> 5, last = (end - 1) >> 5;
                const std::uint32_t head = ~0u << (begin & 31u), tail = ~0u >> (31u - ((end - 1) & 31u));
                if (first == last) {
                    out[first] ^= head & tail;
                    continue;
                }
                out[first] ^= head;
                for (std::uint32_t w = first + 1; w < last; ++w) out[w] = ~out[w];
                out[last] ^= tail;
            }
            break;
        case codec::payload_kind::raw: {
            alignas(64) std::uint32_t bits[plane_words];
            const std::uint32_t bytes = std::min<std::uint32_t>((length + 7) / 8, 4 * words);
            std::memcpy(bits, p, bytes);
            std::memset(reinterpret_cast<std::byte*>(bits) + bytes, 0, 4 * words - bytes);
            for (std::uint32_t w = 0; w < words; ++w) out[w] ^= bits[w];
            break;
        }
        case codec::payload_kind::gaps:
            if (map != nullptr) {
                for (std::uint32_t w = 0; w < words; ++w) out[w] ^= map[w];
            } else {
                gaps_payload::for_every_position(p, sp.payload_bytes, flip);
            }
            break;
    }
}

#if defined(__SSE2__)
// Four 32x32 bit matrices at once, one per 32-bit lane: lane l of a[i] bit j <- lane l of
// a[j] bit i, by swapping off-diagonal blocks, halves first (Warren, "Hacker's Delight", 7-3).
template <int J>
[[gnu::always_inline]] inline void swap_off_diagonal(__m128i (&a)[32], std::uint32_t m) noexcept {
    const __m128i mask = _mm_set1_epi32(static_cast<int>(m));
    for (int k = 0; k < 32; k = (k + J + 1) & ~J) {
        const __m128i t = _mm_and_si128(_mm_xor_si128(_mm_srli_epi32(a[k], J), a[k + J]), mask);
        a[k + J] = _mm_xor_si128(a[k + J], t);
        a[k] = _mm_xor_si128(a[k], _mm_slli_epi32(t, J));
    }
}

void transpose_bits_4(__m128i (&a)[32]) noexcept {
    // Shifts by constants, so that each round unrolls (a variable shift count kept the loops
    // rolled: 3.5K instructions a block of ucd_script, callgrind).
    swap_off_diagonal<16>(a, 0x0000FFFFu);
    swap_off_diagonal<8>(a, 0x00FF00FFu);
    swap_off_diagonal<4>(a, 0x0F0F0F0Fu);
    swap_off_diagonal<2>(a, 0x33333333u);
    swap_off_diagonal<1>(a, 0x55555555u);
}

// The same for eight 16x16 bit matrices, one per 16-bit lane: lane l of a[i] bit j <- lane l
// of a[j] bit i.
template <int J>
[[gnu::always_inline]] inline void swap_off_diagonal_16(__m128i (&a)[16], std::uint32_t m) noexcept {
    const __m128i mask = _mm_set1_epi16(static_cast<short>(m));
    for (int k = 0; k < 16; k = (k + J + 1) & ~J) {
        const __m128i t = _mm_and_si128(_mm_xor_si128(_mm_srli_epi16(a[k], J), a[k + J]), mask);
        a[k + J] = _mm_xor_si128(a[k + J], t);
        a[k] = _mm_xor_si128(a[k], _mm_slli_epi16(t, J));
    }
}

void transpose_bits_8x16(__m128i (&a)[16]) noexcept {
    swap_off_diagonal_16<8>(a, 0x00FFu);
    swap_off_diagonal_16<4>(a, 0x0F0Fu);
    swap_off_diagonal_16<2>(a, 0x3333u);
    swap_off_diagonal_16<1>(a, 0x5555u);
}
#endif

// Planes of a parsed block, each built when first needed (only its first `words()` words:
// the compact planes of a sparse block are short): interleaved all-raw payloads are read in
// place; other layouts are built into the scratch planes. Reads go from the top live plane
// down, so a test that is settled by the top planes never builds the others. Gaps payloads
// whose map the vector keeps beside the block (`side`) are built from the map.
class block_planes_source {
public:
    block_planes_source(const parsed_block& block, std::span<const std::byte> bytes, scan_scratch& scratch,
                        gaps_side side = {}) noexcept
        : block_(block), bytes_(bytes), scratch_(scratch) {
        words_ = std::min<std::uint32_t>(plane_words, ((block.length + 31) / 32 + 7) / 8 * 8);
        // The side's maps come in gaps_skips' order: the mask's payload, then the planes'.
        const auto map_of = [&side](const stored_plane& p) { return side.next_map(p.payload, p.items); };
        if (block.sparse) mask_map_ = map_of(block.mask);
        if (block.interleaved) return;  // read by rank, in place
        for (std::uint32_t i = 0; i < block.stored; ++i) maps_[i] = map_of(block.planes[i]);
        top_planes(block.live, plane_count, order_);
        for (std::uint32_t i = 0; i < block.stored; ++i) descriptor_[block.planes[i].index & 31u] = static_cast<std::uint8_t>(i);
    }

    /// Words per plane that are built (and that compare jobs may read).
    [[nodiscard]] std::uint32_t words() const noexcept { return words_; }
    /// Planes read in place (nothing to build: an equality test reads them in one pass).
    [[nodiscard]] bool in_place() const noexcept { return block_.interleaved; }
    /// Whether the planes are a sparse block's compact ones.
    [[nodiscard]] bool sparse() const noexcept { return block_.sparse; }
    /// Whether `bits` has a set bit below the planes' length.
    [[nodiscard]] bool any_inside(const std::uint32_t* bits) const noexcept {
        const std::uint32_t full = block_.length / 32;
        std::uint32_t any = 0;
        for (std::uint32_t c = 0; c < full; ++c) any |= bits[c];
        if (block_.length % 32 != 0) any |= bits[full] & valid_bits(full, block_.length);
        return any != 0;
    }

    /// Sets the job's planes to the live planes from the `first`-th from the top, `steps` of them.
    void fill_job(compare_job& job, std::uint32_t first, std::uint32_t steps) {
        if (block_.interleaved) {
            job.base = payload();
            job.stride = 4 * block_.stored;
            // Planes are read from the top live plane down: the k-th has rank stored - 1 - k.
            for (std::uint32_t k = 0; k < steps; ++k) job.offset[k] = 4 * (block_.stored - 1 - (first + k));
            return;
        }
        job.base = reinterpret_cast<const std::uint8_t*>(scratch_.planes.planes[0].data());
        job.stride = 4;
        for (std::uint32_t k = 0; k < steps; ++k) {
            const std::uint32_t j = order_[first + k];
            build(j);
            job.offset[k] = j * static_cast<std::uint32_t>(plane_bytes);
        }
    }

    const plane& mask() {
        if (!mask_built_) {
            const auto* bytes = bytes_.data();
            build_plane(block_.mask, bytes, block_.count, plane_words, scratch_.planes, scratch_.mask.data(),
                        mask_map_);
            mask_built_ = true;
        }
        return scratch_.mask;
    }

    /// The sum of the block's residuals, exactly, from plane popcounts.
    std::uint64_t residual_sum() {
        const kernel_table& kernels = active_kernels();
        std::uint32_t counts[plane_count] = {};
        if (block_.interleaved) {
            std::uint32_t by_rank[plane_count];
            kernels.interleaved_popcounts(payload(), block_.stored, by_rank, nullptr, 0);
            std::uint32_t rank = 0;
            for (std::uint32_t live = block_.live; live != 0; live &= live - 1)
                counts[std::countr_zero(live)] = by_rank[rank++];
        } else {
            for (std::uint32_t live = block_.live; live != 0; live &= live - 1) {
                const auto j = static_cast<std::uint32_t>(std::countr_zero(live));
                counts[j] = plane_popcount(j);
            }
        }
        for (std::uint32_t ones = block_.ones; ones != 0; ones &= ones - 1)
            counts[std::countr_zero(ones)] = block_.length;
        std::uint64_t sum = 0;
        for (std::uint32_t j = 0; j < plane_count; ++j) sum += static_cast<std::uint64_t>(counts[j]) << j;
        return sum;
    }

    /// The residuals of a dense block (values[0..count)).
    void residuals(std::span<std::uint32_t> values) {
        const kernel_table& kernels = active_kernels();
        if (block_.interleaved) {
            kernels.interleaved_transpose(payload(), block_.live, values.data(), nullptr, 0);
            if (block_.ones != 0)
                for (std::uint32_t& v : values) v |= block_.ones;
            return;
        }
        for (std::uint32_t live = block_.live; live != 0; live &= live - 1)
            build(static_cast<std::uint32_t>(std::countr_zero(live)));
        for (std::uint32_t ones = block_.ones; ones != 0; ones &= ones - 1)
            scratch_.planes.planes[std::countr_zero(ones)] = ones_plane(block_.length);
        if (values.size() == block_values) {
            kernels.untranspose(scratch_.planes.planes[0].data(), block_.live | block_.ones, values.data());
            return;
        }
        alignas(64) std::uint32_t all[block_values];
        kernels.untranspose(scratch_.planes.planes[0].data(), block_.live | block_.ones, all);
        std::copy_n(all, values.size(), values.data());
    }

    /// The block's values.
    void decode(std::span<std::uint32_t> values) {
        if (block_.sparse) {
            decode_parsed(block_, bytes_, 0, values);
            return;
        }
        residuals(values);
        undo_transform(block_, values);
    }

private:
    const std::uint8_t* payload() const noexcept {
        return reinterpret_cast<const std::uint8_t*>(bytes_.data()) + block_.planes[0].payload_offset;
    }

    // Set bits of plane j (live, not interleaved): from the payload alone where the plane is
    // stored against a constant plane (a count, run lengths, a raw popcount), else built.
    std::uint32_t plane_popcount(std::uint32_t j) {
        const stored_plane& sp = block_.planes[descriptor_[j]];
        const bool constant_base = sp.base == codec::base_kind::zero || sp.base == codec::base_kind::one;
        if (((built_ >> j) & 1u) != 0 || !constant_base) {
            build(j);
            return static_cast<std::uint32_t>(
                active_kernels().popcount_words(scratch_.planes.planes[j].data(), words_));
        }
        const std::byte* p = bytes_.data() + sp.payload_offset;
        std::uint32_t n = 0;
        switch (sp.payload) {
            case codec::payload_kind::none: break;
            case codec::payload_kind::positions: n = sp.items; break;
            case codec::payload_kind::runs:
                for (std::uint32_t i = 0; i < sp.items; ++i)
                    n += load_le<std::uint16_t>(p + 4 * i + 2) - load_le<std::uint16_t>(p + 4 * i);
                break;
            case codec::payload_kind::raw: {  // the kernel's popcount (this file has no popcnt)
                alignas(64) std::uint32_t words[plane_words] = {};
                const std::uint32_t bytes = (block_.length + 7) / 8;
                std::memcpy(words, p, bytes);
                n = static_cast<std::uint32_t>(active_kernels().popcount_words(words, (bytes + 3) / 4));
                break;
            }
            case codec::payload_kind::gaps:
                if (const std::uint32_t* map = maps_[descriptor_[j]]; map != nullptr) {
                    n = static_cast<std::uint32_t>(active_kernels().popcount_words(map, plane_words));
                } else {
                    gaps_payload::for_every_position(p, sp.payload_bytes, [&n](std::uint32_t) { ++n; });
                }
                break;
        }
        return sp.base == codec::base_kind::one ? block_.length - n : n;
    }

    // Plane j (live, not interleaved) and the planes it is stored against.
    void build(std::uint32_t j) {
        if ((built_ >> j) & 1u) return;
        const stored_plane& sp = block_.planes[descriptor_[j]];
        const std::uint32_t ref = sp.reference & 31u;
        if ((sp.base == codec::base_kind::plane || sp.base == codec::base_kind::complement) && ref != j &&
            ((block_.live >> ref) & 1u) != 0)
            build(ref);
        build_plane(sp, bytes_.data(), block_.length, words_, scratch_.planes, scratch_.planes.planes[j].data(),
                    maps_[descriptor_[j]]);
        built_ |= 1u << j;
    }

    const parsed_block& block_;
    std::span<const std::byte> bytes_;
    scan_scratch& scratch_;
    std::uint32_t words_ = plane_words;
    std::uint32_t built_ = 0;
    bool mask_built_ = false;
    const std::uint32_t* mask_map_ = nullptr;
    const std::uint32_t* maps_[plane_count] = {};  // by entry in block.planes: gaps payloads' maps
    std::uint8_t order_[plane_count];       // live planes, top down (not interleaved)
    std::uint8_t descriptor_[plane_count];  // plane -> its entry in block.planes (not interleaved)
};

enum class compact_answer : std::uint8_t { none, all, some };

// Planes compared per stage: after each stage, a block where no residual is still equal to
// a target stops (the planes below could only decide residuals still equal): a rare value or
// a narrow range is usually settled by the top planes, and the planes below are then neither
// built nor read. Payloads read in place go in one pass: stages of 8 planes measured slower
// there (random 32-bit values, rare value: 14-21 ms against 10-11 ms for 16M values, AVX2).
constexpr std::uint32_t planar_stage = 4;

// After the first stage, a dense block's planes go in one more stage: a stop after 8 or 12
// planes saved less than the stages cost (a compare call and a merge of its answers each 4
// planes) on every corpus column (instructions, callgrind AVX2: count_range bam_tlen 9.13M ->
// 8.11M, tz_transition 393K -> 325K, tz_offset -5%, no count_eq or count_range up by 0.5%). A
// sparse block's compact planes keep their stages: random 20-bit values, 90% zeros, count_eq
// of a rare value took 1.43x the instructions with the rest in one stage.
std::uint32_t stage_steps(bool in_place, bool sparse, std::uint32_t done, std::uint32_t left) noexcept {
    return in_place || (done != 0 && !sparse) ? left : std::min(planar_stage, left);
}

// Runs `whole` (targets, steps, bits, finish, need_lt and words set; planes not) stage by
// stage into s.eq and s.lt, combining stages as the sweep does (eq &= eq', lt |= eq & lt').
// Returns false when it stopped because no residual was still equal to any target (the
// stopped targets' finish would change nothing: it acts on equal residuals only).
bool compare_in_stages(block_planes_source& source, const compare_job& whole, scan_scratch& s) {
    const kernel_table& kernels = active_kernels();
    const std::uint32_t targets = whole.targets;
    const std::uint32_t total = targets == 2 ? std::max(whole.steps[0], whole.steps[1]) : whole.steps[0];
    const std::uint32_t words = whole.words;
    std::uint32_t* const eq2 = s.values;  // a stage's answers (the values are not needed here)
    std::uint32_t* const lt2 = s.values + 2 * plane_words;
    compare_job job = whole;
    job.range_into = nullptr;  // stages are combined from eq and lt
    for (std::uint32_t done = 0; done < total;) {
        const std::uint32_t n = stage_steps(source.in_place(), source.sparse(), done, total - done);
        for (std::uint32_t t = 0; t < targets; ++t) {
            const std::uint32_t left = whole.steps[t] > done ? whole.steps[t] - done : 0;
            job.steps[t] = std::min(n, left);
            job.bits[t] = whole.bits[t] >> done;
            job.finish[t] = left > 0 && left <= n ? whole.finish[t] : std::uint8_t{compare_job::finish_none};
        }
        source.fill_job(job, done, n);
        if (done == 0) {
            kernels.compare_planes(&job, s.eq, s.lt);
        } else {
            kernels.compare_planes(&job, eq2, lt2);
            for (std::uint32_t t = 0; t < targets; ++t) {
                std::uint32_t* eq = s.eq + t * plane_words;
                std::uint32_t* lt = s.lt + t * plane_words;
                const std::uint32_t* e = eq2 + t * plane_words;
                const std::uint32_t* l = lt2 + t * plane_words;
                if (whole.need_lt)
                    for (std::uint32_t c = 0; c < words; ++c) lt[c] |= eq[c] & l[c];
                for (std::uint32_t c = 0; c < words; ++c) eq[c] &= e[c];
            }
        }
        done += n;
        if (done >= total) return true;
        bool any = false;
        for (std::uint32_t t = 0; t < targets; ++t) any = any || source.any_inside(s.eq + t * plane_words);
        if (!any) return false;
    }
    return true;
}

// The residual test on the block's planes (`length` bits each): constant, or in `out`
// (bits at or beyond length clear).
// What compare_residuals needs of a block: its live and all-one planes and their length.
struct plane_shape {
    std::uint32_t live = 0;
    std::uint32_t ones = 0;
    std::uint32_t length = 0;
    bool sparse = false;
};

plane_shape shape_of(const parsed_block& block) noexcept {
    return {block.live, block.ones, block.length, block.sparse};
}

// `run(job)` runs a compare_job (targets, steps, bits, finish, need_lt, words) into s.eq and
// s.lt as compare_in_stages does, and returns false where it stopped because no residual was
// still equal to any target. With `count` (the count_* scans), an equality on a whole block
// answers `some` with the number of passing residuals in *count and leaves `out` alone: a
// popcount of s.eq, without the copy into `out` (another pass over 256 bytes per block),
// unless the run counted s.eq itself (s.eq_count: scan_block.hpp). So does a range with both
// bounds on a whole block in one pass, counted by the kernel (compare_job::range_count; `out`
// gets the answer too), not by a popcount pass over `out` after it.
// `one_pass`: run hands the job to one compare_planes call as it is (the direct and
// interleaved ways), so that a range's answer can go straight into `out` (range_into);
// compare_in_stages combines stages from eq and lt and takes no range_into.
template <class Run>
compact_answer compare_residuals(const plane_shape& block, Run&& run, const residual_test& rt, scan_scratch& s,
                                 plane& out, std::uint32_t* count = nullptr, bool one_pass = false) {
    const std::uint32_t live = block.live;
    const std::uint32_t ones = block.ones;
    const bool equality = rt.lo == rt.hi;
    const bool need_lo = !equality && rt.lo != 0;
    const bool need_hi = !equality && rt.hi != max_key;
    const auto constant = [&](bool pass) { return pass == rt.inside ? compact_answer::all : compact_answer::none; };

    compare_job job;
    job.words = std::min<std::uint32_t>(plane_words, ((block.length + 31) / 32 + 7) / 8 * 8);
    // Per target slot: 0 = equality or the lower bound, 1 = the upper bound.
    target_walk lo_walk, hi_walk;
    int lo_slot = -1, hi_slot = -1;  // slot in the job, -1 when constant or not needed
    bool lo_pass = true, hi_pass = true;  // constant answers: r >= lo, r <= hi (or r == lo)
    if (equality) {
        // Sparse layout: the compact residuals are never zero.
        if (block.sparse && rt.lo == 0) return constant(false);
        lo_walk = walk(rt.lo, live, ones);
        // A constant plane that disagrees with the target leaves no residual equal to it.
        if (lo_walk.constant() || !lo_walk.all_equal()) return constant(lo_walk.all_equal() && lo_walk.constant());
        job.need_lt = false;
        job.targets = 1;
        job.steps[0] = lo_walk.steps;
        job.bits[0] = lo_walk.bits;
        job.finish[0] = compare_job::finish_none;
        // s.eq_count is count_unwanted but during such a run (find_* never touch it).
        const bool whole_count = count != nullptr && block.length == block_values;
        if (whole_count) s.eq_count = scan_scratch::count_wanted;
        const bool any = run(job);
        std::uint32_t counted = scan_scratch::count_wanted;
        if (whole_count) counted = std::exchange(s.eq_count, scan_scratch::count_unwanted);
        if (!any) return constant(false);
        if (whole_count) {
            const auto n = counted != scan_scratch::count_wanted
                               ? counted
                               : static_cast<std::uint32_t>(active_kernels().popcount_words(s.eq, plane_words));
            *count = rt.inside ? n : block.length - n;
            return compact_answer::some;
        }
        // find_eq's answer is eq itself: a copy (the library's wide memcpy, 256 bytes: ~35
        // instructions where the loop's 16-byte steps took ~96 a block, bam_flag find_eq).
        if (rt.inside) {
            std::memcpy(out.data(), s.eq, 4 * std::size_t{job.words});
        } else {
            for (std::uint32_t c = 0; c < job.words; ++c) out[c] = ~s.eq[c];
        }
        std::fill(out.begin() + job.words, out.end(), 0u);
        clear_from(out, block.length);
        return compact_answer::some;
    } else {
        if (need_lo) {
            lo_walk = walk(rt.lo, live, ones);
            if (lo_walk.constant()) lo_pass = !lo_walk.all_less();
        }
        if (need_hi) {
            hi_walk = walk(rt.hi, live, ones);
            if (hi_walk.constant()) hi_pass = hi_walk.all_less() || hi_walk.all_equal();
        }
        if (!lo_pass || !hi_pass) return constant(false);
        std::uint32_t slots = 0;
        if (need_lo && !lo_walk.constant()) lo_slot = static_cast<int>(slots++);
        if (need_hi && !hi_walk.constant()) hi_slot = static_cast<int>(slots++);
        if (slots == 0) return constant(true);
    }
    for (const auto& [slot, w] : {std::pair{lo_slot, lo_walk}, std::pair{hi_slot, hi_walk}}) {
        if (slot < 0) continue;
        job.steps[slot] = w.steps;
        job.bits[slot] = w.bits;
        job.finish[slot] = w.finish;
        job.targets = static_cast<std::uint32_t>(slot) + 1;
    }
    const std::uint32_t flip = rt.inside ? 0u : ~0u;
    const std::uint32_t words = job.words;
    if (one_pass && lo_slot == 0 && hi_slot == 1) {  // both bounds: the kernel writes the answer
        job.range_into = out.data();
        job.range_flip = flip;
        // A whole block's count from the kernel's registers (compare_job::range_count); a
        // short block's words past its length are not the answer's.
        if (count != nullptr && block.length == block_values) {
            job.range_count = count;
            run(job);
            return compact_answer::some;
        }
        run(job);
        std::fill(out.begin() + words, out.end(), 0u);
        clear_from(out, block.length);
        return compact_answer::some;
    }
    run(job);

    // Simple loops over whole words (vectorized); bits at or beyond length are cleared last.
    const std::uint32_t* lt_lo = s.lt + (lo_slot < 0 ? 0 : lo_slot) * plane_words;
    const std::uint32_t* lt_hi = s.lt + (hi_slot < 0 ? 0 : hi_slot) * plane_words;
    const std::uint32_t* eq_hi = s.eq + (hi_slot < 0 ? 0 : hi_slot) * plane_words;
    if (hi_slot < 0) {
        for (std::uint32_t c = 0; c < words; ++c) out[c] = ~lt_lo[c] ^ flip;
    } else if (lo_slot < 0) {
        for (std::uint32_t c = 0; c < words; ++c) out[c] = (lt_hi[c] | eq_hi[c]) ^ flip;
    } else {
        for (std::uint32_t c = 0; c < words; ++c) out[c] = (~lt_lo[c] & (lt_hi[c] | eq_hi[c])) ^ flip;
    }
    std::fill(out.begin() + words, out.end(), 0u);
    clear_from(out, block.length);
    return compact_answer::some;
}

// What scan and count share: the block parsed and compared on its residual planes, or false
// where it must be decoded.
struct encoded_result {
    compact_answer compact = compact_answer::none;
    bool zero_passes = false;  // sparse: whether the zero residuals pass
};

bool compare_encoded(const parsed_block& block, block_planes_source& source, const scan_test& test, scan_scratch& s,
                     encoded_result& out) {
    residual_test rt;
    if (!residual_form(block.value_transform, block.for_base, test, rt)) return false;
    out.compact = compare_residuals(
        shape_of(block), [&](const compare_job& job) { return compare_in_stages(source, job, s); }, rt, s, s.compact);
    out.zero_passes = rt.passes(0);
    return true;
}

// ---- dense blocks whose planes are all stored against constant bases ----------------------
// (most blocks of real columns: raw, positions, runs and gaps payloads over an all-zero or
// all-one base). Their planes are read from the vector's descriptor and the payloads alone:
// no parsed_block, no plane is built for an equality, and a range builds only list planes,
// one at a time, into one buffer.

// eq[w] &= bits[w] ^ flip for w in [0, words) (eq[w] = bits[w] ^ flip where `fresh`), and
// whether any bit of eq is left. SSE2, 4 words an instruction: GCC left these loops scalar
// (the OR of the results beside the store), about 3.8 instructions a word (bam_mapq count_eq
// frequent: 1.6M of 7.6M, callgrind).
// `bits`: little-endian words, any alignment (raw payloads in place).
bool narrow_words(std::uint32_t* eq, const std::byte* bits, std::uint32_t flip, std::uint32_t words,
                  bool fresh) noexcept {
    std::uint32_t w = 0;
    std::uint32_t acc = 0;
#if defined(__SSE2__)
    const __m128i f = _mm_set1_epi32(static_cast<int>(flip));
    __m128i any = _mm_setzero_si128();
    for (; w + 4 <= words; w += 4) {
        __m128i x = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bits + 4 * w)), f);
        if (!fresh) x = _mm_and_si128(x, _mm_loadu_si128(reinterpret_cast<const __m128i*>(eq + w)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(eq + w), x);
        any = _mm_or_si128(any, x);
    }
    acc = _mm_movemask_epi8(_mm_cmpeq_epi8(any, _mm_setzero_si128())) != 0xFFFF ? 1u : 0u;
#endif
    for (; w < words; ++w) acc |= eq[w] = (fresh ? ~0u : eq[w]) & (load_le<std::uint32_t>(bits + 4 * w) ^ flip);
    return acc != 0;
}

bool narrow_words(std::uint32_t* eq, const std::uint32_t* bits, std::uint32_t flip, std::uint32_t words,
                  bool fresh) noexcept {
    return narrow_words(eq, reinterpret_cast<const std::byte*>(bits), flip, words, fresh);
}

// What direct_planes::mark stores for a position: the byte's top bit, which SSE2's movemask
// packs without a compare.
constexpr std::uint8_t marked = 0x80;

// Words [0, words) of bits from bytes that are 0 or `marked` (marks[32 w + i] -> bit i of word
// w), complemented where `invert`, into out (ANDed into it unless `fresh`); whether any bit of
// out is left. SSE2 (every x86-64) takes 16 bytes per instruction; elsewhere the bytes of
// eight positions go to eight bits in one multiply.
bool pack_marks(const std::uint8_t* marks, std::uint32_t* out, std::uint32_t words, bool invert,
                bool fresh = true) noexcept {
    const std::uint32_t flip = invert ? ~0u : 0u;
    if (const auto kernel = active_kernels().pack_marks; kernel != nullptr) return kernel(marks, out, words, flip, fresh);
    std::uint32_t acc = 0;
#if defined(__SSE2__)
    for (std::uint32_t w = 0; w < words; ++w) {
        const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(marks + 32 * w));
        const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(marks + 32 * w + 16));
        const auto bits = static_cast<std::uint32_t>(_mm_movemask_epi8(lo)) |
                          static_cast<std::uint32_t>(_mm_movemask_epi8(hi)) << 16;
        acc |= out[w] = (fresh ? ~0u : out[w]) & (bits ^ flip);
    }
#else
    constexpr std::uint64_t gather_lsbs = 0x0102040810204080ull;
    for (std::uint32_t w = 0; w < words; ++w) {
        std::uint32_t bits = 0;
        for (std::uint32_t k = 0; k < 4; ++k) {
            const auto x = load_le<std::uint64_t>(reinterpret_cast<const std::byte*>(marks + 32 * w + 8 * k)) >> 7;
            bits |= static_cast<std::uint32_t>((x * gather_lsbs) >> 56) << (8 * k);
        }
        acc |= out[w] = (fresh ? ~0u : out[w]) & (bits ^ flip);
    }
#endif
    return acc != 0;
}


// Only the live planes' entries are written and read (no initializers: an entry per block).
struct direct_plane {
    codec::payload_kind payload;
    bool one_base;         // base one, or complement of the reference
    std::uint8_t ref;      // the plane stored against (plane, complement), else no_ref
    std::uint16_t items;   // positions, runs; gaps: bytes
    std::uint32_t offset;  // of the payload in the block
    // Gaps payloads whose 2048-bit map the vector keeps beside the block (gaps_side): the
    // plane is read as raw words from there, no list walked; else null.
    const std::uint32_t* map;
    // Shorter gaps payloads whose decoded positions the vector keeps beside the block: read
    // from there (`listed` of them, the list's then pads above the block), no gap decoded;
    // else null.
    const std::uint16_t* positions;
    std::uint32_t listed;
};

class direct_planes {
public:
    /// False where a plane is stored against itself, or the block is not dense, interleaved
    /// or delta: such blocks take block_planes_source. `side`: the maps kept
    /// beside the block (a dense block's side entries are its planes', in descriptor order).
    bool load(const block_descriptor& d, const std::byte* bytes, gaps_side side) noexcept {
        if (d.sparse() || d.all_raw() || d.transform() == codec::transform::delta) return false;
        bytes_ = bytes;
        length_ = d.length;
        live_ = d.live;
        ones_ = d.ones;
        plane_walker walk(d, bytes);
        referring_ = 0;
        for (std::uint32_t i = 0; i < d.stored; ++i) {
            const plane_entry e = walk.next();
            const codec::base_kind base = e.code.base_kind();
            const std::uint32_t j = e.code.index & 31u;
            direct_plane& p = planes_[j];
            p.ref = no_ref;
            if (base == codec::base_kind::plane || base == codec::base_kind::complement) {
                if ((e.code.reference & 31u) == j) return false;
                p.ref = static_cast<std::uint8_t>(e.code.reference & 31u);
                referring_ |= 1u << j;
            }
            p.payload = e.code.payload_kind();
            p.one_base = base == codec::base_kind::one || base == codec::base_kind::complement;
            p.items = static_cast<std::uint16_t>(e.items);
            p.offset = e.payload_offset;
            p.map = nullptr;
            p.positions = nullptr;
            if (p.payload == codec::payload_kind::gaps) {  // no call for the other kinds
                const gaps_side::entry side_entry = side.next(p.payload, e.items);
                p.map = side_entry.map;
                p.positions = side_entry.positions;
                p.listed = side_entry.listed;
            }
        }
        return true;
    }

    /// load's entries from the block's read plan (direct_access.hpp, read_plan: the planes
    /// already grouped by payload kind, with their offsets and the words of their gaps side
    /// entries), not from a walk of the plane table and of `skips` plane by plane: that walk
    /// was about a third of geoip4_size's count_eq (~1.1K of ~2.5K instructions a block:
    /// decoding each plane code, the item counts, gaps_side::next's entry sizes). `skips`:
    /// the block's gaps side entries, which the plan's gaps entries index. False where load
    /// must be used (no plan, or it names gap lists and no side entries are given), or where
    /// load would also be false. A gap list kept as positions gets as `items` the fewest bytes
    /// its padded position count allows (the plan keeps no byte count; listed_positions rounds
    /// the bytes up to listed_positions_step): the same side of sparse_list and marked_list as
    /// its bytes, and no more marked lists (marked_clear_items) than its bytes give. The padded count itself
    /// marked bam_flag's short lists together: count_eq frequent 1957K -> 2014K instructions.
    bool load_planned(const block_descriptor& d, const std::byte* bytes, const std::uint32_t* plan,
                      const std::uint32_t* skips) noexcept {
        if (plan == nullptr || d.sparse() || d.all_raw() || d.transform() == codec::transform::delta) return false;
        const plan_groups g = groups_of(plan);
        if (skips == nullptr && g.mapped + g.listed != 0) return false;
        bytes_ = bytes;
        length_ = d.length;
        live_ = d.live;
        ones_ = d.ones;
        const std::uint32_t complemented = plan[0];
        // Live planes with no entry in the plan's groups have no payload (their base's bits).
        for (std::uint32_t live = d.live; live != 0; live &= live - 1) {
            const auto j = static_cast<std::uint32_t>(std::countr_zero(live));
            direct_plane& p = planes_[j];
            p.one_base = ((complemented >> j) & 1u) != 0;
            p.payload = codec::payload_kind::none;
            p.offset = 0;  // gap lists read from their side entries: narrow forms bytes_ + offset
            p.ref = no_ref;
            p.map = nullptr;
            p.positions = nullptr;
        }
        const auto at = [this](std::uint32_t word) -> direct_plane& { return planes_[plan_index(word)]; };
        const std::uint32_t* e = g.entries;
        for (std::uint32_t i = 0; i < g.raw; ++i, ++e) {
            direct_plane& p = at(*e);
            p.payload = codec::payload_kind::raw;
            p.offset = plan_low(*e);
        }
        for (std::uint32_t i = 0; i < g.mapped; ++i, ++e) {
            direct_plane& p = at(*e);
            p.payload = codec::payload_kind::gaps;
            p.map = skips + plan_low(*e);
        }
        constexpr std::uint32_t step = listed_positions_step;
        for (std::uint32_t i = 0; i < g.listed; ++i, ++e) {
            direct_plane& p = at(*e);
            p.payload = codec::payload_kind::gaps;
            // u16 positions in pairs per word (value_reader.hpp, listed_of)
            p.positions = reinterpret_cast<const std::uint16_t*>(skips + plan_low(*e));
            p.listed = *e >> 24;
            p.items = static_cast<std::uint16_t>(p.listed >= step ? p.listed - (step - 1) : 0u);
        }
        for (std::uint32_t i = 0; i < g.positions + g.runs; ++i, e += 2) {
            direct_plane& p = at(e[0]);
            p.payload = i < g.positions ? codec::payload_kind::positions : codec::payload_kind::runs;
            p.offset = plan_low(e[0]);
            p.items = static_cast<std::uint16_t>(e[1]);
        }
        referring_ = 0;
        for (std::uint32_t i = 0; i < g.references; ++i, ++e) {
            const std::uint32_t j = *e & 31u, r = (*e >> 8) & 31u;
            if (r == j) return false;
            planes_[j].ref = static_cast<std::uint8_t>(r);
            referring_ |= 1u << j;
        }
        return true;
    }

    [[nodiscard]] std::uint32_t length() const noexcept { return length_; }
    /// Whether a plane is stored against another plane (equalities settle them first:
    /// settle_references; other tests read them through laid_out_planes).
    [[nodiscard]] bool references() const noexcept { return referring_ != 0; }
    /// Whether plane j is stored against another plane (its base is that plane's bits, or
    /// their complement), and which.
    [[nodiscard]] bool has_reference(std::uint32_t j) const noexcept { return planes_[j].ref != no_ref; }
    [[nodiscard]] std::uint32_t reference_of(std::uint32_t j) const noexcept { return planes_[j].ref & 31u; }
    /// Whether plane j is live (else constant: all ones where ones() has it, else zero).
    [[nodiscard]] bool is_live(std::uint32_t j) const noexcept { return ((live_ >> j) & 1u) != 0; }
    [[nodiscard]] bool is_ones(std::uint32_t j) const noexcept { return ((ones_ >> j) & 1u) != 0; }
    /// Whether plane j's base is one, or the complement of its reference.
    [[nodiscard]] bool base_complemented(std::uint32_t j) const noexcept { return planes_[j].one_base; }
    /// Whether plane j has no payload (it is its base).
    [[nodiscard]] bool no_payload(std::uint32_t j) const noexcept {
        return planes_[j].payload == codec::payload_kind::none && planes_[j].map == nullptr;
    }

    /// For an equality whose target has bit (target >> j) & 1 in every plane j: plane j's
    /// base where the residual still equals the target in the other planes, so that plane j
    /// narrows eq as a plane stored against that constant base would. A plane stored against
    /// plane r is r's bit XOR the payload's: where r equals the target, r's bit is the
    /// target's (live r: an equality reads every live plane) or r's constant bit.
    void settle_references(std::uint32_t target) noexcept {
        // Only the planes that refer to another (referring_), not every live plane: a walk
        // over the live ones cost bam_flag find_eq ~50 instructions a block (callgrind, AVX2).
        for (std::uint32_t m = referring_; m != 0; m &= m - 1) {
            direct_plane& p = planes_[std::countr_zero(m)];
            if (p.ref == no_ref) continue;  // a plane entry repeated in a forged table
            const bool r = ((target >> p.ref) & 1u) != 0;
            p.one_base = p.one_base != r;
            p.ref = no_ref;
        }
        referring_ = 0;
    }

    /// How plane j narrows an equality whose bit there is `bit`: 0 = a list plane that keeps
    /// only its own bits (few), 1 = a raw plane, 2 = a list plane that clears its bits.
    [[nodiscard]] int narrowing(std::uint32_t j, bool bit) const noexcept {
        const direct_plane& p = planes_[j];
        if (p.payload == codec::payload_kind::raw || p.map != nullptr) return 1;
        return bit != p.one_base ? 0 : 2;
    }

    /// eq &= (plane j == bit), over words [0, words); `fresh`: eq is all ones and not yet
    /// written. `tmp` is a plane of scratch that may be swapped with eq. Returns false when
    /// eq is known to be all zero afterwards (it may be all zero when true is returned).
    bool narrow(std::uint32_t j, bool bit, std::uint32_t*& eq, std::uint32_t*& tmp, std::uint32_t words,
                bool fresh) const noexcept {
        const direct_plane& p = planes_[j];
        const bool keep = bit != p.one_base;  // eq &= payload bits (else eq &= ~payload bits)
        const std::byte* at = bytes_ + p.offset;
        if (p.map != nullptr) {  // a raw plane, kept beside the block (its bits past length_ clear)
            return narrow_words(eq, p.map, keep ? 0u : ~0u, words, fresh);
        }
        switch (p.payload) {
            case codec::payload_kind::none:  // the plane is its base
                if (keep) return false;
                if (fresh) std::fill_n(eq, words, ~0u);
                return true;
            case codec::payload_kind::raw: {
                const std::uint32_t flip = keep ? 0u : ~0u;
                const std::uint32_t full = std::min(length_ / 32, words);
                std::uint32_t acc = narrow_words(eq, at, flip, full, fresh) ? 1u : 0u;
                if (full < words) {  // a short block: its last word, then words past the payload
                    std::uint32_t last = 0;
                    std::memcpy(&last, at + 4 * full, (length_ + 7) / 8 - 4 * full);
                    for (std::uint32_t w = full; w < words; ++w) {
                        const std::uint32_t bits = (w == full ? last : 0u) ^ flip;
                        acc |= eq[w] = fresh ? bits : eq[w] & bits;
                    }
                }
                return acc != 0;
            }
            default: break;
        }
        if (p.items <= sparse_list) {
            // Few bits: gathered 64 at a time and applied to the words they fall in.
            if (fresh) std::fill_n(eq, words, ~0u);
            if (keep) {
                // Only the payload's bits can stay: collected into tmp, which becomes eq.
                std::fill_n(tmp, words, 0u);
                std::uint32_t acc = 0;
                for_each_word(p, at, [&](std::uint32_t w, std::uint32_t m) {
                    const std::uint32_t b = eq[w] & m;
                    tmp[w] |= b;
                    acc |= b;
                });
                std::swap(eq, tmp);
                return acc != 0;
            }
            for_each_word(p, at, [eq](std::uint32_t w, std::uint32_t m) { eq[w] &= ~m; });
            return true;
        }
        // Many bits: set one by one in tmp (a branch per 64 bits would mispredict often),
        // then one pass over eq.
        std::fill_n(tmp, words, 0u);
        for_each_bit(p, at, [tmp](std::uint32_t w, std::uint32_t m) { tmp[w] |= m; });
        return narrow_words(eq, tmp, keep ? 0u : ~0u, words, fresh);
    }

    /// Plane j's words where narrowing() calls it raw (a raw payload, or a gap list's map kept
    /// beside the block), little-endian at any alignment, and in `flip` what to XOR them with
    /// for (plane j == bit): 0 or ~0.
    [[nodiscard]] const std::uint8_t* raw_words(std::uint32_t j, bool bit, std::uint32_t& flip) const noexcept {
        const direct_plane& p = planes_[j];
        flip = bit != p.one_base ? 0u : ~0u;
        if (p.map != nullptr) return reinterpret_cast<const std::uint8_t*>(p.map);
        return reinterpret_cast<const std::uint8_t*>(bytes_ + p.offset);
    }

    /// Plane j's words where the compare kernel can read them as they lie for a whole job
    /// (compare_job::planes): a whole block's raw payload, or a gap list's map (kept for a
    /// whole block), over an all-zero base; null where the plane must be built (lists,
    /// complements, planes stored against others, a short block's raw payload, which ends
    /// before the job's last word).
    [[nodiscard]] const std::uint8_t* words_in_place(std::uint32_t j) const noexcept {
        const direct_plane& p = planes_[j];
        if (p.one_base || p.ref != no_ref) return nullptr;
        if (p.map != nullptr) return reinterpret_cast<const std::uint8_t*>(p.map);
        if (p.payload == codec::payload_kind::raw && length_ == block_values)
            return reinterpret_cast<const std::uint8_t*>(bytes_ + p.offset);
        return nullptr;
    }

    /// A plane's base into words [0, words) of `out`: `with`'s words (null: zeros) XOR `flip`.
    static void base_into(std::uint32_t* out, std::uint32_t words, const std::uint32_t* with,
                          std::uint32_t flip) noexcept {
        if (with == nullptr) {
            std::fill_n(out, words, flip);
        } else {
            for (std::uint32_t c = 0; c < words; ++c) out[c] = with[c] ^ flip;
        }
    }

    /// Plane j's bits, words [0, words), written once into `out`: its payload XOR `with`'s
    /// words (the bits of the plane it is stored against; null: zeros) XOR `flip` (~0 for a
    /// base of ones, or a constant reference of ones; else 0), so that a laid-out plane is
    /// built in its slot in one pass rather than built, then copied or complemented there.
    void plane_into(std::uint32_t j, std::uint32_t* out, std::uint32_t words, const std::uint32_t* with,
                    std::uint32_t flip, std::uint8_t* marks) const noexcept {
        const direct_plane& p = planes_[j];
        if (p.payload == codec::payload_kind::raw || p.map != nullptr) {
            const std::byte* at = p.map != nullptr ? reinterpret_cast<const std::byte*>(p.map) : bytes_ + p.offset;
            // A map is kept for a whole block; a raw payload holds (length_ + 7) / 8 bytes.
            const std::uint32_t bytes = p.map != nullptr ? 4 * words : std::min<std::uint32_t>((length_ + 7) / 8, 4 * words);
            if (with == nullptr && flip == 0) {  // a copy (memcpy: wider than the baseline build's loop)
                std::memcpy(out, at, bytes);
                // A whole block's payload fills the slot: no call for the empty rest (a raw
                // plane of word_length's ~3.8 a block).
                if (bytes != 4 * words) std::memset(reinterpret_cast<std::byte*>(out) + bytes, 0, 4 * words - bytes);
                return;
            }
            const std::uint32_t full = bytes / 4;
            if (with == nullptr) {
                for (std::uint32_t c = 0; c < full; ++c) out[c] = load_le<std::uint32_t>(at + 4 * c) ^ flip;
            } else {
                for (std::uint32_t c = 0; c < full; ++c) out[c] = load_le<std::uint32_t>(at + 4 * c) ^ with[c] ^ flip;
            }
            for (std::uint32_t c = full; c < words; ++c) {  // a short block's last word, then zeros
                std::uint32_t last = 0;
                if (c == full) std::memcpy(&last, at + 4 * full, bytes - 4 * full);
                out[c] = last ^ (with != nullptr ? with[c] : 0u) ^ flip;
            }
            return;
        }
        if (p.payload == codec::payload_kind::none) {  // the plane is its base
            base_into(out, words, with, flip);
            return;
        }
        if (p.items > marked_list) {
            std::memset(marks, 0, 32 * std::size_t{words});
            mark(j, marks, marked);
            pack_marks(marks, out, words, flip != 0);
            if (with != nullptr)
                for (std::uint32_t c = 0; c < words; ++c) out[c] ^= with[c];
            return;
        }
        // A short list toggles its bits over the base: a valid list's bits are distinct, so
        // XOR sets them as OR would (a forged list's repeats give wrong bits, never a bad access).
        base_into(out, words, with, flip);
        for_each_word(p, bytes_ + p.offset, [out](std::uint32_t w, std::uint32_t m) { out[w] ^= m; });
    }

    /// Whether plane j is a list (positions, runs, gaps) read as a list (a gaps payload with a
    /// map is read as raw words).
    [[nodiscard]] bool is_list(std::uint32_t j) const noexcept {
        if (planes_[j].map != nullptr) return false;
        const codec::payload_kind k = planes_[j].payload;
        return k == codec::payload_kind::positions || k == codec::payload_kind::runs || k == codec::payload_kind::gaps;
    }
    /// Plane j's item count (positions, runs; gaps: bytes).
    [[nodiscard]] std::uint32_t items_of(std::uint32_t j) const noexcept { return planes_[j].items; }
    /// marks[position] = v for each position of list plane j (a store per position, none
    /// depending on another: setting bits in words waits on the previous store to the word).
    void mark(std::uint32_t j, std::uint8_t* marks, std::uint8_t v) const noexcept {
        constexpr std::uint32_t last_bit = block_values - 1;
        // Locals only in the loops: a byte store may alias any member.
        const direct_plane& p = planes_[j];
        const std::byte* const at = bytes_ + p.offset;
        const std::uint32_t items = p.items;
        switch (p.payload) {
            case codec::payload_kind::positions:
                for (std::uint32_t i = 0; i < items; ++i) marks[load_le<std::uint16_t>(at + 2 * i) & last_bit] = v;
                break;
            case codec::payload_kind::gaps: {
                if (p.positions != nullptr) {
                    mark_listed(p.positions, p.listed, marks, v);
                    break;
                }
                // Not through for_every_position: a byte store (which may alias anything) made
                // the decoder reload its state after every position (bam_mapq, geoip4_size
                // count_eq frequent 5-10% slower). Here 16 gaps without an escape become
                // positions in registers (positions_of_16_gaps), stored from there: about 4
                // instructions a position against 12 one at a time (bam_mapq count_eq
                // frequent, callgrind), where each position waited on the previous one.
                std::uint32_t next = 0;
                std::uint32_t i = 0;
                const auto one_gap = [&] {
                    std::uint32_t gap = static_cast<std::uint32_t>(at[i++]);
                    if (gap == gaps_payload::escape) [[unlikely]] {
                        gap = load_le<std::uint16_t>(at + i);
                        i += 2;
                    }
                    next += gap;
                    marks[next & last_bit] = v;
                    ++next;
                };
#if defined(__SSE2__)
                while (i + 16 <= items) {
                    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + i));
                    const auto escapes =
                        static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, _mm_set1_epi8(-1))));
                    if (escapes != 0) {
                        // Up to the first escape and the escape itself, one at a time.
                        const std::uint32_t stop = i + static_cast<std::uint32_t>(std::countr_zero(escapes));
                        while (i <= stop) one_gap();
                        continue;
                    }
                    __m128i low, high;
                    gaps_payload::positions_of_16_gaps(chunk, next, low, high);
                    mark_8(low, marks, v);
                    mark_8(high, marks, v);
                    next = static_cast<std::uint32_t>(_mm_extract_epi16(high, 7)) + 1;
                    i += 16;
                }
#endif
                while (i < items) one_gap();
                break;
            }
            case codec::payload_kind::runs:
                for (std::uint32_t i = 0; i < items; ++i) {
                    const std::uint32_t begin = std::min<std::uint32_t>(load_le<std::uint16_t>(at + 4 * i), block_values);
                    const std::uint32_t end = std::min<std::uint32_t>(load_le<std::uint16_t>(at + 4 * i + 2), block_values);
                    if (begin < end) std::memset(marks + begin, v, end - begin);
                }
                break;
            default: break;
        }
    }


private:
    static constexpr std::uint8_t no_ref = 0xFF;
    // Lists of at most this many items (positions, runs, gap bytes) are applied word by word;
    // longer ones are built into a plane first (bam_mapq, geoip4_size: gap lists of ~100-250
    // positions measured 25% faster that way; bam_flag's short lists 2x slower).
    static constexpr std::uint32_t sparse_list = 32;
    // Lists of more items than this are marked in a byte map and packed into a plane.
    static constexpr std::uint32_t marked_list = 64;

    // Bits of ascending positions, 64 at a time, handed to f(word, bits) a 32-bit word at a
    // time (bits may be 0: every f here ignores those).
    struct gather {
        std::uint32_t chunk = 0;
        std::uint64_t bits = 0;
        template <class F>
        void add(std::uint32_t bit, F& f) {
            if ((bit >> 6) != chunk) {
                flush(f);
                chunk = bit >> 6;
                bits = 0;
            }
            bits |= std::uint64_t{1} << (bit & 63u);
        }
        template <class F>
        void flush(F& f) {
            f(2 * chunk, static_cast<std::uint32_t>(bits));
            f(2 * chunk + 1, static_cast<std::uint32_t>(bits >> 32));
        }
    };

    // f(word, bit) for each set bit of a list payload, runs a word at a time (no branch per word).
    template <class F>
    static void for_each_bit(const direct_plane& p, const std::byte* at, F&& f) noexcept {
        constexpr std::uint32_t last_bit = block_values - 1;
        switch (p.payload) {
            case codec::payload_kind::positions:
                for (std::uint32_t i = 0; i < p.items; ++i) {
                    const std::uint32_t bit = load_le<std::uint16_t>(at + 2 * i) & last_bit;
                    f(bit >> 5, 1u << (bit & 31u));
                }
                break;
            case codec::payload_kind::gaps:
                if (p.positions != nullptr) {
                    for_each_listed(p.positions, p.listed, [&f](std::uint32_t bit) { f(bit >> 5, 1u << (bit & 31u)); });
                    break;
                }
                gaps_payload::for_every_position(at, p.items, [&f](std::uint32_t bit) {
                    bit &= last_bit;
                    f(bit >> 5, 1u << (bit & 31u));
                });
                break;
            default: for_each_word(p, at, f); break;
        }
    }

    // f(word, bits) for the set bits of a list payload (positions, runs, gaps), a word at a
    // time (positions are masked to the plane, so that even forged bytes stay inside it).
    template <class F>
    static void for_each_word(const direct_plane& p, const std::byte* at, F&& f) noexcept {
        constexpr std::uint32_t last_bit = block_values - 1;
        switch (p.payload) {
            case codec::payload_kind::positions: {
                // Positions ascend: the bits of 64 positions are gathered in a register first
                // (a read-modify-write of memory per position waits on the previous one, and
                // a branch per word mispredicts often).
                gather g;
                for (std::uint32_t i = 0; i < p.items; ++i) g.add(load_le<std::uint16_t>(at + 2 * i) & last_bit, f);
                g.flush(f);
                break;
            }
            case codec::payload_kind::gaps: {
                gather g;
                if (p.positions != nullptr) {
                    for_each_listed(p.positions, p.listed, [&](std::uint32_t bit) { g.add(bit, f); });
                } else {
                    gaps_payload::for_every_position(at, p.items, [&](std::uint32_t bit) { g.add(bit & last_bit, f); });
                }
                g.flush(f);
                break;
            }
            case codec::payload_kind::runs:
                for (std::uint32_t i = 0; i < p.items; ++i) {
                    const std::byte* run = at + 4 * i;
                    const std::uint32_t begin = std::min<std::uint32_t>(load_le<std::uint16_t>(run), block_values);
                    const std::uint32_t end = std::min<std::uint32_t>(load_le<std::uint16_t>(run + 2), block_values);
                    if (begin >= end) continue;
                    const std::uint32_t first = begin >> 5, last = (end - 1) >> 5;
                    const std::uint32_t head = ~0u << (begin & 31u), tail = ~0u >> (31u - ((end - 1) & 31u));
                    if (first == last) {
                        f(first, head & tail);
                        continue;
                    }
                    f(first, head);
                    for (std::uint32_t w = first + 1; w < last; ++w) f(w, ~0u);
                    f(last, tail);
                }
                break;
            default: break;
        }
    }

private:
    const std::byte* bytes_ = nullptr;
    std::uint32_t length_ = 0;
    std::uint32_t live_ = 0;
    std::uint32_t ones_ = 0;
    std::uint32_t referring_ = 0;  // bit j: plane j is stored against another plane
    direct_plane planes_[plane_count];
};


// Lists that clear their bits, of more items (positions, runs, gap bytes) than this in all,
// are marked in one byte map and packed once (bam_mapq, geoip4_size: about five gap lists of
// 100-250 positions per block; count_eq of the frequent value 1.3-1.4x faster than one plane
// per list, Xeon, AVX2). Gap lists with a map kept beside the block (gaps_side) are raw planes,
// not marked. Marking only where one list alone is longer than this (so that bam_mapq's five
// short lists, 8-25 bytes of mostly escapes, go word by word once its long list is mapped) took
// bam_mapq count_eq frequent from 4.01M to 3.54M instructions but bam_ref_span's (lists of
// 15-40 bytes) from 3.21M to 3.44M (callgrind, AVX2); a bound of 64 items in all, 3.71M and
// 3.36M. Not done: the byte count does not tell how many positions a gap list holds.
constexpr std::uint32_t marked_clear_items = 32;

// Whether the planes not yet applied (those that clear their bits) are lists to mark together:
// two or more, of more than marked_clear_items items in all. After a list that keeps its bits,
// clearing lists one at a time may stop early, so the caller asks only when none was applied.
// `clears`: bit k set for the k-th plane read (order[k]) that clears its bits.
bool marked_clears(const direct_planes& dp, const std::uint8_t* order, std::uint32_t clears) {
    std::uint32_t items = 0, lists = 0;
    for (std::uint32_t m = clears; m != 0; m &= m - 1) {
        const std::uint32_t j = order[std::countr_zero(m)];
        if (!dp.is_list(j)) continue;
        items += dp.items_of(j);
        ++lists;
    }
    return lists > 1 && items > marked_clear_items;
}

// An equality (one target, no finish) on direct planes, into s.eq: every plane read narrows eq,
// in any order, so list planes that keep only their own bits go first, then raw planes (on a
// whole block, in one pass of the narrow_planes kernel where the path has it: eq stays in
// registers, where narrowing plane by plane loaded and stored it for each: word_length count_eq
// frequent 2679 -> 1769 instructions a block, AVX2, callgrind), then list planes that clear
// theirs (marked together in a byte map when there is no list of the first kind and they are
// long); it stops as soon as eq is empty (false). Where eq's count is wanted (s.eq_count),
// the last pass (the raw planes' kernel, or the marks packed) also counts eq into s.eq_count,
// from the registers or words it holds (not popcount_words over eq again). The wish is read from s, not passed
// as an argument: one more argument spilled dp in the loops here (+14 instructions a block,
// bam_flag count_eq, AVX2).
bool run_direct_equal(const direct_planes& dp, std::uint32_t live, const compare_job& job, scan_scratch& s) {
    std::uint8_t order[plane_count];
    const std::uint32_t steps = top_planes(live, job.steps[0], order);
    std::uint32_t* eq = s.eq;
    std::uint32_t* tmp = s.lt;
    bool fresh = true;
    // Bit k of by_kind[n]: plane order[k] narrows as narrowing() kind n (sorted once: asking
    // every plane in each of the three passes cost bam_flag count_eq about 10% of its
    // instructions).
    std::uint32_t by_kind[3] = {};
    const auto narrow_planes = active_kernels().narrow_planes;
    for (std::uint32_t k = 0; k < steps; ++k)
        by_kind[dp.narrowing(order[k], ((job.bits[0] >> k) & 1u) != 0)] |= 1u << k;
    for (int pass = 0; pass < 3; ++pass) {
        // With no list that keeps its bits applied (it leaves few positions), long clearing
        // lists are marked together.
        if (pass == 2 && by_kind[0] == 0 && marked_clears(dp, order, by_kind[2])) {
            std::memset(s.marks, 0, 32 * std::size_t{job.words});
            for (std::uint32_t m = by_kind[2]; m != 0; m &= m - 1) {
                const std::uint32_t j = order[std::countr_zero(m)];
                if (dp.is_list(j)) dp.mark(j, s.marks, marked);
            }
            if (s.eq_count == scan_scratch::count_wanted && active_kernels().pack_marks_count != nullptr) {
                s.eq_count = active_kernels().pack_marks_count(s.marks, eq, job.words, ~0u, fresh);
                return s.eq_count != 0;
            }
            if (!pack_marks(s.marks, eq, job.words, true, fresh)) return false;
            fresh = false;
            break;
        }
        // The raw planes of a whole block in one pass (where the path has the kernel).
        if (pass == 1 && narrow_planes != nullptr && by_kind[1] != 0 && dp.length() == block_values) {
            const std::uint8_t* planes[plane_count];
            std::uint32_t flips[plane_count];
            std::uint32_t n = 0;
            for (std::uint32_t m = by_kind[1]; m != 0; m &= m - 1, ++n) {
                const auto k = static_cast<std::uint32_t>(std::countr_zero(m));
                planes[n] = dp.raw_words(order[k], ((job.bits[0] >> k) & 1u) != 0, flips[n]);
            }
            if (by_kind[2] == 0 && s.eq_count == scan_scratch::count_wanted &&
                active_kernels().narrow_planes_count != nullptr) {
                s.eq_count = active_kernels().narrow_planes_count(eq, planes, flips, n, fresh);
                return s.eq_count != 0;
            }
            if (!narrow_planes(eq, planes, flips, n, fresh)) return false;
            fresh = false;
            continue;
        }
        for (std::uint32_t m = by_kind[pass]; m != 0; m &= m - 1) {
            const auto k = static_cast<std::uint32_t>(std::countr_zero(m));
            if (!dp.narrow(order[k], ((job.bits[0] >> k) & 1u) != 0, eq, tmp, job.words, fresh)) return false;
            fresh = false;
        }
    }
    if (fresh) std::fill_n(eq, job.words, ~0u);
    if (eq != s.eq) std::copy_n(eq, job.words, s.eq);
    return true;
}

// The planes an order test reads, laid out for the compare_planes kernel: plane order[k]
// built straight into its slot k of s.values, complement applied (one pass: reading the
// payload, XOR the plane it is stored against, XOR its base). Planes stored against other
// planes are their payload XOR their reference's bits (XOR ones for a complement base), as the
// decoder and block_planes_source::build make them; a reference is built first, into its own
// slot where the test reads it too (bam_tlen's sign planes are read and referred to), else
// into s.planes.planes[r]. An equality settles references to constant bases instead
// (direct_planes::settle_references); an order test reads the planes below the first it
// decides on only where still equal, so it needs the planes themselves. Building planes
// elsewhere and copying them into place cost bam_tlen ~1.3M of its ~6.0M instructions a
// count_range (AVX2, callgrind).
class laid_out_planes {
public:
    laid_out_planes(const direct_planes& dp, scan_scratch& s, std::uint32_t words) noexcept
        : dp_(dp), s_(s), words_(words) {}

    /// Plane j is to be built into `slot`.
    void place(std::uint32_t j, std::uint32_t* slot) noexcept {
        where_[j] = slot;
        placed_ |= 1u << j;
    }

    /// Plane j's bits (built once: a plane referred to is read again at its own turn).
    const std::uint32_t* bits(std::uint32_t j) noexcept {
        if (((built_ >> j) & 1u) != 0) return where_[j];
        if (((placed_ >> j) & 1u) == 0) where_[j] = s_.planes.planes[j].data();
        std::uint32_t flip = dp_.base_complemented(j) ? ~0u : 0u;
        const std::uint32_t* with = nullptr;
        if (dp_.has_reference(j)) {
            // The reference's bits: a live plane's, built first. Validated blocks refer only
            // to live planes earlier in descriptor order (no cycle, no constant plane); a
            // constant one is read as its bits and `visiting_` keeps a cycle finite (read as
            // zeros), so that forged blocks never read past what was built.
            const std::uint32_t r = dp_.reference_of(j);
            if (!dp_.is_live(r)) {
                if (dp_.is_ones(r)) flip = ~flip;
            } else if (((visiting_ >> r) & 1u) == 0) {
                visiting_ |= 1u << j;
                with = bits(r);
                visiting_ &= ~(1u << j);
            }
        }
        dp_.plane_into(j, where_[j], words_, with, flip, s_.marks);
        built_ |= 1u << j;
        return where_[j];
    }

private:
    const direct_planes& dp_;
    scan_scratch& s_;
    std::uint32_t words_;
    std::uint32_t placed_ = 0, built_ = 0, visiting_ = 0;
    std::uint32_t* where_[plane_count];
};

// A compare_job on direct planes other than run_direct_equal's: the compare_planes kernel in
// one pass over the planes read, each where it lies (compare_job::planes): raw payloads and
// gap maps in place (direct_planes::words_in_place), the others built one after another in
// s.values (laid_out_planes). Plane by plane with word loops here (SSE2 in the library's
// baseline build, stopping once no residual was still equal) cost more on every corpus
// column's count_range (callgrind, AVX2, before -> after: bam_tlen 6.30M -> 6.03M, word_length
// 1.43M -> 1.20M, geoip6_country 578K -> 555K, none up; forced scalar path, word_length 9.70M
// -> 4.72M): ranges rarely stop early. bam_tlen's blocks store 1-10 planes against others and
// read 11-14 planes for two targets: they took the staged way through block_planes_source
// before (7.89M). Copying the raw planes into s.values beside the built ones cost as much as
// the kernel (word_length count_range 1.04M instructions a call, about 1.0K a block copying).
// Sets the job's planes (the caller's job, not a copy of its 200 bytes per block).
bool run_laid_out(const direct_planes& dp, std::uint32_t live, compare_job& job, scan_scratch& s) {
    const std::uint32_t total = job.targets == 2 ? std::max(job.steps[0], job.steps[1]) : job.steps[0];
    std::uint8_t order[plane_count];
    top_planes(live, total, order);
    laid_out_planes laid_out(dp, s, job.words);
    const std::uint8_t* planes[plane_count];
    std::uint32_t built = 0;  // bit k: the k-th plane read is built into s.values
    std::uint32_t slots = 0;
    for (std::uint32_t k = 0; k < total; ++k) {
        planes[k] = dp.words_in_place(order[k]);
        if (planes[k] != nullptr) continue;
        std::uint32_t* slot = s.values + slots++ * plane_words;
        laid_out.place(order[k], slot);
        planes[k] = reinterpret_cast<const std::uint8_t*>(slot);
        built |= 1u << k;
    }
    for (std::uint32_t m = built; m != 0; m &= m - 1) laid_out.bits(order[std::countr_zero(m)]);
    job.planes = planes;
    active_kernels().compare_planes(&job, s.eq, s.lt);
    job.planes = nullptr;
    return true;
}

// Any compare_job on direct planes: an equality (one target, no order) narrows eq by the
// planes' payloads (run_direct_equal: references settled first, compare_direct), every other
// job goes through the kernel (run_laid_out). False when no residual is equal to the target.
bool run_direct(const direct_planes& dp, std::uint32_t live, compare_job& job, scan_scratch& s) {
    if (!dp.references() && job.targets == 1 && !job.need_lt && job.finish[0] == compare_job::finish_none)
        return run_direct_equal(dp, live, job, s);
    return run_laid_out(dp, live, job, s);
}

// Columns of an interleaved payload compared together by an equality in run_interleaved.
constexpr std::uint32_t interleaved_group = 4;
// Equalities on interleaved payloads of fewer planes go to the kernel's one pass, which was
// faster there (count_eq, rare value, AVX2, min of 300 runs: uniform 10-bit values 121-200 us
// against 244-254 us with the early exit, bed_name's 19 planes 179 against 202-220 us; 32-bit
// random values 265-317 against 325-491 us). The AVX2 kernel folds the rows of an equality
// without a transpose (compare_interleaved_equal) and beats the early exit at every width:
// random 32-bit values, count_eq rare, min of 200 runs x 2: 163 us against 266 us. The
// AVX-512 table has the same kernel (kernels_avx512.cpp is the AVX2 table with GFNI
// transposes), so it folds too: random32 count_eq rare there was 525 us through the early exit
// below against 301 us forced to AVX2 (dev VM, harness, 500 runs), the one column where the
// best path lost to AVX2 by 1.8x (docs/benchmarks.md, stop 30).
constexpr std::uint32_t interleaved_exit_planes = 24;

// Whether an equality on `stored` interleaved planes takes the early exit below (paths
// without the folding kernel).
bool interleaved_early_exit(std::uint32_t stored) noexcept {
    const simd_path path = active_kernels().path;
    return stored >= interleaved_exit_planes && path != simd_path::avx2 && path != simd_path::avx512;
}

// A compare_job on an interleaved all-raw payload (64 columns of `stored` words; the k-th
// plane from the top has rank stored - 1 - k). An equality on many planes goes column group by
// column group, planes from the bottom, and leaves a group once none of its residuals is still
// equal: after ~8 planes for random values, where the kernel's one pass reads every plane.
// Other tests go to the compare_planes kernel in one pass. Sets the job's base, stride and
// offsets (the caller's job, not a copy of its 200 bytes per block).
bool run_interleaved(const std::byte* payload, std::uint32_t stored, compare_job& job, scan_scratch& s) {
    compare_job& j = job;
    if (job.targets == 1 && !job.need_lt && job.finish[0] == compare_job::finish_none && job.steps[0] == stored &&
        interleaved_early_exit(stored)) {
        // An equality reads every stored plane (steps == stored), in any order: from the
        // bottom, whose planes tell a block's values apart soonest (ids, sorted columns: the
        // top planes are nearly constant within a block).
        std::uint32_t want[plane_count];  // XOR with the word of rank r: ones where equal
        for (std::uint32_t r = 0; r < stored; ++r) want[r] = ((job.bits[0] >> (stored - 1 - r)) & 1u) != 0 ? 0u : ~0u;
        const std::size_t column = 4 * std::size_t{stored};
        std::uint32_t any = 0;
        for (std::uint32_t c = 0; c < plane_words; c += interleaved_group) {
            std::uint32_t e[interleaved_group];
            for (std::uint32_t g = 0; g < interleaved_group; ++g) e[g] = ~0u;
            const std::byte* first = payload + c * column;
            for (std::uint32_t r = 0; r < stored; ++r) {
                std::uint32_t alive = 0;
                for (std::uint32_t g = 0; g < interleaved_group; ++g) {
                    e[g] &= load_le<std::uint32_t>(first + g * column + 4 * r) ^ want[r];
                    alive |= e[g];
                }
                if (alive == 0) break;
            }
            for (std::uint32_t g = 0; g < interleaved_group; ++g) {
                s.eq[c + g] = e[g];
                any |= e[g];
            }
        }
        return any != 0;
    }
    j.base = reinterpret_cast<const std::uint8_t*>(payload);
    j.stride = 4 * stored;
    const std::uint32_t total = job.targets == 2 ? std::max(job.steps[0], job.steps[1]) : job.steps[0];
    for (std::uint32_t k = 0; k < total; ++k) j.offset[k] = 4 * (stored - 1 - k);
    active_kernels().compare_planes(&j, s.eq, s.lt);
    return true;
}

// An equality on a dense interleaved block through the equal_interleaved kernel (not null):
// the target's bits by rank straight from the descriptor, no compare_job, and the kernel's
// popcount, which also answers none and all (find_eq rare: most blocks hand the builder
// nothing). compare_residuals' contract otherwise: `out` or *count for `some`.
[[gnu::always_inline]] inline compact_answer equal_interleaved_block(const block_descriptor& d, const std::byte* bytes, const residual_test& rt,
                                       plane& out, std::uint32_t* count) {
    const auto constant = [&](bool pass) { return pass == rt.inside ? compact_answer::all : compact_answer::none; };
    const std::uint32_t n = equal_interleaved_count(active_kernels().equal_interleaved, d, bytes, rt.lo, out.data());
    if (n == 0) return constant(false);
    if (n == block_values) return constant(true);
    if (count != nullptr) {
        *count = rt.inside ? n : static_cast<std::uint32_t>(block_values) - n;
        return compact_answer::some;
    }
    if (!rt.inside)
        for (std::uint32_t& w : out) w = ~w;
    return compact_answer::some;
}

// (The scans' block loops take such blocks first through equality_lane.hpp, set up once per
// scan; this is the way for scan_block / count_block callers: tests, file views.)
// An equality on a dense interleaved block answered by equal_interleaved_block before
// compare_direct is called: the same answer compare_direct gives such a block, without what a
// vector's block costs it around the kernel (the side entries, which interleaved payloads do
// not use, and compare_direct's frame of plane tables). A rare value on short interleaved
// blocks ends most blocks in the kernel's fold with nothing equal (geoip4_country count_eq 8,
// AVX2: 176 blocks a call, ~300 instructions each outside the kernel against its ~360).
// False where it does not apply: compare_direct then decides as before.
[[gnu::always_inline]] inline bool equal_interleaved_first(const block_descriptor& d, const std::byte* bytes, const scan_test& test, plane& out,
                             compact_answer& answer, std::uint32_t* count) {
    // span == 0 is an equality on every residual form (zigzag_prefix never gives one value).
    if (test.span != 0 || !d.interleaved() || d.sparse() || active_kernels().equal_interleaved == nullptr) return false;
    residual_test rt;
    if (!residual_form(d.transform(), d.for_base(), test, rt) || rt.lo != rt.hi) return false;
    answer = equal_interleaved_block(d, bytes, rt, out, count);
    return true;
}

// The test on a dense block of direct planes, from the vector's descriptor: false where it
// does not apply (sparse, delta, zigzag order tests other than zigzag_prefix's).
// With `count`, *count may be set instead of `out` (compare_residuals says when).
// `skips`: the side entries the vector keeps beside the block (null: none, lists are walked).
// `candidates_tried`: equal_by_candidates declined this equality with `plan` (the lane).
bool compare_direct(const block_descriptor& d, const std::byte* bytes, const std::uint32_t* skips,
                    const scan_test& test, scan_scratch& s, plane& out, compact_answer& answer,
                    std::uint32_t* count = nullptr, const std::uint32_t* plan = nullptr, bool candidates_tried = false) {
    residual_test rt;
    if (!residual_form(d.transform(), d.for_base(), test, rt)) return false;
    if (d.interleaved() && !d.sparse()) {
        if (rt.lo == rt.hi && active_kernels().equal_interleaved != nullptr) {
            answer = equal_interleaved_block(d, bytes, rt, out, count);
            return true;
        }
        answer = compare_residuals(
            plane_shape{d.live, d.ones, d.length, false},
            [&](compare_job& job) { return run_interleaved(bytes + d.payloads_at, d.stored, job, s); }, rt, s,
            out, count, true);
        return true;
    }
    // An equality whose target disagrees with a constant plane (all zeros, or all ones: not
    // live) is answered before the plane table is walked: on runs columns (ucd_script rare)
    // most blocks that the summary's [min, max] leaves open are settled so, and dp.load's
    // walk of every plane entry was most of their cost.
    if (rt.lo == rt.hi && !d.sparse() && ((rt.lo ^ d.ones) & ~d.live) != 0) {
        answer = rt.inside ? compact_answer::none : compact_answer::all;
        return true;
    }
    // An equality with a short list plane that keeps only its positions: those are the only
    // candidates (equal_candidates.hpp), each other plane read at them alone; or lists that all
    // clear theirs, applied to the raw planes' one pass. A block that keeps no read plan (fewer
    // than thresholds::read_plan_min_lists lists) gets one here, on the stack: word_length's
    // blocks (four raw planes and one or two gap lists that clear, frequent value) took
    // direct_planes' walk and run_direct_equal's three passes, ~1770 instructions a block.
    std::uint32_t own_plan[read_plan_max_unfiltered_words];
    if (plan == nullptr && rt.lo == rt.hi && !d.sparse() && d.transform() != codec::transform::delta &&
        unfiltered_read_plan(d, bytes, own_plan))
        plan = own_plan;
    if (std::uint32_t n = 0; !candidates_tried && rt.lo == rt.hi && !d.sparse() &&
                             equal_by_candidates(d, bytes, plan, skips, rt.lo, s.marks, count != nullptr ? nullptr : out.data(), n)) {
        // n is exact where count is wanted; with `out` it may be equal_not_counted (some: the
        // plane is classified or counted by the caller, which may find it empty).
        if (n == 0) {
            answer = rt.inside ? compact_answer::none : compact_answer::all;
        } else if (count != nullptr) {
            *count = rt.inside ? n : d.length - n;
            answer = compact_answer::some;
        } else {
            if (!rt.inside) {
                for (std::uint32_t& w : out) w = ~w;
                clear_from(out, d.length);
            }
            answer = compact_answer::some;
        }
        return true;
    }
    direct_planes dp;
    if (!dp.load_planned(d, bytes, plan, skips) && !dp.load(d, bytes, gaps_side(d, skips))) return false;
    if (dp.references() && rt.lo == rt.hi) {
        // The target's bit in every plane: the residual's, or the constant plane's where the
        // target cannot match (compare_residuals answers those without a run).
        dp.settle_references((rt.lo & d.live) | (d.ones & ~d.live));
    }
    answer = compare_residuals(
        plane_shape{d.live, d.ones, d.length, false},
        [&](compare_job& job) { return run_direct(dp, d.live, job, s); }, rt, s, out, count, true);
    return true;
}

// A delta block whose smallest difference is not negative holds v_i = first + u_i with
// 0 <= u_i <= S = (sum of residuals) + (count - 1) x min, non-decreasing. When S < 2^32 the
// keys are key(first) + u_i, a frame of reference again: a test that holds on all of [0, S],
// or on none of it, answers the block from its plane popcounts without decoding it (sorted
// columns: every block but those at the ends of the queried interval). `some` = undecided.
compact_answer delta_bound(const parsed_block& block, block_planes_source& source, const scan_test& test) {
    if (block.value_transform != codec::transform::delta || static_cast<std::int32_t>(block.delta_min) < 0)
        return compact_answer::some;
    const std::uint64_t top = source.residual_sum() + std::uint64_t{block.count - 1} * block.delta_min;
    if (top > max_key) return compact_answer::some;
    const residual_test rt = to_residuals(test, block.delta_first ^ scan_test::bias(test.is_signed));
    const auto last = static_cast<std::uint32_t>(top);
    if (rt.lo == 0 && last <= rt.hi) return rt.inside ? compact_answer::all : compact_answer::none;  // [0, S] inside
    if (rt.lo > last) return rt.inside ? compact_answer::none : compact_answer::all;                 // disjoint
    return compact_answer::some;
}

// ---- sparse delta blocks whose smallest step is 0: runs of equal values --------------------
// v_0 = first + r_0 and v_i = v_(i-1) + r_i: the value changes only at the sparse mask's
// positions, by the compact residual there, so the block is (mask items + 1) runs of one value
// each, and a test is applied once per run instead of to 2048 decoded values (ucd_script,
// ucd_linebreak, ucd_bidi: the 13-40 blocks per column that their summaries leave open cost
// 25-32K instructions each through decode_and_test, callgrind, AVX2).

bool holds_value_runs(const block_descriptor& d) noexcept {
    return d.transform() == codec::transform::delta && d.sparse() && !d.interleaved() && d.delta_min == 0;
}

// The words of a raw payload of `length` bits that hold its bits (bits past `length` as the
// payload's last byte has them): a few loads, no memcpy or memset call (build_plane's copy
// through a 256-byte buffer cost ~120 instructions a plane of 128 bits). Words past them are
// left as they are: their bits are residuals past the block's length, which no reader uses.
void raw_words(const std::byte* p, std::uint32_t length, std::uint32_t* out) noexcept {
    const std::uint32_t bytes = (length + 7) / 8, full = bytes / 4, tail = bytes % 4;
    for (std::uint32_t w = 0; w < full; ++w) out[w] = load_le<std::uint32_t>(p + 4 * w);
    if (tail == 0) return;
    std::uint32_t last = 0;  // the payload's last 1-3 bytes
    if (bytes >= 4) {
        last = load_le<std::uint32_t>(p + bytes - 4) >> (8 * (4 - tail));
    } else {
        for (std::uint32_t b = 0; b < tail; ++b)
            last |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(p[b])) << (8 * b);
    }
    out[full] = last;
}

// Plane j of a value-run block's compact residuals as value_run_residuals reads it: the words
// row[j][0, words) XOR flip[j] (0 or all ones). Planes with no payload of their own point at
// the plane they repeat (or at no_bits), none is copied.
struct value_run_rows {
    const std::uint32_t* row[plane_count];
    std::uint32_t flip[plane_count];
};
alignas(16) constexpr plane no_bits{};

// Every row at no_bits, and flip[j] all ones where bit j of `inverted` is set: four flips a
// nibble from a table (a shift and a negation a plane took ~300 instructions a block).
void clear_rows(value_run_rows& v, std::uint32_t inverted) noexcept {
    static constexpr auto nibbles = [] {
        std::array<std::array<std::uint32_t, 4>, 16> t{};
        for (std::uint32_t x = 0; x < 16; ++x)
            for (std::uint32_t b = 0; b < 4; ++b) t[x][b] = 0u - ((x >> b) & 1u);
        return t;
    }();
    for (std::uint32_t j = 0; j < plane_count; ++j) v.row[j] = no_bits.data();
    for (std::uint32_t q = 0; q < plane_count / 4; ++q)
        std::memcpy(v.flip + 4 * q, nibbles[(inverted >> (4 * q)) & 15u].data(), 16);
}

// value_run_rows from the block's read plan (a vector's sealed delta blocks keep one,
// thresholds::read_plan_min_delta_lists), one naming no gap list kept as a map: the payloads
// grouped by kind, the bases as one XOR mask, the references in decode order; no plane
// descriptor decoded. `plane_skips`: the gaps side entries of the planes (past the mask's),
// which the plan's gaps entries index.
void value_run_rows_planned(const block_descriptor& d, const std::byte* bytes, const std::uint32_t* plan,
                            const std::uint32_t* plane_skips, std::uint32_t words, scan_scratch& s, value_run_rows& v) {
    const plan_groups g = groups_of(plan);
    clear_rows(v, d.ones | plan[0]);  // all-one planes, and bases one or complement
    const std::uint32_t n = d.length;
    const std::uint32_t* e = g.entries;  // (no mapped entries: value_run_residuals)
    for (std::uint32_t i = 0; i < g.raw; ++i, ++e) {
        std::uint32_t* out = s.planes.planes[plan_index(*e)].data();
        raw_words(bytes + plan_low(*e), n, out);
        v.row[plan_index(*e)] = out;
    }
    for (std::uint32_t i = 0; i < g.listed; ++i, ++e) {
        std::uint32_t* out = s.planes.planes[plan_index(*e)].data();
        std::fill_n(out, words, 0u);
        const auto* positions = reinterpret_cast<const std::uint16_t*>(plane_skips + plan_low(*e));
        for (std::uint32_t k = 0, listed = *e >> 24; k < listed && positions[k] < block_values; ++k)
            out[positions[k] >> 5] ^= 1u << (positions[k] & 31u);
        v.row[plan_index(*e)] = out;
    }
    for (std::uint32_t i = 0; i < g.positions + g.runs; ++i, e += 2) {
        stored_plane sp;
        sp.payload = i < g.positions ? codec::payload_kind::positions : codec::payload_kind::runs;
        sp.items = static_cast<std::uint16_t>(e[1]);
        sp.payload_offset = plan_low(e[0]);
        std::uint32_t* out = s.planes.planes[plan_index(e[0])].data();
        build_plane(sp, bytes, n, words, s.planes, out);
        v.row[plan_index(e[0])] = out;
    }
    // References in decode order: a plane referred to is final before the planes stored against it.
    for (std::uint32_t i = 0; i < g.references; ++i, ++e) {
        const std::uint32_t j = *e & 31u, r = (*e >> 8) & 31u;
        if (v.row[j] == no_bits.data()) {  // no payload: the reference's bits (complemented by flip[j])
            v.row[j] = v.row[r];
            v.flip[j] ^= v.flip[r];
            continue;
        }
        std::uint32_t* out = s.planes.planes[j].data();
        for (std::uint32_t w = 0; w < words; ++w) out[w] = v.row[j][w] ^ v.row[r][w] ^ v.flip[r];
        v.row[j] = out;
    }
}

// value_run_rows from the plane table, walked (blocks scanned without a vector, all-raw ones).
// `side`: the block's gaps side entries, past the mask's.
void value_run_rows_walked(const block_descriptor& d, const std::byte* bytes, gaps_side& side, std::uint32_t words,
                           scan_scratch& s, value_run_rows& v) {
    clear_rows(v, d.ones);
    const std::uint32_t n = d.length;
    if (d.all_raw()) {  // no plane table: raw payloads one after another
        const std::uint32_t raw = payload_size(codec::payload_kind::raw, 0, n);
        std::uint32_t at = d.payloads_at;
        for (std::uint32_t live = d.live; live != 0; live &= live - 1, at += raw) {
            std::uint32_t* out = s.planes.planes[std::countr_zero(live)].data();
            raw_words(bytes + at, n, out);
            v.row[std::countr_zero(live)] = out;
        }
        return;
    }
    plane_walker walk(d, bytes);
    for (std::uint32_t i = 0; i < d.stored; ++i) {
        const plane_entry e = walk.next();
        const std::uint32_t j = e.code.index & 31u;
        const codec::base_kind base = e.code.base_kind();
        const codec::payload_kind kind = e.code.payload_kind();
        // The base's bits: none, all, or the plane referred to (itself maybe a repeat).
        const std::uint32_t* under = no_bits.data();
        std::uint32_t over = base == codec::base_kind::one ? ~0u : 0u;
        if (base == codec::base_kind::plane || base == codec::base_kind::complement) {
            const std::uint32_t r = e.code.reference & 31u;
            under = v.row[r];
            over = v.flip[r] ^ (base == codec::base_kind::complement ? ~0u : 0u);
        }
        if (kind == codec::payload_kind::none) {
            v.row[j] = under;
            v.flip[j] = over;
            continue;
        }
        std::uint32_t* out = s.planes.planes[j].data();
        if (kind == codec::payload_kind::raw) {
            raw_words(bytes + e.payload_offset, n, out);
        } else {
            stored_plane sp;  // on base zero: the base is XORed in below
            sp.payload = kind;
            sp.items = static_cast<std::uint16_t>(e.items);
            sp.payload_offset = e.payload_offset;
            sp.payload_bytes = payload_size(kind, e.items, n);
            build_plane(sp, bytes, n, words, s.planes, out, side.next_map(kind, e.items));
        }
        for (std::uint32_t w = 0; w < words; ++w) out[w] ^= under[w] ^ over;
        v.row[j] = out;
        v.flip[j] = 0;
    }
}

// The compact residuals of value-run block `d` (d.length of them, the steps between runs)
// into s.values[0, d.length rounded up to 128), from the descriptor and the payloads: each
// stored plane with a payload built into s.planes (only the words the transposition reads: 4
// per 128 residuals; gap maps the vector keeps read in place), and planes stored against
// another with no payload of their own (a step's sign repeated from plane 8 or so up to plane
// 31: most of a runs column's 32 live planes) read from the plane they repeat, not built.
// Then the first words of the planes are transposed (SSE2: 128 residuals at a time;
// elsewhere each residual's bits are gathered). Building every live plane of a parsed_block
// and transposing those (block_planes_source) cost ~5.5K instructions of the ~7.6K a block
// took, and expand_descriptor ~1.8K more (ucd_script count_eq rare, callgrind, AVX2).
// `side`: the block's gaps side entries, past the mask's; `plan`: its read plan, or null.
// Bytes are trusted; a reference to a plane not stored before it (no such block validates)
// reads zeros, never outside the planes.
void value_run_residuals(const block_descriptor& d, const std::byte* bytes, gaps_side& side, const std::uint32_t* plan,
                         scan_scratch& s) {
    const std::uint32_t n = d.length;
    const std::uint32_t words = std::min<std::uint32_t>(plane_words, (n + 127) / 128 * 4);
    value_run_rows v;
    // A plan whose gap lists are kept as positions reads them from the side entries (kept with
    // it). Lists kept as maps (32 bytes or more) take the walk, which reads the maps: a value-run
    // block's planes are too short for such lists where raw payloads are not smaller.
    if (plan != nullptr && groups_of(plan).mapped == 0 && (side.at() != nullptr || groups_of(plan).listed == 0))
        value_run_rows_planned(d, bytes, plan, side.at(), words, s, v);
    else
        value_run_rows_walked(d, bytes, side, words, s, v);
#if defined(__SSE2__)
    // Planes 16-31 repeating plane 15 (a step's sign, as in nearly every value-run block): the
    // low 16 planes transposed 16 bits a residual, then sign-extended (~400 instructions per
    // 128 residuals where the 32-plane transposition takes ~1.1K; ucd_script count_eq rare).
    bool sign_extended = true;
    for (std::uint32_t j = 16; j < plane_count; ++j)
        sign_extended = sign_extended && v.row[j] == v.row[15] && v.flip[j] == v.flip[15];
    if (sign_extended) {
        for (std::uint32_t c = 0; 32 * c < n; c += 4) {
            __m128i a[16];
            for (std::uint32_t j = 0; j < 16; ++j)
                a[j] = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v.row[j] + c)),
                                     _mm_set1_epi32(static_cast<int>(v.flip[j])));
            transpose_bits_8x16(a);
            // Lane l of a[i] is residual 32 c + 16 l + i: eight rows of eight lanes at a time to
            // columns (r[l]: residuals 32 c + 16 l + g .. + 7), each 16 bits widened by its sign.
            for (std::uint32_t g = 0; g < 16; g += 8) {
                const __m128i* x = a + g;
                const __m128i t0 = _mm_unpacklo_epi16(x[0], x[1]), t1 = _mm_unpackhi_epi16(x[0], x[1]);
                const __m128i t2 = _mm_unpacklo_epi16(x[2], x[3]), t3 = _mm_unpackhi_epi16(x[2], x[3]);
                const __m128i t4 = _mm_unpacklo_epi16(x[4], x[5]), t5 = _mm_unpackhi_epi16(x[4], x[5]);
                const __m128i t6 = _mm_unpacklo_epi16(x[6], x[7]), t7 = _mm_unpackhi_epi16(x[6], x[7]);
                const __m128i u0 = _mm_unpacklo_epi32(t0, t2), u1 = _mm_unpackhi_epi32(t0, t2);
                const __m128i u2 = _mm_unpacklo_epi32(t1, t3), u3 = _mm_unpackhi_epi32(t1, t3);
                const __m128i u4 = _mm_unpacklo_epi32(t4, t6), u5 = _mm_unpackhi_epi32(t4, t6);
                const __m128i u6 = _mm_unpacklo_epi32(t5, t7), u7 = _mm_unpackhi_epi32(t5, t7);
                const __m128i r[8] = {_mm_unpacklo_epi64(u0, u4), _mm_unpackhi_epi64(u0, u4),
                                      _mm_unpacklo_epi64(u1, u5), _mm_unpackhi_epi64(u1, u5),
                                      _mm_unpacklo_epi64(u2, u6), _mm_unpackhi_epi64(u2, u6),
                                      _mm_unpacklo_epi64(u3, u7), _mm_unpackhi_epi64(u3, u7)};
                for (std::uint32_t l = 0; l < 8; ++l) {
                    std::uint32_t* out = s.values + 32 * c + 16 * l + g;
                    const __m128i zero = _mm_setzero_si128();
                    const __m128i low = _mm_srai_epi32(_mm_unpacklo_epi16(zero, r[l]), 16);
                    const __m128i high = _mm_srai_epi32(_mm_unpackhi_epi16(zero, r[l]), 16);
                    _mm_store_si128(reinterpret_cast<__m128i*>(out), low);
                    _mm_store_si128(reinterpret_cast<__m128i*>(out + 4), high);
                }
            }
        }
        return;
    }
    for (std::uint32_t c = 0; 32 * c < n; c += 4) {
        __m128i a[plane_count];
        for (std::uint32_t j = 0; j < plane_count; ++j)
            a[j] = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v.row[j] + c)),
                                 _mm_set1_epi32(static_cast<int>(v.flip[j])));
        transpose_bits_4(a);
        // Lane l of a[i] is value 32 (c + l) + i: four rows of four lanes at a time to columns.
        for (std::uint32_t i = 0; i < 32; i += 4) {
            const __m128i t0 = _mm_unpacklo_epi32(a[i], a[i + 1]), t1 = _mm_unpacklo_epi32(a[i + 2], a[i + 3]);
            const __m128i t2 = _mm_unpackhi_epi32(a[i], a[i + 1]), t3 = _mm_unpackhi_epi32(a[i + 2], a[i + 3]);
            std::uint32_t* out = s.values + 32 * c + i;
            _mm_store_si128(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi64(t0, t1));
            _mm_store_si128(reinterpret_cast<__m128i*>(out + 32), _mm_unpackhi_epi64(t0, t1));
            _mm_store_si128(reinterpret_cast<__m128i*>(out + 64), _mm_unpacklo_epi64(t2, t3));
            _mm_store_si128(reinterpret_cast<__m128i*>(out + 96), _mm_unpackhi_epi64(t2, t3));
        }
    }
#else
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint32_t r = 0;
        for (std::uint32_t j = 0; j < plane_count; ++j) r |= (((v.row[j][i / 32] ^ v.flip[j]) >> (i % 32)) & 1u) << j;
        s.values[i] = r;
    }
#endif
}

// f(begin, end, value) for each run [begin, end) of value-run block `d` (`count` values), in
// order, and `some`; or none or all (f never called) where no run's value passes `test`, or
// every run's does. The runs' values are summed first, so that such a block (most blocks, for
// a rare value) ends there, without building the mask (ucd_script count_eq rare: 198K -> 171K
// instructions a call, its frequent value 238K -> 248K; callgrind, AVX2). `skips`: the gaps
// side entries the vector keeps beside the block (null: none).
template <class F>
block_answer for_each_value_run(const block_descriptor& d, const std::byte* bytes, std::uint32_t count,
                                const std::uint32_t* skips, const std::uint32_t* plan, const scan_test& test,
                                scan_scratch& s, F&& f) {
    gaps_side side(d, skips);
    const std::uint32_t* mask_map = side.next_map(d.mask_payload(), d.mask_items);  // the mask's entries come first
    value_run_residuals(d, bytes, side, plan, s);
    // Their running sums: s.values[k], the value of the run that starts at the mask's k-th position.
    const std::uint32_t length = d.length;
    std::uint32_t value = d.base;  // the delta's first value
    for (std::uint32_t k = 0; k < length; ++k) s.values[k] = value += s.values[k];
    // Runs whose key lies in the test's interval (a loop the compiler vectorizes), the run
    // before the first position (which may be empty) included.
    const std::uint32_t bias = scan_test::bias(test.is_signed);
    std::uint32_t inside = test.matches(d.base) != test.negate ? 1u : 0u;
    for (std::uint32_t k = 0; k < length; ++k) inside += ((s.values[k] ^ bias) - test.start <= test.span) ? 1u : 0u;
    const std::uint32_t outside = length + 1 - inside;
    if ((test.negate ? outside : inside) == 0) return block_answer::none;
    if ((test.negate ? inside : outside) == 0) return block_answer::all;
    stored_plane mask_plane;
    mask_plane.payload = d.mask_payload();
    mask_plane.base = d.mask_base_one() ? codec::base_kind::one : codec::base_kind::zero;
    mask_plane.items = d.mask_items;
    mask_plane.payload_offset = d.mask_at;
    mask_plane.payload_bytes = payload_size(mask_plane.payload, mask_plane.items, count);
    plane& mask = s.mask;
    build_plane(mask_plane, bytes, count, plane_words, s.planes, mask.data(), mask_map);
    value = d.base;
    std::uint32_t begin = 0;
    std::uint32_t k = 0;  // runs started
    for (std::uint32_t w = 0; w < plane_words && k < length; ++w) {
        for (std::uint32_t bits = mask[w] & valid_bits(w, count); bits != 0 && k < length; bits &= bits - 1) {
            const std::uint32_t p = 32 * w + static_cast<std::uint32_t>(std::countr_zero(bits));
            if (p > begin) f(begin, p, value);
            value = s.values[k++];
            begin = p;
        }
    }
    f(begin, count, value);
    return block_answer::some;
}

// Bits [begin, end) of out set (begin < end <= block_values).
void set_bits(plane& out, std::uint32_t begin, std::uint32_t end) noexcept {
    const std::uint32_t first = begin / 32, last = (end - 1) / 32;
    const std::uint32_t head = ~0u << (begin % 32), tail = ~0u >> (31 - (end - 1) % 32);
    if (first == last) {
        out[first] |= head & tail;
        return;
    }
    out[first] |= head;
    for (std::uint32_t w = first + 1; w < last; ++w) out[w] = ~0u;
    out[last] |= tail;
}

std::uint32_t count_value_runs(const block_descriptor& d, const std::byte* bytes, std::uint32_t count,
                               const std::uint32_t* skips, const std::uint32_t* plan, const scan_test& test,
                               scan_scratch& s) {
    std::uint32_t n = 0;
    const block_answer answer = for_each_value_run(
        d, bytes, count, skips, plan, test, s, [&](std::uint32_t begin, std::uint32_t end, std::uint32_t value) {
            if (test.matches(value)) n += end - begin;
        });
    return answer == block_answer::all ? count : n;
}

block_answer scan_value_runs(const block_descriptor& d, const std::byte* bytes, std::uint32_t count,
                             const std::uint32_t* skips, const std::uint32_t* plan, const scan_test& test,
                             scan_scratch& s, plane& out) {
    std::uint32_t n = 0;
    bool cleared = false;  // out is written only for `some`, and cleared on the first passing run
    const block_answer answer = for_each_value_run(
        d, bytes, count, skips, plan, test, s, [&](std::uint32_t begin, std::uint32_t end, std::uint32_t value) {
            if (!test.matches(value)) return;
            if (!cleared) out.fill(0u), cleared = true;
            set_bits(out, begin, end);
            n += end - begin;
        });
    if (answer != block_answer::some) return answer;
    return n == 0 ? block_answer::none : n == count ? block_answer::all : block_answer::some;
}

// A block that is not compared on its planes: dense delta blocks test their residuals,
// decoded on the way; others are decoded first.
void decode_and_test(const parsed_block& block, block_planes_source& source, const scan_test& test, scan_scratch& s,
                     plane& out) {
    const std::span<std::uint32_t> values{s.values, block.count};
    if (block.value_transform == codec::transform::delta && !block.sparse) {
        source.residuals(values);
        test_values(values, test, out, &block);
        return;
    }
    source.decode(values);
    test_values(values, test, out);
}

block_answer scan_values(std::span<const std::uint32_t> values, const scan_test& test, plane& out) {
    test_values(values, test, out);
    return classify(out, static_cast<std::uint32_t>(values.size()));
}

std::span<const std::uint32_t> unsealed_values(const vector_core& v, std::size_t block) noexcept {
    return block == v.sealed_block_count() ? v.tail() : v.write_back_values(block);
}

// `skips`: the side entries the vector keeps beside the block (null: none).
block_answer scan_parsed(const parsed_block& block, std::span<const std::byte> bytes, const scan_test& test,
                         scan_scratch& scratch, plane& out, bool try_direct = true,
                         const std::uint32_t* skips = nullptr) {
    const std::uint32_t count = block.count;
    if (holds_value_runs(block.descriptor))
        return scan_value_runs(block.descriptor, bytes.data(), count, skips, nullptr, test, scratch, out);
    compact_answer direct;
    if (try_direct && compare_direct(block.descriptor, bytes.data(), nullptr, test, scratch, out, direct)) {
        if (direct == compact_answer::none) return block_answer::none;
        if (direct == compact_answer::all) return block_answer::all;
        return classify(out, count);
    }
    block_planes_source source(block, bytes, scratch, gaps_side(block.descriptor, skips));
    encoded_result r;
    if (!compare_encoded(block, source, test, scratch, r)) {
        const compact_answer bound = delta_bound(block, source, test);
        if (bound != compact_answer::some) return bound == compact_answer::all ? block_answer::all : block_answer::none;
        decode_and_test(block, source, test, scratch, out);
        return classify(out, count);
    }
    if (!block.sparse) {
        if (r.compact == compact_answer::none) return block_answer::none;
        if (r.compact == compact_answer::all) return block_answer::all;
        out = scratch.compact;
        return classify(out, count);
    }
    if (r.compact == compact_answer::none && !r.zero_passes) return block_answer::none;
    if (r.compact == compact_answer::all && r.zero_passes) return block_answer::all;
    const plane& mask = source.mask();
    switch (r.compact) {
        case compact_answer::none: out = plane{}; break;
        case compact_answer::all: out = mask; break;
        case compact_answer::some:
            active_kernels().deposit_plane(scratch.compact.data(), mask.data(), out.data());
            break;
    }
    if (r.zero_passes)
        for (std::uint32_t w = 0; w < plane_words; ++w) out[w] |= ~mask[w] & valid_bits(w, count);
    return classify(out, count);
}

// A count not given by compare_direct.
constexpr std::uint32_t no_count = ~0u;

std::uint32_t count_parsed(const parsed_block& block, std::span<const std::byte> bytes, const scan_test& test,
                           scan_scratch& scratch, bool try_direct = true, const std::uint32_t* skips = nullptr) {
    const std::uint32_t count = block.count;
    if (holds_value_runs(block.descriptor))
        return count_value_runs(block.descriptor, bytes.data(), count, skips, nullptr, test, scratch);
    compact_answer direct;
    std::uint32_t n = no_count;
    if (try_direct && compare_direct(block.descriptor, bytes.data(), nullptr, test, scratch, scratch.compact, direct, &n)) {
        if (direct == compact_answer::none) return 0;
        if (direct == compact_answer::all) return block.length;
        return n != no_count ? n : block_popcount(scratch.compact);
    }
    block_planes_source source(block, bytes, scratch, gaps_side(block.descriptor, skips));
    encoded_result r;
    if (!compare_encoded(block, source, test, scratch, r)) {
        const compact_answer bound = delta_bound(block, source, test);
        if (bound != compact_answer::some) return bound == compact_answer::all ? count : 0;
        plane out;
        decode_and_test(block, source, test, scratch, out);
        return block_popcount(out);
    }
    n = 0;
    switch (r.compact) {
        case compact_answer::none: break;
        case compact_answer::all: n = block.length; break;
        case compact_answer::some: n = block_popcount(scratch.compact); break;
    }
    if (block.sparse && r.zero_passes) n += count - block.length;
    return n;
}

}  // namespace

block_answer scan_encoded_block(std::span<const std::byte> bytes, std::uint32_t count, const scan_test& test,
                                scan_scratch& scratch, plane& out) {
    if (test.what != scan_test::kind::interval)
        return test.what == scan_test::kind::all ? block_answer::all : block_answer::none;
    return scan_parsed(parse_block(bytes, count, false), bytes, test, scratch, out);
}

std::uint32_t count_encoded_block(std::span<const std::byte> bytes, std::uint32_t count, const scan_test& test,
                                  scan_scratch& scratch) {
    if (test.what != scan_test::kind::interval) return test.what == scan_test::kind::all ? count : 0;
    return count_parsed(parse_block(bytes, count, false), bytes, test, scratch);
}

// The direct compare of a vector's sealed block (compare_direct's contract), an interleaved
// equality first (equal_interleaved_first), the side entries read only where compare_direct
// runs. The one place scan_block and count_block go to for it.
[[gnu::always_inline]] inline bool compare_sealed_direct(const vector_core& v, std::size_t block, const std::byte* bytes,
                                                         const scan_test& test, scan_scratch& scratch, plane& out,
                                                         compact_answer& answer, std::uint32_t* count,
                                                         const std::uint32_t* tried_plan) {
    const block_descriptor& d = v.sealed_descriptor(block);
    if (tried_plan == nullptr && equal_interleaved_first(d, bytes, test, out, answer, count)) return true;
    const std::uint32_t* side = v.sealed_read_side(block);
    if (tried_plan != nullptr)
        return compare_direct(d, bytes, side_gaps(side), test, scratch, out, answer, count, tried_plan, true);
    return compare_direct(d, bytes, side_gaps(side), test, scratch, out, answer, count, side_plan(side));
}

block_answer scan_block(const vector_core& v, std::size_t block, const scan_test& test, scan_scratch& scratch,
                        plane& out, bool exact, const std::uint32_t* tried_plan) {
    if (test.what != scan_test::kind::interval)
        return test.what == scan_test::kind::all ? block_answer::all : block_answer::none;
    const std::span<const std::uint32_t> values = unsealed_values(v, block);
    if (!values.empty()) return scan_values(values, test, out);
    const std::span<const std::byte> bytes = v.sealed_block(block, {});
    compact_answer direct;
    if (compare_sealed_direct(v, block, bytes.data(), test, scratch, out, direct, nullptr, tried_plan)) {
        if (direct == compact_answer::none) return block_answer::none;
        if (direct == compact_answer::all) return block_answer::all;
        return exact ? classify(out, static_cast<std::uint32_t>(block_values)) : block_answer::some;
    }
    // Value runs (sparse delta): compare_sealed_direct declined them at once.
    if (const block_descriptor& d = v.sealed_descriptor(block); holds_value_runs(d)) {
        const std::uint32_t* side = v.sealed_read_side(block);
        return scan_value_runs(d, bytes.data(), static_cast<std::uint32_t>(block_values), side_gaps(side),
                               side_plan(side), test, scratch, out);
    }
    if (sorted_answer sorted; scan_sorted_delta(v, block, test, sorted)) {
        const block_answer answer = sorted.answer();
        if (answer == block_answer::some) sorted.write(out);
        return answer;
    }
    const parsed_block parsed =
        expand_descriptor(v.sealed_descriptor(block), bytes.data(), static_cast<std::uint32_t>(block_values));
    return scan_parsed(parsed, bytes, test, scratch, out, false, v.sealed_gaps_skips(block));
}

std::uint32_t count_block(const vector_core& v, std::size_t block, const scan_test& test, scan_scratch& scratch,
                          const std::uint32_t* tried_plan) {
    if (test.what == scan_test::kind::none) return 0;
    const std::span<const std::uint32_t> values = unsealed_values(v, block);
    if (!values.empty()) {
        if (test.what == scan_test::kind::all) return static_cast<std::uint32_t>(values.size());
        plane out;
        test_values(values, test, out);
        return block_popcount(out);
    }
    if (test.what == scan_test::kind::all) return static_cast<std::uint32_t>(block_values);
    const std::span<const std::byte> bytes = v.sealed_block(block, {});
    compact_answer direct;
    std::uint32_t n = no_count;
    if (compare_sealed_direct(v, block, bytes.data(), test, scratch, scratch.compact, direct, &n, tried_plan)) {
        if (direct == compact_answer::none) return 0;
        if (direct == compact_answer::all) return static_cast<std::uint32_t>(block_values);
        return n != no_count ? n : block_popcount(scratch.compact);
    }
    // Value runs (sparse delta): compare_sealed_direct declined them at once.
    if (const block_descriptor& d = v.sealed_descriptor(block); holds_value_runs(d)) {
        const std::uint32_t* side = v.sealed_read_side(block);
        return count_value_runs(d, bytes.data(), static_cast<std::uint32_t>(block_values), side_gaps(side),
                                side_plan(side), test, scratch);
    }
    if (sorted_answer sorted; scan_sorted_delta(v, block, test, sorted)) return sorted.count();
    const parsed_block parsed =
        expand_descriptor(v.sealed_descriptor(block), bytes.data(), static_cast<std::uint32_t>(block_values));
    return count_parsed(parsed, bytes, test, scratch, false, v.sealed_gaps_skips(block));
}

}  // namespace bitplane::detail
