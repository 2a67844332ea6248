// Builds against an installed bitplane: a vector of 10000 values, saved and loaded back.
#include <bitplane/bitplane.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
    constexpr std::size_t count = 10000;
    std::vector<std::uint32_t> expected(count);
    bitplane::vector<std::uint32_t> values;
    for (std::size_t i = 0; i < count; ++i) {
        expected[i] = static_cast<std::uint32_t>((i * 2654435761u) % 5000u);  // 13-bit values
        values.push_back(expected[i]);
    }
    values.seal();

    std::vector<std::byte> bytes;
    bitplane::save(values, bytes);
    const auto loaded = bitplane::load<std::uint32_t>(bytes);

    if (loaded.size() != count) {
        std::fprintf(stderr, "consumer: loaded %zu values, expected %zu\n", loaded.size(), count);
        return 1;
    }
    for (std::size_t i = 0; i < count; ++i) {
        if (loaded[i] != expected[i] || values[i] != expected[i]) {
            std::fprintf(stderr, "consumer: value %zu differs\n", i);
            return 1;
        }
    }
    std::printf("consumer: %zu values, %zu bytes saved, round trip OK\n", count, bytes.size());
    return 0;
}
