// The equality lane: an equality (count_eq, find_eq, find_ne) set up once per scan and
// answered block by block without the generic way of scan_block / count_block, where the
// block is sealed and either
// - ruled out (or in, for find_ne) by its summary's [min, max] or its presence filter
//   (block_summary.hpp: presence_filter),
// - a dense interleaved block (all-raw planes stored column by column): the equal_interleaved
//   kernel, the target's bits by rank from the descriptor,
// - a dense block of direct planes with list planes (not delta): equal_by_candidates, from the
//   read plan the block keeps or one built in the scan's scratch (unfiltered_read_plan), with
//   the count alone where only the count is wanted (by_candidates: inlined into count_eq's
//   block loop, called out of find_eq's, where inlined it cost the interleaved blocks ~6
//   instructions each, bed_strand / bed_name find_eq frequent +1.5% / +1.1%, callgrind AVX2).
// Other blocks, and those equal_by_candidates declines, go the generic way.
// This header is also the one owner of how a target becomes an interleaved block's bits by rank
// (scan_block.cpp's direct compare comes here too).
//
// Why: a rare value on short interleaved blocks (geoip4_country, geoip6_country: <= 8 planes)
// ends nearly every block in the kernel's fold with nothing equal, ~330 instructions a block,
// and the generic way to it (count_block, the block's unsealed check, compare_sealed_direct,
// the scan_test's residual form, the summary's interval test, the kernel table looked up
// twice) cost ~240 more a block (callgrind AVX2, count_eq 8 on geoip4_country: 114.8K
// instructions a call for 188 blocks). The same way cost the frequent value of list-heavy
// columns (every block equal_by_candidates) 100-200 instructions a block beside the plan and
// the candidates: count_eq / find_eq frequent a call, word_length 467.2K -> 430.5K / 551.6K
// -> 524.9K, bam_flag 984.6K -> 881.5K / 1170.5K -> 1097.7K (callgrind AVX2, eqfreq9).
#pragma once

#include <bitplane/detail/block_descriptor.hpp>
#include <bitplane/detail/vector_core.hpp>

#include "codec/direct_access.hpp"
#include "codec/value_transform.hpp"
#include "ops/equal_candidates.hpp"
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
    // Null: no equality, or a path without the kernel (the lane is then off: the generic way
    // answers every block).
    decltype(kernel_table::equal_interleaved) kernel = nullptr;
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
        listed,      // the summary admits the target, a dense block of direct planes: by_candidates
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
        if (d.sparse() || d.transform() == codec::transform::delta) return way::by_block;
        if (!d.interleaved()) return way::listed;
        const std::uint32_t n = equal_interleaved_count(kernel, d, v.sealed_block(block, {}).data(), residual(d), out.data());
        passing = negate ? all - n : n;
        if (negate && n != 0 && n != all)
            for (std::uint32_t& w : out) w = ~w;
        return way::answered;
    }

    /// Block `block` of `v` that answer() left `listed` through equal_by_candidates, from the
    /// read plan the block keeps or one built in scratch.plan (`scratch.marks`: its byte map).
    /// False where it declines: `tried_plan` then holds the plan it declined with (null where
    /// the block gets none), for scan_block / count_block. Else `passing` is the count, and with
    /// `eq` (a find) words [0, plane_words) of `eq` hold the plane, or `passing` is
    /// equal_not_counted where the plane was not counted (it may still be empty or full, and
    /// the caller counts it where it stores it, as bitset_builder::set_block does).
    [[gnu::always_inline]] bool by_candidates(const vector_core& v, std::size_t block, std::uint32_t* eq,
                                              scan_scratch& scratch, std::uint32_t& passing,
                                              const std::uint32_t*& tried_plan) const {
        const block_descriptor& d = v.sealed_descriptor(block);
        const std::uint32_t all = static_cast<std::uint32_t>(block_values);
        const std::uint32_t target = residual(d);
        std::uint32_t n = 0;
        if (((target ^ d.ones) & ~d.live) == 0) {  // else a constant plane disagrees: none equal
            const std::byte* bytes = v.sealed_block(block, {}).data();
            const std::uint32_t* side = v.sealed_read_side(block);
            const std::uint32_t* plan = side_plan(side);
            if (plan == nullptr) {
                if (!unfiltered_read_plan(d, bytes, scratch.plan)) return false;
                plan = scratch.plan;
            }
            if (!equal_by_candidates(d, bytes, plan, side_gaps(side), target, scratch.marks, eq, n)) {
                tried_plan = plan;
                return false;
            }
        }
        if (n == equal_not_counted) {
            passing = equal_not_counted;
            if (negate)
                for (std::uint32_t i = 0; i < plane_words; ++i) eq[i] = ~eq[i];
            return true;
        }
        passing = negate ? all - n : n;
        if (eq != nullptr && negate && n != 0 && n != all)
            for (std::uint32_t i = 0; i < plane_words; ++i) eq[i] = ~eq[i];
        return true;
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
