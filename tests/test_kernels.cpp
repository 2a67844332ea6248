// The kernel table (every SIMD path this CPU runs) against naive bit-loop references, and the
// public block API on top of it. Inputs are random from a fixed seed; set BITPLANE_TEST_SEED
// to run other inputs (the seed is printed with every failure).
#include "../src/simd/kernels.hpp"
#include "test_support.hpp"

#include <bitplane/block.hpp>
#include <bitplane/error.hpp>
#include <bitplane/simd.hpp>

#include <gtest/gtest.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define BITPLANE_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define BITPLANE_TEST_ASAN 1
#endif
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <bit>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace {

using bitplane::block_values;
using bitplane::plane_count;
using bitplane::plane_words;
using bitplane::simd_path;
using bitplane::detail::kernel_table;
using words = std::vector<std::uint32_t>;

constexpr std::size_t block_words = plane_count * plane_words;  // 2048
constexpr std::uint32_t garbage = 0xDEADBEEFu;

std::uint64_t base_seed() {
    const char* env = std::getenv("BITPLANE_TEST_SEED");
    return env != nullptr ? std::strtoull(env, nullptr, 0) : 0x5EEDB175ull;
}

std::string hex(std::uint32_t x) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(x));
    return buf;
}

std::string seed_note(std::uint64_t salt) {
    return "BITPLANE_TEST_SEED=" + std::to_string(base_seed()) + " salt=" + std::to_string(salt);
}

// ---- naive references: one bit at a time ----------------------------------------------------

bool bit(std::uint32_t w, std::size_t i) {
    return ((w >> i) & 1u) != 0;
}

words ref_transpose(const words& values) {
    words planes(block_words, 0);
    for (std::size_t v = 0; v < values.size(); ++v) {
        for (std::size_t j = 0; j < plane_count; ++j) {
            if (bit(values[v], j)) {
                planes[j * plane_words + v / 32] |= 1u << (v % 32);
            }
        }
    }
    return planes;
}

words ref_untranspose(const std::uint32_t* planes, std::uint32_t live) {
    words values(block_values, 0);
    for (std::size_t v = 0; v < block_values; ++v) {
        for (std::size_t j = 0; j < plane_count; ++j) {
            if (bit(live, j) && bit(planes[j * plane_words + v / 32], v % 32)) {
                values[v] |= 1u << j;
            }
        }
    }
    return values;
}

std::uint64_t ref_popcount(const std::uint32_t* w, std::size_t count) {
    std::uint64_t n = 0;
    for (std::size_t k = 0; k < count; ++k) {
        for (std::size_t b = 0; b < 32; ++b) {
            n += bit(w[k], b) ? 1 : 0;
        }
    }
    return n;
}

std::vector<std::uint16_t> ref_pair_popcounts(const std::uint32_t* planes, std::size_t count) {
    std::vector<std::uint16_t> out(count * count, 0);
    for (std::size_t i = 0; i < count; ++i) {
        for (std::size_t j = 0; j < count; ++j) {
            std::size_t n = 0;
            for (std::size_t k = 0; k < plane_words; ++k) {
                for (std::size_t b = 0; b < 32; ++b) {
                    const bool x = bit(planes[i * plane_words + k], b);
                    const bool y = i == j ? false : bit(planes[j * plane_words + k], b);
                    n += x != y ? 1 : 0;
                }
            }
            out[i * count + j] = static_cast<std::uint16_t>(n);
        }
    }
    return out;
}

template <class T>
::testing::AssertionResult same(const std::vector<T>& got, const std::vector<T>& want) {
    if (got.size() != want.size()) {
        return ::testing::AssertionFailure() << "size " << got.size() << " != " << want.size();
    }
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (got[i] != want[i]) {
            return ::testing::AssertionFailure() << "first difference at [" << i << "]: got " << got[i]
                                                 << ", want " << want[i];
        }
    }
    return ::testing::AssertionSuccess();
}

// ---- inputs ----------------------------------------------------------------------------------

struct shape {
    std::string name;
    words values;
};

std::uint32_t low_bits(std::size_t k) {
    return k >= 32 ? 0xFFFFFFFFu : (1u << k) - 1u;
}

