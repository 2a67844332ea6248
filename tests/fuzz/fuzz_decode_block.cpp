// libFuzzer target: one block on arbitrary bytes. The first two bytes give the value count
// (1..2048), the rest is the block. validate_block must accept exactly what decode_block
// accepts; for a valid block decode_value must agree with decode_block (at 64 indices),
// and re-encoding the decoded values must round trip.
#include <bitplane/bitplane.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const std::size_t count = 1 + ((data[0] | (data[1] << 8)) % bitplane::block_values);
    const std::span<const std::byte> block(reinterpret_cast<const std::byte*>(data + 2), size - 2);
    std::array<std::uint32_t, bitplane::block_values> values{};
    bool valid = true;
    try {
        bitplane::codec::validate_block(block, count);
    } catch (const bitplane::format_error&) {
        valid = false;
    }
    try {
        bitplane::codec::decode_block(block, std::span(values).first(count));
        if (!valid) std::abort();  // decode accepted what validate rejected
    } catch (const bitplane::format_error&) {
        if (valid) std::abort();
        return 0;
    }
    // A sample of indices (every index would make each input cost thousands of reads).
    for (std::size_t k = 0; k < 64; ++k) {
        const std::size_t i = (k * 131 + static_cast<std::size_t>(data[2 % size])) % count;
        if (bitplane::codec::decode_value(block, count, i) != values[i]) std::abort();
    }
    (void)bitplane::codec::describe_block(block, count);
    std::array<std::byte, bitplane::codec::max_block_bytes> encoded;
    const std::size_t bytes = bitplane::codec::encode_block(std::span(values).first(count), false, encoded);
    std::array<std::uint32_t, bitplane::block_values> again{};
    bitplane::codec::decode_block(std::span(encoded).first(bytes), std::span(again).first(count));
    if (again != values) std::abort();
    return 0;
}
