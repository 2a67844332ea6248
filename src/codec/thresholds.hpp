// Every number that decides a representation lives here, so that tuning is one file.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bitplane::detail::thresholds {

// ---- per-plane cost model (bytes) ----------------------------------------------------------
// A stored plane costs a 2-byte descriptor; positions and runs add a 2-byte item count.
inline constexpr std::uint32_t descriptor_bytes = 2;
inline constexpr std::uint32_t item_count_bytes = 2;
inline constexpr std::uint32_t position_bytes = 2;  // one u16 per flipped bit
inline constexpr std::uint32_t run_bytes = 4;       // u16 start + u16 end per run
// The avx512 path's untranspose into cache (kernels_avx512.cpp, kernel_table::untranspose_in_cache)
// takes blocks of at least this many live planes; fewer keep the AVX2 table's kernel (its spread
// of plane words to bytes below 6 live planes).
inline constexpr std::uint32_t untranspose_zmm_min_live = 6;

// ---- value transforms ------------------------------------------------------------------------
// Transforms are ranked by an estimate of the planes they leave live. The best is encoded;
// the runner-up is encoded as well (and the smaller kept) when its estimate is within this
// many planes, because runs and references can make a plane much cheaper than raw.
inline constexpr unsigned transform_runner_up_planes = 2;
// Delta blocks must be decoded before any plane operation, so they are charged this many
// extra planes in the ranking: delta is taken only when it saves more than that.
inline constexpr unsigned delta_penalty_planes = 1;

// ---- the values form of a vector file (format version 4, core/value_file.hpp) ---------------
// Loading a version 4 file encodes its values again (~1-2 ns a value) where version 3 decodes
// only its distinct blocks (a repetitive column: a few hundred), so save() keeps version 4
// only when it is at least 1/8 smaller (numerator / 8: the file at most 7/8 of version 3's).
// On the corpus (bench_corpus --sizes) that keeps it on 8 columns, 15-65% smaller, where it
// takes tz_*, geoip*_country, ucd_category and word_first from above 1.25x zstd -19 to below,
// and drops it where it saved 8-12% (ucd_bidi, geoip4_size 1.14x, readings).
inline constexpr unsigned value_form_keep_eighths = 7;
// A column of more than twice this many blocks is tried on its first blocks first (the values
// form and the blocks, each through zstd) and written in the values form only when that
// sample passes the rule above: trying a whole column costs a decode and a second zstd pass
// (bam_flag, 1.7M values: save 1.3 -> 19 ms of CPU), the sample ~0.5 ms (bam_flag: 2.1 ms).
// The sample misjudges ucd_linebreak (its first blocks vary most; whole: 24% smaller), kept
// at version 3 (1.23x zstd -19).
inline constexpr std::size_t value_form_sample_blocks = 32;

// ---- results of bitwise operations (ops/bitwise.cpp) -----------------------------------------
// A dense result that bitwise operations compute from stored words (combine_interleaved) is
// written all-raw when that is at most this much larger (numerator / 8) than the smallest
// codec::encode_planes could make its planes (each raw or a gap list): a slightly larger
// block that every operation reads at plane speed, against planning, writing and later
// reading gap lists bit by bit. 9/8 keeps results of uniform columns raw and leaves planes
// of 5% ones (OR of uniform 10-bit with a 90%-sparse 20-bit column: 106 bytes as gaps, 256
// raw, 1.4x over all planes) to the planner (bench/bench_bitwise.cpp BM_BitwiseSparse/or).
inline constexpr std::size_t bitwise_all_raw_max_eighths = 9;
// A sparse result of AND / AND-NOT built from a sparse operand whose mask is stored as a gap
// list or raw (ops/bitwise.cpp, write_sparse_raw) stores its mask raw (256 bytes) when it
// keeps at least this many values: its gap list would take at least as many bytes (one a
// value), so raw is at most 2x the list in the file, and smaller in memory, where a list of
// 64 bytes or more also keeps a 272-byte map (thresholds::read_bitmap_min_gaps_bytes). Writing
// the list (~9 instructions a gap) and its map on append (~11 a position) were 5.5K of the
// 20.8K instructions of an AND of uniform 10-bit with a 90%-sparse 20-bit block (callgrind,
// AVX2); the raw mask is one copy.
inline constexpr std::uint32_t bitwise_raw_mask_min_values = 128;

