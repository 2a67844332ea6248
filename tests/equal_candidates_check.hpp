// One block's equality through equal_by_candidates, with a result plane and counting only,
// checked against a plain loop over the block's values: shared by test_scan_equal_candidates.cpp
// (read plans the vector keeps) and test_scan_equal_unplanned.cpp (plans built on the stack).
#pragma once

#include "ops/equal_candidates.hpp"
#include <bitplane/block.hpp>
#include <gtest/gtest.h>
#include <cstddef>
#include <cstdint>

// `block_values`: the block's d.length values as the column holds them; `x`: the value sought,
// `target` its stored form. Returns whether equal_by_candidates answered (both calls must agree);
// a wrong count or wrong bits is a test failure naming `block` and `x`.
inline bool check_equal_by_candidates(const bitplane::detail::block_descriptor& d, const std::byte* bytes,
                                      const std::uint32_t* plan, const std::uint32_t* gaps, std::uint32_t target,
                                      std::uint8_t* marks, const std::uint32_t* block_values, std::uint32_t x,
                                      std::size_t block) {
    std::uint32_t expected = 0;
    bitplane::plane expected_bits{};
    for (std::uint32_t i = 0; i < d.length; ++i) {
        if (block_values[i] != x) continue;
        ++expected;
        expected_bits[i / 32] |= 1u << (i % 32);
    }
    bitplane::plane out;
    out.fill(0xA5A5A5A5u);
    std::uint32_t count = ~0u, counted = ~0u;
    const bool applies = bitplane::detail::equal_by_candidates(d, bytes, plan, gaps, target, marks, out.data(), count);
    const bool applies_counting = bitplane::detail::equal_by_candidates(d, bytes, plan, gaps, target, marks, nullptr, counted);
    EXPECT_EQ(applies, applies_counting) << "block " << block << " value " << x;
    if (!applies || !applies_counting) return false;
    // With `out`, the count may be left to the caller (equal_not_counted); the bits are exact.
    if (count != bitplane::detail::equal_not_counted) {
        EXPECT_EQ(count, expected) << "block " << block << " value " << x;
    }
    EXPECT_EQ(counted, expected) << "block " << block << " value " << x;
    EXPECT_EQ(out, expected_bits) << "block " << block << " value " << x;
    return true;
}
