// bitplane::cuda::encode (device values -> device_vector, blocks encoded on the GPU) against the
// CPU codec, the oracle: on every data shape of tests/test_support.hpp and sizes around block
// edges, for uint32 and int32, the payload and offsets table must equal, byte for byte, those
// of uploading bitplane::vector<T> of the same values (codec::encode_block per block, the tail
// as a partial block); the values and the downloaded vector must come back. Skips (GTEST_SKIP,
// with the reason) where there is no device. BITPLANE_TEST_QUICK=1 samples shapes and sizes.
// Also the bitwise operations whose result is encoded on the device (bitplane/cuda/bitwise.hpp):
// the CPU operators' values, and the blocks of a host vector of those values.
#include <bitplane/bitwise.hpp>
#include <bitplane/codec.hpp>
#include <bitplane/cuda/bitwise.hpp>
#include <bitplane/cuda/device.hpp>
#include <bitplane/cuda/device_vector.hpp>
#include <bitplane/cuda/encode.hpp>
#include <bitplane/error.hpp>
#include <bitplane/reduce.hpp>
#include <bitplane/vector.hpp>

#include "../test_support.hpp"

#include <cuda_runtime.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace bitplane_test;

// Every test needs a device: the fixtures skip without one.
class CudaEncoder : public ::testing::Test {
protected:
    void SetUp() override {
        if (bitplane::cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device: bitplane::cuda::device_count() == 0";
    }
    static std::vector<shape> shapes() { return quick_mode() ? representative_shapes() : all_shapes(); }
    static std::vector<std::size_t> sizes() {
        return quick_mode() ? std::vector<std::size_t>{1, 2049, 3 * 2048 + 5} : standard_sizes();
    }
};
using CudaEncodeBitwise = CudaEncoder;

/// Device memory holding a copy of host values, freed at scope exit.
template <class T>
class device_copy {
public:
    explicit device_copy(const std::vector<T>& values) {
        if (cudaMalloc(&data_, values.size() * sizeof(T) + 4) != cudaSuccess) throw bitplane::cuda_error("cudaMalloc");
        if (!values.empty() &&
            cudaMemcpy(data_, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
            throw bitplane::cuda_error("cudaMemcpy");
    }
    ~device_copy() { cudaFree(data_); }
    device_copy(const device_copy&) = delete;
    device_copy& operator=(const device_copy&) = delete;
    [[nodiscard]] const T* get() const { return static_cast<const T*>(data_); }

private:
    void* data_ = nullptr;
};

struct device_bytes {
    std::vector<std::uint64_t> offsets;
    std::vector<std::byte> payload;
};

template <class T>
device_bytes bytes_of(const bitplane::cuda::device_vector<T>& v) {
    device_bytes out;
    out.offsets.resize(v.block_count() + 1);
    out.payload.resize(v.payload_bytes());
    if (v.block_count() != 0) {
        EXPECT_EQ(cudaMemcpy(out.offsets.data(), v.device_offsets(), 8 * out.offsets.size(), cudaMemcpyDeviceToHost),
                  cudaSuccess);
    }
    if (!out.payload.empty()) {
        EXPECT_EQ(cudaMemcpy(out.payload.data(), v.device_payload(), out.payload.size(), cudaMemcpyDeviceToHost),
                  cudaSuccess);
    }
    return out;
}

/// Equal tables and payloads, or the first block whose bytes differ.
::testing::AssertionResult same_blocks(const device_bytes& expected, const device_bytes& actual) {
    if (expected.offsets.size() != actual.offsets.size())
        return ::testing::AssertionFailure() << "block counts differ: " << expected.offsets.size() - 1 << " and "
                                             << actual.offsets.size() - 1;
    for (std::size_t b = 0; b + 1 < expected.offsets.size(); ++b) {
        const std::uint64_t e0 = expected.offsets[b], e1 = expected.offsets[b + 1];
        const std::uint64_t a0 = actual.offsets[b], a1 = actual.offsets[b + 1];
        if (e0 != a0 || e1 != a1)
            return ::testing::AssertionFailure() << "block " << b << ": CPU bytes [" << e0 << ", " << e1
                                                 << "), GPU bytes [" << a0 << ", " << a1 << ")";
        if (std::memcmp(expected.payload.data() + e0, actual.payload.data() + a0, e1 - e0) != 0) {
            std::size_t at = 0;
            while (expected.payload[e0 + at] == actual.payload[a0 + at]) ++at;
            return ::testing::AssertionFailure()
                   << "block " << b << " (" << e1 - e0 << " bytes): first difference at byte " << at << ", CPU "
                   << static_cast<unsigned>(expected.payload[e0 + at]) << ", GPU "
                   << static_cast<unsigned>(actual.payload[a0 + at]);
        }
    }
    if (expected.payload.size() != actual.payload.size())
        return ::testing::AssertionFailure() << "payload sizes differ: " << expected.payload.size() << " and "
                                             << actual.payload.size();
    return ::testing::AssertionSuccess();
}

template <class T>
void check_encode(const shape& s, std::size_t n, bitplane::cuda::stream_t stream = nullptr) {
    SCOPED_TRACE(case_name(s, n, std::is_signed_v<T> ? "int32" : "uint32"));
    BITPLANE_SEED_TRACE();
    const std::vector<T> values = make_typed<T>(s, n, case_seed("cuda encode", s.id(), n));
    const bitplane::vector<T> host{std::span<const T>(values)};
    const bitplane::cuda::device_vector<T> uploaded(host, stream);
    const device_copy<T> input(values);
    const bitplane::cuda::device_vector<T> encoded = bitplane::cuda::encode(input.get(), n, stream);

    ASSERT_EQ(encoded.size(), n);
    ASSERT_EQ(encoded.block_count(), uploaded.block_count());
    ASSERT_TRUE(same_blocks(bytes_of(uploaded), bytes_of(encoded)));
    EXPECT_EQ(encoded.payload_bytes(), uploaded.payload_bytes());
    EXPECT_TRUE(same_values(values, encoded.to_std_vector(stream)));
    EXPECT_TRUE(encoded.download(stream) == host);
    if (n != 0) {
        EXPECT_TRUE(bitplane::cuda::sum(encoded, stream) == bitplane::sum(host));
    }
}

template <class T>
void check_bitwise(const shape& sa, const shape& sb, std::size_t n) {
    SCOPED_TRACE(case_name(sa, n, sb.name() + (std::is_signed_v<T> ? " int32" : " uint32")));
    BITPLANE_SEED_TRACE();
    const std::vector<T> va = make_typed<T>(sa, n, case_seed("cuda bitwise a", sa.id(), n));
    const std::vector<T> vb = make_typed<T>(sb, n, case_seed("cuda bitwise b", sb.id(), n));
    const bitplane::vector<T> a{std::span<const T>(va)};
    const bitplane::vector<T> b{std::span<const T>(vb)};
    const bitplane::cuda::device_vector<T> da(a);
    const bitplane::cuda::device_vector<T> db(b);
    const auto check = [&](const bitplane::vector<T>& cpu, const bitplane::cuda::device_vector<T>& gpu, const char* op) {
        SCOPED_TRACE(op);
        const std::vector<T> expected = cpu.to_std_vector();
        EXPECT_TRUE(same_values(expected, gpu.to_std_vector()));
        const bitplane::cuda::device_vector<T> oracle(bitplane::vector<T>{std::span<const T>(expected)});
        EXPECT_TRUE(same_blocks(bytes_of(oracle), bytes_of(gpu)));
    };
    check(a & b, bitplane::cuda::bitwise_and(da, db), "and");
    check(a | b, bitplane::cuda::bitwise_or(da, db), "or");
    check(a ^ b, da ^ db, "xor");
    check(bitplane::andnot(a, b), bitplane::cuda::bitwise_andnot(da, db), "andnot");
}

}  // namespace

TEST_F(CudaEncoder, MatchesCpuBytesUint32) {
    for (const shape& s : shapes())
        for (const std::size_t n : sizes()) check_encode<std::uint32_t>(s, n);
}

TEST_F(CudaEncoder, MatchesCpuBytesInt32) {
    for (const shape& s : shapes())
        for (const std::size_t n : sizes()) check_encode<std::int32_t>(s, n);
}

// Many blocks in one launch (more CTAs than fit on the device at once) and a partial last one.
TEST_F(CudaEncoder, ManyBlocks) {
    const std::size_t n = quick_mode() ? 9 * 2048 + 3 : 1024 * 2048 + 777;
    for (const shape& s : {uniform(10), uniform(32), of(shape_kind::sparse_90), of(shape_kind::mixed)}) {
        check_encode<std::uint32_t>(s, n);
        check_encode<std::int32_t>(s, n);
    }
}

TEST_F(CudaEncoder, OnAStream) {
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    check_encode<std::int32_t>(of(shape_kind::minus_one_sentinels), 5 * 2048 + 17, stream);
    check_encode<std::uint32_t>(of(shape_kind::timestamps), 2048, stream);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST_F(CudaEncoder, EmptyInput) {
    const auto v = bitplane::cuda::encode(static_cast<const std::uint32_t*>(nullptr), 0);
    EXPECT_TRUE(v.empty());
    EXPECT_EQ(v.block_count(), 0u);
    EXPECT_EQ(v.payload_bytes(), 0u);
    EXPECT_TRUE(v.download() == bitplane::vector<std::uint32_t>());
}

TEST_F(CudaEncodeBitwise, ResultsEncodedOnTheDevice) {
    const std::vector<std::pair<shape, shape>> pairs = {{uniform(10), uniform(10)},
                                                        {of(shape_kind::sparse_90), uniform(20)},
                                                        {of(shape_kind::runs), of(shape_kind::all_ones)},
                                                        {of(shape_kind::minus_one_sentinels), of(shape_kind::mixed)},
                                                        {uniform(32), of(shape_kind::timestamps)}};
    // Quick mode (compute-sanitizer's racecheck runs every *Encode* test): one partial size.
    const std::vector<std::size_t> sizes = quick_mode() ? std::vector<std::size_t>{2049} : CudaEncoder::sizes();
    for (const auto& [sa, sb] : pairs)
        for (const std::size_t n : sizes) {
            check_bitwise<std::uint32_t>(sa, sb, n);
            check_bitwise<std::int32_t>(sa, sb, n);
        }
}

TEST_F(CudaEncodeBitwise, SizesMustMatch) {
    const std::vector<std::uint32_t> x(5, 1), y(7, 1);
    const bitplane::cuda::device_vector<std::uint32_t> a(bitplane::vector<std::uint32_t>{std::span<const std::uint32_t>(x)});
    const bitplane::cuda::device_vector<std::uint32_t> b(bitplane::vector<std::uint32_t>{std::span<const std::uint32_t>(y)});
    EXPECT_THROW((void)bitplane::cuda::bitwise_and(a, b), bitplane::size_error);
}