std::vector<shape> value_shapes(std::uint64_t salt) {
    std::mt19937_64 rng(base_seed() ^ (salt * 0x9E3779B97F4A7C15ull));
    auto next32 = [&rng] { return static_cast<std::uint32_t>(rng()); };
    std::vector<shape> shapes;
    for (std::size_t k = 0; k <= 32; ++k) {
        words v(block_values);
        for (auto& x : v) x = next32() & low_bits(k);
        shapes.push_back({"uniform " + std::to_string(k) + "-bit", v});
    }
    shapes.push_back({"all zeros", words(block_values, 0)});
    shapes.push_back({"all ones", words(block_values, 0xFFFFFFFFu)});
    {
        words v(block_values);
        for (auto& x : v) x = static_cast<std::uint32_t>(-static_cast<std::int32_t>(1 + rng() % 100));
        shapes.push_back({"small negatives", v});
    }
    {
        words v(block_values, 0);
        for (auto& x : v) x = rng() % 1000 == 0 ? next32() | 1u : 0u;
        v[rng() % block_values] = next32() | 0x80000000u;  // never all zero
        shapes.push_back({"sparse", v});
    }
    {
        words v(block_values);
        for (std::size_t i = 0; i < block_values;) {
            const std::uint32_t x = next32() & 0xFFFu;
            for (std::size_t n = 1 + rng() % 64; n > 0 && i < block_values; --n) v[i++] = x;
        }
        shapes.push_back({"runs", v});
    }
    {
        words v(block_values);
        for (auto& x : v) x = next32() & 0xFFFFFu;
        std::sort(v.begin(), v.end());
        shapes.push_back({"sorted", v});
    }
    {
        words v(block_values);
        for (std::size_t i = 0; i < block_values; ++i) v[i] = static_cast<std::uint32_t>(i);
        shapes.push_back({"index", v});
    }
    {
        words v(block_values);
        for (std::size_t i = 0; i < block_values; ++i) v[i] = 1u << (i % 32);
        shapes.push_back({"diagonal bits", v});
    }
    {
        words v(block_values);
        for (std::size_t i = 0; i < block_values; ++i) v[i] = 1u << ((i * 7 + i / 32) % 32);
        shapes.push_back({"scattered single bits", v});
    }
    return shapes;
}

words random_words(std::size_t n, std::uint64_t salt) {
    std::mt19937_64 rng(base_seed() ^ (salt * 0xD1B54A32D192ED03ull));
    words w(n);
    for (auto& x : w) x = static_cast<std::uint32_t>(rng());
    return w;
}

// ---- running every path ------------------------------------------------------------------------

class path_guard {
public:
    path_guard() : saved_(bitplane::active_simd_path()) {}
    ~path_guard() { bitplane::set_simd_path(saved_); }
    path_guard(const path_guard&) = delete;
    path_guard& operator=(const path_guard&) = delete;

private:
    simd_path saved_;
};

template <class F>
void for_each_path(F&& f) {
    path_guard guard;
    const auto paths = bitplane_test::paths_to_sweep();
    ASSERT_FALSE(paths.empty());
    for (const simd_path p : paths) {
        bitplane::set_simd_path(p);
        SCOPED_TRACE("path " + std::string(bitplane::to_string(p)));
        const kernel_table& k = bitplane::detail::active_kernels();
        ASSERT_EQ(k.path, p);
        f(k);
    }
}

using untranspose_fn = void (*)(const std::uint32_t*, std::uint32_t, std::uint32_t*);

/// for_each_path, once for each untranspose kernel of the path's table: `untranspose` and,
/// where the path has its own, `untranspose_in_cache` (the avx512 zmm kernel).
template <class F>
void for_each_untranspose(F&& f) {
    for_each_path([&](const kernel_table& k) {
        {
            SCOPED_TRACE("untranspose");
            f(k.untranspose);
        }
        if (k.untranspose_in_cache != nullptr) {
            SCOPED_TRACE("untranspose_in_cache");
            f(k.untranspose_in_cache);
        }
    });
}

// ---- kernel tests ------------------------------------------------------------------------------

TEST(Kernels, TransposeMatchesReference) {
    for_each_path([](const kernel_table& k) {
        for (const shape& s : value_shapes(1)) {
            SCOPED_TRACE(s.name + " " + seed_note(1));
            words out(block_words, garbage);
            k.transpose(s.values.data(), out.data());
            EXPECT_TRUE(same(out, ref_transpose(s.values)));
        }
    });
}

TEST(Kernels, TransposeUnalignedInput) {
    for_each_path([](const kernel_table& k) {
        for (std::size_t offset = 1; offset < 8; offset += 3) {
            SCOPED_TRACE("offset " + std::to_string(offset));
            words buf = random_words(block_values + offset, 2);
            const words values(buf.begin() + static_cast<std::ptrdiff_t>(offset), buf.end());
            words out(block_words + 1, garbage);
            k.transpose(buf.data() + offset, out.data() + 1);
            EXPECT_TRUE(same(words(out.begin() + 1, out.end()), ref_transpose(values)));
            EXPECT_EQ(out[0], garbage);
        }
    });
}

std::vector<std::uint32_t> live_masks(std::uint64_t salt) {
    std::mt19937_64 rng(base_seed() ^ salt);
    std::vector<std::uint32_t> masks = {0xFFFFFFFFu, 0u,          0xFFFF0000u, 0x0000FFFFu, 0xAAAAAAAAu,
                                        0x55555555u, 0x01010101u, 0x80808080u, 0x80000001u};
    for (std::size_t k = 0; k <= 32; ++k) masks.push_back(low_bits(k));
    for (std::size_t j = 0; j < 32; ++j) masks.push_back(1u << j);
    for (int i = 0; i < 16; ++i) masks.push_back(static_cast<std::uint32_t>(rng()));
    for (int i = 0; i < 8; ++i) {  // sparse random subsets
        masks.push_back(static_cast<std::uint32_t>(rng() & rng() & rng()));
    }
    return masks;
}

