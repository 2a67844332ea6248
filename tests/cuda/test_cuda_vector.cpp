// bitplane::cuda::device_vector and the device reductions against the CPU path (the oracle), on
// every data shape of the CPU tests and sizes around block edges, for uint32 and int32; the
// transfer pipeline (pinned_vector) and the executors (exec::cpu/gpu/hybrid/automatic); the
// GPU transpose + Hamming matrix against bitplane::transpose / compute_hamming_matrix.
// Every test that needs a device skips (GTEST_SKIP, with the reason) where there is none.
// BITPLANE_TEST_QUICK=1 (used under compute-sanitizer) samples representative shapes and sizes.
#include <bitplane/block.hpp>
#include <bitplane/cuda/device.hpp>
#include <bitplane/cuda/device_vector.hpp>
#include <bitplane/cuda/encode.hpp>
#include <bitplane/cuda/exec.hpp>
#include <bitplane/error.hpp>
#include <bitplane/reduce.hpp>
#include <bitplane/vector.hpp>

#include "../test_support.hpp"

#include <cuda_runtime.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace bitplane_test;

bool have_device() { return bitplane::cuda::device_count() > 0; }

#define BITPLANE_NEED_DEVICE() \
    if (!have_device()) GTEST_SKIP() << "no CUDA device: bitplane::cuda::device_count() == 0"

std::vector<shape> test_shapes() { return quick_mode() ? representative_shapes() : all_shapes(); }

std::vector<std::size_t> test_sizes() {
    if (quick_mode()) return {1, 2049, 3 * 2048 + 5};
    return {0, 1, 2047, 2048, 2049, 3 * 2048 + 5, large_size};
}

template <class T>
bitplane::vector<T> make_vector(const shape& s, std::size_t n, std::uint64_t seed) {
    const std::vector<std::uint32_t> bits = make_values(s, n, seed);
    std::vector<T> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = std::bit_cast<T>(bits[i]);
    return bitplane::vector<T>(std::span<const T>(values));
}

std::string text(bitplane::uint128 v) { return bitplane::to_string(v); }
std::string text(bitplane::int128 v) { return bitplane::to_string(v); }

template <class T>
void check_vector_ops(const shape& s, std::size_t n) {
    SCOPED_TRACE(case_name(s, n, std::is_signed_v<T> ? "int32" : "uint32"));
    BITPLANE_SEED_TRACE();
    const auto a = make_vector<T>(s, n, case_seed("cuda a", s.id(), n));
    const auto b = make_vector<T>(s, n, case_seed("cuda b", s.id(), n));
    const auto c = make_vector<T>(uniform(10), n, case_seed("cuda c", s.id(), n));

    const bitplane::cuda::device_vector<T> da(a);
    const bitplane::cuda::device_vector<T> db(b);
    const bitplane::cuda::device_vector<T> dc(c);
    ASSERT_EQ(da.size(), n);

    // Round trip without decoding, and decode on the device.
    EXPECT_TRUE(da.download() == a) << "download differs from the uploaded vector";
    EXPECT_TRUE(same_values(a.to_std_vector(), da.to_std_vector()));

    EXPECT_EQ(text(bitplane::cuda::sum(da)), text(bitplane::sum(a)));
    EXPECT_EQ(text(bitplane::cuda::dot(da, db)), text(bitplane::dot(a, b)));
    EXPECT_EQ(text(bitplane::cuda::dot(da, dc)), text(bitplane::dot(a, c)));
    EXPECT_EQ(text(bitplane::cuda::sum_of_squares(da)), text(bitplane::sum_of_squares(a)));

    // Host-resident: the transfer pipeline (small batches, so that there are several) and the executors.
    const bitplane::cuda::pinned_vector<T> pa(a);
    const bitplane::cuda::pinned_vector<T> pb(b);
    EXPECT_EQ(text(bitplane::cuda::dot(pa, pb, {3, 5000})), text(bitplane::dot(a, b)));
    const auto expected = text(bitplane::dot(a, b));
    EXPECT_EQ(text(bitplane::cuda::dot(bitplane::exec::cpu, a, b)), expected);
    EXPECT_EQ(text(bitplane::cuda::dot(bitplane::exec::gpu, a, b)), expected);
    EXPECT_EQ(text(bitplane::cuda::dot(bitplane::exec::policy{bitplane::exec::where::hybrid, 0.5}, a, b)), expected);
    EXPECT_EQ(text(bitplane::cuda::dot(bitplane::exec::automatic, a, b)), expected);
}