// ---- sparse layout -------------------------------------------------------------------------
// The sparse layout (non-zero mask + planes of the non-zero values) is tried when at least
// this fraction of a block's values are zero (numerator / 16).
inline constexpr unsigned sparse_min_zero_sixteenths = 8;
// A sparse plan of a zero-preserving candidate (delta with minimum 0, zigzag, none: see
// zero_preserving_candidates) replaces the best plan only when it takes at most this share of
// its bytes (numerator / 16): sparse delta blocks are decoded before any operation, where
// dense plain blocks are operated on in planes. Corpus totals (bench_corpus --sizes, at 8/16
// zeros below): 16/16 13,827,317 bytes, 14/16 13,828,405, 12/16 13,831,244, none 13,843,613.
inline constexpr unsigned zero_preserving_max_sixteenths = 14;
// ... and is planned only when at least this share of its residuals are zero (numerator / 16):
// planning a sparse block costs about as much as the dense one. Corpus (bench_corpus --sizes):
// 8/16 saved 15.2 KB in all but planned a sparse block for most bam_mapq blocks (72% equal
// neighbours; its encode measured 2.5x slower, 16.4 -> 41.5 ms, for 1% of its bytes); 15/16
// saved 3.0 KB (ucd_category lost its gain); 14/16 saves 5.6 KB and leaves bam_mapq alone.
inline constexpr unsigned zero_preserving_min_zero_sixteenths = 14;

