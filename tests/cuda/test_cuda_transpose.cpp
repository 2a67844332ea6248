// bitplane::cuda::transpose_blocks against the CPU transpose (bitplane::transpose), the oracle.
// Skips where no CUDA device is usable; the queries' error paths run everywhere.
#include <bitplane/block.hpp>
#include <bitplane/cuda/device.hpp>
#include <bitplane/error.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {

/// Seed for the random shapes; BITPLANE_TEST_SEED overrides it.
std::uint64_t test_seed() {
    if (const char* text = std::getenv("BITPLANE_TEST_SEED")) return std::strtoull(text, nullptr, 0);
    return 0x5eed'b17f'1a4e'2048ull;
}

void expect_matches_cpu(const std::vector<std::uint32_t>& values, const std::string& shape) {
    const std::size_t blocks = values.size() / bitplane::block_values;
    std::vector<std::uint32_t> planes(values.size(), 0xdeadbeefu);
    bitplane::cuda::transpose_blocks(values.data(), blocks, planes.data());

    bitplane::block_planes expected;
    for (std::size_t k = 0; k < blocks; ++k) {
        bitplane::transpose(std::span(values).subspan(k * bitplane::block_values, bitplane::block_values),
                            expected);
        for (std::size_t j = 0; j < bitplane::plane_count; ++j) {
            for (std::size_t c = 0; c < bitplane::plane_words; ++c) {
                const std::uint32_t got = planes[k * bitplane::block_values + j * bitplane::plane_words + c];
                ASSERT_EQ(got, expected.planes[j][c])
                    << shape << ", " << blocks << " blocks: block " << k << ", plane " << j << ", word " << c;
            }
        }
    }
}

bool have_device() { return bitplane::cuda::device_count() > 0; }

}  // namespace

TEST(CudaDevice, CountIsNotNegative) { EXPECT_GE(bitplane::cuda::device_count(), 0); }

TEST(CudaDevice, NameOfMissingDeviceThrowsCudaError) {
    EXPECT_THROW((void)bitplane::cuda::device_name(bitplane::cuda::device_count()), bitplane::cuda_error);
    EXPECT_THROW((void)bitplane::cuda::device_name(-1), bitplane::cuda_error);
}

TEST(CudaDevice, NameOfEachDevice) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device: device_count() == 0";
    for (int device = 0; device < bitplane::cuda::device_count(); ++device)
        EXPECT_FALSE(bitplane::cuda::device_name(device).empty()) << "device " << device;
}

TEST(CudaTranspose, ZeroBlocksTouchesNothing) {
    std::uint32_t sentinel = 7;
    bitplane::cuda::transpose_blocks(nullptr, 0, &sentinel);
    EXPECT_EQ(sentinel, 7u);
}

TEST(CudaTranspose, MatchesCpuTranspose) {
    if (!have_device()) GTEST_SKIP() << "no CUDA device: device_count() == 0";
    std::mt19937_64 random(test_seed());
    const auto bits = [&](unsigned width) {
        return [&random, width] {
            return width == 32 ? static_cast<std::uint32_t>(random())
                               : static_cast<std::uint32_t>(random() & ((1ull << width) - 1));
        };
    };
    const std::vector<std::pair<std::string, std::function<std::uint32_t()>>> shapes = {
        {"full range", bits(32)},
        {"10-bit", bits(10)},
        {"all zero", [] { return 0u; }},
        {"all one", [] { return 0xffffffffu; }},
        {"sparse 20-bit", [&] { return random() % 10 == 0 ? static_cast<std::uint32_t>(random() & 0xfffff) : 0u; }},
        {"small signed", [&] { return static_cast<std::uint32_t>(static_cast<std::int32_t>(random() % 201) - 100); }},
    };
    for (const std::size_t blocks : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64}, std::size_t{300}}) {
        for (const auto& [name, next] : shapes) {
            std::vector<std::uint32_t> values(blocks * bitplane::block_values);
            for (auto& value : values) value = next();
            expect_matches_cpu(values, name);
            if (HasFatalFailure()) return;
        }
    }
}
