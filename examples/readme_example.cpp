#include <bitplane/bitplane.hpp>
#include <cstdio>

int main() {
    bitplane::vector<std::uint32_t> column;  // or bitplane::vector<std::int32_t>
    for (std::uint32_t i = 0; i < 100000; ++i) column.push_back(i * 7 % 1000);  // 10-bit values
    std::printf("%zu values, %.2f bits/value, column[12345] = %u\n", column.size(),
                column.stats().bits_per_value, column[12345]);  // read in place, not decoded
    const bitplane::uint128 total = bitplane::sum(column);  // exact, on the compressed planes
    std::vector<std::byte> file;
    bitplane::save(column, file);  // checksummed; load() treats the bytes as untrusted
    const auto loaded = bitplane::load<std::uint32_t>(file);
    return column[12345] == 12345 * 7 % 1000 && total == 49'950'000 && loaded == column ? 0 : 1;
}
