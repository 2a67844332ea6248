// The scans of scan.hpp: one scan_test (scan_block.hpp) run over a vector's blocks in
// parallel; each block's answer goes straight into a bitset_builder, or only its popcount
// into the total for the count_* functions.
//
// A sealed block whose [smallest, largest] key range (its block_summary, kept by vector_core)
// lies inside the test's interval, or outside it, is answered as a whole before any of its
// bytes are read: on sorted and clustered columns (positions, timestamps, address ranges) an
// equality or a range visits only the few blocks that straddle its bounds, and a range that
// holds a column's every value (issue #13: bed_strand) visits none, and its result is one
// full bitset, made without the per-block builder. An equality goes first through its lane
// (equality_lane.hpp: set up once per scan; a block's summary, a dense interleaved block
// straight through the kernel, a dense block with list planes through equal_by_candidates),
// and reaches scan_block / count_block only for other blocks.
#include <bitplane/scan.hpp>

#include "core/parallel.hpp"
#include "ops/equality_lane.hpp"
#include "ops/scan_block.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace bitplane {

namespace {

// Blocks per task: 32 blocks are 64K values, a few microseconds of work even for blocks that
// are answered from their headers, so that task overhead stays small.
constexpr std::size_t scan_grain = 32;

template <column_value T>
std::uint32_t bits_of(T x) noexcept {
    return std::bit_cast<std::uint32_t>(x);
}

template <column_value T>
constexpr bool signed_keys = std::is_same_v<T, std::int32_t>;

// What an interval test answers for every value of a block whose keys lie in [lo, hi]
// (lo <= hi): `some` when the range straddles a bound. The test passes keys whose offset
// key - start (mod 2^32) is at most span; the block's offsets run from a = lo - start up to
// a + (hi - lo), past 2^32 when they wrap through offset 0, which the interval holds.
detail::block_answer answer_by_range(const detail::scan_test& test, std::uint32_t lo, std::uint32_t hi) noexcept {
    const std::uint64_t first = static_cast<std::uint32_t>(lo - test.start);
    const std::uint64_t last = first + (hi - lo);  // unwrapped: < 2^33
    const bool inside = last <= test.span;
    const bool outside = first > test.span && last < (std::uint64_t{1} << 32);
    if (!inside && !outside) return detail::block_answer::some;
    return inside != test.negate ? detail::block_answer::all : detail::block_answer::none;
}

// The answer for block `b` from its summary, where it has an up-to-date one.
detail::block_answer answer_by_summary(const detail::vector_core& v, std::size_t b,
                                       const detail::scan_test& test) noexcept {
    if (test.what != detail::scan_test::kind::interval || b >= v.sealed_block_count() ||
        !v.write_back_values(b).empty())
        return detail::block_answer::some;
    const detail::block_summary& s = v.sealed_summary(b);
    return s.known() ? answer_by_range(test, s.min_key, s.max_key) : detail::block_answer::some;
}

// The working memory of one thread's scans, kept for the next (about 19 KiB, of which its
// constructor zeroes 8.5 KiB): built per task of 32 blocks it was zeroed 16 times per scan of
// a 1M-value column, even where every block is answered from its summary (bed_strand
// find_range: half of the task loop's time, perf). A task body never waits on other tasks, so
// no other scan runs on this thread while it holds the scratch; the scans reuse it block after
// block anyway.
detail::scan_scratch& thread_scratch() {
    thread_local detail::scan_scratch scratch;
    return scratch;
}

// One answer for every block of `v` where their summaries all give the same (a range that
// holds every value of the column, bed_strand find_range; a value outside the column's
// range): the result is then an empty or a full bitset, made without the builder's slot per
// block and its finish (bed_strand find_range: 14.7 us against BitMagic's 2.95, stop 30).
// `some` otherwise, after the blocks up to the first that answers differently.
// First the key range the vector keeps over its sealed blocks (vector_core::sealed_keys_hull,
// no block visited): where the test holds all of it or none of it, that is every block's
// answer, with no answer worked out per block (bed_strand, [0, 1] over 488 one-plane blocks:
// BitMagic answers in 0.58 us; per-block answers took 1.35 us, a min and a max a block 0.8 us,
// 8.9K instructions a call, callgrind AVX2). The values not yet sealed (the tail: bed_strand's
// last 576 values) go through count_block's kernel.
detail::block_answer answer_for_all(const detail::vector_core& v, const detail::scan_test& test) noexcept {
    const std::size_t sealed = v.sealed_block_count();
    if (v.size() == 0 || v.write_back_block() < sealed) return detail::block_answer::some;
    detail::block_answer first = detail::block_answer::some;
    bool settled = false;  // by the column's [min, max]
    if (test.what == detail::scan_test::kind::interval && sealed != 0) {
        const detail::key_hull& hull = v.sealed_keys_hull();
        if (hull.known()) first = answer_by_range(test, hull.min_key, hull.max_key);
        settled = first != detail::block_answer::some;
    }
    for (std::size_t b = 0; b < sealed && !settled; ++b) {
        const detail::block_answer answer = answer_by_summary(v, b, test);
        if (answer == detail::block_answer::some || (b != 0 && answer != first)) return detail::block_answer::some;
        first = answer;
    }
    const std::span<const std::uint32_t> tail = v.tail();
    if (!tail.empty()) {
        // The active path's test_values kernel (count_block), not one value at a time.
        const std::size_t passing = detail::count_block(v, sealed, test, thread_scratch());
        const detail::block_answer answer = passing == 0 ? detail::block_answer::none
                                            : passing == tail.size() ? detail::block_answer::all
                                                                     : detail::block_answer::some;
        if (answer == detail::block_answer::some || (sealed != 0 && answer != first)) return detail::block_answer::some;
        first = answer;
    }
    return first;
}

// Whether sealed block b (> first, the task's first block) has the bytes of block b - 1, so
// that the previous block's answer is its own. Blocks with identical bytes share one block
// table entry (vector_core::same_as_previous); the write-back block's entry is stale, and
// neither block may be it.
bool repeats_previous(const detail::vector_core& v, std::size_t b, std::size_t first) noexcept {
    return b > first && b < v.sealed_block_count() && v.same_as_previous(b) && v.write_back_values(b).empty() &&
           v.write_back_values(b - 1).empty();
}

constexpr std::uint32_t unknown_count = detail::bitset_builder::writer::unknown_count;
static_assert(unknown_count == detail::equal_not_counted);  // find_listed passes the one on as the other

// What equality_lane::answer's count says of the whole block.
detail::block_answer answer_of_count(std::uint32_t passing) noexcept {
    if (passing == 0) return detail::block_answer::none;
    return passing == block_values ? detail::block_answer::all : detail::block_answer::some;
}

// Block b of `v`, left `listed` by the lane, through equal_by_candidates, or the generic way
// where it declines (with the plan it declined, not built nor tried again). find_listed is out
// of run_scan's block loop, count_listed inside run_count's (equality_lane.hpp says why).
// Gives the number of values that pass where it was counted (0 for none, block_values for
// all), else unknown_count (some, in `bits`, which may still be empty or full: set_block counts
// it anyway, and stores an empty or full one as such).
[[gnu::noinline]] std::uint32_t find_listed(const detail::equality_lane& lane, const detail::vector_core& v,
                                            std::size_t b, const detail::scan_test& test,
                                            detail::scan_scratch& scratch, plane& bits) {
    std::uint32_t passing = 0;
    const std::uint32_t* tried_plan = nullptr;
    if (lane.by_candidates(v, b, bits.data(), scratch, passing, tried_plan)) return passing;  // or equal_not_counted
    switch (detail::scan_block(v, b, test, scratch, bits, false, tried_plan)) {
        case detail::block_answer::none: return 0;
        case detail::block_answer::all: return static_cast<std::uint32_t>(block_values);
        case detail::block_answer::some: break;
    }
    return unknown_count;
}

[[gnu::always_inline]] inline std::uint32_t count_listed(const detail::equality_lane& lane, const detail::vector_core& v,
                                             std::size_t b, const detail::scan_test& test,
                                             detail::scan_scratch& scratch) {
    std::uint32_t passing = 0;
    const std::uint32_t* tried_plan = nullptr;
    if (lane.by_candidates(v, b, nullptr, scratch, passing, tried_plan)) return passing;
    return detail::count_block(v, b, test, scratch, tried_plan);
}

bitset run_scan(const detail::vector_core& v, const detail::scan_test& test) {
    if (test.what == detail::scan_test::kind::none) return bitset(v.size());
    if (test.what == detail::scan_test::kind::all) return bitset(v.size(), true);
    switch (answer_for_all(v, test)) {
        case detail::block_answer::none: return bitset(v.size());
        case detail::block_answer::all: return bitset(v.size(), true);
        case detail::block_answer::some: break;
    }
    const detail::equality_lane lane = detail::equality_lane::of(test, v);
    detail::bitset_builder builder(v.size());
    detail::parallel_for(v.block_count(), scan_grain, [&](std::size_t first, std::size_t last) {
        detail::scan_scratch& scratch = thread_scratch();
        detail::bitset_builder::writer out(builder, last);  // places this task's payloads (bitset_builder.cpp)
        const detail::equality_lane here = lane;  // a copy: its fields stay in registers, not reloaded a block
        plane bits;
        detail::block_answer answer = detail::block_answer::none;
        // The set bits of `bits` where the lane's kernel counted them (the builder then takes a
        // sparse plane's positions without counting it again), else unknown_count.
        std::uint32_t counted = unknown_count;
        for (std::size_t b = first; b < last; ++b) {
            // A repeated block (runs columns: ucd_*) takes the previous answer, and `bits` still
            // holds the previous block's plane (and `counted` its count) where that was `some`.
            if (!repeats_previous(v, b, first)) {
                std::uint32_t passing = 0;
                const detail::equality_lane::way way = here.answer(v, b, bits, passing);
                if (way == detail::equality_lane::way::answered) {
                    answer = answer_of_count(passing);
                    counted = passing;
                } else if (way == detail::equality_lane::way::listed) {
                    counted = find_listed(here, v, b, test, scratch, bits);
                    answer = counted == unknown_count ? detail::block_answer::some : answer_of_count(counted);
                } else {
                    answer = way == detail::equality_lane::way::by_block ? detail::block_answer::some
                                                                         : answer_by_summary(v, b, test);
                    // Not exact: set_block counts the plane anyway, and stores an empty or full one as such.
                    if (answer == detail::block_answer::some) answer = detail::scan_block(v, b, test, scratch, bits, false);
                    counted = unknown_count;
                }
            }
            switch (answer) {
                case detail::block_answer::none: break;
                case detail::block_answer::all: out.set_block_full(b); break;
                case detail::block_answer::some:
                    if (counted == unknown_count) {
                        out.set_block(b, bits);
                    } else {
                        out.set_block_counted(b, bits, counted);
                    }
                    break;
            }
        }
    });
    return builder.finish();
}

std::uint64_t run_count(const detail::vector_core& v, const detail::scan_test& test) {
    if (test.what == detail::scan_test::kind::none) return 0;
    if (test.what == detail::scan_test::kind::all) return v.size();
    switch (answer_for_all(v, test)) {
        case detail::block_answer::none: return 0;
        case detail::block_answer::all: return v.size();
        case detail::block_answer::some: break;
    }
    const detail::equality_lane lane = detail::equality_lane::of(test, v);
    std::atomic<std::uint64_t> total{0};
    detail::parallel_for(v.block_count(), scan_grain, [&](std::size_t first, std::size_t last) {
        detail::scan_scratch& scratch = thread_scratch();
        std::uint64_t n = 0;
        std::uint32_t previous = 0;  // the previous block's count
        const detail::equality_lane here = lane;  // a copy: its fields stay in registers, not reloaded a block
        for (std::size_t b = first; b < last; ++b) {
            if (!repeats_previous(v, b, first)) {
                switch (here.answer(v, b, scratch.compact, previous)) {
                    case detail::equality_lane::way::answered: break;
                    case detail::equality_lane::way::by_summary:
                        switch (answer_by_summary(v, b, test)) {
                            case detail::block_answer::none: previous = 0; break;
                            case detail::block_answer::all: previous = static_cast<std::uint32_t>(block_values); break;
                            case detail::block_answer::some: previous = detail::count_block(v, b, test, scratch); break;
                        }
                        break;
                    case detail::equality_lane::way::by_block: previous = detail::count_block(v, b, test, scratch); break;
                    case detail::equality_lane::way::listed: previous = count_listed(here, v, b, test, scratch); break;
                }
            }
            n += previous;
        }
        total.fetch_add(n, std::memory_order_relaxed);
    });
    return total.load(std::memory_order_relaxed);
}

}  // namespace

