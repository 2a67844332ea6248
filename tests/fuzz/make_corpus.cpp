// Writes seed corpora for the fuzz targets: saved vectors and single blocks of every data
// shape the codec distinguishes (uniform k-bit, sparse, runs, sorted, negative, constant,
// all-ones, partial blocks), so that fuzzing starts from every layout, transform and payload.
#include <bitplane/bitplane.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

void write(const std::filesystem::path& file, std::span<const std::byte> bytes) {
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::vector<std::uint32_t>> shapes() {
    std::mt19937_64 rng(7);
    std::vector<std::vector<std::uint32_t>> out;
    for (unsigned bits : {0u, 1u, 3u, 10u, 20u, 32u}) {
        std::vector<std::uint32_t> v(2048 + 77);
        for (auto& x : v) x = bits == 32 ? static_cast<std::uint32_t>(rng()) : static_cast<std::uint32_t>(rng() & ((1ull << bits) - 1));
        out.push_back(v);
    }
    std::vector<std::uint32_t> sparse(4096), runs(2048), sorted(2048), negative(2048), ones(2048, ~0u), constant(300, 7);
    for (auto& x : sparse) x = rng() % 10 == 0 ? static_cast<std::uint32_t>(rng() & 0xFFFFF) : 0;
    std::uint32_t level = 0;
    for (auto& x : runs) { if (rng() % 100 == 0) level = rng() % 50; x = level; }
    std::uint32_t t = 1'700'000'000u;
    for (auto& x : sorted) x = t += 1000 + static_cast<std::uint32_t>(rng() % 31) - 15;
    for (auto& x : negative) x = rng() % 20 == 0 ? ~0u : static_cast<std::uint32_t>(rng() % 1000);
    for (auto* v : {&sparse, &runs, &sorted, &negative, &ones, &constant}) out.push_back(*v);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) return 2;
    const std::filesystem::path vectors = argv[1], blocks = argv[2];
    std::filesystem::create_directories(vectors);
    std::filesystem::create_directories(blocks);
    int n = 0;
    for (const auto& values : shapes()) {
        std::vector<std::byte> file;
        bitplane::save(bitplane::vector<std::uint32_t>(std::span<const std::uint32_t>(values)), file);
        write(vectors / ("u32_" + std::to_string(n)), file);
        file.clear();
        std::vector<std::int32_t> signed_values(values.begin(), values.end());
        bitplane::save(bitplane::vector<std::int32_t>(std::span<const std::int32_t>(signed_values)), file);
        write(vectors / ("i32_" + std::to_string(n)), file);
        const std::size_t count = std::min<std::size_t>(values.size(), 2048);
        std::vector<std::byte> block(2 + bitplane::codec::max_block_bytes);
        const std::size_t c = count - 1;
        block[0] = static_cast<std::byte>(c & 0xFF);
        block[1] = static_cast<std::byte>(c >> 8);
        const std::size_t bytes = bitplane::codec::encode_block(std::span(values).first(count), false,
                                                                std::span(block).subspan(2));
        write(blocks / ("block_" + std::to_string(n)), std::span(block).first(2 + bytes));
        ++n;
    }
    return 0;
}
