// Scans (scan.hpp: find_eq/ne/lt/le/gt/ge/range, count_eq/count_range) against plain loops over
// std::vector, for every data shape of test_support.hpp, sizes around block edges, vectors
// with a pending write-back block and a partial tail, probes inside, below and above the data
// and at the type's extremes, lo > hi, every SIMD path and thread counts 1 and 2. The per-block
// answers (ops/scan_block.hpp) are checked too, on vectors and on encoded blocks of every
// transform and layout (including frame-of-reference blocks encoded for the other signedness,
// whose residuals wrap around in the scanned type's order), and the compare_planes kernel is
// checked against a bit-by-bit reference on every path.
#include "test_support.hpp"

#include "codec/direct_access.hpp"
#include "codec/plane_bits.hpp"
#include "codec/thresholds.hpp"
#include "core/vector_access.hpp"
#include "ops/scan_block.hpp"
#include "simd/kernels.hpp"

#include <bitplane/bitset.hpp>
#include <bitplane/codec.hpp>
#include <bitplane/parallel.hpp>
#include <bitplane/scan.hpp>
#include <bitplane/simd.hpp>
#include <bitplane/vector.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <span>
#include <tuple>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace bitplane_test;
using bitplane::block_values;
using bitplane::plane;
using bitplane::plane_words;
using bitplane::simd_path;
using positions = std::vector<std::uint64_t>;

// ---- guards -----------------------------------------------------------------------------------

class path_guard {
public:
    path_guard() : saved_(bitplane::active_simd_path()) {}
    path_guard(const path_guard&) = delete;
    path_guard& operator=(const path_guard&) = delete;
    ~path_guard() { bitplane::set_simd_path(saved_); }

private:
    simd_path saved_;
};

class threads_guard {
public:
    explicit threads_guard(std::size_t threads) { bitplane::set_thread_count(threads); }
    threads_guard(const threads_guard&) = delete;
    threads_guard& operator=(const threads_guard&) = delete;
    ~threads_guard() { bitplane::set_thread_count(0); }
};

// ---- the reference ----------------------------------------------------------------------------

enum class op { eq, ne, lt, le, gt, ge, range };

const char* op_name(op o) {
    switch (o) {
        case op::eq: return "eq";
        case op::ne: return "ne";
        case op::lt: return "lt";
        case op::le: return "le";
        case op::gt: return "gt";
        case op::ge: return "ge";
        case op::range: return "range";
    }
    return "?";
}

template <class T>
bool passes(op o, T v, T a, T b) {
    switch (o) {
        case op::eq: return v == a;
        case op::ne: return v != a;
        case op::lt: return v < a;
        case op::le: return v <= a;
        case op::gt: return v > a;
        case op::ge: return v >= a;
        case op::range: return a <= v && v <= b;
    }
    return false;
}

template <class T>
positions reference(const std::vector<T>& values, op o, T a, T b) {
    positions out;
    for (std::size_t i = 0; i < values.size(); ++i)
        if (passes(o, values[i], a, b)) out.push_back(i);
    return out;
}

template <class T>
bitplane::detail::scan_test make_test(op o, T a, T b) {
    constexpr bool is_signed = std::is_signed_v<T>;
    const auto x = std::bit_cast<std::uint32_t>(a);
    const auto y = std::bit_cast<std::uint32_t>(b);
    switch (o) {
        case op::eq: return bitplane::detail::scan_eq(x, is_signed);
        case op::ne: return bitplane::detail::scan_ne(x, is_signed);
        case op::lt: return bitplane::detail::scan_lt(x, is_signed);
        case op::le: return bitplane::detail::scan_le(x, is_signed);
        case op::gt: return bitplane::detail::scan_gt(x, is_signed);
        case op::ge: return bitplane::detail::scan_ge(x, is_signed);
        case op::range: return bitplane::detail::scan_range(x, y, is_signed);
    }
    return {};
}

template <class T>
bitplane::bitset run_find(op o, const bitplane::vector<T>& v, T a, T b) {
    switch (o) {
        case op::eq: return bitplane::find_eq(v, a);
        case op::ne: return bitplane::find_ne(v, a);
        case op::lt: return bitplane::find_lt(v, a);
        case op::le: return bitplane::find_le(v, a);
        case op::gt: return bitplane::find_gt(v, a);
        case op::ge: return bitplane::find_ge(v, a);
        case op::range: return bitplane::find_range(v, a, b);
    }
    return {};
}

template <class T>
std::string probe_name(op o, T a, T b) {
    std::string out = std::string(op_name(o)) + " " + std::to_string(a);
    if (o == op::range) out += " " + std::to_string(b);
    return out;
}

constexpr op single_ops[] = {op::eq, op::ne, op::lt, op::le, op::gt, op::ge};