template <column_value T>
bitset find_eq(const vector<T>& v, T x) {
    return run_scan(v.core(), detail::scan_eq(bits_of(x), signed_keys<T>));
}

template <column_value T>
bitset find_ne(const vector<T>& v, T x) {
    return run_scan(v.core(), detail::scan_ne(bits_of(x), signed_keys<T>));
}

template <column_value T>
bitset find_lt(const vector<T>& v, T x) {
    return run_scan(v.core(), detail::scan_lt(bits_of(x), signed_keys<T>));
}

template <column_value T>
bitset find_le(const vector<T>& v, T x) {
    return run_scan(v.core(), detail::scan_le(bits_of(x), signed_keys<T>));
}

template <column_value T>
bitset find_gt(const vector<T>& v, T x) {
    return run_scan(v.core(), detail::scan_gt(bits_of(x), signed_keys<T>));
}

template <column_value T>
bitset find_ge(const vector<T>& v, T x) {
    return run_scan(v.core(), detail::scan_ge(bits_of(x), signed_keys<T>));
}

template <column_value T>
bitset find_range(const vector<T>& v, T lo, T hi) {
    return run_scan(v.core(), detail::scan_range(bits_of(lo), bits_of(hi), signed_keys<T>));
}

template <column_value T>
std::uint64_t count_eq(const vector<T>& v, T x) {
    return run_count(v.core(), detail::scan_eq(bits_of(x), signed_keys<T>));
}

