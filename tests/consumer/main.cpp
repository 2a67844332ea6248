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
    // Operations and the error types cross the library boundary too (a shared build exports
    // them through src/bitplane.map).
    std::uint64_t expected_sum = 0, expected_count = 0;
    for (const std::uint32_t x : expected) {
        expected_sum += x;
        expected_count += x == 7;
    }
    if (static_cast<std::uint64_t>(bitplane::sum(loaded)) != expected_sum ||
        bitplane::count_eq(loaded, 7u) != expected_count || bitplane::find_eq(loaded, 7u).count() != expected_count) {
        std::fprintf(stderr, "consumer: sum or scan differs\n");
        return 1;
    }
    bytes.resize(bytes.size() / 2);
    try {
        (void)bitplane::load<std::uint32_t>(bytes);
        std::fprintf(stderr, "consumer: a truncated file loaded\n");
        return 1;
    } catch (const bitplane::error& e) {  // a format_error, caught as its base class
        std::printf("consumer: truncated file rejected: %s\n", e.what());
    }
    std::printf("consumer: %zu values, sum %llu, round trip OK\n", count,
                static_cast<unsigned long long>(expected_sum));
    return 0;
}