TEST(Kernels, UntransposeIgnoresPlanesOutsideLive) {
    for_each_untranspose([](untranspose_fn untranspose) {
        // Every plane is random garbage; only the live ones may reach the output.
        const words planes = random_words(block_words, 3);
        for (const std::uint32_t live : live_masks(3)) {
            SCOPED_TRACE("live " + hex(live) + " " + seed_note(3));
            words out(block_values, garbage);
            untranspose(planes.data(), live, out.data());
            EXPECT_TRUE(same(out, ref_untranspose(planes.data(), live)));
        }
    });
}

// Every live-plane count 1..32, as the low planes and as random ones, on both sides of the
// count where the AVX2 path changes method (8x8 bit-matrix transposes from 6 live planes):
// every path gives the scalar path's values.
TEST(Kernels, UntransposeMatchesScalarAtEveryWidth) {
    const words planes = random_words(block_words, 11);
    std::mt19937_64 rng(base_seed() ^ 11);
    std::vector<std::uint32_t> masks;
    for (std::size_t w = 1; w <= 32; ++w) {
        masks.push_back(low_bits(w));
        masks.push_back(~low_bits(32 - w));  // the top w planes
        std::uint32_t m = 0;
        while (static_cast<std::size_t>(std::popcount(m)) < w) m |= 1u << (rng() % 32);
        masks.push_back(m);
    }
    std::vector<words> expected;
    {
        path_guard guard;
        bitplane::set_simd_path(simd_path::scalar);
        for (const std::uint32_t live : masks) {
            words out(block_values, garbage);
            bitplane::detail::active_kernels().untranspose(planes.data(), live, out.data());
            expected.push_back(out);
        }
    }
    for_each_untranspose([&](untranspose_fn untranspose) {
        for (std::size_t i = 0; i < masks.size(); ++i) {
            SCOPED_TRACE("live " + hex(masks[i]) + " " + seed_note(11));
            words out(block_values, garbage);
            untranspose(planes.data(), masks[i], out.data());
            EXPECT_TRUE(same(out, expected[i]));
            EXPECT_TRUE(same(out, ref_untranspose(planes.data(), masks[i])));
        }
    });
}

#if defined(__linux__)
// Planes outside `live` must not even be read: put 16 of them on a page with no access.
TEST(Kernels, UntransposeNeverReadsDeadPlanes) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t half = 16 * bitplane::plane_bytes;  // 16 planes
    if (page != half) GTEST_SKIP() << "needs 4 KiB pages";
    void* mem = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(mem, MAP_FAILED);
    auto* planes = static_cast<std::uint32_t*>(mem);
    const words raw = random_words(block_words, 7);
    std::copy(raw.begin(), raw.end(), planes);
    for_each_untranspose([&](untranspose_fn untranspose) {
        for (const bool high_dead : {true, false}) {
            SCOPED_TRACE(high_dead ? "planes 16..31 unreadable" : "planes 0..15 unreadable");
            char* dead = static_cast<char*>(mem) + (high_dead ? page : 0);
            ASSERT_EQ(mprotect(dead, page, PROT_NONE), 0);
            for (const std::uint32_t live : {0x0000FFFFu, 0x000003FFu, 0x00008001u, 0u}) {
                const std::uint32_t l = high_dead ? live : live << 16;
                words out(block_values, garbage);
                untranspose(planes, l, out.data());  // a read of a dead plane faults here
                EXPECT_TRUE(same(out, ref_untranspose(raw.data(), l))) << hex(l);
            }
            ASSERT_EQ(mprotect(dead, page, PROT_READ | PROT_WRITE), 0);
        }
    });
    munmap(mem, 2 * page);
}
#endif

#if defined(BITPLANE_TEST_ASAN)
// The same at plane granularity, for random masks: dead planes are poisoned for ASan.
TEST(Kernels, UntransposeNeverReadsDeadPlanesAsan) {
    words planes = random_words(block_words, 8);
    for_each_untranspose([&](untranspose_fn untranspose) {
        for (const std::uint32_t live : live_masks(8)) {
            for (std::size_t j = 0; j < plane_count; ++j) {
                if (!bit(live, j)) ASAN_POISON_MEMORY_REGION(planes.data() + j * plane_words, bitplane::plane_bytes);
            }
            words out(block_values, garbage);
            untranspose(planes.data(), live, out.data());
            ASAN_UNPOISON_MEMORY_REGION(planes.data(), planes.size() * sizeof(std::uint32_t));
            EXPECT_TRUE(same(out, ref_untranspose(planes.data(), live))) << hex(live);
        }
    });
}
#endif

TEST(Kernels, UntransposeUnalignedPlanes) {
    for_each_untranspose([](untranspose_fn untranspose) {
        const words buf = random_words(block_words + 1, 4);
        for (const std::uint32_t live : {0xFFFFFFFFu, 0x3FFu}) {
            words out(block_values + 2, garbage);
            untranspose(buf.data() + 1, live, out.data() + 1);
            EXPECT_TRUE(same(words(out.begin() + 1, out.end() - 1), ref_untranspose(buf.data() + 1, live)));
            EXPECT_EQ(out.front(), garbage);
            EXPECT_EQ(out.back(), garbage);
        }
    });
}

