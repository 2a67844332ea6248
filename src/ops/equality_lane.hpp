// The equality lane: an equality (count_eq, find_eq, find_ne) set up once per scan and
// answered block by block without the generic way of scan_block / count_block, where the
// block is sealed and either
// - ruled out (or in, for find_ne) by its summary's [min, max] or its presence filter
//   (block_summary.hpp: presence_filter),
// - a dense interleaved block (all-raw planes stored column by column): the equal_interleaved
//   kernel, the target's bits by rank from the descriptor.
// Other blocks go the generic way. (Taking list blocks to equal_by_candidates here as well
// saved little, 687K -> 683K instructions a call on bam_mapq count_eq rare, and cost blocks
// whose plan declines a second try: geoip4_country 102.8K -> 114.0K.)
// This header is also the one owner of how a target becomes an interleaved block's bits by rank
// (scan_block.cpp's direct compare comes here too).
//
// Why: a rare value on short interleaved blocks (geoip4_country, geoip6_country: <= 8 planes)
// ends nearly every block in the kernel's fold with nothing equal, ~330 instructions a block,
// and the generic way to it (count_block, the block's unsealed check, compare_sealed_direct,
// the scan_test's residual form, the summary's interval test, the kernel table looked up
// twice) cost ~240 more a block (callgrind AVX2, count_eq 8 on geoip4_country: 114.8K
// instructions a call for 188 blocks).
#pragma once

#include <bitplane/detail/block_descriptor.hpp>
#include <bitplane/detail/vector_core.hpp>

#include "codec/value_transform.hpp"
#include "ops/scan_block.hpp"
#include "simd/kernels.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>

namespace bitplane::detail {

/// How many residuals of dense interleaved block `d` (bytes: its encoded bytes) equal
/// `target`, through `kernel` (kernel_table::equal_interleaved); `eq` gets them as a plane
/// only where the count is neither 0 nor block_values (the kernel ran and found some). A
/// constant plane (all ones, or all zeros: neither live nor one) that disagrees with the
/// target answers 0 before any payload is read.
[[gnu::always_inline]] inline std::uint32_t equal_interleaved_count(decltype(kernel_table::equal_interleaved) kernel,
                                                                    const block_descriptor& d, const std::byte* bytes,
                                                                    std::uint32_t target, std::uint32_t* eq) {
    if (((target ^ d.ones) & ~d.live) != 0) return 0;
    if (d.live == 0) return static_cast<std::uint32_t>(block_values);
    const int low = std::countr_zero(d.live);
    const std::uint32_t shifted = d.live >> low;
    // Rank r is the r-th live plane from the bottom: the target's bits there, packed.
    const std::uint32_t bits = (shifted & (shifted + 1)) == 0 ? (target >> low) & shifted
                                                              : extract32_portable(target, d.live);
    return kernel(reinterpret_cast<const std::uint8_t*>(bytes + d.payloads_at), d.stored, bits, eq);
}

/// An equality's target and the active path's kernel, worked out once per scan.
struct equality_lane {
    decltype(kernel_table::equal_interleaved) kernel = nullptr;  // null: no equality, or no such kernel
    std::uint32_t key = 0;  // the target's key (scan_block.hpp: keys)
    bool is_signed = false;
    bool negate = false;  // find_ne: a block's answer is the complement
    vector_core::presence_table presence;  // v's presence filters, taken once a scan

    /// The lane of `test` over `v` (null kernel where it is no equality or the path has no kernel).
    [[nodiscard]] static equality_lane of(const scan_test& test, const vector_core& v) noexcept {
        equality_lane e;
        if (test.what != scan_test::kind::interval || test.span != 0) return e;
        e.presence = v.presences();
        e.kernel = active_kernels().equal_interleaved;
        e.key = test.start;
        e.is_signed = test.is_signed;
        e.negate = test.negate;
        return e;
    }

    /// Where the lane leaves block `block` of `v` (answer's result).
    enum class way : std::uint8_t {
        answered,    // `passing` holds the count (and `out` the plane where it is some)
        by_summary,  // the generic way: not sealed, the write-back block, or no lane
        by_block,    // the summary admits the target: scan_block / count_block, no summary asked
    };
    /// Sealed block `block` of `v` (not the write-back block) where the lane answers it: by its
    /// summary, where the target lies outside [min, max], or, on a dense interleaved block,
    /// through the kernel. Gives the number of values that pass and, where that is neither 0
    /// nor block_values, their plane in `out`.
    [[gnu::always_inline]] way answer(const vector_core& v, std::size_t block, plane& out,
                                      std::uint32_t& passing) const {
        if (kernel == nullptr || block >= v.sealed_block_count() || !v.write_back_values(block).empty())
            return way::by_summary;
        const std::uint32_t all = static_cast<std::uint32_t>(block_values);
        const block_summary& s = v.sealed_summary(block);
        if (s.known() && (key < s.min_key || key > s.max_key)) {
            passing = negate ? all : 0;
            return way::answered;
        }
        // Inside [min, max] but absent by the block's presence filter (a categorical column's
        // rare value): answered before the block's descriptor or bytes are read.
        if (presence.slots != nullptr && v.sealed_lacks(presence, block, key)) {
            passing = negate ? all : 0;
            return way::answered;
        }
        const block_descriptor& d = v.sealed_descriptor(block);
        if (!d.interleaved() || d.sparse() || d.transform() == codec::transform::delta) return way::by_block;
        const std::uint32_t n = equal_interleaved_count(kernel, d, v.sealed_block(block, {}).data(), residual(d), out.data());
        passing = negate ? all - n : n;
        if (negate && n != 0 && n != all)
            for (std::uint32_t& w : out) w = ~w;
        return way::answered;
    }

private:
    // As scan_block.cpp's residual_form for an equality: key = key_base + r (mod 2^32) for
    // plain (base 0) and frame-of-reference blocks, the zigzag code of the target's bits for
    // zigzag ones (not delta).
    [[nodiscard]] std::uint32_t residual(const block_descriptor& d) const noexcept {
        const std::uint32_t bias = scan_test::bias(is_signed);
        if (d.transform() == codec::transform::zigzag) return zigzag_bits(key ^ bias);
        return key - (d.for_base() ^ bias);
    }
};

}  // namespace bitplane::detail
