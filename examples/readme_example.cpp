#include <bitplane/bitplane.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    bitplane::vector<std::uint32_t> column;  // or bitplane::vector<std::int32_t>
    for (std::uint32_t i = 0; i < 100000; ++i) column.push_back(i * 7 % 1000);  // 10-bit values
    if (column.size() != 100000 || column[12345] != 12345 * 7 % 1000) return 1;

    const bitplane::vector_stats stats = column.stats();
    std::printf("%zu values in %zu bytes: %.2f bits/value\n", column.size(), column.memory_bytes(),
                stats.bits_per_value);

    std::vector<std::byte> bytes;
    bitplane::save(column, bytes);  // a checksummed, versioned file format
    const auto loaded = bitplane::load<std::uint32_t>(bytes);
    return loaded == column ? 0 : 1;
}