// ---- vector storage -----------------------------------------------------------------------
// Gap lists of at least this many payload bytes are kept in memory beside their block as a
// 2048-bit map and its ranks (272 bytes, value_reader.hpp's gaps_bitmap_words), so that a
// random read tests a bit instead of walking the list. Shorter ones (1 byte and up) are kept as
// their decoded positions, 2 bytes per payload byte rounded up to 32 (value_reader.hpp,
// listed_positions; they replaced skip entries of 16 bytes for 21-63-byte lists): extra memory
// on the corpus (bits/value) bam_mapq +0.75 (2.87 -> 3.62, BitMagic 4.59), geoip4_size +1.83
// (13.99 -> 15.82, 17.63), bam_ref_span +0.79 (0.90 -> 1.69, 2.77), word_length +0.16
// (5.18 -> 5.34, 5.38: the closest to BitMagic), tz_offset +0.73; callgrind per random read:
// bam_mapq 916 -> 618 instructions and 11.8 -> 4.9 mispredicted branches, geoip4_size
// 2050 -> 1511 and 24.6 -> 14.3, bam_ref_span 963 -> 666 and 15.6 -> 6.9. Memory only: files
// and every other operation read the block's bytes. The bound is memory: on the corpus
// (bench_corpus, memory row, bits/value) 64 takes geoip4_size 8.51 -> 13.99 (BitMagic 17.63),
// word_length 4.65 -> 5.18 (5.37), geoip4_country 8.09 -> 8.25 (8.51), bam_mapq 1.92 -> 2.87
// (4.59); 32 would take word_length and geoip4_size past BitMagic's. Callgrind, 20,000 random
// reads: geoip4_size 2644 -> 1929 instructions and 42.5 -> 34.2 mispredicted branches a read.
inline constexpr std::uint32_t read_bitmap_min_gaps_bytes = 64;
// ... and in delta blocks from this many bytes: a delta read counts a window of every plane
// (a walk of each list up to the window's end), where other reads test one bit per plane.
// geoip4_start (172 of 188 blocks delta): 2125 -> 1868 instructions and 33.7 -> 27.3
// mispredicted branches a read against 64, memory 14.44 -> 16.95 bits/value (BitMagic
// 20.40); bam_pos 863 -> 781 instructions, 9.55 -> 10.24 bits/value (13.37).
inline constexpr std::uint32_t read_bitmap_min_delta_gaps_bytes = 32;
// Point reads (not delta windows, not masks' ranks) of position and run lists of at most this
// many payload bytes compare every item with the bit in two 16-byte SSE2 chunks
// (value_reader.hpp, probe_*) instead of a binary search, whose number of halvings differs from
// list to list. Callgrind per random read, with / without: tz_transition 1733 / 1685
// instructions and 10.6 / 11.2 mispredicted branches, bam_ref_span 666 / 647 and 6.9 / 7.8,
// geoip4_size 1511 / 1471 and 14.3 / 15.8.
inline constexpr std::uint32_t read_probe_list_bytes = 32;
// ... and in the AVX2 copy (every read on avx2 and avx512), run lists of up to this many runs
// compare every bound with the bit, 8 runs a masked 32-byte load, in 4 loads (up to 32 runs)
// or 8 (value_reader.hpp, scan_runs). Above it the search's halvings cost fewer instructions
// than the loads. tz_transition (4.8 run lists of 9-64 runs a read): callgrind, 20,000 reads,
// search / compare: 1050 / 1005 instructions and 7.44 / 4.70 mispredicted branches a read
// (tz_offset 664 / 650 and 6.57 / 5.53).
inline constexpr std::uint32_t read_scan_runs_max_items = 64;
// Blocks keep a read plan (direct_access.hpp, read_plan: 3 words, one a plane, two a position
// or run list) in memory when at least this many of their planes are lists (positions, runs,
// gaps): with fewer, the descriptor walk's raw shortcut leaves a switch or two a read, and the
// plan's 16-40 bytes a block cost memory where it is closest to BitMagic's. word_length
// (bench_corpus memory row, bits/value; BitMagic 5.368): no plans 5.338, every descriptor-ful
// block 5.50, 2+ lists 5.382, 3+ lists 5.353. Callgrind per random read, 2+ / 3+ lists:
// bam_flag 342 / 384 instructions (no plans 455).
// (Equality scans build an unfiltered plan on the stack for the other blocks: scan_block.cpp,
// compare_direct; it costs no memory.)
inline constexpr std::uint32_t read_plan_min_lists = 3;
// A dense full block is stored all-raw (interleaved: block_plan.hpp, raw_for_reads_bytes) when
// its raw planes take at most this many eighths of what its planes take in memory as the
// smallest plan stores them (payloads, gap lists' maps or positions, read plan): a gap list of
// 32+ bytes in a delta block (64+ in others) is kept with a 272-byte map, so a block of such
// lists takes less memory raw. Candidates are still compared by bytes; only the winner's
// planes change (codec::encode_options::raw_for_reads). Corpus (bench_corpus --sizes, memory /
// BitMagic's, file / zstd -19) 8 against none: memory down on 11 columns (bed_start 0.88x ->
// 0.87x, geoip4_start 0.92 -> 0.87, geoip4_size 0.94 -> 0.91, word_length 1.00 -> 0.94),
// none up; files up 0.8% in total (geoip4_size 1.14x -> 1.16x, ucd_linebreak 1.23x kept).
// 10 (1.25x) and 12 took bam_tlen's memory past BitMagic's (0.94x -> 1.01x, 1.05x) and
// ucd_linebreak's file to 1.26x zstd -19. Callgrind AVX2, 20,000 random reads, instructions /
// mispredicted branches a read, none -> 8: bed_start 563 / 1.51 -> 331 / 0.66, geoip4_start
// 861 / 7.62 -> 650 / 5.26, geoip4_size 568 / 3.74 -> 490 / 3.27.
inline constexpr std::size_t read_raw_max_eighths = 8;
// ... and at most this many where the block stores untransformed values of at least
// read_raw_wide_min_planes planes (not deltas), whose lists save little against 24+ raw
// planes: tz_transition's blocks (32 planes: runs on the sign planes, gap lists on 0-6) are
// ~1.19x in memory raw; its memory 0.33x -> 0.36x BitMagic's, file unchanged (values form);
// callgrind AVX2 784 / 3.69 -> 218 / 0.24 instructions / mispredicts a read. No other corpus
// column has such blocks (sizes as with 8 alone, but geoip4_size's memory 0.91x).
inline constexpr std::size_t read_raw_wide_max_eighths = 10;
inline constexpr std::uint32_t read_raw_wide_min_planes = 24;
// Read plans of non-delta blocks keep a filter (direct_access.hpp, read_plan: the positions
// where any short gap list or position list has a bit, up to read_filter_max_chunks * 16 =
// 128) when at most one stored position in this many is in it: a read outside it skips those
// lists (and, where the plan has only lists, returns the block's one residual there).
// Callgrind, 20,000 random reads, instructions / mispredicted branches a read, no filter /
// up to 64 positions / up to 128: bam_ref_span 426.6 / 3.16, 231.4 / 0.98, 219.7 / 0.48;
// bam_mapq 410.0 / 1.20, 332.9 / 0.89, 344.3 / 0.72; bam_flag 365.3 / 2.25, 332.7 / 1.70,
// 342.0 / 1.69; geoip4_size 621.3 / 4.07, 618.3 / 3.95, 573.0 / 3.75. Memory (bits/value, up to
// 128; BitMagic): bam_ref_span 1.93 -> 2.43 (2.77), bam_mapq 3.82 -> 4.14 (4.59), geoip4_size
// 16.27 -> 16.57 (17.63); word_length unchanged (5.35: one planned block).
inline constexpr std::uint32_t read_filter_min_share = 8;
// ... and only from lists of at most this many positions together (the plan's builder sorts them).
inline constexpr std::uint32_t read_filter_max_items = 512;
// ... and in delta blocks from this many: a delta read walks every plane's window, and the
// delta columns' memory is far below BitMagic's. Callgrind per random read, every delta block
// planned / 3+ lists: bed_start 886 / 1014 instructions, bam_mate_pos 756 / 823, bam_pos
// 712 / 754 (their memory stays 17-21% below BitMagic's).
inline constexpr std::uint32_t read_plan_min_delta_lists = 0;
// The arena is compacted when superseded block versions take more than this share of it
// (numerator / 4) and at least `compact_min_garbage_bytes`.
inline constexpr unsigned compact_garbage_quarters = 2;
inline constexpr std::size_t compact_min_garbage_bytes = 64 * 1024;

