// One check of an equality scan against a plain loop, shared by the scan suites that need it
// (test_scan_equality_lane.cpp, test_presence_filter.cpp, test_scan_equal_candidates.cpp):
// count_eq, find_eq and find_ne of `x` over `v`, whose values are `values`.
#pragma once

#include <bitplane/scan.hpp>
#include <bitplane/vector.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bitplane_test {

template <class T>
void check_equality_against_loop(const bitplane::vector<T>& v, const std::vector<T>& values, T x) {
    SCOPED_TRACE("target " + std::to_string(x));
    std::vector<std::uint64_t> want, want_ne;
    for (std::size_t i = 0; i < values.size(); ++i) (values[i] == x ? want : want_ne).push_back(i);
    ASSERT_EQ(bitplane::count_eq(v, x), want.size());
    const bitplane::bitset eq = bitplane::find_eq(v, x);
    ASSERT_EQ(std::vector<std::uint64_t>(eq.begin(), eq.end()), want);
    const bitplane::bitset ne = bitplane::find_ne(v, x);
    ASSERT_EQ(std::vector<std::uint64_t>(ne.begin(), ne.end()), want_ne);
}

}  // namespace bitplane_test
