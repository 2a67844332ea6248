// The documented threading contract (docs/design.md): any number of threads may use one vector
// (or bitset) through const operations at once, and a thread may mutate its own copy meanwhile.
// Run under ThreadSanitizer by scripts/test.sh (the `tsan` stage runs every test whose name
// contains "Concurren"), so that a data race in a const path is a failure, not a rare crash.
#include "test_support.hpp"

#include <bitplane/bitplane.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

namespace {

using namespace bitplane_test;

template <class T>
class ConcurrencyTest : public ::testing::Test {};
using column_types = ::testing::Types<std::uint32_t, std::int32_t>;
TYPED_TEST_SUITE(ConcurrencyTest, column_types);

// Plain references for what the readers compute.
template <class T>
bitplane::wide_t<T> reference_sum(const std::vector<T>& v) {
    bitplane::wide_t<T> s = 0;
    for (const T x : v) s += x;
    return s;
}

template <class T>
bitplane::wide_t<T> reference_dot(const std::vector<T>& a, const std::vector<T>& b) {
    bitplane::wide_t<T> s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += static_cast<bitplane::wide_t<T>>(a[i]) * b[i];
    return s;
}

TYPED_TEST(ConcurrencyTest, ReadersShareOneVectorWhileAWriterOwnsACopy) {
    using T = TypeParam;
    BITPLANE_SEED_TRACE();
    std::vector<T> ref = make_typed<T>(of(shape_kind::mixed), large_size, case_seed("concurrency"));
    bitplane::vector<T> shared_vector{std::span<const T>(ref)};
    shared_vector.set(2048 * 2 + 5, T{77});  // a pending write-back block is read concurrently too
    ref[2048 * 2 + 5] = T{77};
    const bitplane::vector<T>& shared = shared_vector;
    const auto expected_sum = reference_sum(ref);
    const auto expected_squares = reference_dot(ref, ref);
    const T probe = ref[1234];
    const auto expected_eq = static_cast<std::uint64_t>(std::count(ref.begin(), ref.end(), probe));
    std::vector<std::byte> expected_file;
    bitplane::save(shared, expected_file);

    std::atomic<int> errors{0};
    const int rounds = quick_mode() ? 2 : 4;
    auto reader = [&](int id) {
        std::mt19937_64 rng(case_seed("concurrency-reader", id));
        for (int round = 0; round < rounds; ++round) {
            for (int k = 0; k < 200; ++k) {
                const std::size_t i = rng() % ref.size();
                if (shared[i] != ref[i]) ++errors;
            }
            if (shared.to_std_vector() != ref) ++errors;
            if (bitplane::sum(shared) != expected_sum) ++errors;
            if (static_cast<bitplane::wide_t<T>>(bitplane::sum_of_squares(shared)) != expected_squares) ++errors;
            if (bitplane::count_eq(shared, probe) != expected_eq) ++errors;
            if (bitplane::find_eq(shared, probe).count() != expected_eq) ++errors;
            std::vector<std::byte> file;
            bitplane::save(shared, file);
            if (file != expected_file) ++errors;
        }
    };
    // The writer copies the shared vector (a const use) and then works on its copy alone.
    auto writer = [&] {
        std::vector<T> mine = ref;
        bitplane::vector<T> copy = shared;
        std::mt19937_64 rng(case_seed("concurrency-writer"));
        for (int k = 0; k < 300; ++k) {
            const std::size_t i = rng() % mine.size();
            const auto x = static_cast<T>(rng());
            copy.set(i, x);
            mine[i] = x;
            if (k % 50 == 0) {
                copy.push_back(x);
                mine.push_back(x);
                copy.seal();
            }
        }
        if (copy.to_std_vector() != mine) ++errors;
        if (bitplane::sum(copy) != reference_sum(mine)) ++errors;
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) threads.emplace_back(reader, t);
    threads.emplace_back(writer);
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(errors.load(), 0);
    EXPECT_EQ(shared.to_std_vector(), ref);  // the readers and the copy left it as it was
}

TEST(ConcurrencyBitset, ReadersShareOneBitset) {
    BITPLANE_SEED_TRACE();
    std::mt19937_64 rng(case_seed("concurrency-bitset"));
    std::vector<std::uint64_t> positions;
    for (std::uint64_t p = 0; p < 100'000; ++p)
        if (rng() % 7 == 0) positions.push_back(p);
    const bitplane::bitset set = bitplane::bitset::from_positions(positions, 100'000);
    const bitplane::bitset other = bitplane::bitset::from_positions(std::vector<std::uint64_t>{1, 7, 99'999}, 100'000);
    std::atomic<int> errors{0};
    auto reader = [&](int id) {
        std::mt19937_64 local(case_seed("concurrency-bitset-reader", id));
        for (int k = 0; k < 500; ++k) {
            const std::size_t r = local() % positions.size();
            if (set.select(r) != positions[r] || set.rank(positions[r]) != r) ++errors;
        }
        if (set.to_positions() != positions) ++errors;
        if ((set & other).count() != (set.contains(1) ? 1u : 0u) + (set.contains(7) ? 1u : 0u) +
                                         (set.contains(99'999) ? 1u : 0u))
            ++errors;
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) threads.emplace_back(reader, t);
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(errors.load(), 0);
}

}  // namespace
