// Shared test data: seeded generators of the value shapes bitplane must handle (uniform k-bit
// for every k, sparse, runs, constants, sorted series and timestamps, small negatives and -1
// sentinels, full-range, all ones, alternating patterns, values next to INT32_MIN/INT32_MAX,
// uniform values with some planes always clear, non-zeros spaced ~255 apart, and a mix of all
// of them), the standard sizes around block edges, and small helpers.
//
// Every generator is a pure function of (shape, count, seed). The base seed is 0xB17F1A7E
// unless the environment variable BITPLANE_TEST_SEED sets another (decimal or 0x-hex);
// BITPLANE_SEED_TRACE puts it in every failure message, so a failure can be replayed with
//   BITPLANE_TEST_SEED=<seed> ./bitplane_tests --gtest_filter=<test>
//
// quick_mode() is true under a sanitizer (ASan makes everything ~10x slower) or when
// BITPLANE_TEST_QUICK is set to anything but 0; tests then sample instead of checking
// exhaustively, but keep every kind of check.
#pragma once

#include <bitplane/simd.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BITPLANE_TEST_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(SANITIZE) || defined(BITPLANE_SANITIZE)
#define BITPLANE_TEST_UNDER_ASAN 1
#endif

namespace bitplane_test {

// ---- seeds ------------------------------------------------------------------------------------

inline std::uint64_t base_seed() {
    static const std::uint64_t seed = [] {
        const char* env = std::getenv("BITPLANE_TEST_SEED");
        return env != nullptr && *env != '\0' ? std::strtoull(env, nullptr, 0) : 0xB17F1A7Eull;
    }();
    return seed;
}

inline bool quick_mode() {
#if defined(BITPLANE_TEST_UNDER_ASAN)
    return true;
#else
    static const bool quick = [] {
        const char* env = std::getenv("BITPLANE_TEST_QUICK");
        return env != nullptr && *env != '\0' && std::string_view(env) != "0";
    }();
    return quick;
#endif
}

inline std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/// A seed for one case: the base seed mixed with a tag and up to three numbers.
inline std::uint64_t case_seed(std::string_view tag, std::uint64_t a = 0, std::uint64_t b = 0, std::uint64_t c = 0) {
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (const char ch : tag) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001B3ull;
    return splitmix64(splitmix64(splitmix64(splitmix64(base_seed() ^ h) + a) + b) + c);
}

inline std::string seed_note() {
    return "BITPLANE_TEST_SEED=" + std::to_string(base_seed()) + " (set it to replay)";
}

#define BITPLANE_SEED_TRACE() SCOPED_TRACE(::bitplane_test::seed_note())

// ---- shapes -----------------------------------------------------------------------------------

enum class shape_kind {
    uniform,               // uniform k-bit values, k = bits (0..32)
    sparse_90,             // 90% zeros, the rest uniform 20-bit non-zero
    sparse_999,            // 99.9% zeros, the rest uniform 20-bit non-zero
    runs,                  // piecewise constant, random run lengths 1..600
    constant,              // one random value everywhere
    sorted_steps,          // non-decreasing, steps of 0..3
    timestamps,            // growing by 1000 +- 15
    small_negative,        // int32 in [-100, 100]
    minus_one_sentinels,   // int32: 20% -1, else 0..999
    full_range,            // uniform 32-bit
    all_ones,              // 0xFFFFFFFF
    alternating_bits,      // 0x55555555, 0xAAAAAAAA, ...
    alternating_zero_one,  // 0, 1, 0, 1, ...
    alternating_min_max,   // INT32_MIN, INT32_MAX, ...
    near_int_min,          // INT32_MIN + 0..1023
    near_int_max,          // INT32_MAX - 0..1023
    masked,                // uniform 16-bit with bits 2, 3, 10, 11, 12, 14 clear: live planes with gaps
    spaced,                // zeros, with a non-zero every 250..260 values (gap codes near their escape)
    mixed,                 // segments of random length, each of another shape
    category_runs,         // runs (1..40) of small categories in [-40, 40]: steps up and down
};

struct shape {
    shape_kind kind = shape_kind::uniform;
    unsigned bits = 0;  // uniform only