// ---- scans (ops/scan_block.cpp, simd/kernels_scan.hpp) ---------------------------------------
// Equality over interleaved payloads: rows of more than this many 8-word registers (17 planes
// or more) are folded in two parts: the registers of the bottom 16 planes (ranks 0-15, the
// planes that tell values apart soonest), then, only where some column of the 8 rows is still
// equal, the rest. Random 32-bit values are settled by the first part at all but ~1 in 250
// column groups, and half of each row's bytes are never read (the fold is bound by how fast
// the payload streams in: random32 count_eq, 32 planes, 8 KiB a block). Rows of 17-23 planes
// (bed_name's 19) split too since eqscan11: the third register of each row was a quarter of
// the fold's instructions, and 16 planes of random ids leave a group of 8 columns equal
// about once in 250.
inline constexpr std::uint32_t scan_fold_first_registers = 2;

// ---- bitsets (bitplane::bitset, src/bitset/) -------------------------------------------------
// In memory each 2048-bit block is stored as raw (256 bytes), positions (2 per set bit) or
// runs (4 per run), the smallest of them (ties go to raw, then positions, then runs), with
// positions only below `bitset_positions_max_count` set bits. Gap lists (1 byte a set bit), often
// smaller than positions, are not used in memory: every operation on one decodes it first
// (uniform 10% AND: 6.3 ms with gaps, against raw blocks' one SIMD pass), so memory trades
// bytes for speed as Roaring does (arrays up to 1/16 of a container, bitmaps above). These
// numbers only decide where things live in memory and which algorithm a block operation takes,
// never the bytes of a saved bitset (the loader re-encodes blocks as memory chooses).
//
// Positions are kept up to this many set bits (1/16 of a block, Roaring's 4096 of 65536):
// an operation on them costs a few cycles a position (bit probes into the other block), one
// on raw blocks ~20 ns whatever they hold.
inline constexpr std::uint32_t bitset_positions_max_count = 128;
//
// A stored block's payload of at most this many bytes lives inside its 16-byte block entry
// instead of the payload arena: a block of one to four set bits costs the entry alone, and
// copying it into a result (OR with an empty block) is one 16-byte copy.
inline constexpr std::uint32_t bitset_inline_payload_bytes = 8;
// A scan's builder writer (bitset_builder.cpp) that stores a raw block takes arena bytes for
// up to this many of its next blocks at once: one atomic add (a locked instruction, ~20
// cycles) for that many raw blocks of a dense result, not one each. Bytes it does not use go
// back when it ends (or stay a hole where another writer took bytes after them: at most this
// many blocks' worth a task).
inline constexpr std::uint32_t bitset_builder_reserve_blocks = 8;
// Two sparse blocks (positions or gaps) whose set bits add up to at most this many are united
// (OR, XOR) by merging their sorted positions; above it, as two 2048-bit planes by the SIMD
// plane kernels (the result is then likely raw anyway).
inline constexpr std::uint32_t bitset_merge_max_items = 192;
// Two sparse blocks of at most this many positions together are merged by a scalar loop,
// more by the vector kernels (setting those up costs more than merging a few positions).
inline constexpr std::uint32_t bitset_few_items = 12;
// Intersections (AND, ANDNOT, AND-count) of two positions blocks compare every pair at once
// (one list in 8-lane vectors, each position of the other broadcast against them) when the
// broadcasts times the vectors are at most this; otherwise one list is spread into bits and
// the other probes them.
inline constexpr std::uint32_t bitset_pairwise_max_product = 96;
// ... and two lists whose sizes multiply to at most this are compared by a plain scalar loop
// (a few positions each: setting up the vectors costs more).
inline constexpr std::uint32_t bitset_few_pairs_product = 24;
// set() appends a re-encoded block that grew to the end of the payload arena; the arena is
// compacted when superseded payload bytes exceed this share of it (numerator / 4) and at least
// `bitset_compact_min_garbage_bytes`.
inline constexpr unsigned bitset_compact_garbage_quarters = 2;
inline constexpr std::size_t bitset_compact_min_garbage_bytes = 64 * 1024;