class CudaVector : public ::testing::Test {
protected:
    void SetUp() override {
        if (!have_device()) return;
        // Fixed rates, so that no test calibrates (the planner is tested separately).
        bitplane::exec::set_rates(bitplane::exec::rates::linear(4e9, 5e-6, 10e9, 50e-6));
    }
};

TEST_F(CudaVector, MatchesCpuUint32) {
    BITPLANE_NEED_DEVICE();
    for (const shape& s : test_shapes())
        for (const std::size_t n : test_sizes()) {
            check_vector_ops<std::uint32_t>(s, n);
            if (HasFatalFailure()) return;
        }
}

TEST_F(CudaVector, MatchesCpuInt32) {
    BITPLANE_NEED_DEVICE();
    for (const shape& s : test_shapes())
        for (const std::size_t n : test_sizes()) {
            check_vector_ops<std::int32_t>(s, n);
            if (HasFatalFailure()) return;
        }
}

TEST_F(CudaVector, WriteBackBlockIsGatheredAndUploaded) {
    BITPLANE_NEED_DEVICE();
    auto a = make_vector<std::uint32_t>(uniform(12), 5 * 2048 + 17, case_seed("write-back"));
    a.set(3000, 123456789u);  // block 1 is now held decoded (write-back), not in the arena
    a.set(100, 7u);           // block 0 re-encoded, block 1 moves to the end of the arena
    const bitplane::cuda::device_vector<std::uint32_t> da(a);
    EXPECT_TRUE(same_values(a.to_std_vector(), da.to_std_vector()));
    EXPECT_EQ(text(bitplane::cuda::dot(da, da)), text(bitplane::dot(a, a)));
    EXPECT_EQ(text(bitplane::cuda::dot(bitplane::exec::gpu, a, a)), text(bitplane::dot(a, a)));
}

TEST_F(CudaVector, EmptyVector) {
    BITPLANE_NEED_DEVICE();
    const bitplane::vector<std::uint32_t> empty;
    const bitplane::cuda::device_vector<std::uint32_t> d(empty);
    EXPECT_EQ(d.size(), 0u);
    EXPECT_TRUE(d.download() == empty);
    EXPECT_EQ(text(bitplane::cuda::sum(d)), "0");
    EXPECT_EQ(text(bitplane::cuda::dot(d, d)), "0");
}

// Uploading into a device_vector reuses its buffers when they are large enough (no cudaFree)
// and replaces them otherwise: either way it then holds exactly the new vector.
TEST_F(CudaVector, ReuploadReusesOrReplacesBuffers) {
    BITPLANE_NEED_DEVICE();
    const auto big = make_vector<std::uint32_t>(of(shape_kind::full_range), 9 * 2048 + 3, case_seed("reupload big"));
    const auto small = make_vector<std::uint32_t>(uniform(5), 2 * 2048 + 700, case_seed("reupload small"));
    bitplane::cuda::device_vector<std::uint32_t> d(small);
    for (const auto* v : {&big, &small, &small, &big}) {
        d.upload(*v);
        ASSERT_EQ(d.size(), v->size());
        EXPECT_TRUE(d.download() == *v);
        EXPECT_TRUE(same_values(v->to_std_vector(), d.to_std_vector()));
        EXPECT_EQ(text(bitplane::cuda::sum(d)), text(bitplane::sum(*v)));
        EXPECT_EQ(text(bitplane::cuda::dot(d, d)), text(bitplane::dot(*v, *v)));
    }
}

TEST(CudaVectorErrors, SizeMismatchThrowsSizeError) {
    const bitplane::cuda::device_vector<std::uint32_t> empty;
    bitplane::cuda::device_vector<std::uint32_t> other;
    if (have_device()) other.upload(bitplane::vector<std::uint32_t>(10, 1u));
    if (other.size() != empty.size()) {
        EXPECT_THROW((void)bitplane::cuda::dot(empty, other), bitplane::size_error);
    }
    const bitplane::vector<std::uint32_t> x(3, 1u), y(4, 1u);
    EXPECT_THROW((void)bitplane::cuda::dot(bitplane::exec::cpu, x, y), bitplane::size_error);
}

