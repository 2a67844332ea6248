#include "demo_data.hpp"

#include <array>
#include <bit>

namespace bitplane::cli {

namespace {

std::vector<std::uint32_t> uniform10(std::size_t count, std::mt19937_64& random) {
    std::vector<std::uint32_t> out(count);
    for (auto& v : out) v = static_cast<std::uint32_t>(random() & 1023);
    return out;
}

// Scores 0..7 (3 bits), e.g. ratings or quality levels.
std::vector<std::uint32_t> scores(std::size_t count, std::mt19937_64& random) {
    std::vector<std::uint32_t> out(count);
    for (auto& v : out) v = static_cast<std::uint32_t>(random() & 7);
    return out;
}

// Mostly zeros: 90% 0, else a 20-bit value (event counts, sparse features).
std::vector<std::uint32_t> sparse20(std::size_t count, std::mt19937_64& random) {
    std::vector<std::uint32_t> out(count);
    for (auto& v : out) v = random() % 10 == 0 ? static_cast<std::uint32_t>(random() & 0xfffff) : 0u;
    return out;
}

// Millisecond timestamps (low 32 bits of ~1.7e12), one a second with up to 8 ms of jitter.
std::vector<std::uint32_t> timestamps(std::size_t count, std::mt19937_64& random) {
    std::vector<std::uint32_t> out(count);
    auto now = static_cast<std::uint32_t>(1'700'000'000'000ull);
    std::uniform_int_distribution<int> jitter(-8, 8);
    for (auto& v : out) {
        v = now;
        now += static_cast<std::uint32_t>(1000 + jitter(random));
    }
    return out;
}

// Sensor readings in [-100, 100], 10% of them the sentinel -1 ("missing"), as int32 bits.
std::vector<std::uint32_t> readings(std::size_t count, std::mt19937_64& random) {
    std::vector<std::uint32_t> out(count);
    std::uniform_int_distribution<std::int32_t> reading(-100, 100);
    for (auto& v : out) v = std::bit_cast<std::uint32_t>(random() % 10 == 0 ? -1 : reading(random));
    return out;
}

// Full-range random values: nothing to compress (the format's overhead shows).
std::vector<std::uint32_t> random32(std::size_t count, std::mt19937_64& random) {
    std::vector<std::uint32_t> out(count);
    for (auto& v : out) v = static_cast<std::uint32_t>(random());
    return out;
}

}  // namespace

std::span<const demo_dataset> demo_datasets() {
    static const std::array datasets = {
        demo_dataset{"uniform10", "uniform 10-bit values", false, uniform10},
        demo_dataset{"scores3", "scores 0..7 (3 bits)", false, scores},
        demo_dataset{"sparse20", "90% zeros, else 20-bit values", false, sparse20},
        demo_dataset{"timestamps", "ms timestamps, 1 s apart +- 8 ms", false, timestamps},
        demo_dataset{"readings", "int32 in [-100, 100], 10% -1 (missing)", true, readings},
        demo_dataset{"random32", "full-range random (incompressible)", false, random32},
    };
    return datasets;
}

}  // namespace bitplane::cli
