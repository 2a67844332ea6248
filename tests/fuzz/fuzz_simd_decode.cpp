// libFuzzer target, differential: one encoded block (first two bytes: the value count, the
// rest: the block) decoded on every SIMD path this CPU runs must give the scalar path's values
// exactly, or be rejected by every path. (Encoding on every path is checked by the unit tests:
// identical bytes for every shape, tests/test_codec.cpp.)
#include <bitplane/bitplane.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

namespace {

struct block_result {
    bool valid = false;
    std::array<std::uint32_t, bitplane::block_values> values{};
    bool operator==(const block_result&) const = default;
};

block_result run_block(std::span<const std::byte> bytes, std::size_t count) {
    block_result r;
    try {
        bitplane::codec::decode_block(bytes, std::span(r.values).first(count));
        r.valid = true;
    } catch (const bitplane::format_error&) {
        r.values.fill(0);
    }
    return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const std::size_t count = 1 + ((data[0] | (data[1] << 8)) % bitplane::block_values);
    const std::span<const std::byte> block(reinterpret_cast<const std::byte*>(data + 2), size - 2);
    bitplane::set_simd_path(bitplane::simd_path::scalar);
    const block_result expected = run_block(block, count);
    for (const bitplane::simd_path path : bitplane::available_simd_paths()) {
        bitplane::set_simd_path(path);
        if (!(run_block(block, count) == expected)) std::abort();
    }
    return 0;
}