template <column_value T>
std::uint64_t count_range(const vector<T>& v, T lo, T hi) {
    return run_count(v.core(), detail::scan_range(bits_of(lo), bits_of(hi), signed_keys<T>));
}

template bitset find_eq(const vector<std::uint32_t>&, std::uint32_t);
template bitset find_ne(const vector<std::uint32_t>&, std::uint32_t);
template bitset find_lt(const vector<std::uint32_t>&, std::uint32_t);
template bitset find_le(const vector<std::uint32_t>&, std::uint32_t);
template bitset find_gt(const vector<std::uint32_t>&, std::uint32_t);
template bitset find_ge(const vector<std::uint32_t>&, std::uint32_t);
template bitset find_range(const vector<std::uint32_t>&, std::uint32_t, std::uint32_t);
template std::uint64_t count_eq(const vector<std::uint32_t>&, std::uint32_t);
template std::uint64_t count_range(const vector<std::uint32_t>&, std::uint32_t, std::uint32_t);

template bitset find_eq(const vector<std::int32_t>&, std::int32_t);
template bitset find_ne(const vector<std::int32_t>&, std::int32_t);
template bitset find_lt(const vector<std::int32_t>&, std::int32_t);
template bitset find_le(const vector<std::int32_t>&, std::int32_t);
template bitset find_gt(const vector<std::int32_t>&, std::int32_t);
template bitset find_ge(const vector<std::int32_t>&, std::int32_t);
template bitset find_range(const vector<std::int32_t>&, std::int32_t, std::int32_t);
template std::uint64_t count_eq(const vector<std::int32_t>&, std::int32_t);
template std::uint64_t count_range(const vector<std::int32_t>&, std::int32_t, std::int32_t);

}  // namespace bitplane