TEST(Kernels, RoundTrip) {
    for_each_path([](const kernel_table& k) {
        for (const shape& s : value_shapes(5)) {
            SCOPED_TRACE(s.name + " " + seed_note(5));
            words planes(block_words, garbage);
            k.transpose(s.values.data(), planes.data());
            words back(block_values, garbage);
            k.untranspose(planes.data(), 0xFFFFFFFFu, back.data());
            EXPECT_TRUE(same(back, s.values));
            // Only the planes some value uses: still exact.
            std::uint32_t used = 0;
            for (const std::uint32_t v : s.values) used |= v;
            std::fill(back.begin(), back.end(), garbage);
            k.untranspose(planes.data(), used, back.data());
            EXPECT_TRUE(same(back, s.values));
        }
    });
}

// Planes with every kind of pair: random, identical, complementary, all zero, all one, sparse.
words pair_test_planes(std::size_t count, std::uint64_t salt) {
    words planes = random_words(count * plane_words, salt);
    std::mt19937_64 rng(base_seed() ^ salt);
    for (std::size_t i = 0; i < count; ++i) {
        std::uint32_t* p = planes.data() + i * plane_words;
        switch (i % 6) {
            case 1:
                if (i > 0) std::copy_n(p - plane_words, plane_words, p);  // equal to the previous
                break;
            case 2:
                for (std::size_t w = 0; w < plane_words; ++w) p[w] = ~(p - plane_words)[w];  // complement
                break;
            case 3: std::fill_n(p, plane_words, 0u); break;
            case 4: std::fill_n(p, plane_words, 0xFFFFFFFFu); break;
            case 5:
                for (std::size_t w = 0; w < plane_words; ++w) p[w] &= static_cast<std::uint32_t>(rng() & rng());
                break;
            default: break;
        }
    }
    return planes;
}

TEST(Kernels, PairPopcountsMatchReference) {
    for_each_path([](const kernel_table& k) {
        for (const std::size_t count : {0, 1, 2, 10, 31, 32, 33}) {
            SCOPED_TRACE("count " + std::to_string(count) + " " + seed_note(6 + count));
            const words planes = pair_test_planes(count, 6 + count);
            constexpr std::uint16_t sentinel = 0xABCD;
            std::vector<std::uint16_t> out(count * count + 8, sentinel);
            k.pair_popcounts(planes.data(), count, out.data());
            const std::vector<std::uint16_t> tail(out.begin() + static_cast<std::ptrdiff_t>(count * count), out.end());
            out.resize(count * count);
            EXPECT_TRUE(same(out, ref_pair_popcounts(planes.data(), count)));
            EXPECT_TRUE(same(tail, std::vector<std::uint16_t>(8, sentinel))) << "wrote past count * count";
        }
    });
}

TEST(Kernels, PairPopcountsExtremes) {
    for_each_path([](const kernel_table& k) {
        // Plane 0 all ones, plane 1 all zeros: 2048 does not fit a byte counter.
        words planes(2 * plane_words, 0);
        std::fill_n(planes.begin(), plane_words, 0xFFFFFFFFu);
        std::vector<std::uint16_t> out(4, 0);
        k.pair_popcounts(planes.data(), 2, out.data());
        EXPECT_EQ(out, (std::vector<std::uint16_t>{2048, 2048, 2048, 0}));
        // Unaligned planes.
        const words buf = pair_test_planes(11, 40);
        std::vector<std::uint16_t> got(100, 0);
        k.pair_popcounts(buf.data() + 1, 10, got.data());
        words shifted(buf.begin() + 1, buf.begin() + 1 + 10 * plane_words);
        EXPECT_TRUE(same(got, ref_pair_popcounts(shifted.data(), 10)));
    });
}

TEST(Kernels, PopcountWords) {
    std::vector<std::size_t> counts;
    for (std::size_t n = 0; n <= 72; ++n) counts.push_back(n);
    for (const std::size_t n : {127, 128, 129, 247, 248, 249, 255, 256, 257, 496, 1000, 1023, 1024, 1025, 2048, 4099, 10007}) {
        counts.push_back(n);
    }
    for_each_path([&counts](const kernel_table& k) {
        const words random = random_words(10008, 50);
        const words ones(10008, 0xFFFFFFFFu);
        for (const std::size_t n : counts) {
            for (const std::size_t offset : {0, 1}) {
                SCOPED_TRACE("count " + std::to_string(n) + " offset " + std::to_string(offset));
                EXPECT_EQ(k.popcount_words(random.data() + offset, n), ref_popcount(random.data() + offset, n));
                EXPECT_EQ(k.popcount_words(ones.data() + offset, n), 32 * n);  // byte counters must not wrap
            }
        }
    });
}

TEST(Kernels, PathsAgreeOnEveryShape) {
    // Differential check: every path gives the scalar path's bytes.
    const auto shapes = value_shapes(60);
    std::vector<words> scalar_planes;
    {
        path_guard guard;
        bitplane::set_simd_path(simd_path::scalar);
        for (const shape& s : shapes) {
            words p(block_words);
            bitplane::detail::active_kernels().transpose(s.values.data(), p.data());
            scalar_planes.push_back(p);
        }
    }
    for_each_path([&](const kernel_table& k) {
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            SCOPED_TRACE(shapes[i].name);
            words p(block_words);
            k.transpose(shapes[i].values.data(), p.data());
            EXPECT_TRUE(same(p, scalar_planes[i]));
        }
    });
}

