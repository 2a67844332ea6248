// Letters -> encoded blocks (letter_builder.hpp).
#include "dna/letter_builder.hpp"

#include "dna/dna_kernels.hpp"

#include <cstdio>
#include <cstring>
#include <string>

namespace bitplane::dna::detail {

bool letter_builder::append(const char* letters, std::size_t count) {
    given_ += count;
    while (count > 0) {
        // The first stage completes the vector's partial last block, so that every later
        // stage is a whole block.
        const std::size_t room = block_values - (codes_.size() + staged_) % block_values;
        const std::size_t take = count < room ? count : room;
        std::memcpy(stage_.data() + staged_, letters, take);
        staged_ += take;
        letters += take;
        count -= take;
        if (take == room && !flush()) return false;
    }
    return true;
}

bool letter_builder::finish() { return staged_ == 0 || flush(); }

bool letter_builder::flush() {
    window_.clear();
    std::uint32_t nonzero = 0;
    if (!dna_kernels().encode_letters(stage_.data(), staged_, window_.data(), &nonzero)) {
        window_.nonzero = (1u << code_planes) - 1u;  // unspecified contents: clear them all next time
        bad_index_ = flushed_ + first_bad_letter(stage_.data(), staged_).value_or(0);
        return false;
    }
    window_.nonzero = nonzero;
    const std::size_t tail = codes_.size() % block_values;
    if (tail == 0) {
        append_window(codes_, window_, staged_);
    } else {  // completing a partial block: as values
        std::array<std::uint32_t, block_values> values;
        untranspose(window_.planes, values);
        codes_.append(std::span<const std::uint32_t>(values.data(), staged_));
    }
    flushed_ += staged_;
    staged_ = 0;
    return true;
}

std::optional<std::size_t> first_bad_letter(const char* letters, std::size_t count) noexcept {
    for (std::size_t i = 0; i < count; ++i)
        if (to_code(letters[i]) == 0xFF) return i;
    return std::nullopt;
}

std::string describe_byte(char c) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(c)));
    if (c >= 0x21 && c <= 0x7E) return std::string("'") + c + "' (" + hex + ")";
    switch (c) {
        case ' ': return std::string("space (") + hex + ")";
        case '\t': return std::string("tab (") + hex + ")";
        case '\r': return std::string("carriage return (") + hex + ")";
        case '\n': return std::string("line feed (") + hex + ")";
        default: return std::string("byte ") + hex;
    }
}

}  // namespace bitplane::dna::detail