TEST(CudaVectorErrors, CudaFailureBecomesCudaError) {
    BITPLANE_NEED_DEVICE();
    // Decoding into a pointer that is not device memory fails in the kernel launch or the
    // copy; either way the error must surface as bitplane::cuda_error with CUDA's message.
    try {
        bitplane::cuda::detail::device_memory huge(std::size_t{1} << 62);
        FAIL() << "a 4 EiB allocation succeeded";
    } catch (const bitplane::cuda_error& e) {
        EXPECT_NE(std::string(e.what()).find("cudaMalloc"), std::string::npos) << e.what();
    }
}

TEST(CudaExec, PlannerPicksBySize) {
    bitplane::exec::set_rates(bitplane::exec::rates::linear(4e9, 5e-6, 10e9, 200e-6));
    // Tiny inputs: the GPU's fixed cost loses.
    EXPECT_EQ(bitplane::exec::planned_cpu_share(bitplane::exec::automatic, 1000), 1.0);
    // Large inputs: a split, the CPU taking about 4 / 14 of the bytes.
    const double share = bitplane::exec::planned_cpu_share(bitplane::exec::automatic, std::uint64_t{1} << 30);
    EXPECT_GT(share, 0.25);
    EXPECT_LT(share, 0.32);
    EXPECT_EQ(bitplane::exec::planned_cpu_share(bitplane::exec::gpu, 1000), 0.0);
    EXPECT_EQ(bitplane::exec::planned_cpu_share(bitplane::exec::cpu, std::uint64_t{1} << 30), 1.0);
}

// ---- encode: transpose + Hamming matrix -------------------------------------------------------

TEST(CudaEncode, TransposeAndHammingMatchCpu) {
    BITPLANE_NEED_DEVICE();
    const std::vector<shape> shapes = {uniform(0),  uniform(1),  uniform(10), uniform(32), of(shape_kind::sparse_90),
                                       of(shape_kind::runs), of(shape_kind::small_negative),
                                       of(shape_kind::all_ones), of(shape_kind::masked), of(shape_kind::mixed)};
    const std::size_t blocks = quick_mode() ? 3 : 40;
    for (const shape& s : shapes) {
        SCOPED_TRACE(s.name());
        const std::vector<std::uint32_t> values = make_values(s, blocks * 2048, case_seed("encode", s.id()));
        std::uint32_t* dv = nullptr;
        std::uint32_t* dp = nullptr;
        std::uint16_t* dh = nullptr;
        ASSERT_EQ(cudaMalloc(&dv, 4 * values.size()), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&dp, 4 * values.size()), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&dh, 2 * 1024 * blocks), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(dv, values.data(), 4 * values.size(), cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(cudaMemset(dp, 0xA5, 4 * values.size()), cudaSuccess);  // poison: every word must be written
        ASSERT_EQ(cudaMemset(dh, 0xA5, 2 * 1024 * blocks), cudaSuccess);
        bitplane::cuda::transpose_hamming(dv, blocks, dp, dh);
        std::vector<std::uint32_t> planes(values.size());
        std::vector<std::uint16_t> hamming(1024 * blocks);
        ASSERT_EQ(cudaMemcpy(planes.data(), dp, 4 * planes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(hamming.data(), dh, 2 * hamming.size(), cudaMemcpyDeviceToHost), cudaSuccess);
        cudaFree(dv);
        cudaFree(dp);
        cudaFree(dh);
        for (std::size_t k = 0; k < blocks; ++k) {
            bitplane::block_planes expected;
            bitplane::transpose(std::span(values).subspan(k * 2048, 2048), expected);
            const bitplane::hamming_matrix h = bitplane::compute_hamming_matrix(expected);
            for (std::size_t j = 0; j < 32; ++j)
                for (std::size_t c = 0; c < 64; ++c)
                    ASSERT_EQ(planes[k * 2048 + j * 64 + c], expected.planes[j][c])
                        << "block " << k << " plane " << j << " word " << c;
            for (std::size_t i = 0; i < 32; ++i)
                for (std::size_t j = 0; j < 32; ++j)
                    ASSERT_EQ(hamming[k * 1024 + i * 32 + j], h[i][j]) << "block " << k << " entry " << i << "," << j;
        }
    }
}

}  // namespace