// ---- public API ----------------------------------------------------------------------------------

words planes_of(const bitplane::block_planes& b) {
    words w;
    for (const auto& p : b.planes) w.insert(w.end(), p.begin(), p.end());
    return w;
}

TEST(BlockApi, TransposePadsWithZeros) {
    const words values = random_words(block_values + 1, 70);
    for_each_path([&values](const kernel_table&) {
        for (const std::size_t n : {0, 1, 2, 31, 32, 33, 1000, 2047, 2048}) {
            SCOPED_TRACE("n " + std::to_string(n));
            bitplane::block_planes out;
            for (auto& p : out.planes) p.fill(garbage);
            bitplane::transpose(std::span(values.data(), n), out);
            words padded(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n));
            padded.resize(block_values, 0);
            EXPECT_TRUE(same(planes_of(out), ref_transpose(padded)));
        }
    });
}

TEST(BlockApi, SizeErrors) {
    const words values(block_values + 1, 1);
    bitplane::block_planes planes;
    EXPECT_THROW(bitplane::transpose(values, planes), bitplane::size_error);
    words out(block_values + 1, 0);
    EXPECT_THROW(bitplane::untranspose(planes, out), bitplane::size_error);
    EXPECT_NO_THROW(bitplane::transpose(std::span(values.data(), block_values), planes));
    EXPECT_NO_THROW(bitplane::untranspose(planes, std::span(out.data(), block_values)));
}

TEST(BlockApi, UntransposeWritesExactlyOutSize) {
    for_each_path([](const kernel_table&) {
        for (const shape& s : value_shapes(80)) {
            bitplane::block_planes planes;
            bitplane::transpose(s.values, planes);
            for (const std::size_t n : {0, 1, 2047, 2048}) {
                SCOPED_TRACE(s.name + " n " + std::to_string(n));
                words out(block_values + 1, garbage);
                bitplane::untranspose(planes, std::span(out.data(), n));
                words want(s.values.begin(), s.values.begin() + static_cast<std::ptrdiff_t>(n));
                want.resize(block_values + 1, garbage);
                EXPECT_TRUE(same(out, want));
            }
        }
    });
}

TEST(BlockApi, UntransposeReadsEveryNonzeroPlane) {
    // All 32 planes random: the public call must use all of them.
    const words raw = random_words(block_words, 81);
    bitplane::block_planes planes;
    for (std::size_t j = 0; j < plane_count; ++j) {
        std::copy_n(raw.begin() + static_cast<std::ptrdiff_t>(j * plane_words), plane_words, planes.planes[j].begin());
    }
    for_each_path([&](const kernel_table&) {
        words out(block_values, garbage);
        bitplane::untranspose(planes, out);
        EXPECT_TRUE(same(out, ref_untranspose(raw.data(), 0xFFFFFFFFu)));
    });
}

bitplane::hamming_matrix reference_matrix(const bitplane::block_planes& b) {
    const words w = planes_of(b);
    const auto flat = ref_pair_popcounts(w.data(), plane_count);
    bitplane::hamming_matrix m{};
    for (std::size_t i = 0; i < plane_count; ++i) {
        for (std::size_t j = 0; j < plane_count; ++j) m[i][j] = flat[i * plane_count + j];
    }
    return m;
}

TEST(BlockApi, HammingMatrixDiagonalIsPlanePopcount) {
    // Plane i: i + 1 bits in its last word, one bit in its first word for odd i, and nothing
    // between. A diagonal counted over the wrong span (the first 32 words, or the pairs'
    // shared words, or the neighbouring plane) misses or adds bits.
    bitplane::block_planes b;
    for (std::size_t i = 0; i < plane_count; ++i) {
        b.planes[i].fill(0);
        b.planes[i][plane_words - 1] = low_bits(i + 1);
        if (i % 2 == 1) b.planes[i][0] = 0x80000000u;
    }
    for_each_path([&b](const kernel_table&) {
        const auto m = bitplane::compute_hamming_matrix(b);
        for (std::size_t i = 0; i < plane_count; ++i) {
            SCOPED_TRACE("plane " + std::to_string(i));
            EXPECT_EQ(m[i][i], i + 1 + (i % 2));
            EXPECT_EQ(m[i][i], ref_popcount(b.planes[i].data(), plane_words));
        }
        EXPECT_EQ(m, reference_matrix(b));
    });
}

TEST(BlockApi, HammingMatrixMatchesReference) {
    for_each_path([](const kernel_table&) {
        for (const shape& s : value_shapes(90)) {
            SCOPED_TRACE(s.name);
            bitplane::block_planes b;
            bitplane::transpose(s.values, b);
            const auto m = bitplane::compute_hamming_matrix(b);
            EXPECT_EQ(m, reference_matrix(b));
            for (std::size_t i = 0; i < plane_count; ++i) {
                EXPECT_EQ(m[i][i], ref_popcount(b.planes[i].data(), plane_words)) << "plane " << i;
                for (std::size_t j = 0; j < plane_count; ++j) EXPECT_EQ(m[i][j], m[j][i]);
            }
        }
    });
}