// ==== reductions: dot product method per block pair (ops/reduce.cpp, issue #3) ==============
// dot() multiplies a pair of blocks either by the plane-pair matrix, sum over stored planes
// j, k of 2^(j+k) popcount(A_j AND B_k) (cost: live_a * live_b AND + popcount scans), or by
// decoding both blocks and multiplying values (cost: two decodes and one multiply pass,
// whatever the widths). The cost model below prices both in nanoseconds per block pair and
// takes the plane method when it is not dearer. Interleaved all-raw blocks (uniform data)
// decode from their payloads by a transpose, and pair their planes in place (the
// dot_inplace_* constants below; until session 31 they were de-interleaved into views first,
// ~47 ns a plane, which the run below included); other blocks are viewed (de-interleaved,
// rebuilt) either way and decode by untranspose.
// Measured on the 2-core development VM, AVX2 path, one thread, 16M uniform k-bit values per
// operand (bench_reduce.cpp, BM_ReduceDotMethod/{planes,decode}/k, CPU time; the VM was
// loaded, load average 4-5): the plane method costs ~94 ns per plane of the two operands
// (de-interleaving views) + ~12 ns per plane pair; decode costs ~1.1 us per block pair when
// every plane is below 8, ~1.65 us below 16 and 2.7-3.2 us above (transposes + multiply +
// memory). Planes won up to k = 6 (8.45 vs 9.13 ms), decode from k = 7 (9.20 vs 10.44 ms;
// k = 8: 9.31 vs 12.50 ms); the constants below put the switch between 6 and 7 and pick
// the faster method at every k of that run. The view-path constants (untranspose, scatter,
// compact) come from the same kernels timed on cached blocks and the sparse shape
// (BM_ReduceDotMethod/*/zeros90: planes 37.7 ms, decode 89.6 ms).
inline constexpr std::uint32_t dot_pair_ns = 12;                // one whole-plane AND + popcount
inline constexpr std::uint32_t dot_transpose8_block_ns = 405;   // interleaved payload -> values,
inline constexpr std::uint32_t dot_transpose16_block_ns = 675;  //   planes below 8, 16 or 32
inline constexpr std::uint32_t dot_transpose32_block_ns = 1200;
inline constexpr std::uint32_t dot_untranspose_block_ns = 200;  // view -> values: fixed part,
inline constexpr std::uint32_t dot_untranspose_plane_ns = 45;   //   per non-zero plane,
inline constexpr std::uint32_t dot_scatter_block_ns = 3000;     //   and per sparse block
inline constexpr std::uint32_t dot_multiply_ns = 300;           // 2048 exact products summed
// The avx512 path's fused kernel (GFNI transposes of both operands and the products in
// registers) costs ~780 ns per block pair at any width below ~16 bits (compute-bound; more
// above, where it streams as fast as memory does): BM_ReduceDotMethod/decode/3..8 6.3-6.9 ms
// per 8192 block pairs, planes 4.9 ms at k = 3, 5.9 at 4, 7.5 at 5, 8.8 at 6. 700 puts the
// switch between 4 and 5 live planes per operand, where that run measured it.
inline constexpr std::uint32_t dot_fused_block_ns = 700;
// The avx2 path's fused kernel (simd/dot_fused_avx2.cpp) costs per byte of width of each operand
// (a bit transpose per 32 values and byte), plus the 32-bit multiply above 2^30 (split_bits; below,
// 15-bit halves in 16-bit lanes). Stop 30's 8-column transposes (~1200 at 8 bits, ~2100 at 16, ~3200
// at 24, ~4000 at 32) left 4 + 4 planes, where the switch lies, as they were. Timed alone on cached payloads (stop 26,
// development VM, TSC cycles per block pair of two k-bit operands, minimum of 5 rounds of
// 1000): ~1330 at 1-4 bits (both operands share one transpose), ~1750 at 5-8, ~2270 at 9-12,
// ~2850-3100 at 13-15, ~3650 at 16, ~4100-4400 at 17-19, ~4600-5100 at 20-24, ~5150-5450 at
// 25-27, ~5650-6400 at 28-30, ~6800 at 31-32 (stop 25, before the split: ~5650 at 17-24,
// ~6800 at 25-32). In the units of the plane constants above, whose ratio to these timings
// BM_ReduceDotMethod/{planes,decode}/k measured (planes 9.3 vs decode 10.5 ms at k = 2, planes
// 13.4 vs decode 7.7 ms at k = 3; the switch goes between 2 and 3 live planes per operand):
// 100 + 120 per byte (+ 480 wide) puts it there and keeps the kernel's proportions.
inline constexpr std::uint32_t dot_fused_avx2_block_ns = 100;
inline constexpr std::uint32_t dot_fused_avx2_byte_ns = 120;
inline constexpr std::uint32_t dot_fused_avx2_wide_ns = 480;
// Since stop 32 the kernel itself takes 25-30-bit operands through its wide kernel (a column-pair
// transpose, cheaper there than the split: dot_fused_avx2.cpp's header); the surcharge stays on
// 31-32 bits only (not re-timed: it decides nothing there, where plane pairs cost far more).
// Stop 37 cut the kernel at 17-32 bits (TSC per block pair, cached: 17-23 ~2480, 24 2620, 25-30
// ~2700, 31 3210, 32 2960, dot_fused_avx2.cpp's header): every method switch lies at 2-3 live
// planes, where nothing changed, so these constants stay. Stop 37's dot31 folded 31 x 31-bit
// products as well (31 bits 2965 -> 2765, beside 30 bits' 2710 and 32's 2830 in the same runs):
// 31 x 31 still prices far below its plane pairs (~9400), and 31 x 3 bits, where the surcharge
// can decide, did not change (3030 -> 3050: its 34-bit products were folded per column pair
// already, and the 3-bit operand's planes are read scattered), so these constants stay.
inline constexpr std::uint32_t dot_fused_avx2_split_bits = 30;
// On the avx512 path, operands of at most 16 bits each (live and all-one planes) go to the AVX2
// fused kernel (kernels_avx512.cpp), faster there than the 32 x 32 GFNI transposes: stop 32,
// BM_ReduceDot dense_avx2 / bitplane, development VM, avx512 kernel vs AVX2 kernel: 6 bits
// 2.42 vs 3.89x, 8 2.88 vs 3.58, 10 1.95 vs 2.61, 16 1.68 vs 1.74; 17 1.59 vs 1.28. Its cost
// in the units of the avx512 plane-pair constants below (100 per ms of BM_ReduceDotMethod's
// 8192 block pairs, where AVX2 decode took 4.9 / 5.3 / 7.5 ms at 3 / 6 / 10 bits): 290 + 100
// per byte of width of each operand, so plane pairs keep 1-4 bits and the kernel takes 5-16.
inline constexpr std::uint32_t dot_fused_avx2_on_avx512_bits = 16;
inline constexpr std::uint32_t dot_fused_avx2_on_avx512_block_ns = 290;
inline constexpr std::uint32_t dot_fused_avx2_on_avx512_byte_ns = 100;
inline constexpr std::uint32_t dot_compact_plane_ns = 60;       // a plane compacted to shared positions
// Interleaved blocks' plane pairs read in place (kernel_table::interleaved_and_popcounts: the
// operand of more stored planes in lanes, each word of the other broadcast against them): a
// fixed part (both operands' plane counts, the block's memory) plus one pass over the 64
// columns per lane register of the wider operand and plane of the narrower (avx512: 16 lanes,
// 4 of the narrower's planes a pass; avx2: 8 lanes, 1; sse2: 4, 1). Development VM (loaded),
// BM_ReduceDotMethod/{planes,decode}/{3,6,10,10x3}, CPU ms per 8192 block pairs, in the units
// of the fused constants above: avx512 planes 3.9 / 5.3 / 8.1 / 4.2 against decode 7.2-7.8
// (switch between 8 and 9 planes each; the demo's 10 x 3 is one pass); avx2 planes 4.2 / 7.7 /
// 18.2 / 8.3 against decode 4.9 / 5.3 / 7.5 / 6.2 (switch between 3 and 4; 10 x 3 decodes).
inline constexpr std::uint32_t dot_inplace_block_ns_avx512 = 230;
inline constexpr std::uint32_t dot_inplace_pass_ns_avx512 = 160;
inline constexpr std::uint32_t dot_inplace_block_ns_avx2 = 90;
inline constexpr std::uint32_t dot_inplace_pass_ns_avx2 = 75;
inline constexpr std::uint32_t dot_inplace_block_ns_sse2 = 150;
inline constexpr std::uint32_t dot_inplace_pass_ns_sse2 = 70;

