// The checked arithmetic every loader uses on sizes read from files (src/core/checked_size.hpp),
// and a loader entry point whose size arithmetic wrapped before it used it.
#include "core/checked_size.hpp"
#include "dna/base_model.hpp"

#include <bitplane/error.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

constexpr std::uint64_t max64 = std::numeric_limits<std::uint64_t>::max();

std::string message_of(auto&& f) {
    try {
        f();
    } catch (const bitplane::format_error& e) {
        return e.what();
    }
    return "no error";
}

TEST(CheckedSize, AddAtTheLimit) {
    EXPECT_EQ(bitplane::detail::checked_add(0, 0, "x", 0), 0u);
    EXPECT_EQ(bitplane::detail::checked_add(max64 - 5, 5, "x", 0), max64);
    EXPECT_EQ(bitplane::detail::checked_add(0, max64, "x", 0), max64);
    EXPECT_THROW((void)bitplane::detail::checked_add(max64 - 5, 6, "x", 0), bitplane::format_error);
    EXPECT_THROW((void)bitplane::detail::checked_add(max64, max64, "x", 0), bitplane::format_error);
    EXPECT_THROW((void)bitplane::detail::checked_add(1, max64, "x", 0), bitplane::format_error);
}

TEST(CheckedSize, MulAtTheLimit) {
    EXPECT_EQ(bitplane::detail::checked_mul(0, max64, "x", 0), 0u);
    EXPECT_EQ(bitplane::detail::checked_mul(max64, 0, "x", 0), 0u);
    EXPECT_EQ(bitplane::detail::checked_mul(1, max64, "x", 0), max64);
    EXPECT_EQ(bitplane::detail::checked_mul(std::uint64_t{1} << 32, (std::uint64_t{1} << 32) - 1, "x", 0),
              max64 - ((std::uint64_t{1} << 32) - 1));
    EXPECT_THROW((void)bitplane::detail::checked_mul(std::uint64_t{1} << 32, std::uint64_t{1} << 32, "x", 0),
                 bitplane::format_error);
    EXPECT_THROW((void)bitplane::detail::checked_mul(max64 / 3 + 1, 3, "x", 0), bitplane::format_error);
    EXPECT_THROW((void)bitplane::detail::checked_mul(8, (max64 >> 3) + 1, "x", 0), bitplane::format_error);
}

TEST(CheckedSize, ErrorNamesWhatAndWhere) {
    try {
        (void)bitplane::detail::checked_mul(max64, 2, "descriptor table size", 40);
        FAIL() << "no error";
    } catch (const bitplane::format_error& e) {
        EXPECT_EQ(e.offset(), 40u);
        EXPECT_NE(std::string(e.what()).find("descriptor table size overflows 64 bits"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("x 2"), std::string::npos) << e.what();
    }
}

// read_modeled rounded the letter count up to blocks with (letters + 2047) / 2048, which wraps
// to 0 blocks for counts near 2^64: it then returned an empty vector for 2^64 - 1 letters.
TEST(CheckedSize, ModeledPayloadLetterCountCannotWrap) {
    std::vector<std::byte> payload(64, std::byte{0});  // rest-part size 0, plain count 0, ...
    const std::string message = message_of([&] { (void)bitplane::dna::detail::read_modeled(payload, 64, max64); });
    EXPECT_NE(message.find("letter count overflows 64 bits"), std::string::npos) << message;
    // The same bytes for no letters are a valid, empty payload.
    EXPECT_EQ(bitplane::dna::detail::read_modeled(payload, 64, 0).size(), 0u);
}

}  // namespace