TEST(BlockApi, HammingMatrixOfAllOnes) {
    const words ones(block_values, 0xFFFFFFFFu);
    bitplane::block_planes b;
    for_each_path([&](const kernel_table&) {
        bitplane::transpose(ones, b);
        const auto m = bitplane::compute_hamming_matrix(b);
        for (std::size_t i = 0; i < plane_count; ++i) {
            for (std::size_t j = 0; j < plane_count; ++j) EXPECT_EQ(m[i][j], i == j ? 2048 : 0);
        }
    });
}

// ---- path selection --------------------------------------------------------------------------------

TEST(SimdPath, NamesRoundTrip) {
    for (const simd_path p : {simd_path::scalar, simd_path::sse2, simd_path::avx2, simd_path::avx512}) {
        EXPECT_EQ(bitplane::parse_simd_path(bitplane::to_string(p)), p);
    }
    EXPECT_EQ(bitplane::to_string(simd_path::scalar), "scalar");
    EXPECT_EQ(bitplane::to_string(simd_path::sse2), "sse2");
    EXPECT_EQ(bitplane::to_string(simd_path::avx2), "avx2");
    EXPECT_EQ(bitplane::to_string(simd_path::avx512), "avx512");
}

TEST(SimdPath, BadNameIsArgumentError) {
    for (const char* bad : {"", "bogus", "AVX2", "AVX512", "avx512f", "sse2 ", "neon"}) {
        SCOPED_TRACE(bad);
        EXPECT_THROW((void)bitplane::parse_simd_path(bad), bitplane::argument_error);
        try {
            (void)bitplane::parse_simd_path(bad);
        } catch (const bitplane::argument_error& e) {
            EXPECT_NE(std::string(e.what()).find("'" + std::string(bad) + "'"), std::string::npos) << e.what();
        }
    }
}

TEST(SimdPath, AvailablePaths) {
    const auto paths = bitplane::available_simd_paths();
    ASSERT_FALSE(paths.empty());
    EXPECT_EQ(paths.front(), simd_path::scalar);
    EXPECT_TRUE(std::is_sorted(paths.begin(), paths.end()));
    EXPECT_EQ(std::set<simd_path>(paths.begin(), paths.end()).size(), paths.size());
#if defined(__x86_64__) || defined(_M_X64)
    EXPECT_NE(std::find(paths.begin(), paths.end(), simd_path::sse2), paths.end()) << "every x86-64 CPU has SSE2";
#endif
    EXPECT_NE(std::find(paths.begin(), paths.end(), bitplane::active_simd_path()), paths.end());
}

TEST(SimdPath, SetAndRestore) {
    path_guard guard;
    for (const simd_path p : bitplane::available_simd_paths()) {
        bitplane::set_simd_path(p);
        EXPECT_EQ(bitplane::active_simd_path(), p);
        EXPECT_EQ(bitplane::detail::active_kernels().path, p);
    }
    for (const simd_path p : {simd_path::scalar, simd_path::sse2, simd_path::avx2, simd_path::avx512}) {
        const auto paths = bitplane::available_simd_paths();
        if (std::find(paths.begin(), paths.end(), p) == paths.end()) {
            EXPECT_THROW(bitplane::set_simd_path(p), bitplane::argument_error);
        }
    }
}

TEST(SimdPath, EnvironmentChoosesStartingPath) {
    // Meaningful when the suite runs with BITPLANE_SIMD set (ctest can do so); every test
    // restores the path it found, so the starting one is still active here.
    const char* env = std::getenv("BITPLANE_SIMD");
    if (env == nullptr || *env == '\0') {
        GTEST_SKIP() << "BITPLANE_SIMD not set";
    }
    EXPECT_EQ(bitplane::to_string(bitplane::active_simd_path()), env);
}

}  // namespace

// ---- value statistics ------------------------------------------------------------------------

namespace {

bitplane::detail::value_stats reference_stats(const std::uint32_t* v, std::size_t n) {
    bitplane::detail::value_stats r;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t x = v[i];
        const auto s = static_cast<std::int32_t>(x);
        r.any |= x;
        r.all &= x;
        r.umin = std::min(r.umin, x);
        r.umax = std::max(r.umax, x);
        r.smin = std::min(r.smin, s);
        r.smax = std::max(r.smax, s);
        const std::uint32_t zz = s < 0 ? ~(x << 1) : x << 1;  // zigzag written differently
        r.zz_any |= zz;
        r.zz_all &= zz;
        r.sum_low += x % 65536;
        r.sum_high += x / 65536;
        r.negatives += s < 0 ? 1 : 0;
        if (i > 0) {
            const auto d = static_cast<std::int32_t>(x - v[i - 1]);
            r.dmin = std::min(r.dmin, d);
            r.dmax = std::max(r.dmax, d);
        }
    }
    return r;
}