// ---- scans -----------------------------------------------------------------------------------
// An equality on a dense block whose shortest list plane that keeps its positions for the target
// holds at most this many (u16 slots of a gap list kept as positions, or a position list's
// items) is answered from those positions alone (ops/equal_candidates.cpp): each other plane is
// read at the candidates, lists merged with them. count_eq instructions a call, callgrind, AVX2
// (bound 32 / 256 / 1024): bam_mapq rare 973K / 925K / 925K, geoip4_size rare 213K / 195K /
// 195K, geoip4_size frequent 646K / 649K / 649K, bam_flag frequent 1234K / 1219K / 1234K.
inline constexpr std::uint32_t equal_candidates_max = 256;
// A list is binary-searched for each candidate where it holds more than this many items per
// candidate, else walked alongside them (a search costs about 4 instructions a halving, a
// walk about 3.5 an item: bam_mapq rare 1.27M -> 0.97M instructions with searches at 8).
inline constexpr std::uint32_t equal_candidates_search_ratio = 8;
// Where reading the candidates plane by plane would take at least
//   equal_candidates_narrow_min_reads + equal_candidates_narrow_plane_reads x (raw planes + maps)
// candidate reads, estimated as candidates x (min(raw planes, 2) + maps) (a raw plane halves
// the candidates, a gap map that clears keeps most), the raw planes and gap maps of a whole
// block are narrowed in one kernel pass (narrow_planes: AVX2, AVX-512) and each candidate read
// once in its result (~7 instructions a candidate read, ~26 a plane in the kernel). count_eq
// instructions a call, callgrind, AVX2, main / kernel from 4 candidates / this rule (fixed part
// and per plane 8 and 1; 16 and 4; 0 and 2): geoip4_size rare 214.1K / 142.8K / 146.2K
// (147.8K; 145.8K), bam_tlen rare 132.8K / 138.9K / 133.7K (133.4K; 133.4K), bam_tlen frequent
// 1267K / 1148K / 1155K (1214K; 1158K). (From 4 candidates on whatever the planes: bam_tlen rare,
// a few candidates against ~9 raw planes, +4.4%.)
inline constexpr std::uint32_t equal_candidates_narrow_plane_reads = 1;
inline constexpr std::uint32_t equal_candidates_narrow_min_reads = 8;
// Where no list keeps its positions, lists of more positions than this in all (u16 slots of gap
// lists kept as positions, list items) are marked in a byte map and packed once, fewer are
// cleared bit by bit in the equality's words. count_eq instructions a call, callgrind, AVX2
// (bound 0 / 48 / 96 / 200 / never): bam_mapq frequent 1.73M / 1.67M / 1.50M / 1.52M / 1.60M,
// geoip4_size frequent 650K / 650K / 649K / 656K / 857K, bam_flag frequent 1.48M / 1.32M /
// 1.22M / 1.24M / 1.24M.
inline constexpr std::uint32_t equal_clear_marked_items = 96;