    [[nodiscard]] std::string name() const {
        switch (kind) {
            case shape_kind::uniform: return "uniform" + std::to_string(bits);
            case shape_kind::sparse_90: return "sparse_90";
            case shape_kind::sparse_999: return "sparse_999";
            case shape_kind::runs: return "runs";
            case shape_kind::constant: return "constant";
            case shape_kind::sorted_steps: return "sorted_steps";
            case shape_kind::timestamps: return "timestamps";
            case shape_kind::small_negative: return "small_negative";
            case shape_kind::minus_one_sentinels: return "minus_one_sentinels";
            case shape_kind::full_range: return "full_range";
            case shape_kind::all_ones: return "all_ones";
            case shape_kind::alternating_bits: return "alternating_bits";
            case shape_kind::alternating_zero_one: return "alternating_zero_one";
            case shape_kind::alternating_min_max: return "alternating_min_max";
            case shape_kind::near_int_min: return "near_int_min";
            case shape_kind::near_int_max: return "near_int_max";
            case shape_kind::masked: return "masked";
            case shape_kind::spaced: return "spaced";
            case shape_kind::mixed: return "mixed";
            case shape_kind::category_runs: return "category_runs";
        }
        return "?";
    }
    [[nodiscard]] std::uint64_t id() const { return static_cast<std::uint64_t>(kind) * 64 + bits; }
};

inline shape uniform(unsigned bits) { return {shape_kind::uniform, bits}; }
inline shape of(shape_kind kind) { return {kind, 0}; }

/// Every shape except `mixed`: uniform 0..32 bits, then the structured ones.
inline std::vector<shape> basic_shapes() {
    std::vector<shape> out;
    for (unsigned k = 0; k <= 32; ++k) out.push_back(uniform(k));
    for (shape_kind kind : {shape_kind::sparse_90, shape_kind::sparse_999, shape_kind::runs, shape_kind::constant,
                            shape_kind::sorted_steps, shape_kind::timestamps, shape_kind::small_negative,
                            shape_kind::minus_one_sentinels, shape_kind::full_range, shape_kind::all_ones,
                            shape_kind::alternating_bits, shape_kind::alternating_zero_one,
                            shape_kind::alternating_min_max, shape_kind::near_int_min, shape_kind::near_int_max,
                            shape_kind::masked, shape_kind::spaced, shape_kind::category_runs})
        out.push_back(of(kind));
    return out;
}

/// basic_shapes() and `mixed`.
inline std::vector<shape> all_shapes() {
    std::vector<shape> out = basic_shapes();
    out.push_back(of(shape_kind::mixed));
    return out;
}

/// A few shapes with different encodings (raw, sparse, runs, delta, zigzag, frame of
/// reference, constants), for tests too slow to run on every shape.
inline std::vector<shape> representative_shapes() {
    return {uniform(0),          uniform(1),
            uniform(10),         uniform(32),
            of(shape_kind::sparse_90),          of(shape_kind::sparse_999),
            of(shape_kind::runs),               of(shape_kind::constant),
            of(shape_kind::timestamps),         of(shape_kind::small_negative),
            of(shape_kind::minus_one_sentinels), of(shape_kind::all_ones),
            of(shape_kind::alternating_bits),   of(shape_kind::near_int_max),
            of(shape_kind::category_runs),      of(shape_kind::mixed)};
}

namespace detail {

inline std::uint32_t bits_of(std::int32_t v) { return std::bit_cast<std::uint32_t>(v); }

inline std::uint32_t nonzero20(std::mt19937_64& rng) {
    return static_cast<std::uint32_t>(std::uniform_int_distribution<std::uint32_t>(1, (1u << 20) - 1)(rng));
}

inline void fill(const shape& s, std::span<std::uint32_t> out, std::mt19937_64& rng, std::size_t start) {
    const std::size_t n = out.size();
    auto below = [&rng](std::uint64_t bound) { return static_cast<std::uint32_t>(rng() % bound); };
    switch (s.kind) {
        case shape_kind::uniform:
            for (auto& v : out) {
                const auto r = static_cast<std::uint32_t>(rng());
                v = s.bits == 0 ? 0u : s.bits >= 32 ? r : r & ((1u << s.bits) - 1u);
            }
            break;
        case shape_kind::sparse_90:
        case shape_kind::sparse_999: {
            const double p = s.kind == shape_kind::sparse_90 ? 0.1 : 0.001;
            std::bernoulli_distribution nonzero(p);
            for (auto& v : out) v = nonzero(rng) ? nonzero20(rng) : 0u;
            break;
        }
        case shape_kind::runs: {
            std::size_t i = 0;
            while (i < n) {
                const std::size_t len = 1 + below(600);
                const auto value = static_cast<std::uint32_t>(rng()) >> below(32);
                for (std::size_t e = std::min(n, i + len); i < e; ++i) out[i] = value;
            }
            break;
        }
        case shape_kind::constant: {
            const auto value = static_cast<std::uint32_t>(rng());
            for (auto& v : out) v = value;
            break;
        }
        case shape_kind::sorted_steps: {
            std::uint32_t value = below(1'000'000);
            for (auto& v : out) {
                value += below(4);
                v = value;
            }
            break;
        }
        case shape_kind::timestamps: {
            std::uint32_t value = 1'600'000'000u + below(1000);
            for (auto& v : out) {
                value += 1000u + below(31) - 15u;
                v = value;
            }
            break;
        }
        case shape_kind::small_negative:
            for (auto& v : out) v = bits_of(static_cast<std::int32_t>(below(201)) - 100);
            break;
        case shape_kind::minus_one_sentinels:
            for (auto& v : out) v = below(5) == 0 ? bits_of(-1) : below(1000);
            break;
        case shape_kind::full_range:
            for (auto& v : out) v = static_cast<std::uint32_t>(rng());
            break;
        case shape_kind::all_ones:
            for (auto& v : out) v = 0xFFFFFFFFu;
            break;
        case shape_kind::alternating_bits:
            for (std::size_t i = 0; i < n; ++i) out[i] = (start + i) % 2 == 0 ? 0x55555555u : 0xAAAAAAAAu;
            break;
        case shape_kind::alternating_zero_one:
            for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint32_t>((start + i) % 2);
            break;
        case shape_kind::alternating_min_max:
            for (std::size_t i = 0; i < n; ++i) out[i] = (start + i) % 2 == 0 ? 0x80000000u : 0x7FFFFFFFu;
            break;
        case shape_kind::near_int_min:
            for (auto& v : out) v = 0x80000000u + below(1024);
            break;
        case shape_kind::near_int_max:
            for (auto& v : out) v = 0x7FFFFFFFu - below(1024);
            break;
        case shape_kind::masked:
            for (auto& v : out) v = static_cast<std::uint32_t>(rng()) & 0xA3F3u;
            break;
        case shape_kind::spaced: {
            for (auto& v : out) v = 0;
            for (std::size_t i = below(260); i < n; i += 250 + below(11)) out[i] = nonzero20(rng);
            break;
        }
        case shape_kind::category_runs: {
            std::size_t i = 0;
            while (i < n) {
                const std::size_t len = 1 + below(40);
                const auto value = static_cast<std::uint32_t>(static_cast<std::int32_t>(below(81)) - 40);
                for (std::size_t e = std::min(n, i + len); i < e; ++i) out[i] = value;
            }
            break;
        }
        case shape_kind::mixed: {
            const std::vector<shape> parts = basic_shapes();
            std::size_t i = 0;
            while (i < n) {
                const std::size_t len = std::min<std::size_t>(n - i, 1 + below(3000));
                fill(parts[below(parts.size())], out.subspan(i, len), rng, start + i);
                i += len;
            }
            break;
        }
    }
}

}  // namespace detail

/// `count` values of shape `s` as 32-bit patterns; the same arguments give the same values.
inline std::vector<std::uint32_t> make_values(const shape& s, std::size_t count, std::uint64_t seed) {
    std::vector<std::uint32_t> out(count);
    std::mt19937_64 rng(seed);
    detail::fill(s, out, rng, 0);
    return out;
}

/// make_values as T (uint32_t or int32_t, same bits).
template <class T>
std::vector<T> make_typed(const shape& s, std::size_t count, std::uint64_t seed) {
    const std::vector<std::uint32_t> bits = make_values(s, count, seed);
    std::vector<T> out(count);
    for (std::size_t i = 0; i < count; ++i) out[i] = std::bit_cast<T>(bits[i]);
    return out;
}

// ---- sizes ------------------------------------------------------------------------------------

inline constexpr std::size_t large_size = 50'001;  // 24 full blocks and a partial one

/// 0, 1, 2, around one and two blocks, three blocks and a bit, and ~50k values.
inline const std::vector<std::size_t>& standard_sizes() {
    static const std::vector<std::size_t> sizes = {0, 1, 2, 2047, 2048, 2049, 4096, 3 * 2048 + 5, large_size};
    return sizes;
}

// ---- comparison -------------------------------------------------------------------------------

/// Equal contents, or a failure naming the size or the first differing index.
template <class T>
::testing::AssertionResult same_values(std::span<const T> expected, std::span<const T> actual) {
    if (expected.size() != actual.size())
        return ::testing::AssertionFailure() << "sizes differ: expected " << expected.size() << ", got "
                                             << actual.size();
    for (std::size_t i = 0; i < expected.size(); ++i)
        if (expected[i] != actual[i])
            return ::testing::AssertionFailure() << "first difference at index " << i << " of " << expected.size()
                                                 << ": expected " << expected[i] << ", got " << actual[i];
    return ::testing::AssertionSuccess();
}

template <class T>
::testing::AssertionResult same_values(const std::vector<T>& expected, const std::vector<T>& actual) {
    return same_values<T>(std::span<const T>(expected), std::span<const T>(actual));
}

/// A one-line description of a case for SCOPED_TRACE.
inline std::string case_name(const shape& s, std::size_t count, std::string_view extra = {}) {
    std::string out = s.name() + " n=" + std::to_string(count);
    if (!extra.empty()) {
        out += ' ';
        out += extra;
    }
    return out;
}

// ---- plane masks ------------------------------------------------------------------------------

/// Masks of one 2048-bit plane (64 words) for the kernels that select, deposit or extract bits:
/// empty, full, random ones of falling density (1/2 down to 1/64), long stretches with a partial
/// first word and lone bits after them and in the last position, and the last bit alone.
inline std::vector<std::vector<std::uint32_t>> plane_masks(std::mt19937_64& rng) {
    constexpr std::size_t words = 64;
    using mask = std::vector<std::uint32_t>;
    std::vector<mask> out;
    out.push_back(mask(words, 0));
    out.push_back(mask(words, 0xFFFFFFFFu));
    for (int density = 0; density < 6; ++density) {
        mask m(words);
        for (auto& w : m) {
            auto r = static_cast<std::uint32_t>(rng());
            for (int d = 0; d < density; ++d) r &= static_cast<std::uint32_t>(rng());
            w = r;
        }
        out.push_back(m);
    }
    mask stretches(words, 0);
    for (std::size_t w = 3; w < 40; ++w) stretches[w] = 0xFFFFFFFFu;
    stretches[2] = 0xFFFF0000u;
    stretches[45] = 0x80000001u;
    stretches[63] = 0x80000000u;
    out.push_back(stretches);
    mask last(words, 0);
    last[63] = 0x80000000u;
    out.push_back(last);
    return out;
}

/// The SIMD paths a test that sweeps paths itself runs on: every path this machine has
/// (whatever BITPLANE_SIMD says), except when BITPLANE_TEST_PATHS_SWEPT is set to anything but
/// 0: then only the active one. scripts/test.sh sets it for its runs with one path forced for
/// the whole process, after a run in which every sweep covered every path: the sweeps would
/// repeat the same work on each forced run, while the rest of each test (what it does outside
/// the sweep) must still run on the forced path.
inline std::vector<bitplane::simd_path> paths_to_sweep() {
    static const bool swept = [] {
        const char* env = std::getenv("BITPLANE_TEST_PATHS_SWEPT");
        return env != nullptr && *env != '\0' && std::string_view(env) != "0";
    }();
    if (swept) return {bitplane::active_simd_path()};
    return bitplane::available_simd_paths();
}

/// Runs `body` on every path of paths_to_sweep(), each under a SCOPED_TRACE naming it,
/// restoring the path afterwards.
template <class F>
void on_every_path(F&& body) {
    const bitplane::simd_path saved = bitplane::active_simd_path();
    for (const bitplane::simd_path path : paths_to_sweep()) {
        SCOPED_TRACE(std::string("SIMD path ") + std::string(bitplane::to_string(path)));
        bitplane::set_simd_path(path);
        body();
    }
    bitplane::set_simd_path(saved);
}

}  // namespace bitplane_test
