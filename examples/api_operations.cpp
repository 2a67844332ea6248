// docs/api.md, "Operations": sums, dot products, scans and bitwise operations on compressed
// columns, checked against plain loops (the test suite runs this program).
#include <bitplane/bitplane.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    std::vector<std::uint32_t> price_values, quantity_values;
    for (std::uint32_t i = 0; i < 50000; ++i) {
        price_values.push_back(1000 + i * 37 % 900);  // a 10-bit range above 1000
        quantity_values.push_back(i % 8);             // 3-bit values
    }
    const bitplane::vector<std::uint32_t> prices(price_values), quantities(quantity_values);

    const bitplane::uint128 revenue = bitplane::dot(prices, quantities);  // exact, from the planes
    const bitplane::bitset cheap = bitplane::find_lt(prices, 1100u);      // compressed positions
    const std::uint64_t mid = bitplane::count_range(prices, 1400u, 1499u);
    const bitplane::vector<std::uint32_t> low_bits = prices & quantities;  // compressed result
    std::printf("revenue %s, %llu cheap (first at %llu), %llu in [1400, 1499]\n", bitplane::to_string(revenue).c_str(),
                static_cast<unsigned long long>(cheap.count()), static_cast<unsigned long long>(*cheap.begin()),
                static_cast<unsigned long long>(mid));

    std::uint64_t dot = 0, below = 0, inside = 0;
    bool same = low_bits.size() == prices.size();
    for (std::size_t i = 0; i < price_values.size(); ++i) {
        dot += std::uint64_t{price_values[i]} * quantity_values[i];
        below += price_values[i] < 1100 ? 1 : 0;
        inside += price_values[i] >= 1400 && price_values[i] <= 1499 ? 1 : 0;
        same = same && low_bits[i] == (price_values[i] & quantity_values[i]) && cheap.contains(i) == (price_values[i] < 1100);
    }
    return revenue == dot && cheap.count() == below && mid == inside && same ? 0 : 1;
}
