// Scans, one block at a time: the test every scan applies, and its answer for one block as a
// plane of positions. src/ops/scan.cpp runs it over a vector's blocks in parallel; the tests
// call it directly.
//
// Keys. T's order is the unsigned order of 32-bit keys: key(v) = v for uint32 and
// v XOR 0x80000000 for int32. Every scan is a cyclic interval of keys, "key - start
// (mod 2^32) <= span", possibly negated (find_ne), or trivially nothing / everything.
//
// Blocks. A frame-of-reference block holds residuals r with key(v) = key(base) + r (mod 2^32);
// a plain block is the same with base 0 (so for int32 the key base is 0x80000000, and the
// sign plane compares reversed without being special-cased). The key interval is therefore
// an interval of residuals, or the complement of one when it wraps around 2^32, and the
// residual planes are compared with at most two constants (O'Neil & Quass, "Improved query
// performance with variant indexes", 1997), from the top plane down; all-zero and all-one
// planes are resolved without reading them (an equality whose value has a bit where the plane
// is constant and different is empty at once).
//
// Sealed blocks are read from the descriptor their vector keeps (no header is parsed) and
// take one of three ways:
// - Dense plain, frame-of-reference and zigzag (equality) blocks whose planes are payloads
//   (raw, positions, runs, gaps) over constant bases, or over other planes: read straight from
//   the payloads. An equality narrows one mask, eq &= plane or ~plane, in any order: list
//   planes that keep only their own bits first, then raw planes (read in place), then list
//   planes that clear theirs, and stops once the mask is empty; a plane stored against plane r
//   acts, where r already equals the target, as one stored against the target's bit of r.
//   The raw planes of a whole block are ANDed in one pass (the narrow_planes kernel, AVX2 and
//   AVX-512: eq kept in registers), not one pass over eq per plane. A count_eq on a whole
//   block counts eq in its last pass (narrow_planes_count, pack_marks_count: the registers or
//   words it holds) where the path has the kernel, not in a popcount pass over eq after it.
//   Short lists (<= 32 items) touch only the words they fall in; longer ones are built into a
//   plane first. Where no list keeps its bits, the lists that clear theirs (two or more, over
//   32 items: bam_mapq, geoip4_size) are marked together in a byte map (a store per position,
//   none waiting on another; short gap lists from the positions the vector keeps, others
//   decoded 16 gaps at a time) and packed into one plane. Order tests run the compare_planes
//   kernel in one pass over the planes they read, each where it lies (compare_job::planes):
//   a whole block's raw payloads and gap maps in place, the others built one after another
//   (list planes, long ones through the byte map; a plane stored against plane r as its
//   payload XOR r's bits, r built first); a range with both bounds has the kernel write its
//   answer straight into the output plane (compare_job::range_into), as on interleaved
//   payloads, and count_block has it count that answer's bits in its registers
//   (compare_job::range_count); the bounds' common top planes are stepped once.
//   An equality on a block the vector keeps a read plan for goes first to
//   equal_by_candidates (equal_candidates.hpp), which reads the plan once: where a short list
//   plane keeps only its positions, those are the candidates and every other plane is read at
//   them alone (lists merged, raw planes and maps bit by bit; bam_mapq, geoip4_size rare
//   values); where every list clears its positions, eq comes from the raw planes and maps
//   (narrow_planes) with the listed positions cleared in it, a word at a time or, when many,
//   through the byte map (their frequent values). Other equalities take the ways above.
//   Gap lists whose 2048-bit map the vector keeps beside the block (gaps_side,
//   vector_core::sealed_gaps_skips) are raw planes here, read from the map (no list walked,
//   none marked), on every way below too; blocks scanned without a vector (scan_encoded_block,
//   file views) walk their lists.
// - Interleaved all-raw payloads: the compare_planes kernel over the payload in place, in one
//   pass; on AVX2 and AVX-512 an equality goes to the equal_interleaved kernel instead (the
//   target's bits by rank from the descriptor, no compare_job; its popcount answers count_eq
//   and the blocks with no or every value equal), which folds each column's row of words as
//   it lies (XOR with the target's bits, AND; 8 rows at a time by an AND-transpose, rows of
//   1-4 and 8 words as whole registers; on AVX-512, rows of 9 planes or more 16 at a time,
//   a row per 512-bit register), at every width, rows of more than 16 planes settling on
//   their bottom 16 planes first. Other paths take an
//   equality on 24 planes or more 4 columns at a time from the bottom plane and leave a
//   column group once none of its residuals is still equal.
// - Others (sparse, delta), expanded from the
//   descriptor: planes built on demand, compared by compare_planes from the top, the first 4
//   planes alone (a block where no residual is still equal to a target stops there), then the
//   rest in one stage (sparse blocks' compact planes: in stages of 4). Sparse blocks compare
//   their compact planes (never zero), deposit the result onto the non-zero mask and add the
//   zero residuals' answer. Zigzag blocks compare the intervals [-a, a] and [-a - 1, a] as
//   the residual prefix [0, 2a] or [0, 2a + 1] (zigzag_prefix), and decode for other order
//   tests. A vector's sealed dense delta blocks whose keys ascend (steps >= 0, no wrap) are
//   answered first by two binary searches over the checkpoint sums it keeps (scan_sorted.hpp:
//   one range of positions, or its complement), no plane built. Other delta blocks with
//   non-negative steps are answered from their bounds (first value, and the last from plane
//   popcounts, read off the payloads where possible) when the interval holds all or none of
//   them; otherwise their residuals go through the test_values kernel, which decodes the
//   prefix sums on the way. The uncompressed tail and the write-back block go through it too.
//   Sparse delta blocks whose smallest step is 0 hold runs of equal values (runs columns:
//   ucd_*): they are read from the descriptor (no parsed_block), their planes from the read
//   plan the vector keeps (else from the plane table), only the first words of the planes
//   with a payload built and the planes repeating another (a step's sign) read from it; their
//   few compact residuals are transposed (16 planes widened by the sign where planes 16-31
//   repeat plane 15), summed into the runs' values, and the test applied once per run; the
//   mask is built only where some run passes and another does not.
// An equality whose target disagrees with a constant plane of a dense block is answered from
// the descriptor alone, before any plane entry is read.
// count_block answers the same without building an output plane where it can (popcount of
// the equality mask, or the block's length). scan_encoded_block (bytes the caller vouches for) parses
// the header first, then goes the same ways.
#pragma once

