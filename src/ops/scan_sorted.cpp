// scan_sorted.hpp: sorted delta blocks answered by two binary searches.
#include "ops/scan_sorted.hpp"

#include "codec/direct_access.hpp"

#include <algorithm>

namespace bitplane::detail {

namespace {

constexpr std::uint32_t stride = delta_checkpoint_stride;

// u_i = v_i - first of a dense delta block with steps >= 0, found by reads: the checkpoint sums
// give u at the last position of each window of `stride` positions without a read.
class sorted_offsets {
public:
    sorted_offsets(const block_descriptor& d, const std::byte* bytes, const std::uint32_t* sums,
                   const std::uint32_t* side) noexcept
        : d_(d), bytes_(bytes), sums_(sums), side_(side), windows_((d.length + stride - 1) / stride) {}

    /// u at the last position of window k (< windows_): the sum of residuals up to it, plus
    /// its index times the smallest step (the bound checked by scan_sorted_delta keeps it exact).
    [[nodiscard]] std::uint64_t at_window_end(std::uint32_t k) const noexcept {
        const std::uint32_t last = std::min<std::uint32_t>((k + 1) * stride, d_.length) - 1;
        return std::uint64_t{sums_[k]} + std::uint64_t{last} * d_.delta_min;
    }
    [[nodiscard]] std::uint64_t at(std::uint32_t i) const noexcept {
        return static_cast<std::uint32_t>(read_side_value(d_, bytes_, i, sums_, side_) - d_.base);
    }
    /// The first position at or after `from` whose u is at least x (length where none is).
    [[nodiscard]] std::uint32_t lower_bound(std::uint64_t x, std::uint32_t from = 0) const noexcept {
        // The first window whose last u reaches x holds the answer (the windows before end below x).
        std::uint32_t lo = from / stride, hi = windows_;
        while (lo < hi) {
            const std::uint32_t mid = (lo + hi) / 2;
            if (at_window_end(mid) >= x) hi = mid; else lo = mid + 1;
        }
        if (lo == windows_) return d_.length;
        std::uint32_t first = std::max(lo * stride, from), last = std::min<std::uint32_t>((lo + 1) * stride, d_.length) - 1;
        while (first < last) {  // u(last) >= x
            const std::uint32_t mid = (first + last) / 2;
            if (at(mid) >= x) last = mid; else first = mid + 1;
        }
        return first;
    }
    /// [lower_bound(x), lower_bound(y)) for x < y: the second search starts at the first's
    /// answer, and ends there at one read where u there is past y already (an equality whose
    /// value lies inside the block's range but is not in it: most blocks that get here).
    void bounds(std::uint64_t x, std::uint64_t y, std::uint32_t& begin, std::uint32_t& end) const noexcept {
        begin = lower_bound(x);
        end = begin == d_.length || at(begin) >= y ? begin : lower_bound(y, begin + 1);
    }

private:
    const block_descriptor& d_;
    const std::byte* bytes_;
    const std::uint32_t* sums_;
    const std::uint32_t* side_;
    std::uint32_t windows_;
};

}  // namespace

void sorted_answer::write(plane& out) const noexcept {
    // Bit p set where p lies in [begin, end) == inside, below length.
    for (std::uint32_t w = 0; w < plane_words; ++w) {
        const std::uint32_t from = 32 * w;
        const auto below = [from](std::uint32_t bound) -> std::uint32_t {  // bits of word w below bound
            if (bound <= from) return 0u;
            return bound - from >= 32 ? ~0u : (1u << (bound - from)) - 1u;
        };
        const std::uint32_t range = below(end) & ~below(begin);
        out[w] = (inside ? range : ~range) & below(length);
    }
}

bool scan_sorted_delta(const vector_core& v, std::size_t block, const scan_test& test, sorted_answer& out) noexcept {
    if (test.what != scan_test::kind::interval) return false;
    const block_descriptor& d = v.sealed_descriptor(block);
    if (d.transform() != codec::transform::delta || d.sparse() || d.length == 0 ||
        static_cast<std::int32_t>(d.delta_min) < 0)
        return false;
    const std::uint32_t* sums = v.sealed_delta_sums(block);
    if (sums == nullptr) return false;
    // Every residual's bits lie in live | ones, so u_i <= length x (live | ones) + i x min: where
    // that stays below 2^32, u_i never wraps (keys ascend) and the checkpoint sums are exact.
    const std::uint64_t most = std::uint64_t{d.length} * (d.live | d.ones) + std::uint64_t{d.length - 1u} * d.delta_min;
    if (most > 0xFFFFFFFFu) return false;
    const sorted_offsets u(d, v.sealed_block(block, {}).data(), sums, v.sealed_read_side(block));
    // The interval in u: [first, first + span] (unwrapped, < 2^33), passing != negate.
    const std::uint64_t first = static_cast<std::uint32_t>(test.start - (d.base ^ scan_test::bias(test.is_signed)));
    const std::uint64_t last = first + test.span;
    out.length = d.length;
    if (last <= 0xFFFFFFFFu) {
        u.bounds(first, last + 1, out.begin, out.end);
        out.inside = !test.negate;
    } else {
        // Wrapped: u in [0, last - 2^32] or [first, 2^32), the complement of (last - 2^32, first).
        u.bounds(last - 0xFFFFFFFFu, first, out.begin, out.end);
        out.inside = test.negate;
    }
    return true;
}

}  // namespace bitplane::detail