::testing::AssertionResult same_stats(const bitplane::detail::value_stats& got,
                                      const bitplane::detail::value_stats& want) {
    const std::array<std::int64_t, 13> g{got.any,    got.all,    got.umin,   got.umax,    got.smin,
                                         got.smax,   got.dmin,   got.dmax,   got.zz_any,  got.zz_all,
                                         got.sum_low, got.sum_high, got.negatives};
    const std::array<std::int64_t, 13> w{want.any,    want.all,    want.umin,   want.umax,    want.smin,
                                         want.smax,   want.dmin,   want.dmax,   want.zz_any,  want.zz_all,
                                         want.sum_low, want.sum_high, want.negatives};
    static const char* names[] = {"any",  "all",    "umin",    "umax",     "smin",     "smax",     "dmin",
                                  "dmax", "zz_any", "zz_all", "sum_low", "sum_high", "negatives"};
    for (std::size_t i = 0; i < g.size(); ++i)
        if (g[i] != w[i]) return ::testing::AssertionFailure() << names[i] << ": got " << g[i] << ", want " << w[i];
    return ::testing::AssertionSuccess();
}

}  // namespace

TEST(Kernels, StatsMatchReferenceOnEveryShapeAndLength) {
    const auto shapes = value_shapes(41);
    for_each_path([&](const kernel_table& k) {
        for (const shape& s : shapes) {
            SCOPED_TRACE(s.name);
            for (std::size_t n : {1u, 2u, 3u, 7u, 8u, 9u, 15u, 16u, 17u, 33u, 1000u, 2047u, 2048u}) {
                SCOPED_TRACE("length " + std::to_string(n));
                bitplane::detail::value_stats got;
                k.stats(s.values.data(), n, &got);
                EXPECT_TRUE(same_stats(got, reference_stats(s.values.data(), n)));
            }
        }
    });
}

// key_presence (the presence filters' bitmap, block_summary.hpp) against a plain loop: every
// word count 1..8 (the shifted kernels at each width, the byte map above the AVX2 bound),
// keys of every spacing (a few, every other, all, both ends of the span), bases whose low byte
// wraps (the byte map indexes by it), bits already set in `out` kept, and lengths around
// register edges. Past `n` the values lie outside the span: a kernel that read them would mark
// bits out of range or trip the check below.
TEST(Kernels, KeyPresenceMatchesReference) {
    std::mt19937_64 rng(base_seed() ^ 47);
    for_each_path([&](const kernel_table& k) {
        for (std::uint32_t nw = 1; nw <= 8; ++nw) {
            for (const std::uint32_t base : {0u, 1000u, 250u, 0xFFFFFFF0u, 0x7FFFFF80u, static_cast<std::uint32_t>(rng())}) {
                for (const std::uint32_t stride : {1u, 2u, 7u, 61u}) {
                    const std::uint32_t span = 32 * nw - static_cast<std::uint32_t>(rng() % 32);
                    for (std::size_t n : {1u, 7u, 8u, 9u, 15u, 16u, 17u, 33u, 255u, 256u, 1000u, 2047u, 2048u}) {
                        SCOPED_TRACE("words " + std::to_string(nw) + " base " + hex(base) + " stride " +
                                     std::to_string(stride) + " length " + std::to_string(n) + " " + seed_note(47));
                        words values(n + 64, base + 32 * nw + 5);  // past n: out of the span
                        for (std::size_t i = 0; i < n; ++i) {
                            const std::uint32_t pick = static_cast<std::uint32_t>(rng() % span);
                            values[i] = base + (i == 0 ? span - 1 : i == 1 ? 0 : pick - pick % stride);
                        }
                        std::uint32_t got[8] = {}, want[8] = {};
                        got[nw - 1] = want[nw - 1] = 1u << 31;  // a bit set before: kept
                        k.key_presence(values.data(), n, base, nw, got);
                        for (std::size_t i = 0; i < n; ++i) {
                            const std::uint32_t key = values[i] - base;
                            want[key / 32] |= 1u << (key % 32);
                        }
                        for (std::uint32_t w = 0; w < 8; ++w) ASSERT_EQ(got[w], want[w]) << "word " << w;
                    }
                }
            }
        }
    });
}

// split_nonzero (where a path has it) and the encoder's portable loop, against a branchy
// loop: every shape (all-zero, sparse, dense) at lengths around register and word edges.
// The values past `n` are left in place, mostly non-zero: neither may read them.
TEST(Kernels, SplitNonzeroMatchesReference) {
    auto shapes = value_shapes(43);
    std::mt19937_64 rng(base_seed() ^ 43);
    for (const unsigned per_mille : {0u, 5u, 100u, 900u}) {
        shape sparse{"nonzero " + std::to_string(per_mille) + "/1000", words(bitplane::block_values)};
        for (auto& v : sparse.values) v = rng() % 1000 < per_mille ? static_cast<std::uint32_t>(rng() | 1) : 0u;
        shapes.push_back(sparse);
    }
    auto check = [&](const char* which, auto split) {
        for (const shape& s : shapes) {
            SCOPED_TRACE(std::string(which) + " " + s.name + " " + seed_note(43));
            for (std::size_t n : {1u, 15u, 16u, 17u, 31u, 32u, 33u, 1000u, 2047u, 2048u}) {
                SCOPED_TRACE("length " + std::to_string(n));
                words mask(plane_words, 0xDEADBEEFu), stored(n, 0xDEADBEEFu);
                const std::size_t kept = split(s.values.data(), n, mask.data(), stored.data());
                words want_mask(plane_words, 0u), want_stored;
                for (std::size_t i = 0; i < n; ++i) {
                    if (s.values[i] == 0) continue;
                    want_mask[i / 32] |= 1u << (i % 32);
                    want_stored.push_back(s.values[i]);
                }
                ASSERT_EQ(kept, want_stored.size());
                EXPECT_EQ(mask, want_mask);
                EXPECT_EQ(words(stored.begin(), stored.begin() + static_cast<std::ptrdiff_t>(kept)), want_stored);
            }
        }
    };
    check("portable", bitplane::detail::split_nonzero_portable);
    for_each_path([&](const kernel_table& k) {
        if (k.split_nonzero != nullptr) check("kernel", k.split_nonzero);
    });
}