#include <bitplane/block.hpp>
#include <bitplane/detail/vector_core.hpp>

#include "codec/direct_access.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace bitplane::detail {

struct scan_test {
    enum class kind : std::uint8_t { none, all, interval };
    kind what = kind::none;
    std::uint32_t start = 0;  // first key of the interval
    std::uint32_t span = 0;   // keys in the interval - 1 (< 2^32 - 1: a full interval is `all`)
    bool negate = false;      // pass where the key is outside the interval
    bool is_signed = false;   // keys of int32 values

    [[nodiscard]] static constexpr std::uint32_t bias(bool is_signed_keys) noexcept {
        return is_signed_keys ? 0x80000000u : 0u;
    }
    /// Whether the value with these bits passes.
    [[nodiscard]] bool matches(std::uint32_t bits) const noexcept {
        if (what != kind::interval) return what == kind::all;
        return ((bits ^ bias(is_signed)) - start <= span) != negate;
    }
};

/// The tests of the scans, on T's bits (x, lo, hi are bit patterns of T values).
scan_test scan_eq(std::uint32_t x, bool is_signed) noexcept;
scan_test scan_ne(std::uint32_t x, bool is_signed) noexcept;
scan_test scan_lt(std::uint32_t x, bool is_signed) noexcept;
scan_test scan_le(std::uint32_t x, bool is_signed) noexcept;
scan_test scan_gt(std::uint32_t x, bool is_signed) noexcept;
scan_test scan_ge(std::uint32_t x, bool is_signed) noexcept;
scan_test scan_range(std::uint32_t lo, std::uint32_t hi, bool is_signed) noexcept;  // none when lo > hi

enum class block_answer : std::uint8_t { none, all, some };

/// Working memory of one thread's scans (about 19 KiB).
struct scan_scratch {
    block_planes planes;
    alignas(64) plane mask{};
    alignas(64) std::uint32_t values[block_values];
    alignas(64) std::uint32_t eq[2 * plane_words];
    alignas(64) std::uint32_t lt[2 * plane_words];
    alignas(64) plane compact{};
    // A byte per position, list payloads marked, and one past the block that pads mark.
    alignas(64) std::uint8_t marks[block_values + 64];
    // An equality counted on a whole block: compare_residuals (scan_block.cpp) sets count_wanted
    // before its run, and a run that counts eq as it narrows it (the raw planes' kernel, as
    // its last pass) leaves that count here instead; otherwise count_unwanted.
    static constexpr std::uint32_t count_unwanted = ~0u;
    static constexpr std::uint32_t count_wanted = ~0u - 1;
    std::uint32_t eq_count = count_unwanted;
    // A read plan built for an equality on a block that keeps none (equality_lane.hpp), kept
    // for the generic way where equal_by_candidates declines it (scan_block's tried_plan).
    alignas(64) std::uint32_t plan[read_plan_max_unfiltered_words];
};

/// The positions of block `block` of `v` that pass `test`: none, all of the block's values,
/// or some, written to `out` (bits at or beyond the block's value count clear; `out` is
/// only written for `some`). With `exact` false, `some` may also come with an empty or full
/// `out` (no popcount to tell them apart: for callers that count the plane anyway, such as
/// bitset_builder::set_block).
/// `tried_plan`: the block's read plan (kept, or built) with which equal_by_candidates has
/// already declined this equality (the equality lane): neither built nor tried again.
block_answer scan_block(const vector_core& v, std::size_t block, const scan_test& test, scan_scratch& scratch,
                        plane& out, bool exact = true, const std::uint32_t* tried_plan = nullptr);

/// How many values of block `block` of `v` pass `test` (no plane is built where the answer
/// is known without one, and sparse blocks are not deposited). `tried_plan` as scan_block's.
std::uint32_t count_block(const vector_core& v, std::size_t block, const scan_test& test, scan_scratch& scratch,
                          const std::uint32_t* tried_plan = nullptr);

/// The same for an encoded block of `count` values (bytes as written by the encoder or
/// accepted by validate_block).
block_answer scan_encoded_block(std::span<const std::byte> bytes, std::uint32_t count, const scan_test& test,
                                scan_scratch& scratch, plane& out);
std::uint32_t count_encoded_block(std::span<const std::byte> bytes, std::uint32_t count, const scan_test& test,
                                  scan_scratch& scratch);

}  // namespace bitplane::detail
