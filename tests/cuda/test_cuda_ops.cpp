// Device scans, bitsets, bitwise operations and similarity against the CPU path (the oracle)
// on every data shape of the CPU tests and sizes around block edges, uint32 and int32.
// Skips (GTEST_SKIP, with the reason) where there is no CUDA device.
#include <bitplane/bitset.hpp>
#include <bitplane/bitwise.hpp>
#include <bitplane/cuda/bitwise.hpp>
#include <bitplane/cuda/device.hpp>
#include <bitplane/cuda/device_bitset.hpp>
#include <bitplane/cuda/scan.hpp>
#include <bitplane/cuda/similarity.hpp>
#include <bitplane/scan.hpp>
#include <bitplane/similarity.hpp>
#include <bitplane/vector.hpp>

#include "../test_support.hpp"

#include <cuda_runtime.h>

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace bitplane_test;

#define BITPLANE_NEED_DEVICE() \
    if (bitplane::cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device: bitplane::cuda::device_count() == 0"

std::vector<shape> shapes() { return quick_mode() ? representative_shapes() : all_shapes(); }
std::vector<std::size_t> sizes() {
    if (quick_mode()) return {1, 2049, 3 * 2048 + 5};
    return {0, 1, 2047, 2048, 2049, 3 * 2048 + 5, large_size};
}

template <class T>
bitplane::vector<T> make(const shape& s, std::size_t n, std::uint64_t seed) {
    const std::vector<std::uint32_t> bits = make_values(s, n, seed);
    std::vector<T> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = std::bit_cast<T>(bits[i]);
    return bitplane::vector<T>(std::span<const T>(values));
}

/// Device memory of n values, freed at scope end.
template <class T>
struct device_array {
    T* p = nullptr;
    explicit device_array(std::size_t n) { EXPECT_EQ(cudaMalloc(&p, 4 * std::max<std::size_t>(n, 1)), cudaSuccess); }
    ~device_array() { cudaFree(p); }
    std::vector<T> host(std::size_t n) const {
        std::vector<T> out(n);
        if (n != 0) {
            EXPECT_EQ(cudaMemcpy(out.data(), p, 4 * n, cudaMemcpyDeviceToHost), cudaSuccess);
        }
        return out;
    }
};

void expect_same(const bitplane::cuda::device_bitset& d, const bitplane::bitset& expected, const char* what) {
    SCOPED_TRACE(what);
    const bitplane::bitset got = d.download();
    EXPECT_EQ(got.size(), expected.size());
    EXPECT_EQ(d.count(), expected.count());
    EXPECT_TRUE(got == expected) << "sets differ: " << got.count() << " against " << expected.count() << " bits";
}

template <class T>
void check_scans(const bitplane::vector<T>& v, const bitplane::cuda::device_vector<T>& d) {
    const std::vector<T> values = v.to_std_vector();
    // Quick mode (compute-sanitizer): fewer probes, the extremes and one value of the data.
    std::vector<T> probes = {T{0}, T{1}, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T{1000}};
    if (quick_mode()) probes = {std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};
    if (quick_mode() && !values.empty()) {
        probes.push_back(values[values.size() / 2]);
    } else if (!values.empty()) {
        probes.push_back(values.front());
        probes.push_back(values[values.size() / 2]);
        probes.push_back(values.back());
    }
    for (const T x : probes) {
        SCOPED_TRACE("x = " + std::to_string(x));
        expect_same(bitplane::cuda::find_eq(d, x), bitplane::find_eq(v, x), "find_eq");
        expect_same(bitplane::cuda::find_ne(d, x), bitplane::find_ne(v, x), "find_ne");
        expect_same(bitplane::cuda::find_lt(d, x), bitplane::find_lt(v, x), "find_lt");
        expect_same(bitplane::cuda::find_le(d, x), bitplane::find_le(v, x), "find_le");
        expect_same(bitplane::cuda::find_gt(d, x), bitplane::find_gt(v, x), "find_gt");
        expect_same(bitplane::cuda::find_ge(d, x), bitplane::find_ge(v, x), "find_ge");
        for (const T y : {probes[0], probes.back()})
            expect_same(bitplane::cuda::find_range(d, x, y), bitplane::find_range(v, x, y), "find_range");
    }
}

template <class T>
void check_pair(const shape& s, std::size_t n) {
    SCOPED_TRACE(case_name(s, n, std::is_signed_v<T> ? "int32" : "uint32"));
    const auto a = make<T>(s, n, case_seed("ops a", s.id(), n));
    const auto b = make<T>(s, n, case_seed("ops b", s.id(), n));
    const auto c = make<T>(uniform(10), n, case_seed("ops c", s.id(), n));
    const bitplane::cuda::device_vector<T> da(a), db(b), dc(c);

    check_scans(a, da);

    // Bitwise operations: dense values on the device against the CPU's compressed results.
    device_array<T> out(n);
    bitplane::cuda::bitwise_and(da, db, out.p);
    EXPECT_EQ(out.host(n), (a & b).to_std_vector()) << "and";
    bitplane::cuda::bitwise_or(da, dc, out.p);
    EXPECT_EQ(out.host(n), (a | c).to_std_vector()) << "or";
    bitplane::cuda::bitwise_xor(da, db, out.p);
    EXPECT_EQ(out.host(n), (a ^ b).to_std_vector()) << "xor";
    bitplane::cuda::bitwise_andnot(da, dc, out.p);
    EXPECT_EQ(out.host(n), bitplane::andnot(a, c).to_std_vector()) << "andnot";

    // Similarity.
    EXPECT_EQ(bitplane::cuda::plane_hamming_matrix(da), bitplane::plane_hamming_matrix(a)) << "plane Hamming";
    EXPECT_EQ(bitplane::cuda::cross_hamming_matrix(da, db), bitplane::cross_hamming_matrix(a, b)) << "cross Hamming";
    EXPECT_EQ(bitplane::cuda::cross_hamming_matrix(da, dc), bitplane::cross_hamming_matrix(a, c)) << "cross Hamming";
    EXPECT_EQ(bitplane::cuda::jaccard(da, db), bitplane::jaccard(a, b)) << "jaccard";
    EXPECT_EQ(bitplane::cuda::jaccard(da, dc), bitplane::jaccard(a, c)) << "jaccard";
    if (a.block_count() != 0) {
        EXPECT_EQ(bitplane::cuda::block_hamming_matrix(da, 0), bitplane::block_hamming_matrix(a, 0)) << "block 0";
        const std::size_t last = a.block_count() - 1;
        EXPECT_EQ(bitplane::cuda::block_hamming_matrix(da, last), bitplane::block_hamming_matrix(a, last)) << "last block";
    }
    EXPECT_THROW((void)bitplane::cuda::block_hamming_matrix(da, a.block_count()), bitplane::index_error);
}

TEST(CudaOps, MatchesCpuUint32) {
    BITPLANE_NEED_DEVICE();
    for (const shape& s : shapes())
        for (const std::size_t n : sizes()) {
            check_pair<std::uint32_t>(s, n);
            if (HasFailure()) return;
        }
}

TEST(CudaOps, MatchesCpuInt32) {
    BITPLANE_NEED_DEVICE();
    for (const shape& s : shapes())
        for (const std::size_t n : sizes()) {
            check_pair<std::int32_t>(s, n);
            if (HasFailure()) return;
        }
}

// ---- bitsets ----------------------------------------------------------------------------------

/// Host bitsets of many encodings: scans of the shapes (positions, gaps, runs, raw blocks,
/// empty and full blocks), and the all-set and empty sets.
std::vector<bitplane::bitset> host_sets(std::size_t n, std::uint64_t seed) {
    std::vector<bitplane::bitset> out;
    out.emplace_back(n, false);
    out.emplace_back(n, true);
    for (const shape& s : {of(shape_kind::sparse_999), of(shape_kind::sparse_90), of(shape_kind::runs), uniform(1),
                           uniform(4), of(shape_kind::sorted_steps), of(shape_kind::mixed)}) {
        const auto v = make<std::uint32_t>(s, n, seed ^ s.id());
        out.push_back(bitplane::find_eq(v, 0u));
        out.push_back(bitplane::find_gt(v, 1u));
    }
    return out;
}

TEST(CudaBitset, RoundTripCountAndAlgebraMatchCpu) {
    BITPLANE_NEED_DEVICE();
    for (const std::size_t n : sizes()) {
        SCOPED_TRACE("n = " + std::to_string(n));
        const std::vector<bitplane::bitset> sets = host_sets(n, case_seed("bitsets", n));
        std::vector<bitplane::cuda::device_bitset> encoded;
        for (const bitplane::bitset& h : sets) {
            encoded.emplace_back(h);
            EXPECT_FALSE(encoded.back().is_dense());
            EXPECT_TRUE(encoded.back().download() == h) << "encoded round trip";
            EXPECT_EQ(encoded.back().count(), h.count());
            const bitplane::cuda::device_bitset dense = encoded.back().to_dense();
            EXPECT_TRUE(dense.is_dense());
            expect_same(dense, h, "dense copy");
        }
        for (std::size_t i = 0; i < sets.size(); ++i) {
            const std::size_t j = (i * 7 + 3) % sets.size();
            SCOPED_TRACE("sets " + std::to_string(i) + ", " + std::to_string(j));
            const bitplane::cuda::device_bitset& x = encoded[i];
            const bitplane::cuda::device_bitset dense_j = encoded[j].to_dense();
            const bitplane::cuda::device_bitset& y = (i % 2 == 0) ? dense_j : encoded[j];  // both forms
            expect_same(x & y, sets[i] & sets[j], "and");
            expect_same(x | y, sets[i] | sets[j], "or");
            expect_same(x ^ y, sets[i] ^ sets[j], "xor");
            expect_same(bitplane::cuda::andnot(x, y), andnot(sets[i], sets[j]), "andnot");
            expect_same((x & y) | bitplane::cuda::andnot(y, x), (sets[i] & sets[j]) | andnot(sets[j], sets[i]),
                        "chained");
            if (HasFailure()) return;
        }
    }
}

TEST(CudaBitset, SizeMismatchThrowsSizeError) {
    BITPLANE_NEED_DEVICE();
    const bitplane::cuda::device_bitset a(bitplane::bitset(10, true));
    const bitplane::cuda::device_bitset b(bitplane::bitset(11, true));
    EXPECT_THROW((void)(a & b), bitplane::size_error);
    const bitplane::cuda::device_vector<std::uint32_t> x(bitplane::vector<std::uint32_t>(3, 1u));
    const bitplane::cuda::device_vector<std::uint32_t> y(bitplane::vector<std::uint32_t>(4, 1u));
    EXPECT_THROW((void)bitplane::cuda::jaccard(x, y), bitplane::size_error);
    EXPECT_THROW((void)bitplane::cuda::cross_hamming_matrix(x, y), bitplane::size_error);
    EXPECT_THROW(bitplane::cuda::bitwise_and(x, y, static_cast<std::uint32_t*>(nullptr)), bitplane::size_error);
}

}  // namespace