// A sealed block gets a presence filter of its keys (block_summary.hpp: presence_filter) only
// where its keys span fewer than presence_max_key_span values (4 words of 64 bits at most)
// and at least 1/presence_min_absent_share of the keys in [min, max] are absent: a filter
// where nearly every key occurs could rarely skip and only costs memory (word_length, 0.3%
// below BitMagic's memory, has 96 blocks of small span with a few keys absent: at 1/2, 2 get
// one; bam_mapq 848 of 862, geoip4_country 167 of 188, geoip6_country 101 of 135).
inline constexpr std::uint32_t presence_max_key_span = 256;
inline constexpr std::uint32_t presence_min_absent_share = 2;

// How a block's presence filter is built (src/simd kernel key_presence): on the AVX2 path a
// subtraction, a shift and an OR a register of 8 values and 32-bit word of keys, ~(3 W + 3) / 8
// instructions a value for W words, up to presence_shift_max_words words; above, a byte store
// a value (key_presence_bytes, ~2.3 with its packing). Time agrees (dev VM, a block of 2048
// values): shifts 125 / 157 / 174 / 230 ns at 1 / 2 / 3 / 4 words, 469 at 8; bytes 468.
// AVX-512 shifts 16 values a register at every width.
inline constexpr std::uint32_t presence_shift_max_words = 5;
// summarize_presence marks the first presence_sample_values values first, for spans up to
// presence_sample_max_span, and gives up where they already hold too many of the span's keys
// for a filter (word_length: nearly every key of its 32-63 span in every block; the whole pass
// cost +0.9% of its build for 2 filters). Wider spans are seldom that full in 256 values.
inline constexpr std::uint32_t presence_sample_max_span = 64;
// A column keeps its presence filters only where at least 1/presence_min_filtered_share of
// its entries have one (vector_core.cpp: drop_scarce_presence; the slot table costs 4 bytes an
// entry). Kept at 8: bam_flag 862 of 862 entries, bam_mapq 848 of 862, geoip4_country 167 of
// 188, geoip6_country 101 of 135, ucd_* (repeated blocks share entries) and word_first; dropped:
// word_length (2 of 323, which took it above BitMagic's memory), bed_chrom, geoip6_start.
inline constexpr std::size_t presence_min_filtered_share = 8;
inline constexpr std::size_t presence_sample_values = 256;

}  // namespace bitplane::detail::thresholds