TEST(Kernels, StatsSeesExtremesInEveryLane) {
    // An extreme value at each position in turn, so that every lane and the scalar tail
    // must carry it into the result.
    for_each_path([&](const kernel_table& k) {
        for (std::size_t at = 0; at < 40; ++at) {
            words v(40, 1000u);
            v[at] = 0x80000000u;  // INT32_MIN: smallest signed, large unsigned, big jumps
            bitplane::detail::value_stats got;
            k.stats(v.data(), v.size(), &got);
            EXPECT_TRUE(same_stats(got, reference_stats(v.data(), v.size()))) << "extreme at " << at;
        }
    });
}

// delta_decode (where a path has it) and the portable loop against the running value written
// out one step at a time: every shape taken as residuals, at lengths around register and
// round edges, with steps and first values that wrap. Values past `n` must stay untouched.
TEST(Kernels, DeltaDecodeMatchesReference) {
    const auto shapes = value_shapes(47);
    std::mt19937_64 rng(base_seed() ^ 47);
    auto check = [&](const char* which, auto decode) {
        for (const shape& s : shapes) {
            SCOPED_TRACE(std::string(which) + " " + s.name + " " + seed_note(47));
            for (std::size_t n : {0u, 1u, 7u, 8u, 9u, 15u, 16u, 17u, 31u, 33u, 1000u, 2047u, 2048u}) {
                for (const std::uint32_t step : {0u, 1u, 0xFFFFFFFFu, 0x80000000u, static_cast<std::uint32_t>(rng())}) {
                    const auto first = static_cast<std::uint32_t>(rng());
                    SCOPED_TRACE("length " + std::to_string(n) + " step " + hex(step) + " first " + hex(first));
                    words want = s.values;
                    for (std::size_t i = 0; i < n; ++i) want[i] = i == 0 ? first + s.values[0] : want[i - 1] + s.values[i] + step;
                    words got = s.values;
                    decode(got.data(), n, first, step);
                    ASSERT_EQ(got, want);
                }
            }
        }
    };
    check("portable", bitplane::detail::delta_decode_portable);
    for_each_path([&](const kernel_table& k) {
        if (k.delta_decode != nullptr) check("kernel", k.delta_decode);
    });
}

// expand_nonzero (where a path has it) and the portable loop against one value at a time:
// masks from empty to full at lengths around register and word edges, the stored values in a
// vector of exactly the set bits' length (ASan sees a read past them) and in a longer one
// (whole-register loads). Values past `count` must stay untouched; mask bits past it are clear,
// as the decoder's are.
TEST(Kernels, ExpandNonzeroMatchesReference) {
    std::mt19937_64 rng(base_seed() ^ 53);
    auto check = [&](const char* which, auto expand) {
        for (const unsigned per_mille : {0u, 5u, 100u, 500u, 900u, 1000u}) {
            for (std::size_t count : {0u, 1u, 7u, 8u, 9u, 31u, 32u, 33u, 1000u, 2040u, 2047u, 2048u}) {
                SCOPED_TRACE(std::string(which) + " density " + std::to_string(per_mille) + "/1000 count " +
                             std::to_string(count) + " " + seed_note(53));
                words mask(plane_words, 0u);
                for (std::size_t i = 0; i < count; ++i)
                    if (rng() % 1000 < per_mille) mask[i / 32] |= 1u << (i % 32);
                words want(block_values + 8, garbage);
                words stored;
                for (std::size_t i = 0; i < count; ++i) {
                    if (bit(mask[i / 32], i % 32)) {
                        stored.push_back(static_cast<std::uint32_t>(rng()) | 1u);
                        want[i] = stored.back();
                    } else {
                        want[i] = 0;
                    }
                }
                for (const std::size_t extra : {0u, 8u, 2048u}) {
                    words source = stored;
                    source.resize(stored.size() + extra, garbage);
                    words got(block_values + 8, garbage);
                    expand(source.data(), source.size(), mask.data(), count, got.data());
                    ASSERT_EQ(got, want) << "readable " << source.size();
                }
            }
        }
    };
    check("portable", bitplane::detail::expand_nonzero_portable);
    for_each_path([&](const kernel_table& k) {
        if (k.expand_nonzero != nullptr) check("kernel", k.expand_nonzero);
    });
}
