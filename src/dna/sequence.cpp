// bitplane::dna::sequence: building from text, reading letters back, files.
#include <bitplane/dna/sequence.hpp>

#include <bitplane/error.hpp>
#include <bitplane/serialize.hpp>

#include "dna/code_window.hpp"
#include "dna/dna_kernels.hpp"
#include "dna/letter_builder.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace bitplane::dna {

sequence sequence::from_codes(bitplane::vector<std::uint32_t> codes) {
    std::array<std::uint32_t, block_values> values;
    for (std::size_t first = 0; first < codes.size(); first += block_values) {
        const std::size_t n = std::min(block_values, codes.size() - first);
        codes.decode(first, std::span<std::uint32_t>(values.data(), n));
        for (std::size_t i = 0; i < n; ++i)
            if (!is_valid_code(values[i]))
                throw argument_error("dna::sequence::from_codes: value " + std::to_string(values[i]) + " at index " +
                                     std::to_string(first + i) + " is not a letter code");
    }
    sequence s;
    s.codes_ = std::move(codes);
    return s;
}

void sequence::append(std::string_view text) {
    const std::size_t before = size();
    detail::letter_builder builder(codes_);
    if (!builder.append(text.data(), text.size()) || !builder.finish()) {
        const std::uint64_t bad = builder.bad_index();
        codes_.resize(before);
        throw parse_error("dna::sequence: column " + std::to_string(bad + 1) + ": " +
                          detail::describe_byte(text[bad]) + " is not a DNA letter (ACGTN, IUPAC codes or '-')");
    }
}

void sequence::decode(std::size_t first, std::span<char> out) const {
    if (first > size() || out.size() > size() - first)
        throw index_error("dna::sequence::decode: range [" + std::to_string(first) + ", " +
                          std::to_string(first + out.size()) + ") outside size " + std::to_string(size()));
    if (out.empty()) return;
    const auto& kernels = detail::dna_kernels();
    detail::code_window window;
    std::size_t done = 0;
    if (first % block_values == 0) {  // whole blocks: decode each block's planes straight to letters
        for (std::size_t b = first / block_values; done < out.size(); ++b) {
            const std::size_t n = std::min(block_values, out.size() - done);
            detail::read_block(codes_, b, window);
            kernels.decode_letters(window.data(), window.nonzero, n, out.data() + done);
            done += n;
        }
        return;
    }
    detail::window_reader reader(codes_, first, first + out.size());
    for (; done < out.size(); done += block_values) {
        reader.load(static_cast<std::int64_t>(first + done), window);
        kernels.decode_letters(window.data(), window.nonzero, std::min(block_values, out.size() - done),
                               out.data() + done);
    }
}

std::string sequence::substr(std::size_t pos, std::size_t count) const {
    if (pos > size())
        throw index_error("dna::sequence::substr: position " + std::to_string(pos) + " > size " + std::to_string(size()));
    std::string out(std::min(count, size() - pos), '\0');
    decode(pos, std::span<char>(out.data(), out.size()));
    return out;
}

void save(const sequence& s, std::vector<std::byte>& out) { bitplane::save(s.codes(), out); }

sequence load_sequence(std::span<const std::byte> bytes) {
    bitplane::vector<std::uint32_t> codes = bitplane::load<std::uint32_t>(bytes);
    try {
        return sequence::from_codes(std::move(codes));
    } catch (const argument_error& e) {
        // The offset of a code inside the blocks is not a byte offset: name the letter instead.
        throw format_error(std::string("dna sequence file: ") + e.what(), 0);
    }
}

}  // namespace bitplane::dna