// Values to compare with: the type's extremes and the other type's, values of the data, just
// below and above its minimum and maximum, and random ones.
template <class T>
std::vector<T> probes(const std::vector<T>& values, std::uint64_t seed, std::size_t random_picks) {
    using lim = std::numeric_limits<T>;
    std::vector<T> out = {T(0), T(1), lim::min(), lim::max(), static_cast<T>(lim::min() + 1),
                          static_cast<T>(lim::max() - 1), std::bit_cast<T>(0xFFFFFFFFu),
                          std::bit_cast<T>(0x80000000u), std::bit_cast<T>(0x7FFFFFFFu)};
    std::mt19937_64 rng(seed);
    if (!values.empty()) {
        const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
        for (const T x : {*lo, *hi, values.front(), values[values.size() / 2], values.back()}) {
            out.push_back(x);
            out.push_back(std::bit_cast<T>(std::bit_cast<std::uint32_t>(x) - 1));
            out.push_back(std::bit_cast<T>(std::bit_cast<std::uint32_t>(x) + 1));
        }
        for (std::size_t k = 0; k < random_picks; ++k) out.push_back(values[rng() % values.size()]);
    }
    for (std::size_t k = 0; k < 2; ++k) out.push_back(std::bit_cast<T>(static_cast<std::uint32_t>(rng())));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// (lo, hi) pairs: around the data, one-sided, single values, reversed (lo > hi) and random.
template <class T>
std::vector<std::pair<T, T>> ranges(const std::vector<T>& points, std::uint64_t seed, std::size_t count) {
    using lim = std::numeric_limits<T>;
    std::vector<std::pair<T, T>> out = {{lim::min(), lim::max()}, {lim::max(), lim::min()}};
    std::mt19937_64 rng(seed);
    for (std::size_t k = 0; k < count && !points.empty(); ++k) {
        T a = points[rng() % points.size()];
        T b = points[rng() % points.size()];
        switch (k % 5) {
            case 0: out.emplace_back(std::min(a, b), std::max(a, b)); break;
            case 1: out.emplace_back(std::max(a, b), std::min(a, b)); break;  // lo > hi unless equal
            case 2: out.emplace_back(lim::min(), a); break;
            case 3: out.emplace_back(a, lim::max()); break;
            default: out.emplace_back(a, a); break;
        }
    }
    return out;
}

// ---- checks -----------------------------------------------------------------------------------

::testing::AssertionResult same_positions(const positions& expected, const positions& actual) {
    if (expected == actual) return ::testing::AssertionSuccess();
    std::size_t i = 0;
    while (i < expected.size() && i < actual.size() && expected[i] == actual[i]) ++i;
    auto failure = ::testing::AssertionFailure();
    failure << "expected " << expected.size() << " positions, got " << actual.size() << "; first difference at #" << i;
    if (i < expected.size()) failure << " expected " << expected[i];
    if (i < actual.size()) failure << " got " << actual[i];
    return failure;
}

positions block_positions(bitplane::detail::block_answer answer, const plane& bits, std::size_t first,
                          std::size_t count) {
    positions out;
    switch (answer) {
        case bitplane::detail::block_answer::none: break;
        case bitplane::detail::block_answer::all:
            for (std::size_t i = 0; i < count; ++i) out.push_back(first + i);
            break;
        case bitplane::detail::block_answer::some:
            for (std::uint32_t i = 0; i < bitplane::detail::block_bits; ++i)
                if (bitplane::detail::test_bit(bits, i)) out.push_back(first + i);  // bits >= count must be clear
            break;
    }
    return out;
}

// The per-block answers and counts of a vector, assembled.
template <class T>
positions scan_by_blocks(const bitplane::vector<T>& v, const bitplane::detail::scan_test& test,
                         std::uint64_t& counted) {
    positions out;
    counted = 0;
    bitplane::detail::scan_scratch scratch;
    plane bits;
    const auto& core = v.core();
    for (std::size_t b = 0; b < core.block_count(); ++b) {
        const std::size_t first = b * block_values;
        const std::size_t count = std::min(block_values, v.size() - first);
        bits.fill(0xA5A5A5A5u);  // whatever the plane held before must not leak into the answer
        const positions p =
            block_positions(bitplane::detail::scan_block(core, b, test, scratch, bits), bits, first, count);
        out.insert(out.end(), p.begin(), p.end());
        // Not exact (the scans' way into bitset_builder): `some` may come with an empty or
        // full plane, but the positions are the same.
        bits.fill(0x5A5A5A5Au);
        const auto loose = bitplane::detail::scan_block(core, b, test, scratch, bits, false);
        if (loose != bitplane::detail::block_answer::none && loose != bitplane::detail::block_answer::all) {
            plane within = bits;
            bitplane::detail::clear_from(within, static_cast<std::uint32_t>(count));
            EXPECT_EQ(within, bits) << "bits at or beyond the block's values, block " << b;
        }
        EXPECT_TRUE(same_positions(p, block_positions(loose, bits, first, count))) << "block " << b;
        counted += bitplane::detail::count_block(core, b, test, scratch);
        // The same block's bytes without the side entries the vector keeps beside them (gap
        // lists' maps and positions, as a block read from a file has none): every list walked.
        if (b < core.sealed_block_count() && core.write_back_values(b).empty()) {
            const std::span<const std::byte> bytes = core.sealed_block(b, {});
            const auto n = static_cast<std::uint32_t>(count);
            bits.fill(0xA5A5A5A5u);
            const positions bare =
                block_positions(bitplane::detail::scan_encoded_block(bytes, n, test, scratch, bits), bits, first, count);
            EXPECT_TRUE(same_positions(p, bare)) << "block " << b << " without its side entries";
            EXPECT_EQ(bitplane::detail::count_encoded_block(bytes, n, test, scratch), p.size())
                << "block " << b << " without its side entries";
        }
    }
    return out;
}

// One probe: the public scan (and its count where there is one) and the per-block answers.
template <class T>
void check_probe(const bitplane::vector<T>& v, const std::vector<T>& values, op o, T a, T b, bool blocks) {
    SCOPED_TRACE(probe_name(o, a, b));
    const positions expected = reference(values, o, a, b);
    const bitplane::bitset found = run_find(o, v, a, b);
    ASSERT_EQ(found.size(), values.size());
    ASSERT_TRUE(same_positions(expected, found.to_positions()));
    ASSERT_EQ(found.count(), expected.size());
    if (o == op::eq) {
        ASSERT_EQ(bitplane::count_eq(v, a), expected.size());
    }
    if (o == op::range) {
        ASSERT_EQ(bitplane::count_range(v, a, b), expected.size());
    }
    if (blocks) {
        std::uint64_t counted = 0;
        ASSERT_TRUE(same_positions(expected, scan_by_blocks(v, make_test(o, a, b), counted)));
        ASSERT_EQ(counted, expected.size());
    }
}

// Every op at every probe (or, with `sample` > 1, one op per probe in turn), and ranges.
template <class T>
void check_vector(const bitplane::vector<T>& v, const std::vector<T>& values, std::uint64_t seed, std::size_t picks,
                  std::size_t range_count, bool blocks = true, std::size_t sample = 1) {
    ASSERT_EQ(v.size(), values.size());
    const std::vector<T> points = probes(values, seed, picks);
    std::size_t turn = 0;
    for (const T x : points) {
        for (const op o : single_ops) {
            if (turn++ % sample != 0) continue;
            check_probe(v, values, o, x, x, blocks);
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
    for (const auto& [lo, hi] : ranges(points, seed + 1, range_count)) {
        check_probe(v, values, op::range, lo, hi, blocks);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

template <class T>
bitplane::vector<T> make_vector(const std::vector<T>& values) {
    bitplane::vector<T> v(values.begin(), values.end());
    return v;
}

// Every size and every op at every probe on the best path; on the others (whose kernels only
// run on sealed blocks) the sizes with sealed blocks and a tail, and the ops taken in turn.
// Under a sanitizer, a third of the ops.
template <class T>
void check_every_shape(bool best_path) {
    const std::vector<std::size_t> sizes = best_path
                                               ? std::vector<std::size_t>{0, 1, 2, 2047, 2048, 2049, 4096, 3 * 2048 + 5}
                                               : std::vector<std::size_t>{2049, 3 * 2048 + 5};
    const std::size_t sample = (best_path ? 1 : 3) * (quick_mode() ? 3 : 1);
    for (const shape& s : all_shapes()) {
        for (const std::size_t n : sizes) {
            SCOPED_TRACE(case_name(s, n));
            const std::vector<T> values = make_typed<T>(s, n, case_seed("scan-shape", s.id(), n));
            const bitplane::vector<T> v = make_vector(values);
            check_vector(v, values, case_seed("scan-probes", s.id(), n), 3, quick_mode() ? 4 : 10, true, sample);
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
}

// ---- the compare_planes kernel ----------------------------------------------------------------

struct kernel_case {
    bitplane::detail::compare_job job;
    std::vector<std::uint8_t> storage;  // planes or an interleaved payload
    // Planes read where they lie (compare_job::planes): one buffer each, and their addresses.
    std::vector<std::vector<std::uint8_t>> apart;
    std::vector<const std::uint8_t*> plane_at;
};

// Bit `bit` of word c of the k-th plane the job reads.
bool job_bit(const bitplane::detail::compare_job& job, std::uint32_t k, std::uint32_t c, std::uint32_t bit) {
    std::uint32_t w;
    const std::uint8_t* at = job.planes != nullptr ? job.planes[k] + 4 * c : job.base + job.offset[k] + c * job.stride;
    std::memcpy(&w, at, sizeof w);
    return ((w >> bit) & 1u) != 0;
}

// compare_planes by definition: per position, the first plane read where it differs from the
// target decides; positions equal on every plane read get the finish.
void reference_compare(const bitplane::detail::compare_job& job, std::uint32_t* eq, std::uint32_t* lt) {
    for (std::uint32_t t = 0; t < job.targets; ++t) {
        for (std::uint32_t c = 0; c < job.words; ++c) {
            std::uint32_t e = 0, l = 0;
            for (std::uint32_t bit = 0; bit < 32; ++bit) {
                int state = 0;  // 0 equal, -1 less, 1 greater
                for (std::uint32_t k = 0; k < job.steps[t] && state == 0; ++k) {
                    const bool r = job_bit(job, k, c, bit);
                    const bool x = ((job.bits[t] >> k) & 1u) != 0;
                    if (r != x) state = r ? 1 : -1;
                }
                if (state == 0 && job.finish[t] == bitplane::detail::compare_job::finish_lt) state = -1;
                if (state == 0 && job.finish[t] == bitplane::detail::compare_job::finish_gt) state = 1;
                e |= static_cast<std::uint32_t>(state == 0) << bit;
                l |= static_cast<std::uint32_t>(state < 0) << bit;
            }
            eq[t * plane_words + c] = e;
            lt[t * plane_words + c] = l;
        }
    }
}

// How random_kernel_case lays its planes out.
enum class kernel_layout { planar, interleaved, apart };

// A random job over `stored` random planes, laid out as planes (stride 4), as an interleaved
// payload at an odd address, in a buffer that ends where the payload ends, or as planes apart
// (compare_job::planes), each at an odd address in a buffer that ends with the job's last word.
kernel_case random_kernel_case(std::mt19937_64& rng, kernel_layout layout) {
    const bool interleaved = layout == kernel_layout::interleaved;
    kernel_case out;
    auto& job = out.job;
    const auto stored = static_cast<std::uint32_t>(1 + rng() % 32);
    std::vector<std::uint32_t> words(stored * plane_words);
    for (std::uint32_t p = 0; p < stored; ++p) {
        const unsigned density = static_cast<unsigned>(rng() % 4);  // sparse, dense, random, near-constant
        for (std::uint32_t c = 0; c < plane_words; ++c) {
            std::uint32_t w = static_cast<std::uint32_t>(rng());
            if (density == 0) w &= static_cast<std::uint32_t>(rng()) & static_cast<std::uint32_t>(rng());
            if (density == 1) w |= static_cast<std::uint32_t>(rng()) | static_cast<std::uint32_t>(rng());
            if (density == 3) w = rng() % 8 == 0 ? w : (p % 2 == 0 ? 0u : ~0u);
            words[p * plane_words + c] = w;
        }
    }
    // The planes read, top down: a random order of distinct planes.
    std::vector<std::uint32_t> order(stored);
    for (std::uint32_t p = 0; p < stored; ++p) order[p] = p;
    std::shuffle(order.begin(), order.end(), rng);
    const std::uint32_t lead = interleaved ? 1 + static_cast<std::uint32_t>(rng() % 7) : 0;
    if (interleaved) {
        out.storage.assign(lead + stored * plane_words * 4, 0);
        for (std::uint32_t c = 0; c < plane_words; ++c)
            for (std::uint32_t p = 0; p < stored; ++p)
                std::memcpy(out.storage.data() + lead + (c * stored + p) * 4, &words[p * plane_words + c], 4);
        job.stride = 4 * stored;
        for (std::uint32_t k = 0; k < stored; ++k) job.offset[k] = 4 * order[k];
    } else {
        out.storage.assign(stored * plane_words * 4, 0);
        std::memcpy(out.storage.data(), words.data(), out.storage.size());
        job.stride = 4;
        for (std::uint32_t k = 0; k < stored; ++k) job.offset[k] = order[k] * plane_words * 4;
    }
    job.base = out.storage.data() + lead;
    job.words = 8 * static_cast<std::uint32_t>(1 + rng() % 8);
    if (layout == kernel_layout::apart) {
        // The k-th plane read in a buffer of its own: no base, no offsets.
        for (std::uint32_t k = 0; k < stored; ++k) {
            const std::uint32_t skew = 1 + static_cast<std::uint32_t>(rng() % 7);
            std::vector<std::uint8_t> buffer(skew + 4 * job.words);
            std::memcpy(buffer.data() + skew, &words[order[k] * plane_words], 4 * job.words);
            out.apart.push_back(std::move(buffer));
            out.plane_at.push_back(out.apart.back().data() + skew);
        }
        job.planes = out.plane_at.data();
        job.base = nullptr;
        for (std::uint32_t k = 0; k < stored; ++k) job.offset[k] = 0x7FFFFFFFu;  // unused: far off if read
    }
    job.targets = 1 + static_cast<std::uint32_t>(rng() % 2);
    job.need_lt = job.targets == 2 || rng() % 3 != 0;
    for (std::uint32_t t = 0; t < job.targets; ++t) {
        job.steps[t] = static_cast<std::uint32_t>(rng() % (stored + 1));
        job.bits[t] = static_cast<std::uint32_t>(rng()) & (job.steps[t] == 32 ? ~0u : (1u << job.steps[t]) - 1u);
        job.finish[t] = static_cast<std::uint8_t>(rng() % 3);
    }
    return out;
}

TEST(ScanKernels, ComparePlanesMatchesReferenceOnEveryPath) {
    BITPLANE_SEED_TRACE();
    const path_guard guard;
    const int rounds = quick_mode() ? 150 : 1500;
    for (const simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        const auto& kernels = bitplane::detail::active_kernels();
        ASSERT_EQ(kernels.path, path);
        std::mt19937_64 rng(case_seed("compare-planes", static_cast<std::uint64_t>(path)));
        for (int round = 0; round < rounds; ++round) {
            const kernel_case kc = random_kernel_case(rng, static_cast<kernel_layout>(round % 3));
            const auto& job = kc.job;
            SCOPED_TRACE("round " + std::to_string(round) + " targets " + std::to_string(job.targets) + " words " +
                         std::to_string(job.words) + " stride " + std::to_string(job.stride) +
                         (job.planes != nullptr ? " apart" : ""));
            constexpr std::uint32_t untouched = 0x5EC7E7u;
            std::vector<std::uint32_t> eq(2 * plane_words, untouched), lt(2 * plane_words, untouched);
            std::vector<std::uint32_t> want_eq(2 * plane_words, untouched), want_lt(2 * plane_words, untouched);
            kernels.compare_planes(&job, eq.data(), lt.data());
            reference_compare(job, want_eq.data(), want_lt.data());
            for (std::uint32_t t = 0; t < 2; ++t) {
                for (std::uint32_t c = 0; c < plane_words; ++c) {
                    const std::uint32_t at = t * static_cast<std::uint32_t>(plane_words) + c;
                    const bool written = t < job.targets && c < job.words;
                    ASSERT_EQ(eq[at], written ? want_eq[at] : untouched) << "eq target " << t << " word " << c;
                    ASSERT_EQ(lt[at], written && job.need_lt ? want_lt[at] : untouched)
                        << "lt target " << t << " word " << c;
                }
            }
        }
    }
}

// A range's answer written straight by the kernel (compare_job::range_into: two targets, lower
// bound first): (~lt0 & (lt1 | eq1)) ^ flip from the reference's eq and lt, words [0, words)
// of range_into only, eq and lt untouched, and its bits counted where range_count asks;
// planar, interleaved and apart jobs, every finish, bounds sharing top bits or not.
TEST(ScanKernels, ComparePlanesRangeIntoMatchesReferenceOnEveryPath) {
    BITPLANE_SEED_TRACE();
    const path_guard guard;
    const int rounds = quick_mode() ? 150 : 1000;
    for (const simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        const auto& kernels = bitplane::detail::active_kernels();
        std::mt19937_64 rng(case_seed("compare-planes-range-into", static_cast<std::uint64_t>(path)));
        for (int round = 0; round < rounds; ++round) {
            kernel_case kc = random_kernel_case(rng, static_cast<kernel_layout>(round % 3));
            auto& job = kc.job;
            if (job.targets != 2) {  // a range: both bounds
                job.targets = 2;
                job.steps[1] = job.steps[0];
                job.bits[1] = job.bits[0] ^ static_cast<std::uint32_t>(rng());
                if (job.steps[1] < 32) job.bits[1] &= (1u << job.steps[1]) - 1u;
                job.finish[1] = static_cast<std::uint8_t>(rng() % 3);
            }
            if (round % 5 < 2) {
                // Bounds that agree on their top planes (a narrow range), which the kernel
                // steps once for both: the first `same` planes read (up to both step counts).
                const std::uint32_t most = std::min(job.steps[0], job.steps[1]);
                const auto same = static_cast<std::uint32_t>(rng() % (most + 1));
                const std::uint32_t top = same == 32 ? ~0u : (1u << same) - 1u;
                job.bits[1] = (job.bits[0] & top) | (job.bits[1] & ~top);
            }
            job.need_lt = true;
            const std::uint32_t flip = rng() % 2 == 0 ? 0u : ~0u;
            SCOPED_TRACE("round " + std::to_string(round) + " words " + std::to_string(job.words) + " stride " +
                         std::to_string(job.stride) + " flip " + std::to_string(flip) +
                         (job.planes != nullptr ? " apart" : ""));
            constexpr std::uint32_t untouched = 0x5EC7E7u;
            std::vector<std::uint32_t> eq(2 * plane_words, untouched), lt(2 * plane_words, untouched);
            std::vector<std::uint32_t> out(plane_words, untouched);
            job.range_into = out.data();
            job.range_flip = flip;
            // Every other round the kernel counts the answer's bits too (range_count).
            constexpr std::uint32_t not_counted = 0xC0FFEEu;
            std::uint32_t counted = not_counted;
            if (round % 4 >= 2) job.range_count = &counted;
            kernels.compare_planes(&job, eq.data(), lt.data());
            std::vector<std::uint32_t> want_eq(2 * plane_words), want_lt(2 * plane_words);
            reference_compare(job, want_eq.data(), want_lt.data());
            std::uint32_t want_count = 0;
            for (std::uint32_t c = 0; c < plane_words; ++c) {
                const std::uint32_t want =
                    c < job.words ? (~want_lt[c] & (want_lt[plane_words + c] | want_eq[plane_words + c])) ^ flip
                                  : untouched;
                if (c < job.words) want_count += static_cast<std::uint32_t>(std::popcount(want));
                ASSERT_EQ(out[c], want) << "word " << c;
                ASSERT_EQ(eq[c], untouched) << "eq word " << c;
                ASSERT_EQ(eq[plane_words + c], untouched) << "eq word " << c;
                ASSERT_EQ(lt[c], untouched) << "lt word " << c;
                ASSERT_EQ(lt[plane_words + c], untouched) << "lt word " << c;
            }
            ASSERT_EQ(counted, job.range_count != nullptr ? want_count : not_counted) << "range_count";
        }
    }
}

// The test_values kernel (where a path has one) and its portable loop against values decoded
// one at a time and compared: plain values and delta residuals (running sums that wrap around
// 2^32), every count of a block's tail around word edges, intervals that wrap, negation.
// An equality that reads every plane of an interleaved payload once, in any order (the AVX2
// kernel folds such rows without a transpose: compare_interleaved_equal), at every width.
TEST(ScanKernels, InterleavedEqualityOverEveryPlaneOnEveryPath) {
    BITPLANE_SEED_TRACE();
    const path_guard guard;
    const int rounds = quick_mode() ? 100 : 600;
    for (const simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        const auto& kernels = bitplane::detail::active_kernels();
        std::mt19937_64 rng(case_seed("interleaved-equality", static_cast<std::uint64_t>(path)));
        for (int round = 0; round < rounds; ++round) {
            kernel_case kc = random_kernel_case(rng, kernel_layout::interleaved);
            auto& job = kc.job;
            const std::uint32_t stored = job.stride / 4;
            job.targets = 1;
            job.need_lt = false;
            job.steps[0] = stored;
            job.finish[0] = bitplane::detail::compare_job::finish_none;
            job.bits[0] = static_cast<std::uint32_t>(rng()) & (stored == 32 ? ~0u : (1u << stored) - 1u);
            // Every third round the planes are read from the top down, as the scans read them
            // (the kernel's loops for that order, kernels_scan.hpp).
            if (round % 3 == 0)
                for (std::uint32_t k = 0; k < stored; ++k) job.offset[k] = 4 * (stored - 1 - k);
            if (round % 4 == 0 || round % 4 == 2) {
                // A target equal to column 0's first value somewhere: some positions stay equal.
                std::uint32_t bits = 0;
                for (std::uint32_t k = 0; k < stored; ++k) bits |= std::uint32_t{job_bit(job, k, 0, 0)} << k;
                job.bits[0] = bits;
                if (round % 4 == 2) {
                    // ... but for its top rank: equal on the bottom 16 planes, so a fold of 24
                    // planes or more that settles column groups on those goes on to the rest.
                    for (std::uint32_t k = 0; k < stored; ++k)
                        if (job.offset[k] == 4 * (stored - 1)) job.bits[0] ^= 1u << k;
                }
            }
            SCOPED_TRACE("round " + std::to_string(round) + " planes " + std::to_string(stored) + " words " +
                         std::to_string(job.words));
            constexpr std::uint32_t untouched = 0x5EC7E7u;
            std::vector<std::uint32_t> eq(2 * plane_words, untouched), lt(2 * plane_words, untouched);
            std::vector<std::uint32_t> want_eq(2 * plane_words, untouched), want_lt(2 * plane_words, untouched);
            kernels.compare_planes(&job, eq.data(), lt.data());
            reference_compare(job, want_eq.data(), want_lt.data());
            bool some_equal = false;
            for (std::uint32_t c = 0; c < plane_words; ++c) {
                ASSERT_EQ(eq[c], c < job.words ? want_eq[c] : untouched) << "eq word " << c;
                ASSERT_EQ(lt[c], untouched) << "lt word " << c;
                ASSERT_EQ(eq[plane_words + c], untouched) << "second target, word " << c;
                some_equal |= c < job.words && eq[c] != 0;
            }
            if (round % 4 == 0) {
                ASSERT_TRUE(some_equal) << "column 0's first value is equal to itself";
            }
        }
    }
}

// The optional equal_interleaved kernel (where a path has one) against the definition, word by
// word: every plane count 0..32, payloads at odd addresses that end where the buffer ends,
// targets taken from a position (some residuals equal), from the first and last positions,
// random ones (usually none) and, for
// few planes, every target; the popcount it returns against the words it wrote.
TEST(ScanKernels, EqualInterleavedMatchesReferenceOnEveryPath) {
    BITPLANE_SEED_TRACE();
    const path_guard guard;
    const int rounds = quick_mode() ? 2 : 6;
    bool ran = false;
    for (const simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        const auto& kernels = bitplane::detail::active_kernels();
        if (kernels.equal_interleaved == nullptr) continue;
        ran = true;
        std::mt19937_64 rng(case_seed("equal-interleaved", static_cast<std::uint64_t>(path)));
        for (std::uint32_t stored = 0; stored <= 32; ++stored) {
            for (int round = 0; round < rounds; ++round) {
                // Planes of every density; the low planes near-constant in some rounds, so that
                // many columns stay equal through the first registers of a row.
                std::vector<std::uint32_t> words(std::size_t{stored} * plane_words);
                for (std::uint32_t p = 0; p < stored; ++p) {
                    const unsigned density = static_cast<unsigned>((rng() + round) % 4);
                    for (std::uint32_t c = 0; c < plane_words; ++c) {
                        std::uint32_t w = static_cast<std::uint32_t>(rng());
                        if (density == 0) w &= static_cast<std::uint32_t>(rng()) & static_cast<std::uint32_t>(rng());
                        if (density == 1) w |= static_cast<std::uint32_t>(rng()) | static_cast<std::uint32_t>(rng());
                        if (density == 3) w = rng() % 8 == 0 ? w : (p % 2 == 0 ? 0u : ~0u);
                        words[std::size_t{p} * plane_words + c] = w;
                    }
                }
                const std::uint32_t lead = 1 + static_cast<std::uint32_t>(rng() % 7);
                std::vector<std::uint8_t> storage(lead + std::size_t{stored} * plane_words * 4);
                for (std::uint32_t c = 0; c < plane_words; ++c)
                    for (std::uint32_t p = 0; p < stored; ++p)
                        std::memcpy(storage.data() + lead + (std::size_t{c} * stored + p) * 4,
                                    &words[std::size_t{p} * plane_words + c], 4);
                const std::uint8_t* payload = storage.data() + lead;
                const auto bit_of = [&](std::uint32_t p, std::uint32_t position) {
                    return (words[std::size_t{p} * plane_words + position / 32] >> (position % 32)) & 1u;
                };
                std::vector<std::uint32_t> targets;
                const auto from = static_cast<std::uint32_t>(rng() % block_values);
                std::uint32_t at_position = 0;
                for (std::uint32_t p = 0; p < stored; ++p) at_position |= bit_of(p, from) << p;
                targets.push_back(at_position);
                // The first and last positions' values (the first and last column of the payload).
                for (const std::uint32_t edge : {0u, static_cast<std::uint32_t>(block_values - 1)}) {
                    std::uint32_t at_edge = 0;
                    for (std::uint32_t p = 0; p < stored; ++p) at_edge |= bit_of(p, edge) << p;
                    targets.push_back(at_edge);
                }
                targets.push_back(static_cast<std::uint32_t>(rng()) & (stored == 32 ? ~0u : (1u << stored) - 1u));
                if (stored <= 3)
                    for (std::uint32_t t = 0; t < (1u << stored); ++t) targets.push_back(t);
                for (const std::uint32_t bits : targets) {
                    SCOPED_TRACE("planes " + std::to_string(stored) + " round " + std::to_string(round) + " target " +
                                 std::to_string(bits));
                    std::vector<std::uint32_t> eq(plane_words, 0x5EC7E7u);
                    const std::uint32_t n = kernels.equal_interleaved(payload, stored, bits, eq.data());
                    std::uint32_t set = 0;
                    for (std::uint32_t c = 0; c < plane_words; ++c) {
                        std::uint32_t want = 0;
                        for (std::uint32_t i = 0; i < 32; ++i) {
                            bool equal = true;
                            for (std::uint32_t p = 0; p < stored && equal; ++p)
                                equal = bit_of(p, 32 * c + i) == ((bits >> p) & 1u);
                            want |= static_cast<std::uint32_t>(equal) << i;
                        }
                        ASSERT_EQ(eq[c], want) << "word " << c;
                        set += static_cast<std::uint32_t>(std::popcount(want));
                    }
                    ASSERT_EQ(n, set);
                    if (bits == at_position) {
                        ASSERT_GT(n, 0u) << "the value at position " << from << " is equal to itself";
                    }
                    if (bits == targets[1]) {
                        ASSERT_NE(eq[0] & 1u, 0u) << "position 0 is equal to itself";
                    }
                    if (bits == targets[2]) {
                        ASSERT_NE(eq[plane_words - 1] >> 31, 0u) << "position 2047 likewise";
                    }
                }
            }
        }
    }
    const std::vector<simd_path> swept = bitplane_test::paths_to_sweep();
    if (std::find(swept.begin(), swept.end(), simd_path::avx2) != swept.end()) {
        EXPECT_TRUE(ran) << "the AVX2 path has an equal_interleaved kernel";
    }
}

// The equal_interleaved kernel at its early exits (rows of more than 16 planes settle on their
// bottom 16 first; fixed-stride folds of 5-7 and 9-32 planes on AVX2), every plane count 1..32,
// from the block's values: the target present in no row, in one (the last column's last bit,
// or the first), in some, and in every row; near misses that agree with the target on every
// plane but one (the top plane, the last of the first 16, the first after them), placed in the
// last row; a block where every value agrees with the target on its bottom 16 planes (no group
// exits early) and only some on the rest. Words and the count against a plain loop.
TEST(ScanKernels, EqualInterleavedEarlyExitBoundariesOnEveryPath) {
    BITPLANE_SEED_TRACE();
    const path_guard guard;
    for (const simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        const auto& kernels = bitplane::detail::active_kernels();
        if (kernels.equal_interleaved == nullptr) continue;
        std::mt19937_64 rng(case_seed("equal-interleaved-exits", static_cast<std::uint64_t>(path)));
        for (std::uint32_t stored = 1; stored <= 32; ++stored) {
            const std::uint32_t mask = stored == 32 ? ~0u : (1u << stored) - 1u;
            const std::uint32_t top = 1u << (stored - 1);
            const std::uint32_t target = static_cast<std::uint32_t>(rng()) & mask;
            // Flips that make a near miss: one plane each (top, rank 15, rank 16 where they exist).
            std::vector<std::uint32_t> flips = {top};
            if (stored > 15) flips.push_back(1u << 15);
            if (stored > 16) flips.push_back(1u << 16);
            for (int scenario = 0; scenario < 7; ++scenario) {
                std::vector<std::uint32_t> values(block_values);
                for (auto& x : values) {
                    x = static_cast<std::uint32_t>(rng()) & mask;
                    if (x == target) x ^= top;
                }
                const std::uint32_t last = block_values - 1;
                switch (scenario) {
                    case 0:  // none: near misses only, one in the last bit
                        for (std::uint32_t i = 0; i < 64; ++i) values[rng() % block_values] = target ^ flips[i % flips.size()];
                        values[last] = target ^ flips.back();
                        break;
                    case 1:  // one, in the last column's last bit; near misses before it in that row
                        for (std::uint32_t i = 0; i < flips.size(); ++i) values[last - 1 - i] = target ^ flips[i];
                        values[last] = target;
                        break;
                    case 2:  // one, at position 0; a near miss in the last bit
                        values[0] = target;
                        values[last] = target ^ top;
                        break;
                    case 3:  // some: random positions, and the whole last row
                        for (std::uint32_t i = 0; i < 100; ++i) values[rng() % block_values] = target;
                        for (std::uint32_t i = last - 31; i <= last; ++i) values[i] = target;
                        break;
                    case 4:  // all
                        for (auto& x : values) x = target;
                        break;
                    case 5:  // all but the last bit, which misses by its top plane
                        for (auto& x : values) x = target;
                        values[last] = target ^ top;
                        break;
                    default:  // every value agrees on the bottom 16 planes; some on all
                        for (auto& x : values) {
                            x = (x & ~0xFFFFu) | (target & 0xFFFFu);
                            if (rng() % 8 == 0) x = target;
                        }
                        values[last] = stored > 16 ? target ^ top : target;
                        break;
                }
                // The payload: row c holds word c of each plane, rank 0 first (block_layout.hpp).
                std::vector<std::uint8_t> payload(std::size_t{stored} * plane_words * 4);
                for (std::uint32_t c = 0; c < plane_words; ++c)
                    for (std::uint32_t p = 0; p < stored; ++p) {
                        std::uint32_t w = 0;
                        for (std::uint32_t i = 0; i < 32; ++i) w |= ((values[32 * c + i] >> p) & 1u) << i;
                        std::memcpy(payload.data() + (std::size_t{c} * stored + p) * 4, &w, 4);
                    }
                SCOPED_TRACE("planes " + std::to_string(stored) + " scenario " + std::to_string(scenario));
                std::vector<std::uint32_t> eq(plane_words, 0x5EC7E7u);
                const std::uint32_t n = kernels.equal_interleaved(payload.data(), stored, target, eq.data());
                std::uint32_t count = 0;
                for (std::uint32_t c = 0; c < plane_words; ++c) {
                    std::uint32_t want = 0;
                    for (std::uint32_t i = 0; i < 32; ++i) want |= static_cast<std::uint32_t>(values[32 * c + i] == target) << i;
                    ASSERT_EQ(eq[c], want) << "word " << c;
                    count += static_cast<std::uint32_t>(std::popcount(want));
                }
                ASSERT_EQ(n, count);
                if (scenario == 0) {
                    ASSERT_EQ(n, 0u);
                }
                if (scenario == 1) {
                    ASSERT_EQ(n, 1u);
                }
                if (scenario == 4) {
                    ASSERT_EQ(n, static_cast<std::uint32_t>(block_values));
                }
            }
        }
    }
}

// The optional narrow_planes kernel (where a path has one) against the definition, word by
// word: 0..32 planes at odd addresses (a plane's 256 bytes ending where the buffer ends),
// flips of 0 and ~0, eq fresh or given (dense, sparse, empty), planes of every density, and
// planes equal to or the complement of one another (eq emptied in one word, or everywhere).
// narrow_planes_count (where a path has it) the same, and its count against eq's popcount.
TEST(ScanKernels, NarrowPlanesMatchesReferenceOnEveryPath) {
    BITPLANE_SEED_TRACE();
    const path_guard guard;
    const int rounds = quick_mode() ? 20 : 80;
    bool ran = false;
    bool count_ran = false;
    for (const simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        const auto& kernels = bitplane::detail::active_kernels();
        if (kernels.narrow_planes == nullptr) continue;
        ran = true;
        count_ran = count_ran || kernels.narrow_planes_count != nullptr;
        std::mt19937_64 rng(case_seed("narrow-planes", static_cast<std::uint64_t>(path)));
        const auto word_of = [&rng](unsigned density) {
            std::uint32_t w = static_cast<std::uint32_t>(rng());
            if (density == 0) w &= static_cast<std::uint32_t>(rng()) & static_cast<std::uint32_t>(rng());
            if (density == 1) w |= static_cast<std::uint32_t>(rng()) | static_cast<std::uint32_t>(rng());
            if (density == 3) w = rng() % 2 == 0 ? 0u : ~0u;
            return w;
        };
        for (int round = 0; round < rounds; ++round) {
            const auto count = static_cast<std::uint32_t>(rng() % 33);
            std::vector<std::vector<std::uint8_t>> storage(count);
            std::vector<const std::uint8_t*> planes(count);
            std::vector<std::uint32_t> flips(count);
            std::vector<std::vector<std::uint32_t>> words(count, std::vector<std::uint32_t>(plane_words));
            for (std::uint32_t k = 0; k < count; ++k) {
                const unsigned density = static_cast<unsigned>(rng() % 4);
                for (std::uint32_t w = 0; w < plane_words; ++w) words[k][w] = word_of(density);
                if (k > 0 && rng() % 4 == 0) {  // a copy or the complement of the previous plane
                    words[k] = words[k - 1];
                    if (rng() % 2 == 0)
                        for (auto& w : words[k]) w = ~w;
                }
                flips[k] = rng() % 2 == 0 ? 0u : ~0u;
                const std::size_t lead = 1 + rng() % 7;
                storage[k].resize(lead + 4 * std::size_t{plane_words});
                std::memcpy(storage[k].data() + lead, words[k].data(), 4 * std::size_t{plane_words});
                planes[k] = storage[k].data() + lead;
            }
            const bool fresh = rng() % 2 == 0;
            std::vector<std::uint32_t> eq(plane_words);
            const unsigned eq_density = static_cast<unsigned>(rng() % 5);
            for (auto& w : eq) w = eq_density == 4 ? 0u : word_of(eq_density);
            std::vector<std::uint32_t> want(plane_words);
            bool any = false;
            std::uint32_t ones = 0;
            for (std::uint32_t w = 0; w < plane_words; ++w) {
                std::uint32_t x = fresh ? ~0u : eq[w];
                for (std::uint32_t k = 0; k < count; ++k) x &= words[k][w] ^ flips[k];
                want[w] = x;
                any = any || x != 0;
                ones += static_cast<std::uint32_t>(std::popcount(x));
            }
            SCOPED_TRACE("round " + std::to_string(round) + " planes " + std::to_string(count) +
                         (fresh ? " fresh" : " given"));
            if (kernels.narrow_planes_count != nullptr) {
                std::vector<std::uint32_t> counted_eq = eq;
                const std::uint32_t n =
                    kernels.narrow_planes_count(counted_eq.data(), planes.data(), flips.data(), count, fresh);
                ASSERT_EQ(counted_eq, want) << "narrow_planes_count's eq";
                ASSERT_EQ(n, ones) << "narrow_planes_count";
            }
            const bool got = kernels.narrow_planes(eq.data(), planes.data(), flips.data(), count, fresh);
            for (std::uint32_t w = 0; w < plane_words; ++w) ASSERT_EQ(eq[w], want[w]) << "word " << w;
            ASSERT_EQ(got, any);
        }
        // One bit left in eq, in every word (and so every lane of every register), kept or
        // cleared by one plane: whether any bit is left must not depend on where it is.
        std::vector<std::uint8_t> one(4 * std::size_t{plane_words} + 1);
        for (std::uint32_t w = 0; w < plane_words; ++w) {
            for (const std::uint32_t flip : {0u, ~0u}) {
                const std::uint32_t bit = 1u << (rng() % 32);
                std::vector<std::uint32_t> words(plane_words, 0u);
                words[w] = bit;
                std::memcpy(one.data() + 1, words.data(), 4 * std::size_t{plane_words});
                const std::uint8_t* plane_bytes = one.data() + 1;
                std::vector<std::uint32_t> eq(plane_words, 0u);
                eq[w] = bit;
                if (kernels.narrow_planes_count != nullptr) {
                    std::vector<std::uint32_t> counted_eq = eq;
                    const std::uint32_t n = kernels.narrow_planes_count(counted_eq.data(), &plane_bytes, &flip, 1, false);
                    ASSERT_EQ(n, flip == 0u ? 1u : 0u) << "narrow_planes_count, word " << w;
                }
                const bool got = kernels.narrow_planes(eq.data(), &plane_bytes, &flip, 1, false);
                ASSERT_EQ(got, flip == 0u) << "word " << w;
                ASSERT_EQ(eq[w], flip == 0u ? bit : 0u) << "word " << w;
            }
        }
    }
    const std::vector<simd_path> swept = bitplane_test::paths_to_sweep();
    if (std::find(swept.begin(), swept.end(), simd_path::avx2) != swept.end()) {
        EXPECT_TRUE(ran) << "the AVX2 path has a narrow_planes kernel";
        EXPECT_TRUE(count_ran) << "the AVX2 path has a narrow_planes_count kernel";
    }
}

// The optional pack_marks and pack_marks_count kernels (where a path has them) against the
// definition: bit i of word w is (marks[32 w + i] != 0) ^ flip, ANDed into out unless fresh;
// pack_marks answers whether any bit of out[0, words) is set, pack_marks_count how many.
// Word counts odd and even (a last word alone), marks of every density, out dense or empty.
TEST(ScanKernels, PackMarksMatchesReferenceOnEveryPath) {
    BITPLANE_SEED_TRACE();
    const path_guard guard;
    const int rounds = quick_mode() ? 40 : 160;
    bool ran = false;
    for (const simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        const auto& kernels = bitplane::detail::active_kernels();
        if (kernels.pack_marks == nullptr && kernels.pack_marks_count == nullptr) continue;
        ran = ran || kernels.pack_marks_count != nullptr;
        std::mt19937_64 rng(case_seed("pack-marks", static_cast<std::uint64_t>(path)));
        for (int round = 0; round < rounds; ++round) {
            // The first rounds: a whole plane and a single word; then any count.
            std::uint32_t words = round % 2 == 0 ? plane_words : 1u;
            if (round >= 4) words = 1 + static_cast<std::uint32_t>(rng() % plane_words);
            const unsigned density = static_cast<unsigned>(rng() % 5);  // none, 1/64, 1/2, all but 1/64, all
            std::vector<std::uint8_t> marks(32 * std::size_t{words} + 1);
            for (std::size_t i = 0; i + 1 < marks.size(); ++i) {
                bool on = false;
                if (density == 1) on = rng() % 64 == 0;
                if (density == 2) on = rng() % 2 == 0;
                if (density == 3) on = rng() % 64 != 0;
                if (density == 4) on = true;
                marks[i] = on ? std::uint8_t{0x80} : std::uint8_t{0};
            }
            const std::uint32_t flip = rng() % 2 == 0 ? 0u : ~0u;
            const bool fresh = rng() % 2 == 0;
            std::vector<std::uint32_t> out(plane_words);
            const unsigned out_density = static_cast<unsigned>(rng() % 3);
            for (auto& w : out)
                w = out_density == 0 ? 0u : out_density == 1 ? ~0u : static_cast<std::uint32_t>(rng());
            std::vector<std::uint32_t> want = out;
            std::uint32_t ones = 0;
            for (std::uint32_t w = 0; w < words; ++w) {
                std::uint32_t x = 0;
                for (std::uint32_t i = 0; i < 32; ++i) x |= (marks[32 * w + i] != 0 ? 1u : 0u) << i;
                x ^= flip;
                if (!fresh) x &= out[w];
                want[w] = x;
                ones += static_cast<std::uint32_t>(std::popcount(x));
            }
            SCOPED_TRACE("round " + std::to_string(round) + " words " + std::to_string(words) +
                         (fresh ? " fresh" : " given"));
            if (kernels.pack_marks != nullptr) {
                std::vector<std::uint32_t> got_out = out;
                const bool any = kernels.pack_marks(marks.data(), got_out.data(), words, flip, fresh);
                ASSERT_EQ(got_out, want) << "pack_marks";
                ASSERT_EQ(any, ones != 0) << "pack_marks";
            }
            if (kernels.pack_marks_count != nullptr) {
                std::vector<std::uint32_t> got_out = out;
                const std::uint32_t n = kernels.pack_marks_count(marks.data(), got_out.data(), words, flip, fresh);
                ASSERT_EQ(got_out, want) << "pack_marks_count";
                ASSERT_EQ(n, ones) << "pack_marks_count";
            }
        }
    }
    const std::vector<simd_path> swept = bitplane_test::paths_to_sweep();
    if (std::find(swept.begin(), swept.end(), simd_path::avx2) != swept.end()) {
        EXPECT_TRUE(ran) << "the AVX2 path has a pack_marks_count kernel";
    }
}

TEST(ScanKernels, TestValuesMatchesReferenceOnEveryPath) {
    BITPLANE_SEED_TRACE();
    const path_guard guard;
    const int rounds = quick_mode() ? 60 : 400;
    const std::size_t counts[] = {0, 1, 7, 8, 31, 32, 33, 63, 64, 65, 1000, 2016, 2047, 2048};
    for (const simd_path path : bitplane_test::paths_to_sweep()) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        const auto& kernels = bitplane::detail::active_kernels();
        std::mt19937_64 rng(case_seed("test-values", static_cast<std::uint64_t>(path)));
        for (int round = 0; round < rounds; ++round) {
            const std::size_t count = counts[static_cast<std::size_t>(round) % std::size(counts)];
            bitplane::detail::value_test t;
            t.delta = round % 2 == 1;
            t.first = static_cast<std::uint32_t>(rng());
            t.step = round % 4 == 1 ? static_cast<std::uint32_t>(rng()) : static_cast<std::uint32_t>(rng() % 7) - 3u;
            t.bias = round % 3 == 0 ? 0x80000000u : 0u;
            t.flip = round % 5 == 0 ? ~0u : 0u;
            const std::uint32_t range = round % 3 == 2 ? ~0u : 1000u;
            std::vector<std::uint32_t> values(count);
            for (auto& v : values) v = static_cast<std::uint32_t>(rng()) % (range == ~0u ? ~0u : range);
            // An interval around a value that occurs, of a random width (wrapping when wide).
            std::uint32_t decoded = 0;
            std::vector<std::uint32_t> plain(count);
            for (std::size_t i = 0; i < count; ++i) {
                decoded = !t.delta ? values[i] : i == 0 ? t.first + values[0] : decoded + values[i] + t.step;
                plain[i] = decoded;
            }
            const std::uint32_t probe = count != 0 ? plain[rng() % count] : 0u;
            t.span = round % 7 == 0 ? 0u : static_cast<std::uint32_t>(rng()) >> (rng() % 32);
            t.start = (probe ^ t.bias) - static_cast<std::uint32_t>(rng() % (std::uint64_t{t.span} + 1));
            SCOPED_TRACE("round " + std::to_string(round) + " count " + std::to_string(count) +
                         (t.delta ? " delta" : " plain"));
            plane want{};
            for (std::size_t i = 0; i < count; ++i) {
                const bool pass = ((plain[i] ^ t.bias) - t.start <= t.span) != (t.flip != 0);
                if (pass) want[i / 32] |= 1u << (i % 32);
            }
            plane got;
            got.fill(0xA5A5A5A5u);
            bitplane::detail::test_values_portable(values.data(), count, &t, got.data());
            ASSERT_EQ(got, want) << "portable";
            if (kernels.test_values != nullptr) {
                got.fill(0xA5A5A5A5u);
                kernels.test_values(values.data(), count, &t, got.data());
                ASSERT_EQ(got, want) << "kernel";
            }
        }
    }
}

// ---- every shape, size and path ---------------------------------------------------------------

TEST(Scan, EveryShapeAndSizeUint32OnEveryPath) {
    BITPLANE_SEED_TRACE();
    const path_guard guard;
    const std::vector<simd_path> paths = bitplane_test::paths_to_sweep();  // best last
    for (const simd_path path : paths) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        check_every_shape<std::uint32_t>(path == paths.back());
        if (HasFatalFailure()) return;
    }
}

TEST(Scan, EveryShapeAndSizeInt32OnEveryPath) {
    BITPLANE_SEED_TRACE();
    const path_guard guard;
    const std::vector<simd_path> paths = bitplane_test::paths_to_sweep();  // best last
    for (const simd_path path : paths) {
        SCOPED_TRACE(std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        check_every_shape<std::int32_t>(path == paths.back());
        if (HasFatalFailure()) return;
    }
}

template <class T>
void check_large(std::size_t threads) {
    const threads_guard guard(threads);
    const std::size_t n = 70 * block_values + 777;  // more than 2 x 32 blocks: split over the threads
    for (const shape& s : representative_shapes()) {
        SCOPED_TRACE(case_name(s, n, "threads " + std::to_string(threads)));
        const std::vector<T> values = make_typed<T>(s, n, case_seed("scan-large", s.id(), n));
        const bitplane::vector<T> v = make_vector(values);
        check_vector(v, values, case_seed("scan-large-probes", s.id()), 2, 6, false, quick_mode() ? 12 : 6);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(Scan, LargeVectorsOneAndTwoThreads) {
    BITPLANE_SEED_TRACE();
    for (const std::size_t threads : {std::size_t{1}, std::size_t{2}}) {
        check_large<std::uint32_t>(threads);
        if (HasFatalFailure()) return;
        check_large<std::int32_t>(threads);
        if (HasFatalFailure()) return;
    }
}

// ---- write-back blocks and tails --------------------------------------------------------------

template <class T>
void check_pending_writes() {
    const std::size_t n = 5 * block_values + 1234;
    for (const shape& s : representative_shapes()) {
        SCOPED_TRACE(case_name(s, n));
        std::vector<T> values = make_typed<T>(s, n, case_seed("scan-writeback", s.id()));
        bitplane::vector<T> v = make_vector(values);
        std::mt19937_64 rng(case_seed("scan-writeback-sets", s.id()));
        const auto put = [&](std::size_t i, T x) {
            v.set(i, x);
            values[i] = x;
        };
        // Writes to block 1 (then flushed by a write to block 3, which stays pending) and to the tail.
        put(block_values + 7, std::numeric_limits<T>::max());
        put(3 * block_values + 1, std::numeric_limits<T>::min());
        put(3 * block_values + 2047, values[3]);
        put(3 * block_values + 100, T(0));
        put(n - 1, T(1));
        put(n - 600, values[block_values + 7]);
        for (int k = 0; k < 20; ++k) put(3 * block_values + rng() % block_values, values[rng() % n]);
        check_vector(v, values, case_seed("scan-writeback-probes", s.id()), 3, 8);
        if (::testing::Test::HasFatalFailure()) return;
        v.seal();
        check_vector(v, values, case_seed("scan-writeback-probes", s.id()), 3, 8);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(Scan, PendingWriteBackBlockAndTail) {
    BITPLANE_SEED_TRACE();
    check_pending_writes<std::uint32_t>();
    if (HasFatalFailure()) return;
    check_pending_writes<std::int32_t>();
}

// Sorted columns: delta blocks answered whole from their bounds. Probes at each block's first
// and last value and next to them, so that an off-by-one in the bounds shows.
template <class T>
void check_sorted_block_edges() {
    const std::size_t n = 6 * block_values + 300;
    for (const shape& s : {of(shape_kind::timestamps), of(shape_kind::sorted_steps)}) {
        SCOPED_TRACE(case_name(s, n));
        const std::vector<T> values = make_typed<T>(s, n, case_seed("scan-sorted-edges", s.id()));
        const bitplane::vector<T> v = make_vector(values);
        for (std::size_t first = 0; first < n; first += block_values) {
            const std::size_t last = std::min(n, first + block_values) - 1;
            const T lo = values[first];
            const T hi = values[last];
            const T below = static_cast<T>(lo - 1), above = static_cast<T>(hi + 1);
            const T lo1 = static_cast<T>(lo + 1), hi1 = static_cast<T>(hi - 1);
            SCOPED_TRACE("block at " + std::to_string(first));
            const std::vector<std::pair<T, T>> pairs = {{lo, hi},       {lo, hi1},       {lo1, hi},
                                                        {below, hi1},   {lo1, above},    {above, above},
                                                        {below, below}, {lo, lo},        {hi, hi}};
            for (const auto& [a, b] : pairs)
                check_probe(v, values, op::range, a, b, true);
            for (const T x : {below, lo, lo1, hi1, hi, above})
                for (const op o : single_ops) check_probe(v, values, o, x, x, true);
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
}

TEST(Scan, SortedBlockEdges) {
    BITPLANE_SEED_TRACE();
    check_sorted_block_edges<std::uint32_t>();
    if (HasFatalFailure()) return;
    check_sorted_block_edges<std::int32_t>();
}

// Repeated blocks (runs columns): blocks with identical bytes share a block table entry, and
// the scans take a repeated block's answer from the block before it (src/ops/scan.cpp). Runs of
// a non-constant block, two blocks alternating, constant runs, fresh blocks, a partial tail
// that repeats the last block, and a pending write-back block inside a run of repeats (its
// stale entry must not be reused, nor reused by the block after it); thread counts 1 and 2
// (a task's first block never reuses); every SIMD path.
template <class T>
void check_repeated_blocks(std::size_t threads, simd_path path) {
    const threads_guard guard(threads);
    bitplane::set_simd_path(path);
    const std::vector<shape> shapes = representative_shapes();
    std::mt19937_64 rng(case_seed("scan-repeated", threads));
    for (int round = 0; round < 3; ++round) {
        std::vector<T> values;
        const auto block_of = [&](std::uint64_t s) {
            return make_typed<T>(shapes[s % shapes.size()], block_values, splitmix64(s));
        };
        while (values.size() < 80 * block_values) {
            const std::size_t run = 1 + rng() % 40;
            const std::vector<T> a = block_of(rng());
            const std::vector<T> b = block_of(rng());
            const std::uint64_t kind = rng() % 5;  // 0, 4: a repeated; 1: a, b alternating; 2: constant; 3: fresh
            const auto constant = static_cast<T>(rng() % 3);
            for (std::size_t k = 0; k < run; ++k) {
                if (kind == 2) {
                    values.insert(values.end(), block_values, constant);
                    continue;
                }
                const std::vector<T>& x = kind == 1 && k % 2 == 1 ? b : kind == 3 ? block_of(rng()) : a;
                values.insert(values.end(), x.begin(), x.end());
            }
        }
        const std::size_t tail = round == 0 ? 0 : 1 + rng() % (block_values - 1);
        for (std::size_t i = 0; i < tail; ++i) values.push_back(values[values.size() - block_values]);
        SCOPED_TRACE("round " + std::to_string(round) + ", " + std::to_string(values.size()) + " values");
        bitplane::vector<T> v = make_vector(values);
        std::size_t repeats = 0;
        for (std::size_t b = 1; b < v.core().sealed_block_count(); ++b) repeats += v.core().same_as_previous(b) ? 1 : 0;
        ASSERT_GT(repeats, 10u) << "too few repeated blocks: the reuse is not covered";
        check_vector(v, values, case_seed("scan-repeated-probes", round, threads), 3, 6, false, 2);
        if (::testing::Test::HasFatalFailure()) return;
        // A write into a block inside a run of repeats stays pending in the write-back block.
        std::size_t target = 1;
        while (target + 1 < v.core().sealed_block_count() &&
               !(v.core().same_as_previous(target) && v.core().same_as_previous(target + 1)))
            ++target;
        const std::size_t at = target * block_values + rng() % block_values;
        const T x = values[at] == T(7) ? T(8) : T(7);
        v.set(at, x);
        values[at] = x;
        SCOPED_TRACE("write at " + std::to_string(at));
        check_probe(v, values, op::eq, x, x, false);
        check_probe(v, values, op::eq, values[at + 1 < values.size() ? at + 1 : 0], values[at + 1 < values.size() ? at + 1 : 0], false);
        check_probe(v, values, op::range, T(0), T(7), false);
        check_vector(v, values, case_seed("scan-repeated-probes-pending", round, threads), 2, 3, false, 3);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(Scan, RepeatedBlocksOnEveryPathOneAndTwoThreads) {
    BITPLANE_SEED_TRACE();
    const path_guard guard;
    const std::vector<simd_path> paths = bitplane_test::paths_to_sweep();
    std::size_t turn = 0;
    for (const std::size_t threads : {std::size_t{1}, std::size_t{2}}) {
        check_repeated_blocks<std::uint32_t>(threads, paths[turn++ % paths.size()]);
        if (HasFatalFailure()) return;
        check_repeated_blocks<std::int32_t>(threads, paths[turn++ % paths.size()]);
        if (HasFatalFailure()) return;
    }
}

TEST(Scan, EmptyVector) {
    const bitplane::vector<std::uint32_t> v;
    EXPECT_EQ(bitplane::find_eq(v, 0u).size(), 0u);
    EXPECT_EQ(bitplane::find_ge(v, 0u).count(), 0u);
    EXPECT_EQ(bitplane::find_range(v, 0u, 0xFFFFFFFFu).count(), 0u);
    EXPECT_EQ(bitplane::count_eq(v, 0u), 0u);
    EXPECT_EQ(bitplane::count_range(v, 0u, 0xFFFFFFFFu), 0u);
}

TEST(Scan, ReversedRangeIsEmpty) {
    const std::vector<std::int32_t> values = make_typed<std::int32_t>(uniform(32), 3 * block_values + 3, 7);
    const bitplane::vector<std::int32_t> v = make_vector(values);
    const bitplane::bitset found = bitplane::find_range(v, 5, 4);
    EXPECT_EQ(found.size(), values.size());
    EXPECT_EQ(found.count(), 0u);
    EXPECT_EQ(bitplane::count_range(v, INT32_MAX, INT32_MIN), 0u);
    EXPECT_EQ(bitplane::count_range(v, INT32_MIN, INT32_MAX), values.size());
}

// ---- encoded blocks of every transform and layout ---------------------------------------------

struct encoding {
    const char* name;
    bitplane::codec::encode_options options;
};

std::vector<encoding> encodings() {
    bitplane::codec::encode_options plain;
    plain.frame_of_reference = plain.delta = plain.zigzag = false;
    bitplane::codec::encode_options no_delta;
    no_delta.delta = false;
    bitplane::codec::encode_options no_sparse;
    no_sparse.sparse = false;
    bitplane::codec::encode_options bare;  // plain, dense, no references, no runs
    bare.frame_of_reference = bare.delta = bare.zigzag = bare.sparse = bare.references = bare.runs = false;
    bitplane::codec::encode_options for_only = plain;
    for_only.frame_of_reference = true;
    bitplane::codec::encode_options zigzag_only = plain;
    zigzag_only.zigzag = true;
    std::vector<encoding> out = {{"plain", plain},   {"no-delta", no_delta}, {"no-sparse", no_sparse},
                                 {"bare", bare},     {"for-only", for_only}, {"zigzag-only", zigzag_only}};
    // All but the default the smallest encodings, whose list planes stay lists (the default
    // stores some dense blocks all-raw for reads: raw_for_reads).
    for (encoding& e : out) e.options.raw_for_reads = false;
    out.insert(out.begin(), {"default", {}});
    return out;
}

// What the encoded-block tests covered, so that they cannot silently stop exercising a path.
struct coverage {
    std::set<bitplane::codec::transform> transforms;
    bool sparse = false;
    bool interleaved = false;
    bool interleaved_wide = false;  // 24 planes or more: equalities exit early (scan_block.cpp)
    bool sparse_for = false;
    // Dense blocks compared from their payloads (plain, frame of reference, zigzag; not all
    // raw): base kind x payload kind of their stored planes, short and long lists apart
    // (src/ops/scan_block.cpp applies lists of more than 32 items another way).
    std::set<std::tuple<int, int, bool>> direct_planes;
};

template <class T>
void check_encoded(const std::vector<std::uint32_t>& bits, bool encode_signed, const encoding& e, std::uint64_t seed,
                   coverage& seen) {
    std::vector<std::byte> bytes(bitplane::codec::max_block_bytes);
    bytes.resize(bitplane::codec::encode_block(bits, encode_signed, bytes, e.options));
    const auto count = static_cast<std::uint32_t>(bits.size());
    const bitplane::codec::block_info info = bitplane::codec::describe_block(bytes, count);
    seen.transforms.insert(info.value_transform);
    const bool sparse = info.value_layout == bitplane::codec::layout::sparse;
    seen.sparse |= sparse;
    seen.sparse_for |= sparse && info.value_transform == bitplane::codec::transform::frame_of_reference;
    bool all_raw = count == block_values && !sparse;
    for (const auto& p : info.planes)
        all_raw &= p.payload == bitplane::codec::payload_kind::none || p.payload == bitplane::codec::payload_kind::raw;
    seen.interleaved |= all_raw;
    std::size_t raw_planes = 0;
    for (const auto& p : info.planes) raw_planes += p.payload == bitplane::codec::payload_kind::raw ? 1 : 0;
    seen.interleaved_wide |= all_raw && raw_planes >= 24;
    if (!sparse && !all_raw && info.value_transform != bitplane::codec::transform::delta)
        for (const auto& p : info.planes)
            if (p.payload != bitplane::codec::payload_kind::none || p.base == bitplane::codec::base_kind::plane ||
                p.base == bitplane::codec::base_kind::complement)
                seen.direct_planes.insert({static_cast<int>(p.base), static_cast<int>(p.payload), p.items > 32});

    std::vector<T> values(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) values[i] = std::bit_cast<T>(bits[i]);
    bitplane::detail::scan_scratch scratch;
    plane out;
    const auto check = [&](op o, T a, T b) {
        SCOPED_TRACE(probe_name(o, a, b));
        const bitplane::detail::scan_test test = make_test(o, a, b);
        out.fill(0xA5A5A5A5u);
        const positions got =
            block_positions(bitplane::detail::scan_encoded_block(bytes, count, test, scratch, out), out, 0, count);
        const positions expected = reference(values, o, a, b);
        ASSERT_TRUE(same_positions(expected, got));
        ASSERT_EQ(bitplane::detail::count_encoded_block(bytes, count, test, scratch), expected.size());
    };
    const std::vector<T> points = probes(values, seed, 2);
    std::size_t turn = 0;
    for (const T x : points) {
        for (const op o : single_ops) {
            if (turn++ % (quick_mode() ? 4 : 2) != 0) continue;
            check(o, x, x);
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
    for (const auto& [lo, hi] : ranges(points, seed + 1, quick_mode() ? 4 : 8)) {
        check(op::range, lo, hi);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(ScanBlocks, EveryTransformAndLayoutBothSignednesses) {
    BITPLANE_SEED_TRACE();
    const path_guard guard;
    coverage seen;
    const std::vector<simd_path> paths = bitplane_test::paths_to_sweep();
    for (const shape& s : all_shapes()) {
        for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{1000}, block_values}) {
            const std::vector<std::uint32_t> bits = make_values(s, n, case_seed("scan-encoded", s.id(), n));
            for (const encoding& e : encodings()) {
                for (const bool encode_signed : {false, true}) {
                    SCOPED_TRACE(case_name(
                        s, n, std::string(e.name) + (encode_signed ? " encoded signed" : " encoded unsigned")));
                    // Rotate the paths rather than multiply the cases by three.
                    const simd_path path = paths[(s.id() + n + (encode_signed ? 1 : 0)) % paths.size()];
                    bitplane::set_simd_path(path);
                    SCOPED_TRACE(std::string(bitplane::to_string(path)));
                    const std::uint64_t seed = case_seed("scan-encoded-probes", s.id(), n);
                    check_encoded<std::uint32_t>(bits, encode_signed, e, seed, seen);
                    if (HasFatalFailure()) return;
                    check_encoded<std::int32_t>(bits, encode_signed, e, seed, seen);
                    if (HasFatalFailure()) return;
                }
            }
        }
    }
    using bitplane::codec::transform;
    for (const transform t : {transform::none, transform::frame_of_reference, transform::delta, transform::zigzag})
        EXPECT_TRUE(seen.transforms.count(t) != 0) << "no block used transform " << static_cast<int>(t);
    EXPECT_TRUE(seen.sparse);
    EXPECT_TRUE(seen.sparse_for);
    EXPECT_TRUE(seen.interleaved);
    EXPECT_TRUE(seen.interleaved_wide);
    // Every payload kind, over constant bases and over other planes, as dense blocks' planes.
    using bitplane::codec::base_kind;
    using bitplane::codec::payload_kind;
    const auto saw = [&](base_kind b, payload_kind p, bool long_list) {
        return seen.direct_planes.count({static_cast<int>(b), static_cast<int>(p), long_list}) != 0;
    };
    for (const payload_kind p : {payload_kind::positions, payload_kind::runs, payload_kind::gaps}) {
        const int kind = static_cast<int>(p);
        EXPECT_TRUE(saw(base_kind::zero, p, false) || saw(base_kind::one, p, false)) << "payload " << kind;
        EXPECT_TRUE(saw(base_kind::plane, p, false) || saw(base_kind::complement, p, false)) << "payload " << kind;
    }
    EXPECT_TRUE(saw(base_kind::zero, payload_kind::gaps, true) || saw(base_kind::one, payload_kind::gaps, true));
    EXPECT_TRUE(saw(base_kind::zero, payload_kind::raw, false));
    EXPECT_TRUE(saw(base_kind::one, payload_kind::positions, false) || saw(base_kind::one, payload_kind::gaps, false) ||
                saw(base_kind::one, payload_kind::gaps, true));
    EXPECT_TRUE(saw(base_kind::plane, payload_kind::none, false) ||
                saw(base_kind::complement, payload_kind::none, false));
}

// FOR blocks whose residuals wrap around in the scanned type's order, with counts worked out
// by hand: -16..15 encoded as int32 (base -16) scanned as uint32, and 2^31 - 16 .. 2^31 + 15
// encoded as uint32 (base 2^31 - 16) scanned as int32.
std::vector<std::byte> encode_for_only(std::uint32_t first, bool encode_signed) {
    std::vector<std::uint32_t> bits(block_values);
    for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = first + static_cast<std::uint32_t>(i % 32);
    bitplane::codec::encode_options for_only;
    for_only.delta = for_only.zigzag = for_only.sparse = false;
    std::vector<std::byte> bytes(bitplane::codec::max_block_bytes);
    bytes.resize(bitplane::codec::encode_block(bits, encode_signed, bytes, for_only));
    return bytes;
}

TEST(ScanBlocks, WrappingFrameOfReference) {
    namespace d = bitplane::detail;
    d::scan_scratch scratch;
    constexpr std::uint32_t per_value = block_values / 32;  // each of the 32 values appears 64 times
    const std::vector<std::byte> a = encode_for_only(0xFFFFFFF0u, true);
    ASSERT_EQ(bitplane::codec::describe_block(a, block_values).value_transform,
              bitplane::codec::transform::frame_of_reference);
    const auto count_a = [&](const d::scan_test& t) { return d::count_encoded_block(a, block_values, t, scratch); };
    EXPECT_EQ(count_a(d::scan_ge(0x80000000u, false)), 16 * per_value);
    EXPECT_EQ(count_a(d::scan_lt(16u, false)), 16 * per_value);
    EXPECT_EQ(count_a(d::scan_range(5u, 0xFFFFFFF5u, false)), 17 * per_value);
    EXPECT_EQ(count_a(d::scan_eq(0xFFFFFFFFu, false)), per_value);
    EXPECT_EQ(count_a(d::scan_ne(0u, false)), 31 * per_value);
    EXPECT_EQ(count_a(d::scan_eq(16u, false)), 0u);

    const std::vector<std::byte> b = encode_for_only(0x7FFFFFF0u, false);
    ASSERT_EQ(bitplane::codec::describe_block(b, block_values).value_transform,
              bitplane::codec::transform::frame_of_reference);
    const auto count_b = [&](const d::scan_test& t) { return d::count_encoded_block(b, block_values, t, scratch); };
    EXPECT_EQ(count_b(d::scan_lt(0u, true)), 16 * per_value);
    EXPECT_EQ(count_b(d::scan_gt(0x7FFFFFFEu, true)), per_value);
    EXPECT_EQ(count_b(d::scan_range(0x80000003u, 0x7FFFFFFCu, true)), 26 * per_value);
    EXPECT_EQ(count_b(d::scan_eq(0x80000000u, true)), per_value);
    EXPECT_EQ(count_b(d::scan_ge(0x80000010u, true)), 16 * per_value);  // only the values near INT32_MAX
}

}  // namespace

// Sorted blocks answered from their bounds, whose residual sums come from payload counts:
// steps of mostly 3 make the delta residuals' low planes nearly all ones, stored against the
// one plane (positions of the zeros); steps alternating in long stretches give run payloads;
// the probes hit blocks inside, outside and at the edges of the queried interval.
// Columns like bam_mapq and geoip sizes: one frequent value, the others scattered (or in runs)
// over it, so that blocks hold several list planes (gaps, positions, runs) over constant bases.
// An equality on the frequent value clears the lists' positions (marked together in a byte map
// when long, src/ops/scan_block.cpp); one on another value keeps a list's positions first;
// ranges build long lists through the byte map. Gap lists below the map's bound are read from
// the positions the vector keeps beside the block (short ones word by word, longer ones
// marked), and from their bytes where scan_by_blocks drops the side entries. Every value present,
// absent values between and around them, sizes with a partial last block, every SIMD path.
TEST(Scan, ListPlanesOverAFrequentValueOnEveryPath) {
    BITPLANE_SEED_TRACE();
    const path_guard guard;
    const std::vector<simd_path> paths = bitplane_test::paths_to_sweep();
    bool marked = false, runs = false, mapped = false, listed_short = false, listed_long = false, planned = false;
    std::size_t turn = 0;
    for (const double density : {0.005, 0.03, 0.12, 0.3}) {
        for (const bool in_runs : {false, true}) {
            for (const std::size_t n : {std::size_t{2048}, std::size_t{2 * 2048 + 1000}, std::size_t{3 * 2048 - 1}}) {
                SCOPED_TRACE(std::to_string(density) + (in_runs ? " runs " : " scattered ") + std::to_string(n));
                std::mt19937_64 rng(case_seed("scan-list-planes", static_cast<std::uint64_t>(density * 1000),
                                              in_runs, n));
                const std::uint32_t frequent = 60;
                const std::uint32_t others[] = {0, 4, 23, 37, 59, 61, 124, 1000};
                std::vector<std::uint32_t> values(n, frequent);
                for (std::size_t i = 0; i < n;) {
                    const std::size_t len = in_runs ? 1 + rng() % 40 : 1;
                    if (std::uniform_real_distribution<double>(0, 1)(rng) < density) {
                        const std::uint32_t x = others[rng() % std::size(others)];
                        for (std::size_t k = i; k < std::min(n, i + len); ++k) values[k] = x;
                    }
                    i += len;
                }
                const bitplane::vector<std::uint32_t> packed(values.begin(), values.end());
                for (std::size_t b = 0; b < packed.core().sealed_block_count(); ++b) {
                    const auto info = bitplane::codec::describe_block(packed.core().sealed_block(b, {}), 2048);
                    std::size_t long_lists = 0;
                    for (const auto& p : info.planes) {
                        const bool list = p.payload == bitplane::codec::payload_kind::gaps ||
                                          p.payload == bitplane::codec::payload_kind::positions ||
                                          p.payload == bitplane::codec::payload_kind::runs;
                        long_lists += list && p.items > 64 ? 1 : 0;
                        runs |= p.payload == bitplane::codec::payload_kind::runs;
                        // A gap list the scan reads from the map kept beside the block.
                        mapped |= p.payload == bitplane::codec::payload_kind::gaps &&
                                  p.items >= bitplane::detail::thresholds::read_bitmap_min_gaps_bytes &&
                                  info.value_transform != bitplane::codec::transform::delta &&
                                  packed.core().sealed_gaps_skips(b) != nullptr;
                        // ... or from its decoded positions kept beside the block.
                        const bool listed = p.payload == bitplane::codec::payload_kind::gaps &&
                                            p.items < bitplane::detail::thresholds::read_bitmap_min_gaps_bytes &&
                                            info.value_transform != bitplane::codec::transform::delta &&
                                            packed.core().sealed_gaps_skips(b) != nullptr;
                        listed_short |= listed && p.items <= 32;
                        listed_long |= listed && p.items > 32;
                    }
                    marked |= long_lists >= 2;
                    // Dense blocks whose direct planes are filled from the read plan kept
                    // beside them (scan_block.cpp, direct_planes::load_planned), not from
                    // their plane table.
                    planned |= info.value_layout == bitplane::codec::layout::dense &&
                               info.value_transform != bitplane::codec::transform::delta &&
                               bitplane::detail::side_plan(packed.core().sealed_read_side(b)) != nullptr;
                }
                bitplane::set_simd_path(paths[turn++ % paths.size()]);
                for (std::uint32_t x = 0; x <= 1001; ++x) {
                    const bool present = x == frequent || std::find(std::begin(others), std::end(others), x) !=
                                                              std::end(others);
                    if (!present && x % 17 != 1) continue;
                    check_probe(packed, values, op::eq, x, x, true);
                    if (HasFatalFailure()) return;
                }
                for (const auto& [lo, hi] : {std::pair{0u, 59u}, std::pair{4u, 60u}, std::pair{60u, 60u},
                                             std::pair{61u, 2000u}, std::pair{23u, 124u}, std::pair{0u, 1000u}}) {
                    check_probe(packed, values, op::range, lo, hi, true);
                    if (HasFatalFailure()) return;
                }
            }
        }
    }
    EXPECT_TRUE(marked) << "no block with two long list planes: the byte map is no longer covered";
    EXPECT_TRUE(runs) << "no block with a runs plane";
    EXPECT_TRUE(mapped) << "no gap list read from its map: the scans' side-entry path is no longer covered";
    EXPECT_TRUE(listed_short) << "no short gap list read from its positions beside the block";
    EXPECT_TRUE(listed_long) << "no gap list of 33-63 bytes read from its positions beside the block";
    EXPECT_TRUE(planned) << "no block scanned from its read plan: direct_planes::load_planned is no longer covered";
}

// Runs of equal values that go up and down (ucd_script and the other runs columns): sparse delta
// blocks whose smallest step is 0, which the scans test once per run (scan_block.cpp's value
// runs) from the vector's descriptors and, re-encoded, as bytes without side entries (file views).
template <class T>
void check_value_runs(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (const std::size_t n : {std::size_t{2048}, std::size_t{6 * 2048 + 333}}) {
        SCOPED_TRACE(n);
        std::vector<T> values(n);
        std::vector<T> seen_values;
        for (std::size_t i = 0; i < n;) {
            // Few distinct values, and now and then one of any width (negative for int32).
            const T v = rng() % 4 == 0 ? static_cast<T>(rng()) : static_cast<T>(rng() % 40) - static_cast<T>(7);
            seen_values.push_back(v);
            const std::size_t run = 1 + rng() % (rng() % 3 == 0 ? 400 : 40);
            for (std::size_t k = 0; k < run && i < n; ++k) values[i++] = v;
        }
        const bitplane::vector<T> packed = make_vector(values);
        std::size_t value_runs = 0;
        for (std::size_t b = 0; b < packed.core().sealed_block_count(); ++b) {
            const auto& d = packed.core().sealed_descriptor(b);
            value_runs += d.transform() == bitplane::codec::transform::delta && d.sparse() && d.delta_min == 0 ? 1 : 0;
        }
        ASSERT_GT(value_runs, 0u) << "no sparse delta block of step 0: the value-runs path is not covered";
        check_vector(packed, values, seed + n, 6, 12);
        if (::testing::Test::HasFatalFailure()) return;
        for (std::size_t i = 0; i < seen_values.size() && i < 24; ++i) {
            check_probe(packed, values, op::eq, seen_values[i], seen_values[i], true);
            if (::testing::Test::HasFatalFailure()) return;
        }
        // Each block's bytes re-encoded and scanned as an encoded block (no side entries).
        coverage seen;
        for (std::size_t first = 0; first + 2048 <= n; first += 2048) {
            std::vector<std::uint32_t> bits(2048);
            for (std::size_t i = 0; i < 2048; ++i) bits[i] = std::bit_cast<std::uint32_t>(values[first + i]);
            check_encoded<T>(bits, std::is_signed_v<T>, encodings()[0], seed + first, seen);
            if (::testing::Test::HasFatalFailure()) return;
        }
        EXPECT_TRUE(seen.transforms.count(bitplane::codec::transform::delta) != 0);
    }
}

TEST(Scan, ValueRunsEveryPath) {
    BITPLANE_SEED_TRACE();
    bitplane_test::on_every_path([] {
        check_value_runs<std::uint32_t>(case_seed("scan-value-runs", 0));
        if (::testing::Test::HasFatalFailure()) return;
        check_value_runs<std::int32_t>(case_seed("scan-value-runs", 1));
    });
}

// Value-run blocks as real runs columns make them (ucd_script, ucd_linebreak: a class id per
// code point, runs of 1-400): small steps whose sign repeats from a low plane up to plane 31
// (scan_block.cpp's value_run_residuals transposes 16 planes and widens them by the sign),
// steps of 16 bits and more (all 32 planes transposed), planes kept as gap lists (their maps
// or positions beside the block, from its read plan, on a vector; walked in the bytes alone),
// as position or run lists, and stored against other planes. Probes: a rare value placed once
// at a block's first or last position or in the tail, values absent inside a block's
// [min, max], the frequent value, and the other ops around them; sizes not a multiple of 2048.
struct value_run_coverage {
    bool small_steps = false;  // every step of a value-run block within 16 bits, signed
    bool wide_steps = false;   // some step beyond
    bool planned = false;      // a value-run block of a vector with a read plan
    bool listed = false;       // ... naming a gap list kept as positions
    bool lists = false;        // ... or a position or run list
    bool referred = false;     // ... or a plane with a payload stored against another
    std::size_t value_runs = 0;
};

template <class T>
void check_real_value_runs(std::uint64_t seed, value_run_coverage& seen) {
    std::mt19937_64 rng(seed);
    const T rare = static_cast<T>(std::is_signed_v<T> ? -1001 : 1001);
    for (const std::size_t n : {std::size_t{2048}, std::size_t{3 * 2048 + 777}, std::size_t{6 * 2048 + 100}}) {
        for (const std::uint32_t shape : {0u, 1u, 2u, 3u}) {
            SCOPED_TRACE(testing::Message() << "n " << n << " shape " << shape);
            // 0: ids 0..190 in even steps (odd values absent), runs of 1..60 or up to 400;
            // 1: a walk up by 1 for 32 runs and down for 32, now and then 256 higher (lists and
            // runs of set bits in the steps' planes); 2: ids around 0 in steps of up to 2^20;
            // 3: climbs by 64-71 for 20 runs, then back near the start.
            std::vector<T> values(n);
            std::uint32_t walk = 100, turn = 0;
            for (std::size_t i = 0; i < n;) {
                T v{};
                ++turn;
                switch (shape) {
                    case 0: v = static_cast<T>(2 * (rng() % 96)); break;
                    case 1:
                        walk = turn % 64 < 32 ? walk + 1 : walk - 1;
                        v = static_cast<T>(walk + (rng() % 50 == 0 ? 256 : 0));
                        break;
                    case 2: v = static_cast<T>(static_cast<std::int64_t>(rng() % (1u << 21)) - (1 << 20)); break;
                    default:
                        walk = turn % 40 < 20 ? walk + 64 + static_cast<std::uint32_t>(rng() % 8)
                                              : 100 + static_cast<std::uint32_t>(rng() % 30);
                        v = static_cast<T>(walk);
                        break;
                }
                if (std::is_signed_v<T> && shape != 2) v = static_cast<T>(v - 40);
                const std::size_t run = shape == 1 ? 5 + rng() % 30 : 1 + rng() % (rng() % 3 == 0 ? 400 : 60);
                for (std::size_t k = 0; k < run && i < n; ++k) values[i++] = v;
            }
            // The rare value once: at a block's first or last position, or in the tail.
            const std::size_t at = std::array<std::size_t, 4>{0, 2047, n - 1, n / 2}[rng() % 4];
            values[at] = rare;
            const bitplane::vector<T> packed = make_vector(values);
            const auto& core = packed.core();
            std::size_t value_runs = 0;
            for (std::size_t b = 0; b < core.sealed_block_count(); ++b) {
                const auto& d = core.sealed_descriptor(b);
                if (!(d.transform() == bitplane::codec::transform::delta && d.sparse() && d.delta_min == 0)) continue;
                ++value_runs;
                std::uint32_t widest = 0;  // largest |step| in the block
                for (std::size_t i = b * 2048 + 1; i < (b + 1) * 2048; ++i) {
                    const auto step = static_cast<std::int32_t>(std::bit_cast<std::uint32_t>(values[i]) -
                                                                std::bit_cast<std::uint32_t>(values[i - 1]));
                    const std::int64_t size = step < 0 ? -static_cast<std::int64_t>(step) : step;
                    widest = std::max(widest, static_cast<std::uint32_t>(size));
                }
                (widest < (1u << 15) ? seen.small_steps : seen.wide_steps) = true;
                const std::uint32_t* plan = bitplane::detail::side_plan(core.sealed_read_side(b));
                if (plan == nullptr) continue;
                seen.planned = true;
                const bitplane::detail::plan_groups g = bitplane::detail::groups_of(plan);
                seen.listed |= g.listed != 0;
                seen.lists |= g.positions + g.runs != 0;
                const std::uint32_t payloads = g.raw + g.mapped + g.listed + 2 * (g.positions + g.runs);
                std::uint32_t with_payload = 0;
                for (std::uint32_t i = 0, k = 0; k < g.raw + g.mapped + g.listed + g.positions + g.runs; ++k) {
                    with_payload |= 1u << bitplane::detail::plan_index(g.entries[i]);
                    i += k < g.raw + g.mapped + g.listed ? 1 : 2;
                }
                for (std::uint32_t r = 0; r < g.references; ++r)
                    seen.referred |= ((with_payload >> (g.entries[payloads + r] & 31u)) & 1u) != 0;
            }
            seen.value_runs += value_runs;
            // count_eq / find_eq and the per-block answers (vector and bare bytes) of the rare
            // value, of values absent inside the blocks' ranges, of the frequent ones.
            check_probe(packed, values, op::eq, rare, rare, true);
            if (::testing::Test::HasFatalFailure()) return;
            for (const T x : {T(1), T(13), T(-39), T(2 * 95), T(0), T(4), T(7), values[n / 3], values[n - 1]}) {
                check_probe(packed, values, op::eq, x, x, true);
                if (::testing::Test::HasFatalFailure()) return;
            }
            check_vector(packed, values, seed + n + shape, 4, 4);
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
}

TEST(Scan, ValueRunsOfRealShapesEveryPath) {
    BITPLANE_SEED_TRACE();
    value_run_coverage seen;
    bitplane_test::on_every_path([&seen] {
        check_real_value_runs<std::uint32_t>(case_seed("scan-real-value-runs", 0), seen);
        if (::testing::Test::HasFatalFailure()) return;
        check_real_value_runs<std::int32_t>(case_seed("scan-real-value-runs", 1), seen);
    });
    EXPECT_GT(seen.value_runs, 0u) << "no value-run block: the shapes no longer cover the path";
    EXPECT_TRUE(seen.small_steps) << "no value-run block of 16-bit steps: the sign-widened transposition is uncovered";
    EXPECT_TRUE(seen.wide_steps) << "no value-run block of wider steps: the 32-plane transposition is not covered";
    EXPECT_TRUE(seen.planned) << "no value-run block with a read plan";
    EXPECT_TRUE(seen.listed) << "no value-run block naming a gap list kept as positions";
    EXPECT_TRUE(seen.lists) << "no value-run block with a position or run list";
    EXPECT_TRUE(seen.referred) << "no value-run plane with a payload stored against another plane";
}

TEST(Scan, DeltaBlocksWithPlanesStoredAgainstConstantPlanes) {
    BITPLANE_SEED_TRACE();
    for (const bool stretches : {false, true}) {
        SCOPED_TRACE(stretches ? "runs" : "positions against ones");
        std::mt19937_64 rng(case_seed("scan-delta-constant-bases", stretches));
        std::vector<std::uint32_t> values(5 * 2048 + 77);
        std::uint32_t v = 1000;
        for (std::size_t i = 0; i < values.size(); ++i) {
            values[i] = v;
            if (stretches) {
                v += (i / 150) % 2 == 0 ? 3u : 1u;
            } else {
                v += rng() % 61 == 0 ? static_cast<std::uint32_t>(rng() % 3) : 3u;
            }
        }
        const bitplane::vector<std::uint32_t> packed(values.begin(), values.end());
        bool covered = false;
        for (std::size_t b = 0; b < packed.core().sealed_block_count(); ++b) {
            const auto info = bitplane::codec::describe_block(packed.core().sealed_block(b, {}), 2048);
            ASSERT_EQ(info.value_transform, bitplane::codec::transform::delta);
            for (const auto& p : info.planes)
                covered = covered || (stretches ? p.payload == bitplane::codec::payload_kind::runs &&
                                                      p.base == bitplane::codec::base_kind::zero
                                                : p.base == bitplane::codec::base_kind::one);
        }
        ASSERT_TRUE(covered) << "no plane of the kind this case is for: the test no longer covers it";
        check_vector(packed, values, case_seed("scan-delta-constant-bases-probes", stretches), 12, 24);
        if (HasFatalFailure()) return;
        // Intervals ending one short of, at, and one past each block's last value (a bound
        // off by one answers one of them wrong).
        for (std::size_t first = 0; first + 2048 <= values.size(); first += 2048) {
            const std::uint32_t lo = values[first], hi = values[first + 2047];
            for (const std::uint32_t end : {hi - 1, hi, hi + 1}) {
                check_probe(packed, values, op::range, lo, end, true);
                if (HasFatalFailure()) return;
            }
            check_probe(packed, values, op::eq, hi, hi, true);
            if (HasFatalFailure()) return;
        }
    }
}

// Blocks whose planes are stored against other planes (base `plane` or `complement`: copies
// of a plane, copies with a few bits flipped, complements) under intervals, which compare them
// on the direct path (scan_block.cpp, laid_out_planes and run_laid_out) and equalities, which
// settle the references: against the reference on every path, with and without side
// entries (check_probe's per-block answers), for uint32 and for signed values whose blocks
// are zigzag (symmetric intervals on the residual planes), sizes not a multiple of 2048.
TEST(Scan, PlanesStoredAgainstPlanesEveryPath) {
    BITPLANE_SEED_TRACE();
    bitplane_test::on_every_path([] {
        for (int kind = 0; kind < 4; ++kind) {
            SCOPED_TRACE("kind " + std::to_string(kind));
            std::mt19937_64 rng(case_seed("scan-stacked", kind));
            const std::size_t n = 3 * 2048 + (kind == 3 ? 999 : 77);
            std::vector<std::uint32_t> bits(n);
            for (std::size_t i = 0; i < n; ++i) {
                const auto x = static_cast<std::uint32_t>(rng() % 256);
                std::uint32_t v = x | x << 8;                            // planes 8-15 copies of 0-7
                if (kind == 1) v = x | (~x & 0xFFu) << 8 | (~x & 0x0Fu) << 16 | (x & 0x3u) << 20;  // complements
                if (kind >= 2 && rng() % 97 == 0) v ^= 1u << (8 + rng() % 8);  // nearly copies
                bits[i] = v;
            }
            bool referred = false;
            {
                const bitplane::vector<std::uint32_t> packed(bits.begin(), bits.end());
                for (std::size_t b = 0; b < packed.core().sealed_block_count(); ++b)
                    for (const auto& p : bitplane::codec::describe_block(packed.core().sealed_block(b, {}), 2048).planes)
                        referred = referred || p.base == bitplane::codec::base_kind::plane ||
                                   p.base == bitplane::codec::base_kind::complement;
                ASSERT_TRUE(referred) << "no plane stored against a plane: the test no longer covers it";
                check_vector(packed, bits, case_seed("scan-stacked-probes", kind), 6, quick_mode() ? 8 : 24);
                if (HasFatalFailure()) return;
            }
            // The same magnitudes with random signs (zigzag blocks): symmetric intervals
            // around each probe, and ones off by one either side.
            std::vector<std::int32_t> signed_values(n);
            for (std::size_t i = 0; i < n; ++i) {
                const auto m = static_cast<std::int32_t>(bits[i] & 0xFFFFFFu);
                signed_values[i] = rng() % 2 == 0 ? m : -m - static_cast<std::int32_t>(kind % 2);
            }
            const bitplane::vector<std::int32_t> packed(signed_values.begin(), signed_values.end());
            check_vector(packed, signed_values, case_seed("scan-stacked-signed", kind), 4, quick_mode() ? 4 : 12);
            if (HasFatalFailure()) return;
            for (std::size_t i = 0; i < (quick_mode() ? 4u : 12u); ++i) {
                const std::int32_t a = std::abs(signed_values[rng() % n]);
                for (const auto& [lo, hi] : {std::pair{-a, a}, std::pair{-a - 1, a}, std::pair{-a + 1, a}, std::pair{-a, a + 1}}) {
                    check_probe(packed, signed_values, op::range, lo, hi, true);
                    if (HasFatalFailure()) return;
                }
            }
        }
    });
}

namespace {

// Descriptor bytes (docs/format.md): index | payload kind << 5, then base | ref << 2. Rewrites
// the descriptor of plane `index` (payload kind `payload`, base `old_base` now) to base `base`
// against plane `ref`, for tests of blocks the encoder does not write but a valid block may hold.
void rewrite_plane_descriptor(std::vector<std::byte>& bytes, std::uint8_t index, std::uint8_t payload,
                              std::uint8_t old_base, std::uint8_t base, std::uint8_t ref) {
    for (std::size_t i = 0; i + 1 < bytes.size(); ++i) {
        if (bytes[i] == std::byte(index | payload << 5) && (static_cast<std::uint8_t>(bytes[i + 1]) & 3u) == old_base) {
            bytes[i + 1] = std::byte(base | ref << 2);
            return;
        }
    }
    FAIL() << "no descriptor for plane " << int{index};
}

// Intervals between values of the block (and their edges) scanned and counted on the block's
// bytes against the reference on `values`, on every path.
void expect_intervals_on_block_bytes(std::span<const std::byte> bytes, std::uint32_t count,
                                     const std::vector<std::uint32_t>& values, std::mt19937_64& rng) {
    const std::size_t n = values.size();
    bitplane_test::on_every_path([&] {
        bitplane::detail::scan_scratch scratch;
        plane out;
        for (int i = 0; i < (quick_mode() ? 8 : 40); ++i) {
            auto lo = values[rng() % n], hi = values[rng() % n];
            if (lo > hi) std::swap(lo, hi);
            for (const auto& [a, b] : {std::pair{lo, hi}, std::pair{lo, lo}, std::pair{0u, hi}, std::pair{lo + 1, hi - 1}}) {
                SCOPED_TRACE(probe_name(op::range, a, b));
                const auto test = make_test(op::range, a, b);
                out.fill(0xA5A5A5A5u);
                const positions expected = reference(values, op::range, a, b);
                ASSERT_TRUE(same_positions(
                    expected,
                    block_positions(bitplane::detail::scan_encoded_block(bytes, count, test, scratch, out), out, 0, count)));
                ASSERT_EQ(bitplane::detail::count_encoded_block(bytes, count, test, scratch), expected.size());
            }
        }
    });
}

}  // namespace

// A chain of references, which the encoder does not write (it refers to raw planes) but a
// valid block may hold: plane 16, the complement of plane 0, rewritten as a copy of plane 8
// (itself the complement of plane 0, no payload), and plane 20, a copy of plane 0 with a few
// bits flipped, as the complement of plane 16. Intervals on the block's bytes against the
// reference, on every path.
TEST(ScanBlocks, ChainedReferencesEveryPath) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("scan-chained"));
    for (const std::size_t n : {std::size_t{999}, block_values}) {
        SCOPED_TRACE("n " + std::to_string(n));
        std::vector<std::uint32_t> values(n);
        for (auto& v : values) {
            const auto x = static_cast<std::uint32_t>(rng() % 256);
            v = x | (~x & 0xFFu) << 8 | (~x & 0x1u) << 16 | (x & 0x1u) << 20;
            if (rng() % 50 == 0) v ^= 1u << 20;
        }
        std::vector<std::byte> bytes(bitplane::codec::max_block_bytes);
        bitplane::codec::encode_options plain;
        plain.frame_of_reference = plain.delta = plain.zigzag = plain.sparse = false;
        bytes.resize(bitplane::codec::encode_block(values, false, bytes, plain));
        const auto count = static_cast<std::uint32_t>(n);
        const bitplane::codec::block_info before = bitplane::codec::describe_block(bytes, count);
        ASSERT_EQ(before.planes[16].base, bitplane::codec::base_kind::complement);
        ASSERT_EQ(before.planes[16].reference, 0u);
        ASSERT_EQ(before.planes[20].reference, 0u);
        const auto base_of = [&](int index) { return static_cast<std::uint8_t>(before.planes[index].base); };
        ASSERT_NO_FATAL_FAILURE(rewrite_plane_descriptor(bytes, 16, 0, base_of(16), 2, 8));  // plane 16 = plane 8
        ASSERT_NO_FATAL_FAILURE(rewrite_plane_descriptor(bytes, 20, static_cast<std::uint8_t>(before.planes[20].payload), base_of(20), 3,
                                                         16));  // plane 20 = ~plane 16 ^ payload
        ASSERT_NO_THROW(bitplane::codec::validate_block(bytes, count));
        const bitplane::codec::block_info after = bitplane::codec::describe_block(bytes, count);
        ASSERT_EQ(after.planes[16].reference, 8u);
        ASSERT_EQ(after.planes[20].reference, 16u);
        std::vector<std::uint32_t> decoded(n);
        bitplane::codec::decode_block(bytes, decoded);
        ASSERT_EQ(decoded, values) << "the rewritten block no longer holds the same values";
        expect_intervals_on_block_bytes(bytes, count, values, rng);
    }
}

// Raw planes stored against planes, which the encoder does not write for these values but a
// valid block may hold: plane 1 (raw) rewritten as the complement of plane 0 (raw) XOR its
// payload, plane 3 (raw) as plane 2 (raw) XOR its payload, in a short block (its last raw word part payload, part past the
// values) and a whole one. laid_out_planes builds such planes in one pass (payload XOR
// reference XOR base); intervals on the block's bytes against the reference on the values the
// decoder gives, on every path.
TEST(ScanBlocks, RawPlanesAgainstPlanesEveryPath) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("scan-raw-against-planes"));
    for (const std::size_t n : {std::size_t{999}, std::size_t{1001}, block_values}) {
        SCOPED_TRACE("n " + std::to_string(n));
        std::vector<std::uint32_t> values(n);
        // Plane 20 a short list: the block is stored with descriptors, not interleaved.
        for (auto& v : values) v = static_cast<std::uint32_t>(rng() % 256) | (rng() % 50 == 0 ? 1u << 20 : 0u);
        std::vector<std::byte> bytes(bitplane::codec::max_block_bytes);
        bitplane::codec::encode_options plain;
        plain.frame_of_reference = plain.delta = plain.zigzag = plain.sparse = false;
        bytes.resize(bitplane::codec::encode_block(values, false, bytes, plain));
        const auto count = static_cast<std::uint32_t>(n);
        const bitplane::codec::block_info before = bitplane::codec::describe_block(bytes, count);
        for (const int j : {0, 1, 2, 3}) {
            ASSERT_EQ(before.planes[j].payload, bitplane::codec::payload_kind::raw) << "plane " << j;
            ASSERT_EQ(before.planes[j].base, bitplane::codec::base_kind::zero) << "plane " << j;
        }
        ASSERT_EQ(before.value_layout, bitplane::codec::layout::dense);
        constexpr std::uint8_t raw = 3, zero = 0;
        ASSERT_NO_FATAL_FAILURE(rewrite_plane_descriptor(bytes, 1, raw, zero, 3, 0));  // plane 1 = ~plane 0 ^ payload
        ASSERT_NO_FATAL_FAILURE(rewrite_plane_descriptor(bytes, 3, raw, zero, 2, 2));  // plane 3 = plane 2 ^ payload
        ASSERT_NO_THROW(bitplane::codec::validate_block(bytes, count));
        const bitplane::codec::block_info after = bitplane::codec::describe_block(bytes, count);
        ASSERT_EQ(after.planes[1].reference, 0u);
        ASSERT_EQ(after.planes[1].base, bitplane::codec::base_kind::complement);
        ASSERT_EQ(after.planes[3].reference, 2u);
        std::vector<std::uint32_t> decoded(n);
        bitplane::codec::decode_block(bytes, decoded);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint32_t v = values[i];
            const std::uint32_t b1 = (~v ^ v >> 1) & 1u, b3 = (v >> 2 ^ v >> 3) & 1u;
            ASSERT_EQ(decoded[i], (v & ~0xAu) | b1 << 1 | b3 << 3) << "value " << i << ": the rewrite is not as meant";
        }
        expect_intervals_on_block_bytes(bytes, count, decoded, rng);
    }
}

// Zigzag blocks under intervals (scan_block.cpp, zigzag_prefix): the symmetric ones, [-a, a]
// and [-a - 1, a], are compared on the residual planes as the prefix [0, 2a] or [0, 2a + 1];
// every other interval is decoded. Both ways against the reference, around each: one off each
// side of symmetric, both bounds negative, both positive, empty, the whole column, and the
// int32 extremes; on blocks of every residual width, sparse ones (mostly zeros), runs and a
// constant negative block, sizes not a multiple of 2048, with and without side entries
// (check_probe's per-block answers), for int32 and for the same bits as uint32.
namespace {

std::vector<std::int32_t> zigzag_values(std::uint32_t width, int kind, std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const std::uint64_t magnitudes = std::uint64_t{1} << width;  // |v| <= 2^width + 1, width <= 30
    std::vector<std::int32_t> out(n);
    std::int32_t run_value = 0;
    for (std::size_t i = 0; i < n; ++i) {
        // Even non-negative and odd negative values: bit 1 of every zigzag residual is 0, one
        // plane fewer than a frame of reference needs, so that the encoder takes zigzag.
        const auto m = static_cast<std::int64_t>(rng() % (magnitudes / 2 + 1));
        const std::int32_t v = static_cast<std::int32_t>(rng() % 2 == 0 ? 2 * m : -2 * m - 1);
        switch (kind) {
            case 0: out[i] = v; break;                                 // dense
            case 1: out[i] = rng() % 16 == 0 ? v : 0; break;           // sparse
            case 2:                                                    // runs
                if (i % 97 == 0) run_value = v;
                out[i] = run_value;
                break;
            default: out[i] = -static_cast<std::int32_t>(magnitudes / 2) - 1; break;  // constant negative
        }
    }
    return out;
}

std::vector<std::pair<std::int32_t, std::int32_t>> zigzag_intervals(const std::vector<std::int32_t>& values,
                                                                    std::uint64_t seed) {
    using lim = std::numeric_limits<std::int32_t>;
    const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
    std::mt19937_64 rng(seed);
    std::vector<std::pair<std::int32_t, std::int32_t>> out = {
        {*mn, *mx}, {lim::min(), lim::max()}, {-lim::max(), lim::max()}, {lim::min(), lim::max() - 1},
        {lim::min(), -1}, {0, lim::max()}, {lim::min(), lim::min()}, {lim::max(), lim::max()}, {-1, 0}, {0, 0},
        {-1, -1}, {0, -1}, {1, -1}};
    std::vector<std::int32_t> bounds = {0, 1, 2, 3, 434, lim::max() - 1};
    for (int k = 0; k < 6; ++k) {
        const std::int32_t v = values[rng() % values.size()];
        bounds.push_back(v == lim::min() ? lim::max() : (v < 0 ? -v : v));
    }
    for (const std::int32_t a : bounds) {
        out.emplace_back(-a, a);          // symmetric: [0, 2a]
        out.emplace_back(-a - 1, a);      // [0, 2a + 1]
        out.emplace_back(-a + 1, a);      // decoded
        out.emplace_back(-a, a == lim::max() ? a : a + 1);  // decoded
        out.emplace_back(-a - 1, -1);     // both negative
        out.emplace_back(a / 2, a);       // both positive
        out.emplace_back(a, -a - 1);      // empty
    }
    return out;
}

}  // namespace

TEST(Scan, ZigzagIntervalsEveryPath) {
    BITPLANE_SEED_TRACE();
    const path_guard guard;
    std::uint64_t zigzag_blocks = 0;
    for (std::uint32_t width = 1; width <= 30; width += quick_mode() ? 6 : 3) {
        for (int kind = 0; kind < 4; ++kind) {
            const std::size_t n = kind == 3 ? block_values + 5 : 2 * block_values + 313;
            SCOPED_TRACE("width " + std::to_string(width) + " kind " + std::to_string(kind));
            const std::vector<std::int32_t> values = zigzag_values(width, kind, n, case_seed("scan-zz", width, kind));
            const bitplane::vector<std::int32_t> v(std::span<const std::int32_t>(values.data(), values.size()));
            zigzag_blocks += v.stats().blocks_by_transform[static_cast<std::size_t>(bitplane::codec::transform::zigzag)];
            std::vector<std::uint32_t> bits(n);
            std::memcpy(bits.data(), values.data(), n * 4);
            const bitplane::vector<std::uint32_t> u(std::span<const std::uint32_t>(bits.data(), bits.size()));
            const auto intervals = zigzag_intervals(values, case_seed("scan-zz-intervals", width, kind));
            bitplane_test::on_every_path([&] {
                for (const auto& [lo, hi] : intervals) {
                    check_probe(v, values, op::range, lo, hi, true);
                    if (HasFatalFailure()) return;
                    check_probe(u, bits, op::range, std::bit_cast<std::uint32_t>(lo), std::bit_cast<std::uint32_t>(hi),
                                false);
                    if (HasFatalFailure()) return;
                }
            });
            if (HasFatalFailure()) return;
        }
    }
    EXPECT_GT(zigzag_blocks, 10u) << "the vectors no longer hold zigzag blocks: the test does not cover them";
}

// The same intervals on blocks encoded zigzag (zigzag only: no other transform can be taken)
// for both signednesses, scanned as encoded bytes.
TEST(ScanBlocks, ZigzagEncodedIntervalsEveryPath) {
    BITPLANE_SEED_TRACE();
    bitplane::codec::encode_options zigzag_only;
    zigzag_only.frame_of_reference = zigzag_only.delta = false;
    std::size_t zigzag_blocks = 0;
    bitplane_test::on_every_path([&] {
        for (std::uint32_t width = 0; width <= 30; width += quick_mode() ? 5 : 2) {
            for (int kind = 0; kind < 4; ++kind) {
                for (const std::size_t n : {std::size_t{1}, std::size_t{999}, block_values}) {
                    SCOPED_TRACE("width " + std::to_string(width) + " kind " + std::to_string(kind) + " n " +
                                 std::to_string(n));
                    const std::vector<std::int32_t> values =
                        zigzag_values(width, kind, n, case_seed("scan-zz-enc", width, kind, n));
                    std::vector<std::uint32_t> bits(n);
                    std::memcpy(bits.data(), values.data(), n * 4);
                    std::vector<std::byte> bytes(bitplane::codec::max_block_bytes);
                    bytes.resize(bitplane::codec::encode_block(bits, true, bytes, zigzag_only));
                    const auto count = static_cast<std::uint32_t>(n);
                    if (bitplane::codec::describe_block(bytes, count).value_transform ==
                        bitplane::codec::transform::zigzag)
                        ++zigzag_blocks;
                    bitplane::detail::scan_scratch scratch;
                    plane out;
                    for (const auto& [lo, hi] : zigzag_intervals(values, case_seed("scan-zz-enc-iv", width, kind))) {
                        SCOPED_TRACE(probe_name(op::range, lo, hi));
                        const auto test = make_test(op::range, lo, hi);
                        out.fill(0xA5A5A5A5u);
                        const positions expected = reference(values, op::range, lo, hi);
                        ASSERT_TRUE(same_positions(
                            expected, block_positions(bitplane::detail::scan_encoded_block(bytes, count, test, scratch, out),
                                                      out, 0, count)));
                        ASSERT_EQ(bitplane::detail::count_encoded_block(bytes, count, test, scratch), expected.size());
                    }
                }
            }
        }
    });
    EXPECT_GT(zigzag_blocks, 100u) << "zigzag-only encoding no longer gives zigzag blocks";
}


// Intervals that hold the column's every value, none of it, or all but its largest, answered
// from the column's [min, max] over the blocks' summaries (scan.cpp, answer_for_all): with a
// tail that passes or not, and with blocks appended as bytes, whose summaries are unknown (the
// per-block way then answers).
TEST(Scan, WholeColumnIntervalsEveryPath) {
    BITPLANE_SEED_TRACE();
    bitplane_test::on_every_path([] {
        for (const bool as_bytes : {false, true}) {
            for (const std::size_t n : {std::size_t{0}, std::size_t{577}, 3 * block_values, 3 * block_values + 576}) {
                SCOPED_TRACE(std::string(as_bytes ? "appended as bytes" : "encoded") + " n " + std::to_string(n));
                std::mt19937_64 rng(case_seed("scan-whole-column", n, as_bytes));
                std::vector<std::int32_t> values(n);
                for (auto& x : values) x = static_cast<std::int32_t>(rng() % 2);  // bed_strand: 0 and 1
                if (n > block_values) values[block_values + 3] = -5;          // one block wider
                const std::size_t sealed = n / block_values * block_values;
                bitplane::vector<std::int32_t> v;
                if (as_bytes) {
                    bitplane::detail::vector_core& core = bitplane::detail::vector_access::core(v);
                    for (std::size_t b = 0; b < sealed; b += block_values) {
                        std::vector<std::byte> bytes(bitplane::codec::max_block_bytes);
                        const std::span<const std::uint32_t> bits(
                            reinterpret_cast<const std::uint32_t*>(values.data()) + b, block_values);
                        bytes.resize(bitplane::codec::encode_block(bits, true, bytes));
                        core.append_encoded_block(bytes);
                    }
                    for (std::size_t i = sealed; i < n; ++i) v.push_back(values[i]);
                } else {
                    v = bitplane::vector<std::int32_t>(std::span<const std::int32_t>(values.data(), values.size()));
                }
                ASSERT_EQ(v.size(), n);
                for (const auto& [lo, hi] : std::vector<std::pair<std::int32_t, std::int32_t>>{
                         {-5, 1}, {-6, 2}, {0, 1}, {-5, 0}, {2, 9}, {-9, -6}, {1, 1}, {-5, -5}}) {
                    check_probe(v, values, op::range, lo, hi, true);
                    if (::testing::Test::HasFatalFailure()) return;
                }
            }
        }
    });
}
